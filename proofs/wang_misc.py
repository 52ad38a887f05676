"""Computations behind claims of Wang, Su, Ye, Shokri & Su stated in ``claims_wang.py``: the
convexity of trade-off functions (Sec. 3 text), the one-step DP-GD reduction of Eq. (1) and the
Gaussian pair of the unclipped example (Sec. 5 text), and the type II error of Sec. 2.

* Sec. 3: a trade-off function is convex (Dong, Roth & Su, Prop. 1); a convex function on an
  interval has non-decreasing one-sided derivatives f'_- <= f'_+ with f'_+(x) <= f'_-(y) for
  x < y (Rockafellar, Convex Analysis, Thm. 24.1), so the open intervals (f'_-(x), f'_+(x)) are
  disjoint and at most countably many are non-empty: f is differentiable off a countable set.
  Here only the instances are computed: ``ta.is_tradeoff`` certifies Prop. 1's conditions
  (convexity among them) on a cover of [0, 1].
* Sec. 5, Eq. (1): theta(D) | I = i ~ N(s_i(D), sigma^2) with s_i(D) = i - g(i, D). The map
  (x, i) -> ((x - s_i(D0))/sigma, i) is a bijection applied to both laws, so it keeps the
  trade-off function of the joint pair (Dong, Roth & Su, Lemma 1 both ways); it sends the pair
  to X | I ~ N(0, 1), Y | I ~ N((s_I(D1) - s_I(D0))/sigma, 1) = N(-mu_I, 1), and the reflection
  x -> -x to N(mu_I, 1), mu_I = (g(I, D1) - g(I, D0))/sigma as printed. What is computed: the
  gradient of the squared loss of the example of Sec. 5 (y_i = a x_i, x_i^2 = 1, D1 = D0
  without one record) and the means, symbolically: mu_I = (a - I)/sigma.
* Sec. 5, the unclipped example: with I unobserved the construction's laws are X ~ N(0, 1) and
  Y = a - I + Z ~ N(a, 2) (characteristic functions: e^{ita - t^2/2} e^{-t^2/2} = e^{ita - t^2}),
  which at a = 0 is the pair N(0, 1), N(0, 2) of the text (and, at n = 2, the output pair
  theta(D1) ~ N(0, 1), theta(D0) ~ N(0, 2)). With I observed the joint pair is a different,
  more distinguishable pair: at a = 0 its Neyman-Pearson point at threshold 0, alpha = beta =
  E Phi(-|I|/2) = 0.35242 (Arb integration, ``bounds/initialisation_unclipped.joint_point``),
  lies below T(N(0, 1), N(0, 2)) there (0.489). T(N(0, 1), N(0, 2)) is in closed form: the
  likelihood ratio grows with |x|, so the tests reject |x| > w: alpha = 2 Phi(-w),
  beta = 2 Phi(w/sqrt 2) - 1.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

import tradeoff_algebra as ta

__all__ = ["convex_instances", "dpgd_gradient", "eq1_reduction", "unclipped_pair",
           "type_ii_error", "type_ii_printed", "type_ii_corrected"]

R = sp.Rational
F = ta.Functional

#: Functions of x on [0, 1] that are trade-off functions (Prop. 1's conditions certified by
#: ``ta.is_tradeoff``): two smooth ones, randomised response f_{log 2,0}, f_{log 2,1/10}.
_X = sp.Symbol("x", real=True)
CONVEX_INSTANCES = [(1 - _X) ** 2, (sp.exp(-_X) - sp.exp(-1)) / (1 - sp.exp(-1)),
                    sp.Max(0, 1 - 2 * _X, (1 - _X) / 2),
                    sp.Max(0, R(9, 10) - 2 * _X, (R(9, 10) - _X) / 2)]


def convex_instances() -> list:
    """``ta.is_tradeoff`` (convex, continuous, non-increasing, f <= 1 - x, on a certified cover
    of [0, 1]) at :data:`CONVEX_INSTANCES`."""
    return [ta.is_tradeoff(f, _X) for f in CONVEX_INSTANCES]


# -- Sec. 5 -------------------------------------------------------------------------------------
_A, _I, _T = sp.symbols("a I theta", real=True)
_SIGMA = sp.Symbol("sigma", positive=True)
#: The features of the example, x_i^2 = 1; D1 drops the last record.
_XS = (1, -1, 1)


def dpgd_gradient(theta, xs, a) -> sp.Expr:
    """g(theta, D) = d/dtheta sum_i (y_i - theta x_i)^2/2 with y_i = a x_i (Sec. 5), by SymPy
    differentiation of the loss."""
    loss = sum(((a * x - _T * x) ** 2 / 2 for x in xs), sp.S.Zero)
    return sp.diff(loss, _T).subs(_T, theta)


def eq1_reduction() -> list:
    """mu_I = (g(I, D1) - g(I, D0))/sigma = (a - I)/sigma for the example (three records) and
    the standardised mean of theta(D1) | I: (s_I(D1) - s_I(D0))/sigma = -mu_I, symbolically in
    a, I and sigma."""
    g0, g1 = dpgd_gradient(_I, _XS, _A), dpgd_gradient(_I, _XS[:-1], _A)
    s0, s1 = _I - g0, _I - g1
    mu = (g1 - g0) / _SIGMA
    return [ta.verify(mu, "==", (_A - _I) / _SIGMA),
            ta.verify((s1 - s0) / _SIGMA, "==", -mu)]


def _arb_ends(b) -> tuple[sp.Rational, sp.Rational]:
    """The exact rational ends of an Arb ball."""
    out = []
    for e in (b.lower(), b.upper()):
        m, x = e.man_exp()
        m, x = int(m), int(x)
        q = Fraction(m * 2**x) if x >= 0 else Fraction(m, 2**-x)
        out.append(sp.Rational(q.numerator, q.denominator))
    return out[0], out[1]


def unclipped_pair() -> list:
    """The unclipped example: mu_I = (a - I)/sigma (:func:`eq1_reduction`); the characteristic
    function of Y = a - I + Z is that of N(a, 2); the output laws at
    n = 2, a = 0 are N(0, 2), N(0, 1); and the joint pair with I observed (a = 0) lies strictly
    below T(N(0, 1), N(0, 2)) at its threshold-0 point (certified: the point's Arb ball against
    the closed form at w = 9/10, where alpha(w) = 2 Phi(-w) is above the ball and
    beta(w) = 2 Phi(w/sqrt 2) - 1 exceeds the ball's beta by more than 1/10)."""
    from tradeoff_algebra.bounds.initialisation_unclipped import joint_point, output_laws
    from tradeoff_algebra.numeric.context import arb_precision

    t = sp.Symbol("t", real=True)
    cf_y = sp.exp(sp.I * t * _A) * sp.exp(-t**2 / 2) * sp.exp(-t**2 / 2)  # a - I, then + Z
    cf_n = sp.exp(sp.I * t * _A - 2 * t**2 / 2)                          # N(a, 2)
    out = eq1_reduction()[:1]  # mu_I = (a - I)/sigma: mu_I^max = a - I at sigma = 1
    out += [ta.verify(sp.re(cf_y), "==", sp.re(cf_n)), ta.verify(sp.im(cf_y), "==", sp.im(cf_n))]
    out += [ta.verify(x, "==", y) for x, y in zip(output_laws(0, 2), (0, sp.sqrt(2), 0, 1),
                                                   strict=True)]
    with arb_precision(128):
        al, be = joint_point(0, 0)
        (_, al_hi), (_, be_hi) = _arb_ends(al), _arb_ends(be)
    w = R(9, 10)
    out += [ta.verify(2 * ta.Phi(-w), ">=", al_hi),
            ta.verify(2 * ta.Phi(w / sp.sqrt(2)) - 1, ">=", be_hi + R(1, 10))]
    return out


# -- Sec. 2: the type II error ------------------------------------------------------------------
#: A pair and a test: P = (1/2, 1/3, 1/6), Q = P reversed, phi rejects H0 on the third outcome
#: (the Neyman-Pearson test at level 1/6).
TYPE2_P = (R(1, 2), R(1, 3), R(1, 6))
TYPE2_Q = (R(1, 6), R(1, 3), R(1, 2))
TYPE2_PHI = (0, 0, 1)


def type_ii_error(P=TYPE2_P, Q=TYPE2_Q, phi=TYPE2_PHI) -> sp.Rational:
    """beta_phi = 1 - E_Q[phi] (Wang et al., Sec. 2), exactly."""
    return 1 - sum((q * x for q, x in zip(Q, phi, strict=True)), sp.S.Zero)


def type_ii_printed() -> list:
    """As printed, beta_phi is the probability of accepting H1 wrongly, i.e. of rejecting H0
    while H0: P holds, E_P[phi] (= alpha_phi): 1/2 against 1/6; and the library's trade-off
    value at the test's level would be that probability."""
    accept_h1_wrongly = sum((p * x for p, x in zip(TYPE2_P, TYPE2_PHI, strict=True)), sp.S.Zero)
    return [ta.verify(type_ii_error(), "==", accept_h1_wrongly),
            ta.verify(F("evaluate", ta.Discrete(TYPE2_P, TYPE2_Q), R(1, 6)), "==",
                      accept_h1_wrongly)]


def type_ii_corrected() -> list:
    """beta_phi is the probability of accepting H0 wrongly, Q(phi does not reject) =
    sum_x Q(x)(1 - phi(x)) = 1/2, and the Neyman-Pearson test's beta is T(P, Q) at its level
    1/6 (exact)."""
    accept_h0 = sum((q * (1 - x) for q, x in zip(TYPE2_Q, TYPE2_PHI, strict=True)), sp.S.Zero)
    return [ta.verify(type_ii_error(), "==", accept_h0),
            ta.verify(F("evaluate", ta.Discrete(TYPE2_P, TYPE2_Q), R(1, 6)), "==", accept_h0)]
