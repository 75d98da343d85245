"""poker-school's fitted value respects the game's dominance order (``approx.monotone_weights``).

Proves, on sheets reached in play by three policies (random, greedy, the fitted value's own)
and for fitted-looking weights with noise added (any weights are projected): (1) the value
never falls with more School reserve, with a clean row instead of a crossed one, with a
standing premium instead of an erased one, or with more points in the same cells; (2) at
every roll, writing a row where the write keeps the reserve is worth at least crossing it,
by the table's values and by the search's (one turn deeper), so (3) the advice never ranks
such a cross above its write.  Also: the weighted isotonic fit equals a brute-force pool of
adjacent violators, and the projection leaves weights that already respect the order alone.
The issue's examples are checked against the built table in the slow tier.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dicewise.solver import dice
from dicewise.solver.poker_school.advice import advise
from dicewise.solver.poker_school.approx import (Features, LinearEvaluator, isotonic,
                                                 monotone_weights, prior_weights)
from dicewise.solver.poker_school.rules import N_ROWS, N_SCHOOL, ROW_NAMES, PokerSchoolRules, SheetState
from dicewise.solver.poker_school.search import SearchEvaluator
from dicewise.solver.poker_school.turns import Batch, GreedyEvaluator, play, turn_options

TOL = 1e-9


def pool_adjacent_violators(v, w):
    """The weighted isotonic fit, by the textbook algorithm (a reference for ``isotonic``)."""
    blocks = []  # [mean, weight, length]
    for x, c in zip(v, w):
        blocks.append([x, c, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, c2, n2 = blocks.pop()
            m1, c1, n1 = blocks.pop()
            blocks.append([(m1 * c1 + m2 * c2) / (c1 + c2), c1 + c2, n1 + n2])
    return [m for m, _, n in blocks for _ in range(n)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=1, max_size=8),
       st.lists(st.floats(0.01, 10), min_size=8, max_size=8))
def test_isotonic_is_pool_adjacent_violators(values, weights):
    w = weights[:len(values)]
    fast = isotonic(np.array([values]), np.array([w]))[0]
    assert np.allclose(fast, pool_adjacent_violators(values, w), atol=1e-9)


def noisy_weights(game: PokerSchoolRules, seed: int, scale: float = 30.0) -> np.ndarray:
    """Prior weights with Gaussian noise: far from respecting the order before projection."""
    return prior_weights(game) + np.random.default_rng(seed).normal(0, scale, Features.of(game).size)


def constraint_violations(f: Features, w: np.ndarray) -> int:
    """How many of the order's constraints the weights break (see ``monotone_weights``)."""
    rows = w[:f.n_row].reshape(N_ROWS, f.columns, 2, 4, f.knots)
    bad = int((np.diff(rows[:N_SCHOOL], axis=3) < -TOL).sum())
    bad += int((rows[:, :, 1] < rows[:, :, 0] - TOL).sum())
    o = f.n_row
    col = w[o:o + f.n_col].reshape(f.columns, N_ROWS + 1, f.knots)
    bad += int((col[:, 1:] < -TOL).sum())
    o += f.n_col
    std = w[o:o + f.n_std].reshape(-1, f.n_bands, f.knots)
    from dicewise.solver.poker_school.approx import STANDING_KNOTS

    u = std + STANDING_KNOTS[1:, None]
    bad += int((u[:, 0] < -TOL).sum() + (np.diff(u, axis=1) < -TOL).sum())
    return bad


@pytest.mark.parametrize("columns", [1, 2, 3])
def test_projection_satisfies_every_constraint_and_keeps_what_does(columns):
    game = PokerSchoolRules(columns=columns)
    f = Features.of(game)
    raw = noisy_weights(game, columns)
    assert constraint_violations(f, raw) > 0
    counts = np.random.default_rng(1).random(f.size) * 100
    projected = monotone_weights(f, raw, counts)
    assert constraint_violations(f, projected) == 0
    assert np.allclose(monotone_weights(f, projected), projected, atol=1e-9)
    prior = prior_weights(game)
    assert constraint_violations(f, prior) == 0
    assert np.array_equal(monotone_weights(f, prior), prior)


def copy_batch(b: Batch) -> Batch:
    return Batch(b.filled.copy(), b.clean.copy(), b.reserve.copy(), b.column_clean.copy(),
                 b.standing.copy(), b.banked.copy())


def joined(batches) -> Batch:
    """One batch of every sheet of ``batches`` (every check is per sheet: one call checks all)."""
    return Batch(*(np.concatenate([getattr(b, name) for b in batches])
                   for name in ("filled", "clean", "reserve", "column_clean", "standing", "banked")))


