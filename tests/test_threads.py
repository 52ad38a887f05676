"""Concurrent callers get exactly the sequential results, and mpmath's global context is never
touched (every computation works in its thread's private context, numeric/context.py).

The last part runs every public function (:func:`_api_cases`: each route, several dps) in
threads, from cold caches and from caches another thread filled, against a sequential run in a
fresh interpreter, while a further thread keeps changing mpmath's global precision (as SymPy
code in other threads does: ``nsimplify`` sets ``mpmath.mp.dps``): lo, hi and the guarantee must
agree exactly. Environment: TA_THREADS_LONG=1 for the larger variant (more digits, heavier
cases, more rounds), TA_THREADS_ROUNDS (threaded rounds after the cold one, default 1)."""

from __future__ import annotations

import dataclasses
import os
import pickle
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import EpsDelta, G, Laplace, ShuffleDP

R = sp.Rational
CASES = [(G(1), R(1, 10**5)), (EpsDelta(1, R(1, 10)), R(1, 5)), (Laplace(1), R(1, 10**3))]
LEVELS = ["0.05", "0.5", "1e-20", 1 - R(1, 10**20)]
DPS = [15, 30, 50, 80]


def _work(dps: int) -> list:
    out = []
    for f, delta in CASES:
        for a in LEVELS:
            v = ta.evaluate(f, a, dps=dps)
            r = ta.roc(f, a, dps=dps)
            out += [(v.lo, v.hi), (r.lo, r.hi)]
        d = ta.delta(f, 1, dps=dps)
        e = ta.epsilon(f, delta, dps=dps)
        out += [(d.lo, d.hi), (e.lo, e.hi)]
    s = ta.evaluate(ShuffleDP(2, 30), R(1, 7), dps=dps)  # Arb (python-flint) precision too
    out.append((s.lo, s.hi))
    return out


def test_threads_at_different_dps_reproduce_the_sequential_results():
    sequential = {d: _work(d) for d in DPS}
    before = (mpmath.mp.prec, mpmath.mp.dps)
    failures: list = []

    def run(d: int) -> None:
        try:
            for _ in range(3):
                if _work(d) != sequential[d]:
                    failures.append(f"dps={d}: results differ from the sequential ones")
        except Exception as exc:  # pragma: no cover - reported below
            failures.append(f"dps={d}: {exc!r}")

    threads = [threading.Thread(target=run, args=(d,)) for d in DPS]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert (mpmath.mp.prec, mpmath.mp.dps) == before


def test_the_global_mpmath_precision_is_neither_read_nor_written():
    with mpmath.workdps(5):  # a user's own low global precision must not leak in
        v = ta.evaluate(G(1), "0.05", dps=40)
        assert mpmath.mp.dps == 5
    with mpmath.workdps(40):
        ref = mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf("0.05") - 1) - 1)
        assert abs(v.mid - ref) <= mpmath.mpf(10) ** -39 * ref
    assert type(v.mid) is mpmath.mpf  # values come back in the public mpf class


def test_pld_and_profile_options_are_private_to_the_thread():
    """``with pld_options(...)`` / ``profile_options(...)`` in one thread leave the options
    another thread computes with at their defaults."""
    from tradeoff_algebra.numeric import pld, pld_profile

    default_pld, default_prof = pld.options(), dict(pld_profile._OPTIONS)
    inside, seen = threading.Event(), {}

    def setter() -> None:
        with ta.pld_options(tol=1e-6, tail=1e-30), ta.profile_options(max_calls=99):
            seen["setter"] = (pld.options(), dict(pld_profile._OPTIONS))
            inside.set()
            release.wait(10)

    def reader() -> None:
        inside.wait(10)
        seen["reader"] = (pld.options(), dict(pld_profile._OPTIONS))

    release = threading.Event()
    threads = [threading.Thread(target=setter), threading.Thread(target=reader)]
    for t in threads:
        t.start()
    threads[1].join()
    release.set()
    threads[0].join()
    assert seen["setter"][0]["tol"] == 1e-6 and seen["setter"][1]["max_calls"] == 99
    assert seen["reader"] == (default_pld, default_prof)
    assert (pld.options(), dict(pld_profile._OPTIONS)) == (default_pld, default_prof)


