"""Step 4 of the clause reader: the one committed action of a message, from its clauses --
corrections take back what came before them, concessions and thoughts give way to a
decision, a declined action is no obstacle, and an action word in a clause about something
else keeps the whole message chat."""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from referee.actions import Parsed
from referee.lang import vocab
from referee.lang.action_words import short_forms
from referee.lang.clauses.build import build_action
from referee.lang.clauses.cards import cards_in
from referee.lang.clauses.frame import Frame, frame, names_someone, supposes
from referee.lang.clauses.repair import repair
from referee.lang.clauses.split import Clause, split
from referee.lang.clauses.vocabulary import (
    AUX,
    BLANK,
    CONJUNCTIVE,
    FINAL,
    NOUN,
    NUMERAL,
    PARTICLE,
    SURFACE_NAMES,
    SYMBOL,
    VERB,
    GrammarReader,
    action_words,
    amount_pattern,
    ends_attributive,
    mentions,
    placed_already,
    style_of_the_day,
    text_of,
    texts_of,
    traits,
    vocabulary,
)
from referee.lang.normalize import fold_nfkc
from referee.lang.tokens import amount_value
from referee.lang.words import Word


def _deuces_lists(plays: list[Parsed]) -> Parsed | None:
    """「6dは残すわ。Tcと4hだけ捨てるわ」: cards kept and cards thrown, said apart, that agree
    (no card in both): the cards thrown decide."""
    if any(p.action != "play" or (p.keep is None and p.discard is None) for p in plays):
        return None
    named = [p for p in plays if p.keep or p.discard]
    rest = [p for p in plays if p not in named]
    if len(named) == 1 and rest and all(
            (p.keep == [] and named[0].keep) or (p.discard == [] and named[0].discard)
            for p in rest):
        return named[0]  # 「残すのはAsとAd、あとは捨てて」: the rest, as named
    kept = {c for p in plays for c in (p.keep or [])}
    thrown = [c for p in plays for c in (p.discard or [])]
    if kept & set(thrown) or not thrown or not kept:
        return None
    return Parsed(kind="action", action="play", discard=list(dict.fromkeys(thrown)),
                  hand_info=True)


def _filled(got: Parsed, kept: list[Clause], game: str) -> Parsed | None:
    """「レイズしとくわ。千八百な」, 「オープン。ハートのAとKだけな」: the action's amount or
    cards said in a clause of their own after it."""
    extra = [c for c in kept if c.kind == "cards"]
    acting = [i for i, c in enumerate(kept) if c.kind == "action"]
    if len(extra) != 1 or (acting and kept.index(extra[0]) < acting[0] and got.action == "allin"):
        return None  # (残りチップ400で、…オールインで: the stack told before, not a figure of it)
    text = extra[0].folded
    cards = [x for _, _, cs in cards_in(text) for x in cs]
    amounts = [m.group() for m in amount_pattern().finditer(text)]
    if cards and not amounts and got.action in ("open", "fold", "muck") and not got.cards:
        return got.model_copy(update={"cards": cards, "hand_info": True})
    if len(amounts) == 1 and not cards:
        value = amount_value(amounts[0])
        if value is None:
            return None
        if got.action == "raise" and got.to is None and not got.pot:
            return got.model_copy(update={"to": value})
        if got.action in ("bet", "ante", "allin") and got.amount is None and not got.pot:
            return got.model_copy(update={"amount": value})
    return None


def _amended(clauses: list[Clause], last: int, after: list[Clause]) -> Parsed | None:
    """「アンティ1500、いや、500でお願いします」: a correction followed by a new amount (or new
    cards) only amends the amount (the cards) of the action before it."""
    if last < 1 or any(c.kind not in ("chat", "cards") or c.strict for c in after):
        return None  # (アンティ100じゃなくて200にすればよかった: a regret amends nothing)
    shown = [c for c in after if c.kind == "cards" and cards_in(c.folded)]
    before = [c for c in clauses[:last] if c.kind == "action" and c.parsed is not None]
    if len(shown) == 1 and before:  # 「6cとJd捨て、あ、やっぱ6cだけ」: new cards
        got = before[-1].parsed
        assert got is not None
        cards = [x for _, _, cs in cards_in(shown[0].folded) for x in cs]
        swapped = clauses[last - 1] if clauses[last - 1].kind == "cards" else None
        if swapped is not None:  # 「8sと5h捨て…いや、5hじゃなくて5d」: one card for another
            old = [x for _, _, cs in cards_in(swapped.folded) for x in cs]
            for key in ("cards", "discard", "keep"):
                held = getattr(got, key)
                if held and old and set(old) <= set(held):
                    kept_cards = [x for x in held if x not in old]
                    return got.model_copy(update={key: kept_cards + cards})
        for key in ("cards", "discard", "keep"):
            if getattr(got, key):
                return got.model_copy(update={key: cards})
        return None
    amounts = [c for c in after if c.kind == "cards" or amount_pattern().search(c.folded)]
    if len(amounts) != 1 or any(c.kind == "cards" and c is not amounts[0] for c in after):
        return None
    values = [m.group() for m in amount_pattern().finditer(amounts[0].folded)]
    before = [c for c in clauses[:last] if c.kind == "action" and c.parsed is not None]
    if len(values) != 1 or not before:
        return None
    value = amount_value(values[0])
    got = before[-1].parsed
    assert got is not None
    slot = "to" if got.to is not None else "amount" if got.amount is not None else None
    if value is None or slot is None:
        return None
    return got.model_copy(update={slot: value})


@dataclass(frozen=True)
class Reading:
    """What the clause reader made of a message: the action (or None) and whether some clause
    talks about actions without being the committed one (a near miss)."""

    action: Parsed | None
    talks_action: bool
    decided: bool = False  # read as the decision after a story (:func:`_decided_after`)


class _Pass:
    """Which reading :func:`_resolve` makes, fine (clauses) or coarse (sentences); true for the
    coarse one. It remembers whether a step asked (``asked``): when none did, and the sentences
    are the clauses, the coarse reading cannot differ from the fine one."""

    __slots__ = ("asked", "coarse")

    def __init__(self, coarse: bool) -> None:
        self.coarse = coarse
        self.asked = False

    def __bool__(self) -> bool:
        self.asked = True
        return self.coarse


def read(text: str, game: str, grammar: GrammarReader,
         hands: Iterable[tuple[str, re.Pattern[str]]] = (),
         advice: Callable[[str], bool] | None = None) -> Reading:
    """The committed action of ``text`` (NFKC), read clause by clause (module docstring)."""
    repaired = repair(text)
    hands = tuple(hands)
    fine = split(repaired)
    as_split = [copy.copy(c) for c in fine]  # (_resolve marks the clauses it reads)
    fine_pass = _Pass(coarse=False)
    first = _resolve(fine, game, grammar, hands, advice, fine_pass)
    if first.action is not None and not first.decided:
        return first
    # (a decision after a story is the last resort: whole sentences read together first --
    # 「AAさ 50、あんてぃは 百だ」 is one ante with its side bet)
    sentences = split(repaired, fine=False)
    if sentences == as_split and not fine_pass.asked:
        # the same clauses, and no step asked which reading it was: the coarse reading would
        # take the fine one's steps to the same Reading, and the answer would be ``first``
        return first
    second = _resolve(sentences, game, grammar, hands, advice, _Pass(coarse=True))
    if second.action is not None and not second.decided:
        if first.action is not None and _shows_more(first.action, second.action):
            return first  # (降ります。A♠だけ見せときます、前に…: the cards the clauses joined)
        return second
    if first.action is not None:
        return first
    return second if second.action is not None else first


def _shows_more(fine: Parsed, coarse: Parsed) -> bool:
    """The same fold or muck, the fine reading with the cards it shows and the coarse one
    without (a sentence of reasons hid the cards from it)."""
    return fine.action == coarse.action and fine.action in ("fold", "muck") and \
        bool(fine.cards) and not coarse.cards


def _resolve(clauses: list[Clause], game: str, grammar: GrammarReader,
             hands: tuple[tuple[str, re.Pattern[str]], ...],
             advice: Callable[[str], bool] | None, coarse: _Pass) -> Reading:
    """The steps of the module docstring, in order: classify each clause, settle who is
    addressed and what is taken back, then find the one action the rest agrees with."""
    if not clauses:
        return Reading(None, True)
    for i, c in enumerate(clauses):
        _classify(c, game, grammar, hands)
        _only_way(c, clauses[:i], grammar)
    _own_pointed(clauses, game, hands, advice)
    for i, c in enumerate(clauses):
        if c.kind == "action" and _not_taken_now(c, clauses[:i], clauses[i + 1:]):
            c.kind, c.strict = "blocking", True
        elif c.kind in _NAMING and _of_people(c) and any(x.kind == "action" for x in clauses[:i]):
            c.kind = "chat"  # …ベット600、降りたい人はどうぞ: who else may, after the decision
    _fold_then_shown(clauses, game, hands)
    _rest_agrees(clauses, game)
    _vague_agrees(clauses)
    if _explains_the_past(clauses):
        return Reading(None, True)
    for i, c in enumerate(clauses):
        _addressed(c, clauses[:i], clauses[i + 1:])
    for i, c in enumerate(clauses):
        _lone_correction(c, clauses[:i], clauses[i + 1:])
    last = max((i for i, c in enumerate(clauses) if c.kind == "correction"), default=-1)
    kept = _committed(clauses[last + 1:])
    joined = _these_joined(kept, game, hands, coarse)
    if joined is not None:
        return Reading(joined, False)
    acts = [c for c in kept if c.kind == "action"]
    before = [c.parsed for c in clauses[:max(last, 0)] if c.kind == "action"
              and c.parsed is not None]
    if not before and last > 0:  # 「残す Th Jh Qh、あ、いやKhも残します」: cards, then "keep"
        joined_before = _these_joined(clauses[:last], game, hands, coarse)
        before = [joined_before] if joined_before is not None else []
    amended = _added(acts, before) or _bare_amount(acts, before, last) or _restated(
        acts, before, last) or _amended(clauses, last, kept)
    if amended is not None:
        return Reading(amended, False)
    if any(c.kind == "kept" for c in kept) and not any(
            c.parsed is not None and c.parsed.action == "discard" for c in acts):
        return Reading(None, True)
    made = _declared_made(kept, acts)
    if made is not None:
        return Reading(made, False)
    _echoes(kept, acts)
    after_story = False
    if any(c.kind == "blocking" for c in kept):
        decided = _decided_after(kept) or _decided_once(kept, coarse) or _committed_now(
            kept, game, hands)
        if decided is None or _done_already(decided[1:]) or (
                advice is not None and not _own_turn(decided[0]) and
                advice(_others_told(kept, decided))):
            return Reading(None, True)  # (ってことで俺もコール: the speaker's own, after all)
        kept, after_story = decided, True
    acts = [c for c in kept if c.kind == "action"]
    if acts and (_taken_out(acts[-1], kept, clauses) or _an_item(acts[-1], clauses)):
        return Reading(None, True)
    if not acts:
        return Reading(None, any(c.kind in ("declined", "correction") for c in clauses))
    if _of_someone_named(acts[-1], clauses):
        return Reading(None, True)  # NPCさん弱いねｗ すぐ降りる: what they do, told
    said = [c.parsed for c in acts if c.parsed is not None]
    first = _merged(said, game)
    if first is None:
        return Reading(None, True)
    if traits(game).side_bet and first.action == "ante" and first.amount is None and first.aa:
        # 「アンティ300…あ、やっぱAA100もつける」: the side bet added to the ante before
        antes = [c.parsed for c in clauses[:last] if c.kind == "action" and c.parsed is not None
                 and c.parsed.action == "ante" and c.parsed.amount is not None]
        if antes:
            first = antes[-1].model_copy(update={"aa": first.aa})
    first = _completed(first, kept, game)
    if first is None:
        return Reading(None, True)
    if advice is not None and not (acts[-1].last and _own_turn(acts[-1])):
        # (「…続ければ役の可能性…、結論フォールド」: reasons weighed, then the speaker's own
        # conclusion, are no advice)
        said_else = [c.text for c in kept if c.kind == "chat" and not c.quoted and
                     not _cheer_or_invite(c)]
        if said_else and advice(" ".join(said_else)):
            return Reading(None, True)
    return Reading(first, False, decided=after_story)


