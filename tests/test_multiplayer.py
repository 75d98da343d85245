"""Tables of several players (``solver/multiplayer``): the duel engine, the General race of N
players and its win policy, and their command line.

Proves: shares of the win split ties and honour an instant win (against a plain loop);
the rotating duel puts A in every seat on the same deal and summarises it as a plain loop
does; the lockstep race equals a plain one-game-at-a-time race written from RULES.md §1
(seat order, the instant win, the dice stream); where the rivals' totals are known (every
rival finished) the win policy is exact, and its values equal brute-force expectimax over
every roll and keep; its rival distribution is a distribution; bad positions and bad
tables are refused in one line.  The measured win shares (two players against the exact
0.522593, three players) are in the slow tier and in benchmarks/bench_players.py.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest
from click.testing import CliRunner

from dicewise.cli.main import cli
from dicewise.errors import DicewiseError
from dicewise.solver import dice
from dicewise.solver.multiplayer.category_race import (ExpectedChooser, Start, deal_stream,
                                                       play_race, seated_race)
from dicewise.solver.multiplayer.duel import play_table
from dicewise.solver.multiplayer.seats import Seated, settlements, win_shares
from dicewise.solver.multiplayer.table_advice import advise_table, table_position
from dicewise.solver.multiplayer.win import WinChooser
from dicewise.solver.sheet import parse_sheet
from dicewise.solver.stats import share_ci95
from dicewise.solver.target.driver import solve_target
from dicewise.solver.target.evaluation import policy_target_values
from dicewise.solver.two_player.space import two_player_rules

NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full_house", "four",
         "general")
FULL = (1 << 10) - 1


def run(*args):
    return CliRunner().invoke(cli, list(args), prog_name="dicewise")


# -- shares, settlements and the rotating duel -------------------------------------------

def test_win_shares_split_ties_and_honour_instant_wins():
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 4, size=(400, 4))
    winner = np.where(rng.random(400) < 0.1, rng.integers(0, 4, 400), -1)
    shares = win_shares(scores, winner)
    for row, w, got in zip(scores, winner, shares):
        if w >= 0:
            want = [1.0 if j == w else 0.0 for j in range(4)]
        else:
            top = [j for j in range(4) if row[j] == max(row)]
            want = [1 / len(top) if j in top else 0.0 for j in range(4)]
        assert got == pytest.approx(want)
    assert shares.sum(axis=1) == pytest.approx(np.ones(400))
    assert settlements(scores).sum(axis=1) == pytest.approx(np.zeros(400))


def test_the_duel_rotates_a_through_every_seat_on_the_same_deals():
    calls = []

    def play_seated(seats, deals, seed, first):
        calls.append((seats, deals, first))
        d = np.arange(first, first + deals)[:, None]
        j = np.arange(len(seats))[None, :]
        luck = (d * 7 + j * 3) % 5  # the deal's dice at seat j
        bonus = np.array([2 if s == "a" else 0 for s in seats])[None, :]
        return Seated((luck + bonus).astype(float))

    result = play_table(play_seated, "a", "b", 3, 31, 0)
    assert [c[0] for c in calls] == [("a", "b", "b"), ("b", "a", "b"), ("b", "b", "a")]
    assert {(c[1], c[2]) for c in calls} == {(11, 0)}
    assert result.games == 33 and len(result.seats) == 3
    shares, margins = [], []
    for k in range(3):
        for d in range(11):
            row = [(d * 7 + j * 3) % 5 + (2 if j == k else 0) for j in range(3)]
            top = [j for j in range(3) if row[j] == max(row)]
            shares.append(1 / len(top) if k in top else 0.0)
            margins.append(row[k] - (sum(row) - row[k]) / 2)
    assert result.share == pytest.approx(np.mean(shares))
    assert result.margin == pytest.approx(np.mean(margins))
    lo, hi = result.share_ci95
    assert lo < result.share < hi
    # the interval is over deals: each deal's mean share over A's three seats
    by_deal = np.array(shares).reshape(3, 11).mean(axis=0)
    assert result.share_ci95 == pytest.approx(share_ci95(by_deal))
    with pytest.raises(DicewiseError):
        play_table(play_seated, "a", "b", 3, 2, 0)


def test_a_deal_played_alike_from_every_seat_counts_once():
    # On shared rolls (Ryzykant) A's game is the same from every seat: twice the seats is
    # not twice the evidence, and the interval is that of the deals alone.
    rng = np.random.default_rng(4)
    outcome = rng.choice([0.0, 0.5, 1.0], size=500, p=[0.1, 0.75, 0.15])

    def play_seated(seats, deals, seed, first):
        a = seats.index("a")
        scores = np.zeros((deals, len(seats)))
        scores[:, a] = outcome[first:first + deals] * 2  # 0 lost, 1 tied, 2 won
        scores[:, 1 - a] = 1
        return Seated(scores)

    result = play_table(play_seated, "a", "b", 2, 1000, 0)
    assert result.share == pytest.approx(outcome.mean())
    assert result.share_ci95 == pytest.approx(share_ci95(outcome))


def _string_constants(path) -> set[str]:
    import ast

    return {node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def test_table_play_is_each_games_own_and_no_shared_module_names_a_game():
    """Every game with a duel seats a table through its protocol object (poker-school's
    from its race module), and no shared module — the table's, the players', the page's,
    the environments' observations — names a game."""
    from pathlib import Path

    import dicewise
    from dicewise.solver.registry import GAMES, get_game

    school = get_game("poker-school")
    rules = school.rules({})
    assert school.table_players(rules) == (2, 3, 4) and school.table_policies(rules) == ("win",)
    for name in GAMES:
        game = get_game(name)
        if "duel" in game.commands:
            assert all(players >= 2 for players in game.table_players(game.rules({})))
    root = Path(dicewise.__file__).parent
    shared = [path for folder in ("solver/multiplayer", "play", "web")
              for path in sorted((root / folder).glob("*.py"))]
    for path in shared + [root / "envs" / "observe.py", root / "envs" / "single.py"]:
        named = _string_constants(path) & set(GAMES)
        assert not named, f"{path.relative_to(root)} names {sorted(named)}"


