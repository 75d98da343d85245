"""Risk battles made exact: rounds as integer dice counts, battles as Markov chains.

The rules are those of RULES.md section 5.  A battle state is ``(A, D)``: ``A`` armies on
the attacking territory (the attacker rolls at most ``A - 1`` dice) and ``D`` defending
armies.  Every round removes one or two armies, so the states ordered by ``A + D`` form an
acyclic graph: values are computed by backward induction over the anti-diagonals
``A + D = s`` (each one a numpy vector) and probability mass is pushed forward over the
same diagonals.  Nothing is iterated to convergence and nothing is sampled.

The dice policies are ``max`` (both sides always roll the most dice allowed) and
``minimax`` (the attacker picks its count to maximise its objective, the defender, seeing
that count, or optionally the attacker's dice, picks 1 or 2 to minimise it: a zero-sum
reading of the defender's interest).  The attacker may also stop between rounds, as the
objective says.  Cards and reinforcements live in ``risk_cards``.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Mapping, Sequence

import numpy as np

from ...errors import DicewiseError

TIES = ("defender", "attacker")
DICE_MODES = ("max", "minimax")
OBJECTIVES = ("conquest", "expected-armies", "threshold")

#: Round outcomes as (armies the attacker loses, armies the defender loses).
MOVES = ((1, 0), (0, 1), (2, 0), (1, 1), (0, 2))
_WIN1, _WIN2 = MOVES.index((0, 1)), MOVES.index((0, 2))

#: Size limits: one side's armies, and states (A x D) of one solve (a solve of A x D states
#: takes up to about 50 bytes a state: its diagonal layout holds (A + D) x min(A, D) cells).
MAX_ARMIES = 50_000
MAX_STATES = 10_000_000
#: Cells of a solve up to which a defender's roll-by-roll replies are kept as moves (40 bytes each).
_KEEP_MOVES = 2_500_000
#: Two choices closer than this are treated as equal; ties go to more dice, and to stopping.
_TOL = 1e-12


@dataclass(frozen=True)
class RiskRules:
    """The battle rules: who wins tied dice, and the most dice each side may roll."""

    ties: str = "defender"
    max_attacker_dice: int = 3
    max_defender_dice: int = 2

    def __post_init__(self):
        if self.ties not in TIES:
            raise DicewiseError(f"ties must be one of {' | '.join(TIES)}, not {self.ties!r}")
        if self.max_attacker_dice not in (1, 2, 3):
            raise DicewiseError("the attacker rolls at most 1, 2 or 3 dice")
        if self.max_defender_dice not in (1, 2):
            raise DicewiseError("the defender rolls at most 1 or 2 dice")


@dataclass(frozen=True)
class Policy:
    """How both sides choose their dice, and the attacker's objective (when to stop).

    ``objective``: ``conquest`` maximises P(conquer) and never stops; ``expected-armies``
    maximises E[attacker armies - defender armies] at the end, plus ``exchange_value``
    for a conquest, stopping when going on does not pay; ``threshold`` plays the dice of
    ``conquest`` and stops as soon as P(conquer) from the current state is below
    ``threshold``.
    """

    dice: str = "max"
    defender_sees_roll: bool = False
    objective: str = "conquest"
    exchange_value: float = 0.0
    threshold: float = 0.5

    def __post_init__(self):
        if self.dice not in DICE_MODES:
            raise DicewiseError(f"dice must be one of {' | '.join(DICE_MODES)}, not {self.dice!r}")
        if self.objective not in OBJECTIVES:
            raise DicewiseError(
                f"objective must be one of {' | '.join(OBJECTIVES)}, not {self.objective!r}")
        if self.defender_sees_roll and self.dice != "minimax":
            raise DicewiseError("--defender-sees-roll needs --dice minimax (with max dice "
                                "the defender has no choice to make)")
        if not np.isfinite(self.exchange_value) or abs(self.exchange_value) > 1e9:
            raise DicewiseError(
                f"exchange value must be a finite number, not {self.exchange_value}")
        if not 0.0 <= self.threshold <= 1.0:
            raise DicewiseError(f"threshold must be between 0 and 1, not {self.threshold}")


# --------------------------------------------------------------------------- rounds


def _check_dice(a: int, d: int) -> None:
    if a not in (1, 2, 3) or d not in (1, 2):
        raise DicewiseError(f"a round has 1..3 attacking and 1..2 defending dice, not {a} v {d}")


@lru_cache(maxsize=None)
def _attacker_classes(a: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """The attacker's rolls of ``a`` dice grouped by their two highest dice (all that a
    comparison with at most two defending dice can see), with counts over 6**a."""
    counts = Counter(tuple(sorted(r, reverse=True)[:2]) for r in
                     itertools.product(range(1, 7), repeat=a))
    keys = tuple(sorted(counts))
    return keys, tuple(counts[k] for k in keys)


def _losses(att: Sequence[int], dfn: Sequence[int], ties: str) -> tuple[int, int]:
    """Armies lost by (attacker, defender) when two sorted-descending rolls are compared."""
    lost_a = lost_d = 0
    for x, y in zip(att, dfn):
        if x > y or (x == y and ties == "attacker"):
            lost_d += 1
        else:
            lost_a += 1
    return lost_a, lost_d


@lru_cache(maxsize=None)
def _class_counts(a: int, d: int, ties: str) -> np.ndarray:
    """Integer counts, over the defender's 6**d rolls, of each move for each attacker class.

    Shape ``(classes, 5)``; the defender's roll counts in full (it may have 1 or 2 dice)."""
    keys, _ = _attacker_classes(a)
    out = np.zeros((len(keys), len(MOVES)), dtype=np.int64)
    for c, top in enumerate(keys):
        for roll in itertools.product(range(1, 7), repeat=d):
            out[c, MOVES.index(_losses(top, sorted(roll, reverse=True), ties))] += 1
    return out


