"""The exact lattice composition of discrete Gaussians with rational sigma_i^2
(``numeric.lattice_product``, the route of ``routes/product.py``) against independent
references: brute-force enumeration of the joint lattice in Arb (every threshold decided in exact
rationals, the mass outside the windows bounded), and the library's single-factor route."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
import sympy as sp
from flint import arb, fmpq

import tradeoff_algebra as ta
from tradeoff_algebra.core.errors import NumericalError
from tradeoff_algebra.families.discrete_gaussian_law import DiscreteGaussianLattice
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.numeric.lattice_product import LatticeProduct
from tradeoff_algebra.routes.product import routes_for

ROUTE = "exact lattice product (integers, certified)"


def _q(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def _exact(x) -> Fraction:
    """The exact value of an mpf."""
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def brute_delta(s2s: list[Fraction], eps: Fraction, prec: int = 160) -> arb:
    """delta(eps) of DG(1, sqrt(s2_1)) (x) ... by enumerating the joint lattice: the sum of
    Q(x) (1 - e^{eps - L(x)}) over x with L(x) = sum (2 x_i - 1)/(2 s2_i) > eps (exact
    rationals), each factor's masses on |x_i| <= K_i + 1 as Arb balls (theta by its direct sum
    with the geometric tail bound), plus [0, the Q-mass outside the windows]."""
    with arb_precision(prec):
        facs, outside = [], arb(0)
        for s2 in s2s:
            h = 1 / (2 * _q(s2))
            K = int(math.sqrt(2 * float(s2) * math.log(2) * (prec + 20))) + 3
            first = (-h * (K + 1) ** 2).exp()
            tail = 2 * first / (1 - (-h * (2 * K + 3)).exp())  # sum_{|y| > K} e^{-h y^2}
            theta = sum(((-h * y * y).exp() for y in range(-K, K + 1)), arb(0))
            theta += arb(0, float(tail.upper()) * 2) / 2 + float(tail.upper()) / 2
            # Q(x) = P(x - 1): x - 1 in [-K, K]
            xs = range(-K + 1, K + 2)
            Q = {x: (-h * (x - 1) ** 2).exp() / theta for x in xs}
            facs.append((xs, Q, Fraction(1) / (2 * s2)))
            outside += tail / theta
        e = _q(eps)
        total = arb(0)
        for pt in itertools.product(*[xs for xs, _, _ in facs]):
            L = sum(((2 * x - 1) * r for x, (_, _, r) in zip(pt, facs, strict=True)), Fraction(0))
            if L <= eps:
                continue
            q = arb(1)
            for x, (_, Q, _) in zip(pt, facs, strict=True):
                q *= Q[x]
            total += q * (-(e - _q(L)).expm1())
        return total + arb(0, float(outside.upper()) * 2) / 2 + float(outside.upper()) / 2


def product(s2s):
    return ta.Tensor(*[ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(s.numerator, s.denominator)))
                       for s in s2s]) if len(s2s) > 1 else \
        ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(s2s[0].numerator, s2s[0].denominator)))


def lattice(s2s) -> LatticeProduct:
    lp = LatticeProduct.build([(DiscreteGaussianLattice(1, s), 1) for s in s2s])
    assert lp is not None
    return lp


@pytest.mark.parametrize("s2s, eps", [
    ([Fraction(1, 2), Fraction(1), Fraction(3, 2)], Fraction(1, 2)),
    ([Fraction(1, 2), Fraction(1), Fraction(3, 2)], Fraction(3)),
    ([Fraction(50), Fraction(60)], Fraction(3, 10)),
    ([Fraction(2), Fraction(2)], Fraction(0)),
    ([Fraction(5, 3), Fraction(7, 4)], Fraction(9, 4)),
])
def test_delta_against_brute_force(s2s, eps):
    ref = brute_delta(s2s, eps)
    assert ref.rad() < 1e-35 * ref.mid()
    b = lattice(s2s).delta(eps, 1e-32)
    with arb_precision(200):
        assert b.overlaps(ref)
        assert b.rad() <= 1e-31 * b.mid()


def test_one_factor_against_the_single_factor_route():
    """n = 1: the family's own certified profile (Euler-Maclaurin / direct tails)."""
    s2 = Fraction(5000, 7)
    for eps in (Fraction(1, 100), Fraction(1, 5)):
        b = lattice([s2]).delta(eps, 1e-32)
        v = ta.delta(ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(5000, 7))),
                     sp.Rational(eps.numerator, eps.denominator), dps=35)
        assert v.guarantee == "certified"
        with mp.workdps(60):
            lo, hi = v.interval()  # a certified point: within one unit of its last digit
        with arb_precision(200):
            lo, hi = _q(_exact(lo)), _q(_exact(hi))
            assert b.lower() <= hi and lo <= b.upper()


