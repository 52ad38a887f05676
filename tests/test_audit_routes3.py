"""Third audit of the newest certified routes, from outside, against independent references
(benchmarks/RESULTS_audit_routes3.md; the random draws are benchmarks/fuzz_certified_routes.py's
generators sgd-many, mix-one, laplace-mixed, laplace-vertex, lattice-roc, max3, rdp-quick).

* DP-SGD at T = 10 .. 900 (the certified Laplace inversion with contours below the saddle point)
  against the tilted rounded-grid bracket of the add/remove hull (tests/references/audit3_refs.py:
  the losses rounded down and up to a grid, composed by FFT in float64 after an exponential tilt,
  the FFT's round-off carried as an error bound) and dp_accounting's optimistic/pessimistic PLDs;
  the one-step closed form AddRemove(Mix(G_mu, q)) against the mpmath half-line profile of both
  directions (audit2_refs.sg_profile); the time limit, the labels, bad input.
* Laplace products of different scales against the same grid bracket (the Laplace loss law:
  atoms at +-mu and a tilted uniform density, binned in closed form); Laplace(mu)^n at a
  Neyman--Pearson vertex (an atom of the loss) against the Irwin--Hall sums.
* Lattice and finite products' roc at vertices, near 0 and 1, at n = 10^5, against exact
  rational Neyman--Pearson and mpmath binomial laws.
* Max and Mix(Max) of heterogeneous pairs, claims of delta = 0, flat maxima, against the family
  references (tests/references) and the brute-force profile.
* The RDP quick path (notions/renyi_curve.quick_batch) against Mironov's closed form, a mu^2/2
  and the discrete Gaussian's theta sums.

A certified value must contain the reference (compared through ``Value.interval()``).
"""

from __future__ import annotations

import math
import time
import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from references import audit2_refs as R2
from references import audit3_refs as A3
from references import audit_refs as R1
from references import functionals as FN
from references import reference
from references.enclosure import certified as _certified
from references.enclosure import iv as _iv
from references.enclosure import meets as _meets
from references.gauss import GaussRef
from references.operators import ref_max, ref_mix

import tradeoff_algebra as ta

MP = mpmath.mp
Rat = sp.Rational


# ---------------------------------------------------------------------------------------------
# the references themselves: cross-checks
# ---------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_grid_bracket_contains_the_two_step_quadrature():
    """audit3_refs' tilted grid bracket of T = 1, 2 steps contains audit2_refs' mpmath
    quadrature (two independent references), also at delta ~ 1e-27 (the tilt)."""
    for mu, q, T, e in [(1.0, 0.01, 1, 0.5), (1.25, 0.05, 2, 1.0), (1.0, 0.01, 1, 6.0)]:
        lo, hi = A3.sgd_sym_bracket(mu, q, T, e)
        with MP.workdps(30):
            ref = R2.sg_profile(mu, q, T, e, True, 20)
        assert lo <= ref <= hi
        assert hi - lo < 3e-3 * ref


@pytest.mark.slow
def test_grid_bracket_of_laplace_products_contains_the_nested_quadrature():
    """The Laplace grid bracket against the nested quadrature of references/laplace_mixed
    (three scales): delta(e) = Q(L > e) - e^e P(L > e)."""
    from references import laplace_mixed as LM

    mus, e = [0.25, 0.5, 1.0], 0.7
    lo, hi = A3.laplace_product_bracket(mus, e, 2e-5)
    with MP.workdps(20):
        ref = LM.tail(mus, True, e) - MP.exp(e) * LM.tail(mus, False, e)
    assert lo <= ref <= hi
    assert hi - lo < 1e-3 * ref


