"""Reviewing a logged game: each decision beside the best one and the points it lost.

Generic over the game protocol: a log line is an agent-protocol observation and the action
taken; the game's advisor values every legal action in that observation.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import asdict, dataclass, field

from .. import json_input
from ..errors import DicewiseError
from ..solver.objectives import check_target
from ..solver.protocol import BadAction, Solution


@dataclass(frozen=True)
class Reviewed:
    """One logged decision, judged."""

    line: int
    game: int | None
    turn: int | None
    roll: int | None
    dice: list
    chose: dict
    chose_expected: float
    best: dict
    best_expected: float
    loss: float
    chose_label: str = ""
    best_label: str = ""
    #: Approximate values: the error of ``loss``, and whether it cannot tell the choice from
    #: the best (None and False where the values are exact).
    loss_error: float | None = None
    close_call: bool = False
    #: The choice the rules prove better than the one taken (no close call, whatever the
    #: error), as ``advise`` says it; None where none is.
    dominated_by: dict | None = None
    #: Whether the values are chances (judged for a target), not points: the JSON then names
    #: them ``chose_probability`` and ``best_probability``, as ``advise`` names a chance.
    probability: bool = False

    def to_json(self) -> dict:
        out = asdict(self)
        if out.pop("probability"):
            out = {{"chose_expected": "chose_probability",
                    "best_expected": "best_probability"}.get(k, k): v for k, v in out.items()}
        return out


def review_lines(solution: Solution, lines, substituted: list | None = None,
                 progress=None) -> list[Reviewed]:
    """Judge every ``{"observation", "action"}`` line of a log (as bench-agent writes them);
    a line ``substituted`` (bench-agent played the best action for a failed agent) is not
    the agent's decision: its number and game go to ``substituted`` instead.  ``progress``
    (as ``simulate`` takes it) shows the lines judged once judging takes over a second, so
    that a log refused at once is refused in one line."""
    lines = list(lines)
    with contextlib.ExitStack() as shown:
        start, done, update = time.monotonic(), 0, None

        def judged_one():
            nonlocal done, update
            done += 1
            if update is not None:
                update(1)
            elif progress is not None and time.monotonic() - start > SHOW_PROGRESS_AFTER:
                update = shown.enter_context(progress(len(lines), "judging the decisions"))
                update(done)

        return _judged_lines(solution, lines, substituted, judged_one)


#: Seconds of judging after which ``review`` shows its progress.
SHOW_PROGRESS_AFTER = 1.0


def _judged_lines(solution: Solution, lines: list, substituted: list | None,
                  judged_one) -> list[Reviewed]:
    game = solution.game
    out, reached, for_target, skipped = [], {}, set(), 0
    for number, text in enumerate(lines, 1):
        judged_one()
        record = _logged_record(number, text)
        if record is None:
            continue
        obs, action = record["observation"], record["action"]
        _check_one_run(number, obs, reached, for_target)
        if record.get("substituted") is not None:
            skipped += 1
            if substituted is not None:
                substituted.append((number, obs.get("game")))
            continue
        _check_logged_game(number, obs, game.name, solution.rules.options)
        judged_for, played_for = getattr(game, "target", None), obs.get("target")
        if played_for is not None and played_for != judged_for:
            raise DicewiseError(f"line {number}: a decision played for the target "
                                f"{json.dumps(played_for)} (bench-agent --target), not judged "
                                + (f"for {judged_for}" if judged_for is not None else
                                   "by the expected score") + f" (give --target {played_for})")
        try:
            advice = game.advise_observation(solution, obs)
        except DicewiseError as e:
            raise DicewiseError(f"line {number}: {e}") from None
        if advice.best is None:
            continue
        try:
            chosen = advice.choice_for(game.canonical_action(action))
        except BadAction:
            raise DicewiseError(f"line {number}: {json.dumps(action)} is not a legal action there") \
                from None
        error = None if chosen.loss_error is None else float(chosen.loss_error)
        # Python's numbers, not NumPy's (a write's values come from the table's arrays)
        out.append(Reviewed(number, obs.get("game"), obs.get("turn"), obs.get("roll"),
                            obs.get("dice"), action, float(chosen.value), advice.best.action,
                            float(advice.best.value), float(chosen.loss), chosen.label,
                            advice.best.label, error, bool(chosen.close_call),
                            chosen.detail.get("dominated_by"), judged_for is not None))
    if not out:
        played_for = ("its one decision was" if skipped == 1 else
                      f"each of its {skipped:,} decisions was")
        raise DicewiseError("the log holds no decision to judge" + (
            f": {played_for} played in a failed agent's place" if skipped else ""))
    return out


def _logged_record(number: int, text) -> dict | None:
    """Line ``number`` of a log as the record it must be, ``{"observation": {...}, "action":
    ...}`` with a whole game number and turn where it names them (both are echoed), or None
    for a blank line; anything else is refused by its number."""
    if isinstance(text, (str, bytes)) and not text.strip():
        return None
    try:
        record = json_input.loads(text)
    except json_input.RepeatedName as e:
        raise DicewiseError(f"line {number}: {e}") from None
    except (ValueError, RecursionError):
        raise DicewiseError(f"line {number} is not JSON (cut short?)") from None
    except TypeError:  # not text at all (from Python): as a line of the wrong shape
        record = None
    try:
        obs, _ = record["observation"], record["action"]
        if not isinstance(obs, dict):
            raise TypeError
    except (KeyError, TypeError):
        raise DicewiseError(f"line {number}: expected {{\"observation\": ..., \"action\": ...}} "
                            "as the agent protocol writes them") from None
    for key, what in (("game", "game number"), ("turn", "turn")):
        value = obs.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 0):
            raise DicewiseError(f"line {number}: the {what} is a whole number from 0 up, not "
                                f"{json.dumps(value)}")
    dice = obs.get("dice")
    if dice is not None and not isinstance(dice, list):  # "abc" would count as three dice
        raise DicewiseError(f"line {number}: the dice are a list of faces, not "
                            f"{json.dumps(dice)[:40]}")
    return record


def _check_one_run(number: int, obs: dict, reached: dict, for_target: set) -> None:
    """Refuse two runs' logs pasted into one file, which would be judged as one: a game's
    decisions going back in turn and roll, or one decision twice (``reached``: game -> the
    last (turn, roll); a game decides once a roll), or decisions played for a target beside
    ones played for the expected score."""
    target = obs.get("target")
    if target is not None:  # one bench-agent --target could have written
        try:
            check_target(target)
        except DicewiseError as e:
            raise DicewiseError(f"line {number}: {e}") from None
    g, turn, roll = obs.get("game"), obs.get("turn"), obs.get("roll")
    if all(isinstance(v, int) and not isinstance(v, bool) for v in (g, turn)):
        at = (turn, roll if isinstance(roll, int) and not isinstance(roll, bool) else 0)
        if g in reached and at <= reached[g]:
            where = f"turn {turn}" + (f", roll {roll}" if at[1] else "")
            said = (f"game {g} decides {where} twice" if at == reached[g] else
                    f"game {g} goes back from turn {reached[g][0]}"
                    + (f", roll {reached[g][1]}" if reached[g][1] else "") + f" to {where}")
            raise DicewiseError(f"line {number}: {said}: a log is one bench-agent run (review "
                                "each run's log alone)")
        reached[g] = at
    for_target.add(obs.get("target") is not None)
    if len(for_target) == 2:
        raise DicewiseError(f"line {number}: the log mixes decisions played for a target "
                            "with decisions played for the expected score: a log is one "
                            "bench-agent run (review each run's log alone)")


@dataclass(frozen=True)
class Review:
    """A judged log: every decision (of one game, where asked), the total loss and one
    summary a game."""

    decisions: tuple[Reviewed, ...]
    substituted: tuple[int, ...] = ()  # lines where bench-agent played for a failed agent
    #: The target judged for (each value and loss a chance of reaching it), or None: points.
    target: int | None = None
    #: The game judged and its rule options, named as every command's JSON names them.
    ruleset: str = ""
    rule_options: dict = field(default_factory=dict)

    @property
    def total_loss(self) -> float:
        return sum(r.loss for r in self.decisions)

    @property
    def approximate(self) -> bool:
        """Whether the values are approximate (each loss then has its error)."""
        return any(r.loss_error is not None for r in self.decisions)

    @property
    def games(self) -> list[dict]:
        return per_game(self.decisions)

    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "rule_options": self.rule_options,
                "decisions": [r.to_json() for r in self.decisions],
                "total_loss": self.total_loss, "games": self.games,
                "substituted_lines": list(self.substituted), "target": self.target}


def _check_logged_game(number: int, obs: dict, name: str, options) -> None:
    """Refuse the decision of log line ``number`` if it was played in another game: another
    ruleset, several players, or rule options other than ``options``."""
    if obs.get("ruleset", name) != name:
        raise DicewiseError(f"line {number}: a {obs.get('ruleset')} game, not {name}")
    if obs.get("players", 1) != 1:  # judged by the points alone, it would be misjudged
        raise DicewiseError(f"line {number}: a decision of a game of "
                            f"{json.dumps(obs.get('players'))} players (bench-agent "
                            "--players 2), played to win; review judges one player's "
                            "decisions by the expected score")
    options, logged = dict(options), obs.get("options", {})
    if not isinstance(logged, dict):  # a damaged line: no --option can match it
        raise DicewiseError(f"line {number}: options is {json.dumps(logged)}, not an object "
                            "of the game's rule options")
    if any(k not in options or options[k] != v for k, v in logged.items()):
        # an option the log leaves out is taken as the review's (an older log)
        raise DicewiseError(f"line {number}: a game with options {json.dumps(logged)}, "
                            f"not {json.dumps(options)} (give them with --option)")


def check_logged_games(lines, name: str, options, game: int | None = None) -> None:
    """Refuse, before the judging's table is built (it can take minutes), a log ``review``
    would refuse without one: a line that is no decision record, a log played in another
    game or two runs' logs pasted into one; with ``game``, a log that holds no such game."""
    reached, for_target = {}, set()
    for number, text in enumerate(lines, 1):
        record = _logged_record(number, text)
        if record is not None:
            obs = record["observation"]
            _check_one_run(number, obs, reached, for_target)
            _check_logged_game(number, obs, name, options)
    if game is not None:
        _check_game_logged(lines, game)


