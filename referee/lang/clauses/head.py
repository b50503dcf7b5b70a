"""The head of a sentence: the last reading of a message the clause reader left as chat.

Japanese puts what a sentence says at its end. In 「BBだしオッズ的にも降りる理由はない、前の
ハンドみたいに…たら即チェックフォールドする前提でコールします」 everything before コールします is
a reason, a story or a condition hung on it: the clause's last action word, with nothing after
it but what says it is done now (ます, で, とく, a figure), is what the speaker does. The clause
reader's rules read such messages clause by clause and keep the whole chat when another clause
names an action; this reading looks at each clause's head alone and takes the one action that
is the head of exactly one clause, when

- nothing after the action word makes it past, wished, negated, asked, planned, a topic or a
  quotation (コールした, コールしたい, コールは, コールって);
- the clause does not end in a condition just before it (来たらベット: a plan);
- nothing between the clause's last verb and the action word names someone else, a seat or
  another time (相手のベット, UTGがメイク, 次はレイズ), or describes it (きれいなフォールド);
- no word before it says it is for later (次, 明日);
- the message is Japanese and is not a correction, a why-question, a lesson, talk to someone
  named or addressed before the decision, or a question in the decision's sentence.

Several clauses with the same action agree when one of them carries the values (チェンジ 3d 6s、
では勝負); adjacent ones are read together (AA50、アンティ100); anything else stays chat."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import cache

from referee.actions import Parsed
from referee.lang import vocab
from referee.lang.clauses.cards import cards_in
from referee.lang.clauses.vocabulary import (
    AUX,
    CONJUNCTIVE,
    PARTICLE,
    SURFACE_NAMES,
    VERB,
    action_spans,
    katakana_word,
    names_a_person,
    placed_already,
    style_of_the_day,
    text_of,
    texts_of,
)
from referee.lang.normalize import fold_nfkc
from referee.lang.words import Word, words

#: A reader of a piece of text by the game's grammar and clause reader (None: no action).
Reader = Callable[[str], "Parsed | None"]

#: Fewer hiragana than this: not a Japanese message (the other languages have their own words).
_MIN_KANA = 4
_ADJECTIVE, _ADNOMINAL = vocab.pos("adjective"), vocab.pos("adnominal")
_NOUN, _PERSON, _SUFFIX = vocab.pos("noun"), vocab.pos("person_name"), vocab.pos("suffix")
_NOMINALISING = vocab.pos("nominalising_particle")
_PROPER, _SYMBOL, _BLANK = vocab.pos("proper_noun"), vocab.pos("symbol"), vocab.pos("blank")


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The clause breaks, quotations, foreign letters and hiragana."""
    breaks = re.compile(text_of("head_breaks"))
    quoted = re.compile(f"{text_of('quote_double')}|{text_of('quote_single')}")
    foreign = re.compile(f"[{text_of('hangul')}{text_of('latin_accented')}]")
    kana = re.compile(f"[{text_of('hiragana')}]")
    return breaks, quoted, foreign, kana


@cache
def _letters() -> re.Pattern[str]:
    return re.compile(f"[{text_of('hiragana')}{text_of('katakana')}A-Za-z]")


