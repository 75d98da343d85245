"""One race played by an agent against the win-optimal player, decision by decision.

The agent holds one seat (the player to move at the start in even games, the other in odd
ones); the win-optimal policy of the solved race plays the other seat's whole turns.  The
agent's outcome is 1 for a win, ½ for a draw, 0 for a loss, so its mean is its
P(win) + ½·P(draw).  Game ``index`` of seed ``seed`` throws its own stream of dice, turn by
turn: a roll that rerolls n dice takes the first n faces of that throw.
"""

from __future__ import annotations

import numpy as np

from .. import dice
from ..protocol import BadAction, Episode
from ..rulesets.simulate import roll_from
from ..sheet import Sheet
from .duel import WinPolicy
from .space import TwoPlayerValues, two_player_rules


def race_stream(seed: int, index: int, turns: int) -> np.ndarray:
    """(turns, 3, 5) faces of game ``index``: its own generator, so games need no order."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, index, 0x2ACE]))
    return rng.integers(1, 7, size=(turns, 3, dice.N_DICE), dtype=np.int8)


class RaceEpisode(Episode):
    """The race from two sheets (turn starts, ``first`` to move), the agent in ``seat``."""

    def __init__(self, values: TwoPlayerValues, policy: WinPolicy, first: Sheet, second: Sheet,
                 index: int, seed: int):
        self.values, self.policy = values, policy
        self.game = values.game
        self.rules = two_player_rules(self.game)
        self.names = self.game.category_names
        self.index, self.seat = index, index % 2  # 0: the agent moves first from the start
        self.masks = [first.mask, second.mask]
        self.points = [first.points, second.points]
        self.sheets = [dict(first.scores), dict(second.scores)]
        n = self.rules.n
        turns = 2 * n - bin(first.mask).count("1") - bin(second.mask).count("1")
        self.stream = race_stream(seed, index, max(turns, 1))
        self.side, self.turn, self.winner = 0, 0, None
        self._start_turn()

    # --- the dice and the opponent -------------------------------------------------------

    def _throw(self, roll: int) -> None:
        self.roll_number = roll
        faces = self.stream[self.turn, roll - 1].astype(np.int64)
        self.roll = int(roll_from(self.kept[None, :], faces[None, :])[0])
        if roll == 1 and self.rules.ends[self.roll]:
            self.winner = self.side  # a first-roll five of a kind wins at once (RULES.md §1)

    def _start_turn(self) -> None:
        """Throw for the side to move; the opponent's turns are played to the end here."""
        while not self.done:
            self.kept = np.zeros(dice.N_FACES, np.int64)
            self._throw(1)
            if self.done or self.side == self.seat:
                return
            self._opponent_turn()

    def _opponent_turn(self) -> None:
        s = self.side
        dec = self.policy.decisions(np.array([self.masks[s]]), np.array([self.masks[1 - s]]),
                                    np.array([self.points[s] - self.points[1 - s]]))
        for k in (1, 2, 3):
            keep = int(dec.keep[k - 1][self.roll, 0]) if k < 3 else -1
            if keep < 0:
                self._write(int(dec.box[k - 1][self.roll, 0]))
                return
            self.kept = dice.KEEPS[keep].astype(np.int64)
            self._throw(k + 1)

    def _write(self, box: int) -> float:
        s = self.side
        points = int(self.rules.points[box, self.roll_number - 1, self.roll])
        self.masks[s] |= 1 << box
        self.points[s] += points
        self.sheets[s][self.names[box]] = points
        self.side, self.turn = 1 - s, self.turn + 1
        return float(points)

    # --- the protocol ------------------------------------------------------------------

    @property
    def done(self) -> bool:
        full = (1 << self.rules.n) - 1
        return self.winner is not None or (self.masks[0] == full and self.masks[1] == full)

    @property
    def score(self) -> float:
        """The agent's outcome once done (1, ½ or 0); its lead's sign before."""
        if self.winner is not None:
            return 1.0 if self.winner == self.seat else 0.0
        lead = self.points[self.seat] - self.points[1 - self.seat]
        return 1.0 if lead > 0 else 0.5 if lead == 0 else 0.0

    def observation(self) -> dict:
        me, them = self.seat, 1 - self.seat
        faces = dice.faces_of(dice.ROLLS[self.roll])
        legal = []
        if self.roll_number < 3:
            legal = [{"keep": dice.faces_of(dice.KEEPS[k])} for k in dice.sub_keeps(self.roll)]
        legal += [{"write": name} for c, name in enumerate(self.names)
                  if not self.masks[me] >> c & 1]
        return {"ruleset": self.game.name, "options": self.game.options, "players": 2,
                "game": self.index, "turn": self.turn + 1, "roll": self.roll_number,
                "dice": faces, "seat": "first" if me == 0 else "second",
                "sheet": dict(self.sheets[me]), "opponent_sheet": dict(self.sheets[them]),
                "points": self.points[me], "opponent_points": self.points[them], "legal": legal}

    def apply(self, action: dict) -> float:
        if self.done:
            raise BadAction("the game is over")
        (kind, arg), = action.items()
        if kind == "keep":
            if self.roll_number >= 3:
                raise BadAction("no roll is left: write a box")
            kept = dice.counts_of(arg)
            if (kept > dice.ROLLS[self.roll]).any():
                raise BadAction(f"cannot keep {arg} from dice {dice.faces_of(dice.ROLLS[self.roll])}")
            self.kept = kept.astype(np.int64)
            self._throw(self.roll_number + 1)
            return 0.0
        if arg not in self.names or self.masks[self.seat] >> self.names.index(arg) & 1:
            raise BadAction(f"cannot write {arg!r} now")
        points = self._write(self.names.index(arg))
        self._start_turn()
        return points
