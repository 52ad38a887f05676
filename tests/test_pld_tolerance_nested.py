"""A tighter tolerance never gives a wider result (issue 29) in the PLD engine itself
(:mod:`tradeoff_algebra.numeric.pld`): the enclosures of delta(eps), eps(delta), f(alpha),
1 - f(alpha) and the whole curves at the tolerances 5e-4, 1e-6 and 1e-9 each lie inside the
looser tolerance's (the grids a refinement visits depend only on the stage reached, and the
result is the intersection over all of them: a tighter tolerance extends the looser one's
path). Validity against an independent reference: the closed forms of G_mu (the engine's
grid of G_1 and of G_1^{(x) 3} = G_{sqrt 3}, Dong, Roth & Su, Cor. 2:
f(alpha) = Phi(Phi^-1(1 - alpha) - mu),
delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)) at 30 digits (mpmath)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import pld
from tradeoff_algebra.numeric.context import mp

R = sp.Rational
TOLS = (5e-4, 1e-6, 1e-9)
def _delta(eps, MU):
    with mp.workdps(30):
        mu, e = mp.sqrt(MU), mp.mpf(eps)
        return mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2)


def _f(alpha, MU):
    with mp.workdps(30):
        a = mp.mpf(float(alpha))
        if a == 0:
            return mp.one
        if a == 1:
            return mp.zero
        return mp.ncdf(mp.sqrt(2) * mp.erfinv(1 - 2 * a) - mp.sqrt(MU))


#: the truth's test for each question: does [lo, hi] hold the closed form's value?
def _holds(question, arg, lo, hi, MU) -> bool:
    """(MU: mu^2 of the G_mu product)"""
    if question == "delta_enclosure":
        t = _delta(arg, MU)
    elif question == "value_enclosure":
        t = _f(arg, MU)
    elif question == "roc_enclosure":
        t = 1 - _f(arg, MU)
    else:  # eps(d) in [lo, hi] iff delta(lo) >= d >= delta(hi) (delta decreases)
        return _delta(lo, MU) >= mp.mpf(arg) >= _delta(hi, MU)
    return mp.mpf(lo) <= t <= mp.mpf(hi)


PRODUCTS = {
    "G(1)": lambda: ((ta.G(1), 1),),
    "G(1)^3": lambda: ((ta.G(1), 3),),
    "C(1/10,G(1))^3": lambda: ((ta.C(R(1, 10), ta.G(1)), 3),),
    "Laplace(1/2)^4": lambda: ((ta.Laplace(R(1, 2)), 4),),
}
QUESTIONS = [("delta_enclosure", 1.0), ("epsilon_enclosure", 1e-6),
             ("value_enclosure", 1e-3), ("roc_enclosure", 1e-2)]
#: below 2 s at all three tolerances (the others refine to the float64 floor at 1e-9)
FAST = {("Laplace(1/2)^4", "epsilon_enclosure"), ("Laplace(1/2)^4", "value_enclosure")}
#: the questions asked of each product (delta and eps of the powers at 1e-9 take minutes)
ASKED = {"G(1)": ("delta_enclosure", "epsilon_enclosure"),
         "G(1)^3": ("value_enclosure", "roc_enclosure"),
         "C(1/10,G(1))^3": ("value_enclosure", "roc_enclosure")}


def _cases():
    for name in PRODUCTS:
        for q, arg in QUESTIONS:
            if name in ASKED and q not in ASKED[name]:
                continue
            marks = [] if (name, q) in FAST else [pytest.mark.slow]
            yield pytest.param(name, q, arg, id=f"{name}-{q}", marks=marks)


@pytest.mark.parametrize("name, question, arg", list(_cases()))
def test_a_tighter_tolerance_lies_inside_the_looser_one(name, question, arg):
    leaves = PRODUCTS[name]()
    got = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.ToleranceWarning)
        for tol in TOLS:
            got.append(getattr(pld, question)(leaves, arg, tol))
    for (llo, lhi), (tlo, thi) in zip(got, got[1:], strict=False):
        assert llo <= tlo <= thi <= lhi, (got, question)
    if name.startswith("G"):
        mu2 = PRODUCTS[name]()[0][1]
        for lo, hi in got:
            assert _holds(question, arg, lo, hi, mu2), (lo, hi, question)


X = np.concatenate([[0.0, 1e-9, 1e-6, 1e-4], np.linspace(0, 1, 21)])


@pytest.mark.parametrize("tols", [pytest.param(TOLS[:2], id="5e-4,1e-6"),
                                  pytest.param(TOLS, id="5e-4,1e-6,1e-9",
                                               marks=pytest.mark.slow)])
def test_the_curve_of_a_gaussian_product_nests_and_holds_the_closed_form(tols):
    """pld.curve_enclosure of G_1^{(x) 3}: every level inside the looser tolerance's and
    holding f(alpha) = Phi(Phi^-1(1 - alpha) - sqrt 3) at 30 digits."""
    leaves = PRODUCTS["G(1)^3"]()
    got = [pld.curve_enclosure((leaves,), X, tol=tol) for tol in tols]
    truth = [_f(a, 3) for a in X]
    for lo, hi in got:
        for a, b, t in zip(lo, hi, truth, strict=True):
            assert mp.mpf(a) <= t <= mp.mpf(b)
    for (llo, lhi), (tlo, thi) in zip(got, got[1:], strict=False):
        assert np.all(llo <= tlo) and np.all(thi <= lhi)


def test_the_curve_reads_every_grid_of_the_path():
    """Every level lies inside what the refinement's last grid alone gives (the curve
    intersects every grid of the path; the last grid recomputed here on its own), and the
    median level meets the engine's value enclosure there (another computation of the bounds,
    :func:`~tradeoff_algebra.numeric.pld_hull.hull_roc_bounds`, on the same path)."""
    leaves = PRODUCTS["C(1/10,G(1))^3"]()
    x = np.array([1e-6, 0.25, 0.5, 0.75, 0.9])
    lo, hi = pld.curve_enclosure((leaves,), x, tol=1e-6)
    vlo, vhi = pld.value_enclosure(leaves, 0.5, 1e-6)
    assert max(vlo, lo[2]) <= min(vhi, hi[2])
    r = pld.value_refinement((leaves,), 0.5, 0.5, False)
    pld.max_enclosure([r], 1e-6)
    c = pld._composed(leaves, r.h, r.tau, 0.0, False, pld.MAX_FFT)
    glo, ghi = pld.value_bounds_from_roc(*pld.hull_roc_bounds_many([c], x), x)
    assert np.all(glo <= lo) and np.all(hi <= ghi)
    assert np.all(lo <= hi)
