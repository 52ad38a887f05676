"""Renyi divergences of a trade-off function f = T(P, Q).

``renyi(f, a)`` is ``D_a(P || Q) = 1/(a - 1) log int p^a q^{1-a}`` (Renyi 1961; Mironov 2017,
Def. 3), the direction of Dong, Roth & Su's ``kl(f) = KL(P || Q)``. In terms of f: under P the
likelihood ratio dQ/dP at the P-quantile x of the Neyman-Pearson order is |f'(x)|, so

    D_a(P || Q) = 1/(a - 1) log int_0^1 |f'(x)|^{1-a} dx

(Wang et al., Prop. 3.3 with F(t) = t^a). Order 1 is KL, order +oo the max divergence
``log ess sup dP/dQ = -log |f'(1^-)|``. The reverse direction D_a(Q || P) is
``renyi(f.inverse(), a)`` (f^{-1} = T(Q, P)).

Closed forms (SymPy expressions; symbols allowed):

* G_mu: ``a mu^2/2`` (Mironov 2017, Prop. 7; Kaissis et al., Lemma 7).
* L_mu = T(Lap(0,1), Lap(mu,1)): ``1/(a-1) log(a/(2a-1) e^{(a-1) mu} + (a-1)/(2a-1) e^{-a mu})``,
  ``a != 1/2`` (Mironov 2017, Prop. 6, re-derived by integrating the three pieces of the
  density ratio; at a = 1/2 the limit ``2 log(1/(e^{-mu/2}(1 + mu/2)))``); ``mu`` at a = oo.
* f_{eps,delta} (the four-point pair of Dong, Roth & Su, Eq. (10)): for delta > 0 and a > 1,
  +oo (P has mass delta where Q has none); otherwise
  ``1/(a-1) log((1 - delta)(e^{a eps} + e^{(1-a) eps})/(1 + e^eps))``.
* T(N(m0, s0^2), N(m1, s1^2)) (``NormalPair``): Kaissis et al., Cor. 10 in one dimension,
  ``log(s1/s0) + log(s1^2/s_a^2)/(2(a-1)) + a (m0 - m1)^2/(2 s_a^2)`` with
  ``s_a^2 = a s1^2 + (1 - a) s0^2``, +oo where ``s_a^2 <= 0``.
* finite objects (BinomialDP, Discrete, PiecewiseLinear, products of finite factors): exact,
  as a sum over the factors of their finite representation (Renyi divergences add over
  product pairs, van Erven & Harremoes 2014, Thm. 28).
* products and powers: the sum of the factors' divergences; Id: 0; Zero: +oo.
* the sampled Gaussian Mix(G_mu, p) (``renyi_mixture``): D_a(Q || P) (``renyi(Inverse(Mix(G(mu),
  p)), a)``) by the binomial sum at integer orders (Mironov, Talwar & Zhang 2019, Sec. 3.3;
  numerically summed in Arb directly by ``renyi_sampled``, products included); the
  other orders and the other direction as certified Arb integrals, also inside products (the
  RDP of Poisson-subsampled DP-SGD, certified).
* f^{-1} of a symmetric f: as f; for a in (0, 1) the skew symmetry
  ``D_a(Q || P) = a/(1 - a) D_{1-a}(P || Q)`` (van Erven & Harremoes, Prop. 2).

Numerically (``dps=``) a closed form is evaluated to ``dps`` digits; ``estimate=True`` allows a
tanh-sinh quadrature estimate of ``int |f'|^{1-a}`` for the rest (not an enclosure, never the
default).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, NoClosedForm, NumericalError
from ..core.node import TradeOff
from ..core.validate import count, param
from ..numeric import budget
from ..numeric.capability import gaussian_form, renyi_form
from ..numeric.concave import golden_section
from ..numeric.context import mp
from ..numeric.finite import finite_loss
from ..numeric.protocol import MAX_DPS, num, short
from ..numeric.value import CertifiedPair, Value
from ..operators.subsample import Mix
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse
from ..rewrite.simplify import simplify
from .conversions import EPSILON_UPPER_BOUNDS
from .functionals import (
    check_functional_args,
    closed_value,
    kl,
    quad_log_slope,
    two_precision_estimate,
)
from .renyi_mixture import sampled_gaussian_form, sampled_gaussian_renyi
from .renyi_sampled import sampled_reverse_integer

__all__ = ["renyi", "renyi_form", "order_param"]


def order_param(order: Any, owner: str = "renyi") -> sp.Expr:
    """The order a of a Renyi divergence: a real number in (0, oo] (``oo`` or a float infinity
    for the max divergence), or a symbol."""
    return param("order", order, lower=0, lower_open=True, owner=owner, allow_infinite=True)


@renyi_form.register(Tensor)
def _(f, a):
    parts = [renyi_form(g, a) for g in f.factors]
    return None if any(p is None for p in parts) else sp.Add(*parts)


@renyi_form.register(TensorPower)
def _(f, a):
    if f.n.is_zero:  # f^{(x) 0} = Id (one point mass against itself)
        return sp.S.Zero
    d = renyi_form(f.base, a)
    return None if d is None else f.n * d


@renyi_form.register(Inverse)
def _(f, a):
    g = f.arg
    mu = gaussian_form(g.arg) if isinstance(g, Mix) else None
    if mu is not None:  # the sampled Gaussian, Q first
        return sampled_gaussian_form(g.p, mu, a)
    if g.is_symmetric:
        return renyi_form(g, a)
    fl = finite_loss(f)
    if fl is not None:
        return renyi_form.dispatch(object)(f, a)
    if a.is_positive and (a < 1) is sp.true:  # skew symmetry (van Erven & Harremoes, Prop. 2)
        d = renyi_form(g, 1 - a)
        return None if d is None else a / (1 - a) * d
    return None


def _closed(v: sp.Expr, f: TradeOff, dps: int) -> Value:
    """A closed-form divergence as a point Value (a Max of constants simplified first)."""
    return closed_value(sp.simplify(v) if v.has(sp.Max) else v, f, dps)


def _certified(f: TradeOff, a: sp.Expr, dps: int) -> tuple | None:
    """(lo, hi) of D_a(P || Q) where a guaranteed route exists without one closed form: the
    sampled Gaussian pair in either direction (Arb integration, ``renyi_mixture``) and sums of
    closed forms and such terms over products (additivity, van Erven & Harremoes, Thm. 28)."""
    v = renyi_form(f, a)
    if v is not None:
        c = _closed(v, f, dps)
        return CertifiedPair(*c.interval()) if c.is_certain else None
    if isinstance(f, (Tensor, TensorPower)):
        parts = [(f.base, f.n)] if isinstance(f, TensorPower) else [(g, 1) for g in f.factors]
        lo, hi = mp.zero, mp.zero
        for g, n in parts:
            r = _certified(g, a, dps + 5)
            if r is None:
                return None
            k = num(sp.Integer(n), "n")  # sums of certified parts, rounded outward
            lo = mp.fadd(lo, mp.fmul(k, r[0], rounding="d"), rounding="d")
            hi = mp.fadd(hi, mp.fmul(k, r[1], rounding="u"), rounding="u")
        return CertifiedPair(lo, hi)
    inv = isinstance(f, Inverse)
    g = f.arg if inv else f
    mu = gaussian_form(g.arg) if isinstance(g, Mix) else None
    if mu is not None and a is not sp.oo:
        p, mu = g.p, abs(mu)
        if p.is_zero or mu.is_zero:
            return CertifiedPair(mp.zero, mp.zero)
        if p == 1:
            return _certified(g.arg, a, dps)
        return CertifiedPair(*sampled_gaussian_renyi(p, mu, a, inv, dps))  # Arb integration
    if inv and g.is_symmetric:
        return _certified(g, a, dps)
    return None


def _estimate(f: TradeOff, a: sp.Expr, dps: int) -> Value:
    """tanh-sinh estimate of 1/(a-1) log int |f'|^{1-a} at two working precisions."""

    def compute():
        A = num(a, "order")
        v, err = quad_log_slope(f, lambda t, s=1 - A: mp.exp(s * t), [])
        if mp.isinf(v) or v == 0:
            return mp.inf, mp.zero
        return mp.log(v) / (A - 1), err / v / abs(A - 1)

    return two_precision_estimate(compute, dps, f"renyi({f}, {a})")