def _own_pointed(clauses: list[Clause], game: str,
                 hands: tuple[tuple[str, re.Pattern[str]], ...],
                 advice: Callable[[str], bool] | None) -> None:
    """「ここはフォールド」 inside the speaker's own reasons and stories is their act: alone it
    may be said to someone (here, fold), so it stays a question there; in a message that names
    and addresses no one and gives no advice besides, the "here" is the speaker's own spot."""
    pointed = [c for c in clauses if c.pointed]
    if len(pointed) != 1 or len(clauses) < 2 or advice is None:
        return
    c = pointed[0]
    said = c.said()
    if not any(a.lemma in vocabulary().weak and b.pos == PARTICLE and b.lemma in texts_of("topic")
               for a, b in itertools.pairwise(said)):
        return  # (ここまでベット、レイズって来て: "so far", no spot of one's own)
    if any(x.kind == "vocative" or _mentions_someone(x) for x in clauses) or \
            _said_to_someone(clauses) or advice(" ".join(x.text for x in clauses if x is not c)):
        return
    got = build_action(frame(c, game, hands), game)
    if got is not None:
        c.kind, c.parsed = "action", got


def _ends_topic(c: Clause) -> bool:
    """A clause that ends in the topic particle (レイズは…うーん): what is said about the action
    never came; the grammar's decorations would take the は off and read the word alone."""
    ws = c.said()
    return len(ws) >= 2 and ws[-1].pos == PARTICLE and ws[-1].lemma in texts_of("topic")


def _topic_of_next(c: Clause, after: list[Clause]) -> bool:
    """A bare hand's name that a comma joins to a clause of guess, wish or question about it
    (ストレート、揃いそうだなや): what is said is about the hand, no declaration of it. (After an
    action word the same clause is most often the speaker's feeling: フォールド、アホらし.)"""
    said = c.said()
    if c.parsed is None or c.parsed.hand is None or len(said) != 1 or not after or \
            after[0].after_stop or \
            not any(ch in c.mark for ch in text_of("list_commas")):
        return False
    nxt = after[0]
    return nxt.kind == "chat" and (nxt.strict or nxt.question) and not nxt.quoted


def _state_given(c: Clause) -> bool:
    """An action told as a state, given as the reason for what follows (もう降りてるので観戦
    モード): the いる / てる of a state after the verb, before a reason ending; done already."""
    said = c.said()
    reason = c.ends_reason or c.folded.rstrip().endswith(texts_of("reason_endings"))
    if not reason or len(said) < 3:
        return False
    return any(a.pos == VERB and (b.lemma in texts_of("state_aux") or (
        b.pos == PARTICLE and b.lemma in texts_of("request") and k + 2 < len(said) and
        said[k + 2].lemma in texts_of("state_aux")))
        for k, (a, b) in enumerate(itertools.pairwise(said)))


def _others_act(c: Clause) -> bool:
    """Someone else is the one acting: before the clause's first action word, a count of people
    or a seat (1人フォールド, 2番席コール) or a subject marked by が that is not the speaker
    (3番席がエクストラ; 私がコールします is the speaker's own)."""
    spans = list(vocabulary().surface.finditer(c.folded))
    if not spans:
        return False
    m = spans[0]
    lead = [w for w in c.words if w.start - c.start < spans[-1].start() and w.pos not in (
        SYMBOL, BLANK)]
    if ends_attributive(lead):
        return False  # (半分がアンティになるオールインで: the subject of what describes it)
    before = [w for w in c.words if w.start - c.start < m.start() and w.pos not in (SYMBOL, BLANK)]
    for k, w in enumerate(before):
        prev = before[k - 1] if k else None
        if prev is None:
            continue
        if w.lemma in texts_of("others_counters") and prev.pos2 == NUMERAL:
            return True
        if w.pos == PARTICLE and w.lemma in texts_of("seat_acts") and \
                fold_nfkc(prev.surface) in texts_of("seat_words"):
            return True  # (BTNがレイズ: the seat's player acted)
        if w.pos == PARTICLE and w.lemma == text_of("subject_particle") and \
                prev.lemma.split("-")[0] not in texts_of("speakers") and \
                prev.surface not in texts_of("speakers"):
            return True
    return False


def _narrated(c: Clause, after: list[Clause]) -> bool:
    """An action in the て form that its sentence goes on to tell in the past (最後オールインして、
    逆転されたんですよ): a て-form takes the tense of the predicate that ends its sentence, so the
    action is a story, not a move (コールして、様子見ます stays the speaker's call)."""
    ws = c.said()
    if len(ws) < 2 or ws[-1].pos2 != CONJUNCTIVE or ws[-1].lemma not in texts_of("request") \
            or ws[-2].pos != VERB:
        return False
    if fold_nfkc(c.folded).lstrip().startswith(texts_of("past_times")):
        return True  # 前回もここから奇跡待ってコールして、…: a story of another hand
    sentence = _rest_of_sentence(after)
    if not sentence:
        return False
    tail = sentence[-1].said()
    last_verb = max((k for k, w in enumerate(tail) if w.pos == VERB), default=None)
    return last_verb is not None and any(
        w.pos == AUX and w.lemma == text_of("past") for w in tail[last_verb + 1:])


def _ends_past(said: list[Word]) -> bool:
    """Whether what is said ends in the past auxiliary (しました, したかった)."""
    return bool(said) and said[-1].pos == AUX and said[-1].lemma == text_of("past")


def _explains_the_past(clauses: list[Clause]) -> bool:
    """A message that asks why of an action of another time and answers it (さっきフォールドした
    理由？5枚でハイカード、…): the past explained, unless what follows speaks of this one
    (…今はやる気戻ったのでアンティ300)."""
    why = texts_of("why_words")
    asked = [i for i, c in enumerate(clauses) if c.question and _of_another_time(c) and any(
        w in c.folded for w in why) and action_words(c.folded, with_cards=False)]
    now = texts_of("now_words")
    return bool(asked) and not any(any(w in fold_nfkc(c.folded) for w in now)
                                   for c in clauses[asked[0] + 1:])


def _past_choice(c: Clause, earlier: list[Clause]) -> bool:
    """A choice told in the past after a wish in the past conceded (ハイパーしたかったけど、コー
    ルにしました) or after an earlier action pointed at (さっきのHRは誤爆じゃないです、ちゃんと
    狙ってハイパーしました): the story of a decision already made. (コールしました alone is a
    declaration, as players write it; so is コールにします after the same wish.)"""
    if not earlier or not _ends_past(c.said()):
        return False
    if any(_of_another_time(x) and action_words(x.folded, with_cards=False) for x in earlier):
        return True
    before = earlier[-1]
    if c.after_stop or not before.ends_concessive:
        return False
    said = before.said()
    return len(said) >= 2 and _ends_past(said[:-1]) and any(
        w.pos == AUX and w.lemma == text_of("wish") for w in said)


def _planned(c: Clause, earlier: list[Clause]) -> bool:
    """An action in a sentence that opened with a later hand or game (次のハンドからはBBの時に
    チェックで回ってきたら、とりあえずポットベット打つことにする): a plan, not this turn's act."""
    seq = [*earlier, c]
    j = len(seq) - 1
    while j > 0 and not seq[j].after_stop:
        j -= 1  # (back to the clause that opened the sentence)
    return seq[j] is not c and fold_nfkc(seq[j].folded).lstrip().startswith(
        texts_of("later_times"))


def _multiplied(c: Clause) -> bool:
    """A figure of the action that is a multiple (アンティ101倍とAA201倍で: what a hand paid),
    not chips."""
    p = c.parsed
    times = re.search(rf"[0-9]\s*{re.escape(text_of('times'))}", c.folded) is not None
    if p is None or (p.amount is None and p.aa is None and p.to is None):
        # (フラッシュだとアンティ3.5倍で: the payout told, the figure not read as chips)
        return times and p is not None and p.action == "ante"
    return times


def _opens_later(c: Clause) -> bool:
    """A clause that opens with a later game (次のゲームからアンティ200にします): a plan."""
    return fold_nfkc(c.folded).lstrip().startswith(_later_openers())


@cache
def _later_openers() -> tuple[str, ...]:
    """``later_openers`` folded (the clause is compared folded), once."""
    return tuple(fold_nfkc(w) for w in texts_of("later_openers"))


def _quoted_by_next(after: list[Clause], c: Clause | None = None) -> bool:
    """The next clause, an aside in brackets taken off, says the words were said (セブンストレ
    ートです（ドヤ）って): someone's words, or words one would say, quoted; an exclamation mark
    may be part of the words (勝負！だけでも通るって: the word written, told)."""
    if not after:
        return False
    rest = re.sub(text_of("aside_opening"), "", fold_nfkc(after[0].folded).lstrip())
    if after[0].after_stop:
        glued = c is not None and c.mark in texts_of("exclamations") and \
            after[0].folded[:1].strip() != ""
        return glued and rest.startswith(texts_of("only_words")) and any(
            q in rest for q in texts_of("quote_followers"))
    return rest.startswith(texts_of("quote_followers"))


def _times_done(c: Clause) -> bool:
    """A count of times with the action (今日はアンティ100で20回やって, 全交換4回、フォールド1回):
    what was done again and again, not one decision."""
    said = c.said()
    once = texts_of("once_numerals")  # (ここは一回チェックにしておきます: "for once")
    return any(w.lemma == text_of("times_counter") and k and (
        said[k - 1].pos2 == NUMERAL or said[k - 1].surface.isdigit()) and
        said[k - 1].surface not in once and not (
        k + 1 < len(said) and said[k + 1].lemma in (text_of("ordinal_suffix"),
                                                    text_of("worth_suffix")))
        and (k + 1 == len(said) or any(x.pos == VERB for x in said[k + 1:]))
        for k, w in enumerate(said))


#: The kinds of a clause that names an action, whatever becomes of it.
_NAMING = ("blocking", "action", "echo", "declined", "these", "kept")


def _own_turn(decision: Clause) -> bool:
    """A decision said as the speaker's own after talk to someone (たけし、…ほな俺はベット600
    いっとくわ; ひろし、…こっちはコール): it opens with ほな / じゃあ or names the speaker."""
    said = fold_nfkc(decision.folded).strip().lstrip(vocab.marks("laugh_word") + "w ")
    return said.strip().startswith(texts_of("own_turn")) or any(
        w in said for w in texts_of("own_turn") if len(w) > 2)