def _binomial_roc_reference(eps: int, n: int, alpha: str, dps: int):
    """1 - f(alpha) of BinomialDP(eps, n) for alpha <= P(K >= n) = (1 + e^eps)^-n: the first
    linear piece, alpha e^{n eps} (Dong, Roth & Su, Prop. 5), at twice the digits."""
    with mpmath.workdps(2 * dps + 20):
        assert mpmath.mpf(alpha) <= (1 + mpmath.e**eps) ** -n
        return mpmath.mpf(alpha) * mpmath.exp(n * eps)


def test_cached_numbers_are_not_shared_between_threads():
    """An mpf computes at the precision of the context that made it: a table of mpf cached by
    one thread and read by another was summed at the first thread's idle 53 bits (roc of
    BinomialDP(1, 50) at 1e-300 came back 6e-17 off in worker threads after the main thread
    had filled the cache). The tables are kept per thread."""
    from concurrent.futures import ThreadPoolExecutor

    from tradeoff_algebra import BinomialDP

    f, dps_list = BinomialDP(1, 50), list(range(20, 81, 5))
    big = BinomialDP(R(1, 10), 5000)  # the tails of large n (a cached object holding mpf)
    sequential = {d: ta.roc(f, "1e-300", dps=d) for d in dps_list}
    seq_big = {d: ta.evaluate(big, "1e-5", dps=d) for d in dps_list[:4]}
    for d, v in sequential.items():  # the first linear piece, computed independently
        ref = _binomial_roc_reference(1, 50, "1e-300", d)
        with mpmath.workdps(2 * d + 20):
            assert abs(mpmath.mpf(v.mid) - ref) <= mpmath.mpf(10) ** (1 - d) * ref

    def one(d: int):
        return ta.roc(f, "1e-300", dps=d), (ta.evaluate(big, "1e-5", dps=d)
                                            if d in seq_big else None)

    with ThreadPoolExecutor(max_workers=6) as ex:
        results = list(ex.map(one, dps_list))
    for d, (v, w) in zip(dps_list, results, strict=True):
        assert (v.lo, v.hi) == (sequential[d].lo, sequential[d].hi), d
        if w is not None:
            assert (w.lo, w.hi) == (seq_big[d].lo, seq_big[d].hi), d


def test_lambdified_functions_compute_in_the_thread_context():
    """f_divergence's quadrature estimate lambdified F with the 'mpmath' module: mpmath.log
    of the global context, at 53 bits, so KL(G(1)) = mu^2/2 = 1/2 came back as
    [0.50000000000000000049, 0.5000000000000000025] at 30 digits (and followed the user's
    global precision). Reference: the closed form 1/2."""
    from tradeoff_algebra.analysis.divergences import f_divergence

    out = {}

    def run():
        out["v"] = f_divergence(G(1), lambda t: t * sp.log(t), dps=30, estimate=True)

    with mpmath.workdps(8):  # a user's low global precision must not leak in
        t = threading.Thread(target=run)
        t.start()
        t.join()
        v = f_divergence(G(1), lambda t: t * sp.log(t), dps=30, estimate=True)
    for w in (v, out["v"]):
        assert w.lo <= sp.Rational(1, 2) <= w.hi
        assert w.hi - w.lo <= sp.Rational(1, 10**25)



