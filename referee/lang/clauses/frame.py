"""Step 3 of the clause reader: one clause as a frame -- its action words, cards, amounts and
hand name -- and whether every other word in it carries no content (by part of speech and
lemma), or negates, wishes, asks, supposes, advises, orders or remarks."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from copy import copy
from dataclasses import dataclass, field
from functools import cache

from referee.lang import vocab
from referee.lang.clauses.cards import cards_in
from referee.lang.clauses.split import Clause
from referee.lang.clauses.vocabulary import (
    AUX,
    BLANK,
    CONTENT_POS,
    FINAL,
    NUMERAL,
    PARTICLE,
    SURFACE_NAMES,
    SYMBOL,
    VERB,
    Traits,
    Vocabulary,
    amount_pattern,
    ends_attributive,
    guarded,
    katakana_word,
    names_a_person,
    text_of,
    texts_of,
    traits,
    vocabulary,
)
from referee.lang.normalize import fold_nfkc
from referee.lang.tokens import amount_value
from referee.lang.words import Word


@dataclass
class Frame:
    actions: list[tuple[int, str]] = field(default_factory=list)  # (position, action)
    cards: list[tuple[int, list[str]]] = field(default_factory=list)
    amounts: list[tuple[int, int]] = field(default_factory=list)
    hand: str | None = None
    negated: bool = False
    vetoed: bool = False
    content: bool = False
    declared: bool = False  # a word of doing or politeness (いたします, で参ります, っす)
    why: list[str] = field(default_factory=list)  # the words that made it content or vetoed
    weak: bool = False  # a pronoun or adverb that may point at someone else (ここは)
    pointer: bool = False  # ... a pronoun or adverb (not an action word as the topic)
    polite: bool = False  # an auxiliary, a declaring particle or 宣言 (a hand named needs one)
    except_: bool = False  # 以外: the cards named are the others
    musing: bool = False  # かな: wondering, the only veto
    made: bool = False  # a verb of making a hand (出来る, 来る, 揃う)
    these: bool = False  # これ / この2枚: the cards named in another clause
    this_hand: bool = False  # これは before the hand named (これはセブンフラッシュです)
    amount_ends: dict[int, int] = field(default_factory=dict)
    up_to: bool = False  # an amount followed by まで (a make)
    aa_declined: bool = False  # AA抜き / AAなし with another action: no side bet
    needs_amount: set[str] = field(default_factory=set)  # actions said by 打つ / 上げる
    lemma_only: bool = False  # every action word was an everyday verb found by its lemma
    remark_only: bool = True  # every veto was a remark (A♥K♥だよ: the cards, remarked on)
    remarked: bool = False  # a copula remarking on the action (千二百のコールですね)
    strict: bool = False  # vetoed by something other than a remark (a question, a wish …)


def _polite_wish(ws: tuple[Word, ...], i: int) -> bool:
    """「…したいと思います」 at the end of a clause: the set phrase of a polite declaration, not a
    wish (but 「…したいと思ったけど」 is one: a past thought, conceded)."""
    v = texts_of("polite_wish")
    if ws[i].pos != AUX or ws[i].lemma not in texts_of("wish_like") or i + 2 >= len(ws) or \
            ws[i + 1].lemma != v[0] or ws[i + 2].lemma != v[1]:
        return False
    tail = ws[i + 3:]
    return any(w.lemma == v[2] for w in tail) and all(
        (w.pos == AUX and w.lemma in v[2:]) or w.pos in (SYMBOL, BLANK) for w in tail)


def _clipped_negative(ws: tuple[Word, ...], i: int) -> bool:
    """「今回は降りん」: a verb clipped to ん at the end of what is said is its negative (降りない);
    the analyser reads it as the attributive form of 降りんの, which needs what follows."""
    w = ws[i]
    if w.pos != VERB or w.cform not in texts_of("clipped_negative_cforms") or \
            not w.surface.endswith(text_of("clipped_negative_end")) or \
            w.lemma in texts_of("clipped_negative_not"):
        return False
    nxt = ws[i + 1] if i + 1 < len(ws) else None
    return nxt is None or nxt.pos in (SYMBOL, BLANK) or nxt.pos2 == vocab.pos("final_particle")


@dataclass
class _Reading:
    """One clause being read into its frame: what the reading has taken so far beside the frame
    itself, shared by its phases."""

    clause: Clause
    folded: str  # the clause's folded text, which every phase reads
    f: Frame
    v: Vocabulary
    t: Traits
    spans: list[tuple[int, int]] = field(default_factory=list)  # text no other word may claim
    keyword_spans: list[tuple[int, int]] = field(default_factory=list)  # action words by surface
    lemma_found: set[int] = field(default_factory=set)  # action words by lemma (positions)
    hand_at: int = -1  # where the hand named starts

    def free(self, s: int, e: int) -> bool:
        """Whether ``[s, e)`` overlaps nothing read yet."""
        return not any(a < e and s < b for a, b in self.spans)


# Frames already read, by what a frame is read from (the clause's folded text, place, words,
# whether it asks and ends the message; the game and its hands): the fine and the coarse
# reading of a message, and its reading without blanks, meet the same clauses again (a quarter
# of the frames read over the corpora). Each caller gets its own copy.
_FRAMES: dict[tuple[object, ...], Frame] = {}
_FRAMES_MAX = 4096


def frame(clause: Clause, game: str, hands: Iterable[tuple[str, re.Pattern[str]]]) -> Frame:
    """The action words, cards and amounts of one clause, and whether everything else in it is
    a word that carries no content (see the module docstring)."""
    hands = tuple(hands)
    key = (clause.folded, clause.start, clause.words, clause.question, clause.last, game, hands)
    got = _FRAMES.get(key)
    if got is None:
        got = _frame(clause, game, hands)
        if len(_FRAMES) >= _FRAMES_MAX:
            _FRAMES.clear()
        _FRAMES[key] = got
    return _copied(got)


def clear_frames() -> None:
    """Forget the frames kept (for measurements)."""
    _FRAMES.clear()


def _copied(f: Frame) -> Frame:
    """``f`` with containers of its own (a caller may change them)."""
    out = copy(f)
    out.actions, out.cards = list(f.actions), [(p, list(cs)) for p, cs in f.cards]
    out.amounts, out.why = list(f.amounts), list(f.why)
    out.amount_ends, out.needs_amount = dict(f.amount_ends), set(f.needs_amount)
    return out


def _frame(clause: Clause, game: str, hands: tuple[tuple[str, re.Pattern[str]], ...]) -> Frame:
    r = _Reading(clause, clause.folded, Frame(), vocabulary(), traits(game))
    f = r.f
    # first what the clause names: cards, a hand, action words, amounts, then its edges
    _read_cards(r, hands)
    _read_action_words(r)
    _settle_actions(r)
    _cards_described(r)
    _belief_before(r)
    _action_described(r)
    _read_amounts(r)
    tail_at = _read_edges(r)
    # then every other word, one by one
    if _read_words(r) and not f.cards and not f.amounts:
        f.vetoed = f.strict = True  # エクストラは2回目だけなんやね: what the action is like
        f.why.append(texts_of("topic")[0])
    # and the clause as a whole
    if _asks_someone(r, tail_at):
        f.vetoed = f.strict = True  # (残して、3sと4d捨て: a て that goes on is no request)
    gap = _gap(r.folded, r.spans)
    if any(n in gap for n in r.v.negations):
        f.negated = True  # 見せへん, やんね: a dialect's negation
    if _veto_word(r, gap):
        f.vetoed = f.strict = True
    if clause.question:
        f.vetoed = f.strict = True
    f.actions.sort()
    f.cards.sort()
    _ante_raised(r)
    f.lemma_only = bool(r.lemma_found) and all(p in r.lemma_found for p, _ in f.actions)
    _not_doing(f, re.search(text_of("negated_condition"), r.folded) is not None)
    return f


def _gap(folded: str, spans: list[tuple[int, int]]) -> str:
    """``folded`` with every character read (inside one of ``spans``) made a blank: the words
    not read, in their places."""
    read = [False] * len(folded)
    for a, b in spans:
        for k in range(max(a, 0), min(b, len(folded))):
            read[k] = True
    return "".join(" " if taken else ch for ch, taken in zip(folded, read, strict=True))


def _read_cards(r: _Reading, hands: Iterable[tuple[str, re.Pattern[str]]]) -> None:
    """The cards named, the words joining them, and the first hand named outside them."""
    f, folded = r.f, r.folded
    found = cards_in(folded)
    for s, e, cards in found:
        f.cards.append((s, cards))
        r.spans.append((s, e))
    r.spans += _card_gaps(folded, found)  # (8s跟Jh: the 跟 between two cards is "and")
    for name, pat in hands:
        m = pat.search(folded)
        if m is not None and not any(a <= m.start() < b for a, b in r.spans):
            f.hand, r.hand_at = name, m.start()
            r.spans.append(m.span())
            if folded.startswith(text_of("up_to"), m.end()) or re.search(
                    text_of("draw_before_hand"), folded[:m.start()]):
                f.vetoed = f.strict = True  # フラッシュまであと1枚, あと2枚でフラッシュ: a draw
                f.why.append(text_of("up_to"))
            elif folded[m.end():].lstrip().startswith(text_of("hand_even")):
                f.vetoed = f.strict = True  # ストレートでも十分: "even a straight", no declaration
                f.why.append(text_of("hand_even"))
            elif re.search(text_of("hand_made_of"), folded[:m.start()]):
                r.spans.append((0, m.start()))  # QQ 55 888でミドルハウス: what makes the hand
            elif folded[m.end():].strip() in texts_of("hangul_endings"):
                f.polite = f.declared = True  # 빅하우스요: a Korean ending declares as です does
                r.spans.append((m.end(), len(folded)))
            break


def _said_before(clause: Clause, at: int) -> list[Word]:
    """The words of ``clause`` before offset ``at``, without marks and blanks."""
    return [w for w in clause.words if w.start - clause.start < at and w.pos not in (
        SYMBOL, BLANK)]


def _action_described(r: _Reading) -> None:
    """Words that end in the attributive form right before the last action word describe it
    (半分がアンティになるオールインで行きます): no content, and no action of their own."""
    f = r.f
    if not f.actions or f.cards:
        return
    last = max(p for p, _ in f.actions)
    before = _said_before(r.clause, last)
    if len(before) < 2 or not ends_attributive(before) or names_a_person(before) or any(
            w.pos == AUX and w.lemma == text_of("past") for w in before):
        return
    f.actions = [(p, n) for p, n in f.actions if p >= last]
    r.keyword_spans = [(a, b) for a, b in r.keyword_spans if a >= last]
    r.spans.append((0, last))


def _belief_before(r: _Reading) -> None:
    """What the speaker acts believing, said before the act in the て form (次は自分の番と信じて
    アンティ200でいきます): the manner of the act, no content."""
    if not r.f.actions:
        return
    for pattern in (text_of("belief_before"), text_of("as_before")):
        m = re.match(pattern, r.folded)
        if m is not None and m.end() <= min(p for p, _ in r.f.actions):
            r.spans.append(m.span())  # (前に教わった通りHRで: as taught, the manner)


def _cards_described(r: _Reading) -> None:
    """Words before the cards that end in the attributive form (ペアの邪魔になってる3cと7dを
    捨てます, 要らない3cを捨てます) describe the cards the action after them takes: no content."""
    f = r.f
    if not f.cards or not f.actions:
        return
    first = min(p for p, _ in f.cards)
    if any(p < first for p, _ in f.actions):
        return
    before = _said_before(r.clause, first)
    if not ends_attributive(before, adjective=True) or names_a_person(before):
        return
    r.spans.append((0, first))
    if 0 <= r.hand_at < first:
        f.hand = None  # (the pair the cards are in the way of is not declared)


def _read_action_words(r: _Reading) -> None:
    """The action words found by their surface: those of this game are its actions; a word of
    no action, or of an action the game does not have, is content (or nothing of its own)."""
    f, folded, allowed = r.f, r.folded, r.t.actions
    for m in r.v.surface.finditer(folded):
        if not r.free(m.start(), m.end()):
            continue
        name = SURFACE_NAMES[m.lastgroup or ""]
        if guarded(folded, m) or (m.group() in texts_of("with_cards_only") and not f.cards):
            continue  # 強いっぽい is no discard
        if _inside_katakana_word(r, m.start()):
            continue  # クオリファイ holds おり, no fold
        if name == "none":  # ショーダウン: a word of its own, no action
            r.spans.append(m.span())
            f.content = True
            continue
        if name == "all" and name not in allowed:
            r.spans.append(m.span())  # 手持ち2400全部です: "all of it", no content of its own
            continue
        if name == "all" and re.search(text_of("counted_all"), folded[:m.start()] + m.group()):
            r.spans.append(m.span())  # 2枚とも替える: both of the cards named, not the hand
            f.these = True
            continue
        if name not in allowed:
            _foreign_action(f, name, m.group())
            continue
        if m.group() in texts_of("contest_words") and folded[:m.start()].rstrip().endswith(
                text_of("subject_particle")):
            f.vetoed = f.strict = True  # 家に帰るまでが勝負: what the contest is, told
            f.why.append(m.group())
        f.actions.append((m.start(), name))
        r.spans.append(m.span())
        r.keyword_spans.append(m.span())


def _inside_katakana_word(r: _Reading, at: int) -> bool:
    """Whether ``at`` falls inside one katakana word of the analysis, not at its start (the
    folded クオリファイ holds the folded オリ)."""
    for w in r.clause.words:
        s = w.start - r.clause.start
        if s < at < s + len(w.surface):
            return katakana_word().fullmatch(w.surface) is not None
    return False


# the actions a word of which is content in a game that does not have them
_CONTENT_ELSEWHERE = ("hyper_raise", "extra_raise", "check", "bet", "raise", "pot", "open",
                      "muck", "close", "ante", "aa", "discard", "keep", "play", "stay",
                      "showdown", "call")


def _foreign_action(f: Frame, name: str, said: str) -> None:
    """A word of an action this game does not have."""
    if name == "discard" and said in _not_needed():
        return  # AAはいらない: the words say what they say, "not needed"
    if name in _CONTENT_ELSEWHERE:
        f.content = True  # an action word this game does not have


def _ante_raised(r: _Reading) -> None:
    """「アンティ200に上げます」 in a game with a raise: the ante brought to a figure, the
    raise word is the figure's verb (figure_verb_stems after an amount and に or まで)."""
    f, folded = r.f, r.folded
    if not any(n == "ante" for _, n in f.actions):
        return
    stems, brought = _figure_verb()
    f.actions = [(p, n) for p, n in f.actions if not (
        n == "raise" and folded.startswith(stems, p) and brought.search(folded[:p]))]


