"""Profile factors (numeric.pld_profile): loss laws built from certified privacy-profile
enclosures bracket the profile at every real eps, and products with them enclose closed forms,
the exact-model route and independent quadrature references."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from precision import workdps
from scipy import special

import tradeoff_algebra as ta
from tradeoff_algebra import EpsDelta, G, Group, Laplace, Max
from tradeoff_algebra.core.errors import NoClosedForm
from tradeoff_algebra.numeric import pld
from tradeoff_algebra.numeric import pld_profile as pp

H = 2.0**-12  # a fixed grid keeps the tests fast; the enclosures hold on every grid
RTOL = 2e-3  # a coarse node target keeps the node counts (and the tests) small


def sym_delta(f, e) -> mpmath.mpf:
    """delta_f(e) at any real e for a symmetric f with a closed-form profile (30 digits):
    Prop. 6 for e >= 0, and delta(-e) = 1 - e^{-e} + e^{-e} delta(e) below."""
    v = ta.delta(f, abs(e), dps=30)
    assert v.lo == v.hi or v.exact is not None  # a point, or exact (ends rounded outward)
    if e >= 0:
        return v.mid
    with workdps(40):
        y = mpmath.exp(mpmath.mpf(e))
        return 1 - y + y * v.mid


def laplace_delta(mu: float, e) -> mpmath.mpf:
    """delta of L_mu at any real e, from the Laplace loss law (Dong, Roth & Su, Prop. 7)
    written out independently of the library: 1 - e^{(e - mu)/2} on [0, mu], 0 beyond."""
    e = mpmath.mpf(e)
    if e < 0:
        y = mpmath.exp(e)
        return 1 - y + y * laplace_delta(mu, -e)
    return max(mpmath.mpf(0), 1 - mpmath.exp((e - mu) / 2))


def measure_profile(model, e) -> mpmath.mpf:
    """The profile of an AtomLoss's Q-law at eps = e, in exact-enough arithmetic."""
    with workdps(40):
        e = mpmath.mpf(e)
        terms = [mpmath.mpf(q) * -mpmath.expm1(e - mpmath.mpf(l))
                 for l, q in zip(model.l, model.qm, strict=True) if l > e]
        return mpmath.fsum(terms) + mpmath.mpf(model.q_inf)


@pytest.mark.parametrize("f", [G(1), Laplace(1), EpsDelta(1, sp.Rational(1, 10))])
def test_sides_bracket_the_profile_at_every_eps(f):
    """Forced through the profile route (these factors also have exact models): the pessimistic
    law's profile is >= delta and the optimistic one's <= delta, at negative eps, inside the
    nodes and beyond them; so are the discretised halves composed on their own, whose width
    exceeds the exact-model route's by at most 2 RTOL where that route is narrow (away from the
    deep tails, where the untilted engine's absolute floor dominates both) and from the lowest
    node up."""
    m = pp.profile_models(f, rtol=RTOL)
    lo_n, hi_n = m.info["range"]
    pts = sorted(set(np.linspace(-14, 14, 8).tolist()
                     + [lo_n - 0.3, lo_n + 1e-3, hi_n - 1e-3, hi_n + 0.3, 0.3, 1.0, 2.7]))
    for e in pts:
        d = sym_delta(f, e)
        assert measure_profile(m.opt, e) <= d <= measure_profile(m.pess, e), e
    assert m.pess.qm.sum() + m.pess.q_inf >= 1 - 1e-12
    assert (m.opt.pm.sum()) <= 1
    c = pld.compose([(pp.profile_factor(f, H, rtol=RTOL), 1)])
    ce = pld.compose([(pld.discretise(pld.leaf_model(f), H), 1)])
    for e in np.linspace(-14, 14, 113).tolist() + pts:
        lo, hi = c.delta_bounds(e)
        elo, ehi = ce.delta_bounds(e)
        d = sym_delta(f, e)
        assert lo <= d <= hi, e
        # where the engine's own floor (deep tails, no tilt) is low, from the lowest node up:
        # below it the optimistic law holds only the atoms the nodes show (f_{1,1/10}'s atom
        # at the lowest node -1 itself is not seen, so its mass is missing below -1)
        if ehi - elo <= 1e-4 * d and e >= lo_n:
            # the node gap (2 RTOL d) plus the optimistic rounding of the profile's atoms
            # down to the grid (first order: at most h times the Q-mass they carry, <= 1)
            assert hi - lo <= (ehi - elo) + 2 * RTOL * d + H, e


