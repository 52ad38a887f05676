"""Every number states its guarantee (exact, certified, estimate), certified values come from
Arb or exact arithmetic, and verify decides only from exact and certified values.

References are independent of the code under test: mpmath at four times the digits by another
formula (Φ⁻¹ through ``erfinv`` of the exact complement, computed with enough digits that the
cancellation does not matter), exact rationals, and values printed in the papers.
"""

from __future__ import annotations

import ast
import pathlib
import warnings

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import C, EpsDelta, G, Laplace
from tradeoff_algebra.core.errors import EstimateWarning, InvalidParameter
from tradeoff_algebra.core.normal import Phi, PhiInv
from tradeoff_algebra.numeric.arb_expr import certify, enclose_interval
from tradeoff_algebra.numeric.value import GUARANTEES, Value, weakest

PKG = pathlib.Path(ta.__file__).parent


def _ref_phi_inv(t: sp.Rational, dps: int = 400) -> mpmath.mpf:
    """Φ⁻¹(t) by mpmath's erfinv at ``dps`` digits (enough that 1 - 2t keeps every digit)."""
    with mpmath.workdps(dps):
        return mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(t.p) / t.q - 1)


# -- the Value type --------------------------------------------------------------------------
def test_weakest_and_labels():
    assert GUARANTEES == ("exact", "certified", "estimate")
    assert weakest("exact", "certified") == "certified"
    assert weakest("certified", "estimate", "exact") == "estimate"
    v = Value.point(mpmath.mpf("0.25"), 10)
    assert v.guarantee == "estimate" and not v.is_certain
    assert "estimate" in repr(v) and v.latex().startswith(r"\approx")
    c = Value.point(mpmath.mpf("0.25"), 10, guarantee="certified")
    assert c.is_certain and "certified" in repr(c) and "approx" not in c.latex()
    e = Value.from_exact(sp.Rational(1, 3), 10)
    assert e.guarantee == "exact" and e.describe() == "1/3 (exact)"
    assert e.weakened("estimate").guarantee == "estimate"
    assert e.weakened("estimate").exact is None
    with pytest.raises(ValueError):
        Value.point(mpmath.mpf(1), 10, guarantee="proved")


def test_closed_forms_are_certified_and_hold_the_truth():
    for f, a in [(G(1), sp.Rational(1, 20)), (G(sp.Rational(39, 200)), sp.Rational(9, 10)),
                 (ta.Mix(G(1), sp.Rational(1, 3)), sp.Rational(1, 7)),
                 (G(2).inverse(), sp.Rational(1, 10**40))]:
        v = ta.evaluate(f, a, dps=30)
        assert v.guarantee == "certified", (f, v)
        with mpmath.workdps(200):
            mu = {G(1): 1, G(sp.Rational(39, 200)): mpmath.mpf(39) / 200}.get(f)
            if isinstance(f, ta.Mix):
                ref = (mpmath.ncdf(-_ref_phi_inv(a) - 1) / 3 + (1 - mpmath.mpf(a.p) / a.q) * 2 / 3)
            elif mu is None:  # G(2)^{-1} = G(2)
                ref = mpmath.ncdf(-_ref_phi_inv(a) - 2)
            else:
                ref = mpmath.ncdf(-_ref_phi_inv(a) - mu)
            lo, hi = v.interval()
            assert lo <= ref <= hi, (f, v, ref)


def test_mpmath_points_are_estimates():
    """Two mpmath precisions agreeing is a heuristic: the point is an estimate."""
    v = ta.evaluate(ta.GaussianMixturePair([sp.Rational(1, 2), sp.Rational(1, 2)], [0, 0],
                                           [0, 2]), sp.Rational(1, 20), dps=20)
    assert v.guarantee == "estimate"
    assert "estimate" in repr(v)


