"""The whole curve of ShuffleDP from one float pass locating every level's threshold fraction
(families/shuffle_locate.py) and one Arb slice pass for their tails (families/shuffle_curve.py),
against the exact atom table of the pair of Feldman, McMillan & Talwar in Fraction
(tests/references/shuffle_pair.py; e^eps0 = 3: every mass rational) and its Neyman--Pearson
polygon computed here; at n = 10^4 (slow) against the float64 log-space profile of
benchmarks/bench_issue29 turned into the power by 1 - f(alpha) = inf over eps of delta(eps) +
e^eps alpha (Dong, Roth & Su, Prop. 6)."""

from __future__ import annotations

import functools
import math
import os
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats  # noqa: F401  (the per-level search of the fallback imports it: outside the tests)
import sympy as sp
from references.profile_power import power_from_profile
from references.shuffle_pair import fraction_atoms, shuffle_points

import tradeoff_algebra as ta
import tradeoff_algebra.families.shuffle_curve as sc
from tradeoff_algebra.families.shuffle_curve import curve_band, many_tails
from tradeoff_algebra.families.shuffle_locate import locate_thresholds, log_binom_pmf
from tradeoff_algebra.numeric.context import arb_precision

LOG3 = sp.log(3)


@functools.lru_cache(maxsize=8)
def _atoms(n: int) -> tuple[list, list, list]:
    """The exact atoms of ShuffleDP(log 3, n) by increasing fraction a/s (decreasing likelihood
    ratio): (fractions, P, Q) in Fraction (references/shuffle_pair.fraction_atoms, E = 3)."""
    return fraction_atoms(Fraction(3), n)


@functools.lru_cache(maxsize=8)
def _prefix(n: int) -> tuple[list, list]:
    """Exact prefix sums of the atoms' P- and Q-masses (the polygon's vertices)."""
    _, P, Q = _atoms(n)
    cp, cq = [Fraction(0)], [Fraction(0)]
    for p, q in zip(P, Q, strict=True):
        cp.append(cp[-1] + p)
        cq.append(cq[-1] + q)
    return cp, cq


def _np(n: int, alpha: Fraction) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """(threshold fraction, P_<, Q_<, power) of level alpha on the exact polygon: the first
    atom j with P(atoms <= j) > alpha, the power on its segment."""
    import bisect

    keys, P, Q = _atoms(n)
    cp, cq = _prefix(n)
    j = min(bisect.bisect_right(cp, alpha) - 1, len(keys) - 1)
    return keys[j], cp[j], cq[j], cq[j] + (alpha - cp[j]) * Q[j] / P[j]


LEVELS = [float(a) for a in np.linspace(0, 1, 101)[1:-1]] + [1e-6, 1e-3, 0.999, 0.3333]


@pytest.mark.parametrize("n", [20, 60, 120])
def test_located_fractions_are_the_exact_thresholds(n):
    """Every level's fraction from the one float pass is the exact Neyman--Pearson threshold
    of the polygon (the fraction at which the exact P-tail passes alpha), among them levels at
    an exact tail value (a tie: the threshold is then the next atom)."""
    keys, P, _ = _atoms(n)
    got = locate_thresholds(math.log(3), n, LEVELS)
    for a, t in zip(LEVELS, got, strict=True):
        assert t == _np(n, Fraction(a))[0], (n, a, t)
    # a level at an exact tail value, rounded to float: the float search places it up to its
    # resolution (atoms of P-mass below ~1e-13 of the tail are not told apart: float sums of
    # masses each ~1e-14 relative; the Arb balls
    # decide downstream): P(< t) <= alpha <= P(<= t) up to 1e-12 relative
    i = len(P) // 3
    tie = float(sum(P[:i]))
    t = locate_thresholds(math.log(3), n, [tie])[0]
    j = keys.index(t)
    below = sum(P[:j])
    assert below <= Fraction(tie) * (1 + Fraction(1, 10**12))
    assert below + P[j] >= Fraction(tie) * (1 - Fraction(1, 10**12))


