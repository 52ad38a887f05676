"""Bracketing root finding on type-I levels, with guaranteed brackets.

A *level* is a pair ``(t, tc)`` of mpf numbers with ``tc = 1 - t``, each with full relative
accuracy, so that both tails of [0, 1] keep their digits (a root at 1e-300 or at 1 - 1e-300 is
found to the working precision, not to an absolute 1e-70).

:func:`bracket_level` locates the transition point of a monotone predicate on [0, 1]: the caller
supplies ``probe(level) -> (k, e)`` where ``k`` is ``+1`` when the level is *certified* to lie
left of the transition, ``-1`` when it is certified to lie at or right of it, and ``0`` when the
operand's enclosures cannot decide. Only certified answers move the bracket, so the returned pair
``(L, H)`` always satisfies ``L <= transition <= H`` whatever the accuracy of the operands:
undecided points only stop the bracket from shrinking further (the operands' uncertainty then
shows up as the bracket's width). The signed estimate ``e`` (positive left of the transition,
or ``None``) enables safeguarded false-position steps (Anderson-Bjorck variant) for speed; the
safeguard bisects whenever three steps in a row fail to halve the bracket.

Bisection runs in the coordinate of the nearer end (``t`` on [0, 1/2], ``1 - t`` on [1/2, 1]),
geometrically while the bracket spans more than a factor 4 and by squaring towards an end
point at 0, so tiny roots cost O(log log) steps.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

import sympy as sp

from ..core.errors import InvalidParameter, NumericalError
from . import budget
from .context import MPF, mp

__all__ = ["Level", "level", "level_c", "bracket_level", "widen", "t_bounds", "c_bounds", "HALF",
           "findroot", "Probe", "Root", "probe_of", "METHODS", "expand_bracket", "Bracket"]

#: A level (t, 1 - t).
Level = tuple


def level(t) -> Level:
    """The level (t, 1 - t) from t (the complement is formed at doubled precision)."""
    t = mp.mpf(t)
    with mp.workprec(2 * mp.prec):
        tc = 1 - t
    return (t, +tc)


def level_c(tc) -> Level:
    """The level (1 - tc, tc) from its complement ``tc``."""
    tc = mp.mpf(tc)
    with mp.workprec(2 * mp.prec):
        t = 1 - tc
    return (+t, tc)


def HALF() -> Level:
    h = mp.mpf(0.5)
    return (h, h)


def _lt(x: Level, y: Level) -> bool:
    """x < y as levels, compared in the coordinate that resolves them (t or 1 - t)."""
    if x[0] >= 0.5 and y[0] >= 0.5:
        return x[1] > y[1]
    return x[0] < y[0]


def _mid(u0, u1):
    """A trial point in (u0, u1), 0 <= u0 < u1 <= 1/2, in the coordinate of the nearer end."""
    if u0 == 0:
        m = u1 * u1
        return m if m > 0 else u1 / 2
    if u1 > 4 * u0:
        return mp.sqrt(u0 * u1)
    return (u0 + u1) / 2


def _trial(L: Level, H: Level) -> Level:
    """The bisection point of the bracket [L, H] (L.t < H.t)."""
    if _lt(L, HALF()) and _lt(HALF(), H):
        return HALF()
    if H[0] <= 0.5:  # lower half: coordinate t
        return level(_mid(L[0], H[0]))
    return level_c(_mid(H[1], L[1]))  # upper half: coordinate 1 - t


def _coord(L: Level, H: Level):
    """(u_L, u_H, lower_half?) in the active coordinate, or None if the bracket straddles 1/2."""
    if H[0] <= 0.5:
        return L[0], H[0], True
    if L[0] >= 0.5:
        return L[1], H[1], False
    return None  # straddles 1/2


def _narrow(L: Level, H: Level, rel) -> bool:
    c = _coord(L, H)
    if c is None:
        return False
    uL, uH, _ = c
    small, width = min(uL, uH), abs(uH - uL)
    return width <= rel * small or width == 0


def bracket_level(probe: Callable[[Level], tuple], *,
                  lo: Level | None = None, hi: Level | None = None,
                  rel_bits: int | None = None, max_iter: int | None = None,
                  best: Callable[[Level, Level], tuple] | None = None
                  ) -> tuple[Level, Level]:
    """Bracket ``[L, H]`` of the transition of a monotone predicate on [lo, hi] (default [0, 1]).

    The caller guarantees that the transition lies in [lo, hi]. Returns levels ``L <= H`` with
    ``L`` certified left of (or equal to ``lo``) and ``H`` certified at or right of the
    transition (or equal to ``hi``). The bracket is narrowed to relative width
    ``2**-rel_bits`` in the coordinate of the nearer end (default: working precision less 30
    bits) unless the operands' enclosures stop it earlier; it is valid in every case.

    The loop runs under the time limit (numeric.budget), reporting the bracket of t as its best
    enclosure, or ``best(L, H)`` when given (the caller's quantity, e.g. the power of an
    inverse).
    """
    L = lo if lo is not None else (mp.zero, mp.one)
    H = hi if hi is not None else (mp.one, mp.zero)
    rel = mp.ldexp(1, -(rel_bits if rel_bits is not None else max(mp.prec - 30, 20)))
    max_iter = max_iter if max_iter is not None else 6 * mp.prec + 400
    eL = eH = None          # estimates at the bracket ends (for false position)
    amb_lo = amb_hi = None  # undecided points found so far (between L and H)
    moved_L = None          # Anderson-Bjorck bookkeeping: which end moved last
    widths: list = []       # bracket widths before each step (safeguard)
    flat = False            # the last step met a flat stretch: bisect next
    for _ in range(max_iter):
        budget.check(best(L, H) if best is not None else (L[0], H[0]))
        if _exhausted(L, H):
            break
        if amb_lo is None:
            if _narrow(L, H, rel):
                break
            m = None
            c = _coord(L, H)
            width = None if c is None else abs(c[1] - c[0])
            widths.append(width)
            # safeguard: bisect when three steps have not halved the bracket
            force = (len(widths) >= 4 and None not in widths[-4:]
                     and widths[-1] > widths[-4] / 2)
            if force:
                widths.clear()
            force = force or flat
            flat = False
            if (not force and c is not None and eL is not None
                    and eH is not None and eL >= 0 >= eH and eL != eH):
                uL, uH, lower = c
                lo_u, hi_u = min(uL, uH), max(uL, uH)
                if hi_u <= 4 * lo_u:
                    um = uL + (uH - uL) * eL / (eL - eH)
                    # keep the step at least a quarter of the target width inside the bracket,
                    # so a root sitting on an end is confirmed by one probe from the other side
                    tol_u = rel * lo_u / 4
                    um = min(max(um, lo_u + tol_u), hi_u - tol_u)
                    if lo_u < um < hi_u:
                        m = level(um) if lower else level_c(um)
            if m is None:
                m = _trial(L, H)
            if not (_lt(L, m) and _lt(m, H)):
                break
            k, e = probe(m)
            e = e if k != 0 else None
            flat = e is not None and (e == eL or e == eH)
            if k > 0:
                if moved_L is True and eH is not None and eL is not None and e is not None:
                    eH = eH * _ab_factor(e, eL)  # Anderson-Bjorck scaling of the retained end
                L, eL = m, e
                moved_L = True
            elif k < 0:
                if moved_L is False and eL is not None and eH is not None and e is not None:
                    eL = eL * _ab_factor(e, eH)
                H, eH = m, e
                moved_L = False
            else:
                amb_lo = amb_hi = m
        else:
            # Undecided points exist: narrow each side of the undecided zone separately.
            done_lo = not _lt(L, amb_lo) or _narrow(L, amb_lo, rel) or _exhausted(L, amb_lo)
            done_hi = not _lt(amb_hi, H) or _narrow(amb_hi, H, rel) or _exhausted(amb_hi, H)
            if done_lo and done_hi:
                break
            if not done_lo:
                m = _trial(L, amb_lo)
                if _lt(L, m) and _lt(m, amb_lo):
                    k = probe(m)[0]
                    if k > 0:
                        L = m
                    elif k < 0:
                        H, amb_lo, amb_hi = m, None, None
                        continue
                    else:
                        amb_lo = m
                elif done_hi:
                    break
            if not done_hi:
                m = _trial(amb_hi, H)
                if _lt(amb_hi, m) and _lt(m, H):
                    k = probe(m)[0]
                    if k < 0:
                        H = m
                    elif k > 0:
                        L, amb_lo, amb_hi = m, None, None
                    else:
                        amb_hi = m
                elif done_lo:
                    break
    return L, H


def _ab_factor(e, e_old):
    """The Anderson-Bjorck factor ``1 - e / e_old`` for the retained end's estimate, or 1/2
    (the Illinois factor) when it is not positive or ``e_old`` is 0 (a flat stretch where the
    estimate vanishes exactly, e.g. f(t) = 0 = alpha beyond the support of an inverse)."""
    if e_old == 0:
        return mp.mpf(0.5)
    f = 1 - e / e_old
    return f if f > 0 else mp.mpf(0.5)


def _exhausted(L: Level, H: Level) -> bool:
    """Stop squaring towards an end point that is itself the transition (exponent limit)."""
    c = _coord(L, H)
    if c is None:
        return False
    u = max(c[0], c[1])
    return min(c[0], c[1]) == 0 and u > 0 and mp.mag(u) < -(1 << 20)


def widen(L: Level, H: Level, bits: int | None = None) -> tuple[Level, Level]:
    """Widen a bracket outwards by a relative ``2**-bits`` (default: working precision less 24
    bits) in the coordinate of each end, to cover the rounding of the operands' closed forms."""
    eps = mp.ldexp(1, -(bits if bits is not None else max(mp.prec - 24, 16)))
    if L[0] <= 0.5:
        L = level(L[0] * (1 - eps)) if L[0] > 0 else L
    else:
        L = level_c(min(L[1] * (1 + eps), mp.mpf(0.5)))
    if H[0] < 0.5:
        H = level(min(H[0] * (1 + eps), mp.mpf(0.5)))
    else:
        H = level_c(H[1] * (1 - eps)) if H[1] > 0 else H
    return L, H


