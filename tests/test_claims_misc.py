"""The moment inequalities for trade-off symbols (``verify/symbolic.py``: kl, kappa_2, kappa_3,
bar kappa_3 of every f) and the helpers of ``proofs/drs_misc.py`` and ``proofs/wang_misc.py``,
each against an independent reference: moments of the log-likelihood ratio summed directly over
random finite pairs, brute-force Neyman-Pearson on the uniform shift pair, math.comb and
scipy's binomial law."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
import sympy as sp
from scipy import stats

import tradeoff_algebra as ta
from proofs.drs_misc import (
    binomial_cdf_at_zero,
    central_jump,
    uniform_shift_knots,
    uniform_shift_pair,
)
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.rewrite.general import MOMENT_FACTS
from tradeoff_algebra.verify.symbolic import prove_moment_order

R = sp.Rational
f = ta.TradeOffSymbol("f")
g = ta.TradeOffSymbol("g")
KL, K2, K3, K3B = (ta.Functional(n, f) for n in ("kl", "kappa2", "kappa3", "kappa3_bar"))


@pytest.mark.parametrize("small, big", [
    (sp.Abs(KL), K2 ** R(1, 2)), (KL, K3 ** R(1, 3)), (K2 ** R(1, 2), K3 ** R(1, 3)),
    (K2, K3 ** R(2, 3)), (K3B, 8 * K3), (K3B ** R(1, 3), 2 * K3 ** R(1, 3)), (KL**2 / 2, K2),
])
def test_moment_inequalities_hold_for_every_f(small, big):
    v = ta.verify(small, "<=", big)
    assert v.status is True and v.method == "moment inequalities"
    assert "every trade-off function f" in v.evidence
    cites = {s.rule.cite.paper.key for d in v.derivations for s in d.steps}
    assert cites <= {"Billingsley"}
    assert ta.verify(big, ">=", small).status is True


@pytest.mark.parametrize("small, big", [
    (K3B, 7 * K3),                                   # the constant 8 is not improved
    (K3, K2 ** R(3, 2)),                             # the wrong direction
    (ta.Functional("kl", g), K2 ** R(1, 2)),         # another function
    (K2, KL**2),                                     # kl^2 is not a norm of Y
])
def test_moment_prover_refuses_what_it_cannot_chain(small, big):
    assert prove_moment_order(small, big) is None


def test_wrong_moment_claims_are_refuted_by_substitution():
    v = ta.verify(K3, "<=", K2)
    assert v.status is False and "f" in v.counterexample


def test_moment_facts_name_their_source():
    for name, r in MOMENT_FACTS.items():
        assert r.relation == "upper" and r.cite.paper.key == "Billingsley", name
        assert "Sec. 3.2" in r.cite.note  # the definitions they are applied to


def _moments(P, Q):
    """kl, kappa_2, kappa_3, bar kappa_3 of T(P, Q) as moments of Y = log(q/p) under P (the
    slope of f at the P-quantile), summed directly over the atoms."""
    ys = [(p, mp.log(q / p)) for p, q in zip(P, Q, strict=True) if p > 0]
    m1 = sum(p * y for p, y in ys)
    return (-m1, sum(p * y**2 for p, y in ys), sum(p * abs(y) ** 3 for p, y in ys),
            sum(p * abs(y - m1) ** 3 for p, y in ys))


def test_moment_inequalities_on_random_finite_pairs():
    """The chained inequalities against direct sums over 200 random pairs with full support."""
    rng = random.Random(7)
    with mp.workdps(30):
        for _ in range(200):
            k = rng.randint(2, 6)
            P = [mp.mpf(rng.random() + 1e-3) for _ in range(k)]
            Q = [mp.mpf(rng.random() + 1e-3) for _ in range(k)]
            P, Q = [x / sum(P) for x in P], [x / sum(Q) for x in Q]
            kl, k2, k3, k3b = _moments(P, Q)
            assert kl >= 0
            assert abs(kl) <= mp.sqrt(k2) * (1 + mp.mpf(10) ** -25)
            assert mp.sqrt(k2) <= mp.cbrt(k3) * (1 + mp.mpf(10) ** -25)
            assert k3b <= 8 * k3 * (1 + mp.mpf(10) ** -25)


def test_moments_of_a_finite_pair_match_the_library():
    """The direct sums agree with the library's functionals of the same pair (exact moments of
    a finite representation)."""
    P, Q = [R(1, 2), R(1, 3), R(1, 6)], [R(1, 6), R(1, 3), R(1, 2)]
    with mp.workdps(40):
        ref = _moments([mp.mpf(x.p) / x.q for x in P], [mp.mpf(x.p) / x.q for x in Q])
        lib = [ta.kl(ta.Discrete(P, Q), 30), ta.kappa2(ta.Discrete(P, Q), 30),
               ta.kappa3(ta.Discrete(P, Q), 30), ta.kappa3_bar(ta.Discrete(P, Q), 30)]
        for r, v in zip(ref, lib, strict=True):
            lo, hi = v.interval()
            assert lo - mp.mpf(10) ** -25 <= r <= hi + mp.mpf(10) ** -25


def test_lazy_functionals_of_a_symbol_evaluate_after_substitution():
    x = ta.Functional("kappa2", f).xreplace({f: ta.G(1)})
    v = x.value(20)
    assert v.exact == R(5, 4) or abs(v.mid - mp.mpf(5) / 4) < mp.mpf(10) ** -18


# -- the uniform shift pair ----------------------------------------------------------------------
def _np_uniform(a: Fraction, alpha: Fraction) -> Fraction:
    """beta(alpha) of U[0, 1] vs U[a, 1 + a] by a brute-force Neyman-Pearson over a grid of
    cells of width 1/(2N): each cell is a likelihood-ratio atom, rejected by decreasing ratio
    (q/p = oo, then 1, then 0) until the P-mass alpha is spent."""
    N = 40
    cells = [(Fraction(i, 2 * N), Fraction(i + 1, 2 * N)) for i in range(4 * N)]
    atoms = []
    for lo, hi in cells:
        p = max(Fraction(0), min(hi, Fraction(1)) - max(lo, Fraction(0)))
        q = max(Fraction(0), min(hi, 1 + a) - max(lo, a))
        if p or q:
            atoms.append((math.inf if p == 0 else float(q / p), p, q))
    atoms.sort(key=lambda t: -t[0])
    left, power = alpha, Fraction(0)
    for _, p, q in atoms:
        if p <= left:
            left -= p
            power += q
        else:
            power += q * left / p
            break
    return 1 - power


@pytest.mark.parametrize("a", [Fraction(1, 10), Fraction(1, 4), Fraction(1, 2)])
def test_uniform_shift_pair_against_brute_force(a):
    U = uniform_shift_pair(R(a.numerator, a.denominator))
    for al in (Fraction(0), Fraction(1, 7), Fraction(1, 3), Fraction(3, 5), Fraction(9, 10)):
        ref = _np_uniform(a, al)
        got = ta.evaluate(U, R(al.numerator, al.denominator)).exact
        assert got == R(ref.numerator, ref.denominator)
        knots = ta.evaluate(uniform_shift_knots(R(a.numerator, a.denominator)),
                            R(al.numerator, al.denominator)).exact
        assert knots == got


def test_uniform_shift_pair_rejects_bad_shift():
    with pytest.raises(ta.InvalidParameter, match="a"):
        uniform_shift_pair(R(3, 2))


# -- Binomial(n, 1/2) ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 10, 100, 1000])
def test_binomial_helpers_against_references(n):
    assert central_jump(n) == R(math.comb(n, n // 2), 2**n)
    F0 = binomial_cdf_at_zero(n)
    assert abs(float(F0) - stats.binom.cdf(n // 2, n, 0.5)) < 1e-12
    assert F0 == (1 + central_jump(n)) / 2          # symmetry of Binomial(n, 1/2)
    assert float(central_jump(n)) >= 1 / math.sqrt(2 * n)


def test_binomial_helpers_reject_odd_n():
    with pytest.raises(ta.InvalidParameter, match="n"):
        central_jump(7)
    with pytest.raises(ta.InvalidParameter, match="n"):
        binomial_cdf_at_zero(0)


# -- proofs/wang_misc.py -------------------------------------------------------------------------
def test_dpgd_gradient_against_the_hand_formula():
    """g(theta, D) = sum_i (theta x_i - y_i) x_i = |D| (theta - a) when y_i = a x_i, x_i^2 = 1."""
    from proofs.wang_misc import dpgd_gradient

    th, a = sp.symbols("th a", real=True)
    for xs in [(1,), (1, -1, 1), (-1, -1, 1, 1, -1)]:
        assert sp.expand(dpgd_gradient(th, xs, a) - len(xs) * (th - a)) == 0
    assert dpgd_gradient(R(1, 2), (1, -1), 3) == 2 * (R(1, 2) - 3)


def test_type_ii_error_against_a_direct_count():
    from proofs.wang_misc import TYPE2_P, TYPE2_PHI, TYPE2_Q, type_ii_error

    # Q(phi = 0): the outcomes where the test does not reject H0
    accept = sum(q for q, x in zip(TYPE2_Q, TYPE2_PHI, strict=True) if x == 0)
    assert type_ii_error() == accept == R(1, 2)
    assert sum(p for p, x in zip(TYPE2_P, TYPE2_PHI, strict=True) if x == 1) == R(1, 6)
    assert type_ii_error([R(3, 4), R(1, 4)], [0, 1], [0, 1]) == 0


def test_gaussian_variance_pair_closed_form_against_quadrature():
    """T(N(0,1), N(0,2)) at the test |x| > w: alpha = 2 Phi(-w), beta = 2 Phi(w/sqrt 2) - 1,
    against mpmath quadrature of the two densities."""
    with mp.workdps(30):
        w = mp.mpf(9) / 10
        p = lambda x: mp.npdf(x, 0, 1)  # noqa: E731
        q = lambda x: mp.npdf(x, 0, mp.sqrt(2))  # noqa: E731
        alpha = 2 * mp.quad(p, [w, mp.inf])
        beta = mp.quad(q, [-w, w])
        assert abs(alpha - 2 * mp.ncdf(-w)) < mp.mpf(10) ** -20
        assert abs(beta - (2 * mp.ncdf(w / mp.sqrt(2)) - 1)) < mp.mpf(10) ** -20


def test_joint_point_at_zero_against_quadrature():
    """The joint pair with I observed at a = 0, threshold 0: alpha = beta = E Phi(-|I|/2), by
    mpmath quadrature, inside the Arb ball of bounds/initialisation_unclipped."""
    from flint import arb

    from tradeoff_algebra.bounds.initialisation_unclipped import joint_point
    from tradeoff_algebra.numeric.context import arb_precision

    with arb_precision(128):
        al, be = joint_point(0, 0)
    with mp.workdps(30):
        ref = 2 * mp.quad(lambda i: mp.npdf(i) * mp.ncdf(-i / 2), [0, mp.inf])
    r = arb(mp.nstr(ref, 25), 1e-20)  # the quadrature to 20 digits
    assert al.overlaps(r) and be.overlaps(r)


def test_misc_claim_helpers_hold():
    from proofs.wang_misc import (
        convex_instances,
        eq1_reduction,
        type_ii_corrected,
        type_ii_printed,
        unclipped_pair,
    )

    assert all(v.status is True for v in convex_instances() + eq1_reduction()
               + unclipped_pair() + type_ii_corrected())
    assert all(v.status is False for v in type_ii_printed())


# -- the registry entries --------------------------------------------------------------------------
def _entry(paper: str, locator: str, words: str):
    import proofs
    from proofs._claims import CLAIMS

    proofs.load_all()
    return next(c for c in CLAIMS if c.paper.startswith(paper) and c.locator == locator
                and words in c.statement)


def test_registry_kappa3_finiteness_is_proved_from_textbook_inequalities():
    from proofs._claims import check_one

    r = check_one(_entry("Dong", "Sec. 3.2 text (after Thm. 5)", "kappa_3(f_i) < inf"))
    assert r.status == "proved" and not r.circular, r.evidence
    assert {"f": "every trade-off function f"} in r.scope["boxes"]
    cites = {b.cite for b in r.basis if b.cite}
    assert cites == {"Billingsley, Lyapunov's inequality", "Billingsley, Minkowski's inequality"}


@pytest.mark.parametrize("paper, locator, words, status", [
    ("Dong", "Sec. 3.3 text", "U[0,1], N(mu,1)", "holds at the stated instances"),
    ("Dong", "Sec. 3.3 text", "rate-optimal", "holds at the stated instances"),
    ("Wang", "Sec. 3 text", "always convex", "holds at the stated instances"),
    ("Wang", "Eq. (1); Sec. 5 text", "reduces to the joint pair", "holds at the stated instances"),
    ("Wang", "Sec. 5 text", "dominating pair", "holds at the stated instances"),
    ("Wang", "Sec. 2 text", "accept the alternative H1 wrongly", "fails as printed"),
])
def test_registry_entries(paper, locator, words, status):
    from proofs._claims import check_one

    r = check_one(_entry(paper, locator, words))
    assert r.status == status, r.evidence
    assert r.basis and not r.circular
