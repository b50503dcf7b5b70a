"""Hand-information and advice detection: does a message talk about cards, or about someone's play?

The referee flags *information leaks* (RULES.md: nobody may reveal anything about a current hand
outside the proper moments, true or false) and *interference* (criticising an action, coaching
that affects the game, demanding a change). This module only answers two lexical questions about
one message in the form :func:`referee.parse.normalize` gives (NFKC, case-folded, katakana as
hiragana, so ナッツ, なっつ and ﾅｯﾂ are one word). Whether a hand is running, who wrote it and what
to do is the service's business.

Speed: a short message is searched with one alternation per question (a few microseconds). A long
one (pasted text, spam) is searched word by word instead, so a 10,000-character message costs
about a millisecond whatever it contains, instead of trying every alternative at every position:
a plain word is found by ``str.__contains__``, a pattern led by a literal is searched only once
that literal is in the text, and the few patterns led by a character class each skip through
the text in C to the characters they can start with.

What ``hand_info`` catches (any one is enough):

- cards in any notation the grammar reads (``As``, ``A♠``, ``♠A``, ``10s``, ``スペードのA``,
  ``AhKh``, a joker);
- rank groups written the poker way: ``AA``, ``KK``, ``AK``, ``AKs``, ``KQo``, ``AAKK``, ``T9``
  (2-4 ranks with at least one letter), a lone ``A``/``K``/``Q``/``J`` (``Kが来た``), a digit rank
  tied to a hand word (``9のペア``, ``7が来た``), rank names (エース, キング, クイーン, ジャック);
- suit words (スペード, ハート, ダイヤ, クラブ, スーテッド, suited);
- hand classes of every game (ペア, ツーペア, セット, トリップス, ストレート, フラッシュ,
  フルハウス, フォーカード, ストフラ, ロイヤル, ブタ/ノーペア, ビッグハウス, ミドルハウス,
  セブンフラッシュ, デュース, ワイルド, ジョーカー, キッカー and English names);
- draws (ドロー, フラドロ, ガットショット, オープンエンド, 両面, バックドア, ランナーランナー,
  アウツ);
- strength talk (ナッツ, モンスター, ブラフ, いい手/強い手/弱い手/ゴミ手, 手が悪い/入った, 役なし).

What ``advice`` catches:

- an action word followed within a few characters by a normative or imperative ending:
  ``コールすべき``, ``レイズすべきでしょ``, ``降りたほうがいい``, ``降りろ``, ``チェックしとけ``,
  ``フォールドでしょ``, ``ベットしかない``, ``コールはない``, ``レイズに変えて``;
- "why" + an action word: ``なんでそこでコールするの``, ``どうして降りたの``;
- critique and change demands on their own: 悪手, ミスだよ, ミスプレイ, 下手くそ, ありえない,
  訂正して/したら, 取り消して, やり直して, 撤回して, 考え直して;
- the English equivalents (``should call``, ``why did you fold``, ``bad call``, ``misplay``).

Known limits (the flags have a ``confidence``; a moderator confirms or dismisses them):

- it is lexical: sarcasm, hints without poker words (「いや〜それは…」), emoji, images and
  paraphrase (「あと一枚で完成」) are missed;
- English words that look like cards or ranks (``as``, ``ah``, ``a``, ``at``, ``QA``) and words
  that are also ordinary Japanese (セット, ストレート, ダイヤ, ドロー, ブタ) give false positives;
- bare digits are not ranks (``2枚``, ``3人``, ``22時`` are everyday counts) unless a hand word
  follows, so 「9持ってる」 is missed;
- in ``holdem_aa``, ``AA`` followed by an amount or a bet word is the side bet, not aces;
- self-talk about one's own past play (「コールしたほうがよかったかな」) reads as advice;
- ナイスハンド, gg and other compliments are neither.
"""

from __future__ import annotations

import re
from functools import cache

# Texts longer than this are scanned pattern by pattern (see the module docstring).
LONG = 600

_SUITS = "♠♤♥♡♦♢♣♧"
_RANK = "(?:10|[2-9tjqka])"
# The compact card forms of grammar/common.lark's CARD (スペードのA is caught by スペード anyway);
# in free text a card must also stand apart from other letters on the left (not "yeah").
_CARD = rf"(?:{_RANK}[cdhs{_SUITS}]|[{_SUITS}]{_RANK})"


def _led(first: str, pattern: str) -> str:
    """``pattern`` behind a consuming [first] class, so a search can skip in C to candidates.

    The class eats the first character, then a one-character lookbehind steps back and checks the
    whole pattern from there (its own lookbehinds included).
    """
    return f"[{first}](?<=(?={pattern}).)"


