"""A fixed policy's chance of a target: the expected-score policy's P(final ≥ T).

The policy's choices do not depend on the need: each state's turn is a fixed distribution
over the writes that end it, found once per state (``_policy``), and each (state, need) is
a weighted sum of a few reads instead of a whole turn (``_policy_values``).  The layers are
the driver's (``driver.solve_layers``); only a chunk's values differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

import numpy as np

from .. import dice
from ..category import CategoryRules, StateValues, turn_write_values
from ..turn import first_best_sub_keep, solve_turn, sparse_keep_to_roll
from .driver import need_range, solve_layers
from .kernel import Chunk, need_columns
from .values import TargetValues


@dataclass(frozen=True)
class _Endings:
    """The expected-score policy's turn in a chunk of states, as the writes it ends with.

    Its choices do not depend on the need, so a state's turn is a fixed distribution over
    the writes that end it: outcome i of state j (``start[j] <= i < start[j + 1]``) is read
    at ``flat[base + clip(need − shift, 0, cap)]`` and ends the turn with probability
    ``mass[i]``.  P(writing ≥ need) is then a weighted sum of a few reads per column
    instead of a whole turn.
    """

    start: np.ndarray  # (b + 1,)
    base: np.ndarray  # (n,) int64
    shift: np.ndarray
    cap: np.ndarray
    mass: np.ndarray  # (n,) float64


def _policy(game: CategoryRules, values: np.ndarray, masks, extras, gathers) -> _Endings:
    """The endings of the expected-score policy's turn, its choices tie for tie as the
    simulator makes them: the first box of best value, the first best keep, a keep only
    when strictly better than writing."""
    b = len(masks)
    ends = game.first_roll_end()
    write = turn_write_values(game, values, masks, extras)
    kept = solve_turn(write, ends).before_roll
    distinct = {}
    for gk in gathers:
        for g in gk:
            distinct.setdefault(id(g), g)
    order = list(distinct.values())
    first_class = dict(zip(distinct, np.cumsum([0] + [g.moves.n_classes for g in order]).tolist()))
    n_classes = sum(g.moves.n_classes for g in order)
    mass = np.repeat(dice.ROLL_PROBABILITY[:, None], b, axis=1)
    if ends is not None:
        mass[~np.isnan(ends)] = 0.0  # the game ends below the need: no write reads on
    written = np.zeros(b * n_classes)
    column = np.arange(b)[None, :]
    for k, gk in enumerate(gathers):
        best = np.full((dice.N_ROLLS, b), -np.inf)
        pick = np.zeros((dice.N_ROLLS, b), np.int64)
        for g in gk:
            m = g.moves
            value = np.where(m.legal, m.points + values[m.next_state], -np.inf)[m.inv]
            better = value > best[:, m.rows]
            r, c = np.nonzero(better)
            best[r, m.rows[c]] = value[r, c]
            pick[r, m.rows[c]] = first_class[id(g)] + m.inv[r]
        if k < 2:
            best_keep, keep = first_best_sub_keep(kept[k])
            go_on = best_keep > write[k]
            stop = np.where(go_on, 0.0, mass)
            written += np.bincount((column * n_classes + pick).ravel(), stop.ravel(), b * n_classes)
            kept_mass = np.bincount((keep * b + column)[go_on], mass[go_on], dice.N_KEEPS * b)
            mass = np.asarray(sparse_keep_to_roll().T @ kept_mass.reshape(dice.N_KEEPS, b))
        else:
            written += np.bincount((column * n_classes + pick).ravel(), mass.ravel(), b * n_classes)
    state, cls = np.nonzero(written.reshape(b, n_classes))
    tables = [np.concatenate([getattr(g, name) for g in order]) for name in ("base", "shift", "cap")]
    start = np.searchsorted(state, np.arange(b + 1))
    return _Endings(start, *(t[cls, state] for t in tables),
                    written.reshape(b, n_classes)[state, cls])


#: Reads per call of the policy's weighted sum (a few MB of scratch).
POLICY_READS = 1 << 18


def _policy_values(endings: _Endings, flat: np.ndarray, j: np.ndarray, need: np.ndarray) -> np.ndarray:
    """P(writing ≥ need) under the expected-score policy for columns (state j, need)."""
    out = np.empty(len(j))
    degree = endings.start[j + 1] - endings.start[j]
    reads = np.cumsum(degree)
    lo = 0
    while lo < len(j):
        base = int(reads[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(reads, base + POLICY_READS, side="right")))
        deg = degree[lo:hi]
        first = np.cumsum(deg) - deg
        col = np.repeat(np.arange(hi - lo), deg)
        at = endings.start[j[lo:hi]][col] + np.arange(int(deg.sum())) - first[col]
        idx = need[lo:hi][col] - endings.shift[at]
        np.maximum(idx, 0, out=idx)
        np.minimum(idx, endings.cap[at], out=idx)
        idx += endings.base[at]
        out[lo:hi] = np.add.reduceat(flat[idx] * endings.mass[at], first)
        lo = hi
    return out


def _policy_turn_values(values: np.ndarray, chunk: Chunk, out: np.ndarray) -> None:
    """W of every column of ``chunk`` under the expected-score policy of ``values``."""
    j, need = need_columns(chunk.lo, chunk.count)
    out[:] = _policy_values(_policy(chunk.game, values, chunk.masks, chunk.extras, chunk.gathers),
                            chunk.rows.flat, j, need)


def policy_target_values(game: CategoryRules, solved: StateValues, max_need: int | None = None,
                         progress: Callable[[int], None] | None = None, *, target: int | None = None,
                         start: int | None = None, start_points: int = 0, dtype=np.float64,
                         workers: int | None = None) -> TargetValues:
    """The expected-score policy's P(writing ≥ need) (kind ``"expected-score"``): the same
    backward pass and arguments as ``solve_target``, with that policy's choices fixed."""
    return solve_layers(game, *need_range(max_need, target), start, start_points, progress, dtype,
                        workers, partial(_policy_turn_values, solved.values), "expected-score")


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
