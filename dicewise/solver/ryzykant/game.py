"""Ryzykant (RULES.md section 4) as a protocol game: the fitted policy behind every command.

The table is the value model of ``approx`` fitted by ``policy_table.build``; advice ranks
every distinct split of a roll by the value of the position it leads to; play runs the
lockstep simulator; an episode walks one game of the same roll stream for an agent.

**The roll stream.**  Games are played in chunks of ``CHUNK``; chunk c draws its rolls from
the generator seeded ``(seed, c)``, one roll per game slot of the chunk at every step
(``approx.play_games``).  A last chunk with fewer games is padded with games that end on
their first roll, so game i always sees the same rolls whatever the number of games: two
policies, an agent's episodes and ``play`` meet the same rolls game by game (common random
numbers).  With a multiple of ``CHUNK`` games the scores are those of
``policy_table.play``.

**The agent protocol.**  An observation::

    {"ruleset": "ryzykant", "options": {"end_marks": 10, "puscioch": "score"},
     "game": 0, "turn": 9, "dice": [3, 4, 4, 5, 6],
     "sheet": {"6": 4, "7": 7, "8": 5}, "fifth": {"2": 5, "5": 3},
     "points": 380, "puscioch": false,
     "legal": [{"pairs": [[3, 4], [4, 5]], "fifth": 6}, ...]}

``turn`` counts the rolls played so far plus this one; ``sheet`` and ``fifth`` are the
sheet notation (pair sum or fifth-die face -> marks, entries without marks left out);
``points`` is the score if the game ended now; ``puscioch`` says the roll shows none of
three chosen faces (the fifth die then marks nothing).  An action is a split,
``{"pairs": [[a, b], [c, d]], "fifth": e}``, in canonical form: each pair low die first,
the pair with the lower sum first (on equal sums the lower pair).  The two sums decide the
split: the fifth die is what is left of the roll.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from functools import cached_property
from typing import Iterator, Mapping

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message, Number, Plural
from .. import blas_threads, dice, fixed_order
from ..digest import rules_digest
from ..options import option_specs, rules_from
from ..protocol import (COMMANDS, Advice, BadAction, Choice, Episode, Game, Played, Solution,
                        chunked_episodes, rival_sheets, same_but_for_rounding,
                        with_loss_errors)
from . import approx, policy_table, rules as rz, search
from .rules import N_SUMS, SUMS, VALUES, Position, RyzykantRules

#: Games per chunk of the roll stream (as ``policy_table.play``).
CHUNK = 20_000
#: ``loss_error`` = LOSS_ERROR_SCALE × |the search's change of the loss| + LOSS_ERROR_FLOOR
#: (points), set on the exactly solved end_marks=2 game, where it covered 94% of the exact
#: losses (docs/ryzykant.md); a floor in points would not carry over to the full game's scale.
LOSS_ERROR_SCALE = 3.0
LOSS_ERROR_FLOOR = 0.0
#: The most marks of one pair sum a sheet to advise on may hold.  The value model's lookups
#: reach ``approx.N_MAX`` marks and searched advice looks three rolls (six marks) past the
#: sheet; further on its values would be those of a smaller sheet, and from about 255 marks
#: the points overflow 64-bit integers.  A game without puściochy gives a sum at most 56
#: marks (28 rolls), so only a sheet of many puściochy on one sum is refused.
MOST_SUM_MARKS = approx.N_MAX - 6


def check_sum_marks(pos: Position) -> Position:
    """``pos`` if no pair sum has more than ``MOST_SUM_MARKS`` marks, else DicewiseError."""
    for s, n in zip(SUMS, pos.upper):
        if n > MOST_SUM_MARKS:
            raise DicewiseError(Message("sum {sum} has {marks} marks; dicewise values sheets of "
                                        "at most {most} marks a sum (a game without puściochy "
                                        "gives a sum at most 56)", sum=int(s), marks=int(n),
                                        most=MOST_SUM_MARKS))
    return pos


@dataclass(frozen=True)
class BuildSettings:
    """The fit's schedule: rounds of policy iteration, games per round, evaluation games."""

    rounds: int = policy_table.BUILD_ROUNDS
    games: int = policy_table.BUILD_GAMES
    eval_games: int = policy_table.EVAL_GAMES
    seed: int = 1


