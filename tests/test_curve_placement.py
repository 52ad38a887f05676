"""The float placement of a whole curve's thresholds (the levels' eps, before any certified point):
``routes/inversion_tails._newton`` steps only the levels not yet settled and settles the level 0
at its bracket's end at once; ``numeric/cf_lattice_curve._solve`` brackets a loss of more than
``DENSE_ATOMS`` atoms on a coarse grid and starts Newton's steps from the log-linear guess.
References: 30-digit Neyman-Pearson powers from the loss tails (``references.np_power`` with
``gauss_laplace_tail``; ``references.laplace_mixed``'s nested quadrature), the stored value at
0.3 recomputed in tests/test_tol_chain.py; the bands before the change (the same to the last
bit for G(1) (x) Laplace(1))."""

import functools
import warnings

import numpy as np
import pytest
import sympy as sp
from references.np_power import gauss_laplace_tail, np_power
from test_tol_chain import POWER_03

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import cf_lattice_curve, tol_nest
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes import inversion_tails

R = sp.Rational


@functools.cache
def _power_gl(alpha) -> mp.mpf:
    """1 - f(alpha) of G(1) (x) Laplace(1) to 30 digits (Neyman-Pearson from the loss tails)."""
    with mp.workdps(30):
        alpha = mp.mpf(alpha.p) / alpha.q
        return np_power(lambda s: gauss_laplace_tail(1, 1, False, s),
                        lambda s: gauss_laplace_tail(1, 1, True, s), alpha, -20, 20, 80)


def _holds(lo: float, hi: float, ref) -> bool:
    """Whether the band's power [1 - hi, 1 - lo] of f holds the 30-digit reference."""
    with mp.workdps(30):
        return 1 - mp.mpf(hi) <= ref <= 1 - mp.mpf(lo)


@pytest.mark.parametrize("tol", [1e-9, 5e-4])
def test_g_laplace_curve_holds_neyman_pearson_powers(tol, monkeypatch):
    """G(1) (x) Laplace(1) on 101 levels: the power at 0.3 (stored, 30 digits) and at 0.05 and
    0.8 (computed here) inside the band, every interior level within tol; the float sums are
    evaluated at most 20 times (43 before: the level 0's bisection ran 30 steps of every
    target's sums)."""
    calls = []
    orig = inversion_tails._Tails.estimate

    def counted(self, e):
        calls.append(np.asarray(e).size)
        return orig(self, e)

    monkeypatch.setattr(inversion_tails._Tails, "estimate", counted)
    tol_nest.clear()
    f = ta.Tensor(ta.G(1), ta.Laplace(1))
    x = np.linspace(0, 1, 101)
    with ta.pld_options(tol=tol), warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi = ta.curve(f, x, bounds=True)
    assert len(calls) <= 20
    inner = slice(1, -1)
    assert np.all((hi - lo)[inner] <= tol * (1 - lo)[inner])
    with mp.workdps(30):
        assert _holds(lo[30], hi[30], mp.mpf(POWER_03["gl"]))
    for i in (5, 80):
        assert _holds(lo[i], hi[i], _power_gl(R(i, 100))), i


def test_newton_settles_a_zero_target_at_its_bracket_end():
    """A level 0 (no eps of the bracket reaches it: the value is positive there) is settled
    at ``hi`` without a step; the other targets are Newton's roots of e^{-eps} = t."""

    class _Exp:
        def __init__(self):
            self.sizes = []

        def estimate(self, e):
            e = np.asarray(e, dtype=np.float64)
            self.sizes.append(e.size)
            v = np.exp(-e)
            return (v, v, v, -v, -v, np.zeros_like(e))

    d = _Exp()
    t = np.array([0.0, 0.5, 0.01])
    lo, hi = np.zeros(3), np.full(3, 10.0)
    e = inversion_tails._newton(d, t, lo, hi, 1)
    assert e[0] == 10.0
    assert abs(e[1] - np.log(2)) < 1e-12 and abs(e[2] - np.log(100)) < 1e-12
    assert max(d.sizes) == 2 and len(d.sizes) < 30


def _coarse_and_fine(monkeypatch, x):
    from tradeoff_algebra.routes.tail_laws import mixed_curve

    f = ta.Tensor(ta.Laplace(R(1, 2)), ta.Laplace(R(1, 3)), ta.Laplace(R(7, 5)))
    fine = mixed_curve(f, x, 1e-9)
    monkeypatch.setattr(cf_lattice_curve, "DENSE_ATOMS", 0)
    band = mixed_curve(f, x, 1e-9)
    assert band is not None and fine is not None
    inner = (x > 0) & (x < 1)
    assert np.all((band.power_hi - band.power_lo)[inner] <= 1e-9 * band.power_hi[inner])
    assert np.all(np.maximum(band.power_lo, fine.power_lo)
                  <= np.minimum(band.power_hi, fine.power_hi))
    return band


def test_coarse_grid_placement_holds_the_stored_power(monkeypatch):
    """Laplace(1/2) (x) Laplace(1/3) (x) Laplace(7/5) at tol 1e-9 with every loss taken as
    dense (``DENSE_ATOMS`` = 0: the coarse grid and the log-linear start, the atoms still
    decided before the steps where a bracket holds few): every level within tol, the band
    meets the fine grid's at every level, and holds the power at 0.3 (stored, 30 digits)."""
    x = np.linspace(0, 1, 51)
    band = _coarse_and_fine(monkeypatch, x)
    with mp.workdps(30):
        p = mp.mpf(POWER_03["lprod"])
        assert mp.mpf(band.power_lo[15]) <= p <= mp.mpf(band.power_hi[15])


@pytest.mark.slow
def test_coarse_grid_placement_holds_neyman_pearson_powers(monkeypatch):
    """As above, and the powers at 0.02 and 0.9 from the nested quadrature (20 digits) inside
    the band."""
    from references.laplace_mixed import tail

    x = np.linspace(0, 1, 51)
    band = _coarse_and_fine(monkeypatch, x)
    mus = [mp.mpf(1) / 2, mp.mpf(1) / 3, mp.mpf(7) / 5]
    with mp.workdps(20):
        for i in (1, 45):
            a = mp.mpf(x[i])
            ref = np_power(lambda s: tail(mus, False, s), lambda s: tail(mus, True, s), a,
                           -3, 3, 60)
            slack = mp.mpf(10) ** -16
            assert band.power_lo[i] - slack <= ref <= band.power_hi[i] + slack, i
