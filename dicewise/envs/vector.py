"""A native vector environment for the category games: many games stepped as arrays.

``gym.make_vec("dicewise/General-v0", num_envs=1024)`` returns a ``CategoryVectorEnv``:
every sub-environment is the single-player environment of the same game (the same spaces,
observations, rewards and ``info`` fields, batched), but a step is a handful of numpy
calls over all games — ``write_options`` for every position, one turn solve per game
starting a turn — instead of one Python episode per game.  The tests play it against
``DicewiseEnv`` game by game.

**Dice.**  ``reset(seed=s)`` deals games 0, 1, 2... of the dice stream of ``s`` (the games
``simulate --seed s`` plays) to the sub-environments in order, and each finished game is
followed by the next undealt one; ``info["game"]`` says which game each plays.  Games past
``STREAM_BLOCK`` come from streams seeded from ``s``.  A game that its first throw ends
(General's big general) is skipped, as ``DicewiseEnv.reset`` skips it.

Autoreset is Gymnasium's default, ``NEXT_STEP``: the step after a sub-environment
terminates starts its next game and ignores its action.
"""

from __future__ import annotations

import json

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..api import MAX_GAMES
from ..errors import BadAction, DicewiseError
from ..solver import dice
from ..solver.rulesets.decisions import plan_turns, write_options
from ..solver.rulesets.game import CategoryGame
from ..solver.rulesets.simulate import dice_stream, roll_from
from .observe import RebuiltOnLoading, category_encoder
from .oracle import CategoryOracle, game_actions, solution
from .single import ILLEGAL, among, check_oracle, check_reset, rule_options, whole_number

#: Games of one dice stream; beyond, the next block comes from a stream seeded from the seed.
STREAM_BLOCK = 1 << 16
#: The native vector environment's own keywords, beside the rule options.
KEYWORDS = ("num_envs", "oracle", "illegal_action", "table")
#: KEEP_ALLOWED[r, k]: roll r holds keep k.
KEEP_ALLOWED = (dice.KEEPS[None, :, :] <= dice.ROLLS[:, None, :]).all(axis=2)


class GameStream:
    """The dice of games 0, 1, 2... of the stream of a seed, made a block at a time."""

    def __init__(self, seed: int, turns: int):
        self.seed, self.turns = seed, turns
        self.block, self.rows = -1, None

    def dice(self, games: np.ndarray) -> np.ndarray:
        """(len(games), turns, 3, 5) faces of the given games (indices in increasing order)."""
        out = np.empty((len(games), self.turns, 3, dice.N_DICE), np.int8)
        for i, g in enumerate(games):
            block, row = divmod(int(g), STREAM_BLOCK)
            if block != self.block or row >= len(self.rows):
                self._make(block, row)
            out[i] = self.rows[row]
        return out

    def _make(self, block: int, row: int) -> None:
        seed = self.seed if block == 0 else int(
            np.random.SeedSequence([self.seed, block]).generate_state(1)[0])
        size = STREAM_BLOCK if block else min(STREAM_BLOCK, max(1024, 2 * (row + 1)))
        self.rows, self.block = dice_stream(seed, size, self.turns), block