#: The schedule of every build.  It is part of the rules digest, so a table fitted with
#: another schedule (tests use tiny ones) is never taken for this one.
BUILD = BuildSettings()


@dataclass(frozen=True, eq=False)
class Fitted:
    """The payload: the fitted value model, with its dense lookup table made once."""

    model: approx.ValueModel

    @cached_property
    def dense(self) -> np.ndarray:
        return self.model.dense()


class RyzykantGame(Game):
    """Ryzykant, played by the fitted value model (approximate, with a measured error)."""

    name = RyzykantRules.name
    title = RyzykantRules.title
    exact = False
    commands = COMMANDS - {"chance"}  # no exact solver to play for a target with
    #: optimal: the table's one-roll lookahead; search: two rolls deep on the best three
    #: splits; value: the fitted model alone, without lookahead.
    policies = ("optimal", "search", "value", "greedy", "random")
    tables = {
        "splits": "the best split of every roll at the start and at two positions of a typical "
                  "game (game 0 of the seed, a third and two thirds in), the runner-up, the margin",
        "sums": "per pair sum under the optimal policy: marks, boxes closed, points won, how "
                "often it ends below zero",
    }
    advise_inputs = frozenset({"fifth"})
    sheet_help = Message('pair-sum marks as SUM=MARKS, e.g. "6=4,7=7,8=5"; fifth-die marks '
                         '(--fifth) as FACE=MARKS, e.g. "2=5,5=3"')

    # --- rules -----------------------------------------------------------------------

    def option_specs(self):
        return option_specs(RyzykantRules)

    def rules(self, options: Mapping) -> RyzykantRules:
        return rules_from(RyzykantRules, options)

    def describe(self, rules: RyzykantRules) -> dict:
        return {"pair_sums": [int(s) for s in SUMS],
                "box_values": {str(s): int(v) for s, v in zip(SUMS, VALUES)},
                "box": rz.BOX, "fifth_faces": rz.LOWER_FACES, "end_marks": rules.end_marks,
                "action": {"pairs": [[3, 4], [4, 5]], "fifth": 6}}

    # --- the table -------------------------------------------------------------------

    def table_kind(self, rules) -> str:
        return policy_table.KIND

    def rules_digest(self, rules) -> str:
        return rules_digest(rz, approx, policy_table, blas_threads, fixed_order,
                            settings=repr(BUILD))

    def build_units(self, rules) -> float:
        return policy_table.build_steps(BUILD.rounds, BUILD.games, rules)

    def build(self, rules: RyzykantRules, progress=None):
        # One BLAS thread: the table is then a function of the code and BUILD alone.
        with blas_threads.single_blas_thread():
            table = policy_table.build(rules, progress, rounds=BUILD.rounds, games=BUILD.games,
                                       eval_games=BUILD.eval_games, seed=BUILD.seed)
        return Fitted(table.model), {"approximate": True, **table.meta}

    def to_arrays(self, payload: Fitted) -> dict:
        return payload.model.arrays()

    def from_arrays(self, rules, arrays, meta) -> Fitted:
        return Fitted(policy_table.from_arrays(arrays).model)

    def needs_solution(self, policy: str) -> bool:
        return policy in policy_table.TABLE_POLICIES

    def table_policies(self, rules) -> tuple[str, ...]:
        return ("win",)

    def play_seated(self, solution: Solution, seats, deals: int, seed: int, first_deal: int = 0):
        # Every player splits the same rolls (RULES.md section 4): see race.py.
        from .race import play_seated

        return play_seated(solution, tuple(seats), deals, seed, first_deal)

    def check_table_position(self, rules: RyzykantRules, position, rivals):
        """(my position, the roll, [(rival position, ended)]): on shared rolls every player
        still in the game has split as many rolls as the mover, or this one too (the thrower
        splits first; RULES.md section 4), a finished one no more (with
        ``puscioch=reroll`` a player skips a roll they cannot split, so counts may differ)."""
        from .race import rival_position

        pos, roll = self.check_position(rules, position)
        others = rival_sheets(lambda r: rival_position(rules, r.get("sheet"), r.get("fifth")),
                              rivals)
        if rules.puscioch == "score":
            for p, ended in others:
                if p.rolls > pos.rolls + 1 or (p.rolls < pos.rolls and not ended):
                    raise DicewiseError(Message(
                        "sheets from different stages of a game: the mover has split {mine} "
                        "rolls, a rival {theirs}; on shared rolls a rival still playing has "
                        "split {mine} (or {next}: this roll too), one whose game ended no more",
                        mine=pos.rolls, theirs=p.rolls, next=pos.rolls + 1))
        return pos, roll, others

    def advise_table(self, solution: Solution, position, rivals) -> Advice:
        from .race import advise_at_table

        pos, roll, others = self.check_table_position(solution.rules, position, rivals)
        if solution.payload is None:
            raise DicewiseError("the win policy needs the fitted table")
        return advise_at_table(solution, pos, roll, others)

    def test_settings(self) -> dict:
        """A fit of about a second for tests, as {(object, attribute): value}."""
        return {(sys.modules[__name__], "BUILD"): BuildSettings(rounds=2, games=2000,
                                                                eval_games=2000),
                (policy_table, "RESIDUAL_POSITIONS"): 100}

    def solve_report(self, solution: Solution) -> dict:
        m = solution.meta
        # the count grouped as every other count the report shows (20,000; 20 000)
        kind = (policy_table.score_kind(Number(m["eval_games"]), exact=m.get("exact") is not None)
                if "eval_games" in m else None)
        exact = m.get("exact")
        if exact is not None:  # a policy as good as the optimum has a gap of 0, not -1.1e-13
            exact = {**exact, "policies": {
                name: {**policy, "gap": _noise_is_zero(policy["gap"], exact["optimum"])}
                for name, policy in exact["policies"].items()}}
        # the fitted value of the empty sheet, named as poker-school names it
        return {"predicted_start_value": m.get("value_at_start"),
                "bellman_residual_rms": _noise_is_zero(m.get("bellman_residual_rms"),
                                                       m.get("value_at_start")),
                "parameters": m.get("parameters"), "eval_games": m.get("eval_games"),
                "expected_score_kind": kind,
                # the exact optimum and the policy's exact gap, for variants solved exactly
                "exact": exact}

    # --- advice ----------------------------------------------------------------------

    def check_position(self, rules: RyzykantRules, position: Mapping) -> tuple[Position, int]:
        """The sheet and the roll index, or a DicewiseError (no table is needed for this)."""
        pos = check_sum_marks(rz.parse_position(rules, position.get("sheet"),
                                                position.get("fifth")))
        roll = rz.parse_dice(position.get("dice", ()))
        if rules.puscioch == "reroll":
            _, pusc = rz.legal_splits(np.array([pos.lower]), np.array([roll]))
            if pusc[0]:
                raise DicewiseError(Message("with puscioch=reroll this roll (none of the three "
                                            "chosen faces) is thrown again"))
        return pos, roll

    def advise(self, solution: Solution, position: Mapping) -> Advice:
        rules = solution.rules
        pos, roll = self.check_position(rules, position)
        return _advice(solution, pos, roll)

    def advise_observation(self, solution: Solution, observation: Mapping) -> Advice:
        try:
            position = {"sheet": _notation(observation.get("sheet", {})),
                        "fifth": _notation(observation.get("fifth", {})),
                        "dice": list(observation["dice"])}
        except (KeyError, TypeError, AttributeError):
            raise DicewiseError("an observation has dice, sheet and fifth, as the agent protocol "
                                "writes them") from None
        return self.advise(solution, position)

    # --- at the table: every player splits every roll ---------------------------------

    shared_rolls = True

    def player_sheet(self, rules: RyzykantRules):
        from .player import RyzykantSheet

        return RyzykantSheet(rules)

    # --- play ------------------------------------------------------------------------

    def play(self, solution: Solution, policy: str, games: int, seed: int,
             progress=None) -> Played:
        start = time.perf_counter()
        scores, rolls, puscioch, examples = [], 0, 0, ()
        # chunk by chunk, holding the scores alone: a long run's sheets need not fit in memory
        for played in played_chunks(solution, self.resolve_policy(policy), games, seed,
                                    progress):
            examples = examples or tuple(
                {"sheet": rz.format_sheet(played.upper[i]),
                 "fifth": rz.format_fifth(played.lower[i]),
                 "rolls": int(played.rolls[i]), "score": int(played.scores[i])}
                for i in range(min(3, games)))
            scores.append(played.scores)
            rolls += int(played.rolls.sum())
            puscioch += int(played.puscioch.sum())
        extra = {"mean_rolls": rolls / games, "mean_puscioch": puscioch / games}
        return Played(np.concatenate(scores), time.perf_counter() - start, extra, examples)

    def strategy_table(self, solution: Solution, what: str, games: int, seed: int,
                       progress=None):
        if what == "splits":
            return split_table(solution, seed)
        if what == "sums":
            return sum_table(play_games(solution, "optimal", games, seed, progress))
        raise DicewiseError(f"unknown table {what!r} for {self.name} "
                            f"(tables: {', '.join(self.tables)})")

    # --- agents ----------------------------------------------------------------------

    def observation_encoder(self, rules, actions):
        from .observation import encoder

        return encoder(rules, actions)

    def canonical_action(self, action) -> dict:
        try:
            (a, b), (c, d) = action["pairs"]
            fifth = action["fifth"]
            faces = (a, b, c, d, fifth)
            if len(action) != 2 or not all(isinstance(v, int) and not isinstance(v, bool)
                                           and 1 <= v <= 6 for v in faces):
                raise ValueError
        except (TypeError, ValueError, KeyError):
            raise BadAction('a split is {"pairs": [[a, b], [c, d]], "fifth": e} with faces '
                            f"1..6, not {action!r}") from None
        return split_action(tuple(sorted((a, b))), tuple(sorted((c, d))), fifth)

    def action_space(self, rules) -> tuple[dict, ...]:
        """Every split of any roll in canonical form, by (low sum, high sum, fifth, pairs)."""
        splits = {}
        for r in range(dice.N_ROLLS):
            for j in range(int(rz.SPLIT_N[r])):
                p = rz.SPLIT_PAIRS[r, j]
                action = split_action(p[:2], p[2:], rz.SPLIT_F[r, j])
                (a, b), (c, d) = action["pairs"]
                splits[(a + b, c + d, action["fifth"], a, c)] = action
        return tuple(splits[k] for k in sorted(splits))

    def episodes(self, solution: Solution, seed: int, games: int) -> Iterator[Episode]:
        return chunked_episodes(lambda i, rolls: RyzykantEpisode(solution, i, rolls),
                                lambda c: RollStream(seed, c), games, CHUNK)

    def episode(self, solution: Solution, seed: int, index: int) -> Episode:
        return RyzykantEpisode(solution, index, RollStream(seed, index // CHUNK))


RYZYKANT = RyzykantGame()


# -- actions and advice ---------------------------------------------------------------------

def split_action(one, two, fifth: int) -> dict:
    """The canonical action of a split: each pair low die first, the lower sum first."""
    one, two = sorted((tuple(one), tuple(two)), key=lambda p: (sum(p), p))
    return {"pairs": [[int(one[0]), int(one[1])], [int(two[0]), int(two[1])]], "fifth": int(fifth)}


def _notation(marks: Mapping) -> str:
    return ",".join(f"{k}={v}" for k, v in marks.items())


def _marks(table, keys) -> dict:
    return {str(k): int(n) for k, n in zip(keys, table) if n}


def _values(solution: Solution, pos: Position, rolls: np.ndarray):
    """Split values of ``rolls`` in ``pos``: (values (R, 15), legal (R, 15), puscioch (R,))."""
    n = len(rolls)
    up = np.repeat(np.array([pos.upper], dtype=np.int64), n, axis=0)
    lo = np.repeat(np.array([pos.lower], dtype=np.int64), n, axis=0)
    legal, pusc = rz.legal_splits(lo, rolls)
    vals = approx.move_values(solution.payload.dense, solution.rules, up, lo, rolls, legal, pusc)
    return vals, legal, pusc


def _advice(solution: Solution, pos: Position, roll: int) -> Advice:
    """Every distinct legal split of ``roll`` in ``pos``, best first (slot order on ties).

    Splits are valued by the search (``search.search``: two rolls of exact expectation
    before the value model, every split, with no time budget: the advice, the environments'
    ``optimal_action`` and the judgement of ``bench-agent`` depend on the position alone);
    each carries its ``loss_error``, from how far the search moved its loss from the
    table's (depth 1).
    """
    rules = solution.rules
    found = search.search(solution.payload.dense, rules, pos, roll)
    shallow = dict(zip(found.slots.tolist(), found.table))
    value = dict(zip(found.slots.tolist(), found.searched))
    moves = rz.moves(rules, pos, roll)
    # Slots are ordered by (low sum, high sum): a stable sort keeps the policy's tie-break.
    moves.sort(key=lambda m: -round(float(value[m.slot]), 9))
    best = float(value[moves[0].slot])
    top = max(float(shallow[m.slot]) for m in moves)
    choices = tuple(_choice(m, float(value[m.slot]), best) for m in moves)
    # Where every split ends the game (always with end_marks=1) each value is its final
    # score: the advice is exact.
    exact = all(m.ends for m in moves)
    if not exact:
        choices = with_loss_errors(choices,
                                   tuple(_choice(m, float(shallow[m.slot]), top) for m in moves),
                                   LOSS_ERROR_SCALE, LOSS_ERROR_FLOOR)
    start = float(approx.values_before(solution.payload.dense, np.array([pos.upper]),
                                       np.array([pos.lower]))[0])
    faces = dice.faces_of(dice.ROLLS[roll])
    # The value at the start is the model's: its measured error is the Bellman residual,
    # which may exceed the error of the expected score at the start.
    err = max(solution.error_estimate or 0.0, solution.meta.get("bellman_residual_rms") or 0.0)
    # How sure the values are is the values line's; the headline says how they were found.
    values = Message("every split ends the game") if exact else Plural(
        "splits searched {depth} roll deep", "splits searched {depth} rolls deep", found.depth,
        depth=found.depth)
    headline = Plural("ryzykant: dice {dice}; sheet {sheet}; fifth {fifth}; {rolls} roll, "
                      "{points} points now; {values}",
                      "ryzykant: dice {dice}; sheet {sheet}; fifth {fifth}; {rolls} rolls, "
                      "{points} points now; {values}", pos.rolls,
                      dice=" ".join(map(str, faces)), sheet=pos.sheet or Message("(empty)"),
                      fifth=pos.fifth or Message("(none)"), rolls=pos.rolls,
                      points=pos.score, values=values)
    position = {"dice": faces, "sheet": pos.sheet, "fifth": pos.fifth, "points": pos.score,
                "rolls": pos.rolls}
    return Advice(rules.name, rules.options, position, choices, headline, start,
                  approximate=not exact, error_estimate=None if exact else err)


def _choice(m: rz.Move, value: float, best: float) -> Choice:
    (a, b), (c, d) = m.pairs
    note = (" (puścioch: no fifth-die mark)" if m.puscioch
            else " (ends the game)" if m.ends else "")
    fifth = "-" if m.puscioch else str(m.fifth)
    label = f"{a}+{b} {c}+{d}, fifth {fifth}{note}"
    return Choice(split_action(*m.pairs, m.fifth), label, value, best - value,
                  {"sums": list(m.sums), "ends_game": m.ends, "puscioch": m.puscioch})


# -- play -----------------------------------------------------------------------------------

def _policy(solution: Solution, name: str, seed: int) -> approx.Policy:
    rules = solution.rules
    if name == "optimal":
        if solution.payload is None:
            raise DicewiseError("the optimal policy needs the fitted table")
        return approx.model_policy(solution.payload.dense, rules)
    table = None
    if name in policy_table.TABLE_POLICIES:
        table = policy_table.PolicyTable(solution.payload.model, dict(solution.meta))
    return policy_table.make_policy(name, rules, table, seed)


def played_chunks(solution: Solution, policy: str, games: int, seed: int, progress=None):
    """``games`` games of the roll stream of ``seed`` (module docstring) with ``policy``, a
    chunk of ``CHUNK`` games at a time (``approx.Games`` each)."""
    if games < 1:
        raise DicewiseError("the number of games must be at least 1")
    rules = solution.rules
    choose = _policy(solution, policy, seed)
    for c, lo in enumerate(range(0, games, CHUNK)):
        n = min(CHUNK, games - lo)
        # Slots past the last game start with every face at the end: their first roll ends them.
        start_lower = np.zeros((CHUNK, 6), np.int64)
        start_lower[n:] = rules.end_marks
        played = approx.play_games(rules, choose, CHUNK, seed=[seed, c],
                                   start_upper=np.zeros((CHUNK, N_SUMS), np.int64),
                                   start_lower=start_lower)
        yield approx.Games(played.upper[:n], played.lower[:n], played.rolls[:n],
                           played.puscioch[:n])
        if progress:
            progress(n)


def play_games(solution: Solution, policy: str, games: int, seed: int,
               progress=None) -> approx.Games:
    """``played_chunks`` in one ``approx.Games``: every game's sheet (152 bytes a game)."""
    parts = list(played_chunks(solution, policy, games, seed, progress))
    return approx.Games(*(np.concatenate([getattr(p, k) for p in parts])
                          for k in ("upper", "lower", "rolls", "puscioch")))


class RollStream:
    """The rolls of chunk ``c`` of the stream of ``seed``, step by step, for every slot."""

    def __init__(self, seed: int, chunk: int):
        self.rng = np.random.default_rng([seed, chunk])
        self.steps: list[np.ndarray] = []

    def roll(self, slot: int, step: int) -> int:
        """The roll index game ``slot`` of the chunk sees at its ``step``-th step."""
        while len(self.steps) <= step:
            self.steps.append(approx.draw_rolls(self.rng, CHUNK).astype(np.uint8))
        return int(self.steps[step][slot])


class RyzykantEpisode(Episode):
    """Game ``index`` of the roll stream, decision by decision (one split per roll)."""

    def __init__(self, solution: Solution, index: int, stream: RollStream):
        self.rules: RyzykantRules = solution.rules
        self.index, self.stream, self.slot = index, stream, index % CHUNK
        self.pos = Position()
        self.step, self.ended = 0, False
        self._draw()

    def _draw(self) -> None:
        """The next roll of this game (a puścioch is thrown again under ``puscioch=reroll``)."""
        while True:
            self.roll = self.stream.roll(self.slot, self.step)
            self.step += 1
            self.moves = rz.moves(self.rules, self.pos, self.roll)
            if not (self.rules.puscioch == "reroll" and self.moves[0].puscioch):
                return

    @property
    def done(self) -> bool:
        return self.ended

    @property
    def score(self) -> float:
        return float(self.pos.score)

    def observation(self) -> dict:
        faces = [] if self.ended else dice.faces_of(dice.ROLLS[self.roll])
        return {"ruleset": self.rules.name, "options": self.rules.options, "game": self.index,
                "turn": self.pos.rolls + (0 if self.ended else 1), "dice": faces,
                "sheet": _marks(self.pos.upper, SUMS), "fifth": _marks(self.pos.lower, range(1, 7)),
                "points": self.pos.score,
                "puscioch": bool(not self.ended and self.moves[0].puscioch),
                "legal": [] if self.ended else
                [split_action(*m.pairs, m.fifth) for m in self.moves]}

    def apply(self, action: dict) -> float:
        if self.ended:
            raise BadAction("the game is over")
        action = RYZYKANT.canonical_action(action)
        for m in self.moves:
            if split_action(*m.pairs, m.fifth) == action:
                break
        else:
            raise BadAction(f"{action} is not a split of dice "
                            f"{dice.faces_of(dice.ROLLS[self.roll])} allowed here")
        before = self.pos.score
        self.pos, self.ended = rz.play(self.rules, self.pos, self.roll, m.slot)
        if not self.ended:
            self._draw()
        return float(self.pos.score - before)


# -- strategy tables ------------------------------------------------------------------------

def typical_positions(solution: Solution, seed: int) -> list[tuple[str, Position]]:
    """The start, and where game 0 of ``seed`` stands a third and two thirds into the game
    under the optimal policy (positions before a roll)."""
    ep = RYZYKANT.episode(solution, seed, 0)
    before = []
    while not ep.done:
        before.append(ep.pos)
        ep.apply(_advice(solution, ep.pos, ep.roll).best.action)
    picks = [(Message("start"), before[0])]
    for pos in (before[len(before) // 3], before[2 * len(before) // 3]):
        if all(p != pos for _, p in picks):
            picks.append((Plural("sheet {sheet} fifth {fifth} ({rolls} roll)",
                                 "sheet {sheet} fifth {fifth} ({rolls} rolls)", pos.rolls,
                                 sheet=pos.sheet or "-", fifth=pos.fifth or "-", rolls=pos.rolls),
                          pos))
    return picks


def split_table(solution: Solution, seed: int):
    """Best split of every roll at the typical positions, with the runner-up and the margin."""
    header = ["position", "dice", "best", "expected", "runner_up", "runner_up_expected", "margin"]
    rows = []
    rolls = np.arange(dice.N_ROLLS)
    for label, pos in typical_positions(solution, seed):
        vals, legal, pusc = _values(solution, pos, rolls)
        for r in rolls:
            faces = " ".join(map(str, dice.faces_of(dice.ROLLS[r])))
            if solution.rules.puscioch == "reroll" and pusc[r]:
                rows.append([label, faces, Message("thrown again"), None, None, None, None])
                continue
            order = sorted(np.flatnonzero(legal[r]), key=lambda j: -vals[r, j])
            names = [_split_label(r, j, pusc[r]) for j in order]
            best = float(vals[r, order[0]])
            if len(order) > 1:
                second = float(vals[r, order[1]])
                rows.append([label, faces, names[0], best, names[1], second, best - second])
            else:
                rows.append([label, faces, names[0], best, None, None, None])
    return header, rows


def _split_label(roll: int, slot: int, pusc: bool) -> str:
    p = rz.SPLIT_PAIRS[roll, slot]
    fifth = "-" if pusc else str(int(rz.SPLIT_F[roll, slot]))
    return Message("{a}+{b} {c}+{d}, fifth {e}", a=p[0], b=p[1], c=p[2], d=p[3], e=fifth)


def sum_table(played: approx.Games):
    """Per pair sum: mean marks, boxes closed, points won and how often it ends below zero."""
    header = ["sum", "box_value", "mean_marks", "mean_boxes_closed", "closed_a_box_rate",
              "mean_points", "negative_rate", "share_of_score"]
    upper = played.upper
    points = rz.box_score(upper, VALUES[None, :])
    total = float(points.sum(axis=1).mean())
    rows = []
    for s in range(N_SUMS):
        mean_points = float(points[:, s].mean())
        rows.append([int(SUMS[s]), int(VALUES[s]), float(upper[:, s].mean()),
                     float((upper[:, s] // rz.BOX).mean()), float((upper[:, s] >= rz.BOX).mean()),
                     mean_points, float((points[:, s] < 0).mean()),
                     mean_points / total if total else None])
    return header, rows


def _noise_is_zero(difference, scale):
    """0 for a difference that leaves ``scale`` the same but for rounding (a gap of -1.1e-13
    to the optimum), else ``difference`` as it is."""
    if difference is None or scale is None:
        return difference
    return 0.0 if same_but_for_rounding(scale, scale + difference) else difference
