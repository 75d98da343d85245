"""The generic category-game engine (``solver/category.py``) and what each write does.

Proves: (1) ``solve_states`` equals a whole-game expectimax written out by brute force for
a tiny ruleset declared here, which uses every engine feature (roll-number-dependent
points, an extra counter with a capped sum and an end-of-game bonus, a placement
restriction, and a first roll that ends the game); (2) every Yahtzee write, under each
joker option, on random positions rich in extra Yahtzees, gives the points, the legality
and the next state of a direct reading of RULES.md (bonus 100 only with 50 in the Yahtzee
box, joker values, the forced placement order, bonuses kept out of the upper sum), plus
hand-picked cases; Poker-programs pays its obligatory bonus and keeps free figures closed
until the six are written; (3) the declared reachable states of every ruleset, under
every option, contain every state that random legal play reaches.

Writes are observed through the advisor given a fake table worth 10,000 × the extra of
each state, so that a write's expected value reveals its points and the state it leads to
without depending on how ``Write`` is laid out inside."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicewise.solver import dice, runtime
from dicewise.solver.advice import advise_position
from dicewise.solver.category import (ROLL_NUMBERS, Category, CategoryRules, StateValues, Write,
                                      WritePlans, best_of_tables, box_tables, reachable_states,
                                      solve_states, upper_sum_reachable, write_columns, write_values)
from dicewise.solver.sheet import Sheet
from dicewise.solver.rulesets import CATEGORY_GAMES, category_game
from dicewise.solver.options import option_fields

FACES = range(1, 7)
ROLL_TUPLES = list(itertools.combinations_with_replacement(FACES, 5))


# -- a tiny ruleset, declared for the engine ------------------------------------------
CAP, BONUS, END_VALUE = 16, 20, 10.0


@dataclass(frozen=True)
class Mini(CategoryRules):
    """Fives, Sixes (capped sum, 20 bonus at 16), a Pair doubled on roll 1 that may only be
    written once Fives is filled, and a first-roll five of a kind that ends the game worth 10."""

    name = "engine-test"  # no registered game's name: its cases are its own
    title = "test game"
    n_extra = CAP + 1
    roll_number_matters = True

    @property
    def categories(self):
        return (Category("fives", lambda c, k: 5 * c[:, 4]),
                Category("sixes", lambda c, k: 6 * c[:, 5]),
                Category("pair", lambda c, k: 2 * np.where(c >= 2, np.arange(1, 7), 0).max(axis=1)
                         * (2 if k == 1 else 1)))

    def write(self, c, roll_number, masks, extras):
        points = self.base_points[c, roll_number - 1][:, None]
        if c < 2:
            face = 5 + c
            moves = np.minimum(extras[None, :] + face * np.arange(6)[:, None], CAP)
            return Write(points, moves, dice.ROLLS[:, face - 1])
        return Write(points, extras[None, :], np.zeros(252, dtype=np.int64),
                     legal=((masks & 1) == 1)[None, :])

    def final_bonus(self, extras):
        return np.where(extras >= CAP, BONUS, 0)

    def reachable_extras(self, masks):
        sums = upper_sum_reachable([[5 * n for n in range(6)], [6 * n for n in range(6)]], 0,
                                   CAP + 1, cap=CAP)[masks & 3]
        return sums & ~(((masks >> 2) & 1 == 1) & (masks & 1 == 0))[:, None]

    def first_roll_end(self):
        return np.where(dice.ROLLS.max(axis=1) == 5, END_VALUE, np.nan)


# -- the same game, by brute force ------------------------------------------------------
def throws_from(kept):
    return Counter(tuple(sorted(kept + t)) for t in itertools.product(FACES, repeat=5 - len(kept)))


TRANSITIONS = {tuple(sorted(k)): None for n in range(6)
               for k in itertools.combinations_with_replacement(FACES, n)}
TRANSITIONS = {k: throws_from(k) for k in TRANSITIONS}
SUBSETS = {d: {tuple(sorted(d[i] for i in pos)) for n in range(6)
               for pos in itertools.combinations(range(5), n)} for d in ROLL_TUPLES}


def mini_points(c, d, k):
    if c == 0:
        return 5 * d.count(5)
    if c == 1:
        return 6 * d.count(6)
    pair = max([f for f in FACES if d.count(f) >= 2], default=0)
    return 2 * pair * (2 if k == 1 else 1)


def mini_next_sum(c, d, s):
    return s if c == 2 else min(s + (5 + c) * d.count(5 + c), CAP)


@functools.lru_cache(maxsize=None)
def brute_value(mask, s):
    """Expected future points from the start of a turn, by expectimax over the three rolls."""
    if mask == 0b111:
        return BONUS if s >= CAP else 0

    def write(d, k):
        return max(mini_points(c, d, k) + brute_value(mask | 1 << c, mini_next_sum(c, d, s))
                   for c in range(3) if not mask >> c & 1 and (c != 2 or mask & 1))

    def keeps(v):
        return {kept: sum(w * v[d] for d, w in out.items()) / 6 ** (5 - len(kept))
                for kept, out in TRANSITIONS.items()}

    v = {d: write(d, 3) for d in ROLL_TUPLES}
    for k in (2, 1):
        e = keeps(v)
        v = {d: max(write(d, k), max(e[x] for x in SUBSETS[d])) for d in ROLL_TUPLES}
    v = {d: (END_VALUE if len(set(d)) == 1 else x) for d, x in v.items()}
    return sum(w * v[d] for d, w in TRANSITIONS[()].items()) / 6**5


def brute_reachable():
    seen, todo = set(), [(0, 0)]
    while todo:
        mask, s = todo.pop()
        if (mask, s) in seen:
            continue
        seen.add((mask, s))
        for c in range(3):
            if mask >> c & 1 or (c == 2 and not mask & 1):
                continue
            for d in ROLL_TUPLES:
                todo.append((mask | 1 << c, mini_next_sum(c, d, s)))
    return seen


def test_engine_equals_whole_game_expectimax_on_a_tiny_ruleset():
    game = Mini()
    solved = solve_states(game)
    reach = brute_reachable()
    assert {divmod(int(i), game.n_extra) for i in np.flatnonzero(solved.reachable)} == reach
    for mask, s in sorted(reach):
        assert solved.values[game.state_index(mask, s)] == pytest.approx(brute_value(mask, s),
                                                                          abs=1e-9), (mask, s)
    assert solved.expected_score == pytest.approx(brute_value(0, 0), abs=1e-9)
    assert np.isnan(solved.values[~solved.reachable]).all()


class BigBonusMini(Mini):
    """Mini with a bonus of 2,000: more than any estimate of a sheet's points leaves room for."""

    def final_bonus(self, extras):
        return np.where(extras >= CAP, 2000, 0)


