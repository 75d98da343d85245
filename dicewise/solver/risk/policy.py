"""How the two sides play within the rules: their dice, and the attacker's objective.

A policy is a question, not a rule: the same battle is solved for the most dice or for
minimax dice, for conquest or for armies.  ``check_play`` refuses a policy the rules make
meaningless (a defender who sees the roll only matters where it chooses its dice).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message
from .rules import RiskRules

DICE_MODES = ("max", "minimax")
OBJECTIVES = ("conquest", "expected-armies", "threshold")


@dataclass(frozen=True)
class Policy:
    """How both sides choose their dice, and the attacker's objective (when to stop).

    ``dice``: ``max`` (both sides always roll the most dice allowed) or ``minimax`` (the
    attacker picks its count to maximise its objective, the defender picks its reply to
    minimise it: a zero-sum reading of the defender's interest).  ``objective``:
    ``conquest`` maximises P(conquer) and never stops; ``expected-armies`` maximises
    E[attacker armies - defender armies] at the end, plus ``exchange_value`` for a
    conquest, stopping when going on does not pay; ``threshold`` plays the dice of
    ``conquest`` and stops as soon as P(conquer) from the current state is below
    ``threshold``.
    """

    dice: str = "max"
    objective: str = "conquest"
    exchange_value: float = 0.0
    threshold: float = 0.5

    def __post_init__(self):
        if self.dice not in DICE_MODES:
            raise DicewiseError(Message("dice must be one of {choices}, not {value}",
                                        choices=" | ".join(DICE_MODES), value=repr(self.dice)))
        if self.objective not in OBJECTIVES:
            raise DicewiseError(Message("objective must be one of {choices}, not {value}",
                                        choices=" | ".join(OBJECTIVES),
                                        value=repr(self.objective)))
        if not np.isfinite(self.exchange_value) or abs(self.exchange_value) > 1e9:
            raise DicewiseError(Message("exchange value must be a number from -1e9 to 1e9, not "
                                        "{value}", value=self.exchange_value))
        if not 0.0 <= self.threshold <= 1.0:
            raise DicewiseError(Message("threshold must be between 0 and 1, not {value}",
                                        value=self.threshold))

    def to_the_end(self) -> Policy:
        """The same dice, fighting to the end for conquest (tables and chains)."""
        return Policy(dice=self.dice)


def check_play(rules: RiskRules, policy: Policy) -> None:
    """Refuse rules or a policy of another type (from Python: ``rules={"ties": ...}``), and a
    defender who sees the roll under max dice: it has no choice to make."""
    for name, value, kind in (("rules", rules, RiskRules), ("policy", policy, Policy)):
        if not isinstance(value, kind):
            raise DicewiseError(Message("{name} takes a {kind} (such as {kind}()), not {value}",
                                        name=name, kind=kind.__name__, value=repr(value)))
    if rules.defender_sees_roll and policy.dice != "minimax":
        raise DicewiseError(Message("defender_sees_roll needs --dice minimax (with max dice "
                                    "the defender has no choice to make)"))
