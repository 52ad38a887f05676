"""The verdicts of Dwork's claims about the objects around a mechanism (used by
``claims_dwork``): the randomized-response estimator and its error, the Laplace density and its
Neyman-Pearson tests, sensitivities of counting, histogram, distance and gradient queries
(exact enumeration, ``analysis.sensitivity``), the order of advanced composition, the Gaussian
mechanism's privacy loss from its densities, truncated Laplace and sinh-normal noise, and the
errors of the noisy histograms (``analysis.noise``, ``analysis.estimators``).
"""

from __future__ import annotations

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.analysis import estimators as est
from tradeoff_algebra.analysis import noise
from tradeoff_algebra.analysis import sensitivity as sens

from . import mechanism_checks as mc

R = sp.Rational
L = sp.log
K = sp.Symbol("k", positive=True)
A = sp.Symbol("a", positive=True)  # a Renyi order
eps, mu, RHO = sp.symbols("eps mu rho", positive=True)


_P = sp.Symbol("p", positive=True)
_RR_DATA = ((1, 0), (1, 1), (4, 1), (5, 3), (6, 6))  # (n, number of ones)


def _rr_moments(n, ones):
    """Mean and variance of the estimator by exact sums over the law of T (symbolic p)."""
    law = est.rr_count_law(ones, n, _P)
    return est.law_moments(law, lambda t_: est.rr_fraction_estimate(t_, n, _P))


_N = sp.Symbol("n", positive=True)


def _rr_error():
    """Var = (p/2)(1 - p/2)/((1-p)^2 n) for every dataset (exact sums at the instances); at
    p = 2/(1 + e^eps) it is e^eps/((e^eps - 1)^2 n) = 1/(4 sinh^2(eps/2) n), and eps sqrt(n)
    times the standard deviation, eps e^{eps/2}/(e^eps - 1) = (eps/2)/sinh(eps/2), lies in
    [19/20, 1] at eps = 1/100, 1/10, 1/2, 1 (over a box, interval arithmetic cannot close the
    upper bound near 0, where the function tends to 1)."""
    var_eps = est.rr_fraction_variance(_N, 2 / (1 + sp.exp(eps)))
    scaled = eps * sp.exp(eps / 2) / (sp.exp(eps) - 1)
    return ([ta.verify(_rr_moments(n, k)[1], "==", est.rr_fraction_variance(n, _P))
             for n, k in _RR_DATA]
            + [ta.verify(var_eps, "==", sp.exp(eps) / ((sp.exp(eps) - 1)**2 * _N))]
            + [v for e in (R(1, 100), R(1, 10), R(1, 2), 1)
               for v in (ta.verify(scaled.subs(eps, e), ">=", R(19, 20)),
                         ta.verify(scaled.subs(eps, e), "<=", 1))])


_b, _x = sp.Symbol("b", positive=True), sp.Symbol("x", real=True)


def _laplace_density():
    """The density integrates to 1 (symbolic b); the Neyman-Pearson tests of Lap(b) against
    Delta + Lap(b) reject above c (the likelihood ratio increases in x): alpha(c) and beta(c)
    by SymPy integration of the density lie on the library's laplace_mechanism(Delta, b)."""
    out = [ta.verify(sp.integrate(noise.laplace_density(_x, _b), (_x, -sp.oo, sp.oo)), "==", 1)]
    for D, bb, c in ((1, 1, R(1, 2)), (2, R(1, 2), 1), (R(3, 2), 2, R(1, 3))):
        al = sp.integrate(noise.laplace_density(_x, bb), (_x, c, sp.oo))
        be = sp.integrate(noise.laplace_density(_x - D, bb), (_x, -sp.oo, c))
        out.append(ta.verify(ta.laplace_mechanism(D, bb)(al), "==", be))
    return out


_U3 = (0, 1, 2)


def _counting():
    q = sens.counting_query(lambda u: u >= 1)
    return ([ta.verify(sens.sensitivity(q, _U3, 4, p=1, adjacency=adj)[0], "==", 1)
             for adj in ("add_remove", "replace")]
            + [ta.verify(2 * sp.integrate(_x * noise.laplace_density(_x, 1 / eps), (_x, 0, sp.oo)),
                         "==", 1 / eps)])


_C, _DPR = sp.symbols("c deltaprime", positive=True)


