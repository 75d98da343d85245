"""Gymnasium and PettingZoo environments of dicewise's games, with the oracle inside.

Importing this package registers one Gymnasium environment per game with an agent
protocol (``dicewise/General-v0``, ``dicewise/Yahtzee-v0``...); rule options are
``gym.make`` keyword arguments::

    import gymnasium as gym
    import dicewise.envs
    env = gym.make("dicewise/Yahtzee-v0", joker="forced")
    obs, info = env.reset(seed=7)
    obs, reward, terminated, truncated, info = env.step(
        env.action_space.sample(mask=obs["action_mask"]))
    info["regret"], info["optimal_action"]

``gym.make_vec`` of a category game gives the native ``CategoryVectorEnv`` (all games
stepped as arrays); ``two_player_general(**options)`` is the PettingZoo AEC environment of
two-player General; ``regret_batch`` judges many decisions of a category game in one
vectorised call.  See
docs/envs.md.  Needs the ``rl`` extra (gymnasium, pettingzoo).
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError("dicewise.envs needs gymnasium (and pettingzoo for two players): "
                      "pip install 'dicewise[rl]'") from e

from .oracle import AdviceOracle, CategoryOracle, Judgement, regret_batch
from .registration import ENV_IDS, env_id, register_all
from .single import DicewiseEnv
from .vector import CategoryVectorEnv

__all__ = ["DicewiseEnv", "CategoryVectorEnv", "ENV_IDS", "env_id", "regret_batch",
           "CategoryOracle", "AdviceOracle", "Judgement", "two_player_general"]


def two_player_general(**options):
    """The PettingZoo AEC environment of two-player General (rule options as keywords)."""
    from .two_player import TwoPlayerGeneralEnv

    return TwoPlayerGeneralEnv(**options)


register_all()
