"""Property-based fuzzing over random expression trees (builder and references in
tests/fuzz_trees.py).

Every family (G, EpsDelta, Laplace, Id, Zero, PiecewiseLinear, Discrete, BinomialDP, ShuffleDP)
and operator (Tensor, TensorPower, Inverse, Subsample/C, Mix, Symmetrize, SymmetricHull, Max,
Group) appears in random trees of depth <= TA_FUZZ_DEPTH (3) with extreme parameters (mu up to
40, eps up to 50, delta and p near 0 and 1, rationals, floats, log-rationals) and levels
(0, 1, "1e-300", 1 - 10^-20, rationals, floats). Properties:

(a) ``test_values_against_references``: every Value has 0 <= lo <= hi <= 1 and no NaN, and its
    claim (exact value / point +- one unit in the dps-th digit / enclosure) meets the independent
    reference; roc agrees with 1 - evaluate and with the reference power;
    ``test_privacy_profiles``: delta and epsilon (range, monotone, delta(eps) >= 1 - f(a) -
    e^eps a, reference profiles); ``test_curve``: f.curve in float64.
(b) ``test_simplify_agrees``: ta.simplify(f) gives the same numbers.
(c) ``test_double_precision``: a point value at dps equals the value at 2 dps rounded to dps
    significant digits, up to one unit in the last place.
(d) in every test: no exception other than a TradeOffError escapes (NoClosedForm,
    NumericalError and TimeLimitExceeded are allowed and only counted).
(e) in ``test_values_against_references``: f(alpha) <= 1 - alpha, non-increasing and convex over
    the evaluated levels.

Plus ``test_concurrent_calls_match_sequential`` (threads must reproduce the sequential results
bit for bit and leave mpmath's precision alone; known to fail while the precision handling is
being refactored) and self-checks of the references.

Environment: TA_FUZZ_EXAMPLES (examples per property test, default 4), TA_FUZZ_CALL_LIMIT
(seconds per library call, default 4: slower calls stop with TimeLimitExceeded and are reported
as warnings, not failures), TA_FUZZ_TREE_BUDGET (seconds per tree, default 10),
TA_FUZZ_DEPTH (default 3), TA_FUZZ_SHRINK=1 to let hypothesis shrink failing trees (slow).
The large-budget run: ``python tests/fuzz_trees.py run --trees 10000 --out DIR`` then
``python tests/fuzz_trees.py summary DIR``.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import warnings
from fractions import Fraction

import fuzz_trees as fz
import mpmath
import pytest
import reference_np as rnp
import sympy as sp
from hypothesis import HealthCheck, Phase, given, settings
from mpmath import mp

import tradeoff_algebra as ta

EXAMPLES = int(os.environ.get("TA_FUZZ_EXAMPLES", "4"))
CALL_LIMIT = float(os.environ.get("TA_FUZZ_CALL_LIMIT", "4"))
TREE_BUDGET = float(os.environ.get("TA_FUZZ_TREE_BUDGET", "10"))
SHRINK = os.environ.get("TA_FUZZ_SHRINK", "0") == "1"

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    report_multiple_bugs=True,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if SHRINK else []),
)

R = sp.Rational


@pytest.fixture(autouse=True)
def _print_long_integers():
    """Reproducers print exact rationals of tails like 1e-5000: lift Python's 4300-digit limit
    on int-to-text conversion for this module only, and restore it."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    yield
    sys.set_int_max_str_digits(old)


def _recorder() -> fz.Recorder:
    return fz.Recorder(limit=CALL_LIMIT, ref_seconds=20.0)


def _finish(rec: fz.Recorder, prefixes: tuple[str, ...]):
    """Warn about slow calls and timeouts; fail on violations of the given properties (and on
    escaped exceptions, property d, always)."""
    for s in rec.slow:
        warnings.warn(f"slow call ({s['seconds']} s): {s['call']}", stacklevel=2)
    for s in rec.timeouts:
        warnings.warn(f"call stopped at the {CALL_LIMIT:g} s limit: {s['call']}", stacklevel=2)
    bad = [v for v in rec.violations if v["prop"].startswith(prefixes + ("d:", "harness"))]
    assert not bad, "\n" + fz.Recorder(violations=bad).summary()


