"""Gymnasium ids of the environments: one per registered game with an agent protocol."""

from __future__ import annotations

import gymnasium as gym

from ..errors import DicewiseError
from ..solver.registry import GAMES, get_game

NAMESPACE = "dicewise"
VERSION = 0


def env_id(ruleset: str) -> str:
    """``general`` -> ``dicewise/General-v0``; ``poker-programs`` -> ``.../PokerPrograms-v0``
    (a game without an agent protocol, or no game, has none)."""
    if ruleset not in playable():
        raise DicewiseError(f"no environment for {ruleset!r} (environments: "
                            f"{', '.join(playable())})")
    return f"{NAMESPACE}/{''.join(p.capitalize() for p in ruleset.split('-'))}-v{VERSION}"


def playable() -> list[str]:
    """The registered games whose commands include ``bench-agent`` (an agent protocol)."""
    return [name for name in GAMES if "bench-agent" in get_game(name).commands]


#: ruleset name -> Gymnasium id, for every game with an agent protocol.
ENV_IDS = {name: env_id(name) for name in playable()}


def register_all() -> None:
    """Register every id (once per process); rule options are ``gym.make`` keywords.

    The category games also get the native vector environment, which ``gym.make_vec``
    uses by default (``vectorization_mode="sync"`` gives a SyncVectorEnv of single ones).
    """
    from ..solver.rulesets import CATEGORY_GAMES

    for name, gid in ENV_IDS.items():
        if gid not in gym.registry:
            vector = "dicewise.envs.vector:CategoryVectorEnv" if name in CATEGORY_GAMES else None
            gym.register(gid, entry_point="dicewise.envs.single:DicewiseEnv",
                         vector_entry_point=vector, kwargs={"ruleset": name})
