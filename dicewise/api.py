"""The Python API: every operation of the command line, for every ruleset, through the protocol.

Each function takes a ruleset name (or its protocol object) and options as a dict or as
``KEY=VALUE`` strings, and returns a frozen result whose ``to_json()`` is exactly what the
command's ``--json`` prints.  ``progress`` is an optional factory ``(units, label) ->
context manager yielding update(done)``: the command line passes progress bars, scripts
usually pass nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import io
import math
import numbers
import os
import re
import reprlib
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .errors import COMMAND_LINE, DicewiseError, TableError, UnfitArguments
from .i18n import Message, Number, Plural, message_of
from .solver.objectives import check_target, objective_of
from .solver.protocol import Advice, Game, Solution, no_table_play, unsupported
from .solver.registry import get_game
from .solver.stats import PairedComparison, ScoreSummary, rate_ci95
from .solver.risk import reports as _risk
from .tables import store
from .tables.store import quiet as _quiet


# --- arguments -------------------------------------------------------------------------------

def _whole(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _text(value) -> bool:
    return isinstance(value, str)


def _maybe(test):
    return lambda value: value is None or test(value)


def _zero_dimensional(value) -> bool:
    """A 0-d NumPy array: one number, though a Collection by its type."""
    return isinstance(value, np.ndarray) and value.ndim == 0


def _many(value) -> bool:
    """Whether ``value`` is a collection of things (a list, a tuple, an array), not a text,
    a mapping or a 0-d array (one number, which cannot be iterated)."""
    return (isinstance(value, Collection) and not isinstance(value, (str, bytes, Mapping))
            and not _zero_dimensional(value))


def _each(test):
    return lambda value: _many(value) and all(test(v) for v in value)


def _entry(value) -> bool:
    """A name or a value of a sheet given as a dict: a whole number, or a text that holds no
    separator of the notation (``"3,straight=25"`` would read as two entries)."""
    return _whole(value) or (_text(value) and not any(c in value for c in ",="))


def _entries(value) -> bool:
    """A sheet as an observation gives it: a dict of names to entries (``_entry``)."""
    return isinstance(value, Mapping) and all(_entry(k) and _entry(v) for k, v in value.items())


def _sheet(value) -> bool:
    """A sheet in the command line's notation, or as an observation gives it (a dict)."""
    return _text(value) or _entries(value)


def _notation(value):
    """A sheet or fifth-die marks as the command line takes them: an observation's dict
    ``{"fives": "15/15", "pair": "12/x"}`` joined as ``fives=15/15,pair=12/x``; a list of
    them, each."""
    if isinstance(value, Mapping):
        return ",".join(f"{_plain(k)}={_plain(v)}" for k, v in value.items()) or None
    if _many(value):
        return [_notation(v) for v in value]
    return value


def _texts(value) -> bool:
    """One sheet, or a collection of them (None for an empty sheet)."""
    return _sheet(value) or _each(_maybe(_sheet))(value)


def _options(value) -> bool:
    """A dict of texts to single values (an option's value is never a list or an array),
    ``KEY=VALUE`` texts, or None."""
    if isinstance(value, Mapping):
        return all(map(_text, value)) and not any(
            _many(v) or isinstance(v, (Mapping, np.ndarray)) for v in value.values())
    return value is None or _each(_text)(value)


def _lines(value) -> bool:
    return (isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping))
            and not _zero_dimensional(value) and not getattr(value, "closed", False))


def _open_for_writing(value) -> bool:
    """A text file that takes writes now (not one opened for reading, not one closed)."""
    if not callable(getattr(value, "write", None)) or isinstance(
            value, (io.RawIOBase, io.BufferedIOBase)):
        return False
    try:
        return value.writable() if callable(getattr(value, "writable", None)) else True
    except ValueError:  # closed
        return False


def _flag(value) -> bool:
    return isinstance(value, (bool, np.bool_))


#: The most games one call plays: the command line's bound (a run's final scores, kept
#: for its summary, and its per-game records grow with it).
MAX_GAMES = 10**8

#: The largest seed: one stream of dice per seed, the same from Python, the command line, a
#: game at the table and an environment (a signed 64-bit number, as scripts store it).
MAX_SEED = 2**63 - 1


#: What each parameter of the API takes: (test, the words that say it).  A name means the
#: same thing in every function.
TAKES = {
    "options": (_options, "a dict of option values, KEY=VALUE texts, or None"),
    "dice": (_each(_whole), "five whole numbers, such as [2, 2, 4, 6, 6]"),
    "roll": (_maybe(_whole), "the roll number (a whole number) or None"),
    "sheet": (_maybe(_sheet), "a text in the --sheet notation, an observation's sheet (a dict "
                              "of names to whole numbers or texts without , or =), or None"),
    "opponent_sheet": (_maybe(_sheet), "a text in the --sheet notation, an observation's sheet "
                                       "(a dict of names to whole numbers or texts without , or "
                                       "=), or None"),
    "opponent_sheets": (_texts, "a sheet (a text in the --sheet notation or an observation's "
                                "dict), or a list of them"),
    "fifth": (_maybe(_sheet), "a text in the --fifth notation, an observation's fifth (a dict "
                              "of faces to whole numbers), or None"),
    "opponent_fifths": (_texts, "fifth-die marks (a text in the --fifth notation or an "
                                "observation's dict), or a list of them"),
    "games": (lambda v: _whole(v) and v <= MAX_GAMES, f"a whole number up to {MAX_GAMES:,}"),
    "seed": (lambda v: _whole(v) and 0 <= v <= MAX_SEED, f"a whole number from 0 to {MAX_SEED}"),
    "players": (_whole, "a whole number"),
    "max_failures": (_whole, "a whole number"),
    "on_error": (_text, "a text: continue or stop"),
    "game": (_maybe(_whole), "a game number of the log (a whole number) or None"),
    "workers": (_maybe(lambda v: _whole(v) and v >= 1), "a whole number, at least 1, or None"),
    "scheduler": (_maybe(_text), "a text or None"),
    "policy": (_text, "a policy name, such as optimal"),
    "a": (_maybe(_text), "a policy name, such as optimal, or None (the default)"),
    "b": (_maybe(_text), "a policy name, such as optimal, or None (the default)"),
    "what": (_maybe(_text), "a table name or None"),
    "rebuild": (_flag, "True or False"),
    "must_exist": (_flag, "True or False"),
    "exact": (_flag, "True or False"),
    "table": (_maybe(lambda v: isinstance(v, (str, os.PathLike))), "a path or None"),
    "progress": (_maybe(callable), "a factory (units, label) -> context manager, or None"),
    "agent": (_maybe(lambda v: callable(v) or callable(getattr(v, "act", None)) or _text(v)),
              "a callable observation -> action, an object with act, MODULE:FUNCTION or None"),
    "agent_command": (_maybe(_text), "a command line (a text) or None"),
    "timeout": (lambda v: isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                and v > 0,
                "a number of seconds above 0"),
    "lines": (_lines, "JSON lines: an open file or a list of texts"),
    "log": (_maybe(lambda v: _open_for_writing(v) or isinstance(v, (str, os.PathLike))),
            "a text file open for writing, a path, or None"),
    "solution": (lambda v: isinstance(v, (Solution, _two_player_solution())),
                 "what solve returns"),
}


