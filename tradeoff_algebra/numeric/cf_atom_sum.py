"""Atoms against one factor with a closed-form profile on the whole line: the product of atom
laws (:mod:`.cf_atoms`) with one L_mu, whose privacy loss has atoms itself, so that no factor's
moment generating function decays and the Laplace inversion (:mod:`.cf`) cannot truncate its
t-range.

Conditioning on the atoms (independent factors; Dong, Roth & Su, Prop. 6),

    delta(eps) = E_Q[(1 - e^{eps - L_A - L_B})_+] = sum_i q_i delta_B(eps - l_i),

where (l_i, q_i) are the atoms of the finite part of the atom laws under Q (a sub-probability
measure: the mass at +oo is added by Eq. (12), :func:`.cf_atoms.with_infinity`) and delta_B(x)
= E_Q[(1 - e^{x - L_B})_+] is the other factor's hockey-stick divergence at every real x,
negative arguments included. For a law given by ``lattice_parts()`` (atoms p+- at +-mu and the
density kappa e^{lam t} on (-mu, mu): L_mu's, Dong, Roth & Su, Prop. 7)

    delta_B(x) = sum_{a = +-mu, a > x} p_a (1 - e^{x - a})
                 + kappa int_{max(x, -mu)}^{mu} e^{lam t} (1 - e^{x - t}) dt    (0 for x >= mu),

the integral in closed form. delta_B is non-increasing in x, so at a ball x it lies between its
values at the ball's exact ends: every term is an Arb ball, every branch decided exactly. The
sum skips the atoms with l_i <= eps - mu (their term is 0). eps(d) is a bisection on eps whose
every comparison of the ball delta(eps) with d is decided (delta is non-increasing).

:func:`atoms_of` enumerates the atoms of a law of :mod:`.cf_atoms` (randomized response
composed k times by the binomial recurrence, products by convolution) up to :data:`MAX_ATOMS`.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence

import numpy as np
from flint import arb, ctx

from ..core import trace
from . import budget
from .arb_expr import arb_ball
from .cf_atoms import AtomLaw, BinomialLaw, DeltaLaw, ProductLaw
from .cf_laws import Factor, lower, upper, working_precision
from .roots import Probe, findroot

__all__ = ["atoms_of", "lattice_delta", "AtomSum", "BinomialSum", "MAX_ATOMS", "split_factors",
           "sum_enclosure", "SUM"]

#: The largest number of atoms enumerated (each delta costs one Arb term per atom above
#: eps - mu, about 50 microseconds: 2 * 10^4 atoms answer eps(d) in about 2 s); beyond, the
#: PLD engine answers.
MAX_ATOMS = 20_000

#: The name this route's answers carry (``Value.route``, after the engine's).
SUM = "atoms summed against L_mu's closed-form profile"


def atoms_of(law, limit: int | None = None) -> list[tuple[arb, arb]] | None:
    """The atoms (loss, Q-mass) of the finite part of an atom law as Arb balls at the current
    precision, or None beyond ``limit`` atoms (default :data:`MAX_ATOMS`) or for another kind
    of law."""
    limit = MAX_ATOMS if limit is None else limit
    if hasattr(law, "atom_list"):  # (countably many atoms: a window, its rest in missing_of)
        atoms, _ = law.atom_list()
        return atoms if len(atoms) <= limit else None
    if isinstance(law, BinomialLaw):
        return _binomial_atoms(law) if law.k + 1 <= limit else None
    if isinstance(law, AtomLaw):
        return list(law._ball_list())
    if isinstance(law, DeltaLaw):
        return [(arb(0), 1 - arb_ball(law.d))]
    if isinstance(law, ProductLaw):
        out: list[tuple[arb, arb]] = [(arb(0), arb(1))]
        for part, n in _merged(law.parts):
            one = atoms_of(part, limit)
            if one is None:
                return None
            for _ in range(n):
                if len(out) * len(one) > limit:
                    return None
                out = [(la + lb, qa * qb) for la, qa in out for lb, qb in one]
        return out
    return None


def missing_of(law) -> arb:
    """An Arb upper bound of the Q-mass of the atoms :func:`atoms_of` leaves out: a law with
    countably many atoms (``atom_list``) bounds its rest; in a product, the products that involve
    a left-out atom have at most the sum of the parts' left-out masses (each part's other masses
    add to at most 1)."""
    if hasattr(law, "atom_list"):
        return law.atom_list()[1]
    if isinstance(law, ProductLaw):
        return sum((n * missing_of(part) for part, n in law.parts), arb(0))
    return arb(0)


def _is_atom_law(law) -> bool:
    return (isinstance(law, (AtomLaw, BinomialLaw, DeltaLaw, ProductLaw))
            or hasattr(law, "atom_list"))


def _merged(parts: Sequence[Factor]) -> list[Factor]:
    """The parts with randomized response of one eps0 gathered into one binomial law
    (f_{eps0,0}^{(x) k} (x) f_{eps0,0}^{(x) m} = f_{eps0,0}^{(x) (k + m)}, k + m + 1 atoms) and
    the f_{0,d} parts into one atom each (its n-th power: the atom 0 of mass (1 - d)^n)."""
    ks: dict = {}
    out: list[Factor] = []
    for law, n in parts:
        if isinstance(law, BinomialLaw):
            ks[law.eps0] = ks.get(law.eps0, 0) + law.k * n
        else:
            out.append((law, n))
    return [(BinomialLaw(e, k), 1) for e, k in ks.items()] + out


def _binomial_atoms(law: BinomialLaw) -> list[tuple[arb, arb]]:
    """eps0 (2K - k) with C(k, K) w^K (1 - w)^{k - K}, w = e^{eps0}/(1 + e^{eps0}): from
    (1 - w)^k = e^{-k log(1 + e^{eps0})} by the ratio (k - K)/(K + 1) e^{eps0} (log2(k) guard
    bits for the k steps)."""
    k = law.k
    with working_precision(ctx.prec + 2 * k.bit_length() + 8):
        e, lse = law._eps_balls()
        r = e.exp()
        q = (-k * lse).exp()
        out = []
        for K in range(k + 1):
            out.append((e * (2 * K - k), q))
            q = q * (k - K) / (K + 1) * r
    return [(+lg, +m) for lg, m in out]


def _lattice_delta_exact(parts, x: arb) -> arb:
    """delta_B at an exact x (module docstring)."""
    mu, p_plus, p_minus, kappa, lam = parts
    if x >= mu:
        return arb(0)
    total = p_plus * (-(x - mu).expm1())
    lo = x
    if x <= -mu:
        total += p_minus * (-(x + mu).expm1())
        lo = -mu
    # kappa int_lo^mu e^{lam t} - e^x e^{(lam - 1) t} dt
    total += kappa * (_int_exp(lam, lo, mu) - x.exp() * _int_exp(lam - 1, lo, mu))
    return total


def _int_exp(a: arb, lo: arb, hi: arb) -> arb:
    """int_lo^hi e^{a t} dt = e^{a lo} expm1(a (hi - lo)) / a (hi - lo when a = 0)."""
    if a.is_zero():
        return hi - lo
    return (a * lo).exp() * (a * (hi - lo)).expm1() / a


def lattice_delta(parts, x: arb) -> arb:
    """delta_B(x) for the law of ``lattice_parts()`` at a ball x: the union of its values at
    the ball's exact ends (delta_B is non-increasing)."""
    if x.rad() == 0:
        return _lattice_delta_exact(parts, x)
    a = _lattice_delta_exact(parts, arb(x.upper()))
    b = _lattice_delta_exact(parts, arb(x.lower()))
    return a.union(b)


