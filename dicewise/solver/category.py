"""The generic category game: a declared ruleset plus one backward induction over its states.

A state at the start of a turn is the set of filled categories (a bitmask) and a small
ruleset-specific extra counter (an upper-section sum, a bonus flag...), packed as
``mask * n_extra + extra``.  States with the same number of filled categories depend only
on states with one more, so each such layer is solved in batches by the turn solver.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, ClassVar, Sequence

import numpy as np

from . import dice
from .options import options_of, validate_options
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
class CategoryRules:
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


def reachable_states(game: CategoryRules) -> np.ndarray:
    """(n_states,) bool: the states the ruleset declares reachable."""
    masks = np.arange(1 << game.n_categories)
    return game.reachable_extras(masks).reshape(-1)


def solve_states(game: CategoryRules, progress: Callable[[int], None] | None = None,
                 batch: int = 512, workers: int | None = None) -> StateValues:
    """Backward induction over every reachable state of a category game.

    The batches of one layer are independent and numpy releases the GIL in its loops, so
    they are spread over ``workers`` threads (default: one per core).  ``progress(n)`` is
    called as batches of n states are solved.
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

    def solve_block(block):
        masks, ex = np.divmod(block, game.n_extra)
        return solve_turn(turn_write_values(game, values, masks, ex), first_end, False).value

    with ThreadPoolExecutor(workers or os.cpu_count() or 1) as pool:
        for filled in range(n - 1, -1, -1):
            layer_masks = np.flatnonzero(popcount == filled)
            idx = (layer_masks[:, None] * game.n_extra + extras[None, :]).reshape(-1)
            idx = idx[reachable[idx]]
            blocks = [idx[lo:lo + batch] for lo in range(0, len(idx), batch)]
            for block, value in zip(blocks, pool.map(solve_block, blocks)):
                values[block] = value
                if progress is not None:
                    progress(len(block))
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