# -- the race, against a plain one-game loop ----------------------------------------------

def plain_race(rules, tables, stream_game, start):
    """One race played a decision at a time: seat order from ``start``, the first-roll
    five of a kind winning at once, a reroll of n dice taking the first n faces."""
    n = len(tables)
    masks, points = list(start.masks), list(start.points)
    seat = start.to_move
    while not all(m == FULL for m in masks):
        if masks[seat] != FULL:
            t = bin(masks[seat]).count("1")
            kept: list[int] = []
            for k in (1, 2, 3):
                faces = kept + [int(f) for f in stream_game[seat, t, k - 1][:5 - len(kept)]]
                r = dice.roll_index(dice.counts_of(faces))
                if k == 1 and len(set(faces)) == 1:
                    return points, seat
                keep = int(tables[seat].keep[k - 1][masks[seat], r]) if k < 3 else -1
                if keep < 0:
                    box = int(tables[seat].box[k - 1][masks[seat], r])
                    assert not masks[seat] >> box & 1
                    masks[seat] |= 1 << box
                    points[seat] += int(rules.points[box, k - 1, r])
                    break
                kept = dice.faces_of(dice.KEEPS[keep])
        seat = (seat + 1) % n
    return points, -1


def test_the_lockstep_race_is_the_plain_race(solved):
    game, values = solved("general")
    rules = two_player_rules(game)
    optimal = ExpectedChooser(rules, values.values)
    choosers = [optimal, ExpectedChooser(rules, np.zeros(game.n_states), "greedy"), optimal]
    stream = deal_stream(3, 0, 12, 3, 10)
    stream[5, 1, 3, 0] = 4  # seat 2's fourth turn opens with a five of a kind
    start = Start((0, 0, 0), (0, 0, 0), 0)
    played = play_race(rules, choosers, stream, start)
    for d in range(len(stream)):
        points, winner = plain_race(rules, [c.table for c in choosers], stream[d], start)
        assert list(played.scores[d]) == points and played.winner[d] == winner
    assert played.winner[5] == 1
    # from a position in the middle of a round: the seat to move goes first
    mid = Start((0b11, 0b1, 0b1), (10, 3, 6), 1)
    played = play_race(rules, choosers, stream[:6], mid)
    for d in range(6):
        points, winner = plain_race(rules, [c.table for c in choosers], stream[d], mid)
        assert list(played.scores[d]) == points and played.winner[d] == winner


# -- the win policy where it is exact ---------------------------------------------------------

