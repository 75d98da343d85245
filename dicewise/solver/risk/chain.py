"""Chain attacks: conquering a path of territories in order, moving armies forward.

Backward over the chain, ``W_k(A)`` = P(conquering territories k.. in order with ``A``
armies on the territory that attacks k); the battle for territory k is solved with a
conquest worth ``W_{k+1}(armies moved in)``, which depends on the dice of the last round
(the minimum move-in of RULES.md section 5), so minimax dice maximise P(all conquered),
not the single battle's P(conquer).  The forward pass then carries the distribution of
armies from battle to battle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message, Number
from .markov import MAX_ARMIES, MAX_STATES, Grid, backward, check_armies, forward
from .policy import Policy, check_play
from .rules import RiskRules


@dataclass(frozen=True)
class Chain:
    """An attack along territories held by ``defenders``, in order, from ``armies``.

    ``reached[j]``: P(exactly j territories conquered); ``p_all = reached[-1]``;
    ``expected_final_armies``: E[armies on the last territory | all conquered], NaN where
    nothing conquers them all (a conquered territory holds at least one army, so 0 would be
    a wrong answer);
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
        raise DicewiseError(Message("a chain needs at least one defending territory"))
    if len(defenders) > 100:
        raise DicewiseError(Message("a chain of {n} territories is longer than the 100 allowed",
                                    n=len(defenders)))
    for d in defenders:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
            raise DicewiseError(Message("every territory on the chain needs at least 1 "
                                        "defender, not {value}", value=repr(d)))
    if isinstance(garrison, bool) or not isinstance(garrison, (int, np.integer)) or garrison < 1:
        raise DicewiseError(Message("the garrison left behind must be at least 1 army, not "
                                    "{value}", value=repr(garrison)))
    return defenders


def _check_target(target) -> None:
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0.0 < target < 1.0:
        raise DicewiseError(Message("the target probability must be strictly between 0 and 1, "
                                    "not {value}", value=target))


def check_chain(armies: int, defenders: Sequence[int], garrison: int,
                target: float | None = None) -> tuple[int, ...]:
    """Refuse a chain attack (and a target for ``min_armies``) that is malformed or would
    not fit in memory; the defenders."""
    defenders = _check_chain(defenders, garrison)
    if target is not None:
        _check_target(target)
    check_armies(armies, max(defenders), what="chain")
    if armies * sum(defenders) > MAX_STATES:
        raise DicewiseError(Message("this chain has {states} states, more than the {most} "
                                    "allowed in memory", states=Number(armies * sum(defenders)),
                                    most=Number(MAX_STATES)))
    return defenders


def _move_in(A: np.ndarray, a: int, garrison: int) -> np.ndarray:
    """Armies moved into a conquered territory: all but the garrison, but at least the dice
    of the last round (RULES.md section 5), and never the last army."""
    garrison = min(garrison, len(A))  # more than every army here is all (10**30 fits no int64)
    return np.minimum(np.maximum(A - garrison, a), A - 1)


def _chain_grids(a_hi, defenders, garrison, rules, policy, progress=None):
    """Backward over the chain: per battle its grid and solution; W[k][A] = P(conquer
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
        g = Grid(rules, policy, a_hi, Dk, win=win, lose=np.zeros(Dk + 1))
        solved = backward(g, progress)
        grids[t] = (g, solved)
        W_next = np.zeros(a_hi + 1)
        W_next[2:] = solved.values[g.index(A[2:], Dk)]
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
    check_play(rules, policy)
    grids, _ = _chain_grids(armies, defenders, garrison, rules, policy.to_the_end(), progress)
    k = len(defenders)
    start = np.zeros(armies + 1)
    start[armies] = 1.0
    reached = np.zeros(k + 1)
    left = 0.0  # expected armies left behind as garrisons
    A = np.arange(armies + 1)
    for t in range(k):
        g, solved = grids[t]
        Dk = defenders[t]
        mass = np.zeros(g.size)
        live = np.nonzero(start[2:])[0] + 2
        mass[g.index(live, Dk)] = start[live]
        reached[t] += start[1] + start[0]  # could not even attack
        mass, conq = forward(g, mass, solved, None, armies + Dk, track=True)
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
                 expected_final_armies=final / p_all if p_all > 0 else math.nan,
                 expected_armies_left=left + final + front_fail)


def search_bound(defenders: Sequence[int], garrison: int = 1) -> int:
    """The armies up to which ``min_armies`` solves first (doubled until the target is
    reached), to size its progress: ``chain_steps(search_bound(...), defenders)`` steps.
    Where that would not fit in memory, the most armies that fit: the answer is often far
    below twice the defenders (2,307 against 2 and 2,500 for 0.99), and a search that
    cannot reach the target there says so."""
    return min(2 * sum(defenders) + 4 * len(defenders) * garrison + 8, _most(defenders))


def _most(defenders: Sequence[int]) -> int:
    """The most attacking armies whose search against ``defenders`` fits in memory (2 at
    least: a chain holds at most 100 territories of 50,000 armies)."""
    return min(MAX_STATES // sum(defenders), MAX_ARMIES)


def min_armies(defenders: Sequence[int], target: float, garrison: int = 1,
               rules: RiskRules = RiskRules(), policy: Policy = Policy(),
               progress=None) -> tuple[int, float]:
    """The fewest armies on the starting territory with P(all conquered) >= ``target``,
    and that probability.  Searches A = 2, 3, ... by solving all of them at once."""
    defenders = _check_chain(defenders, garrison)
    _check_target(target)
    check_play(rules, policy)
    policy = policy.to_the_end()
    a_hi = search_bound(defenders, garrison)
    while True:
        _, W = _chain_grids(a_hi, defenders, garrison, rules, policy, progress)
        hit = np.nonzero(W[0] >= target)[0]
        if hit.size:
            return int(hit[0]), float(W[0][hit[0]])
        if a_hi >= _most(defenders):
            raise DicewiseError(Message("the search for P(all conquered) >= {target} needs "
                                        "more memory than allowed (none up to {armies} reach "
                                        "it)", target=target, armies=Number(a_hi)))
        a_hi = min(2 * a_hi, _most(defenders))
