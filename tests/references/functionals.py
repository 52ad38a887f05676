"""What is computed from a reference: values, the privacy profile, its inverse, the convex
conjugate, the functionals and the Renyi divergences, each by a route of its own.

* Finite pairs: exact sums over the atoms (``delta = sum (q - e^eps p)_+``, Dong, Roth & Su,
  Prop. 6; ``KL = sum p log(p/q)``; ``D_a = log(sum p^a q^{1-a})/(a - 1)``; the AUC from the
  trapezoids of the knots).
* Continuous pairs (:mod:`.pairs`): the hockey-stick integral on the likelihood-ratio region and
  quadrature of ``E_P[g(log q/p)]``.
* A reference known only by its curve (:class:`RenyiRegionRef`): brute-force minimisation of
  ``t x + f(x)`` over the curve (a grid, then golden section).

The functionals are those of Dong, Roth & Su (Sec. 3.2, Thm. 11): with ``l = log dQ/dP``
under P, ``kl = -E l``, ``kappa2 = E l^2``, ``kappa3 = E |l|^3``, ``kappa3_bar = E |l + kl|^3``,
``chi2_plus = E ((dQ/dP) - 1)_+^2``, ``tv = sup (Q - P)``, and ``auc = 1 - int_0^1 f``.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from mpmath import mp

from .base import Ref, to_m
from .finite import Finite
from .pairs import PairRef


# -- values ----------------------------------------------------------------------------------
def value(ref: Ref, x) -> mpmath.mpf:
    """f(x) at an mpf or exact level (the midpoint of the reference's bounds)."""
    if hasattr(x, "_mpf_"):
        x = mp.mpf(x)
    if isinstance(x, mpmath.mpf):
        lo, hi = ref.val(x, 1 - x, 0), ref.val(x, 1 - x, 1)
    else:
        lo, hi = ref.bounds(Fraction(x))
    return (to_m(lo) + to_m(hi)) / 2


def roc(ref: Ref, x) -> mpmath.mpf:
    """1 - f(x)."""
    if hasattr(x, "_mpf_"):
        x = mp.mpf(x)
    if isinstance(x, mpmath.mpf):
        lo, hi = ref.roc_val(x, 1 - x, 0), ref.roc_val(x, 1 - x, 1)
    else:
        lo, hi = ref.roc_bounds(Fraction(x))
    return (to_m(lo) + to_m(hi)) / 2


def _pair(ref: Finite):
    P, Q = ref.pair()
    return [(to_m(p), to_m(q)) for p, q in zip(P, Q, strict=True) if p != 0 or q != 0]


def brute_min(ref: Ref, c, lo=0, hi=1, n: int = 65, steps: int = 170):
    """min over [lo, hi] of c x + f(x) (convex): a grid, then golden section around the best
    grid point, the ends and the bracket's ends kept as candidates. A minimiser placed wrongly
    can only raise the minimum. The minimum may sit at a kink of f (where two constraints of a
    RenyiRegion cross), where the error is linear in the bracket's width: 170 steps shrink it
    by 0.618^170 ~ 1e-35 (60 steps left 3e-17 there)."""
    def g(x):
        return c * x + value(ref, x)

    xs = [lo + (mp.mpf(hi) - lo) * i / (n - 1) for i in range(n)]
    gs = [g(x) for x in xs]
    i = min(range(n), key=gs.__getitem__)
    a, b = xs[max(i - 1, 0)], xs[min(i + 1, n - 1)]
    r = (mpmath.sqrt(5) - 1) / 2
    u, v = b - r * (b - a), a + r * (b - a)
    gu, gv = g(u), g(v)
    for _ in range(steps):
        if b - a <= mpmath.ldexp(1, 10 - mp.prec):  # (as fine as the working precision)
            break
        if gu <= gv:
            b, v, gv = v, u, gu
            u = b - r * (b - a)
            gu = g(u)
        else:
            a, u, gu = u, v, gv
            v = a + r * (b - a)
            gv = g(v)
    return min(gs + [gu, gv])


# -- the privacy profile and the conjugate ---------------------------------------------------
def hockey(ref: Ref, t) -> mpmath.mpf:
    """H(t) = sup_R (Q(R) - t P(R)) = 1 - min_x (t x + f(x)) (Prop. 6)."""
    t = to_m(t)
    if isinstance(ref, PairRef):
        return ref.hockey(t)
    if isinstance(ref, Finite):
        return mpmath.fsum(q - t * p for p, q in _pair(ref) if q > t * p)
    return 1 - brute_min(ref, t)


def delta(ref: Ref, eps) -> mpmath.mpf:
    """delta(eps) = H(e^eps)."""
    return hockey(ref, mpmath.exp(to_m(eps)))


def conjugate(ref: Ref, y) -> mpmath.mpf:
    """f^*(y) = sup_x (y x - f(x)): -1 + H(-y) for y < 0, y for y >= 0 (f(1) = 0)."""
    y = to_m(y)
    return -1 + hockey(ref, -y) if y < 0 else y


def epsilon(ref: Ref, d, hi=60) -> mpmath.mpf:
    """The smallest eps >= 0 with delta(eps) <= d, by bisection (inf if none below ``hi``)."""
    d = to_m(d)
    if delta(ref, 0) <= d:
        return mp.zero
    lo, hi = mp.zero, mp.mpf(hi)
    if delta(ref, hi) > d:
        return mp.inf
    for _ in range(mp.prec):
        c = (lo + hi) / 2
        if delta(ref, c) > d:
            lo = c
        else:
            hi = c
    return (lo + hi) / 2


# -- functionals -----------------------------------------------------------------------------
FUNCTIONALS = ("kl", "kappa2", "kappa3", "kappa3_bar", "chi2_plus", "tv", "auc")


def _finite_functional(ref: Finite, name: str):
    atoms = _pair(ref)
    if name == "tv":
        return mpmath.fsum(q - p for p, q in atoms if q > p)
    if name == "auc":  # 1 - the trapezoids under the knots
        ks = [(to_m(x), to_m(y)) for x, y in ref.knots()]
        return 1 - mpmath.fsum((x1 - x0) * (y0 + y1) / 2
                               for (x0, y0), (x1, y1) in zip(ks, ks[1:], strict=False))
    pos = [(p, q) for p, q in atoms if p > 0]
    if name == "chi2_plus":
        return mpmath.fsum(p * (q / p - 1) ** 2 for p, q in pos if q > p)
    if any(q == 0 for _, q in pos):
        return mp.inf
    ls = [(p, mpmath.log(q / p)) for p, q in pos]
    kl = -mpmath.fsum(p * ell for p, ell in ls)
    return {"kl": kl,
            "kappa2": mpmath.fsum(p * ell**2 for p, ell in ls),
            "kappa3": mpmath.fsum(p * abs(ell) ** 3 for p, ell in ls),
            "kappa3_bar": mpmath.fsum(p * abs(ell + kl) ** 3 for p, ell in ls)}[name]


def _pair_functional(ref: PairRef, name: str):
    if name == "tv":
        return ref.hockey(mp.one)
    if name == "auc":
        return ref.auc()
    if name == "kl":
        return -ref.expect_p(lambda ell: ell)
    if name == "kappa2":
        return ref.expect_p(lambda ell: ell**2)
    if name == "kappa3":
        return ref.expect_p(lambda ell: abs(ell) ** 3, ref.cuts(mp.zero))
    if name == "chi2_plus":
        return ref.expect_p(lambda ell: max(mpmath.expm1(ell), 0) ** 2, ref.cuts(mp.zero))
    kl = _pair_functional(ref, "kl")  # kappa3_bar
    return ref.expect_p(lambda ell: abs(ell + kl) ** 3, ref.cuts(-kl))


def functional(ref: Ref, name: str) -> mpmath.mpf:
    """The functional ``name`` (one of :data:`FUNCTIONALS`) of a finite or continuous pair."""
    if name not in FUNCTIONALS:
        raise ValueError(f"unknown functional {name!r}")
    if isinstance(ref, Finite):
        return _finite_functional(ref, name)
    if isinstance(ref, PairRef):
        return _pair_functional(ref, name)
    raise NotImplementedError(f"no functional reference for {ref!r}")


def renyi(ref: Ref, a) -> mpmath.mpf:
    """D_a(P || Q) = log(int p^a q^{1-a})/(a - 1), a > 0, a != 1 (inf where it diverges)."""
    a = to_m(a)
    if isinstance(ref, Finite):
        atoms = _pair(ref)
        if a > 1 and any(p > 0 and q == 0 for p, q in atoms):
            return mp.inf
        s = mpmath.fsum(p**a * q ** (1 - a) for p, q in atoms if p > 0 and q > 0)
        if s == 0:  # a < 1 and P, Q mutually singular
            return mp.inf
    elif isinstance(ref, PairRef):
        s = ref.renyi_sum(a)
    else:
        raise NotImplementedError(f"no Renyi reference for {ref!r}")
    return mpmath.log(s) / (a - 1)


def second_moment(ref: Ref) -> mpmath.mpf:
    """E_P[(dQ/dP)^2] = E_Q[dQ/dP] (the moment generating function of the loss at 1)."""
    if isinstance(ref, PairRef):
        return ref.renyi_sum(-1)
    atoms = _pair(ref)
    if any(p == 0 and q > 0 for p, q in atoms):
        return mp.inf
    return mpmath.fsum(q * q / p for p, q in atoms if p > 0)


def slope(ref: Ref, x) -> mpmath.mpf:
    """|f'(x)| by a central difference of the reference (relative step 1e-9 of min(x, 1-x))."""
    x = to_m(x)
    h = min(x, 1 - x) / 10**9
    return abs(value(ref, x + h) - value(ref, x - h)) / (2 * h)
