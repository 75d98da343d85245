"""Risk's rule options (RULES.md section 5), declared once; the protocol object reads them.

The seed fixes the rules these options default to: ties go to the defender, who chooses
its dice after seeing how many the attacker rolls (not the dice themselves); the
attacker rolls at most 3 dice and the defender at most 2; the deck has no wild cards.
How the players choose within the rules (their dice, when to stop) is not a rule: it is
the ``Policy`` of each question (``policy.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...errors import DicewiseError
from ...i18n import Message
from ..options import option, options_of, validate_options

TIES = ("defender", "attacker")

#: The options the battle commands read, and those the card command reads.
BATTLE_OPTIONS = ("ties", "defender_sees_roll", "max_attacker_dice", "max_defender_dice")
CARD_OPTIONS = ("wild_cards",)


@dataclass(frozen=True)
class RiskRules:
    """The rules of a battle and of the cards, as options (RULES.md section 5)."""

    name: ClassVar[str] = "risk"

    ties: str = option("defender", TIES, "who wins tied dice (RULES.md 5: the defender)")
    defender_sees_roll: bool = option(
        False, help="the defender chooses 1 or 2 dice after seeing the attacker's dice, not "
                    "just how many (the seed: how many); matters only with minimax dice")
    max_attacker_dice: int = option(3, (1, 2, 3), "most dice the attacker rolls in a round")
    max_defender_dice: int = option(2, (1, 2), "most dice the defender rolls in a round")
    wild_cards: int = option(0, minimum=0, maximum=42,
                             help="wild cards in the deck besides the 42 territory cards "
                                  "(the seed has none)")

    def __post_init__(self):
        if self.ties not in TIES:
            raise DicewiseError(Message("ties must be one of {choices}, not {value}",
                                        choices=" | ".join(TIES), value=repr(self.ties)))
        if not isinstance(self.defender_sees_roll, bool):
            raise DicewiseError(Message("defender_sees_roll is true or false, not {value}",
                                        value=repr(self.defender_sees_roll)))
        for key, most in (("max_attacker_dice", 3), ("max_defender_dice", 2)):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
                raise DicewiseError(
                    Message("the attacker rolls at most 1..{most} dice, not {value}",
                            most=most, value=repr(value)) if key == "max_attacker_dice" else
                    Message("the defender rolls at most 1..{most} dice, not {value}",
                            most=most, value=repr(value)))
        if isinstance(self.wild_cards, bool) or not isinstance(self.wild_cards, int):
            raise DicewiseError(Message("wild_cards is a whole number, not {value}",
                                        value=repr(self.wild_cards)))
        validate_options(self)

    @property
    def options(self) -> dict:
        """Every option value, as a plain dict."""
        return options_of(self)

    @property
    def battle_options(self) -> dict:
        """The option values a battle depends on."""
        return {k: getattr(self, k) for k in BATTLE_OPTIONS}
