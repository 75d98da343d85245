"""Two-player General (``solver/two_player``, ``tables/two_player.py``), checked on sub-games.

Proves: values are probabilities and grow with the lead; where the opponent has finished
with S points the value is the one-player chance of beating S (an independent one-player
expectimax); brute-force expectimax over whole positions — every roll, every keep, plain
Python, scoring written afresh from RULES.md §1 — equals the batched solver on endgames
with one or two boxes open each, under every rule option; a sub-game holds the same values
as a larger one holding it; the fixed-policy evaluation reproduces the solved values when
both play to win and agrees with a lockstep simulation on shared dice within its 95%
interval; advice ranks consistently with the turn-start chance; the layered driver resumes
from checkpoints, refuses a damaged or foreign one, and gives the same values on threads,
Dask threads and a Dask LocalCluster.  CI never solves the whole game: every solve here is
a sub-game (seconds).
"""

from __future__ import annotations

import contextlib
import itertools
import sys
from collections import Counter
from functools import lru_cache

import msgpack
import numpy as np
import pytest

from dicewise.api import RaceDuel
from dicewise.errors import DicewiseError
from dicewise.solver import dice
from dicewise.solver.rulesets import category_game
from dicewise.solver.sheet import parse_sheet
from dicewise.solver.two_player import (WinPolicy, advise_two_player, build_layout, make_policy,
                                        chance, duel_edge, evaluate_policies, simulate_duel,
                                        solve_subgame, two_player_rules)
from dicewise.solver import runtime
from dicewise.tables import two_player as driver
from dicewise.tables.format import TableError, checksum

FULL = (1 << 10) - 1
NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full_house", "four",
         "general")


def mask_with_open(*boxes: str) -> int:
    """The sheet mask where exactly ``boxes`` are still open."""
    return FULL & ~sum(1 << NAMES.index(b) for b in boxes)


# -- plain brute force, written from RULES.md §1 without the package's scoring ----------

def _straight(roll, mode):
    faces = set(roll)
    if mode == "circular":
        return len(faces) == 5
    plain = faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})
    joker = faces == {1, 3, 4, 5, 6} or tuple(roll) == (1, 1, 3, 4, 5)
    return plain or (mode == "joker" and joker)


def score(box, roll, k, mode):
    """Points of box index ``box`` for sorted dice ``roll`` written after roll ``k``."""
    counts = Counter(roll)
    name = NAMES[box]
    if box < 6:
        return (box + 1) * counts[box + 1]
    if name == "straight":
        return (25 if k == 1 else 20) if _straight(roll, mode) else 0
    if name == "full_house":
        return (35 if k == 1 else 30) if sorted(counts.values()) == [2, 3] else 0
    if name == "four":
        return (45 if k == 1 else 40) if max(counts.values()) >= 4 else 0
    return 60 if len(counts) == 1 else 0


def _outcomes(n):
    throws = Counter(tuple(sorted(t)) for t in itertools.product(range(1, 7), repeat=n))
    return [(r, w / 6 ** n) for r, w in throws.items()]


OUTCOMES = {n: _outcomes(n) for n in range(6)}
ROLLS = OUTCOMES[5]
SUB_KEEPS = {r: {kp for j in range(6) for kp in itertools.combinations(r, j)} for r, _ in ROLLS}
ALL_KEEPS = set().union(*SUB_KEEPS.values())


def plain_turn(write, instant_win: bool):
    """Value of one three-roll turn: ``write(roll, k)`` is the best write's value."""
    def keep_values(after):
        return {kp: sum(p * after[tuple(sorted(kp + o))] for o, p in OUTCOMES[5 - len(kp)])
                for kp in ALL_KEEPS}

    v3 = {r: write(r, 3) for r, _ in ROLLS}
    e3 = keep_values(v3)
    v2 = {r: max(write(r, 2), max(e3[kp] for kp in SUB_KEEPS[r])) for r, _ in ROLLS}
    e2 = keep_values(v2)
    v1 = {r: 1.0 if instant_win and len(set(r)) == 1 else
          max(write(r, 1), max(e2[kp] for kp in SUB_KEEPS[r])) for r, _ in ROLLS}
    return sum(p * v1[r] for r, p in ROLLS)


