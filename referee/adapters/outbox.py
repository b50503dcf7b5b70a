"""Chat-network helpers any line-oriented adapter can share (IRC now; Matrix if it wants them):

* :func:`split_text` -- cut a bot message into lines that each fit a byte budget in a given
  encoding, breaking at spaces or Japanese punctuation where possible and **never inside a card**
  (``A♠``, ``10♥``, ``As``) **or an ASCII word/number** (``12,000``, ``alice``) unless that one
  token alone is longer than a line.
* :class:`Pacer` -- a token bucket deciding when the next queued line may go out (flood control:
  lines wait, nothing is dropped). Pure: the caller passes the clock in.

No I/O here, so both are property-tested without a server.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

from referee.lang.vocab import text_marks

# One unbreakable unit: a card with a suit symbol, a run of non-space ASCII (words, numbers,
# ASCII cards, nicks), a run of whitespace, or any single other character (kana/kanji may be
# broken between: Japanese has no spaces between words).
_CARD = r"(?:10|[2-9TJQKA])[♠♥♦♣]"
# An ASCII run ends where a card begins ("x2♣" is "x" then "2♣"), so a card stays whole even
# when the run before it must be cut by characters.
_UNIT = re.compile(rf"{_CARD}|(?:(?!{_CARD})[!-~])+|\s+|.", re.S)
# Kinsoku (grammar/text.toml [lines], vocabulary the community may extend): characters that
# never start a line, that never end one, and the preferred places to break after.
_LINES = text_marks()["lines"]
_NO_START = set(_LINES["no_start"])
_NO_END = set(_LINES["no_end"])
_SOFT_BREAK_AFTER = set(_LINES["soft_break_after"])


def byte_len(text: str, encoding: str = "utf-8") -> int:
    """Bytes ``text`` takes on the wire (stateful encodings such as ISO-2022-JP included: each
    line is encoded on its own, with its escape sequences)."""
    return len(text.encode(encoding, errors="replace"))


def _units(text: str) -> list[str]:
    """Tokens glued by the kinsoku rules: a split may fall only between two of these."""
    raw = _UNIT.findall(text)
    out: list[str] = []
    glue_next = False
    for tok in raw:
        if out and not tok.isspace() and (glue_next or tok[0] in _NO_START):
            out[-1] += tok
        else:
            out.append(tok)
        glue_next = not tok.isspace() and tok[-1] in _NO_END
    return out


def _hard_split(token: str, budget: int, encoding: str) -> list[str]:
    """A single token longer than a line: cut by characters (never inside a character)."""
    pieces: list[str] = []
    cur = ""
    for ch in token:
        if cur and byte_len(cur + ch, encoding) > budget:
            pieces.append(cur)
            cur = ch
        else:
            cur += ch
    if cur:
        pieces.append(cur)
    return pieces


def split_text(text: str, budget: int, encoding: str = "utf-8") -> list[str]:
    """``text`` as lines of at most ``budget`` bytes each (in ``encoding``), in order.

    Newlines always end a line (IRC cannot carry them); empty lines are dropped; whitespace at a
    break is dropped. A break goes at the last space or Japanese punctuation of the line when that
    keeps at least half the line, else right before the unit that does not fit.
    """
    if budget < 8:
        raise ValueError("budget too small for any message")
    out: list[str] = []
    for para in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        para = para.strip()
        if para:
            out.extend(_split_line(para, budget, encoding))
    return out


def _split_line(line: str, budget: int, encoding: str) -> list[str]:
    if byte_len(line, encoding) <= budget:
        return [line]
    out: list[str] = []
    cur: list[str] = []  # units of the line being built

    def flush(units: list[str]) -> None:
        s = "".join(units).strip()
        if s:
            out.append(s)

    def fits(units: list[str]) -> bool:
        return byte_len("".join(units).strip(), encoding) <= budget

    for unit in _units(line):
        if fits([*cur, unit]):
            cur.append(unit)
            continue
        if unit.isspace():
            flush(cur)
            cur = []
            continue
        # Break at the last soft point if it keeps at least half the line.
        cut = None
        for i in range(len(cur) - 1, 0, -1):
            u = cur[i - 1]
            if u.isspace() or u[-1] in _SOFT_BREAK_AFTER:
                if byte_len("".join(cur[:i]).strip(), encoding) * 2 >= budget:
                    cut = i
                break
        if cut is not None:
            flush(cur[:cut])
            cur = [u for u in cur[cut:]]
            while cur and cur[0].isspace():
                cur.pop(0)
        else:
            flush(cur)
            cur = []
        if fits([*cur, unit]):
            cur.append(unit)
        elif not cur and byte_len(unit, encoding) > budget:
            pieces = _hard_split(unit, budget, encoding)
            out.extend(pieces[:-1])
            cur = [pieces[-1]]
        else:
            flush(cur)
            cur = [unit] if byte_len(unit, encoding) <= budget else []
            if not cur:
                pieces = _hard_split(unit, budget, encoding)
                out.extend(pieces[:-1])
                cur = [pieces[-1]]
    flush(cur)
    return out


def encoding_ok(name: str) -> bool:
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True


@dataclass
class Pacer:
    """Token bucket: ``burst`` lines may go at once, then one every ``interval`` seconds.

    ``delay(now)`` says how long to wait before the next line; ``sent(now)`` spends a token.
    A line is never refused -- it only waits -- so a long burst of bot messages arrives complete
    and in order, at the pace the network tolerates (RFC 1459 §8.10's 2 s/line, 10 s of slack, is
    the classic server rule; most networks allow about one line a second after a short burst).
    """

    interval: float = 1.0
    burst: int = 5
    _tokens: float = field(default=-1.0, repr=False)
    _at: float | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.interval < 0 or self.burst < 1:
            raise ValueError("interval must be >= 0 and burst >= 1")
        self._tokens = float(self.burst)

    def _refill(self, now: float) -> None:
        if self._at is not None and self.interval > 0:
            self._tokens = min(float(self.burst),
                               self._tokens + (now - self._at) / self.interval)
        elif self.interval == 0:
            self._tokens = float(self.burst)
        self._at = now

    def available(self, now: float) -> float:
        """The tokens there are now (lines that may go at once)."""
        self._refill(now)
        return self._tokens

    def delay(self, now: float) -> float:
        self._refill(now)
        if self._tokens >= 1.0:
            return 0.0
        return (1.0 - self._tokens) * self.interval

    def sent(self, now: float) -> None:
        self._refill(now)
        self._tokens -= 1.0
