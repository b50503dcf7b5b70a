"""The theoretical return of each house game's current pay table, beside the observed one on the
console's bank page: :func:`referee.analysis.analyze` (what ``referee analyze`` prints), run in
a background thread once the console is up -- a Monte Carlo bet takes a minute or more, which
the start-up must not wait for. Without the ``analysis`` extra (numpy) there is no figure."""

from __future__ import annotations

import threading

from referee.lang.catalog import text


class Theory:
    """Per game name: its return as a moderator reads it, or that it is being computed."""

    def __init__(self, hands: int) -> None:
        self.hands = hands
        self.figures: dict[str, str] = {}
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        if self.hands <= 0:
            return
        from referee.history import game_name

        try:
            from referee.analysis import analysis_of
            from referee.games import game_ids
        except ImportError:
            return
        games = [g for g in sorted(game_ids()) if analysis_of(g).bets]
        for g in games:
            self.figures[game_name(g)] = text("console_theory_running")
        self.thread = threading.Thread(target=self._run, args=(games,), daemon=True,
                                       name="console-theory")
        self.thread.start()

    def _run(self, games: list[str]) -> None:
        from referee.analysis import analyze
        from referee.analysis.tables import definition
        from referee.history import game_name

        for game in games:
            try:
                report = analyze(definition(game, []), (), self.hands, 1)
            except Exception:  # a figure missing is no reason to stop the console
                self.figures.pop(game_name(game), None)
                continue
            bets = {b.bet: b for b in report.bets}
            bet = bets.get("total") or (report.bets[0] if report.bets else None)
            if bet is None:
                continue
            percent = f"{bet.ret * 100:.1f}%"
            if bet.exact or bet.ci95 is None:
                self.figures[game_name(game)] = text("console_theory_exact", percent=percent)
            else:
                margin = f"{(bet.ci95[1] - bet.ci95[0]) * 50:.1f}%"
                self.figures[game_name(game)] = text("console_theory_estimate", percent=percent,
                                                     margin=margin, hands=bet.hands or self.hands)
