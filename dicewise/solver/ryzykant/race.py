"""Ryzykant on shared rolls: every player splits the same rolls (RULES.md §4), and a policy
that plays to finish ahead.

**The table.**  N players play one stream of rolls in lockstep; a player whose game has
ended stops splitting while the others go on.  Roll t of game d depends on the seed, d and
t only (one roll per game at every step, as ``approx.play_games`` draws them), so every
seat of a game meets the same rolls.  Identical policies on identical sheets split alike
and tie.

**The win policy.**  On a roll it knows every rival's sheet and, rivals playing for the
best mean, what each of them splits.  For each of its legal splits it looks one roll ahead
exactly: over the 252 next rolls (shared with the rivals) its best split then by the
fitted value V against the best rival's, a margin D(r), and it takes the split of largest

    Σ_r P(r) · Φ(D(r) / σ),     σ = SPREAD · √(rolls likely left),

the chance to finish ahead if what V cannot see yet (the rolls after the next) adds a
normal spread that grows with the game's length.  Early, σ is large and Φ nearly linear:
it plays for the mean like its rivals.  Late, Φ is a step: a player behind takes the
split that most often overtakes, a player ahead the one that most often stays ahead.
The rivals being those of expected-score play, it is approximate and measured
(docs/players.md).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...errors import DicewiseError
from ...i18n import Listing, Message, Number
from .. import dice
from ..protocol import Advice, Choice, with_loss_errors
from . import approx
from .rules import RyzykantRules, apply_splits, legal_splits, score

#: σ per √(roll left) of the margin V cannot see yet (points); set by the measured duel.
SPREAD = 1000.0
#: How strongly an equal chance is broken toward the better expected score.
TIE_BREAK = 1e-9
#: ``loss_error`` of advice at a table, in chance: LOSS_ERROR_SCALE × |how far the second roll
#: of search moved the loss| + LOSS_ERROR_FLOOR, set against each split's share of the win
#: measured by continuations of the duel's play (docs/ryzykant.md).
LOSS_ERROR_SCALE = 3.0
LOSS_ERROR_FLOOR = 0.05


def _phi(x: np.ndarray) -> np.ndarray:
    from scipy.special import ndtr

    return ndtr(x)


def ahead_of_all(z: np.ndarray) -> np.ndarray:
    """The chance to finish ahead of every rival, from the margins over each, (R, ...) in
    units of σ, the spread of a margin the fitted value cannot see yet.

    That spread is the player's own unseen points less the rival's, each normal with
    variance σ²/2, so with one rival the chance is Φ(z). With more, the rivals' best final
    total, a maximum of normals, is taken as normal with the mean and variance of Clark's
    formulas (folded one rival at a time): R equal rivals at z = 0 give about 1 / (R + 1)
    (0.332 for two), where the margin over the best rival alone said ½.
    """
    if len(z) == 1:
        return _phi(z[0])
    z = np.clip(z, -60.0, 60.0)  # Φ is 0 or 1 to the last bit beyond: keeps the squares tame
    mean, var = rivals_best(-z)
    # Ahead of all is never likelier than ahead of each, which the approximation can miss.
    return np.minimum(_phi(-mean / np.sqrt(0.5 + var)), _phi(z).min(axis=0))


def rivals_best(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Clark's mean and variance of the largest of normals of means ``u`` (R, ...) and
    variance ½ each (in units of σ), folded one at a time (``ahead_of_all``).  A shift of
    every mean shifts the mean alone, so the rivals' part is the same whatever the player
    splits: ``WinPolicy.split_values`` folds it once per position and σ."""
    mean, var = u[0], np.full(u.shape[1:], 0.5)
    for lead in u[1:]:
        theta = np.sqrt(var + 0.5)
        a = (mean - lead) / theta
        above, below = _phi(a), _phi(-a)
        density = np.exp(-0.5 * a * a) / np.sqrt(2.0 * np.pi)
        first = mean * above + lead * below + theta * density
        second = ((mean * mean + var) * above + (lead * lead + 0.5) * below
                  + (mean + lead) * theta * density)
        mean, var = first, np.maximum(second - first * first, 0.0)
    return mean, var


