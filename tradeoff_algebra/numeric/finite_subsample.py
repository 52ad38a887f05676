"""The exact finite pairs of f_p and C_p(f) for a finite f: mixing with the identity and
subsampling of a finite pair, atom by atom (symmetric f) or as the hull of knots (any f).

Let f = T(P, Q) be finite, with atoms (r_i, P_i, Q_i) by decreasing likelihood ratio r_i = Q_i/P_i
(``numeric.finite``; r = oo where P_i = 0).

**Mixing** (Dong, Roth & Su, Sec. 4.1): f_p = p f + (1 - p) Id = T(P, (1 - p) P + p Q), since a
test phi has size E_P phi and the power 1 - f_p is (1 - p) E_P phi + p E_Q phi at its best. Its
atoms are (rho_i, P_i, (1 - p) P_i + p Q_i) with rho_i = 1 - p + p r_i, an increasing function of
r_i: the order of the atoms is f's, and distinct ratios stay distinct (p > 0).

**Subsampling** of a symmetric f (Def. 6 and Eq. (13)): C_p(f) = min{f_p, f_p^{-1}}^{**} is f_p
up to the fixed point x* of f, the line of slope -1 from (x*, f_p(x*)) to its mirror image, and
f_p^{-1} beyond. In atoms: with A = {i: r_i > 1} (the losses above 0; x* lies in the ratio-1
segment of f, or at its knot after A),

    C_p(f) = T(P', Q'),  atoms  (rho_i, P_i, (1 - p) P_i + p Q_i)           for i in A, decreasing,
                                (1,     m_0, m_0)                            the slope -1 piece,
                                (1/rho_i, (1 - p) P_i + p Q_i, P_i)          for i in A, mirrored,

with m_0 = P(r = 1) + (1 - p) sum_{i in A} (Q_i - P_i): the slope -1 piece runs from alpha =
P(A) to its mirror f_p(P(A)) = 1 - p Q(A) - (1 - p) P(A), a width 1 - (2 - p) P(A) - p Q(A); by
symmetry P(r < 1) = Q(A), so that width is P(r = 1) + (1 - p)(Q(A) - P(A)) >= 0, a sum of
positive terms (no cancellation). The three groups are in decreasing order of ratio by
construction (rho_i > 1 decreasing in r_i, then 1, then 1/rho_i increasing in r_i), and their
ratios are distinct, so the table needs no comparison of ratios (``FiniteLoss.from_atoms`` with
``ordered``). A ratio oo (P_i = 0) gives the atom (oo, 0, p Q_i) and its mirror (0, p Q_i, 0).

**Subsampling** of any finite f (Def. 6): the epigraph of min{f_p, f_p^{-1}} is the union of
the two epigraphs, so C_p(f) is the lower convex hull of the knots of f_p and of their mirror
images (:func:`hull_finite_loss`): exactly in Fraction where the masses are rational, else with
every comparison decided by Arb balls of the exact knots (SymPy proving the zeros).

Masses are exact SymPy numbers built from f's exact table (rationals when f's masses and p are
rational: then every result is exact) or from its symbolic table (closed forms in e^eps, whose
Arb balls the finite loss encloses); the operand's atoms are classified by the sign of
log r_i exactly (their exact ratio keys), never by a rounded number. A symmetric operand too
large for a symbolic table whose ratios lie on one lattice (RR(1, 3)^30 and beyond) has C_p(f)
built from its Arb lattice laws instead (``numeric.subsample_balls``: the same atoms, ordered by
their integer exponents).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from ..core.errors import NoClosedForm, TradeOffError
from .context import arb_precision
from .curves import BAND_TOL_MIN, CURVE_BANDS
from .finite import FiniteLoss, finite_loss
from .finite_np import rising_band
from .profile_band import Band

__all__ = ["mix_finite_loss", "subsample_finite_loss", "hull_finite_loss", "ordered_band",
           "MAX_OPERAND_ATOMS"]

#: The most atoms of an operand whose exact atoms are read (a symbolic table beyond this is
#: SymPy work the other routes do better).
MAX_OPERAND_ATOMS = 4000


def _operand_atoms(fl: FiniteLoss) -> list | None:
    """The operand's atoms (ratio, P, Q) by decreasing ratio with exact SymPy entries (``oo``
    for P = 0), equal ratios merged, or None (too many, or no exact table). Closed-form masses
    only where the loss's own symbolic table is small (``FiniteValues.ARB_SYMBOLIC_ATOMS``: the
    table of RR(1, 3)^30 in SymPy took 29 s)."""
    if not fl.is_rational and fl._op_count() > 4 * fl.ARB_SYMBOLIC_ATOMS:
        return None
    try:
        atoms = fl.raw_atoms(MAX_OPERAND_ATOMS)
    except NoClosedForm:
        return None
    return atoms


def _valid_p(p: Any) -> sp.Expr | None:
    p = sp.S(p)
    if p.free_symbols or not p.is_number or p.has(sp.Float):
        return None
    if (p > 0) is not sp.true or (p < 1) is not sp.true:
        return None
    return p


def mix_finite_loss(fl: FiniteLoss | None, p: Any) -> FiniteLoss | None:
    """The finite loss of f_p = p f + (1 - p) Id for the finite loss ``fl`` of f, 0 < p < 1
    exact (module docstring), or None."""
    p = _valid_p(p)
    if fl is None or p is None:
        return None
    atoms = _operand_atoms(fl)
    if atoms is None:
        return None
    out = []
    for r, P_, Q_ in atoms:
        rho = sp.S.Infinity if r is sp.S.Infinity else 1 - p + p * r
        out.append((rho, P_, (1 - p) * P_ + p * Q_))
    return FiniteLoss.from_atoms(out, ordered=True)


def subsample_finite_loss(fl: FiniteLoss | None, p: Any) -> FiniteLoss | None:
    """The finite loss of C_p(f) for the finite loss ``fl`` of a symmetric f, 0 < p < 1 exact
    (module docstring: Eq. (13) atom by atom), or None. The caller vouches for the symmetry."""
    p = _valid_p(p)
    if fl is None or p is None:
        return None
    atoms = _operand_atoms(fl)
    if atoms is None:
        return None
    above, one = [], sp.S.Zero
    for r, P_, Q_ in atoms:
        if r is sp.S.Infinity:
            above.append((r, P_, Q_))
            continue
        d = sp.S(r) - 1
        if d.is_zero:
            one += P_
        elif d.is_positive:
            above.append((r, P_, Q_))
        elif d.is_negative is not True:
            return None  # (the sign of log r is not proved: no exact classification)
    head, tail = [], []
    m0 = one
    for r, P_, Q_ in above:
        mixed = (1 - p) * P_ + p * Q_
        m0 += (1 - p) * (Q_ - P_)
        if r is sp.S.Infinity:
            head.append((sp.S.Infinity, sp.S.Zero, mixed))
            tail.append((sp.S.Zero, mixed, sp.S.Zero))
        else:
            rho = 1 - p + p * r
            head.append((rho, P_, mixed))
            tail.append((1 / rho, mixed, P_))
    out = head + ([(sp.S.One, m0, m0)] if m0 != 0 else []) + tail[::-1]
    return FiniteLoss.from_atoms(out, ordered=True)


def hull_finite_loss(fl: FiniteLoss | None, p: Any) -> FiniteLoss | None:
    """The finite loss of C_p(f) = C(f_p) = min{f_p, f_p^{-1}}^{**} (Def. 6) for any finite f
    whose masses and p are rational, exactly: the epigraph of min{g, g^{-1}} is the union of the
    two epigraphs, so its closed convex hull is the hull of both curves' knots (with the upward
    rays), and the lower convex envelope is the lower hull of the knots of g = f_p and of their
    mirror images (g^{-1}'s graph is g's reflected in the diagonal; a crossing of the two curves
    lies on a segment of each, inside that hull). The hull's pieces are the atoms: width the
    P-mass, drop the Q-mass, a vertical piece at 0 the Q-mass at ratio oo. None where a mass is
    irrational (no exact orientation test) or the operand has too many atoms."""
    p = _valid_p(p)
    if fl is None or p is None:
        return None
    if not isinstance(p, sp.Rational) or not fl.is_rational:
        return _ball_hull_loss(fl, p)
    atoms = _operand_atoms(fl)
    if atoms is None:
        return None
    q = Fraction(int(p.p), int(p.q))
    x, top, knots = Fraction(0), Fraction(1), []
    for _r, P_, Q_ in atoms:  # g = T(P, (1 - p) P + p Q): knots by decreasing ratio
        Pf, Qf = Fraction(int(P_.p), int(P_.q)), Fraction(int(Q_.p), int(Q_.q))
        if not knots:
            knots.append((x, top))
        x, top = x + Pf, top - ((1 - q) * Pf + q * Qf)
        knots.append((x, top))
    pts = sorted(set(knots) | {(b, a) for a, b in knots})
    hull: list = []
    for pt in pts:
        if hull and hull[-1][0] == pt[0]:
            continue  # (the lowest point at this abscissa came first)
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (pt[1] - y1) - (y2 - y1) * (pt[0] - x1) <= 0:
                hull.pop()
            else:
                break
        hull.append(pt)
    out = []
    if hull[0][1] < 1:  # (the test of size 0 rejects the singular part)
        out.append((sp.S.Infinity, sp.S.Zero, sp.Rational(1) - _rat(hull[0][1])))
    for (x0, y0), (x1, y1) in zip(hull, hull[1:], strict=False):
        w, h = x1 - x0, y0 - y1
        out.append((_rat(h / w), _rat(w), _rat(h)))
    return FiniteLoss.from_atoms(out, ordered=True)


#: Bits of the balls whose orientation tests decide the hull of irrational knots.
HULL_PREC = 256


class _Undecided(Exception):
    """An orientation or an abscissa that neither the balls nor SymPy decide."""


def _exactly_zero(e: sp.Expr) -> bool:
    """Is the closed form e exactly 0 (SymPy's simplification; False where it cannot tell)?"""
    try:
        return e == 0 or sp.simplify(e) == 0
    except (TypeError, ValueError):  # pragma: no cover - SymPy's own failures
        return False


def _ball_hull_loss(fl: FiniteLoss, p: sp.Expr) -> FiniteLoss | None:
    """:func:`hull_finite_loss` for closed-form masses: the same lower hull of the knots of f_p
    and their mirror images, each knot a ball of its exact coordinates (cumulative sums of the
    masses' balls at :data:`HULL_PREC` bits) beside its exact SymPy form; every comparison of
    abscissas and every orientation decided by the balls, or, where a ball contains 0, proved
    0 by SymPy (equal abscissas, collinear knots); else None. The hull's knots being strictly
    convex, the pieces' ratios decrease strictly: the atoms are built in a proved order."""
    from flint import arb

    from .arb_expr import Unenclosable, arb_enclose

    atoms = _operand_atoms(fl)
    if atoms is None:
        return None
    try:
        with arb_precision(HULL_PREC):
            pb = arb_enclose(p, prec=HULL_PREC)
            xs, ys = [sp.S.Zero], [sp.S.One]
            xb, yb = [arb(0)], [arb(1)]
            for _, P_, Q_ in atoms:
                R_ = (1 - p) * P_ + p * Q_
                Pb, Qb = arb_enclose(P_, prec=HULL_PREC), arb_enclose(Q_, prec=HULL_PREC)
                xs.append(xs[-1] + P_)
                ys.append(ys[-1] - R_)
                xb.append(xb[-1] + Pb)
                yb.append(yb[-1] - ((1 - pb) * Pb + pb * Qb))
            # the last knot is (1, 0): each side's masses sum to 1 (a pair of distributions)
            xs[-1], ys[-1], xb[-1], yb[-1] = sp.S.One, sp.S.Zero, arb(1), arb(0)
            pts = [(xb[i], yb[i], xs[i], ys[i]) for i in range(len(xs))]
            pts += [(yb[i], xb[i], ys[i], xs[i]) for i in range(len(xs))]
            pts.sort(key=lambda t: (float(t[0].mid()), float(t[1].mid())))
            hull = _ball_chain(pts)
    except (_Undecided, Unenclosable, ValueError, ZeroDivisionError):
        return None
    out = []
    x0, y0 = hull[0][2], hull[0][3]
    if not (hull[0][0] == 0 and x0 == 0):
        return None
    if not _exactly_zero(1 - y0):
        out.append((sp.S.Infinity, sp.S.Zero, 1 - y0))
    for (_, _, xa, ya), (_, _, xc, yc) in zip(hull, hull[1:], strict=False):
        w, h = xc - xa, ya - yc
        out.append((sp.S.Zero if _exactly_zero(h) else h / w, w, h))
    return FiniteLoss.from_atoms(out, ordered=True)


def _ball_chain(pts: list) -> list:
    """The lower hull (Andrew's monotone chain) of points (x ball, y ball, x exact, y exact)
    sorted by their midpoints; raises _Undecided where a decision is not proved."""
    dedup: list = []
    for pt in pts:
        if dedup:
            prev = dedup[-1]
            if not pt[0] > prev[0]:
                if not _exactly_zero(pt[2] - prev[2]):
                    raise _Undecided  # (not proved apart, nor equal)
                if pt[1] < prev[1]:
                    dedup[-1] = pt  # (the lower point at one abscissa)
                elif not pt[1] >= prev[1] and not _exactly_zero(pt[3] - prev[3]):
                    raise _Undecided
                continue
        dedup.append(pt)
    hull: list = []
    for pt in dedup:
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            cross = (b[0] - a[0]) * (pt[1] - a[1]) - (b[1] - a[1]) * (pt[0] - a[0])
            if cross > 0:
                break
            if not cross <= 0 and not _exactly_zero(
                    (b[2] - a[2]) * (pt[3] - a[3]) - (b[3] - a[3]) * (pt[2] - a[2])):
                raise _Undecided
            hull.pop()
        hull.append(pt)
    return hull


def _rat(x: Fraction) -> sp.Rational:
    return sp.Rational(x.numerator, x.denominator)


def ordered_band(f: Any, alphas: np.ndarray, tol: float = 1e-3,
                 progress: bool | None = None) -> Band | None:
    """The certified band of the curve of a node whose exact finite loss was built here (f_p or
    C_p(g) of a finite operand: atoms in a proved order), from one pass over its atoms
    (``numeric.finite_np``: the Neyman-Pearson vertices), at the levels ``alphas``; the
    precision doubled while a level is wider than ``tol`` (f, or the power relative to its
    upper end). None for any other node (a ``numeric.curves.CURVE_BANDS`` route)."""
    try:
        fl = finite_loss(f)
    except TradeOffError:
        return None
    if fl is None or not fl.__dict__.get("_ordered"):
        return None
    return rising_band(fl, alphas, max(tol, BAND_TOL_MIN))


CURVE_BANDS.append(ordered_band)