@cache
def _figure_verb() -> tuple[tuple[str, ...], re.Pattern[str]]:
    """The figure verb's stems (folded) and an amount with に or まで just before one."""
    stems = tuple(fold_nfkc(w) for w in texts_of("figure_verb_stems"))
    make = "|".join(texts_of("make"))
    return stems, re.compile(f"(?:{amount_pattern().pattern})\\s*(?:{make})\\s*$")


def _less_of(r: _Reading) -> None:
    """An action of no size followed by a size word (ハイパー控えめにします) is less of it: a
    way of playing, not this turn's act (メイク控えめに, アンティ多め keep their size)."""
    names = dict(r.f.actions)
    vague = tuple(texts_of("vague_sizes"))
    for a, b in r.keyword_spans:
        if names.get(a) in texts_of("sizeless_actions") and r.folded.startswith(vague, b):
            r.f.vetoed = r.f.strict = True
            r.f.why.append(r.folded[b:b + 1])


def _settle_actions(r: _Reading) -> None:
    """The action words read in the light of one another and of the words around them."""
    f, folded = r.f, r.folded
    # a word of the community's other languages glued to the action word (跟一下, 跟吧), which
    # the analyser cuts across (跟一|下)
    glued = tuple(w for w in texts_of("glued_after_action"))
    _less_of(r)
    for _, b in r.keyword_spans:
        after = next((w for w in glued if folded.startswith(w, b)), None)
        if after is not None:
            r.spans.append((b, b + len(after)))
    if "allin" in r.t.actions:  # 残り3200全部いったる: "all of it" going in is the all-in
        _all_going_in(r)
    # 「相手のオールインにコール」: the action called is someone else's, the call is the act
    kept = _called(f.actions, r.keyword_spans, folded)
    for p, _ in set(f.actions) - set(kept):  # (600のベットにはコール: its figure is the bet's)
        m = re.search(text_of("figure_of") + r"\s*$", folded[:p])
        if m is not None:
            r.spans.append((m.start(), p))
    f.actions = kept
    _aa_passed(f, folded)
    # 「いまの降りますが…」: the action word after "the one just now" names a past action
    if f.actions and folded[:f.actions[0][0]].rstrip().endswith(
            tuple(w for w in texts_of("past_pointers") if w.endswith(text_of("of")))):
        f.vetoed = f.strict = True
        f.why.append(text_of("of"))
    # 「bo 5d 9c nha」: the fold word that also throws away is a discard of the cards it names
    # in a game that draws
    if r.t.draw and f.cards and {n for _, n in f.actions} == {"fold"} and all(
            folded[p:].startswith(texts_of("throw_words")) for p, _ in f.actions):
        f.actions = [(p, "discard") for p, _ in f.actions]


