"""Risk solver: published values, brute force with exact fractions, and properties."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dicewise.errors import DicewiseError
from dicewise.solver import risk as rk
from dicewise.solver.risk import cards as rc
from dicewise.solver.risk import markov
from dicewise.solver.risk.chain import search_bound

MINIMAX = rk.Policy(dice="minimax")
#: The rule option of a defender who sees the attacker's dice (played with minimax dice).
SEES = rk.RiskRules(defender_sees_roll=True)

# --------------------------------------------------------------------------- brute force
# Written independently of the solver: every round enumerates the dice themselves.


def _compare(att, dfn, ties):
    att, dfn = sorted(att, reverse=True), sorted(dfn, reverse=True)
    lost_a = lost_d = 0
    for x, y in zip(att, dfn):
        if x > y or (x == y and ties == "attacker"):
            lost_d += 1
        else:
            lost_a += 1
    return lost_a, lost_d


@lru_cache(maxsize=None)
def bf_round(a, d, ties="defender"):
    """{(attacker loss, defender loss): Fraction} by enumerating all 6**(a+d) rolls."""
    rolls = itertools.product(range(1, 7), repeat=a + d)
    out = Counter(_compare(r[:a], r[a:], ties) for r in rolls)
    return {k: Fraction(v, 6 ** (a + d)) for k, v in out.items()}


@lru_cache(maxsize=None)
def bf_end(A, D, ties="defender", ca=3, cd=2):
    """Exact end-state distribution {(A, D): Fraction} of a fight to the end, max dice."""
    if D == 0 or A == 1:
        return {(A, D): Fraction(1)}
    out = Counter()
    for (la, ld), p in bf_round(min(ca, A - 1), min(cd, D), ties).items():
        for state, q in bf_end(A - la, D - ld, ties, ca, cd).items():
            out[state] += p * q
    return dict(out)


def bf_p(A, D, **kw):
    return sum((p for (a, d), p in bf_end(A, D, **kw).items() if d == 0), Fraction(0))


@lru_cache(maxsize=None)
def bf_minimax(A, D, sees=False, objective="conquest", c=Fraction(0)):
    """Exact minimax value: the attacker picks a, the defender (seeing a, or the attacker's
    dice with ``sees``) picks d; with expected-armies the attacker may also stop."""
    if D == 0:
        return Fraction(1) if objective == "conquest" else A + c
    if A == 1:
        return Fraction(0) if objective == "conquest" else Fraction(1 - D)

    def after(la, ld):
        return bf_minimax(A - la, D - ld, sees, objective, c)

    best = None
    for a in range(1, min(3, A - 1) + 1):
        if not sees:
            v = min(sum(p * after(*k) for k, p in bf_round(a, d).items())
                    for d in range(1, min(2, D) + 1))
        else:
            v = Fraction(0)
            for roll in itertools.product(range(1, 7), repeat=a):
                v += Fraction(1, 6 ** a) * min(
                    sum(Fraction(1, 6 ** d) * after(*_compare(roll, dr, "defender"))
                        for dr in itertools.product(range(1, 7), repeat=d))
                    for d in range(1, min(2, D) + 1))
        best = v if best is None else max(best, v)
    if objective == "expected-armies":
        best = max(best, Fraction(A - D))
    return best


# --------------------------------------------------------------------------- rounds


def test_three_v_two_counts_published():
    # OEIS A371949 (comments) and icepool's tests: 3 v 2 = 2890 / 2611 / 2275 of 7776.
    assert rk.round_counts(3, 2) == {(0, 2): 2890, (1, 1): 2611, (2, 0): 2275}


@pytest.mark.parametrize("ties", rk.TIES)
@pytest.mark.parametrize("a,d", [(a, d) for a in (1, 2, 3) for d in (1, 2)])
def test_round_counts_match_brute_force(a, d, ties):
    counts = rk.round_counts(a, d, ties)
    assert sum(counts.values()) == 6 ** (a + d)
    assert {k: Fraction(v, 6 ** (a + d)) for k, v in counts.items()} == bf_round(a, d, ties)


@pytest.mark.parametrize("a,d", [(1, 1), (1, 2), (2, 1), (2, 2)])
def test_round_mirror_symmetry(a, d):
    # Giving ties to the attacker is the mirror image of giving them to the defender.
    flipped = {(j, i): n for (i, j), n in rk.round_counts(d, a, "defender").items()}
    assert rk.round_counts(a, d, "attacker") == flipped


# --------------------------------------------------------------------------- battles

# OEIS A371949: T(n, k) * 7776**-(n+k-1) = P(n attacking armies beat k defenders), max dice,
# ties to the defender; n attacking armies means A = n + 1 on the territory here.
A371949 = [3240, 6415200, 45606240, 12702096000, 170514616320, 430865593920, 25150150080000,
           753411576268800, 2398271752673280, 3552119332387200, 49797297158400000,
           2595785508222566400, 13369373984761528320, 22330692411407861760,
           28155000551019598080]


def _a371949():
    it = iter(A371949)
    for t in range(2, 7):
        for n in range(1, t):
            yield n, t - n, next(it)


@pytest.mark.parametrize("n,k,num", list(_a371949()))
def test_oeis_a371949(n, k, num):
    exact = Fraction(num, 7776 ** (n + k - 1))
    assert bf_p(n + 1, k) == exact
    assert rk.battle(n + 1, k).p_conquer == pytest.approx(float(exact), abs=1e-15)


def test_ten_v_ten_published():
    # 0.47993525647768026: the recreationalmath.com Risk calculator for 10 v 10, quoted in the
    # comments of MATLAB Cody problem 1260; A = 10 armies roll min(3, A - 1) dice.
    b = rk.battle(10, 10)
    assert b.p_conquer == pytest.approx(0.47993525647768026, abs=1e-15)
    assert b.total_probability == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("ties", rk.TIES)
@pytest.mark.parametrize("A,D", [(2, 1), (3, 2), (4, 4), (6, 3), (5, 6), (8, 5)])
def test_battle_matches_brute_force(A, D, ties):
    exact = bf_end(A, D, ties)
    b = rk.battle(A, D, rk.RiskRules(ties=ties))
    for n, p in b.attacker_survivors.items():
        assert p == pytest.approx(float(exact[(n, 0)]), abs=1e-15)
    for n, p in b.defender_survivors.items():
        assert p == pytest.approx(float(exact[(1, n)]), abs=1e-15)
    assert len(b.attacker_survivors) + len(b.defender_survivors) == len(exact)
    lost_a = sum(p * (A - a) for (a, _), p in exact.items())
    lost_d = sum(p * (D - d) for (_, d), p in exact.items())
    assert b.expected_attacker_losses == pytest.approx(float(lost_a), abs=1e-13)
    assert b.expected_defender_losses == pytest.approx(float(lost_d), abs=1e-13)


@pytest.mark.parametrize("ca,cd", [(1, 1), (2, 1), (1, 2), (2, 2), (3, 1)])
@pytest.mark.parametrize("A,D", [(2, 1), (4, 3), (6, 5)])
def test_dice_caps_match_brute_force(A, D, ca, cd):
    # The rule options max_attacker_dice and max_defender_dice.
    rules = rk.RiskRules(max_attacker_dice=ca, max_defender_dice=cd)
    exact = bf_end(A, D, ca=ca, cd=cd)
    b = rk.battle(A, D, rules)
    assert b.p_conquer == pytest.approx(float(bf_p(A, D, ca=ca, cd=cd)), abs=1e-15)
    for n, p in b.attacker_survivors.items():
        assert p == pytest.approx(float(exact[(n, 0)]), abs=1e-15)


@pytest.mark.parametrize("A,D", [(2, 2), (3, 1), (4, 2), (5, 4), (7, 3)])
def test_minimax_matches_brute_force(A, D):
    assert rk.battle(A, D, policy=MINIMAX).p_conquer == pytest.approx(
        float(bf_minimax(A, D)), abs=1e-14)


@pytest.mark.parametrize("A,D", [(2, 2), (3, 2), (4, 3), (5, 2)])
def test_defender_sees_roll_matches_brute_force(A, D):
    b = rk.battle(A, D, SEES, MINIMAX)
    assert b.p_conquer == pytest.approx(float(bf_minimax(A, D, sees=True)), abs=1e-14)
    assert b.total_probability == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("c", [0, 2])
@pytest.mark.parametrize("A,D", [(3, 2), (5, 4), (6, 6), (9, 4)])
def test_expected_armies_matches_brute_force(A, D, c):
    policy = rk.Policy(dice="minimax", objective="expected-armies", exchange_value=c)
    exact = float(bf_minimax(A, D, objective="expected-armies", c=Fraction(c)))
    assert rk.battle(A, D, policy=policy).value == pytest.approx(exact, abs=1e-12)
    assert rk.advise(A, D, policy=policy).value == pytest.approx(exact, abs=1e-12)


def test_large_battles_stay_normalised():
    for policy in (rk.Policy(), rk.Policy(objective="expected-armies")):
        b = rk.battle(1000, 1000, policy=policy)
        assert abs(b.total_probability - 1) < 1e-12
        assert all(p >= 0 for p in b.attacker_survivors.values())
    for rules, policy in ((rk.RiskRules(), MINIMAX), (SEES, MINIMAX),
                          (rk.RiskRules(), rk.Policy(objective="threshold", threshold=0.4))):
        b = rk.battle(150, 170, rules, policy)
        assert abs(b.total_probability - 1) < 1e-12
    # An overwhelming attacker: P(fail) underflows gracefully, never negative or NaN.
    b = rk.battle(1000, 3)
    assert 0 <= 1 - b.p_conquer < 1e-12 and b.p_conquer <= 1.0
    assert all(np.isfinite(p) and p >= 0 for p in b.defender_survivors.values())


def test_threshold_stops_below_the_threshold():
    b = rk.battle(6, 6, policy=rk.Policy(objective="threshold", threshold=0.3))
    p_stop = sum(p for *_, p in b.stopped)
    assert p_stop > 0
    table = rk.conquest_table(6)
    for a, d, _ in b.stopped:
        assert table[a, d] < 0.3
    assert rk.battle(6, 6, policy=rk.Policy(objective="threshold", threshold=0.9)).p_conquer == 0


def test_threshold_goes_on_where_the_chance_equals_the_threshold():
    """Stop only *below* the threshold: 2 v 1 is one round of one die against one, won with
    P = 15/36; a threshold of exactly that chance fights, a hair above it stops at once."""
    p = float(rk.conquest_table(2)[2, 1])
    assert p == pytest.approx(15 / 36, abs=1e-15)
    at = rk.Policy(objective="threshold", threshold=p)
    assert rk.battle(2, 1, policy=at).p_conquer == pytest.approx(15 / 36, abs=1e-15)
    assert rk.advise(2, 1, policy=at).go_on
    above = rk.Policy(objective="threshold", threshold=float(np.nextafter(p, 1.0)))
    assert rk.battle(2, 1, policy=above).p_conquer == 0.0
    assert not rk.advise(2, 1, policy=above).go_on


def test_advise_numbers():
    adv = rk.advise(7, 4)
    assert adv.attacker_dice == 3 and adv.defender_dice == 2 and adv.go_on
    assert adv.value == pytest.approx(float(bf_minimax(7, 4)), abs=1e-14)
    assert [o.attacker_dice for o in adv.options] == [1, 2, 3]
    stop = rk.advise(3, 2, policy=rk.Policy(dice="minimax", objective="expected-armies"))
    assert not stop.go_on and stop.stop_value == 1.0


# --------------------------------------------------------------------------- properties


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(1, 40), st.sampled_from(rk.TIES))
def test_monotone_in_armies(A, D, ties):
    rules = rk.RiskRules(ties=ties)
    p = rk.battle(A, D, rules).p_conquer
    assert rk.battle(A + 1, D, rules).p_conquer >= p - 1e-15
    assert rk.battle(A, D + 1, rules).p_conquer <= p + 1e-15
    if ties == "defender":
        assert rk.battle(A, D, rk.RiskRules(ties="attacker")).p_conquer >= p - 1e-15


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.sampled_from([1, 2]))
def test_swap_sides_symmetry(n, m, dice):
    # With the same dice cap on both sides and ties flipped, the attacker with n usable
    # armies against m is the defender's fight seen from the other side.
    fwd = rk.RiskRules(ties="defender", max_attacker_dice=dice, max_defender_dice=dice)
    back = rk.RiskRules(ties="attacker", max_attacker_dice=dice, max_defender_dice=dice)
    total = rk.battle(n + 1, m, fwd).p_conquer + rk.battle(m + 1, n, back).p_conquer
    assert total == pytest.approx(1.0, abs=1e-13)


def test_conquest_table_matches_battles():
    t = rk.conquest_table(30)
    assert np.isnan(t[0]).all() and (t[1, 1:] == 0).all() and (t[1:, 0] == 1).all()
    for A, D in [(2, 1), (10, 10), (30, 17), (5, 30)]:
        assert t[A, D] == pytest.approx(rk.battle(A, D).p_conquer, abs=1e-14)
    assert (np.diff(t[2:, 1:], axis=0) >= -1e-15).all()  # more attackers never hurt
    assert (np.diff(t[2:, 1:], axis=1) <= 1e-15).all()  # more defenders never help


def test_minimax_orders():
    # For the conquest objective both sides' best dice turn out to be the most dice allowed
    # (a finding, pinned here); a defender who sees the roll can only do better.
    plain = rk.conquest_table(30)
    best = rk.conquest_table(30, policy=MINIMAX)
    sees = rk.conquest_table(30, SEES, MINIMAX)
    assert np.allclose(best[1:], plain[1:], atol=1e-15, rtol=0)
    assert (sees[2:, 1:] <= best[2:, 1:] + 1e-15).all()
    assert sees[10, 10] < 0.37 < 0.47 < best[10, 10]


# --------------------------------------------------------------------------- chains


def test_chain_of_one_is_a_battle():
    c = rk.chain_attack(12, [7])
    assert c.p_all == pytest.approx(rk.battle(12, 7).p_conquer, abs=1e-14)
    assert c.reached[0] == pytest.approx(1 - c.p_all, abs=1e-14)


@pytest.mark.parametrize("garrison", [1, 3])
def test_chain_of_two_composes_battles(garrison):
    A, D1, D2 = 14, 4, 3
    first = bf_end(A, D1)
    p_all = Fraction(0)
    for (a, d), p in first.items():
        if d == 0:
            last_dice = min(3, a - 1)  # max dice: the conquering round rolled this many
            moved = min(max(a - garrison, last_dice), a - 1)
            if moved >= 2:
                p_all += p * bf_p(moved, D2)
    c = rk.chain_attack(A, [D1, D2], garrison=garrison)
    assert c.p_all == pytest.approx(float(p_all), abs=1e-14)
    assert sum(c.reached) == pytest.approx(1.0, abs=1e-13)


def test_min_armies_for_target():
    need, p = rk.min_armies([3, 5, 2], 0.8)
    assert p >= 0.8 and rk.chain_attack(need, [3, 5, 2]).p_all == pytest.approx(p, abs=1e-13)
    assert rk.chain_attack(need - 1, [3, 5, 2]).p_all < 0.8


def test_min_armies_takes_a_chance_equal_to_the_target():
    need, p = rk.min_armies([3, 5, 2], 0.8)
    assert rk.min_armies([3, 5, 2], p) == (need, p)  # "P(all conquered) >= target"


@pytest.mark.parametrize("armies, defenders", [(12, [7]), (5, [4]), (9, [2, 3])])
def test_the_armies_left_on_the_path_are_the_armies_not_lost(armies, defenders):
    """Every army is left somewhere or lost: on a chain of one, what the battle does not lose
    (a failed attack keeps its last army at home); on any chain, between 1 and all of them."""
    c = rk.chain_attack(armies, defenders)
    if len(defenders) == 1:
        b = rk.battle(armies, defenders[0])
        assert c.expected_armies_left == pytest.approx(armies - b.expected_attacker_losses,
                                                       abs=1e-12)
    assert 1.0 <= c.expected_armies_left <= armies


def bf_chain2(A, D, D2, garrison):
    """Exact minimax P(conquer D, then D2) from A armies: brute force over the dice."""

    @lru_cache(maxsize=None)
    def value(A, D):
        if A == 1:
            return Fraction(0)
        best = None
        for a in range(1, min(3, A - 1) + 1):
            def after(la, ld):
                if D - ld == 0:  # conquered with a dice: move in, then the second battle
                    moved = min(max(A - garrison, a), A - 1)
                    return bf_minimax(moved, D2) if moved >= 2 else Fraction(0)
                return value(A - la, D - ld)
            v = min(sum(p * after(*k) for k, p in bf_round(a, d).items())
                    for d in range(1, min(2, D) + 1))
            best = v if best is None else max(best, v)
        return best

    return value(A, D)


def test_a_garrison_above_every_army_moves_the_fewest_even_past_int64():
    # the move-in A - garrison was taken in int64: a garrison of 10**30 overflowed
    for policy in (rk.Policy(), MINIMAX):
        every = rk.chain_attack(10, [3, 2], garrison=10, policy=policy)
        huge = rk.chain_attack(10, [3, 2], garrison=10**30, policy=policy)
        assert huge.reached == every.reached
        assert huge.expected_armies_left == every.expected_armies_left
        assert huge.garrison == 10**30


@pytest.mark.parametrize("A,D,D2,garrison", [(6, 2, 2, 1), (8, 3, 2, 3), (7, 1, 3, 4)])
def test_minimax_chain_matches_brute_force(A, D, D2, garrison):
    c = rk.chain_attack(A, [D, D2], garrison=garrison, policy=MINIMAX)
    assert c.p_all == pytest.approx(float(bf_chain2(A, D, D2, garrison)), abs=1e-14)


@pytest.mark.parametrize("rules", [rk.RiskRules(), SEES])
def test_minimax_chain(rules):
    policy = MINIMAX
    one = rk.chain_attack(9, [5], rules=rules, policy=policy)
    assert one.p_all == pytest.approx(rk.battle(9, 5, rules, policy).p_conquer, abs=1e-14)
    two = rk.chain_attack(15, [4, 3], garrison=2, rules=rules, policy=policy)
    assert sum(two.reached) == pytest.approx(1.0, abs=1e-13)
    need, p = rk.min_armies([4, 3], 0.5, garrison=2, rules=rules, policy=policy)
    assert rk.chain_attack(need, [4, 3], garrison=2, rules=rules,
                           policy=policy).p_all == pytest.approx(p)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("call", [
    lambda: rk.battle(1, 5), lambda: rk.battle(-3, 2), lambda: rk.battle(5, 0),
    lambda: rk.battle(5, -1), lambda: rk.battle(2.5, 3), lambda: rk.battle(40_000, 40_000),
    lambda: rk.battle(10 ** 9, 2), lambda: rk.conquest_table(1), lambda: rk.conquest_table(10 ** 5),
    lambda: rk.Policy(dice="best"), lambda: rk.Policy(objective="glory"),
    lambda: rk.battle(5, 3, SEES), lambda: rk.conquest_table(5, SEES),
    lambda: rk.chain_attack(10, [3], rules=SEES), lambda: rk.Policy(threshold=1.5),
    lambda: rk.RiskRules(ties="nobody"), lambda: rk.RiskRules(max_attacker_dice=4),
    lambda: rk.RiskRules(max_defender_dice=0), lambda: rk.RiskRules(max_attacker_dice=True),
    lambda: rk.RiskRules(defender_sees_roll="yes"), lambda: rk.RiskRules(wild_cards=43),
    lambda: rk.RiskRules(wild_cards=-1), lambda: rk.round_counts(4, 2),
    lambda: rk.chain_attack(10, []), lambda: rk.chain_attack(10, [3, 0]),
    lambda: rk.chain_attack(10, [3], garrison=0), lambda: rk.min_armies([3], 1.0),
    lambda: rk.min_armies([3], 0),
    lambda: rc.set_value(0), lambda: rc.reinforcements(0), lambda: rc.starting_armies(2),
    lambda: rc.parse_hand("iqx"), lambda: rc.card_outlook(0), lambda: rc.p_set_after(-1),
    lambda: rc.card_outlook(3, conquer_prob=1.5),
    lambda: rc.card_outlook(3, hand=rc.parse_hand("iw")),  # no wild card in the deck
])
def test_bad_input_is_refused(call):
    with pytest.raises(DicewiseError):
        call()


def test_wild_cards_in_a_hand_that_the_deck_lacks_are_counted_in_words():
    with pytest.raises(DicewiseError, match="a hand with 1 wild card needs as many in the deck"):
        rc.card_outlook(3, hand=rc.parse_hand("iw"))
    with pytest.raises(DicewiseError, match="a hand with 2 wild cards needs"):
        rc.card_outlook(3, hand=rc.parse_hand("ww"), wild=1)


def test_a_search_too_large_for_memory_says_why(monkeypatch):
    # 5,000 defenders: the most armies that fit against them (1,000 in a memory allowed of
    # half its 10 million states) do not reach 0.5
    import dicewise.solver.risk.chain as chain

    monkeypatch.setattr(chain, "MAX_STATES", 5002 * 1000)
    with pytest.raises(DicewiseError, match=r"P\(all conquered\) >= 0.5 needs more memory "
                                            r"than allowed \(none up to 1,000 reach it\)"):
        rk.min_armies([5000], 0.5)


def test_a_search_that_would_not_fit_from_twice_the_defenders_looks_below_it(monkeypatch):
    """The search solved every army count up to about twice the defenders, and refused
    where that did not fit (`chain 2 2500 --target 0.99`), though the answer, 2,307, did: it
    now searches up to the most armies that fit, and finds what an unlimited search finds."""
    import dicewise.solver.risk.chain as chain

    need, p = rk.min_armies([2, 250], 0.99)
    assert p >= 0.99 > rk.chain_attack(need - 1, [2, 250]).p_all
    monkeypatch.setattr(chain, "MAX_STATES", 252 * (need + 20))  # twice 252 no longer fits
    assert rk.min_armies([2, 250], 0.99) == (need, p)
    monkeypatch.setattr(chain, "MAX_STATES", 252 * (need - 1))  # nor the answer
    with pytest.raises(DicewiseError, match=f"none up to {need - 1} reach it"):
        rk.min_armies([2, 250], 0.99)


# --------------------------------------------------------------------------- cards


def test_set_values_and_reinforcements():
    # The seed: 4, 6, 8, 10, 12, 15, then +5 (the 7th set is 20); max(3, territories div 3).
    assert [rc.set_value(n) for n in range(1, 10)] == [4, 6, 8, 10, 12, 15, 20, 25, 30]
    assert [rc.reinforcements(t) for t in (1, 9, 10, 11, 12, 14, 42)] == [3, 3, 3, 3, 4, 4, 14]
    assert [rc.starting_armies(p) for p in (3, 4, 5, 6)] == [35, 30, 25, 20]


@pytest.mark.parametrize("wild", [0, 2])
@pytest.mark.parametrize("k", range(0, 6))
def test_p_set_after_matches_enumeration(k, wild):
    kinds = {"i": Fraction(14, 42 + wild), "c": Fraction(14, 42 + wild),
             "a": Fraction(14, 42 + wild), "w": Fraction(wild, 42 + wild)}
    total = Fraction(0)
    for seq in itertools.product("icaw", repeat=k):
        p = Fraction(1)
        for x in seq:
            p *= kinds[x]
        n = Counter(seq)
        three_kinds = all(n[x] for x in "ica")
        if p and (max(n[x] for x in "ica") >= 3 or three_kinds or (n["w"] and k >= 3)):
            total += p
    assert rc.p_set_after(k, wild) == total
    if wild == 0 and k in (3, 4):
        assert rc.p_set_after(k) == {3: Fraction(1, 3), 4: Fraction(7, 9)}[k]


def test_card_outlook():
    look = rc.card_outlook(5, sets_traded=5)
    # Turn 4 starts with 3 cards: a set (the 6th of the game, 15 armies) with P = 1/3.
    assert look.per_turn[:3] == (0, 0, 0)
    assert look.per_turn[3] == pytest.approx(15 / 3)
    assert rc.card_outlook(1, 0, rc.parse_hand("ica")).per_turn == (4.0,)
    assert rc.card_outlook(1, 0, rc.parse_hand("iic")).per_turn == (0.0,)
    assert rc.card_outlook(3, 0, conquer_prob=0.0).total == 0.0
    assert rc.card_outlook(2, 7, rc.parse_hand("iw"), wild=1).per_turn[1] == pytest.approx(25.0)


def test_each_set_traded_in_the_outlook_is_worth_the_next_value():
    """iiicc: turn 1 trades iii (the 1st set, 4 armies), leaving cc; the card drawn makes a
    second set at turn 2 only if it is a c (P = 1/3), and that set is the 2nd (6 armies)."""
    look = rc.card_outlook(2, 0, rc.parse_hand("iiicc"))
    assert look.per_turn[0] == 4.0 and look.p_trade == (1.0, pytest.approx(1 / 3))
    assert look.per_turn[1] == pytest.approx(6 / 3)
    assert rc.card_outlook(2, 4, rc.parse_hand("iiicc")).per_turn[1] == pytest.approx(15 / 3)


def test_a_card_report_is_its_pieces():
    r = rk.card_report(4, sets_traded=2, hand="iw", conquer_prob=0.5, wild=2, territories=20,
                       players=4)
    assert r.next_set_values == (8, 10, 12)
    assert r.p_set_after == tuple(rc.p_set_after(k, 2) for k in range(6))
    assert r.outlook == rc.card_outlook(4, 2, (1, 0, 0, 1), 0.5, 2)
    assert (r.reinforcements, r.starting_armies) == (6, 30)
    assert r.expected_armies_total == pytest.approx(6 * 4 + r.outlook.total)
    bare = rk.card_report(3)
    assert (bare.reinforcements, bare.starting_armies, bare.expected_armies_total) == (
        None, None, None)


def _steps_taken(solve) -> int:
    taken = []
    solve(taken.append)
    return sum(taken)


@pytest.mark.parametrize("dice", ["max", "minimax"])
def test_the_progress_steps_announced_are_the_steps_taken(dice):
    policy = rk.Policy(dice=dice)
    assert _steps_taken(lambda p: rk.battle(7, 5, policy=policy, progress=p)) == \
        rk.battle_steps(7, 5, policy)
    assert _steps_taken(lambda p: rk.advise(7, 5, policy=policy, progress=p)) == \
        rk.advise_steps(7, 5)
    assert _steps_taken(lambda p: rk.chain_attack(9, [3, 2, 4], policy=policy, progress=p)) == \
        rk.chain_steps(9, [3, 2, 4])
    assert _steps_taken(lambda p: rk.conquest_table(6, policy=policy, progress=p)) == \
        rk.table_steps(6)
    # the search for the fewest armies: its first bound (no doubling needed here)
    assert _steps_taken(lambda p: rk.min_armies([3, 2], 0.8, policy=policy, progress=p)) == \
        rk.chain_steps(search_bound([3, 2]), [3, 2])
    assert rk.battle_work(7, 5, rk.RiskRules(), policy) == 35 * (1 if dice == "max" else 4)


def test_seeing_defender_without_kept_moves(monkeypatch):
    # Above a memory bound the forward pass re-derives the roll-by-roll replies.
    kept = rk.battle(40, 30, SEES, MINIMAX)
    monkeypatch.setattr(markov, "_KEEP_MOVES", 0)
    again = rk.battle(40, 30, SEES, MINIMAX)
    assert again.p_conquer == pytest.approx(kept.p_conquer, abs=1e-15)
    assert again.attacker_survivors.keys() == kept.attacker_survivors.keys()
    assert again.total_probability == pytest.approx(1.0, abs=1e-13)


# --------------------------------------------------------------------------- the protocol


def test_game_object():
    from dicewise.solver.risk.game import RISK

    assert RISK.name == "risk" and RISK.exact and RISK.commands == frozenset()
    assert RISK.rules({"ties": "attacker", "max_defender_dice": 1}) == rk.RiskRules(
        ties="attacker", max_defender_dice=1)
    assert RISK.rule_options(rk.RiskRules()) == {
        "ties": "defender", "defender_sees_roll": False, "max_attacker_dice": 3,
        "max_defender_dice": 2, "wild_cards": 0}
    assert RISK.parse_options(["ties=attacker", "wild_cards=2"]) == {"ties": "attacker",
                                                                      "wild_cards": 2}
    with pytest.raises(DicewiseError, match="unknown option glory"):
        RISK.rules({"glory": 1})
    for call in (lambda: RISK.table_kind(rk.RiskRules()), lambda: RISK.build(rk.RiskRules()),
                 lambda: RISK.to_arrays(None), lambda: RISK.from_arrays(rk.RiskRules(), {}, {}),
                 lambda: RISK.advise(None, {}), lambda: RISK.play(None, "optimal", 1, 0)):
        with pytest.raises(DicewiseError, match="dicewise risk --help"):
            call()
    assert len(RISK.rules_digest(rk.RiskRules())) == 16


@pytest.mark.parametrize("call", [
    lambda: rk.battle(10, 10, {"ties": "attacker"}),
    lambda: rk.battle(10, 10, "ties=attacker"),
    lambda: rk.battle(10, 10, rk.RiskRules(), "max"),
    lambda: rk.advise(9, 6, {"ties": "attacker"}),
    lambda: rk.conquest_table(5, rk.RiskRules(), "minimax"),
    lambda: rk.chain_attack(20, [3, 5], 1, {"ties": "attacker"}),
    lambda: rk.chain_attack(20, [3, 5], 1, rk.RiskRules(), "max"),
    lambda: rk.min_armies([3, 5], 0.5, 1, "ties=attacker"),
])
def test_rules_or_a_policy_of_another_type_are_refused_in_one_line(call):
    """From Python, rules given as a dict or a text (and a policy as a name) raised an
    AttributeError from deep inside; they are refused as a DicewiseError that names the type."""
    with pytest.raises(DicewiseError, match=r"^(rules takes a RiskRules|policy takes a Policy)"):
        call()