def logged_target(lines) -> int | None:
    """The target a log's decisions were played for (``bench-agent --target`` writes it in
    every observation), or None; lines that are not such records are left to ``review``."""
    for target in _observed(lines, "target"):
        try:
            return check_target(target)
        except DicewiseError:  # refused with its line number by check_logged_games
            continue
    return None


def review(solution: Solution, lines, game: int | None = None, progress=None) -> Review:
    """Judge a log's decisions (only those of its game ``game``, where given; a log that
    lacks it is refused before this by ``check_logged_games``, which needs no table)."""
    lines = list(lines)
    substituted: list[tuple] = []
    judged = review_lines(solution, lines, substituted, progress)
    if game is not None:
        numbers = sorted({r.game for r in judged if r.game is not None})
        judged = [r for r in judged if r.game == game]
        if not judged:
            raise DicewiseError(f"the log has no game {game} (games: "
                                f"{_ranges(numbers) or 'none numbered'})")
        substituted = [(line, g) for line, g in substituted if g == game]
    return Review(tuple(judged), tuple(line for line, _ in substituted),
                  getattr(solution.game, "target", None), solution.game.name,
                  solution.game.rule_options(solution.rules))


def _check_game_logged(lines, game: int) -> None:
    """Refuse a game number the log's records do not name."""
    if game not in (numbers := _games_logged(lines)):
        raise DicewiseError(f"the log has no game {game} (games: "
                            f"{_ranges(numbers) or 'none numbered'})")


