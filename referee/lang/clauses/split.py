"""Step 2 of the clause reader: a message cut into clauses (punctuation, blanks between scripts,
conjunctions of concession and reason, corrections), or into sentences for the coarser
reading."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import cache, lru_cache

from referee.actions import Parsed
from referee.lang import vocab
from referee.lang.clauses.cards import cards_in
from referee.lang.clauses.vocabulary import (
    AUX,
    BLANK,
    CONJUNCTIVE,
    CONTENT_POS,
    FINAL,
    NOUN,
    PARTICLE,
    SYMBOL,
    VERB,
    text_of,
    texts_of,
    vocabulary,
)
from referee.lang.normalize import fold_nfkc
from referee.lang.words import Word, bounds, words


@cache
def _cuts() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Where a clause ends (punctuation, a blank between Japanese words, laughter), and where a
    sentence ends: the coarser cut, for an action whose cards or amounts run over commas
    (「ハートのエース、キング、クイーンを残します」, 「アンティ千、AA五百」)."""
    jp = vocab.marks("japanese_class")
    long = vocab.marks("long_vowel")
    laugh = f"(?:{text_of('laughter')})"
    apart = rf"\s+{laugh}(?=\s|$)"  # laughter between blanks (コールで w ターンで)
    clause = (rf"{text_of('clause')}|[{text_of('wave')}]\s+(?=[a-zA-Z0-9])"
              rf"|(?<=[{jp}{long}0-9])(?:\s|[{text_of('wave')}])+(?=[{jp}])"
              rf"|(?<=[{jp}{long}]){laugh}(?![a-z])|{apart}")
    # laughter before a blank ends a sentence as a full stop does (コールで w 次は考える)
    # (and so does a wave before a blank: 100アンティで〜 昨日のあれ見た？)
    sentence = (rf"{text_of('sentence')}|(?<=[{jp}{long}]){laugh}(?=\s)|{apart}"
                rf"|[{text_of('wave')}]+\s+")
    return re.compile(clause), re.compile(sentence)


@cache
def _quote_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Words in double corner brackets, always someone's words (コメント『降りろ』); in single
    ones, when what follows says they were said (「見せて」って, 「コール」とか)."""
    said = "|".join(re.escape(w) for w in texts_of("quote_followers"))
    return (re.compile(text_of("quote_double")),
            re.compile(rf"{text_of('quote_single')}(?=\s*(?:{said}))"))


def _quoted(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that quote someone (:func:`_quote_patterns`)."""
    double, single = _quote_patterns()
    return [m.span() for p in (double, single) for m in p.finditer(text)]


@dataclass
class Clause:
    text: str  # NFKC, repaired
    folded: str
    start: int
    question: bool = False
    ends_concessive: bool = False
    correction: bool = False  # holds a word taking back what came before
    last: bool = False  # the message's last clause
    quoted: bool = False  # starts inside a quotation (コメント『降りろ』って来てる)
    musing: bool = False  # an action only wondered about (しよっかな)
    self_polite: bool = False  # the action said with the polite ます of one's own act
    told_concession: bool = False  # a concession after a copula or の (なんだけど, ですが)
    others_folded: bool = False  # the others' folds told (みんな降りた？)
    others_reason: bool = False  # the others' action given as a reason (みんなチェックなので)
    made_hand: str | None = None  # a hand said to be made (ビッグハウスできた)
    after_stop: bool = False  # a sentence ended right before it (全部捨て！いや…)
    hand_named: bool = False  # a hand class named (ツーペアなら…): talk of hands, no act
    pointed: bool = False  # blocking only for a word that may point at someone (ここはコール)
    commits: bool = False  # "with that" (それで): takes the action remarked on before it
    only_way: bool = False  # the one way left after the speaker's reasons (…からオールインしかない)
    declines: frozenset[str] = frozenset()  # the actions a declined clause says no to
    ends_reason: bool = False  # ends with a conjunction of reason (フルハウスだから)
    rather: bool = False  # ends with "rather than" (コールして悩むくらいなら): what is not chosen
    mark: str = ""  # what ended it: punctuation, a blank, or nothing (a cut between words)
    strict: bool = False  # vetoed other than by a remark: a wish, a condition, a question …
    kind: str = "chat"  # action | declined | blocking | chat
    parsed: Parsed | None = None
    words: tuple[Word, ...] = field(default=())

    def said(self) -> list[Word]:
        """The clause's words without marks and blanks: what was said in it."""
        return [w for w in self.words if w.pos not in (SYMBOL, BLANK)]


