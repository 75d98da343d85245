"""Whole battles, exactly: how a battle ends, and P(conquer) for every start at once.

``battle`` solves one start under a policy (the dice and the objective) and pushes the
probability mass forward to the end: P(conquer), both survivors' distributions, expected
losses, where the attacker stops.  ``conquest_table`` values every start ``A, D <= n``
with one backward pass.  ``A`` counts every army on the attacking territory (RULES.md
section 5: it rolls at most ``A - 1`` dice).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message, Number
from .markov import MAX_STATES, Grid, Solved, backward, check_armies, forward
from .policy import Policy, check_play
from .rules import RiskRules
from .stopping import objective_grid, solve_objective


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


def battle(attacker: int, defender: int, rules: RiskRules = RiskRules(),
           policy: Policy = Policy(), progress=None) -> Battle:
    """Solve one battle exactly: P(conquer), survivors' distributions, expected losses.

    ``attacker`` counts every army on the attacking territory (RULES.md section 5: it
    rolls at most A - 1 dice).
    """
    check_armies(attacker, defender)
    return outcome(*solve_objective(rules, policy, attacker, defender, progress), attacker,
                   defender, progress)


def battle_steps(attacker: int, defender: int, policy: Policy = Policy()) -> int:
    """How many progress steps ``battle`` reports (one per diagonal and pass), after
    checking the armies as ``battle`` does."""
    check_armies(attacker, defender)
    passes = 1 if policy.objective == "conquest" and policy.dice == "max" else 2
    return passes * max(0, attacker + defender - 2)


def outcome(g: Grid, solved: Solved | None, stopped, attacker: int, defender: int,
            progress=None) -> Battle:
    """The forward pass of ``battle`` on a solved grid."""
    rules, policy = g.rules, g.policy
    mass = np.zeros(g.size)
    start = g.index(attacker, defender)
    mass[start] = 1.0
    mass, _ = forward(g, mass, solved, stopped, attacker + defender, progress=progress)
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
    check_play(rules, policy)
    g = objective_grid(rules, policy.to_the_end(), n, n)
    V = g.to_grid(backward(g, progress).values)
    V[0] = np.nan
    V[1, 0] = 1.0
    return V


def check_table_size(n: int) -> None:
    """Refuse a table bound that is not a whole number >= 2 or would not fit in memory."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise DicewiseError(Message("the table bound must be a whole number >= 2, not {value}",
                                    value=repr(n)))
    if n * n > MAX_STATES:
        raise DicewiseError(Message("a table up to {n} has {entries} entries, more than the "
                                    "{most} allowed in memory (at most {largest})", n=n,
                                    entries=Number(n * n), most=Number(MAX_STATES),
                                    largest=int(MAX_STATES ** .5)))


def table_steps(n: int) -> int:
    """How many progress steps ``conquest_table(n)`` reports."""
    return max(0, 2 * n - 2)
