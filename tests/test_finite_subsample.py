"""C_p(f) and f_p of finite products (numeric/finite_subsample.py): exact where the masses are
rational, certified (Arb) otherwise, against brute-force Neyman-Pearson over the enumerated
product pair (tests/references/mixed_finite.py): in Fraction for randomized response with
e^eps = 3, in mpmath at 50 digits for e^eps = e; the hull by a lower convex hull of the
minimum's points, the profile by the conjugate route max{delta_{f_p}, delta_{f_p^{-1}}}."""

from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from references import mixed_finite as ref

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import EstimateWarning
from tradeoff_algebra.numeric.finite import finite_loss

R = sp.Rational
P10 = R(1, 10)


def _rr_fraction(k: int, e: Fraction) -> list:
    """Randomized response with k answers and ratio e: the outcome of the true answer, of the
    neighbour's, and k - 2 others (P, Q) in Fraction."""
    z = e + k - 1
    return [(e / z, 1 / z), (1 / z, e / z)] + [(1 / z, 1 / z)] * (k - 2)


def _rr_mp(k: int, e) -> list:
    z = e + k - 1
    return [(e / z, 1 / z), (1 / z, e / z)] + [(1 / z, 1 / z)] * (k - 2)


def test_rational_cp_exact_against_brute_force():
    """C_{1/10}(RR(log 3, 5)^3): exact values equal the lower hull of min{f_p, f_p^{-1}}
    computed from the 125 enumerated outcomes in Fraction; delta at e^eps = 2 equals the
    larger hockey stick of the two directions (the conjugate construction)."""
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(sp.log(3), 5), 3))
    pairs = ref.product([_rr_fraction(5, Fraction(3))] * 3)
    mix = ref.mixed(pairs, Fraction(1, 10))
    hull = ref.hull_of_min(mix, ref.swapped(mix))
    for a in (R(0), R(1, 1000), R(1, 100), R(1, 7), R(3, 10), R(1, 2), R(9, 10)):
        v = ta.evaluate(f, a)
        assert v.guarantee == "exact"
        assert Fraction(str(v.exact)) == ref.pl_at(hull, Fraction(int(a.p), int(a.q)))
    d = ta.delta(f, sp.log(2))
    truth = max(ref.hockey(mix, Fraction(2)), ref.hockey(ref.swapped(mix), Fraction(2)))
    assert d.guarantee == "exact" and d.exact == sp.Rational(truth.numerator, truth.denominator)


def test_irrational_cp_certified_against_mpmath():
    """C_{1/10}(RR(1, 3)^4): roc and evaluate certified, their one-unit intervals holding the
    hull of the 81 enumerated outcomes at 50 digits; delta certified against the conjugate."""
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(1, 3), 4))
    with mpmath.workdps(50):
        pairs = ref.product([_rr_mp(3, mpmath.e)] * 4)
        mix = ref.mixed(pairs, mpmath.mpf(1) / 10)
        hull = ref.hull_of_min(mix, ref.swapped(mix))
        for a in (R(1, 100), R(1, 5), R(1, 2), R(4, 5)):
            x = mpmath.mpf(a.p) / a.q
            truth = ref.pl_at(hull, x)
            power = 1 - truth
            v = ta.roc(f, a, dps=25)
            lo, hi = v.interval()
            assert v.guarantee == "certified" and lo <= power <= hi
            w = ta.evaluate(f, a, dps=25)
            lo, hi = w.interval()
            assert w.guarantee == "certified" and lo <= truth <= hi
        for e in (R(1, 2), R(3, 2)):
            t = mpmath.exp(mpmath.mpf(e.p) / e.q)
            truth = max(ref.hockey(mix, t), ref.hockey(ref.swapped(mix), t))
            d = ta.delta(f, e, dps=25)
            lo, hi = d.interval()
            assert d.guarantee == "certified" and lo <= truth <= hi