def _float_lattice_delta(parts: tuple[float, ...], x: np.ndarray) -> np.ndarray:
    """delta_B at the float array x (planning only; lam not 0 or 1)."""
    mu, p_plus, p_minus, kappa, lam = parts
    xc = np.clip(x, -mu, mu)
    with np.errstate(over="ignore", invalid="ignore"):
        v = p_plus * -np.expm1(np.minimum(x - mu, 0.0))
        v += np.where(x < -mu, p_minus * -np.expm1(np.minimum(x + mu, 0.0)), 0.0)
        integ = kappa * ((np.exp(lam * mu) - np.exp(lam * xc)) / lam
                         - np.exp(x) * (np.exp((lam - 1) * mu) - np.exp((lam - 1) * xc))
                         / (lam - 1))
    return np.where(x >= mu, 0.0, v + np.nan_to_num(integ))


def split_factors(factors: Sequence[Factor]):
    """``(atom laws, the law with lattice_parts)`` when the product is atom laws of
    :mod:`.cf_atoms` and exactly one factor n = 1 of a law with ``lattice_parts`` (L_mu), else
    None."""
    atoms = [(law, n) for law, n in factors if _is_atom_law(law)]
    rest = [(law, n) for law, n in factors if (law, n) not in atoms]
    if not atoms or len(rest) != 1 or rest[0][1] != 1 or not hasattr(rest[0][0], "lattice_parts"):
        return None
    return atoms, rest[0][0]


