"""Simulated poker-school games: many games in lockstep, three policies, summary statistics.

Policies: ``random`` (the first roll goes to a uniformly random open row: a score where the
dice allow one, else a cross), ``greedy`` (the best immediate change of points — cell,
premium, erased premiums — with the turn played optimally for it), ``solved`` (the exact
table for one column, the fitted approximate policy otherwise).  Dice are common random
numbers: a seed fixes every throw whatever the policy keeps.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...errors import DicewiseError
from .turns import Evaluator, GreedyEvaluator, play
from .rules import PokerSchool

POLICIES = ("random", "greedy", "solved")


@dataclass(frozen=True)
class Simulation:
    """The final scores of simulated games and their summary."""

    policy: str
    seed: int
    scores: np.ndarray
    seconds: float

    @property
    def games(self) -> int:
        return len(self.scores)

    @property
    def mean(self) -> float:
        return float(self.scores.mean())

    @property
    def std(self) -> float:
        return float(self.scores.std(ddof=1)) if self.games > 1 else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        half = 1.959964 * self.std / np.sqrt(self.games)
        return self.mean - half, self.mean + half

    @property
    def percentiles(self) -> dict[str, float]:
        qs = (5, 25, 50, 75, 95)
        return {str(q): float(v) for q, v in zip(qs, np.percentile(self.scores, qs))}

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def histogram(self, bins: int = 12, width: int = 40) -> list[str]:
        """A text histogram, one line per bin."""
        counts, edges = np.histogram(self.scores, bins=bins)
        top = max(int(counts.max()), 1)
        return [f"{edges[i]:7.1f} – {edges[i + 1]:7.1f} {'#' * round(width * c / top):<{width}} {c}"
                for i, c in enumerate(counts)]


def simulate(game: PokerSchool, games: int, seed: int, policy: str,
             evaluator: Evaluator | None = None, progress=None) -> Simulation:
    """Play ``games`` games with ``policy``; ``evaluator`` is required for ``solved``."""
    if policy not in POLICIES:
        raise DicewiseError(f"policy {policy!r} is not one of {' | '.join(POLICIES)}")
    if games < 1:
        raise DicewiseError(f"simulate at least one game, not {games}")
    if policy == "greedy":
        evaluator = GreedyEvaluator(game)
    elif policy == "solved" and evaluator is None:
        raise DicewiseError("the solved policy needs its table")
    start = time.perf_counter()
    scores = play(game, games, seed, policy, evaluator, chunk=512, progress=progress)
    return Simulation(policy, seed, scores, time.perf_counter() - start)
