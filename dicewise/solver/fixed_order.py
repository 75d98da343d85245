"""Sums taken in one fixed order, so that a fitted table is the same bits on every processor.

A BLAS picks its kernels by processor (OpenBLAS: SSE, AVX2 or AVX-512 ones) and each adds
the terms of a dot product or a matrix-vector product in its own order; the last bits of a
fit then differ, and policy iteration amplifies them into another table.  Here a sum is
numpy's own pairwise sum of elementwise products and a sparse product SciPy's compiled loop,
the same code on every machine: the fits that use them are a function of the code alone
(``tests/test_poker_school_reproducible.py`` builds tables under different OpenBLAS kernels).
"""

from __future__ import annotations

import math

import numpy as np


def dot(x: np.ndarray, y: np.ndarray) -> float:
    """Σ x·y of two vectors."""
    return float(np.sum(x * y))


def norm(x: np.ndarray) -> float:
    """The Euclidean norm of a vector."""
    return math.sqrt(dot(x, x))


def rows_times(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``matrix @ weights`` for a 2-D matrix and a vector: each row's Σ m·w."""
    return np.sum(matrix * weights, axis=-1)


def damped_least_squares(A, b: np.ndarray, damp: float, iterations: int,
                         atol: float = 1e-6) -> tuple[np.ndarray, int]:
    """(x minimising ‖Ax − b‖² + damp²‖x‖² for a SciPy sparse ``A``, the steps taken): LSQR
    (Paige and Saunders, 1982) for at most ``iterations`` steps, stopped once the estimate
    of ‖Āᵀr̄‖ is at most ``atol``·‖Ā‖·‖r̄‖ (Ā is A with the damping rows below it, r̄ the
    residual of both), as ``scipy.sparse.linalg.lsqr`` stops a system that no x solves.
    That is the same method with BLAS norms."""
    x = np.zeros(A.shape[1])
    beta = norm(b)
    if beta == 0.0:
        return x, 0
    u = b / beta
    v = A.T @ u
    alpha = norm(v)
    if alpha == 0.0:
        return x, 0
    v = v / alpha
    w = v.copy()
    phibar, rhobar = beta, alpha
    anorm2 = damped2 = 0.0  # ‖Ā‖² so far; the damping rows' share of ‖r̄‖²
    for step in range(1, iterations + 1):
        # bidiagonalisation: beta·u = A v − alpha·u, alpha·v = Aᵀu − beta·v
        u = A @ v - alpha * u
        beta = norm(u)
        if beta > 0.0:
            anorm2 += alpha * alpha + beta * beta + damp * damp
            u = u / beta
            v = A.T @ u - beta * v
            alpha = norm(v)
            if alpha > 0.0:
                v = v / alpha
        # a rotation takes the damping row out, a second the subdiagonal beta (signs as
        # the rotations' cosines carry them; sqrt is correctly rounded everywhere)
        rhobar1 = math.sqrt(rhobar * rhobar + damp * damp)
        damped2 += (damp / rhobar1 * phibar) ** 2
        phibar = rhobar / rhobar1 * phibar
        rho = math.sqrt(rhobar1 * rhobar1 + beta * beta)
        cs, sn = rhobar1 / rho, beta / rho
        theta, rhobar = sn * alpha, -cs * alpha
        phi, phibar = cs * phibar, sn * phibar
        x = x + (phi / rho) * w
        w = v - (theta / rho) * w
        residual = math.sqrt(phibar * phibar + damped2)
        if alpha * abs(sn * phi) <= atol * math.sqrt(anorm2) * residual or residual == 0.0:
            return x, step
    return x, iterations
