"""numeric.cells_prefix: the low end of a composed power of loss cells read through the totals.

The support lines L_i = B_all^T - e^{G_i} A_fin^T + sum_{k <= i} U_k (e^{G_i - G_k} - 1) and the
tests 1 - prefix sums against the exact Arb powers of the complete cells (the tail's split
point and its mass at +oo included) at 200 bits; two steps against brute-force Neyman-Pearson
in x-space at 30 digits at a tight tolerance; ten steps at 1e-9 against the Laplace
inversion's certified delta (a different route) on both sides, and nested across tolerances.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import arb, arb_poly, ctx
from test_cells_curve import _gauss_two_step_points

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import cells_curve
from tradeoff_algebra.numeric import cells_normal as cn
from tradeoff_algebra.numeric.cells_curve import CellCurve, cells_band, widths
from tradeoff_algebra.numeric.cells_prefix import PrefixPower
from tradeoff_algebra.routes.profile_curve import _cells_law

Q10 = sp.Rational(1, 10)


def _exact_full(law, T: int, D: int) -> tuple:
    """The exact T-fold powers (Arb polynomials, the caller's precision) of the split masses,
    of the tests' alternative and null masses of every cell of ``law`` on the grid 1/D (the
    tail's cell with its whole alternative mass b_t = 1 - the other cells' b), and the lowest
    index."""
    cells = law.loss_cells(D)
    lo = min(c[2] for c in cells)
    n = max(c[2] + c[3] for c in cells) - lo + 1
    bq, ap, u = [arb(0)] * n, [arb(0)] * n, [arb(0)] * n
    for a, b, j, w in cells:
        ap[j - lo] += a
        e0, e1 = (-arb(j) / D).exp(), (-arb(j + w) / D).exp()
        m0 = (a - b * e1) / (e0 - e1)
        u[j - lo] += m0
        u[j - lo + w] += b - m0
        bq[j - lo] += b
    tail = cells[-1]  # (a_t, a_t e^{g_J}): its alternative mass in full for the tests
    bq[tail[2] - lo] += 1 - sum((c[1] for c in cells), arb(0))
    return arb_poly(u) ** T, arb_poly(bq) ** T, arb_poly(ap) ** T, lo


def test_prefix_lines_and_tests_against_the_exact_power():
    """Mix(G(2), 1/10)^3 on the grid 1/32 read up to loss 2: every support line of the prefix
    power at least the complete split product's (its suffix sum plus the mass at +oo, exact at
    200 bits) and within 1e-14 of it; the tests' sizes at least and powers at most the exact
    suffix sums of the complete cells' masses, each within 1e-14."""
    law = cn.NormalMixtureCells(2, Q10, True)
    T, D, win = 3, 32, 2.0
    lo = law.cells_bottom(D)
    keep = math.floor(win * D) - T * lo + 1
    cells = law.loss_cells(D, below=keep + lo)
    full = law.loss_cells(D)
    assert len(cells) < len(full) and all(  # (the same cells, the first ones)
        c[2:] == f[2:] and c[0].overlaps(f[0]) and c[1].overlaps(f[1])
        for c, f in zip(cells, full, strict=False))
    cp = PrefixPower(cells, T, D, keep, law.cells_totals(), lo=lo)
    cc = CellCurve(cp, None)
    assert cc.prefix and len(cp.ints[0]) == keep
    old = ctx.prec
    ctx.prec = 200
    try:
        pu, pb, pa, lo2 = _exact_full(law, T, D)
        assert lo2 == lo
        su = [pu[k] for k in range(pu.degree() + 1)]
        sb = [pb[k] for k in range(pb.degree() + 1)]
        sa = [pa[k] for k in range(pa.degree() + 1)]
        inf = 1 - sum(su, arb(0))  # (the split product's alternative mass at +oo)
        assert inf > 0
        idx = list(range(0, keep, 7)) + [keep - 1]
        tails = cc._a_tails(idx)
        scale = arb(2) ** -cp.eu
        for i in idx:
            g = arb(i + cp.T * cp.lo) / D
            ref = inf + sum((su[k] * (1 - (g - arb(k + T * lo) / D).exp())
                             for k in range(i + 1, len(su))), arb(0))
            b_gt = cc.tot[1] - arb(int(cc.pu[i])) * scale
            got = b_gt - g.exp() * tails[i]
            assert got.upper() >= ref.lower(), i
            assert float(got.upper() - ref.upper()) <= 1e-14, i
        for k in range(keep + 1):
            rb, ra = sum(sb[k:], arb(0)), sum(sa[k:], arb(0))
            assert cc.py[k] <= rb.upper() and cc.px[k] >= ra.lower(), k
            assert cc.py[k] >= float(rb.lower()) - 1e-14 and cc.px[k] <= float(ra.upper()) + 1e-14
    finally:
        ctx.prec = old
    with pytest.raises(ValueError, match="remove"):
        cn.NormalMixtureCells(2, Q10, False).loss_cells(D, below=10)
    assert cn.NormalMixtureCells(2, Q10, False).cells_totals() is None


