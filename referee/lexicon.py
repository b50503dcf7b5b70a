"""Hand-information and advice detection: does a message talk about cards, or about someone's play?

The referee flags *information leaks* (docs/rules.md: nobody may reveal anything about a current
hand outside the proper moments, true or false) and *interference* (criticising an action, coaching
that affects the game, demanding a change). This module reads one message and says what it
contains; whether a hand is running, who wrote it, what they hold and what to do is the business
of :mod:`referee.flags` and :mod:`referee.discipline`.

Vocabulary is data: ``grammar/lexicon/hand.toml`` and ``grammar/lexicon/advice.toml`` (what each
key means is written in the files). Code here only applies it.

**Hand talk is read on words.** A cheap regular expression over the folded text (every word of
the vocabulary, card and rank shapes) says whether a message *may* be hand talk; only then is the
message analysed into words (:func:`referee.lang.words.words`, MeCab + UniDic) and judged word by
word:

- card notation (``As``, ``A♠``, ``♠A``, ``10s``, ``スペードのA``, ``Aスペード``,
  ``エースのハート``) -- each card with whether the notation is *certain* (:func:`named_cards`);
- ranks only where they are ranks: ``AA``, ``AKs``, ``KQo``, ``T9``; a lone ``K`` or ``7`` tied to a
  holding (``Kが来た``, ``7持ってる``, ``9のペア``, ``99持ってる``, ``ポケットA``) -- not a name
  (``Kさん``, ``Jさん、おかえり``) and not a count (``22時``, ``3人``, ``2回``);
- hand words: the *strong* ones wherever they stand as whole words (ツーペア, フラドロ,
  ガットショット; never inside another word, not glued to an everyday noun: ドーナッツ, ナッツ類),
  the *weak* ones (セット, ブタ, ストレート, ダイヤ, ドロー, ハート, ナッツ …) only in a *hand
  frame*: not glued to an everyday noun (目覚ましセット), not a verb (セットした), not followed by
  の and an everyday noun (ブタの角煮), and followed by nothing, a copula, a clause end, a poker
  noun, a count or a verb of making or holding (ブタでした, セットできた, ハート待ち;
  :func:`_weak_frame`);
- suit counts (``ハート3枚``), strength ratings (``いい手来た``, ``手札ひどい``, ``手が悪い``) and
  the phrases of the data file (``あと一枚``, ``役なし``);
- English hand words (``nuts``, ``flush draw``);
- and whether the talk is about a finished hand or the rules (``さっきの``, ``〜って何？``), the
  board, a hope about cards to come (``来てほしい``) or someone else's hand (``相手の``): the
  parser's ``hand_info`` is :attr:`Reading.own_hand`, the speaker's own hidden hand in the
  current hand, and never set in a game dealt face up (``face_up_games``).

**Advice** is read with the regular expressions of ``advice.toml``: an action word (the house
games' verbs included) followed by a normative or imperative ending (``コールすべき``,
``フォールドして``, ``ハイパーでしょ``, ``残しなよ``), "why" + an action word, and critique or
coaching that needs no action word (``下手``, ``ちゃんと考えて``, ``もっと攻めて``), in any
register or dialect (``そこはコールやろ``, ``早よ降りなはれ``, ``〜は早計``). A request to hurry
(``早くアクションしてください``) names no action and is not advice; neither is the speaker's own
regret, a question about their own options or the rules, or deliberation (``own_patterns``),
unless someone is named. ``aimed_patterns`` mark advice aimed at another player's decision even
from the player to act (``そこはコールでしょ`` after a fold, ``私なら``). The reading also says
whether the text thinks aloud (``〜かな``) and whether it names or addresses someone
(``ボブさん``), for the referee's own-turn rule.

Speed: the pre-checks are prefix tries of the literal words; the word analysis (~6 µs a line,
cached) runs only when they match. A long message is read in overlapping pieces of :data:`LONG`
characters, each distinct piece once (spam repeats itself), and in each only windows of
:data:`WINDOW` characters around the pre-check's matches are analysed (at most :data:`WINDOWS`
distinct ones).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import jaconv

from referee import games, resources
from referee.lang import action_words, notation, vocab
from referee.lang.normalize import fold_nfkc, nfkc
from referee.lang.notation import NamedCard as NamedCard
from referee.lang.notation import named_cards as named_cards
from referee.lang.vocab import pos
from referee.lang.words import Word, words

LEXICON_DIR = resources.GRAMMAR / "lexicon"
# Texts longer than this are read in overlapping pieces (see _chunk_starts).
LONG = 300
STRIDE = 252  # 4 x 7 x 9: a multiple of the periods of repeated spam
OVERLAP = 24
CHUNKS = 48  # at most this many distinct pieces are read (a 10,000-character text has 40)
WINDOW = 12  # characters each side of a pre-check match that the word analysis reads
WINDOWS = 10  # at most this many distinct windows per long text

# The card and suit words (grammar/cards.toml) and the small words of the rules
# (grammar/lexicon/frame.toml), read once at import.
_SUITS, _SUIT_WORDS, _RANK_WORDS = notation.SUITS, notation.SUIT_WORDS, notation.RANK_WORDS
_CW = vocab.cards()
_word, _words_of = notation.word, notation.words_of
_NAME_SUFFIXES = notation.NAME_SUFFIXES
_KANA_RUN = re.compile(r"[\u3041-\u3096\u30fc]+")
class LexiconError(ValueError):
    """A broken vocabulary file (a programming error caught by the tests)."""


@dataclass(frozen=True, slots=True)
class Reading:
    """What one message contains (see the module docstring)."""

    hand_info: bool
    advice: bool
    cards: tuple[NamedCard, ...] = ()
    show: bool = False  # a show clause: 見せ / 公開 / オープン / show with cards
    folding: bool = False  # ... together with a fold or muck word (「フォールド Ah見せ」)
    past: bool = False  # about a finished hand or the rules (さっきのハンド, 〜だっけ, 〜って何)
    board: bool = False  # about the board only (ボードペアだね): no holding cue
    self_talk: bool = False  # thinking aloud (〜かな, 迷う)
    addressed: bool = False  # names or addresses someone (ボブさん, お前)
    critique: bool = False  # critique or coaching without an action word (下手, 考えて)
    why: bool = False  # "why" + an action (なんでレイズしたの): about someone else's action
    hope: bool = False  # a hope about cards to come (ジョーカー来てほしい): nothing held yet
    topic: bool = False  # card words about something else (a tattoo, a song): no hand at all
    others: bool = False  # about someone else's hand (引いてるやついて草)
    aimed: bool = False  # advice aimed at another's decision (そこはコールでしょ, 私なら)

    @property
    def own_hand(self) -> bool:
        """Talk about the speaker's own hidden hand in the current hand: hand talk that is not
        about a finished hand or the rules, the public board, a hope or someone else's hand."""
        return self.hand_info and not (
            self.past or self.board or self.hope or self.others or self.topic)