def test_irrational_cp_epsilon_bracket():
    """eps(1e-3) of C_{1/10}(RR(1, 3)^4) is certified, and the brute-force conjugate profile at
    50 digits is above 1e-3 just below it and at most 1e-3 at its upper end."""
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(1, 3), 4))
    v = ta.epsilon(f, R(1, 1000), dps=20)
    assert v.guarantee == "certified"
    with mpmath.workdps(50):
        pairs = ref.product([_rr_mp(3, mpmath.e)] * 4)
        mix = ref.mixed(pairs, mpmath.mpf(1) / 10)

        def prof(eps):
            t = mpmath.exp(eps)
            return max(ref.hockey(mix, t), ref.hockey(ref.swapped(mix), t))

        lo, hi = v.interval()
        assert prof(mpmath.mpf(lo) * (1 - mpmath.mpf(10) ** -15)) > mpmath.mpf(1) / 1000
        assert prof(mpmath.mpf(hi)) <= mpmath.mpf(1) / 1000


def test_cp_curve_certified_band():
    """The whole curve of C_{1/10}(RR(1, 3)^4) with bounds=True: no estimate, and every band
    holds the brute-force hull."""
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(1, 3), 4))
    x = np.linspace(0, 1, 41)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EstimateWarning)
        lo, hi = ta.curve(f, x, bounds=True)
    with mpmath.workdps(30):
        pairs = ref.product([_rr_mp(3, mpmath.e)] * 4)
        mix = ref.mixed(pairs, mpmath.mpf(1) / 10)
        hull = ref.hull_of_min(mix, ref.swapped(mix))
        truth = np.array([float(ref.pl_at(hull, mpmath.mpf(a))) for a in x])
    assert np.all(lo <= truth + 1e-15) and np.all(truth <= hi + 1e-15)
    assert float(np.max(hi - lo)) < 1e-12


def test_mix_of_finite_product():
    """f_p = p f + (1 - p) Id of RR(log 3, 5)^2 (rational masses) exact at two levels, against
    the mixture pair's brute-force Neyman-Pearson value in Fraction."""
    h = ta.Mix(ta.TensorPower(ta.randomized_response(sp.log(3), 5), 2), R(1, 4))
    mixq = ref.mixed(ref.product([_rr_fraction(5, Fraction(3))] * 2), Fraction(1, 4))
    for a in (R(1, 10), R(2, 3)):
        v = ta.evaluate(h, a)
        assert v.guarantee == "exact"
        assert Fraction(str(v.exact)) == ref.np_value(mixq, Fraction(int(a.p), int(a.q)))


def test_atoms_in_proved_order():
    """The subsampled pair's atoms: ratios strictly decreasing as built (the order the Arb
    balls are read in), and both sides sum to one."""
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(sp.log(3), 5), 3))
    fl = finite_loss(f)
    atoms = fl.atoms()
    ratios = [r for r, _, _ in atoms]
    assert all(a > b for a, b in zip(ratios, ratios[1:], strict=False))
    assert sum(p for _, p, _ in atoms) == 1 and sum(q for _, _, q in atoms) == 1


@pytest.mark.parametrize("p", [R(0), R(1)])
def test_p_at_the_ends_not_built_here(p):
    """p = 0 and p = 1 are the rules' (Id, C(f)): no table is built for them here."""
    from tradeoff_algebra.numeric.finite_subsample import subsample_finite_loss

    fl = finite_loss(ta.TensorPower(ta.randomized_response(sp.log(3), 5), 2))
    assert subsample_finite_loss(fl, p) is None


