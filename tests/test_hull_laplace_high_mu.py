"""The add/remove hull of Poisson-subsampled Laplace steps at high per-step eps (mu = 10, 100):
``routes.hull_tilted`` (both directions' loss cells, the tests' null masses tilted), checked
against an mpmath computation of the two-step profile (one integral of closed forms) and, for
more steps, against dp_accounting's optimistic and pessimistic PLDs at grid 1e-5."""

from __future__ import annotations

import warnings

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import ToleranceWarning
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.offer import Offer
from tradeoff_algebra.numeric.value import CertifiedPair
from tradeoff_algebra.routes.hull_tilted import ROUTE, hull_tilted_delta, hull_tilted_epsilon


def hull(mu, q, T):
    return ta.laplace_mechanism(1, 1 / sp.Integer(mu), sampling="poisson", p=q) ** T


# -- an independent reference: two steps by mpmath -----------------------------------------------
class TwoSteps:
    """delta of AddRemove(Mix(L_mu, q))^2 in each direction, by mpmath at 40 digits: one step
    is P = Lap(0, 1) against A = (1 - q) P + q Lap(mu, 1), with loss l(x) = log(1 - q +
    q e^{L(x)}), L(x) = clip(|x| - |x - mu|, -mu, mu), increasing in x. For a threshold c the
    tails P(l > c), A(l > c) are closed forms (x* = (mu + log1p(expm1(c)/q))/2 between the
    atoms), and since e^{-l} dA = dP,

        remove: delta(eps) = E_{x ~ A}[A(l > eps - l(x)) - e^{eps - l(x)} P(l > eps - l(x))],
        add:    delta(eps) = E_{x ~ P}[P(l < -eps - l(x)) - e^{eps + l(x)} A(l < -eps - l(x))],

    each expectation over the two atoms (x <= 0, x >= mu) and the density on (0, mu), split at
    the kinks of the integrand (mpmath.quad)."""

    def __init__(self, mu, q):
        self.mu, self.q = mpmath.mpf(mu), mpmath.mpf(sp.Rational(q).p) / sp.Rational(q).q
        m, q = self.mu, self.q
        self.l0 = mpmath.log(1 - q + q * mpmath.exp(-m))
        self.l1 = mpmath.log(1 - q + q * mpmath.exp(m))

    def loss(self, x):
        m, q = self.mu, self.q
        return mpmath.log(1 - q + q * mpmath.exp(2 * x - m))

    def xstar(self, c):
        return (self.mu + mpmath.log1p(mpmath.expm1(c) / self.q)) / 2

    def tails(self, c):
        """(P(l > c), A(l > c))."""
        if c < self.l0:
            return mpmath.mpf(1), mpmath.mpf(1)
        if c >= self.l1:
            return mpmath.mpf(0), mpmath.mpf(0)
        x = self.xstar(c)
        p = mpmath.exp(-x) / 2
        return p, (1 - self.q) * p + self.q * (1 - mpmath.exp(x - self.mu) / 2)

    def _expect(self, h, under: str, eps):
        m, q = self.mu, self.q
        if under == "A":
            w0 = (1 - q + q * mpmath.exp(-m)) / 2
            w1 = (1 - q + q * mpmath.exp(m)) * mpmath.exp(-m) / 2

            def dens(x):
                return (1 - q) * mpmath.exp(-x) / 2 + q * mpmath.exp(x - m) / 2
        else:
            w0, w1 = mpmath.mpf(1) / 2, mpmath.exp(-m) / 2

            def dens(x):
                return mpmath.exp(-x) / 2
        pts = {mpmath.mpf(0), m}
        for c in (eps - self.l0, eps - self.l1, -eps - self.l0, -eps - self.l1, eps, -eps):
            if self.l0 < c < self.l1:
                pts.add(self.xstar(c))
        for k in range(1, 8):  # (the densities' bulk near both ends)
            pts.update({mpmath.mpf(k), m - k})
        pts = sorted(x for x in pts if 0 <= x <= m)
        body = mpmath.quad(lambda x: h(self.loss(x)) * dens(x), pts)
        return w0 * h(self.l0) + w1 * h(self.l1) + body

    def delta(self, eps, direction: str):
        eps = mpmath.mpf(eps)
        with mpmath.workdps(40):
            if direction == "remove":
                def h(l1):
                    p, a = self.tails(eps - l1)
                    return a - mpmath.exp(eps - l1) * p
                return self._expect(h, "A", eps)

            def h(l1):  # P(l < c) = 1 - P(l > c) off the atoms (a generic eps)
                p, a = self.tails(-eps - l1)
                return (1 - p) - mpmath.exp(eps + l1) * (1 - a)
            return self._expect(h, "P", eps)

    def hull_delta(self, eps):
        return max(self.delta(eps, "remove"), self.delta(eps, "add"))

    def hull_epsilon(self, d):
        """max over the directions of the root of delta(eps) = d (0 where delta(0) <= d): a
        bracket by doubling, then 40 bisections (about 1e-10 of the root); a direction whose
        delta is at most d at the other's root has its root below it."""
        out = mpmath.mpf(0)
        with mpmath.workdps(30):
            for direction in ("remove", "add"):
                if self.delta(max(out, 0), direction) <= d:
                    continue
                lo, hi = out, max(2 * out, mpmath.mpf(1))
                while self.delta(hi, direction) > d:
                    lo, hi = hi, 2 * hi
                for _ in range(40):
                    mid = (lo + hi) / 2
                    lo, hi = (mid, hi) if self.delta(mid, direction) > d else (lo, mid)
                out = max(out, (lo + hi) / 2)
        return out