# ---------------------------------------------------------------------------------------------
# DP-SGD
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mu, q, e", [
    (Rat(1), Rat(1, 10), Rat(0)), (Rat(1), Rat(1, 10), Rat(1, 2)), (Rat(5, 3), Rat(3, 10), 3),
    (Rat(1, 8), Rat(1, 10000), Rat(1, 1000)), (Rat(2), Rat(1, 100), 40),
    (Rat(6), Rat(999, 1000), 10), (Rat(1, 20), Rat(1, 2), Rat(1, 50)),
])
def test_one_step_add_remove_closed_form(mu, q, e):
    """AddRemove(Mix(G_mu, q)), one step: the certified delta contains the maximum of the two
    directions' half-line profiles in mpmath (down to 1e-300)."""
    with ta.pld_options(tol=1e-12):
        v = ta.delta(ta.AddRemove(ta.Mix(ta.G(mu), q)), e, dps=20)
    assert _certified(v)
    with MP.workdps(60):
        ref = R2.sg_profile(MP.mpf(mu.p) / mu.q, MP.mpf(q.p) / q.q, 1,
                            MP.mpf(sp.Rational(e).p) / sp.Rational(e).q, True, 50)
        assert _meets(v, ref * (1 - MP.mpf(10) ** -30), ref * (1 + MP.mpf(10) ** -30))


def test_noisy_sgd_configuration_form_is_the_positional_one():
    """noisy_sgd(sigma, dataset_size=n, batch_size=b, steps=T) is noisy_sgd(sigma, b/n, T)."""
    a = ta.noisy_sgd(Rat(11, 10), dataset_size=60000, batch_size=256, steps=37)
    b = ta.noisy_sgd(Rat(11, 10), Rat(256, 60000), 37)
    assert a == b
    assert a == ta.AddRemove(ta.Mix(ta.G(Rat(10, 11)), Rat(256, 60000)) ** 37)


@pytest.mark.slow
@pytest.mark.parametrize("sigma, q, T, e", [
    (Rat(4, 5), Rat(1, 20), 10, 2),        # delta ~ 1.5e-4
    (Rat(3, 5), Rat(3, 10), 10, 20),       # delta ~ 3.5e-7, sigma at the low end
    (Rat(1), Rat(1, 100), 100, 8),         # delta ~ 2.2e-31: the tilt
])
def test_noisy_sgd_delta_in_the_grid_bracket(sigma, q, T, e):
    with ta.pld_options(tol=1e-9):
        v = ta.delta(ta.noisy_sgd(sigma, q, T), e, dps=15)
    assert _certified(v)
    lo, hi = A3.sgd_sym_bracket(1 / float(sigma), float(q), T, float(e), max_points=2**20,
                                rel=2e-3)
    assert _meets(v, lo * (1 - 1e-9), hi * (1 + 1e-9))


@pytest.mark.slow
def test_noisy_sgd_delta_in_dp_accountings_bracket():
    """T = 10: the certified delta meets dp_accounting's optimistic/pessimistic PLD bracket
    (float64: widened 1e-9 relative)."""
    with ta.pld_options(tol=1e-9):
        v = ta.delta(ta.noisy_sgd(Rat(4, 5), Rat(1, 20), 10), 2, dps=15)
    lo, hi = A3.dpa_sgd_bracket(0.8, 0.05, 10, 2.0, h=1e-4)
    assert _certified(v) and _meets(v, lo * (1 - 1e-9), hi * (1 + 1e-9))


@pytest.mark.slow
def test_noisy_sgd_roc_in_the_grid_bracket():
    with ta.pld_options(tol=1e-12):
        v = ta.roc(ta.noisy_sgd(1, Rat(1, 100), 100), Rat(1, 2), dps=15)
    lo, hi = A3.sgd_roc_bracket(1.0, 0.01, 100, 0.5, max_points=2**19, rel=3e-3)
    assert _certified(v) and _meets(v, lo - 1e-12, hi + 1e-12)


@pytest.mark.slow
def test_noisy_sgd_epsilon_at_delta_1e30():
    """eps(1e-30) of T = 100 steps: the truth lies in [lo, hi] iff delta(lo) >= 1e-30 >=
    delta(hi); checked with the grid bracket at both ends."""
    with ta.pld_options(tol=1e-12):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ta.ToleranceWarning)
            v = ta.epsilon(ta.noisy_sgd(1, Rat(1, 100), 100), Rat(1, 10**30), dps=15)
    assert _certified(v)
    lo, hi = _iv(v)
    _, up = A3.sgd_sym_bracket(1.0, 0.01, 100, float(lo), max_points=2**20, rel=2e-3)
    low, _ = A3.sgd_sym_bracket(1.0, 0.01, 100, float(hi), max_points=2**20, rel=2e-3)
    assert up * (1 + 1e-9) >= MP.mpf(10) ** -30 >= low * (1 - 1e-9)