def _all_going_in(r: _Reading) -> None:
    """The word for "all of it" followed by the verb of going is the all-in."""
    clause, f = r.clause, r.f
    for a, b in r.keyword_spans:
        going = any(w.start - clause.start == b and w.pos == VERB and w.lemma == text_of(
            "go_verb") for w in clause.words)
        if going and (a, "all") in f.actions:
            f.actions[f.actions.index((a, "all"))] = (a, "allin")


def _aa_passed(f: Frame, folded: str) -> None:
    """「AAは今日はやめとく」: passing on the side bet, not folding."""
    passes = [(p, n) for p, n in f.actions if n == "fold" and folded[p:].startswith(
        texts_of("pass_words"))]
    if passes and any(n == "aa" for _, n in f.actions):
        f.actions = [a for a in f.actions if a not in passes]
        if {n for _, n in f.actions} == {"aa"}:
            f.negated = True
        else:
            f.aa_declined = True


def _read_amounts(r: _Reading) -> None:
    """The amounts of chips outside the words read so far (a count is none)."""
    f, folded, clause = r.f, r.folded, r.clause
    for m in amount_pattern().finditer(folded):
        if not r.free(m.start(), m.end()):
            continue
        if any(w.start - clause.start == m.end() and w.surface in r.v.counter_words
               for w in clause.words):
            if folded.startswith(texts_of("tally_counters"), m.end()) and any(
                    b <= m.start() and not folded[b:m.start()].strip() for _, b in r.keyword_spans):
                f.vetoed = f.strict = True  # そのまま勝負1回: a tally of the evening
                f.why.append(folded[m.end()])
            continue  # この2枚, 2回目: a count, not chips (but AA100つけて is chips)
        value = amount_value(m.group())
        if value is None:
            f.content = True
            continue
        f.amounts.append((m.start(), value))
        f.amount_ends[m.start()] = m.end()
        r.spans.append(m.span())
        if folded.startswith(text_of("up_to"), m.end()):
            f.up_to = True  # 1万まで: the total of a make
        for p in r.v.points:
            if folded.startswith(p, m.end()):
                r.spans.append((m.end(), m.end() + len(p)))
                break