def read_head(text: str, game: str, read: Reader, advice: bool = False) -> Parsed | None:
    """The one action that is the head of a clause of ``text`` (module docstring), or None;
    ``advice``: the message also reads as advice, so a name in it is the one advised."""
    breaks, quoted, foreign, kana = _patterns()
    folded = fold_nfkc(text).lower()
    if foreign.search(text) or len(kana.findall(text)) < _MIN_KANA or any(
            w in text for w in texts_of("head_addressing")) or any(
            w in text or w in folded for w in texts_of("head_not_in")):
        return None
    text = quoted.sub(text_of("reply_stop"), text)  # (a quotation is a sentence of its own)
    pieces = [s for s in breaks.split(text) if s.strip()]
    if any(p.strip().startswith(texts_of("head_corrections")) or p.strip() in texts_of(
            "head_noticing") for p in pieces):
        return None  # (コール、いや、レイズ: the clause reader's corrections)
    found: list[tuple[int, Parsed]] = []
    ends: list[int] = []  # where each piece ends in ``text``
    for i, piece in enumerate(pieces):
        ends.append(text.find(piece, ends[-1] if ends else 0) + len(piece))
        got = _head(piece.strip(), game, read, folded, reasons=i > 0)
        if got is None or _listed(got, pieces, i, read) or _quoted_next(text[ends[-1]:]) or \
                text[ends[-1]:].lstrip().startswith(text_of("aside_open")):
            continue  # (…時間切れチェック(できなきゃフォールド)になる: the sentence goes on)
        found.append((i, got))
    if not found:
        return None
    last, got = found[-1]
    if not _spoken_freely(text, pieces[:last + 1], ends[last], got, advice) or any(
            placed_already(p, words(p)) for p in pieces[last + 1:]):
        return None  # (…アンティだけでいいや。まあ今回はもう置いちゃったけど: told)
    return _agreed(found, pieces, read)


def _quoted_next(rest: str) -> bool:
    after = re.sub(r"^[\W_]+", "", rest)  # (the marks between: 勝負!...って)
    return after.startswith(texts_of("head_quoted_by")) and not after.startswith(
        texts_of("head_not_quoting"))  # (レイズで2000、ってか…: "I mean", no quotation)


def _listed(got: Parsed, pieces: list[str], i: int, read: Reader) -> bool:
    """A clause beside one ending in the same action word (ポット、ポット、オールイン): a list."""
    for j in (i - 1, i + 1):
        if 0 <= j < len(pieces):
            other = _ending_action(pieces[j], read)
            if other is not None and other.action == got.action:
                return True
    return False


def _ending_action(piece: str, read: Reader) -> Parsed | None:
    folded = fold_nfkc(piece.strip())
    spans = _spans(folded)
    if not spans or spans[-1].end() < len(folded.rstrip()) - 1:
        return None
    return read(spans[-1].group())


def _spoken_freely(text: str, before: list[str], end: int, got: Parsed, advice: bool) -> bool:
    """Nobody addressed up to the decision (a clause that is only a name: ボブ、コール), no
    second person, and no question or praise in its sentence. A name inside the story (bob
    さんのベットはいつも本物) addresses no one; one in the decision's own clause is its subject,
    which the clause's reading refuses. ``before``: the clauses up to the decision's, which
    ends at ``end``."""
    stop = re.search(f"[{text_of('full_stops')}{text_of('question')}\n]", text[end:])
    upto = text[:end + (stop.end() if stop else len(text) - end)]
    asked = any(q in upto for q in text_of("question"))
    after = upto[end:]
    if asked and got.action in texts_of("stakes") and any(
            w in after for w in texts_of("head_format_checks")) and not any(
            q in text[:end] for q in text_of("question")) and not any(
            w in after for w in texts_of("quoting")):
        asked = False  # (AA50 アンティ100、順番逆だけど通るよね？: its writing asked about)
    if asked or any(
            w in fold_nfkc(upto).lower() for w in texts_of("praise")):
        return False  # (a question or praise before the decision is said: to someone)
    if any(x in upto for x in texts_of("second_person")):
        return False
    if advice and names_a_person(words(upto)):
        return False  # (bobさんそこでフォールドはないって、…コールしとこ: advice to bob)
    return not any(_calls_someone(piece) for piece in before)


def _calls_someone(piece: str) -> bool:
    """A clause of a name alone, or a name with its title (ボブ, 田中さん), or a seat's player
    (5番の人): a vocative."""
    if re.fullmatch(text_of("seat_person"), fold_nfkc(piece).strip()):
        return True
    ws = [w for w in words(piece.strip()) if w.pos not in (_SYMBOL, _BLANK)]
    names = texts_of("name_suffixes")
    return bool(ws) and any(w.pos3 == _PERSON or w.lemma in names for w in ws) and all(
        w.pos3 == _PERSON or w.lemma in names or w.surface in names or w.pos2 == _PROPER
        or (w.pos == _NOUN and w is ws[0]) for w in ws)


