"""The discrete Laplace (geometric) family (Ghosh, Roughgarden & Sundararajan 2009) against
references written here: brute-force Neyman-Pearson over the explicit mass functions on the
integers (exact Fractions when r = e^{-1/t} is rational, 50 digits otherwise, the neglected
tail bounded), the hockey-stick sum for delta(eps), direct sums for the Renyi divergences,
exact convolution of the privacy-loss laws for products, and dp_accounting's discrete Laplace
PLD when it is installed."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import pytest
import sympy as sp
from references.lattice import discrete_laplace_pair

import tradeoff_algebra as ta
from tradeoff_algebra.mechanisms import discrete_laplace
from tradeoff_algebra.numeric.capability import profile_form
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.finite import finite_loss
from tradeoff_algebra.parse import parse_expr

R = sp.Rational
LN2 = 1 / sp.log(2)  # the scale t with r = e^{-1/t} = 1/2
CASES = [(1, R(2)), (2, R(1, 2)), (3, R(7, 10)), (5, R(3)), (4, LN2)]


# -- references ----------------------------------------------------------------------------------
def lattice(t, tiny: int = 80) -> dict:
    """L_Z(0, t) on [-K, K] at the working precision, the neglected mass 2 r^{K+1}/(1 + r)
    below 10^-tiny (checked)."""
    r = mp.exp(-1 / mp.mpf(sp.N(t, mp.dps + 10)))
    K = int(tiny * mp.log(10) / -mp.log(r)) + 5
    assert 2 * r ** (K + 1) / (1 + r) < mp.mpf(10) ** -tiny
    c = (1 - r) / (1 + r)
    return {x: c * r ** abs(x) for x in range(-K, K + 1)}


def exact_lattice(r: Fraction, K: int) -> tuple[dict, Fraction]:
    """L_Z(0, t) with rational r on [-K, K] and the exact mass of each tail beyond."""
    c = (1 - r) / (1 + r)
    return {x: c * r ** abs(x) for x in range(-K, K + 1)}, c * r ** (K + 1) / (1 - r)


def np_value_ref(P: dict, d: int, alpha, zero=None):
    """T(P, P(. - d))(alpha) by Neyman-Pearson over the outcomes: the ratio Q/P is
    non-decreasing in x, so the most powerful test rejects the largest x first."""
    zero = mp.zero if zero is None else zero
    size, power = zero, zero
    for x in sorted(set(P) | {y + d for y in P}, reverse=True):
        px, qx = P.get(x, zero), P.get(x - d, zero)
        if size + px <= alpha:
            size, power = size + px, power + qx
        else:
            return 1 - (power + qx * (alpha - size) / px)
    return 1 - power


def hockey(P: dict, d: int, gamma):
    xs = set(P) | {y + d for y in P}
    return mp.fsum(max(P.get(x - d, mp.zero) - gamma * P.get(x, mp.zero), 0) for x in xs)


def loss_law(d: int, t) -> dict:
    """{loss: (P-mass, Q-mass)} of one factor from the pmf (the outcomes of equal loss
    merged): the loss (|x| - |x - d|)/t of every x of the lattice."""
    out: dict = {}
    for x, p in lattice(t, 60).items():
        l = (abs(x) - abs(x - d)) * 1  # in units of 1/t
        a, b = out.get(l, (mp.zero, mp.zero))
        out[l] = (a + p, b + lattice_pmf_shift(x, d, t))
    return out


def lattice_pmf_shift(x: int, d: int, t):
    r = mp.exp(-1 / mp.mpf(sp.N(t, mp.dps + 10)))
    return (1 - r) / (1 + r) * r ** abs(x - d)


def convolve(A: dict, B: dict) -> dict:
    out: dict = {}
    for la, (pa, qa) in A.items():
        for lb, (pb, qb) in B.items():
            p, q = out.get(la + lb, (mp.zero, mp.zero))
            out[la + lb] = (p + pa * pb, q + qa * qb)
    return out


def law_delta(law: dict, t, eps):
    """sum over losses l/t > eps of Q - e^eps P."""
    tm = mp.mpf(sp.N(t, mp.dps + 10))
    return mp.fsum(q - mp.exp(eps) * p for l, (p, q) in law.items() if l / tm > eps)


# -- the family ----------------------------------------------------------------------------------
@pytest.mark.parametrize("bad,name", [((R(3, 2), 2), "sensitivity"), ((0, 2), "sensitivity"),
                                      ((1, 0), "scale"), ((1, -1), "scale")])
def test_parameters_are_validated(bad, name):
    with pytest.raises(ta.InvalidParameter, match=name):
        ta.DiscreteLaplace(*bad)
    with pytest.raises(ta.InvalidParameter, match=name):
        discrete_laplace(*bad)


@pytest.mark.parametrize("d,t", CASES)
def test_values_and_power_against_brute_force_neyman_pearson(d, t):
    f = ta.DiscreteLaplace(d, t)
    with mp.workdps(50):
        P = lattice(t)
        for a in ("1e-30", "1e-8", "0.01", "0.25", "0.5", "0.9", "0.999999"):
            ref = np_value_ref(P, d, mp.mpf(a))
            v, w = ta.evaluate(f, a, dps=30), ta.roc(f, a, dps=30)
            assert v.guarantee in ("certified", "exact") and w.guarantee in ("certified", "exact")
            assert abs(v.mid - ref) <= mp.mpf(10) ** -29 * ref, (a, v, ref)
            assert abs(w.mid - (1 - ref)) <= mp.mpf(10) ** -29 * (1 - ref) + mp.mpf(10) ** -45


def test_rational_r_gives_exact_values_equal_to_exact_neyman_pearson():
    # t = 1/log 2: r = 1/2, every mass rational; the reference pair has one outcome per
    # integer of a window and one per tail beyond (constant ratio there), exact geometric sums
    f = ta.DiscreteLaplace(3, LN2)
    ref = discrete_laplace_pair(3, LN2, "ref")
    assert ref.exact
    for A in (R(1, 1000), R(1, 20), R(1, 3), R(1, 2), R(9, 10)):
        v = ta.evaluate(f, A)
        assert v.guarantee == "exact"
        exact = ref.exact_value(Fraction(int(A.p), int(A.q)))
        assert v.exact == sp.Rational(exact.numerator, exact.denominator)
        assert f(A) == v.exact


def test_sensitivity_one_is_randomized_response():
    # the two atoms of L are those of f_{1/t,0} (module docstring)
    for t in (R(2), R(1, 3)):
        f, g = ta.DiscreteLaplace(1, t), ta.EpsDelta(1 / t, 0)
        for a in ("0.01", "0.3", "0.8"):
            assert abs(ta.evaluate(f, a, dps=30).mid - ta.evaluate(g, a, dps=30).mid) \
                < mp.mpf(10) ** -29


def test_symmetric_fixed_point_and_knots():
    for d in (2, 3):
        f = ta.DiscreteLaplace(d, R(7, 10))
        assert f.is_symmetric and ta.simplify(ta.Inverse(f)) == f
        x = f.fixed_point()
        with mp.workdps(40):
            xm = mp.mpf(sp.N(x, 50))
            assert abs(np_value_ref(lattice(R(7, 10)), d, xm) - xm) < mp.mpf(10) ** -35
            y = ta.evaluate(f, "0.2", dps=35).mid
            assert abs(ta.evaluate(f, y, dps=35).mid - mp.mpf("0.2")) < mp.mpf(10) ** -30


@pytest.mark.parametrize("d,t", CASES)
def test_delta_against_the_hockey_stick_sum_and_the_closed_form(d, t):
    f = ta.DiscreteLaplace(d, t)
    atom = sp.Integer(abs(d - 2)) / t  # eps exactly at an atom (l_1 or l_{d-1})
    for eps in (R(0), R(1, 2), R(2), atom):
        with mp.workdps(50):
            e = mp.mpf(sp.N(eps, 60))
            ref = hockey(lattice(t), d, mp.exp(e))
            v = ta.delta(f, eps, dps=30)
            assert v.guarantee in ("certified", "exact")  # exact where the profile is rational
            assert abs(v.mid - ref) <= mp.mpf(10) ** -29 * ref + mp.mpf(10) ** -45, (eps, v, ref)
            form = profile_form(f, eps)
            assert abs(mp.mpf(sp.N(form, 50)) - ref) <= mp.mpf(10) ** -40
    assert ta.delta(f, sp.Integer(d) / t, dps=20).mid == 0  # (Delta/t)-DP


def test_epsilon_inverts_delta():
    f = ta.DiscreteLaplace(3, R(7, 10))
    for target in ("1e-2", "1e-1"):
        e = ta.epsilon(f, target, dps=20)
        with mp.workdps(40):
            P = lattice(R(7, 10))
            lo, hi = hockey(P, 3, mp.exp(e.lo)), hockey(P, 3, mp.exp(e.hi))
        assert lo >= mp.mpf(target) * (1 - mp.mpf(10) ** -15)
        assert hi <= mp.mpf(target) * (1 + mp.mpf(10) ** -15)


@pytest.mark.parametrize("a", [R(1, 2), R(2), R(3), R(4, 3), R(1, 3), sp.oo])
def test_renyi_closed_form_against_direct_sums(a):
    d, t = 3, R(7, 10)
    f = ta.DiscreteLaplace(d, t)
    form = ta.renyi(f, a)
    with mp.workdps(40):
        P = lattice(t)
        if a is sp.oo:
            ref = mp.mpf(d) / mp.mpf(sp.N(t, 50))
        else:
            A = mp.mpf(sp.N(a, 50))
            ref = mp.log(mp.fsum(p**A * P.get(x - d, mp.zero) ** (1 - A) for x, p in P.items()
                                 if x - d in P)) / (A - 1)
        assert abs(mp.mpf(sp.N(form, 40)) - ref) < mp.mpf(10) ** -30


# -- composition ---------------------------------------------------------------------------------
def _inside(v, ref, slack=1e-9):
    return float(v.lo) - slack <= float(ref) <= float(v.hi) + slack


def test_self_products_against_exact_convolution_of_the_loss_law():
    for d, t in ((2, R(1, 2)), (3, LN2)):
        f = ta.DiscreteLaplace(d, t)
        with mp.workdps(30):
            law = loss_law(d, t)
            L10 = law
            for _ in range(9):
                L10 = convolve(L10, law)
            refs = {eps: law_delta(L10, t, mp.mpf(eps)) for eps in (1, 3)}
        for eps, ref in refs.items():
            assert _inside(ta.delta(f**10, eps, dps=8), ref)
        e = ta.epsilon(f**10, R(1, 10**6), dps=8)
        with mp.workdps(30):
            lo, hi = e.interval()  # the truth lies in it: delta(lo) >= 1e-6 >= delta(hi)
            assert law_delta(L10, t, hi) <= mp.mpf("1e-6") * (1 + mp.mpf(10) ** -12)
            assert law_delta(L10, t, lo) >= mp.mpf("1e-6") * (1 - mp.mpf(10) ** -12)


def test_exact_finite_route_for_rational_r():
    f = ta.DiscreteLaplace(3, LN2)
    fl = finite_loss(f**10)
    assert fl is not None and fl.is_rational
    v = ta.delta(f**10, 3, dps=20)
    assert v.guarantee in ("exact", "certified")
    with mp.workdps(40):
        law = loss_law(3, LN2)
        L10 = law
        for _ in range(9):
            L10 = convolve(L10, law)
        assert abs(v.mid - law_delta(L10, LN2, mp.mpf(3))) < mp.mpf(10) ** -19


def test_product_with_a_gaussian_against_the_mixed_sum():
    f = ta.DiscreteLaplace(2, R(1, 2))
    with mp.workdps(30):
        law = loss_law(2, R(1, 2))

        def gauss(gamma):  # H_gamma(N(1,1) || N(0,1))
            e = mp.log(gamma)
            return mp.ncdf(-e + mp.mpf(1) / 2) - gamma * mp.ncdf(-e - mp.mpf(1) / 2)

        refs = {eps: mp.fsum(q * gauss(mp.exp(eps - 2 * l)) for l, (_, q) in law.items())
                for eps in (1, 4)}
    for eps, ref in refs.items():
        assert _inside(ta.delta(f @ ta.G(1), eps, dps=8), ref, 1e-7)


def test_dp_accounting_discrete_laplace_pld_agrees():
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    acc = pld.from_discrete_laplace_mechanism(2.0, sensitivity=3,
                                              value_discretization_interval=1e-5)
    ours = ta.delta(ta.DiscreteLaplace(3, R(1, 2)), 1, dps=10)
    assert abs(acc.get_delta_for_epsilon(1.0) - float(ours.mid)) < 1e-4


# -- the interfaces ------------------------------------------------------------------------------
def test_latex_parse_and_constructor():
    f = ta.DiscreteLaplace(1, 2)
    assert ta.latex(f) == (r"T\left(\mathcal{L}_{\mathbb{Z}}(0, 2), "
                           r"\mathcal{L}_{\mathbb{Z}}(1, 2)\right)")
    assert discrete_laplace(1, 2) == f
    for g in (f, f @ ta.G(1), ta.DiscreteLaplace(3, R(7, 10)) ** 4):
        assert parse_expr(ta.text(g)) == g
    assert parse_expr("DiscreteLaplace(2, 1.5)") == ta.DiscreteLaplace(2, R(3, 2))
    assert "DiscreteLaplace" in ta.__all__ and "DiscreteLaplace" in ta.families.__all__


def test_the_command_line_reaches_the_family_through_the_parser():
    code = "import sys; from tradeoff_algebra.cli import main; sys.exit(main(sys.argv[1:]))"
    run = lambda *a: subprocess.run([sys.executable, "-c", code, *a],  # noqa: E731
                                    capture_output=True, text=True, timeout=300)
    out = run("eval", "DiscreteLaplace(2, 1/2)", "0.25")
    assert out.returncode == 0, out.stderr
    with mp.workdps(40):
        ref = np_value_ref(lattice(R(1, 2)), 2, mp.mpf("0.25"))
        assert abs(mp.mpf(out.stdout.strip()) - ref) < mp.mpf(10) ** -18
    out = run("eval", "DiscreteLaplace(3/2, 2)", "0.25")
    assert out.returncode == 2 and "sensitivity" in out.stderr