@pytest.mark.parametrize("question", ["delta", "roc", "epsilon"])
def test_noisy_sgd_respects_the_time_limit(question):
    """T = 500 .. 900 at tol 1e-12 under time_limit(1): answered or stopped within 1 s plus a
    margin (measured: 1.04 - 1.14 s)."""
    f = ta.noisy_sgd(Rat(7, 10), Rat(1, 20), 700)
    call = {"delta": lambda: ta.delta(f, 3, dps=15),
            "roc": lambda: ta.roc(f, Rat(1, 1000), dps=15),
            "epsilon": lambda: ta.epsilon(f, Rat(1, 10**20), dps=15)}[question]
    t0 = time.monotonic()
    with ta.pld_options(tol=1e-12), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with ta.time_limit(1):
                call()
        except ta.TimeLimitExceeded:
            pass
    assert time.monotonic() - t0 < 1 + 1.5


@pytest.mark.parametrize("kwargs, name", [
    ({"sigma": 0, "p": Rat(1, 10), "steps": 10}, "sigma"),
    ({"sigma": 1, "p": Rat(3, 2), "steps": 10}, "p"),
    ({"sigma": 1, "p": Rat(1, 2), "steps": 0}, "steps"),
    ({"sigma": 1, "p": Rat(1, 2), "steps": Rat(5, 2)}, "steps"),
    ({"sigma": 1, "dataset_size": 100, "batch_size": 200, "steps": 10}, "batch_size"),
    ({"sigma": 1, "dataset_size": 0, "batch_size": 2, "steps": 10}, "dataset_size"),
])
def test_noisy_sgd_refuses_bad_input_naming_the_parameter(kwargs, name):
    with pytest.raises(ta.InvalidParameter) as e:
        ta.noisy_sgd(**kwargs)
    assert name in str(e.value)


# ---------------------------------------------------------------------------------------------
# Laplace products
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mu, n, a, strict", [
    (Fraction(1, 2), 5, 3, False), (Fraction(1, 2), 5, 3, True), (Fraction(1), 8, 6, False),
    (Fraction(3), 3, 0, True),
    pytest.param(Fraction(1, 20), 12, 6, False, marks=pytest.mark.slow),
    pytest.param(Fraction(2, 3), 20, 11, False, marks=pytest.mark.slow),
])
def test_laplace_power_roc_at_a_vertex(mu, n, a, strict):
    """roc of Laplace(mu)^n at alpha = P(L >= t) (a vertex: t = (2a - n) mu an atom of the loss)
    or P(L > t), given as a 60-digit rational: the power Q(L >= t) (or Q(L > t)) from the
    Irwin--Hall sums, moved by at most |alpha - alpha_60| e^t."""
    lp = R2.LaplacePower(mu, n, 60)
    with MP.workdps(lp.wd):
        t = (2 * a - n) * MP.mpf(mu.numerator) / mu.denominator
        al, pw = lp.np_point(t, strict)
        alpha = Fraction(MP.nstr(al, 60, min_fixed=-1000, max_fixed=1000))
        err = abs(MP.mpf(alpha.numerator) / alpha.denominator - al) * MP.exp(t) \
            + MP.mpf(10) ** -40
    with ta.pld_options(tol=1e-12):
        v = ta.roc(ta.Laplace(Rat(mu.numerator, mu.denominator)) ** n,
                   Rat(alpha.numerator, alpha.denominator), dps=20)
    assert _certified(v)
    with MP.workdps(60):
        assert _meets(v, pw - err, pw + err)


@pytest.mark.slow
@pytest.mark.parametrize("mus, e", [
    ([Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(2)], Fraction(1)),
    ([Fraction(1, 20), Fraction(1, 10), Fraction(2, 3), Fraction(3, 2), Fraction(3)],
     Fraction(5, 2)),
    ([Fraction(1, 2), Fraction(1, 2), Fraction(1), Fraction(3)], Fraction(9, 2)),
])
def test_laplace_products_of_different_scales_delta(mus, e):
    counts: dict = {}
    for m in mus:
        counts[m] = counts.get(m, 0) + 1
    f = ta.Tensor(*[ta.Laplace(Rat(m.numerator, m.denominator)) ** k for m, k in counts.items()])
    with ta.pld_options(tol=1e-9):
        v = ta.delta(f, Rat(e.numerator, e.denominator), dps=15)
    lo, hi = A3.laplace_product_bracket([float(m) for m in mus], float(e), 1e-5)
    assert _certified(v) and _meets(v, lo * (1 - 1e-9), hi * (1 + 1e-9))