def test_gaussian_profile_factor_times_gaussian_encloses_cor2():
    """G_1 (profile route) (x) G_1 (exact model) against G_sqrt2 (Cor. 2), narrow."""
    fac = pp.profile_factor(G(1), H, rtol=RTOL)
    fg = pld.discretise(pld.leaf_model(G(1)), H)
    c = pld.compose([(fac, 1), (fg, 1)])
    for e in (0.0, 0.5, 1.0, 2.0, 4.0):
        ref = ta.delta(G(sp.sqrt(2)), e, dps=30).mid
        lo, hi = c.delta_bounds(e)
        assert lo <= ref <= hi
        assert hi - lo < 2 * RTOL * ref


def test_laplace_cubed_against_exact_route():
    """L_1^{(x)3}: the profile factor cubed against the Laplace model cubed (on the grid 2^-10:
    for this bounded loss the engine's saturated Chernoff tilt makes the optimistic fold bound
    of the exact route itself wide on finer fixed grids)."""
    h = 2.0**-10
    fac = pp.profile_factor(Laplace(1), h, rtol=RTOL)
    exact = pld.discretise(pld.leaf_model(Laplace(1)), h)
    cp = pld.compose([(fac, 3)])
    ce = pld.compose([(exact, 3)])
    for e in (0.0, 0.5, 1.0, 1.5, 2.5):
        lo, hi = cp.delta_bounds(e)
        elo, ehi = ce.delta_bounds(e)
        assert ehi - elo < 1e-5 * ehi  # the exact route is the sharper reference
        assert lo <= elo and ehi <= hi
        if e <= 1.0:  # (towards the edge of the support, at 3, the relative width grows)
            assert hi - lo < 2 * RTOL * hi


def test_group_laplace_times_laplace_against_quadrature():
    """Group(L_1, 2) has no loss model; leaf_factor takes its certified profile. Group privacy
    of the Laplace mechanism is L_2 (checked here at a few alpha), so delta of the product at
    eps is E_{l ~ loss of L_1 under Q}[delta_{L_2}(eps - l)] (conditioning on the second
    coordinate, as in tests/test_pld.py), computed by mpmath quadrature."""
    f = Group(Laplace(1), 2)
    for a in ("0.05", "0.3", "0.7"):
        v, ref = ta.evaluate(f, a, dps=20), ta.evaluate(Laplace(2), a, dps=30).mid
        assert abs(v.mid - ref) <= 1e-15 * ref
    with pytest.raises(NoClosedForm):
        pld.leaf_model(f)
    b = 1.0

    def reference(eps):
        eps = mpmath.mpf(eps)
        brk = sorted({-b, b, *(x for x in (eps - 2, eps + 2) if -b < x < b)})
        return (laplace_delta(2, eps - b) / 2 + mpmath.exp(-b) / 2 * laplace_delta(2, eps + b)
                + mpmath.quad(lambda l: laplace_delta(2, eps - l) * mpmath.exp((l - b) / 2) / 4,
                              brk))

    h = 2.0**-10  # (bounded losses: see test_laplace_cubed_against_exact_route)
    with pp.profile_options(rtol=RTOL):
        c = pld.compose([(pp.leaf_factor(f, h), 1),
                         (pp.leaf_factor(Laplace(1), h), 1)])
    for e in (0.0, 0.5, 1.0, 2.0, 2.8):
        with workdps(30):
            ref = reference(e)
        lo, hi = c.delta_bounds(e)
        assert lo <= ref <= hi
        if e <= 1.0:  # (towards the edge of the support, at 3, the relative width grows)
            assert hi - lo < 2 * RTOL * ref


