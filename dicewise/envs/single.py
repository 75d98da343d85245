"""The single-player environment: one game of a ruleset, decision by decision, with the oracle.

``DicewiseEnv`` wraps the game's agent protocol (``Game.episode``): the observation is the
episode's JSON observation encoded as a fixed Dict (``observe``), an action is an index
into ``Game.action_space``, the reward is what ``Episode.apply`` returns (the points
written, end-of-game bonuses when earned).  Before each decision the oracle values every
action (``oracle``), so ``info`` carries the regret of the step just taken, the best
action now and the expected final score of the position.

**Dice.**  ``reset(seed=s)`` plays game 0 of the dice stream of seed ``s`` — the dice game 0
of ``dicewise simulate --seed s`` meets — and ``reset(seed=s, options={"game": i})`` game i,
so an agent is compared with ``simulate`` on the same dice (``options={"game": i}`` without
a seed: game i of the current stream).  A ``reset()`` without a seed or a game plays game
0 of a stream whose seed is drawn from the environment's generator: episodes are
reproducible from the first seed.  A game that its very first throw ends (General's big
general, 6 in 7776) has no decision and is no episode: ``reset`` plays the next game of the
stream instead, and ``info["game"]`` says which game is played.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..api import MAX_GAMES, MAX_SEED
from ..errors import BadAction, DicewiseError
from ..play.agents import as_json
from ..solver.protocol import Game
from ..solver.rulesets.game import CategoryGame
from .observe import RebuiltOnLoading, encoder_for
from .oracle import AdviceOracle, CategoryOracle, game_actions, solution

#: What ``step`` does with an action the position does not allow.
ILLEGAL = ("raise", "end")
#: The environment's own keywords, beside the rule options.
KEYWORDS = ("oracle", "illegal_action", "render_mode", "table")


def action_key(action) -> Any:
    """A hashable form of a JSON action (lists become tuples, objects sorted tuples)."""
    if isinstance(action, dict):
        return tuple(sorted((k, action_key(v)) for k, v in action.items()))
    if isinstance(action, (list, tuple)):
        return tuple(action_key(v) for v in action)
    return action


class DicewiseEnv(RebuiltOnLoading, gym.Env):
    """One ruleset as a Gymnasium environment (see the module docstring).

    Args:
        ruleset: a registered game name (or its protocol object) with an agent protocol.
        oracle: value every decision (``info`` then holds the regret and the best action);
            False skips that work, for faster training loops.
        illegal_action: ``"raise"`` (BadAction naming the action and the legal ones) or
            ``"end"`` (the episode terminates there with reward 0 and
            ``info["illegal_action"]`` saying why: for tools that step unmasked random
            actions, such as ``gymnasium.utils.env_checker.check_env``).
        render_mode: None or ``"ansi"`` (the position as text).
        table: a table file to load (built there if missing) instead of the cache's.
        **options: the rule options of the game (``joker="forced"``...).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, ruleset, *, oracle: bool = True, illegal_action: str = "raise",
                 render_mode: str | None = None, table=None, **options):
        from ..api import game_of, make_rules

        game, rules = make_rules(ruleset, rule_options(options, game_of(ruleset), KEYWORDS))
        if "bench-agent" not in game.commands:
            raise DicewiseError(f"{game.name} has no agent protocol, so no environment")
        check_oracle(oracle)
        if not among(illegal_action, ILLEGAL):
            raise DicewiseError(f"illegal_action is one of {', '.join(ILLEGAL)}, "
                                f"not {illegal_action!r}")
        if not among(render_mode, (None, *self.metadata["render_modes"])):
            raise DicewiseError(f"render_mode is None or 'ansi', not {render_mode!r}")
        self.game: Game = game
        self.rules = rules
        self.actions = game_actions(game, rules)
        self._index = {action_key(a): i for i, a in enumerate(self.actions)}
        self.encoder = encoder_for(game, rules, self.actions)
        self.action_space = spaces.Discrete(len(self.actions))
        self.observation_space = self.encoder.space
        self.solution = solution(game, rules, table)
        self.illegal_action, self.render_mode = illegal_action, render_mode
        self.exact = not self.solution.approximate
        self.oracle = None
        if oracle:
            self.oracle = (CategoryOracle(rules, self.solution.payload.values)
                           if isinstance(game, CategoryGame) and self.exact else
                           AdviceOracle(self.solution, self.action_index, len(self.actions)))
        self.episode = None
        self.ended_by_illegal = False  # illegal_action="end" ended the episode
        self.stream_seed: int | None = None
        self.game_index = 0

    # -- actions ------------------------------------------------------------------------

    def action_index(self, action: dict) -> int:
        """The index of a JSON action (canonical form first) in the action space."""
        if not isinstance(action, dict):  # an index, say: the game would read it as JSON
            raise BadAction(f"{action!r} is not an action of {self.game.name} (a JSON object; "
                            "action_json gives the one of an index)")
        try:  # as a program would send it: (2, 6) is [2, 6], as bench-agent reads it
            return self._index[action_key(self.game.canonical_action(as_json(action)))]
        except KeyError:
            raise BadAction(f"{action} is not an action of {self.game.name}") from None

    def action_json(self, index: int) -> dict:
        """The JSON action of an index (a fresh copy)."""
        i = whole_number(index)
        if i is None or not 0 <= i < len(self.actions):
            raise BadAction(f"{index!r} is not an index of the action space "
                            f"(0..{len(self.actions) - 1})")
        return _copy(self.actions[i])

    def action_masks(self) -> np.ndarray:
        """The legal actions now as booleans (the hook of sb3-contrib's MaskablePPO)."""
        self._started()
        return self._mask > 0

    def action_values(self) -> np.ndarray:
        """The expected final score of every action now (``-inf`` where illegal): the
        oracle's view of the current position (needs ``oracle=True``); all ``-inf`` once
        the episode is over, as no action is legal then."""
        if self.oracle is None:
            raise DicewiseError("this environment was made with oracle=False")
        self._started()
        if self.episode.done or self.ended_by_illegal:
            return np.full(len(self.actions), -np.inf)
        return self._q.copy()

    def make_reader(self):
        return encoder_for(self.game, self.rules, self.actions)

    def _started(self):
        if self.episode is None:  # no position yet, so no legal actions or values
            raise DicewiseError("call reset() first")

    # -- the Gymnasium API --------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed, options = check_reset(seed, options)
        super().reset(seed=seed)
        if seed is not None:
            self.stream_seed = seed
        elif self.stream_seed is None or "game" not in options:
            self.stream_seed = int(self.np_random.integers(2**31))
        index = options.get("game", 0)
        self.game_index, self.ended_by_illegal = int(index), False
        self.episode = self.game.episode(self.solution, self.stream_seed, self.game_index)
        while self.episode.done:  # its first throw ended it: no decision, so no episode
            self.game_index += 1
            self.episode = self.game.episode(self.solution, self.stream_seed, self.game_index)
        self._observe()
        return self._obs(), self._info(regret=0.0)

    def step(self, action):
        if self.episode is None:
            raise DicewiseError("call reset() before step()")
        if self.episode.done or self.ended_by_illegal:
            raise DicewiseError("the episode is over: call reset()")
        a = whole_number(action)
        if a is None or not 0 <= a < len(self.actions) or not self._mask[a]:
            why = self._illegal(action if a is None else a)
            if self.illegal_action == "raise":
                raise BadAction(why)
            # the game ends with the points on the sheet: all the rest is lost
            lost = None if self._q is None else max(
                float(self._q[self._best]) - float(self.episode.score), 0.0)
            self._mask = np.zeros(len(self.actions), np.int8)
            self.ended_by_illegal = True
            return self._obs(), 0.0, True, False, {**self._info(lost), "illegal_action": why}
        regret = None
        if self.oracle is not None:
            regret = max(float(self._q[self._best] - self._q[a]), 0.0)
        reward = float(self.episode.apply(self.actions[a]))
        self._observe()
        return self._obs(), reward, bool(self.episode.done), False, self._info(regret)

    def render(self):
        if self.render_mode != "ansi" or self.episode is None:
            return None
        obs = self._json
        lines = [f"{self.game.name} game {self.game_index} of seed {self.stream_seed}, turn "
                 f"{obs.get('turn')}" + (f", roll {obs['roll']}" if "roll" in obs else ""),
                 f"dice {' '.join(map(str, obs.get('dice') or [])) or '-'}; "
                 f"points {obs.get('points')}" + ("; over" if self.episode.done else "")]
        lines += [f"  {k}: {v}" for k, v in obs.items()
                  if isinstance(v, dict) and k not in ("options",) and v]
        return "\n".join(lines) + "\n"

    # -- internals ----------------------------------------------------------------------

    def _observe(self) -> None:
        """Read the episode's observation, its legal actions and (with the oracle) its values."""
        ep = self.episode
        self._json = ep.observation()
        self._mask = np.zeros(len(self.actions), np.int8)
        self._q, self._best = None, -1
        if ep.done:
            return
        for a in self._json.get("legal", ()):
            self._mask[self._index[action_key(a)]] = 1
        if isinstance(self.oracle, CategoryOracle):
            self._q = self.oracle.action_values(ep.mask, ep.extra, ep.roll, ep.roll_number)
            self._best = self.oracle.best(self._q)  # before the points: see its docstring
            self._q[np.isfinite(self._q)] += ep.points
        elif self.oracle is not None:
            self._q, self._best = self.oracle.action_values(self._json)
        if self._q is not None and not np.array_equal(np.isfinite(self._q), self._mask > 0):
            raise DicewiseError(f"{self.game.name}: the oracle and the episode disagree on the "
                                "legal actions")  # a bug in the game's room, never the agent's

    def _obs(self) -> dict:
        return self.encoder.encode(self._json, self._mask.copy())

    def _info(self, regret: float | None) -> dict:
        info: dict[str, Any] = {"game": self.game_index, "seed": self.stream_seed,
                                "score": float(self.episode.score)}
        if self.oracle is None:
            return info
        done = self.episode.done or self.ended_by_illegal
        info["regret"] = float(regret or 0.0)
        info["regret_is_exact"] = self.exact
        if not self.exact:
            info["error_estimate"] = self.solution.error_estimate
        info["optimal_action"] = -1 if done else int(self._best)
        # JSON text, not a dict: vector environments batch info dicts key by key
        info["optimal_action_json"] = json.dumps(None if done else self.actions[self._best])
        info["expected_score"] = float(self.episode.score if done else self._q[self._best])
        return info

    def _illegal(self, a) -> str:
        if whole_number(a) is None:
            return (f"action {a!r} is not an index of the action space (a whole number "
                    f"0..{len(self.actions) - 1})")
        if not 0 <= a < len(self.actions):
            return f"action {a} is outside the action space (0..{len(self.actions) - 1})"
        legal = [self.actions[i] for i in np.flatnonzero(self._mask)]
        shown = ", ".join(map(str, legal[:12])) + (", ..." if len(legal) > 12 else "")
        return f"action {a} ({self.actions[a]}) is not legal here (legal: {shown})"


