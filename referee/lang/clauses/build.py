"""The action a clean frame declares, game by game (a seven discard of two cards, deuces'
kept and thrown cards, holdem_aa's ante and AA side bet), or None."""

from __future__ import annotations

from referee.actions import Parsed
from referee.lang.clauses.frame import Frame
from referee.lang.clauses.vocabulary import Traits, traits


def build_action(f: Frame, game: str) -> Parsed | None:
    """The action a clean frame declares, or None when its words do not make one action."""
    names = [n for _, n in f.actions]
    kinds = set(names)
    cards = list(dict.fromkeys(c for _, cs in f.cards for c in cs))  # (a card said again)
    amounts = [a for _, a in f.amounts]
    t = traits(game)
    if f.hand is not None:
        if t.draw != "discards" or kinds - {"discard", "showdown"} or cards or amounts:
            return None
        return Parsed(kind="action", action="discard", hand=f.hand, hand_info=True)
    if t.draw == "play" and kinds & {"keep", "discard", "stay", "play", "all", "throw_all"}:
        return _deuces(f)
    if t.draw == "discards" and {"discard", "keep"} <= kinds and len(cards) > 2:
        # 「JKは残して3dと4c捨て」: the cards after the word of keeping are the ones thrown
        keep_at = max(p for p, n in f.actions if n == "keep")
        cards = [c for p, cs in f.cards if p > keep_at for c in cs]
    if t.draw == "discards" and "discard" in kinds:
        if kinds - {"discard", "showdown", "keep"} or len(cards) != 2 or amounts:
            # 「ジョーカーは残して、3sと4d捨て」: the kept card is a clause of its own
            return None
        return Parsed(kind="action", action="discard", cards=cards, hand_info=True)
    kinds.discard("showdown") if len(kinds) > 1 else None
    if "open" in kinds and kinds & {"fold", "muck"}:
        kinds.discard("open")  # a fold or muck that shows (見せて)
    if "all" in kinds and kinds & {"open", "allin"}:
        kinds.discard("all")  # 全部見せる, オールイン、残り全部
    if "pot" in kinds and kinds & {"bet", "raise"}:
        kinds.discard("pot")
        pot = True
    else:
        pot = "pot" in kinds
    if t.side_bet and t.side_bet in kinds:
        kinds.discard(t.side_bet)
        if not f.aa_declined:
            return _ante_aa(f, kinds)
    if not kinds and f.up_to and len(f.amounts) == 1 and not f.cards and t.makes_by_amount:
        return Parsed(kind="action", action="raise", to=f.amounts[0][1])  # 1万まで行くべさ
    if len(kinds) != 1:
        return None
    (name,) = kinds
    return _one_action(f, t, name, cards, amounts, pot)


def _one_action(f: Frame, t: Traits, name: str, cards: list[str], amounts: list[int],
                pot: bool) -> Parsed | None:
    """The action of a frame left with one action word, ``name`` (the words that only qualify
    another taken out; ``pot`` when the pot was one of them), or None when the frame's cards
    or amounts do not fit that word: which cards and amounts a word takes is the word's own."""
    if name == "showdown":
        if not t.showdown_call or cards or amounts:
            return None
        return Parsed(kind="action", action="call")
    if name in ("fold", "muck", "open"):
        if amounts:
            return None
        if f.negated and name == "open":
            return None if cards else Parsed(kind="action", action="close")
        return Parsed(kind="action", action=name, cards=cards or None, hand_info=bool(cards))
    if cards:
        return None
    if name == "pot":
        return Parsed(kind="action", action="raise", pot=True)
    if len(amounts) > 1:
        return None
    amount = amounts[0] if amounts else None
    if name in f.needs_amount and amount is None and not pot:
        return None  # 大人しく打つ plays; 600打ちます bets
    if name == "raise":
        if pot:
            return Parsed(kind="action", action="raise", pot=True)
        # 上げる alone is only a raise with the total it brings the bet to
        return Parsed(kind="action", action="raise", to=amount)
    if name == "bet":
        return Parsed(kind="action", action="bet", amount=amount, pot=True if pot else None)
    if name in ("call", "allin", "ante"):
        return Parsed(kind="action", action=name, amount=amount)
    if name in ("check", "close", "hyper_raise", "extra_raise"):
        if amount is not None:
            return None
        return Parsed(kind="action", action=name)
    return None


