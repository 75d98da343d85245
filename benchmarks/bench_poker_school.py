"""Timed runs of poker-school: the table build, advice latency, policies, measured quality.

    python3 benchmarks/bench_poker_school.py [--games N] [--seed S] [--quick]
    python3 benchmarks/bench_poker_school.py --trust [--search-games N] [--positions K]
        [--rollout-positions P] [--rollout-games G] [--loss-error]
    python3 benchmarks/bench_poker_school.py --residuals [--seed S]
    python3 benchmarks/bench_poker_school.py --calibration [--games N] [--seed S]
    python3 benchmarks/bench_poker_school.py --slack
    python3 benchmarks/bench_poker_school.py --group-steps N [--row-steps R] [--columns C]
        [--save-multipliers PATH]

Prints JSON after each stage: (1) the full game's table build as ``dicewise solve
poker-school`` does it (fit, evaluation, error estimate, upper bound), timed, written to
the cache; (2) the one-column game (with ``--one-column-erases`` also its erasure variant):
exact optimum and the approximate method's policy on the same dice (paired, common random
numbers), gap with its 95% CI; (3) advice latency; (4) mean ± 95% CI per policy on the full
game, all policies on the same dice.  The exact one-column tables come from the cache when
present (``dicewise solve poker-school -o columns=1`` builds the erasure one: 20+ minutes).

``--trust`` measures the advice instead (docs/poker-school.md, "Advice you can trust"): the
issue's examples by the table and by the search; on the exactly solved one-column game
(without erasure, and with ``--one-column-erases`` also with it; the method's own fit), at K
positions met in play by three policies, how
often searched and table advice is exactly optimal, its exact loss, and how well
``loss_error`` covers the error of the printed losses; on the full game, how often the search
and the table disagree, by how much by the deeper values, how well ``loss_error`` covers the
losses that G paired rollouts of the table's policy measure after each of the best choices
at P positions met in play, and the ``search`` policy against ``optimal`` on N common-roll
games, paired.  ``--loss-error`` measures only ``loss_error`` (one column and rollouts).

``--residuals`` prints the fitted value's one-turn Bellman residuals on sheets met by random,
greedy and the table's play (4 games each).

``--calibration`` plays N games of seed S with the table's policy and prints, at every turn,
the mean of the final score minus the advisor's turn-start value (the turn solved against
the calibrated values) with its standard error, and the same for the fit's values before
calibration (docs/poker-school.md, "The method").

``--slack`` shows where the shipped bound's slack sits: what the relaxation's groups do at
the shipped multipliers (writes per turn, cells scored per row, column bonus paid), and the
bound moved along the subgradient's write imbalance (about 3 minutes).

``--group-steps N`` computes the upper bound as the build does, with R steps on the rows
instead of 150, then N steps with the groups as the subproblems (``upper_bound(...,
group_iterations=N)``) on ``--columns`` columns: the best bound every 10 steps, and one
group's forward pass timed against its backward pass. ``--save-multipliers PATH`` writes the
best multipliers as the file dicewise ships for the full game (``certificate.py``): with
``--group-steps 60 --row-steps 4000``, about 110 minutes on two cores, it computes the
shipped multipliers again (the steps run on one BLAS thread, so they are a function of the
code), and the bound that a build evaluates at them.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from dicewise.solver import dice
from dicewise.solver.blas_threads import single_blas_thread
from dicewise.solver.category import solve_states
from dicewise.solver.poker_school import advice, bound, certificate, table
from dicewise.solver.poker_school.bound import upper_bound
from dicewise.solver.poker_school.approx import LinearEvaluator, fit_policy
from dicewise.solver.poker_school.game import POKER_SCHOOL
from dicewise.solver.poker_school.search import SearchEvaluator
from dicewise.solver.poker_school.turns import (Batch, ExactEvaluator, GreedyEvaluator,
                                                _play_turn, apply_writes, draw_turn, play,
                                                play_solved_turn, roll_after_keep, turn_options)
from dicewise.solver.poker_school.rules import ROW_INDEX, PokerSchoolRules, SheetState
from dicewise.solver.stats import ScoreSummary
from dicewise.tables import store


def summary(scores):
    half = 1.959964 * scores.std(ddof=1) / np.sqrt(len(scores))
    return {"mean": float(scores.mean()), "std": float(scores.std(ddof=1)),
            "ci95": [float(scores.mean() - half), float(scores.mean() + half)]}


def _print(**row):
    print(json.dumps(row), flush=True)


def issue_examples(solution):
    """The positions of the issue: each row's write and cross, by the table and by the search."""
    for sheet, faces in (("twos=6,fives=15/15/15", [2, 2, 2, 1, 3]), ("ones=4", [1, 1, 1, 4, 5])):
        for search in (False, True):
            adv = POKER_SCHOOL.advise(solution, {"sheet": sheet, "dice": faces, "roll": 3}) \
                if search else advice.advise(solution.rules, solution.payload,
                                             solution.rules.parse_sheet(sheet), faces, 3,
                                             search=False)
            _print(example=sheet, dice=faces, search=search,
                   choices=[[c.label, round(c.expected, 2)] for c in adv.choices[:4]])
    # The turn-start value against the fives' reserve (cells 15/15 or 15/20/..., same points).
    starts = {}
    for reserve, sheet in enumerate(("fives=15/15", "fives=20/15", "fives=25/15", "fives=25/20")):
        rules = solution.rules
        s = rules.parse_sheet(sheet)
        starts[s.reserve[4]] = round(advice.turn_advice(rules, solution.payload, s).start, 2)
    _print(turn_start_by_fives_reserve=starts)
    rules = solution.rules
    _print(**{k: round(advice.turn_advice(rules, solution.payload, rules.parse_sheet(k)).start, 2)
              for k in ("twos=8/x", "twos=8/6")})