@budget.deadline(lambda a: f"renyi({short(a['f'])}, {short(a['order'])})")
def renyi(f: TradeOff, order: Any, dps: int | None = None, *,
          estimate: bool = False) -> sp.Expr | Value:
    """The Renyi divergence D_a(P || Q) of order ``order`` for f = T(P, Q) (module docstring).

    ``order`` in (0, oo] (``sympy.oo`` for the max divergence; 1 means KL, ``kl(f)``).
    ``dps=None``: the closed form (symbols allowed; :class:`NoClosedForm` if none is known).
    ``dps``: a :class:`Value` — the closed form to ``dps`` digits, +oo where the divergence is
    infinite; with ``estimate=True`` a quadrature estimate where no closed form is known (an
    ESTIMATE, not an enclosure).

    >>> renyi(G(mu), 2)           # 2 mu^2/2 = mu**2
    """
    if dps is not None:
        dps = count("dps", dps, upper=MAX_DPS, owner="renyi")
    check_functional_args(f, dps, "renyi", estimate)
    a = order_param(order)
    if dps is not None and a.free_symbols:
        raise InvalidParameter("order", order, "a number in (0, oo] for a numeric value",
                               "renyi", "omit dps for the closed form in the order")
    if dps is not None and f.free_symbols:
        syms = ", ".join(sorted(map(str, f.free_symbols)))
        raise InvalidParameter("f", f, "an expression without free symbols for a numeric value",
                               "renyi", f"substitute values for the symbols {syms} (f.subs), "
                               "or omit dps for the closed form")
    if a == 1:
        return kl(f, dps, estimate=estimate)
    if dps is not None and a.is_Integer and a >= 2:  # the binomial sums in Arb, no SymPy Sum
        fast = sampled_reverse_integer(f, [int(a)], dps)
        if fast:
            return fast[int(a)]
    v = renyi_form(f, a)
    if v is None:  # cheap identities first (G_mu (x) G_nu, group privacy of G_mu, ...)
        v = renyi_form(simplify(f), a)
    if v is not None and (v.has(sp.nan) or v.has(sp.zoo)):
        raise NumericalError(f"renyi({f}, {a}): the closed form is undefined here ({v}); "
                             "please report the input")
    if dps is None:
        if v is None:
            raise NoClosedForm(f"renyi({f}, {a}): no closed form is known; pass dps=30 and "
                               "estimate=True for a quadrature estimate")
        return v
    if v is not None:
        return _closed(v, f, dps)
    if f.free_symbols or a.free_symbols:
        raise InvalidParameter("f", f, "an expression without free symbols for a numeric value")
    with mp.workdps(dps + 10):
        r = _certified(simplify(f), a, dps)
    if r is not None:
        return Value.enclosure(r[0], r[1], dps, guarantee="certified")
    if not estimate:
        raise NoClosedForm(f"renyi({f}, {a}): no closed form and no guaranteed numeric route; "
                           "estimate=True gives a quadrature estimate (not an enclosure)")
    if a is sp.oo:
        raise NoClosedForm(f"renyi({f}, oo): no quadrature for the max divergence")
    return _estimate(f, a, dps)