# --- the vocabulary -------------------------------------------------------------------------


def _load(name: str) -> dict[str, Any]:
    path = LEXICON_DIR / name
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise LexiconError(f"{path.name}: {e}") from None
    for key, value in data.items():
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise LexiconError(f"{path.name}: {key} must be a list of strings")
        if key.endswith("patterns") or name == "advice.toml":
            for v in value:
                try:
                    re.compile(fold_nfkc(nfkc(v)))
                except re.error as e:
                    raise LexiconError(f"{path.name}: {key}: {v!r}: {e}") from None
    return data


def _fold_all(xs: list[str]) -> list[str]:
    return [fold_nfkc(nfkc(x)) for x in xs]


def _alt(patterns: list[str]) -> str:
    return "|".join(f"(?:{p})" for p in patterns)


_trie = vocab.trie


_WORD_EDGE = "(?<![a-z])"  # a Latin word's left edge (er, not the end of "dealer")


def _literal_prefix(pattern: str) -> str:
    try:
        return vocab.literal_prefix(pattern.removeprefix(_WORD_EDGE))
    except vocab.VocabularyError as e:
        raise LexiconError(str(e)) from None


def _first_chars(patterns: list[str]) -> str:
    """A look-ahead of the first characters of ``patterns`` (each starts with a literal word,
    as :func:`_literal_prefix` reads it): where no match of any can start, one test fails.
    Empty (no look-ahead) if a pattern has a choice of its own at its top level (``a|b``),
    whose second branch need not start as the first does."""
    if not patterns or any(_top_level_choice(p) for p in patterns):
        return ""
    firsts = {_literal_prefix(p)[0] for p in patterns}
    return "(?=[" + "".join(re.escape(c) for c in sorted(firsts)) + "])"


def _top_level_choice(pattern: str) -> bool:
    """Whether ``pattern`` has a ``|`` outside every group and character class."""
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            i += 2 if pattern[i + 1:i + 2] == "]" else 1  # (a ] first in a class is literal)
            continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            return True
        i += 1
    return False


@dataclass(frozen=True)
class _Hand:
    strong: frozenset[str]
    weak: frozenset[str]
    poker_nouns: frozenset[str]
    counters: frozenset[str]
    rating_lemmas: frozenset[str]
    hand_nouns: frozenset[str]
    rank_verbs: frozenset[str]
    frame_verbs: frozenset[str]
    everyday_lemmas: frozenset[str]
    after_rank: frozenset[str]
    vocab: re.Pattern[str]  # every strong and weak word, longest first
    everyday: re.Pattern[str]
    phrases: re.Pattern[str]
    past: re.Pattern[str]
    topic: re.Pattern[str]
    board: re.Pattern[str]
    board_words: re.Pattern[str]
    holding: re.Pattern[str]
    holding_english: re.Pattern[str]
    gate: re.Pattern[str]  # the cheap pre-check
    gate_long: re.Pattern[str]  # the pre-check that places a long text's windows
    english: re.Pattern[str]
    strong_vocab: re.Pattern[str]  # the strong words only
    hope: re.Pattern[str]
    summon: re.Pattern[str]  # a card summoned (ハート来い): draw talk, no mere hope
    other: re.Pattern[str]
    own: re.Pattern[str]
    face_up: frozenset[str]  # games whose every card is dealt face up