def _others_told(kept: list[Clause], decided: list[Clause]) -> str:
    """The text of a story and its decision that could be advice to someone else: without the
    story's clauses that name nobody (…するよりは降りたほうがマシ、降ります; 普通のレイズはもった
    いないよね…えくで: the speaker weighing their own choices, not advice)."""
    # (さっきのbobさんみたいにエクストラでいきます: the one the decision is made like)
    if any(_mentions_someone(c) and not (c in decided and any(
            w in c.folded for w in texts_of("likewise"))) for c in kept):
        return " ".join(c.text for c in kept)  # (佐藤さん、2は残すべき。…: all said to them)
    # (a 「ここは…」 taken as the speaker's own spot was read without it: :func:`_own_pointed`)
    # (…置けないから、もうオールインしかないでしょ: the one way left, the speaker's own)
    # (9hと9dは残して、Jcと5sを捨てます: what is kept, in the て form, goes with the throw)
    return " ".join(c.text for c in kept if not c.pointed and not c.only_way and c.kind != "kept"
                    and not _cheer_or_invite(c)
                    and (c in decided or not (c.kind == "blocking" and not any(
                        w in fold_nfkc(c.folded) for w in texts_of("past_pointers")))))


def _of_someone_named(act: Clause, clauses: list[Clause]) -> bool:
    """An action in the plain form of its verb (すぐ降りる), after a clause that talks about a
    person by name or the house's player (NPCさん弱いね, NPC弱いね): what that one does, not
    the speaker's act."""
    ws = act.said()
    if not ws or ws[-1].pos != VERB or not ws[-1].cform.startswith(texts_of("plain_cforms")):
        return False
    before = clauses[:clauses.index(act)]
    return any(c.kind == "chat" and (_mentions_someone(c) or fold_nfkc(c.folded).lstrip(
    ).startswith(texts_of("house_players"))) and len(c.said()) > 2 for c in before)


def _mentions_someone(c: Clause) -> bool:
    """Whether a clause names a person or says "you" (ボブさんは降りたほうがいい)."""
    person = vocab.pos("person_name")  # (not マック, ドンク, オマハ: brands and places)
    suffixes = texts_of("name_suffixes")
    everyone = texts_of("audience")
    ws = c.words
    surface = vocabulary().surface
    # (コール-Cole: an action word the analyser took for a name names no one)
    return any((w.pos3 == person and not surface.fullmatch(fold_nfkc(w.surface))) or (
        w.lemma in suffixes and not (i and ws[i - 1].surface in everyone))
        for i, w in enumerate(ws)) or any(
        y in fold_nfkc(c.folded) for y in texts_of("second_person"))


def _decided_after(kept: list[Clause], letter: bool = False) -> list[Clause] | None:
    """A message that thinks out loud and then decides: the reasons, plans and stories before
    it name other actions (前回ここでレイズして痛い目見たし、今回は降ります), but the last clause
    that names an action is the speaker's own plain action, and nothing after it names one.
    What the speaker commits to is that last action: the clauses from it on. None when some
    action word comes after the last action, or the last one is no plain action."""
    named = [i for i, c in enumerate(kept) if c.kind in _NAMING]
    if not named:
        return None
    # (オールインで。…。AAはなしで: the side bet declined after the decision goes with it)
    if len(named) > 1 and _declines_side_bet(kept[named[-1]]):
        acting = [i for i in named[:-1] if kept[i].kind == "action"]
        if acting and all(kept[i].kind == "blocking" for i in named if acting[-1] < i < named[-1]):
            named = [i for i in named if i <= acting[-1]]
    last = kept[named[-1]]
    if any(c.kind == "supposing" for c in kept) or (
            any(c.kind == "vocative" for c in kept) and not _own_turn(last)):
        return None  # said to someone, or what the speaker would do in their place
    if last.kind != "action" or not _plain(last, letter):
        return None
    before = kept[:named[-1]]
    if _blocked_otherwise(before):
        return None
    if _said_to_someone(before):
        return None  # おめ、おりんな
    start = named[-1]
    while start > 0 and _side_bet_beside(kept[start - 1], kept[start:]):
        start -= 1  # (…ので、AA200 アンティ300で行きます: one stake said in two clauses)
    return kept[start:]


def _side_bet_beside(c: Clause, decision: list[Clause]) -> bool:
    """An ante's side bet said in the clause right before the decision's ante, with no stop
    between (AA200 アンティ300で行きます): the same stake."""
    p, q = c.parsed, decision[0].parsed
    if c.kind != "action" or p is None or q is None or decision[0].after_stop or \
            any(ch in c.mark for ch in vocab.marks("sentence_stops")):
        return False
    return p.action in ("ante", "allin") and p.aa is not None and p.amount is None and \
        q.action == "ante" and q.aa is None and q.amount is not None


def _committed_now(kept: list[Clause], game: str,
                   hands: tuple[tuple[str, re.Pattern[str]], ...]) -> list[Clause] | None:
    """The one action the speaker takes now among a story's other action words: every other
    clause naming an action is told, planned, declined or someone else's (blocking or
    declined), and the decision stands as one (a plain clause, not an item of a list, said to
    no one, in a message that asks nothing and supposes nothing). With no action clause, the
    one clause whose predicate is an action word (今日はちょっと上げてアンティ200で) is it."""
    acts = _restated_once([i for i, c in enumerate(kept) if c.kind == "action"], kept)
    if not acts:
        acts = _predicates(kept, game, hands)
    readings = [p for p in (kept[i].parsed for i in acts) if p is not None]
    if len(acts) > 1 and len(readings) == len(acts) and _merged(readings, game) is not None \
            and acts[-1] - acts[0] < len(acts) + 1:
        acts = [acts[0]]  # (AA50 アンティ100で行きます: one decision said in two clauses)
    if len(acts) != 1:
        return None
    decision = kept[acts[0]]
    others = [c for c in kept if c is not decision and c.kind in _NAMING and not (
        c.kind == "action" and kept.index(c) > acts[0])]
    if any(c.kind not in ("blocking", "declined") for c in others):
        return None
    if any(c.kind in ("vocative", "supposing") for c in kept) or any(
            c.question and (i <= acts[0] or c.kind in _NAMING) for i, c in enumerate(kept)) or any(
            supposes(c) and not action_words(c.folded, with_cards=False)
            for c in kept[:acts[0]]):
        return None  # (わたくしならば、ここは迷わず勝負: what someone would do; a story's
        # condition naming an action, 前にリンプで回したら…, is no supposition of the speaker's)
    if _blocked_otherwise(kept):
        return None
    steps = texts_of("sequence_words")
    if sum(fold_nfkc(c.folded).lstrip().startswith(steps) for c in kept) >= 2:
        return None  # まずアンティを置き、…次にフロップを見て: how the game goes, told
    after = kept[acts[0] + 1:]
    if not _plain(decision) or _said_to_someone(kept) or _listed(decision, after) or (
            decision.text.strip().isascii() and not decision.mark.strip()):
        return None
    return kept[acts[0]:]


def _predicates(kept: list[Clause], game: str,
                hands: tuple[tuple[str, re.Pattern[str]], ...]) -> list[int]:
    """The clauses blocked only for their content whose predicate is an action word said now
    (アンティは諦めて降ります, 気持ち的にオールインで): what follows the last action word is
    particles, auxiliaries, figures and verbs of doing, not the past. One such clause is read
    as an action (kind and reading set); several are returned unread."""
    if len(kept) < 2 or any(_mentions_someone(c) or fold_nfkc(c.folded).lstrip().startswith(
            texts_of("house_players")) for c in kept):
        return []  # (NPC弱いね、すぐ降りる: what someone else does)
    found = [i for i, c in enumerate(kept) if c.kind == "blocking" and (
             not c.strict or _only_hedged(c, game, hands))
             and not c.hand_named and not _of_another_time(c) and not _said_of_things(c) and (
                 (_ends_in_action(c) and (c.self_polite or _declared_end(c, kept[i + 1:])))
                 or _chosen_with(c) or _done_then(c))]
    if len(found) == 1:
        c = kept[found[0]]
        f = frame(c, game, hands)
        got = None if f.lemma_only else build_action(f, game)
        if got is None:
            return []  # (電車を降ります: an everyday verb)
        c.kind, c.parsed = "action", got
        if _multiplied(c):
            c.kind, c.parsed = "blocking", None  # (アンティ101倍とAA201倍で)
            return []
    return found


def _of_another_time(c: Clause) -> bool:
    """A clause that points at another hand or a later one before its last action word
    (さっきのリバーのコール, 次こそ; not フォールド、次行こう)."""
    spans = list(vocabulary().surface.finditer(c.folded))
    folded = fold_nfkc(c.folded[:spans[-1].end()] if spans else c.folded)
    return any(w in folded for w in (*texts_of("past_times"), *texts_of("past_pointers"),
                                     *texts_of("later_times"), *texts_of("habit_words")))


def _declared_end(c: Clause, after: list[Clause]) -> bool:
    """The clause ends its sentence, or ends in the declaring で (an action noun closing a
    sentence is said; one before a comma may be the topic of what follows)."""
    said = c.said()
    if said and said[-1].lemma in texts_of("declaring_de"):
        return True
    return not after or after[0].after_stop or any(
        ch in c.mark for ch in vocab.marks("sentence_stops"))


def _modifies(w: Word) -> bool:
    """A word that makes what follows it a noun it describes (の, an adjective, an adnominal,
    a verb in the attributive form) or an everyday verb's object (電車を降ります: を)."""
    return (w.pos == PARTICLE and w.lemma in (text_of("of"), text_of("object_wo"))) or w.pos in (
        vocab.pos("adjective"), vocab.pos("adnominal")) or (
        w.pos == VERB and w.cform.startswith(text_of("attributive_cform")))


@cache
def _hedges() -> re.Pattern[str]:
    """A size hedged (メイク1800くらいに) and a manner said by what is not done (気にせず,
    無理せずに): neither takes back the action they go with."""
    about = "|".join(map(re.escape, texts_of("about_figures")))
    without = "|".join(map(re.escape, texts_of("without_endings")))
    choice = re.escape(text_of("choice_particle"))
    return re.compile(rf"(?:{about})(?={choice})|^.*?(?:{without})")


def _only_hedged(c: Clause, game: str, hands: tuple[tuple[str, re.Pattern[str]], ...]) -> bool:
    """Whether a vetoed clause is vetoed only by its hedges (:func:`_hedges`): read without
    them, it is no longer vetoed."""
    plain = _hedges().sub("", c.text).strip()
    if plain == c.text.strip() or not plain:
        return False
    again = split(plain)
    return len(again) == 1 and not frame(again[0], game, hands).vetoed


def _action_spans(c: Clause) -> tuple[list[Word], list[re.Match[str]]]:
    """What a clause said and where its action words are; no spans when the clause is not in
    Japanese grammar (콜 할까 말까), whose predicate these readers cannot find."""
    said = c.said()
    spans = list(vocabulary().surface.finditer(c.folded))
    if not any(w.pos in (PARTICLE, AUX, VERB) for w in said):
        return said, []
    return said, spans


def _words_after(c: Clause, said: list[Word], end: int) -> list[Word]:
    """The words said after offset ``end`` of the clause, without the figure's words."""
    figures = [m.span() for m in amount_pattern().finditer(c.folded)]
    return [w for w in said if w.start - c.start >= end and w.pos2 != NUMERAL
            and not any(a <= w.start - c.start < b for a, b in figures)]