def _adv_order():
    """eps' of Eq. (4.2) over sqrt(k) eps tends to sqrt(2 ln(1/delta')) + c when eps = c/sqrt(k)
    (order sqrt(k)); at a fixed eps, eps'/k tends to eps(e^eps - 1) > 0 (linear)."""
    def eps_p(e):
        return sp.sqrt(2 * K * L(1 / _DPR)) * e + K * e * (sp.exp(e) - 1)

    return [ta.verify(sp.limit(eps_p(_C / sp.sqrt(K)) / _C, K, sp.oo), "==",
                      sp.sqrt(2 * L(1 / _DPR)) + _C),
            ta.verify(sp.limit(eps_p(eps) / K, K, sp.oo), "==", eps * (sp.exp(eps) - 1))]


_DL = sp.Symbol("delta", positive=True)


def _ptr():
    targets = ([(0, 0)], [(1,), (2, 2, 2)], [(), (0, 1, 2)])
    return ([ta.verify(sens.sensitivity(sens.distance_to_set(t), _U3, 3)[0], "==", 1)
             for t in targets]
            + [ta.verify(noise.laplace_upper_tail(L(1 / _DL) / eps, 1 / eps), "==", _DL / 2)])


def _gm_loss():
    """The loss log(p_0(O)/p_1(O)) of O ~ N(0, sigma^2) against N(Delta, sigma^2) from the
    densities (the computation shared with Kaissis et al., Eq. (8)), at Delta = mu, sigma = 1:
    its MGF is that of N(mu^2/2, mu^2) (the law of the library's G_mu loss under Q, the pair
    N(mu, 1) against N(0, 1) being the same up to a reflection)."""
    shift, s = sp.symbols("Delta sigma", positive=True)
    _, mgf, normal = mc.gaussian_loss_mgf(shift, s)
    at = {shift: mu, s: 1}
    return ta.verify(mgf.subs(at), "==", normal.subs(at))


_KK = sp.Symbol("k", positive=True)


def _loss_tail():
    """P(L > E L + k mu) for L ~ N(mu^2/2, mu^2) by SymPy integration is Phi(-k), and
    e^{-k^2/2}/(2 sqrt(2 pi) (k + 1)) <= Phi(-k) <= e^{-k^2/2}/2 on [0, 10]."""
    o_ = sp.Symbol("o", real=True)
    dens = noise.gaussian_density(o_ - mu**2 / 2, mu)
    tail = sp.integrate(dens, (o_, mu**2 / 2 + _KK * mu, sp.oo), conds="none")
    return [ta.verify(tail.rewrite(sp.erfc), "==", ta.Phi(-_KK).rewrite(sp.erfc)),
            ta.verify(ta.Phi(-_KK), "<=", sp.exp(-_KK**2 / 2) / 2, over={_KK: (0, 10)}),
            ta.verify(ta.Phi(-_KK), ">=",
                      sp.exp(-_KK**2 / 2) / (2 * sp.sqrt(2 * sp.pi) * (_KK + 1)),
                      over={_KK: (0, 10)})]


#: Remark 4.6 at Delta = 1 (delta depends on Delta/b and B/b only): scale 1/eps, support
#: +-ln(1/delta)/eps; delta(eps)/delta simplifies to (e^eps - 1)/(2 (1 - delta)).
_TLAP_RATIO = sp.simplify(noise.truncated_laplace_delta(1, 1 / eps, L(1 / _DL) / eps) / _DL)


_TLAP_BOX = {eps: (R(1, 100), 1), _DL: (R(1, 10**12), R(1, 10))}
_T, _A = sp.symbols("t A", positive=True)


def _sinh_normal():
    """The tail 2 Phi(-(A/sigma) sinh(t/A)) is 1 at t = 0 and its derivative is -2 times the
    density of Eq. (4.7) (change of variables): symbolic. The doubly exponential bound on
    t-ranges at (A, sigma) = (2, 1), (1/2, 3/2)."""
    sg = sp.Symbol("sigma", positive=True)
    tail = noise.sinh_normal_tail(_T, _A, sg)
    out = [ta.verify(tail.subs(_T, 0), "==", 1),
           ta.verify((sp.diff(tail, _T) + 2 * noise.sinh_normal_density(_T, _A, sg))
                     .rewrite(sp.erfc), "==", 0)]
    for a_, s_, top in ((2, 1, 6), (R(1, 2), R(3, 2), 2)):
        out.append(ta.verify(noise.sinh_normal_tail(_T, a_, s_), "<=",
                             noise.sinh_normal_tail_bound(_T, a_, s_),
                             over={_T: (R(1, 4), top)}))
    return out


