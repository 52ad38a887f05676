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
