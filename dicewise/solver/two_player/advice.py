"""Two-player advice: every choice of a position ranked by the mover's chance to win.

A choice's value is P(win) + ½·P(draw) when it is taken and both players play to win
afterwards.  Beside each choice stands its expected final score under expected-score
play (the solitaire solution), and the advice names the choice that play would make, so
a player sees what chasing points instead of the win costs here.
"""

from __future__ import annotations

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message, Number
from .. import dice
from ..advice import check_dice, ranked_choices
from ..category import ROLL_NUMBERS, StateValues, turn_write_values
from ..protocol import Advice
from ..sheet import Sheet
from ..turn import solve_turn
from .layers import (expected_score_policy, make_columns, solve_batch, write_vector_index,
                     write_vectors)
from .space import TwoPlayerValues, check_pair, two_player_rules


def seat_of(n: int, sheet: Sheet, opponent: Sheet) -> str:
    """Which player moves with these sheets (a DicewiseError if turns cannot have led here)."""
    check_pair(n, sheet.mask, opponent.mask)
    if sheet.mask == (1 << n) - 1:
        raise DicewiseError(Message("the sheet is full: the game is over"))
    return "first" if bin(sheet.mask).count("1") == bin(opponent.mask).count("1") else "second"


def chance(values: TwoPlayerValues, sheet: Sheet, opponent: Sheet) -> float:
    """The mover's P(win) + ½P(draw) at the start of a turn, both playing to win."""
    seat_of(values.layout.n, sheet, opponent)
    return values.value(sheet.mask, opponent.mask, sheet.points - opponent.points)


def _solitaire_expected(game, solitaire: StateValues, sheet: Sheet, r: int, roll: int):
    """Expected final score of every write and keep under expected-score play."""
    values = solitaire.values
    writes = {c: sheet.points + float(game.base_points[c, roll - 1, r] + values[sheet.mask | (1 << c)])
              for c in range(game.n_categories) if not (sheet.mask >> c) & 1}
    keeps = {}
    if roll < 3:
        w = turn_write_values(game, values, np.array([sheet.mask]), np.array([0]))
        kept = solve_turn(w, game.first_roll_end()).before_roll[roll - 1][:, 0]
        keeps = {int(k): sheet.points + float(kept[k]) for k in dice.sub_keeps(r)}
    return writes, keeps


def advise_two_player(values: TwoPlayerValues, sheet: Sheet, opponent: Sheet, faces, roll: int,
                      solitaire: StateValues | None = None) -> Advice:
    """Rank every choice after roll ``roll`` with dice ``faces``; ``sheet`` is the mover's.

    ``values`` must hold the position (the full table, or ``solve_subgame`` from these
    sheets or earlier ones).  With ``solitaire`` (the game's solved ``StateValues``) each
    choice also carries its expected final score, and the choice expected-score play makes
    (the ``ExpectedPolicy`` of duels) is named.
    """
    game, layout = values.game, values.layout
    rules = two_player_rules(game)
    faces = check_dice(faces)
    if roll not in ROLL_NUMBERS:
        raise DicewiseError(Message("the roll number is 1, 2 or 3, not {roll}", roll=roll))
    seat = seat_of(layout.n, sheet, opponent)
    m, o, d = sheet.mask, opponent.mask, sheet.points - opponent.points
    turn_start = values.value(m, o, d)
    r = dice.roll_index(dice.counts_of(faces))
    position = {"players": 2, "sheet": dict(sheet.scores), "opponent_sheet": dict(opponent.scores),
                "points": sheet.points, "opponent_points": opponent.points, "seat": seat,
                "roll": roll, "dice": list(faces)}
    headline = Message("{game}, two players: the {seat} player's roll {roll} of 3, dice {dice}; "
                       "{points} points against {rival}, P(win) + ½P(draw) {chance} at turn "
                       "start", game=game.name, seat=Message(seat), roll=roll,
                       dice=" ".join(map(str, faces)), points=sheet.points,
                       rival=opponent.points, chance=Number(turn_start, ".4f"))

    def advice(choices=(), pick=None, ended=None):
        return Advice(game.name, game.options, position, tuple(choices), headline, ended=ended,
                      objective="win", turn_start_probability=turn_start,
                      expected_score_choice=pick)

    if roll == 1 and rules.ends[r]:
        return advice(ended=Message("a first-roll five of a kind wins the game at once"))
    p = layout.pair(m, o)
    t = bin(m).count("1") + bin(o).count("1")
    nxt = values.values[layout.layer_values(t + 1)]
    base = int(layout.offset[layout.layer_start[t + 1]])
    d = min(max(d, int(layout.lo[p])), int(layout.lo[p] + layout.width[p] - 1))
    cols = make_columns(layout, np.array([p]), np.array([0]), np.array([d]))
    idx = write_vector_index(rules, layout, cols, base)
    u = write_vectors(nxt, idx, rules, cols)
    exp_writes, exp_keeps = ({}, {}) if solitaire is None else _solitaire_expected(
        game, solitaire, sheet, r, roll)
    writes = [(game.category_names[c], int(rules.points[c, roll - 1, r]),
               float(u[rules.vec_of[roll - 1][r, c], 0]), exp_writes.get(c)) for c in cols.open_boxes]
    keeps = []
    if roll < 3:
        kept = solve_batch(rules, layout, nxt, base, None, True, cols, idx).keep[roll - 1][:, 0]
        keeps = [(dice.faces_of(dice.KEEPS[k]), float(kept[k]), exp_keeps.get(int(k)))
                 for k in dice.sub_keeps(r)]
    choices = ranked_choices(writes, keeps, 3 - roll, chances=True)
    pick = None
    if solitaire is not None:
        policy = expected_score_policy(rules, solitaire.values, [m])
        keep = int(policy.keep[roll - 1][m, r]) if roll < 3 else -1
        pick = ({"keep": dice.faces_of(dice.KEEPS[keep])} if keep >= 0 else
                {"write": game.category_names[int(policy.box[roll - 1][m, r])]})
    return advice(choices, pick)
