"""GaussianMixturePair: T(sum_i w_i N(a_i, 1), sum_i w_i N(b_i, 1)), each check against an
independent computation: the Mix(G_mu, p) closed form route, a brute-force Neyman--Pearson test
computed here with mpmath (roots of q - t p from a dense sign scan refined by findroot, 40
digits), the joint-concavity lower bound GaussianJoint (Wang et al., Lemma 3.1), the defining
properties of a trade-off function, and the validation of the parameters.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from precision import close, workdps

import tradeoff_algebra as ta
from tradeoff_algebra.bounds.mixtures import GaussianJoint
from tradeoff_algebra.families.gaussian_mixture import GaussianMixturePair as GMP

R = sp.Rational
HALF = [R(1, 2), R(1, 2)]


# -- the brute-force Neyman--Pearson reference --------------------------------------------------
def _np_reference(weights, means_p, means_q, t, span=14, steps=561):
    """(alpha(t), beta(t), 1 - beta(t), roots) of the likelihood-ratio test that rejects where
    q(x) > t p(x), at 40 digits: sign changes of log(q/p) - log t on a grid of [-span, span],
    each root refined by mpmath.findroot, masses from normal CDFs in the tail that keeps their
    digits."""
    with mpmath.workdps(40):
        w = [mpmath.mpf(x.p) / x.q for x in map(R, weights)]
        A = [mpmath.mpf(R(x).p) / R(x).q for x in means_p]
        B = [mpmath.mpf(R(x).p) / R(x).q for x in means_q]
        t = mpmath.mpf(t)

        def h(x):  # log q - log p - log t: of order 1 in the tails (findroot stops on |h|)
            return (mpmath.log(sum(wi * mpmath.npdf(x, b) for wi, b in zip(w, B, strict=True)))
                    - mpmath.log(sum(wi * mpmath.npdf(x, a) for wi, a in zip(w, A, strict=True)))
                    - mpmath.log(t))

        xs = mpmath.linspace(-span, span, steps)
        vals = [h(x) for x in xs]
        roots = [mpmath.findroot(h, (x1, x2), solver="anderson")
                 for x1, x2, v1, v2 in zip(xs, xs[1:], vals, vals[1:], strict=False)
                 if (v1 > 0) != (v2 > 0)]
        ends = [mpmath.ninf, *roots, mpmath.inf]

        def mass(means, u, v):
            out = mpmath.mpf(0)
            for wi, m in zip(w, means, strict=True):
                if v - m <= 0:
                    out += wi * (mpmath.ncdf(v - m) - mpmath.ncdf(u - m))
                else:  # upper tails: no cancellation
                    out += wi * (mpmath.ncdf(m - u) - mpmath.ncdf(m - v))
            return out

        alpha, beta, power = mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)
        for u, v in zip(ends, ends[1:], strict=False):
            mid = (u + v) / 2 if mpmath.isfinite(u) and mpmath.isfinite(v) else (
                v - 1 if mpmath.isfinite(v) else (u + 1 if mpmath.isfinite(u) else 0))
            if h(mid) > 0:
                alpha += mass(A, u, v)
                power += mass(B, u, v)
            else:
                beta += mass(B, u, v)
        return alpha, beta, power, roots


def _encloses(v, ref, digits: int = 27) -> bool:
    """The Value v contains ref up to a relative 10^-digits (the reference has 40 digits, the
    level handed to evaluate is the reference's alpha, exact to its 40 digits)."""
    with workdps(60):
        r = mpmath.mpf(ref)
        tol = mpmath.mpf(10) ** -digits * abs(r)
        return mpmath.mpf(v.lo) - tol <= r <= mpmath.mpf(v.hi) + tol


# -- (1) the special case Mix(G_mu, p) = p G_mu + (1 - p) Id -------------------------------------
@pytest.mark.parametrize("alpha", ["1e-10", "0.05", R(1, 2), "0.999"])
def test_mix_special_case(alpha):
    mu, p = R(3, 2), R(1, 3)
    f = GMP([1 - p, p], [0, 0], [0, mu])
    ref = ta.evaluate(ta.Mix(ta.G(mu), p), alpha, dps=30)
    v = ta.evaluate(f, alpha, dps=30)
    assert close(v, ref.mid, 29)
    with workdps(40):  # the enclosure is as narrow as the digits asked
        assert mpmath.mpf(v.width) <= abs(mpmath.mpf(ref.mid)) * mpmath.mpf(10) ** -28
    ref_p = ta.roc(ta.Mix(ta.G(mu), p), alpha, dps=30)
    assert close(ta.roc(f, alpha, dps=30), ref_p.mid, 29)


def test_mix_special_case_delta():
    f = GMP([R(3, 4), R(1, 4)], [0, 0], [0, 2])
    for eps in (0, R(1, 2), 2):
        ref = ta.delta(ta.Mix(ta.G(2), R(1, 4)), eps, dps=25)
        assert close(ta.delta(f, eps, dps=25), ref.mid, 24)


# -- (2) against brute-force Neyman--Pearson ------------------------------------------------------
CASES = [
    # q/p = e^{-2} cosh(2x): two tails for every t > e^{-2}
    (HALF, [0, 0], [-2, 2], [R(1, 5), 1, 10**6], 2),
    # q/p has a local maximum 0.834 (x ~ 0.04) and minimum 0.640 (x ~ 1.18): three roots for
    # t in between, one otherwise
    (HALF, [-1, 1], [0, 3], [R(7, 10), R(3, 4), 3], None),
]


@pytest.mark.parametrize("weights,means_p,means_q,ts,nroots", CASES, ids=["two-tails", "wiggle"])
def test_against_brute_force_neyman_pearson(weights, means_p, means_q, ts, nroots):
    f = GMP(weights, means_p, means_q)
    seen = set()
    for t in ts:
        alpha, beta, power, roots = _np_reference(weights, means_p, means_q, t)
        seen.add(len(roots))
        if nroots is not None:
            assert len(roots) == nroots
        if t == 10**6:
            assert alpha < mpmath.mpf(10) ** -14  # a level far in the tail
        v = ta.evaluate(f, alpha, dps=30)  # the 40-digit mpf, read exactly
        assert _encloses(v, beta), (t, v, beta)
        with workdps(40):
            assert mpmath.mpf(v.width) <= beta * mpmath.mpf(10) ** -28
        assert _encloses(ta.roc(f, alpha, dps=30), power), t
    if nroots is None:
        assert seen == {1, 3}  # the case is not a threshold test


@pytest.mark.parametrize("eps", [0, 1, R(5, 2)])
def test_delta_is_the_hockey_stick_divergence(eps):
    """delta(eps) = int (q - e^eps p)_+ = Q(R) - e^eps P(R) (Dong, Roth & Su, Prop. 6)."""
    with mpmath.workdps(40):
        t = mpmath.exp(mpmath.mpf(R(eps).p) / R(eps).q)
    alpha, _, power, _ = _np_reference(HALF, [-1, 1], [0, 3], t)
    with mpmath.workdps(40):
        d = power - t * alpha
    v = ta.delta(GMP(HALF, [-1, 1], [0, 3]), eps, dps=25)
    assert _encloses(v, d, digits=24)
    with workdps(40):  # the conjugate at -e^eps is delta - 1
        c = ta.conjugate_value(GMP(HALF, [-1, 1], [0, 3]), -t, dps=25)
        assert abs(mpmath.mpf(c.mid) - (d - 1)) < mpmath.mpf(10) ** -23


def test_shared_component_cancels_exactly_at_threshold_one():
    """At t = 1 the N(0, 1) halves of P and Q cancel in q - t p: the term is absent (no
    rounded value could decide its sign); delta(0) is the total variation distance
    (Phi(1/2) - Phi(-1/2))/2 of N(1, 1) and N(2, 1), halved."""
    f = GMP(HALF, [0, 1], [0, 2])
    with mpmath.workdps(50):
        tv = (mpmath.ncdf(mpmath.mpf(1) / 2) - mpmath.ncdf(-mpmath.mpf(1) / 2)) / 2
        conj = tv - 1
    assert close(ta.delta(f, 0, dps=30), tv, 29)
    assert close(ta.conjugate_value(f, -1, dps=30), conj, 29)


# -- (3) joint concavity: GaussianJoint lies below -------------------------------------------------
def test_gaussian_joint_is_a_lower_bound():
    ws, mus = [R(1, 3), R(2, 3)], [1, R(-5, 2)]
    mixture = GMP(ws, [0, 0], mus)
    joint = GaussianJoint(ws, mus)
    for alpha in ("1e-6", R(1, 20), R(3, 10), R(7, 10), "0.99"):
        m, j = ta.evaluate(mixture, alpha, dps=20), ta.evaluate(joint, alpha, dps=20)
        with workdps(40):
            assert mpmath.mpf(j.hi) <= mpmath.mpf(m.lo), (alpha, j, m)
    with workdps(40):  # and strictly: observing the index helps the attacker here
        assert mpmath.mpf(m.lo) - mpmath.mpf(j.hi) > mpmath.mpf(10) ** -3


# -- (4) the defining properties on a grid -----------------------------------------------------
def test_trade_off_function_properties():
    f = GMP(HALF, [-1, 1], [0, 3])
    alphas = [R(0), R(1, 10**6), R(1, 100), R(1, 20), R(3, 10), R(1, 2), R(9, 10), R(99, 100),
              R(1)]
    vals = [ta.evaluate(f, a, dps=15) for a in alphas]
    with workdps(40):
        lo = [mpmath.mpf(v.lo) for v in vals]
        hi = [mpmath.mpf(v.hi) for v in vals]
        x = [mpmath.mpf(a.p) / a.q for a in alphas]
        assert lo[0] == 1 and hi[-1] == 0  # f(0) = 1 (P has full support), f(1) = 0
        for i in range(len(x)):
            assert 0 <= lo[i] <= hi[i] <= 1 - x[i] + mpmath.mpf(10) ** -14  # f <= 1 - alpha
            if i:
                assert lo[i - 1] >= hi[i] - mpmath.mpf(10) ** -14  # non-increasing
        for i in range(1, len(x) - 1):  # convex: below every chord of its neighbours
            th = (x[i] - x[i - 1]) / (x[i + 1] - x[i - 1])
            assert lo[i] <= (1 - th) * hi[i - 1] + th * hi[i + 1] + mpmath.mpf(10) ** -14


def test_mirror_pair_is_symmetric():
    f = GMP([R(1, 3), R(2, 3)], [1, 2], [2, 1])  # Q is P reflected about 3/2
    assert f.is_symmetric is True and GMP(HALF, [-1, 1], [0, 3]).is_symmetric is None
    a = R(1, 5)
    b = ta.evaluate(f, a, dps=20)
    back = ta.evaluate(f, b.mid, dps=20)  # f(f(a)) = a for a symmetric f
    assert close(back, a, 17)


# -- degenerate cases are exact ---------------------------------------------------------------
def test_equal_mixtures_are_id():
    f = GMP(HALF, [-1, 1], [1, -1])  # the same measure, components listed in another order
    v = ta.evaluate(f, R(1, 3))
    assert v.exact == R(2, 3) and f.is_symmetric is True
    assert f(R(1, 4)) == R(3, 4)
    assert GMP([R(1, 3), R(2, 3)], [1, 1], [1, 1])(R(1, 10)) == R(9, 10)
    assert ta.delta(f, 1).mid == 0


def test_one_component_each_is_gaussian():
    f = GMP([R(1, 4), R(3, 4)], [1, 1], [3, 3])  # N(1, 1) against N(3, 1)
    for alpha in ("1e-12", R(1, 3), "0.9"):
        v, g = ta.evaluate(f, alpha), ta.evaluate(ta.G(2), alpha)
        assert v.is_point and v.mid == g.mid
    assert f(R(1, 3)) == ta.G(2)(R(1, 3))
    assert GMP([1, 0], [0, 5], [2, -7])(R(1, 2)) == ta.G(2)(R(1, 2))  # weight-0 parts drop


def test_inverse_swaps_the_mixtures():
    f = GMP(HALF, [-1, 1], [0, 3])
    assert ta.simplify(ta.Inverse(f)) == GMP(HALF, [0, 3], [-1, 1])


# -- (5) validation -------------------------------------------------------------------------------
@pytest.mark.parametrize("args,name", [
    (([R(1, 2), R(1, 3)], [0, 0], [0, 1]), "weights"),      # sum 5/6
    (([R(-1, 2), R(3, 2)], [0, 0], [0, 1]), "weights[0]"),  # negative
    (([0.5, 0.4], [0, 0], [0, 1]), "weights"),              # floats far from sum 1
    (([], [], []), "weights"),
    (("0.5, 0.5", [0, 0], [0, 1]), "weights"),
    ((HALF, [0], [0, 1]), "means_p"),                       # length mismatch
    ((HALF, [0, 0], [0, 1, 2]), "means_q"),
    ((HALF, [0, sp.I], [0, 1]), "means_p[1]"),
    ((HALF, [0, float("nan")], [0, 1]), "means_p[1]"),
    ((HALF, [0, 0], 3), "means_q"),
])
def test_invalid_parameters(args, name):
    with pytest.raises(ta.InvalidParameter, match=r"GaussianMixturePair") as exc:
        GMP(*args)
    assert name in str(exc.value)


def test_floats_are_read_exactly():
    f = GMP([0.1, 0.2, 0.7], [0.1, 0, 0], [0, 0, 1])
    total = R(0.1) + R(0.2) + R(0.7)
    assert total != 1 and sum(f.weights) == 1
    assert list(f.weights) == [R(0.1) / total, R(0.2) / total, R(0.7) / total]
    assert f.means_p[0] == R(0.1) and f.means_p[0] != R(1, 10)


def test_printing():
    f = GMP(HALF, [0, 0], [-2, 2])
    assert str(f) == "GaussianMixturePair([1/2, 1/2], [0, 0], [-2, 2])"
    tex = ta.latex(f)
    assert tex.startswith(r"T\left(") and r"\mathcal{N}\left(-2, 1\right)" in tex
    p = sp.Symbol("p", nonnegative=True)
    assert r"\left(1 - p\right)" in ta.latex(GMP([p, 1 - p], [0, 1], [1, 0]))
