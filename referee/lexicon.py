"""Hand-information and advice detection: does a message talk about cards, or about someone's play?

The referee flags *information leaks* (RULES.md: nobody may reveal anything about a current hand
outside the proper moments, true or false) and *interference* (criticising an action, coaching
that affects the game, demanding a change). This module only answers two lexical questions about
one normalised message (see :func:`referee.parse.normalize`: NFKC, case-folded, katakana as
hiragana); whether a hand is running, who wrote it and what to do is the service's business.

What ``hand_info`` catches (any one is enough):

- cards in any notation the grammar reads (``As``, ``A♠``, ``♠A``, ``10s``, ``スペードのA``,
  ``AhKh``, a joker);
- rank groups written the poker way: ``AA``, ``KK``, ``AK``, ``AKs``, ``KQo``, ``AAKK``, ``T9``
  (2-4 ranks with at least one letter), a lone ``A``/``K``/``Q``/``J`` (``Kが来た``), a digit rank
  tied to a hand word (``9のペア``, ``7が来た``), rank names (エース, キング, クイーン, ジャック);
- suit words (スペード, ハート, ダイヤ, クラブ, スーテッド, suited);
- hand classes of every game (ペア, ツーペア, セット, トリップス, ストレート, フラッシュ, フルハウス,
  フォーカード, ストフラ, ロイヤル, ブタ/ノーペア, ビッグハウス, ミドルハウス, セブンフラッシュ,
  デュース, ワイルド, ジョーカー, キッカー and English names);
- draws (ドロー, フラドロ, ガットショット, オープンエンド, 両面, バックドア, ランナーランナー, アウツ);
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

from referee.cards import CARD_PATTERN

# --- hand information ----------------------------------------------------------------------------

# A run of cards with nothing alphanumeric glued on either side (so "ask", "yeah" are not cards).
_CARD_RUN = (
    r"(?<![a-z0-9])(?:" + re.sub(r"\?P<\w+>", "?:", CARD_PATTERN) + r")+(?![a-z0-9])"
)
_RANK = r"(?:10|[2-9tjqka])"
# 2-4 ranks with at least one letter (AA, AK, KQo, AAKK, T9); pure digits are counts, not ranks.
_RANK_RUN = rf"(?<![a-z0-9])(?=[0-9tjqka]*[tjqka]){_RANK}{{2,4}}[so]?(?![a-z0-9])"
_LONE_RANK = r"(?<![a-z0-9.])[akqj](?![a-z0-9])"
_DIGIT_RANK = (
    r"(?<![0-9.,])(?:10|[2-9])の?(?:ぺあ|わんぺあ|ぽけっと|すりーかーど|とりっぷす|せっと|"
    r"ふぉーかーど|はい(?!ぱー)|が(?:来|き|落|出|入)|を(?:持|引)|持って|引い)"
)
_HAND_WORDS = "|".join([
    # ranks and suits by name
    "えーす", "きんぐ", "くいーん", "じゃっく", "すぺーど", "はーと", "だいや", "だいあ", "くらぶ",
    "くろーばー", "すーてっど", "同すーと", "おふすーと", "suited", "offsuit",
    # hand classes (all games)
    "ぺあ", "とりっぷす", "とりぷす", "すりーかーど", "すりかー", "すりーおぶあ?かいんど",
    "せっと(?!あっ?ぷ|する|して|で買|ばっく)", "すとれーと(?!に)", "すとふら", "ふらっしゅ",
    "ふるはう", "ふぉーかーど", "ふぉーおぶあ?かいんど", "ふぁいぶおぶあ?かいんど", "くあっず",
    "くわっず", "ろいやる", "ぶた(?!肉|汁|丼|ばら)", "のーぺあ", "はいかーど", "きっかー",
    "びっぐはうす", "みどるはうす", "でぃふぇくてぃぶ", "せぶん(?:ふらっしゅ|すとれーと|おぶ|かーど)",
    "でゅーす", "でゅーしーず", "わいるど", "じょーかー", "手役", "手札", "ぽけっと",
    "役(?:なし|無し|が(?:な|でき|入|揃)|は|入|でき|完成|揃)",
    # draws
    "どろー", "ふらどろ", "すとどろ", "がっと", "おーぷんえんど", "両面", "ばっくどあ", "らんなー",
    "あうつ",
    # strength
    "(?<!ー)なっつ", "もんすたー", "ぶらふ", "(?:いい|良い|強い|弱い|ごみ|くそ|糞|最強|最弱)手",
    "手が(?:いい|良い|強|弱|悪|入|来|ひど|しょぼ)",
    # English
    r"(?<![a-z])(?:pairs?|trips|set|straight|flush|full ?house|quads|nuts?|boat|kicker|"
    r"top ?pair|overpair|gutshot|oesd|outs|draw|bluff)(?![a-z])",
])

# --- advice ----------------------------------------------------------------------------------------

_ACTION = (
    "(?:こーる|れいず|ふぉーるど|ふぉるど|ちぇっく|べっと|おーるいん|めいく|降り|おり(?=[たるれろなと])|"
    "ぽっと|ぶらふ|押し|攻め|あくしょん|打ち|打つ|参加|見送|call|raise|fold|check|bet|shove|jam)"
)
_MODAL = (
    "(?:す(?:る)?べき|べき|(?:し|っ|る|た)(?:ほう|方)が|しな(?:よ|さい|きゃ|いと)|しろ|しとけ|"
    "しときな|しましょう|しよう(?:よ|ぜ)|(?:し|た)ら(?:[?？]|いい|どう|よかった|良かった)|"
    "すれば|すりゃ|しちゃ(?:だめ|駄目)|するな|でしょ|だろ|しかない|一択|はない|は?ありえな|"
    "は悪手|は下手|はへた|はみす|はおかしい|は微妙|に(?:変え|変更|し)(?:て|たら|ろ|な(?:よ|さい)))"
)
_ADVICE_WORDS = "|".join([
    rf"{_ACTION}[^。\n!?？]{{0,6}}?{_MODAL}",
    rf"(?:なんで|なぜ|何故|どうして)[^。\n]{{0,15}}?{_ACTION}",
    r"悪手", "みすぷれ", r"(?<![るぐ])みす(?:だ|でしょ|じゃ|って)", "下手(?:くそ|糞)", "へたくそ",
    "ありえな(?:い|すぎ)",
    r"(?:訂正|撤回|取り?消|やり直|考え直)(?:して|したら|しろ|しな|すべき|すれば|せ(?:よ|ば)?)",
    r"(?<![a-z])(?:should(?:n'?t)?(?: have)?|why (?:did|would) you|bad|terrible|awful) "
    r"(?:call|raise|fold|check|bet|shove|play)",
    "misplay",
])

# In holdem_aa, "AA 50" / "AAベット" / "AAなし" name the side bet, not a pair of aces.
_AA_SIDE_BET = r"(?!aa\s*(?:\d|べっと|bet|賭|かけ|なし|無し|配当))"


@cache
def _patterns(game: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    rank_run = _AA_SIDE_BET + _RANK_RUN if game == "holdem_aa" else _RANK_RUN
    hand = "|".join([_CARD_RUN, rank_run, _LONE_RANK, _DIGIT_RANK, _HAND_WORDS])
    return re.compile(hand), re.compile(_ADVICE_WORDS)


def scan(norm: str, game: str) -> tuple[bool, bool]:
    """(hand_info, advice) for one normalised message of ``game``."""
    hand, advice = _patterns(game)
    return hand.search(norm) is not None, advice.search(norm) is not None
