"""Two-player General as a PettingZoo AEC environment (RULES.md §1, "Two players").

Two players, ``player_0`` first, alternate whole turns, ten each; the higher total wins,
equal totals draw, and a first-roll five of a kind wins at once (unless
``big_general=sixty``).  Within a turn the mover acts up to three times (keeps, then a
write), so the same agent may be selected several times in a row.

**Rewards** are zero-sum and paid at the end: +1 to the winner, −1 to the loser, 0 to both
on a draw.  The solver's value of a position, the mover's P(win) + ½·P(draw), is
(1 + expected reward) / 2.

**Observations** (for every agent, whoever moves): the dice and roll number of the turn
in play, each player's sheet (``filled`` and ``sheet``, the agent's own: which boxes are
written and their scores, 0 while open; ``opponent_filled`` and ``opponent_sheet``, the
other's), both point totals, whether the agent moves, and the action mask (all zero for
the agent not to move).  Actions are those of the solitaire game (``Game.action_space``:
the 462 keeps, then the boxes).

**Dice**: ``reset(seed=s, options={"game": k})`` gives player i the dice of game 2k + i of
the solitaire stream of ``s`` (``simulate --seed s``; k is 0 by default).  A game whose
very first throw, ``player_0``'s, ends it has no decision and is skipped (k + 1 is played),
as in the single-player environments.

**The oracle**, where it is cheap: once both players have at most ``oracle_open`` boxes
open, the race from there is solved exactly (``two_player.solve_subgame``, a fraction of
a second from four open boxes each) and every later decision is judged by it.  The mover's
``info`` then holds ``win_chance`` (its P(win) + ½·P(draw) under best play from the
position), ``optimal_action`` (index) and ``optimal_action_json``; after each decision the
agent that took it finds ``win_regret``, the chance it gave away.  Earlier in the game
these fields are absent.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from gymnasium import spaces

try:
    from pettingzoo import AECEnv
except ImportError as e:  # pragma: no cover - the rl extra installs it
    raise ImportError("two-player environments need pettingzoo: pip install 'dicewise[rl]'") from e

from ..errors import BadAction, DicewiseError
from ..solver import dice
from ..solver.registry import get_game
from ..solver.sheet import parse_sheet
from .observe import (BIG, RebuiltOnLoading, category_sheet_fields, counts_field,
                      number_field)
from .oracle import game_actions, solution
from .single import action_key, among, check_reset, rule_options, whole_number

#: Boxes still open for each player when the oracle starts (0: never).
ORACLE_OPEN = 4


class TwoPlayerGeneralEnv(RebuiltOnLoading, AECEnv):
    """Two-player General (see the module docstring); rule options as keywords."""

    metadata = {"name": "dicewise_two_player_general_v0", "render_modes": ["ansi"],
                "is_parallelizable": False, "render_fps": 4}

    def __init__(self, *, oracle_open: int = ORACLE_OPEN, render_mode: str | None = None,
                 **options):
        super().__init__()
        from ..api import make_rules
        from ..solver.two_player import two_player_rules

        general = get_game("general")
        game, rules = make_rules(general, rule_options(options, general, ("oracle_open",
                                                                          "render_mode")))
        two_player_rules(rules)  # refuses rules the race solver does not handle
        if not among(render_mode, (None, "ansi")):
            raise DicewiseError(f"render_mode is None or 'ansi', not {render_mode!r}")
        if whole_number(oracle_open) is None or not 0 <= oracle_open <= rules.n_categories:
            raise DicewiseError(f"oracle_open is 0..{rules.n_categories}, not {oracle_open!r}")
        self.game, self.rules, self.render_mode = game, rules, render_mode
        self.oracle_open = int(oracle_open)
        self.solution = solution(game, rules)
        self.actions = game_actions(game, rules)
        self._index = {action_key(a): i for i, a in enumerate(self.actions)}
        self.possible_agents = ["player_0", "player_1"]
        self._fields = self.make_reader()
        space = spaces.Dict({**{f.name: f.space for f in self._fields},
                             "action_mask": spaces.MultiBinary(len(self.actions))})
        self._observation_spaces = {a: space for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(len(self.actions)) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.episodes = None

    READER = "_fields"

    def make_reader(self) -> list:
        """The fields of an agent's observation (each read from the JSON of the position)."""
        rules, actions = self.rules, self.actions
        return [counts_field(), number_field("roll", 0, 3, np.int8),
                number_field("turn", 0, rules.n_categories, np.int16),
                *category_sheet_fields(rules, actions),
                *category_sheet_fields(rules, actions, prefix="opponent_"),
                number_field("points", 0, BIG), number_field("opponent_points", 0, BIG),
                number_field("to_move", 0, 1, np.int8)]


    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    # -- the AEC API --------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None):
        seed, options = check_reset(seed, options)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self.stream_seed = seed
        else:
            self.stream_seed = int(self._rng.integers(2**31))
        index = int(options.get("game", 0))
        while True:  # a game whose first throw ends it has no decision: play the next one
            self.episodes = [self.game.episode(self.solution, self.stream_seed, 2 * index + p)
                             for p in range(2)]
            if not self.episodes[0].done:
                break
            index += 1
        self.game_index = index
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.mover = 0
        self.agent_selection = self.agents[0]
        self.subgame = None
        self.outcome = None
        self._advice = None
        self._advise()

    def step(self, action):
        if self.episodes is None:
            raise DicewiseError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        p = self.possible_agents.index(agent)
        ep = self.episodes[p]
        legal = self._legal(p)
        a = whole_number(action)
        if a is None or not 0 <= a < len(self.actions) or not legal[a]:
            named = f" ({self.actions[a]})" if a is not None and 0 <= a < len(self.actions) else ""
            allowed = [self.actions[i] for i in np.flatnonzero(legal)]
            shown = ", ".join(map(str, allowed[:12])) + (", ..." if len(allowed) > 12 else "")
            raise BadAction(f"{agent}: action {action!r}{named} is not legal here (legal: {shown})")
        self._cumulative_rewards[agent] = 0.0
        # only the mover's: the other agent's win_regret of its last write stays for it to read
        self.infos[agent] = {}
        if self._advice is not None:
            chosen = self._advice.choices[[c.action for c in self._advice.choices]
                                          .index(self.actions[a])]
            self.infos[agent]["win_regret"] = max(self._advice.best.value - chosen.value, 0.0)
        ep.apply(self.actions[a])
        if "write" in self.actions[a]:
            self._end_turn(p)
        self._advise()
        self._accumulate_rewards()

    def last(self, observe: bool = True):
        if self.episodes is None:  # no agent to move yet (AttributeError on agent_selection)
            raise DicewiseError("call reset() first")
        return super().last(observe)

    def observe(self, agent):
        if self.episodes is None:  # no position yet (AttributeError on 'mover' before)
            raise DicewiseError("call reset() first")
        if agent not in self.possible_agents:
            raise DicewiseError(f"the agents are {' and '.join(self.possible_agents)}, "
                                f"not {agent!r}")
        p = self.possible_agents.index(agent)
        mover = self.episodes[self.mover].observation()
        mine = self.episodes[p].observation()
        theirs = self.episodes[1 - p].observation()
        obs = {"dice": mover["dice"], "roll": mover["roll"], "turn": mine["turn"],
               "sheet": mine["sheet"], "opponent_sheet": theirs["sheet"],
               "points": mine["points"], "opponent_points": theirs["points"],
               "to_move": int(p == self.mover and self.outcome is None)}
        out = {f.name: f.read(obs, {}) for f in self._fields}
        out["action_mask"] = self._legal(p)
        return out

    def render(self):
        if self.render_mode != "ansi" or self.episodes is None:
            return None
        lines = []
        for p, ep in enumerate(self.episodes):
            o = ep.observation()
            mark = "*" if p == self.mover and self.outcome is None else " "
            lines.append(f"{mark}player_{p}: {o['points']:g} points, sheet {o['sheet']}")
        o = self.episodes[self.mover].observation()
        lines.append(f"turn {o['turn']}, roll {o['roll']}, dice {o['dice']}"
                     if self.outcome is None else f"over: {self.outcome}")
        return "\n".join(lines) + "\n"

    def close(self):
        pass

    # -- internals ----------------------------------------------------------------------

    def _legal(self, p: int) -> np.ndarray:
        mask = np.zeros(len(self.actions), np.int8)
        if self.outcome is None and p == self.mover:
            for a in self.episodes[p].observation()["legal"]:
                mask[self._index[action_key(a)]] = 1
        return mask

    def _end_turn(self, p: int) -> None:
        """After a write: the other player's turn, or the end of the game."""
        full = (1 << self.rules.n_categories) - 1
        if self.episodes[1 - p].ended:  # its turn opens with a first-roll five of a kind
            self._finish(1 - p, "a first-roll five of a kind")
        elif all(ep.mask == full for ep in self.episodes):
            a, b = (float(ep.score) for ep in self.episodes)
            self._finish(None if a == b else int(b > a), "points")
        else:
            self.mover = 1 - p
            self.agent_selection = self.possible_agents[self.mover]

    def _finish(self, winner: int | None, how: str) -> None:
        for i, agent in enumerate(self.possible_agents):
            self.rewards[agent] = 0.0 if winner is None else (1.0 if i == winner else -1.0)
            self.terminations[agent] = True
        self.outcome = "draw" if winner is None else f"player_{winner} wins on {how}"
        self._advice = None

    def _advise(self) -> None:
        """The oracle's view of the mover's decision, once the race is cheap to solve."""
        self._advice = None
        if self.outcome is not None or self.oracle_open == 0:
            return
        from ..solver.two_player import advise_two_player, solve_subgame

        me, them = self.episodes[self.mover], self.episodes[1 - self.mover]
        n = self.rules.n_categories
        if self.subgame is None:
            open_boxes = [n - bin(ep.mask).count("1") for ep in (me, them)]
            if max(open_boxes) > self.oracle_open or me.roll_number != 1:
                return
            self.subgame = solve_subgame(self.rules, me.mask, them.mask)
        sheets = [parse_sheet(self.rules, ",".join(f"{k}={v}" for k, v in ep.sheet.items()))
                  for ep in (me, them)]
        faces = dice.faces_of(dice.ROLLS[me.roll])
        self._advice = advise_two_player(self.subgame, *sheets, faces, me.roll_number)
        best = self._advice.best
        info: dict[str, Any] = self.infos[self.possible_agents[self.mover]]
        info["win_chance"] = float(best.value)
        info["optimal_action"] = self._index[action_key(best.action)]
        info["optimal_action_json"] = json.dumps(best.action)