def test_log_pmf_against_exact_binomials():
    """Loader's form of log Binom(n, p)(k) against the exact binomial coefficient and p at 40
    digits (mpmath)."""
    import mpmath

    ctx = mpmath.MPContext()
    ctx.dps = 40
    for n, p in ((1, 0.5), (7, 0.5), (40, 0.25), (1000, 0.5), (5000, 0.3)):
        k = np.arange(0, n + 1, max(1, n // 50))
        got = log_binom_pmf(n, k, p)
        for kk, g in zip(k.tolist(), got.tolist(), strict=True):
            ref = (ctx.log(math.comb(n, kk)) + kk * ctx.log(ctx.mpf(p))
                   + (n - kk) * ctx.log(1 - ctx.mpf(p)))
            assert abs(g - ref) <= 1e-12 * max(1.0, abs(ref)), (n, kk, g, ref)


def test_many_tails_hold_the_exact_tails():
    """One pass over all slices for several thresholds at once: the balls hold the exact
    strict tails P_<, Q_< and the threshold atom's P-mass (every slice kept: P_= exact up to
    the balls)."""
    from flint import arb

    n = 80
    keys, P, Q = _atoms(n)
    taus = [Fraction(1, 80), Fraction(13, 29), Fraction(1, 2), Fraction(5, 9), Fraction(1)]
    with arb_precision(200):
        res = many_tails(arb(3), n, taus, 1, n, 200)
    for t, (Pl, Ql, Pe) in zip(taus, res, strict=True):
        i = keys.index(t)
        for ball, ref in ((Pl, sum(P[:i])), (Ql, sum(Q[:i])), (Pe, P[i])):
            r = arb(ref.numerator) / ref.denominator
            assert ball.overlaps(r), (t, ball, float(ref))
            assert ball.rad() < arb(10) ** -50


def _curve(f, x, tol):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=tol):
            return ta.curve(f, x, bounds=True)


def test_curve_holds_the_polygon_and_tighter_tol_nests():
    """ta.curve(bounds=True) of ShuffleDP(log 3, 120) at 101 levels: certified bands (no
    warning) holding the exact polygon at every level, within each tolerance, f(0) = 1 and
    f(1) = 0; the band at a tighter tolerance lies inside the looser one."""
    n = 120
    f = ta.ShuffleDP(LOG3, n)
    x = np.linspace(0, 1, 101)
    truth = [Fraction(1)] + [1 - _np(n, Fraction(a))[3] for a in x[1:-1]] + [Fraction(0)]
    prev = None
    for tol in (5e-4, 1e-6, 1e-9):
        lo, hi = _curve(f, x, tol)
        assert lo[0] == hi[0] == 1 and lo[-1] == hi[-1] == 0
        for a, l, h, t in zip(x, lo, hi, truth, strict=True):
            assert Fraction(l) <= t <= Fraction(h), (tol, a)
            assert h - l <= tol and (h - l) <= tol * (1 - l)
        if prev is not None:
            assert np.all(prev[0] <= lo) and np.all(hi <= prev[1])
        prev = (lo, hi)


def test_a_wrong_fraction_gives_way(monkeypatch):
    """A level whose located fraction is wrong (forced here: eight atoms up) keeps a sound
    band (its points and line still lie on and above the polygon); where every level is
    computed and it is still wider than tol, the per-level search's fraction is added."""
    n = 60
    x = np.linspace(0, 1, 11)
    real = sc.locate_thresholds
    keys = _atoms(n)[0]

    def shifted(e0, n_, alphas):
        out = real(e0, n_, alphas)
        return [keys[keys.index(t) + 8] if a == x[3] else t for a, t in zip(alphas, out,
                                                                           strict=True)]

    monkeypatch.setattr(sc, "locate_thresholds", shifted)
    band = curve_band(LOG3, n, x, 1e-9)
    for i, a in enumerate(x):
        t = Fraction(1) if a == 0 else Fraction(0) if a == 1 else 1 - _np(n, Fraction(a))[3]
        assert Fraction(band.f_lo[i]) <= t <= Fraction(band.f_hi[i])
        assert band.f_hi[i] - band.f_lo[i] <= 1e-9
    loose = curve_band(LOG3, n, x, None)  # tol None: no fallback, the wrong fraction's band
    j = 3
    assert loose.f_lo[j] <= band.f_lo[j] and band.f_hi[j] <= loose.f_hi[j]
    assert loose.f_hi[j] - loose.f_lo[j] > 1e-9


def test_extreme_levels_and_a_single_level():
    """Levels near 0 and 1 and a lone level: the band holds the polygon."""
    n = 150
    x = np.array([0.0, 1e-9, 1e-4, 0.5, 1 - 1e-4, 1.0])
    band = curve_band(LOG3, n, x, 1e-9)
    for i, a in enumerate(x):
        t = Fraction(1) if a == 0 else Fraction(0) if a == 1 else 1 - _np(n, Fraction(a))[3]
        assert Fraction(band.f_lo[i]) <= t <= Fraction(band.f_hi[i]), a
        assert Fraction(band.power_lo[i]) <= 1 - t <= Fraction(band.power_hi[i]), a
    one = curve_band(LOG3, n, np.array([0.25]), 1e-9)
    t = 1 - _np(n, Fraction(0.25))[3]
    assert Fraction(one.f_lo[0]) <= t <= Fraction(one.f_hi[0])
    assert one.f_hi[0] - one.f_lo[0] < 1e-14


@pytest.mark.slow
def test_n_10000_against_the_float_profile():
    """ShuffleDP(1, 10^4): the band at 1e-9 against the power from the float64 log-space
    profile of benchmarks/bench_issue29 (an estimate, ~1e-9 relative): inf over eps in
    (0, 1) of delta(eps) + e^eps alpha by golden section (convex in eps), at levels below the
    fixed point (where the infimum over eps >= 0 is the power; above it the mirror branch
    is)."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
    from bench_issue29 import shuffle_delta_ref

    n = 10**4
    x = np.array([0.01, 0.1])
    lo, hi = _curve(ta.ShuffleDP(1, n), x, 1e-9)
    for a, l, h in zip(x, lo, hi, strict=True):
        ref = power_from_profile(lambda e: shuffle_delta_ref(1.0, n, e), a, 1e-9, 1 - 1e-9, 40)
        assert 1 - h <= ref * (1 + 1e-7) and ref <= (1 - l) * (1 + 1e-7), (a, 1 - h, ref, 1 - l)


@pytest.mark.parametrize("n", [2, 10, 40])
def test_power_at_zero_is_exact(n):
    """1 - f(0) of a finite pair is the Q-mass where P = 0 (the loss +inf; Dong, Roth & Su,
    Appendix A): on the exact Fraction atoms (e^eps0 = 3) that mass is 0 and the polygon starts
    at (0, 0), and on the mixture pair at e^eps0 = e (mpmath, from the mixture definition) every
    point with Q > 0 has P > 0 (sums of positive terms: no rounding can make them so). The
    routes answer f(0) = 1 and 1 - f(0) = 0 exactly, delta(+oo) = 0 certified."""
    _, P, Q = _atoms(n)
    assert sum(P) == 1 and sum(Q) == 1
    assert sum(q for p, q in zip(P, Q, strict=True) if p == 0) == 0
    assert _np(n, Fraction(0))[3] == 0
    law = shuffle_points(1, n)
    assert all(p > 0 for p, q in law.values() if q > 0)
    for f in (ta.ShuffleDP(LOG3, n), ta.ShuffleDP(1, n)):
        v, w = ta.roc(f, 0), ta.evaluate(f, 0)
        assert v.guarantee == "exact" and v.exact == 0, (f, v)
        assert w.guarantee == "exact" and w.exact == 1, (f, w)
        d = ta.delta(f, sp.oo)
        assert d.guarantee in ("exact", "certified") and d.interval() == (0, 0), (f, d)
