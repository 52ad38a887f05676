"""Certified privacy profiles of products of many lattice laws with different steps.

A factor's privacy loss under Q is L_i = u_i y + v_i with y an integer of Q-law q_i(y) and u_i >
0, v_i rationals (the discrete Gaussian with sigma_i^2 rational: u = Delta/sigma^2, v =
Delta^2/(2 sigma^2), y ~ N_Z(0, sigma^2); families/discrete_gaussian_law.py). When the u_i and v_i
share a denominator D, the loss of the product lives on a lattice: D L = g S + B with S = sum a_i
y_i, a_i = u_i D/g (g the gcd of the u_i D), B = sum v_i D, and the Q-law pi of S is the
coefficient list of the product of the Laurent polynomials sum_y q_i(y) z^{a_i y} (Dong, Roth &
Su, Def. 5 for the product's laws). The profile (Prop. 6 there) is

    delta(eps) = sum_{s: l(s) > eps} pi(s) (1 - e^{eps - l(s)}),  l(s) = (g s + B)/D.       (1)

**Exact integers, a posteriori certificate.** The product is formed in exact integer arithmetic
(python-flint ``fmpz_poly``, fixed point with ``prec`` bits) from each factor's *tilted*
masses I_i(y) <= 2^prec q_i(y) e^{c L_i(y)}/lambda_i (lower bounds; lambda_i an exact scale near
the factor's mgf M_i(c) = E_Q[e^{c L_i}], c >= 0 the Chernoff tilt of eps), every product of two
nodes cut to a window of its tilted law (mean +- T sd) and rounded down to ``prec`` bits. Every
step keeps non-negative lower bounds, so the root's integers R(s) satisfy R(s) 2^-prec <= pi(s)
e^{c l(s)}/Lambda, Lambda = prod lambda_i: the sum (1) over them is a lower bound of delta, and
since (1 - e^{eps - l})_+ <= e^{c (l - eps)} for c >= 0, whatever was dropped or rounded away
(windows, the factors' truncated tails, the floors) adds at most

    e^{-c eps} (prod_i M_i(c) - Lambda 2^-prec sum_s R(s)),                                  (2)

with M_i(c) an Arb upper bound of the factor's full mgf (its tails included) and sum_s R(s) an
exact integer. So the windows and the working precision are chosen by a plan (Gaussian tails of
the tilted laws) but certified after the fact by (2): delta lies in [the Arb sum of (1) over R,
that plus (2)]. The tilt c at the saddle point (tilted mean of L at eps) makes (2) a small
fraction of delta and centres the root's window on eps; where eps is below the mean loss, c = 0
and (2) is the plain missing mass.

eps(delta) uses one root (tilted at a Gaussian guess of eps): a bisection over the lattice points
l(s) finds the segment [l(m - 1), l(m)] with delta(l(m - 1)) > d and delta(l(m)) <= d proved
(delta is continuous and non-increasing, Prop. 6); there delta = A - e^eps B + [0, e^{-c eps}
X] with A, B, X balls, solved for eps at both ends.

Bounded losses (the discrete Laplace: finitely many values, ``loss_max`` of a factor): the
profile vanishes from the sum of the largest losses on (so eps(0) is that sum), the tilt and
the start of eps(delta) stay below it, and a product short enough (:data:`KEEP_WHOLE`) is kept
whole rather than cut to the Gaussian window of its tilted law (whose tails are not Gaussian).
eps(delta) searches its bracket outward from the guess (the bound (2) is tight near the tilt's
eps only) and re-centres the tilt on the first bracket.

Sizes: the root's window holds about 2 T D mu/g lattice points (mu^2 = sum u_i^2 Var y_i):
problems whose common denominator exceeds :data:`MAX_DENOMINATOR` are not lattice products here,
and those whose window exceeds :data:`MAX_WINDOW` are refused at once, naming it
(:meth:`LatticeProduct.check_size`; the product route does not offer itself for them,
:meth:`LatticeProduct.fits`, and the former routes answer).

**Shortcuts.** A family may register a closed route for a whole product (:data:`SHORTCUTS`):
:meth:`LatticeProduct.enclosure` tries it first, and a product it takes fits whatever its
window. The discrete Gaussians register theirs (``families.discrete_gaussian_sum``: a product of
discrete Gaussians on one lattice is one discrete Gaussian up to a factor proved by Poisson
summation), which answers the 1000 factors of ``benchmarks/RESULTS_census.md`` in milliseconds
once planned, on every grid there.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import singledispatch
from typing import Protocol

from flint import arb, arb_poly, fmpq, fmpz, fmpz_poly
from mpmath.libmp import round_ceiling, round_floor

from ..core import trace
from ..core.errors import NumericalError
from . import budget
from .arb import arb_endpoint
from .context import arb_precision, mp
from .value import CertifiedPair

__all__ = ["LatticeFactor", "LatticeProduct", "lattice_factor", "MAX_DENOMINATOR",
           "MAX_WINDOW", "common_denominator", "GRID_BUILDERS", "SHORTCUTS", "OFF_GRID",
           "LATTICE_PRODUCT", "arb_of", "mpf_fraction", "exact_fraction"]

#: The largest common denominator D of the factors' loss steps and offsets taken as a lattice.
MAX_DENOMINATOR = 10**12
#: The most lattice points a window (of the root or of a factor) may hold.
MAX_WINDOW = 4_000_000
#: The most factors (with multiplicities) in one product.
MAX_FACTORS = 10**6
#: Builders of products with factors off any lattice (``grid`` factors: the Skellam loss), each
#: ``builder(factors) -> product | None``, appended by ``numeric.grid_product`` when imported.
GRID_BUILDERS: list = []
#: Closed routes for a whole product, each ``builder(product, bits) -> shortcut | None`` (a family
#: appends its builder when imported: ``families.discrete_gaussian``, discrete Gaussians as one
#: discrete Gaussian up to a proved factor); a shortcut has a ``name`` and ``enclosure(question,
#: arg, rel_tol) -> CertifiedPair | None`` with the guarantee of :meth:`LatticeProduct.enclosure`
#: and an error below 2^-bits of the value besides its ball's own width; optionally
#: ``np_tails(alphas, rel_tol, extra)``, the product's Neyman-Pearson tails
#: (``numeric.lattice_np.NPTails``, read by ``numeric.lattice_np_plan.tails_for``).
SHORTCUTS: list = []
#: Builders of products whose factors share no denominator up to :data:`MAX_DENOMINATOR`, each
#: ``builder(factors) -> product | None`` with the product's ``fits`` and ``enclosure`` (a family
#: appends its builder when imported: ``families.discrete_gaussian``, discrete Gaussians off any
#: grid as G_mu up to a proved aliasing bound, ``discrete_gaussian_offgrid``).
OFF_GRID: list = []

#: The route label of an answer of the product tree (:meth:`LatticeProduct.enclosure`).
LATTICE_PRODUCT = "exact lattice product (integers, certified)"
#: A product of two nodes this short (or at most twice its window) is kept whole, not cut to
#: its window: the tails of a tilted law of finite support are not Gaussian.
KEEP_WHOLE = 4096


class LatticeFactor(Protocol):
    """A factor whose loss under Q is ``step * y + offset``, y an integer (module docstring)."""

    step: Fraction  # u > 0
    offset: Fraction  # v

    def plan(self, c: float) -> tuple[float, float, float]:
        """Floats (log M(c), mean of y, sd of y) under the tilted law q(y) e^{c L(y)}/M(c)
        (planning only)."""

    def tilted(self, c: float, prec: int, ylo: int, yhi: int, scale: Fraction) -> list[int]:
        """Integers I(y) <= 2^prec q(y) e^{c L(y)}/scale for y = ylo .. yhi (``c`` a float
        taken exactly, ``scale`` > 0 exact; lower bounds proved in Arb)."""

    def mgf_ball(self, c: arb) -> arb:
        """A ball holding M(c) = E_Q[e^{c L}] (the whole law, tails included)."""

    # Optional: ``loss_max``, the largest loss (a Fraction) of a factor with finitely many
    # values (the discrete Laplace): the product's profile vanishes from the sum of them on.


@singledispatch
def lattice_factor(f) -> LatticeFactor | None:
    """The lattice view of a node's privacy loss (families register), or None."""
    return None


