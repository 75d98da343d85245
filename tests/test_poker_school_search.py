"""poker-school's search (``solver/poker_school/search.py``) and the advice's ``loss_error``.

Proves: (1) searched over the exact one-column values, every write is worth exactly what the
exact table says (the exact values are their own one-turn-deeper values); (2) over fitted
values, a searched write is worth the turn-start value of the sheet it leads to, solved on
its own by the advisor's turn solver (a brute-force reading of "the next turn solved
exactly, the model after it"); (3) approximate advice carries ``loss_error`` on every
choice — the best choice's is the most any other could be better, "close call" exactly where
a loss is within its error — and JSON shows it beside ``loss``; exact advice carries none.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from dicewise.solver import dice
from dicewise.solver.category import solve_states
from dicewise.solver.poker_school import advice as advisor
from dicewise.solver.poker_school.advice import TurnAdvice, advise
from dicewise.solver.poker_school.approx import Features, LinearEvaluator, prior_weights
from dicewise.solver.poker_school.race import advise_at_table
from dicewise.solver.poker_school.rules import (N_ROWS, N_SCHOOL, ROW_INDEX, PokerSchoolRules,
                                                SheetState)
from dicewise.solver.poker_school.search import SearchEvaluator
from dicewise.solver.poker_school.turns import Batch, ExactEvaluator, play, turn_options
from lines import unwrapped


@functools.lru_cache(maxsize=1)
def one_column_exact():
    game = PokerSchoolRules(columns=1, school_cross_erases=False)
    return game, ExactEvaluator(game, solve_states(game.one_column).values)


def sheets(game, evaluator, games=16, every=4):
    out = []

    def record(t, batch):
        if t < game.turns and t % every == 1:
            out.append(Batch(batch.filled.copy(), batch.clean.copy(), batch.reserve.copy(),
                             batch.column_clean.copy(), batch.standing.copy(),
                             batch.banked.copy()))

    play(game, games, 3, "random", evaluator, record=record, chunk=games)
    return out


@pytest.mark.slow
def test_search_over_exact_values_is_exact():
    game, ev = one_column_exact()
    deep = SearchEvaluator(ev)
    for batch in sheets(game, None):
        for shallow, searched in zip(turn_options(ev, batch), turn_options(deep, batch)):
            for a, b in zip(shallow, searched):
                if a is None:
                    assert b is None
                    continue
                sa = a.score[a.roll_class] + ev.base(batch)
                sb = b.score[b.roll_class] + deep.base(batch)
                assert np.array_equal(np.isfinite(sa), np.isfinite(sb))
                ok = np.isfinite(sa)
                assert np.allclose(sa[ok], sb[ok], atol=1e-9)
                assert np.allclose(a.cross + ev.base(batch), b.cross + deep.base(batch), atol=1e-9)


def test_searched_write_is_the_next_turn_solved_on_its_own():
    game = PokerSchoolRules(columns=2)
    lin = LinearEvaluator(game, prior_weights(game) + np.random.default_rng(4).normal(
        0, 20, Features.of(game).size))
    deep = SearchEvaluator(lin)
    sheet = game.parse_sheet("fives=20,pair=12/x,chance=44")  # a reserve of one five
    roll = dice.roll_index(dice.counts_of([5, 5, 2, 3, 6]))
    turn = TurnAdvice(game, deep, sheet)
    checked = 0
    faces = [5, 5, 2, 3, 6]
    for choice in turn.choices(roll, 3):
        if "keep" in choice.action:
            continue
        r = ROW_INDEX[next(iter(choice.action.values()))]
        score = None if "cross" in choice.action else choice.detail["score"]
        shown = faces.count(r + 1) if r < N_SCHOOL else None
        after = game.apply(sheet, r, score, shown)
        expected = TurnAdvice(game, lin, after).start
        assert choice.expected == pytest.approx(expected, abs=1e-9), choice.label
        checked += 1
    assert checked == N_ROWS  # the crosses of the fourteen open rows and the fives' write


@pytest.mark.parametrize("columns", [2, 3])
def test_the_last_write_is_worth_the_final_score_by_the_rules(columns):
    """A full sheet's value is its final score, exactly: the model's intercept (far from 0
    here, -10 in a fitted table) has no weight there, so the last turn is valued exactly."""
    game = PokerSchoolRules(columns=columns)
    lin = LinearEvaluator(game, prior_weights(game) + np.random.default_rng(5).normal(
        0, 20, Features.of(game).size))
    assert abs(lin.w_int[0]) > 1
    last = []

    def record(t, batch):
        if t == game.turns - 1:
            last.extend(SheetState(*(tuple(a[i].tolist()) for a in (
                batch.filled, batch.clean, batch.reserve, batch.column_clean)),
                int(batch.standing[i]), int(batch.banked[i])) for i in range(len(batch)))

    play(game, 16, 7, "random", None, record=record, chunk=16)
    rng = np.random.default_rng(6)
    checked = 0
    for sheet in last:
        for k in (1, 3):
            faces = dice.faces_of(dice.ROLLS[rng.choice(dice.N_ROLLS, p=dice.ROLL_PROBABILITY)])
            for choice in TurnAdvice(game, lin, sheet).choices(dice.roll_index(
                    dice.counts_of(faces)), k):
                if "keep" in choice.action:
                    continue
                r = ROW_INDEX[next(iter(choice.action.values()))]
                score = None if "cross" in choice.action else choice.detail["score"]
                shown = faces.count(r + 1) if r < N_SCHOOL else None
                final = game.final_score(game.apply(sheet, r, score, shown))
                assert choice.expected == pytest.approx(final, abs=1e-9), (sheet, faces, k)
                checked += 1
    assert checked >= 20


def test_advice_is_exact_where_the_search_reaches_the_end():
    """Two turns before the end the search reaches a full sheet, valued by the rules: the
    advice says exact, with no error to report; three turns before, it is approximate."""
    game = PokerSchoolRules(columns=2)
    lin = LinearEvaluator(game, prior_weights(game) + np.random.default_rng(5).normal(
        0, 20, Features.of(game).size))
    late = {}

    def record(t, batch):
        if t >= game.turns - 3:
            late[game.turns - t] = SheetState(*(tuple(a[0].tolist()) for a in (
                batch.filled, batch.clean, batch.reserve, batch.column_clean)),
                int(batch.standing[0]), int(batch.banked[0]))

    play(game, 1, 8, "random", None, record=record, chunk=1)
    faces = [2, 2, 2, 1, 3]
    for turns_left, search, exact in ((3, True, False), (2, False, False), (2, True, True),
                                      (1, False, True)):
        a = advise(game, lin, late[turns_left], faces, 3, 6.4, search=search)
        assert a.approximate is not exact and (a.error_estimate is None) is exact
        assert all((c.loss_error is None) is (exact or not search) for c in a.choices[1:])
    for c in advise(game, lin, late[2], faces, 3, 6.4).choices:
        r = ROW_INDEX[next(iter(c.action.values()))]
        score = None if "cross" in c.action else c.detail["score"]
        after = game.apply(late[2], r, score, faces.count(r + 1) if r < N_SCHOOL else None)
        assert c.expected == pytest.approx(TurnAdvice(game, lin, after).start, abs=1e-9)


def test_loss_error_on_approximate_advice_only():
    game = PokerSchoolRules()
    lin = LinearEvaluator(game, prior_weights(game))
    a = advise(game, lin, game.parse_sheet("twos=6,fives=15/15/15"), [2, 2, 2, 1, 3], 3, 6.4)
    errors = [c.loss_error for c in a.choices]
    assert all(e is not None and e >= 0 for e in errors)
    assert a.best.action == {"write": "twos"}
    others = [c.loss_error - c.loss for c in a.choices[1:] if c.action != {"cross": "twos"}]
    assert a.best.loss_error == pytest.approx(max(others + [0.0]))
    for c in a.choices:  # the cross of twos is proven worse than writing them: never close
        dominated = c.action == {"cross": "twos"}
        assert (c.detail.get("dominated_by") == {"write": "twos"}) == dominated
        assert c.close_call == (c.loss_error > 0 and c.loss <= c.loss_error and not dominated)
    js = a.to_json()["choices"][1]
    assert list(js)[:6] == ["action", "label", "expected", "loss", "loss_error", "close_call"]
    one = PokerSchoolRules(columns=1, school_cross_erases=False)
    exact = advise(one, ExactEvaluator(one, np.zeros(one.one_column.n_states)), one.empty(),
                   [5, 5, 5, 2, 6], 1)  # any exact table: the values do not matter here
    assert all(c.loss_error is None and not c.close_call for c in exact.choices)
    assert "loss_error" not in exact.to_json()["best"]


def test_loss_error_is_the_documented_sum_and_keeps_are_measured_apart():
    """Each choice's ``loss_error``: scale × how far the search moved its loss + slope × the
    loss + a floor in E × share, the smaller keep floor where the choice and the best are
    both keeps (docs/poker-school.md gives the constants and what they covered)."""
    game = PokerSchoolRules()
    lin = LinearEvaluator(game, prior_weights(game))
    sheet = game.parse_sheet("fives=15/15,pair=12/x,chance=44")
    args = (game, lin, sheet, [5, 5, 5, 2, 6], 2, 6.4)
    deep, shallow = advise(*args), advise(*args, search=False)
    top = shallow.choices[0].expected
    shallow_loss = {repr(c.action): top - c.expected for c in shallow.choices}
    share = (game.turns - sum(sheet.filled)) / game.turns
    best = deep.best
    kinds = set()
    for c in deep.choices[1:]:
        if len(c.action.get("keep", ())) == 5:  # the best write's error (the next test)
            continue
        keeps = "keep" in c.action and "keep" in best.action
        kinds.add(keeps)
        floor = advisor.LOSS_ERROR_KEEP_FLOOR if keeps else advisor.LOSS_ERROR_FLOOR
        want = (advisor.LOSS_ERROR_SCALE * abs(c.loss - shallow_loss[repr(c.action)])
                + advisor.LOSS_ERROR_SLOPE * c.loss + floor * 6.4 * share)
        assert c.loss_error == pytest.approx(want, abs=1e-9), c.label
    assert kinds == {True, False}


def test_keeping_all_five_after_roll_2_is_the_best_write_with_its_error():
    """Roll 3 then shows the same dice: keeping all five is the best write or cross a roll
    later, for the same points.  It carries that choice's ``loss_error`` (none where that
    choice is the best), so the best write is no close call on its twin's account."""
    game = PokerSchoolRules()
    lin = LinearEvaluator(game, prior_weights(game))
    # three turns left: approximate, searched
    sheet = _one_cell_left(game, *(ROW_INDEX[r] for r in ("pair", "big_straight", "chance")))
    assert game.turns - sum(sheet.filled) == 3
    checked = 0
    for faces, best in (([2, 3, 4, 5, 6], {"write": "big_straight"}),
                        ([6, 6, 6, 6, 6], {"write": "chance"}),
                        ([1, 1, 2, 5, 6], None)):
        a = advise(game, lin, sheet, faces, 2, 6.32)
        assert a.approximate and (best is None or a.best.action == best)
        stop = a.choice_for({"keep": sorted(faces)})
        final = max((c for c in a.choices if "keep" not in c.action), key=lambda c: c.expected)
        assert stop.expected == pytest.approx(final.expected, abs=1e-9)
        if final is a.best:
            assert stop.loss_error == 0.0 and not stop.close_call
        else:
            assert stop.loss_error == final.loss_error and stop.close_call == final.close_call
        others = [c.loss_error - c.loss for c in a.choices[1:] if c is not stop]
        assert a.best.loss_error == pytest.approx(max(others + [0.0]))
        checked += final is a.best
    assert checked == 2
    # here no other choice is within its error: the best write is a clear choice
    a = advise(game, lin, sheet, [2, 3, 4, 5, 6], 2, 6.32)
    assert not any(c.close_call for c in a.choices)
    # At a table the race value ranks: a rival near the fives makes the third five the best
    # write, where the expected score alone would take the full house.
    a = advise_at_table(game, lin, "fives=15/15", ["fives=15/15,sixes=18", "ones=3/3"],
                        [5, 5, 5, 6, 6], 2, 6.32)
    writes = [c for c in a.choices if "keep" not in c.action]
    assert a.best.action == {"write": "fives"}
    assert max(writes, key=lambda c: c.expected).action == {"write": "full_house"}
    stop = a.choice_for({"keep": [5, 5, 5, 6, 6]})
    assert stop.loss == 0.0 and stop.loss_error == 0.0


