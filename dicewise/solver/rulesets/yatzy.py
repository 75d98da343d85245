"""Scandinavian Yatzy: 15 boxes, a 50-point bonus for 63 in the upper section (RULES.md).

The published optimum is 248.4399894.  Option ``two_pairs=single_pair_counts`` reproduces
a published program's misreading in which a single pair also scores in Two Pairs
(optimum 248.6328539).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..category import Category, CategoryRules
from ..options import option
from ..scoring import best_face_with, best_two_pairs, has_faces, is_full_house, total
from ._upper import UPPER, UPPER_GOAL, UPPER_REACHABLE, UPPER_STATES, upper_sum_of_sheet, upper_write

UPPER_BONUS = 50


@dataclass(frozen=True)
class Yatzy(CategoryRules):
    name = "yatzy"
    title = "Scandinavian Yatzy (reference game)"
    example_sheet = "ones=3,two_pairs=14,yatzy=x"  # shown by `dicewise rules`
    n_extra = UPPER_STATES

    two_pairs: str = option("distinct", ("distinct", "single_pair_counts"),
                            "whether Two Pairs needs two different faces")

    @property
    def categories(self):
        two = best_two_pairs
        if self.two_pairs == "single_pair_counts":
            two = lambda c: np.maximum(best_two_pairs(c), 2 * best_face_with(c, 2))
        return UPPER + (
            Category("one_pair", lambda c, k: 2 * best_face_with(c, 2)),
            Category("two_pairs", lambda c, k: two(c)),
            Category("three_of_a_kind", lambda c, k: 3 * best_face_with(c, 3)),
            Category("four_of_a_kind", lambda c, k: 4 * best_face_with(c, 4)),
            Category("small_straight", lambda c, k: 15 * has_faces(c, (1, 2, 3, 4, 5))),
            Category("large_straight", lambda c, k: 20 * has_faces(c, (2, 3, 4, 5, 6))),
            Category("full_house", lambda c, k: total(c) * is_full_house(c)),
            Category("chance", lambda c, k: total(c)),
            Category("yatzy", lambda c, k: 50 * (c.max(axis=1) == 5)),
        )

    def write(self, c, roll_number, masks, extras):
        w = super().write(c, roll_number, masks, extras)
        return upper_write(c + 1, masks, extras, w.points) if c < 6 else w

    final_bonus_kept = True  # the upper sum never falls: the bonus, once earned, stays

    def final_bonus(self, extras):
        return np.where(extras >= UPPER_GOAL, UPPER_BONUS, 0)

    def reachable_extras(self, masks):
        return UPPER_REACHABLE[masks & 63]

    def sheet_extra(self, scores, counters):
        return upper_sum_of_sheet(scores)
