"""The oracle: the value of every decision, for one position or for many at once.

A decision's value is the expected final score when it is taken and play is optimal after
it; its regret is the best value minus its own.  Actions are numbered by the game's
``action_space`` (for category games: the 462 keeps of ``dice.KEEPS``, then the boxes).

* ``CategoryOracle`` serves the exact category games from their solved table.  A batch of
  positions is judged with one turn solve (``decisions.plan_turns``) per distinct
  turn-start state that has a keep to value, and one ``write_options`` over the positions
  that write or could: no Python loop over positions.  ``regret_batch`` is its entry point
  by ruleset name.
* ``AdviceOracle`` serves every other game through its advisor (``advise_observation``),
  one position at a time, labelled approximate where the game is.

Both give the values of one position as a vector over the action space (``-inf`` where an
action is not legal), so an environment reads the regret of any action from it.
"""

from __future__ import annotations

import os
import reprlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import BadAction, DicewiseError
from ..solver import dice
from ..solver.category import CategoryRules
from ..solver.protocol import Game, Solution
from ..solver.rulesets.decisions import plan_turns, write_options
from ..solver.rulesets.game import CategoryGame
from ..tables import store

#: Distinct turn-start states solved together: bounds a batch's memory (about 13 kB each).
PLAN_CHUNK = 4096


def solution(game: Game, rules, table: str | None = None) -> Solution:
    """The game's solved (or fitted) table, built or loaded once per process and rules:
    from the cache, or from the file ``table`` (built there if missing)."""
    if table is not None and not isinstance(table, (str, os.PathLike)):  # before the cache
        raise DicewiseError(f"table is a path or None, not {table!r}")  # hashes it
    return _solution(game, rules, None if table is None else str(table))


@lru_cache(maxsize=16)
def _solution(game: Game, rules, table: str | None) -> Solution:
    return store.solution(game, rules, table)


def whole_numbers(name: str, values) -> np.ndarray:
    """``values`` (a number or an array of them) as a flat int64 array, or a DicewiseError:
    a cast would take 2.5 for 2 and fail on NaN, None or a number beyond int64."""
    array = np.asarray(values)
    if array.size == 0:  # an empty batch ([] reads as float64) judges no position
        return np.zeros(0, np.int64)
    if array.dtype.kind not in "iu" or (array.dtype.kind == "u"
                                         and array.max() > np.iinfo(np.int64).max):
        raise DicewiseError(f"{name} are whole numbers (int64), not {array.dtype} "
                            f"({reprlib.repr(values)})")
    return array.astype(np.int64).reshape(-1)


@dataclass(frozen=True)
class Judgement:
    """A batch of positions judged: the best action of each and the value of the one taken.

    Values are expected points still to come from the position (the points already on the
    sheet are not in them), so ``regret = best_value - value``.
    """

    best_action: np.ndarray  # (G,) index into the action space
    best_value: np.ndarray  # (G,)
    value: np.ndarray | None = None  # (G,) of the action taken, when actions were given

    @property
    def regret(self) -> np.ndarray:
        return self.best_value - self.value


