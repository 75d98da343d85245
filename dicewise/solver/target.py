"""Play for a target: the largest probability of finishing with at least T points.

``W(state, need)`` is the largest probability of writing at least ``need`` more points
from the start of a turn in ``state`` (bonuses counted as they are earned, the end-of-game
bonus at the end; on a full sheet W = 1 if need ≤ that bonus, else 0).  A throw that ends
the game at once (General's big general, RULES.md section 1) ends it with the points
written so far.  A write of s points moves the need to need − s, so the need is one more
batch axis of the turn solver: its columns are (state, need) pairs, the value of writing
box c with roll r is W(next state, need − points), and ``turn.solve_turn`` maximises a
probability exactly as it maximises an expectation (keep values are linear in the write
values).

States are solved layer by layer (by number of filled boxes), as in ``category.py``, and
three facts keep the need axis of each state short:

* ``most(s)``, the most points s can still write, gives W = 0 above it, and ``fewest(s)``
  gives W = 1 at and below it (0 in most games, below 0 where boxes lose points, as
  poker-programs' obligatory figures do); every roll has a positive probability on every
  roll number, so both are a max (min) over writes;
* for one target T, a sheet in state s holds between ``least(s)`` and ``greatest(s)``
  points (a forward pass), so only the needs T − greatest(s) .. T − least(s) occur there.

Each box's writes are grouped into roll classes (rolls that write the same points, to the
same state, as legally, in every state of a batch), so the ruleset is asked once per class
(``Write.at``), values are read once per class and need, and the max over boxes merges
class tables before spreading them over the 252 rolls.

The expected-score policy's probability of reaching each target (``policy_target_values``)
comes from the same layers, but its choices do not depend on the need: each state's turn
is a fixed distribution over the writes that end it, found once per state, and each
(state, need) is a weighted sum of a few reads instead of a whole turn.  The decision functions at the end (``target_plan``,
``write_chances``, ``settled``) make ``ForTarget``, the decisions with which
``simulate_target`` plays the lockstep simulator of ``rulesets/simulate.py`` on its
common dice stream.  Method, checks
and measured times: docs/target.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import numpy as np

from ..errors import DicewiseError
from . import dice
from .advice import check_position, ranked_choices
from .best_write import Partition, Scratch, best_write, max_plan
from .parallel import local_map
from .protocol import Advice
from .category import ROLL_NUMBERS, CategoryRules, StateValues, turn_write_values
from .rulesets.decisions import TurnPlan, WriteOptions, plan_turns, planned_keeps, write_options
from .rulesets.simulate import GameRecords, play_lockstep
from .sheet import Sheet
from .turn import first_best_sub_keep, solve_turn, sparse_keep_to_roll

#: Turn-start states whose writes are classed together (one call of the ruleset per box).
CHUNK_STATES = 1024
#: (state, need) columns per call of the turn solver: (252, 512) float32 stays in cache.
BATCH_COLUMNS = 512
_NO_LIMIT = np.iinfo(np.int64).max // 4


# -- the solved table -----------------------------------------------------------------


@dataclass(frozen=True)
class TargetValues:
    """P(writing ≥ need more points) for the reachable turn-start states, a row per state.

    Row i belongs to ``states[i]`` and holds the needs ``lo[i]..hi[i]`` at
    ``flat[offsets[i] + 1 + need - lo[i]]``, after a 1 (needs up to ``fewest[i]``, the
    fewest points the state can still write) and before a 0 (needs above ``most[i]``, the
    most).  Without ``target`` every need T − points of a sheet with T ≤ ``max_need`` is
    held; with ``target`` only those of that one target.  ``kind`` says whose probability
    it is: ``"optimal"`` (W, the largest) or ``"expected-score"`` (that policy's).
    """

    game_name: str
    options: dict
    states: np.ndarray  # (n,) int64 state indices, the full sheets first
    fewest: np.ndarray  # (n,) int64
    most: np.ndarray  # (n,) int64
    lo: np.ndarray  # (n,) int64
    hi: np.ndarray  # (n,) int64
    offsets: np.ndarray  # (n,) int64
    flat: np.ndarray  # float64 or float32
    max_need: int
    target: int | None = None
    initial_state: int = 0  # the start sheet's state (the empty sheet unless asked otherwise)
    start_points: int = 0  # the points the start sheet holds
    kind: str = "optimal"

    @cached_property
    def _lookup(self) -> _Lookup:
        return _Lookup.of(self.states)

    @property
    def n_values(self) -> int:
        """(state, need) values solved: needs above fewest, up to most, that a sheet can meet."""
        return int(np.maximum(self.hi - self.lo + 1, 0).sum())

    @property
    def most_points(self) -> int:
        """The most points a game can score from the start sheet (its points included)."""
        return int(self.most[self.rows(self.initial_state)]) + self.start_points

    def rows(self, states) -> np.ndarray:
        """Row of each state; a DicewiseError for a state this table does not hold."""
        rows = self._lookup(np.asarray(states, np.int64))
        if (rows < 0).any():
            raise DicewiseError("a state that no game of these rules reaches")
        return rows

    def at(self, states, needs) -> np.ndarray:
        """W at (state, need) pairs, broadcast together; NaN where the table holds no value."""
        states, needs = np.broadcast_arrays(np.asarray(states, np.int64), np.asarray(needs, np.int64))
        rows = self.rows(states)
        lo, hi, fewest, most = self.lo[rows], self.hi[rows], self.fewest[rows], self.most[rows]
        inside = (needs >= lo) & (needs <= hi)
        value = self.flat[self.offsets[rows] + np.where(inside, needs - lo + 1, 0)].astype(float)
        value = np.where(needs <= fewest, 1.0, np.where(needs > most, 0.0, value))
        return np.where(inside | (needs <= fewest) | (needs > most), value, np.nan)

    def row(self, state: int) -> np.ndarray:
        """W(state, need) for need = 0..max_need (NaN where the table holds no value)."""
        return self.at(np.full(self.max_need + 1, state), np.arange(self.max_need + 1))

    def table(self) -> np.ndarray:
        """(n, max_need + 1): W over the held states (row i is ``states[i]``), needs 0..max_need."""
        return self.at(self.states[:, None], np.arange(self.max_need + 1)[None, :])

    def chances(self) -> np.ndarray:
        """P(final score ≥ T) from the start sheet, for T = 0..max_need (all-targets tables)."""
        targets = np.arange(self.max_need + 1)
        return self.at(np.full(len(targets), self.initial_state), targets - self.start_points)


@dataclass(frozen=True)
class _Lookup:
    """Row of a state index by binary search (a dense index would cost 8 bytes a state of
    the whole game: 240 MB for one-column poker-school with its standing premiums)."""

    sorted_states: np.ndarray
    order: np.ndarray

    @staticmethod
    def of(states: np.ndarray) -> _Lookup:
        order = np.argsort(states, kind="stable")
        return _Lookup(states[order], order)

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """Rows of ``states`` (-1 where not held)."""
        at = np.minimum(np.searchsorted(self.sorted_states, states), len(self.order) - 1)
        return np.where(self.sorted_states[at] == states, self.order[at], -1)


# -- the writes of a batch of states, by roll class ---------------------------------------


@dataclass(frozen=True)
class _Moves:
    """Writing one box after one roll number, in the states of a batch where it is open.

    Rolls of one class write the same points, to the same state, as legally, in every one
    of these states; arrays are (classes, states).
    """

    category: int
    rows: np.ndarray  # (b,) positions of the states in the batch, ascending
    inv: np.ndarray  # (252,) class of each roll
    points: np.ndarray  # (Q, b) int64, bonuses included
    legal: np.ndarray  # (Q, b) bool
    next_state: np.ndarray  # (Q, b) int64

    @property
    def n_classes(self) -> int:
        return len(self.points)

    def same(self, other: _Moves) -> bool:
        return (self.category == other.category and np.array_equal(self.inv, other.inv)
                and np.array_equal(self.points, other.points) and np.array_equal(self.legal, other.legal)
                and np.array_equal(self.next_state, other.next_state))


_PROJECTION = np.random.default_rng(0x7A26E7).standard_normal((3, 1 << 14))


def _as_rows(a, b: int) -> np.ndarray:
    """A Write array (broadcastable to (k, b)) as 2-D with b or 1 columns."""
    a = np.atleast_2d(np.asarray(a))
    return a if a.shape[1] in (1, b) else np.broadcast_to(a, (a.shape[0], b))


def _roll_classes(w, b: int) -> tuple[np.ndarray, np.ndarray]:
    """(first roll of each class, class of each roll) of one ``Write`` over b states.

    A random projection of each roll's points, next extra and legality over the states is
    its key; rolls with equal keys are then checked to have equal rows, so classes are exact
    (a failed check makes every roll its own class).  Rolls with special points (Yahtzee's
    jokers) are classes of their own.
    """
    n = dice.N_ROLLS
    parts = [(_as_rows(w.points, b), None), (_as_rows(w.next_extra, b), np.asarray(w.roll_class))]
    if w.legal is not None:
        parts.append((_as_rows(w.legal, b), None))
    key = np.zeros((n, 4))
    for i, (a, index) in enumerate(parts):
        proj = a.astype(float) @ _PROJECTION[i, :a.shape[1]]
        key[:, i] = proj[index] if index is not None else np.broadcast_to(proj, (n,))
    special = np.zeros(n, bool)
    if w.special is not None:
        special[w.special[0]] = True
        key[w.special[0], 3] = np.arange(1, len(w.special[0]) + 1)
    _, first, inv = np.unique(key, axis=0, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    plain = np.flatnonzero(~special)
    rep = first[inv][plain]
    for a, index in parts:
        if a.shape[0] == 1:
            continue
        mine, theirs = (plain, rep) if index is None else (index[plain], index[rep])
        if not np.array_equal(a[mine], a[theirs]):
            return np.arange(n), np.arange(n)
    return first, inv


def _batch_moves(game: CategoryRules, masks, extras, roll_number: int) -> list[_Moves]:
    """Every open box's writes after ``roll_number`` for a batch of states, by roll class."""
    out = []
    for c in range(game.n_categories):
        rows = np.flatnonzero((masks >> c) & 1 == 0)
        if len(rows) == 0:
            continue
        m, e, b = masks[rows], extras[rows], len(rows)
        w = game.write(c, roll_number, m, e)
        first, inv = _roll_classes(w, b)
        q = len(first)
        points, _, legal, nxt = (a.reshape(q, b) for a in
                                 w.at(np.repeat(first, b), np.tile(np.arange(b), q), b))
        if not legal.any():
            continue  # e.g. a free figure of poker-programs before the obligatory ones
        next_state = (m | (1 << c))[None, :] * game.n_extra + nxt
        out.append(_Moves(c, rows, inv, np.rint(points).astype(np.int64), legal, next_state))
    return out


def _turn_moves(game: CategoryRules, masks, extras) -> tuple[list[_Moves], ...]:
    """The moves after roll 1, 2 and 3.  A box that writes alike after two roll numbers is
    one object in both lists, and equal lists are one object."""
    if not game.roll_number_matters:
        moves = _batch_moves(game, masks, extras, 1)
        return moves, moves, moves
    lists: list[list[_Moves]] = []
    for k in ROLL_NUMBERS:
        mk = _batch_moves(game, masks, extras, k)
        for i, m in enumerate(mk):
            for earlier in lists:
                twin = [x for x in earlier if x.category == m.category and x.same(m)]
                if twin:
                    mk[i] = twin[0]
                    break
        same = [earlier for earlier in lists
                if len(earlier) == len(mk) and all(x is y for x, y in zip(earlier, mk))]
        lists.append(same[0] if same else mk)
    return tuple(lists)


def _first_roll_classes(m: _Moves, ends) -> np.ndarray:
    """(Q,) bool: classes holding a roll that does not end the game on the first roll."""
    if ends is None:
        return np.ones(m.n_classes, bool)
    return np.bincount(m.inv, weights=np.isnan(ends), minlength=m.n_classes) > 0


def _distinct(moves: tuple[list[_Moves], ...], ends):
    """Each distinct (moves, attainable classes) once: roll-1 moves only where they differ
    from every later roll number's (those rolls come again on rolls 2 and 3)."""
    later = {id(m) for mk in moves[1:] for m in mk}
    seen = set()
    for k, mk in enumerate(moves):
        for m in mk:
            if id(m) in seen or (k == 0 and id(m) in later):
                continue
            seen.add(id(m))
            yield m, (_first_roll_classes(m, ends) if k == 0 else None)


# -- rows to read from ------------------------------------------------------------------


@dataclass(frozen=True)
class _Rows:
    """Solved rows: the layer after the one being solved, or a whole table."""

    flat: np.ndarray
    offsets: np.ndarray
    lo: np.ndarray
    last: np.ndarray  # index of the trailing 0 within each row
    fewest: np.ndarray
    most: np.ndarray
    row_of: _Lookup  # row of state indices

    @staticmethod
    def of(values: TargetValues) -> _Rows:
        return _Rows(values.flat, values.offsets, values.lo, np.maximum(values.hi - values.lo + 2, 1),
                     values.fewest, values.most, values._lookup)


@dataclass(frozen=True)
class _Cols:
    """The columns of one batch: the chunk state and the need of each, runs of one state."""

    j: np.ndarray
    need: np.ndarray
    spans: tuple  # (state, first column, end column) of each run

    @staticmethod
    def of(j: np.ndarray, need: np.ndarray) -> _Cols:
        cut = np.flatnonzero(np.diff(j)) + 1
        starts, ends = np.r_[0, cut], np.r_[cut, len(j)]
        return _Cols(j, need, tuple(zip(j[starts].tolist(), starts.tolist(), ends.tolist())))

    def spread(self, table: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``out[:, col] = table[:, j[col]]``: a broadcast copy per run where runs are few."""
        if len(self.spans) <= 8:
            for state, c0, c1 in self.spans:
                out[:, c0:c1] = table[:, state:state + 1]
        else:
            np.take(table, self.j, axis=1, out=out, mode="clip")
        return out


class _Workspace:
    """Scratch arrays for the batches of one chunk: fresh arrays of this size cost page
    faults that dwarf the arithmetic, so every batch writes into these."""

    def __init__(self, dtype, columns: int, classes: int, tables: int):
        self.idx = np.empty(classes * columns, np.int64)
        self.tmp = np.empty(classes * columns, np.int64)
        self.mask = np.empty(classes * columns, bool)
        self.tables = np.empty(tables * columns, dtype)  # every open box's class values
        self.out = [np.empty(dice.N_ROLLS * columns, dtype) for _ in range(3)]
        self.scratch = Scratch(columns, dtype)

    @staticmethod
    def view(buffer: np.ndarray, rows: int, cols: int) -> np.ndarray:
        return buffer[:rows * cols].reshape(rows, cols)


@dataclass(frozen=True)
class _Gather:
    """Where one box's classes read W(next state, need − points): at
    ``flat[base + clip(need − shift, 0, cap)]``; arrays (Q, chunk states), -inf where the box
    is filled or the write not allowed (``illegal``)."""

    moves: _Moves
    base: np.ndarray
    shift: np.ndarray
    cap: np.ndarray
    illegal: np.ndarray | None  # None: allowed wherever the box is open

    def values(self, flat: np.ndarray, cols: _Cols, ws: _Workspace, value: np.ndarray) -> np.ndarray:
        """(Q, C): the value of each class for the batch's columns, into ``value``."""
        q, c = self.moves.n_classes, len(cols.need)
        idx, tmp = ws.view(ws.idx, q, c), ws.view(ws.tmp, q, c)
        np.subtract(cols.need, cols.spread(self.shift, tmp), out=idx)
        np.maximum(idx, 0, out=idx)
        np.minimum(idx, cols.spread(self.cap, tmp), out=idx)
        idx += cols.spread(self.base, tmp)
        np.take(flat, idx, out=value, mode="clip")
        if self.illegal is not None:
            value[cols.spread(self.illegal, ws.view(ws.mask, q, c))] = -np.inf
        return value


def _workspace(gathers, count: np.ndarray, batches, dtype) -> _Workspace:
    """Scratch space for the largest batch."""
    columns = max((int(count[a:b].sum()) for a, b in batches), default=1)
    classes = max((g.moves.n_classes for gk in gathers for g in gk), default=1)
    tables = max((sum(g.moves.n_classes for g in gk) for gk in gathers), default=1)
    return _Workspace(dtype, columns, classes, tables)


def _gathers(moves: tuple[list[_Moves], ...], rows: _Rows, b: int) -> tuple[list[_Gather], ...]:
    """The gathers of a chunk of b states, one per distinct moves object."""
    made: dict[int, _Gather] = {}
    out = []
    for k, mk in enumerate(moves):
        if k and mk is moves[k - 1]:
            out.append(out[-1])
            continue
        for m in mk:
            if id(m) in made:
                continue
            r = rows.row_of(m.next_state)
            tables = [np.zeros((m.n_classes, b), np.int64) for _ in range(3)]
            for t, v in zip(tables, (rows.offsets[r], m.points + rows.lo[r] - 1, rows.last[r])):
                t[:, m.rows] = v
            illegal = None
            if len(m.rows) < b or not m.legal.all():
                illegal = np.ones((m.n_classes, b), bool)
                illegal[:, m.rows] = ~m.legal
            made[id(m)] = _Gather(m, *tables, illegal)
        out.append([made[id(m)] for m in mk])
    return tuple(out)


def _extremes(moves, rows: _Rows, b: int, ends) -> tuple[np.ndarray, np.ndarray]:
    """(fewest, most) points each of b states can still write: over every write of an
    attainable roll class, its points plus the fewest (most) of the state it leads to."""
    low, high = np.full(b, _NO_LIMIT), np.full(b, -_NO_LIMIT)
    for m, attainable in _distinct(moves, ends):
        r = rows.row_of(m.next_state)
        ok = m.legal if attainable is None else m.legal & attainable[:, None]
        low[m.rows] = np.minimum(low[m.rows], np.where(ok, m.points + rows.fewest[r], _NO_LIMIT).min(axis=0))
        high[m.rows] = np.maximum(high[m.rows], np.where(ok, m.points + rows.most[r], -_NO_LIMIT).max(axis=0))
    return low, high


# -- the max over boxes, merged by classes ------------------------------------------------


#: Merge plans by the partitions of the boxes' rolls (the same in most chunks).
_PLANS: dict = {}


def _max_plan(lists: list[list[_Gather]]) -> tuple:
    """Per roll number, the open boxes' gathers with their ``best_write`` plan (None: as
    the roll number before)."""
    out = []
    for k, gk in enumerate(lists):
        if k and len(gk) == len(lists[k - 1]) and all(x is y for x, y in zip(gk, lists[k - 1])):
            out.append(None)
            continue
        parts = [Partition(g.moves.inv, g.moves.n_classes) for g in gk]
        key = tuple(p.inv.tobytes() for p in parts)
        plan = _PLANS.get(key)
        if plan is None:
            if len(_PLANS) > 4096:
                _PLANS.clear()
            plan = _PLANS[key] = max_plan(parts, greedy=False)
        out.append((gk, parts, plan))
    return tuple(out)


def _write_values(plans: tuple, flat: np.ndarray, cols: _Cols, ws: _Workspace):
    """The best write value after roll 1, 2, 3 for the columns of states with the same open
    boxes: three (252, C) arrays of the max over boxes of W(next, need − points)."""
    c = len(cols.need)
    out: list[np.ndarray] = []
    for k, step in enumerate(plans):
        if step is None:
            out.append(out[-1])
            continue
        gk, parts, plan = step
        tables, at = [], 0
        for g in gk:
            q = g.moves.n_classes
            tables.append(g.values(flat, cols, ws, ws.tables[at * c:(at + q) * c].reshape(q, c)))
            at += q
        out.append(best_write(plan, parts, tables, ws.view(ws.out[k], dice.N_ROLLS, c), ws.scratch))
    return tuple(out)


def _open_lists(gathers: tuple[list[_Gather], ...], i: int) -> list[list[_Gather]]:
    """The gathers of the boxes open in state i of the chunk, by roll number."""
    out = []
    for gk in gathers:
        out.append([g for g in gk if _holds(g.moves.rows, i)])
    return out


def _holds(rows: np.ndarray, i: int) -> bool:
    k = int(np.searchsorted(rows, i))
    return k < len(rows) and rows[k] == i


# -- solving layer by layer ---------------------------------------------------------------


def _layers(game: CategoryRules, start: int) -> list[np.ndarray]:
    """The reachable states with at least the boxes of ``start`` filled, by number of filled
    boxes, the full sheets first and ``start`` alone last."""
    n = game.n_categories
    start_mask, start_extra = divmod(start, game.n_extra)
    if not (0 <= start < game.n_states and game.reachable_extras(np.array([start_mask]))[0, start_extra]):
        raise DicewiseError("the start sheet is not a state any game reaches")
    masks = np.arange(1 << n)
    masks = masks[masks & start_mask == start_mask]
    rows, extras = np.nonzero(game.reachable_extras(masks))
    states = masks[rows] * game.n_extra + extras
    filled = np.array([bin(int(m)).count("1") for m in masks])[rows]
    first = bin(start_mask).count("1")
    return [states[filled == f] for f in range(n, first, -1)] + [np.array([start], np.int64)]


def _points_written(game: CategoryRules, layers, where: _Lookup, ends,
                    start_points: int) -> tuple[np.ndarray, np.ndarray]:
    """(least, greatest) points on a sheet at the start of each state's turn (positions of
    ``where``), over every way of reaching it from the start sheet (the last layer): a
    forward pass over the layers."""
    least = np.full(len(where.order), _NO_LIMIT)
    greatest = np.full(len(where.order), -_NO_LIMIT)
    least[where(layers[-1])] = greatest[where(layers[-1])] = start_points
    for states in reversed(layers[1:]):
        for lo in range(0, len(states), 4 * CHUNK_STATES):
            chunk = states[lo:lo + 4 * CHUNK_STATES]
            at = where(chunk)
            for m, attainable in _distinct(_turn_moves(game, *np.divmod(chunk, game.n_extra)), ends):
                ok = m.legal if attainable is None else m.legal & attainable[:, None]
                src = np.broadcast_to(at[m.rows][None, :], ok.shape)[ok]
                nxt, pts = where(m.next_state[ok]), m.points[ok]
                np.minimum.at(least, nxt, least[src] + pts)
                np.maximum.at(greatest, nxt, greatest[src] + pts)
    return least, greatest


def _fewest_points(game: CategoryRules) -> int:
    """A lower bound on the points of any sheet: every box at its lowest."""
    return int(np.minimum(game.base_points.min(axis=(1, 2)), 0).sum())


def _columns(lo: np.ndarray, count: np.ndarray):
    """(state of each column, need of each column): needs lo..lo+count-1 of each state."""
    state = np.repeat(np.arange(len(lo)), count)
    start = np.cumsum(count) - count
    return state, lo[state] + np.arange(len(state)) - start[state]


def _batches(count: np.ndarray, masks: np.ndarray):
    """Ranges of consecutive states with the same filled boxes and about BATCH_COLUMNS
    columns in all (at least one state each; states without columns are skipped)."""
    ends = np.cumsum(count)
    cuts = np.flatnonzero(np.diff(masks)) + 1
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(masks)]):
        a = int(lo)
        while a < hi:
            base = ends[a - 1] if a else 0
            b = min(max(a + 1, int(np.searchsorted(ends, base + BATCH_COLUMNS, side="right"))), int(hi))
            if ends[b - 1] > base:
                yield a, b
            a = b


