"""The privacy profile of an operator node from certified values of its power, and its inverse's.

Dong, Roth & Su, Prop. 6 (Eq. (5) through the convex conjugate): with v = e^eps,

    delta_f(eps) = sup_{alpha in [0, 1]} psi(alpha),   psi(alpha) = 1 - f(alpha) - v alpha.

Why psi is concave. Every trade-off function is convex (Prop. 1), so psi, the power 1 - f
(concave) less a line, is concave. For the operators this module serves:

* ``Group(f, k)`` = 1 - (1 - f)^{o k} (Thm. 3): g = 1 - f is concave and non-decreasing on
  [0, 1] (f convex, non-increasing), and a composition of concave non-decreasing maps is
  concave and non-decreasing (g(h(x)) for x = l x1 + (1 - l) x2: h(x) >= l h(x1) + (1 - l)
  h(x2) and g non-decreasing, then g concave), so the power g^{o k} is concave;
* ``Inverse(f)`` = T(Q, P) for f = T(P, Q) (Eq. (3), the discussion after Prop. 2): a
  trade-off function, convex;
* ``Symmetrize(f)`` = max{f, f^{-1}} (Prop. 2): a maximum of convex functions, convex; its
  power min{1 - f, 1 - f^{-1}} is concave;
* ``Shift(f, t)``, which has no profile route of its own: a translate of a trade-off
  function along the diagonal, or the greatest convex minorant of one (Thm. 5, Eq. (9)), is a
  trade-off function, so convex (Prop. 1) (:func:`node_delta`).

The search (:func:`sup_concave`). psi is given as Arb balls at exact dyadic levels. Any level's
lower end is a value psi attains, so the largest lower end seen bounds the supremum from below.
From above, concavity: the secant slopes of a concave function do not increase, so on [b, c]
between evaluated neighbours a < b < c < d the graph lies below the lower envelope of the
secants through (a, b) and through (c, d), extended (each ball's upper end taken where a line
passes through it and its lower end where it pivots); the supremum is at most the largest of
these bounds over all the intervals. The levels start with those of a bracket of a maximiser
on the scale of log(alpha), where a small delta's maximiser lives (``max_delta._log_bracket``:
psi is unimodal in log alpha), and psi is then evaluated in the interval of the largest bound,
where that bound is attained (the secants' crossing: the kink itself where psi is piecewise
linear, f_{eps,delta} under a group; a flat top, a segment of f of ratio e^eps, leaves the
bounds flat too), until the upper bound meets the lower one to the working precision, or to
the tolerance of ``pld_options`` once a few dozen levels are spent. The enclosure is valid
wherever the search stops; a tighter tolerance only runs it longer, so it is never wider.

The inverse without inverting (:func:`inverse_delta`). For f^{-1} the levels alpha = f(t) trace
its whole graph: f^{-1}(f(t)) <= t, with equality for the t = f^{-1}(alpha) of every alpha in
[0, f(0)] (f is continuous), and alpha > f(0) gives 1 - v alpha < 1 - v f(0). So

    delta_{f^{-1}}(eps) = sup_{t in [0, 1]} {1 - t - v f(t)} = sup_{s in [0, 1]} {s - v f(1 - s)},

concave in s (f convex), from f's certified values at the exact levels (1 - s, s): no bisection
for f^{-1}, and a small delta's maximiser (s near 0) keeps its digits on the log scale of s.

Epsilon in one search (:func:`power_epsilon`). delta(eps) <= d iff N(alpha) = P(alpha) - d <=
e^eps alpha for every alpha in [0, 1] (P the power), so e^eps(d) = sup_{alpha in (0, 1]}
N(alpha)/alpha once N(0) <= 0, and eps = max(0, log of it): one search over alpha
(:func:`sup_ratio`) instead of a bracketing search asking delta at 20-50 eps. N is concave, so
on [b, c] it lies below the neighbours' secants extended, and each secant line over alpha is
monotone on [b, c]: the sup of the bound is at an end or at the secants' crossing. Near 0 the
secant from the right both proves N(0) <= 0 and bounds the first interval once its value at 0
is <= 0; where it never is (d = 1 - f(0), or a steep power at 0) the search gives None and the
bracketing search runs. For an inverse, without inverting (:func:`inverse_epsilon`): delta <= d
iff 1 - d - t <= e^eps f(t) for t in [0, 1 - d], so e^-eps = inf_t f(t)/(1 - d - t), the same
search on -f(1 - d - u)/u, concave in u.

A certified result is a :class:`~..numeric.value.CertifiedPair`; where a node has no ball form
the callers keep their estimates (the convex conjugate of the values).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from flint import arb, ctx
from mpmath.libmp import round_ceiling, round_floor

from ..core import trace
from ..core.node import TradeOff
from ..numeric import budget
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.context import ThreadCache, arb_precision, mp
from ..numeric.options import options
from ..numeric.protocol import (
    ARB_GUARD_BITS,
    arb_value,
    conjugate_delta,
    mp_delta,
    mp_epsilon,
)
from ..numeric.value import CertifiedPair
from .max_delta import _log_bracket
from .shift import Shift

__all__ = ["sup_concave", "power_delta", "inverse_delta", "symmetrized_delta",
           "unbounded_epsilon", "power_epsilon", "inverse_epsilon",
           "sup_ratio", "node_delta", "node_epsilon",
           "ROUTE", "ROUTE_INVERSE", "ROUTE_SYMMETRIZED", "ROUTE_EPSILON",
           "ROUTE_EPSILON_INVERSE"]

#: The name of the route through the node's own powers in ``Value.route``.
ROUTE = "concave search on the node's certified powers (Prop. 6)"
#: The name of the route through the operand's values for an inverse.
ROUTE_INVERSE = "concave search on the operand's certified values, sup_t {1 - t - e^eps f(t)}"

#: Balls of powers and values at exact levels, by (node, kind, level, precision): the levels of
#: the log bracket are the same at every eps, so an epsilon search reuses them.
_CACHE = ThreadCache()
#: The most balls kept (the cache is emptied beyond).
MAX_CACHED = 8192
#: The golden section's steps at most (each one shrinks the bracket by 0.618).
MAX_STEPS = 400
#: The levels evaluated before the search may stop at the tolerance of ``pld_options`` rather
#: than the working precision (cheap powers reach the working precision within them).
MIN_EVALUATIONS = 48


def _cached(key: tuple, make: Callable[[], arb | None]) -> arb | None:
    hit = _CACHE.get(key)
    if hit is None:
        hit = _CACHE[key] = (make(),)
        if len(_CACHE) > MAX_CACHED:
            _CACHE.clear()
            _CACHE[key] = hit
    return hit[0]


def _ball(g: TradeOff, s: arb, power: bool, flip: bool) -> arb | None:
    """g's power (``power``) or value at the exact level s (at 1 - s with ``flip``), a finite
    ball or None."""
    man, exp = s.mid().man_exp()

    def make():
        a, ac = (1 - s, s) if flip else (s, 1 - s)
        try:
            b = arb_value(g, a, ac, power)
        except ValueError:  # a parameter Arb cannot enclose
            return None
        return b if b is not None and b.is_finite() else None

    return _cached((g, power, flip, int(man), int(exp), ctx.prec), make)


def _interval_bound(xs: list, ps: list, i: int) -> tuple:
    """(an upper bound of psi on [x_i, x_{i+1}], the level where it is attained) from the
    neighbours' secants (module docstring): for t >= x_i, psi(t) <= psi(x_i) + s (t - x_i)
    with s an upper bound of the secant slope over (x_{i-1}, x_i); for t <= x_{i+1},
    psi(t) <= psi(x_{i+1}) + r (x_{i+1} - t) with -r a lower bound of the slope over
    (x_{i+1}, x_{i+2}). The bound is the larger of the two lines' minimum at the ends and at
    their crossing; each ball's upper end is taken where a line passes and its lower end
    where it pivots, so every step rounds the right way."""
    x0, x1 = xs[i], xs[i + 1]
    h0, h1 = arb(ps[i].upper()), arb(ps[i + 1].upper())
    s = (h0 - arb(ps[i - 1].lower())) / (x0 - xs[i - 1]) if i > 0 else None
    r = (h1 - arb(ps[i + 2].lower())) / (xs[i + 2] - x1) if i + 2 < len(xs) else None
    if s is None and r is None:
        return arb.max(h0, h1) + arb(1), (x0 + x1) / 2  # (no neighbours: [0, 1] alone)
    inf = None

    def line_l(t):
        return inf if s is None else h0 + s * (t - x0)

    def line_r(t):
        return inf if r is None else h1 + r * (x1 - t)

    def low(u, v):
        return v if u is None else (u if v is None else arb.min(u, v))

    best, where = low(line_l(x0), line_r(x0)), x0
    end = low(line_l(x1), line_r(x1))
    if end > best:
        best, where = end, x1
    if s is not None and r is not None and s + r > 0:
        tx = (h1 - h0 + s * x0 + r * x1) / (s + r)
        if tx > x0 and tx < x1:
            cross = low(line_l(tx), line_r(tx))
            if not cross < best:
                best, where = arb.max(best, cross), tx
    return arb(best.upper()), where


def _levels(fn: Callable[[arb], arb | None]):
    """(at, pts, failed): ``at(t)`` the ball of ``fn`` at the exact level ``t``, each level
    computed once (``pts``: its key -> (t, ball)); where ``fn`` gives None or a non-finite ball,
    ``failed[0]`` is set and the ball [-1, 1] (deciding nothing) stands in."""
    pts: dict = {}
    failed = [False]

    def at(t):
        key = t.mid().str(60, radius=False)
        if key not in pts:
            out = fn(t)
            if out is None or not out.is_finite():
                failed[0] = True
                out = arb(0).union(arb(1)) * 2 - 1  # [-1, 1]: decides nothing
            pts[key] = (t, out)
        return pts[key][1]

    return at, pts, failed


def _insert(xs: list, vals: list, bounds: list, k: int, t: arb, v: arb, bound) -> None:
    """Insert the level ``t`` (ball ``v``) inside interval k and refresh the bounds of the
    intervals that read the levels around it (``bound(xs, vals, i)``: k - 1 .. k + 1 before,
    k - 1 .. k + 2 after), in place."""
    xs.insert(k + 1, t)
    vals.insert(k + 1, v)
    lo_i = max(k - 1, 0)
    bounds[lo_i:min(k + 2, len(bounds))] = [
        bound(xs, vals, i) for i in range(lo_i, min(k + 3, len(xs) - 1))]


def _search(fn: Callable[[arb], arb | None], bound: Callable, enough: Callable,
            probe: Callable | None = None) -> tuple | None:
    """The refinement both searches share (:func:`sup_concave` for delta, :func:`sup_ratio`
    for eps): ``(xs, vals, bounds)`` at the end, or None where ``fn`` gave None.

    ``fn`` is evaluated at the levels of the log bracket (``_log_bracket`` on ``probe(at)``,
    ``at`` itself by default) and at 0 and 1; then, until ``enough(xs, vals, bounds)``, at the
    level where the largest of the intervals' bounds (``bound(xs, vals, i)``: an upper bound of
    the searched quantity on [x_i, x_{i+1}] and where it is attained) is attained, kept within
    the interval's middle half (so the interval shrinks by at least a quarter) except on a
    first interval without a finite bound (its level x_1/16 walks towards 0). It stops early
    when that interval is as narrow as the precision (the first one [0, x_1] never is), when
    the level is not strictly inside it, or after :data:`MAX_STEPS` levels."""
    at, pts, failed = _levels(fn)
    _log_bracket(at if probe is None else probe(at))
    at(arb(0))
    at(arb(1))
    if failed[0]:
        return None
    order = sorted(pts.values(), key=lambda q: float(q[0].mid()))
    xs = [q[0] for q in order]
    vals = [q[1] for q in order]
    bounds = [bound(xs, vals, i) for i in range(len(xs) - 1)]
    rel = arb(2) ** (16 - ctx.prec)
    for _ in range(MAX_STEPS):
        if enough(xs, vals, bounds):
            break
        k = max(range(len(bounds)),
                key=lambda i: math.inf if not bounds[i][0].is_finite() else bounds[i][0].mid())
        x0, x1 = xs[k], xs[k + 1]
        w = x1 - x0
        if not w > abs(x1) * rel and k > 0:
            break
        budget.check()
        t = bounds[k][1]
        if k > 0 or bounds[k][0].is_finite():
            t = arb.min(arb.max(t, x0 + w / 4), x1 - w / 4)
        t = arb(t.mid())
        if not (x0 < t and t < x1):
            break
        v = at(t)
        if failed[0]:
            return None
        _insert(xs, vals, bounds, k, t, v, bound)
    return xs, vals, bounds


def _largest_bound(bounds: list) -> arb:
    """The largest of the intervals' upper bounds (a ball; +oo where one is infinite)."""
    hi = bounds[0][0]
    for b, _ in bounds:
        hi = arb.max(hi, b)
    return arb(hi)


