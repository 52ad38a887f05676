"""Accounting as practitioners do it: training configurations, composed training phases under
add/remove neighbours, calibration. References: identities that hold by construction of the
pair (two phases of T steps = one phase of 2T), the hull of the product built by hand,
dp_accounting where installed (the `bench` extra), and the certified profile itself."""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import AddRemove, G, Mix, SymmetricHull

R = sp.Rational
P = R(512, 50000)
D5 = R(1, 10**5)

def overlap(u, v) -> bool:
    return u.lo <= v.hi and v.lo <= u.hi

def test_noisy_sgd_from_a_training_configuration():
    f = ta.noisy_sgd(1.0, dataset_size=50000, batch_size=512, epochs=30, sampling="poisson")
    assert f == ta.noisy_sgd(1, P, math.ceil(30 * 50000 / 512), sampling="poisson")
    assert f == ta.noisy_sgd(1, P, 2930, sampling="poisson")
    g = ta.noisy_sgd(2, dataset_size=1000, batch_size=10, steps=7)
    assert g == ta.noisy_sgd(2, R(1, 100), 7) == ta.noisy_sgd(2, R(1, 100), 7, "poisson")
    for bad in (dict(dataset_size=100, batch_size=200, epochs=1),
                dict(dataset_size=100, epochs=1),
                dict(dataset_size=100, batch_size=10, epochs=1, steps=3),
                dict(dataset_size=100, batch_size=10, epochs=-1)):
        with pytest.raises(ta.InvalidParameter):
            ta.noisy_sgd(1, **bad)
    with pytest.raises(ta.InvalidParameter, match="steps"):
        ta.noisy_sgd(1, P)
    # the neighbouring relation is stated and checked against the sampling
    assert ta.noisy_sgd(1, P, 3, sampling="poisson", neighbours="add_remove") == \
        ta.noisy_sgd(1, P, 3, sampling="poisson")
    assert ta.noisy_sgd(1, P, 3, "fixed_size", neighbours="replace_one") == \
        ta.noisy_sgd(1, P, 3, "fixed_size")
    assert ta.noisy_sgd(1, P, 3, sampling="poisson", neighbours="replace_one") == \
        ta.PoissonReplace(1, P) ** 3
    assert ta.noisy_sgd(1, P, 3, "fixed_size", neighbours="add_remove") == \
        AddRemove(Mix(G(2), P) ** 3)
    with pytest.raises(ta.InvalidParameter, match="sampling"):
        ta.noisy_sgd(1, P, 3, sampling="uniform")

def test_shuffled_batches_claim_no_amplification():
    # 30 epochs of ceil(50000/512) = 98 batches: T = 2930 steps start 30 epochs
    f = ta.noisy_sgd(1.0, dataset_size=50000, batch_size=512, epochs=30, sampling="shuffle")
    assert f == G(sp.sqrt(30))
    assert ta.noisy_sgd(2, R(1, 10), 25, sampling="shuffle") == G(sp.sqrt(3) / 2)
    assert ta.noisy_sgd(2, R(1, 10), 25, sampling="shuffle", neighbours="replace_one") == \
        G(sp.sqrt(3))
    # looser than Poisson accounting of the same run (which claims amplification)
    pois = ta.noisy_sgd(1.0, dataset_size=50000, batch_size=512, epochs=30, sampling="poisson")
    assert ta.epsilon(f, D5, dps=6).lo > ta.epsilon(pois, D5, dps=6).hi

def _mixture_delta(ws_p, ms_p, ws_q, ms_q, eps):
    """int (q - e^eps p)_+ for one-dimensional Gaussian mixtures (unit variance), by mpmath
    quadrature between the sign changes of q - e^eps p found on a fine scan."""
    with mpmath.workdps(20):
        E = mpmath.exp(eps)
        def dens(ws, ms, x):
            return sum(w * mpmath.npdf(x, m) for w, m in zip(ws, ms, strict=True))
        h = lambda x: dens(ws_q, ms_q, x) - E * dens(ws_p, ms_p, x)  # noqa: E731
        xs = [mpmath.mpf(k) / 8 for k in range(-96, 97)]
        cuts = [mpmath.findroot(h, (a, b), solver="bisect")
                for a, b in zip(xs, xs[1:], strict=False) if h(a) * h(b) < 0]
        pts = [-mpmath.inf] + cuts + [mpmath.inf]
        total = mpmath.mpf(0)
        for a, b in zip(pts, pts[1:], strict=False):
            mid = (max(a, -20) + min(b, 20)) / 2
            if h(mid) > 0:
                total += mpmath.quad(h, [a, b] if mpmath.isfinite(a) and mpmath.isfinite(b)
                                     else [a, mid, b])
        return total

