"""The generic category game: a declared ruleset plus one backward induction over its states.

A state at the start of a turn is the set of filled categories (a bitmask) and a small
ruleset-specific extra counter (an upper-section sum, a bonus flag...), packed as
``mask * n_extra + extra``.  States with the same number of filled categories depend only
on states with one more, so each such layer is solved in batches by the turn solver.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, ClassVar, Sequence

import numpy as np

from . import dice
from .best_write import Partition, best_write, max_plan, partition, scratch_for
from .options import options_of, validate_options
from .parallel import local_map
from .turn import solve_turn

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
class CategoryGame:
    """Base of the five-dice category rulesets; subclasses declare, this class computes.

    Implementers give ``name``, ``title``, ``categories`` and option fields, and override
    ``write``, ``final_bonus``, ``reachable_extras`` and the sheet hooks only where the game
    has extra state.  The engine (``solve_states``) needs nothing else.
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
        """(252,) future value where a first roll ends the game at once, NaN elsewhere."""
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


def write_values(game: CategoryGame, values: np.ndarray, masks: np.ndarray, extras: np.ndarray,
                 roll_number: int) -> np.ndarray:
    """Best points-plus-future over the open categories, for every roll: (252, B).

    ``values`` holds the solved value of every state with more categories filled.  Each
    open box gives a table of its roll classes' values (points plus the value of the state
    they lead to) and ``best_write`` takes the max over boxes, merging classes.
    """
    parts, tables = [], []
    for c in range(game.n_categories):
        table = _class_values(game, values, masks, extras, c, roll_number)
        if table is not None:
            parts.append(table[0])
            tables.append(table[1])
    out = np.empty((dice.N_ROLLS, len(masks)), dtype=np.float64)
    if not tables:
        out.fill(-np.inf)
        return out
    key = tuple(id(p) for p in parts)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = max_plan(parts)
    return best_write(plan, parts, tables, out, scratch_for(len(masks)))


#: Merge plans by the partitions of the boxes (partitions are interned, so ids are keys).
_PLANS: dict = {}
_PARTITIONS: dict = {}
_IDENTITY = Partition(np.arange(dice.N_ROLLS), dice.N_ROLLS)
_IDENTITY_FIRST = np.arange(dice.N_ROLLS)
def _interned_partition(*keys) -> tuple[np.ndarray, Partition]:
    """The partition of the rolls by these keys, one object per distinct partition."""
    key = b"".join(np.ascontiguousarray(k).tobytes() + b"|" for k in keys)
    got = _PARTITIONS.get(key)
    if got is None:
        got = _PARTITIONS[key] = partition(*keys)
    return got


def _per_roll(a) -> np.ndarray | None:
    """A Write array broadcastable to (252, B) as one (252,) column, or None where it
    depends on the state."""
    a = np.asarray(a)
    if a.ndim == 2 and a.shape[1] != 1:
        return None
    return np.broadcast_to(a.reshape(-1) if a.ndim == 2 else a, (dice.N_ROLLS,))


