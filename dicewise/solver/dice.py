"""The dice structure shared by every five-dice game: rolls, keeps and their probabilities.

A roll is a multiset of five faces, a keep a multiset of zero to five faces; both are
stored as face counts (shape ``(n, 6)``).  Everything here is built once at import and
is read-only afterwards.
"""

from __future__ import annotations

import itertools
from math import factorial

import numpy as np

from ..errors import BadAction

N_DICE = 5
N_FACES = 6
FACES = np.arange(1, N_FACES + 1)


def _multisets(size: int) -> np.ndarray:
    """All face-count vectors with ``size`` dice, by number of distinct faces, then lexically.

    Grouping by distinct faces lets the turn solver treat each group as one contiguous slice.
    """
    rows = []
    for faces in itertools.combinations_with_replacement(range(N_FACES), size):
        counts = [0] * N_FACES
        for f in faces:
            counts[f] += 1
        rows.append(counts)
    rows = np.array(rows, dtype=np.int64).reshape(-1, N_FACES)
    return rows[np.argsort((rows > 0).sum(axis=1), kind="stable")]


def _arrangements(counts: np.ndarray) -> np.ndarray:
    """Number of ordered dice sequences giving each multiset (multinomial coefficient)."""
    fact = np.array([factorial(i) for i in range(N_DICE + 1)], dtype=np.int64)
    return fact[counts.sum(axis=1)] // np.prod(fact[counts], axis=1)


#: Keeps of 0..5 dice, ordered by size; ``KEEPS[KEEP_START[k]:KEEP_START[k+1]]`` hold k dice.
KEEPS = np.concatenate([_multisets(k) for k in range(N_DICE + 1)])
KEEP_SIZE = KEEPS.sum(axis=1)
KEEP_START = np.searchsorted(KEEP_SIZE, np.arange(N_DICE + 2))
N_KEEPS = len(KEEPS)  # 462

#: The 252 rolls of five dice are the last block of keeps.
ROLLS = KEEPS[KEEP_START[N_DICE]:]
N_ROLLS = len(ROLLS)  # 252
ROLL_AS_KEEP = np.arange(KEEP_START[N_DICE], N_KEEPS)

#: Number of the 6^5 ordered throws that show each roll; ``ROLL_WEIGHT / 7776`` is P(roll).
ROLL_WEIGHT = _arrangements(ROLLS)
ROLL_PROBABILITY = ROLL_WEIGHT / N_FACES**N_DICE

_CODE_BASE = N_DICE + 1


def _code(counts: np.ndarray) -> np.ndarray:
    return counts @ (_CODE_BASE ** np.arange(N_FACES))


_KEEP_BY_CODE = {int(c): i for i, c in enumerate(_code(KEEPS))}


_INDEX_OF_CODE = np.full(_CODE_BASE ** N_FACES, -1, dtype=np.int64)
_INDEX_OF_CODE[_code(KEEPS)] = np.arange(len(KEEPS))


def keep_indices(counts: np.ndarray) -> np.ndarray:
    """Indices into KEEPS of many face-count vectors (n, 6) at once."""
    return _INDEX_OF_CODE[_code(counts)]


def keep_index_of_code(code: np.ndarray) -> np.ndarray:
    """Indices into KEEPS of keeps given by their codes, sum of count_f * 6**f."""
    return _INDEX_OF_CODE[code]


def keep_index(counts) -> int:
    """Index into KEEPS of a face-count vector."""
    return _KEEP_BY_CODE[int(_code(np.asarray(counts)))]


def roll_index(counts) -> int:
    """Index into ROLLS of the face counts of five dice."""
    return keep_index(counts) - int(KEEP_START[N_DICE])


def counts_of(dice) -> np.ndarray:
    """Face counts of a sequence of faces 1..6."""
    return np.bincount(np.asarray(dice, dtype=np.int64) - 1, minlength=N_FACES)


def faces_of(counts) -> list[int]:
    """The faces of a face-count vector, sorted ascending."""
    return [f for f in range(1, N_FACES + 1) for _ in range(int(counts[f - 1]))]


