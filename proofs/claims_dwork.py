"""Claims of C. Dwork, "Differential privacy: getting more for less" (the whole paper,
Sections 1-6 and footnotes 1-5): pure and approximate DP, randomized response, the Laplace and
Gaussian mechanisms, simple, advanced and group composition, the privacy loss random
variable, zCDP, tCDP and RDP, amplification by subsampling and shuffling, and privacy
amplification by iteration. The claims follow the audit ``audit/dwork.md``. Claims it marks
as already registered (Remark 4.2 on the tight homogeneous bounds of [27], the Gaussian
instance of Eq. (6.3)) are registered elsewhere.

Entries with nothing to compute, not registered:

* Sec. 3 text: the data are called u_i and then x_i (the same thing).
* Prop. 6.1 and Sec. 6: "K in R^d" for K a subset of R^d.
* Eq. (6.8): Z_{t+1} is drawn from zeta_t, an index offset from Psi_{t+1} (no effect).
"""

from __future__ import annotations

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.analysis import sensitivity as sens

from . import dwork_iteration as di
from . import dwork_shuffle as dsh
from . import mechanism_checks as mc
from . import mechanism_objects as mo
from . import np_algebra as npa
from ._claims import misprint, stated
from .dwork_mechanisms import (
    _G5,
    _HIST,
    _RR_DATA,
    _TLAP_BOX,
    _TLAP_RATIO,
    _U3,
    _adv_order,
    _counting,
    _gm_loss,
    _hist_pure,
    _hist_zcdp,
    _laplace_density,
    _loss_tail,
    _ptr,
    _rr_error,
    _rr_moments,
    _sens_factor_n,
    _shuffled_rr_error,
    _sinh_normal,
)
from .independent import kl_by_definition

PAPER = "Dwork"

R = sp.Rational
F = ta.Functional
eps, delta, dp, mu, p, q, e1, e2, d1, d2, Delta, sigma = sp.symbols(
    "eps delta dp mu p q e1 e2 d1 d2 Delta sigma", positive=True)


def _rr(e):
    """Randomized response with e = e^eps: P = (e, 1)/(1+e), Q = (1, e)/(1+e)."""
    e = sp.sympify(e)
    return ta.Discrete([e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)])


L = sp.log
K = sp.Symbol("k", positive=True)

# --- Section 1 ----------------------------------------------------------------------------

stated(PAPER, "Sec. 1 text",
       "for eps <= 1 the expected privacy loss (KL) of an eps-DP algorithm is at most eps^2: "
       "the largest, kl(f_{eps,0}) (the sharp form below), is at most eps^2 for every "
       "0 <= eps <= 1 (a certified cover of the box)",
       lambda: ta.verify(ta.kl(ta.EpsDelta(eps, 0)), "<=", eps**2, over={eps: (0, 1)}),
       crosscheck=kl_by_definition)

stated(PAPER, "Sec. 1 text (sharp form)",
       "the largest expected privacy loss of an eps-DP algorithm is "
       "eps*tanh(eps/2) = eps (e^eps - 1)/(e^eps + 1), 0 <= eps <= 10",
       lambda: ta.verify(ta.kl(ta.EpsDelta(eps, 0)), "==",
                         eps * (sp.exp(eps) - 1) / (sp.exp(eps) + 1), over={eps: (0, 10)}),
       crosscheck=kl_by_definition)

# --- Section 2 ----------------------------------------------------------------------------

stated(PAPER, "Sec. 2 text",
       "replace-one vs add/remove adjacency: at most a factor of two (eps-DP gives 2 eps-DP "
       "for a replace-one step), at e^eps = 3/2, 3, 8",
       lambda: [ta.verify(ta.Group(ta.EpsDelta(L(e), 0), 2), ">=", ta.EpsDelta(2 * L(e), 0))
                for e in (R(3, 2), 3, 8)])

stated(PAPER, "Sec. 2 text",
       "useful DP algorithms are randomized: a deterministic algorithm with different "
       "outputs is not (eps, 1/2)-DP for any finite eps",
       lambda: ta.verify(ta.epsilon(ta.Discrete([1, 0], [0, 1]), R(1, 2)), "==", sp.oo))

stated(PAPER, "Def. 2.1, Eq. (2.1)",
       "pure DP is symmetric in x and y: f_{eps,0} is its own inverse, 0 <= eps <= 5",
       lambda: ta.verify(ta.Inverse(ta.EpsDelta(eps, 0)), "==", ta.EpsDelta(eps, 0),
                         over={eps: (0, 5)}))

stated(PAPER, "Sec. 2 text",
       "composition of eps- and eps'-DP algorithms is (eps + eps')-DP, for all eps, eps' >= 0 "
       "(and at (eps, eps') = (1, 2), (3/2, 5))",
       lambda: [ta.verify(ta.EpsDelta(a, 0) @ ta.EpsDelta(b, 0), ">=",
                          ta.EpsDelta(a + b, 0)) for a, b in ((1, 2), (R(3, 2), R(5, 1)))]
       + [ta.verify(ta.EpsDelta(eps, 0) @ ta.EpsDelta(e2, 0), ">=", ta.EpsDelta(eps + e2, 0),
                    over={eps: (0, sp.oo), e2: (0, sp.oo)})],
       crosscheck=npa.composition_np)

stated(PAPER, "Def. 2.2, Eq. (2.2)",
       "an event possible under A(x) but impossible under A(y) has infinite privacy loss: "
       "A(x) = (1/10, 9/10), A(y) = (0, 1) is not (eps, 1/20)-DP for any finite eps",
       lambda: ta.verify(ta.epsilon(ta.Discrete([0, 1], [R(1, 10), R(9, 10)]), R(1, 20)),
                         "==", sp.oo))

stated(PAPER, "Sec. 2 text; Remark 4.5",
       "an eps-DP algorithm is k eps-DP for groups of size k, k = 2, 3, 4 at e^eps = 3/2, 3, 8",
       lambda: [ta.verify(ta.Group(ta.EpsDelta(L(e), 0), k), ">=", ta.EpsDelta(k * L(e), 0))
                for k in (2, 3, 4) for e in (R(3, 2), 3, 8)])

# --- Section 3 ----------------------------------------------------------------------------


def _rr_p(pp):
    """RR(u, p): output Ber(1/2) with probability p, else u."""
    return ta.Discrete([1 - pp / 2, pp / 2], [pp / 2, 1 - pp / 2])


stated(PAPER, "Sec. 3 text",
       "randomized response RR(u, p) is eps-DP iff p >= 2/(1 + e^eps): at p = 2/(1 + e^eps) "
       "it is exactly f_{eps,0} (eps = 1/10, 1, 3), and at p = 1/10, 1/2, 9/10 exactly "
       "f_{log((2-p)/p),0}",
       lambda: [ta.verify(_rr_p(2 / (1 + sp.exp(e))), "==", ta.EpsDelta(e, 0))
                for e in (R(1, 10), 1, 3)]
       + [ta.verify(_rr_p(pp), "==", ta.EpsDelta(L((2 - pp) / pp), 0))
          for pp in (R(1, 10), R(1, 2), R(9, 10))])


stated(PAPER, "Sec. 3 text",
       "the randomized-response estimator (T - pn/2)/((1-p)n) of the fraction of ones is "
       "unbiased: its exact mean (a sum over the law of T, symbolic p) is the fraction, at "
       "(n, ones) = (1, 0), (1, 1), (4, 1), (5, 3), (6, 6)",
       lambda: [ta.verify(_rr_moments(n, k)[0], "==", R(k, n)) for n, k in _RR_DATA])


stated(PAPER, "Sec. 3 text",
       "RR's error (root-mean-square) is Theta(1/(eps sqrt n)), Theta(sqrt(n)/eps) for a "
       "count: at p = 2/(1 + e^eps) the estimator's standard deviation is "
       "1/(2 sinh(eps/2) sqrt n) for every dataset (variance by exact sums at (n, ones) = "
       "(1, 0), (1, 1), (4, 1), (5, 3), (6, 6), symbolic p), and eps sqrt(n) times it, "
       "(eps/2)/sinh(eps/2), lies in [19/20, 1] at eps = 1/100, 1/10, 1/2, 1 (for large eps "
       "it decays like e^{-eps/2})", _rr_error, instances=True)


stated(PAPER, "Sec. 3 text",
       "Lap(b) has density (1/(2b)) e^{-|x|/b}: it integrates to 1 (symbolic b), and the "
       "threshold tests of Lap(b) against Delta + Lap(b), integrated from this density, lie on "
       "the library's Laplace trade-off function, at (Delta, b, c) = (1, 1, 1/2), (2, 1/2, 1), "
       "(3/2, 2, 1/3)", _laplace_density)