def next_best(dense, ruleset: RyzykantRules, upper, lower) -> np.ndarray:
    """(G, 252) for positions before a roll: the best split's worth on each next roll (its
    final score where it ends the game, else V after it), rolls in ``dice`` order."""
    G = len(upper)
    out = np.empty((G, dice.N_ROLLS))
    chosen = ((lower > 0) * (1 << np.arange(6))).sum(axis=1)
    for c in np.unique(chosen):
        index = approx._roll_index(int(c))
        rows = np.flatnonzero(chosen == c)
        T = approx._split_tables(dense, ruleset, upper[rows], lower[rows], index.rows)
        best = approx._best_per_roll(T, index)
        out[np.ix_(rows, index.order)] = best
        if ruleset.puscioch == "reroll":  # a puścioch is thrown again: it weighs nothing
            out[np.ix_(rows, np.flatnonzero(index.puscioch))] = np.nan
    return out


def rolls_left(ruleset: RyzykantRules, lower) -> np.ndarray:
    """A rough count of the rolls a game still lasts: two a missing mark of its fullest face."""
    return 2.0 * np.maximum(ruleset.end_marks - np.asarray(lower).max(axis=-1), 1)


class WinPolicy:
    """Split to finish ahead of the rivals, who play ``rival`` (the expected-score policy)."""

    name = "win"

    def __init__(self, ruleset: RyzykantRules, dense, rival, spread: float | None = None):
        self.ruleset, self.dense, self.rival = ruleset, approx.as_dense(dense), rival
        self.spread = SPREAD if spread is None else spread
        self.flat = approx.Dense(self.dense.sums, self.dense.gamma, 0)

    def choose(self, upper, lower, rolls, legal, pusc, rivals) -> np.ndarray:
        """Split slots for G games; ``rivals``: (upper (G, R, 11), lower (G, R, 6), ended
        (G, R) bool, their final or current score (G, R)), before this roll."""
        chance, mean = self.split_values(upper, lower, rolls, legal, pusc, rivals)
        return (chance + TIE_BREAK * np.nan_to_num(mean, neginf=0.0)).argmax(axis=1)

    def split_values(self, upper, lower, rolls, legal, pusc, rivals, valued=None):
        """(G, 15) each legal split's estimated chance to finish ahead and its expected
        score by the fitted value (-inf where a split is not legal); arguments as ``choose``,
        and ``rivals`` may carry a fifth array (G, R) bool: the rivals who split this roll
        already (at a table the thrower splits first), their sheets after it.  ``valued``:
        the rivals' ``rival_values`` for these rolls, where already known (``rivals`` is then
        not read)."""
        r = self.ruleset
        rival_value, rival_left = self.rival_values(rolls, rivals) if valued is None else valued
        # each of my legal splits
        gi, ji = np.nonzero(legal)
        up2, lo2, ended = apply_splits(r, upper[gi], lower[gi], rolls[gi], ji, pusc[gi])
        mine = np.broadcast_to(score(up2).astype(float)[:, None], (len(gi), dice.N_ROLLS)).copy()
        my_left = np.zeros(len(gi))
        going = np.flatnonzero(~ended)
        if len(going):
            mine[going] = next_best(self.flat, r, up2[going], lo2[going])
            my_left[going] = rolls_left(r, lo2[going])
        sigma = self.spread * np.sqrt(np.maximum(my_left, rival_left[gi]) + 1e-9)
        # a puścioch thrown again (NaN) weighs nothing
        unseen = np.isnan(mine) | np.isnan(rival_value).any(axis=0)[gi]
        weight = dice.ROLL_PROBABILITY[None, :] * ~unseen
        chance = np.where(unseen, 0.0, self._ahead(np.nan_to_num(mine),
                                                   np.nan_to_num(rival_value), gi, sigma))
        value = (chance * weight).sum(axis=1) / weight.sum(axis=1)
        mean = (np.nan_to_num(mine) * weight).sum(axis=1) / weight.sum(axis=1)
        chance, expected = np.full(legal.shape, -np.inf), np.full(legal.shape, -np.inf)
        chance[gi, ji], expected[gi, ji] = value, mean
        return chance, expected

    @staticmethod
    def _ahead(mine, rival_value, gi, sigma) -> np.ndarray:
        """``ahead_of_all`` of the margins (mine − rival_value[:, gi]) / σ, (n, 252), the
        rivals' maximum folded once per position and σ (``rivals_best``), not per split."""
        # finite, as a value of -inf would not be: Φ is 0 or 1 to the last bit long before
        mine, rival_value = np.clip(mine, -1e9, 1e9), np.clip(rival_value, -1e9, 1e9)
        best = rival_value.max(axis=0)[gi]
        alone = _phi((mine - best) / sigma[:, None])
        if len(rival_value) == 1:
            return alone
        pairs, inverse = np.unique(np.stack([gi, sigma], axis=1), axis=0, return_inverse=True)
        g, s = pairs[:, 0].astype(np.int64), pairs[:, 1]
        mean, var = rivals_best(rival_value[:, g] / s[None, :, None])
        inverse = inverse.reshape(-1)
        chance = _phi((mine / sigma[:, None] - mean[inverse]) / np.sqrt(0.5 + var[inverse]))
        return np.minimum(chance, alone)

    def rival_values(self, rolls, rivals):
        """Every rival after this roll and the next, on every next roll: their best worth
        then (R, G, 252) and the most rolls any of them likely has left (G,); ``rivals`` as
        ``split_values`` takes them."""
        r = self.ruleset
        G = len(rolls)
        r_up, r_lo, r_end, r_score = self.rivals_after(rolls, rivals)
        rival_value = np.empty((r_up.shape[1], G, dice.N_ROLLS))
        rival_left = np.zeros(G)
        for k in range(r_up.shape[1]):
            rival_value[k] = r_score[:, k:k + 1]
            going = np.flatnonzero(~r_end[:, k])
            if len(going):
                rival_value[k, going] = next_best(self.flat, r, r_up[going, k], r_lo[going, k])
                rival_left[going] = np.maximum(rival_left[going], rolls_left(r, r_lo[going, k]))
        return rival_value, rival_left

    def rivals_after(self, rolls, rivals):
        """The rivals' (upper, lower, ended, score) after this roll, which each still in the
        game splits as ``rival`` does (``rivals`` as ``split_values`` takes them)."""
        r_up, r_lo, r_end, r_score = (np.array(a) for a in rivals[:4])
        split = rivals[4] if len(rivals) > 4 else np.zeros(r_end.shape, bool)
        for k in range(r_up.shape[1]):
            live = np.flatnonzero(~r_end[:, k] & ~split[:, k])
            if not len(live):
                continue
            up, lo = r_up[live, k], r_lo[live, k]
            lg, pu = legal_splits(lo, rolls[live])
            choice = self.rival(up, lo, rolls[live], lg, pu)
            up2, lo2, ended = apply_splits(self.ruleset, up, lo, rolls[live], choice, pu)
            r_up[live, k], r_lo[live, k], r_end[live, k] = up2, lo2, ended
            r_score[live, k] = score(up2)
        return r_up, r_lo, r_end.astype(bool), r_score.astype(float)

    def searched_values(self, upper, lower, roll: int, legal, pusc, rivals):
        """(one roll deep, two rolls deep), (15,) each: every legal split of ``roll`` in one
        position valued by ``split_values``, and by the exact expectation over the next roll
        of the chance of the best split then, every rival splitting both rolls as ``rival``
        does (a split that ends the game keeps its chance one roll deep).  -inf where a
        split is not legal."""
        r = self.ruleset
        rolls = np.array([roll])
        chance = self.split_values(upper, lower, rolls, legal, pusc, rivals)[0][0]
        slots = np.flatnonzero(legal[0])
        up2, lo2, ended = apply_splits(r, np.repeat(upper, len(slots), axis=0),
                                       np.repeat(lower, len(slots), axis=0),
                                       np.repeat(rolls, len(slots)), slots,
                                       np.repeat(pusc, len(slots)))
        going = slots[~ended]
        if not len(going):
            return chance, chance
        after = self.rivals_after(rolls, rivals)
        n, R = len(going), dice.N_ROLLS
        # The rivals split the next roll whatever the mover split this one: valued once per
        # next roll, not once per split and next roll.
        value, left = self.rival_values(np.arange(R), tuple(np.repeat(a, R, axis=0)
                                                            for a in after))
        nxt = np.tile(np.arange(R), n)  # every next roll of every split still going
        up, lo = np.repeat(up2[~ended], R, axis=0), np.repeat(lo2[~ended], R, axis=0)
        lg, pu = legal_splits(lo, nxt)
        best = self.split_values(up, lo, nxt, lg, pu, None,
                                 (value[:, nxt], left[nxt]))[0].max(axis=1)
        weight = np.tile(dice.ROLL_PROBABILITY, n)
        if r.puscioch == "reroll":  # a puścioch is thrown again: it weighs nothing
            weight = weight * ~pu
        deep = chance.copy()
        deep[going] = ((best * weight).reshape(n, R).sum(axis=1)
                       / weight.reshape(n, R).sum(axis=1))
        return chance, deep


