"""Playing for a target in the lockstep simulator: ``TargetChooser`` and ``simulate_target``.

The chooser plays each game's turn for P(final ≥ T) from its (state, need), and where the
target is settled follows the expected-score policy; ``rulesets/simulate.py``'s
``play_lockstep`` plays the games on its common dice stream.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...errors import DicewiseError
from ..category import CategoryRules
from ..rulesets.decisions import plan_turns, planned_keeps, write_options
from ..rulesets.simulate import GameRecords, play_lockstep
from .decisions import settled, target_plan, write_chances
from .values import TargetValues


def simulate_target(game: CategoryRules, values: TargetValues, target: int, games: int, seed: int,
                    progress: Callable[[int], None] | None = None,
                    expected: np.ndarray | None = None, boxes: bool = True) -> GameRecords:
    """Play ``games`` games aiming at P(final ≥ target), in lockstep, on the dice stream that
    ``simulate_games`` uses with the same seed.  Where the target is settled (reached, or out
    of reach: every choice then has the same chance) the games follow the expected-score
    policy of ``expected`` values if given, else write at once in the first open box.
    ``boxes`` False keeps only the scores and early ends, so long runs take little memory."""
    values.require_target(target)
    if values.initial_state != game.initial_state or values.start_points:
        raise DicewiseError("simulation starts from the empty sheet: solve from it")
    return play_lockstep(game, TargetChooser(game, values, target, expected), games, seed, progress,
                         boxes)


class TargetChooser:
    """The lockstep simulator's decisions when playing for P(final ≥ target)."""

    def __init__(self, game: CategoryRules, values: TargetValues, target: int,
                 expected: np.ndarray | None):
        self.game, self.values, self.target, self.expected = game, values, target, expected

    def plan(self, states, points):
        game = self.game
        self.need = need = np.ceil(self.target - points).astype(np.int64)
        self.aim = aim = ~settled(self.values, states, need)
        # A plan column per distinct (state, need) of the games still aiming.
        self.cols, self.turn = np.full(len(states), -1), None
        if aim.any():
            pairs, inv = np.unique(np.stack([states[aim], need[aim]], axis=1), axis=0,
                                   return_inverse=True)
            self.turn = target_plan(game, self.values, pairs[:, 0], pairs[:, 1])
            self.cols[aim] = inv.reshape(-1)
        self.calm_cols, self.calm_turn = np.full(len(states), -1), None
        if self.expected is not None and (~aim).any():
            calm_states, inv = np.unique(states[~aim], return_inverse=True)
            self.calm_turn = plan_turns(game, self.expected, *np.divmod(calm_states, game.n_extra))
            self.calm_cols[~aim] = inv.reshape(-1)

    def keep(self, todo, masks, extras, rolls, roll_number):
        keep = np.full(len(todo), -1)
        a = self.aim[todo]
        if a.any():
            keep[a] = planned_keeps(self.turn, self.cols[todo[a]], rolls[a], roll_number)
        if self.calm_turn is not None and (~a).any():
            keep[~a] = planned_keeps(self.calm_turn, self.calm_cols[todo[~a]], rolls[~a],
                                     roll_number)
        return keep

    def write(self, todo, masks, extras, rolls, roll_number):
        chances, opts = write_chances(self.game, self.values, masks, extras, self.need[todo],
                                      rolls, roll_number)
        write = chances.argmax(axis=1)
        calm = ~self.aim[todo]
        if calm.any():
            if self.expected is not None:
                by_score = write_options(self.game, self.expected, masks[calm], extras[calm],
                                         rolls[calm], roll_number)
                write[calm] = by_score.value.argmax(axis=1)
            else:
                write[calm] = np.isfinite(chances[calm]).argmax(axis=1)
        return write, opts
