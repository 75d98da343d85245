"""Ryzykant's protocol object (``solver/ryzykant/game.py``), with tiny fitted tables.

Proves: (1) episodes played to the end with random legal splits score what RULES.md §4
gives the final sheet, end as the rules say, and their sheets read back in the notation;
(2) the advisor's choices on an agent observation are exactly the episode's legal actions,
in canonical form; (3) playing the advisor's best choice in the episodes gives, game by
game, the scores ``play`` gives the search policy (searching every split, as the advisor
does) on the same seed — the best choice is the policy's choice, and episodes see the dice of ``play`` (common random numbers, also
across numbers of games and chunks); (4) tables round-trip through their arrays (and the
store), and arrays that do not fit are refused; (5) bad positions and actions are refused
before any table is built.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dicewise import api
from dicewise.errors import DicewiseError, TableError
from dicewise.solver.protocol import BadAction, Solution
from dicewise.solver.ryzykant import game as ryzykant_game, policy_table, rules as rz, search
from dicewise.solver.ryzykant.game import RYZYKANT
from dicewise.tables import store

#: The full game, a shorter one and the quick variant (solved exactly when its table is
#: built); each fits or plays for seconds even on the tiny schedule, so its checks are slow.
VARIANTS = [{}, {"end_marks": 3}, {"end_marks": 2, "puscioch": "reroll"}]


@pytest.fixture(scope="module")
def solved():
    """``solved(**options) -> Solution`` fitted with a tiny schedule, once per variant."""
    cache = {}

    def get(**options):
        key = tuple(sorted(options.items()))
        if key not in cache:
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(ryzykant_game, "BUILD", ryzykant_game.BuildSettings(2, 1000, 1000))
                mp.setattr(policy_table, "RESIDUAL_POSITIONS", 100)
                rules = RYZYKANT.rules(options)
                payload, meta = RYZYKANT.build(rules)
            cache[key] = Solution(RYZYKANT, rules, payload, meta, None, True, 0.0)
        return cache[key]

    return get


def rules_only(**options) -> Solution:
    rules = RYZYKANT.rules(options)
    return Solution(RYZYKANT, rules, None, {}, None, False, 0.0)


def _key(action) -> str:
    return json.dumps(action, sort_keys=True)


def _upper(sheet: dict) -> np.ndarray:
    up = np.zeros(rz.N_SUMS, np.int64)
    for s, n in sheet.items():
        up[int(s) - 2] = n
    return up


# -- (1) and (2): random episodes, the rules' score, the advisor's legal choices ------------
@pytest.mark.slow
@pytest.mark.parametrize("options", VARIANTS)
def test_random_episodes_score_as_the_rules_say(solved, options):
    solution = solved(**options)
    rules = solution.rules
    rng = np.random.default_rng(7)
    for ep in RYZYKANT.episodes(solution, seed=11, games=12):
        total, rolls, marks_below = 0.0, 0, 0
        while not ep.done:
            obs = ep.observation()
            legal = obs["legal"]
            assert len({_key(a) for a in legal}) == len(legal)  # distinct
            assert all(RYZYKANT.canonical_action(a) == a for a in legal)
            assert sorted(map(_key, legal)) == sorted(
                _key(c.action) for c in RYZYKANT.advise_observation(solution, obs).choices)
            for a in legal:
                (p, q), (r, s) = a["pairs"]
                assert sorted([p, q, r, s, a["fifth"]]) == obs["dice"]
            if rules.puscioch == "reroll":
                assert not obs["puscioch"]
            action = legal[rng.integers(len(legal))]
            total += ep.apply(action)
            rolls += 1
            marks_below += not obs["puscioch"]
        final = ep.observation()
        up = _upper(final["sheet"])
        lower = np.array([final["fifth"].get(str(f), 0) for f in range(1, 7)])
        assert ep.score == float(rz.score(up)) == total == final["points"]
        assert up.sum() == 2 * rolls and lower.sum() == marks_below
        assert lower.max() == rules.end_marks and (lower > 0).sum() <= rz.LOWER_FACES
        with pytest.raises(DicewiseError, match="game is over"):
            rz.parse_position(rules, ",".join(f"{k}={v}" for k, v in final["sheet"].items()),
                              ",".join(f"{k}={v}" for k, v in final["fifth"].items()))
        with pytest.raises(BadAction):
            ep.apply({"pairs": [[1, 1], [1, 1]], "fifth": 1})


def test_observation_shape():
    ep = RYZYKANT.episode(rules_only(), seed=3, index=5)
    obs = ep.observation()
    assert set(obs) == {"ruleset", "options", "game", "turn", "dice", "sheet", "fifth", "points",
                        "puscioch", "legal"}
    assert obs["ruleset"] == "ryzykant" and obs["options"] == {"end_marks": 10, "puscioch": "score"}
    assert obs["game"] == 5 and obs["turn"] == 1 and obs["sheet"] == {} and obs["points"] == 0
    assert obs["dice"] == sorted(obs["dice"]) and len(obs["dice"]) == 5
    json.dumps(obs)  # plain JSON
    a = obs["legal"][0]
    ep.apply({"pairs": [list(reversed(a["pairs"][1])), list(reversed(a["pairs"][0]))],
              "fifth": a["fifth"]})  # any order of the pairs and their dice is understood
    obs = ep.observation()
    assert obs["turn"] == 2 and sum(obs["sheet"].values()) == 2 and sum(obs["fifth"].values()) == 1


# -- (3): the advisor's best choice is the policy's, on the dice of play ----------------------
@pytest.mark.parametrize("options", [pytest.param({}, marks=pytest.mark.slow),
                                     pytest.param({"end_marks": 2, "puscioch": "reroll"},
                                                  marks=pytest.mark.slow)])
def test_best_advice_replays_the_search_policy(solved, options, monkeypatch):
    solution = solved(**options)
    games = 6
    # Small chunks: the search policy plays every slot of a chunk in lockstep.
    monkeypatch.setattr(ryzykant_game, "CHUNK", 8)
    scores = []
    for ep in RYZYKANT.episodes(solution, seed=4, games=games):
        while not ep.done:
            ep.apply(RYZYKANT.advise_observation(solution, ep.observation()).best.action)
        scores.append(ep.score)
    # Advice searches every split; the search policy does so with TOP at 15.
    monkeypatch.setattr(search, "TOP", 15)
    played = RYZYKANT.play(solution, "search", games, 4)
    assert scores == [float(s) for s in played.scores]


def test_advice_values_and_the_split_that_ends(solved):
    solution = solved(end_marks=2)
    advice = RYZYKANT.advise(solution, {"dice": [3, 4, 4, 5, 6], "sheet": "6=1,7=2,8=1",
                                        "fifth": "2=1,5=1"})
    assert advice.approximate and advice.error_estimate == solution.error_estimate >= 0
    assert advice.upper_bound is None and advice.best.loss == 0
    assert all(a.expected >= b.expected for a, b in zip(advice.choices, advice.choices[1:]))
    for c in advice.choices:
        assert c.loss == pytest.approx(advice.best.expected - c.expected)
        if c.detail["ends_game"]:  # worth its exact final score
            up = np.zeros(rz.N_SUMS, np.int64)
            up[4:7] = (1, 2, 1)
            for s in c.detail["sums"]:
                up[s - 2] += 1
            assert c.expected == rz.score(up)
    assert advice.to_json()["best"]["action"] == advice.best.action
    # Searched values, each loss with its error: the best's is what another might be better.
    assert all(c.loss_error >= 0 for c in advice.choices)
    assert advice.best.loss_error == pytest.approx(
        max([c.loss_error - c.loss for c in advice.choices[1:]] + [0.0]))
    assert all(c.close_call == (0 < c.loss_error and c.loss <= c.loss_error)
               for c in advice.choices)
    assert "loss_error" in advice.to_json()["best"] and "searched" in advice.headline


def test_the_advice_does_not_depend_on_how_busy_the_machine_is(solved, monkeypatch):
    """Every split is searched however slowly the search runs: an agent's regret and the
    environments' ``optimal_action`` are a function of the position, not of the clock."""
    from dicewise.solver.ryzykant import search

    solution = solved(end_marks=2)
    position = {"dice": [3, 4, 4, 5, 6], "sheet": "6=1,7=2,8=1", "fifth": "2=1,5=1"}
    calm = RYZYKANT.advise(solution, position).to_json()
    clock = iter(range(0, 10**6, 100))  # a hundred seconds pass between any two readings
    monkeypatch.setattr(search.time, "perf_counter", lambda: float(next(clock)))
    busy = RYZYKANT.advise(solution, position).to_json()
    assert len(calm["choices"]) > 3 and busy["choices"] == calm["choices"]