@lru_cache(maxsize=None)
def brute(mover_open: frozenset, other_open: frozenset, diff: int, mode="joker", ends=True):
    """P(win) + ½P(draw) of the mover by expectimax over every roll and keep."""
    if not mover_open:
        return 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0

    def write(r, k):
        return max(1 - brute(other_open, mover_open - {c}, -(diff + score(c, r, k, mode)), mode, ends)
                   for c in mover_open)

    return plain_turn(write, ends)


def one_player_beat(box: int, need: int) -> float:
    """P(final > need) + ½P(final = need) with one box left, a big general winning."""
    def write(r, k):
        p = score(box, r, k, "joker")
        return 1.0 if p > need else 0.5 if p == need else 0.0

    return plain_turn(write, True)


@pytest.fixture(scope="module")
def general():
    return category_game("general")


@lru_cache(maxsize=None)
def _subgame(options: tuple, mover: int, other: int, dtype="float32"):
    return solve_subgame(category_game("general", **dict(options)), mover, other, dtype)


def subgame(mover, other, dtype="float32", **options):
    return _subgame(tuple(sorted(options.items())), mover, other, dtype)


# -- the state space -------------------------------------------------------------------

def test_whole_game_state_space(general):
    layout = build_layout(two_player_rules(general))
    assert layout.n_pairs == 352_716  # C(20,10) + C(20,11): counts equal, or one fewer
    assert layout.n_values == 75_626_528  # bounded difference runs (space.py)
    assert layout.width[0] == 1 and layout.width[-1] == 3  # root: d = 0; end: d = -1, 0, 1


def test_games_with_extra_state_are_refused():
    with pytest.raises(DicewiseError, match="extra state"):
        two_player_rules(category_game("yatzy"))


def test_positions_turns_cannot_reach_are_refused(general):
    with pytest.raises(DicewiseError, match="one fewer"):
        solve_subgame(general, mask_with_open("ones", "twos"), mask_with_open("ones", "twos", "sixes"))
    values = subgame(mask_with_open("ones"), mask_with_open("twos"))
    with pytest.raises(DicewiseError, match="not a position"):
        values.value(mask_with_open("threes"), mask_with_open("twos"), 0)


# -- exact checks ----------------------------------------------------------------------

def test_values_are_probabilities_growing_with_the_lead():
    values = subgame(mask_with_open("ones", "fours", "straight", "general"),
                     mask_with_open("twos", "sixes", "four", "full_house"))
    v = values.values
    assert v.min() >= 0 and v.max() <= 1
    layout = values.layout
    for p in range(layout.n_pairs):
        run = v[layout.offset[p]:layout.offset[p + 1]]
        assert (np.diff(run) >= -1e-6).all()


@pytest.mark.parametrize("box", range(10))
def test_opponent_finished_is_the_one_player_chance_of_beating_them(box):
    """Opponent full with S points: the mover's value is P(beat S) + ½P(tie S), one box left."""
    mover = mask_with_open(NAMES[box])
    values = subgame(mover, FULL)
    for lead in (-61, -40, -25, -20, -6, 0, 3):
        assert values.value(mover, FULL, lead) == pytest.approx(one_player_beat(box, -lead), abs=1e-6)


SLOW = pytest.mark.slow  # over ~1.5 s: CI's second step runs them
ENDGAMES = [
    (("four", "general"), ("general",), 3, {}),
    pytest.param(("ones", "straight"), ("twos",), -2, {}, marks=SLOW),
    pytest.param(("full_house", "four"), ("threes", "sixes"), 10, {}, marks=SLOW),
    pytest.param(("ones", "straight"), ("fours", "fives"), 0, {}, marks=SLOW),
    (("straight", "general"), ("straight",), 0, {"straight": "plain"}),
    (("straight",), ("full_house",), -5, {"straight": "circular"}),
    pytest.param(("general", "fours"), ("general",), -20, {"big_general": "sixty"}, marks=SLOW),
]