# -- eps(delta) bounded above through the Renyi divergences ---------------------------------------
#: log2(a - 1) of the coarse search of :func:`renyi_epsilon_bound` (extended below -20 while the
#: bound still falls: huge divergences want orders within 2^-1000 of 1).
_LOG_ORDERS = [k / 2 for k in range(-40, 27)]
_LOG_ORDER_MIN = -4000


def renyi_epsilon_bound(f: TradeOff, d) -> Any:
    """An upper bound of eps_f(d) (an mpf at the working precision), or None, from
    D_a(Q || P) for f = T(P, Q). The profile is delta(eps) = E_P[(Z - e^eps)_+], Z = dQ/dP,
    and (z - e^eps)_+ <= z^a e^{-(a-1) eps} (a - 1)^{a-1}/a^a for every z >= 0 (the ratio
    peaks at z = a e^eps/(a - 1)), so

        delta(eps) <= e^{(a-1)(D_a(Q || P) - eps)} (1 - 1/a)^{a-1}/a,
        eps(d) <= D_a(Q || P) + (log(1/d) - log a)/(a - 1) + log(1 - 1/a)

    for every order a > 1 (the conversion of Canonne, Kamath & Steinke 2020, Prop. 12, derived
    here for the pair). The order is searched on log2(a - 1) (a grid, then golden section);
    each divergence is the certified one of :func:`_certified` (closed forms, additivity over
    products, the sampled Gaussian), its upper end padded. Any order gives a valid bound: the
    search only tightens it."""
    if not (0 < d < 1) or f.free_symbols:
        return None
    g = simplify(Inverse(f))  # T(Q, P): D_a(Q || P) is its divergence of order a
    log_d = mp.log(d)
    pad = mp.ldexp(1, -(mp.prec - 12))
    seen: dict = {}

    def bound(u):  # a = 1 + 2^u; +oo where no certified divergence is known
        if u in seen:
            return seen[u]
        budget.check()
        t = mp.mpf(2) ** u
        man, exp = t.man_exp
        a = 1 + sp.Integer(int(man)) * sp.Integer(2) ** int(exp)  # exactly the mpf t
        try:
            r = _certified(g, a, mp.dps)
        except (NoClosedForm, InvalidParameter):
            r = None
        if r is None or not mp.isfinite(r[1]):
            seen[u] = mp.inf
            return mp.inf
        tau = r[1] + abs(r[1]) * pad + pad
        la = mp.log1p(t)  # log a, and log(1 - 1/a) = log t - log a: no 1 + t is rounded
        e = tau + (-log_d - la) / t + mp.log(t) - la
        e += abs(e) * pad + pad
        seen[u] = e if mp.isfinite(e) else mp.inf
        return seen[u]

    us = list(_LOG_ORDERS)
    vals = [bound(u) for u in us]
    while vals[0] < vals[1] and us[0] > _LOG_ORDER_MIN:  # still falling at the smallest order
        us.insert(0, max(2 * us[0], _LOG_ORDER_MIN))
        vals.insert(0, bound(us[0]))
    i = min(range(len(vals)), key=lambda k: vals[k])
    if not mp.isfinite(vals[i]):
        return None
    golden_section(bound, us[max(i - 1, 0)], us[min(i + 1, len(us) - 1)], iters=40)
    return max(min(seen.values()), mp.zero)


EPSILON_UPPER_BOUNDS.append(renyi_epsilon_bound)