@pytest.mark.parametrize("game", [Mini(), BigBonusMini()], ids=["engine-test", "big-bonus"])
def test_the_exact_score_distribution_holds_every_ending(game):
    """The pushed-forward distribution of final scores: its mean is the optimum, a first-roll
    ending scores its end value (it scored nothing once, 0.023 short of Mini's optimum) and
    a bonus larger than the room the memory estimate leaves is held (it overflowed once)."""
    from dicewise.solver.rulesets.strategy import exact_distribution

    solved = solve_states(game)
    dist = exact_distribution(game, solved.values)
    assert dist.probability.sum() == pytest.approx(1, abs=1e-12)
    assert dist.mean == pytest.approx(solved.expected_score, abs=1e-9)
    assert np.array_equal(dist.scores, np.round(dist.scores)) and (np.diff(dist.scores) > 0).all()
    if isinstance(game, BigBonusMini):
        assert dist.scores[-1] >= 2000
    else:
        assert solved.expected_score == pytest.approx(brute_value(0, 0), abs=1e-9)
        assert dist.probability[dist.scores == END_VALUE].sum() >= 6 / 6**5  # ended at once


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-30, 30), st.lists(st.floats(0, 1), min_size=1, max_size=8)),
                min_size=1, max_size=6))
def test_distributions_added_at_any_offsets_are_their_sum_on_one_axis(pieces):
    """What the score distribution's pushing forward adds up, piece by piece at each piece's
    lowest score, is what one array over every score holds."""
    from dicewise.solver.rulesets.strategy import _add

    held, axis = {}, np.zeros(80)
    for low, p in pieces:
        _add(held, 7, low, np.array(p))
        axis[low + 40:low + 40 + len(p)] += p
    low, q = held[7]
    assert np.array_equal(axis[low + 40:low + 40 + len(q)], q)
    assert axis.sum() == pytest.approx(q.sum())


