"""A game in progress at the table: seats, turns, the dice, every player's sheet, the result.

``TableGame`` follows a whole game of N players under a seed's rules, as they play it with
real dice (or dice rolled by dicewise from the game's seed).  It is driven by the line
commands of ``play/commands.py``; ``apply(line)`` answers exactly the JSON line
``dicewise play --json`` prints for it::

    {"ok": true, "state": {...}, "advice": {...} or null}
    {"ok": false, "error": "..."}          # a bad command changes nothing

The game is its list of accepted events (dice shown, actions taken): saving writes that
list with the table's settings, resuming and undoing replay it, so a saved game resumes
exactly.  The rules come through the game protocol: each player's sheet is the game's
``PlayerSheet``; turns are whole turns of up to three rolls in seat order, or, where every
player uses every roll (Ryzykant, RULES.md section 4), one throw per seat in turn that each
player still in the game splits; contested prizes (poker-school's premiums and column 60s,
RULES.md section 3) go through ``Game.settle_prizes``; a first-roll five of a kind in
General wins at once (RULES.md section 1).
"""

from __future__ import annotations

import json
import os
import secrets
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import api, i18n, json_input
from ..errors import DicewiseError
from ..i18n import Message, Plural
from ..solver.player_sheet import PlayerSheet
from ..solver.protocol import Advice, BadAction, unsupported
from ..tables.files import cannot_read, checked_input
from . import commands
from .advisor import TableAdvisor

FORMAT = "dicewise-table-game"
VERSION = 1
#: The longest name of a player (the sheets and the page show each on one line).
MAX_NAME = 40


