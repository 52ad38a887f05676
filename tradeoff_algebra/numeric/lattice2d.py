"""The atoms of a finite product on several incommensurate lattices, in a proved order, as Arb
balls: f_{1/10,0}^{(x) 100} (x) RR(log 3, 5)^{(x) 100}, whose likelihood ratios are e^{d_1/10}
3^{d_2}.

Each factor pair of a finite loss (``numeric.finite``) whose ratios are integer powers of one
base R (``numeric.lattice_power.symbolic_lattice_pair``) belongs to the group of that base; bases
that are integer powers of one another share a group (proved exactly, as
``numeric.lattice_two`` does). The product (Dong, Roth & Su, Def. 5) of G groups has atoms
(d_1, ..., d_G) with

    loss L = sum_g d_g log R_g,   Q-mass prod_g Q_g(d_g),   P-mass prod_g P_g(d_g),

Q_g the group's Q-law of the exponent sum (the coefficients of prod_f (sum_i q_fi x^{k_fi})^{m_f})
and P_g its P-law (the same with p_fi = q_fi R_g^{-k_fi}): balls of each, by powers of Arb
polynomials with positive coefficients (or exact integer polynomials where the masses are
rational), every mass checked to be a positive ball.

**Order.** The atoms are sorted by their float losses; each adjacent pair a, b is then proved
L_a >= L_b: the difference sum_g (d_ga - d_gb) log R_g is an integer combination of the logs,
computed in floats with |error| <= sum_g |Delta_g| r_g + 4 u (|L_a| + |L_b|) + (G + 3) u
sum_g (|d_ga| + |d_gb|) |log R_g| (r_g >= |log R_g - its float|, from the Arb ball; u = 2^-53:
the float loss of an atom is a sum of G rounded products, the gap one more rounding), so a
float gap above that bound proves the order; a smaller gap is decided by the Arb
ball of the difference at 256 and then 1024 bits, and a difference whose ball still contains 0 by
proving the two ratios equal exactly (prod_g R_g^{Delta_g} = 1 simplified by SymPy: commensurate
bases that were not merged); anything else is not proved and no ordered table is given (the
callers fall back). Equal ratios may stand in either order: every reader of the ordered balls
takes its lines and vertices from each atom's own ratio (``FiniteValues.arb_value``,
``numeric.finite_np``), where a tie changes nothing.

The table has the product of the groups' supports as its size: :data:`MAX_ATOMS` at most (past
it ``numeric.lattice_two`` composes tilted windows of the two lattices instead).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp
from flint import arb, arb_poly, fmpz, fmpz_poly

from . import budget, progress
from .arb_expr import Unenclosable, arb_ball
from .context import arb_precision
from .lattice_power import commensurate_groups, symbolic_lattice_pair

__all__ = ["LatticeGroups", "lattice_groups", "lattice_parts", "MAX_ATOMS"]

#: The most atoms of an ordered table (the product of the groups' supports).
MAX_ATOMS = 2_000_000
#: The most outcomes of one factor pair tried as a lattice pair.
MAX_PAIR_ATOMS = 256
_U = 2.0 ** -53
#: A lower bound of the seconds per atom of the ordered table (two Arb products per group and
#: the list's own work; measured 2.5e-6 on an x86_64 core, Python 3.11, divided by about
#: three): a table whose bound exceeds the time left is refused at once.
SECONDS_PER_ATOM = 8e-7
#: Atoms multiplied between two checks of the time limit.
CHUNK = 1 << 15


def _exact_ball(x: sp.Expr) -> arb:
    return arb_ball(sp.S(x))


class _Group:
    """One lattice: base R (exact SymPy number > 1) and factors (ks, qs, m)."""

    def __init__(self, base: sp.Expr, factors: list) -> None:
        self.base = base
        self.factors = factors
        self.lo = sum(min(ks) * m for ks, _, m in factors)
        self.hi = sum(max(ks) * m for ks, _, m in factors)
        self.rational = all(isinstance(q, sp.Rational) for _, qs, _ in factors for q in qs) \
            and isinstance(base, sp.Rational)

    def support(self) -> list[int]:
        """The exponent sums d with positive mass: the nonzero coefficients of the product of
        the factors' indicator polynomials (exact integers)."""
        poly = fmpz_poly([1])
        for ks, _, m in self.factors:
            k0 = min(ks)
            ind = [0] * (max(ks) - k0 + 1)
            for k in ks:
                ind[k - k0] = 1
            poly = poly * fmpz_poly(ind) ** m
        return [self.lo + i for i, c in enumerate(poly.coeffs()) if c != 0]

    def laws(self, prec: int) -> tuple[list, list]:
        """Balls of the Q-law and the P-law at d = lo .. hi (index d - lo) at ``prec`` bits."""
        if self.rational:
            return self._exact_laws()
        with arb_precision(prec):
            R = _exact_ball(self.base)
            Q = arb_poly([1])
            P = arb_poly([1])
            for ks, qs, m in self.factors:
                k0 = min(ks)
                cq = [arb(0)] * (max(ks) - k0 + 1)
                cp = [arb(0)] * (max(ks) - k0 + 1)
                for k, q in zip(ks, qs, strict=True):
                    b = _exact_ball(q)
                    cq[k - k0] += b
                    cp[k - k0] += b * R ** (-k)
                Q = Q * arb_poly(cq) ** m
                P = P * arb_poly(cp) ** m
                budget.check()
            return self._coeffs(Q), self._coeffs(P)

    def _coeffs(self, poly) -> list:
        cs = poly.coeffs()
        n = self.hi - self.lo + 1
        return list(cs) + [arb(0)] * (n - len(cs))

    def _exact_laws(self) -> tuple[list, list]:
        """Exact integer polynomials over a common denominator, their balls at the context's
        precision (one rounding per mass)."""
        Q, P = fmpz_poly([1]), fmpz_poly([1])
        dq = dp = 1
        R = Fraction(int(self.base.p), int(self.base.q))
        for ks, qs, m in self.factors:
            k0 = min(ks)
            fq = [Fraction(0)] * (max(ks) - k0 + 1)
            fp = [Fraction(0)] * (max(ks) - k0 + 1)
            for k, q in zip(ks, qs, strict=True):
                q = Fraction(int(q.p), int(q.q))
                fq[k - k0] += q
                fp[k - k0] += q / R**k
            for fr, which in ((fq, "q"), (fp, "p")):
                den = math.lcm(*(x.denominator for x in fr))
                poly = fmpz_poly([int(x * den) for x in fr]) ** m
                if which == "q":
                    Q, dq = Q * poly, dq * den**m
                else:
                    P, dp = P * poly, dp * den**m
            budget.check()
        n = self.hi - self.lo + 1
        iq, ip = arb(1) / arb(fmpz(dq)), arb(1) / arb(fmpz(dp))
        cq = [arb(fmpz(int(c))) * iq for c in Q.coeffs()]
        cp = [arb(fmpz(int(c))) * ip for c in P.coeffs()]
        return cq + [arb(0)] * (n - len(cq)), cp + [arb(0)] * (n - len(cp))


