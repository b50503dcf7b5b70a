"""Real-server helpers for the IRC adapter's tests: one ngIRCd (Debian's package, installed by
scripts/ngircd.sh; skipped without it, failed under CI) per test session on a free 127.0.0.1
port, run in the foreground from a generated configuration in a temp dir and always stopped;
scripted players are small asyncio IRC clients on the raw protocol; the bot runs as ``referee
irc`` in a subprocess (or in-process where a test needs to reach inside).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from needs import need

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ngircd_binary() -> str:
    """Debian's ngircd (scripts/ngircd.sh installs it); the test skips without it, or fails
    under CI."""
    found = shutil.which("ngircd") or ("/usr/sbin/ngircd" if os.path.exists("/usr/sbin/ngircd")
                                       else None)
    need(found, "ngircd (the IRC tests' server)", "bash scripts/ngircd.sh install, as root")
    assert found is not None
    return found


CONF = """[Global]
\tName = irc.test
\tInfo = referee test server
\tAdminInfo1 = referee tests
\tAdminInfo2 = 127.0.0.1
\tAdminEMail = nobody@invalid
\tListen = 127.0.0.1
\tPorts = {port}
\tPidFile = {dir}/ngircd.pid
\tMotdPhrase = referee test server
[Limits]
\tMaxNickLength = 30
\tMaxConnectionsIP = 0
\tPingTimeout = 120
\tPongTimeout = 20
[SSL]
\tCertFile = {dir}/cert.pem
\tKeyFile = {dir}/key.pem
\tPorts = {tls_port}
[Options]
\tPAM = no
\tIdent = no
\tDNS = no
\tChrootDir =
"""


class Ngircd:
    """ngircd -n (no daemon) with its own config; ``restart`` keeps the port.
    ``penalties=False``: ``MaxPenaltyTime = 0``, so the server reads a client's lines as fast
    as they come (by default it reads about one a second from a busy client): the flood tests'
    own servers, where 30 lines a second must reach the bot as sent."""

    def __init__(self, penalties: bool = True) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="referee-ngircd-"))
        os.chmod(self.dir, 0o777)  # ngircd drops root for "nobody": let it write its pid file
        self.port = _free_port()
        self.tls_port = _free_port()
        self.cert = self.dir / "cert.pem"
        # a self-signed certificate for 127.0.0.1: the TLS test trusts exactly this file
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", str(self.dir / "key.pem"), "-out", str(self.cert)],
                       check=True, capture_output=True, timeout=60)
        for f in ("key.pem", "cert.pem"):
            os.chmod(self.dir / f, 0o644)
        self.conf = self.dir / "ngircd.conf"
        conf = CONF.format(port=self.port, tls_port=self.tls_port, dir=self.dir)
        if not penalties:
            conf = conf.replace("[Limits]\n", "[Limits]\n\tMaxPenaltyTime = 0\n")
        self.conf.write_text(conf, encoding="utf-8")
        self.log = self.dir / "ngircd.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.binary = ngircd_binary()

    def start(self, timeout: float = 15.0) -> float:
        t0 = time.monotonic()
        log = open(self.log, "ab")
        self.proc = subprocess.Popen([self.binary, "-n", "-f", str(self.conf)], stdout=log,
                                     stderr=subprocess.STDOUT)
        log.close()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ngircd exited: {self.log.read_text(errors='replace')}")
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"QUIT\r\n")
                return time.monotonic() - t0
            time.sleep(0.05)
        raise RuntimeError("ngircd did not start listening")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def restart(self) -> float:
        self.stop()
        return self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


# --- scripted clients ---------------------------------------------------------------------

_LINE = re.compile(r"^(?::(?P<prefix>\S+) )?(?P<cmd>\S+)(?P<args>.*)$")


def parse_line(line: str) -> tuple[str, str, list[str]]:
    m = _LINE.match(line)
    if m is None:
        return "", "", []
    rest = m.group("args").lstrip(" ")
    args: list[str] = []
    while rest:
        if rest.startswith(":"):
            args.append(rest[1:])
            break
        word, _, rest = rest.partition(" ")
        args.append(word)
        rest = rest.lstrip(" ")
    return m.group("prefix") or "", m.group("cmd").upper(), args


@dataclass
class Msg:
    sender: str
    target: str
    text: str
    raw: bytes
    at: float

    @property
    def private(self) -> bool:
        return not self.target.startswith(("#", "&", "+", "!"))


@dataclass
class Client:
    """A scripted IRC user: registers, joins, records every PRIVMSG/NOTICE, answers PING."""

    port: int
    nick: str
    channels: list[str] = field(default_factory=list)
    messages: list[Msg] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    task: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    user: str = ""  # the USER name (default: the nick; some servers refuse "[" in it)

    async def connect(self, timeout: float = 10.0) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.task = asyncio.create_task(self._read())
        self.raw(f"NICK {self.nick}")
        self.raw(f"USER {self.user or self.nick} 0 * :{self.nick}")
        await self.wait_line(lambda ln: f" 001 {self.nick} " in ln, timeout)
        for c in self.channels:
            self.raw(f"JOIN {c}")
            await self.wait_line(lambda ln, c=c: f" 366 {self.nick} {c} " in ln, timeout)

    def raw(self, line: str) -> None:
        assert self.writer is not None
        self.writer.write(line.encode("utf-8") + b"\r\n")

    def say(self, target: str, text: str) -> None:
        self.raw(f"PRIVMSG {target} :{text}")

    async def _read(self) -> None:
        assert self.reader is not None
        while True:
            raw = await self.reader.readline()
            if not raw:
                break
            line = raw.rstrip(b"\r\n").decode("utf-8", "replace")
            self.lines.append(line)
            prefix, cmd, args = parse_line(line)
            if cmd == "PING":
                self.raw("PONG :" + (args[0] if args else ""))
            elif cmd in ("PRIVMSG", "NOTICE") and len(args) >= 2 and "!" in prefix:
                self.messages.append(Msg(prefix.split("!", 1)[0], args[0], args[1], raw,
                                         time.monotonic()))
            elif cmd == "NICK" and prefix.split("!", 1)[0] == self.nick and args:
                self.nick = args[0]
            self._changed.set()
        self._changed.set()

    async def wait_line(self, pred: Callable[[str], bool], timeout: float = 10.0,
                        start: int = 0) -> str:
        return await self._wait(lambda: next((ln for ln in self.lines[start:] if pred(ln)),
                                             None), timeout, "line")

    async def wait_msg(self, pred: Callable[[Msg], bool], timeout: float = 15.0,
                       start: int = 0) -> Msg:
        return await self._wait(lambda: next((m for m in self.messages[start:] if pred(m)),
                                             None), timeout, "message")

    async def _wait(self, find: Callable[[], object], timeout: float, what: str) -> Msg | str:
        end = time.monotonic() + timeout
        while True:
            found = find()
            if found is not None:
                return found  # type: ignore[return-value]
            left = end - time.monotonic()
            if left <= 0:
                tail = "\n".join(self.lines[-15:])
                raise AssertionError(f"{self.nick}: no matching {what} in {timeout}s; last:\n"
                                     f"{tail}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))

    async def reconnect(self, timeout: float = 10.0) -> None:
        """After the server went away: a new connection with the same nick and channels."""
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        if self.writer is not None:
            with contextlib.suppress(Exception):
                self.writer.close()
        await self.connect(timeout)

    async def close(self) -> None:
        if self.writer is not None:
            with contextlib.suppress(Exception):
                self.raw("QUIT :bye")
                await self.writer.drain()
                self.writer.close()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task


# --- identity: secrets and proofs -------------------------------------------------------------

BOT = "referee"  # the bot's nick in every IRC test


async def bot_in_channel(c: Client, channel: str, timeout: float) -> None:
    """Poll NAMES until the bot is in the channel (it may have joined before or after us)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        start = len(c.lines)
        c.raw(f"NAMES {channel}")
        await c.wait_line(lambda ln: f" 366 {c.nick} {channel} " in ln, 10, start)
        names = " ".join(ln for ln in c.lines[start:] if f" 353 {c.nick} " in ln)
        if re.search(rf"[ :@+]{BOT}(\s|$)", names):
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"the bot did not join {channel}")


