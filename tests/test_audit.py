"""Audits against the certified curve (tradeoff_algebra.audit).

References: exact rational binomial sums (Fractions) for the Clopper–Pearson bounds, scipy's
beta quantiles as an independent float estimate, the library's certified evaluation of
f_{eps,delta} and G_mu at the bounds found (their tightness), an independent mpmath
re-implementation of the one-run p-value at 50 digits, and simulations whose truth is known
(scores drawn from the mechanism's own pair): the true curve is refuted at most at the stated
rate, a curve that claims too much is refuted with high power, pure noise gives no positive eps.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.audit import audit, audit_counts, audit_one_run, clopper_pearson
from tradeoff_algebra.audit.binomial import cp_lower, cp_upper
from tradeoff_algebra.audit.bounds import eps_lower, mpf_fraction, mu_lower
from tradeoff_algebra.audit.one_run import one_run_p_value
from tradeoff_algebra.numeric.context import mp


def _cdf(k: int, n: int, p: Fraction) -> Fraction:
    """P(Bin(n, p) <= k), exactly."""
    return sum((math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1)),
               Fraction(0))


# -- Clopper-Pearson, proved -----------------------------------------------------------------
@pytest.mark.parametrize("k,n", [(0, 1), (0, 7), (1, 7), (3, 10), (7, 7), (20, 60), (59, 60)])
@pytest.mark.parametrize("gamma", [Fraction(1, 40), Fraction(1, 1000)])
def test_clopper_pearson_brackets_by_exact_sums(k, n, gamma):
    """The conservative ends have the tail on the safe side of gamma, by exact rational sums,
    and the brackets are narrow (the other end has the tail on the other side)."""
    lo, hi = cp_upper(k, n, gamma)
    if k == n:
        assert lo == hi == 1
    else:
        assert _cdf(k, n, hi) < gamma < _cdf(k, n, lo)
        assert hi - lo <= hi * Fraction(1, 2**38)
    lo, hi = cp_lower(k, n, gamma)
    if k == 0:
        assert lo == hi == 0
    else:  # P(Bin >= k) = 1 - P(Bin <= k - 1)
        assert 1 - _cdf(k - 1, n, lo) < gamma < 1 - _cdf(k - 1, n, hi)
        assert hi - lo <= hi * Fraction(1, 2**38)


@pytest.mark.parametrize("k,n", [(0, 10**6), (1, 10**7), (5000, 10**5), (500, 1000)])
def test_clopper_pearson_large_n_against_scipy(k, n):
    """Large n: the interval holds scipy's beta quantiles (an independent float estimate) to
    within 1e-9 relative, and the k = 0 upper bound the closed form 1 - gamma^(1/n)."""
    from scipy.stats import beta

    lo, hi = clopper_pearson(k, n, Fraction(95, 100))
    ref_hi = beta.ppf(0.975, k + 1, n - k)
    ref_lo = beta.ppf(0.025, k, n - k + 1) if k else 0.0
    assert float(hi) >= ref_hi * (1 - 1e-9) and float(hi) <= ref_hi * (1 + 1e-9)
    assert float(lo) <= ref_lo * (1 + 1e-9) and float(lo) >= ref_lo * (1 - 1e-9)
    if k == 0:
        with mp.workdps(40):
            assert mp.mpf(hi.numerator) / hi.denominator >= 1 - mp.mpf("0.025") ** (mp.one / n)


def test_clopper_pearson_refuses_bad_input():
    for args, name in [((3, 2), "k"), ((-1, 5), "k"), ((1, 0), "n"), ((1.5, 3), "k")]:
        with pytest.raises(ta.InvalidParameter, match=name):
            clopper_pearson(*args)
    with pytest.raises(ta.InvalidParameter, match="confidence"):
        clopper_pearson(1, 3, 1.5)
    for bad in (True, "x", sp.pi / 4, float("nan")):
        with pytest.raises(ta.InvalidParameter, match="confidence"):
            clopper_pearson(1, 3, bad)
    # exact readings: "0.9" is 9/10, a SymPy Float and a float their binary values
    assert clopper_pearson(1, 3, "0.9") == clopper_pearson(1, 3, Fraction(9, 10))
    assert clopper_pearson(1, 3, sp.Float(0.5)) == clopper_pearson(1, 3, Fraction(1, 2))


# -- what a box refutes ----------------------------------------------------------------------
@pytest.mark.parametrize("a,b", [(Fraction(1, 20), Fraction(3, 10)), (Fraction(1, 100),
                                                                     Fraction(1, 2)),
                                 (Fraction(3, 10), Fraction(1, 50))])
@pytest.mark.parametrize("delta", [Fraction(0), Fraction(1, 10**5)])
def test_eps_lower_is_tight_against_evaluate(a, b, delta):
    """f_{eps,delta}(a) > b at the bound found (refuted, by the library's exact/certified
    evaluation), and f_{eps,delta}(a) < b just above the exact eps*: the bound is the edge."""
    e = eps_lower(a, b, delta)
    assert e > 0
    at = ta.evaluate(ta.EpsDelta(sp.Rational(e.numerator, e.denominator),
                                 sp.Rational(delta.numerator, delta.denominator)),
                     sp.Rational(a.numerator, a.denominator), dps=40)
    assert at.is_certain and mpf_fraction(at.interval()[0]) >= b
    above = e + Fraction(1, 10**12)
    v = ta.evaluate(ta.EpsDelta(sp.Rational(above.numerator, above.denominator),
                                sp.Rational(delta.numerator, delta.denominator)),
                    sp.Rational(a.numerator, a.denominator), dps=40)
    assert v.is_certain and mpf_fraction(v.interval()[1]) < b


@pytest.mark.parametrize("a,b", [(Fraction(1, 20), Fraction(3, 10)),
                                 (Fraction(1, 10**6), Fraction(1, 2)),
                                 (Fraction(2, 5), Fraction(1, 5))])
def test_mu_lower_is_tight_against_evaluate(a, b):
    m = mu_lower(a, b)
    assert m > 0
    for mu, refuted in [(m, True), (m + Fraction(1, 10**12), False)]:
        v = ta.evaluate(ta.G(sp.Rational(mu.numerator, mu.denominator)),
                        sp.Rational(a.numerator, a.denominator), dps=40)
        lo, hi = (mpf_fraction(x) for x in v.interval())
        assert v.is_certain and ((lo >= b) if refuted else (hi < b))


def test_nothing_refuted_above_the_diagonal():
    assert eps_lower(Fraction(1, 2), Fraction(1, 2), Fraction(0)) == 0
    assert mu_lower(Fraction(3, 5), Fraction(2, 5)) == 0


# -- audits ----------------------------------------------------------------------------------
def _gauss(rng, n, mu):
    return rng.normal(mu, 1.0, n), rng.normal(0.0, 1.0, n)


def test_audit_counts_by_hand():
    """Two thresholds, counts given: the boxes are the Clopper-Pearson bounds at
    (1 - 0.9)/(4 * 2) a side, and the claim is refuted exactly where f(FPR_hi) > FNR_hi."""
    a = audit_counts([10, 100], 1000, [950, 200], 1000, ta.G(1), Fraction(9, 10),
                     thresholds=[2.0, 0.5])
    assert a.level == Fraction(1, 80)
    for p in a.points:
        assert p.box[1] == cp_upper(p.fp, 1000, Fraction(1, 80))[1]
        assert p.box[2] == cp_lower(p.fn, 1000, Fraction(1, 80))[0]
        with mp.workdps(50):  # G_1 at FPR_hi by mpmath at 50 digits (an independent formula)
            ref = mp.ncdf(mp.sqrt(2) * mp.erfinv(2 * (1 - mp.mpf(p.box[1].numerator)
                                                       / p.box[1].denominator) - 1) - 1)
        assert p.refutes == (ref > mp.mpf(p.box[3].numerator) / p.box[3].denominator)
    assert a.refuted is True and a.points[1].refutes is True  # (0.1, 0.2) is below G_1
    assert a.points[0].refutes is False  # (0.01, 0.95): G_1(0.01) = 0.908 < 0.95
    assert a.mu_lower == a.points[1].mu > 1
    assert "refuted" in a.summary() and r"\mu \ge" in a.latex()


def test_audit_refutes_an_overclaim_and_not_the_truth():
    rng = np.random.default_rng(7)
    m, n = _gauss(rng, 20000, 1.0)
    assert audit(m, n, ta.G(sp.Rational(1, 2))).refuted is True
    truth = audit(m, n, ta.G(1))
    assert truth.refuted is False and truth.mu_lower < 1
    assert 0.8 < truth.mu_lower  # the data show most of mu = 1


def test_audit_accepts_notions_and_accountants():
    rng = np.random.default_rng(3)
    m, n = _gauss(rng, 4000, 1.0)
    acc = ta.Accountant().compose(ta.G(sp.Rational(1, 4)), 4)  # G_{1/2}: claims too much
    a = audit(m, n, acc)
    assert a.claimed == acc.expression and a.refuted is True
    d = sp.Rational(1, 10**5)
    b = audit(m, n, ta.ApproxDP(sp.Rational(1, 2), d))
    assert Fraction(1, 10**5) in b.eps_lower and b.refuted is True
    assert audit(m, n, ta.GDP(3)).refuted is False
    with pytest.raises(ta.InvalidParameter, match="claimed"):
        audit(m, n, "G(1)")
    with pytest.raises(ta.InvalidParameter, match="scores_members"):
        audit([], n, ta.G(1))
    with pytest.raises(ta.InvalidParameter, match="thresholds"):
        audit(m, n, ta.G(1), thresholds=[float("nan")])


def test_an_estimate_never_refutes():
    """A claim answered only by an estimate route (a product through the PLD grid: an
    Skellam factor, so no certified band of its profile) leaves the points undecided, even
    with data far below it, and says so."""
    rng = np.random.default_rng(8)
    claim = ta.Laplace(sp.Rational(1, 2)) @ ta.Skellam(1, 3)
    assert ta.evaluate(claim, sp.Rational(1, 10)).guarantee == "estimate"
    a = audit(*_laplace(rng, 4000, 5.0), claim, n_thresholds=2)
    assert a.refuted is False and len(a.undecided) == 2
    assert all(p.f_value.guarantee == "estimate" for p in a.points)
    assert "2 undecided" in a.summary()
    assert a.mu_lower > 1 and a.eps_lower[Fraction(0)] > 1  # the bounds need no evaluation


def test_audit_fixed_thresholds_count_everything():
    rng = np.random.default_rng(5)
    m, n = _gauss(rng, 1000, 2.0)
    a = audit(m, n, ta.G(2), thresholds=[1.0])
    (p,) = a.points
    assert (p.fp, p.negatives) == (int(np.sum(n >= 1.0)), 1000)
    assert (p.fn, p.positives) == (int(np.sum(m < 1.0)), 1000)
    assert "fixed in advance" in a.selection


def test_plot_and_latex():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(11)
    m, n = _gauss(rng, 3000, 1.0)
    a = audit(m, n, ta.G(sp.Rational(1, 2)))
    ax = a.plot()
    assert "alpha" in ax.get_xlabel() and "beta" in ax.get_ylabel()
    assert len(ax.patches) == len(a.points)
    assert a.latex().startswith(r"\text{The claim }") and a._repr_latex_().startswith("$")


# -- the one-run audit -----------------------------------------------------------------------
def _p_ref(m, r, v, eps, delta, dps=50):
    """Steinke, Nasr & Jagielski's p-value by mpmath at 50 digits (binomial masses directly)."""
    with mp.workdps(dps):
        q = mp.exp(eps) / (1 + mp.exp(eps))

        def pmf(j):
            return mp.binomial(r, j) * q**j * (1 - q) ** (r - j)

        tail = mp.fsum(pmf(j) for j in range(v, r + 1))
        best, acc = mp.zero, mp.zero
        for i in range(1, v + 1):
            acc += pmf(v - i)
            best = max(best, acc / i)
        delta = Fraction(delta)
        return tail + 2 * m * mp.mpf(delta.numerator) / delta.denominator * best


