"""Optimal expected scores: the published optima, and the consistency of the unpublished ones.

Proves: (1) the engine reproduces every published solitaire optimum of RULES.md to 1e-6:
Yahtzee 254.5896095 (joker=free; T. Verhoeff, "Optimal Solitaire Yahtzee Player", 1999),
254.5877287 (forced), 253.9702412 (none), 245.8707745 (off); Yatzy 248.4399894 and
248.6328539 (two_pairs=single_pair_counts; both as quoted in RULES.md); (2) for `general`
and `poker-programs`, which have no published value, the solved optimum equals the average
over the 252 first rolls of the advisor's best option, options that only widen what
qualifies never lower the optimum, and (3) the optimal policy, played out in 5,000
simulated games of `general` by a small simulator written here, scores the solved value
within four standard errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from dicewise.solver import dice
from dicewise.solver.advice import advise_position
from dicewise.solver.category import turn_write_values
from dicewise.solver.sheet import parse_sheet
from dicewise.solver.turn import solve_turn

PUBLISHED = [
    ("yahtzee", {"joker": "free"}, 254.5896095),
    ("yahtzee", {"joker": "forced"}, 254.5877287),
    ("yahtzee", {"joker": "none"}, 253.9702412),
    ("yahtzee", {"joker": "off"}, 245.8707745),
    ("yatzy", {"two_pairs": "distinct"}, 248.4399894),
    ("yatzy", {"two_pairs": "single_pair_counts"}, 248.6328539),
]


@pytest.mark.slow
@pytest.mark.parametrize("name, opts, published", PUBLISHED,
                         ids=[f"{n}-{next(iter(o.values()))}" for n, o, _ in PUBLISHED])
def test_published_optimum(solved, name, opts, published):
    _, values = solved(name, **opts)
    assert abs(values.expected_score - published) < 1e-6


def first_roll_average(game, values):
    """Σ_r P(r) × (best option's expected after first roll r) on the empty sheet."""
    sheet = parse_sheet(game, "")
    total = 0.0
    for r, roll in enumerate(dice.ROLLS):
        advice = advise_position(game, values, sheet, dice.faces_of(roll), 1)
        assert advice.turn_start_expected == pytest.approx(values.expected_score, abs=1e-12)
        best = advice.best.expected if advice.best is not None else sheet.points  # game ended
        total += dice.ROLL_PROBABILITY[r] * best
    return total


@pytest.mark.parametrize("name, opts", [("general", {}),
                                        pytest.param("general", {"big_general": "sixty"},
                                                     marks=pytest.mark.slow),
                                        pytest.param("poker-programs", {}, marks=pytest.mark.slow)],
                         ids=["general", "general-sixty", "poker-programs"])
def test_optimum_is_the_average_best_first_roll(solved, name, opts):
    game, values = solved(name, **opts)
    assert first_roll_average(game, values) == pytest.approx(values.expected_score, abs=1e-9)


def test_general_options_that_widen_what_scores_never_lower_the_optimum(solved):
    v = {s: solved("general", straight=s)[1].expected_score for s in ("plain", "joker", "circular")}
    assert v["plain"] < v["joker"] < v["circular"]
    # A first-roll five of a kind ending the game (worth 0 more) is worse than scoring on.
    assert solved("general", big_general="sixty")[1].expected_score > v["joker"]


def test_optima_are_plausible(solved):
    """Bounds from the sheets: every value lies between 0 and the best sheet possible."""
    game, values = solved("general")
    best_sheet = sum(int(game.base_points[c].max()) for c in range(game.n_categories))
    assert 0 < values.expected_score < best_sheet
    reach = values.values[values.reachable]
    assert np.isfinite(reach).all() and (reach >= 0).all()


# -- simulating the optimal policy of general ------------------------------------------
_CODE = 6 ** np.arange(6)
_ROLL_BY_CODE = np.full(6**6, -1)
_ROLL_BY_CODE[dice.ROLLS @ _CODE] = np.arange(252)


def _sub_keep_table():
    rows = [dice.sub_keeps(r) for r in range(252)]
    return np.array([np.pad(k, (0, 32 - len(k)), mode="edge") for k in rows])


def throw(rng, kept_counts):
    """Roll the dice not kept: (G, 6) kept counts -> (G,) roll indices."""
    free = 5 - kept_counts.sum(axis=1)
    faces = rng.integers(0, 6, size=(len(free), 5))
    used = np.arange(5)[None, :] < free[:, None]
    counts = kept_counts.copy()
    for j in range(5):
        np.add.at(counts, (np.flatnonzero(used[:, j]), faces[used[:, j], j]), 1)
    return _ROLL_BY_CODE[counts @ _CODE]


def simulate_general(game, values, n_games, seed):
    """Final scores of n_games played by the policy the solved values define.

    Keep decisions compare the best write with the best keep (turn solver values); a write
    takes the category maximising points now plus the solved value of the next state.
    """
    rng = np.random.default_rng(seed)
    n_cat = game.n_categories
    masks_all = np.arange(1 << n_cat)
    vals = np.nan_to_num(values.values)  # general: every state is reachable; the full sheet is 0
    writes = turn_write_values(game, vals, masks_all, np.zeros_like(masks_all))
    turn = solve_turn(writes, game.first_roll_end())
    keep_value = turn.before_roll  # before roll 2, before roll 3: (462, 2^n)
    sub = _sub_keep_table()
    ends = game.first_roll_end()
    mask = np.zeros(n_games, dtype=np.int64)
    score = np.zeros(n_games)
    alive = np.ones(n_games, dtype=bool)
    g = np.arange(n_games)
    for _turn in range(n_cat):
        r = throw(rng, np.zeros((n_games, 6), dtype=np.int64))
        if ends is not None:
            alive &= np.isnan(ends[r])  # a big general ends the game at once
        writing = alive.copy()
        for k in (1, 2, 3):
            if k < 3:
                cand = keep_value[k - 1][sub[r], mask[:, None]]  # (G, 32)
                best_keep = sub[r, cand.argmax(axis=1)]
                reroll = writing & (cand.max(axis=1) > writes[k - 1][r, mask] + 1e-9)
                if reroll.any():
                    r = np.where(reroll, throw(rng, dice.KEEPS[best_keep]), r)
            else:
                reroll = np.zeros(n_games, dtype=bool)
            now = writing & ~reroll
            if now.any():
                pts = game.base_points[:, k - 1, r].T  # (G, n_cat)
                nxt = mask[:, None] | (1 << np.arange(n_cat))[None, :]
                cand = np.where((mask[:, None] >> np.arange(n_cat)) & 1 == 1, -np.inf, pts + vals[nxt])
                c = cand.argmax(axis=1)
                score[now] += pts[g, c][now]
                mask[now] |= 1 << c[now]
            writing &= reroll
    return score


def test_simulated_optimal_policy_scores_the_solved_value(solved):
    game, values = solved("general")
    scores = simulate_general(game, values, 5000, seed=2024)
    se = scores.std(ddof=1) / np.sqrt(len(scores))
    assert abs(scores.mean() - values.expected_score) < 4 * se, (scores.mean(), se)