stated(PAPER, "Thm. 3.1, Eq. (3.1)",
       "the Laplace mechanism f(x) + Lap(Delta_1/eps)^d is eps-DP, for d = 1 and "
       "eps in [1/100, 10]",
       lambda: ta.verify(ta.laplace_mechanism(Delta, Delta / eps), ">=", ta.EpsDelta(eps, 0),
                         over={eps: (R(1, 100), 10)}))


stated(PAPER, "Sec. 3 text",
       "a counting query has L1-sensitivity 1 (exact enumeration at universe {0, 1, 2}, "
       "datasets of size <= 4 (add/remove) and = 4 (replace-one)); the Laplace mechanism's "
       "expected error is E|Lap(1/eps)| = 1/eps (SymPy integral of the density, every eps)",
       _counting, instances=True)

stated(PAPER, "Sec. 3 text",
       "Gaussian noise gives no pure DP: epsilon(G_mu, 0) = oo at mu = 1/100, 1, 10",
       lambda: [ta.verify(ta.epsilon(ta.G(m), 0), "==", sp.oo) for m in (R(1, 100), 1, 10)])

# --- Section 4 ----------------------------------------------------------------------------

stated(PAPER, "Def. 4.1, Eq. (4.1)",
       "delta = 0 recovers pure DP: f_{eps,0} is eps-DP (delta(f_{eps,0}, eps) = 0, "
       "0 <= eps <= 5) and no smaller eps works (delta(f_{eps,0}, 0.99 eps) >= 1e-5 at "
       "eps = 1/10, 1, 5)",
       lambda: [ta.verify(ta.delta(ta.EpsDelta(eps, 0), eps), "==", 0, over={eps: (0, 5)})]
       + [ta.verify(ta.delta(ta.EpsDelta(e, 0), R(99, 100) * e), ">=", R(1, 10**5))
          for e in (R(1, 10), 1, 5)])

stated(PAPER, "Sec. 4.1 text",
       "simple composition: the epsilons and the deltas add up, at (e^eps, delta) = "
       "(2, 1/10) x (3, 1/20) and (5, 1/3) x (1, 1/4)",
       lambda: [ta.verify(ta.EpsDelta(L(2), R(1, 10)) @ ta.EpsDelta(L(3), R(1, 20)), ">=",
                          ta.EpsDelta(L(6), R(3, 20))),
                ta.verify(ta.EpsDelta(L(5), R(1, 3)) @ ta.EpsDelta(0, R(1, 4)), ">=",
                          ta.EpsDelta(L(5), R(7, 12)))],
       crosscheck=npa.composition_np)

def _adv(e, k, d, dpp, half=1):
    """Eq. (4.2): delta of the k-fold composition of f_{e,d} at eps' against k d + dpp."""
    eps_p = sp.sqrt(2 * k * L(1 / dpp)) * e + k * e * (sp.exp(e) - 1) / half
    return ta.verify(ta.delta(ta.EpsDelta(e, d)**k, eps_p), "<=", k * d + dpp)


_X, _DD, _DP = sp.symbols("x delta deltap", positive=True)


def _adv_box(k=10):
    """Eq. (4.2) on a box (e^eps = x in [2, 3], delta in [0, 1/100], delta' in [1/100, 1/10],
    k = 10): a certified cover, each cell bounded by delta of the composition at the cell's
    largest (eps, delta) and smallest eps' (delta_f(eps') non-increasing in f and in eps')."""
    e = L(_X)
    eps_p = sp.sqrt(2 * k * L(1 / _DP)) * e + k * e * (_X - 1)
    return ta.verify(ta.delta(ta.EpsDelta(e, _DD)**k, eps_p), "<=", k * _DD + _DP,
                     over={_X: (2, 3), _DD: (0, R(1, 100)), _DP: (R(1, 100), R(1, 10))})


stated(PAPER, "Thm. 4.1, Eq. (4.2)",
       "advanced composition: k-fold composition of (eps, delta)-DP is "
       "(sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1), k delta + delta')-DP, on the box "
       "k = 10, e^eps in [2, 3], delta in [0, 1/100], delta' in [1/100, 1/10] (a certified "
       "cover)", _adv_box)
stated(PAPER, "Thm. 4.1, Eq. (4.2)",
       "advanced composition: k-fold composition of (eps, delta)-DP is "
       "(sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1), k delta + delta')-DP, at "
       "(eps, k, delta, delta') = (1/10, 100, 1e-6, 1e-5), (1, 10, 1/100, 1/10), "
       "(1/10, 1000, 0, 1/2), (1/2, 30, 0, 1e-10)",
       lambda: [_adv(R(1, 10), 100, R(1, 10**6), R(1, 10**5)), _adv(1, 10, R(1, 100), R(1, 10)),
                _adv(R(1, 10), 1000, 0, R(1, 2)), _adv(R(1, 2), 30, 0, R(1, 10**10))])


stated(PAPER, "Sec. 4.1 text",
       "advanced composition is of order sqrt(k) in k, in the regime eps = c/sqrt(k) where it "
       "is used: eps'/(sqrt(k) eps) -> sqrt(2 ln(1/delta')) + c as k -> oo (symbolic c, "
       "delta'); at a fixed eps the second term of Eq. (4.2) makes it linear, "
       "eps'/k -> eps(e^eps - 1)", _adv_order)
stated(PAPER, "Remark 4.2",
       "the coefficient eps(e^eps - 1) can be halved, at (eps, k, delta') = (1/10, 1000, 1/2), "
       "(1/10, 100, 1e-5), (1, 10, 1/10)",
       lambda: [_adv(R(1, 10), 1000, 0, R(1, 2), 2), _adv(R(1, 10), 100, 0, R(1, 10**5), 2),
                _adv(1, 10, 0, R(1, 10), 2)])

misprint(PAPER, "Thm. 4.3",
         "N(0, c^2 (Delta_2/eps)^2 I_d) noise is (eps, delta)-DP whenever c^2 >= 2 ln(2/delta), "
         "with no restriction on eps",
         printed=lambda: ta.verify(
             ta.delta(ta.G(10 / sp.sqrt(2 * L(2 * 10**5))), 10), "<=", R(1, 10**5)),
         corrected=lambda: [ta.verify(ta.delta(ta.G(e / sp.sqrt(2 * L(2 / d))), e), "<=", d)
                            for e in (R(1, 10), 1) for d in (R(1, 10**5), R(1, 10))],
         correction="add the hypothesis eps <= 1; checked at eps = 1/10, 1 and "
                    "delta = 1e-5, 1/10")

misprint(PAPER, "Eq. (4.3)",
         "A(eps, x) = f(x) + (N(0, c^2 (Delta_2/eps)^2 I_d))^d: d independent d-dimensional "
         "draws",
         printed=dsh.eq43_printed,
         corrected=dsh.eq43_corrected,
         correction="one draw, f(x) + N(0, c^2 (Delta_2/eps)^2 I_d) (an independent "
                    "N(0, s^2) per coordinate, as the theorem's text says): its trade-off "
                    "function is G_{eps/c} for every shift of L2 norm Delta_2 (d = 2, 3, "
                    "symbolic); printed: d^2 coordinates for f(x) in R^d (d = 2, 3), and the "
                    "sum of the d draws, N(0, d s^2 I_d), gives G_{eps/(c sqrt d)}, not "
                    "G_{eps/c} (refuted at d = 2, 3 at (c, eps) = (1, 1), (2, 1/2))")

stated(PAPER, "Thm. 4.3, footnote 2",
       "the bound on c is not tight: c = sqrt(2 ln(2e5)) already gives (3/4, 1e-5)-DP "
       "at target eps = 1",
       lambda: ta.verify(ta.epsilon(ta.G(1 / sp.sqrt(2 * L(2 * 10**5))), R(1, 10**5)),
                         "<=", R(3, 4)))


stated(PAPER, "Sec. 4.1 text, footnote 3",
       "the Hamming distance to a set is a sensitivity-1 query (exact enumeration: universe "
       "{0, 1, 2}, datasets of size <= 3, add/remove, at three target sets); a false positive "
       "of the test dist + Lap(1/eps) > ln(1/delta)/eps at distance 0 has probability "
       "delta/2 <= delta (symbolic eps, delta)", _ptr, instances=True)

stated(PAPER, "Sec. 4.2 text",
       "releasing the whole dataset with probability 1e-6 is (0, 1e-6)-DP",
       lambda: ta.verify(ta.Discrete([R(1, 10**6), 0, 1 - R(1, 10**6)],
                                     [0, R(1, 10**6), 1 - R(1, 10**6)]), "==",
                         ta.EpsDelta(0, R(1, 10**6))))


