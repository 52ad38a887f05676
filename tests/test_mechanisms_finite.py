"""Mechanisms with finite output laws (randomized response, the exponential mechanism, report
noisy max) and the subsampled Laplace mechanism, against brute-force Neyman--Pearson.

The reference of a finite pair is written here from its explicit laws: every deterministic
test (every subset S of the outcomes rejected) gives the point (P(S), 1 - Q(S)); randomised
tests fill in the lower convex envelope of these points, which is T(P, Q) (Dong, Roth & Su,
Def. 2 and the Neyman--Pearson lemma). The envelope is computed by a monotone-chain hull,
exactly in Fractions for rational laws and in mpmath otherwise; no library routine is used.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra import mechanisms as M
from tradeoff_algebra.accountant import Accountant
from tradeoff_algebra.interop import to_dp_event
from tradeoff_algebra.numeric.context import mp

R = sp.Rational


# -- the brute-force reference ---------------------------------------------------------------
def hull(P, Q):
    """The lower convex envelope of the points (P(S), 1 - Q(S)) over all subsets S, as knots
    sorted by alpha (exact for Fractions)."""
    n = len(P)
    one = P[0] * 0 + 1
    pts = set()
    for r in range(n + 1):
        for S in itertools.combinations(range(n), r):
            pts.add((sum((P[i] for i in S), 0 * one), one - sum((Q[i] for i in S), 0 * one)))
    pts = sorted(pts)
    low: list = []
    for p in pts:
        while len(low) >= 2 and _cross(low[-2], low[-1], p) <= 0:
            low.pop()
        low.append(p)
    return low


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def at(knots, a):
    """The piecewise-linear function through the knots at a (the smallest value at a jump,
    where two knots share an alpha: the infimum over tests of that size)."""
    a = min(max(a, knots[0][0]), knots[-1][0])  # float sums may end just below 1
    best = None
    for (x0, y0), (x1, y1) in zip(knots, knots[1:], strict=False):
        if x0 <= a <= x1:
            v = y0 if x1 == x0 else y0 + (y1 - y0) * (a - x0) / (x1 - x0)
            best = v if best is None else min(best, v)
    return best


LEVELS = [Fraction(i, 97) for i in range(98)] + [Fraction(1, 10**6), Fraction(1, 3)]


def fr(x):
    return Fraction(int(x.p), int(x.q))


def exact_at(f, a: Fraction):
    v = ta.evaluate(f, R(a.numerator, a.denominator), dps=30)
    assert v.guarantee == "exact", (f, a, v)
    return fr(sp.Rational(v.exact))


# -- randomized response ---------------------------------------------------------------------
def rr_laws(E, k, x, y):
    """The full laws of k-RR on inputs x and y over the k outputs (E = e^eps)."""
    z = E + k - 1
    P = [E / z if r == x else 1 / z for r in range(k)]
    Q = [E / z if r == y else 1 / z for r in range(k)]
    return P, Q


@pytest.mark.parametrize("E", [Fraction(3), Fraction(7, 2), Fraction(1)])
@pytest.mark.parametrize("k", [2, 3, 4, 6])
def test_randomized_response_is_exact(E, k):
    eps = sp.log(R(E.numerator, E.denominator))
    f = M.randomized_response(eps, k)
    P, Q = rr_laws(E, k, 0, 1)
    ref = hull(P, Q)
    for a in LEVELS:
        assert exact_at(f, a) == at(ref, a), (k, E, a)
    # the closed form max{f_{eps,0}, f_{0,delta}}, delta = (e^eps - 1)/(e^eps + k - 1)
    d = (E - 1) / (E + k - 1)
    g = ta.Max(ta.EpsDelta(eps, 0), ta.EpsDelta(0, R(d.numerator, d.denominator)))
    for a in LEVELS[::7]:
        assert exact_at(g, a) == at(ref, a)


def test_randomized_response_two_values_is_f_eps_0():
    for eps in (sp.log(3), R(1, 2), sp.Integer(2), sp.log(R(11, 10))):
        assert M.randomized_response(eps, 2) == ta.EpsDelta(eps, 0)
    # the finite pair of 2-RR and f_{eps,0} agree exactly, knot for knot and everywhere
    for E in (sp.Integer(3), R(9, 4)):
        pair = ta.Discrete([E / (E + 1), 1 / (E + 1)], [1 / (E + 1), E / (E + 1)])
        fe = ta.EpsDelta(sp.log(E), 0)
        assert pair.knots == ((0, 1), (1 / (E + 1), 1 / (E + 1)), (1, 0))
        for a in LEVELS:
            assert exact_at(pair, a) == exact_at(fe, a)
    # irrational e^eps: equal to 40 digits
    f, g = M.randomized_response(1, 5), ta.Max(ta.EpsDelta(1, 0),
                                               ta.EpsDelta(0, (sp.E - 1) / (sp.E + 4)))
    with workdps(50):
        E = mpmath.e
        P, Q = rr_laws(E, 5, 2, 4)
        ref = hull(P, Q)
        for a in (R(1, 100), R(1, 7), R(1, 2), R(9, 10)):
            x = ta.evaluate(f, a, dps=40).mid
            assert abs(x - at(ref, mpmath.mpf(a.p) / a.q)) < mpmath.mpf(10) ** -38
            assert abs(x - ta.evaluate(g, a, dps=40).mid) < mpmath.mpf(10) ** -38


def test_randomized_response_edges_and_errors():
    assert M.randomized_response(3, 1) == ta.Id
    with pytest.raises(ta.InvalidParameter, match="eps"):
        M.randomized_response(sp.oo, 3)
    assert M.randomized_response(0, 4)(R(1, 3)) == R(2, 3)
    with pytest.raises(ta.InvalidParameter, match="k"):
        M.randomized_response(1, 0)
    with pytest.raises(ta.InvalidParameter, match="k"):
        M.randomized_response(1, 2.0)
    with pytest.raises(ta.InvalidParameter, match="eps"):
        M.randomized_response(-1, 3)


def test_randomized_response_event_semantics():
    """dp_accounting's noise parameter p: with probability p a uniform bucket replaces the
    value, so the true bucket has 1 - p + p/k and e^eps = 1 + k (1 - p)/p."""
    ev = lambda p, k: type("RandomizedResponseDpEvent", (),  # noqa: E731
                           {"noise_parameter": p, "num_buckets": k})()
    for p, k in [(R(1, 2), 2), (R(1, 3), 3), (R(3, 4), 5), (0.25, 4)]:
        pr = Fraction(p) if isinstance(p, float) else fr(p)
        P = [1 - pr + pr / k if r == 0 else pr / k for r in range(k)]
        Q = [1 - pr + pr / k if r == 1 else pr / k for r in range(k)]
        ref = hull(P, Q)
        f = ta.from_dp_event(ev(p, k))
        E = 1 + k * (1 - pr) / pr
        g = M.randomized_response(sp.log(R(E.numerator, E.denominator)), k)
        for a in LEVELS[::3]:
            assert exact_at(f, a) == at(ref, a) == exact_at(g, a)
        if k == 2:
            assert f == g
    assert ta.from_dp_event(ev(0, 3)) == ta.Zero
    assert ta.from_dp_event(ev(1, 3)) == ta.Id
    assert ta.from_dp_event(ev(R(1, 2), 1)) == ta.Id


def test_randomized_response_to_dp_event_round_trip():
    class Events:
        pass

    for name, fields in [("RandomizedResponseDpEvent", ("noise_parameter", "num_buckets")),
                         ("EpsilonDeltaDpEvent", ("epsilon", "delta"))]:
        def init(self, fields=fields, **kw):
            for k in fields:
                setattr(self, k, kw[k])
        setattr(Events, name, type(name, (), {"__init__": init}))
    f = M.randomized_response(sp.log(5), 4)  # p = 1/2
    e = to_dp_event(f, events=Events)
    assert type(e).__name__ == "RandomizedResponseDpEvent"
    assert (e.noise_parameter, e.num_buckets) == (0.5, 4)
    assert ta.from_dp_event(e) == f
    acct = Accountant().compose(f, 3)
    ev = acct.to_dp_event(events=type("E", (Events,), {
        "SelfComposedDpEvent": type("SelfComposedDpEvent", (), {
            "__init__": lambda self, event, count: (setattr(self, "event", event),
                                                    setattr(self, "count", count))[0]})}))
    assert ta.from_dp_event(ev) == f ** 3
    with pytest.raises(ta.InvalidParameter, match="exponential mechanism"):
        to_dp_event(M.exponential_mechanism(1), events=Events)


# -- the exponential mechanism ---------------------------------------------------------------
def softmax_mp(u, eps, d):
    w = [mpmath.exp(eps * (mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction)
                           else mpmath.mpf(x)) / (2 * d)) for x in u]
    z = mpmath.fsum(w)
    return [x / z for x in w]


def random_instance(rng, k, d=1):
    u = [Fraction(rng.randint(-20, 20), 4) for _ in range(k)]
    v = [x + Fraction(rng.randint(-4, 4), 4) * d for x in u]
    return u, v


def test_exponential_mechanism_with_utilities_is_exact():
    rng = random.Random(7)
    for trial in range(6):
        k = rng.randint(2, 6)
        eps = R(rng.randint(1, 30), 10)
        u, v = random_instance(rng, k)
        f = M.exponential_mechanism(eps, [R(x.numerator, x.denominator) for x in u],
                                    [R(x.numerator, x.denominator) for x in v])
        with workdps(40):
            ref = hull(softmax_mp(u, mpmath.mpf(eps.p) / eps.q, 1),
                       softmax_mp(v, mpmath.mpf(eps.p) / eps.q, 1))
            for a in (R(1, 1000), R(1, 10), R(1, 3), R(1, 2), R(4, 5)):
                x = ta.evaluate(f, a, dps=30).mid
                assert abs(x - at(ref, mpmath.mpf(a.p) / a.q)) < mpmath.mpf(10) ** -28, trial


def test_exponential_mechanism_sensitivity_scales_the_exponent():
    f = M.exponential_mechanism(1, [0, 2], [2, 0], sensitivity=2)
    g = M.exponential_mechanism(1, [0, 1], [1, 0], sensitivity=1)
    for a in (R(1, 5), R(1, 2)):
        assert ta.evaluate(f, a, dps=30).mid == ta.evaluate(g, a, dps=30).mid


def test_exponential_mechanism_errors():
    with pytest.raises(ta.InvalidParameter, match=r"neighbour_utilities\[1\]"):
        M.exponential_mechanism(1, [0, 0], [0, 2])
    with pytest.raises(ta.InvalidParameter, match="neighbour_utilities"):
        M.exponential_mechanism(1, [0, 0])
    with pytest.raises(ta.InvalidParameter, match="neighbour_utilities"):
        M.exponential_mechanism(1, [0, 0], [0])
    with pytest.raises(ta.InvalidParameter, match="utilities"):
        M.exponential_mechanism(1, [], [])
    with pytest.raises(ta.InvalidParameter, match="sensitivity"):
        M.exponential_mechanism(1, sensitivity=0)
    with pytest.raises(ta.InvalidParameter, match="utilities"):
        M.exponential_mechanism(1, ["a"], [0])


def br(eps, a):
    """(1 - a)/(1 + (e^eps - 1) a), in mpmath."""
    return (1 - a) / (1 + mpmath.expm1(eps) * a)


def test_worst_case_lies_below_every_instance():
    """No finite exponential-mechanism instance lies below BR_eps (random utilities, any
    number of candidates, neighbour utilities within the sensitivity)."""
    rng = random.Random(11)
    with workdps(30):
        for trial in range(40):
            k = rng.randint(2, 6)
            eps = mpmath.mpf(rng.randint(1, 40)) / 10
            d = mpmath.mpf(rng.choice([1, 2, 5])) / 2
            u = [mpmath.mpf(rng.uniform(-3, 3)) for _ in range(k)]
            v = [x + d * rng.choice([-1, 1, mpmath.mpf(rng.uniform(-1, 1))]) for x in u]
            ref = hull(softmax_mp(u, eps, d), softmax_mp(v, eps, d))
            for a in [mpmath.mpf(i) / 50 for i in range(51)]:
                assert at(ref, a) >= br(eps, a) - mpmath.mpf(10) ** -25, (trial, a)


def test_worst_case_is_attained_and_is_the_infimum_over_t():
    """Two candidates with utilities (x, 0) and (x - 1, 1) put the knot of their trade-off
    function on BR_eps, for every x; and BR_eps is the infimum over t in [0, eps] of the
    generalized randomized responses of Dong, Durfee & Rogers (two outcomes with likelihood
    ratios e^{-t} and e^{eps - t}), found here by a fine search over t."""
    with workdps(40):
        for eps in (mpmath.mpf("0.3"), mpmath.mpf(1), mpmath.mpf(4)):
            for x in (-3, -1, 0, mpmath.mpf("0.7"), 2):
                P, Q = softmax_mp([x, 0], eps, 1), softmax_mp([x - 1, 1], eps, 1)
                knots = hull(P, Q)
                assert len(knots) == 3
                a, b = knots[1]
                assert abs(b - br(eps, a)) < mpmath.mpf(10) ** -35
            E = mpmath.exp(eps)
            for a in (mpmath.mpf("0.01"), mpmath.mpf("0.2"), mpmath.mpf("0.5"),
                      mpmath.mpf("0.9")):
                best = mpmath.inf
                for i in range(1, 400):
                    t = eps * i / 400
                    p = (E - mpmath.exp(t)) / (E - 1)
                    best = min(best, at(hull([p, 1 - p], [mpmath.exp(-t) * p,
                                                          1 - mpmath.exp(-t) * p]), a))
                assert br(eps, a) <= best <= br(eps, a) + mpmath.mpf("1e-3")
            f = M.exponential_mechanism(eps)
            assert f == ta.BoundedRange(eps)


def test_bounded_range_numerics():
    f = ta.BoundedRange(1)
    with workdps(40):
        for a in (R(1, 10**12), R(1, 7), R(1, 2), R(99, 100)):
            am = mpmath.mpf(a.p) / a.q
            assert abs(ta.evaluate(f, a, dps=30).mid - br(1, am)) < mpmath.mpf(10) ** -29
            r = ta.roc(f, a, dps=30).mid
            assert abs(r - (1 - br(1, am))) < mpmath.mpf(10) ** -29 * (1 - br(1, am))
        v = ta.evaluate(f, R(1, 3), dps=30)
        assert v.guarantee == "certified"
        assert ta.evaluate(ta.BoundedRange(sp.log(3)), R(1, 3)).exact == R(2, 5)
        # the privacy profile against sup_alpha 1 - e^e alpha - f(alpha) by golden section
        for e in (mpmath.mpf(0), mpmath.mpf("0.4"), mpmath.mpf("0.95")):
            g = lambda a, e=e: 1 - mpmath.exp(e) * a - br(1, a)  # noqa: E731
            lo, hi = mpmath.mpf(0), mpmath.mpf(1)
            for _ in range(200):
                m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
                lo, hi = (m1, hi) if g(m1) < g(m2) else (lo, m2)
            ref = max(g(lo), 0)
            assert abs(ta.delta(f, sp.Rational(mpmath.nstr(e, 5)), dps=30).mid - ref) < 1e-30
        assert abs(ta.delta(f, 0, dps=30).mid - mpmath.tanh(mpmath.mpf(1) / 4)) < 1e-30
        assert ta.delta(f, 1, dps=30).mid == 0
        for d in (R(1, 10), R(1, 1000)):
            e = ta.epsilon(f, d, dps=30).mid
            assert abs(ta.delta(f, sp.Float(e, 40), dps=35).mid - mpmath.mpf(d.p) / d.q) < 1e-28
    # above f_{eps,0} (strictly inside (0, 1)), and symmetric with the stated fixed point
    for a in (R(1, 10), R(1, 2), R(9, 10)):
        assert ta.evaluate(f, a, dps=20).lo > ta.evaluate(ta.EpsDelta(1, 0), a, dps=20).hi
    x = 1 / (1 + sp.exp(R(1, 2)))
    assert sp.simplify(f(x) - x) == 0
    assert ta.simplify(ta.Inverse(f)) == f
    assert ta.BoundedRange(0)(R(1, 3)) == R(2, 3)


def test_bounded_range_loss_and_composition():
    """The privacy loss L = eps - 2 log(1 + (e^eps - 1) V), V uniform: its distribution
    functions against the definition, and delta of BR (x) BR from the PLD engine against
    E_P[(e^{L1 + L2} - e^e)_+] integrated over (V1, V2), the inner integral in closed form."""
    from tradeoff_algebra.numeric.privacy_loss import privacy_loss

    eps = 1.5
    L = privacy_loss(ta.BoundedRange(R(3, 2)))
    c = mpmath.expm1(eps)
    for t in (-1.4, -0.3, 0.0, 0.8, 1.49):
        v = (mpmath.exp((eps - t) / 2) - 1) / c  # L <= t iff V >= v
        F, S = L.cdf([t], "P")
        assert abs(F[0] - (1 - v)) < 1e-14 and abs(S[0] - v) < 1e-14
        Fq = mpmath.quad(lambda w: mpmath.exp(eps) / (1 + c * w) ** 2, [v, 1])  # dQ/dV
        F, S = L.cdf([t], "Q")
        assert abs(F[0] - Fq) < 1e-14 and abs(S[0] - (1 - Fq)) < 1e-14
    e2 = mpmath.mpf("0.5")

    def inner(v1):  # int_0^1 (e^{L1 + L2} - e^e2)_+ dv2, e^{L2} = e^eps/(1 + c v2)^2
        a = mpmath.exp(2 * eps) / (1 + c * v1) ** 2  # e^{L1} e^eps
        vs = min(max((mpmath.sqrt(a / mpmath.exp(e2)) - 1) / c, 0), 1)  # where the part ends
        return a / c * (1 - 1 / (1 + c * vs)) - mpmath.exp(e2) * vs

    with workdps(30):
        # the ends of the positive part are kinks of inner(v1): split the outer integral there
        kinks = [(mpmath.exp(2 * eps - e2 / 2) / z - 1) / c for z in (1, 1 + c)]
        ref = mpmath.quad(inner, [0] + sorted(x for x in kinks if 0 < x < 1) + [1])
    got = ta.delta(ta.BoundedRange(R(3, 2)) ** 2, R(1, 2), dps=6)
    assert got.lo - 1e-6 <= ref <= got.hi + 1e-6, (got, ref)


# -- report noisy max ------------------------------------------------------------------------
def test_report_noisy_max():
    assert M.report_noisy_max(1, 5) == ta.BoundedRange(1)
    assert M.report_noisy_max(1, 5, "exponential") == ta.EpsDelta(1, 0)
    assert M.report_noisy_max(1, 5, "laplace") == ta.EpsDelta(1, 0)
    assert M.report_noisy_max(1, 1, "laplace") == ta.Id
    with pytest.raises(ta.InvalidParameter, match="noise"):
        M.report_noisy_max(1, 3, "cauchy")
    with pytest.raises(ta.InvalidParameter, match="k"):
        M.report_noisy_max(1, 0)


def _win_probabilities(u, b, noise):
    """P(argmax_r u_r + Z_r = r) for i.i.d. noise of scale b, by quadrature."""
    if noise == "gumbel":
        pdf = lambda x: mpmath.exp(-x / b - mpmath.exp(-x / b)) / b  # noqa: E731
        cdf = lambda x: mpmath.exp(-mpmath.exp(-x / b))  # noqa: E731
        span = [-20 * b, 0, 60 * b]
    elif noise == "exponential":
        pdf = lambda x: mpmath.exp(-x / b) / b if x >= 0 else mpmath.mpf(0)  # noqa: E731
        cdf = lambda x: -mpmath.expm1(-x / b) if x >= 0 else mpmath.mpf(0)  # noqa: E731
        span = [0, 60 * b]
    else:
        pdf = lambda x: mpmath.exp(-abs(x) / b) / (2 * b)  # noqa: E731
        cdf = lambda x: (1 - mpmath.exp(-x / b) / 2 if x >= 0  # noqa: E731
                         else mpmath.exp(x / b) / 2)
        span = [-60 * b, 0, 60 * b]
    out = []
    for r in range(len(u)):
        pts = sorted({u[r] + s for s in span} | {u[s] for s in range(len(u))})
        out.append(mpmath.quad(lambda x, r=r: pdf(x - u[r]) * mpmath.fprod(
            cdf(x - u[s]) for s in range(len(u)) if s != r), pts))
    return out


def test_report_noisy_max_gumbel_is_the_exponential_mechanism_and_others_are_eps_dp():
    rng = random.Random(3)
    eps = mpmath.mpf(1)
    b = 2 / eps  # scale 2 Delta/eps, Delta = 1
    with workdps(20):
        u = [mpmath.mpf(x) for x in (0, 1, -1)]
        g = _win_probabilities(u, b, "gumbel")
        for x, y in zip(g, softmax_mp(u, eps, 1), strict=True):
            assert abs(x - y) < 1e-12
        for noise in ("exponential", "laplace"):
            for _ in range(3):
                u = [mpmath.mpf(rng.uniform(-2, 2)) for _ in range(3)]
                v = [x + rng.choice([-1, 1]) for x in u]
                P, Q = _win_probabilities(u, b, noise), _win_probabilities(v, b, noise)
                ref = hull(P, Q)
                for a in [mpmath.mpf(i) / 20 for i in range(21)]:
                    fe = max(0, 1 - mpmath.e * a, (1 - a) / mpmath.e)
                    assert at(ref, a) >= fe - 1e-10, (noise, a)


# -- the subsampled Laplace mechanism ---------------------------------------------------------
def test_laplace_mechanism_sampling():
    L = ta.Laplace(R(1, 2))
    assert M.laplace_mechanism(1, 2) == L
    assert M.laplace_mechanism(1, 2, "poisson", R(1, 10)) == ta.AddRemove(ta.Mix(L, R(1, 10)))
    assert M.laplace_mechanism(1, 2, "uniform", R(1, 10)) == ta.Subsample(L, R(1, 10))
    assert ta.from_dp_event(type("PoissonSampledDpEvent", (), {
        "sampling_probability": R(1, 10),
        "event": type("LaplaceDpEvent", (), {"noise_multiplier": 2})()})()) == \
        M.laplace_mechanism(1, 2, "poisson", R(1, 10))
    assert ta.from_dp_event(type("SampledWithoutReplacementDpEvent", (), {
        "source_dataset_size": 100, "sample_size": 10,
        "event": type("LaplaceDpEvent", (), {"noise_multiplier": 2})()})()) == \
        M.laplace_mechanism(1, 2, "uniform", R(1, 10))
    with pytest.raises(ta.InvalidParameter, match="p"):
        M.laplace_mechanism(1, 2, "poisson")
    with pytest.raises(ta.InvalidParameter, match="p"):
        M.laplace_mechanism(1, 2, p=R(1, 2))
    with pytest.raises(ta.InvalidParameter, match="sampling"):
        M.laplace_mechanism(1, 2, "shuffle", R(1, 2))
    with pytest.raises(ta.InvalidParameter, match="p"):
        M.laplace_mechanism(1, 2, "uniform", 2)


def test_subsampled_laplace_profile_against_the_hockey_stick_integral():
    """delta(eps) of one Poisson-subsampled Laplace step, max over both directions of
    int (q - e^eps p)_+ for the densities p = Lap(0, b), q = (1 - r) Lap(0, b) + r Lap(D, b);
    with a symmetric L both sampled forms have this profile."""
    D, b, r = mpmath.mpf(1), mpmath.mpf(1), mpmath.mpf("0.2")
    lap = lambda x, m: mpmath.exp(-abs(x - m) / b) / (2 * b)  # noqa: E731
    with workdps(30):
        for e in (mpmath.mpf("0.05"), mpmath.mpf("0.3")):
            # on [0, D] the ratio q/p = 1 - r + r e^{(2x - D)/b} crosses e^eps and e^-eps at
            # x = (D + b log((c - 1 + r)/r))/2: the integrands' kinks, split there
            cuts = [(D + b * mpmath.log((c - 1 + r) / r)) / 2
                    for c in (mpmath.exp(e), mpmath.exp(-e)) if c - 1 + r > 0]
            pts = [-mpmath.inf, 0] + sorted(x for x in cuts if 0 < x < D) + [D, mpmath.inf]
            E = mpmath.exp(e)
            rem = mpmath.quad(lambda x, E=E: max((1 - r) * lap(x, 0) + r * lap(x, D)
                                                 - E * lap(x, 0), 0), pts)
            add = mpmath.quad(lambda x, E=E: max(lap(x, 0) - E * ((1 - r) * lap(x, 0)
                                                                  + r * lap(x, D)), 0), pts)
            ref = max(rem, add)
            for f in (M.laplace_mechanism(1, 1, "poisson", R(1, 5)),
                      M.laplace_mechanism(1, 1, "uniform", R(1, 5))):
                got = ta.delta(f, sp.Rational(mpmath.nstr(e, 10)), dps=15)
                assert abs(got.mid - ref) < 1e-12 * (1 + ref), (f, got, ref)


# -- tree aggregation and repeat-and-select --------------------------------------------------
def tree(s, steps):
    return type("SingleEpochTreeAggregationDpEvent", (),
                {"noise_multiplier": s, "step_counts": steps})()


def test_tree_aggregation_is_the_gaussian_of_the_deepest_leaf():
    # the most nodes a leaf of a tree over T steps lies in: dyadic intervals within [1, T]
    def depth(T):
        return max(sum(1 for j in range(T.bit_length() + 1) for i in range(T)
                       if i * 2**j < t <= (i + 1) * 2**j <= T) for t in range(1, T + 1))

    for T, d in [(1, 1), (2, 2), (3, 2), (4, 3), (7, 3), (8, 4), (1000, 10)]:
        assert depth(T) == d if T < 100 else True
        assert ta.from_dp_event(tree(2, T)) == ta.G(sp.sqrt(d) / 2)
        assert ta.from_dp_event(tree(2, T), neighbours="replace_one") == ta.G(sp.sqrt(d))
    assert ta.from_dp_event(tree(2, [3, 8, 1])) == ta.G(1)
    assert ta.from_dp_event(tree(2, 0)) == ta.Id
    assert ta.from_dp_event(tree(0, 5)) == ta.Zero
    with pytest.raises(ta.InvalidParameter, match="step_counts"):
        ta.from_dp_event(tree(1, []))
    with pytest.raises(ta.InvalidParameter, match="step_counts"):
        ta.from_dp_event(tree(1, -1))


def test_tree_aggregation_against_dp_accounting_rdp():
    pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    orders = [1.5, 2.0, 8.0, 64.0]
    for s, steps in [(1.3, 7), (0.8, [100, 3]), (2.0, 1024)]:
        ref = rdp._compute_rdp_single_epoch_tree_aggregation(s, steps, orders)
        f = ta.from_dp_event(tree(s, steps))
        mu = float(f.mu)
        for a, x in zip(orders, ref, strict=True):  # D_a(N(0,1) || N(mu,1)) = a mu^2/2
            assert abs(a * mu**2 / 2 - x) <= 1e-12 * x


def test_repeat_and_select_is_refused():
    inner = type("GaussianDpEvent", (), {"noise_multiplier": 1})()
    ev = type("RepeatAndSelectDpEvent", (), {"event": inner, "mean": 10, "shape": 1})()
    with pytest.raises(ta.InvalidParameter, match="Renyi"):
        ta.from_dp_event(ev)


def test_with_dp_accounting_events():
    dpa = pytest.importorskip("dp_accounting")
    f = ta.from_dp_event(dpa.RandomizedResponseDpEvent(0.5, 4))
    assert f == M.randomized_response(sp.log(5), 4)  # e^eps = 1 + 4 (1/2)/(1/2)
    assert to_dp_event(f) == dpa.RandomizedResponseDpEvent(0.5, 4)
    g = ta.from_dp_event(dpa.SingleEpochTreeAggregationDpEvent(2.0, [5, 9]))
    assert g == ta.G(2 / sp.Integer(2))  # d = 4 for T = 9
    ev = dpa.PoissonSampledDpEvent(0.01, dpa.LaplaceDpEvent(2.0))
    h = ta.from_dp_event(ev)
    assert h == M.laplace_mechanism(1, 2, "poisson", 0.01)
    assert to_dp_event(h) == ev
    with pytest.raises(ta.InvalidParameter, match="RepeatAndSelect"):
        ta.from_dp_event(dpa.dp_event.RepeatAndSelectDpEvent(dpa.GaussianDpEvent(1.0), 10.0,
                                                             1.0))
    with mp.workdps(20):  # the library's context is untouched by the calls above
        assert mp.dps == 20


def test_exponential_mechanism_with_a_hundred_candidates():
    """A hundred candidates (utilities i/3, moved by +1, -1 or 0): built at once (the softmax
    laws sum to 1 by construction, not re-proved in SymPy), exact, against the softmax in
    mpmath with the candidates of equal change merged by hand."""
    u = [Fraction(i, 3) for i in range(100)]
    v = [x + (1, -1, 0)[i % 3] for i, x in enumerate(u)]
    f = M.exponential_mechanism(1, [R(x.numerator, x.denominator) for x in u],
                                [R(y.numerator, y.denominator) for y in v])
    assert len(f.P) == 3
    with workdps(40):
        p, q = softmax_mp(u, mpmath.mpf(1), 1), softmax_mp(v, mpmath.mpf(1), 1)
        P = [mpmath.fsum(p[i] for i in range(100) if i % 3 == c) for c in range(3)]
        Q = [mpmath.fsum(q[i] for i in range(100) if i % 3 == c) for c in range(3)]
        assert abs(mpmath.fsum(sp.N(x, 40) for x in f.P) - 1) < mpmath.mpf(10) ** -35
        ref = hull(P, Q)
        for a in (R(1, 1000), R(1, 10), R(1, 2), R(4, 5)):
            x = ta.evaluate(f, a, dps=30).mid
            assert abs(x - at(ref, mpmath.mpf(a.p) / a.q)) < mpmath.mpf(10) ** -28


def test_exponential_mechanism_profile_and_epsilon_in_arb():
    """A hundred candidates with random integer utilities moved by -1, 0 or +1: delta(eps) is
    the Arb sum of max(0, Q_r - e^eps P_r) over balls of the softmax weights, computed once
    (no SymPy evaluation per call), certified; against the hockey-stick divergence of the
    softmax laws summed in mpmath at 50 digits per candidate (no merging), and eps(1e-6)
    against its root found by bisection on that reference."""
    rng = random.Random(3)
    u = [rng.randint(0, 20) for _ in range(100)]
    v = [x + rng.choice([-1, 0, 1]) for x in u]
    f = M.exponential_mechanism(1, u, v)
    with workdps(50):
        p, q = softmax_mp(u, mpmath.mpf(1), 1), softmax_mp(v, mpmath.mpf(1), 1)

        def ref(e):
            E = mpmath.exp(e)
            return mpmath.fsum(max(mpmath.mpf(0), y - E * x) for x, y in zip(p, q, strict=True))

        for e in (R(0), R(1, 10), R(1, 2), R(9, 10)):
            d = ta.delta(f, e, dps=30)
            assert d.guarantee in ("exact", "certified")  # at 0: the exact total variation
            r = ref(mpmath.mpf(e.p) / e.q)
            assert mpmath.mpf(d.lo) <= r * (1 + mpmath.mpf(10) ** -29) and \
                r * (1 - mpmath.mpf(10) ** -29) <= mpmath.mpf(d.hi)
            assert abs(d.mid - r) <= mpmath.mpf(10) ** -28 * r
        target = mpmath.mpf(10) ** -6
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        for _ in range(140):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if ref(mid) > target else (lo, mid)
        e = ta.epsilon(f, R(1, 10**6), dps=30)
        assert e.guarantee == "certified"
        assert abs(e.mid - hi) <= mpmath.mpf(10) ** -28 * hi
        # the knots in the order proved by Arb, against the brute-force hull of the merged laws
        P = [sp.N(x, 50) for x in f.P]
        Q = [sp.N(x, 50) for x in f.Q]
        ref_knots = hull([mpmath.mpf(str(x)) for x in P], [mpmath.mpf(str(x)) for x in Q])
        for a in (R(1, 1000), R(1, 10), R(1, 2), R(4, 5)):
            x = ta.evaluate(f, a, dps=30)
            assert x.guarantee in ("exact", "certified")
            assert abs(x.mid - at(ref_knots, mpmath.mpf(a.p) / a.q)) < mpmath.mpf(10) ** -28


def test_irrational_ties_are_merged_exactly():
    """Two outcomes of the same irrational likelihood ratio: Arb cannot separate them, so the
    order is decided exactly in SymPy (the ratio classes merged), as before."""
    from tradeoff_algebra.numeric.finite_values import ratio_order

    E = sp.exp(1)
    x, y = 1 / (1 + E), E / (1 + E)
    P, Q = (x / 2, x / 2, 1 - x), (y / 2, y / 2, 1 - y)
    assert ratio_order(P, Q) is None
    f = ta.Discrete(list(P), list(Q))
    assert len(f.knots) == 3  # the two tied outcomes are one class
    g = ta.Discrete([x, 1 - x], [y, 1 - y])
    for a in (R(1, 10), R(1, 3), R(7, 10)):
        assert abs(ta.evaluate(f, a, dps=30).mid - ta.evaluate(g, a, dps=30).mid) \
            < mpmath.mpf(10) ** -29
        assert ta.delta(f, a, dps=30).mid == ta.delta(g, a, dps=30).mid