# -- Φ⁻¹ in Arb -------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 10, 40, 60, 300, 5000])
def test_phi_inv_tails_certified(k):
    """The enclosure of Φ⁻¹(10^-k) is checked through Φ (mpmath's erfc, a different function):
    Φ(lo) <= 10^-k <= Φ(hi), and it is as narrow as the precision asked."""
    t = sp.Rational(1, 10**k)
    lo, hi = enclose_interval(PhiInv(t), prec=300)
    lo2, hi2 = enclose_interval(PhiInv(1 - t), prec=300)  # the exact complement
    with mpmath.workdps(120):
        lo, hi, lo2, hi2 = (mpmath.mpf(x) for x in (lo, hi, lo2, hi2))  # exact at 120 digits
        target = mpmath.mpf(10) ** -k
        assert mpmath.ncdf(lo) <= target <= mpmath.ncdf(hi)
        assert hi - lo < abs(lo) * mpmath.mpf(2) ** -280
        assert mpmath.ncdf(-hi2) <= target <= mpmath.ncdf(-lo2)
        assert hi2 - lo2 < abs(lo2) * mpmath.mpf(2) ** -280


def test_verify_phi_inv_reproducers():
    """The widened mpmath Φ⁻¹ answered HOLDS for the false claim Φ⁻¹(1e-40) >= -13.3109213714251
    and False for a true one below 1e-50."""
    v = ta.verify(PhiInv(sp.Rational(1, 10**40)), ">=", sp.Rational("-13.3109213714251"))
    assert v.status is False
    ce = v.counterexample
    truth = _ref_phi_inv(sp.Rational(1, 10**40))
    assert ce["lhs"].lo <= truth <= ce["lhs"].hi
    x = PhiInv(sp.Integer(10) ** -60)
    assert ta.verify(x, ">=", x - sp.Rational(1, 10**25)).status is True
    assert ta.verify(PhiInv(sp.Integer(10) ** -400), "<=", -42).status is True


def test_certify_refuses_what_it_cannot_enclose():
    assert certify(sp.Symbol("x"), 10) is None
    assert certify(sp.gamma(sp.Rational(1, 3)), 10) is None  # no ball rule: never a guess
    v = certify(Phi(sp.Integer(-40)), 20)
    with mpmath.workdps(60):
        assert abs(v.mid - mpmath.ncdf(-40)) < mpmath.ncdf(-40) * mpmath.mpf(10) ** -19


# -- verify decides only on certain numbers --------------------------------------------------
def test_estimate_never_decides():
    est = ta.kl(C(sp.Rational(1, 3), Laplace(1)), dps=20, estimate=True)  # quadrature
    assert est.guarantee == "estimate" and not est.is_point
    v = ta.verify(est, "<=", 1)  # true (about 0.055), but an estimate proves nothing
    assert v.status is None
    assert "estimate" in v.evidence
    pt = ta.evaluate(ta.GaussianMixturePair([sp.Rational(1, 2), sp.Rational(1, 2)], [0, 0],
                                            [0, 2]), sp.Rational(1, 20), dps=20)
    assert not pt.is_certain
    assert ta.verify(pt, ">=", 2).status is None  # false, but not certified either


def test_box_outside_assumptions_refused():
    x = sp.Symbol("x", positive=True)
    with pytest.raises(InvalidParameter, match="assumptions of x"):
        ta.verify(EpsDelta(1, 0), ">=", EpsDelta(1 + x, 0), over={x: (-1, 0)})
    # a box reaching outside is clipped to the assumptions (and shown clipped)
    v = ta.verify(EpsDelta(1, 0), ">=", EpsDelta(1 + x, 0), over={x: (-1, 1)})
    assert v.status is True and v.over[x] == (0, 1)


@pytest.mark.parametrize("bad", [float("nan"), sp.nan, sp.zoo, sp.nan + sp.Symbol("x")])
def test_nan_sides_refused(bad):
    with pytest.raises(InvalidParameter):
        ta.verify(bad, "<=", 1)


def test_nan_box_refused():
    x = sp.Symbol("x")
    with pytest.raises(InvalidParameter):
        ta.verify(x, ">=", -1, over={x: (float("nan"), 1)})


def test_undecidable_is_a_verdict_not_an_exception():
    """It leaked as verify.interval.Undecidable from the CLI (exit 1, "fails"). The claim is
    false: delta lies below delta_{G_1}(50) (Cor. 1, mpmath at 80 digits) at the 11th digit,
    so G_1 >= f_{50,delta} fails (Prop. 6); the verdict is never True."""
    d = sp.Rational(13723528867294886513, 10**555)
    with mpmath.workdps(80):
        ref = mpmath.ncdf(-50 + mpmath.mpf(1) / 2) - mpmath.e**50 * mpmath.ncdf(-50 - 0.5)
        assert mpmath.mpf(d.p) / d.q < ref
    v = ta.verify(G(1), ">=", EpsDelta(50, d))
    assert v.status in (None, False)


