"""Phi and PhiInv as SymPy functions: derivatives, rewrites, tail-accurate evalf, LaTeX.

References are computed here with mpmath directly: Phi(x) = erfc(-x/sqrt 2)/2 and the quantile
by bisection on log erfc (tests/reference_np.py), never with the package's kernels.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from mpmath import mp
from precision import workdps
from reference_np import _solve_increasing, digits
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra import Phi, PhiInv

x, p = sp.symbols("x p")
DPS = 50


def ref_phi(t):
    return mpmath.erfc(-mp.mpf(t) / mpmath.sqrt(2)) / 2


def ref_phiinv(P: sp.Rational):
    """Phi^{-1}(P) for an exact rational P, from the tail that is small."""
    a, ac = mp.mpf(P.p) / P.q, mp.mpf(P.q - P.p) / P.q
    if a <= ac:
        la = mpmath.log(a)
        return _solve_increasing(lambda t: mpmath.log(ref_phi(t)) - la, -80, 1)
    lac = mpmath.log(ac)
    return _solve_increasing(lambda t: lac - mpmath.log(ref_phi(-t)), -1, 80)


def _n(expr, dps=DPS):
    return mp.make_mpf(sp.Float(sp.N(expr, dps), dps)._mpf_)


def _assert_digits(value, ref, need):
    with workdps(DPS + 20):
        d = digits(value, ref)
    assert d >= need, f"{value} vs {ref}: {d:.1f} digits"


# -- tails -------------------------
@pytest.mark.parametrize("t", [-40, -10, R(-1, 3), 0, 1, 5, 40])
def test_phi_evalf_against_erfc(t):
    with workdps(DPS + 20):
        ref = ref_phi(t)
    _assert_digits(_n(Phi(t)), ref, DPS - 2)


def test_phi_tails():
    v = _n(Phi(-40))
    assert v < mp.mpf(10) ** -349  # no underflow to 0, no loss of relative accuracy
    with workdps(80):
        _assert_digits(v, mpmath.erfc(40 / mpmath.sqrt(2)) / 2, DPS - 2)
    # Phi(40) = 1 - 3.66e-350 rounds to 1 at 50 digits; the complement comes from Phi(-40)
    assert abs(_n(Phi(40)) - 1) < mp.mpf(10) ** -DPS
    # SymPy's adaptive evalf of the difference finds the complement when allowed the digits
    diff = mp.make_mpf(sp.N(1 - Phi(40), 20, maxn=2000)._mpf_)
    assert digits(diff, v) > 18


@pytest.mark.parametrize("P", [R(1, 10**300), R(1, 10**30), R(1, 7), R(1, 3), R(1, 2), R(5, 7),
                               1 - R(1, 10**30), 1 - R(1, 10**300)], ids=str)
def test_phiinv_evalf_against_bisection(P):
    with workdps(DPS + 20):
        ref = ref_phiinv(P)
    v = _n(PhiInv(P))
    if P == R(1, 2):
        assert v == 0 and abs(ref) < mp.mpf(10) ** -(DPS + 10)
    else:
        _assert_digits(v, ref, DPS - 2)


def test_phiinv_upper_tail_from_exact_complement():
    """PhiInv(1 - 1e-30): the complement 1e-30 is formed exactly, not from a rounded 1 - q."""
    v = _n(PhiInv(1 - R(1, 10**30)))
    _assert_digits(v, _n(-PhiInv(R(1, 10**30))), DPS - 2)
    with workdps(DPS + 20):  # from mpmath.findroot on erfc, computed once
        known = mp.mpf("11.4640246884436157269822642212360372439612984588341932384094")
    _assert_digits(v, known, DPS - 2)


# -- special values and symbolic identities ----------------------------------------------------
def test_special_values():
    assert PhiInv(R(1, 2)) == 0
    assert PhiInv(0) == -sp.oo and PhiInv(1) == sp.oo
    assert Phi(0) == R(1, 2) and Phi(sp.oo) == 1 and Phi(-sp.oo) == 0
    assert Phi(PhiInv(p)) == p
    assert PhiInv(Phi(x)) == x
    assert Phi(PhiInv(R(1, 3))) == R(1, 3)
    # unevaluated otherwise
    assert isinstance(Phi(1), Phi) and isinstance(PhiInv(R(1, 3)), PhiInv)


def test_assumptions():
    r = sp.Symbol("r", real=True)
    assert Phi(r).is_extended_real and Phi(r).is_positive
    assert PhiInv(R(1, 3)).is_extended_real
    q = sp.Symbol("q", positive=True)
    assert PhiInv(q / (1 + q)).is_extended_real


@pytest.mark.parametrize("bad", [2, -1, R(3, 2), -R(1, 10**30)])
def test_phiinv_out_of_range_raises(bad):
    with pytest.raises(ta.InvalidParameter) as exc:
        PhiInv(bad)
    msg = str(exc.value)
    assert "p" in msg and str(sp.sympify(bad)) in msg and "[0, 1]" in msg


# -- derivatives ------------------------------------------------------------------------------
def test_symbolic_derivatives():
    assert sp.diff(Phi(x), x) == sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)
    assert sp.simplify(sp.diff(PhiInv(p), p) - sp.sqrt(2 * sp.pi) * sp.exp(PhiInv(p)**2 / 2)) == 0
    # chain rule through a closed form
    assert sp.diff(Phi(2 * x), x) == 2 * sp.exp(-2 * x**2) / sp.sqrt(2 * sp.pi)


@pytest.mark.parametrize("t", [R(-3), R(1, 3), R(2)])
def test_phi_derivative_values(t):
    with workdps(40):
        ref = mpmath.diff(ref_phi, mp.mpf(t))
    _assert_digits(_n(sp.diff(Phi(x), x).subs(x, t), 40), ref, 30)


@pytest.mark.parametrize("P", [R(1, 10**10), R(1, 3), R(9, 10)])
def test_phiinv_derivative_values(P):
    with workdps(40):
        ref = mpmath.diff(lambda u: ref_phiinv_mpf(u), mp.mpf(P.p) / P.q)
    _assert_digits(_n(sp.diff(PhiInv(p), p).subs(p, P), 40), ref, 28)


def ref_phiinv_mpf(u):
    la = mpmath.log(u)
    return _solve_increasing(lambda t: mpmath.log(ref_phi(t)) - la, -80, 80)


# -- rewrites -----------------------------------------------------------------------------------
@pytest.mark.parametrize("t", [R(-7), R(-1, 3), R(0), R(5, 2)])
def test_rewrite_erfc_erf(t):
    v = _n(Phi(t))
    _assert_digits(_n(Phi(t).rewrite(sp.erfc)), v, DPS - 3)
    if t > -3:  # the erf form cancels in the lower tail
        _assert_digits(_n(Phi(t).rewrite(sp.erf)), v, DPS - 3)
    assert Phi(x).rewrite(sp.erfc) == sp.erfc(-x / sp.sqrt(2)) / 2


@pytest.mark.parametrize("P", [R(1, 10**6), R(1, 3), R(3, 4)])
def test_rewrite_erfinv_erfcinv(P):
    v = _n(PhiInv(P))
    # SymPy's erfcinv has no evalf: evaluate -sqrt(2) erfcinv(2p) with mpmath, erfcinv(y) being
    # erfinv(1 - y) with 1 - y formed exactly
    form = PhiInv(P).rewrite(sp.erfcinv)
    assert form == -sp.sqrt(2) * sp.erfcinv(2 * P)
    y = 1 - 2 * P
    with workdps(DPS + 20):
        by_erfcinv = -mpmath.sqrt(2) * mpmath.erfinv(mp.mpf(y.p) / y.q)
    _assert_digits(by_erfcinv, v, DPS - 3)
    _assert_digits(_n(form.rewrite(sp.erfinv)), v, DPS - 3)
    _assert_digits(_n(PhiInv(P).rewrite(sp.erfinv)), v, DPS - 3)
    assert PhiInv(p).rewrite(sp.erfcinv) == -sp.sqrt(2) * sp.erfcinv(2 * p)


# -- printing ---------------------------------------------------------------------------------
def test_latex():
    assert sp.latex(Phi(x)) == r"\Phi\left(x\right)"
    assert sp.latex(PhiInv(p)) == r"\Phi^{-1}\left(p\right)"
    assert sp.latex(Phi(x) ** 2) == r"\Phi^{2}\left(x\right)"
    assert sp.latex(PhiInv(p) ** 2) == r"\left(\Phi^{-1}\left(p\right)\right)^{2}"
    assert sp.latex(Phi(PhiInv(1 - p) - 1)) == \
        r"\Phi\left(\Phi^{-1}\left(1 - p\right) - 1\right)"
    assert str(Phi(PhiInv(1 - p) - 1)) == "Phi(PhiInv(1 - p) - 1)"