def secret_of(name: str) -> str:
    """The test secret of a player (a moderator's is seeded by the operator, see seed_secret)."""
    return f"pw-{name.rstrip('_')}-7"


def seed_secret(db: Path, name: str, secret: str | None = None) -> None:
    """What ``referee irc-secret --db DB NAME`` does: the operator sets a (moderator's) secret
    in the real database file before the bot starts."""
    r = subprocess.run([sys.executable, "-m", "referee.cli", "irc-secret", "--db", str(db), name],
                       input=(secret or secret_of(name)) + "\n", text=True, capture_output=True,
                       cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr


async def prove(c: Client, name: str | None = None, secret: str | None = None,
                bot: str = "referee", timeout: float = 20.0) -> Msg:
    """``/msg referee !pass [@name] SECRET`` and the bot's confirmation."""
    start = len(c.messages)
    who = f"@{name} " if name else ""
    c.say(bot, f"!pass {who}{secret or secret_of(name or c.nick)}")
    return await c.wait_msg(lambda m: m.sender == bot and m.private and "確認しました" in m.text,
                            timeout, start)


# --- the bot as a process ----------------------------------------------------------------------

class BotProcess:
    """``referee irc`` in a subprocess, logging to a file (``log``, else beside the database);
    stopped with SIGTERM (every one started is stopped after its test: conftest)."""

    started: ClassVar[list[BotProcess]] = []

    def __init__(self, port: int, db: Path, channels: list[str], moderators: list[str],
                 nick: str = "referee", extra: list[str] | None = None,
                 seed: bool = True, env: dict[str, str] | None = None,
                 log: Path | None = None) -> None:
        self.log = log or db.with_suffix(".log")
        if seed:
            for m in moderators:
                if not m.startswith("account:"):
                    seed_secret(db, m)
        args = [sys.executable, "-m", "referee.cli", "irc", "--server", "127.0.0.1",
                "--port", str(port), "--no-tls", "--nick", nick, "--db", str(db),
                "--interval", "0.15", "--burst", "5"]
        for c in channels:
            args += ["--channel", c]
        for m in moderators:
            args += ["--moderator", m]
        args += extra or []
        out = open(self.log, "ab")
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                     env={**os.environ, **(env or {})})
        out.close()
        BotProcess.started.append(self)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return int(self.proc.returncode)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


