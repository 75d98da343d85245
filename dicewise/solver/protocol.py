"""The game protocol: what every registered ruleset declares and implements.

Every game dicewise knows is one object, a subclass of :class:`Game`, registered by name in
``solver/registry.py``.  The generic commands, the Python API (``dicewise.api``), the table
store (``tables/store.py``) and the generic players (``play/``) reach a game only through
this interface, so adding a game is one package, its tests and one registry line.

The contract, written once:

* A game **declares** its name, title, whether its values are exact, the commands it
  supports, its simulation policies (the first is ``optimal``: the best policy dicewise has,
  labelled approximate where it is), its strategy tables, its options and the position
  inputs its advisor takes (``roll``, ``fifth``...).
* ``rules(options)`` turns user options into the game's frozen, validated rules object.
* **Solving** is ``build(rules, progress) -> (payload, meta)``; ``to_arrays``/``from_arrays``
  move a payload to and from a table file, whose build-or-load is generic.  ``meta`` is
  JSON-able and holds at least ``expected_score`` (approximate games add ``ci95`` and
  ``error_estimate``).
* **Advice** is ``advise(solution, position) -> Advice``: every distinct choice, ranked, each
  carrying the agent-protocol action it stands for, so one advisor serves people, ``review``
  and ``bench-agent``.
* **Play** is ``play(solution, policy, games, seed, progress) -> Played``: final scores of a
  batch of games on common random numbers (the same seed gives the same dice stream, so two
  policies are compared on the same rolls), and ``episode(solution, seed, index)`` plays one
  game decision by decision for agents (the dice of game ``index`` of ``play`` with that seed).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterator, Mapping, Sequence

import numpy as np

from ..errors import BadAction, DicewiseError  # noqa: F401 - BadAction is part of the protocol
from ..i18n import Message
from .options import OptionSpec, parse_option, parse_option_pairs
from .sheet import Sheet

Progress = Callable[[float], None]

#: Every command of the generic command line a game may support.
COMMANDS = frozenset({"solve", "advise", "simulate", "duel", "table", "bench-agent", "review",
                      "chance", "play"})


#: The columns of every game's opening table (``table --what opening``): the roll of the
#: first turn, its dice, the best choice and its expected final score, the runner-up's, and
#: the margin between them, named as advice names them.
OPENING_COLUMNS = ("roll", "dice", "best", "expected", "runner_up", "runner_up_expected",
                   "margin")

#: What advice ranks by: the expected final score, P(final ≥ target), or P(win) + ½P(draw).
OBJECTIVES = ("expected_score", "target", "win")

#: Two values (chances, or expected scores) closer than this, relative to the larger, are
#: one value summed in another order: a tie (an exact 0 ties with 0 only, so a tiny chance is
#: never taken for none).
ROUNDING_TIE = 1e-12


def same_but_for_rounding(p: float, q: float) -> bool:
    """Whether two values are equal but for rounding (``ROUNDING_TIE``)."""
    return abs(p - q) <= ROUNDING_TIE * max(abs(p), abs(q))


@dataclass(frozen=True)
class Choice:
    """One thing a player can do now, valued with best play after it.

    ``expected`` is the expected final score; ``probability`` is the chance that is played
    for when the objective is a target or a win (None otherwise); ``loss`` is measured in
    the objective's unit: points, or probability.
    """

    action: dict  # the agent-protocol action, e.g. {"keep": [6, 6]} or {"write": "sixes"}
    label: str  # the same for people: "keep 6 6 (reroll 3)"
    expected: float | None
    loss: float  # the best choice's value minus this one's
    detail: Mapping[str, Any] = field(default_factory=dict)  # game-specific JSON fields
    probability: float | None = None
    #: Approximate values: an estimate of the error of ``loss`` (None where values are exact).
    loss_error: float | None = None

    @property
    def close_call(self) -> bool:
        """Whether the values cannot tell this choice from the best: a loss within its error
        (for the best choice: some other choice's is), unless the rules prove the choice
        worse than another (``detail["dominated_by"]``) or never better than the best choice,
        whichever that is (``detail["never_best"]``)."""
        return (self.loss_error is not None and 0 < self.loss_error
                and self.loss <= self.loss_error and not self.detail.get("dominated_by")
                and not self.detail.get("never_best"))

    @property
    def value(self) -> float:
        """What the ranking compares: the probability if there is one, else the expectation."""
        return self.expected if self.probability is None else self.probability

    def to_json(self) -> dict:
        chance = ({} if self.probability is None
                  else {"probability": _python_number(self.probability)})
        error = {} if self.loss_error is None else {"loss_error": self.loss_error,
                                                    "close_call": self.close_call}
        return {"action": self.action, "label": self.label, **chance,
                "expected": _python_number(self.expected), "loss": _python_number(self.loss),
                **error, **self.detail}


def _python_number(value):
    """A NumPy number as Python's own (as every other result's JSON holds), None as None."""
    return None if value is None else float(value)


def with_loss_errors(deep, shallow, scale: float, floor, slope: float = 0.0) -> tuple:
    """The choices ``deep`` (searched values, best first) with their ``loss_error``.

    ``shallow`` are the same choices valued without the search (``value``: the expected
    score, or the probability played for).  Searching moves a choice's loss against the
    best by |ΔL|; the error left is taken as ``scale`` × |ΔL| + ``slope`` × loss + ``floor``
    (a number, or a function of the choice and the best choice), constants each game sets
    where the losses can be measured.  The best choice's error is the most by
    which another might be better: max(error − loss) over the others that the rules do not
    prove worse than another choice (``detail["dominated_by"]``: that choice's own term
    bounds it) or never better than the best (``detail["never_best"]``), or 0.
    """
    top = max(c.value for c in shallow)
    shallow_loss = {repr(c.action): top - c.value for c in shallow}
    floor_of = floor if callable(floor) else (lambda choice, best: floor)
    errors = [scale * abs(c.loss - shallow_loss[repr(c.action)]) + slope * c.loss
              + floor_of(c, deep[0]) for c in deep]
    if errors:  # a choice the rules prove worse than another beats the best by less than it
        actions = [c.action for c in deep]
        errors[0] = max([e - c.loss for c, e in zip(deep[1:], errors[1:])
                         if c.detail.get("dominated_by") not in actions
                         and not c.detail.get("never_best")] + [0.0])
    return tuple(replace(c, loss_error=float(e)) for c, e in zip(deep, errors))


@dataclass(frozen=True)
class Advice:
    """Every distinct choice in one position, best first, and how sure the values are."""

    ruleset: str
    rule_options: Mapping[str, Any]
    position: Mapping[str, Any]  # what was asked, as the game reads it (dice, roll, sheet, points)
    choices: tuple[Choice, ...]
    headline: str  # one line for people describing the position
    turn_start_expected: float | None = None
    approximate: bool = False
    error_estimate: float | None = None  # measured estimate of what the values miss (approximate)
    upper_bound: float | None = None  # a proven bound on the optimum, where one is known
    ended: str | None = None  # why the game is already over, if it is
    objective: str = "expected_score"  # one of OBJECTIVES
    turn_start_probability: float | None = None  # the objective's chance at turn start
    expected_score_choice: dict | None = None  # what expected-score play takes, if it differs

    @property
    def best(self) -> Choice | None:
        return self.choices[0] if self.choices else None

    def top(self, k: int | None) -> "Advice":
        """This advice with its best ``k`` choices only (all of them when ``k`` is None), as
        ``--top K`` prints it: k is at least 1."""
        if k is None:
            return self
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 1:
            raise DicewiseError(f"top takes a whole number of choices, at least 1, or None, "
                                f"not {k!r}")
        if k >= len(self.choices):
            return self
        return replace(self, choices=self.choices[:int(k)])

    @property
    def settled(self) -> str | None:
        """Playing for a target: ``"out_of_reach"`` where no choice can reach it any more,
        ``"certain"`` where the best choice reaches it surely; else None (and None for the
        other objectives).  Choices of one chance are ranked by their expected score
        (``advice.ranked_by_chance``), which is all that is left to rank when it is settled."""
        if self.objective != "target" or self.best is None:
            return None
        p = self.best.probability
        return ("out_of_reach" if same_but_for_rounding(p, 0.0)
                else "certain" if same_but_for_rounding(p, 1.0) else None)

    def choice_for(self, action: dict) -> Choice:
        """The choice that plays ``action`` (in the protocol's canonical form), or BadAction."""
        for c in self.choices:
            try:
                if c.action == action:
                    return c
            except ValueError:  # an array's truth value: not the canonical form (lists)
                break
        raise BadAction(f"{json.dumps(action, default=repr)} is not a legal action here")

    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "rule_options": dict(self.rule_options),
                **dict(self.position), "turn_start_expected": self.turn_start_expected,
                "ended": self.ended, "approximate": self.approximate,
                "error_estimate": self.error_estimate, "upper_bound": self.upper_bound,
                **({} if self.objective == "expected_score" else {
                    "objective": self.objective,
                    "turn_start_probability": self.turn_start_probability,
                    "expected_score_choice": self.expected_score_choice,
                    "policies_differ": (self.best is not None and self.expected_score_choice
                                        is not None and self.best.action != self.expected_score_choice),
                    **({"settled": self.settled} if self.objective == "target" else {})}),
                "best": self.best.to_json() if self.best else None,
                "choices": [c.to_json() for c in self.choices]}