def _sheets_from_play(game, evaluators, games, seed, every):
    """Sheets at turn starts reached by random, greedy and the given policies' play."""
    out = []

    def record(t, batch):
        if t < game.turns:
            for i in range(0, len(batch), every):
                out.append(SheetState(tuple(map(int, batch.filled[i])),
                                      tuple(map(bool, batch.clean[i])),
                                      tuple(map(int, batch.reserve[i])),
                                      tuple(map(bool, batch.column_clean[i])),
                                      int(batch.standing[i]), int(batch.banked[i])))

    for how, ev in (("random", None), ("greedy", GreedyEvaluator(game)), *evaluators):
        play(game, games, seed, how, ev, record=record, chunk=games)
    return out


def _positions(game, sheets, per_sheet, seed):
    """(sheet, roll index, roll number) triples: rolls drawn as the dice fall."""
    rng = np.random.default_rng(seed)
    for sheet in sheets:
        for _ in range(per_sheet):
            yield (sheet, int(rng.choice(dice.N_ROLLS, p=dice.ROLL_PROBABILITY)),
                   int(rng.integers(1, 4)))


def _values(turn, roll, k):
    return {repr(c.action): c.expected for c in turn.choices(roll, k)}


#: The constants of ``loss_error`` before the full game's rollouts: (scale, slope, floor, keep
#: floor), set on one column alone.
FIRST_CONSTANTS = (2.0, 0.0, 4.0, 4.0)


def _quantiles(values, qs=(0.5, 0.9, 0.95, 0.99)):
    return {q: round(float(np.quantile(values, q)), 2) for q in qs}


def _loss_errors(c, scale=None, slope=None, floor=None, keep_floor=None):
    """``loss_error`` of measured choices (columns of ``c``: ``dl`` |ΔL|, ``printed`` loss,
    ``keeps`` choice and best both keeps, ``share`` of turns left, ``E`` error estimate) by
    the advice's constants, or by the ones given."""
    pick = lambda v, default: default if v is None else v  # noqa: E731
    floors = np.where(c["keeps"], pick(keep_floor, advice.LOSS_ERROR_KEEP_FLOOR),
                      pick(floor, advice.LOSS_ERROR_FLOOR))
    return (pick(scale, advice.LOSS_ERROR_SCALE) * c["dl"]
            + pick(slope, advice.LOSS_ERROR_SLOPE) * c["printed"] + floors * c["E"] * c["share"])