def test_narrow_windows_stay_certified():
    """Windows far too narrow (T = 2) and a coarse fixed point: the a posteriori bound (2)
    widens the ball, which still holds the reference."""
    s2s = [Fraction(1, 2), Fraction(1), Fraction(3, 2)]
    ref = brute_delta(s2s, Fraction(1, 2))
    lp = lattice(s2s)
    c = lp.saddle(0.5)
    b = lp.delta_ball(Fraction(1, 2), c, 2.0, 40)
    with arb_precision(200):
        assert b.overlaps(ref)
        assert b.rad() > 1e-6 * b.mid()  # the deficit is visible, not hidden


def test_route_delta_and_epsilon():
    """ta.delta / ta.epsilon of a product of discrete Gaussians with a common denominator take
    the lattice route and are certified to 30 digits; the eps bracket is confirmed by the
    brute-force profile on both sides."""
    s2s = [Fraction(1, 2), Fraction(1), Fraction(3, 2)]
    f = product(s2s)
    assert routes_for(f, "delta")[0].name == ROUTE
    v = ta.delta(f, sp.Rational(1, 2))
    assert v.guarantee == "certified" and v.route == ROUTE
    with mp.workdps(60):
        assert (v.hi - v.lo) <= mp.mpf(10) ** -29 * v.hi
    d = Fraction(1, 1000)
    e = ta.epsilon(f, sp.Rational(1, 1000))
    assert e.guarantee == "certified" and e.route == ROUTE
    with mp.workdps(60):
        assert (e.hi - e.lo) <= mp.mpf(10) ** -29 * e.hi
    lo, hi = _exact(e.lo), _exact(e.hi)
    with arb_precision(200):
        assert brute_delta(s2s, lo) > _q(d)
        assert brute_delta(s2s, hi) < _q(d)


def test_power_of_one_factor():
    """DG^{(x) 3} (a TensorPower leaf with multiplicity) against the enumeration."""
    f = ta.DiscreteGaussian(1, sp.sqrt(sp.Rational(3, 2))) ** 3
    assert routes_for(f, "delta")[0].name == ROUTE
    v = ta.delta(f, sp.Rational(2, 3))
    ref = brute_delta([Fraction(3, 2)] * 3, Fraction(2, 3))
    with arb_precision(200):
        assert ref.lower() <= _q(_exact(v.hi)) and _q(_exact(v.lo)) <= ref.upper()


def test_incommensurate_keeps_the_other_routes():
    """sigma_i = 10 + i/10: the denominators of 1/sigma_i^2 have no small common multiple, so
    the lattice route does not apply and the former routes answer (inversion, then PLD)."""
    f = ta.Tensor(*[ta.DiscreteGaussian(1, 10 + sp.Rational(i, 10)) for i in range(1, 30)])
    names = [r.name for r in routes_for(f, "delta")]
    assert ROUTE not in names and names
    # two factors already need D = 53065602 and a window of about 4.1e6 > MAX_WINDOW points
    g = ta.DiscreteGaussian(1, sp.Rational(101, 10)) @ ta.DiscreteGaussian(1, sp.Rational(51, 5))
    names = [r.name for r in routes_for(g, "delta")]
    assert ROUTE not in names and names


def test_oversized_is_refused_at_once():
    """sigma^2 = 300007/300000 and 300017/300000 (sigma near 1, D = 2 * 300007 * 300017): the
    root's window would hold about 1.2e7 lattice points, beyond MAX_WINDOW, and the lattice
    terms are real (no shortcut): the lattice refuses before any work, naming it, and the
    product route does not offer itself (the former routes answer)."""
    s2s = [Fraction(300007, 300000), Fraction(300017, 300000)]
    lp = lattice(s2s)
    assert lp.shortcut(1e-30) is None
    assert not lp.fits()
    with pytest.raises(NumericalError, match="MAX_WINDOW"):
        lp.delta(Fraction(1, 10**6), 1e-30)
    with pytest.raises(NumericalError, match="MAX_WINDOW"):
        lp.enclosure("delta", mp.mpf(1) / 2**20, 1e-30)
    names = [r.name for r in routes_for(product(s2s), "delta")]
    assert ROUTE not in names and names