def _chosen_with(c: Clause) -> bool:
    """An action taken as the means of what the speaker does now (コールで様子を見ます, ERで
    押す, アンティ200で入ります, メイク300くらいにしときます): the last action word, then で or
    に, then a predicate that ends the clause in the present, not negated."""
    said, spans = _action_spans(c)
    if not spans:
        return False
    if len(spans) > 1 and fold_nfkc(spans[-1].group()) in texts_of("contest_words"):
        spans = spans[:-1]  # (オールインで勝負つけます: the contest is what the all-in does)
    rest = _words_after(c, said, spans[-1].end())
    while rest and rest[0].pos == PARTICLE and rest[0].lemma in texts_of("about_figures"):
        rest = rest[1:]  # (メイク300くらいに: about)
    before = [w for w in said if w.start - c.start < spans[-1].end()]
    if len(rest) < 2 or rest[0].lemma not in texts_of("means_particles") or not before or \
            before[-1].pos != NOUN:
        return False  # (降りるにはもったいない: a verb's purpose, not a means)
    while rest and rest[-1].pos == PARTICLE and rest[-1].lemma in texts_of("declaring_finals"):
        rest = rest[:-1]  # (降りとくわ)
    last = rest[-1]
    # (its own verbs only: not チェックで回すのが怖くなる, 全ツッパで生きてます, …と思うよ; an
    # adjective only as the manner of the verb right after it: アンティ1000で大きく行きます)
    return last.pos in (VERB, AUX) and last.cform.startswith(text_of("final_form")) and not any(
        (w.pos == AUX and w.lemma in (text_of("past"), *texts_of("negating_aux"),
                                      *texts_of("state_aux")))
        or (w.pos == PARTICLE and w.lemma not in texts_of("means_inner_particles"))
        or (w.pos == vocab.pos("adjective") and not (
            w.cform.startswith(text_of("continuative_form")) and k + 2 < len(rest)
            and rest[k + 2].pos == VERB and rest[k + 2].lemma in texts_of("going_verbs")))
        for k, w in enumerate(rest[1:]))


def _done_then(c: Clause) -> bool:
    """The act in the て form, then what the speaker does or hopes after it, in the present
    and polite (コールしておいて次の2枚に期待します): the one action word leads the clause."""
    said, spans = _action_spans(c)
    if len(spans) != 1 or spans[0].start() != 0 or not c.self_polite:
        return False
    rest = _words_after(c, said, spans[0].end())
    k = 0
    if k < len(rest) and rest[k].pos == VERB and rest[k].lemma in texts_of("doing"):
        k += 1  # (コール し て)
    if k >= len(rest) or rest[k].pos != PARTICLE or rest[k].lemma not in texts_of("request"):
        return False
    tail = rest[k + 1:]
    return bool(tail) and tail[-1].pos == AUX and tail[-1].lemma == text_of("polite") and \
        tail[-1].cform.startswith(text_of("final_form")) and not any(
            w.pos == AUX and w.lemma in (text_of("past"), *texts_of("negating_aux"))
            for w in tail)


def _ends_in_action(c: Clause) -> bool:
    """Whether the clause's predicate is its last action word said as a decision: after it
    (and its figure) only the declaring で, a verb of doing and the polite ます, in the present
    (アンティ200で, 降ります, ポットベットいきます; not 降りてる, しません, にしよ, 降りた)."""
    said, spans = _action_spans(c)
    if not spans:
        return False
    end = spans[-1].end()
    at = [w for w in said if spans[-1].start() <= w.start - c.start < end]
    if at and at[0].lemma in texts_of("homophone_lemmas"):
        return False  # (ここにおりますわ: 居る, not 降りる)
    before = [w for w in said if w.start - c.start < spans[-1].start()]
    if before and _modifies(before[-1]):
        return False  # (ディーラーとの勝負, 熱いポットだ: a noun phrase, not a decision)
    rest = [w for w in _words_after(c, said, end) if w.lemma != text_of("times")]
    if rest and rest[0].lemma in texts_of("declaring_de"):
        rest = rest[1:]
    if rest and rest[0].pos == VERB and rest[0].lemma in texts_of("doing_verbs"):
        rest = rest[1:]
    if rest and rest[0].pos == AUX and rest[0].lemma == text_of("polite") and \
            rest[0].cform.startswith(text_of("final_form")):
        rest = rest[1:]
    if rest and rest[-1].pos == PARTICLE and rest[-1].lemma in texts_of("declaring_finals"):
        rest = rest[:-1]  # (コール、頼むぞ)
    return not rest


def _blocked_otherwise(clauses: list[Clause]) -> bool:
    """Whether a clause is blocked for something else than an action word (a name, an
    address): no story, and no decision beside it can be read."""
    return any(c.kind == "blocking" and not c.hand_named and not _reason_given(c)
               and not action_words(c.folded, with_cards=False) for c in clauses)


def _reason_given(c: Clause) -> bool:
    """A clause that ends in a conjunction of reason and names nobody (800なら安いし, 残り
    600だから): a reason for the decision that follows, whatever words it holds."""
    return c.ends_reason and not _said_to_someone([c])


def _declines_side_bet(c: Clause) -> bool:
    """A clause that only says no to the side bet (AAは無しで): an ante with no figure."""
    p = c.parsed
    return c.kind == "action" and p is not None and p.action == "ante" and p.amount is None \
        and p.aa is None


def _decided_once(kept: list[Clause], coarse: _Pass) -> list[Clause] | None:
    """By sentences :func:`_decided_first`, by clauses :func:`_decided_then_told`: each needs
    an action among ``kept``, so without one the reading is not asked which it is."""
    if not any(c.kind == "action" for c in kept):
        return None
    return _decided_first(kept) if coarse else _decided_then_told(kept)


def _decided_first(kept: list[Clause]) -> list[Clause] | None:
    """A message that decides and then explains (read by sentences): 「2回目はコールで。エクスト
    ラはまた今度、勇気が出たときにね」 -- the first sentence naming an action is the speaker's
    plain action, and every later one that names an action only talks about it. None when a
    later sentence acts, declines or remarks, or the first is no plain action."""
    named = [i for i, c in enumerate(kept) if c.kind in _NAMING]
    if not named or kept[named[0]].kind != "action" or any(
            kept[i].kind != "blocking" and not _declines_other(kept[i], kept[named[0]])
            for i in named[1:]):
        return None
    if any(c.kind in ("vocative", "supposing") for c in kept):
        return None
    after = kept[named[0] + 1:]
    if not _plain(kept[named[0]]) or _said_to_someone(kept[named[0]:]) or any(
            _holds_back(c) for c in after):
        return None
    return kept[:named[0] + 1]


def _decided_then_told(kept: list[Clause]) -> list[Clause] | None:
    """A decision, after a story or none, and later clauses that only talk about actions
    (「C。NPCが初手フォールドしてて草」, 「今回は降ります、戻ったらまたアンティから…」): the
    decision, with what comes before it weighed as :func:`_decided_after` weighs a story. None
    when a later clause acts, declines or holds back, or is said to someone."""
    acts = _restated_once([i for i, c in enumerate(kept) if c.kind == "action"], kept)
    if len(acts) != 1 or acts[0] + 1 >= len(kept):
        return None
    after = kept[acts[0] + 1:]
    # (…1回目はコールしておきます、レイズはしない: saying no to another action explains it)
    if any(c.kind in _NAMING and c.kind != "blocking" and not _declines_other(c, kept[acts[0]])
           for c in after) or any(
            _holds_back(c) or (c.musing and c.kind in _NAMING) for c in after) or \
            _said_to_someone(after):
        return None
    # (each later clause naming an action only talks about it: 戻ったらまたアンティから…, a
    # condition; …オールイン、半分がアンティになるんだよね, the rules) -- but a Latin word cut
    # off the sentence it runs into is no decision of its own (Fold equityないんだよな)
    decision = kept[acts[0]]
    if decision.text.strip().isascii() and not decision.mark.strip() and \
            after[0].kind == "blocking":
        return None
    if _listed(decision, after):
        return None
    if _done_already(kept[acts[0] + 1:]):
        return None  # (…アンティだけでいいや。まあ今回はもう置いちゃったけど)
    # (a lone letter ending its sentence is the short form: 無理、F。, not a face's hand)
    return _decided_after(kept[:acts[0] + 1], letter=True)


def _restated_once(acts: list[int], kept: list[Clause]) -> list[int]:
    """One decision said more than once, in two languages or two words (OK I call. コールしま
    す / 俺はraise、レイズ / ここは迷わず勝負。…。コールで勝負ね), or first without its figure
    (打つ。ベット1.5k): the last saying with the figure, else the last, stands for all. Other
    lists are returned as they are."""
    if len(acts) < 2:
        return acts
    said = [p for p in (kept[i].parsed for i in acts) if p is not None]
    if len(said) < len(acts) or len({_bare(p) for p in said}) != 1:
        return acts
    figured = [(i, p) for i, p in zip(acts, said, strict=True)
               if p.amount is not None or p.to is not None or p.pot]
    if len({_bare(p, figure=True) for _, p in figured}) > 1:
        return acts
    return [figured[-1][0] if figured else acts[-1]]


def _bare(p: Parsed, figure: bool = False) -> str:
    """An action without its flags and, unless ``figure``, its figure (what two sayings of one
    decision share)."""
    drop: dict[str, object] = {"hand_info": False, "advice": False}
    if not figure:
        drop.update(amount=None, to=None, pot=False)
    return p.model_copy(update=drop).model_dump_json()


def _listed(decision: Clause, after: list[Clause]) -> bool:
    """A bare action word that a comma joins to what follows in its sentence, where an action is
    talked about (アンティ、1回目、2回目、捨て札の順に説明しながら打つので): one item of a list,
    not a decision."""
    said = decision.said()
    if len(said) != 1 or not any(ch in decision.mark for ch in text_of("list_commas")) or \
            not after or after[0].kind != "chat":
        return False
    return any(c.kind == "blocking" for c in _rest_of_sentence(after))


def _an_item(decision: Clause, clauses: list[Clause]) -> bool:
    """An action word that is one step of a sequence told (アンティ置く→フロップ見る→降りる) or
    one item of a list of actions (プリフロからポット、ポット、オールインって流れ): a comma or an
    arrow after it, and before it a clause that ends in an action word and a comma or arrow."""
    at = clauses.index(decision)
    arrows, commas = text_of("arrows"), text_of("list_commas")
    if any(ch in decision.mark for ch in arrows):
        return True
    prev = clauses[at - 1] if at else None
    if prev is None or decision.after_stop or len(
            [w for w in decision.said() if w.pos2 != NUMERAL]) != 1 or not any(
            ch in decision.mark for ch in commas):
        return False
    said = prev.said()
    return bool(said) and any(ch in prev.mark for ch in commas + arrows) and bool(
        action_words(fold_nfkc(said[-1].surface), with_cards=False))


def _rest_of_sentence(after: list[Clause]) -> list[Clause]:
    """The clauses of ``after`` up to the end of the sentence they continue."""
    return list(itertools.takewhile(lambda c: not c.after_stop, after))


def _declines_other(c: Clause, decision: Clause) -> bool:
    """A later sentence that says no to another action than the decision (「こ。今回は降りん」:
    the call, and not the fold) explains it; one that says no to the decision takes it back."""
    return c.kind == "declined" and decision.parsed is not None and bool(c.declines) and \
        decision.parsed.action not in c.declines


def _refers_back(c: Clause) -> bool:
    """An action clause whose verb takes its object from what was said before it (やめとく):
    after a wish for another action, it lets that action go."""
    return c.kind == "action" and any(w in fold_nfkc(c.folded) for w in texts_of("refers_back"))


