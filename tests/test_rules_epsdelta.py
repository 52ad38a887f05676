"""Rules of the (eps, delta) world: f_{0,0} = Id, f_{eps,1} = 0, Eqs. (10)-(11), Max.

The reference is brute-force Neyman-Pearson on products of finite pairs, independent of the
package: f_{eps,0} = T(RR) with the randomized-response pair (e^eps, 1)/(1 + e^eps) against
(1, e^eps)/(1 + e^eps), and f_{0,delta} = T((delta, 1 - delta, 0), (0, 1 - delta, delta)) (the
discretised shifted uniforms). The optimal test of a finite pair rejects outcomes in decreasing
order of the likelihood ratio and randomises on the boundary (Neyman-Pearson lemma); every
outcome of the product is enumerated, nothing is collapsed.
"""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

import pytest
import sympy as sp
from mpmath import mp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra import EpsDelta, G, Id, Laplace, Max, Tensor, Zero
from tradeoff_algebra.families import epsdelta as edm
from tradeoff_algebra.operators import maxgroup as mg


# -- brute-force Neyman-Pearson on finite pairs ---------------------------------------------------
def np_finite(P, Q, a):
    """T(P, Q)(a): reject in decreasing likelihood ratio Q/P, randomise on the boundary."""
    inf_first = sorted(zip(P, Q, strict=True),
                       key=lambda t: (t[0] != 0, -(t[1] / t[0]) if t[0] != 0 else 0))
    size = power = 0 * a
    for p, q in inf_first:
        if p == 0:
            power += q
            continue
        if size + p <= a:
            size, power = size + p, power + q
        else:
            power += (a - size) / p * q
            break
    return 1 - power


def prod_pair(*pairs):
    P = [1]
    Q = [1]
    for Pi, Qi in pairs:
        P = [x * y for x, y in product(P, Pi)]
        Q = [x * y for x, y in product(Q, Qi)]
    return P, Q


def rr(r):
    """The pair of f_{eps,0} with e^eps = r."""
    return [r / (1 + r), 1 / (1 + r)], [1 / (1 + r), r / (1 + r)]


def ud(d):
    """The pair of f_{0,delta}."""
    return [d, 1 - d, 0 * d], [0 * d, 1 - d, d]


GRID = [F(k, 37) for k in range(38)] + [F(1, 10**12)]


def _rat(x):
    return sp.Rational(x.numerator, x.denominator)


def test_reference_pairs_are_right():
    """The pairs reproduce the closed form of f_{eps,delta} (Eq. (5)); Eq. (10) on the product."""
    for r, d in [(F(1), F(0)), (F(3), F(0)), (F(1), F(1, 4)), (F(5, 2), F(1, 3))]:
        P, Q = prod_pair(rr(r), ud(d))
        f = EpsDelta(sp.log(_rat(r)), _rat(d))
        for a in GRID:
            assert ta.evaluate(f, _rat(a)).exact == _rat(np_finite(P, Q, a))


# -- EpsDelta leaves -------------------------------------------------------------------------------
def test_epsdelta_zero_is_id():
    eps, d = sp.Symbol("varepsilon", nonnegative=True), sp.Symbol("delta", nonnegative=True)
    assert edm.epsdelta_zero_is_id.rule(EpsDelta(0, 0)) == Id
    assert edm.epsdelta_zero_is_id.rule(EpsDelta(eps, 0)) is None
    assert edm.epsdelta_zero_is_id.rule(EpsDelta(0, d)) is None
    assert edm.epsdelta_zero_is_id.rule(EpsDelta(sp.Rational(1, 10**9), 0)) is None
    assert ta.simplify(EpsDelta(0, 0)) == Id
    for a in GRID:
        assert ta.evaluate(EpsDelta(0, 0), _rat(a)).exact == 1 - _rat(a)


def test_epsdelta_delta_one_is_zero():
    eps = sp.Symbol("varepsilon", nonnegative=True)
    assert edm.epsdelta_delta_one_is_zero.rule(EpsDelta(eps, 1)) == Zero
    assert edm.epsdelta_delta_one_is_zero.rule(EpsDelta(3, 1)) == Zero
    assert edm.epsdelta_delta_one_is_zero.rule(EpsDelta(3, sp.Symbol("d"))) is None
    for e in (0, 1, sp.log(7)):
        for a in GRID:
            v = ta.evaluate(EpsDelta(e, 1), _rat(a), dps=45)
            assert v.lo == v.hi == 0


