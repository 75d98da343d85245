"""Advice and chances at a table of N players of a category race (General), approximately.

The position is the mover's sheet and every rival's (``--opponent-sheet``, repeatable, in
any order): turns go in seat order, so a rival holds as many boxes as the mover (it moves
after the mover this round) or one more (it moved before).  Every choice is valued by the
win policy's estimate of the share of the win (``win.py``: it plays as if it knew the
rivals' best total, so the estimate runs a little high); ``table_chance`` also plays the
position out, the mover with the win policy and the rivals for the best mean, and reports
that share with its interval.
"""

from __future__ import annotations

import numpy as np

from ...errors import DicewiseError
from ...i18n import Message, Number, Plural
from .. import dice
from ..advice import advise_position, check_position, keep_label
from ..category import CategoryRules, StateValues
from ..protocol import Advice, Choice
from ..sheet import Sheet
from ..stats import share_ci95
from ..turn import solve_turn, turn_start_value
from .category_race import Start, seated_race
from .seats import win_shares
from .win import win_chooser


def check_rival_count(players: int, given: int) -> None:
    """A table of ``players`` needs one rival sheet per other seat: a DicewiseError if not."""
    if given != players - 1:
        raise DicewiseError(Plural(
            "{players} players need {n} rival sheet (--opponent-sheet, once each; \"\" for an "
            "empty one), not {given}",
            "{players} players need {n} rival sheets (--opponent-sheet, once each; \"\" for an "
            "empty one), not {given}",
            players - 1, players=players, n=players - 1, given=given))


def table_position(game: CategoryRules, me: Sheet, rivals: list[Sheet], players: int) -> Start:
    """The seats of a position (the mover's seat first to move), or a DicewiseError for
    sheets that turns in seat order cannot have led to."""
    check_rival_count(players, len(rivals))
    n = game.n_categories
    if me.mask == (1 << n) - 1:
        raise DicewiseError(Message("the sheet is full: the game is over"))
    k = bin(me.mask).count("1")
    counts = [bin(r.mask).count("1") for r in rivals]
    if any(c not in (k, k + 1) for c in counts):
        raise DicewiseError(Plural(
            "sheets from different stages of a game: the mover has {k} box filled, the rivals "
            "{counts}; in seat order a rival has {k} (it moves later this round) or {next} (it "
            "moved)",
            "sheets from different stages of a game: the mover has {k} boxes filled, the rivals "
            "{counts}; in seat order a rival has {k} (it moves later this round) or {next} (it "
            "moved)", k, k=k, counts=", ".join(map(str, counts)), next=k + 1))
    ahead = [r for r, c in zip(rivals, counts) if c == k + 1]  # they moved before the mover
    behind = [r for r, c in zip(rivals, counts) if c == k]
    seats = ahead + [me] + behind
    return Start(tuple(s.mask for s in seats), tuple(s.points for s in seats), len(ahead))