@pytest.mark.parametrize("m,r,v,eps,delta", [(1000, 200, 150, 1, Fraction(1, 10**6)),
                                             (100, 100, 90, 2, Fraction(1, 10**5)),
                                             (50, 20, 12, Fraction(1, 2), 0)])
def test_one_run_p_value_against_mpmath(m, r, v, eps, delta):
    lo, hi = one_run_p_value(m, r, v, eps, delta)
    with mp.workdps(50):
        ref = _p_ref(m, r, v, mp.mpf(Fraction(eps).numerator) / Fraction(eps).denominator,
                     delta)
    with mp.workdps(50):
        assert mp.mpf(lo.numerator) / lo.denominator <= ref <= mp.mpf(hi.numerator) \
            / hi.denominator
        assert hi - lo < Fraction(1, 10**25)


def test_one_run_audit_bound_is_the_edge():
    """At the bound the p-value is below 1 - confidence; a little above it is not."""
    for delta in (0, Fraction(1, 10**5)):
        a = audit_one_run(1000, 600, 590, delta=delta)
        assert a.eps_lower > 3
        assert one_run_p_value(1000, 600, 590, a.eps_lower, delta)[1] < Fraction(1, 20)
        assert one_run_p_value(1000, 600, 590, a.eps_lower + Fraction(1, 1000), delta)[0] \
            > Fraction(1, 20)
    assert audit_one_run(1000, 600, 590, claimed=(2, Fraction(1, 10**5))).refuted is True
    assert audit_one_run(1000, 600, 590, claimed=ta.ApproxDP(8, sp.Rational(1, 10**5))
                         ).refuted is False
    assert audit_one_run(1000, 600, 290).eps_lower == 0  # fewer than half right
    with pytest.raises(ta.InvalidParameter, match="v"):
        audit_one_run(10, 5, 6)


