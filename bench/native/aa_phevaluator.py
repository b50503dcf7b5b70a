"""Reference for bench/analysis.py: the exact holdem_aa AA bet as a plain Python loop over
phevaluator's C five-card function (``phevaluator._pheval.evaluate_5cards``, not its Python
wrapper ``evaluate_cards``), all C(52, 5) hole + flop hands dealt one by one.

Usage: python bench/native/aa_phevaluator.py '{"royal_flush": 201, ...}'  (the aa_table, "for
one"); prints the return. phevaluator ranks: 1 the royal flush, 2-10 straight flushes,
11-166 quads, 167-322 full houses, 323-1599 flushes, 1600-1609 straights, 1610-2467 trips,
2468-3325 two pair, 3326-3545 a pair of aces (3326-6185 all pairs).
"""

import json
import sys
from itertools import combinations

from phevaluator._pheval import evaluate_5cards

ROWS = [("royal_flush", 1, 1), ("straight_flush", 2, 10), ("four_of_a_kind", 11, 166),
        ("full_house", 167, 322), ("flush", 323, 1599), ("straight", 1600, 1609),
        ("three_of_a_kind", 1610, 2467), ("two_pair", 2468, 3325), ("pair_of_aces", 3326, 3545)]

table = json.loads(sys.argv[1])
counts = [0] * 7463
for hand in combinations(range(52), 5):
    counts[evaluate_5cards(*hand)] += 1
paid = sum(table[row] * sum(counts[lo:hi + 1]) for row, lo, hi in ROWS)
print(json.dumps({"return": paid / sum(counts), "hands": sum(counts)}))
