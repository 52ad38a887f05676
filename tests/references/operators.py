"""Operator references on references: Mix, inverse, maximum, symmetrisation, group privacy
(Dong, Roth & Su, Thm. 3), the symmetric hull and C_p (Eq. (13) for symmetric operands, else a
rigorous upper bound from the lower convex hull of sampled points), tensor products and powers
(exact on finite pairs and Gaussians, otherwise one-sided bounds).
"""

from __future__ import annotations

from fractions import Fraction

import operator_reference as oref
import reference_np as rnp
from mpmath import mp

from .base import F0, Ref, _tick, strict, to_m
from .finite import (
    EpsDeltaRef,
    Finite,
    binomial_pair,
    id_ref,
    pair_power,
    pair_product,
    pl_group,
    pl_max,
    zero_ref,
)
from .gauss import GaussFiniteRef, GaussRef
from .hull import monotone_chain


class Func(Ref):
    """A reference given by two callables (lower, upper) of (a, ac)."""

    def __init__(self, lo, hi, point: bool, sym: bool, label: str, roc=None, delta=None,
                 slack=F0, native_roc=False):
        self._lo, self._hi, self.point, self.sym, self.label = lo, hi, point, sym, label
        self._roc, self._delta, self.slack = roc, delta, Fraction(slack)
        self.native_roc = native_roc and roc is not None

    def val(self, a, ac, side):
        _tick()
        return self._lo(a, ac) if side == 0 else self._hi(a, ac)

    def roc_val(self, a, ac, side):
        if self._roc is not None:
            return self._roc(a, ac, side)
        return super().roc_val(a, ac, side)

    def delta_bounds(self, eps):
        return None if self._delta is None else self._delta(eps)


def _side_fn(ref: Ref, side: int):
    def f(t):
        t = to_m(t)
        return ref.val(t, 1 - t, side)
    return f


def ref_mix(child: Ref, p: Fraction) -> Ref:
    if isinstance(child, Finite):
        def make():
            pp = p if child.exact else to_m(p)
            return [(x, pp * y + (1 - pp) * (1 - x)) for x, y in child.knots()]
        return Finite(child.exact, make, "knots", label=f"Mix({child.label}, {p})",
                      slack=child.slack)

    # 1 - p formed exactly (p = 1 - 1e-27 would lose 27 digits to cancellation in mpf)
    def lo(a, ac):
        return to_m(p) * child.val(a, ac, 0) + to_m(1 - p) * ac

    def hi(a, ac):
        return to_m(p) * child.val(a, ac, 1) + to_m(1 - p) * ac

    def roc(a, ac, side):
        return to_m(p) * child.roc_val(a, ac, side) + to_m(1 - p) * a

    return Func(lo, hi, child.point, False, f"Mix({child.label}, {p})", roc=roc,
                slack=child.slack, native_roc=child.native_roc)


def ref_inverse(child: Ref) -> Ref | None:
    if child.sym:
        return child
    if child.slack:
        return None
    if isinstance(child, Finite):
        return Finite(child.exact, lambda: tuple(reversed(child.pair())), "pair",
                      label=f"Inverse({child.label})")
    if isinstance(child, GaussFiniteRef):
        fin = child.fin
        return GaussFiniteRef(child.mu2, Finite(fin.exact, lambda: tuple(reversed(fin.pair())),
                                                "pair", label=f"Inverse({fin.label})"))

    def mk(side):
        def g(a, ac):
            return oref.inverse(_side_fn(child, side))(a)
        return g

    return Func(mk(0), mk(1), child.point, False, f"Inverse({child.label})")


def ref_max(children: list[Ref]) -> Ref:
    if all(isinstance(c, Finite) for c in children) and not any(c.slack for c in children):
        exact = all(c.exact for c in children)

        def make():
            ks = [c.knots() if exact else [(to_m(x), to_m(y)) for x, y in c.knots()]
                  for c in children]
            out = ks[0]
            for k in ks[1:]:
                out = pl_max(out, k)
            return out
        return Finite(exact, make, "knots", sym=all(c.sym for c in children),
                      label="Max(" + ", ".join(c.label for c in children) + ")")

    def lo(a, ac):
        return max(c.val(a, ac, 0) for c in children)

    def hi(a, ac):
        return max(c.val(a, ac, 1) for c in children)

    def roc(a, ac, side):  # 1 - max f_i = min (1 - f_i)
        return min(c.roc_val(a, ac, side) for c in children)

    return Func(lo, hi, all(c.point for c in children), all(c.sym for c in children),
                "Max(" + ", ".join(c.label for c in children) + ")",
                slack=max(c.slack for c in children), roc=roc,
                native_roc=all(c.native_roc for c in children))


