"""The Python API: every operation of the command line, for every ruleset, through the protocol.

Each function takes a ruleset name (or its protocol object) and options as a dict or as
``KEY=VALUE`` strings, and returns a frozen result whose ``to_json()`` is exactly what the
command's ``--json`` prints.  ``progress`` is an optional factory ``(units, label) ->
context manager yielding update(done)``: the command line passes progress bars, scripts
usually pass nothing.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .errors import DicewiseError
from .solver.protocol import Advice, Game, Solution, unsupported
from .solver.registry import get_game
from .solver.stats import PairedComparison, ScoreSummary
from .tables import store


def game_of(ruleset) -> Game:
    """The protocol object of a ruleset name (or the object itself)."""
    return ruleset if isinstance(ruleset, Game) else get_game(ruleset)


def make_rules(ruleset, options=None):
    """(game, rules) for a ruleset name and options (dict or ``KEY=VALUE`` strings)."""
    game = game_of(ruleset)
    return game, game.rules(game.parse_options(options))


def _needs(game: Game, command: str) -> None:
    if command not in game.commands:
        raise unsupported(game, command)


def for_command(ruleset, command: str, options=None):
    """(game, rules) for a command, refusing a game that lacks it or bad options, in one line."""
    game, rules = make_rules(ruleset, options)
    _needs(game, command)
    return game, rules


def _quiet(units, label):
    return contextlib.nullcontext(None)


def solve(ruleset, options=None, *, table=None, rebuild: bool = False, progress=None) -> Solution:
    """Solve (or fit) a ruleset, reusing its table when present (``rebuild`` forces a new one)."""
    game, rules = for_command(ruleset, "solve", options)
    return store.solution(game, rules, table, rebuild=rebuild, progress_factory=progress)


def solve_report(solution: Solution) -> dict:
    """What ``dicewise solve --json`` prints for a solution."""
    game = solution.game
    report = {"ruleset": game.name, "rule_options": solution.rule_options,
              "expected_score": solution.expected_score, "approximate": solution.approximate,
              "ci95": list(solution.ci95) if solution.ci95 else None,
              "error_estimate": solution.error_estimate,
              "seconds": round(solution.seconds, 3), "built": solution.built,
              "table": str(solution.table) if solution.table else None}
    return {**report, **game.solve_report(solution)}


def advise(ruleset, *, dice, roll: int | None = None, sheet: str | None = None,
           fifth: str | None = None, options=None, table=None, progress=None) -> Advice:
    """Rank every choice in a position: ``advise("general", dice=[2,2,4,6,6], roll=1)``.

    The position is checked before any table is built; an explicit ``table`` must exist.
    """
    game, rules = for_command(ruleset, "advise", options)
    position = {"dice": list(dice), "sheet": sheet or None}
    for key, value in (("roll", roll), ("fifth", fifth)):
        if value is not None:
            if key not in game.advise_inputs:
                raise DicewiseError(f"{game.name} takes no --{key}")
            position[key] = value
    game.check_position(rules, position)
    solution = store.solution(game, rules, table, must_exist=table is not None,
                              progress_factory=progress)
    return game.advise(solution, position)


@dataclass(frozen=True)
class Simulation:
    """Simulated games of one policy: the scores' summary and what the game adds."""

    ruleset: str
    rule_options: Mapping[str, Any]
    policy: str
    seed: int
    summary: ScoreSummary
    games_per_second: float
    approximate: bool  # the policy is the best dicewise has, not a proven optimum
    expected_score: float | None  # the solved (or fitted) value of the optimal policy
    error_estimate: float | None
    extra: Mapping[str, Any] = field(default_factory=dict)
    scores: np.ndarray = field(default=None, repr=False)

    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "rule_options": dict(self.rule_options),
                "policy": self.policy, "seed": self.seed, **self.summary.to_json(),
                "games_per_second": self.games_per_second, "approximate": self.approximate,
                "expected_score": self.expected_score, "error_estimate": self.error_estimate,
                **dict(self.extra)}


def _played(game: Game, rules, policy: str, games: int, seed: int, table, progress):
    """(solution, Played) of one policy; a policy that needs no table builds none."""
    if games < 1:
        raise DicewiseError("the number of games must be at least 1")
    policy = game.resolve_policy(policy)
    if game.needs_solution(policy):
        solution = store.solution(game, rules, table, progress_factory=progress)
    else:
        solution = Solution(game, rules, None, {}, None, False, 0.0)
    with (progress or _quiet)(games, f"playing {games:,} games ({policy})") as update:
        played = game.play(solution, policy, games, seed, update)
    return solution, policy, played


