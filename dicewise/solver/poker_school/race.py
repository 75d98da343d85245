"""poker-school at a table of 2–4 players: contested prizes, and a policy that races for them.

**The table** (RULES.md §3, *several players*): whole turns in seat order, each player on
dice of their own; a row's premium and a column's 60 go to the first player who earns
them, and at once every other player's premium cell in that row takes a cross that erases
nothing, and the others can no longer earn that column's 60 (``contest.py``: a lost prize
is a row or a column no longer clean).  The sheets are ``turns.Batch``es, one per seat,
played in lockstep with the solitaire turn solver of ``turns``.

**The race-aware policy** (``win``).  The solitaire policy values every premium and column
60 as if nobody else could take it, and never hurries.  This one races: where a rival
with a clean row is within ``NEAR_ROW`` cells of that row's premium, a score that completes
the player's own row there is worth the premium once more (taking it first also denies it
to that rival), and likewise a write that completes a clean column a rival is within
``NEAR_COLUMN`` rows of is worth another 60.  The turn is otherwise solved exactly by the
solitaire evaluator.  Giving up prizes a rival is closer to (crossing there) was tried and
lost to the solitaire policy (docs/players.md).  A rule of thumb, measured.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...errors import DicewiseError
from ...i18n import Box, Listing, Message, Plural
from .. import dice
from ..protocol import Advice, rival_sheets
from . import contest, turns
from .rules import N_ROWS, N_SCHOOL, ROW_NAMES, PokerSchoolRules
from .turns import Batch, GreedyEvaluator

#: Policies a seat plays.
SEAT_POLICIES = ("win", "optimal", "greedy", "random")
#: Players at a table (RULES.md §3) and the policies only a table plays.
PLAYERS = (2, 3, 4)
POLICIES = ("win",)
#: The race: a completing write is worth BETA × its prize more where a rival is within
#: NEAR_ROW cells of the row's premium (NEAR_COLUMN rows of the column's 60); measured on
#: 1,200 probe games of two players, BETA 0.5 / 1 / 1.5 gave shares 0.624 / 0.630 / 0.617.
BETA = 1.0
NEAR_ROW = 2
NEAR_COLUMN = 3


def _rows_to_complete(batch: Batch) -> np.ndarray:
    """(G, C) rows still to write in each column before it completes (99: a cross in it)."""
    C = batch.column_clean.shape[1]
    missing = (batch.filled[:, :, None] <= np.arange(C)[None, None, :]).sum(axis=1)
    return np.where(batch.column_clean, missing, 99)


def _with_bonus(game, batch, row, roll_number, opt, bonus):
    """``opt`` with ``bonus[0][:, row]`` × the cell's points added to a score that completes
    the row, and ``bonus[1][:, j]`` to one that completes column j."""
    row_bonus, col_bonus = bonus
    C = game.columns
    j = batch.filled[:, row]
    completes = (j == C - 1) & batch.clean[:, row]
    if row < N_SCHOOL:
        points = np.full(opt.score.shape[0], 3.0 * (row + 1))
    else:
        points = turns.free_row_classes(game, row, roll_number)[0].astype(float)
    extra = points[:, None] * (row_bonus[:, row] * completes)[None, :]
    others = np.delete(batch.filled, row, axis=1)
    cell = np.minimum(j, C - 1)
    closes = ((others > cell[:, None]).all(axis=1)
              & batch.column_clean[np.arange(len(j)), cell] & (j < C))
    extra = extra + (60.0 * col_bonus[np.arange(len(j)), cell] * closes)[None, :]
    return replace(opt, score=opt.score + np.where(np.isfinite(opt.score), extra, 0.0))


def race_bonus(game, batches, seat, owners, beta: float = BETA, near_row: int = NEAR_ROW,
               near_col: int = NEAR_COLUMN):
    """(rows (G, 15), columns (G, C)) weights of the race: ``beta`` where a rival with a
    clean row (column) is within ``near_row`` cells (``near_col`` rows) of that prize,
    nobody's yet; 0 elsewhere."""
    row_owner, col_owner = owners
    C = game.columns
    rows = np.zeros(row_owner.shape)
    cols = np.zeros(col_owner.shape)
    for k, rival in enumerate(batches):
        if k == seat:
            continue
        need = np.where(rival.clean, C - rival.filled, 99)
        rows = np.maximum(rows, beta * ((need <= near_row) & (row_owner == contest.NOBODY)))
        theirs = _rows_to_complete(rival)
        cols = np.maximum(cols, beta * ((theirs <= near_col) & (col_owner == contest.NOBODY)))
    return rows, cols