@dataclass(frozen=True)
class _Setting:
    """What every chunk of one solve needs to know."""

    game: CategoryRules
    lo_target: int
    hi_target: int
    where: _Lookup  # position of each state in ``least`` and ``greatest``
    least: np.ndarray
    greatest: np.ndarray
    ends: np.ndarray | None
    dtype: np.dtype
    values: np.ndarray | None  # expected-score values: fix the choices to that policy


def _solve_chunk(setting: _Setting, states: np.ndarray, rows: _Rows):
    """The rows of one chunk of a layer: (fewest, most, lo, hi, the values of needs lo..hi)."""
    game = setting.game
    masks, extras = np.divmod(states, game.n_extra)
    moves = _turn_moves(game, masks, extras)
    fewest, most = _extremes(moves, rows, len(states), setting.ends)
    at = setting.where(states)
    lo = np.maximum(fewest + 1, setting.lo_target - setting.greatest[at])
    hi = np.minimum(most, setting.hi_target - setting.least[at])
    count = np.maximum(hi - lo + 1, 0)
    gathers = _gathers(moves, rows, len(states))
    out = np.empty(int(count.sum()), setting.dtype)
    if setting.values is not None:
        j, need = _columns(lo, count)
        out[:] = _policy_values(_policy(game, setting.values, masks, extras, gathers), rows.flat,
                                j, need)
        return fewest, most, lo, hi, out
    done, plan, plan_mask = 0, None, -1
    batches = list(_batches(count, masks))
    ws = _workspace(gathers, count, batches, rows.flat.dtype)
    for a, b in batches:
        j, need = _columns(lo[a:b], count[a:b])
        cols = _Cols.of(j + a, need)
        if masks[a] != plan_mask:
            plan, plan_mask = _max_plan(_open_lists(gathers, a)), masks[a]
        w = _write_values(plan, rows.flat, cols, ws)
        value = solve_turn(w, setting.ends, keep_values_wanted=False).value
        out[done:done + len(value)] = value
        done += len(value)
    return fewest, most, lo, hi, out


