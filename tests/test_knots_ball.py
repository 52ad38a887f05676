"""The Arb-ball sign decisions of the exact knot numbers (numeric.knots._ball_sign): rigorous
where they decide, silent (None) on ties, against SymPy at 300 digits."""

from __future__ import annotations

import random

import sympy as sp

from tradeoff_algebra.numeric.knots import _ball_sign

R = sp.Rational


def _random_expr(rng: random.Random, depth: int) -> sp.Expr:
    if depth == 0:
        k = rng.randrange(4)
        if k == 0:
            return R(rng.randrange(1, 10**6), rng.randrange(1, 10**6))
        if k == 1:
            return sp.Float(rng.random() * 3, 53)
        if k == 2:
            return sp.exp(R(rng.randrange(-50, 50), rng.randrange(1, 30)))
        return R(1, 10 ** rng.randrange(1, 130))
    a, b = _random_expr(rng, depth - 1), _random_expr(rng, depth - 1)
    op = rng.randrange(6)
    if op == 0:
        return a + b
    if op == 1:
        return a - b
    if op == 2:
        return a * b
    if op == 3:
        return a / b if b != 0 else a
    if op == 4:
        return sp.log(1 + abs(a))
    return sp.sqrt(abs(a)) + b


def test_ball_signs_agree_with_sympy_at_300_digits():
    rng = random.Random(5)
    decided = 0
    for _ in range(300):
        a, b = _random_expr(rng, 3), _random_expr(rng, 3)
        s = _ball_sign(a, b)
        if s not in (1, -1):
            continue
        decided += 1
        d = sp.N(a - b, 300)
        assert (d > 0 and s == 1) or (d < 0 and s == -1), (a, b, s, d)
    assert decided >= 250


def test_ties_and_near_ties_are_left_to_the_symbolic_decision():
    e = sp.exp(R(4320303122536517, 2251799813685248))
    p = R(1, 10**122)
    x = sp.log(1 - p + p * e)
    assert _ball_sign(x + 1, 1 + x) == 0  # the same number written twice
    assert _ball_sign(1 - p * e / 10**300, 1) == 0  # 1e-422 apart: beyond the balls
    assert _ball_sign(1 - p * e, 1) == -1  # 6.8e-122 apart: separated at 640 bits


def test_knot_numbers_keep_their_digits_under_cancellation():
    """A knot number that cancels by 300 digits (1 - (1 - 10^-300) inside products with
    exp(299/200)) lost every digit in SymPy's evalf at 58 digits: a likelihood ratio of
    1.0000000000005 came out as -16384 and its logarithm as an mpc, which leaked as an
    InternalError from delta(Mix(C(1/3, f_{299/200, 1 - 10^-300}), 10^-12), 1). knot_num forms
    Arb balls until they carry the working precision; references: SymPy at 600 digits."""
    from tradeoff_algebra.numeric.context import mp
    from tradeoff_algebra.numeric.knots import knot_num

    d0 = 1 - R(1, 10**300)
    E = sp.exp(R(299, 200))
    exprs = [1 - d0, (1 - d0) * E / (3 + E * (1 - d0)), (E + 2) / 3 - d0 * (E + 2) / 3 + R(1, 7)]
    for e in exprs:
        for dps in (20, 58, 200):
            with mp.workdps(dps):
                v = knot_num(e)
                ref = mp.mpf(sp.N(e, 600)._mpf_) if not isinstance(e, sp.Rational) else \
                    mp.mpf(int(e.p)) / int(e.q)
                assert abs(v - ref) <= mp.ldexp(abs(ref), -(mp.prec - 2)), (e, dps)


def test_delta_of_a_mix_of_a_nearly_zero_epsdelta_is_exact():
    """The reproducer: f = Mix(C(1/3, f_{299/200, d0}), p), d0 = 1 - 10^-300, p = 10^-12. With
    h = C(1/3, f_{eps,d0}) and f = p h + (1 - p) Id, delta_f(1) = sup_alpha {1 - e alpha - f}
    (Dong, Roth & Su, Prop. 6) = sup_alpha {p (1 - h(alpha)) - (e - 1 + p) alpha}, attained at
    alpha = 0 (|h'| <= (e^eps + 2)/3 < 3, so the bracket decreases), where h(0) =
    (1 - d0)/3 + 2/3: delta = p d0/3 exactly."""
    import tradeoff_algebra as ta
    from tradeoff_algebra import C, EpsDelta, Mix

    d0, p = 1 - R(1, 10**300), R(1, 10**12)
    v = ta.delta(Mix(C(R(1, 3), EpsDelta(R(299, 200), d0)), p), 1, dps=40)
    truth = p * d0 / 3
    lo, hi = sp.Float(v.lo, 60), sp.Float(v.hi, 60)
    assert lo - truth / 10**39 <= truth <= hi + truth / 10**39