# -- conversions ----------------------------------------------------------------------------
def test_delta_and_epsilon_of_closed_forms_certified():
    d = ta.delta(G(1), 50)
    assert d.guarantee == "certified"
    with mpmath.workdps(80):  # Dong, Roth & Su, Cor. 1 by mpmath's complementary erfc
        ref = mpmath.ncdf(-50 + mpmath.mpf(1) / 2) - mpmath.e ** 50 * mpmath.ncdf(-50 - 0.5)
        lo, hi = d.interval()
        assert lo <= ref <= hi
    e = ta.epsilon(G(1), sp.Rational(1, 10**5))
    assert e.guarantee == "certified"
    with mpmath.workdps(60):
        lo, hi = e.interval()

        def dl(x):
            return mpmath.ncdf(-x + 0.5) - mpmath.e ** x * mpmath.ncdf(-x - 0.5)
        assert dl(lo) > mpmath.mpf(10) ** -5 > dl(hi)


def test_laplace_inversion_is_certified():
    """DP-SGD through the Arb Laplace inversion: certified."""
    f = ta.noisy_sgd(sp.Rational(11, 10), sp.Rational(256, 60000), 1000, sampling="poisson")
    v = ta.epsilon(f, sp.Rational(1, 10**5), dps=8)
    assert v.guarantee == "certified", v


# -- curves ---------------------------------------------------------------------------------
def test_curve_bounds_hold_the_truth():
    """curve(bounds=True) missed the 30-digit value by 2-3e-12 relative (10-digit points
    widened by one float ulp)."""
    f = G(sp.Rational(39, 200))
    alphas = [0.05, 0.5, 0.9]
    with warnings.catch_warnings():
        warnings.simplefilter("error", EstimateWarning)
        lo, hi = f.curve(alphas, bounds=True)
    for a, lo_i, hi_i in zip(alphas, lo, hi, strict=True):
        with mpmath.workdps(60):
            ref = mpmath.ncdf(-_ref_phi_inv(sp.Rational(a)) - mpmath.mpf(39) / 200)
        assert lo_i <= ref <= hi_i


def test_curve_bounds_of_estimates_warn():
    # a Skellam factor: no certified route of its profile, so the PLD grid answers (its float
    # model); G(1) @ Laplace(1) has a certified band (routes/profile_curve), and so has an
    # asymmetric factor's product, with its inverse's profile
    f = G(1) @ ta.Skellam(1, 3)
    with pytest.warns(EstimateWarning):
        f.curve([0.1, 0.5], bounds=True)


