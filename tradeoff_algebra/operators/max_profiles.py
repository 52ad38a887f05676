"""delta of a maximum whose argument has a certified privacy profile but only an estimate of its
power.

``max_delta`` searches psi(alpha) = min_i P_i(alpha) - e^eps alpha, P_i = 1 - f_i, on the
arguments' proved powers. An argument g whose power is an estimate (a product answered by the
PLD engine, say Mix(G_1, 1/5)^{(x)3}, whose delta the Laplace inversion proves) still has

    P_g(alpha) = inf_{v > 0} h(v),   h(v) = delta_g(v) + v alpha,

delta_g(v) = sup_S {Q(S) - v P(S)} written as a function of v = e^eps (Dong, Roth & Su, Prop. 6:
f = sup of the f_{eps, delta(eps)}); for v < 1, delta_g(v) = 1 - v + v delta_{g^-1}(1/v)
(complements: Q(S) - v P(S) = 1 - v - (Q(S^c) - v P(S^c)) with S^c, and the profile of T(Q, P)).
delta_g(v) is a supremum of lines of slope -P(S) in v, so h is convex, with h(0+) = 1.

Two bounds, each certified from balls of delta_g (an mpf eps, then moved to the exact level v
by monotonicity and the slope bound |d delta/dv| <= 1):

* above: every v_k gives P_g(alpha) <= delta_g(v_k) + v_k alpha for all alpha at once, so
  P_g <= Pbar(alpha) = min_k {upper end of delta_g(v_k) + v_k alpha}, a concave piecewise-linear
  majorant, and psibar = min(proved powers, Pbar) - e^eps alpha is concave and >= psi: the
  certified concave search on psibar (``numeric.concave.arb_max_concave``) encloses its maximum,
  whose upper end bounds delta from above;
* below: at the best level alpha^ of that search, psi(alpha^) <= delta needs a lower bound of
  P_g(alpha^) = min h: the certified concave search on -h over a bracket [a, b] of v whose ends are
  proved to lie above an inner point (h convex: the minimum of h over all v > 0 is then inside
  [a, b]) encloses min h, and its lower end serves.

The minimiser v^ of that inner search is added to the v_k (the majorant then touches P_g at
alpha^, to second order in v^'s error) and the two searches repeat until they meet the
tolerance. Only delta_g at the v the inner searches visit is computed (a few dozen per round).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from flint import arb
from mpmath.libmp import round_ceiling, round_floor

from ..core.node import TradeOff
from ..numeric import budget
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.concave import arb_max_concave
from ..numeric.context import mp
from ..numeric.protocol import enclose_delta
from ..numeric.value import CertifiedPair
from .profile_ball import profile_ball

__all__ = ["ProfilePower", "certified_delta_ball"]

#: Rounds of (majorant search, inner search at its best level) before giving up on the
#: tolerance (the enclosure proved so far is returned).
MAX_ROUNDS = 8
#: The inner bracket doubles v at most this many times from e^eps (v up to 2^-60 .. 2^60 e^eps).
MAX_DOUBLINGS = 60


def certified_delta_ball(g: TradeOff, eps) -> arb | None:
    """delta_g(eps) at an mpf eps >= 0 as a certified ball: the cheap certified routes
    (``profile_ball``), else the node's own route when it returns a CertifiedPair (the
    Laplace inversion of a product); None where neither is proved."""
    b = profile_ball(g, eps)
    if b is not None and b.is_finite():
        return b
    pair = enclose_delta(g, eps)
    if not isinstance(pair, CertifiedPair):
        return None
    return arb_exact(mp.mpf(pair[0])).union(arb_exact(mp.mpf(pair[1])))


class ProfilePower:
    """Bounds of the power of ``g`` from certified balls of its privacy profile (module
    docstring). ``proved`` turns False at the first delta that is not certified."""

    def __init__(self, g: TradeOff):
        self.g = g
        self.inv = g if g.is_symmetric is True else g.inverse()
        self.proved = True
        self._delta: dict = {}
        self.lines: list[tuple[arb, arb]] = []  # (v_k, upper end of delta_g(v_k))

    def _profile(self, node: TradeOff, w: arb) -> arb:
        """delta_node at the level w >= 1 (an exact ball): certified at the mpf e = log w
        rounded down (e^e <= w), then delta(w) in [delta(e^e) - (w - e^e), delta(e^e)]."""
        e = arb_endpoint(arb(w.log().lower()).lower(), round_floor)
        e = max(e, mp.zero)
        b = certified_delta_ball(node, e)
        if b is None:
            self.proved = False
            return arb(0).union(arb(1))
        slack = arb.max(w - arb_exact(e).exp(), arb(0))
        return arb(arb.max(arb(b.lower()) - slack, arb(0)).lower()).union(
            arb(arb.min(arb(b.upper()), arb(1)).upper()))

    def delta(self, v: arb) -> arb:
        """delta_g(v) for an exact v > 0 (v < 1 through the inverse's profile)."""
        key = v.mid().str(40, radius=False)
        if key not in self._delta:
            if v >= 1:
                d = self._profile(self.g, v)
            else:
                d = 1 - v + v * self._profile(self.inv, 1 / v)
            self._delta[key] = d
        return self._delta[key]

    def add_line(self, v: arb) -> None:
        self.lines.append((v, arb(self.delta(v).upper())))

    def upper(self, alpha: arb) -> arb:
        """Pbar(alpha) = min(1, min_k delta_g(v_k) + v_k alpha): >= P_g(alpha) (a ball whose
        upper end is the bound)."""
        out = arb(1)
        for v, d in self.lines:
            out = arb.min(out, d + v * alpha)
        return arb(out.upper())

    def lower(self, alpha: arb, v0: arb) -> tuple[arb | None, arb | None]:
        """(a lower bound of P_g(alpha) = min_v h(v), the best v seen), or (None, None) where
        the bracket of the minimiser is not proved. The bracket: from v0, double (or halve) v
        while h certainly falls; the last three levels hold the minimiser of the convex h (the
        ends certainly above the middle), then the concave search on -h inside them."""
        seen: list = []

        def h(v):
            if v == 0:
                return arb(1)  # delta_g(0+) = sup_S Q(S) = 1
            out = self.delta(v) + v * alpha
            seen.append((arb(out.upper()), v))
            return out

        h0, up = h(v0), h(2 * v0)
        if up < h0:  # falls to the right
            step, prev, cur, hc = 2, v0, 2 * v0, up
        else:
            down = h(v0 / 2)
            if down < h0:
                step, prev, cur, hc = 0.5, v0, v0 / 2, down
            elif up > h0 and down > h0:
                step = None
                a, b = v0 / 2, 2 * v0
            else:
                return None, None
        if step is not None:
            for _ in range(MAX_DOUBLINGS):
                budget.check()
                nxt = cur * step
                hn = h(nxt)
                if hn > hc:
                    a, b = (prev, nxt) if step == 2 else (nxt, prev)
                    break
                if not hn < hc:
                    return None, None
                prev, cur, hc = cur, nxt, hn
            else:
                if step == 2:
                    return None, None
                a, b = arb(0), prev  # h(0+) = 1 >= every value: the minimiser is in [0, prev]
        if not (self.proved and a < b):
            return None, None

        def neg(t):
            return -h(t)

        ball = arb_max_concave(neg, bracket=(a, b, neg(a), neg(b)))
        if ball is None or not self.proved:
            return None, None
        best = min(seen, key=lambda s: float(s[0].mid()))[1] if seen else None
        return arb(-ball.upper()), best


def profile_max_delta(certified: Sequence[TradeOff], profiled: Sequence[ProfilePower],
                      power_of: Callable[[arb], arb], eps, tol: float,
                      bracket_of: Callable) -> CertifiedPair | None:
    """delta(eps) of the maximum of ``certified`` (whose least power ``power_of`` gives as a
    proved ball at every level, 0 included) and of the arguments ``profiled`` (module
    docstring), as a CertifiedPair, or None where a profile is not proved. ``bracket_of(psi)``
    is the caller's log-scale bracket of a concave maximum."""
    e = arb_exact(eps).exp()
    v0 = arb(e.mid())
    for p in profiled:  # the first majorant: lines at e^eps and around it
        for k in (-4, -2, -1, 0, 1, 2, 4):
            p.add_line(v0 * arb(2) ** k)
            if not p.proved:
                return None
    lo, hi = arb(0), arb(1)
    seen: list = []
    for _ in range(MAX_ROUNDS):
        budget.check()
        seen.clear()

        def psibar(t):
            if t == 1:
                return 1 - e  # f(1) = 0 for every trade-off function
            out = power_of(t) if certified else arb(1)
            for p in profiled:
                out = arb.min(out, p.upper(t))
            out = out - e * t
            seen.append((arb(out.lower()), t))
            return out

        ball = arb_max_concave(psibar, bracket=bracket_of(psibar))
        if ball is None:
            return None
        hi = arb.min(hi, arb(ball.upper()))
        alpha = max(seen, key=lambda s: float(s[0].mid()))[1] if seen else arb(1) / 2
        low = power_of(alpha) if certified else arb(1)
        for p in profiled:
            pl, v_best = p.lower(alpha, v0)
            if pl is None:
                return None
            low = arb.min(low, pl)
            if v_best is not None:
                p.add_line(v_best)
        lo = arb.max(lo, arb((low - e * alpha).lower()))
        if hi - lo <= tol * hi or hi <= 0:
            break
    lo_m = arb_endpoint(arb.max(lo, arb(0)).lower(), round_floor)
    hi_m = arb_endpoint(arb.max(hi, arb(0)).upper(), round_ceiling)
    return CertifiedPair(min(lo_m, hi_m), hi_m)