def _two_player_solution() -> type:
    """What ``solve(players=2)`` returns (imported when first asked: the race's modules)."""
    from .tables.two_player import TwoPlayerSolution

    return TwoPlayerSolution


def _shown(value) -> str:
    """An argument in a one-line message: its short repr, else its type."""
    shown = reprlib.repr(value)
    return shown if "\n" not in shown else type(value).__name__


def _plain(value):
    """A NumPy scalar as Python's own number (or bool); anything else as it is."""
    return value.item() if isinstance(value, (np.integer, np.floating, np.bool_)) else value


def _checked(function):
    """``function``, refusing first, in one line that names the parameter, an argument of a
    type the parameter does not take (``TAKES``); a NumPy number goes on as Python's, in an
    options dict too.  Its refusals name its arguments (``_worded``)."""
    signature = inspect.signature(function)

    def checked(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            if name in TAKES and not TAKES[name][0](value):
                raise DicewiseError(f"{name} takes {TAKES[name][1]}, not {_shown(value)}")
            if isinstance(value, (np.integer, np.floating)):
                bound.arguments[name] = _plain(value)
            elif name == "options" and isinstance(value, Mapping):
                bound.arguments[name] = {key: _plain(v) for key, v in value.items()}
            elif name in ("sheet", "opponent_sheet", "fifth", "opponent_sheets",
                          "opponent_fifths"):
                bound.arguments[name] = _notation(value)
        return function(*bound.args, **bound.kwargs)

    return _worded(function, checked)


def _worded(function, call=None):
    """``function`` (through ``call``, which takes the same arguments), its refusals
    naming its arguments where the command line names its flags (``_as_arguments``), when
    Python calls it; a call that does not fit its signature gets Python's TypeError alone."""
    signature = inspect.signature(function)
    call = call or function

    @functools.wraps(function)
    def worded(*args, **kwargs):
        if not _fits(signature, args, kwargs):  # Python's own TypeError says why
            return function(*args, **kwargs)
        if COMMAND_LINE.get() or _IN_CALL.get():
            return call(*args, **kwargs)
        entered = _IN_CALL.set(True)
        try:
            return call(*args, **kwargs)
        except DicewiseError as e:
            if isinstance(e, TableError) or type(e) not in (DicewiseError, UnfitArguments):
                raise
            said = _reworded(message_of(e), signature.parameters)
            if said is None:
                raise
            raise type(e)(said) from None
        finally:
            _IN_CALL.reset(entered)

    return worded


def _fits(signature, args, kwargs) -> bool:
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


#: True inside a call of the API (the outermost call words its refusals for its caller).
_IN_CALL = contextvars.ContextVar("dicewise_in_api_call", default=False)

#: A flag of the command line, and the value given with it (``--players 2``, ``--target
#: T``); or a command in backticks or a quoted text, kept as typed.
_FLAG = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|--([a-z][a-z-]*)"
                   r"(?: (\d+\b|\{\w+\}|[A-Z][A-Z:]*\b))?")

#: Flags whose argument in Python has another name.
_ARGUMENT_OF_FLAG = {"option": "options", "agent_cmd": "agent_command"}


def _reworded(message, parameters):
    """A refusal said with the call's argument names, or None where nothing changes.  Only
    what dicewise wrote is reworded: a ``Message``'s template, not its fields (the caller's
    own paths, sheets and names, which may hold "--" too), and a plain text outside its
    quotes."""
    if type(message) is Message:
        fields = dict(message.fields)
        template = _flag_fields(message.template, fields)
        template = _as_arguments(template, parameters)
        return None if template == message.template else Message(template, **fields)
    if type(message) is Plural:
        forms = (_as_arguments(message.template, parameters),
                 _as_arguments(message.plural, parameters))
        return None if forms == (message.template, message.plural) else Plural(
            *forms, message.count, **message.fields)
    if type(message) is str:
        text = _as_arguments(message, parameters)
        return None if text == message else text
    return None


def _flag_fields(template: str, fields: dict) -> str:
    """``template`` with the flags dicewise gave as fields written into it, where
    ``_as_arguments`` can word them: ``--{key}`` (key="fifth") and ``{flag}``
    (flag="--threshold").  The caller's own values are other fields, left alone."""
    for name, value in list(fields.items()):
        if not isinstance(value, str):
            continue
        if f"--{{{name}}}" in template and re.fullmatch(r"[a-z][a-z_-]*", value):
            template = template.replace(f"--{{{name}}}", f"--{value}")
        elif name == "flag" and re.fullmatch(r"--[a-z][a-z-]*", value):
            template = template.replace("{flag}", value)
        else:
            continue
        if f"{{{name}" not in template:
            del fields[name]
    return template


def _as_arguments(text: str, parameters) -> str:
    """A refusal that names the command line's flags, said with the names of the Python
    arguments of the call (``--players 2 takes no --target``: ``players=2 takes no
    target``); a flag the call has no argument for stays as it is."""
    def said(match):
        if match.group(1) is None:
            return match.group(0)
        flag = match.group(1).replace("-", "_")
        name = next((n for n in (_ARGUMENT_OF_FLAG.get(flag, flag), f"{flag}s")
                     if n in parameters), None)
        if name is None:
            return match.group(0)
        return name if match.group(2) is None else f"{name}={match.group(2)}"

    return _FLAG.sub(said, text)


# --- the commands ------------------------------------------------------------------------------

# Risk's commands, as the API gives them (they live with the game): refusals name the
# arguments, as every other function's do.
risk_advise, risk_battle, risk_cards, risk_chain, risk_table = (
    _worded(f) for f in (_risk.risk_advise, _risk.risk_battle, _risk.risk_cards,
                          _risk.risk_chain, _risk.risk_table))


