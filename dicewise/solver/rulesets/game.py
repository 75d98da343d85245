"""The protocol object of every declarative category game (General, the pokers, Yahtzee, Yatzy).

One class serves them all: the ruleset module declares the boxes, the engine
(``solver/category.py``) solves, and this module answers the protocol — the table is the
expected remaining score of every reachable turn-start state, advice solves the turn of
the one state asked about, play is the lockstep simulator, and an episode walks one game
of the same dice stream for an agent.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator, Mapping

import numpy as np

from ...errors import DicewiseError, TableError
from ...i18n import Message, SheetText, notation_word
from .. import category, dice
from ..advice import advise_position, check_position, turn_keep_values
from ..category import CategoryRules, StateValues, solve_states
from ..digest import code_text, rules_digest
from ..options import option_specs
from ..protocol import (Advice, BadAction, Episode, Game, Played, Solution, observed_roll,
                        rival_sheets)
from ..sheet import parse_sheet
from . import CATEGORY_GAMES, category_game
from .decisions import write_options
from .simulate import dice_chunks, game_dice, roll_from, simulate_games
from . import strategy


class CategoryGame(Game):
    """A five-dice category game, solved exactly by backward induction over its states."""

    exact = True
    tables = {"opening": "first turn: the best choice for every roll 1 and roll 2 dice, the runner-up",
              "states": "every reachable turn-start state with its expected remaining points",
              "categories": "per box under the optimal policy: fill rate, mean score, scratch rate",
              "target": "P(final ≥ T) for every T, playing for T and playing for the best mean"}

    @property
    def sheet_help(self) -> str:
        example = getattr(self.cls, "example_sheet", None)  # a ruleset's own, where it has one
        if example is None:  # else its first box with the most that box can hold
            rules = self.cls()
            example = f"{rules.category_names[0]}={max(rules.possible_scores(0))}"
        return Message('filled boxes as box=score pairs, x for a scratch (0), e.g. "{example}"',
                       example=SheetText(self.name, example))

    def __init__(self, cls: type[CategoryRules]):
        self.cls = cls
        self.name = cls.name
        self.title = cls.title
        self._last_turn = None  # (payload, mask, extra, keep values) of the last turn advised

    def option_specs(self):
        return option_specs(self.cls)

    def rules(self, options: Mapping) -> CategoryRules:
        return category_game(self.name, **dict(options))

    def describe(self, rules: CategoryRules) -> dict:
        return {"categories": list(rules.category_names), "sheet_counters": list(rules.sheet_counters)}

    # --- the table -----------------------------------------------------------------

    def table_kind(self, rules) -> str:
        return "category-game"

    def rules_digest(self, rules: CategoryRules) -> str:
        module = sys.modules[type(rules).__module__]
        # the shared rule helpers (_upper.py), not the package's __init__.py, which lists
        # the games: adding one rebuilds no other game's tables
        helpers = sorted(p for p in Path(module.__file__).parent.glob("_*.py")
                         if not p.name.startswith("__"))
        return rules_digest(module, settings="".join(code_text(p.read_text()) for p in helpers))

    def build_units(self, rules: CategoryRules) -> float:
        return int(category.reachable_states(rules).sum())

    def build(self, rules: CategoryRules, progress=None):
        solved = solve_states(rules, progress)
        return solved, self.meta(rules, solved)

    def meta(self, rules: CategoryRules, solved: StateValues) -> dict:
        """What a table's header says of a solved game (checked again on load)."""
        return {"expected_score": solved.expected_score, "states": solved.n_reachable,
                "n_states": rules.n_states, "initial_state": solved.initial_state}

    def to_arrays(self, payload: StateValues) -> dict:
        return {"reachable": np.packbits(payload.reachable), "values": payload.values[payload.reachable]}

    def from_arrays(self, rules: CategoryRules, arrays, meta) -> StateValues:
        if meta.get("n_states") != rules.n_states or meta.get("initial_state") != rules.initial_state:
            # what to do about it is said by the reader (the store: build it anew)
            raise TableError(f"the table does not describe the states of {rules.name}")
        if "reachable" not in arrays or "values" not in arrays:
            raise TableError("the table lacks the arrays of a solved game")
        reachable = np.unpackbits(arrays["reachable"], count=rules.n_states).astype(bool)
        if reachable.sum() != len(arrays["values"]):
            raise TableError("the table is damaged (values do not match its reachable states)")
        values = np.full(rules.n_states, np.nan)
        values[reachable] = arrays["values"]
        return StateValues(values, reachable, rules.initial_state)

    def solve_report(self, solution: Solution) -> dict:
        report = {"states": solution.meta["states"]}
        facts = getattr(solution.rules, "solve_facts", None)
        return {**report, **(facts() if facts else {})}

    # --- advice ----------------------------------------------------------------------

    def check_position(self, rules: CategoryRules, position: Mapping):
        if position.get("roll") is None:
            raise DicewiseError(Message("give the roll number (--roll 1, 2 or 3)"))
        sheet = read_sheet(rules, position.get("sheet"))
        faces = check_position(rules, sheet, position.get("dice", ()), position["roll"])
        return sheet, faces, position["roll"]

    def advise(self, solution: Solution, position: Mapping) -> Advice:
        sheet, faces, roll = self.check_position(solution.rules, position)
        keep_values = self._turn(solution, sheet) if roll < 3 else None
        return advise_position(solution.rules, solution.payload, sheet, faces, roll, keep_values)

    def _turn(self, solution: Solution, sheet):
        """The turn at ``sheet`` solved, kept for the next decision: after roll 1 and roll 2
        of one turn (an agent's game judged decision by decision) it is solved once."""
        last = self._last_turn
        same = last is not None and last[0] is solution.payload and last[1:3] == (sheet.mask,
                                                                                 sheet.extra)
        if not same:
            values = turn_keep_values(solution.rules, solution.payload.values, sheet)
            last = self._last_turn = (solution.payload, sheet.mask, sheet.extra, values)
        return last[3]

    def advise_observation(self, solution: Solution, observation: Mapping) -> Advice:
        try:
            sheet = {**observation.get("sheet", {}), **observation.get("counters", {})}
            position = {"sheet": ",".join(f"{k}={v}" for k, v in sheet.items()),
                        "dice": list(observation["dice"]), "roll": observed_roll(observation)}
        except (KeyError, TypeError, ValueError, AttributeError):
            raise DicewiseError("an observation has dice, roll and sheet, as the agent protocol "
                                "writes them") from None
        return self.advise(solution, position)

    # --- play ------------------------------------------------------------------------

    def play(self, solution: Solution, policy: str, games: int, seed: int,
             progress=None) -> Played:
        import time

        rules = solution.rules
        values = solution.payload.values if solution.payload is not None else np.zeros(rules.n_states)
        start = time.perf_counter()
        records = simulate_games(rules, values, policy, games, seed, progress, boxes=False)
        extra = {}
        if rules.first_roll_end() is not None:
            extra["ended_on_first_roll_rate"] = float(records.ended_early.mean())
        return Played(records.scores, time.perf_counter() - start, extra)

    def distribution_units(self, solution: Solution, policy: str) -> int:
        if policy != "optimal" or not strategy.distribution_fits(solution.rules):
            return 0
        return solution.rules.n_categories  # a step a turn

    def score_distribution(self, solution: Solution, policy: str, progress=None) -> dict | None:
        if not self.distribution_units(solution, policy):
            return None
        return strategy.exact_distribution(solution.rules, solution.payload.values,
                                           progress).to_json()

    def strategy_table(self, solution: Solution, what: str, games: int, seed: int, progress=None):
        game, values = solution.rules, solution.payload
        if what == "opening":
            return strategy.opening_table(game, values, progress, games)
        if what == "states":
            return strategy.state_table(game, values, progress, games)
        if what == "categories":
            return strategy.category_table(game, values, games, seed, progress)
        raise DicewiseError(f"unknown table {what!r} for {self.name} (tables: {', '.join(self.tables)})")

    def observation_encoder(self, rules: CategoryRules, actions):
        from ...envs.observe import category_encoder

        return category_encoder(rules, actions)

    def canonical_action(self, action) -> dict:
        if not isinstance(action, dict) or len(action) != 1:
            raise BadAction(f"an action is {{\"keep\": [...]}} or {{\"write\": box}}, not {action!r}")
        (kind, arg), = action.items()
        if kind == "keep":
            return dice.keep_action(arg)
        if kind != "write":
            raise BadAction(Message("unknown action {kind!r} (use keep or write)", kind=kind))
        return action

    def target_sheet(self, rules: CategoryRules, text: str | None):
        return read_sheet(rules, text)

    def state_values(self, solution: Solution) -> StateValues:
        return solution.payload

    def players(self, rules: CategoryRules) -> tuple[int, ...]:
        # The two-player race is solved for games whose sheet is its state (no extra counter).
        return (1, 2) if rules.n_extra == 1 else (1,)

    def table_policies(self, rules: CategoryRules) -> tuple[str, ...]:
        return ("win",) if 2 in self.players(rules) else ()

    def play_seated(self, solution: Solution, seats, deals: int, seed: int, first_deal: int = 0):
        # A race (General: the instant win, a win policy) where the sheet is the state;
        # elsewhere the players never meet and the protocol's solitaires serve.
        if solution.rules.n_extra != 1:
            return super().play_seated(solution, seats, deals, seed, first_deal)
        from ..multiplayer.category_race import seated_race

        values = None if solution.payload is None else solution.payload.values
        return seated_race(solution.rules, values, tuple(seats), deals, seed, first_deal)

    def check_table_position(self, rules: CategoryRules, position, rivals):
        from ..multiplayer.table_advice import table_position

        if "win" not in self.table_policies(rules):
            return super().check_table_position(rules, position, rivals)
        if position.get("roll") is None:
            raise DicewiseError(Message("give the roll number (--roll 1, 2 or 3)"))
        me = read_sheet(rules, position.get("sheet") or None)
        others = rival_sheets(lambda r: read_sheet(rules, r.get("sheet") or None), rivals)
        table_position(rules, me, others, len(others) + 1)
        check_position(rules, me, position.get("dice", ()), position.get("roll"))
        return me, others

    def advise_table(self, solution: Solution, position, rivals) -> Advice:
        from ..multiplayer.table_advice import advise_table

        me, others = self.check_table_position(solution.rules, position, rivals)
        return advise_table(solution.rules, solution.payload, me, others,
                            position.get("dice", ()), position.get("roll"))

    def player_sheet(self, rules: CategoryRules):
        from .player import CategorySheet

        return CategorySheet(rules)

    def settlement(self, rules: CategoryRules, finals) -> list | None:
        # poker-programs settles money as score − mean (RULES.md section 2).
        if not getattr(rules, "settles_to_mean", False):
            return None
        mean = sum(finals) / len(finals)
        return [f - mean for f in finals]

    def action_space(self, rules: CategoryRules) -> tuple[dict, ...]:
        """Every keep of ``dice.KEEPS`` (0 to 5 dice), then every box in sheet order."""
        return (tuple({"keep": dice.faces_of(k)} for k in dice.KEEPS)
                + tuple({"write": name} for name in rules.category_names))

    def episodes(self, solution: Solution, seed: int, games: int) -> Iterator[Episode]:
        turns = solution.rules.n_categories
        index = 0
        for chunk in dice_chunks(seed, games, turns, EPISODE_CHUNK):
            for stream in chunk:
                yield CategoryEpisode(solution, index, stream)
                index += 1

    def episode(self, solution: Solution, seed: int, index: int) -> Episode:
        dealt = game_dice(seed, index, solution.rules.n_categories, EPISODE_CHUNK)
        return CategoryEpisode(solution, index, dealt)


