"""Small pure scoring functions over face counts, shared by the category rulesets.

Every function takes face counts of shape ``(N, 6)`` and returns an ``(N,)`` integer array.
"""

from __future__ import annotations

import numpy as np

FACES = np.arange(1, 7)


def total(counts):
    """Sum of all dice."""
    return counts @ FACES


def of_face(face: int):
    """Sum of the dice showing ``face`` (Yahtzee's and Yatzy's upper section)."""
    return lambda counts, roll_number=1: face * counts[:, face - 1]


def best_face_with(counts, n: int):
    """The highest face shown by at least ``n`` dice, or 0."""
    return np.where(counts >= n, FACES, 0).max(axis=1)


def has_kind(counts, n: int):
    """True where some face shows on at least ``n`` dice."""
    return counts.max(axis=1) >= n


def is_full_house(counts):
    """Three of one face and two of another (five of a kind is not one)."""
    return ((counts == 3).any(axis=1)) & ((counts == 2).any(axis=1))


def has_faces(counts, faces):
    """True where every face in ``faces`` shows at least once."""
    return (counts[:, [f - 1 for f in faces]] >= 1).all(axis=1)


def best_two_pairs(counts):
    """2a + 2b for the best two different faces each shown at least twice, or 0."""
    paired = np.where(counts >= 2, FACES, 0)
    top2 = np.sort(paired, axis=1)[:, -2:]
    return np.where(top2[:, 0] > 0, 2 * top2.sum(axis=1), 0)


def five_of_a_kind(counts):
    """True where all five dice show one face."""
    return counts.max(axis=1) == 5
