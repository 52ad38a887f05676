"""Example instances of every concrete node class, for the meta-tests (tests/test_meta_nodes.py).

Adding a node class to the package? Append examples for it to ``EXAMPLES`` below: at least one
with numeric parameters and, if the class has parameters, one with symbolic ones (use the
symbols defined here, or add a new one to ``SYMBOLS`` together with an admissible value in
``ADMISSIBLE``). A class that is only a base for others goes into ``ABSTRACT``. The meta-test
fails for any class of the package that has no example.
"""

from __future__ import annotations

import sympy as sp
from sympy import Rational, sqrt

import tradeoff_algebra as ta
from tradeoff_algebra import (
    C,
    EpsDelta,
    G,
    Group,
    Id,
    Inverse,
    Laplace,
    Max,
    Mix,
    Subsample,
    SymmetricHull,
    Symmetrize,
    Tensor,
    TensorPower,
    Zero,
)

# -- symbols with their assumptions and a value admissible wherever they are used -------------
mu = sp.Symbol("mu", nonnegative=True)
nu = sp.Symbol("nu", nonnegative=True)
m = sp.Symbol("m")  # no assumptions: validation cannot decide, so it must pass
eps = sp.Symbol("varepsilon", nonnegative=True)
delta = sp.Symbol("delta", nonnegative=True)
p = sp.Symbol("p", nonnegative=True)
n = sp.Symbol("n", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True, positive=True)

# trade-off symbols (core/symbol.py): arbitrary trade-off functions, not scalar parameters
fsym = ta.TradeOffSymbol("f")
gsym = ta.TradeOffSymbol("g", symmetric=True, tight=True)

SYMBOLS = (mu, nu, m, eps, delta, p, n, k, fsym, gsym)

#: A value for each symbol that is admissible in every example below.
ADMISSIBLE = {mu: 2, nu: Rational(1, 2), m: Rational(3, 2), eps: 1, delta: Rational(1, 10),
              p: Rational(1, 3), n: 3, k: 2}

#: Bases that are never instantiated themselves.
ABSTRACT = {ta.TradeOffExpr, ta.TradeOff, ta.operators._base.UnaryOperator,
            ta.operators._base.SamplingOperator}

# -- the examples: append freely (one expression per line) --------------------------------------
EXAMPLES = [
    # families
    G(1),
    G(Rational(1, 10)),
    G(0),
    G(mu),
    G(m),
    G(sqrt(mu**2 + nu**2)),
    EpsDelta(1, Rational(1, 10)),
    EpsDelta(0),
    EpsDelta(eps, delta),
    EpsDelta(sp.log(3), delta),
    Laplace(2),
    Laplace(mu),
    Id,
    Zero,
    # tensor products and powers
    Tensor(G(1), G(2)),
    G(mu) @ EpsDelta(eps, delta) @ Laplace(1),
    TensorPower(G(1), 3),
    G(mu) ** n,
    G(mu) ** (n + 1),
    (G(1) @ G(2)) ** 2,
    # unary operators
    Inverse(G(1)),
    Inverse(G(mu) ** n),
    Inverse(Inverse(EpsDelta(1, 0))),
    Symmetrize(Laplace(1)),
    Symmetrize(G(mu) @ G(1)),
    SymmetricHull(G(1)),
    SymmetricHull(Mix(G(mu), p)),
    # subsampling and mixing
    Subsample(G(1), Rational(1, 2)),
    C(p, G(mu)),
    C(p, G(1)) ** n,
    Mix(G(1), Rational(1, 4)),
    Mix(Inverse(G(mu)), p),
    # maximum and group privacy
    Max(G(1), EpsDelta(1, 0)),
    Max(G(mu), Laplace(nu), G(2)),
    Group(G(1), 2),
    Group(G(mu), k),
    Group(Group(Laplace(1), 2), k + 1),
    # the conjugate (a convex function on R, not a trade-off function)
    G(1).conjugate(),
    (G(mu) ** n).conjugate(),
    # one Poisson-subsampled Gaussian step under replace-one neighbours
    ta.PoissonReplace(1, Rational(1, 10)),
    ta.PoissonReplace(mu, p),
    # a mechanism under add/remove neighbours (composes its two directions together)
    ta.AddRemove(Mix(G(1), Rational(1, 4)) ** 3),
    ta.AddRemove(Mix(G(mu), p)),
    # the tightest trade-off function implied by Renyi DP at finitely many orders
    ta.RenyiRegion({2: 1, 8: 3}),
    ta.RenyiRegion({2: mu}, symmetric=False),
    # the diagonal translates of a Berry-Esseen sandwich (both sides)
    ta.Shift(G(1), Rational(1, 10)),
    ta.Shift(G(mu), -p / 2),
    # the joint pair of a Gaussian mixture (Wang et al., Lemma 3.1) and DP-GD with a random
    # initialisation (Thm. 5.1)
    ta.GaussianJoint([Rational(1, 3), Rational(2, 3)], [1, Rational(-1, 2)]),
    ta.GaussianJoint([p, 1 - p], [mu, 2]),
    ta.DPGDInit(1, 2, Rational(1, 2)),
    ta.DPGDInit(m, mu + 1, 1),
]