def _plain(decision: Clause, letter: bool = False) -> bool:
    """Whether an action clause can stand as the decision beside a story: not a lone letter
    (( ´∀｀)b) unless ``letter``, not a verb whose object is in the story (今回はやめとく), not
    a clause that opens with another hand's time or tells a habit (ずっとコールしてる), unless to
    do the same (前回と同じくレイズ, いつも通り100アンティで), nor a resolution for the evening
    (今日こそはちゃんとコールする)."""
    said = fold_nfkc(decision.folded).strip()
    # (a one-kana short form is one: こ; a lone letter may be a face's hand: ( ´∀｀)b)
    short = said in short_forms() and (letter or not said.isascii())
    return (len(said) >= 2 or short) and not any(w in said for w in texts_of("refers_back")) \
        and not ((said.startswith(texts_of("past_times")) or any(
            w in said for w in texts_of("habit_words"))) and not any(
            w in said for w in texts_of("likewise"))) \
        and not any(w in said for w in texts_of("resolutions")) \
        and not (decision.parsed is not None and style_of_the_day(
            decision.parsed.action, said))  # (前回は降りて後悔, ずっとコール)


def _done_already(after: list[Clause]) -> bool:
    """A clause after the decision that says the stake is already placed: the decision was a
    story of it."""
    return any(placed_already(c.folded, c.said()) for c in after)


def _said_to_someone(clauses: list[Clause]) -> bool:
    """Whether one of ``clauses`` opens with a second-person word (おめ、おりんな; don't …)."""
    you = texts_of("second_person")
    return any(_opens_with(fold_nfkc(c.folded).strip(), you) for c in clauses)


def _opens_with(text: str, words: tuple[str, ...]) -> bool:
    """Whether ``text`` starts with one of ``words`` as a word of its own (not おめでとう)."""
    return any(text.startswith(w) and (len(text) == len(w) or not text[len(w)].isalpha())
               for w in words)


def _classify(c: Clause, game: str, grammar: GrammarReader,
              hands: tuple[tuple[str, re.Pattern[str]], ...]) -> None:
    """What one clause is on its own: an action (its reading in ``c.parsed``), a correction,
    cards or an amount, a declined action, an action word about something else (blocking),
    a remark on an action (echo), a name, or chat."""
    v = vocabulary()
    # (the polite ending of one's own act, whichever reader reads the clause: ボブ、降ります)
    c.self_polite = any(w.lemma == text_of("polite") for w in c.words)
    if c.correction and not v.surface.search(c.folded) and not cards_in(c.folded) and \
            not c.ends_reason:  # (…捨てる札間違えてツーペアにしちゃったので: a story's reason)
        c.kind = "correction"
        return
    topic = _ends_topic(c)
    got = None if c.question or topic else grammar(c.text)
    if c.question:  # (みんな降りたん？ほな全部見せたるわ: the others' folds asked about)
        _note(c, frame(c, game, hands))
    if got is None and not c.question:
        f = frame(c, game, hands)
        _note(c, f)
        kinds = {n for _, n in f.actions}
        c.hand_named = f.hand is not None
        if kinds - {"all"} or f.hand or (f.up_to and traits(game).makes_by_amount):
            c.kind = _action_kind(f, kinds, game)
            c.pointed = c.kind == "blocking" and f.pointer and not (f.vetoed or f.content)
            if c.kind == "blocking" and _own_manner(c, f):
                c.kind = "action"  # 自分はもう一歩踏み込んでレイズ: how, then one's own act
            if c.kind == "declined":
                c.declines = frozenset(kinds)
            if c.kind == "action":
                got = build_action(f, game)
                if got is None:
                    c.kind = _unbuilt_kind(f, kinds, game)
                    if c.kind == "blocking" and len(f.needs_amount) == 1:
                        # ターンはこっちから打つ。ベット1.5k: the verb that needs its figure
                        # agrees with the same action said with one, and is talk otherwise
                        c.kind = "echo"
                        c.parsed = Parsed(kind="action", action=next(iter(f.needs_amount)))
            elif c.kind == "echo":
                c.parsed = build_action(f, game)
                c.kind = "echo" if c.parsed is not None else "blocking"
        elif (f.cards or f.amounts) and (not f.vetoed or f.remark_only) and not f.content:
            c.kind = "cards"  # 「、スペードのエース」 after 「エースだけ残します」
            got = _cards_said(c, grammar) if c.last and c.start == 0 else None
        elif not (f.vetoed or f.content or f.cards or f.amounts or f.hand) and _takes_that(c):
            c.commits = True  # 「…ですね、それで」: "with that", taking what was remarked on
    if got is not None and topic:
        got, c.kind = None, "blocking"  # メイクと申しますのは、…: the action as a topic
    if _not_chosen(c, got, game, hands):
        return
    if got is not None and got.action == "ante" and got.amount is None and got.aa is None and \
            any(w in c.folded for w in texts_of("vague_sizes")):
        got, c.kind = None, "blocking"  # 今日もアンティ控えめで: a way of playing, no figure
    if got is not None:
        _read_as_action(c, got)
    elif c.kind == "chat" and c.quoted:
        pass  # someone else's words quoted (『マックしとけ』って言ってた人): neither act nor veto
    elif c.kind == "chat" and action_words(c.folded, with_cards=bool(cards_in(c.folded))):
        c.kind = "blocking"  # an action word in a clause about something else
    elif c.kind == "chat" and amount_pattern().fullmatch(c.folded.strip()):
        c.kind = "cards"  # 「八百、コールいたします」: read as one sentence
    elif c.kind == "chat" and fold_nfkc(c.folded).strip() in texts_of("own_turn"):
        pass  # (卓、フォールド: the table, or the speaker, named before their own act)
    elif c.kind == "chat" and names_someone(c):
        c.kind = "vocative"  # 「ジェーン、just call」: said to someone, unless …
    elif c.kind == "chat" and supposes(c):
        c.kind = "supposing"  # 私なら、コール (not ポットじゃ！なめたらいけんで)


def _read_as_action(c: Clause, got: Parsed) -> None:
    """A clause that reads as an action: the act, unless conceded or given as a reason."""
    c.kind, c.parsed = "action", got
    if c.told_concession and got.hand is not None and not action_words(
            c.folded, with_cards=False):
        c.kind, c.parsed = "chat", None  # ワンペアだけど、…: the hand conceded, no act
    elif c.told_concession:
        c.kind = "declined"  # フラッシュなんだけどな, コールしたいけど: said, not done
    elif c.hand_named and got.hand is not None and c.ends_reason:
        c.kind = "blocking"  # 私はフルハウスだから…: the hand given as a reason


def _not_chosen(c: Clause, got: Parsed | None, game: str,
                hands: tuple[tuple[str, re.Pattern[str]], ...]) -> bool:
    """「コールしてターンで悩むくらいなら、…」: the action of a clause that ends in "rather
    than" is the alternative not chosen (declined)."""
    if not c.rather or (got is None and c.kind not in _NAMING):
        return False
    c.kind, c.parsed = "declined", None
    c.declines = frozenset(n for _, n in frame(c, game, hands).actions)
    return True


def _cards_said(c: Clause, grammar: GrammarReader) -> Parsed | None:
    """A message that is only cards and a final particle (「4h 8c ね」): what the game's
    grammar makes of the cards alone."""
    spans = [(s, e) for s, e, _ in cards_in(c.folded)]
    for w in c.words:
        at = w.start - c.start
        if any(s <= at < e for s, e in spans) or w.pos in (SYMBOL, BLANK):
            continue
        if w.pos != PARTICLE or (w.pos2 != FINAL and w.lemma not in texts_of("declaring_end")):
            return None
    return grammar(" ".join(c.text[s:e] for s, e in spans))


def _holds_back(c: Clause) -> bool:
    """A clause after the action that takes the commitment out of it: asking to wait, or
    wondering what to do (not someone's words quoted: 『何持ってたの？』って聞かれたから)."""
    if c.kind != "chat" or c.quoted:
        return False
    ws = c.words
    said = c.said()
    asks = c.question or (said and said[-1].pos == PARTICLE
                          and said[-1].lemma in texts_of("asking_end"))
    if asks and any(w.lemma in texts_of("asking_words") or w.surface in texts_of(
            "asking_words") for w in said):
        return True  # ポット いま いくら ですか: what is asked after the word, not a decision
    waits = any(w.lemma in texts_of("wait") and not (  # (not お待たせ: "sorry to keep you")
        i + 1 < len(ws) and ws[i + 1].lemma in texts_of("leave")) for i, w in enumerate(ws))
    if waits and action_words(c.folded, with_cards=False):
        return False  # (誰か打ってくるの待ちます: waiting for someone else's action, a plan)
    return waits or fold_nfkc(c.folded.strip()).startswith(tuple(texts_of("deliberation")))


def _taken_out(decision: Clause, kept: list[Clause], clauses: list[Clause]) -> bool:
    """What the rest of the message says takes the commitment out of the last action: waiting
    or wondering after it (捨てねぇ、まだ待ってけろ), the hand talked about (恭喜恭喜 big
    house), a seat asked for first (席空いてたら座りたいです…アンティは100からで), a surprise
    (哇，全下了！)."""
    later = kept[kept.index(decision) + 1:]
    # (セブンストレートで！前回…外れたの、誰か覚えてる？: a later sentence asking the others
    # about something else, which names no action, leaves the decision as it was)
    done = any(ch in decision.mark for ch in text_of("full_stops"))
    if any((_holds_back(c) and not (done and c.question and not action_words(
            c.folded, with_cards=False))) or _regrets(c) or _weighs(c) for c in later):
        return True
    seat = any(c is not decision and any(w in fold_nfkc(c.folded) for w in texts_of(
        "seat_requests")) for c in clauses)
    return seat or _hand_talked_about(decision, clauses) or _reacts(decision, clauses)


def _weighs(c: Clause) -> bool:
    """A clause after the decision that weighs two other actions (エクストラするかコールするか
    迷う): the choice is still open -- unless it is for later (…はフロップ見てから決めます)."""
    named = set(action_words(c.folded, with_cards=False))
    said = c.said()
    if c.kind not in _NAMING or len(named) < 2 or _of_another_time(c) or any(
            w in c.folded for w in texts_of("after_words")) or any(
            (w.pos == PARTICLE and w.lemma in texts_of("conditional")) or (
                w.pos in (VERB, AUX) and w.cform.startswith(text_of("conditional_form")))
            for w in said):
        return False  # (…打ってきたらその時にコールかレイズか考える: a plan for later)
    # (two alternatives asked: XするかYするか; not one wondering, 倍にしてみようかな)
    return sum(w.pos == PARTICLE and w.lemma in texts_of("asking_end") and k > 0 and
               said[k - 1].pos in (VERB, AUX) for k, w in enumerate(said)) >= 2


def _cheer_or_invite(c: Clause) -> bool:
    """A clause said around the speaker's own decision that advises no one: the contest
    cheered (勝負勝負) or the others invited by what they may do (降りる人は降りてね)."""
    if c.kind == "chat" and _of_people(c):
        return True
    found = list(vocabulary().surface.finditer(c.folded))
    rest = vocabulary().surface.sub("", c.folded).strip(vocab.marks("separators") + " ")
    return len(found) > 1 and not rest and all(
        fold_nfkc(m.group()) in texts_of("contest_words") for m in found)


def _of_people(c: Clause) -> bool:
    """An action word that only says which people (降りたい人はどうぞ, コールする人は勇者): the
    action word, perhaps a wish or ending, then a noun of people."""
    said = c.said()
    people = texts_of("people_nouns")
    return any(w.lemma in people and w.pos == NOUN and k > 0 and said[k - 1].pos in (AUX, VERB)
               for k, w in enumerate(said))


