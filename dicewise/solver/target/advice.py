"""Reading the table of play for a target: the chance from a sheet, every choice ranked."""

from __future__ import annotations

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message, Number
from .. import dice
from ..advice import check_position, ranked_choices
from ..category import CategoryRules
from ..protocol import Advice
from ..sheet import Sheet
from .decisions import settled, target_plan, write_chances
from .values import TargetValues


def chance(game: CategoryRules, values: TargetValues, mask: int, extra: int, points_written: float,
           target: int) -> float:
    """P(final ≥ target) from the start of the next turn on a sheet (``mask``, ``extra``)
    holding ``points_written``: 1.0 once the target is reached for good (in poker-programs
    the obligatory figures can still lose points)."""
    need = int(np.ceil(target - points_written))
    values.require_target(target)
    w = float(values.at(game.state_index(mask, extra), need))
    if np.isnan(w):
        raise DicewiseError(f"no value for a need of {need} from this sheet in this table")
    return min(max(w, 0.0), 1.0)  # sums of products of chances end 1e-15 past 1 at most


def advise_target(game: CategoryRules, values: TargetValues, sheet: Sheet, faces, roll: int,
                  target: int) -> Advice:
    """Rank every choice after roll ``roll`` with dice ``faces`` on ``sheet`` by P(final ≥
    target): the choices of ``advise_position``, with the same actions and labels, each
    choice's ``probability`` the chance of reaching the target (``expected`` left to the
    caller, which has the expected-score table)."""
    faces = check_position(game, sheet, faces, roll)
    start = chance(game, values, sheet.mask, sheet.extra, sheet.points, target)
    position = {"sheet": dict(sheet.scores + sheet.counters), "points": sheet.points,
                "roll": roll, "dice": list(faces), "target": target}
    headline = Message("{game}: roll {roll} of 3, dice {dice}; {points} points written, "
                       "P(final ≥ {target}) {chance} at turn start", game=game.name, roll=roll,
                       dice=" ".join(map(str, faces)), points=sheet.points, target=target,
                       chance=Number(start, ".6f"))

    def advice(choices=(), ended=None):
        return Advice(game.name, game.options, position, choices, headline, ended=ended,
                      objective="target", turn_start_probability=start)

    r = dice.roll_index(dice.counts_of(faces))
    ends = game.first_roll_end()
    if roll == 1 and ends is not None and not np.isnan(ends[r]):
        return advice(ended=Message("a first-roll five of a kind ends the game"))
    need = int(np.ceil(target - sheet.points))
    chances, opts = write_chances(game, values, np.array([sheet.mask]), np.array([sheet.extra]),
                                  np.array([need]), np.array([r]), roll)
    writes = [(game.category_names[c], int(round(opts.score[0, c])), float(chances[0, c]), None)
              for c in np.flatnonzero(np.isfinite(chances[0]))]
    keeps = []
    if roll < 3:
        state = sheet.state(game)
        if settled(values, state, need):
            before = np.full(dice.N_KEEPS, start)
        else:
            before = target_plan(game, values, np.array([state]), np.array([need])).keep[roll - 1][:, 0]
        keeps = [(dice.faces_of(dice.KEEPS[k]), float(before[k]), None) for k in dice.sub_keeps(r)]
    return advice(ranked_choices(writes, keeps, 3 - roll, chances=True))