def _children() -> np.ndarray:
    """KEEP_CHILD[k, f]: the keep k plus one die showing face f+1 (for keeps of < 5 dice)."""
    small = KEEPS[: KEEP_START[N_DICE]]
    child = small[:, None, :] + np.eye(N_FACES, dtype=np.int64)[None]
    return keep_indices(child.reshape(-1, N_FACES)).reshape(len(small), N_FACES)


def _parents() -> np.ndarray:
    """KEEP_PARENT[k - 1, j]: keep k less one die of its j-th distinct face (-1 past the last)."""
    keeps = KEEPS[1:]
    less = keep_indices((keeps[:, None, :] - np.eye(N_FACES, dtype=np.int64)[None]).clip(0)
                        .reshape(-1, N_FACES)).reshape(len(keeps), N_FACES)
    present = keeps > 0
    out = np.full((len(keeps), N_DICE), -1, dtype=np.int64)
    order = np.argsort(~present, axis=1, kind="stable")  # the faces present, in face order
    for j in range(N_DICE):
        face = order[:, j]
        has = present[np.arange(len(keeps)), face]
        out[has, j] = less[np.flatnonzero(has), face[has]]
    return out


KEEP_CHILD = _children()
KEEP_PARENT = _parents()


def _keep_to_roll_counts() -> np.ndarray:
    """KEEP_TO_ROLL_COUNT[k, r]: ordered throws of the free dice taking keep k to roll r."""
    keep, roll = np.nonzero((ROLLS[None, :, :] >= KEEPS[:, None, :]).all(axis=2))
    out = np.zeros((len(KEEPS), len(ROLLS)), dtype=np.int64)
    out[keep, roll] = _arrangements(ROLLS[roll] - KEEPS[keep])
    return out


#: Exact keep→roll probabilities as integers: ``KEEP_TO_ROLL_COUNT[k] / 6**(5 - |k|)``.
KEEP_TO_ROLL_COUNT = _keep_to_roll_counts()
KEEP_TO_ROLL_DENOMINATOR = N_FACES ** (N_DICE - KEEP_SIZE)


def keep_to_roll() -> np.ndarray:
    """The (462, 252) matrix of P(next roll | keep), as floats."""
    return KEEP_TO_ROLL_COUNT / KEEP_TO_ROLL_DENOMINATOR[:, None]


def sub_keeps(roll: int) -> np.ndarray:
    """Indices of the distinct keeps (0..5 dice) that roll ``roll`` allows."""
    return np.flatnonzero((KEEPS <= ROLLS[roll]).all(axis=1))


def _sub_keep_table() -> np.ndarray:
    """SUB_KEEPS[r, j]: the j-th keep roll r allows, padded with -1 (at most 32 per roll)."""
    allowed = (KEEPS[None, :, :] <= ROLLS[:, None, :]).all(axis=2)  # (252, 462)
    table = np.full((N_ROLLS, 2**N_DICE), -1, dtype=np.int64)
    rows, keeps = np.nonzero(allowed)
    slot = np.arange(len(rows)) - np.searchsorted(rows, rows)
    table[rows, slot] = keeps
    return table


SUB_KEEPS = _sub_keep_table()


for _arr in (KEEPS, KEEP_SIZE, KEEP_START, ROLLS, ROLL_AS_KEEP, ROLL_WEIGHT, ROLL_PROBABILITY,
             KEEP_CHILD, KEEP_PARENT, KEEP_TO_ROLL_COUNT, KEEP_TO_ROLL_DENOMINATOR, SUB_KEEPS,
             _INDEX_OF_CODE):
    _arr.setflags(write=False)


def keep_action(arg) -> dict:
    """``{"keep": faces}`` with the faces sorted, or BadAction for anything but faces 1..6."""
    if not isinstance(arg, list) or not all(isinstance(v, int) and not isinstance(v, bool)
                                            and 1 <= v <= 6 for v in arg):
        raise BadAction(f"keep takes a list of faces 1..6, not {arg!r}")
    return {"keep": sorted(arg)}