def test_a_profile_factor_built_by_several_threads_at_once_is_the_sequential_one():
    """Three threads ask at once for delta of a product whose factor Max(G_1, L_1) has no loss
    model (the PLD engine composes its certified profile, numeric/pld_profile.py) under a
    budget of 30 enclosures. The builds shared one cache of node enclosures and charged each
    other's enclosures (and seconds) to their own budget, so each stopped early with another
    model: delta(1/2) came back as [0.37243215708938565, 0.37254420673872396] instead of
    [0.37243218226269842, 0.37254420673456839] (with the default budget and three dps). A build
    after another one (another budget or tail level) found the enclosures cached, charged
    nothing for them and refined further. And the law composed from one budget's model was
    cached for every budget.
    Now a build counts the enclosures it uses, cached or not, and one source is built by one
    thread at a time."""
    from tradeoff_algebra.numeric import pld, pld_profile

    f = ta.Tensor(ta.Max(G(1), Laplace(1)), G(1))
    half = sp.Rational(1, 2)

    def cold() -> None:  # (the caches of the engine and of the profiles)
        pld._CACHE.clear()
        pld_profile._MODELS.clear()
        pld_profile._SOURCES.clear()

    def one(d: int):
        with ta.profile_options(max_calls=30):
            v = ta.delta(f, half, dps=d)
        return v.lo, v.hi, v.guarantee

    cold()
    expected = one(15)
    assert pld_profile._MODELS  # (the route did build a profile)
    pld._CACHE.clear()
    pld_profile._MODELS.clear()  # (the node enclosures stay cached)
    assert one(15) == expected  # still the model built from nothing
    # the composed law is cached per profile options too (another budget read this one's)
    with ta.profile_options(max_calls=40):
        other = ta.delta(f, half, dps=15)
    assert other.hi - other.lo < expected[1] - expected[0]
    assert one(15) == expected
    cold()
    start = threading.Barrier(3)

    def run(d: int):
        start.wait()
        return one(d)

    with ThreadPoolExecutor(3) as ex:
        got = list(ex.map(run, (15, 30, 50)))
    assert got == [expected] * 3


# -- every public function, in threads ------------------------------------------------------------
LONG = os.environ.get("TA_THREADS_LONG") == "1"
API_DPS = [15, 30, 50, 80] if LONG else [15, 40]
ROUNDS = int(os.environ.get("TA_THREADS_ROUNDS", "3" if LONG else "1"))
WORKERS = 6


def _key(x) -> object:
    """A comparable, picklable form of a result: mpf by their exact ``_mpf_`` (lo, hi), the
    guarantee and exact value of a Value, floats by their bits, SymPy by ``srepr``, dataclasses
    by their fields (not ``seconds``), a matplotlib Axes by its drawn data."""
    if isinstance(x, ta.Value):
        return ("Value", _key(x.lo), _key(x.hi), x.guarantee, _key(x.exact))
    if hasattr(x, "_mpf_"):
        return ("mpf", x._mpf_)
    if isinstance(x, np.ndarray):
        return ("array", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, float):
        return ("float", x.hex())
    if isinstance(x, (list, tuple)):
        return tuple(_key(y) for y in x)
    if isinstance(x, dict):
        return tuple(sorted((str(k), _key(v)) for k, v in x.items()))
    if isinstance(x, sp.Basic):
        return ("sympy", sp.srepr(x))
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__,) + tuple(
            _key(getattr(x, f.name)) for f in dataclasses.fields(x) if f.name != "seconds")
    if callable(x) and hasattr(x, "__qualname__"):  # (a rule's function, not its address)
        return ("function", x.__module__, x.__qualname__)
    if hasattr(x, "get_lines"):  # a matplotlib Axes
        return ("axes", tuple(_key(ln.get_xydata()) for ln in x.get_lines()),
                tuple(_key(p.vertices) for c in x.collections for p in c.get_paths()))
    return ("repr", repr(x))


def _axes():
    from matplotlib.figure import Figure  # (no pyplot: its state is not thread-safe)

    return Figure().add_subplot()


def _event(name: str, **fields):
    """A stand-in dp_accounting event (``from_dp_event`` reads class names and fields)."""
    return type(name, (), fields)()


def _accountant() -> float:
    from tradeoff_algebra.opacus_accountant import TradeoffAccountant

    acc = TradeoffAccountant()
    for _ in range(20):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    return acc.get_epsilon(1e-5)


def _with(options, call: Callable[[], object]) -> object:
    """``call()`` under the (thread-private) options context ``options``."""
    with options:
        return call()


