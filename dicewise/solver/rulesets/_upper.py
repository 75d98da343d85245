"""The upper section shared by Yatzy and Yahtzee: six face boxes and a bonus at 63."""

from __future__ import annotations

import numpy as np

from .. import dice
from ..category import Category, Write, upper_sum_reachable
from ..scoring import of_face

UPPER_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes")
UPPER_GOAL = 63
UPPER_STATES = UPPER_GOAL + 1  # running upper sum, capped at the goal

UPPER = tuple(Category(name, of_face(f)) for f, name in enumerate(UPPER_NAMES, start=1))

def _canonical() -> np.ndarray:
    """(64, 64): each capped sum, or 0 where the open boxes can no longer reach the goal.

    Such sums all have the same future (the bonus is lost), so one state stands for them
    all; this removes a third of the states.
    """
    table = np.tile(np.arange(UPPER_STATES), (64, 1))
    for m in range(64):
        most = sum(5 * f for f in range(1, 7) if not (m >> (f - 1)) & 1)
        table[m, np.arange(UPPER_STATES) + most < UPPER_GOAL] = 0
    return table


UPPER_CANONICAL = _canonical()

#: (64, 64) bool: the canonical capped upper sums that can occur, by mask of filled upper boxes.
UPPER_REACHABLE = upper_sum_reachable([[f * c for c in range(6)] for f in range(1, 7)], 0,
                                      UPPER_STATES, cap=UPPER_GOAL) & (
    UPPER_CANONICAL == np.arange(UPPER_STATES))


def upper_write(face: int, masks: np.ndarray, upper: np.ndarray, points: np.ndarray) -> Write:
    """Writing the ``face`` box: the capped upper sum moves by face × (dice showing it)."""
    moves = np.minimum(upper[None, :] + face * np.arange(6)[:, None], UPPER_GOAL)
    after = (masks | (1 << (face - 1))) & 63
    return Write(points, UPPER_CANONICAL[after[None, :], moves], dice.ROLLS[:, face - 1])


def upper_sum_of_sheet(scores: dict[int, int]) -> int:
    """The canonical capped upper sum of a sheet given as {category index: score}."""
    mask = sum(1 << c for c in scores if c < 6)
    return int(UPPER_CANONICAL[mask, min(sum(s for c, s in scores.items() if c < 6), UPPER_GOAL)])