@dataclass(frozen=True)
class Solution:
    """A solved (or fitted) game with its rules, its payload and where its table is."""

    game: "Game"
    rules: Any
    payload: Any = field(repr=False)
    meta: Mapping[str, Any]
    table: Path | None
    built: bool  # True when solved in this call, False when loaded
    seconds: float  # time spent building (0 when loaded)

    @property
    def expected_score(self) -> float:
        return float(self.meta["expected_score"])

    @property
    def approximate(self) -> bool:
        return bool(self.meta.get("approximate", not self.game.exact))

    @property
    def error_estimate(self) -> float | None:
        """What the values may miss; None for an exact solution (a fitted Ryzykant policy
        that turned out optimal on a reduced game stores 0)."""
        return self.meta.get("error_estimate") if self.approximate else None

    @property
    def ci95(self) -> tuple[float, float] | None:
        ci = self.meta.get("ci95")
        return None if ci is None else (float(ci[0]), float(ci[1]))

    @property
    def rule_options(self) -> dict:
        return self.game.rule_options(self.rules)

    def to_json(self) -> dict:
        """What ``dicewise solve --json`` prints: the value and how sure it is, the table,
        and what the game adds (``Game.solve_report``)."""
        report = {"ruleset": self.game.name, "rule_options": self.rule_options,
                  "expected_score": self.expected_score, "approximate": self.approximate,
                  "ci95": list(self.ci95) if self.ci95 else None,
                  "error_estimate": self.error_estimate,
                  "seconds": round(self.seconds, 3), "built": self.built,
                  "table": str(self.table) if self.table else None}
        return {**report, **self.game.solve_report(self)}


