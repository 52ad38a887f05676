"""No result depends on mpmath's global precision, and no call changes it.

The library computes in private per-thread contexts (``numeric/context.py``); the endpoints of
a :class:`Value` are mpf numbers of mpmath's *global* context, which compute at the global
precision. Any arithmetic on them before they are converted into the working context leaks the
user's ``mpmath.mp.prec`` into the result. The reference here is the same call at the default
global precision (53 bits): with the global precision at 8 bits a leak changes the result
from about its third digit, and at 500 bits from its 16th, so requiring identical ``lo``,
``hi``, ``mid`` and guarantee at all three precisions is sharp. Caches of the library are
emptied before each run (a cached result would otherwise hide a leak of its computation).
Every call must also leave ``mpmath.mp.prec`` as it found it.
"""

from __future__ import annotations

import contextlib
import gc
import io
import sys

import mpmath
import pytest
import sympy as sp
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra.cli import main
from tradeoff_algebra.core.trace import Memo
from tradeoff_algebra.numeric.context import MPF, ThreadCache

PRECISIONS = (8, 500)


def clear_caches() -> None:
    """Empty every cache of the library: lru caches of its functions (those with
    ``cache_clear``), the node memos and the per-thread caches."""
    for name, mod in list(sys.modules.items()):
        if not name.startswith("tradeoff_algebra") or mod is None:
            continue
        for obj in list(vars(mod).values()):
            clear = getattr(obj, "cache_clear", None)
            if callable(clear):
                clear()
            elif isinstance(obj, (Memo, ThreadCache)):
                obj.clear()
    if not _HELD:  # (memos held by classes and closures: found once, gc's scan is slow)
        _HELD.extend(o for o in gc.get_objects() if isinstance(o, (Memo, ThreadCache)))
    for obj in _HELD:
        obj.clear()


_HELD: list = []


def fields(x):
    """What must not change: every Value's (lo, hi, mid, guarantee, dps) and its printed
    forms (``str``, ``text``, ``format``: mpf's own ``repr`` follows the global precision by
    design), found inside tuples, lists and dicts and on the public attributes of result
    objects."""
    if isinstance(x, ta.Value):
        return ("Value", x.lo._mpf_, x.hi._mpf_, x.mid._mpf_, x.guarantee, x.dps, str(x),
                x.text(8), f"{x:.5g}")
    if isinstance(x, (tuple, list)):
        return tuple(fields(y) for y in x)
    if isinstance(x, dict):
        return tuple(sorted((str(k), fields(v)) for k, v in x.items()))
    if isinstance(x, MPF):  # (repr would print at the global precision)
        return x._mpf_
    if isinstance(x, float):
        return repr(x)
    if isinstance(x, (sp.Basic, str, int, bool)) or x is None:
        return str(x)
    if hasattr(x, "__dict__"):
        return tuple(sorted((k, fields(v)) for k, v in vars(x).items()
                            if not k.startswith("_") and not callable(v)
                            and k != "seconds"))  # (the time a verdict took)
    return str(x)


def at_global_prec(prec: int | None, call):
    """``call()`` with ``mpmath.mp.prec`` set to ``prec`` (None: mpmath's default, 53), the caches
    emptied first; the global precision restored afterwards, and required unchanged by
    the call."""
    saved = mpmath.mp.prec
    try:
        mpmath.mp.prec = 53 if prec is None else prec
        before = mpmath.mp.prec
        clear_caches()
        out = call()
        assert mpmath.mp.prec == before, "the call changed mpmath's global precision"
        return fields(out)
    finally:
        mpmath.mp.prec = saved


def check(call) -> None:
    ref = at_global_prec(None, call)
    for prec in PRECISIONS:
        got = at_global_prec(prec, call)
        assert got == ref, f"the result changed with mpmath.mp.prec = {prec}"


G, L, ED = ta.G, ta.Laplace, ta.EpsDelta
D5 = R(1, 10**5)
X = sp.Symbol("x", positive=True)

