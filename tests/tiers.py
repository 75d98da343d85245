"""Which tier runs a combination of parameters: the everyday tier meets every value once, the
slow tier (CI's second step) every combination."""

from __future__ import annotations

import itertools

import pytest


def spread(*axes, slow=()):
    """The product of ``axes`` as parameters.  The everyday tier takes the i-th value of each
    axis together (cycling the shorter ones), so that it meets every value of every axis
    once; every other combination, and any that holds a value in ``slow``, is marked slow."""
    everyday = [[v for v in axis if v not in slow] for axis in axes]
    diagonal = {tuple(axis[i % len(axis)] for axis in everyday)
                for i in range(max(map(len, everyday)))}
    return [combo if combo in diagonal else pytest.param(*combo, marks=pytest.mark.slow)
            for combo in itertools.product(*axes)]