def test_engine_is_the_same_in_any_batch_size():
    game = Mini()
    a, b = solve_states(game, batch=512), solve_states(game, batch=3)
    assert np.array_equal(a.reachable, b.reachable)
    assert np.allclose(a.values, b.values, rtol=0, atol=1e-11, equal_nan=True)


def test_engine_is_the_same_in_any_block_and_worker_count(monkeypatch):
    """In one process, in forked processes sharing the values, and in threads."""
    game = Mini()
    a = solve_states(game, workers=1)
    for kw in ({"block": 1, "batch": 1, "workers": 1}, {"block": 5, "batch": 2, "workers": 1},
               {"workers": 3}, {"workers": 2, "block": 7}):
        b = solve_states(game, **kw)
        assert np.allclose(a.values, b.values, rtol=0, atol=1e-11, equal_nan=True), kw
    monkeypatch.setattr(runtime, "can_fork", lambda: False)
    b = solve_states(game, workers=2, block=7)
    assert np.allclose(a.values, b.values, rtol=0, atol=1e-11, equal_nan=True)


def test_progress_counts_every_reachable_non_final_state():
    game = Mini()
    seen = []
    solved = solve_states(game, progress=seen.append)
    final = solved.reachable[game.state_index(0b111, 0):].sum()
    assert sum(seen) == solved.n_reachable - final


# -- what one write does, read through the advisor ---------------------------------------
CODE = 10_000  # the fake table below values a state at CODE × its extra


@functools.lru_cache(maxsize=None)
def _fake_table(n_states, n_extra):
    return StateValues(CODE * (np.arange(n_states) % n_extra).astype(float),
                       np.ones(n_states, bool), 0)


def write_effects(game, mask, extra, faces):
    """{category: (points, box score, next extra)} of every legal write of ``faces`` (roll 3).

    The advisor is given a table in which every state is worth CODE × its extra, so each
    write's expected value is its points plus CODE × the extra it leads to.
    """
    fake = _fake_table(game.n_states, game.n_extra)
    sheet = Sheet((), (), mask, extra, 0)
    out = {}
    for ch in advise_position(game, fake, sheet, faces, 3).choices:
        nxt = round(ch.expected / CODE)
        out[ch.action["write"]] = (round(ch.expected - CODE * nxt), ch.detail["score"], nxt)
    return out


# -- Yahtzee's write, on hand-picked positions (RULES.md, reference rulesets) -----------
Y = {n: i for i, n in enumerate(category_game("yahtzee").category_names)}
UPPER_STATES = 64


def yahtzee_write(joker, cat, faces, filled=(), upper=0, armed=False):
    """(points, legal, next extra, bonus) of writing ``cat`` with ``faces`` in one state."""
    game = category_game("yahtzee", joker=joker)
    mask = sum(1 << Y[n] for n in filled)
    effects = write_effects(game, mask, upper + UPPER_STATES * armed, faces)
    if cat not in effects:
        return None, False, None, None
    points, score, nxt = effects[cat]
    return points, True, nxt, points - score


