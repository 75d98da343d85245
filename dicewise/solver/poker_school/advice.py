"""The poker-school advisor: every distinct choice after a roll, ranked by expected final score.

The sheet's value after each write comes from an evaluator (the exact one-column table or
the approximate policy's weights); the turn itself is solved exactly for the one sheet
asked about (``TurnAdvice``), so keeps and stopping are optimal against those values.

Each choice carries its agent-protocol action: ``{"keep": [faces]}`` (roll the other dice
again; after rolls 1 and 2), ``{"write": row}`` (score the row's next cell; only where the
dice qualify) or ``{"cross": row}`` (cross it; any open row, any time).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message, Number, Plural
from .. import dice
from ..advice import check_dice, keep_choice
from ..protocol import Advice, Choice, with_loss_errors
from ..turn import solve_turn
from .rules import N_SCHOOL, ROW_NAMES, PokerSchoolRules, SheetState
from .search import search_evaluator
from .turns import Batch, Evaluator, turn_options, turn_write_values

#: ``loss_error`` = LOSS_ERROR_SCALE × |the search's change of the loss| + LOSS_ERROR_SLOPE ×
#: the loss + a floor: (the table's error estimate) × (the share of the game's turns left) ×
#: LOSS_ERROR_KEEP_FLOOR where the choice and the best are both keeps (their values are
#: averages over the dice still to come, and their errors much smaller), else
#: LOSS_ERROR_FLOOR.  Set on the full game against the losses rollouts of the table's policy
#: measure, and checked on the exactly solved one-column game (docs/poker-school.md).
LOSS_ERROR_SCALE = 2.0
LOSS_ERROR_SLOPE = 0.4
LOSS_ERROR_FLOOR = 2.0
LOSS_ERROR_KEEP_FLOOR = 1.0


def keep_against_keep(choice: Choice, best: Choice) -> bool:
    """Whether a choice and the best are both keeps (``loss_error``'s smaller floor)."""
    return "keep" in choice.action and "keep" in best.action


def loss_error_floor(error_estimate: float, share: float):
    """The floor of ``loss_error`` for a choice against the best (``protocol.with_loss_errors``)."""
    def floor(choice: Choice, best: Choice) -> float:
        scale = LOSS_ERROR_KEEP_FLOOR if keep_against_keep(choice, best) else LOSS_ERROR_FLOOR
        return scale * error_estimate * share
    return floor


def defers_the_final_choice(choice: Choice) -> bool:
    """Whether ``choice`` keeps all five dice after roll 2: roll 3 then shows the same dice,
    so it makes the turn's best write or cross there, for the same points (a free row
    scores double on roll 1 only)."""
    return len(choice.action.get("keep", ())) == 5 and choice.detail.get("rolls_left") == 1


def searched_loss_errors(game: PokerSchoolRules, sheet: SheetState, searched, table,
                         error_estimate: float | None) -> tuple[Choice, ...]:
    """The ``searched`` choices (best first) with ``loss_error`` from how far the search moved
    each loss against ``table``'s, the same choices valued without it (constants above).

    Keeping all five after roll 2 is the best write or cross played a roll later
    (``defers_the_final_choice``): it carries that choice's error (none where that choice
    is the best), and does not make the best a close call.
    """
    share = (game.turns - sum(sheet.filled)) / game.turns
    floor = loss_error_floor(error_estimate or 0.0, share)
    stop = next((c for c in searched if defers_the_final_choice(c)), None)
    if stop is None:
        return with_loss_errors(searched, table, LOSS_ERROR_SCALE, floor, LOSS_ERROR_SLOPE)
    rated = with_loss_errors(tuple(c for c in searched if c is not stop),
                             tuple(c for c in table if c.action != stop.action),
                             LOSS_ERROR_SCALE, floor, LOSS_ERROR_SLOPE)
    # by the loss, which is of what is ranked (at a table, the race value)
    final = min((c for c in rated if "keep" not in c.action), key=lambda c: c.loss)
    at = searched.index(stop)
    return (rated[:at] + (replace(stop, loss_error=0.0 if final is rated[0] else final.loss_error),)
            + rated[at:])


def write_choice(row: str, score: int | None, expected: float, loss: float,
                 dominated: bool = False) -> Choice:
    """Score ``score`` in the next cell of ``row`` (None: cross it), valued.

    ``dominated``: a cross that the write of the same row provably beats (the write keeps
    the reserve): its detail names that write as ``dominated_by``, and it is never a close
    call, whatever the error of its loss.
    """
    if score is None:
        return Choice({"cross": row}, f"cross {row}", expected, loss,
                      {"category": row, "score": None, "cross": True,
                       **({"dominated_by": {"write": row}} if dominated else {})})
    return Choice({"write": row}, f"write {row} for {score}", expected, loss,
                  {"category": row, "score": score})


class TurnAdvice:
    """The solved turn of one sheet: the value of every choice after any roll of the turn."""

    def __init__(self, game: PokerSchoolRules, evaluator: Evaluator, sheet: SheetState,
                 race_bonus=None):
        if not sheet.open_rows(game.columns):
            raise DicewiseError(Message("the sheet is full: the game is over"))
        self.game, self.sheet = game, sheet
        batch = Batch.of_sheet(sheet)
        self.options = turn_options(evaluator, batch)
        if race_bonus is not None:  # at a table: the prizes rivals are near (race.race_bonus)
            from .race import with_race_bonus

            self.options = with_race_bonus(game, batch, self.options, race_bonus)
        turn = solve_turn(turn_write_values(self.options))
        self.base = float(evaluator.base(batch)[0])
        #: Expected final score at the start of the turn.
        self.start = self.base + float(turn.value[0])
        self.keep_values = tuple(b[:, 0] for b in turn.before_roll)

    def choices(self, roll: int, roll_number: int) -> tuple[Choice, ...]:
        """Every distinct choice with roll index ``roll`` after roll ``roll_number``, best first.

        Exact ties keep the order the simulator's policy prefers (writes before keeps, rows
        in order, a score before a cross, keeps in ``dice.sub_keeps`` order), so the best
        choice is the one ``turns.play`` makes.
        """
        game = self.game
        ranked = []
        for row, opt in enumerate(self.options[0 if roll_number == 1 else 1]):
            if opt is None:
                continue
            value = float(opt.score[opt.roll_class[roll], 0])
            # A write that keeps the reserve dominates the cross (docs/poker-school.md).
            dominated = np.isfinite(value) and (row >= N_SCHOOL or dice.ROLLS[roll, row] >= 3)
            if np.isfinite(value):
                points = (3 * (row + 1) if row < N_SCHOOL
                          else int(game.base_points[row, roll_number - 1, roll]))
                ranked.append((self.base + value, ROW_NAMES[row], points, False))
            ranked.append((self.base + float(opt.cross[0]), ROW_NAMES[row], None, dominated))
        keeps = []
        if roll_number < 3:
            values = self.keep_values[roll_number - 1]
            keeps = [(self.base + float(values[k]), dice.faces_of(dice.KEEPS[k]))
                     for k in dice.sub_keeps(roll)]
        best = max(v for v, *_ in ranked + keeps)
        out = [write_choice(row, points, v, best - v, dominated)
               for v, row, points, dominated in ranked]
        out += [keep_choice(kept, v, best - v, 3 - roll_number) for v, kept in keeps]
        if roll_number == 1:  # keeping all five: roll 2 offers the same choices, none better
            out = [replace(c, detail={**c.detail, "never_best": True})
                   if len(c.action.get("keep", ())) == dice.N_DICE else c for c in out]
        # Rounded for the order: a tie is not broken by the last bits of two sums.
        return tuple(sorted(out, key=lambda c: -round(c.expected, 9)))


@lru_cache(maxsize=4)
def turn_advice(game: PokerSchoolRules, evaluator: Evaluator, sheet: SheetState) -> TurnAdvice:
    """``TurnAdvice`` memoised: the decisions of one turn share its solve."""
    return TurnAdvice(game, evaluator, sheet)


def check_roll(roll) -> int:
    if roll not in (1, 2, 3) or isinstance(roll, bool):
        raise DicewiseError(Message("the roll number is 1, 2 or 3, not {roll}", roll=roll))
    return int(roll)


def advise(game: PokerSchoolRules, evaluator: Evaluator, sheet: SheetState, dice_shown, roll: int,
           error_estimate: float | None = None, upper_bound: float | None = None,
           sheet_text: str = "", search: bool = True) -> Advice:
    """Every distinct choice with ``dice_shown`` after roll ``roll`` (1..3) of a turn.

    Approximate values are searched one turn deeper (``search.SearchEvaluator``) unless
    ``search`` is false, and each choice carries its ``loss_error`` (``with_loss_errors``);
    where the search (or the table) reaches the end of the game they are exact.
    """
    roll = check_roll(roll)
    faces = check_dice(dice_shown)
    roll_index = dice.roll_index(dice.counts_of(faces))
    # A full sheet is valued by the rules, so the table's values are exact in the last turn
    # and the search's (one turn deeper) in the last two.
    turns_left = game.turns - sum(sheet.filled)
    approximate = evaluator.approximate and turns_left > (2 if search else 1)
    table = turn_advice(game, evaluator, sheet)
    choices = table.choices(roll_index, roll)
    turn = table
    if evaluator.approximate and search:
        turn = turn_advice(game, search_evaluator(evaluator), sheet)
        choices = turn.choices(roll_index, roll)
        if approximate:
            choices = searched_loss_errors(game, sheet, choices, table.choices(roll_index, roll),
                                           error_estimate)
    # How sure the values are (exact, approximate, the error, the bound) is the values
    # line's; the headline says only how they were found.
    forms = ("{game}: roll {roll} of 3, dice {dice}; {points} point written, "
             "{value} expected at turn start",
             "{game}: roll {roll} of 3, dice {dice}; {points} points written, "
             "{value} expected at turn start")
    how = {}
    if search and approximate:
        forms = tuple(f + " ({values})" for f in forms)
        how = {"values": Message("searched one turn deep")}
    headline = Plural(*forms, abs(sheet.points), game=game.name, roll=roll,
                      dice=" ".join(map(str, faces)), points=sheet.points,
                      value=Number(turn.start, ".3f"), **how)
    position = {"dice": list(faces), "roll": roll, "sheet": sheet_text, "points": sheet.points}
    return Advice(game.name, game.options, position, choices, headline, turn.start,
                  approximate=approximate,
                  error_estimate=error_estimate if approximate else None,
                  upper_bound=upper_bound if approximate else None)