def with_race_bonus(game: PokerSchoolRules, batch: Batch, options, bonus):
    """A turn's options (``turns.turn_options``) with the completing writes worth ``bonus``
    (``race_bonus``) more."""
    return [[None if opt is None else _with_bonus(game, batch, r, k, opt, bonus)
             for r, opt in enumerate(opts)] for k, opts in zip((1, 2), options)]


def _turn(game: PokerSchoolRules, batch: Batch, throws, ev, bonus=None) -> None:
    """One turn of the solved policy (``turns.play_solved_turn``), its completing writes
    worth ``bonus`` more (``race_bonus``)."""
    options = turns.turn_options(ev, batch)
    if bonus is not None:
        options = with_race_bonus(game, batch, options, bonus)
    turns.play_solved_turn(game, batch, throws, options)


def play_table(game: PokerSchoolRules, evaluators, seats: tuple[str, ...], deals: int, seed):
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
                bonus = race_bonus(game, batches, j, (row_owner, col_owner))
                _turn(game, b, throws, evaluators[policy], bonus)
            else:
                how = {"optimal": "solved", "greedy": "greedy", "random": "random"}[policy]
                turns._play_turn(game, b, throws, choice_rng, how, evaluators.get(policy))
            _settle(game, batches, j, row_owner, col_owner)
    scores = np.stack([b.final_scores() for b in batches], axis=1).astype(np.float64)
    premiums = np.stack([(row_owner == j).sum(axis=1) for j in range(n)], axis=1)
    columns = np.stack([(col_owner == j).sum(axis=1) for j in range(n)], axis=1)
    return scores, premiums, columns


def _settle(game: PokerSchoolRules, batches: list[Batch], seat: int, row_owner, col_owner) -> None:
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
            raise DicewiseError(Message("a table of {game} seats the policies {policies}, not "
                                        "{policy!r}", game="poker-school",
                                        policies=", ".join(SEAT_POLICIES), policy=name))
        if name in ("win", "optimal"):
            if solution.payload is None:
                raise DicewiseError(Message("the {policy} policy needs the solved table",
                                            policy=name))
            evaluators[name] = solution.payload
        elif name == "greedy":
            evaluators[name] = GreedyEvaluator(rules)
    scores, premiums, columns = play_table(rules, evaluators, seats, deals,
                                           [seed, first_deal, len(seats), 0x5C001])
    return Seated(scores, None, {"premiums": premiums, "column_bonuses": columns})


# -- advice at a table ---------------------------------------------------------------------

def table_sheets(game: PokerSchoolRules, sheet: str | None, rivals) -> tuple:
    """(my sheet, the rivals' sheets, the prizes' owners: ``contest.Prizes``) of one table:
    each prize a sheet earned is that seat's (seat 0 is the mover), and is lost to the
    others.  DicewiseError for sheets turns in seat order cannot lead to."""
    mine = game.parse_sheet(sheet)
    others = rival_sheets(game.parse_sheet, rivals)
    if not mine.open_rows(game.columns):
        raise DicewiseError(Message("the sheet is full: the game is over"))
    k = sum(mine.filled)
    counts = [sum(o.filled) for o in others]
    if any(c not in (k, k + 1) for c in counts):
        raise DicewiseError(Plural(
            "sheets from different stages of a game: the mover has {k} cell written, the rivals "
            "{counts}; in seat order a rival has {k} (it moves later this round) or {next} (it "
            "moved)",
            "sheets from different stages of a game: the mover has {k} cells written, the rivals "
            "{counts}; in seat order a rival has {k} (it moves later this round) or {next} (it "
            "moved)", k, k=k, counts=", ".join(map(str, counts)), next=k + 1))
    sheets = [mine, *others]
    row_owner = np.full(N_ROWS, contest.NOBODY)
    col_owner = np.full(game.columns, contest.NOBODY)
    for seat, s in enumerate(sheets):
        rows = contest.earned_premiums(s.filled, s.clean, game.columns)
        cols = contest.completed_columns(s.filled, s.column_clean)
        twice = [Box("poker-school", ROW_NAMES[r])
                 for r in np.flatnonzero(rows & (row_owner != contest.NOBODY))]
        twice += [Message("column{n}", n=int(j) + 1)
                  for j in np.flatnonzero(cols & (col_owner != contest.NOBODY))]
        if twice:
            raise DicewiseError(Message("a prize taken twice: {prizes} is earned on two sheets "
                                        "(the first to earn it takes it; the others' sheets say "
                                        "taken=)", prizes=Listing(twice)))
        row_owner = contest.claim(row_owner, rows, seat)
        col_owner = contest.claim(col_owner, cols, seat)
    # A prize a sheet lists as taken (taken=) went to a rival, whose sheet earned it.
    for seat, text in enumerate([sheet, *rivals]):
        _, rows, cols = contest.split_taken(text, game.columns)
        nobodys = [Box("poker-school", ROW_NAMES[r]) for r in rows
                   if row_owner[r] == contest.NOBODY]
        nobodys += [Message("column{n}", n=j + 1) for j in cols
                    if col_owner[j] == contest.NOBODY]
        if nobodys:
            whose = (Message("your sheet") if seat == 0
                     else Message("rival sheet {number}", number=seat))
            raise DicewiseError(Message(
                "{sheet}: taken= lists {prizes}, which no other sheet at the table earned (a "
                "premium needs its row full of scores, a column's 60 the column full without a "
                "cross)", sheet=whose, prizes=Listing(nobodys)))
    owners = contest.Prizes(tuple(int(s) for s in row_owner), tuple(int(s) for s in col_owner))
    sheets = [contest.forfeit(s, *owners.lost_to(seat)) for seat, s in enumerate(sheets)]
    return sheets[0], sheets[1:], owners


