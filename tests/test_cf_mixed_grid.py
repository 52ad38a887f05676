"""Many Laplace factors whose scales lie on one grid (numeric/cf_mixed_grid.py and the route
``grid_enclosure`` of numeric/cf_mixed_split.py): the exactly summed part against every term
summed by numeric/cf_mixed_tails.py (3^r Irwin-Hall-type pieces, a different sum) and against
the nested mpmath quadrature of tests/references/laplace_mixed.py; the part of equal scales
against the binomial split of numeric/cf_lattice.py; the remainder's transform against the
factors' own moment generating functions; the whole route against the identical-scale route of
a power (a different split) and, for a hundred factors, against dp_accounting's pessimistic and
optimistic bounds (slow)."""

from __future__ import annotations

import warnings
from fractions import Fraction as F

import pytest
import sympy as sp
from flint import acb, arb

import tradeoff_algebra as ta
from tradeoff_algebra.families.laplace import LaplaceLaw
from tradeoff_algebra.numeric.cf import delta_enclosure
from tradeoff_algebra.numeric.cf_lattice import ExactPart
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.cf_mixed_grid import GridPart, grid_of
from tradeoff_algebra.numeric.cf_mixed_grid_remainder import GridRemainder
from tradeoff_algebra.numeric.cf_mixed_split import GRID_SPLIT, grid_enclosure
from tradeoff_algebra.numeric.cf_mixed_tails import MixedTails
from tradeoff_algebra.numeric.context import mp


def _laws(mus):
    return [LaplaceLaw(m) for m in mus]


def _meet(a: arb, b: arb) -> bool:
    """Do two balls that should hold the same number overlap?"""
    return bool(a.overlaps(b))


@pytest.mark.parametrize("mus", [
    (F(1, 2), F(1, 3)),
    (F(1, 10), F(1, 5), F(3, 10)),
    (F(1), F(1, 2), F(1, 3), F(1, 4)),
    tuple(F(1, 10) + F(i, 100) for i in range(5)),
])
def test_every_term_exact_agrees_with_the_mixed_tails(mus):
    """J = r: no remainder, so the part is the whole product's tails; cf_mixed_tails sums the
    3^r terms with their own pieces."""
    laws = _laws(mus)
    part = GridPart(laws, J=len(laws))
    ref = MixedTails(laws, 1e-30)
    top = float(sum(mus))
    for eps in (0.013, 0.05, 0.3, 0.7, 0.93 * top):
        power, ealpha = part.tails(eps)
        q = ref.point(eps)
        with working_precision(200):
            assert _meet(power - ealpha, q.delta)
            assert _meet(power, q.power)
            assert _meet(ealpha, arb(eps).exp() * q.alpha)
            assert (power - ealpha).rad() < 1e-40  # (exact sums: the balls' radius only)


def test_every_term_exact_against_the_nested_quadrature():
    from references.laplace_mixed import tail

    mus = (F(1, 2), F(1, 3))
    part = GridPart(_laws(mus), J=2)
    for eps in (0.1, 0.55):
        with mp.workdps(30):
            ms = [mp.mpf(m.numerator) / m.denominator for m in mus]
            e = mp.mpf(eps)
            ref = tail(ms, True, e) - mp.exp(e) * tail(ms, False, e)
        d = part.terms(eps)[0]
        with mp.workdps(30):
            assert abs(mp.mpf(d.mid().str(40, radius=False)) - ref) < mp.mpf(10) ** -22


@pytest.mark.parametrize("k, J", [(6, 2), (9, 4)])
def test_equal_scales_agree_with_the_binomial_split(k, J):
    """k equal factors: the part with at most J density components is cf_lattice's ExactPart
    with J + 1 terms (j < J + 1), Irwin-Hall pieces summed by binomial weights."""
    law = LaplaceLaw(F(1, 10))
    part = GridPart([law] * k, J=J)
    ref = ExactPart(law, k, J + 1)
    for eps in (0.02, 0.15, 0.33):
        with working_precision(300):
            a, da = part.terms(eps)
            b, db = ref.terms(eps)
            assert _meet(a, b) and _meet(da, db)
            assert a.rad() < 1e-40


