"""The line commands of a game at the table: ``dice 6 6 3 4 1``, ``keep 6 6``, ``write sixes``...

One command per line; ``parse`` turns a line into a ``Command`` or raises DicewiseError with
one line that says what is wrong (a ``Message``, which the game says in the players'
language).  Box names are left as typed: the game in progress reads them in the players'
language (``i18n.box_name``).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ..errors import DicewiseError
from ..i18n import Message

#: Every command, with its arguments and one line of help.
HELP = {
    "dice": ("D D D D D", "the dice showing (after a keep: all five, or only the ones rolled)"),
    "roll": ("", "dicewise rolls the dice (from the game's seed)"),
    "advise": ("", "the best choices for the player to move"),
    "pick": ("K", "play choice K of the advice"),
    "keep": ("D...", "keep these dice and roll the others (keep nothing: roll all five)"),
    "write": ("BOX", "write the dice in BOX (also: stop and write)"),
    "cross": ("ROW", "cross the next cell of ROW"),
    "split": ("A+B C+D E", "split the roll into two pairs and a fifth die"),
    "undo": ("", "take back the last dice or choice"),
    "sheet": ("", "show every player's sheet"),
    "save": ("FILE", "save the game (resume it with --resume FILE)"),
    "help": ("", "this list"),
    "quit": ("", "stop (save first to resume later)"),
}
#: ``dice`` in a game of splits, where every roll throws all five (no keep).
DICE_OF_SPLITS = "the five dice showing"


@dataclass(frozen=True)
class Command:
    """A parsed line: the verb and its arguments (faces, a box name, a number, a path)."""

    verb: str
    args: tuple = ()


def _faces(words: list[str], verb: str) -> tuple[int, ...]:
    text = " ".join(words).replace(",", " ")
    if re.fullmatch(r"[1-6]{2,5}", text.strip()):  # "66341"
        text = " ".join(text.strip())
    out = []
    for w in text.split():
        if not re.fullmatch(r"[1-6]", w):
            raise DicewiseError(Message("{verb}: a die shows 1..6, not {word}", verb=verb,
                                        word=repr(w)))
        out.append(int(w))
    return tuple(out)


def _split(words: list[str]) -> dict:
    """Two pairs and the fifth die; the fifth left out or typed ``-`` (as the advice shows a
    fifth die that gets no mark) is None: the die the pairs leave."""
    text = " ".join(words)
    m = re.fullmatch(r"\s*([1-6])\s*\+\s*([1-6])\s+([1-6])\s*\+\s*([1-6])(?:\s+([1-6-]))?\s*",
                     text)
    shape = re.fullmatch(r"\s*(\d+)\s*\+\s*(\d+)\s+(\d+)\s*\+\s*(\d+)(?:\s+(\d+))?\s*", text)
    if not m and shape:  # the shape of a split, a die off the faces: that die is said
        die = next(w for w in shape.groups() if w and not re.fullmatch(r"[1-6]", w))
        raise DicewiseError(Message("{verb}: a die shows 1..6, not {word}", verb="split",
                                    word=repr(die)))
    if not m:
        raise DicewiseError(Message("split takes two pairs and a fifth die, as split 3+4 5+6 2, "
                                    "not {text}", text=repr(text)))
    a, b, c, d = map(int, m.groups()[:4])
    e = m.group(5)
    return {"pairs": [[a, b], [c, d]], "fifth": int(e) if e and e != "-" else None}


def _cut(word: str, limit: int = 40) -> str:
    """A word as a refusal quotes it: a long one cut (a paste of a page fills no screen)."""
    return word if len(word) <= limit else word[:limit] + "…"


def _unquoted(path: str) -> str:
    """A file name as typed, without the quotes a shell's user puts around one with spaces."""
    if len(path) >= 2 and path[0] == path[-1] and path[0] in "'\"":
        return path[1:-1]
    return path


#: What ``keep`` takes for no dice: in English, and as a Russian or Polish player says it.
NOTHING = ("nothing", "none", "ничего", "nic")


def parse(line: str, verbs=tuple(HELP)) -> Command:
    """The command on ``line`` (DicewiseError for an unknown verb or bad arguments); an
    unknown one is told the ``verbs`` of the game in progress."""
    words = line.strip().split()
    if not words:
        raise DicewiseError(Message("an empty line: type a command (help lists them)"))
    verb, rest = words[0].lower(), words[1:]
    if verb not in HELP:
        word, commands = repr(_cut(words[0])), ", ".join(verbs)
        near = difflib.get_close_matches(verb, verbs, n=1, cutoff=0.75)  # advice: advise
        if near:
            raise DicewiseError(Message("unknown command {word}: did you mean {near}? "
                                        "(commands: {commands})", word=word, near=near[0],
                                        commands=commands))
        raise DicewiseError(Message("unknown command {word} (commands: {commands})",
                                    word=word, commands=commands))
    if verb in ("dice", "keep"):
        if verb == "keep" and len(rest) == 1 and rest[0].lower() in NOTHING:
            return Command("keep", ())
        faces = _faces(rest, verb)
        if verb == "dice" and not faces:
            raise DicewiseError(Message("dice: give the dice showing, as dice 6 6 3 4 1"))
        return Command(verb, faces)
    if verb in ("write", "cross"):
        # no box named: the game says what is missing, or that it has no such move
        return Command(verb, (" ".join(rest),) if rest else ())
    if verb == "split":
        return Command(verb, (_split(rest),))
    if verb == "pick":
        # decimal, not any digit (int() refuses "²"); at most 9 of them (no advice has more
        # choices, and int() refuses thousands)
        if len(rest) != 1 or not rest[0].isdecimal() or len(rest[0]) > 9 or int(rest[0]) < 1:
            raise DicewiseError(Message("pick takes the number of a choice of the advice, as "
                                        "pick 1"))
        return Command(verb, (int(rest[0]),))
    if verb == "save":
        if not rest:
            raise DicewiseError(Message("save: name the file, as save game.json"))
        return Command(verb, (_unquoted(line.strip().split(None, 1)[1]),))
    if rest:
        raise DicewiseError(Message("{verb} takes no arguments", verb=verb))
    return Command(verb)