def test_keeping_all_five_after_roll_1_is_never_a_close_call():
    """Roll 2 then offers the same choices as roll 1 with a roll fewer and no first-roll
    double: keeping all five is never better than the best choice, so however its loss
    compares with its error it is no close call, nor does it widen the best one's error
    (it did: a loss of exactly 30, the double of a poker, was shown "±30.13, close call")."""
    from dicewise.cli.games import dominated_note

    game = PokerSchoolRules()
    lin = LinearEvaluator(game, prior_weights(game))
    sheets = [game.empty(), _one_cell_left(game, *(ROW_INDEX[r] for r in ("pair", "poker",
                                                                          "chance", "sixes")))]
    for sheet in sheets:
        for faces in ([6, 6, 6, 6, 6], [2, 3, 4, 5, 6], [1, 1, 2, 5, 6], [3, 3, 3, 4, 4]):
            a = advise(game, lin, sheet, faces, 1, 6.32)
            assert a.approximate
            stop = a.choice_for({"keep": sorted(faces)})
            assert stop.detail["never_best"] and not stop.close_call
            assert stop.expected <= a.best.expected + 1e-9
            actions = [c.action for c in a.choices]
            others = [c.loss_error - c.loss for c in a.choices[1:]
                      if not c.detail.get("never_best")
                      and c.detail.get("dominated_by") not in actions]
            assert a.best.loss_error == pytest.approx(max(others + [0.0]))
            assert not any(c.detail.get("never_best") for c in a.choices if c is not stop)
            if stop.loss > 0:  # the listing says why it is no close call
                assert dominated_note(stop, a.choices) == \
                    "  (never better than the best, by the rules)"
    after_two = advise(game, lin, sheets[1], [6, 6, 6, 6, 6], 2, 6.32)  # roll 2: its own rule
    assert "never_best" not in after_two.choice_for({"keep": [6] * 5}).detail


