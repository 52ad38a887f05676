"""The family suite: every family of ``tradeoff_algebra/families/`` against every capability the
capability table (``numeric.capability.CAPABILITIES``, ``implemented(cls)``) says it has, on a
few parameter sets, each checked against the family's independent reference
(``tests/references``: its defining pair (P, Q) with exact Neyman-Pearson sums, threshold tests,
hockey-stick regions and quadrature; RenyiRegion from its constraints).

The table is the driver: a capability a family declares without a checker in
tests/test_capabilities.py, a family without samples, without a reference or without cheap
samples named in ``DEFAULT``, or a declared capability that answers for none of the samples
fails here. By default each (family x capability) is checked on the family's one or two cheap
samples (``DEFAULT``) and the capability's own extra instances (``MORE_EXAMPLES``);
``--families-all`` (or ``TA_FAMILIES_FULL=1``) checks every sample, for a long run. Beside the
table, every family is checked for its inverse (the swapped pair), its end points and the round
trip through the expression parser; G_mu and L_mu, the closed-form families with a
threshold-test reference of their own (tests/reference_np.py), share the parametrised tests of
their values, fixed points, inverses, derivatives and monotonicity below.
"""

from __future__ import annotations

import os

import mpmath
import pytest
import sympy as sp
from mpmath import mp
from precision import workdps
from reference_np import digits, gauss_np, laplace_np
from references import functionals as R_
from references import reference
from references.finite import Finite
from references.operators import ref_inverse
from references.pairs import PairRef
from sympy import Rational as R
from test_capabilities import CHECKS, DPS, FAMILIES, MORE_EXAMPLES, Declined, close, examples

import tradeoff_algebra as ta
from tradeoff_algebra import G, Laplace, Phi
from tradeoff_algebra.numeric import capability as cap
from tradeoff_algebra.parse import parse_expr

#: The family classes (the table lists G under both of its names; one class).
CLASSES = sorted(set(FAMILIES), key=lambda c: c.__name__)

#: Parameter sets beyond the capability examples (tests/node_examples.py, MORE_EXAMPLES of
#: tests/test_capabilities.py): the far ends of each family's parameters.
EXTRA = [G(3), Laplace(R(1, 2)), ta.EpsDelta(sp.log(3), R(1, 20)), ta.EpsDelta(2, 0),
         ta.BinomialDP(sp.log(3), 6), ta.ShuffleDP(sp.log(2), 3),
         ta.Discrete([R(1, 3), R(2, 3), 0], [R(1, 6), R(1, 3), R(1, 2)]),
         ta.PiecewiseLinear([(0, R(9, 10)), (R(1, 10), R(1, 2)), (R(1, 2), R(1, 10)), (1, 0)]),
         ta.NormalPair(1, 2, 0, 1), ta.GaussianMixturePair([R(1, 4), R(3, 4)], [0, 2], [1, 0]),
         ta.PoissonReplace(2, R(1, 2)), ta.RenyiRegion({3: R(1, 2)}, symmetric=False),
         ta.DiscreteGaussian(2, R(3, 2)), ta.DiscreteLaplace(1, 2), ta.Skellam(2, R(7, 2)),
         ta.BoundedRange(4),
         ta.Discrete([1 / (1 + sp.E), sp.E / (1 + sp.E)], [sp.E / (1 + sp.E), 1 / (1 + sp.E)])]


def samples(cls: type, name: str | None = None) -> list:
    """The instances of ``cls`` with numbers the suite checks ``name`` on."""
    return examples(cls, name) + [f for f in EXTRA if type(f) is cls]


