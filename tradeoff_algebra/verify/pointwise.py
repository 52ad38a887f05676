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
"""

from __future__ import annotations

import time
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
from .interval import Undecidable, _value_interval, enclose

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
    """Cached certified values of one side."""

    def __init__(self, f, dps: int):
        self.f, self.dps, self.cache = f, dps, {}

    def value(self, a) -> Value:
        v = self.cache.get(a)
        if v is None:
            v = self.cache[a] = evaluate(self.f, a, dps=self.dps)
        return v

    def iv(self, a) -> tuple:
        return _value_interval(self.value(a))


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
    B, S = _Side(big, dps), _Side(small, dps)
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
            # (the PLD grid at 1 - 1e-4 took 30 s to say so again): the search ends here
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


def _big_pl(kb, small, dps: int) -> Outcome:
    S = _Side(small, dps)
    open_at = []
    for x, y in kb:
        if x == 1 or (x == 0 and _sign(y - 1) == 0):
            continue  # every trade-off function vanishes at 1 and is at most 1 at 0
        try:
            vs = S.value(x)
        except (NoClosedForm, NumericalError) as exc:
            open_at.append(f"{x} ({type(exc).__name__})")
            continue
        lo, hi = _value_interval(vs)
        yb = enclose(y, dps=dps)
        if hi <= yb[0]:
            continue
        if lo > yb[1]:
            return Outcome(False, "exact", f"at the knot alpha = {x} of the larger side",
                           x, (y, vs))
        if vs.exact is not None:
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
    B = _Side(big, dps)
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
    B, S = _Side(big, dps), _Side(small, dps)
    cells = [(sp.Rational(k, 16), sp.Rational(k + 1, 16)) for k in range(16)]
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
        except (NoClosedForm, NumericalError, Undecidable):
            ok = False
        if ok:
            proved += 1
            continue
        m = (a + b) / 2
        v = search_violation(big, small, dps, [m])
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
    Fa, Fb = B.iv(a), B.iv(b)
    Ga, Gb = S.iv(a), S.iv(b)
    with mp.workdps(B.dps + 20):
        A, Bm, W = (mp.mpf(sp.Float(t, B.dps + 20)) for t in (a, b, w))
        lines = [(mp.zero, Fb[0])]                 # (slope, value at b): f >= f(b)
        if b < 1:
            c = min(sp.Integer(1), b + w)
            Fc = B.iv(c)
            s1 = (Fc[1] - Fb[0]) / mp.mpf(sp.Float(c - b, B.dps + 20))
            lines.append((s1, Fb[0]))               # support line at b
        if a > 0:
            c = max(sp.Integer(0), a - w)
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
