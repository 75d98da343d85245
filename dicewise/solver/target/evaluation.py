"""A fixed policy's chance of a target: the expected-score policy's P(final ≥ T).

The policy's choices do not depend on the need: each state's turn is a fixed distribution
over the roll classes of the writes that end it, found once per chunk of states
(``policy_endings``), and each (state, need) is a weighted sum of a few reads of the next
layers instead of a whole turn.  Those reads are where the best play's turn reads too
(``kernel.RunReads.index``), so the two kinds are solved together on the same reads
(``solve_with_policy``) or the policy's alone (``policy_target_values``); the layers are
the driver's (``driver.solve_layers``).
"""

from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from .. import dice
from ..category import CategoryRules, StateValues
from ..turn import first_best_sub_keep, keep_values, sparse_keep_to_roll
from .driver import need_range, solve_layers
from .kernel import (Chunk, Columns, Gather, RunReads, best_turn_values, chunk_batches,
                     chunk_workspace)
from .values import TargetValues


class PolicyEndings:
    """The expected-score policy's turn in a chunk of states, as the writes it ends with:
    ``written[first[id(g)] + q, j]`` is the probability that state j's turn ends writing
    class q of gather g (each distinct gather of the chunk once)."""

    def __init__(self, first: dict, written: np.ndarray, masks: np.ndarray):
        self.first, self.written, self.masks = first, written, masks
        self._runs: dict[int, tuple] = {}

    def run(self, a: int, reads: RunReads) -> tuple:
        """For the run of states with state a's boxes filled, whose classes ``reads``
        stacks: (its first state, the stacked rows of the classes the policy ends in
        there, their masses over the run's states, a row each)."""
        lo = int(np.searchsorted(self.masks, self.masks[a]))
        found = self._runs.get(lo)
        if found is None:
            hi = int(np.searchsorted(self.masks, self.masks[a], side="right"))
            stacked, own = [], []
            for g in reads.gathers:
                f = self.first[id(g)]
                q = np.flatnonzero(self.written[f:f + g.moves.n_classes, lo:hi].any(axis=1))
                stacked.append(reads.rows[id(g)][0] + q)
                own.append(f + q)
            own = np.concatenate(own) if own else np.zeros(0, np.int64)
            found = self._runs[lo] = (lo, np.concatenate(stacked) if stacked else own,
                                      self.written[own, lo:hi])
        return found


class BatchReads:
    """P(writing ≥ need) under the policy for the columns ``cols`` of a batch whose first
    state is a, read from ``flat`` (the policy's solved rows) where the classes the policy
    ends in read (``__call__(reads, idx)``, told by ``kernel.best_write_values``)."""

    def __init__(self, endings: PolicyEndings, a: int, cols: Columns, flat: np.ndarray):
        self.endings, self.a, self.cols, self.flat = endings, a, cols, flat
        self.total: np.ndarray | None = None

    def __call__(self, reads: RunReads, idx: np.ndarray) -> None:
        lo, rows, mass = self.endings.run(self.a, reads)
        read = np.take(self.flat, np.take(idx, rows, axis=0), mode="clip")
        self.total = np.einsum("rc,rc->c", read, np.take(mass, self.cols.j - lo, axis=1))

    def values(self) -> np.ndarray:
        if self.total is None:
            raise AssertionError("the batch was not read")
        return self.total


def policy_endings(values: np.ndarray, chunk: Chunk) -> PolicyEndings:
    """The endings of the expected-score policy's turn in every state of ``chunk``, its
    choices tie for tie as the simulator makes them: the first box of best value, the
    first best keep, a keep only when strictly better than writing."""
    b = len(chunk.masks)
    order: dict[int, Gather] = {}
    for gk in chunk.gathers:
        for g in gk:
            order.setdefault(id(g), g)
    starts = np.cumsum([0] + [g.moves.n_classes for g in order.values()]).tolist()
    first, n_classes = dict(zip(order, starts)), starts[-1]
    writes, picks = [], []
    for k, gk in enumerate(chunk.gathers):
        if k and gk is chunk.gathers[k - 1]:
            writes.append(writes[-1])
            picks.append(picks[-1])
            continue
        best, pick = _best_writes(values, gk, first, b)
        writes.append(best)
        picks.append(pick)
    # The turn backwards as ``solve_turn`` plays it, each best sub-keep found with its keep.
    best2, keep2 = first_best_sub_keep(keep_values(writes[2]))
    best1, keep1 = first_best_sub_keep(keep_values(np.maximum(writes[1], best2)))
    mass = np.repeat(dice.ROLL_PROBABILITY[:, None], b, axis=1)
    if chunk.ends is not None:
        mass[~np.isnan(chunk.ends)] = 0.0  # the game ends below the need: no write reads on
    column = np.arange(b)[None, :]
    written = np.zeros(n_classes * b)
    for k, (best_keep, keep) in enumerate(((best1, keep1), (best2, keep2), (None, None))):
        stop = mass
        if k < 2:
            go_on = best_keep > writes[k]
            stop = np.where(go_on, 0.0, mass)
            kept_mass = np.bincount((keep * b + column)[go_on], mass[go_on], dice.N_KEEPS * b)
            mass = np.asarray(sparse_keep_to_roll().T @ kept_mass.reshape(dice.N_KEEPS, b))
        written += np.bincount((picks[k] * b + column).ravel(), stop.ravel(), n_classes * b)
    return PolicyEndings(first, written.reshape(n_classes, b), chunk.masks)


