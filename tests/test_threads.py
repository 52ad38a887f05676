"""Concurrent callers get exactly the sequential results, and mpmath's global context is never
touched (every computation works in its thread's private context, numeric/context.py)."""

from __future__ import annotations

import threading

import mpmath
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
