"""The turn kernel of play for a target: the best write and the turn for (state, need) columns.

A write of s points moves the need to need − s, so the need is one more batch axis of the
turn solver: its columns are (state, need) pairs, the value of writing box c with roll r
is W(next state, need − points), and ``turn.solve_turn`` maximises a probability exactly
as it maximises an expectation (keep values are linear in the write values).

Each box's writes are grouped into roll classes (rolls that write the same points, to the
same state, as legally, in every state of a batch: ``Moves``), so the ruleset is asked
once per class (``Write.at``); a ``Gather`` says where each class reads its value per need
in the solved rows, the open boxes' gathers are stacked (``RunReads``) so that a batch reads
them all in a few calls, and the max over boxes merges class tables (``best_write``) before
spreading them over the 252 rolls.  Scratch arrays are reused batch after batch
(``Workspace``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import compiled, dice
from ..best_write import Partition, Scratch, best_write, max_plan
from ..category import ROLL_NUMBERS, CategoryRules
from ..turn import turn_start_value
from .values import RowLookup, TargetValues

#: Turn-start states whose writes are classed together (one call of the ruleset per box).
CHUNK_STATES = 1024
#: (state, need) columns per call of the turn solver: (252, 512) float32 stays in cache.
BATCH_COLUMNS = 512
#: ``RunReads.read``'s "no write is illegal" for the compiled reads.
_NOWHERE = np.zeros((0, 0), bool)
#: Beyond any number of points a sheet holds.
NO_LIMIT = np.iinfo(np.int64).max // 4


# -- the writes of a batch of states, by roll class ---------------------------------------


@dataclass(frozen=True)
class Moves:
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

    def same(self, other: Moves) -> bool:
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


def _batch_moves(game: CategoryRules, masks, extras, roll_number: int) -> list[Moves]:
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
        out.append(Moves(c, rows, inv, np.rint(points).astype(np.int64), legal, next_state))
    return out


def turn_moves(game: CategoryRules, masks, extras) -> tuple[list[Moves], ...]:
    """The moves after roll 1, 2 and 3.  A box that writes alike after two roll numbers is
    one object in both lists, and equal lists are one object."""
    if not game.roll_number_matters:
        moves = _batch_moves(game, masks, extras, 1)
        return moves, moves, moves
    lists: list[list[Moves]] = []
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


def _first_roll_classes(m: Moves, ends) -> np.ndarray:
    """(Q,) bool: classes holding a roll that does not end the game on the first roll."""
    if ends is None:
        return np.ones(m.n_classes, bool)
    return np.bincount(m.inv, weights=np.isnan(ends), minlength=m.n_classes) > 0


def distinct_moves(moves: tuple[list[Moves], ...], ends):
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
class SolvedRows:
    """Solved rows: the layer after the one being solved, or a whole table."""

    flats: tuple  # the values of each kind solved together, in one layout
    offsets: np.ndarray
    lo: np.ndarray
    last: np.ndarray  # index of the trailing 0 within each row
    fewest: np.ndarray
    most: np.ndarray
    row_of: RowLookup  # row of state indices

    @property
    def flat(self) -> np.ndarray:
        """The first kind's values (the best play's, where it is solved)."""
        return self.flats[0]

    @staticmethod
    def of(values: TargetValues) -> SolvedRows:
        return SolvedRows((values.flat,), values.offsets, values.lo,
                          np.maximum(values.hi - values.lo + 2, 1), values.fewest, values.most,
                          values.row_lookup)


@dataclass(frozen=True)
class Columns:
    """The columns of one batch: the chunk state and the need of each, runs of one state."""

    j: np.ndarray
    need: np.ndarray
    spans: tuple  # (state, first column, end column) of each run

    @staticmethod
    def of(j: np.ndarray, need: np.ndarray) -> Columns:
        cut = np.flatnonzero(np.diff(j)) + 1
        starts, ends = np.r_[0, cut], np.r_[cut, len(j)]
        return Columns(j, need, tuple(zip(j[starts].tolist(), starts.tolist(), ends.tolist())))

    @staticmethod
    def of_needs(a: int, lo: np.ndarray, count: np.ndarray) -> Columns:
        """The columns of states a, a + 1, ...: needs ``lo .. lo + count − 1`` of each."""
        start = np.cumsum(count) - count
        need = np.repeat(lo - start, count)
        need += np.arange(len(need))
        spans = tuple((a + i, s, s + c) for i, (s, c) in enumerate(zip(start.tolist(), count.tolist()))
                      if c)
        return Columns(np.repeat(np.arange(a, a + len(count)), count), need, spans)

    def spread(self, table: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``out[:, col] = table[:, j[col]]``: a broadcast copy per run where runs are few."""
        if len(self.spans) <= 8:
            for state, c0, c1 in self.spans:
                out[:, c0:c1] = table[:, state:state + 1]
        else:
            np.take(table, self.j, axis=1, out=out, mode="clip")
        return out