def advise_at_table(game: PokerSchoolRules, evaluator, sheet: str | None, rivals, faces,
                    roll: int, error_estimate=None, upper_bound=None) -> Advice:
    """Every choice ranked as the ``win`` policy plays it: the expected final score of the
    sheet with the prizes rivals took lost, plus, for a write that completes a prize a rival
    is near (``race_bonus``), that prize once more.  Approximate."""
    from .advice import TurnAdvice, advise, searched_loss_errors
    from .search import search_evaluator

    mine, others, owners = table_sheets(game, sheet, rivals)
    batches = [Batch.of_sheet(s) for s in (mine, *others)]
    bonus = race_bonus(game, batches, 0, (np.array([owners.premium_owner]),
                                          np.array([owners.column_owner])))
    solitaire = advise(game, evaluator, mine, faces, roll, error_estimate, upper_bound,
                       sheet or "")
    faces = list(solitaire.position["dice"])
    roll_index = dice.roll_index(dice.counts_of(faces))
    searched = evaluator.approximate  # one turn deeper, as the solitaire advice is
    racing = TurnAdvice(game, search_evaluator(evaluator) if searched else evaluator, mine,
                        race_bonus=bonus)
    by_action = {str(c.action): c for c in solitaire.choices}
    ranked = racing.choices(roll_index, roll)
    best = ranked[0].expected
    choices = tuple(replace(by_action[str(c.action)], loss=best - c.expected,
                            detail={**by_action[str(c.action)].detail, "race_value": c.expected})
                    for c in ranked)
    if searched:  # each race loss's error, from how far the search moved it
        table = TurnAdvice(game, evaluator, mine, race_bonus=bonus).choices(roll_index, roll)
        choices = searched_loss_errors(game, mine, choices, table, error_estimate)
    near_rows = [ROW_NAMES[r] for r in np.flatnonzero(bonus[0][0] > 0)]
    near_columns = [j + 1 for j in np.flatnonzero(bonus[1][0] > 0)]
    near = near_rows + [f"column{j}" for j in near_columns]
    players = len(others) + 1
    prizes = Listing([Box(game.name, r) for r in near_rows]
                     + [Message("column{n}", n=j) for j in near_columns])
    headline = Message("{game}, {players} players: roll {roll} of 3, dice {dice}; {points} "
                       "points against {rivals}; ranked by the race value (expected points, a "
                       "prize a rival is near counted twice: {near}; approximate)",
                       game=game.name, players=players, roll=roll,
                       dice=" ".join(map(str, faces)), points=contest.certain_points(mine),
                       rivals=", ".join(str(contest.certain_points(o)) for o in others),
                       near=prizes if near else Message("none near now"))
    position = {**solitaire.position, "players": players, "points": contest.certain_points(mine),
                "opponent_sheets": list(rivals),
                "opponent_points": [contest.certain_points(o) for o in others],
                "prizes": owners.to_json(), "contested": near, "ranked_by": "race_value",
                "expected_score_choice": solitaire.best.action if solitaire.best else None}
    # The race value is a rule of thumb (a prize a rival is near counted twice), and the
    # rivals may still take prizes before the mover's last turn: approximate to the end,
    # even where the solitaire values alone are exact (the last two turns).
    return replace(solitaire, position=position, choices=choices, headline=headline,
                   expected_score_choice=solitaire.best.action if solitaire.best else None,
                   approximate=True, error_estimate=error_estimate, upper_bound=upper_bound)