stated(PAPER, "Sec. 4.2 text",
       "the Gaussian mechanism's privacy loss random variable is Gaussian: for O ~ N(0, 1) "
       "against N(mu, 1), L = log(p_0(O)/p_1(O)) from the densities has the moment generating "
       "function of N(mu^2/2, mu^2) (SymPy integration, symbolic mu and z; the library's "
       "loss law of G_mu agrees, cross-check)", _gm_loss,
       crosscheck=mc.gaussian_loss_law_check)
stated(PAPER, "Sec. 4.2 text (mean of the loss)",
       "the Gaussian mechanism's expected privacy loss is mu^2/2, 0 <= mu <= 5",
       lambda: ta.verify(ta.kl(ta.G(mu)), "==", mu**2 / 2, over={mu: (0, 5)}),
       crosscheck=kl_by_definition)


stated(PAPER, "Sec. 4.2 text",
       "the loss exceeds its expectation by k eps (eps = mu, its standard deviation) with "
       "probability Phi(-k), falling like e^{-k^2/2}: between e^{-k^2/2}/(2 sqrt(2 pi)(k + 1)) "
       "and e^{-k^2/2}/2 for k in [0, 10]", _loss_tail)

stated(PAPER, "Sec. 4.2 text",
       "eps_0 ~ eps/sqrt(T ln(1/delta)), delta_0 = delta/T: at T = 1000, eps = 1, "
       "delta = 1e-6 the composition is (3/2, 2e-6)-DP",
       lambda: ta.verify(ta.delta(ta.EpsDelta(1 / sp.sqrt(1000 * L(10**6)), R(1, 10**9))**1000,
                                  R(3, 2)), "<=", R(2, 10**6)))

# --- Renyi divergence, zCDP, tCDP and RDP (Defs. 4.2-4.5, Sec. 4.3, Thm. 4.4) ------------------
A = sp.Symbol("a", positive=True)          # a Renyi order
RHO, TT = sp.symbols("rho t", positive=True)
#: P = (1/5, 1/2, 3/10), Q = (2/5, 2/5, 1/5): a generic finite pair (the audit's example)
PQ3 = ta.Discrete([R(1, 5), R(1, 2), R(3, 10)], [R(2, 5), R(2, 5), R(1, 5)])
#: N(0, 2) against N(0, 1): D_a finite for a < 2 only (a tCDP pair that is not zCDP)
N21 = ta.NormalPair(0, sp.sqrt(2), 0, 1)


def _zcdp_sigma(T, d):
    """T Gaussian steps with sigma = 2 sqrt(T ln(1/delta)) (Delta = 1, target eps = 1): the
    zCDP route (Bun & Steinke, Prop. 3) against advanced composition (Thm. 4.1) of the per-step
    (eps_0, delta/(2T)) guarantee of Thm. 4.3 at the same sigma (delta' = delta/2)."""
    s = 2 * sp.sqrt(T * L(1 / d))
    z = ta.GDP(1 / s).to_zcdp()
    zT = ta.zCDP(T * z.rho)
    d0 = d / (2 * T)
    adv = ta.advanced_composition(sp.sqrt(2 * L(2 / d0)) / s, d0, T, d / 2)
    return [ta.verify(zT.epsilon(d, method="bun_steinke"), "<=", 1),
            ta.verify(adv.eps, ">=", 5)]


stated(PAPER, "Sec. 4.2 text",
       "zCDP removes the sqrt(log(1/delta)) factor from sigma: T Gaussian steps with "
       "sigma = 2 sqrt(T ln(1/delta)) Delta/eps are (eps, delta)-DP through zCDP "
       "(rho = T Delta^2/(2 sigma^2), eps = rho + 2 sqrt(rho ln(1/delta))), while advanced "
       "composition of the per-step Thm. 4.3 guarantee at the same sigma gives eps >= 5 "
       "(eps = 1, (T, delta) = (1000, 1e-6), (10^4, 1e-10))",
       lambda: _zcdp_sigma(1000, R(1, 10**6)) + _zcdp_sigma(10**4, R(1, 10**10)))


def _renyi_def():
    P, Q = [R(1, 5), R(1, 2), R(3, 10)], [R(2, 5), R(2, 5), R(1, 5)]
    eq44 = L(sum(pp**A * qq**(1 - A) for pp, qq in zip(P, Q, strict=True))) / (A - 1)
    out = [ta.verify(ta.renyi(PQ3, A), "==", eq44),
           ta.verify(sp.limit(ta.renyi(PQ3, A), A, 1), "==", ta.kl(PQ3))]
    for f in (ta.EpsDelta(1, 0), ta.Laplace(R(3, 2))):
        out += [ta.verify(sp.limit(ta.renyi(f, A), A, 1), "==", ta.kl(f)),
                ta.verify(sp.limit(ta.renyi(f, A), A, sp.oo), "==", ta.renyi(f, sp.oo))]
    return out


stated(PAPER, "Def. 4.2, Eq. (4.4)",
       "Renyi divergence D_a = 1/(a-1) ln sum p^a q^{1-a}; orders 1 and oo by continuity: "
       "for P = (1/5, 1/2, 3/10), Q = (2/5, 2/5, 1/5) the library's D_a is Eq. (4.4) and "
       "tends to KL(P||Q) as a -> 1; for randomized response (eps = 1) and Laplace noise "
       "(mu = 3/2) D_a tends to KL as a -> 1 and to the max divergence D_oo as a -> oo "
       "(SymPy limits of the closed forms)", _renyi_def,
       crosscheck=kl_by_definition)

stated(PAPER, "Def. 4.3, Eq. (4.5)",
       "the Gaussian mechanism is (0, Delta^2/(2 sigma^2))-zCDP: D_a = a Delta^2/(2 sigma^2) "
       "for every order a > 0 (equality), and Delta/sigma-GDP converts to "
       "Delta^2/(2 sigma^2)-zCDP",
       lambda: [ta.verify(ta.renyi(ta.gaussian_mechanism(Delta, sigma), A), "==",
                          A * Delta**2 / (2 * sigma**2)),
                ta.verify(ta.GDP(Delta / sigma).to_zcdp().rho, "==", Delta**2 / (2 * sigma**2))])


def _monotone_renyi(strict):
    """D_{3/2} vs D_2 for P = (1, 0), Q = (1/2, 1/2) (constant in a) and for the generic pair."""
    P10 = ta.Discrete([1, 0], [R(1, 2), R(1, 2)])
    if strict:  # the printed strict inequality: sign(D_2 - D_{3/2}) = 1
        return ta.verify(sp.sign(ta.renyi(P10, 2) - ta.renyi(P10, R(3, 2))), "==", 1)
    return ([ta.verify(ta.renyi(f, a1), "<=", ta.renyi(f, a2)) for f in (P10, PQ3)
             for a1, a2 in ((R(3, 2), 2), (2, 16))]
            + [ta.verify(ta.kl(P10), "<=", ta.renyi(P10, R(3, 2))),
               ta.verify(ta.renyi(P10, 16), "<=", ta.renyi(P10, sp.oo))])


misprint(PAPER, "Sec. 4.2 text after Def. 4.4",
         "for alpha' in [1, alpha), D_{alpha'}(P||Q) < D_alpha(P||Q)",
         printed=lambda: _monotone_renyi(True),
         corrected=lambda: _monotone_renyi(False),
         correction="D_{alpha'} <= D_alpha (non-decreasing, not strictly: for P = (1, 0), "
                    "Q = (1/2, 1/2) D_a = ln 2 for every a, so sign(D_2 - D_{3/2}) = 0); "
                    "checked at orders 1 <= 3/2 <= 2 <= 16 <= oo for that pair and at "
                    "3/2 <= 2 <= 16 for P = (1/5, 1/2, 3/10), Q = (2/5, 2/5, 1/5); the "
                    "conclusion about (alpha', eps)-RDP only needs <=")


def _tcdp_between():
    return [ta.verify(ta.tCDP(RHO, sp.oo).to_rdp().at(A), "==", ta.zCDP(RHO).to_rdp().at(A)),
            ta.verify(ta.tCDP(RHO, 2).to_rdp().at(R(5, 4)), "==",
                      ta.zCDP(RHO).to_rdp().at(R(5, 4))),
            # N(0, 2) vs N(0, 1): (7/20, 3/2)-tCDP (D_a <= D_{3/2} <= 7/20 <= 7a/20 for
            # a < 3/2, both orders), not rho-zCDP for any rho (D_2 = oo)
            ta.verify(ta.renyi(N21, R(3, 2)), "<=", R(7, 20)),
            ta.verify(ta.renyi(ta.Inverse(N21), R(3, 2)), "<=", R(7, 20)),
            ta.verify(ta.renyi(N21, 2), "==", sp.oo)]