SIX5 = (6, 6, 6, 6, 6)


@pytest.mark.parametrize("joker", ["free", "forced"])
def test_yahtzee_joker_scores_full_points_with_bonus(joker):
    filled = ("yahtzee", "sixes")
    for cat, value in [("full_house", 25), ("small_straight", 30), ("large_straight", 40)]:
        assert yahtzee_write(joker, cat, SIX5, filled, armed=True) == (value + 100, True, 64, 100)
        # Yahtzee box holding 0: still a joker (an extra Yahtzee), but no 100 bonus.
        assert yahtzee_write(joker, cat, SIX5, filled, armed=False) == (value, True, 0, 0)
    assert yahtzee_write(joker, "chance", SIX5, filled, armed=True) == (130, True, 64, 100)
    assert yahtzee_write(joker, "four_of_a_kind", SIX5, filled, armed=True)[0] == 130


def test_yahtzee_free_joker_needs_the_face_box_filled_but_not_placement():
    # Sixes open: no joker, yet any open box may take the hand (free placement).
    assert yahtzee_write("free", "full_house", SIX5, ("yahtzee",), armed=True) == (100, True, 64, 100)
    assert yahtzee_write("free", "ones", SIX5, ("yahtzee",), armed=True) == (100, True, 64, 100)


def test_yahtzee_forced_placement_order():
    # Face box open: it must take the hand.
    assert yahtzee_write("forced", "sixes", SIX5, ("yahtzee",), armed=True)[:2] == (130, True)
    assert not yahtzee_write("forced", "full_house", SIX5, ("yahtzee",), armed=True)[1]
    assert not yahtzee_write("forced", "chance", SIX5, ("yahtzee",), armed=True)[1]
    assert not yahtzee_write("forced", "ones", SIX5, ("yahtzee",), armed=True)[1]
    # Face box filled, a lower box open: lower boxes only.
    filled = ("yahtzee", "sixes")
    assert yahtzee_write("forced", "chance", SIX5, filled)[1]
    assert not yahtzee_write("forced", "ones", SIX5, filled)[1]
    # Face box and every lower box filled: any open upper box, scoring 0 (+100 if armed).
    lower = ("three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
             "large_straight", "yahtzee", "chance")
    assert yahtzee_write("forced", "ones", SIX5, ("sixes",) + lower, upper=18, armed=True) == (
        100, True, 18 + 64, 100)
    # Without a Yahtzee box filled, nothing is forced.
    assert yahtzee_write("forced", "chance", SIX5, ())[:2] == (30, True)
    # Not a Yahtzee: nothing is forced either.
    assert yahtzee_write("forced", "chance", (6, 6, 6, 6, 5), ("yahtzee",), armed=True)[:2] == (29, True)


def test_yahtzee_none_and_off():
    filled = ("yahtzee", "sixes")
    assert yahtzee_write("none", "full_house", SIX5, filled, armed=True) == (100, True, 64, 100)
    assert yahtzee_write("off", "full_house", SIX5, filled) == (0, True, 0, 0)
    # Under "off" a Yahtzee of 50 arms nothing.
    assert yahtzee_write("off", "yahtzee", SIX5) == (50, True, 0, 0)


@pytest.mark.parametrize("joker", ["free", "forced", "none"])
def test_yahtzee_box_arms_the_bonus_only_when_it_holds_50(joker):
    assert yahtzee_write(joker, "yahtzee", SIX5, upper=12) == (50, True, 12 + 64, 0)
    assert yahtzee_write(joker, "yahtzee", (6, 6, 6, 6, 5), upper=12) == (0, True, 12, 0)


def test_yahtzee_upper_sum_ignores_the_bonus_and_caps_at_63():
    assert yahtzee_write("free", "sixes", SIX5, ("yahtzee",), upper=10, armed=True) == (
        130, True, 40 + 64, 100)
    assert yahtzee_write("free", "sixes", SIX5, ("yahtzee",), upper=50, armed=True)[2] == 63 + 64
    game = category_game("yahtzee")
    assert list(game.final_bonus(np.array([62, 63, 62 + 64, 63 + 64]))) == [0, 35, 0, 35]