class CategoryVectorEnv(RebuiltOnLoading, VectorEnv):
    """``num_envs`` games of one category ruleset in lockstep (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, ruleset, num_envs: int = 1, *, oracle: bool = True,
                 illegal_action: str = "raise", table=None, render_mode: str | None = None,
                 **options):
        from ..api import game_of, make_rules

        if render_mode is not None:  # was taken for a rule option: "unknown option render_mode"
            raise DicewiseError(f"the native vector environment does not render (render_mode "
                                f"{render_mode!r}); vectorization_mode='sync' renders each game")
        game, rules = make_rules(ruleset, rule_options(options, game_of(ruleset), KEYWORDS))
        if not isinstance(game, CategoryGame):
            raise DicewiseError(f"the native vector environment plays the category games, not "
                                f"{game.name} (use vectorization_mode='sync')")
        if whole_number(num_envs) is None or not 1 <= num_envs <= MAX_GAMES:
            raise DicewiseError(f"num_envs is a whole number 1..{MAX_GAMES:,}, not {num_envs!r}")
        check_oracle(oracle)
        if not among(illegal_action, ILLEGAL):
            raise DicewiseError(f"illegal_action is one of {', '.join(ILLEGAL)}, "
                                f"not {illegal_action!r}")
        self.game, self.rules, self.num_envs = game, rules, int(num_envs)
        self.actions = game_actions(game, rules)
        # each action as JSON text, and "null" (index -1) once a game is over
        self._action_json = np.array([json.dumps(a) for a in self.actions] + ["null"], object)
        self.encoder = category_encoder(rules, self.actions)
        self.single_observation_space = self.encoder.space
        self.single_action_space = spaces.Discrete(len(self.actions))
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.solution = solution(game, rules, table)
        self.values = self.solution.payload.values
        self.oracle, self.illegal_action = bool(oracle), illegal_action
        n, g = rules.n_categories, self.num_envs
        self.full = (1 << n) - 1
        self.end_value = rules.first_roll_end()
        self.names = list(rules.category_names)
        self.stream = None
        self.game_index = np.zeros(g, np.int64)
        self.mask, self.extra = np.zeros(g, np.int64), np.zeros(g, np.int64)
        self.roll, self.roll_number = np.zeros(g, np.int64), np.ones(g, np.int64)
        self.turn, self.kept = np.zeros(g, np.int64), np.zeros((g, dice.N_FACES), np.int64)
        self.points, self.bonus_count = np.zeros(g), np.zeros(g, np.int64)
        self.sheet = np.zeros((g, n))
        self.dice = np.zeros((g, n, 3, dice.N_DICE), np.int8)
        self.ended, self.over = np.zeros(g, bool), np.zeros(g, bool)
        self.keep_values = np.full((g, 2, dice.N_KEEPS), -np.inf)
        self.next_game = 0
        self._mask = np.zeros((g, len(self.actions)), np.int8)  # legal actions now
        self._q = np.full((g, len(self.actions)), -np.inf)  # their expected final scores
        self._best = np.full(g, -1, np.int64)
        self._row = np.full(g, -1, np.int64)  # each position's row of ``_opts``
        self._opts = None  # write_options of the positions observed last

    # -- the Gymnasium API --------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed, options = check_reset(seed, options)
        if "game" in options:
            raise DicewiseError("options={'game': k} is the single environment's; a vector "
                                "environment deals games 0, 1, 2... of the seed's stream")
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**31))
        self.stream, self.stream_seed = GameStream(int(seed), self.rules.n_categories), int(seed)
        self.next_game = 0
        everyone = np.arange(self.num_envs)
        self._start(everyone)
        self._observe(everyone)
        return self._obs(), self._info(np.zeros(self.num_envs))

    def step(self, actions):
        g = self.num_envs
        if self.stream is None:
            raise DicewiseError("call reset() before step()")
        actions = np.asarray(actions).reshape(-1)
        if len(actions) != g:
            raise DicewiseError(f"give {g} actions, one per sub-environment, not {len(actions)}")
        if actions.dtype.kind not in "iu":  # astype would take 1.5 for action 1
            raise DicewiseError(f"actions are indices of the action space (whole numbers), "
                                f"not {actions.dtype} values")
        raw = actions  # for the messages: astype wraps 2**64 - 1 round to -1
        actions = np.where(raw < len(self.actions), raw, len(self.actions)).astype(np.int64)
        restart = self.over.copy()
        live = np.flatnonzero(~restart)
        a = actions[live]
        inside = (a >= 0) & (a < len(self.actions))
        legal = np.zeros(len(live), bool)
        legal[inside] = self._mask[live[inside], a[inside]] > 0
        rewards = np.zeros(g)
        illegal = live[~legal]
        if len(illegal):
            j = int(illegal[0])
            if self.illegal_action == "raise":
                raise BadAction(f"sub-environment {j}: {self._illegal(j, int(raw[j]))}")
            self.over[illegal] = True
            self._mask[illegal] = 0
        live, a = live[legal], a[legal]
        regret = np.zeros(g)
        if self.oracle:
            regret[live] = np.maximum(self._q[live, self._best[live]] - self._q[live, a], 0.0)
            # an illegal action ends its game with the points on the sheet: all the rest lost
            regret[illegal] = np.maximum(self._q[illegal, self._best[illegal]]
                                         - self._score()[illegal], 0.0)
        keep = a < dice.N_KEEPS
        self._keep(live[keep], a[keep])
        rewards[live[~keep]] = self._write(live[~keep], a[~keep] - dice.N_KEEPS)
        if restart.any():
            self._start(np.flatnonzero(restart))
        terminated = self.over & ~restart
        self._observe(np.flatnonzero(~self.over | restart))
        info = self._info(regret)
        if len(illegal):
            info["illegal_action"] = np.isin(np.arange(g), illegal)
            info["_illegal_action"] = np.ones(g, bool)
        return self._obs(), rewards, terminated, np.zeros(g, bool), info

    def close_extras(self, **kwargs):
        pass

    def make_reader(self):
        return category_encoder(self.rules, self.actions)

    # -- the game, as arrays --------------------------------------------------------------

    def _start(self, envs: np.ndarray) -> None:
        """Deal the next games of the stream to ``envs`` (skipping games without a decision)."""
        todo = envs
        while len(todo):
            games = self.next_game + np.arange(len(todo))
            self.next_game += len(todo)
            self.game_index[todo] = games
            self.dice[todo] = self.stream.dice(games)
            self.mask[todo], self.extra[todo] = 0, self.rules.initial_extra
            self.turn[todo], self.points[todo], self.bonus_count[todo] = 0, 0.0, 0
            self.sheet[todo] = 0.0
            self.ended[todo], self.over[todo] = False, False
            self._throw(todo, 1)
            todo = todo[self.ended[todo]]

    def _throw(self, envs: np.ndarray, k: int) -> None:
        """Throw for roll ``k`` (a new turn when k is 1); a first-roll end ends the game."""
        if k == 1:
            self.kept[envs] = 0
        self.roll_number[envs] = k
        faces = self.dice[envs, self.turn[envs], k - 1]
        self.roll[envs] = roll_from(self.kept[envs], faces)
        if k == 1 and self.end_value is not None:
            ends = envs[~np.isnan(self.end_value[self.roll[envs]])]
            self.ended[ends], self.over[ends] = True, True

    def _keep(self, envs: np.ndarray, keeps: np.ndarray) -> None:
        self.kept[envs] = dice.KEEPS[keeps]
        after = self.roll_number[envs]
        for k in (1, 2):
            if (after == k).any():
                self._throw(envs[after == k], k + 1)

    def _write(self, envs: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """Write ``boxes``; returns the points written (the final bonus with the last box)."""
        opts = self._opts
        row = self._row[envs]
        pts, score = opts.points[row, boxes], opts.score[row, boxes]
        self.points[envs] += pts
        self.sheet[envs, boxes] = np.rint(score)
        self.bonus_count[envs] += pts > score
        self.mask[envs], self.extra[envs] = np.divmod(opts.next_state[row, boxes],
                                                      self.rules.n_extra)
        done = self.mask[envs] == self.full
        bonus = self.rules.final_bonus(self.extra[envs[done]]) if done.any() else np.zeros(0)
        rewards = pts.astype(float)
        rewards[done] += bonus
        self.over[envs[done]] = True
        going = envs[~done]
        self.turn[going] += 1
        self._throw(going, 1)
        return rewards

    def _observe(self, envs: np.ndarray) -> None:
        """Legal actions (and, with the oracle, the value of each) of the positions ``envs``."""
        self._mask[self.over] = 0
        self._q[self.over], self._best[self.over] = -np.inf, -1
        envs = envs[~self.over[envs]]
        self._row[:] = -1
        self._row[envs] = np.arange(len(envs))
        self._opts = write_options(self.rules, self.values, self.mask[envs], self.extra[envs],
                                   self.roll[envs], self.roll_number[envs])
        k = self.roll_number[envs]
        keep_ok = KEEP_ALLOWED[self.roll[envs]] & (k < 3)[:, None]
        writes = np.isfinite(self._opts.value)
        self._mask[envs] = np.concatenate([keep_ok, writes], axis=1)
        if not self.oracle:
            return
        starts = envs[k == 1]
        if len(starts):  # one turn solve per distinct state starting a turn
            states, col = np.unique(self.mask[starts] * self.rules.n_extra + self.extra[starts],
                                    return_inverse=True)
            plan = plan_turns(self.rules, self.values, *np.divmod(states, self.rules.n_extra))
            self.keep_values[starts, 0] = plan.keep[0].T[col]
            self.keep_values[starts, 1] = plan.keep[1].T[col]
        q = np.full((len(envs), len(self.actions)), -np.inf)
        rolling = np.flatnonzero(k < 3)
        kv = self.keep_values[envs[rolling], k[rolling] - 1]
        q[rolling, :dice.N_KEEPS] = np.where(keep_ok[rolling], kv, -np.inf)
        q[:, dice.N_KEEPS:] = self._opts.value
        self._best[envs] = CategoryOracle.best(q)  # before the points: see its docstring
        self._q[envs] = q + self.points[envs, None]

    def _obs(self) -> dict:
        rules = self.rules
        obs = {"dice": dice.ROLLS[self.roll].astype(np.int8),
               "roll": self.roll_number[:, None].astype(np.int8),
               "turn": (self.turn + 1)[:, None].astype(np.int16),
               "filled": (self.mask[:, None] >> np.arange(rules.n_categories) & 1).astype(np.int8),
               "sheet": self.sheet.astype(np.float32)}
        if rules.sheet_counters:
            obs["counters"] = np.repeat(self.bonus_count[:, None], len(rules.sheet_counters),
                                        axis=1).astype(np.float32)
        if "extra" in self.single_observation_space.spaces:
            obs["extra"] = self.extra[:, None].astype(np.int16)
        obs["points"] = self._score()[:, None].astype(np.float32)  # the final bonus once full
        obs["action_mask"] = self._mask.copy()
        return {k: obs[k] for k in self.single_observation_space.spaces}

    def _score(self) -> np.ndarray:
        score = self.points.copy()
        full = np.flatnonzero(self.mask == self.full)
        if len(full):
            score[full] += self.rules.final_bonus(self.extra[full])
        return score

    def _info(self, regret: np.ndarray) -> dict:
        g = self.num_envs
        info = {"game": self.game_index.copy(), "seed": np.full(g, self.stream_seed),
                "score": self._score()}
        if self.oracle:
            rows = np.arange(g)
            best = self._best.copy()
            expected = np.where(self.over, info["score"], self._q[rows, np.maximum(best, 0)])
            info.update({"regret": regret.astype(float), "regret_is_exact": np.ones(g, bool),
                         "optimal_action": best, "optimal_action_json": self._action_json[best],
                         "expected_score": expected})
        for key in list(info):
            info[f"_{key}"] = np.ones(g, bool)
        return info

    def _illegal(self, j: int, a: int) -> str:
        if not 0 <= a < len(self.actions):
            return f"action {a} is outside the action space (0..{len(self.actions) - 1})"
        legal = [self.actions[i] for i in np.flatnonzero(self._mask[j])]
        shown = ", ".join(map(str, legal[:12])) + (", ..." if len(legal) > 12 else "")
        return f"action {a} ({self.actions[a]}) is not legal here (legal: {shown})"