def _count_prefix(monkeypatch) -> list:
    seen: list = []

    class Counted(PrefixPower):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            seen.append(self.D)

    monkeypatch.setattr(cells_curve, "PrefixPower", Counted)
    return seen


def test_two_steps_against_brute_force_at_a_tight_tolerance(monkeypatch):
    """Mix(G(2), 1/10)^2 at 1e-8 (the grids after the first are prefix powers): the band at the
    size of each likelihood-ratio test holds its power (brute-force Neyman-Pearson in x-space
    at 30 digits), and is within 1e-8."""
    seen = _count_prefix(monkeypatch)
    with mpmath.workdps(30):
        pts = _gauss_two_step_points([0.0, 0.7, 1.5])
    law = cn.NormalMixtureCells(2, Q10, True)
    a = np.array([float(p[0]) for p in pts])
    b = cells_band(law, 2, a, 1e-8, "roc")
    assert seen, "the prefix power was not used"
    for i, (_, t) in enumerate(pts):  # (1e-15: alpha rounded to a float, slope below 10)
        assert b.power_lo[i] - 1e-15 <= t <= b.power_hi[i] + 1e-15, i
    assert np.max(widths(b, a, "roc")) <= 1e-8


def _minimiser(f, alpha: float, eps0: float, step: float) -> float:
    """A float guess of the eps minimising delta(eps) + e^eps alpha: the vertex of the parabola
    through its values (``ta.delta``'s midpoints) at eps0 - step, eps0, eps0 + step."""
    g = []
    for i in (-1, 0, 1):
        e = eps0 + i * step
        with ta.pld_options(tol=1e-11):
            d = ta.delta(f, sp.Float(e, 30))
        g.append(float((d.lo + d.hi) / 2) + math.exp(e) * alpha)
    den = g[0] - 2 * g[1] + g[2]
    assert den > 0
    return eps0 + step * (g[0] - g[2]) / (2 * den)


def _power_bracket(f, alpha: float, eps0: float, step: float) -> tuple[float, float]:
    """[lo, hi] holding 1 - f(alpha) = min over v = e^eps of g(v) = delta(log v) + v alpha (Dong,
    Roth & Su, Prop. 6, any pair), from certified balls of delta (``ta.delta``: the Laplace
    inversion) at eps0 + step (i - 2), i = 0 .. 4: hi the least g at those points, lo from the
    convexity of g in v (each chord's extensions bound g from below beyond it)."""
    with mpmath.workdps(40):
        vs, gl, gh = [], [], []
        for i in range(5):
            e = eps0 + step * (i - 2)
            with ta.pld_options(tol=1e-11):
                d = ta.delta(f, sp.Float(e, 30))
            assert d.guarantee == "certified"
            v = mpmath.exp(mpmath.mpf(e))
            vs.append(v)
            gl.append(mpmath.mpf(d.lo) + v * alpha)
            gh.append(mpmath.mpf(d.hi) + v * alpha)
        hi = min(gh)
        # below v_0 and above v_4: g at least its end value where the end chord slopes away
        s0 = (gl[1] - gh[0]) / (vs[1] - vs[0])
        s4 = (gl[4] - gh[3]) / (vs[4] - vs[3])
        assert s0 < 0 < s4, "the minimiser is not inside the points"
        lo = min(gl[0], gl[4])
        for j in range(4):  # v in [v_j, v_{j+1}]: the larger of the neighbouring chords' lines
            cands = []
            if j >= 1:  # the chord (v_{j-1}, v_j) extended right: slope at least its lower end
                sl = (gl[j] - gh[j - 1]) / (vs[j] - vs[j - 1])
                cands.append((gl[j], sl, vs[j]))
            if j <= 2:  # the chord (v_{j+1}, v_{j+2}) extended left: slope at most its upper
                sr = (gh[j + 2] - gl[j + 1]) / (vs[j + 2] - vs[j + 1])
                cands.append((gl[j + 1], sr, vs[j + 1]))
            if len(cands) == 1:  # (only one line: its least value on the interval)
                y0, s, x0 = cands[0]
                lo = min(lo, min(y0 + s * (vs[j] - x0), y0 + s * (vs[j + 1] - x0)))
                continue
            (y1, s1, x1), (y2, s2, x2) = cands
            # the max of two lines is least where they cross (or at an end of the interval)
            if s1 != s2:
                xc = (y2 - y1 + s1 * x1 - s2 * x2) / (s1 - s2)
                xc = min(max(xc, vs[j]), vs[j + 1])
            else:
                xc = vs[j]
            lo = min(lo, max(y1 + s1 * (xc - x1), y2 + s2 * (xc - x2)))
        return float(lo), float(hi)