def score(box, roll, k):
    """Points of box ``box`` for sorted dice ``roll`` after roll k (RULES.md §1, joker)."""
    counts = Counter(roll)
    if box < 6:
        return (box + 1) * counts[box + 1]
    faces = set(roll)
    straight = (faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}, {1, 3, 4, 5, 6})
                or tuple(roll) == (1, 1, 3, 4, 5))
    if NAMES[box] == "straight":
        return (25 if k == 1 else 20) if straight else 0
    if NAMES[box] == "full_house":
        return (35 if k == 1 else 30) if sorted(counts.values()) == [2, 3] else 0
    if NAMES[box] == "four":
        return (45 if k == 1 else 40) if max(counts.values()) >= 4 else 0
    return 60 if len(counts) == 1 else 0


def _outcomes(n):
    throws = Counter(tuple(sorted(t)) for t in itertools.product(range(1, 7), repeat=n))
    return [(r, w / 6 ** n) for r, w in throws.items()]


OUTCOMES = {n: _outcomes(n) for n in range(6)}
ROLLS = OUTCOMES[5]
SUB_KEEPS = {r: {kp for j in range(6) for kp in itertools.combinations(r, j)} for r, _ in ROLLS}


def plain_turn(write):
    """Roll values after each roll, keep values before rolls 2 and 3, the turn's value;
    a first-roll five of a kind wins at once."""
    def keep_values(after):
        keeps = set().union(*SUB_KEEPS.values())
        return {kp: sum(p * after[tuple(sorted(kp + o))] for o, p in OUTCOMES[5 - len(kp)])
                for kp in keeps}

    v3 = {r: write(r, 3) for r, _ in ROLLS}
    e3 = keep_values(v3)
    v2 = {r: max(write(r, 2), max(e3[kp] for kp in SUB_KEEPS[r])) for r, _ in ROLLS}
    e2 = keep_values(v2)
    v1 = {r: 1.0 if len(set(r)) == 1 else max(write(r, 1), max(e2[kp] for kp in SUB_KEEPS[r]))
          for r, _ in ROLLS}
    return e2, e3, sum(p * v1[r] for r, p in ROLLS)


@lru_cache(maxsize=None)
def beat(open_boxes: frozenset, lead: int, level: int = 1):
    """P(finish above the best rival) + P(level)/(level + 1), every rival finished: ``lead``
    is the mover's points minus the best rival's, ``level`` how many rivals have that best;
    a first-roll five of a kind wins at once."""
    if not open_boxes:
        return 1.0 if lead > 0 else 1 / (level + 1) if lead == 0 else 0.0
    return plain_turn(lambda r, k: max(beat(open_boxes - {c}, lead + score(c, r, k), level)
                                       for c in open_boxes))[2]


@pytest.fixture(scope="module")
def endgame(solved):
    """A win chooser from tables solved from the mover's last turn (not the whole game)."""
    game, values = solved("general")
    mask = FULL & ~(1 << NAMES.index("fours"))
    target = solve_target(game, start=mask)
    rivals = policy_target_values(game, values, start=mask)
    return game, values, mask, WinChooser(two_player_rules(game), target, rivals, values.values)


@pytest.mark.parametrize("lead, level", [(-45, 1), (-24, 1), (-20, 1), (-3, 1), (0, 1), (12, 1),
                                         (-40, 2), (-20, 2), (0, 2), (-40, 3)])
def test_with_every_rival_finished_the_win_policy_is_exact(endgame, lead, level):
    """``level`` rivals share the best total: a tie with them is worth 1/(level + 1)."""
    game, values, mask, chooser = endgame
    best, other = (3, 6, 9, 12, 15, 18, 20, 30, 40, 0), (2, 4, 6, 8, 10, 12, 0, 0, 0, 0)
    rivals = [parse_sheet(game, ",".join(f"{b}={v}" for b, v in zip(NAMES, row)))
              for row in [best] * level + [other] * (level == 1)]
    sheet = parse_sheet(game, "ones=3,twos=6,threes=9,fives=15,sixes=18,straight=25,"
                              "full_house=30,four=40,general=0")
    assert sheet.mask == mask
    # the same sheet holding the points that give the lead asked for
    me = type(sheet)(sheet.scores, sheet.counters, mask, sheet.extra,
                     max(s.points for s in rivals) + lead)
    e2, e3, start_value = plain_turn(lambda r, k: beat(frozenset(), lead + score(3, r, k),
                                                       level))
    for faces, roll in (((2, 3, 4, 4, 6), 1), ((4, 4, 4, 5, 6), 2), ((1, 4, 4, 4, 4), 1)):
        advice = advise_table(game, values, me, rivals, faces, roll, chooser=chooser)
        assert not advice.approximate and advice.objective == "win"  # and says so
        assert advice.turn_start_probability == pytest.approx(start_value, abs=2e-6)
        kept = e2 if roll == 1 else e3
        for ch in advice.choices:
            if "keep" in ch.action:
                want = kept[tuple(sorted(ch.action["keep"]))]
            else:
                want = beat(frozenset(), lead + score(3, tuple(sorted(faces)), roll), level)
            assert ch.probability == pytest.approx(want, abs=2e-6), ch.label
        assert advice.choices[0].loss == 0