def sup_concave(psi: Callable[[arb], arb | None], tol: float) -> tuple | None:
    """(a ball holding sup_{s in [0, 1]} psi(s), the level whose ball has the largest lower
    end) for a concave psi given as balls at exact levels (module docstring), or None where
    psi gives None.

    :func:`_search` with the bounds of :func:`_interval_bound`, until the largest upper bound
    over the intervals meets the largest lower end seen to the working precision, or to the
    relative width ``tol`` after :data:`MIN_EVALUATIONS` levels."""
    rel = arb(2) ** (16 - ctx.prec)

    def enough(xs, ps, bounds):
        best = arb(max((p.lower() for p in ps), key=lambda b: b.mid()))
        hi = _largest_bound(bounds)
        gap = hi - best
        return bool(gap <= rel * abs(best)
                    or (len(xs) >= MIN_EVALUATIONS and gap <= tol * abs(hi)))

    found = _search(psi, _interval_bound, enough)
    if found is None:
        return None
    xs, ps, bounds = found
    j = max(range(len(ps)), key=lambda i: ps[i].lower())
    best = arb(ps[j].lower())
    return best.union(arb.max(_largest_bound(bounds), best)), xs[j]


def _ratio_bound(xs: list, ns: list, i: int) -> tuple:
    """(an upper bound of N(t)/t on [x_i, x_{i+1}], the level where it is attained) for a
    concave N given as balls ``ns`` at the levels ``xs`` (x_0 = 0).

    N lies below U, the lower envelope of the neighbours' secants extended (as in
    :func:`_interval_bound`). Each secant line l gives l(t)/t = l(0)/t + slope, monotone in
    t > 0, so U(t)/t is monotone on each side of the lines' crossing and its sup on the
    interval is at an end or at the crossing. On the first interval [0, x_1] only the right
    secant is there: l(0) <= 0 makes l(t)/t non-decreasing, bounded by l(x_1)/x_1 (and proves
    N(0) <= l(0) <= 0); l(0) > 0 leaves no bound (+oo, and the level x_1/16 to refine)."""
    x0, x1 = xs[i], xs[i + 1]
    h0, h1 = arb(ns[i].upper()), arb(ns[i + 1].upper())
    s = (h0 - arb(ns[i - 1].lower())) / (x0 - xs[i - 1]) if i > 0 else None
    r = (h1 - arb(ns[i + 2].lower())) / (xs[i + 2] - x1) if i + 2 < len(xs) else None
    if i == 0:
        if r is not None and (h1 + r * x1) <= 0:
            return arb((h1 / x1).upper()), x1
        return arb("inf"), x1 / 16
    if r is None:  # (the last interval: the left secant alone)
        cands = [(x0, h0), (x1, h0 + s * (x1 - x0))]
    else:
        cands = [(x0, arb.min(h0, h1 + r * (x1 - x0))), (x1, arb.min(h1, h0 + s * (x1 - x0)))]
    if r is not None and s + r > 0:
        tx = (h1 - h0 + s * x0 + r * x1) / (s + r)
        if tx > x0 and tx < x1:
            cands.append((tx, arb.min(h0 + s * (tx - x0), h1 + r * (x1 - tx))))
    best, where = None, x0
    for t, u in cands:
        q = arb((u / t).upper())
        if best is None or q > best:
            best, where = q, t
        elif not q <= best:
            best, where = arb.max(best, q), t
    return best, where


