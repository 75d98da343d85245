"""The upper bound's shipped multipliers (poker_school/certificate.py).

Proves: the file holds admissible multipliers of the full game's relaxation (μ, ν ≥ 0 with
every column's shares adding up to the bonus; the prices any numbers), for that game alone,
found as the docs say; a damaged file, or multipliers of another game, are refused in one
line; a build takes them where they apply (its bound is the relaxation at them, its
progress adds up, its digest names the file) and steps from zero where they do not; and the
full game's relaxation at them is the bound the docs give, below the build's own steps'.
That any multipliers give a bound is proven in test_poker_school_bound.py.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dicewise.errors import DicewiseError
from dicewise.solver import dice
from dicewise.solver.poker_school import bound, certificate, table
from dicewise.solver.poker_school.game import POKER_SCHOOL
from dicewise.solver.poker_school.rules import N_ROWS, PokerSchoolRules

SHIPPED_FOUND = 1099.8091018  # docs/poker-school.md: the 110-minute run's best bound
SHIPPED_BOUND = 1099.8091018  # README, docs/poker-school.md: the bound at the shipped file
BUILD_STEPPED_BOUND = 1124.14  # the build's own 150 + 10 steps (test_poker_school_bound.py)
BEST_POLICY_FULL = 950.0


def test_the_shipped_multipliers_are_admissible_and_for_the_full_game_alone():
    m = certificate.shipped(PokerSchoolRules())
    assert m is certificate.shipped(PokerSchoolRules(school_cross_erases=False))  # erasure dropped
    for other in ({"columns": 2}, {"columns": 1}, {"minimums": "none"}):
        assert certificate.shipped(PokerSchoolRules(**other)) is None
    assert m.lambdas.shape == (45,) and m.mu.shape == (N_ROWS, 3) and m.nu.shape == (3,)
    assert m.prices.shape == (45, bound.PRICED_ROLLS, dice.N_ROLLS)
    assert m.keep_prices.shape == (45, 2, dice.N_KEEPS, N_ROWS)
    assert (m.mu >= 0).all() and (m.nu >= 0).all()
    assert np.allclose(m.mu.sum(axis=0) + m.nu, 60.0, rtol=0, atol=1e-9)
    assert m.steps == {"rows": 4000, "bonus": 10, "groups": 60}
    assert m.found == pytest.approx(SHIPPED_FOUND, abs=1e-6)


def test_a_damaged_file_is_refused_in_one_line(tmp_path):
    raw = bytearray(certificate.SHIPPED.read_bytes())
    raw[len(raw) // 2] ^= 1
    path = tmp_path / "m.dwt"
    path.write_bytes(bytes(raw))
    with pytest.raises(DicewiseError, match="are damaged; reinstall dicewise") as e:
        certificate.load(path)
    assert "\n" not in str(e.value)
    (tmp_path / "empty.dwt").write_bytes(b"")
    with pytest.raises(DicewiseError, match="reinstall"):
        certificate.load(tmp_path / "empty.dwt")


def test_a_damaged_shipped_file_stops_a_command_in_one_line(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    raw = bytearray(certificate.SHIPPED.read_bytes())
    raw[-1] ^= 1
    damaged = tmp_path / "bound-multipliers.dwt"
    damaged.write_bytes(bytes(raw))
    monkeypatch.setattr(certificate, "SHIPPED", damaged)
    r = CliRunner().invoke(cli, ["advise", "poker-school", "--roll", "1", "--dice", "1", "2",
                                 "3", "4", "5"], prog_name="dicewise")
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1, r.output
    assert r.stderr.startswith("dicewise: error: the upper bound's multipliers in ")
    assert r.stderr.strip().endswith("are damaged; reinstall dicewise")


def _some_multipliers(game):
    """Some multipliers of ``game``'s relaxation (any are admissible), as a ``Bound``."""
    T, C = game.turns, game.columns
    rng = np.random.default_rng(3)
    mu = np.full((N_ROWS, C), 60.0 / N_ROWS)
    mu[list(bound.BONUS_ROWS)] /= 2
    return bound.Bound(0.0, rng.normal(0, 1, T), mu, (), 0.0, bound.GROUPS,
                       rng.normal(0, 1, (T, 2, dice.N_ROLLS)), 60.0 - mu.sum(axis=0),
                       rng.normal(0, 0.1, (T, 2, dice.N_KEEPS, N_ROWS)))