def _agreed(found: list[tuple[int, Parsed]], pieces: list[str], read: Reader) -> Parsed | None:
    """One head; or heads of one action, one of them with the values; or adjacent ones read
    together."""
    if len(found) == 1:
        return found[0][1]
    actions = {p.action for _, p in found}
    if len(actions) == 1:
        full = [p for _, p in found if _values(p)]
        if full and len(full) < len(found) and len({repr(_values(p)) for p in full}) == 1:
            return full[-1]
        return None
    where = [i for i, _ in found]
    if where == list(range(where[0], where[-1] + 1)):
        return read(" ".join(pieces[where[0]:where[-1] + 1]))
    return None


def _values(p: Parsed) -> dict[str, object]:
    return {k: v for k, v in p.to_json().items()
            if k not in ("kind", "action", "hand_info", "advice") and v not in (None, [], False)}


def _head(piece: str, game: str, read: Reader, message: str,
          reasons: bool = True) -> Parsed | None:
    """The action a clause's last action word says, when it is the clause's head; the one way
    left (オールインしかない) only after the speaker's reasons (alone it is said to someone)."""
    ends = (*text_of("question"), *texts_of("asking_end"), text_of("head_guess_end"))
    if not piece or piece.endswith(ends) or not _letters().search(piece):
        return None  # (我不加注啦: no kana nor letters, another language's clause)
    folded = fold_nfkc(piece)
    spans = _spans(folded)
    ws = words(piece)
    if not spans or not ws:
        return None
    last = spans[-1]
    a = next((i for i, w in enumerate(ws) if w.start + len(w.surface) > last.start()), None)
    if a is None:
        return None
    b = _clause_start(ws, a)
    if not _free_before(ws, a, b, folded, last, piece):
        return None
    cut = ws[b + 1].start if b + 1 < len(ws) else 0
    end = len(piece)
    if _means(ws, a):
        end = ws[a + 1].start + len(ws[a + 1].surface)  # (チェックで: what it serves aside)
    elif _only_choice(ws, a):
        if not reasons:
            return None  # (ベットしかない: advice)
        end = ws[a].start + len(ws[a].surface)  # (オールインしかない: the one way left)
    if not _done_now(ws, a, message):
        return None  # (before the readings, which cost a parse each)
    got = _longest(piece[:end], ws, a, b, read)
    if got is None or style_of_the_day(got.action, piece):
        return None  # (今日はコールで地道にいきます: how the evening is played)
    named = {SURFACE_NAMES[m.lastgroup or ""] for m in spans if m.start() >= cut}
    if named <= set(texts_of("head_side_bets")) and got.action == "ante" and \
            got.amount is None and got.aa is None:
        return None  # (AAはなしで: the side bet declined, said of the decision)
    if len(named - set(texts_of("head_side_bets"))) > 1:
        whole = read(piece[cut:])  # (ポットベットで: one action of two words)
        if whole is None or whole.action != got.action:
            return None  # (メイク300でオープン, オールインで勝負: which one)
    return got


def _spans(folded: str) -> list[re.Match[str]]:
    """The action words of a clause (not 後 nor ショーダウン); a letter is one only standing
    alone (not the c of 8c)."""
    def alone(m: re.Match[str]) -> bool:
        if len(m.group()) > 1 or not m.group().isascii():
            return True
        before = folded[m.start() - 1:m.start()]
        after = folded[m.end():m.end() + 1]
        return not (before.isalnum() and before.isascii()) and not (
            after.isalnum() and after.isascii())
    return [m for m in action_spans(folded) if alone(m)]