# -- the chain of trust, statically ---------------------------------------------------------
#: The modules that may state "certified": each computes the number it certifies with Arb
#: balls or exact arithmetic (the reason is the comment at the call).
CERTIFYING = {
    "numeric/arb_expr.py",     # Arb balls of closed forms
    "numeric/protocol.py",     # Arb fast path, Arb closed forms, CertifiedPair of a route
    "numeric/value.py",        # the type itself
    "numeric/value_arith.py",  # Value arithmetic: Arb balls of certified operands, outward
    "routes/hull_cells.py",    # eps of the add/remove hull: both ends proved by Arb balls of delta
    "routes/hull_tilted.py",   # eps and delta of the add/remove hull: both directions' brackets
                               # proved by Arb sums of the tilted cells (numeric/tilted_cells)
    "routes/hull_few.py",      # the add/remove hull's power: convex secant bounds in Arb on
                               # the inversion's CertifiedPairs of its profile
    "analysis/conversions.py",  # Arb closed-form profiles, brackets proved in Arb
    "routes/engines.py",       # the Laplace inversion (numeric.cf, Arb)
    "routes/product.py",       # Eq. (12) on a proved answer: the level ball and K in Arb
    "routes/parameter_sandwich.py",  # ends of certified answers at rationals a < mu < b proved
    # by an Arb ball of mu (L_mu monotone in mu)
    "routes/inversion_curve.py",  # the profile band: Arb bounds rounded outward
    "routes/profile_curve.py",  # the profile band of CertifiedPairs of delta routes
    "routes/lattice_curve.py",  # Neyman-Pearson vertices from Arb tails of the lattice roots
    "routes/tail_laws.py",     # bounds of the power from Arb tail points, rounded outward
    "verify/api.py",           # enclosures from verify.interval (Arb)
    "verify/pointwise.py",     # brackets of certified values at rational levels (monotone
                               # sides), ends combined with directed rounding
    "analysis/renyi.py",       # Arb closed forms and Arb integration, summed outward
    "analysis/renyi_sampled.py",  # binomial sums and their Taylor bound in Arb
    "families/shuffle.py",     # the Arb tables of the shuffled pair and its Wang bound
    "families/shuffle_profile.py",  # the shuffled pair's profile by slices, in Arb
    "families/shuffle_roc.py",  # the shuffled pair's power from Arb tails at its threshold
    "numeric/finite.py",       # exact masses, or Arb balls of them, summed in Arb
    "numeric/finite_values.py",  # eps(delta) from Arb balls of the ordered atoms (arb_epsilon)
    "numeric/subsample_balls.py",  # eps(delta) of C_p(f) from the Arb balls of its ordered atoms
    "numeric/lattice_product.py",  # exact integer lower bounds, Arb sums, ends rounded outward
    "numeric/lattice_two.py",  # two tilted windows' Arb sums, the dropped mass bounded in Arb
    "numeric/grid_product.py",  # two lattice products' Arb sums and bounds, ends outward
    "analysis/distance.py",    # directed rounding of + and - on certified ends
    "families/gaussian.py",    # eps_G(0) = oo: delta_G > 0 everywhere (a proof)
    "families/epsdelta.py",    # eps(d) = oo for d < delta0 (a proof)
    "families/trivial.py",     # eps of Id and Zero: 0 or oo exactly
    "families/discrete_gaussian.py",  # eps(d): a bracket proved on the Arb profile
    "families/discrete_gaussian_offgrid.py",  # G_mu times N with the aliasing bound in Arb
    "families/binomial.py",    # delta and eps(d) at large n: incomplete beta functions in Arb,
                               # brackets proved on them, ends rounded outward
    "analysis/subsampled_moments.py",  # Lemma 4 moments by Arb integration
    "operators/max_delta.py",  # delta of a maximum: Arb concave search on certified powers
    "operators/power_profile.py",  # delta of Group, Inverse, f^S: Arb concave search on powers
    "operators/profile_ball.py",  # delta of Mix(f, p): f's proved profile moved in Arb
    "operators/max_profiles.py",  # delta of a maximum bounded by an argument's Arb profile
    "numeric/knots_profile.py",  # delta from exact knots: Arb sums, ratio signs by Arb or exact
    "families/poisson_replace.py",  # levels from a threshold bracketed by Arb comparisons
    "analysis/pure_power.py",  # eps(d) of f_{eps0,0}^(x)k, small k: the closed form's Arb ball
                               # on a segment proved by Arb comparisons (numeric/finite_small)
}


def test_only_arb_modules_certify():
    """No module outside the Arb layer builds a certified number from mpmath or floats."""
    offenders = []
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).as_posix()
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            says = (isinstance(node, ast.Constant) and node.value == "certified"
                    and rel != "numeric/value.py") or (
                isinstance(node, ast.Name) and node.id == "CertifiedPair")
            if says and rel not in CERTIFYING:
                offenders.append(f"{rel}:{node.lineno}")
    assert not offenders, offenders


def test_verify_interval_is_arb():
    """verify's interval arithmetic has no mpmath special function left in it."""
    src = (PKG / "verify" / "interval.py").read_text()
    for name in ("mp.erfinv", "mp.ncdf", "mp.erfc", "mp.exp", "mp.log", "_widen"):
        assert name not in src, name


# -- finite laws: exact or Arb over the atoms -----------------------------------------------
def _binomial_atoms(eps, n, dps=60):
    """(ratio, P, Q) of f_{eps,0}^{(x) n} from the binomial masses (Kairouz et al.), mpmath."""
    from math import comb

    with mpmath.workdps(dps):
        e = mpmath.mpf(eps) if not isinstance(eps, sp.Basic) else mpmath.mpf(sp.N(eps, dps + 10))
        P = [comb(n, k) * mpmath.e ** ((n - k) * e) / (1 + mpmath.e ** e) ** n
             for k in range(n + 1)]
        Q = P[::-1]
        return sorted([(Q[k] / P[k], P[k], Q[k]) for k in range(n + 1)], key=lambda x: -x[0])