def _read_edges(r: _Reading) -> int:
    """A dialect's opener and sentence-final words, taken as carrying no content; where the
    final ones begin (len when there are none)."""
    folded = r.folded
    # a dialect's sentence-final words after the action (コールたい, 捨てるけぇ, オープンや,
    # レイズだがや): the analyser does not know them; they carry no content of their own
    # a dialect's opener (ほんなら, したっけ) supposes nothing: it is not read as a condition
    opened = folded.lstrip()
    opener = next((o for o in _openers_longest_first() if opened.startswith(o)), None)
    if opener is not None:
        lead = len(folded) - len(folded.lstrip())
        r.spans.append((lead, lead + len(opener)))
    tail_at = _dialect_tail(folded)
    if tail_at < len(folded):
        r.spans.append((tail_at, len(folded)))
        r.f.declared = r.f.polite = True
    return tail_at


@cache
def _openers_longest_first() -> tuple[str, ...]:
    """A dialect's openers, longest first (sorted once: the vocabulary is read once)."""
    return tuple(sorted(vocabulary().openers, key=len, reverse=True))


def _read_words(r: _Reading) -> bool:
    """The words not read yet, one by one; whether the clause tells what an action named as
    its topic is like (エクストラは2回目だけ)."""
    ws = r.clause.words
    ranks = _ranks_named(r.f)
    i = 0
    prev: Word | None = None
    topic = about = False  # an action word as the topic; what it is like told after it
    while i < len(ws):
        n = _read_known(r, i, prev)
        if n < 0:
            break
        if n == 0:
            topic, about = _read_topic(r, i, topic, about)
            _read_mood(r.f, ws[i])
            _judge_word(r, i, prev, ranks)
            _read_declaring(r, i, prev)
            n = 1
        prev = ws[i + n - 1]
        i += n
    return about


def _ranks_named(f: Frame) -> set[str]:
    """The ranks of the cards named, as words (エース, A, 9)."""
    held = {c[0].lower() for _, cs in f.cards for c in cs}
    return {w for w, r in vocab.cards().rank_of.items() if r in held} | held


def _read_known(r: _Reading, i: int, prev: Word | None) -> int:
    """How many words from the i-th are read as a whole -- an action word, a request made for
    someone or of the dealer, dialect or slang spelled out --, 0 when none, -1 at a polite wish
    (how one declares: nothing after it is read)."""
    ws, f = r.clause.words, r.f
    w = ws[i]
    s = w.start - r.clause.start
    e = s + len(w.surface)
    if not r.free(s, e):
        _order_or_negative(r, i)  # an action word; a verb among them may still be an order
        return 1
    if w.lemma in texts_of("benefactive") and prev is not None and \
            prev.surface in texts_of("request"):
        f.declared = True  # 見せてあげます: showing, for them (not 上げる, a raise)
        return 1
    if _read_lemma_action(r, i, s, e):
        return 1
    n = _read_spelled_out(r, i, s)
    if n:
        return n
    if _polite_wish(ws, i):
        f.declared = f.polite = True  # オールインをしたいと思います: how one declares politely
        return -1
    if _asks_leave(ws, i, f, r.folded):
        r.spans.append((s, e))
        f.declared = f.polite = True
        return 1
    return 0