def common_denominator(fracs, limit: int = MAX_DENOMINATOR) -> int | None:
    """The least common denominator of ``fracs``, or None when it exceeds ``limit``."""
    d = 1
    for x in fracs:
        d = d * x.denominator // math.gcd(d, x.denominator)
        if d > limit:
            return None
    return d


def arb_of(x: Fraction | float) -> arb:
    """A ball (exact) of the rational x."""
    x = Fraction(x)
    return arb(fmpq(x.numerator, x.denominator))


def mpf_fraction(x) -> Fraction:
    """The exact rational value of a finite mpf."""
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def exact_fraction(x: arb) -> Fraction:
    """The exact value of an exact Arb number (a ball's end)."""
    man, exp = x.man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _near(logm: float) -> Fraction:
    """An exact dyadic rational within about 2^-24 (relative) of e^logm: a factor's scale
    lambda_i. The product of n leaves holds (M_i/lambda_i)^n 2^prec in total: with lambda_i the
    power of two nearest M_i, as before, that ratio was up to sqrt(2)^{+-n} (Skellam(1, 5)^2
    as 50 blocks at tilt 1.47: (1.433/2)^50 = 6e-8, 24 bits of the fixed point lost to the
    floors, the dropped mass 1.6e-10 of the whole instead of 5e-16)."""
    e = math.floor(logm / math.log(2))
    frac = math.exp(logm - e * math.log(2))  # in [1, 2) up to rounding
    return Fraction(round(frac * 2**24)) * Fraction(2) ** (e - 24)


