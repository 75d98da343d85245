"""A battle as a Markov chain over its states (A, D), solved diagonal by diagonal.

``A`` armies on the attacking territory (the attacker rolls at most ``A - 1`` dice) face
``D`` defending armies.  Every round removes one or two armies, so the states ordered by
``A + D`` form an acyclic graph: ``backward`` computes the value of every state by
induction over the anti-diagonals ``A + D = s`` (each one a numpy vector), recording the
dice chosen and where the attacker stops, and ``forward`` pushes probability mass from
the start down the same diagonals to the states where the battle ends.  Nothing is
iterated to convergence and nothing is sampled.  What is valued (conquest, armies, the
rest of a chain) is the grid's terminal values and stopping rule, set by its caller.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message, Number
from .dice_choice import TOL, decide, go_max, max_moves, moves_for, options
from .policy import Policy, check_play
from .rounds import MOVES, WIN1, WIN2, move_tables
from .rules import RiskRules

#: Size limits: one side's armies, and states (A x D) of one solve (a solve of A x D states
#: takes up to about 50 bytes a state: its diagonal layout holds (A + D) x min(A, D) cells).
MAX_ARMIES = 50_000
MAX_STATES = 10_000_000
#: Cells of a solve up to which a defender's roll-by-roll replies are kept as moves (40 bytes each).
_KEEP_MOVES = 2_500_000


def check_armies(attacker: int, defender: int, *, what: str = "battle") -> None:
    """Refuse a start that is no battle (A < 2, D < 1) or would not fit in memory; ``what``
    (battle or chain) is what the refusal says is solved.  Each side and each ``what`` has
    a sentence of its own, so that a translation says it whole."""
    for attacking, v in ((True, attacker), (False, defender)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise DicewiseError(
                Message("the attacker's armies must be a whole number, not {value}",
                        value=repr(v)) if attacking else
                Message("the defender's armies must be a whole number, not {value}",
                        value=repr(v)))
        if v < 0:
            raise DicewiseError(
                Message("armies cannot be negative (the attacker has {armies})", armies=v)
                if attacking else
                Message("armies cannot be negative (the defender has {armies})", armies=v))
        if v > MAX_ARMIES:
            raise DicewiseError({
                (True, "battle"): Message("{armies} attacker armies is more than this battle "
                                          "allows (at most {most})", armies=v, most=MAX_ARMIES),
                (False, "battle"): Message("{armies} defender armies is more than this battle "
                                           "allows (at most {most})", armies=v, most=MAX_ARMIES),
                (True, "chain"): Message("{armies} attacker armies is more than this chain "
                                         "allows (at most {most})", armies=v, most=MAX_ARMIES),
                (False, "chain"): Message("{armies} defender armies is more than this chain "
                                          "allows (at most {most})", armies=v, most=MAX_ARMIES),
            }[attacking, what])
    if attacker < 2:
        raise DicewiseError(Message("the attacker needs at least 2 armies on its territory to "
                                    "attack (it rolls at most A-1 dice); got A={armies}",
                                    armies=attacker))
    if defender < 1:
        raise DicewiseError(Message("the defender needs at least 1 army (got D={armies})",
                                    armies=defender))
    if attacker * defender > MAX_STATES:
        sizes = {"attacker": attacker, "defender": defender,
                 "states": Number(attacker * defender), "most": Number(MAX_STATES)}
        raise DicewiseError(
            Message("{attacker} v {defender} has {states} states, more than the {most} this "
                    "battle allows in memory", **sizes) if what == "battle" else
            Message("{attacker} v {defender} has {states} states, more than the {most} this "
                    "chain allows in memory", **sizes))


class Grid:
    """One battle's state space ``1..a_hi x 0..d_hi`` as a flat array, and what it is worth.

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
        check_play(rules, policy)
        self.rules, self.policy = rules, policy
        self.a_hi, self.d_hi = a_hi, d_hi
        self.by_a = a_hi <= d_hi
        self.cols = (a_hi if self.by_a else d_hi) + 3
        self.size = (a_hi + d_hi + 1) * self.cols
        self.t = move_tables(rules.ties)
        self.P = self.t.P
        self.off = [(i + j) * self.cols + (i if self.by_a else j) for i, j in MOVES]
        self.win = np.asarray(win, dtype=float)
        self.win_by_a = self.win.ndim == 2 and not np.all(self.win == self.win[3])
        self.lose = np.asarray(lose, dtype=float)
        self.stop = stop
        #: The most dice each side may roll, by its armies.
        self.amax = np.minimum(rules.max_attacker_dice, np.arange(a_hi + 1) - 1)
        self.dmax = np.minimum(rules.max_defender_dice, np.arange(d_hi + 1))

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

    def diagonals(self, reverse=False, top=None):
        """The non-empty diagonals, lowest first (or from ``top`` down)."""
        hi = self.a_hi + self.d_hi if top is None else top
        for s in (range(hi, 2, -1) if reverse else range(3, hi + 1)):
            diag = self.diagonal(s)
            if diag is not None:
                yield diag

    def shifted(self, sl: slice, k: int) -> slice:
        """The slice of the states one move ``MOVES[k]`` away from those in ``sl``."""
        o = self.off[k]
        return slice(sl.start - o, sl.stop - o)

    def neighbours(self, V, sl, A, D, a_for):
        """Values after each move, shape (5, n), with conquests valued for the dice count
        ``a_for`` of the last round (an int or one per state)."""
        NB = np.stack([V[self.shifted(sl, k)] for k in range(len(MOVES))])
        if self.win_by_a:
            a_for = np.broadcast_to(a_for, A.shape)
            for k, dd in ((WIN1, 1), (WIN2, 2)):
                at = np.nonzero(D == dd)[0]
                if at.size:
                    NB[k, at] = self.win[a_for[at], A[at]]
        return NB