@pytest.mark.parametrize("mine, theirs, lead, options", ENDGAMES)
def test_brute_force_expectimax_on_endgames(mine, theirs, lead, options):
    mover, other = mask_with_open(*mine), mask_with_open(*theirs)
    values = subgame(mover, other, **options)
    mode = options.get("straight", "joker")
    ends = options.get("big_general", "ends") == "ends"
    want = brute(frozenset(NAMES.index(b) for b in mine), frozenset(NAMES.index(b) for b in theirs),
                 lead, mode, ends)
    assert values.value(mover, other, lead) == pytest.approx(want, abs=1e-6)


@pytest.mark.slow
def test_float32_storage_is_within_its_bound_of_float64():
    """Each stored layer rounds once (≤ 2^-25); the induction is non-expansive (layers.py)."""
    mover, other = mask_with_open("ones", "sixes", "four", "general"), mask_with_open(
        "twos", "straight", "four", "full_house")
    low, high = subgame(mover, other, "float32"), subgame(mover, other, "float64")
    rounded = 2 * 10 - low.layout.root_layer  # the layers stored after rounding
    assert np.abs(low.values - high.values).max() <= rounded * 2.0 ** -25


@pytest.mark.slow
def test_a_subgame_holds_the_values_of_the_larger_game():
    """Sub-games keep the whole game's difference runs, so values agree bit for bit."""
    big = subgame(mask_with_open("ones", "twos", "fours", "straight", "general"),
                  mask_with_open("threes", "fives", "sixes", "four", "general"))
    small_m, small_o = mask_with_open("threes", "fives", "four"), mask_with_open("twos", "general")
    small = subgame(small_m, small_o)
    for p in range(small.layout.n_pairs):
        m, o = int(small.layout.mover[p]), int(small.layout.other[p])
        q = big.layout.pair(m, o)
        assert np.array_equal(small.values[small.layout.offset[p]:small.layout.offset[p + 1]],
                              big.values[big.layout.offset[q]:big.layout.offset[q + 1]])


# -- policies --------------------------------------------------------------------------

DUEL_ROOT = (mask_with_open("fours", "four", "general"), mask_with_open("fives", "full_house",
                                                                         "straight"))


@pytest.mark.slow
def test_win_policy_evaluated_against_itself_gives_the_solved_values():
    values = subgame(*DUEL_ROOT)
    both = evaluate_policies(values, ("win", "win"))
    assert np.abs(both.values - values.values).max() <= 1e-6


def test_the_exact_edge_counts_its_layers_to_a_progress_bar(solved):
    """``duel --exact`` evaluates for minutes: its layers go to a progress bar, to its end,
    and the values are those without one."""
    import contextlib

    from dicewise.tables.two_player import exact_edge

    _, solitaire = solved("general")
    values = subgame(*DUEL_ROOT)
    bars = []

    @contextlib.contextmanager
    def progress(units, label):
        bars.append([units, 0, str(label)])
        yield lambda done: bars[-1].__setitem__(1, bars[-1][1] + done)

    assert exact_edge(values, solitaire.values, progress) == \
        duel_edge(values, solitaire.values)
    (units, done, label), = bars
    assert done == units > 0 and label == "evaluating win against expected-score play exactly"


@pytest.mark.slow
def test_win_policy_beats_expected_score_and_simulation_agrees(solved):
    _, solitaire = solved("general")
    values = subgame(*DUEL_ROOT)
    lead = -10
    exact = duel_edge(values, solitaire.values, lead)
    assert exact["value"] == values.value(*DUEL_ROOT, lead)
    assert exact["first_wins"] == pytest.approx(exact["value"] - exact["draw"] / 2)
    assert exact["win_first"] >= values.value(*DUEL_ROOT, lead) - 1e-6  # E is no better than W
    assert exact["alternating"] > 0.5
    duel = simulate_duel(values, WinPolicy(values), make_policy("optimal", values, solitaire.values),
                         games=20000, seed=3, start=(*DUEL_ROOT, lead))
    low, high = duel.ci95
    assert low <= exact["alternating"] <= high
    assert duel.wins + duel.draws + duel.losses == pytest.approx(1) and duel.games == 20000
    assert duel.value == pytest.approx(duel.wins + duel.draws / 2)
    assert duel.a == "win" and duel.b == "optimal"
    # seat by seat, a looser check (each half is 10,000 games): within 4 standard errors
    assert abs(duel.value_first - exact["win_first"]) < 4 * 0.5 / np.sqrt(10000)
    assert abs(duel.value_second - exact["win_second"]) < 4 * 0.5 / np.sqrt(10000)
    # The other way round, A playing for the mean: A's seats are the win player's swapped.
    swapped = simulate_duel(values, make_policy("optimal", values, solitaire.values),
                            WinPolicy(values), games=20000, seed=3, start=(*DUEL_ROOT, lead))
    first, second = RaceDuel("general", {}, swapped, exact).exact_by_seat
    assert first == pytest.approx(1 - exact["win_second"])
    assert abs(swapped.value_first - first) < 4 * 0.5 / np.sqrt(10000)
    assert abs(swapped.value_second - second) < 4 * 0.5 / np.sqrt(10000)