# --- a network with services: InspIRCd + Atheme ------------------------------------------------

INSPIRCD_CONF = """<server name="irc.test" description="referee test server" network="RefTest"
        id="0AA">
<admin name="referee tests" nick="admin" email="nobody@invalid">
<bind address="127.0.0.1" port="{port}" type="clients">
<bind address="127.0.0.1" port="{link_port}" type="servers">
<connect name="main" allow="*" timeout="60" pingfreq="120" localmax="1000" globalmax="1000"
         useident="no" limit="5000" threshold="10000" commandrate="100000" fakelag="off"
         recvq="65536" softsendq="1048576" hardsendq="1048576" resolvehostnames="no">
<files motd="{dir}/motd">
<pid file="{dir}/inspircd.pid">
<log method="file" type="* -USERINPUT -USEROUTPUT" level="default" target="{dir}/inspircd.log">
<dns server="127.0.0.1" timeout="1">
<options prefixquit="Quit: " syntaxhints="no" announcets="yes" pingwarning="15" splitwhois="no">
<security hideserver="" userstats="Pu" flatlinks="no" hidesplits="no" hideulines="no"
          hidebans="no" maxtargets="20">
<performance netbuffersize="10240" somaxconn="128" softlimit="1024" clonesonconnect="no"
             quietbursts="yes">
<limits maxnick="30" maxchan="64" maxmodes="20" maxident="11" maxhost="64" maxquit="255"
        maxtopic="307" maxkick="255" maxreal="128" maxaway="200">
<module name="spanningtree">
<module name="services_account">
<module name="sasl">
<module name="cap">
<module name="ircv3">
{accounttag}{monitor}<module name="ircv3_capnotify">
<link name="services.test" ipaddr="127.0.0.1" port="{link_port}" allowmask="127.0.0.0/8"
      sendpass="{link_pw}" recvpass="{link_pw}" timeout="30">
<uline server="services.test" silent="yes">
<sasl target="services.test">
"""

