"""Shared fixtures of the test suite.

Every test runs with ``DICEWISE_CACHE`` pointing at a fresh temporary directory, so no test
reads or writes the user's table cache.  Solved games are memoised for the whole session:
the fast games (``general``, ``poker-programs``) are solved in well under a second, and a
reference game solved once by ``test_optima`` is reused by any other module that wants it.
"""

from __future__ import annotations

import functools

import pytest

from dicewise.solver.category import solve_states
from dicewise.solver.rulesets import category_game


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Point the table cache at an empty temporary directory for each test."""
    monkeypatch.setenv("DICEWISE_CACHE", str(tmp_path_factory.mktemp("dicewise-cache")))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)


@functools.lru_cache(maxsize=None)
def _solved(name: str, options: tuple):
    game = category_game(name, **dict(options))
    return game, solve_states(game)


@pytest.fixture(scope="session")
def solution(solved):
    """``solution(name, **options) -> protocol.Solution`` of a category game, solved once."""
    from dicewise.solver.protocol import Solution
    from dicewise.solver.registry import get_game

    def get(name: str, **options):
        game, values = solved(name, **options)
        return Solution(get_game(name), game, values, {"expected_score": values.expected_score},
                        None, False, 0.0)

    return get


@pytest.fixture(scope="session")
def solved():
    """``solved(name, **options) -> (game, StateValues)``, each game solved once per session."""

    def get(name: str, **options):
        return _solved(name, tuple(sorted(options.items())))

    return get
