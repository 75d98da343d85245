"""Play for a target (``solver/target/``): W(state, need), the largest P(final ≥ T).

Proves:

* the fast solve equals a brute-force expectimax written out here (three rolls, every keep
  as a subset of dice positions, every write, over whole remaining games of one to three
  open boxes) in every ruleset with an exact solver — General's big general ending the
  game, poker-programs' negative obligatory figures and their bonus, Yahtzee's bonus and
  jokers, Yatzy's upper bonus, one-column poker-school with and without the School cross
  erasing premiums; the single-target solve gives the same values;
* exact values: W(start, 1) of General is 1 − 6/7776 (only a big general on the very
  first throw writes nothing); with only the General (Yahtzee) box open, W(60) (W(50)) is
  P(five of a kind within three rolls) = 2,783,176 / 6^10 (the classic Yahtzee-in-a-turn
  probability), less 6/7776 in General where a first-throw five of a kind ends the game;
* every W lies in [0, 1], is 1 at needs up to the fewest points a state can still write,
  never rises with the need, and from the empty sheet is at least the expected-score
  policy's P(final ≥ T) for every T;
* the expected-score policy's pass equals the exact forward distribution
  (``rulesets/strategy.exact_distribution``), and in every state its probabilities sum to
  that policy's expected remaining score (E[X] = Σ P(X ≥ n)); solved in one pass with W
  (``solve_with_policy``, what a target table holds), both are the separate passes' to the
  bit;
* on random reachable sheets (hypothesis) ``chance`` is the same from the every-target and
  the single-target tables, never rises with T, and the target advisor is consistent;
* simulated target play on the common dice stream reaches T as often as W says (95% CI),
  and where the target is settled from the start it is the expected-score simulation.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicewise.errors import DicewiseError
from dicewise.solver import dice
from dicewise.solver.advice import advise_position
from dicewise.solver.category import (Category, CategoryRules, Write, solve_states,
                                      upper_sum_reachable)
from dicewise.solver.rulesets import category_game
from dicewise.solver.rulesets.simulate import simulate_games
from dicewise.solver.scoring import best_face_with, has_kind
from dicewise.solver.sheet import parse_sheet
from dicewise.solver.target.advice import advise_target, chance
from dicewise.solver.target.chooser import simulate_target
from dicewise.solver.target.driver import solve_target
from dicewise.solver.target.evaluation import (expected_policy_chances, policy_target_values,
                                               solve_with_policy)

FAST = ["general", "poker-programs"]
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                       HealthCheck.function_scoped_fixture])
P_FIVE_OF_A_KIND_IN_THREE = 2_783_176 / 6**10


def poker_school(**options):
    from dicewise.solver.poker_school.rules import PokerSchoolRules

    return PokerSchoolRules(columns=1, **options).one_column


#: Targets up to these (General: every target; poker-programs: well past its 95th percentile).
MAX_TARGET = {"general": None, "poker-programs": 250}


@functools.lru_cache(maxsize=None)
def _every_target(name: str):
    game = category_game(name)
    return game, solve_states(game), solve_target(game, MAX_TARGET[name])


@pytest.fixture(scope="session")
def every_target():
    """``every_target(name) -> (game, StateValues, TargetValues for every target ≤ MAX_TARGET)``."""
    return _every_target


@functools.lru_cache(maxsize=None)
def _policy_chances(name: str) -> np.ndarray:
    """The expected-score policy's P(final ≥ T) for every T ≤ MAX_TARGET, from the exact
    forward distribution (a second a game: computed once for the tests that read it)."""
    game, solved, values = _every_target(name)
    return expected_policy_chances(game, solved, values.max_need)


# -- brute force ---------------------------------------------------------------------------

FACES = range(1, 7)
ROLLS = sorted({tuple(sorted(t)) for t in itertools.product(FACES, repeat=5)})
P_ROLL = {r: n / 6**5 for r, n in
          Counter(tuple(sorted(t)) for t in itertools.product(FACES, repeat=5)).items()}
KEEPS = sorted({tuple(sorted(r[i] for i in pos)) for r in ROLLS for n in range(6)
                for pos in itertools.combinations(range(5), n)})
THEN = {k: [(r, n / 6 ** (5 - len(k))) for r, n in
            Counter(tuple(sorted(k + t)) for t in itertools.product(FACES, repeat=5 - len(k))).items()]
        for k in KEEPS}
SUBS = {r: {tuple(sorted(r[i] for i in pos)) for n in range(6) for pos in itertools.combinations(range(5), n)}
        for r in ROLLS}


class BruteForce:
    """W(state, need) by plain recursion over turns, rolls, keeps and writes, memoised.

    Only the ruleset's own ``write`` is shared with the fast solver (what a write scores and
    where it leads); the turn, the need and the recursion are written out here.
    """

    def __init__(self, game):
        self.game = game
        self.full = (1 << game.n_categories) - 1
        ends = game.first_roll_end()
        self.ends = {r for r in ROLLS if ends is not None and not np.isnan(ends[self._index(r)])}
        self.memo = {}
        self.writes_memo = {}

    @staticmethod
    def _index(roll):
        return dice.roll_index(dice.counts_of(roll))

    def writes(self, state, roll_number):
        """{roll: [(next state, points)]} of the allowed writes."""
        key = (state, roll_number)
        if key not in self.writes_memo:
            g = self.game
            mask, extra = divmod(state, g.n_extra)
            out = {r: [] for r in ROLLS}
            for c in range(g.n_categories):
                if mask >> c & 1:
                    continue
                w = g.write(c, roll_number, np.array([mask]), np.array([extra]))
                for r in ROLLS:
                    pts, _, legal, nxt = (a[0] for a in w.at(np.array([self._index(r)]), np.array([0]), 1))
                    if legal:
                        out[r].append(((mask | 1 << c) * g.n_extra + int(nxt), int(round(pts))))
            self.writes_memo[key] = out
        return self.writes_memo[key]

    def W(self, state, need):
        key = (state, need)
        if key in self.memo:
            return self.memo[key]
        mask, extra = divmod(state, self.game.n_extra)
        if mask == self.full:
            value = float(need <= self.game.final_bonus(np.array([extra]))[0])
        else:
            def best_write(roll, k):
                return max(self.W(s, need - p) for s, p in self.writes(state, k)[roll])

            later = {r: best_write(r, 3) for r in ROLLS}
            for k in (2, 1):
                kept = {keep: sum(p * later[r] for r, p in THEN[keep]) for keep in KEEPS}
                later = {r: max(best_write(r, k), max(kept[s] for s in SUBS[r])) for r in ROLLS}
            ended = float(need <= 0)  # the game ends with no more points (RULES.md section 1)
            value = sum(P_ROLL[r] * (ended if r in self.ends else later[r]) for r in ROLLS)
        self.memo[key] = value
        return value


@dataclass(frozen=True)
class ReducedPoker(CategoryRules):
    """Poker-programs (RULES.md section 2) cut to three boxes: the obligatory Fives and
    Sixes, (c − 3) × f each, 50 more when their sum is ≥ 0, then the free Poker (5f, doubled
    on roll 1, plus 50).  Points can be lost, so W < 1 at needs ≤ 0."""

    name = "reduced-poker"
    title = "three boxes of poker-programs"
    n_extra = 56  # the obligatory sum, −33..22, plus 33 while it runs
    initial_extra = 33
    roll_number_matters = True

    @property
    def categories(self):
        return (Category("fives", lambda c, k: (c[:, 4] - 3) * 5),
                Category("sixes", lambda c, k: (c[:, 5] - 3) * 6),
                Category("poker", lambda c, k: 5 * best_face_with(c, 5) * (2 if k == 1 else 1)
                         + 50 * has_kind(c, 5)))

    def write(self, c, roll_number, masks, extras):
        points = self.base_points[c, roll_number - 1][:, None]
        if c == 2:
            return Write(points, extras[None, :], np.zeros(252, np.int64), (masks & 3) == 3)
        face = 5 + c
        moved = extras[None, :] + (np.arange(6)[:, None] - 3) * face
        completes = ((masks | (1 << c)) & 3) == 3
        cls = dice.ROLLS[:, face - 1]
        bonus = 50 * (completes[None, :] & (moved >= 33))[cls]
        return Write(points + bonus, np.where(completes[None, :], 0, moved), cls, bonus=bonus)

    def reachable_extras(self, masks):
        table = upper_sum_reachable([[(c - 3) * 5 for c in range(6)], [(c - 3) * 6 for c in range(6)]],
                                    33, 56)
        running = (masks & 3) != 3
        out = table[masks & 3] & (running & (masks >> 2 == 0))[:, None]
        out[~running, 0] = True
        return out


def _state(game, open_boxes, extra):
    mask = (1 << game.n_categories) - 1
    for name in open_boxes:
        mask &= ~(1 << game.category_names.index(name))
    assert game.reachable_extras(np.array([mask]))[0, extra]
    return game.state_index(mask, extra)


CASES = {
    # General: the big general ends the game (first-roll five of a kind writes nothing).
    "general-2": (lambda: category_game("general"), ("four", "general"), lambda g: 0),
    "general-3": (lambda: category_game("general"), ("sixes", "full_house", "general"), lambda g: 0),
    # Poker-programs' free figures: doubled on roll 1, the Poker's 50 not doubled.
    "poker-programs": (lambda: category_game("poker-programs"), ("two_pairs", "poker"), lambda g: 0),
    # Its obligatory figures, cut down: points can be lost, the bonus needs a sum ≥ 0.
    "reduced-poker": (ReducedPoker, ("fives", "sixes", "poker"), lambda g: 33),
    # Yahtzee, 50 in the Yahtzee box (bonus armed), upper sum 45: jokers and the 35 bonus.
    "yahtzee": (lambda: category_game("yahtzee"), ("sixes", "full_house"), lambda g: 45 + 64),
    "yahtzee-forced": (lambda: category_game("yahtzee", joker="forced"), ("sixes", "full_house"),
                       lambda g: 45 + 64),
    # Yatzy, upper sum 45: the 50 bonus at 63.
    "yatzy": (lambda: category_game("yatzy"), ("sixes", "chance"), lambda g: 45),
    # One-column poker-school, column still clean (60 at the end), no erasure.
    "poker-school": (lambda: poker_school(school_cross_erases=False), ("sixes", "poker"), lambda g: 1),
    # With erasure: 30 standing premiums that a cross in the sixes row would erase.
    "poker-school-erasing": (lambda: poker_school(), ("sixes", "poker"), lambda g: 1 + 2 * 30),
}


#: Cases over ~0.8 s: CI's second step (``-m slow``) runs them.
SLOW_CASES = {"general-3", "poker-programs", "poker-school-erasing", "reduced-poker", "yahtzee",
              "yahtzee-forced", "yatzy"}


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW_CASES else c
                                  for c in sorted(CASES)])
def test_fast_solve_equals_brute_force(case):
    make, open_boxes, extra = CASES[case]
    game = make()
    state = _state(game, open_boxes, extra(game))
    fast = solve_target(game, start=state)
    brute = BruteForce(game)
    row = fast.rows(state)
    fewest, most = int(fast.fewest[row]), int(fast.most[row])
    needs = sorted({fewest - 1, fewest, fewest + 1, (fewest + most) // 2, most - 1, most, most + 1}
                   | {int(n) for n in np.linspace(fewest, most, 6)})
    for need in needs:
        assert fast.at(state, need) == pytest.approx(brute.W(state, need), abs=1e-12), need
    # The single-target solve from a sheet of 40 points holds the same values.
    for need in needs[2:5]:
        one = solve_target(game, target=40 + need, start=state, start_points=40)
        assert one.at(state, need) == pytest.approx(brute.W(state, need), abs=1e-12)
        assert one.n_values <= fast.n_values



#: Forked workers chunk every game's pass alike: General's case shows it in the everyday tier.
@pytest.mark.parametrize("case, workers", [
    (case, workers) if case == "general-2" or workers == 1
    else pytest.param(case, workers, marks=pytest.mark.slow)
    for case in ("general-2", "yahtzee", "poker-school") for workers in (1, 2)])
def test_the_points_a_sheet_can_hold_are_those_of_every_way_to_it(case, workers):
    """The forward pass of one target's solve: the least and the most points a sheet holds
    at each state are the least and most over every sequence of writes reaching it (rolls
    that end the game on the first throw write nothing), here by plain search, and states
    no write reaches are marked so; chunks on forked workers give the same, and the pass
    reports each state once."""
    from dicewise.solver import runtime
    from dicewise.solver.category import state_layers
    from dicewise.solver.target import driver
    from dicewise.solver.target.values import RowLookup

    make, open_boxes, extra = CASES[case]
    game = make()
    start = _state(game, open_boxes, extra(game))
    brute = BruteForce(game)
    held = {start: {40}}
    frontier = [start]
    while frontier:
        state = frontier.pop()
        for k in (1, 2, 3):
            for roll, writes in brute.writes(state, k).items():
                if k == 1 and roll in brute.ends:
                    continue
                for nxt, points in writes:
                    if nxt not in held:
                        held[nxt] = set()
                        frontier.append(nxt)
                    held[nxt] |= {p + points for p in held[state]}
    layers = state_layers(game, start)
    where = RowLookup.of(np.concatenate(layers))
    done = []
    with runtime.local(workers) as runner:
        least, greatest = driver._points_written(game, layers, where, game.first_roll_end(), 40,
                                                 runner, done.append)
    assert sum(done) == len(where.order)
    for state, points in held.items():
        row = where(np.array([state]))[0]
        assert (least[row], greatest[row]) == (min(points), max(points)), state
    # The layers may hold states no write reaches from this start (an upper sum, say).
    unreached = np.setdiff1d(np.arange(len(where.order)), where(np.array(list(held))))
    assert (least[unreached] > driver.NO_LIMIT // 2).all()  # no need of the target reaches
    assert (greatest[unreached] < -driver.NO_LIMIT // 2).all()  # them

# -- exact values ----------------------------------------------------------------------------


@pytest.mark.slow
def test_general_reaches_one_point_unless_the_first_throw_is_a_big_general(every_target):
    game, _, values = every_target("general")
    # Any other throw shows a face f ≥ 1 that box f scores at once (RULES.md section 1).
    for need in (1, 2):
        assert values.at(game.initial_state, need) == pytest.approx(1 - 6 / 7776, abs=1e-14)
    assert values.at(game.initial_state, 0) == 1.0
    assert values.at(game.initial_state, values.most_points + 1) == 0.0


@pytest.mark.parametrize("name, box, points, first_throw_ends", [
    ("general", "general", 60, True), ("yahtzee", "yahtzee", 50, False)])
def test_five_of_a_kind_in_one_turn(name, box, points, first_throw_ends):
    game = category_game(name)
    state = _state(game, (box,), 0)
    values = solve_target(game, start=state)
    # 2,783,176 / 6^10: P(five of a kind within three rolls, keeping the most common face).
    expected = P_FIVE_OF_A_KIND_IN_THREE - (6 / 7776 if first_throw_ends else 0)
    assert values.at(state, points) == pytest.approx(expected, abs=1e-15)
    assert values.at(state, points + 1) == 0.0


# -- properties of whole tables ----------------------------------------------------------------


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "poker-programs" else n
                                  for n in FAST])
def test_tables_are_probabilities_falling_with_the_need(every_target, name):
    values = every_target(name)[2]
    table = values.table()
    needs = np.arange(values.max_need + 1)
    fewest = values.fewest[:, None]
    assert not np.isnan(table[needs[None, :] >= fewest]).any()
    held = np.nan_to_num(table, nan=1.0)
    assert (held >= 0).all() and (held <= 1 + 1e-12).all()
    assert (table[needs[None, :] <= fewest] == 1.0).all()
    assert (np.diff(held, axis=1) <= 1e-12).all()
    # Aiming at T does at least as well as playing for the expected score, for every T.
    assert (values.chances() >= _policy_chances(name) - 1e-12).all()
    if MAX_TARGET[name] is None:
        assert values.chances()[values.most_points] > 0 and values.max_need == values.most_points


@pytest.mark.parametrize("name", ["general", pytest.param("poker-programs", marks=pytest.mark.slow)])
def test_expected_score_pass_equals_the_exact_distribution(every_target, name):
    game, solved, values = every_target(name)
    policy = policy_target_values(game, solved, values.max_need)
    exact = _policy_chances(name)  # the forward distribution
    assert policy.kind == "expected-score"
    assert np.abs(policy.chances() - exact).max() < 1e-12
    table = policy.table()  # needs 0..max_need
    assert (values.table() >= table - 1e-12)[~np.isnan(table)].all()
    if MAX_TARGET[name] is None:
        # In every state, E[remaining] = Σ_{n≥1} P(X ≥ n) (General never loses points).
        assert np.allclose(np.nansum(table[:, 1:], axis=1), solved.values[policy.states], atol=1e-9)


@pytest.mark.parametrize("name, sheet, dtype", [
    ("general", "ones=3,twos=6,fours=12,fives=15,sixes=24,straight=25", np.float64),
    pytest.param("poker-programs", "ones=-3,twos=0,threes=3,fours=4,fives=5,sixes=6,pair=12,"
                 "three=15,two_pairs=14", np.float64, marks=pytest.mark.slow),
    ("general", "ones=3,twos=6,fours=12,fives=15,sixes=24,straight=25", np.float32),
])
def test_one_pass_gives_both_kinds_as_the_two_passes(name, sheet, dtype):
    """The policy's sums read where W's turn reads: the fused pass is the two passes, bit for
    bit, every target and one target, from a sheet part filled (a whole game takes seconds)."""
    game = category_game(name)
    solved = solve_states(game)
    written = parse_sheet(game, sheet)
    for kw in ({}, {"target": written.points + 60}):
        kw.update(start=written.state(game), start_points=written.points, dtype=dtype)
        best, policy = solve_with_policy(game, solved, **kw)
        assert (best.kind, policy.kind) == ("optimal", "expected-score")
        assert np.array_equal(best.flat, solve_target(game, **kw).flat)
        assert np.array_equal(policy.flat, policy_target_values(game, solved, **kw).flat)
        assert best.flat.dtype == policy.flat.dtype == dtype
        assert (best.flat >= policy.flat - 1e-6).all()


def test_a_table_holds_the_policy_beside_and_checks_it():
    """A target table file carries both kinds; one whose policy values do not match its own
    is refused as damaged, and a table solved without them says so when asked."""
    from dataclasses import replace

    from dicewise.errors import TableError
    from dicewise.solver.target.table import TargetTable

    game = category_game("general")
    written = parse_sheet(game, "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=24,straight=25")
    kw = dict(start=written.state(game), start_points=written.points)
    best, policy = solve_with_policy(game, solve_states(game), **kw)
    with pytest.raises(DicewiseError, match="without the expected-score policy"):
        best.expected_score_policy()
    spec = TargetTable(_GameOf(game))
    arrays = spec.to_arrays(replace(best, policy_flat=policy.flat))
    back = spec.from_arrays(None, arrays, {"max_need": best.max_need})
    assert np.array_equal(back.expected_score_policy().flat, policy.flat)
    assert back.expected_score_policy().kind == "expected-score"
    for broken in ({**arrays, "policy_flat": policy.flat[:-1]},
                   {k: v for k, v in arrays.items() if k != "policy_flat"}):
        with pytest.raises(TableError):
            spec.from_arrays(None, broken, {"max_need": best.max_need})


@pytest.mark.slow
@pytest.mark.parametrize("target", [None, 150])
def test_a_build_fills_its_progress_bar_exactly(target):
    """The bar of a target table's build is as long as the work it reports: each state
    once, or twice for one target (the pass that finds the points a sheet can hold, then
    the solve), so it neither stops short nor runs past its end."""
    from contextlib import contextmanager

    from dicewise.solver.registry import get_game
    from dicewise.solver.target.table import TargetTable
    from dicewise.tables import store

    bars = []

    @contextmanager
    def bar(total, label):
        bars.append([total, 0])
        yield lambda n: bars[-1].__setitem__(1, bars[-1][1] + n)

    game = get_game("general")
    rules = game.rules({})
    spec = TargetTable(game, target, expected=game.state_values(store.solution(game, rules)))
    store.solution(spec, rules, progress_factory=bar)
    assert bars == [[(1 if target is None else 2) * 1024] * 2]

@dataclass(frozen=True)
class _GameOf:
    """The least a TargetTable asks of its game: the category rules it solves."""

    rules: CategoryRules

    @property
    def name(self) -> str:
        return self.rules.name

    def category_rules(self, rules) -> CategoryRules:
        return self.rules


@pytest.mark.slow
def test_float32_tables_are_close():
    game = category_game("general")
    wide, narrow = solve_target(game), solve_target(game, dtype=np.float32)
    assert narrow.flat.dtype == np.float32
    assert np.nanmax(np.abs(wide.table() - narrow.table())) < 1e-5


# -- sheets, the advisor, chance -----------------------------------------------------------------

five_dice = st.one_of(st.integers(1, 6).map(lambda f: (f,) * 5),
                      st.lists(st.integers(1, 6), min_size=5, max_size=5).map(tuple))
ONE_TARGET = {"general": 150, "poker-programs": 200}


@functools.lru_cache(maxsize=None)
def _one_target(name):
    return solve_target(category_game(name), target=ONE_TARGET[name])


def build_sheet(data, game, solved, n_filled):
    """Play n_filled random legal writes from the empty sheet (the expected-score advisor's
    write options); returns the parsed sheet."""
    entries = []
    sheet = parse_sheet(game, "")
    for _ in range(n_filled):
        advice = advise_position(game, solved, sheet, data.draw(five_dice), data.draw(st.integers(1, 3)))
        writes = [c for c in advice.choices if "write" in c.action]
        if not writes:  # a big general: that turn wrote nothing
            continue
        choice = writes[data.draw(st.integers(0, len(writes) - 1))]
        entries.append(f"{choice.action['write']}={choice.detail['score']}")
        sheet = parse_sheet(game, ",".join(entries))
    return sheet


@pytest.mark.parametrize("name", [n if n == "general" else pytest.param(n, marks=pytest.mark.slow)
                                  for n in FAST])
@settings(max_examples=15, **SETTINGS)
@given(data=st.data())
def test_chance_and_advice_on_random_sheets(every_target, name, data):
    game, solved, values = every_target(name)
    sheet = build_sheet(data, game, solved, data.draw(st.integers(0, game.n_categories - 1)))
    target = ONE_TARGET[name]
    p = chance(game, values, sheet.mask, sheet.extra, sheet.points, target)
    assert chance(game, _one_target(name), sheet.mask, sheet.extra, sheet.points, target) == \
        pytest.approx(p, abs=1e-12)
    others = [chance(game, values, sheet.mask, sheet.extra, sheet.points, t) for t in range(0, 250, 10)]
    assert all(a >= b - 1e-12 for a, b in zip(others, others[1:]))
    faces, roll = data.draw(five_dice), data.draw(st.integers(1, 3))
    advice = advise_target(game, values, sheet, faces, roll, target)
    assert advice.turn_start_probability == pytest.approx(p, abs=1e-12)
    if advice.ended:
        return
    chances = [c.probability for c in advice.choices]
    assert advice.best.loss == 0 and all(a >= b for a, b in zip(chances, chances[1:]))
    assert all(0 <= c <= 1 + 1e-12 for c in chances)
    # The same options, with the same actions, as the expected-score advice.
    plain = advise_position(game, solved, sheet, faces, roll)
    actions = sorted(map(str, (c.action for c in advice.choices)))
    assert actions == sorted(map(str, (c.action for c in plain.choices)))
    labels = {str(c.action): c.label for c in plain.choices}
    assert all(labels[str(c.action)] == c.label for c in advice.choices)


@pytest.mark.slow
def test_turn_start_chance_is_the_average_of_the_best_first_throw(every_target):
    game, solved, values = every_target("general")
    sheet = parse_sheet(game, "ones=3,twos=4")
    target = 150
    start = chance(game, values, sheet.mask, sheet.extra, sheet.points, target)
    total = 0.0
    for r, roll in enumerate(dice.ROLLS):
        advice = advise_target(game, values, sheet, dice.faces_of(roll), 1, target)
        total += dice.ROLL_PROBABILITY[r] * (advice.best.probability if advice.best else 0.0)
    assert total == pytest.approx(start, abs=1e-12)


def test_a_single_target_table_refuses_other_targets():
    game = category_game("general")
    one = _one_target("general")
    with pytest.raises(DicewiseError, match="150"):
        chance(game, one, 0, 0, 0, 151)
    with pytest.raises(DicewiseError):
        solve_target(game, max_need=10, target=20)


def _package_imports(name: str) -> set[str]:
    """The dicewise modules that module ``name`` imports at its top, read from its source."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec(name)
    package = name if spec.submodule_search_locations else name.rpartition(".")[0]
    found = set()
    for node in ast.parse(open(spec.origin, encoding="utf-8").read()).body:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package
                for _ in range(node.level - 1):
                    parent = parent.rpartition(".")[0]
                base = f"{parent}.{base}" if base else parent
            is_package = bool(importlib.util.find_spec(base).submodule_search_locations)
            for a in node.names:  # a submodule of a package, else a name in the module
                sub = f"{base}.{a.name}"
                found.add(sub if is_package and importlib.util.find_spec(sub) else base)
    return {m for m in found if m.split(".")[0] == "dicewise"}