def test_power_of_subsampled_pair_certified():
    """C_{1/10}(RR(1, 3))^{(x) 50}: the subsampled pair is now finite (three atoms of ratios
    rho, 1, 1/rho), so the power is a lattice product answered in Arb. Reference: the atoms
    read off the brute-force hull's knots (width and drop of each piece) at 50 digits, their
    50-fold law by trinomial counts, eps(1e-6) bracketed by its hockey-stick sums."""
    from math import comb

    f = ta.TensorPower(ta.C(P10, ta.randomized_response(1, 3)), 50)
    v = ta.epsilon(f, R(1, 10**6), dps=20)
    assert v.guarantee == "certified"
    with mpmath.workdps(50):
        mix = ref.mixed(_rr_mp(3, mpmath.e), mpmath.mpf(1) / 10)
        k = ref.hull_of_min(mix, ref.swapped(mix))
        pieces: list = []
        for (x0, y0), (x1, y1) in zip(k, k[1:], strict=False):
            if not x1 > x0:
                continue
            w, h = x1 - x0, y0 - y1
            if pieces and abs(h / w - pieces[-1][1] / pieces[-1][0]) < mpmath.mpf(10) ** -30:
                w, h = w + pieces[-1][0], h + pieces[-1][1]  # (collinear within rounding)
                pieces.pop()
            pieces.append((w, h))
        assert len(pieces) == 3  # (ratios rho > 1 = 1 > 1/rho)
        (pa, qa), (pz, qz), (pb, qb) = pieces
        pairs = []
        for u in range(51):
            for w in range(51 - u):
                c = comb(50, u) * comb(50 - u, w)
                rest = 50 - u - w
                pairs.append((c * pa**u * pb**w * pz**rest, c * qa**u * qb**w * qz**rest))
        lo, hi = v.interval()
        d = mpmath.mpf(10) ** -6
        assert ref.hockey(pairs, mpmath.exp(mpmath.mpf(lo))) > d
        assert ref.hockey(pairs, mpmath.exp(mpmath.mpf(hi))) <= d


def test_asymmetric_rational_cp_exact():
    """C_{1/10}(f) for the asymmetric f = T(P, Q)^3, P = (1/2, 1/2), Q = (1/4, 3/4): exact values
    against the hull of min{f_p, f_p^{-1}} built from the minimum at the knots and at every
    crossing of two pieces (the reference's construction; the library takes the lower hull of
    both knot sets), and delta at e^eps = 3/2 against the larger hockey stick of the two
    directions (the conjugate route)."""
    P, Q = [Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 4), Fraction(3, 4)]
    g = ta.TensorPower(ta.Discrete([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)]), 3)
    f = ta.C(P10, g)
    pairs = ref.product([list(zip(P, Q, strict=True))] * 3)
    mix = ref.mixed(pairs, Fraction(1, 10))
    hull = ref.hull_of_min(mix, ref.swapped(mix))
    for a in (R(0), R(1, 100), R(1, 5), R(1, 2), R(7, 10)):
        v = ta.evaluate(f, a)
        assert v.guarantee == "exact"
        assert Fraction(str(v.exact)) == ref.pl_at(hull, Fraction(int(a.p), int(a.q)))
    d = ta.delta(f, sp.log(R(3, 2)))
    truth = max(ref.hockey(mix, Fraction(3, 2)), ref.hockey(ref.swapped(mix), Fraction(3, 2)))
    assert d.guarantee == "exact" and d.exact == sp.Rational(truth.numerator, truth.denominator)
    e = ta.epsilon(f, R(1, 1000))
    assert e.guarantee in ("certified", "exact")


def test_asymmetric_irrational_cp_certified():
    """C_{1/10}(f), f = T(P, Q)^3 with P = (e^-1/2, 1 - e^-1/2), Q = (1/4, 3/4): the hull of
    closed-form knots decided by Arb orientations; roc, delta and eps certified against the
    reference's hull through every crossing and the conjugate profile at 50 digits."""
    e = sp.exp(-1) / 2
    f = ta.C(P10, ta.TensorPower(ta.Discrete([e, 1 - e], [R(1, 4), R(3, 4)]), 3))
    with mpmath.workdps(50):
        em = mpmath.exp(-1) / 2
        pairs = ref.product([[(em, mpmath.mpf(1) / 4), (1 - em, mpmath.mpf(3) / 4)]] * 3)
        mix = ref.mixed(pairs, mpmath.mpf(1) / 10)
        hull = ref.hull_of_min(mix, ref.swapped(mix))
        for a in (R(1, 100), R(1, 3), R(3, 4)):
            power = 1 - ref.pl_at(hull, mpmath.mpf(a.p) / a.q)
            v = ta.roc(f, a, dps=25)
            lo, hi = v.interval()
            assert v.guarantee == "certified" and lo <= power <= hi
        t = mpmath.exp(mpmath.mpf(1) / 50)
        truth = max(ref.hockey(mix, t), ref.hockey(ref.swapped(mix), t))
        d = ta.delta(f, R(1, 50), dps=25)
        lo, hi = d.interval()
        assert d.guarantee == "certified" and truth > 0 and lo <= truth <= hi
        v = ta.epsilon(f, R(1, 100), dps=25)
        assert v.guarantee == "certified"
        lo, hi = v.interval()

        def prof(x):
            u = mpmath.exp(x)
            return max(ref.hockey(mix, u), ref.hockey(ref.swapped(mix), u))

        assert prof(mpmath.mpf(lo)) > mpmath.mpf(1) / 100 >= prof(mpmath.mpf(hi))