def test_two_step_reference_one_step_limit():
    """The reference's one-step pieces are right: A(l > c) - e^c P(l > c) at c = eps is the
    one-step profile, checked against a direct quadrature of (1 - e^{eps - l})_+ under A."""
    r = TwoSteps(10, sp.Rational(1, 100))
    eps = mpmath.mpf("1.3")
    with mpmath.workdps(40):
        p, a = r.tails(eps)
        direct = r._expect(lambda l: max(1 - mpmath.exp(eps - l), 0), "A", eps)
        assert abs((a - mpmath.exp(eps) * p) - direct) < mpmath.mpf(10) ** -18


@pytest.mark.parametrize("mu, q", [(10, sp.Rational(1, 100)), (100, sp.Rational(1, 10))])
def test_two_steps_epsilon_and_delta_against_mpmath(mu, q):
    """eps(1e-5) and delta(1) of two steps: the route's certified brackets and the public
    calls' contain the mpmath reference."""
    f, ref = hull(mu, q, 2), TwoSteps(mu, q)
    d = sp.Rational(1, 10**5)
    e_ref, d_ref = ref.hull_epsilon(mpmath.mpf(d.p) / d.q), ref.hull_delta(1)
    got = hull_tilted_epsilon(f, mp.mpf(1) / 10**5)
    r = got.answer if isinstance(got, Offer) else got
    assert isinstance(r, CertifiedPair)
    assert r[0] - 1e-11 * e_ref <= e_ref <= r[1] + 1e-11 * e_ref and r[1] - r[0] <= 1e-3 * r[1]
    got = hull_tilted_delta(f, mp.mpf(1))
    r = got.answer if isinstance(got, Offer) else got
    assert r[0] <= d_ref <= r[1] and r[1] - r[0] <= 1e-3 * r[1]
    v = ta.epsilon(f, d, dps=20)
    assert v.guarantee == "certified" and v.lo - 1e-11 * e_ref <= e_ref <= v.hi + 1e-11 * e_ref
    w = ta.delta(f, 1, dps=20)
    assert w.guarantee == "certified" and w.lo <= d_ref <= w.hi


# -- many steps: dp_accounting's bracket -----------------------------------------------------
def _bracket(mu, q, T, call, grid=1e-4):
    """dp_accounting's [optimistic, pessimistic] PLDs (both neighbouring directions) at
    ``grid``, widened by a relative 1e-6 (their float errors)."""
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    ends = []
    for pess in (False, True):
        p = pld_lib.from_laplace_mechanism(1 / mu, 1.0, pessimistic_estimate=pess,
                                           value_discretization_interval=grid,
                                           sampling_prob=float(q)).self_compose(T)
        ends.append(p.get_epsilon_for_delta(1e-5) if call == "eps"
                    else p.get_delta_for_epsilon(1.0))
    a, b = sorted(ends)
    return a - 1e-6 * abs(a), b + 1e-6 * abs(b)


@pytest.mark.parametrize("mu, q, T, grid", [
    (10, sp.Rational(1, 100), 43, 1e-4),
    pytest.param(10, sp.Rational(1, 100), 43, 1e-5, marks=pytest.mark.slow),
    pytest.param(10, sp.Rational(1, 100), 100, 1e-5, marks=pytest.mark.slow)])
def test_eps_many_steps_meets_dp_accounting(mu, q, T, grid):
    """eps(1e-5) at mu = 10 (the base's bracket was [21.6, 25.0] at T = 43): certified, within
    the default tolerance, by this route, and meeting dp_accounting's bracket."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        v = ta.epsilon(hull(mu, q, T), sp.Rational(1, 10**5), dps=20)
    assert v.guarantee == "certified" and v.route.startswith(ROUTE[:40])
    assert float(v.hi - v.lo) <= 5e-4 * float(v.hi)
    a, b = _bracket(mu, q, T, "eps", grid)
    assert float(v.lo) <= b and float(v.hi) >= a


@pytest.mark.parametrize("grid", [1e-4, pytest.param(1e-5, marks=pytest.mark.slow)])
def test_delta_many_steps_meets_dp_accounting(grid):
    """delta(1) at mu = 10, q = 1/100, T = 100 (the base answered [5e-29, 1]): certified
    within the default tolerance, meeting dp_accounting's bracket."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        v = ta.delta(hull(10, sp.Rational(1, 100), 100), 1, dps=20)
    assert v.guarantee == "certified" and ROUTE[:40] in v.route
    assert float(v.hi - v.lo) <= 5e-4 * float(v.hi)
    a, b = _bracket(10, sp.Rational(1, 100), 100, "delta", grid)
    assert float(v.lo) <= b and float(v.hi) >= a