def jsonable(obj):
    """A value as dicewise's JSON says it, on the command line and the page alike: NaN and
    infinities become null, NumPy scalars numbers, keys texts."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if hasattr(obj, "item"):  # numpy scalars
        return jsonable(obj.item())
    return obj


def _as_printed(to_json):
    """A result's ``to_json`` as the command prints it (``jsonable``): one game's interval
    is null, not NaN, so ``json.dumps`` writes valid JSON."""

    @functools.wraps(to_json)
    def printed(self):
        return jsonable(to_json(self))

    return printed


def game_of(ruleset, command: str | None = None) -> Game:
    """The protocol object of a ruleset name (or the object itself); an unknown name is
    refused listing the games (those with ``command``, where one is named)."""
    return ruleset if isinstance(ruleset, Game) else get_game(ruleset, command)


@_checked
def make_rules(ruleset, options=None):
    """(game, rules) for a ruleset name and options (dict or ``KEY=VALUE`` strings)."""
    game = game_of(ruleset)
    return game, game.rules(game.parse_options(options))


def _needs(game: Game, command: str) -> None:
    if command not in game.commands:
        raise unsupported(game, command)


def _for_target(ruleset, options):
    """(game, rules) of a game that plays for a target (the games with a ``chance``), or
    the one-line refusal that says so (not "has no `chance`" to ``advise --target``)."""
    game, rules = make_rules(ruleset, options)
    if "chance" not in game.commands:
        raise DicewiseError(Message("{game} has no play for a target", game=game.name))
    return game, rules


@_checked
def for_command(ruleset, command: str, options=None):
    """(game, rules) for a command, refusing a game that lacks it or bad options, in one line."""
    game, rules = make_rules(ruleset, options)
    _needs(game, command)
    return game, rules


@_checked
def solve(ruleset, options=None, *, table=None, rebuild: bool = False, players: int = 1,
          scheduler: str | None = None, workers: int | None = None, progress=None):
    """Solve (or fit) a ruleset, reusing its table when present (``rebuild`` forces a new
    one): a ``Solution`` (``expected_score``, ``approximate``, ``error_estimate``, ``ci95``;
    ``to_json()`` is what ``solve --json`` prints); with ``players=2`` its two-player race
    (``solve_two_player``, on ``scheduler`` with ``workers``)."""
    if players == 2:
        return solve_two_player(ruleset, options, table=table, rebuild=rebuild,
                                scheduler=scheduler, workers=workers, progress=progress)
    if players != 1:
        raise UnfitArguments(Message("solve takes --players 1 or 2, not {players}",
                                     players=players))
    if scheduler is not None or workers is not None:
        raise UnfitArguments(Message("--scheduler and --workers are for --players 2"))
    game, rules = for_command(ruleset, "solve", options)
    return store.solution(game, rules, table, rebuild=rebuild, progress_factory=progress)


@_checked
def solve_report(solution) -> dict:
    """What ``dicewise solve --json`` prints for what ``solve`` returned (its ``to_json``)."""
    return solution.to_json()


@_checked
def advise(ruleset, *, dice, roll: int | None = None, sheet: str | None = None,
           fifth: str | None = None, options=None, table=None, target: int | None = None,
           players: int = 1, opponent_sheets=(), opponent_fifths=(), progress=None) -> Advice:
    """Rank every choice in a position: ``advise("general", dice=[2,2,4,6,6], roll=1)``
    returns an ``Advice`` (``best``, ``choices`` best first, each with ``expected`` and
    ``loss``; ``to_json()`` is what ``advise --json`` prints).

    With ``target`` the choices are ranked by P(final ≥ target), the expected final score
    beside; with ``players`` 2 or more by the chance to win against ``opponent_sheets``
    (``advise_two_player`` where that race is solved exactly, else ``advise_players``).
    The position is checked before any table is built; an explicit ``table`` must exist.
    A missing table is built silently unless ``progress`` is given (the commands' bar:
    ``dicewise.cli.format.progress``): the two-player race's first build takes minutes.
    """
    opponent_sheets, opponent_fifths = _listed(opponent_sheets), _listed(opponent_fifths)
    _check_seats(players)
    if players > 1 and target is not None:
        raise UnfitArguments(Message("--players {players} takes no --target", players=players))
    if players > 1 and not exact_race(ruleset, players, options):
        return advise_players(ruleset, players=players, dice=dice, roll=roll, sheet=sheet,
                              opponent_sheets=opponent_sheets, fifth=fifth,
                              opponent_fifths=opponent_fifths, options=options, table=table,
                              progress=progress)
    if players == 2:
        check_two_players(ruleset, options)  # the real problem first: no race is solved
        if fifth is not None or opponent_fifths:
            raise UnfitArguments(Message("--players 2 takes no --fifth or --opponent-fifth"))
        if roll is None:
            raise UnfitArguments(Message("give --roll 1, 2 or 3"))
        if len(opponent_sheets) > 1:
            raise UnfitArguments(Message("--players 2 takes one --opponent-sheet"))
        return advise_two_player(ruleset, dice=dice, roll=roll, sheet=sheet or "",
                                 opponent_sheet=opponent_sheets[0] if opponent_sheets else "",
                                 options=options, table=table, progress=progress)
    if opponent_sheets or opponent_fifths:
        raise UnfitArguments(Message("--opponent-sheet and --opponent-fifth are for --players N"))
    if target is not None:
        return advise_target(ruleset, dice=dice, roll=roll, sheet=sheet, target=target,
                             options=options, table=table, progress=progress)
    game, rules = for_command(ruleset, "advise", options)
    position = _position(game, dice, sheet, roll=roll, fifth=fifth)
    game.check_position(rules, position)
    solution = store.solution(game, rules, table, must_exist=table is not None,
                              progress_factory=progress)
    return game.advise(solution, position)


@dataclass(frozen=True)
class Simulation:
    """Simulated games of one policy: the scores' summary and what the game adds."""

    ruleset: str
    rule_options: Mapping[str, Any]
    policy: str
    seed: int
    summary: ScoreSummary
    games_per_second: float
    approximate: bool  # the policy is the best dicewise has, not a proven optimum
    expected_score: float | None  # the solved (or fitted) value of the optimal policy
    error_estimate: float | None
    extra: Mapping[str, Any] = field(default_factory=dict)
    scores: np.ndarray = field(default=None, repr=False)

    @_as_printed
    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "rule_options": dict(self.rule_options),
                "policy": self.policy, "seed": self.seed, **self.summary.to_json(),
                "games_per_second": self.games_per_second, "approximate": self.approximate,
                "expected_score": self.expected_score, "error_estimate": self.error_estimate,
                **dict(self.extra)}


def _position(game: Game, dice, sheet, **inputs) -> dict:
    """An advise position: the dice, the sheet, and the inputs given that the game reads
    (``game.advise_inputs``: the roll number, Ryzykant's fifth-die marks), else refused."""
    position = {"dice": list(dice), "sheet": sheet or None}
    for key, value in inputs.items():
        if value is not None:
            if key not in game.advise_inputs:
                raise DicewiseError(Message("{game} takes no --{key}", game=game.name, key=key))
            position[key] = value
    return position


def _played(game: Game, rules, policy: str, games: int, seed: int, table, progress):
    """(solution, Played) of one policy; a policy that needs no table builds none."""
    _at_least_one_game(games)
    target = _target_of(game, policy)
    if target is not None:
        return _played_for_target(game, rules, target, games, seed, table, progress)
    policy = game.resolve_policy(policy)
    if game.needs_solution(policy):
        solution = store.solution(game, rules, table, progress_factory=progress)
    else:
        solution = Solution(game, rules, None, {}, None, False, 0.0)
    with (progress or _quiet)(games, _playing(games, policy)) as update:
        played = game.play(solution, policy, games, seed, update)
    return solution, policy, played


def _playing(games: int, policy: str) -> Message:
    """The progress line of ``games`` games of ``policy``."""
    return Plural("playing {games} game ({policy})", "playing {games} games ({policy})", games,
                  games=Number(games), policy=policy)


