"""Loss laws made of atoms, for the certified Laplace inversion (:mod:`.cf`): the Arb view of a
finite privacy loss (f_{eps,delta}, randomized response, BinomialDP = f_{eps,0}^{(x) k}, finite
pairs), to be composed with factors whose loss has a density (G_mu, the Poisson-subsampled
Gaussian, large powers of L_mu).

Under Q the loss L = log(dQ/dP) of a finite pair takes finitely many values l_i with Q-masses
q_i, and the value +oo with the Q-mass q_oo = Q(P = 0) (the delta of f_{eps,delta}). The law
given to the inversion is the sub-probability measure of the finite values,

    M(z) = sum_i q_i e^{z l_i},           |M(c + it)| <= M(c)   (no decay in t),

and the atom at +oo is added outside the inversion, as the f_{0,delta} part of Dong, Roth &
Su, Eq. (12): for a product with 1 - D = prod_j (1 - q_oo,j)^{n_j} (Eq. (11)),

    delta(eps) = D + E_Q[(1 - e^{eps - L})_+ ; L finite],

the second term being the inversion of the product of the sub-probability mgfs (the product
measure of the finite parts). A product of such laws alone has an mgf that returns to M(c) at
every period in t: the inversion's truncated t-range never certifies it, and the routes refuse
it at once (``decays = False``); with a factor whose mgf decays (G_mu: e^{-mu^2 t^2/2}) the
trapezoidal rule and its truncation bound are those of :mod:`.cf` unchanged.

Randomized response composed k times (f_{eps0,0}^{(x) k}, Dong, Roth & Su, Sec. 3.3) has the
closed form (:class:`BinomialLaw`)

    M(z) = ((e^{-z eps0} + e^{(z + 1) eps0}) / (1 + e^{eps0}))^k,

one complex power at any k (k = 10^6 costs what k = 1 does), not a sum over k + 1 atoms.

:class:`AtomLaw` (explicit atoms: Discrete pairs), :class:`BinomialLaw`, :class:`DeltaLaw`
(f_{0,d}: the atom 0 of Q-mass 1 - d, the rest at +oo) and :class:`ProductLaw` (a product of
these: the view of a :class:`~.finite.FiniteLoss`) implement the
:class:`~.cf_laws.LossLaw` protocol, with ``mass_at_infinity()`` (an Arb ball of q_oo) and
``decays = False``. :func:`mass_at_infinity` and :func:`with_infinity` are the routes' side of
Eq. (12).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import sympy as sp
from flint import acb, arb, ctx

from .arb_expr import arb_ball
from .cf_laws import Factor, lower, upper, working_precision

__all__ = ["AtomLaw", "BinomialLaw", "DeltaLaw", "ProductLaw", "mass_at_infinity",
           "with_infinity", "has_decay"]


def _softplus(x: float) -> float:
    """log(1 + e^x) without overflow."""
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


class _AtomBase:
    """What every atom law shares: no decay in t, the trivial bound M(c), no tensor closed
    form, a flat cost per t (closed forms or short sums)."""

    closed_under_tensor = False
    mgf_cost_flat = True
    mgf_cost_per_t = 0.0
    #: |M(c + it)| comes back to M(c) (periodic atoms): a product needs a decaying factor.
    decays = False

    def mgf(self, z: acb) -> acb:  # pragma: no cover - abstract
        raise NotImplementedError

    def cumulants(self, c: float) -> tuple[float, float, float]:  # pragma: no cover
        raise NotImplementedError

    def log_decay_estimate(self, c: float, t: float) -> float:
        return self.cumulants(c)[0]

    def decay_bound(self, c: arb, t: arb) -> arb:
        """M(c): |M(c + it')| <= sum q_i |e^{(c + it') l_i}| = M(c) for every t' (a positive
        measure), attained again at every period of the atoms' lattice."""
        return arb(self.mgf(acb(c)).real.upper())

    def power_decay(self, c: arb) -> None:
        return None

    def mass_at_infinity(self) -> arb:
        """Q(L = +oo), an Arb ball (0 unless the pair has outcomes with P = 0 < Q)."""
        return arb(0)