def _enough_exp(best: arb, hi: arb, levels: int, tol: float) -> bool:
    """The stopping rule on bounds [best, hi] of v = e^eps: v <= 1 proved (eps = 0), or the gap
    below the working precision on the scale of log (the relative gap times min(1, log v)), or
    below ``tol`` on that scale after :data:`MIN_EVALUATIONS` levels."""
    if not hi.is_finite():
        return False
    if hi <= 1:
        return True
    scale = arb.min(arb(1), arb.max(best, arb(1)).log())
    gap = hi - best
    rel = arb(2) ** (16 - ctx.prec)
    return bool(gap <= rel * best * scale or (levels >= MIN_EVALUATIONS
                                              and gap <= tol * hi * scale))


def sup_ratio(num: Callable[[arb], arb | None],
              enough: Callable[[arb, arb, int], bool]) -> tuple | None:
    """(a lower bound, an upper bound) of sup_{t in (0, 1]} N(t)/t, as Arb balls' ends, for a
    concave N with N(0) <= 0 given as balls at exact levels, or None where N gives None, the
    first interval [0, x_1] does not close (N(0) <= 0 unproved, or the slope at 0 too steep
    for :data:`MAX_STEPS` levels) or a bound stays infinite.

    The lower bound is the largest N(x)/x's lower end at the levels seen (a value attained);
    the upper bound the largest of :func:`_ratio_bound` over the intervals. The levels start
    with those of a bracket of a maximiser on the scale of log(t) (N(t)/t is unimodal: its
    derivative has the sign of t N'(t) - N(t), non-increasing as (t N' - N)' = t N'' <= 0,
    and non-negative at 0+ when N(0) <= 0); then N is evaluated in the interval of the largest
    bound (:func:`_search`, shared with :func:`sup_concave`) until ``enough(lower, upper,
    levels)`` (for eps, :func:`_enough_exp`), or the interval is as narrow as the precision, or
    after :data:`MAX_STEPS` levels."""

    def ratio(at):
        return lambda t: at(t) / t if t > 0 else arb(0).union(arb(1)) * 2 - 1

    def lower(xs, ns):
        return max((arb((ns[i] / xs[i]).lower()) for i in range(1, len(xs))),
                   key=lambda b: b.mid())

    found = _search(num, _ratio_bound,
                    lambda xs, ns, bounds: enough(lower(xs, ns), _largest_bound(bounds), len(xs)),
                    probe=ratio)
    if found is None:
        return None
    xs, ns, bounds = found
    hi = _largest_bound(bounds)
    if not hi.is_finite():
        return None
    best = lower(xs, ns)
    return best, arb.max(hi, best)


