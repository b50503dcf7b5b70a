"""Tags and addressees at the start of a message, taken off before the action is read.

Players on several tables, in threads and in busy rooms put a reply (「>>佐藤さん りょ、コール」),
a mention (「@omaha ち」), a label (「【オマハ】メイク2000」, 「「卓2」コール」), the bot's name
(「referee: コール」) or the dealer (「ディーラーさん、コール」) before what they say. None of it is
part of the action, and a reader that keeps it reads no action: the player believes they acted
and the clock folds them. A tag that names a game says where the message is meant; when it is
another game than the table's, the message is no action here. The vocabulary is
``grammar/tags.toml``; each game's own names are the ``tags`` of its ``reading.toml``.
"""

from __future__ import annotations

import re
import string
import tomllib
from dataclasses import dataclass
from functools import cache

from referee import games, resources
from referee.lang.clauses import vocabulary as clause_words
from referee.lang.normalize import fold_nfkc, nfkc
from referee.lang.vocab import marks

TAGS = resources.GRAMMAR / "tags.toml"
#: At most this many tags are taken off one message (「>>佐藤さん @omaha 【卓2】コール」).
MAX_TAGS = 4
#: A name (a reply's, a mention's) is at most this long: a longer word is no tag.
MAX_NAME = 64


@dataclass(frozen=True)
class Tagged:
    """A message without its leading tags, and what they named."""

    rest: str  # the message without its tags (as typed, NFKC)
    game: str | None = None  # the game a tag named (its id)
    table: int | None = None  # the table number a tag named
    person: bool = False  # a tag named a person (>>佐藤さん, @bob), not a game, table or the bot
    reply: bool = False  # ... every such tag by the reply marker (>>dan): answering their line

    @property
    def own(self) -> bool:
        """Whether what follows the tags says it is the speaker's own: after a person's name
        a bare action word is as often said to them (「@taro フォールド」) as done; an answer
        opening the message or its last sentence (「@mika …だよ。はい、アンティ200」) or a
        first-person subject says it is the speaker's."""
        if not self.person:
            return True
        v = _vocabulary()
        text = fold_nfkc(self.rest).rstrip(v.trailing)
        stops = marks("sentence_stops")
        last = re.split(f"[{re.escape(stops)}]", text.rstrip(stops + " "))[-1].strip()
        return text.startswith(v.openers) or last.startswith(v.openers) or \
            text.endswith(v.ends) or any(w in text for w in v.subjects)


@dataclass(frozen=True)
class _Vocabulary:
    reply: str
    mention: str
    hashtag: str
    always: tuple[tuple[str, str], ...]
    if_tag: tuple[tuple[str, str], ...]
    after: str
    table: re.Pattern[str]
    bot: frozenset[str]
    openers: tuple[str, ...]
    ends: tuple[str, ...]
    subjects: tuple[str, ...]
    trailing: str
    name_end: str
    colons: str
    game_suffixes: tuple[str, ...]
    time: re.Pattern[str]
    signature: re.Pattern[str]  # a signature ending the text; group 1 the name
    sender: tuple[str, str]
    reply_marks: tuple[str, ...]


def _signature(marks: str) -> re.Pattern[str]:
    """A blank, the marks before a signature, and a name ending the text (／ゆき, — ken)."""
    m = re.escape(marks)
    return re.compile(rf"\s[{m}]+\s*([^\s{m}]+)$")


@cache
def _vocabulary() -> _Vocabulary:
    try:
        d = tomllib.loads(TAGS.read_text(encoding="utf-8"))
        return _Vocabulary(
            reply=str(d["reply"]), mention=str(d["mention"]), hashtag=str(d["hashtag"]),
            always=tuple((str(a), str(b)) for a, b in d["label_always"]),
            if_tag=tuple((str(a), str(b)) for a, b in d["label_if_tag"]),
            after=str(d["after"]), table=re.compile(str(d["table"])),
            bot=frozenset(fold_nfkc(str(w)) for w in d["bot"]),
            openers=tuple(fold_nfkc(str(w)) for w in d["answer_openers"]),
            ends=tuple(fold_nfkc(str(w)) for w in d["declaring_ends"]),
            subjects=tuple(fold_nfkc(str(w)) for w in d["own_subjects"]),
            trailing=marks("trailing"), name_end=str(d["name_end"]), colons=str(d["colons"]),
            game_suffixes=tuple(fold_nfkc(str(w)) for w in d["game_suffixes"]),
            time=re.compile(str(d["time"])), signature=_signature(str(d["signature"])),
            sender=(str(d["sender"][0]), str(d["sender"][1])),
            reply_marks=tuple(fold_nfkc(str(w)).lower() for w in d["reply_marks"]),
        )
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as e:
        raise ValueError(f"tags.toml: {e}") from None


def _game_names() -> dict[str, str]:
    """Each game's names (folded, blanks dropped) → its id."""
    out: dict[str, str] = {}
    for gid, spec in games.games().items():
        out[gid] = gid
        path = spec.folder / "reading.toml"
        if path.is_file():
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            for name in data.get("tags", []):
                out[_key(str(name))] = gid
    return out