ATHEME_CONF = """loadmodule "modules/protocol/inspircd";
loadmodule "modules/backend/opensex";
loadmodule "modules/crypto/pbkdf2v2";
loadmodule "modules/nickserv/main";
loadmodule "modules/nickserv/identify";
loadmodule "modules/nickserv/register";
loadmodule "modules/nickserv/logout";
loadmodule "modules/saslserv/main";
loadmodule "modules/saslserv/plain";
serverinfo {{
    name = "services.test"; desc = "referee test services"; numeric = "00A"; recontime = 1;
    netname = "RefTest"; hidehostsuffix = "users.test"; adminname = "referee tests";
    adminemail = "nobody@invalid"; registeremail = "nobody@invalid"; mta = "/bin/true";
    loglevel = {{ admin; error; info; network; }};
    maxlogins = 5; maxusers = 50; mdlimit = 30; emaillimit = 10; emailtime = 300;
    auth = none; casemapping = rfc1459;
}};
uplink "irc.test" {{
    host = "127.0.0.1"; port = {link_port}; send_password = "{link_pw}";
    receive_password = "{link_pw}";
}};
nickserv {{
    nick = "NickServ"; user = "NickServ"; host = "services.test"; real = "Nickname Services";
    spam = no; maxnicks = 5; expire = 0;
}};
saslserv {{
    nick = "SaslServ"; user = "SaslServ"; host = "services.test";
    real = "SASL Authentication Agent";
}};
general {{
    helpchan = "#help"; join_chans; leave_chans; uflags = {{ hidemail; }}; cflags = {{ verbose; }};
    flood_msgs = 0; flood_time = 10; ratelimit_uses = 1000; ratelimit_period = 1;
    kline_time = 7; commit_interval = 5; default_clone_allowed = 50; default_clone_warn = 40;
    uplink_sendq_limit = 1048576; language = "en";
}};
"""


def services_binaries() -> tuple[str, str]:
    """InspIRCd and Atheme from Debian's packages (scripts/ircservices.sh installs them)."""
    def find() -> tuple[str | None, str | None]:
        return (shutil.which("inspircd") or ("/usr/sbin/inspircd"
                if os.path.exists("/usr/sbin/inspircd") else None),
                shutil.which("atheme-services"))
    ircd, atheme = find()
    need(ircd and atheme, "inspircd and atheme-services (the IRC services tests' network)",
         "bash scripts/ircservices.sh install, as root")
    assert ircd and atheme
    return ircd, atheme