# -- C_p(f) of a large operand from its Arb balls (numeric/subsample_balls.py) ------------------
def _mixed_law(n: int) -> list:
    """The pair of f_p for f = RR(1, 3)^n, p = 1/10, from the trinomial law (one outcome per
    exponent d, merged: its ratios e^d are distinct) at the caller's mpmath precision."""
    law = ref.rr_law_mp(n, 3, mpmath.e)
    return ref.mixed([(p, q) for _, p, q in law], mpmath.mpf(1) / 10)


def _profile(mix: list, eps) -> mpmath.mpf:
    """delta of C_p(f) = max of the hockey sums of f_p and f_p^{-1} (the conjugate route)."""
    t = mpmath.exp(eps)
    return max(ref.hockey(mix, t), ref.hockey(ref.swapped(mix), t))


def test_large_cp_certified_against_hull():
    """C_{1/10}(RR(1, 3)^30), whose SymPy table is not built: evaluate and roc certified, their
    one-unit intervals holding the lower hull of min{f_p, f_p^{-1}} of the trinomial law at 50
    digits (sorting by cross products, Andrew's chain on the minimum's points)."""
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(1, 3), 30))
    with mpmath.workdps(50):
        mix = _mixed_law(30)
        hull = ref.hull_of_min(mix, ref.swapped(mix))
        for a in (R(1, 10**6), R(1, 100), R(1, 5), R(1, 2), R(9, 10)):
            truth = ref.pl_at(hull, mpmath.mpf(a.p) / a.q)
            v = ta.roc(f, a, dps=25)
            lo, hi = v.interval()
            assert v.guarantee == "certified" and lo <= 1 - truth <= hi
            w = ta.evaluate(f, a, dps=25)
            lo, hi = w.interval()
            assert w.guarantee == "certified" and lo <= truth <= hi


def test_large_cp_curve_band():
    """The 101-level curve of C_{1/10}(RR(1, 3)^30) with bounds=True: no estimate, every band
    holding the brute-force hull of the trinomial law."""
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(1, 3), 30))
    x = np.linspace(0, 1, 101)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EstimateWarning)
        lo, hi = ta.curve(f, x, bounds=True)
    with mpmath.workdps(50):
        mix = _mixed_law(30)
        hull = ref.hull_of_min(mix, ref.swapped(mix))
        truth = [ref.pl_at(hull, mpmath.mpf(a)) for a in x]
        # (the reference's own rounding at 50 digits: 1e-40 covers it; a float bound rounded
        # outward holds the nearest float of a value it holds)
        assert all(lo[i] <= t + mpmath.mpf(10) ** -40 and t - mpmath.mpf(10) ** -40 <= hi[i]
                   for i, t in enumerate(truth))
    assert float(np.max(hi - lo)) < 1e-12


def test_large_cp_delta_and_eps_n100():
    """C_{1/10}(RR(1, 3)^100): delta(eps) certified within one unit of the larger hockey-stick
    sum of the two directions of the mixture pair (trinomial law, 50 digits); eps(1e-6)
    certified, the same profile above 1e-6 just below its lower end and at most 1e-6 at its
    upper end."""
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(1, 3), 100))
    with mpmath.workdps(50):
        mix = _mixed_law(100)
        for e in (R(0), R(1, 2), R(1), R(20)):
            d = ta.delta(f, e, dps=25)
            lo, hi = d.interval()
            assert d.guarantee in ("certified", "exact")
            assert lo <= _profile(mix, mpmath.mpf(e.p) / e.q) <= hi
        v = ta.epsilon(f, R(1, 10**6), dps=20)
        assert v.guarantee == "certified"
        lo, hi = v.interval()
        d = mpmath.mpf(10) ** -6
        assert _profile(mix, mpmath.mpf(lo) * (1 - mpmath.mpf(10) ** -15)) > d
        assert _profile(mix, mpmath.mpf(hi)) <= d