def _games_logged(lines) -> list[int]:
    """The game numbers a log's records name, in order."""
    return sorted({n for n in _observed(lines, "game")
                   if isinstance(n, int) and not isinstance(n, bool)})


def _observed(lines, key: str):
    """``observation[key]`` of each line that is such a record; a line that is not is left
    to ``check_logged_games``, which refuses it by its number."""
    for text in lines:
        try:
            yield json.loads(text)["observation"][key]
        except (ValueError, RecursionError, TypeError, KeyError):
            continue


def _ranges(numbers) -> str:
    """0-4, 7 for people."""
    out, start = [], None
    for i, n in enumerate(numbers):
        if start is None:
            start = n
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            out.append(str(start) if start == n else f"{start}-{n}")
            start = None
    return ", ".join(out)


def per_game(reviewed) -> list[dict]:
    """One summary a game, in the log's order: decisions, those that lost, the loss, the worst."""
    games: dict = {}
    for r in reviewed:
        g = games.setdefault(r.game, {"game": r.game, "decisions": 0, "lost": 0, "loss": 0.0,
                                      "worst": None})
        g["decisions"] += 1
        g["loss"] += r.loss
        if r.loss > 1e-9:
            g["lost"] += 1
            if g["worst"] is None or r.loss > g["worst"]["loss"]:
                g["worst"] = {"line": r.line, "loss": r.loss, "chose": r.chose_label,
                              "best": r.best_label, "loss_error": r.loss_error,
                              "close_call": r.close_call}
    return list(games.values())