def _solve(game: CategoryRules, max_need: int | None, target: int | None, start: int | None,
           start_points: int, progress, dtype, workers, values: np.ndarray | None,
           kind: str) -> TargetValues:
    if not game.exact:
        raise DicewiseError(f"{game.name} with these options has no exact solver")
    start = game.initial_state if start is None else int(start)
    layers = _layers(game, start)
    ends = game.first_roll_end()
    if ends is not None and (_fewest_points(game) < 0 or np.nanmax(np.abs(ends)) != 0):
        # A game ended by a throw is worth W = [need ≤ 0]: the turn solver's end value 0 is
        # that only where no column has a need ≤ 0, i.e. where no write loses points.
        raise DicewiseError(f"{game.name}: a throw that ends the game needs boxes that never lose points")
    where = _Lookup.of(np.concatenate(layers))
    if target is not None:
        least, greatest = _points_written(game, layers, where, ends, start_points)
        lo_target = hi_target = int(target)
    else:
        least = np.full(len(where.order), start_points + _fewest_points(game))
        greatest = np.full(len(where.order), start_points, np.int64)
        lo_target, hi_target = -_NO_LIMIT, _NO_LIMIT if max_need is None else int(max_need)
    setting = _Setting(game, lo_target, hi_target, where, least, greatest, ends, np.dtype(dtype),
                       values)
    parts_out: list[tuple] = []
    total = 0
    rows = None
    map_fn = local_map(workers)
    for depth, states in enumerate(layers):
        if depth == 0:  # full sheets: W = 1 up to the end-of-game bonus
            most = np.rint(game.final_bonus(states % game.n_extra)).astype(np.int64)
            chunks = [(most, most, most + 1, most, np.zeros(0, setting.dtype))]
            if progress is not None:
                progress(len(states))
        else:
            pieces = [states[i:i + CHUNK_STATES] for i in range(0, len(states), CHUNK_STATES)]
            chunks = []
            for piece, chunk in zip(pieces, map_fn(lambda p: _solve_chunk(setting, p, rows), pieces)):
                chunks.append(chunk)
                if progress is not None:
                    progress(len(piece))
        fewest, most, lo, hi = (np.concatenate([c[i] for c in chunks]) for i in range(4))
        count = np.maximum(hi - lo + 1, 0)
        length = count + 2  # a row is [1, W(lo..hi), 0]
        offsets = np.cumsum(length) - length
        flat = np.zeros(int(length.sum()), setting.dtype)
        flat[offsets] = 1.0
        flat[np.repeat(offsets + 1 - (np.cumsum(count) - count), count) + np.arange(int(count.sum()))] = \
            np.concatenate([c[4] for c in chunks])
        rows = _Rows(flat, offsets, lo, length - 1, fewest, most, _Lookup.of(states))
        parts_out.append((states, fewest, most, lo, hi, offsets + total, flat))
        total += len(flat)
    if max_need is None and target is None:
        max_need = int(parts_out[-1][2][0]) + start_points
    states, fewest, most, lo, hi, offsets, flat = (np.concatenate([p[i] for p in parts_out])
                                                   for i in range(7))
    return TargetValues(game.name, game.options, states, fewest, most, lo, hi, offsets, flat,
                        int(max_need if target is None else target), target, start, start_points, kind)


