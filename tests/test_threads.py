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