@pytest.mark.parametrize("J", [0, 1, 3, 6])
def test_equal_scales_agree_with_the_binomial_split_across_blocks(J):
    """300 equal factors (S = 300: three blocks of the kept sums above S/2): queries inside a
    block, at a block's start (no head) and beyond the first block, where the moments are moved
    from the next block start (GridPart's matrix products), against cf_lattice's ExactPart
    (binomial weights of Irwin-Hall pieces, another sum)."""
    law = LaplaceLaw(F(1, 10))
    part = GridPart([law] * 300, J=J)
    ref = ExactPart(law, 300, J + 1)
    for i0 in (1, 2, 63, 64, 65, 128, 130):
        eps = 0.1 * (2 * i0 - 1)  # (n0 = S/2 + i0: midway between two atoms)
        with working_precision(300):
            a, da = part.terms(eps)
            b, db = ref.terms(eps)
            assert _meet(a, b) and _meet(da, db)
            assert a.rad() < 1e-40 * max(abs(float(b.mid())), 1e-300)
            assert b.rad() < 1e-3 * abs(b.mid())  # (the reference decides the digits)


def test_the_remainder_is_the_law_minus_the_exact_part():
    """J = 0: the part is the atoms alone, so R = prod M_i - prod c_i (x_i + 1/x_i) with the
    factors' own closed-form M_i; and the decay bounds hold at sample points."""
    laws = _laws([F(1, 10) + F(i, 100) for i in range(4)])
    part = GridPart(laws, J=0)
    rem = GridRemainder(part)
    with working_precision(200):
        for z in (acb(1, 0), acb(1.5, 3.7), acb(0.3, 40)):
            whole, atoms = acb(1), acb(1)
            for law, c in zip(laws, part._cs, strict=True):
                whole *= law.mgf(z)
                x = ((z + 0.5) * law.lattice_parts()[0]).exp()
                atoms *= c * (x + 1 / x)
            assert abs(rem.mgf(z) - (whole - atoms)) < 1e-35  # (the part's 140 bits)
    rem = GridRemainder(GridPart(laws, J=2))
    with working_precision(128):
        c = arb(1.3)
        v, p = rem.power_decay(c)
        assert p == 3
        for t in (2.0, 7.5, 31.4, 200.0):
            bound = rem.decay_bound(c, arb(t))
            for s in (t, 1.37 * t, 3.1 * t):
                m = abs(rem.mgf(acb(c, arb(s))))
                assert m <= bound
                assert m <= v / arb(s) ** p


def test_grid_of_finds_the_step_and_declines_off_grid_scales():
    assert grid_of(_laws([F(1, 10), F(3, 20)])) == (F(1, 20), [2, 3])
    assert grid_of(_laws([F(1, k) for k in range(1, 51)])) is None  # (step 1/lcm(1..50))


def test_the_route_agrees_with_the_identical_scale_split_of_a_power():
    """Twenty factors Laplace(1/10) listed as two groups: the grid split (J = 8, the remainder
    inverted) against the power's lattice split of cf_lattice (cf_route)."""
    law = LaplaceLaw(F(1, 10))
    eps = 0.45
    lo, hi = grid_enclosure([(law, 10), (law, 10)], "delta", eps, eps, 1e-10)
    ref = delta_enclosure([], eps, 1e-12, ExactPart(law, 20, 21))  # (all 21 terms exact)
    assert hi - lo <= 1e-9 * hi
    assert lo <= ref[1] and ref[0] <= hi