class Services:
    """InspIRCd (IRCv3 account-tag, account-notify, extended-join, WHOX, SASL) linked to Atheme
    (NickServ, SaslServ), both in the foreground from generated configurations on free ports.
    ``account_tag=False``: the same network without account tags (accounts only by WHOIS) and
    without MONITOR (the bot follows nicks by ISON).
    As root, InspIRCd runs with --runasroot and Atheme (which refuses root) as nobody."""

    def __init__(self, account_tag: bool = True) -> None:
        self.account_tag = account_tag
        self.dir = Path(tempfile.mkdtemp(prefix="referee-inspircd-"))
        os.chmod(self.dir, 0o777)
        self.port = _free_port()
        self.link_port = _free_port()
        pw = os.urandom(8).hex()
        (self.dir / "motd").write_text("referee test server\n")
        self.ircd_conf = self.dir / "inspircd.conf"
        self.ircd_conf.write_text(INSPIRCD_CONF.format(
            port=self.port, link_port=self.link_port, dir=self.dir, link_pw=pw,
            accounttag='<module name="ircv3_accounttag">\n' if account_tag else "",
            # with tags the bot follows nicks by MONITOR, without by ISON (as on ngIRCd)
            monitor='<module name="monitor">\n' if account_tag else ""))
        self.atheme_conf = self.dir / "atheme.conf"
        self.atheme_conf.write_text(ATHEME_CONF.format(link_port=self.link_port, link_pw=pw))
        for f in self.dir.iterdir():
            os.chmod(f, 0o644)
        self.ircd_bin, self.atheme_bin = services_binaries()
        self.ircd: subprocess.Popen[bytes] | None = None
        self.atheme: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30.0) -> float:
        t0 = time.monotonic()
        root = os.geteuid() == 0
        out = open(self.dir / "inspircd.out", "ab")
        self.ircd = subprocess.Popen(
            [self.ircd_bin, "--nofork", "--config", str(self.ircd_conf)]
            + (["--runasroot"] if root else []), stdout=out, stderr=subprocess.STDOUT)
        out.close()
        self._wait_port(self.port, self.ircd, t0, timeout, "inspircd")
        atheme = [self.atheme_bin, "-n", "-c", str(self.atheme_conf), "-D", str(self.dir),
                  "-l", str(self.dir / "atheme.log"), "-p", str(self.dir / "atheme.pid")]
        if root:
            atheme = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *atheme]
        out = open(self.dir / "atheme.out", "ab")
        self.atheme = subprocess.Popen(atheme, stdout=out, stderr=subprocess.STDOUT)
        out.close()
        # linked when NickServ answers
        while time.monotonic() - t0 < timeout:
            if self.atheme.poll() is not None:
                raise RuntimeError("atheme exited: "
                                   + (self.dir / "atheme.out").read_text(errors="replace"))
            if self._nickserv_up():
                return time.monotonic() - t0
            time.sleep(0.1)
        raise RuntimeError("atheme did not link: "
                           + (self.dir / "atheme.out").read_text(errors="replace")[-2000:])

    def _wait_port(self, port: int, proc: subprocess.Popen[bytes], t0: float, timeout: float,
                   what: str) -> None:
        while time.monotonic() - t0 < timeout:
            if proc.poll() is not None:
                raise RuntimeError(f"{what} exited: "
                                   + (self.dir / f"{what}.out").read_text(errors="replace"))
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", port), timeout=0.5):
                return
            time.sleep(0.05)
        raise RuntimeError(f"{what} did not start listening")

    def _nickserv_up(self) -> bool:
        """Atheme has linked and taken in the network's burst (its log says so)."""
        out = self.dir / "atheme.out"
        return out.exists() and b"finished synching with uplink" in out.read_bytes()

    def stop(self) -> None:
        for proc in (self.atheme, self.ircd):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)
        self.ircd = self.atheme = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


async def register(c: Client, password: str, timeout: float = 20.0) -> None:
    """NickServ REGISTER: the account of c's nick, logged in at once."""
    start = len(c.messages)
    c.say("NickServ", f"REGISTER {password} {c.nick}@example.org")
    await c.wait_msg(lambda m: m.sender == "NickServ" and "is now registered" in m.text,
                     timeout, start)


async def identify(c: Client, account: str, password: str, timeout: float = 20.0) -> None:
    start = len(c.messages)
    c.say("NickServ", f"IDENTIFY {account} {password}")
    await c.wait_msg(lambda m: m.sender == "NickServ" and ("identified" in m.text
                                                       or "logged in" in m.text), timeout,
                     start)


class Net:
    """One network and how its players prove who they are: ``!pass`` secrets on ngIRCd
    (``accounts=False``), NickServ accounts on InspIRCd + Atheme. ``kind`` names it in test ids
    and messages (ngircd, services, services_whois)."""

    def __init__(self, port: int, accounts: bool, kind: str = "") -> None:
        self.port = port
        self.accounts = accounts
        self.kind = kind or ("services" if accounts else "ngircd")

    async def login(self, c: Client, name: str | None = None) -> None:
        if not self.accounts:
            await prove(c, name)
            return
        # NickServ: register the nick's account (the first test to use the name) or log in
        start = len(c.messages)
        account = name or c.nick
        c.say("NickServ", f"REGISTER {secret_of(account)} {account}@example.org")
        m = await c.wait_msg(lambda m: m.sender == "NickServ" and (
            "is now registered" in m.text or "already registered" in m.text), 20, start)
        if "already" in m.text or (name is not None and name != c.nick):
            await identify(c, account, secret_of(account))

    def bot(self, db: Path, channel: str, extra: list[str] | None = None,
            seed: bool = True) -> BotProcess:
        """``referee irc`` with the moderator dealer (``seed``: its secret set first, where
        secrets are used)."""
        return BotProcess(self.port, db, [channel], ["dealer"], seed=seed and not self.accounts,
                          extra=extra)
