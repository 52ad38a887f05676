"""The solvers of numeric/: findroot (every method, float, mpmath, exact and Arb), the
golden-section search and the certified concave maximum, against independent references:
closed-form roots at higher precision, maxima on grids at higher precision."""

from fractions import Fraction

import pytest
import sympy as sp
from flint import arb, ctx

from tradeoff_algebra.core.errors import InvalidParameter
from tradeoff_algebra.numeric.arb import arb_exact
from tradeoff_algebra.numeric.concave import golden_section, max_concave
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.numeric.roots import Probe, findroot, probe_of

METHODS = ("bisect", "illinois", "newton")


def _sqrt2_ref(dps):
    with mp.workdps(2 * dps + 20):
        return mp.sqrt(2)


@pytest.mark.parametrize("method", METHODS)
def test_mpf_root_of_closed_form(method):
    with mp.workdps(50):
        r = findroot(lambda x: x * x - 2, (mp.mpf(0), mp.mpf(2)), method=method,
                     df=lambda x: 2 * x)
        ref = _sqrt2_ref(50)
        assert r.lo <= ref <= r.hi
        assert r.hi - r.lo <= mp.ldexp(ref, -(mp.prec - 5))


@pytest.mark.parametrize("method", METHODS)
def test_float_root(method):
    r = findroot(lambda x: x**3 - x - 1.0, (1.0, 2.0), method=method,
                 df=lambda x: 3 * x * x - 1)
    with mp.workdps(40):
        ref = mp.findroot(lambda x: x**3 - x - 1, 1.3)  # the plastic number
        assert r.lo <= ref <= r.hi
    assert r.hi - r.lo <= 8 * 2.0**-52 * 2


@pytest.mark.parametrize("method", METHODS)
def test_exact_rational_bracket_is_proved(method):
    # sign decided exactly on rationals: the bracket holds sqrt(2) with certainty
    r = findroot(lambda x: x * x - 2, (sp.Integer(1), sp.Integer(2)), method=method,
                 rtol=sp.Rational(1, 10**30), df=lambda x: 2 * x)
    assert r.lo * r.lo < 2 < r.hi * r.hi
    assert (r.hi - r.lo) / r.hi <= sp.Rational(1, 10**30)
    assert max(sp.fraction(r.hi)[1], sp.fraction(r.lo)[1]) < 2**400  # short rationals
    f = findroot(lambda x: x * x - 2, (Fraction(1), Fraction(2)), method=method,
                 rtol=Fraction(1, 10**20), df=lambda x: 2 * x)
    assert f.lo * f.lo < 2 < f.hi * f.hi and isinstance(f.lo, Fraction)


@pytest.mark.parametrize("method", METHODS)
def test_arb_certified_bracket(method):
    # Arb balls of log(x) + 1 at exact points: the bracket holds exp(-1), computed independently
    with mp.workprec(120), arb_precision(140):
        def f(x):
            return arb_exact(x).log() + 1

        r = findroot(f, (mp.mpf("0.25"), mp.mpf(1)), method=method, df=lambda x: 1 / x)
        assert not r.exact
        assert f(r.lo) < 0 < f(r.hi)
        with mp.workdps(80):
            ref = mp.exp(-1)
        assert r.lo <= ref <= r.hi
        assert r.hi - r.lo <= mp.ldexp(1, -100)
    assert ctx.prec  # the Arb precision section restored whatever it was


@pytest.mark.parametrize("method", METHODS)
def test_geometric_split_reaches_tiny_roots(method):
    with mp.workdps(30):
        r = findroot(lambda x: mp.log(x) + 700, (mp.zero, mp.one), method=method,
                     split="geometric", df=lambda x: 1 / x)
        with mp.workdps(60):
            ref = mp.exp(-700)
        # mpf values of log(x) + 700 are rounded (an estimate, may even round to 0): log x
        # = -700 carries an absolute error of 700 2^-prec, so the bracket holds the root to a
        # relative 2 * 700 2^-prec
        tol = mp.ldexp(1400 * ref, -mp.prec)
        assert r.lo - tol <= ref <= r.hi + tol
        assert r.hi - r.lo <= mp.ldexp(ref, -(mp.prec - 6))


@pytest.mark.parametrize("method", METHODS)
def test_integer_split(method):
    r = findroot(lambda k: k * k - 1000, (0, 1000), method=method, split="integer",
                 df=lambda k: 2 * k)
    assert (r.lo, r.hi) == (31, 32)  # 31^2 < 1000 < 32^2
    calls = []
    r = findroot(lambda k: calls.append(k) or Probe(1 if k < 777 else -1), (0, 2**20),
                 method="bisect", split="integer", ends=(1, -1))
    assert (r.lo, r.hi) == (776, 777) and len(calls) <= 21


@pytest.mark.parametrize("method", METHODS)
def test_root_at_an_end(method):
    with mp.workdps(30):
        r = findroot(lambda x: x - 1, (mp.mpf(1), mp.mpf(3)), method=method,
                     df=lambda x: mp.one)
        assert r.exact and r.lo == r.hi == 1
        # a root on the end of a bracket whose end signs are given: confirmed from inside
        r = findroot(lambda x: (x - 1) ** 3, (mp.mpf(1), mp.mpf(3)), method=method,
                     ends=(-1, 1), df=lambda x: 3 * (x - 1) ** 2)
        assert r.lo == 1 and r.hi - r.lo <= mp.ldexp(1, -(mp.prec - 6))