@cache
def _hand() -> _Hand:
    d = _load("hand.toml")
    strong = _fold_all(d.get("strong", []))
    weak = _fold_all(d.get("weak", []))
    vocab = sorted(set(strong) | set(weak), key=lambda w: (-len(w), w))
    phrases = _fold_all(d.get("phrase_patterns", []))
    past = _fold_all(d.get("past_patterns", []))
    english = _alt(_fold_all(d.get("english_patterns", [])))
    literals = [*vocab, *_fold_all(d.get("hand_nouns", [])), *_fold_all(d.get("gate_words", [])),
                *_CW.suit_words, *_CW.rank_words]
    gate = _alt([
        _trie(literals), rf"[{_SUITS}akqjt2-9]", english, *phrases,
    ])
    # Long texts look for windows with the literal words only (the phrase patterns, tried at
    # every position, cost more than everything else): each phrase has one of these words.
    anchors = _fold_all(d.get("phrase_anchors", []))
    gate_long = _alt([_trie(literals + anchors), rf"[{_SUITS}akqjt2-9]", english])
    return _Hand(
        strong=frozenset(strong), weak=frozenset(weak),
        poker_nouns=frozenset(_fold_all(d.get("poker_nouns", []))),
        counters=frozenset(_fold_all(d.get("counters", []))),
        rating_lemmas=frozenset(d.get("rating_lemmas", [])),
        hand_nouns=frozenset(_fold_all(d.get("hand_nouns", []))),
        rank_verbs=frozenset(d.get("rank_verbs", [])),
        frame_verbs=frozenset(d.get("frame_verbs", [])),
        everyday_lemmas=frozenset(d.get("everyday_lemmas", [])),
        after_rank=frozenset(_fold_all(d.get("after_rank", []))),
        vocab=re.compile("|".join(re.escape(w) for w in vocab)),
        everyday=re.compile(_alt(_fold_all(d.get("everyday_patterns", [])))),
        phrases=re.compile(_alt(phrases)),
        past=re.compile(_alt(past)),
        topic=re.compile(_trie(_fold_all(d.get("topic_words", []))) or "(?!)"),
        board=re.compile(_alt(_fold_all(d.get("board_patterns", [])))),
        board_words=re.compile(_alt([re.escape(w) for w in _fold_all(d.get("board_words", []))])),
        holding=re.compile(_alt(_fold_all(d.get("holding_patterns", [])))),
        holding_english=re.compile(
            _alt(_fold_all(d.get("holding_english_patterns", []))) or "(?!)"),
        gate=re.compile(gate),
        gate_long=re.compile(gate_long),
        english=re.compile(english),
        strong_vocab=re.compile("|".join(
            re.escape(w) for w in sorted(set(strong), key=lambda w: (-len(w), w)))),
        hope=re.compile(_alt(_fold_all(d.get("hope_patterns", []))) or "(?!)"),
        summon=re.compile(_alt(_fold_all(d.get("summon_patterns", []))) or "(?!)"),
        other=re.compile(_alt(_fold_all(d.get("other_patterns", []))) or "(?!)"),
        own=re.compile(_alt(_fold_all(d.get("own_patterns", []))) or "(?!)"),
        face_up=frozenset(d.get("face_up_games", [])),
    )


@dataclass(frozen=True)
class _Advice:
    question: re.Pattern[str]
    critique: re.Pattern[str]
    self_talk: re.Pattern[str]
    addressee: re.Pattern[str]
    general: re.Pattern[str]
    why: re.Pattern[str]
    gate: re.Pattern[str]
    own: re.Pattern[str]  # about the speaker's own play (regret, own options, deliberation)
    aimed: re.Pattern[str]  # aimed at another's decision: a past action judged, 私なら


@cache
def _advice() -> _Advice:
    d = _load("advice.toml")
    action_list = list(action_words.advice_actions())
    # (behind a look-ahead of the characters they start with: the question patterns try the
    # action words at every place of a text, and most places start none)
    actions = _first_chars(_fold_all(action_list)) + f"(?:{_alt(_fold_all(action_list))})"
    modal = _alt(_fold_all(d.get("modal", [])))
    direct = _alt(_fold_all(d.get("direct", [])))
    why = _alt(_fold_all(d.get("why", [])))
    critique = _alt(_fold_all(d.get("critique", [])))
    slots = {"<actions>": actions, "<modal>": modal, "<direct>": direct, "<why>": why,
             "<critique>": critique}

    def filled(key: str) -> list[str]:  # the question patterns, with the lists put in
        out = []
        for p in d.get(key, []):
            for slot, value in slots.items():
                p = p.replace(slot, value)
            out.append(p)
        return out

    question = _alt(filled("question_patterns"))
    return _Advice(
        question=re.compile(question),
        critique=re.compile(critique),
        self_talk=re.compile(_alt(_fold_all(d.get("self_patterns", [])))),
        addressee=re.compile(_alt(_fold_all(d.get("addressee_patterns", [])))),
        general=re.compile(_alt(_fold_all(d.get("general_patterns", []))) or "(?!)"),
        own=re.compile(_alt(_fold_all(d.get("own_patterns", []))) or "(?!)"),
        aimed=re.compile(_alt(_fold_all(d.get("aimed_patterns", []))) or "(?!)"),
        why=re.compile("|".join(filled("why_pattern"))),
        gate=re.compile(_trie([
            *(_literal_prefix(a) for a in _fold_all(action_list)),
            *_fold_all(d.get("why", [])), *_fold_all(d.get("anchors", [])),
            *_fold_all(d.get("gate_words", [])),
        ])),
    )


# --- hand talk on words -----------------------------------------------------------------------

_SUFFIX_NAMES = frozenset(_NAME_SUFFIXES)
_DIGIT_RANKS = frozenset("2 3 4 5 6 7 8 9 10".split())
_PAIR_DIGITS = re.compile(r"(10|[2-9])\1")
_RANK_RUN = re.compile(
    r"(?<![A-Za-z0-9])(?=[0-9TJQKA]*[TJQKA])(?:10|[2-9TJQKA]){2,4}(?:[so]|[xX]{1,3})?(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9])(aa|kk|qq|jj)(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9.,])[2-9][2-9][so](?![A-Za-z0-9])",
)
_AA_SIDE_BET = re.compile(_word("aa_side_bet"))
_SUIT_COUNT = re.compile(rf"(?:{_SUIT_WORDS}|[{_SUITS}]){_word('suit_count')}")
_RANK_COUNT = re.compile(rf"(?:[akqjt]|10|[2-9]|{_RANK_WORDS}){_word('rank_count')}")
_SHOW = re.compile(_word("show"))
_FOLD = re.compile(_word("fold"))