def _coverage(c, err, **label):
    """How well ``loss_error`` covers the measured errors ``err`` of the printed losses: by
    the advice's constants, by kind of choice, and the narrowest constants covering 95%."""
    e = _loss_errors(c)
    near = c["printed"] <= e
    _print(**label, loss_error=f"{advice.LOSS_ERROR_SCALE}·|ΔL| + {advice.LOSS_ERROR_SLOPE}·loss"
           f" + ({advice.LOSS_ERROR_KEEP_FLOOR} keeps, else {advice.LOSS_ERROR_FLOOR})·E·share",
           choices=len(err), coverage=float((err <= e).mean()), mean_loss_error=float(e.mean()),
           close_calls=float(near.mean()),
           coverage_of_close_calls=float((err[near] <= e[near]).mean()) if near.any() else None,
           error_quantiles=_quantiles(err))
    first = _loss_errors(c, *FIRST_CONSTANTS)
    _print(**label, first_constants=FIRST_CONSTANTS, coverage=float((err <= first).mean()),
           close_calls=float((c["printed"] <= first).mean()))
    if "k" in c:
        for k in (1, 2, 3):
            s = c["k"] == k
            _print(**label, roll_number=k, choices=int(s.sum()),
                   coverage=float((err[s] <= e[s]).mean()), close_calls=float(near[s].mean()),
                   first_constants_coverage=float((err[s] <= first[s]).mean()),
                   first_constants_close_calls=float((c["printed"][s] <= first[s]).mean()))
    for kind, s in (("keep against keep", c["keeps"]), ("a write or cross", ~c["keeps"])):
        if s.any():
            _print(**label, choices_of_kind=kind, choices=int(s.sum()),
                   coverage=float((err[s] <= e[s]).mean()), close_calls=float(near[s].mean()),
                   error_quantiles=_quantiles(err[s]))
    grid = []
    for scale in (1.0, 2.0, 3.0):
        for slope in (0.0, 0.25, 0.5):
            for floor in (1.0, 2.0, 4.0):
                for keep_floor in (0.25, 0.5, 1.0, 4.0):
                    g = _loss_errors(c, scale, slope, floor, keep_floor)
                    grid.append((float((c["printed"] <= g).mean()), float((err <= g).mean()),
                                 float(g.mean()), scale, slope, floor, keep_floor))
    for close, cov, width, *constants in sorted(x for x in grid if x[1] >= 0.95)[:5]:
        _print(**label, constants_covering_95=constants, coverage=cov, close_calls=close,
               mean_loss_error=width)