def round_counts(a: int, d: int, ties: str = "defender") -> dict[tuple[int, int], int]:
    """Exact counts of each round outcome over the 6**(a+d) equally likely dice rolls.

    Keys are (armies the attacker loses, armies the defender loses); for 3 v 2 with ties to
    the defender: {(0, 2): 2890, (1, 1): 2611, (2, 0): 2275}, out of 7776.
    """
    _check_dice(a, d)
    if ties not in TIES:
        raise DicewiseError(f"ties must be one of {' | '.join(TIES)}, not {ties!r}")
    _, weights = _attacker_classes(a)
    total = np.asarray(weights, dtype=np.int64) @ _class_counts(a, d, ties)
    return {MOVES[k]: int(n) for k, n in enumerate(total) if n}


def round_probabilities(a: int, d: int, ties: str = "defender") -> dict[tuple[int, int], float]:
    """The outcome probabilities of one round (see ``round_counts``)."""
    return {k: n / 6 ** (a + d) for k, n in round_counts(a, d, ties).items()}


@dataclass(frozen=True)
class _Tables:
    """Float move probabilities for the sweep, built once per ``ties``.

    ``P[a, d]``: the moves of a round of a v d dice, shape (4, 3, 5); ``P12`` the rows
    a = 1..3, d = 1..2 stacked (6, 5).  For a defender who sees the attacker's roll, the
    rolls of every count a = 1..3 are split into classes by their two highest dice (48 in
    all): ``delta[c]`` is how the move probabilities of class c change when the defender
    rolls 2 dice instead of 1; ``wsum`` (3, 48) weighs class values into per-count values
    and ``dblocks[a - 1]`` (5, classes of a) weighs class changes into moves.
    """

    P: np.ndarray
    P12: np.ndarray
    delta: np.ndarray
    wsum: np.ndarray
    dblocks: tuple[np.ndarray, ...]


#: Where each attacker count's roll classes start and end in ``_Tables.delta``.
_CLASS_ROWS = np.cumsum([0] + [len(_attacker_classes(a)[0]) for a in (1, 2, 3)])


@lru_cache(maxsize=None)
def _tables(ties: str) -> _Tables:
    P = np.zeros((4, 3, len(MOVES)))
    ws, deltas, blocks = [], [], []
    for a in (1, 2, 3):
        _, w = _attacker_classes(a)
        w = np.asarray(w, dtype=float) / 6 ** a
        per = {}
        for d in (1, 2):
            cc = _class_counts(a, d, ties) / 6 ** d
            per[d] = cc
            P[a, d] = w @ cc
        ws.append(w)
        deltas.append(per[2] - per[1])
        blocks.append(len(w))
    delta = np.concatenate(deltas)
    wsum = np.zeros((3, len(delta)))
    start = 0
    for k, size in enumerate(blocks):
        wsum[k, start:start + size] = ws[k]
        start += size
    dblocks = tuple((deltas[k] * ws[k][:, None]).T.copy() for k in range(3))
    t = _Tables(P=P, P12=P[1:4, 1:3].reshape(6, len(MOVES)), delta=delta, wsum=wsum,
                dblocks=dblocks)
    for arr in (t.P, t.P12, t.delta, t.wsum, *t.dblocks):
        arr.setflags(write=False)
    return t


# --------------------------------------------------------------------------- the sweep


def _mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A small matrix product without BLAS: for these thin shapes (inner size 5 or 48,
    thousands of columns) multithreaded BLAS is many times slower than einsum's loop."""
    return np.einsum("ij,jk->ik", a, b)