def t_bounds(L: Level, H: Level) -> tuple:
    """``(lo, hi)`` with lo <= t <= hi for every level t in [L, H], rounded outwards (a level in
    the upper half holds its complement exactly; 1 - tc is rounded down or up)."""
    lo = L[0] if L[0] <= 0.5 else mp.fsub(1, L[1], rounding="f")
    hi = H[0] if H[0] <= 0.5 else mp.fsub(1, H[1], rounding="c")
    return lo, hi


def c_bounds(L: Level, H: Level) -> tuple:
    """``(lo, hi)`` with lo <= 1 - t <= hi for every level t in [L, H], rounded outwards."""
    lo = H[1] if H[0] >= 0.5 else mp.fsub(1, H[0], rounding="f")
    hi = L[1] if L[0] >= 0.5 else mp.fsub(1, L[0], rounding="c")
    return lo, hi


# -- the bracketing root finder ----------------------------------------------------------------
# One solver for every search of a sign change on an interval, in the manner of mpmath's
# ``findroot``: the method (how the next trial is chosen) is pluggable, the bracket logic is
# shared. Only certified signs move the bracket, so the result is proved whenever the signs
# are (exact numbers, Arb balls, or enclosures the caller guarantees).

class Probe(NamedTuple):
    """One evaluation of f: ``k`` its certified sign (+1 or -1), 0 for a proved exact zero
    (for an estimate: a zero within the caller's tolerance), ``None`` when the enclosure cannot
    decide; ``e`` an estimate of f (for the secant steps, ``None`` if unknown); ``d`` an
    estimate of f' (for Newton steps, ``None`` if unknown)."""

    k: int | None
    e: Any = None
    d: Any = None