@pytest.mark.parametrize("g,x", [((1, 1, 1), -1), ((1, -1, 1), -1), ((0, 1, -1), 1)])
def test_fixed_size_add_remove_bound_is_sound(g, x):
    """n = 3 records with clipped scalar gradients g, batch size 1, sigma = 1: the exact pair
    P_D = (1/3) sum N(g_i, 1), P_D' = (1/4)(sum N(g_i, 1) + N(x, 1)) against the bound
    AddRemove(Mix(G(2), 1/3)), through delta(eps) in both directions."""
    bound = ta.noisy_sgd(1, R(1, 3), 1, sampling="fixed_size", neighbours="add_remove")
    wp, wq = [R(1, 3)] * 3, [R(1, 4)] * 4
    for eps in (R(1, 10), R(1, 2), 1, 2):
        d = ta.delta(bound, eps, dps=10)
        exact = max(_mixture_delta(wp, g, wq, g + (x,), eps),
                    _mixture_delta(wq, g + (x,), wp, g, eps))
        assert exact <= d.hi

def test_two_phases_compose_the_directions_together():
    a = ta.noisy_sgd(1, P, 300, sampling="poisson")
    b = ta.noisy_sgd(2, P, 300, sampling="poisson")
    ab = a @ b
    assert isinstance(ab, AddRemove)
    assert ab == AddRemove(Mix(G(1), P) ** 300 @ Mix(G(R(1, 2)), P) ** 300)
    # the same as the hull of the product built by hand, and tighter than the product of hulls
    e = ta.epsilon(ab, D5, dps=8)
    assert overlap(e, ta.epsilon(SymmetricHull(Mix(G(1), P) ** 300 @ Mix(G(R(1, 2)), P) ** 300),
                                 D5, dps=8))
    # two identical phases of T steps are one phase of 2T steps
    t2 = ta.noisy_sgd(1, P, 300, sampling="poisson") @ ta.noisy_sgd(1, P, 300, sampling="poisson")
    assert overlap(ta.epsilon(t2, D5, dps=8), ta.epsilon(ta.noisy_sgd(1, P, 600,
                                                                       sampling="poisson"),
                                                          D5, dps=8))
    # a symmetric factor (the Gaussian mechanism) joins both directions
    c = ab @ ta.gaussian_mechanism(1, 10)
    assert isinstance(c, AddRemove) and G(R(1, 10)) in c.arg.factors
    assert (ta.gaussian_mechanism(1, 10) @ ab) == c
    assert a ** 2 == AddRemove((Mix(G(1), P) ** 300) ** 2)
    # built on purpose, the product of hulls stays that (looser) product
    loose = SymmetricHull(Mix(G(1), P) ** 3) @ SymmetricHull(Mix(G(2), P) ** 3)
    assert isinstance(loose, ta.Tensor)

def test_two_phases_against_dp_accounting():
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant as pa

    acc = pa.PLDAccountant(value_discretization_interval=1e-4)
    for sigma in (1.0, 2.0):
        ev = dpa.PoissonSampledDpEvent(float(P), dpa.GaussianDpEvent(sigma))
        acc.compose(ev, 1000)
    ref = acc.get_epsilon(1e-5)
    f = ta.noisy_sgd(1, P, 1000, sampling="poisson") @ ta.noisy_sgd(2, P, 1000,
                                                                    sampling="poisson")
    e = ta.epsilon(f, D5, dps=8)
    assert e.lo <= ref <= e.hi * (1 + 1e-4)  # dp_accounting's grid value is pessimistic

