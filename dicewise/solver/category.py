"""The generic category game: a declared ruleset plus one backward induction over its states.

A state at the start of a turn is the set of filled categories (a bitmask) and a small
ruleset-specific extra counter (an upper-section sum, a bonus flag...), packed as
``mask * n_extra + extra``.  States with the same number of filled categories depend only
on states with one more, so each such layer is solved in batches by the turn solver.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, ClassVar, Sequence

import numpy as np

from ..errors import DicewiseError
from . import dice, runtime
from .best_write import MaxPlan, Partition, best_write, max_plan, partition, scratch_for
from .options import options_of, validate_options
from .turn import turn_value

ROLL_NUMBERS = (1, 2, 3)


@dataclass(frozen=True)
class Category:
    """A box of the score sheet: its name and points as a pure function of the dice."""

    name: str
    points: Callable[[np.ndarray, int], np.ndarray]  # (counts (N, 6), roll number) -> (N,)


@dataclass(frozen=True)
class Write:
    """What writing one category does, for a batch of B states and all 252 rolls.

    ``points`` is broadcastable to (252, B); the next extra of state b after roll r is
    ``next_extra[roll_class[r], b]``, so extras that do not depend on the roll cost one
    lookup; ``legal`` (broadcastable to (252, B), or None) marks placements the rules allow;
    ``bonus`` (or None) is the part of ``points`` that is a bonus, not the box's score.
    Where only a few rolls depend on the state (Yahtzee's jokers), ``points`` stays one
    column and ``special`` gives those rolls' indices with their own (k, B) points, bonus
    and legality.
    """

    points: np.ndarray
    next_extra: np.ndarray
    roll_class: np.ndarray
    legal: np.ndarray | None = None
    bonus: np.ndarray | None = None
    special: tuple | None = None  # (rolls (k,), points (k, B), bonus (k, B), legal (k, B) or None)

    def at(self, rolls: np.ndarray, cols: np.ndarray, n: int):
        """(points, bonus, legal, next_extra) for positions (roll rolls[i], state cols[i]) of a
        batch of n states: the engine's view of one write, picked out position by position."""
        def pick(a, fill, dtype=float):
            if a is None:
                return np.full(len(rolls), fill, dtype)
            return np.broadcast_to(a, (dice.N_ROLLS, n))[rolls, cols].astype(dtype)

        points, bonus, legal = pick(self.points, 0), pick(self.bonus, 0), pick(self.legal, True, bool)
        if self.special is not None:
            where = np.full(dice.N_ROLLS, -1)
            where[self.special[0]] = np.arange(len(self.special[0]))
            hit = np.flatnonzero(where[rolls] >= 0)
            at, hc = where[rolls[hit]], cols[hit]
            k = len(self.special[0])
            sp_points, sp_bonus, sp_legal = self.special[1:]
            points[hit] = np.broadcast_to(sp_points, (k, n))[at, hc]
            if sp_bonus is not None:
                bonus[hit] = np.broadcast_to(sp_bonus, (k, n))[at, hc]
            if sp_legal is not None:
                legal[hit] &= np.broadcast_to(sp_legal, (k, n))[at, hc]
        nxt = np.broadcast_to(self.next_extra, (self.next_extra.shape[0], n))[self.roll_class[rolls], cols]
        return points, bonus, legal, nxt


_NO_CLASS = np.zeros(dice.N_ROLLS, dtype=np.int64)


@dataclass(frozen=True)
class CategoryRules:
    """Base of the five-dice category rulesets; subclasses declare, this class computes.

    Implementers give ``name``, ``title``, ``categories`` and option fields, and override
    ``write``, ``final_bonus``, ``reachable_extras`` and the sheet hooks only where the game
    has extra state.  The engine (``solve_states``) needs nothing else.  The commands also
    read, where a ruleset has them: ``example_sheet`` (the sheet ``dicewise rules`` shows;
    else one box's best score), ``final_bonus_kept`` (a bonus that cannot be lost once
    earned, shown at the table as soon as it is) and ``possible_scores``, whose default
    takes 0 as a scratch in every box: a box that any dice score in (a chance) overrides it,
    as the tests of every ruleset check.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    exact: ClassVar[bool] = True
    n_extra: ClassVar[int] = 1
    initial_extra: ClassVar[int] = 0
    #: Whether a category's points depend on which roll of the turn it is written after.
    roll_number_matters: ClassVar[bool] = False
    #: Names of sheet entries that are not categories (e.g. Yahtzee's bonus count).
    sheet_counters: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self):
        validate_options(self)

    # -- declarations -------------------------------------------------------------
    @property
    def categories(self) -> tuple[Category, ...]:
        raise NotImplementedError

    @cached_property
    def category_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.categories)

    @property
    def options(self) -> dict:
        return options_of(self)

    @cached_property
    def base_points(self) -> np.ndarray:
        """Points of every category for every roll, by roll number: (n_cat, 3, 252) ints."""
        table = np.array([[c.points(dice.ROLLS, k) for k in ROLL_NUMBERS] for c in self.categories])
        table.setflags(write=False)
        return table

    # -- hooks for games with extra state ------------------------------------------
    def write(self, c: int, roll_number: int, masks: np.ndarray, extras: np.ndarray) -> Write:
        """The effect of writing category ``c`` after roll ``roll_number`` in each state."""
        return Write(self.base_points[c, roll_number - 1][:, None], extras[None, :], _NO_CLASS)

    def final_bonus(self, extras: np.ndarray) -> np.ndarray:
        """Points added when the sheet is full, by extra."""
        return np.zeros(len(extras))

    def reachable_extras(self, masks: np.ndarray) -> np.ndarray:
        """(len(masks), n_extra) bool: which extras can occur with each filled set."""
        return np.ones((len(masks), self.n_extra), dtype=bool)

    def first_roll_end(self) -> np.ndarray | None:
        """(252,) the points a first roll adds where it ends the game at once, NaN elsewhere.
        The solver and the exact score distribution add them; the simulator, the agents'
        episodes and play keep the points written, so a registered game has 0 there."""
        return None

    def sheet_extra(self, scores: dict[int, int], counters: dict[str, int]) -> int:
        """The extra of a sheet given as {category index: score} and counter entries."""
        return 0

    def sheet_points(self, scores: dict[int, int], counters: dict[str, int]) -> int:
        """Points a sheet holds so far (bonuses already earned included)."""
        return sum(scores.values())

    def possible_scores(self, c: int) -> frozenset[int]:
        """Every score category ``c`` can hold (0, the scratch, included)."""
        return frozenset(int(p) for p in np.unique(self.base_points[c])) | {0}

    # -- state encoding -----------------------------------------------------------
    @property
    def n_categories(self) -> int:
        return len(self.categories)

    @property
    def n_states(self) -> int:
        return (1 << self.n_categories) * self.n_extra

    def state_index(self, mask: int, extra: int) -> int:
        return mask * self.n_extra + extra

    @property
    def initial_state(self) -> int:
        return self.initial_extra


def write_values(game: CategoryRules, values: np.ndarray, masks: np.ndarray, extras: np.ndarray,
                 roll_number: int) -> np.ndarray:
    """Best points-plus-future over the open categories, for every roll: (252, B).

    ``values`` holds the solved value of every state with more categories filled.  Work is
    done state-major, (B, 252), so that the states where a category is open are a cheap
    row subset.
    """
    best = np.full((len(masks), dice.N_ROLLS), -np.inf)
    for c in range(game.n_categories):
        rows = np.flatnonzero((masks >> c) & 1 == 0)
        if len(rows) == 0:
            continue
        every = len(rows) == len(masks)
        m, e = (masks, extras) if every else (masks[rows], extras[rows])
        w = game.write(c, roll_number, m, e)
        future = values[(m | (1 << c))[:, None] * game.n_extra + w.next_extra.T]
        if future.shape[1] > 1:
            future = future[:, w.roll_class]
        total = future + np.atleast_2d(w.points).T
        if w.legal is not None:
            total[~np.broadcast_to(np.atleast_2d(w.legal).T, total.shape)] = -np.inf
        if w.special is not None:
            rolls, points, _, legal = w.special
            patch = future[:, rolls] + points.T if future.shape[1] > 1 else future + points.T
            if legal is not None:
                patch[~legal.T] = -np.inf
            total[:, rolls] = patch
        if every:
            np.maximum(best, total, out=best)
        else:
            best[rows] = np.maximum(best[rows], total)
    return np.ascontiguousarray(best.T)


def turn_write_values(game: CategoryRules, values, masks, extras):
    """The best write after roll 1, 2 and 3 (one shared array when the roll number is moot)."""
    if not game.roll_number_matters:
        w = write_values(game, values, masks, extras, 1)
        return (w, w, w)
    return tuple(write_values(game, values, masks, extras, k) for k in ROLL_NUMBERS)


_EACH_ROLL = Partition(np.arange(dice.N_ROLLS), dice.N_ROLLS)


class WritePlans:
    """The roll classes of each box's writes and the plans that merge them, found once for
    a solve: they depend on the boxes' points and legality by roll, not on the states."""

    def __init__(self):
        self.classes: dict = {}
        self.plans: dict = {}

    def classes_of(self, points: np.ndarray, roll_class: np.ndarray, legal, special_rolls):
        """(first roll of each class, Partition): rolls of one class score the same points,
        reach the same next-extra class and are as legal; rolls with special points are
        classes of their own."""
        keys = [points, roll_class]
        if legal is not None:
            keys.append(legal)
        if special_rolls is not None:
            alone = np.zeros(dice.N_ROLLS)
            alone[special_rolls] = np.arange(1, len(special_rolls) + 1)
            keys.append(alone)
        key = b"|".join(np.ascontiguousarray(k).tobytes() for k in keys)
        found = self.classes.get(key)
        if found is None:
            found = self.classes[key] = partition(*keys)
        return found

    def plan(self, parts) -> MaxPlan:
        key = tuple(id(p) for p in parts)
        found = self.plans.get(key)
        if found is None:
            found = self.plans[key] = max_plan(parts, greedy=False)
        return found


def _per_roll(a):
    """A Write array broadcastable to (252, B) as a (252,) column when it does not vary by
    state, else None."""
    a = np.asarray(a)
    return a[:, 0] if a.ndim == 2 and a.shape == (dice.N_ROLLS, 1) else None


def _per_state(a, b: int):
    """A Write array broadcastable to (252, B) as a (B,) row when it does not vary by roll,
    else None."""
    a = np.asarray(a)
    if a.ndim <= 1 or a.shape[0] == 1:
        return np.broadcast_to(a.reshape(-1), (b,))
    return None


def box_table(game: CategoryRules, values: np.ndarray, masks: np.ndarray, extras: np.ndarray,
              c: int, roll_number: int, plans: WritePlans):
    """Box c's write values in a batch of states as (Partition of the rolls, (Q, B) value of
    each class): points plus the value of the state reached, −inf where the box is filled
    or the write is not allowed."""
    b = len(masks)
    w = game.write(c, roll_number, masks, extras)
    nxt = (masks | (1 << c))[None, :] * game.n_extra + np.asarray(w.next_extra)
    future = values[np.atleast_2d(nxt)]
    future = np.broadcast_to(future, (future.shape[0], b)) if future.shape[1] != b else future
    filled = (masks >> c) & 1 == 1
    if filled.any():
        future = np.array(future)
        future[:, filled] = -np.inf
    points = _per_roll(w.points)
    legal_roll = legal_state = None
    if w.legal is not None:
        legal_state = _per_state(w.legal, b)
        if legal_state is None:
            legal_roll = _per_roll(w.legal)
    special = w.special
    if points is None or (w.legal is not None and legal_state is None and legal_roll is None):
        # Points or legality that vary by roll and by state: every roll is its own class.
        table = future[w.roll_class] + np.asarray(w.points)
        if w.legal is not None:
            table[~np.broadcast_to(w.legal, table.shape)] = -np.inf
        if special is not None:
            rolls, sp_points, _, sp_legal = special
            patch = future[w.roll_class[rolls]] + sp_points
            if sp_legal is not None:
                patch[~sp_legal] = -np.inf
            table[rolls] = patch
        return _EACH_ROLL, table
    first, part = plans.classes_of(points, w.roll_class, legal_roll,
                                   None if special is None else special[0])
    table = future[w.roll_class[first]] + points[first, None]
    if legal_roll is not None:
        table[~legal_roll[first]] = -np.inf
    if legal_state is not None and not legal_state.all():
        table[:, ~legal_state] = -np.inf
    if special is not None:
        rolls, sp_points, _, sp_legal = special
        at = part.inv[rolls]
        patch = future[w.roll_class[rolls]] + sp_points
        if sp_legal is not None:
            patch[~sp_legal] = -np.inf
        table[at] = patch
    return part, table


def box_tables(game: CategoryRules, values: np.ndarray, masks: np.ndarray, extras: np.ndarray,
               roll_number: int, plans: WritePlans) -> list:
    """(box, Partition, (Q, B) class values) of every box open in some state of the batch."""
    open_any = int(np.bitwise_or.reduce(~masks)) if len(masks) else 0
    return [(c, *box_table(game, values, masks, extras, c, roll_number, plans))
            for c in range(game.n_categories) if (open_any >> c) & 1]


def best_of_tables(tables: list, masks: np.ndarray, lo: int, hi: int, plans: WritePlans,
                   out: np.ndarray) -> np.ndarray:
    """The best write (252, hi − lo) of the states lo:hi of the batch that ``tables`` (from
    ``box_tables``) describe, over the boxes open in one of them."""
    open_any = int(np.bitwise_or.reduce(~masks[lo:hi]))
    parts, values = [], []
    for c, part, table in tables:
        if (open_any >> c) & 1:
            parts.append(part)
            values.append(table[:, lo:hi])
    if not parts:
        out[...] = -np.inf
        return out
    return best_write(plans.plan(parts), parts, values, out, scratch_for(hi - lo))


def write_columns(game: CategoryRules, values: np.ndarray, masks: np.ndarray, extras: np.ndarray,
                  roll_number: int, plans: WritePlans, out: np.ndarray | None = None) -> np.ndarray:
    """``write_values`` computed by roll classes (252, B): each open box's small table of
    class values, merged over the boxes by a ``best_write`` plan.  Boxes filled in every
    state of the batch are skipped; a box filled in some is −inf there."""
    tables = box_tables(game, values, masks, extras, roll_number, plans)
    out = np.empty((dice.N_ROLLS, len(masks))) if out is None else out
    return best_of_tables(tables, masks, 0, len(masks), plans, out)


@dataclass(frozen=True)
class StateValues:
    """The solved value (expected future points) of every reachable turn-start state."""

    values: np.ndarray  # (n_states,) float64, NaN where unreachable
    reachable: np.ndarray  # (n_states,) bool
    initial_state: int = 0

    @property
    def expected_score(self) -> float:
        """The optimum: expected final score from the empty sheet."""
        return float(self.values[self.initial_state])

    @property
    def n_reachable(self) -> int:
        return int(self.reachable.sum())


def state_layers(game: CategoryRules, start: int | None = None) -> list[np.ndarray]:
    """The reachable states by number of filled boxes, the full sheets first: every one, or
    those with at least the boxes of ``start`` filled, ``start`` alone last (the layers of a
    solve from that sheet)."""
    n = game.n_categories
    masks = np.arange(1 << n)
    if start is not None:
        start_mask, start_extra = divmod(start, game.n_extra)
        if not (0 <= start < game.n_states
                and game.reachable_extras(np.array([start_mask]))[0, start_extra]):
            raise DicewiseError("the start sheet is not a state any game reaches")
        masks = masks[masks & start_mask == start_mask]
    rows, extras = np.nonzero(game.reachable_extras(masks))
    states = masks[rows] * game.n_extra + extras
    filled = np.array([bin(int(m)).count("1") for m in masks])[rows]
    if start is None:
        return [states[filled == f] for f in range(n, -1, -1)]
    first = bin(start_mask).count("1")
    return [states[filled == f] for f in range(n, first, -1)] + [np.array([start], np.int64)]


def reachable_states(game: CategoryRules) -> np.ndarray:
    """(n_states,) bool: the states the ruleset declares reachable."""
    masks = np.arange(1 << game.n_categories)
    return game.reachable_extras(masks).reshape(-1)


#: Reachable states from which ``solve_states`` uses every core by default (General's 1,024
#: and Poker-programs' states are solved in a fraction of the time a pool takes to start).
POOL_MIN_STATES = 50_000


def solve_states(game: CategoryRules, progress: Callable[[int], None] | None = None,
                 batch: int = 256, workers: int | None = None, block: int = 4096) -> StateValues:
    """Backward induction over every reachable state of a category game.

    A layer is cut into blocks of up to ``block`` states (the ruleset is asked once per box
    and block), each solved by batches of ``batch`` states.  The blocks of one layer are
    independent: they go to the workers of ``runtime.local(workers)`` (default: one per core,
    or this process alone under ``POOL_MIN_STATES`` states), forked once for the solve,
    which write into the values in shared memory.
    ``progress(n)`` is called as blocks of n states are solved.
    """
    reachable = reachable_states(game)
    if workers is None:  # a small game is solved before a pool would have started
        workers = (os.cpu_count() or 1) if reachable.sum() >= POOL_MIN_STATES else 1
    values = runtime.shared_array(game.n_states)  # the workers write their blocks here
    values[:] = np.nan
    full, *layers = state_layers(game)
    values[full] = game.final_bonus(full % game.n_extra)
    with runtime.local(workers) as where, where.pool(_block_solver(game, values, batch)) as run:
        for idx in layers:
            # Four blocks a worker where the layer allows, so that none waits long at its end.
            size = max(1, min(block, max(batch, -(-len(idx) // (4 * workers))), -(-len(idx) // workers)))
            for done in run([idx[lo:lo + size] for lo in range(0, len(idx), size)]):
                if progress is not None:
                    progress(done)
    values = np.array(values)  # out of the shared memory
    if np.isnan(values[reachable]).any():
        raise RuntimeError(f"{game.name}: a reachable state led to one declared unreachable")
    return StateValues(values, reachable, game.initial_state)


def _block_solver(game: CategoryRules, values: np.ndarray, batch: int):
    """``solve_block(states)``: solve a block of one layer's states into ``values`` (whose
    next layer is solved), returning how many.

    The ruleset is asked once per box for the whole block (small class tables); the best
    write and the turn go by batches of ``batch`` states, in buffers of this thread that
    stay in cache from batch to batch.
    """
    first_end = game.first_roll_end()
    plans = {k: WritePlans() for k in ROLL_NUMBERS}
    rolls = ROLL_NUMBERS if game.roll_number_matters else (1,)
    local = threading.local()

    def solve_block(states):
        masks, ex = np.divmod(states, game.n_extra)
        tables = {k: box_tables(game, values, masks, ex, k, plans[k]) for k in rolls}
        b = min(len(states), batch)
        if getattr(local, "columns", 0) < b:
            local.columns, local.work = b, np.empty(dice.N_KEEPS * b)
            local.out = [np.empty(dice.N_ROLLS * b) for _ in ROLL_NUMBERS]
        result = np.empty(len(states))
        for lo in range(0, len(states), batch):
            hi = min(lo + batch, len(states))
            outs = [o[:dice.N_ROLLS * (hi - lo)].reshape(dice.N_ROLLS, hi - lo) for o in local.out]
            w = [best_of_tables(tables[k], masks, lo, hi, plans[k], outs[k - 1]) for k in rolls]
            result[lo:hi] = turn_value(w * 3 if len(w) == 1 else w, first_end, local.work)
        values[states] = result
        return len(states)

    return solve_block


def upper_sum_reachable(contributions: Sequence[Sequence[int]], offset: int, size: int,
                        cap: int | None = None) -> np.ndarray:
    """(2^k, size) bool: which running totals (+ offset, capped) k boxes can produce.

    ``contributions[i]`` lists the points box i can add; bit i of the row index says
    whether box i is filled.
    """
    k = len(contributions)
    table = np.zeros((1 << k, size), dtype=bool)
    table[0, offset] = True
    for m in range(1, 1 << k):
        i = (m & -m).bit_length() - 1
        prev = np.flatnonzero(table[m & ~(1 << i)]) - offset
        sums = (prev[:, None] + np.asarray(contributions[i])[None, :]).reshape(-1)
        if cap is not None:
            sums = np.minimum(sums, cap)
        table[m, sums + offset] = True
    return table