class _Text:
    """A text as words, with each word's folded surface and its offsets in the folded text."""

    __slots__ = ("at", "ends", "folded", "starts", "ws")

    def __init__(self, text: str) -> None:
        self.ws: tuple[Word, ...] = words(text)
        self.folded: list[str] = [fold_nfkc(w.surface) for w in self.ws]
        self.starts: dict[int, int] = {w.start: i for i, w in enumerate(self.ws)}
        self.ends: dict[int, int] = {w.start + len(w.surface): i for i, w in enumerate(self.ws)}

    def glued_before(self, i: int) -> bool:
        return i > 0 and self.ws[i - 1].start + len(self.ws[i - 1].surface) == self.ws[i].start

    def glued_after(self, j: int) -> bool:
        return j + 1 < len(self.ws) and self.ws[j].start + len(self.ws[j].surface) == \
            self.ws[j + 1].start


_LAUGH = re.compile(_word("laugh"))
_QUESTION_NUMS = _words_of("question_numbers")
# UniDic tags (grammar/text.toml)
_NOUNS = (pos("noun"), pos("pronoun"))
_NUMERAL, _SUFFIX, _PREFIX = pos("numeral"), pos("suffix"), pos("prefix")
_PARTICLE, _AUX, _VERB, _ADJ = pos("particle"), pos("auxiliary"), pos("verb"), pos("adjective")
_COMMON, _PROPER = pos("common_noun"), pos("proper_noun")
_MARKS = (pos("symbol"), pos("blank"))
_RATING_POS = tuple(pos(p) for p in _words_of("rating_pos"))
# the small words of the rules (grammar/lexicon/frame.toml)
_COUNTER, _GENITIVE, _ADJECTIVAL, _PAIR_WORD, _TO, _RATING_NEGATION = map(_word, (
    "card_counter", "genitive", "adjectival", "pair_word", "to_particle", "rating_negation"))
_SURU, _NARU, _NAI = map(_word, ("lemma_suru", "lemma_naru", "lemma_nai"))
(_TWO, _OPEN_BRACKETS, _WEAK_NOT_AFTER, _ABOUT_WORD, _STRONG_EXPLAINED, _EXPLAINED_BY,
 _AUX_NOT_FRAME, _END_PARTICLES, _FRAME_PARTICLES, _RANK_PARTICLES, _RANK_PREFIXES,
 _SUIT_COUNT_PARTICLES, _RATING_JOINERS, _RATING_PARTICLES) = map(_words_of, (
    "two", "open_brackets", "weak_not_after", "about_word", "strong_explained", "explained",
    "aux_not_frame", "end_particles", "frame_particles", "rank_particles", "rank_prefixes",
    "suit_count_particles", "rating_joiners", "rating_particles"))


def _is_noun(w: Word) -> bool:
    """A content noun (not a numeral, not laughter: ナッツｗｗ)."""
    return w.pos in _NOUNS and w.pos2 != _NUMERAL and not _LAUGH.fullmatch(w.surface)


def _is_poker_noun(t: _Text, k: int, h: _Hand) -> bool:
    f = t.folded[k]
    if f in h.poker_nouns or f in h.strong or f in h.weak:
        return True
    s = t.ws[k].surface
    if not (re.fullmatch(r"(?:10|[2-9TJQKA]){1,4}[so]?", s) or t.ws[k].pos2 == _NUMERAL):
        return False
    if s.startswith(_QUESTION_NUMS):
        return False  # ジョーカー何枚入ってるの？: a question about the deck
    if t.glued_after(k) and (_is_noun(t.ws[k + 1]) or t.ws[k + 1].pos == _SUFFIX):
        nf = t.folded[k + 1]  # Tシャツ, 3時, 3つ: a rank glued to an everyday word is no rank
        if nf == _COUNTER:
            return True  # ハートの3枚
        return (nf in h.poker_nouns or nf in h.strong or nf in h.weak) and nf not in h.counters
    return True


