"""The solved table of play for a target: W(state, need), a row of needs per state.

``TargetValues`` holds, for the reachable turn-start states, the largest probability of
writing at least ``need`` more points (or a fixed policy's), and reads it at any (state,
need); ``RowLookup`` finds a state's row.  The driver (``driver.py``) fills it; the table
store moves it to and from a file (``table.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ...errors import DicewiseError


@dataclass(frozen=True)
class TargetValues:
    """P(writing ≥ need more points) for the reachable turn-start states, a row per state.

    Row i belongs to ``states[i]`` and holds the needs ``lo[i]..hi[i]`` at
    ``flat[offsets[i] + 1 + need - lo[i]]``, after a 1 (needs up to ``fewest[i]``, the
    fewest points the state can still write) and before a 0 (needs above ``most[i]``, the
    most).  Without ``target`` every need T − points of a sheet with T ≤ ``max_need`` is
    held; with ``target`` only those of that one target.  ``kind`` says whose probability
    it is: ``"optimal"`` (W, the largest) or ``"expected-score"`` (that policy's); a table
    solved with that policy beside (``expected_score_policy``) holds its values in
    ``policy_flat``, in the same layout.
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
    policy_flat: np.ndarray | None = None

    def expected_score_policy(self) -> TargetValues:
        """The expected-score policy's probabilities solved with this table."""
        if self.policy_flat is None:
            raise DicewiseError("this table was solved without the expected-score policy's chances")
        return replace(self, flat=self.policy_flat, policy_flat=None, kind="expected-score")

    @cached_property
    def row_lookup(self) -> RowLookup:
        """Row of each held state (a binary search; see ``RowLookup``)."""
        return RowLookup.of(self.states)

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
        rows = self.row_lookup(np.asarray(states, np.int64))
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

    def require_target(self, target: int) -> None:
        """A DicewiseError unless this table holds the needs of ``target``."""
        if self.target is not None and target != self.target:
            raise DicewiseError(f"this table was solved for the target {self.target} only, not {target}")
        if self.target is None and self.max_need < target and self.max_need < self.most_points:
            raise DicewiseError(f"this table holds targets up to {self.max_need}, not {target}")


@dataclass(frozen=True)
class RowLookup:
    """Row of a state index by binary search (a dense index would cost 8 bytes a state of
    the whole game: 240 MB for one-column poker-school with its standing premiums)."""

    sorted_states: np.ndarray
    order: np.ndarray

    @staticmethod
    def of(states: np.ndarray) -> RowLookup:
        order = np.argsort(states, kind="stable")
        return RowLookup(states[order], order)

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """Rows of ``states`` (-1 where not held)."""
        at = np.minimum(np.searchsorted(self.sorted_states, states), len(self.order) - 1)
        return np.where(self.sorted_states[at] == states, self.order[at], -1)