_HAND: list[str] = [
    # a run of compact cards (As, A♠, ♠A, 10s, AhKh) with nothing alphanumeric glued on
    _led(f"1-9tjqka{_SUITS}", rf"(?<![a-z0-9]){_CARD}(?:(?![a-z0-9])|(?={_CARD}))"),
    # a lone A K Q J (Kが来た); not the k of 1.5k
    _led("akqj", r"(?<![a-z0-9.])[akqj](?![a-z0-9])"),
    # a digit rank tied to a hand word (7が来た, 5ハイ; 9のペア is caught by ペア anyway)
    _led("1-9", r"(?<![0-9.,])(?:10|[2-9])の?"
                r"(?:はい(?!ぱー)|が(?:来|き|落|出|入)|を(?:持|引)|持って|引い)"),
    # ranks and suits by name
    "えーす", "きんぐ", "くいーん", "じゃっく", "すぺーど", "はーと", "だいや", "だいあ", "くらぶ",
    "くろーばー", "すーてっど", "同すーと", "おふすーと", "suited", "offsuit",
    # hand classes of every game
    "ぺあ", "とりっぷす", "とりぷす", "すりーかーど", "すりかー", "すりーおぶあ?かいんど",
    "せっと(?!あっ?ぷ|する|して|で買|ばっく)", "すとれーと(?!に)", "すとふら", "すとどろ",
    "ふらっしゅ", "ふらどろ", "ふるはう", "ふぉーかーど", "ふぉーおぶあ?かいんど",
    "ふぁいぶおぶあ?かいんど", "くあっず", "くわっず", "ろいやる", "ぶた(?!肉|汁|丼|ばら)",
    "のーぺあ", "はいかーど", "きっかー", "びっぐはうす", "みどるはうす", "でぃふぇくてぃぶ",
    "せぶん(?:ふらっしゅ|すとれーと|おぶ)", "でゅーす(?!ぼーなす)", "でゅーしーず", "わいるど",
    "じょーかー", "手役", "手札", "ぽけっと",
    "役(?:なし|無し|が(?:な|でき|入|揃)|は|入|でき|完成|揃)",
    "手が(?:いい|良い|強|弱|悪|入|来|ひど|しょぼ)",
    # draws and strength
    "どろー", "がっと", "おーぷんえんど", "ばっくどあ", "らんなー", "あうつ", "両面",
    "なっつ(?<!ーなっつ)", "もんすたー", "ぶらふ",
    _led("いよ強弱ごく糞最何なひし",
         "(?:いい|良い|強い|弱い|ごみ|くそ|糞|最強|最弱|何もない|なにもない|ひどい|しょぼい)手"),
    # English
    _led("ptsfqnbkgod", r"(?<![a-z])(?:pairs?|trips|set|straight|flush|full ?house|quads|nuts?|"
         r"boat|kicker|top ?pair|overpair|gutshot|oesd|outs|draw|bluff)(?![a-z])"),
]

_ACTION = (
    "(?:こーる|れいず|ふぉーるど|ふぉるど|ちぇっく|べっと|おーるいん|めいく|降り|おり(?=[たるれろなと])|"
    "ぽっと|ぶらふ|押し|攻め|あくしょん|打ち|打つ|参加|見送|call|raise|fold|check|bet|shove|jam)"
)
_MODAL = (
    "(?:す(?:る)?べき|べき|(?:し|っ|る|た)(?:ほう|方)が|しな(?:よ|さい|きゃ|いと)|しろ|しとけ|"
    "しときな|しましょう|しよう(?:よ|ぜ)|(?:し)?てください|しないの|で(?:よ|良)かった|"
    "(?:し)?すぎ(?!た)|(?:し|た)ら(?:[?？]|いい|どう|よかった|良かった)|"
    "すれば|すりゃ|しちゃ(?:だめ|駄目)|するな|でしょ|だろ|しかない|一択|はない|は?ありえな|"
    "は悪手|は下手|はへた|はみす|はおかしい|は微妙|に(?:変え|変更|し)(?:て|たら|ろ|な(?:よ|さい)))"
)
# Words every match of _ACTION / _MODAL / the "why" contains: a long text is searched for the
# (costly) patterns below only when each of their parts can be found by str.__contains__.
_ACTION_WORDS = tuple(
    "こーる れいず ふぉーるど ふぉるど ちぇっく べっと おーるいん めいく 降り おり ぽっと ぶらふ "
    "押し 攻め あくしょん 打ち 打つ 参加 見送 call raise fold check bet shove jam".split()
)
_MODAL_WORDS = tuple(
    "べき ほうが 方が しな しろ しとけ しとき しましょう しよう てください でよかった で良かった "
    "すぎ ら? ら？ らいい らどう らよかった ら良かった すれば すりゃ しちゃ するな でしょ だろ "
    "しかない 一択 はない ありえな 悪手 下手 はへた はみす おかしい 微妙 に変え に変更 にし".split()
)
_WHY_WORDS = ("なんで", "なぜ", "何故", "どうして")
# An action word with a normative/imperative ending: コールすべき, 降りたほうがいい, レイズに変えて.
_SHOULD = _led("これふちべおめ降ぽぶ押攻あ打参見crfbsj", rf"{_ACTION}[^。\n!?？]{{0,6}}?{_MODAL}")
# "why" + an action word: なんでそこでコールするの.
_WHY = _led("など何", rf"(?:なんで|なぜ|何故|どうして)[^。\n]{{0,15}}?{_ACTION}")
_ADVICE: list[str] = [
    # orders to fold: 降りろ, 降りとけ, 降りれば
    "(?:降り|おり)(?:ろ|とけ|ときな|なよ|なさい|れば)",
    # critique and demands to change, on their own
    "悪手", "みすぷれ", "みす(?<![るぐ]みす)(?:だ|でしょ|じゃ|って)", "下手(?:くそ|糞)", "へたくそ",
    "ありえな(?:い|すぎ)",
    _led("訂撤取やと考", r"(?:訂正|撤回|取り?消|やり直|考え直)"
                          r"(?:して|したら|しろ|しな|すべき|すれば|した(?:ほう|方)が|せ(?:よ|ば)?)"),
    _led("sbtwa", r"(?<![a-z])(?:should(?:n'?t)?(?: have)?|why (?:did|would) you|bad|terrible|"
                  r"awful) (?:call|raise|fold|check|bet|shove|play)"),
    _led("crfb", r"(?<![a-z])(?:call|raise|fold|check|bet) (?:pls|plz|please)"),
    "misplay",
]