# -- Eq. (11) and the merge f_{eps,d1} (x) f_{0,d2}
@pytest.mark.parametrize("d1, d2", [(F(1, 7), F(1, 5)), (F(1, 2), F(2, 3)), (F(0), F(1, 3))])
def test_eq11_exact(d1, d2):
    t = EpsDelta(0, _rat(d1)) @ EpsDelta(0, _rat(d2))
    out = edm.epsdelta_tensor_delta.rule(t)
    assert out == EpsDelta(0, 1 - (1 - _rat(d1)) * (1 - _rat(d2)))
    P, Q = prod_pair(ud(d1), ud(d2))
    for a in GRID:
        assert ta.evaluate(out, _rat(a)).exact == _rat(np_finite(P, Q, a))


def test_eq11_three_factors_and_rest():
    d = [sp.Rational(1, 3), sp.Rational(1, 4), sp.Rational(1, 5)]
    t = Tensor(EpsDelta(0, d[0]), EpsDelta(0, d[1]), G(1), EpsDelta(0, d[2]))
    out = edm.epsdelta_tensor_delta.rule(t)
    assert out == Tensor(EpsDelta(0, sp.Rational(3, 5)), G(1))
    P, Q = prod_pair(*[ud(F(int(x.p), int(x.q))) for x in d])
    for a in GRID:
        assert _rat(np_finite(P, Q, a)) == ta.evaluate(EpsDelta(0, sp.Rational(3, 5)),
                                                       _rat(a)).exact


@pytest.mark.parametrize("r, d1, d2", [(F(3), F(1, 10), F(1, 4)), (F(2), F(0), F(1, 2)),
                                       (F(7, 3), F(1, 2), F(1, 3))])
def test_merge_eps_delta_exact(r, d1, d2):
    t = EpsDelta(sp.log(_rat(r)), _rat(d1)) @ EpsDelta(0, _rat(d2))
    out = edm.epsdelta_tensor_absorb_delta.rule(t)
    assert out == EpsDelta(sp.log(_rat(r)), 1 - (1 - _rat(d1)) * (1 - _rat(d2)))
    P, Q = prod_pair(rr(r), ud(d1), ud(d2))
    for a in GRID:
        assert ta.evaluate(out, _rat(a)).exact == _rat(np_finite(P, Q, a))


def test_merge_eps_delta_50_digits():
    """eps = 1 (e^eps irrational): brute force at 70 digits against the rewritten node."""
    d1, d2 = sp.Rational(1, 9), sp.Rational(2, 7)
    out = ta.simplify(EpsDelta(1, d1) @ EpsDelta(0, d2))
    assert out == EpsDelta(1, 1 - (1 - d1) * (1 - d2))
    with workdps(70):
        r = mp.e
        P, Q = prod_pair(rr(r), ud(mp.mpf(1) / 9), ud(mp.mpf(2) / 7))
        for k in range(1, 30):
            want = np_finite(P, Q, mp.mpf(k) / 30)
            got = ta.evaluate(out, sp.Rational(k, 30), dps=50)
            assert abs(got.mid - want) <= mp.mpf(10) ** -49 * max(want, mp.mpf(10) ** -40)


def test_merge_rules_do_not_fire():
    eps = sp.Symbol("varepsilon", nonnegative=True)
    d = sp.Symbol("delta", nonnegative=True)
    # eps not known to be zero: neither is an f_{0,d}
    t = EpsDelta(eps, d) @ EpsDelta(1, d)
    assert edm.epsdelta_tensor_delta.rule(t) is None
    assert edm.epsdelta_tensor_absorb_delta.rule(t) is None
    # a single f_{0,d} with something that is not an (eps, delta) factor
    t = EpsDelta(0, d) @ G(1)
    assert edm.epsdelta_tensor_delta.rule(t) is None
    assert edm.epsdelta_tensor_absorb_delta.rule(t) is None
    assert ta.simplify(t) == t


