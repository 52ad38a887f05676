"""Certified power and values of the symmetric hull C(g) of a few steps g = T(P, Q)^T of one law
with loss cells (``AddRemove(Mix(Laplace(mu), q))**T``, T = 2, 3, ...) from certified balls of
its privacy profile, one minimisation in v = e^eps.

For any pair, f(alpha) = sup_{v >= 0} 1 - delta(v) - v alpha (Dong, Roth & Su, Prop. 6: the
profile delta(v) = sup_E B(E) - v A(E) is the convex conjugate of f), so the power is

    1 - C(alpha) = inf_{v > 0} h(v),   h(v) = delta_C(v) + v alpha,

h convex in v (a supremum of affine functions), delta_C = max(delta_g, delta_{g^-1}) the
larger of the two directions' profiles (Wang et al., Sec. 4; ``routes.engines``), each ball
from the Laplace inversion (``routes.engines._cf_enclosure``: for few steps the terms with
fewer density components than T + 1 summed exactly, no remainder). The loss cells' band
(``routes.hull_cells``) stalls near a relative width 1e-8 at these few steps (T = 2, mu = 1,
q = 1/100: 5.7e-8 after 3.9 s at tol = 1e-9); the inversion's curve points decline them.

**Upper end.** Every v gives h(v) >= 1 - C(alpha): the least upper end of the balls.

**Lower end.** For sorted v_0 < ... < v_n with balls [l_i, u_i] of h(v_i), convexity puts h
above the secant of (v_{i-1}, v_i) to the right of v_i and above the secant of
(v_{i+1}, v_{i+2}) to the left of v_{i+1}; with the ends of the balls taken on the safe side
(l at the near point, u at the far one) both lines stay below h. On [v_i, v_{i+1}] h is at
least max(L, R) >= lam L + (1 - lam) R for any lam in [0, 1], an affine function whose least
value is at an end (lam from floats: any lam is sound). Left of v_0 = 1 (eps = 0) and right of
v_n (beyond the largest loss, delta_C = 0) h is at least l_0 or l_n where the outer secant
proves it non-increasing there (l_0 >= u_1, l_n >= u_{n-1}); else no bound (the route
declines). The minimum of the lower ends over the pieces is the lower end; all of it in Arb.

**Points.** A float minimisation (Brent's method on the balls' midpoints in eps) places the
first points; then points at +-w and +-3w eps around the best, w shrinking fourfold, until the
relative width is a quarter of the tolerance or :data:`MAX_CALLS` balls or
:data:`MAX_SECONDS` are spent (then an ``Offer`` of the bracket). A minimiser at an atom of
the composed loss (a kink of h: alpha inside a linear piece of the curve) is approached from
both sides by the same points; the upper end's error there is first order in the distance.

**Where.** A point route (``numeric.protocol.POINT_ROUTES``) after the inversion's curve points
and before the narrow spans' loss cells, for one step's loss spanning less than
``routes.hull_cells.SPAN_MIN`` (registered there; at mu = 10 a ball takes seconds and the route
spent 40 s before the cells answered as before). Up to :data:`MAX_STEPS` steps every ball is
taken. Beyond, a cost estimate decides first, by planning alone (:func:`_whole_inversion`):
the route goes on only where each ball is one inversion of the whole law within
:data:`BALL_WORK` (T = 1000, mu <= 1, q <= 1/100: milliseconds a ball, the point 2e-10 to
4e-11 wide in about 0.3 s where the cells stall at 3.7e-9 to 3.6e-8 after 4 s); at T = 10 and
100 the balls cost 0.2 s to a minute (mu = 3, q = 1/100, T = 100: 68 s) and the route declines
in milliseconds for the cells. A point beyond that work (the loss's far tail, whose delta is
tiny) gets no ball: a float above h places Brent's steps (delta_C non-increasing).
"""

from __future__ import annotations

import math
import time
import warnings

import sympy as sp
from flint import arb, fmpq

from ..core import trace
from ..numeric import budget
from ..numeric.arb import arb_exact
from ..numeric.cf_laws import lower, upper, working_precision
from ..numeric.cf_sampled_poly import share_absolute
from ..numeric.context import mp
from ..numeric.offer import Offer
from ..numeric.options import options, pld_options
from ..numeric.value import CertifiedPair, Value
from ..operators.tensor import Tensor, TensorPower
from ..operators.unary import Inverse, SymmetricHull
from .engines import DELTA0_SHIFT, _cf_enclosure, _cf_laws, _delta0_by_shift, hull_directions
from .profile_curve import _cells_law

