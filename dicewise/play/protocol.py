"""The agent protocol: what an agent sees (an observation) and what it answers (an action).

Observation (a JSON object)::

    {"ruleset": "yahtzee", "options": {"joker": "free"}, "game": 0, "turn": 1, "roll": 2,
     "dice": [1, 3, 3, 5, 6], "sheet": {"ones": 2}, "counters": {}, "points": 2,
     "legal": [{"keep": [3, 3]}, ..., {"write": "chance"}, ...]}

Action: ``{"keep": [3, 3]}`` (roll the other dice again; only before roll 3) or
``{"write": "chance"}``.  ``legal`` lists every distinct legal action.
"""

from __future__ import annotations

from ..errors import DicewiseError
from ..solver import dice


class BadAction(DicewiseError):
    """An agent's answer that is not a legal action in its position."""


def legal_actions(faces, roll: int, open_boxes) -> list[dict]:
    """Every distinct action: keeps (before roll 3) and writes of the allowed boxes."""
    out = []
    if roll < 3:
        r = dice.roll_index(dice.counts_of(faces))
        out = [{"keep": dice.faces_of(dice.KEEPS[k])} for k in dice.sub_keeps(r)]
    return out + [{"write": name} for name in open_boxes]


def parse_action(reply, faces, roll: int, open_boxes) -> tuple[str, object]:
    """Check an agent's reply: ("keep", face counts) or ("write", box name), or BadAction."""
    if not isinstance(reply, dict) or len(reply) != 1:
        raise BadAction(f"an action is {{\"keep\": [...]}} or {{\"write\": box}}, not {reply!r}")
    (kind, arg), = reply.items()
    if kind == "write":
        if arg not in open_boxes:
            raise BadAction(f"cannot write {arg!r} now (allowed: {', '.join(open_boxes)})")
        return "write", arg
    if kind == "keep":
        if roll >= 3:
            raise BadAction("no roll is left: write a box")
        if not isinstance(arg, list) or not all(isinstance(v, int) and 1 <= v <= 6 for v in arg):
            raise BadAction(f"keep takes a list of faces 1..6, not {arg!r}")
        kept = dice.counts_of(arg)
        if (kept > dice.counts_of(faces)).any():
            raise BadAction(f"cannot keep {arg} from dice {list(faces)}")
        return "keep", kept
    raise BadAction(f"unknown action {kind!r} (use keep or write)")
