"""Advice for the player to move at a table, from the same advisors as ``dicewise advise``.

The table's advisor keeps what one game needs between decisions, so nothing is solved twice:
the solved (or fitted) table of the game, and in two-player General the race's values —
the whole-game table, built once with progress where the game needs it, or a sub-game
solved from the sheets of a later position, which holds every position after it too.
"""

from __future__ import annotations

from .. import api
from ..solver.player_sheet import PlayerSheet
from ..solver.protocol import Advice, Game
from ..tables import store


class TableAdvisor:
    """Advice for one table's game: by expected score, for a target, or to win (the exact
    race of two where it is solved, else the game's approximate win policy)."""

    def __init__(self, game: Game, rules, target: int | None = None, race: bool = False,
                 progress=None):
        self.game, self.rules, self.target, self.race = game, rules, target, race
        self.progress = progress
        self._solution = None
        self._race = None  # (values, root masks by seat or None for the whole table)

    @property
    def objective(self) -> str:
        return "target" if self.target is not None else "win" if self.race else "expected_score"

    def solution(self):
        if self._solution is None:
            self._solution = store.solution(self.game, self.rules, progress_factory=self.progress)
        return self._solution

    def advise(self, sheets: list[PlayerSheet], mover: int, dice, roll: int) -> Advice:
        """Every choice of ``mover`` with ``dice`` after roll ``roll``, as ``advise`` ranks it."""
        position = sheets[mover].position(tuple(dice), roll)
        options = self.game.rule_options(self.rules)
        if self.target is not None:
            return api.advise(self.game, options=options, target=self.target,
                              progress=self.progress, **position)
        if self.race and api.exact_race(self.game, len(sheets), options):
            return self._advise_race(sheets, mover, dice, roll)
        if self.race:  # the game's approximate win policy at this table
            rivals = [s.position(tuple(dice), roll) for j, s in enumerate(sheets) if j != mover]
            self.game.check_table_position(self.rules, position, rivals)
            return self.game.advise_table(self.solution(), position, rivals)
        self.game.check_position(self.rules, position)
        return self.game.advise(self.solution(), position)

    def _advise_race(self, sheets, mover: int, dice, roll: int) -> Advice:
        from ..solver.sheet import parse_sheet
        from ..solver.two_player import advise_two_player

        me = parse_sheet(self.rules, sheets[mover].text)
        them = parse_sheet(self.rules, sheets[1 - mover].text)
        masks = [parse_sheet(self.rules, s.text).mask for s in sheets]
        if not self._covers(masks):
            values, _, _, how = api.race_values(self.game, self.rules, sheets[mover].text,
                                          sheets[1 - mover].text, None, self.progress)
            self._race = (values, None if how == "table" else masks)
        return advise_two_player(self._race[0], me, them, tuple(dice), roll,
                                 self.solution().payload)

    def _covers(self, masks) -> bool:
        """Whether the race values at hand hold the position of these sheets (by seat)."""
        if self._race is None:
            return False
        root = self._race[1]
        return root is None or all((m & r) == r for m, r in zip(masks, root))