def play_shared(ruleset: RyzykantRules, policies, games: int, seed, start_upper=None,
                start_lower=None, max_steps: int = 2000, start_alive=None, record=None):
    """Final scores (G, N) of ``games`` games of N players on one stream of rolls:
    ``policies[j]`` is an ``approx.Policy`` or a ``WinPolicy`` (which also sees the rivals).
    Every seat starts from ``start_upper``/``start_lower`` (G, 11)/(G, 6), or each from its
    own (G, N, 11)/(G, N, 6); ``start_alive`` (G, N) marks the seats whose game goes on.
    ``record``, if given, sees every roll before it is split: (upper, lower, alive, rolls)."""
    n = len(policies)
    rng = np.random.default_rng(seed)
    upper = np.zeros((games, n, len(approx._S)), np.int64)
    lower = np.zeros((games, n, 6), np.int64)
    if start_upper is not None:
        su, sl = np.asarray(start_upper), np.asarray(start_lower)
        upper[:] = su[:, None, :] if su.ndim == 2 else su
        lower[:] = sl[:, None, :] if sl.ndim == 2 else sl
    alive = np.ones((games, n), bool) if start_alive is None else np.array(start_alive, bool)
    for _ in range(max_steps):
        if not alive.any():
            break
        all_rolls = approx.draw_rolls(rng, games)
        before_up, before_lo, before_alive = upper.copy(), lower.copy(), alive.copy()
        if record is not None:
            record(before_up, before_lo, before_alive, all_rolls)
        for j, policy in enumerate(policies):
            idx = np.flatnonzero(before_alive[:, j])
            if not len(idx):
                continue
            rolls = all_rolls[idx]
            up, lo = before_up[idx, j], before_lo[idx, j]
            legal, pusc = legal_splits(lo, rolls)
            if ruleset.puscioch == "reroll" and pusc.any():
                keep = ~pusc
                idx, rolls, up, lo, legal, pusc = (idx[keep], rolls[keep], up[keep], lo[keep],
                                                   legal[keep], pusc[keep])
                if not len(idx):
                    continue
            if isinstance(policy, WinPolicy):
                others = [k for k in range(n) if k != j]
                rivals = (before_up[idx][:, others], before_lo[idx][:, others],
                          ~before_alive[idx][:, others],
                          score(before_up[idx][:, others].reshape(-1, len(approx._S)))
                          .reshape(len(idx), len(others)).astype(float))
                choice = policy.choose(up, lo, rolls, legal, pusc, rivals)
            else:
                choice = policy(up, lo, rolls, legal, pusc)
            up, lo, ended = apply_splits(ruleset, up, lo, rolls, choice, pusc)
            upper[idx, j], lower[idx, j] = up, lo
            alive[idx[ended], j] = False
    return score(upper.reshape(-1, len(approx._S))).reshape(games, n).astype(np.float64)