def _clause_start(ws: tuple[Word, ...], a: int) -> int:
    """The last word before ``a`` that ends a clause of its own (a verb, an adjective, an
    auxiliary or a conjunctive particle); -1 when none."""
    for i in range(a - 1, -1, -1):
        w = ws[i]
        if w.pos in (VERB, _ADJECTIVE, AUX) or (w.pos == PARTICLE and w.pos2 == CONJUNCTIVE):
            return i
    return -1


def _free_before(ws: tuple[Word, ...], a: int, b: int, folded: str, last: re.Match[str],
                 piece: str) -> bool:
    """Nothing before the action word (``a``; ``b``: its clause's start, :func:`_clause_start`)
    makes it a condition's consequence, someone else's, another time's, a described noun or a
    word inside another (ナースコール)."""
    passes = (*texts_of("pass_words"), *texts_of("refers_back"))
    if last.group().startswith(passes) or any(x in folded[last.start():] for x in passes):
        return False  # (やめとく: declined)
    if ws[a].start < last.start() and not ws[a].surface.isdigit():
        return False
    if a > 0 and ws[a - 1].pos == _NOUN and ws[a - 1].start + len(ws[a - 1].surface) == \
            ws[a].start and katakana_word().fullmatch(ws[a - 1].surface) and not _spans(
                fold_nfkc(ws[a - 1].surface)):
        return False  # (ナースコール; not ポットベット, two action words)
    if any(t in fold_nfkc(piece[:ws[a].start]) for t in texts_of("head_later")):
        return False
    if b >= 0 and (ws[b].lemma in texts_of("head_conditions")
                   or ws[b].surface in texts_of("head_conditions")):
        return False
    between = "".join(w.surface for w in ws[max(b - 1, 0):a])
    if any(x in between for x in texts_of("head_condition_pieces")):
        return False
    if any(x in fold_nfkc(between) for x in texts_of("otherwise")):
        return False  # (…なければフォールドで、それ以外はコール: a rule's other branch)
    pre = ws[b + 1:a]
    if b == a - 1 and b >= 0 and (ws[b].surface in texts_of("head_described_by")
                                  or ws[b].cform.startswith(text_of("attributive_cform"))):
        return False
    if pre and (pre[-1].surface in texts_of("head_described_by") or pre[-1].pos == _ADNOMINAL
                or (pre[-1].pos == _ADJECTIVE
                    and pre[-1].cform.startswith(text_of("attributive_cform")))):
        return False
    if any(w.surface == text_of("head_subject") and w.pos == PARTICLE for w in pre):
        return False
    if sum(1 for x, y in itertools.pairwise(pre) if x.pos == _NOUN and y.pos == PARTICLE
           and y.lemma == text_of("also")) >= 2:
        return False  # (仕事も恋愛もオールイン: said of things listed)
    if any(w.lemma in texts_of("head_when") or w.surface in texts_of("head_when") for w in pre):
        return False  # (全員降りたときはクローズ: what is done when something happens, a rule)
    if pre and pre[-1].surface in (*texts_of("tally_counters"), *texts_of("head_in_a_row")):
        return False  # (3回フォールド: how often, a tally)
    said = "".join(w.surface for w in pre)
    for now in texts_of("head_now"):
        said = said.replace(now, "")  # (今のうちに: now, not 今の, the hand just played)
    said_folded = fold_nfkc(said).lower()
    someone = (*texts_of("others"), *texts_of("subjects"), *texts_of("seat_words"),
               *texts_of("head_someone"))
    times = (*texts_of("past_times"), *texts_of("past_pointers"), *texts_of("habit_words"),
             *texts_of("head_times"))
    if any(o in said or o in said_folded for o in someone) or any(
            t in said if len(t) > 1 else any(w.surface == t for w in pre) for t in times):
        return False  # (one character is a word only as a word: 前 but not 前提)
    return not names_a_person(pre)


def _longest(piece: str, ws: tuple[Word, ...], a: int, b: int, read: Reader) -> Parsed | None:
    """The action word's clause read from the action word back to the clause's start, as far
    as it reads as the same action saying at least as much (4cと9hを捨てます)."""
    best = None
    for s in range(a, b, -1):
        if s > 0 and ws[s].pos == _SUFFIX:
            continue  # (2枚とも替える is not read from 枚: a suffix belongs to the word before)
        got = read(piece[ws[s].start:])
        if got is not None and (best is None or (
                got.action == best.action and _holds(_values(got), _values(best)))):
            best = got
    return best


