"""poker-school's protocol object (``solver/poker_school/game.py``).

Proves: (1) episodes played to the end with random legal actions score what the rules
(``PokerSchoolRules.final_score`` of the sheet read back from its notation) give, and at every
decision the observation's sheet reads back to the episode's exact state; (2) the
advisor's choices on an observation are exactly the episode's legal actions; (3) playing
the advisor's best choice in the episodes gives, game by game, the scores ``play`` gives
the optimal policy (exact one-column table) or the search policy (fitted values, which the
advisor searches) on the same seed — the best choice is the policy's, and episodes see ``play``'s dice, which depend only on the seed, the
game and the dice kept; (4) tables round-trip through their arrays and the store, and
arrays that do not fit are refused; (5) bad positions are refused before any table is built.
The fitted policy is fitted with a tiny schedule (seconds, not the real eight minutes).
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from dicewise import api
from dicewise.errors import DicewiseError, TableError
from dicewise.solver import dice
from dicewise.solver.poker_school import advice as advisor, game as poker_game, table
from dicewise.solver.poker_school.game import POKER_SCHOOL
from dicewise.solver.poker_school.rules import N_SCHOOL, ROW_NAMES
from dicewise.solver.poker_school.turns import Batch
from dicewise.solver.protocol import BadAction, Solution
from dicewise.tables import store

ONE = {"columns": 1, "school_cross_erases": False}
TWO = {"columns": 2}
TINY = table.FitSettings(iterations=1, games=64, average=1, eval_games=64, bound_iterations=1,
                         bound_groups=False, bound_shipped=False, measure_gap=False)


def _tiny(mp):
    mp.setattr(table, "SETTINGS", TINY)


@pytest.fixture(scope="module")
def solved():
    """``solved(**options) -> Solution``: exact for one column, a tiny fit otherwise."""
    cache = {}

    def get(**options):
        key = tuple(sorted(options.items()))
        if key not in cache:
            with pytest.MonkeyPatch.context() as mp:
                _tiny(mp)
                rules = POKER_SCHOOL.rules(options)
                payload, meta = POKER_SCHOOL.build(rules)
            cache[key] = Solution(POKER_SCHOOL, rules, payload, meta, None, True, 0.0)
        return cache[key]

    return get


def rules_only(**options) -> Solution:
    return Solution(POKER_SCHOOL, POKER_SCHOOL.rules(options), None, {}, None, False, 0.0)


def _key(action) -> str:
    return json.dumps(action, sort_keys=True)


def _notation(obs) -> str:
    return ",".join(f"{k}={v}" for k, v in obs["sheet"].items())


def _state(batch: Batch):
    return tuple(np.asarray(a).tolist() for a in (batch.filled, batch.clean, batch.reserve,
                                                  batch.column_clean, batch.standing, batch.banked))


# -- (1) random episodes: the rules' score and the notation ----------------------------------
@pytest.mark.parametrize("options", [ONE, {"columns": 1}, TWO, {}, {"school_cross_erases": False,
                                                                     "minimums": "none"}])
def test_random_episodes_score_as_the_rules_say(options):
    solution = rules_only(**options)
    rules = solution.rules
    rng = np.random.default_rng(3)
    for ep in POKER_SCHOOL.episodes(solution, seed=8, games=4):
        total = 0.0
        while not ep.done:
            obs = ep.observation()
            parsed = rules.parse_sheet(_notation(obs))
            assert _state(Batch.of_sheet(parsed)) == _state(ep.batch)
            assert obs["points"] == parsed.points
            legal = obs["legal"]
            assert len({_key(a) for a in legal}) == len(legal)
            assert all(POKER_SCHOOL.canonical_action(a) == a for a in legal)
            # Mostly writes and crosses, so the games go on; keeps now and then.
            writes = [a for a in legal if "keep" not in a]
            pool = legal if rng.random() < 0.3 else writes
            total += ep.apply(pool[rng.integers(len(pool))])
        final = ep.observation()
        sheet = rules.parse_sheet(_notation(final))
        assert ep.score == total == rules.final_score(sheet)
        assert all(sheet.filled[r] == rules.columns for r in range(len(ROW_NAMES)))
        with pytest.raises(BadAction, match="over"):
            ep.apply({"cross": "pair"})


def test_observation_shape():
    ep = POKER_SCHOOL.episode(rules_only(), seed=1, index=600)
    obs = ep.observation()
    assert set(obs) == {"ruleset", "options", "game", "turn", "roll", "dice", "sheet", "points",
                        "legal"}
    assert obs["ruleset"] == "poker-school" and obs["options"]["columns"] == 3
    assert (obs["game"], obs["turn"], obs["roll"]) == (600, 1, 1)
    assert obs["sheet"] == {} and obs["points"] == 0
    json.dumps(obs)
    assert {"cross": "ones"} in obs["legal"] and {"keep": []} in obs["legal"]
    ep.apply({"keep": []})
    assert ep.observation()["roll"] == 2
    ep.apply({"keep": []})
    obs = ep.observation()
    assert obs["roll"] == 3 and not any("keep" in a for a in obs["legal"])
    with pytest.raises(BadAction, match="no roll is left"):  # three rolls a turn
        ep.apply({"keep": []})
    ep.apply({"cross": "Two-Pairs"})  # row names as the sheet notation reads them
    obs = ep.observation()
    assert obs["turn"] == 2 and obs["roll"] == 1 and obs["sheet"] == {"two_pairs": "x"}


@pytest.mark.parametrize("action, words", [
    ({"keep": [7]}, "faces"), ({"write": 3}, "row name"), ({"scratch": "pair"}, "unknown action"),
    ({"write": "nines"}, "cannot write"), ({"keep": [1, 1, 1, 1, 1, 1]}, "cannot keep"),
    (["keep"], "an action"), ({"keep": [], "write": "pair"}, "an action"),
])
def test_bad_actions(action, words):
    ep = POKER_SCHOOL.episode(rules_only(), seed=1, index=0)
    with pytest.raises(BadAction, match=words):
        ep.apply(action)


def test_a_write_the_dice_do_not_allow_and_a_full_row():
    ep = POKER_SCHOOL.episode(rules_only(**ONE), seed=2, index=0)
    obs = ep.observation()
    counts = dice.counts_of(obs["dice"])
    row = next(r for r in range(N_SCHOOL) if counts[r] < 3)  # five dice: some face shows < 3
    with pytest.raises(BadAction, match="cross it"):
        ep.apply({"write": ROW_NAMES[row]})
    ep.apply({"cross": ROW_NAMES[row]})
    with pytest.raises(BadAction, match="open rows"):
        ep.apply({"cross": ROW_NAMES[row]})


# -- (2) and (3): the advisor on observations; its best choice is the policy's ----------------
@pytest.mark.parametrize("options", [ONE, pytest.param(TWO, marks=pytest.mark.slow)])
def test_best_advice_replays_the_optimal_policy(solved, options):
    solution = solved(**options)
    games = 4
    scores = []
    for ep in POKER_SCHOOL.episodes(solution, seed=6, games=games):
        while not ep.done:
            obs = ep.observation()
            advice = POKER_SCHOOL.advise_observation(solution, obs)
            assert sorted(_key(c.action) for c in advice.choices) == sorted(map(_key, obs["legal"]))
            # fitted values, but exact where the search reaches the end (the last two turns)
            late = obs["turn"] >= solution.rules.turns - 1  # turns count from 1
            assert advice.approximate == (options != ONE and not late)
            ep.apply(advice.best.action)
        scores.append(ep.score)
    # Advice searches where values are fitted: its best choice is the search policy's.
    policy = "optimal" if options == ONE else "search"
    assert scores == [float(s) for s in POKER_SCHOOL.play(solution, policy, games, 6).scores]


def test_dice_depend_on_seed_game_and_keeps_only(monkeypatch):
    solution = rules_only()
    a, b = POKER_SCHOOL.episode(solution, 4, 2), POKER_SCHOOL.episode(solution, 4, 2)
    for turn in range(6):
        oa, ob = a.observation(), b.observation()
        assert oa["dice"] == ob["dice"]  # each turn starts alike, whatever was written before
        kept = oa["dice"][:2]
        a.apply({"keep": kept})
        b.apply({"keep": kept})
        assert a.observation()["dice"] == b.observation()["dice"]  # the same keep, the same roll
        a.apply(next(x for x in a.observation()["legal"] if "cross" in x))
        b.apply(next(x for x in reversed(b.observation()["legal"]) if "cross" in x))
    shared = list(POKER_SCHOOL.episodes(solution, 4, 3))[2]
    alone = POKER_SCHOOL.episode(solution, 4, 2)
    for _ in range(20):
        obs = alone.observation()
        assert shared.observation() == obs
        shared.apply(obs["legal"][-1])
        alone.apply(obs["legal"][-1])
    # Game i plays the same dice whatever the number of games (chunks are padded).
    monkeypatch.setattr(poker_game, "CHUNK", 8)
    few = POKER_SCHOOL.play(rules_only(**ONE), "greedy", 11, 3).scores
    many = POKER_SCHOOL.play(rules_only(**ONE), "greedy", 16, 3).scores
    assert np.array_equal(few, many[:11])
    rand = POKER_SCHOOL.play(rules_only(**ONE), "random", 11, 3).scores
    assert np.array_equal(rand, POKER_SCHOOL.play(rules_only(**ONE), "random", 16, 3).scores[:11])


def test_play_reports_and_policies(solved):
    solution = solved(**ONE)
    played = POKER_SCHOOL.play(solution, "solved", 64, 1)  # the old name of the optimal policy
    assert len(played.scores) == 64
    assert 1 <= played.extra["mean_rolls_per_turn"] <= 3 and played.extra["mean_crosses"] >= 0
    ex = played.examples[0]
    sheet = solution.rules.parse_sheet(ex["sheet"])
    assert solution.rules.final_score(sheet) == ex["score"] == played.scores[0]
    greedy = POKER_SCHOOL.play(rules_only(**ONE), "greedy", 64, 1)
    rand = POKER_SCHOOL.play(rules_only(**ONE), "random", 64, 1)
    assert played.scores.mean() > greedy.scores.mean() > rand.scores.mean()
    assert rand.extra["mean_rolls_per_turn"] == 1
    with pytest.raises(DicewiseError, match="needs"):
        POKER_SCHOOL.play(rules_only(), "optimal", 4, 1)
    with pytest.raises(DicewiseError, match="at least 1"):
        POKER_SCHOOL.play(rules_only(), "greedy", 0, 1)


@pytest.mark.slow
def test_solutions_say_how_sure_they_are(solved):
    exact, fitted = solved(**ONE), solved(**TWO)
    assert not exact.approximate and exact.error_estimate is None and exact.ci95 is None
    assert exact.expected_score == pytest.approx(450.51303973395085, abs=1e-6)
    assert POKER_SCHOOL.solve_report(exact) == {"states": exact.meta["states"]}
    assert fitted.approximate and fitted.error_estimate > 0
    lo, hi = fitted.ci95
    assert lo <= fitted.expected_score <= hi < fitted.meta["upper_bound"]
    report = POKER_SCHOOL.solve_report(fitted)
    assert report["weights"] > 0 and report["upper_bound"] == fitted.meta["upper_bound"]
    position = {"dice": [5, 5, 5, 2, 6], "roll": 2, "sheet": "fives=15/15,pair=12/x"}
    advice = POKER_SCHOOL.advise(fitted, position)
    assert advice.approximate and advice.error_estimate == fitted.error_estimate
    assert advice.upper_bound == fitted.meta["upper_bound"]
    assert advice.position == {"dice": [2, 5, 5, 5, 6], "roll": 2,
                               "sheet": "fives=15/15,pair=12/x", "points": 57}  # premium 15
    assert advice.headline.endswith("(searched one turn deep)")  # how sure: the values line


def test_strategy_tables(solved):
    solution = solved(**ONE)
    header, rows = POKER_SCHOOL.strategy_table(solution, "opening", 0, 0)
    assert len(rows) == 2 * dice.N_ROLLS
    for r in rows:
        row = dict(zip(header, r))
        assert row["expected"] >= row["runner_up_expected"] and row["margin"] >= 0
    # Five sixes on roll 1 of an empty one-column sheet: the optimum writes Poker for 60.
    sixes = next(r for r in rows if r[0] == 1 and r[1] == "6 6 6 6 6")
    assert sixes[2] == "write poker for 60"
    header, rows = POKER_SCHOOL.strategy_table(solution, "rows", 64, 1)
    assert [r[0] for r in rows] == list(ROW_NAMES)
    for r in rows:
        row = dict(zip(header, r))
        assert 0 <= row["scored_rate"] <= 1 and 0 <= row["first_roll_rate"] <= 1
        assert row["scored_rate"] == pytest.approx(row["premium_rate"])  # one cell per row
        assert 1 <= row["mean_turn"] <= 15
    played = POKER_SCHOOL.play(solution, "optimal", 64, 1)
    cells = sum(dict(zip(header, r))["cell_points_per_game"] for r in rows)
    bonuses = 60 * played.extra["mean_column_bonuses"]
    assert 2 * cells == pytest.approx(played.scores.mean() - bonuses)  # a premium per cell
    with pytest.raises(DicewiseError, match="unknown table"):
        POKER_SCHOOL.strategy_table(solution, "states", 1, 1)


def test_the_row_table_counts_a_premium_where_every_cell_of_the_row_scored():
    """With more than one cell a row, one scored cell earns no premium: the rate is the
    share of games whose row holds a score in every cell, counted from what was written."""
    solution = rules_only(**TWO)
    rules = solution.rules
    tally = poker_game.Tally(rules, 3, examples=3)
    poker_game.play_games(solution, "greedy", 3, 5, tally=tally)
    header, rows = tally.row_table()
    partly = 0
    for r, values in enumerate(rows):
        scored = [sum(1 for row, points, _ in tally.history[g] if row == r and points is not None)
                  for g in range(3)]
        partly += sum(0 < n < rules.columns for n in scored)
        want = np.mean([n == rules.columns for n in scored])
        assert dict(zip(header, values))["premium_rate"] == pytest.approx(want), ROW_NAMES[r]
    assert partly > 0  # some row scored in one cell of two: no premium there


# -- (4) tables through their arrays ----------------------------------------------------------
@pytest.mark.parametrize("options", [ONE, pytest.param(TWO, marks=pytest.mark.slow)])
def test_arrays_round_trip(solved, options):
    solution = solved(**options)
    rules = solution.rules
    back = POKER_SCHOOL.from_arrays(rules, POKER_SCHOOL.to_arrays(solution.payload), solution.meta)
    again = Solution(POKER_SCHOOL, rules, back, solution.meta, None, False, 0.0)
    position = {"dice": [1, 3, 3, 3, 6], "roll": 1, "sheet": "threes=9,chance=x"}
    assert POKER_SCHOOL.advise(again, position) == POKER_SCHOOL.advise(solution, position)
    if rules.exact:
        assert np.array_equal(back.values, solution.payload.values, equal_nan=True)
        bad = [{"reachable": np.zeros(3, np.uint8)}, {"values": np.zeros(3)}]
        with pytest.raises(TableError, match="rebuild"):
            POKER_SCHOOL.from_arrays(rules, POKER_SCHOOL.to_arrays(solution.payload),
                                     {**solution.meta, "n_states": 7})
    else:
        assert np.array_equal(back.weights, solution.payload.weights)
        bad = [{}, {"weights": np.zeros(5)}]
    for arrays in bad:
        with pytest.raises(TableError, match="rebuild"):
            POKER_SCHOOL.from_arrays(rules, arrays, solution.meta)


@pytest.mark.slow
def test_store_builds_and_loads_the_policy(tmp_path, monkeypatch):
    _tiny(monkeypatch)
    rules = POKER_SCHOOL.rules(TWO)
    built = store.build(POKER_SCHOOL, rules, tmp_path / "t.dwt")
    loaded = store.load(POKER_SCHOOL, rules, tmp_path / "t.dwt")
    assert loaded.meta["expected_score"] == built.meta["expected_score"] and loaded.approximate
    assert np.array_equal(loaded.payload.weights, built.payload.weights)
    first = POKER_SCHOOL.rules_digest(rules)
    monkeypatch.setattr(table, "SETTINGS", table.FitSettings(iterations=2))
    assert POKER_SCHOOL.rules_digest(rules) != first  # other settings, another table
    exact = POKER_SCHOOL.rules(ONE)
    assert POKER_SCHOOL.table_kind(exact) != POKER_SCHOOL.table_kind(rules)
    with pytest.raises(TableError):
        store.load(POKER_SCHOOL, rules, tmp_path / "t.dwt")


@pytest.mark.slow
def test_build_progress_adds_up(monkeypatch):
    monkeypatch.setattr(table, "SETTINGS", dataclasses.replace(TINY, bound_groups=True))
    rules = POKER_SCHOOL.rules({"columns": 2, "school_cross_erases": False})
    done = []
    payload, meta = POKER_SCHOOL.build(rules, done.append)
    assert sum(done) == pytest.approx(POKER_SCHOOL.build_units(rules))
    # Without the one-column measurement the error estimate takes the fraction measured
    # once with erasure; with it, the measured one (stubbed here: the exact solve takes 5 s).
    assert meta["error_fraction"] == table.ERASURE_GAP_FRACTION and "one_column_gap" not in meta
    monkeypatch.setattr(table, "SETTINGS", dataclasses.replace(TINY, measure_gap=True))
    monkeypatch.setattr(table, "one_column_gap",
                        lambda game, progress=None: {"one_column_gap_fraction": 0.001})
    assert POKER_SCHOOL.build(rules)[1]["error_fraction"] == 0.001
    erasing = POKER_SCHOOL.rules({"columns": 2})
    assert POKER_SCHOOL.build(erasing)[1]["error_fraction"] == table.ERASURE_GAP_FRACTION


def test_action_space_holds_every_legal_action():
    rules = POKER_SCHOOL.rules({})
    space = POKER_SCHOOL.action_space(rules)
    keys = [_key(a) for a in space]
    assert len(set(keys)) == len(space) == dice.N_KEEPS + 2 * len(ROW_NAMES)
    ep = POKER_SCHOOL.episode(rules_only(), seed=5, index=1)
    rng = np.random.default_rng(1)
    while not ep.done:
        legal = ep.observation()["legal"]
        assert {_key(a) for a in legal} <= set(keys)
        ep.apply(legal[rng.integers(len(legal))])


# -- (5) bad positions, refused before any table ----------------------------------------------
@pytest.mark.parametrize("position, words", [
    ({"dice": [5, 5, 5, 2, 6], "roll": 2, "sheet": "pair=12//12"}, "empty"),
    ({"dice": [5, 5, 5, 2, 6], "roll": 2, "sheet": "pair=13"}, "cannot hold"),
    ({"dice": [5, 5, 5, 2, 6], "roll": 4}, "1, 2 or 3"),
    ({"dice": [5, 5, 5, 2, 6]}, "roll number"),
    ({"dice": [5, 5, 5, 2, 7], "roll": 1}, "1..6"),
    ({"dice": [5, 5, 5, 2], "roll": 1}, "five dice"),
    ({"dice": [5, 5, 5, 2, 6], "roll": 1, "sheet": ",".join(f"{r}=x" for r in ROW_NAMES)}, "over"),
])
def test_bad_positions_are_refused_before_building(position, words, tmp_path, monkeypatch):
    monkeypatch.setenv("DICEWISE_CACHE", str(tmp_path))
    options = {"columns": 1} if position.get("sheet", "").count("=x") == 15 else {}
    with pytest.raises(DicewiseError, match=words):
        POKER_SCHOOL.check_position(POKER_SCHOOL.rules(options), position)
    with pytest.raises(DicewiseError, match=words):
        api.advise("poker-school", options=options, **position)
    assert not list(tmp_path.iterdir())


def test_turn_advice_is_shared_within_a_turn(solved):
    solution = solved(**ONE)
    sheet = solution.rules.parse_sheet("fives=15")
    first = advisor.turn_advice(solution.rules, solution.payload, sheet)
    assert advisor.turn_advice(solution.rules, solution.payload, sheet) is first