def test_many_factors_on_a_grid_epsilon_is_certified_and_proved_by_the_delta_balls():
    laws = [(LaplaceLaw(F(1, 10) + F(i, 1000)), 1) for i in range(12)]
    lo, hi = grid_enclosure(laws, "epsilon", 1e-4, 1e-4, 1e-10)
    assert 0 < lo < hi and hi - lo <= 1e-9 * hi
    assert grid_enclosure(laws, "delta", lo, lo, 1e-12)[0] > 1e-4
    assert grid_enclosure(laws, "delta", hi, hi, 1e-12)[1] < 1e-4


def test_off_grid_scales_keep_the_other_routes():
    laws = [(LaplaceLaw(F(1, k)), 1) for k in range(1, 51)]
    assert grid_enclosure(laws, "delta", 0.5, 0.5, 1e-10) is None  # (step 1/lcm(1..50))


def _product(mus):
    f = ta.Laplace(mus[0])
    for m in mus[1:]:
        f = f @ ta.Laplace(m)
    return f


@pytest.mark.slow
def test_a_hundred_scales_against_dp_accounting():
    """eps(1e-6) of (x)_{i<100} Laplace(1/10 + i/10^4) at 1e-9, certified, inside
    dp_accounting's pessimistic/optimistic bracket at grid 1e-5."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    mus = [F(1, 10) + F(i, 10**4) for i in range(100)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(_product(mus), F(1, 10**6))
    assert v.guarantee == "certified" and GRID_SPLIT in (v.route or "")
    lo, hi = (float(x) for x in v.interval())
    assert hi - lo <= 1e-9 * hi
    bounds = []
    for pess in (True, False):
        acc = None
        for m in mus:
            one = pld.from_laplace_mechanism(1.0, sensitivity=float(m),
                                             value_discretization_interval=1e-5,
                                             pessimistic_estimate=pess)
            acc = one if acc is None else acc.compose(one)
        bounds.append(acc.get_epsilon_for_delta(1e-6))
    assert bounds[1] - 1e-6 <= lo and hi <= bounds[0] + 1e-6


def test_grid_tails_of_equal_scales_agree_with_the_lattice_tails():
    """Twenty factors Laplace(1/10) as a list: the grid split's points (exact part plus the
    remainder's tail inversion) against cf_lattice_tails' points of the power (binomial
    split, Irwin-Hall pieces, its own remainder)."""
    from tradeoff_algebra.numeric.cf_lattice_tails import LatticeTails
    from tradeoff_algebra.numeric.cf_mixed_grid_tails import GridTails

    law = LaplaceLaw(F(1, 10))
    mine = GridTails([law] * 20, 1e-12)
    ref = LatticeTails(law, 20, 0.4, 1e-12)
    for eps in (0.13, 0.4, 0.9):
        p, q = mine.point(eps), ref.point(eps)
        with working_precision(128):
            for a, b in ((p.delta, q.delta), (p.power, q.power), (p.alpha, q.alpha)):
                assert _meet(a, b)
            assert p.power.rad() < 1e-11 * p.power.mid()


def test_a_roc_point_lies_on_the_support_line_of_the_delta_route():
    """1 - f(alpha) = delta(eps) + e^eps alpha at the level's own threshold: the roc value of
    12 scales on a grid (tail inversion) against delta from the delta route (the remainder's
    delta inverted with the exact part added, another sum)."""
    from tradeoff_algebra.numeric.cf_mixed_grid_tails import GridTails

    mus = [F(1, 10) + F(i, 1000) for i in range(12)]
    laws = _laws(mus)
    tails = GridTails(laws, 1e-12)
    eps = 0.31
    p = tails.point(eps)
    lo, hi = grid_enclosure([(law, 1) for law in laws], "delta", eps, eps, 1e-12)
    with working_precision(128):
        line = p.power - arb(eps).exp() * p.alpha
        assert line.lower() <= hi and lo <= line.upper()
        alpha = float(p.alpha.mid())
    with ta.pld_options(tol=1e-9):
        v = ta.roc(_product(mus), alpha)
    assert v.guarantee == "certified"
    vlo, vhi = (float(x) for x in v.interval())
    assert vhi - vlo <= 1e-9 * vhi
    # (f at the float alpha near the point's own: the power moves by at most the density there)
    assert abs(0.5 * (vlo + vhi) - float(p.power.mid())) < 1e-9


def test_a_build_that_cannot_fit_the_time_limit_is_refused_at_once():
    from tradeoff_algebra.numeric import budget

    mus = [F(1, 10) + F(i, 10**4) for i in range(100)]
    with pytest.raises(budget.TimeLimitExceeded, match="exact part"):
        with ta.time_limit(0.05), budget.call("grid"):
            grid_enclosure([(law, 1) for law in _laws(mus)], "delta", 4.9, 4.9, 1e-10)


def test_the_mass_left_out_is_the_binomial_head():
    """k equal factors: the A-mass of the terms with at most J density components is
    sum_{j<=J} C(k, j) a^{k-j} u^j with a = P(atom) = (1 + e^{-mu})/2 and u = (1 - e^{-mu})/2
    (the factor's atoms and density under Q = Lap(mu, 1))."""
    from math import comb

    from tradeoff_algebra.numeric.cf_mixed_mass import MassPart

    mu, k, J = F(1, 7), 30, 4
    part = MassPart(_laws([mu] * k), J)
    with mp.workdps(40):
        e = mp.exp(-mp.mpf(mu.numerator) / mu.denominator)
        a, u = (1 + e) / 2, (1 - e) / 2
        ref = sum(comb(k, j) * a ** (k - j) * u**j for j in range(J + 1))
        m = mp.mpf(part.mass.mid().str(40, radius=False))
        assert abs(m - ref) <= 1e-25 * ref + mp.mpf(part.mass.rad().str(5, radius=False))


@pytest.mark.slow
def test_a_thousand_scales_roc_point_on_the_support_line_of_the_whole_inversion():
    """(x)_{i<1000} Laplace(1/10 + i/10^5), a grid too fine for the exact part: the part
    bounded by its mass and the remainder's tails inverted; the point's support line against
    delta from the inversion of the whole product (cf.delta_enclosure, another route)."""
    from tradeoff_algebra.numeric.cf_mixed_grid_tails import GridTails

    laws = _laws([F(1, 10) + F(i, 10**5) for i in range(1000)])
    tails = GridTails(laws, 1e-11)
    eps = 2.3
    p = tails.point(eps)
    with working_precision(64):
        lo, hi = delta_enclosure([(law, 1) for law in laws], eps, 1e-11)
    with working_precision(128):
        line = p.power - arb(eps).exp() * p.alpha
        assert line.lower() <= hi and lo <= line.upper()
        assert p.power.rad() < 1e-9 * p.power.mid()


def test_the_grid_split_names_its_route():
    """roc of nine factors on one grid of scales (more than every term exact admits) comes from
    the split, and its route says so, not "every term summed exactly"."""
    from tradeoff_algebra.routes.tail_laws import MIXED_GRID_ROUTE, MIXED_ROUTE
    f = ta.Tensor(*[ta.Laplace(sp.Rational(1, 2) + sp.Rational(i, 100)) for i in range(9)])
    v = ta.roc(f, sp.Rational(1, 100))
    assert v.guarantee == "certified" and v.route == MIXED_GRID_ROUTE != MIXED_ROUTE


def test_the_parts_slopes_are_the_derivatives_of_its_tails():
    """GridPart.slopes (placement: the part's density from its moments) against central
    differences of the part's own tail balls at points between atoms."""
    part = GridPart(_laws([F(1, 10) + F(i, 1000) for i in range(12)]), J=4)
    step = 1e-7
    for eps in (0.1234, 0.37, 0.81):
        _, _, dp, da = part.slopes(eps)
        p1, a1, _, _ = part.slopes(eps + step)
        p2, a2, _, _ = part.slopes(eps - step)
        assert abs(dp - (p1 - p2) / (2 * step)) < 1e-6 * abs(dp)
        assert abs(da - (a1 - a2) / (2 * step)) < 1e-6 * abs(da)
