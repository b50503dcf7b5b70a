"""The Matrix bot's settings (``referee matrix --config``): one dataclass, read from TOML and
flags, so the bot's modules share one typed view of them and a bad file fails with one line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.adapters.clock import TICK_EVERY
from referee.adapters.config import ConfigError, read_settings
from referee.lang.catalog import text

# An encrypted message whose room key has not arrived holds its room's later messages back for
# at most this long (the key usually comes in the same or the next sync); then the sender is
# told it could not be read. A withheld key (m.room_key.withheld) ends the wait at once.
KEY_WAIT = 20.0
# A verification of the bot (SAS) that gets no next step for this long is cancelled (m.timeout):
# the spec's ten minutes for a request.
VERIFY_TIMEOUT = 600.0


@dataclass
class MatrixConfig:
    homeserver: str
    user_id: str
    database: Path
    password: str | None = None
    access_token: str | None = None
    device_id: str | None = None
    store_dir: Path | None = None  # crypto store; default: next to the database
    moderators: list[str] = field(default_factory=list)
    backup_dir: Path | None = None  # default: backups/ next to the database
    backup_every: float = 3600.0  # seconds between back-ups; 0: only when a table closes
    backup_keep: int = 24  # back-ups kept
    device_name: str = "referee"
    sync_timeout_ms: int = 30_000
    max_retry_wait: float = 5.0  # cap of the reconnect backoff, seconds
    tick_every: float = TICK_EVERY  # action clock: seconds between timer ticks of one table
    key_wait: float = KEY_WAIT  # seconds an undecryptable message waits for its key
    verify_timeout: float = VERIFY_TIMEOUT  # seconds a verification waits for its next step

    @property
    def server_name(self) -> str:
        return self.user_id.partition(":")[2]

    @property
    def crypto_dir(self) -> Path:
        return self.store_dir or self.database.with_name(self.database.stem + "-crypto")


_KEYS = {
    "homeserver": str, "user_id": str, "password": str, "access_token": str, "device_id": str,
    "backup_dir": str, "backup_every": float, "backup_keep": int,
    "database": str, "store_dir": str, "moderators": list, "device_name": str,
    "sync_timeout_ms": int, "max_retry_wait": float, "tick_every": float, "key_wait": float,
    "verify_timeout": float,
}


def load_config(path: Path | None, overrides: dict[str, Any]) -> MatrixConfig:
    """TOML file (``[matrix]`` table or top level) overridden by flags; ConfigError if unusable."""
    data = read_settings(path, "matrix", overrides, _KEYS, ("homeserver", "user_id", "database"))
    if not data.get("password") and not data.get("access_token"):
        raise ConfigError(text("config.needs_login"))
    user_id = str(data["user_id"])
    if not user_id.startswith("@") or ":" not in user_id:
        raise ConfigError(text("config.bad_user_id", value=user_id))
    return MatrixConfig(
        homeserver=str(data["homeserver"]).rstrip("/"),
        user_id=user_id,
        database=Path(str(data["database"])),
        password=data.get("password"),
        access_token=data.get("access_token"),
        device_id=data.get("device_id"),
        store_dir=Path(str(data["store_dir"])) if data.get("store_dir") else None,
        moderators=[str(m) for m in data.get("moderators", [])],
        backup_dir=Path(str(data["backup_dir"])) if data.get("backup_dir") else None,
        backup_every=float(data.get("backup_every", 3600.0)),
        backup_keep=int(data.get("backup_keep", 24)),
        device_name=str(data.get("device_name", "referee")),
        sync_timeout_ms=int(_number(data, "sync_timeout_ms", 30_000)),
        max_retry_wait=_number(data, "max_retry_wait", 5.0),
        tick_every=_number(data, "tick_every", TICK_EVERY),
        key_wait=_number(data, "key_wait", KEY_WAIT),
        verify_timeout=_number(data, "verify_timeout", VERIFY_TIMEOUT),
    )


def _number(data: dict[str, Any], key: str, default: float) -> float:
    """A non-negative number setting; ConfigError (one line) otherwise."""
    value = data.get(key, default)
    try:
        if isinstance(value, bool):
            raise ValueError
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(text("config.not_number", name=key, value=str(value))) from None
    if not number >= 0:
        raise ConfigError(text("config.negative", name=key, value=str(value)))
    return number