@pytest.mark.slow
def test_ten_steps_at_1e9_against_the_inversion_and_nested():
    """Mix(G(2), 1/10)^10 at 1e-9 (prefix powers): roc(1/100) within 1e-9 and inside the
    bracket of the power from the Laplace inversion's certified delta at five eps around the
    minimiser (:func:`_power_bracket`, a different route: no cells, no lattice); the bands at
    1e-6 and 1e-9 of the route nest (``numeric.tol_nest``)."""
    f = ta.Mix(ta.G(2), Q10) ** 10
    law, n = _cells_law(f)
    x = np.array([0.01])
    b = cells_band(law, n, x, 1e-9, "roc")
    assert widths(b, x, "roc")[0] <= 1e-9
    # the minimiser eps* of delta(eps) + e^eps alpha: the level's line, placed by the band's
    # split product on a coarse grid (any eps0 is sound: the bracket asserts it is inside)
    cc = CellCurve(cells_curve._power(law.for_levels(n, 0.01), n, 2048), None)
    eps0 = _minimiser(f, 0.01, float(cc.g[cc._candidates(0.01)[0]]), 1e-3)
    lo, hi = _power_bracket(f, 0.01, eps0, 2e-5)
    assert hi - lo <= 2e-10 * hi, (lo, hi)  # (the reference resolves the band's width)
    assert b.power_lo[0] <= hi and lo <= b.power_hi[0], (b.power_lo[0], b.power_hi[0], lo, hi)
    with ta.pld_options(tol=1e-6):
        loose = ta.roc(f, Q10 / 10)
    with ta.pld_options(tol=1e-9):
        tight = ta.roc(f, Q10 / 10)
    assert loose.lo <= tight.lo <= tight.hi <= loose.hi
    assert float(tight.hi - tight.lo) <= 1e-9 * float(tight.hi)


def test_bottom_cut_power_against_the_exact_power():
    """numeric.cells_window: C(1/10, G(1))^4 on the grid 1/16 with the bottom of each partial
    product cut at 2^-20 of its mass (so that it cuts): moved up, the kept suffix sums plus the
    top's mass at +oo at least the exact power's (200 bits) at every index; dropped and rounded
    down, at most them; both within 2^-16 of them; and the WindowPower's tests read by
    CellCurve with a window (B_tot minus prefix sums plus the dropped bottoms' mass) on the
    right side of the exact suffix sums of the cells' masses."""
    from tradeoff_algebra.numeric.cells_prefix import fixed, split_lists
    from tradeoff_algebra.numeric.cells_window import WindowPower, power_cut

    law = cn.NormalMixtureCells(1, Q10, True, hull=True)
    T, D = 4, 16
    cells = law.loss_cells(D)
    lo = min(c[2] for c in cells)
    n = max(c[2] + c[3] for c in cells) - lo + 1
    old = ctx.prec
    ctx.prec = 200
    try:
        u, bq, ap = split_lists(cells, D, lo, n, 200)
        for vals in (u, ap):
            ints, e = fixed(vals, True)
            exact = arb_poly(ints) ** T  # (the rounded-up masses' exact power)
            ex = [exact[k] * arb(2) ** (-T * e) for k in range(exact.degree() + 1)]
            for up, move in ((True, True), (False, False)):
                p, E, m, o, _ = power_cut(ints if up else fixed(vals, False)[0],
                                       e, T, up, move, 50, bottom=20)
                assert o > 0  # (the bottom was cut)
                if not up:
                    exact_d = arb_poly(fixed(vals, False)[0]) ** T
                    ex_d = [exact_d[k] * arb(2) ** (-T * e) for k in range(exact_d.degree() + 1)]
                for k in range(0, len(ex), 3):
                    i = max(k - o, 0)
                    kept = arb(int(sum(int(x) for x in p[i:]))) * arb(2) ** -E
                    if up:
                        got, ref = kept + arb(m) * arb(2) ** -E, sum(ex[k:], arb(0))
                        assert got.upper() >= ref.lower(), k
                    else:
                        got, ref = kept, sum(ex_d[k:], arb(0))
                        assert got.lower() <= ref.upper(), k
                    assert abs(float((got - ref).mid())) <= 2.0 ** -16, k
        cp = WindowPower(cells, T, D, window=1.0)
        cc = CellCurve(cp, None)
        assert cp.shift > 0
        sb = arb_poly(bq) ** T
        sa = arb_poly(ap) ** T
        sb = [sb[k] for k in range(sb.degree() + 1)]
        sa = [sa[k] for k in range(sa.degree() + 1)]
        for k in range(len(cc.py)):
            j = k + cp.shift  # (the whole power's index)
            assert cc.py[k] <= sum(sb[j:], arb(0)).upper(), k
            assert cc.px[k] >= sum(sa[j:], arb(0)).lower(), k
    finally:
        ctx.prec = old