stated(PAPER, "Def. 4.5, Eq. (4.6)",
       "(rho, omega)-tCDP with omega = oo is rho-zCDP, and tCDP lies between zCDP and RDP: "
       "the RDP curves of tCDP(rho, oo) and zCDP(rho) agree, tCDP(rho, 2) bounds D_{5/4} "
       "by 5 rho/4 as zCDP does; strictly between: N(0, 2) vs N(0, 1) is "
       "(7/20, 3/2)-tCDP (D_{3/2} <= 7/20 in both orders) but not zCDP (D_2 = oo)",
       _tcdp_between)

stated(PAPER, "Sec. 4.3 bullet 1", "pure eps-DP requires Z <= eps: delta(f_{eps,0}, eps) = 0, "
       "0 <= eps <= 5",
       lambda: ta.verify(ta.delta(ta.EpsDelta(eps, 0), eps), "==", 0, over={eps: (0, 5)}))

X = sp.Symbol("x", positive=True)


def _rr_zcdp():
    """Randomized response with eps = 1 is 1/2-zCDP: D_a <= a/2 for a in [101/100, 50] (a
    closed form), for a in (1, 101/100] (D_a <= D_{101/100} <= 1/2, monotone in a) and for
    a > 50 (D_a <= D_oo = 1 <= 25)."""
    f = ta.EpsDelta(1, 0)
    return [ta.verify(ta.renyi(f, A), "<=", A / 2, over={A: (R(101, 100), 50)}),
            ta.verify(ta.renyi(f, R(101, 100)), "<=", R(1, 2)),
            ta.verify(ta.renyi(f, sp.oo), "<=", 25)]


def _zcdp_tail():
    e = sp.E
    # the Gaussian mechanism: Z ~ N(rho, 2 rho), Pr[Z > t + rho] = Phi(-x) at t = x sqrt(2 rho)
    return [
        ta.verify(ta.zCDP(RHO).tail_bound(X * sp.sqrt(2 * RHO)), "==", sp.exp(-X**2 / 2)),
        ta.verify(ta.Phi(-X), "<=", sp.exp(-X**2 / 2), over={X: (0, 10)}),
        # randomized response (eps = 1, Z = +-1, Pr[Z = 1] = e/(1+e)) as 1/2-zCDP: the tail is
        # e/(1+e) for t < 1/2 and 0 beyond, below the bound at its smallest value (t = 1/2)
        *_rr_zcdp(),
        ta.verify(e / (1 + e), "<=", ta.zCDP(R(1, 2)).tail_bound(R(1, 2)))]


stated(PAPER, "Sec. 4.3 bullet 2",
       "rho-zCDP: Pr[Z > t + rho] <= e^{-t^2/(4 rho)} for t >= 0; for the Gaussian mechanism "
       "(Z ~ N(rho, 2 rho), t/sqrt(2 rho) in [0, 10]) and for randomized response with "
       "eps = 1, which is 1/2-zCDP (checked) with Pr[Z > t + 1/2] = e/(1+e) for t < 1/2",
       _zcdp_tail)


def _n21_tail(c):
    """Pr[Z > c] for P = N(0, 2), Q = N(0, 1): Z = log(p/q) = chi2_1/2 - log(2)/2."""
    return 2 * ta.Phi(-sp.sqrt(2 * c + L(2)))


def _tcdp_tail():
    r, w = R(7, 20), R(3, 2)
    b = ta.tCDP(r, w).tail_bound(TT)
    sub = b.args[0][0], b.args[1][0]  # the two regimes of the bound
    return [ta.verify(ta.renyi(N21, w), "<=", r),
            ta.verify(ta.renyi(ta.Inverse(N21), w), "<=", r),
            ta.verify(_n21_tail(TT + r), "<=", sub[0], over={TT: (0, 2 * r * (w - 1))}),
            ta.verify(_n21_tail(TT + r), "<=", sub[1], over={TT: (2 * r * (w - 1), 60)}),
            # the second regime is the weaker bound: its exponent exceeds -t^2/(4 rho) by
            # (t - 2 rho (omega - 1))^2/(4 rho)
            ta.verify((RHO * (A - 1)**2 - (A - 1) * TT) - (-TT**2 / (4 * RHO)), "==",
                      (TT - 2 * RHO * (A - 1))**2 / (4 * RHO))]


stated(PAPER, "Sec. 4.3 bullet 3",
       "(rho, omega)-tCDP: Pr[Z > t + rho] <= e^{-t^2/(4 rho)} for t <= 2 rho (omega - 1) and "
       "<= e^{(omega-1)^2 rho - (omega-1) t} beyond; for N(0, 2) vs N(0, 1), which is "
       "(7/20, 3/2)-tCDP (checked) and not zCDP, with Z = chi2_1/2 - log(2)/2, for t in "
       "[0, 60]; the second bound is the weaker (an identity of the exponents)", _tcdp_tail)


def _rdp_tail():
    w = R(3, 2)
    d = ta.renyi(N21, w)
    return [ta.verify(_n21_tail(TT + d), "<=", ta.RDP({w: d}).tail_bound(w, TT),
                      over={TT: (0, 60)}),
            # the Gaussian mechanism G_1 at order 2: eps = 1, Pr[Z > t + 1] = Phi(-t - 1/2)
            ta.verify(ta.Phi(-TT - R(1, 2)), "<=",
                      ta.RDP({2: ta.renyi(ta.G(1), 2)}).tail_bound(2, TT), over={TT: (0, 10)})]


stated(PAPER, "Sec. 4.3 bullet 4",
       "(omega, eps)-RDP: Pr[Z > t + eps] <= e^{-(omega-1) t}; for N(0, 2) vs N(0, 1) at "
       "omega = 3/2 (eps = D_{3/2} = log(2)/2, t in [0, 60]) and for G_1 at omega = 2 (eps = 1, "
       "t in [0, 10])", _rdp_tail)

misprint(PAPER, "Sec. 4.3 bullet 5",
         "up to constant factors on delta, (eps, delta)-DP requires Pr[Z > eps] <= delta",
         printed=lambda: ta.verify(ta.Phi(-10 + R(1, 20)) / 10, "<=",
                                   ta.delta(ta.G(R(1, 10)), 1)),
         corrected=lambda: ta.verify(
             ta.Phi(-11 + R(1, 20)), "<=",
             ta.Functional("delta", ta.G(R(1, 10)), 1) / (1 - sp.exp(-R(1, 10)))),
         correction="Pr[Z > eps] <= delta is sufficient, not necessary; conversely (eps, "
                    "delta)-DP gives Pr[Z > eps + t] <= delta/(1 - e^{-t}); at mu = 1/10, "
                    "eps = 1 Pr[Z > 1]/delta exceeds 10, and the converse holds at t = 1/10")

def _product(f, g):
    """The product pair of two Discrete pairs, built outcome by outcome."""
    (p1, q1), (p2, q2) = f.args, g.args
    return ta.Discrete([a * b for a in p1 for b in p2], [a * b for a in q1 for b in q2])


RR2 = _rr(2)  # randomized response with e^eps = 2
R1, R2, X1, X2, W1, W2 = sp.symbols("r1 r2 xi1 xi2 omega1 omega2", positive=True)


def _additive(orders):
    """D_a of the explicit product of PQ3 and RR2 is the sum of the two (exact)."""
    return [ta.verify(ta.renyi(_product(PQ3, RR2), o), "==",
                      ta.renyi(PQ3, o) + ta.renyi(RR2, o)) for o in orders]


def _thm44_1():
    z = ta.zCDP(R1, X1) @ ta.zCDP(R2, X2)
    return [ta.verify(z.rho, "==", R1 + R2), ta.verify(z.xi, "==", X1 + X2),
            *_additive((2, 3, 5)),
            ta.verify(ta.renyi(ta.G(mu) @ ta.G(p), A), "==", A * mu**2 / 2 + A * p**2 / 2)]


stated(PAPER, "Thm. 4.4 (1)",
       "(xi, rho)- and (xi', rho')-zCDP compose to (xi + xi', rho + rho')-zCDP: the "
       "parameters add, since D_a is additive over product pairs (the explicit product of "
       "P = (1/5, 1/2, 3/10) vs (2/5, 2/5, 1/5) and randomized response (e^eps = 2) at orders "
       "2, 3, 5, exactly; G_mu (x) G_nu: a mu^2/2 + a nu^2/2)", _thm44_1)