#: The samples the default run checks (one or two per family, chosen for cheap references:
#: exact sums, or a pair whose hockey-stick region is quick to solve). The full run
#: (``--families-all`` or ``TA_FAMILIES_FULL=1``) checks every sample.
DEFAULT = {
    "BinomialDP": (ta.BinomialDP(sp.log(3), 6), ta.BinomialDP(1, 3)),
    "Discrete": (ta.Discrete([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)]),
                 ta.Discrete([R(1, 3), R(2, 3), 0], [R(1, 6), R(1, 3), R(1, 2)])),
    "EpsDelta": (ta.EpsDelta(1, R(1, 10)), ta.EpsDelta(sp.log(3), R(1, 20))),
    "Gaussian": (G(1), G(0)),
    "GaussianMixturePair": (ta.GaussianMixturePair([R(1, 4), R(3, 4)], [0, 2], [1, 0]),),
    "IdTradeOff": (ta.Id,),
    "Laplace": (Laplace(2), Laplace(R(1, 2))),
    "NormalPair": (ta.NormalPair(0, 1, R(1, 2), 2),),
    "PiecewiseLinear": (ta.PiecewiseLinear([(0, 1), (R(1, 2), R(1, 4)), (1, 0)]),
                        ta.PiecewiseLinear([(0, R(9, 10)), (R(1, 10), R(1, 2)),
                                            (R(1, 2), R(1, 10)), (1, 0)])),
    "PoissonReplace": (ta.PoissonReplace(2, R(1, 2)),),
    "RenyiRegion": (ta.RenyiRegion({3: R(1, 2)}, symmetric=False),),
    "ShuffleDP": (ta.ShuffleDP(sp.log(2), 3), ta.ShuffleDP(1, 5)),
    "ZeroTradeOff": (ta.Zero,),
    "DiscreteGaussian": (ta.DiscreteGaussian(1, 2),),
    "DiscreteLaplace": (ta.DiscreteLaplace(2, 1 / sp.log(2)), ta.DiscreteLaplace(3, R(7, 10))),
    "Skellam": (ta.Skellam(1, 5),),
    "BoundedRange": (ta.BoundedRange(1),),
}


@pytest.fixture(scope="session")
def full(request) -> bool:
    """Every sample (``--families-all``, or the environment variable ``TA_FAMILIES_FULL=1``)."""
    return bool(request.config.getoption("--families-all", default=False)
                or os.environ.get("TA_FAMILIES_FULL") == "1")


def chosen(cls: type, name: str | None, full: bool) -> tuple[list, list]:
    """(first, rest): the default run checks ``first`` (the family's DEFAULT samples and the
    capability's own MORE_EXAMPLES) and, if none of them answers, ``rest`` up to the first that
    does; the full run checks every sample."""
    pool = samples(cls, name)
    if full:
        return pool, []
    own = DEFAULT[cls.__name__] + tuple(MORE_EXAMPLES.get(name, ()))
    return [f for f in pool if f in own], [f for f in pool if f not in own]


# -- the table -------------------------------------------------------------------------------------
CASES = [(cls, name) for cls in CLASSES for name in sorted(cap.implemented(cls))]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_family_has_samples_and_a_reference(cls):
    fs = samples(cls)
    need = 1 if cls.__name__ in ("IdTradeOff", "ZeroTradeOff") else 2  # no parameters
    assert len(fs) >= need, f"{cls.__name__}: give it parameter sets (EXTRA or node_examples)"
    for f in fs:
        assert reference(f) is not None
    default = DEFAULT.get(cls.__name__)
    assert default, f"{cls.__name__}: name its cheap samples in DEFAULT"
    assert 1 <= len(default) <= 2 and all(f in fs for f in default), default


def _check(name: str, f) -> bool:
    """Run the checker of ``name`` on ``f``: False when the capability declines."""
    with workdps(DPS + 10):
        try:
            CHECKS[name](f)
        except Declined:
            return False
    return True


@pytest.mark.parametrize("cls,name", CASES, ids=[f"{c.__name__}-{n}" for c, n in CASES])
def test_capability_against_the_reference(cls, name, full):
    """Every declared capability against the reference, on the samples :func:`chosen` gives
    (every sample it answers for, in the full run), answering for at least one."""
    assert name in CHECKS, f"{cls.__name__} declares {name!r}, which has no checker"
    first, rest = chosen(cls, name, full)
    answered = [f for f in first if _check(name, f)]
    for f in rest:
        if answered:
            break
        if _check(name, f):
            answered.append(f)
    assert answered, f"{cls.__name__} declares {name!r} but answers for none of its samples"


#: Samples on which a capability once disagreed with its reference: regressions.
FIXED_BUGS = {"kinks": (ta.EpsDelta(0, 0), ta.EpsDelta(2, 0)), "loss": (G(0),)}


@pytest.mark.parametrize("f", FIXED_BUGS["kinks"], ids=str)
def test_epsdelta_kinks_are_interior_jumps(f):
    """kinks of EpsDelta listed 1 (not in (0, 1)) when delta = 0, and 1/2 for EpsDelta(0, 0) =
    Id, where f is linear."""
    with workdps(DPS + 10):
        ks = cap.kinks(f)
        assert all(0 < k < 1 for k in ks)
        if ks:  # (Id has none)
            CHECKS["kinks"](f)


@pytest.mark.parametrize("f", FIXED_BUGS["loss"], ids=str)
def test_gaussian_loss_declares_its_law_at_mu_0(f):
    """G_0's loss offers every view the Gaussian family declares (its law: N(0, 0), M = 1)."""
    with workdps(DPS + 10):
        CHECKS["loss"](f)