_GAMES: dict[str, str] = {}
games.on_change(_GAMES.clear)  # (a game registered or removed: its names again)


def _games() -> dict[str, str]:
    if not _GAMES:
        _GAMES.update(_game_names())
    return _GAMES


def _key(name: str) -> str:
    return "".join(fold_nfkc(name).split())


def _what(name: str) -> tuple[str, str | int] | None:
    """What a tag's text names: ("game", id), ("table", number), ("bot", ""), or None."""
    v = _vocabulary()
    key = _key(name)
    if key in _games():
        return "game", _games()[key]
    m = v.table.fullmatch(fold_nfkc(name).strip())
    if m is not None:
        return "table", int(m.group(1) or m.group(2))
    if key.rstrip(v.colons + v.name_end) in v.bot:
        return "bot", ""
    return None


@cache
def _name() -> re.Pattern[str]:
    stops = re.escape(_vocabulary().name_end)
    return re.compile(rf"[^\s{stops}]{{1,{MAX_NAME}}}(?![^\s{stops}])")


def _word(text: str, start: int) -> int:
    """The end of the name that starts at ``start`` (up to a blank or a comma); ``start``
    when there is none, or it is longer than a name is."""
    m = _name().match(text, start)
    return m.end() if m is not None else start


def _marked(text: str) -> tuple[int, tuple[str, str | int] | None] | None:
    """A reply (>>name), a mention (@name) or a hashtag (#seven) at the start of ``text``."""
    v = _vocabulary()
    for marker in (v.reply, v.mention, v.hashtag):
        if text.startswith(marker):
            start = len(text) - len(text[len(marker):].lstrip()) if marker == v.reply \
                else len(marker)
            end = _word(text, start)
            name = text[start:end].rstrip(v.colons)
            if marker == v.hashtag and name.isdigit() and len(name) <= 3:
                return end, ("table", int(name))  # #3 x: the multi-tabler's table number
            return (end, _what(name)) if end > start else None
    return None


def _label(text: str) -> tuple[int, tuple[str, str | int] | None] | None:
    """A bracketed label at the start of ``text``: 【…】 always, other brackets when they
    hold a tag (a game, a table, the bot, a reply or a mention)."""
    v = _vocabulary()
    for pairs, needs in ((v.always, False), (v.if_tag, True)):
        for open_, close in pairs:
            if not text.startswith(open_) or close not in text[len(open_):len(open_) + 20]:
                continue
            end = text.index(close, len(open_)) + len(close)
            inner = text[len(open_):end - len(close)].strip()
            what = _what(inner)
            marked = _marked(inner) if what is None else None
            if marked is not None:
                what = marked[1] or ("name", "")
            if needs and what is None:
                return None
            if what is None and not _personal(inner):
                what = ("place", "")  # 【卓B】, 【D1】: where, not whom (but 【佐藤さん】)
            return end, what
    return None


def _relayed(text: str, bridged: bool) -> tuple[int, tuple[str, str | int]] | None:
    """What a bridge or a mail reply puts first: a time (「[21:03] 」), the sender after it
    (「田中: 」) or in angle brackets (「<ken> 」), a reply mark (「RE: 」). The sender of a
    relayed line is its speaker: nothing in them addresses anyone."""
    v = _vocabulary()
    m = v.time.match(text)
    if m is not None and (m.end() == len(text) or not text[m.end()].isalnum()):
        return m.end(), ("time", "")
    mark = next((r for r in v.reply_marks if text.lower().startswith(r)), None)
    if mark is not None:
        return len(mark), ("reply", "")
    open_, close = v.sender
    if text.startswith(open_) and close in text[1:MAX_NAME + 2]:
        end = text.index(close, 1)
        if _name().fullmatch(text[1:end]) and _what(text[1:end]) is None:
            return end + 1, ("sender", "")
    if bridged:
        end = _word(text, 0)
        head = text[:end]
        if len(head) > 1 and head[-1] in v.colons and _what(head[:-1]) is None:
            return end, ("sender", "")
    return None


def _personal(name: str) -> bool:
    """Whether a label's text is a person's name with its honorific (佐藤さん, ken君)."""
    return fold_nfkc(name).strip().endswith(tuple(
        fold_nfkc(s) for s in clause_words.texts_of("name_suffixes")))


def _one(text: str, bridged: bool = False) -> tuple[int, tuple[str, str | int] | None] | None:
    """The length of the tag ``text`` starts with and what it names, or None."""
    got = _relayed(text, bridged) or _marked(text) or _label(text)
    if got is not None:
        return got
    # a bare table (卓2 コール), or the bot by name before a colon or a comma (referee: コール)
    v = _vocabulary()
    end = _word(text, 0)
    colon = next((i for i, ch in enumerate(text[:end]) if ch in v.colons), None)
    if colon is not None and colon > 0:
        end = colon + 1  # (セブンで：コール: the colon ends the tag)
    head = text[:end].rstrip(v.colons)
    glued = _table_glued(head)
    if glued is not None:
        return glued
    what = _what(head) if head else None
    if what is None and head and head != text[:end]:
        what = _game_before_colon(head)
        return (end, what) if what is not None else None
    if what is None:
        return None
    said_to = head != text[:end] or bool(text[end:end + 1] and text[end] in v.name_end)
    if what[0] == "table" or (what[0] in ("bot", "game") and said_to):
        return end, what  # (a game named before a colon: オマハ卓: こ)
    return None