def sheets_from_play(game: PokerSchoolRules, evaluator, games: int = 32, every: int = 1):
    """Batches of the sheets at turn starts, reached by random, greedy and fitted play."""
    out = []

    def record(t, batch):
        if t < game.turns and t % every == 0:
            out.append(copy_batch(batch))

    for how, ev in (("random", None), ("greedy", GreedyEvaluator(game)), ("solved", evaluator)):
        play(game, games, 11, how, ev, record=record, chunk=games)
    return out


def value_violations(ev: LinearEvaluator, batch: Batch) -> int:
    """Sheets where a dominated variant of the sheet is valued above it."""
    game = ev.game
    C = game.columns
    base = ev.state_values(batch)
    bad = 0
    for r in range(N_SCHOOL):  # more reserve
        more = copy_batch(batch)
        more.reserve[:, r] += 1
        open_ = batch.filled[:, r] < C
        bad += int((ev.state_values(more)[open_] < base[open_] - TOL).sum())
    for r in range(N_ROWS):  # a clean row's written cell crossed instead, no more points
        ok = (batch.filled[:, r] > 0) & (batch.filled[:, r] < C) & batch.clean[:, r]
        if not ok.any():
            continue
        crossed = copy_batch(batch)
        crossed.clean[:, r] = False
        crossed.column_clean[np.arange(len(batch)), np.maximum(batch.filled[:, r] - 1, 0)] = False
        bad += int((ev.state_values(crossed)[ok] > base[ok] + TOL).sum())
    erased = copy_batch(batch)  # standing premiums erased
    erased.standing[:] = 0
    bad += int((ev.state_values(erased) > base + TOL).sum())
    fewer = copy_batch(batch)  # fewer points in the same cells (a lower standing premium)
    fewer.standing = np.maximum(batch.standing - 5, 0)
    fewer.banked = batch.banked - np.minimum(batch.standing, 5)
    bad += int((ev.state_values(fewer) > base + TOL).sum())
    return bad


def write_cross_violations(ev, batch: Batch) -> int:
    """(sheet, roll) pairs where a write that keeps the reserve is worth less than the cross."""
    bad = 0
    for k, opts in zip((1, 2), turn_options(ev, batch)):
        for r, opt in enumerate(opts):
            if opt is None:
                continue
            score = opt.score[opt.roll_class]  # (252, B)
            keeps = np.isfinite(score)
            if r < N_SCHOOL:
                keeps &= (dice.ROLLS[:, r] >= 3)[:, None]
            bad += int((keeps & (score < opt.cross[None, :] - TOL)).sum())
    return bad


@pytest.mark.parametrize("options, games", [
    ({}, 8),
    pytest.param({"columns": 2}, 32, marks=pytest.mark.slow),
    pytest.param({"school_cross_erases": False}, 32, marks=pytest.mark.slow),
    pytest.param({}, 64, marks=pytest.mark.slow)])
def test_no_dominated_value_or_write_in_sheets_from_play(options, games):
    game = PokerSchoolRules(**options)
    ev = LinearEvaluator(game, noisy_weights(game, 7))
    batches = sheets_from_play(game, ev, games)
    sheets = joined(batches)
    assert len(sheets) >= (1000 if games < 32 else 2000)
    assert value_violations(ev, sheets) == 0
    assert write_cross_violations(ev, sheets) == 0
    # The search (one turn deeper) on every fifteenth turn start's sheets.
    deep = SearchEvaluator(ev)
    assert write_cross_violations(deep, joined(batches[::15])) == 0


def sheet_of(batch: Batch, i: int) -> SheetState:
    return SheetState(tuple(int(x) for x in batch.filled[i]), tuple(bool(x) for x in batch.clean[i]),
                      tuple(int(x) for x in batch.reserve[i]),
                      tuple(bool(x) for x in batch.column_clean[i]), int(batch.standing[i]),
                      int(batch.banked[i]))


@pytest.mark.parametrize("games, every, least", [
    (4, 15, 20), pytest.param(8, 9, 100, marks=pytest.mark.slow)])
def test_advice_never_ranks_a_dominated_cross_first(games, every, least):
    game = PokerSchoolRules()
    ev = LinearEvaluator(game, noisy_weights(game, 3))
    batches = sheets_from_play(game, ev, games=games, every=every)
    rng = np.random.default_rng(2)
    checked = 0
    for batch, i in itertools.product(batches, range(games)):
        sheet = sheet_of(batch, i)
        for k in (1, 3):
            faces = dice.faces_of(dice.ROLLS[rng.choice(dice.N_ROLLS, p=dice.ROLL_PROBABILITY)])
            for search in (False, True):
                order = [c.action for c in advise(game, ev, sheet, faces, k, 5.0,
                                                  search=search).choices]
                for r in range(N_ROWS):
                    write, cross = {"write": ROW_NAMES[r]}, {"cross": ROW_NAMES[r]}
                    if write in order and (r >= N_SCHOOL or faces.count(r + 1) >= 3):
                        assert order.index(write) < order.index(cross), (sheet, faces, k, r)
                        checked += 1
    assert checked > least
