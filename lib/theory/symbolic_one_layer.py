"""The one-layer calculations of App. C redone in sympy, at concrete dimensions s and d.

- `loss_identity`:   the MSE (C.1) equals 1/2 Tr[(W - I)^T (W - I) A] (C.4) = 1/2 ||(W - I) A^{1/2}||_F^2 (C.6);
- `population_A`:    E[x x^T] = diag(sigma^2 + mu^2 / s) for the SIM mixture (C.7-C.13);
- `gradient`:        grad L = (W - I) A (C.15);
- `theorem_4_1`:     eq. (4.2) solves dW/dt = -(W - I) A with W(0) = W0 (C.16-C.21).

Each returns the sympy objects a chapter displays and a boolean `holds` computed by sympy.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

# ----------------------------------------------------------------------------------------------
# Symbols
# ----------------------------------------------------------------------------------------------


def weight_matrix(d: int, name: str = "w") -> sp.Matrix:
    """A generic d x d matrix of symbols w_{ij} (1-based, as in the paper)."""
    return sp.Matrix(d, d, lambda i, j: sp.Symbol(f"{name}_{{{i + 1}{j + 1}}}", real=True))


def _vector(d: int, name: str, **assumptions) -> sp.Matrix:
    return sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"{name}_{i + 1}", **assumptions))


@dataclass(frozen=True)
class Result:
    """A derived expression, the expression it should equal, and whether sympy proves them equal."""

    derived: sp.Basic
    expected: sp.Basic
    holds: bool


def _equal(a, b) -> bool:
    diff = sp.simplify(sp.expand(a - b))
    return bool(diff.is_zero_matrix if isinstance(diff, sp.MatrixBase) else diff == 0)


# ----------------------------------------------------------------------------------------------
# The loss identity (C.1-C.6)
# ----------------------------------------------------------------------------------------------


def loss_identity(d: int, samples: int = 2) -> Result:
    """MSE over `samples` symbolic points equals 1/2 ||(W - I) A^{1/2}||_F^2 with A their second moment.

    A^{1/2} is represented by a generic symmetric B with A = B^2, which covers every symmetric
    positive semi-definite A; the trace trick (C.2-C.5) is then an identity of polynomials.
    """
    w, eye = weight_matrix(d), sp.eye(d)
    xs = [_vector(d, f"x^{{({k + 1})}}", real=True) for k in range(samples)]
    mse = sum(((w - eye) * x).norm() ** 2 for x in xs) / (2 * samples)  # (C.1)
    second = sum((x * x.T for x in xs), sp.zeros(d, d)) / samples
    trace_form = ((w - eye).T * (w - eye) * second).trace() / 2  # (C.4)
    b = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"b_{{{min(i, j) + 1}{max(i, j) + 1}}}", real=True))
    frob = ((w - eye) * b).norm() ** 2 / 2  # (C.6), A = B^2
    frob_as_trace = ((w - eye).T * (w - eye) * b * b).trace() / 2
    holds = _equal(mse, trace_form) and _equal(frob, frob_as_trace)
    return Result(derived=sp.expand(mse), expected=trace_form, holds=holds)


# ----------------------------------------------------------------------------------------------
# The population second moment (C.7-C.13)
# ----------------------------------------------------------------------------------------------


def _gaussian_expectation(expr: sp.Expr, xi: list[sp.Symbol]) -> sp.Expr:
    """E over independent standard normals xi of a polynomial in them: E xi^k = (k-1)!! for even k."""
    poly = sp.Poly(sp.expand(expr), *xi)
    total = sp.Integer(0)
    for powers, coeff in poly.terms():
        moment = sp.Integer(1)
        for k in powers:
            moment *= 0 if k % 2 else sp.factorial2(k - 1)
        total += coeff * moment
    return total


def population_A(s: int, d: int) -> Result:
    """E[x x^T] for x = mu^{(eta)} + diag(sigma) xi, eta uniform on [s], xi ~ N(0, I) (C.7-C.13)."""
    mu = _vector(s, "mu", positive=True)
    sigma = [sp.Symbol(f"sigma_{i + 1}", positive=True) for i in range(s)] + [sp.Integer(0)] * (d - s)
    xi = [sp.Symbol(f"xi_{i + 1}", real=True) for i in range(d)]
    noise = sp.Matrix([sigma[i] * xi[i] for i in range(d)])
    total = sp.zeros(d, d)
    for p in range(s):  # E over eta
        x = noise.copy()
        x[p] += mu[p]
        total += (x * x.T).applyfunc(lambda e: _gaussian_expectation(e, xi))
    derived = total / s
    expected = sp.diag(*[sigma[i] ** 2 + (mu[i] ** 2 / s if i < s else 0) for i in range(d)])
    return Result(derived=derived, expected=expected, holds=_equal(derived, expected))


# ----------------------------------------------------------------------------------------------
# The gradient (C.15) and Theorem 4.1 (C.16-C.21)
# ----------------------------------------------------------------------------------------------


def gradient(d: int) -> Result:
    """d/dW of 1/2 Tr[(W - I) A (W - I)^T] for a generic symmetric A is (W - I) A (C.15)."""
    w, eye = weight_matrix(d), sp.eye(d)
    a = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"A_{{{min(i, j) + 1}{max(i, j) + 1}}}", real=True))
    loss = ((w - eye) * a * (w - eye).T).trace() / 2
    derived = sp.Matrix(d, d, lambda i, j: sp.diff(loss, w[i, j]))
    expected = (w - eye) * a
    return Result(derived=derived, expected=expected, holds=_equal(derived, expected))


def theorem_4_1(s: int, d: int) -> Result:
    """Eq. (4.2) as a matrix W(t) solves dW/dt = -(W - I) A, W(0) = W0, with A = diag(a_1..a_s, 0..0).

    `derived` is the output f(W(t); z) of (C.21) summed over all d inputs; `expected` is (4.2).
    """
    t = sp.Symbol("t", nonnegative=True)
    a = [sp.Symbol(f"a_{i + 1}", positive=True) for i in range(s)] + [sp.Integer(0)] * (d - s)
    w0, z = weight_matrix(d, "w^{(0)}"), _vector(d, "z", real=True)
    decay = sp.diag(*[sp.exp(-ai * t) for ai in a])
    w_t = sp.eye(d) - (sp.eye(d) - w0) * decay  # (C.17)
    solves = _equal(w_t.diff(t), -(w_t - sp.eye(d)) * sp.diag(*a)) and _equal(w_t.subs(t, 0), w0)
    derived = w_t * z
    growth = sp.Matrix([(1 - sp.exp(-a[k] * t)) * z[k] if k < s else 0 for k in range(d)])
    noise = sp.Matrix([sum(sp.exp(-a[i] * t) * w0[k, i] * z[i] for i in range(d)) for k in range(d)])
    expected = growth + noise  # (4.2)/(C.21)
    return Result(derived=derived, expected=expected, holds=solves and _equal(derived, expected))