def test_a_duel_of_one_policy_against_itself_mirrors_each_pair_of_games():
    """Both seats of a pair play the same dice: with one policy on both sides the second game
    is the first with the players swapped, so A scores exactly 1 in every pair, and A's value
    moving first is the solved race's value for the mover (second: one minus it)."""
    values = subgame(*DUEL_ROOT)
    lead = -10
    mover = values.value(*DUEL_ROOT, lead)
    assert 0.2 < mover < 0.4  # far from 1/2: the seats' values tell A's side apart
    duel = simulate_duel(values, WinPolicy(values), WinPolicy(values), games=4000, seed=1,
                         start=(*DUEL_ROOT, lead))
    assert duel.games == 4000 and duel.value == 0.5 and duel.ci95 == (0.5, 0.5)
    assert duel.wins == duel.losses and duel.wins + duel.draws + duel.losses == pytest.approx(1)
    assert duel.value_first + duel.value_second == pytest.approx(1.0, abs=1e-12)
    se = 0.5 / np.sqrt(2000)  # each seat's 2,000 games
    assert abs(duel.value_first - mover) < 4 * se
    assert abs(duel.value_second - (1 - mover)) < 4 * se


def test_a_duel_of_one_pair_has_no_interval_and_says_so(monkeypatch):
    """Two games are one pair, which gives no interval: `duel --players 2` prints a dash
    where it has none (``null`` in the JSON), never "nan"."""
    from click.testing import CliRunner

    from dicewise import api
    from dicewise.cli.main import cli

    values = subgame(*DUEL_ROOT)
    duel = simulate_duel(values, WinPolicy(values), WinPolicy(values), games=2, seed=1,
                         start=(*DUEL_ROOT, -10))
    monkeypatch.setattr(api, "duel", lambda *args, **kwargs: RaceDuel("general", {}, duel, None))
    for args, dash in ((["--games", "2"], "—"), (["--games", "2", "--json"], "null")):
        out = CliRunner().invoke(cli, ["duel", "general", "--players", "2", *args]).stdout
        assert "nan" not in out.lower() and dash in out, out


def test_a_duel_of_two_says_how_often_a_game_was_won_at_once(monkeypatch):
    """As a table of N says it: the rate of games a first-roll five of a kind ended (only
    the JSON had it)."""
    import dataclasses

    from click.testing import CliRunner

    from dicewise import api
    from dicewise.cli.main import cli

    values = subgame(*DUEL_ROOT)
    duel = simulate_duel(values, WinPolicy(values), WinPolicy(values), games=4, seed=1,
                         start=(*DUEL_ROOT, -10))
    for rate, said in ((0.25, True), (0.0, False)):
        shown = dataclasses.replace(duel, instant_wins=rate)
        monkeypatch.setattr(api, "duel", lambda *a, **k: RaceDuel("general", {}, shown, None))
        out = CliRunner().invoke(cli, ["duel", "general", "--players", "2"]).stdout
        assert ("games won at once: 0.2500" in out) == said, out


