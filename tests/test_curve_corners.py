"""Whole curves from certified Neyman-Pearson points taken many at once
(``numeric/cf_tails.TailInverter.corners_here``: the blocks' sums of every threshold by one
``acb_mat`` product, each end of a ball taken before any union) and the size's threshold by
Newton steps in log c (``routes/inversion_tails._alpha_eps``).

References, independent of the inversion: 30-digit loss tails of G(1) (x) Laplace(1) by mpmath
quadrature (``references.np_power.gauss_laplace_tail``) and its Neyman-Pearson powers
(``np_power``); dp_accounting's power brackets of DP-SGD (sigma = 1.1, q = 256/60000, T = 10)
stored in tests/test_dpsgd_fewstep_curve.py; the single points of ``TailInverter.point_here``
(one Arb polynomial per threshold) and the search in eps (``_alpha_eps_saddles``)."""

import functools
import math
import warnings

import numpy as np
import pytest
import sympy as sp
from references.np_power import gauss_laplace_tail, np_power
from test_dpsgd_fewstep_curve import BRACKETS, SIGMA, Q, _meets

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import tol_nest
from tradeoff_algebra.numeric.cf_laws import upper, working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.routes import inversion_curve, inversion_tails, tail_points
from tradeoff_algebra.routes.engines import _cf_laws

R = sp.Rational
GL = ta.Tensor(ta.G(1), ta.Laplace(1))
LEVELS = np.linspace(0, 1, 101)


@functools.cache
def _power_gl(i: int) -> mp.mpf:
    """1 - f(i/100) of G(1) (x) Laplace(1) to 30 digits (Neyman-Pearson from the loss tails)."""
    with mp.workdps(30):
        return np_power(lambda s: gauss_laplace_tail(1, 1, False, s),
                        lambda s: gauss_laplace_tail(1, 1, True, s), mp.mpf(i) / 100, -20, 20, 90)


def _inverters(monkeypatch, f, tol: float) -> list:
    """The grids, precisions and directions of every certified batch of one curve of f."""
    seen: list = []
    orig = tail_points._certify

    def spy(dirs, grid, pts, px, py, prec, progress=None):
        seen.append((dirs, np.array(grid), prec))
        return orig(dirs, grid, pts, px, py, prec, progress)

    monkeypatch.setattr(tail_points, "_certify", spy)
    tol_nest.clear()
    with ta.pld_options(tol=tol), warnings.catch_warnings():
        warnings.simplefilter("error")
        ta.curve(f, LEVELS, bounds=True)
    monkeypatch.undo()
    return seen


@pytest.mark.parametrize("tol", [5e-4, 1e-9])
def test_corners_hold_the_quadrature_tails_and_are_no_wider_than_the_points(tol, monkeypatch):
    """Every threshold certified for G(1) (x) Laplace(1)'s curve (91 at 5e-4, 103 at 1e-9): the
    corners hold the 30-digit tails (alpha = P(L > eps) under P, the power under Q, delta =
    power - e^eps alpha), and each is at least as tight as the same inverter's single point."""
    seen = _inverters(monkeypatch, GL, tol)
    assert seen
    checked = 0
    for dirs, grid, prec in seen:
        for d in dirs:
            for inv in d.inv:
                es = grid.tolist()
                with working_precision(prec):
                    many = inv.corners_here(es)
                    for k, (e, (x1, y1, x2, y2, d_hi)) in enumerate(zip(es, many, strict=True)):
                        p = inv.point_here(e)
                        assert x1 <= upper(p.alpha) and y1 >= -upper(-p.power)
                        assert x2 <= upper(1 - p.power) and y2 >= -upper(p.alpha - 1)
                        assert d_hi <= upper(p.delta)
                        if k % 7:  # (a share of them against the quadrature: 30 digits each)
                            continue
                        with mp.workdps(30):
                            a = gauss_laplace_tail(1, 1, False, mp.mpf(e))
                            pw = gauss_laplace_tail(1, 1, True, mp.mpf(e))
                            assert a <= x1 and pw >= y1
                            assert 1 - pw <= x2 and 1 - a >= y2
                            assert pw - mp.exp(e) * a <= d_hi
                            # (and tight: the corners within the tolerance's share of the power)
                            assert x1 - a <= tol * pw and pw - y1 <= tol * pw
                        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("tol", [5e-4, 1e-9])
