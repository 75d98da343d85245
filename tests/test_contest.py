"""poker-school's contested premiums and column 60s (RULES.md section 3, several players).

The pure functions of ``contest`` are checked against a reference that reads the rule
literally over a whole table's history of writes: the first player whose write completes a
row with three scores takes its premium, the first to fill a column without a cross takes
its 60, and a premium counts for its owner unless a later School cross of theirs erased it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dicewise.errors import DicewiseError
from dicewise.solver.poker_school import contest
from dicewise.solver.poker_school.contest import NOBODY, Prizes
from dicewise.solver.poker_school.rules import N_ROWS, N_SCHOOL, ROW_INDEX, PokerSchoolRules


def random_table(game: PokerSchoolRules, players: int, rng) -> list[tuple]:
    """A whole game's writes in seat order: (seat, row, score or None, dice shown)."""
    sheets = [game.empty() for _ in range(players)]
    out = []
    for _ in range(game.turns):
        for seat in range(players):
            row = int(rng.choice(sheets[seat].open_rows(game.columns)))
            if rng.random() < 0.15:
                score, shown = None, None
            elif row < N_SCHOOL:
                shown = int(rng.integers(3, 6))
                score = 3 * (row + 1)
            else:
                score, shown = int(rng.choice(sorted(game.cell_scores(row)))), None
            sheets[seat] = game.apply(sheets[seat], row, score, shown)
            out.append((seat, row, score, shown))
    return out


def reference_scores(game: PokerSchoolRules, players: int, writes) -> tuple[list[int], dict, dict]:
    """Final scores, premium owners and column owners, by the rule's words."""
    cells = [[[] for _ in range(N_ROWS)] for _ in range(players)]
    premium_owner, column_owner = {}, {}
    earned_at = [dict() for _ in range(players)]  # row -> time earned (by its owner)
    school_crosses = [[] for _ in range(players)]
    points = [0] * players
    for t, (seat, row, score, _) in enumerate(writes):
        cells[seat][row].append(score)
        if score is None:
            if row < N_SCHOOL:
                school_crosses[seat].append(t)
        else:
            points[seat] += score
        if len(cells[seat][row]) == game.columns and None not in cells[seat][row]:
            if row not in premium_owner:
                premium_owner[row] = seat
                earned_at[seat][row] = t
        for j in range(game.columns):
            column = [cells[seat][r][j] if len(cells[seat][r]) > j else "open"
                      for r in range(N_ROWS)]
            if j not in column_owner and "open" not in column and None not in column:
                column_owner[j] = seat
    for seat in range(players):
        for row, t in earned_at[seat].items():
            erased = game.school_cross_erases and any(c > t for c in school_crosses[seat])
            if not erased:
                points[seat] += cells[seat][row][-1]
        points[seat] += 60 * sum(1 for s in column_owner.values() if s == seat)
    return points, premium_owner, column_owner


def play_with_contest(game: PokerSchoolRules, players: int, writes):
    sheets = [game.empty() for _ in range(players)]
    prizes = Prizes.none(game.columns)
    for seat, row, score, shown in writes:
        sheets[seat] = game.apply(sheets[seat], row, score, shown)
        sheets, prizes = contest.settle(sheets, prizes, seat, game.columns)
    return sheets, prizes


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4), columns=st.integers(1, 2),
       erases=st.booleans())
def test_settle_matches_the_rule_read_literally(seed, players, columns, erases):
    game = PokerSchoolRules(columns=columns, school_cross_erases=erases)
    writes = random_table(game, players, np.random.default_rng(seed))
    sheets, prizes = play_with_contest(game, players, writes)
    expected, premium_owner, column_owner = reference_scores(game, players, writes)
    assert [game.final_score(s) for s in sheets] == expected
    assert {r: s for r, s in enumerate(prizes.premium_owner) if s != NOBODY} == premium_owner
    assert {j: s for j, s in enumerate(prizes.column_owner) if s != NOBODY} == column_owner


def test_a_premium_goes_to_the_first_and_the_others_cross_erases_nothing():
    game = PokerSchoolRules(columns=1)
    a, b = game.empty(), game.empty()
    a = game.apply(a, ROW_INDEX["pair"], 12)
    b = game.apply(b, ROW_INDEX["fives"], 15, 3)  # b's School premium stands
    (a, b), prizes = contest.settle([a, b], Prizes.none(1), 0, 1)
    assert prizes.premium_owner[ROW_INDEX["pair"]] == 0
    assert a.points == 24 and b.points == 30
    b = game.apply(b, ROW_INDEX["pair"], 12)  # too late: the premium cell is crossed
    (a, b), prizes = contest.settle([a, b], prizes, 1, 1)
    assert b.points == 30 + 12  # the pair's cell, no premium, and fives' premium still stands
    assert b.column_clean == (True,)  # the premium's cross is no cross in the column
    assert prizes.premium_owner[ROW_INDEX["fives"]] == 1
    assert prizes.to_json() == {"premiums": {"fives": 1, "pair": 0}, "columns": {}}


def test_batched_claims_match_one_table_at_a_time():
    rng = np.random.default_rng(5)
    owner = rng.integers(-1, 3, size=(7, N_ROWS))
    earned = rng.random((7, N_ROWS)) < 0.3
    seats = rng.integers(0, 3, size=7)
    batch = contest.claim(owner, earned, seats)
    for g in range(7):
        np.testing.assert_array_equal(batch[g], contest.claim(owner[g], earned[g], int(seats[g])))
        np.testing.assert_array_equal(contest.forfeited(batch, seats)[g],
                                      contest.forfeited(batch[g], int(seats[g])))
    filled = np.full((2, N_ROWS), 2)
    filled[1, 3] = 1
    np.testing.assert_array_equal(contest.completed_columns(filled, [[True, False, True]] * 2),
                                  [[True, False, False], [True, False, False]])


def test_taken_prizes_read_back_from_the_sheet_notation():
    game = PokerSchoolRules()
    sheet = game.parse_sheet("pair=12/12/12,fives=15/15," + contest.taken_entry({6, 4}, {1}))
    assert sheet.points == 36 + 30  # the pair's premium was taken: cells only
    assert not sheet.clean[ROW_INDEX["pair"]] and not sheet.clean[ROW_INDEX["fives"]]
    assert sheet.column_clean == (True, False, True)
    assert contest.taken_entry({6, 4}, {1}) == "taken=fives/pair/column2"
    assert contest.split_taken("pair=12,taken=pair", 3) == ("pair=12", (6,), ())
    with pytest.raises(DicewiseError, match="no column4"):
        game.parse_sheet("taken=column4")
    with pytest.raises(DicewiseError, match="neither a row"):
        game.parse_sheet("taken=pairs")
    # A premium rivals took is not the player's, and is said so (not "the row has a cross").
    with pytest.raises(DicewiseError, match=r"cannot exist \(rivals took it\)"):
        game.parse_sheet("pair=12/12/12/12,taken=pair")
    # A School row rivals took has no cross, so it erased no premium: an erased premium
    # still needs a School cross of the player's own.
    with pytest.raises(DicewiseError, match="an erased premium needs a School cross"):
        game.parse_sheet("pair=12/12/12/x,taken=fives")
    assert game.parse_sheet("pair=12/12/12/x,fives=15/x,taken=fives").points == 36 + 15
    # A second taken= entry would silently replace the first.
    with pytest.raises(DicewiseError, match="taken= given twice"):
        game.parse_sheet("pair=12,taken=fives,taken=pair")