def test_multipliers_of_another_game_are_neither_written_nor_read(tmp_path):
    two = _some_multipliers(PokerSchoolRules(columns=2))
    with pytest.raises(ValueError):
        certificate.write(tmp_path / "m.dwt", two, {"rows": 1, "bonus": 0, "groups": 0})
    full = _some_multipliers(certificate.FOR)
    path = certificate.write(tmp_path / "m.dwt", full, {"rows": 1, "bonus": 0, "groups": 0})
    m = certificate.load(path)
    assert np.array_equal(m.mu, full.mu) and np.array_equal(m.lambdas, full.lambdas)
    assert np.array_equal(m.keep_prices, full.keep_prices.astype(np.float32))
    from dicewise.tables.format import read_table, write_table
    arrays = dict(read_table(path).arrays)
    arrays["mu"] = arrays["mu"][:, :2]  # a two-column μ in a full game's file
    bad = write_table(tmp_path / "bad.dwt", kind=certificate.KIND, ruleset="poker-school",
                      options=certificate.FOR.options, rules_digest="", arrays=arrays,
                      meta=read_table(path).header["meta"])
    with pytest.raises(DicewiseError, match=r"damaged \(mu must have shape"):
        certificate.load(bad)


def test_the_table_digest_names_the_shipped_file(monkeypatch):
    game = PokerSchoolRules()
    first = POKER_SCHOOL.rules_digest(game)
    other = dataclasses.replace(certificate.shipped(game), checksum="sha256:another")
    monkeypatch.setattr(certificate, "shipped", lambda g: other)
    assert POKER_SCHOOL.rules_digest(game) != first


@pytest.mark.slow
def test_a_build_evaluates_the_shipped_multipliers_where_they_apply(monkeypatch):
    tiny = table.FitSettings(iterations=1, games=64, average=1, eval_games=64,
                             bound_iterations=1, bound_groups=False, measure_gap=False)
    monkeypatch.setattr(table, "SETTINGS", tiny)
    game = POKER_SCHOOL.rules({"columns": 2, "school_cross_erases": False})
    b = _some_multipliers(game)
    given = certificate.Multipliers(b.lambdas, b.mu, b.nu, b.prices, b.keep_prices, found=0.0,
                                    steps={"rows": 7, "bonus": 1, "groups": 2}, checksum="x")
    monkeypatch.setattr(certificate, "shipped", lambda g: given)
    done = []
    _, meta = POKER_SCHOOL.build(game, done.append)
    assert sum(done) == pytest.approx(POKER_SCHOOL.build_units(game))
    assert meta["upper_bound"] == pytest.approx(bound.relaxed_value(
        game, b.lambdas, b.mu, bound.GROUPS, b.prices, b.nu, b.keep_prices), abs=1e-9)
    assert meta["upper_bound_steps"] == {"rows": 7, "bonus": 1, "groups": 2, "shipped": True}
    monkeypatch.setattr(table, "SETTINGS", dataclasses.replace(tiny, bound_shipped=False))
    _, stepped = POKER_SCHOOL.build(game)
    assert stepped["upper_bound_steps"] == {"rows": 1, "bonus": 0, "groups": 0,
                                            "shipped": False}


@pytest.mark.slow
def test_the_shipped_multipliers_give_the_documented_bound():
    game = PokerSchoolRules()
    m = certificate.shipped(game)
    b = bound.evaluated(game, m.lambdas, m.mu, bound.GROUPS, m.prices, m.nu, m.keep_prices)
    assert BEST_POLICY_FULL < b.value < BUILD_STEPPED_BOUND - 20
    assert b.value == pytest.approx(SHIPPED_BOUND, abs=1e-6)
    print(f"\nfull game at the shipped multipliers: {b.value:.4f} in {b.seconds:.0f} s")