def test_ball_table_against_enumeration():
    """The ball table of C_{1/10}(RR(1, 3)^4) built from the lattice laws directly: its masses
    sum to one on each side and its values (the maximum of the segments' lines) hold the hull
    of the 81 enumerated outcomes at 50 digits, unmerged."""
    from flint import arb

    from tradeoff_algebra.numeric.subsample_balls import subsampled_balls

    bl = subsampled_balls(finite_loss(ta.TensorPower(ta.randomized_response(1, 3), 4)), P10)
    masses = bl.arb_masses(200)
    assert len(masses) == 9  # (d = 4 .. 1, the ratio-1 atom, their mirror images)
    assert sum((p for p, _ in masses), arb(0)).contains(1)
    assert sum((q for _, q in masses), arb(0)).contains(1)
    with mpmath.workdps(50):
        mix = ref.mixed(ref.product([_rr_mp(3, mpmath.e)] * 4), mpmath.mpf(1) / 10)
        hull = ref.hull_of_min(mix, ref.swapped(mix))
        for a in (R(1, 1000), R(1, 10), R(1, 3), R(3, 5), R(99, 100)):
            truth = ref.pl_at(hull, mpmath.mpf(a.p) / a.q)
            ball = bl.arb_value(a, False, 200)
            mid = mpmath.mpf(ball.mid().str(60, radius=False))
            rad = mpmath.mpf(ball.rad().str(10, radius=False))
            assert rad < mpmath.mpf(10) ** -50
            assert abs(mid - truth) <= rad + mpmath.mpf(10) ** -45  # (the reference's rounding)


def test_ball_table_not_for_other_operands():
    """No ball table where the operand is not one lattice of positive masses (an f_{0,delta}
    part) or p is not an exact number in (0, 1)."""
    from tradeoff_algebra.numeric.subsample_balls import subsampled_balls

    rr = finite_loss(ta.TensorPower(ta.randomized_response(1, 3), 40))
    assert subsampled_balls(rr, R(0)) is None and subsampled_balls(rr, R(1)) is None
    assert subsampled_balls(rr, 0.1) is None
    mixed = finite_loss(ta.Tensor(ta.TensorPower(ta.randomized_response(1, 3), 40),
                                  ta.EpsDelta(1, R(1, 100))))
    assert mixed is not None and subsampled_balls(mixed, P10) is None


def test_ball_table_refused_at_once():
    """C_{1/10}(RR(1, 3)^100000) (200001 exponents) under a 1 s limit: the table is refused at
    once, the message naming its estimated time and the limit."""
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(1, 3), 100000))
    with pytest.raises(ta.TimeLimitExceeded, match="would take about"):
        with ta.time_limit(1):
            ta.epsilon(f, R(1, 10**6))