def _imported(*names: str) -> set[str]:
    """The dicewise modules ``names`` import, directly or through one another."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_package_imports(name))
    return seen


#: Modules that change no value: error messages and their languages, where the layers run
#: (and on how many BLAS threads: a product's sums are not split between them), the digest.
NO_VALUES = {"dicewise.errors", "dicewise.i18n", "dicewise.solver.runtime",
             "dicewise.solver.blas_threads", "dicewise.solver.digest"}


def test_rules_digests_list_every_module_the_values_depend_on():
    """Every module the category solve imports, directly or not, is in the engine's list
    (``digest.ENGINE``), and every module the target solve imports is there or in the target
    table's own list: a change to any of them makes a new table."""
    from dicewise.solver.digest import ENGINE
    from dicewise.solver.target.table import TARGET_MODULES

    engine = {f"dicewise.solver.{m}" for m in ENGINE}
    category = _imported("dicewise.solver.category")
    assert {"dicewise.solver.turn", "dicewise.solver.dice"} <= category  # the walk follows imports
    assert category - NO_VALUES <= engine
    target = _imported("dicewise.solver.target.driver", "dicewise.solver.target.table")
    assert "dicewise.solver.target.kernel" in target
    assert target - NO_VALUES <= engine | {m.__name__ for m in TARGET_MODULES}