def test_dice_depend_on_seed_and_game_only(monkeypatch):
    solution = rules_only()
    # Two players choosing differently meet the same roll at each roll number.
    a, b = RYZYKANT.episode(solution, 9, 3), RYZYKANT.episode(solution, 9, 3)
    while not (a.done or b.done):
        oa, ob = a.observation(), b.observation()
        assert oa["dice"] == ob["dice"]
        a.apply(oa["legal"][0])
        b.apply(ob["legal"][-1])
    # episodes() shares a stream: the same dice as episode() alone.
    shared = list(RYZYKANT.episodes(solution, 9, 4))[3]
    alone = RYZYKANT.episode(solution, 9, 3)
    while not alone.done:
        assert shared.observation()["dice"] == alone.observation()["dice"]
        action = alone.observation()["legal"][0]
        shared.apply(action)
        alone.apply(action)
    # Game i sees the same rolls whatever the number of games and across chunks.
    monkeypatch.setattr(ryzykant_game, "CHUNK", 16)
    few = RYZYKANT.play(solution, "greedy", 20, 5).scores
    many = RYZYKANT.play(solution, "greedy", 40, 5).scores
    assert np.array_equal(few, many[:20])
    greedy = ryzykant_game.play_games(solution, "greedy", 40, 5)
    for i in (0, 17, 39):  # an episode replaying the greedy policy's splits ends alike
        ep = RYZYKANT.episode(solution, 5, i)
        while not ep.done:
            up, lo = np.array([ep.pos.upper]), np.array([ep.pos.lower])
            legal, pusc = rz.legal_splits(lo, np.array([ep.roll]))
            slot = int(policy_table.make_policy("greedy", solution.rules)(
                up, lo, np.array([ep.roll]), legal, pusc)[0])
            m = next(m for m in ep.moves if m.slot == slot)
            ep.apply(ryzykant_game.split_action(*m.pairs, m.fifth))
        assert ep.score == greedy.scores[i] and ep.pos.upper == tuple(greedy.upper[i])