def check_policy(game: Game, rules, policy: str) -> None:
    """Refuse a policy the game cannot play, in one line, before anything is played."""
    target = _target_of(game, policy)
    if target is None:
        game.resolve_policy(policy)
        return
    from .solver.target.table import table_for

    table_for(game, rules, target)


@_checked
def simulate(ruleset, *, games: int = 10000, seed: int = 0, policy: str = "optimal", options=None,
             table=None, progress=None) -> Simulation:
    """Play ``games`` games with a policy on the dice stream of ``seed`` and summarise them:
    a ``Simulation`` (``summary.mean``, ``summary.ci95``, ``expected_score``, ``approximate``;
    ``scores``, the games' scores as an array; ``to_json()`` is what ``simulate --json``
    prints)."""
    game, rules = for_command(ruleset, "simulate", options)
    solution, policy, played = _played(game, rules, policy, games, seed, table, progress)
    extra = dict(played.extra)
    if policy == "search" and "optimal" in game.policies:
        # What looking deeper gains: the table's policy on the same rolls, game by game.
        with (progress or _quiet)(games, _playing(games, "optimal")) as update:
            table_played = game.play(solution, "optimal", games, seed, update)
        paired = PairedComparison.of(played.scores, table_played.scores)
        extra["against_optimal"] = {"policy": "optimal", "mean": paired.mean_b,
                                    "gain": paired.margin, "gain_ci95": list(paired.margin_ci95),
                                    "games": games}
    if played.examples:
        extra["example_games"] = list(played.examples)
    solved = solution.payload is not None
    units = game.distribution_units(solution, policy) if solved else 0
    if units:
        with (progress or _quiet)(units, Message("working out the exact distribution")) as update:
            extra["exact"] = game.score_distribution(solution, policy, update)
    return Simulation(game.name, solution.rule_options, policy, seed, ScoreSummary.of(played.scores),
                      games / played.seconds if played.seconds > 0 else float("inf"),
                      solution.approximate if solved else not game.exact,
                      solution.expected_score if solved else None,
                      solution.error_estimate if solved else None, extra, played.scores)


@dataclass(frozen=True)
class Duel:
    """Two policies on the same dice, game by game."""

    ruleset: str
    rule_options: Mapping[str, Any]
    a: str
    b: str
    seed: int
    comparison: PairedComparison

    @_as_printed
    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "rule_options": dict(self.rule_options), "a": self.a,
                "b": self.b, "seed": self.seed, **self.comparison.to_json()}


@_checked
def duel(ruleset, *, a: str | None = None, b: str | None = None, games: int = 10000,
         seed: int = 0, players: int = 1, exact: bool = False, options=None, table=None,
         progress=None):
    """Policies A and B play the same dice: win/draw/loss rates of A and the mean margin
    (a ``Duel``).  With ``players`` 2 (or the policy ``win``) the two-player race, seats
    alternating (a ``RaceDuel``, ``exact`` adding its value by policy evaluation), where it
    is solved exactly; at any other table A in one seat, B in the others (a ``TableDuel``).
    Left out, A is ``optimal`` and B ``greedy``; in the race, ``win`` and ``optimal`` (the
    one of the two that the other is not).  Each result's ``to_json()`` is what ``duel
    --json`` prints."""
    _check_seats(players)
    game, rules = for_command(ruleset, "duel", options)
    race = players == 2 or "win" in (a, b)
    if race and 2 in game.players(rules) and players <= 2:
        a, b = race_pair(a, b)
    a, b = ("optimal" if a is None else a), ("greedy" if b is None else b)
    if players > 2 or (race and 2 not in game.players(rules)):
        if exact and players <= 2:  # two asked for: the race is what this game lacks
            raise UnfitArguments(Message("--exact is for a two-player race solved exactly, "
                                         "which {game} has not", game=game.name))
        if exact:
            raise UnfitArguments(Message("--exact is for the two-player race"))
        return duel_players(ruleset, players=max(players, 2), a=a, b=b, games=games, seed=seed,
                            options=options, table=table, progress=progress)
    if race:
        return duel_two_player(ruleset, a=a, b=b, games=games, seed=seed, exact=exact,
                               options=options, table=table, progress=progress)
    if exact:
        raise UnfitArguments(Message("--exact is for the two-player race"))
    for policy in (a, b):  # refuse either before playing either
        check_policy(game, rules, policy)
    sol, a, played_a = _played(game, rules, a, games, seed, table, progress)
    _, b, played_b = _played(game, rules, b, games, seed, table, progress)
    return Duel(game.name, game.rule_options(rules), a, b, seed,
                PairedComparison.of(played_a.scores, played_b.scores))


def race_pair(a: str | None, b: str | None) -> tuple[str, str]:
    """The race's policies where one or both are left out: ``win`` against ``optimal``, the
    one left out taking the policy of the two that the other is not."""
    pair = ("win", "optimal")
    if a is None and b is None:
        return pair
    if a is None:
        return (pair[0] if b != pair[0] else pair[1]), b
    if b is None:
        return a, (pair[1] if a != pair[1] else pair[0])
    return a, b


@dataclass(frozen=True)
class StrategyTable:
    """A strategy table for people: a header and rows."""

    ruleset: str
    what: str
    header: list
    rows: list

    def to_json(self) -> list:
        return self.json_rows(0, len(self.rows))

    def json_rows(self, start: int, stop: int) -> list:
        """Rows ``start:stop`` as ``to_json`` gives them (objects keyed by the header), so
        that a long table can be written out a part at a time."""
        return jsonable([dict(zip(self.header, r)) for r in self.rows[start:stop]])


@_checked
def strategy_table(ruleset, what: str | None = None, *, options=None, games: int = 20000,
                   seed: int = 0, table=None, progress=None) -> StrategyTable:
    """One of the game's strategy tables (``describe(ruleset)["tables"]`` names them; the
    first by default): a ``StrategyTable``, its ``header`` and ``rows``; ``to_json()`` is
    the list of rows as objects keyed by the header, as ``table --json`` prints it."""
    game, rules = for_command(ruleset, "table", options)
    what = next(iter(game.tables)) if what is None else what
    if what == "target" and "chance" in game.commands:
        return target_curve(ruleset, options=options, table=table, progress=progress)
    if what not in game.tables:
        raise DicewiseError(Message("unknown table {what!r} for {game} (tables: {tables})",
                                    what=what, game=game.name, tables=", ".join(game.tables)))
    solution = store.solution(game, rules, table, progress_factory=progress)
    with (progress or _quiet)(games, Message("table {what}", what=what)) as update:
        header, rows = game.strategy_table(solution, what, games, seed, update)
    return StrategyTable(game.name, what, list(header), [list(r) for r in rows])


