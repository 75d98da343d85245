"""poker-school at a table of 2–4 players: contested prizes, and a policy that races for them.

**The table** (RULES.md §3, *several players*): whole turns in seat order, each player on
dice of their own; a row's premium and a column's 60 go to the first player who earns
them, and at once every other player's premium cell in that row takes a cross that erases
nothing, and the others can no longer earn that column's 60 (``contest.py``: a lost prize
is a row or a column no longer clean).  The sheets are ``turns.Batch``es, one per seat,
played in lockstep with the solitaire turn solver of ``turns``.

**The race-aware policy** (``win``).  The solitaire policy values every premium and column
60 as if nobody else could take it.  This one values a prize by whether it can still be
first: before each turn it hands the evaluator a copy of its sheet on which every prize a
rival is ahead for counts as lost already — a row whose premium some rival with a clean row
needs fewer cells to earn (as few, if that rival moves first from here), a column some
rival with a clean column needs fewer rows to complete.  The turn is then solved exactly on
that view and written on the real sheet; it stops spending turns guarding prizes it will
not get, and crosses there freely.  A rule of thumb, measured (docs/players.md).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...errors import DicewiseError
from .. import dice
from ..turn import solve_turn
from . import contest, turns
from .rules import N_ROWS, PokerSchool
from .turns import Batch, GreedyEvaluator

#: Policies a seat plays.
SEAT_POLICIES = ("win", "optimal", "greedy", "random")
#: Players at a table (RULES.md §3) and the policies only a table plays.
PLAYERS = (2, 3, 4)
POLICIES = ("win",)


def _copy(batch: Batch) -> Batch:
    return Batch(batch.filled.copy(), batch.clean.copy(), batch.reserve.copy(),
                 batch.column_clean.copy(), batch.standing.copy(), batch.banked.copy())


def lost_ahead(game: PokerSchool, batches: list[Batch], seat: int, owners) -> tuple:
    """(rows (G, 15), columns (G, C)) bool: the prizes ``seat`` counts as lost — taken, or
    one a rival is ahead for.  ``owners``: (premium owner (G, 15), column owner (G, C))."""
    me = batches[seat]
    n = len(batches)
    C = game.columns
    row_owner, col_owner = owners
    rows = contest.forfeited(row_owner, seat)
    cols = contest.forfeited(col_owner, seat)
    my_need = np.where(me.clean, C - me.filled, 99)  # cells to a premium
    my_cols = _rows_to_complete(me)
    for k in range(n):
        if k == seat:
            continue
        rival = batches[k]
        need = np.where(rival.clean, C - rival.filled, 99)
        rows |= (need < my_need) & (row_owner == contest.NOBODY)
        cols |= (_rows_to_complete(rival) < my_cols) & (col_owner == contest.NOBODY)
    return rows, cols


def _rows_to_complete(batch: Batch) -> np.ndarray:
    """(G, C) rows still to write in each column before it completes (99: a cross in it)."""
    C = batch.column_clean.shape[1]
    missing = (batch.filled[:, :, None] <= np.arange(C)[None, None, :]).sum(axis=1)
    return np.where(batch.column_clean, missing, 99)


def _turn(game: PokerSchool, batch: Batch, view: Batch, throws, ev) -> None:
    """One turn solved on ``view`` (what the player believes of its prizes), written on
    ``batch`` (as ``turns._play_turn`` with the solved policy)."""
    n = len(batch)
    counts = turns._counts(throws[0])
    options = turns.turn_options(ev, view)
    v = solve_turn(turns.turn_write_values(options))
    e2, e3 = v.before_roll
    done = np.zeros(n, bool)
    final_row = np.zeros(n, np.int64)
    final_scored = np.zeros(n, bool)
    roll_no = np.full(n, 3)
    final_counts = counts
    for k in (1, 2, 3):
        rolls = turns.roll_of_counts(counts)
        w, row, scored = turns.best_writes(options, rolls, k)
        if k < 3:
            kv, keep = turns.best_keeps(e2 if k == 1 else e3, rolls)
            stop = ~done & (w >= kv - 1e-9)
        else:
            stop = ~done
        final_row[stop], final_scored[stop], roll_no[stop] = row[stop], scored[stop], k
        if k < 3:
            if k == 1:
                final_counts = counts.copy()
            final_counts[stop] = counts[stop]
            done |= stop
            counts = np.where(done[:, None], counts,
                              turns.roll_after_keep(dice.KEEPS[keep], throws[k]))
        else:
            final_counts[stop] = counts[stop]
    turns.apply_writes(game, batch, final_row, final_scored, final_counts, roll_no)


def play_table(game: PokerSchool, evaluators, seats: tuple[str, ...], deals: int, seed):
    """Final scores (G, N) of ``deals`` games with policy ``seats[j]`` in seat j, and per
    seat the premiums and column 60s it took (G, N) each."""
    n = len(seats)
    rngs = [np.random.default_rng([*np.atleast_1d(seed), j]) for j in range(n)]
    batches = [Batch.empty(game, deals) for _ in range(n)]
    row_owner = np.full((deals, N_ROWS), contest.NOBODY)
    col_owner = np.full((deals, game.columns), contest.NOBODY)
    for _ in range(game.turns):
        for j, policy in enumerate(seats):
            throws, choice_rng = turns.draw_turn(rngs[j], deals)
            b = batches[j]
            if policy == "win":
                view = _copy(b)
                rows, cols = lost_ahead(game, batches, j, (row_owner, col_owner))
                view.clean &= ~rows
                view.column_clean &= ~cols
                _turn(game, b, view, throws, evaluators[policy])
            else:
                how = {"optimal": "solved", "greedy": "greedy", "random": "random"}[policy]
                turns._play_turn(game, b, throws, choice_rng, how, evaluators.get(policy))
            _settle(game, batches, j, row_owner, col_owner)
    scores = np.stack([b.final_scores() for b in batches], axis=1).astype(np.float64)
    premiums = np.stack([(row_owner == j).sum(axis=1) for j in range(n)], axis=1)
    columns = np.stack([(col_owner == j).sum(axis=1) for j in range(n)], axis=1)
    return scores, premiums, columns


def _settle(game: PokerSchool, batches: list[Batch], seat: int, row_owner, col_owner) -> None:
    """After ``seat`` wrote: it takes the prizes it earned first; the others lose them."""
    me = batches[seat]
    row_owner[:] = contest.claim(row_owner, contest.earned_premiums(me.filled, me.clean,
                                                                     game.columns), seat)
    col_owner[:] = contest.claim(col_owner, contest.completed_columns(me.filled,
                                                                       me.column_clean), seat)
    for k, b in enumerate(batches):
        if k != seat:
            b.clean &= ~contest.forfeited(row_owner, k)
            b.column_clean &= ~contest.forfeited(col_owner, k)


def play_seated(solution, seats: tuple[str, ...], deals: int, seed: int, first_deal: int = 0):
    """``deals`` games at a table of ``len(seats)`` (2..4): a ``multiplayer.seats.Seated``
    with the premiums and column 60s each seat took."""
    from ..multiplayer.seats import Seated

    rules = solution.rules
    evaluators = {}
    for name in set(seats):
        if name not in SEAT_POLICIES:
            raise DicewiseError(f"a poker-school table seats the policies "
                                f"{', '.join(SEAT_POLICIES)}, not {name!r}")
        if name in ("win", "optimal"):
            if solution.payload is None:
                raise DicewiseError(f"the {name} policy needs the solved table")
            evaluators[name] = solution.payload
        elif name == "greedy":
            evaluators[name] = GreedyEvaluator(rules)
    scores, premiums, columns = play_table(rules, evaluators, seats, deals,
                                           [seed, first_deal, len(seats), 0x5C001])
    return Seated(scores, None, {"premiums": premiums, "column_bonuses": columns})