def check_reset(seed, options) -> tuple[int | None, dict]:
    """(seed as an int or None, options as a dict) of a ``reset``, or a DicewiseError: a seed
    is a whole number at least 0, and ``options["game"]`` a game number of the stream."""
    if seed is not None and (whole_number(seed) is None or not 0 <= seed <= MAX_SEED):
        raise DicewiseError(f"seed is a whole number from 0 to {MAX_SEED}, or None, not {seed!r}")
    if options is not None and not isinstance(options, dict):
        raise DicewiseError(f"options is a dict or None, not {options!r}")
    index = (options or {}).get("game", 0)
    if whole_number(index) is None or not 0 <= index < MAX_GAMES:
        raise DicewiseError(f"options['game'] is a game number 0, 1, 2... below {MAX_GAMES:,}, "
                            f"not {index!r}")
    return (None if seed is None else int(seed)), dict(options or {})


def among(value, choices) -> bool:
    """Whether a keyword's ``value`` is one of ``choices`` (texts or None), compared without
    ``in``, whose answer for a NumPy array is an array (or a ValueError)."""
    return any(value is c or (isinstance(value, str) and value == c) for c in choices)


def rule_options(options: dict, game, keywords) -> dict:
    """The rule options given as keywords, refusing ``options={...}`` (Gymnasium's reset
    takes an ``options`` dict; the environment's constructor takes the rules as keywords)
    and a name that is neither a rule option of ``game`` nor one of the environment's own
    ``keywords``, both listed (a misspelt ``illegal_action`` named only the rule options)."""
    if "options" in options:
        raise DicewiseError(f"rule options are keywords of the environment (as "
                            f"straight=\"plain\"), not options={options['options']!r}")
    known = [spec.name for spec in game.option_specs()]
    unknown = [name for name in options if name not in known]
    if unknown:
        raise DicewiseError(f"unknown option {', '.join(unknown)} for {game.name} (options: "
                            f"{', '.join(known) or 'none'}; the environment's keywords: "
                            f"{', '.join(keywords)})")
    return options


def check_oracle(oracle) -> None:
    """Refuse an ``oracle`` keyword that is not True or False (``oracle="no"`` was true)."""
    if not isinstance(oracle, (bool, np.bool_)):
        raise DicewiseError(f"oracle is True or False, not {oracle!r}")


def whole_number(value) -> int | None:
    """``value`` as an int when it is a whole number (a NumPy one, or a 0-d integer array),
    else None: 1.5, "3", None, True or [0] are none (``int()`` would take 1.5 for 1)."""
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
        value = value.item()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    return None


def _copy(action):
    if isinstance(action, dict):
        return {k: _copy(v) for k, v in action.items()}
    if isinstance(action, list):
        return [_copy(v) for v in action]
    return action