def power_epsilon(args: Sequence[TradeOff], d) -> CertifiedPair | None:
    """eps(d) of max{args} at an mpf d in [0, 1) in one search over alpha, or None (the
    bracketing search on delta).

    delta(eps) <= d iff N(alpha) = min_i (1 - f_i(alpha)) - d <= e^eps alpha for every alpha
    (Prop. 6), so e^eps(d) = sup_{alpha in (0, 1]} N(alpha)/alpha once N(0) <= 0 (proved by
    the first interval's bound, :func:`_ratio_bound`), and eps = max(0, log of it). N is
    concave (module docstring), so :func:`sup_ratio` encloses the sup."""
    if not mp.isfinite(d) or d < 0 or d >= 1:
        return None
    with arb_precision(mp.prec + ARB_GUARD_BITS):
        power = _power(args)
        if power is None:
            return None
        D = arb_exact(mp.mpf(d))

        def num(t):
            p = power(t)
            return None if p is None else p - D

        tol = options()["tol"]
        r = sup_ratio(num, lambda lo, hi, n: _enough_exp(lo, hi, n, tol))
        if r is None:
            return None
        lo = arb.max(r[0], arb(1)).log()
        hi = arb.max(r[1], arb(1)).log()
        pair = _pair_eps(lo, hi)
    trace.note(ROUTE_EPSILON)
    return pair