def test_yahtzee_write_values_pick_the_best_legal_box():
    """With only Full House and Chance open and the bonus armed, 66666 is worth 25 + 100."""
    game = category_game("yahtzee", joker="free")
    open_ = {Y["full_house"], Y["chance"]}
    mask = sum(1 << c for c in range(13) if c not in open_)
    values = np.zeros(game.n_states)
    w = write_values(game, values, np.array([mask]), np.array([63 + 64]), 1)
    assert w[dice.roll_index(dice.counts_of(SIX5)), 0] == 130  # chance 30 + 100 beats 25 + 100
    w_forced = write_values(category_game("yahtzee", joker="forced"), values, np.array([mask]),
                            np.array([63 + 64]), 1)
    assert w_forced[dice.roll_index(dice.counts_of(SIX5)), 0] == 130


YAHTZEE_LOWER = ("three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
                 "large_straight", "yahtzee", "chance")


def yahtzee_rules(joker, cat, d, filled, upper, armed):
    """RULES.md's Yahtzee, read directly: None if the write is not allowed, else
    (points including any bonus, next upper sum, armed after)."""
    face = d[0]
    extra_yahtzee = len(set(d)) == 1 and "yahtzee" in filled
    if joker == "forced" and extra_yahtzee:
        face_box = UPPER_NAMES[face - 1]
        if face_box not in filled:
            allowed = {face_box}
        elif any(b not in filled for b in YAHTZEE_LOWER):
            allowed = set(YAHTZEE_LOWER)
        else:
            allowed = set(UPPER_NAMES)
        if cat not in allowed:
            return None
    joker_applies = (joker in ("free", "forced") and extra_yahtzee
                     and UPPER_NAMES[face - 1] in filled)
    ref = {"full_house": 25 * (sorted(Counter(d).values()) == [2, 3]),
           "small_straight": 30 * any(r <= set(d) for r in ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})),
           "large_straight": 40 * (set(d) in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})),
           "three_of_a_kind": sum(d) * (max(Counter(d).values()) >= 3),
           "four_of_a_kind": sum(d) * (max(Counter(d).values()) >= 4),
           "yahtzee": 50 * (len(set(d)) == 1), "chance": sum(d)}
    ref.update({n: f * d.count(f) for f, n in enumerate(UPPER_NAMES, 1)})
    points = ref[cat]
    if joker_applies and cat in ("full_house", "small_straight", "large_straight"):
        points = {"full_house": 25, "small_straight": 30, "large_straight": 40}[cat]
    if extra_yahtzee and armed and joker != "off":
        points += 100
    if cat in UPPER_NAMES:
        upper = min(63, upper + ref[cat])
    if cat == "yahtzee":
        armed = joker != "off" and ref[cat] == 50
    return points, upper, armed


UPPER_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes")