@cache
def _edges() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A run of Latin letters at the start or at the end of a clause, and the blank between it
    and the Japanese beside it; not in the middle (「また raise した」 is one clause)."""
    jp = vocab.marks("japanese_class")
    latin = rf"[a-zA-Z0-9][a-zA-Z0-9 '.{vocab.cards().symbols}-]*?"
    return (re.compile(rf"^\s*{latin}(\s+)(?=[{jp}])"),
            re.compile(rf"(?<=[{jp}])(\s+){latin}\s*$"))


def _edge_cuts(text: str) -> list[tuple[int, int]]:
    head, tail = _edges()
    out: list[tuple[int, int]] = []
    pos = 0
    for piece in [*_cuts()[0].finditer(text), None]:
        end = piece.start() if piece is not None else len(text)
        segment = text[pos:end]
        for pattern in (head, tail):
            m = pattern.search(segment)
            if m is not None:
                out.append((pos + m.start(1), pos + m.end(1)))
        if piece is not None:
            pos = piece.end()
    return out


def _binds_forward(ws: tuple[Word, ...], at: int, folded: str,
                   words_at: list[tuple[int, int]]) -> bool:
    """A blank after a word that leans on what follows -- a particle that is not sentence-final
    (さっきの おーるいん, そごは おりだべ), a noun, pronoun or adverb that is no action word and
    not stretched (さっき はいぱー): words of one sentence, written apart (kana-only writers
    space their words), not the end of a clause."""
    if folded[:at].endswith(tuple(texts_of("subjects"))):
        return True  # でぃーらー おりだじゃ: the dealer folded
    w = next((x for x in ws if x.start + len(x.surface) == at), None)
    if w is None:
        return False
    if w.pos == PARTICLE:
        return w.pos2 not in (FINAL, CONJUNCTIVE)
    if w.pos not in CONTENT_POS or w.surface.endswith(tuple(text_of("drawn_vowels"))) or \
            folded[at - 1:at].isdigit():
        return False  # (an amount ends its clause: アンティ200 AA100 攻めるで)
    return not any(a < at <= b for a, b in words_at)


@cache
def _rhetorical() -> tuple[str, ...]:
    table = vocab.load("clauses.toml").get("corrections", {})
    return tuple(fold_nfkc(w) for w in vocab.strings(table, "rhetorical_after", "clauses.toml"))


@cache
def _suit_words() -> re.Pattern[str]:
    return re.compile(vocab.cards().suit_words_re)


def _connective(text: str, folded: str, end: int) -> bool:
    """Whether the words from the start of their sentence to ``end`` are one connective of
    conclusion (だから, なので, ですから): "so", opening the decision, not a reason before it.
    (Asked only where a reason conjunction ends, so the sentences are found only then.)"""
    begin = max((m.end() for m in _cuts()[1].finditer(text) if m.end() <= end), default=0)
    return folded[begin:end].strip() in texts_of("connectives")


def split(text: str, fine: bool = True) -> list[Clause]:
    """Clauses of ``text`` (repaired NFKC) at punctuation, conjunctions and corrections; with
    ``fine`` false, sentences (full stops, conjunctions and corrections only)."""
    folded = fold_nfkc(text)
    if len(folded) != len(text):
        return []
    ws = words(text)
    words_at = list(_action_words_at(folded))  # the action words
    cuts = _mark_cuts(text, folded, ws, words_at, fine)  # (end of clause, start of next)
    cuts += _conjunction_cuts(text, folded, ws)
    cuts += _reason_cuts(text, folded, ws)
    cuts += [(m.end(), m.end()) for m in _rather().finditer(folded)]
    cut_at = bounds(ws, len(text))
    corrections = _corrections(folded, words_at, cut_at, cuts)
    for a, b in corrections:
        cuts.append((a, a))
        cuts.append((b, b))
    cuts.sort()
    out = _pieces(text, folded, cuts)
    out = _merged(out, text, folded, ws)
    out = _lone_corrections(out, cut_at)
    _ask_sentences(out, text)
    for q_start, q_end in _quoted(text):
        for c in out:
            if q_start <= c.start < q_end:
                c.question = c.quoted = True  # someone's words: no act of the speaker's
    if out:
        out[-1].last = True
    corrected = {a for a, _ in corrections}
    for c in out:
        _read_ends(c, ws, corrected)
    return out


@lru_cache(maxsize=1024)
def _action_words_at(folded: str) -> tuple[tuple[int, int], ...]:
    """Where the action words of ``folded`` are (the fine and the coarse split of a message
    both ask)."""
    return tuple(m.span() for m in vocabulary().surface.finditer(folded))


def _mark_cuts(text: str, folded: str, ws: tuple[Word, ...], words_at: list[tuple[int, int]],
               fine: bool) -> list[tuple[int, int]]:
    """The cuts at punctuation, blanks and laughter (:func:`_cuts`), and with ``fine`` at a
    word of another script at a clause's edge (x すまん, コールです sorry slow)."""
    cuts: list[tuple[int, int]] = []
    if fine:
        cuts += _edge_cuts(text)
    cards_at: list[tuple[int, int]] | None = None
    # an aside in brackets that the sentence runs on after (エクストラ(2.5倍)が選べなくなる)
    # cuts nothing: what follows it is the same clause
    asides = [a.span() for a in re.finditer(text_of("aside"), text)] if "(" in text else []
    for m in _cuts()[0 if fine else 1].finditer(text):
        if any(a <= m.start() < b for a, b in asides):
            continue
        if fine and m.group().isspace():
            if cards_at is None:  # (えーす はーと: a card said with a blank is one phrase)
                cards_at = [(a, b) for a, b, _ in cards_in(folded)]
            if _binds_forward(ws, m.start(), folded, words_at) or any(
                    a < m.start() < b for a, b in cards_at):
                continue
        cuts.append((m.start(), m.end()))
    return cuts


