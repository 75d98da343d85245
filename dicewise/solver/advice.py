"""The advisor: every distinct choice in a position, with its expected final score.

Turn-start values come from the solved table; the decisions within the turn are solved
again for the one state asked about (a single batch of the turn solver).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import DicewiseError
from ..i18n import Message, Number, Plural
from . import dice
from .protocol import Advice, Choice, same_but_for_rounding
from .category import ROLL_NUMBERS, CategoryRules, StateValues, turn_write_values
from .sheet import Sheet
from .turn import solve_turn


def keep_label(kept, rolls_left: int | None = None) -> str:
    """``keep 6 6 (reroll 3; 1 roll left)`` for people."""
    left = "" if rolls_left is None else f"; {rolls_left} roll{'s' * (rolls_left > 1)} left"
    if len(kept) == dice.N_DICE:
        if rolls_left is None or rolls_left < 2:  # before the last roll: the dice are written next
            return "keep all five (reroll none), then write"
        # after roll 1 the dice go to roll 2 as they are, where they may still be rolled
        return f"keep all five (reroll none{left})"
    return f"keep {' '.join(map(str, kept)) or 'nothing'} (reroll {dice.N_DICE - len(kept)}{left})"


def keep_choice(kept, expected: float, loss: float, rolls_left: int,
                probability: float | None = None) -> Choice:
    """Keep ``kept`` and roll the rest, valued."""
    kept = list(kept)
    return Choice({"keep": kept}, keep_label(kept, rolls_left), expected, loss,
                  {"dice": kept, "rolls_left": rolls_left}, probability)


def write_choice(box: str, score, expected: float, loss: float,
                 probability: float | None = None) -> Choice:
    """Write ``score`` in ``box`` (None: cross it out), valued."""
    label = f"cross {box}" if score is None else f"write {box} for {score}"
    detail = {"category": box, "score": score, **({"cross": True} if score is None else {})}
    return Choice({"write": box}, label, expected, loss, detail, probability)


def ranked_choices(writes, keeps, rolls_left: int, *, chances: bool = False) -> tuple[Choice, ...]:
    """The choices of a category-game position, best first: the one ranking of every objective.

    ``writes`` are ``(box, score, value, expected)`` (score None: a cross), ``keeps`` are
    ``(kept faces, value, expected)``.  ``value`` is what is ranked: the expected final score,
    or with ``chances`` the probability played for (P(final ≥ T), P(win) + ½P(draw)), kept as
    the choice's ``probability`` with ``expected`` (the expected final score, or None) beside
    and choices of one chance ranked by it (``ranked_by_chance``).  Ties, and values equal but
    for rounding, keep a fixed order: writes before keeps, writes by box, keeps by their dice
    (keeping all five before the last roll is worth what writing now is, summed otherwise).
    """
    options = sorted([(-v, 0, box, s, e) for box, s, v, e in writes] +
                     [(-v, 1, tuple(kept), None, e) for kept, v, e in keeps], key=lambda o: o[:3])
    if not options:
        return ()
    if not chances:
        options = _runs(options, lambda o: -o[0], lambda run: sorted(run, key=lambda o: o[1:3]))
    best = -options[0][0]
    choices = []
    for neg, kind, key, score, expected in options:
        # a probability, within 1e-15 of [0, 1] by rounding: shown inside it
        chance = min(max(-neg, 0.0), 1.0) if chances else None
        loss = max(best + neg, 0.0)
        choices.append(write_choice(key, score, expected, loss, chance) if kind == 0 else
                       keep_choice(key, expected, loss, rolls_left, chance))
    return ranked_by_chance(choices) if chances else tuple(choices)


def _runs(ordered: list, value, arrange) -> list:
    """``ordered`` (best first by ``value``) with each run of values equal but for rounding
    (``same_but_for_rounding`` with the run's first) put in the order ``arrange`` gives it."""
    out, i = [], 0
    while i < len(ordered):
        j = i + 1
        while j < len(ordered) and same_but_for_rounding(value(ordered[i]), value(ordered[j])):
            j += 1
        out += arrange(ordered[i:j])
        i = j
    return out


def ranked_by_chance(choices) -> tuple[Choice, ...]:
    """Choices that carry a ``probability``, best first: by that chance, and the choices of one
    chance (``same_but_for_rounding``) by their expected final score, highest
    first, in the order given where it is not known.  So where the chance cannot be moved (a
    target out of reach, every chance 0, or certain) the best expected score comes first.
    Each ``loss`` is the first choice's chance minus its own."""
    order = sorted(choices, key=lambda c: -c.probability)  # stable: equal chances as given
    ranked = _runs(order, lambda c: c.probability, lambda run: sorted(
        run, key=lambda c: np.inf if c.expected is None else -c.expected))
    first = ranked[0].probability if ranked else 0.0
    return tuple(replace(c, loss=max(first - c.probability, 0.0)) for c in ranked)


def check_dice(values) -> tuple[int, ...]:
    """Five faces 1..6, sorted, or a DicewiseError (every ruleset's advisor checks dice here)."""
    values = tuple(values)
    if len(values) != dice.N_DICE:
        raise DicewiseError(Message("give exactly five dice, not {n}", n=len(values)))
    bad = [v for v in values
           if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not 1 <= v <= 6]
    if bad:
        raise DicewiseError(Message("a die shows 1..6, not {die}", die=repr(bad[0])))
    return tuple(sorted(int(v) for v in values))


def check_position(game: CategoryRules, sheet: Sheet, faces, roll: int) -> tuple[int, ...]:
    """Refuse impossible positions before any table is needed; returns the sorted dice."""
    faces = check_dice(faces)
    if roll not in ROLL_NUMBERS:
        raise DicewiseError(Message("the roll number is 1, 2 or 3, not {roll}", roll=roll))
    if sheet.mask == (1 << game.n_categories) - 1:
        raise DicewiseError(Message("the sheet is full: the game is over"))
    return faces


def turn_keep_values(game: CategoryRules, values: np.ndarray, sheet: Sheet):
    """The turn at ``sheet`` solved once: each keep's value before roll 2 and before roll 3,
    two (462,) arrays, the points written not included."""
    w = turn_write_values(game, values, np.array([sheet.mask]), np.array([sheet.extra]))
    return tuple(before[:, 0] for before in solve_turn(w, game.first_roll_end()).before_roll)


def advise_position(game: CategoryRules, solved: StateValues, sheet: Sheet, faces, roll: int,
                    keep_values=None) -> Advice:
    """Rank every choice after roll ``roll`` (1..3) with dice ``faces`` on ``sheet``;
    ``keep_values``, ``turn_keep_values`` of that sheet, spares solving its turn again."""
    faces = check_position(game, sheet, faces, roll)
    masks, extras = np.array([sheet.mask]), np.array([sheet.extra])
    values = solved.values
    state_value = sheet.points + float(values[sheet.state(game)])
    r = dice.roll_index(dice.counts_of(faces))
    ends = game.first_roll_end()
    if roll == 1 and ends is not None and not np.isnan(ends[r]):
        return _advice(game, sheet, faces, roll, (), state_value,
                       ended=Message("a first-roll five of a kind ends the game"))
    writes = []
    for c, name in enumerate(game.category_names):
        if (sheet.mask >> c) & 1:
            continue
        w = game.write(c, roll, masks, extras)
        points, bonus, legal, next_extra = (a[0] for a in w.at(np.array([r]), np.array([0]), 1))
        if not legal:
            continue
        nxt = (sheet.mask | (1 << c)) * game.n_extra + int(next_extra)
        score = int(round(points - bonus))
        writes.append((name, score, sheet.points + points + float(values[nxt])))
    keeps = []
    if roll < 3:
        before_next = (keep_values or turn_keep_values(game, values, sheet))[roll - 1]
        for k in dice.sub_keeps(r):
            keeps.append((tuple(dice.faces_of(dice.KEEPS[k])), sheet.points + float(before_next[k])))
    choices = ranked_choices([(n, s, e, e) for n, s, e in writes], [(d, e, e) for d, e in keeps],
                             3 - roll)
    return _advice(game, sheet, faces, roll, choices, state_value)


def _advice(game, sheet: Sheet, faces, roll, choices, state_value, ended=None) -> Advice:
    position = {"sheet": dict(sheet.scores + sheet.counters), "points": sheet.points,
                "roll": roll, "dice": list(faces)}
    headline = Plural("{game}: roll {roll} of 3, dice {dice}; {points} point written, "
                      "{value} expected at turn start",
                      "{game}: roll {roll} of 3, dice {dice}; {points} points written, "
                      "{value} expected at turn start", abs(sheet.points), game=game.name,
                      roll=roll, dice=" ".join(map(str, faces)), points=sheet.points,
                      value=Number(state_value, ".3f"))
    return Advice(game.name, game.options, position, choices, headline, state_value, ended=ended)
