"""Train a masked-action agent on a dicewise environment and measure it with the oracle.

The agent is sb3-contrib's MaskablePPO: illegal actions are masked out of its policy with
the environment's ``action_masks()``.  Training runs with the oracle off (faster steps);
the evaluation plays fresh games with the oracle on and reports, beside the mean score,
the mean regret per decision — the exact expected points each decision gave away against
optimal play — and, on the same dice, a random agent and the solved optimum.

It needs more than dicewise's ``rl`` extra (a run and its output are in docs/envs.md)::

    pip install 'dicewise[rl]' sb3-contrib
    python examples/train_maskable_ppo.py --ruleset general --steps 8192 --games 200
    python examples/train_maskable_ppo.py --ruleset yahtzee --option joker=forced

``evaluate`` plays any agent with the ``act(observation, info)`` of ``dicewise.envs.agents``
and needs gymnasium only.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import dicewise.envs  # registers the environments
from dicewise.envs.agents import RandomAgent
from dicewise.solver.stats import mean_ci95


def options_of(pairs: list[str]) -> dict:
    """``["joker=forced"]`` -> ``{"joker": "forced"}`` (rule options as gym.make keywords)."""
    return dict(p.split("=", 1) for p in pairs)


def evaluate(act, env_id: str, options: dict, games: int, seed: int) -> dict:
    """Mean score, regret per decision and the optimum of ``act(observation, info)`` over
    games 0, 1, 2... of the dice stream of ``seed`` (a game its first throw ends is skipped)."""
    env = gym.make(env_id, **options)
    scores, played, regret, decisions = [], [], 0.0, 0
    for _ in range(games):
        obs, info = env.reset(seed=seed, options={"game": played[-1] + 1 if played else 0})
        played.append(info["game"])
        done = False
        while not done:
            obs, _, done, _, info = env.step(act(obs, info))
            regret += info["regret"]
            decisions += 1
        scores.append(info["score"])
    lo, hi = mean_ci95(scores)
    return {"games": games, "played": played, "mean_score": float(np.mean(scores)),
            "ci95": (lo, hi), "decisions": decisions, "regret_per_decision": regret / decisions,
            "regret_per_game": regret / games,
            "optimum": env.unwrapped.solution.expected_score,
            "regret_is_exact": info["regret_is_exact"]}


def train(env_id: str, options: dict, steps: int, rollout: int, reward_scale: float,
          seed: int, threads: int = 1, verbose: int = 1):
    """MaskablePPO trained for ``steps`` environment steps with the oracle off."""
    try:
        from sb3_contrib import MaskablePPO
        from sb3_contrib.common.wrappers import ActionMasker
        import torch
    except ImportError as e:
        raise SystemExit(f"this example needs sb3-contrib ({e.name} is missing): "
                         "pip install 'dicewise[rl]' sb3-contrib") from None
    torch.set_num_threads(threads)
    env = gym.make(env_id, oracle=False, **options)
    env = gym.wrappers.TransformReward(env, lambda r: r * reward_scale)
    env = ActionMasker(env, lambda e: e.unwrapped.action_masks())
    model = MaskablePPO("MultiInputPolicy", env, n_steps=rollout,
                        batch_size=min(64, rollout), seed=seed, verbose=verbose)
    model.learn(total_timesteps=steps)
    return model


def policy_agent(model):
    """The trained policy as ``act(observation, info)``: its most likely legal action."""
    def act(observation, info=None):
        action, _ = model.predict(observation, action_masks=observation["action_mask"] > 0,
                                  deterministic=True)
        return int(action)
    return act


def report_line(name: str, report: dict) -> str:
    """One line of an evaluation: mean score with its interval, regret per decision and game."""
    lo, hi = report["ci95"]
    exact = "exact" if report["regret_is_exact"] else "approximate"
    return (f"{name}: mean score {report['mean_score']:.2f} (95% CI {lo:.2f}..{hi:.2f}) over "
            f"{report['games']} games; regret {report['regret_per_decision']:.3f} points per "
            f"decision, {report['regret_per_game']:.2f} per game ({exact})")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="general", choices=sorted(dicewise.envs.ENV_IDS))
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--steps", type=int, default=8192, help="training steps")
    parser.add_argument("--rollout", type=int, default=2048,
                        help="steps collected between two policy updates (PPO's n_steps)")
    parser.add_argument("--games", type=int, default=200, help="evaluation games")
    parser.add_argument("--reward-scale", type=float, default=0.02,
                        help="training rewards are points times this (PPO likes rewards near 1)")
    parser.add_argument("--torch-threads", type=int, default=1,
                        help="torch's threads; the network is small and steps come one at a "
                             "time, so more threads only wait on each other (docs/envs.md)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="no training log")
    args = parser.parse_args(argv)
    env_id, options = dicewise.envs.env_id(args.ruleset), options_of(args.option)

    start = time.perf_counter()
    model = train(env_id, options, args.steps, args.rollout, args.reward_scale, args.seed,
                  args.torch_threads, verbose=0 if args.quiet else 1)
    trained = time.perf_counter() - start
    print(f"{args.ruleset}: trained {model.num_timesteps} steps in {trained:.0f} s "
          f"({model.num_timesteps / trained:.0f} steps/s)")

    start = time.perf_counter()
    ppo = evaluate(policy_agent(model), env_id, options, args.games, seed=args.seed + 1)
    rand = evaluate(RandomAgent(args.seed).act, env_id, options, args.games,
                    seed=args.seed + 1)
    print(report_line("MaskablePPO", ppo))
    print(report_line("random agent", rand))
    print(f"solved optimum {ppo['optimum']:.2f}; evaluated in "
          f"{time.perf_counter() - start:.0f} s")
    return {"steps": model.num_timesteps, "train_seconds": trained, "ppo": ppo,
            "random": rand}


if __name__ == "__main__":
    main()
