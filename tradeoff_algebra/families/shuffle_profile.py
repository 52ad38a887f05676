"""The privacy profile of the shuffle pair by slices: delta(eps) in O(sqrt(n log(1/tau))) Arb
operations, without the table of atoms.

With the pair of :mod:`.shuffle` (``P(a, b) = (E a + b) K``, ``Q(a, b) = (E b + a) K``, ``K =
B_n(s) b_s(a)/n``, ``s = a + b``), the hockey-stick divergence (Dong, Roth & Su, Prop. 6) is

    delta(eps) = sum_s B_n(s)/n sum_{a <= M_s} b_s(a) ((s - a) c1 - a c2),
    c1 = E - e^eps,  c2 = E e^eps - 1,  M_s = the largest a with (s - a) c1 > a c2,

every term of the inner sum positive (``Q - e^eps P > 0`` exactly on ``a < s c1/(c1 + c2)``).
Writing the inner sum from its top term, ``b_s(M) (base R0 + (c1 + c2) R1)`` with ``base = (s -
M) c1 - M c2 > 0``, ``R0 = sum_j rho_j``, ``R1 = sum_j j rho_j`` and ``rho_j = b_s(M - j)/b_s(M)``
(all terms non-negative: no cancellation), the slices follow each other by recurrences

    M -> M + 1:  R0' = 1 + q R0,  R1' = q (R1 + R0),  q = (M + 1)/(s - M)     (contracting)
    s -> s + 1:  R0' = (R0 - 1/2) g,  R1' = (R1 - (R0 - 1)/2) g,  g = 2 (s + 1 - M)/(s + 1)

(``X_{s+1} = X_s + Bernoulli(1/2)``), which grow the relative error by about ``2 (1 - t)
(t/(1 - t))^t`` per slice (``t = c1/(c1 + c2) <= 1/2``). Arb carries the error; the sums are
restarted from their series (``rho_j`` by the ratio ``(M - j + 1)/(s - M + j)``, the tail bounded
geometrically) whenever the balls have lost ``RESTART_BITS`` bits. The slices outside
``[s_lo, s_hi]`` (chosen by Chernoff bounds) are bounded by ``c1 P(Binom(n, theta) outside)``
(each slice's inner sum is at most ``c1 s``, and ``B_n(s) s/n <= B_n(s)``).
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp
from mpmath.libmp import round_ceiling, round_floor

from ..core import trace
from ..core.errors import NumericalError
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.arb_expr import arb_ball
from ..numeric.context import arb_precision, mp
from ..numeric.precision_loop import precision_loop
from ..numeric.value import CertifiedPair
from .shuffle_pair import MAX_N, _outside_slices, _slice_masses, _slices

__all__ = ["slice_delta", "slice_profile"]

#: Most slices s the profile sums (each a few Arb operations); beyond, refused at once.
MAX_SLICES = 2 * 10**7

#: Bits of relative accuracy the recurrences may lose before the sums are recomputed from
#: their series.
RESTART_BITS = 24


def _series(s: int, M: int, prec: int):
    """(R0, R1) at slice s with top index M, from the series (module docstring), each an arb
    with the truncated tail inside its radius."""
    from flint import arb

    r0, r1 = arb(1), arb(0)
    rho = arb(1)
    eps = arb(2) ** (-prec - 8)
    for j in range(1, M + 1):
        rho = rho * (M - j + 1) / (s - M + j)
        r0 += rho
        r1 += j * rho
        if j & 31 == 0 and rho < eps * r0:  # the rest: ratios at most r = (M - j)/(s - M + j + 1)
            r = arb(M - j) / (s - M + j + 1)
            if r < 1:
                t0 = rho * r / (1 - r)
                t1 = rho * (j * r / (1 - r) + r / ((1 - r) * (1 - r)))
                return r0 + arb(0).union(t0), r1 + arb(0).union(t1)
    return r0, r1


def _log_binom_half(s: int, a: int):
    """log b_s(a) = log C(s, a) - s log 2 in Arb."""
    from flint import arb

    return (arb(s + 1).lgamma() - arb(a + 1).lgamma() - arb(s - a + 1).lgamma()
            - s * arb(2).log())


def _fresh_state(s: int, M: int, prec: int) -> tuple:
    """The state ``(M, b, R0, R1, fresh)`` of slice s with top index M: ``b = b_s(M)`` and the
    sums from their series (:func:`_series`), ``fresh`` the bits of R0 then."""
    b = _log_binom_half(s, M).exp()
    R0, R1 = _series(s, M, prec)
    return M, b, R0, R1, R0.rel_accuracy_bits()


def _next_state(state: tuple, s: int, M2: int, prec: int) -> tuple:
    """The state of slice s - 1 moved to slice s with the same M (``X_s = X_{s-1} +
    Bernoulli(1/2)``), then M up to the new top M2 (the recurrences of the module docstring);
    from the series instead where M2 < M or R0 has lost :data:`RESTART_BITS` since its last
    series. The walk of the profile and of the power's tails (:mod:`.shuffle_roc`)."""
    from flint import arb

    M, b, R0, R1, fresh = state
    g = arb(2 * (s - M)) / s
    R0, R1 = (R0 - arb(1) / 2) * g, (R1 - (R0 - 1) / 2) * g
    b = b * s / (2 * (s - M))
    if M2 < M or R0.rel_accuracy_bits() < fresh - RESTART_BITS:
        return _fresh_state(s, M2, prec)
    while M < M2:
        q = arb(M + 1) / (s - M)
        R0, R1 = 1 + q * R0, q * (R1 + R0)
        b = b * (s - M) / (M + 1)
        M += 1
    return M, b, R0, R1, fresh


