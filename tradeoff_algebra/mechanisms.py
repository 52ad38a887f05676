"""Mechanism constructors: trade-off expressions from what a practitioner knows.

* ``gaussian_mechanism(sensitivity, sigma)`` is G_{Delta/sigma} (Dong, Roth & Su, Thm. 2.7;
  Kaissis et al.'s sensitivity index psi = Delta/sigma).
* ``laplace_mechanism(sensitivity, scale)`` is L_{Delta/b}: adding Lap(0, b) to a statistic of
  sensitivity Delta gives the pair Lap(0, b), Lap(Delta, b), whose trade-off is that of
  Lap(0, 1), Lap(Delta/b, 1) (Dong, Roth & Su, Prop. 7).
"""

from __future__ import annotations

from typing import Any

from .core.validate import param
from .families.gaussian import Gaussian
from .families.laplace import Laplace

__all__ = ["gaussian_mechanism", "laplace_mechanism", "noisy_sgd"]


def gaussian_mechanism(sensitivity: Any, sigma: Any) -> Gaussian:
    """G_{Delta/sigma}: the Gaussian mechanism with l2-sensitivity Delta and noise N(0, sigma^2)."""
    d = param("sensitivity", sensitivity, lower=0, owner="gaussian_mechanism")
    s = param("sigma", sigma, lower=0, lower_open=True, owner="gaussian_mechanism")
    return Gaussian(d / s)


def laplace_mechanism(sensitivity: Any, scale: Any) -> Laplace:
    """L_{Delta/b}: the Laplace mechanism with l1-sensitivity Delta and noise Lap(0, b)."""
    d = param("sensitivity", sensitivity, lower=0, owner="laplace_mechanism")
    b = param("scale", scale, lower=0, lower_open=True, owner="laplace_mechanism")
    return Laplace(d / b)


def noisy_sgd(sigma: Any, p: Any, steps: Any, sampling: str = "gdp_paper"):
    """The trade-off expression of NoisySGD with noise multiplier sigma, sampling rate p and
    ``steps`` iterations (an expression builder: evaluation of the tensor power is separate).

    ``sampling="gdp_paper"`` (default): ``C_p(G_{1/sigma})^{(x) T}`` (Dong, Roth & Su, Thm. 10
    and Sec. 5, with p = m/n, T = steps). ``sampling="poisson"``:
    ``SymmetricHull(Mix(G_{1/sigma}, p)^{(x) T})``, the symmetric hull of the composed
    one-sided mixtures. sigma > 0, 0 <= p <= 1, steps a positive integer.
    """
    from .operators.subsample import Mix, Subsample
    from .operators.tensor import TensorPower
    from .operators.unary import SymmetricHull

    s = param("sigma", sigma, lower=0, lower_open=True, owner="noisy_sgd")
    q = param("p", p, lower=0, upper=1, owner="noisy_sgd")
    T = param("steps", steps, lower=1, integer=True, owner="noisy_sgd")
    if sampling == "gdp_paper":
        return TensorPower(Subsample(Gaussian(1 / s), q), T)
    if sampling == "poisson":
        return SymmetricHull(TensorPower(Mix(Gaussian(1 / s), q), T))
    from .core.errors import InvalidParameter

    raise InvalidParameter("sampling", sampling, "'gdp_paper' or 'poisson'", "noisy_sgd")
