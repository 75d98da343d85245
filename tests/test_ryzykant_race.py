"""Ryzykant on shared rolls (``solver/ryzykant/race.py``) and its win policy.

Proves: every seat of a game meets the same rolls (one seat plays exactly the games of the
solitaire simulator on the same stream; identical policies split alike and tie); with the
rival finished and one roll left (``end_marks=1``: the first mark below ends a game) the win
policy takes a split that finishes ahead whenever one does — brute force over the splits;
advice at a table searched two rolls deep is the next roll's best one-roll-deep chance,
averaged roll by roll, and each loss carries the documented ``loss_error`` (exact advice,
every game over with this roll, carries none); and the table goes through ``duel
--players N`` with A rotating.  Its measured win share is
in the slow tier and in docs/players.md.
"""

from __future__ import annotations

import numpy as np
import pytest

from dicewise.errors import DicewiseError
from dicewise.solver import dice
from dicewise.solver.multiplayer.seats import win_shares
from dicewise.solver.protocol import Solution
from dicewise.solver.ryzykant import approx, rules as rz
from dicewise.solver.ryzykant.game import RYZYKANT
from dicewise.solver.ryzykant.race import WinPolicy, play_seated, play_shared


def first_split(upper, lower, rolls, legal, pusc):
    """A policy unlike greedy: the first legal split slot."""
    return legal.argmax(axis=1)


def test_one_seat_plays_the_solitaire_games():
    rules = rz.RyzykantRules()
    alone = approx.play_games(rules, approx.greedy_policy(rules), 300, [4, 2])
    shared = play_shared(rules, [approx.greedy_policy(rules)], 300, [4, 2])
    assert (shared[:, 0] == alone.scores).all()


def test_identical_policies_tie_and_others_differ():
    rules = rz.RyzykantRules()
    greedy = approx.greedy_policy(rules)
    scores = play_shared(rules, [greedy, first_split, greedy], 200, [9])
    assert (scores[:, 0] == scores[:, 2]).all()
    assert (scores[:, 0] != scores[:, 1]).mean() > 0.5
    shares = win_shares(scores)
    assert (shares[:, 0] == shares[:, 2]).all()


def test_on_the_last_roll_the_win_policy_finishes_ahead_when_it_can():
    rules = rz.RyzykantRules(end_marks=1)
    policy = WinPolicy(rules, approx.ValueModel.zero(), rival=None)
    rng = np.random.default_rng(3)
    rolls = rng.integers(0, dice.N_ROLLS, 400)
    upper = rng.integers(0, 9, (400, rz.N_SUMS))
    lower = np.zeros((400, 6), np.int64)
    legal, pusc = rz.legal_splits(lower, rolls)
    finals = np.full(legal.shape, -np.inf)
    for g, j in zip(*np.nonzero(legal)):
        up, _, ended = rz.apply_splits(rules, upper[g:g + 1], lower[g:g + 1], rolls[g:g + 1],
                                       np.array([j]), pusc[g:g + 1])
        assert ended[0]
        finals[g, j] = rz.score(up)[0]
    rival = np.sort(finals, axis=1)[:, -2] + rng.integers(-150, 150, 400)  # often in between
    rivals = (upper[:, None, :], lower[:, None, :] + 1, np.ones((400, 1), bool),
              rival[:, None].astype(float))
    choice = policy.choose(upper, lower, rolls, legal, pusc, rivals)
    got = finals[np.arange(400), choice]
    can_win = finals.max(axis=1) > rival
    assert (got[can_win] > rival[can_win]).all()
    # where none wins, a tie if one exists
    can_tie = ~can_win & (finals == rival[:, None]).any(axis=1)
    assert (got[can_tie] == rival[can_tie]).all()
    assert can_win.sum() > 100 and (~can_win).sum() > 20


def test_seats_rotate_on_shared_rolls():
    rules_only = Solution(RYZYKANT, RYZYKANT.rules({}), None, {}, None, False, 0.0)
    played = play_seated(rules_only, ("random", "greedy"), 50, 1, 0)
    again = play_seated(rules_only, ("greedy", "random"), 50, 1, 0)
    assert (played.scores[:, 0] == again.scores[:, 1]).all()
    assert (played.scores[:, 1] == again.scores[:, 0]).all()