@_checked
def bench_agent(ruleset, agent=None, *, agent_command: str | None = None, timeout: float = 10.0,
                games: int = 1000, seed: int = 0, on_error: str = "continue",
                max_failures: int = 3, options=None, table=None, log=None,
                target: int | None = None, players: int = 1, sheet: str | None = None,
                opponent_sheet: str | None = None, progress=None):
    """Score an agent: ``agent`` an ``observation -> action`` callable, an object with
    ``act`` or ``"MODULE:FUNCTION"``; or ``agent_command``, a program speaking JSON lines,
    started once the reference is ready and stopped at the end (``timeout`` seconds a
    decision).  ``log``, a file or a path, receives every observation and action.

    With ``target`` the regret of a decision is the probability of reaching the target that
    it loses, and the reference player plays for the target.  With ``players=2`` the agent
    plays the race against the win-optimal player (seats alternating game by game, from
    ``sheet`` and ``opponent_sheet``, empty by default) and the regret is the P(win) +
    ½P(draw) each decision loses.

    Returns an ``AgentReport`` (``dicewise.play.bench``) whose ``to_json()`` is what
    ``bench-agent --json`` prints: the agent's mean, its regret and the costliest decisions."""
    from .play.agents import CallableAgent, ProcessAgent, load_callable
    from .play.bench import bench_agent as run
    from .tables.files import cannot_write, checked_output

    for_command(ruleset, "bench-agent", options)
    if (agent is None) == (agent_command is None):
        raise UnfitArguments("give exactly one of --agent MODULE:CALLABLE or --agent-cmd CMD")
    objective = check_bench_modes(target, players, sheet, opponent_sheet)
    if objective.name == "target":
        _for_target(ruleset, options)  # "ryzykant has no play for a target", before any build
    if agent_command is not None:  # read here, started at its first decision
        agent = ProcessAgent(agent_command, timeout)
    elif isinstance(agent, str):
        agent = CallableAgent(load_callable(agent), agent)
    elif callable(agent) and not hasattr(agent, "act"):
        agent = CallableAgent(agent, getattr(agent, "__name__", "agent"))
    with contextlib.ExitStack() as held:
        if agent_command is not None:
            held.enter_context(contextlib.closing(agent))
        if isinstance(log, (str, os.PathLike)):  # opened before the reference is built
            path = checked_output(log)
            try:
                log = held.enter_context(open(path, "w", encoding="utf-8"))
            except OSError as e:
                raise DicewiseError(cannot_write(path, e)) from None
        solution = referee(ruleset, objective, options, sheet, opponent_sheet, table, progress)
        with (progress or _quiet)(games, f"{games:,} game{'s' * (games != 1)}") as update:
            return run(solution, agent, games, seed, on_error, log, update, max_failures)


@_checked
def check_bench_modes(target, players: int, sheet, opponent_sheet):
    """The objective bench-agent judges by, or one line (before any table is built) saying
    why these modes cannot be judged together."""
    objective = objective_of(target=target, players=players, opponent_sheet=opponent_sheet)
    if objective.players > 2:
        raise UnfitArguments(f"bench-agent plays one player or the two-player race, not {players}")
    if objective.players == 1 and sheet:
        raise UnfitArguments("--sheet and --opponent-sheet are for --players 2")
    return objective


def referee(ruleset, objective, options, sheet, opponent_sheet, table, progress,
            command: str = "bench-agent") -> Solution:
    """The solution whose ``game`` judges decisions under ``objective``: the game itself for
    the expected score, else the objective's referee."""
    if objective.name == "win":
        return _race_solution(ruleset, options, sheet, opponent_sheet, table, progress)
    if objective.name == "target":
        _for_target(ruleset, options)
    game, rules = for_command(ruleset, command, options)
    solution = store.solution(game, rules, table, progress_factory=progress)
    if objective.name == "expected_score":
        return solution
    from .solver.objectives.target import TargetReferee

    _, tsol = _target_solutions(game, rules, objective.target, None, progress)
    return Solution(TargetReferee(game, objective.target, solution, tsol), rules, solution.payload,
                    solution.meta, solution.table, False, 0.0)


@_checked
def review(ruleset, lines, *, game: int | None = None, target: int | None = None,
           options=None, table=None, progress=None):
    """Judge a logged game (agent-protocol JSON lines), decision by decision: a ``Review``
    (``dicewise.play.review``; with ``game`` only that game of the log) whose ``to_json()``
    is what ``review --json`` prints.  Decisions played for a target (``bench-agent
    --target``, whose log says so) are judged by P(final ≥ target), as is any log given
    ``target``."""
    from .play.review import check_logged_games, logged_target, review as judge

    lines = list(lines)
    if lines and isinstance(lines[0], str) and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]  # the byte-order mark some editors begin a UTF-8 file with
    if target is None:
        target = logged_target(lines)
    objective = check_bench_modes(target, 1, None, None)
    judged, rules = for_command(ruleset, "review", options)
    check_logged_games(lines, judged.name, rules.options, game)
    solution = referee(ruleset, objective, options, None, None, table, progress, "review")
    return judge(solution, lines, game, progress)


@_checked
def describe(ruleset=None) -> dict | list:
    """The rulesets, a list of ``{"name", "exact", "title"}`` dicts (no argument), or one
    ruleset's options, commands, policies, tables and notation, a dict: what ``dicewise
    rules [RULESET] --json`` prints."""
    from .solver.registry import GAMES

    if ruleset is None:
        return [{"name": g.name, "exact": g.exact, "title": g.title}
                for g in (get_game(n) for n in GAMES)]
    game = game_of(ruleset)
    info = {"name": game.name, "title": game.title, "exact": game.exact,
            "commands": sorted(game.commands), "policies": list(game.policies),
            "policy_names": list(game.policy_names()),
            "tables": dict(game.tables), "advise_inputs": sorted(game.advise_inputs),
            "sheet": game.sheet_help, "own_group": game.own_group,
            "command_notes": dict(game.command_notes),
            "options": [s.to_json() for s in game.option_specs()]}
    if "duel" in game.commands:
        rules = game.rules({})
        info["table"] = {"players": list(game.table_players(rules)),
                         "policies": list(game.table_policies(rules)),
                         "seat_policies": list(game.seat_policies(rules))}
    return {**info, **game.describe(game.rules({}))}



# --- two players ---------------------------------------------------------------------------

def _two_player_game(ruleset, options):
    game, rules = make_rules(ruleset, options)
    if 2 not in game.players(rules):
        raise DicewiseError(Message("{game} is not solved for two players", game=game.name))
    return game, rules


def _listed(texts) -> list:
    """Rivals' sheets (or fifths) as a list: one text is one rival."""
    return [texts] if isinstance(texts, str) else list(texts or ())


def _at_least_one_game(games: int) -> None:
    if games < 1:
        raise DicewiseError("the number of games must be at least 1")


def _check_seats(players: int, game: Game | None = None, rules=None) -> None:
    """Refuse a table no game seats (1 to 6), or one that ``game`` does not."""
    if not 1 <= players <= 6:
        raise DicewiseError(Message("a table seats 1 to 6 players, not {players}", players=players))
    if game is not None and players not in game.table_players(rules):
        raise DicewiseError(Message("a table of {game} seats {seats} players, not {players}",
                                    game=game.name, players=players,
                                    seats=", ".join(map(str, game.table_players(rules)))))


@_checked
def exact_race(ruleset, players: int, options=None) -> bool:
    """Whether a table of ``players`` is the exactly solved two-player race (else the game's
    approximate table play answers, where it has one)."""
    game, rules = make_rules(ruleset, options)
    return players == 2 and 2 in game.players(rules)