def ref_symmetrize(child: Ref) -> Ref | None:
    if child.sym:
        return child
    inv = ref_inverse(child)
    if inv is None:
        return None
    r = ref_max([child, inv])
    r.sym = True
    return r


def ref_group(child: Ref, k: int) -> Ref | None:
    if child.slack:
        return None
    if isinstance(child, Finite):
        def make():
            kn = child._get("np") if child.exact else [tuple(to_m(c) for c in t)
                                                      for t in child._get("np")]
            return pl_group(kn, k)
        return Finite(child.exact, make, "knots", label=f"Group({child.label}, {k})")

    # 1 - (1 - f)^{o k}(alpha), carried as pairs (y, 1 - y) without cancellation:
    # y_{j+1} = 1 - f(y_j) = roc_f(y_j), 1 - y_{j+1} = f(y_j). A lower bound uses the lower
    # bound f_L throughout (then every y_j is an upper bound and f_L(y) a lower bound), an upper
    # bound f_U. (operator_reference.group composes through 1 - f(y), which loses the tails.)
    def chain(a, ac, side):
        y, c = a, ac
        for _ in range(k):
            y, c = child.roc_val(y, c, 1 - side), child.val(y, c, side)
        return y, c

    def mk(side):
        def g(a, ac):
            if strict() and not child.native_roc:
                return oref.group(_side_fn(child, side), k)(a)
            return chain(a, ac, side)[1]
        return g

    def roc(a, ac, side):  # 1 - Group(f, k) = (1 - f)^{o k}
        return chain(a, ac, 1 - side)[0]

    return Func(mk(0), mk(1), child.point, False, f"Group({child.label}, {k})", roc=roc,
                native_roc=child.native_roc)


def _hull_points(F, ts):
    """Points (t, F(t)) and their reflections (F(t), t): both lie in the union of the
    epigraphs of f and f^{-1} when F >= f."""
    pts = []
    for t in ts:
        y = F(t)
        pts.append((t, y, t, 0))
        pts.append((y, t, t, 1))
    return pts


def _lower_hull_tagged(pts):
    pts = sorted(pts, key=lambda p: (p[0], p[1]))
    uniq = []
    for p in pts:
        if uniq and uniq[-1][0] == p[0]:
            continue  # keep the lowest y at each x
        uniq.append(p)
    return monotone_chain(uniq)


def hull_upper(F, x, rounds: int = 8):
    """A rigorous upper bound at x of min{f, f^{-1}}^{**} for F >= f: the lower convex hull of
    sampled points of both branches, refined near the supporting points."""
    base = [mp.zero, mp.one] + [mp.mpf(i) / 32 for i in range(1, 32)]
    base += [mp.mpf(10) ** -k for k in range(2, 14)] + [1 - mp.mpf(10) ** -k for k in range(2, 14)]
    pts = _hull_points(F, base)
    h = mp.mpf(1) / 64
    for _ in range(rounds):
        hull = _lower_hull_tagged(pts)
        j = None
        for i in range(len(hull) - 1):
            if hull[i][0] <= x <= hull[i + 1][0]:
                j = i
                break
        if j is None:
            break
        new = []
        for p in (hull[j], hull[j + 1]):
            t = p[2]
            for d in (-h, h, -h / 3, h / 3):
                u = t + d
                if 0 < u < 1:
                    new.append(u)
        pts += _hull_points(F, new)
        h /= 4
    hull = _lower_hull_tagged(pts)
    for i in range(len(hull) - 1):
        (x1, y1, *_), (x2, y2, *_) = hull[i], hull[i + 1]
        if x1 <= x <= x2:
            return y1 if x2 == x1 else y1 + (y2 - y1) * (x - x1) / (x2 - x1)
    return mp.one - x


def _eq13(F, p, a, ac):
    """C_p(f)(alpha) for symmetric f (DRS Eq. (13)): f_p on [0, x*], the line of slope -1 on
    [x*, f_p(x*)], f_p^{-1} after; x* the fixed point of f."""
    xs = rnp._solve_increasing(lambda t: t - F(t), mp.zero, mp.mpf(1) / 2)
    pm, qm = to_m(p), to_m(1 - p)  # (1 - p exactly: no cancellation for p near 1)

    def fp(t):
        t = to_m(t)
        return pm * F(t) + qm * (1 - t)

    vs = fp(xs)
    if a <= xs:
        return pm * F(a) + qm * ac
    if a <= vs:
        return xs + vs - a
    return oref.inverse(fp)(a)