class _Node:
    """A window of the tilted law of a partial sum on the lattice lo + step Z: R(lo + step j)
    is the j-th coefficient of ``poly``; with the tilted mean and variance (S units) that plan
    its window. A leaf keeps its step a_i (its law lives on a_i Z), and so does a power of it,
    and a product of nodes the gcd of theirs: sparse polynomials are never formed."""

    __slots__ = ("lo", "step", "poly", "mean", "var", "bounded")

    def __init__(self, lo: int, step: int, poly: fmpz_poly, mean: float, var: float,
                 bounded: bool = False) -> None:
        self.lo, self.step, self.poly, self.mean, self.var = lo, step, poly, mean, var
        #: every factor of the node has a bounded loss (``loss_max``): its tails not Gaussian
        self.bounded = bounded

    @property
    def size(self) -> int:
        return self.poly.length()

    @property
    def span(self) -> int:
        """Lattice points of S the window covers."""
        return self.step * self.poly.length()


class LatticeProduct:
    """The product of ``factors`` = [(LatticeFactor, multiplicity), ...] (module docstring):
    certified delta(eps) and eps(delta) as Arb balls / float brackets."""

    def __init__(self, factors: list[tuple[LatticeFactor, int]], denominator: int) -> None:
        self.factors = [(f, int(n)) for f, n in factors]
        D = self.D = int(denominator)
        A = [int(f.step * D) for f, _ in self.factors]
        pairs = zip(A, self.factors, strict=True)
        if any(a <= 0 or Fraction(a, D) != f.step for a, (f, _) in pairs):
            raise ValueError("every step must be a positive multiple of 1/denominator")
        g = 0
        for a in A:
            g = math.gcd(g, a)
        self.g = g
        self.a = [a // g for a in A]
        B = sum(n * f.offset for f, n in self.factors) * D
        if B.denominator != 1:
            raise ValueError("every offset must be a multiple of 1/denominator")
        self.B = int(B)
        self.count = sum(n for _, n in self.factors)
        tops = [getattr(f, "loss_max", None) for f, _ in self.factors]
        #: The largest loss of the product when every factor's is bounded, else None.
        self.top = (None if any(t is None for t in tops)
                    else sum((n * t for t, (_, n) in zip(tops, self.factors, strict=True)),
                             Fraction(0)))
        self._roots: dict = {}
        self._shortcuts: dict = {}

    # -- planning ----------------------------------------------------------------------------
    def mean_loss(self, c: float) -> float:
        """The tilted mean of L at c (floats): increasing in c."""
        return sum(n * (float(f.step) * f.plan(c)[1] + float(f.offset))
                   for f, n in self.factors)

    def saddle(self, eps: float) -> float:
        """The Chernoff tilt c >= 0 with tilted mean loss eps (0 below the mean; for a bounded
        loss, eps is taken half a lattice step below the largest loss at most)."""
        if self.top is not None:
            eps = min(eps, float(self.top) - float(Fraction(self.g, 2 * self.D)))
        if self.mean_loss(0.0) >= eps:
            return 0.0
        lo, hi = 0.0, 1.0
        while self.mean_loss(hi) < eps:
            lo, hi = hi, 2 * hi
            if hi > 1e6:
                break
        for _ in range(60):
            mid = (lo + hi) / 2
            if self.mean_loss(mid) < eps:
                lo = mid
            else:
                hi = mid
        return round(hi * 64) / 64  # a dyadic grid: nearby eps share one root

    @classmethod
    def build(cls, factors: list[tuple[LatticeFactor, int]]) -> LatticeProduct | None:
        """The lattice product of ``factors``, or None when their steps and offsets share no
        denominator up to :data:`MAX_DENOMINATOR` (sizes are checked when it computes:
        :meth:`check_size`)."""
        if any(getattr(f, "grid", False) for f, _ in factors):  # (numeric.grid_product)
            return next((p for p in (b(factors) for b in GRID_BUILDERS) if p is not None),
                        None)
        fr = [f.step for f, _ in factors] + [f.offset for f, _ in factors]
        D = common_denominator(fr)
        if D is None:  # (off any lattice of small denominator: a family's builder may take it)
            return next((p for p in (b(factors) for b in OFF_GRID) if p is not None), None)
        return cls(factors, D)

    def window_size(self, c: float = 0.0, T: float = 14.0) -> int:
        """Lattice points of the root's window (2 T sd of S, the tilted law at c)."""
        pairs = zip(self.factors, self.a, strict=True)
        var = sum(n * (a * f.plan(c)[2]) ** 2 for (f, n), a in pairs)
        return int(2 * T * math.sqrt(var)) + 1

    def fits(self, c: float = 0.0) -> bool:
        """Does the product stay within :data:`MAX_FACTORS`, and within :data:`MAX_WINDOW` unless
        a shortcut answers it (:meth:`shortcut` at the tolerance 2^-100)?"""
        if self.count > MAX_FACTORS:
            return False
        return self.shortcut(2.0**-100) is not None or self.window_size(c) <= MAX_WINDOW

    def shortcut(self, rel_tol: float):
        """The first of :data:`SHORTCUTS` that takes the whole product with its error below
        2^-28 of ``rel_tol`` (tried first at 2^-512, which serves every tolerance above), or None
        (cached)."""
        bits = int(-math.log2(rel_tol)) + 28
        for tried, s in self._shortcuts.items():  # one proved at a smaller error serves
            if tried >= bits and s is not None:
                return s
        for b in (max(bits, 512), bits):
            if b not in self._shortcuts:
                self._shortcuts[b] = next((s for s in (f(self, b) for f in SHORTCUTS)
                                           if s is not None), None)
            if self._shortcuts[b] is not None:
                return self._shortcuts[b]
        return None

    def check_size(self, c: float = 0.0) -> None:
        """Refuse at once a product whose root window exceeds :data:`MAX_WINDOW`."""
        if self.count > MAX_FACTORS:
            raise NumericalError(f"lattice product: {self.count} factors (at most "
                                 f"MAX_FACTORS = {MAX_FACTORS})")
        w = self.window_size(c)
        if w > MAX_WINDOW:
            raise NumericalError(
                f"lattice product: the common denominator D = {self.D} gives a window of about "
                f"{w} lattice points (at most MAX_WINDOW = {MAX_WINDOW}); too large for the "
                "exact lattice composition")

    # -- the root ----------------------------------------------------------------------------
    def root(self, c: float, T: float, prec: int):
        """(lo, R as fmpz_poly, Lambda as a ball, M(c) as a ball) for the tilt c (see the
        module), cached."""
        key = (c, T, prec)
        hit = self._roots.get(key)
        if hit is not None:
            return hit
        self.check_size(c)
        one = fmpz(2) ** prec
        leaves, scales = [], []
        for (f, n), a in zip(self.factors, self.a, strict=True):
            logm, my, sy = f.plan(c)
            scale = _near(logm)  # exact, within 2^-24 of M_i(c) (relative)
            scales.append((scale, n))
            ylo = math.floor(my - (T + 2) * sy)
            yhi = math.ceil(my + (T + 2) * sy)
            if (yhi - ylo + 1) * a > MAX_WINDOW:
                raise NumericalError(f"lattice product: a factor's window holds "
                                     f"{(yhi - ylo + 1) * a} lattice points (at most "
                                     f"MAX_WINDOW = {MAX_WINDOW})")
            budget.check()
            ints = f.tilted(c, prec, ylo, yhi, scale)
            i0 = next((i for i, v in enumerate(ints) if v), len(ints) - 1)
            if i0:  # (the window's empty start: every product would carry it)
                ints, ylo = ints[i0:], ylo + i0
            leaf = _Node(a * ylo, a, fmpz_poly(ints), a * my, (a * sy) ** 2,
                         getattr(f, "loss_max", None) is not None)
            leaves.append(self._power(leaf, n, T, one))
        node = self._tree(leaves, T, one)
        if node.step > 1:
            node = _Node(node.lo, 1, node.poly.inflate(node.step), node.mean, node.var)
        with arb_precision(prec + 64):
            lam = arb(1)
            m = arb(1)
            for (scale, n), (f, _) in zip(scales, self.factors, strict=True):
                lam *= arb_of(scale) ** n
                m *= f.mgf_ball(arb_of(c)) ** n
        out = (node.lo, node.poly, lam, m)
        if len(self._roots) > 2:
            self._roots.clear()
        self._roots[key] = out
        return out

    @staticmethod
    def _mul(x: _Node, y: _Node, T: float, one: fmpz) -> _Node:
        """x * y on the lattice of step gcd(x.step, y.step), cut to mean +- T sd of the sum's
        tilted law, rounded down to the fixed point."""
        budget.check()
        mean, var = x.mean + y.mean, x.var + y.var
        d = math.gcd(x.step, y.step)
        px = x.poly.inflate(x.step // d) if x.step > d else x.poly
        py = y.poly.inflate(y.step // d) if y.step > d else y.poly
        p = px * py
        lo = x.lo + y.lo
        sd = math.sqrt(var)
        jlo = -((lo - math.floor(mean - T * sd)) // d)  # ceil((wlo - lo)/d)
        jhi = (math.ceil(mean + T * sd) - lo) // d
        bounded = x.bounded and y.bounded
        if p.length() <= (max(2 * (jhi - jlo + 1), KEEP_WHOLE) if bounded else KEEP_WHOLE):
            jlo, jhi = 0, p.length() - 1  # short enough to keep whole (finite supports)
        if jlo > 0:
            p = p.right_shift(jlo)
            lo += d * jlo
            jhi -= jlo
        if jhi + 1 < p.length():
            p = p.truncate(max(jhi + 1, 0))
        return _Node(lo, d, p // one, mean, var, bounded)

    def _power(self, leaf: _Node, n: int, T: float, one: fmpz) -> _Node:
        """leaf^n by left-to-right binary powering: the running power squared at every bit and
        multiplied by the leaf where the bit is set. The costly steps are the last squarings
        (a square costs about 2/3 of a product of two polynomials of its length, and the
        leaf's products are unbalanced); right to left, the last step was a product of two
        large powers (Skellam(1, 5)^100: 3.5 s a root against 2 s)."""
        out = leaf
        for bit in bin(n)[3:]:
            out = self._mul(out, out, T, one)
            if bit == "1":
                out = self._mul(out, leaf, T, one)
        return out

    def _tree(self, nodes: list[_Node], T: float, one: fmpz) -> _Node:
        """Multiply pairs until one node is left: among the few nodes of smallest span, the
        pair whose product is cheapest to form (the spans over their common step)."""
        nodes = list(nodes)
        while len(nodes) > 1:
            nodes.sort(key=lambda z: z.span)
            few = nodes[:12]
            best = None
            for i in range(len(few)):
                for j in range(i + 1, len(few)):
                    x, y = few[i], few[j]
                    cost = (x.span + y.span) / math.gcd(x.step, y.step)
                    if best is None or cost < best[0]:
                        best = (cost, i, j)
            _, i, j = best
            x, y = nodes[i], nodes[j]
            nodes = [z for k, z in enumerate(nodes) if k not in (i, j)]
            nodes.append(self._mul(x, y, T, one))
        return nodes[0]

    # -- delta -------------------------------------------------------------------------------
    def _threshold(self, eps: Fraction) -> int:
        """The largest s with l(s) <= eps: l(s) > eps iff s > (D eps - B)/g."""
        x = (eps * self.D - self.B) / self.g
        return x.numerator // x.denominator

    def _segment(self, first: int, c: float, T: float, prec: int) -> tuple[arb, arb, arb]:
        """(A, B, X) at Arb precision prec + 64 (the caller's section): for every eps with
        l(first - 1) <= eps <= l(first), the sum (1) over the root is A - e^eps B (A =
        Lambda 2^-prec sum_{s >= first} R(s) e^{-c l(s)}, B the same with e^{-(c + 1) l(s)}),
        and (2) is e^{-c eps} X, X = prod M_i(c) - Lambda 2^-prec sum_s R(s)."""
        lo, R, lam, m = self.root(c, T, prec)
        scale = lam / arb(2) ** prec
        X = m - scale * arb_of(int(R(1)))  # sum_s R(s) exact
        k = first - lo
        if k >= R.length():
            return arb(0), arb(0), X
        P = arb_poly(R.right_shift(k) if k > 0 else R)
        s0 = lo + max(k, 0)
        cc = arb_of(c)
        step = arb(self.g) / self.D
        l0 = (arb(self.g) * s0 + self.B) / self.D
        A = scale * (-cc * l0).exp() * P((-cc * step).exp())
        B = scale * (-(cc + 1) * l0).exp() * P((-(cc + 1) * step).exp())
        return A, B, X

    def loss_at(self, s: int) -> Fraction:
        """l(s) = (g s + B)/D, exactly."""
        return Fraction(self.g * s + self.B, self.D)

    def delta_ball(self, eps: Fraction, c: float, T: float, prec: int) -> arb:
        """A ball holding delta(eps) (eps an exact rational >= 0): (1) over the root at tilt c
        plus [0, (2)]."""
        if self.top is not None and eps >= self.top:  # every loss is <= eps: delta = 0
            return arb(0)
        with arb_precision(prec + 64):
            e = arb_of(eps)
            A, B, X = self._segment(self._threshold(eps) + 1, c, T, prec)
            main = A - e.exp() * B
            add = ((-arb_of(c) * e).exp() * X).upper()
            return main.union(main + add) if add > 0 else main

    def _gap(self, eps: float, c: float) -> float:
        """A float estimate of delta(eps) e^{c eps}/M(c), the fraction of (2)'s scale that
        delta is, from a normal approximation of the tilted law of L (planning only)."""
        m = self.mean_loss(c)
        sd = math.sqrt(sum(n * (float(f.step) * f.plan(c)[2]) ** 2 for f, n in self.factors))
        sd = max(sd, float(self.g) / self.D)
        top = max(m, eps) + 12 * sd
        k = 4000
        h = (top - eps) / k
        total = 0.0
        for i in range(1, k + 1):
            x = eps + i * h
            z = (x - m) / sd
            total += math.exp(-z * z / 2 - c * (x - eps)) * -math.expm1(eps - x)
        return max(total * h / (sd * math.sqrt(2 * math.pi)), 1e-300)

    def _plan(self, eps: float, rel_tol: float, margin: float = 1e-2, guard: int = 8):
        """(c, T, prec) for delta(eps) to about ``rel_tol``: the saddle tilt, and a window and a
        fixed point that make (2) a ``margin`` of the tolerance by the normal tails of the
        nodes' tilted laws and the roundings' count, with ``guard`` bits more (planning; (2)
        certifies)."""
        c = self.saddle(eps)
        target = rel_tol * self._gap(eps, c) * margin
        nodes = 2 * sum(1 + n.bit_length() for _, n in self.factors) + 8
        T = math.sqrt(2 * math.log(4 * nodes / target))
        work = self.window_size(c, T) * nodes
        prec = int(math.log2(work / target)) + guard
        return c, T, prec

    def delta(self, eps: Fraction, rel_tol: float) -> arb:
        """A ball holding delta(eps) of relative radius about ``rel_tol`` (tries up to three
        plans, each with more margin; the best ball is returned)."""
        eps = Fraction(eps)
        c, T, prec = self._plan(float(eps), rel_tol)
        best = None
        for _ in range(3):
            b = self.delta_ball(eps, c, T, prec)
            if best is None or b.rad() < best.rad():
                best = b
            if b.rad() <= rel_tol * abs(b.mid()) / 2 or b.upper() <= 0:
                break
            T, prec = T + 4, prec + 32
        return best

    # -- the answers of the product route ------------------------------------------------------
    def enclosure(self, question: str, arg, rel_tol: float) -> CertifiedPair:
        """delta(eps) (``question`` "delta") or eps(delta) ("epsilon") at the mpf ``arg``
        (taken exactly) as a CertifiedPair of mpfs rounded outward, of relative width about
        ``rel_tol``; a product beyond :data:`MAX_WINDOW` is refused at once (NumericalError
        naming it). A shortcut (:meth:`shortcut`) answers first where there is one."""
        if question == "delta" and arg == mp.inf:
            trace.note(LATTICE_PRODUCT)
            return CertifiedPair(mp.zero, mp.zero)  # every loss is finite
        if question == "delta" or 0 < arg < 1:
            sc = self.shortcut(rel_tol)
            out = None if sc is None else sc.enclosure(question, arg, rel_tol)
            if out is not None:
                trace.note(sc.name)  # (the shortcut's answer: the tree computed nothing)
                return out
        self.check_size()
        trace.note(LATTICE_PRODUCT)
        if question == "delta":
            b = self.delta(mpf_fraction(arg), rel_tol)
            with arb_precision(mp.prec + 64):  # (a ball's ends are rounded at Arb's precision)
                lo = max(arb_endpoint(b.lower(), round_floor), mp.zero)
                return CertifiedPair(lo, min(arb_endpoint(b.upper(), round_ceiling), mp.one))
        if arg <= 0:
            if self.top is None:  # an unbounded loss: delta(eps) > 0 at every eps (a proof)
                return CertifiedPair(mp.inf, mp.inf)
            top = self.top  # delta(eps) > 0 below the largest loss, 0 from it on
            with mp.workprec(mp.prec + 10):
                return CertifiedPair(mp.fdiv(top.numerator, top.denominator, rounding="d"),
                                     mp.fdiv(top.numerator, top.denominator, rounding="u"))
        lo, hi = self.epsilon(mpf_fraction(arg), rel_tol)
        with mp.workprec(mp.prec + 10):
            return CertifiedPair(mp.fdiv(lo.numerator, lo.denominator, rounding="d"),
                                 mp.fdiv(hi.numerator, hi.denominator, rounding="u"))

    # -- eps(delta) --------------------------------------------------------------------------
    def epsilon(self, d: Fraction, rel_tol: float) -> tuple[Fraction, Fraction]:
        """Exact rationals lo <= eps(d) <= hi (eps(d) = inf{eps >= 0: delta(eps) <= d}), hi -
        lo <= rel_tol hi where the balls allow: bisection with delta proved at each probe."""
        d = Fraction(d)
        if d >= 1:
            return Fraction(0), Fraction(0)
        if d <= 0:
            if self.top is not None:  # delta > 0 below the largest loss, 0 from it on
                return self.top, self.top
            raise NumericalError("lattice product: eps(delta) needs delta > 0 (every lattice "
                                 "product with an unbounded loss has a positive profile)")
        guess = self._guess(float(d))
        best = None
        for _ in range(3):  # the first bracket re-centres the tilt and the plan at eps(d)
            c, T, prec = self._plan(guess, rel_tol, 1e-3)  # (a margin for the guess's error)
            with arb_precision(prec + 64):
                lo, hi = self._bisect(d, arb_of(d), guess, c, T, prec, rel_tol)
            if best is None or hi - lo < best[1] - best[0]:
                best = (lo, hi)
            if hi - lo <= Fraction(rel_tol) * hi or hi == 0:
                break
            guess = float((lo + hi) / 2) if hi < 2 * lo + 1 else guess
        return best

    def _bisect(self, d, dd: arb, guess: float, c: float, T: float, prec: int,
                rel_tol: float) -> tuple[Fraction, Fraction]:
        """The lattice point m with delta(l(m - 1)) > d >= delta(l(m)) by bisection on the
        root's window (each probe proved), then on that segment delta = A - e^eps B + [0,
        e^{-c eps} X] is solved for eps in closed form at both ends."""
        def above(x: Fraction) -> bool | None:  # delta(x) > d ?
            budget.check()
            b = self.delta_ball(x, c, T, prec)
            return True if b > dd else False if b <= dd else None

        if above(Fraction(0)) is False:
            return Fraction(0), Fraction(0)
        lo_s = self._threshold(Fraction(0))  # l(lo_s) <= 0: delta(l(lo_s)) >= delta(0)
        s_zero = lo_s
        proved = Fraction(0)  # eps(d) >= proved: delta(proved) > d, or 0
        _, R, _, _ = self.root(c, T, prec)
        # The tilt's bound (2) is tight near the guess only (e^{-c eps} X grows as eps falls
        # below it): the bracket is searched outward from the guess's lattice point.
        s0 = max(self._threshold(Fraction(guess)) + 1, lo_s + 1)
        step = max(1, R.length() // 64)
        hi_s = s0
        while (r := above(self.loss_at(hi_s))) is not False:
            if r:
                proved = max(proved, self.loss_at(hi_s))
                lo_s = max(lo_s, hi_s)
            if hi_s - s0 > 4 * MAX_WINDOW:
                raise NumericalError("lattice product: eps(delta) not bracketed within the "
                                     "root's window")
            hi_s, step = hi_s + step, 2 * step
        step = max(1, R.length() // 64)
        s = hi_s - 1
        while lo_s == s_zero and s > s_zero:  # a proved point below hi_s
            r = above(self.loss_at(s))
            if r:
                lo_s, proved = s, max(proved, self.loss_at(s))
            elif r is False:
                hi_s = s
            s, step = max(s - step, s_zero), 2 * step
        while hi_s - lo_s > 1:  # delta(l(hi_s)) <= d proved
            mid = (lo_s + hi_s) // 2
            r = above(self.loss_at(mid))
            if r is None:
                break
            if r:
                lo_s = mid
                proved = max(proved, self.loss_at(mid))
            else:
                hi_s = mid
        if hi_s - lo_s > 1:  # an undecided probe: the bracket of the lattice points
            return proved, self.loss_at(hi_s)
        m = hi_s
        seg_lo, seg_hi = max(self.loss_at(m - 1), Fraction(0)), self.loss_at(m)
        A, B, X = self._segment(m, c, T, prec)
        # on the segment A - e^eps B <= delta(eps) <= A - e^eps B + e^{-c seg_lo} X
        lo = proved
        if B > 0 and A > dd:  # delta(eps) > d for seg_lo <= eps < log((A - d)/B)
            x = exact_fraction(((A - dd) / B).log().lower())
            if x >= seg_lo:  # (then also left of seg_lo: delta is non-increasing)
                lo = max(lo, min(x, seg_hi))
        hi = seg_hi  # delta(seg_hi) <= d proved
        extra = ((-arb_of(c) * arb_of(seg_lo)).exp() * X).upper()
        if B > 0 and A + extra > dd:  # delta(eps) <= d from log((A + extra - d)/B) on
            hi = min(hi, max(exact_fraction(((A + extra - dd) / B).log().upper()), seg_lo))
        return lo, max(hi, lo)

    def _guess(self, d: float) -> float:
        """A Gaussian start for eps(d): mean + sd sqrt(2 log 1/d)."""
        m = self.mean_loss(0.0)
        var = sum(n * (float(f.step) * f.plan(0.0)[2]) ** 2 for f, n in self.factors)
        guess = m + math.sqrt(var) * math.sqrt(2 * math.log(1 / d))
        if self.top is not None:  # below the largest loss, where delta vanishes
            guess = min(guess, float(self.top) - float(Fraction(self.g, 2 * self.D)))
        return max(guess, 1e-3)