# ---------------------------------------------------------------------------------------------
# lattice and finite products
# ---------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_randomized_response_power_1e5_roc_at_a_vertex():
    """EpsDelta(log 3, 0)^(10^5): roc at (a 50-digit rational next to) a vertex of the binomial
    law and at a random level, against the binomial law in mpmath at 80 digits."""
    n = 10**5
    with MP.workdps(80):
        # k ones: P-mass C(n, k) (1/4)^k (3/4)^(n-k), Q-mass C(n, k) (3/4)^k (1/4)^(n-k), from
        # k = n down by the ratio of consecutive terms, to k = n/4 - 3000 (P's mode n/4)
        P, Q = MP.mpf(1) / 4 ** n, (MP.mpf(3) / 4) ** n
        groups = []
        for k in range(n, n // 4 - 3000, -1):
            groups.append((P, Q))
            P = P * k / (n - k + 1) * 3
            Q = Q * k / (n - k + 1) / 3
        verts = R1.np_vertices(groups)
        j = next(i for i, x in enumerate(verts) if x > MP.mpf(10) ** -6)
        for al in (verts[j], verts[j + 40], MP.mpf("0.3")):
            alpha = Fraction(MP.nstr(al, 50, min_fixed=-1000, max_fixed=1000))
            ref = 1 - R1.np_value(groups, MP.mpf(alpha.numerator) / alpha.denominator)
            with ta.pld_options(tol=1e-12):
                v = ta.roc(ta.EpsDelta(sp.log(3), 0) ** n, Rat(alpha.numerator,
                                                           alpha.denominator), dps=20)
            assert _certified(v)
            assert _meets(v, ref - MP.mpf(10) ** -45, ref + MP.mpf(10) ** -45)


@pytest.mark.parametrize("alpha", [Fraction(1, 10**300), Fraction(1, 10**30),
                                   1 - Fraction(1, 10**15), 1 - Fraction(1, 10**60)])
def test_randomized_response_power_near_0_and_1_exact(alpha):
    """EpsDelta(log 2, 0)^50 at alpha near 0 and 1: exact rational Neyman--Pearson."""
    groups = []
    n, p = 50, Fraction(2, 3)
    for k in range(n, -1, -1):
        c = math.comb(n, k)
        groups.append((c * p ** (n - k) * (1 - p) ** k, c * p ** k * (1 - p) ** (n - k)))
    ref = 1 - R1.np_value(groups, alpha)
    v = ta.roc(ta.EpsDelta(sp.log(2), 0) ** n, Rat(alpha.numerator, alpha.denominator),
               dps=30)
    assert _certified(v)
    with MP.workdps(80):
        r = MP.mpf(ref.numerator) / ref.denominator
        assert _meets(v, r, r)


@pytest.mark.parametrize("s, n", [(1, 2), (2, 2), (3, 1)])
def test_discrete_gaussian_power_roc_at_vertices(s, n):
    """DiscreteGaussian(1, s)^n at three vertices and near alpha = 1 (the lattice NP routes),
    against the n-fold law of the integer noise summed in mpmath (|x| <= 40 s)."""
    with MP.workdps(60):
        groups = A3.dg_shift_groups(s, n, 55)
        verts = [x for x in R1.np_vertices(groups) if MP.mpf(10) ** -12 < x < 1 - 1e-12]
        levels = [verts[len(verts) // 4], verts[len(verts) // 2], verts[-3],
                  1 - MP.mpf(10) ** -14]
        for al in levels:
            alpha = Fraction(MP.nstr(al, 45, min_fixed=-1000, max_fixed=1000))
            ref = 1 - R1.np_value(groups, MP.mpf(alpha.numerator) / alpha.denominator)
            v = ta.roc(ta.DiscreteGaussian(1, s) ** n, Rat(alpha.numerator, alpha.denominator),
                       dps=25)
            assert _certified(v)
            assert _meets(v, ref - MP.mpf(10) ** -40, ref + MP.mpf(10) ** -40)


# ---------------------------------------------------------------------------------------------
# Max and Mix(Max)
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, e", [
    ("ta.Max(ta.G(1), ta.EpsDelta(1, 0))", 1),
    ("ta.Max(ta.EpsDelta(1, 0), ta.EpsDelta(2, 0))", Rat(3, 2)),
    ("ta.Max(ta.DiscreteGaussian(1, 2), ta.EpsDelta(1, 0))", 1),
    ("ta.Max(ta.PoissonReplace(1, Rat(1, 2)), ta.EpsDelta(Rat(1, 2), 0))", 2),
])
def test_max_delta_zero_where_an_argument_is_eps_0_dp(expr, e):
    """Max(f, f_{eps0,0}) >= f_{eps0,0}, so its delta(eps) is 0 for eps >= eps0: the answer must
    contain 0 (Max(f_{1,0}, f_{2,0}) answers 0 as an estimate; the others certify it)."""
    f = eval(expr, {"ta": ta, "Rat": Rat})  # noqa: S307
    with ta.pld_options(tol=1e-12):
        v = ta.delta(f, e, dps=20)
    assert _iv(v)[0] <= 0 <= _iv(v)[1]
    assert _certified(v) or "EpsDelta(2, 0)" in expr