def test_finite_value_and_delta_certified_against_brute_force():
    eps, n = 1 / sp.sqrt(10), 10
    f = EpsDelta(eps, 0) ** n
    atoms = _binomial_atoms(eps, n)
    for a in (sp.Rational(1, 10), sp.Rational(1, 3), sp.Rational(9, 10)):
        v = ta.evaluate(f, a)
        assert v.guarantee == "certified"
        with mpmath.workdps(60):  # Neyman-Pearson: reject atoms by decreasing ratio
            x, Pc, Qc = mpmath.mpf(a.p) / a.q, 0, 0
            for r, p, q in atoms:
                if Pc + p >= x:
                    ref = 1 - Qc - r * (x - Pc)
                    break
                Pc, Qc = Pc + p, Qc + q
            lo, hi = v.interval()
            assert lo <= ref <= hi
    d = ta.delta(f, 1)
    assert d.guarantee == "certified"
    with mpmath.workdps(60):
        ref = sum(max(q - mpmath.e * p, 0) for _, p, q in atoms)
        lo, hi = d.interval()
        assert lo <= ref <= hi
    e = ta.epsilon(f, sp.Rational(1, 1000))
    assert e.guarantee == "certified"
    with mpmath.workdps(60):
        lo, hi = (mpmath.mpf(x) for x in e.interval())

        def dl(x):
            return sum(max(q - mpmath.e ** x * p, 0) for _, p, q in atoms)
        assert dl(lo) > mpmath.mpf(1) / 1000 >= dl(hi)


def test_finite_rational_delta_exact():
    D = ta.Discrete([sp.Rational(1, 2), sp.Rational(1, 3), sp.Rational(1, 6)],
                    [sp.Rational(1, 6), sp.Rational(1, 3), sp.Rational(1, 2)])
    v = ta.delta(D, sp.log(2))  # sum (Q - 2P)_+ = (1/2 - 1/3) + 0 + 0
    assert v.exact == sp.Rational(1, 6)


# -- C_p(f) and f_p in Arb (Eq. (13)) ----------------------------------------------------------
@pytest.mark.parametrize("a", ["0.05", "0.3", "0.6", "0.99", "0.999999999999"])
def test_subsample_of_gaussian_certified(a):
    """C_{1/3}(G_1) by Eq. (13) in Arb against an independent root of p G(t) + (1-p)(1-t) = a
    (mpmath findroot at 60 digits, G by erfinv) on the last piece and the formula elsewhere."""
    f = C(sp.Rational(1, 3), G(1))
    v, r = ta.evaluate(f, a), ta.roc(f, a)
    assert v.guarantee == r.guarantee == "certified"
    with mpmath.workdps(60):
        p, A = mpmath.mpf(1) / 3, mpmath.mpf(a)

        def g(t):
            return mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * t - 1) - 1)

        xs = mpmath.ncdf(-0.5)  # the fixed point of G_1
        fx = p * xs + (1 - p) * (1 - xs)
        if A <= xs:
            ref = p * g(A) + (1 - p) * (1 - A)
        elif A <= fx:
            ref = xs + fx - A
        else:
            ref = mpmath.findroot(lambda t: p * g(t) + (1 - p) * (1 - t) - A,
                                  (mpmath.mpf("1e-20"), xs), solver="anderson")
        lo, hi = v.interval()
        assert lo <= ref <= hi
        lo, hi = r.interval()
        assert lo <= 1 - ref <= hi


def test_group_certified_against_iteration():
    """Group(f_{1/4,0}, 4) = 1 - (1 - f)^{o 4} (Dong, Roth & Su, Thm. 3) in Arb against the
    iteration in mpmath at 60 digits."""
    f = ta.Group(EpsDelta(sp.Rational(1, 4), 0), 4)
    for a in ("0.05", "0.3", "0.9"):
        v = ta.evaluate(f, a)
        assert v.guarantee == "certified"
        with mpmath.workdps(60):
            e = mpmath.e ** (mpmath.mpf(1) / 4)
            x = mpmath.mpf(a)
            for _ in range(4):  # x -> 1 - f(x), f = max(0, 1 - e x, (1 - x)/e)
                x = 1 - max(0, 1 - e * x, (1 - x) / e)
            lo, hi = v.interval()
            assert lo <= 1 - x <= hi