def test_an_odd_number_of_race_games_is_rounded_up_to_whole_pairs(monkeypatch):
    """Each pair plays one dice stream from both seats: `duel --players 2 --games 3` plays
    two pairs, every seat equally often, as a table of N rounds up to whole deals (here on a
    late sub-game in the full table's place)."""
    from types import SimpleNamespace

    from dicewise import api

    values = subgame(*DUEL_ROOT)
    monkeypatch.setattr(api, "solve_two_player", lambda *args, **kwargs: SimpleNamespace(
        values=values))
    for asked, played in ((2, 2), (3, 4), (4, 4), (5, 6)):
        assert api.duel_two_player("general", games=asked, seed=1).result.games == played


def test_the_exact_values_by_seat_follow_player_a_whichever_policy_it_plays():
    """``exact`` holds the win player's values moving first and second; where A is the other
    player, A moving first is the win player moving second."""
    exact = {"win_first": 0.62, "win_second": 0.47, "alternating": 0.545}

    class Result:
        def __init__(self, a):
            self.a = a

    assert RaceDuel("general", {}, Result("win"), exact).exact_by_seat == (0.62, 0.47)
    first, second = RaceDuel("general", {}, Result("optimal"), exact).exact_by_seat
    assert (first, second) == (pytest.approx(1 - 0.47), pytest.approx(1 - 0.62))
    assert RaceDuel("general", {}, Result("optimal"), None).exact_by_seat is None


def test_draw_probability_evaluation_is_consistent():
    """P(draw) by the same evaluation: 0 ≤ P(draw) ≤ 2·min(V, 1 − V) at every state."""
    values = subgame(*DUEL_ROOT)
    draws = evaluate_policies(values, ("win", "win"), kind="draw")
    v, d = values.values.astype(float), draws.values.astype(float)
    assert (d >= -1e-6).all() and (d <= 2 * np.minimum(v, 1 - v) + 1e-5).all()


# -- advice ----------------------------------------------------------------------------

def test_advice_ranks_choices_and_averages_to_the_chance(general, solved):
    _, solitaire = solved("general")
    me = parse_sheet(general, "ones=3,twos=6,threes=9,fives=15,sixes=24,straight=20,full_house=30")
    them = parse_sheet(general, "ones=2,twos=8,threes=12,fours=16,sixes=18,straight=25,"
                                "full_house=35,four=40")
    values = solve_subgame(general, me.mask, them.mask)
    assert values.layout.n_pairs < 100
    start = chance(values, me, them)
    total = 0.0
    for r in range(dice.N_ROLLS):
        faces = dice.faces_of(dice.ROLLS[r])
        advice = advise_two_player(values, me, them, faces, 1)
        if advice.ended:
            total += dice.ROLL_PROBABILITY[r]
            continue
        best = advice.best
        ranked = [c.value for c in advice.choices]
        assert ranked == sorted(ranked, reverse=True)
        assert best.loss == 0 and all(c.loss >= 0 for c in advice.choices)
        total += dice.ROLL_PROBABILITY[r] * best.value
    assert total == pytest.approx(start, abs=1e-6)
    advice = advise_two_player(values, me, them, [6, 6, 6, 2, 1], 2, solitaire)
    assert advice.position["seat"] == "second" and advice.expected_score_choice is not None
    assert {next(iter(c.action)) for c in advice.choices} == {"keep", "write"}
    assert all(c.expected is not None for c in advice.choices)
    assert advice.choice_for(advice.expected_score_choice).loss >= 0
    assert advice.to_json()["objective"] == "win"


def test_advice_on_a_big_general_says_the_game_is_won(general):
    me = parse_sheet(general, "ones=3,fours=12,fives=15,sixes=18,straight=20,full_house=30,"
                              "four=40,general=0")
    them = parse_sheet(general, "twos=4,threes=9,fives=20,sixes=24,straight=25,full_house=30,"
                                "four=40,general=60")
    values = solve_subgame(general, me.mask, them.mask)
    advice = advise_two_player(values, me, them, [4, 4, 4, 4, 4], 1)
    assert advice.ended and advice.choices == () and advice.position["seat"] == "first"
    assert chance(values, me, them) == values.value(me.mask, them.mask, 138 - 212)


# -- the driver: checkpoints, runners ---------------------------------------------------

DRIVER_ROOT = (mask_with_open("ones", "fours", "four", "general"),
               mask_with_open("twos", "straight", "full_house", "general"))