__all__ = ["hull_few_point", "power_bracket", "ROUTE", "MAX_CALLS", "MAX_SECONDS", "MAX_STEPS"]

#: The name of this route (``Value.route``).
ROUTE = "certified profile balls of the hull, minimised in e^eps (few steps)"
#: The most balls of delta_C one point spends.
MAX_CALLS = 60
#: The route stops refining after this many CPU seconds (the bracket is offered).
MAX_SECONDS = 8.0
#: The share of the caller's time left, and the most wall-clock seconds, that the route's
#: balls may take (one ball of a high mu can take a minute: mu = 10, q = 1/100, T = 2).
WALL_SHARE = 0.5
WALL_SECONDS = 30.0
#: The most steps T whose balls the route takes unconditionally; beyond, only where the cost
#: estimate allows (:data:`BALL_WORK`).
MAX_STEPS = 3
#: The pairs of points on each side whose secants bound a piece of h (the best bound taken).
PAIRS = 3
#: The loosest tolerance the route is asked at: above it the loss cells' band (the next route)
#: answers few steps in about 0.01 s (mu = 1/2, q = 1/1000, T = 2 at 5e-4: 5.6e-6), where
#: this minimisation's first points cost a second whatever the tolerance.
TOL_MAX = 1e-7
#: Arb precision of the bounds (bits).
PREC = 128
#: The relative width of each delta ball asked, per unit of the tolerance (floored at
#: :data:`DELTA_REL_MIN`, the inversion's reach).
DELTA_SHARE = 1e-3
DELTA_REL_MIN = 1e-13
#: Where a ball of delta_C(0) is asked, its affordability is judged at this eps (the
#: inversion answers delta(0) from delta(2^-40): ``routes.engines._delta0_by_shift``).
DELTA0_EPS = float(DELTA0_SHIFT)
#: Beyond :data:`MAX_STEPS` steps, the most planned work of one delta ball (``cf_route._work``
#: units, about 25 microseconds each; :func:`_whole_inversion`): about 25 balls a point, so
#: the route spends well under a second or declines after planning alone.
BALL_WORK = 1000.0


