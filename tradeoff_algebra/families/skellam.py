"""The Skellam mechanism: T(Sk(mu), Sk(mu) + Delta) on the integers.

Agarwal, Kairouz & Liu, "The Skellam mechanism for differentially private federated learning"
(NeurIPS 2021, arXiv:2110.04995; AKL below): Sk(mu) is the law of the difference of two
independent Poisson(mu) variables,

    p(x) = P(X = x) = e^{-2 mu} I_{|x|}(2 mu),   x in Z

(I the modified Bessel function of the first kind), symmetric with variance 2 mu. Adding it to
an integer query of sensitivity Delta (a positive integer) gives P = Sk(mu), Q = Sk(mu) + Delta
and the privacy loss L(x) = log p(x - Delta)/p(x).

**Monotone loss.** Sk(mu) is the convolution of two log-concave laws (Poisson and its mirror),
hence log-concave on Z, strictly (Turan's inequality I_n^2 > I_{n-1} I_{n+1}, n >= 0, with
I_{-n} = I_n); so p(x - Delta)/p(x) is strictly increasing in x. L takes countably many values,
one per integer, accumulating at -oo and +oo (|L(x)| ~ Delta log(|x|/mu) grows without bound:
the mechanism is not eps-DP for any eps). The Neyman-Pearson tests reject ``x >= k``, so f is
piecewise linear with countably many knots

    (U(k), U(Delta + 1 - k)),  U(m) = P(X >= m),  k in Z,

(P(X <= k - Delta - 1) = U(Delta + 1 - k) by symmetry) and on the segment U(k+1) <= alpha <= U(k)

    f(alpha)     = U(Delta + 1 - k) + (U(k) - alpha) e^{L(k)},
    1 - f(alpha) = U(k - Delta + 1) + (alpha - U(k + 1)) e^{L(k)},

each a sum of non-negative terms. **Symmetry**: x -> Delta - x swaps P and Q, so f = f^{-1}.

**Privacy profile** (Dong, Roth & Su, Prop. 6): delta(eps) = sum_{x: L(x) > eps} Q(x) (1 -
e^{eps - L(x)}), a sum of non-negative terms, computed from the first x with L(x) > eps (found
by certified comparisons; L increasing) with a bounded tail.

**Renyi divergences.** AKL state an RDP *bound* for the Skellam mechanism (their Sec. 3, the
theorem number not checked here: the Gaussian term alpha Delta^2/(4 mu) plus a correction):
an upper bound, not the divergence. The true D_a(P || Q) = log(sum_x p(x)^a
p(x - Delta)^{1-a})/(a - 1) has no closed form; :func:`renyi_ball` encloses it certified (the
sum in Arb with a bounded tail) and ``tests/test_skellam.py`` compares it with direct sums
and with the Gaussian term.

**Numerics.** The masses p(x) are Arb balls of the scaled Bessel function (python-flint's
``arb.bessel_i(n, scaled=True)`` = e^{-z} I_n(z)) at the top of a block of BLOCK orders, the
rest of the block by the recurrence I_{n-1} = I_{n+1} + (2n/z) I_n downward (positive
terms); the tails U(m) = sum_{x >= m} p(x) (m >= 1; for m <= 0, 1 - U(1 - m), the law being
symmetric and of total mass 1) are summed until a term
falls below 2^-(prec + 8) of the sum, past x + 1 > mu, the rest bounded by the geometric series
p(x)/(1 - mu/(x + 1)): I_{n+1}(z)/I_n(z) <= z/(2(n + 1)) for n >= 0 (term by term in the power
series), decreasing in n. ``arb_value`` and ``arb_delta`` are therefore certified. The PLD grid
reads the atoms in float64 (scipy.special.ive) over a window holding all but 1e-40 of each law,
the rest parked at +-oo for the pessimistic side only.

**Products.** The loss lies on no lattice; its grid view (:class:`SkellamGrid` of
``families.skellam_grid``, registered as the lattice factor) puts the atoms in cells of a fine
grid with their exact P- and Q-masses, and its split view shares each atom between the two grid
points around its loss keeping both masses (a dominating lattice pair)
(``numeric.grid_product``): powers and products with discrete Gaussians and Laplaces of rational
parameters are certified between the best cell test and the split product, a width ~ k h^2,
powers composed in exact blocks of two factors (:meth:`SkellamGrid.block`: the grid's error paid
once a pair), and from 24 factors on in nested blocks on a grid r times finer
(``numeric.grid_nest``). Under ``pld_options(tol=1e-9)`` eps(1e-6) of Skellam(1, 5)^10 is
certified to 6.1e-10 relative (2.0 s of CPU), ^100 to 8.7e-10 (7.5 s), ^1000 to 9.6e-10 (16.9 s)
and to 9.8e-9 at tol 1e-8 (4.6 s), on a machine loaded about five times over
(``benchmarks/RESULTS_new_mechanisms_lattice.md``); from about a thousand factors on the PLD
engine answers.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
import sympy as sp

from ..core.citations import Paper
from ..core.errors import NumericalError
from ..core.node import TradeOff
from ..core.validate import param
from ..numeric import grid_product  # noqa: F401 - registers the grid products
from ..numeric.arb import arb_exact
from ..numeric.arb_expr import arb_ball, ball_interval
from ..numeric.capability import kinks, log_slope
from ..numeric.context import ThreadCache, arb_precision, mp
from ..numeric.lattice_pair import (
    LatticeTails,
    lattice_ball,
    lattice_pair,
    lattice_segment,
)
from ..numeric.lattice_product import lattice_factor
from ..numeric.privacy_loss import (
    RHO_LIB,
    AtomLoss,
    LazyLoss,
    PrivacyLoss,
    loss_views,
    privacy_loss,
)
from ..numeric.protocol import arb_delta, arb_value, mp_delta, mp_roc, mp_value, np_value, num
from .skellam_grid import SkellamGrid

__all__ = ["Skellam", "AKL", "renyi_ball", "SkellamGrid"]

AKL = Paper("AKL", "Agarwal, Kairouz & Liu",
            "N. Agarwal, P. Kairouz, Z. Liu. The Skellam mechanism for differentially private "
            "federated learning. NeurIPS 2021; arXiv:2110.04995.")

#: The most terms one tail sum may take: beyond, mu is refused with a NumericalError.
MAX_TERMS = 200_000
#: The largest atom searched for the first loss above eps (L(x) grows like log(x/mu)).
MAX_ORDER = 2**62
#: Masses computed per block by the downward Bessel recurrence (two Bessel balls a block).
BLOCK = 128
#: Mass of each law left out of the float64 atoms of the PLD grid (parked at +-oo).
FLOAT_TAU = 1e-40
#: Assumed relative accuracy of scipy.special.ive in float64 (Cephes/AMOS peak errors of a few
#: 1e-16 times the order; generous), and of the logarithms of the ratios.
RHO_IVE = 1e-13


class Skellam(TradeOff):
    """T(Sk(mu), Sk(mu) + Delta): the Skellam mechanism (AKL) on an integer query of sensitivity
    Delta (a positive integer), Sk(mu) the difference of two independent Poisson(mu), mu > 0."""

    def __new__(cls, sensitivity: Any, mu: Any):
        d = param("sensitivity", sensitivity, lower=1, integer=True, owner="Skellam")
        m = param("mu", mu, lower=0, lower_open=True, owner="Skellam")
        return TradeOff.__new__(cls, d, m)

    @property
    def sensitivity(self) -> sp.Expr:
        return self.args[0]

    @property
    def mu(self) -> sp.Expr:
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        """True: x -> Delta - x swaps Sk(mu) and Sk(mu) + Delta (module)."""
        return True

    def _sympystr(self, printer):
        return "Skellam(%s, %s)" % (printer._print(self.sensitivity), printer._print(self.mu))

    def _latex(self, printer):
        m = printer._print(self.mu)
        return (r"T\left(\mathrm{Sk}(%s), \mathrm{Sk}(%s) + %s\right)"
                % (m, m, printer._print(self.sensitivity)))


# -- the lattice sums in Arb ---------------------------------------------------------------------
class _Sums(LatticeTails):
    """p(x) and the tails U(m) = P(X >= m) as Arb balls at one precision (module docstring;
    ``numeric.lattice_pair.LatticeTails``)."""

    def __init__(self, mu, prec: int):
        from flint import arb

        super().__init__()
        self.mu = mu
        self.z = 2 * mu
        self.mu_f = float(mu.mid())
        self.eps = arb(2) ** -(prec + 8)
        self._p: dict[int, Any] = {}

    def p(self, x: int):
        """p(|x|): its aligned block of BLOCK masses (computed once: formerly every new |x| below
        the cached ones recomputed a block of its own, Skellam(2, 50)^10 at 1e-4 spending two
        thirds of its time there) from two Bessel balls at its top and the recurrence I_{n-1}(z)
        = I_{n+1}(z) + (2n/z) I_n(z) downward (a sum of positive terms: no cancellation, the
        balls widen only by their roundings)."""
        x = abs(x)
        v = self._p.get(x)
        if v is None:  # the aligned block [b BLOCK, (b + 1) BLOCK) holding x, computed once
            bottom = x - x % BLOCK
            top = bottom + BLOCK
            hi, mid = self.z.bessel_i(top + 1, scaled=True), self.z.bessel_i(top, scaled=True)
            self._p.setdefault(top, mid)
            n = top
            while n > bottom:
                lo = hi + (n / self.mu) * mid  # p(n - 1)
                self._p.setdefault(n - 1, lo)
                hi, mid = mid, lo
                n -= 1
            v = self._p[x]
        return v

    def direct(self, m: int):
        from flint import arb

        total = arb(0)
        x = m
        for _ in range(MAX_TERMS):
            w = self.p(x)
            rho = self.mu / (x + 1)
            if rho < 1 and w < total * self.eps:
                # sum_{y >= x} p(y) <= p(x)/(1 - mu/(x + 1)): the ratio bound decreases
                return total + (w / (1 - rho)) * (1 + arb(0, 1)) / 2
            total += w
            x += 1
        raise NumericalError(f"Skellam tail sum from {m}: more than {MAX_TERMS} terms (mu is too "
                             "large for the lattice sums)")

    def ratio(self, k: int, d: int):
        """e^{L(k)} = p(k - Delta)/p(k)."""
        return self.p(k - d) / self.p(k)

    def mass(self, x: int):
        return self.p(x)


_SUMS = ThreadCache()


def _sums(f: Skellam, prec: int) -> _Sums:
    key = (f.mu, prec)
    s = _SUMS.get(key)
    if s is None:
        if len(_SUMS) > 16:
            _SUMS.clear()
        num(f.mu, "mu")
        if float(f.mu) + 40 * math.sqrt(float(f.mu) + 1) + prec > MAX_TERMS:
            raise NumericalError(f"Skellam: mu={f.mu} is too large for the lattice sums (at "
                                 f"most {MAX_TERMS} terms)")
        s = _SUMS[key] = _Sums(arb_ball(f.mu), prec)
    return s


def _ball(f: Skellam, a, ac, power: bool, prec: int):
    """f(alpha) (``power``: 1 - f(alpha)) as an Arb ball from exact balls a = alpha and
    ac = 1 - alpha (``numeric.lattice_pair``; the normal start has variance 2 mu), or None
    where the segment is not decided at this precision."""
    S = _sums(f, prec)
    return lattice_ball(S, int(f.sensitivity), a, ac, power, math.sqrt(2 * S.mu_f), "Skellam")


@arb_value.register(Skellam)
def _(f, a, ac, power):
    """The certified ball of f(alpha) or 1 - f(alpha) (module docstring)."""
    from flint import ctx

    prec = ctx.prec
    with arb_precision(prec + 24):
        return _ball(f, a, ac, power, prec + 24)


def _level_value(f, a, ac, power):
    num(f.mu, "mu")
    return lattice_pair(lambda prec: _ball(f, arb_exact(a), arb_exact(ac), power, prec), str(f))


mp_value.register(Skellam)(lambda f, a, ac: _level_value(f, a, ac, False))
mp_roc.register(Skellam)(lambda f, a, ac: _level_value(f, a, ac, True))


# -- the privacy profile -------------------------------------------------------------------------
def delta_ball(f: Skellam, eps, prec: int):
    """delta(eps) as an Arb ball (``eps`` a ball): sum_{x >= m} Q(x) (1 - e^{eps - L(x)})_+ with
    every x < m certified to have L(x) < eps (L increasing), the rest bounded by the tail of
    Q = p(. - Delta) (module docstring)."""
    from flint import arb

    d = int(f.sensitivity)
    S = _sums(f, prec)
    e = eps.exp()
    # start: the Gaussian guess x = eps 2 mu/Delta + Delta/2, moved down until L(m-1) < eps
    with mp.workprec(64):
        m = int(mp.floor(mp.mpf(eps.mid().str(20, radius=False)) * 2 * S.mu_f / d + d / 2))
    for _ in range(MAX_TERMS):
        if S.ratio(m - 1, d) < e:
            break
        m -= 1
    else:
        raise NumericalError(f"{f}: delta({eps}): the first atom above eps was not found")
    # L grows like log(x/mu): the first atom above eps can lie far beyond the Gaussian guess
    # (eps = 20, mu = 5: x near 5e9). Move m up, by doubling and bisection, to the largest x
    # with L(x - 1) < eps certified (L increasing: every atom below it adds 0).
    step, top = 1, None
    while top is None:
        if m + step > MAX_ORDER:  # beyond it: delta <= Q(X >= m) = sum_{y >= m - Delta} p(y)
            y = m - d
            return (S.p(y) / (1 - S.mu / (y + 1))) * (1 + arb(0, 1)) / 2
        if S.ratio(m + step - 1, d) < e:
            m, step = m + step, 2 * step
        else:
            top = m + step
    while top - m > 1:
        mid = (m + top) // 2
        if S.ratio(mid - 1, d) < e:
            m = mid
        else:
            top = mid
    total = arb(0)
    x = m
    for _ in range(MAX_TERMS):
        q = S.p(x - d)
        y = x - d  # Q(x) = p(y)
        rho = S.mu / (y + 1) if y >= 0 else arb(2)
        if y >= 0 and rho < 1 and total > 0 and q < total * S.eps:
            return total + (q / (1 - rho)) * (1 + arb(0, 1)) / 2
        total += q * (1 - e / S.ratio(x, d)).max(arb(0))
        x += 1
    raise NumericalError(f"{f}: delta({eps}) needs more than {MAX_TERMS} terms")


@arb_delta.register(Skellam)
def _(f, eps):
    """delta(eps) as a certified ball (:func:`delta_ball`)."""
    from flint import ctx

    return delta_ball(f, eps, ctx.prec)


@mp_delta.register(Skellam)
def _(f, eps):
    """delta(eps) from :func:`delta_ball` at the working precision."""
    if eps == mp.inf:
        return mp.zero, mp.zero
    num(f.mu, "mu")
    return lattice_pair(lambda prec: delta_ball(f, arb_exact(eps), prec), str(f))


# -- Renyi divergences, certified ----------------------------------------------------------------
def renyi_ball(f: Skellam, a: Any, prec: int = 128):
    """D_a(P || Q) = log(sum_x p(x)^a p(x - Delta)^{1-a})/(a - 1) for a rational a > 1 as a
    certified Arb ball (not a closed form; AKL's RDP statement is an upper bound on it).

    Tails: for x >= Delta (y = x - Delta >= 0) the term is p(y) (p(x)/p(y))^a <= p(y) (p is
    non-increasing on n >= 0: symmetric and log-concave), so the terms past x sum to at most
    p(y)/(1 - mu/(y + 1)). For x = -n < 0 the term t(n) = p(n)^a p(n + Delta)^{1-a} has
    t(n+1)/t(n) <= rho_n = (mu/(n+1))^a R(n + Delta)^{a-1} with R(m) >= p(m)/p(m+1) from Amos's
    inequality I_{m+1}(z)/I_m(z) >= z/(m + 1 + sqrt((m + 1)^2 + z^2)); rho_n = (mu/(n+1))
    [(m + 1 + sqrt((m + 1)^2 + z^2))/(2(n + 1))]^{a-1}, m = n + Delta, decreases in n, so the
    terms past n sum to at most t(n) rho_n/(1 - rho_n) once rho_n < 1."""
    from flint import arb

    a = sp.Rational(a)
    if not a > 1:
        raise NotImplementedError("renyi_ball: orders a > 1 only")
    d = int(f.sensitivity)
    with arb_precision(prec + 20):
        S = _sums(f, prec + 20)
        A = arb(int(a.p)) / int(a.q)

        def term(x):
            return (A * S.p(x).log() + (1 - A) * S.p(x - d).log()).exp()

        total = arb(0)
        x = 0
        for _ in range(MAX_TERMS):
            total += term(x)
            y = x - d
            if y >= 0 and S.mu / (y + 1) < 1 and S.p(y) < total * S.eps:
                rho = S.mu / (y + 1)
                total += (S.p(y) / (1 - rho)) * (1 + arb(0, 1)) / 2
                break
            x += 1
        else:
            raise NumericalError(f"{f}: renyi_ball did not converge")
        for n in range(1, MAX_TERMS):
            t = term(-n)
            total += t
            rho = (S.mu / (n + 1)) ** A * _inverse_ratio_bound(S.mu, n + d) ** (A - 1)
            if rho < 1 and t < total * S.eps:
                total += (t * rho / (1 - rho)) * (1 + arb(0, 1)) / 2
                break
        else:
            raise NumericalError(f"{f}: renyi_ball did not converge")
        return total.log() / (A - 1)


def _inverse_ratio_bound(mu, n: int):
    """An upper bound on p(n)/p(n+1) = I_n(z)/I_{n+1}(z), z = 2 mu, n >= 0: from Amos's
    inequality I_{n+1}(z)/I_n(z) >= z/(n + 1 + sqrt((n + 1)^2 + z^2)), its reciprocal
    (n + 1 + sqrt((n + 1)^2 + z^2))/z."""
    z = 2 * mu
    return (n + 1 + ((n + 1) ** 2 + z * z).sqrt()) / z


# -- float64: the curve and the PLD grid ---------------------------------------------------------
@lru_cache(maxsize=8)
def _float_atoms(d: int, mu: float):
    """x, P(x), Q(x) on the window [-K, K + Delta] holding all but FLOAT_TAU of each law."""
    from scipy.special import ive

    K = int(mu + 10 * math.sqrt(2 * mu) + 10)
    while True:  # P(X > K) <= p(K+1)/(1 - mu/(K+2)) below FLOAT_TAU/8
        if mu / (K + 2) < 0.5 and ive(K + 1, 2 * mu) * 2 <= FLOAT_TAU / 8:
            break
        K += max(K // 8, 4)
    if 2 * K + d + 1 > MAX_TERMS:
        raise NumericalError(f"Skellam: mu={mu} needs {2 * K + d + 1} atoms in float64")
    x = np.arange(-K, K + d + 1)
    pm = ive(np.abs(x), 2 * mu)
    qm = ive(np.abs(x - d), 2 * mu)
    return x, pm, qm


class SkellamLoss(AtomLoss):
    """The lattice law of L in float64 for the PLD grid: atoms log(p(x - Delta)/p(x)) with P(x)
    and Q(x) from scipy.special.ive on a window holding all but FLOAT_TAU of each law (the rest
    to +-oo for the pessimistic side only); masses within RHO_IVE relative (an assumption about
    the library function), losses within 4 RHO_IVE."""

    def __init__(self, d: int, mu: float):
        x, pm, qm = _float_atoms(d, mu)
        keep = (pm > 0) & (qm > 0)
        loss = np.log(qm[keep]) - np.log(pm[keep])
        super().__init__(loss, pm[keep], qm[keep], q_inf=FLOAT_TAU, p_ninf=FLOAT_TAU,
                         rel_err=RHO_IVE + RHO_LIB, q_inf_sure=0.0, p_ninf_sure=0.0)
        self._edge = 4 * RHO_IVE * (1.0 + float(np.max(np.abs(loss))))

    def edge_err(self, t):
        return self._edge


@privacy_loss.register(Skellam)
@loss_views("grid")
def _(f) -> PrivacyLoss | None:
    """The lattice law in float64 (SkellamLoss), built when the PLD engine asks for it (the
    route planner asks every factor for its exact view, which this loss has not: building the
    float atoms imports scipy.special, half a second); None for symbolic parameters."""
    if f.free_symbols:
        return None
    d, mu = int(f.sensitivity), float(f.mu)
    return LazyLoss(grid=lambda: SkellamLoss(d, mu))


@np_value.register(Skellam)
def _(f, x):
    """Interpolation of the knots (U(k), U(Delta + 1 - k)) from the float atoms."""
    d = int(f.sensitivity)
    xs, pm, _ = _float_atoms(d, float(f.mu))
    n = len(xs) - d
    p = pm[:n]  # X on [-K, K]
    ge = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])  # U(k), k = -K .. K + 1
    le = np.concatenate([[0.0], np.cumsum(p)])  # P(X <= k - 1)
    fk = np.concatenate([np.zeros(d), le])[: n + 1]  # f at U(k) = P(X <= k - Delta - 1)
    a = np.concatenate([[0.0], ge[::-1], [1.0]])
    v = np.concatenate([[1.0], fk[::-1], [0.0]])
    order = np.argsort(a, kind="stable")
    return np.interp(np.asarray(x, dtype=np.float64), a[order], v[order])


# -- quadrature: the slope and the knots ---------------------------------------------------------
@log_slope.register(Skellam)
def _(f, a, ac):
    """log|f'| = L(k) on the segment k of alpha; +-oo at the ends."""
    if a == 0:
        return mp.inf
    if ac == 0:
        return mp.ninf
    prec = mp.prec + 40
    with arb_precision(prec):
        S = _sums(f, prec)
        k = lattice_segment(S, arb_exact(a), arb_exact(ac), math.sqrt(2 * S.mu_f), str(f))
        lo, hi = ball_interval(S.ratio(k, int(f.sensitivity)).log(), mp.prec)
    return (lo + hi) / 2


@kinks.register(Skellam)
def _(f):
    """The knots U(k) in [1/64, 63/64] (the ends are left to the quadrature of the end
    pieces, as for the discrete Gaussian)."""
    prec = mp.prec + 20
    out = []
    edge = mp.mpf(1) / 64
    with arb_precision(prec):
        S = _sums(f, prec)
        K = min(int(3 * math.sqrt(2 * float(f.mu))) + 3, 10_000)
        for k in range(-K, K + 2):
            lo, hi = ball_interval(S.upper(k)[0], mp.prec)
            m = (lo + hi) / 2
            if edge < m < 1 - edge:
                out.append(m)
    return sorted(set(out))


# -- the grid view: products certified by cells of a fine grid (numeric.grid_product) -----------
def _plan_atoms(f: Skellam):
    """x, P(x), Q(x) in floats on the window [-K, K + Delta] of the float atoms (all but
    FLOAT_TAU of each law; as ``_float_atoms``), by Miller's backward recurrence I_{n-1}(z) =
    I_{n+1}(z) + (2n/z) I_n(z) from far above K, normalised by sum_n e^{-z} I_n(z) = 1: floats
    for the grid view's planning and its choice of atoms only (its masses are Arb balls),
    without scipy (whose import was most of a 1e-4 answer)."""
    d, mu = int(f.sensitivity), float(f.mu)
    z = 2 * mu
    N = int(mu + 40 * math.sqrt(mu + 1) + 200)
    if N > MAX_TERMS:
        raise NumericalError(f"Skellam: mu={mu} is too large for the lattice sums")
    v = np.zeros(N + 2)
    v[N] = 1e-300
    for n in range(N, 0, -1):  # v[n - 1] = v[n + 1] + (2n/z) v[n], rescaled against overflow
        v[n - 1] = v[n + 1] + (2 * n / z) * v[n]
        if v[n - 1] > 1e250:
            v /= 1e250
    p = v / (v[0] + 2 * v[1:].sum())
    K = int(mu + 10 * math.sqrt(2 * mu) + 10)
    while not (mu / (K + 2) < 0.5 and 2 * p[K + 1] <= FLOAT_TAU / 8):
        K += max(K // 8, 4)
    if K + d + 1 > N:
        raise NumericalError(f"Skellam: mu={mu} needs more than {N} orders in float64")
    x = np.arange(-K, K + d + 1)
    return x, p[np.abs(x)], p[np.abs(x - d)]


@lattice_factor.register(Skellam)
def _(f) -> SkellamGrid | None:
    """The grid view of the loss (:class:`SkellamGrid`): powers of the Skellam mechanism, and
    products with lattice factors (discrete Gaussians and Laplaces of rational parameters), are
    certified by cells of a fine grid with exact P- and Q-masses (``numeric.grid_product``);
    None for symbolic parameters."""
    if f.free_symbols:
        return None
    return SkellamGrid(f, sums=_sums, renyi=renyi_ball, atoms=_plan_atoms)