def _thm44_2():
    z = ta.tCDP(R1, W1) @ ta.tCDP(R2, W2)
    prod = N21 @ ta.G(1)  # (7/20, 3/2)-tCDP (x) 1/2-zCDP: (17/20, 3/2)-tCDP
    return [ta.verify(z.rho, "==", R1 + R2), ta.verify(z.omega, "==", sp.Min(W1, W2)),
            *[ta.verify(ta.renyi(prod, o), "<=", R(17, 20) * o) for o in (R(5, 4), R(3, 2))],
            ta.verify(ta.renyi(prod, 2), "==", sp.oo)]


stated(PAPER, "Thm. 4.4 (2)",
       "(rho, omega)- and (rho', omega')-tCDP compose to (rho + rho', min(omega, omega'))-tCDP; "
       "N(0, 2) vs N(0, 1) ((7/20, 3/2)-tCDP) composed with G_1 (1/2-zCDP) has "
       "D_a <= 17 a/20 at a = 5/4, 3/2 and D_2 = oo (omega = min(3/2, oo))", _thm44_2)


def _thm44_3():
    e1_, e2_ = sp.symbols("eps1 eps2", positive=True)
    return [ta.verify((ta.RDP({2: e1_}) @ ta.RDP({2: e2_})).at(2), "==", e1_ + e2_),
            ta.verify((ta.RDP(lambda o: o / 2) @ ta.RDP(lambda o: o)).at(A), "==", 3 * A / 2),
            *_additive((2, 4))]


stated(PAPER, "Thm. 4.4 (3)",
       "(alpha, eps)- and (alpha, eps')-RDP compose to (alpha, eps + eps')-RDP: the RDP curves "
       "add, and D_a of an explicit product pair is the sum (orders 2, 4, exactly)", _thm44_3)


def _postprocess():
    K = [[R(3, 4), R(1, 4)], [R(1, 3), R(2, 3)], [R(1, 2), R(1, 2)]]  # a channel 3 -> 2
    P, Q = PQ3.args

    def push(m):
        return [sum(m[i] * K[i][j] for i in range(3)) for j in range(2)]

    KPQ = ta.Discrete(push(P), push(Q))
    return ([ta.verify(ta.renyi(KPQ, o), "<=", ta.renyi(PQ3, o))
             for o in (R(3, 2), 2, 5, sp.oo)] + [ta.verify(KPQ, ">=", PQ3)])


stated(PAPER, "Sec. 4.3 text",
       "zCDP, tCDP and RDP are closed under postprocessing (data processing for D_a): a "
       "channel 3 -> 2 applied to P = (1/5, 1/2, 3/10), Q = (2/5, 2/5, 1/5) lowers D_a at "
       "a = 3/2, 2, 5, oo (exactly), and raises the trade-off function", _postprocess)

misprint(PAPER, "Remark 4.5",
         "group privacy of (eps, delta)-DP: (k eps, k e^{(k-1)} delta)-DP",
         printed=lambda: ta.verify(ta.Group(ta.EpsDelta(L(8), R(1, 100)), 2), ">=",
                                   ta.EpsDelta(2 * L(8), 2 * sp.E / 100)),
         corrected=lambda: [ta.verify(ta.Group(ta.EpsDelta(L(e), d), k), ">=",
                                      ta.EpsDelta(k * L(e), k * sp.Integer(e)**(k - 1) * d))
                            for e, d, k in ((8, R(1, 100), 2), (5, R(1, 1000), 2),
                                            (5, R(1, 1000), 3), (3, R(1, 10), 2))],
         correction="(k eps, k e^{(k-1) eps} delta)-DP; checked at (e^eps, delta, k) = "
                    "(8, 1/100, 2), (5, 1/1000, 2), (5, 1/1000, 3), (3, 1/10, 2)")
stated(PAPER, "Remark 4.5",
       "rho-zCDP yields rho k^2-zCDP for groups of size k (zCDP(rho).group(k) for k = 2, 3), "
       "attained by the Gaussian mechanism: D_a of the group of k G_mu steps is "
       "k^2 (a mu^2/2)",
       lambda: [v for k in (2, 3) for v in (
           ta.verify(ta.zCDP(RHO).group(k).rho, "==", k**2 * RHO),
           ta.verify(ta.renyi(ta.Group(ta.G(mu), k), A), "==", k**2 * A * mu**2 / 2))])
stated(PAPER, "Remark 4.5",
       "(rho, omega)-tCDP yields (k^2 rho, omega/k)-tCDP for groups of size k <= omega, at "
       "instances: the Gaussian mechanism (omega = oo; a group of k moves the query by k: "
       "D_a = k^2 a/(2 sigma^2), symbolic k, sigma, a); sinh-normal noise (Eq. (4.7), A = 8, "
       "sigma = 2) on counts (sensitivity 1): (1/4, 4)-tCDP (D_a(Z||Z+1) <= a/4 on (1, 4], a "
       "certified cover by the monotonicity of D_a in a, Arb quadrature), and its groups of "
       "k = 2, 3 (a count moves by at most k) are (k^2/4, 4/k)-tCDP (D_a(Z||Z+k) <= k^2 a/4 "
       "on (1, 4/k]); at k = omega = 4, omega/k = 1 lies outside Def. 4.5 (omega > 1): "
       "nothing to check. Tightness is not checked",
       dsh.tcdp_group, instances=True)

misprint(PAPER, "Remark 4.6",
         "the Laplace distribution with standard deviation Delta/eps gives (eps, delta)-DP",
         printed=lambda: ta.verify(ta.laplace_mechanism(1, 1 / sp.sqrt(2)), ">=",
                                   ta.EpsDelta(1, 0)),
         corrected=lambda: ta.verify(ta.laplace_mechanism(Delta, Delta / eps), ">=",
                                     ta.EpsDelta(eps, 0), over={eps: (R(1, 10), 5)}),
         correction="the Laplace distribution with scale Delta/eps (standard deviation "
                    "sqrt(2) Delta/eps); printed refuted at Delta = eps = 1")

stated(PAPER, "Remark 4.6",
       "Laplace noise of scale Delta/eps truncated to +-O(Delta log(1/delta)/eps) is "
       "(eps, delta)-DP: truncated to +-Delta ln(1/delta)/eps (constant 1) its delta at eps is "
       "delta (e^eps - 1)/(2(1 - delta)) <= delta, for eps in [1/100, 1], delta in "
       "[1e-12, 1/10] (analysis.noise's closed form of the hockey stick, Delta = 1)",
       lambda: ta.verify(_TLAP_RATIO, "<=", 1, over=_TLAP_BOX),
       crosscheck=mc.tlap_delta_check)


stated(PAPER, "Eq. (4.7)",
       "the sinh-normal distribution A arcsinh((sigma/A) N(0,1)) has doubly exponential "
       "tails: P[|Z| >= t] = 2 Phi(-(A/sigma) sinh(t/A)) (the derivative of this tail is -2 "
       "times the density of Z, symbolic A, sigma) is at most "
       "exp(-(A^2/(8 sigma^2))(e^{t/A} - 1)^2), for t in [1/4, 6] at (A, sigma) = (2, 1) and "
       "t in [1/4, 2] at (1/2, 3/2)", _sinh_normal)


stated(PAPER, "Sec. 4.3 text",
       "a histogram query has sensitivity 1 under adding or removing an individual (L1 and "
       "L2; exact enumeration: 3 cells, datasets of size <= 4); under replace-one it is 2 (L1) "
       "and sqrt(2) (L2)",
       lambda: [ta.verify(sens.sensitivity(_HIST, _U3, 4, p=pp)[0], "==", 1) for pp in (1, 2)]
       + [ta.verify(sens.sensitivity(_HIST, _U3, 3, p=pp, adjacency="replace")[0], "==", v)
          for pp, v in ((1, 2), (2, sp.sqrt(2)))], instances=True)


stated(PAPER, "Sec. 4.3 text",
       "histogram error under pure DP: Theta(log k/eps) with independent Lap(1/eps) per cell: "
       "the expected largest error is H_k/eps (SymPy integral at k = 3, symbolic eps), and "
       "ln k <= H_k <= 1 + ln k (exact harmonic numbers at k = 2, 10, 100, 1000); with "
       "probability 1 - beta every error is below (ln k + ln(1/beta))/eps (union bound, "
       "symbolic)", _hist_pure, instances=True)

