"""Scoring an agent against the optimum: exact regret of every decision, on common dice.

All games advance in lockstep so that each turn's plans are solved once for every game
(vectorised); the agent itself is asked one decision at a time.  The dice are those of
``simulate`` with the same seed, so the optimal policy's scores on the same dice come
from the same stream.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import DicewiseError
from ..solver import dice
from ..solver.category import CategoryGame
from .agents import AgentFailure
from .decisions import best_keeps, plan_turns, write_options
from .protocol import BadAction, legal_actions, parse_action
from .simulate import dice_stream, simulate_games, throw

STAGES = ("roll1", "roll2", "roll3")  # decisions after roll 1, roll 2, and the last write


@dataclass(frozen=True)
class AgentReport:
    """How an agent played: scores, exact regret, its costliest decisions, its failures."""

    ruleset: str
    options: dict
    agent: str
    games: int
    seed: int
    scores: np.ndarray = field(repr=False)
    optimal_scores: np.ndarray = field(repr=False)
    decisions: int
    regret_by_stage: dict
    costliest: tuple
    errors: tuple
    stopped: bool

    def to_json(self) -> dict:
        n = len(self.scores)
        mean = float(self.scores.mean()) if n else math.nan
        se = float(self.scores.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        total = float(sum(self.regret_by_stage.values()))
        diff = self.scores - self.optimal_scores
        return {
            "ruleset": self.ruleset, "options": self.options, "agent": self.agent,
            "games": n, "seed": self.seed, "mean": mean,
            "ci95": [mean - 1.959963984540054 * se, mean + 1.959963984540054 * se],
            "optimal_mean": float(self.optimal_scores.mean()) if n else math.nan,
            "regret_total": total,
            "regret_per_game": total / n if n else math.nan,
            "regret_per_decision": total / self.decisions if self.decisions else math.nan,
            "regret_by_stage": self.regret_by_stage,
            "decisions": self.decisions,
            "win_rate_vs_optimal": {"wins": float((diff > 0).mean()) if n else math.nan,
                                    "draws": float((diff == 0).mean()) if n else math.nan,
                                    "losses": float((diff < 0).mean()) if n else math.nan},
            "costliest": list(self.costliest),
            "errors": list(self.errors),
            "stopped": self.stopped,
        }


def bench_agent(game: CategoryGame, values: np.ndarray, agent, games: int, seed: int,
                on_error: str = "continue", log=None, progress=None) -> AgentReport:
    """Play ``games`` games with ``agent`` and measure each decision's exact expected loss.

    On a failure or illegal action the error is recorded and, with ``on_error="continue"``,
    the optimal action is played instead; with ``"stop"`` the run ends there.  ``log`` (a
    text file) receives one {"observation", "action"} line per decision, for ``review``.
    """
    if on_error not in ("continue", "stop"):
        raise DicewiseError("--on-error is continue or stop")
    if games < 1:
        raise DicewiseError("the number of games must be at least 1")
    n = game.n_categories
    names = game.category_names
    stream = dice_stream(seed, games, n)
    masks = np.zeros(games, np.int64)
    extras = np.full(games, game.initial_extra, np.int64)
    points = np.zeros(games)
    sheets = [dict() for _ in range(games)]
    bonus_counts = np.zeros(games, np.int64)
    ended = np.zeros(games, bool)
    regret = dict.fromkeys(STAGES, 0.0)
    decisions, costly, errors = 0, [], []
    end_value = game.first_roll_end()
    stopped = False
    for t in range(n):
        live = np.flatnonzero(~ended)
        states = masks[live] * game.n_extra + extras[live]
        uniq, cols = np.unique(states, return_inverse=True)
        plan = plan_turns(game, values, *np.divmod(uniq, game.n_extra))
        kept = np.zeros((len(live), dice.N_FACES), np.int64)
        todo = np.arange(len(live))
        for k in (1, 2, 3):
            todo, rolls = throw(kept, stream[live[todo], t, k - 1], end_value, k, todo, live, ended)
            gi = live[todo]
            opts = write_options(game, values, masks[gi], extras[gi], rolls, k)
            if k < 3:
                best_keep, best_keep_value = best_keeps(plan.keep[k - 1], cols[todo], rolls)
            going = []
            for i, g in enumerate(gi):
                faces = dice.faces_of(dice.ROLLS[rolls[i]])
                open_boxes = [names[c] for c in range(n) if np.isfinite(opts.value[i, c])]
                best_write = int(opts.value[i].argmax())
                best_value = opts.value[i, best_write]
                best = {"write": names[best_write]}
                if k < 3 and best_keep_value[i] > best_value:
                    best_value = best_keep_value[i]
                    best = {"keep": dice.faces_of(dice.KEEPS[best_keep[i]])}
                obs = {"ruleset": game.name, "options": game.options, "game": int(g), "turn": t + 1,
                       "roll": k, "dice": faces, "sheet": dict(sheets[g]),
                       "counters": _counters(game, bonus_counts[g]), "points": float(points[g]),
                       "legal": legal_actions(faces, k, open_boxes)}
                reply = None
                try:
                    reply = agent.act(obs)
                    kind, arg = parse_action(reply, faces, k, open_boxes)
                except (AgentFailure, BadAction) as e:
                    sent = e.sent if isinstance(e, AgentFailure) else _short(reply)
                    errors.append({"game": int(g), "turn": t + 1, "roll": k, "dice": faces,
                                   "error": str(e), "sent": sent})
                    if on_error == "stop":
                        stopped = True
                        break
                    reply = best
                    kind, arg = parse_action(best, faces, k, open_boxes)
                if kind == "keep":
                    chosen = plan.keep[k - 1][dice.keep_indices(arg[None, :])[0], cols[todo[i]]]
                else:
                    chosen = opts.value[i, names.index(arg)]
                loss = max(float(best_value - chosen), 0.0)
                decisions += 1
                regret[STAGES[k - 1]] += loss
                costly.append((loss, {"game": int(g), "turn": t + 1, "roll": k, "dice": faces,
                                      "sheet": dict(sheets[g]), "chose": reply, "best": best,
                                      "loss": loss}))
                if len(costly) > 50:
                    costly = sorted(costly, key=lambda x: -x[0])[:5]
                if log is not None:
                    log.write(json.dumps({"observation": obs, "action": reply}) + "\n")
                if kind == "keep":
                    going.append(i)
                    kept[todo[i]] = arg
                else:
                    c = names.index(arg)
                    points[g] += opts.points[i, c]
                    sheets[g][arg] = int(round(opts.score[i, c]))
                    bonus_counts[g] += opts.points[i, c] > opts.score[i, c]
                    masks[g], extras[g] = divmod(int(opts.next_state[i, c]), game.n_extra)
            if stopped:
                break
            todo = todo[np.array(going, dtype=np.int64)]
        if stopped:
            break
        if progress is not None:
            progress(1)
    done = np.flatnonzero((masks == (1 << n) - 1) | ended)
    final = points.copy()
    full = masks == (1 << n) - 1
    final[full] += game.final_bonus(extras[full])
    optimal = simulate_games(game, values, "optimal", games, seed).scores
    costliest = tuple(c for _, c in sorted(costly, key=lambda x: -x[0])[:5])
    return AgentReport(game.name, game.options, getattr(agent, "name", "agent"), games, seed,
                       final[done], optimal[done], decisions, regret, costliest, tuple(errors),
                       stopped)


def _counters(game, bonus_count) -> dict:
    return {name: int(bonus_count) for name in game.sheet_counters}


def _short(obj):
    text = repr(obj)
    return text if len(text) <= 200 else text[:200] + "..."
