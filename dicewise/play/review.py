"""Reviewing a logged game: each decision beside the best one and the points it lost."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..errors import DicewiseError
from ..solver.advice import advise_position
from ..solver.category import CategoryGame, StateValues
from ..solver.sheet import parse_sheet


@dataclass(frozen=True)
class Reviewed:
    """One logged decision, judged."""

    line: int
    turn: int | None
    roll: int
    dice: tuple[int, ...]
    chose: dict
    chose_expected: float
    best: dict
    best_expected: float
    loss: float


def review_lines(game: CategoryGame, solved: StateValues, lines) -> list[Reviewed]:
    """Judge every ``{"observation", "action"}`` line of a log (the agent protocol's)."""
    out = []
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
            obs, action = record["observation"], record["action"]
            spec = ",".join(f"{k}={v}" for k, v in {**obs.get("sheet", {}),
                                                     **obs.get("counters", {})}.items())
            faces, roll = obs["dice"], int(obs["roll"])
        except (ValueError, KeyError, TypeError, AttributeError):
            raise DicewiseError(f"line {number}: expected {{\"observation\": ..., \"action\": ...}} "
                                "as the agent protocol writes them") from None
        if obs.get("ruleset", game.name) != game.name:
            raise DicewiseError(f"line {number}: a {obs.get('ruleset')} game, not {game.name}")
        advice = advise_position(game, solved, parse_sheet(game, spec), faces, roll)
        if advice.best is None:
            continue
        chosen = _find(advice, action, number)
        out.append(Reviewed(number, obs.get("turn"), roll, advice.dice, action, chosen.expected,
                            _as_action(advice.best), advice.best.expected, chosen.loss))
    return out


def _as_action(choice) -> dict:
    return {"keep": list(choice.dice)} if choice.action == "keep" else {"write": choice.category}


def _find(advice, action, number):
    for choice in advice.choices:
        if _as_action(choice) == ({"keep": sorted(action["keep"])} if "keep" in action else action):
            return choice
    raise DicewiseError(f"line {number}: {json.dumps(action)} is not a legal action there")
