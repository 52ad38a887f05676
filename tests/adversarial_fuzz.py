"""A fuzz harness for bad input: every public function and CLI subcommand, odd values.

Run ``PYTHONPATH=. python tests/adversarial_fuzz.py [--cli] [--api] [-k WORD] [-v]`` for a
census. Each case runs in a forked worker process watched by a timeout, so a hang is recorded
(and the worker replaced) instead of stopping the run. Outcomes:

* ``refused``: an :class:`InvalidParameter` (``misnamed`` when it names another parameter);
* ``error``: another library error (:class:`TradeOffError`: NumericalError, NoClosedForm);
* ``accepted``: a normal return; a *silent acceptance* when the value is nonsense for that
  parameter (NaN, a boolean, a complex number, a container, a string where no string is read,
  a value outside the documented range), or when the result holds NaN/zoo;
* ``raw``: any other exception (TypeError, ValueError, ZeroDivisionError, RecursionError,
  mpmath/SymPy/flint errors, AttributeError...);
* ``hang``: no answer within the timeout; ``crash``: the worker died.

The CLI cases call ``tradeoff_algebra.cli.main`` and count as raw a traceback or an "internal
error", as silent acceptances exit 0 for a nonsense argument, and check the documented exit
statuses (0, 1, 2, 3, 4).

``tests/test_adversarial_inputs.py`` runs a small slice of it (:func:`run_cases`) under the same
timeout guard.
"""

from __future__ import annotations

import contextlib
import decimal
import fractions
import io
import math
import multiprocessing as mp
import os
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import InvalidParameter, TradeOffError

R = sp.Rational
x_sym = sp.Symbol("x")
mu_sym = sp.Symbol("mu", positive=True)

#: Seconds a case may take before it counts as a hang.
TIMEOUT = 20.0


# -- odd values -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Odd:
    """An odd value: ``kind`` says what it means ("bad": nonsense for any number; "num": the
    number ``num``; "sym": a free symbol; "none"; "str": a string that may be read as ``num``)."""

    label: str
    make: Callable[[], Any]
    kind: str
    num: Any = None  # a SymPy number (or +-oo) for "num" and numeric strings
    integral_type: bool = False  # a Python/NumPy integer type (what count() takes)


def _odd_values() -> list[Odd]:
    D, F = decimal.Decimal, fractions.Fraction
    big = 10**400
    return [
        # nonsense for any number
        Odd("nan", lambda: float("nan"), "bad"),
        Odd("np.nan64", lambda: np.float64("nan"), "bad"),
        Odd("np.nan32", lambda: np.float32("nan"), "bad"),
        Odd("Decimal(NaN)", lambda: D("NaN"), "bad"),
        Odd("mpf(nan)", lambda: mpmath.mpf("nan"), "bad"),
        Odd("sp.nan", lambda: sp.nan, "bad"),
        Odd("sp.zoo", lambda: sp.zoo, "bad"),
        Odd("True", lambda: True, "bad"),
        Odd("False", lambda: False, "bad"),
        Odd("np.True_", lambda: np.bool_(True), "bad"),
        Odd("1+0j", lambda: 1 + 0j, "bad"),
        Odd("1j", lambda: 1j, "bad"),
        Odd("np.complex", lambda: np.complex128(0.5), "bad"),
        Odd("mpc", lambda: mpmath.mpc(0.5, 0), "bad"),
        Odd("sp.I", lambda: sp.I, "bad"),
        Odd("[]", lambda: [], "bad"),
        Odd("{}", lambda: {}, "bad"),
        Odd("[0.5]", lambda: [0.5], "bad"),
        Odd("set()", lambda: set(), "bad"),
        Odd("np.array([0.5])", lambda: np.array([0.5]), "bad"),
        Odd("np.array([])", lambda: np.array([]), "bad"),
        Odd("object()", lambda: object(), "bad"),
        Odd("lambda", lambda: lambda t: t, "bad"),
        Odd("b'1'", lambda: b"1", "bad"),
        Odd("G(mu)", lambda: ta.G(mu_sym), "bad"),
        Odd("GDP(1)", lambda: ta.GDP(1), "bad"),
        Odd("sp.true", lambda: sp.true, "bad"),
        Odd("Interval", lambda: sp.Interval(0, 1), "bad"),
        # strings: read as numbers by a few parameters (levels), nonsense elsewhere
        Odd("'0.5'", lambda: "0.5", "str", R(1, 2)),
        Odd("'nan'", lambda: "nan", "bad"),
        Odd("''", lambda: "", "bad"),
        Odd("'abc'", lambda: "abc", "bad"),
        Odd("'9'*100000", lambda: "9" * 100_000, "bad"),
        # numbers
        Odd("inf", lambda: float("inf"), "num", sp.oo),
        Odd("-inf", lambda: float("-inf"), "num", -sp.oo),
        Odd("sp.oo", lambda: sp.oo, "num", sp.oo),
        Odd("Decimal(inf)", lambda: D("Infinity"), "num", sp.oo),
        Odd("-1", lambda: -1, "num", sp.Integer(-1), True),
        Odd("0", lambda: 0, "num", sp.Integer(0), True),
        Odd("0.0", lambda: 0.0, "num", sp.Integer(0)),
        Odd("-0.0", lambda: -0.0, "num", sp.Integer(0)),
        Odd("1", lambda: 1, "num", sp.Integer(1), True),
        Odd("2", lambda: 2, "num", sp.Integer(2), True),
        Odd("0.5", lambda: 0.5, "num", R(1, 2)),
        Odd("-0.5", lambda: -0.5, "num", R(-1, 2)),
        Odd("1.5", lambda: 1.5, "num", R(3, 2)),
        Odd("2.0", lambda: 2.0, "num", sp.Integer(2)),
        Odd("10**400", lambda: big, "num", sp.Integer(big), True),
        Odd("-10**400", lambda: -big, "num", -sp.Integer(big), True),
        Odd("2**64", lambda: 2**64, "num", sp.Integer(2**64), True),
        Odd("1e-320", lambda: 1e-320, "num", R(1e-320)),
        Odd("1e308", lambda: 1e308, "num", R(1e308)),
        Odd("R(1,10**400)", lambda: R(1, big), "num", R(1, big)),
        Odd("Decimal(0.5)", lambda: D("0.5"), "num", R(1, 2)),
        Odd("Decimal(1e-999999)", lambda: D("1e-999999"), "num", R(1, 10**999_999)),
        Odd("Fraction(1,2)", lambda: F(1, 2), "num", R(1, 2)),
        Odd("np.float32(0.5)", lambda: np.float32(0.5), "num", R(1, 2)),
        Odd("np.float64(0.5)", lambda: np.float64(0.5), "num", R(1, 2)),
        Odd("np.int64(2)", lambda: np.int64(2), "num", sp.Integer(2), True),
        Odd("np.int8(-1)", lambda: np.int8(-1), "num", sp.Integer(-1), True),
        Odd("np.uint64(2**63)", lambda: np.uint64(2**63), "num", sp.Integer(2**63), True),
        Odd("np.array(0.5)", lambda: np.array(0.5), "num", R(1, 2)),
        Odd("mpf(0.5)", lambda: mpmath.mpf(0.5), "num", R(1, 2)),
        Odd("sp.Float(0.5)", lambda: sp.Float(0.5), "num", R(1, 2)),
        Odd("sqrt(2)/2", lambda: sp.sqrt(2) / 2, "num", sp.sqrt(2) / 2),
        Odd("exp(-10**5)", lambda: sp.exp(-(10**5)), "num", sp.exp(-(10**5))),
        Odd("exp(10**5)", lambda: sp.exp(10**5), "num", sp.exp(10**5)),
        # symbols and defaults
        Odd("x", lambda: x_sym, "sym"),
        Odd("x+1", lambda: x_sym + 1, "sym"),
        Odd("None", lambda: None, "none"),
    ]


ODD = _odd_values()


# -- what a parameter allows ------------------------------------------------------------------
@dataclass(frozen=True)
class Dom:
    """The documented range of a parameter, to judge an acceptance.

    ``kind``: "real" (a real number in [lo, hi], open ends by ``lo_open``/``hi_open``,
    integers only with ``integer``, +-oo only with ``inf``), "count" (a Python/NumPy integer),
    "any" (acceptance never judged: callables, sequences, objects). ``none``: None is the
    documented default; ``sym``: symbols are kept symbolic (True), refused (False) or either
    (None); ``string``: numeric strings are read as numbers.
    """

    kind: str = "real"
    lo: Any = None
    hi: Any = None
    lo_open: bool = False
    hi_open: bool = False
    integer: bool = False
    inf: bool = False
    none: bool = False
    sym: bool | None = None
    string: bool = False
    # judge numbers too large or too small to compute with (10**400) as "either way"
    huge_ok: bool = True