def _holds(longer: dict[str, object], shorter: dict[str, object]) -> bool:
    """A longer reading says at least as much: as many values, and every card of the
    shorter one (Ts 9s 残す after 9s 残す; AA50でオールイン after 50でオールイン)."""
    cards = all(set(shorter[k]) <= set(longer.get(k) or ())  # type: ignore[call-overload]
                for k in ("cards", "keep", "discard") if isinstance(shorter.get(k), list))
    return cards and len(longer) >= len(shorter)


def _only_choice(ws: tuple[Word, ...], a: int) -> bool:
    """The action word followed by しか and ない (オールインしかないでしょ): the one way left."""
    return len(ws) > a + 2 and ws[a + 1].surface == text_of("head_only") and \
        ws[a + 2].lemma in texts_of("head_only_none")


def _cleft(ws: tuple[Word, ...], a: int) -> bool:
    """「捨てるのは Tc と 4s」: what is done, then the cards or the figure it is done with."""
    tail = ws[a + 1:]
    return len(tail) > 2 and [w.surface for w in tail[:2]] == list(texts_of("head_cleft")) and \
        not any(w.pos in (VERB, AUX) for w in tail[2:]) and bool(
            cards_in(fold_nfkc("".join(w.surface for w in tail[2:]))))


def _means(ws: tuple[Word, ...], a: int) -> bool:
    """The action word followed by the で of means and more words (チェックで様子見ます)."""
    return len(ws) > a + 2 and ws[a + 1].surface == text_of("agree") and \
        ws[a + 1].pos == PARTICLE and ws[a + 2].pos != _ADJECTIVE  # (コールでいい: advice)


def _done_now(ws: tuple[Word, ...], a: int, message: str) -> bool:
    """What follows the action word says it is done now: no past, wish, negation, question,
    plan, topic or quotation; a plain verb (降りる) is a declaration unless the house or
    "soon" makes it a description (NPC弱いね、すぐ降りる)."""
    if ws[a].lemma in texts_of("head_being") or (
            a > 0 and ws[a - 1].surface == text_of("object_wo")):
        return False
    if _cleft(ws, a):
        return True
    tail = ws[a + 1:]
    if _only_choice(ws, a):
        # (オールインしかないでしょ: the one way left, a rhetorical guess; not 降りるしかないかなぁ)
        rest = tail[2:]
        said = "".join(w.surface for w in rest)
        return not any(w.lemma in texts_of("head_not_now") or w.surface in texts_of(
            "head_not_now") for w in rest) and not any(
            x in said for x in texts_of("head_not_now_pieces") if x not in texts_of(
                "head_only_guess"))
    said = "".join(w.surface for w in tail)
    if tail and tail[0].surface in texts_of("head_topic_after"):
        return False
    if any(w.pos == PARTICLE and w.pos2 in (CONJUNCTIVE, _NOMINALISING) for w in tail):
        return False  # (フルハウスにしちゃって、…: the story goes on; チェックで回るのつらい)
    if any(x in said for x in texts_of("head_not_now_pieces")):
        return False
    not_now = texts_of("head_not_now")
    if _means(ws, a):
        # (チェックで後ろの出方見ます: the action as the means; what it serves is said in its
        # own words, where の and 方 are nouns' words, not a reason's or advice's)
        not_now = tuple(w for w in not_now if w not in texts_of("head_means_nouns"))
    if any(w.lemma in not_now or w.surface in not_now for w in tail):
        return False
    plain = (not tail and ws[a].pos == VERB) or (bool(tail) and tail[0].pos == VERB and not any(
        x in said for x in texts_of("head_declared")))
    return not (plain and any(h in message for h in texts_of("house_players")))