# -- the properties over random trees --------------------------------------------------------
@FUZZ
@given(case=fz.cases())
def test_values_against_references(case):
    """(a), (d), (e): value ranges, references for evaluate and roc, roc vs evaluate, shape."""
    rec = _recorder()
    fz.check_case(case, rec, props="ae", tree_budget=TREE_BUDGET, profile=False, curve=False)
    _finish(rec, ("a:", "e:"))


@FUZZ
@given(case=fz.cases())
def test_simplify_agrees(case):
    """(b): ta.simplify(f) evaluates to the same numbers as f (and meets the reference)."""
    rec = _recorder()
    fz.check_case(case, rec, props="b", tree_budget=TREE_BUDGET, profile=False, curve=False)
    _finish(rec, ("b:", "a:"))


@pytest.mark.slow
@FUZZ
@given(case=fz.cases())
def test_double_precision(case):
    """(c): point values at dps agree with the values at 2 dps to every claimed digit."""
    rec = _recorder()
    fz.check_case(case, rec, props="c", tree_budget=TREE_BUDGET, profile=True, curve=False)
    _finish(rec, ("c:", "a:value-range", "a:roc-range", "a:delta-range", "a:epsilon-range"))


@FUZZ
@given(case=fz.cases())
def test_privacy_profiles(case):
    """(a) for delta and epsilon: ranges, monotonicity in eps, delta(eps) >= 1 - f(a) - e^eps a,
    reference profiles, epsilon consistent with the reference delta."""
    rec = _recorder()
    fz.check_case(case, rec, props="a", tree_budget=TREE_BUDGET, values=False, profile=True,
                  curve=False)
    _finish(rec, ("a:",))


@FUZZ
@given(case=fz.cases())
def test_curve(case):
    """f.curve: float64 values in [0, 1], no NaN, close to the reference."""
    rec = _recorder()
    fz.check_case(case, rec, props="a", tree_budget=TREE_BUDGET, values=False, profile=False,
                  curve=True)
    _finish(rec, ("a:curve",))


# -- the references themselves ----------------------------------------------------------------
LEVELS = [Fraction(0), Fraction(1, 10**300), Fraction(1, 10**5), Fraction(1, 3), Fraction(7, 10),
          1 - Fraction(1, 10**20), Fraction(1)]


@pytest.mark.parametrize("mu", [0, Fraction(1, 10), 1, Fraction(7, 2), 40])
def test_reference_gauss_closed_form_is_neyman_pearson(mu):
    ref = fz.GaussRef(Fraction(mu) ** 2)
    with fz.ref_context(60, None):
        for a in LEVELS:
            v, _ = ref.bounds(a)
            w = rnp.gauss_np(fz.to_m(Fraction(mu)), a)
            assert abs(v - w) <= mp.mpf(10) ** -50 * max(abs(w), mp.mpf(10) ** -9000), (mu, a)
            r, _ = ref.roc_bounds(a)
            s = rnp.gauss_np(fz.to_m(Fraction(mu)), a, roc=True)
            assert abs(r - s) <= mp.mpf(10) ** -50 * max(abs(s), mp.mpf(10) ** -9000), (mu, a)


def test_reference_sorted_np_is_brute_force():
    rng = random.Random(5)
    for _ in range(40):
        P, Q = fz.gen_pair(fz.RandomChooser(rng), kmax=4)
        ref = fz.Finite(True, lambda P=P, Q=Q: (P, Q), "pair")
        for a in LEVELS + [Fraction(rng.randint(1, 99), 100)]:
            assert ref.bounds(a)[0] == rnp.finite_np(P, Q, a)
            assert ref.roc_bounds(a)[0] == rnp.finite_np(P, Q, a, roc=True)