# -- beside the table: inverse, end points, parsing ----------------------------------------------
def _swapped(ref):
    """The reference of T(Q, P) = T(P, Q)^{-1} (Dong, Roth & Su, Eq. (3))."""
    if ref.sym:
        return ref
    if isinstance(ref, PairRef):  # (q/p monotone makes p/q monotone the other way)
        return PairRef(ref.Q, ref.P, sym=ref.sym)
    if isinstance(ref, Finite):
        return ref_inverse(ref)  # the pair reversed
    return None  # a curve-only reference (RenyiRegion, symmetric=False): no second route here


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_inverse_is_the_swapped_pair(cls, full):
    """On the chosen samples with a second route (the rest up to one, when none has)."""
    first, rest = chosen(cls, None, full)
    checked = 0
    for f in first + rest:
        if checked and f in rest:
            break
        ref = _swapped(reference(f))
        if ref is None:
            continue
        for A in (R(1, 10), R(1, 2), R(4, 5)):
            v = ta.evaluate(f.inverse(), A, dps=20)
            with workdps(DPS + 10):
                assert close(v.mid, R_.value(ref, A), 1e-15), (f, A)
        checked += 1
    assert checked, f"{cls.__name__}: no sample with a reference of the swapped pair"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_end_points(cls, full):
    for f in chosen(cls, None, full)[0]:
        ref = reference(f)
        with workdps(DPS + 10):
            assert close(ta.evaluate(f, 0, dps=20).mid, R_.value(ref, mpmath.mpf(0)), 1e-15)
            assert ta.evaluate(f, 1, dps=20).mid == 0


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_parse_round_trip(cls):
    """The printed form parses back to the same node (tradeoff_algebra/parse.py)."""
    for f in samples(cls):
        assert parse_expr(str(f)) == f, str(f)


# -- G_mu and L_mu against their threshold tests (one parametrised suite) -----------------------
REF_DPS = 70

#: (constructor, the Neyman-Pearson threshold test of tests/reference_np.py, parameters, levels)
CLOSED = {
    "G": (G, gauss_np, [0, R(1, 10), 0.1, 1, 3, 10, R(7, 3), sp.sqrt(2)],
          ["1e-300", R(1, 10**50), R(1, 10**10), R(1, 3), R(1, 2), "0.75",
           1 - R(1, 10**15), 1 - R(1, 10**20)]),
    "Laplace": (Laplace, laplace_np, [0, R(1, 10), 1, 3, 10, sp.log(2), sp.sqrt(3)],
                ["1e-300", R(1, 10**10), R(1, 100), R(1, 3), R(1, 2), "0.75",
                 1 - R(1, 10**15)]),
}

#: The fixed point alpha = f(alpha) in closed form (G: Phi(-mu/2); L: e^{-mu/2}/2).
FIXED = {"G": lambda mu: Phi(-sp.sympify(mu) / 2),
         "Laplace": lambda mu: sp.exp(-sp.sympify(mu) / 2) / 2}


def _mpf(x):
    """A parameter as the reference sees it (a float is its exact binary value)."""
    if isinstance(x, float):
        return mp.mpf(x)
    return mp.mpf(sp.Float(sp.N(x, REF_DPS + 10), REF_DPS + 10)._mpf_)


def _ref(fam, mu, alpha, roc=False):
    with workdps(REF_DPS):
        return CLOSED[fam][1](_mpf(mu), alpha, roc=roc)


def _assert_digits(value, ref, need):
    with workdps(REF_DPS):
        d = digits(value, ref)
    assert d >= need, f"{value} vs {ref}: {d:.1f} digits"


VALUE_CASES = [(fam, mu, a) for fam, (_, _, mus, alphas) in CLOSED.items()
               for mu in mus for a in alphas]


@pytest.mark.parametrize("fam,mu,alpha", VALUE_CASES, ids=str)
def test_value_and_roc_against_the_threshold_test(fam, mu, alpha):
    f = CLOSED[fam][0](mu)
    v = ta.evaluate(f, alpha, dps=45)
    if fam == "G" and mu != 0:
        assert v.is_point and v.exact is None
    elif fam == "G":  # G_0 = Id: 1 - alpha exactly (the reference below checks its digits)
        assert v.exact is not None
    _assert_digits(v.mid, _ref(fam, mu, alpha), 44)
    _assert_digits(ta.roc(f, alpha, dps=45).mid, _ref(fam, mu, alpha, roc=True), 44)