def test_tight_tolerance_nested_with_warning():
    """At tol 1e-9 (beyond the cells' h^2 law; the engines' inversion of 43 steps is slow) the
    answer is certified and inside the default tolerance's, with a ToleranceWarning where it
    is wider than asked, or the time limit stops it carrying a bracket inside the default's."""
    f, d = hull(10, sp.Rational(1, 100), 43), sp.Rational(1, 10**5)
    loose = ta.epsilon(f, d, dps=20)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with ta.pld_options(tol=1e-9), ta.time_limit(20):
                tight = ta.epsilon(f, d, dps=20)
        except ta.TimeLimitExceeded as exc:
            assert exc.best is not None
            lo, hi = exc.best
        else:
            assert tight.guarantee == "certified"
            lo, hi = tight.lo, tight.hi
            if hi - lo > 1e-9 * hi:
                assert any(issubclass(w.category, ToleranceWarning) for w in caught)
    assert loose.lo <= lo <= hi <= loose.hi
    assert hi - lo <= loose.hi - loose.lo


def test_mu_100_eps_certified():
    """mu = 100, q = 1/100, T = 100: the base's bracket was [30.9, 665.8]; now within the
    default tolerance (about 665.54: seven or eight of the hundred steps sampled)."""
    v = ta.epsilon(hull(100, sp.Rational(1, 100), 100), sp.Rational(1, 10**5), dps=20)
    assert v.guarantee == "certified" and float(v.hi - v.lo) <= 5e-4 * float(v.hi)
    assert 665 < float(v.lo) < 666


def test_route_declines_elsewhere():
    """Not a hull of subsampled Laplace steps, or an argument out of range: None."""
    g = ta.gaussian_mechanism(1, 1) ** 3
    assert hull_tilted_epsilon(g, mp.mpf(1) / 10**5) is None
    assert hull_tilted_epsilon(hull(10, sp.Rational(1, 100), 3), mp.mpf(0)) is None
    assert hull_tilted_delta(hull(10, sp.Rational(1, 100), 3), mp.inf) is None


def test_low_per_step_loss_is_left_to_the_engines():
    """One step's loss spanning less than hull_cells.SPAN_MIN (mu = 1, q = 1/100: 0.023) is
    not asked of this route for eps (the engines answer at any tolerance; this route's grids
    cannot reach 1e-9 there and cost 3.8 s before the engines' 0.2 s at T = 4), where mu = 10
    is."""
    low = ta.laplace_mechanism(1, 1, sampling="poisson", p=sp.Rational(1, 100)) ** 4
    assert hull_tilted_epsilon(low, mp.mpf(1) / 10**5) is None
    assert hull_tilted_epsilon(hull(10, sp.Rational(1, 100), 2), mp.mpf(1) / 10**5) is not None
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(low, sp.Rational(1, 10**5), dps=15)
    assert v.guarantee == "certified" and ROUTE[:40] not in v.route
    assert float(v.hi - v.lo) <= 1e-9 * float(v.hi)


def test_high_loss_delta_is_answered_before_the_engines(monkeypatch):
    """delta(1) at mu = 10, q = 1/100, T = 100: this route is asked before the engines and
    meets the tolerance, so the engines (whose inversion took about 3.7 s here before giving
    way to it) are not asked; the answer is the one they were intersected with before."""
    from tradeoff_algebra.routes import engines

    def refuse(*a, **k):
        raise AssertionError("the engines were asked")

    monkeypatch.setattr(engines, "pld_delta", refuse)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToleranceWarning)
        v = ta.delta(hull(10, sp.Rational(1, 100), 100), 1, dps=20)
    assert v.guarantee == "certified" and v.route.startswith(ROUTE[:40])
    assert float(v.hi - v.lo) <= 5e-4 / 4 * float(v.hi)
    a, b = _bracket(10, sp.Rational(1, 100), 100, "delta", 1e-4)
    assert float(v.lo) <= b and float(v.hi) >= a


def test_time_limit_honoured():
    """A short limit stops the route with its best certified bracket (or none yet)."""
    f = hull(100, sp.Rational(1, 1000), 1000)
    with pytest.raises(ta.TimeLimitExceeded), ta.pld_options(tol=1e-12), ta.time_limit(0.3):
        ta.epsilon(f, sp.Rational(1, 10**5), dps=20)