class BinomialLaw(_AtomBase):
    """f_{eps0,0}^{(x) k} = T(B(k, p), B(k, 1 - p)), p = 1/(1 + e^{eps0}) (Dong, Roth & Su,
    Sec. 3.3): under Q the loss is eps0 (2K - k), K ~ B(k, w), w = e^{eps0}/(1 + e^{eps0}), so

        M(z) = ((1 - w) e^{-z eps0} + w e^{z eps0})^k
             = ((e^{-z eps0} + e^{(z + 1) eps0}) / (1 + e^{eps0}))^k     (M(0) = M(-1) = 1).

    The base is computed with log2(k) + |z| eps0-dependent guard bits, so the k-th power keeps
    the working precision's relative accuracy. Symmetric: its own inverse."""

    def __init__(self, eps0: Any, k: int) -> None:
        self.eps0 = sp.sympify(eps0)
        self.k = int(k)
        if self.k < 1 or not self.eps0.is_positive:
            raise ValueError(f"BinomialLaw needs eps0 > 0 and k >= 1, not eps0={eps0}, k={k}")
        with working_precision(64):
            self.e0 = float(arb_ball(self.eps0).mid())
        self._balls: dict[int, tuple[arb, arb]] = {}

    def __repr__(self) -> str:
        return f"BinomialLaw({self.eps0}, {self.k})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BinomialLaw) and (self.eps0, self.k) == (other.eps0, other.k)

    def __hash__(self) -> int:
        return hash((BinomialLaw, self.eps0, self.k))

    def _guard(self, z: acb) -> int:
        return 16 + self.k.bit_length() + max(0, math.ceil(math.log2(1 + abs(float(z.real.mid()))
                                                                      + abs(float(z.imag.mid())))))

    def _eps_balls(self) -> tuple[arb, arb]:
        """(eps0, log(1 + e^eps0)) at the current precision (kept per precision)."""
        prec = ctx.prec
        b = self._balls.get(prec)
        if b is None:
            e = arb_ball(self.eps0)
            b = self._balls[prec] = (e, (e.exp() + 1).log())
        return b

    def mgf(self, z: acb) -> acb:
        prec = ctx.prec
        with working_precision(prec + self._guard(z)):
            e, lse = self._eps_balls()
            base = ((-z * e).exp() + ((z + 1) * e).exp()) * (-lse).exp()
            return base ** self.k

    def cumulants(self, c: float) -> tuple[float, float, float]:
        e, k = self.e0, self.k
        x = e * (2 * c + 1)  # log of the tilted odds of +eps0 against -eps0
        g = -_softplus(e) - c * e + _softplus(x)
        pi = _sigmoid(x)
        return k * g, k * e * (2 * pi - 1), k * 4 * e * e * pi * (1 - pi)

    def loss_sup(self) -> arb:
        return self.k * arb_ball(self.eps0)

    def inverse(self) -> BinomialLaw:
        """f_{eps0,0} is symmetric (Dong, Roth & Su, Eq. (5)): so is its power."""
        return self