@dataclass
class Table:
    """Who sits where and under which rules (what a saved game keeps besides its events)."""

    ruleset: str
    names: list[str]
    options: dict = field(default_factory=dict)
    seed: int = 0
    target: int | None = None
    objective: str = "auto"  # auto: two-player races are played to win; score: expected score
    lang: str = "en"
    top: int | None = None
    advice: bool = True  # False: the table keeps the score only (no table is built)

    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "names": list(self.names), "options": dict(self.options),
                "seed": self.seed, "target": self.target, "objective": self.objective,
                "lang": self.lang, "top": self.top, "advice": self.advice}

    def check(self, seats: tuple[int, ...]) -> None:
        """DicewiseError unless these settings can be played; ``seats``: the numbers of
        players a table of the game seats besides one (a new game's or a saved one's)."""
        names = self.names
        if not isinstance(names, list) or not all(isinstance(n, str) and n.strip()
                                                  for n in names):
            raise DicewiseError(Message("every player needs a name"))
        if any(len(name) > MAX_NAME for name in names):  # a new game's and a saved one's
            raise DicewiseError(Message("names must be a list of texts of 1 to 40 characters"))
        for name in names:  # a newline or a control character would break the sheets shown,
            # and half of a character (a surrogate) cannot be written to the game's file
            if any(unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") for c in name):
                raise DicewiseError(Message("a player's name is one line of printable text, not "
                                            "{name!r}", name=name))
        check_seats(self.ruleset, len(names), seats)
        if len(set(names)) != len(names):
            raise DicewiseError(Message("two players have the same name"))
        if not _whole(self.seed) or not 0 <= self.seed <= api.MAX_SEED:
            raise DicewiseError(Message("a seed is a whole number from 0 to {most}, not {seed!r}",
                                        most=api.MAX_SEED, seed=self.seed))
        if self.target is not None:
            self.target = api.check_target(self.target)
        if self.top is not None and (not _whole(self.top) or self.top < 1):
            raise DicewiseError(Message("--top takes a number of choices from 1, not {top}",
                                        top=repr(self.top)))
        if not isinstance(self.advice, bool):
            raise DicewiseError(Message("advice is true or false, not {value!r}",
                                        value=self.advice))
        self.lang = i18n.language(self.lang if isinstance(self.lang, str) else repr(self.lang))
        if self.objective not in ("auto", "score", "win"):
            raise DicewiseError(Message("the objective is auto, score or win, not {objective!r}",
                                        objective=self.objective))
        if self.objective == "win" and self.target is not None:
            raise DicewiseError(Message("advice plays to win or for a target, not both"))


def table_game(ruleset):
    """The game of ``ruleset``, refused where it has no play at a table; asked before its
    options are read, which such a game may refuse in words of its own (Risk's are
    English)."""
    game = api.game_of(ruleset, "play")
    if "play" not in game.commands:
        raise unsupported(game, "play")
    return game


def check_seats(ruleset: str, players: int, seats: tuple[int, ...]) -> None:
    """DicewiseError unless a table of ``ruleset`` seats ``players``: one, or one of
    ``seats`` (what the game's ``table_players`` says)."""
    if not _whole(players) or (players != 1 and players not in seats):
        raise DicewiseError(Message("a table of {game} seats {seats} players, not {players}",
                                    game=ruleset, players=players,
                                    seats=", ".join(map(str, (1,) + tuple(seats)))))


def _whole(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


class TableGame:
    """A whole game of several players at one table (see the module docstring)."""

    def __init__(self, table: Table, progress=None):
        self.table = table
        table_game(table.ruleset)  # before its options: a game with no play says so first
        self.game, self.rules = api.make_rules(table.ruleset, table.options)
        self.game.player_sheet(self.rules)  # a game without table play says so now
        table.check(self.game.table_players(self.rules))
        if table.target is not None:  # a game with no play for a target says so now
            if "chance" not in self.game.commands:
                raise DicewiseError(Message("{game} has no play for a target",
                                            game=self.game.name))
            self.game.category_rules(self.rules)
        exact = api.exact_race(self.game, len(table.names), table.options)
        approximate = ("win" in self.game.table_policies(self.rules)
                       and len(table.names) in self.game.table_players(self.rules))
        # auto: the exactly solved race is played to win; approximate win play is asked for
        race = table.target is None and (
            (exact and table.objective != "score") or (approximate and table.objective == "win"))
        if table.objective == "win" and not race:
            raise DicewiseError(Message("{game} has no play to win at a table of {players}: play "
                                        "for the best mean score (objective score)",
                                        game=self.game.name,
                                        players=len(table.names)))
        self.advisor = TableAdvisor(self.game, self.rules, table.target, race, progress)
        self.tr = i18n.translator(table.lang)
        self._advice: tuple[tuple, Advice | None] | None = None  # (position, its advice)
        self._reset()

    def _replay(self, events) -> None:
        for number, event in enumerate(events, 1):
            try:
                self._play(event)
            except DicewiseError as e:
                raise DicewiseError(Message("event {number}, {event}: {why}", number=number,
                                            event=shown(event), why=i18n.message_of(e))) from None
            self.events.append(event)

    # --- making, saving, resuming ---------------------------------------------------------

    @classmethod
    def new(cls, ruleset: str, players: int | None = None, names=None, options=None,
            seed: int | None = None, target: int | None = None, lang: str | None = None,
            top: int | None = None, objective: str = "auto", advice: bool = True,
            progress=None) -> "TableGame":
        """A new game: ``players`` seats (named ``names``, else Player 1..N)."""
        table_game(ruleset)
        game, rules = api.make_rules(ruleset, options)
        if isinstance(names, (list, tuple)):
            names = list(names)
        elif names is not None:  # a text is no list of names ("ab": players "a" and "b")
            raise DicewiseError(Message("names must be a list of texts of 1 to 40 characters"))
        names = names or []
        if names and players is not None and players != len(names):
            raise DicewiseError(Message("{names} names for {players} players", names=len(names),
                                        players=players))
        players = len(names) if names else 2 if players is None else players
        check_seats(game.name, players, game.table_players(rules))  # as a saved game's are
        lang = i18n.language(lang if lang is None or isinstance(lang, str) else repr(lang))
        names = names or default_names(players, lang)
        # Аня and аня are one player to the people at the table (a saved game is let be)
        if len({" ".join(str(n).split()).casefold() for n in names}) != len(names):
            raise DicewiseError(Message("two players have the same name"))
        table = Table(game.name, names, game.rule_options(rules),
                      secrets.randbits(31) if seed is None else seed, target, objective,
                      lang, top, bool(advice))
        return cls(table, progress=progress)

    def to_json(self) -> dict:
        """The saved game: the table's settings and every event so far."""
        return {"format": FORMAT, "version": VERSION, **self.table.to_json(),
                "events": list(self.events)}

    @classmethod
    def from_json(cls, data: dict, progress=None, ruleset: str | None = None,
                  lang: str | None = None) -> "TableGame":
        """A game saved by ``to_json`` (DicewiseError if it is no saved game or does not replay,
        or, where ``ruleset`` is named, if it is a game of another one); with ``lang`` it goes
        on in that language, and a move that does not replay is said in it."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise DicewiseError(Message("this is not a saved dicewise game"))
        if data.get("version") != VERSION:
            raise DicewiseError(Message("a saved game of version {version}; this dicewise reads "
                                        "version {ours}", version=repr(data.get("version")),
                                        ours=VERSION))
        for key in ("ruleset", "names", "events"):
            if key not in data:
                raise DicewiseError(Message("the saved game is damaged: it has no {field}",
                                            field=key))
        options, events = data.get("options") or {}, data["events"]
        if not isinstance(options, dict):  # each option is checked as a new game's are
            raise DicewiseError(Message("the saved game is damaged: its options are not an "
                                        "object of names and values but {value}",
                                        value=shown(options)))
        if not isinstance(events, list):
            raise DicewiseError(Message("the saved game is damaged: its events are not a list "
                                        "but {value}", value=shown(events)))
        saved_lang = data.get("lang") or "en"
        if lang is not None and saved_lang not in i18n.LANGUAGES:
            saved_lang = lang  # a language this dicewise does not speak gives way to ``lang``
        table = Table(data["ruleset"], data["names"], dict(options), data.get("seed", 0),
                      data.get("target"), data.get("objective", "auto"),
                      saved_lang, data.get("top"), data.get("advice", True))
        if ruleset is not None and ruleset != table.ruleset:
            api.make_rules(ruleset)  # an unknown name is refused as such
            raise DicewiseError(Message("the saved game is a game of {saved}, not {ruleset}",
                                        saved=table.ruleset, ruleset=ruleset))
        game = cls(table, progress=progress)  # its settings' errors as they are
        if lang is not None:  # before the replay: a move it refuses is said in ``lang``
            game.speak(lang)
        try:
            game._replay(events)
        except DicewiseError as e:  # an event the game refuses: a Message is said in the language
            raise DicewiseError(Message("the saved game does not replay: {why}",
                                        why=i18n.message_of(e))) from None
        return game

    def speak(self, lang: str) -> None:
        """Go on in ``lang``: its words, and the default names (Player 1, ...) in it too."""
        lang = i18n.language(lang)
        if self.table.names == default_names(len(self.table.names), self.table.lang):
            self.table.names = default_names(len(self.table.names), lang)
        self.table.lang, self.tr = lang, i18n.translator(lang)

    def save(self, path, new: bool = False) -> Path:
        """Write the game to ``path``; a file already there is replaced only where it holds a
        saved game (saving again under one name), never another kind of file.  With ``new``
        no file is replaced: FileExistsError where one is there."""
        from ..tables.files import write_output

        if not new and not _replaceable(path):
            raise DicewiseError(Message("{path} exists and holds no saved game: save under "
                                        "another name", path=str(path)))
        return write_output(path, json.dumps(self.to_json(), ensure_ascii=False, indent=1) + "\n",
                            new=new)

    @classmethod
    def load(cls, path, progress=None) -> "TableGame":
        return cls.from_json(read_saved(path), progress)

    # --- the state --------------------------------------------------------------------------

    def _reset(self) -> None:
        self.events: list[dict] = []
        n = len(self.table.names)
        self.sheets: list[PlayerSheet] = [self.game.player_sheet(self.rules) for _ in range(n)]
        self.prizes = self.game.table_prizes(self.rules, n)
        self.to_move = 0
        self.roll = 0  # rolls made in this turn (Ryzykant: 1 once the dice are thrown)
        self.dice: tuple[int, ...] | None = None
        self.kept: tuple[int, ...] = ()
        self.pending: list[int] = []  # Ryzykant: who still splits this roll
        self.thrower = 0
        self.won_at_once: int | None = None

    @property
    def shared(self) -> bool:
        return self.game.shared_rolls

    @property
    def over(self) -> bool:
        return self.won_at_once is not None or all(s.done for s in self.sheets)

    @property
    def awaiting(self) -> str | None:
        if self.over:
            return None
        return "dice" if self.dice is None else "choice"

    #: Commands a front end does in its own way, left out of ``verbs`` (the page saves and
    #: leaves by its buttons).
    elsewhere: frozenset = frozenset()

    @property
    def verbs(self) -> tuple[str, ...]:
        """The commands of this game (what ``help`` lists): splits where every player uses
        every roll, else keeps and writes, and crosses where the game has rows to cross."""
        if self.shared:
            unused = {"keep", "write", "cross"}
        else:
            unused = {"split"} | (set() if "rows" in self.game.describe(self.rules) else {"cross"})
        return tuple(v for v in commands.HELP if v not in unused | self.elsewhere)

    def legal(self) -> list[dict]:
        """Every action of the player to move now (keeps, then writes), [] unless a choice."""
        if self.awaiting != "choice":
            return []
        out = []
        if not self.shared and self.roll < 3:
            from ..solver import dice as dice_mod

            counts = dice_mod.counts_of(self.dice)
            out = [{"keep": dice_mod.faces_of(dice_mod.KEEPS[k])}
                   for k in dice_mod.sub_keeps(dice_mod.roll_index(counts))]
        return out + self.sheets[self.to_move].legal(self.dice, self.roll)

    def state(self) -> dict:
        """The JSON state (docs/json.md): players, to_move, awaiting, dice, over, result."""
        players = [{"name": name, "sheet": sheet.text, "points": sheet.points,
                    "done": sheet.done, **sheet.to_json()}
                   for name, sheet in zip(self.table.names, self.sheets)]
        return {"ruleset": self.game.name, "rule_options": self.game.rule_options(self.rules),
                "players": players, "to_move": None if self.over else self.to_move,
                "awaiting": self.awaiting, "roll": self.roll, "dice": list(self.dice or []),
                "kept": list(self.kept), "legal": self.legal(), "objective": self.advisor.objective,
                "target": self.table.target, "prizes": self.prizes_json(), "over": self.over,
                "result": self.result() if self.over else None, "events": len(self.events)}

    def prizes_json(self):
        if self.prizes is None:
            return None
        return self.prizes.to_json() if hasattr(self.prizes, "to_json") else self.prizes

    def result(self) -> dict:
        """The ranking (ties share a place), the winners and, where the seed has one, the
        settlement."""
        finals = [s.points for s in self.sheets]
        names = self.table.names
        if self.won_at_once is not None:
            w = self.won_at_once
            order = [w] + sorted((i for i in range(len(names)) if i != w), key=lambda i: -finals[i])
            places = {w: 1, **{i: 2 + sum(finals[j] > finals[i] for j in order[1:])
                               for i in order[1:]}}
            reason = "won_at_once"
        else:
            order = sorted(range(len(names)), key=lambda i: -finals[i])
            places = {i: 1 + sum(f > finals[i] for f in finals) for i in order}
            reason = "scores"
        ranking = [{"place": places[i], "name": names[i], "score": finals[i]} for i in order]
        settlement = self.game.settlement(self.rules, finals)
        out = {"reason": reason, "winners": [names[i] for i in order if places[i] == 1],
               "ranking": ranking}
        if self.won_at_once is not None:  # what ended it, in the rules' words (a Message)
            out["why"] = self.sheets[self.won_at_once].at_once_reason()
        if settlement is not None:
            out["settlement"] = {names[i]: settlement[i] for i in range(len(names))}
        return out

    # --- advice -----------------------------------------------------------------------------

    def advice(self, full: bool = False) -> Advice | None:
        """The advice for the player to move when a choice is awaited (the best ``top``)."""
        if self.awaiting != "choice" or not self.table.advice:
            return None
        key = (tuple(s.text for s in self.sheets), self.to_move, self.dice, self.roll)
        if self._advice is None or self._advice[0] != key:
            advice = self.advisor.advise(self.sheets, self.to_move, self.dice, self.roll)
            self._advice = (key, advice)
        return self._advice[1] if full else self._advice[1].top(self.table.top)

    # --- commands ---------------------------------------------------------------------------

    def apply(self, line: str) -> dict:
        """Run one command line; the JSON answer ``play --json`` prints for it."""
        if not isinstance(line, str):  # a program's mistake, not a player's: refused, not answered
            raise DicewiseError(f"apply takes a command line (text such as \"roll\"), "
                                f"not {line!r}")
        events = list(self.events)
        try:
            command = self._parsed(line)
            extra = self.run(command)
            advice = self.advice()
        except DicewiseError as e:  # BadAction included: nothing has changed
            if self.events != events:  # the move was made but no advice can follow it
                self._reset()
                self._replay(events)
            return {"ok": False, "error": i18n.said(e, self.tr)}
        return {"ok": True, "command": command.verb, **extra, "state": self.state(),
                "advice": None if advice is None else advice.to_json()}

    def _parsed(self, line: str) -> commands.Command:
        """``line`` parsed; a keep or split this game has no use for is refused as such, not
        for how its dice are typed (General is not told how to write a split)."""
        try:
            return commands.parse(line, self.verbs)
        except DicewiseError:
            verb = line.split()[0].lower() if line.split() else ""
            if verb == "keep" and self.shared:
                raise DicewiseError(Message("this game takes splits only, as split 3+4 5+6 2"))
            if verb == "split" and not self.shared:
                raise DicewiseError(Message("this game has no splits: keep dice or write a box")
                                    .in_game(self.game.name))
            raise

    def run(self, command: commands.Command) -> dict:
        """Run a parsed command; returns extra fields of the answer (DicewiseError: none ran)."""
        verb, args = command.verb, command.args
        if verb in ("sheet", "advise"):
            return {}
        if verb == "help":
            said = {**commands.HELP, **({"dice": (commands.HELP["dice"][0],
                                                  commands.DICE_OF_SPLITS)} if self.shared else {})}
            return {"help": {v: f"{v} {a}".strip() + " — "
                             + i18n.in_game(self.tr, self.game.name, h)
                             for v, (a, h) in said.items() if v in self.verbs}}
        if verb == "quit":
            return {"quit": True}
        if verb == "save":
            # ~ as a shell reads it: there is no folder named ~
            return {"saved": str(self.save(os.path.expanduser(args[0])))}
        if verb == "undo":
            if not self.events:
                raise DicewiseError(Message("nothing to undo"))
            self.undo()
            return {}
        if self.over:
            raise DicewiseError(Message("the game is over"))
        if verb == "roll":
            return self._event({"dice": self._rolled()})
        if verb == "dice":
            return self._event({"dice": list(args)})
        if verb == "pick":
            advice = self.advice(full=True)
            if advice is None:
                raise DicewiseError(Message("no choice to pick: give the dice first")
                                    if self.table.advice else
                                    Message("advice is off: name the choice"))
            k = args[0]
            if k > len(advice.choices):
                raise DicewiseError(Plural("there is {n} choice, not {k}",
                                           "there are {n} choices, not {k}",
                                           len(advice.choices), n=len(advice.choices), k=k))
            picked = advice.choices[k - 1]
            return {**self._event({"action": picked.action}),
                    "picked": {"action": picked.action, "label": picked.label,
                               "detail": dict(picked.detail)}}
        if verb in ("keep", "write", "cross") and self.shared:
            raise DicewiseError(Message("this game takes splits only, as split 3+4 5+6 2"))
        if verb == "cross" and "cross" not in self.verbs:  # before what it lacks, as split
            raise DicewiseError(Message("this game has no crosses: write the box (0 where the "
                                        "dice do not fit)"))
        if verb in ("write", "cross") and not args:
            if verb == "write":
                raise DicewiseError(Message("write: name the box, as write sixes")
                                    .in_game(self.game.name))
            raise DicewiseError(Message("cross: name the row, as cross sixes"))
        if verb in ("keep", "write", "cross") and self.dice is None:
            # before the game reads the action: "cross" is no action of a game without crosses
            raise DicewiseError(Message("give the dice first (dice D D D D D, or roll)"))
        if verb == "cross" and self.awaiting == "choice" and not any("cross" in a
                                                                     for a in self.legal()):
            raise DicewiseError(Message("this game has no crosses: write the box (0 where the "
                                        "dice do not fit)"))
        if verb == "keep":
            return self._event({"action": {"keep": sorted(args)}})
        if verb in ("write", "cross"):
            return self._event({"action": {verb: self._box(args[0])}})
        if verb == "split":
            if not self.shared:
                raise DicewiseError(Message("this game has no splits: keep dice or write a box")
                                    .in_game(self.game.name))
            return self._event({"action": self._with_fifth(args[0])})
        raise DicewiseError(Message("unknown command {word} (commands: {commands})",
                                    word=repr(verb), commands=", ".join(self.verbs)))

    def _with_fifth(self, split: dict) -> dict:
        """A split whose fifth die was left out: the die of the roll its pairs leave."""
        if split["fifth"] is not None:
            return split
        if self.dice is None:
            raise DicewiseError(Message("give the dice first (dice D D D D D, or roll)"))
        left = list(self.dice)
        for face in (f for pair in split["pairs"] for f in pair):
            if face not in left:
                (a, b), (c, d) = split["pairs"]
                raise DicewiseError(Message(
                    "the split {split} does not use the dice {dice}, each once",
                    split=f"{a}+{b} {c}+{d}", dice=" ".join(map(str, sorted(self.dice)))))
            left.remove(face)
        return {**split, "fifth": left[0]}

    def describe(self, action: dict) -> str:
        """An action in the players' language: write BOX, cross ROW, a split, keep D..."""
        if "pairs" in action:
            (a, b), (c, d) = action["pairs"]
            return f"{a}+{b} {c}+{d} {action['fifth']}"
        (kind, arg), = action.items()
        if kind == "keep":
            return (self.tr("keep {kept}").format(kept=" ".join(map(str, arg))) if arg
                    else self.tr("keep nothing"))
        box = i18n.box_label(self.game.name, arg, self.table.lang) if isinstance(arg, str) else arg
        text = i18n.in_game(self.tr, self.game.name, "write {box}" if kind == "write" else
                            "cross {box}")
        return text.format(box=box)

    def _box(self, text: str) -> str:
        described = self.game.describe(self.rules)
        names = described.get("categories") or described.get("rows") or []
        return i18n.box_name(self.game.name, names, text, self.table.lang,
                             rows="rows" in described)

    def _event(self, event: dict) -> dict:
        """Play ``event`` and record it; on a DicewiseError the game is as it was."""
        saved = self._snapshot()
        try:
            self._play(event)
        except DicewiseError:
            self._restore(saved)
            raise
        self.events.append(event)
        return {}

    def undo(self) -> None:
        """Take back the last event (dice shown or an action)."""
        events = self.events[:-1]
        self._reset()
        self._replay(events)

    def _snapshot(self):
        return (list(self.sheets), self.prizes, self.to_move, self.roll, self.dice, self.kept,
                list(self.pending), self.thrower, self.won_at_once)

    def _restore(self, s) -> None:
        (self.sheets, self.prizes, self.to_move, self.roll, self.dice, self.kept, self.pending,
         self.thrower, self.won_at_once) = s

    def _rolled(self) -> list[int]:
        """Dice rolled by dicewise: the rest of the roll after the kept dice, from the seed.

        The generator is keyed by the seed and the number of events so far, so an undone roll
        rolls the same dice again and a resumed game goes on as it would have.
        """
        if self.dice is not None:
            raise DicewiseError(Message("the dice are on the table: make a choice first"))
        rng = np.random.default_rng([self.table.seed, len(self.events)])
        rolled = rng.integers(1, 7, size=5 - len(self.kept))
        return sorted(list(self.kept) + [int(v) for v in rolled])

    # --- the rules of the table -------------------------------------------------------------

    def _play(self, event: dict) -> None:
        if not isinstance(event, dict) or len(event) != 1:
            raise DicewiseError(Message("not an event of a game: {event}", event=shown(event)))
        (kind, value), = event.items()
        if self.over:
            raise DicewiseError(Message("the game is over"))
        if kind == "dice":
            self._show_dice(value)
        elif kind == "action":
            try:
                action = self.game.canonical_action(value)
            except BadAction:  # only a saved file's event: the rules' own words are English
                raise DicewiseError(Message("not an event of a game: {event}",
                                            event=shown(event))) from None
            self._act(action)
        else:
            raise DicewiseError(Message("not an event of a game: {event}", event=shown(event)))

    def _show_dice(self, values) -> None:
        if self.dice is not None:
            raise DicewiseError(Message("the dice are on the table: make a choice first"))
        if not isinstance(values, (list, tuple)) or not all(_whole(v) for v in values):
            raise DicewiseError(Message("dice are whole numbers, not {dice!r}", dice=values))
        faces = [int(v) for v in values]
        if any(not 1 <= v <= 6 for v in faces):
            raise DicewiseError(Message("a die shows 1..6"))
        kept = Counter(self.kept)
        if len(faces) == 5 - len(self.kept) and self.kept:
            faces = faces + list(self.kept)
        elif len(faces) != 5:
            rolled = Message(" (or the {m} rolled)", m=5 - len(self.kept)) if self.kept else ""
            raise DicewiseError(Message("give five dice, not {n}{rolled}", n=len(faces),
                                        rolled=rolled))
        elif kept - Counter(faces):
            raise DicewiseError(Message("the dice {dice} do not hold the kept {kept}",
                                        dice=" ".join(map(str, sorted(faces))),
                                        kept=" ".join(map(str, self.kept))))
        self.dice = tuple(sorted(faces))
        self.kept = ()
        if self.shared:
            self.roll = 1
            n = len(self.sheets)
            order = [(self.thrower + i) % n for i in range(n)]
            self.pending = [i for i in order if not self.sheets[i].done
                            and self.sheets[i].legal(self.dice, 1)]
            if not self.pending:  # nobody can split it (a re-thrown puścioch): throw again
                self._next_throw()
                return
            self.to_move = self.pending[0]
            return
        self.roll += 1
        if self.roll == 1 and self.sheets[self.to_move].wins_at_once(self.dice, 1):
            self.won_at_once = self.to_move
            self.sheets[self.to_move] = self.sheets[self.to_move].end_at_once()

    def _act(self, action: dict) -> None:
        if self.dice is None:
            raise DicewiseError(Message("give the dice first (dice D D D D D, or roll)"))
        if "keep" in action:
            arg = action["keep"]
            if self.shared:
                raise DicewiseError(Message("this game has no keeps: split the roll"))
            if self.roll >= 3:
                raise DicewiseError(Message("no roll is left: write a box").in_game(
                    self.game.name))
            if Counter(arg) - Counter(self.dice):
                raise DicewiseError(Message("cannot keep {kept} from the dice {dice}",
                                            kept=" ".join(map(str, arg)),
                                            dice=" ".join(map(str, self.dice))))
            self.kept, self.dice = tuple(arg), None
            if len(self.kept) == 5:  # nothing to roll: the same dice, one roll later
                self._show_dice(list(self.kept))
            return
        mover = self.to_move
        allowed = self.sheets[mover].legal(self.dice, self.roll)
        if action not in allowed:
            why = self.sheets[mover].refusal(action, self.dice, self.roll)
            if why is not None:
                raise BadAction(self.tr("not allowed now: {action}: {why}").format(
                    action=self.describe(action), why=i18n.in_language(why, self.tr)))
            raise BadAction(self.tr("not allowed now: {action} (allowed: {allowed})").format(
                action=self.describe(action),
                allowed=", ".join(self.describe(a) for a in allowed) or "-"))
        self.sheets[mover] = self.sheets[mover].write(action, self.dice, self.roll)
        self.sheets, self.prizes = self.game.settle_prizes(self.rules, self.sheets, self.prizes,
                                                           mover)
        if self.shared:
            self.pending.pop(0)
            if self.pending:
                self.to_move = self.pending[0]
            else:
                self._next_throw()
            return
        self.dice, self.roll, self.kept = None, 0, ()
        n = len(self.sheets)
        for step in range(1, n + 1):
            if not self.sheets[(mover + step) % n].done:
                self.to_move = (mover + step) % n
                break

    def _next_throw(self) -> None:
        n = len(self.sheets)
        self.dice, self.roll, self.pending = None, 0, []
        for step in range(1, n + 1):
            if not self.sheets[(self.thrower + step) % n].done:
                self.thrower = (self.thrower + step) % n
                break
        self.to_move = self.thrower


def shown(value, width: int = 40) -> str:
    """A value of a saved file as a refusal quotes it, in the file's own JSON, cut to
    ``width`` characters: a file may hold anything, of any length."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not from a file (a caller's object): as Python says it
        text = repr(value)
    except RecursionError:  # nested deeper than JSON goes
        text = "..."
    return text if len(text) <= width else text[:width - 1] + "…"


def default_names(players: int, lang: str) -> list[str]:
    """The names of seats nobody named: Player 1..N in ``lang``."""
    return [i18n.translator(lang)("Player {n}").format(n=i + 1) for i in range(players)]


def _replaceable(path) -> bool:
    """Whether a save may write ``path``: nothing there, or a saved game (of any game)."""
    try:
        if not os.path.isfile(path):
            return True  # nothing, or what writing refuses in its own words (a directory)
        with open(path, "rb") as f:
            head = f.read(1 << 20)
        return json_input.loads(head.decode("utf-8")).get("format") == FORMAT
    except (OSError, ValueError, AttributeError, RecursionError, json_input.RepeatedName):
        return False


def read_saved(path) -> dict:
    """The JSON of a saved game's file (DicewiseError if it cannot be read or is no JSON)."""
    path = checked_input(path)
    try:
        return json_input.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise DicewiseError(cannot_read(path, e)) from None
    except json_input.RepeatedName as e:
        raise DicewiseError(Message("{path} is not a saved dicewise game (it gives {name} twice "
                                    "in one object)", path=str(path),
                                    name=json.dumps(e.name, ensure_ascii=False))) from None
    except (ValueError, RecursionError):  # RecursionError: JSON nested deeper than Python goes
        raise DicewiseError(Message("{path} is not a saved dicewise game (not JSON)",
                                    path=str(path))) from None


def saved_language(data) -> str | None:
    """The language a saved game was played in, where it names one dicewise speaks."""
    lang = data.get("lang") if isinstance(data, dict) else None
    return lang if lang in i18n.LANGUAGES else None
