"""The example in ``examples/`` runs, so that none of them is code that never ran.

Proves: the example's evaluation (gymnasium only) walks the games of a dice stream as
``simulate`` deals them, skipping a game its first throw ends, and gives the optimal agent
``simulate``'s scores on the same dice with zero regret; without sb3-contrib the example
says what to install; with sb3-contrib and torch (not dicewise dependencies, so skipped
unless installed) a short training run and its evaluation end with consistent reports.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from dicewise.api import make_rules  # noqa: E402
from dicewise.envs.agents import OptimalAgent  # noqa: E402
from dicewise.envs.oracle import solution  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train_maskable_ppo.py"
GENERAL = "dicewise/General-v0"


def load_example():
    spec = importlib.util.spec_from_file_location("train_maskable_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_evaluation_skips_a_game_its_first_throw_ends_and_scores_as_simulate():
    """Seed 36's game 3 opens with a big general: games 0, 1, 2, 4 and 5 are played (not 4
    twice), each to simulate's score for the optimal policy on the same dice."""
    game, rules = make_rules("general")
    solved = solution(game, rules)
    first_throw_ends = [ep.done for ep in game.episodes(solved, 36, 6)]
    assert first_throw_ends == [False, False, False, True, False, False]
    report = load_example().evaluate(OptimalAgent().act, GENERAL, {}, games=5, seed=36)
    assert report["played"] == [0, 1, 2, 4, 5]
    reference = game.play(solved, "optimal", 6, 36).scores[[0, 1, 2, 4, 5]]
    assert report["mean_score"] == pytest.approx(float(np.mean(reference)))
    assert report["regret_per_decision"] == 0 and report["decisions"] > 5
    assert report["optimum"] == pytest.approx(155.335, abs=1e-3) and report["regret_is_exact"]


def test_without_sb3_contrib_the_example_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    with pytest.raises(SystemExit, match=r"\(sb3_contrib is missing\): pip install "
                       r"'dicewise\[rl\]' sb3-contrib"):
        load_example().train(GENERAL, {}, steps=1, rollout=1, reward_scale=1.0, seed=0)


@pytest.mark.slow
def test_short_training_run_and_its_report(capsys):
    pytest.importorskip("torch", reason="the example trains with torch (not a dicewise dependency)")
    pytest.importorskip("sb3_contrib", reason="the example trains sb3-contrib's MaskablePPO "
                        "(not a dicewise dependency)")
    boxes = make_rules("general")[1].n_categories
    result = load_example().main(["--steps", "256", "--rollout", "128", "--games", "6",
                                  "--quiet"])
    assert result["steps"] == 256
    for agent in ("ppo", "random"):
        report = result[agent]
        assert report["played"] == list(range(6))
        assert report["regret_per_decision"] > 0  # neither plays the optimal policy
        assert report["decisions"] >= 6 * boxes  # at least one write per box and game
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("general: trained 256 steps in ")
    assert lines[1].startswith("MaskablePPO: mean score ") and lines[1].endswith("(exact)")
    assert lines[3].startswith("solved optimum 155.34;")