@pytest.mark.parametrize("method", METHODS)
def test_exact_zero_inside(method):
    r = findroot(lambda x: x - sp.Rational(1, 4), (sp.Integer(0), sp.Integer(1)),
                 method=method, rtol=sp.Rational(1, 10**10), df=lambda x: 1)
    assert r.exact and r.lo == r.hi == sp.Rational(1, 4)


@pytest.mark.parametrize("method", METHODS)
def test_flat_function_and_no_sign_change(method):
    with pytest.raises(InvalidParameter, match=r"bracket.*\[0\.5, 2\.0\]"):
        findroot(lambda x: 1.0, (0.5, 2.0), method=method)  # flat: no sign change
    with pytest.raises(InvalidParameter, match=r"bracket.*\[-1\.0, 1\.0\].*\+ and \+"):
        findroot(lambda x: x * x + 1, (-1.0, 1.0), method=method)
    # flat stretches inside a bracket: a step function's jump is still found
    r = findroot(lambda x: 1.0 if x < 0.3 else -1.0, (0.0, 1.0), method=method)
    assert r.lo < 0.3 <= r.hi and r.hi - r.lo <= 1e-14


def test_undecided_enclosures():
    # f(x) = x - 1/3 known only to +-1e-6: "stop" keeps a valid bracket at the first
    # undecided point; "narrow" brackets the undecided zone from both sides
    def f(x):
        v = x - mp.mpf(1) / 3
        return (v - mp.mpf(1e-6), v + mp.mpf(1e-6))

    with mp.workdps(30):
        third = mp.mpf(1) / 3
        for mode in ("stop", "narrow"):
            r = findroot(f, (mp.zero, mp.one), method="bisect", undecided=mode)
            assert r.undecided and r.lo <= third <= r.hi
        assert third - r.lo <= 2.1e-6 and r.hi - third <= 2.1e-6
        assert f(r.lo)[1] < 0 < f(r.hi)[0]


def test_probe_of_and_bad_arguments():
    assert probe_of((1, 2)).k == 1 and probe_of((-2, -1)).k == -1
    assert probe_of((-1, 1)).k is None and probe_of((0, 0)).k == 0
    assert probe_of(float("nan")).k is None and probe_of(-3).k == -1
    with arb_precision(64):
        assert probe_of(arb(1, 2)).k is None and probe_of(arb(0)).k == 0
    for kw, name in (({"method": "brent"}, "method"), ({"split": "log"}, "split"),
                     ({"undecided": "ignore"}, "undecided")):
        with pytest.raises(InvalidParameter, match=name):
            findroot(lambda x: x, (-1.0, 1.0), **kw)
    with pytest.raises(InvalidParameter, match="bracket"):
        findroot(lambda x: x, (1.0, -1.0))


@pytest.mark.parametrize("method", METHODS)
def test_steps_are_fast(method):
    # a smooth simple root: the secant and Newton methods need far fewer steps than bisection
    calls = []

    def f(x):
        calls.append(x)
        return mp.exp(x) - 3

    with mp.workdps(60):
        r = findroot(f, (mp.zero, mp.mpf(2)), method=method, df=mp.exp)
        with mp.workdps(120):
            ref = mp.log(3)
        assert r.lo <= ref <= r.hi
    assert len(calls) <= (210 if method == "bisect" else 40)


# -- maximisers --------------------------------------------------------------------------------
def test_golden_section_against_a_grid():
    def fn(x):
        return mp.sin(x) * mp.exp(-x / 3)  # unimodal on [0, 3]

    with mp.workdps(40):
        x, v = golden_section(fn, mp.zero, mp.mpf(3), iters=120, maximise=True)
        with mp.workdps(60):
            ref_x = mp.atan(3)  # f'(x) = 0: tan x = 3
            grid = max(fn(mp.mpf(3) * k / 4000) for k in range(4001))
        assert abs(x - ref_x) < mp.mpf(10) ** -18
        assert v >= grid and v == fn(x)
    # floats, minimum, with the ends among the candidates
    x, v = golden_section(lambda t: (t - 0.2) ** 2, 0.0, 1.0, iters=60)
    assert abs(x - 0.2) < 1e-10
    x, v = golden_section(lambda t: t, 0.0, 1.0, iters=10, ends=True)
    assert (x, v) == (0.0, 0.0)


def test_max_concave_encloses_the_grid_maximum():
    def psi(t):
        v = -(t - mp.mpf("0.3")) ** 2 + mp.sqrt(t + 1) / 5
        return v, v

    with mp.workdps(30):
        lo, hi, (a, b) = max_concave(psi, 0, 1)
        with mp.workdps(60):
            # psi' = 0: -2 (t - 0.3) + 1/(10 sqrt(t + 1)) = 0
            t_star = mp.findroot(lambda t: -2 * (t - mp.mpf("0.3")) + 1 / (10 * mp.sqrt(t + 1)),
                                 0.33)
            ref = psi(t_star)[0]
        assert lo <= ref <= hi and hi - lo < mp.mpf(10) ** -20
        assert a <= t_star <= b