def test_a_dominated_cross_is_listed_with_the_write_that_beats_it(capsys):
    """Its error may be wider than its loss, so the listing says why it is no close call:
    the write the rules prove better, in the players' language too."""
    from dicewise import i18n
    from dicewise.cli.games import dominated_note, print_advice

    game = PokerSchoolRules()
    a = advise(game, LinearEvaluator(game, prior_weights(game)),
               game.parse_sheet("twos=6,fives=15/15/15"), [2, 2, 2, 1, 3], 3, 6.4)
    print_advice(a)
    out = unwrapped(capsys.readouterr().out)
    cross = a.choice_for({"cross": "twos"})
    marked = [" ".join(line.split()) for line in out if "by the rules" in line]
    assert len(marked) == 1 and f" {cross.label} (worse than {a.best.label}, by the " \
        "rules)" in marked[0]
    shown = dominated_note(cross, a.choices, lambda c: c.label.upper(), i18n.translator("ru"))
    assert shown == f"  (заведомо хуже, чем {a.best.label.upper()})"
    assert all(dominated_note(c, a.choices) == "" for c in a.choices if c is not cross)


def test_approximate_advice_in_russian(capsys):
    """The headline (how the values were found), the values' quality (said once, on its own
    line) and every choice come in the players' language."""
    from dicewise import i18n
    from dicewise.cli.games import print_advice

    game = PokerSchoolRules()
    a = advise(game, LinearEvaluator(game, prior_weights(game)),
               game.parse_sheet("twos=6,fives=15/15/15"), [2, 2, 2, 1, 3], 3, 6.4, 1124.14)
    assert a.headline.endswith("66 points written, %.3f expected at turn start (searched one "
                               "turn deep)" % a.turn_start_expected)
    print_advice(a, tr=i18n.translator("ru"))
    out = unwrapped(capsys.readouterr().out)
    assert out[0].startswith("poker-school: бросок 3 из 3, кости 1 2 2 2 3; записано 66 очков")
    assert out[0].endswith("(с поиском на ход вперёд)") and "±" not in out[0]
    assert out[1] == ("значения: приближённо; оценка ошибки ±6,4; оптимум всей игры ≤ 1124,14 "
                      "(доказано)")
    rows = out[3:]
    assert len(rows) == len(a.choices)
    assert any(" ".join(r.split()).endswith("поставить крест в строке «двойки» (заведомо хуже, "
                                            "чем записать в строку «двойки»: 6)") for r in rows)
    assert all("±" in r for r in rows) and any("(почти равны)" in r for r in rows)