@pytest.mark.parametrize("fam,mu,alpha", [
    ("G", 1, R(1, 3)), ("G", 3, R(1, 10**20)), ("G", R(1, 2), "1e-300"),
    ("G", 10, 1 - R(1, 10**20)), ("G", sp.sqrt(2), R(9, 10)),
    ("Laplace", 1, R(1, 10)), ("Laplace", 1, R(1, 3)), ("Laplace", 1, R(3, 4)),
    ("Laplace", 3, R(1, 100)), ("Laplace", R(1, 2), R(1, 5))])
def test_sympy_closed_form_agrees(fam, mu, alpha):
    cls = CLOSED[fam][0]
    m, a = sp.Symbol("mu", nonnegative=True), sp.Symbol("a")
    A = sp.Rational(alpha)
    expr = cls(m)(a)
    if fam == "G":
        assert expr == Phi(ta.PhiInv(1 - a) - m)
    closed = expr.subs({m: mu, a: A})
    n50 = sp.N(closed, 50)
    _assert_digits(mp.make_mpf(n50._mpf_), ta.evaluate(cls(mu), A, dps=50).mid, 47)
    assert sp.N(cls(mu)(A), 50) == n50  # the numeric node gives the same closed form


@pytest.mark.parametrize("fam,mu,alpha", [
    ("G", 1, R(1, 3)), ("G", 3, R(1, 100)), ("G", R(1, 2), R(9, 10)), ("G", 10, R(1, 2)),
    ("Laplace", 1, R(1, 10)), ("Laplace", 1, R(1, 3)), ("Laplace", 1, R(3, 4)),
    ("Laplace", 3, R(1, 100))])
def test_derivative_against_numeric_differentiation(fam, mu, alpha):
    cls, np_ref = CLOSED[fam][:2]
    d = cls(mu).derivative(alpha)
    with workdps(35):
        ref = mpmath.diff(lambda x: np_ref(mp.mpf(mu), x), mp.mpf(alpha.p) / alpha.q)
    _assert_digits(mp.make_mpf(sp.N(d, 40)._mpf_), ref, 30)
    x = sp.Symbol("x")  # the symbolic form differentiates the closed form
    by_diff = sp.diff(cls(mu)(x), x).subs(x, alpha)
    _assert_digits(mp.make_mpf(sp.N(by_diff, 40)._mpf_), ref, 30)


@pytest.mark.parametrize("fam,mu", [(fam, mu) for fam in CLOSED
                                    for mu in [0, R(1, 10), 1, 3, 10]]
                         + [("G", sp.sqrt(2))])
def test_fixed_point(fam, mu):
    fp = CLOSED[fam][0](mu).fixed_point()
    assert fp == FIXED[fam](mu) if fam == "G" else sp.simplify(fp - FIXED[fam](mu)) == 0
    x = mp.make_mpf(sp.N(fp, 60)._mpf_)
    _assert_digits(ta.evaluate(CLOSED[fam][0](mu), fp, dps=45).mid, x, 40)
    with workdps(REF_DPS):
        _assert_digits(CLOSED[fam][1](_mpf(mu), x), x, 40)


@pytest.mark.parametrize("fam", list(CLOSED))
@pytest.mark.parametrize("mu", [R(1, 2), 1, 3])
@pytest.mark.parametrize("alpha", [R(1, 10**10), R(1, 10), R(1, 3), R(1, 2), R(9, 10)])
def test_inverse(fam, mu, alpha):
    f = CLOSED[fam][0](mu)
    assert f.is_symmetric
    inv = f.inverse()
    if fam == "G":
        assert isinstance(inv, ta.Inverse) and inv.arg == f
    assert inv(alpha) == f(alpha)
    assert ta.evaluate(inv, alpha, dps=40).mid == ta.evaluate(f, alpha, dps=40).mid
    y = ta.evaluate(f, alpha, dps=70).mid  # f^{-1}(f(a)) = a where f is strictly decreasing
    with workdps(70):
        _assert_digits(ta.evaluate(inv, y, dps=45).mid, mp.mpf(alpha.p) / alpha.q, 40)


@pytest.mark.parametrize("fam", list(CLOSED))
def test_decreasing_in_mu(fam):
    """G_mu and L_mu are pointwise decreasing in mu (Dong, Roth & Su, below Eq. (5))."""
    for alpha in [R(1, 10**6), R(1, 3), R(9, 10)]:
        vals = [ta.evaluate(CLOSED[fam][0](mu), alpha, dps=30).mid for mu in [0, R(1, 2), 1, 2, 5]]
        assert all(a > b for a, b in zip(vals, vals[1:], strict=False))