def _only_way(c: Clause, before: list[Clause], grammar: GrammarReader) -> None:
    """The one way left, after the speaker's reasons or a concession in the same sentence
    (アンティ100も置けないから、もうオールインしかないでしょ; …覚えてるけど、この5枚ならやっぱり
    ERしかないでしょ): the speaker's own decision, read from its action word."""
    if c.kind != "blocking" or not before or c.after_stop or c.question:
        return
    b = before[-1]
    if not (b.ends_reason or b.ends_concessive) or any(
            ch in b.mark for ch in vocab.marks("sentence_stops")):
        return
    said = c.said()
    spans = list(vocabulary().surface.finditer(c.folded))
    if not spans:
        return
    at = next((k for k, w in enumerate(said) if w.start - c.start >= spans[-1].end()),
              None)  # (the first word after the action word, which may be two: オール イン)
    if at is None or len(said) < at + 2 or said[at].surface != text_of("head_only") or \
            said[at + 1].lemma not in texts_of("head_only_none"):
        return
    tail = "".join(w.surface for w in said[at + 2:])
    if tail and tail not in texts_of("head_only_guess"):
        return  # (オールインしかないと思う: thought, not said as done)
    got = grammar(c.text[spans[-1].start():spans[-1].end()])
    if got is not None and got.kind == "action":
        c.kind, c.parsed, c.strict, c.only_way = "action", got, False, True


def _vague_agrees(clauses: list[Clause]) -> None:
    """What says the decision again in fewer words: only the contest (これで勝負します) after
    the speaker's action; an ante with no figure after an all-in (…今回はアンティに全部回す: the
    all-in's ante) or a fold (フォールドで。アンティだけで済ます: what the fold costs); the pot
    alone beside a pot bet (ポットベット。…きっちりポットで); a raise verb with no figure after
    an ante (アンティ200にします。…少しだけ上げる: the ante raised). No second decision."""
    acts = [c for c in clauses if c.kind in ("action", "echo") and c.parsed is not None]
    pot_bet = any(c.parsed is not None and c.parsed.pot and c.parsed.action == "bet"
                  for c in acts)
    acted: list[Parsed] = []
    corrected = any(c.kind == "correction" or c.correction for c in clauses)
    for c in acts:
        p = c.parsed
        assert p is not None
        found = list(vocabulary().surface.finditer(c.folded))
        names = [SURFACE_NAMES[m.lastgroup or ""] for m in found]
        surfaces = [fold_nfkc(m.group()) for m in found]
        contest = bool(surfaces) and all(w in texts_of("contest_words") for w in surfaces)
        bare = p.amount is None and p.aa is None and p.to is None
        if c.kind == "echo":
            if bare and not corrected and any(x.action == p.action and (x.amount or x.to or x.pot)
                                              for x in acted):
                c.kind, c.parsed = "chat", None  # (ポットベットで。…先に打っとく)
            continue
        if (contest and any(x.action not in ("fold", "muck") for x in acted)) or (
                p.action == "ante" and bare and
                any(x.action in ("allin", "fold") for x in acted)) or (
                bool(names) and all(n == "pot" for n in names) and p.pot and pot_bet
                and p.action != "bet") or (
                p.action == "raise" and bare and not p.pot and
                any(w in c.folded for w in texts_of("needs_amount")) and
                any(x.action == "ante" for x in acted)) or (
                bare and not p.pot and not p.cards and not p.hand and not corrected and any(
                    x.action == p.action and (x.amount or x.to or x.pot or x.cards)
                    for x in acted)):  # (ポットベットで。…先に打っとく: the same bet)
            c.kind, c.parsed = "chat", None
            continue
        acted.append(p)


def _not_taken_now(c: Clause, before: list[Clause], after: list[Clause]) -> bool:
    """What makes an action clause no act of the speaker's now, in the words around it: told,
    someone else's, a topic, a state, a past choice, a plan, a tally, a quotation, a rule."""
    return (_narrated(c, after) or _others_act(c) or _topic_of_next(c, after) or
            _state_given(c) or _past_choice(c, before) or _planned(c, before) or
            _times_done(c) or _quoted_by_next(after, c) or _multiplied(c) or
            _gives_up_hand(c, before) or _otherwise(c, before) or
            _nominalised_topic(c, after) or _later(c) or _bracketed(c, before) or
            _said_of_things(c) or _opens_later(c))


def _said_of_things(c: Clause) -> bool:
    """An action word said of two things listed with も (仕事も恋愛もオールイン): a word for
    how one lives, not a move."""
    m = vocabulary().surface.search(c.folded)
    if m is None:
        return False
    said = [w for w in c.said() if w.start - c.start < m.start()]
    listed = sum(1 for a, b in itertools.pairwise(said) if a.pos == NOUN and b.pos == PARTICLE
                 and b.lemma == text_of("also"))
    return listed >= 2


def _bracketed(c: Clause, before: list[Clause]) -> bool:
    """An action word alone in corner brackets after other words (降りるなら「フォールド」,
    全部残すなら「そのまま」): the word to write, quoted, not written as one's own."""
    open_, close = texts_of("quote_brackets")
    return bool(before) and before[-1].mark.rstrip().endswith(open_) and \
        c.mark.lstrip().startswith(close)


def _later(c: Clause) -> bool:
    """An action said of a later time as its topic (次は勝負します, 明日こそレイズ): a plan
    (今度は is also "this time", against the last one)."""
    said = fold_nfkc(c.folded).lstrip()
    if re.match(text_of("belief_before"), said):
        return False  # (次は自分の番と信じてアンティ200: what is believed, the act is now)
    return any(said.startswith(w) and said[len(w):].startswith(texts_of("later_topics"))
               for w in texts_of("later_topic_openers"))


def _nominalised_topic(c: Clause, after: list[Clause]) -> bool:
    """An action made a noun by の before a comma, that the rest of its sentence talks about
    (ハイパーで2回分まとめて入れるの、いつか自分もやってみたいな): the act as a topic."""
    said = c.said()
    return bool(said) and said[-1].pos == PARTICLE and \
        said[-1].pos2 == vocab.pos("nominalising_particle") and bool(after) and \
        not after[0].after_stop and not any(ch in c.mark for ch in vocab.marks("sentence_stops"))


def _otherwise(c: Clause, before: list[Clause]) -> bool:
    """A betting action opened by "otherwise" (それ以外はコール) after a clause under a
    condition (Aハイなければフォールドで): the other branch of a rule, told. (With cards, それ
    以外は捨てる is a throw of the cards not named.)"""
    p = c.parsed
    return p is not None and p.action not in ("discard", "play") and bool(before) and \
        before[-1].strict and fold_nfkc(c.folded).lstrip().startswith(texts_of("otherwise"))


def _gives_up_hand(c: Clause, before: list[Clause]) -> bool:
    """A fold said by giving up (諦め) right after a clause of the same sentence that names a
    hand (セブンストレートは1枚足りなかったので諦め): the hand is what is given up."""
    p = c.parsed
    if p is None or p.action != "fold" or not before or c.after_stop or \
            not any(w.lemma in texts_of("give_up_lemmas") for w in c.words):
        return False
    b = before[-1]  # (the hand as the topic: not ブタなので諦めます, a fold for a poor hand)
    return b.hand_named and any(w.pos == PARTICLE and w.lemma in texts_of("topic")
                                for w in b.words) and not any(
        ch in b.mark for ch in vocab.marks("sentence_stops"))


def _rest_agrees(clauses: list[Clause], game: str) -> None:
    """「3sと8dを捨てます。残りは全部キープして勝負します」: after a deuces play that names its
    cards, "the rest" kept (or thrown) whole says the same play from the other side; it
    agrees and is no second decision. In seven, the hand "the rest" makes after two cards
    thrown (捨て札は4sと9h、残り5枚でストレート) is what the throw makes, no declaration."""
    if traits(game).draw == "discards":
        thrown = False
        for c in clauses:
            p = c.parsed
            rest = fold_nfkc(c.folded).lstrip().startswith(texts_of("rest_openers"))
            if thrown and rest and c.kind in _NAMING and (c.hand_named or (
                    p is not None and p.hand is not None)):
                c.kind, c.parsed = "chat", None
            thrown = thrown or (c.kind == "action" and p is not None and p.action == "discard"
                                and bool(p.cards))
        return
    if traits(game).draw != "play":
        return
    named: Parsed | None = None
    for i, c in enumerate(clauses):
        p = c.parsed
        if c.kind != "action" or p is None or p.action != "play":
            continue
        rest = fold_nfkc(c.folded).lstrip().startswith(texts_of("rest_openers"))
        # (Kd Kc 残して勝負、残りの3枚は全部チェンジで: the cards in clauses of their own)
        cards = any(x.kind == "cards" for x in clauses[:i]) and named is None
        if rest and (cards or (named is not None and (
                (p.discard == [] and named.discard) or (p.keep == [] and named.keep)))):
            c.kind, c.parsed = "chat", None
        elif p.keep or p.discard:
            named = p


def _fold_then_shown(clauses: list[Clause], game: str,
                     hands: tuple[tuple[str, re.Pattern[str]], ...]) -> None:
    """A fold said, then the cards it shows (ここは降ります。A♦だけ見せます; マック。…疑われたこと
    あるから1枚だけ見せとく、K♥): one decision, the fold with those cards, whatever reasons
    come between."""
    for i, a in enumerate(clauses):
        pa = a.parsed
        if a.kind != "action" or pa is None or pa.action not in ("fold", "muck") or pa.cards:
            continue
        later = clauses[i + 1:]
        # (降ります。フォールドして、Ksだけ見せときます: the fold said twice)
        # (降ります。前に何も見せずに降りたら…いじられたので、Kdだけ見せときます: the story
        # between names actions of another time)
        b = next((c for k, c in enumerate(later) if (c.kind in _NAMING and not (
            c.kind == "action" and c.parsed is not None and c.parsed.action == pa.action
            and not c.parsed.cards) and not (c.kind == "blocking" and c.strict and
                                             _of_another_time(c))) or (
            c.kind == "chat" and not c.strict and
                                         _shown_with_reason(c, game, hands))
            or _shows_next(c, later[k + 1:], game, hands)), None)
        if b is None or b.question:
            continue
        if b.kind == "chat" and _shows_next(b, later[later.index(b) + 1:], game, hands):
            shown = None  # (Aだけ見せとくね、A♠: the cards in the clause after)
        elif b.kind in ("blocking", "chat") and not b.strict:
            shown = _shown_with_reason(b, game, hands)  # (証拠に A♠だけ見せときます)
        elif b.kind == "action" and b.parsed is not None and b.parsed.action == "open":
            shown = b.parsed.cards
        else:
            continue
        after = later[later.index(b) + 1:]
        if not shown and after and after[0].kind == "cards":
            shown = [card for _, _, cards in cards_in(after[0].folded) for card in cards]
            if shown:
                after[0].kind = "agrees"
        if shown:
            for c in clauses[i:clauses.index(b)]:  # (the fold said twice: each shows them)
                if c.kind == "action" and c.parsed is not None and c.parsed.action == pa.action:
                    c.parsed = c.parsed.model_copy(update={"cards": list(shown),
                                                           "hand_info": True})
            b.kind = "agrees"


def _shows_next(c: Clause, after: list[Clause], game: str,
                hands: tuple[tuple[str, re.Pattern[str]], ...]) -> bool:
    """A clause of chat whose one action word is showing, with no card of its own and not in
    the past, followed by a clause of cards (1枚だけ見せときますね、A♦): those are shown."""
    if c.kind != "chat" or c.question or not after or after[0].kind != "cards":
        return False
    f = frame(c, game, hands)
    past = any(w.pos == AUX and w.lemma == text_of("past") for w in c.said())
    return {a for _, a in f.actions} == {"open"} and not f.cards and not past