class _Hull:
    """Balls of h(eps) = delta_C(eps) + e^eps alpha at float eps >= 0, kept."""

    def __init__(self, dirs, A: sp.Rational, top: float, rel: float, cheap=None) -> None:
        self.dirs, self.top, self.rel, self.cheap = list(dirs), top, rel, cheap
        self.alpha = arb(fmpq(int(A.p), int(A.q)))
        self.balls: dict[float, tuple] = {}  # eps -> (v, lo, hi, delta_C's upper end)
        self.calls = 0

    def __call__(self, e: float) -> tuple[float, float]:
        e = float(min(max(e, 0.0), self.top))
        got = self.balls.get(e)
        if got is None:
            budget.check()
            if e >= self.top:  # (beyond the largest loss: delta_C = 0 exactly)
                d = CertifiedPair(mp.zero, mp.zero)
            elif self.cheap is not None and not self.cheap(max(e, DELTA0_EPS)):
                # (a ball beyond the whole law's inversion, seconds: none here, a float above
                # h(e) for the placement, delta_C non-increasing: the least upper end of
                # delta_C at the balls left of e, 1 without one)
                d_hi = min((b[3] for x, b in self.balls.items() if x <= e), default=1.0)
                val = d_hi + math.exp(e) * float(self.alpha.mid())
                return val, val
            else:
                with pld_options(tol=self.rel), warnings.catch_warnings(), share_absolute(
                        self.rel * float(self.alpha.mid())):  # (h >= alpha: the width asked)
                    warnings.simplefilter("ignore")  # (the widths are judged here)
                    if e == 0 and self.cheap is not None:  # (many steps: the inversion at
                        # eps = 0 itself is the split's, seconds; h(0) need not be narrow)
                        d = _delta0_by_shift(self.dirs)
                    else:
                        d = _cf_enclosure(self.dirs, mp.mpf(e), "delta")
                self.calls += 1
            if not isinstance(d, CertifiedPair):
                raise _Declined
            with working_precision(PREC):
                v = arb(e).exp()
                va = v * self.alpha
                got = (v, lower(arb_exact(mp.mpf(d[0])) + va),
                       upper(arb_exact(mp.mpf(d[1])) + va), float(d[1]))
            self.balls[e] = got
        return got[1], got[2]

    def mid(self, e: float) -> float:
        lo, hi = self(e)
        return 0.5 * (lo + hi)

    def bracket(self) -> tuple[float, float]:
        """(lower, upper) of inf_v h(v) from the balls so far (module docstring)."""
        es = sorted(self.balls)
        if not es:  # (the route's time ended inside the first ball)
            return -math.inf, math.inf
        up = min(self.balls[e][2] for e in es)
        if len(es) < 3:
            return -math.inf, up
        v = [self.balls[e][0] for e in es]
        lo_, hi_ = [arb(self.balls[e][1]) for e in es], [arb(self.balls[e][2]) for e in es]
        n = len(es) - 1
        best = math.inf
        with working_precision(PREC):
            # the outer pieces: proved non-increasing towards the ends, else no bound
            if not (lo_[0] >= hi_[1] and lo_[n] >= hi_[n - 1]):
                return -math.inf, up
            best = min(lower(lo_[0]), lower(lo_[n]))
            for i in range(n):
                a, b = v[i], v[i + 1]
                # secants of (j, i), j < i, right of v_i, and of (i + 1, k), k > i + 1, left of
                # v_{i+1}: each pair's line is below h there; a pair of near points magnifies
                # the balls' widths by its slope, so a few pairs on each side (the best bound)
                lefts = [(lo_[i], (lo_[i] - hi_[j]) / (v[i] - v[j]), v[i])
                         for j in range(max(0, i - PAIRS), i)]
                rights = [(lo_[i + 1], (hi_[k] - lo_[i + 1]) / (v[k] - v[i + 1]), v[i + 1])
                          for k in range(i + 2, min(n, i + 1 + PAIRS) + 1)]
                piece = -math.inf
                for ln in lefts:
                    piece = max(piece, _line_min([ln], a, b))
                    for rn in rights:
                        piece = max(piece, _line_min([ln, rn], a, b))
                for rn in rights:
                    piece = max(piece, _line_min([rn], a, b))
                best = min(best, piece)
        return best, up


def _line_min(lines: list, a: arb, b: arb) -> float:
    """A float at most min over [a, b] of the largest of the lines (value, slope, anchor): one
    line's least end, or for two the least end of lam L + (1 - lam) R <= max(L, R) (affine;
    lam from the floats' crossing where the slopes have opposite signs, else 0 and 1: any lam
    in [0, 1] is sound), the best of them."""
    def at(line, x):
        return line[0] + line[1] * (x - line[2])

    if len(lines) == 1:
        return min(lower(at(lines[0], a)), lower(at(lines[0], b)))
    (l0, r0) = lines
    sl, sr = float(l0[1].mid()), float(r0[1].mid())
    lams = [0.0, 1.0] + ([sr / (sr - sl)] if sl < 0 < sr else [])
    out = -math.inf
    for lam in lams:
        la = arb(lam)
        ends = [la * at(l0, x) + (1 - la) * at(r0, x) for x in (a, b)]
        out = max(out, min(lower(ends[0]), lower(ends[1])))
    return out


class _Declined(Exception):
    """A delta ball was not certified: the route declines."""


#: The first point of :func:`_brent` on [a, b]: a + BRENT_FIRST (b - a).
BRENT_FIRST = 0.3819660112501051


def _brent(fn, a: float, b: float, xtol: float, calls: int) -> float:
    """A float minimiser of ``fn`` on [a, b] (Brent's method: golden sections with parabolic
    steps), to about ``xtol``, at most ``calls`` evaluations: placement only."""
    g = BRENT_FIRST
    x = w = v = a + g * (b - a)
    fx = fw = fv = fn(x)
    d = e = 0.0
    for _ in range(calls):
        m = 0.5 * (a + b)
        tol1 = xtol + 1e-12 * abs(x)
        if abs(x - m) <= 2 * tol1 - 0.5 * (b - a):
            break
        para = False
        if abs(e) > tol1:
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2 * (q - r)
            if q > 0:
                p = -p
            q = abs(q)
            if abs(p) < abs(0.5 * q * e) and q * (a - x) < p < q * (b - x):
                e, d, para = d, p / q, True
                if (x + d) - a < 2 * tol1 or b - (x + d) < 2 * tol1:
                    d = tol1 if x < m else -tol1
        if not para:
            e = (a if x >= m else b) - x
            d = g * e
        u = x + (d if abs(d) >= tol1 else math.copysign(tol1, d))
        fu = fn(u)
        if fu <= fx:
            if u >= x:
                a = x
            else:
                b = x
            v, w, x, fv, fw, fx = w, x, u, fw, fx, fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, w, fv, fw = w, u, fw, fu
            elif fu <= fv or v in (x, w):
                v, fv = u, fu
    return x