def test_whole_chunks_play_as_policy_table_play(monkeypatch):
    solution = rules_only(end_marks=4)
    monkeypatch.setattr(ryzykant_game, "CHUNK", 300)
    mine = RYZYKANT.play(solution, "greedy", 300, 2).scores
    theirs = policy_table.play(solution.rules, policy_table.make_policy("greedy", solution.rules),
                               300, 2).scores
    assert np.array_equal(mine, theirs)


def test_play_reports_and_policies(solved):
    solution = solved(end_marks=2)
    played = RYZYKANT.play(solution, "solved", 200, 1)  # the old name of the optimal policy
    assert len(played.scores) == 200 and played.seconds > 0
    # A game lasts at least a roll for each mark its last fifth-die face needs.
    assert solution.rules.end_marks <= played.extra["mean_rolls"]
    assert 0 <= played.extra["mean_puscioch"]
    ex = played.examples[0]
    assert ex["score"] == played.scores[0] and set(ex) == {"sheet", "fifth", "rolls", "score"}
    greedy = RYZYKANT.play(rules_only(end_marks=2), "greedy", 200, 1)
    rand = RYZYKANT.play(rules_only(end_marks=2), "random", 200, 1)
    assert played.scores.mean() > rand.scores.mean() and greedy.scores.mean() > rand.scores.mean()
    assert not RYZYKANT.needs_solution("greedy") and RYZYKANT.needs_solution("optimal")
    with pytest.raises(DicewiseError, match="needs"):
        RYZYKANT.play(rules_only(), "optimal", 10, 1)
    with pytest.raises(DicewiseError, match="at least 1"):
        RYZYKANT.play(solution, "greedy", 0, 1)
    with pytest.raises(DicewiseError, match="unknown policy"):
        RYZYKANT.play(solution, "clever", 10, 1)


