"""The Chernoff bound of eps at Arb's 53 bits (numeric/cf_bounds.py, ``chernoff(..., prec)``)
and the check that DP-SGD's add direction is not the maximum (numeric/cf_route.py,
``_eps_below``): against the same bound computed independently in mpmath at 40 digits, with
M(c) = E_{N(0,1)}[(1 - q + q e^{mu x - mu^2/2})^{alpha + sign c}] (alpha, sign = 1, 1 for the
remove direction, 0, -1 for the add direction) by quadrature, and against the directions' eps
from dp_accounting's pessimistic PLD (an upper bound of each eps by a different route)."""

from __future__ import annotations

import pytest

from tradeoff_algebra.families.gaussian_sampled import sampled_law
from tradeoff_algebra.numeric import cf_bounds, cf_route
from tradeoff_algebra.numeric.context import mp

MU, Q, D = 0.25, 256 / 60000, 1e-5


def _mpmath_eps_bound(direction: str, T: int, c: float) -> mp.mpf:
    """(T log M(c) + log K(c) - log d) / c, K = c^c / (c + 1)^(c + 1), at 40 digits."""
    alpha, sign = (1, 1) if direction == "remove" else (0, -1)
    with mp.workdps(40):
        mu, q, cc = mp.mpf(MU), mp.mpf(256) / 60000, mp.mpf(c)
        e = alpha + sign * cc

        def integrand(x):
            y = mp.exp(mu * x - mu * mu / 2)
            return mp.npdf(x) * (1 - q + q * y) ** e

        m = mp.quad(integrand, [-mp.inf, -10, 0, 10, 40, mp.inf])
        log_k = cc * mp.log(cc) - (cc + 1) * mp.log(cc + 1)
        return (T * mp.log(m) + log_k - mp.log(mp.mpf(D))) / cc


@pytest.mark.parametrize("direction,T", [("add", 10), ("remove", 10), ("add", 100)])
def test_chernoff_at_53_bits_is_the_bound(direction, T):
    """At 53 and at 128 bits the certified bound lies at or above the mpmath value of the same
    expression and within 1e-7 (53 bits: the ball of M is about 2^-50 wide, times T over c)
    or 1e-14 (128 bits) of it."""
    factors = [(sampled_law(MU, Q, direction), T)]
    c = cf_bounds.some_c(factors, 0.01 if T == 10 else 0.03)
    ref = _mpmath_eps_bound(direction, T, c)
    for prec, rel in ((53, 1e-7), (128, 1e-14)):
        b = cf_bounds.chernoff(factors, "epsilon", D, c, prec)
        assert b >= ref
        assert b <= ref * (1 + rel)


def test_add_direction_is_below_at_53_bits(monkeypatch):
    """T = 10: the add direction's Chernoff bound at 53 bits decides it below the remove
    direction's eps (0.0091, the route's lower end) without the 128-bit evaluation. T = 100:
    the bound (0.0321) is above the remove direction's eps (0.03096): the check answers False
    at 53 bits too (the add direction is inverted)."""
    precs = []
    real = cf_bounds.chernoff

    def spy(factors, kind, arg, c, prec=128, ends=False):
        precs.append(prec)
        return real(factors, kind, arg, c, prec, ends)

    monkeypatch.setattr(cf_bounds, "chernoff", spy)
    assert cf_route._eps_below([(sampled_law(MU, Q, "add"), 10)], D, 0.0091)
    assert precs == [53]
    precs.clear()
    assert not cf_route._eps_below([(sampled_law(MU, Q, "add"), 100)], D, 0.030956486957)
    assert precs == [53]


def test_the_decisions_beside_dp_accounting():
    """The decisions above beside dp_accounting's pessimistic PLD of each direction (an upper
    bound of each direction's eps, by a discretised convolution): T = 10, the add direction's
    eps(1e-5) is at most 0.0091 (below the remove direction's); T = 100, both directions as
    the route finds them (add 0.02861 below remove 0.03096), the add direction not the
    maximum though its Chernoff bound cannot show it."""
    dp_pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    one = dp_pld.from_gaussian_mechanism(4.0, sampling_prob=Q, pessimistic_estimate=True,
                                         value_discretization_interval=1e-4,
                                         use_connect_dots=True)
    ten = one.self_compose(10)
    assert ten._pmf_add.get_epsilon_for_delta(D) <= 0.0091
    assert ten._pmf_remove.get_epsilon_for_delta(D) >= 0.0091
    hundred = one.self_compose(100)
    add, remove = (hundred._pmf_add.get_epsilon_for_delta(D),
                   hundred._pmf_remove.get_epsilon_for_delta(D))
    assert 0.02861 <= add <= 0.02861 * 1.01 and 0.030956 <= remove <= 0.030956 * 1.01


@pytest.mark.parametrize("T,eps", [(3, 0.0049155), (10, 0.0091), (30, 0.01625), (100, 0.030956)])
def test_epsilon_c_minimises_the_bound(T, eps):
    """The abscissa of ``epsilon_c`` (a float grid minimum of the eps bound, DP-SGD's add
    direction): the certified bound there holds the mpmath value of the same expression (40
    digits, quadrature), which is at most its value at 1.05 c and c / 1.05 (a minimiser to
    about the grid's step) and at most its value at the saddle point for the remove
    direction's eps that the route took before (``some_c``)."""
    factors = [(sampled_law(MU, Q, "add"), T)]
    c = cf_bounds.epsilon_c(factors, D)
    ref = _mpmath_eps_bound("add", T, c)
    assert cf_bounds.chernoff(factors, "epsilon", D, c, 53) >= ref
    assert ref <= _mpmath_eps_bound("add", T, 1.05 * c)
    assert ref <= _mpmath_eps_bound("add", T, c / 1.05)
    assert ref <= _mpmath_eps_bound("add", T, cf_bounds.some_c(factors, eps))


def test_epsilon_c_needs_vectorised_laws():
    """A law without ``log_mgf_many`` leaves the choice to the saddle point (None)."""

    class Plain:
        def cumulants(self, c):
            return 0.0, 0.0, 1.0

    assert cf_bounds.epsilon_c([(Plain(), 3)], D) is None
    assert cf_bounds.epsilon_c([(sampled_law(MU, Q, "add"), 3)], 0.0) is None
