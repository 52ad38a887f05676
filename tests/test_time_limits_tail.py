"""delta far in the tail of DP-SGD by the certified Laplace inversion, inside the time limit.

``ta.delta(ta.noisy_sgd(11/10, 1/100, 10), eps)`` for eps from 60 (delta about 1e-296) to 1000
(about e^{-10^5}): a delta below every float is returned at once as [0, b], b a Chernoff bound
proved in Arb (numeric/cf_bounds.py, ``tiny_delta``), with a ToleranceWarning; a subnormal one
keeps the digits its floats hold (numeric/cf.py, ``_certified_inverter``). It took 11 s to
19 s at eps = 66 .. 400 (the inversion re-planned a delta whose float midpoint had underflowed).

References, both at 60 digits in mpmath, independent of the laws' Arb transforms:

* an upper bound: the Chernoff bound at integer orders c, delta(eps) <= K_c e^{-c eps} M(c)^T,
  K_c = c^c/(c + 1)^{c + 1}, with the moment generating function of the loss of one step
  M(c) = E_N[(1 - q + q Y)^{c + 1}] = sum_j C(c + 1, j) (1 - q)^{c + 1 - j} q^j e^{j(j-1) mu^2/2}
  (Y = e^{mu x - mu^2/2}, x ~ N(0, 1): the binomial expansion, exact at integer c; Mironov,
  Talwar & Zhang's sampled Gaussian);
* a lower bound: delta(eps) = E_A[(1 - e^{eps - L})_+] >= (1 - e^{eps - s}) A(L >= s)
  >= (1 - e^{eps - s}) A_1(l >= s/T)^T for any s > eps (all T steps above s/T), the one-step
  tail A_1(l >= u) = (1 - q) Phi(-x_u) + q Phi(mu - x_u), x_u = (log((e^u - 1 + q)/q)
  + mu^2/2)/mu, l increasing in x (Dong, Roth & Su, Prop. 6 on the remove direction
  A = (1 - q) N(0, 1) + q N(mu, 1) against B = N(0, 1); the hull's delta is the larger).

The time limit is checked by the limit firing (TimeLimitExceeded fails a test), never by
measuring seconds.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import budget, cf
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes import engines

R = sp.Rational
SIGMA, Q, T = R(11, 10), R(1, 100), 10
DPS = 60


def _mechanism():
    return ta.noisy_sgd(SIGMA, Q, T)


@functools.cache
def _log_mgfs(c_max: int) -> tuple:
    """log M(c) for c = 0 .. c_max by the binomial expansion (module docstring), the terms
    C(c + 1, j) (1 - q)^{c + 1 - j} q^j e^{j(j-1) mu^2/2} as logarithms."""
    mu, q = mp.mpf(SIGMA.q) / SIGMA.p, mp.mpf(Q.p) / Q.q
    lq, l1q = mp.log(q), mp.log(1 - q)
    out = []
    for c in range(c_max + 1):
        n = c + 1
        out.append(mp.log(mp.fsum(
            mp.exp(mp.log(mp.binomial(n, j)) + (n - j) * l1q + j * lq + j * (j - 1) * mu**2 / 2)
            for j in range(n + 1))))
    return tuple(out)


def _upper_ref(eps) -> mp.mpf:
    """min over integer c <= 160 of the Chernoff bound (module docstring; the minimum at
    eps = 1000 lies near c = 126)."""
    with mp.workdps(DPS):
        logs = _log_mgfs(160)
    e = mp.mpf(eps)
    return min(mp.exp(c * mp.log(c) - (c + 1) * mp.log(c + 1) - c * e + T * logs[c])
               for c in range(1, len(logs)))


def _lower_ref(eps) -> mp.mpf:
    """max over s of (1 - e^{eps - s}) A_1(l >= s/T)^T (module docstring)."""
    mu, q = mp.mpf(SIGMA.q) / SIGMA.p, mp.mpf(Q.p) / Q.q
    best = mp.zero
    for i in range(1, 200):
        s = mp.mpf(eps) + mp.mpf(i) / 20
        u = s / T
        x = (mp.log((mp.exp(u) - 1 + q) / q) + mu**2 / 2) / mu
        tail = (1 - q) * mp.ncdf(-x) + q * mp.ncdf(mu - x)
        best = max(best, (1 - mp.exp(mp.mpf(eps) - s)) * tail**T)
    return best


def _delta(f, eps, tol):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ta.time_limit(2), ta.pld_options(tol=tol):
            v = ta.delta(f, eps)
    return v, [w for w in caught if issubclass(w.category, ta.ToleranceWarning)]


@pytest.mark.parametrize("eps", [60, 64, R(129, 2), 65, 100, 400, 1000])
def test_a_delta_in_the_far_tail_is_certified_inside_the_limit(eps):
    """Inside a limit of 2 s: a certified enclosure between the two references, a
    ToleranceWarning wherever it is wider than the tolerance (a subnormal delta, or [0, b] for
    one below every float), never wider at a tighter tolerance."""
    f = _mechanism()
    v, warned = _delta(f, eps, 5e-4)
    assert v.guarantee == "certified" and 0 <= v.lo <= v.hi <= 1
    with mp.workdps(DPS):
        lo_ref, hi_ref = _lower_ref(eps), _upper_ref(eps)
        assert lo_ref < hi_ref
        assert mp.mpf(v.lo) <= hi_ref and mp.mpf(v.hi) >= lo_ref
    if v.hi > v.lo and v.hi - v.lo > 5e-4 * v.hi:
        assert warned
    else:
        assert not warned
    tight, _ = _delta(f, eps, 1e-6)
    assert tight.hi - tight.lo <= v.hi - v.lo


def test_a_representable_delta_keeps_its_digits():
    """eps = 60 (delta about 1.6e-296, a normal float) and 64 (1.8e-318, subnormal): the
    inversion's digits, not a Chernoff bound [0, b] (the references are 100 times apart)."""
    for eps, rel in ((60, 1e-8), (64, 1e-4)):
        v, _ = _delta(_mechanism(), eps, 5e-4)
        assert v.lo > 0 and v.hi - v.lo <= rel * v.hi