@_checked
def check_two_players(ruleset, options=None) -> None:
    """Refuse, in one line, a ruleset whose two-player race is not solved."""
    _two_player_game(ruleset, options)


@_checked
def solve_two_player(ruleset, options=None, *, table=None, rebuild: bool = False,
                     must_exist: bool = False, scheduler: str | None = None,
                     workers: int | None = None, progress=None):
    """Solve the two-player race of a ruleset through the table store (resumable: finished
    layers are checkpointed); an explicit ``table`` that ``must_exist`` is never built.
    Returns a ``TwoPlayerSolution`` (``dicewise.tables.two_player``): ``values``, the race's
    values, and ``to_json()``, what ``solve --players 2 --json`` prints."""
    from .tables import two_player

    game, rules = _two_player_game(ruleset, options)
    return two_player.solve_two_player(rules, table, scheduler=scheduler, workers=workers,
                                       rebuild=rebuild, must_exist=must_exist, progress=progress)


#: Positions with fewer boxes filled (both sheets together) are answered from the full
#: two-player table, built once; later ones from the sub-game (seconds at 10 filled).
EARLY = 6


def race_values(game, rules, sheet, opponent_sheet, table, progress=None):
    """(values, sheets, how): the race from a position, from the full table if present,
    else the sub-game reachable from the two sheets (seconds for late positions)."""
    from .solver.sheet import parse_sheet
    from .solver.two_player import seat_of, solve_subgame
    from .tables import two_player

    me, them = parse_sheet(rules, sheet), parse_sheet(rules, opponent_sheet)
    seat_of(rules.n_categories, me, them)  # refuse sheets that cannot stand side by side
    early = bin(me.mask).count("1") + bin(them.mask).count("1") < EARLY
    if table or early or two_player.default_path(rules).exists():
        # an early position is as long as the whole game: build (and keep) the full table
        solved = solve_two_player(game, rules.options, table=table, must_exist=table is not None,
                                  progress=progress)
        return solved.values, me, them, "table"
    return solve_subgame(rules, me.mask, them.mask), me, them, "sub-game"


@dataclass(frozen=True)
class Chance:
    """A probability asked for from a position: of reaching a target, or of winning."""

    ruleset: str
    rule_options: Mapping[str, Any]
    probability: float
    fields: Mapping[str, Any] = field(default_factory=dict)

    @_as_printed
    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "rule_options": dict(self.rule_options),
                **dict(self.fields), "probability": self.probability}


@_checked
def chance_two_player(ruleset, *, sheet: str | None = None, opponent_sheet: str | None = None,
                      options=None, table=None, progress=None) -> Chance:
    """P(win) + ½P(draw) for the player to move (``sheet``) against ``opponent_sheet``: a
    ``Chance`` (``probability``; ``to_json()`` is what ``chance --players 2 --json``
    prints)."""
    from .solver.two_player import chance, evaluate_policies, seat_of, solve_subgame

    game, rules = _two_player_game(ruleset, options)
    values, me, them, how = race_values(game, rules, sheet, opponent_sheet, table, progress)
    diff = me.points - them.points
    probability = chance(values, me, them)
    # P(draw) needs the race from this position; the sub-game takes a few seconds once ten
    # boxes are filled (11 s at eight), and from the table's root it would be a whole solve.
    draw = None
    if how == "sub-game" or bin(me.mask).count("1") + bin(them.mask).count("1") >= 10:
        sub = values if how == "sub-game" else solve_subgame(rules, me.mask, them.mask)
        draw = float(evaluate_policies(sub, ("win", "win"), kind="draw").value(
            me.mask, them.mask, diff))
    fields = {"players": 2, "sheet": dict(me.scores), "opponent_sheet": dict(them.scores),
              "points": me.points, "opponent_points": them.points,
              "seat": seat_of(rules.n_categories, me, them), "source": how,
              "p_win": None if draw is None else probability - draw / 2, "p_draw": draw}
    return Chance(game.name, rules.options, probability, fields)


@_checked
def advise_two_player(ruleset, *, dice, roll: int, sheet: str | None = None,
                      opponent_sheet: str | None = None, options=None, table=None,
                      progress=None) -> Advice:
    """Rank every choice by P(win) + ½P(draw), the expected-score choice beside it: an
    ``Advice`` (``to_json()`` is what ``advise --players 2 --json`` prints)."""
    from .solver.two_player import advise_two_player as advise_race

    game, rules = _two_player_game(ruleset, options)
    game.check_position(rules, {"dice": dice, "roll": roll, "sheet": sheet})  # before a build
    values, me, them, _ = race_values(game, rules, sheet, opponent_sheet, table, progress)
    solitaire = store.solution(game, rules, progress_factory=progress).payload
    return advise_race(values, me, them, dice, roll, solitaire)


@dataclass(frozen=True)
class RaceDuel:
    """Two policies of the two-player race on shared dice, seats alternating."""

    ruleset: str
    rule_options: Mapping[str, Any]
    result: Any  # solver.two_player.DuelResult
    exact: Mapping[str, Any] | None  # the exact value of the pair, by policy evaluation

    @property
    def exact_by_seat(self) -> tuple[float, float] | None:
        """A's exact P(win) + ½P(draw) moving first and moving second (``exact`` keeps the
        win player's, ``win_first`` and ``win_second``); None without ``exact``."""
        if self.exact is None:
            return None
        if self.result.a == "win":
            return self.exact["win_first"], self.exact["win_second"]
        return 1.0 - self.exact["win_second"], 1.0 - self.exact["win_first"]

    @_as_printed
    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "rule_options": dict(self.rule_options), "players": 2,
                **self.result.to_json(), "exact": None if self.exact is None else dict(self.exact)}


@_checked
def duel_two_player(ruleset, *, a: str | None = None, b: str | None = None,
                    games: int = 10000, seed: int = 0, exact: bool = False, options=None,
                    table=None, progress=None) -> RaceDuel:
    """The race between two policies (``win``: win-optimal; ``optimal``: expected-score;
    left out, ``win`` against ``optimal``, ``race_pair``): a ``RaceDuel`` (``to_json()`` is
    what ``duel --players 2 --json`` prints).

    Builds the two-player table if it is missing (minutes).  With ``exact`` the value of
    win-optimal against expected-score play is also computed by policy evaluation over the
    same states (three solves' time) for comparison with the simulation.
    """
    from .solver.two_player import check_policy_name, make_policy, simulate_duel
    from .tables.two_player import exact_edge

    if games < 2:
        raise DicewiseError(Message("a duel needs at least 2 games (one per seat)"))
    game, rules = _two_player_game(ruleset, options)
    a, b = map(check_policy_name, race_pair(a, b))  # refused before the table's build
    if exact and {a, b} != {"win", "optimal"}:
        raise UnfitArguments(Message("--exact compares win against optimal (expected-score) play"))
    solitaire = store.solution(game, rules, progress_factory=progress).payload.values
    race = solve_two_player(game, options, table=table, progress=progress).values
    # Each pair of games plays one dice stream from both seats: an odd count is rounded up,
    # as a table of N rounds up to whole deals.
    result = simulate_duel(race, make_policy(a, race, solitaire), make_policy(b, race, solitaire),
                           games + games % 2, seed)
    edge = None
    if exact:
        edge = exact_edge(race, solitaire, progress)
        if a != "win":  # the edge is the win-optimal player's; report A's side
            edge = {**edge, "alternating": 1 - edge["alternating"]}
    return RaceDuel(game.name, rules.options, result, edge)


