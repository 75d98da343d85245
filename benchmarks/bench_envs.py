"""Timing of the environments and their oracle: regret queries and environment steps per second.

Run from the repository with the ``rl`` extra installed::

    python benchmarks/bench_envs.py                      # general and poker-programs
    python benchmarks/bench_envs.py --rulesets general poker-programs yahtzee yatzy

The tables are built or loaded from the cache first (Yahtzee and Yatzy take seconds to a
minute to solve once); only the timed calls are timed.  Figures:

* **oracle** — ``CategoryOracle.judge`` (what ``regret_batch`` calls) on one batch of
  positions with an action each: ``played``, every decision of ``--games`` games of random
  play (the positions an agent's rollouts produce: each turn-start state serves about two
  decisions, and early states repeat across games); ``uniform``, as many positions drawn
  uniformly over the reachable states, rolls and roll numbers (nearly every position its
  own state: the worst case, one turn solve per query).
* **env** — steps per second of a plain loop with uniformly random legal actions: the
  single environment (``gym.make``) with and without the oracle, ``SyncVectorEnv`` of 8,
  and the native vector environment (``gym.make_vec``) of ``--envs`` games.
* **agreement** (``--agree N``, with ``--seed``) — the optimal agent played through the
  native vector environment on the first N games of the seed's dice stream against
  ``simulate``'s optimal policy on the same dice: how many of the games played end on
  another score (choices of equal value broken apart by rounding; docs/envs.md).
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym
import numpy as np

import dicewise.envs
from dicewise.api import make_rules
from dicewise.envs.agents import RandomAgent
from dicewise.envs.oracle import category_oracle
from dicewise.solver import dice


def played_positions(name: str, games: int, seed: int = 1):
    """Every decision (position and random legal action) of ``games`` games of random play."""
    env = gym.make_vec(dicewise.envs.env_id(name), num_envs=games, oracle=False)
    base, agent = env.unwrapped, RandomAgent(seed)
    obs, info = env.reset(seed=seed)
    rows = []
    while (info["game"] < games).any():
        act = agent.act_batch(obs)
        live = np.flatnonzero(obs["action_mask"].any(axis=1) & (info["game"] < games))
        rows.append(np.stack([base.mask[live], base.extra[live], base.roll[live],
                              base.roll_number[live], act[live]], axis=1))
        obs, _, _, _, info = env.step(act)
    return np.concatenate(rows).T


def uniform_positions(name: str, n: int, seed: int = 1):
    """``n`` positions uniform over reachable states, rolls and roll numbers, random actions."""
    game, rules = make_rules(name)
    oracle = category_oracle(game, rules)
    rng = np.random.default_rng(seed)
    values = oracle.values
    states = np.flatnonzero(~np.isnan(values))
    states = states[states // rules.n_extra != (1 << rules.n_categories) - 1]
    masks, extras = np.divmod(rng.choice(states, n), rules.n_extra)
    rolls, numbers = rng.integers(0, dice.N_ROLLS, n), rng.integers(1, 4, n)
    end = rules.first_roll_end()
    if end is not None:  # a first-roll end has no decision: throw again
        numbers[(numbers == 1) & ~np.isnan(end[rolls])] = 2
    from dicewise.solver.rulesets.decisions import write_options

    legal_writes = np.isfinite(write_options(rules, values, masks, extras, rolls, numbers).value)
    keeps = dice.SUB_KEEPS[rolls]
    n_keeps = np.where(numbers < 3, (keeps >= 0).sum(axis=1), 0)
    n_writes = legal_writes.sum(axis=1)
    pick = (rng.random(n) * (n_keeps + n_writes)).astype(np.int64)
    box = (np.cumsum(legal_writes, axis=1) <= (pick - n_keeps)[:, None]).sum(axis=1)
    actions = np.where(pick < n_keeps, keeps[np.arange(n), np.minimum(pick, 31)],
                       dice.N_KEEPS + box)
    return masks, extras, rolls, numbers, actions


def time_oracle(name: str, positions, repeat: int) -> dict:
    game, rules = make_rules(name)
    oracle = category_oracle(game, rules)
    masks, extras = positions[0], positions[1]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        regret = oracle.judge(*positions).regret
        best = min(best, time.perf_counter() - start)
    states = len(np.unique(masks * rules.n_extra + extras))
    return {"queries": len(masks), "distinct_states": states,
            "seconds": round(best, 3), "queries_per_second": round(len(masks) / best),
            "mean_regret": float(regret.mean())}


def time_env_loop(make, steps: int, batch: int = 1) -> float:
    """Steps per second of random legal play (``batch`` sub-environments per call)."""
    env = make()
    agent = RandomAgent(0)
    obs, _ = env.reset(seed=1)
    done = 0
    start = time.perf_counter()
    while done < steps:
        if batch == 1:
            obs, _, terminated, _, _ = env.step(agent.act(obs))
            if terminated:
                obs, _ = env.reset()
        else:
            obs, *_ = env.step(agent.act_batch(obs))
        done += batch
    return done / (time.perf_counter() - start)


def agreement(name: str, games: int, seed: int) -> dict:
    """Games whose score the optimal agent (native vector env) and ``simulate`` part on."""
    from dicewise.api import simulate
    from dicewise.envs.agents import OptimalAgent

    env = gym.make_vec(dicewise.envs.env_id(name), num_envs=256, oracle=True)
    agent = OptimalAgent()
    obs, info = env.reset(seed=seed)
    scores = {}
    while (info["game"] < games).any():
        obs, _, terminated, _, info = env.step(agent.act_batch(obs, info))
        for j in np.flatnonzero(terminated & (info["game"] < games)):
            scores[int(info["game"][j])] = info["score"][j]
    reference = simulate(name, policy="optimal", games=games, seed=seed).scores
    played = np.array(sorted(scores))  # a game its first throw ends has no decision
    agent_scores = np.array([scores[g] for g in played])
    apart = played[agent_scores != reference[played]]
    return {"ruleset": name, "seed": seed, "games_played": len(played),
            "games_apart": len(apart), "first_apart": apart[:10].tolist(),
            "agent_mean": float(agent_scores.mean()),
            "simulate_mean": float(reference[played].mean())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rulesets", nargs="+", default=["general", "poker-programs"])
    parser.add_argument("--games", type=int, default=4000, help="games of random play (oracle)")
    parser.add_argument("--steps", type=int, default=3000, help="steps of the single env loop")
    parser.add_argument("--envs", type=int, default=1024, help="games of the native vector env")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--agree", type=int, metavar="N",
                        help="only compare the optimal agent with simulate on N games")
    parser.add_argument("--seed", type=int, default=5, help="the dice stream of --agree")
    args = parser.parse_args()
    if args.agree:
        rows = [agreement(name, args.agree, args.seed) for name in args.rulesets]
        for r in rows if not args.json else ():
            print(f"{r['ruleset']:15s} seed {r['seed']}: {r['games_apart']:,} of "
                  f"{r['games_played']:,} games end on another score than simulate's "
                  f"(means {r['agent_mean']:.4f} and {r['simulate_mean']:.4f})")
        if args.json:
            print(json.dumps(rows, indent=2))
        return
    report = []
    for name in args.rulesets:
        game, rules = make_rules(name)
        category_oracle(game, rules)  # build or load the table before any timing
        gid = dicewise.envs.env_id(name)
        played = played_positions(name, args.games)
        row = {"ruleset": name,
               "oracle_played": time_oracle(name, played, args.repeat),
               "oracle_uniform": time_oracle(name, uniform_positions(name, played.shape[1]),
                                             args.repeat)}
        env = {
            "single": time_env_loop(lambda: gym.make(gid).unwrapped, args.steps),
            "single_no_oracle": time_env_loop(lambda: gym.make(gid, oracle=False).unwrapped,
                                              args.steps),
            "sync_vector_8": time_env_loop(lambda: gym.make_vec(gid, 8, vectorization_mode="sync"),
                                           args.steps, 8),
            f"native_vector_{args.envs}": time_env_loop(
                lambda: gym.make_vec(gid, args.envs), 40 * args.envs, args.envs),
            f"native_vector_{args.envs}_no_oracle": time_env_loop(
                lambda: gym.make_vec(gid, args.envs, oracle=False), 40 * args.envs, args.envs)}
        row["env_steps_per_second"] = {k: round(v) for k, v in env.items()}
        report.append(row)
        if not args.json:
            for kind in ("played", "uniform"):
                o = row[f"oracle_{kind}"]
                print(f"{name:15s} oracle {kind:8s} {o['queries']:>8,} queries "
                      f"({o['distinct_states']:>7,} states) {o['seconds']:7.3f} s  "
                      f"{o['queries_per_second']:>9,} /s")
            for k, v in row["env_steps_per_second"].items():
                print(f"{name:15s} env    {k:28s} {v:>9,} steps/s")
    if args.json:
        print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
