"""Scoring an agent against the optimum: the regret of every decision, on common dice.

Generic over the game protocol: the agent plays each game as an ``Episode``; before each
decision the game's advisor values every legal action, so the regret of the agent's choice
is the best value minus its value (exact for exact games, labelled approximate otherwise).
The optimal policy plays the same dice stream (``game.play`` with the same seed) for the
game-by-game comparison.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import DicewiseError
from ..solver.protocol import BadAction, Solution
from ..solver.stats import mean_ci95, share_ci95
from .agents import AgentFailure

#: Consecutive agent failures after which a run stops (a hung or broken bot).
MAX_FAILURES = 3


@dataclass(frozen=True)
class AgentReport:
    """How an agent played: scores, regret, its costliest decisions, its failures."""

    ruleset: str
    rule_options: dict
    agent: str
    seed: int
    scores: np.ndarray = field(repr=False)
    optimal_scores: np.ndarray = field(repr=False)
    decisions: int
    regret_by_stage: dict
    costliest: tuple
    errors: tuple
    stopped: str | None  # why the run stopped early, if it did
    approximate: bool
    error_estimate: float | None
    objective: str = "expected_score"  # "target", or "win": a race, a game's score its outcome
    #: The regret of the finished games (a stopped game's judged decisions are only in the
    #: total), and the sum of their decisions' ``loss_error`` (None where values are exact).
    finished_regret: float = 0.0
    finished_loss_error: float | None = None

    @property
    def regret_unit(self) -> str:
        """What a regret is: points, or a probability where the objective is a target or a win."""
        return "points" if self.objective == "expected_score" else "probability"

    def to_json(self) -> dict:
        """What ``bench-agent --json`` prints: NaN (no game played, one game's interval) is
        null, so ``json.dumps`` writes valid JSON."""
        from ..api import jsonable

        return jsonable(self._fields())

    def _fields(self) -> dict:
        n = len(self.scores)
        total = float(sum(self.regret_by_stage.values()))
        diff = self.scores - self.optimal_scores
        rate = (lambda x: float(x.mean())) if n else (lambda x: math.nan)
        return {
            "ruleset": self.ruleset, "rule_options": self.rule_options, "agent": self.agent,
            "games": n, "seed": self.seed,
            "mean": float(self.scores.mean()) if n else math.nan,
            # a race's outcomes are 1, ½ or 0: a share's interval, inside [0, 1]
            "ci95": (list((share_ci95 if self.objective == "win" else mean_ci95)(self.scores))
                     if n else [math.nan, math.nan]),
            "optimal_mean": float(self.optimal_scores.mean()) if n else math.nan,
            "regret_total": total,
            "regret_per_game": self.finished_regret / n if n else math.nan,
            "regret_per_game_error": (self.finished_loss_error / n
                                      if n and self.finished_loss_error is not None
                                      else None),
            "regret_per_decision": total / self.decisions if self.decisions else math.nan,
            "regret_by_stage": self.regret_by_stage,
            "decisions": self.decisions,
            "win_rate_vs_optimal": {"wins": rate(diff > 0), "draws": rate(diff == 0),
                                    "losses": rate(diff < 0)},
            "approximate": self.approximate, "error_estimate": self.error_estimate,
            "regret_unit": self.regret_unit, "objective": self.objective,
            "costliest": list(self.costliest),
            "errors": list(self.errors),
            "error_kinds": self.error_kinds(),
            "restarts": self.restarts(),
            "stopped": self.stopped,
        }


    def error_kinds(self) -> dict:
        """How many failures of each kind: exception, crash, timeout, malformed, illegal."""
        kinds: dict[str, int] = {}
        for e in self.errors:
            kinds[e.get("kind", "error")] = kinds.get(e.get("kind", "error"), 0) + 1
        return kinds

    def restarts(self) -> int:
        """Times an agent program was started again after it crashed, hung or wrote what
        is not JSON (out of step with the protocol)."""
        dead = [e for e in self.errors if e.get("kind") in ("crash", "timeout", "malformed")]
        return len(dead) - (1 if self.stopped and dead and dead[-1] is self.errors[-1] else 0)


#: What an observation holds besides its position: the run's rules and the choices. A costly
#: decision keeps the rest, whatever the game adds (Ryzykant's fifth-die marks, a counter).
NOT_POSITION = ("ruleset", "options", "legal")

#: The regret's stages of a game with roll numbers.
ROLL_STAGES = ("roll1", "roll2", "roll3")


def stage_of(observation: dict) -> str:
    """The decision's stage for the regret split: after roll 1, 2 or 3, or one stage."""
    return f"roll{observation['roll']}" if "roll" in observation else "decision"


def bench_agent(solution: Solution, agent, games: int, seed: int, on_error: str = "continue",
                log=None, progress=None, max_failures: int = MAX_FAILURES) -> AgentReport:
    """Play ``games`` games with ``agent`` and measure each decision's expected loss.

    On a failure or an illegal action the error is recorded and, with ``on_error="continue"``,
    the best action is played instead (a decision of dicewise's, not judged as the agent's);
    with ``"stop"`` the run ends there.  ``max_failures``
    failures in a row end the run too (a hung bot is reported, not waited on forever).  ``log``
    (a text file) receives one {"observation", "action"} line per decision, for ``review``.
    """
    if on_error not in ("continue", "stop"):
        raise DicewiseError("--on-error is continue or stop")
    if games < 1:
        raise DicewiseError("the number of games must be at least 1")
    if max_failures < 1:
        raise DicewiseError("--max-failures must be at least 1")
    game = solution.game
    regret: dict[str, float] = {}
    decisions, costly, errors, streak, stopped = 0, [], [], 0, None
    objective = "expected_score"
    finished = []
    finished_regret, finished_error = 0.0, None
    for ep in game.episodes(solution, seed, games):
        game_regret, game_error = 0.0, None
        while not ep.done and stopped is None:
            obs = ep.observation()
            advice = game.advise_observation(solution, obs)
            best = advice.best
            objective = advice.objective
            reply, failure = None, None
            try:
                reply = agent.act(obs)
                action = game.canonical_action(reply)
                chosen = advice.choice_for(action)
                streak = 0
            except (AgentFailure, BadAction) as e:
                streak += 1
                errors.append({"game": obs.get("game"), "turn": obs.get("turn"), "roll": obs.get("roll"),
                               "dice": obs.get("dice"), "error": _cut(str(e)),
                               "kind": e.kind if isinstance(e, AgentFailure) else "illegal",
                               "sent": e.sent if isinstance(e, AgentFailure) else _short(reply)})
                if on_error == "stop":
                    stopped = f"stopped at the agent's first error: {errors[-1]['error']}"
                elif streak >= max_failures:
                    times = "once" if streak == 1 else f"{streak} times in a row"
                    stopped = f"the agent failed {times} (last: {errors[-1]['error']})"
                if stopped:
                    break
                action, chosen = best.action, None  # played in the agent's place: not judged
                failure = {"kind": errors[-1]["kind"], "error": errors[-1]["error"]}
            stage = stage_of(obs)
            # every stage of the game is reported, 0 where none was judged: a turn has three
            # rolls (solver/turn.py), whether or not the agent ever rolled again
            for key in ROLL_STAGES if stage in ROLL_STAGES else (stage,):
                regret.setdefault(key, 0.0)
            if chosen is not None:
                loss = max(float(best.value - chosen.value), 0.0)
                decisions += 1
                regret[stage] += loss
                game_regret += loss
                if chosen.loss_error is not None:
                    game_error = (game_error or 0.0) + chosen.loss_error
                if loss > 0:  # the best choice (or one as good) is no costly decision
                    costly.append((loss, {
                        "game": obs.get("game"), "turn": obs.get("turn"), "roll": obs.get("roll"),
                        "dice": obs.get("dice"), "sheet": obs.get("sheet"),
                        **{k: v for k, v in obs.items() if k not in NOT_POSITION},
                        "chose": action, "best": best.action, "chose_label": chosen.label,
                        "best_label": best.label, "loss": loss, **_error_of(chosen)}))
                    if len(costly) > 50:
                        costly = sorted(costly, key=lambda x: -x[0])[:5]
            if log is not None:
                # the best action played for a failed agent says so: review does not judge it
                log.write(json.dumps({"observation": obs, "action": action,
                                      **({"substituted": failure} if failure else {})}) + "\n")
            ep.apply(action)
        if stopped is not None:
            break
        finished.append(ep.score)
        finished_regret += game_regret
        if game_error is not None:
            finished_error = (finished_error or 0.0) + game_error
        if progress is not None:
            progress(1)
    # the optimal policy on the games played, not on all that were asked for (a bot that
    # stops the run at once is reported at once): game i's dice do not depend on the count
    optimal = game.play(solution, "optimal", len(finished), seed).scores if finished else []
    costliest = tuple(c for _, c in sorted(costly, key=lambda x: -x[0])[:5])
    return AgentReport(game.name, solution.rule_options, getattr(agent, "name", "agent"), seed,
                       np.asarray(finished, dtype=np.float64), np.asarray(optimal, np.float64),
                       decisions, regret, costliest, tuple(errors), stopped,
                       solution.approximate, solution.error_estimate, objective,
                       finished_regret, finished_error)


def _error_of(choice) -> dict:
    """A choice's ``loss_error`` and ``close_call``, where its values are approximate."""
    if choice.loss_error is None:
        return {}
    return {"loss_error": choice.loss_error, "close_call": choice.close_call}


def _cut(text: str, limit: int = 200) -> str:
    """An error about what an agent sent, cut in the middle to about ``limit`` characters
    (an action of a thousand dice would fill the screen; its head and the verdict stay)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit // 2].rstrip()} ... {text[-limit // 2:].lstrip()}"


def _short(obj):
    """What an agent sent, as JSON where it is JSON (cut to 200 characters)."""
    try:
        text = json.dumps(obj, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(obj)
    return text if len(text) <= 200 else text[:200] + "..."