class Workspace:
    """Scratch arrays for the batches of one chunk: fresh arrays of this size cost page
    faults that dwarf the arithmetic, so every batch writes into these."""

    def __init__(self, dtype, columns: int, classes: int):
        self.idx = np.empty(classes * columns, np.int64)
        self.tmp = np.empty(classes * columns, np.int64)
        self.mask = np.empty(classes * columns, bool)
        self.tables = np.empty(classes * columns, dtype)  # every open box's class values
        self.out = [np.empty(dice.N_ROLLS * columns, dtype) for _ in range(3)]
        self.scratch = Scratch(columns, dtype)

    @staticmethod
    def view(buffer: np.ndarray, rows: int, cols: int) -> np.ndarray:
        return buffer[:rows * cols].reshape(rows, cols)


@dataclass(frozen=True)
class Gather:
    """Where one box's classes read W(next state, need − points): at
    ``flat[base + clip(need − shift, 0, cap)]``; arrays (Q, chunk states), -inf where the box
    is filled or the write not allowed (``illegal``)."""

    moves: Moves
    base: np.ndarray
    shift: np.ndarray
    cap: np.ndarray
    illegal: np.ndarray | None  # None: allowed wherever the box is open


class RunReads:
    """The gathers of a run of states with the same open boxes, stacked (gather g's classes
    in rows ``rows[id(g)]``), so that a batch reads every class of every box in a few calls
    instead of a few per box."""

    def __init__(self, gathers: list[Gather]):
        self.gathers = gathers
        ends = np.cumsum([g.moves.n_classes for g in gathers]).tolist()
        self.rows = {id(g): (e - g.moves.n_classes, e) for g, e in zip(gathers, ends)}
        self.n_classes = ends[-1] if ends else 0
        self.shift, self.cap, self.base = (np.concatenate([getattr(g, name) for g in gathers])
                                           for name in ("shift", "cap", "base"))
        self.illegal = None
        if any(g.illegal is not None for g in gathers):
            self.illegal = np.concatenate([np.zeros(g.shift.shape, bool) if g.illegal is None
                                           else g.illegal for g in gathers])

    def index(self, cols: Columns, ws: Workspace) -> np.ndarray:
        """(classes, C): where each class reads for the batch's columns (in ``ws.idx``)."""
        q, c = self.n_classes, len(cols.need)
        idx, tmp = ws.view(ws.idx, q, c), ws.view(ws.tmp, q, c)
        np.subtract(cols.need, cols.spread(self.shift, tmp), out=idx)
        np.maximum(idx, 0, out=idx)
        np.minimum(idx, cols.spread(self.cap, tmp), out=idx)
        idx += cols.spread(self.base, tmp)
        return idx

    def read(self, flat: np.ndarray, cols: Columns, ws: Workspace) -> tuple[np.ndarray, np.ndarray]:
        """(``index``, ``values``) in one compiled pass where numba is installed."""
        compiled_read = compiled.class_reads(len(cols.need))
        if compiled_read is None:
            idx = self.index(cols, ws)
            return idx, self.values(flat, idx, cols, ws)
        q, c = self.n_classes, len(cols.need)
        idx, value = ws.view(ws.idx, q, c), ws.view(ws.tables, q, c)
        illegal = _NOWHERE if self.illegal is None else self.illegal
        compiled_read(flat, cols.need, cols.j, self.shift, self.cap, self.base, illegal, idx, value)
        return idx, value

    def values(self, flat: np.ndarray, idx: np.ndarray, cols: Columns, ws: Workspace) -> np.ndarray:
        """(classes, C): the value of each class at ``idx`` (its ``index``), -inf where the
        write is not allowed (in ``ws.tables``)."""
        value = ws.view(ws.tables, *idx.shape)
        np.take(flat, idx, out=value, mode="clip")
        if self.illegal is not None:
            value[cols.spread(self.illegal, ws.view(ws.mask, *idx.shape))] = -np.inf
        return value


