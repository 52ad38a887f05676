"""Families of trade-off functions: one module per family (docs/architecture.md, "Layers").

A new family is its module and one import line here, ``from .module import Name as Name`` (an
explicit re-export): :data:`__all__` is every public name imported below, and the package
(``tradeoff_algebra/__init__.py``) and the expression parser (``parse.CONSTRUCTORS``) take the
families from it.
"""

from types import ModuleType as _ModuleType

from .binomial import BinomialDP as BinomialDP
from .bounded_range import BoundedRange as BoundedRange
from .discrete import Discrete as Discrete
from .discrete_gaussian import DiscreteGaussian as DiscreteGaussian
from .discrete_laplace import DiscreteLaplace as DiscreteLaplace
from .epsdelta import EpsDelta as EpsDelta
from .gaussian import G as G
from .gaussian import Gaussian as Gaussian
from .gaussian_mixture import GaussianMixturePair as GaussianMixturePair
from .laplace import Laplace as Laplace
from .normal_pair import NormalPair as NormalPair
from .piecewise import PiecewiseLinear as PiecewiseLinear
from .poisson_replace import PoissonReplace as PoissonReplace
from .shuffle import ShuffleDP as ShuffleDP
from .skellam import Skellam as Skellam
from .trivial import Id as Id
from .trivial import IdTradeOff as IdTradeOff
from .trivial import Zero as Zero
from .trivial import ZeroTradeOff as ZeroTradeOff

__all__ = [_name for _name, _obj in dict(globals()).items()
           if not _name.startswith("_") and not isinstance(_obj, _ModuleType)]
