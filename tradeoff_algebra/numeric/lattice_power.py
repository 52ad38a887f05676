"""Certified privacy profiles of a finite pair composed n times when its privacy losses lie on a
lattice: the outcomes' likelihood ratios Q_i/P_i are integer powers R^{k_i} of one number R > 1
(k-ary randomized response: R = e^eps, k in {-1, 0, 1}; the exponential mechanism with integer
utility changes). R and the masses are rationals (:func:`lattice_pair`) or closed forms such as
e^eps/(e^eps + k - 1) (:func:`symbolic_lattice_pair`, the exponents proved by exact SymPy
identities R^k = Q_i/P_i), held as Arb balls of their exact values. The loss of the product is l d,
l = log R, with d = sum of the k's, whose Q-law is the coefficient list of the polynomial (sum_i
q_i x^{k_i - k_min})^n: one power of an Arb polynomial (python-flint ``arb_poly``, binary
powering), where the exact composition would multiply rationals of n times the masses' size (a
float probability is a 53-bit rational: at n = 1000 its table holds numbers of 10^5 bits). Under P
the mass of d is Q(d) R^{-d}, so

    delta(eps) = sum_{d l > eps} Q(d) (1 - e^{eps - d l}) = A_m - e^eps B_m,  (m-1) l <= eps < m l,
    A_m = sum_{d >= m} Q(d),  B_m = sum_{d >= m} Q(d) R^{-d}

(Dong, Roth & Su, Prop. 6 for the profile of a pair; Def. 5 for the product's laws), and on that
segment eps(delta) = log((A_m - delta) / B_m). Everything is an Arb ball; the working precision
rises until the requested relative width is met (or a cap, then the best enclosure is returned).
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp
from flint import arb, arb_poly

from .arb_expr import arb_ball
from .cf_laws import lower, to_arb, upper, working_precision
from .lattice_tilted import TiltedLatticePower

__all__ = ["LatticePower", "TILT_SIZE", "lattice_pair", "symbolic_lattice_pair",
           "commensurate_groups", "FiniteLatticeFactor", "finite_lattice_factor"]

#: The largest |k| accepted as a lattice index (ratios R^k beyond are not searched for).
MAX_INDEX = 64
#: The largest table (n (kmax - kmin) + 1 lattice points) composed for closed-form masses (up to
#: n = 10^6 for randomized response; the tilted power of ``numeric.lattice_tilted`` keeps a window
#: of about 30 sqrt(n) points of it); beyond, the other routes answer.
MAX_SYMBOLIC_SIZE = 2_000_001
#: Tables longer than this are composed by the tilted fixed-point power
#: (``numeric.lattice_tilted``): one power of an Arb polynomial whose coefficients span hundreds
#: of orders of magnitude costs quadratic time (0.97 s at 2 * 10^4 points, 61 s at 2 * 10^5).
TILT_SIZE = 4001
#: Relative distance of log R_2 / log R_1 from an integer below which two bases are tried as
#: powers of one another (then proved equal exactly, or taken as two lattices).
COMMENSURATE_RTOL = 1e-12


def lattice_pair(P: list[Fraction], Q: list[Fraction]
                 ) -> tuple[Fraction, list[int], list[Fraction]] | None:
    """(R, ks, qs): the pair's outcomes merged by likelihood ratio, ratio R^{k} with R > 1 a
    rational and k an integer, their Q-masses qs; None when some outcome has P or Q mass 0
    (an infinite loss), when all ratios are 1, or when they are not powers of one rational
    with exponents up to :data:`MAX_INDEX` (:func:`symbolic_lattice_pair` on the rationals)."""
    lat = symbolic_lattice_pair([sp.Rational(p.numerator, p.denominator) for p in P],
                                [sp.Rational(q.numerator, q.denominator) for q in Q])
    if lat is None:
        return None
    base, ks, qs = lat
    return Fraction(int(base.p), int(base.q)), ks, [Fraction(int(q.p), int(q.q)) for q in qs]


def symbolic_lattice_pair(P: list[sp.Expr], Q: list[sp.Expr]
                          ) -> tuple[sp.Expr, list[int], list[sp.Expr]] | None:
    """:func:`lattice_pair` for masses that are exact SymPy numbers (closed forms): the ratios
    Q_i/P_i merged when SymPy proves them equal, the base R > 1 the ratio (or its inverse)
    nearest 1, each exponent k found in floats and then proved by R^k - Q_i/P_i simplifying to
    0 exactly; None when a mass is 0, all ratios are 1, or an identity is not proved."""
    groups: list[list] = []  # [ratio, Q-mass]
    for p, q in zip(P, Q, strict=True):
        p, q = sp.S(p), sp.S(q)
        if p.is_zero and q.is_zero:
            continue
        if p.is_zero or q.is_zero or not (p.is_positive and q.is_positive):
            return None
        r = q / p
        if not r.is_Rational and r.has(sp.Add):  # (SymPy's simplify is costly: its first
            r = sp.simplify(r)  # call imports sympy.physics, 0.8 s; a monomial needs none)
        for g in groups:
            if g[0] == r or (_near(g[0], r) and sp.simplify(g[0] - r) == 0):
                g[1] += q
                break
        else:
            groups.append([r, q])
    logs = [float(sp.log(r).evalf(30)) for r, _ in groups]
    if not all(math.isfinite(lg) for lg in logs):
        return None
    others = [(abs(lg), r) for (r, _), lg in zip(groups, logs, strict=True) if lg != 0.0]
    if not others:
        return None
    lb, base = min(others, key=lambda t: t[0])
    if not sp.log(base).evalf(30) > 0:
        base = 1 / base
        base = sp.simplify(base) if base.has(sp.Add) else base
    ks, qs = [], []
    for (r, q), lg in zip(groups, logs, strict=True):
        k = round(lg / lb)
        if abs(k) > MAX_INDEX or (base**k != r and sp.simplify(base**k - r) != 0):
            return None
        ks.append(k)
        qs.append(q)
    return base, ks, qs



def commensurate_groups(parts: list) -> list[list]:
    """The lattice factors ``parts`` = [(base R > 1, ks, qs, multiplicity)] (of
    :func:`symbolic_lattice_pair`) gathered on common lattices: by increasing log R, a factor
    joins the first group whose base R_0 has R = R_0^k for an integer k >= 1 (k found in floats,
    within :data:`COMMENSURATE_RTOL`, then proved exactly by SymPy), its exponents multiplied
    by k; else it opens a group. Returns [[R_0, log R_0 (float), [(ks, qs, m), ...]], ...]."""
    logs = [float(sp.log(b).evalf(30)) for b, *_ in parts]
    groups: list[list] = []
    for i in sorted(range(len(parts)), key=logs.__getitem__):
        base, ks, qs, m = parts[i]
        lb = logs[i]
        for g in groups:
            r = lb / g[1]
            k = round(r)
            if k >= 1 and abs(r - k) <= COMMENSURATE_RTOL * k and (
                    g[0] ** k == base or sp.simplify(g[0] ** k - base) == 0):
                g[2].append(([x * k for x in ks], qs, m))
                break
        else:
            groups.append([base, lb, [(list(ks), list(qs), m)]])
    return groups

def _near(x: sp.Expr, y: sp.Expr) -> bool:
    """Can x = y? False when 30 digits tell them apart (then no identity is tried: two ratios
    kept apart that were equal would only make two groups of one exponent)."""
    try:
        return abs(complex(sp.N(x - y, 30))) <= 1e-25 * max(abs(complex(sp.N(x, 30))), 1e-300)
    except (TypeError, ValueError):
        return True


def _ball(x) -> arb:
    """A ball of the exact value of a rational or of a SymPy closed form (current precision)."""
    return to_arb(x) if isinstance(x, (Fraction, int)) else arb_ball(sp.S(x))


def _suffix_sums(coeffs: list, size: int) -> list:
    """[sum_{j >= i} coeffs[j] for i = 0 .. size] (the last 0; coefficients past the list's
    end are 0)."""
    out = [arb(0)] * (size + 1)
    acc = arb(0)
    for i in range(min(len(coeffs), size) - 1, -1, -1):
        acc = acc + coeffs[i]
        out[i] = acc
    return out


class LatticePower:
    """The n-fold product of a lattice pair (see the module): ``delta`` and ``epsilon`` as
    certified float enclosures; a table of more than :data:`TILT_SIZE` points is composed by
    the tilted fixed-point power (``numeric.lattice_tilted``) instead."""

    def __init__(self, ratio: Fraction | sp.Expr, ks: list[int], qs: list, n: int) -> None:
        self.ratio, self.ks, self.qs, self.n = ratio, list(ks), list(qs), int(n)
        self.kmin, self.kmax = min(ks), max(ks)
        self._tables: dict[int, tuple] = {}
        size = self.n * (self.kmax - self.kmin) + 1
        #: The tilted power that answers for long tables (None: the whole table in Arb).
        self.tilted = TiltedLatticePower(ratio, ks, qs, n) if size > TILT_SIZE else None

    def _table(self, prec: int):
        """(l, Q-suffix sums A_d, P-suffix sums B_d) as balls, d = n kmin .. n kmax (lists
        indexed by d - n kmin, with a final 0), at ``prec`` bits."""
        if prec in self._tables:
            return self._tables[prec]
        with working_precision(prec):
            ell = _ball(self.ratio).log()
            qc = [arb(0)] * (self.kmax - self.kmin + 1)
            for k, q in zip(self.ks, self.qs, strict=True):
                qc[k - self.kmin] = qc[k - self.kmin] + _ball(q)
            d0 = self.n * self.kmin
            size = self.n * (self.kmax - self.kmin) + 1
            coeffs = (arb_poly(qc) ** self.n).coeffs()
            a = _suffix_sums(coeffs, size)
            # the P-law: the mass of d under P is Q(d) R^{-d}, R^{-d} stepped by R from the top
            step, scale = ell.exp(), (-(d0 + len(coeffs) - 1) * ell).exp()
            pc = [arb(0)] * len(coeffs)
            for i in range(len(coeffs) - 1, -1, -1):
                pc[i] = coeffs[i] * scale
                scale = scale * step
            b = _suffix_sums(pc, size)
        if len(self._tables) > 4:
            self._tables.clear()
        self._tables[prec] = (ell, a, b, d0, size)
        return self._tables[prec]

    def _delta_ball(self, eps: float, prec: int) -> arb:
        """delta(eps) = A_m - e^eps B_m for the segment (m - 1) l <= eps <= m l holding eps (the
        union over the candidate segments the balls cannot tell apart: delta is continuous, so
        they agree at a lattice point)."""
        ell, a, b, d0, size = self._table(prec)
        with working_precision(prec):
            e = arb(eps)
            m = math.floor(eps / float(ell.mid())) + 1
            out = None
            for mm in (m - 1, m, m + 1):
                if (mm - 1) * ell > e or e > mm * ell:
                    continue  # certainly not this segment
                i = min(max(mm - d0, 0), size)
                v = a[i] - e.exp() * b[i]
                out = v if out is None else out.union(v)
            return out

    def delta(self, eps: float, rel_tol: float) -> tuple[float, float]:
        """Certified lo <= delta(eps) <= hi (eps a float >= 0)."""
        if self.tilted is not None:
            return self.tilted.delta(eps, rel_tol)
        prec = 64 + int(-math.log2(max(rel_tol, 1e-300)))
        best = None
        for _ in range(6):
            d = self._delta_ball(eps, prec)
            lo, hi = max(0.0, lower(d)), min(1.0, upper(d))
            if best is None or hi - lo < best[1] - best[0]:
                best = (lo, hi)
            if hi - lo <= rel_tol * hi:
                break
            prec = 2 * prec + int(-math.log2(max(hi, 1e-300)))
        return best

    def epsilon(self, dn: float, up: float, rel_tol: float) -> tuple[float, float]:
        """Certified lo <= eps(d) <= hi for every d in [dn, up], eps(d) = inf{eps >= 0:
        delta(eps) <= d}."""
        if self.tilted is not None:
            return self.tilted.epsilon(dn, up, rel_tol)
        prec = 64 + int(-math.log2(max(rel_tol, 1e-300))) + int(-math.log2(max(dn, 1e-300)))
        best = None
        for _ in range(6):
            r = self._epsilon_at(dn, up, prec)
            if best is None or r[1] - r[0] < best[1] - best[0]:
                best = r
            if r[1] - r[0] <= rel_tol * r[1]:
                break
            prec *= 2
        return best

    def _epsilon_at(self, dn: float, up: float, prec: int) -> tuple[float, float]:
        ell, a, b, d0, size = self._table(prec)
        with working_precision(prec):
            lo_d, up_d = arb(dn), arb(up)
            # delta at the lattice point m l (m >= 0) is a[m + 1] - e^{m l} b[m + 1]
            def at(m: int) -> arb:
                i = min(max(m + 1 - d0, 0), size)
                return a[i] - (m * ell).exp() * b[i]

            if at(0) <= lo_d:  # delta(0) <= d: eps = 0
                return 0.0, 0.0
            m = max(self.n * self.kmax, 0)  # delta(n kmax l) = 0 <= d
            lo_m = 0
            while m - lo_m > 1:  # at(lo_m) > up (certified or not decided), at(m) <= dn
                mid = (lo_m + m) // 2
                if at(mid) <= lo_d:
                    m = mid
                else:
                    lo_m = mid
            # eps <= m l (at(m) <= d certified); on [(m - 1) l, m l], delta = A_m - e^eps B_m
            def formula(mm: int, d: arb) -> arb:
                i = min(max(mm - d0, 0), size)
                return ((a[i] - d) / b[i]).log()

            seg_lo, seg_hi = (m - 1) * ell, m * ell
            hi = max(min(upper(formula(m, lo_d)), upper(seg_hi)), upper(seg_lo))
            if m - 1 <= 0 or at(m - 1) > up_d:  # eps > (m - 1) l: this segment
                lo = max(lower(formula(m, up_d)), lower(seg_lo), 0.0)
            elif m - 2 <= 0 or at(m - 2) > up_d:  # (at(m - 1) undecided) this or the one below
                lo = max(min(lower(formula(m - 1, up_d)), lower(seg_lo)),
                         lower((m - 2) * ell), 0.0)
            else:
                lo = 0.0
            return lo, max(lo, hi)


class FiniteLatticeFactor:
    """A finite pair with lattice losses as a factor of ``numeric.lattice_product``: under Q the
    loss is ``step * y`` (offset 0) for the lattice index y = k_i of the outcomes, whose Q-masses
    are exact SymPy numbers or rationals (their Arb balls), when log R is a rational ``step``
    (randomized response with a rational eps: R = e^eps). The support is finite, so the mgf is an
    exact finite sum in Arb and the tilted masses are Arb balls rounded down to integers; the
    largest loss (``loss_max``) is step * k_max. Products of such factors with each other and
    with the discrete Gaussians and discrete Laplaces of rational steps compose exactly there,
    at any n (the tilt and the windows keep the integers short)."""

    def __init__(self, step: Fraction, ks: list[int], qs: list) -> None:
        self.step, self.offset = Fraction(step), Fraction(0)
        mass: dict[int, list] = {}
        for k, q in zip(ks, qs, strict=True):
            mass.setdefault(int(k), []).append(q)
        self.ys = sorted(mass)
        self._qs = {y: mass[y] for y in self.ys}
        self.loss_max = self.step * self.ys[-1]
        with working_precision(64):
            self._lq = {y: math.log(float(sum(_ball(q) for q in self._qs[y]).mid()))
                        for y in self.ys}

    def __repr__(self) -> str:
        return f"FiniteLatticeFactor(step={self.step}, y={self.ys})"

    def plan(self, c: float) -> tuple[float, float, float]:
        """(log M(c), tilted mean of y, its sd) in floats (planning only)."""
        e = [self._lq[y] + c * float(self.step) * y for y in self.ys]
        m = max(e)
        w = [math.exp(x - m) for x in e]
        s = sum(w)
        mean = sum(wi * y for wi, y in zip(w, self.ys, strict=True)) / s
        var = max(sum(wi * y * y for wi, y in zip(w, self.ys, strict=True)) / s - mean**2, 0.0)
        return m + math.log(s), mean, max(math.sqrt(var), 0.5)

    def _q_ball(self, y: int) -> arb:
        return sum((_ball(q) for q in self._qs[y]), arb(0))

    def mgf_ball(self, c: arb) -> arb:
        """M(c) = sum_y q(y) e^{c step y}: the exact finite sum in Arb."""
        step = to_arb(self.step)
        return sum((self._q_ball(y) * (c * step * y).exp() for y in self.ys), arb(0))

    def tilted(self, c: float, prec: int, ylo: int, yhi: int, scale: Fraction) -> list[int]:
        """Integers I(y) <= 2^prec q(y) e^{c step y}/scale for y = ylo..yhi (0 off the
        support), each the floor of the lower end of its Arb ball."""
        out = [0] * (yhi - ylo + 1)
        with working_precision(prec + 64):
            cc, step = to_arb(Fraction(c)), to_arb(self.step)
            factor = arb(2) ** prec / to_arb(scale)
            for y in self.ys:
                if ylo <= y <= yhi:
                    lo = (self._q_ball(y) * (cc * step * y).exp() * factor).lower()
                    out[y - ylo] = int(lo.floor().unique_fmpz()) if lo > 0 else 0
        return out


def finite_lattice_factor(P: list, Q: list) -> FiniteLatticeFactor | None:
    """The lattice-product view of a finite pair (P, Q masses, exact) whose likelihood ratios are
    integer powers of R = e^r with r rational (proved by SymPy), else None."""
    try:
        lat = symbolic_lattice_pair(P, Q)
    except (TypeError, ValueError):
        return None
    if lat is None:
        return None
    base, ks, qs = lat
    r = sp.simplify(sp.log(base))
    if not isinstance(r, sp.Rational):
        return None
    return FiniteLatticeFactor(Fraction(int(r.p), int(r.q)), ks, qs)
