"""Observations: the agent protocol's JSON observation as a fixed ``gymnasium`` Dict.

An encoder is a list of fields, each a space and a reader of the JSON observation, made
from four generic pieces: the dice as face counts, a number, a vector over a fixed list of
keys (a sheet, counters, marks), and the action mask.  The keys of a category game's sheet
are the boxes its ``write`` actions name, so one encoder serves every category game; the
games whose observations say more (Ryzykant's fifth-die marks, poker-school's cell
notation) build their encoders from these pieces in their own folders
(``Game.observation_encoder``), each field read from the JSON the game's episode writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np
from gymnasium import spaces

from ..solver import dice
from ..solver.protocol import Game

#: The bound of numbers with no natural one (points, turns of an open-ended game): finite,
#: as Box spaces want, and far beyond any game.
BIG = 1e6


@dataclass(frozen=True)
class Field:
    """One entry of the observation: its space and how it is read from the JSON."""

    name: str
    space: spaces.Space
    read: Callable[[Mapping, Mapping], Any]  # (JSON observation, derived values) -> value


def counts_field(name: str = "dice") -> Field:
    """The dice as face counts (6,): how many dice show each face (zeros when none)."""
    def read(obs, derived):
        faces = obs.get(name) or ()
        return np.bincount(np.asarray(faces, np.int64) - 1, minlength=6).astype(np.int8)
    return Field(name, spaces.Box(0, dice.N_DICE, (dice.N_FACES,), np.int8), read)


def number_field(name: str, low: float, high: float, dtype=np.float32, key: str | None = None,
                 derive: bool = False) -> Field:
    """One number (shape (1,)) from the JSON field ``key`` (or a derived value)."""
    key = key or name
    dtype = np.dtype(dtype)

    def read(obs, derived):
        value = derived[key] if derive else obs.get(key, 0)
        return np.array([value], dtype)
    return Field(name, spaces.Box(low, high, (1,), dtype), read)


def keyed_field(name: str, keys, fill: float, low: float, high: float, dtype=np.float32,
                key: str | None = None) -> Field:
    """A vector over fixed ``keys`` from the JSON mapping ``key`` (``fill`` for absent keys)."""
    key = key or name
    keys = [str(k) for k in keys]
    dtype = np.dtype(dtype)

    def read(obs, derived):
        entries = obs.get(key) or {}
        return np.array([entries.get(k, fill) for k in keys], dtype)
    return Field(name, spaces.Box(low, high, (len(keys),), dtype), read)


def presence_field(name: str, keys, key: str) -> Field:
    """Which of fixed ``keys`` the JSON mapping ``key`` holds (1) or not (0)."""
    keys = [str(k) for k in keys]

    def read(obs, derived):
        entries = obs.get(key) or {}
        return np.array([k in entries for k in keys], np.int8)
    return Field(name, spaces.MultiBinary(len(keys)), read)


def vector_field(name: str, size: int, low: float, high: float, dtype=np.int8) -> Field:
    """A vector derived from the observation (a game's parsed state)."""
    dtype = np.dtype(dtype)
    return Field(name, spaces.Box(low, high, (size,), dtype),
                 lambda obs, derived: np.asarray(derived[name], dtype))


class Encoder:
    """The Dict observation of one game under its rules: fields plus ``action_mask``."""

    def __init__(self, fields: list[Field], n_actions: int,
                 derive: Callable[[Mapping], dict] | None = None):
        self.fields, self.derive = fields, derive
        self.space = spaces.Dict({**{f.name: f.space for f in fields},
                                  "action_mask": spaces.MultiBinary(n_actions)})

    def encode(self, obs: Mapping, mask: np.ndarray) -> dict:
        """The observation for the agent; ``mask`` is the int8 action mask."""
        derived = self.derive(obs) if self.derive else {}
        out = {f.name: f.read(obs, derived) for f in self.fields}
        out["action_mask"] = mask
        return out


class RebuiltOnLoading:
    """Mixed into an environment whose observation reader (the attribute ``READER``) is made
    of fields that read the JSON with closures, which pickle cannot carry: it pickles
    without the reader and makes it again on loading (``make_reader``), from the game,
    rules and actions the environment keeps."""

    READER = "encoder"

    def make_reader(self):
        raise NotImplementedError

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state[self.READER]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        setattr(self, self.READER, self.make_reader())


def encoder_for(game: Game, rules, actions: tuple[dict, ...]) -> Encoder:
    """The encoder of ``game``, which builds it from the fields here
    (``Game.observation_encoder``)."""
    return game.observation_encoder(rules, actions)


def box_names(actions: tuple[dict, ...]) -> list[str]:
    """The boxes (rows) the game's write actions name, in action-space order."""
    return [a["write"] for a in actions if "write" in a]


def category_sheet_fields(rules, actions, prefix: str = "") -> list[Field]:
    """A category sheet: which boxes are filled, the score of each (0 while open; scores
    may be negative, as poker-programs' obligatory boxes), and its counters."""
    boxes = box_names(actions)
    scores = [s for c in range(rules.n_categories) for s in rules.possible_scores(c)]
    fields = [presence_field(f"{prefix}filled", boxes, key=f"{prefix}sheet"),
              keyed_field(f"{prefix}sheet", boxes, 0, min(scores), max(scores))]
    if rules.sheet_counters:
        fields.append(keyed_field(f"{prefix}counters", rules.sheet_counters, 0, 0, BIG))
    return fields


def category_encoder(rules, actions) -> Encoder:
    """Dice, roll, turn, the sheet, the packed extra state where the game has one, points."""
    fields = [counts_field(), number_field("roll", 0, 3, np.int8),
              number_field("turn", 0, rules.n_categories, np.int16),
              *category_sheet_fields(rules, actions)]
    derive = None
    if rules.n_extra > 1:
        index = {name: c for c, name in enumerate(rules.category_names)}
        fields.append(number_field("extra", 0, rules.n_extra - 1, np.int16, derive=True))

        def derive(obs):
            scores = {index[k]: int(v) for k, v in (obs.get("sheet") or {}).items()}
            return {"extra": rules.sheet_extra(scores, dict(obs.get("counters") or {}))}
    # points may be negative (poker-programs' obligatory boxes score below zero)
    fields.append(number_field("points", -BIG, BIG))
    return Encoder(fields, len(actions), derive)


