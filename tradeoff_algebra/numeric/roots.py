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

from collections.abc import Callable

from . import budget
from .context import mp

__all__ = ["Level", "level", "level_c", "bracket_level", "widen", "t_bounds", "c_bounds", "HALF"]

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
