"""Leak and interference judgement end to end: innocent talk is never penalised,
real leaks are flagged (only a hidden card named in card notation is penalised at once), one
penalty per player per hand, and ``!dismiss`` gives the points back with a reversing entry."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli
from event_helpers import of, says
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.adapters.transcript import replay_events
from referee.cards import parse_cards
from referee.discipline import interference_priority, leak_judgement
from referee.parse import parse
from referee.service import Referee

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "tests" / "transcripts" / "service"


def events(name: str, ref: Referee | None = None) -> list[dict[str, Any]]:
    return [e.to_json() for e in replay_events(DIR / name, referee=ref)]


def test_ordinary_table_talk_is_never_flagged_or_penalised() -> None:
    ref = Referee()
    evs = events("innocent_talk.txt", ref)
    assert of(evs, "flag") == [] and of(evs, "penalty") == []
    assert "未処理のフラグはありません。" in says(evs)
    # nobody lost a point: the bank holds the opening balances plus the chips taken home
    assert not [e for e in ref.bank.ledger if e.reason.startswith("penalty")]


def test_real_leaks_are_flagged_and_exact_cards_penalised_at_once() -> None:
    ref = Referee()
    evs = events("leaks_judged.txt", ref)
    flags = [(f["player"], f["text"], f["confidence"]) for f in of(evs, "flag")]
    assert flags == [
        ("carol", "ハート3枚", "high"),  # a suit count she holds
        ("carol", "フラドロなんだよね", "low"),  # a draw
        ("dave", "ナッツだわ", "low"),  # strength
        ("bob", "降りたのはQQでした", "high"),  # a folded player's pair, verified
        ("bob", "Ts持ってた", "high"),  # a folded card, still hidden: penalised at once
        ("alice", "A♠持ってる", "high"),  # a hidden card: penalised at once
        ("dave", "いい手来た", "low"),
    ]
    assert [(p["player"], p["points"]) for p in of(evs, "penalty")] == [
        ("bob", 1000), ("alice", 1000)]
    assert {ref.flags[i].status for i in (5, 6)} == {"confirmed"}
    assert all(ref.flags[i].status == "open" for i in (1, 2, 3, 4, 7))
    room = says(evs)
    listing = next(s for s in room if s.startswith("未処理のフラグ（5件）"))
    assert "#1 carolさん" in listing and "ハート3枚" not in listing  # never the words in the room
    (private,) = says(evs, to="dealer")
    assert "「ハート3枚」" in private  # a moderator asking privately sees them
    assert not any("A♠" in s or "Ts" in s for s in room)


def test_one_penalty_per_hand_and_dismiss_reverses_the_points() -> None:
    ref = Referee()
    evs = events("penalty_once.txt", ref)
    assert [(p["player"], p["kind"]) for p in of(evs, "penalty")] == [
        ("alice", "information_leak"), ("eve", "interference")]
    room = says(evs)
    assert sum("1ハンドにつき1回" in s for s in room) == 2  # flag 1 (alice) and flag 4 (eve)
    (leave,) = of(evs, "leave", player="alice")
    before = 3000 + leave["bank"] - 1000
    assert f"aliceさんのバンク残高: {before:,}P" in room
    # !dismiss 2 (the automatic flag): the points return, the fold and removal stand
    assert of(evs, "penalty_reversed", player="alice") == [
        {"event": "penalty_reversed", "player": "alice", "kind": "information_leak",
         "points": 1000, "flag": 2}]
    assert any("強制フォールドと強制退席は取り消せません" in s for s in room)
    assert f"aliceさんのバンク残高: {before + 1000:,}P" in room
    assert ref.bank.balance("alice") == 3000 + leave["bank"]
    assert [e.delta for e in ref.bank.ledger if e.player == "alice"] == [
        3000, -1000, leave["bank"], 1000]
    assert "alice" not in ref.tables["transcript"].engine.stacks()
    assert "dealerさん: フラグ#2はすでに処理済みです" in room
    assert any("（返還済み）" in s for s in room)
    # eve's interference penalty reversed too: points and the rank mark come back
    assert ref.bank.balance("eve") == 9000 and ref.ranks["eve"] == "銀"
    assert room[-1] == "未処理のフラグはありません。"


def test_records_show_the_penalty_and_its_reversal(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    code, _, err = run_cli(["replay", "--db", db, str(DIR / "penalty_once.txt")])
    assert code == 0, err
    code, out, err = run_cli(["records", "--db", db, "ledger", "--player", "alice", "--json"])
    assert code == 0, err
    rows = [json.loads(x) for x in out.splitlines()]
    reasons = [(row["delta"], row["reason"], row["event"]) for row in rows]
    assert (-1000, "penalty:information_leak", "penalty") in reasons
    assert (1000, "penalty_reversed:information_leak", "penalty_reversed") in reasons
    code, out, err = run_cli(["records", "--db", db, "flags", "--player", "alice", "--json"])
    assert code == 0, err
    statuses = {json.loads(x)["id"]: json.loads(x)["status"] for x in out.splitlines()}
    assert statuses == {1: "confirmed", 2: "dismissed"}


OMAHA = parse_cards("Kc Kd 7s 2h")
BOARD = parse_cards("Ks 9d 4c")


@pytest.mark.parametrize(
    "text,holding",
    [
        ("明日早いから目覚ましセットしたｗ", "Kc Kd 7s 2h"),
        ("晩ごはんブタの角煮だったｗ", "Qh Tc 5d 3s"),
        ("Kさん、今日は22時までですか？", "2c 2d Kh 9s"),
        ("Jさん、おかえり", "Jc Jd 9h 9s"),
        ("Ah, I see", "Ah As 9d 9c"),
        ("2hくらいやります", "2h 2d 9c 9s"),
        ("セットメニュー頼んだ", "Kc Kd 7s 2h"),
        ("ナイスハンド！", "Ah Kh Qd Jd"),
        ("さっきのハンド、ストレートだったのに負けた", "Ah Kh Qd Jd"),
        ("フォールド Ah見せ", "Ah As 9d 9c"),
        ("ありがとう♥Kさん", "Kh Ks 9d 9c"),
        ("ランチはAセットにした", "Ah As Ad 9c"),
        ("アラーム7時にセット", "7h 7s 7d 9c"),
    ],
)
def test_innocent_lines_are_not_leaks(text: str, holding: str) -> None:
    assert leak_judgement(text, "omaha", parse_cards(holding), [], BOARD) is None


@pytest.mark.parametrize(
    "text,automatic",
    [("A♠持ってる", True), ("スペードのA", True), ("Aスペードだよ", True), ("As持ってる", True),
     ("AsKh", True), ("ハート2枚", False), ("99持ってる", False), ("ナッツ", False),
     ("手札ひどい", False), ("あと一枚", False), ("ポケットA", False)],
)
def test_leaks_and_which_are_certain(text: str, automatic: bool) -> None:
    v = leak_judgement(text, "omaha", parse_cards("As Kh 9h 9c"), [], [])
    assert v is not None and v.automatic is automatic


def test_innocent_lines_of_the_corpus_never_name_a_card_for_certain() -> None:
    """Whatever the speaker holds, no innocent line of a running hand could be penalised at
    once: none names a card in certain notation (outside a show or a finished hand; a game
    dealt face up, where the speaker holds nothing hidden, is no leak whatever it names)."""
    from referee.lexicon import read

    for line in (ROOT / "tests" / "corpus" / "judgement.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        if row["label"] != "innocent" or not row.get("in_hand", True):
            continue
        if row.get("shown") and row.get("shown") == row.get("holding"):
            continue
        r = read(row["text"], row["game"])
        certain = [c for c in r.cards if c.certain]
        assert not certain or r.show or r.past or r.topic, row["text"]


def test_a_card_shown_or_at_the_showdown_is_not_penalised() -> None:
    hole = parse_cards("As Kh 9h 9c")
    assert leak_judgement("A♠見せたよ", "omaha", hole, parse_cards("As"), []) is None
    v = leak_judgement("A♠持ってる", "omaha", hole, [], [], showdown=True)
    assert v is not None and not v.automatic and v.priority == "low"


@pytest.mark.parametrize(
    "text,to_act,dealt,expected",
    [
        ("降りたほうがいいかな", True, True, None),  # own turn, thinking aloud
        ("早くアクションしてください", False, False, None),  # hurrying
        ("コールしてくれてありがとう", False, False, None),
        ("ボブさんフォールドして", False, False, "high"),
        ("ボブさんフォールドして", True, True, "high"),  # addressed: not about oneself
        ("もっと攻めて", False, False, "high"),
        ("ちゃんと考えて", False, False, "high"),
        ("ここはハイパーでしょ", False, False, "low"),
        ("全部残しなよ", False, False, "low"),
        ("降りたほうがいいかも", False, False, "low"),  # a spectator musing about someone else
        ("なんでさっきレイズしたの", True, True, "low"),  # own turn, but about someone else's raise
        ("次からもっと攻めよう", False, True, None),  # a dealt-in player's resolution
        # the player to act criticising the fold just made: about someone else's decision
        ("そこはコールでしょ", True, True, "low"),
        ("今のフォールドは早計ですな", True, True, "high"),
        ("ここはコールかなぁ", True, True, None),  # her own decision, thinking aloud
        ("わたくしでしたらコールいたしますわね", False, True, "low"),  # in someone's place
        ("そこはコールやろ", False, False, "low"),
        ("早よ降りなはれ", False, False, "low"),
        ("trust me", False, False, "high"),
        ("bobさん、それ捨てるならKの方じゃない？", False, True, "high"),
        # not advice: regret, one's own options or the rules, deliberation, habits, trains
        ("レイズしとけばよかったなー", False, True, None),
        ("何点コールすればいいんでしたっけ？", False, False, None),
        ("オールインって言ったら取り消せないんだっけ？", False, False, None),
        ("降りるべきか否か、それが問題でございます", False, False, None),
        ("わたしって毎回コールしすぎなんだよね", False, True, None),
        ("次の駅で降りてください", False, False, None),
        ("コールなさいますか？ゆっくりで大丈夫ですよ", False, False, None),
    ],
)
def test_interference(text: str, to_act: bool, dealt: bool, expected: str | None) -> None:
    game = "seven" if "ハイパー" in text else "deuces" if "残し" in text else "omaha"
    assert interference_priority(text, game, to_act=to_act, dealt=dealt) == expected


@pytest.mark.parametrize(
    "text,game,own",
    [
        # strength without a card word, in any register or dialect: low-priority hand talk
        ("なんも当たってへん", "omaha", True),
        ("かすりもしてへんわ", "deuces", True),
        ("まったく当たっておりません", "holdem_aa", True),
        ("クズ手", "omaha", True),
        ("手がばらばらでございまして", "deuces", True),
        ("ストレートが出来上がっております", "omaha", True),
        ("7-2オフとか", "holdem_aa", True),
        ("ストレートできた", "omaha", True),
        # not the speaker's own hidden hand in the current hand
        ("ストレートできた", "seven", False),  # seven deals every card face up
        ("フルハウスってフォーカードより強いんですか？", "omaha", False),  # the rules
        ("前のハンドのフルハウスは痺れた", "omaha", False),  # a finished hand
        ("ボーナスエリアにスリーカード揃ってる", "deuces", False),  # public
        ("ジョーカー来てほしい", "deuces", False),  # a hope
        ("エースのポケット来ますように", "holdem_aa", False),
        ("フラッシュドローだから、もう一枚来てくれれば", "omaha", True),  # a hope, and a draw
        ("スペードのAのタトゥー入れた", "omaha", False),  # a tattoo
        ("ハートのエースが出てこないって歌", "omaha", False),  # a song
        ("相手のフラッシュ怖い", "omaha", False),  # someone else's hand
        ("ジョーカー引いてるやついて草", "deuces", False),
    ],
)
def test_hand_info_is_the_speakers_own_hidden_hand(text: str, game: str, own: bool) -> None:
    assert parse(text, game).hand_info is own


def test_a_story_naming_a_held_card_is_still_judged_against_the_holding() -> None:
    """The parser's flag is the own hand only, but a finished-hand story that names a card the
    speaker holds now is a flag for a moderator (never automatic)."""
    said = "さっきのハンドでA♠持ってたのに"
    assert not parse(said, "omaha").hand_info
    v = leak_judgement(said, "omaha", parse_cards("As Kh 9h 9c"), [], [])
    assert v is not None and not v.automatic


def test_a_tattoo_or_a_song_naming_a_held_card_is_no_leak() -> None:
    hole = parse_cards("As Ah Kd Qc")
    assert leak_judgement("スペードのAのタトゥー入れた", "omaha", hole, [], []) is None
    assert leak_judgement("ハートのエースが出てこないって歌", "omaha", hole, [], []) is None


def test_face_up_games_are_games() -> None:
    from referee.games import BUILTIN as GAME_IDS
    from referee.lexicon import _hand

    assert _hand().face_up and _hand().face_up <= set(GAME_IDS)


@pytest.fixture(scope="module")
def judged() -> tuple[dict[str, Any], list[str]]:
    """bench/judgement.py's scores on its corpus (tests/corpus/judgement.jsonl), computed once
    for the module: every line is parsed and judged, a few seconds of work."""
    sys.path.insert(0, str(ROOT / "bench"))
    import judgement

    return judgement.score(judgement.load(judgement.DEFAULT))  # type: ignore[no-any-return]


def test_judgement_bench_meets_the_targets_on_its_corpus(
        judged: tuple[dict[str, Any], list[str]]) -> None:
    out, notes = judged
    assert out["lines"] >= 250
    assert out["automatic_on_innocent"] == 0, notes
    assert out["hand_talk"]["precision"] >= 0.9 and out["hand_talk"]["recall"] >= 0.85, notes
    assert out["interference"]["precision"] >= 0.85, notes
    assert out["interference"]["recall"] >= 0.75, notes


def test_a_broken_vocabulary_file_is_one_clear_error(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from referee import lexicon

    (tmp_path / "advice.toml").write_text('modal = ["(unclosed"]\n', encoding="utf-8")
    monkeypatch.setattr(lexicon, "LEXICON_DIR", tmp_path)
    with pytest.raises(lexicon.LexiconError, match=r"advice.toml: modal: '\(unclosed'"):
        lexicon._load("advice.toml")
    (tmp_path / "hand.toml").write_text("strong = 3\n", encoding="utf-8")
    with pytest.raises(lexicon.LexiconError, match="strong must be a list of strings"):
        lexicon._load("hand.toml")


@settings(max_examples=examples(400), deadline=None)
@given(st.text(alphabet=st.sampled_from(list(
    "AKQJT98765432shdc♠♥♦♣ のがを持来たさん時枚ペアセットブタナッツ手札いい、。？ 0123456789")),
    max_size=40), st.sampled_from(["omaha", "holdem_aa", "seven", "deuces"]))
def test_judgement_never_raises(text: str, game: str) -> None:
    hole = parse_cards("As Kh 9h 9c")
    v = leak_judgement(text, game, hole, [], parse_cards("9d 2c 3s"))
    assert v is None or v.priority in ("high", "low")
    assert interference_priority(text, game, to_act=False, dealt=True) in (None, "high", "low")


def test_a_spectators_demand_shaped_like_an_action_is_flagged() -> None:
    base = (DIR / "penalty_once.txt").read_text(encoding="utf-8").split("[21:00:01]")[0]
    text = base + ("eve: レイズして\neve: コール\nalice: こ\nbob: 降りたほうがいいかな\n"
                   "eve: 早くアクションしてください\n")
    evs = [e.to_json() for e in replay_events(text=text)]
    # eve's demand is a flag (the parser may read it as an action: she cannot act); her bare
    # 「コール」, bob thinking aloud on his turn and the request to hurry are not
    assert [(f["player"], f["text"]) for f in of(evs, "flag")] == [("eve", "レイズして")]


def test_the_judgement_corpus_keeps_its_figures(
        judged: tuple[dict[str, Any], list[str]]) -> None:
    """bench/judgement.py on tests/corpus/judgement.jsonl: the figures the corpus was brought
    to may not fall (hand talk 99.2/99.1, interference 100/99.1 when this was written), and no
    innocent line is ever penalised at once."""
    out, _ = judged
    assert out["hand_talk"]["precision"] >= 0.99 and out["hand_talk"]["recall"] >= 0.99
    assert out["interference"]["precision"] >= 0.995
    assert out["interference"]["recall"] >= 0.99
    assert out["automatic_on_innocent"] == 0 and out["automatic_missed"] == 0


@pytest.mark.parametrize(
    "text,game,hand_info,advice",
    [
        # strength without a card word, after a board word, in the dialects
        ("リバーも何も引っかからんかった", "omaha", True, False),
        ("フロップなーんもかすっとらんわ", "holdem_aa", True, False),
        ("なんもない、ごみ", "deuces", True, False),
        ("手ぇしょぼすぎ", "omaha", True, False),
        ("絵札ばっかり来とる", "deuces", True, False),
        ("ストレート作れへん", "omaha", True, False),
        ("これフラッシュやで", "omaha", True, False),
        ("QQxxだった、つら", "omaha", True, False),
        ("my hand is trash", "omaha", True, False),
        ("8h 捨てよっかな", "deuces", True, False),
        # no hand of the speaker's: the bonus area, the dealer's rule, the side bet, everyday
        ("ボーナスエリアにフラッシュ揃ってる", "deuces", False, False),
        ("ディーラーってスリーカードないと降りるんやっけ", "deuces", False, False),
        ("降りたらAAの分も没収？", "holdem_aa", False, False),
        ("セット作るの好き", "omaha", False, False),
        # advice about another player's decision, in any register or dialect
        ("なんでコールせえへんの？", "omaha", False, True),
        ("そこはハイパーいかなあかんて", "seven", False, True),
        ("それ捨てたらかんわ", "deuces", False, True),
        ("残すのKじゃなくてAの方がいいよ", "deuces", False, True),
        ("ベットサイズ小さすぎでしょ", "omaha", False, True),
        ("そこでレイズするか普通", "omaha", False, True),
        ("オールイン厨乙", "omaha", False, True),
        ("Mai, fold しないで", "omaha", False, True),
        ("わしなら extra する", "seven", False, True),
        ("あきちゃん降りんといて", "omaha", False, True),
        ("そのままでええんちゃう？", "deuces", False, True),
        # not advice: regret in a dialect, one's own action, rules, guesses, intent, pace, names
        ("さっきの、コールすればえがった", "omaha", False, False),
        ("チェックしないで降りちゃった", "omaha", False, False),
        ("レイズするのってアリ？", "omaha", False, False),
        ("ハイパーって何ですか？", "seven", False, False),
        ("降りたらベットされるんだろうなぁ", "omaha", False, False),
        ("俺はレイズしないと思う", "omaha", False, False),
        ("みんなフォールドするの早すぎ笑", "omaha", False, False),
        ("降りたほうがいいかしら", "omaha", False, False),
        ("dealer ボタンはどこ？", "seven", False, False),
        # a card that does not come, the hand rated by what it deserves, the only way out
        ("デュースが全然来ん", "deuces", True, False),
        ("全部捨ててもいいレベルやわ", "deuces", True, False),
        ("手札がごみすぎる", "omaha", True, False),
        ("もう降りるしかないなぁ", "omaha", True, False),
        # advice: not that one, please don't, must, needn't have, lol, at least
        ("ユキさん、捨てるならそれじゃないよ", "deuces", False, True),
        ("ケンくん、降りないでくださいね〜", "omaha", False, True),
        ("ここは降りんといかんで", "omaha", False, True),
        ("そんなにレイズせんでもよかったやろ", "omaha", False, True),
        ("そこでフォールドは草", "omaha", False, True),
        ("せめてAは残しとき", "deuces", False, True),
        # not advice: allowed?, a rule confirmed, the dealer's rule, regret in りゃ
        ("AA多めに置いたらいかんの？", "holdem_aa", False, False),
        ("降りたらAAも戻らないんだよね？", "holdem_aa", False, False),
        ("ディーラーはペアないと勝負しないんだっけ", "deuces", False, False),
        ("あそこは降りりゃよかった", "omaha", False, False),
        # someone's words reported, the dealer's play, a rule's consequence: not advice
        ("「コールしなよ」って言われた", "omaha", False, False),
        ("ディーラーまた降りたっしょ", "holdem_aa", False, False),
        ("フォールドしないとAA没収だっけ", "holdem_aa", False, False),
        # っしょ, the better one, a must left unsaid, @name, 〜ときって, せな損
        ("そこはフォールドっしょ", "omaha", False, True),
        ("@まり 残すよりチェンジの方がよくない？", "deuces", False, True),
        ("Kは残さないと", "deuces", False, True),
        ("そこは降りときって", "omaha", False, True),
        ("そこハイパーせな損", "seven", False, True),
        # a hand word after a noun of time; strength after a comma
        ("今デュース2枚ある", "deuces", True, False),
        ("今回きつい、ばらばら", "omaha", True, False),
        # Kansai and Hiroshima musts, ええんかな for oneself, I'd
        ("ここは降りなあかん", "omaha", False, True),
        ("降りたらいけんて", "omaha", False, True),
        ("ベットしたほうがええんかな", "omaha", False, False),
        ("I'd raise here", "omaha", False, True),
    ],
)
def test_judgement_classes(text: str, game: str, hand_info: bool, advice: bool) -> None:
    """One line of our own for each class the blind rounds showed (the parser's flags)."""
    got = parse(text, game).to_json()
    assert (bool(got.get("hand_info")), bool(got.get("advice"))) == (hand_info, advice)