@pytest.mark.slow  # (the brute-force profile: 1.5 - 5 s)
@pytest.mark.parametrize("expr, refs, e", [
    ("ta.Max(ta.G(2), ta.Laplace(2))", lambda: [reference(ta.G(2)), reference(ta.Laplace(2))],
     Rat(1, 2)),
    ("ta.Max(ta.DiscreteGaussian(1, 2), ta.PoissonReplace(1, Rat(1, 2)))",
     lambda: [reference(ta.DiscreteGaussian(1, 2)), reference(ta.PoissonReplace(1, Rat(1, 2)))],
     Rat(1, 10)),
    ("ta.Max(ta.PoissonReplace(1, Rat(1, 10)), ta.PoissonReplace(1, Rat(1, 10)))",
     lambda: [reference(ta.PoissonReplace(1, Rat(1, 10)))], Rat(1, 2)),
    ("ta.Max(ta.G(1), ta.G(Rat(1, 2))**4)", lambda: [GaussRef(Fraction(1))], Rat(1, 2)),
    ("ta.Max(ta.G(1)**2, ta.EpsDelta(1, Rat(1, 100)), ta.Laplace(3))",
     lambda: [GaussRef(Fraction(2)), reference(ta.EpsDelta(1, Rat(1, 100))),
              reference(ta.Laplace(3))], Rat(1, 3)),
])
def test_max_delta_against_the_brute_force_profile(expr, refs, e):
    """delta of Max of heterogeneous pairs (flat maxima Max(f, f) and Max(G_1, G_{1/2}^4 = G_1)
    included) against sup_alpha 1 - e^eps alpha - max_i f_i(alpha) by golden section (a lower
    bound of delta: the search's value), the heuristic side within 1e-7 relative."""
    f = eval(expr, {"ta": ta, "Rat": Rat})  # noqa: S307
    with ta.pld_options(tol=1e-9):
        v = ta.delta(f, e, dps=15)
    assert _certified(v)
    with MP.workdps(40):
        r = FN.delta(ref_max(refs()), MP.mpf(sp.Rational(e).p) / sp.Rational(e).q)
        lo, hi = _iv(v)
        assert hi >= r * (1 - MP.mpf(10) ** -12)
        assert lo <= r * (1 + MP.mpf(10) ** -7)


@pytest.mark.slow
def test_mix_of_max_delta():
    """Mix(Max(G_1, L_1), 1/3): delta against the mixed references (ref_mix of ref_max)."""
    f = ta.Mix(ta.Max(ta.G(1), ta.Laplace(1)), Rat(1, 3))
    with ta.pld_options(tol=1e-9):
        v = ta.delta(f, Rat(1, 4), dps=15)
    with MP.workdps(40):
        ref = ref_mix(ref_max([reference(ta.G(1)), reference(ta.Laplace(1))]), Fraction(1, 3))
        r = FN.delta(ref, MP.mpf(1) / 4)
        lo, hi = _iv(v)
        assert _certified(v) and hi >= r * (1 - MP.mpf(10) ** -12)
        assert lo <= r * (1 + MP.mpf(10) ** -7)


