"""Certified loss tails of products of many Laplace factors whose scales lie on one grid
(Laplace(mu_1) (x) ... (x) Laplace(mu_r), mu_i = m_i h, m_i integers: Laplace(1/10 + i/10^4),
i < 100), split by the number of density components: the terms with at most J of them summed
exactly on the grid, the rest inverted (its transform decays like |t|^-(J+1)).

**The factors.** Each factor's loss law (``lattice_parts``: atoms p+ at mu, p- at -mu, the
density kappa e^{lam s} on (-mu, mu); Dong, Roth & Su, Prop. 7) is dA_i = e^{s/2} d nu_i with
lam = 1/2 and, for the Laplace mechanism, nu_i = c_i (delta_mu + delta_-mu + 1/2 on (-mu, mu)),
c_i = p+ e^{-mu/2} = p- e^{mu/2} = 2 kappa = e^{-mu/2}/2. The law actually used is this
structured one with c_i = p+ e^{-mu/2} (a ball); the distance to the law's own parts is bounded
in total variation (:meth:`GridPart.tv_bound`: |p- e^{mu/2} - c_i| e^{-mu/2} + |kappa - c_i/2|
4 sinh(mu/2) for one factor, and ||prod A_i - prod A'_i|| <= sum_i TV_i prod_{k != i}
max(||A_k||, ||A'_k||)) and added to every ball (delta and both tails move by at most the total
variation: their integrands lie in [0, 1] on L > eps); for the Laplace law it is the balls'
radius, about 2^-prec.

**The product's transform.** With w = z + 1/2, x = e^{w h}, v = 1/(2w), one factor's
transform is int e^{ws} d nu_i = c_i ((1 + v) x^{m_i} + (1 - v) x^{-m_i}) (the density
1/2 on (-mu, mu) transforms to (x^m - x^-m)/(2w)), so with y = x^2 and S = sum m_i

    nu^(w) = C x^{-S} prod_i ((1 + v) y^{m_i} + (1 - v)) = C x^{-S} sum_j v^j P_j(y),

C = prod c_i, P_j integer polynomials. With E_k(y) = [rho^k] prod_i (1 + rho y^{m_i}) (the atoms
alone: k factors at +mu), P_j = sum_k K_j(k) E_k with the Krawtchouk numbers
K_j(k) = [v^j] (1 + v)^k (1 - v)^{r-k}; the E_k come from one ``fmpz_poly`` product by the
Kronecker substitution rho = Y^K, y^{m_i} = y^{m_0} y^{d_i} (K = sum d_i + 1), exact.

**The exact part** (j <= J). v^j y^n x^{-S} = e^{w a_n} / (2w)^j, a_n = (2n - S) h, is the
transform of the measure 2^-j (a_n - s)_+^{j-1} / (j-1)! ds (j >= 1; the atom at a_n for
j = 0), so the part is the measure nu_E = C sum_{j<=J} sum_n P_j[n] 2^-j (a_n - s)_+^{j-1}/(j-1)!
(the transforms agree for Re w > 0, so the measures do). Its share of the tails at eps
(A(L > eps) = int_{s>eps} e^{s/2} d nu, e^eps B(L > eps) = e^eps int_{s>eps} e^{-s/2} d nu) is,
for nu = +-1/2 (2 nu = +-1), with int_eps^a (a - s)^{j-1}/(j-1)! e^{nu s} ds =
e^{nu a} / nu^j - e^{nu eps} sum_{r<j} nu^{r-j} (a - eps)^r / r!,

    T_nu(eps) = sum_{a_n > eps} W[n] e^{nu a_n}
                - e^{nu eps} sum_{r<J} nu^r / r! sum_{a_n > eps} Q_r[n] (a_n - eps)^r,

W = sum_{j<=J} (2 nu)^-j P_j and Q_r = sum_{r<j<=J} (2 nu)^-j P_j, integers. The second sums
are exact rationals (:meth:`GridPart._moments`: falling-factorial moments
F_p(n0) = sum_{n>=n0} P_j[n] C(n - n0, p) kept at block starts, moved to n0 by Vandermonde's
C(n - n0, p) = sum_q C(b - n0, p - q) C(n - b, q) and the block's first terms; (a_n - eps)^r in
the basis C(n - n0, p) by forward differences), the first sums Arb balls (block sums kept).
Then the part's delta is C (T_{1/2} - e^eps T_{-1/2}), its tails C T_{1/2} and C e^eps T_{-1/2},
and d delta / d eps = -C e^eps T_{-1/2} (the integrand vanishes at s = eps).

**The remainder** (j > J): :class:`~.cf_mixed_grid_remainder.GridRemainder`.

**Off a usable grid** (S above :data:`MAX_SPAN`: a thousand factors on the grid 10^-5) the
terms with at most J density components are not summed but bounded by their mass
(:class:`~.cf_mixed_mass.MassPart`, :func:`~.cf_mixed_grid_plan.mass_split`): a positive
measure of A-mass m,
so each of delta, A(L > eps) and e^eps B(L > eps) of that part lies in [0, m]; where the
density components are many (mean 52 at a thousand factors) m is far below any width asked
(J = 0: m = prod_i (1 + e^{-mu_i})/2 = 6.3e-23). The remainder's decay bound then also takes the
factors' phases (:func:`~.cf_mixed_decay.sup_bound`: |R| <= |F| + |H|, the whole product's
transform bounded factor by factor and the head by its tilted mass), which falls like the
product's own transform. Which order J, and which of the two, is decided by
:mod:`.cf_mixed_grid_plan`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import reduce
from math import comb

import numpy as np
from flint import (
    arb,
    arb_mat,
    arb_poly,
    fmpq,
    fmpq_mat,
    fmpz,
    fmpz_mat,
    fmpz_poly,
)

from . import budget
from .cf_laws import working_precision

__all__ = ["grid_of", "scales_of", "lattice_laws", "MAX_LAWS", "GridPart", "MAX_SPAN",
           "BLOCK", "BALL_BITS", "MAX_STEPS"]

#: The largest S = sum m_i (the atoms' polynomial has S + 1 coefficients; its product about
#: r (sum d_i) coefficients): Laplace(1/10 + i/10^4), i < 100, has S = 104 950.
MAX_SPAN = 400_000
#: Bits of the remainder's kept balls of mu_i and c_i (its transform is evaluated at the
#: inverter's precision plus the guard bits of a cancelling difference: up to 77 + 256).
BALL_BITS = 512
#: Coefficients per block of the kept block sums (a query sums at most one block directly).
BLOCK = 64
#: The largest m_i (mu_i = m_i h on the scales' finest grid) whose e^{w mu_i} the remainder takes
#: as products of powers of e^{w h} (beyond, one exp per factor).
MAX_STEPS = 1 << 24
#: The most factors (counted with their powers) listed one law per factor.
MAX_LAWS = 100_000
#: The part's tails kept per eps (a curve of 101 levels asks ~400 float placements and then
#: its points at the same eps: a cache of 256 was cleared between them; an entry is three
#: balls of a few hundred bits).
CACHE = 4096


def lattice_laws(factors: list) -> list | None:
    """The factors' laws, one per factor (a power n repeated n times), where there are at least
    two (law, n) pairs, every law has ``lattice_parts`` with one lam, and there are at most
    :data:`MAX_LAWS` factors; else None."""
    if len(factors) < 2 or sum(int(n) for _, n in factors) > MAX_LAWS:
        return None  # (before a list of one law per factor is built)
    laws = []
    for law, n in factors:
        if not hasattr(law, "lattice_parts"):
            return None
        laws += [law] * int(n)
    with working_precision(64):
        lams = {float(law.lattice_parts()[4].mid()) for law in laws}
    return laws if len(lams) == 1 else None


def _exact_mu(law) -> Fraction | None:
    mu = getattr(law, "_mu", None)  # (the law's exact scale: LaplaceLaw keeps a Fraction)
    return mu if isinstance(mu, Fraction) and mu > 0 else None


def scales_of(laws: list) -> list[Fraction] | None:
    """The exact scales mu_i of laws with ``lattice_parts`` whose lam is exactly 1/2 (the
    Laplace mechanism's, the structure of the module docstring), else None."""
    mus = []
    for law in laws:
        if not hasattr(law, "lattice_parts"):
            return None
        mu = _exact_mu(law)
        if mu is None:
            return None
        with working_precision(64):
            lam = law.lattice_parts()[4]
        if not (lam.rad() == 0 and lam.mid() == arb(0.5)):
            return None
        mus.append(mu)
    return mus


def grid_of(laws: list) -> tuple[Fraction, list[int]] | None:
    """(h, [m_i]) with mu_i = m_i h, h the largest such grid step, for the laws of
    :func:`scales_of`, where S = sum m_i <= :data:`MAX_SPAN`; else None."""
    mus = scales_of(laws)
    if mus is None:
        return None
    den = reduce(lambda a, b: a * b // math.gcd(a, b), (m.denominator for m in mus), 1)
    nums = [m.numerator * (den // m.denominator) for m in mus]
    g = reduce(math.gcd, nums)
    h = Fraction(g, den)
    ms = [x // g for x in nums]
    if sum(ms) > MAX_SPAN:
        return None
    return h, ms


def _tree(polys: list):
    while len(polys) > 1:
        budget.check()
        nxt = [polys[i] * polys[i + 1] for i in range(0, len(polys) - 1, 2)]
        if len(polys) % 2:
            nxt.append(polys[-1])
        polys = nxt
    return polys[0]


def _krawtchouk(j: int, k: int, r: int) -> int:
    """[v^j] (1 + v)^k (1 - v)^{r-k}."""
    return sum(comb(k, i) * comb(r - k, j - i) * (-1) ** (j - i) for i in range(j + 1))


class _Support:
    """What :mod:`.cf` and :mod:`.cf_epsilon` read of an exact part's law (``extra.law``
    with ``extra.k = 1``): the largest loss sum mu_i."""

    def __init__(self, mus: list[Fraction]) -> None:
        self._sup = sum(mus, Fraction(0))
        self.mu = float(self._sup)

    def loss_sup(self) -> arb:
        return arb(fmpq(self._sup.numerator, self._sup.denominator))

    def __eq__(self, other) -> bool:
        return isinstance(other, _Support) and other._sup == self._sup

    def __hash__(self) -> int:
        return hash((_Support, self._sup))


def _factor_consts(laws: list) -> tuple[list, arb]:
    """The c_i = p+ e^{-mu_i/2} (balls at the working precision) and the total-variation
    bound between the laws and their structured form (module docstring)."""
    cs, tvs, norms = [], [], []
    for law in laws:
        mu, pp, pm_, kappa, _ = law.lattice_parts()
        c = pp * (-mu / 2).exp()
        cs.append(c)
        tv = (pm_ * (mu / 2).exp() - c).abs_upper() * (-mu / 2).exp() \
            + (kappa - c / 2).abs_upper() * 4 * (mu / 2).sinh()
        tvs.append(arb(tv.upper()))
        total = pp + pm_ + kappa * 4 * (mu / 2).sinh()  # ||A_i|| (a probability: 1)
        mine = c * (2 * (mu / 2).cosh() + 2 * (mu / 2).sinh())  # ||A'_i||
        norms.append(arb(total.upper()).max(arb(mine.upper())))
    # sum_i TV_i prod_{k != i} N_k <= (sum_i TV_i) prod_k N_k (every N_k >= ||A_k|| = 1)
    tv = sum(tvs, arb(0))
    if not tv.is_zero():
        tv *= reduce(lambda x, y: x * y, norms, arb(1))
    return cs, arb(tv.upper())


def _truncated_tree(polys: list, n: int):
    """The product of ``polys`` truncated to its first ``n`` coefficients (a product tree)."""
    while len(polys) > 1:
        budget.check()
        nxt = [(polys[i] * polys[i + 1]).truncate(n) for i in range(0, len(polys) - 1, 2)]
        if len(polys) % 2:
            nxt.append(polys[-1])
        polys = nxt
    return polys[0]


class GridPart:
    """The terms with at most ``J`` density components of a product of Laplace factors on one
    grid, summed exactly (module docstring): ``terms(eps)`` (delta and its derivative) and
    ``tails(eps)`` (the part's A(L > eps) and e^eps B(L > eps)), Arb balls at ``prec`` bits
    whatever the caller's precision. ``law``, ``k`` and ``J``: what :mod:`.cf` reads of an
    exact part."""

    def __init__(self, laws: list, J: int, prec: int | None = None) -> None:
        got = grid_of(laws)
        if got is None:
            raise ValueError("the Laplace factors' scales lie on no usable common grid")
        self.h, self.ms = got
        self.laws = list(laws)
        r = len(self.ms)
        self.J, self.k = int(J), 1
        self.mus = [m * self.h for m in self.ms]
        self.law = _Support(self.mus)
        self.S = sum(self.ms)
        self.prec = prec if prec is not None else 128 + 3 * r + 24 * self.J
        self._build_polys()
        with working_precision(self.prec):
            self._cs, self._tv = _factor_consts(laws)
            self._C = reduce(lambda a, b: a * b, self._cs, arb(1))
            self._build_sums()
        self._cache: dict = {}

    # -- the integer polynomials -----------------------------------------------------------
    def _build_polys(self) -> None:
        """P_j (j <= J) and W_{+-1/2} on a_n > 0 (n > S/2), in blocks of :data:`BLOCK`
        coefficients: block q is one ``fmpz_mat`` product, the Krawtchouk numbers of the k
        whose E_k meet it times their stretches of the atoms' product (each E_k is the k-th
        Kronecker block shifted to y^{k m_0}), rows P_0 .. P_J, W_+, W_- (exact integers);
        then the falling-factorial moments at block starts."""
        ms, J, S = self.ms, self.J, self.S
        r = len(ms)
        m0 = min(ms)
        d = [m - m0 for m in ms]
        K = sum(d) + 1
        polys = []
        for di in d:
            c = [0] * (K + di + 1)
            c[0] = c[K + di] = 1
            polys.append(fmpz_poly(c))
        self.n_lo = n_lo = S // 2  # (a_n > eps >= 0 needs 2n > S)
        # (only the Kronecker blocks k whose E_k reach n_lo: the rest is dropped before its
        # coefficients become Python objects)
        k_first = max(0, (n_lo - K) // m0)
        coeffs = _tree(polys).right_shift(k_first * K).coeffs()
        N = S - n_lo + 1
        B = BLOCK
        nb = (N + B - 1) // B
        rows = J + 3
        zero = fmpz(0)
        parts: list = [[] for _ in range(nb)]
        for k in range(k_first, r + 1):
            budget.check()
            lo = m0 * k
            e0 = max(0, n_lo - lo)
            start, stop = (k - k_first) * K + e0, min((k + 1 - k_first) * K, len(coeffs))
            if start >= stop:
                continue
            q0, o = divmod(lo + e0 - n_lo, B)
            seg = [zero] * o + coeffs[start:stop]
            seg += [zero] * (-len(seg) % B)
            kr = [_krawtchouk(j, k, r) for j in range(J + 1)]
            col = kr + [sum(kr), sum(x if j % 2 == 0 else -x for j, x in enumerate(kr))]
            for s_ in range(len(seg) // B):
                if q0 + s_ < nb:
                    parts[q0 + s_].append((col, seg[s_ * B:(s_ + 1) * B]))
        self.N, self.nb = N, nb
        self._blocks = []
        for got in parts:
            if not got:
                self._blocks.append(None)
                continue
            w = fmpz_mat(rows, len(got), [c[i] for i in range(rows) for c, _ in got])
            e = fmpz_mat(len(got), B, [x for _, seg in got for x in seg])
            self._blocks.append(w * e)
        # falling-factorial moments F_{j,p}(b) = sum_{i >= bB} P_j[i] C(i - bB, p), p < j, at
        # block starts, from the block's own sums and the next block's moments (Vandermonde)
        jc = max(J, 1)
        cflat = [comb(t, p) for t in range(B) for p in range(jc)]
        self._mats: dict = {}  # (the constant matrices of the queries, made on first use)
        cmat = fmpz_mat(B, jc, cflat)
        shift = [[comb(B, p - q) if q <= p else 0 for q in range(J)] for p in range(J)]
        self.F = [None] + [[None] * nb + [[0] * j] for j in range(1, J + 1)]
        for b in range(nb - 1, -1, -1):
            if b % 64 == 0:
                budget.check()
            blk = self._blocks[b]
            g = None if blk is None else (blk * cmat).entries()
            for j in range(1, J + 1):
                nxt = self.F[j][b + 1]
                self.F[j][b] = [(0 if g is None else int(g[j * jc + p]))
                                + sum(shift[p][qq] * nxt[qq] for qq in range(p + 1))
                                for p in range(j)]

    def _build_sums(self) -> None:
        """Arb block sums A_nu(b) = sum_{i >= bB} W_nu[i] e^{nu a_i}, nu = +-1/2: each block's
        two rows against the powers X_nu^t = e^{2 nu h t} (one ``arb_mat`` product)."""
        B, h, S, J = BLOCK, self.h, self.S, self.J
        xs = []
        for sgn in (+1, -1):
            X = arb(fmpq(sgn * h.numerator, h.denominator)).exp()
            xs.append([X**t for t in range(B)])
        powers = arb_mat(B, 2, [v for t in range(B) for v in (xs[0][t], xs[1][t])])
        self._x = {+1: xs[0][1], -1: xs[1][1]}
        self.A = {+1: [arb(0)] * (self.nb + 1), -1: [arb(0)] * (self.nb + 1)}
        for b in range(self.nb - 1, -1, -1):
            if b % 64 == 0:
                budget.check()
            blk = self._blocks[b]
            prod = None if blk is None else arb_mat(blk) * powers
            for col, sgn in enumerate((+1, -1)):
                val = arb(0)
                if prod is not None:
                    a0 = Fraction(sgn, 2) * (2 * (self.n_lo + b * B) - S) * h
                    val = prod[J + 1 + col, col] * arb(fmpq(a0.numerator, a0.denominator)).exp()
                self.A[sgn][b] = self.A[sgn][b + 1] + val

    # -- queries (a few small exact matrix products each: a curve's placement asks ~400) -----
    def _shift_cols(self, t0: int) -> fmpz_mat:
        """The B x J integer matrix C(t - t0, p) (0 for t < t0), kept per t0."""
        got = self._mats.get(("C", t0))
        if got is None:
            J = self.J
            got = self._mats["C", t0] = fmpz_mat(BLOCK, J, [comb(t - t0, p) if t >= t0 else 0
                                                       for t in range(BLOCK) for p in range(J)])
        return got

    def _partial(self, i0: int):
        """The first terms of a query's block (i0 up to the next block start), or None where
        i0 starts a block: the falling-factorial moments sum_{t >= t0} P_j[bB + t] C(t - t0, p)
        (one integer matrix product; row j - 1 for P_j, its columns p >= j unused: they meet
        exact zeros in :meth:`_t`) and the balls sum_{t >= t0} W_nu[bB + t] e^{nu a_{n_lo +
        bB + t}}."""
        b, t0 = divmod(i0, BLOCK)
        if t0 == 0 or b >= self.nb or self._blocks[b] is None:
            return None
        J = self.J
        blk = self._blocks[b]
        heads = None
        if J:
            got = blk * self._shift_cols(t0)  # (rows P_0 .. P_J, W_+, W_-)
            heads = fmpz_mat(J, J, [got[j, p] for j in range(1, J + 1) for p in range(J)])
        vals = {}
        for sgn in (+1, -1):
            a0 = Fraction(sgn, 2) * (2 * (self.n_lo + i0) - self.S) * self.h
            row = J + 1 if sgn > 0 else J + 2
            vals[sgn] = arb_poly([blk[row, t] for t in range(t0, BLOCK)])(self._x[sgn]) \
                * arb(fmpq(a0.numerator, a0.denominator)).exp()
        return heads, vals

    def atom_offsets(self) -> np.ndarray:
        """The n >= n_lo with P_0[n] != 0 (the atoms' positions a_n = (2n - S) h above 0)."""
        out = []
        for b, blk in enumerate(self._blocks):
            if blk is not None:
                out += [b * BLOCK + t for t in range(min(BLOCK, self.N - b * BLOCK))
                        if blk[0, t] != 0]
        return np.array(out, dtype=np.int64) + self.n_lo

    def _moments(self, i0: int, heads: fmpz_mat | None) -> fmpz_mat:
        """F_{j,p}(i0) = sum_{i >= i0} P_j[i] C(i - i0, p) at row j - 1, column p, exact
        integers (``heads``: the block's first terms' moments, :meth:`_partial`; the columns
        p >= j are not these moments and meet exact zeros in :meth:`_t`): the next block
        start's moments moved to i0 by Vandermonde's identity, one integer matrix product."""
        B, J = BLOCK, self.J
        b1 = -(-i0 // B)
        if b1 < self.nb:
            vand = [comb(b1 * B - i0, d) for d in range(J)]
            Fb = fmpz_mat(J, J, [self.F[j][b1][q] if q < j else 0
                                 for j in range(1, J + 1) for q in range(J)])
            out = Fb * fmpz_mat(J, J, [vand[p - q] if q <= p else 0
                                       for q in range(J) for p in range(J)])
        else:
            out = fmpz_mat(J, J)
        return out if heads is None else out + heads

    def _t(self, eps: Fraction) -> tuple[arb, arb, arb]:
        """(T_{1/2}(eps), T_{-1/2}(eps)) of the module docstring and the density g(eps) of the
        measure nu_E (sum_{j>=1} 2^-j sum_n P_j[n] (a_n - eps)_+^{j-1} / (j-1)!, the same
        moments), balls at ``prec``: coef = V D (D the forward differences at 0 of the powers
        V[r, k] = (2hk + d0)^r: coef[r, p] = 0 for p > r), Q = U F (Q[r, p] = sum_{j > r}
        (2 nu)^-j F_{j,p}) and the sums sum_r nu^r / r! (coef Q^T)[r, r], exact."""
        h, S, J = self.h, self.S, self.J
        n0 = math.floor((S + eps / h) / 2) + 1
        i0 = n0 - self.n_lo
        if n0 > S:
            return arb(0), arb(0), arb(0)
        part = self._partial(i0)
        hq = fmpq(h.numerator, h.denominator)
        eq = fmpq(eps.numerator, eps.denominator)
        out = []
        if J:
            F = self._moments(i0, None if part is None else part[0])
            d0 = (2 * n0 - S) * hq - eq  # a_{n0} - eps, in (0, 2h]
            # (a_n - eps)^r = sum_p c_{r,p} C(n - n0, p): forward differences of (2hk + d0)^r
            base = [2 * hq * k + d0 for k in range(J)]
            vals = []
            for rr in range(J):
                vals += [b**rr for b in base]
            coef = fmpq_mat(J, J, vals) * self._diffs()
            diag = coef * F.transpose()
            dens = sum((self._dens_w[rr] * diag[rr, rr] for rr in range(J)), fmpq(0))
        else:
            dens = fmpq(0)
        for sgn in (+1, -1):
            nu = fmpq(sgn, 2)
            bsum = fmpq(0)
            if J:
                diag = coef * (self._suffix(sgn) * F).transpose()
                bsum = sum((nu**rr / math.factorial(rr) * diag[rr, rr] for rr in range(J)),
                           fmpq(0))
            A = self.A[sgn][min(-(-i0 // BLOCK), self.nb)]
            if part is not None:
                A = A + part[1][sgn]
            out.append(A - arb(eq * nu).exp() * arb(bsum))
        return out[0], out[1], arb(dens)

    def _diffs(self) -> fmpz_mat:
        """D[k, p] = (-1)^(p - k) C(p, k) (k <= p): the forward differences at 0."""
        got = self._mats.get("D")
        if got is None:
            J = self.J
            got = self._mats["D"] = fmpz_mat(J, J, [(-1) ** (p - k) * comb(p, k) if k <= p
                                                    else 0 for k in range(J) for p in range(J)])
            self._dens_w = [fmpq(1, 2 ** (rr + 1) * math.factorial(rr)) for rr in range(J)]
        return got

    def _suffix(self, sgn: int) -> fmpz_mat:
        """U[r, j - 1] = sgn^j for j > r: Q = U F sums the moments of the orders above r."""
        got = self._mats.get(("U", sgn))
        if got is None:
            J = self.J
            got = self._mats["U", sgn] = fmpz_mat(J, J, [sgn**j if j > rr else 0
                                                    for rr in range(J) for j in range(1, J + 1)])
        return got

    def tails(self, eps: float) -> tuple[arb, arb]:
        """The part's (A(L > eps), e^eps B(L > eps)), balls (the total-variation bound added)."""
        key = float(eps)
        got = self._cache.get(key)
        if got is None:
            budget.check()
            e = Fraction(key)
            if e < 0:
                raise ValueError(f"GridPart needs eps >= 0, not {eps}")
            with working_precision(self.prec):
                tp, tm, g = self._t(e)
                ee = arb(key).exp()
                power = self._C * tp + arb(0, self._tv.upper())
                ealpha = self._C * ee * tm + arb(0, self._tv.upper())
                dens = self._C * g
            if len(self._cache) > CACHE:
                self._cache.clear()
            got = self._cache[key] = (power, ealpha, dens)
        return got[:2]

    def slopes(self, eps: float) -> tuple[float, float, float, float]:
        """Floats (A(L > eps), B(L > eps) and their derivatives in eps) of the part, for
        placement: d A(L > eps) / d eps = -e^{eps/2} C g(eps) and d B(L > eps) / d eps =
        -e^{-eps/2} C g(eps) between atoms (g of :meth:`_t`; the atoms' jumps left out)."""
        self.tails(eps)
        power, ealpha, dens = self._cache[float(eps)]
        with working_precision(64):
            d = float(dens.mid())
            return (float(power.mid()), float((ealpha * arb(-eps).exp()).mid()),
                    -math.exp(eps / 2) * d, -math.exp(-eps / 2) * d)

    def terms(self, eps: float, derivative: bool = True) -> tuple[arb, arb]:
        """(delta-part(eps), its derivative in eps) (the interface of
        :class:`~.cf_lattice.ExactPart`)."""
        power, ealpha = self.tails(eps)
        with working_precision(self.prec):
            return power - ealpha, -ealpha