CASES = {
    # values, powers, profiles of the main families
    "evaluate G": lambda: ta.evaluate(G(1), R(1, 10), dps=20),
    "roc G": lambda: ta.roc(G(1), R(1, 10), dps=20),
    "evaluate Laplace": lambda: ta.evaluate(L(1), R(1, 10), dps=20),
    "evaluate EpsDelta": lambda: ta.evaluate(ED(1, R(1, 100)), R(1, 10), dps=20),
    "delta G": lambda: ta.delta(G(1), 1, dps=20),
    "epsilon G": lambda: ta.epsilon(G(1), D5, dps=20),
    "delta Laplace": lambda: ta.delta(L(1), R(1, 2), dps=20),
    "epsilon Laplace": lambda: ta.epsilon(L(1), R(1, 10), dps=20),
    "evaluate DiscreteGaussian": lambda: ta.evaluate(ta.DiscreteGaussian(1, 2), R(1, 10), dps=15),
    "delta DiscreteLaplace": lambda: ta.delta(ta.DiscreteLaplace(1, 1), R(1, 2), dps=15),
    "evaluate BinomialDP": lambda: ta.evaluate(ta.BinomialDP(R(1, 2), 10), R(1, 10), dps=15),
    "evaluate NormalPair": lambda: ta.evaluate(ta.NormalPair(0, 1, 1, 2), R(1, 10), dps=15),
    "delta ShuffleDP": lambda: ta.delta(ta.ShuffleDP(1, 100), 1, dps=10),
    "evaluate Skellam": lambda: ta.evaluate(ta.Skellam(1, 5), R(1, 10), dps=10),
    "evaluate PiecewiseLinear": lambda: ta.evaluate(
        ta.PiecewiseLinear([(0, 1), (R(1, 2), R(1, 4)), (1, 0)]), R(1, 10), dps=10),
    "delta BoundedRange": lambda: ta.delta(ta.BoundedRange(1), R(1, 2), dps=10),
    "evaluate Discrete": lambda: ta.evaluate(
        ta.Discrete([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)]), R(1, 10), dps=10),
    "evaluate PoissonReplace": lambda: ta.evaluate(ta.PoissonReplace(1, R(1, 10)), R(1, 10),
                                                   dps=10),
    "evaluate GaussianMixturePair": lambda: ta.evaluate(
        ta.GaussianMixturePair([R(1, 2), R(1, 2)], [0, 1], [1, 2]), R(1, 10), dps=10),
    "delta report_noisy_max": lambda: ta.delta(ta.report_noisy_max(1, 3), R(1, 2), dps=10),
    # operators
    "evaluate Symmetrize": lambda: ta.evaluate(ta.Symmetrize(ED(1, R(1, 10))), R(1, 10),
                                               dps=10),
    "evaluate SymmetricHull": lambda: ta.evaluate(ta.SymmetricHull(ta.Mix(G(1), R(1, 2))),
                                                  R(1, 10), dps=10),
    "evaluate Group": lambda: ta.evaluate(ta.Group(G(1), 3), R(1, 10), dps=10),
    "evaluate Subsample": lambda: ta.evaluate(ta.Subsample(G(1), R(1, 10)), R(1, 10), dps=10),
    "delta DiscreteGaussian power": lambda: ta.delta(ta.DiscreteGaussian(1, 2) ** 5, 1, dps=8),
    "delta randomized response power": lambda: ta.delta(
        ta.randomized_response(sp.log(3)) ** 20, 1, dps=8),
    "evaluate RenyiRegion": lambda: ta.evaluate(ta.RenyiRegion({2: R(1, 2)}), R(1, 10),
                                                dps=10),
    "evaluate tensor": lambda: ta.evaluate(G(1) @ L(1), R(1, 10), dps=15),
    "evaluate power": lambda: ta.evaluate(ED(R(1, 10), 0) ** 5, R(1, 10), dps=15),
    "evaluate C_p": lambda: ta.evaluate(ta.C(R(1, 10), G(1)), R(1, 10), dps=15),
    "delta C_p": lambda: ta.delta(ta.C(R(1, 10), G(1)), R(1, 2), dps=15),
    "evaluate Inverse": lambda: ta.evaluate(ta.Inverse(ED(1, R(1, 10))), R(1, 10), dps=15),
    "evaluate Mix": lambda: ta.evaluate(ta.Mix(G(1), R(1, 2)), R(1, 10), dps=15),
    "evaluate Max": lambda: ta.evaluate(ta.Max(G(1), L(1)), R(1, 10), dps=15),
    "Value arithmetic": lambda: [op(ta.delta(G(1), 1, dps=20)) for op in (
        lambda v: 3 * v, lambda v: 1 - v, lambda v: v.exp(), lambda v: v.log(),
        lambda v: v / 7, lambda v: abs(v - ta.delta(G(1), 1, dps=15)))],
    "conjugate": lambda: ta.conjugate_value(G(1), R(-1, 2), dps=15),
    "curve": lambda: ta.curve(G(1), [R(1, 10), R(1, 2)]),
    # functionals, with and without estimate
    "renyi G": lambda: ta.renyi(G(1), 2, dps=20),
    "renyi C_p estimate": lambda: ta.renyi(ta.C(R(1, 20), G(R(9, 10))), 2, dps=30,
                                           estimate=True),
    "renyi Laplace order 1/2": lambda: ta.renyi(L(1), R(1, 2), dps=20),
    "kl C_p estimate": lambda: ta.kl(ta.C(R(1, 10), G(1)), dps=15, estimate=True),
    "renyi Mix estimate": lambda: ta.renyi(ta.Mix(G(1), R(1, 3)), 3, dps=15, estimate=True),
    "tv Laplace": lambda: ta.tv(L(1), dps=15),
    "chi2_plus": lambda: ta.chi2_plus(L(1), dps=10),
    "kl Laplace": lambda: ta.kl(L(1), dps=20),
    "tv C_p estimate": lambda: ta.tv(ta.C(R(1, 10), G(1)), dps=15, estimate=True),
    "kappa2 estimate": lambda: ta.kappa2(ta.C(R(1, 10), G(1)), dps=15, estimate=True),
    "auc": lambda: ta.auc(L(1), dps=15),
    "hockey_stick": lambda: ta.hockey_stick(G(1), 2, dps=15),
    "advantage": lambda: ta.advantage(G(1), dps=15),
    "bayes_risk": lambda: ta.bayes_risk(L(1), R(1, 3), dps=15),
    "fixed_point": lambda: ta.fixed_point(ta.C(R(1, 10), G(1)), dps=15),
    "sup_distance": lambda: ta.sup_distance(G(1), L(1), dps=8),
    "primal_value": lambda: ta.primal_value(G(1), R(1, 10), dps=10),
    "kappa3": lambda: ta.kappa3(L(1), dps=10),
    "calibrate": lambda: ta.calibrate(lambda s: ta.gaussian_mechanism(1, s), epsilon=1,
                                      delta=D5, dps=8),
    # notions and conversions
    "ApproxDP group": lambda: ta.delta(ta.Group(ED(1, R(1, 100)), 2), 2, dps=15),
    "GDP epsilon": lambda: ta.GDP(1).epsilon(D5, dps=15),
    "GDP delta": lambda: ta.GDP(1).delta(1, dps=15),
    "tCDP epsilon": lambda: ta.tCDP(R(1, 10), 5).epsilon(D5, dps=10),
    "zCDP epsilon": lambda: ta.zCDP(R(1, 2)).epsilon(D5, dps=15),
    "RDP epsilon": lambda: ta.RDP({a: R(a, 2) for a in (2, 3, 4)}).epsilon(D5, dps=15),
    "gaussian_sigma": lambda: ta.gaussian_sigma(1, 1, D5),
    # claims
    "verify pointwise": lambda: ta.verify(G(1), ">=", G(2)),
    "verify over a box": lambda: ta.verify(G(X), ">=", G(2 * X), over={X: (R(1, 2), 2)}),
    "is_tradeoff": lambda: ta.is_tradeoff((1 - sp.Symbol("alpha")) ** 2),
    "verify member": lambda: ta.is_member(L(1), "gdp"),
}