def test_the_rivals_best_total_is_a_distribution(endgame):
    _, _, mask, chooser = endgame
    masks = np.array([[FULL, mask], [mask, mask], [FULL, FULL]])
    points = np.array([[150, 120], [100, 101], [90, 90]])
    lo, pmf, tie = chooser.best_rival(masks, points)
    assert pmf.sum(axis=1) == pytest.approx(np.ones(3), abs=1e-8)
    assert (pmf >= -1e-12).all()
    assert lo[2] == 90 and pmf[2, 0] == pytest.approx(1.0)
    assert tie[2, 0] == pytest.approx(1 / 3)  # two rivals level at 90
    # one rival at 150 for sure, the other (120, fours open) below it: a tie is ½
    assert tie[0, 0] == pytest.approx(pmf[0, 0] / 2)
    assert (tie <= pmf / 2 + 1e-12).all() and (tie >= pmf / 3 - 1e-12).all()
    totals = lo[0] + np.arange(pmf.shape[1])
    assert pmf[0][totals < 150].sum() == pytest.approx(0.0)


# -- positions at a table ----------------------------------------------------------------------

def test_table_positions_are_checked(solved):
    game, _ = solved("general")
    me = parse_sheet(game, "ones=3,twos=6")
    ahead = parse_sheet(game, "ones=2,twos=4,fours=8")
    level = parse_sheet(game, "sixes=24,fives=10")
    start = table_position(game, me, [level, ahead], 3)
    assert start.to_move == 1 and start.masks[0] == ahead.mask and start.masks[2] == level.mask
    with pytest.raises(DicewiseError, match="need 2 rival sheets"):
        table_position(game, me, [ahead], 3)
    with pytest.raises(DicewiseError, match="different stages"):
        table_position(game, me, [ahead, parse_sheet(game, "ones=1")], 3)
    with pytest.raises(DicewiseError, match="different stages"):
        table_position(game, me, [ahead, parse_sheet(game, "ones=1,twos=2,threes=3,fours=4")], 3)


def test_seated_race_refuses_a_policy_it_lacks(solved):
    game, values = solved("general")
    with pytest.raises(DicewiseError, match="policies"):
        seated_race(game, values.values, ("optimal", "value"), 4, 0)


# -- the command line ----------------------------------------------------------------------------

@pytest.mark.slow  # a table of four played out in a process
def test_duel_of_four_shows_each_seats_settlement():
    res = run("duel", "poker-programs", "--players", "4", "--a", "greedy", "--b", "random",
              "--games", "200", "--seed", "2", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"ruleset", "rule_options", "players", "a", "b", "games", "seed",
                         "share", "share_ci95", "wins", "draws", "mean_margin", "mean_margin_ci95",
                         "points", "rival_points", "settlement", "settlement_ci95",
                         "instant_wins", "fair_share", "seats", "rival_extra", "approximate"}
    assert [set(s) for s in data["seats"]] == [{"seat", "games", "share", "share_ci95",
                                                "points", "rival_points", "settlement"}] * 4
    assert [s["seat"] for s in data["seats"]] == [1, 2, 3, 4] and data["rival_extra"] == {}
    assert data["players"] == 4 and data["games"] == 200 and len(data["seats"]) == 4
    assert data["fair_share"] == 0.25 and not data["approximate"]
    seats = data["seats"]
    assert np.mean([s["settlement"] for s in seats]) == pytest.approx(data["settlement"])
    assert data["share"] > 0.25 and data["settlement"] > 0
    text = run("duel", "poker-programs", "--players", "4", "--a", "greedy", "--b", "random",
               "--games", "8").stdout
    assert "settlement" in text and "seat 4" in text


def test_random_players_at_a_race_choose_legally_and_score_as_random_play():
    from dicewise.solver.rulesets import category_game

    played = seated_race(category_game("general"), None, ("random", "random"), 200, 4)
    assert 15 < played.scores.mean() < 28  # simulate's random policy: 21.18 a game