def inverse_epsilon(g: TradeOff, d) -> CertifiedPair | None:
    """eps(d) of g^{-1} at an mpf d in [0, 1) in one search over g's certified values (no
    inversion), or None (the bracketing search on delta).

    delta_{g^{-1}}(eps) = sup_t {1 - t - e^eps g(t)} (module docstring) is <= d iff
    1 - d - t <= e^eps g(t) for every t in [0, 1 - d] (beyond, 1 - t < d), so
    e^-eps(d) = inf_{u in (0, 1 - d]} G(u)/u with G(u) = g(1 - d - u) convex, G(0) = g(1 - d)
    (once positive). With u = (1 - d) w that is -S/(1 - d), S = sup_{w in (0, 1]} N(w)/w for
    the concave N(w) = -g((1 - d)(1 - w)), N(0) <= 0: :func:`sup_ratio`, and e^eps = -(1 - d)/S
    once S < 0 is proved (S in [lo, hi] gives e^eps in [-(1 - d)/lo, -(1 - d)/hi])."""
    if not mp.isfinite(d) or d < 0 or d >= 1:
        return None
    with arb_precision(mp.prec + ARB_GUARD_BITS):
        if _ball(g, arb(1) / 16, False, True) is None:
            return None
        c = 1 - arb_exact(mp.mpf(d))

        def num(w):
            a = c * (1 - w)
            try:
                v = arb_value(g, a, 1 - a, False)
            except ValueError:
                return None
            if (v is None or not v.is_finite()) and w == 1:  # g(0) in [0, 1]
                v = arb(0).union(arb(1))
            return None if v is None or not v.is_finite() else -v

        def exp_bounds(lo, hi):
            return -c / lo, -c / hi

        tol = options()["tol"]

        def enough(lo, hi, n):
            return bool(hi < 0) and _enough_exp(*exp_bounds(lo, hi), n, tol)

        r = sup_ratio(num, enough)
        if r is None or not r[1] < 0:
            return None
        vlo, vhi = exp_bounds(arb(r[0].lower()), arb(r[1].upper()))
        pair = _pair_eps(arb.max(vlo, arb(1)).log(), arb.max(vhi, arb(1)).log())
    trace.note(ROUTE_EPSILON_INVERSE)
    return pair


