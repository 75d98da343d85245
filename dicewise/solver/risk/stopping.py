"""When the attacker stops: the objectives a battle is solved for, as grid values.

RULES.md section 5 lets the attacker stop after any round.  ``conquest`` values a
conquest 1 and anything else 0, and never stops; ``expected-armies`` values the end
``A - D`` (plus the policy's exchange value for a conquest) and stops wherever stopping,
worth ``A - D`` now, is at least as good as going on; ``threshold`` plays conquest's dice
and stops wherever P(conquer) from the state is below the policy's threshold.
"""

from __future__ import annotations

import numpy as np

from .markov import Grid, Solved, backward
from .policy import Policy, check_play
from .rules import RiskRules


def objective_grid(rules: RiskRules, policy: Policy, a_hi: int, d_hi: int) -> Grid:
    """The grid whose backward values are the policy's objective (threshold: conquest)."""
    A = np.arange(a_hi + 1, dtype=float)
    D = np.arange(d_hi + 1, dtype=float)
    if policy.objective == "expected-armies":
        c = policy.exchange_value
        return Grid(rules, policy, a_hi, d_hi, win=A + c, lose=1.0 - D,
                    stop=lambda a, d: (a - d).astype(float))
    return Grid(rules, policy, a_hi, d_hi, win=np.ones(a_hi + 1), lose=np.zeros(d_hi + 1))


def solve_objective(rules: RiskRules, policy: Policy, a_hi: int, d_hi: int, progress=None,
                    always: bool = False) -> tuple[Grid, Solved | None, np.ndarray | None]:
    """The grid, its solution (the objective's values; conquest's for threshold) and its
    stopping states.  Max dice to the end need no values, so none are computed unless
    ``always``."""
    check_play(rules, policy)  # before the policy's fields are read
    g = objective_grid(rules, policy, a_hi, d_hi)
    if policy.objective == "conquest" and policy.dice == "max" and not always:
        return g, None, None
    solved = backward(g, progress)
    stopped = solved.stopped
    if policy.objective == "threshold":
        stopped = np.zeros(g.size, dtype=bool)
        for _, _, sl in g.diagonals():
            stopped[sl] = solved.values[sl] < policy.threshold
    return g, solved, stopped


def stop_advice(policy: Policy, solved: Solved, idx: int, attacker: int,
                defender: int) -> tuple[float | None, bool]:
    """At the state in flat position ``idx``: the value of stopping there (None where the
    objective never stops) and whether to go on."""
    if policy.objective == "expected-armies":
        return float(attacker - defender), not bool(solved.stopped[idx])
    if policy.objective == "threshold":
        return 0.0, bool(solved.values[idx] >= policy.threshold)
    return None, True
