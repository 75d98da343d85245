"""Summaries of simulated scores: means with 95% intervals, rates, paired comparisons.

One normal quantile for every interval in dicewise, so that every ``ci95`` means the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: The two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054
PERCENTILES = (5, 25, 50, 75, 95)


def mean_ci95(values) -> tuple[float, float]:
    """The 95% confidence interval of the mean of ``values`` (normal approximation)."""
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    mean = float(values.mean())
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return mean - half, mean + half


def rate_ci95(successes: float, n: float) -> tuple[float, float]:
    """The Wilson 95% interval of a rate (good near 0 and 1, where win rates often are)."""
    if n == 0:
        return math.nan, math.nan
    p = successes / n
    denom = 1 + Z95 ** 2 / n
    centre = (p + Z95 ** 2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / denom
    return max(0.0, min(centre - half, p)), min(1.0, max(centre + half, p))


def share_ci95(shares) -> tuple[float, float]:
    """The Wilson 95% interval of a mean share of the win, each game's share in [0, 1]
    (ties split).  Wilson's interval counts every game as a coin that fell 0 or 1; a shared
    win is a sure ½, so the interval uses the effective number of games n·p(1 − p)/s² (s²
    the shares' variance): exactly ``rate_ci95`` when no game is tied, and narrower by as
    much as ties remove spread (in Ryzykant on shared rolls most games tie)."""
    shares = np.asarray(shares, dtype=np.float64)
    n = len(shares)
    if n == 0:
        return math.nan, math.nan
    p = float(shares.mean())
    var = float(shares.var())
    if var == 0.0:  # every game alike: nothing to measure the spread by, so Wilson's
        return rate_ci95(p * n, n)
    n_eff = n * p * (1 - p) / var  # >= n: a share in [0, 1] varies at most p(1 - p)
    return rate_ci95(p * n_eff, n_eff)


@dataclass(frozen=True)
class ScoreSummary:
    """Final scores summarised: mean with its 95% interval, spread, percentiles, histogram."""

    games: int
    mean: float
    std: float
    ci95: tuple[float, float]
    minimum: float
    maximum: float
    percentiles: dict
    histogram: tuple[tuple[float, float, int], ...]

    @classmethod
    def of(cls, scores, bins: int = 20) -> "ScoreSummary":
        scores = np.asarray(scores, dtype=np.float64)
        if scores.min() == scores.max():  # one score: one bar (numpy would spread it over ±0.5)
            hist = ((float(scores[0]), float(scores[0]), len(scores)),)
        else:
            counts, edges = np.histogram(scores, bins=bins)
            hist = tuple((float(a), float(b), int(c))
                         for a, b, c in zip(edges[:-1], edges[1:], counts))
        pct = {str(p): float(v) for p, v in zip(PERCENTILES, np.percentile(scores, PERCENTILES))}
        return cls(len(scores), float(scores.mean()),
                   float(scores.std(ddof=1)) if len(scores) > 1 else 0.0, mean_ci95(scores),
                   float(scores.min()), float(scores.max()), pct, hist)

    def to_json(self) -> dict:
        return {"games": self.games, "mean": self.mean, "std": self.std, "ci95": list(self.ci95),
                "min": self.minimum, "max": self.maximum, "percentiles": self.percentiles,
                "histogram": [list(h) for h in self.histogram]}


@dataclass(frozen=True)
class PairedComparison:
    """Two players' scores game by game on the same dice: who won, and by how much."""

    games: int
    wins: float  # rate of games the first player scored more
    draws: float
    losses: float
    margin: float  # mean of first minus second
    margin_ci95: tuple[float, float]
    mean_a: float
    mean_b: float

    @classmethod
    def of(cls, scores_a, scores_b) -> "PairedComparison":
        a, b = np.asarray(scores_a, np.float64), np.asarray(scores_b, np.float64)
        d = a - b
        return cls(len(d), float((d > 0).mean()), float((d == 0).mean()), float((d < 0).mean()),
                   float(d.mean()), mean_ci95(d), float(a.mean()), float(b.mean()))

    def rate_ci95(self, rate: float) -> tuple[float, float]:
        return rate_ci95(round(rate * self.games), self.games)

    def to_json(self) -> dict:
        return {"games": self.games,
                "wins": self.wins, "wins_ci95": list(self.rate_ci95(self.wins)),
                "draws": self.draws, "draws_ci95": list(self.rate_ci95(self.draws)),
                "losses": self.losses, "losses_ci95": list(self.rate_ci95(self.losses)),
                "mean_margin": self.margin, "mean_margin_ci95": list(self.margin_ci95),
                "mean_a": self.mean_a, "mean_b": self.mean_b}