def _order_or_negative(r: _Reading, i: int) -> None:
    """An action word in the imperative (降りろ) orders; one clipped to ん negates."""
    w = r.clause.words[i]
    if w.pos == VERB and w.cform in r.v.imperative:
        r.f.vetoed = r.f.strict = True
    if _clipped_negative(r.clause.words, i):
        r.f.negated = True


def _read_lemma_action(r: _Reading, i: int, s: int, e: int) -> bool:
    """An everyday verb of one of the game's actions, found by its lemma."""
    w, v, f = r.clause.words[i], r.v, r.f
    if w.lemma not in v.lemmas or v.lemmas[w.lemma] not in r.t.actions:
        return False
    prev = r.clause.words[i - 1] if i else None
    if w.pos == VERB and prev is not None and prev.pos == VERB and \
            prev.cform.startswith(text_of("continuative_form")):
        return False  # (決めきれない: 切る finishing another verb, no cut of cards)
    _order_or_negative(r, i)
    r.lemma_found.add(s)
    if w.lemma in texts_of("needs_amount") and r.t.makes_by_amount:
        f.needs_amount.add(v.lemmas[w.lemma])
    f.actions.append((s, v.lemmas[w.lemma]))
    r.spans.append((s, e))
    f.declared = f.declared or w.pos == VERB
    return True


def _read_spelled_out(r: _Reading, i: int, s: int) -> int:
    """Dialect and slang spelled out, possibly over several of the analyser's words: how many
    (0 when none)."""
    ws, v, clause, folded = r.clause.words, r.v, r.clause, r.folded
    longest, starts = _spelled_bounds()
    first = folded[s:s + 1]
    if first and not first.isspace() and first not in starts:
        return 0  # no such word starts with this character
    for n in (4, 3, 2, 1):
        if i + n > len(ws):
            continue
        last = ws[i + n - 1]
        end = last.start - clause.start + len(last.surface)
        cut = min(end, len(folded))  # (a word may run past the clause's end)
        if cut - s > longest and not folded[s].isspace() and not folded[cut - 1].isspace():
            continue  # longer than any such word, with nothing to strip
        # (the clause's folded text, cut where its text is: folding keeps every character's
        # place here, as the clause reader reads only texts whose folding keeps their length)
        surf = folded[s:end].strip()
        if surf not in v.volitional and surf not in v.around_words:
            continue
        # a written-out word over several of the analyser's words is taken as written
        # (おなしゃす is no imperative of 成す); a single word must not be a veto
        if (surf in v.volitional and not clause.question) or (surf in v.around_words and (
                n > 1 or not _is_veto(ws[i], v))):
            r.f.declared = r.f.polite = True
            if n > 1 and surf in v.around_words and surf not in v.volitional:
                # (気を取り直して: written out as a whole, no veto inside it)
                r.spans.append((s, end))
            return n
    return 0


@cache
def _spelled_bounds() -> tuple[int, frozenset[str]]:
    """The length of the longest word :func:`_read_spelled_out` looks for, and the characters
    they start with."""
    v = vocabulary()
    spelled = v.volitional | v.around_words
    return max((len(w) for w in spelled), default=0), frozenset(w[:1] for w in spelled if w)


def _read_topic(r: _Reading, i: int, topic: bool, about: bool) -> tuple[bool, bool]:
    """An action word as the topic (エクストラは…: talk about the action, unless declared), and
    what it is like told after it: the new ``topic, about``."""
    ws = r.clause.words
    w = ws[i]
    before = ws[i - 1].start - r.clause.start if i > 0 else -1
    if w.pos == PARTICLE and w.lemma in texts_of("topic") and any(
            a <= before < b for a, b in r.keyword_spans) and ws[i - 1].pos != VERB:
        r.f.weak = True
        topic = True
    if topic and w.lemma in texts_of("about_limits") and w.pos == PARTICLE:
        about = True
    return topic, about


def _read_mood(f: Frame, w: Word) -> None:
    """A hand said to be made, and a wondering or a wish (the only vetoes that still leave
    the decision to what follows)."""
    if w.lemma in texts_of("made_verbs"):
        f.made = True
    if w.pos == PARTICLE and w.lemma in texts_of("musing") and not f.vetoed:
        f.musing = True
    if w.pos == AUX and w.lemma == text_of("wish") and not f.vetoed:
        f.musing = True  # 置いてみたいです。アンティ200、AA200: a wish, then the decision