# --- play for a target -----------------------------------------------------------------------

def _target_of(game: Game, policy: str) -> int | None:
    """T of a policy named ``target:T``, else None (a DicewiseError where ``game`` plays for
    no target)."""
    if not isinstance(policy, str) or not policy.startswith("target:"):
        return None
    if "chance" not in game.commands:
        raise DicewiseError(Message("{game} has no play for a target (policies: {policies})",
                                    game=game.name, policies=", ".join(game.policy_names())))
    try:
        target = int(policy.partition(":")[2])
    except ValueError:
        raise DicewiseError(Message("a target policy is target:T with T a whole number of at "
                                    "least 0, not {policy!r}", policy=policy)) from None
    return check_target(target)  # its own words for a target out of range


def _target_solutions(game, rules, target, table, progress):
    """(expected-score solution, target solution) of an exact game."""
    from .solver.target.table import table_for

    if table is not None:  # loaded (or refused) before the game's own table is built
        chances = store.solution(table_for(game, rules, target), rules, table, must_exist=True)
        return store.solution(game, rules, None, progress_factory=progress), chances
    base = store.solution(game, rules, None, progress_factory=progress)
    spec = table_for(game, rules, target, game.state_values(base))
    return base, store.solution(spec, rules, None, progress_factory=progress)


def _played_for_target(game, rules, target, games, seed, table, progress):
    from .solver.protocol import Played
    from .solver.target.advice import chance as chance_of
    from .solver.target.chooser import simulate_target

    base, tsol = _target_solutions(game, rules, target, table, progress)
    import time

    crules = game.category_rules(rules)
    start = time.perf_counter()
    with (progress or _quiet)(games, _playing(games, f"target:{target}")) as update:
        records = simulate_target(crules, tsol.payload, target, games, seed,
                                  update, expected=game.state_values(base).values, boxes=False)
    extra = {}
    if crules.first_roll_end() is not None:  # General's statistic, as the optimal policy's has it
        extra["ended_on_first_roll_rate"] = float(records.ended_early.mean())
    reached = int((records.scores >= target).sum())
    empty = game.target_sheet(rules, None)  # the solved chance, which the rate measures
    extra.update(target=target, reached_rate=reached / games,
                 reached_rate_ci95=list(rate_ci95(reached, games)),
                 probability=float(chance_of(crules, tsol.payload, empty.mask, empty.extra,
                                             empty.points, target)))
    played = Played(records.scores, time.perf_counter() - start, extra)
    return Solution(game, rules, None, {}, None, False, 0.0), f"target:{target}", played


@_checked
def chance(ruleset, *, target: int | None = None, sheet: str | None = None, players: int = 1,
           opponent_sheets=(), games: int = 2000, seed: int = 0, options=None,
           table=None, progress=None) -> Chance:
    """P(final ≥ target) from the start of the next turn with ``sheet``, playing for it, and
    under the expected-score policy, side by side (both from the one target table).

    With ``players`` 2 the chance to win against ``opponent_sheets`` (``chance_two_player``),
    with 3 or more the share of the win in ``games`` played out (``chance_players``).
    Returns a ``Chance`` (``probability``; ``to_json()`` is what ``chance --json`` prints).
    """
    from .solver.target.advice import chance as chance_of

    opponent_sheets = _listed(opponent_sheets)
    _check_seats(players)
    _at_least_one_game(games)  # refused where unused too, as the command line refuses it
    if players > 1 and target is not None:
        raise UnfitArguments(Message("--players {players} takes no --target", players=players))
    if players > 2:
        if table is not None:
            raise UnfitArguments(Message("--table is for one or two players"))
        for_command(ruleset, "chance", options)  # a game with no chance at all says so first
        # none given: every rival's sheet empty, as two players' (and as the mover's own)
        return chance_players(ruleset, players=players, sheet=sheet,
                              opponent_sheets=opponent_sheets or [""] * (players - 1),
                              games=games, seed=seed,
                              options=options, progress=progress)
    if players == 2:
        if len(opponent_sheets) > 1:
            raise UnfitArguments(Message("--players 2 takes one --opponent-sheet"))
        return chance_two_player(ruleset, sheet=sheet,
                                 opponent_sheet=opponent_sheets[0] if opponent_sheets else "",
                                 options=options, table=table, progress=progress)
    if target is None:
        for_command(ruleset, "chance", options)  # a game with no chance says so first
        raise UnfitArguments(Message("give --target T (or --players 2)"))
    if opponent_sheets:
        raise UnfitArguments(Message("--opponent-sheet is for --players N"))
    target = check_target(target)
    game, rules = for_command(ruleset, "chance", options)
    written = game.target_sheet(rules, sheet)
    base, tsol = _target_solutions(game, rules, target, table, progress)
    engine = game.category_rules(rules)
    p, q = (chance_of(engine, values, written.mask, written.extra, written.points, target)
            for values in (tsol.payload, tsol.payload.expected_score_policy()))
    return Chance(game.name, rules.options, p, {
        "target": target, "sheet": dict(written.scores + written.counters),
        "points": written.points, "probability_expected_score_policy": q})


@_checked
def advise_target(ruleset, *, dice, roll: int | None, sheet: str | None = None, target: int,
                  options=None, table=None, progress=None) -> Advice:
    """Every choice ranked by P(final ≥ target), with its expected final score beside and the
    choice of the expected-score policy named."""
    target = check_target(target)
    game, rules = _for_target(ruleset, options)
    game.check_position(rules, {"dice": list(dice), "roll": roll, "sheet": sheet})
    base, tsol = _target_solutions(game, rules, target, table, progress)
    from .solver.objectives.target import rank_for_target

    return rank_for_target(game, base, tsol, sheet, dice, roll, target)


@_checked
def target_curve(ruleset, *, options=None, table=None, progress=None) -> StrategyTable:
    """P(final ≥ T) for every T, playing for T and under the expected-score policy
    (``table``: the game's table, as for its other strategy tables)."""
    from .solver.target.table import table_for

    game, rules = _for_target(ruleset, options)
    base = store.solution(game, rules, table, progress_factory=progress)
    tsol = store.solution(table_for(game, rules, None, game.state_values(base), every=True), rules,
                          progress_factory=progress)
    # a probability summed over many paths can land a few ulps above 1: shown as 1
    chances = np.clip(tsol.payload.chances(), 0.0, 1.0)
    expected = np.clip(tsol.payload.expected_score_policy().chances(), 0.0, 1.0)
    rows = [[t, float(chances[t]), float(expected[t])]
            for t in range(len(chances))]
    return StrategyTable(game.name, "target",
                         ["target", "probability", "probability_expected_score_policy"], rows)