class AtomLaw(_AtomBase):
    """An explicit finite pair: atoms (ratio r = Q/P, P-mass, Q-mass) as exact SymPy numbers
    (``S.Infinity`` for P = 0 < Q, 0 for Q = 0 < P), the loss l = log r. M(z) = sum_{0 < r <
    oo} q e^{z log r} in Arb (a few atoms); Q(r = oo) is the mass at +oo."""

    def __init__(self, atoms: Sequence[tuple[Any, Any, Any]]) -> None:
        self.atoms = tuple((sp.S(r), sp.S(p), sp.S(q)) for r, p, q in atoms)
        fin = [(r, q) for r, _, q in self.atoms if r.is_finite and r.is_positive and not q.is_zero]
        self._fin = tuple(fin)
        self._inf = tuple(q for r, _, q in self.atoms if r is sp.S.Infinity)
        with working_precision(64):  # (floats for planning; ValueError if a ball fails)
            balls = [(arb_ball(r).log(), arb_ball(q).log()) for r, q in fin]
            self._lf = [float(lr.mid()) for lr, _ in balls]
            self._qf = [float(lq.mid()) for _, lq in balls]
        self._balls: dict[int, list[tuple[arb, arb]]] = {}

    def __repr__(self) -> str:
        return f"AtomLaw({len(self.atoms)} atoms)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AtomLaw) and self.atoms == other.atoms

    def __hash__(self) -> int:
        return hash((AtomLaw, self.atoms))

    def _ball_list(self) -> list[tuple[arb, arb]]:
        prec = ctx.prec
        b = self._balls.get(prec)
        if b is None:
            b = self._balls[prec] = [(arb_ball(r).log(), arb_ball(q)) for r, q in self._fin]
        return b

    def mgf(self, z: acb) -> acb:
        s = acb(0)
        for lg, q in self._ball_list():
            s += q * (z * lg).exp()
        return s

    def cumulants(self, c: float) -> tuple[float, float, float]:
        if not self._lf:
            return -math.inf, 0.0, 0.0
        a = [lq + c * lg for lg, lq in zip(self._lf, self._qf, strict=True)]
        m = max(a)
        w = [math.exp(x - m) for x in a]
        s = sum(w)
        mean = sum(wi * lg for wi, lg in zip(w, self._lf, strict=True)) / s
        var = sum(wi * (lg - mean) ** 2 for wi, lg in zip(w, self._lf, strict=True)) / s
        return m + math.log(s), mean, var

    def loss_sup(self) -> arb | None:
        bs = self._ball_list()
        if not bs:
            return arb(0)
        top = bs[0][0]
        for lg, _ in bs[1:]:
            top = top.max(lg)
        return top

    def mass_at_infinity(self) -> arb:
        return sum((arb_ball(q) for q in self._inf), arb(0))

    def inverse(self) -> AtomLaw:
        """The swapped pair (Q, P): ratio 1/r, the masses exchanged (oo and 0 trade places)."""
        return AtomLaw([(sp.S.Zero if r is sp.S.Infinity else
                         (sp.S.Infinity if r.is_zero else 1 / r), q, p) for r, p, q in self.atoms])


class DeltaLaw(_AtomBase):
    """f_{0,d} (Dong, Roth & Su, Eq. (10)): P = (d, 1 - d, 0), Q = (0, 1 - d, d); under Q the
    loss is 0 with mass 1 - d and +oo with mass d, so M(z) = 1 - d and Q(L = +oo) = d.
    Symmetric."""

    def __init__(self, d: Any) -> None:
        self.d = sp.sympify(d)
        if not (self.d.is_nonnegative and (self.d <= 1) is sp.true):
            raise ValueError(f"DeltaLaw needs 0 <= d <= 1, not {d}")

    def __repr__(self) -> str:
        return f"DeltaLaw({self.d})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeltaLaw) and self.d == other.d

    def __hash__(self) -> int:
        return hash((DeltaLaw, self.d))

    def mgf(self, z: acb) -> acb:
        return acb(1 - arb_ball(self.d))

    def cumulants(self, c: float) -> tuple[float, float, float]:
        return math.log1p(-float(self.d)) if float(self.d) < 1 else -math.inf, 0.0, 0.0

    def loss_sup(self) -> arb:
        return arb(0)

    def mass_at_infinity(self) -> arb:
        return arb_ball(self.d)

    def inverse(self) -> DeltaLaw:
        return self