def test_gl_curve_holds_the_neyman_pearson_powers_on_both_branches(tol):
    """101 levels of G(1) (x) Laplace(1): the band holds the 30-digit power at levels of both
    branches (sizes reached by alpha, 0.01 to 0.3, and by the mirror image, 0.6 to 0.99),
    every interior level within tol of the power, and the band at 1e-9 inside the one at
    5e-4 (one process: the tolerance chain)."""
    tol_nest.clear()
    bands = {}
    for t in (5e-4, tol):
        with ta.pld_options(tol=t), warnings.catch_warnings():
            warnings.simplefilter("error")
            bands[t] = ta.curve(GL, LEVELS, bounds=True)
    lo, hi = bands[tol]
    inner = slice(1, -1)
    assert np.all((hi - lo)[inner] <= tol * (1 - lo)[inner])
    for i in (1, 12, 30, 61, 77, 95, 99):
        with mp.workdps(30):
            ref = _power_gl(i)
            assert 1 - mp.mpf(float(hi[i])) <= ref <= 1 - mp.mpf(float(lo[i])), i
    llo, lhi = bands[5e-4]
    assert np.all(llo <= lo) and np.all(hi <= lhi)


def _sets(f) -> list:
    return [[(law, int(n)) for law, n in s]
            for s in _cf_laws(list(inversion_curve._directions(f)))]


@pytest.mark.parametrize("name", ["gl", "dpsgd", "laplace5", "mixed"])
def test_alpha_eps_in_log_c_meets_the_search_in_eps(name):
    """_alpha_eps (Newton steps in log c) against _alpha_eps_saddles (regula falsi in eps, a
    saddle point each step) for each direction and sizes 0.3, 0.01, 0.001: the same answer at
    the ends (0 where alpha(0) is below the size, cap/2 where no saddle point exists at cap:
    Laplace(1)^5's loss is at most 5, the remove direction's of DP-SGD at most 0.043), else
    both within ALPHA_EPS_TOL of the saddle-point size (the same equation), within 1e-3 of
    each other."""
    f = {"gl": GL, "dpsgd": ta.noisy_sgd(SIGMA, Q, 10),
         "laplace5": ta.TensorPower(ta.Laplace(1), 5),
         "mixed": ta.Tensor(*([ta.G(R(1, 3) + R(i, 1000)) for i in range(5)]
                              + [ta.Laplace(R(1, 10) + R(i, 10**4)) for i in range(5)]))}[name]
    cf = inversion_tails.cf
    for s in _sets(f):
        for a in (0.3, 0.01, 0.001):
            cap = 2.0 ** math.ceil(math.log2(math.log(1 / a) + 1))
            old = inversion_tails._alpha_eps_saddles(s, a, cap)
            new = inversion_tails._alpha_eps(s, a, cap)
            if old in (0.0, cap, cap / 2) or new in (0.0, cap, cap / 2):
                assert new == old, (name, a, old, new)
                continue
            assert abs(new - old) <= 1e-3 * max(old, 1.0), (name, a, old, new)
            c = cf._saddle(s, new)
            log_a = math.log(c) + cf._log_delta_saddle(s, c, new) - new
            assert abs(log_a - math.log(a)) <= 2 * inversion_tails.ALPHA_EPS_TOL


@pytest.mark.parametrize("tol", [5e-4, pytest.param(1e-9, marks=pytest.mark.slow)])
def test_ten_steps_curve_meets_dp_accounting_at_three_levels(tol, monkeypatch):
    """DP-SGD (sigma = 1.1, q = 256/60000, T = 10), 101 levels: one plan per direction at both
    tolerances (at 1e-9 the remove direction, of bounded loss, planned twice before its first
    plan was made BOUNDED_FIRST times tighter: ``inversion_tails._Tails.first_rel``); the
    powers at 0.01, 0.1, 0.3 meet dp_accounting's brackets (pessimistic and optimistic PLDs
    at grid 1e-4), every interior level within tol, no warning."""
    seen: list = []
    orig = inversion_tails._Tails.plan

    def plan(self, e0):
        seen.append(id(self))
        return orig(self, e0)

    monkeypatch.setattr(inversion_tails._Tails, "plan", plan)
    f = ta.noisy_sgd(SIGMA, Q, 10)
    with warnings.catch_warnings(), ta.time_limit(None):
        warnings.simplefilter("error")
        b = inversion_curve.inversion_band(f, LEVELS, tol)
    assert len(seen) == 2 and len(set(seen)) == 2
    for i in (1, 10, 30):
        assert _meets(float(b.power_lo[i]), float(b.power_hi[i]), BRACKETS[(10, i / 100)]), i
    inner = (LEVELS > 0) & (LEVELS < 1)
    assert np.all(b.power_hi[inner] - b.power_lo[inner] <= tol * b.power_hi[inner])