def _class_values(game: CategoryGame, values, masks, extras, c: int, roll_number: int):
    """(partition, (Q, B) class values) of writing box ``c`` in a batch: −inf in the
    columns where it is filled or not allowed; None when it is filled in every column."""
    rows = np.flatnonzero((masks >> c) & 1 == 0)
    if len(rows) == 0:
        return None
    b = len(masks)
    every = len(rows) == b
    m, e = (masks, extras) if every else (masks[rows], extras[rows])
    w = game.write(c, roll_number, m, e)
    future = values[(m | (1 << c))[None, :] * game.n_extra + w.next_extra]  # (classes, b)
    points = _per_roll(w.points)
    legal = None if w.legal is None else np.asarray(w.legal)
    roll_legal = legal is not None and legal.ndim == 2 and legal.shape[0] == dice.N_ROLLS
    column_legal = legal is not None and not roll_legal
    if roll_legal and legal.shape[1] != 1:
        points = None  # legality that depends on roll and state: every roll its own class
    if points is not None:
        special = np.zeros(dice.N_ROLLS)
        if w.special is not None:
            special[w.special[0]] = np.arange(1, len(w.special[0]) + 1)
        keys = [points, w.roll_class, special]
        if roll_legal:
            keys.append(legal.reshape(-1))
        first, part = _interned_partition(*keys)
        table = points[first][:, None] + future[w.roll_class[first]]
        if roll_legal:
            table[~legal.reshape(-1)[first]] = -np.inf
    else:
        first, part = _IDENTITY_FIRST, _IDENTITY
        table = future[w.roll_class] + np.broadcast_to(w.points, (dice.N_ROLLS, len(m)))
        if legal is not None:
            table[~np.broadcast_to(legal, table.shape)] = -np.inf
    if w.special is not None:
        srolls, spoints, _, slegal = w.special
        at = part.inv[srolls]
        patch = future[w.roll_class[srolls]] + spoints
        if slegal is not None:
            patch[~np.broadcast_to(slegal, patch.shape)] = -np.inf
        table[at] = patch
    if column_legal:
        table[:, ~np.broadcast_to(legal.reshape(-1), (len(m),))] = -np.inf
    if not every:
        full = np.full((part.n, b), -np.inf)
        full[:, rows] = table
        table = full
    return part, table


def turn_write_values(game: CategoryGame, values, masks, extras):
    """The best write after roll 1, 2 and 3 (one shared array when the roll number is moot)."""
    if not game.roll_number_matters:
        w = write_values(game, values, masks, extras, 1)
        return (w, w, w)
    return tuple(write_values(game, values, masks, extras, k) for k in ROLL_NUMBERS)


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


def reachable_states(game: CategoryGame) -> np.ndarray:
    """(n_states,) bool: the states the ruleset declares reachable."""
    masks = np.arange(1 << game.n_categories)
    return game.reachable_extras(masks).reshape(-1)


def solve_states(game: CategoryGame, progress: Callable[[int], None] | None = None,
                 batch: int = 512, workers: int | None = None) -> StateValues:
    """Backward induction over every reachable state of a category game.

    The states of one layer are independent: they are cut into pieces of whole batches
    and mapped over ``workers`` forked processes (``parallel.local_map``; default one per
    core), which read the solved layers copy-on-write.  ``progress(n)`` is called as
    pieces of n states are solved.
    """
    n = game.n_categories
    reachable = reachable_states(game)
    values = np.full(game.n_states, np.nan)
    full = (1 << n) - 1
    extras = np.arange(game.n_extra)
    last = slice(full * game.n_extra, (full + 1) * game.n_extra)
    values[last] = np.where(reachable[last], game.final_bonus(extras), np.nan)
    first_end = game.first_roll_end()
    popcount = np.array([bin(m).count("1") for m in range(1 << n)])
    workers = workers or os.cpu_count() or 1
    map_fn = local_map(workers)

    def solve_piece(piece):
        out = np.empty(len(piece))
        for lo in range(0, len(piece), batch):
            masks, ex = np.divmod(piece[lo:lo + batch], game.n_extra)
            out[lo:lo + batch] = solve_turn(turn_write_values(game, values, masks, ex), first_end,
                                            False).value
        return out

    for filled in range(n - 1, -1, -1):
        layer_masks = np.flatnonzero(popcount == filled)
        idx = (layer_masks[:, None] * game.n_extra + extras[None, :]).reshape(-1)
        idx = idx[reachable[idx]]
        # A few pieces per worker: even loads, and few results to send back.
        size = batch * max(1, -(-len(idx) // (batch * 4 * workers)))
        pieces = [idx[lo:lo + size] for lo in range(0, len(idx), size)]
        if len(pieces) == 1:
            results = map(solve_piece, pieces)
        else:
            results = map_fn(solve_piece, pieces)
        for piece, value in zip(pieces, results):
            values[piece] = value
            if progress is not None:
                progress(len(piece))
    if np.isnan(values[reachable]).any():
        raise RuntimeError(f"{game.name}: a reachable state led to one declared unreachable")
    return StateValues(values, reachable, game.initial_state)


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
