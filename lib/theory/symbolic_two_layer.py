"""Symbolic derivation of the Jacobian flow of f = U U^T x (Swing-by paper, eq. 4.3, D.1-D.6), with sympy.

Two facts are derived, not assumed:
1. gradient flow dU/dt = -grad L(U) on L(U) = 1/2 ||(U U^T - I) A^{1/2}||_F^2 moves W = U U^T by
   exactly twice the right-hand side of (D.2) (so the paper's time is twice the flow time);
2. entry by entry, the right-hand side of (D.2) equals G - S - N (eqs. D.3-D.6).
"""

from __future__ import annotations

import sympy as sp

# ----------------------------------------------------------------------------------------------
# Symbols
# ----------------------------------------------------------------------------------------------


def strengths(d: int) -> sp.Matrix:
    """A = diag(a_1, ..., a_d), a_k > 0."""
    return sp.diag(*sp.symbols(f"a1:{d + 1}", positive=True))


def symmetric_w(d: int) -> sp.Matrix:
    """A symmetric matrix of symbols w_ij = w_ji."""
    return sp.Matrix(d, d, lambda i, j: sp.Symbol(f"w{min(i, j) + 1}{max(i, j) + 1}"))


# ----------------------------------------------------------------------------------------------
# The flow
# ----------------------------------------------------------------------------------------------


def d2_rhs(w: sp.Matrix, a: sp.Matrix) -> sp.Matrix:
    """(D.2): W A + A W - 1/2 (A W^2 + W^2 A + 2 W A W)."""
    return w * a + a * w - (a * w**2 + w**2 * a + 2 * w * a * w) / 2


def flow_of_w(d: int, width: int) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix]:
    """(dW/dt under gradient flow on U, W = U U^T, A), all as polynomials in the entries of U."""
    u = sp.Matrix(d, width, lambda i, j: sp.Symbol(f"u{i + 1}_{j + 1}"))
    a = strengths(d)
    w = u * u.T
    e = w - sp.eye(d)
    loss = (e * a * e.T).trace() / 2  # 1/2 ||(W - I) A^{1/2}||_F^2 (eq. C.6)
    grad = sp.Matrix(d, width, lambda i, j: sp.diff(loss, u[i, j]))
    dw = -(grad * u.T + u * grad.T)
    return dw, w, a


def time_rescaling(d: int, width: int) -> sp.Expr:
    """The factor c with dW/dt = c x (D.2) under gradient flow on U (derived: c = 2)."""
    dw, w, a = flow_of_w(d, width)
    rhs = d2_rhs(w, a)
    ratio = sp.simplify(sp.expand(dw[0, 0]) / sp.expand(rhs[0, 0]))
    residual = (dw - ratio * rhs).applyfunc(sp.expand)
    if residual != sp.zeros(d, d):
        raise AssertionError("dW/dt is not a constant multiple of (D.2)")
    return ratio


# ----------------------------------------------------------------------------------------------
# Growth, suppression and noise terms (eq. 4.3, D.4-D.6)
# ----------------------------------------------------------------------------------------------


def decomposition(d: int) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix, sp.Matrix]:
    """(rhs of D.2, G, S, N) as matrices of polynomials in the symmetric w_ij and a_k."""
    a, w = strengths(d), symmetric_w(d)
    av = [a[k, k] for k in range(d)]
    g = sp.Matrix(d, d, lambda i, j: w[i, j] * (av[i] + av[j]))
    s = sp.Matrix(
        d,
        d,
        lambda i, j: w[i, j] * (w[i, i] * (3 * av[i] + av[j]) + (w[j, j] * (3 * av[j] + av[i]) if i != j else 0)) / 2,
    )
    n = sp.Matrix(
        d, d, lambda i, j: sum(w[k, i] * w[k, j] * (av[i] + av[j] + 2 * av[k]) for k in range(d) if k not in (i, j)) / 2
    )
    return d2_rhs(w, a), g, s, n


def decomposition_exact(d: int) -> bool:
    """Whether rhs(D.2) - (G - S - N) expands to zero in every entry."""
    rhs, g, s, n = decomposition(d)
    return (rhs - (g - s - n)).applyfunc(sp.expand) == sp.zeros(d, d)