def _weak_stands(t: _Text, i: int, j: int, folded_text: str, start: int, h: _Hand) -> bool:
    """Whether the weak word of words i..j is poker talk here (see the module docstring)."""
    if h.everyday.match(folded_text, start):
        return False
    if t.glued_before(i) and _is_noun(t.ws[i - 1]) and t.ws[i - 1].pos != _NOUNS[1] \
            and t.folded[i - 1] not in _NOW_WORDS and not _is_poker_noun(t, i - 1, h):
        return False  # 目覚ましセット (チームのエース: below; not これナッツや, 今ワイルド)
    if t.glued_before(i) and t.ws[i - 1].surface in ("A", "B", "C", "K", "Q", "J") \
            and t.folded[i] not in h.after_rank:
        return False  # Aセット (a set menu), Cセット; but Aペア, Kハイ
    if t.glued_before(i) and t.ws[i - 1].pos == _PREFIX:
        return False
    if i > 0 and t.folded[i - 1] in _OPEN_BRACKETS:
        return False  # 豚の角煮（ブタ）: a note in brackets
    if i > 0 and t.ws[i - 1].pos == _PARTICLE and t.folded[i - 1] in _WEAK_NOT_AFTER:
        return False  # 7時にセット, マナーモードにセット
    if i > 0 and t.ws[i - 1].pos == _AUX and t.folded[i - 1] == _ADJECTIVAL:
        return False  # お得なセット
    if i >= 2 and t.folded[i - 1] == _GENITIVE and t.ws[i - 2].pos2 in (_COMMON, _PROPER) \
            and not _is_poker_noun(t, i - 2, h) and t.folded[i] != _PAIR_WORD:
        return False  # チームのエース, 晩ごはんのブタ
    if j + 1 < len(t.ws):
        nxt = t.ws[j + 1]
        if t.glued_after(j) and (_is_noun(nxt) or nxt.pos == _SUFFIX) \
                and not _is_poker_noun(t, j + 1, h):
            return False  # セットアップ, ストレートネック, ハートマーク, ブタさん
        if nxt.lemma == _SURU:
            return False  # セットした, ドローする
        if t.folded[j + 1] in _ABOUT_WORD:
            return False  # スペードって何ゲーム？ (talk about the word)
        if t.folded[j + 1] == _ADJECTIVAL and nxt.pos == _AUX and not (
                j + 2 < len(t.ws) and t.ws[j + 2].lemma == _GENITIVE):
            return False  # ロイヤルな気分 (an adjective; but ナッツなんだよなぁ explains)
        if t.folded[j + 1] == _GENITIVE and j + 2 < len(t.ws):
            after = t.ws[j + 2]
            if _is_noun(after) and not _is_poker_noun(t, j + 2, h):
                return False  # ブタの角煮, ハートの絵文字
    return _weak_frame(t, j, h)


_CLAUSE_END = frozenset(_words_of("clause_end"))
_COPULA_PARTICLES = frozenset(_words_of("copula_particles"))
_NOW_WORDS = frozenset(fold_nfkc(w) for w in _words_of("now_words"))


def _weak_frame(t: _Text, j: int, h: _Hand) -> bool:
    """What follows the weak word ending at word j frames it as a hand: nothing (「ストレート」),
    a copula or a clause end (ブタでした, セットかも), a poker noun (ハート待ち), a count
    (デュース3枚), a verb of making or holding (セットできた, ジョーカー引いた), directly or after
    が/も/は/を (ペアが出来た); に + なる (セットになった); の + a poker noun. Everything else is an
    everyday use (ストレートで勝った, ペアで参加, ジョーカー見た, ハートが強いね)."""
    ws, n = t.ws, len(t.ws)
    k = j + 1
    if k >= n:
        return True
    nxt, f = ws[k], t.folded[k]
    lemma = nxt.lemma.split("-")[0]
    if f in _EXPLAINED_BY:
        return False  # ドロー（引き分け）: explained; ジャック・スパロウ: a name
    if nxt.pos in _MARKS or _LAUGH.fullmatch(f) or f in ("!", "?"):
        return True
    if _is_poker_noun(t, k, h) or (nxt.pos2 == _NUMERAL and not f.startswith(_QUESTION_NUMS)):
        return True
    if nxt.pos == _AUX and f not in _AUX_NOT_FRAME:
        return True
    if f == _ADJECTIVAL and nxt.pos == _AUX and k + 1 < n and ws[k + 1].lemma == _GENITIVE:
        return True  # ナッツなんだよなぁ, セットなのよ: the explaining copula
    if nxt.pos == _VERB:
        return lemma in h.frame_verbs
    if nxt.pos == _ADJ:
        return lemma == _NAI or _rates(nxt, h)
    if nxt.pos not in (_PARTICLE, _AUX):
        return False
    if f in _CLAUSE_END:
        return True
    after = ws[k + 1] if k + 1 < n else None
    if f in _COPULA_PARTICLES and (after is None or after.pos in _MARKS):
        return True
    if after is None:
        return f in _END_PARTICLES
    a_lemma = after.lemma.split("-")[0]
    if f in _FRAME_PARTICLES:
        return a_lemma in h.frame_verbs or _is_poker_noun(t, k + 1, h) or a_lemma == _NAI
    if f == _TO:
        return a_lemma == _NARU
    if f == _GENITIVE:
        return _is_poker_noun(t, k + 1, h)
    return False


def _run_glued_everyday(t: _Text, end: int, h: _Hand) -> bool:
    """A word of the text starts at offset ``end`` and is an everyday noun (TT兄弟)."""
    k = t.starts.get(end)
    if k is None or not _is_noun(t.ws[k]) or _is_poker_noun(t, k, h):
        return False
    return _KANA_RUN.fullmatch(t.ws[k].surface) is None  # AAきた (北)


def _segments(word: str, h: _Hand) -> bool:
    """``word`` (folded) is nothing but hand vocabulary and poker nouns, with at least one hand
    word: an unknown compound the dictionary keeps whole (ストフラドロー)."""
    known = h.strong | h.weak
    parts = known | h.poker_nouns
    ok: list[int] = [0]  # bit 1: reachable, bit 2: a hand word used
    ok += [-1] * len(word)
    for i in range(len(word)):
        if ok[i] < 0:
            continue
        for j in range(i + 2, len(word) + 1):
            piece = word[i:j]
            if piece in parts:
                v = ok[i] | (1 if piece in known else 0)
                ok[j] = max(ok[j], v)
    return ok[len(word)] == 1


def _glued_everyday(t: _Text, j: int, h: _Hand) -> bool:
    """Word j is glued to a following everyday noun or suffix (ナッツ類, フラッシュ暗算)."""
    if not t.glued_after(j):
        return False
    nxt = t.ws[j + 1]
    return (_is_noun(nxt) or nxt.pos == _SUFFIX) and not _is_poker_noun(t, j + 1, h)