def allowed(dom: Dom, odd: Odd) -> bool | None:
    """True: the value is valid; False: it is nonsense (accepting it is a silent acceptance);
    None: either way is fine (a huge number, a symbol in a numeric slot...)."""
    if dom.kind == "any":
        return None
    if dom.kind == "tradeoff":  # only G(mu) among the odd values is a trade-off function
        return None if odd.label == "G(mu)" else False
    if dom.kind == "flag":  # (SymPy's true: how RenyiRegion keeps its flag in its args)
        return odd.label in ("True", "False", "np.True_", "sp.true") or (
            odd.kind == "none" and dom.none
        )
    if dom.kind == "word":  # no odd value is one of the words
        return odd.kind == "none" and dom.none
    if odd.kind == "bad":
        return False
    if odd.kind == "none":
        return True if dom.none else False
    if odd.kind == "sym":
        return dom.sym
    if odd.kind == "str":
        if not dom.string:
            return False
    if dom.kind == "count":
        if not odd.integral_type:
            return False
    v = odd.num
    if v is sp.oo or v == -sp.oo:
        if not dom.inf:
            return False
    if dom.integer or dom.kind == "count":
        if v.is_integer is False and v.is_finite:
            return False
    if dom.lo is not None:
        if (v < dom.lo) if not dom.lo_open else (v <= dom.lo):
            return False
    if dom.hi is not None:
        if (v > dom.hi) if not dom.hi_open else (v >= dom.hi):
            return False
    if dom.huge_ok and v.is_finite and (abs(v) > 10**300 or (v != 0 and abs(v) < R(1, 10**300))):
        return None
    return True


@dataclass
class Target:
    label: str  # what is called
    name: str  # the parameter's name as InvalidParameter should give it
    fn: Callable[[Any], Any]
    dom: Dom = field(default_factory=Dom)


# shorthands
NONNEG = Dom(lo=0, sym=True)
POS = Dom(lo=0, lo_open=True, sym=True)
UNIT = Dom(lo=0, hi=1, sym=True)
REAL = Dom(sym=True)
INT1 = Dom(lo=1, integer=True, sym=True)
INT0 = Dom(lo=0, integer=True, sym=True)
DPS = Dom(kind="count", lo=1, hi=10_000, sym=False)
DPS_NONE = Dom(kind="count", lo=1, hi=10_000, sym=False, none=True)
LEVEL = Dom(lo=0, hi=1, sym=False, string=True)
ANY = Dom(kind="any")
TRADEOFF = Dom(kind="tradeoff")
FLAG = Dom(kind="flag")
WORD = Dom(kind="word")

#: Domains set after the targets are built (by label).
_DOMAINS = {
    **{
        label: TRADEOFF
        for label in (
            "Mix.f",
            "C.f",
            "Group.f",
            "TensorPower.base",
            "Tensor.f",
            "Max.f",
            "Inverse.f",
            "Symmetrize.f",
            "SymmetricHull.f",
            "Conjugate.f",
            "AddRemove.f",
            "Shift.f",
            "matmul",
            "rmatmul",
            "evaluate.f",
            "delta.f",
            "conjugate_value.f",
            "sup_distance.g",
            "primal_value.delta_fn",
            "gdp_mu.f",
            "advantage.f",
            "RDP.of.f",
            "plot.exprs",
            "calibrate.build-returns",
            "kl.f",
            "kappa2.f",
            "kappa3.f",
            "kappa3_bar.f",
            "chi2_plus.f",
            "tv.f",
            "auc.f",
            "fixed_point.f",
        )
    },
    **{
        label: FLAG
        for label in ("curve.bounds", "renyi.estimate", "calibrate.integer", "plot.bands")
    },
    "pld_options.progress": Dom(kind="flag", none=True),
    **{
        label: WORD
        for label in (
            "verify.rel",
            "derive.relation",
            "bound.relation",
            "plot.kind",
            "shuffle.bound",
            "noisy_sgd.sampling",
            "gaussian_sigma.method",
            "sampling_rate.form",
            "zCDP.epsilon.method",
            "zCDP.compose",
        )
    },
    **{
        label: Dom(kind="word", none=True)
        for label in (
            "rules.cls",
            "rules.relation",
            "rule_catalogue.relation",
            "noisy_sgd.neighbours",
        )
    },
    "verify.over": ANY,
    "ShuffleDP.bound": ANY,  # 0 and 1 encode the bound in the node's args
    # a symbol makes delta/epsilon a lazy Functional (analysis/lazy.py), by design
    "delta.eps": Dom(lo=0, inf=True, sym=None, string=True),
    "GDP.delta.eps": Dom(lo=0, inf=True, sym=None, string=True),
    "epsilon.delta": Dom(lo=0, hi=1, sym=None, string=True),
    "GDP.epsilon.delta": Dom(lo=0, hi=1, sym=None, string=True),
    "BinomialDP.n": INT0,
    "ApproxDP.eps": Dom(lo=0, inf=True, sym=True),
    "berry_esseen.n": Dom(lo=1, integer=True, sym=True, none=True),
    "calibrate.rel_tol": Dom(lo=R(1, 10**15), hi=1, hi_open=True, sym=False, none=True),
    "accountant.get_epsilon.delta": Dom(lo=0, hi=1, sym=False, string=True),
}


