"""poker-school's tables: what is solved or fitted for a variant, and how it is measured.

The one-column variants are solved exactly by the core engine (``category.solve_states``
of ``one_column.OneColumnRules``): their table is the value of every reachable state.  The others get the approximate policy
(``approx.fit_policy``): their table is its feature weights, and the build measures it —
the mean score of fresh games with its 95% interval, the method's shortfall on the exactly
solved one-column game (the error estimate) and the proven upper bound (``bound``).

No table is read or written here: ``tables/store.py`` does that for every game, through the
protocol methods of ``game.py`` that call these functions (the bound's shipped multipliers,
package data, are read by ``certificate.py``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from ...errors import TableError
from .. import blas_threads
from .. import category
from ..category import solve_states
from ..digest import rules_digest as digest_of
from ..stats import mean_ci95
from . import approx, bound, certificate, one_column, rules as rules_module, turns
from .approx import Calibration, Features, LinearEvaluator, fit_policy
from .rules import N_ROWS, PokerSchoolRules
from .turns import Batch, ExactEvaluator

KIND_EXACT = "poker-school-exact"
KIND_POLICY = "poker-school-policy"


@dataclass(frozen=True)
class FitSettings:
    """How the approximate policy is fitted and measured.

    Approximate policy iteration: ``iterations`` rounds of ``games`` games, the policy kept
    being the mean of the last ``average`` fits; then ``eval_games`` fresh games (seed
    ``eval_seed``) for its expected score, and ``bound_iterations`` subgradient steps of the
    upper bound over λ, μ, the dice prices and the keep prices (75 s of the full game's
    build; the bound still falls by a few points per 50 steps at 150), then, if
    ``bound_groups``, ``bound_bonus_iterations`` steps with ``bound.BONUS_ROWS`` as one
    group (about 150 s) and its rows in ``bound.GROUPS`` (50 s) — unless ``bound_shipped``
    and multipliers ship for the game (``certificate``): then only the groups at those
    (tighter, found by hours of steps).  ``measure_gap``: measure
    the method's shortfall on the exact one-column game (``one_column_gap``; its exact solve
    is 5 s of the build) — without it the error estimate takes the fraction measured once
    with erasure, ``ERASURE_GAP_FRACTION``.
    """

    iterations: int = 16
    games: int = 4096
    average: int = 6
    eval_games: int = 16384
    eval_seed: int = 20240
    bound_iterations: int = 150
    bound_groups: bool = True
    bound_bonus_iterations: int = 10
    bound_shipped: bool = True
    measure_gap: bool = True
    seed: int = 1


#: The settings of every build.  They are part of the rules digest, so a table fitted with
#: other settings (tests use tiny ones) is never taken for one fitted with these.
SETTINGS = FitSettings()
#: Games per chunk of the evaluation games (the simulator's chunk; see ``game.CHUNK``).
EVAL_CHUNK = 512
#: The approximate method's shortfall on the exact one-column game *with* erasure, as a
#: fraction of its optimum (1.93 of 382.42 points, 100,000 paired games; docs/poker-school.md).
#: That exact solve takes over 20 minutes, too long for every build, so games with erasure
#: use this measured value when it exceeds the one measured at build time (without erasure).
ERASURE_GAP_FRACTION = 0.0050
#: Progress units (games) of one sweep of the upper bound's rows (one per subgradient step,
#: plus one, 1 + ``bound.BONUS_SWEEPS`` per step with the bonus rows as a group, plus one,
#: and ``bound.GROUP_SWEEPS`` for its groups).
BOUND_UNITS = 100


def kind(game: PokerSchoolRules) -> str:
    return KIND_EXACT if game.exact else KIND_POLICY


def rules_digest(game: PokerSchoolRules) -> str:
    """Exact tables depend on the rules and the core engine; policy tables on the method too
    (its error estimate on the exact one-column game among it)."""
    if game.exact:
        return digest_of(rules_module, one_column)
    shipped = _shipped(game)
    return digest_of(rules_module, one_column, turns, approx, bound, blas_threads, certificate,
                     sys.modules[__name__],
                     settings=repr(SETTINGS) + ("" if shipped is None else shipped.checksum))


def _shipped(game: PokerSchoolRules):
    """The multipliers the build evaluates its bound at, if it takes shipped ones."""
    return certificate.shipped(game) if SETTINGS.bound_shipped else None


def build_units(game: PokerSchoolRules) -> float:
    """The progress bar's length of ``build``: states (exact) or games played (policy)."""
    if game.exact:
        return int(category.reachable_states(game.one_column).sum())
    s = SETTINGS
    fit = (s.iterations + 1) * s.games + s.eval_games
    one_column = fit + s.eval_games if game.columns > 1 and s.measure_gap else 0
    if _shipped(game) is not None:
        return fit + one_column / 3 + bound.GROUP_SWEEPS * BOUND_UNITS
    groups = 0
    if s.bound_groups:
        groups = bound.GROUP_SWEEPS + (s.bound_bonus_iterations + 1) * (1 + bound.BONUS_SWEEPS)
    return fit + one_column / 3 + (s.bound_iterations + 1 + groups) * BOUND_UNITS


def build(game: PokerSchoolRules, progress=None):
    """(payload, meta): the exact table or the fitted policy, with what was measured.

    With one BLAS thread, so that the table is a function of the code and ``SETTINGS`` alone.
    """
    with blas_threads.single_blas_thread():
        return build_exact(game, progress) if game.exact else build_policy(game, progress)


def build_exact(game: PokerSchoolRules, progress=None):
    solved = solve_states(game.one_column, progress)
    meta = {"expected_score": solved.expected_score, "states": solved.n_reachable,
            "n_states": game.one_column.n_states, "exact": True, "approximate": False}
    return ExactEvaluator(game, solved.values), meta