def _max_gl_profile():
    """delta of Max(G_1, L_1) on a fine eps grid: the conjugate of a pointwise maximum is the
    closed convex hull of the minimum of the conjugates, so by Prop. 6 the profile is the lower
    convex envelope in x = e^eps of min(delta_G, delta_L) (closed forms, float64)."""
    eps = np.linspace(-12.0, 1.5, 270001)
    x = np.exp(eps)
    ae = np.abs(eps)
    dg = special.ndtr(-ae + 0.5) - np.exp(ae) * special.ndtr(-ae - 0.5)
    dl = np.maximum(0.0, -np.expm1((ae - 1) / 2))
    neg = eps < 0
    dg = np.where(neg, -np.expm1(eps) + x * dg, dg)
    dl = np.where(neg, -np.expm1(eps) + x * dl, dl)
    y = np.minimum(dg, dl)
    idx = pp._lower_hull(x, y)
    return x[idx], y[idx]


def test_max_gaussian_laplace_times_gaussian_against_quadrature():
    """Max(G_1, L_1) (x) G_1, the issue's example: delta(eps) = E_{l ~ N(1/2, 1)}[delta_max(eps
    - l)] with delta_max the convex envelope of the two closed-form profiles (sampled; its error
    is far below the enclosure's width) and the expectation by mpmath quadrature."""
    f = Max(G(1), Laplace(1))
    hx, hy = _max_gl_profile()

    def dmax(e):
        xe = math.exp(e)
        if xe >= hx[-1]:
            return float(hy[-1])
        if xe <= hx[0]:
            return 1.0 - xe
        return float(np.interp(xe, hx, hy))

    for e in (0.0, 0.5):  # the envelope is the library's certified delta of the node
        v = ta.delta(f, e, dps=15)
        assert abs(dmax(e) - float(v.mid)) < 1e-9

    def reference(eps):
        g = lambda l: dmax(eps - float(l)) * mpmath.npdf(l, 0.5, 1)  # noqa: E731
        return mpmath.quad(g, [-10, eps - 1, eps, eps + 1, 12])

    with pp.profile_options(rtol=RTOL):
        c = pld.compose([(pp.leaf_factor(f, H), 1), (pp.leaf_factor(G(1), H), 1)])
    for e in (0.0, 0.5, 1.0, 2.0):
        with workdps(15):
            ref = reference(e)
        lo, hi = c.delta_bounds(e)
        assert lo <= ref <= hi
        assert hi - lo < 2 * RTOL * ref


def test_leaf_factor_uses_the_model_when_there_is_one():
    a = pp.leaf_factor(G(1), H)
    b = pld.discretise(pld.leaf_model(G(1)), H)
    assert a.pess.k0 == b.pess.k0 and np.array_equal(a.pess.arr, b.pess.arr)
    assert a.opt.k0 == b.opt.k0 and np.array_equal(a.opt.arr, b.opt.arr)


def test_profile_models_are_cached_and_reuse_enclosures():
    f = Laplace(sp.Rational(3, 2))
    m1 = pp.profile_models(f, rtol=RTOL)
    m2 = pp.profile_models(f, rtol=RTOL)
    assert m1 is m2
    m3 = pp.profile_models(f, rtol=RTOL / 2)  # refines the same nodes: earlier calls reused
    assert m3.calls < len(m3.nodes)
    assert m3.gap <= m1.gap


def test_optimistic_side_near_x_zero_keeps_p_total_below_one():
    """A loss range of +-60 puts the first nodes at x = e^-60 ~ 1e-26, where the profile is 1
    to float resolution: a rounding of 1e-16 in W's first values is a slope (P-mass) of 1e10
    and more. Found by the random-tree run (Group(Laplace(15), 4) in a product raised "the
    optimistic measure exceeds its minorant by a factor 1.1e14"): the excess P-mass is now
    removed from the lowest losses, which costs the profile only their Q-mass, and both sides
    still bracket the exact profile of L_60."""
    m = pp.profile_models(Laplace(60), rtol=RTOL)
    assert m.opt.pm.sum() <= 1
    assert m.pess.qm.sum() + m.pess.q_inf >= 1 - 1e-12
    for e in (-59.9, -40.0, -10.0, -1.0, 0.0, 0.5, 3.0, 20.0, 45.0, 59.5, 59.99):
        d = laplace_delta(60, e)
        assert measure_profile(m.opt, e) <= d <= measure_profile(m.pess, e), e
        if e >= 0:  # and the optimistic side lost no more than float-resolution mass
            assert measure_profile(m.opt, e) >= d - 2 * RTOL * d - 1e-9, e