class _Zero:
    """A fitted table's stand-in: the zero value model (every split valued by its score)."""

    dense = approx.ValueModel.zero()


def test_table_advice_on_the_last_roll_is_the_brute_force_chance_to_finish_ahead():
    # end_marks=1: every split ends the game, and the rivals have finished.  A split's chance
    # is 1 when its final beats the best rival's, ½ on a tie, 0 below: brute force.
    from dicewise.solver.ryzykant.game import split_action
    from dicewise.solver.ryzykant.race import advise_at_table

    rules = rz.RyzykantRules(end_marks=1)
    solution = Solution(RYZYKANT, rules, _Zero(), {}, None, False, 0.0)
    rng = np.random.default_rng(5)
    checked = {0.0: 0, 0.5: 0, 1.0: 0}
    for _ in range(60):
        pos = rz.Position(tuple(int(x) for x in rng.integers(0, 4, rz.N_SUMS) * 2), (0,) * 6)
        roll = int(rng.integers(0, dice.N_ROLLS))
        finals = {}
        for m in rz.moves(rules, pos, roll):
            after, ended = rz.play(rules, pos, roll, m.slot)
            assert ended
            finals[str(split_action(*m.pairs, m.fifth))] = after.score
        rivals = [(rz.Position(tuple(int(x) for x in rng.integers(0, 4, rz.N_SUMS) * 2),
                               (1, 0, 0, 0, 0, 0)), True) for _ in range(2)]
        best_rival = max(p.score for p, _ in rivals)
        advice = advise_at_table(solution, pos, roll, rivals)
        assert advice.objective == "win" and not advice.approximate
        assert advice.error_estimate is None and "exact: every game ends" in str(advice.headline)
        chances = [c.probability for c in advice.choices]
        assert chances == sorted(chances, reverse=True)
        for c in advice.choices:
            final = finals[str(c.action)]
            want = 1.0 if final > best_rival else 0.5 if final == best_rival else 0.0
            assert c.probability == pytest.approx(want, abs=1e-6)
            assert c.loss_error is None and not c.close_call  # exact
            checked[want] += 1
    assert checked[0.0] > 20 and checked[1.0] > 20


def test_a_rival_who_split_this_roll_already_is_not_split_again():
    # At a table the thrower splits first: a rival's sheet after this roll (split flag) is
    # worth exactly what the same rival before it is worth when its policy makes that split.
    rules = rz.RyzykantRules()
    rng = np.random.default_rng(8)
    g = 50
    rolls = rng.integers(0, dice.N_ROLLS, g)
    upper = rng.integers(0, 3, (g, rz.N_SUMS)) * 2
    lower = np.tile(np.array([2, 2, 0, 0, 0, 0]), (g, 1))
    r_up = rng.integers(0, 3, (g, rz.N_SUMS)) * 2
    r_lo = np.tile(np.array([1, 0, 3, 0, 0, 0]), (g, 1))
    legal, pusc = rz.legal_splits(lower, rolls)
    r_legal, r_pusc = rz.legal_splits(r_lo, rolls)
    r_choice = first_split(r_up, r_lo, rolls, r_legal, r_pusc)
    up2, lo2, ended = rz.apply_splits(rules, r_up, r_lo, rolls, r_choice, r_pusc)
    keep = ~ended
    policy = WinPolicy(rules, approx.ValueModel.zero(), first_split)
    before = policy.split_values(upper[keep], lower[keep], rolls[keep], legal[keep], pusc[keep],
                                 (r_up[keep, None], r_lo[keep, None], np.zeros((keep.sum(), 1), bool),
                                  rz.score(r_up[keep])[:, None].astype(float)))
    after = policy.split_values(upper[keep], lower[keep], rolls[keep], legal[keep], pusc[keep],
                                (up2[keep, None], lo2[keep, None], np.zeros((keep.sum(), 1), bool),
                                 rz.score(up2[keep])[:, None].astype(float),
                                 np.ones((keep.sum(), 1), bool)))
    assert keep.sum() > 30
    np.testing.assert_allclose(after[0], before[0])
    np.testing.assert_allclose(after[1], before[1])