class Root(NamedTuple):
    """The result of :func:`findroot`: the bracket ``lo <= root <= hi`` (``lo == hi`` for a
    proved exact zero, ``exact``), and whether an undecided evaluation stopped the narrowing
    (``undecided``: the bracket is valid but may be wider than asked)."""

    lo: Any
    hi: Any
    exact: bool = False
    undecided: bool = False


def probe_of(v: Any) -> Probe:
    """The :class:`Probe` of a value of f: a number (float, int, mpf, SymPy or Fraction:
    its sign), an enclosure ``(lo, hi)`` (certified where it excludes 0, an exact zero when
    ``lo == hi == 0``) or an Arb ball (decided by Arb's comparisons)."""
    if isinstance(v, Probe):
        return v
    if isinstance(v, tuple):
        lo, hi = v
        k = 1 if lo > 0 else -1 if hi < 0 else 0 if lo == hi == 0 else None
        e = (lo + hi) / 2 if _finite(lo) and _finite(hi) else None
        return Probe(k, e)
    if type(v).__name__ == "arb":
        k = 1 if v > 0 else -1 if v < 0 else 0 if (v.is_exact() and v == 0) else None
        from mpmath.libmp import round_nearest

        from .arb import arb_endpoint
        return Probe(k, arb_endpoint(v.mid(), round_nearest) if v.is_finite() else None)
    if not _finite(v):
        return Probe(None if v != v else (1 if v > 0 else -1), None)
    return Probe(1 if v > 0 else -1 if v < 0 else 0, v)


