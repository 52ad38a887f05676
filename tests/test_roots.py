"""The solvers of numeric/: findroot (every method, float, mpmath, exact and Arb), the widening
of a bracket (expand_bracket), the golden-section search, the certified concave maximum and the
one precision loop, against independent references: closed-form roots at higher precision,
maxima on grids at higher precision, values computed at many more digits."""

from fractions import Fraction

import pytest
import sympy as sp
from flint import arb, ctx

from tradeoff_algebra.core.errors import InvalidParameter, NumericalError
from tradeoff_algebra.numeric.arb import arb_exact
from tradeoff_algebra.numeric.concave import golden_section, max_concave
from tradeoff_algebra.numeric.context import arb_precision, mp
from tradeoff_algebra.numeric.precision_loop import precision_loop
from tradeoff_algebra.numeric.roots import Bracket, Probe, expand_bracket, findroot, probe_of

METHODS = ("bisect", "illinois", "newton", "collapse")


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


# -- expand_bracket ----------------------------------------------------------------------------
def _doubling(start):
    """Trials start, then doubling away from it: leftwards (halving) until a certain left end,
    then rightwards (doubling) from it."""
    def trial(L, H, last, i):
        if last is None:
            return start
        return (H if H is not None else last) / 2 if L is None else \
            max(last, L) * 2 if last >= L else L * 2
    return trial


def test_expand_bracket_finds_a_certified_sign_change():
    # log(x) - 50 changes sign at e^50 (about 5.2e21): doubling from 1 brackets it, and the
    # two ends have certified opposite signs; findroot then narrows to the closed form
    with mp.workdps(40), arb_precision(160):
        def f(x):  # an Arb ball: its sign is certified
            return arb_exact(x).log() - 50

        b = expand_bracket(f, _doubling(mp.one), sa=-1)
        assert isinstance(b, Bracket) and b.lo < b.hi
        assert f(b.lo) < 0 < f(b.hi) and b.plo.k == -1 and b.phi.k == 1
        assert b.hi == 2 * b.lo  # the nearest certified trials on either side
        r = findroot(f, (b.lo, b.hi), ends=(b.plo, b.phi))
        with mp.workdps(80):
            ref = mp.exp(50)
        assert r.lo <= ref <= r.hi and r.hi - r.lo <= mp.ldexp(ref, -(mp.prec - 6))
        # a root below the start: halving leftwards from 1 finds e^-30
        b = expand_bracket(lambda x: arb_exact(x).log() + 30, _doubling(mp.one), sa=-1)
        assert b.lo < mp.exp(-30) < b.hi and b.lo * 2 == b.hi


def test_expand_bracket_known_end_undecided_trials_and_zero():
    # a known left end (no evaluation there), and enclosures that cannot decide near the root:
    # undecided trials only widen the search, every end returned is certified
    calls = []

    def f(x):
        calls.append(x)
        v = x - 10
        return (v - 3, v + 3)  # undecided on (7, 13)

    b = expand_bracket(f, lambda L, H, last, i: 1.0 if last is None else last * 2, sa=-1,
                       lo=0.0, plo=Probe(-1))
    assert 0.0 not in calls and calls == [1.0, 2.0, 4.0, 8.0, 16.0]
    assert (b.lo, b.hi) == (4.0, 16.0) and f(b.lo)[1] < 0 < f(b.hi)[0]
    # a proved zero is an exact bracket
    b = expand_bracket(lambda x: x - sp.Integer(4), lambda L, H, last, i: sp.Integer(2) ** i)
    assert b.lo == b.hi == 4 and b.plo.k == 0


def test_expand_bracket_runs_out():
    # no sign change within the schedule: the caller's fail, or an error naming the search
    def trial(L, H, last, i):
        return None if i >= 5 else float(i + 1)

    assert expand_bracket(lambda x: 1.0, trial, fail=lambda L, H: ("none", L, H)) == \
        ("none", 5.0, None)
    with pytest.raises(NumericalError, match="the widening test: no bracket"):
        expand_bracket(lambda x: -1.0, trial, what="the widening test")
    with pytest.raises(NumericalError, match="no bracket"):
        expand_bracket(lambda x: -1.0, lambda L, H, last, i: float(i), max_iter=7)


# -- the precision loop -------------------------------------------------------------------------
def _cancelling(prec):
    """Ball of (1 + 2^-300) - 1 (= 2^-300) computed from the rounded 1 + 2^-300: every bit
    cancels below 301 bits of working precision, where the ball holds 0."""
    with arb_precision(prec):
        x = arb(1) + arb(2) ** -300
        return x - 1


def test_precision_loop_raises_precision_until_the_target():
    # the cancellation needs the loop to pass 300 bits; the answer agrees with the exact value
    seen = []

    def compute(prec):
        seen.append(prec)
        return _cancelling(prec), prec

    def done(r, prev):
        ball = r[0]
        return ball.is_finite() and ball.rel_accuracy_bits() >= 100

    ball, prec = precision_loop(compute, 64, done=done)
    assert seen == [64, 128, 256, 512] and prec == 512
    exact = arb_exact(mp.ldexp(1, -300))
    assert ball.contains(exact) and ball.rel_accuracy_bits() >= 100


def test_precision_loop_agreement_of_two_evaluations():
    # Ziv's confirmation: mpmath evaluations at rising digits until two agree; the result
    # matches the value at many more digits (exp(pi sqrt(163)) is an integer to 12 digits)
    def compute(dps):
        with mp.workdps(dps):
            return +(mp.exp(mp.pi * mp.sqrt(163)) - 262537412640768744), dps

    def done(r, prev):
        return prev is not None and abs(r[0] - prev[0]) <= mp.ldexp(abs(r[0]), -60)

    with mp.workdps(20):
        v, dps = precision_loop(compute, 20, done=done, grow=lambda r, d: d + 20)
        with mp.workdps(120):
            ref = mp.exp(mp.pi * mp.sqrt(163)) - 262537412640768744
        assert abs(v - ref) <= mp.ldexp(abs(ref), -55) and dps >= 40


def test_precision_loop_cap_gives_the_enclosure_or_a_clear_error():
    # sin(pi) = 0 is never known to any relative bits (its ball always straddles 0): at the cap
    # the caller's give_up gets the last ball (a valid enclosure of 0, of radius about
    # 2^-1024), or the error names the computation
    seen = []

    def compute(prec):
        seen.append(prec)
        with arb_precision(prec):
            return arb.pi().sin()

    def done(ball, prev):
        return ball.rel_accuracy_bits() >= 50

    ball = precision_loop(compute, 64, done=done, cap=1024, give_up=lambda r, prev, prec: r)
    assert ball.contains(0) and ball.rad() < 2.0 ** -900 and seen == [64, 128, 256, 512, 1024]
    with pytest.raises(NumericalError, match=r"the test sum: .* working precision of 1024"):
        precision_loop(compute, 64, done=done, cap=1024, what="the test sum")
    # a start beyond the cap computes nothing; max_steps and grow -> None stop the loop
    assert precision_loop(compute, 4096, done=done, cap=1024,
                          give_up=lambda r, prev, prec: (r, prec)) == (None, 4096)
    steps = []
    precision_loop(lambda p: steps.append(p) or p, 1, done=lambda r, prev: False, max_steps=3,
                   give_up=lambda r, prev, prec: None)
    assert steps == [1, 2, 4]
    steps.clear()
    precision_loop(lambda p: steps.append(p) or p, 1, done=lambda r, prev: False,
                   grow=lambda r, p: p + 1 if p < 5 else None, give_up=lambda r, prev, p: p)
    assert steps == [1, 2, 3, 4, 5]