def _few_law(f) -> tuple | None:
    """(law, T) where f = C(g), g the T-fold power (T >= 2; beyond :data:`MAX_STEPS` the cost
    estimate of :func:`power_bracket` decides) of one law with loss cells and a bounded loss in
    both directions (``loss_sup``), else None."""
    if not isinstance(f, SymmetricHull):
        return None
    g = f.arg
    while isinstance(g, Inverse):
        g = g.arg
    if not isinstance(g, (Tensor, TensorPower)) or hull_directions(f) is None:
        return None
    got = _cells_law(g)
    if got is None or got[1] < 2:
        return None
    law = got[0]
    return got if hasattr(law, "loss_sup") and hasattr(law, "inverse") else None


def _kinks(law, T: int, top: float) -> list[float]:
    """Floats near the atoms of both directions' T-fold losses in (0, top), where one step's
    loss has two atoms at its ends, as the Poisson-subsampled Laplace law's (the outputs beyond
    the two means): a = ess sup L and -b, b = ess sup of the reversed loss, so the power's are
    k a - (T - k) b and, reversed, k b - (T - k) a; h has a kink at each (placement only: any
    points are sound)."""
    with working_precision(64):
        a = float(law.loss_sup().mid())
        b = float(law.inverse().loss_sup().mid())
    out = {k * a - (T - k) * b for k in range(T + 1)} | {k * b - (T - k) * a
                                                         for k in range(T + 1)}
    return sorted(e for e in out if 0 < e < top)


def _whole_inversion(dirs, rel: float):
    """For T > :data:`MAX_STEPS`: a predicate of eps, True where each direction's delta ball at
    the relative width ``rel`` is one inversion of its whole law at that width whose planned
    work (``numeric.cf_route._work``: planning only, the plan kept for the ball) is at most
    :data:`BALL_WORK`, or eps is at or above that direction's largest loss (delta = 0). It is
    the route's cost estimate: where it holds a ball takes milliseconds (T = 1000, mu <= 1,
    q <= 1/100: 11 to 35 units, about 0.015 s); elsewhere a ball takes 0.2 s (T = 100, mu = 1:
    5000 to 8000 units) to a minute (the split's exact terms and inverted remainder: T = 100,
    mu = 3, q = 1/100, 68 s), where the loss cells answer first. None where the laws have no
    inversion (the route declines)."""
    from ..numeric import cf_route

    sets = _cf_laws(list(dirs), atoms=True)
    if sets is None:
        return None
    facs = [[(law, int(n)) for law, n in specs] for specs in sets]
    with working_precision(64):
        sups = []
        for fac in facs:
            s = sum((n * law.loss_sup() for law, n in fac), arb(0))
            sups.append(upper(s) if s.is_finite() else math.inf)
    # (the width a ball plans at: cf_route.route_enclosure a quarter of the tolerance asked,
    # its whole law's inversion at most cf_route.REL_FLOOR: cf_route._sampled_enclosure)
    want = min(rel / 4, cf_route.REL_FLOOR)

    def cheap(e: float) -> bool:
        with working_precision(64):
            for fac, top in zip(facs, sups, strict=True):
                if e >= top:
                    continue
                try:
                    if not cf_route._work(fac, e, want) <= BALL_WORK:
                        return False
                except budget.TimeLimitExceeded:  # (an ArithmeticError too)
                    raise
                except (ValueError, RuntimeError, ArithmeticError):
                    return False
        return True

    return cheap


def _top(law, T: int) -> float | None:
    """A float above the largest loss of both directions of the T-fold power (delta_C = 0
    from there on), or None."""
    with working_precision(64):
        sups = [law.loss_sup(), law.inverse().loss_sup()]
    if any(s is None or not s.is_finite() for s in sups):
        return None
    return math.nextafter(T * max(upper(s) for s in sups), math.inf) * (1 + 1e-9)