def _conjunction_cuts(text: str, folded: str, ws: tuple[Word, ...]) -> list[tuple[int, int]]:
    """A conjunction of concession or reason ends a clause (コールしたいけど、/ スリーペアだから);
    one that opens its sentence is a connective (…。だからここはオールイン: "so"), no cut."""
    v = vocabulary()
    cuts: list[tuple[int, int]] = []
    for w in ws:
        if w.pos == PARTICLE and w.pos2 == CONJUNCTIVE and (
                fold_nfkc(w.surface) in v.concessive or w.lemma in texts_of("reason")):
            end = w.start + len(w.surface)
            if not _connective(text, folded, end):
                cuts.append((end, end))
    return cuts


@cache
def _rather() -> re.Pattern[str]:
    """"Rather than" (悩むくらいなら): what comes before it is the alternative not chosen."""
    return re.compile("|".join(map(re.escape, texts_of("rather_than"))))


def _reason_cuts(text: str, folded: str, ws: tuple[Word, ...]) -> list[tuple[int, int]]:
    """... and the の + で of a reason (悔しいので, つながったので): two words to the analyser,
    as is the spoken もん + で of Mino and Enshu (チェックやもんで)."""
    cuts: list[tuple[int, int]] = []
    for k, (a, b) in enumerate(itertools.pairwise(ws)):
        if a.surface + b.surface in texts_of("reason") and (
                (a.pos == PARTICLE and b.pos == AUX) or (a.pos == NOUN and b.pos == PARTICLE)) \
                and _nominalised(ws, k):
            end = b.start + len(b.surface)
            if not _connective(text, folded, end):
                cuts.append((end, end))
    return cuts