def _race_solution(ruleset, options, sheet, opponent_sheet, table, progress) -> Solution:
    game, rules = _two_player_game(ruleset, options)
    values, first, second, _ = race_values(game, rules, sheet, opponent_sheet, table, progress)
    from .solver.objectives.race import RaceReferee

    return Solution(RaceReferee(game, values, first, second), rules, values,
                    {"expected_score": values.value(first.mask, second.mask,
                                                    first.points - second.points)},
                    None, False, 0.0)


# --- several players at one table --------------------------------------------------------------

@dataclass(frozen=True)
class TableDuel:
    """Policy A in one seat against N − 1 players of policy B, seats rotating."""

    ruleset: str
    rule_options: Mapping[str, Any]
    result: Any  # solver.multiplayer.duel.TableResult
    approximate: bool  # a policy at the table is approximate (``win`` beyond the exact race)

    @_as_printed
    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "rule_options": dict(self.rule_options),
                **self.result.to_json(), "approximate": self.approximate}


def _seat_policy(game: Game, rules, policy: str) -> str:
    """A policy a seat at a table plays, by its own name, refused before any table is built."""
    try:
        name = policy if policy in game.table_policies(rules) else game.resolve_policy(policy)
    except DicewiseError:  # no policy of the game's: refused below in the table's words
        name = None
    if name not in game.seat_policies(rules):
        raise DicewiseError(Message("a table of {game} seats the policies {policies}, not "
                                    "{policy!r}", game=game.name,
                                    policies=", ".join(game.seat_policies(rules)), policy=policy))
    return name


@_checked
def duel_players(ruleset, *, players: int, a: str | None = None, b: str | None = None,
                 games: int = 10000, seed: int = 0, options=None, table=None,
                 progress=None) -> TableDuel:
    """A at a table of ``players`` with B in every other seat, the seats rotating game by
    game: A's share of the win (ties split) with its Wilson interval, its margin over the
    rivals' mean, every seat's points (and the game's own counts, as premiums taken)."""
    from .solver.multiplayer.duel import at_least_a_game_a_seat, play_table

    game, rules = for_command(ruleset, "duel", options)
    _check_seats(players, game, rules)
    a, b = race_pair(a, b)  # left out: win against optimal
    a, b = _seat_policy(game, rules, a), _seat_policy(game, rules, b)
    if games < players:
        raise DicewiseError(at_least_a_game_a_seat(players))
    if any(p in game.table_policies(rules) or game.needs_solution(p) for p in (a, b)):
        solution = store.solution(game, rules, table, progress_factory=progress)
    else:
        solution = Solution(game, rules, None, {}, None, False, 0.0)
    deals = -(-games // players)
    label = Plural("playing {games} game of {players} players",
                   "playing {games} games of {players} players", deals * players,
                   games=Number(deals * players), players=players)
    with (progress or _quiet)(deals * players, label) as update:
        result = play_table(lambda seats, n, s, first: game.play_seated(solution, seats, n, s, first),
                            a, b, players, games, seed, update)
    approximate = (not game.exact or (solution.payload is not None and solution.approximate)
                   or any(p in game.table_policies(rules) for p in (a, b)))
    return TableDuel(game.name, game.rule_options(rules), result, approximate)


def _table_sheets(ruleset, players, sheet, opponent_sheets, options):
    """(game, rules, my sheet, rival sheets) of a category race at a table of ``players``."""
    from .solver.sheet import parse_sheet

    game, rules = make_rules(ruleset, options)
    _check_seats(players, game, rules)
    if 2 not in game.players(rules):
        raise DicewiseError(Message("{game} has no play to win at a table of {players}; "
                                    "`dicewise duel {game} --players {players}` plays it",
                                    game=game.name, players=players))
    if players < 3:
        raise DicewiseError(Message("a table of {game} seats 3 to 6 players here (2: the exact "
                                    "race), not {players}", game=game.name, players=players))
    return (game, rules, parse_sheet(rules, sheet or None),
            [parse_sheet(rules, s or None) for s in _listed(opponent_sheets)])


@_checked
def advise_players(ruleset, *, players: int, dice, roll: int | None = None,
                   sheet: str | None = None, opponent_sheets=(), fifth: str | None = None,
                   opponent_fifths=(), options=None, table=None, progress=None) -> Advice:
    """Every choice at a table of ``players`` ranked by the game's ``win`` policy against
    the rivals' sheets (``opponent_sheets``, one each; ``opponent_fifths`` for Ryzykant),
    approximate, the expected score beside.  Two-player General is the exact race
    (``advise_two_player``); this is every other table."""
    from .solver.multiplayer.table_advice import check_rival_count

    game, rules = for_command(ruleset, "advise", options)
    if "win" not in game.table_policies(rules):
        raise DicewiseError(no_table_play(game.name))
    _check_seats(players, game, rules)
    opponent_sheets, opponent_fifths = _listed(opponent_sheets), _listed(opponent_fifths)
    check_rival_count(players, len(opponent_sheets))
    if len(opponent_fifths) > len(opponent_sheets):
        raise DicewiseError(Message("more --opponent-fifth than --opponent-sheet: give one "
                                    "fifth per rival sheet, in the same order"))
    if opponent_fifths and "fifth" not in game.advise_inputs:
        raise DicewiseError(Message("{game} takes no --opponent-fifth", game=game.name))
    opponent_fifths += [None] * (len(opponent_sheets) - len(opponent_fifths))
    position = _position(game, dice, sheet, roll=roll, fifth=fifth)
    rivals = [{"sheet": s or None, "fifth": f} for s, f in zip(opponent_sheets, opponent_fifths)]
    game.check_table_position(rules, position, rivals)  # refuse the sheets before any solve
    solution = store.solution(game, rules, table, must_exist=table is not None,
                              progress_factory=progress)
    return game.advise_table(solution, position, rivals)


@_checked
def chance_players(ruleset, *, players: int, sheet: str | None = None, opponent_sheets=(),
                   games: int = 2000, seed: int = 0, options=None, progress=None) -> Chance:
    """The mover's share of the win at a table of ``players`` from the start of its turn:
    the share the win policy takes in ``games`` plays of the position against rivals
    playing for the best mean (``simulated``, with its interval), and the policy's own
    estimate (``probability``; it runs a little high).  Approximate."""
    from .solver.multiplayer.table_advice import table_chance, table_position

    game, rules, me, rivals = _table_sheets(ruleset, players, sheet, opponent_sheets, options)
    table_position(rules, me, rivals, players)
    _at_least_one_game(games)
    solitaire = store.solution(game, rules, progress_factory=progress).payload
    result = table_chance(rules, solitaire, me, rivals, games, seed)
    fields = {**result, "sheet": dict(me.scores), "points": me.points,
              "opponent_sheets": [dict(s.scores) for s in rivals],
              "opponent_points": [s.points for s in rivals], "approximate": True}
    return Chance(game.name, rules.options, fields.pop("estimate"), fields)