class Killed(Exception):
    pass


def _kill_after(n):
    """A progress factory of the table store that kills the solve in the layer after its
    first ``n`` (counted chunk by chunk: their states add up to each layer's end)."""
    layout = build_layout(two_player_rules(category_game("general")), DRIVER_ROOT)
    sizes = (layout.layer_values(t).stop - layout.layer_values(t).start for t in layout.layers())
    layer_end = list(itertools.accumulate(sizes))[n - 1]
    counted = []

    def update(states):
        counted.append(states)
        if sum(counted) > layer_end:
            raise Killed

    return lambda units, label: contextlib.nullcontext(update)


def test_a_killed_solve_resumes_from_its_checkpoints(general, tmp_path):
    path = tmp_path / "race.dwt"
    with pytest.raises(Killed):
        driver.solve_two_player(general, path, root=DRIVER_ROOT, scheduler="threads", workers=2,
                                chunk_columns=3000, progress=_kill_after(4))
    assert not path.exists()
    assert len(list(driver.checkpoint_dir(path).iterdir())) == 4
    done = driver.solve_two_player(general, path, root=DRIVER_ROOT, scheduler="threads", workers=2,
                                   chunk_columns=3000)
    assert done.resumed_layers == 4 and done.built
    assert not driver.checkpoint_dir(path).exists()
    want = subgame(*DRIVER_ROOT)
    assert np.array_equal(done.values.values, want.values)
    loaded = driver.solve_two_player(general, path, root=DRIVER_ROOT)
    assert not loaded.built and np.array_equal(loaded.values.values, want.values)


def test_progress_is_counted_chunk_by_chunk_and_a_stop_ends_the_layer_under_way(general,
                                                                                tmp_path):
    """The store's progress hears of every chunk as it is solved: a bar moves within a layer,
    and a server that is stopping (its progress raises) gives up after the chunk under way,
    where before it heard of nothing until the layer was done (up to a minute in the whole
    game's middle layers), its checkpoint written."""
    layout = build_layout(two_player_rules(general), DRIVER_ROOT)
    counted = []
    driver.solve_two_player(general, tmp_path / "a.dwt", root=DRIVER_ROOT, workers=2,
                            chunk_columns=3000,
                            progress=lambda units, label: contextlib.nullcontext(counted.append))
    assert sum(counted) == layout.n_values and len(counted) > len(layout.layers())
    ends = list(itertools.accumulate(
        layout.layer_values(t).stop - layout.layer_values(t).start for t in layout.layers()))
    counted = []

    def update(states):  # stopping at the first chunk that does not end its layer
        counted.append(states)
        if sum(counted) not in ends:
            raise Killed

    path = tmp_path / "b.dwt"
    with pytest.raises(Killed):
        driver.solve_two_player(general, path, root=DRIVER_ROOT, workers=2, chunk_columns=3000,
                                progress=lambda units, label: contextlib.nullcontext(update))
    finished = sum(end < sum(counted) for end in ends)
    assert 0 < finished < len(ends) - 1 and not path.exists()
    assert len(list(driver.checkpoint_dir(path).iterdir())) == finished


