"""Families of trade-off functions: one module per family (docs/architecture.md, "Layers")."""

from .binomial import BinomialDP
from .discrete import Discrete
from .epsdelta import EpsDelta
from .gaussian import G, Gaussian
from .gaussian_mixture import GaussianMixturePair
from .laplace import Laplace
from .normal_pair import NormalPair
from .piecewise import PiecewiseLinear
from .poisson_replace import PoissonReplace
from .shuffle import ShuffleDP
from .trivial import Id, IdTradeOff, Zero, ZeroTradeOff

__all__ = ["Gaussian", "G", "EpsDelta", "BinomialDP", "Laplace", "Id", "Zero", "IdTradeOff",
           "ZeroTradeOff", "PiecewiseLinear", "Discrete", "ShuffleDP", "NormalPair",
           "PoissonReplace", "GaussianMixturePair"]
