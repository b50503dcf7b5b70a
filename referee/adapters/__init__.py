"""Adapters: the outside worlds the referee talks to (transcripts, a terminal, Matrix, IRC).

Each one only turns its input into service inputs (:mod:`referee.service`) and its events back
into output; the refereeing itself is the same pipeline everywhere.
"""