#: The name of the one search for the epsilon of an inverse in ``Value.route``.
ROUTE_EPSILON_INVERSE = ("one concave search for e^-eps = inf_t g(t)/(1 - delta - t) on the "
                         "operand's certified values (Prop. 6)")


#: The name of the one search for epsilon in ``Value.route``.
ROUTE_EPSILON = ("one concave search for e^eps = sup_alpha (1 - f(alpha) - delta)/alpha on the "
                 "node's certified powers (Prop. 6)")


def _pair_eps(lo: arb, hi: arb) -> CertifiedPair:
    """[lo's lower end, hi's upper end] as a CertifiedPair of mpfs rounded outward (>= 0)."""
    a = arb_endpoint(arb.max(arb(lo.lower()), arb(0)).lower(), round_floor)
    b = arb_endpoint(arb.max(arb(hi.upper()), arb(0)).upper(), round_ceiling)
    return CertifiedPair(min(a, b), b)


def _pair(ball: arb) -> CertifiedPair:
    """The ball cut to [0, 1] as a CertifiedPair of mpfs rounded outward."""
    lo = arb_endpoint(arb.max(arb(ball.lower()), arb(0)).lower(), round_floor)
    hi = arb_endpoint(arb.min(arb(ball.upper()), arb(1)).upper(), round_ceiling)
    return CertifiedPair(min(lo, hi), hi)