class LatticeGroups:
    """The product of lattice groups (module docstring): its atoms by decreasing ratio."""

    def __init__(self, groups: list[_Group]) -> None:
        self.groups = groups
        with arb_precision(256):
            self._ell = [_exact_ball(g.base).log() for g in groups]
        self._ellf = np.array([float(x.mid()) for x in self._ell])
        self._r = np.array([float((x - arb(f)).abs_upper() + x.rad()) * (1 + 1e-9)
                            for x, f in zip(self._ell, self._ellf, strict=True)])
        self._order: tuple | None = None

    @property
    def size(self) -> int:
        return math.prod(g.hi - g.lo + 1 for g in self.groups)

    def _grid(self) -> np.ndarray:
        """The exponent vectors of all atoms, one row each (the groups' supports' product)."""
        axes = [np.array(g.support(), dtype=np.int64) for g in self.groups]
        mesh = np.meshgrid(*axes, indexing="ij")
        return np.stack([m.ravel() for m in mesh], axis=1)

    def order(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(the atoms' exponent rows, their order by decreasing loss), proved (module
        docstring), or None where a pair of neighbours is not; computed once."""
        if self._order is not None:
            return self._order or None
        D = self._grid()
        loss = D.astype(np.float64) @ self._ellf
        idx = np.argsort(-loss, kind="stable")
        ok = self._prove(D[idx], loss[idx])
        if ok is None:
            self._order = ()
            return None
        self._order = (D, idx[ok])
        return self._order

    def _prove(self, D: np.ndarray, loss: np.ndarray) -> np.ndarray | None:
        """The permutation of the float-sorted rows that is proved non-increasing in loss (the
        identity where the floats decide), or None."""
        n = len(loss)
        perm = np.arange(n)
        if n < 2:
            return perm
        delta = D[:-1] - D[1:]
        gap = loss[:-1] - loss[1:]
        w = (len(self.groups) + 3) * _U  # (G products and G - 1 sums per float loss)
        margin = np.abs(delta) @ self._r + 4 * _U * (np.abs(loss[:-1]) + np.abs(loss[1:])) \
            + w * (np.abs(D[:-1]) @ np.abs(self._ellf) + np.abs(D[1:]) @ np.abs(self._ellf))
        bad = np.flatnonzero(~(gap > margin))
        if bad.size == 0:
            return perm
        # runs of atoms joined by undecided gaps (rows k and k + 1 for each bad k), each
        # ordered by Arb (and exact ties)
        runs = np.split(bad, np.flatnonzero(np.diff(bad) > 1) + 1)
        for run in runs:
            budget.check()
            a, b = int(run[0]), int(run[-1]) + 2
            sub = self._order_run(D, a, b)
            if sub is None:
                return None
            perm[a:b] = perm[a:b][sub]
        return perm

    def _order_run(self, D: np.ndarray, a: int, b: int) -> list | None:
        """The order of the rows a .. b - 1 (a run not decided in floats) by Arb losses, proved
        for each neighbour pair (strict, or equal ratios proved exactly), or None."""
        for prec in (256, 1024):
            with arb_precision(prec + 32):
                ell = [_exact_ball(g.base).log() for g in self.groups]
                L = [sum((int(x) * e for x, e in zip(D[i], ell, strict=True)), arb(0))
                     for i in range(a, b)]
                sub = sorted(range(b - a), key=lambda j: L[j].mid(), reverse=True)
                proved = True
                for s, t in zip(sub, sub[1:], strict=False):
                    diff = sum((int(x) * e for x, e in zip(D[a + s] - D[a + t], ell,
                                                           strict=True)), arb(0))
                    if diff > 0:
                        continue
                    if diff.contains(0) and self._equal(D[a + s] - D[a + t]):
                        continue
                    proved = False
                    break
            if proved:
                return sub
        return None

    def _equal(self, delta) -> bool:
        """Is prod_g R_g^{delta_g} = 1 exactly (SymPy)?"""
        if not any(delta):
            return True
        x = sp.S.One
        for g, k in zip(self.groups, delta, strict=True):
            x *= g.base ** int(k)
        if x == 1:
            return True
        try:
            return sp.simplify(x - 1) == 0
        except (TypeError, ValueError):  # pragma: no cover - SymPy's own failures
            return False

    def ordered_masses(self, prec: int) -> list | None:
        """The atoms' (P-mass, Q-mass) balls at ``prec`` bits by decreasing ratio, or None (the
        order not proved, or a mass not a positive ball)."""
        od = self.order()
        if od is None:
            return None
        D, idx = od
        progress.ensure_time(len(idx) * SECONDS_PER_ATOM,
                             f"the ordered table of {len(idx)} atoms on {len(self.groups)} "
                             "lattices")
        with arb_precision(prec + 16):
            laws = []
            for g in self.groups:
                q, p = g.laws(prec + 16)
                for d in g.support():  # (a product of positive balls is positive)
                    if not (q[d - g.lo] > 0 and p[d - g.lo] > 0):
                        return None
                laws.append((q, p))
            rows = (D[idx] - np.array([g.lo for g in self.groups])).T.tolist()
            budget.check()
            (q1, p1), rest = laws[0], laws[1:]
            P_ = [p1[a] for a in rows[0]]
            Q_ = [q1[a] for a in rows[0]]
            for (q, p), col in zip(rest, rows[1:], strict=True):
                for s in range(0, len(col), CHUNK):  # (the time limit checked per chunk)
                    budget.check()
                    e = min(s + CHUNK, len(col))
                    P_[s:e] = [x * p[b] for x, b in zip(P_[s:e], col[s:e], strict=True)]
                    Q_[s:e] = [x * q[b] for x, b in zip(Q_[s:e], col[s:e], strict=True)]
            return list(zip(P_, Q_, strict=True))



def lattice_parts(leaves: list) -> list | None:
    """The factors of a finite loss given by its leaves (``FiniteLoss.leaves()``: the factor
    pairs' (P, Q) outcomes with multiplicities) as lattice pairs [(base R > 1, ks, qs, m)]
    (:func:`~.lattice_power.symbolic_lattice_pair`; a factor of ratio 1 alone, Id, left out),
    or None where a factor has a mass 0, more than :data:`MAX_PAIR_ATOMS` outcomes, or ratios
    not proved to lie on one lattice."""
    parts = []
    for pairs, m in leaves:
        if len(pairs) > MAX_PAIR_ATOMS or any(p == 0 or q == 0 for p, q in pairs):
            return None
        if all(p == q for p, q in pairs):
            continue  # (ratio 1 alone: Id)
        try:
            lat = symbolic_lattice_pair([p for p, _ in pairs], [q for _, q in pairs])
        except (TypeError, ValueError, ArithmeticError):
            return None
        if lat is None:
            return None
        parts.append((lat[0], lat[1], lat[2], int(m)))
    return parts

def lattice_groups(leaves: list) -> LatticeGroups | None:
    """The lattice groups of a finite loss given by its leaves (``FiniteLoss.leaves()``: the
    factor pairs' (P, Q) outcomes with multiplicities) when every factor is a regular lattice
    pair (no mass where P or Q is 0) and the bases fall on at least two groups, within
    :data:`MAX_ATOMS` atoms; else None."""
    parts = lattice_parts(leaves)
    if not parts:
        return None
    try:
        groups = commensurate_groups(parts)
    except (TypeError, ValueError):
        return None
    if len(groups) < 2:
        return None
    out = LatticeGroups([_Group(b, fs) for b, _, fs in groups])
    return out if out.size <= MAX_ATOMS else None


def ordered_balls(fl: Any, prec: int, masses: bool = True) -> list | None:
    """The (P, Q) balls of a finite loss ``fl`` on two or more lattices by decreasing ratio
    (module docstring), or None (cached on the loss: the groups and their order)."""
    cache = fl.__dict__
    if "_lattice_groups" not in cache:
        try:
            cache["_lattice_groups"] = lattice_groups(fl.leaves())
        except (Unenclosable, TypeError, ValueError, ArithmeticError):
            cache["_lattice_groups"] = None
    lg = cache["_lattice_groups"]
    if lg is None or not masses:
        return None
    try:
        return lg.ordered_masses(prec)
    except (Unenclosable, ValueError, ZeroDivisionError):
        return None


def has_order(fl: Any) -> bool:
    """Does the finite loss ``fl`` lie on two or more lattices with its atoms' order proved
    (the groups and the order, without the masses; cached as :func:`ordered_balls`)?"""
    cache = fl.__dict__
    if "_lattice_groups" not in cache:
        ordered_balls(fl, 0, masses=False)
    lg = cache["_lattice_groups"]
    return lg is not None and lg.order() is not None