def test_far_below_every_float_is_the_least_float():
    """delta(100) is about e^{-1300}: [0, 5e-324] (the Chernoff bound rounded up to the least
    subnormal), with the ToleranceWarning that says it is a Chernoff bound."""
    v, warned = _delta(_mechanism(), 100, 5e-4)
    assert v.lo == 0 and v.hi == 5e-324
    assert any("Chernoff" in str(w.message) for w in warned)


def test_the_inversion_checks_the_limit_between_its_nodes():
    """A plan of 10^5 nodes (each evaluates M of the subsampled Gaussian: milliseconds) under a
    limit of 0.3 s ends in TimeLimitExceeded, not after the 10^5 evaluations."""
    f = _mechanism()
    sets = engines._cf_laws(list(engines.hull_directions(f)), atoms=True)
    factors = [(law, int(n)) for law, n in sets[0]]
    with working_precision(64):
        plan = cf._first_plan(factors, 5.0, 1e-6)
    plan = dataclasses.replace(plan, n_nodes=10**5)
    with ta.time_limit(0.3), budget.call("the test's inversion"):
        with pytest.raises(ta.TimeLimitExceeded), working_precision(64):
            cf._Inverter(factors, plan)


def test_a_negligible_direction_does_not_take_over_the_warning():
    """delta(1/2) of DP-SGD (sigma = 2, q = 1/1000, T = 900): one direction is inverted (by the
    law's own quadrature to [0, ~1e-27], no digit, with a warning of relative width 1; by its
    flat view, taken where the own plan is beyond the route's cap, to 1.72e-38 within the
    tolerance), the other lies below every float and is bounded by its Chernoff bound, the
    least subnormal. That bound is below the maximum's upper end, so it changes nothing: no
    warning quotes it (it was quoted in place of the inverted direction's width)."""
    f = ta.noisy_sgd(2, sp.Rational(1, 1000), 900)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = ta.delta(f, sp.Rational(1, 2))
    msgs = [str(w.message) for w in caught if issubclass(w.category, ta.ToleranceWarning)]
    assert 0 < v.lo and v.hi < 1e-20 and v.guarantee == "certified"
    assert v.hi - v.lo <= 5e-4 * v.hi and not any("4.94e-324" in m for m in msgs)
