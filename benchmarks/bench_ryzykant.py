"""Ryzykant: the measurements behind docs/ryzykant.md.

    python3 benchmarks/bench_ryzykant.py quality --games 200000 --seed 3
    python3 benchmarks/bench_ryzykant.py search --games 1000 --seed 3 --positions 200
    python3 benchmarks/bench_ryzykant.py diagnose --games 20000 --seed 3
    python3 benchmarks/bench_ryzykant.py exact
    python3 benchmarks/bench_ryzykant.py endgame --positions 40 --seed 5
    python3 benchmarks/bench_ryzykant.py bound --streams 200 --streams-long 40 --seed 0
    python3 benchmarks/bench_ryzykant.py budget
    python3 benchmarks/bench_ryzykant.py loss-error --games 2000 --positions 12000 --seed 3
    python3 benchmarks/bench_ryzykant.py race-loss-error --positions 48 --rollouts 1000 --seed 3

``quality``: every policy on the same rolls (common random numbers), mean and 95% CI, the
paired difference of each against ``optimal`` and the gap to the outside one-roll
look-ahead baseline (7,554 ± 19 over 100,000 games).  The previous fit (Monte-Carlo policy
iteration alone, the table dicewise shipped before) is refitted with its own schedule.
``search``: the ``search`` policy and ``optimal`` on the same games (paired), and searched
advice (2 seconds) on positions of optimal games: time per decision, how often it changes
the choice and what the deeper values say it gains.  ``diagnose``: where points are won and
lost (per-sum marks and points, game length, open boxes at the end) and the Bellman
residual by stage of the game, for the previous fit and the new model.  ``loss-error``: on
``end_marks=2`` (``puscioch=reroll``, solved exactly) at positions met in play by three
policies, how often searched and table advice is exactly optimal, its exact loss, and how
well ``loss_error`` covers the error of the printed losses.  ``race-loss-error``: the same
for the advice of two-player tables, against each split's share of the win measured by
continuations on common rolls.  ``exact``: reduced
games solved exactly beside every policy's exact value.  ``endgame``: positions of the
full game with at most three rolls left, solved exactly.  ``bound``: the information-
relaxation upper bound on reduced games, and the size of its inner problem on the full
game.  ``budget``: table build time and advice latency.  Run them with ``nice``.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

from dicewise.solver.registry import get_game
from dicewise.solver.ryzykant import approx, bound, exact, race, search
from dicewise.solver.ryzykant import game as protocol_game
from dicewise.solver.ryzykant import policy_table as game
from dicewise.tables import store
from dicewise.solver.ryzykant.rules import (VALUES, Position, RyzykantRules, apply_splits, legal_splits,
                                            moves, ruleset_from)

#: The outside one-roll look-ahead heuristic of issue 11 (100,000 games, common rolls).
BASELINE = 7554.0
RYZYKANT = get_game("ryzykant")
#: The previous fit's schedule (Monte-Carlo policy iteration alone).
PREVIOUS = {"iterations": 60, "games": 20_000, "seed": 1, "forget": 0.6}


def _ci(x):
    x = np.asarray(x, np.float64)
    m, h = float(x.mean()), 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, m - h, m + h


def _print(**row):
    print(json.dumps(row), flush=True)


def _table(rules, rebuild=False):
    """The policy table of ``rules``, from the cache that the command line uses (built there
    if missing)."""
    solved = store.solution(RYZYKANT, rules, rebuild=rebuild)
    return game.PolicyTable(solved.payload.model, dict(solved.meta), solved.table)


def _previous(rules):
    """The previous fit for ``rules``, refitted once and kept beside the tables."""
    path = store.default_path(RYZYKANT, rules).with_suffix(".previous.npy")
    if path.exists():
        return approx.ValueModel(np.load(path))
    t = time.perf_counter()
    previous, _ = approx.fit(rules, **PREVIOUS)
    _print(previous_fit_seconds=round(time.perf_counter() - t, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, previous.delta)
    return previous


def _tables(rules, rebuild=False):
    """The policy table (built or loaded) and the previous fit for ``rules``."""
    return _table(rules, rebuild), _previous(rules)


def _policies(rules, table, previous, seed):
    return {"random": game.make_policy("random", rules, table, seed),
            "greedy": game.make_policy("greedy", rules, table, seed),
            "previous": approx.model_policy(previous, rules, 0),
            "value": game.make_policy("value", rules, table, seed),
            "optimal": game.make_policy("optimal", rules, table, seed)}


def quality(args):
    rules = ruleset_from(args.option)
    table, previous = _tables(rules, args.rebuild)
    scores = {}
    for name, pol in _policies(rules, table, previous, args.seed).items():
        t = time.perf_counter()
        played = game.play(rules, pol, args.games, args.seed)
        scores[name] = played.scores
        m, lo, hi = _ci(played.scores)
        _print(policy=name, games=args.games, seed=args.seed, mean=m, ci95=[lo, hi],
               mean_rolls=float(played.rolls.mean()), seconds=round(time.perf_counter() - t, 1))
    for name in scores:
        if name != "optimal":
            m, lo, hi = _ci(scores["optimal"] - scores[name])
            _print(paired=f"optimal - {name}", mean=m, ci95=[lo, hi])
    m, lo, hi = _ci(scores["optimal"])
    _print(baseline=BASELINE, optimal_minus_baseline=m - BASELINE,
           ci95=[lo - BASELINE, hi - BASELINE], note="the baseline's own ±19 is not included")


def _decisions(rules, table, games, seed, k):
    """k positions (with their roll) met by the optimal policy, sampled over its games."""
    rec = approx.play_games(rules, approx.model_policy(table.model, rules), games, [seed, 17],
                            record=True)
    up, lo = approx.visited(rec)
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(up), size=min(k, len(up)), replace=False)
    rolls = approx.draw_rolls(rng, len(pick))
    out = []
    for i, r in zip(pick, rolls):
        pos = Position(tuple(map(int, up[i])), tuple(map(int, lo[i])))
        if rules.puscioch == "reroll" and legal_splits(np.array([pos.lower]), np.array([r]))[1][0]:
            continue     # thrown again
        out.append((pos, int(r)))
    return out


def search_bench(args):
    rules = ruleset_from(args.option)
    table = _table(rules)
    # Searched advice on positions of optimal games: latency and what it changes.
    rows = []
    for pos, roll in _decisions(rules, table, 200, args.seed, args.positions):
        found = search.search(table.model, rules, pos, roll, seconds=args.seconds)
        done = ~np.isnan(found.searched)
        table_slot = int(found.slots[int(np.argmax(found.table))])
        best = found.best_slot()
        q2_table = found.searched[list(found.slots).index(table_slot)]
        gain = float(np.nanmax(found.searched) - q2_table) if not np.isnan(q2_table) else math.nan
        rows.append((found.seconds, best != table_slot, gain, done.all(), len(found.slots)))
    secs, changed, gain, complete, n = map(np.array, zip(*rows))
    m, lo, hi = _ci(gain[~np.isnan(gain)])
    _print(searched_advice_positions=len(rows), seconds_mean=float(secs.mean()),
           seconds_p95=float(np.percentile(secs, 95)), seconds_max=float(secs.max()),
           complete_share=float(complete.mean()), changed_share=float(changed.mean()),
           depth2_gain_per_decision=m, ci95=[lo, hi], splits_mean=float(n.mean()))
    # The search policy in simulation, paired with optimal on the same games.
    t = time.perf_counter()
    opt = approx.play_games(rules, game.make_policy("optimal", rules, table), args.games,
                            [args.seed, 0]).scores
    t_opt = time.perf_counter() - t
    t = time.perf_counter()
    sea = approx.play_games(rules, game.make_policy("search", rules, table), args.games,
                            [args.seed, 0]).scores
    t_sea = time.perf_counter() - t
    for name, s, secs_ in (("optimal", opt, t_opt), ("search", sea, t_sea)):
        m, lo, hi = _ci(s)
        _print(policy=name, games=args.games, stream=[args.seed, 0], mean=m, ci95=[lo, hi],
               seconds=round(secs_, 1))
    m, lo, hi = _ci(sea - opt)
    _print(paired="search - optimal", mean=m, ci95=[lo, hi])


def _profile(rules, name, played):
    up = played.upper
    pts = exact._FS[np.arange(11)[None, :], up]
    open_pen = np.where(up % 5 > 0, (5 - up % 5) * VALUES[None, :] * 2 ** (up // 5), 0).sum(axis=1)
    _print(policy=name, mean=float(played.scores.mean()), mean_rolls=float(played.rolls.mean()),
           rolls_hist={int(k): int(v) for k, v in enumerate(np.bincount(played.rolls)) if v},
           sums_opened=float((up > 0).sum(axis=1).mean()),
           open_boxes_at_end=float((up % 5 > 0).sum(axis=1).mean()),
           open_penalty_at_end=float(open_pen.mean()),
           closed_boxes_points=float((played.scores + open_pen).mean()),
           marks_per_sum=np.round(up.mean(axis=0), 2).tolist(),
           points_per_sum=np.round(pts.mean(axis=0), 0).tolist(),
           best_sum_boxes=np.bincount((up // 5).max(axis=1)).tolist())


def diagnose(args):
    rules = ruleset_from(args.option)
    table, previous = _tables(rules)
    pols = _policies(rules, table, previous, args.seed)
    del pols["random"]
    # The previous model with the new policy's one-roll lookahead: how much of the gain
    # the exact next-roll expectation alone brings.
    pols["previous + lookahead"] = approx.model_policy(previous, rules, 1)
    for name, pol in pols.items():
        if args.only and name not in args.only:
            continue
        _profile(rules, name, game.play(rules, pol, args.games, args.seed))
    if args.only:
        return
    # Bellman residual V − TV by stage, on positions each model's own policy visits.
    for name, model, look in (("previous", previous, 0), ("new", table.model, 1)):
        rec = approx.play_games(rules, approx.model_policy(model, rules, look), 300, [args.seed, 5],
                                record=True)
        up, lo = approx.visited(rec)
        stage = np.concatenate([np.full(len(v[0]), i) for i, v in enumerate(rec.visits)])
        res = approx.bellman_residual(model, rules, up, lo)
        for a, b in ((0, 5), (5, 10), (10, 15), (15, 20), (20, 24), (24, 27), (27, 99)):
            m = (stage >= a) & (stage < b)
            if m.any():
                _print(model=name, rolls_played=[a, b - 1], positions=int(m.sum()),
                       mean_residual=float(res[m].mean()), rms=float(np.sqrt((res[m] ** 2).mean())))


def exact_variants(args):
    variants = [["end_marks=1"], ["end_marks=2", "puscioch=reroll"], ["end_marks=2"]]
    for opts in variants:
        if args.only and " ".join(opts) not in args.only:
            continue
        rules = ruleset_from(opts)
        t = time.perf_counter()
        table, previous = _tables(rules)
        build_s = time.perf_counter() - t
        t = time.perf_counter()
        pols = {"optimal": table.model, "value": table.model.with_lookahead(0),
                "search": table.model.with_lookahead(2), "previous": previous, "greedy": "greedy"}
        if rules.end_marks > 1 and not args.search:
            del pols["search"]
        opt = exact.optimum(rules, pols, max_puscioch=args.max_puscioch)
        _print(**opt.as_dict(), gap_percent_of_abs_optimum={
            k: 100 * opt.gap(k) / abs(opt.value) for k in pols},
            build_seconds=round(build_s, 1), exact_seconds=round(time.perf_counter() - t, 1))


def endgame(args):
    rules = RyzykantRules()
    table, previous = _tables(rules)
    rng = np.random.default_rng(args.seed)
    # Play the optimal policy; stop each game at its first position with <= 3 rolls left.
    played = approx.play_games(rules, approx.model_policy(table.model, rules), args.positions * 3,
                               [args.seed, 1], record=True)
    starts = {}
    for idx, up, lo in played.visits:
        for i, u, l in zip(idx, up, lo):
            if i in starts:
                continue
            pos = Position(tuple(int(x) for x in u), tuple(int(x) for x in l))
            if exact.max_rolls(rules, pos, 0) <= 3:
                starts[i] = pos
    picks = rng.choice(sorted(starts), size=min(args.positions, len(starts)), replace=False)
    names = ("optimal", "value", "previous", "greedy")
    rows = []
    t = time.perf_counter()
    for i in picks:
        res = exact.solve(rules, starts[i], max_puscioch=1, policies={
            "optimal": table.model, "value": table.model.with_lookahead(0), "previous": previous,
            "greedy": "greedy"})
        rows.append([res.optimum] + [res.policy_values[n] for n in names])
    rows = np.array(rows)
    out = {"positions": len(rows), "mean_optimum": float(rows[:, 0].mean())}
    for j, n in enumerate(names, 1):
        m, lo, hi = _ci(rows[:, 0] - rows[:, j])
        out[n] = {"mean_gap": m, "ci95": [lo, hi], "max_gap": float((rows[:, 0] - rows[:, j]).max()),
                  "share_optimal": float((rows[:, 0] - rows[:, j] < 1e-6).mean())}
    _print(**out, seconds=round(time.perf_counter() - t, 1))


def bound_bench(args):
    for opts, streams in ((["end_marks=2", "puscioch=reroll"], args.streams),
                          (["end_marks=2"], args.streams), (["end_marks=3"], args.streams),
                          (["end_marks=4"], args.streams_long)):
        rules = ruleset_from(opts)
        table = _table(rules)
        try:
            res = bound.information_bound(table.model, rules, streams=streams, seed=args.seed)
        except bound.TooLarge as e:
            _print(options=opts, obstacle=str(e))
            continue
        _print(options=opts, streams=res.streams, bound=res.bound, bound_ci95=list(res.bound_ci95),
               policy=res.policy, policy_ci95=list(res.policy_ci95), gap=res.gap,
               gap_ci95=list(res.gap_ci95), max_states=res.max_states,
               seconds=round(res.seconds, 1), eval_policy_mean=table.meta["expected_score"])
    # The full game: how the inner problem of one stream grows, roll by roll.
    rules = RyzykantRules()
    stream = approx.draw_rolls(np.random.default_rng([args.seed, 0]), 200)
    U, L = np.zeros((1, 11), np.int64), np.zeros((1, 6), np.int64)
    counts = []
    t = time.perf_counter()
    for roll in stream:
        legal, pusc = legal_splits(L, np.full(len(U), roll))
        gi, ji = np.nonzero(legal)
        U2, L2, ended = apply_splits(rules, U[gi], L[gi], np.full(len(gi), roll), ji, pusc[gi])
        key = np.unique(np.concatenate([U2[~ended], L2[~ended]], axis=1), axis=0)
        U, L = key[:, :11].copy(), key[:, 11:].copy()
        counts.append(len(U))
        if len(U) > args.full_limit:
            break
    _print(full_game_positions_per_roll=counts, seconds=round(time.perf_counter() - t, 1))


def budget(args):
    rules = RyzykantRules()
    path = args.out or store.default_path(RYZYKANT, rules)
    t = time.perf_counter()
    table = store.build(RYZYKANT, rules, path)
    build_s = time.perf_counter() - t
    t = time.perf_counter()
    loaded = store.load(RYZYKANT, rules, path)
    tab = game.PolicyTable(loaded.payload.model, dict(loaded.meta), loaded.path)
    pos = Position((0, 0, 0, 0, 4, 7, 5, 0, 0, 0, 0), (0, 5, 0, 0, 3, 0))
    ranked = game.advise(rules, tab, pos, [3, 4, 4, 5, 6])
    advise_s = time.perf_counter() - t
    t = time.perf_counter()
    searched = game.search_advise(rules, tab, pos, [3, 4, 4, 5, 6])
    search_s = time.perf_counter() - t
    _print(build_seconds=round(build_s, 1), advise_seconds_after_import=round(advise_s, 3),
           search_advise_seconds=round(search_s, 3), best=ranked[0].as_dict(),
           searched_best=searched[0].as_dict(), expected_score=table.meta["expected_score"],
           error_estimate=table.meta["error_estimate"])


def _exact_layers(rules, dense):
    """Every position of an exactly solvable variant: its key, exact optimum before a roll,
    and the model's worth before a roll at depths 1 and 2, from ``exact``'s layers."""
    enc = exact._Encoding.of(rules, Position(), 2)
    layers, truncated = exact._forward(rules, enc, 2, None)
    specs = {"m": ("model", approx.Dense(dense.sums, dense.gamma, 2), 2)}
    nxt = exact._after_the_end(specs)
    keys, v, w1, w2 = [], [], [], []
    for layer in reversed(layers):
        nxt = exact._value_layer(rules, enc, layer, nxt, specs, truncated)
        keys.append(nxt["keys"])
        v.append(nxt["v"])
        w1.append(nxt["worth"]["m"][1])
        w2.append(nxt["worth"]["m"][2])
    keys = np.concatenate(keys)
    order = np.argsort(keys)
    return enc, keys[order], *(np.concatenate(x)[order] for x in (v, w1, w2))


def loss_error_grid(exact_loss, table_loss, search_loss, share, scales, floors, noise=None):
    """Coverage of loss_error = scale·|ΔL| + floor·share over a grid, as rows; with the
    ``noise`` (standard error) of measured losses, also the coverage allowing two of it."""
    err = np.abs(exact_loss - search_loss)
    d = np.abs(search_loss - table_loss)
    rows = []
    for a in scales:
        for f in floors:
            bound = a * d + f * share
            row = {"scale": a, "floor": f, "coverage": float((err <= bound).mean()),
                   "mean_loss_error": float(bound.mean())}
            if noise is not None:
                row["coverage_within_two_se"] = float((err <= bound + 2 * noise).mean())
            rows.append(row)
    return rows


def loss_error_bench(args):
    """How sure searched advice is on ``end_marks=2`` (``puscioch=reroll``), solved exactly:
    at positions and rolls met in play by several policies, every split's exact value, the
    table's (depth 1) and the search's (depth 2)."""
    rules = ruleset_from(["end_marks=2", "puscioch=reroll"])
    table = _table(rules)
    dense = table.model.dense()
    t = time.perf_counter()
    enc, keys, v, w1, w2 = _exact_layers(rules, dense)
    _print(exact_positions=len(keys), seconds=round(time.perf_counter() - t, 1))
    rng = np.random.default_rng(args.seed)
    rows = {"exact": [], "table": [], "search": [], "share": []}
    advised = {"search": [], "table": []}
    per_policy = max(1, args.positions // 3)
    for name in ("optimal", "greedy", "random"):
        pol = game.make_policy(name, rules, table, args.seed)
        rec = approx.play_games(rules, pol, args.games, [args.seed, 23], record=True)
        up = np.concatenate([x[1] for x in rec.visits])
        lo = np.concatenate([x[2] for x in rec.visits])
        rolls = np.concatenate(rec.visit_rolls)
        legal, pusc = legal_splits(lo, rolls)
        ok = ~pusc if rules.puscioch == "reroll" else np.ones(len(up), bool)
        pick = rng.choice(np.flatnonzero(ok), size=min(per_policy, int(ok.sum())), replace=False)
        for i in pick:
            slots = np.flatnonzero(legal[i])
            k = len(slots)
            U, L, ended = apply_splits(rules, np.repeat(up[i:i + 1], k, 0),
                                       np.repeat(lo[i:i + 1], k, 0), np.full(k, rolls[i]),
                                       slots, np.repeat(pusc[i:i + 1], k))
            final = score_of(U)
            at = np.minimum(np.searchsorted(keys, enc.key(U, L)), len(keys) - 1)
            q = {n: np.where(ended, final, arr[at]) for n, arr in
                 (("exact", v), ("table", w1), ("search", w2))}
            b2, b1 = int(np.argmax(q["search"])), int(np.argmax(q["table"]))
            advised["search"].append(q["exact"].max() - q["exact"][b2])
            advised["table"].append(q["exact"].max() - q["exact"][b1])
            rows["exact"].append(q["exact"][b2] - q["exact"])
            rows["search"].append(q["search"][b2] - q["search"])
            rows["table"].append(q["table"].max() - q["table"])
            rows["share"].append(np.ones(k))
    for name, loss in advised.items():
        loss = np.array(loss)
        _print(advice=name, positions=len(loss), exactly_optimal=float((loss < 1e-9).mean()),
               mean_loss=float(loss.mean()), p99_loss=float(np.quantile(loss, 0.99)),
               max_loss=float(loss.max()))
    cat = {k: np.concatenate(x) for k, x in rows.items()}
    chosen = [r for r in loss_error_grid(cat["exact"], cat["table"], cat["search"], cat["share"],
                                         (0.0, 1.0, 2.0, 3.0), (0.0, 1.0, 2.0, 5.0, 10.0))]
    for r in chosen:
        _print(**r)
    a, f = protocol_game.LOSS_ERROR_SCALE, protocol_game.LOSS_ERROR_FLOOR
    err = np.abs(cat["exact"] - cat["search"])
    bound = a * np.abs(cat["search"] - cat["table"]) + f
    _print(loss_error=f"{a}·|ΔL| + {f}", choices=len(err),
           coverage=float((err <= bound).mean()),
           error_quantiles={q: float(np.quantile(err, q)) for q in (0.5, 0.9, 0.95, 0.99)})


def _race_positions(solution, policies, n, seed):
    """``n`` positions of two-player games on shared rolls (seat 0 ``win``, seat 1
    ``optimal``), drawn uniformly among the rolls seat 0 split: (its upper, lower; the
    rival's upper, lower, whether its game goes on; the roll)."""
    seen = []

    def record(up, lo, alive, rolls):
        for g in np.flatnonzero(alive[:, 0]):
            seen.append((up[g, 0], lo[g, 0], up[g, 1], lo[g, 1], bool(alive[g, 1]), int(rolls[g])))

    race.play_shared(solution.rules, policies, n, [seed, 41], record=record)
    pick = np.random.default_rng(seed).choice(len(seen), size=n, replace=False)
    return [seen[i] for i in sorted(pick)]


def _race_position_rows(task):
    """One position: the race advice (searched and one roll deep) and every split's share of
    the win by ``rollouts`` continuations on common rolls, both seats as in the duel."""
    (up, lo, r_up, r_lo, r_alive, roll), rollouts, seed = task
    solution, policies = _RACE
    rules = solution.rules
    me, them = Position(tuple(map(int, up)), tuple(map(int, lo))), \
        Position(tuple(map(int, r_up)), tuple(map(int, r_lo)))
    t = time.perf_counter()
    advice = race.advise_at_table(solution, me, roll, [(them, not r_alive)])
    seconds = time.perf_counter() - t
    win = policies[0]
    legal, pusc = legal_splits(lo[None], np.array([roll]))
    rivals = (r_up[None, None], r_lo[None, None], np.array([[not r_alive]]),
              np.array([[float(score_of(r_up[None])[0])]]))
    one_roll = win.split_values(up[None], lo[None], np.array([roll]), legal, pusc, rivals)[0][0]
    r_up2, r_lo2, r_end2, _ = win.rivals_after(np.array([roll]), rivals)
    slots = {repr(protocol_game.split_action(*m.pairs, m.fifth)): m.slot
             for m in moves(rules, me, roll)}
    shares, shallow = [], []
    for c in advice.choices:
        slot = slots[repr(c.action)]
        u1, l1, end1 = apply_splits(rules, up[None], lo[None], np.array([roll]),
                                    np.array([slot]), pusc)
        start_up = np.broadcast_to(np.stack([u1[0], r_up2[0, 0]])[None], (rollouts, 2, len(up)))
        start_lo = np.broadcast_to(np.stack([l1[0], r_lo2[0, 0]])[None], (rollouts, 2, 6))
        alive = np.broadcast_to([not end1[0], not r_end2[0, 0]], (rollouts, 2))
        scores = race.play_shared(rules, policies, rollouts, [seed, 43], start_up, start_lo,
                                  start_alive=alive)
        d = scores[:, 0] - scores[:, 1]
        shares.append((d > 0) + 0.5 * (d == 0))
        shallow.append(float(one_roll[slot]))
    return advice, np.array(shares), np.array(shallow), seconds


_RACE = None


def race_loss_error_bench(args):
    """How sure the race advice of ``advise ryzykant --players 2`` is: at positions of
    two-player games (``win`` against ``optimal``), every split's share of the win measured
    by continuations on common rolls (both seats playing on as in the duel) against the
    printed losses and their ``loss_error``."""
    import multiprocessing as mp

    global _RACE
    solution = store.solution(RYZYKANT, ruleset_from(args.option))
    dense = solution.payload.dense
    optimal = approx.model_policy(dense, solution.rules)
    _RACE = solution, [race.WinPolicy(solution.rules, dense, optimal), optimal]
    positions = _race_positions(solution, _RACE[1], args.positions, args.seed)
    tasks = [(p, args.rollouts, args.seed + i) for i, p in enumerate(positions)]
    with mp.get_context("fork").Pool(args.workers) as pool:
        rows = pool.map(_race_position_rows, tasks, chunksize=1)
    covered, covered_noise, seconds = [], [], []
    grid = {"printed": [], "one_roll": [], "measured": [], "se": []}  # every split but the best
    advised = {"searched": [], "one roll deep": []}
    noise_best = {"searched": [], "one roll deep": []}
    for advice, S, shallow, sec in rows:  # S: (choices, rollouts) shares of the win
        seconds.append(sec)
        mean = S.mean(axis=1)
        diff = S[0][None] - S  # the advised split's share minus each one's, paired
        true_loss = diff.mean(axis=1)
        se = diff.std(axis=1, ddof=1) / math.sqrt(S.shape[1])
        grid["printed"].extend(c.loss for c in advice.choices[1:])
        grid["one_roll"].extend((shallow.max() - shallow)[1:])
        grid["measured"].extend(true_loss[1:])
        grid["se"].extend(se[1:])
        for i, c in enumerate(advice.choices):
            err = max(0.0, -true_loss.min()) if i == 0 else abs(c.loss - true_loss[i])
            noise = se.max() if i == 0 else se[i]
            covered.append(err <= c.loss_error)
            covered_noise.append(err <= c.loss_error + 2 * noise)
        for name, pick in (("searched", 0), ("one roll deep", int(np.argmax(shallow)))):
            gap = S - S[pick][None]
            gap_se = gap.std(axis=1, ddof=1) / math.sqrt(S.shape[1])
            advised[name].append(float(mean.max() - mean[pick]))
            noise_best[name].append(bool((gap.mean(axis=1) <= 2 * gap_se + 1e-12).all()))
    for name in advised:
        loss = np.array(advised[name])
        _print(advice=name, positions=len(loss),
               best_within_noise=float(np.mean(noise_best[name])),
               mean_loss=float(loss.mean()), p99_loss=float(np.quantile(loss, 0.99)),
               max_loss=float(loss.max()))
    g = {k: np.array(v) for k, v in grid.items()}
    for r in loss_error_grid(g["measured"], g["one_roll"], g["printed"], 1.0, (2.0, 3.0, 5.0),
                             (0.0, 0.01, 0.02, 0.03, 0.05), noise=g["se"]):
        _print(**r)
    _print(loss_error=f"{race.LOSS_ERROR_SCALE}·|ΔL| + {race.LOSS_ERROR_FLOOR}",
           choices=len(covered), coverage=float(np.mean(covered)),
           coverage_within_two_se=float(np.mean(covered_noise)),
           mean_se_of_measured_loss=float(g["se"].mean()),
           advice_seconds_median=float(np.median(seconds)),
           advice_seconds_max=float(np.max(seconds)))


def score_of(upper):
    from dicewise.solver.ryzykant.rules import score

    return score(upper).astype(np.float64)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    q = sub.add_parser("quality")
    q.add_argument("--games", type=int, default=200_000)
    q.add_argument("--seed", type=int, default=3)
    q.add_argument("-o", "--option", action="append", default=[])
    q.add_argument("--rebuild", action="store_true")
    s = sub.add_parser("search")
    s.add_argument("--games", type=int, default=1000)
    s.add_argument("--seed", type=int, default=3)
    s.add_argument("--positions", type=int, default=200)
    s.add_argument("--seconds", type=float, default=2.0)
    s.add_argument("-o", "--option", action="append", default=[])
    d = sub.add_parser("diagnose")
    d.add_argument("--games", type=int, default=20_000)
    d.add_argument("--seed", type=int, default=3)
    d.add_argument("-o", "--option", action="append", default=[])
    d.add_argument("--only", action="append", default=[], help="profile only these policies")
    x = sub.add_parser("exact")
    x.add_argument("--max-puscioch", type=int, default=1)
    x.add_argument("--search", action="store_true", help="also value the search policy exactly")
    x.add_argument("--only", action="append", default=[], help='a variant, e.g. "end_marks=2"')
    e = sub.add_parser("endgame")
    e.add_argument("--positions", type=int, default=40)
    e.add_argument("--seed", type=int, default=5)
    b = sub.add_parser("bound")
    b.add_argument("--streams", type=int, default=200)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--streams-long", type=int, default=40, help="streams for end_marks=4")
    b.add_argument("--full-limit", type=int, default=1_500_000)
    le = sub.add_parser("loss-error")
    le.add_argument("--games", type=int, default=2000)
    le.add_argument("--positions", type=int, default=12000)
    le.add_argument("--seed", type=int, default=3)
    rl = sub.add_parser("race-loss-error")
    rl.add_argument("--positions", type=int, default=48)
    rl.add_argument("--rollouts", type=int, default=1000)
    rl.add_argument("--seed", type=int, default=3)
    rl.add_argument("--workers", type=int, default=2)
    rl.add_argument("-o", "--option", action="append", default=[])
    u = sub.add_parser("budget")
    u.add_argument("--out", default=None)
    args = p.parse_args()
    {"quality": quality, "search": search_bench, "diagnose": diagnose, "exact": exact_variants,
     "endgame": endgame, "bound": bound_bench, "budget": budget,
     "loss-error": loss_error_bench, "race-loss-error": race_loss_error_bench}[args.what](args)


if __name__ == "__main__":
    main()
