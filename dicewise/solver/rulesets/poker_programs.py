"""Покер with obligatory and free programs, from the Russian seed (RULES.md section 2).

The six obligatory figures come first, scored (c − 3) × f; their sum earns 50 if it is not
negative.  Then nine free figures, doubled when written on the first roll (Chance never;
the Poker bonus of 50 is not doubled).  Extra state: the obligatory sum while it runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...i18n import Message, box_listing
from .. import dice
from ..category import Category, CategoryRules, Write, upper_sum_reachable
from ..scoring import FACES, best_face_with, best_two_pairs, has_faces, has_kind, is_full_house, total

OBLIGATORY_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes")
OBLIGATORY = 0b111111
BONUS = 50
POKER_BONUS = 50
SUM_OFFSET = 63  # the obligatory sum runs from -63 to +42
SUM_STATES = 106

_REACHABLE_SUMS = upper_sum_reachable([[(c - 3) * f for c in range(6)] for f in range(1, 7)],
                                      SUM_OFFSET, SUM_STATES)


def _free(points, doubles=True):
    """A free figure: undoubled points of the dice, doubled on roll 1 unless ``doubles`` is False."""
    return lambda c, k: points(c) * (2 if k == 1 and doubles else 1)


@dataclass(frozen=True)
class PokerPrograms(CategoryRules):
    name = "poker-programs"
    title = "Покер with obligatory and free programs, from the Russian seed"
    example_sheet = "ones=-3,twos=2,threes=0,fours=4,fives=-5,sixes=6,pair=24,poker=x"
    n_extra = SUM_STATES
    initial_extra = SUM_OFFSET
    roll_number_matters = True
    settles_to_mean = True  # the seed settles money as score − mean score

    @property
    def categories(self):
        five = has_kind
        return tuple(Category(n, lambda c, k, f=f: (c[:, f - 1] - 3) * f)
                     for f, n in zip(FACES, OBLIGATORY_NAMES)) + (
            Category("pair", _free(lambda c: 2 * best_face_with(c, 2))),
            Category("two_pairs", _free(best_two_pairs)),
            Category("three", _free(lambda c: 3 * best_face_with(c, 3))),
            Category("small_straight", _free(lambda c: 15 * has_faces(c, (1, 2, 3, 4, 5)))),
            Category("big_straight", _free(lambda c: 20 * has_faces(c, (2, 3, 4, 5, 6)))),
            Category("full", _free(lambda c: total(c) * is_full_house(c))),
            Category("four", _free(lambda c: 4 * best_face_with(c, 4))),
            Category("poker", lambda c, k: _free(lambda c: 5 * best_face_with(c, 5))(c, k)
                     + POKER_BONUS * five(c, 5)),
            Category("chance", _free(total, doubles=False)),
        )

    def write(self, c, roll_number, masks, extras):
        points = self.base_points[c, roll_number - 1][:, None]
        if c >= 6:
            legal = (masks & OBLIGATORY) == OBLIGATORY
            return Write(points, extras[None, :], np.zeros(dice.N_ROLLS, dtype=np.int64), legal)
        face = c + 1
        moved = extras[None, :] + (np.arange(6)[:, None] - 3) * face  # (6, B) by dice showing face
        completes = ((masks | (1 << c)) & OBLIGATORY) == OBLIGATORY
        # Completing the six: the bonus is paid now and the sum is no longer needed.
        earned = completes[None, :] & (moved >= SUM_OFFSET)
        cls = dice.ROLLS[:, c]
        bonus = BONUS * earned[cls]
        return Write(points + bonus, np.where(completes[None, :], 0, moved), cls, bonus=bonus)

    def reachable_extras(self, masks):
        running = (masks & OBLIGATORY) != OBLIGATORY
        out = _REACHABLE_SUMS[masks & OBLIGATORY] & (running & (masks >> 6 == 0))[:, None]
        out[~running, 0] = True
        return out

    def why_unreachable(self, scores) -> str | None:
        """Which rule a sheet breaks that no game reaches (for the error message)."""
        free = [self.category_names[c] for c in sorted(scores) if c >= 6]
        missing = [n for c, n in enumerate(OBLIGATORY_NAMES) if c not in scores]
        if free and missing:
            return Message("{free} is a free figure, written only after all six obligatory ones "
                           "(still open: {missing})",
                           free=box_listing(self.name, free),
                           missing=box_listing(self.name, missing))
        return None

    def possible_scores(self, c):
        """What the dice give: a figure scores 0 only where they do not qualify (RULES.md),
        so Chance, which any dice make, never holds 0."""
        return frozenset(int(p) for p in np.unique(self.base_points[c]))

    def sheet_extra(self, scores, counters):
        obligatory = [s for c, s in scores.items() if c < 6]
        return 0 if len(obligatory) == 6 else sum(obligatory) + SUM_OFFSET

    def sheet_points(self, scores, counters):
        obligatory = [s for c, s in scores.items() if c < 6]
        bonus = BONUS if len(obligatory) == 6 and sum(obligatory) >= 0 else 0
        return sum(scores.values()) + bonus