# -- simulations whose truth is known --------------------------------------------------------
def _laplace(rng, n, mu):
    return rng.laplace(mu, 1.0, n), rng.laplace(0.0, 1.0, n)


def _rr(rng, n, eps):
    p = math.exp(eps) / (1 + math.exp(eps))
    return (rng.random(n) < p).astype(float), (rng.random(n) < 1 - p).astype(float)


#: (name, sampler, the true curve, an over-claim): the pairs are the mechanisms' own
MECHANISMS = [
    ("gaussian", lambda rng, n: _gauss(rng, n, 1.0), ta.G(1), ta.G(sp.Rational(4, 5))),
    ("laplace", lambda rng, n: _laplace(rng, n, 1.0), ta.Laplace(1),
     ta.Laplace(sp.Rational(3, 5))),
    ("randomized response", lambda rng, n: _rr(rng, n, 1.0), ta.EpsDelta(1, 0),
     ta.EpsDelta(sp.Rational(7, 10), 0)),
]

#: P(Bin(200, 0.05) > 20) < 0.002: a count above 20 refutes the stated 5% error rate
MAX_FALSE = 20


def _simulate(sampler, claim, reps, n, seed, fixed=None):
    rng = np.random.default_rng(seed)
    return [audit(*sampler(rng, n), claim, thresholds=fixed) for _ in range(reps)]