def _check_armies(attacker: int, defender: int, *, what: str = "battle") -> None:
    for name, v in (("attacker", attacker), ("defender", defender)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise DicewiseError(f"the {name}'s armies must be a whole number, not {v!r}")
        if v < 0:
            raise DicewiseError(f"armies cannot be negative (the {name} has {v})")
        if v > MAX_ARMIES:
            raise DicewiseError(f"{v} {name} armies is more than this {what} allows "
                                f"(at most {MAX_ARMIES})")
    if attacker < 2:
        raise DicewiseError(f"the attacker needs at least 2 armies on its territory to attack "
                            f"(it rolls at most A-1 dice); got A={attacker}")
    if defender < 1:
        raise DicewiseError(f"the defender needs at least 1 army (got D={defender})")
    if attacker * defender > MAX_STATES:
        raise DicewiseError(f"{attacker} v {defender} has {attacker * defender:,} states, more "
                            f"than the {MAX_STATES:,} this {what} allows in memory")


class _Grid:
    """One battle's state space ``1..a_hi x 0..d_hi`` as a flat array, and its dice choices.

    The flat array is laid out by diagonals: state ``(A, D)`` sits in row ``A + D`` at
    column ``A + 2`` (or ``D + 2`` when ``D`` is the smaller side), after two columns of
    zero padding.  A diagonal is then a contiguous slice and each move a fixed offset, so
    a backward or forward step is a few vector operations on contiguous memory.
    ``win[a, A]``: the value of conquering with ``A`` armies after a last round of ``a``
    dice (it depends on ``a`` only in chain attacks, through the minimum move-in);
    ``lose[D]``: the value when the attacker is down to one army; ``stop(A, D)``: the
    value of stopping, or None where stopping is never chosen.
    """

    def __init__(self, rules: RiskRules, policy: Policy, a_hi: int, d_hi: int,
                 win: np.ndarray, lose: np.ndarray,
                 stop: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None):
        self.rules, self.policy = rules, policy
        self.a_hi, self.d_hi = a_hi, d_hi
        self.by_a = a_hi <= d_hi
        self.cols = (a_hi if self.by_a else d_hi) + 3
        self.size = (a_hi + d_hi + 1) * self.cols
        self.t = _tables(rules.ties)
        self.P = self.t.P
        self.off = [(i + j) * self.cols + (i if self.by_a else j) for i, j in MOVES]
        self.win = np.asarray(win, dtype=float)
        self.win_by_a = self.win.ndim == 2 and not np.all(self.win == self.win[3])
        self.lose = np.asarray(lose, dtype=float)
        self.stop = stop
        self.stopped = None
        self.moves = None
        self._amax = np.minimum(rules.max_attacker_dice, np.arange(a_hi + 1) - 1)
        self._dmax = np.minimum(rules.max_defender_dice, np.arange(d_hi + 1))

    def index(self, A, D):
        """Flat positions of states (A, D)."""
        A, D = np.asarray(A), np.asarray(D)
        return (A + D) * self.cols + (A if self.by_a else D) + 2

    def to_grid(self, V: np.ndarray) -> np.ndarray:
        """A flat array as a 2-D one indexed ``[A, D]``, A in 0..a_hi, D in 0..d_hi."""
        return V[self.index(np.arange(self.a_hi + 1)[:, None], np.arange(self.d_hi + 1)[None, :])]

    def new_values(self) -> np.ndarray:
        """A flat value array holding the terminal values, zero elsewhere."""
        V = np.zeros(self.size)
        A = np.arange(1, self.a_hi + 1)
        V[self.index(A, 0)] = self.win[3, A] if self.win.ndim == 2 else self.win[A]
        D = np.arange(1, self.d_hi + 1)
        V[self.index(1, D)] = self.lose[D]
        return V

    def diagonal(self, s: int):
        """The non-terminal states with A + D = s (A >= 2, D >= 1), or None: their A and D
        in memory order, and the slice of the flat arrays that holds them."""
        lo, hi = max(2, s - self.d_hi), min(self.a_hi, s - 1)
        if lo > hi:
            return None
        if self.by_a:
            A = np.arange(lo, hi + 1)
            f = s * self.cols + lo + 2
            return A, s - A, slice(f, f + hi - lo + 1)
        D = np.arange(s - hi, s - lo + 1)
        f = s * self.cols + s - hi + 2
        return s - D, D, slice(f, f + hi - lo + 1)

    def shifted(self, sl: slice, k: int) -> slice:
        """The slice of the states one move ``MOVES[k]`` away from those in ``sl``."""
        o = self.off[k]
        return slice(sl.start - o, sl.stop - o)

    def _neighbours(self, V, sl, A, D, a_for):
        """Values after each move, shape (5, n), with conquests valued for the dice count
        ``a_for`` of the last round (an int or one per state)."""
        NB = np.stack([V[self.shifted(sl, k)] for k in range(len(MOVES))])
        if self.win_by_a:
            a_for = np.broadcast_to(a_for, A.shape)
            for k, dd in ((_WIN1, 1), (_WIN2, 2)):
                at = np.nonzero(D == dd)[0]
                if at.size:
                    NB[k, at] = self.win[a_for[at], A[at]]
        return NB

    def options(self, V, A, D, sl):
        """Value of each attacker dice count (rows a = 1..3, -inf where not allowed) given
        the defender's best reply, and that reply (0 where the defender answers the dice as
        rolled): shapes (3, n).  Third, for a defender who sees the roll, its reply to each
        roll class (1.0 where it rolls 2 dice), shape (48, n); else None."""
        n, t = len(A), self.t
        amax, dmax = self._amax[A], self._dmax[D]
        if self.win_by_a:
            NBs = [self._neighbours(V, sl, A, D, a) for a in (1, 2, 3)]
        else:
            NBs = [self._neighbours(V, sl, A, D, 3)] * 3
        two = None
        if self.policy.dice == "max":
            vals = np.stack([np.einsum("nm,mn->n", t.P[a, dmax], NBs[a - 1]) for a in (1, 2, 3)])
            reply = np.broadcast_to(dmax, (3, n))
        elif not self.policy.defender_sees_roll:
            if self.win_by_a:
                v = np.stack([_mm(t.P[a, 1:3], NBs[a - 1]) for a in (1, 2, 3)])
            else:
                v = _mm(t.P12, NBs[0]).reshape(3, 2, n)  # [a, d - 1]
            roll2 = (dmax >= 2) & (v[:, 1] <= v[:, 0] + _TOL)
            vals = np.where(roll2, v[:, 1], v[:, 0])
            reply = np.where(roll2, 2, 1)
        else:
            # For each attacker roll class, 2 dice instead of 1 change the value by diff;
            # the defender takes 2 exactly where that does not help the attacker.
            if self.win_by_a:
                rows = _CLASS_ROWS
                diff = np.concatenate([_mm(t.delta[rows[a - 1]:rows[a]], NBs[a - 1])
                                       for a in (1, 2, 3)])
                base = np.stack([_mm(t.P[a, 1:2], NBs[a - 1])[0] for a in (1, 2, 3)])
            else:
                diff = _mm(t.delta, NBs[0])  # (48, n)
                base = _mm(t.P[1:4, 1], NBs[0])  # (3, n)
            two = np.empty_like(diff)
            np.less_equal(diff, _TOL, out=two, casting="unsafe")  # as 0.0 / 1.0
            two[:, dmax < 2] = 0.0  # (at most one state per diagonal)
            vals = base + _mm(t.wsum, diff * two)
            reply = np.zeros((3, n), dtype=np.int64)
        vals = np.where(np.arange(1, 4)[:, None] <= amax, vals, -np.inf)
        return vals, reply, two

    def moves_for(self, a, d, two) -> np.ndarray:
        """Move probabilities, shape (n, 5), of dice ``a`` against the defender's reply:
        ``d`` dice, or its roll-by-roll reply ``two`` (see ``options``)."""
        if two is None:
            return self.P[a, d]
        T = np.empty((len(a), len(MOVES)))
        for k in (1, 2, 3):
            at = a == k
            if not at.any():
                continue
            block = two[_CLASS_ROWS[k - 1]:_CLASS_ROWS[k]]
            if at.all():
                T[:] = self.P[k, 1] + _mm(self.t.dblocks[k - 1], block).T
            else:
                T[at] = self.P[k, 1] + _mm(self.t.dblocks[k - 1], block[:, at]).T
        return T

    def decide(self, V, A, D, sl, moves=False):
        """The attacker's dice count for each state, the defender's reply (see ``options``)
        and the value of going on; with ``moves`` also the move probabilities, shape
        (n, 5).  Ties go to more dice."""
        vals, reply, two = self.options(V, A, D, sl)
        best = vals.max(axis=0)
        a = np.where(vals[2] >= best - _TOL, 3, np.where(vals[1] >= best - _TOL, 2, 1))
        cols = np.arange(len(A))
        d = reply[a - 1, cols]
        res = (a, d, vals[a - 1, cols])
        return res + (self.moves_for(a, d, two),) if moves else res

    def _go_max(self, V, A, D, sl):
        """The value of going on with both sides at their most dice."""
        amax = self._amax[A]
        NB = self._neighbours(V, sl, A, D, amax)
        return np.einsum("nm,mn->n", self.P[amax, self._dmax[D]], NB)

    def diagonals(self, reverse=False, top=None):
        """The non-empty diagonals, lowest first (or from ``top`` down)."""
        hi = self.a_hi + self.d_hi if top is None else top
        for s in (range(hi, 2, -1) if reverse else range(3, hi + 1)):
            diag = self.diagonal(s)
            if diag is not None:
                yield diag

    def solve(self, progress=None) -> np.ndarray:
        """Backward induction over the diagonals: the value of every state under the policy.

        Keeps the choices made (``choice_a``, ``choice_d``) for ``forward`` and, where the
        attacker may stop, the states where it does (``stopped``)."""
        V = self.new_values()
        minimax = self.policy.dice == "minimax"
        # A defender who sees the roll has a reply per roll class: keep the resulting move
        # probabilities where memory allows (5 floats a state), else re-derive them.
        keep_moves = minimax and self.policy.defender_sees_roll and self.size <= _KEEP_MOVES
        self.moves = np.zeros((len(MOVES), self.size)) if keep_moves else None
        if minimax:
            self.choice_a = np.zeros(self.size, dtype=np.int8)
            self.choice_d = np.zeros(self.size, dtype=np.int8)
        if self.stop is not None:
            self.stopped = np.zeros(self.size, dtype=bool)
        for A, D, sl in self.diagonals():
            if keep_moves:
                a, d, go, T = self.decide(V, A, D, sl, moves=True)
                self.choice_a[sl], self.moves[:, sl] = a, T.T
            elif minimax:
                a, d, go = self.decide(V, A, D, sl)
                self.choice_a[sl], self.choice_d[sl] = a, d
            else:
                go = self._go_max(V, A, D, sl)
            if self.stop is not None:
                halt = self.stop(A, D)
                stop_here = halt >= go - _TOL
                self.stopped[sl] = stop_here
                go = np.where(stop_here, halt, go)
            V[sl] = go
            if progress is not None:
                progress(1)
        return V

    def forward(self, mass: np.ndarray, V: np.ndarray | None, stopped: np.ndarray | None,
                top: int, track: bool = False, progress=None):
        """Push probability mass down from diagonal ``top``, playing the choices of
        ``solve`` (max dice need no solve; a defender who sees the roll replies as read from
        the values ``V``) and stopping where ``stopped`` says.  Returns the
        final mass (it rests on terminal and stopped states) and, with ``track``, the
        conquest mass by the last round's dice count, shape (4, a_hi + 1)."""
        conq = np.zeros((4, self.a_hi + 1))
        minimax = self.policy.dice == "minimax"
        for A, D, sl in self.diagonals(reverse=True, top=top):
            if progress is not None:
                progress(1)
            m = mass[sl].copy()  # a view otherwise
            if stopped is not None:
                m[stopped[sl]] = 0.0
            if not m.any():
                continue
            if minimax:
                a = self.choice_a[sl].astype(np.int64)
                if self.moves is not None:
                    T = self.moves[:, sl].T
                elif self.policy.defender_sees_roll:
                    T = self.moves_for(a, None, self.options(V, A, D, sl)[2])
                else:
                    T = self.P[a, self.choice_d[sl]]
            else:
                a = self._amax[A]
                T = self.P[a, self._dmax[D]]
            mass[sl] -= m
            flow = m[:, None] * T
            for k in range(len(MOVES)):
                mass[self.shifted(sl, k)] += flow[:, k]
            if track:
                for k, dd in ((_WIN1, 1), (_WIN2, 2)):
                    at = np.nonzero(D == dd)[0]
                    if at.size:
                        np.add.at(conq, (a[at], A[at]), flow[at, k])
        return mass, conq


# --------------------------------------------------------------------------- battles


@dataclass(frozen=True)
class Battle:
    """The exact end of a battle started at ``attacker`` v ``defender`` under a policy.

    ``attacker_survivors[n]``: P(conquest with n armies left on the attacking territory,
    all of them, including those about to move in); ``defender_survivors[n]``: P(the
    battle ends unconquered, by failure or by stopping, with n defenders left).  Together
    they sum to 1.  ``stopped`` lists the (A, D) states where the attacker stops, with
    their probabilities; ``value`` is the objective's value at the start.
    """

    attacker: int
    defender: int
    rules: RiskRules
    policy: Policy
    p_conquer: float
    attacker_survivors: Mapping[int, float] = field(repr=False)
    defender_survivors: Mapping[int, float] = field(repr=False)
    stopped: tuple[tuple[int, int, float], ...] = field(repr=False)
    expected_attacker_losses: float
    expected_defender_losses: float
    value: float

    @property
    def total_probability(self) -> float:
        return math.fsum([*self.attacker_survivors.values(), *self.defender_survivors.values()])


def _objective_grid(rules, policy, a_hi, d_hi) -> _Grid:
    """The grid whose backward values are the policy's objective (threshold: conquest)."""
    A = np.arange(a_hi + 1, dtype=float)
    D = np.arange(d_hi + 1, dtype=float)
    if policy.objective == "expected-armies":
        c = policy.exchange_value
        return _Grid(rules, policy, a_hi, d_hi, win=A + c, lose=1.0 - D,
                     stop=lambda a, d: (a - d).astype(float))
    return _Grid(rules, policy, a_hi, d_hi, win=np.ones(a_hi + 1), lose=np.zeros(d_hi + 1))


def _solve_policy(rules, policy, a_hi, d_hi, progress=None, always=False):
    """The grid, its values (the objective's; conquest's for threshold) and its stopping
    states.  Max dice to the end need no values, so none are computed unless ``always``."""
    g = _objective_grid(rules, policy, a_hi, d_hi)
    if policy.objective == "conquest" and policy.dice == "max" and not always:
        return g, None, None
    V = g.solve(progress)
    stopped = g.stopped
    if policy.objective == "threshold":
        stopped = np.zeros(g.size, dtype=bool)
        for _, _, sl in g.diagonals():
            stopped[sl] = V[sl] < policy.threshold
    return g, V, stopped


def battle(attacker: int, defender: int, rules: RiskRules = RiskRules(),
           policy: Policy = Policy(), progress=None) -> Battle:
    """Solve one battle exactly: P(conquer), survivors' distributions, expected losses.

    ``attacker`` counts every army on the attacking territory (RULES.md section 5: it
    rolls at most A - 1 dice).
    """
    _check_armies(attacker, defender)
    return _battle(*_solve_policy(rules, policy, attacker, defender, progress), attacker,
                   defender, progress)


def battle_steps(attacker: int, defender: int, policy: Policy = Policy()) -> int:
    """How many progress steps ``battle`` reports (one per diagonal and pass), after
    checking the armies as ``battle`` does."""
    _check_armies(attacker, defender)
    passes = 1 if policy.objective == "conquest" and policy.dice == "max" else 2
    return passes * max(0, attacker + defender - 2)


def _battle(g: _Grid, Vdec, stopped, attacker: int, defender: int, progress=None) -> Battle:
    """The forward pass of ``battle`` on a solved grid."""
    rules, policy = g.rules, g.policy
    mass = np.zeros(g.size)
    start = g.index(attacker, defender)
    mass[start] = 1.0
    mass, _ = g.forward(mass, Vdec, stopped, attacker + defender, progress=progress)
    grid = g.to_grid(mass)  # [A, D]
    conquered = grid[:, 0]
    att = {int(n): float(conquered[n]) for n in np.nonzero(conquered)[0]}
    unconquered = grid[:, 1:].sum(axis=0)
    dfd = {int(n) + 1: float(unconquered[n]) for n in np.nonzero(unconquered)[0]}
    st = tuple((int(a) + 2, int(d) + 1, float(grid[a + 2, d + 1]))
               for a, d in zip(*np.nonzero(grid[2:, 1:])))
    Aidx = np.arange(attacker + 1)[:, None]
    Didx = np.arange(defender + 1)[None, :]
    # Rounding may leave a sum a hair above 1; a probability is reported within [0, 1].
    p_conquer = min(1.0, math.fsum(att.values()))
    if policy.objective == "expected-armies":
        value = float((grid * (Aidx - Didx)).sum()) + policy.exchange_value * p_conquer
    else:
        value = p_conquer
    return Battle(
        attacker=attacker, defender=defender, rules=rules, policy=policy,
        p_conquer=p_conquer, attacker_survivors=att, defender_survivors=dfd,
        stopped=st,
        expected_attacker_losses=attacker - float((grid * Aidx).sum()),
        expected_defender_losses=defender - float((grid * Didx).sum()),
        value=value)


def conquest_table(n: int, rules: RiskRules = RiskRules(), policy: Policy = Policy(),
                   progress=None) -> np.ndarray:
    """P(conquer) for every start ``A, D <= n`` (a fight to the end), indexed ``[A, D]``.

    Row 0 is NaN (no territory), row 1 is 0 (no army can attack), column 0 is 1.
    """
    check_table_size(n)
    policy = Policy(dice=policy.dice, defender_sees_roll=policy.defender_sees_roll)
    g = _objective_grid(rules, policy, n, n)
    V = g.to_grid(g.solve(progress))
    V[0] = np.nan
    V[1, 0] = 1.0
    return V


def check_table_size(n: int) -> None:
    """Refuse a table bound that is not a whole number >= 2 or would not fit in memory."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise DicewiseError(f"the table bound must be a whole number >= 2, not {n!r}")
    if n * n > MAX_STATES:
        raise DicewiseError(f"a table up to {n} has {n * n:,} entries, more than the "
                            f"{MAX_STATES:,} allowed in memory (at most {int(MAX_STATES ** .5)})")


def table_steps(n: int) -> int:
    """How many progress steps ``conquest_table(n)`` reports."""
    return max(0, 2 * n - 2)


# --------------------------------------------------------------------------- advice


@dataclass(frozen=True)
class DiceOption:
    """One dice count for the attacker: the defender's best reply (0 where it replies to the
    attacker's dice as rolled) and the objective's value after that round."""

    attacker_dice: int
    defender_dice: int
    value: float


@dataclass(frozen=True)
class Advice:
    """What to do now at ``attacker`` v ``defender``: the dice to roll, go on or stop."""

    attacker: int
    defender: int
    policy: Policy
    attacker_dice: int
    defender_dice: int
    go_on: bool
    value: float
    stop_value: float | None
    options: tuple[DiceOption, ...]
    p_conquer: float


def advise(attacker: int, defender: int, rules: RiskRules = RiskRules(),
           policy: Policy = Policy(dice="minimax"), progress=None) -> Advice:
    """The attacker's best move now under ``policy``, with the numbers behind it."""
    _check_armies(attacker, defender)
    g, Vdec, stopped = _solve_policy(rules, policy, attacker, defender, progress, always=True)
    V = Vdec
    A, D = np.array([attacker]), np.array([defender])
    idx = int(g.index(attacker, defender))
    sl = slice(idx, idx + 1)
    vals, reply, _ = g.options(V, A, D, sl)
    a = int(g.decide(V, A, D, sl)[0][0]) if policy.dice == "minimax" else int(g._amax[attacker])
    if policy.defender_sees_roll:
        reply[:] = 0
    opts = tuple(DiceOption(k, int(reply[k - 1, 0]), float(vals[k - 1, 0]))
                 for k in (1, 2, 3) if np.isfinite(vals[k - 1, 0]))
    b = _battle(g, Vdec, stopped, attacker, defender, progress)
    if policy.objective == "expected-armies":
        stop_value = float(attacker - defender)
        go_on = not bool(g.stopped[idx])
    elif policy.objective == "threshold":
        stop_value = 0.0
        go_on = bool(V[idx] >= policy.threshold)
    else:
        stop_value, go_on = None, True
    return Advice(attacker=attacker, defender=defender, policy=policy, attacker_dice=a,
                  defender_dice=int(reply[a - 1, 0]), go_on=go_on, value=float(V[idx]),
                  stop_value=stop_value, options=opts, p_conquer=b.p_conquer)


# --------------------------------------------------------------------------- chains


@dataclass(frozen=True)
class Chain:
    """An attack along territories held by ``defenders``, in order, from ``armies``.

    ``reached[j]``: P(exactly j territories conquered); ``p_all = reached[-1]``;
    ``expected_final_armies``: E[armies on the last territory | all conquered];
    ``expected_armies_left``: E[all the attacker's armies left on the path: garrisons,
    and the front army or armies], over every outcome.
    """

    armies: int
    defenders: tuple[int, ...]
    garrison: int
    p_all: float
    reached: tuple[float, ...]
    expected_final_armies: float
    expected_armies_left: float


def _check_chain(defenders, garrison):
    defenders = tuple(defenders)
    if not defenders:
        raise DicewiseError("a chain needs at least one defending territory")
    if len(defenders) > 100:
        raise DicewiseError(
            f"a chain of {len(defenders)} territories is longer than the 100 allowed")
    for d in defenders:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
            raise DicewiseError(
                f"every territory on the chain needs at least 1 defender, not {d!r}")
    if isinstance(garrison, bool) or not isinstance(garrison, (int, np.integer)) or garrison < 1:
        raise DicewiseError(f"the garrison left behind must be at least 1 army, not {garrison!r}")
    return defenders


def check_chain(armies: int, defenders: Sequence[int], garrison: int) -> tuple[int, ...]:
    """Refuse a chain attack that is malformed or would not fit in memory; the defenders."""
    defenders = _check_chain(defenders, garrison)
    _check_armies(armies, max(defenders), what="chain")
    if armies * sum(defenders) > MAX_STATES:
        raise DicewiseError(f"this chain has {armies * sum(defenders):,} states, more than the "
                            f"{MAX_STATES:,} allowed in memory")
    return defenders


def _move_in(A: np.ndarray, a: int, garrison: int) -> np.ndarray:
    """Armies moved into a conquered territory: all but the garrison, but at least the dice
    of the last round (RULES.md section 5), and never the last army."""
    return np.minimum(np.maximum(A - garrison, a), A - 1)


def _chain_grids(a_hi, defenders, garrison, rules, policy, progress=None):
    """Backward over the chain: per battle its grid and values; W[k][A] = P(conquer
    territories k.. in order with A armies on the territory attacking k)."""
    k = len(defenders)
    W_next = np.ones(a_hi + 1)
    W_next[0] = 0.0
    grids = [None] * k
    W = [None] * (k + 1)
    W[k] = W_next
    A = np.arange(a_hi + 1)
    for t in range(k - 1, -1, -1):
        Dk = defenders[t]
        win = np.zeros((4, a_hi + 1))
        for a in (1, 2, 3):
            moved = np.clip(_move_in(A, a, garrison), 0, a_hi)
            win[a] = np.where(A >= 2, W_next[moved], 0.0)
        g = _Grid(rules, policy, a_hi, Dk, win=win, lose=np.zeros(Dk + 1))
        V = g.solve(progress)
        grids[t] = (g, V)
        W_next = np.zeros(a_hi + 1)
        W_next[2:] = V[g.index(A[2:], Dk)]
        W[t] = W_next
    return grids, W


def chain_attack(armies: int, defenders: Sequence[int], garrison: int = 1,
                 rules: RiskRules = RiskRules(), policy: Policy = Policy(),
                 progress=None) -> Chain:
    """Attack ``defenders[0]``, then from there ``defenders[1]``, and so on, moving all but
    ``garrison`` armies forward after each conquest and fighting each battle to the end.

    With ``minimax`` dice the attacker's counts maximise P(all conquered) (not the single
    battle's P(conquer)); the defender minimises it.
    """
    defenders = check_chain(armies, defenders, garrison)
    policy = Policy(dice=policy.dice, defender_sees_roll=policy.defender_sees_roll)
    grids, _ = _chain_grids(armies, defenders, garrison, rules, policy, progress)
    k = len(defenders)
    start = np.zeros(armies + 1)
    start[armies] = 1.0
    reached = np.zeros(k + 1)
    left = 0.0  # expected armies left behind as garrisons
    A = np.arange(armies + 1)
    for t in range(k):
        g, V = grids[t]
        Dk = defenders[t]
        mass = np.zeros(g.size)
        live = np.nonzero(start[2:])[0] + 2
        mass[g.index(live, Dk)] = start[live]
        reached[t] += start[1] + start[0]  # could not even attack
        mass, conq = g.forward(mass, V, None, armies + Dk, track=True)
        grid = g.to_grid(mass)
        reached[t] += grid[1, 1:].sum()
        nxt = np.zeros(armies + 1)
        for a in (1, 2, 3):
            moved = _move_in(A, a, garrison)
            ok = A >= 2
            np.add.at(nxt, moved[ok], conq[a][ok])
            left += float((conq[a][ok] * (A[ok] - moved[ok])).sum())
        start = nxt
    reached[k] = start.sum()
    p_all = float(reached[k])
    final = float((start * A).sum())
    front_fail = float(reached[:k].sum())  # one army stays on the territory attacked from
    return Chain(armies=armies, defenders=defenders, garrison=garrison, p_all=p_all,
                 reached=tuple(float(x) for x in reached),
                 expected_final_armies=final / p_all if p_all > 0 else 0.0,
                 expected_armies_left=left + final + front_fail)


def min_armies(defenders: Sequence[int], target: float, garrison: int = 1,
               rules: RiskRules = RiskRules(), policy: Policy = Policy(),
               progress=None) -> tuple[int, float]:
    """The fewest armies on the starting territory with P(all conquered) >= ``target``,
    and that probability.  Searches A = 2, 3, ... by solving all of them at once."""
    defenders = _check_chain(defenders, garrison)
    if not isinstance(target, (int, float)) or not 0.0 < target < 1.0:
        raise DicewiseError(
            f"the target probability must be strictly between 0 and 1, not {target}")
    policy = Policy(dice=policy.dice, defender_sees_roll=policy.defender_sees_roll)
    a_hi, tried = 2 * sum(defenders) + 4 * len(defenders) * garrison + 8, 1
    while True:
        if a_hi * sum(defenders) > MAX_STATES or a_hi > MAX_ARMIES:
            why = f"none up to {tried} reach it" if tried > 1 else "the chain is too long"
            raise DicewiseError(f"the search for P(all conquered) >= {target} needs more "
                                f"memory than allowed ({why})")
        _, W = _chain_grids(a_hi, defenders, garrison, rules, policy, progress)
        tried = a_hi
        hit = np.nonzero(W[0] >= target)[0]
        if hit.size:
            return int(hit[0]), float(W[0][hit[0]])
        a_hi *= 2
