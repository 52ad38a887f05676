"""Products of Laplace mechanisms (and with Gaussian ones) by the certified Laplace inversion:
the Arb law of L_mu's loss (families/laplace.py, LaplaceLaw), the lattice split of
numeric/cf_lattice.py (few density components summed exactly, the rest inverted), and the
routes' contract (certified enclosures, tolerance monotonicity, the ToleranceWarning path).

References, each independent of the code under test: the loss law's moment generating function
by mpmath quadrature of its atoms and density; delta of L_mu^{(x) k} for k = 1, 2, 3 by nested
mpmath quadrature of the one-factor profile (delta_{k}(eps) = E[delta_{k-1}(eps - L)]); G (x) L
by quadrature of the Gaussian profile against the Laplace loss law; and, for larger k, the
privacy-loss-distribution engine at a coarse tolerance and the other inversion route (the whole
law against the split) on the same product.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import acb, arb

import tradeoff_algebra as ta
from tradeoff_algebra import G, Laplace
from tradeoff_algebra.families.laplace import LaplaceLaw
from tradeoff_algebra.numeric import cf
from tradeoff_algebra.numeric.cf_lattice import ExactPart, RemainderLaw
from tradeoff_algebra.numeric.cf_lattice_profile import POWER_ROUTE
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp

#: The route of a power L_mu^k: the inversion (or its split), and for k <= 20 the piecewise
#: closed form of numeric/cf_lattice_profile.py (inside the inversion's product route).
_CERTIFIED = {False: "certified Laplace inversion",
              True: POWER_ROUTE + " + certified Laplace inversion"}

R = sp.Rational


# -- independent references (mpmath, thread-private context) ----------------------------------
def _law_parts(m):
    """Q-law of L_m's loss: atoms (loss, mass) and the density on (-m, m) (Dong, Roth & Su,
    Prop. 7: L = |x| - |x - m| under Q = Lap(m, 1))."""
    atoms = [(m, mp.mpf(1) / 2), (-m, mp.exp(-m) / 2)]
    return atoms, (lambda t: mp.exp((t - m) / 2) / 4)


def _delta_k(m, k, eps):
    """delta of L_m^{(x) k} at eps by nested quadrature: delta_0(x) = (1 - e^x)_+ and
    delta_k(x) = E_Q[delta_{k-1}(x - L)] (independence of the factors)."""
    atoms, dens = _law_parts(m)
    if k == 0:
        return max(mp.zero, -mp.expm1(eps))
    if k == 1:  # the density's integral in closed form: d/dt of e^{(t-m)/2}/2 + e^{x-m/2-t/2}/2
        v = sum(w * max(mp.zero, -mp.expm1(eps - a)) for a, w in atoms)
        lo = max(-m, eps)
        if lo < m:
            prim = lambda t: mp.exp((t - m) / 2) / 2 + mp.exp(eps - m / 2 - t / 2) / 2  # noqa: E731
            v += prim(m) - prim(lo)
        return v
    v = sum(w * _delta_k(m, k - 1, eps - a) for a, w in atoms)
    pts = sorted({-m, m} | {p for j in range(-k, k + 1) for p in [eps - j * m] if -m < p < m})
    return v + mp.quad(lambda t: dens(t) * _delta_k(m, k - 1, eps - t), pts)


def _gauss_delta(mu, x):
    """delta of G_mu at any real x (Dong, Roth & Su, Cor. 1, valid for negative x too)."""
    return mp.ncdf(-x / mu + mu / 2) - mp.exp(x) * mp.ncdf(-x / mu - mu / 2)


def _g_laplace_delta(mu, m, eps):
    atoms, dens = _law_parts(m)
    v = sum(w * _gauss_delta(mu, eps - a) for a, w in atoms)
    return v + mp.quad(lambda t: dens(t) * _gauss_delta(mu, eps - t), [-m, m])


# -- the law ----------------------------------------------------------------------------------
@pytest.mark.parametrize("m", [R(1, 10), R(1), R(7, 2)])
def test_the_law_mgf_encloses_quadrature_of_atoms_and_density(m):
    law = LaplaceLaw(Fraction(m.p, m.q))
    with mp.workdps(30):
        mm = mp.mpf(m.p) / m.q
        atoms, dens = _law_parts(mm)
        for zr, zi in [(0, 0), (-1, 0), (0.7, 0), (1.3, 2.0), (0.25, 40.0)]:
            z = mp.mpc(zr, zi)
            ref = sum(w * mp.exp(z * a) for a, w in atoms) + mp.quad(
                lambda t, z=z: dens(t) * mp.exp(z * t), mp.linspace(-mm, mm, 40))
            with working_precision(128):
                ball = law.mgf(acb(zr, zi))
            assert ball.real.contains(arb(str(ref.real))) or abs(
                float(ball.real.mid()) - float(ref.real)) < 1e-25
            assert abs(complex(ball.mid()) - complex(ref)) < 1e-20
    with working_precision(128):
        assert law.mgf(acb(0)).contains(1) and law.mgf(acb(-1)).contains(1)


def test_the_decay_bound_bounds_the_mgf_beyond_t():
    """decay_bound(c, t) >= |M(c + it')| for every t' >= t (sampled densely, through the
    first periods 2 pi / mu where the atoms bring |M| back up)."""
    law = LaplaceLaw(Fraction(1, 2))
    with working_precision(96):
        for c in (0.3, 2.0):
            for t in (0.0, 1.0, 5.0, 30.0):
                b = law.decay_bound(arb(c), arb(t))
                for i in range(400):
                    tp = t + i * 0.137
                    assert not abs(law.mgf(acb(c, tp))) > b  # (equal at t' = 0)


def test_remainder_law_is_the_binomial_tail_and_its_bounds_hold():
    """R_J = M^k - sum_{j<J} C(k, j) A^{k-j} U^j is the transform of the j >= J terms: at real
    c it is M(c)^k P(Bin(k, U/(A+U)) >= J) (mpmath), and |R_J(c + it)| is below its decay and
    power bounds."""
    law = LaplaceLaw(Fraction(1, 10))
    rem = RemainderLaw(law, 30, 4)
    with working_precision(128):
        for c in (0.5, 3.0):
            with mp.workdps(40):
                mu = mp.mpf(1) / 10
                a = mp.exp(c * mu) / 2 + mp.exp(-mu) * mp.exp(-c * mu) / 2
                w = c + mp.mpf(1) / 2
                u = mp.exp(-mu / 2) * mp.sinh(w * mu) / (2 * w)
                p = u / (a + u)
                tail = 1 - sum(mp.binomial(30, j) * p**j * (1 - p) ** (30 - j) for j in range(4))
                ref = (a + u) ** 30 * tail
            v = rem.mgf(acb(c))
            assert abs(float(v.real.mid()) / float(ref) - 1) < 1e-20
            V, pw = rem.power_decay(arb(c))
            for t in (0.5, 3.0, 20.0, 300.0):
                r = abs(rem.mgf(acb(c, t)))
                assert not r > rem.decay_bound(arb(c), arb(t))
                assert not r > V / arb(t) ** pw


# -- exact parts and certified enclosures against quadrature ----------------------------------
SLOW = pytest.mark.slow  # (k = 3: two nested quadratures, ~30 s each)


@pytest.mark.parametrize("k,eps", [(1, "0.1"), (2, "0.4"), (2, "-0.3"),
                                   pytest.param(3, "0.55", marks=SLOW),
                                   pytest.param(3, "1.2", marks=SLOW)])
def test_exact_sums_against_nested_quadrature(k, eps):
    m = Fraction(1, 2)
    with mp.workdps(25):
        ref = _delta_k(mp.mpf(1) / 2, k, mp.mpf(float(eps)))  # (the float eps terms() sees)
    with working_precision(128):
        ball = ExactPart(LaplaceLaw(m), k, k + 1).terms(float(eps))[0]
    with mp.workdps(30):  # (compared at 30 digits: floats would round both sides)
        diff = abs(mp.mpf(ball.mid().str(30, radius=False)) - ref)
        assert diff <= mp.mpf("1e-18") + mp.mpf(ball.rad().str(5, radius=False))


@pytest.mark.parametrize("k", [2, pytest.param(3, marks=SLOW)])
def test_certified_delta_of_small_powers_contains_quadrature(k):
    eps = R(2, 5)
    v = ta.delta(Laplace(R(1, 2)) ** k, eps, dps=15)
    with mp.workdps(25):
        ref = _delta_k(mp.mpf(1) / 2, k, mp.mpf(2) / 5)
    assert v.lo <= ref <= v.hi and v.hi - v.lo <= 1e-9 * v.hi
    assert v.route == _CERTIFIED[k <= 20]


@pytest.mark.parametrize("mu,m,eps", [(R(1), R(1), "1.5"), (R(1, 3), R(1, 10), "0.2")])
def test_gaussian_times_laplace_contains_quadrature(mu, m, eps):
    with ta.pld_options(tol=1e-9):
        v = ta.delta(G(mu) @ Laplace(m), R(eps), dps=15)
    with mp.workdps(30):
        ref = _g_laplace_delta(mp.mpf(mu.p) / mu.q, mp.mpf(m.p) / m.q, mp.mpf(eps))
    assert v.lo <= ref <= v.hi
    assert v.hi - v.lo <= 1e-9 * v.hi and v.route == "certified Laplace inversion"


def test_split_and_whole_inversions_agree():
    """Laplace(1/10)^{(x) 700}: the whole law inverts (the atoms' share (1 + mu/2)^{-k} of
    |M| is small), and so does the split (J = 4: the exact part and the remainder); two
    different certified routes, so the enclosures must intersect, each 1e-9 narrow."""
    law = LaplaceLaw(Fraction(1, 10))
    with working_precision(64):
        whole = cf.delta_enclosure([(law, 700)], 14.0, 1e-10)
        rest = [(RemainderLaw(law, 700, 4), 1)]
        split = cf.delta_enclosure(rest, 14.0, 1e-10, ExactPart(law, 700, 4))
    assert max(whole[0], split[0]) <= min(whole[1], split[1])
    for lo, hi in (whole, split):
        assert 0 < hi - lo <= 1e-9 * hi


@pytest.mark.parametrize("k", [10, 13, 100])
def test_the_pld_engines_enclosure_intersects(k):
    f = Laplace(R(1, 10)) ** k
    with ta.pld_options(tol=1e-9):
        v = ta.delta(f, R(1, 2) if k < 100 else R(3), dps=15)
    assert v.route == _CERTIFIED[k <= 20] and v.hi - v.lo <= 1e-9 * v.hi
    with ta.pld_options(tol=1e-3):
        from tradeoff_algebra.routes.engines import pld_delta
        from tradeoff_algebra.routes.plan import route

        with mp.workdps(20):
            lo, hi = pld_delta([route(f)[1]], mp.mpf(1) / 2 if k < 100 else mp.mpf(3),
                               inversion=False)
    assert max(lo, v.lo) <= min(hi, v.hi)


# -- the contract: tolerances, warnings, limits -----------------------------------------------
def test_a_tighter_tolerance_never_gives_a_wider_epsilon():
    f = Laplace(R(1, 10)) ** 100
    prev = None
    for tol in (1e-2, 1e-5, 1e-9, 1e-12):
        with ta.pld_options(tol=tol):
            v = ta.epsilon(f, R(1, 10**6), dps=20)
        assert v.guarantee == "certified" and v.hi - v.lo <= tol * v.hi
        if prev is not None:
            assert v.hi - v.lo <= prev.hi - prev.lo
            assert max(v.lo, prev.lo) <= min(v.hi, prev.hi)
        prev = v


def test_an_unreachable_tolerance_warns_and_returns_the_best_enclosure():
    f = Laplace(R(1, 10)) ** 1000
    with ta.pld_options(tol=1e-9):
        ref = ta.epsilon(f, R(1, 10**6), dps=20)
    with pytest.warns(ta.ToleranceWarning), ta.pld_options(tol=1e-20):
        v = ta.epsilon(f, R(1, 10**6), dps=20)
    assert v.route == "certified Laplace inversion" and v.lo <= v.hi
    assert ref.lo <= v.lo and v.hi <= ref.hi  # never wider than a looser tolerance's


def test_large_powers_are_certified_and_met():
    """k = 10^5: no vacuous [0, oo]; the enclosure is certified and 1e-9 narrow, and it holds
    the float saddle-point estimate to its accuracy (about 1e-3 relative here)."""
    f = Laplace(R(1, 10)) ** 100000
    with warnings.catch_warnings():
        warnings.simplefilter("error", ta.ToleranceWarning)
        with ta.pld_options(tol=1e-9):
            v = ta.epsilon(f, R(1, 10**6), dps=20)
    assert v.guarantee == "certified" and 0 < v.hi - v.lo <= 1e-9 * v.hi
    est = cf._saddle_epsilon([(LaplaceLaw(Fraction(1, 10)), 100000)], 1e-6)
    assert abs(est / float(v.mid) - 1) < 1e-3


def test_an_oversized_power_is_refused_at_once_naming_the_limit():
    with pytest.raises(ta.NumericalError, match="MAX_FFT"), ta.time_limit(60):
        ta.epsilon(Laplace(R(1, 10)) ** 10**9, R(1, 10**6), dps=15)


@SLOW
def test_mgf_at_the_lattice_point_eps():
    """eps on a lattice point of the atoms (2 mu here): the exact part's atom term is
    (1 - e^0)_+ = 0, decided by continuity; the enclosure stays narrow and holds quadrature."""
    v = ta.delta(Laplace(R(1, 2)) ** 3, 1, dps=15)
    with mp.workdps(25):
        ref = _delta_k(mp.mpf(1) / 2, 3, mp.mpf(1))
    assert v.lo <= ref <= v.hi and v.hi - v.lo <= 1e-9 * v.hi
    with mpmath.workdps(15):
        assert v.hi < 1


def test_a_gaussian_with_a_rational_square_inverts():
    """G_sqrt(2)/3 (x) L_1/3: mu is irrational but mu^2 = 2/9 is exact, all the Gaussian law
    needs (its mgf is exp(mu^2 z (z + 1)/2)); so is G_1/3 (x) G_1/5 = G_sqrt(34)/15, the product
    of Gaussians of different scales (Dong, Roth & Su, Cor. 2)."""
    with ta.pld_options(tol=1e-9):
        v = ta.delta(G(sp.sqrt(2) / 3) @ Laplace(R(1, 3)), R(1, 2), dps=15)
    with mp.workdps(30):
        ref = _g_laplace_delta(mp.sqrt(2) / 3, mp.mpf(1) / 3, mp.mpf(1) / 2)
    assert v.lo <= ref <= v.hi and v.hi - v.lo <= 1e-9 * v.hi
    assert v.route == "certified Laplace inversion"


def test_different_scales_invert_and_meet_the_pld_engine():
    """G_1/3 (x) G_1/5 (x) L_1/10 (x) L_1/11 (x) L_1/12 (x) L_1/13, different scales: the
    product of the factors' mgfs, certified 1e-9 narrow, against the PLD engine (a different
    route) at 1e-4."""
    f = ta.Tensor(G(R(1, 3)), G(R(1, 5)), *[Laplace(R(1, k)) for k in (10, 11, 12, 13)])
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, R(1, 10**6), dps=15)
    assert v.route == "certified Laplace inversion" and v.guarantee == "certified"
    assert 0 < v.hi - v.lo <= 1e-9 * v.hi
    from tradeoff_algebra.routes.engines import pld_epsilon
    from tradeoff_algebra.routes.plan import route

    with ta.pld_options(tol=1e-4), mp.workdps(20):
        lo, hi = pld_epsilon([route(f)[1]], mp.mpf(10) ** -6, inversion=False)
    assert max(lo, v.lo) <= min(hi, v.hi)


def test_a_tighter_tolerance_never_gives_a_wider_delta():
    """G(1/100) (x) L(1): at tol 1e-12 the inversion once fell to the PLD engine, 2000x wider
    than its own answer at tol 1e-3. Now the answer at 1e-12 is certified, inside the coarse
    one, and either meets the tolerance or says that it does not (a ToleranceWarning)."""
    import warnings

    import sympy as sp

    f = ta.Tensor(ta.G(sp.Rational(1, 100)), ta.Laplace(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ta.ToleranceWarning)
        with ta.pld_options(tol=1e-3):
            coarse = ta.delta(f, 1, dps=15)
    with warnings.catch_warnings(record=True) as caught, ta.pld_options(tol=1e-12):
        warnings.simplefilter("always")
        tight = ta.delta(f, 1, dps=15)
    assert coarse.guarantee == tight.guarantee == "certified"
    assert coarse.lo <= tight.lo <= tight.hi <= coarse.hi
    warned = any(issubclass(w.category, ta.ToleranceWarning) for w in caught)
    assert warned or tight.hi - tight.lo <= 1e-12 * tight.hi