#: Games of dice drawn at a time for agents' episodes: a run of 10⁷ games holds one chunk.
EPISODE_CHUNK = 1024


class CategoryEpisode(Episode):
    """One category game for an agent: the dice of game ``index`` of the simulator's stream."""

    def __init__(self, solution: Solution, index: int, stream: np.ndarray):
        self.game: CategoryGame = solution.game
        self.rules: CategoryRules = solution.rules
        self.values = solution.payload.values
        self.index, self.stream = index, stream
        self.mask, self.extra = 0, self.rules.initial_extra
        self.points, self.sheet, self.bonus_count = 0.0, {}, 0
        self.turn, self.ended, self.kept = 0, False, np.zeros(dice.N_FACES, np.int64)
        self._options = None  # the last position's write options: an observation, then its move
        self._throw(1)

    def _throw(self, roll: int) -> None:
        self.roll_number = roll
        self.roll = int(roll_from(self.kept[None, :], self.stream[self.turn, roll - 1][None, :])[0])
        end = self.rules.first_roll_end()
        if roll == 1 and end is not None and not np.isnan(end[self.roll]):
            self.ended = True  # a first-roll five of a kind ends the game (RULES.md §1)

    @property
    def done(self) -> bool:
        return self.ended or self.mask == (1 << self.rules.n_categories) - 1

    @property
    def score(self) -> float:
        if self.mask == (1 << self.rules.n_categories) - 1:
            return self.points + float(self.rules.final_bonus(np.array([self.extra]))[0])
        return self.points

    def _writes(self):
        position = (self.mask, self.extra, self.roll, self.roll_number)
        if self._options is None or self._options[0] != position:
            self._options = (position, write_options(
                self.rules, self.values, np.array([self.mask]), np.array([self.extra]),
                np.array([self.roll]), self.roll_number))
        return self._options[1]

    def observation(self) -> dict:
        faces = dice.faces_of(dice.ROLLS[self.roll])
        names = self.rules.category_names
        opts = self._writes()
        legal = []
        if self.roll_number < 3:
            legal = [{"keep": dice.faces_of(dice.KEEPS[k])} for k in dice.sub_keeps(self.roll)]
        legal += [{"write": names[c]} for c in range(len(names)) if np.isfinite(opts.value[0, c])]
        return {"ruleset": self.rules.name, "options": self.rules.options, "game": self.index,
                "turn": self.turn + 1, "roll": self.roll_number, "dice": faces,
                "sheet": {n: self.sheet[n] for n in names if n in self.sheet},  # sheet order
                "counters": {name: self.bonus_count for name in self.rules.sheet_counters},
                "points": float(self.score), "legal": legal}

    def apply(self, action: dict) -> float:
        if self.done:
            raise BadAction("the game is over")
        faces = dice.faces_of(dice.ROLLS[self.roll])
        (kind, arg), = self.game.canonical_action(action).items()
        if kind == "keep":
            if self.roll_number >= 3:
                raise BadAction("no roll is left: write a box")
            kept = dice.counts_of(arg)
            if (kept > dice.counts_of(faces)).any():
                raise BadAction(f"cannot keep {arg} from dice {faces}")
            self.kept = kept
            self._throw(self.roll_number + 1)
            return 0.0
        names = self.rules.category_names
        opts = self._writes()
        if arg not in names or not np.isfinite(opts.value[0, names.index(arg)]):
            allowed = [names[c] for c in range(len(names)) if np.isfinite(opts.value[0, c])]
            raise BadAction(f"cannot write {arg!r} now (allowed: {', '.join(allowed)})")
        c = names.index(arg)
        points = float(opts.points[0, c])
        self.points += points
        self.sheet[arg] = int(round(opts.score[0, c]))
        self.bonus_count += bool(opts.points[0, c] > opts.score[0, c])
        self.mask, self.extra = divmod(int(opts.next_state[0, c]), self.rules.n_extra)
        if not self.done:
            self.turn += 1
            self.kept = np.zeros(dice.N_FACES, np.int64)
            self._throw(1)
        elif self.mask == (1 << self.rules.n_categories) - 1:
            points += float(self.rules.final_bonus(np.array([self.extra]))[0])
        return points


GENERAL, POKER_PROGRAMS, YAHTZEE, YATZY = (CategoryGame(CATEGORY_GAMES[n]) for n in
                                           ("general", "poker-programs", "yahtzee", "yatzy"))


def read_sheet(rules: CategoryRules, text: str | None):
    """``parse_sheet`` of a sheet as a player types or copies it: its counters may be named
    as a table shows them in any language (``бонусные покеры=1`` is ``yahtzee_bonus=1``)."""
    if text and rules.sheet_counters:
        entries = []
        for entry in text.split(","):
            name, sep, value = entry.partition("=")
            word = notation_word(rules.name, name.strip()) if sep else None
            entries.append(f"{word}={value}" if word in rules.sheet_counters else entry)
        text = ",".join(entries)
    return parse_sheet(rules, text)