@dataclass(frozen=True)
class Solved:
    """What ``backward`` found on a grid: every state's value, the choices made and where
    the attacker stops.

    ``choice_a``/``choice_d``: the dice of minimax play (None with max dice); ``moves``:
    the move probabilities, shape (5, size), of a defender who sees the roll, where memory
    allows keeping them (None: ``forward`` re-derives them from the values); ``stopped``:
    the states where the grid's stopping rule stops (None without one).
    """

    values: np.ndarray
    choice_a: np.ndarray | None
    choice_d: np.ndarray | None
    moves: np.ndarray | None
    stopped: np.ndarray | None


def backward(g: Grid, progress=None) -> Solved:
    """Backward induction over the diagonals: the value of every state under the policy."""
    V = g.new_values()
    minimax = g.policy.dice == "minimax"
    # A defender who sees the roll has a reply per roll class: keep the resulting move
    # probabilities where memory allows (5 floats a state), else re-derive them.
    keep_moves = minimax and g.rules.defender_sees_roll and g.size <= _KEEP_MOVES
    moves = np.zeros((len(MOVES), g.size)) if keep_moves else None
    choice_a = choice_d = stopped = None
    if minimax:
        choice_a = np.zeros(g.size, dtype=np.int8)
        choice_d = np.zeros(g.size, dtype=np.int8)
    if g.stop is not None:
        stopped = np.zeros(g.size, dtype=bool)
    for A, D, sl in g.diagonals():
        if keep_moves:
            a, d, go, T = decide(g, V, A, D, sl, moves=True)
            choice_a[sl], moves[:, sl] = a, T.T
        elif minimax:
            a, d, go = decide(g, V, A, D, sl)
            choice_a[sl], choice_d[sl] = a, d
        else:
            go = go_max(g, V, A, D, sl)
        if g.stop is not None:
            halt = g.stop(A, D)
            stop_here = halt >= go - TOL
            stopped[sl] = stop_here
            go = np.where(stop_here, halt, go)
        V[sl] = go
        if progress is not None:
            progress(1)
    return Solved(values=V, choice_a=choice_a, choice_d=choice_d, moves=moves, stopped=stopped)


def forward(g: Grid, mass: np.ndarray, solved: Solved | None, stopped: np.ndarray | None,
            top: int, track: bool = False, progress=None):
    """Push probability mass down from diagonal ``top``, playing the choices of
    ``solved`` (max dice need none) and stopping where ``stopped`` says.  Returns the
    final mass (it rests on terminal and stopped states) and, with ``track``, the
    conquest mass by the last round's dice count, shape (4, a_hi + 1)."""
    conq = np.zeros((4, g.a_hi + 1))
    minimax = g.policy.dice == "minimax"
    for A, D, sl in g.diagonals(reverse=True, top=top):
        if progress is not None:
            progress(1)
        m = mass[sl].copy()  # a view otherwise
        if stopped is not None:
            m[stopped[sl]] = 0.0
        if not m.any():
            continue
        if minimax:
            a = solved.choice_a[sl].astype(np.int64)
            if solved.moves is not None:
                T = solved.moves[:, sl].T
            elif g.rules.defender_sees_roll:
                T = moves_for(g, a, None, options(g, solved.values, A, D, sl)[2])
            else:
                T = g.P[a, solved.choice_d[sl]]
        else:
            T, a = max_moves(g, A, D)
        mass[sl] -= m
        flow = m[:, None] * T
        for k in range(len(MOVES)):
            mass[g.shifted(sl, k)] += flow[:, k]
        if track:
            for k, dd in ((WIN1, 1), (WIN2, 2)):
                at = np.nonzero(D == dd)[0]
                if at.size:
                    np.add.at(conq, (a[at], A[at]), flow[at, k])
    return mass, conq