def one_column_gap(game: PokerSchoolRules, progress=None) -> dict:
    """The approximate method's measured shortfall on the exactly solved one-column game.

    Both policies play the same dice (common random numbers); the mean paired difference,
    as a fraction of the exact optimum, scaled to this game's expected score is the estimate.
    ``progress(x)`` counts one-column games as a third of a game (a third of the turns).
    """
    s = SETTINGS
    third = None if progress is None else (lambda x: progress(x / 3))
    one = PokerSchoolRules(columns=1, school_cross_erases=False, minimums=game.minimums)
    exact = solve_states(one.one_column)
    fit = fit_policy(one, iterations=s.iterations, games=s.games, average=s.average,
                     seed=s.seed, progress=third)
    a = turns.play(one, s.eval_games, s.eval_seed, "solved", LinearEvaluator(one, fit.weights),
                   chunk=EVAL_CHUNK, progress=third)
    b = turns.play(one, s.eval_games, s.eval_seed, "solved", ExactEvaluator(one, exact.values),
                   chunk=EVAL_CHUNK, progress=third)
    gap = float((b - a).mean())
    return {"one_column_exact": exact.expected_score, "one_column_gap": gap,
            "one_column_gap_fraction": gap / exact.expected_score}


def build_policy(game: PokerSchoolRules, progress=None):
    """Fit the policy, then measure it: mean and interval, error estimate, upper bound."""
    s = SETTINGS
    fit = fit_policy(game, iterations=s.iterations, games=s.games, average=s.average,
                     seed=s.seed, progress=progress)
    fitted = LinearEvaluator(game, fit.weights)
    calibration = Calibration(game, fitted)  # the values then read as its play's scores
    scores = turns.play(game, s.eval_games, s.eval_seed, "solved", fitted, record=calibration,
                        chunk=EVAL_CHUNK, progress=progress)
    ev = LinearEvaluator(game, fit.weights, calibration.offsets())  # the same play
    gap = one_column_gap(game, progress) if game.columns > 1 and s.measure_gap else {}
    bound_progress = None if progress is None else (lambda x: progress(x * BOUND_UNITS))
    shipped = _shipped(game)
    if shipped is None:
        upper = bound.upper_bound(game, iterations=s.bound_iterations,
                                  groups=bound.GROUPS if s.bound_groups else None,
                                  bonus_iterations=s.bound_bonus_iterations,
                                  progress=bound_progress)
        steps = {"rows": s.bound_iterations,
                 "bonus": s.bound_bonus_iterations if s.bound_groups else 0, "groups": 0}
    else:
        upper = bound.evaluated(game, shipped.lambdas, shipped.mu, bound.GROUPS, shipped.prices,
                                shipped.nu, shipped.keep_prices, progress=bound_progress)
        steps = shipped.steps
    mean = float(scores.mean())
    lo, hi = mean_ci95(scores)
    frac = gap.get("one_column_gap_fraction")
    if game.columns > 1 and (frac is None or game.school_cross_erases):
        frac = max(frac or 0.0, ERASURE_GAP_FRACTION)
    meta = {"expected_score": mean, "ci95": [lo, hi], "exact": False, "approximate": True,
            "fit_history": [list(h) for h in fit.history], "fit_games": fit.games,
            "eval_games": s.eval_games,
            "predicted_start_value": float(fitted.state_values(Batch.empty(game, 1))[0]),
            # The measured shortfall, plus the half-width of the mean's interval.
            "error_estimate": None if frac is None else max(frac, 0.0) * mean + (hi - mean),
            "error_fraction": frac, **gap,
            # Proven: no policy expects more than this (``bound``), so the policy's shortfall
            # is at most upper_bound − ci95[0] (at 95% confidence).
            "upper_bound": upper.value, "upper_bound_seconds": round(upper.seconds, 3),
            # How its multipliers were found: subgradient steps on the rows, with the bonus
            # rows as a group and with the groups; ``shipped``: by hours of steps, shipped.
            "upper_bound_steps": {**steps, "shipped": shipped is not None}}
    return ev, meta


def to_arrays(payload) -> dict:
    if isinstance(payload, ExactEvaluator):
        reachable = ~np.isnan(payload.values)
        return {"reachable": np.packbits(reachable), "values": payload.values[reachable]}
    return {"weights": payload.weights, "value_offsets": payload.offsets}


def from_arrays(game: PokerSchoolRules, arrays, meta):
    """The evaluator back from a table's arrays (TableError if they do not fit the rules)."""
    if game.exact:
        n_states = game.one_column.n_states
        if meta.get("n_states") != n_states or not {"reachable", "values"} <= set(arrays):
            raise TableError(f"the table does not describe the {n_states} states of this "
                             "variant; rebuild it")
        reachable = np.unpackbits(arrays["reachable"], count=n_states).astype(bool)
        if reachable.sum() != len(arrays["values"]):
            raise TableError("the table is damaged (values do not match its reachable states); "
                             "rebuild it")
        values = np.full(n_states, np.nan)
        values[reachable] = arrays["values"]
        return ExactEvaluator(game, values)
    weights, offsets = arrays.get("weights"), arrays.get("value_offsets")
    size, cells = Features.of(game).size, game.columns * N_ROWS
    if (weights is None or tuple(weights.shape) != (size,) or offsets is None
            or tuple(offsets.shape) != (cells + 1,) or offsets[0] != 0):
        raise TableError(f"the table does not hold the {size} policy weights and {cells + 1} "
                         "value offsets of this variant; rebuild it")
    return LinearEvaluator(game, np.array(weights, dtype=np.float64),
                           np.array(offsets, dtype=np.float64))