def _finite(x) -> bool:
    if isinstance(x, float):
        return math.isfinite(x)
    if isinstance(x, MPF):
        return bool(mp.isfinite(x))
    return bool(getattr(x, "is_finite", True)) if not isinstance(x, int) else True


def _real(x):
    """``x`` as a real number of the working arithmetic (float stays float)."""
    return x if isinstance(x, (float, MPF)) else mp.mpf(x) if isinstance(x, int) else \
        mp.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mp.mpf(sp.N(x, mp.dps))


def _like(x, ref):
    """A real ``x`` (float or mpf) in the number type of ``ref`` (exact types get the exact
    binary value of x)."""
    if isinstance(ref, float):
        return float(x)
    if isinstance(ref, MPF):
        return mp.mpf(x)
    if isinstance(ref, int):
        return int(mp.nint(x))
    if isinstance(x, (Fraction, sp.Rational)):
        r = Fraction(int(x.numerator), int(x.denominator))
    elif isinstance(x, float):
        r = Fraction(x)
    else:
        man, exp = mp.mpf(x).man_exp
        r = Fraction(int(man)) * Fraction(2) ** int(exp) * (-1 if x < 0 else 1)
    return r if isinstance(ref, Fraction) else sp.Rational(r.numerator, r.denominator)


def _log(x):
    return math.log(x) if isinstance(x, float) else mp.log(_real(x))


def _exp(u, ref):
    return _like(math.exp(u) if isinstance(u, float) else mp.exp(u), ref)


def _split(lo, hi, split: str):
    """The bisection point of (lo, hi): the middle; ``"integer"``: the integer middle;
    ``"geometric"``: the geometric mean of a positive bracket spanning more than a factor 4
    (1/16 of ``hi`` when lo = 0), so tiny roots cost O(log log) steps."""
    if split == "integer":
        return (lo + hi) // 2
    if split == "geometric" and lo >= 0 and hi > 4 * lo:
        if lo == 0:
            return hi / 16
        if isinstance(lo, MPF):
            return mp.sqrt(lo * hi)
        if isinstance(lo, float):
            return math.sqrt(lo) * math.sqrt(hi)
        return _exp((_log(lo) + _log(hi)) / 2, lo)
    return (lo + hi) / 2


def _secant(lo, hi, elo, ehi, split: str, q):
    """The regula-falsi point of (lo, hi) from the estimates at the ends (of opposite signs),
    in log x for a geometric split of a positive bracket, kept ``q`` (half the stopping
    width) inside the bracket so a root on an end is confirmed from the other side; None
    when undefined."""
    if elo is None or ehi is None or not ((elo > 0 > ehi) or (elo < 0 < ehi)):
        return None
    t = elo / (elo - ehi)
    if not isinstance(t, (float, MPF)):
        t = _real(t)  # exact estimates: the step at the working precision (short rationals)
    if split == "geometric" and lo > 0:
        ulo, uhi = _log(lo), _log(hi)
        m = _exp(ulo + (uhi - ulo) * t, lo)
    elif split == "integer":
        m = lo + int(mp.nint((hi - lo) * _real(t)))
    else:
        m = lo + (hi - lo) * _like(t, lo)
    if split == "integer":
        return min(max(m, lo + 1), hi - 1)
    if q and 2 * q < hi - lo:
        m = min(max(m, lo + q), hi - q)
    return _short(m)


def _short(x):
    """An exact trial point rounded to a binary rational of the working precision (its
    denominator stays short); floats and mpfs as they are."""
    return x if isinstance(x, (float, MPF, int)) else _like(_real(x), x)


def _width_ok(lo, hi, rtol, atol, split) -> bool:
    if split == "integer":
        return hi - lo <= max(1, atol)
    return hi - lo <= atol + rtol * max(abs(lo), abs(hi))


def _bisect(state) -> Any:
    return _split(state.lo, state.hi, state.split)


def _illinois(state) -> Any:
    return _secant(state.lo, state.hi, state.elo, state.ehi, state.split, state.q)


