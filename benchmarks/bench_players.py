"""Win shares at tables of several players (``dicewise duel RULESET --players N``).

Run from the repository root::

    python benchmarks/bench_players.py                       # every job below
    python benchmarks/bench_players.py general-3 --games 100000 --seed 1

Each job prints one JSON line: A's share of the win with its Wilson 95% interval (a fair
share is 1/N), A's margin over the rivals' mean and its interval, A's and the rivals'
points, the settlement, the CPU seconds of the play (the machine may be shared: wall time
says little) and the exact command that prints the same figures.
"""

from __future__ import annotations

import argparse
import json
import time

#: name -> (ruleset, players, A, B, games)
JOBS = {
    "general-2": ("general", 2, "win", "optimal", 100_000),     # the exact race: 0.522593
    "general-3": ("general", 3, "win", "optimal", 100_000),     # target: share ≥ 0.355
    "general-4": ("general", 4, "win", "optimal", 20_000),
    "poker-programs-4": ("poker-programs", 4, "optimal", "greedy", 20_000),
    # target: CI above 1/2; on shared rolls a deal is one game from both seats: 20,000 deals
    "ryzykant-2": ("ryzykant", 2, "win", "optimal", 40_000),
    "poker-school-2": ("poker-school", 2, "win", "optimal", 20_000),  # target: share ≥ 0.58
    "poker-school-4": ("poker-school", 4, "win", "optimal", 20_000),  # target: share ≥ 0.30
}


def run_job(name: str, games: int | None, seed: int) -> dict:
    from dicewise import api

    ruleset, players, a, b, default_games = JOBS[name]
    games = games or default_games
    api.duel_players(ruleset, players=players, a=a, b=b, games=players, seed=seed)  # tables
    start = time.process_time()
    duel = api.duel_players(ruleset, players=players, a=a, b=b, games=games, seed=seed)
    r = duel.result
    game, rules = api.make_rules(ruleset)
    if players == 2 and 2 in game.players(rules):  # the command line plays the exact race there
        command = f"python benchmarks/bench_players.py {name} --games {games} --seed {seed}"
    else:
        command = (f"dicewise duel {ruleset} --players {players} --a {a} --b {b} --games {games} "
                   f"--seed {seed}")
    return {"job": name, "share": round(r.share, 5), "share_ci95": [round(x, 5) for x in r.share_ci95],
            "fair_share": round(1 / players, 5), "mean_margin": round(r.margin, 3),
            "mean_margin_ci95": [round(x, 3) for x in r.margin_ci95], "points": round(r.points, 3),
            "rival_points": round(r.rival_points, 3), "settlement": round(r.settlement, 3),
            "draws": round(r.ties, 5), "seats": [s.to_json() for s in r.seats],
            "rival_extra": dict(r.rival_extra),
            "games": r.games, "seed": seed, "cpu_seconds": round(time.process_time() - start, 1),
            "command": command}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jobs", nargs="*", default=list(JOBS), choices=list(JOBS))
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for name in args.jobs:
        print(json.dumps(run_job(name, args.games, args.seed), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