@pytest.mark.parametrize("name,sampler,truth,over", MECHANISMS, ids=[m[0] for m in MECHANISMS])
def test_true_curve_rarely_refuted_quick(name, sampler, truth, over):
    """10 audits of the true curve: P(Bin(10, 0.05) > 2) < 0.012."""
    runs = _simulate(sampler, truth, 10, 1000, 2024)
    assert sum(a.refuted for a in runs) <= 2


@pytest.mark.slow
@pytest.mark.parametrize("name,sampler,truth,over", MECHANISMS, ids=[m[0] for m in MECHANISMS])
def test_true_curve_coverage(name, sampler, truth, over):
    """200 audits (n = 2000 a side, thresholds chosen on half) of the true curve: at most
    MAX_FALSE refutations."""
    runs = _simulate(sampler, truth, 200, 2000, 1)
    count = sum(a.refuted for a in runs)
    print(f"{name}: true curve refuted {count}/200")
    assert count <= MAX_FALSE


@pytest.mark.slow
@pytest.mark.parametrize("name,sampler,truth,over", MECHANISMS, ids=[m[0] for m in MECHANISMS])
def test_overclaim_power(name, sampler, truth, over):
    """50 audits at n = 20000 a side of a curve that claims too much: refuted in >= 45."""
    runs = _simulate(sampler, over, 50, 20000, 2)
    count = sum(a.refuted for a in runs)
    print(f"{name}: over-claim refuted {count}/50")
    assert count >= 45


def test_pure_noise_quick():
    rng = np.random.default_rng(99)
    runs = [audit(rng.normal(size=500), rng.normal(size=500)) for _ in range(10)]
    assert sum(any(e > 0 for e in a.eps_lower.values()) or a.mu_lower > 0 for a in runs) <= 2


@pytest.mark.slow
def test_pure_noise_never_shows_privacy_loss():
    """Members and nonmembers from the same law (Id is the truth: eps = 0 at every delta,
    mu = 0): a positive lower bound is an error, at most MAX_FALSE of 200."""
    rng = np.random.default_rng(5)
    runs = [audit(rng.normal(size=2000), rng.normal(size=2000)) for _ in range(200)]
    count = sum(any(e > 0 for e in a.eps_lower.values()) or a.mu_lower > 0 for a in runs)
    print(f"pure noise: positive lower bound {count}/200")
    assert count <= MAX_FALSE