def _best_writes(values: np.ndarray, gk: list[Gather], first: dict, b: int):
    """(best write value, its class) after one roll number, both (252, b): the first box of
    best value, boxes in order."""
    best = np.full((b, dice.N_ROLLS), -np.inf)
    pick = np.zeros((b, dice.N_ROLLS), np.int64)
    for g in gk:
        m = g.moves
        value = np.where(m.legal, m.points + values[m.next_state], -np.inf).T[:, m.inv]
        cls = first[id(g)] + m.inv
        if len(m.rows) == b:
            better = value > best
            np.copyto(best, value, where=better)
            np.copyto(pick, cls[None, :], where=better)
        else:
            better = value > best[m.rows]
            best[m.rows] = np.where(better, value, best[m.rows])
            pick[m.rows] = np.where(better, cls[None, :], pick[m.rows])
    return np.ascontiguousarray(best.T), np.ascontiguousarray(pick.T)


def _policy_turn_values(values: np.ndarray, chunk: Chunk, out: np.ndarray) -> None:
    """The expected-score policy's P(writing ≥ need) of every column of ``chunk`` (its
    values alone), into ``out[0]``."""
    endings = policy_endings(values, chunk)
    done, ws = 0, chunk_workspace(chunk)
    for a, b, cols, plan in chunk_batches(chunk):
        reads = BatchReads(endings, a, cols, chunk.rows.flat)
        reads(plan.reads, plan.reads.index(cols, ws))
        out[0, done:done + len(cols.need)] = reads.values()
        done += len(cols.need)


def _both_turn_values(values: np.ndarray, chunk: Chunk, out: np.ndarray) -> None:
    """W (``out[0]``) and the expected-score policy's probability (``out[1]``) of every
    column of ``chunk``, the policy reading its own values where the best play reads."""
    endings = policy_endings(values, chunk)
    policy_flat = chunk.rows.flats[1]
    best_turn_values(chunk, out, lambda a, b, cols: BatchReads(endings, a, cols, policy_flat))


def policy_target_values(game: CategoryRules, solved: StateValues, max_need: int | None = None,
                         progress: Callable[[int], None] | None = None, *, target: int | None = None,
                         start: int | None = None, start_points: int = 0, dtype=np.float64,
                         workers: int | None = None) -> TargetValues:
    """The expected-score policy's P(writing ≥ need) (kind ``"expected-score"``): the same
    backward pass and arguments as ``solve_target``, with that policy's choices fixed."""
    return solve_layers(game, *need_range(max_need, target), start, start_points, progress, dtype,
                        workers, partial(_policy_turn_values, solved.values), ("expected-score",))[0]


def solve_with_policy(game: CategoryRules, solved: StateValues, max_need: int | None = None,
                      progress: Callable[[int], None] | None = None, *, target: int | None = None,
                      start: int | None = None, start_points: int = 0, dtype=np.float64,
                      workers: int | None = None) -> tuple[TargetValues, TargetValues]:
    """``solve_target``'s W and ``policy_target_values``' probabilities in one pass: the
    policy's sums read where the best turn reads, so the two cost little more than one."""
    return solve_layers(game, *need_range(max_need, target), start, start_points, progress, dtype,
                        workers, partial(_both_turn_values, solved.values),
                        ("optimal", "expected-score"))


def expected_policy_chances(game: CategoryRules, solved: StateValues,
                            max_target: int | None = None) -> np.ndarray:
    """The expected-score policy's P(final ≥ T) for T = 0..max_target (default: the most a
    game scores): from the exact distribution where it fits, else by the backward pass."""
    from ..rulesets.strategy import distribution_fits, exact_distribution

    if distribution_fits(game):
        dist = exact_distribution(game, solved.values)
        top = int(dist.scores[-1]) if max_target is None else int(max_target)
        tail = np.cumsum(dist.probability[::-1])[::-1]
        where = np.searchsorted(dist.scores, np.arange(top + 1), side="left")
        return np.where(where < len(tail), tail[np.minimum(where, len(tail) - 1)], 0.0)
    return policy_target_values(game, solved, max_target).chances()
