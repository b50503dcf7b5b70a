"""Message formatting and configuration of the Matrix adapter (no homeserver needed)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.adapters.matrix import ConfigError, load_config
from referee.adapters.matrix_render import incoming_text, mxid_of, name_of, render

SERVER = "example.org"
localparts = st.from_regex(r"[a-z0-9._=\-]{1,12}", fullmatch=True)


@given(localparts, st.sampled_from([SERVER, "other.net", "hs.local:8448"]))
def test_names_round_trip(local: str, host: str) -> None:
    mxid = f"@{local}:{host}"
    name = name_of(mxid, SERVER)
    assert mxid_of(name, SERVER) == mxid
    assert (name == local) == (host == SERVER)


def test_cards_coloured_and_players_mentioned() -> None:
    c = render("aliceさんの番です。ボード: A♥ 10♠ 2♦", SERVER, ["alice", "al"])
    assert c["body"] == "aliceさんの番です。ボード: A♥ 10♠ 2♦"
    f = c["formatted_body"]
    assert '<a href="https://matrix.to/#/@alice:example.org">alice</a>' in f
    assert "#/@al:" not in f  # not inside the longer name
    assert c["m.mentions"] == {"user_ids": ["@alice:example.org"]}
    assert f.count('data-mx-color="#db3b3b"') == 1  # ♥
    assert f.count('data-mx-color="#1c7ed6"') == 1  # ♦
    assert "#000000" not in f and "<b>10♠</b>" in f  # ♠ in the theme's own text colour
    assert c["msgtype"] == "m.notice"


def _luminance(colour: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


@pytest.mark.parametrize("background", ["#ffffff", "#15191e"])  # Element light and dark
def test_suit_colours_read_on_light_and_dark_themes(background: str) -> None:
    from referee.adapters.matrix_render import SUIT_COLOURS

    for suit, colour in SUIT_COLOURS.items():
        hi, lo = sorted([_luminance(colour), _luminance(background)], reverse=True)
        assert (hi + 0.05) / (lo + 0.05) >= 3.0, (suit, colour, background)  # WCAG, bold text
    assert "♠" not in SUIT_COLOURS  # spades keep the theme's text colour


@given(st.text(max_size=200))
def test_formatted_body_is_the_body_escaped(text: str) -> None:
    c = render(text, SERVER, ["bob"])
    plain = html.unescape(re.sub(r"<[^>]+>", "", c["formatted_body"].replace("<br>", "\n")))
    assert plain == text.replace("@bob", "bob") or plain == text


def test_incoming_mentions_become_names() -> None:
    assert incoming_text("!bank @alice:example.org", None, SERVER) == "!bank @alice"
    assert incoming_text("!bank @carol:other.net", None, SERVER) == "!bank @carol:other.net"
    pill = '!penalties <a href="https://matrix.to/#/@bob:example.org">Bob B</a>'
    assert incoming_text("!penalties Bob B", pill, SERVER) == "!penalties @bob"


def test_config_file_and_flags(tmp_path: Path) -> None:
    p = tmp_path / "bot.toml"
    p.write_text('[matrix]\nhomeserver = "http://127.0.0.1:8008/"\nuser_id = "@ref:hs"\n'
                 'database = "x.db"\npassword = "pw"\nmoderators = ["@m:hs"]\n')
    c = load_config(p, {"database": "y.db", "moderators": []})
    assert c.homeserver == "http://127.0.0.1:8008" and c.database == Path("y.db")
    assert c.moderators == ["@m:hs"] and c.server_name == "hs"
    assert c.crypto_dir == Path("y-crypto")
    with pytest.raises(ConfigError, match="access_token"):
        load_config(None, {"homeserver": "h", "user_id": "@a:b", "database": "d"})
    with pytest.raises(ConfigError, match="user_id"):
        load_config(None, {"homeserver": "h", "user_id": "bot", "database": "d",
                           "password": "x"})
    with pytest.raises(ConfigError, match="colour"):
        load_config(p, {"colour": "red"})
    base = {"homeserver": "h", "user_id": "@a:b", "database": "d", "password": "x"}
    assert load_config(None, base).key_wait == 20.0
    assert load_config(None, {**base, "key_wait": 4}).key_wait == 4.0
    for bad in ("soon", -1, True):
        with pytest.raises(ConfigError, match="key_wait"):
            load_config(None, {**base, "key_wait": bad})


def test_cli_refuses_an_incomplete_configuration(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "REFEREE_MATRIX_PASSWORD"}
    out = subprocess.run(
        [sys.executable, "-m", "referee.cli", "matrix", "--homeserver", "http://127.0.0.1:9",
         "--user-id", "@bot:hs", "--db", str(tmp_path / "x.db")],
        capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 2
    from referee.lang.catalog import text

    assert out.stderr.strip().splitlines() == ["referee: " + text("config.needs_login")]


def test_reply_fallback_is_not_part_of_the_message() -> None:
    from referee.adapters.matrix_event import strip_reply_fallback as _strip_reply_fallback

    assert _strip_reply_fallback("> <@a:hs> コール\n> 2行目\n\nフォールド") == "フォールド"
    assert _strip_reply_fallback("> 引用だけ") == "> 引用だけ"
    assert _strip_reply_fallback("コール") == "コール"


def test_table_labels_tell_every_table_apart() -> None:
    from referee.adapters.matrix_delivery import table_labels

    names: dict[str, str | None] = {
        "!abcdEF12:hs": "ポーカー", "!abcdXY34:hs": "ポーカー",  # same name, same first 4
        "!qrst0000:hs": None, "!uvwx1111:hs": None, "!solo9999:hs": "オマハ卓"}
    labels = table_labels(names)
    assert labels["!solo9999:hs"] == ("オマハ卓", "")  # a unique name alone
    assert labels["!abcdEF12:hs"] == ("ポーカー", "abcdE")
    assert labels["!abcdXY34:hs"] == ("ポーカー", "abcdX")
    assert labels["!qrst0000:hs"] == ("", "qrst") and labels["!uvwx1111:hs"] == ("", "uvwx")
    assert len(set(labels.values())) == len(names)


def test_addressing_the_bot_is_not_part_of_the_action() -> None:
    from referee.adapters.matrix_render import incoming_text, without_addressee

    names = ("referee",)
    assert without_addressee("referee: コール", names) == "コール"
    assert without_addressee("referee：コール", names) == "コール"
    assert without_addressee("@referee チェック", names) == "チェック"
    pill = incoming_text("Referee: コール",
                         '<a href="https://matrix.to/#/@referee:hs">Referee</a>: コール', "hs")
    assert without_addressee(pill, names) == "コール"
    assert without_addressee(incoming_text("@referee:hs チェック", None, "hs"), names) == "チェック"
    assert without_addressee("referee", names) == "referee"  # the name alone stays a message
    assert without_addressee("refereeさん強い", names) == "refereeさん強い"


def test_message_content_is_checked_at_the_edge() -> None:
    from referee.adapters.matrix_event import message_content

    ok = message_content({"msgtype": "m.text", "body": "コール"})
    assert ok is not None and not ok.is_edit and not ok.is_reply
    for bad in (["x"], "x", {"msgtype": "m.text", "body": "hi", "m.relates_to": ["x"]},
                {"msgtype": "m.text", "body": 5}, {"msgtype": "m.text"},
                {"msgtype": "m.image", "body": "x"}, {"msgtype": "m.text", "body": "x" * 30000},
                {"msgtype": "m.text", "body": "x", "m.relates_to": {"m.in_reply_to": "y"}}):
        assert message_content(bad) is None, bad
    reply = message_content({"msgtype": "m.text", "body": "> <@a:hs> q\n\nコール",
                             "m.relates_to": {"m.in_reply_to": {"event_id": "$e"}}})
    assert reply is not None and reply.is_reply
    emote = message_content({"msgtype": "m.emote", "body": "6♦ J♦ 持ってる"})
    assert emote is not None


def test_a_quoted_line_pings_nobody_it_names() -> None:
    from referee.adapters.matrix_render import render

    content = render("aliceさん: 「bobさん強そうだしフォールドかなあ」は読めませんでした", "hs",
                     {"alice", "bob"})
    assert content["m.mentions"] == {"user_ids": ["@alice:hs"]}
