"""The privacy profile of a pointwise maximum, from the powers of its arguments.

For f = max{f_1, ..., f_n} (Dong, Roth & Su, Prop. 5) Prop. 6 gives

    delta_f(eps) = 1 + f^*(-e^eps) = sup_{alpha in [0, 1]} { min_i (1 - f_i(alpha)) - e^eps alpha },

the maximum of psi(alpha) = min_i P_i(alpha) - e^eps alpha, where P_i = 1 - f_i is the power of
f_i. Each P_i is concave (f_i is convex, Prop. 1), so their minimum is concave and so is psi:
its maximum is enclosed by the certified golden-section search of
:func:`~..numeric.concave.arb_max_concave` (the bracket shrinks only on a proved comparison of
two balls; the lower end is a value psi attains, the upper end the chord extensions that
concavity puts above the graph).

Why the powers and not the values. At eps where delta is small the maximiser alpha* is small and
1 - f(alpha*) is small: delta(7.45) of Max(G(3/2), G(1) (x) L_1) is 1e-10 at alpha* = 3.6e-13,
where 1 - f(alpha*) = 7e-10. A value f(alpha*) = 1 - 7e-10 enclosed to a relative width near
the working precision still leaves 1e-16 of absolute width, 1e-6 of delta, whatever the
tolerance asked: the search on the values (the generic convex conjugate) stopped at a width set
by where its enclosures happened to straddle, and eps(1e-10) at tol 1e-9 came out 3 % wider than
at tol 1e-6. The power is enclosed relative to itself (the routes' tolerance), so delta's width
follows the tolerance: about tol times P(alpha*)/delta.

What delta_f is, and is not. max_i f_i >= f_j, so delta_f <= min_i delta_{f_i} (Prop. 6: a
larger trade-off function has a smaller profile), not the maximum of the delta_i. Exactly, with
v = e^eps, delta_f as a function of v is the lower convex envelope of min_i delta_{f_i}: the
conjugate of a maximum of closed convex functions is the closed convex hull of the minimum of
their conjugates (Rockafellar, Convex Analysis, Thm. 16.5), and delta(v) = 1 + f^*(-v) is linear
in the conjugate's argument. Where one delta_{f_j} is the minimum and its tangent at v stays
below the others, delta_f(v) = delta_{f_j}(v); between such points (where the maximiser alpha*
is a crossing f_i(alpha*) = f_j(alpha*)) delta_f follows the common tangent, linear in v and
strictly below both. tests/test_max_delta.py checks both descriptions against each other at 40
digits.

The enclosure is certified: every power is an argument's Arb ball (``arb_value``) or its
``mp_roc`` pair when that is a :class:`~..numeric.value.CertifiedPair` (the profile band of a
symmetric product), and psi and the search are Arb arithmetic on them. Where an argument's
power is an estimate, the maximum keeps the convex conjugate of the values (an estimate).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import sympy as sp
from flint import arb, ctx
from mpmath.libmp import from_man_exp, round_ceiling, round_floor, round_nearest

from ..core import trace
from ..core.errors import ToleranceWarning
from ..core.node import TradeOff
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.arb_expr import arb_ball
from ..numeric.concave import arb_max_concave
from ..numeric.context import ThreadCache, arb_precision, mp
from ..numeric.finite import finite_loss
from ..numeric.knots_eval import pl_knots_cached
from ..numeric.options import options, pld_options
from ..numeric.protocol import ARB_GUARD_BITS, arb_value, exact_value, mp_roc
from ..numeric.value import CertifiedPair
from .max_profiles import ProfilePower, certified_delta_ball, profile_max_delta
from .profile_ball import profile_ball

__all__ = ["max_delta", "ROUTE"]

#: The name of this route in ``Value.route``.
ROUTE = "concave search on the powers of the maximum's arguments (Prop. 6)"


def _exact_mpf(x: arb):
    """The exact midpoint of an Arb ball as an mpf holding all its bits (no rounding)."""
    man, exp = x.mid().man_exp()
    man = int(man)
    return mp.make_mpf(from_man_exp(man, int(exp), max(abs(man).bit_length(), 1), round_nearest))


def _pair_ball(pair) -> arb:
    """The ball holding [lo, hi] of an enclosure pair (mpfs)."""
    lo, hi = pair
    return arb_exact(mp.mpf(lo)).union(arb_exact(mp.mpf(hi)))


class _Powers:
    """min_i (1 - f_i(t)) as a ball at exact dyadic levels t, and whether every one was proved."""

    def __init__(self, args: Sequence[TradeOff]):
        self.args = tuple(args)
        self.proved = True
        self._losses: dict = {}

    def at_zero(self) -> arb:
        """1 - max_i f_i(0) in [0, 1], from the arguments' finite balls or exact values where
        they have them. Only the lower end of psi(0) enters the search (as a value attained
        and in the chord slopes, :func:`~..numeric.concave.arb_max_concave`), so an argument
        with neither leaves [0, 1] there, and no engine runs for it."""
        lo, hi = arb(1), arb(1)
        for g in self.args:
            b = arb_value(g, arb(0), arb(1), True)
            if b is None or not b.is_finite():
                v = exact_value(g, sp.S.Zero, sp.S.One)
                b = arb(0).union(arb(1)) if v is None else 1 - arb(int(v.p)) / int(v.q)
            lo, hi = arb.min(lo, arb(b.lower())), arb.min(hi, arb(b.upper()))
        return arb.max(lo, arb(0)).union(hi)

    def _finite(self, g: TradeOff):
        """The exact finite loss of ``g`` where it has one and it is affordable, else None
        (remembered per argument)."""
        if g not in self._losses:
            fl = finite_loss(g)
            self._losses[g] = fl if fl is not None and fl.affordable() else None
        return self._losses[g]

    def at(self, t: arb) -> arb:
        out = None
        man, exp = t.mid().man_exp()
        for g in self.args:
            key = (g, int(man), int(exp), ctx.prec, mp.prec, options()["tol"])
            hit = _POWERS.get(key)
            if hit is None:
                hit = _POWERS[key] = self._power(g, t)
                if len(_POWERS) > MAX_CACHED:
                    _POWERS.clear()
                    _POWERS[key] = hit
            b, proved = hit
            self.proved &= proved
            out = b if out is None else arb.min(out, b)
        return out

    def _power(self, g: TradeOff, t: arb) -> tuple:
        """(a ball of 1 - g(t), whether it is proved)."""
        b = arb_value(g, t, 1 - t, True)
        if b is None or not b.is_finite():
            fl = self._finite(g)
            if fl is not None:  # a finite pair: the lines of its segments in Arb
                b = fl.arb_value(t, True, ctx.prec)
        if b is not None and b.is_finite():
            return b, True
        a = _exact_mpf(t)
        pair = mp_roc(g, a, mp.fsub(1, a, exact=True))
        return _pair_ball(pair), isinstance(pair, CertifiedPair)


#: The arguments' powers at exact levels, by (argument, level, precisions, tolerance): psi(t) =
#: P(t) - e^eps t, and P does not depend on eps, so the levels of the log bracket (the same at
#: every eps) and the golden section's near a maximiser are reused across the calls of an eps
#: search (a product's power from its certified profile band costs 0.15 s).
_POWERS = ThreadCache()
#: The most powers kept (the cache is emptied beyond).
MAX_CACHED = 4096


#: The smallest level the search on the scale of log(alpha) visits is 2^-LOG_DEPTH; below it
#: the search goes on from alpha = 0.
LOG_DEPTH = 2048


def _log_bracket(psi: Callable[[arb], arb]) -> tuple:
    """(a, b, psi(a), psi(b)): a bracket of a maximiser of the concave ``psi`` on [0, 1] with
    b <= 4 a (or a = 0), found on the scale of u = log2(1/alpha), where the maximiser of a
    small delta lives (alpha* = 3.6e-13 above: the golden section on [0, 1] spent 60 of its
    70 evaluations reaching that scale). psi is unimodal in u (concave in alpha, and u is
    monotone), so a certain comparison of two levels keeps a maximiser on the side of the
    larger: u = 0, 4, 8, 12, 18, ... (steps of a half) until psi certainly falls, then the
    golden section in u on the last three, down to a width of two bits. Undecided
    comparisons stop early with the bracket proved so far."""
    cache: dict = {}

    def at(u: int | float) -> tuple:
        if u not in cache:
            t = arb(0) if u == math.inf else arb(arb(2) ** (-arb(u))).mid()
            t = arb(1) if u == 0 else arb(t)
            cache[u] = (t, psi(t))
        return cache[u]

    lo_u, hi_u = 0.0, math.inf  # a maximiser lies in alpha in [2^-hi_u, 2^-lo_u]
    prev = 0.0
    u = 4.0
    while True:
        if u > LOG_DEPTH:
            lo_u = prev
            break
        (_, pp), (_, pn) = at(prev), at(u)
        if pn > pp:  # psi grows towards 0: a maximiser lies below 2^-prev
            lo_u, prev, u = prev, u, max(u + 4, math.floor(1.5 * u))
            continue
        if pn < pp:  # psi falls: a maximiser lies above 2^-u
            hi_u = u
        break
    if hi_u < math.inf:  # golden section in u on [lo_u, hi_u]
        g = (math.sqrt(5) - 1) / 2
        while hi_u - lo_u > 2:
            c, d = hi_u - g * (hi_u - lo_u), lo_u + g * (hi_u - lo_u)
            (_, pc), (_, pd) = at(c), at(d)
            if pc > pd:  # (c < d: the larger level, alpha(c) > alpha(d))
                hi_u = d
            elif pd > pc:
                lo_u = c
            else:
                break
    (a, pa), (b, pb) = at(hi_u), at(lo_u)
    return a, b, pa, pb


#: The golden section asks the arguments' powers at the tolerance divided by twice the
#: amplification P(alpha)/psi(alpha) seen at the ends of the log bracket, by at most this.
MAX_TIGHTEN = 64
#: The tightest tolerance asked of the arguments.
TOL_MIN = 1e-15


def _amplification(e: arb, bracket: tuple) -> float:
    """P(alpha)/psi(alpha) = (psi + e^eps alpha)/psi at the ends of the bracket (floats; 1
    where psi is not positive there), at most MAX_TIGHTEN. delta = psi(alpha*) is a
    difference P(alpha*) - e^eps alpha*, so the powers' relative width tol makes delta's about
    tol P/delta wide (7 tol for delta(7.45) = 1e-10 of Max(G(3/2), G(1) (x) L_1)): the
    golden section asks the powers to tol / (2 k), and delta meets tol."""
    a, b, pa, pb = bracket
    ks = [1.0]
    for t, p in ((a, pa), (b, pb)):
        if p is not None and p.is_finite() and p > 0:
            ks.append(float(((p + e * t) / p).mid()))
    return min(max(ks), MAX_TIGHTEN)


def max_delta(args: Sequence[TradeOff], eps) -> tuple | None:
    """(lo, hi) of delta(eps) of max{args} (module docstring) for an mpf eps >= 0, a
    :class:`CertifiedPair` when every argument's power was proved; None (the caller's convex
    conjugate of the values) when an argument's power at alpha = 1/16 is an estimate: the
    search reaches small alpha, where an estimating engine asked for a power to a relative
    width refines far (the PLD grid of Max(G(3/2), G(1) (x) L_1 (x) D), D an asymmetric
    finite pair, took 1 GiB and a minute where the values took a second).

    The arguments' ToleranceWarnings are not passed on: the search asks for powers at levels
    far from the maximiser (alpha = 2^-2048 on the log scale), where a product's enclosure may
    miss its tolerance (delta below the least float) without widening the result; the caller
    warns when the result itself misses the tolerance."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ToleranceWarning)
        return _max_delta(args, eps)


