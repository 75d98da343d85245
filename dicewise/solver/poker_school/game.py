"""poker-school (RULES.md section 3) as a protocol game.

One column is solved exactly (``table.build_exact``); two and three columns are played by
the fitted approximate policy (``table.build_policy``), labelled approximate with its
measured error estimate and proven upper bound.  Either way the payload is an evaluator
(``turns``), the turn is solved exactly against it, advice ranks every keep, write and
cross (``advice``), and play is the lockstep simulator ``turns.play``.

**The dice stream.**  Games are played in chunks of ``CHUNK``; every turn, chunk c draws
from the generator seeded ``(seed, c)`` three throws of five dice for every slot of the
chunk (``turns.draw_turn``); a roll after a keep takes the first free dice of its throw.
So the dice of game i depend only on (seed, i) and the dice kept: policies, an agent's
episodes and ``play`` meet the same dice wherever they keep the same dice.

**The agent protocol.**  An observation::

    {"ruleset": "poker-school", "options": {"columns": 3, "school_cross_erases": true,
     "minimums": "seed"}, "game": 0, "turn": 6, "roll": 2, "dice": [2, 5, 5, 5, 6],
     "sheet": {"fives": "15/15", "pair": "12/x", "chance": "44"}, "points": 86,
     "legal": [{"keep": []}, {"keep": [2]}, ..., {"write": "fives"}, {"cross": "fives"},
               ..., {"cross": "chance"}]}

``sheet`` maps each row with a written cell to its cells in the sheet notation (joined by
``,`` as ``row=cells`` it is what ``advise --sheet`` takes; a School cell is the sum of the
dice of its face shown, ``x`` a cross, and a last ``x`` marks a premium a School cross
erased); ``points`` are the points written (standing premiums included, column bonuses
not).  Actions: ``{"keep": [faces]}`` (roll the other dice again; after rolls 1 and 2, faces
sorted), ``{"write": row}`` (score the row's next cell, where the dice qualify) and
``{"cross": row}`` (cross the row's next cell).
"""

from __future__ import annotations

import time
from typing import Iterator, Mapping

import numpy as np

from ... import i18n
from ...errors import DicewiseError
from .. import dice
from ..advice import check_dice
from ..options import option_specs, rules_from
from ..protocol import (OPENING_COLUMNS, Advice, BadAction, Episode, Game, Played, Solution,
                        chunked_episodes)
from . import advice as advisor, table, turns
from .approx import Features
from .rules import N_ROWS, N_SCHOOL, ROW_INDEX, ROW_NAMES, PokerSchoolRules, format_sheet
from .search import SearchEvaluator
from .turns import Batch, GreedyEvaluator

#: Games per chunk of the dice stream (and of the simulator).
CHUNK = 512