def power_bracket(law, T: int, dirs, A: sp.Rational, tol: float) -> tuple[float, float] | None:
    """Floats (lo, hi) around 1 - C(A) for the hull C of the T-fold power of ``law`` whose two
    directions' leaves are ``dirs`` (module docstring), refined to the relative width tol / 4
    or until :data:`MAX_CALLS` balls, :data:`MAX_SECONDS` CPU seconds or its share of the
    time left are spent; None where a delta ball is not certified or no bound is proved."""
    top = _top(law, T)
    if top is None:
        return None
    rel = max(tol * DELTA_SHARE, DELTA_REL_MIN)
    cheap = None
    if T > MAX_STEPS:
        cheap = _whole_inversion(dirs, rel)
        # (eps = 0's and Brent's first point's plans, before any ball: planning only)
        if cheap is None or not (cheap(DELTA0_EPS) and cheap(BRENT_FIRST * top)):
            return None
    h = _Hull(dirs, A, top, rel, cheap)
    start = time.process_time()

    def done() -> bool:
        lo, hi = h.bracket()
        return hi - lo <= tol / 4 * hi

    def spent() -> bool:
        return h.calls >= MAX_CALLS or time.process_time() - start > MAX_SECONDS

    outer = budget.remaining()
    try:
        with budget.within(min(WALL_SHARE * outer, WALL_SECONDS)):
            h(0.0)
            h(top)
            best = _brent(h.mid, 0.0, top, 1e-6 * top, MAX_CALLS // 3)
            near = min(_kinks(law, T, top), key=lambda k: abs(k - best), default=None)
            if near is not None and abs(near - best) < 1e-2 * top:
                # (a minimiser at an atom: the floats beside it, and one step further out)
                d = max(abs(near - best), 1e-6 * top)
                for e in (near * (1 - 1e-13), near * (1 + 1e-13), near - d, near + d):
                    if 0 < e < top:
                        h(e)
            w = max(1e-6 * top, 1e-15)
            while not done() and not spent():
                e0 = min(h.balls, key=lambda e: h.balls[e][2])
                best = e0 if e0 > 0 else best
                n = len(h.balls)
                for e in (best - 3 * w, best - w, best + w, best + 3 * w):
                    if 0 < e < top:
                        h(e)
                if cheap is not None and len(h.balls) == n and w < 1e-6 * top:
                    break  # (no ball placed: beyond the inversion's plans around the best)
                w /= 4
                if w < 1e-17 * max(best, 1e-300):
                    break
    except _Declined:
        return None
    except budget.TimeLimitExceeded:
        budget.check()  # (the caller's own deadline passed: its error)
        # (this route's share of the time ended: the balls so far, if they bound it)
    lo, hi = h.bracket()
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        return None
    return lo, min(hi, 1.0)


def hull_few_point(f, A: sp.Rational, dps: int, power: bool) -> Value | Offer | None:
    """f(A) (``power``: 1 - f(A)) of the hull of T >= 2 steps of one law
    with loss cells (module docstring), a certified enclosure to the relative tolerance of
    ``pld_options`` (an ``Offer`` of it where the calls or seconds end first); None where the
    route does not apply or a delta ball is not certified."""
    if not isinstance(f, SymmetricHull) or not 0 < A < 1:
        return None
    got = _few_law(f)
    dirs = hull_directions(f)
    if got is None or dirs is None:
        return None
    tol = options()["tol"]
    if tol > TOL_MAX:
        return None  # (the loss cells' band meets it in milliseconds)
    r = power_bracket(got[0], int(got[1]), dirs, A, tol)
    if r is None:
        return None
    lo, hi = r
    if not power:  # (f = 1 - power, one rounding each, moved outward)
        lo, hi = max(math.nextafter(1 - hi, -math.inf), 0.0), math.nextafter(1 - lo, math.inf)
    v = Value.enclosure(mp.mpf(lo), mp.mpf(hi), dps, guarantee="certified").routed(ROUTE)
    width = (hi - lo) / hi if hi > 0 else 0.0
    if width > tol:
        return Offer(v, f"{'power' if power else 'f'}({A}) of {f}: the certified profile "
                        f"balls reach the relative width {width:.2g}, above tol = {tol:g}")
    trace.note(ROUTE)
    return v