def _newton(state) -> Any:
    x, p = state.last
    if x is None or p.e is None:
        return None
    d = p.d if p.d is not None else (state.df(x) if state.df is not None else None)
    if d is None or d == 0:
        return None
    step = p.e / d if isinstance(p.e / d, (float, MPF)) else _real(p.e) / _real(d)
    step = _like(step, x)
    if state.q and abs(step) < state.q:  # converged: step past the root to confirm it
        step = state.q if step > 0 else -state.q
    if state.step is not None and abs(step) > abs(state.step) / 2:
        state.step = None  # not converging: bisect once
        return None
    state.step = step
    return _short(x - step)


def _collapse(state) -> Any:
    """Illinois, and once the secant through the two newest points has converged (its root
    moved by at most 1/32 of the bracket since the last trial), a step just past that root,
    away from the newest point, by twice that change (the secant's error estimate): the trial
    lands on the other side of the crossing and the bracket collapses onto the root as fast as
    the secant converges. Two such steps that land on the side they came from end the
    collapse (regula falsi and the bisection safeguard decide). In log x for a geometric split
    of a positive bracket, like the secant steps."""
    state.collapsing = False
    r_prev, state.r = state.r, None
    lo, hi = state.lo, state.hi
    if len(state.pts) == 2 and state.split != "integer":
        log = state.split == "geometric" and lo > 0
        (x1, g1), (x2, g2) = state.pts
        if g1 != g2:
            u1, u2 = (_log(x1), _log(x2)) if log else (_real(x1), _real(x2))
            g1, g2 = _real(g1), _real(g2)
            state.r = r = u2 - g2 * (u2 - u1) / (g2 - g1)
            ulo, uhi = (_log(lo), _log(hi)) if log else (_real(lo), _real(hi))
            if state.misses < 2 and r_prev is not None and ulo < r < uhi:
                q = _real(state.q) / (_real(hi) if log else 1)  # half the stopping width
                est = 2 * abs(r - r_prev) + q / 4
                if est <= (uhi - ulo) / 16:
                    # the newest point lies left of the crossing when its estimate has the
                    # sign of f there
                    u = r + est if (g2 > 0) == (state.sa > 0) else r - est
                    m = _short(_exp(u, lo) if log else _like(u, lo))
                    if lo < m < hi:
                        state.collapsing = True
                        return m
    return _illinois(state)


#: The methods of :func:`findroot`: each picks the next trial from the state (or None: bisect).
METHODS: dict[str, Callable] = {"bisect": lambda s: None, "illinois": _illinois,
                                "newton": _newton, "collapse": _collapse}


class _State:
    __slots__ = ("lo", "hi", "elo", "ehi", "split", "q", "last", "df", "step",
                 "sa", "pts", "r", "misses", "collapsing")


