"""Solved category games on disk: where their tables live, how they are saved and loaded.

A table holds the expected future score of every reachable turn-start state; the advisor
derives every decision within a turn from it at query time, so files stay small.
"""

from __future__ import annotations

import inspect
import os
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from ..solver import category, dice, options as options_module, scoring, turn
from ..solver.category import CategoryGame, StateValues, solve_states
from .format import TableError, digest, read_table, write_table

KIND = "category-game"
SUFFIX = ".dwt"


def cache_dir() -> Path:
    """Where tables are kept: $DICEWISE_CACHE, else $XDG_CACHE_HOME/dicewise, else ~/.cache/dicewise."""
    if os.environ.get("DICEWISE_CACHE"):
        return Path(os.environ["DICEWISE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "dicewise"


def rules_digest(game: CategoryGame) -> str:
    """Digest of the code that defines the game's rules and their solution."""
    module = sys.modules[type(game).__module__]
    sources = [inspect.getsource(m) for m in (dice, turn, category, scoring, options_module, module)]
    helpers = sorted(Path(module.__file__).parent.glob("_*.py"))
    return digest(*sources, *(p.read_text() for p in helpers))


def option_slug(options: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in sorted(options.items())) or "default"


def default_path(game: CategoryGame) -> Path:
    """The cache file of a game with its options (the rules digest is part of the name)."""
    return cache_dir() / f"{game.name}-{option_slug(game.options)}-{rules_digest(game)}{SUFFIX}"


def save(path, game: CategoryGame, solved: StateValues, seconds: float) -> Path:
    """Write a solved game as a table file (atomically)."""
    return write_table(
        path, kind=KIND, ruleset=game.name, options=game.options, rules_digest=rules_digest(game),
        arrays={"reachable": np.packbits(solved.reachable),
                "values": solved.values[solved.reachable]},
        meta={"expected_score": solved.expected_score, "states": solved.n_reachable,
              "n_states": game.n_states, "initial_state": solved.initial_state,
              "seconds": round(seconds, 3)})


def load(path, game: CategoryGame) -> StateValues:
    """Read a table file, refusing it unless it was built for exactly this game and rules."""
    table = read_table(path, kind=KIND, ruleset=game.name, options=game.options,
                       rules_digest=rules_digest(game))
    meta = table.header.get("meta", {})
    if meta.get("n_states") != game.n_states or meta.get("initial_state") != game.initial_state:
        raise TableError(f"{path} does not describe the states of {game.name}; rebuild it with "
                         "`dicewise solve`")
    if "reachable" not in table.arrays or "values" not in table.arrays:
        raise TableError(f"{path} lacks the arrays of a solved game")
    reachable = np.unpackbits(table.arrays["reachable"], count=game.n_states).astype(bool)
    values = np.full(game.n_states, np.nan)
    if reachable.sum() != len(table.arrays["values"]):
        raise TableError(f"{path} is damaged (values do not match its reachable states)")
    values[reachable] = table.arrays["values"]
    return StateValues(values, reachable, game.initial_state)


def solve_and_save(game: CategoryGame, path=None, progress: Callable[[int], None] | None = None):
    """Solve a game and write its table; returns (solution, path, seconds).

    Writing to the cache also removes that game's tables built for older rules.
    """
    start = time.perf_counter()
    solved = solve_states(game, progress)
    seconds = time.perf_counter() - start
    path = save(path or default_path(game), game, solved, seconds)
    drop_older_rules(path)
    return solved, path, seconds


def drop_older_rules(path) -> None:
    """Remove the cache's tables that differ from ``path`` only in their rules digest.

    Cache names end in ``-<digest><SUFFIX>``; a table just built in the cache replaces the
    same game's tables built for older rules.  A path outside the cache removes nothing.
    """
    path = Path(path)
    if path.parent != cache_dir() or not path.name.endswith(SUFFIX):
        return
    stem = path.name[:-len(SUFFIX)].rsplit("-", 1)[0]
    for old in path.parent.glob(f"{stem}-*{SUFFIX}"):
        if old != path and len(old.name) == len(path.name):
            old.unlink(missing_ok=True)


def reachable_count(game: CategoryGame) -> int:
    """How many states a solve will visit (for sizing a progress bar)."""
    return int(category.reachable_states(game).sum())