stated(PAPER, "Sec. 4.3 text",
       "histogram error under (eps, delta)-DP: O(log(1/delta)/eps) with truncated Laplace "
       "noise, whatever k: one cell changes by 1 (L1-sensitivity 1, 3 cells, exact), noise of "
       "scale 1/eps truncated to +-ln(1/delta)/eps is (eps, delta)-DP (eps in [1/100, 1], "
       "delta in [1e-12, 1/10]) and no error exceeds ln(1/delta)/eps (the matching lower bound, "
       "over all algorithms, is not stated)",
       lambda: [ta.verify(sens.sensitivity(_HIST, _U3, 4, p=1)[0], "==", 1),
                ta.verify(_TLAP_RATIO, "<=", 1, over=_TLAP_BOX)],
       crosscheck=mc.tlap_delta_check, instances=True)


stated(PAPER, "Sec. 4.3 text",
       "histogram error under zCDP: Theta(sqrt(log k/rho)) with N(0, 1/(2 rho)) per cell "
       "(rho-zCDP: L2-sensitivity 1, D_a = a rho): E max_i |N_i| lies between "
       "(2/5) sqrt(ln k/rho) and sqrt(2) sqrt(ln k/rho) (the bounds s sqrt(2 ln 2k) and "
       "s sqrt(ln k) P[max >= s sqrt(ln k)], for k in [2, 10^4])", _hist_zcdp, instances=True)
stated(PAPER, "Sec. 4.3 text",
       "histogram error under tCDP: O(omega log log k), at instances: sinh-normal noise "
       "(Eq. (4.7), A = 8, sigma = 2) per cell is (1/4, 4)-tCDP (certified, as under "
       "Remark 4.5), and the expected largest error over k cells, E max_i |Z_i| (certified Arb "
       "quadrature of P[max > x] = 1 - F(x)^k), lies between (3/4) omega log log k and "
       "(6/5) omega log log k at k = 10, 1e2, ..., 1e6 (3.612, 5.119, 6.213, 7.070, 7.775, "
       "8.375; a Gaussian of the same sigma gives sigma sqrt(2 ln k) = 4.29 ... 10.51)",
       dsh.sinh_normal_histogram, instances=True)

# --- Section 5 ----------------------------------------------------------------------------

misprint(PAPER, "Sec. 5.1 text",
         "subsampling with probability p gives privacy loss p eps, off by a factor of at "
         "most 2 (no range on eps)",
         printed=lambda: ta.verify(ta.epsilon(ta.C(R(1, 100), ta.EpsDelta(L(150), 0)), 0), "<=",
                                   2 * R(1, 100) * L(150)),
         corrected=lambda: ta.verify(ta.epsilon(ta.C(R(1, 100), ta.EpsDelta(L(3), 0)), 0),
                                     "<=", 2 * R(1, 100) * L(3)),
         correction="the factor is (e^eps - 1)/eps <= 2 for eps <= 1.2564; printed refuted at "
                    "p = 1/100, e^eps = 150, corrected checked at p = 1/100, e^eps = 3")


def _thm51(es, e, extra):
    """Eq. (5.1) with e^{eps*} = es, e^eps = e; ``extra`` adds Beimel et al.'s + e^eps."""
    r = (e - 1) / (es - e / es - 1 + (e if extra else 0))
    return ta.verify(ta.epsilon(ta.C(r, ta.EpsDelta(L(es), 0)), 0), "<=", L(e))


misprint(PAPER, "Thm. 5.1, Eq. (5.1)",
         "sampling with probability (e^eps - 1)/(e^{eps*} - e^{eps - eps*} - 1) turns an "
         "eps*-DP algorithm into an eps-DP one",
         printed=lambda: _thm51(8, 3, False),
         corrected=lambda: _thm51(8, 3, True),
         correction="r = (e^eps - 1)/(e^{eps*} + e^eps - e^{eps - eps*} - 1) (Beimel et al.); "
                    "printed refuted and corrected checked at e^{eps*} = 8, e^eps = 3")

stated(PAPER, "Remark 5.2",
       "subsampling with probability p of (eps, delta)-DP gives (ln(1 + p(e^eps - 1)), "
       "p delta)-DP, at (e^eps, delta, p) = (3, 1/10, 1/4), (20, 1/3, 1/2), stated with "
       "slack 1e-25 (the bound is attained, and equality of inexact numbers is not certified)",
       lambda: [ta.verify(ta.delta(ta.C(pp, ta.EpsDelta(L(e), d)), L(1 - pp + pp * e)), "<=",
                          pp * d + R(1, 10**25))
                for e, d, pp in ((3, R(1, 10), R(1, 4)), (20, R(1, 3), R(1, 2)))])

stated(PAPER, "Sec. 5.2 text",
       "shuffling improves randomized response by a factor of Omega(sqrt(log(1/delta)/n)): "
       "the factor is inverted. Read as eps = eps0 * factor (a gain eps0/eps of order "
       "sqrt(n/ln(1/delta))) it holds at n = 1e3, 1e4, 1e5 (eps0 = 1, delta = 1e-6): shuffled "
       "binary RR's eps(delta) lies between (4/5) and (3/2) eps0 sqrt(ln(1/delta)/n) (below: "
       "the exact pair of counts when the other users hold 0, eps(1e-6) = 0.1266144810, "
       "0.03565881530, 0.01014249327, certified to 10 digits, a gain eps0/eps = 7.90, 28.04, "
       "98.60 against sqrt(n/ln(1/delta)) = 8.51, 26.90, 85.08; above: Feldman-McMillan-"
       "Talwar's bound, every neighbouring pair). Read as printed, a gain of at least "
       "sqrt(ln(1/delta)/n) < 1, it is vacuous (eps <= eps0 always)",
       dsh.shuffle_gain, crosscheck=dsh.exact_pair_check, instances=True)

# --- Section 6 ----------------------------------------------------------------------------

stated(PAPER, "Eq. (6.1)",
       "the full-batch gradient is the sum of per-example gradients: grad_w sum_i l(w, x_i) = "
       "sum_i grad_w l(w, x_i) for a symbolic loss l, at n = 5 records, w in R^2",
       mo.eq61_gradient, instances=True)
stated(PAPER, "Eq. (6.2)",
       "noisy projected gradient descent is postprocessing of a Gaussian mechanism: in one "
       "dimension the projection onto K = [lo, hi] of N(a, sigma^2) against N(b, sigma^2) has "
       "trade-off G_{|a-b|/sigma} where the threshold lies in K and the chords to the atoms at "
       "the ends of K elsewhere, >= G_{|a-b|/sigma}: at (a, b, sigma, K) = (0, 1, 1, [-1, 2]) "
       "and (1/2, -1, 2, [-1/2, 1/2]), one level in each of the three pieces (certified)",
       mo.eq62_projection, instances=True)
stated(PAPER, "Eq. (6.4)",
       "sampling one element has selection probability q = 1/n: the finite-mechanism "
       "Sample_m puts the record at each position in the sample with probability m/n exactly "
       "(m = 1: q = 1/n; m = 2), n = 2, ..., 8",
       mo.eq64_selection, instances=True)

stated(PAPER, "Eq. (6.5)",
       "n grad l(omega, z) with z uniform on the n elements has the expectation of the full "
       "gradient sum_i grad l(omega, x_i) (exact, n = 5, symbolic gradients)",
       lambda: ta.verify(sum(R(1, 5) * 5 * g for g in _G5), "==", sum(_G5)), instances=True)


stated(PAPER, "Sec. 6.1 text",
       "sampling raises the sensitivity by a factor of n: with per-example gradients bounded "
       "by L (values -L, 0, L; L = 3/2), sum_i grad l(x_i) has replace-one sensitivity 2L and "
       "n grad l(x_z) has 2nL (exact enumeration at n = 3, 4; the saving of a factor n in cost "
       "is not a number to check)", _sens_factor_n)

_SIG66 = sp.sqrt(L(100 * 10**5) * L(10**5)) / 2  # the noise multiplier of Eq. (6.6)
_SIG66_LOW = R(681, 100)  # a rational below it: the Laplace inversion takes rational mu


def _eq66():
    """The noise multiplier sqrt(log(n/delta) log(1/delta))/2 = 6.8111... is at least 6.81
    (interval arithmetic); less noise is less private (monotonicity of G_mu, Mix, the tensor
    power and the symmetric hull), and 6.81 already gives eps <= 1 at delta = 1e-5 (certified
    Laplace inversion), so the printed sigma does."""
    sgd = lambda s_: ta.noisy_sgd(s_, R(1, 100), 100**2, sampling="poisson")  # noqa: E731
    return [ta.verify(_SIG66, ">=", _SIG66_LOW),
            ta.verify(sgd(_SIG66), ">=", sgd(_SIG66_LOW)),
            ta.verify(ta.epsilon(sgd(_SIG66_LOW), R(1, 10**5)), "<=", 1)]