def workspace_for(gathers, count: np.ndarray, batches, dtype) -> Workspace:
    """Scratch space for the largest batch (every class of the chunk's gathers at most)."""
    columns = max((int(count[a:b].sum()) for a, b in batches), default=1)
    classes = max(sum(g.moves.n_classes for g in {id(g): g for gk in gathers for g in gk}.values()), 1)
    return Workspace(dtype, columns, classes)


def gathers_of(moves: tuple[list[Moves], ...], rows: SolvedRows, b: int) -> tuple[list[Gather], ...]:
    """The gathers of a chunk of b states, one per distinct moves object."""
    made: dict[int, Gather] = {}
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
            made[id(m)] = Gather(m, *tables, illegal)
        out.append([made[id(m)] for m in mk])
    return tuple(out)


def write_extremes(moves, rows: SolvedRows, b: int, ends) -> tuple[np.ndarray, np.ndarray]:
    """(fewest, most) points each of b states can still write: over every write of an
    attainable roll class, its points plus the fewest (most) of the state it leads to."""
    low, high = np.full(b, NO_LIMIT), np.full(b, -NO_LIMIT)
    for m, attainable in distinct_moves(moves, ends):
        r = rows.row_of(m.next_state)
        ok = m.legal if attainable is None else m.legal & attainable[:, None]
        low[m.rows] = np.minimum(low[m.rows], np.where(ok, m.points + rows.fewest[r], NO_LIMIT).min(axis=0))
        high[m.rows] = np.maximum(high[m.rows], np.where(ok, m.points + rows.most[r], -NO_LIMIT).max(axis=0))
    return low, high


# -- the max over boxes, merged by classes ------------------------------------------------


#: Merge plans by the partitions of the boxes' rolls (the same in most chunks).
_PLANS: dict = {}


@dataclass(frozen=True)
class RunPlan:
    """How a run of states with the same open boxes finds its best writes: its stacked
    reads, and per roll number the rows of each open box's classes with their
    ``best_write`` plan (None: as the roll number before)."""

    reads: RunReads
    steps: tuple


def box_plans(lists: list[list[Gather]]) -> RunPlan:
    """The ``RunPlan`` of the open boxes' gathers by roll number (``open_gathers``)."""
    reads = RunReads(list({id(g): g for gk in lists for g in gk}.values()))
    steps = []
    for k, gk in enumerate(lists):
        if k and len(gk) == len(lists[k - 1]) and all(x is y for x, y in zip(gk, lists[k - 1])):
            steps.append(None)
            continue
        parts = [Partition(g.moves.inv, g.moves.n_classes) for g in gk]
        key = tuple(p.inv.tobytes() for p in parts)
        plan = _PLANS.get(key)
        if plan is None:
            if len(_PLANS) > 4096:
                _PLANS.clear()
            plan = _PLANS[key] = max_plan(parts, greedy=False)
        steps.append(([reads.rows[id(g)] for g in gk], parts, plan))
    return RunPlan(reads, tuple(steps))