_HIST = sens.histogram_query([lambda u, c=c: u == c for c in _U3])
_BETA = sp.Symbol("beta", positive=True)


def _hist_pure():
    """E max of k |Lap(1/eps)| is H_k/eps (SymPy integral of P[max > t] at k = 3, symbolic
    eps); ln k <= H_k <= 1 + ln k; P[max >= (ln k + ln(1/beta))/eps] <= k e^{-...} = beta."""
    t_ = sp.Symbol("t", positive=True)
    surv = 1 - (1 - noise.laplace_tail(t_, 1 / eps)) ** 3
    out = [ta.verify(sp.integrate(surv, (t_, 0, sp.oo)), "==",
                     noise.laplace_max_abs_mean(3, 1 / eps))]
    for k in (2, 10, 100, 1000):
        h = noise.laplace_max_abs_mean(k, 1)
        out += [ta.verify(h, ">=", L(k)), ta.verify(h, "<=", 1 + L(k))]
    out.append(ta.verify(K * noise.laplace_tail((L(K) + L(1 / _BETA)) / eps, 1 / eps), "==",
                         _BETA))
    return out


def _hist_zcdp():
    """sigma = 1/sqrt(2 rho) per cell: D_a = a rho (L2-sensitivity 1, exact); the bounds of
    analysis.noise on E max |N(0, sigma^2)| over sqrt(ln k/rho) (rho cancels) lie in
    [2/5, sqrt 2] for k in [2, 10^4] (upper: [2, 10^6])."""
    s_ = 1 / sp.sqrt(2 * RHO)
    scale = sp.sqrt(L(_KK) / RHO)
    up = sp.simplify(noise.gaussian_max_abs_upper(_KK, s_) / scale)
    lo = sp.simplify(noise.gaussian_max_abs_lower(_KK, s_) / scale)
    return [ta.verify(sens.sensitivity(_HIST, _U3, 4, p=2)[0], "==", 1),
            ta.verify(ta.renyi(ta.gaussian_mechanism(1, s_), A), "==", A * RHO),
            ta.verify(up, "<=", sp.sqrt(2), over={_KK: (2, 10**6)}),
            ta.verify(lo, ">=", R(2, 5), over={_KK: (2, 10**4)})]


_G5 = sp.symbols("g1:6", real=True)


def _sens_factor_n():
    """Per-example values in {-L, 0, L} (|grad l| <= L, L = 3/2), replace-one: the sum has
    sensitivity 2L, n times the value at the sampled position 2nL."""
    Lc = R(3, 2)
    vals = {0: -Lc, 1: 0, 2: Lc}
    out = []
    for n in (3, 4):
        full = sens.sensitivity(lambda x_: sum(vals[u] for u in x_), _U3, n,
                                adjacency="replace")[0]
        one = sens.sensitivity(lambda x_, n=n: n * vals[x_[0]], _U3, n, adjacency="replace")[0]
        out += [ta.verify(full, "==", 2 * Lc), ta.verify(one, "==", n * full)]
    return out


_KAP, _LN = sp.symbols("kappa ell", positive=True)  # ell = ln(1/delta)


def _shuffled_rr_error():
    """The debiased count n * estimate has variance n^2 Var = n (p/2)(1 - p/2)/(1 - p)^2 (exact
    sums at n = 6); with p = kappa ell/(n eps^2) its ratio to kappa ell/eps^2 is
    (1 - p/2)/(2 (1 - p)^2) <= 3/2 for p <= 1/2."""
    n6 = 6
    law = est.rr_count_law(2, n6, _P)
    count_var = est.law_moments(law, lambda t_: n6 * est.rr_fraction_estimate(t_, n6, _P))[1]
    var_n = _N**2 * est.rr_fraction_variance(_N, _P)
    ratio = sp.simplify(var_n.subs(_N, _KAP * _LN / (_P * eps**2)) / (_KAP * _LN / eps**2))
    return [ta.verify(count_var, "==", var_n.subs(_N, n6)),
            ta.verify(ratio, "==", (1 - _P / 2) / (2 * (1 - _P)**2)),
            ta.verify((1 - _P / 2) / (2 * (1 - _P)**2), "<=", R(3, 2), over={_P: (0, R(1, 2))})]
