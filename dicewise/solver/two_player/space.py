"""The state space of two-player General: pairs of sheets, their score differences, layers.

A turn-start state is (mover's filled boxes, opponent's filled boxes, score difference
mover − opponent); who moves follows from the box counts (RULES.md §1: the first player
starts and turns alternate, so the mover has as many boxes as the opponent — first player
— or one fewer — second player).  States are stored in one flat array: pair by pair, each
pair holding a contiguous run of differences ``lo .. lo + width − 1``.

The difference axis of a pair is bounded twice.  A sheet holds at most the sum of its
boxes' maxima, so ``−maxsum(opponent) ≤ d ≤ maxsum(mover)``.  And once a lead cannot be
overturned the value no longer depends on it: for ``d > R_opp`` (the most the opponent can
still score) the mover wins on points whatever happens, for ``d < −R_mover`` the mover
loses on points, so only big generals still matter and the value is constant beyond.  The
stored run is ``[max(−maxsum(o), −R_m − 1), min(maxsum(m), R_o + 1)]`` and lookups clamp
into it.  General then needs 75.6 million values, not the 190 million of a ±270 axis.

Layers are numbered by the total of filled boxes of both players, t = 0 … 2n; layer t
depends only on layer t + 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message
from .. import dice
from ..category import CategoryRules, ROLL_NUMBERS


def _popcount(n: int) -> np.ndarray:
    masks = np.arange(1 << n)
    return np.array([bin(m).count("1") for m in masks], dtype=np.int64)


@dataclass(frozen=True, eq=False)
class TwoPlayerRules:
    """What the two-player solver needs of a category game, as dense tables.

    A *write vector* is one (box, points) pair: the value of writing that box for those
    points, for every column of a batch.  ``vec_of[k - 1][r, c]`` is the write vector of box
    c after roll number k with roll r.
    """

    game: CategoryRules
    points: np.ndarray  # (n, 3, 252) points of box c after roll k with roll r
    max_points: np.ndarray  # (n,) the most each box can hold
    vec_box: np.ndarray  # (n_vec,) the box of each write vector
    vec_points: np.ndarray  # (n_vec,) its points
    vec_of: tuple  # three (252, n) int arrays
    roll1_rows: np.ndarray  # rolls whose write vectors after roll 1 differ from roll 2's
    ends: np.ndarray  # (252,) bool: a first roll that wins the game at once (big general)

    @property
    def n(self) -> int:
        return len(self.max_points)

    @property
    def n_vec(self) -> int:
        return len(self.vec_box)


@lru_cache(maxsize=None)
def two_player_rules(game: CategoryRules) -> TwoPlayerRules:
    """The tables of ``game`` for two-player play; a DicewiseError for games with extra state.

    The race needs the points of a box to depend only on the dice and the roll number;
    General qualifies (``n_extra == 1``: no upper bonus, no counters), so its state is the
    two sheets and the difference, nothing more.
    """
    if game.n_extra != 1 or type(game).write is not CategoryRules.write:
        raise DicewiseError(f"{game.name} has extra state (bonuses or counters); the two-player "
                            "solver handles games whose boxes score from the dice alone (general)")
    points = np.asarray(game.base_points, dtype=np.int64)  # (n, 3, 252)
    n = points.shape[0]
    boxes, values = [], []
    lookup = []
    for c in range(n):
        qs = np.unique(np.concatenate([points[c].ravel(), [0]]))
        lookup.append({int(q): len(boxes) + i for i, q in enumerate(qs)})
        boxes += [c] * len(qs)
        values += [int(q) for q in qs]
    vec_of = []
    for k in ROLL_NUMBERS:
        table = np.empty((dice.N_ROLLS, n), dtype=np.int64)
        for c in range(n):
            table[:, c] = [lookup[c][int(q)] for q in points[c, k - 1]]
        table.setflags(write=False)
        vec_of.append(table)
    roll1_rows = np.flatnonzero((vec_of[0] != vec_of[1]).any(axis=1))
    end = game.first_roll_end()
    ends = np.zeros(dice.N_ROLLS, bool) if end is None else ~np.isnan(end)
    return TwoPlayerRules(game, points, points.max(axis=(1, 2)), np.array(boxes), np.array(values),
                          tuple(vec_of), roll1_rows, ends)


@dataclass(frozen=True, eq=False)
class Layout:
    """Which pairs of sheets are stored, in which order, with which differences.

    Pairs are ordered by layer (total filled boxes, ascending: the root first), then by the
    mover's mask, then the opponent's.  ``offset[p]`` is where pair p's run of differences
    starts in the flat value array; ``offset[-1]`` is the number of values.
    """

    n: int
    mover: np.ndarray  # (P,) the filled boxes of the player to move
    other: np.ndarray  # (P,) the opponent's
    lo: np.ndarray  # (P,) the lowest stored difference
    width: np.ndarray  # (P,) how many differences are stored
    offset: np.ndarray  # (P + 1,) start of each pair's run in the flat values
    layer_start: np.ndarray  # (2n + 2,) first pair of layer t (layers 0 .. 2n)
    pair_of: np.ndarray = field(repr=False)  # (2^n, 2^n) int32 pair index, -1 when not stored
    root: tuple[int, int] = (0, 0)

    @property
    def n_pairs(self) -> int:
        return len(self.mover)

    @property
    def n_values(self) -> int:
        return int(self.offset[-1])

    @property
    def hi(self) -> np.ndarray:
        return self.lo + self.width - 1

    @property
    def root_layer(self) -> int:
        return bin(self.root[0]).count("1") + bin(self.root[1]).count("1")

    def layer_pairs(self, t: int) -> slice:
        return slice(int(self.layer_start[t]), int(self.layer_start[t + 1]))

    def layer_values(self, t: int) -> slice:
        """Where layer t's values lie in the flat array."""
        s = self.layer_pairs(t)
        return slice(int(self.offset[s.start]), int(self.offset[s.stop]))

    def layers(self) -> range:
        """The layers this layout holds, last (the full sheets) first: the order of a solve."""
        return range(2 * self.n, self.root_layer - 1, -1)

    def pair(self, mover: int, other: int) -> int:
        p = int(self.pair_of[mover, other]) if max(mover, other) < (1 << self.n) else -1
        if p < 0:
            raise DicewiseError(f"sheets {mover:#x} and {other:#x} are not a position of this "
                                "two-player solve")
        return p

    def index(self, mover: int, other: int, diff: int) -> int:
        """Flat index of a state; differences beyond the stored run clamp (same value)."""
        p = self.pair(mover, other)
        return int(self.offset[p] + min(max(diff, self.lo[p]), self.lo[p] + self.width[p] - 1)
                   - self.lo[p])