def advise_table(game: CategoryRules, solitaire: StateValues, me: Sheet, rivals: list[Sheet],
                 faces, roll: int, chooser=None) -> Advice:
    """Every choice ranked by the estimated share of the win, the expected score beside
    (``chooser``: a ``win.WinChooser``, by default the one of the whole game)."""
    players = len(rivals) + 1
    start = table_position(game, me, rivals, players)
    faces = check_position(game, me, faces, roll)
    seat = start.to_move
    chooser = chooser or win_chooser(game, solitaire.values)
    masks = np.array([start.masks])
    points = np.array([start.points])
    others = [j for j in range(players) if j != seat]
    vec = chooser.vector_values(masks[:, seat], points[:, seat],
                                *chooser.best_rival(masks[:, others], points[:, others]))
    writes, _ = chooser.turn_writes(vec)
    turn = solve_turn(writes, chooser.first_roll_end)
    r = dice.roll_index(dice.counts_of(faces))
    by_mean = advise_position(game, solitaire, me, faces, roll)
    expected = {str(c.action): c.expected for c in by_mean.choices}
    position = {"players": players, "seat": seat + 1, "sheet": dict(me.scores),
                "points": me.points, "opponent_sheets": [dict(s.scores) for s in rivals],
                "opponent_points": [s.points for s in rivals], "roll": roll, "dice": list(faces)}
    start_share = float(turn.value[0])
    rival_text = ", ".join(str(s.points) for s in rivals)
    # every rival finished: their best total M is known and the turn is solved exactly for it
    finished = all(r.mask == (1 << game.n_categories) - 1 for r in rivals)
    headline = Message("{game}, {players} players, seat {seat}: roll {roll} of 3, dice {dice}; "
                       "{points} points against {rivals}; "
                       + ("share of the win {share} at turn start (every rival finished)"
                          if finished else "estimated share of the win {share} at turn start"),
                       game=game.name, players=players, seat=seat + 1,
                       roll=roll, dice=" ".join(map(str, faces)), points=me.points,
                       rivals=rival_text, share=Number(start_share, ".4f"))
    common = dict(approximate=not finished, objective="win", turn_start_probability=start_share,
                  expected_score_choice=by_mean.best.action if by_mean.best else None)
    if roll == 1 and game.first_roll_end() is not None and not np.isnan(game.first_roll_end()[r]):
        return Advice(game.name, game.options, position, (), headline, by_mean.turn_start_expected,
                      ended=Message("a first-roll five of a kind wins the game at once"), **common)
    rules = chooser.rules
    options = []
    for c in range(game.n_categories):
        if not (me.mask >> c) & 1:
            q = int(rules.points[c, roll - 1, r])
            name = game.category_names[c]
            options.append((float(vec[0, rules.vec_of[roll - 1][r, c]]), 0, name,
                            {"write": name}, f"write {name} for {q}", {"category": name, "score": q}))
    if roll < 3:
        kept = turn.before_roll[roll - 1][:, 0]
        for k in dice.sub_keeps(r):
            held = tuple(dice.faces_of(dice.KEEPS[k]))
            options.append((float(kept[k]), 1, held, {"keep": list(held)},
                            keep_label(held, 3 - roll),
                            {"dice": list(held), "rolls_left": 3 - roll}))
    options.sort(key=lambda o: (-o[0], o[1], o[2]))
    best = options[0][0]
    choices = tuple(Choice(action, label, expected.get(str(action)), best - value, detail,
                           probability=min(1.0, max(0.0, value)))
                    for value, _, _, action, label, detail in options)
    return Advice(game.name, game.options, position, choices, headline,
                  by_mean.turn_start_expected, **common)


def table_chance(game: CategoryRules, solitaire: StateValues, me: Sheet, rivals: list[Sheet],
                 games: int = 2000, seed: int = 0) -> dict:
    """The mover's share of the win from the start of its turn: the win policy's estimate,
    and the share it takes in ``games`` plays of the position against rivals playing for
    the best mean (with its Wilson interval)."""
    players = len(rivals) + 1
    start = table_position(game, me, rivals, players)
    seat = start.to_move
    chooser = win_chooser(game, solitaire.values)
    masks, points = np.array([start.masks]), np.array([start.points])
    others = [j for j in range(players) if j != seat]
    vec = chooser.vector_values(masks[:, seat], points[:, seat],
                                *chooser.best_rival(masks[:, others], points[:, others]))
    estimate = float(turn_start_value(chooser.turn_writes(vec)[0], chooser.first_roll_end)[0])
    seats = tuple("win" if j == seat else "optimal" for j in range(players))
    played = seated_race(game, solitaire.values, seats, games, seed, 0, start)
    share = win_shares(played.scores, played.winner)[:, seat]
    return {"players": players, "seat": seat + 1, "estimate": min(1.0, estimate),
            "simulated": float(share.mean()), "simulated_ci95": list(share_ci95(share)),
            "games": games, "seed": seed}
