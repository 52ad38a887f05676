"""Enclosure of a convex trade-off curve at a level from a certified bracket of its parameter.

A convex trade-off curve given parametrically, ``lam -> (alpha(lam), f(alpha(lam)))`` with
alpha non-increasing in lam and a supporting slope ``-t(lam)`` at each point (the
Neyman--Pearson test at threshold t minimises ``beta + t alpha`` over all tests; Dong, Roth & Su,
Def. 2 and Prop. 1), is evaluated at a level alpha from two points L, H with
``alpha(H) <= alpha <= alpha(L)`` proved: :func:`curve_enclosure` bounds f(alpha) (or the power
1 - f(alpha))

* from above by the monotone bound f(alpha) <= f(alpha(H)) and the chord through L and H
  (f is convex);
* from below by f(alpha) >= f(alpha(L)) and the supporting lines
  ``f(alpha) >= f(alpha(p)) - t(p) (alpha - alpha(p))`` at L and H,

so the width is of second order in the width of the bracket. :func:`level_probe` is the
comparison of alpha(lam) with alpha that certifies such a bracket (for
:func:`~tradeoff_algebra.numeric.roots.findroot` and
:func:`~tradeoff_algebra.numeric.roots.bracket_level`). Shared by ``bounds.mixtures`` (the joint
pairs of Wang et al.) and ``families.gaussian_mixture``.

A point is any object with ``get(name) -> (lo, hi)`` for ``"A"`` = alpha, ``"Ac"`` = 1 - alpha,
``"B"`` = f(alpha), ``"Bc"`` = 1 - f(alpha) and ``"slope"`` = t, and optionally ``prec``, the bits
at which its enclosures were computed.
"""

from __future__ import annotations

from typing import Any

from .context import mp
from .roots import Probe

__all__ = ["curve_enclosure", "level_probe", "alpha_gap", "arb_curve_enclosure"]


def level_probe(p: Any, a, ac, lower: bool) -> Probe:
    """The comparison of alpha(p) with the level (a, ac) = (alpha, 1 - alpha): sign +1 when
    alpha(p) >= alpha is certified (p lies left of the root in lam), -1 when alpha(p) <= alpha,
    None when undecided, with the estimate log(alpha(p)/alpha) (or log((1 - alpha)/(1 -
    alpha(p))) in the upper half, ``lower`` false), positive left of the root."""
    lo, hi = p.get("A" if lower else "Ac")
    if lower:
        k = 1 if lo >= a else (-1 if hi <= a else None)
    else:
        k = 1 if hi <= ac else (-1 if lo >= ac else None)
    m = (lo + hi) / 2
    if not m > 0:
        return Probe(k, None)
    return Probe(k, mp.log(m / a) if lower else mp.log(ac / m))


def alpha_gap(p: Any, a, ac, lower: bool) -> tuple:
    """Enclosure of alpha - alpha(p), in the coordinate that keeps its digits."""
    if lower:
        lo, hi = p.get("A")
        return a - hi, a - lo
    lo, hi = p.get("Ac")
    return lo - ac, hi - ac


def curve_enclosure(L: Any, H: Any, a, ac, *, power: bool = False) -> tuple:
    """(lo, hi) of f(alpha) (or 1 - f(alpha) with ``power``) from the certified bracket
    alpha(H) <= alpha <= alpha(L) (module docstring). Computed at the points' precision, each
    supporting line with the rounding of ``t (alpha - alpha(t))`` added, and widened by
    2^-(prec - 8) of the caller's precision; clipped to [0, 1]."""
    lower = a <= ac
    tiny = mp.ldexp(1, -mp.prec + 8)
    with mp.workprec(max(getattr(L, "prec", mp.prec), getattr(H, "prec", mp.prec))):
        lo, hi = _enclosure(L, H, a, ac, lower, power)
        scale = max(abs(lo), abs(hi))
        return max(lo - tiny * scale, mp.zero), min(hi + tiny * scale, mp.one)