def test_large_denominator_taken_by_the_shortcut():
    """D = 10^11 (rho = 1/10^11, 2/10^11): the window (about 10^7 points) is beyond MAX_WINDOW,
    but the two factors (sigma^2 = D/2, D/4) are one discrete Gaussian up to e^{-10^10}: the
    route answers through the shortcut, certified, and delta at the ends of the eps(1e-7)
    bracket (delta(0) is about 3e-6) lies on either side of 1e-7."""
    D = 10**11
    s2s = [Fraction(D, 2), Fraction(D, 4)]
    assert lattice(s2s).fits()
    f = product(s2s)
    assert routes_for(f, "delta")[0].name == ROUTE
    d = sp.Rational(1, 10**7)
    e = ta.epsilon(f, d, dps=30)
    assert e.guarantee == "certified" and SUM in e.route and e.lo > 0
    with mp.workdps(60):
        assert e.hi - e.lo <= mp.mpf(10) ** -29 * e.hi
    lo, hi = (ta.delta(f, sp.Rational(*_exact(x).as_integer_ratio()), dps=30)
              for x in (e.lo, e.hi))
    assert lo.guarantee == hi.guarantee == "certified" and SUM in lo.route
    with mp.workdps(60):
        assert lo.lo >= mp.mpf(1) / 10**7 >= hi.hi


def test_time_limit_fires():
    """ta.time_limit stops the exact lattice composition (checked at every leaf and product)."""
    from tradeoff_algebra.numeric import budget

    D = 10**7
    lp = lattice([Fraction(D, 2 * k) for k in (1, 2, 3)])
    with pytest.raises(ta.TimeLimitExceeded), ta.time_limit(0.01), budget.call("delta"):
        lp.delta(Fraction(1, 10**3), 1e-30)  # (the route would take the shortcut)


# -- the shortcut: discrete Gaussians on one lattice as one discrete Gaussian ---------------------
SUM = "discrete Gaussians as one discrete Gaussian (smoothing bound, certified)"


def pair_delta(s2a: Fraction, s2b: Fraction, eps: Fraction, prec: int = 200) -> arb:
    """delta(eps) of DG(1, sqrt(s2a)) (x) DG(1, sqrt(s2b)) as an Arb ball, independently of the
    library: sum over x of Q_a(x) T_Q(m) - e^eps P_a(x) T_P(m), T the tails of the second factor
    from its first point m with L_b > eps - L_a(x) (decided in exact rationals), P = N_Z(0, s2),
    Q = N_Z(1, s2), L(x) = (2 x - 1)/(2 s2); each law on |x| <= K + 2 (theta by its direct sum
    with the geometric tail bound), the mass outside added as [0, bound]."""
    with arb_precision(prec):
        def law(s2):
            h = 1 / (2 * _q(s2))
            K = int(math.sqrt(2 * float(s2) * math.log(2) * (prec + 20))) + 3
            first = (-h * (K + 1) ** 2).exp()
            tail = 2 * first / (1 - (-h * (2 * K + 3)).exp())
            theta = sum(((-h * y * y).exp() for y in range(-K, K + 1)), arb(0))
            theta += arb(0, float(tail.upper()))
            P = {x: (-h * x * x).exp() / theta for x in range(-K - 2, K + 3)}
            return K, P, tail / theta

        Ka, Pa, ta_ = law(s2a)
        Kb, Pb, tb = law(s2b)
        TP = {Kb + 3: arb(0, float(tb.upper()))}  # P_b(X >= m), m = -Kb - 2 .. Kb + 3
        for x in range(Kb + 2, -Kb - 3, -1):
            TP[x] = TP[x + 1] + Pb[x]

        def tp(m):
            if m > Kb + 3:
                return arb(0, float(tb.upper()))
            return TP[m] if m >= -Kb - 2 else 1 - arb(0, float(tb.upper()))

        e = _q(eps).exp()
        total = arb(0)
        for x in range(-Ka - 1, Ka + 2):  # Q_a(x) = P_a(x - 1)
            t = eps - Fraction(2 * x - 1, 2) / s2a  # L_b(y) > t iff y > t s2b + 1/2
            thr = t * s2b + Fraction(1, 2)
            m = thr.numerator // thr.denominator + 1
            total += Pa[x - 1] * tp(m - 1) - e * Pa[x] * tp(m)
        return total + arb(0, float((2 * ta_).upper()))


def test_shortcut_against_the_pair_sums():
    """sigma^2 = 800, 1000 (D = 8000): the lattice terms are below e^{-400}, the product is
    answered as DiscreteGaussian(9, sqrt(36000)) times a proved factor, and its ball holds the
    independent lattice sum (60 digits) at 1e-32, for delta and for eps(delta) (both sides of
    the bracket checked by the sum)."""
    s2s = [Fraction(800), Fraction(1000)]
    lp = lattice(s2s)
    sc = lp.shortcut(1e-32)
    assert sc is not None and sc.sum.sensitivity == 9 and sc.sum.variance == 36000
    assert sc.sum.eta < arb(2) ** -400
    for eps in (Fraction(0), Fraction(1, 4), Fraction(1, 2)):  # (exact mpfs)
        ref = pair_delta(*s2s, eps)
        assert ref.rad() < 1e-38 * ref.mid()
        with mp.workdps(40):  # (the pair's ends are rounded to the working precision)
            lo, hi = lp.enclosure("delta", mp.mpf(eps.numerator) / eps.denominator, 1e-32)
        with arb_precision(200), mp.workdps(40):
            assert _q(_exact(lo)) <= ref.upper() and ref.lower() <= _q(_exact(hi))
            assert hi - lo <= mp.mpf(10) ** -31 * hi
    with mp.workdps(40):
        d = mp.mpf(1) / 1000
        lo, hi = lp.enclosure("epsilon", d, 1e-32)
        assert 0 < lo <= hi and hi - lo <= mp.mpf(10) ** -31 * hi
    with arb_precision(200):
        assert pair_delta(*s2s, _exact(lo)) > _q(_exact(d))
        assert pair_delta(*s2s, _exact(hi)) < _q(_exact(d))