def test_a_damaged_or_foreign_checkpoint_is_refused(general, tmp_path):
    path = tmp_path / "race.dwt"
    with pytest.raises(Killed):
        driver.solve_two_player(general, path, root=DRIVER_ROOT, scheduler="threads", workers=1,
                                progress=_kill_after(3))
    files = sorted(driver.checkpoint_dir(path).iterdir())
    raw = bytearray(files[1].read_bytes())
    raw[len(raw) // 2] ^= 0x01
    files[1].write_bytes(bytes(raw))
    with pytest.raises(TableError, match="checkpoint refused.*damaged"):
        driver.solve_two_player(general, path, root=DRIVER_ROOT, scheduler="threads")
    files[1].unlink()
    doc = msgpack.unpackb(files[0].read_bytes(), raw=False)
    doc["header"]["rules_digest"] = "0" * 16
    doc["header"]["checksum"] = checksum(doc["header"], doc["payload"])
    files[0].write_bytes(msgpack.packb(doc, use_bin_type=True))
    with pytest.raises(TableError, match="checkpoint refused.*other rules"):
        driver.solve_two_player(general, path, root=DRIVER_ROOT, scheduler="threads")


@pytest.mark.slow
def test_dask_runners_give_the_thread_runners_values(general, tmp_path):
    pytest.importorskip("dask")
    want = subgame(*DRIVER_ROOT)
    got = driver.solve_two_player(general, tmp_path / "a.dwt", root=DRIVER_ROOT,
                                  scheduler="dask-threads", workers=2, chunk_columns=3000)
    assert got.runner == "dask-threads" and np.array_equal(got.values.values, want.values)
    pytest.importorskip("distributed")
    got = driver.solve_two_player(general, tmp_path / "b.dwt", root=DRIVER_ROOT, scheduler="local",
                                  workers=1, chunk_columns=20000)
    assert got.runner == "dask-distributed" and np.array_equal(got.values.values, want.values)


@pytest.mark.slow  # waits for a connection that never comes
def test_an_unreachable_scheduler_is_one_clear_error(general, tmp_path):
    pytest.importorskip("distributed")
    with pytest.raises(DicewiseError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9: "
                       "no answer within 0.25 s$") as e:
        driver.solve_two_player(general, tmp_path / "c.dwt", root=DRIVER_ROOT,
                                scheduler="tcp://127.0.0.1:9", connect_timeout=0.25)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("address", ["tcp://", "bogus://host:1", "tcp://host"])
def test_a_malformed_scheduler_address_is_said_in_our_words(general, tmp_path, address):
    """Refused before any work and before any Dask client is made (a failed client, once
    collected, can deadlock the next one), and not in Dask's own words."""
    pytest.importorskip("distributed")
    from click.testing import CliRunner

    from dicewise.cli.main import cli

    want = f"{address} is not the address of a Dask scheduler (one looks like tcp://host:8786)"
    with pytest.raises(DicewiseError) as e:
        driver.solve_two_player(general, tmp_path / "c.dwt", root=DRIVER_ROOT, scheduler=address)
    assert str(e.value) == want
    result = CliRunner().invoke(cli, ["solve", "general", "--players", "2", "--scheduler",
                                      address, "--out", str(tmp_path / "d.dwt")])
    assert result.exit_code == 2 and result.stderr == f"dicewise: error: {want}\n"


@pytest.mark.slow
def test_forked_processes_give_the_thread_runners_values(general, tmp_path):
    """The default runner with several workers forks processes per layer; one worker runs
    in this process."""
    want = subgame(*DRIVER_ROOT).values
    got = driver.solve_two_player(general, tmp_path / "p.dwt", root=DRIVER_ROOT, workers=2,
                                  chunk_columns=3000)
    assert got.runner == "processes" and np.array_equal(got.values.values, want)
    assert runtime.open_runtime(None, 1).name == "serial"


def test_without_dask_the_default_runner_is_plain_threads(general, tmp_path, monkeypatch):
    """Dask is optional: with it hidden (and no fork), the default runner is the thread pool."""
    monkeypatch.setitem(sys.modules, "dask", None)  # ``import dask`` now raises ImportError
    monkeypatch.setattr(runtime, "can_fork", lambda: False)
    got = driver.solve_two_player(general, tmp_path / "e.dwt", root=DRIVER_ROOT, workers=2)
    assert got.runner == "threads" and np.array_equal(got.values.values, subgame(*DRIVER_ROOT).values)
    with pytest.raises(DicewiseError, match="needs a system that can fork"):
        driver.solve_two_player(general, tmp_path / "g.dwt", root=DRIVER_ROOT,
                                scheduler="processes")
    with pytest.raises(DicewiseError, match=r"needs dask: pip install 'dicewise\[distributed\]'"):
        driver.solve_two_player(general, tmp_path / "f.dwt", root=DRIVER_ROOT,
                                scheduler="dask-threads")


def test_an_unknown_scheduler_is_refused(general, tmp_path):
    with pytest.raises(DicewiseError, match="unknown scheduler"):
        driver.solve_two_player(general, tmp_path / "d.dwt", root=DRIVER_ROOT, scheduler="mpi")