def _need_range(max_need, target):
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
    ``progress(n)``: n more states solved; float32 ``dtype`` halves memory and time.
    ``workers``: processes per layer (``parallel.local_map``; default the cores)."""
    return _solve(game, *_need_range(max_need, target), start, start_points, progress, dtype,
                  workers, None, "optimal")


# -- the expected-score policy ------------------------------------------------------------


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


def policy_target_values(game: CategoryRules, solved: StateValues, max_need: int | None = None,
                         progress: Callable[[int], None] | None = None, *, target: int | None = None,
                         start: int | None = None, start_points: int = 0, dtype=np.float64,
                         workers: int | None = None) -> TargetValues:
    """The expected-score policy's P(writing ≥ need) (kind ``"expected-score"``): the same
    backward pass and arguments as ``solve_target``, with that policy's choices fixed."""
    return _solve(game, *_need_range(max_need, target), start, start_points, progress, dtype,
                  workers, solved.values, "expected-score")


def expected_policy_chances(game: CategoryRules, solved: StateValues,
                            max_target: int | None = None) -> np.ndarray:
    """The expected-score policy's P(final ≥ T) for T = 0..max_target (default: the most a
    game scores): from the exact distribution where it fits, else by the backward pass."""
    from .rulesets.strategy import distribution_fits, exact_distribution

    if distribution_fits(game):
        dist = exact_distribution(game, solved.values)
        top = int(dist.scores[-1]) if max_target is None else int(max_target)
        tail = np.cumsum(dist.probability[::-1])[::-1]
        where = np.searchsorted(dist.scores, np.arange(top + 1), side="left")
        return np.where(where < len(tail), tail[np.minimum(where, len(tail) - 1)], 0.0)
    return policy_target_values(game, solved, max_target).chances()