_RANK_NEXT = frozenset(_words_of("rank_next"))
_RANK_NEXT_START = _words_of("rank_next_start")


def _rank_context(t: _Text, j: int, h: _Hand) -> bool:
    """A rank at word j is tied to a holding by what follows (が来た, 持ってる, のペア, ハイ)."""
    ws, n = t.ws, len(t.ws)
    k = j + 1
    if k < n and t.folded[k] in _SUFFIX_NAMES:
        return False  # Kさん: a name (other suffixes may tie it: Q持ち)
    if k < n and t.folded[k] in _RANK_PARTICLES:
        if t.folded[k] == _GENITIVE and k + 1 < n:
            return t.folded[k + 1] in h.poker_nouns or t.folded[k + 1] in h.strong \
                or t.folded[k + 1] in h.weak
        k += 1
    if k < n:
        w = ws[k]
        if w.lemma.split("-")[0] in h.rank_verbs:
            return True
        if t.folded[k] in _RANK_NEXT or t.folded[k].startswith(_RANK_NEXT_START):
            return True
        if t.folded[k] in _TWO and k + 1 < n and t.folded[k + 1] == _COUNTER:
            return True
    return False


def _rates(w: Word, h: _Hand) -> bool:
    """``w`` rates a hand (いい, ひどい, 最悪, ゴミ)."""
    return (w.lemma.split("-")[0] in h.rating_lemmas or w.surface in h.rating_lemmas) \
        and w.pos in _RATING_POS


def _rank_prefix(t: _Text, i: int) -> bool:
    return i > 0 and t.folded[i - 1] in _RANK_PREFIXES


def _rank_run_bets(game: str) -> frozenset[str]:
    """The game's bets named like a rank run (holdem_aa's AA bet): not a holding."""
    return games.spec(game).rank_run_bets if games.is_game(game) else frozenset()


def _ranks_or_rated_hand(t: _Text, h: _Hand) -> bool:
    """Some word of ``t`` is a rank (or a pair's digits) tied to a holding by its neighbours,
    or a word for the hand with a rating next to it: single words that say a hand only by what
    stands around them."""
    ws = t.ws
    for i, w in enumerate(ws):
        f = t.folded[i]
        s = w.surface
        if s in ("A", "K", "Q", "J", "T") or (w.pos2 == _NUMERAL and s in _DIGIT_RANKS):
            nxt = t.folded[i + 1] if i + 1 < len(ws) else ""
            suit_count = nxt == _COUNTER and i > 0 and t.folded[i - 1] in _SUIT_COUNT_PARTICLES
            if nxt in h.counters and not suit_count:
                continue  # 22時, 3人, 2回
            if _rank_context(t, i, h) or _rank_prefix(t, i):
                return True
            continue
        if w.pos2 == _NUMERAL and _PAIR_DIGITS.fullmatch(s):
            if _rank_context(t, i, h) or _rank_prefix(t, i):
                return True  # 99持ってる
            continue
        if f in h.hand_nouns and _rated_hand_noun(t, i, h):
            return True
    return False


def _rated_hand_noun(t: _Text, i: int, h: _Hand) -> bool:
    """The hand noun at word i has a rating next to it, before or after (いい手, ゴミ手札,
    最強の手, 手札ひどい, 手が悪い, 手札最悪): a rating across a joiner, a particle or a
    negation still rates the hand."""
    ws = t.ws
    k = i - 1
    if k >= 1 and t.folded[k] in _RATING_JOINERS:
        k -= 1  # 最強の手, 微妙な手
    if k >= 1 and t.folded[k] == _RATING_NEGATION:
        k -= 1  # 悪くない手
    if k >= 0 and _rates(ws[k], h):
        return True
    k = i + 1
    if k < len(ws) and t.folded[k] in _RATING_PARTICLES:
        k += 1
    return k < len(ws) and _rates(ws[k], h)


def _hand_words(text: str, game: str) -> tuple[bool, tuple[NamedCard, ...]]:
    """Whether ``text`` (NFKC, short) is hand talk read on words, and the cards it names."""
    h = _hand()
    cards = tuple(named_cards(text))
    if cards:
        return True, cards
    folded = fold_nfkc(text)
    if _SUIT_COUNT.search(folded) or _RANK_COUNT.search(folded):
        return True, cards
    if h.english.search(folded):
        return True, cards
    t = _Text(text)
    ws = t.ws
    # rank groups: AA, AKs, KQo, T9, kk (not a name: AAさん; not the holdem_aa side bet)
    for m in _RANK_RUN.finditer(text):
        if m.group(0).upper() in _rank_run_bets(game) \
                and _AA_SIDE_BET.match(fold_nfkc(text[m.end():m.end() + 8])):
            continue
        rest = text[m.end():m.end() + 2]
        if rest.startswith(_NAME_SUFFIXES) or rest.startswith(_OPEN_BRACKETS):
            continue  # AAさん (a name); QQ(チャット) (explained: not poker)
        if m.group(0).upper() == "JK":
            continue  # 女子高生 as often as a joker; the joker as a card is "JK" in a run
        if _run_glued_everyday(t, m.end(), h):
            continue  # TT兄弟
        return True, cards
    if _ranks_or_rated_hand(t, h):
        return True, cards
    # vocabulary words and phrases, where a word starts (and, for words, ends)
    # the folded text has the NFKC text's offsets when folding keeps lengths (nearly always)
    same = len(folded) == len(text)
    for m in h.vocab.finditer(folded):
        if not same:
            break
        wi = t.starts.get(m.start())
        wj = t.ends.get(m.end())
        if wi is None or wj is None:
            continue
        word = m.group(0)
        if word in h.strong and (_glued_everyday(t, wj, h) or (
                wj + 1 < len(ws) and (ws[wj + 1].lemma.split("-")[0] in h.everyday_lemmas
                                      or t.folded[wj + 1] in _STRONG_EXPLAINED))):
            continue  # ナッツ類, フラッシュ暗算, ナッツ好き, ワイルドカード（野球）, 〜って何？
        if word in h.strong or _weak_stands(t, wi, wj, folded, m.start(), h):
            return True, cards
    for k, w in enumerate(ws):
        if not w.lemma and w.pos == _NOUNS[0] and len(w.surface) >= 4 \
                and _segments(t.folded[k], h):
            return True, cards
    for m in h.phrases.finditer(folded):
        if not same or m.start() in t.starts:
            return True, cards
    return False, cards


