"""The IRC bot's settings (``referee irc --config``): one dataclass, read from TOML and flags,
checked once so the bot's modules share one typed view of them and a bad file fails with one
line."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.adapters.clock import TICK_EVERY
from referee.adapters.config import ConfigError, read_settings
from referee.adapters.outbox import encoding_ok
from referee.lang.catalog import text


@dataclass
class IrcConfig:
    server: str
    channels: list[str]
    database: Path
    port: int = 0  # 0: 6697 with TLS, else 6667
    tls: bool = False
    tls_verify: bool = True
    tls_ca: Path | None = None
    nick: str = "referee"
    username: str = "referee"
    realname: str = "poker referee bot"
    password: str | None = None  # server password (PASS)
    sasl_username: str | None = None  # the bot's services account (SASL PLAIN at connect)
    sasl_password: str | None = None  # or env REFEREE_IRC_SASL_PASSWORD
    moderators: list[str] = field(default_factory=list)
    require_identified: bool = False  # moderator commands only from nicks logged in to services
    identity: str = "auto"  # accounts | secrets | auto: accounts where the server offers them
    encoding: str = "utf-8"  # e.g. iso-2022-jp on older Japanese networks
    interval: float = 1.0  # flood control: one line per interval after a burst
    burst: int = 5
    max_backoff: float = 60.0  # reconnect backoff cap, seconds
    ping_interval: float = 60.0  # PING the server after this much silence ...
    ping_timeout: float = 60.0  # ... and reconnect if it stays silent this much longer
    tick_every: float = TICK_EVERY  # action clock: seconds between timer ticks of one table
    backup_dir: Path | None = None  # default: backups/ next to the database
    backup_every: float = 3600.0  # seconds between back-ups; 0: only on !close
    backup_keep: int = 24  # back-ups kept

    @property
    def effective_port(self) -> int:
        return self.port or (6697 if self.tls else 6667)


_KEYS: dict[str, type] = {
    "server": str, "channels": list, "database": str, "port": int, "tls": bool,
    "tls_verify": bool, "tls_ca": str, "nick": str, "username": str, "realname": str,
    "password": str, "moderators": list, "require_identified": bool, "encoding": str,
    "interval": float, "burst": int, "max_backoff": float, "ping_interval": float,
    "ping_timeout": float, "tick_every": float, "backup_dir": str, "backup_every": float,
    "backup_keep": int, "sasl_username": str, "sasl_password": str, "identity": str,
}


def load_config(path: Path | None, overrides: dict[str, Any]) -> IrcConfig:
    """TOML file (``[irc]`` table or top level) overridden by flags; ConfigError if unusable."""
    data = read_settings(path, "irc", overrides, _KEYS, ("server", "channels", "database"))
    channels = [str(c) for c in data["channels"]]
    for c in channels:
        if not c or c[0] not in "#&+!" or any(ch in c for ch in " ,\x07"):
            raise ConfigError(text("config.bad_channel", value=c))
    enc = str(data.get("encoding", "utf-8"))
    if not encoding_ok(enc):
        raise ConfigError(text("config.bad_encoding", value=enc))
    try:
        cfg = IrcConfig(
            server=str(data["server"]),
            channels=channels,
            database=Path(str(data["database"])),
            port=int(data.get("port", 0)),
            tls=bool(data.get("tls", False)),
            tls_verify=bool(data.get("tls_verify", True)),
            tls_ca=Path(str(data["tls_ca"])) if data.get("tls_ca") else None,
            nick=str(data.get("nick", "referee")),
            username=str(data.get("username", data.get("nick", "referee"))),
            realname=str(data.get("realname", "poker referee bot")),
            password=data.get("password"),
            sasl_username=data.get("sasl_username") or None,
            sasl_password=(data.get("sasl_password")
                           or os.environ.get("REFEREE_IRC_SASL_PASSWORD") or None),
            moderators=[str(m) for m in data.get("moderators", [])],
            require_identified=bool(data.get("require_identified", False)),
            identity=str(data.get("identity", "auto")),
            encoding=enc,
            interval=float(data.get("interval", 1.0)),
            burst=int(data.get("burst", 5)),
            max_backoff=float(data.get("max_backoff", 60.0)),
            ping_interval=float(data.get("ping_interval", 60.0)),
            ping_timeout=float(data.get("ping_timeout", 60.0)),
            tick_every=float(data.get("tick_every", TICK_EVERY)),
            backup_dir=Path(str(data["backup_dir"])) if data.get("backup_dir") else None,
            backup_every=float(data.get("backup_every", 3600.0)),
            backup_keep=int(data.get("backup_keep", 24)),
        )
    except (TypeError, ValueError) as e:
        raise ConfigError(text("config.bad_value", detail=str(e))) from None
    if not 0 <= cfg.port <= 65535:
        raise ConfigError(text("config.bad_port", value=str(cfg.port)))
    if cfg.interval < 0 or cfg.burst < 1:
        raise ConfigError(text("config.bad_pacing"))
    if cfg.tick_every <= 0:
        raise ConfigError(text("config.bad_tick"))
    if cfg.identity not in ("auto", "accounts", "secrets"):
        raise ConfigError(text("config.bad_identity", value=cfg.identity))
    if cfg.sasl_username and not cfg.sasl_password:
        raise ConfigError(text("config.sasl_password"))
    if cfg.backup_every < 0 or cfg.backup_keep < 1:
        raise ConfigError(text("config.bad_backups"))
    return cfg
