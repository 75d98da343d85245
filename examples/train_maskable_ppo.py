"""Train a masked-action agent on a dicewise environment and measure it with the oracle.

The agent is sb3-contrib's MaskablePPO: illegal actions are masked out of its policy with
the environment's ``action_masks()``.  Training runs with the oracle off (faster steps);
the evaluation plays fresh games with the oracle on and reports, beside the mean score,
the mean regret per decision — the exact expected points each decision gave away against
optimal play — and the solved optimum.

Not run in CI; it needs more than dicewise's ``rl`` extra::

    pip install 'dicewise[rl]' sb3-contrib
    python examples/train_maskable_ppo.py --ruleset general --steps 200000 --games 500
    python examples/train_maskable_ppo.py --ruleset yahtzee --option joker=forced
"""

from __future__ import annotations

import argparse

try:
    import gymnasium as gym
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
except ImportError as e:
    raise SystemExit(f"this example needs gymnasium and sb3-contrib ({e.name} is missing): "
                     "pip install 'dicewise[rl]' sb3-contrib") from None

import numpy as np

import dicewise.envs  # registers the environments
from dicewise.solver.stats import mean_ci95


def options_of(pairs: list[str]) -> dict:
    """``["joker=forced"]`` -> ``{"joker": "forced"}`` (rule options as gym.make keywords)."""
    return dict(p.split("=", 1) for p in pairs)


def evaluate(model, env_id: str, options: dict, games: int, seed: int) -> dict:
    """Mean score, regret per decision and the optimum over ``games`` fresh games."""
    env = gym.make(env_id, **options)
    scores, regret, decisions = [], 0.0, 0
    for g in range(games):
        obs, info = env.reset(seed=seed, options={"game": g})
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=obs["action_mask"] > 0,
                                      deterministic=True)
            obs, _, done, _, info = env.step(int(action))
            regret += info["regret"]
            decisions += 1
        scores.append(info["score"])
    lo, hi = mean_ci95(scores)
    return {"games": games, "mean_score": float(np.mean(scores)), "ci95": (lo, hi),
            "regret_per_decision": regret / decisions, "regret_per_game": regret / games,
            "optimum": env.unwrapped.solution.expected_score,
            "regret_is_exact": info["regret_is_exact"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="general", choices=sorted(dicewise.envs.ENV_IDS))
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--steps", type=int, default=200_000, help="training steps")
    parser.add_argument("--games", type=int, default=500, help="evaluation games")
    parser.add_argument("--reward-scale", type=float, default=0.02,
                        help="training rewards are points times this (PPO likes rewards near 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env_id, options = dicewise.envs.env_id(args.ruleset), options_of(args.option)

    env = gym.make(env_id, oracle=False, **options)
    env = gym.wrappers.TransformReward(env, lambda r: r * args.reward_scale)
    env = ActionMasker(env, lambda e: e.unwrapped.action_masks())
    model = MaskablePPO("MultiInputPolicy", env, seed=args.seed, verbose=1)
    model.learn(total_timesteps=args.steps)

    report = evaluate(model, env_id, options, args.games, seed=args.seed + 1)
    lo, hi = report["ci95"]
    exact = "exact" if report["regret_is_exact"] else "approximate"
    print(f"{args.ruleset}: mean score {report['mean_score']:.2f} (95% CI {lo:.2f}..{hi:.2f}) "
          f"over {report['games']} games; optimum {report['optimum']:.2f}")
    print(f"mean regret per decision {report['regret_per_decision']:.3f} points "
          f"({report['regret_per_game']:.2f} per game, {exact})")


if __name__ == "__main__":
    main()