def _table_position(seed):
    """A position, a roll with at least four legal splits and one rival before it, mid-game."""
    rng = np.random.default_rng(seed)
    pos = rz.Position(tuple(int(x) for x in rng.integers(0, 3, rz.N_SUMS) * 2), (2, 1, 0, 0, 0, 0))
    rival = rz.Position(tuple(int(x) for x in rng.integers(0, 3, rz.N_SUMS) * 2),
                        (0, 0, 2, 1, 0, 0))
    roll = int(rng.integers(0, dice.N_ROLLS))
    while rz.legal_splits(np.array([pos.lower]), np.array([roll]))[0].sum() < 4:
        roll = int(rng.integers(0, dice.N_ROLLS))
    return pos, roll, rival


@pytest.mark.slow  # 10 s of brute force: in the slow tier, to keep the everyday one short
def test_searched_race_values_are_the_next_roll_brute_force(seed=2):
    # Two rolls deep: for each split, over the 252 next rolls one by one, the best split then
    # by the one-roll-deep chance, the rival having split this roll as its policy does.
    rules = rz.RyzykantRules(end_marks=4)
    model = approx.ValueModel.zero()
    policy = WinPolicy(rules, model, approx.model_policy(model, rules), spread=300.0)
    pos, roll, rival = _table_position(seed)
    up, lo = np.array([pos.upper]), np.array([pos.lower])
    legal, pusc = rz.legal_splits(lo, np.array([roll]))
    rivals = (np.array([[rival.upper]]), np.array([[rival.lower]]), np.array([[False]]),
              np.array([[float(rival.score)]]))
    one_roll, deep = policy.searched_values(up, lo, roll, legal, pusc, rivals)
    shallow = policy.split_values(up, lo, np.array([roll]), legal, pusc, rivals)[0][0]
    np.testing.assert_array_equal(one_roll, shallow)
    r_up, r_lo, r_end, r_score = policy.rivals_after(np.array([roll]), rivals)
    going = 0
    for slot in np.flatnonzero(legal[0]):
        u1, l1, ended = rz.apply_splits(rules, up, lo, np.array([roll]), np.array([slot]), pusc)
        if ended[0]:  # the game is over: nothing more to search
            assert deep[slot] == shallow[slot]
            continue
        going += 1
        want = 0.0
        for nxt in range(dice.N_ROLLS):
            lg, pu = rz.legal_splits(l1, np.array([nxt]))
            chance = policy.split_values(u1, l1, np.array([nxt]), lg, pu,
                                         (r_up, r_lo, r_end, r_score))[0][0]
            want += dice.ROLL_PROBABILITY[nxt] * chance.max()
        assert deep[slot] == pytest.approx(want, abs=1e-12)
    assert going >= 3 and np.isneginf(deep[~legal[0]]).all()


