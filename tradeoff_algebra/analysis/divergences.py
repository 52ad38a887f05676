"""The hockey-stick divergence and F-divergences of a trade-off function f = T(P, Q).

* ``hockey_stick(f, gamma) = E_gamma(P || Q) = int (p - gamma q)_+ = sup_S P(S) - gamma Q(S)``
  (Balle, Barthe & Gaboardi 2018; Dwork, Sec. 4). In the library's profile convention
  ``delta(f, eps) = sup_S Q(S) - e^eps P(S) = E_{e^eps}(Q || P)`` (Dong, Roth & Su, Prop. 6:
  ``1 + f^*(-e^eps)``), so ``E_gamma(P || Q) = delta(f^{-1}, log gamma)`` for gamma >= 1 and
  ``1 - gamma + gamma E_{1/gamma}(Q || P)`` for 0 <= gamma < 1 (the identity
  ``int (p - gamma q)_+ = int (p - gamma q) + gamma int (q - p/gamma)_+``). Enclosures inherit
  those of ``delta``.
* ``f_divergence(f, F) = D_F(P || Q) = E_Q[F(dP/dQ)]`` for a convex F with F(1) = 0. For
  f(0) = 1, ``D_F(P || Q) = int_0^1 F(1/|f'(x)|) |f'(x)| dx`` (Wang et al., Prop. 3.3, first
  equality; its middle expression for a mixture, a sum over the components without the
  weights w_i, is a misprint recorded in ``proofs/``). Finite objects: exact,
  ``sum_i q_i F(p_i/q_i)`` with ``p F'(oo)`` (``F'(oo) = lim F(t)/t``) for outcomes with
  q = 0 and ``q F(0)`` for p = 0. Otherwise a quadrature ESTIMATE with ``estimate=True``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, NoClosedForm, brief
from ..core.node import TradeOff, TradeOffExpr
from ..core.validate import count, param, to_sympy
from ..numeric import budget
from ..numeric.context import lambdify_modules, mp
from ..numeric.finite import finite_loss
from ..numeric.protocol import GUARD_DPS, MAX_DPS, short
from ..numeric.value import Value
from .conversions import delta
from .functionals import (
    check_functional_args,
    closed_value,
    quad_log_slope,
    two_precision_estimate,
)

__all__ = ["hockey_stick", "f_divergence"]


@budget.deadline(lambda a: f"hockey_stick({short(a['f'])}, {short(a['gamma'])})")
def hockey_stick(f: TradeOff, gamma: Any, dps: int = 30) -> Value:
    """E_gamma(P || Q) = sup_S P(S) - gamma Q(S) for f = T(P, Q), gamma >= 0 (module
    docstring); an enclosure (a point where the profile has a closed form)."""
    check_functional_args(f, dps, "hockey_stick")
    g = param("gamma", gamma, lower=0, owner="hockey_stick")
    if g.free_symbols:
        raise InvalidParameter("gamma", gamma, "a number >= 0", "hockey_stick")
    if g >= 1:
        return delta(f.inverse(), sp.log(g), dps=dps)
    if g == 0:
        return Value.from_exact(sp.S.One, dps)
    d = delta(f, -sp.log(g), dps=dps)
    with mp.workdps(dps + GUARD_DPS):
        dlo, dhi = d.interval()
        if not g.is_Rational:  # sqrt(2)/2, exp(-5): G in a small interval, 1 - G(1 - d)
            Gm = mp.mpf(sp.Float(sp.N(g, dps + GUARD_DPS + 10))._mpf_)
            r = Gm * mp.mpf(10) ** -(dps + GUARD_DPS)
            lo = mp.fsub(1, mp.fmul(Gm + r, mp.fsub(1, dlo, rounding="u"), rounding="u"),
                         rounding="d")
            hi = mp.fsub(1, mp.fmul(Gm - r, mp.fsub(1, dhi, rounding="d"), rounding="d"),
                         rounding="u")
            return Value.enclosure(lo, hi, dps)
        G = mp.mpf(g.p) / g.q
        # 1 - G + G d, each end rounded outward (G is exact at this precision for the
        # rationals one writes; a rounded G moves the result far below the guard digits)
        lo = mp.fadd(mp.fsub(1, G, rounding="d"), mp.fmul(G, dlo, rounding="d"), rounding="d")
        hi = mp.fadd(mp.fsub(1, G, rounding="u"), mp.fmul(G, dhi, rounding="u"), rounding="u")
        return Value.enclosure(lo, hi, dps)


def _sympy_F(F: Any) -> sp.Lambda:
    allowed = "a convex function as a SymPy Lambda or a callable of a SymPy symbol"
    if isinstance(F, sp.Lambda) and len(F.variables) == 1:
        return F
    # a trade-off function is callable too, but it is not an F (and fails on a symbol t > 1)
    if callable(F) and not isinstance(F, TradeOffExpr):
        t = sp.Dummy("t", positive=True)
        try:
            body = F(t)
        except Exception as exc:  # whatever the user's callable raises
            raise InvalidParameter("F", F, allowed, "f_divergence",
                                   f"F(t) for a symbol t failed with {type(exc).__name__}"
                                   ) from None
        try:
            return sp.Lambda(t, to_sympy("F(t)", body, allowed, "f_divergence"))
        except InvalidParameter:
            raise InvalidParameter("F", F, allowed, "f_divergence",
                                   f"F(t) is {brief(body)}, not a real scalar expression"
                                   ) from None
    raise InvalidParameter("F", F, allowed, "f_divergence")


def _limit(expr: sp.Expr, t: sp.Symbol, to: sp.Expr) -> sp.Expr:
    """A limit of an expression in F; Max/Min/Abs rewritten as Piecewise when SymPy's limit
    cannot take them directly."""
    try:
        return sp.limit(expr, t, to, "+" if to == 0 else "-")
    except (NotImplementedError, ValueError, TypeError):
        try:
            return sp.limit(sp.piecewise_fold(expr.rewrite(sp.Piecewise)), t, to,
                            "+" if to == 0 else "-")
        except (NotImplementedError, ValueError, TypeError) as exc:
            raise NoClosedForm(f"f_divergence: the limit of {expr} as t -> {to} (needed for "
                               "outcomes with a zero mass) is beyond SymPy") from exc


def _finite(fl, F: sp.Lambda) -> sp.Expr:
    t = sp.Dummy("t", positive=True)
    total = sp.S.Zero
    slope = None
    for pairs, m in fl.leaves():
        if m != 1:
            return None  # not additive: materialise the product instead
        for p, q in pairs:
            if q == 0 and p != 0:
                if slope is None:
                    slope = _limit(F(t) / t, t, sp.oo)
                total += p * slope
            elif p == 0 and q != 0:
                total += q * _limit(F(t), t, sp.S.Zero)
            elif p != 0:
                total += q * F(p / q)
    return total


@budget.deadline(lambda a: f"f_divergence({short(a['f'])})")
def f_divergence(f: TradeOff, F: Any, dps: int | None = None, *,
                 estimate: bool = False) -> sp.Expr | Value:
    """D_F(P || Q) = E_Q[F(dP/dQ)] for f = T(P, Q) and a convex F with F(1) = 0 (module
    docstring). ``F``: a SymPy ``Lambda`` or a callable of a SymPy symbol
    (``lambda t: t * sp.log(t)`` gives KL(P || Q)).

    ``dps=None``: the exact sum for a finite ``f`` of one factor (NoClosedForm otherwise).
    ``dps``: a Value; ``estimate=True`` allows quadrature of ``F(e^{-l}) e^l`` with
    ``l = log|f'|`` for f(0) = 1 (an ESTIMATE, not an enclosure).
    """
    if dps is not None:
        dps = count("dps", dps, upper=MAX_DPS, owner="f_divergence")
    check_functional_args(f, dps, "f_divergence", estimate)
    Fl = _sympy_F(F)
    fl = finite_loss(f)
    if fl is not None and len(fl.leaves()) == 1:
        v = _finite(fl, Fl)
        if v is not None:
            return v if dps is None else closed_value(v, f, dps)
    if fl is not None:
        atoms = fl.atoms()
        from_atoms = type(fl).from_atoms(atoms)
        v = _finite(from_atoms, Fl)
        return v if dps is None else closed_value(v, f, dps)
    if dps is None:
        raise NoClosedForm(f"f_divergence({f}): exact only for finite objects; pass dps=30 and "
                           "estimate=True for a quadrature estimate")
    if not estimate:
        raise NoClosedForm(f"f_divergence({f}): no guaranteed numeric route; estimate=True "
                           "gives a quadrature estimate (not an enclosure)")
    t = sp.Dummy("t")
    Fm: Callable = sp.lambdify(t, Fl(t), lambdify_modules())  # (this thread's context)
    return two_precision_estimate(
        lambda: quad_log_slope(f, lambda ell: Fm(mp.exp(-ell)) * mp.exp(ell), []), dps,
        f"f_divergence({f})")
