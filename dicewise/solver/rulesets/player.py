"""A player's sheet of a category game at the table (General, the pokers, Yahtzee, Yatzy).

Each write goes through the engine's own ``write`` (so Yahtzee's jokers and forced
placements, the pokers' roll-1 doubling and bonuses are the solver's), and the new sheet is
read back through ``sheet.parse_sheet``: the text a player sees is exactly what
``advise --sheet`` takes, and its points are the advisor's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .. import dice
from ..category import CategoryRules
from ..player_sheet import PlayerSheet
from ...i18n import Box, Message, box_listing
from ..protocol import BadAction
from ..sheet import Sheet, parse_sheet


@dataclass(frozen=True)
class CategorySheet(PlayerSheet):
    """The boxes written so far (in the order written) and the counters."""

    game: CategoryRules
    scores: tuple[tuple[str, int], ...] = ()
    bonus_count: int = 0  # Yahtzee's bonus Yahtzees
    ended: bool = False  # a first-roll five of a kind ended the game (General)

    @cached_property
    def sheet(self) -> Sheet:
        return parse_sheet(self.game, self.text)

    @property
    def text(self) -> str:
        """The boxes in the sheet's order (not the order written), then the counters."""
        order = self.game.category_names.index
        counters = [f"{name}={self.bonus_count}" for name in self.game.sheet_counters
                    if self.bonus_count]
        return ",".join([f"{n}={s}" for n, s in sorted(self.scores, key=lambda e: order(e[0]))]
                        + counters)

    @property
    def full(self) -> bool:
        return self.sheet.mask == (1 << self.game.n_categories) - 1

    @property
    def done(self) -> bool:
        return self.ended or self.full

    @property
    def points(self) -> float:
        """The boxes and bonuses earned: the final bonus once the sheet is full, or as soon as
        it is earned where it cannot be lost again (``final_bonus_kept``: Yahtzee's and
        Yatzy's upper bonus, since the upper sum never falls)."""
        kept = getattr(self.game, "final_bonus_kept", False)
        bonus = self.game.final_bonus(np.array([self.sheet.extra]))[0] \
            if self.full or kept else 0
        return int(self.sheet.points + bonus)

    def to_json(self) -> dict:
        """The bonuses in ``points`` that no box shows (an upper bonus, bonus Yahtzees)."""
        bonus = self.points - sum(s for _, s in self.scores)
        return {"bonus": bonus} if bonus else {}

    def _writes(self, faces, roll: int) -> dict[str, tuple[int, int]]:
        """Every box allowed now: name -> (score written, bonus count it adds)."""
        r = dice.roll_index(dice.counts_of(faces))
        masks, extras = np.array([self.sheet.mask]), np.array([self.sheet.extra])
        out = {}
        for c, name in enumerate(self.game.category_names):
            if (self.sheet.mask >> c) & 1:
                continue
            w = self.game.write(c, roll, masks, extras)
            points, bonus, legal, _ = (a[0] for a in w.at(np.array([r]), np.array([0]), 1))
            if legal:
                out[name] = (int(round(points - bonus)), int(bonus > 0))
        return out

    def legal(self, faces, roll: int) -> list[dict]:
        return [{"write": name} for name in self._writes(faces, roll)]

    def refusal(self, action: dict, faces, roll: int):
        """A box already written, a rule of the game's order (the pokers' free figures after
        the obligatory ones), or Yahtzee's official placement of a further Yahtzee."""
        box = action.get("write") if isinstance(action, dict) else None
        names = self.game.category_names
        if box not in names:
            return None
        if box in dict(self.scores):
            return Message("{box} is written already", box=Box(self.game.name, box))
        explain = getattr(self.game, "why_unreachable", None)
        if explain is not None:
            scores = {names.index(n): s for n, s in self.scores}
            why = explain({**scores, names.index(box): 0})  # which box is open, not its score
            if why is not None:
                return why
        if getattr(self.game, "joker", None) == "forced":
            # RULES.md, yahtzee joker=forced: the only rule that shuts an open box
            return Message("a further Yahtzee goes to its face's upper box while that is open, "
                           "else to an open lower box (joker=forced); here: {allowed}",
                           allowed=box_listing(self.game.name, self._writes(faces, roll)))
        return None

    def write(self, action: dict, faces, roll: int) -> "CategorySheet":
        box = action.get("write") if isinstance(action, dict) else None
        allowed = self._writes(faces, roll)
        if box not in allowed:
            names = self.game.category_names
            why = ("is already written" if box in dict(self.scores) else
                   "is not allowed with these dice" if box in names else "is no box of this game")
            raise BadAction(f"{box} {why} (allowed: {', '.join(allowed)})")
        score, bonus = allowed[box]
        return CategorySheet(self.game, self.scores + ((box, score),), self.bonus_count + bonus)

    def wins_at_once(self, faces, roll: int) -> bool:
        ends = self.game.first_roll_end()
        return (roll == 1 and ends is not None
                and not np.isnan(ends[dice.roll_index(dice.counts_of(faces))]))

    def at_once_reason(self):
        return Message("five of a kind on the first throw")

    def end_at_once(self) -> "CategorySheet":
        """The sheet of a game a first-roll five of a kind ended (nothing more is written)."""
        return CategorySheet(self.game, self.scores, self.bonus_count, True)