def _ante_aa(f: Frame, kinds: set[str]) -> Parsed | None:
    """holdem_aa: the ante and the AA side bet, each amount after (or before) its word."""
    aa_pos = [p for p, n in f.actions if n == "aa"]
    other = kinds - {"ante", "allin"}
    if other or len(kinds) > 1 or f.cards:
        return None
    name = next(iter(kinds), "ante")
    amounts = f.amounts
    aa_amount = None
    rest: list[int] = []
    ante_pos = [p for p, n in f.actions if n in ("ante", "allin")]
    for p, a in amounts:
        # the amount after the AA word (AA100, AAが、えーと、150) with no ante word between is
        # the side bet; or the one right before it (50AA)
        after_aa = any(q < p and not any(q < r < p for r in ante_pos) for q in aa_pos)
        if aa_amount is None and (after_aa or any(f.amount_ends.get(p) == q for q in aa_pos)):
            aa_amount = a
        else:
            rest.append(a)
    if aa_amount is None or len(rest) > (1 if name == "ante" else 0):
        return None
    if name == "ante" and "ante" not in kinds and not rest:
        return Parsed(kind="action", action="ante", aa=aa_amount)  # AAも100: the side bet
    return Parsed(kind="action", action=name,
                  amount=rest[0] if rest else None, aa=aa_amount)


def _deuces(f: Frame) -> Parsed | None:
    names = [n for _, n in f.actions]
    kinds = set(names) - {"showdown", "play"}
    cards = list(dict.fromkeys(c for _, cs in f.cards for c in cs))  # (a card said again)
    if f.amounts:
        return None
    if f.except_ and cards and kinds in ({"discard"}, {"discard", "all"}, {"keep"},
                                          {"keep", "all"}):
        # 7cと7s以外ぜんぶ捨て: keep the cards named; 7c以外残す: throw them
        if "discard" in kinds:
            return Parsed(kind="action", action="play", keep=cards, hand_info=True)
        return Parsed(kind="action", action="play", discard=cards, hand_info=True)
    if kinds and kinds <= {"throw_all", "all", "discard", "showdown"} and "throw_all" in kinds \
            and not cards:
        return Parsed(kind="action", action="play", keep=[])  # 全交換, ぜんこうかん
    if kinds and kinds <= {"stay", "keep", "all"} and "stay" in kinds and not cards:
        return Parsed(kind="action", action="play", discard=[])  # 全部残してそのまま勝負
    if kinds == {"stay"} and not cards:
        return Parsed(kind="action", action="play", discard=[])
    if kinds in ({"keep"}, {"keep", "all"}) and cards and "discard" not in names:
        return Parsed(kind="action", action="play", keep=cards, hand_info=True)  # (あと1枚！)
    if kinds == {"keep"}:
        return Parsed(kind="action", action="play", keep=cards, hand_info=bool(cards))\
            if cards else None
    if kinds == {"discard"}:
        return Parsed(kind="action", action="play", discard=cards, hand_info=bool(cards))\
            if cards else None
    if kinds == {"all", "discard"} and not cards:
        return Parsed(kind="action", action="play", keep=[])
    if kinds == {"all", "keep"} and not cards:
        return Parsed(kind="action", action="play", discard=[])
    # 「Kd Kc 残して、あとは全部捨て」: the cards named go with the first verb
    if kinds in ({"keep", "discard"}, {"keep", "discard", "all"}) and cards:
        first = next(n for n in names if n in ("keep", "discard"))
        last_card = max(p for p, _ in f.cards)
        verbs_after = [n for p, n in f.actions if p > last_card and n in ("keep", "discard")]
        if "all" not in names or not verbs_after:
            return None
        if first == "keep":
            return Parsed(kind="action", action="play", keep=cards, hand_info=True)
        return Parsed(kind="action", action="play", discard=cards, hand_info=True)
    if not kinds and not cards and "play" in names:
        return Parsed(kind="action", action="play")
    return None