# -- reading the table ----------------------------------------------------------------------


def chance(game: CategoryRules, values: TargetValues, mask: int, extra: int, points_written: float,
           target: int) -> float:
    """P(final ≥ target) from the start of the next turn on a sheet (``mask``, ``extra``)
    holding ``points_written``: 1.0 once the target is reached for good (in poker-programs
    the obligatory figures can still lose points)."""
    need = int(np.ceil(target - points_written))
    _check_target(values, target)
    w = float(values.at(game.state_index(mask, extra), need))
    if np.isnan(w):
        raise DicewiseError(f"no value for a need of {need} from this sheet in this table")
    return w


def _check_target(values: TargetValues, target: int):
    if values.target is not None and target != values.target:
        raise DicewiseError(f"this table was solved for the target {values.target} only, not {target}")
    if values.target is None and values.max_need < target and values.max_need < values.most_points:
        raise DicewiseError(f"this table holds targets up to {values.max_need}, not {target}")


def advise_target(game: CategoryRules, values: TargetValues, sheet: Sheet, faces, roll: int,
                  target: int) -> Advice:
    """Rank every choice after roll ``roll`` with dice ``faces`` on ``sheet`` by P(final ≥
    target): the choices of ``advise_position``, with the same actions and labels, each
    choice's ``probability`` the chance of reaching the target (``expected`` left to the
    caller, which has the expected-score table)."""
    faces = check_position(game, sheet, faces, roll)
    start = chance(game, values, sheet.mask, sheet.extra, sheet.points, target)
    position = {"sheet": dict(sheet.scores + sheet.counters), "points": sheet.points,
                "roll": roll, "dice": list(faces), "target": target}
    headline = (f"{game.name}: roll {roll} of 3, dice {' '.join(map(str, faces))}; "
                f"{sheet.points} points written, P(final ≥ {target}) {start:.6f} at turn start")

    def advice(choices=(), ended=None):
        return Advice(game.name, game.options, position, choices, headline, ended=ended,
                      objective="target", turn_start_probability=start)

    r = dice.roll_index(dice.counts_of(faces))
    ends = game.first_roll_end()
    if roll == 1 and ends is not None and not np.isnan(ends[r]):
        return advice(ended="a first-roll five of a kind ends the game")
    need = int(np.ceil(target - sheet.points))
    chances, opts = write_chances(game, values, np.array([sheet.mask]), np.array([sheet.extra]),
                                  np.array([need]), np.array([r]), roll)
    writes = [(game.category_names[c], int(round(opts.score[0, c])), float(chances[0, c]), None)
              for c in np.flatnonzero(np.isfinite(chances[0]))]
    keeps = []
    if roll < 3:
        state = sheet.state(game)
        if settled(values, state, need):
            before = np.full(dice.N_KEEPS, start)
        else:
            before = target_plan(game, values, np.array([state]), np.array([need])).keep[roll - 1][:, 0]
        keeps = [(dice.faces_of(dice.KEEPS[k]), float(before[k]), None) for k in dice.sub_keeps(r)]
    return advice(ranked_choices(writes, keeps, 3 - roll, chances=True))


