"""Fixtures of the Matrix tests (defined in matrix_helpers, which the tests also import)."""

from matrix_helpers import make_table, synapse

__all__ = ["make_table", "synapse"]