def ref_hull(child: Ref, p: Fraction | None) -> Ref | None:
    """SymmetricHull (p None) or Subsample C_p."""
    name = "SymmetricHull" if p is None else "Subsample"
    if child.slack:
        return None
    if isinstance(child, Finite):
        base = child if p is None else ref_mix(child, p)
        inv = Finite(base.exact, lambda: tuple(reversed(base.pair())), "pair")

        def make():
            k1, k2 = base.knots(), inv.knots()
            if not base.exact:
                k1 = [(to_m(x), to_m(y)) for x, y in k1]
                k2 = [(to_m(x), to_m(y)) for x, y in k2]
            return [(x, y) for x, y in oref.pl_min_envelope(k1, k2)]
        return Finite(base.exact, make, "knots", sym=True, label=f"{name}({child.label}, {p})")
    if p is None and child.sym:
        return child
    if p is not None and p == 1 and child.sym:
        return child
    if child.sym and child.point:
        F = _side_fn(child, 0)

        def v(a, ac):
            return _eq13(F, p, a, ac)
        return Func(v, v, True, True, f"{name}({child.label}, {p})")
    # one-sided: a rigorous upper bound from sampled points of the upper branch
    Fu = _side_fn(child, 1)
    if p is not None:
        pm_ = p

        def Fu(t, Fu0=Fu):  # noqa: F811
            return to_m(pm_) * Fu0(t) + to_m(1 - pm_) * (1 - to_m(t))

    def lo(a, ac):
        return mp.zero

    def hi(a, ac):
        return hull_upper(Fu, a)

    return Func(lo, hi, False, True, f"{name}({child.label}, {p}) [upper bound]")


def ref_tensor(children: list[Ref]) -> Ref:
    kids = []
    for c in children:
        if getattr(c, "is_id", False):
            continue
        kids.append(c)
    if not kids:
        return id_ref()
    if any(getattr(c, "is_zero", False) for c in kids):
        return zero_ref()
    gauss = [c for c in kids if isinstance(c, GaussRef)]
    gfin = [c for c in kids if isinstance(c, GaussFiniteRef)]
    fins = [c for c in kids if isinstance(c, Finite) and not c.slack] + [g.fin for g in gfin]
    other = [c for c in kids if not isinstance(c, (GaussRef, GaussFiniteRef))
             and not (isinstance(c, Finite) and not c.slack)]
    sym = all(c.sym for c in kids)
    mu2 = sum((g.mu2 for g in gauss + gfin), F0)
    label = " (x) ".join(c.label for c in kids)
    core = None
    if fins:
        exact = all(f.exact for f in fins)
        fs = list(fins)
        fin = fs[0] if len(fs) == 1 else Finite(
            exact, lambda: pair_product([f.pair() for f in fs], exact), "pair",
            sym=all(f.sym for f in fs), label=" (x) ".join(f.label for f in fs))
        core = fin if mu2 == 0 else GaussFiniteRef(mu2, fin)
    elif gauss or gfin:
        core = GaussRef(mu2)
    if not other:
        return core
    # bounds: the tensor lies below every factor; delta above every factor's delta
    facs = ([core] if core is not None else []) + other

    def lo(a, ac):
        return mp.zero

    def hi(a, ac):
        return min(f.val(a, ac, 1) for f in facs)

    def delta(eps):
        best = mp.zero
        for f in facs:
            b = f.delta_bounds(eps)
            if b is not None:
                best = max(best, b[0])
        return best, mp.one

    return Func(lo, hi, False, sym, label + " [upper bound]", delta=delta)


def ref_power(child: Ref, n: int) -> Ref:
    if n == 0:
        return id_ref()
    if n == 1:
        return child
    if isinstance(child, GaussRef):
        return GaussRef(child.mu2 * n)
    if isinstance(child, EpsDeltaRef) and child.delta.frac == 0:
        eps = child.eps
        E = eps.exp_exact()
        return Finite(E is not None,
                      lambda: binomial_pair(E if E is not None else eps.exp_m(), n, E is not None),
                      "pair", sym=True, label=f"Binomial({eps}, {n})")
    if isinstance(child, Finite) and not child.slack:
        return Finite(child.exact, lambda: pair_power(child.pair(), n, child.exact), "pair",
                      sym=child.sym, label=f"({child.label})^{n}")
    if isinstance(child, GaussFiniteRef):
        fin = child.fin
        return GaussFiniteRef(child.mu2 * n, Finite(
            fin.exact, lambda: pair_power(fin.pair(), n, fin.exact), "pair", sym=fin.sym))

    def lo(a, ac):
        return mp.zero

    def hi(a, ac):
        return child.val(a, ac, 1)

    def delta(eps):
        b = child.delta_bounds(eps)
        return (b[0] if b is not None else mp.zero), mp.one

    return Func(lo, hi, False, child.sym, f"({child.label})^{n} [upper bound]", delta=delta)

