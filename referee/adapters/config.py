"""Bot settings shared by the chat adapters: a TOML file overridden by command-line flags.

Matrix and IRC read their settings the same way (a ``[matrix]`` / ``[irc]`` table or the file's
top level, flags over the file, the password from the environment, unknown keys refused), so a
moderator configures both bots alike and a typo is an error, never a silently ignored setting.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from referee.lang.catalog import file_error, text


class ConfigError(ValueError):
    """Settings the bot cannot start with; the message says which and why (one line)."""


def read_settings(
    path: Path | None,
    section: str,
    overrides: dict[str, Any],
    keys: Iterable[str],
    required: Iterable[str],
) -> dict[str, Any]:
    """The merged raw settings: file ``[section]`` (or top level), then non-empty ``overrides``,
    then ``password`` from ``REFEREE_<SECTION>_PASSWORD`` if still unset."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as e:
            raise ConfigError(file_error(path, e)) from None
        except UnicodeDecodeError:
            raise ConfigError(text("cli.not_utf8", path=str(path))) from None
        except tomllib.TOMLDecodeError as e:
            at = re.search(r"line (\d+), column (\d+)", str(e))
            where = text("config.toml_at", line=at.group(1), column=at.group(2)) if at else ""
            raise ConfigError(text("config.not_toml", path=str(path), at=where)) from None
        data = dict(raw.get(section, raw))
    for k, v in overrides.items():
        if v is not None and v != []:
            data[k] = v
    env = f"REFEREE_{section.upper()}_PASSWORD"
    if "password" not in data and os.environ.get(env):
        data["password"] = os.environ[env]
    unknown = set(data) - set(keys)
    if unknown:
        raise ConfigError(text("config.unknown", names=", ".join(sorted(unknown))))
    for k in required:
        if not data.get(k):
            raise ConfigError(text("config.missing", name=k))
    return data
