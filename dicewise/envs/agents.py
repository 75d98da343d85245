"""Baseline agents that play through an environment: ``act(observation, info) -> action``.

They see what any agent sees (the Dict observation and ``info``), so they double as
examples and as checks that the environments carry the whole position: the greedy agent
rebuilds the category game's state from the observation alone.  ``act_batch`` plays the
batched observations of a vector environment (one action per sub-environment).
"""

from __future__ import annotations

import numpy as np

from ..errors import DicewiseError
from ..solver import dice
from .oracle import CategoryOracle


def _one(observation: dict) -> dict:
    """A single observation as a batch of one."""
    return {k: np.asarray(v)[None] for k, v in observation.items()}


class RandomAgent:
    """A uniformly random legal action (``simulate --policy random``)."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict, info: dict | None = None) -> int:
        return int(self.act_batch(_one(observation))[0])

    def act_batch(self, observations: dict, infos: dict | None = None) -> np.ndarray:
        legal = observations["action_mask"] > 0
        return (self.rng.random(legal.shape) * legal).argmax(axis=1)


class OptimalAgent:
    """The oracle's best action (``info["optimal_action"]``, needs ``oracle=True``)."""

    def act(self, observation: dict, info: dict) -> int:
        return int(_best(info))

    def act_batch(self, observations: dict, infos: dict) -> np.ndarray:
        return np.maximum(_best(infos), 0)


def _best(info) -> np.ndarray | int:
    """``info["optimal_action"]``, or why there is none."""
    if not isinstance(info, dict) or "optimal_action" not in info:
        raise DicewiseError("the optimal agent reads info[\"optimal_action\"]: make the "
                            "environment with oracle=True and pass the info of its last step")
    return info["optimal_action"]


class GreedyAgent:
    """Best points this turn, optimal within the turn for that (``simulate --policy greedy``).

    For the category games: the oracle on zero state values, fed with the positions read
    back from the observations (sheet, packed extra state, dice, roll number).
    """

    def __init__(self, env):
        from ..solver.category import CategoryRules

        rules = env.unwrapped.rules
        if not isinstance(rules, CategoryRules):
            raise DicewiseError(f"the greedy agent plays the category games, not {rules.name}")
        self.rules = rules
        self.oracle = CategoryOracle(rules, np.zeros(rules.n_states))

    def positions(self, observations: dict):
        """(masks, extras, rolls, roll numbers) of batched category observations."""
        filled = observations["filled"].astype(np.int64)
        masks = (filled << np.arange(filled.shape[1])).sum(axis=1)
        extras = (observations["extra"][:, 0].astype(np.int64) if "extra" in observations
                  else np.zeros(len(masks), np.int64))
        rolls = (dice.keep_indices(observations["dice"].astype(np.int64))
                 - dice.KEEP_START[dice.N_DICE])
        return masks, extras, rolls, observations["roll"][:, 0].astype(np.int64)

    def act(self, observation: dict, info: dict | None = None) -> int:
        return int(self.act_batch(_one(observation))[0])

    def act_batch(self, observations: dict, infos: dict | None = None) -> np.ndarray:
        playing = np.flatnonzero(observations["action_mask"].any(axis=1))
        actions = np.zeros(len(observations["action_mask"]), np.int64)
        if len(playing):
            part = {k: v[playing] for k, v in observations.items()}
            actions[playing] = self.oracle.judge(*self.positions(part)).best_action
        return actions