def test_reference_epsdelta_formula_is_the_four_point_pair():
    for E, d in [(Fraction(3), Fraction(1, 10)), (Fraction(1), Fraction(0)),
                 (Fraction(7, 2), Fraction(99, 100)), (Fraction(2), Fraction(1))]:
        eps = fz.n_log(E) if E != 1 else fz.n_int(0)
        ref = fz.EpsDeltaRef(eps, fz.n_frac(d))
        P, Q = rnp.four_point_pair(E, d)
        for a in LEVELS:
            assert ref.bounds(a)[0] == rnp.finite_np(P, Q, a)


def test_reference_binomial_is_the_power_of_the_pair():
    E = Fraction(5, 2)
    P, Q = fz.binomial_pair(E, 4, True)
    P4, Q4 = fz.pair_power(rnp.four_point_pair(E, Fraction(0)), 4, True)
    a_ref = fz.Finite(True, lambda: (P, Q), "pair")
    b_ref = fz.Finite(True, lambda: (P4, Q4), "pair")
    for a in LEVELS + [Fraction(3, 7)]:
        assert a_ref.bounds(a) == b_ref.bounds(a)


def test_reference_gauss_times_finite():
    """G_mu (x) Id is G_mu; G_a (x) (pair of G_b discretised) sits between bounds."""
    g = fz.GaussFiniteRef(Fraction(4), fz.id_ref())
    h = fz.GaussRef(Fraction(4))
    with fz.ref_context(50, None):
        for a in LEVELS[1:-1]:
            assert abs(g.bounds(a)[0] - h.bounds(a)[0]) <= mp.mpf(10) ** -40 * h.bounds(a)[0]
            assert abs(g.roc_bounds(a)[0] - h.roc_bounds(a)[0]) <= \
                mp.mpf(10) ** -40 * h.roc_bounds(a)[0]
        e = fz.EpsDeltaRef(fz.n_log(Fraction(3)), fz.n_frac(Fraction(1, 10)))
        gf = fz.GaussFiniteRef(Fraction(1), e)
        g1 = fz.GaussRef(Fraction(1))
        for a in (Fraction(1, 10), Fraction(1, 2)):
            v = gf.bounds(a)[0]
            assert 0 < v <= min(fz.to_m(e.bounds(a)[0]), g1.bounds(a)[0])
        d = gf.delta_bounds(mp.one)[0]
        assert d >= max(e.delta_bounds(mp.one)[0], fz.GaussRef(Fraction(1)).delta_bounds(mp.one)[0])


def test_reference_subsample_eq13_against_sampled_hull():
    g = fz.GaussRef(Fraction(1))
    c = fz.ref_hull(g, Fraction(1, 3))
    with fz.ref_context(30, None):
        F = fz._side_fn(g, 1)

        def Fp(t):
            return mp.mpf(1) / 3 * F(t) + mp.mpf(2) / 3 * (1 - mp.mpf(t))

        for a in (Fraction(1, 100), Fraction(1, 5), Fraction(1, 2), Fraction(9, 10)):
            v = c.bounds(a)[0]
            u = fz.hull_upper(Fp, fz.to_m(a))
            assert v <= u * (1 + mp.mpf(10) ** -20)
            assert u - v <= mp.mpf(10) ** -6


def test_reference_group_knots_match_pointwise():
    knots = [(Fraction(0), Fraction(1)), (Fraction(1, 5), Fraction(1, 2)),
             (Fraction(3, 5), Fraction(1, 10)), (Fraction(1), Fraction(0))]
    gk = fz.pl_group(knots, 3)
    for a in [Fraction(i, 37) for i in range(38)]:
        y = a  # 1 - (1 - f)^{o 3}(a), composed pointwise and exactly
        for _ in range(3):
            y = 1 - fz.pl_value(knots, y)
        assert fz.pl_value(gk, a) == 1 - y
    with mp.workdps(40):  # and against operator_reference.group in mpmath
        import operator_reference as oref

        fm = lambda x: fz.pl_value([(fz.to_m(x_), fz.to_m(y_)) for x_, y_ in knots], x)  # noqa
        for a in (Fraction(1, 7), Fraction(5, 9)):
            assert abs(fz.to_m(fz.pl_value(gk, a)) - oref.group(fm, 3)(fz.to_m(a))) < 1e-35