def _max_delta(args: Sequence[TradeOff], eps) -> tuple | None:
    for g in args:  # delta_max <= delta_g: an argument proved to have no delta left ends it
        b = profile_ball(g, eps)
        if b is not None and b.is_finite() and b.upper() <= 0:
            trace.note(ROUTE)
            return CertifiedPair(mp.zero, mp.zero)
    powers = _Powers(args)
    with arb_precision(mp.prec + ARB_GUARD_BITS):
        powers.at(arb(1) / 16)
        if not powers.proved:
            return _by_profiles(args, eps)
        e = arb_exact(eps).exp()

        seen = [arb(0)]  # the largest lower end of psi at any level evaluated: attained

        def psi(t):
            if t == 0:
                out = powers.at_zero()
            elif t == 1:
                out = 1 - e  # f_i(1) = 0 for every trade-off function
            else:
                out = powers.at(t) - e * t
            if out.is_finite():
                seen[0] = arb.max(seen[0], arb(out.lower()))
            return out

        bracket = _log_bracket(psi)
        tol = options()["tol"]
        k = _amplification(e, bracket) if powers.proved else 1.0
        if k > 1:  # (the callers warn when the result misses the tolerance)
            with pld_options(tol=max(tol / (2 * k), TOL_MIN)):
                ball = arb_max_concave(psi, bracket=bracket)
        else:
            ball = arb_max_concave(psi, bracket=bracket)
        # the log bracket's levels and the knots of piecewise-linear arguments count too:
        # where psi is flat at its maximum (f_{eps,delta} at its own eps) the golden section
        # stops undecided, and a level of the flat part may have been seen before it
        _at_knots(powers.args, psi)
        lo_b = arb.max(arb(ball.lower()), seen[0])
        lo = arb_endpoint(arb.max(lo_b, arb(0)).lower(), round_floor)
        hi = arb_endpoint(arb.min(arb(ball.upper()), arb(1)).upper(), round_ceiling)
    if powers.proved and not _meets(lo, hi, tol):
        lo, hi = _least_profile(powers.args, eps, lo, hi)
    trace.note(ROUTE)
    return CertifiedPair(lo, hi) if powers.proved else (lo, hi)