def _corrections(folded: str, words_at: list[tuple[int, int]], cut_at: set[int],
                 cuts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans of the correction words that start a clause of their own (コールじゃなくて
    フォールド); whole words only (not the いや of ダイヤ)."""
    v = vocabulary()
    punct = [0] + [e for _, e in sorted(cuts)]
    out: list[tuple[int, int]] = []
    suits_at: list[tuple[int, int]] | None = None
    for m in v.corrections.finditer(folded):
        if suits_at is None:  # (the いや of だいや: a suit word is never a correction)
            suits_at = [x.span() for x in _suit_words().finditer(folded)]
        inside = any(a <= m.start() < b for a, b in [*words_at, *suits_at])  # 交換なし
        begin = max(p for p in punct if p <= m.start())
        before = folded[begin:m.start()]
        # 「別卓と間違えかけた」 narrates: a correction stands at a clause's start or after an
        # action (コールじゃなくて, レイズ…いや)
        told = (not before.strip() or v.surface.search(before) or cards_in(before)
                or before.strip(vocab.marks("separators")) in texts_of("correction_openers"))
        # (レイズもちょっと違う: the action is what 違う is said of, no correction)
        told = told and re.search(text_of("correction_as_predicate"), before.rstrip()) is None
        # (前回ここで捨てるカード間違えて…: a mistake of another time, told)
        told = told and not (m.group().startswith(tuple(texts_of("mistake_words"))) and any(
            w in before for w in texts_of("past_times")))
        # (いきたいじゃないですか; ER打つほどの形じゃないけど: a negation conceded, no correction)
        drawn = folded[m.end():m.end() + 1] in (vocab.marks("long_vowel") + text_of("wave")) \
            or folded.startswith(_rhetorical(), m.end()) \
            or folded.startswith(tuple(v.concessive), m.end())
        if m.start() in cut_at and m.end() in cut_at and not inside and told and not drawn:
            out.append(m.span())
    return out


def _pieces(text: str, folded: str, cuts: list[tuple[int, int]]) -> list[Clause]:
    """The clauses between the cuts (sorted), each with the mark that ended it; a question
    mark after nothing asks the clause before."""
    out: list[Clause] = []
    pos = 0
    stopped = False  # a sentence ended before the next clause
    for end, nxt in cuts:
        if end < pos:
            continue
        piece = text[pos:end]
        mark = text[end:nxt]
        if piece.strip():
            c = Clause(piece, folded[pos:end], pos, after_stop=stopped, mark=mark)
            c.question = any(q in mark for q in text_of("question"))
            out.append(c)
            stopped = False
        elif out and any(q in mark for q in text_of("question")):
            out[-1].question = True
        stopped = stopped or any(ch in text_of("full_stops") for ch in mark)
        pos = nxt
    if text[pos:].strip():
        out.append(Clause(text[pos:], folded[pos:], pos, after_stop=stopped))
    return out


def _merged(out: list[Clause], text: str, folded: str, ws: tuple[Word, ...]) -> list[Clause]:
    """A clause that starts with an auxiliary or a particle goes on the one before
    (エクストラは二回目だけ、でございましたね)."""
    v = vocabulary()
    merged: list[Clause] = []
    for c in out:
        head = next((w for w in ws if c.start <= w.start < c.start + len(c.text)
                     and w.pos not in (SYMBOL, BLANK)), None)
        gap_at = merged[-1].start + len(merged[-1].text) if merged else c.start
        doing = head is not None and head.pos == VERB and head.lemma in texts_of("doing")
        # (the sentence's end is sought in place: 知った笑 なので, laughter after a word ends it)
        if merged and head is not None and (head.pos in (AUX, PARTICLE) or doing) and \
                not _stop_between(text, gap_at, c.start) and \
                fold_nfkc(head.surface) not in v.concessive and not v.corrections.match(
                    folded, head.start):
            prev = merged[-1]
            prev.text = text[prev.start:c.start + len(c.text)]
            prev.folded = folded[prev.start:c.start + len(c.text)]
            prev.question = prev.question or c.question
            continue
        merged.append(c)
    return merged


def _stop_between(text: str, a: int, b: int) -> bool:
    """Whether a sentence ends between offsets ``a`` and ``b``, sought in place (what comes
    before and after the gap decides: 知った笑 なので, laughter after a word ends it)."""
    stop = _cuts()[1].search(text, a, min(len(text), b + 1))
    return stop is not None and stop.start() < b


def _lone_corrections(out: list[Clause], cut_at: set[int]) -> list[Clause]:
    """A clause opening with a correction said alone (ちゃうちゃう700や) is cut after it; one
    that is nothing else is a correction."""
    v = vocabulary()
    split_out: list[Clause] = []
    for c in out:
        body = c.folded.lstrip()
        lead = len(c.folded) - len(body)
        word = next((w for w in sorted(v.lone_corrections, key=len, reverse=True)
                     if body.startswith(w) and c.start + lead + len(w) in cut_at), None)
        if word is not None and len(body) > len(word):  # ちゃうちゃう700や
            cut = lead + len(word)
            first = Clause(c.text[:cut], c.folded[:cut], c.start, correction=True)
            split_out += [first, Clause(c.text[cut:], c.folded[cut:], c.start + cut,
                                       question=c.question)]
            continue
        if word is not None:
            c.correction = True
        split_out.append(c)
    return split_out


def _ask_sentences(out: list[Clause], text: str) -> None:
    """A question, or a quoting, reaches over its whole sentence."""
    # a question mark asks about its whole sentence (「what does メイク mean?」, 「コール、いい？」)
    for i in range(len(out) - 1, 0, -1):
        gap = text[out[i - 1].start + len(out[i - 1].text):out[i].start]
        gap = "".join(ch for ch in gap if ch not in text_of("question"))
        if out[i].question and not _cuts()[1].search(gap):
            out[i - 1].question = True
    # a clause that starts by quoting (…って書き方で合ってますか) makes its sentence before it a
    # quotation (アンティ100、AA50…って書き方で: both clauses quoted)
    for i in range(1, len(out)):
        if fold_nfkc(out[i].text.lstrip(vocab.marks("separators"))).startswith(
                texts_of("quoting")):
            for j in range(i - 1, -1, -1):
                out[j].question = True
                if out[j].after_stop:
                    break


def _read_ends(c: Clause, ws: tuple[Word, ...], corrected: set[int]) -> None:
    """A clause's words, and what its end tells (a concession, a reason) or its start (a
    correction)."""
    v = vocabulary()
    c.words = tuple(w for w in ws if c.start <= w.start < c.start + len(c.text))
    stripped = c.folded.rstrip()
    c.told_concession = stripped.endswith(texts_of("told_concessions"))
    c.rather = stripped.endswith(texts_of("rather_than"))
    c.ends_concessive = stripped.endswith(tuple(v.concessive)) and bool(c.words) \
        and c.words[-1].pos == PARTICLE and c.words[-1].pos2 == CONJUNCTIVE
    said = c.said()
    c.ends_reason = bool(said) and said[-1].pos == PARTICLE and \
        said[-1].pos2 == CONJUNCTIVE and said[-1].lemma in texts_of("reason")
    # (…アレなんで, もったいないんで: the spoken ん + で of a reason, two words to the analyser)
    c.ends_reason = c.ends_reason or (len(said) >= 2 and said[-1].pos == AUX and said[-2].pos
                                      == PARTICLE and said[-2].surface + said[-1].surface in
                                      texts_of("reason"))
    lead = len(c.folded) - len(c.folded.lstrip())
    c.correction = c.correction or c.start + lead in corrected


def _nominalised(ws: tuple[Word, ...], k: int) -> bool:
    """The の (ん) of a reason follows a word in its attributive form (覚えてるんで, 食らいそう
    なんで); after a verb's stem the ん is a negation (見せんでええ: no need to show)."""
    if ws[k].surface + ws[k + 1].surface not in texts_of("reason_after_attributive"):
        return True
    return k > 0 and ws[k - 1].cform.startswith(text_of("attributive_cform"))