stated(PAPER, "Eq. (6.6)",
       "sigma^2 = O(n^2 log(n/delta) log(1/delta)/eps^2) gives (eps, delta)-DP for n^2 rounds, "
       "at n = 100, eps = 1, delta = 1e-5 with constant 1 (Poisson sampling, rate 1/n): the "
       "composition at the printed sigma lies above the one at sigma = 6.81 <= sigma, whose "
       "eps at 1e-5 is at most 1", _eq66)

stated(PAPER, "Sec. 6.2 text",
       "shuffled randomized response with p = kappa ln(1/delta)/(n eps^2) is (eps, delta)-DP, "
       "at (n, eps) = (1e4, 1/2), (1e4, 1), (1e5, 1/2), (1e5, 1), delta = 1e-6: it is with "
       "kappa = 7 (Feldman-McMillan-Talwar's bound, every neighbouring pair) and is not with "
       "kappa = 3 (the exact pair of counts when the other users hold 0 has delta(eps) >= "
       "3/2 delta), so the constant lies in (3, 7] at these instances",
       dsh.shuffle_kappa, instances=True)


stated(PAPER, "Sec. 6.2 text",
       "shuffled RR has error O((1/eps) sqrt(ln(1/delta))): with p = kappa ln(1/delta)/(n eps^2) "
       "<= 1/2 the debiased count's variance is at most (3/2) kappa ln(1/delta)/eps^2 (exact "
       "sums at n = 6; symbolic kappa, eps, delta, n); one bit per user is not a number to "
       "check", _shuffled_rr_error, instances=True)
stated(PAPER, "Eq. (6.7)",
       "in sequential noisy SGD everything after the first step is postprocessing for x_1: a "
       "finite sequential noisy SGD (states -2..2 projected, records in {-1, 0, 1}, n = T = 3, "
       "noise in {-1, 0, 1} with law (1/4, 1/2, 1/4)) run as an adaptive chain of finite "
       "mechanisms: the final state's law equals the first step post-processed by a kernel "
       "built from x_2, x_3 only, exactly for every data set, and for data sets differing in "
       "x_1, T(w_3(S), w_3(S')) >= T(w_1(S), w_1(S'))",
       mo.eq67_sequential, instances=True)

misprint(PAPER, "Sec. 6.3 text",
         "adding N(0, (sigma/2)^2 I_d) twice is equivalent to a draw from N(0, sigma^2 I_d)",
         printed=lambda: ta.verify(
             ta.gaussian_mechanism(Delta, sp.sqrt((sigma / 2)**2 + (sigma / 2)**2)), "==",
             ta.gaussian_mechanism(Delta, sigma),
             over={Delta: (R(1, 10), 10), sigma: (R(1, 10), 10)}),
         corrected=lambda: ta.verify(
             ta.gaussian_mechanism(Delta, sp.sqrt(sigma**2 / 2 + sigma**2 / 2)), "==",
             ta.gaussian_mechanism(Delta, sigma),
             over={Delta: (R(1, 10), 10), sigma: (R(1, 10), 10)}),
         correction="half the variance: N(0, (sigma^2/2) I_d) twice sums to N(0, sigma^2 I_d)")

# --- Sec. 6.3: privacy amplification by iteration, the Gaussian instances --------------------
S_, X1_, X2_, X3_ = sp.symbols("s x1 x2 x3", positive=True)
SIG7 = R(7, 10)
TT_ = sp.Symbol("T", positive=True)


def _shift(xs, s):
    """N(0, s^2 I_d) against N(x, s^2 I_d) as a product of coordinate pairs."""
    out = ta.NormalPair(0, s, xs[0], s)
    for x_ in xs[1:]:
        out = out @ ta.NormalPair(0, s, x_, s)
    return out


stated(PAPER, "Fact 6.1, Eq. (6.12)",
       "D_alpha(N(0, sigma^2 I_d) || N(x, sigma^2 I_d)) = alpha ||x||^2/(2 sigma^2), for d = 1, "
       "2, 3 (products of coordinate pairs, symbolic x, sigma, alpha)",
       lambda: [ta.verify(ta.renyi(_shift(xs, S_), A), "==",
                          A * sum(x_**2 for x_ in xs) / (2 * S_**2))
                for xs in ((X1_,), (X1_, X2_), (X1_, X2_, X3_))])

stated(PAPER, "Eq. (6.10), Eq. (6.11)",
       "identity maps with N(0, sigma^2 I_d) noise for T steps: ||X_0 - X_0'|| <= 1 gives "
       "D_alpha(P_{X_T} || P_{X'_T}) <= alpha/(2 T sigma^2): the divergence is "
       "alpha ||X_0 - X_0'||^2/(2 T sigma^2) (d = 1, symbolic shift x), increasing in the "
       "shift, and equals the bound at ||X_0 - X_0'|| = 1 (d = 1; d = 2 with the shift "
       "(3/5, 4/5))",
       lambda: [ta.verify(ta.renyi(_shift((X1_,), sp.sqrt(TT_) * S_), A), "==",
                          A * X1_**2 / (2 * TT_ * S_**2)),
                *[ta.verify(ta.renyi(_shift(xs, sp.sqrt(TT_) * S_), A), "==",
                            A / (2 * TT_ * S_**2)) for xs in ((1,), (R(3, 5), R(4, 5)))]])


def _iteration(lam, T, a=3, s=SIG7):
    """Maps x -> lam x, one shift s_1 = 1 at the first step, a_t = 1/T, X_0 = X_0' = 0: X_T
    and X'_T are N(0, v) and N(lam^(T-1), v), v = s^2 sum_{j<T} lam^(2j); the bound of
    Eq. (6.17) is (a/2) sum_t a_t^2/s^2 = a/(2 T s^2)."""
    v = s**2 * sum(sp.sympify(lam)**(2 * j) for j in range(T))
    pair = ta.NormalPair(0, sp.sqrt(v), lam**(T - 1), sp.sqrt(v))
    return ta.verify(ta.renyi(pair, a), "<=", sp.Rational(a, 2) * T * R(1, T)**2 / s**2)


stated(PAPER, "Thm. 6.3, Eq. (6.17)",
       "privacy amplification by iteration, D_alpha(X_T || X'_T) <= (alpha/2) sum_t "
       "a_t^2/sigma_t^2, at instances: contractions x -> lambda x with one shift s_1 = 1, "
       "a_t = 1/T, alpha = 3, sigma = 7/10 (X_T Gaussian): lambda = 1 (equality), 9/10, 1/2 "
       "and T = 1, 5, 50",
       lambda: [_iteration(lam, T) for lam in (1, R(9, 10), R(1, 2)) for T in (1, 5, 50)])

def _iteration_guarantee():
    """lambda = 1/2, T = 5, one shift s_1 = 1, a_t = 1/T, sigma = 7/10: ta.iteration_zcdp gives
    rho = T (1/T)^2/(2 sigma^2); the exact X_T pair's trade-off function lies above the f-DP
    guarantee that rho-zCDP implies (its Renyi region) at three levels."""
    T, lam = 5, R(1, 2)
    z = ta.iteration_zcdp([R(1, T)] * T, SIG7, s=[1] + [0] * (T - 1))
    v = SIG7**2 * sum(lam**(2 * j) for j in range(T))
    pair = ta.NormalPair(0, sp.sqrt(v), lam**(T - 1), sp.sqrt(v))
    g = z.to_tradeoff()
    return [ta.verify(z.rho, "==", R(1, 2 * T) / SIG7**2),
            *[ta.verify(F("evaluate", pair, al), ">=", F("evaluate", g, al))
              for al in (R(1, 100), R(1, 10), R(1, 2))]]


stated(PAPER, "Thm. 6.3, Eq. (6.17)",
       "as a guarantee: the bound is rho-zCDP, rho = sum_t a_t^2/(2 sigma_t^2) "
       "(ta.iteration_zcdp, which checks z_t >= 0 and z_T = 0), and the f-DP it implies holds "
       "for the exact output pair (lambda = 1/2, T = 5, sigma = 7/10)", _iteration_guarantee)

ETA, LL, NN, UU = sp.symbols("eta L n u", positive=True)


stated(PAPER, "Eq. (6.19)",
       "(alpha/(2 eta^2 sigma^2)) sum_i a_i^2 = 2 alpha L^2/(sigma^2 (n - t + 1)) for the "
       "n - t + 1 shifts a_i = 2 eta L/(n - t + 1) (the second inequality is an equality; the "
       "first is Eq. (6.17), stated above at instances)",
       lambda: ta.verify(A / (2 * ETA**2 * sigma**2) * UU * (2 * ETA * LL / UU)**2, "==",
                         2 * A * LL**2 / (sigma**2 * UU)))