def _power(args: Sequence[TradeOff]) -> Callable[[arb], arb | None] | None:
    """min_i (1 - f_i(alpha)) as balls at exact levels (1 at alpha = 1, f(1) = 0 for every
    trade-off function, Prop. 1), or None where a node has no ball form at 1/16."""
    probe = arb(1) / 16
    if any(_ball(g, probe, True, False) is None for g in args):
        return None

    def power(t):
        if t == 1:
            return arb(1)
        out = None
        for g in args:
            p = _ball(g, t, True, False)
            if p is None and t == 0:  # 1 - g(0) in [0, 1]: only its lower end is used
                p = arb(0).union(arb(1))  # (a value attained, and the chords' pivots)
            if p is None:
                return None
            out = p if out is None else arb.min(out, p)
        return out

    return power


def _power_search(args: Sequence[TradeOff], eps) -> tuple | None:
    """:func:`sup_concave` of min_i (1 - f_i(alpha)) - e^eps alpha at Arb's working precision,
    or None (module docstring)."""
    power = _power(args)
    if power is None:
        return None
    e = arb_exact(eps).exp()

    def psi(t):
        p = power(t)
        return None if p is None else p - e * t

    return sup_concave(psi, options()["tol"])


def _inverse_search(g: TradeOff, eps) -> tuple | None:
    """:func:`sup_concave` of s - e^eps g(1 - s) at Arb's working precision, or None (module
    docstring)."""
    if _ball(g, arb(1) / 16, False, True) is None:
        return None
    e = arb_exact(eps).exp()

    def psi(s):
        if s == 0:
            return arb(0)  # s = 0 is t = 1: 1 - 1 - v f(1) = 0
        v = _ball(g, s, False, True)
        if v is None and s == 1:  # g(0) in [0, 1]: only the lower end of psi(1) is used
            v = arb(0).union(arb(1))  # (a value attained, and the chords' pivots)
        return None if v is None else s - e * v

    return sup_concave(psi, options()["tol"])


def power_delta(args: Sequence[TradeOff], eps) -> CertifiedPair | None:
    """delta(eps) of max{args} (one node, or f and f^{-1} for f^S) at an mpf eps >= 0 from
    the nodes' certified powers: sup_alpha {min_i (1 - f_i(alpha)) - e^eps alpha} (module
    docstring), or None where a node has no ball form at alpha = 1/16 (the caller's
    estimate) or the search met a level without one."""
    if not mp.isfinite(eps) or eps < 0:
        return None
    with arb_precision(mp.prec + ARB_GUARD_BITS):
        r = _power_search(args, eps)
    if r is None:
        return None
    trace.note(ROUTE)
    return _pair(r[0])


def inverse_delta(g: TradeOff, eps) -> CertifiedPair | None:
    """delta(eps) of g^{-1} at an mpf eps >= 0 from g's certified values:
    sup_s {s - e^eps g(1 - s)} (module docstring), or None where g has no ball form."""
    if not mp.isfinite(eps) or eps < 0:
        return None
    with arb_precision(mp.prec + ARB_GUARD_BITS):
        r = _inverse_search(g, eps)
    if r is None:
        return None
    trace.note(ROUTE_INVERSE)
    return _pair(r[0])


#: The name of the route of f^S through the profiles of f and f^{-1} in ``Value.route``.
ROUTE_SYMMETRIZED = ("delta of f^S from the certified searches of f and f^{-1}, "
                     "min{delta_f, delta_f^-1} attained (Prop. 6)")