def simulate(ruleset, *, games: int = 10000, seed: int = 0, policy: str = "optimal", options=None,
             table=None, progress=None) -> Simulation:
    """Play ``games`` games with a policy on the dice stream of ``seed`` and summarise them."""
    game, rules = for_command(ruleset, "simulate", options)
    solution, policy, played = _played(game, rules, policy, games, seed, table, progress)
    extra = dict(played.extra)
    if played.examples:
        extra["example_games"] = list(played.examples)
    distribution = game.score_distribution(solution, policy) if solution.payload is not None else None
    if distribution is not None:
        extra["exact"] = distribution
    solved = solution.payload is not None
    return Simulation(game.name, solution.rule_options, policy, seed, ScoreSummary.of(played.scores),
                      games / played.seconds if played.seconds > 0 else float("inf"),
                      solution.approximate if solved else not game.exact,
                      solution.expected_score if solved else None,
                      solution.error_estimate if solved else None, extra, played.scores)


@dataclass(frozen=True)
class Duel:
    """Two policies on the same dice, game by game."""

    ruleset: str
    rule_options: Mapping[str, Any]
    a: str
    b: str
    seed: int
    comparison: PairedComparison

    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "rule_options": dict(self.rule_options), "a": self.a,
                "b": self.b, "seed": self.seed, **self.comparison.to_json()}


def duel(ruleset, *, a: str = "optimal", b: str = "greedy", games: int = 10000, seed: int = 0,
         options=None, table=None, progress=None) -> Duel:
    """Policies A and B play the same dice: win/draw/loss rates of A and the mean margin."""
    game, rules = for_command(ruleset, "duel", options)
    sol, a, played_a = _played(game, rules, a, games, seed, table, progress)
    _, b, played_b = _played(game, rules, b, games, seed, table, progress)
    return Duel(game.name, game.rule_options(rules), a, b, seed,
                PairedComparison.of(played_a.scores, played_b.scores))


@dataclass(frozen=True)
class StrategyTable:
    """A strategy table for people: a header and rows."""

    ruleset: str
    what: str
    header: list
    rows: list

    def to_json(self) -> list:
        return [dict(zip(self.header, r)) for r in self.rows]


def strategy_table(ruleset, what: str | None = None, *, options=None, games: int = 20000,
                   seed: int = 0, table=None, progress=None) -> StrategyTable:
    """One of the game's strategy tables (``game.tables`` names them; the first by default)."""
    game, rules = for_command(ruleset, "table", options)
    what = what or next(iter(game.tables))
    if what not in game.tables:
        raise DicewiseError(f"unknown table {what!r} for {game.name} "
                            f"(tables: {', '.join(game.tables)})")
    solution = store.solution(game, rules, table, progress_factory=progress)
    with (progress or _quiet)(games, f"table {what}") as update:
        header, rows = game.strategy_table(solution, what, games, seed, update)
    return StrategyTable(game.name, what, list(header), [list(r) for r in rows])


def bench_agent(ruleset, agent, *, games: int = 1000, seed: int = 0, on_error: str = "continue",
                max_failures: int = 3, options=None, table=None, log=None, progress=None):
    """Score an agent (``observation -> action`` callable, or an object with ``act``)."""
    from .play.agents import CallableAgent
    from .play.bench import bench_agent as run

    game, rules = for_command(ruleset, "bench-agent", options)
    solution = store.solution(game, rules, table, progress_factory=progress)
    if callable(agent) and not hasattr(agent, "act"):
        agent = CallableAgent(agent, getattr(agent, "__name__", "agent"))
    with (progress or _quiet)(games, f"{games:,} games") as update:
        return run(solution, agent, games, seed, on_error, log, update, max_failures)


def review(ruleset, lines, *, options=None, table=None, progress=None):
    """Judge a logged game (agent-protocol JSON lines), decision by decision."""
    from .play.review import review_lines

    game, rules = for_command(ruleset, "review", options)
    solution = store.solution(game, rules, table, progress_factory=progress)
    return review_lines(solution, lines)


def describe(ruleset=None) -> dict | list:
    """The rulesets (no argument), or one ruleset's options, commands and notation."""
    from .solver.registry import GAMES

    if ruleset is None:
        return [{"name": g.name, "exact": g.exact, "title": g.title}
                for g in (get_game(n) for n in GAMES)]
    game = game_of(ruleset)
    info = {"name": game.name, "title": game.title, "exact": game.exact,
            "commands": sorted(game.commands), "policies": list(game.policies),
            "tables": dict(game.tables), "advise_inputs": sorted(game.advise_inputs),
            "sheet": game.sheet_help, "own_group": game.own_group,
            "options": [s.to_json() for s in game.option_specs()]}
    return {**info, **game.describe(game.rules({}))}