def test_claims_and_rounding():
    assert fz.round_dec(Fraction(123456, 1000), 3) == Fraction(123)
    assert fz.round_dec(Fraction(1, 3), 2) == Fraction(33, 100)
    assert fz.ulp(Fraction(5, 10**40), 30) == Fraction(1, 10**69)
    v = ta.evaluate(ta.G(1), R(1, 3), 30)
    lo, hi = fz.claim(v)
    assert lo < fz.to_frac(v.mid) < hi


# -- concurrency ---------------------------------------------------------------------------------
CONC_FUNCS = [ta.G(1), ta.EpsDelta(1, R(1, 10)), ta.Laplace(1)]
CONC_DPS = [15, 30, 50, 80]


def _conc_jobs():
    jobs = []
    for f in CONC_FUNCS:
        for dps in CONC_DPS:
            jobs.append(("evaluate", f, R(1, 3), dps))
            jobs.append(("delta", f, R(1, 2), dps))
            jobs.append(("epsilon", f, R(1, 10**5), dps))
    return jobs


def _conc_run(job):
    api, f, arg, dps = job
    v = getattr(ta, api)(f, arg, dps)
    return (v.lo._mpf_, v.hi._mpf_)


def test_concurrent_calls_match_sequential():
    """4 threads calling evaluate/delta/epsilon on G(1), EpsDelta(1, 1/10), Laplace(1) at dps
    15, 30, 50 and 80 repeatedly reproduce the sequential results bit for bit (lo and hi) and
    leave mpmath.mp.dps / mp.prec unchanged."""
    jobs = _conc_jobs()
    dps0, prec0 = mp.dps, mp.prec
    expected = {i: _conc_run(job) for i, job in enumerate(jobs)}
    assert (mp.dps, mp.prec) == (dps0, prec0)
    mismatches, errors = [], []
    rounds = int(os.environ.get("TA_FUZZ_CONC_ROUNDS", "3"))
    start = threading.Barrier(4)

    def worker(seed):
        rng = random.Random(seed)
        order = list(range(len(jobs)))
        try:
            start.wait()
            for _ in range(rounds):
                rng.shuffle(order)
                for i in order:
                    got = _conc_run(jobs[i])
                    if got != expected[i]:
                        api, f, arg, dps = jobs[i]
                        mismatches.append(f"{api}({f}, {arg}, {dps}): got "
                                          f"[{mpmath.mpf(got[0])}, {mpmath.mpf(got[1])}], expected "
                                          f"[{mpmath.mpf(expected[i][0])}, "
                                          f"{mpmath.mpf(expected[i][1])}]")
        except Exception as e:  # noqa: BLE001
            errors.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    after = (mp.dps, mp.prec)
    mp.dps = dps0  # leave the process usable for the other tests whatever happened
    assert not errors, errors[:5]
    assert not mismatches, f"{len(mismatches)} mismatches, e.g.\n" + "\n".join(mismatches[:8])
    assert after == (dps0, prec0), f"mpmath precision changed: {after} != {(dps0, prec0)}"


def test_reference_gauss_times_finite_primal_dual():
    """The Gaussian x finite reference against its own privacy profile: f(alpha) =
    sup_eps {1 - delta(eps) - e^eps alpha} (DRS Prop. 5/6), sup over a fine grid of eps."""
    e = fz.EpsDeltaRef(fz.n_log(Fraction(5, 2)), fz.n_frac(Fraction(1, 20)))
    gf = fz.GaussFiniteRef(Fraction(9, 4), fz.ref_mix(e, Fraction(1, 2)))
    with fz.ref_context(30, None):
        for a in (Fraction(1, 50), Fraction(1, 4), Fraction(3, 5)):
            v = gf.bounds(a)[0]
            am = fz.to_m(a)
            best = max(1 - gf.delta_bounds(mp.mpf(k) / 50)[0] - mpmath.exp(mp.mpf(k) / 50) * am
                       for k in range(-300, 400))
            assert best <= v * (1 + mp.mpf(10) ** -20)
            assert v - best < mp.mpf(10) ** -3