def _chunk_starts(text: str) -> list[int]:
    """Where the distinct overlapping pieces of :data:`LONG` characters of a long text start,
    each distinct piece once (spam repeats itself: 「あ」×10,000 is one piece). The stride is a
    multiple of every short period (2, 3, 4, 6, 7), so a repeated phrase gives one piece."""
    seen: dict[str, int] = {}
    for a in range(0, len(text), STRIDE):
        seen.setdefault(text[a:a + STRIDE + OVERLAP], a)
        if len(seen) >= CHUNKS:
            break
    return list(seen.values())


def _hand_info(text: str, folded: str, game: str) -> tuple[bool, tuple[NamedCard, ...]]:
    if len(text) <= LONG:
        if _hand().gate.search(folded) is None:
            return False, ()
        return _hand_words(text, game)
    gate = _hand().gate_long
    if len(folded) != len(text):
        return False, ()
    # a long text: each distinct piece once (spam repeats itself), and in it only windows
    # around the pre-check's matches, each distinct window read once (the analyser costs up to
    # ~20 µs per character of unknown text)
    found: list[NamedCard] = []
    seen: set[str] = set()
    for start in _chunk_starts(text):
        piece = folded[start:start + STRIDE + OVERLAP]
        last = -1
        for m in gate.finditer(piece):
            if m.start() < last:
                continue
            a, b = max(0, m.start() - WINDOW), min(len(piece), m.end() + WINDOW)
            last = b
            window = text[start + a:start + b]
            if window in seen:
                continue
            seen.add(window)
            yes, cards = _short_hand(window, game)
            found.extend(cards)
            if yes:
                return True, tuple(found)
            if len(seen) >= WINDOWS:
                return False, tuple(found)
    return False, tuple(found)


@lru_cache(maxsize=4096)
def _short_hand(piece: str, game: str) -> tuple[bool, tuple[NamedCard, ...]]:
    return _hand_info(piece, fold_nfkc(piece), game)


@lru_cache(maxsize=1)
def _asked() -> re.Pattern[str]:
    return re.compile(f"[{re.escape(vocab.marks('question_marks'))}]")


def _advice_of(folded: str) -> tuple[bool, bool]:
    """(advice, critique) for a folded text, also read with the blanks between its Japanese
    words taken out."""
    got = _advice_once(folded)
    # (not a question, unless said to someone: 「コール する？」 is a player asking themself,
    # 「@Lee そこ 降りる の？」 is not)
    if not got[0] and vocab.blanks_between_words().search(folded) is not None and (
            not _asked().search(folded) or _advice().addressee.search(folded) is not None):
        return _advice_once(vocab.blanks_between_words().sub("", folded))
    return got


def _advice_once(folded: str) -> tuple[bool, bool]:
    a = _advice()
    if a.gate.search(folded) is None:
        return False, False
    m = a.question.search(folded)
    if m is None or a.general.search(folded) is not None:
        return False, False
    if a.own.search(folded) is not None and a.addressee.search(folded) is None:
        return False, False  # regret, one's own options, deliberation: naming nobody
    return True, a.critique.search(folded) is not None


ADVICE_WINDOW = 24  # characters each side of a pre-check word (an advice match is short)
ADVICE_WINDOWS = 20  # at most this many distinct windows of a long text are asked


def _about_board(folded: str) -> bool:
    """The hand talk is about the board: a board word comes first (ボードペアだね, ボードにA落ちた)
    and nothing says the speaker holds anything (持, 合わせ, 俺, 手札 …)."""
    h = _hand()
    textured = h.board_words.search(folded) is not None
    b = None if textured else h.board.search(folded)
    if b is None and not textured:
        return False  # no board word: the holding cues need not be looked for
    if h.holding.search(folded) is not None:
        return False
    if len(folded) <= LONG and h.holding_english.search(folded) is not None:
        return False
    if b is None:
        return True
    first = h.gate.search(folded)
    return first is None or first.start() >= b.start()


@cache
def _loanwords() -> re.Pattern[str]:
    """The poker words the analyser knows in katakana, typed in hiragana (ふらっしゅどろー,
    えーすえーす: dictation, an IME left in hiragana)."""
    words = sorted((jaconv.kata2hira(w) for w in vocab.marks("poker_loanwords").split()),
                   key=len, reverse=True)
    return re.compile("|".join(map(re.escape, words)))


def _as_katakana(text: str) -> str:
    """``text`` with its hiragana loanwords (:func:`_loanwords`) in katakana."""
    return _loanwords().sub(lambda m: jaconv.hira2kata(m.group()), text)