# -- decisions for the lockstep simulator ---------------------------------------------------


def settled(values: TargetValues, states, needs) -> np.ndarray:
    """Whether the target is settled at turn start: every play reaches it (need ≤ fewest) or
    none can (need > most), so every choice has the same chance."""
    rows = values.rows(states)
    needs = np.asarray(needs)
    return (needs <= values.fewest[rows]) | (needs > values.most[rows])


def target_plan(game: CategoryRules, values: TargetValues, states: np.ndarray,
                needs: np.ndarray) -> TurnPlan:
    """The solved turn of U (state, need) pairs (needs ≥ 1): the best write's W after each
    roll number (252, U) and every keep's W before rolls 2 and 3 (462, U)."""
    states, needs = np.asarray(states, np.int64), np.asarray(needs, np.int64)
    u = len(states)
    write = [np.empty((dice.N_ROLLS, u)) for _ in range(3)]
    keep = [np.empty((dice.N_KEEPS, u)) for _ in range(2)]
    rows = _Rows.of(values)
    ends = game.first_roll_end()
    order = np.lexsort((needs, states))
    uniq, start = np.unique(states[order], return_index=True)
    for lo in range(0, len(uniq), CHUNK_STATES):
        chunk = uniq[lo:lo + CHUNK_STATES]
        masks, extras = np.divmod(chunk, game.n_extra)
        gathers = _gathers(_turn_moves(game, masks, extras), rows, len(chunk))
        first = start[lo]
        last = start[lo + len(chunk)] if lo + len(chunk) < len(uniq) else len(order)
        cols = order[first:last]
        j = np.searchsorted(chunk, states[cols])
        count = np.bincount(j, minlength=len(chunk))
        plan, plan_mask, done = None, -1, 0
        batches = list(_batches(count, masks))
        ws = _workspace(gathers, count, batches, values.flat.dtype)
        for a, b in batches:
            n = int(count[a:b].sum())
            sel = cols[done:done + n]
            done += n
            if masks[a] != plan_mask:
                plan, plan_mask = _max_plan(_open_lists(gathers, a)), masks[a]
            w = _write_values(plan, values.flat, _Cols.of(j[done - n:done], needs[sel]), ws)
            turn = solve_turn(tuple(x.astype(float) for x in w), ends)
            for target_arr, source in zip(write, w):
                target_arr[:, sel] = source
            for target_arr, source in zip(keep, turn.before_roll):
                target_arr[:, sel] = source
    return TurnPlan(tuple(write), tuple(keep))