def _one_cell_left(game, *last):
    """A sheet with every cell scored (no cross: every column still clean) but one of each
    row of ``last``."""
    sheet = game.empty()
    for r in range(N_ROWS):
        for _ in range(game.columns - (r in last)):
            if r < N_SCHOOL:
                sheet = game.apply(sheet, r, 3 * (r + 1), 3)
            else:
                sheet = game.apply(sheet, r, max(game.cell_scores(r)))
    return sheet


@pytest.mark.parametrize("roll_number", [1, 2, 3])
def test_searched_writes_of_the_last_turn_are_the_final_score_with_the_column_bonuses(
        roll_number):
    """In the last turn every write leads to a full sheet, which the search values by the
    rules: its points and 60 for each column without a cross.  A free row scores double on
    roll 1 only, so roll 2 and 3 writes are valued by their own points."""
    game = PokerSchoolRules(columns=2)
    lin = LinearEvaluator(game, prior_weights(game) + np.random.default_rng(5).normal(
        0, 20, Features.of(game).size))
    last = ROW_INDEX["chance"]
    sheet = _one_cell_left(game, last)
    assert all(sheet.column_clean) and game.turns - sum(sheet.filled) == 1
    faces = [6, 6, 6, 5, 5]
    roll = dice.roll_index(dice.counts_of(faces))
    seen = set()
    for choice in TurnAdvice(game, SearchEvaluator(lin), sheet).choices(roll, roll_number):
        if "keep" in choice.action:
            continue
        score = None if "cross" in choice.action else choice.detail["score"]
        if score is not None:
            assert score == sum(faces) * (2 if roll_number == 1 else 1)
        final = game.final_score(game.apply(sheet, last, score))
        assert choice.expected == pytest.approx(final, abs=1e-9), choice.label
        seen.add(next(iter(choice.action)))
    assert seen == {"write", "cross"}