def loss_error_one_column(positions, seed, erases=False, rollouts=0, games=2048):
    """Searched and table advice against the exact optimum of columns=1 (with ``erases``,
    the exact table of the erasure variant comes from the cache: its solve takes 20+ min).

    With ``rollouts``, the full game's measure is tried where the truth is known: at that
    many positions, the best eight choices' losses by ``games`` paired rollouts of the
    fitted policy against their exact losses, and ``loss_error``'s coverage of both."""
    one = PokerSchoolRules(columns=1, school_cross_erases=erases)
    exact = (store.solution(POKER_SCHOOL, one).payload if erases
             else ExactEvaluator(one, solve_states(one.one_column).values))
    s = table.SETTINGS
    t = time.perf_counter()
    with single_blas_thread():
        fit = fit_policy(one, iterations=s.iterations, games=s.games, average=s.average,
                         seed=s.seed)
    lin = LinearEvaluator(one, fit.weights)
    deep = SearchEvaluator(lin)
    _print(one_column_fit_seconds=round(time.perf_counter() - t, 1), fit_mean=fit.history[-1][1])
    sheets = _sheets_from_play(one, [("solved", lin)], 64, seed, 1)
    per_sheet = -(-positions // len(sheets))
    # The method's measured one-column gap (docs, "Measured quality"): the floor's scale.
    gap = 1.930 if erases else 0.455
    cols = {name: [] for name in ("exact", "printed", "dl", "keeps", "share")}
    advised = {"search": [], "table": []}
    for sheet, roll, k in _positions(one, sheets, per_sheet, seed):
        if not sheet.open_rows(1):
            continue
        turns = [advice.turn_advice(one, e, sheet) for e in (exact, lin, deep)]
        q = [_values(t, roll, k) for t in turns]
        keys = list(q[0])
        qe, q1, q2 = (np.array([d[key] for key in keys]) for d in q)
        b2, b1 = int(np.argmax(q2)), int(np.argmax(q1))
        advised["search"].append(qe.max() - qe[b2])
        advised["table"].append(qe.max() - qe[b1])
        keep = np.array(["'keep'" in key for key in keys])
        cols["exact"].append(qe[b2] - qe)
        cols["printed"].append(q2[b2] - q2)
        cols["dl"].append(np.abs((q2[b2] - q2) - (q1.max() - q1)))
        cols["keeps"].append(keep & keep[b2])
        cols["share"].append(np.full(len(keys), (one.turns - sum(sheet.filled)) / one.turns))
    for name, loss in advised.items():
        loss = np.array(loss)
        _print(advice=name, positions=len(loss), exactly_optimal=float((loss < 1e-9).mean()),
               mean_loss=float(loss.mean()), p99_loss=float(np.quantile(loss, 0.99)),
               max_loss=float(loss.max()))
    c = {k: np.concatenate(v) for k, v in cols.items()}
    c["E"] = gap
    _coverage(c, np.abs(c["exact"] - c["printed"]), one_column_erases=erases)
    if rollouts:
        _rollouts_against_exact(one, exact, lin, sheets, rollouts, games, seed, gap)


def _rollouts_against_exact(one, exact, lin, sheets, positions, games, seed, gap, top=8):
    """The rollouts' measured losses beside the exact ones on one column (see above)."""
    deep = SearchEvaluator(lin)
    cols = {name: [] for name in ("exact", "rollout", "printed", "dl", "keeps", "share")}
    at = [p for p in _positions(one, sheets, 1, seed + 1) if p[0].open_rows(1)][:positions]
    for i, (sheet, roll, k) in enumerate(at):
        searched = advice.turn_advice(one, deep, sheet).choices(roll, k)[:top]
        shallow = _values(advice.turn_advice(one, lin, sheet), roll, k)
        exact_q = _values(advice.turn_advice(one, exact, sheet), roll, k)
        measured, _ = rollout_losses(one, lin, sheet, roll, k, searched, games, seed + 1 + i)
        first = repr(searched[0].action)
        for c, r in list(zip(searched, measured))[1:]:
            key = repr(c.action)
            cols["exact"].append(exact_q[first] - exact_q[key])
            cols["rollout"].append(r)
            cols["printed"].append(c.loss)
            cols["dl"].append(abs(c.loss - (max(shallow.values()) - shallow[key])))
            cols["keeps"].append(advice.keep_against_keep(c, searched[0]))
            cols["share"].append((one.turns - sum(sheet.filled)) / one.turns)
    c = {name: np.array(v) for name, v in cols.items()}
    c["E"] = gap
    e = _loss_errors(c)
    _print(one_column_rollouts=len(at), choices=len(e), games_per_choice=games,
           coverage_of_exact_errors=float((np.abs(c["exact"] - c["printed"]) <= e).mean()),
           coverage_of_rollout_errors=float((np.abs(c["rollout"] - c["printed"]) <= e).mean()),
           exact_error_quantiles=_quantiles(np.abs(c["exact"] - c["printed"])),
           rollout_error_quantiles=_quantiles(np.abs(c["rollout"] - c["printed"])),
           rollout_minus_exact_quantiles=_quantiles(np.abs(c["rollout"] - c["exact"])))


def disagreement(solution, positions, seed):
    """On the full game: how often the search's best differs from the table's, and what the
    search's deeper values say the table's choice loses there."""
    rules, lin = solution.rules, solution.payload
    deep = SearchEvaluator(lin)
    sheets = _sheets_from_play(rules, [("solved", lin)], 16, seed, 1)
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(sheets), size=min(len(sheets), max(1, positions // 3)), replace=False)
    differ, losses, seconds, count = 0, [], [], 0
    for i in pick:
        sheet = sheets[i]
        t = time.perf_counter()
        shallow_turn = advice.TurnAdvice(rules, lin, sheet)
        deep_turn = advice.TurnAdvice(rules, deep, sheet)
        seconds.append(time.perf_counter() - t)
        for _, roll, k in _positions(rules, [sheet], 3, int(rng.integers(1 << 30))):
            q1, q2 = _values(shallow_turn, roll, k), _values(deep_turn, roll, k)
            b1, b2 = max(q1, key=q1.get), max(q2, key=q2.get)
            count += 1
            differ += b1 != b2
            losses.append(q2[b2] - q2[b1])
    losses = np.array(losses)
    _print(full_game_positions=count, search_differs=differ / count,
           deep_loss_of_table_choice_mean=float(losses.mean()),
           deep_loss_when_differs_mean=float(losses[losses > 0].mean()) if differ else 0.0,
           deep_loss_p99=float(np.quantile(losses, 0.99)), deep_loss_max=float(losses.max()),
           turn_solve_seconds_median=float(np.median(seconds)),
           turn_solve_seconds_max=float(np.max(seconds)))


def rollout_losses(rules, lin, sheet, roll, k, choices, games, seed):
    """Each choice's loss against the first, by ``games`` rollouts of the table's policy after
    it, every choice on the same dice (paired): (means, standard errors).

    A keep throws the other dice from the turn's next throw and the table's policy plays the
    rest of the turn; a write or cross is applied to the dice shown.
    """
    m = len(choices)
    n = m * games
    batch = Batch.of_sheet(sheet).take(np.zeros(n, np.int64))
    rng = np.random.default_rng(seed)
    turns = [draw_turn(rng, games) for _ in range(rules.turns - sum(sheet.filled))]
    first = np.tile(turns[0][0], (1, m, 1))
    shown = np.tile(dice.ROLLS[roll], (n, 1))
    write = np.zeros(n, bool)
    rows, scored = np.zeros(n, np.int64), np.zeros(n, bool)
    for j, c in enumerate(choices):
        part = slice(j * games, (j + 1) * games)
        if "keep" in c.action:
            kept = np.tile(dice.counts_of(c.action["keep"]), (games, 1))
            shown[part] = roll_after_keep(kept, first[k, part])
        else:
            write[part] = True
            rows[part] = ROW_INDEX[c.detail["category"]]
            scored[part] = c.detail["score"] is not None
    final = np.zeros(n)
    for writes in (True, False):
        mask = write if writes else ~write
        if not mask.any():
            continue
        part = batch.take(mask)
        if writes:
            apply_writes(rules, part, rows[mask], scored[mask], shown[mask],
                         np.full(mask.sum(), k))
        else:
            play_solved_turn(rules, part, first[:, mask], turn_options(lin, part),
                             shown=shown[mask], roll_number=k + 1)
        for throws, choice in turns[1:]:
            _play_turn(rules, part, np.tile(throws, (1, m, 1))[:, mask],
                       np.tile(choice, m)[mask], "solved", lin)
        final[mask] = part.final_scores()
    d = final.reshape(m, games)
    d = d[0][None, :] - d
    return d.mean(axis=1), d.std(axis=1, ddof=1) / np.sqrt(games)


def loss_error_full_game(solution, positions, games, seed, top=8):
    """``loss_error`` on the full game, where no exact loss is known, against the losses that
    rollouts of the table's policy measure: at ``positions`` positions met in play (any roll
    number), the searched advice's best ``top`` choices, each followed by ``games`` paired
    rollouts.  The measured loss is the table policy's, not the optimum's, and carries the
    rollouts' standard error (printed); on one column the same measure is checked against
    the exact losses (``_rollouts_against_exact``)."""
    rules, lin = solution.rules, solution.payload
    deep = SearchEvaluator(lin)
    sheets = _sheets_from_play(rules, [("solved", lin)], 8, seed, 1)
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(sheets), size=min(len(sheets), positions), replace=False)
    cols = {name: [] for name in ("rollout", "se", "printed", "dl", "keeps", "share", "k")}
    t = time.perf_counter()
    for i, at in enumerate(pick):
        sheet = sheets[at]
        roll = int(rng.choice(dice.N_ROLLS, p=dice.ROLL_PROBABILITY))
        k = int(rng.integers(1, 4))
        searched = advice.turn_advice(rules, deep, sheet).choices(roll, k)[:top]
        shallow = advice.turn_advice(rules, lin, sheet).choices(roll, k)
        best = max(c.expected for c in shallow)
        table_loss = {repr(c.action): best - c.expected for c in shallow}
        measured, se = rollout_losses(rules, lin, sheet, roll, k, searched, games, seed + 1 + i)
        for c, r, e in list(zip(searched, measured, se))[1:]:
            cols["rollout"].append(r)
            cols["se"].append(e)
            cols["printed"].append(c.loss)
            cols["dl"].append(abs(c.loss - table_loss[repr(c.action)]))
            cols["keeps"].append(advice.keep_against_keep(c, searched[0]))
            cols["share"].append((rules.turns - sum(sheet.filled)) / rules.turns)
            cols["k"].append(k)
    c = {name: np.array(v) for name, v in cols.items()}
    c["E"] = solution.error_estimate
    _print(full_game_rollouts=len(pick), games_per_choice=games,
           seconds=round(time.perf_counter() - t, 1),
           rollout_se_median=round(float(np.median(c["se"])), 2))
    _coverage(c, np.abs(c["rollout"] - c["printed"]), full_game=True)
    return c


def calibration(solution, games, seed):
    """Final score minus the turn-start value W at every turn of ``games`` games played with
    the table's policy, by the calibrated values and by the fit's own (no offsets): mean and
    standard error per turn. The policy is the same either way, so the games are too."""
    from dicewise.solver.poker_school import turns as play_turns
    from dicewise.solver.poker_school.approx import LinearEvaluator

    rules, calibrated = solution.rules, solution.payload
    fitted = LinearEvaluator(rules, calibrated.weights)
    for name, ev in (("calibrated", calibrated), ("fitted", fitted)):
        seen, errors = {}, {}

        class Record:
            def backup(self, t, expected):
                if expected is not None:
                    seen[t] = np.asarray(expected, float).copy()

            def __call__(self, t, batch):
                if t == rules.turns:
                    final = batch.final_scores().astype(float)
                    for u, w in seen.items():
                        errors.setdefault(u, []).append(final - w)
                    seen.clear()

        scores = play_turns.play(rules, games, seed, "solved", ev, record=Record(), chunk=1024)
        by_turn = {u: np.concatenate(e) for u, e in sorted(errors.items())}
        _print(values=name, games=games, seed=seed, mean_score=round(float(scores.mean()), 3),
               final_minus_turn_start_value={
                   u: [round(float(e.mean()), 2), round(float(e.std() / np.sqrt(len(e))), 2)]
                   for u, e in by_turn.items()})


def bellman_residuals(solution, games, seed):
    """The fitted value's one-turn Bellman residual W − V at turn starts met by each policy's
    play: W the turn solved exactly against the value (the advisor's turn-start value), V the
    value itself.  An information relaxation with this value as its penalty collects these
    residuals along the best path the known dice allow (docs/poker-school.md, the bound)."""
    rules, lin = solution.rules, solution.payload
    out = {"random": [], "greedy": [], "table": []}
    turns = {name: [] for name in out}
    per_policy = games * rules.turns
    for i, sheet in enumerate(_sheets_from_play(rules, [("solved", lin)], games, seed, 1)):
        name = ("random", "greedy", "table")[i // per_policy]
        if sum(sheet.filled) == 0:
            continue
        value = float(lin.state_values(Batch.of_sheet(sheet))[0])
        out[name].append(advice.TurnAdvice(rules, lin, sheet).start - value)
        turns[name].append(sum(sheet.filled))
    for name, d in out.items():
        d, t = np.array(d), np.array(turns[name])
        _print(residuals_of=name, sheets=len(d), mean=float(d.mean()), std=float(d.std()),
               p05=float(np.quantile(d, 0.05)), p95=float(np.quantile(d, 0.95)),
               max=float(d.max()),
               sum_over_turns_of_the_largest=float(sum(max(d[t == u].max(), 0.0)
                                                       for u in np.unique(t))))


def search_gain(solution, games, seed):
    """The search policy and the table's on the same games (common rolls), paired."""
    out = {}
    for policy in ("optimal", "search"):
        played = POKER_SCHOOL.play(solution, policy, games, seed)
        out[policy] = played.scores
        _print(policy=policy, games=games, seed=seed, **summary(played.scores),
               seconds=round(played.seconds, 1))
    d = out["search"] - out["optimal"]
    _print(paired="search - optimal", **summary(d))


def group_steps(columns, steps, row_steps, save=None):
    """The bound stepped with the groups: ``row_steps`` steps on the rows (the build takes
    150) and 10 with the bonus rows, then ``steps`` with the groups as the subproblems; the
    best bound every 10 group steps, the seconds to the first group step and per group step,
    and the bonus rows' group: ``_group_flows`` against its backward pass alone; ``save``: a
    path to write the multipliers to, as shipped, and the bound a build evaluates at them."""
    game = PokerSchoolRules(columns=columns)
    stamps = []  # when each group step ended

    def progress(units):
        if units >= bound.GROUP_SWEEPS:  # a group step's report; the rows' are smaller
            stamps.append(time.perf_counter())

    t = time.perf_counter()
    b = upper_bound(game, iterations=row_steps, bonus_iterations=10, group_iterations=steps,
                    progress=progress)
    h = np.minimum.accumulate(b.history[-(steps + 1):])
    _print(stage="group steps", columns=columns, row_steps=row_steps, steps=steps,
           bound=b.value, best_every_10=[round(float(x), 3) for x in h[::10]],
           seconds=round(time.perf_counter() - t, 1),
           seconds_to_the_first_group_step=round(stamps[0] - t, 1),
           seconds_per_step=round(float(np.median(np.diff(stamps))), 1) if steps else None)
    if save:
        path = certificate.write(save, b, {"rows": row_steps, "bonus": 10, "groups": steps})
        m = certificate.load(path)
        evaluated = bound.evaluated(game, m.lambdas, m.mu, b.groups, m.prices, m.nu,
                                    m.keep_prices)
        _print(stage="multipliers saved", path=str(path), found=b.value,
               evaluated=evaluated.value, seconds=round(evaluated.seconds, 1))
    rows = next(g for g in bound.GROUPS if set(bound.BONUS_ROWS) <= set(g))
    unit = bound._group(bound._relaxed(game), rows)
    with single_blas_thread():
        t = time.perf_counter()
        bound._group_value(unit, b.lambdas, b.mu, b.nu, b.prices, keep_prices=b.keep_prices)
        backward = time.perf_counter() - t
        t = time.perf_counter()
        bound._group_flows(unit, b.lambdas, b.mu, b.nu, b.prices, b.keep_prices)
    _print(stage="bonus rows' group", states=unit.size, backward_seconds=round(backward, 2),
           flows_seconds=round(time.perf_counter() - t, 2))


def slack(deltas=(1.0, 3.0)):
    """Where the shipped bound's slack sits: at the shipped multipliers, what the groups'
    optimal policies do in expectation (writes per turn, which the game holds at 1; cells
    scored, to set beside ``dicewise table poker-school --what rows``; the column bonus
    paid), and the bound moved along the write imbalance (λ_t + δ·(writes_t − 1)), the
    subgradient's λ part: whether it descends from there."""
    game = PokerSchoolRules()
    m = certificate.shipped(game)
    relaxed = bound._relaxed(game)
    lam, mu, prices, nu, kq = bound._check(relaxed, m.lambdas, m.mu, m.prices, m.nu,
                                           m.keep_prices)
    t = time.perf_counter()
    writes, scored, bonus, values = 0.0, 0.0, 0.0, []
    with single_blas_thread():
        for rows in bound.GROUPS:
            f = bound._group_flows(bound._group(relaxed, rows), lam, mu, nu, prices, kq)
            writes, scored, bonus = writes + f.writes, scored + f.scored, bonus + f.bonus
            values.append(f.value)
    value = float(lam.sum() + bound._thrown(prices, kq) + sum(values))
    _print(stage="slack at the shipped multipliers", bound=value,
           writes_per_turn=[round(float(w), 3) for w in writes],
           scored_rate={name: round(float(scored[i].mean()), 3) for name, i in ROW_INDEX.items()},
           bonus_rows_all_scored=[round(float(b), 3) for b in bonus],
           column_bonus_paid=round(float((mu * scored).sum() + (nu * bonus).sum()), 2),
           seconds=round(time.perf_counter() - t, 1))
    for delta in deltas:
        moved = bound.evaluated(game, lam + delta * (writes - 1.0), mu, bound.GROUPS, prices,
                                nu, kq)
        _print(stage="along the write imbalance", delta=delta, bound=moved.value,
               change=moved.value - value)


def trust(args, solution=None):
    solution = solution or store.solution(POKER_SCHOOL, PokerSchoolRules())
    if not args.loss_error:
        issue_examples(solution)
        disagreement(solution, args.positions // 10, args.seed)
    loss_error_one_column(args.positions, args.seed, rollouts=args.rollout_positions,
                          games=args.rollout_games)
    if args.one_column_erases:
        loss_error_one_column(args.positions, args.seed, erases=True)
    if args.rollout_positions:
        loss_error_full_game(solution, args.rollout_positions, args.rollout_games, args.seed)
    if not args.loss_error:
        search_gain(solution, args.search_games, args.seed)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    ap.add_argument("--one-column-erases", action="store_true",
                    help="also the one-column game with erasure (its exact solve: 20+ min)")
    ap.add_argument("--trust", action="store_true",
                    help="measure the advice: dominance examples, loss_error, search")
    ap.add_argument("--search-games", type=int, default=2048)
    ap.add_argument("--positions", type=int, default=12_000)
    ap.add_argument("--rollout-positions", type=int, default=60,
                    help="full-game positions whose losses rollouts measure (0: none)")
    ap.add_argument("--rollout-games", type=int, default=1024,
                    help="rollouts per choice (paired: the same dice for every choice)")
    ap.add_argument("--residuals", action="store_true",
                    help="the fitted value's one-turn Bellman residuals on sheets from play")
    ap.add_argument("--group-steps", type=int, default=0,
                    help="the upper bound stepped N times with the groups as subproblems")
    ap.add_argument("--columns", type=int, default=3, help="with --group-steps")
    ap.add_argument("--row-steps", type=int, default=150,
                    help="with --group-steps: steps on the rows first (the build: 150)")
    ap.add_argument("--save-multipliers", metavar="PATH",
                    help="with --group-steps: write the best multipliers as dicewise ships them")
    ap.add_argument("--calibration", action="store_true",
                    help="the turn-start values against what play then scores, turn by turn")
    ap.add_argument("--slack", action="store_true",
                    help="what the bound's relaxation does at the shipped multipliers")
    ap.add_argument("--loss-error", action="store_true",
                    help="with --trust: only the loss_error measurements")
    args = ap.parse_args()
    if args.group_steps:
        return group_steps(args.columns, args.group_steps, args.row_steps, args.save_multipliers)
    if args.slack:
        return slack()
    if args.calibration:
        return calibration(store.solution(POKER_SCHOOL, PokerSchoolRules()), args.games,
                           args.seed)
    if args.residuals:
        return bellman_residuals(store.solution(POKER_SCHOOL, PokerSchoolRules()), 4, args.seed)
    if args.trust:
        return trust(args)
    if args.quick:
        args.games = 2048
        table.SETTINGS = table.FitSettings(iterations=2, games=512, eval_games=512)
    out = {"games": args.games, "seed": args.seed}

    def report():
        print(json.dumps(out, indent=1), flush=True)

    full = PokerSchoolRules()
    t = time.perf_counter()
    built = store.build(POKER_SCHOOL, full, store.default_path(POKER_SCHOOL, full))
    out["full_build_seconds"] = time.perf_counter() - t
    out["full_build_meta"] = built.meta
    out["table"] = str(built.table)
    report()

    for erases in (False, True) if args.one_column_erases else (False,):
        one = PokerSchoolRules(columns=1, school_cross_erases=erases)
        exact = store.solution(POKER_SCHOOL, one)
        optimum = exact.meta["expected_score"]
        key = f"one_column_erases_{str(erases).lower()}"
        out[key] = {"exact": optimum, "exact_seconds": exact.meta["seconds"]}
        s = table.SETTINGS
        fit = fit_policy(one, iterations=s.iterations, games=s.games, average=s.average)
        a = play(one, args.games, args.seed, "solved", LinearEvaluator(one, fit.weights))
        b = play(one, args.games, args.seed, "solved", exact.payload)
        d = b - a
        half = 1.959964 * d.std(ddof=1) / np.sqrt(len(d))
        out[key].update({"fit_history": fit.history, "exact_policy": summary(b),
                         "approximate_policy": summary(a),
                         "gap": float(d.mean()), "gap_ci95": [float(d.mean() - half),
                                                              float(d.mean() + half)],
                         "gap_percent": float(100 * d.mean() / optimum),
                         "gap_vs_optimum_percent": float(100 * (optimum - a.mean()) / optimum)})
        report()

    position = {"sheet": "fives=15/15,pair=12/x,chance=44", "dice": [5, 5, 5, 2, 6], "roll": 2}
    t = time.perf_counter()
    for _ in range(20):
        advice.turn_advice.cache_clear()  # time the turn's solve, not the memo
        POKER_SCHOOL.advise(built, position)
    out["advice_seconds"] = (time.perf_counter() - t) / 20
    for policy in ("random", "greedy", "optimal"):
        played = POKER_SCHOOL.play(built, policy, args.games, args.seed)
        out[f"full_{policy}"] = {**summary(played.scores),
                                 "games_per_second": args.games / played.seconds,
                                 "percentiles": ScoreSummary.of(played.scores).percentiles}
        report()


if __name__ == "__main__":
    main()