def test_a_simulation_plays_chunk_by_chunk_the_games_of_one_run(solved, monkeypatch):
    """``simulate`` holds each chunk's sheets only while it plays it: the same games, scores,
    examples and means as every sheet of the run kept at once (``play_games``)."""
    solution = solved(end_marks=2)
    monkeypatch.setattr(ryzykant_game, "CHUNK", 128)
    played = RYZYKANT.play(solution, "optimal", 300, 4)
    every = ryzykant_game.play_games(solution, "optimal", 300, 4)
    assert np.array_equal(played.scores, every.scores)
    assert played.extra == {"mean_rolls": float(every.rolls.mean()),
                            "mean_puscioch": float(every.puscioch.mean())}
    assert [e["score"] for e in played.examples] == list(every.scores[:3])
    assert played.examples[0]["sheet"] == rz.format_sheet(every.upper[0])


def test_strategy_tables(solved):
    solution = solved(end_marks=2)
    header, rows = RYZYKANT.strategy_table(solution, "splits", 100, 2)
    positions = {r[0] for r in rows}
    assert "start" in positions and len(rows) == 252 * len(positions) and len(positions) >= 2
    for r in rows:
        row = dict(zip(header, r))
        if row["runner_up"] is not None:
            assert row["expected"] >= row["runner_up_expected"] and row["margin"] >= 0
    header, rows = RYZYKANT.strategy_table(solution, "sums", 400, 2)
    assert [r[0] for r in rows] == list(range(2, 13))
    played = RYZYKANT.play(solution, "optimal", 400, 2)
    marks = sum(dict(zip(header, r))["mean_marks"] for r in rows)
    assert marks == pytest.approx(2 * played.extra["mean_rolls"])
    points = sum(dict(zip(header, r))["mean_points"] for r in rows)
    assert points == pytest.approx(played.scores.mean())
    with pytest.raises(DicewiseError, match="unknown table"):
        RYZYKANT.strategy_table(solution, "opening", 10, 1)


# -- (4): tables through their arrays ----------------------------------------------------------
def test_arrays_round_trip(solved, tmp_path):
    solution = solved(end_marks=2)
    rules = solution.rules
    arrays = RYZYKANT.to_arrays(solution.payload)
    back = RYZYKANT.from_arrays(rules, arrays, solution.meta)
    assert np.array_equal(back.model.delta, solution.payload.model.delta)
    position = {"dice": [1, 2, 2, 5, 6], "sheet": "7=2", "fifth": "5=1"}
    again = Solution(RYZYKANT, rules, back, solution.meta, None, False, 0.0)
    assert RYZYKANT.advise(again, position) == RYZYKANT.advise(solution, position)
    for bad in ({}, {"delta": np.zeros(7)}):
        with pytest.raises(TableError, match="rebuild"):
            RYZYKANT.from_arrays(rules, bad, solution.meta)
    # Through the store: built, written, read back, the same advice.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ryzykant_game, "BUILD", ryzykant_game.BuildSettings(1, 500, 500))
        mp.setattr(policy_table, "RESIDUAL_POSITIONS", 50)
        built = store.build(RYZYKANT, rules, tmp_path / "t.dwt")
        loaded = store.load(RYZYKANT, rules, tmp_path / "t.dwt")
        assert loaded.meta["expected_score"] == built.meta["expected_score"]
        assert loaded.approximate and loaded.ci95 and loaded.error_estimate is not None
        assert RYZYKANT.advise(loaded, position) == RYZYKANT.advise(built, position)
    # Another schedule is another table: the digest names the schedule.
    with pytest.MonkeyPatch.context() as mp:
        first = RYZYKANT.rules_digest(rules)
        mp.setattr(ryzykant_game, "BUILD", ryzykant_game.BuildSettings(1, 500, 500))
        assert RYZYKANT.rules_digest(rules) != first


