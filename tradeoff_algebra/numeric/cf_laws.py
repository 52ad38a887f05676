"""Loss laws for the certified Laplace inversion of :mod:`.cf`: what the inversion needs from the
law of one factor's privacy loss L = log(dA/dB) under A (:class:`LossLaw`: a rigorous moment
generating function M(z) = E_A[e^{zL}] in Arb balls (python-flint), bounds on |M(c + it)| for
large t, float cumulants for planning), and the Arb helpers the laws are written with.

A law is the Arb view of a family's :class:`~.privacy_loss.PrivacyLoss` (its ``law()``): the
Gaussian family gives G_mu's and, through the Mix hook ``mixed_law``, the Poisson-subsampled
Gaussian's (``families/gaussian.py``, ``families/gaussian_sampled.py``). Call inside
:func:`~tradeoff_algebra.numeric.context.arb_precision` (:func:`working_precision` here).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Protocol

import numpy as np
from flint import acb, arb, fmpq

from .context import arb_precision

__all__ = ["LossLaw", "Factor", "working_precision", "to_fraction", "to_arb", "upper", "lower",
           "pm", "log_sqrt_2pi", "norm_sf", "logsumexp", "Number"]

Number = int | float | Fraction | str

# ----------------------------------------------------------------------------
# Precision and conversions
# ----------------------------------------------------------------------------


def working_precision(bits: int):
    """Arb's working precision ``bits`` for a block, serialised with every other Arb section
    (:func:`~tradeoff_algebra.numeric.context.arb_precision`)."""
    return arb_precision(bits)


def to_fraction(v: Number) -> Fraction:
    """The exact rational value of a parameter (floats are taken exactly)."""
    return v if isinstance(v, Fraction) else Fraction(v)


def to_arb(v: Number) -> arb:
    """A ball containing the exact value of the parameter `v`."""
    f = to_fraction(v)
    return arb(fmpq(f.numerator, f.denominator))


def upper(x: arb) -> float:
    """A float that is >= every point of the ball `x`."""
    if not x.is_finite():
        return math.inf
    return math.nextafter(float(x.upper()), math.inf)


def lower(x: arb) -> float:
    """A float that is <= every point of the ball `x`."""
    if not x.is_finite():
        return -math.inf
    return math.nextafter(float(x.lower()), -math.inf)


def pm(bound: arb) -> arb:
    """The ball [-b, b] for an upper bound b of the (nonnegative) ball `bound`."""
    return arb(0, upper(bound))


def log_sqrt_2pi() -> arb:
    return (2 * arb.pi()).log() / 2


def norm_sf(u: arb) -> arb:
    """Standard normal upper tail P(N(0,1) > u)."""
    return (u / arb(2).sqrt()).erfc() / 2


def logsumexp(a: np.ndarray, axis: int | None = None) -> np.ndarray:
    m = np.max(a, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True))
    return np.squeeze(out, axis=axis) if axis is not None else float(out.squeeze())


# ----------------------------------------------------------------------------
# Loss laws
# ----------------------------------------------------------------------------


class LossLaw(Protocol):
    """What the inversion needs from the law of one privacy loss L (under A).

    Rigorous methods (Arb) aim at a relative accuracy of about 2^(30 - prec)
    of the current working precision; float methods are for planning only.

    Optional, read with ``getattr`` (a law without them works as before): ``mgf_cost_flat``
    (True when M(c + it) costs the same at every t, a closed form: the planned work is counted
    in nodes), ``lattice_parts()`` (the balls (mu, p+, p-, kappa, lam) of a law made of atoms
    p+- at +-mu and a density kappa e^{lam t} on (-mu, mu), the Laplace mechanism's: its
    self-products are split by :mod:`.cf_lattice`), ``mgf_cost_per_t`` (with
    ``mgf_cost_flat``: the cost of M(c + it) grows as 1 + |t| times this rate), ``lattice_split(k)``
    (a law of two atoms and a general density, the Poisson-subsampled Laplace mechanism's: the
    k-fold product's exactly summed part and remainder, for few factors), ``cut_for(eta,
    c_max)`` and ``tail_mass()`` (the law cut to a sub-probability measure leaving out at most
    eta, for products whose whole mgf is dominated by a far tail: the Poisson-subsampled
    Gaussian's), ``decays`` (False for a law of atoms, whose |M(c + it)| returns to M(c): a
    product of such laws alone is refused) and ``mass_at_infinity()`` (an Arb ball of
    Q(L = +oo): the law is then the sub-probability measure of the finite losses, and the
    route adds the mass by Eq. (12); :mod:`.cf_atoms`); :mod:`.cf_route` reads them.
    """

    def mgf(self, z: acb) -> acb:
        """Enclosure of M(z) = E_A[exp(z L)] for Re z > 0."""
        ...

    def cumulants(self, c: float) -> tuple[float, float, float]:
        """Float approximations of log M(c) and its first two derivatives."""
        ...

    def log_decay_estimate(self, c: float, t: float) -> float:
        """Float approximation of log of `decay_bound(c, t)`."""
        ...

    def decay_bound(self, c: arb, t: arb) -> arb:
        """An upper bound of |M(c + it')| valid for every real t' >= t >= 0."""
        ...

    def power_decay(self, c: arb) -> tuple[arb, int] | None:
        """(V, p) with |M(c + it)| <= V / |t|^p for all real t != 0, if available."""
        ...

    def loss_sup(self) -> arb | None:
        """An upper bound of ess sup L if it is finite, else None."""
        ...

    def inverse(self) -> LossLaw:
        """The law of the swapped pair's loss (f^{-1} = T(Q, P): -L under the other measure)."""
        ...

    #: True when products of such laws alone have a closed form (G_mu (x) G_nu = G_sqrt(mu^2 +
    #: nu^2)): the routes then leave them to it.
    closed_under_tensor: bool



Factor = tuple[LossLaw, int]