def test_calibration_round_trip():
    build = lambda s: ta.noisy_sgd(s, P, 300, sampling="poisson")  # noqa: E731
    c = ta.calibrate(build, epsilon=1, delta=D5)
    assert ta.delta(build(c.value), 1, dps=10).hi <= D5
    assert ta.delta(build(c.value * R(999, 1000)), 1, dps=10).lo > D5
    assert c.other < c.value and (c.value - c.other) / c.value <= R(1, 10**4)
    # steps: the largest integer that still meets the target
    s = ta.calibrate(lambda T: ta.noisy_sgd(1, P, T, sampling="poisson"), epsilon=1,
                     delta=D5, integer=True, start=10)
    assert ta.delta(ta.noisy_sgd(1, P, s.value, sampling="poisson"), 1, dps=10).hi <= D5
    assert ta.delta(ta.noisy_sgd(1, P, s.value + 1, sampling="poisson"), 1, dps=10).lo > D5
    # attacker targets on the Gaussian mechanism: power at FPR, and the advantage
    c = ta.calibrate(lambda s: ta.gaussian_mechanism(1, s), tpr=R(1, 100), fpr=R(1, 1000))
    assert ta.roc(G(1 / c.value), R(1, 1000)).hi <= R(1, 100)
    assert ta.roc(G(1 / (c.value * R(999, 1000))), R(1, 1000)).lo > R(1, 100)
    c = ta.calibrate(lambda s: ta.gaussian_mechanism(1, s), advantage=R(1, 10))
    assert ta.tv(G(1 / c.value), dps=20).hi <= R(1, 10)

def test_calibration_secant_against_closed_form_root():
    """G_mu meets (1, 1e-5)-DP up to the root mu* of Cor. 1's delta_mu(1) = 1e-5, found here by
    mpmath's findroot on the closed form: the calibrated value meets the target, the other end
    fails, the two bracket mu* within rel_tol, and the secant (Illinois, with the bracket
    collapsing around its root) needs far fewer probes than bisection's 37."""
    def d(mu, eps=1):
        return (mpmath.ncdf(-eps / mu + mu / 2)
                - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2))

    with mpmath.workdps(40):
        root = mpmath.findroot(lambda m: d(m) - mpmath.mpf(10) ** -5, 0.27)
    tol = R(1, 10**10)
    c = ta.calibrate(lambda m: G(m), epsilon=1, delta=D5, rel_tol=tol)
    assert c.value <= sp.Float(root, 40) <= c.other
    assert (c.other - c.value) <= tol * c.other
    assert c.probes <= 16


def test_calibration_bad_input():
    with pytest.raises(ta.InvalidParameter, match="target"):
        ta.calibrate(lambda s: G(s), epsilon=1)
    with pytest.raises(ta.InvalidParameter, match="build"):
        ta.calibrate(3, advantage=R(1, 2))

def test_whole_curves_from_one_composition():
    import numpy as np

    xs = np.linspace(0, 1, 201)
    for f in (ta.noisy_sgd(1, P, 300, sampling="poisson"), G(1) @ ta.Laplace(2)):
        lo, hi = ta.curve(f, xs, bounds=True)
        mid = f.curve(xs)
        assert np.all(lo <= mid) and np.all(mid <= hi) and np.all(np.diff(mid) <= 1e-12)
        for i in (0, 3, 50, 120, 199, 200):  # every enclosure meets the per-point one
            v = ta.evaluate(f, float(xs[i]), dps=10)
            assert lo[i] <= float(v.hi) and float(v.lo) <= hi[i]
        assert np.max(hi - lo) < 5e-4  # one grid for all levels: plot-grade widths everywhere

def test_attack_risk_metrics():
    import mpmath
    from precision import close
    # Bayes risk of G_1 against a direct minimisation of (1 - pi) alpha + pi G_1(alpha)
    for pi in (R(1, 2), R(1, 10), R(9, 10)):
        with mpmath.workdps(40):
            P = mpmath.mpf(pi.p) / pi.q
            z = mpmath.findroot(lambda z, P=P: -(1 - P) * mpmath.npdf(z) + P * mpmath.npdf(z - 1),
                                0.5)
            ref = (1 - P) * mpmath.ncdf(-z) + P * mpmath.ncdf(z - 1)
        assert close(ta.bayes_risk(G(1), pi, dps=20), ref, 18)
    # a finite pair: the best test is a Neyman-Pearson set; brute force over the four sets
    D = ta.Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 6), R(1, 3), R(1, 2)])
    cands = [(0, 1), (R(1, 6), R(1, 2)), (R(1, 2), R(1, 6)), (1, 0)]  # (alpha, beta)
    ref = min((1 - R(1, 3)) * a + R(1, 3) * b for a, b in cands)
    assert close(ta.bayes_risk(D, R(1, 3)), ref, 28)
    # advantage = TV = 2 Phi(mu/2) - 1 for G_mu (Dong, Roth & Su, Sec. 2.2)
    assert close(ta.advantage(G(1)), 2 * ta.Phi(R(1, 2)) - 1, 28)