def test_the_search_works_out_the_rivals_once_per_next_roll(monkeypatch):
    """Two rolls deep, the rivals split each next roll whatever the mover split this one,
    and the largest of their totals (Clark's) is the same for every split of a position and
    σ: both are worked out once, not once per split (advice at a table of three once took
    7 s a decision, of six 10 to 15 s: far over the 2-second budget)."""
    from dicewise.solver.ryzykant import race

    rules = rz.RyzykantRules(end_marks=4)
    pos, _, rival = _table_position(1)
    pos = rz.Position(pos.upper, (2, 1, 0, 0, 1, 0))
    roll = dice.roll_index(dice.counts_of([5, 5, 5, 6, 6]))
    asked, evaluated = [], []
    rival_policy = approx.model_policy(_Zero.dense, rules)

    def counted(up, lo, rolls, legal, pusc):
        asked.append(len(rolls))
        return rival_policy(up, lo, rolls, legal, pusc)

    phi = race._phi
    monkeypatch.setattr(race, "_phi", lambda x: (evaluated.append(np.size(x)), phi(x))[1])
    policy = WinPolicy(rules, _Zero.dense, counted)
    up, lo = np.array([pos.upper]), np.array([pos.lower])
    legal, pusc = rz.legal_splits(lo, np.array([roll]))
    rivals = 2
    state = (np.array([[rival.upper] * rivals]), np.array([[rival.lower] * rivals]),
             np.zeros((1, rivals), bool), np.full((1, rivals), float(rival.score)))
    policy.searched_values(up, lo, roll, legal, pusc, state)
    splits = 0  # the mover's splits of every next roll, after each split of this one
    for slot in np.flatnonzero(legal[0]):
        _, l1, ended = rz.apply_splits(rules, up, lo, np.array([roll]), np.array([slot]), pusc)
        if not ended[0]:
            splits += rz.legal_splits(np.repeat(l1, dice.N_ROLLS, axis=0),
                                      np.arange(dice.N_ROLLS))[0].sum()
    assert legal.sum() >= 2 and splits > 100
    # each rival: this roll (one roll deep, then for the search) and each next roll, once
    assert sum(asked) == rivals * (2 + dice.N_ROLLS)
    # Φ of each split's margin over the best rival and of its chance against all, per next
    # roll, and the rivals' fold once per position and σ (ahead_of_all of every split's
    # margins took 2R + 1 per split and next roll)
    assert sum(evaluated) < (rivals + 1) * splits * dice.N_ROLLS


def test_table_advice_errs_on_how_far_the_search_moved_each_loss(capsys):
    from dicewise.cli.games import print_advice
    from dicewise.solver.ryzykant.game import split_action
    from dicewise.solver.ryzykant.race import LOSS_ERROR_FLOOR, LOSS_ERROR_SCALE, advise_at_table

    rules = rz.RyzykantRules(end_marks=4)
    solution = Solution(RYZYKANT, rules, _Zero(), {}, None, False, 0.0)
    pos, roll, rival = _table_position(1)
    advice = advise_at_table(solution, pos, roll, [(rival, False)])
    policy = WinPolicy(rules, _Zero.dense, approx.model_policy(_Zero.dense, rules))
    up, lo = np.array([pos.upper]), np.array([pos.lower])
    legal, pusc = rz.legal_splits(lo, np.array([roll]))
    rivals = (np.array([[rival.upper]]), np.array([[rival.lower]]), np.array([[False]]),
              np.array([[float(rival.score)]]), np.array([[False]]))
    shallow = policy.split_values(up, lo, np.array([roll]), legal, pusc, rivals)[0][0]
    deep = policy.searched_values(up, lo, roll, legal, pusc, rivals)[1]
    slot = {str(split_action(*m.pairs, m.fifth)): m.slot for m in rz.moves(rules, pos, roll)}
    best = advice.choices[0]
    assert best.probability == pytest.approx(deep.max())
    for c in advice.choices[1:]:
        s = slot[str(c.action)]
        assert c.probability == pytest.approx(deep[s])
        shallow_loss = shallow[slot[str(best.action)]] - shallow[s]
        assert c.loss_error == pytest.approx(LOSS_ERROR_SCALE * abs(c.loss - shallow_loss)
                                             + LOSS_ERROR_FLOOR)
        assert c.close_call == (0 < c.loss_error and c.loss <= c.loss_error)
    assert best.loss_error == pytest.approx(
        max([c.loss_error - c.loss for c in advice.choices[1:]] + [0.0]))
    assert any(c.loss_error > 0 for c in advice.choices)
    print_advice(advice)
    out = capsys.readouterr().out
    assert "two rolls ahead exactly" in out
    assert f"±{advice.choices[1].loss_error:.4f}" in out