@pytest.mark.parametrize("joker", ["free", "forced", "none", "off"])
def test_yahtzee_writes_match_a_direct_reading_of_the_rules(joker):
    game = category_game("yahtzee", joker=joker)
    names = game.category_names
    rng = np.random.default_rng({"free": 1, "forced": 2, "none": 3, "off": 4}[joker])
    for _ in range(150):
        mask = int(rng.integers(0, (1 << 13) - 1))
        if rng.random() < 0.5:  # make the Yahtzee box and the lower section full more often
            mask |= 1 << Y["yahtzee"]
        if rng.random() < 0.3:
            mask |= sum(1 << Y[n] for n in YAHTZEE_LOWER if n != "chance")
        if mask == (1 << 13) - 1:
            continue
        filled = {n for i, n in enumerate(names) if mask >> i & 1}
        armed = "yahtzee" in filled and joker != "off" and bool(rng.random() < 0.7)
        upper = int(rng.integers(0, 64))
        d = (FIVE_OF_A_KIND[rng.integers(6)] if rng.random() < 0.5
             else tuple(sorted(rng.integers(1, 7, 5).tolist())))
        got = write_effects(game, mask, upper + UPPER_STATES * armed, d)
        for cat in names:
            if cat in filled:
                assert cat not in got
                continue
            want = yahtzee_rules(joker, cat, d, filled, upper, armed)
            where = f"{cat} with {d}, filled {sorted(filled)}, upper {upper}, armed {armed}"
            if want is None:
                assert cat not in got, where
            else:
                points, nupper, narmed = want
                assert cat in got, where
                assert got[cat][0] == points, where
                assert got[cat][2] // UPPER_STATES == narmed, where
                assert upper_equivalent(got[cat][2] % UPPER_STATES, nupper,
                                        filled | {cat}), where


def upper_equivalent(state_sum, true_sum, filled):
    """The engine may keep the capped upper sum, or fold every sum that can no longer reach
    63 with the open upper boxes (5 dice each) into 0: they all lose the bonus alike."""
    most = sum(5 * f for f, n in enumerate(UPPER_NAMES, 1) if n not in filled)
    return state_sum == true_sum or (state_sum == 0 and true_sum + most < 63)


# -- poker-programs ----------------------------------------------------------------------
def test_poker_programs_free_figures_wait_for_the_six_obligatory():
    game = category_game("poker-programs")
    five = write_effects(game, 0b011111, 63, (2, 2, 3, 3, 6))
    assert set(five) == {"sixes"}
    six = write_effects(game, 0b111111, 0, (2, 2, 3, 3, 6))
    assert set(six) == set(game.category_names[6:])
    assert six["two_pairs"] == (10, 10, 0) and six["chance"] == (16, 16, 0)


@pytest.mark.parametrize("faces, running, bonus", [((6, 6, 6, 1, 2), 0, 50), ((6, 6, 1, 2, 3), 0, 0),
                                                   ((6, 6, 1, 2, 3), 6, 50),
                                                   ((6, 6, 1, 2, 3), 5, 0)])
def test_poker_programs_obligatory_bonus_when_the_sixth_is_written(faces, running, bonus):
    game = category_game("poker-programs")
    box = (faces.count(6) - 3) * 6
    # Sixes completes the six: the bonus is paid now and the running sum is dropped (extra 0).
    assert write_effects(game, 0b011111, running + 63, faces)["sixes"] == (box + bonus, box, 0)


def test_poker_programs_running_sum_moves_by_the_box_score():
    game = category_game("poker-programs")
    effects = write_effects(game, 0b000001, 63 - 3, (2, 2, 2, 2, 5))
    assert effects["twos"] == (2, 2, 60 + 2)
    assert effects["fives"] == (-10, -10, 60 - 10)


# -- reachability --------------------------------------------------------------------------
def option_sets(cls):
    fields = option_fields(cls)
    for values in itertools.product(*[f.metadata["choices"] for f in fields]):
        yield {f.name: v for f, v in zip(fields, values)}


FIVE_OF_A_KIND = [(f,) * 5 for f in range(1, 7)]


def test_a_registered_game_ended_at_once_keeps_the_points_written():
    """The simulator, the agents' episodes and play end such a game with nothing added: every
    registered ruleset's first-roll end is 0 points wherever it ends the game."""
    for name, cls in CATEGORY_GAMES.items():
        for opts in option_sets(cls):
            end = category_game(name, **opts).first_roll_end()
            assert end is None or set(end[~np.isnan(end)]) <= {0.0}, (name, opts)


@pytest.mark.parametrize("name, opts", [(n, o) for n, cls in CATEGORY_GAMES.items()
                                        for o in option_sets(cls)],
                         ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v.values())))
