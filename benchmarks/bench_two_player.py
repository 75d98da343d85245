"""Timing of two-player General: one layer, a late sub-game, the whole game.

    python benchmarks/bench_two_player.py layer --layer 10 --workers 1 2 [--processes]
    python benchmarks/bench_two_player.py subgame --open 5
    python benchmarks/bench_two_player.py full --workers 2 [--edge] [--out FILE]
    python benchmarks/bench_two_player.py duel --out FILE --games 100000 --duel win optimal

``layer`` solves (part of) one layer with random next-layer values — the work does not
depend on the values — on 1, 2… threads, and extrapolates the whole solve from the
measured time per state (75.6 million states in all).  ``subgame`` solves the race from
two sheets with ``--open`` boxes open each.  ``full`` runs the checkpointed driver on the
whole game and prints the first player's chances; with ``--edge`` it also evaluates the
win-optimal policy against the expected-score one exactly (both seats, and P(draw)).
``duel`` simulates policies against each other on the whole game's table (shared dice,
seats alternating): an estimate with its 95% interval, in seconds rather than the exact
evaluation's two solves' time.

Each figure prints as one JSON line, with the wall time and the CPU time of the process:
on a shared machine, CPU time below workers × wall time means other work had the cores.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from dicewise.solver.category import solve_states  # noqa: E402
from dicewise.solver.rulesets import category_game  # noqa: E402
from dicewise.solver.two_player import build_layout, solve_subgame, two_player_rules  # noqa: E402
from dicewise.solver.two_player.layers import solve_chunk  # noqa: E402
from dicewise.solver.two_player.solve import duel_edge, layer_chunks  # noqa: E402
from dicewise.solver import runtime  # noqa: E402


def emit(**fields):
    print(json.dumps(fields), flush=True)


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def bench_layer(args, game):
    rules = two_player_rules(game)
    layout = build_layout(rules)
    t = args.layer
    nxt_slice = layout.layer_values(t + 1)
    nxt = np.random.default_rng(0).random(nxt_slice.stop - nxt_slice.start).astype("float32")
    chunks = layer_chunks(layout, t, args.chunk)
    chunks = chunks[:args.chunks] if args.chunks else chunks
    states = sum(int(layout.width[c].sum()) for c in chunks)
    base = None
    for workers in args.workers:
        # forked workers share the layer copy-on-write; no GIL between them
        with (runtime.Forked if args.processes else runtime.Threads)(workers) as where:
            _, wall, cpu = timed(lambda: list(where.map(solve_chunk, chunks, rules, layout, t, nxt)))
        per_state = wall / states
        base = base or wall
        emit(what="layer", layer=t, states=states, workers=workers,
             runner="processes" if args.processes else "threads", wall_s=round(wall, 2),
             cpu_s=round(cpu, 2), us_per_state=round(per_state * 1e6, 3),
             speedup=round(base / wall, 2),
             full_solve_estimate_min=round(per_state * layout.n_values / 60, 1))


def bench_subgame(args, game):
    n = game.n_categories
    full = (1 << n) - 1
    mover = full & ~((1 << args.open) - 1)  # the first boxes open for the mover
    other = full & ~(((1 << args.open) - 1) << (n - args.open))  # the last ones for the other
    values, wall, cpu = timed(lambda: solve_subgame(game, mover, other))
    emit(what="subgame", open_each=args.open, pairs=values.layout.n_pairs,
         states=values.layout.n_values, wall_s=round(wall, 2), cpu_s=round(cpu, 2),
         value=values.value(mover, other, 0))


def bench_full(args, game):
    from dicewise.tables.two_player import solve_two_player

    @contextlib.contextmanager
    def progress(units, label):  # the table store's progress: one update per finished layer
        yield lambda states: emit(what="layer-done", states=states,
                                  at_s=round(time.perf_counter() - start, 1))

    start = time.perf_counter()
    solution, wall, cpu = timed(lambda: solve_two_player(
        game, args.out, scheduler=args.scheduler, workers=args.workers[0], rebuild=args.rebuild,
        progress=progress))
    values = solution.values
    emit(what="full", runner=solution.runner, workers=solution.workers, wall_s=round(wall, 1),
         cpu_s=round(cpu, 1), resumed_layers=solution.resumed_layers, table=str(solution.path),
         first_player_value=values.root_value, layer_seconds=solution.layer_seconds)
    if args.edge:
        solitaire = solve_states(game)
        with runtime.local(args.workers[0]) as where:
            edge, wall, cpu = timed(lambda: duel_edge(values, solitaire.values, 0, where))
        emit(what="edge", wall_s=round(wall, 1), cpu_s=round(cpu, 1), **edge)


def bench_duel(args, game):
    from dicewise.solver.two_player import make_policy, simulate_duel
    from dicewise.tables.two_player import solve_two_player

    values = solve_two_player(game, args.out).values  # loads the table (solves it if missing)
    solitaire = solve_states(game)
    for a, b in args.duel:
        pa, pb = (make_policy(p, values, solitaire.values) for p in (a, b))
        duel, wall, cpu = timed(lambda: simulate_duel(values, pa, pb, args.games, args.seed))
        emit(what="duel", wall_s=round(wall, 1), cpu_s=round(cpu, 1), **duel.to_json())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("layer", "subgame", "full", "duel"))
    parser.add_argument("--layer", type=int, default=10, help="layer to time (0..19)")
    parser.add_argument("--chunks", type=int, default=0, help="time only the first N chunks")
    parser.add_argument("--chunk", type=int, default=1 << 17, help="states per chunk")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--processes", action="store_true",
                        help="layer: time forked processes instead of threads")
    parser.add_argument("--open", type=int, default=5, help="boxes open each (subgame)")
    parser.add_argument("--scheduler", default=None, help="runner of the full solve")
    parser.add_argument("--out", default=None, help="table file of the full solve")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--edge", action="store_true", help="also evaluate win vs expected play")
    parser.add_argument("--duel", nargs=2, action="append", metavar=("A", "B"),
                        help="simulate policy A against B on the table (repeatable)")
    parser.add_argument("--games", type=int, default=100000)
    parser.add_argument("--seed", type=int, default=1)
    for opt in ("straight", "big_general"):
        parser.add_argument(f"--{opt.replace('_', '-')}", dest=opt, default=None)
    args = parser.parse_args(argv)
    options = {k: v for k, v in (("straight", args.straight), ("big_general", args.big_general)) if v}
    game = category_game("general", **options)
    emit(what="machine", cpus=os.cpu_count(), load=[round(x, 2) for x in os.getloadavg()])
    args.duel = args.duel or [("win", "optimal")]
    {"layer": bench_layer, "subgame": bench_subgame, "full": bench_full,
     "duel": bench_duel}[args.what](args, game)


if __name__ == "__main__":
    main()