class ProductLaw(_AtomBase):
    """The product of atom laws with multiplicities (the view of a
    :class:`~.finite.FiniteLoss`: randomized response powers, f_{0,d} parts, explicit pairs):
    M = prod M_j^{n_j}, Q(L = +oo) = 1 - prod (1 - q_oo,j)^{n_j} (Eq. (11))."""

    def __init__(self, parts: Sequence[Factor]) -> None:
        self.parts = tuple((law, int(n)) for law, n in parts)

    def __repr__(self) -> str:
        return f"ProductLaw({list(self.parts)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProductLaw) and self.parts == other.parts

    def __hash__(self) -> int:
        return hash((ProductLaw, self.parts))

    def mgf(self, z: acb) -> acb:
        m = acb(1)
        for law, n in self.parts:
            m *= law.mgf(z) ** n
        return m

    def cumulants(self, c: float) -> tuple[float, float, float]:
        k0 = k1 = k2 = 0.0
        for law, n in self.parts:
            a, b, d = law.cumulants(c)
            k0, k1, k2 = k0 + n * a, k1 + n * b, k2 + n * d
        return k0, k1, k2

    def loss_sup(self) -> arb | None:
        total = arb(0)
        for law, n in self.parts:
            s = law.loss_sup()
            if s is None:
                return None
            total += n * s
        return total

    def mass_at_infinity(self) -> arb:
        return mass_at_infinity(self.parts)

    def inverse(self) -> ProductLaw:
        return ProductLaw([(law.inverse(), n) for law, n in self.parts])


# ----------------------------------------------------------------------------------------------
# The routes' side: the atom at +oo by Eq. (12), the refusal of products without decay
# ----------------------------------------------------------------------------------------------
def has_decay(factors: Sequence[Factor]) -> bool:
    """Does some factor's |M(c + it)| decay in t (a law without ``decays = False``)? A product
    of atom laws alone has a periodic mgf: its inversion is refused."""
    return any(getattr(law, "decays", True) for law, _ in factors)


def mass_at_infinity(factors: Sequence[Factor]) -> arb:
    """D = 1 - prod (1 - Q_j(L = +oo))^{n_j} (Dong, Roth & Su, Eq. (11)), an Arb ball (0 when
    no law has the optional ``mass_at_infinity``), as -expm1(sum n_j log1p(-q_j)) at 64 bits
    more than the current precision: D keeps its relative accuracy, and so does a level
    d - D near 0 (eps(d) for d just above D)."""
    with working_precision(ctx.prec + 64):
        s, any_inf = arb(0), False
        for law, n in factors:
            get = getattr(law, "mass_at_infinity", None)
            if get is None:
                continue
            q = get()
            if q.is_zero():
                continue
            any_inf = True
            s += int(n) * (-q).log1p()
        return -s.expm1() if any_inf else arb(0)


def with_infinity(enclose: Callable[[str, float, float], tuple[float, float] | None],
                  D: arb, kind: str, dn: float, up: float) -> tuple[float, float] | None:
    """Eq. (12) of Dong, Roth & Su around the inversion of the finite part: ``enclose(kind, dn,
    up)`` gives the finite part's delta_fin(eps) for eps in [dn, up] (it is E_Q[(1 -
    e^{eps - L})_+ ; L finite]) or its eps_fin(d) for d in [dn, up]. Then delta = D + delta_fin
    (outward-rounded from the ball D) and eps(d) = eps_fin(d - D) for d > D, the level bracket
    [dn - D, up - D] rounded outward; None when d - D is not certainly positive (eps(d) is
    infinite for d < D: delta never falls below D, and so it is returned when up < D is
    proved)."""
    if D.is_zero():
        return enclose(kind, dn, up)
    if kind == "delta":
        r = enclose(kind, dn, up)
        if r is None:
            return None
        with working_precision(ctx.prec + 64):
            lo, hi = lower(D + arb(r[0])), upper(D + arb(r[1]))
        return max(lo, 0.0), min(hi, 1.0)
    with working_precision(ctx.prec + 64):
        a, b = arb(dn) - D, arb(up) - D
        lo, hi = lower(a), upper(b)
        if b < 0:  # every d in [dn, up] is below D <= delta(eps) for every eps: eps(d) = oo
            return math.inf, math.inf
    if not lo > 0:
        return None
    return enclose(kind, lo, hi)