class _Event:
    """A stand-in for dp_accounting's DpEvent classes (read by class name and fields)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def _event(kind: str, **kw):
    return type(kind, (_Event,), {})(**kw)


def _accountant(sigma, q):
    from tradeoff_algebra.opacus_accountant import TradeoffAccountant

    a = TradeoffAccountant()
    a.step(noise_multiplier=sigma, sample_rate=q)
    return a


_D5 = R(1, 10**5)


def _accountant_eps(delta=_D5, dps=8):
    a = _accountant(1.0, 0.01)
    return a.get_epsilon(delta, dps=dps)


def _plot(**kw):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        return ta.plot(**kw) if "exprs" not in kw else ta.plot(*kw.pop("exprs"), **kw)
    finally:
        plt.close("all")


def api_targets() -> list[Target]:
    G1, L1, E1 = ta.G(1), ta.Laplace(1), ta.EpsDelta(1, 0)
    z, r, t = ta.zCDP(R(1, 2)), ta.RDP({2: 1}), ta.tCDP(1, 10)
    T: list[Target] = []

    def add(label, name, fn, dom=NONNEG):
        T.append(Target(label, name, fn, dom))

    # families
    add("G", "mu", lambda v: ta.G(v))
    add("Gaussian", "mu", lambda v: ta.Gaussian(v))
    add("Laplace", "mu", lambda v: ta.Laplace(v))
    add("EpsDelta.eps", "eps", lambda v: ta.EpsDelta(v, 0))
    add("EpsDelta.delta", "delta", lambda v: ta.EpsDelta(1, v), UNIT)
    add("BinomialDP.eps", "eps", lambda v: ta.BinomialDP(v, 3))
    add("BinomialDP.n", "n", lambda v: ta.BinomialDP(1, v), INT1)
    add("ShuffleDP.eps0", "eps0", lambda v: ta.ShuffleDP(v, 10))
    add("ShuffleDP.n", "n", lambda v: ta.ShuffleDP(1, v), INT1)
    add("ShuffleDP.bound", "bound", lambda v: ta.ShuffleDP(1, 10, v), Dom(kind="real", sym=False))
    add("shuffle.eps0", "eps0", lambda v: ta.shuffle(v, 10))
    add("shuffle.n", "n", lambda v: ta.shuffle(1, v), INT1)
    add("shuffle.bound", "bound", lambda v: ta.shuffle(1, 10, v), Dom(kind="real", sym=False))
    add("PoissonReplace.mu", "mu", lambda v: ta.PoissonReplace(v, R(1, 2)))
    add("PoissonReplace.q", "q", lambda v: ta.PoissonReplace(1, v), UNIT)
    add("NormalPair.m0", "m0", lambda v: ta.NormalPair(v, 1, 1, 2), REAL)
    add("NormalPair.s0", "s0", lambda v: ta.NormalPair(0, v, 1, 2), POS)
    add("NormalPair.m1", "m1", lambda v: ta.NormalPair(0, 1, v, 2), REAL)
    add("NormalPair.s1", "s1", lambda v: ta.NormalPair(0, 1, 1, v), POS)
    add(
        "GaussianMixturePair.weights",
        "weights",
        lambda v: ta.GaussianMixturePair(v, [0, 1], [1, 0]),
        ANY,
    )
    add(
        "GaussianMixturePair.weights[0]",
        "weights[0]",
        lambda v: ta.GaussianMixturePair([v, R(1, 2)], [0, 1], [1, 0]),
        Dom(lo=0, hi=1),
    )
    add(
        "GaussianMixturePair.means_p",
        "means_p",
        lambda v: ta.GaussianMixturePair([R(1, 2), R(1, 2)], v, [1, 0]),
        ANY,
    )
    add(
        "GaussianMixturePair.means_p[0]",
        "means_p[0]",
        lambda v: ta.GaussianMixturePair([R(1, 2), R(1, 2)], [v, 1], [1, 0]),
        REAL,
    )
    add("Discrete.P", "P", lambda v: ta.Discrete(v, [R(1, 2), R(1, 2)]), ANY)
    add(
        "Discrete.P[0]",
        "P[0]",
        lambda v: ta.Discrete([v, R(1, 2)], [R(1, 2), R(1, 2)]),
        Dom(lo=0, hi=1, sym=None),
    )
    add("Discrete.Q", "Q", lambda v: ta.Discrete([R(1, 2), R(1, 2)], v), ANY)
    add("PiecewiseLinear.knots", "knots", lambda v: ta.PiecewiseLinear(v), ANY)
    add(
        "PiecewiseLinear.knot",
        "knots[1]",
        lambda v: ta.PiecewiseLinear([(0, 1), (v, R(1, 4)), (1, 0)]),
        Dom(lo=0, hi=1, sym=None),
    )
    add("RenyiRegion.bounds", "bounds", lambda v: ta.RenyiRegion(v), ANY)
    add("RenyiRegion.tau", "tau", lambda v: ta.RenyiRegion({2: v}), Dom(lo=0, inf=True))
    add(
        "RenyiRegion.order",
        "order|bounds",
        lambda v: ta.RenyiRegion([(v, 1)]),
        Dom(lo=0, lo_open=True, inf=True, sym=None),
    )
    # operators
    for label, make in [
        ("Mix", lambda v: ta.Mix(G1, v)),
        ("Subsample", lambda v: ta.Subsample(G1, v)),
        ("C", lambda v: ta.C(v, G1)),
    ]:
        add(f"{label}.p", "p", make, UNIT)
    add("Group.k", "k", lambda v: ta.Group(G1, v), INT1)
    add("TensorPower.n", "n", lambda v: ta.TensorPower(G1, v), INT0)
    add("pow.n", "n", lambda v: G1**v, INT0)
    add("Shift.t", "t", lambda v: ta.Shift(G1, v), Dom(lo=-1, hi=1, sym=True))
    for label, make in [
        ("Mix.f", lambda v: ta.Mix(v, R(1, 2))),
        ("C.f", lambda v: ta.C(R(1, 2), v)),
        ("Group.f", lambda v: ta.Group(v, 2)),
        ("TensorPower.base", lambda v: ta.TensorPower(v, 2)),
        ("Tensor.f", lambda v: ta.Tensor(G1, v)),
        ("Max.f", lambda v: ta.Max(G1, v)),
        ("Inverse.f", lambda v: ta.Inverse(v)),
        ("Symmetrize.f", lambda v: ta.Symmetrize(v)),
        ("SymmetricHull.f", lambda v: ta.SymmetricHull(v)),
        ("Conjugate.f", lambda v: ta.Conjugate(v)),
        ("AddRemove.f", lambda v: ta.AddRemove(v)),
        ("Shift.f", lambda v: ta.Shift(v, R(1, 2))),
        ("matmul", lambda v: G1 @ v),
        ("rmatmul", lambda v: v @ G1),
    ]:
        name = {"TensorPower.base": "base"}.get(label, "f")
        add(label, name, make, Dom(kind="real", lo=2, hi=1, sym=False))  # nothing is valid
    # mechanisms
    add("gaussian_mechanism.sensitivity", "sensitivity", lambda v: ta.gaussian_mechanism(v, 1))
    add("gaussian_mechanism.sigma", "sigma", lambda v: ta.gaussian_mechanism(1, v), POS)
    add("laplace_mechanism.sensitivity", "sensitivity", lambda v: ta.laplace_mechanism(v, 1))
    add("laplace_mechanism.scale", "scale", lambda v: ta.laplace_mechanism(1, v), POS)
    add("noisy_sgd.sigma", "sigma", lambda v: ta.noisy_sgd(v, R(1, 100), 10), POS)
    add("noisy_sgd.p", "p", lambda v: ta.noisy_sgd(1, v, 10), UNIT)
    add("noisy_sgd.steps", "steps", lambda v: ta.noisy_sgd(1, R(1, 100), v), INT0)
    add(
        "noisy_sgd.sampling",
        "sampling",
        lambda v: ta.noisy_sgd(1, R(1, 100), 10, v),
        Dom(kind="real", sym=False),
    )
    add(
        "noisy_sgd.dataset_size",
        "dataset_size",
        lambda v: ta.noisy_sgd(1, dataset_size=v, batch_size=10, epochs=1),
        Dom(lo=1, integer=True, sym=False),
    )
    add(
        "noisy_sgd.batch_size",
        "batch_size",
        lambda v: ta.noisy_sgd(1, dataset_size=100, batch_size=v, epochs=1),
        Dom(lo=1, integer=True, sym=False),
    )
    add(
        "noisy_sgd.epochs",
        "epochs",
        lambda v: ta.noisy_sgd(1, dataset_size=100, batch_size=10, epochs=v),
        Dom(lo=0, lo_open=True, sym=False),
    )
    add(
        "noisy_sgd.neighbours",
        "neighbours",
        lambda v: ta.noisy_sgd(1, R(1, 100), 10, "poisson", neighbours=v),
        Dom(kind="real", none=True, sym=False),
    )
    add("sensitivity_index.sensitivity", "sensitivity", lambda v: ta.sensitivity_index(v, 1))
    add("sensitivity_index.sigma", "sigma", lambda v: ta.sensitivity_index(1, v), POS)
    add(
        "gaussian_sigma.sensitivity",
        "sensitivity",
        lambda v: ta.gaussian_sigma(v, 1, R(1, 10**5)),
        Dom(lo=0, lo_open=True, sym=False),
    )
    add(
        "gaussian_sigma.eps",
        "eps",
        lambda v: ta.gaussian_sigma(1, v, R(1, 10**5)),
        Dom(lo=0, sym=False),
    )
    add(
        "gaussian_sigma.delta",
        "delta",
        lambda v: ta.gaussian_sigma(1, 1, v),
        Dom(lo=0, hi=1, lo_open=True, hi_open=True, sym=False),
    )
    add("gaussian_sigma.dps", "dps", lambda v: ta.gaussian_sigma(1, 1, R(1, 10**5), dps=v), DPS)
    add(
        "gaussian_sigma.method",
        "method",
        lambda v: ta.gaussian_sigma(1, 1, R(1, 10**5), method=v),
        Dom(kind="real", sym=False),
    )
    add("amplified_epsilon.eps_star", "eps_star", lambda v: ta.amplified_epsilon(v, R(1, 2)))
    add("amplified_epsilon.p", "p", lambda v: ta.amplified_epsilon(1, v), UNIT)
    add("sampling_rate.eps_star", "eps_star", lambda v: ta.sampling_rate(v, R(1, 2)), POS)
    add("sampling_rate.eps", "eps", lambda v: ta.sampling_rate(1, v), Dom(lo=0, hi=1, sym=True))
    add(
        "sampling_rate.form",
        "form",
        lambda v: ta.sampling_rate(1, R(1, 2), form=v),
        Dom(kind="real", sym=False),
    )
    add("advanced_composition.eps", "eps", lambda v: ta.advanced_composition(v, 0, 10, R(1, 10**5)))
    add(
        "advanced_composition.delta",
        "delta",
        lambda v: ta.advanced_composition(1, v, 10, R(1, 10**5)),
        UNIT,
    )
    add(
        "advanced_composition.k", "k", lambda v: ta.advanced_composition(1, 0, v, R(1, 10**5)), INT1
    )
    add(
        "advanced_composition.delta_prime",
        "delta_prime",
        lambda v: ta.advanced_composition(1, 0, 10, v),
        Dom(lo=0, hi=1, lo_open=True, sym=True),
    )
    # notions
    add("GDP.mu", "mu", lambda v: ta.GDP(v))
    add("zCDP.rho", "rho", lambda v: ta.zCDP(v))
    add("zCDP.xi", "xi", lambda v: ta.zCDP(1, v))
    add("tCDP.rho", "rho", lambda v: ta.tCDP(v, 2))
    add("tCDP.omega", "omega", lambda v: ta.tCDP(1, v), Dom(lo=1, lo_open=True, inf=True, sym=True))
    add("ApproxDP.eps", "eps", lambda v: ta.ApproxDP(v, 0))
    add("ApproxDP.delta", "delta", lambda v: ta.ApproxDP(1, v), UNIT)
    add("RDP.curve", "curve", lambda v: ta.RDP(v), ANY)
    add("RDP.curve[2]", "curve(2)", lambda v: ta.RDP({2: v}), Dom(lo=0, inf=True, sym=True))
    add(
        "RDP.omega",
        "omega",
        lambda v: ta.RDP({2: 1}, v),
        Dom(lo=1, lo_open=True, inf=True, sym=True),
    )
    add(
        "zCDP.epsilon.delta",
        "delta",
        lambda v: z.epsilon(v),
        Dom(lo=0, hi=1, lo_open=True, sym=False),
    )
    add(
        "zCDP.epsilon.method",
        "method",
        lambda v: z.epsilon(R(1, 10**5), method=v),
        Dom(kind="real", sym=False),
    )
    add("zCDP.delta.eps", "eps", lambda v: z.delta(v), Dom(lo=0, sym=False))
    add("zCDP.epsilon.dps", "dps", lambda v: z.epsilon(R(1, 10**5), dps=v), DPS)
    add("zCDP.group.k", "k", lambda v: z.group(v), INT1)
    add("zCDP.tail_bound.t", "t", lambda v: z.tail_bound(v), Dom(sym=True))
    add("zCDP.compose", "other", lambda v: z.compose(v), Dom(kind="real", lo=2, hi=1, sym=False))
    add("zCDP.to_tradeoff.orders", "orders", lambda v: z.to_tradeoff(v), ANY)
    add(
        "tCDP.epsilon.delta",
        "delta",
        lambda v: t.epsilon(v),
        Dom(lo=0, hi=1, lo_open=True, sym=False),
    )
    add("tCDP.group.k", "k", lambda v: t.group(v), INT1)
    add(
        "RDP.epsilon.delta",
        "delta",
        lambda v: r.epsilon(v),
        Dom(lo=0, hi=1, lo_open=True, sym=False),
    )
    add("RDP.epsilon.orders", "orders", lambda v: r.epsilon(R(1, 10**5), orders=v), ANY)
    add("RDP.delta.eps", "eps", lambda v: r.delta(v), Dom(lo=0, sym=False))
    add("RDP.delta.dps", "dps", lambda v: r.delta(1, dps=v), DPS)
    add("RDP.at.order", "order", lambda v: r.at(v), Dom(lo=1, inf=True, sym=True))
    add(
        "RDP.best_order.delta",
        "delta",
        lambda v: r.best_order(v),
        Dom(lo=0, hi=1, lo_open=True, sym=None),
    )
    add("RDP.tail_bound.t", "t", lambda v: r.tail_bound(2, v), Dom(sym=True))
    add(
        "RDP.tail_bound.order",
        "order",
        lambda v: r.tail_bound(v, 1),
        Dom(lo=1, lo_open=True, sym=True),
    )
    add(
        "RDP.to_approx_dp.delta",
        "delta",
        lambda v: r.to_approx_dp(v),
        Dom(lo=0, hi=1, lo_open=True, sym=False),
    )
    add("RDP.of.f", "f", lambda v: ta.RDP.of(v, [2]), Dom(kind="real", lo=2, hi=1, sym=False))
    add("RDP.of.orders", "orders", lambda v: ta.RDP.of(G1, v), ANY)
    add(
        "GDP.epsilon.delta",
        "delta",
        lambda v: ta.GDP(1).epsilon(v),
        Dom(lo=0, hi=1, sym=False, string=True),
    )
    add(
        "GDP.delta.eps",
        "eps",
        lambda v: ta.GDP(1).delta(v),
        Dom(lo=0, inf=True, sym=False, string=True),
    )
    add("GDP.group.k", "k", lambda v: ta.GDP(1).group(v), INT1)
    add("ApproxDP.group.k", "k", lambda v: ta.ApproxDP(1, 0).group(v), INT1)
    # numeric functions
    add(
        "evaluate.f",
        "f",
        lambda v: ta.evaluate(v, R(1, 2)),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    add("evaluate.alpha", "alpha", lambda v: ta.evaluate(G1, v), LEVEL)
    add("evaluate.dps", "dps", lambda v: ta.evaluate(G1, R(1, 2), v), DPS)
    add("roc.alpha", "alpha", lambda v: ta.roc(G1, v), LEVEL)
    add("roc.dps", "dps", lambda v: ta.roc(G1, R(1, 2), v), DPS)
    add("call.alpha", "alpha", lambda v: G1(v), Dom(lo=0, hi=1, sym=True))
    add(
        "derivative.alpha",
        "alpha",
        lambda v: G1.derivative(v),
        Dom(lo=0, hi=1, sym=True, none=True),
    )
    add("curve.alphas", "alphas", lambda v: ta.curve(G1, v), ANY)
    add(
        "curve.alphas[0]",
        "alphas[0]",
        lambda v: ta.curve(G1, [v, R(1, 2)]),
        Dom(lo=0, hi=1, sym=False, string=True),
    )
    add(
        "curve.bounds",
        "bounds",
        lambda v: ta.curve(G1, [R(1, 2)], v),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    add("method.curve.alphas", "alphas", lambda v: L1.curve(v), ANY)
    add("delta.eps", "eps", lambda v: ta.delta(G1, v), Dom(lo=0, inf=True, sym=False, string=True))
    add("delta.dps", "dps", lambda v: ta.delta(G1, 1, v), DPS)
    add("delta.f", "f", lambda v: ta.delta(v, 1), Dom(kind="real", lo=2, hi=1, sym=False))
    add(
        "epsilon.delta",
        "delta",
        lambda v: ta.epsilon(G1, v),
        Dom(lo=0, hi=1, sym=False, string=True),
    )
    add("epsilon.dps", "dps", lambda v: ta.epsilon(G1, R(1, 10**5), v), DPS)
    add(
        "renyi.order",
        "order",
        lambda v: ta.renyi(G1, v),
        Dom(lo=0, lo_open=True, inf=True, sym=True),
    )
    add(
        "renyi.order.dps",
        "order",
        lambda v: ta.renyi(L1, v, dps=10),
        Dom(lo=0, lo_open=True, inf=True, sym=False),
    )
    add("renyi.dps", "dps", lambda v: ta.renyi(G1, 2, v), DPS_NONE)
    add(
        "renyi.estimate",
        "estimate",
        lambda v: ta.renyi(G1, 2, estimate=v),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    for fname in ("kl", "kappa2", "kappa3", "kappa3_bar", "chi2_plus", "tv", "auc", "fixed_point"):
        fn_ = getattr(ta, fname)
        add(f"{fname}.dps", "dps", lambda v, fn=fn_: fn(G1, v), DPS_NONE)
        add(
            f"{fname}.f",
            "f",
            lambda v, fn=fn_: fn(v),
            Dom(kind="real", lo=2, hi=1, sym=False),
        )
    add("f_divergence.F", "F", lambda v: ta.f_divergence(E1, v), ANY)
    add(
        "f_divergence.dps",
        "dps",
        lambda v: ta.f_divergence(E1, lambda s: s * sp.log(s), v),
        DPS_NONE,
    )
    add("hockey_stick.gamma", "gamma", lambda v: ta.hockey_stick(G1, v), Dom(lo=0, sym=False))
    add("hockey_stick.dps", "dps", lambda v: ta.hockey_stick(G1, 2, v), DPS)
    add("conjugate_value.y", "y", lambda v: ta.conjugate_value(G1, v, 10), Dom(sym=False))
    add("conjugate_value.dps", "dps", lambda v: ta.conjugate_value(G1, -1, v), DPS)
    add(
        "conjugate_value.f",
        "f",
        lambda v: ta.conjugate_value(v, -1, 10),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    add(
        "sup_distance.g",
        "g",
        lambda v: ta.sup_distance(G1, v, 5),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    add(
        "sup_distance.tol",
        "tol",
        lambda v: ta.sup_distance(G1, ta.G(2), 5, v),
        Dom(lo=0, lo_open=True, sym=False, none=True),
    )
    add("gdp_mu.f", "f", lambda v: ta.gdp_mu(v, 5), Dom(kind="real", lo=2, hi=1, sym=False))
    add("gdp_mu.dps", "dps", lambda v: ta.gdp_mu(L1, v, R(1, 100)), DPS)
    add(
        "gdp_mu.tol",
        "tol",
        lambda v: ta.gdp_mu(L1, 5, v),
        Dom(lo=0, lo_open=True, sym=False, none=True),
    )
    add("advantage.dps", "dps", lambda v: ta.advantage(G1, v), DPS)
    add("advantage.f", "f", lambda v: ta.advantage(v), Dom(kind="real", lo=2, hi=1, sym=False))
    add("bayes_risk.prior", "prior", lambda v: ta.bayes_risk(G1, v, 10), Dom(lo=0, hi=1, sym=False))
    add("bayes_risk.dps", "dps", lambda v: ta.bayes_risk(G1, R(1, 2), v), DPS)
    add("primal_value.alpha", "alpha", lambda v: ta.primal_value(G1, v, n=9, dps=10), LEVEL)
    add(
        "primal_value.delta_fn",
        "delta_fn",
        lambda v: ta.primal_value(v, R(1, 4), n=9, dps=10),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    add(
        "primal_value.n",
        "n",
        lambda v: ta.primal_value(G1, R(1, 4), n=v, dps=10),
        Dom(kind="count", lo=2, hi=10**5, sym=False),
    )
    add(
        "primal_value.eps_max",
        "eps_max",
        lambda v: ta.primal_value(G1, R(1, 4), n=9, eps_max=v, dps=10),
        Dom(lo=0, lo_open=True, sym=False),
    )
    add(
        "primal_value.delta_inf",
        "delta_inf",
        lambda v: ta.primal_value(G1, R(1, 4), n=9, delta_inf=v, dps=10),
        Dom(lo=0, hi=1, sym=False),
    )
    add(
        "primal_value.max_evals",
        "max_evals",
        lambda v: ta.primal_value(G1, R(1, 4), n=9, max_evals=v, dps=10),
        Dom(kind="count", lo=1, sym=False),
    )
    add(
        "primal_value_lower.eps_grid",
        "eps_grid",
        lambda v: ta.primal_value_lower(G1, R(1, 4), v, dps=10),
        ANY,
    )
    add(
        "primal_value_lower.alpha",
        "alpha",
        lambda v: ta.primal_value_lower(G1, v, [0, 1], dps=10),
        LEVEL,
    )
    add("from_privacy_profile.pairs", "pairs", lambda v: ta.from_privacy_profile(v), ANY)
    add("from_privacy_profile.eps", "eps", lambda v: ta.from_privacy_profile([(v, 0)]), NONNEG)
    # verify, rewriting, printing
    add("verify.lhs", "lhs", lambda v: ta.verify(v, "==", G1, dps=10), ANY)
    add(
        "verify.rel",
        "rel",
        lambda v: ta.verify(G1, v, G1, dps=10),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    add(
        "verify.over",
        "over",
        lambda v: ta.verify(ta.G(mu_sym), ">=", ta.G(2), over=v, dps=10),
        Dom(kind="real", lo=2, hi=1, sym=False, none=True),
    )
    add(
        "verify.over.range",
        "over",
        lambda v: ta.verify(ta.G(mu_sym), ">=", ta.G(2), over={mu_sym: (0, v)}, dps=10),
        Dom(lo=0, inf=True, sym=False),
    )
    add("verify.dps", "dps", lambda v: ta.verify(G1, "==", G1, dps=v), DPS)
    add("simplify.expr", "expr", lambda v: ta.simplify(v), ANY)
    add("derive.expr", "expr", lambda v: ta.derive(v), ANY)
    add(
        "derive.relation",
        "relation",
        lambda v: ta.derive(G1, v),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    add(
        "bound.relation",
        "relation",
        lambda v: ta.bound(G1 @ L1, v),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    add("bound.expr", "expr", lambda v: ta.bound(v), ANY)
    add("approx.expr", "expr", lambda v: ta.approx(v), ANY)
    add(
        "rules.cls",
        "cls",
        lambda v: ta.rules(v),
        Dom(kind="real", lo=2, hi=1, sym=False, none=True),
    )
    add(
        "rules.relation",
        "relation",
        lambda v: ta.rules(None, v),
        Dom(kind="real", lo=2, hi=1, sym=False, none=True),
    )
    add(
        "rule_catalogue.relation",
        "relation",
        lambda v: ta.rule_catalogue(v),
        Dom(kind="real", lo=2, hi=1, sym=False, none=True),
    )
    add("latex.obj", "obj", lambda v: ta.latex(v), ANY)
    add("text.obj", "obj", lambda v: ta.text(v), ANY)
    add("Phi.x", "x", lambda v: ta.Phi(v), Dom(inf=True, sym=True))
    add("PhiInv.p", "p", lambda v: ta.PhiInv(v), Dom(lo=0, hi=1, sym=True))
    add("parse_expr.text", "expression", lambda v: _parse(v), ANY)
    add(
        "Functional.value.dps",
        "dps",
        lambda v: ta.Functional("evaluate", G1, R(1, 2)).value(v),
        DPS,
    )
    add("Functional.name", "name", lambda v: ta.Functional(v, G1, R(1, 2)), ANY)
    # calibration
    build = lambda s: ta.G(1 / s)  # noqa: E731
    add(
        "calibrate.epsilon",
        "epsilon",
        lambda v: ta.calibrate(build, epsilon=v, delta=R(1, 10**5)),
        Dom(lo=0, sym=False),
    )
    add(
        "calibrate.delta",
        "delta",
        lambda v: ta.calibrate(build, epsilon=1, delta=v),
        Dom(lo=0, hi=1, lo_open=True, hi_open=True, sym=False),
    )
    add(
        "calibrate.tpr",
        "tpr",
        lambda v: ta.calibrate(build, tpr=v, fpr=R(1, 100)),
        Dom(lo=0, hi=1, sym=False),
    )
    add(
        "calibrate.fpr",
        "fpr",
        lambda v: ta.calibrate(build, tpr=R(1, 2), fpr=v),
        Dom(lo=0, hi=1, sym=False),
    )
    add(
        "calibrate.advantage",
        "advantage",
        lambda v: ta.calibrate(build, advantage=v),
        Dom(lo=0, hi=1, sym=False),
    )
    add(
        "calibrate.start",
        "start",
        lambda v: ta.calibrate(build, advantage=R(1, 10), start=v),
        Dom(lo=0, lo_open=True, sym=False),
    )
    add(
        "calibrate.domain",
        "domain",
        lambda v: ta.calibrate(build, advantage=R(1, 10), domain=v),
        ANY,
    )
    add(
        "calibrate.integer",
        "integer",
        lambda v: ta.calibrate(build, advantage=R(1, 10), integer=v),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    add("calibrate.dps", "dps", lambda v: ta.calibrate(build, advantage=R(1, 10), dps=v), DPS)
    add(
        "calibrate.rel_tol",
        "rel_tol",
        lambda v: ta.calibrate(build, advantage=R(1, 10), rel_tol=v),
        Dom(lo=0, hi=1, lo_open=True, hi_open=True, sym=False),
    )
    add("calibrate.build", "build", lambda v: ta.calibrate(v, advantage=R(1, 10)), ANY)
    add(
        "calibrate.build-returns",
        "build",
        lambda v: ta.calibrate(lambda s: v, advantage=R(1, 10)),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    # plot
    add(
        "plot.points",
        "points",
        lambda v: _plot(exprs=[G1], points=v),
        Dom(kind="count", lo=2, hi=10**5, sym=False),
    )
    add(
        "plot.fpr_min",
        "fpr_min",
        lambda v: _plot(exprs=[G1], kind="roc", fpr_min=v),
        Dom(lo=0, hi=1, lo_open=True, hi_open=True, sym=False),
    )
    add(
        "plot.kind",
        "kind",
        lambda v: _plot(exprs=[G1], kind=v),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    add("plot.dps", "dps", lambda v: _plot(exprs=[G1], dps=v), DPS)
    add(
        "plot.bands",
        "bands",
        lambda v: _plot(exprs=[G1], bands=v),
        Dom(kind="real", lo=2, hi=1, sym=False),
    )
    add("plot.labels", "labels", lambda v: _plot(exprs=[G1], labels=v), ANY)
    add("plot.exprs", "exprs", lambda v: _plot(exprs=[v]), Dom(kind="real", lo=2, hi=1, sym=False))
    # interop and accountants
    add("from_dp_event.event", "event", lambda v: ta.from_dp_event(v), ANY)
    add(
        "from_dp_event.gaussian",
        "noise_multiplier",
        lambda v: ta.from_dp_event(_event("GaussianDpEvent", noise_multiplier=v)),
        NONNEG,
    )
    add(
        "from_dp_event.laplace",
        "noise_multiplier",
        lambda v: ta.from_dp_event(_event("LaplaceDpEvent", noise_multiplier=v)),
        NONNEG,
    )
    add(
        "from_dp_event.epsilon",
        "epsilon",
        lambda v: ta.from_dp_event(_event("EpsilonDeltaDpEvent", epsilon=v, delta=0)),
        NONNEG,
    )
    add(
        "from_dp_event.delta",
        "delta",
        lambda v: ta.from_dp_event(_event("EpsilonDeltaDpEvent", epsilon=1, delta=v)),
        UNIT,
    )
    add(
        "from_dp_event.rr.p",
        "noise_parameter",
        lambda v: ta.from_dp_event(
            _event("RandomizedResponseDpEvent", noise_parameter=v, num_buckets=2)
        ),
        UNIT,
    )
    add(
        "from_dp_event.rr.k",
        "num_buckets",
        lambda v: ta.from_dp_event(
            _event("RandomizedResponseDpEvent", noise_parameter=R(1, 2), num_buckets=v)
        ),
        Dom(lo=1, integer=True, sym=False),
    )
    add(
        "from_dp_event.poisson.q",
        "sampling_probability",
        lambda v: ta.from_dp_event(
            _event(
                "PoissonSampledDpEvent",
                sampling_probability=v,
                event=_event("GaussianDpEvent", noise_multiplier=1),
            )
        ),
        UNIT,
    )
    add(
        "from_dp_event.swor.n",
        "source_dataset_size",
        lambda v: ta.from_dp_event(
            _event(
                "SampledWithoutReplacementDpEvent",
                source_dataset_size=v,
                sample_size=10,
                event=_event("GaussianDpEvent", noise_multiplier=1),
            )
        ),
        Dom(lo=10, integer=True, sym=False),
    )
    add(
        "from_dp_event.swor.m",
        "sample_size",
        lambda v: ta.from_dp_event(
            _event(
                "SampledWithoutReplacementDpEvent",
                source_dataset_size=100,
                sample_size=v,
                event=_event("GaussianDpEvent", noise_multiplier=1),
            )
        ),
        Dom(lo=0, hi=100, integer=True, sym=False),
    )
    add(
        "from_dp_event.self.count",
        "count",
        lambda v: ta.from_dp_event(
            _event(
                "SelfComposedDpEvent", count=v, event=_event("GaussianDpEvent", noise_multiplier=1)
            )
        ),
        Dom(lo=0, integer=True, sym=False),
    )
    add(
        "from_dp_event.composed",
        "events",
        lambda v: ta.from_dp_event(_event("ComposedDpEvent", events=v)),
        ANY,
    )
    add(
        "from_dp_event.zcdp.rho",
        "rho",
        lambda v: ta.from_dp_event(_event("ZCDpEvent", rho=v, xi=0)),
        Dom(lo=0, sym=False),
    )
    add(
        "accountant.noise_multiplier",
        "noise_multiplier",
        lambda v: _accountant(v, 0.01),
        Dom(lo=0, sym=False, string=True),
    )
    add(
        "accountant.sample_rate",
        "sample_rate",
        lambda v: _accountant(1.0, v),
        Dom(lo=0, hi=1, sym=False, string=True),
    )
    add(
        "accountant.get_epsilon.delta",
        "delta",
        lambda v: _accountant_eps(delta=v),
        Dom(lo=0, hi=1, lo_open=True, sym=False, string=True),
    )
    add("accountant.get_epsilon.dps", "dps", lambda v: _accountant_eps(dps=v), DPS)
    # bounds
    add("berry_esseen.f", "f", lambda v: ta.berry_esseen(v, 10), ANY)
    add("berry_esseen.n", "n", lambda v: ta.berry_esseen(E1, v), Dom(lo=1, integer=True, sym=True))
    add("dpgd_random_init.a", "a", lambda v: ta.dpgd_random_init(v, 1), REAL)
    add("dpgd_random_init.c", "c", lambda v: ta.dpgd_random_init(1, v), POS)
    add("dpgd_random_init.sigma", "sigma", lambda v: ta.dpgd_random_init(1, 1, v), POS)
    add("GaussianJoint.weights", "weights", lambda v: ta.GaussianJoint(v, [1, 2]), ANY)
    add("GaussianJoint.mus", "mus", lambda v: ta.GaussianJoint([R(1, 2), R(1, 2)], v), ANY)
    add(
        "GaussianJoint.mus[0]",
        "mus[0]",
        lambda v: ta.GaussianJoint([R(1, 2), R(1, 2)], [v, 1]),
        REAL,
    )
    pairs = [([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)]), ([R(1, 2), R(1, 2)], [R(3, 4), R(1, 4)])]
    add("joint_concavity.weights", "weights", lambda v: ta.joint_concavity(v, pairs), ANY)
    add("joint_concavity.pairs", "pairs", lambda v: ta.joint_concavity([R(1, 2), R(1, 2)], v), ANY)
    add("mixture_pair.weights", "weights", lambda v: ta.mixture_pair(v, pairs), ANY)
    P1, Q1 = [R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)]
    add(
        "advanced_joint_concavity.w",
        "w",
        lambda v: ta.advanced_joint_concavity(P1, Q1, Q1, P1, v),
        Dom(lo=0, hi=1, sym=False),
    )
    add(
        "advanced_joint_concavity.gamma",
        "gamma",
        lambda v: ta.advanced_joint_concavity(P1, Q1, Q1, P1, R(1, 2), v, R(3, 4)),
        Dom(lo=0, hi=R(1, 2), hi_open=True, sym=False, none=True),
    )
    add(
        "advanced_joint_concavity.P1",
        "P1",
        lambda v: ta.advanced_joint_concavity(v, Q1, Q1, P1, R(1, 2)),
        ANY,
    )
    add("fmt_epsilon.eps0", "eps0", lambda v: ta.fmt_epsilon(v, 10**4, R(1, 10**6)), NONNEG)
    add("fmt_epsilon.n", "n", lambda v: ta.fmt_epsilon(1, v, R(1, 10**6)), INT1)
    add(
        "fmt_epsilon.delta",
        "delta",
        lambda v: ta.fmt_epsilon(1, 10**4, v),
        Dom(lo=0, hi=1, lo_open=True, sym=True),
    )
    add("fmt_epsilon.dps", "dps", lambda v: ta.fmt_epsilon(1, 10**4, R(1, 10**6), dps=v), DPS_NONE)
    add("fmt_delta.eps", "eps", lambda v: ta.fmt_delta(1, 10**4, v), NONNEG)
    add("fmt_delta.n", "n", lambda v: ta.fmt_delta(1, v, 1), INT1)
    add("fmt_tradeoff.deltas", "deltas", lambda v: ta.fmt_tradeoff(1, 10**4, v), ANY)
    add("iteration_zcdp.a", "a", lambda v: ta.iteration_zcdp(v, 1), ANY)
    add("iteration_zcdp.sigma", "sigma", lambda v: ta.iteration_zcdp([1, 1], v), ANY)
    add("iteration_zcdp.s", "s", lambda v: ta.iteration_zcdp([1, 1], 1, v), ANY)
    # options
    positive = Dom(lo=0, lo_open=True, sym=False, none=True)
    for opt in ("tol", "h", "tail"):
        add(f"pld_options.{opt}", opt, lambda v, o=opt: ta.pld_options(**{o: v}), positive)
    add(
        "pld_options.progress",
        "progress",
        lambda v: ta.pld_options(progress=v),
        Dom(kind="real", lo=2, hi=1, sym=False, none=True),
    )
    add("profile_options.rtol", "rtol", lambda v: ta.profile_options(rtol=v), positive)
    add("profile_options.max_calls", "max_calls", lambda v: ta.profile_options(max_calls=v), ANY)
    add(
        "profile_options.max_seconds",
        "max_seconds",
        lambda v: ta.profile_options(max_seconds=v),
        Dom(lo=0, lo_open=True, inf=True, sym=False, none=True),
    )
    add(
        "time_limit.seconds",
        "seconds",
        lambda v: _with_time_limit(v),
        Dom(lo=0, lo_open=True, inf=True, sym=False, none=True),
    )
    # methods of results and notions, and the remaining flags
    val = ta.evaluate(G1, R(1, 2), 10)
    add("Value.contains.x", "x", lambda v: val.contains(v), Dom(sym=False, inf=True))
    add("Value.weakened.guarantee", "guarantee", lambda v: val.weakened(v), WORD)
    add("Value.point.x", "x", lambda v: ta.Value.point(v, 10), Dom(inf=True, sym=False))
    add("Value.point.dps", "dps", lambda v: ta.Value.point(mpmath.mpf(1), v), DPS)
    add(
        "Value.enclosure.lo",
        "lo",
        lambda v: ta.Value.enclosure(v, 1, 10),
        Dom(hi=1, inf=True, sym=False),
    )
    add("Value.from_exact.q", "q", lambda v: ta.Value.from_exact(v, 10), Dom(sym=False))
    add("Value.lo", "lo", lambda v: ta.Value(v, mpmath.mpf(1), mpmath.mpf(1), 10), ANY)
    add("GDP.compose", "other", lambda v: ta.GDP(1).compose(v), ANY)
    add("ApproxDP.compose", "other", lambda v: ta.ApproxDP(1, 0).compose(v), ANY)
    add("RDP.compose", "other", lambda v: r.compose(v), ANY)
    add("tCDP.tail_bound.t", "t", lambda v: t.tail_bound(v), Dom(sym=True))
    add(
        "L.derivative.alpha",
        "alpha",
        lambda v: L1.derivative(v),
        Dom(lo=0, hi=1, sym=True, none=True),
    )
    add("EpsDelta.call.alpha", "alpha", lambda v: E1(v), Dom(lo=0, hi=1, sym=True))
    add("Id.call.alpha", "alpha", lambda v: ta.Id(v), Dom(lo=0, hi=1, sym=True))
    add("RenyiRegion.symmetric", "symmetric", lambda v: ta.RenyiRegion({2: 1}, v), FLAG)
    add("RDP.to_tradeoff.symmetric", "symmetric", lambda v: r.to_tradeoff(symmetric=v), FLAG)
    add(
        "advanced_composition.improved",
        "improved",
        lambda v: ta.advanced_composition(1, 0, 10, R(1, 10**5), improved=v),
        FLAG,
    )
    add(
        "fmt_epsilon.fallback",
        "fallback",
        lambda v: ta.fmt_epsilon(1, 10**4, R(1, 10**6), dps=10, fallback=v),
        FLAG,
    )
    add(
        "accountant.get_privacy_spent.delta",
        "delta",
        lambda v: _accountant(1.0, 0.01).get_privacy_spent(delta=v),
        Dom(lo=0, hi=1, sym=False, string=True),
    )
    add("Derivation.latex", "expr", lambda v: ta.derive(v).latex(), ANY)
    add("conjugate.y", "y", lambda v: ta.conjugate_value(G1.conjugate(), v, 10), Dom(sym=False))
    for target in T:
        target.dom = _DOMAINS.get(target.label, target.dom)
    return T


def _with_time_limit(seconds):
    with ta.time_limit(seconds):
        return ta.evaluate(ta.G(1), R(1, 2), 10)


def _parse(text):
    from tradeoff_algebra.parse import parse_expr

    return parse_expr(text)


def api_cases(targets: list[Target] | None = None, odds: list[Odd] | None = None) -> list:
    cases = []
    for t in targets or api_targets():
        for o in odds or ODD:
            cases.append(("api", t, o))
    return cases


# -- the CLI ----------------------------------------------------------------------------------
_CLI_ODD = [
    # (text, valid as a number in [0, 1]?, valid as a number >= 0?)
    "nan",
    "inf",
    "-inf",
    "oo",
    "-oo",
    "zoo",
    "-1",
    "0",
    "1",
    "2",
    "True",
    "None",
    "1+0j",
    "I",
    "1j",
    "[]",
    "{}",
    "",
    " ",
    "9" * 5000,
    "10**400",
    "1e999",
    "1e-999",
    "x",
    "mu",
    "G(mu)",
    "G(1)",
    "0/0",
    "1/0",
    "nan*0",
    "'1'",
    "__import__('os')",
    "lambda: 1",
    "\u03bc",
    "\x00",
    "-",
    "--",
    "Phi(nan)",
    "sqrt(-1)",
    "log(0)",
    "E**1000",
    "Rational(1,0)",
    "1/3",
    "0.5",
    "1e-5",
    "1 - 1e-20",
    "exp(-10**5)",
    "GDP(1)",
    "oo*0",
    "--dps",
    "-5",
]


def _cli_num(text: str):
    """The number a CLI argument means, or None for nonsense."""
    good = {
        "0": 0,
        "1": 1,
        "2": 2,
        "1/3": R(1, 3),
        "0.5": R(1, 2),
        "1e-5": R(1, 10**5),
        "1 - 1e-20": 1 - R(1, 10**20),
        "exp(-10**5)": sp.exp(-(10**5)),
        "-1": -1,
        "-5": -5,
        "10**400": 10**400,
        "1e999": 10**999,
        "1e-999": R(1, 10**999),
        "E**1000": sp.E**1000,
        "inf": sp.oo,
        "oo": sp.oo,
        "-inf": -sp.oo,
        "-oo": -sp.oo,
    }
    return good.get(text.strip() if text.strip() in good else text)


def cli_cases() -> list:
    """(argv, judge) pairs; judge(rc) says whether an exit 0 is a silent acceptance."""
    cases = []

    def add(argv, valid, odd=""):
        cases.append(("cli", tuple(argv), valid, odd))

    def in_range(lo, hi, inf=False, lo_open=False, hi_open=False):
        def valid(text):
            v = _cli_num(text)
            if v is None:
                return False
            v = sp.sympify(v)
            if not inf and not v.is_finite:
                return False
            if lo is not None and ((v <= lo) if lo_open else (v < lo)):
                return False
            if hi is not None and ((v >= hi) if hi_open else (v > hi)):
                return False
            if v.is_finite and v != 0 and (abs(v) > 10**300 or abs(v) < R(1, 10**300)):
                return None
            return True

        return valid

    never = lambda text: False  # noqa: E731
    expr = lambda text: text.strip() in ("G(1)", "GDP(1)")  # noqa: E731
    either = lambda text: None  # noqa: E731
    for s in _CLI_ODD:

        def add_s(argv, valid, s=s):
            add(argv, valid, s)

        for cmd in ("eval", "roc"):
            add_s([cmd, "G(1)", s, "--dps", "10"], in_range(0, 1))
            add_s([cmd, s, "0.5", "--dps", "10"], expr)
        add_s(["delta", "G(1)", s, "--dps", "10"], in_range(0, None, inf=True))
        add_s(["delta", s, "1", "--dps", "10"], expr)
        add_s(["eps", "G(1)", s, "--dps", "10"], in_range(0, 1))
        add_s(["eps", s, "1e-5", "--dps", "10"], expr)
        add_s(["renyi", "G(1)", s, "--dps", "10"], in_range(0, None, inf=True, lo_open=True))
        add_s(["renyi", s, "2", "--dps", "10"], expr)
        add_s(["gdp", s, "--dps", "5"], expr)
        add_s(["gdp", "Laplace(1)", "--dps", "5", "--tol", s], in_range(0, None, lo_open=True))
        add_s(["convert", s, "--delta", "1e-5"], expr)
        add_s(["convert", "zCDP(1/2)", "--delta", s, "--dps", "10"], in_range(0, 1, lo_open=True))
        add_s(["convert", "zCDP(1/2)", "--eps", s, "--dps", "10"], in_range(0, None))
        add_s(["convert", "G(1)", "--eps", s, "--dps", "10"], in_range(0, None, inf=True))
        for cmd in ("text", "latex", "simplify", "derive", "approx"):
            add_s([cmd, s], either)
        add_s(["derive", "G(1)", "--relation", s], never)
        add_s(["verify", s, "==", "G(1)", "--dps", "10"], either)
        add_s(["verify", "G(1)", s, "G(1)"], never)
        add_s(
            ["verify", "G(mu)", ">=", "G(1)", "--over", f"mu=0:{s}", "--dps", "10"],
            in_range(0, None, inf=True),
        )
        add_s(["verify", "G(mu)", ">=", "G(1)", "--over", s, "--dps", "10"], never)
        add_s(
            ["calibrate", "G(1/s)", "--param", "s", "--advantage", s, "--dps", "5"],
            in_range(0, 1, lo_open=True, hi_open=True),
        )
        add_s(
            [
                "calibrate",
                "G(1/s)",
                "--param",
                "s",
                "--epsilon",
                s,
                "--delta",
                "1e-5",
                "--dps",
                "5",
            ],
            in_range(0, None),
        )
        add_s(
            ["calibrate", "G(1/s)", "--param", "s", "--epsilon", "1", "--delta", s, "--dps", "5"],
            in_range(0, 1, lo_open=True, hi_open=True),
        )
        add_s(
            [
                "calibrate",
                "G(1/s)",
                "--param",
                "s",
                "--advantage",
                "0.1",
                "--start",
                s,
                "--dps",
                "5",
            ],
            in_range(0, None, lo_open=True),
        )
        add_s(
            ["calibrate", "G(1/s)", "--param", s, "--advantage", "0.1", "--dps", "5"],
            lambda text: True if text.strip() == "s" else False,
        )
        add_s(["calibrate", s, "--param", "s", "--advantage", "0.1", "--dps", "5"], expr)
        for opt in ("--dps",):
            add_s(["eval", "G(1)", "0.5", opt, s], lambda text: _cli_num(text) in (1, 2))
        add_s(
            ["plot", "G(1)", "-o", "@TMP@/a.png", "--points", s],
            lambda text: _cli_num(text) in (2,) or None,
        )
        add_s(["plot", "G(1)", "-o", "@TMP@/a.png", "--dpi", s], never)
        add_s(["plot", s, "-o", "@TMP@/a.png", "--points", "5"], expr)
        add_s(["plot", "G(1)", "-o", "@TMP@/" + s.replace("/", "_"), "--points", "5"], either)
        add_s(["plot", "G(1)", "--kind", s, "-o", "@TMP@/b.png"], never)
    # options and files
    for argv, valid in [
        (["eval", "G(1)", "0.5", "--dps", "0"], never),
        (["eval", "G(1)", "0.5", "--dps", "-3"], never),
        (["plot", "G(1)", "-o", "@TMP@/nofolder/x.png"], never),
        (["plot", "G(1)", "-o", "@TMP@"], never),
        (["plot", "G(1)", "-o", "@TMP@/x.xyz"], never),
        (["plot", "G(1)", "-o", "@TMP@/x.png", "--points", "-5"], never),
        (["plot", "G(1)", "-o", "@TMP@/x.png", "--dpi", "0"], never),
        (["plot", "G(1)", "-o", "@TMP@/x.png", "--dpi", "10**9"], never),
        (["plot", "G(1)", "-o", "@TMP@/x.png", "--points", "9" * 100], never),
        (["plot", "G(1)", "-o", "/dev/null/x.png"], never),
        (["plot", "G(1)", "-o", "/proc/x.png"], never),
        (["plot", "G(1)", "-o", ""], never),
        (["plot", "-o", "@TMP@/x.png"], never),
        (["eps", "G(mu)", "1e-5"], never),
        (["eval"], never),
        ([], never),
        (["--dps", "3"], never),
        (["demo", "--dps", "-1"], never),
        (["demo", "--dps", "0"], never),
        (["eval", "G(1)", "0.5", "--dps"], never),
        (["eval", "G(1)", "0.5", "--nonsense"], never),
        (["calibrate", "G(1/s)", "--param", "s"], never),
        (["calibrate", "G(1/s)", "--param", "s", "--epsilon", "1"], never),
        (["calibrate", "G(1/s)", "--param", "s", "--tpr", "0.5"], never),
        (["calibrate", "G(1/s)", "--param", "s", "--advantage", "0.1", "--integer"], either),
        (["calibrate", "G(1/s) @ G(t)", "--param", "s", "--advantage", "0.1"], never),
        (["convert", "zCDP(1/2)"], never),
        (["convert", "G(mu)", "--delta", "1e-5"], never),
        (["convert", "zCDP(rho)", "--delta", "1e-5"], never),
        (["verify", "G(1)", "==", "zCDP(1)"], never),
        (["verify", "GDP(1)", "==", "G(1)"], never),
        (["verify", "G(1)", "==", "1"], either),
        (["verify", "G(mu)", ">=", "G(1)", "--over", "mu=1:0"], never),
        (["verify", "G(mu)", ">=", "G(1)", "--over", "mu=nan:1"], never),
        (["verify", "G(mu)", ">=", "G(1)", "--over", "nu=0:1"], either),
        (["verify", "G(mu)", ">=", "G(1)", "--over", "mu=0:1", "--over", "mu=0:2"], either),
        (["renyi", "G(1)", "2", "--estimate"], either),
        (["renyi", "EpsDelta(1, 1)", "1/2"], either),
        (["eval", "EpsDelta(1, 1)", "0.5"], either),
        (["eps", "EpsDelta(1, 1)", "0.5"], either),
        (["gdp", "EpsDelta(1, 1)"], either),
        (["eval", "Zero**0", "0.5"], either),
        (["delta", "BinomialDP(1, 10**400)", "1"], either),
        (["eval", "BinomialDP(1, 10**400)", "0.5"], either),
        (["delta", "Mix(C(1/3, EpsDelta(299/200, 1 - 10**-300)), 1e-12)", "1"], either),
        (["renyi", "G(1)", "0"], never),
        (["renyi", "G(1)", "1"], either),
        (["renyi", "G(1)", "oo"], either),
        (["renyi", "G(1)", "nan"], never),
        (["gdp", "Laplace(1)", "--tol", "0"], never),
        (["gdp", "Laplace(1)", "--tol", "-1"], never),
    ]:
        add(argv, valid)
    return cases


# -- running one case -------------------------------------------------------------------------
def _bad_output(result: Any) -> str | None:
    """NaN, zoo or a complex number in a result that returned normally."""
    from tradeoff_algebra.numeric.value import Value

    try:
        if isinstance(result, Value):
            for part in (result.lo, result.hi, result.mid):
                if isinstance(part, mpmath.mpc) or mpmath.isnan(part):
                    return f"Value with {part!r}"
        elif isinstance(result, sp.Basic):
            if result.has(sp.nan, sp.zoo):
                return f"{type(result).__name__} holding nan/zoo"
        elif isinstance(result, (float, np.floating)) and math.isnan(result):
            return "nan"
        elif isinstance(result, tuple):
            for r in result:
                bad = _bad_output(r)
                if bad:
                    return bad
    except Exception as exc:  # pragma: no cover
        return f"{type(exc).__name__} inspecting the result"
    return None


def _short(text: str, n: int = 220) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def run_one(case) -> dict:
    """Run one case in this process and classify it."""
    kind = case[0]
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "api":
            out = _run_api(case[1], case[2])
        else:
            out = _run_cli(case[1], case[2], case[3])
    out["seconds"] = time.perf_counter() - start
    return out


def _run_api(target: Target, odd: Odd) -> dict:
    try:
        value = odd.make()
    except Exception as exc:  # pragma: no cover
        return {"outcome": "skip", "detail": repr(exc)}
    try:
        result = target.fn(value)
        try:
            repr(result)
        except Exception as exc:
            return {
                "outcome": "raw",
                "detail": f"repr of the result: {type(exc).__name__}: " + _short(str(exc)),
            }
    except InvalidParameter as err:
        name = str(getattr(err, "name", ""))
        ok = any(
            name == want
            or name.startswith(want + "[")
            or name.startswith(want + "(")
            or want.startswith(name + "[")
            for want in target.name.split("|")
        )
        return {"outcome": "refused" if ok else "misnamed", "detail": f"{name}: {_short(str(err))}"}
    except TradeOffError as err:
        return {"outcome": "error", "detail": f"{type(err).__name__}: {_short(str(err))}"}
    except RecursionError as err:
        return {"outcome": "raw", "detail": f"RecursionError: {_short(str(err))}"}
    except Exception as err:
        tb = traceback.extract_tb(err.__traceback__)
        where = next(
            (
                f"{os.path.relpath(fr.filename)}:{fr.lineno}"
                for fr in reversed(tb)
                if "tradeoff_algebra" in fr.filename
            ),
            "?",
        )
        return {"outcome": "raw", "detail": f"{type(err).__name__}: {_short(str(err))} @ {where}"}
    # SymPy's conventions for its own numbers: Phi(nan) is nan, Phi(I) stays unevaluated
    sympy_own = odd.label in ("sp.nan", "sp.zoo", "sp.I") and target.label in ("Phi.x", "PhiInv.p")
    bad = None if sympy_own else _bad_output(result)
    if bad:
        return {"outcome": "bad-output", "detail": bad}
    ok = None if sympy_own else allowed(target.dom, odd)
    return {
        "outcome": "accepted" if ok is not False else "silent",
        "detail": _short(repr(result), 120),
    }


def _run_cli(argv: tuple, valid: Callable[[str], bool | None], odd: str) -> dict:
    from tradeoff_algebra.cli import main

    tmp = tempfile.mkdtemp(prefix="ta-fuzz-")
    args = [a.replace("@TMP@", tmp) for a in argv]
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(args)
    except SystemExit as exc:  # --help
        rc = exc.code if isinstance(exc.code, int) else 2
    except BaseException as exc:
        return {"outcome": "raw", "detail": f"main raised {type(exc).__name__}: {_short(str(exc))}"}
    o, e = out.getvalue(), err.getvalue()
    text = e.strip()
    if "Traceback" in o + e or "internal error" in e:
        return {"outcome": "raw", "detail": f"rc={rc} {_short(text)}"}
    if rc not in (0, 1, 2, 3, 4):
        return {"outcome": "raw", "detail": f"undocumented rc={rc} {_short(text)}"}
    if rc in (2, 4) and not (e.startswith("tradeoff: error: ") and e.count("\n") == 1):
        return {"outcome": "raw", "detail": f"rc={rc} not one error line: {_short(e)}"}
    if rc == 0 and e:
        return {"outcome": "raw", "detail": f"rc=0 with stderr {_short(e)}"}
    judged = valid(odd)
    if rc in (0, 1, 3) and judged is False:
        return {"outcome": "silent", "detail": f"rc={rc} {_short(o, 120)}"}
    return {
        "outcome": {0: "accepted", 1: "accepted", 3: "accepted", 2: "refused", 4: "error"}[rc],
        "detail": _short(text or o, 160),
    }


# -- the guarded runner -----------------------------------------------------------------------
def _worker(conn, cases) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (8 * 2**30, 8 * 2**30))
    except Exception:  # pragma: no cover
        pass
    os.chdir(tempfile.mkdtemp(prefix="ta-fuzz-cwd-"))
    while True:
        try:
            i = conn.recv()
        except EOFError:
            return
        if i is None:
            return
        try:
            res = run_one(cases[i])
        except BaseException as exc:  # pragma: no cover - the classifier itself failed
            res = {"outcome": "raw", "detail": f"harness: {type(exc).__name__}: {exc}"}
        conn.send(res)


def run_cases(cases: list, timeout: float = TIMEOUT, progress: bool = False) -> list[dict]:
    """Run ``cases`` in a forked worker, each with ``timeout`` seconds; a case without an
    answer is a hang (the worker is killed and replaced), a dead worker a crash."""
    ctx = mp.get_context("fork")
    results: list[dict] = []
    proc = conn = None
    for i in range(len(cases)):
        if proc is None:
            conn, child = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child, cases), daemon=True)
            proc.start()
            child.close()
        conn.send(i)
        try:
            if conn.poll(timeout):
                res = conn.recv()
            else:
                res = {
                    "outcome": "hang",
                    "detail": f"no answer in {timeout:g} s",
                    "seconds": timeout,
                }
                proc.kill()
                proc.join()
                proc = None
        except (EOFError, OSError):
            proc.join()
            res = {
                "outcome": "crash",
                "detail": f"worker died (exit {proc.exitcode})",
                "seconds": 0.0,
            }
            proc = None
        results.append(res)
        if progress and i % 200 == 0:
            print(f"  {i}/{len(cases)}", file=sys.stderr, flush=True)
    if proc is not None:
        conn.send(None)
        proc.join(5)
        if proc.is_alive():  # pragma: no cover
            proc.kill()
    return results


BAD_OUTCOMES = ("raw", "silent", "hang", "crash", "bad-output", "misnamed")


def describe(case) -> str:
    if case[0] == "api":
        return f"{case[1].label}({case[2].label})"
    return "tradeoff " + " ".join(repr(a) if len(a) < 40 else repr(a[:20]) + "..." for a in case[1])


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--api", action="store_true")
    p.add_argument("--cli", action="store_true")
    p.add_argument("-k", default=None, help="only cases whose description contains this")
    p.add_argument("-v", action="store_true", help="list every bad case")
    p.add_argument("--timeout", type=float, default=TIMEOUT)
    args = p.parse_args(argv)
    both = not (args.api or args.cli)
    cases = (api_cases() if args.api or both else []) + (cli_cases() if args.cli or both else [])
    if args.k:
        cases = [c for c in cases if args.k in describe(c)]
    start = time.perf_counter()
    results = run_cases(cases, args.timeout, progress=True)
    counts = Counter(r["outcome"] for r in results)
    print(
        f"{len(cases)} cases in {time.perf_counter() - start:.0f} s: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )
    for c, r in zip(cases, results, strict=True):
        if r["outcome"] in BAD_OUTCOMES and (args.v or r["outcome"] != "misnamed"):
            print(f"{r['outcome']:10} {describe(c)[:100]}  ->  {r['detail'][:300]}")
    slow = sorted(
        ((r.get("seconds", 0), describe(c)) for c, r in zip(cases, results, strict=True)),
        reverse=True,
    )[:10]
    print("slowest:", "; ".join(f"{d[:60]} {s:.1f}s" for s, d in slow))
    return 0


if __name__ == "__main__":
    sys.exit(main())