def _shown_with_reason(c: Clause, game: str,
                       hands: tuple[tuple[str, re.Pattern[str]], ...]) -> list[str] | None:
    """The cards a clause shows when only its other words (a reason, a manner: 証拠に) kept it
    from being an action: showing is its one action word."""
    f = frame(c, game, hands)
    if {a for _, a in f.actions} != {"open"} or not f.cards:
        return None
    return [card for _, cards in f.cards for card in cards]


def _regrets(c: Clause) -> bool:
    """A clause that wishes it had been done (haipa- osetebayokatta: ハイパー押せばよかった):
    the action before it is the one not taken."""
    said = fold_nfkc(c.folded).rstrip(vocab.marks("trailing") + " ")
    return c.kind == "chat" and said.endswith(texts_of("regret_endings"))


def _hand_talked_about(decision: Clause, clauses: list[Clause]) -> bool:
    """A hand's name declared beside praise (恭喜恭喜 big house, seven flush ナイス) or a
    question (七順幾倍？セブンストレート): the hand is someone else's, or the one asked about."""
    said = decision.said()
    if decision.parsed is None or decision.parsed.hand is None or not said or \
            said[-1].pos in (PARTICLE, AUX):
        return False  # (セブンフラッシュですよね？…宣言します、セブンフラッシュで: declared)
    others = [c for c in clauses if c is not decision]
    return any(_praises(c) for c in others) or any(c.question and c.kind == "chat"
                                                   for c in others)


def _reacts(decision: Clause, clauses: list[Clause]) -> bool:
    """An action word right after an exclamation of surprise (哇，全下了！, うわ、オールイン！):
    a reaction to someone else's move."""
    k = clauses.index(decision)
    if k == 0:
        return False
    before = fold_nfkc(clauses[k - 1].folded).strip()
    return clauses[k - 1].kind == "chat" and before in texts_of("surprise")


def _praises(c: Clause) -> bool:
    """A clause that praises or congratulates (ナイス, 恭喜, 축하합니다). (Beside an action it is
    for the others' play: マックします。ナイスハンドでした.)"""
    folded = fold_nfkc(c.folded)
    return c.kind == "chat" and any(w in folded for w in texts_of("praise"))


def _takes_that(c: Clause) -> bool:
    """A clause that opens with "that" and the particle of a declaration (それで, これで
    お願いします)."""
    ws = c.said()
    return len(ws) >= 2 and ws[0].lemma in texts_of("these") and ws[1].pos == PARTICLE and \
        ws[1].lemma in texts_of("declaring_end")


def _note(c: Clause, f: Frame) -> None:
    """What the frame tells about the clause that later steps weigh against the others."""
    c.musing = f.musing
    c.strict = f.vetoed and f.strict
    # 「みんな降りたんかいな」: the others' folds told (past or asked), not one's own
    others = any(w.lemma in texts_of("others") or w.surface in texts_of("others")
                 for w in c.words)
    kinds = {n for _, n in f.actions}
    c.others_folded = others and kinds == {"fold"} and (
        c.question or any(w.lemma == text_of("past") for w in c.words))
    # 「みんなチェックなので、ポットベット」: the others' action as the reason for one's own
    c.others_reason = others and len(kinds) == 1 and any(
        c.folded.rstrip().endswith(r) for r in texts_of("reason_endings"))
    if f.hand and not f.actions and f.made:
        c.made_hand = f.hand


def _own_manner(c: Clause, f: Frame) -> bool:
    """A clause that ends in its action words (and their figures), with words of manner before
    them: opened by the speaker or this hand (自分はもう一歩踏み込んでレイズ, 今回は最初からハイパー
    で), or told in the て form or with ずに right before them (この流れに乗ってアンティ400,
    懲りずにアンティ300とAA100で): the speaker's own act, how it is done told first. Not when
    anything vetoes or supposes, nor negates but the ず of the manner."""
    if f.vetoed or not f.content or not f.actions:
        return False
    first = min(p for p, _ in f.actions)
    said = c.said()
    at = next((k for k, w in enumerate(said) if w.start - c.start <= first <
               w.start - c.start + len(w.surface)), None)
    if at is None:
        return False
    opened = fold_nfkc(c.folded).lstrip()
    adverbial = _adverbial_before(said, at) or (bool(f.amounts) and _manner_noun(said, at))
    if f.negated and not (adverbial and said[at - 1].lemma in (text_of("zu_ni"), text_of("zu"))) \
            and not _manner_negated(said, at):
        return False
    if not adverbial and not opened.startswith(texts_of("own_turn") + texts_of("this_time")) \
            and not _declared_at_end(said, at, f):
        return False
    # (after the first action word, only more of the act and a declaration's endings: not
    # 勝負派, 俺はほぼ毎回勝負派)
    acting = {p for p, _ in f.actions}
    joiners, around = texts_of("list_joiners"), vocabulary().around_words
    return all(w.pos in (PARTICLE, AUX) or w.pos2 == NUMERAL or w.start - c.start in acting
               or fold_nfkc(w.surface) in around or fold_nfkc(w.surface) in joiners
               or w.lemma in texts_of("doing") for w in said[at + 1:])


def _manner_negated(said: list[Word], at: int) -> bool:
    """The only negation is a ず before the action word (懲りずに今回もHRで): the manner's, not
    the act's."""
    declined, zu = vocabulary().declined, text_of("zu")
    negations = [k for k, w in enumerate(said) if w.pos == AUX and w.lemma in declined]
    return bool(negations) and all(k < at and said[k].lemma == zu for k in negations)


def _manner_noun(said: list[Word], at: int) -> bool:
    """A common noun and で or に right before the action word (験担ぎでアンティ200, 挨拶代わりに
    アンティ500): why or how the figure is staked, not who stakes it (a name is no manner)."""
    if at < 2:
        return False
    prev, prev2 = said[at - 1], said[at - 2]
    return prev.pos == PARTICLE and prev.lemma in texts_of("manner_cases") and \
        prev2.pos == NOUN and prev2.pos2 != vocab.pos("proper_noun") and \
        prev2.lemma not in texts_of("name_suffixes")


def _declared_at_end(said: list[Word], at: int, f: Frame) -> bool:
    """The clause ends with its one action word and an ending that declares it (…アンティ200で,
    …コールします), and names no one: the manner before it is the speaker's own. (A name or a
    person there may be the one acting: bobさんはコールで.)"""
    if len({n for _, n in f.actions}) != 1 or at + 1 >= len(said):
        return False
    ending = said[-1]
    declares = (ending.pos == PARTICLE and ending.lemma in texts_of("declaring_end")) or (
        ending.pos == AUX and ending.lemma == text_of("polite"))
    proper = vocab.pos("proper_noun")
    named = any(w.pos2 == proper or w.lemma in texts_of("name_suffixes") or
                fold_nfkc(w.surface) in texts_of("second_person") or
                w.lemma in texts_of("others") for w in said[:at])
    # (電車を降ります: what the verb takes as its object is no act at the table)
    takes_object = said[at - 1].pos == PARTICLE and said[at - 1].lemma == text_of("object_wo") \
        if at else False
    return declares and not named and not takes_object


def _adverbial_before(said: list[Word], at: int) -> bool:
    """The words right before the action word end in the て form of a verb or in ずに (この流れに
    乗ってアンティ400, 懲りずにアンティ300): how the act is done, told before it."""
    if at < 2:
        return False
    prev, prev2 = said[at - 1], said[at - 2]
    te = prev.pos == PARTICLE and prev.lemma in texts_of("request") and prev2.pos == VERB
    zuni = prev.pos == PARTICLE and prev.lemma == text_of("zu_ni") and prev2.pos == AUX and \
        prev2.lemma == text_of("zu")
    zu = prev.pos == AUX and prev.lemma == text_of("zu") and prev2.pos == VERB  # 無理せずチェック
    return te or zuni or zu


def _action_kind(f: Frame, kinds: set[str], game: str) -> str:
    """The kind of a clause that names an action, before its reading is built."""
    if (f.vetoed or f.content) and f.lemma_only:
        return "chat"  # 孫にミルクあげてる: an everyday verb in a clause of its own
    if f.vetoed and f.remarked and not f.strict and not f.content and not f.negated:
        return "echo"  # 千二百のコールですね: a remark, agreeing only with the same action
    if f.vetoed or f.content:
        return "blocking"
    if f.negated:
        return "declined"
    if f.these and not f.cards and kinds <= {"discard", "keep", "all"} and not (
            f.this_hand and not kinds):  # (これはセブンフラッシュです: the hand, declared)
        return "these"  # 「2hと4s！これ捨て！」
    if (f.weak and not f.declared and not f.cards and not f.amounts) or (
            f.hand and not f.actions and not f.polite):
        return "blocking"  # 「ここはコール」: nothing says it is their own act
    return "action"


def _unbuilt_kind(f: Frame, kinds: set[str], game: str) -> str:
    """A clause naming an action whose values it does not hold by itself."""
    if traits(game).draw == "discards" and kinds == {"keep"}:
        return "kept"  # ジョーカーは残して、3sと4d捨て
    if not f.cards and traits(game).draw and kinds <= {
            "discard", "keep", "all", "showdown"}:
        return "these"  # 「2hと4s！これ捨て！」, 「5h 9s ぽーい」
    return "blocking"


def _addressed(c: Clause, before: list[Clause], after: list[Clause]) -> None:
    """A name the speaker's own polite action follows (課長、お先にアンティ200いきます; まさし、
    …ほなコールで勝負) or precedes (4cと9h捨てます、先輩) only addresses, while
    「ジェーン、just call」 and 「ボブさん、コール」 stay said to them; a supposition before
    any action makes what follows hypothetical."""
    if c.kind == "vocative":
        acting = [x for x in after if x.kind == "action"]
        own = bool(acting) and all(x.self_polite or _own_turn(x) for x in acting)
        # (after a bare action word, a second person is who it is said to: fold 啦你)
        trailing = any(x.kind == "action" for x in before) and not acting and not (
            fold_nfkc(c.folded).strip() in texts_of("second_person") and not any(
                x.self_polite or _own_turn(x) for x in before if x.kind == "action"))
        c.kind = "chat" if own or trailing else "blocking"
    elif c.kind == "supposing":
        c.kind = "chat" if any(x.kind == "action" for x in before) else "blocking"


def _lone_correction(c: Clause, before: list[Clause], after: list[Clause]) -> None:
    """A correction with no action on either side corrects the chat (部長…じゃなくて課長);
    a noticing あ with none after it notices something else (コール、あ、ナイスハンド)."""
    if c.kind == "correction":
        live = ("action", "blocking", "cards", "these", "declined", "kept", "echo")
        noticing = c.folded.strip(vocab.marks("separators")).strip() in vocabulary().noticing
        bet_before = any(b.parsed is not None and b.parsed.aa for b in before)
        near = [x for x in ([] if noticing else before[-1:]) + after if x.kind in live
                and not (noticing and not bet_before and x.kind == "declined"
                         and _side_bet_only(x))]
        if not near:
            c.kind = "chat"
        elif after and after[0].ends_concessive and (c.after_stop or fold_nfkc(
                after[0].folded).rstrip().endswith(texts_of("past_concessions"))) and not any(
                x.kind in live for x in after):
            # こ。いや迷ったけど、… / 全部捨て！いや笑うかもしれないけど、…: "well", opening the
            # reasons after the decision, taking nothing back (コール…いや、迷うけど does)
            c.kind = "chat"


