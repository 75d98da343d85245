"""The backward driver of play for a target: W(state, need) layer by layer.

``W(state, need)`` is the largest probability of writing at least ``need`` more points
from the start of a turn in ``state`` (bonuses counted as they are earned, the end-of-game
bonus at the end; on a full sheet W = 1 if need ≤ that bonus, else 0).  A throw that ends
the game at once (General's big general, RULES.md section 1) ends it with the points
written so far.

States are solved layer by layer (by number of filled boxes), as in ``category.py``, each
chunk of a layer by the turn kernel (``kernel.py``), and three facts keep the need axis of
each state short:

* ``most(s)``, the most points s can still write, gives W = 0 above it, and ``fewest(s)``
  gives W = 1 at and below it (0 in most games, below 0 where boxes lose points, as
  poker-programs' obligatory figures do); every roll has a positive probability on every
  roll number, so both are a max (min) over writes;
* for one target T, a sheet in state s holds between ``least(s)`` and ``greatest(s)``
  points (a forward pass), so only the needs T − greatest(s) .. T − least(s) occur there.

The same layers give a fixed policy's probabilities (``evaluation.py``): only the value of
a chunk's columns differs (``ChunkValues``).  Method, checks and measured times:
docs/target.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...errors import DicewiseError
from ..category import CategoryRules, state_layers
from .. import runtime
from ..turn import prepare
from .kernel import (CHUNK_STATES, NO_LIMIT, Chunk, SolvedRows, best_turn_values, distinct_moves,
                     gathers_of, turn_moves, write_extremes)
from .values import RowLookup, TargetValues

#: How a chunk's columns get their values: ``f(chunk, out)`` writes W of every column of
#: ``chunk`` into ``out``, a row per kind solved (``kernel.best_turn_values``, a fixed
#: policy's, or both on the same reads).
ChunkValues = Callable[[Chunk, np.ndarray], None]


def _arrivals(game: CategoryRules, where: RowLookup, ends, least, greatest, chunk: np.ndarray):
    """Where the turns of ``chunk``'s states lead: (rows of the next states, the fewest and
    the most points a sheet holds on arriving there from this chunk)."""
    at = where(chunk)
    nxt, low, high = [], [], []
    for m, attainable in distinct_moves(turn_moves(game, *np.divmod(chunk, game.n_extra)), ends):
        ok = m.legal if attainable is None else m.legal & attainable[:, None]
        src = np.broadcast_to(at[m.rows][None, :], ok.shape)[ok]
        nxt.append(m.next_state[ok])
        low.append(least[src] + m.points[ok])
        high.append(greatest[src] + m.points[ok])
    if not nxt:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    rows = where(np.concatenate(nxt))
    first = rows.min()  # the next states are one layer on: a short span of rows
    fewest = np.full(rows.max() - first + 1, NO_LIMIT)
    most = np.full(len(fewest), -NO_LIMIT)
    np.minimum.at(fewest, rows - first, np.concatenate(low))
    np.maximum.at(most, rows - first, np.concatenate(high))
    reached = np.flatnonzero(most > -NO_LIMIT)
    return reached + first, fewest[reached], most[reached]


def _points_written(game: CategoryRules, layers, where: RowLookup, ends, start_points: int,
                    runner, progress) -> tuple[np.ndarray, np.ndarray]:
    """(least, greatest) points on a sheet at the start of each state's turn (at the rows
    ``where`` gives), over every way of reaching it from the start sheet (the last layer): a
    forward pass over the layers, each layer's chunks on ``runner``.  Min and max over
    whole numbers: the same whatever order the chunks come in."""
    least = np.full(len(where.order), NO_LIMIT)
    greatest = np.full(len(where.order), -NO_LIMIT)
    least[where(layers[-1])] = greatest[where(layers[-1])] = start_points
    for states in reversed(layers[1:]):  # the full sheets (layers[0]) take no turn
        pieces = [states[i:i + 4 * CHUNK_STATES] for i in range(0, len(states), 4 * CHUNK_STATES)]
        # A chunk reads the rows of its own layer, which earlier layers have finished.
        for piece, (nxt, fewest, most) in zip(pieces, runner.map(_arrivals, pieces, game, where,
                                                                 ends, least, greatest)):
            np.minimum.at(least, nxt, fewest)
            np.maximum.at(greatest, nxt, most)
            if progress is not None:
                progress(len(piece))
    if progress is not None:
        progress(len(layers[0]))
    return least, greatest


def _fewest_points(game: CategoryRules) -> int:
    """A lower bound on the points of any sheet: every box at its lowest."""
    return int(np.minimum(game.base_points.min(axis=(1, 2)), 0).sum())


@dataclass(frozen=True)
class _Setting:
    """What every chunk of one solve needs to know."""

    game: CategoryRules
    lo_target: int
    hi_target: int
    where: RowLookup  # position of each state in ``least`` and ``greatest``
    least: np.ndarray
    greatest: np.ndarray
    ends: np.ndarray | None
    dtype: np.dtype
    evaluate: ChunkValues
    kinds: int


def _rows_of(values: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Values of consecutive states (``count`` each, a row per kind) laid out as the table's
    rows, [1, W(lo..hi), 0] per state."""
    length = count + 2
    offsets = np.cumsum(length) - length
    rows = np.zeros((len(values), int(length.sum())), values.dtype)
    rows[:, offsets] = 1.0
    at = np.repeat(offsets + 1 - (np.cumsum(count) - count), count) + np.arange(values.shape[1])
    rows[:, at] = values
    return rows