def _top(s: int, c1, c2, guess: int) -> tuple[int, bool]:
    """(M, ambiguous): the largest a in [0, s] with (s - a) c1 > a c2, searched from ``guess``;
    ``ambiguous`` when the Arb balls cannot decide the sign at a = M (its term is then within
    the balls of 0 and is kept with its base clipped at 0)."""
    M = min(max(guess, 0), s)
    while M > 0 and (s - M) * c1 < M * c2:
        M -= 1
    while M < s and (s - M - 1) * c1 > (M + 1) * c2:
        M += 1
    base = (s - M) * c1 - M * c2
    return M, not base > 0


def slice_delta(E, ee, n: int, s_lo: int, s_hi: int, prec: int):
    """Arb enclosure of delta(eps) of ShuffleDP(eps0, n), ``E = e^eps0`` and ``ee = e^eps``
    arbs with ``ee < E``, from the slices ``s_lo..s_hi`` (1 <= s_lo <= s_hi <= n) plus the
    Chernoff bound of the others (module docstring). Runs at the current Arb precision
    ``prec``; the caller raises it until the ball is narrow enough."""
    from flint import arb

    c1, c2 = E - ee, E * ee - 1
    cc = c1 + c2
    t = float((c1 / cc).mid())
    total = arb(0)
    M, amb = _top(s_lo, c1, c2, math.ceil(s_lo * t) - 1)
    state = _fresh_state(s_lo, M, prec)
    for s, B in _slice_masses(E, n, s_lo, s_hi):
        if s > s_lo:
            M2, amb = _top(s, c1, c2, state[0])
            state = _next_state(state, s, M2, prec)
        M, b, R0, R1, _ = state
        base = (s - M) * c1 - M * c2
        if amb:
            base = arb(0).union(base.upper()) if base.upper() > 0 else arb(0)
        total += B * b * (base * R0 + cc * R1)
    total = total / n
    # the slices outside [s_lo, s_hi]: each at most c1 B_n(s), Chernoff bounds of both tails
    tail = _outside_slices(E, n, s_lo, s_hi)
    return total + arb(0).union(c1 * tail)



def slice_profile(eps0: sp.Expr, n: int, eps: Any) -> CertifiedPair | None:
    """delta(eps) of ShuffleDP(eps0, n) (``0 <= eps < eps0`` an mpf) proved by
    :func:`slice_delta` to the working precision relative to its value (a point), or its
    enclosure after the steps allowed; None where ``e^eps < e^eps0`` is not decided by the balls
    (eps within rounding of eps0: the caller's route decides)."""
    from flint import arb

    p = mp.prec
    e0 = float(eps0)
    if n > MAX_N:
        raise NumericalError(f"ShuffleDP(eps0, n) with n = 10^{math.log10(n):.1f}: the numeric "
                             f"routes are limited to n <= {MAX_N:.0e} (MAX_N)")

    def compute(state):
        w, tb = state
        s_lo, s_hi = _slices(e0, n, -tb * math.log(2.0))
        if s_hi - s_lo + 1 > MAX_SLICES:
            raise NumericalError(f"ShuffleDP({eps0}, {n}): delta at this precision sums "
                                 f"{s_hi - s_lo + 1} slices, beyond MAX_SLICES = {MAX_SLICES}; "
                                 "ask for fewer digits (dps) or use a smaller n")
        with arb_precision(w):
            E, ee = arb_ball(sp.exp(eps0)), arb_exact(eps).exp()
            if not ee < E:
                return None, True, None
            d = slice_delta(E, ee, n, s_lo, s_hi, w)
            lo, hi = max(d.lower(), arb(0)), d.upper()
            if hi <= 0:
                return CertifiedPair(mp.zero, mp.zero), True, None
            width, tol = hi - lo, hi * arb(2) ** (-p - 2)
            need = max(-float(hi.log().mid()) / math.log(2.0), 0.0)
            if width <= tol:
                v = arb_endpoint(((lo + hi) / 2).mid(), round_floor)
                return CertifiedPair(v, v), True, None
            pair = CertifiedPair(arb_endpoint(lo, round_floor), arb_endpoint(hi, round_ceiling))
            return pair, False, (2 * w, max(tb, int(p + 16 + need)))

    def give_up(r, prev, state):
        return r

    first = (p + 64, int(p + 24 + 2 * math.log2(n + 1)))
    trace.note("slice sums of the shuffle pair in Arb")
    return precision_loop(compute, first, done=lambda r, _: r[1], grow=lambda r, st: r[2],
                          max_steps=5, give_up=give_up)[0]