def _api_cases() -> dict[str, Callable[[], object]]:
    """name -> call: every public numeric function on small inputs, one or more per route
    (closed forms and Arb balls, finite laws and their tables, Arb integrals, PLD products with
    and without certified profile factors, subsampling, mixtures, groups, hulls, inverses,
    functionals, conversions, notions, calibration, curves and plots, accountants), at each of
    ``API_DPS`` where the function takes digits."""
    R = sp.Rational
    sgd = ta.noisy_sgd(1, R(1, 100), 50, sampling="gdp_paper")
    # a factor without a loss model: the PLD engine composes its certified profile
    # (numeric/pld_profile.py; its node enclosures are cached per function and shared)
    prof = ta.Tensor(ta.Max(EpsDelta(R(1, 2), R(1, 10)), Laplace(1)), G(1))
    budgeted = ta.Tensor(ta.Max(G(1), Laplace(1)), G(1))  # (its profile needs > 30 nodes)
    pl = ta.PiecewiseLinear([(0, 1), (R(1, 4), R(1, 3)), (R(1, 2), R(1, 8)), (1, 0)])
    dis = ta.Discrete([R(1, 2), R(1, 2)], [R(1, 3), R(2, 3)])
    out: dict[str, Callable[[], object]] = {}
    for d in API_DPS:
        out.update({f"{k} @{d}": v for k, v in {
            # closed forms (Arb balls, certified points)
            "evaluate G": lambda d=d: ta.evaluate(G(1), "0.05", dps=d),
            "roc G tail": lambda d=d: ta.roc(G(R(3, 2)), "1e-20", dps=d),
            "evaluate Laplace near 1": lambda d=d: ta.evaluate(Laplace(1), 1 - R(1, 10**20),
                                                               dps=d),
            "delta G": lambda d=d: ta.delta(G(1), 1, dps=d),
            "epsilon G": lambda d=d: ta.epsilon(G(1), R(1, 10**5), dps=d),
            "epsilon EpsDelta": lambda d=d: ta.epsilon(EpsDelta(1, R(1, 10)), R(1, 5), dps=d),
            "hockey_stick": lambda d=d: ta.hockey_stick(G(1), 3, dps=d),
            "conjugate_value": lambda d=d: ta.conjugate_value(Laplace(1), -2, d),
            # finite laws (exact tables, Arb masses, mpmath tables per working precision)
            "evaluate BinomialDP large n": lambda d=d: ta.evaluate(ta.BinomialDP(R(1, 10), 5000),
                                                                   "1e-5", dps=d),
            "delta BinomialDP": lambda d=d: ta.delta(ta.BinomialDP(1, 20), R(1, 2), dps=d),
            "epsilon BinomialDP": lambda d=d: ta.epsilon(ta.BinomialDP(1, 20), R(1, 10**5),
                                                         dps=d),
            "epsilon EpsDelta^5": lambda d=d: ta.epsilon(EpsDelta(1, R(1, 100))**5, R(1, 10**5),
                                                         dps=d),
            "evaluate EpsDelta^5": lambda d=d: ta.evaluate(EpsDelta(1, R(1, 100))**5, "0.1",
                                                           dps=d),
            "epsilon Discrete^7": lambda d=d: ta.epsilon(dis**7, R(1, 3), dps=d),
            "evaluate PiecewiseLinear": lambda d=d: ta.evaluate(pl, R(1, 3), dps=d),
            "epsilon PoissonReplace": lambda d=d: ta.epsilon(ta.PoissonReplace(2, R(1, 10)),
                                                             R(1, 10**4), dps=d),
            # Arb tables and integrals
            "evaluate ShuffleDP": lambda d=d: ta.evaluate(ShuffleDP(2, 30), R(1, 7), dps=d),
            "delta ShuffleDP": lambda d=d: ta.delta(ShuffleDP(1, 50), R(1, 2), dps=d),
            "evaluate NormalPair": lambda d=d: ta.evaluate(ta.NormalPair(0, 1, 1, 2), R(1, 10),
                                                           dps=d),
            "evaluate GaussianMixturePair": lambda d=d: ta.evaluate(ta.GaussianMixturePair(
                [R(1, 2), R(1, 2)], [0, 1], [1, 2]), R(1, 10), dps=d),
            # PLD products (the Laplace inversion where it applies)
            "evaluate Laplace^3": lambda d=d: ta.evaluate(Laplace(1)**3, "0.1", dps=d),
            "delta Laplace^3": lambda d=d: ta.delta(Laplace(1)**3, 1, dps=d),
            "epsilon G^2 (x) Laplace": lambda d=d: ta.epsilon(ta.Tensor(G(1)**2, Laplace(1)),
                                                              R(1, 10**3), dps=d),
            "delta profile factor": lambda d=d: ta.delta(prof, R(1, 2), dps=d),
            "delta profile factor, 30 enclosures": lambda d=d: _with(
                ta.profile_options(max_calls=30), lambda: ta.delta(budgeted, R(1, 2), dps=d)),
            "evaluate Laplace^3, tol 1e-7": lambda d=d: _with(
                ta.pld_options(tol=1e-7), lambda: ta.evaluate(Laplace(1)**3, "0.2", dps=d)),
            "evaluate DP-SGD": lambda d=d: ta.evaluate(sgd, R(1, 10), dps=d),
            "epsilon DP-SGD": lambda d=d: ta.epsilon(sgd, R(1, 10**5), dps=d),
            # subsampling, mixtures, groups, hulls, inverses, maxima
            "delta C_p(G)": lambda d=d: ta.delta(ta.C(R(1, 10), G(1)), R(1, 2), dps=d),
            "evaluate C_p(G)^3": lambda d=d: ta.evaluate(ta.C(R(1, 10), G(1))**3, "0.1", dps=d),
            "evaluate Subsample": lambda d=d: ta.evaluate(ta.Subsample(Laplace(2), R(1, 3)),
                                                          R(1, 5), dps=d),
            "evaluate Mix": lambda d=d: ta.evaluate(ta.Mix(G(1), R(1, 2)), "0.1", dps=d),
            "delta AddRemove": lambda d=d: ta.delta(ta.AddRemove(ta.Mix(G(1), R(1, 10))),
                                                    R(1, 2), dps=d),
            "evaluate Group": lambda d=d: ta.evaluate(ta.Group(Laplace(1), 2), "0.1", dps=d),
            "delta Group": lambda d=d: ta.delta(ta.Group(EpsDelta(1, R(1, 100)), 3), 1, dps=d),
            "evaluate Inverse": lambda d=d: ta.evaluate(ta.Inverse(Laplace(2)), R(1, 3), dps=d),
            "evaluate SymmetricHull": lambda d=d: ta.evaluate(
                ta.SymmetricHull(ta.NormalPair(0, 1, 1, 2)), R(1, 3), dps=d),
            "evaluate Max": lambda d=d: ta.evaluate(ta.Max(G(1), Laplace(1)), R(1, 3), dps=d),
            # functionals
            "renyi G": lambda d=d: ta.renyi(G(1), 2, dps=d),
            "renyi Laplace": lambda d=d: ta.renyi(Laplace(1), R(3, 2), dps=d),
            "renyi Mix": lambda d=d: ta.renyi(ta.Mix(G(1), R(1, 4)), 2, dps=d),
            "kl": lambda d=d: ta.kl(Laplace(1), dps=d),
            "kl estimate": lambda d=d: ta.kl(ta.NormalPair(0, 1, 1, 2), dps=d, estimate=True),
            "kappa2": lambda d=d: ta.kappa2(Laplace(1), dps=d),
            "kappa3": lambda d=d: ta.kappa3(Laplace(1), dps=d),
            "kappa3_bar": lambda d=d: ta.kappa3_bar(Laplace(1), dps=d),
            "chi2_plus": lambda d=d: ta.chi2_plus(Laplace(1), dps=d),
            "tv": lambda d=d: ta.tv(Laplace(1), dps=d),
            "auc": lambda d=d: ta.auc(G(R(1, 3)), dps=d),
            "fixed_point": lambda d=d: ta.fixed_point(ta.Inverse(Laplace(2)), dps=d),
            "advantage": lambda d=d: ta.advantage(Laplace(1), dps=d),
            "bayes_risk": lambda d=d: ta.bayes_risk(G(1), R(1, 3), dps=d),
            "primal_value_lower": lambda d=d: ta.primal_value_lower(
                G(1), R(1, 4), [0, R(1, 2), 1, 2], dps=d),
            "fmt_delta": lambda d=d: ta.fmt_delta(1, 1000, R(1, 2), dps=d),
            "fmt_epsilon": lambda d=d: ta.fmt_epsilon(1, 1000, R(1, 10**6), dps=d),
            "verify pointwise": lambda d=d: ta.verify(G(1), ">=", EpsDelta(1, R(1, 10)), dps=d),
            "verify BinomialDP": lambda d=d: ta.verify(ta.BinomialDP(1, 10), ">=",
                                                       EpsDelta(1, 0)**10, dps=d),
        }.items()})
    # the reported case: 10 of 12 threaded calls came back 6e-17 off the sequential value
    out.update({f"roc BinomialDP(1, 50) 1e-300 @{d}": (
        lambda d=d: ta.roc(ta.BinomialDP(1, 50), "1e-300", dps=d)) for d in range(20, 81, 5)})
    out.update({  # functions without digits, or not repeated per dps (each call recomputes)
        "f_divergence estimate": lambda: ta.f_divergence(G(1), lambda t: (t - 1)**2, dps=15,
                                                         estimate=True),
        "primal_value": lambda: ta.primal_value(G(1), R(1, 4), n=9, dps=15),
        "notion GDP": lambda: ta.GDP(1).epsilon(R(1, 10**5)),
        "notion zCDP": lambda: ta.zCDP(R(1, 2)).delta(1),
        "notion RDP": lambda: ta.RDP({2: 1, 4: 2}).epsilon(R(1, 10**5)),
        "notion ApproxDP": lambda: ta.evaluate(ta.ApproxDP(1, R(1, 10)).to_tradeoff(), R(1, 3)),
        "gdp_mu": lambda: ta.gdp_mu(EpsDelta(1, 0), dps=15),
        "gdp_mu Laplace": lambda: ta.gdp_mu(Laplace(1), dps=5, tol=R(1, 1000)),
        "sup_distance": lambda: ta.sup_distance(G(1), Laplace(1), dps=15),
        "gaussian_sigma": lambda: ta.gaussian_sigma(1, 1, R(1, 10**5), dps=20),
        "calibrate": lambda: ta.calibrate(lambda s: G(1 / s), epsilon=1, delta=R(1, 10**5),
                                          dps=8),
        "curve bounds": lambda: ta.curve(Laplace(1)**2, [0.01, 0.1, 0.5], bounds=True),
        "curve": lambda: ta.curve(G(1), np.linspace(0, 1, 17)),
        "plot roc": lambda: ta.plot(Laplace(1)**2, ax=_axes(), kind="roc", points=12),
        "plot": lambda: ta.plot(G(1), ta.Mix(G(1), R(1, 2)), ax=_axes(), points=12),
        "simplify": lambda: ta.simplify(ta.C(R(1, 2), EpsDelta(1, 0))**2),
        "derive": lambda: ta.derive(ta.C(R(1, 10), G(1))**10, "lower"),
        "bound": lambda: ta.bound(ta.C(R(1, 10), G(1))**10, "lower"),
        "approx": lambda: ta.approx(EpsDelta(1 / sp.sqrt(10), 0)**10),
        "berry_esseen": lambda: ta.berry_esseen(EpsDelta(R(1, 10), 0), 100),
        "advanced_composition": lambda: ta.advanced_composition(R(1, 10), R(1, 10**6), 50,
                                                                R(1, 10**5)),
        "amplified_epsilon": lambda: ta.amplified_epsilon(2, R(1, 10)),
        "sampling_rate": lambda: ta.sampling_rate(2, 1),
        "from_privacy_profile": lambda: ta.evaluate(
            ta.from_privacy_profile([(1, R(1, 100)), (0, R(1, 5))]), R(1, 3)),
        "from_dp_event": lambda: ta.epsilon(ta.from_dp_event(_event(
            "SelfComposedDpEvent", count=20, event=_event(
                "PoissonSampledDpEvent", sampling_probability=R(1, 100),
                event=_event("GaussianDpEvent", noise_multiplier=1)))), R(1, 10**5), dps=10),
        "opacus accountant": _accountant,
        "shuffle bound": lambda: ta.delta(ta.shuffle(1, 200, bound="wang"), 1, dps=15),
        "dpgd_random_init": lambda: ta.evaluate(ta.dpgd_random_init(1, 1), R(1, 4), dps=15),
        "iteration_zcdp": lambda: ta.iteration_zcdp([R(1, 4)] * 4, 1),
    })
    if LONG:  # heavier inputs: the profile of an envelope (seconds per build), a large group
        big = ta.Tensor(ta.Max(G(1), Laplace(1)), G(1))
        out.update({f"delta Max(G, L) (x) G @{d}": (lambda d=d: ta.delta(big, R(1, 2), dps=d))
                    for d in API_DPS})
        out["delta Group PoissonReplace"] = lambda: ta.delta(
            ta.Group(ta.PoissonReplace(2, R(1, 10)), 3), 1, dps=15)
    return out