@pytest.mark.slow  # a Monte Carlo check of the formula
def test_the_chance_to_finish_ahead_of_several_rivals_is_that_of_the_normal_margins():
    """With one rival the chance is Φ(z); with more it is P(z_k + X − Y_k > 0 for every k),
    X and the Y_k normal with variance ½ (the margins share the player's own part): Clark's
    maximum of normals comes within 0.02 of a simulation of that model, gives R equal rivals
    about 1 / (R + 1), and is never above the chance to finish ahead of any one of them."""
    from scipy.special import ndtr

    from dicewise.solver.ryzykant.race import ahead_of_all

    rng = np.random.default_rng(3)
    z = rng.normal(0, 1.5, (1, 50))
    assert np.array_equal(ahead_of_all(z), ndtr(z[0]))
    for rivals in (2, 3, 5):
        assert ahead_of_all(np.zeros((rivals, 1)))[0] == pytest.approx(1 / (rivals + 1), abs=0.005)
        z = rng.normal(0, 1.5, (rivals, 100))
        chance = ahead_of_all(z)
        x = rng.normal(0, np.sqrt(0.5), (40_000, 1, 1))
        y = rng.normal(0, np.sqrt(0.5), (40_000, rivals, 1))
        simulated = (z[None] + x - y > 0).all(axis=1).mean(axis=0)
        assert np.abs(chance - simulated).max() < 0.02
        assert (chance <= ndtr(z).min(axis=0)).all()


def test_three_equal_players_at_the_start_each_expect_a_third():
    """Not the ½ of the margin over the best rival alone (what advice once printed)."""
    rules = rz.RyzykantRules(end_marks=4)
    model = approx.ValueModel.zero()
    policy = WinPolicy(rules, model, approx.model_policy(model, rules), spread=300.0)
    up, lo = np.zeros((1, 11), np.int64), np.zeros((1, 6), np.int64)
    roll = np.array([dice.roll_index(dice.counts_of([1, 2, 3, 6, 6]))])
    legal, pusc = rz.legal_splits(lo, roll)
    for rivals, want in ((1, 1 / 2), (2, 1 / 3)):
        state = (np.zeros((1, rivals, 11), np.int64), np.zeros((1, rivals, 6), np.int64),
                 np.zeros((1, rivals), bool), np.zeros((1, rivals)))
        chance = policy.split_values(up, lo, roll, legal, pusc, state)[0][0]
        assert chance.max() == pytest.approx(want, abs=0.03)


@pytest.mark.parametrize("end_marks", [1, 2, 3])
def test_every_game_played_to_its_end_reads_back_as_a_rival_who_ended(end_marks):
    """A rival's finished sheet is checked by the position just before the split that ended
    it, whose two pair marks the sheet does not tell apart: any game the rules play to its
    end is accepted, however few fifth-die faces it chose (one face and end_marks=1 included)."""
    from dicewise.solver.ryzykant.race import rival_position

    rules = rz.RyzykantRules(end_marks=end_marks)
    rng = np.random.default_rng(end_marks)
    few_faces = 0
    for _ in range(60):
        pos = rz.Position((0,) * rz.N_SUMS, (0,) * 6)
        ended = False
        while not ended:
            roll = int(rng.choice(dice.N_ROLLS, p=dice.ROLL_PROBABILITY))
            found = rz.moves(rules, pos, roll)
            pos, ended = rz.play(rules, pos, roll, found[rng.integers(len(found))].slot)
        few_faces += sum(n > 0 for n in pos.lower) < 3
        read, over = rival_position(rules, pos.sheet, pos.fifth)
        assert over and read == pos, (pos.sheet, pos.fifth)
    assert few_faces > 5
    # a sheet no game ends with is still refused
    for sheet, fifth in (("", "2=%d" % end_marks), ("6=2", "1=%d" % (end_marks + 1))):
        with pytest.raises(DicewiseError):
            rival_position(rules, sheet, fifth)


