"""A player's Ryzykant sheet at the table: every roll, own or a rival's, split 2 + 2 + 1.

Each player plays a solitaire game on the shared rolls (RULES.md section 4); a player whose
tenth fifth-die mark ended the game stops splitting while the others go on.  Splits are
played by ``rules.play``; the text is the ``advise --sheet`` notation and ``fifth`` the
``--fifth`` one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ...i18n import Message
from .. import dice
from ..player_sheet import PlayerSheet
from ..protocol import BadAction
from . import rules as rz
from .rules import Position, RyzykantRules


def _split_action(move: rz.Move) -> dict:
    from .game import split_action

    return split_action(*move.pairs, move.fifth)


@dataclass(frozen=True)
class RyzykantSheet(PlayerSheet):
    """The marks so far and whether this player's game has ended."""

    rules: RyzykantRules
    pos: Position = field(default_factory=Position)
    ended: bool = False

    @property
    def text(self) -> str:
        return self.pos.sheet

    @property
    def points(self) -> int:
        return self.pos.score

    @property
    def done(self) -> bool:
        return self.ended

    def _moves(self, faces):
        return rz.moves(self.rules, self.pos, dice.roll_index(dice.counts_of(faces)))

    def legal(self, faces, roll: int = 1) -> list[dict]:
        return [_split_action(m) for m in self._moves(faces)]

    def write(self, action: dict, faces, roll: int = 1) -> "RyzykantSheet":
        from .game import RYZYKANT

        action = RYZYKANT.canonical_action(action)
        for m in self._moves(faces):
            if _split_action(m) == action:
                pos, ended = rz.play(self.rules, self.pos, dice.roll_index(dice.counts_of(faces)),
                                     m.slot)
                return RyzykantSheet(self.rules, pos, ended)
        (a, b), (c, d) = action["pairs"]
        raise BadAction(f"{a}+{b} {c}+{d} {action['fifth']} is not a split of the dice "
                        f"{' '.join(map(str, faces))} allowed here")

    def refusal(self, action: dict, faces, roll: int = 1):
        """A split that uses dice the roll does not show, or a fifth die of a fourth face
        while the roll shows one of the three chosen (RULES.md section 4)."""
        try:
            (a, b), (c, d) = action["pairs"]
            used = Counter([a, b, c, d, action["fifth"]])
        except (KeyError, TypeError, ValueError):
            return None
        if used != Counter(faces):
            return Message("the split {split} does not use the dice {dice}, each once",
                           split=f"{a}+{b} {c}+{d} {action['fifth']}",
                           dice=" ".join(map(str, faces)))
        chosen = [f for f in range(1, 7) if self.pos.lower[f - 1]]
        shown = [f for f in chosen if f in faces]
        if len(chosen) >= 3 and shown and action["fifth"] not in chosen:
            return Message("the three fifth-die faces are chosen ({chosen}) and the roll shows "
                           "{shown}: the fifth die must be one of them",
                           chosen=", ".join(map(str, chosen)), shown=", ".join(map(str, shown)))
        return None

    def position(self, faces, roll: int = 1) -> dict:
        return {"dice": list(faces), "sheet": self.pos.sheet, "fifth": self.pos.fifth}

    def to_json(self) -> dict:
        return {"fifth": self.pos.fifth, "rolls": self.pos.rolls}
