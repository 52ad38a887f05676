"""Guaranteed enclosure of the maximum of a concave function on an interval.

:func:`max_concave` runs a golden-section search on a concave function ``psi`` given by
enclosures ``psi(t) -> (lo, hi)``. The bracket only shrinks on a *certified* comparison
(``lo`` of one trial point at least ``hi`` of the other), which by concavity keeps the maximiser
inside it. The enclosure of the maximum is then

* lower: the largest ``lo`` over all evaluated points (each is a value the function attains);
* upper: concavity puts the graph below the extension of every chord outside the chord's own
  interval, so on each piece of the final bracket ``[a, c, d, b]`` the maximum is bounded by the
  extended chords of the neighbouring points (the minimum of two lines on ``[c, d]``).

:func:`golden_section` is the same search on plain numbers (floats or mpfs) for an estimate of
the optimum of a unimodal function, where any point is valid and the optimum only the tightest
(a Chernoff exponent, a Renyi order): it returns the best point it evaluated.

No derivatives are needed, kinks at the maximiser are fine (the bound is then linear in the
bracket width instead of quadratic), and a maximiser on an end of the interval is found too.
It serves the convex conjugate f^*(y) = sup_alpha {y alpha - f(alpha)} (Dong, Roth & Su,
Eq. (7)), a concave problem in alpha.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from . import budget
from .context import mp

__all__ = ["max_concave", "golden_section", "arb_max_concave"]


def _chord_ext(p_near, p_far, span_near_far, reach):
    """Upper bound of a concave function at distance ``reach`` beyond ``near`` (away from far).

    psi(near + reach) <= psi(near) + (psi(near) - psi(far)) * reach / span, with enclosures.
    """
    slope_hi = p_near[1] - p_far[0]
    return p_near[1] + max(slope_hi, mp.zero) * reach / span_near_far


def _upper(a, c, d, b, pa, pc, pd, pb):
    """Upper bound of max psi over [a, b] given the four points (concavity, chord extensions)."""
    # maximiser in [a, c]: extension of chord (d -> c) to the left
    u1 = _chord_ext(pc, pd, d - c, c - a)
    # maximiser in [d, b]: extension of chord (c -> d) to the right
    u3 = _chord_ext(pd, pc, d - c, b - d)
    # maximiser in [c, d]: min of the extension of (a -> c) rightwards and (b -> d) leftwards
    cands = []
    s1 = (pc[1] - pa[0]) / (c - a) if c > a else None  # line1(t) = pc.hi + s1 (t - c)
    s2 = (pd[1] - pb[0]) / (b - d) if b > d else None  # line2(t) = pd.hi + s2 (d - t)

    def line1(t):
        return mp.inf if s1 is None else pc[1] + s1 * (t - c)

    def line2(t):
        return mp.inf if s2 is None else pd[1] + s2 * (d - t)

    for t in (c, d):
        cands.append(min(line1(t), line2(t)))
    if s1 is not None and s2 is not None and s1 + s2 != 0:
        tx = (pd[1] - pc[1] + s1 * c + s2 * d) / (s1 + s2)
        if c < tx < d:
            cands.append(min(line1(tx), line2(tx)))
    u2 = max(cands)
    if u2 == mp.inf:
        u2 = max(pc[1], pd[1]) if c == d else mp.inf
    return max(u1, u2, u3)


def max_concave(psi: Callable[[object], tuple], a, b, *, abs_tol=None,
                max_iter: int | None = None,
                best_of: Callable[[object, object], tuple] | None = None) -> tuple:
    """Enclosure ``(lo, hi, (a', b'))`` of ``max_{t in [a, b]} psi(t)`` for concave ``psi``.

    ``psi(t)`` returns an enclosure ``(lo, hi)`` of the value at ``t``. The search stops when the
    enclosure is narrower than ``abs_tol`` (default: working precision less 20 bits, relative to
    the size of the values), when the bracket ``[a', b']`` of the maximiser can no longer be
    shrunk with certainty, or after ``max_iter`` steps; the enclosure is valid in every case.
    The loop runs under the time limit (numeric.budget), reporting the current enclosure of the
    maximum as its best, or ``best_of(lo, hi)`` when given (the caller's quantity).
    """
    a, b = mp.mpf(a), mp.mpf(b)
    invphi = (mp.sqrt(5) - 1) / 2
    max_iter = max_iter if max_iter is not None else 3 * mp.prec + 100
    pa, pb = psi(a), psi(b)
    c, d = b - invphi * (b - a), a + invphi * (b - a)
    pc, pd = psi(c), psi(d)
    best = max(pa[0], pb[0], pc[0], pd[0])
    scale = 1 + max(abs(pa[0]), abs(pb[0]), abs(pc[0]), abs(pd[0]))
    tol = abs_tol if abs_tol is not None else mp.ldexp(scale, -(mp.prec - 20))
    hi = _upper(a, c, d, b, pa, pc, pd, pb)
    for _ in range(max_iter):
        if hi - best <= tol or not (a < c < d < b):
            break
        encl = (best, max(hi, best))
        budget.check(best_of(*encl) if best_of is not None else encl)
        if pd[0] >= pc[1]:      # psi(d) >= psi(c): the maximum lies in [c, b]
            a, pa, c, pc = c, pc, d, pd
            d = a + invphi * (b - a)
            pd = psi(d)
            best = max(best, pd[0])
        elif pc[0] >= pd[1]:    # psi(c) >= psi(d): the maximum lies in [a, d]
            b, pb, d, pd = d, pd, c, pc
            c = b - invphi * (b - a)
            pc = psi(c)
            best = max(best, pc[0])
        else:                   # undecided within the operands' enclosures
            break
        hi = min(hi, _upper(a, c, d, b, pa, pc, pd, pb))
    return best, max(hi, best), (a, b)


def golden_section(fn: Callable[[Any], Any], a: Any, b: Any, *, iters: int,
                   maximise: bool = False, ends: bool = False) -> tuple:
    """``(x, fn(x))``, the best point a golden-section search of ``iters`` steps on [a, b]
    evaluated (the smallest value, or the largest with ``maximise``; the ends a, b among the
    candidates with ``ends``), for a unimodal ``fn`` of floats or mpfs (Kiefer 1953). Ties
    keep the left part. An estimate: the value is attained at x, but nothing proves it the
    optimum (:func:`max_concave` encloses the maximum of a concave function)."""
    g = (math.sqrt(5) - 1) / 2 if isinstance(a, float) and isinstance(b, float) \
        else (mp.sqrt(5) - 1) / 2
    sgn = -1 if maximise else 1
    seen: list = []

    def ev(x):
        v = fn(x)
        seen.append((v, x))
        return sgn * v

    if ends:
        ev(a)
        ev(b)
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = ev(c), ev(d)
    for _ in range(iters):
        if fc <= fd:  # the optimum lies in [a, d]
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = ev(c)
        else:         # the optimum lies in [c, b]
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = ev(d)
    v, x = min(seen, key=lambda t: sgn * t[0])
    return x, v


# -- the same search in Arb ---------------------------------------------------------------------
def _arb_chord_ext(p_near, p_far, span, reach):
    """Upper end of psi(near + reach) (away from far) for concave psi: the chord's extension,
    with the balls' upper end at near and lower end at far (an upper bound of the slope)."""
    from flint import arb

    slope = arb(p_near.upper()) - arb(p_far.lower())
    slope = arb.max(slope, arb(0))
    return (arb(p_near.upper()) + slope * reach / span).upper()


def _arb_upper(a, c, d, b, pa, pc, pd, pb):
    """An upper bound (an exact Arb number) of max psi over [a, b] from four points: the
    chord extensions of :func:`_upper`, each end rounded up by Arb."""
    from flint import arb

    u1 = _arb_chord_ext(pc, pd, d - c, c - a)
    u3 = _arb_chord_ext(pd, pc, d - c, b - d)
    ch, dh = arb(pc.upper()), arb(pd.upper())
    bounds = [u1, u3]
    if c > a and b > d:
        s1 = (ch - arb(pa.lower())) / (c - a)  # psi(t) <= ch + s1 (t - c) for t >= c
        s2 = (dh - arb(pb.lower())) / (b - d)  # psi(t) <= dh + s2 (d - t) for t <= d
        l1c, l1d = ch, ch + s1 * (d - c)
        l2c, l2d = dh + s2 * (d - c), dh
        # max over [c, d] of min(l1, l2) <= min(max l1, max l2) (always), and <= the larger
        # of the ends' minima and the crossing's value (where the lines cross upwards)
        u2 = arb.min(arb.max(l1c, l1d), arb.max(l2c, l2d)).upper()
        if s1 + s2 > 0:
            tx = (dh - ch + s1 * c + s2 * d) / (s1 + s2)
            cross = arb.max(arb.max(arb.min(l1c, l2c), arb.min(l1d, l2d)), ch + s1 * (tx - c))
            u2 = arb.min(arb(u2), arb(cross.upper())).upper()
        bounds.append(u2)
    else:
        bounds.append(arb.max(ch, dh).upper())
    out = bounds[0]
    for x in bounds[1:]:
        out = arb.max(arb(out), arb(x)).upper()
    return arb(out)


def arb_max_concave(psi: Callable[[object], object], max_iter: int | None = None,
                    bracket: tuple | None = None):
    """An Arb ball containing ``max_{t in [0, 1]} psi(t)`` for a concave ``psi`` given as Arb
    balls at exact dyadic points (``psi(t) -> arb | None``), or None where ``psi`` gives None.
    ``bracket`` = (a, b, psi(a), psi(b)), exact a < b, starts the search on [a, b] where the
    caller has proved that a maximiser lies (by the same certain comparisons).

    The golden-section search of :func:`max_concave` in Arb: the bracket shrinks only on a
    certain comparison of two balls (which by concavity keeps the maximiser inside), the lower
    end is the largest lower end evaluated (a value attained), the upper end the chord
    extensions over the final bracket (:func:`_arb_upper`); the trial points are the exact
    midpoints of the golden-section balls, so every operation is Arb's and the ball holds the
    maximum whatever the stopping point. Stops when the enclosure is narrower than the working
    precision (relative, less 16 bits), when no comparison decides, or after ``max_iter``."""
    from flint import arb, ctx

    invphi = (arb(5).sqrt() - 1) / 2

    def pt(x):
        return arb(x.mid())

    if bracket is None:
        a, b = arb(0), arb(1)
        pa, pb = psi(a), psi(b)
    else:
        a, b, pa, pb = bracket
    c, d = pt(b - invphi * (b - a)), pt(a + invphi * (b - a))
    pc, pd = psi(c), psi(d)
    if any(p is None for p in (pa, pb, pc, pd)):
        return None
    best = arb.max(arb.max(arb(pa.lower()), arb(pb.lower())),
                   arb.max(arb(pc.lower()), arb(pd.lower())))
    hi = _arb_upper(a, c, d, b, pa, pc, pd, pb)
    rel = arb(2) ** (16 - ctx.prec)
    for _ in range(max_iter if max_iter is not None else 2 * ctx.prec + 64):
        if hi - best <= rel * abs(best) or not (a < c and c < d and d < b):
            break
        budget.check()
        if pd >= pc:  # the maximum lies in [c, b]
            a, pa, c, pc = c, pc, d, pd
            d = pt(a + invphi * (b - a))
            pd = psi(d)
            if pd is None:
                return None
            best = arb.max(best, arb(pd.lower()))
        elif pc >= pd:  # the maximum lies in [a, d]
            b, pb, d, pd = d, pd, c, pc
            c = pt(b - invphi * (b - a))
            pc = psi(c)
            if pc is None:
                return None
            best = arb.max(best, arb(pc.lower()))
        else:
            break
        if a < c and c < d and d < b:
            hi = arb.min(hi, _arb_upper(a, c, d, b, pa, pc, pd, pb))
    return best.union(arb.max(hi, best))
