"""Play for a target: every choice ranked by P(final ≥ T), and the referee that judges an
agent's decisions by the probability of reaching T that each loses."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..protocol import Advice, Game, Played, Solution, observed_roll


def rank_for_target(game: Game, base: Solution, tsol: Solution, sheet, dice, roll,
                    target: int) -> Advice:
    """Every choice by P(final ≥ target), its expected final score beside (which ranks the
    choices of one chance: all of them where the target is out of reach or certain), and the
    choice of the expected-score policy named."""
    from ..advice import advise_position, ranked_by_chance
    from ..target.advice import advise_target as rank

    rules = game.category_rules(base.rules)
    sheet_ = game.target_sheet(base.rules, sheet)
    ranked = rank(rules, tsol.payload, sheet_, dice, roll, target)
    by_mean = advise_position(rules, game.state_values(base), sheet_, dice, roll)
    expected = {str(c.action): c.expected for c in by_mean.choices}
    choices = ranked_by_chance(replace(c, expected=expected[str(c.action)]) for c in ranked.choices)
    return replace(ranked, choices=choices, turn_start_expected=by_mean.turn_start_expected,
                   expected_score_choice=by_mean.best.action if by_mean.best else None)


class TargetReferee:
    """Judges decisions by P(final ≥ target): the game's own episodes and actions, advice
    ranked by that probability, the reference player the one that plays for the target."""

    def __init__(self, game: Game, target: int, base: Solution, tsol: Solution):
        self.game, self.target, self.base, self.tsol = game, target, base, tsol
        self.name, self.exact = game.name, game.exact

    def rule_options(self, rules) -> dict:
        return self.game.rule_options(rules)

    def canonical_action(self, action) -> dict:
        return self.game.canonical_action(action)

    def episodes(self, solution: Solution, seed: int, games: int):
        return (_ForTarget(e, self.target) for e in self.game.episodes(self.base, seed, games))

    def episode(self, solution: Solution, seed: int, index: int):
        return _ForTarget(self.game.episode(self.base, seed, index), self.target)

    def advise_observation(self, solution: Solution, observation) -> Advice:
        by_mean = self.game.advise_observation(self.base, observation)
        sheet = ",".join(f"{k}={v}" for k, v in by_mean.position["sheet"].items())
        return rank_for_target(self.game, self.base, self.tsol, sheet, observation["dice"],
                               observed_roll(observation), self.target)

    def play(self, solution: Solution, policy: str, games: int, seed: int, progress=None) -> Played:
        """The player for the target on the dice of ``seed`` (whatever ``policy`` names)."""
        from ..target.chooser import simulate_target

        records = simulate_target(self.game.category_rules(self.base.rules), self.tsol.payload,
                                  self.target, games, seed, progress,
                                  expected=self.game.state_values(self.base).values, boxes=False)
        return Played(np.asarray(records.scores, np.float64))


class _ForTarget:
    """A game's episode whose observations say the target played for: the agent knows its
    goal, and a log of them tells ``review`` how to judge it."""

    def __init__(self, episode, target: int):
        self._episode, self.target = episode, target

    def observation(self) -> dict:
        return {**self._episode.observation(), "target": self.target}

    def __getattr__(self, name):
        return getattr(self._episode, name)
