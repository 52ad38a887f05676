"""Certified loss tails of many-fold products of a lattice law (atoms at +-mu and a density on
(-mu, mu), the Laplace mechanism's privacy loss): the lattice part bounded by its mass, the rest
inverted with the tail kernels of :mod:`.cf_tails`.

The tails A(L > eps) and e^eps B(L > eps) of :mod:`.cf_tails` need |M(c + it)| to decay like a
power of t (the kernel 1/z is not summable otherwise), and the atoms of a lattice law keep it
from decaying. Split the k-fold product by its number j of density components
(:mod:`.cf_lattice`: M^k = sum_j C(k, j) A^{k-j} U^j, A the atoms' transform, U the density's):
the terms j >= J form the remainder R_J, a positive measure whose transform decays like t^{-J}
(:class:`~.cf_lattice.RemainderLaw`, ``power_decay`` of order J >= 1), so its tails are those of
:class:`~.cf_tails.TailInverter`; the terms j < J form a positive measure E_J of total A-mass

    m_A = sum_{j<J} C(k, j) A(0)^{k-j} U(0)^j      (A(0) = p+ + p-, U(0) the density's mass)

and B-mass m_B, the same sum at z = -1 (dB = e^{-L} dA). Each of the three quantities of a
Neyman-Pearson point (Dong, Roth & Su, Prop. 6) is a sum of the two measures' shares, and the
share of E_J lies in [0, m]:

    A(L > eps)   in  A_R(L > eps) + [0, m_A],
    B(L > eps)   in  B_R(L > eps) + [0, m_B],
    delta(eps)   in  delta_R(eps) + [0, m_A]       (E_J[(1 - e^{eps - L})_+] <= E_J(1)).

This is worth it where m is far below the tolerance: many factors whose atoms' share is
negligible (Laplace(1/10)^{(x) 1000}: with J = 1, m = ((1 + e^{-1/10})/2)^1000 ~ 6e-22), which
is exactly where the whole law inverts for delta (``cf_route._split``) and its tails did not
(no power decay). :func:`split_tails` picks the least J whose mass is below the share asked,
else None (the caller keeps its profile route: few factors, where E_J is not negligible).

The same split serves any law with two atoms and a density that gives its own pieces
(:func:`splits`: ``split_masses``, ``split_bound``, ``split_remainder``): the
Poisson-subsampled Laplace law (``numeric.cf_sampled``), whose atoms' share of 10^4 steps at
q = 1/100, b = 1 is 0.68^(10^4); its remainder's tails are read from the whole law's nodes
(``numeric.cf_split_whole``).
"""

from __future__ import annotations

from math import comb

import numpy as np
from flint import acb, arb

from . import cf
from .cf_lattice import RemainderLaw
from .cf_laws import Factor, upper, working_precision
from .cf_tails import TailInverter, TailPoint, _clip, _interval, _meet, tail_inverter

__all__ = ["SplitTails", "lattice_mass", "remainder_law", "split_order", "split_tails", "splits",
           "SPLIT_ORDERS"]

#: The numbers J of density components tried, in order (the least J whose lattice part is
#: negligible: a remainder of lower order costs fewer nodes per digit of its own A-mass).
SPLIT_ORDERS = (1, 2, 3, 4, 6, 8, 12)


def _au(law, z: acb) -> tuple[acb, acb]:
    """A(z), U(z) of a law with ``lattice_parts()`` (:mod:`.cf_lattice`)."""
    mu, pp, pm_, kappa, lam = law.lattice_parts()
    w = z + lam
    return pp * (z * mu).exp() + pm_ * (-z * mu).exp(), 2 * kappa * (w * mu).sinh() / w


def splits(law) -> bool:
    """Whether ``law`` splits by its number of density components: ``lattice_parts()`` (the
    Laplace law, :mod:`.cf_lattice`) or the optional methods ``split_masses(k, J)``,
    ``split_bound(k, J, c)`` and ``split_remainder(k, J)`` (a law with two atoms and a density
    of its own: the Poisson-subsampled Laplace law, ``numeric.cf_sampled``)."""
    return hasattr(law, "lattice_parts") or hasattr(law, "split_masses")