class CategoryOracle:
    """Exact decision values of a category game from its solved state values.

    ``values`` is the table's array (or zeros: then the oracle is the greedy one, best
    points this turn with optimal play within the turn, as ``simulate --policy greedy``).
    Ties go as the simulator breaks them: a write unless a keep is strictly better, the
    first box, the first keep in ``dice.KEEPS`` order.
    """

    def __init__(self, rules: CategoryRules, values: np.ndarray):
        self.rules, self.values = rules, values
        self.n_boxes = rules.n_categories
        self.n_actions = dice.N_KEEPS + self.n_boxes
        self._plan_state, self._plan = None, None

    # -- one position ---------------------------------------------------------------

    def action_values(self, mask: int, extra: int, roll: int, roll_number: int) -> np.ndarray:
        """(n_actions,) the future value of every action in one position, -inf where illegal.

        The turn is solved once per turn-start state and kept for the next decisions of
        the same turn.
        """
        q = np.full(self.n_actions, -np.inf)
        if roll_number < 3:
            state = (mask, extra)
            if self._plan_state != state:
                self._plan = plan_turns(self.rules, self.values, np.array([mask]),
                                        np.array([extra]))
                self._plan_state = state
            keeps = dice.sub_keeps(roll)
            q[keeps] = self._plan.keep[roll_number - 1][keeps, 0]
        w = write_options(self.rules, self.values, np.array([mask]), np.array([extra]),
                          np.array([roll]), roll_number)
        q[dice.N_KEEPS:] = w.value[0]
        return q

    @staticmethod
    def best(q: np.ndarray) -> np.ndarray | int:
        """The best action of values (n_actions,) or of each row of (G, n_actions), ties
        broken as the simulator breaks them.

        ``q`` must be the values as ``action_values`` gives them, before the points on the
        sheet are added: the simulator compares those, and a sum with the points can round
        two values 1e-15 apart into a tie that the first keep then wins.
        """
        write = dice.N_KEEPS + np.argmax(q[..., dice.N_KEEPS:], axis=-1)
        keep = np.argmax(q[..., :dice.N_KEEPS], axis=-1)
        take = np.take_along_axis
        best = np.where(take(q, keep[..., None], -1)[..., 0] > take(q, write[..., None], -1)[..., 0],
                        keep, write)
        return int(best) if q.ndim == 1 else best

    # -- many positions ---------------------------------------------------------------

    def judge(self, masks, extras, rolls, roll_numbers, actions=None) -> Judgement:
        """Judge G positions at once: filled-box masks, extras, roll indices (into
        ``dice.ROLLS``), roll numbers 1..3 and, optionally, the actions taken there.

        Raises DicewiseError for a position no game reaches or where the game has ended,
        and BadAction (naming the position) for an action that is not legal in it.
        """
        rules = self.rules
        masks, extras, rolls, roll_numbers = (whole_numbers(name, a) for name, a in (
            ("masks", masks), ("extras", extras), ("rolls", rolls),
            ("roll numbers", roll_numbers)))
        g = len(masks)
        if not len(extras) == len(rolls) == len(roll_numbers) == g:
            raise DicewiseError("masks, extras, rolls and roll numbers differ in length")
        self._check_positions(masks, extras, rolls, roll_numbers)
        if actions is not None:
            actions = whole_numbers("actions", actions)
            if len(actions) != g:
                raise DicewiseError("one action per position")
            bad = np.flatnonzero((actions < 0) | (actions >= self.n_actions))
            if len(bad):
                raise BadAction(f"position {bad[0]}: action {actions[bad[0]]} is outside the "
                                f"action space (0..{self.n_actions - 1})")
        best_value = np.full(g, -np.inf)
        best_action = np.full(g, -1, np.int64)
        value = None if actions is None else np.full(g, -np.inf)

        # Keeps: one turn solve per distinct state with a keep decision (rolls 1 and 2).
        rolling = np.flatnonzero(roll_numbers < 3)
        states = masks[rolling] * rules.n_extra + extras[rolling]
        uniq, cols = np.unique(states, return_inverse=True)
        for lo in range(0, len(uniq), PLAN_CHUNK):
            part = np.flatnonzero((cols >= lo) & (cols < lo + PLAN_CHUNK))
            um, ue = np.divmod(uniq[lo:lo + PLAN_CHUNK], rules.n_extra)
            plan = plan_turns(rules, self.values, um, ue)
            pos, col = rolling[part], cols[part] - lo
            for k in (1, 2):
                at = np.flatnonzero(roll_numbers[pos] == k)
                p, c, r = pos[at], col[at], rolls[pos[at]]
                kv = plan.keep[k - 1]
                cand = dice.SUB_KEEPS[r]
                vals = np.where(cand >= 0, kv[np.maximum(cand, 0), c[:, None]], -np.inf)
                j = vals.argmax(axis=1)
                best_value[p] = vals[np.arange(len(p)), j]
                best_action[p] = cand[np.arange(len(p)), j]
                if actions is not None:
                    a = actions[p]
                    keep = np.flatnonzero(a < dice.N_KEEPS)
                    keep = keep[(dice.KEEPS[a[keep]] <= dice.ROLLS[r[keep]]).all(axis=1)]
                    value[p[keep]] = kv[a[keep], c[keep]]

        # Writes: every position (a write is always a choice), one vectorised call per roll number.
        opts = write_options(rules, self.values, masks, extras, rolls, roll_numbers)
        box = opts.value.argmax(axis=1)
        box_value = opts.value[np.arange(g), box]
        write_better = ~(best_value > box_value)
        best_value = np.where(write_better, box_value, best_value)
        best_action = np.where(write_better, dice.N_KEEPS + box, best_action)
        if actions is not None:
            writes = np.flatnonzero(actions >= dice.N_KEEPS)
            value[writes] = opts.value[writes, actions[writes] - dice.N_KEEPS]
            self._check_actions(actions, value, masks, rolls, roll_numbers)
        return Judgement(best_action, best_value, value)

    def _check_positions(self, masks, extras, rolls, roll_numbers) -> None:
        rules = self.rules
        bad = np.flatnonzero((masks < 0) | (masks >= (1 << self.n_boxes) - 1) | (extras < 0)
                             | (extras >= rules.n_extra) | (rolls < 0) | (rolls >= dice.N_ROLLS)
                             | (roll_numbers < 1) | (roll_numbers > 3))
        if len(bad):
            i = bad[0]
            raise DicewiseError(f"position {i} (mask {masks[i]}, extra {extras[i]}, roll "
                                f"{rolls[i]}, roll number {roll_numbers[i]}) is out of range: "
                                "no box open, or no such roll")
        unreachable = np.flatnonzero(np.isnan(self.values[masks * rules.n_extra + extras]))
        if len(unreachable):
            i = unreachable[0]
            raise DicewiseError(f"position {i}: no game of {rules.name} reaches the state "
                                f"(mask {masks[i]}, extra {extras[i]})")
        end = rules.first_roll_end()
        if end is not None:
            ended = np.flatnonzero((roll_numbers == 1) & ~np.isnan(end[rolls]))
            if len(ended):
                raise DicewiseError(f"position {ended[0]}: its first roll ended the game; "
                                    "there is no decision to judge")

    def _check_actions(self, actions, value, masks, rolls, roll_numbers) -> None:
        bad = np.flatnonzero(~np.isfinite(value))
        if len(bad) == 0:
            return
        i = bad[0]
        a = int(actions[i])
        faces = dice.faces_of(dice.ROLLS[rolls[i]])
        if a < dice.N_KEEPS:
            why = ("no roll is left" if roll_numbers[i] == 3 else
                   f"cannot keep {dice.faces_of(dice.KEEPS[a])} from dice {faces}")
        else:
            why = f"cannot write {self.rules.category_names[a - dice.N_KEEPS]} with dice {faces}"
        raise BadAction(f"position {i}: action {a} is not legal ({why})")


