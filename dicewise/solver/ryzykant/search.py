"""Search at advice time: two rolls of exact expectation before the value model.

The table's policy values a split by the exact expectation over the next roll of the best
split then by the value model (depth 1, ``approx.move_values``).  Searching values it at
depth 2: the exact expectation over the next roll of the best split then *at depth 1* —
two rolls of exact expectation before the model is consulted (``approx.expected_after``
with ``depth=2``).  A split's effect is its two sums and its face, so the position one
split leads to has at most 7·66 distinct successors, whatever the 252 rolls: depth 2 values
at most 462 positions at depth 1 per split, about a hundredth of a second each.

``search`` ranks one roll's splits: the advisor searches every one (at most fifteen, about a
hundredth of a second each), so its ranking is a function of the position alone, never of
how busy the machine is; a caller may give a time budget, which then cuts the least
promising (the splits are searched best first by their depth-1 worth).  ``search_policy``
plays the same in lockstep for simulation, searching the best ``top`` splits of each
decision by their depth-1 worth.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from . import approx
from .rules import Position, RyzykantRules, apply_splits, legal_splits, score

#: Depth of the search (rolls of exact expectation before the value model).
DEPTH = 2
#: Splits deepened per decision by the search policy in simulation.
TOP = 3


@dataclass(frozen=True)
class Searched:
    """One roll's legal split slots with their worth at depth 1 (the table's policy) and at
    ``depth`` (NaN where the time budget ran out first), and the time spent."""

    slots: np.ndarray
    table: np.ndarray
    searched: np.ndarray
    depth: int
    seconds: float

    @property
    def complete(self) -> bool:
        return not np.isnan(self.searched).any()

    def best_slot(self) -> int:
        """The searched split of highest worth (the table's best when nothing was searched)."""
        if np.isnan(self.searched).all():
            return int(self.slots[int(np.argmax(self.table))])
        return int(self.slots[int(np.nanargmax(self.searched))])


def _worth(dense, ruleset: RyzykantRules, upper, lower, roll: int, slots, depth: int) -> np.ndarray:
    """The worth at ``depth`` of split ``slots`` of ``roll`` in one position: the exact final
    score if the split ends the game, else ``expected_after`` at ``depth`` of where it leads."""
    k = len(slots)
    up = np.repeat(np.asarray(upper, np.int64)[None], k, axis=0)
    lo = np.repeat(np.asarray(lower, np.int64)[None], k, axis=0)
    rolls = np.full(k, roll)
    _, pusc = legal_splits(lo, rolls)
    up, lo, ended = apply_splits(ruleset, up, lo, rolls, np.asarray(slots), pusc)
    out = score(up).astype(np.float64)
    live = ~ended
    if live.any():
        out[live] = approx.expected_after(dense, ruleset, up[live], lo[live], depth)
    return out


def search(model, ruleset: RyzykantRules, pos: Position, roll: int,
           seconds: float | None = None, depth: int = DEPTH) -> Searched:
    """The legal splits of ``roll`` in ``pos`` valued at depth 1 and, best first by that
    value, at ``depth``: every one, or while ``seconds`` last where a budget is given (the
    first two are always searched)."""
    start = time.perf_counter()
    dense = approx.as_dense(model)
    up, lo = np.array(pos.upper, np.int64), np.array(pos.lower, np.int64)
    legal, _ = legal_splits(lo[None], np.array([roll]))
    slots = np.flatnonzero(legal[0])
    table = _worth(dense, ruleset, up, lo, roll, slots, 1)
    searched = np.full(len(slots), np.nan)
    for n, i in enumerate(np.argsort(-table, kind="stable")):
        if n >= 2 and seconds is not None and time.perf_counter() - start > seconds:
            break
        searched[i] = _worth(dense, ruleset, up, lo, roll, slots[i:i + 1], depth)[0]
    return Searched(slots, table, searched, depth, time.perf_counter() - start)


def search_policy(model, ruleset: RyzykantRules, top: int | None = None,
                  depth: int = DEPTH) -> approx.Policy:
    """A lockstep policy: the table's depth-1 worth of every legal split, then the best
    ``top`` (default ``TOP``) of them valued at ``depth``; plays the best of those (first
    slot on ties).  With ``top`` 15 it makes the advisor's choice, which searches them all."""
    dense = approx.as_dense(model)
    top = TOP if top is None else top

    def choose(upper, lower, rolls, legal, pusc):
        q1 = approx.lookahead_values(dense, ruleset, upper, lower, rolls, legal, pusc, 1)
        cand = np.argsort(-q1, axis=1, kind="stable")[:, :top]
        g = np.repeat(np.arange(len(rolls)), cand.shape[1])
        j = cand.ravel()
        keep = legal[g, j]
        g, j = g[keep], j[keep]
        up, lo, ended = apply_splits(ruleset, upper[g], lower[g], rolls[g], j, pusc[g])
        worth = score(up).astype(np.float64)
        live = ~ended
        if live.any():
            worth[live] = approx.expected_after(dense, ruleset, up[live], lo[live], depth)
        q = np.full(legal.shape, -np.inf)
        q[g, j] = worth
        return np.argmax(q, axis=1)

    return choose