def test_random_play_never_leaves_the_declared_reachable_states(name, opts):
    game = category_game(name, **opts)
    reachable = reachable_states(game)
    rng = np.random.default_rng(7)
    for _ in range(25):
        mask, extra = 0, game.initial_extra
        assert reachable[game.state_index(mask, extra)]
        for _turn in range(game.n_categories):
            # Five of a kind often, so that bonus and joker states are visited.
            if rng.random() < 0.3:
                faces = FIVE_OF_A_KIND[rng.integers(6)]
            else:
                faces = tuple(rng.integers(1, 7, 5))
            moves = write_effects(game, mask, extra, faces)
            assert moves, f"{name}: no legal write in state {mask:b}/{extra}"
            cat = sorted(moves)[rng.integers(len(moves))]
            mask |= 1 << game.category_names.index(cat)
            extra = moves[cat][2]
            assert reachable[game.state_index(mask, extra)], f"{name} {opts}: reached {mask:b}/{extra}"


# -- the best write by roll classes ---------------------------------------------------------
def _ruleset_cases():
    cases = [(n, o) for n, cls in CATEGORY_GAMES.items() for o in option_sets(cls)]
    return cases + [("engine-test", {}), ("poker-school", {"school_cross_erases": False}),
                    ("poker-school", {"school_cross_erases": True})]


def _game(name, opts):
    if name == "engine-test":
        return Mini()
    if name == "poker-school":  # the one-column game: points that vary by state
        from dicewise.solver.poker_school.rules import PokerSchoolRules
        return PokerSchoolRules(columns=1, **opts).one_column
    return category_game(name, **opts)


class HashedValues:
    """State values drawn from the state index, for tables too large to hold (30M states)."""

    def __getitem__(self, index):
        return (np.asarray(index) * 2654435761 % 1000003) / 1000003 * 200.0


@pytest.mark.parametrize("name, opts", _ruleset_cases(),
                         ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v.values())))
def test_write_by_roll_classes_equals_the_direct_max_over_boxes(name, opts):
    """The solve's best write (each open box's class table, merged by a plan) is exactly the
    direct max over the open boxes, on batches that mix filled sets and extras, for every
    roll number, whole and by slices."""
    game = _game(name, opts)
    rng = np.random.default_rng(5)
    values = HashedValues()
    every = np.arange(1 << game.n_categories)
    masks = rng.choice(every[game.reachable_extras(every).any(axis=1)], 300)
    reach = game.reachable_extras(masks)
    extras = (reach * rng.random(reach.shape)).argmax(axis=1)  # a random reachable extra
    states = masks * game.n_extra + extras
    masks, extras = np.divmod(states, game.n_extra)
    plans = WritePlans()
    for k in ROLL_NUMBERS:
        direct = write_values(game, values, masks, extras, k)
        assert np.array_equal(write_columns(game, values, masks, extras, k, plans), direct)
        tables = box_tables(game, values, masks, extras, k, plans)
        for lo, hi in ((0, 1), (7, 90), (90, 300)):
            out = np.empty((dice.N_ROLLS, hi - lo))
            assert np.array_equal(best_of_tables(tables, masks, lo, hi, plans, out), direct[:, lo:hi])
        one = masks == masks[0]  # a batch of one filled set
        assert np.array_equal(write_columns(game, values, masks[one], extras[one], k, plans),
                              write_values(game, values, masks[one], extras[one], k))


def test_a_ruleset_without_an_example_sheet_is_described_with_one_of_its_boxes():
    """``example_sheet`` is optional: a new ruleset without it was a traceback in ``dicewise
    rules`` (its sheet help); the help shows its first box with the most that box holds."""
    from dicewise.solver.rulesets.game import CategoryGame

    assert not hasattr(Mini, "example_sheet")
    said = str(CategoryGame(Mini).sheet_help)
    assert said == 'filled boxes as box=score pairs, x for a scratch (0), e.g. "fives=25"'
