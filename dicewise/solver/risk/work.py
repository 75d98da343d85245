"""How much work a Risk solve is: its states weighted by what the dice policy costs each.

Only for showing progress: a command shows a bar when a solve's work is large, and the
solvers report their steps (``battle_steps``, ``table_steps``, ``chain_steps``) to it.
"""

from __future__ import annotations

from typing import Sequence

from .policy import Policy
from .rules import RiskRules

#: The work of one state, by the dice policy and what the defender sees: a minimax round
#: weighs each of the attacker's counts against the defender's replies (measured, roughly).
_STATE_COST = {("max", False): 1, ("minimax", False): 4, ("minimax", True): 12}


def _cost(rules: RiskRules, policy: Policy) -> int:
    return _STATE_COST.get((policy.dice, rules.defender_sees_roll), 1)  # else refused


def battle_work(attacker: int, defender: int, rules: RiskRules, policy: Policy) -> int:
    """The work of ``battle`` at A v D (``advise`` solves it and then plays it: twice)."""
    if not (isinstance(attacker, int) and isinstance(defender, int)):
        return 0
    return max(0, attacker) * max(0, defender) * _cost(rules, policy)


def table_work(n: int, rules: RiskRules, policy: Policy) -> int:
    """The work of ``conquest_table(n)``."""
    return battle_work(n, n, rules, policy)


def chain_work(armies: int, defenders: Sequence[int], rules: RiskRules, policy: Policy) -> int:
    """The work of ``chain_attack``: one battle per territory, each up to ``armies``."""
    return battle_work(armies, sum(defenders), rules, policy)


def chain_steps(armies: int, defenders: Sequence[int]) -> int:
    """How many progress steps ``chain_attack`` reports (one per diagonal of each battle)."""
    return sum(max(0, armies + d - 2) for d in defenders)