@dataclass(frozen=True)
class Played:
    """Final scores of a batch of simulated games, with game-specific statistics."""

    scores: np.ndarray = field(repr=False)
    seconds: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)  # e.g. mean rolls per game
    examples: tuple = ()  # a few finished games for people (JSON-able dicts)


class Episode(ABC):
    """One game played decision by decision (for agents): observe, act, until done."""

    @property
    @abstractmethod
    def done(self) -> bool:
        """Whether the game is over."""

    @property
    @abstractmethod
    def score(self) -> float:
        """Points on the sheet now (the final score once done)."""

    @abstractmethod
    def observation(self) -> dict:
        """What the agent sees, as JSON; ``legal`` lists every distinct legal action."""

    @abstractmethod
    def apply(self, action: dict) -> float:
        """Play a legal action (BadAction otherwise); returns the points it wrote."""


def chunked_episodes(episode, stream, games: int, chunk: int) -> Iterator[Episode]:
    """Games 0..games-1 made as they are played, those of each ``chunk`` games sharing one
    ``stream(c)`` of dice: ``episode(i, stream)`` is game i."""
    shared = None
    for i in range(games):
        if i % chunk == 0:
            shared = stream(i // chunk)
        yield episode(i, shared)


class Game(ABC):
    """One registered ruleset: what it supports and how (see the module docstring)."""

    name: ClassVar[str]
    title: ClassVar[str]
    exact: ClassVar[bool]
    commands: ClassVar[frozenset] = COMMANDS
    policies: ClassVar[tuple[str, ...]] = ("optimal", "greedy", "random")
    policy_aliases: ClassVar[Mapping[str, str]] = {"solved": "optimal"}
    #: Strategy tables for ``dicewise table --what``: name -> one line of help.
    tables: ClassVar[Mapping[str, str]] = {}
    #: The advisor's position inputs besides the dice and the sheet ("roll", "fifth").
    advise_inputs: ClassVar[frozenset] = frozenset({"roll"})
    #: A line on the sheet notation, for ``rules`` and the advise help.
    sheet_help: ClassVar[str] = ""  # a Message, so that people read it in their language
    #: Commands that work only under some options: command -> where (``dicewise rules`` says).
    command_notes: ClassVar[Mapping[str, str]] = {}
    #: The name of the game's own command group, if it has one (``dicewise risk ...``).
    own_group: ClassVar[str | None] = None

    # --- rules and options -------------------------------------------------------------

    @abstractmethod
    def option_specs(self) -> tuple[OptionSpec, ...]:
        """The rule options, in order."""

    @abstractmethod
    def rules(self, options: Mapping[str, Any]) -> Any:
        """The frozen rules for typed option values (DicewiseError for unknown or bad ones)."""

    def parse_options(self, options) -> dict:
        """Typed option values from a dict or from ``KEY=VALUE`` strings."""
        if options is None:
            return {}
        if isinstance(options, Mapping):
            # a value given as its text (``"false"``, ``"1"``, as ``KEY=VALUE`` writes it)
            # means what that text means; a typed value is taken as it is
            specs = {s.name: s for s in self.option_specs()}
            return {k: parse_option(specs[k], v) if isinstance(v, str) and k in specs else v
                    for k, v in options.items()}
        return parse_option_pairs(self.name, self.option_specs(), options)

    def rule_options(self, rules) -> dict:
        """The option values of ``rules`` as a plain dict."""
        return dict(rules.options)

    def describe(self, rules) -> dict:
        """What ``dicewise rules NAME`` shows beyond the options (categories, notation)."""
        return {}

    # --- solving -----------------------------------------------------------------------

    def table_stem(self, rules) -> str:
        """The table's cache name without the rules digest: ruleset, kind and options."""
        slug = "-".join(f"{k}={v}" for k, v in sorted(self.rule_options(rules).items())) or "default"
        return f"{self.name}-{slug}"

    @abstractmethod
    def table_kind(self, rules) -> str:
        """The kind written in the table header (what the payload is)."""

    @abstractmethod
    def rules_digest(self, rules) -> str:
        """A digest of the code that defines the rules and the method of the table."""

    def build_units(self, rules) -> float:
        """The length of the progress bar of ``build``."""
        return 1

    @abstractmethod
    def build(self, rules, progress: Progress | None = None) -> tuple[Any, dict]:
        """Solve or fit: (payload, meta)."""

    @abstractmethod
    def to_arrays(self, payload) -> dict[str, np.ndarray]:
        """The payload as named arrays for the table file."""

    @abstractmethod
    def from_arrays(self, rules, arrays: Mapping[str, np.ndarray], meta: Mapping) -> Any:
        """The payload back from a table file's arrays (TableError if they do not fit)."""

    def solve_report(self, solution: Solution) -> dict:
        """Fields ``solve`` reports beyond the generic ones (states, a bound...)."""
        return {}

    # --- advice, play, tables, agents ---------------------------------------------------

    def check_position(self, rules, position: Mapping[str, Any]) -> Any:
        """Parse and check a position before any table is built; returns the game's form."""
        return position

    def advise(self, solution: Solution, position: Mapping[str, Any]) -> Advice:
        """Rank every choice in ``position`` (keys: dice, sheet and ``advise_inputs``)."""
        raise unsupported(self, "advise")

    def advise_observation(self, solution: Solution, observation: Mapping[str, Any]) -> Advice:
        """Rank every choice in an agent observation (for review and bench-agent)."""
        raise unsupported(self, "review")

    def play(self, solution: Solution, policy: str, games: int, seed: int,
             progress: Progress | None = None) -> Played:
        """Play ``games`` games with ``policy`` on the dice stream of ``seed``.

        For a policy that needs no table (``needs_solution`` false) the solution carries the
        rules only: its payload is None.
        """
        raise unsupported(self, "simulate")

    def distribution_units(self, solution: Solution, policy: str) -> int:
        """The length of the progress bar of ``score_distribution``: 0 where it computes none."""
        return 0

    def score_distribution(self, solution: Solution, policy: str,
                           progress: Progress | None = None) -> dict | None:
        """The exact distribution of the final score under ``policy``, where it is computed."""
        return None

    def needs_solution(self, policy: str) -> bool:
        """Whether ``policy`` plays from the solved table (greedy and random need none)."""
        return policy == "optimal"

    def strategy_table(self, solution: Solution, what: str, games: int, seed: int,
                       progress: Progress | None = None) -> tuple[list[str], list[list]]:
        """A table for people: (header, rows)."""
        raise unsupported(self, "table")

    def episode(self, solution: Solution, seed: int, index: int) -> Episode:
        """Game ``index`` of the dice stream of ``seed``, to be played by an agent."""
        raise unsupported(self, "bench-agent")

    def episodes(self, solution: Solution, seed: int, games: int) -> Iterator[Episode]:
        """Games 0..games-1 of the dice stream of ``seed`` (a game may share the stream), made
        as they are played: a run stopped early, or of millions of games, holds only a few."""
        return (self.episode(solution, seed, i) for i in range(games))

    # --- played along at the table (``dicewise play``; play/session.py) ----------------

    #: Whether every player uses every roll (Ryzykant) instead of throwing a turn of their own.
    shared_rolls: ClassVar[bool] = False

    def player_sheet(self, rules):
        """An empty sheet of one player at a table (a ``player_sheet.PlayerSheet``)."""
        raise unsupported(self, "play")

    def table_prizes(self, rules, players: int):
        """What the players of a table contest beyond their own sheets (JSON-able), or None."""
        return None

    def settle_prizes(self, rules, sheets: list, prizes, mover: int):
        """(sheets, prizes) after ``mover`` wrote: a contested prize goes to its first earner."""
        return sheets, prizes

    def settlement(self, rules, finals) -> list | None:
        """What each player wins or pays at the end besides the ranking, or None."""
        return None

    def action_space(self, rules) -> tuple[dict, ...]:
        """Every canonical action of the game under ``rules``, in a fixed order.

        The legal actions of any position (an observation's ``legal``) are a subset of it, in
        the form ``canonical_action`` gives; environments number actions by their place here.
        """
        raise unsupported(self, "envs")

    def observation_encoder(self, rules, actions: tuple[dict, ...]):
        """The environments' observation of this game (an ``envs.observe.Encoder``, built
        from its generic fields; needs the ``rl`` extra)."""
        raise unsupported(self, "envs")

    def canonical_action(self, action) -> dict:
        """An agent's answer in the form the advice's choices use (BadAction if malformed)."""
        if not isinstance(action, dict):
            raise BadAction(f"an action is a JSON object, not {action!r}")
        return action

    def state_values(self, solution: Solution):
        """The exact expected remaining score of every state (``category.StateValues``), for
        the games whose table is one: what play for a target compares with."""
        raise unsupported(self, "chance")

    def category_rules(self, rules):
        """The category ruleset that the generic engine solves for ``rules`` (``state_values``
        index its states; play for a target solves it): the rules themselves for a category
        game, a reduced variant's for a game solved exactly only in that variant."""
        return rules

    def target_sheet(self, rules, text: str | None):
        """A sheet for play towards a target, as the category engine reads it (``sheet.Sheet``):
        here only the empty sheet; games whose sheets are category sheets read them all."""
        if text:
            raise DicewiseError(Message("play for a target reads {game} sheets from the start "
                                        "of a game only: give no --sheet", game=self.name))
        return Sheet((), (), 0, self.category_rules(rules).initial_extra, 0)

    def players(self, rules) -> tuple[int, ...]:
        """The numbers of players the game is solved for (two: the race, solved exactly)."""
        return (1,)

    # --- several players at one table (``duel --players N``; solver/multiplayer/) ------------

    def table_players(self, rules) -> tuple[int, ...]:
        """The numbers of players a table of this game seats (RULES.md)."""
        return (2, 3, 4, 5, 6)

    def table_policies(self, rules) -> tuple[str, ...]:
        """Policies that see the rivals, played only at a table (``win``: play to win)."""
        return ()

    def seat_policies(self, rules) -> tuple[str, ...]:
        """What a seat at a table may play: the game's own policies and those of the table."""
        return self.policies + self.table_policies(rules)

    def play_seated(self, solution: Solution, seats: tuple[str, ...], deals: int, seed: int,
                    first_deal: int = 0):
        """``deals`` games of ``len(seats)`` players, seat j playing ``seats[j]`` (seat 0
        moves first): a ``multiplayer.seats.Seated``.  Deal d's dice (d counted from
        ``first_deal``) are the same whichever policies sit where.  By default the players
        never meet: each plays a solitaire game on dice of its own."""
        from .multiplayer.seats import Seated

        n = len(seats)
        chunk_seed = int(np.random.SeedSequence([seed, first_deal, 0x5EA7]).generate_state(1)[0])
        scores = np.empty((deals, n))
        for policy in set(seats):
            played = self.play(solution, policy, deals * n, chunk_seed).scores.reshape(deals, n)
            for j in range(n):
                if seats[j] == policy:
                    scores[:, j] = played[:, j]
        return Seated(scores)

    def check_table_position(self, rules, position: Mapping[str, Any],
                             rivals: Sequence[Mapping[str, Any]]) -> Any:
        """The mover's ``position`` (as ``advise`` reads it) and each rival's (their sheet, and
        what else the game reads) at one table, read and checked: a DicewiseError for
        sheets that turns in seat order cannot have led to.  No table is needed for this."""
        raise DicewiseError(no_table_play(self.name))

    def advise_table(self, solution: Solution, position: Mapping[str, Any],
                     rivals: Sequence[Mapping[str, Any]]) -> Advice:
        """Every choice of the mover at a table with ``rivals``, ranked by the game's
        ``win`` policy (approximate), the expected score beside."""
        raise DicewiseError(f"{self.name} has no play to win at a table")

    def resolve_policy(self, policy: str) -> str:
        """The canonical policy name, or a DicewiseError listing the policies."""
        name = self.policy_aliases.get(policy, policy)
        if name not in self.policies:
            raise DicewiseError(Message("unknown policy {policy!r} for {game} (policies: "
                                        "{policies})", policy=policy, game=self.name,
                                        policies=", ".join(self.policy_names())))
        return name

    def policy_names(self) -> tuple[str, ...]:
        """The policies as a player names them: a game with ``chance`` also plays for a
        target T (``target:T``, the best chance of a final score of at least T)."""
        return self.policies + (("target:T",) if "chance" in self.commands else ())


def observed_roll(observation: Mapping) -> int:
    """The roll number of an agent-protocol observation, a whole number as written (``int()``
    would read 2.5 as roll 2 and true as roll 1); a TypeError or KeyError otherwise."""
    roll = observation["roll"]
    if isinstance(roll, bool) or not isinstance(roll, (int, np.integer)):
        raise TypeError(f"roll {roll!r}")
    return int(roll)


def rival_sheets(parse: Callable, rivals: Sequence) -> list:
    """``parse`` applied to each rival's sheet, a refusal naming the rival (1, 2, ... in the
    order given): "rival sheet 2: ..."."""
    from ..i18n import message_of

    parsed = []
    for number, rival in enumerate(rivals, 1):
        try:
            parsed.append(parse(rival))
        except DicewiseError as e:
            raise DicewiseError(Message("rival sheet {number}: {why}", number=number,
                                        why=message_of(e))) from None
    return parsed


def no_table_play(game: str) -> Message:
    """Why ``advise --players N`` refuses a game without play to win at a table."""
    return Message("{game} has no play to win at a table: `dicewise advise {game}` ranks "
                   "choices by the expected score", game=game)


def unsupported(game: Game, command: str) -> DicewiseError:
    """The error for a command a game does not have."""
    if game.own_group:
        return DicewiseError(Message("{game} has no `{command}` (see `dicewise {group} --help`)",
                                     game=game.name, command=command, group=game.own_group))
    return DicewiseError(Message("{game} has no `{command}`", game=game.name, command=command))