def findroot(f: Callable[[Any], Any], bracket: tuple, *, method: str = "illinois",
             df: Callable[[Any], Any] | None = None, rtol: Any = None, atol: Any = 0,
             done: Callable[[Any, Any], bool] | None = None, split: str = "arithmetic",
             ends: tuple[int, int] | None = None, undecided: str = "stop",
             max_iter: int | None = None, best: Callable[[Any, Any], tuple] | None = None,
             start: Any = None) -> Root:
    """A bracket ``[lo, hi]`` of the sign change of ``f`` on ``bracket = (a, b)``, a < b.

    ``f(x)`` returns a number, an enclosure ``(lo, hi)``, an Arb ball or a :class:`Probe`
    (:func:`probe_of`); only certified signs move the ends, so ``f(lo)`` has the certified
    sign of ``f(a)`` and ``f(hi)`` that of ``f(b)`` (or they are the ends themselves), and a
    proved zero returns ``lo == hi``. The signs at the ends are evaluated unless given as
    ``ends = (sign at a, sign at b)`` (or the :class:`Probe` there, with its estimate); no
    certified sign change raises :class:`InvalidParameter` naming the bracket.

    ``method``: ``"bisect"``; ``"illinois"`` (regula falsi with the Illinois halving of the
    retained end's estimate, Dowell & Jarratt 1971); ``"collapse"`` (Illinois, then steps just
    past the converged secant root so that the bracket, not only the estimate, converges:
    for costly certified evaluations); ``"newton"`` (from the newest point, with
    ``df(x)`` or the probe's ``d``). The secant and Newton steps fall back to bisection when
    they leave the bracket or when three steps have not halved it, so every method converges
    at least as fast as bisection (Newton: when a step is not at most half the last); a
    converged step (below half the stopping width) is stretched to it, so the next trial lies
    past the root and confirms it. ``split``: how to bisect (``"arithmetic"``, ``"geometric"``
    for positive brackets over many orders of magnitude, the secant then in log x;
    ``"integer"`` for integer brackets, stopping at ``hi - lo = 1``).

    It stops when ``hi - lo <= atol + rtol * max(|lo|, |hi|)`` (default ``rtol``: the working
    precision less 4 bits; 4 ulp for floats), when ``done(lo, hi)``, when the trial is no
    longer strictly inside the bracket (the precision is exhausted), or at an undecided
    evaluation: ``undecided="stop"`` returns there, ``"narrow"`` narrows each side of the
    undecided zone by bisection. ``start`` is the first trial point (a guess of the root).
    Runs under the time limit (numeric.budget), reporting ``best(lo, hi)`` when given (the
    caller's quantity; nothing otherwise).
    """
    choose = METHODS.get(method)
    if choose is None:
        raise InvalidParameter("method", method, "one of " + ", ".join(METHODS), "findroot")
    if split not in ("arithmetic", "geometric", "integer"):
        raise InvalidParameter("split", split, "'arithmetic', 'geometric' or 'integer'",
                               "findroot")
    if undecided not in ("stop", "narrow"):
        raise InvalidParameter("undecided", undecided, "'stop' or 'narrow'", "findroot")
    a, b = bracket
    if not a < b:
        raise InvalidParameter("bracket", bracket, "an interval (a, b) with a < b", "findroot")
    if rtol is None:
        rtol = 0 if split == "integer" else 4 * sys.float_info.epsilon \
            if isinstance(a, float) else mp.ldexp(1, -(mp.prec - 4))
    if ends is None:
        pa, pb = probe_of(f(a)), probe_of(f(b))
        for x, p in ((a, pa), (b, pb)):
            if p.k == 0:
                return Root(x, x, True)
        if pa.k is None or pb.k is None or pa.k == pb.k:
            show = {None: "undecided", 1: "+", -1: "-"}
            raise InvalidParameter("bracket", bracket, "an interval at whose ends f has "
                                   "certified opposite signs", "findroot",
                                   f"the signs of f at [{a}, {b}] are {show[pa.k]} and "
                                   f"{show[pb.k]}")
    else:
        pa, pb = (e if isinstance(e, Probe) else Probe(e) for e in ends)
    s = _State()
    s.lo, s.hi, s.elo, s.ehi, s.split, s.df, s.step = a, b, pa.e, pb.e, split, df, None
    s.sa, s.pts, s.r, s.misses, s.collapsing = pa.k, [], None, 0, False
    s.last = (a, pa) if pa.e is not None and (pb.e is None or abs(pa.e) <= abs(pb.e)) \
        else (b, pb) if pb.e is not None else (None, None)
    sa = pa.k
    max_iter = max_iter if max_iter is not None else 8 * mp.prec + 400
    widths: list = []
    moved = None  # which end moved last (Illinois)
    zone = None   # (u0, u1): undecided points found so far, between lo and hi

    def finished(lo, hi) -> bool:
        return _width_ok(lo, hi, rtol, atol, split) or (done is not None and done(lo, hi))

    for _ in range(max_iter):
        budget.check(best(s.lo, s.hi) if best is not None else None)
        if zone is not None:
            # an undecided point: narrow each side of the undecided zone by bisection
            moved_any = False
            for left in (True, False):
                if zone is None:
                    break
                lo, hi = (s.lo, zone[0]) if left else (zone[1], s.hi)
                if finished(lo, hi):
                    continue
                m = _split(lo, hi, split)
                if not lo < m < hi:
                    continue
                moved_any = True
                k = probe_of(f(m)).k
                if k == 0:
                    return Root(m, m, True)
                if k is None:
                    zone = (m, zone[1]) if left else (zone[0], m)
                elif k == sa:
                    s.lo = m
                    zone = zone if left else None  # right of the zone: the zone is passed
                else:
                    s.hi = m
                    zone = None if left else zone
            if not moved_any:
                return Root(s.lo, s.hi, False, True)
            continue
        if finished(s.lo, s.hi):
            break
        width = s.hi - s.lo
        widths.append(width)
        # Newton has its own safeguard (each step at most half the last); it converges from
        # one side and steps past the root at the end, so the bracket need not halve meanwhile
        force = method != "newton" and len(widths) >= 4 and widths[-1] > widths[-4] / 2
        if force:
            widths.clear()
        s.q = 0 if split == "integer" else (atol + rtol * max(abs(s.lo), abs(s.hi))) / 2
        m = None if force else choose(s)
        if start is not None:
            m, start = start, None
        if m is None or not s.lo < m < s.hi:
            m = _split(s.lo, s.hi, split)
        if not s.lo < m < s.hi:
            break
        p = probe_of(f(m))
        if p.k == 0:
            return Root(m, m, True)
        if p.k is None:
            if undecided == "stop":
                return Root(s.lo, s.hi, False, True)
            zone = (m, m)
            continue
        s.last = (m, p) if p.e is not None else (None, None)
        was = moved
        if p.k == sa:
            if moved == "lo" and s.ehi is not None:
                s.ehi = s.ehi / 2  # Illinois: the end retained twice has its estimate halved
            s.lo, s.elo, moved = m, p.e, "lo"
        else:
            if moved == "hi" and s.elo is not None:
                s.elo = s.elo / 2
            s.hi, s.ehi, moved = m, p.e, "hi"
        # the secant's two newest points, and collapse steps that stayed on their side
        s.misses = s.misses + 1 if s.collapsing and moved == was else 0
        s.collapsing = False
        if p.e is not None:
            s.pts = (s.pts + [(m, p.e)])[-2:]
    return Root(s.lo, s.hi)


