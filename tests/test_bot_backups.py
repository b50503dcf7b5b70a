"""The bots' back-up settings and the Matrix bot's back-up on a closed table and on its interval
(no homeserver needed: the bot is built but never connects; real SQLite files)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from referee.adapters.irc import load_config as irc_config
from referee.adapters.matrix import ConfigError, MatrixBot
from referee.adapters.matrix import load_config as matrix_config
from referee.store.integrity import check


def test_backup_settings(tmp_path: Path) -> None:
    c = matrix_config(None, {"homeserver": "h", "user_id": "@a:b", "database": "d.db",
                             "password": "x", "backup_dir": "bk", "backup_every": 60.0,
                             "backup_keep": 3})
    assert (c.backup_dir, c.backup_every, c.backup_keep) == (Path("bk"), 60.0, 3)
    i = irc_config(None, {"server": "s", "channels": ["#c"], "database": "d.db",
                          "backup_every": 0.0, "backup_keep": 5})
    assert i.backup_dir is None and i.backup_every == 0 and i.backup_keep == 5
    with pytest.raises(ConfigError):
        irc_config(None, {"server": "s", "channels": ["#c"], "database": "d.db",
                          "backup_keep": 0})


def test_matrix_bot_backs_up_when_a_table_closes(tmp_path: Path) -> None:
    config = matrix_config(None, {"homeserver": "http://127.0.0.1:1", "user_id": "@ref:hs",
                                  "database": str(tmp_path / "m.db"), "password": "x",
                                  "moderators": ["@dealer:hs"], "backup_every": 0.0,
                                  "backup_dir": str(tmp_path / "bk")})
    bot = MatrixBot(config)
    try:
        dealer = next(iter(bot.referee.moderators))
        for n, text in enumerate(("!open omaha", "!close")):
            bot.referee.process({"kind": "message", "id": f"m{n}", "room": "!r:hs",
                                 "sender": dealer, "text": text, "time": time.time()})
            asyncio.run(bot._backup_if_due())
        copies = bot.backups.copies()
        assert len(copies) == 1 and check(copies[0]).ok  # on the close, not on the open
        bot.backups.every = 0.01
        time.sleep(0.02)
        asyncio.run(bot._backup_if_due())  # and on the interval
        assert len(bot.backups.copies()) == 2
    finally:
        bot.state.close()
        bot.store.close()