def test_a_cross_is_dominated_only_where_the_write_keeps_the_reserve():
    """A School write with three or more of its face keeps the reserve and beats the cross;
    one that draws on the reserve (two shown, one in reserve) does not, so that cross is no
    dominated one."""
    game = PokerSchoolRules(columns=2)
    lin = LinearEvaluator(game, prior_weights(game))
    sheet = game.parse_sheet("fives=20,pair=12/x,chance=44")  # a reserve of one five
    assert sheet.reserve[4] == 1
    for faces, dominated in (([5, 5, 2, 3, 6], False), ([5, 5, 5, 3, 6], True),
                             ([5, 1, 2, 3, 6], False)):
        choices = TurnAdvice(game, lin, sheet).choices(dice.roll_index(dice.counts_of(faces)), 3)
        actions = [c.action for c in choices]
        assert ({"write": "fives"} in actions) == (faces.count(5) >= 2), faces
        cross = next(c for c in choices if c.action == {"cross": "fives"})
        assert ("dominated_by" in cross.detail) is dominated, faces


def test_the_best_choices_error_is_not_widened_by_a_cross_its_own_write_beats():
    """A cross the rules prove worse than its row's write beats the best by less than that
    write does: the best choice's error comes from the write (a cross's error made the best
    keep's ±13.16 where the write allowed 2.90)."""
    from dicewise.solver.protocol import Choice, with_loss_errors

    def choice(action, expected, **detail):
        return Choice(action, str(action), expected, 10.0 - expected, detail)

    keep, write = choice({"keep": [4, 4, 4]}, 10.0), choice({"write": "fours"}, 9.0)
    cross = choice({"cross": "fours"}, 5.0, dominated_by={"write": "fours"})
    shallow = (choice({"keep": [4, 4, 4]}, 10.0), choice({"write": "fours"}, 9.5),
               choice({"cross": "fours"}, 9.0))
    rated = with_loss_errors((keep, write, cross), shallow, 3.0, 0.0)
    assert [c.loss_error for c in rated] == pytest.approx([0.5, 1.5, 12.0])
    # without the rule's word the cross might beat the best by 12 - 5 = 7
    free = with_loss_errors((keep, write, choice({"cross": "fours"}, 5.0)), shallow, 3.0, 0.0)
    assert free[0].loss_error == pytest.approx(7.0)