# -- widening a bracket until both ends are certified ------------------------------------------
class Bracket(NamedTuple):
    """The result of :func:`expand_bracket`: ``lo < hi`` with ``f(lo)`` certified of the sign
    left of the root (``sa``) and ``f(hi)`` of the other, and the probes there (None for an
    end the caller gave without one); ``lo == hi`` for a proved exact zero."""

    lo: Any
    hi: Any
    plo: Probe | None = None
    phi: Probe | None = None


def expand_bracket(f: Callable[[Any], Any], trial: Callable[[Any, Any, Any, int], Any], *,
                   sa: int = 1, lo: Any = None, hi: Any = None, plo: Probe | None = None,
                   phi: Probe | None = None, max_iter: int = 4000,
                   fail: Callable[[Any, Any], Any] | None = None,
                   what: str | Callable[[], str] = "the search",
                   best: Callable[[Any, Any], tuple] | None = None) -> Bracket:
    """Widen a search until a sign change of ``f`` is certified: the :class:`Bracket` of the
    nearest certified points on each side that the trials met, for :func:`findroot`.

    ``f(x)`` returns what :func:`findroot` accepts (a number, an enclosure, an Arb ball, a
    :class:`Probe`); ``sa`` is the sign of f left of the root. ``lo``/``hi`` are ends already
    known (``plo``/``phi`` their probes, if any). ``trial(L, H, last, i)`` gives the i-th trial
    point from the ends known so far (None where unknown) and the last trial (None at the
    first): the caller's schedule (doubling steps from a start, geometric growth from 0, a
    window widening around an estimate), or None when the domain or the caller's cap is
    exhausted. Only certified signs set an end (an undecided trial only widens the search), and
    an end moves only inwards (towards the other). It stops once both ends are known; when the
    trials run out (``trial`` gives None or ``max_iter`` trials) it returns ``fail(L, H)`` or
    raises :class:`NumericalError` naming ``what``. Runs under the time limit
    (numeric.budget), reporting ``best(L, H)`` when given.
    """
    L, H, last = lo, hi, None
    for i in range(max_iter):
        if L is not None and H is not None:
            return Bracket(L, H, plo, phi)
        budget.check(best(L, H) if best is not None else None)
        x = trial(L, H, last, i)
        if x is None:
            break
        p = probe_of(f(x))
        last = x
        if p.k == 0:
            return Bracket(x, x, p, p)
        if p.k == sa and (L is None or x > L) and (H is None or x < H):
            L, plo = x, p
        elif p.k == -sa and (H is None or x < H) and (L is None or x > L):
            H, phi = x, p
    else:
        if L is not None and H is not None:
            return Bracket(L, H, plo, phi)
    if fail is not None:
        return fail(L, H)
    name = what() if callable(what) else what
    raise NumericalError(f"{name}: no bracket of a sign change was found")