@lru_cache(maxsize=16384)
def _read(text: str, game: str) -> Reading:
    text = _as_katakana(text)
    folded = fold_nfkc(text)
    hand, cards = _hand_info(text, folded, game)
    if len(text) <= LONG:
        advice, critique = _advice_of(folded)
        around = folded
    else:  # a long text: the advice's markers are read around where it was found
        advice, critique, around = _long_advice(text, folded)
    if not hand and not advice:
        return Reading(False, False)
    a = _advice()
    h = _hand()
    show = hand and _SHOW.search(folded) is not None
    return Reading(
        hand_info=hand, advice=advice, cards=cards, show=show,
        folding=show and _FOLD.search(folded) is not None,
        past=hand and _cue_holds(h.past, text, folded, game),
        topic=hand and h.topic.search(folded) is not None,
        board=hand and _about_board(folded),
        self_talk=advice and a.self_talk.search(around) is not None,
        addressed=advice and a.addressee.search(around) is not None,
        critique=critique,
        why=advice and a.why.search(around) is not None,
        aimed=advice and a.aimed.search(around) is not None,
        # (a long paste is no hope nor a remark on someone's hand: those regexes cost ~1 ms
        # per 10,000 characters each)
        hope=hand and len(text) <= LONG and _cue_holds(h.hope, text, folded, game)
        and h.strong_vocab.search(folded) is None and h.summon.search(folded) is None,
        others=hand and len(text) <= LONG and _cue_holds(h.other, text, folded, game)
        and h.own.search(folded) is None,
    )


@cache
def _cue_clause() -> re.Pattern[str]:
    """Where a clause of hand talk ends (NFKC writes … as ..., so two dots end one too; a
    concession turns to another clause: ポケットペアだけど|ディーラーの2枚次第)."""
    turns = "|".join(map(re.escape, vocab.marks_list("clause_turns")))
    return re.compile(f"[{re.escape(vocab.marks('clause_stops'))}]|\\.\\.|{turns}")


def _cue_holds(cue: re.Pattern[str], text: str, folded: str, game: str) -> bool:
    """A cue that takes the hand talk away (a finished hand, a hope, someone else's hand)
    holds unless the speaker's own hand was already told in the clauses before the cue's own
    clause: in
    「ダブルスーテッドで期待してたのにフロップ全部外れた、…前回もこんなんだった」 the story of
    the last hand comes after what the speaker says of this one."""
    m = cue.search(folded)
    if m is None:
        return False
    if len(folded) != len(text) or folded[max(m.start() - 1, 0)] in vocab.marks("aside_opens"):
        return True  # (…（前のハンド）: an aside on the whole line)
    cut = max((b.start() for b in _cue_clause().finditer(folded, 0, m.start())), default=0)
    return cut == 0 or not _read(text[:cut], game).own_hand


def _long_advice(text: str, folded: str) -> tuple[bool, bool, str]:
    """Advice in a long text: in each distinct piece, the question asked of windows around the
    pre-check's words, each distinct window once; with the window it was found in, where its
    markers (thinking aloud, someone addressed) are read."""
    if len(folded) != len(text):
        return (*_advice_of(folded), folded)
    seen: set[str] = set()
    gate = _advice().gate
    for start in _chunk_starts(text):
        piece = folded[start:start + STRIDE + OVERLAP]
        last = -1
        for m in gate.finditer(piece):
            if m.start() < last:
                continue
            lo, hi = max(0, start + m.start() - ADVICE_WINDOW), start + m.end() + ADVICE_WINDOW
            last = hi - start
            window = folded[lo:hi]
            if window in seen:
                continue
            seen.add(window)
            got = (*_advice_of(window), window)
            if got[0]:
                return got
            if len(seen) >= ADVICE_WINDOWS:
                return False, False, ""
    return False, False, ""


def read(text: str, game: str) -> Reading:
    """What ``text`` (as typed or NFKC) contains, for ``game``; never raises for any ``str``."""
    t = nfkc(text)
    if len(t) > 400:
        return _read.__wrapped__(t, game)
    return _read(t, game)


def about_others(text: str, game: str) -> bool:
    """Whether ``text`` is about another player rather than the speaker's own decision: advice
    that names or addresses someone, asks why they did something, judges an action already
    taken (そこはコールでしょ) or criticises; or a remark that names someone and says nothing
    of the speaker (ボブさんいつも降りるね). The near-miss reply ("could not read your action")
    is for the speaker's own decision only."""
    r = read(text, game)
    if r.advice and (r.addressed or r.why or r.aimed or r.critique):
        return True
    if len(text) > LONG:
        return False  # a paste names nobody in particular
    folded = fold_nfkc(nfkc(text))
    a = _advice()
    return a.addressee.search(folded) is not None and a.self_talk.search(folded) is None


@lru_cache(maxsize=4096)
def advice(text: str) -> bool:
    """Whether ``text`` (NFKC) is advice: the second answer of :func:`scan`, for any game,
    without the hand talk that :func:`scan` reads as well (a reading's advice is found on the
    text alone). The clause reader asks it of what a message says beside its action."""
    folded = fold_nfkc(text)
    if len(text) <= LONG:
        return _advice_of(folded)[0]
    return _long_advice(text, folded)[0]


def scan(text: str, norm: str, game: str) -> tuple[bool, bool]:
    """(hand_info, advice) for one message of ``game``: ``text`` as typed after
    :func:`referee.lang.normalize.nfkc`, ``norm`` its :func:`~referee.lang.normalize.fold`.
    ``hand_info`` is :attr:`Reading.own_hand` (never in a game dealt face up)."""
    r = _read(text, game) if len(text) <= 400 else _read.__wrapped__(text, game)
    return r.own_hand and game not in _hand().face_up, r.advice