@lru_cache(maxsize=16)
def category_oracle(game: CategoryGame, rules: CategoryRules) -> CategoryOracle:
    """The oracle of a category game, on its table solved or loaded once per process."""
    return CategoryOracle(rules, solution(game, rules).payload.values)


def regret_batch(ruleset, masks, extras, rolls, roll_numbers, actions, *,
                 options=None) -> np.ndarray:
    """The exact regret of G decisions of a category game, judged in one vectorised call.

    Positions are turn-start states (filled-box ``masks`` and ``extras`` as the ruleset
    packs them), roll indices into ``dice.ROLLS``, roll numbers 1..3; ``actions`` index the
    game's ``action_space``.  The table is built or loaded once per process.
    """
    from ..api import make_rules

    game, rules = make_rules(ruleset, options)
    if not isinstance(game, CategoryGame):
        raise DicewiseError(f"regret_batch serves the category games; {game.name} is judged "
                            "one position at a time (AdviceOracle, or its environment's info)")
    actions = whole_numbers("actions", actions)  # None, which judge takes, has no regret
    return category_oracle(game, rules).judge(masks, extras, rolls, roll_numbers, actions).regret


class AdviceOracle:
    """Decision values of any game with an advisor, one observation at a time."""

    def __init__(self, solution: Solution, index_of, n_actions: int):
        self.solution, self.game = solution, solution.game
        self.index_of = index_of  # canonical JSON action -> index into the action space
        self.n_actions = n_actions

    def action_values(self, observation: dict) -> tuple[np.ndarray, int]:
        """(expected final score of every action, -inf where illegal; the best action)."""
        advice = self.game.advise_observation(self.solution, observation)
        q = np.full(self.n_actions, -np.inf)
        for choice in advice.choices:
            q[self.index_of(choice.action)] = choice.expected
        return q, self.index_of(advice.best.action) if advice.best else -1


@lru_cache(maxsize=16)
def game_actions(game: Game, rules) -> tuple[dict, ...]:
    """The game's action space, asked once per process and rules."""
    return game.action_space(rules)
