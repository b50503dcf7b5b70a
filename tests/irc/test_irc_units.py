"""The IRC adapter's pure parts: line splitting, pacing, nick folding, config, identification."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.adapters.irc import (
    ConfigError,
    _next_nick,
    casefold,
    is_moderator_command,
    load_config,
    strip_formatting,
)
from referee.adapters.irc_delivery import text_budget
from referee.adapters.irc_identity import Whois
from referee.adapters.outbox import Pacer, byte_len, split_text
from referee.cards import Card, pretty

CARDS = [pretty(Card(i)) for i in range(52)]
_CARD = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")

words = st.one_of(
    st.sampled_from(CARDS),
    st.from_regex(r"[A-Za-z0-9,.:@!_-]{1,12}", fullmatch=True),
    st.sampled_from(["さん", "の番です", "（コール 100 / メイク 200〜350）", "、", "。", "手札",
                     "「ポット」", "ハンド#12", "チップ", "フォールド"]),
)
texts = st.lists(st.tuples(words, st.sampled_from(["", " ", "  ", "\n"])), max_size=120).map(
    lambda xs: "".join(w + s for w, s in xs))


def _squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


@settings(max_examples=examples(150), deadline=None)
@given(texts, st.integers(min_value=16, max_value=200), st.sampled_from(["utf-8", "iso-2022-jp"]))
def test_split_fits_keeps_everything_and_never_breaks_a_card(text: str, budget: int,
                                                              enc: str) -> None:
    pieces = split_text(text, budget, enc)
    for p in pieces:
        assert byte_len(p, enc) <= budget
        assert p == p.strip() and p
        assert "\n" not in p
    # nothing lost, nothing added, order kept (whitespace at the breaks is the only change)
    assert _squash("".join(pieces)) == _squash(text)
    # every card of the text is whole in one piece
    assert [m.group(0) for p in pieces for m in _CARD.finditer(p)] == \
        [m.group(0) for m in _CARD.finditer(text)]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.from_regex(r"[A-Za-z0-9,]{1,20}", fullmatch=True), min_size=1, max_size=60),
       st.integers(min_value=24, max_value=120))
def test_split_never_breaks_a_word_that_fits(ws: list[str], budget: int) -> None:
    text = " ".join(ws)
    pieces = split_text(text, budget)
    assert [w for p in pieces for w in p.split(" ")] == ws


def test_split_examples() -> None:
    assert split_text("a\nb\r\n\nc", 100) == ["a", "b", "c"]
    # a message that fits is unchanged
    msg = "ハンド#1 あなたの手札: A♠ K♥ 10♦ 2♣"
    assert split_text(msg, 400) == [msg]
    # kinsoku: no line starts with 、 or ）
    out = split_text("あ" * 10 + "、" + "い" * 10 + "）" + "う" * 10, 24)
    assert all(not p.startswith(("、", "）")) for p in out)
    # a single token longer than a line is cut by characters, never inside one
    out = split_text("x" * 50, 16)
    assert "".join(out) == "x" * 50 and all(len(p) <= 16 for p in out)
    with pytest.raises(ValueError):
        split_text("a", 4)


def test_pacer_burst_then_interval() -> None:
    p = Pacer(interval=2.0, burst=3)
    t = 100.0
    for _ in range(3):
        assert p.delay(t) == 0
        p.sent(t)
    assert p.delay(t) == pytest.approx(2.0)
    assert p.delay(t + 1.0) == pytest.approx(1.0)
    assert p.delay(t + 2.0) == 0
    p.sent(t + 2.0)
    assert p.delay(t + 2.0) == pytest.approx(2.0)
    # a long pause refills at most the burst
    assert all(p.delay(t + 100) == 0 or i >= 3 for i in range(1))


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=5), max_size=60),
       st.floats(min_value=0.1, max_value=3), st.integers(min_value=1, max_value=8))
def test_pacer_rate_bound(gaps: list[float], interval: float, burst: int) -> None:
    """Sending whenever allowed: never more than burst + elapsed/interval lines."""
    p = Pacer(interval=interval, burst=burst)
    now, sent, t0 = 0.0, 0, 0.0
    for g in gaps:
        now += g
        now += p.delay(now)
        p.sent(now)
        sent += 1
        assert sent <= burst + (now - t0) / interval + 1e-6


def test_text_budget_keeps_the_relayed_line_within_512() -> None:
    b = text_budget("referee", "~referee@127.0.0.1", "#omaha")
    line = f":referee!~referee@127.0.0.1 PRIVMSG #omaha :{'x' * b}\r\n"
    assert len(line.encode()) == 512
    assert text_budget("referee", None, "#omaha") < b  # unknown host: assume a long one


def test_casefold_and_formatting() -> None:
    assert casefold("Alice[]\\~", "rfc1459") == "alice{}|^"
    assert casefold("Alice[]", "strict-rfc1459") == "alice{}"
    assert casefold("Alice[]", "ascii") == "alice[]"
    assert strip_formatting("\x02コール\x02 \x0304,01赤\x03 \x1dx\x0f") == "コール 赤 x"


def test_moderator_commands_recognised() -> None:
    assert is_moderator_command("!deal")
    assert is_moderator_command("！配る")
    assert is_moderator_command("!grant @bob 100")
    assert is_moderator_command("!bank @bob")  # somebody else's balance
    assert not is_moderator_command("!bank")
    assert not is_moderator_command("!sit")
    assert not is_moderator_command("コール")


def test_whois_identification() -> None:
    f = str.lower
    assert Whois("Dealer", account="dealer").identified_as("dealer", f)
    assert not Whois("dealer", account="mallory").identified_as("dealer", f)
    assert Whois("dealer", registered=True).identified_as("dealer", f)
    assert not Whois("dealer").identified_as("dealer", f)
    assert not Whois("dealer2", registered=True).identified_as("dealer", f)


def test_next_nick() -> None:
    assert _next_nick("referee", "referee") == "referee_"
    assert _next_nick("referee_", "referee") == "referee__"
    assert _next_nick("referee__", "referee") == "referee1"
    assert _next_nick("referee1", "referee") == "referee2"


def test_config(tmp_path: Path) -> None:
    f = tmp_path / "irc.toml"
    f.write_text('[irc]\nserver = "irc.example.org"\ntls = true\nchannels = ["#poker"]\n'
                 'database = "x.db"\nmoderators = ["dealer"]\n', encoding="utf-8")
    cfg = load_config(f, {"nick": "bot"})
    assert cfg.effective_port == 6697 and cfg.tls and cfg.nick == "bot"
    assert load_config(f, {"tls": False}).effective_port == 6667
    with pytest.raises(ConfigError):
        load_config(f, {"channels": ["poker"]})
    with pytest.raises(ConfigError):
        load_config(f, {"encoding": "nope"})
    with pytest.raises(ConfigError):
        load_config(None, {"server": "x"})
    assert load_config(f, {}).identity == "auto"
    assert load_config(f, {"identity": "secrets"}).identity == "secrets"
    with pytest.raises(ConfigError, match="identity"):
        load_config(f, {"identity": "nicks"})
    with pytest.raises(ConfigError, match="sasl_password"):
        load_config(f, {"sasl_username": "bot"})