def test_duel_of_three_general_players_on_the_race_rules():
    res = run("duel", "general", "--players", "3", "--a", "optimal", "--b", "greedy",
              "--games", "60", "--seed", "1", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["games"] == 60 and 0 <= data["instant_wins"] < 1
    assert sum(s["games"] for s in data["seats"]) == 60


@pytest.mark.parametrize("args, message", [
    (("advise", "general", "--players", "3", "--roll", "1", "--dice", "1", "2", "3", "4", "5",
      "--sheet", "ones=3", "--opponent-sheet", "ones=2"), "need 2 rival sheets"),
    (("advise", "general", "--players", "3", "--roll", "1", "--dice", "1", "2", "3", "4", "5",
      "--sheet", "ones=3", "--opponent-sheet", "ones=2", "--opponent-sheet",
      "ones=1,twos=2,threes=3"), "different stages"),
    (("chance", "general", "--players", "4", "--sheet", "ones=3", "--opponent-sheet", "ones=2",
      "--opponent-sheet", "twos=2"), "need 3 rival sheets"),
    (("chance", "yahtzee", "--players", "3"), "no play to win"),
    (("duel", "yahtzee", "--players", "3", "--a", "win", "--games", "30"),
     "a table of yahtzee seats the policies optimal, greedy, random, not 'win'"),
    (("duel", "general", "--players", "3", "--a", "value", "--games", "30"),
     "a table of general seats the policies optimal, greedy, random, win, not 'value'"),
    (("duel", "poker-school", "--players", "5", "--a", "greedy", "--games", "30"), "2, 3, 4"),
])
def test_bad_tables_are_one_line(args, message):
    res = run(*args)
    assert res.exit_code == 2, res.output
    errors = [line for line in res.stderr.splitlines() if line.startswith("dicewise: error: ")]
    assert len(errors) == 1 and message in errors[0], res.output
    assert "Traceback" not in res.output and not res.stdout


# -- measured against the exact race and the fair share (slow: the two tables, many games) ------

@pytest.mark.slow
def test_two_players_win_policy_meets_the_exact_race():
    """Win-optimal against expected-score play is worth exactly 0.522593 (docs/players.md);
    the approximate policy, played the same way, comes within the simulation's error."""
    from dicewise import api

    duel = api.duel_players("general", players=2, a="win", b="optimal", games=20000, seed=11)
    assert duel.approximate and duel.result.games == 20000
    assert abs(duel.result.share - 0.522593) < 0.01
    assert duel.result.share_ci95[0] > 0.5


@pytest.mark.slow  # the win policy's two tables (about 9 s of CPU)
def test_chance_at_a_table_of_three_plays_the_position_out():
    """``chance --players 3 --json`` as docs/json.md lists it: the mover's seat counted from
    1, the share of the games played out with its interval, and the policy's own estimate."""
    res = run("chance", "general", "--players", "3",
              "--sheet", "ones=3,twos=6,threes=9,straight=25",
              "--opponent-sheet", "ones=2,twos=8,fours=12,full_house=30,general=60",
              "--opponent-sheet", "ones=3,twos=6,fours=8,straight=20", "--games", "40", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"ruleset", "rule_options", "players", "seat", "simulated",
                         "simulated_ci95", "games", "seed", "sheet", "points", "opponent_sheets",
                         "opponent_points", "approximate", "probability"}
    assert data["seat"] == 2 and data["games"] == 40 and data["approximate"] is True
    low, high = data["simulated_ci95"]
    assert 0 <= low <= data["simulated"] <= high <= 1 and 0 <= data["probability"] <= 1
    assert data["points"] == 43 and data["opponent_points"] == [112, 37]


@pytest.mark.slow  # the win policy's two tables
def test_chance_at_the_start_of_a_table_needs_no_empty_sheets_spelled_out():
    """``chance general --players 3`` with no rival sheets is asked at the start: each rival's
    sheet empty, as for two players; some but not all of them given is still refused."""
    bare = run("chance", "general", "--players", "3", "--games", "40", "--json")
    spelled = run("chance", "general", "--players", "3", "--games", "40", "--json",
                  "--opponent-sheet", "", "--opponent-sheet", "")
    assert bare.exit_code == 0 and bare.stdout == spelled.stdout
    assert json.loads(bare.stdout)["opponent_points"] == [0, 0]
    assert "need 2 rival sheets" in run("chance", "general", "--players", "3",
                                        "--opponent-sheet", "").stderr


@pytest.mark.slow
def test_three_players_win_policy_beats_a_fair_share():
    from dicewise import api

    duel = api.duel_players("general", players=3, a="win", b="optimal", games=30000, seed=12)
    assert duel.result.share_ci95[0] > 1 / 3 and duel.result.share > 0.345