def _enclosure(L: Any, H: Any, a, ac, lower: bool, power: bool) -> tuple:
    rnd = mp.ldexp(1, -mp.prec + 8) * (a if lower else ac)  # rounding of alpha - alpha(t)
    dL, dH = alpha_gap(L, a, ac, lower), alpha_gap(H, a, ac, lower)
    span = dH[1] - dL[0]  # >= alpha(L) - alpha(H)
    # the chord weight theta = (alpha - alpha(H)) / (alpha(L) - alpha(H)) in [0, 1], from below
    theta = min(max(dH[0], mp.zero) / span, mp.one) if span > 0 else mp.zero
    if not power:
        bL, bH = L.get("B"), H.get("B")
        hi = bH[1]
        if bL[1] <= bH[1]:
            hi = min(hi, bH[1] - (bH[1] - bL[1]) * theta)
        lo = bL[0]
        for p, d in ((L, dL), (H, dH)):
            s_lo, s_hi = p.get("slope")
            if not mp.isfinite(s_hi):
                continue
            lo = max(lo, p.get("B")[0] - (s_hi * d[1] if d[1] >= 0 else s_lo * d[1])
                     - s_hi * rnd)
    else:
        cL, cH = L.get("Bc"), H.get("Bc")
        lo = cH[0]
        if cL[0] >= cH[0]:
            lo = max(lo, cH[0] + (cL[0] - cH[0]) * theta)
        hi = cL[1]
        for p, d in ((L, dL), (H, dH)):
            s_lo, s_hi = p.get("slope")
            if not mp.isfinite(s_hi):
                continue
            hi = min(hi, p.get("Bc")[1] + (s_hi * d[1] if d[1] >= 0 else s_lo * d[1])
                     + s_hi * rnd)
    return lo, hi


# -- the same bounds in Arb ---------------------------------------------------------------------
def arb_curve_enclosure(L: dict, H: dict, a, ac, *, power: bool = False):
    """An Arb ball of f(alpha) (``power``: 1 - f(alpha)) from two points given as Arb balls
    (dicts with ``"A"``, ``"Ac"``, ``"B"``, ``"Bc"``, ``"slope"``) and the level as balls a, ac,
    or None where the bracket alpha(H) <= alpha <= alpha(L) is not proved by the balls. The
    bounds of :func:`curve_enclosure` (monotone, chord, supporting lines), each formed in Arb,
    so every end is rigorous: f(alpha) <= min(B(H), chord), f(alpha) >= max(B(L),
    B(p) - t(p) (alpha - alpha(p))) for p = L, H; the power by the same bounds on 1 - f."""
    from flint import arb

    lower = a.mid() <= ac.mid()
    if lower:
        if not (L["A"] >= a and H["A"] <= a):
            return None
        dL, dH, span = a - L["A"], a - H["A"], L["A"] - H["A"]  # alpha - alpha(p)
    else:
        if not (L["Ac"] <= ac and H["Ac"] >= ac):
            return None
        dL, dH, span = L["Ac"] - ac, H["Ac"] - ac, H["Ac"] - L["Ac"]
    key = "Bc" if power else "B"
    sgn = -1 if power else 1
    # (f: the upper bounds are B(H) and the chord, the lower ones B(L) and the supporting
    # lines; 1 - f: the same with the roles of upper and lower exchanged)
    mono_hi, mono_lo = (L[key], H[key]) if power else (H[key], L[key])
    ups = [mono_hi.upper()]
    lows = [mono_lo.lower()]
    if span > 0:
        theta = dH / span  # (alpha - alpha(H))/(alpha(L) - alpha(H)), in [0, 1]
        chord = H[key] + theta * (L[key] - H[key])  # (theta's radius times a small gap)
        (lows if power else ups).append(chord.lower() if power else chord.upper())
    for p, d in ((L, dL), (H, dH)):
        line = p[key] - sgn * p["slope"] * d
        if line.is_finite():
            (ups if power else lows).append(line.upper() if power else line.lower())
    hi = min(arb(x) for x in ups)
    lo = max(arb(x) for x in lows)
    hi = min(hi, arb(1))
    lo = max(lo, arb(0))
    if lo > hi:
        return None
    return lo.union(hi)