def _table_glued(head: str) -> tuple[int, tuple[str, str | int]] | None:
    """A table glued to the Latin short form after it (2卓C, 卓2F: a multi-tabler's quickest
    line): the table's tag, ending where the letters start."""
    letters = len(head) - len(head.rstrip(string.ascii_letters))
    if not letters or letters == len(head):
        return None
    what = _what(head[:len(head) - letters])
    if what is None or what[0] != "table":
        return None
    return len(head) - letters, what


def _game_before_colon(head: str) -> tuple[str, str | int] | None:
    """A game named with 卓 / で before a colon (オマハ卓で: こ): its tag, or None."""
    folded = fold_nfkc(head)
    for suffix in _vocabulary().game_suffixes:
        if folded.endswith(suffix) and len(folded) > len(suffix):
            what = _what(head[:len(head) - len(suffix)])
            if what is not None and what[0] == "game":
                return what
    return None


def strip(text: str) -> Tagged:
    """``text`` (NFKC, no leading blank) without its leading tags, and the game and table
    they named. A text that is only tags keeps them (it says nothing else)."""
    v = _vocabulary()
    rest, game, table, person = text, None, None, False
    replies = True
    bridged = False
    for _ in range(MAX_TAGS):
        got = _one(rest, bridged)
        if got is None:
            break
        end, what = got
        after = rest[end:].lstrip(v.after)
        if not after:
            break
        if what is not None and what[0] == "game":
            game = str(what[1])
        elif what is not None and what[0] == "table":
            table = int(what[1])
        elif what is None or what[0] == "name":
            person = True
            replies = replies and rest.startswith(v.reply)
        bridged = what is not None and what[0] == "time"
        rest = after
    rest, game, table = _trailing(rest, game, table)
    return Tagged(rest, game, table, person, person and replies)


def _trailing(rest: str, game: str | None, table: int | None
              ) -> tuple[str, str | None, int | None]:
    """``rest`` without the tags a multi-tabler puts at the end (コール👍 [AA], ER [seven],
    こ 【AA】, … @ゆき, … >>ken): a label naming a game or a table, or a mention or a reply (the
    action stays the speaker's: the mention says whom it answers). What is left must say
    something."""
    v = _vocabulary()
    signed = False
    for _ in range(MAX_TAGS):
        body = rest.rstrip()
        cut: tuple[int, tuple[str, str | int] | None] | None = None
        for open_, close in (*v.always, *v.if_tag):
            at = body.rfind(open_)
            if body.endswith(close) and at > 0:
                got = _label(body[at:])
                if got is not None and got[0] == len(body) - at and got[1] is not None \
                        and got[1][0] in ("game", "table"):
                    cut = at, got[1]
                    break
        for marker in (v.mention, v.reply):  # (… @ゆき, オールイン >>ken: whom it answers)
            at = body.rfind(marker)
            if cut is None and at > 0 and body[at - 1].isspace() and \
                    _word(body, at + len(marker)) == len(body):
                cut = at, None
        if cut is None:  # (ベット1200 ／ゆき: the speaker's signature)
            m = v.signature.search(body)
            if m is not None and _name().fullmatch(m.group(1)) and _what(m.group(1)) is None \
                    and not m.group(1).isdigit() and not signed and \
                    not clause_words.mentions(fold_nfkc(m.group(1))):
                signed = True  # (one signature: コール / レイズ / フォールド lists options)
                cut = m.start(), None
        if cut is None:  # (べっと せんにひゃく #plo)
            at = body.rfind(v.hashtag)
            got = _marked(body[at:]) if at > 0 and body[at - 1].isspace() else None
            if got is not None and got[0] == len(body) - at and got[1] is not None:
                cut = at, got[1]
        if cut is None or not body[:cut[0]].strip():
            break
        rest = body[:cut[0]].rstrip()
        what = cut[1]
        if what is not None and what[0] == "game" and game is None:
            game = str(what[1])
        elif what is not None and what[0] == "table" and table is None:
            table = int(what[1])
    return rest, game, table


def without_own_name(text: str, speaker: str) -> str | None:
    """``text`` without the speaker's own name before a colon (「たけし: クローズで」, typed by
    たけし, or relayed with the sender first), or None when it does not start so. Typed by anyone
    else, the same line is said to たけし, and stays what it is."""
    v = _vocabulary()
    typed = nfkc(text).lstrip()
    colon = next((i for i, ch in enumerate(typed[:MAX_NAME + 1]) if ch in v.colons), None)
    if not colon:
        return None
    said = fold_nfkc(typed[:colon]).strip()
    own = fold_nfkc(speaker).strip()
    if said not in (own, own.lstrip("@").split(":")[0]):
        return None
    return typed[colon + 1:].lstrip(v.after) or None