def _tth():
    def curve(u):  # the RDP curve of the t-th element, u = n + 1 - t
        return ta.RDP(lambda o: 2 * o * LL**2 / (sigma**2 * u))

    return [ta.verify(curve(UU).at(A), "==", 2 * A * LL**2 / (sigma**2 * UU)),
            ta.verify(curve(UU + 1).at(A), "<=", curve(UU).at(A))]


stated(PAPER, "Sec. 6.3 text",
       "the t-th element gets (alpha, 2 alpha L^2/(sigma^2 (n + 1 - t)))-RDP, and earlier "
       "elements are better protected: the curve decreases as u = n + 1 - t grows", _tth)

stated(PAPER, "Prop. 6.1 (1)",
       "projection onto a convex set is a contraction, at K = intervals ([-1, 1], [0, 5/2], "
       "[-3/2, -1/3]: Lipschitz constant 1, exact; a box projects coordinatewise), Euclidean "
       "balls in every dimension (||x - y||^2 - ||Pi x - Pi y||^2 in the norms and the angle: "
       "(p - q)^2 + 2w(rp + rq + pq) >= 0 with both points outside, q(2e + q + 2aw) >= 0 with "
       "one inside) and the line and plane of (1, 2, 2) in R^3 (operator norm 1)",
       di.prop61_projection, instances=True)
stated(PAPER, "Prop. 6.1 (2); Sec. 6.3 text",
       "the gradient step of a convex beta-smooth f is a contraction for eta <= 2/beta: for a "
       "twice differentiable f (Jacobian I - eta Hess f, eigenvalues 1 - eta lambda, lambda in "
       "[0, beta]) the step sizes with max |1 - eta lambda| <= 1 are exactly [0, 2/beta] "
       "(symbolic beta); instances: a quadratic at eta = 2/beta, the logistic loss "
       "(0 <= f'' <= 1/4); and eta > 2/beta fails: at beta = 1, eta = 21/10 the points 0, 1 "
       "move to distance 11/10", di.prop61_gradient_step, instances=True)
stated(PAPER, "Eq. (6.8), Eq. (6.9)",
       "identity maps with Gaussian noise: X_T = X_0 + N(0, T sigma^2 I_d): the moment "
       "generating function of T independent N(0, sigma^2) steps (by integration) is that of "
       "N(0, T sigma^2), symbolic T and sigma, for d = 1 and 2",
       di.cni_identity_law, instances=True)
stated(PAPER, "Def. 6.2, Eq. (6.13)",
       "the infinity-Wasserstein distance: for finite laws on R the quantile formula equals the "
       "infimum over couplings of Eq. (6.13) (Hall's condition) at three pairs; on R, "
       "equal-scale Gaussians have quantile difference m' - m, unequal scales an unbounded one; "
       "N(0, s^2 I_2) and N((3, 4), s^2 I_2) are 5 apart", di.w_infinity_def, instances=True)
stated(PAPER, "Def. 6.3, Eq. (6.14)",
       "the shifted Rényi divergence is non-increasing in z and 0 once the ball contains Q, at "
       "Gaussians in R^2 with means 5 apart (alpha max(5 - z, 0)^2/(2 sigma^2): derivative "
       "<= 0 below z = 5, 0 from z = 5), point masses 5 apart (oo at z = 4, 0 at z = 5, 6) and "
       "two-point laws at W_oo 1/2 (0 at z = 1/2, 1)", di.shifted_def, instances=True)
stated(PAPER, "Lemma 6.1, Eq. (6.15)",
       "shift reduction: D^{(z-s)}(P + N || Q + N) <= D^{(z)}(P||Q) + alpha s^2/(2 sigma^2) "
       "for 0 < s <= z, for equal-variance Gaussians N(0, tau^2), N(d, tau^2) (every alpha, "
       "tau, sigma, z, s and distance d; three cases, symbolic)", di.lemma61_gaussian,
       instances=True)
stated(PAPER, "Lemma 6.1, Eq. (6.15)",
       "shift reduction on a non-Gaussian pair: P = (delta_0 + delta_2)/2, Q = (delta_1/2 + "
       "delta_3/2)/2, z = 1/2: the left side is at most the divergence of an admissible "
       "candidate, certified by Arb quadrature, below the right side at (s, sigma, alpha) = "
       "(1/4, 1, 2), (1/2, 1, 3), (1/2, 1/2, 2)", di.lemma61_mixture, instances=True)
stated(PAPER, "Lemma 6.2, Eq. (6.16)",
       "contraction reduction: D^{(z+s)}(Psi(X) || Psi'(X')) <= D^{(z)}(X || X'), for "
       "Gaussians under the maps lambda x + b, lambda x + b' (lambda in (0, 1], ||b - b'|| "
       "<= s; symbolic) and for point masses under the projection onto [-1, 1] (instance)",
       di.lemma62, instances=True)
stated(PAPER, "Lemma 6.2, Eq. (6.16)",
       "contraction reduction with non-Gaussian outputs: N(0, sigma^2) and N(d, sigma^2) under "
       "Pi and Pi + s, Pi the projection onto [-1, 1]: the left side is at most the divergence "
       "of an admissible candidate (a closed form in Phi enclosed in Arb), below the right side "
       "at (z, d, sigma, alpha) = (1/2, 2, 1, 3), (1/4, 1, 1/2, 2), (1, 3, 2, 4)",
       di.lemma62_projected, instances=True)
stated(PAPER, "Sec. 6.3 text",
       "X_0 = X'_0 gives W_oo <= 1, equivalent to D^{(1)} = 0: W_oo = 0 and D^{(1)} = 0 at "
       "X_0 = X'_0 = delta_(1/3, 2); the equivalence at point masses 1 and 3/2 apart and for "
       "equal-variance Gaussians (symbolic distance)", di.start_shift, instances=True)
stated(PAPER, "Eq. (6.18)",
       "sup ||g_t(omega) - g'_t(omega)|| <= 2 eta L, for f(w, x) = L log cosh(w - x) "
       "(convex, L-Lipschitz): the supremum is 2 eta L tanh(Delta/2) at the midpoint, "
       "tending to 2 eta L as Delta = |x - x'| -> oo (symbolic)", di.gradient_sensitivity,
       instances=True)
stated(PAPER, "Sec. 6.3 text",
       "the choice a_i = 2 eta L/(n - t + 1) for i >= t keeps z_i >= 0, z_n = 0: z_i = "
       "s (n - i)/(n - t + 1) (symbolic n, t, i); exact at n = 7, t = 1, 3, 7, where it is "
       "also the admissible choice of least sum a_i^2", di.shift_choice, instances=False)
stated(PAPER, "Sec. 6.3.1 text",
       "the bound of Thm. 6.3 grows without bound in T: sum a_t^2 >= (sum a_t)^2/T "
       "(Cauchy-Schwarz as an identity at T = 4, minimiser the constant); for m passes with "
       "the element first in each pass the least sum a_t^2 is (m s)^2/(m n) (the bound "
       "attained; exact at n = 4, m = 1..6) and (alpha/(2 sigma^2)) m s^2/n -> oo (SymPy "
       "limit)",
       di.growth_in_T, instances=True)
stated(PAPER, "Thm. 6.4, Eq. (6.20)",
       "Projected Noisy-SGD is (alpha, eps)-RDP with eps <~ (alpha L^2/(n^2 sigma^2)) "
       "min{T, Dn/(L eta)}: what is computed is Thm. 6.3's bound for a fixed order (m passes, "
       "the element first in each pass, the best window and its optimal shifts; the random "
       "sampling of [2] is not computed): its ratio to Eq. (6.20) lies in [2, 18/5] at 36 "
       "instances with D >= 4 eta L (exact), 4 at the optimal window in the fluid limit "
       "(SymPy); for the last element of a pass it is 2n. Tightness (a lower bound on the "
       "privacy loss) is not computed", di.thm64, instances=True)
misprint(PAPER, "Sec. 6.3.1 text",
         "only the final T - T-bar iterations matter, T-bar = Theta(Dn/(L eta)): the "
         "bound they give stays within a constant factor of Eq. (6.20)",
         printed=di.final_window_printed, corrected=di.final_window_corrected,
         correction="the final T-bar iterations (T-bar = Dn/(L eta)): their bound is 9/2 times "
                    "Eq. (6.20) at T = 2, 10, 100 T-bar (n = 4, D = 5 eta L, exact); the final "
                    "T - T-bar give 361/18 times it at T = 10 T-bar and a ratio "
                    ">= 2 (T - T-bar)/T-bar -> oo (Cauchy-Schwarz)")