def _max_sums(rules: TwoPlayerRules) -> np.ndarray:
    masks = np.arange(1 << rules.n)
    bits = (masks[:, None] >> np.arange(rules.n)[None, :]) & 1
    return bits @ rules.max_points


def check_pair(n: int, mover: int, other: int) -> None:
    """Refuse sheets that are no turn start of the race: counts must be equal or one fewer."""
    full = (1 << n) - 1
    for mask in (mover, other):
        if not 0 <= mask <= full:
            raise DicewiseError(f"a sheet mask is 0..{full}, not {mask}")
    a, b = bin(mover).count("1"), bin(other).count("1")
    if a == b == n:
        return
    if a not in (b, b - 1):
        raise DicewiseError(Message("boxes filled: {mover} by the player to move, {other} by "
                                    "the opponent; turns alternate, so the mover has as many "
                                    "boxes as the opponent (first player) or one fewer (second "
                                    "player)", mover=a, other=b))


def build_layout(rules: TwoPlayerRules, root: tuple[int, int] = (0, 0)) -> Layout:
    """The layout of the whole game (root = two empty sheets) or of the sub-game from a root.

    The sub-game from (m0, o0) holds the pairs reachable from it: in layers of the same
    parity as the root, (m ⊇ m0, o ⊇ o0); in the others, (m ⊇ o0, o ⊇ m0).  Each stored pair
    keeps the same difference run as in the whole game, so values agree state by state.
    """
    n = rules.n
    m0, o0 = root
    check_pair(n, m0, o0)
    pc = _popcount(n)
    maxsum = _max_sums(rules)
    total = int(rules.max_points.sum())
    rest = total - maxsum
    t0 = int(pc[m0] + pc[o0])
    movers, others, starts = [], [], np.zeros(2 * n + 2, dtype=np.int64)
    for t in range(2 * n + 1):
        if t < t0:
            movers.append(np.zeros(0, np.int64)), others.append(np.zeros(0, np.int64))
        else:
            a = t // 2
            own, opp = (m0, o0) if (t - t0) % 2 == 0 else (o0, m0)
            ms = np.flatnonzero((pc == a) & (np.arange(1 << n) & own == own))
            os_ = np.flatnonzero((pc == t - a) & (np.arange(1 << n) & opp == opp))
            mm, oo = np.meshgrid(ms, os_, indexing="ij")
            movers.append(mm.ravel()), others.append(oo.ravel())
        starts[t + 1] = starts[t] + len(movers[-1])
    mover, other = np.concatenate(movers), np.concatenate(others)
    lo = np.maximum(-maxsum[other], -rest[mover] - 1)
    hi = np.minimum(maxsum[mover], rest[other] + 1)
    width = hi - lo + 1
    offset = np.concatenate([[0], np.cumsum(width)])
    pair_of = np.full((1 << n, 1 << n), -1, dtype=np.int32)
    pair_of[mover, other] = np.arange(len(mover), dtype=np.int32)
    for a in (mover, other, lo, width, offset, starts, pair_of):
        a.setflags(write=False)
    return Layout(n, mover, other, lo, width, offset, starts, pair_of, (int(m0), int(o0)))


@dataclass(frozen=True, eq=False)
class TwoPlayerValues:
    """Solved values on a layout: P(win) + ½·P(draw) of the player to move, per state."""

    game: CategoryRules
    layout: Layout
    values: np.ndarray  # (layout.n_values,) float32 or float64

    def value(self, mover: int, other: int, diff: int) -> float:
        """The value of a turn start: the mover's sheet, the opponent's, mover − opponent."""
        return float(self.values[self.layout.index(mover, other, diff)])

    def layer(self, t: int) -> np.ndarray:
        return self.values[self.layout.layer_values(t)]

    @property
    def root_value(self) -> float:
        """The value of the root position at difference 0 (the whole game: P(first wins) + ½P(draw))."""
        return self.value(*self.layout.root, 0)