class _Sum:
    """What the two sums share: eps(d) from :meth:`delta` (a ball), :meth:`_float_delta` (a
    float, for planning) and ``top`` (a float above every loss of the product)."""

    top: float

    def delta(self, eps: float) -> arb:  # pragma: no cover - abstract
        raise NotImplementedError

    def _float_delta(self, eps: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def epsilon(self, d_dn: float, d_up: float, rel: float) -> tuple[float, float] | None:
        """(lo, hi) with eps(d) in [lo, hi] for every d in [d_dn, d_up]: delta(lo) > d_up and
        delta(hi) < d_dn certified (delta is non-increasing); None if delta(0) <= d_up is not
        excluded. A float bisection locates eps, a bracket of relative width rel around it is
        proved (widened up to four times), else a bisection with proved comparisons."""
        if not self.delta(0.0) > d_up:
            return None
        top = max(self.top, 1.0)
        d_mid = 0.5 * (d_dn + d_up)
        r = findroot(lambda e: Probe(1 if self._float_delta(e) > d_mid else -1), (0.0, top),
                     method="bisect", ends=(1, -1), rtol=1e-15)
        guess = 0.5 * (r.lo + r.hi)

        def sign(eps: float) -> Probe:
            d = self.delta(eps)
            return Probe(1 if d > d_up else -1 if d < d_dn else None)

        w = 0.25 * rel * max(guess, 1e-300)
        lo, hi = 0.0, top
        for _ in range(4):
            a, b = max(guess - w, 0.0), min(guess + w, top)
            sa = 1 if a == 0.0 else sign(a).k
            sb = -1 if b == top else sign(b).k
            if sa == 1:
                lo = max(lo, a)
            if sb == -1:
                hi = min(hi, b)
            if sa == 1 and sb == -1:
                return lo, hi
            w *= 8
        if hi == top and not self.delta(top) < d_dn:
            return None
        r = findroot(sign, (lo, hi), method="bisect", ends=(1, -1), rtol=rel,
                     best=lambda a, b: (a, b))
        return r.lo, r.hi


class AtomSum(_Sum):
    """delta(eps) = sum_i q_i delta_B(eps - l_i) over the enumerated atoms (module docstring),
    sorted by loss, at one Arb precision; None from :meth:`build` beyond :data:`MAX_ATOMS`."""

    def __init__(self, atoms: list[tuple[arb, arb]], other, prec: int,
                 missing: arb | None = None) -> None:
        self.prec = prec
        self.missing = arb(0) if missing is None else missing  # (left-out atoms' Q-mass)
        self.atoms = sorted(atoms, key=lambda a: float(a[0].mid()))
        self._mid = [float(lg.mid()) for lg, _ in self.atoms]
        self._qf = np.asarray([float(q.mid()) for _, q in self.atoms])
        self.other = other
        self.parts = other.lattice_parts()
        self.mu = upper(self.parts[0])
        self.top = upper(self.atoms[-1][0] + self.parts[0]) if self.atoms else 0.0

    @classmethod
    def build(cls, factors: Sequence[Factor], prec: int):
        split = split_factors(factors)
        if split is None:
            return None
        atom_laws, other = split
        with working_precision(prec):
            law = ProductLaw(atom_laws)
            atoms = atoms_of(law)
            if atoms is not None:
                return cls(atoms, other, prec, missing_of(law))
            parts = _merged(law.parts)  # one binomial law and f_{0,d} parts: its window
            binom = [x for x, _ in parts if isinstance(x, BinomialLaw)]
            if len(binom) != 1 or any(not isinstance(x, (BinomialLaw, DeltaLaw))
                                      for x, _ in parts):
                return None
            keep = arb(1)
            for x, n in parts:
                if isinstance(x, DeltaLaw):
                    keep *= (1 - arb_ball(x.d)) ** n
            return BinomialSum(binom[0], keep, other, prec)

    def delta(self, eps: float) -> arb:
        """A ball of the finite part's delta(eps) (eps an exact float)."""
        with working_precision(self.prec):
            e = arb(eps)
            parts = self.other.lattice_parts()
            cut = eps - self.mu - 1.0  # atoms below contribute 0 (l <= eps - mu)
            start = bisect_left(self._mid, cut)
            s = arb(0)
            for i in range(start, len(self.atoms)):
                if i % 4096 == 0:
                    budget.check()
                lg, q = self.atoms[i]
                s += q * lattice_delta(parts, e - lg)
            if not self.missing.is_zero():  # the left-out atoms add between 0 and their mass
                s += arb(0).union(arb(upper(self.missing)))
            return s

    def _float_delta(self, eps: float) -> float:
        """delta(eps) in floats (planning only: where to look for eps(d))."""
        mu = float(self.parts[0].mid())
        i0 = bisect_left(self._mid, eps - mu - 1.0)
        x = eps - np.asarray(self._mid[i0:])
        return float(np.dot(self._qf[i0:], _float_lattice_delta(
            tuple(float(b.mid()) for b in self.parts), x)))

class BinomialSum(_Sum):
    """delta(eps) = keep sum_K q_K delta_B(eps - eps0 (2K - k)) for f_{eps0,0}^{(x) k} (with
    f_{0,d} parts: the factor keep = prod (1 - d)^n) beyond :data:`MAX_ATOMS` atoms, over a
    window of K: from the first atom above eps - mu (those below add 0), or from T standard
    deviations below the mode, T = sqrt(2 (prec log 2 + 20)), whose lower tail is bounded by
    q_{K_c} rho/(1 - rho) (rho = K_c (1 - w)/((k - K_c + 1) w), the largest ratio
    q_{K-1}/q_K below K_c), up to where the upper tail q_{K+1}/(1 - r_{K+1}) (the ratios
    r_K = (k - K) w/((K + 1)(1 - w)) decrease in K) falls below 2^-(prec - 8) of the sum; the
    tails enter as [0, bound] (delta_B <= 1). The first mass from log-gamma in Arb."""

    def __init__(self, law: BinomialLaw, keep: arb, other, prec: int) -> None:
        self.law, self.keep, self.other, self.prec = law, keep, other, prec
        self.k, self.e0 = law.k, law.e0
        self.w = 1 / (1 + math.exp(-self.e0))
        self.mode = int((self.k + 1) * self.w)
        self.sd = math.sqrt(self.k * self.w * (1 - self.w))
        self.parts = other.lattice_parts()
        self.mu = upper(self.parts[0])
        with working_precision(prec):
            self.top = upper(self.k * arb_ball(law.eps0) + self.parts[0])
        self._keep_f = float(keep.mid())

    def _mass(self, K: int) -> arb:
        """q_K = C(k, K) e^{K eps0} / (1 + e^{eps0})^k, from log-gamma."""
        k = self.k
        with working_precision(ctx.prec + 2 * k.bit_length() + 30):
            e, lse = self.law._eps_balls()
            lq = (arb(k + 1).lgamma() - arb(K + 1).lgamma() - arb(k - K + 1).lgamma()
                  + K * e - k * lse)
            return lq.exp()

    def _window_start(self, eps: float) -> tuple[int, int]:
        """(K_a, K_c): the first atom that may add (l_K > eps - mu, one spare below) and the
        lower end of the bulk."""
        k = self.k
        K_a = max(0, math.floor(((eps - self.mu) / self.e0 + k) / 2) - 1)
        T = math.sqrt(2 * (self.prec * math.log(2) + 20))
        K_c = max(0, math.floor(self.mode - T * self.sd) - 1)
        return K_a, K_c

    def delta(self, eps: float) -> arb:
        k = self.k
        K_a, K_c = self._window_start(eps)
        with working_precision(self.prec + 2 * k.bit_length() + 8):
            e_ball, _ = self.law._eps_balls()
            r0 = e_ball.exp()  # w/(1 - w)
            x0 = arb(eps)
            parts = self.other.lattice_parts()
            start = max(K_a, K_c)
            q = self._mass(start)
            low = arb(0)
            if K_a < K_c:  # the atoms in [K_a, K_c) add at most their mass
                rho = arb(K_c) / (k - K_c + 1) / r0
                if not rho < 1:
                    raise ValueError("the lower window end is not below the mode")
                low = q * rho / (1 - rho)
            s = arb(0)
            tail = arb(0)
            eps_tol = 2.0 ** -(self.prec - 8)
            for K in range(start, k + 1):
                if (K - start) % 4096 == 0:
                    budget.check()
                s += q * lattice_delta(parts, x0 - e_ball * (2 * K - k))
                if K == k:
                    break
                q = q * (k - K) / (K + 1) * r0  # q_{K+1}
                r_next = arb(k - K - 1) / (K + 2) * r0
                if K + 1 > self.mode and r_next < 1:
                    bound = q / (1 - r_next)
                    if upper(bound) <= eps_tol * lower(s):
                        tail = bound
                        break
            # the tails add between 0 and their masses (0 <= delta_B <= 1)
            return self.keep * (s + arb(0).union(arb(upper(low + tail))))

    def _float_delta(self, eps: float) -> float:
        from scipy.special import gammaln  # (at first use: scipy slows the package import)

        mu, p_plus, p_minus, kappa, lam = (float(b.mid()) for b in self.parts)
        k = self.k
        K_a, _ = self._window_start(eps)
        lo = max(K_a, self.mode - int(40 * self.sd) - 1, 0)
        hi = min(k, max(lo, self.mode) + int(40 * self.sd) + 1)
        K = np.arange(lo, hi + 1, dtype=float)
        lq = (gammaln(k + 1) - gammaln(K + 1) - gammaln(k - K + 1) + K * math.log(self.w)
              + (k - K) * math.log1p(-self.w))
        q = np.exp(lq) * self._keep_f
        x = eps - self.e0 * (2 * K - k)
        return float(np.dot(q, _float_lattice_delta((mu, p_plus, p_minus, kappa, lam), x)))


def sum_enclosure(factors: Sequence[Factor], kind: str, dn: float, up: float,
                  rel: float) -> tuple[float, float] | None:
    """delta(eps) for eps in [dn, up] or eps(d) for d in [dn, up] of the finite part of a
    product of atom laws with one L_mu (:func:`split_factors`), or None."""
    prec = 64 + max(0, int(-math.log2(max(rel, 1e-30)))) + 20
    s = AtomSum.build(factors, prec)
    if s is None:
        return None
    if kind == "delta":
        out = max(0.0, lower(s.delta(up))), min(1.0, upper(s.delta(dn)))
    else:
        out = s.epsilon(dn, up, rel)
    if out is not None:
        trace.note(SUM)
    return out