def _judge_word(r: _Reading, i: int, prev: Word | None, ranks: set[str]) -> None:
    """Whether the i-th word vetoes, declines, excepts, carries content or points weakly."""
    w, v, f = r.clause.words[i], r.v, r.f
    if w.pos == PARTICLE and w.lemma == text_of("object_ba") and (
            prev is None or prev.pos not in (VERB, AUX)):
        return  # 2sと5dば捨てるけん: the ば of an object
    past = w.pos == AUX and w.lemma == text_of("past") and (
        prev is None or prev.lemma != text_of("polite"))
    at = w.start - r.clause.start
    if w.pos in (VERB, AUX, vocab.pos("adjective")) and w.cform.startswith(
            text_of("conditional_form")) and any(p > at for p, _ in f.actions):
        f.vetoed = f.strict = True  # Aハイなければフォールド: the act under a condition, a rule
        f.why.append(w.surface)
        return
    if w.pos == AUX and w.lemma == text_of("zu") and prev is not None and prev.pos == VERB \
            and not any(p < at for p, _ in f.actions):
        return  # 欲張らずに替えます: the ず of a manner before the act negates the manner only
    if _is_veto(w, v) or _is_remark(prev, w, v) or past or _past_remark(prev, w, v):
        _veto(f, prev, w, v)
    elif _excused(r, i, prev, ranks):
        pass
    elif w.lemma in texts_of("except"):
        f.except_ = True
    elif (w.lemma.split("-")[0] in v.declining or fold_nfkc(w.surface) in v.declining) \
            and (prev is None or prev.lemma != text_of("agree")):
        # AAは結構です / 交換は無し decline (アンティ300で結構です agrees); AA抜きでオールイン
        # declines the side bet only
        s = w.start - r.clause.start
        ws = r.clause.words
        te = i + 1 < len(ws) and ws[i + 1].pos == PARTICLE and ws[i + 1].lemma in texts_of(
            "request")
        if any(n == "aa" and p < s for p, n in f.actions) and len(
                {n for _, n in f.actions}) > 1:
            f.aa_declined = True
        elif te and any(p < s for p, _ in f.actions) and any(p > s for p, _ in f.actions):
            # レイズも見送ってコールでしておきます: the one passed on, then the one taken
            f.actions = [(p, n) for p, n in f.actions if p > s]
        else:
            f.negated = True
    elif not _is_around(w, v):
        f.content = True
        f.why.append(w.surface)
    elif w.lemma in v.declining:
        # AAは結構です declines; アンティ300のみで結構です agrees
        if prev is None or prev.lemma != text_of("agree"):
            f.negated = True
    elif w.pos in CONTENT_POS and w.lemma in v.weak:
        f.weak = f.pointer = True


def _veto(f: Frame, prev: Word | None, w: Word, v: Vocabulary) -> None:
    """A word of veto or remark: a declining auxiliary negates, anything else vetoes."""
    remark = _is_remark(prev, w, v) or _past_remark(prev, w, v)
    f.remark_only = f.remark_only and remark
    if w.lemma in v.declined and w.pos == AUX:
        f.negated = True
    else:
        f.vetoed = True
        f.remarked = f.remarked or remark
        f.strict = f.strict or not remark
        f.why.append(w.surface)


def _excused(r: _Reading, i: int, prev: Word | None, ranks: set[str]) -> bool:
    """A word that would be content but belongs to the decision: a count, a rank, the figure,
    the street or seat, a try, a name addressed."""
    ws, v = r.clause.words, r.v
    w = ws[i]
    if w.pos2 == NUMERAL or (prev is not None and (prev.pos2 == NUMERAL or prev.lemma in
                             v.counter_words) and w.lemma in v.counter_words):
        return True  # 一つ, 二回目: a count (an amount is read above)
    if fold_nfkc(w.surface) in ranks:
        return True  # エースだけ残します、スペードのエース: the rank of a card named here
    if w.lemma in texts_of("figure_verbs") and r.f.amounts:
        return True  # アンティ1000に上げる: the figure the action is brought to
    if _street_topic(ws, i) or _seat_from(ws, i):
        return True  # リバーはポットベットで, ボタンからメイク350: when and where it is done
    if w.lemma == text_of("try_verb") and prev is not None and prev.lemma in texts_of(
            "request"):
        return True  # してみます: a try is still the speaker's act
    return _addresses(ws, i, prev, r.f.declared)


def _addresses(ws: tuple[Word, ...], i: int, prev: Word | None, declared: bool) -> bool:
    """「4cと9h捨てます先輩」: a name or title after the declaration addresses."""
    w = ws[i]
    proper = vocab.pos("proper_noun")
    return (w.lemma.split("-")[0] in texts_of("titles") or w.pos2 == proper
            or (w.lemma in texts_of("name_suffixes") and prev is not None)) and declared and \
        all(x.lemma.split("-")[0] in texts_of("titles") or x.pos2 == proper
            or x.lemma in texts_of("name_suffixes") or x.pos in (SYMBOL, BLANK) for x in ws[i:])


def _read_declaring(r: _Reading, i: int, prev: Word | None) -> None:
    """これ / この2枚 points at cards named elsewhere; an auxiliary, a word of declaring, a
    declaring particle at the end or a final particle after a verb declares."""
    ws, v, f = r.clause.words, r.v, r.f
    w = ws[i]
    if w.lemma in texts_of("these"):
        f.these = True
        nxt = ws[i + 1] if i + 1 < len(ws) else None
        at = w.start - r.clause.start
        f.this_hand = f.this_hand or (nxt is not None and at < r.hand_at and (
            (nxt.pos == PARTICLE and nxt.lemma in texts_of("topic"))
            or nxt.start - r.clause.start == r.hand_at))  # (これビッグハウスです)
    elif w.pos == AUX or w.lemma in v.declaring or (
            w.pos == PARTICLE and w.lemma in texts_of("declaring_end") and w is ws[-1]) or (
            w.pos2 == FINAL and prev is not None and prev.pos in (VERB, AUX)):
        f.declared = True
        f.polite = f.polite or w.pos in (AUX, PARTICLE) or w.lemma in v.declaring_nouns