# -- simulation --------------------------------------------------------------------------------


@pytest.mark.slow
def test_simulated_target_play_reaches_the_target_as_often_as_w_says(every_target):
    game, solved, values = every_target("general")
    games, target = 3000, 150
    records = simulate_target(game, values, target, games, seed=11, expected=solved.values)
    hit = (records.scores >= target).mean()
    w = values.at(game.initial_state, target)
    half = 1.959963984540054 * np.sqrt(w * (1 - w) / games)
    assert abs(hit - w) <= half
    assert records.ended_early.mean() < 0.02  # big generals: 1 − (1 − 6/7776)^10 ≈ 0.77%


def test_a_settled_target_plays_the_expected_score_policy_on_the_same_dice(every_target):
    game, solved, values = every_target("general")
    # T = 0 is reached from the start (need 0 ≤ fewest 0): the expected-score policy plays.
    records = simulate_target(game, values, 0, 500, seed=3, expected=solved.values)
    plain = simulate_games(game, solved.values, "optimal", 500, 3)
    assert np.array_equal(records.scores, plain.scores)
    assert np.array_equal(records.box_roll, plain.box_roll)


# -- the reference games ---------------------------------------------------------------------


@pytest.mark.slow
def test_yahtzee_single_target_beats_the_expected_score_policy():
    """From a sheet half filled (the whole game's T = 250 takes minutes: the benchmark)."""
    from dicewise.solver.sheet import parse_sheet

    game = category_game("yahtzee")
    solved = solve_states(game)
    sheet = parse_sheet(game, "ones=2,twos=6,threes=9,fours=12,fives=15,sixes=18,chance=22")
    target = sheet.points + 130
    kw = dict(target=target, start=sheet.state(game), start_points=sheet.points, dtype=np.float32)
    values = solve_target(game, **kw)
    policy = policy_target_values(game, solved, **kw)
    w = values.at(sheet.state(game), target - sheet.points)
    p = policy.at(sheet.state(game), target - sheet.points)
    assert 0 < p <= w + 1e-6 < 1
