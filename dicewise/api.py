"""The Python API: the same operations as the CLI, returning frozen results."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from .solver.advice import Advice, advise_position
from .solver.category import CategoryGame, StateValues
from .solver.options import parse_options
from .solver.rulesets import category_class, category_game
from .solver.sheet import parse_sheet
from .tables import cache


@dataclass(frozen=True)
class Solution:
    """A solved category game and where its table is."""

    game: CategoryGame
    values: StateValues
    table: Path
    seconds: float  # time spent solving (0 when loaded from a table)
    built: bool

    @property
    def expected_score(self) -> float:
        return self.values.expected_score


def make_game(ruleset: str, options: dict | Iterable[str] | None = None) -> CategoryGame:
    """A category ruleset by name; options as a dict of values or ``KEY=VALUE`` strings."""
    if options is not None and not isinstance(options, dict):
        options = parse_options(category_class(ruleset), options)
    return category_game(ruleset, **(options or {}))


def solve(ruleset: str | CategoryGame, options=None, *, table=None, rebuild: bool = False,
          progress: Callable[[int], None] | None = None) -> Solution:
    """Solve a ruleset, reusing its table when one is present (``rebuild`` forces a new one)."""
    game = ruleset if isinstance(ruleset, CategoryGame) else make_game(ruleset, options)
    path = Path(table) if table else cache.default_path(game)
    if path.exists() and not rebuild:
        return Solution(game, cache.load(path, game), path, 0.0, False)
    solved, path, seconds = cache.solve_and_save(game, path, progress)
    return Solution(game, solved, path, seconds, True)


def advise(ruleset: str | CategoryGame, *, dice, roll: int, sheet: str | None = None, options=None,
           table=None, progress=None) -> Advice:
    """Rank every choice in a position: ``advise("general", dice=[2,2,4,6,6], roll=1)``."""
    game = ruleset if isinstance(ruleset, CategoryGame) else make_game(ruleset, options)
    checked = parse_sheet(game, sheet)
    solution = solve(game, table=table, progress=progress)
    return advise_position(game, solution.values, checked, dice, roll)


def simulate(ruleset: str | CategoryGame, *, games: int = 10000, seed: int = 0,
             policy: str = "optimal", options=None, table=None, progress=None):
    """Simulate a category game with a policy; returns (SimulationSummary, GameRecords)."""
    from .play.simulate import simulate as run

    solution = solve(ruleset, options, table=table)
    return run(solution.game, solution.values.values, policy, games, seed, progress)


def bench_agent(ruleset: str | CategoryGame, agent, *, games: int = 1000, seed: int = 0,
                on_error: str = "continue", options=None, table=None, log=None):
    """Score an agent — a callable ``observation -> action`` — against the optimal policy."""
    from .play.agents import CallableAgent
    from .play.bench import bench_agent as run

    solution = solve(ruleset, options, table=table)
    if callable(agent) and not hasattr(agent, "act"):
        agent = CallableAgent(agent, getattr(agent, "__name__", "agent"))
    return run(solution.game, solution.values.values, agent, games, seed, on_error, log)
