"""The bot reads what people see: a Matrix message whose ``formatted_body`` (what Element shows)
says something else than its ``body`` is judged on both, so hand talk shown in the HTML while
the body says 「よろしく」 is flagged like any leak; markdown, pills and replies are no
difference. Pure parts plus the real service."""

from __future__ import annotations

from deal_helpers import Driver
from event_helpers import of

from referee.adapters.matrix_render import incoming_text, visible_text


def test_what_is_shown_is_read_too() -> None:
    text = incoming_text("よろしく", "エースのペア持ってるわ", "hs")
    assert "エースのペア持ってるわ" in text and "よろしく" in text
    assert incoming_text("コール", "<p>コール</p>", "hs") == "コール"
    assert incoming_text("**コール**", "<strong>コール</strong>", "hs") == "**コール**"
    pill = '<a href="https://matrix.to/#/@alice:hs">alice</a>: どうぞ'
    assert incoming_text("alice: どうぞ", pill, "hs") == "@alice: どうぞ"
    quoted = "<mx-reply><blockquote>AAもってる</blockquote></mx-reply>コール"
    assert incoming_text("コール", quoted, "hs") == "コール"  # a quote is someone else's words
    assert visible_text("a<br>b&amp;c") == "a\nb&c"


def test_a_leak_shown_only_in_the_html_is_flagged() -> None:
    d = Driver("omaha", 5, players=3)
    d.say("dealer", "!deal")
    before = len(of(d.events, "flag")) + len(of(d.events, "penalty"))
    d.say("alice", incoming_text("よろしく", "エースのペア持ってるわ", "hs"))
    after = of(d.events, "flag") + of(d.events, "penalty")
    assert len(after) > before
    assert any(e.get("player") == "alice" and e.get("kind") == "information_leak"
               for e in after)
    # the body alone, as the bot read it before: nothing
    d2 = Driver("omaha", 5, players=3)
    d2.say("dealer", "!deal")
    d2.say("alice", "よろしく")
    assert not [e for e in of(d2.events, "flag") + of(d2.events, "penalty")
                if e.get("player") == "alice"]