def cli(*argv: str) -> tuple:
    """The exit code and the printed text of the ``tradeoff`` command."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


CASES.update({
    "cli eval": lambda: cli("eval", "G(1) @ G(2)", "0.05", "--dps", "25"),
    "cli roc": lambda: cli("roc", "laplace_mechanism(1, 1)", "1e-10", "--dps", "20"),
    "cli delta": lambda: cli("delta", "G(1)", "5", "--dps", "25"),
    "cli eps": lambda: cli("eps", "G(1)", "1e-5", "--dps", "20"),
    "cli gdp": lambda: cli("gdp", "EpsDelta(1, 0)", "--dps", "15"),
    "cli fixed": lambda: cli("fixed", "G(1)"),
    "cli renyi": lambda: cli("renyi", "C(1/20, G(9/10))", "2"),
    "cli verify": lambda: cli("verify", "G(1)", ">=", "G(2)"),
})


@pytest.mark.parametrize("name", sorted(CASES))
def test_result_is_independent_of_global_precision(name):
    check(CASES[name])


#: Wider and slower: powers by the Laplace inversion, the optimal RDP conversion, the
#: Berry-Esseen bound, a power's curve, the PLD composition of DP-SGD, the certified GDP
#: parameter, the accountant.
SLOW_CASES = {
    "epsilon Laplace power": lambda: ta.epsilon(L(1) ** 10, D5, dps=8),
    "delta C_p power": lambda: ta.delta(ta.C(R(1, 100), G(1)) ** 10, 1, dps=8),
    "delta Laplace power": lambda: ta.delta(L(1) ** 10, 1, dps=8),
    "RDP delta optimal": lambda: ta.RDP({a: R(a, 2) for a in (2, 4)}).delta(
        5, method="optimal", dps=12),
    "Berry-Esseen": lambda: ta.evaluate(ta.berry_esseen(L(1), 10).lower, R(1, 10), dps=10),
    "curve of a power": lambda: ta.curve(ta.C(R(1, 10), G(1)) ** 3, [R(1, 10)]),
    "noisy_sgd epsilon": lambda: ta.epsilon(ta.noisy_sgd(1, R(1, 100), 3), D5, dps=8),
    "gdp_mu": lambda: ta.gdp_mu(L(1), dps=8),
    "accountant": lambda: ta.Accountant().compose(ta.gaussian_mechanism(1, 2)).epsilon(D5),
    "cli eps of DP-SGD": lambda: cli("eps", "noisy_sgd(1, 1/100, 3)", "1e-5", "--dps", "8"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW_CASES))
def test_slow_result_is_independent_of_global_precision(name):
    check(SLOW_CASES[name])


def test_digits_of_a_point_from_a_ball_do_not_depend_on_global_precision():
    # value_arith._as_point picks the digits of a point from (hi - lo) / |mid|; on the global
    # mpf endpoints that ratio rounded at the global precision, and at 8 bits a relative
    # width just above 1e-10 gave 11 digits where 53 bits give 10 (found by this test)
    from tradeoff_algebra.numeric.value import Value
    from tradeoff_algebra.numeric.value_arith import _as_point

    with mpmath.workprec(200):
        cells = []
        for k in range(-6, 7):
            h = mpmath.mpf("0.5e-10") * (1 + mpmath.mpf(k) / 4096)
            cells.append((1 - h, 1 + h, mpmath.mpf(1)))
    ref = [at_global_prec(None, lambda c=c: _as_point(Value, *c, 15, "certified"))
           for c in cells]
    assert {r[0] for r in ref} == {"Value"} and len({r[5] for r in ref}) == 2  # 10 and 11 digits
    for prec in PRECISIONS:
        got = [at_global_prec(prec, lambda c=c: _as_point(Value, *c, 15, "certified"))
               for c in cells]
        assert got == ref