def symmetrized_delta(g: TradeOff, eps) -> CertifiedPair | None:
    """delta(eps) of g^S = max{g, g^{-1}} (Prop. 2) from the two cheap searches, g's powers
    and g's values for g^{-1} (no inversion), or None (the caller searches on both powers).

    Above: psi_S = min{P_g, P_{g^-1}} - v alpha is below both psi's, so delta_S <=
    min{delta_g, delta_{g^-1}}. Below: at a level x of g's search, g(g(x)) <= x puts t = g(x)
    in {t : g(t) <= x}, so g^{-1}(x) <= g(x), i.e. P_g(x) <= P_{g^-1}(x) and psi_S(x) =
    psi_g(x), a value delta_S reaches; at the level alpha = g(t) of the inverse's search
    (t = 1 - s), g^{-1}(g(t)) <= t and g(g(t)) <= t give min{P_g, P_{g^-1}}(alpha) >= 1 - t,
    so psi_S(alpha) >= 1 - t - v g(t). Each test is a comparison of Arb balls; where neither
    is proved the result is None."""
    if not mp.isfinite(eps) or eps < 0:
        return None
    with arb_precision(mp.prec + ARB_GUARD_BITS):
        a = _power_search([g], eps)
        b = _inverse_search(g, eps)
        if a is None or b is None:
            return None
        hi = arb.min(arb(a[0].upper()), arb(b[0].upper()))
        lows = []
        for ball, level, flip in ((a[0], a[1], False), (b[0], b[1], True)):
            t = 1 - level if flip else level  # the inverse's level s stands for t = 1 - s
            if not (t > 0 and t < 1):
                continue
            gt = _ball(g, level, False, flip)  # g(t)
            if gt is None:
                continue
            try:
                ggt = arb_value(g, gt, 1 - gt, False)
            except ValueError:
                continue
            if ggt is not None and ggt.is_finite() and ggt <= t:
                lows.append(arb(ball.lower()))
        if not lows and hi < arb(2) ** -ctx.prec:  # delta_S >= psi_S(0) >= 0: no digit to
            lows.append(arb(0))  # prove (delta = 0 where both ratios stay below e^eps)
        if not lows:
            return None
        lo = lows[0] if len(lows) == 1 else arb.max(lows[0], lows[1])
        lo = arb.min(lo, hi)
    trace.note(ROUTE_SYMMETRIZED)
    return _pair(lo.union(hi))


def unbounded_epsilon(f: TradeOff, d, then: Callable | None = None) -> CertifiedPair | None:
    """eps_f(d) = +oo proved (a CertifiedPair) when the ball of delta_f(oo) = 1 - f(0), the
    power at alpha = 0, lies above d (an mpf): no finite eps works, the test rejecting on the
    part of Q singular to P having size 0 and power 1 - f(0) (Dong, Roth & Su, Prop. 6); else
    ``then(f, d)`` (by default the one search over alpha, :func:`power_epsilon`; an inverse
    passes :func:`inverse_epsilon`), whose None is the bracketing search on delta."""
    with arb_precision(mp.prec + ARB_GUARD_BITS):
        try:
            b = arb_value(f, arb(0), arb(1), True)
        except ValueError:
            b = None
        if b is None or not b.is_finite() or not b > arb_exact(mp.mpf(d)):
            b = None
    if b is None:
        return power_epsilon([f], d) if then is None else then(f, d)
    trace.note("delta(oo) = 1 - f(0) of the node's certified power (Prop. 6)")
    return CertifiedPair(mp.inf, mp.inf)


@mp_epsilon.register(Shift)
def node_epsilon(f: TradeOff, d) -> CertifiedPair | None:
    """eps(d) = oo proved from the ball of 1 - f(0), else the one search over alpha
    (:func:`unbounded_epsilon`) for an operator node with no epsilon route of its own (Shift),
    else None (the bracketing search on delta)."""
    return unbounded_epsilon(f, d)


@mp_delta.register(Shift)
def node_delta(f: TradeOff, eps) -> tuple:
    """delta(eps) of an operator node with no profile route of its own (Shift): the certified
    concave search on its powers where it has a ball form (:func:`power_delta`), else
    1 + f^*(-e^eps) from the convex conjugate of its values (Prop. 6, an estimate).
    (Registered per operator, not for every node: a family's capabilities are what its own
    module registers, ``numeric.capability``.)"""
    r = power_delta([f], eps)
    return conjugate_delta(f, eps) if r is None else r