def best_write_values(plan: RunPlan, flat: np.ndarray, cols: Columns, ws: Workspace,
                      also: Callable[[RunReads, np.ndarray], None] | None = None):
    """The best write value after roll 1, 2, 3 for the columns of states with the same open
    boxes: three (252, C) arrays of the max over boxes of W(next, need − points).
    ``also(reads, idx)`` is told where every class reads, to read another table there."""
    c = len(cols.need)
    idx, value = plan.reads.read(flat, cols, ws)
    if also is not None:
        also(plan.reads, idx)
    out: list[np.ndarray] = []
    for k, step in enumerate(plan.steps):
        if step is None:
            out.append(out[-1])
            continue
        rows, parts, plan_k = step
        out.append(best_write(plan_k, parts, [value[a:b] for a, b in rows],
                              ws.view(ws.out[k], dice.N_ROLLS, c), ws.scratch))
    return tuple(out)


def open_gathers(gathers: tuple[list[Gather], ...], i: int) -> list[list[Gather]]:
    """The gathers of the boxes open in state i of the chunk, by roll number."""
    out = []
    for gk in gathers:
        out.append([g for g in gk if _holds(g.moves.rows, i)])
    return out


def _holds(rows: np.ndarray, i: int) -> bool:
    k = int(np.searchsorted(rows, i))
    return k < len(rows) and rows[k] == i



# -- the columns of a chunk, and their best turn --------------------------------------------


def state_batches(count: np.ndarray, masks: np.ndarray):
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
class Chunk:
    """One chunk of a layer to value: its states' writes read from the solved rows, and the
    needs ``lo .. lo + count − 1`` of each state (its columns, state after state)."""

    game: CategoryRules
    masks: np.ndarray
    extras: np.ndarray
    gathers: tuple  # per roll number, the gathers of the chunk's open boxes (``gathers_of``)
    rows: SolvedRows
    lo: np.ndarray
    count: np.ndarray
    ends: np.ndarray | None  # the game's ``first_roll_end()``


def chunk_batches(chunk: Chunk):
    """(first state, end state, columns, ``RunPlan``) of each batch of ``chunk``, in column
    order; the plan is made again where the filled boxes change."""
    plan, plan_mask = None, -1
    for a, b in state_batches(chunk.count, chunk.masks):
        if chunk.masks[a] != plan_mask:
            plan, plan_mask = box_plans(open_gathers(chunk.gathers, a)), chunk.masks[a]
        yield a, b, Columns.of_needs(a, chunk.lo[a:b], chunk.count[a:b]), plan


def chunk_workspace(chunk: Chunk) -> Workspace:
    """Scratch space for every batch of ``chunk``."""
    return workspace_for(chunk.gathers, chunk.count, list(state_batches(chunk.count, chunk.masks)),
                         chunk.rows.flat.dtype)


def best_turn_values(chunk: Chunk, out: np.ndarray, companion=None) -> None:
    """W of every column of ``chunk`` (each turn played for the largest chance), into
    ``out[0]``.  ``companion(a, b, cols)``, if given, makes for each batch (states a..b) a
    reader that ``best_write_values`` tells where each gather reads, and whose ``values``
    then go into ``out[1]``: a second kind solved on the same reads."""
    done, ws = 0, chunk_workspace(chunk)
    for a, b, cols, plan in chunk_batches(chunk):
        reader = None if companion is None else companion(a, b, cols)
        w = best_write_values(plan, chunk.rows.flat, cols, ws, reader)
        value = turn_start_value(w, chunk.ends)
        out[0, done:done + len(value)] = value
        if reader is not None:
            out[1, done:done + len(value)] = reader.values()
        done += len(value)