def _asks_someone(r: _Reading, tail_at: int) -> bool:
    """A clause ending in the て of a request (オープンして, 全部残して) asks someone."""
    clause, f = r.clause, r.f
    tail = [w for w in clause.words if w.pos not in (SYMBOL, BLANK) and (
        w.start - clause.start < tail_at)]  # (not the dialect's ending: 残すっちゃ)
    while len(tail) > 2 and tail[-1].pos2 == FINAL:  # 見せてよ, 降りてね
        tail.pop()
    # (a throw naming its cards, or "the rest", may be asked of the dealer: あとは捨てて)
    rest = any(w in r.folded for w in texts_of("rest_words"))
    names_cards = (bool(f.cards) or rest) and {
        n for _, n in f.actions} <= {"discard", "keep", "all"} and any(
        n != "all" for _, n in f.actions)
    # (ハイパーで両方まとめて: a word around the act in the て form, no request)
    around = len(tail) > 1 and fold_nfkc(tail[-2].surface + tail[-1].surface) in r.v.around_words
    return clause.last and not names_cards and len(tail) > 1 and tail[-1].pos == PARTICLE \
        and tail[-1].lemma in texts_of("request") and tail[-2].pos == VERB and not around


def _veto_word(r: _Reading, gap: str) -> bool:
    """A word of veto among the words not read (``gap``); whole words only: the 様 of 皆様,
    not of 様子見."""
    ws, folded = r.clause.words, r.folded
    starts = {w.start - r.clause.start for w in ws} | {0}
    ends = {w.start - r.clause.start + len(w.surface) for w in ws} | {len(folded)}
    return any((m.start() in starts or not gap[m.start() - 1:m.start()].strip())
               and (m.end() in ends or not gap[m.end():m.end() + 1].strip())
               for m in r.v.veto_words.finditer(gap))


def _not_doing(f: Frame, conditional: bool = False) -> None:
    """An action negated that is itself an action: not throwing is staying (交換せんで), not
    showing is the close (見せずに閉じます, 見せません)."""
    kinds = {n for _, n in f.actions}
    if f.negated and conditional:  # (見せないともらえない: a condition, not the close)
        f.vetoed = f.strict = True
        return
    if f.negated and "discard" in kinds and kinds <= {"discard", "stay", "showdown"} \
            and not f.cards:
        f.actions = [(p, "stay") for p, _ in f.actions[:1]]  # 交換せんで: no change
        f.negated = False
        f.declared = True
    if f.negated and {n for _, n in f.actions} in ({"open", "close"}, {"open"}) and not f.cards:
        f.actions = [(p, "close") for p, _ in f.actions[:1]]
        f.negated = False
        f.declared = True


def _called(actions: list[tuple[int, str]], spans: list[tuple[int, int]],
            folded: str) -> list[tuple[int, str]]:
    """The actions without one that the call after it answers (オールインにコール, レイズに
    コールで, 600のベットにはコールで): an action word, then に (には), then the call."""
    calls = [p for p, n in actions if n == "call"]
    answered = {a for a, b in spans for w in texts_of("answered") if folded.startswith(w, b)
                and any(p == b + len(w) for p in calls)}
    return [(p, n) for p, n in actions if p not in answered]


def _card_gaps(folded: str, found: list[tuple[int, int, list[str]]]) -> list[tuple[int, int]]:
    """The words between two cards that join them (と, 和, 跟, và): read as "and", never as an
    action word of their own (跟 is also the call)."""
    sep = _card_sep()
    return [(a[1], b[0]) for a, b in itertools.pairwise(found)
            if a[1] < b[0] and sep.fullmatch(folded[a[1]:b[0]]) is not None]


@cache
def _card_sep() -> re.Pattern[str]:
    return re.compile(text_of("card_sep"))


def _asks_leave(ws: tuple[Word, ...], i: int, f: Frame, folded: str) -> bool:
    """A 「ください」 that asks no one else: leave to act (オールインでいかせてください), or
    the dealer asked for the throw a player names (全部取り替えてください, あとは替えてください)."""
    if i < 2 or ws[i].lemma not in texts_of("please") or ws[i - 1].pos != PARTICLE or \
            ws[i - 1].lemma not in texts_of("request"):
        return False
    if ws[i - 2].pos == AUX and ws[i - 2].lemma in texts_of("leave"):
        return True
    kinds = {n for _, n in f.actions}
    rest = any(w in folded for w in texts_of("rest_words"))
    return kinds <= {"discard", "keep", "all"} and "discard" in kinds and (
        bool(f.cards) or rest or "all" in kinds)


def _dialect_tail(folded: str) -> int:
    """Where the dialect endings at the end of a clause begin (len when there are none)."""
    v = vocabulary()
    end = len(folded.rstrip())
    while True:
        if not folded.endswith(v.dialect_endings, 0, end):  # (most clauses: one test in C)
            return end if end < len(folded.rstrip()) else len(folded)
        for w in v.dialect_endings:
            if folded.startswith(w, end - len(w)) and end - len(w) > 0:
                before = folded[end - len(w) - 1]
                # after a word, not inside one: the kana before is no part of the ending
                if w in v.dialect_after_verb_only and before not in text_of("verb_endings"):
                    continue
                head = folded[:end - len(w)]
                if w in texts_of("wish_like") and before in text_of("wish_stems"):
                    continue  # 降りたい wishes; 勝負たい, しとくたい assert
                if w in v.dialect_after_verb_only and head.endswith(texts_of("remark_before")):
                    continue  # コールですね remarks; 降りますね declares
                end -= len(w)
                break
        else:
            return end if end < len(folded.rstrip()) else len(folded)


@cache
def _not_needed() -> frozenset[str]:
    table = vocab.load("clauses.toml").get("declined", {})
    return frozenset(fold_nfkc(w) for w in vocab.strings(table, "not_needed", "clauses.toml"))