@pytest.mark.parametrize("args", [(ta.GDP(1), "<=", 1), (sp.I, "<=", 1), (1, [], 2)])
def test_verify_refuses_what_is_not_a_real_claim(args):
    with pytest.raises(InvalidParameter):
        ta.verify(*args)
    with pytest.raises(InvalidParameter, match="over"):
        ta.verify(1, "<=", 2, over=5)


def test_long_decimal_strings_and_nan_refused():
    with pytest.raises(InvalidParameter, match="alpha"):
        ta.evaluate(G(1), "0." + "1" * 100_000)
    with pytest.raises(InvalidParameter, match="dps"):
        ta.kl(G(1), dps=10**400)


def test_more_elementary_functions_in_arb():
    """A parameter written with tanh (the CLT parameter of Dong, Roth & Su, Thm. 6) is enclosed
    in Arb; one with a function that has no ball rule (cos) falls back to an estimate."""
    mu = 2 * sp.sqrt(10) * sp.tanh(sp.sqrt(10) / 20)
    v = ta.evaluate(G(mu), sp.Rational(1, 10))
    assert v.guarantee == "certified"
    with mpmath.workdps(60):
        m = 2 * mpmath.sqrt(10) * mpmath.tanh(mpmath.sqrt(10) / 20)
        ref = mpmath.ncdf(-_ref_phi_inv(sp.Rational(1, 10)) - m)
        lo, hi = v.interval()
        assert lo <= ref <= hi
    assert ta.evaluate(G(1 + sp.cos(1)), sp.Rational(1, 10)).guarantee == "estimate"


def test_command_line_marks_estimates(capsys):
    from tradeoff_algebra.cli import main

    # (a Skellam factor: no certified band of the profile; the PLD grid)
    assert main(["eval", "G(1) @ Skellam(1, 3)", "0.05", "--dps", "10"]) == 0
    assert capsys.readouterr().out.strip().endswith("(estimate)")
    assert main(["eval", "G(1)", "0.05"]) == 0
    assert capsys.readouterr().out.strip() == "0.740488977158555929351696523701"  # certified


def test_huge_time_limit_is_no_limit():
    with ta.time_limit(10**400):  # raised OverflowError (a float of it)
        assert ta.evaluate(G(1), "0.1").guarantee == "certified"


def test_delta_at_an_eps_no_mpf_holds_is_certified_by_the_two_mpfs_around_it():
    """The certified routes prove delta at an mpf; at eps = 1/3 (no binary number) the result
    is still certified: delta at the mpfs just below and above 1/3, delta being non-increasing
    (Dong, Roth & Su, Prop. 6). Checked against the same route at 1/3 rounded to 60 digits (a
    certified value of an eps within 1e-60 of 1/3, whose delta differs by less than 1e-55)."""
    import sympy as sp

    from tradeoff_algebra import G, Mix
    from tradeoff_algebra.numeric.context import mp

    f = Mix(G(sp.Rational(10, 11)), sp.Rational(8, 1875)) ** 300
    v = ta.delta(f, sp.Rational(1, 3), dps=12)
    assert v.is_certain and v.route == "certified Laplace inversion"
    with mp.workdps(60):
        third = mp.mpf(1) / 3
    ref = ta.delta(f, third, dps=20)
    assert ref.is_certain
    assert v.lo - 1e-40 <= ref.lo and ref.hi <= v.hi + 1e-40


def test_every_trade_off_function_is_exactly_zero_at_one():
    """f(1) <= 1 - 1 (Prop. 1): exact 0 (and power exactly 1) for every expression, also where
    no route is exact elsewhere; the certified value just below 1 is consistent with it."""
    import sympy as sp

    from tradeoff_algebra import EpsDelta, G, Laplace

    for f in (EpsDelta(sp.log(sp.Rational(3, 2)), 0) ** 7 @ G(1), Laplace(1) ** 3 @ G(2), G(5)):
        v, r = ta.evaluate(f, 1), ta.roc(f, 1)
        assert (v.guarantee, v.exact, r.guarantee, r.exact) == ("exact", 0, "exact", 1)
    near = ta.evaluate(G(1), 1 - sp.Rational(1, 10**6), dps=20)
    assert near.is_certain and 0 < near.lo < 1e-6