# -- classes contributed in their own modules: examples are added when the module is present ----
def _optional(module: str, name: str):
    import importlib

    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


PiecewiseLinear = _optional("tradeoff_algebra.families.piecewise", "PiecewiseLinear")
if PiecewiseLinear is not None:
    EXAMPLES += [
        PiecewiseLinear([(0, 1), (Rational(1, 2), Rational(1, 4)), (1, 0)]),
        PiecewiseLinear([(0, 1 - delta), (1 - delta, 0), (1, 0)]),
    ]

BinomialDP = _optional("tradeoff_algebra.families.binomial", "BinomialDP")
if BinomialDP is not None:
    EXAMPLES += [
        BinomialDP(1, 3),
        BinomialDP(eps, n),
    ]

Discrete = _optional("tradeoff_algebra.families.discrete", "Discrete")
if Discrete is not None:
    EXAMPLES += [
        Discrete([Rational(1, 2), Rational(1, 2)], [Rational(1, 4), Rational(3, 4)]),
        Discrete([p, 1 - p], [1 - p, p]),
    ]

ShuffleDP = _optional("tradeoff_algebra.families.shuffle", "ShuffleDP")
if ShuffleDP is not None:
    EXAMPLES += [
        ShuffleDP(1, 5),
        ShuffleDP(eps, n + 1),
    ]

NormalPair = _optional("tradeoff_algebra.families.normal_pair", "NormalPair")
if NormalPair is not None:
    EXAMPLES += [
        NormalPair(0, 1, Rational(1, 2), 2),
        NormalPair(m, nu + 1, mu, nu),
    ]

GaussianMixturePair = _optional("tradeoff_algebra.families.gaussian_mixture", "GaussianMixturePair")
if GaussianMixturePair is not None:
    EXAMPLES += [
        GaussianMixturePair([Rational(1, 2), Rational(1, 2)], [-1, 1], [0, 3]),
        GaussianMixturePair([p, 1 - p], [m, 0], [mu, -nu]),
    ]

DiscreteGaussian = _optional("tradeoff_algebra.families.discrete_gaussian", "DiscreteGaussian")
if DiscreteGaussian is not None:
    EXAMPLES += [DiscreteGaussian(1, 2), DiscreteGaussian(k, mu + 1)]

DiscreteLaplace = _optional("tradeoff_algebra.families.discrete_laplace", "DiscreteLaplace")
if DiscreteLaplace is not None:
    EXAMPLES += [DiscreteLaplace(2, 1 / sp.log(2)), DiscreteLaplace(3, Rational(7, 10)),
                 DiscreteLaplace(k, mu + 1)]

Skellam = _optional("tradeoff_algebra.families.skellam", "Skellam")
if Skellam is not None:
    EXAMPLES += [Skellam(1, 5), Skellam(k, mu + 1)]

BoundedRange = _optional("tradeoff_algebra.families.bounded_range", "BoundedRange")
if BoundedRange is not None:
    EXAMPLES += [BoundedRange(1), BoundedRange(sp.log(3)), BoundedRange(eps)]

# trade-off symbols and operators on them (core/symbol.py)
EXAMPLES += [fsym, gsym, ta.Subsample(fsym, p), ta.Inverse(fsym @ gsym), ta.Group(gsym, k)]