# -- (5): bad input, refused before any table -------------------------------------------------
@pytest.mark.parametrize("position, words", [
    ({"dice": [3, 4, 4, 5, 6], "sheet": "6=4,7=7,8=3", "fifth": "2=5,5=3"}, "fifth-die marks"),
    ({"dice": [3, 4, 4, 5, 6], "fifth": "1=1,2=1,3=1,4=1"}, "at most 3"),
    ({"dice": [3, 4, 4, 5, 6], "sheet": "7=19", "fifth": "2=10"}, "game is over"),
    ({"dice": [3, 4, 4, 5, 7]}, "1..6"),
    ({"dice": [3, 4, 4, 5]}, "five dice"),
    ({"dice": [3, 4, 4, 5, 6], "sheet": "13=1"}, "2..12"),
    ({"dice": [3, 4, 4, 5, 6], "sheet": "7=1"}, "even"),
])
def test_bad_positions_are_refused_before_building(position, words, tmp_path, monkeypatch):
    monkeypatch.setenv("DICEWISE_CACHE", str(tmp_path))
    with pytest.raises(DicewiseError, match=words):
        RYZYKANT.check_position(RYZYKANT.rules({}), position)
    with pytest.raises(DicewiseError, match=words):
        api.advise("ryzykant", **position)
    assert not list(tmp_path.iterdir())


def test_a_puscioch_under_reroll_is_refused():
    rules = RYZYKANT.rules({"puscioch": "reroll", "end_marks": 3})
    with pytest.raises(DicewiseError, match="thrown again"):
        RYZYKANT.check_position(rules, {"dice": [4, 4, 5, 5, 6], "sheet": "2=2,3=2,4=2",
                                        "fifth": "1=1,2=1,3=1"})


@pytest.mark.parametrize("action", [
    None, [], {"pairs": [[1, 2], [3, 4]]}, {"pairs": [[1, 2], [3, 4]], "fifth": 7},
    {"pairs": [[1, 2, 3], [3, 4]], "fifth": 5}, {"pairs": [[1, 2], [3, 4]], "fifth": True},
    {"pairs": [[1, 2], [3, 4]], "fifth": 5, "also": 1}, {"pairs": "12 34", "fifth": 5},
    {"pairs": [[0, 2], [3, 4]], "fifth": 5}, {"pairs": [[1, 2], [3, 4]], "fifth": 0},
])
def test_malformed_actions_are_bad_actions(action):
    with pytest.raises(BadAction):
        RYZYKANT.canonical_action(action)


def test_action_space_holds_every_legal_action():
    space = RYZYKANT.action_space(RYZYKANT.rules({}))
    keys = {_key(a) for a in space}
    assert len(keys) == len(space) and all(RYZYKANT.canonical_action(a) == a for a in space)
    for r in range(252):  # every split of every roll, as the episodes list them
        for m in rz.moves(RYZYKANT.rules({}), rz.Position(), r):
            assert _key(ryzykant_game.split_action(*m.pairs, m.fifth)) in keys


def test_canonical_actions():
    assert RYZYKANT.canonical_action({"fifth": 1, "pairs": [[6, 5], [2, 1]]}) == \
        {"pairs": [[1, 2], [5, 6]], "fifth": 1}
    assert RYZYKANT.canonical_action({"pairs": [[4, 3], [1, 6]], "fifth": 2}) == \
        {"pairs": [[1, 6], [3, 4]], "fifth": 2}  # equal sums: the lower pair first
    # the lower sum first, whatever its dice: 2+3 before 1+6
    assert RYZYKANT.canonical_action({"pairs": [[6, 1], [3, 2]], "fifth": 4}) == \
        {"pairs": [[2, 3], [1, 6]], "fifth": 4}
    for action in RYZYKANT.action_space(RYZYKANT.rules({})):
        (a, b), (c, d) = action["pairs"]
        assert a <= b and c <= d and (a + b, a) <= (c + d, c)