# 2-4 ranks with at least one letter: AA, AK, KQo, AAKK, T9 (pure digits are counts).
_RANK_RUN = rf"(?<![a-z0-9])(?=[0-9tjqka]*[tjqka]){_RANK}{{2,4}}[so]?(?![a-z0-9])"
# In holdem_aa, "AA 50" / "AAベット" / "AAなし" name the side bet, not a pair of aces.
_AA_SIDE_BET = r"(?!aa\s*(?:\d|べっと|bet|賭|かけ|なし|無し|配当))"


_META = set("\\.^$*+?{}[]()|")


def _literal_prefix(pattern: str) -> str:
    """The characters every match of ``pattern`` starts with ("" when it starts with syntax)."""
    out: list[str] = []
    for ch in pattern:
        if ch in _META:
            if ch in "?*{":  # the previous character is optional or repeated
                out = out[:-1]
            break
        out.append(ch)
    return "".join(out)


# (parts, pattern): every match of pattern contains a word of each part.
Guarded = tuple[tuple[tuple[str, ...], ...], str]


class _Question:
    """One yes/no question over a list of patterns, compiled for short and for long texts.

    A short text is searched with one alternation. A long one word by word: a pattern led by a
    literal is only searched once ``str.__contains__`` (C, skipping by the word's length) has
    found that literal; a pattern that is nothing but a literal needs nothing more. ``guarded``
    patterns are searched in a long text only once a word of each of their parts is in it.
    """

    def __init__(self, patterns: list[str], guarded: tuple[Guarded, ...] = ()) -> None:
        every = [*patterns, *(p for _, p in guarded)]
        self.short = re.compile("|".join(f"(?:{p})" for p in every))
        self.words: list[str] = []  # plain literals
        self.led: list[tuple[str, re.Pattern[str]]] = []  # (literal prefix or "", pattern)
        for p in patterns:
            prefix = _literal_prefix(p)
            if prefix == p:
                self.words.append(p)
            else:
                self.led.append((prefix, re.compile(p)))
        self.guarded = [(parts, re.compile(p)) for parts, p in guarded]

    def __call__(self, text: str) -> bool:
        if len(text) <= LONG:
            return self.short.search(text) is not None
        return (
            any(w in text for w in self.words)
            or any((not pre or pre in text) and p.search(text) is not None for pre, p in self.led)
            or any(
                all(any(w in text for w in words) for words in parts)
                and p.search(text) is not None
                for parts, p in self.guarded
            )
        )


@cache
def _questions(game: str) -> tuple[_Question, _Question]:
    rank_run = (_AA_SIDE_BET if game == "holdem_aa" else "") + _RANK_RUN
    hand = _Question([_led("1-9tjqka", rank_run), *_HAND])
    guarded: tuple[Guarded, ...] = (
        ((_ACTION_WORDS, _MODAL_WORDS), _SHOULD), ((_WHY_WORDS, _ACTION_WORDS), _WHY),
    )
    return hand, _Question(_ADVICE, guarded)


def scan(text: str, norm: str, game: str) -> tuple[bool, bool]:
    """(hand_info, advice) for one message of ``game``: ``text`` as typed after
    :func:`referee.lang.normalize.nfkc`, ``norm`` its :func:`~referee.lang.normalize.fold`."""
    hand, advice = _questions(game)
    return hand(norm), advice(norm)
