"""The two-player race: every decision valued by P(win) + ½P(draw), and the referee that
judges an agent playing the race against the win-optimal player."""

from __future__ import annotations

import numpy as np

from ..protocol import Advice, DicewiseError, Game, Played, Solution, observed_roll


class RaceReferee:
    """Judges decisions in the race from two sheets: episodes against the win-optimal player
    (seats alternating game by game), every decision valued by P(win) + ½P(draw), the
    reference player the win-optimal one in the agent's seat, on the same dice."""

    def __init__(self, game: Game, values, first, second):
        from ..two_player import WinPolicy

        self.game, self.values, self.first, self.second = game, values, first, second
        self.policy = WinPolicy(values)
        self.name, self.exact = game.name, True

    def rule_options(self, rules) -> dict:
        return self.game.rule_options(rules)

    def canonical_action(self, action) -> dict:
        return self.game.canonical_action(action)

    def episodes(self, solution: Solution, seed: int, games: int):
        from ..two_player.episode import RaceEpisode

        return (RaceEpisode(self.values, self.policy, self.first, self.second, i, seed)
                for i in range(games))

    def episode(self, solution: Solution, seed: int, index: int):
        from ..two_player.episode import RaceEpisode

        return RaceEpisode(self.values, self.policy, self.first, self.second, index, seed)

    def advise_observation(self, solution: Solution, observation) -> Advice:
        from ..sheet import parse_sheet
        from ..two_player import advise_two_player as advise_race

        rules = self.values.game
        try:
            roll = observed_roll(observation)
        except (KeyError, TypeError):
            raise DicewiseError("an observation has dice, roll and sheet, as the agent protocol "
                                "writes them") from None
        sheets = [parse_sheet(rules, ",".join(f"{k}={v}" for k, v in observation[key].items()))
                  for key in ("sheet", "opponent_sheet")]
        return advise_race(self.values, *sheets, observation["dice"], roll)

    def play(self, solution: Solution, policy: str, games: int, seed: int, progress=None) -> Played:
        """The win-optimal player in the agent's seat, on the same dice."""
        scores = []
        for ep in self.episodes(solution, seed, games):
            while not ep.done:
                ep.apply(self.advise_observation(solution, ep.observation()).best.action)
            scores.append(ep.score)
        return Played(np.asarray(scores, np.float64))
