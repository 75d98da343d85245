"""The intervals of ``solver/stats.py``.

Proves: the interval of a share of the win (ties split) is Wilson's exactly when no game is
tied, always holds the mean, is narrower where ties remove spread, and covers the true
share about 95% of the time on tie-heavy tables like Ryzykant's on shared rolls (simulated
with a known share); a histogram of scores counts each once, one score in one bar.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dicewise.solver.stats import PairedComparison, ScoreSummary, rate_ci95, share_ci95


@given(st.lists(st.sampled_from([0.0, 1.0]), min_size=2, max_size=300))
def test_without_ties_the_share_interval_is_wilson(games):
    shares = np.array(games)
    want = rate_ci95(float(shares.sum()), len(shares))
    assert share_ci95(shares) == pytest.approx(want, abs=1e-12)


@settings(max_examples=200)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1 / 3, 2 / 3]), min_size=1, max_size=300))
def test_the_share_interval_holds_the_mean_and_is_no_wider_than_wilson(games):
    shares = np.array(games)
    lo, hi = share_ci95(shares)
    p = shares.mean()
    assert 0.0 <= lo <= p + 1e-12 and p - 1e-12 <= hi <= 1.0
    wlo, whi = rate_ci95(float(shares.sum()), len(shares))
    assert hi - lo <= whi - wlo + 1e-12


def test_the_share_interval_covers_the_true_share_on_tie_heavy_tables():
    # 88% ties, the rest won 6.6% / lost 5.4%: the share is 0.506
    rng = np.random.default_rng(11)
    p_win, p_tie = 0.066, 0.88
    truth = p_win + p_tie / 2
    covered, widths = 0, []
    for _ in range(1000):
        u = rng.random(2000)
        shares = np.where(u < p_win, 1.0, np.where(u < p_win + p_tie, 0.5, 0.0))
        lo, hi = share_ci95(shares)
        covered += lo <= truth <= hi
        widths.append(hi - lo)
    assert 0.93 <= covered / 1000 <= 0.97
    wilson = rate_ci95(truth * 2000, 2000)
    assert np.mean(widths) < 0.5 * (wilson[1] - wilson[0])


def _wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson's 95% score interval of k successes in n, from its textbook formula."""
    z = 1.959963984540054
    p = k / n
    centre = (k + z * z / 2) / (n + z * z)
    half = z * np.sqrt(n) / (n + z * z) * np.sqrt(p * (1 - p) + z * z / (4 * n))
    return centre - half, centre + half


def test_a_paired_comparisons_rates_carry_wilsons_interval_of_their_counts():
    # 10 games: A wins 3, draws 2, loses 5; each rate's interval is Wilson's of its count
    a = np.array([5, 5, 5, 4, 4, 1, 1, 1, 1, 1], float)
    b = np.array([1, 1, 1, 4, 4, 5, 5, 5, 5, 5], float)
    duel = PairedComparison.of(a, b).to_json()
    assert (duel["wins"], duel["draws"], duel["losses"]) == (0.3, 0.2, 0.5)
    for key, k in (("wins", 3), ("draws", 2), ("losses", 5)):
        assert duel[f"{key}_ci95"] == pytest.approx(_wilson(k, 10), abs=1e-12), key
    assert duel["mean_margin"] == pytest.approx(np.mean(a - b))


@given(st.lists(st.integers(-50, 400), min_size=1, max_size=60))
def test_a_histogram_counts_every_score_once_in_a_bar_that_holds_it(scores):
    bars = ScoreSummary.of(scores).histogram
    assert sum(c for *_, c in bars) == len(scores)
    assert bars[0][0] == min(scores) and bars[-1][1] == max(scores)
    for i, (low, high, count) in enumerate(bars):  # [low, high), the last bar [low, high]
        last = i == len(bars) - 1
        assert count == sum(low <= s < high or (last and s == high) for s in scores)
    if min(scores) == max(scores):  # one game, or every game alike: one bar, not 20 around it
        assert bars == ((float(scores[0]), float(scores[0]), len(scores)),)

