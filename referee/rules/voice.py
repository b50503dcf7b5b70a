"""The shared voice: where every sentence the bot says is rendered, and the lines every game
shares.

Engines, the discipline and the commands say things as facts: a ``say`` event holds a catalogue
key and its parameters (:func:`referee.events.line`, :func:`~referee.events.joined`), an
:class:`~referee.rules.IllegalAction` a code and its parameters. :func:`rendered` turns them into
Japanese once, at the turn's boundary (the service, before the outcome goes to the shell); the
event log keeps the facts (:func:`referee.events.fact_json`), and a reader of the log renders them
again with :func:`say_text` / :func:`rendered_record`. So a sentence's wording lives in the
catalogue alone, and tests assert keys and codes.

What the room is told an action was, rendered from its ``action`` event: one line, the same in
every game (「aliceさん: コール 100」). Every engine says it through :func:`action_line`, so the
room's sentence never carries more than the typed event does; the records (history, ``!hand``,
the console) use the same words (:func:`action_word`, :func:`action_figure`). The words are the
catalogue's (voice.toml ``ack*`` and ``act_*``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from referee.events import (
    JOIN,
    ActionEvent,
    Eliminated,
    Event,
    Leave,
    LevelUp,
    Phrase,
    Rake,
    Rejected,
    Say,
    Seated,
    TournamentEnd,
    joined,
    line,
)
from referee.games import is_game, on_change, spec
from referee.lang.catalog import fill, messages, text

__all__ = ["action_figure", "action_line", "action_word", "eliminated_line", "leave_line",
           "level_line", "phrase_text", "rake_line", "refusal_text", "render", "rendered",
           "rendered_record", "result_word", "say_text", "seated_line", "tournament_end_line"]


# --- the one place sentences are rendered -----------------------------------------------------

def phrase_text(p: Phrase) -> str:
    """A :data:`~referee.events.Phrase` as the bot says it: a catalogue message filled in with
    its parameters rendered first (an int parameter gets the catalogue's separators), pieces
    joined, a hand class's or a game's name; a plain value as it is."""
    if type(p) is str:
        return p
    if type(p) is dict:
        key = p.get("key")
        return _message(key, p.get("params")) if key is not None else _other(p)
    return str(p)


#: The catalogue's words (messages without parameters: コール, フォールド, the streets' names),
#: looked up once: the prompt names some on every turn. (The hottest says are remembered whole
#: where they are made -- a player's acknowledgement here, omaha's prompt -- and so rendered
#: once: the voice fills a say's text in only while it has none.)
_WORDS: dict[str, str] = {}

on_change(_WORDS.clear)


def _other(p: dict[str, Any]) -> str:
    """A phrase that is no catalogue message: pieces joined, a hand class's or a game's
    name."""
    if "join" in p:
        return phrase_text(p["join"]).join([phrase_text(i) for i in p["items"]])
    if "hand" in p:
        from referee.hands import NAMES

        return NAMES[str(p["hand"])].get(str(p["class"]), "")
    if "game" in p:
        from referee import definitions

        game = str(p["game"])
        return definitions.short_name(game) if p.get("short") else definitions.load(game).name
    return str(p)


def _message(key: str, params: dict[str, Phrase] | None) -> str:
    if key == JOIN:
        assert params is not None
        return phrase_text(params["sep"]).join([phrase_text(i) for i in params["items"]])
    if not params:
        word = _WORDS.get(key)
        if word is None:
            word = _WORDS[key] = fill(key, {})
        return word
    kw: dict[str, Any] = {}
    for k, v in params.items():
        if type(v) is dict:
            nested = v.get("key")
            kw[k] = _message(nested, v.get("params")) if nested is not None else _other(v)
        else:
            kw[k] = v
    return fill(key, kw)


def say_text(ev: Say) -> str:
    """What a ``say`` says: its rendered text (a turn's outcome, an older log), else its key
    and parameters rendered (a say read back from the event log)."""
    if ev.text is not None:
        return ev.text
    return _message(ev.key or JOIN, ev.params)


def refusal_text(code: str, params: dict[str, Phrase] | None = None) -> str:
    """A refusal's coded reason (an :class:`~referee.rules.IllegalAction`'s ``code`` and
    ``params``, a ``rejected`` event's) as the player reads it."""
    return _message(code, params)


def rendered_record(ev: dict[str, Any]) -> dict[str, Any]:
    """A stored event's JSON (the event log's fact) as the shells read it: a ``say``'s or a
    ``rejected``'s sentence rendered (a row written before sentences were stored as keys
    already holds it)."""
    kind = ev.get("event")
    if kind == "say" and "text" not in ev:
        return rendered(Say.model_validate(ev)).to_json()
    if kind == "rejected" and "reason" not in ev and "code" in ev:
        return rendered(Rejected.model_validate(ev)).to_json()
    return ev


def rendered(ev: Event) -> Event:
    """``ev`` with its sentence rendered (a ``say``'s ``text``, a ``rejected``'s ``reason``);
    any other event as it is. The service renders each turn's events once, at its end."""
    if type(ev) is Say and ev.text is None:
        # The one write to a frozen event: its rendering, which the fact it renders fixes
        # (the same key and parameters always say the same). A copy per say was a fifth of the
        # replay's rendering time.
        object.__setattr__(ev, "text", _message(ev.key or JOIN, ev.params))
        return ev
    if type(ev) is Rejected and ev.reason is None and ev.code is not None:
        return ev.model_copy(update={"reason": _message(ev.code, ev.params)})
    return ev


def action_line(game: str, ev: ActionEvent, who: Phrase | None = None) -> Say:
    """The one line that tells the room ``ev`` was accepted (「aliceさん: コール 100」): the
    game's word for the action (an all-in stake is オールイン), the chips it names
    (:func:`action_figure`), a holdem_aa stake's ante and AA bet apart. ``who``: the seat as the
    room knows it where the event names no player (seven's dealer seat, 「ディーラー席」)."""
    action = "allin" if ev.allin else ev.action
    if is_game(game):
        action = spec(game).action_words.get(action, action)
    figure = _figure(game, ev.action, ev.amount, ev.to)
    if who is None:
        return _acknowledged(ev.player, action, figure, ev.aa or 0)
    return _acknowledge(who, action, figure, ev.aa or 0)


@lru_cache(maxsize=4096)
def _acknowledged(player: str, action: str, amount: int, aa: int) -> Say:
    """A player's acknowledgement, remembered: the same few come back on every hand; the same
    say (a fact) each time, so the voice renders it once."""
    return _acknowledge(line("house.who", player=player), action, amount, aa)


on_change(_acknowledged.cache_clear)


def rake_line(ev: Rake) -> Say:
    """The house's rake, contested pot or not (「レイク 10（ポット 510 の 2%）」)."""
    return Say.of("room", line("rake", amount=ev.amount, pot=ev.pot, percent=ev.percent))


def leave_line(ev: Leave) -> Say:
    """A player left the table: the chips they took and what the bank was credited."""
    return Say.of("room", line("seat.left", player=ev.player, chips=ev.chips, bank=ev.bank))


def seated_line(ev: Seated) -> Say:
    """A player sat down: the seat and the chips they brought."""
    return Say.of("room", line("seat.sat", player=ev.player, seat=ev.seat, chips=ev.chips))


def level_line(ev: LevelUp) -> Say:
    """A tournament's blinds (and ante) rise."""
    said = line("tournament_level_up", level=ev.level, sb=ev.sb, bb=ev.bb)
    if ev.ante:
        return Say.of("room", joined("", [said, line("tournament_ante", ante=ev.ante)]))
    return Say.of("room", said)


def eliminated_line(ev: Eliminated) -> Say:
    """A tournament entrant is out, in this place."""
    return Say.of("room", line("tournament_eliminated", player=ev.player, place=ev.place))


def tournament_end_line(ev: TournamentEnd) -> Say:
    """The last player standing, and the prizes by place."""
    winner = next(n for n, place in ev.places.items() if place == 1)
    listed = [line("tournament_prize", place=ev.places[n], player=n, points=p)
              for n, p in sorted(ev.prizes.items(), key=lambda kv: ev.places[kv[0]])]
    return Say.of("room", line("tournament_end", winner=winner,
                               prizes=joined(" / ", listed) if listed
                               else line("tournament_no_prizes")))


def render(game: str, so_far: Sequence[Event]) -> Say | None:
    """The room's line for the fact event of ``game`` that ends ``so_far`` (the events of one
    input up to it: some lines read the events just before, a pot its top-up, a settlement
    its hand's settles), as its engine says it: the game's own renderer first (its folder's
    ``voice.line``, registered as the spec's ``voice``), then the lines every game shares;
    None for an event no line renders."""
    ev = so_far[-1]
    if is_game(game):
        own = spec(game).voice
        if own is not None:
            said: Say | None = own()(so_far)
            if said is not None:
                return said
    if isinstance(ev, ActionEvent):
        return action_line(game, ev)
    if isinstance(ev, Rake):
        return rake_line(ev)
    if isinstance(ev, Leave):
        return leave_line(ev)
    if isinstance(ev, Seated):
        return seated_line(ev)
    if isinstance(ev, LevelUp):
        return level_line(ev)
    if isinstance(ev, Eliminated):
        return eliminated_line(ev)
    if isinstance(ev, TournamentEnd):
        return tournament_end_line(ev)
    return None


def _acknowledge(who: Phrase, action: str, amount: int = 0, aa: int = 0) -> Say:
    words = line(f"act_{action}")
    if action in ("ante", "allin") and aa:  # the stake split into its ante and AA bet
        return Say.of("room", line(f"ack_{action}_aa", who=who, ante=amount - aa, aa=aa))
    if amount:
        return Say.of("room", line("ack_amount", who=who, action=words, amount=amount))
    return Say.of("room", line("ack", who=who, action=words))


def action_word(game: str, action: str) -> str:
    """The word the room uses for an ``action`` event's id in ``game`` (omaha's raise is a
    メイク, seven's a レイズ): the records (history, ``!hand``, the console) say the same."""
    if is_game(game):
        action = spec(game).action_words.get(action, action)
    key = f"act_{action}"
    return text(key) if key in messages() else text("act_other")


def typed_form(game: str, action: Any) -> Phrase:
    """How a player types a parsed ``action`` (a :class:`~referee.actions.Parsed`) so that it is
    read: the room's word, then the figure or the cards (コール, メイク1800)."""
    name = str(action.action)
    if is_game(game):
        name = spec(game).action_words.get(name, name)
    key = f"act_{name}" if f"act_{name}" in messages() else "act_other"
    figure = action.to if action.to is not None else action.amount
    cards = action.cards or action.keep or action.discard or []
    return joined("", [line(key), str(figure) if figure is not None else "",
                       " " + " ".join(cards) if cards else ""])


def action_figure(game: str, ev: dict[str, Any]) -> int:
    """The chips an ``action`` event's line names, as the room's acknowledgement names them:
    omaha's bet, make and all-in say the total (``to``), everything else what it put in."""
    to = ev.get("to")
    return _figure(game, str(ev.get("action")), int(ev.get("amount") or 0),
                   int(to) if to else None)


def _figure(game: str, action: str, amount: int, to: int | None) -> int:
    if to and is_game(game) and action in spec(game).total_actions:
        return to
    return amount


def result_word(result: str) -> str:
    """A ``settle`` result's word (勝ち, ディーラーフォールド …), as the settlement line says it."""
    key = f"result_{result}"
    return text(key) if key in messages() else text("result_other")
