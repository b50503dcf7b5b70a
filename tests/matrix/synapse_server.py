"""A throw-away Synapse on 127.0.0.1, for the Matrix tests, the benchmark and local trials
(test-only code: it is not part of the referee package).

Synapse pins many dependencies of its own, so it lives in a separate virtualenv (``.venv-synapse``
at the repository root, created on first use) and never shares one with the referee. The
configuration keeps Synapse's **default rate limits** (except login/registration, which are keyed on
the client address and would throttle a test that starts many clients from 127.0.0.1): a test
exempts the users it wants unthrottled through the admin API (:meth:`Synapse.exempt`), so one
that does not exempt a user exercises the real default limits.

Command line (``scripts/synapse.sh`` wraps it)::

    python tests/matrix/synapse_server.py install      # create .venv-synapse
    python tests/matrix/synapse_server.py run [--port N] [--dir D] [--user NAME:PASSWORD...]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("REFEREE_SYNAPSE_VENV", str(ROOT / ".venv-synapse")))
# Pinned so every machine tests against the same homeserver; bump deliberately.
SYNAPSE_REQUIREMENT = os.environ.get("REFEREE_SYNAPSE_REQUIREMENT", "matrix-synapse==1.163.2")
SERVER_NAME = "localhost"


class SynapseError(RuntimeError):
    pass


def venv_python() -> Path:
    return VENV / "bin" / "python"


def installed() -> bool:
    """Whether the pinned Synapse is in its venv (``install`` puts it there)."""
    stamp = VENV / ".installed"
    return stamp.exists() and stamp.read_text().strip() == SYNAPSE_REQUIREMENT


def ensure_installed(quiet: bool = True) -> float:
    """Install Synapse into its own venv unless already there; returns the seconds it took."""
    stamp = VENV / ".installed"
    if stamp.exists() and stamp.read_text().strip() == SYNAPSE_REQUIREMENT:
        return 0.0
    VENV.parent.mkdir(parents=True, exist_ok=True)
    lock_path = VENV.parent / ".venv-synapse.lock"
    started = time.monotonic()
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs must not install into one venv at once
        if stamp.exists() and stamp.read_text().strip() == SYNAPSE_REQUIREMENT:
            return 0.0
        if not venv_python().exists():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        q = ["-q"] if quiet else []
        subprocess.run(
            [str(venv_python()), "-m", "pip", "install", *q, "--disable-pip-version-check",
             SYNAPSE_REQUIREMENT],
            check=True,
        )
        stamp.write_text(SYNAPSE_REQUIREMENT + "\n")
    return time.monotonic() - started


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass(frozen=True)
class User:
    user_id: str
    localpart: str
    password: str
    access_token: str
    device_id: str


_LOG_CONFIG = """\
version: 1
formatters:
  precise:
    format: '%(asctime)s - %(name)s - %(lineno)d - %(levelname)s - %(message)s'
handlers:
  file:
    class: logging.FileHandler
    formatter: precise
    filename: {log}
root:
  level: WARNING
  handlers: [file]
