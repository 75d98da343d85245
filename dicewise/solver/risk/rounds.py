"""One round of a Risk battle, exactly: outcome counts over every roll of the dice.

A round of ``a`` attacking against ``d`` defending dice (RULES.md section 5) compares the
two sorted rolls pairwise; each comparison lost costs that side one army.  Its outcome is
one of ``MOVES``: (armies the attacker loses, armies the defender loses).  This module
counts the outcomes as integers over the 6**(a+d) rolls, and builds once per tie rule the
float move probabilities that the battle sweeps read, including those a defender needs to
reply to the attacker's roll itself.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message
from .rules import TIES

#: Round outcomes as (armies the attacker loses, armies the defender loses).
MOVES = ((1, 0), (0, 1), (2, 0), (1, 1), (0, 2))
#: The outcomes that take one and two defending armies without loss to the attacker.
WIN1, WIN2 = MOVES.index((0, 1)), MOVES.index((0, 2))


def _check_dice(a: int, d: int) -> None:
    if a not in (1, 2, 3) or d not in (1, 2):
        raise DicewiseError(Message("a round has 1..3 attacking and 1..2 defending dice, not "
                                    "{attacking} v {defending}", attacking=a, defending=d))


@lru_cache(maxsize=None)
def attacker_classes(a: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """The attacker's rolls of ``a`` dice grouped by their two highest dice (all that a
    comparison with at most two defending dice can see), with counts over 6**a."""
    counts = Counter(tuple(sorted(r, reverse=True)[:2]) for r in
                     itertools.product(range(1, 7), repeat=a))
    keys = tuple(sorted(counts))
    return keys, tuple(counts[k] for k in keys)


def _losses(att: Sequence[int], dfn: Sequence[int], ties: str) -> tuple[int, int]:
    """Armies lost by (attacker, defender) when two sorted-descending rolls are compared."""
    lost_a = lost_d = 0
    for x, y in zip(att, dfn):
        if x > y or (x == y and ties == "attacker"):
            lost_d += 1
        else:
            lost_a += 1
    return lost_a, lost_d


@lru_cache(maxsize=None)
def class_counts(a: int, d: int, ties: str) -> np.ndarray:
    """Integer counts, over the defender's 6**d rolls, of each move for each attacker class.

    Shape ``(classes, 5)``; the defender's roll counts in full (it may have 1 or 2 dice)."""
    keys, _ = attacker_classes(a)
    out = np.zeros((len(keys), len(MOVES)), dtype=np.int64)
    for c, top in enumerate(keys):
        for roll in itertools.product(range(1, 7), repeat=d):
            out[c, MOVES.index(_losses(top, sorted(roll, reverse=True), ties))] += 1
    return out


def round_counts(a: int, d: int, ties: str = "defender") -> dict[tuple[int, int], int]:
    """Exact counts of each round outcome over the 6**(a+d) equally likely dice rolls.

    Keys are (armies the attacker loses, armies the defender loses); for 3 v 2 with ties to
    the defender: {(0, 2): 2890, (1, 1): 2611, (2, 0): 2275}, out of 7776.
    """
    _check_dice(a, d)
    if ties not in TIES:
        raise DicewiseError(Message("ties must be one of {choices}, not {value}",
                                    choices=" | ".join(TIES), value=repr(ties)))
    _, weights = attacker_classes(a)
    total = np.asarray(weights, dtype=np.int64) @ class_counts(a, d, ties)
    return {MOVES[k]: int(n) for k, n in enumerate(total) if n}


def round_probabilities(a: int, d: int, ties: str = "defender") -> dict[tuple[int, int], float]:
    """The outcome probabilities of one round (see ``round_counts``)."""
    return {k: n / 6 ** (a + d) for k, n in round_counts(a, d, ties).items()}


@dataclass(frozen=True)
class MoveTables:
    """Float move probabilities for the sweep, built once per ``ties``.

    ``P[a, d]``: the moves of a round of a v d dice, shape (4, 3, 5); ``P12`` the rows
    a = 1..3, d = 1..2 stacked (6, 5).  For a defender who sees the attacker's roll, the
    rolls of every count a = 1..3 are split into classes by their two highest dice (48 in
    all): ``delta[c]`` is how the move probabilities of class c change when the defender
    rolls 2 dice instead of 1; ``wsum`` (3, 48) weighs class values into per-count values
    and ``dblocks[a - 1]`` (5, classes of a) weighs class changes into moves.
    """

    P: np.ndarray
    P12: np.ndarray
    delta: np.ndarray
    wsum: np.ndarray
    dblocks: tuple[np.ndarray, ...]


#: Where each attacker count's roll classes start and end in ``MoveTables.delta``.
CLASS_ROWS = np.cumsum([0] + [len(attacker_classes(a)[0]) for a in (1, 2, 3)])


@lru_cache(maxsize=None)
def move_tables(ties: str) -> MoveTables:
    """The read-only move probabilities of every dice count for the tie rule ``ties``."""
    P = np.zeros((4, 3, len(MOVES)))
    ws, deltas, blocks = [], [], []
    for a in (1, 2, 3):
        _, w = attacker_classes(a)
        w = np.asarray(w, dtype=float) / 6 ** a
        per = {}
        for d in (1, 2):
            cc = class_counts(a, d, ties) / 6 ** d
            per[d] = cc
            P[a, d] = w @ cc
        ws.append(w)
        deltas.append(per[2] - per[1])
        blocks.append(len(w))
    delta = np.concatenate(deltas)
    wsum = np.zeros((3, len(delta)))
    start = 0
    for k, size in enumerate(blocks):
        wsum[k, start:start + size] = ws[k]
        start += size
    dblocks = tuple((deltas[k] * ws[k][:, None]).T.copy() for k in range(3))
    t = MoveTables(P=P, P12=P[1:4, 1:3].reshape(6, len(MOVES)), delta=delta, wsum=wsum,
                   dblocks=dblocks)
    for arr in (t.P, t.P12, t.delta, t.wsum, *t.dblocks):
        arr.setflags(write=False)
    return t
