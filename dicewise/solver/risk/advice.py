"""What the attacker should do now: the dice to roll, go on or stop, and the numbers why.

One backward solve of the battle under the policy gives the value of every dice count at
the current state (after the defender's best reply), the stopping decision of the
objective (``stopping.py``), and the forward pass gives P(conquer) under that play.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .battles import outcome
from .dice_choice import decide, options
from .markov import check_armies
from .policy import Policy
from .rules import RiskRules
from .stopping import solve_objective, stop_advice


@dataclass(frozen=True)
class DiceOption:
    """One dice count for the attacker: the defender's best reply (0 where it replies to the
    attacker's dice as rolled) and the objective's value after that round."""

    attacker_dice: int
    defender_dice: int
    value: float


@dataclass(frozen=True)
class BattleAdvice:
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


def advise_steps(attacker: int, defender: int) -> int:
    """How many progress steps ``advise`` reports (a backward and a forward pass), after
    checking the armies as ``advise`` does."""
    check_armies(attacker, defender)
    return 2 * max(0, attacker + defender - 2)


def advise(attacker: int, defender: int, rules: RiskRules = RiskRules(),
           policy: Policy = Policy(dice="minimax"), progress=None) -> BattleAdvice:
    """The attacker's best move now under ``policy``, with the numbers behind it."""
    check_armies(attacker, defender)
    g, solved, stopped = solve_objective(rules, policy, attacker, defender, progress,
                                         always=True)
    V = solved.values
    A, D = np.array([attacker]), np.array([defender])
    idx = int(g.index(attacker, defender))
    sl = slice(idx, idx + 1)
    vals, reply, _ = options(g, V, A, D, sl)
    a = int(decide(g, V, A, D, sl)[0][0]) if policy.dice == "minimax" else int(g.amax[attacker])
    if rules.defender_sees_roll:
        reply[:] = 0
    opts = tuple(DiceOption(k, int(reply[k - 1, 0]), float(vals[k - 1, 0]))
                 for k in (1, 2, 3) if np.isfinite(vals[k - 1, 0]))
    b = outcome(g, solved, stopped, attacker, defender, progress)
    stop_value, go_on = stop_advice(policy, solved, idx, attacker, defender)
    return BattleAdvice(attacker=attacker, defender=defender, policy=policy, attacker_dice=a,
                        defender_dice=int(reply[a - 1, 0]), go_on=go_on, value=float(V[idx]),
                        stop_value=stop_value, options=opts, p_conquer=b.p_conquer)
