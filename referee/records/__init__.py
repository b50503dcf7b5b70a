"""Readers of the event log (:mod:`referee.records.visitor`: one walk, many visitors)."""