def test_merge_symbolic():
    eps = sp.Symbol("varepsilon", positive=True)
    d1, d2 = sp.symbols("delta1 delta2", nonnegative=True)
    out = ta.simplify(EpsDelta(0, d1) @ EpsDelta(eps, 0) @ EpsDelta(0, d2) @ Laplace(1))
    assert isinstance(out, Tensor) and Laplace(1) in out.args
    (ed,) = [f for f in out.args if isinstance(f, EpsDelta)]
    assert ed.eps == eps and sp.expand(ed.delta - (1 - (1 - d1) * (1 - d2))) == 0


# -- Max
def test_max_zero_and_id():
    assert mg.max_drop_zero.rule(Max(G(1), Zero)) == G(1)
    assert mg.max_drop_zero.rule(Max(G(1), Laplace(1), Zero)) == Max(G(1), Laplace(1))
    assert mg.max_drop_zero.rule(Max(G(1), Laplace(1))) is None
    assert mg.max_id.rule(Max(G(1), Id)) == Id
    assert mg.max_id.rule(Max(G(1), Laplace(2))) is None
    assert ta.simplify(Max(EpsDelta(2, 1), G(1))) == G(1)
    for a in GRID:
        A = _rat(a)
        assert ta.evaluate(Max(G(1), Id), A).mid == ta.evaluate(Id, A).mid
        assert ta.evaluate(Max(G(1), Zero), A, 40).mid == ta.evaluate(G(1), A, 40).mid


def test_max_same_argument():
    assert Max(G(1), G(1)) == G(1)
    assert ta.simplify(Max(G(1) @ Id, G(1))) == G(1)


@pytest.mark.parametrize("e1, d1, e2, d2", [(1, sp.Rational(1, 10), 2, sp.Rational(1, 5)),
                                            (1, sp.Rational(1, 10), 1, sp.Rational(1, 2)),
                                            (0, 0, sp.Rational(1, 2), 0)])
def test_max_dominated_epsdelta(e1, d1, e2, d2):
    m = Max(EpsDelta(e1, d1), EpsDelta(e2, d2), G(3))
    out = mg.max_dominated.rule(m)
    assert out == Max(EpsDelta(e1, d1), G(3))
    with workdps(60):
        for k in range(0, 41):
            a = sp.Rational(k, 40)
            ref = max(ta.evaluate(g, a, 50).mid for g in m.args)
            assert abs(ta.evaluate(out, a, 50).mid - ref) <= mp.mpf(10) ** -50


def test_max_epsdelta_not_dominated():
    eps, d = sp.Symbol("varepsilon", nonnegative=True), sp.Symbol("delta", nonnegative=True)
    # crossing pair: smaller eps but larger delta
    assert mg.max_dominated.rule(Max(EpsDelta(1, sp.Rational(1, 2)),
                                              EpsDelta(2, sp.Rational(1, 10)))) is None
    # unknown order
    assert mg.max_dominated.rule(Max(EpsDelta(eps, d), EpsDelta(1, d))) is None
    assert mg.max_dominated.rule(Max(EpsDelta(eps, d), EpsDelta(eps + 1, d))) == \
        EpsDelta(eps, d)
    # and the crossing pair really is a pointwise max of two different functions
    f, g = EpsDelta(1, sp.Rational(1, 2)), EpsDelta(2, sp.Rational(1, 10))
    vals = [(ta.evaluate(f, sp.Rational(k, 20)).mid, ta.evaluate(g, sp.Rational(k, 20)).mid)
            for k in range(21)]
    assert any(x > y for x, y in vals) and any(y > x for x, y in vals)


def test_max_numerics_roc_and_curve():
    m = Max(EpsDelta(1, sp.Rational(1, 10)), G(1))
    for k in (1, 7, 19):
        a = sp.Rational(k, 20)
        v, r = ta.evaluate(m, a, 40), ta.roc(m, a, 40)
        assert abs(v.mid + r.mid - 1) < mp.mpf(10) ** -39
    import numpy as np

    xs = np.linspace(0, 1, 11)
    want = [float(ta.evaluate(m, sp.Rational(k, 10), 20).mid) for k in range(11)]
    assert np.allclose(m.curve(xs), want, atol=1e-12)