def _solve_chunk(setting: _Setting, rows: SolvedRows, states: np.ndarray):
    """The rows of one chunk of a layer: (fewest, most, lo, hi, the table's rows of its
    states, laid out here so that the layer is their concatenation)."""
    game = setting.game
    masks, extras = np.divmod(states, game.n_extra)
    moves = turn_moves(game, masks, extras)
    fewest, most = write_extremes(moves, rows, len(states), setting.ends)
    at = setting.where(states)
    lo = np.maximum(fewest + 1, setting.lo_target - setting.greatest[at])
    hi = np.minimum(most, setting.hi_target - setting.least[at])
    count = np.maximum(hi - lo + 1, 0)
    chunk = Chunk(game, masks, extras, gathers_of(moves, rows, len(states)), rows, lo, count,
                  setting.ends)
    out = np.empty((setting.kinds, int(count.sum())), setting.dtype)
    setting.evaluate(chunk, out)
    return fewest, most, lo, hi, _rows_of(out, count)


def solve_layers(game: CategoryRules, max_need: int | None, target: int | None,
                 start: int | None, start_points: int, progress, dtype, workers,
                 evaluate: ChunkValues, kinds: tuple[str, ...]) -> tuple[TargetValues, ...]:
    """The tables of ``kinds``, in one layout: every layer from the full sheets back to
    ``start``, each chunk's columns valued by ``evaluate`` (the best turn, a fixed
    policy's, or both)."""
    if not game.exact:
        raise DicewiseError(f"{game.name} with these options has no exact solver")
    start = game.initial_state if start is None else int(start)
    layers = state_layers(game, start)
    ends = game.first_roll_end()
    if ends is not None and (_fewest_points(game) < 0 or np.nanmax(np.abs(ends)) != 0):
        # A game ended by a throw is worth W = [need ≤ 0]: the turn solver's end value 0 is
        # that only where no column has a need ≤ 0, i.e. where no write loses points.
        raise DicewiseError(f"{game.name}: a throw that ends the game needs boxes that never lose points")
    rows_of = RowLookup.of(np.concatenate(layers))
    parts_out: list[tuple] = []
    total = 0
    rows = None
    with runtime.local(workers) as runner:
        if target is not None:
            least, greatest = _points_written(game, layers, rows_of, ends, start_points, runner,
                                              progress)
            lo_target = hi_target = int(target)
        else:
            least = np.full(len(rows_of.order), start_points + _fewest_points(game))
            greatest = np.full(len(rows_of.order), start_points, np.int64)
            lo_target, hi_target = -NO_LIMIT, NO_LIMIT if max_need is None else int(max_need)
        setting = _Setting(game, lo_target, hi_target, rows_of, least, greatest, ends,
                           np.dtype(dtype), evaluate, len(kinds))
        # At most a column per need from the target down (every target: about a thousand).
        prepare(len(rows_of.order) * (int(target) + 1 if target is not None else 1000),
                setting.dtype)
        for depth, states in enumerate(layers):
            if depth == 0:  # full sheets: W = 1 up to the end-of-game bonus
                most = np.rint(game.final_bonus(states % game.n_extra)).astype(np.int64)
                chunks = [(most, most, most + 1, most,
                           _rows_of(np.zeros((len(kinds), 0), setting.dtype), np.zeros_like(most)))]
                if progress is not None:
                    progress(len(states))
            else:
                pieces = [states[i:i + CHUNK_STATES] for i in range(0, len(states), CHUNK_STATES)]
                chunks = []
                for piece, chunk in zip(pieces, runner.map(_solve_chunk, pieces, setting, rows)):
                    chunks.append(chunk)
                    if progress is not None:
                        progress(len(piece))
            fewest, most, lo, hi = (np.concatenate([c[i] for c in chunks]) for i in range(4))
            count = np.maximum(hi - lo + 1, 0)
            length = count + 2  # a row is [1, W(lo..hi), 0]
            offsets = np.cumsum(length) - length
            flats = np.concatenate([c[4] for c in chunks], axis=1)
            rows = SolvedRows(tuple(flats), offsets, lo, length - 1, fewest, most, RowLookup.of(states))
            parts_out.append((states, fewest, most, lo, hi, offsets + total, flats))
            total += flats.shape[1]
    if max_need is None and target is None:
        max_need = int(parts_out[-1][2][0]) + start_points
    states, fewest, most, lo, hi, offsets = (np.concatenate([p[i] for p in parts_out])
                                             for i in range(6))
    flats = np.concatenate([p[6] for p in parts_out], axis=1)
    return tuple(TargetValues(game.name, game.options, states, fewest, most, lo, hi, offsets, flat,
                              int(max_need if target is None else target), target, start,
                              start_points, kind) for kind, flat in zip(kinds, flats))


def need_range(max_need, target) -> tuple[int | None, int | None]:
    """(max_need, target) of a solve, checked: one of them, or neither (every target)."""
    if target is not None:
        if max_need is not None and max_need != target:
            raise DicewiseError("give max_need or target, not both")
        return None, int(target)
    if max_need is not None and max_need < 0:
        raise DicewiseError("max_need cannot be negative")
    return (None if max_need is None else int(max_need)), None


def solve_target(game: CategoryRules, max_need: int | None = None,
                 progress: Callable[[int], None] | None = None, *, target: int | None = None,
                 start: int | None = None, start_points: int = 0, dtype=np.float64,
                 workers: int | None = None) -> TargetValues:
    """W(state, need) for every state reachable from ``start`` (default: the empty sheet,
    holding ``start_points``) and every target T ≤ ``max_need`` (default: every target).
    With ``target`` instead, only the needs a sheet on its way to that one T can have.
    ``progress(n)``: n more states done (twice each for one target: a first pass finds the
    points each can hold); float32 ``dtype`` halves memory and time.
    ``workers``: processes per layer (``runtime.local``; default the cores)."""
    return solve_layers(game, *need_range(max_need, target), start, start_points, progress, dtype,
                        workers, best_turn_values, ("optimal",))[0]