def write_chances(game: CategoryRules, values: TargetValues, masks, extras, needs, rolls,
                  roll_number) -> tuple[np.ndarray, WriteOptions]:
    """For G positions (mask, extra, need, roll, roll number): W of writing each box (G,
    n_cat; -inf where not allowed), and the write options (points, scores, next states)."""
    nothing = np.broadcast_to(0.0, (game.n_states,))  # write_options adds no future value
    opts = write_options(game, nothing, np.asarray(masks), np.asarray(extras),
                         np.asarray(rolls), roll_number)
    allowed = np.isfinite(opts.value)
    left = np.asarray(needs)[:, None] - np.rint(opts.points).astype(np.int64)
    w = np.full(left.shape, -np.inf)
    w[allowed] = values.at(opts.next_state[allowed], left[allowed])
    return np.where(allowed, w, -np.inf), opts


def simulate_target(game: CategoryRules, values: TargetValues, target: int, games: int, seed: int,
                    progress: Callable[[int], None] | None = None,
                    expected: np.ndarray | None = None) -> GameRecords:
    """Play ``games`` games aiming at P(final ≥ target), in lockstep, on the dice stream that
    ``simulate_games`` uses with the same seed.  Where the target is settled (reached, or out
    of reach: every choice then has the same chance) the games follow the expected-score
    policy of ``expected`` values if given, else write at once in the first open box."""
    _check_target(values, target)
    if values.initial_state != game.initial_state or values.start_points:
        raise DicewiseError("simulation starts from the empty sheet: solve from it")
    return play_lockstep(game, ForTarget(game, values, target, expected), games, seed, progress)


