"""The dice both sides roll in a round, for every state of one diagonal at once.

With ``max`` dice each side rolls the most dice the rules allow.  With ``minimax`` dice
the attacker picks its count (1..min(3, A - 1)) to maximise the value after the round and
the defender, who sees that count, picks 1 or 2 to minimise it (RULES.md section 5); a
defender who sees the attacker's dice themselves (rule option ``defender_sees_roll``)
replies to each class of attacker roll.  Choices closer than ``TOL`` are equal: ties go
to more dice.  Every function takes the battle's ``markov.Grid``, a value array ``V``
over its states, and one diagonal's states ``A``, ``D`` with their slice ``sl``.
"""

from __future__ import annotations

import numpy as np

from .rounds import CLASS_ROWS, MOVES

#: Two choices closer than this are treated as equal; ties go to more dice, and to stopping.
TOL = 1e-12


def _mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A small matrix product without BLAS: for these thin shapes (inner size 5 or 48,
    thousands of columns) multithreaded BLAS is many times slower than einsum's loop."""
    return np.einsum("ij,jk->ik", a, b)


def options(g, V, A, D, sl):
    """Value of each attacker dice count (rows a = 1..3, -inf where not allowed) given
    the defender's best reply, and that reply (0 where the defender answers the dice as
    rolled): shapes (3, n).  Third, for a defender who sees the roll, its reply to each
    roll class (1.0 where it rolls 2 dice), shape (48, n); else None."""
    n, t = len(A), g.t
    amax, dmax = g.amax[A], g.dmax[D]
    if g.win_by_a:
        NBs = [g.neighbours(V, sl, A, D, a) for a in (1, 2, 3)]
    else:
        NBs = [g.neighbours(V, sl, A, D, 3)] * 3
    two = None
    if g.policy.dice == "max":
        vals = np.stack([np.einsum("nm,mn->n", t.P[a, dmax], NBs[a - 1]) for a in (1, 2, 3)])
        reply = np.broadcast_to(dmax, (3, n))
    elif not g.rules.defender_sees_roll:
        if g.win_by_a:
            v = np.stack([_mm(t.P[a, 1:3], NBs[a - 1]) for a in (1, 2, 3)])
        else:
            v = _mm(t.P12, NBs[0]).reshape(3, 2, n)  # [a, d - 1]
        roll2 = (dmax >= 2) & (v[:, 1] <= v[:, 0] + TOL)
        vals = np.where(roll2, v[:, 1], v[:, 0])
        reply = np.where(roll2, 2, 1)
    else:
        # For each attacker roll class, 2 dice instead of 1 change the value by diff;
        # the defender takes 2 exactly where that does not help the attacker.
        if g.win_by_a:
            rows = CLASS_ROWS
            diff = np.concatenate([_mm(t.delta[rows[a - 1]:rows[a]], NBs[a - 1])
                                   for a in (1, 2, 3)])
            base = np.stack([_mm(t.P[a, 1:2], NBs[a - 1])[0] for a in (1, 2, 3)])
        else:
            diff = _mm(t.delta, NBs[0])  # (48, n)
            base = _mm(t.P[1:4, 1], NBs[0])  # (3, n)
        two = np.empty_like(diff)
        np.less_equal(diff, TOL, out=two, casting="unsafe")  # as 0.0 / 1.0
        two[:, dmax < 2] = 0.0  # (at most one state per diagonal)
        vals = base + _mm(t.wsum, diff * two)
        reply = np.zeros((3, n), dtype=np.int64)
    vals = np.where(np.arange(1, 4)[:, None] <= amax, vals, -np.inf)
    return vals, reply, two


def moves_for(g, a, d, two) -> np.ndarray:
    """Move probabilities, shape (n, 5), of dice ``a`` against the defender's reply:
    ``d`` dice, or its roll-by-roll reply ``two`` (see ``options``)."""
    if two is None:
        return g.P[a, d]
    T = np.empty((len(a), len(MOVES)))
    for k in (1, 2, 3):
        at = a == k
        if not at.any():
            continue
        block = two[CLASS_ROWS[k - 1]:CLASS_ROWS[k]]
        if at.all():
            T[:] = g.P[k, 1] + _mm(g.t.dblocks[k - 1], block).T
        else:
            T[at] = g.P[k, 1] + _mm(g.t.dblocks[k - 1], block[:, at]).T
    return T


def decide(g, V, A, D, sl, moves=False):
    """The attacker's dice count for each state, the defender's reply (see ``options``)
    and the value of going on; with ``moves`` also the move probabilities, shape
    (n, 5).  Ties go to more dice."""
    vals, reply, two = options(g, V, A, D, sl)
    best = vals.max(axis=0)
    a = np.where(vals[2] >= best - TOL, 3, np.where(vals[1] >= best - TOL, 2, 1))
    cols = np.arange(len(A))
    d = reply[a - 1, cols]
    res = (a, d, vals[a - 1, cols])
    return res + (moves_for(g, a, d, two),) if moves else res


def go_max(g, V, A, D, sl):
    """The value of going on with both sides at their most dice."""
    amax = g.amax[A]
    NB = g.neighbours(V, sl, A, D, amax)
    return np.einsum("nm,mn->n", g.P[amax, g.dmax[D]], NB)


def max_moves(g, A, D):
    """Move probabilities, shape (n, 5), with both sides at their most dice, and the
    attacker's dice."""
    a = g.amax[A]
    return g.P[a, g.dmax[D]], a
