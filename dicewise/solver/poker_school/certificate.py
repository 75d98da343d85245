"""The upper bound's shipped multipliers: a certificate that the full game's build evaluates.

``bound``'s relaxation is a proven bound at any multipliers; only how tight it is depends
on them. Good ones take hours of subgradient steps (4,000 on the rows, 10 with the bonus
rows as one group, 60 with ``bound.GROUPS``), so they ship with dicewise for the full game
(three columns, seed minimums; the relaxation drops erasure, so with or without it) and its
build evaluates the groups at them in about 25 seconds, where stepping 150 + 10 times from
zero takes five minutes and stops 24 points higher. The file is a table file (checksummed, validated on
load); ``benchmarks/bench_poker_school.py --group-steps 60 --row-steps 4000
--save-multipliers PATH`` computes it again.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import DicewiseError
from . import bound
from .rules import PokerSchoolRules

#: The shipped file, beside this module (package data).
SHIPPED = Path(__file__).with_name("bound-multipliers.dwt")
KIND = "poker-school-bound-multipliers"
#: The rules they were found for; ``bound`` drops erasure, so they serve either setting.
FOR = PokerSchoolRules(school_cross_erases=False)


@dataclass(frozen=True)
class Multipliers:
    """λ, μ, ν, the dice prices and the keep prices of ``bound``; ``found`` is the bound
    they gave when they were found, ``steps`` how many steps of each kind found them,
    ``checksum`` the file's (a table built at them names it in its rules digest)."""

    lambdas: np.ndarray
    mu: np.ndarray
    nu: np.ndarray
    prices: np.ndarray
    keep_prices: np.ndarray
    found: float
    steps: dict
    checksum: str


def applies(game: PokerSchoolRules) -> bool:
    """Whether the shipped multipliers are for ``game``'s relaxation."""
    return bound._relaxed(game).options == FOR.options


def shipped(game: PokerSchoolRules) -> Multipliers | None:
    """The shipped multipliers where they are for ``game``, else None (DicewiseError if the
    file is damaged)."""
    return load(SHIPPED) if applies(game) else None


@functools.cache
def load(path: Path) -> Multipliers:
    """Multipliers from a file ``write`` wrote, checked against ``FOR``'s shapes."""
    from ...tables.format import read_table  # the table format imports the solver package

    try:
        table = read_table(path, kind=KIND, ruleset=FOR.name, options=FOR.options)
        a, meta = table.arrays, table.header["meta"]
        m = Multipliers(*(np.array(a[k], dtype=np.float64) for k in
                          ("lambdas", "mu", "nu", "prices", "keep_prices")),
                        found=float(meta["found"]), steps=dict(meta["steps"]),
                        checksum=table.header["checksum"])
        bound._check(FOR, m.lambdas, m.mu, m.prices, m.nu, m.keep_prices)
        if len(m.lambdas) != FOR.turns:
            raise ValueError(f"lambdas must have one multiplier per turn ({FOR.turns})")
    except (DicewiseError, KeyError, TypeError, ValueError) as e:
        why = "" if isinstance(e, DicewiseError) else f" ({e})"
        raise DicewiseError(f"the upper bound's multipliers in {path} are damaged{why}; "
                            "reinstall dicewise") from None
    return m


def write(path, b: bound.Bound, steps: dict) -> Path:
    """Write the multipliers of ``b`` (a bound of ``FOR``'s relaxation with ``nu`` and
    keep prices). The prices go as float32: a bound holds at any prices, and the bound at
    the rounded ones is what a build computes."""
    from ...tables.format import write_table

    if b.nu is None or b.keep_prices is None or b.prices is None:
        raise ValueError("the multipliers need ν, dice prices and keep prices")
    bound._check(FOR, b.lambdas, b.mu, b.prices, b.nu, b.keep_prices)  # FOR's shapes
    arrays = {"lambdas": b.lambdas, "mu": b.mu, "nu": b.nu,
              "prices": b.prices.astype(np.float32),
              "keep_prices": b.keep_prices.astype(np.float32)}
    return write_table(path, kind=KIND, ruleset=FOR.name, options=FOR.options,
                       rules_digest="", arrays=arrays,
                       meta={"found": b.value, "groups": [list(g) for g in b.groups],
                             "steps": dict(steps)})