def test_a_rival_still_playing_has_split_the_movers_rolls_or_one_more():
    """On shared rolls (RULES.md section 4) a rival in the game has split as many rolls as
    the mover, or this one too; one a roll behind is at another stage, unless their game
    ended then."""
    rules = RYZYKANT.rules({"end_marks": 3})
    me = {"sheet": "6=2,7=2,8=2,9=2", "fifth": "2=2,5=2", "dice": [3, 4, 4, 5, 6]}
    for sheet, fifth, ok in (("6=2,7=2,8=2,9=2", "3=2,4=2", True),
                             ("6=2,7=2,8=2,9=2,10=2", "3=2,4=2,1=1", True),
                             ("6=2,7=2,8=2", "3=2,4=1", False),
                             ("6=2,7=2,8=2", "3=3", True),  # ended on its third roll
                             ("6=2,7=2", "3=2", False)):
        rival = {"sheet": sheet, "fifth": fifth}
        if ok:
            RYZYKANT.check_table_position(rules, me, [rival])
        else:
            with pytest.raises(DicewiseError, match="different stages"):
                RYZYKANT.check_table_position(rules, me, [rival])


# -- variants solved exactly when their table is built ------------------------------------------
@pytest.mark.slow
def test_a_quick_variant_reports_the_policys_exact_value_and_the_optimum(solved):
    """end_marks=2 with rerolled puściochs is solved exactly by the build: the table's
    expected score is its policy's exact value (no sampling), never above the optimum, and
    the simulated mean of its evaluation games agrees with it."""
    solution = solved(end_marks=2, puscioch="reroll")
    meta, report = solution.meta, RYZYKANT.solve_report(solution)
    exact = report["exact"]
    assert exact["exact"] and exact["lower"] == exact["optimum"] == exact["upper"]
    value = exact["policies"]["optimal"]["value"]
    assert meta["expected_score"] == value and meta["ci95"] is None
    assert exact["optimum"] - value >= -1e-9
    assert meta["approximate"] == (exact["optimum"] - value > 1e-9)
    assert meta["error_estimate"] == pytest.approx(max(exact["optimum"] - value, 0.0))
    assert report["expected_score_kind"] == "exact value of the table's policy"
    played = RYZYKANT.play(solution, "optimal", 20_000, 8).scores
    assert abs(played.mean() - value) < 4 * played.std(ddof=1) / np.sqrt(len(played))



@pytest.mark.parametrize("lang, games", [("en", "20,000"), ("ru", "20\u00a0000"),
                                         ("pl", "20\u00a0000")])
def test_the_games_behind_a_fitted_tables_score_are_grouped_as_its_language_writes_them(
        lang, games):
    """``solve``'s report counts its evaluation games as every other count it shows: 20,000
    in English, 20 000 in Russian and Polish (it said 20000 beside "eval games: 20,000")."""
    from dicewise import i18n

    solution = Solution(RYZYKANT, rz.RyzykantRules(), None, {"eval_games": 20_000}, None,
                        built=False, seconds=0.0)
    kind = RYZYKANT.solve_report(solution)["expected_score_kind"]
    assert games in i18n.in_language(kind, i18n.translator(lang))


def test_a_sheet_of_many_puscioch_is_valued_up_to_its_limit_and_refused_past_it():
    # 29 rolls, two of them puściochy of 6+6 6+6: 58 marks on 12, the most advice takes
    assert ryzykant_game.MOST_SUM_MARKS == 58
    rules = rz.RyzykantRules()
    at = {"dice": [1, 2, 3, 4, 5], "sheet": "12=58", "fifth": "1=9,2=9,3=9"}
    pos, _ = RYZYKANT.check_position(rules, at)
    assert pos.score == 5 * 600 * (2 ** 11 - 1) - 2 * 600 * 2 ** 11  # k = 11, r = 3
    with pytest.raises(DicewiseError, match="sum 12 has 60 marks"):
        RYZYKANT.check_position(rules, {**at, "sheet": "12=60"})