# -- the default sampling scheme and the labels of the constructors -----------------------------
MNIST = dict(dataset_size=60000, batch_size=256, epochs=60)


def test_poisson_is_the_default_and_the_gdp_papers_scheme_one_keyword_away():
    f = ta.noisy_sgd(1.1, **MNIST)
    T = math.ceil(60 * 60000 / 256)  # 14062.5 batches: the started last one runs
    assert T == 14063
    assert f == AddRemove(Mix(G(1 / R(*(1.1).as_integer_ratio())), R(256, 60000)) ** T)
    assert f == ta.noisy_sgd(1.1, **MNIST, sampling="poisson")
    fixed = ta.noisy_sgd(1.1, **MNIST, sampling="gdp_paper")
    assert fixed == ta.noisy_sgd(1.1, **MNIST, sampling="fixed_size")
    assert fixed == ta.C(R(256, 60000), G(1 / R(*(1.1).as_integer_ratio()))) ** T
    assert fixed != f


def test_default_epsilon_is_what_poisson_accountants_give():
    """sigma 1.1, q = 256/60000, 60 epochs, delta 1e-5: Poisson DP-SGD. Printed references:
    dp_accounting's PLD accountant at its fine discretisation 1e-5, pessimistic, 2.3816906
    (benchmarks/RESULTS_peers.md), an upper bound of the truth; the GDP paper's fixed-size
    scheme gives a larger epsilon (about 3.07) and must not be what the default answers."""
    e = ta.epsilon(ta.noisy_sgd(1.1, **MNIST), D5, dps=8)
    assert e.lo <= 2.3816906 and e.hi >= 2.3816906 - 1e-3 * 2.3816906
    assert e.hi < 2.5


def test_default_epsilon_against_dp_accounting():
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dpa.PoissonSampledDpEvent(256 / 60000, dpa.GaussianDpEvent(1.1)), 14063)
    theirs = acc.get_epsilon(1e-5)  # pessimistic: above the truth by its discretisation
    e = ta.epsilon(ta.noisy_sgd(1.1, **MNIST), D5, dps=8)
    assert e.lo <= theirs and theirs - e.hi < 1e-3


def test_mechanisms_carry_a_label_outside_their_value():
    from tradeoff_algebra.core.labels import label_of, labelled

    f = ta.noisy_sgd(1.1, **MNIST)
    assert label_of(f) == "DP-SGD, σ = 1.1, q = 256/60000, T = 14063, Poisson"
    assert repr(f).endswith("  # DP-SGD, σ = 1.1, q = 256/60000, T = 14063, Poisson")
    assert "Poisson" in f._repr_latex_()
    assert str(f) == repr(f).split("  # ")[0] == ta.text(f)  # str: the expression alone
    fixed = ta.noisy_sgd(1.1, R(256, 60000), 14063, sampling="gdp_paper")
    assert label_of(fixed).endswith("T = 14063, fixed-size batches (GDP paper)")
    assert "replace-one" in label_of(ta.noisy_sgd(1, P, 3, neighbours="replace_one"))
    assert label_of(ta.noisy_sgd(2, R(1, 10), 25, "shuffle")).endswith("shuffled batches")
    g = ta.gaussian_mechanism(1, 2)
    assert label_of(g) == "Gaussian mechanism, Δ = 1, σ = 2"
    assert label_of(ta.laplace_mechanism(1, 0.5)) == "Laplace mechanism, Δ = 1, b = 0.5"
    assert label_of(ta.discrete_gaussian(1, 2)) == "discrete Gaussian mechanism, Δ = 1, σ = 2"
    assert label_of(ta.shuffle(1, 10)) == "shuffle model, ε₀ = 1, n = 10"
    assert label_of(ta.shuffle(1, 10, bound="wang")).endswith("Wang et al. Thm. 4.2 bound")
    # equality, hashing and every operation see the value only
    plain = G(R(1, 2))
    assert g == plain and hash(g) == hash(plain) and {g: 1}[plain] == 1
    assert label_of(plain) is None  # the plain node was not changed
    assert label_of(g @ g) is None and label_of(g.func(*g.args)) is None
    assert ta.epsilon(g, D5) == ta.epsilon(plain, D5)
    again = labelled(f, "run 7")
    assert again == f and label_of(again) == "run 7" and label_of(f).startswith("DP-SGD")
    with pytest.raises(ta.InvalidParameter, match="text"):
        labelled(f, "")
    with pytest.raises(ta.InvalidParameter, match="node"):
        labelled(3, "three")
