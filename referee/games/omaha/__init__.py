"""Pot-limit Omaha ring game (docs/rules.md `omaha`): a pure state machine.

Money is handled by :mod:`referee.rules.betting` (rounds, legal ranges, side pots); this package
adds seating, the button and blinds, cards, flying actions, showdown order, rake, odd chips, the
hand bonus and the dealing-mistake procedures. Every public method validates before it mutates;
an action is checked (reads only, returns a plan) and then applied (never refuses).

One module per part of the rules, each a class with its own state that the engine
(:class:`~.engine.OmahaEngine`) owns and hands what it works on (the hand being played is one
shared :class:`~.state.Hand`):

- :mod:`.state` -- the data: seats, hand players, the hand, the clock, flying declarations, plans;
- :mod:`.options` -- the table options (``# table:`` line, ``!open``);
- :mod:`.table` -- the settings, and the seats: seating and leaving (the ×10 conversion);
- :mod:`.tourney` -- a tournament's blind schedule, eliminations and prizes;
- :mod:`.showdown` -- rake, uncontested pots, the showdown, pots and odd chips, the hand's end;
- :mod:`.rounds` -- resolving intent, the turn's check and apply, the moves, the prompt;
- :mod:`.flying` -- the flying-action book (α, β, all-in FA, the third FA);
- :mod:`.dealer` -- the deal, and moving the hand from round to round to its end;
- :mod:`.mistakes` -- forced folds, removals and the dealing-mistake procedures;
- :mod:`.engine` -- the engine owning the parts: the queries, the action transaction's
  dispatch, the action clock;
- :mod:`.spec` -- the game's registration (its :class:`~referee.games.GameSpec`).

Rulings made here (docs/rules.md is silent or leaves them to the moderator):
- A flying action (FA) is judged as if it were the player's turn at the moment it is declared: a
  raise FA must name a make that would be legal then, and reserves its chips; a call FA reserves
  the call; a fold FA folds at once. A second FA while one is pending is counted (towards the third
  FA) but the first declaration stands. A "call" with nothing to call means check.
- An all-in FA folds the player at once; half their stack goes into the main pot as dead money and
  half returns (the returned half rounded up, ``allin_fa_return``).
- The check-FA penalty (one BB, or what the player has left) is dead money in the main pot.
- Reserved FA chips of a player folded by a penalty or the third FA stay in the pot (dead money).
- World rules, newcomers: a player seated after the table's first hand posts a live BB on their
  first hand (in the SB seat, the BB replaces the SB).
- NO GAME: every active player receives the pots they are eligible for; every folded player dealt in
  receives 20% of the whole pot, at most 300 *points* worth of chips (300 × chip multiplier), paid
  by the house. No rake.
- Exposed hand (``!exposed @p``): the house pays that player half the pot (floor) at the end of the
  hand; their cards stay face up. Exposed board card (``!exposed``): the next board card is shown
  and burned, replaced by the next card of the deal's shoe.
- After everyone else folds the pot is awarded at once; the winner may still OPEN (all or some
  cards) or CLOSE until the next hand starts.
"""