def _side_bet_only(c: Clause) -> bool:
    """A clause that declines the side bet alone (あ、AAは結構です after the ante: noticed, not
    a correction of the ante)."""
    # (いらない is also a discard word, of the games that have one)
    return set(action_words(c.folded, with_cards=False)) - {"discard"} == {"aa"}


def _committed(live: list[Clause]) -> list[Clause]:
    """The clauses after the last correction, without the alternatives a later action
    supersedes (したいけど…, しよっかな…); a fold conceded before the cards it shows stays
    (降りるけんど、A♠だけ見せちゃる)."""
    kept: list[Clause] = []
    for c, nxt in itertools.pairwise(live):
        if (c.ends_concessive or c.musing) and c.kind in _NAMING and _refers_back(nxt):
            nxt.kind = "declined"  # 全ツッパしたい気分だけど今日はやめとく: what is let go
    for i, c in enumerate(live):
        later = any(x.kind == "action" for x in live[i + 1:])
        shows = any(x.kind == "action" and x.parsed is not None and x.parsed.action == "open"
                    and x.parsed.cards for x in live[i + 1:])
        folds = c.parsed is not None and c.parsed.action in ("fold", "muck")
        if (c.ends_concessive or c.musing) and later and not (folds and shows):
            continue
        if c.ends_concessive and folds and shows:
            c.kind = "action"
        kept.append(c)
    return kept


def _these_joined(kept: list[Clause], game: str,
                  hands: tuple[tuple[str, re.Pattern[str]], ...], coarse: _Pass) -> Parsed | None:
    """「2hと4s！これ捨て！」: cards in one clause, "throw these" in another, read together
    (in sentences, or right after the cards: between commas they may be a list the clause
    cut apart). When an action already names its cards, "these" only agrees with it."""
    if any(c.kind == "action" and c.parsed is not None and (c.parsed.cards or c.parsed.keep or
                                                            c.parsed.discard) for c in kept):
        for c in kept:
            if c.kind == "these":
                c.kind = "agrees"
        return None
    these = [c for c in kept if c.kind == "these"]
    shown = [c for c in kept if c.kind == "cards" and cards_in(c.folded)]
    if len(these) != 1 or len(shown) != 1 or any(c.kind == "action" for c in kept):
        return None
    if not coarse and abs(kept.index(these[0]) - kept.index(shown[0])) != 1:
        return None
    c = these[0]
    joined = Clause(shown[0].text + " " + c.text, shown[0].folded + " " + c.folded,
                    shown[0].start, words=shown[0].words + c.words)
    return build_action(frame(joined, game, hands), game)


def _added(acts: list[Clause], before: list[Parsed]) -> Parsed | None:
    """「9s 9c 9h残す、いやJdも残しとく」, 「Kd Kc残して勝負…あ、2sも残す」: cards named with
    "also" (も) after the same action add to its cards, whether a correction came between or
    not."""
    if not acts or acts[-1].parsed is None:
        return None
    last = acts[-1]
    got = last.parsed
    assert got is not None
    also = text_of("also")
    if not any(last.folded.startswith(also, e) for _, e, _ in cards_in(last.folded)):
        return None
    earlier = [c.parsed for c in acts[:-1] if c.parsed is not None] or before[-1:]
    if len(earlier) != 1 or earlier[0].action != got.action:
        return None
    for key in ("cards", "keep", "discard"):
        old, new = getattr(earlier[0], key), getattr(got, key)
        if old and new:
            return earlier[0].model_copy(update={key: old + [x for x in new if x not in old]})
    return None


def _bare_amount(acts: list[Clause], before: list[Parsed], last: int) -> Parsed | None:
    """「ベット300、いや500にします」: a bare amount after a correction amends the amount of
    the action before it (the grammar alone would read 500に as a make)."""
    if len(acts) != 1 or last < 0 or vocabulary().surface.search(acts[0].folded) or not before:
        return None
    bare = acts[0].parsed
    value = None if bare is None else (bare.to if bare.to is not None else bare.amount)
    got = before[-1]
    slot = "to" if got.to is not None else "amount" if got.amount is not None else None
    if value is None or slot is None:
        return None
    return got.model_copy(update={slot: value})


def _restated(acts: list[Clause], before: list[Parsed], last: int) -> Parsed | None:
    """「アンチ200、あ、アンティです」: the same action said again after a correction, with
    nothing of its own, corrects the word; the first one's amount stands, and only that
    (「アンティ100 aa50…やっぱAAなしで」 keeps the ante's 100, not the side bet taken back)."""
    if len(acts) != 1 or last < 0 or not before or acts[0].parsed is None:
        return None
    again, got = acts[0].parsed, before[-1]
    values = ("amount", "to", "pot", "aa", "cards", "hand", "keep", "discard")
    if again.action != got.action or any(getattr(again, k) is not None for k in values):
        return None
    if got.amount is None and got.to is None:
        return None
    return again.model_copy(update={"amount": got.amount, "to": got.to})


def _declared_made(kept: list[Clause], acts: list[Clause]) -> Parsed | None:
    """Clauses about something else that an action explains: the others' action as its reason
    (みんなチェックなので、ポットベット), the others' folds before an open or close (みんな
    降りたんですね、じゃあクローズで), a made hand then declared (「セブンストレート来た！宣言
    します」 is the declaration itself; 「ビッグハウスできた〜！ビッグハウスで！」 agrees)."""
    if acts:
        for c in kept:
            if c.kind == "blocking" and c.others_reason:
                c.kind = "chat"
    if any(c.parsed is not None and c.parsed.action in ("open", "close") for c in acts):
        for c in kept:
            if c.kind == "blocking" and c.others_folded:
                c.kind = "chat"
    made = [c for c in kept if c.kind == "blocking" and c.made_hand is not None]
    # (not a hand wondered about, nor declaring told as a rule: ビッグハウスになってるか数え直し
    # てる…宣言で弱くする方は断られるって)
    if not acts and len(made) == 1 and not made[0].musing and not made[0].question and any(
            c.kind == "chat" and any(w.lemma in texts_of("declare") for w in c.words)
            and not c.strict and not action_words(c.folded)
            for c in kept[kept.index(made[0]) + 1:]):
        return Parsed(kind="action", action="discard", hand=made[0].made_hand, hand_info=True)
    declared = {c.parsed.hand for c in acts if c.parsed is not None and c.parsed.hand}
    for c in kept:
        if c.kind == "blocking" and c.made_hand is not None and c.made_hand in declared:
            c.kind = "chat"
    return None


def _echoes(kept: list[Clause], acts: list[Clause]) -> None:
    """A remark on an action (千二百のコールですね、はい、コールします) confirms the committed
    action when it names the same one, and is talk about actions otherwise."""
    committed = {c.parsed.action for c in acts if c.parsed is not None}
    echoes = [c for c in kept if c.kind == "echo"]
    if not acts and len(echoes) == 1 and kept[-1].commits and kept.index(echoes[0]) < len(kept) - 1:
        echoes[0].kind = "action"  # ミドルハウスですね、それで
        return
    for c in kept:
        if c.kind == "echo":
            same = c.parsed is not None and committed == {c.parsed.action}
            c.kind = "action" if same else "blocking"


def _merged(said: list[Parsed], game: str) -> Parsed | None:
    """The one action several action clauses say together, or None when they disagree: the
    ante and the side bet apart, a fold then the cards it shows, a deuces play's kept and
    thrown cards, the same action again with its figure, not showing said twice."""
    first, rest = said[0], said[1:]
    side = traits(game).side_bet
    if side and first.action == "allin" and len(rest) == 1 and rest[0].action \
            == "ante" and rest[0].amount is None and rest[0].aa and not first.aa:
        first, rest = first.model_copy(update={"aa": rest[0].aa}), []  # オールイン！AAは100
    if side and first.action == "allin" and len(rest) == 1 and rest[0].action == "ante" and \
            rest[0].amount is None and rest[0].aa is None:
        rest = []  # 最後はオールインで締めます。AAはなしで: the side bet declined
    if side and rest and all(p.action == "ante" for p in [first, *rest]):
        # アンティ200どす。AAも100置かしてもらいます: the ante and the side bet, apart
        amounts = {p.amount for p in [first, *rest]} - {None}
        sides = {p.aa for p in [first, *rest]} - {None}
        if len(amounts) <= 1 and len(sides) <= 1:
            first = first.model_copy(update={"amount": next(iter(amounts), None),
                                             "aa": next(iter(sides), None)})
            rest = []
    # 「降ります。A♠だけ見せます」: a fold or muck, then the cards it shows (the fold said
    # twice: 降ります。フォールドして、Ksだけ見せときます)
    while rest and first.action in ("fold", "muck") and rest[0] == first:
        rest = rest[1:]
    if first.action in ("fold", "muck") and not first.cards and rest and all(
            p.action == "open" and p.cards and p.cards == rest[0].cards for p in rest):
        first = first.model_copy(update={"cards": rest[0].cards, "hand_info": True})
        rest = []
    if traits(game).draw == "play" and rest:
        merged = _deuces_lists([first, *rest])
        if merged is not None:
            first, rest = merged, []
    if rest and {p.action for p in said} == {"close", "muck"} and not any(p.cards for p in said):
        # 見せずにしまいます。マックで / muck 了，不给看: not showing, said twice; the muck is
        # the word that names it
        first, rest = next(p for p in said if p.action == "muck"), []
    if rest and all(p.action == first.action for p in rest):
        # 「レイズ！五千までいったろ」: the same action said again, once with its figure
        figures = {p.to for p in said} - {None}
        amounts = {p.amount for p in said} - {None}
        if len(figures) <= 1 and len(amounts) <= 1 and not any(
                p.cards or p.keep or p.discard or p.hand or p.pot for p in said):
            first = first.model_copy(update={"to": next(iter(figures), None),
                                             "amount": next(iter(amounts), None)})
            rest = []
    return None if any(p != first for p in rest) else first


def _completed(first: Parsed, kept: list[Clause], game: str) -> Parsed | None:
    """The committed action with the cards or amount said in a clause of their own (or None
    when such a clause names something else): the same cards or figure again only agree."""
    named = set(first.cards or first.keep or first.discard or [])
    value = first.to if first.to is not None else first.amount
    for c in kept:  # 「残すのは…Kd Kcです。Kd Kc残して勝負で」: the same cards again
        if c.kind == "cards" and named and {x for _, _, cs in cards_in(c.folded) for x in cs} \
                == named:
            c.kind = "agrees"
        figures_said = [amount_value(m.group()) for m in amount_pattern().finditer(c.folded)]
        if c.kind == "cards" and value is not None and figures_said == [value]:
            c.kind = "agrees"  # 「2400にレイズ、2400です」
    filled = _filled(first, kept, game)
    if filled is not None:
        return filled
    at = next((i for i, c in enumerate(kept) if c.kind == "action"), len(kept))
    for c in kept[:at]:  # 「2,4,5でAもKもないから…、結論フォールド」: figures of the story
        if c.kind == "cards" and first.action in texts_of("takes_no_figure") and \
                not cards_in(c.folded):
            c.kind = "chat"
    if any(c.kind == "cards" for c in kept):
        return None
    return first


def gate(typed: str, hands: Iterable[tuple[str, re.Pattern[str]]] = ()) -> bool:
    """Whether the clause reader may find an action in ``typed`` (NFKC): :func:`mentions`
    on the repaired text."""
    return mentions(fold_nfkc(repair(typed)), hands)