#: The most knots of a piecewise-linear argument at which psi is evaluated.
MAX_KNOTS = 64


def _at_knots(args: Sequence[TradeOff], psi: Callable[[arb], arb]) -> None:
    """psi at (exact dyadic points next to) the knots of the piecewise-linear arguments (the
    caller records the largest lower end: each is a value psi attains, so a lower bound of
    its maximum). Where such an argument's power is the least one, psi is linear between its
    knots, and its maximum is at a knot or on a segment where psi is constant."""
    for g in args:
        k = pl_knots_cached(g)
        if k is None or len(k) > MAX_KNOTS:
            continue
        for x, _ in k:
            try:
                t = arb(arb_ball(sp.sympify(x)).mid())
            except ValueError:
                continue
            if 0 < t < 1:
                psi(t)


def _meets(lo, hi, tol: float) -> bool:
    """Is [lo, hi] within the relative tolerance (an exact 0 meets every one)?"""
    return hi == 0 or hi - lo <= tol * hi


def _least_profile(args: Sequence[TradeOff], eps, lo, hi) -> tuple:
    """[lo, hi] cut by min_i delta_i(eps) from the arguments' certified profiles: max_i f_i
    >= f_j, so delta_max <= delta_j for every j (Prop. 6: a larger trade-off function has a
    smaller profile). Asked only where the search missed the tolerance: an argument whose
    delta is 0 there (L_1 at eps >= 1; the search's chords come near 0 without reaching it)
    makes delta exactly 0, and one whose delta is the maximum's (f_{eps,delta} on its flat
    segment) closes the enclosure from above; so does a product whose delta is the
    maximum's where the search stopped at a kink (Mix(Max(G_1, G_1/2 (x) L_1/2), 1/5) at
    eps(1e-3): 0.19 % wide, the product's proved delta closes it to 0.04 %)."""
    for g in args:
        b = certified_delta_ball(g, eps)
        if b is None or not b.is_finite():
            continue
        up = arb_endpoint(arb.max(b, arb(0)).upper(), round_ceiling)
        if up < hi:
            hi = max(up, lo)
            if hi == 0:
                return mp.zero, mp.zero
    return lo, hi


#: The name of the route through the arguments' certified profiles in ``Value.route``.
ROUTE_PROFILES = ("concave search on the powers of the maximum's arguments (Prop. 6), bounded "
                  "through an argument's certified privacy profile")


def _by_profiles(args: Sequence[TradeOff], eps) -> tuple | None:
    """delta of the maximum where an argument's power is an estimate but its privacy profile
    is certified (``max_profiles``): a CertifiedPair, or None (the caller's conjugate of the
    values) where such a profile is not proved either."""
    t = arb(1) / 16
    cert, prof = [], []
    for g in args:
        p = _Powers([g])
        p.at(t)
        (cert if p.proved else prof).append(g)
    for g in prof:
        if certified_delta_ball(g, eps) is None:
            return None
    powers = _Powers(cert)

    def power_of(x):
        return powers.at_zero() if x == 0 else powers.at(x)

    r = profile_max_delta(cert, [ProfilePower(g) for g in prof], power_of, eps,
                          options()["tol"], _log_bracket)
    if r is None or not powers.proved:
        return None
    trace.note(ROUTE_PROFILES)
    return r
