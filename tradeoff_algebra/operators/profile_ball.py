"""Certified privacy profiles of an operator's argument, and the profile of f_p from f's.

:func:`profile_ball` is delta_g(eps) as an Arb ball from what proves it without an engine:
the closed-form profile (``profile_form``) enclosed in Arb, the exact finite loss summed over
its atoms in Arb, or the family's Arb profile (``arb_delta``). The maximum's search uses it to
bound its result by min_i delta_i (``max_delta``), and :func:`mix_delta` to start from a proved
inner profile.

:func:`mix_delta` is delta of f_p = p f + (1 - p) Id = T(P, (1 - p) P + p Q), p in (0, 1]:

    delta_{f_p}(eps) = sup_S {p Q(S) - (e^eps - 1 + p) P(S)} = p delta_f(v'),
    v' = e^{eps'} = 1 + (e^eps - 1)/p >= e^eps,

(Dong, Roth & Su, Prop. 6), with v' an Arb ball. delta_f is asked at one exact point e^m just
below v' (m an mpf, the lower end of log v'), and moved to v' by the slope of delta in
v = e^eps: delta(v) = sup_alpha {P(alpha) - v alpha} is a supremum of lines of slope -alpha in
[-1, 0], so it is non-increasing and 1-Lipschitz in v, and delta(v') lies in
[delta(e^m) - (v' - e^m), delta(e^m)] (an exact 0 at e^m stays exact). Every step is Arb's or
exact, so the pair is certified when the inner one is.
"""

from __future__ import annotations

import sympy as sp
from flint import arb
from mpmath.libmp import round_ceiling, round_floor, round_nearest

from ..core import trace
from ..core.node import TradeOff
from ..core.validate import mpf_rational
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.arb_expr import Unenclosable, arb_ball, arb_enclose
from ..numeric.capability import profile_form
from ..numeric.context import arb_precision, mp
from ..numeric.finite import finite_loss
from ..numeric.protocol import ARB_GUARD_BITS, arb_delta, mp_delta
from ..numeric.value import CertifiedPair

__all__ = ["profile_ball", "mix_delta"]


def profile_ball(g: TradeOff, eps) -> arb | None:
    """delta_g(eps) (an mpf eps >= 0) as a certified ball at the working precision plus guard
    bits, from the closed-form profile, the exact finite loss or the family's Arb profile; None
    where none applies (no engine is started)."""
    E = mpf_rational(eps)
    prec = mp.prec + ARB_GUARD_BITS
    form = profile_form(g, E)
    if form is not None:
        try:
            return arb_enclose(form, prec=prec)
        except Unenclosable:
            return None
    fl = finite_loss(g)
    if fl is not None and fl.affordable():
        return fl.arb_delta(E, prec)
    if arb_delta.dispatch(type(g)) is not arb_delta.dispatch(object):
        with arb_precision(prec):
            return arb_delta(g, arb_exact(eps))
    return None


def _ball_of_pair(pair) -> arb:
    lo, hi = pair
    return arb_exact(mp.mpf(lo)).union(arb_exact(mp.mpf(hi)))


def mix_delta(f: TradeOff, p: sp.Expr, eps) -> CertifiedPair | None:
    """delta of Mix(f, p) at an mpf eps >= 0 (module docstring) as a CertifiedPair, or None
    where f's profile at the shifted point is not proved (the caller's estimate) or p is not
    in (0, 1]."""
    if not (mp.isfinite(eps) and eps >= 0):
        return None
    with arb_precision(mp.prec + ARB_GUARD_BITS):
        try:
            P = arb_ball(p)
        except ValueError:
            return None
        if not (P > 0 and P <= 1):
            return None
        v = 1 + arb_exact(eps).expm1() / P
        man, exp = arb(v.log().lower()).mid().man_exp()  # e^m <= v': delta(v') <= delta(e^m)
        m = mp.make_mpf(mp_from(int(man), int(exp)))
        m = max(m, mp.zero)
        b = profile_ball(f, m)
        if b is None or not b.is_finite():
            pair = mp_delta(f, m)
            if not isinstance(pair, CertifiedPair):
                return None
            b = _ball_of_pair(pair)
        vm = arb_exact(m).exp()
        lo = arb(b.lower()) - arb.max(v - vm, arb(0))
        hi = arb(b.upper()) if vm <= v else arb(b.upper()) + arb.max(vm - v, arb(0))
        lo, hi = arb.max(P * lo, arb(0)), arb.min(P * hi, arb(1))
        trace.note("delta of Mix from its operand's certified profile at the shifted eps")
        return CertifiedPair(arb_endpoint(arb(lo.lower()).lower(), round_floor),
                             arb_endpoint(arb(hi.upper()).upper(), round_ceiling))


def mp_from(man: int, exp: int):
    """The mpf value man 2^exp, exactly (all of man's bits kept)."""
    from mpmath.libmp import from_man_exp

    return from_man_exp(man, exp, max(abs(man).bit_length(), 1), round_nearest)