def _outcome(call: Callable[[], object]) -> object:
    try:
        return _key(call())
    except ta.TradeOffError as exc:  # (a refusal must be the same refusal in every thread)
        return ("error", type(exc).__name__, str(exc))


def _sequential() -> dict:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {name: _outcome(call) for name, call in _api_cases().items()}


def _reference_process(path: Path) -> subprocess.Popen:
    """The sequential results in a fresh interpreter (no cache of this process behind them),
    written to ``path``."""
    root = str(Path(ta.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    return subprocess.Popen([sys.executable, __file__, "--sequential", str(path)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _threaded(calls: dict, seed: int) -> tuple[dict, list]:
    """Every call once, shuffled over WORKERS fresh threads released together."""
    import warnings

    names = list(calls)
    random.Random(seed).shuffle(names)
    start = threading.Barrier(WORKERS)
    out, errors = {}, []

    def work(i: int) -> None:
        start.wait()
        for name in names[i::WORKERS]:
            try:
                out[name] = _outcome(calls[name])
            except Exception as exc:  # an unexpected error: reported, never a hang
                errors.append(f"{name}: {type(exc).__name__}: {exc}")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ThreadPoolExecutor(WORKERS) as ex:
            list(ex.map(work, range(WORKERS)))
    return out, errors


class _GlobalPrecisionChanger:
    """A thread that keeps changing mpmath's global precision (what SymPy's ``nsimplify`` does
    in any thread, and user code may do), restored on exit: the library never reads it."""

    def __enter__(self):
        self._saved, self._stop = mpmath.mp.prec, threading.Event()
        rng = random.Random(7)

        def run() -> None:
            while not self._stop.is_set():
                mpmath.mp.prec = rng.choice([10, 53, 113, 333])
                time.sleep(0.002)

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        mpmath.mp.prec = self._saved


def _differences(expected: dict, got: dict, label: str) -> list[str]:
    out = []
    for name, want in expected.items():
        have = got.get(name, ("missing",))
        if have != want:
            out.append(f"{label}: {name}: {str(have)[:300]} != sequential {str(want)[:300]}")
    return out


@pytest.mark.slow  # over 7 s alone: the CI job -m slow runs it
def test_every_public_function_in_threads_matches_a_fresh_sequential_run(tmp_path):
    """Each public function (every route, several dps) computed in WORKERS threads at once -
    first from cold caches, then by fresh threads from the caches other threads filled (and
    their own per-thread caches cold) - gives exactly the results of a sequential run in a
    fresh interpreter:
    lo, hi, guarantee (and every other field), bit for bit. Meanwhile mpmath's global
    precision keeps changing. Found this way: the certified profile of a PLD factor was
    refined under a time budget that counted every thread's seconds (and a call's model
    depended on the enclosures earlier calls had cached); the PLD refinement started on the
    finest grid any earlier call (of any thread, at any tolerance) had composed; a finite
    loss's mpmath tables, shared through the route caches, computed at the precision of the
    thread that built them; gaussian_sigma and calibrate compared mpf with SymPy numbers
    (rounded at the global precision); a float level was read at the global precision."""
    path = tmp_path / "sequential.pickle"
    proc = _reference_process(path)
    try:
        calls = _api_cases()
        before = mpmath.mp.prec
        runs = []
        for r in range(1 + ROUNDS):  # fresh threads each round: the first from cold caches
            with _GlobalPrecisionChanger():
                runs.append((f"threads, round {r + 1}", *_threaded(calls, r)))
            assert mpmath.mp.prec == before
        _, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.decode()[-3000:]
    expected = pickle.loads(path.read_bytes())
    assert set(expected) == set(calls)
    problems = [e for _, _, errs in runs for e in errs]
    for label, got, _ in runs:
        problems += _differences(expected, got, label)
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:20])


if __name__ == "__main__" and sys.argv[1:2] == ["--sequential"]:
    Path(sys.argv[2]).write_bytes(pickle.dumps(_sequential()))