disable_existing_loggers: false
"""


class Synapse:
    """One homeserver process. ``start``/``stop``/``restart`` keep the same port and database."""

    def __init__(self, directory: Path | None = None, port: int | None = None) -> None:
        self._own_dir = directory is None
        if directory is None:
            # tmpfs when there is one: Synapse's SQLite commits every event, disks make it slow.
            shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
            directory = Path(tempfile.mkdtemp(prefix="synapse-", dir=shm))
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server_name = SERVER_NAME
        self.shared_secret = secrets.token_hex(16)
        self.proc: subprocess.Popen[bytes] | None = None
        self._admin: User | None = None
        self.config_path = self.dir / "homeserver.yaml"
        self._write_config()

    # --- configuration ------------------------------------------------------------------------

    def _write_config(self) -> None:
        d = self.dir
        (d / "log.yaml").write_text(_LOG_CONFIG.format(log=d / "homeserver.log"))
        config: dict[str, Any] = {
            "server_name": self.server_name,
            "pid_file": str(d / "homeserver.pid"),
            "listeners": [{
                "port": self.port, "bind_addresses": ["127.0.0.1"], "type": "http",
                "tls": False, "x_forwarded": False,
                "resources": [{"names": ["client"], "compress": False}],
            }],
            "database": {"name": "sqlite3", "args": {"database": str(d / "homeserver.db")}},
            "log_config": str(d / "log.yaml"),
            "media_store_path": str(d / "media"),
            "signing_key_path": str(d / "signing.key"),
            "registration_shared_secret": self.shared_secret,
            "enable_registration": False,
            "report_stats": False,
            "trusted_key_servers": [],
            "suppress_key_server_warning": True,
            "presence": {"enabled": False},
            "enable_metrics": False,
            "url_preview_enabled": False,
            "macaroon_secret_key": secrets.token_hex(16),
            "form_secret": secrets.token_hex(16),
            # Keyed on the client address (every test client is 127.0.0.1), before any user is
            # known, so the admin exemption cannot lift them. Everything else keeps the defaults.
            "rc_login": {
                "address": {"per_second": 1000, "burst_count": 1000},
                "account": {"per_second": 1000, "burst_count": 1000},
                "failed_attempts": {"per_second": 1000, "burst_count": 1000},
            },
            "rc_registration": {"per_second": 1000, "burst_count": 1000},
        }
        # JSON is valid YAML: no YAML writer needed on our side.
        self.config_path.write_text(json.dumps(config, indent=1))

    # --- process ------------------------------------------------------------------------------

    def start(self, timeout: float = 90.0) -> float:
        """Start and wait until /health answers; returns the seconds it took."""
        if self.proc is not None and self.proc.poll() is None:
            return 0.0
        ensure_installed()
        started = time.monotonic()
        py = str(venv_python())
        if not (self.dir / "signing.key").exists():
            subprocess.run(
                [py, "-m", "synapse.app.homeserver", "-c", str(self.config_path),
                 "--generate-keys"],
                check=True, cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        out = open(self.dir / "stdout.log", "ab")  # the child keeps its own copy
        self.proc = subprocess.Popen(
            [py, "-m", "synapse.app.homeserver", "-c", str(self.config_path)],
            cwd=self.dir, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
        out.close()
        deadline = started + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SynapseError(f"synapse exited with {self.proc.returncode}: {self.tail()}")
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as r:
                    if r.status == 200:
                        return time.monotonic() - started
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.1)
        self.stop()
        raise SynapseError(f"synapse did not answer /health within {timeout}s: {self.tail()}")

    def stop(self, timeout: float = 20.0) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)

    def restart(self) -> float:
        self.stop()
        return self.start()

    def close(self) -> None:
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def tail(self, lines: int = 30) -> str:
        text = ""
        for name in ("stdout.log", "homeserver.log"):
            p = self.dir / name
            if p.exists():
                text += "\n".join(p.read_text(errors="replace").splitlines()[-lines:]) + "\n"
        return text

    def __enter__(self) -> Synapse:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- HTTP ---------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: dict[str, Any] | None = None,
                token: str | None = None) -> dict[str, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                out: dict[str, Any] = json.loads(r.read() or b"{}")
                return out
        except urllib.error.HTTPError as e:
            raise SynapseError(f"{method} {path}: {e.code} {e.read()[:300]!r}") from e

    def register(self, localpart: str, password: str | None = None, admin: bool = False,
                 exempt: bool = True) -> User:
        """Create a user with the shared secret; ``exempt`` lifts every rate limit for them."""
        password = password or secrets.token_hex(8)
        nonce = self.request("GET", "/_synapse/admin/v1/register")["nonce"]
        mac = hmac.new(self.shared_secret.encode(), digestmod=hashlib.sha1)
        for part in (nonce.encode(), localpart.encode(), password.encode()):
            mac.update(part)
            mac.update(b"\x00")
        mac.update(b"admin" if admin else b"notadmin")
        r = self.request("POST", "/_synapse/admin/v1/register", {
            "nonce": nonce, "username": localpart, "password": password, "admin": admin,
            "mac": mac.hexdigest(),
        })
        user = User(r["user_id"], localpart, password, r["access_token"], r["device_id"])
        if exempt:
            self.exempt(user.user_id)
        return user

    @property
    def admin(self) -> User:
        if self._admin is None:
            self._admin = self.register("admin-" + secrets.token_hex(3), admin=True, exempt=False)
        return self._admin

    def exempt(self, user_id: str) -> None:
        """No rate limit at all for this user (Synapse treats 0/0 as 'not limited')."""
        q = urllib.parse.quote(user_id)
        self.request("POST", f"/_synapse/admin/v1/users/{q}/override_ratelimit",
                     {"messages_per_second": 0, "burst_count": 0}, token=self.admin.access_token)

    def login(self, localpart: str, password: str, device_id: str | None = None) -> User:
        body: dict[str, Any] = {
            "type": "m.login.password", "password": password,
            "identifier": {"type": "m.id.user", "user": localpart},
        }
        if device_id:
            body["device_id"] = device_id
        r = self.request("POST", "/_matrix/client/v3/login", body)
        return User(r["user_id"], localpart, password, r["access_token"], r["device_id"])


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="synapse.sh", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("install", help="create .venv-synapse with Synapse")
    r = sub.add_parser("run", help="run a homeserver in the foreground until Ctrl-C")
    r.add_argument("--port", type=int, default=None)
    r.add_argument("--dir", default=None, help="state directory (kept); default: a temp dir")
    r.add_argument("--user", action="append", default=[], help="NAME:PASSWORD to register")
    args = p.parse_args(argv)
    if args.cmd == "install":
        took = ensure_installed(quiet=False)
        if took:
            print(f"synapse installed in {VENV} ({took:.1f}s)")
        return
    server = Synapse(Path(args.dir) if args.dir else None, args.port)
    try:
        took = server.start()
        print(f"synapse at {server.url} (server name {server.server_name}), up in {took:.1f}s")
        print(f"registration_shared_secret: {server.shared_secret}  state: {server.dir}")
        for spec in args.user:
            name, _, password = spec.partition(":")
            u = server.register(name, password or None)
            print(f"registered {u.user_id} password={u.password} token={u.access_token}")
        sys.stdout.flush()
        while server.proc is not None and server.proc.poll() is None:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
