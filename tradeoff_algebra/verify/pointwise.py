"""Decide pointwise claims between parameter-free trade-off functions: f >= g, f == g on [0, 1].

Every route here is a proof or a certified counterexample; what none decides is reported with
its location.

* Both sides piecewise linear with known knots: exact. Their difference is linear between the
  union of the knots, so comparing the exact values there decides the claim.
* The larger side f piecewise linear: a convex g lies below the linear f on a piece iff it does
  at the piece's ends, so f >= g iff g(k) <= f(k) at the knots k of f (certified enclosures,
  exact values where they touch).
* The smaller side g piecewise linear: g is the maximum of its affine pieces l (g is convex), so
  f >= g iff max_alpha (l - f) <= 0 for each piece: a concave maximum
  (:func:`~tradeoff_algebra.numeric.concave.max_concave`).
* Otherwise a certified cover of [0, 1] (see :func:`_cover`): on a cell [a, b] the convex g lies
  below its chord through upper enclosures of g(a), g(b), and the convex non-increasing f lies
  above f(b) and above its support lines at a and b, whose slopes are bounded by the chords to
  the neighbouring points; when the lower bound of f exceeds the chord of g on the whole cell,
  the cell is proved. Cells that do not close are split; cells that never close (where the
  sides touch, e.g. at alpha = 0 and 1 for curves through (0, 1) and (1, 0) with the same
  infinite or zero slope) are reported.
* The larger side an upper Berry-Esseen side Shift(g, -gamma) (Thm. 5): the greatest convex
  minorant of min{1 - alpha, g(alpha - gamma) + gamma}, so a trade-off function lies below it
  iff it lies below the translate, decided by the cover on [gamma, 1] with certified values of
  g at rational levels (:func:`_below_translate`).

Values at irrational levels (the knots 1/(1 + e^eps) of f_{eps,0} with an irrational eps) and
of a lower side Shift(g, t) with an irrational t are bracketed by values at rational levels,
by monotonicity (:class:`_Side`, :class:`_LowerShift`): certified without evaluating SymPy's
closed forms of irrational expressions.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from dataclasses import dataclass

import sympy as sp

from ..core.errors import NoClosedForm, NumericalError
from ..core.validate import mpf_rational
from ..numeric import budget
from ..numeric.concave import max_concave
from ..numeric.context import mp
from ..numeric.finite import finite_loss
from ..numeric.knots import _same, pl_eval
from ..numeric.knots_eval import pl_knots_cached
from ..numeric.protocol import evaluate
from ..numeric.value import Value
from .interval import EstimateOnly, Undecidable, _value_interval, enclose

__all__ = ["Outcome", "decide_ge", "decide_eq", "search_violation"]

COVER_DPS = 20
MAX_CELLS = 800
MIN_WIDTH = sp.Rational(1, 2**30)


@dataclass
class Outcome:
    status: bool | None
    method: str
    evidence: str
    alpha: object = None
    values: tuple = ()   # at alpha: (larger side, smaller side) for >=, (f, g) for f == g


class _Side:
    """Cached certified values of one side, a trade-off function on [0, 1]."""

    start = sp.Integer(0)  # the left end of the interval where the side is convex

    def __init__(self, f, dps: int):
        self.f, self.dps, self.cache = f, dps, {}

    def value(self, a) -> Value:
        v = self.cache.get(a)
        if v is None:
            v = self.cache[a] = evaluate(self.f, a, dps=self.dps)
        return v

    def iv(self, a) -> tuple:
        """A certified enclosure of f(a). At a level that is not rational (a knot such as
        1/(1 + e^eps) with an irrational eps), the values at rational levels just outside it:
        f is non-increasing, so f(a_hi) <= f(a) <= f(a_lo) for a_lo <= a <= a_hi."""
        if isinstance(a, sp.Basic) and not a.is_Rational:
            lo, hi = enclose(a, dps=self.dps)
            a_lo, a_hi = max(_rat(lo), sp.Integer(0)), min(_rat(hi), sp.Integer(1))
            return _value_interval(self.value(a_hi))[0], _value_interval(self.value(a_lo))[1]
        return _value_interval(self.value(a))


class _Translate(_Side):
    """The translate U(t) = g(t - gamma) + gamma of the upper Berry-Esseen side (g = 1 below 0,
    0 above 1), convex and non-increasing on [gamma, 1]. With gamma enclosed in rationals
    [gamma_lo, gamma_hi], U(t) lies between g(t - gamma_lo) + gamma_lo and g(t - gamma_hi) +
    gamma_hi (g non-increasing): certified values at rational levels of g only. Its interval
    of convexity starts at gamma_hi."""

    def __init__(self, g, gamma, dps: int):
        super().__init__(g, dps)
        lo, hi = enclose(gamma, dps=dps)
        self.g_lo, self.g_hi = _rat(lo), _rat(hi)
        self.start = self.g_hi

    def _g(self, x, end: int):
        if x <= 0:
            return mp.one
        if x >= 1:
            return mp.zero
        return super().iv(x)[end]

    def iv(self, a) -> tuple:
        a = sp.Rational(a)
        lo = mp.fadd(self._g(a - self.g_lo, 0), _mp_rat(self.g_lo, "d"), rounding="d")
        hi = mp.fadd(self._g(a - self.g_hi, 1), _mp_rat(self.g_hi, "u"), rounding="u")
        return lo, hi


class _LowerShift(_Side):
    """Shift(g, t) with t > 0 irrational (the lower Berry-Esseen side, max{g(alpha + t) - t, 0}):
    with t enclosed in rationals [t_lo, t_hi], its value lies between max{g(alpha + t_hi) - t_hi,
    0} and max{g(alpha + t_lo) - t_lo, 0} (g non-increasing), certified values of g at rational
    levels (the node's own closed form carries t's SymPy expression through every evaluation)."""

    def __init__(self, f, dps: int):
        super().__init__(f, dps)
        self.g = _Side(f.arg, dps)
        lo, hi = enclose(f.t, dps=dps)
        self.t_lo, self.t_hi = _rat(lo), _rat(hi)

    def _g(self, x, end: int):
        if x >= 1:
            return mp.zero
        return self.g.iv(x)[end]

    def value(self, a) -> Value:
        v = self.cache.get(a)
        if v is None:
            a = sp.Rational(a)
            if a == 1:
                v = Value.from_exact(sp.Integer(0), self.dps)
            else:
                lo = mp.fsub(self._g(a + self.t_hi, 0), _mp_rat(self.t_hi, "u"), rounding="d")
                hi = mp.fsub(self._g(a + self.t_lo, 1), _mp_rat(self.t_lo, "d"), rounding="u")
                v = Value.enclosure(max(lo, mp.zero), max(hi, mp.zero), self.dps,
                                    guarantee="certified")
            self.cache[a] = v
        return v


def _side(f, dps: int) -> _Side:
    """The cached values of ``f``: a lower Shift with an irrational shift through its operand
    (:class:`_LowerShift`), any other node through ``evaluate``."""
    from ..operators.shift import Shift

    if isinstance(f, Shift) and not f.free_symbols and not f.t.is_Rational:
        try:
            if _sign(f.t) > 0:
                return _LowerShift(f, dps)
        except Undecidable:
            pass
    return _Side(f, dps)


def _mp_rat(r: sp.Rational, rounding: str):
    """The rational ``r`` as an mpf rounded down ("d") or up ("u")."""
    return mp.fdiv(int(r.p), int(r.q), rounding=rounding)


def _upper_shift(f):
    """(g, gamma) when ``f`` is Shift(g, -gamma) with gamma > 0 proved (the upper side of a
    Berry-Esseen sandwich), else None."""
    from ..operators.shift import Shift

    if not isinstance(f, Shift) or f.free_symbols:
        return None
    try:
        return (f.arg, -f.t) if _sign(f.t) < 0 else None
    except Undecidable:
        return None


def _below_translate(small, g, gamma, dps: int) -> Outcome:
    """Is the trade-off function ``small`` below Shift(g, -gamma)? That node is the greatest
    convex minorant of min{1 - alpha, U} with U(t) = g(t - gamma) + gamma (Dong, Roth & Su,
    Thm. 5; ``operators.shift``), and ``small`` is convex and below 1 - alpha, so the claim
    holds iff small <= U, and a level where small > U refutes it. Left of gamma_hi, U >= U(gamma_hi)
    > 1 >= small; on [gamma_hi, 1], where U is convex, the certified cover of :func:`_cover`."""
    T = _Translate(g, gamma, dps)
    if T.g_hi >= 1 or not T.iv(T.g_hi)[0] > 1:
        return Outcome(None, "translate", "cannot separate the translate from 1 left of gamma")
    out = _cover_sides(T, _side(small, dps), None)
    if out.status is True:
        out.evidence = ("below Shift(g, -gamma) iff below the translate g(alpha - gamma) + "
                        "gamma (the greatest convex minorant, Thm. 5); " + out.evidence)
    return out


SEARCH_SECONDS = 20.0


def _grid() -> list:
    """The levels searched for a counterexample, the ones a reader recognises first: the
    fractions k/32 by increasing denominator (1/2, 1/4, 3/4, 1/8, ...), then the ends 0 and 1
    and the tails 10^-j and 1 - 10^-j (j = 2, 4, ..., 32)."""
    inner = sorted({sp.Rational(k, 32) for k in range(1, 32)}, key=lambda r: (r.q, r.p))
    tails = [sp.Integer(0), sp.Integer(1)]
    for j in (2, 4, 8, 16, 32):
        tails += [sp.Rational(1, 10**j), 1 - sp.Rational(1, 10**j)]
    return inner + tails


def _coarse() -> list:
    """The grid of the per-parameter-point search (cheaper than :func:`_grid`)."""
    tails = [sp.Rational(1, 10**4), sp.Rational(1, 10**16), 1 - sp.Rational(1, 10**4)]
    return [sp.Rational(k, 8) for k in range(1, 8)] + tails


def search_violation(big, small, dps: int, points=None) -> Outcome | None:
    """A certified point where ``big < small`` (both enclosures disjoint), else None: of the
    violations among the levels a reader recognises (the fractions of :func:`_grid`, or the
    points given), the one with the largest certified gap; the tails only when none of those
    refutes. The search over the default grid stops after ``SEARCH_SECONDS``."""
    B, S = _side(big, dps), _side(small, dps)
    t0 = time.perf_counter()
    best, best_gap = None, None
    for a in points if points is not None else _grid():
        budget.check()
        if points is None and time.perf_counter() - t0 > SEARCH_SECONDS:
            break
        if best is not None and not (0 < a < 1 and a.q <= 32):
            break  # a recognisable level refutes: the tails are not needed
        if a == 1:
            continue  # every trade-off function is 0 at alpha = 1
        try:
            vb, vs = B.value(a), S.value(a)
        except (NoClosedForm, NumericalError):
            continue  # no value here
        if not (vb.is_certain and vs.is_certain):
            # an estimate never decides, and a side's route gives estimates at every level
            # (the PLD grid at 1 - 1e-4 took 30 s to say so again): the search ends here; at
            # points given by a caller that tries many (cells, parameter values), it says so
            if points is not None and best is None:
                raise EstimateOnly(f"{vb if not vb.is_certain else vs} at alpha = {a} is an "
                                   "estimate (no certified enclosure)")
            break
        try:
            gap = _value_interval(vs)[0] - _value_interval(vb)[1]
        except Undecidable:
            continue
        if gap > 0 and (best_gap is None or gap > best_gap):
            best, best_gap = Outcome(False, "counterexample", f"certified at alpha = {a}", a,
                                     (vb, vs)), gap
    return best


def _sign(x: sp.Expr) -> int:
    """The exact sign of a real SymPy number (0 only when proved zero)."""
    if x == 0 or _same(x, sp.Integer(0)):
        return 0
    for d in (30, 60, 120, 240):
        v = sp.N(x, d)
        if v.is_comparable and abs(v) > sp.Float(10) ** (-d + 5):
            return 1 if v > 0 else -1
    raise Undecidable(f"cannot decide the sign of {x}")


def _both_pl(kb, ks, rel: str) -> Outcome:
    """Both sides piecewise linear: their difference is linear between consecutive knots of
    either side, so its signs at those knots decide the claim. A knot where the sign is certain
    and wrong refutes it even when the sign at another knot cannot be decided (a difference
    that is 0 in another SymPy form); the claim holds only when every sign is decided."""
    xs = sorted({x for x, _ in kb} | {x for x, _ in ks}, key=lambda t: sp.N(t, 40))
    # the most convincing counterexample first: the knots ranked by an approximation of the
    # difference (the difference is linear between knots, so its largest gap is at one); only
    # the sign computed exactly decides
    ab, as_ = _approx_knots(kb), _approx_knots(ks)
    with mp.workdps(40):
        est = {x: _interp(ab, a) - _interp(as_, a) for x, a in zip(xs, _approx_xs(xs),
                                                                  strict=True)}
    tiny = mp.mpf(10) ** -35
    order = sorted(xs, key=lambda x: -abs(est[x]) if rel == "==" else est[x])
    for x in order:
        if (abs(est[x]) if rel == "==" else -est[x]) <= tiny:
            break  # no knot left that an approximation shows in the wrong order
        budget.check()
        try:
            d = pl_eval(kb, x) - pl_eval(ks, x)
            sg = _sign(d)
        except (TypeError, Undecidable):
            continue
        if sg != 0 if rel == "==" else sg < 0:
            shown = x if len(str(x)) <= 60 else f"{sp.N(x, 15)} (a knot; exact in the verdict)"
            return Outcome(False, "exact", f"piecewise linear; the sides differ at alpha = "
                           f"{shown}, the knot where they are furthest apart", x,
                           (pl_eval(kb, x), pl_eval(ks, x)))
    undecided = None
    for x in xs:
        budget.check()
        try:
            s = _sign(pl_eval(kb, x) - pl_eval(ks, x))
        except TypeError as exc:  # knots SymPy cannot order ("truth value of Relational")
            raise Undecidable(f"cannot order the knots exactly: {exc}") from exc
        except Undecidable as exc:
            undecided = undecided or exc
            continue
        bad = s != 0 if rel == "==" else s < 0
        if bad:
            shown = x if len(str(x)) <= 60 else f"{sp.N(x, 15)} (a knot; exact in the verdict)"
            return Outcome(False, "exact", f"piecewise linear; the sides differ at alpha = "
                           f"{shown}", x, (pl_eval(kb, x), pl_eval(ks, x)))
    if undecided is not None:
        raise undecided
    return Outcome(True, "exact", f"both sides piecewise linear; compared exactly at the "
                   f"{len(xs)} knots of either side")


def _mpn(x):
    """A 40-digit approximation of the real number ``x`` (ranking only, never deciding)."""
    return mp.mpf(sp.Float(sp.N(x, 40), 40))


def _approx_xs(xs) -> list:
    with mp.workdps(40):
        return [_mpn(x) for x in xs]


def _approx_knots(knots) -> list:
    """The knots as 40-digit approximations (to rank candidate levels; never to decide)."""
    with mp.workdps(40):
        return [(_mpn(x), _mpn(y)) for x, y in knots]


def _interp(knots, t):
    """The piecewise-linear function through the approximate ``knots`` at ``t`` (0 beyond)."""
    if t >= knots[-1][0]:
        return mp.zero
    i = max(0, bisect_right([x for x, _ in knots], t) - 1)
    (x0, y0), (x1, y1) = knots[i], knots[min(i + 1, len(knots) - 1)]
    return y0 if x1 == x0 else y0 + (y1 - y0) * (t - x0) / (x1 - x0)


def _big_pl(kb, small, dps: int) -> Outcome:
    S = _side(small, dps)
    open_at = []
    for x, y in kb:
        if x == 1 or (x == 0 and _sign(y - 1) == 0):
            continue  # every trade-off function vanishes at 1 and is at most 1 at 0
        try:
            lo, hi = S.iv(x)
        except (NoClosedForm, NumericalError, Undecidable) as exc:
            open_at.append(f"{x} ({type(exc).__name__})")
            continue
        vs = S.value(x) if x.is_Rational else Value.enclosure(lo, hi, dps, guarantee="certified")
        yb = enclose(y, dps=dps)
        if hi <= yb[0]:
            continue
        if lo > yb[1]:
            return Outcome(False, "exact", f"at the knot alpha = {x} of the larger side",
                           x, (y, vs))
        if x.is_Rational and vs.exact is not None:
            s = _sign(y - vs.exact)
            if s >= 0:
                continue
            return Outcome(False, "exact", f"at the knot alpha = {x}", x, (y, vs))
        open_at.append(str(x))
    if open_at:
        return Outcome(None, "knots of the larger side",
                       "the sides touch at alpha = " + ", ".join(open_at[:5])
                       + " and no exact value decides there")
    return Outcome(True, "knots of the larger side",
                   f"the larger side is piecewise linear; the convex smaller side lies below it at "
                   f"all {len(kb)} knots (certified)")


def _small_pl(big, ks, dps: int) -> Outcome:
    B = _side(big, dps)
    open_at = []
    pieces = 0
    for (x0, y0), (x1, y1) in zip(ks, ks[1:], strict=False):
        budget.check()
        s = (y1 - y0) / (x1 - x0)
        l0, l1 = y0 + s * (0 - x0), y0 + s * (1 - x0)
        if _sign(l0) <= 0 and _sign(l1) <= 0:
            continue  # the piece is <= 0 on [0, 1]
        pieces += 1
        with mp.workdps(dps + 20):
            X0, Y0, Sl = (enclose(v, dps=dps) for v in (x0, y0, s))
            # l > 0 only left of its root x0 - y0/s (s < 0): search up to an upper bound of it
            r = mp.one if _sign(l1) >= 0 else min(mp.one, X0[1] + Y0[1] / -Sl[1])

            def line(t, X0=X0, Y0=Y0, Sl=Sl):
                d = (t - X0[1], t - X0[0])
                ps = [q * u for q in Sl for u in d]
                return Y0[0] + min(ps), Y0[1] + max(ps)

            def psi(t):
                lo_l, hi_l = line(t)
                lo_b, hi_b = _value_interval(evaluate(big, t, dps=dps))
                return lo_l - hi_b, hi_l - lo_b

            lo, hi, (a, b) = max_concave(psi, mp.zero, r)
        if hi <= 0:
            continue
        t = _rat((a + b) / 2)
        vb = B.value(t)
        with mp.workdps(dps + 20):
            lo_l, _ = line(mp.mpf(t.p) / t.q)
        if _value_interval(vb)[1] < lo_l:
            return Outcome(False, "line of the smaller side",
                           f"the larger side dips below the smaller side's piece through "
                           f"({x0}, {y0}) at alpha = {_short(t)}", t, (vb, None))
        open_at.append(_short(t))
    if open_at:
        return Outcome(None, "lines of the smaller side",
                       "the sides touch (or come within the enclosures) near alpha = "
                       + ", ".join(open_at[:5]))
    return Outcome(True, "lines of the smaller side",
                   f"the smaller side is piecewise linear; each of its {pieces} affine pieces "
                   "lies below the larger side (certified concave maxima)")


def _cover(big, small, dps: int) -> Outcome:
    """The certified cover of [0, 1] (module docstring)."""
    return _cover_sides(_side(big, dps), _side(small, dps), (big, small, dps))


def _cover_sides(B: _Side, S: _Side, pair) -> Outcome:
    """The cover of [B.start, 1] by cells on which B's lower bound exceeds S's chord; a cell
    that does not close is tested at its midpoint for a violation (``pair`` = (big, small,
    dps): :func:`search_violation`; without it, the enclosures of the two sides there)."""
    a0 = B.start
    cells = [(a0 + (1 - a0) * sp.Rational(k, 16), a0 + (1 - a0) * sp.Rational(k + 1, 16))
             for k in range(16)]
    proved = 0
    undecided: list[tuple] = []
    steps = 0
    while cells:
        budget.check()
        a, b = cells.pop()
        steps += 1
        if steps > MAX_CELLS:
            undecided.append((a, b))
            undecided.extend(cells)
            break
        w = b - a
        try:
            ok = _cell(B, S, a, b, w)
        except EstimateOnly as exc:
            return Outcome(None, "certified cover", f"a side has no certified values near "
                           f"alpha = {_short(a)} ({exc})")
        except (NoClosedForm, NumericalError, Undecidable):
            ok = False
        if ok:
            proved += 1
            continue
        m = (a + b) / 2
        try:
            v = _violation_at(B, S, pair, m)
        except EstimateOnly as exc:
            return Outcome(None, "certified cover", f"a side has no certified values at "
                           f"alpha = {_short(m)} ({exc})")
        if v is not None:
            return v
        if w <= MIN_WIDTH:
            undecided.append((a, b))
            continue
        cells += [(a, m), (m, b)]
    if not undecided:
        return Outcome(True, "certified cover",
                       f"[0, 1] covered by {proved} cells on which the larger side's lower bound "
                       "(monotonicity and support lines) exceeds the smaller side's chord")
    undecided.sort()
    spans = _merge(undecided)
    where = ", ".join(f"[{_short(lo)}, {_short(hi)}]" for lo, hi in spans[:4])
    return Outcome(None, "certified cover",
                   f"proved on {proved} cells; undecided on {where} (the sides touch or come "
                   "within the enclosures there)")


def _violation_at(B: _Side, S: _Side, pair, m) -> Outcome | None:
    if pair is not None:
        return search_violation(*pair[:2], pair[2], [m])
    try:
        (_, bhi), (slo, _) = B.iv(m), S.iv(m)
    except (NoClosedForm, NumericalError, Undecidable):
        return None
    if slo > bhi:  # small above an upper bound of the larger side
        return Outcome(False, "counterexample", f"certified at alpha = {m}", m,
                       (Value.enclosure(mp.zero, bhi, S.dps, guarantee="certified"),
                        S.value(m)))
    return None


def _rat(t) -> sp.Rational:
    """The exact rational value of an mpf."""
    return mpf_rational(mp.mpf(t))


def _short(x) -> str:
    if x in (0, 1):
        return str(x)
    if 1 - x < sp.Rational(1, 1000):
        return "1 - " + mp.nstr(mp.mpf(sp.Float(1 - x, 20)), 3)
    return mp.nstr(mp.mpf(sp.Float(x, 20)), 6)


def _merge(spans):
    out = [list(spans[0])]
    for lo, hi in spans[1:]:
        if lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [tuple(s) for s in out]


def _cell(B: _Side, S: _Side, a, b, w) -> bool:
    Ga, Gb = S.iv(a), S.iv(b)
    if Ga[1] <= 0 and Gb[1] <= 0:
        return True  # the convex, non-negative smaller side is 0 on the cell: below any side
    Fa, Fb = B.iv(a), B.iv(b)
    with mp.workdps(B.dps + 20):
        A, Bm, W = (mp.mpf(sp.Float(t, B.dps + 20)) for t in (a, b, w))
        lines = [(mp.zero, Fb[0])]                 # (slope, value at b): f >= f(b)
        if b < 1:
            c = min(sp.Integer(1), b + w)
            Fc = B.iv(c)
            s1 = (Fc[1] - Fb[0]) / mp.mpf(sp.Float(c - b, B.dps + 20))
            lines.append((s1, Fb[0]))               # support line at b
        if a > B.start:
            c = max(B.start, a - w)
            Fc = B.iv(c)
            s2 = (Fa[0] - Fc[1]) / mp.mpf(sp.Float(a - c, B.dps + 20))
            lines.append((s2, Fa[0] + s2 * (Bm - A)))  # support line at a, as value at b
        ga, gb = Ga[1], Gb[1]

        def D(t):  # lower bound of f minus chord of g, at t in [a, b]
            lb = max(v + s * (t - Bm) for s, v in lines)
            return lb - (ga + (gb - ga) * (t - A) / W)

        cands = [A, Bm]
        for i in range(len(lines)):
            for j in range(i + 1, len(lines)):
                (s_i, v_i), (s_j, v_j) = lines[i], lines[j]
                if s_i != s_j:
                    t = Bm + (v_j - v_i) / (s_i - s_j)
                    if A < t < Bm:
                        cands.append(t)
        margin = mp.ldexp(1, -(mp.prec - 8))
        return min(D(t) for t in cands) >= margin


MAX_KNOTS = 2000


def _knots(f):
    """Exact knots of a piecewise-linear side: registered knots, or the Neyman-Pearson knots of
    its exact finite representation (finite_loss) when that is affordable."""
    k = pl_knots_cached(f)
    if k is not None:
        return k
    fl = finite_loss(f)
    if fl is None or not fl.affordable():
        return None
    try:
        k = tuple(fl.tradeoff_knots())
    except (NoClosedForm, NumericalError):
        return None
    return k if len(k) <= MAX_KNOTS else None


def decide_ge(big, small, dps: int = 30, full: bool = True) -> Outcome:
    """Is ``big >= small`` on [0, 1]? (parameter-free trade-off expressions). With
    ``full=False`` only the cheap routes run (exact comparison, the search for a violation)."""
    kb, ks = _knots(big), _knots(small)
    if kb is not None and ks is not None:
        try:
            return _both_pl(kb, ks, ">=")
        except Undecidable:
            kb = ks = None
    up = _upper_shift(big)
    if up is not None and full:
        return _below_translate(small, *up, COVER_DPS)
    v = search_violation(big, small, dps, None if full else _coarse())
    if v is not None:
        return v
    if not full:
        return Outcome(None, "search", "no violation found on the search grid")
    if kb is not None:
        return _big_pl(kb, small, dps)
    if ks is not None:
        return _small_pl(big, ks, dps)
    return _cover(big, small, COVER_DPS)


def decide_eq(f, g, dps: int = 30) -> Outcome:
    """Is ``f == g`` on [0, 1]? True only exactly (piecewise linear sides); otherwise False with a
    counterexample or None with the agreement found."""
    kf, kg = _knots(f), _knots(g)
    if kf is not None and kg is not None:
        try:
            return _both_pl(kf, kg, "==")
        except Undecidable:
            pass
    for big, small in ((f, g), (g, f)):
        v = search_violation(big, small, dps)
        if v is not None:
            if big is g:  # report the values as (f, g)
                v.values = v.values[::-1]
            return v
    return Outcome(None, "numeric agreement",
                   f"no level alpha of the search grid separates the sides at {dps} digits; "
                   "numbers alone never prove an identity between objects that are not finite")