def remainder_law(law, k: int, J: int):
    """R_J of the k-fold product of ``law`` (the terms with at least J density components) as
    a law of one factor: the law's ``split_remainder`` or :class:`~.cf_lattice.RemainderLaw`."""
    method = getattr(law, "split_remainder", None)
    return RemainderLaw(law, k, J) if method is None else method(k, J)


def lattice_mass(law, k: int, J: int) -> tuple[arb, arb]:
    """(m_A, m_B): the A- and B-masses of the terms with fewer than J density components of
    the k-fold product of ``law`` (module docstring), upper bounds as balls (A(z), U(z) are
    positive at real z, so each term is); a law's own ``split_masses`` where it has one."""
    method = getattr(law, "split_masses", None)
    if method is not None:
        return method(k, J)
    out = []
    for z in (acb(0), acb(-1)):
        a, u = _au(law, z)
        a, u = a.real, u.real
        out.append(sum((comb(k, j) * a ** (k - j) * u**j for j in range(min(J, k + 1))), arb(0)))
    return out[0], out[1]


def split_order(factors: list[Factor], share: float) -> int | None:
    """The least J of :data:`SPLIT_ORDERS` below k whose lattice masses are at most ``share``
    (an absolute width), for the self-product of one law with ``lattice_parts``; else None."""
    if len(factors) != 1 or not splits(factors[0][0]):
        return None
    law, k = factors[0]
    with working_precision(64):
        for J in SPLIT_ORDERS:
            if J > k:
                return None
            m_a, m_b = lattice_mass(law, k, J)
            if upper(m_a) <= share and upper(m_b) <= share:
                return J
    return None


class SplitTails:
    """The tails of :class:`~.cf_tails.TailInverter` (its interface: ``point``,
    ``point_here``, ``delta``, ``delta_here``, ``estimate``, ``error``, ``eval_prec``) of a
    k-fold product from its remainder R_J's inverter, with the lattice part's share
    [0, m] added (module docstring)."""

    def __init__(self, rest: TailInverter, m_a: arb, m_b: arb) -> None:
        self.rest, self.plan, self.eval_prec = rest, rest.plan, rest.eval_prec
        self.ok = True
        self._m_a, self._m_b = arb(upper(m_a)), arb(upper(m_b))
        self._fm = max(upper(m_a), upper(m_b))

    def point(self, eps: float) -> TailPoint:
        with working_precision(self.eval_prec):
            return self.point_here(eps)

    def point_here(self, eps: float) -> TailPoint:
        p = self.rest.point_here(eps)
        zero, one = arb(0), arb(1)
        e = arb(eps)
        power = _clip(_interval(p.power.lower(), p.power.upper() + self._m_a), zero, one)
        alpha = _clip(_interval(p.alpha.lower(), p.alpha.upper() + self._m_b), zero, one)
        delta = _clip(_interval(p.delta.lower(), p.delta.upper() + self._m_a), zero, one)
        delta = _meet(delta, power - e.exp() * alpha)
        return TailPoint(eps, delta, power, alpha)

    def delta(self, eps: float) -> arb:
        with working_precision(self.eval_prec):
            return self.delta_here(eps)

    def delta_here(self, eps: float) -> arb:
        d = self.rest.delta_here(eps)
        return _interval(d.lower(), d.upper() + self._m_a)

    def estimate(self, eps: np.ndarray) -> tuple[np.ndarray, ...]:
        """The remainder's float estimates (the lattice part, at most m, is in :meth:`error`)."""
        return self.rest.estimate(eps)

    def error(self, eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=np.float64)
        with np.errstate(over="ignore"):
            return self.rest.error(e) + self._fm * np.maximum(np.exp(e), 1.0)


def split_tails(factors: list[Factor], J: int, eps: float, rel: float) -> SplitTails | None:
    """The tails of the k-fold product ``factors`` = [(law, k)] with the terms j < J bounded by
    their mass and the remainder R_J inverted at ``eps`` to the relative width ``rel`` of its
    delta (:func:`.cf._certified_inverter`); None where the remainder's tails are not certified."""
    law, k = factors[0]
    rest = [(remainder_law(law, k, J), 1)]
    inv, _ = cf._certified_inverter(rest, eps, rel)
    t = tail_inverter(rest, inv)
    if t is None:
        return None
    with working_precision(64):
        m_a, m_b = lattice_mass(law, k, J)
    return SplitTails(t, m_a, m_b)