def test_lattice_terms_are_bounded_not_ignored():
    """sigma^2 = 50, 60: the lattice terms are real (relative 1e-8, from the classes of Z^2/Z a
    near lam = 2/11), so no factor within 2^-30 is proved and the route leaves the product to the
    exact composition; at 2^-10 the proved factor (eta about 5e-5) holds the brute-force ratio
    delta/delta', which differs from N'/N by more than 1e-12."""
    from tradeoff_algebra.families.discrete_gaussian import DiscreteGaussian, delta_ball
    from tradeoff_algebra.families.discrete_gaussian_sum import gaussian_sum

    s2s = [Fraction(50), Fraction(60)]
    lp = lattice(s2s)
    assert gaussian_sum(lp.factors, lp.a, lp.g, lp.D, lp.B, 30) is None
    assert lp.shortcut(1e-30) is None
    s = gaussian_sum(lp.factors, lp.a, lp.g, lp.D, lp.B, 10)
    assert s is not None and s.eta < arb(2) ** -10
    one = DiscreteGaussian(s.sensitivity, sp.sqrt(sp.Rational(s.variance.numerator,
                                                              s.variance.denominator)))
    eps = Fraction(3, 10)
    ref = brute_delta(s2s, eps)
    with arb_precision(200):
        d1 = delta_ball(one, _q(eps), 200)
        ratio = ref / d1
        assert s.factor.contains(ratio)
        assert abs(ratio - 1).lower() > 1e-12  # the lattice terms are visible


def test_shortcut_against_the_exact_composition():
    """k_i = 1 .. 24 on D = 10^4 (rho_i = k_i/10^4, 24 distinct sigma_i): the shortcut and the
    exact integer composition agree (their balls intersect), the shortcut no wider; eps(delta)
    brackets intersect too; a tighter tolerance never gives a wider shortcut ball."""
    D = 10**4
    lp = lattice([Fraction(D, 2 * k) for k in range(1, 25)])
    assert lp.shortcut(1e-32) is not None
    tree = lp.delta(Fraction(1, 2), 1e-32)
    with mp.workdps(60):
        lo, hi = lp.enclosure("delta", mp.mpf(1) / 2, 1e-32)
        elo, ehi = lp.enclosure("epsilon", mp.mpf(1) / 10**6, 1e-32)
    with arb_precision(300):
        a, b = _q(_exact(lo)), _q(_exact(hi))
        assert a <= tree.upper() and tree.lower() <= b
        assert b - a <= 2 * tree.rad()
    tlo, thi = lp.epsilon(Fraction(1, 10**6), 1e-32)
    assert _exact(elo) <= thi and tlo <= _exact(ehi)
    widths = []
    for tol, dps in ((1e-12, 15), (1e-22, 25), (1e-32, 35)):  # (a route's digits and tolerance)
        with mp.workdps(dps):
            lo, hi = lp.enclosure("delta", mp.mpf(1) / 2, tol)
            widths.append(hi - lo)
            assert hi - lo <= tol * hi
    assert widths[0] >= widths[1] >= widths[2]


def test_distinct_budgets_on_a_fine_grid():
    """k_i = i, i = 1 .. 1000, on D = 10^6 (all sigma_i distinct): the exact composition's
    window (about 1.4e7 points) exceeds MAX_WINDOW, the shortcut answers; delta(2) certified to
    1e-30 and eps at the ends of its ball brackets 2 (the two questions agree)."""
    D = 10**6
    lp = LatticeProduct.build([(DiscreteGaussianLattice(1, Fraction(D, 2 * k)), 1)
                               for k in range(1, 1001)])
    assert lp.window_size() > 4_000_000 and lp.fits()
    with mp.workdps(40):
        lo, hi = lp.enclosure("delta", mp.mpf(2), 1e-32)
        assert 0 < lo <= hi and hi - lo <= mp.mpf(10) ** -31 * hi
        _, below = lp.enclosure("epsilon", hi * (1 + mp.mpf(10) ** -20), 1e-32)  # a level above
        above, _ = lp.enclosure("epsilon", lo * (1 - mp.mpf(10) ** -20), 1e-32)  # one below
        assert below < 2 < above
