"""Shared fixtures of the test suite.

Every test runs with ``DICEWISE_CACHE`` pointing at a fresh temporary directory, so no test
reads or writes the user's table cache.  Solved games are memoised for the whole session:
the fast games (``general``, ``poker-programs``) are solved in well under a second, and a
reference game solved once by ``test_optima`` is reused by any other module that wants it.
"""

from __future__ import annotations

import functools
import os

import pytest

# No locale for the tests, the servers and browsers they start: what dicewise says (and the
# language a page starts in) is English unless a test asks for a language, whatever the
# machine's locale.
for _var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
    os.environ.pop(_var, None)

# One BLAS thread in each test process and every command it starts (set here, before numpy
# is imported): the tiers run a process a core, and each process's second BLAS thread,
# spinning between numpy's calls, only took CPU time from the other (a tenth of the everyday
# tier's).  OPENBLAS_NUM_THREADS set beforehand chooses otherwise.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Either tier on every test file (plain ``pytest``, or ``pytest -m slow``) runs on two
    processes where pytest-xdist is installed (the test extra): the everyday tier under 90 s
    on a two-core machine.  Each file goes to one process, so that a module's tables,
    servers and solved games are built once, not once in each.  Naming files or tests, or
    choosing ``-n``, runs as asked."""
    tier = config.option.markexpr if (
        config.args_source == pytest.Config.ArgsSource.TESTPATHS
        and "PYTEST_XDIST_WORKER" not in os.environ) else None  # not again in each worker
    if tier in ("not slow", "slow") and config.pluginmanager.hasplugin("xdist") \
            and getattr(config.option, "numprocesses", 0) is None:
        config.option.numprocesses = 2
        if config.option.dist == "no":
            config.option.dist = "loadfile"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Point the table cache at an empty temporary directory for each test."""
    monkeypatch.setenv("DICEWISE_CACHE", str(tmp_path_factory.mktemp("dicewise-cache")))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)


@pytest.fixture(scope="session")
def _shared_cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("shared-cache")


@pytest.fixture
def shared_cache(_shared_cache_dir, _private_cache, monkeypatch):
    """One table cache for every test of this test process that asks for it
    (``pytestmark = pytest.mark.usefixtures("shared_cache")``).  A cached table is named by
    its rules and written whole, so one built by any test serves the next, whichever module
    built it: a module asks for it only where none of its tests needs an empty cache (such a
    test sets its own)."""
    monkeypatch.setenv("DICEWISE_CACHE", str(_shared_cache_dir))
    return _shared_cache_dir


@pytest.fixture
def empty_cache(tmp_path_factory, monkeypatch):
    """An empty table cache of its own, for a test that watches a first build in a module
    whose tests share one (``shared_cache``)."""
    folder = tmp_path_factory.mktemp("empty-cache")
    monkeypatch.setenv("DICEWISE_CACHE", str(folder))
    return folder


@functools.lru_cache(maxsize=None)
def _solved(name: str, options: tuple):
    from dicewise.solver.category import solve_states
    from dicewise.solver.rulesets import category_game

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


@pytest.fixture(scope="session")
def quick_approximate_tables(tmp_path_factory):
    """A table cache holding the table of an approximate game that builds in under a minute
    (Ryzykant's quick variant, ``end_marks=2``): built once for the tests that show its
    advice through a real terminal or page.  Returns ``(cache, ruleset, options)``."""
    from dicewise import api

    cache = tmp_path_factory.mktemp("quick-approximate-tables")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DICEWISE_CACHE", str(cache))
        api.solve("ryzykant", options=["end_marks=2"])
    return cache, "ryzykant", ["end_marks=2"]