_INTERJECTION = vocab.pos("interjection")


def names_someone(c: Clause) -> bool:
    """A clause that only names a person (ジェーン、just call / Kevin, hyper しないで): what
    follows is said to them."""
    ws = c.said()
    if not ws or fold_nfkc(c.folded).strip() in vocabulary().around_words:
        return False  # (muck 了: a particle around the action, whatever the analyser calls it)
    if len(ws) == 1 and re.fullmatch(r"[A-Z][a-z]+", ws[0].surface):
        return True
    if fold_nfkc(c.folded).strip() in texts_of("second_person"):
        return True  # (fold 啦你: "you")
    if re.fullmatch(text_of("seat_person"), fold_nfkc(c.folded).strip()):
        return True  # (5番の人、…コールで十分だよ: the player in a seat, addressed)
    proper = vocab.pos("proper_noun")
    # (an interjection may open it: おっと工藤さん、ここでハイパー！)
    return all(w.pos2 == proper or w.lemma in texts_of("name_suffixes") or w.pos == _INTERJECTION
               for w in ws) and any(w.pos2 == proper for w in ws)


def supposes(c: Clause) -> bool:
    """A clause of supposition (私なら, 若い頃でしたら): what follows is hypothetical."""
    if fold_nfkc(c.folded.strip()) in vocabulary().openers:
        return False  # んだら、ほな: "well then" opens, it supposes nothing
    at = [i for i, w in enumerate(c.words) if (
        w.pos == PARTICLE and w.lemma in texts_of("conditional")) or (
        w.pos == AUX and w.surface in texts_of("conditional_aux")) or (
        w.pos in (VERB, AUX) and w.cform.startswith(text_of("conditional_form")))]
    # (変な文章になったらごめんなさい: the condition has its own main verb in the clause)
    return bool(at) and not any(w.pos in (VERB, *CONTENT_POS) for w in c.words[at[-1] + 1:])


def _is_veto(w: Word, v: Vocabulary) -> bool:
    if w.pos == AUX and w.lemma in v.veto_aux:
        return True
    if w.pos == PARTICLE and w.lemma in v.veto_particles:
        return True
    if w.pos2 == vocab.pos("aux_stem") and w.lemma.split("-")[0] in v.veto_aux:
        return True  # 行けそう, 降りそうやな: the stem of a guessing auxiliary
    if w.pos in (VERB, AUX) and w.cform.startswith(text_of("conditional_form")):
        return True  # わしなら, 降りれば: a supposition
    if w.pos == AUX and w.lemma in texts_of("copula") and \
            w.cform.startswith(text_of("conjecture_form")):
        return True  # フォールドでしょう: a judgement, not the speaker's act
    # an order (降りろ, チェックしとけ); not the ませ of くださいませ
    return w.pos in (VERB, AUX) and w.cform in v.imperative and w.lemma != text_of("polite")


def _is_remark(prev: Word | None, w: Word, v: Vocabulary) -> bool:
    """A copula remarking on an action rather than declaring it: コールだね, コールですよ,
    コールだった (but 「チェックっすね」 declares)."""
    if prev is None or prev.pos != AUX or prev.lemma not in texts_of("copula"):
        return False
    if fold_nfkc(prev.surface) in v.around_words:
        return False
    if w.pos == PARTICLE and w.lemma in v.remark_particles:
        return True
    return w.pos == AUX and w.lemma == text_of("past")


def _past_remark(prev: Word | None, w: Word, v: Vocabulary) -> bool:
    """でございましたね, だったよ: a past tense with a particle of remark."""
    return prev is not None and prev.pos == AUX and prev.lemma == text_of("past") and \
        w.pos == PARTICLE and w.lemma in v.remark_particles


@cache
def _hangul_word() -> re.Pattern[str]:
    return re.compile(f"[{text_of('hangul')}]")


def _is_around(w: Word, v: Vocabulary) -> bool:
    # (UniDic writes some lemmas with their sense: 私-代名詞, コール-call)
    if w.lemma.split("-")[0] in v.around_lemmas or fold_nfkc(w.surface) in v.around_words:
        return True
    if not w.surface.strip():
        return True
    if _hangul_word().search(w.surface):  # (the analyser calls every Korean word a mark)
        return w.surface in texts_of("hangul_endings") or w.surface in texts_of("hangul_around")
    return w.pos in v.around_pos


def _street_topic(ws: Sequence[Word], i: int) -> bool:
    """A street named first in the clause as its topic (リバーは, ターンは) or with the figure bet
    on it (フロップの300は): when the decision is for, not a story (リバーでいきなり打たれて stays
    content)."""
    if i + 1 >= len(ws) or ws[i].lemma.split("-")[0] not in texts_of("street_topics"):
        return False
    if any(ws[k].pos not in (SYMBOL, BLANK) for k in range(i)):
        return False  # (a word said before it)
    nxt = ws[i + 1]
    if nxt.pos == PARTICLE and nxt.lemma in texts_of("topic"):
        return True
    # (フロップの300はコールしとく: the street's figure, which the decision answers)
    return nxt.surface == text_of("of") and i + 2 < len(ws) and ws[i + 2].pos2 == NUMERAL


def _seat_from(ws: Sequence[Word], i: int) -> bool:
    """A seat followed by から (ボタンからメイク350): the seat the speaker acts from; not
    with の after it (BTNからのメイク700: someone's make, from that seat)."""
    return i + 1 < len(ws) and fold_nfkc(ws[i].surface) in texts_of("seat_words") \
        and ws[i + 1].surface == text_of("seat_from") \
        and not (i + 2 < len(ws) and ws[i + 2].surface == text_of("of"))
