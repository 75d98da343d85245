"""Sums in a fixed order (``solver/fixed_order.py``) against the BLAS-backed ones they stand
in for: the same values to rounding, LSQR as good as SciPy's."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
from scipy.sparse.linalg import lsqr

from dicewise.solver import fixed_order


@pytest.mark.parametrize("damp", [1.0, 0.1])  # damped: no x solves it exactly
@pytest.mark.parametrize("shape", [(3000, 400), (4000, 900)])
def test_damped_least_squares_is_as_close_to_the_solution_as_scipys_lsqr(damp, shape):
    """The same method stopped by the same test: about as many steps, and as near the
    damped least-squares solution (rounding grows differently over a hundred steps)."""
    rng = np.random.default_rng(sum(shape))
    A = scipy.sparse.random(*shape, density=0.01, random_state=rng, format="csr")
    b = rng.normal(size=shape[0])
    x, steps = fixed_order.damped_least_squares(A, b, damp, 200)
    theirs, _, their_steps = lsqr(A, b, damp=damp, iter_lim=200)[:3]
    exact = np.linalg.lstsq(scipy.sparse.vstack([A, damp * scipy.sparse.eye(shape[1])]).toarray(),
                            np.concatenate([b, np.zeros(shape[1])]), rcond=None)[0]
    assert abs(steps - their_steps) <= 2 and steps < 200
    error, their_error = np.abs(x - exact).max(), np.abs(theirs - exact).max()
    assert error <= 2 * their_error + 1e-12 and error < 1e-4 * np.abs(exact).max()


def test_a_zero_right_side_needs_no_step():
    x, steps = fixed_order.damped_least_squares(scipy.sparse.eye(3, format="csr"), np.zeros(3), 1.0, 9)
    assert steps == 0 and not x.any()


def test_sums_are_the_blas_ones_to_rounding():
    rng = np.random.default_rng(0)
    m, w = rng.normal(size=(40, 252)), rng.random(252)
    assert np.allclose(fixed_order.rows_times(m, w), m @ w, rtol=1e-14, atol=1e-13)
    assert fixed_order.dot(w, w) == pytest.approx(float(w @ w), rel=1e-14)
    assert fixed_order.norm(np.array([3.0, 4.0])) == 5.0
