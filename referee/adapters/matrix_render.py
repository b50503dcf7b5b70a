"""Matrix message content for the bot's ``say`` events: a plain ``body`` plus an HTML
``formatted_body`` (card suits coloured, players mentioned as pills), and the reverse mapping of
Matrix user ids to the short names the referee uses for players.

Pure functions (no I/O) so the formatting is testable without a homeserver.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from functools import cache
from typing import Any

# A four-colour deck that reads on light and dark themes alike: each colour has a contrast of at
# least 3.9:1 against both Element's light (#ffffff) and dark (#15191e) backgrounds (WCAG asks
# 3:1 for bold text). Spades are not coloured at all: they take the theme's own text colour, so
# they never turn black on black. Tests check the contrast figures.
SUIT_COLOURS = {"♥": "#db3b3b", "♦": "#1c7ed6", "♣": "#2b8a3e"}
_CARD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♠♥♦♣])")
_MXID = re.compile(r"@([a-z0-9._=\-/+]+):([A-Za-z0-9.\-]+(?::[0-9]+)?)")
_PILL = re.compile(r'<a href="https://matrix\.to/#/(@[^"]+)">(.*?)</a>', re.S)


def name_of(mxid: str, server: str) -> str:
    """The referee's name for a Matrix user: the localpart on the bot's own homeserver, else
    the full id without ``@`` (unique, and still typeable as ``@name`` in commands)."""
    if not mxid.startswith("@"):
        return mxid
    local, _, host = mxid[1:].partition(":")
    return local if host == server else mxid[1:]


def mxid_of(name: str, server: str) -> str:
    return "@" + name if ":" in name else f"@{name}:{server}"


_REPLY_HTML = re.compile(r"<mx-reply>.*?</mx-reply>", re.S | re.I)
_BREAK_HTML = re.compile(r"<br\s*/?>|</(?:p|div|li|h[1-6]|blockquote|pre|tr)>", re.I)
_TAG = re.compile(r"<[^>]+>")
# Markdown marks Element turns into formatting (the body keeps them, the HTML does not), and
# spaces: neither makes what people see differ from the body.
_NOT_SEEN = re.compile(r"[\s*_`~>#|\\-]+")


def visible_text(formatted: str) -> str:
    """What a client shows of an HTML ``formatted_body``: the reply quote dropped, tags
    removed, entities decoded, a line per paragraph or line break."""
    out = _BREAK_HTML.sub("\n", _REPLY_HTML.sub("", formatted))
    return html.unescape(_TAG.sub("", out)).strip()


def _seen_differs(body: str, visible: str) -> bool:
    from referee.lang.normalize import nfkc

    return _NOT_SEEN.sub("", nfkc(body)) != _NOT_SEEN.sub("", nfkc(visible))


def incoming_text(body: str, formatted: str | None, server: str) -> str:
    """A received message's text with mentions rewritten to ``@name`` (what the referee's
    commands take): ``@alice:hs`` ids, and pills whose label Element puts in the plain body.

    The referee reads what people read: when the ``formatted_body`` a client shows says
    something else than the plain ``body`` (beyond markdown marks and spacing), the text is
    both, what is shown first -- so hand talk in either is judged, and an action typed in
    one and contradicted in the other is no action."""
    text = body
    shown = visible_text(formatted) if formatted else ""
    if formatted and shown and _seen_differs(body, shown):
        text = f"{shown}\n{body}"
    if formatted:
        for m in _PILL.finditer(formatted):
            label = html.unescape(re.sub(r"<[^>]+>", "", m.group(2))).strip()
            target = "@" + name_of(m.group(1), server)
            if label and label in text and label != target:
                text = text.replace(label, target, 1)
    return _MXID.sub(lambda m: "@" + name_of(m.group(0), server), text)


@cache
def _quote() -> re.Pattern[str]:
    """A quotation of a player's words in the bot's lines (``grammar/text.toml``)."""
    from referee.lang.vocab import marks

    pair = marks("quoted")
    opening, closing = pair[0], pair[1]
    return re.compile(f"{re.escape(opening)}[^{re.escape(closing)}]*{re.escape(closing)}")


def _mention_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    ordered = sorted({n for n in names if n}, key=len, reverse=True)
    if not ordered:
        return None
    alts = "|".join(re.escape(n) for n in ordered)
    # Not inside a longer ASCII word: "al" must not match inside "alice".
    return re.compile(rf"(?<![0-9A-Za-z_.\-])@?({alts})(?![0-9A-Za-z_\-])")


def render(text: str, server: str, mention: Iterable[str] = ()) -> dict[str, Any]:
    """``m.room.message`` content for one say: plain body, HTML body, ``m.mentions``."""
    pattern = _mention_pattern(mention)
    mentioned: list[str] = []
    out: list[str] = []
    pos = 0
    spans: list[tuple[int, int, str]] = []
    for m in _CARD.finditer(text):
        card = f"<b>{html.escape(m.group(0))}</b>"
        colour = SUIT_COLOURS.get(m.group(2))
        if colour is not None:
            card = f'<font color="{colour}" data-mx-color="{colour}">{card}</font>'
        spans.append((m.start(), m.end(), card))
    if pattern is not None:
        # a player's own words quoted back (「…」) ping nobody: only the bot's own naming does
        quoted = [(q.start(), q.end()) for q in _quote().finditer(text)]
        for m in pattern.finditer(text):
            if any(s < m.end() and m.start() < e for s, e, _ in spans) or any(
                    s <= m.start() and m.end() <= e for s, e in quoted):
                continue
            uid = mxid_of(m.group(1), server)
            if uid not in mentioned:
                mentioned.append(uid)
            spans.append((m.start(), m.end(),
                          f'<a href="https://matrix.to/#/{html.escape(uid)}">'
                          f"{html.escape(m.group(1))}</a>"))
    spans.sort()
    for start, end, rep in spans:
        if start < pos:
            continue
        out.append(html.escape(text[pos:start]))
        out.append(rep)
        pos = end
    out.append(html.escape(text[pos:]))
    formatted = "".join(out).replace("\n", "<br>")
    content: dict[str, Any] = {
        "msgtype": "m.notice",  # a bot's messages (clients show them apart; bots ignore them)
        "body": text,
        "format": "org.matrix.custom.html",
        "formatted_body": formatted,
        "m.mentions": {"user_ids": mentioned} if mentioned else {},
    }
    return content


def without_addressee(text: str, names: Iterable[str]) -> str:
    """``text`` without a leading address to the bot (``referee: コール``, ``@referee チェック``,
    its pill, already rewritten to ``@name`` by :func:`incoming_text`): a player who names the
    dealer before their action has still acted."""
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        m = re.match(rf"\s*@?{re.escape(name)}(?:[:\uff1a,\u3001]|\s)\s*", text, re.I)
        if m and text[m.end():].strip():
            return text[m.end():]
    return text