@pytest.mark.slow
def test_large_cp_n1000_against_dp_accounting():
    """C_{1/10}(RR(1, 3)^1000): delta(1) and eps(1e-6) certified, and between dp_accounting's
    optimistic and pessimistic PLDs of the same mixture pair (two PLDs, one per direction of
    C_p(f); grid 1e-4; the trinomial law's log-masses in float64, so the bracket is widened by
    1e-9 relative for their rounding)."""
    from scipy.special import gammaln, logsumexp

    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    n, p = 1000, 0.1
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(1, 3), n))
    d = ta.delta(f, 1, dps=20)
    e = ta.epsilon(f, R(1, 10**6), dps=20)
    assert d.guarantee == "certified" and e.guarantee == "certified"
    u = np.arange(n + 1)[:, None]
    w = np.arange(n + 1)[None, :]
    ok = u + w <= n
    lc = gammaln(n + 1) - gammaln(u + 1) - gammaln(w + 1) \
        - gammaln(np.maximum(n - u - w, 0) + 1)
    lz = np.log(np.e + 2)
    lP = np.where(ok, lc + w - n * lz, -np.inf)
    lQ = np.where(ok, lc + u - n * lz, -np.inf)
    P, M = {}, {}
    for k in range(-n, n + 1):
        sel = ok & (u - w == k)
        P[k] = logsumexp(lP[sel])
        M[k] = np.logaddexp(np.log1p(-p) + P[k], np.log(p) + logsumexp(lQ[sel]))
    deltas, epss = [], []
    for pess in (False, True):
        a = pld.from_two_probability_mass_functions(P, M, pessimistic_estimate=pess)
        b = pld.from_two_probability_mass_functions(M, P, pessimistic_estimate=pess)
        deltas.append(max(a.get_delta_for_epsilon(1.0), b.get_delta_for_epsilon(1.0)))
        epss.append(max(a.get_epsilon_for_delta(1e-6), b.get_epsilon_for_delta(1e-6)))
    lo, hi = d.interval()
    assert deltas[0] * (1 - 1e-9) <= float(hi) and float(lo) <= deltas[1] * (1 + 1e-9)
    lo, hi = e.interval()
    assert epss[0] * (1 - 1e-9) <= float(hi) and float(lo) <= epss[1] * (1 + 1e-9)


def test_large_cp_of_binary_rr_odd_power():
    """C_{1/10}(f_{1/2,0}^{(x) 101}): an odd power has no atom of ratio 1 (the slope -1 piece is
    the mixture's gap alone). delta(1/3) and roc(1/100) certified against the binomial law's
    two hockey sums and the hull of min{f_p, f_p^{-1}} at 50 digits; eps(1e-6) certified and
    bracketed by that profile."""
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(R(1, 2), 2), 101))
    with mpmath.workdps(50):
        law = ref.binomial_law(101, mpmath.mpf(1) / 2)
        mix = ref.mixed([(p, q) for _, p, q in law], mpmath.mpf(1) / 10)
        d = ta.delta(f, R(1, 3), dps=25)
        lo, hi = d.interval()
        assert d.guarantee == "certified" and lo <= _profile(mix, mpmath.mpf(1) / 3) <= hi
        hull = ref.hull_of_min(mix, ref.swapped(mix))
        v = ta.roc(f, R(1, 100), dps=25)
        lo, hi = v.interval()
        assert v.guarantee == "certified" and lo <= 1 - ref.pl_at(hull, mpmath.mpf(1) / 100) <= hi
        e = ta.epsilon(f, R(1, 10**6), dps=20)
        assert e.guarantee == "certified"
        lo, hi = e.interval()
        assert _profile(mix, mpmath.mpf(lo) * (1 - mpmath.mpf(10) ** -15)) > mpmath.mpf(10) ** -6
        assert _profile(mix, mpmath.mpf(hi)) <= mpmath.mpf(10) ** -6


def test_large_cp_eps_beyond_float_range():
    """C_{1/10}(f_{1,0}^{(x) 2000}): eps(1e-6) lies where the ratios e^d overflow float64 (the
    crossing located on Arb balls); certified, and the binomial law's two-direction
    hockey-stick profile at 60 digits is above 1e-6 just below its lower end and at most 1e-6
    at its upper end."""
    f = ta.C(P10, ta.TensorPower(ta.randomized_response(1, 2), 2000))
    e = ta.epsilon(f, R(1, 10**6), dps=20)
    assert e.guarantee == "certified"
    lo, hi = e.interval()
    assert lo > 710  # (e^lo is beyond float64)
    with mpmath.workdps(60):
        law = ref.binomial_law(2000, mpmath.mpf(1))
        mix = ref.mixed([(p, q) for _, p, q in law], mpmath.mpf(1) / 10)
        assert _profile(mix, mpmath.mpf(lo) * (1 - mpmath.mpf(10) ** -15)) > mpmath.mpf(10) ** -6
        assert _profile(mix, mpmath.mpf(hi)) <= mpmath.mpf(10) ** -6
