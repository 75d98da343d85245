"""A solved turn at given positions of play for a target: what advice and the simulator read.

``target_plan`` solves the turn of (state, need) pairs with every keep's chance kept;
``write_chances`` gives the chance of each write after a roll; ``settled`` says where no
choice matters (the target reached for good, or out of reach).
"""

from __future__ import annotations

import numpy as np

from .. import dice
from ..category import CategoryRules
from ..rulesets.decisions import TurnPlan, WriteOptions, write_options
from ..turn import solve_turn
from .kernel import (CHUNK_STATES, Columns, SolvedRows, best_write_values, box_plans, gathers_of,
                     open_gathers, state_batches, turn_moves, workspace_for)
from .values import TargetValues


def settled(values: TargetValues, states, needs) -> np.ndarray:
    """Whether the target is settled at turn start: every play reaches it (need ≤ fewest) or
    none can (need > most), so every choice has the same chance."""
    rows = values.rows(states)
    needs = np.asarray(needs)
    return (needs <= values.fewest[rows]) | (needs > values.most[rows])


def target_plan(game: CategoryRules, values: TargetValues, states: np.ndarray,
                needs: np.ndarray) -> TurnPlan:
    """The solved turn of U (state, need) pairs (needs ≥ 1): the best write's W after each
    roll number (252, U) and every keep's W before rolls 2 and 3 (462, U)."""
    states, needs = np.asarray(states, np.int64), np.asarray(needs, np.int64)
    u = len(states)
    write = [np.empty((dice.N_ROLLS, u)) for _ in range(3)]
    keep = [np.empty((dice.N_KEEPS, u)) for _ in range(2)]
    rows = SolvedRows.of(values)
    ends = game.first_roll_end()
    order = np.lexsort((needs, states))
    uniq, start = np.unique(states[order], return_index=True)
    for lo in range(0, len(uniq), CHUNK_STATES):
        chunk = uniq[lo:lo + CHUNK_STATES]
        masks, extras = np.divmod(chunk, game.n_extra)
        gathers = gathers_of(turn_moves(game, masks, extras), rows, len(chunk))
        first = start[lo]
        last = start[lo + len(chunk)] if lo + len(chunk) < len(uniq) else len(order)
        cols = order[first:last]
        j = np.searchsorted(chunk, states[cols])
        count = np.bincount(j, minlength=len(chunk))
        plan, plan_mask, done = None, -1, 0
        batches = list(state_batches(count, masks))
        ws = workspace_for(gathers, count, batches, values.flat.dtype)
        for a, b in batches:
            n = int(count[a:b].sum())
            sel = cols[done:done + n]
            done += n
            if masks[a] != plan_mask:
                plan, plan_mask = box_plans(open_gathers(gathers, a)), masks[a]
            w = best_write_values(plan, values.flat, Columns.of(j[done - n:done], needs[sel]), ws)
            turn = solve_turn(tuple(x.astype(float) for x in w), ends)
            for target_arr, source in zip(write, w):
                target_arr[:, sel] = source
            for target_arr, source in zip(keep, turn.before_roll):
                target_arr[:, sel] = source
    return TurnPlan(tuple(write), tuple(keep))


def write_chances(game: CategoryRules, values: TargetValues, masks, extras, needs, rolls,
                  roll_number) -> tuple[np.ndarray, WriteOptions]:
    """For G positions (mask, extra, need, roll, roll number): W of writing each box (G,
    n_cat; -inf where not allowed), and the write options (points, scores, next states)."""
    nothing = np.broadcast_to(0.0, (game.n_states,))  # write_options adds no future value
    opts = write_options(game, nothing, np.asarray(masks), np.asarray(extras),
                         np.asarray(rolls), roll_number)
    allowed = np.isfinite(opts.value)
    left = np.asarray(needs)[:, None] - np.rint(opts.points).astype(np.int64)
    w = np.full(left.shape, -np.inf)
    w[allowed] = values.at(opts.next_state[allowed], left[allowed])
    return np.where(allowed, w, -np.inf), opts

