"""Certified covers of parameter boxes (tradeoff_algebra/verify/cover.py): claims whose answer
is known both ways. A true inequality is proved on the box; a false one gives a certified
counterexample inside the box, checked here independently at higher precision (mpmath at 60
digits in the thread's context)."""

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.verify.cover import cover, node_direction, scalar_direction

R = sp.Rational
mu, u, d, y = sp.symbols("mu u delta y", positive=True)


def _num(x, digits=60):
    with mp.workdps(digits):
        return mp.mpf(sp.Float(sp.N(x, digits + 10), digits + 10))


def test_true_inequality_with_end_tangency_is_proved():
    # sqrt(5) >= sqrt(mu^2 + 1) on [1, 2]: equality at mu = 2, decided at the face
    res = cover(sp.sqrt(5), ">=", sp.sqrt(mu**2 + 1), {mu: (1, 2)})
    assert res.status is True and res.faces >= 1 and not res.undecided, res.evidence


def test_false_inequality_gives_a_counterexample_checked_independently():
    res = cover(sp.sqrt(5), ">=", sp.sqrt(mu**2 + 1), {mu: (1, 3)})
    assert res.status is False
    m = sp.sympify(res.counterexample["mu"])
    assert 1 <= m <= 3
    with mp.workdps(60):
        assert mp.sqrt(5) < mp.sqrt(_num(m) ** 2 + 1)


def test_two_dimensional_gaussian_tail_box():
    """Phi(-(u/2 + log(1/delta)/u)) <= delta (Kaissis et al., Cor. 11: true for all u, delta);
    the same with delta/100 on the right fails, and the counterexample is checked with
    mpmath's normal distribution at 60 digits."""
    lhs = ta.Phi(-(u / 2 + sp.log(1 / d) / u))
    box = {u: (R(1, 2), 8), d: (R(1, 10**6), R(1, 2))}
    ok = cover(lhs, "<=", d, box)
    assert ok.status is True and ok.cells >= 1, ok.evidence
    bad = cover(lhs, "<=", d / 100, box)
    assert bad.status is False
    uu, dd = (sp.sympify(bad.counterexample[k]) for k in ("u", "delta"))
    assert R(1, 2) <= uu <= 8 and R(1, 10**6) <= dd <= R(1, 2)
    with mp.workdps(60):
        U, D = _num(uu), _num(dd)
        assert mp.ncdf(-(U / 2 + mp.log(1 / D) / U)) > D / 100


def test_directions_are_proved_not_assumed():
    cell = {mu: (R(1), R(2))}
    assert scalar_direction(mu**2, mu, cell) == 1
    assert scalar_direction(1 / mu, mu, cell) == -1
    assert scalar_direction(sp.sin(3 * mu), mu, cell) is None  # changes sign on [1, 2]
    assert scalar_direction(sp.Abs(mu - R(3, 2)), mu, cell) is None  # not smooth: no test
    assert node_direction(ta.G(mu), mu, cell) == -1
    assert node_direction(ta.G(1 / mu), mu, cell) == 1
    assert node_direction(ta.G(mu) @ ta.Laplace(mu), mu, cell) == -1


def test_functional_with_free_parameters_by_corners():
    # delta_{G_mu}(1) is non-decreasing in mu: below delta_{G_2}(1) on [1, 2] (touching at 2),
    # and not below delta_{G_{3/2}}(1) there
    lhs = ta.Functional("delta", ta.G(mu), 1)
    assert cover(lhs, "<=", ta.Functional("delta", ta.G(2), 1), {mu: (1, 2)}).status is True
    bad = cover(lhs, "<=", ta.Functional("delta", ta.G(R(3, 2)), 1), {mu: (1, 2)})
    assert bad.status is False
    m = _num(sp.sympify(bad.counterexample["mu"]))
    with mp.workdps(60):
        def dl(x):  # the Gaussian profile (Dong, Roth & Su, Cor. 1), at 60 digits
            return mp.ncdf(-1 / x + x / 2) - mp.e * mp.ncdf(-1 / x - x / 2)
        assert dl(m) > dl(mp.mpf(3) / 2)


def test_tradeoff_claim_over_a_box_by_corners():
    """Berry-Esseen's lower side (Dong, Roth & Su, Thm. 5) for f_{eps,0}^{(x) 12} on
    eps = log(1 + y), y in [1/4, 1/2], is proved by the cover; G_mu >= G_{3/2} on mu in [1, 2]
    fails, with a counterexample checked at 60 digits."""
    be = ta.berry_esseen(ta.EpsDelta(sp.log(1 + y), 0), 12)
    v = ta.verify(ta.BinomialDP(sp.log(1 + y), 12), ">=", be.lower, over={y: (R(1, 4), R(1, 2))})
    assert v.status is True and v.method == "certified cover", v
    w = ta.verify(ta.G(mu), ">=", ta.G(R(3, 2)), over={mu: (1, 2)})
    assert w.status is False
    ce = w.counterexample
    m, a = _num(sp.sympify(ce["mu"])), _num(sp.sympify(ce["alpha"]))
    with mp.workdps(60):
        z = -mp.sqrt(2) * mp.erfinv(2 * a - 1)  # Phi^{-1}(1 - a)
        assert mp.ncdf(z - m) < mp.ncdf(z - mp.mpf(3) / 2)


def test_direction_where_the_derivative_touches_zero():
    """e^x - 1 - x on [0, 1]: its derivative e^x - 1 is 0 at x = 0, so no enclosure of it is
    >= 0; its own derivative e^x > 0 makes it monotone, with the end value e^0 - 1 = 0 exact:
    the direction is proved (and the values at a grid, at 60 digits, do increase).
    sqrt(mu^2 + y^2) on [0, 2]^2: the derivative mu / sqrt(mu^2 + y^2) has no enclosure at the
    corner (0, 0); its sign follows from the symbols' assumptions."""
    x = sp.Symbol("x", real=True)
    e = sp.exp(x) - 1 - x
    assert scalar_direction(e, x, {x: (R(0), R(1))}) == 1
    with mp.workdps(60):
        vals = [mp.exp(mp.mpf(k) / 8) - 1 - mp.mpf(k) / 8 for k in range(9)]
        assert all(a < b for a, b in zip(vals, vals[1:], strict=False))
    box = {mu: (R(0), R(2)), y: (R(0), R(2))}
    assert scalar_direction(sp.sqrt(mu**2 + y**2), mu, box) == 1