def play_seated(solution, seats: tuple[str, ...], deals: int, seed: int, first_deal: int = 0):
    """``deals`` games of ``len(seats)`` players on shared rolls, seat j playing ``seats[j]``
    (``win`` or a policy of the game): a ``multiplayer.seats.Seated``."""
    from ..multiplayer.seats import Seated
    from .game import _policy

    rules = solution.rules
    made = {}
    for name in set(seats):
        if name == "win":
            if solution.payload is None:
                raise DicewiseError(Message("the {policy} policy needs the solved table",
                                            policy=name))
            dense = solution.payload.dense
            made[name] = WinPolicy(rules, dense, approx.model_policy(dense, rules))
        else:
            made[name] = _policy(solution, name, seed)
    stream = [seed, first_deal, len(seats), 0x5AED]
    return Seated(play_shared(rules, [made[s] for s in seats], deals, stream))


# -- advice at a table ---------------------------------------------------------------------

def rival_position(ruleset: RyzykantRules, sheet: str | None, fifth: str | None):
    """A rival's position before this roll, and whether their game has ended (their last
    split gave a fifth-die face its ``end_marks``-th mark); DicewiseError otherwise."""
    from .game import check_sum_marks
    from .rules import Position, check_position, read_position

    pos = check_sum_marks(read_position(sheet, fifth))
    full = [f for f in range(6) if pos.lower[f] >= ruleset.end_marks]
    if not full:
        return check_position(ruleset, pos), False
    if len(full) > 1 or pos.lower[full[0]] > ruleset.end_marks:
        raise DicewiseError(Message("a rival's fifth {fifth!r} goes past the end of a game "
                                    "(end_marks={end_marks})", fifth=pos.fifth,
                                    end_marks=ruleset.end_marks))
    if sum(pos.lower) > pos.rolls:
        raise DicewiseError(Message("the sheet records {rolls} rolls ({total} pair marks) but "
                                    "{fifth} fifth-die marks; each roll adds at most one",
                                    rolls=pos.rolls, total=sum(pos.upper),
                                    fifth=sum(pos.lower)))
    # The position just before the split that ended it must be one of a game in progress.
    # That split marked the fifth die and two pair sums, which ones the sheet does not say:
    # it is enough that taking back the marks of some two of its sums leaves such a position.
    before = tuple(pos.lower[f] - (f == full[0]) for f in range(6))
    marked = [s for s in range(len(pos.upper)) if pos.upper[s]]
    why = None
    for i, a in enumerate(marked):
        for b in marked[i:]:
            if a == b and pos.upper[a] < 2:
                continue
            upper = tuple(n - (s == a) - (s == b) for s, n in enumerate(pos.upper))
            try:
                check_position(ruleset, Position(upper, before))
            except DicewiseError as e:
                why = why or e
                continue
            return pos, True
    raise why  # none does: why, said of the first two sums tried