class ForTarget:
    """The lockstep simulator's decisions when playing for P(final ≥ target)."""

    def __init__(self, game: CategoryRules, values: TargetValues, target: int,
                 expected: np.ndarray | None):
        self.game, self.values, self.target, self.expected = game, values, target, expected

    def plan(self, states, points):
        game = self.game
        self.need = need = np.ceil(self.target - points).astype(np.int64)
        self.aim = aim = ~settled(self.values, states, need)
        # A plan column per distinct (state, need) of the games still aiming.
        self.cols, self.turn = np.full(len(states), -1), None
        if aim.any():
            pairs, inv = np.unique(np.stack([states[aim], need[aim]], axis=1), axis=0,
                                   return_inverse=True)
            self.turn = target_plan(game, self.values, pairs[:, 0], pairs[:, 1])
            self.cols[aim] = inv.reshape(-1)
        self.calm_cols, self.calm_turn = np.full(len(states), -1), None
        if self.expected is not None and (~aim).any():
            calm_states, inv = np.unique(states[~aim], return_inverse=True)
            self.calm_turn = plan_turns(game, self.expected, *np.divmod(calm_states, game.n_extra))
            self.calm_cols[~aim] = inv.reshape(-1)

    def keep(self, todo, masks, extras, rolls, roll_number):
        keep = np.full(len(todo), -1)
        a = self.aim[todo]
        if a.any():
            keep[a] = planned_keeps(self.turn, self.cols[todo[a]], rolls[a], roll_number)
        if self.calm_turn is not None and (~a).any():
            keep[~a] = planned_keeps(self.calm_turn, self.calm_cols[todo[~a]], rolls[~a],
                                     roll_number)
        return keep

    def write(self, todo, masks, extras, rolls, roll_number):
        chances, opts = write_chances(self.game, self.values, masks, extras, self.need[todo],
                                      rolls, roll_number)
        write = chances.argmax(axis=1)
        calm = ~self.aim[todo]
        if calm.any():
            if self.expected is not None:
                by_score = write_options(self.game, self.expected, masks[calm], extras[calm],
                                         rolls[calm], roll_number)
                write[calm] = by_score.value.argmax(axis=1)
            else:
                write[calm] = np.isfinite(chances[calm]).argmax(axis=1)
        return write, opts