class PokerSchoolGame(Game):
    """poker-school: exact for one column, the fitted approximate policy otherwise."""

    name = PokerSchoolRules.name
    title = PokerSchoolRules.title
    exact = False  # one column is exact (see ``rules.exact``); `chance` needs that
    tables = {
        "opening": "the empty sheet: the best choice for every roll 1 and roll 2 dice, the "
                   "runner-up and the margin",
        "rows": "per row under the optimal policy: cells scored, mean cell score, first-roll "
                "writes, premiums earned, when it is written",
    }
    advise_inputs = frozenset({"roll"})
    command_notes = {"chance": "one column only: --option columns=1"}
    #: optimal: the table's policy (a write valued by the fitted value of the sheet it leads
    #: to); search: the next turn solved exactly before that value (``search``), as advice.
    policies = ("optimal", "search", "greedy", "random")
    sheet_help = i18n.Message(
        'rows as row=cells, cells left to right joined by "/", x for a cross, a School cell the '
        'sum of its dice shown; one more entry is the premium (x if erased): '
        '"fives=15/15,pair=12/x,chance=44"; at a table of several, taken= lists the premiums '
        'and column 60s rivals took: "pair=12,taken=fives/column2"')

    # --- rules -----------------------------------------------------------------------

    def option_specs(self):
        return option_specs(PokerSchoolRules)

    def rules(self, options: Mapping) -> PokerSchoolRules:
        return rules_from(PokerSchoolRules, options)

    def describe(self, rules: PokerSchoolRules) -> dict:
        return {"rows": list(ROW_NAMES), "school_rows": list(ROW_NAMES[:N_SCHOOL]),
                "cells_per_row": rules.columns, "turns": rules.turns,
                "solution": "exact" if rules.exact else "approximate",
                "actions": [{"keep": [5, 5]}, {"write": "pair"}, {"cross": "pair"}]}

    # --- the table -------------------------------------------------------------------

    def table_kind(self, rules: PokerSchoolRules) -> str:
        return table.kind(rules)

    def rules_digest(self, rules: PokerSchoolRules) -> str:
        return table.rules_digest(rules)

    def build_units(self, rules: PokerSchoolRules) -> float:
        return table.build_units(rules)

    def build(self, rules: PokerSchoolRules, progress=None):
        return table.build(rules, progress)

    def to_arrays(self, payload) -> dict:
        return table.to_arrays(payload)

    def from_arrays(self, rules: PokerSchoolRules, arrays, meta):
        return table.from_arrays(rules, arrays, meta)

    def test_settings(self) -> dict:
        """A fit of seconds for tests, as {(object, attribute): value}: the prior policy (no
        round of policy iteration), few games, one bound step on the rows alone (not the
        groups at the shipped multipliers, half a minute), no one-column measurement."""
        tiny = table.FitSettings(iterations=0, games=64, average=1, eval_games=64,
                                 bound_iterations=1, bound_groups=False, bound_shipped=False,
                                 measure_gap=False)
        return {(table, "SETTINGS"): tiny}

    def solve_report(self, solution: Solution) -> dict:
        m = solution.meta
        if solution.rules.exact:
            return {"states": m.get("states")}
        return {"weights": Features.of(solution.rules).size, "upper_bound": m.get("upper_bound"),
                "upper_bound_steps": m.get("upper_bound_steps"),
                "error_fraction": m.get("error_fraction"), "eval_games": m.get("eval_games"),
                "predicted_start_value": m.get("predicted_start_value"),
                "one_column_exact": m.get("one_column_exact"),
                "one_column_gap": m.get("one_column_gap")}

    # --- advice ----------------------------------------------------------------------

    def needs_solution(self, policy: str) -> bool:
        return self.policy_aliases.get(policy, policy) in ("optimal", "search")

    def check_position(self, rules: PokerSchoolRules, position: Mapping):
        """(sheet, sorted dice, roll number), or a DicewiseError; needs no table."""
        if position.get("roll") is None:
            raise DicewiseError(i18n.Message("give the roll number (--roll 1, 2 or 3)"))
        sheet = rules.parse_sheet(position.get("sheet"))
        faces = check_dice(position.get("dice", ()))
        roll = advisor.check_roll(position["roll"])
        if not sheet.open_rows(rules.columns):
            raise DicewiseError(i18n.Message("the sheet is full: the game is over"))
        return sheet, faces, roll

    def advise(self, solution: Solution, position: Mapping) -> Advice:
        sheet, faces, roll = self.check_position(solution.rules, position)
        return advisor.advise(solution.rules, solution.payload, sheet, faces, roll,
                              solution.error_estimate, solution.meta.get("upper_bound"),
                              position.get("sheet") or "")

    def advise_observation(self, solution: Solution, observation: Mapping) -> Advice:
        try:
            position = {"sheet": ",".join(f"{k}={v}" for k, v in observation["sheet"].items()),
                        "dice": list(observation["dice"]), "roll": observation["roll"]}
        except (KeyError, TypeError, AttributeError):
            raise DicewiseError("an observation has dice, roll and sheet, as the agent protocol "
                                "writes them") from None
        return self.advise(solution, position)

    # --- at the table: the contested premiums and column 60s (contest.py) -------------

    def table_players(self, rules: PokerSchoolRules) -> tuple[int, ...]:
        from .race import PLAYERS

        return PLAYERS

    def table_policies(self, rules: PokerSchoolRules) -> tuple[str, ...]:
        from .race import POLICIES

        return POLICIES

    def seat_policies(self, rules: PokerSchoolRules) -> tuple[str, ...]:
        from .race import SEAT_POLICIES  # no search at a table: it looks ahead alone

        return SEAT_POLICIES

    def play_seated(self, solution: Solution, seats, deals: int, seed: int, first_deal: int = 0):
        # The players race for the same prizes on dice of their own: see race.py.
        from .race import play_seated

        return play_seated(solution, tuple(seats), deals, seed, first_deal)

    def player_sheet(self, rules: PokerSchoolRules):
        from .player import PokerSchoolSheet

        return PokerSchoolSheet(rules)

    def table_prizes(self, rules: PokerSchoolRules, players: int):
        from .contest import Prizes

        return Prizes.none(rules.columns)

    def settle_prizes(self, rules: PokerSchoolRules, sheets, prizes, mover: int):
        from .player import settle

        return settle(rules, sheets, prizes, mover)

    def check_table_position(self, rules: PokerSchoolRules, position, rivals):
        from .race import table_sheets

        self.check_position(rules, position)
        return table_sheets(rules, position.get("sheet"), [r.get("sheet") for r in rivals])

    def advise_table(self, solution: Solution, position, rivals) -> Advice:
        from .race import advise_at_table

        _, faces, roll = self.check_position(solution.rules, position)
        return advise_at_table(solution.rules, solution.payload, position.get("sheet"),
                               [r.get("sheet") or "" for r in rivals], faces, roll,
                               solution.error_estimate, solution.meta.get("upper_bound"))

    # --- play ------------------------------------------------------------------------

    def play(self, solution: Solution, policy: str, games: int, seed: int,
             progress=None) -> Played:
        start = time.perf_counter()
        tally = Tally(solution.rules, games)
        scores = play_games(solution, self.resolve_policy(policy), games, seed, progress, tally)
        examples = tuple({"sheet": format_sheet(solution.rules, tally.history[i]),
                          "score": int(scores[i])} for i in range(min(3, games)))
        extra = {"mean_rolls_per_turn": float(tally.rolls.sum() / tally.writes.sum()),
                 "mean_crosses": float((tally.writes - tally.scored).sum() / games),
                 "mean_column_bonuses": float(tally.bonuses / games)}
        return Played(scores, time.perf_counter() - start, extra, examples)

    def strategy_table(self, solution: Solution, what: str, games: int, seed: int,
                       progress=None):
        if what == "opening":
            return opening_table(solution)
        if what == "rows":
            tally = Tally(solution.rules, games)
            play_games(solution, "optimal", games, seed, progress, tally)
            return tally.row_table()
        raise DicewiseError(f"unknown table {what!r} for {self.name} "
                            f"(tables: {', '.join(self.tables)})")

    # --- agents ----------------------------------------------------------------------

    def observation_encoder(self, rules, actions):
        from .observation import encoder

        return encoder(rules, actions)

    def canonical_action(self, action) -> dict:
        if not isinstance(action, dict) or len(action) != 1:
            raise BadAction('an action is {"keep": [...]}, {"write": row} or {"cross": row}, '
                            f"not {action!r}")
        (kind, arg), = action.items()
        if kind == "keep":
            return dice.keep_action(arg)
        if kind not in ("write", "cross"):
            raise BadAction(f"unknown action {kind!r} (use keep, write or cross)")
        if not isinstance(arg, str):
            raise BadAction(f"{kind} takes a row name, not {arg!r}")
        return {kind: arg.strip().lower().replace("-", "_")}

    def category_rules(self, rules: PokerSchoolRules):
        """The one-column game (``one_column.OneColumnRules``), the variant solved exactly."""
        if not rules.exact:
            raise DicewiseError(i18n.Message("{game} with these options has no exact solver, so "
                                             "no play for a target", game=self.name))
        return rules.one_column

    def state_values(self, solution: Solution):
        from ..category import StateValues

        if not solution.rules.exact:
            raise DicewiseError(i18n.Message(
                "poker-school is solved exactly for one column only (--option columns=1): play for "
                "a target needs the exact solution"))
        values = solution.payload.values
        return StateValues(values, ~np.isnan(values), solution.rules.one_column.initial_state)

    def action_space(self, rules: PokerSchoolRules) -> tuple[dict, ...]:
        """Every keep of ``dice.KEEPS`` (0 to 5 dice), then a write of every row, then a cross
        of every row, rows in sheet order."""
        return (tuple({"keep": dice.faces_of(k)} for k in dice.KEEPS)
                + tuple({"write": name} for name in ROW_NAMES)
                + tuple({"cross": name} for name in ROW_NAMES))

    def episodes(self, solution: Solution, seed: int, games: int) -> Iterator[Episode]:
        return chunked_episodes(lambda i, throws: PokerSchoolEpisode(solution, i, throws),
                                lambda c: ThrowStream(seed, c), games, CHUNK)

    def episode(self, solution: Solution, seed: int, index: int) -> Episode:
        return PokerSchoolEpisode(solution, index, ThrowStream(seed, index // CHUNK))


POKER_SCHOOL = PokerSchoolGame()


# -- play -----------------------------------------------------------------------------------

def play_games(solution: Solution, policy: str, games: int, seed: int, progress=None,
               tally: "Tally | None" = None) -> np.ndarray:
    """Final scores of ``games`` games of the stream of ``seed`` played with ``policy``."""
    if games < 1:
        raise DicewiseError("the number of games must be at least 1")
    rules = solution.rules
    if policy in ("optimal", "search"):
        if solution.payload is None:
            raise DicewiseError(f"the {policy} policy needs the solved table")
        evaluator, how = solution.payload, "solved"
        if policy == "search" and evaluator.approximate:
            evaluator = SearchEvaluator(evaluator)
    elif policy == "greedy":
        evaluator, how = GreedyEvaluator(rules), "greedy"
    else:
        evaluator, how = None, "random"
    return turns.play(rules, games, seed, how, evaluator, chunk=CHUNK, progress=progress,
                      record=None if tally is None else tally.record,
                      on_write=None if tally is None else tally.write)


class Tally:
    """What a simulation wrote, row by row: the play's statistics and a few example sheets."""

    def __init__(self, game: PokerSchoolRules, games: int, examples: int = 3):
        self.game, self.games, self.examples = game, games, examples
        self.writes = np.zeros(N_ROWS, np.int64)
        self.scored = np.zeros(N_ROWS, np.int64)
        self.points = np.zeros(N_ROWS, np.int64)
        self.first_roll = np.zeros(N_ROWS, np.int64)
        self.turn_sum = np.zeros(N_ROWS, np.int64)
        self.rolls = np.zeros(N_ROWS, np.int64)
        self.premiums = np.zeros(N_ROWS, np.int64)  # games with every cell of the row scored
        self._chunk = np.zeros((0, N_ROWS), np.int8)  # the chunk's games: cells scored per row
        self._first = 0  # the chunk's first game
        self.bonuses = 0
        self.history: list[list] = [[] for _ in range(min(examples, games))]

    def write(self, t, index, rows, scored, points, counts, roll_numbers):
        np.add.at(self.writes, rows, 1)
        np.add.at(self.scored, rows, scored)
        np.add.at(self.points, rows, points)
        np.add.at(self.first_roll, rows, roll_numbers == 1)
        np.add.at(self.turn_sum, rows, t + 1)
        np.add.at(self.rolls, rows, roll_numbers)
        if t == 0:  # a chunk starts (``turns.play`` writes once per game and turn)
            self._first, self._chunk = int(index.min()), np.zeros((len(index), N_ROWS), np.int8)
        self._chunk[index - self._first, rows] += scored.astype(np.int8)
        for i in np.flatnonzero(index < len(self.history)):
            row = int(rows[i])
            shown = int(counts[i, row]) if row < N_SCHOOL else None
            self.history[int(index[i])].append(
                (row, int(points[i]) if scored[i] else None, shown))

    def record(self, t, batch: Batch):
        if t == self.game.turns:
            self.bonuses += int(batch.column_clean.sum())
            self.premiums += (self._chunk == self.game.columns).sum(axis=0)

    def row_table(self):
        """Per row: the share of its cells scored (not crossed), their mean score, the share
        written on roll 1, how often the premium was earned (every cell scored; a School
        cross may erase it later), the cells' points per game and the mean turn of a write."""
        header = ["row", "scored_rate", "mean_cell_score", "first_roll_rate", "premium_rate",
                  "cell_points_per_game", "mean_turn"]
        premium = self.premiums / self.games
        rows = []
        for r in range(N_ROWS):
            w = max(int(self.writes[r]), 1)
            rows.append([i18n.Box(self.game.name, ROW_NAMES[r]), self.scored[r] / w,
                         self.points[r] / self.scored[r] if self.scored[r] else None,
                         self.first_roll[r] / w, float(premium[r]), self.points[r] / self.games,
                         self.turn_sum[r] / w])
        return header, [[v if not isinstance(v, np.generic) else v.item() for v in row]
                        for row in rows]


# -- strategy tables ------------------------------------------------------------------------

def opening_table(solution: Solution):
    """For every roll 1 and roll 2 dice on the empty sheet: best choice, runner-up, margin."""
    rules = solution.rules
    turn = advisor.turn_advice(rules, solution.payload, rules.empty())
    header = list(OPENING_COLUMNS)
    rows = []
    for k in (1, 2):
        for r in range(dice.N_ROLLS):
            best, second = turn.choices(r, k)[:2]
            rows.append([k, " ".join(map(str, dice.faces_of(dice.ROLLS[r]))), _label(rules, best),
                         best.expected, _label(rules, second), second.expected, second.loss])
    return header, rows


def _label(rules: PokerSchoolRules, choice) -> str:
    return i18n.ChoiceLabel(rules.name, choice.action, choice.detail, choice.label)


# -- agents ---------------------------------------------------------------------------------

class ThrowStream:
    """The throws of chunk ``c`` of the stream of ``seed``, turn by turn, for every slot."""

    def __init__(self, seed: int, chunk: int):
        self.rng = np.random.default_rng([seed, chunk])
        self.turns: list[np.ndarray] = []

    def throws(self, slot: int, turn: int) -> np.ndarray:
        """(3, 5) faces 0..5: the three throws game ``slot`` of the chunk meets at ``turn``."""
        while len(self.turns) <= turn:
            self.turns.append(turns.draw_turn(self.rng, CHUNK)[0].astype(np.int8))
        return self.turns[turn][:, slot]


class PokerSchoolEpisode(Episode):
    """Game ``index`` of the dice stream, decision by decision."""

    def __init__(self, solution: Solution, index: int, stream: ThrowStream):
        self.rules: PokerSchoolRules = solution.rules
        self.index, self.stream, self.slot = index, stream, index % CHUNK
        self.batch = Batch.empty(self.rules, 1)
        self.history: list[tuple] = []
        self.turn = 0
        self._start_turn()

    def _start_turn(self) -> None:
        self.throws = self.stream.throws(self.slot, self.turn).astype(np.int64)
        self.roll_number = 1
        self.counts = turns.roll_after_keep(np.zeros((1, 6), np.int64), self.throws[0][None])[0]

    @property
    def done(self) -> bool:
        return self.turn >= self.rules.turns

    @property
    def score(self) -> float:
        if self.done:
            return float(self.batch.final_scores()[0])
        return float(self.batch.banked[0] + self.batch.standing[0])

    def _open(self) -> list[int]:
        return [r for r in range(N_ROWS) if self.batch.filled[0, r] < self.rules.columns]

    def _can_score(self, row: int) -> bool:
        if row < N_SCHOOL:
            return self.counts[row] + self.batch.reserve[0, row] >= 3
        roll = dice.roll_index(self.counts)
        return bool(self.rules.base_points[row, self.roll_number - 1, roll] > 0)

    def legal(self) -> list[dict]:
        out = []
        if self.roll_number < 3:
            roll = dice.roll_index(self.counts)
            out = [{"keep": dice.faces_of(dice.KEEPS[k])} for k in dice.sub_keeps(roll)]
        for r in self._open():
            if self._can_score(r):
                out.append({"write": ROW_NAMES[r]})
            out.append({"cross": ROW_NAMES[r]})
        return out

    def sheet(self) -> dict:
        text = format_sheet(self.rules, self.history)
        return dict(part.split("=") for part in text.split(",")) if text else {}

    def observation(self) -> dict:
        return {"ruleset": self.rules.name, "options": self.rules.options, "game": self.index,
                "turn": self.turn + 1, "roll": self.roll_number,
                "dice": [] if self.done else dice.faces_of(self.counts),
                "sheet": self.sheet(), "points": int(self.score),
                "legal": [] if self.done else self.legal()}

    def apply(self, action: dict) -> float:
        if self.done:
            raise BadAction("the game is over")
        (kind, arg), = POKER_SCHOOL.canonical_action(action).items()
        if kind == "keep":
            if self.roll_number >= 3:
                raise BadAction("no roll is left: write or cross a row")
            kept = dice.counts_of(arg)
            if (kept > self.counts).any():
                raise BadAction(f"cannot keep {arg} from dice {dice.faces_of(self.counts)}")
            self.counts = turns.roll_after_keep(kept[None].astype(np.int64),
                                                self.throws[self.roll_number][None])[0]
            self.roll_number += 1
            return 0.0
        row = ROW_INDEX.get(arg)
        if row is None or row not in self._open():
            open_rows = ", ".join(ROW_NAMES[r] for r in self._open())
            raise BadAction(f"cannot {kind} {arg!r} now (open rows: {open_rows})")
        if kind == "write" and not self._can_score(row):
            raise BadAction(f"dice {dice.faces_of(self.counts)} cannot score {arg} (cross it "
                            "instead)")
        before = self.score
        scored, points = turns.apply_writes(self.rules, self.batch, np.array([row]),
                                            np.array([kind == "write"]), self.counts[None],
                                            np.array([self.roll_number]))
        shown = int(self.counts[row]) if row < N_SCHOOL else None
        self.history.append((row, int(points[0]) if scored[0] else None, shown))
        self.turn += 1
        if not self.done:
            self._start_turn()
        return self.score - before