def test_a_split_that_ends_the_game_still_meets_the_spread_of_the_rivals_rolls_left():
    """σ grows with the rolls the game likely lasts, the rival's included: a split that ends
    the mover's game leaves the rival's rolls unseen, so with a huge spread every split,
    ending or not, is a near coin flip against one rival (Φ(z) with z near 0)."""
    rules = rz.RyzykantRules(end_marks=4)
    model = approx.ValueModel.zero()
    policy = WinPolicy(rules, model, approx.model_policy(model, rules), spread=1e9)
    rng = np.random.default_rng(4)
    g = 40
    upper = rng.integers(0, 3, (g, rz.N_SUMS)) * 2
    lower = np.tile(np.array([3, 1, 0, 0, 0, 0]), (g, 1))  # a fifth 1 ends the game
    rolls = np.array([dice.roll_index(dice.counts_of([1, int(a), int(b), int(c), int(d)]))
                      for a, b, c, d in rng.integers(1, 7, (g, 4))])
    legal, pusc = rz.legal_splits(lower, rolls)
    r_up = rng.integers(0, 3, (g, 1, rz.N_SUMS)) * 2
    rivals = (r_up, np.tile(np.array([0, 0, 1, 1, 0, 0]), (g, 1, 1)), np.zeros((g, 1), bool),
              rz.score(r_up[:, 0])[:, None].astype(float))
    chance = policy.split_values(upper, lower, rolls, legal, pusc, rivals)[0]
    ending = 0
    for gi, j in zip(*np.nonzero(legal)):
        ended = rz.apply_splits(rules, upper[gi:gi + 1], lower[gi:gi + 1], rolls[gi:gi + 1],
                                np.array([j]), pusc[gi:gi + 1])[2][0]
        ending += ended
        assert chance[gi, j] == pytest.approx(0.5, abs=1e-5), (gi, j, ended)
    assert ending > 20


@pytest.mark.parametrize("ahead", [0, 1])
def test_a_rival_on_the_movers_roll_has_yet_to_split_it_one_a_roll_ahead_has(ahead):
    """On shared rolls the thrower splits first: a rival who has split as many rolls as the
    mover splits this roll too (by the rival policy); one with a roll more has split it."""
    from dicewise.solver.ryzykant.game import split_action
    from dicewise.solver.ryzykant.race import advise_at_table

    rules = rz.RyzykantRules(end_marks=4)
    solution = Solution(RYZYKANT, rules, _Zero(), {}, None, False, 0.0)
    pos, roll, rival = _table_position(1)
    upper = list(pos.upper[::-1])
    upper[0] += 2 * ahead
    rival = rz.Position(tuple(upper), rival.lower)
    assert rival.rolls == pos.rolls + ahead
    advice = advise_at_table(solution, pos, roll, [(rival, False)])
    policy = WinPolicy(rules, _Zero.dense, approx.model_policy(_Zero.dense, rules))
    up, lo = np.array([pos.upper]), np.array([pos.lower])
    legal, pusc = rz.legal_splits(lo, np.array([roll]))
    deep = {}
    for split in (False, True):
        rivals = (np.array([[rival.upper]]), np.array([[rival.lower]]), np.array([[False]]),
                  np.array([[float(rival.score)]]), np.array([[split]]))
        deep[split] = policy.searched_values(up, lo, roll, legal, pusc, rivals)[1]
    assert not np.allclose(deep[False][legal[0]], deep[True][legal[0]])  # it matters here
    slot = {str(split_action(*m.pairs, m.fifth)): m.slot for m in rz.moves(rules, pos, roll)}
    for c in advice.choices:
        assert c.probability == pytest.approx(deep[bool(ahead)][slot[str(c.action)]], abs=1e-12)


def test_advice_is_exact_only_when_every_rival_has_finished():
    """Every split ends the mover's game (end_marks=1); with one rival still playing the
    chances are estimates, each loss with its error, not the exact 1, ½ or 0."""
    from dicewise.solver.ryzykant.race import advise_at_table

    rules = rz.RyzykantRules(end_marks=1)
    solution = Solution(RYZYKANT, rules, _Zero(), {}, None, False, 0.0)
    pos = rz.Position((2, 0, 2, 0, 0, 2, 0, 2, 0, 0, 0), (0,) * 6)
    roll = dice.roll_index(dice.counts_of([1, 3, 4, 5, 6]))
    done = rz.Position((0, 2, 0, 2, 0, 0, 2, 0, 2, 2, 0), (1, 0, 0, 0, 0, 0))
    going = rz.Position((0, 2, 0, 2, 0, 0, 2, 0, 0, 0, 0), (0,) * 6)
    assert all(m.ends for m in rz.moves(rules, pos, roll))
    exact = advise_at_table(solution, pos, roll, [(done, True), (done, True)])
    assert not exact.approximate and all(c.loss_error is None for c in exact.choices)
    mixed = advise_at_table(solution, pos, roll, [(done, True), (going, False)])
    assert mixed.approximate and "exact: every game ends" not in str(mixed.headline)
    assert all(c.loss_error is not None and c.loss_error > 0 for c in mixed.choices[1:])