@pytest.mark.parametrize("e", [Rat(0), Rat(1, 2), Rat(2)])
def test_poisson_replace_delta_and_value(e):
    """PoissonReplace(1, 1/10): delta and f(1/3) against the mixture pair's hockey-stick
    integral and threshold test (tests/references/pairs.py)."""
    f = ta.PoissonReplace(1, Rat(1, 10))
    with ta.pld_options(tol=1e-12):
        v = ta.delta(f, e, dps=20)
        w = ta.evaluate(f, Rat(1, 3), dps=20)
    with MP.workdps(40):
        ref = reference(f)  # (its weights formed at this precision)
        r = FN.delta(ref, MP.mpf(e.p) / e.q)
        assert _certified(v) and _meets(v, r * (1 - MP.mpf(10) ** -18) - MP.mpf(10) ** -30,
                                        r * (1 + MP.mpf(10) ** -18) + MP.mpf(10) ** -30)
        fv = FN.value(ref, Fraction(1, 3))
        assert _certified(w) and _meets(w, fv - MP.mpf(10) ** -18, fv + MP.mpf(10) ** -18)


# ---------------------------------------------------------------------------------------------
# the RDP quick path
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, truth, dps", [
    ("ta.Laplace(Rat(1, 2))", lambda a: R2.renyi_laplace(MP.mpf(1) / 2, a), 50),
    ("ta.AddRemove(ta.Laplace(Rat(7, 3)))", lambda a: R2.renyi_laplace(MP.mpf(7) / 3, a), 20),
    ("ta.G(3)", lambda a: MP.mpf(a) * 9 / 2, 50),
    ("ta.DiscreteGaussian(1, 2)", lambda a: R2.renyi_dgauss(1, MP.mpf(4), a), 20),
])
def test_rdp_quick_path_at_many_int_orders(expr, truth, dps):
    """RDP.of at 4095 Python int orders (at most CHUNK: the quick path): upper bounds within
    10^-dps relative of the closed forms at sampled orders."""
    f = eval(expr, {"ta": ta, "Rat": Rat})  # noqa: S307
    orders = list(range(2, 4097))
    curve = ta.RDP.of(f, orders, dps).curve
    assert len(curve) == len(orders)
    for a in (2, 3, 17, 256, 1000, 4096):
        with MP.workdps(dps + 30):
            t = truth(a)
            v = curve[sp.Integer(a)]
            vm = MP.mpf(v.p) / v.q
            assert t * (1 - MP.mpf(10) ** -(dps + 20)) <= vm <= t * (1 + 10 * MP.mpf(10) ** -dps)


def test_epsdelta_power_1e4_roc_through_its_binomial_part():
    """EpsDelta(1/100, 10^-6)^(10^4): with s = (1 - d)^n the mass that avoids every
    d-atom, the product's Q-law puts 1 - s at likelihood ratio +oo and s times RR(1/100)^n's
    binomial law on the rest (P mirrors it), so roc(alpha) = 1 - s + s roc_RR(alpha / s) for
    alpha <= s; the binomial law by the ratio of consecutive terms in mpmath at 60 digits."""
    n = 10**4
    with MP.workdps(60):
        d = MP.mpf(10) ** -6
        s = (1 - d) ** n
        E = MP.exp(MP.mpf(1) / 100)
        p = E / (1 + E)
        P, Q = (1 - p) ** n, p ** n  # k = n ones: P-mass (1-p)^n, Q-mass p^n
        groups = []
        for k in range(n, -1, -1):
            groups.append((P, Q))
            P = P * k / (n - k + 1) * p / (1 - p)
            Q = Q * k / (n - k + 1) * (1 - p) / p
        for alpha in (Fraction(1, 100), Fraction(1, 10**8), Fraction(1, 2)):
            a = MP.mpf(alpha.numerator) / alpha.denominator
            ref = 1 - s + s * (1 - R1.np_value(groups, a / s))
            with ta.pld_options(tol=1e-12):
                v = ta.roc(ta.EpsDelta(Rat(1, 100), Rat(1, 10**6)) ** n,
                           Rat(alpha.numerator, alpha.denominator), dps=20)
            assert _certified(v)
            assert _meets(v, ref - MP.mpf(10) ** -40, ref + MP.mpf(10) ** -40)