def advise_at_table(solution, pos, roll: int, rivals) -> Advice:
    """Every split of ``roll`` ranked by the win policy's estimate of the chance to finish
    ahead of ``rivals`` ((Position, ended) each: before this roll, which they split too, or
    after it where their sheet has one roll more), searched two rolls deep, with each loss's
    ``loss_error`` and the expected score of the solitaire advice beside: approximate."""
    from .game import _advice, _choice, split_action
    from .rules import moves

    def action(m):
        return split_action(*m.pairs, m.fifth)

    rules = solution.rules
    dense = solution.payload.dense
    policy = WinPolicy(rules, dense, approx.model_policy(dense, rules))
    upper, lower = np.array([pos.upper]), np.array([pos.lower])
    rolls = np.array([roll])
    legal, pusc = legal_splits(lower, rolls)
    r_up = np.array([[p.upper for p, _ in rivals]])
    r_lo = np.array([[p.lower for p, _ in rivals]])
    r_end = np.array([[ended for _, ended in rivals]])
    r_score = np.array([[float(p.score) for p, _ in rivals]])
    r_split = np.array([[p.rolls > pos.rolls and not ended for p, ended in rivals]])
    rivals_now = (r_up, r_lo, r_end, r_score, r_split)
    shallow, chance = policy.searched_values(upper, lower, roll, legal, pusc, rivals_now)
    alone = _advice(solution, pos, roll)  # the expected scores, searched as alone
    mean = {repr(c.action): c.expected for c in alone.choices}
    found = moves(rules, pos, roll)
    found.sort(key=lambda m: (-round(float(chance[m.slot]), 12), -mean[repr(action(m))]))

    def ranked(values):
        best = float(values[found[0].slot])
        for m in found:
            c = _choice(m, mean[repr(action(m))], alone.best.expected)
            yield Choice(c.action, c.label, c.expected, best - float(values[m.slot]),
                         c.detail, probability=float(values[m.slot]))

    choices = tuple(ranked(chance))
    # With every rival finished and every split ending the game, each chance is 1, ½ or 0.
    exact = all(m.ends for m in found) and all(ended for _, ended in rivals)
    if not exact:
        choices = with_loss_errors(choices, tuple(ranked(shallow)), LOSS_ERROR_SCALE,
                                   LOSS_ERROR_FLOOR)
        if found[0].ends and all(ended for _, ended in rivals):
            # The best split ends the game against finished rivals: its chance (1, ½ or 0)
            # is exact, and no split's can be above 1, so none beats it by more than 1 − it.
            first = choices[0]
            choices = (replace(first, loss_error=min(first.loss_error,
                                                     1.0 - first.probability)),) + choices[1:]
    best = choices[0].probability
    players = len(rivals) + 1
    faces = dice.faces_of(dice.ROLLS[roll])
    rival_text = Listing([Message("{points} (ended)", points=p.score) if ended else str(p.score)
                          for p, ended in rivals])
    how = Message("exact: every game ends with this roll") if exact else Message(
        "approximate: two rolls ahead exactly, the fitted value and a spread beyond")
    headline = Message("ryzykant, {players} players on shared rolls: dice {dice}; {points} "
                       "points against {rivals}; estimated chance to finish ahead {chance} with "
                       "the best split ({how})", players=players, dice=" ".join(map(str, faces)),
                       points=pos.score, rivals=rival_text, chance=Number(best, ".4f"), how=how)
    position = {"players": players, "dice": faces, "sheet": pos.sheet, "fifth": pos.fifth,
                "points": pos.score, "rolls": pos.rolls,
                "opponent_sheets": [p.sheet for p, _ in rivals],
                "opponent_fifths": [p.fifth for p, _ in rivals],
                "opponent_points": [p.score for p, _ in rivals],
                "opponents_ended": [bool(e) for _, e in rivals]}
    start = float(approx.values_before(dense, upper, lower)[0])
    # No error_estimate: the table's is in points of the expected score, not of the chance
    # ranked here; each split's loss_error says how sure its chance is.
    return Advice(rules.name, rules.options, position, tuple(choices), headline, start,
                  approximate=not exact, objective="win",
                  turn_start_probability=best,
                  expected_score_choice=alone.best.action)