def test_a_split_that_wins_for_sure_is_no_close_call():
    """The best split ends the game ahead of rivals who have finished: its chance is exactly
    1 and no split's can be more, so its loss_error is 0 and it is no close call, though
    the splits that go on are estimates (each with its error)."""
    from dicewise.solver.ryzykant.race import advise_at_table

    rules = rz.RyzykantRules(end_marks=2)
    solution = Solution(RYZYKANT, rules, _Zero(), {}, None, False, 0.0)
    pos = rz.Position((0, 0, 0, 2, 3, 0, 3, 3, 0, 0, 3), (1, 0, 0, 0, 0, 0))
    done = rz.Position((2, 0, 2, 0, 0, 2, 0, 2, 0, 0, 0), (2, 0, 0, 0, 0, 0))
    assert pos.score > done.score
    roll = dice.roll_index(dice.counts_of([1, 3, 5, 5, 5]))
    advice = advise_at_table(solution, pos, roll, [(done, True), (done, True)])
    best, *others = advice.choices
    assert best.detail["ends_game"] and best.probability == 1.0
    assert best.loss_error == 0.0 and not best.close_call
    assert advice.approximate and all(c.loss_error > 0 for c in others)
    # a rival still playing: every chance is an estimate, the best's error the general one
    going = rz.Position((0, 2, 0, 2, 0, 0, 2, 0, 0, 0, 0), (0,) * 6)
    first, *rest = advise_at_table(solution, pos, roll, [(done, True), (going, False)]).choices
    assert first.loss_error == max([c.loss_error - c.loss for c in rest] + [0.0])


def test_a_rival_whose_game_ended_is_taken_at_the_table():
    # A finished sheet holds the pairs of the roll that ended it as well as its fifth-die
    # mark (RULES.md section 4): every sheet a played game ends with is a rival whose game
    # ended, whichever faces and however many puściochy it used.
    from dicewise.errors import DicewiseError
    from dicewise.solver.ryzykant.race import rival_position

    rng = np.random.default_rng(8)
    for end_marks in (1, 2, 3, 10):
        rules = rz.RyzykantRules(end_marks=end_marks)
        for _ in range(40):
            pos, ended = rz.Position(), False
            while not ended:
                roll = int(rng.integers(0, dice.N_ROLLS))
                moves = rz.moves(rules, pos, roll)
                pos, ended = rz.play(rules, pos, roll, moves[rng.integers(len(moves))].slot)
            assert rival_position(rules, pos.sheet, pos.fifth) == (pos, True)
    ten = rz.RyzykantRules()
    assert rival_position(rz.RyzykantRules(end_marks=2), "7=4", "1=2")[1]
    assert rival_position(ten, "7=56", "1=9,2=9,3=10")[1]         # 28 rolls
    assert rival_position(ten, "7=56,12=2", "1=9,2=9,3=10")[1]    # and a puścioch of 6+6 6+6
    for end_marks, sheet, fifth, words in [
            (10, "7=58", "1=9,2=9,3=10", "puścioch"),   # its pairs cannot be 1+6 or 2+5
            (2, "7=6", "1=2,2=1,3=1", "at most one"),    # four fifth-die marks in three rolls
            (1, "", "1=1", "at most one"),               # no roll ended it
            (10, "7=20", "1=10,2=10", "past the end")]:
        with pytest.raises(DicewiseError, match=words):
            rival_position(rz.RyzykantRules(end_marks=end_marks), sheet, fifth)
