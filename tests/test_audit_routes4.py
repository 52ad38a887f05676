"""Fourth audit of the newest certified routes, from outside, against independent references
(benchmarks/RESULTS_audit_routes4.md; the random draws are benchmarks/fuzz_certified_routes.py's
generators sgd-few, lapgrid, rdp-wor, cdp-affine, tol-nested, global-prec, time-gap).

* DP-SGD with 3 to 30 steps (the certified Laplace inversion, with the flat Chebyshev view of
  families/gaussian_sampled_poly.py where it is faster) against dp_accounting's optimistic and
  pessimistic PLDs (float64, widened) and, in the slow cases, the tilted rounded-grid bracket
  of tests/references/audit4_refs.py (losses rounded down and up to a grid: a lower and an
  upper bound of delta at every eps).
* Laplace factors of different scales on one grid (numeric/cf_mixed_grid*.py) against
  dp_accounting's PLD pair of the same factors and the rounded-grid bracket.
* RDP of sampling without replacement (numeric/renyi_wor.py, Wang, Balle & Kasiviswanathan's
  Thm. 9): every value at or above D_a of the hull pair of C_p(f) by 40-digit quadrature
  (audit4_refs.hull_renyi_*; at p = 1 the base's own closed form), integer and fractional
  orders, and the curve labelled a bound; zCDP/tCDP's affine curves exact.
* The contract: a tighter tolerance's certified enclosure inside a looser one's; results
  identical under mpmath.mp.prec 8, 53, 500; the time limit consulted (the largest CPU stretch
  without a look at the deadline); bad input refused naming the parameter.

A certified value must contain the reference (compared through ``Value.interval()``).
"""

from __future__ import annotations

import time
import traceback
import warnings
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from references import audit3_refs as A3
from references import audit4_refs as A4
from references.enclosure import certified as _certified
from references.enclosure import iv as _iv
from references.enclosure import meets as _meets

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import budget

MP = mpmath.mp
Rat = sp.Rational


def _widen(lo, hi, rel=1e-6, absolute=1e-15):
    return MP.mpf(lo) * (1 - rel) - absolute, MP.mpf(hi) * (1 + rel) + absolute


# ---------------------------------------------------------------------------------------------
# references checked against closed forms (the p = 1 hull is the base itself)
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mu, a", [(Fraction(1, 2), 3), (Fraction(2), Fraction(5, 2))])
def test_hull_reference_at_p_one_is_the_base(mu, a):
    """C_1(f) = f: the hull quadrature gives a mu^2/2 for G_mu and Mironov's closed form for
    L_mu (Prop. 6), to 30 digits."""
    with MP.workdps(40):
        g = A4.hull_renyi_gauss(mu, 1, a)
        want = MP.mpf(a.numerator if isinstance(a, Fraction) else a) \
            / (a.denominator if isinstance(a, Fraction) else 1) \
            * (MP.mpf(mu.numerator) / mu.denominator) ** 2 / 2
        assert abs(g - want) < MP.mpf(10) ** -30 * want
        lap = A4.hull_renyi_laplace(mu, 1, a)
        assert abs(lap - A4.renyi_laplace(mu, a)) < MP.mpf(10) ** -30 * lap


# ---------------------------------------------------------------------------------------------
# RDP of sampling without replacement: an upper bound, labelled so
# ---------------------------------------------------------------------------------------------

WOR_CASES = [
    ("G", Fraction(1), Fraction(1, 10), [2, 3, Rat(5, 2), Rat(11, 10)]),
    pytest.param("G", Fraction(3), Fraction(9, 10), [2, 4, Rat(7, 2)], marks=pytest.mark.slow),
    ("G", Fraction(1, 10), Fraction(99, 100), [2, 5, Rat(13, 4)]),
    ("Laplace", Fraction(1, 2), Fraction(1, 2), [2, 3, 6, Rat(9, 2)]),
    ("Laplace", Fraction(3), Fraction(1, 1000), [2, 4, Rat(3, 2)]),
]


@pytest.mark.parametrize("base, mu, p, orders", WOR_CASES)
def test_wor_bound_lies_above_the_hull_divergence(base, mu, p, orders):
    """RDP.of(C(p, f)) is Thm. 9's bound: at every order (integer and fractional: Cor. 10) at
    or above D_a of the hull pair by 40-digit quadrature, finite, and the curve says it is a
    bound (never an identity)."""
    node = getattr(ta, base)(Rat(mu.numerator, mu.denominator))
    r = ta.RDP.of(ta.C(Rat(p.numerator, p.denominator), node), orders, dps=20)
    assert r.bound is not None and "Thm. 9" in r.bound
    ref = A4.hull_renyi_gauss if base == "G" else A4.hull_renyi_laplace
    for a in orders:
        v = r.curve[sp.sympify(a)]
        a_f = Fraction(int(sp.Rational(a).p), int(sp.Rational(a).q))
        with MP.workdps(40):
            truth = ref(mu, p, a_f)
            assert MP.mpf(int(v.p)) / int(v.q) >= truth * (1 - MP.mpf(10) ** -30), (a, v, truth)


@pytest.mark.slow
def test_wor_bound_at_a_large_order_stays_above():
    """At a = 60 the bound's margin over the truth is about log 2/(a - 1) (the factor 2 of the
    two copies): still above the quadrature."""
    r = ta.RDP.of(ta.C(Rat(1, 10), ta.G(1)), [60], dps=20)
    with MP.workdps(40):
        truth = A4.hull_renyi_gauss(Fraction(1), Fraction(1, 10), 60)
        v = r.curve[sp.Integer(60)]
        assert MP.mpf(int(v.p)) / int(v.q) >= truth


@pytest.mark.parametrize("notion, orders, want", [
    (ta.zCDP(Rat(1, 2), Rat(1, 10)), [2, Rat(5, 2), 300], lambda a: Rat(1, 10) + a / 2),
    (ta.zCDP(Rat(7, 1000)), [Rat(101, 100), 17], lambda a: Rat(7, 1000) * a),
    (ta.tCDP(Rat(3, 7), 4), [2, 3, Rat(7, 2)], lambda a: Rat(3, 7) * a),
])
def test_affine_rdp_exact(notion, orders, want):
    """zCDP(rho, xi) and tCDP(rho, omega) are the affine curves xi + rho a (below omega), as
    exact rationals."""
    r = ta.RDP.of(notion, orders)
    for a in orders:
        assert r.curve[sp.sympify(a)] == want(sp.sympify(a))


def test_tcdp_refuses_orders_at_or_above_omega():
    with pytest.raises(ta.TradeOffError, match="omega"):
        ta.RDP.of(ta.tCDP(Rat(1, 2), 4), [2, 4])


# ---------------------------------------------------------------------------------------------
# DP-SGD with 3 to 30 steps
# ---------------------------------------------------------------------------------------------

SGD_FEW = [  # (sigma, q, T, eps): a steep density (sigma 1/2), q near 1, a few steps
    (Rat(11, 10), Rat(1, 100), 5, Rat(1, 2)),
    (Rat(1, 2), Rat(1, 2), 5, Rat(8)),
    (Rat(3, 5), Rat(9, 10), 3, Rat(5)),
    (Rat(2), Rat(1, 20), 30, Rat(1, 5)),
]


@pytest.mark.slow
@pytest.mark.parametrize("sigma, q, T, eps", SGD_FEW)
def test_sgd_few_delta_against_dp_accounting(sigma, q, T, eps):
    """delta(eps) of T subsampled Gaussian steps, certified, inside dp_accounting's optimistic/
    pessimistic pair at grid 1e-4 (float64: widened by 1e-6 relative)."""
    with ta.pld_options(tol=1e-6):
        v = ta.delta(ta.noisy_sgd(sigma, q, T), eps, dps=12)
    lo, hi = A3.dpa_sgd_bracket(float(sigma), float(q), T, float(eps))
    assert _certified(v), v
    assert _meets(v, *_widen(lo, hi)), (v, lo, hi)


@pytest.mark.slow
@pytest.mark.parametrize("sigma, q, T, eps", [(Rat(1, 2), Rat(99, 100), 4, Rat(10)),
                                              (Rat(3, 5), Rat(9, 10), 3, Rat(0))])
def test_sgd_few_delta_against_the_grid_bracket(sigma, q, T, eps):
    """The same against the tilted rounded-grid bracket of the add/remove hull (q near 1, a
    steep density, eps at 0)."""
    with ta.pld_options(tol=1e-9):
        v = ta.delta(ta.noisy_sgd(sigma, q, T), eps, dps=15)
    lo, hi = A4.sgd_few_sym_bracket(1 / float(sigma), float(q), T, float(eps))
    assert _certified(v)
    assert _meets(v, *_widen(lo, hi, 1e-9, 1e-300)), (v, lo, hi)


@pytest.mark.slow
def test_sgd_few_epsilon_of_a_tiny_delta():
    """eps(1e-30) of noisy_sgd(1/2, 99/100, 4) (nearly G_4): the tilted grid bracket of delta
    (dp_accounting's stops at 1e-15) is >= 1e-30 at the lower end and <= 1e-30 at the upper
    end (delta is non-increasing)."""
    f = ta.noisy_sgd(Rat(1, 2), Rat(99, 100), 4)
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, Rat(1, 10**30), dps=12)
    assert _certified(v)
    lo, hi = _iv(v)
    d_lo = A4.sgd_few_sym_bracket(2.0, 0.99, 4, float(lo))[1]
    d_hi = A4.sgd_few_sym_bracket(2.0, 0.99, 4, float(hi))[0]
    assert d_lo * (1 + 1e-9) >= 1e-30 and d_hi * (1 - 1e-9) <= 1e-30, (v, d_lo, d_hi)


def test_sgd_few_huge_eps_is_warned_not_vacuous():
    """delta at eps = 1000 (far beyond the add direction's largest loss, the remove direction's
    tail below every float): [0, b] with b a proved Chernoff bound, and a ToleranceWarning."""
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        v = ta.delta(ta.noisy_sgd(Rat(1, 2), Rat(99, 100), 3), 1000, dps=15)
    assert _certified(v) and v.lo == 0 and 0 <= v.hi < 1e-300
    assert any(issubclass(w.category, ta.ToleranceWarning) for w in ws)


def test_sgd_few_bad_input_names_the_parameter():
    with pytest.raises(ta.TradeOffError, match="eps"):
        ta.delta(ta.noisy_sgd(Rat(1, 2), Rat(1, 2), 3), -1)
    with pytest.raises(ta.TradeOffError, match="sigma|noise"):
        ta.noisy_sgd(Rat(-1), Rat(1, 2), 3)
    with pytest.raises(ta.TradeOffError, match="q|p|sampl"):
        ta.noisy_sgd(Rat(1), Rat(3, 2), 3)


# ---------------------------------------------------------------------------------------------
# Laplace factors of different scales on one grid
# ---------------------------------------------------------------------------------------------

def _grid_product(a: Fraction, h: Fraction, n: int):
    return ta.Tensor(*[ta.Laplace(Rat(a.numerator, a.denominator)
                                  + i * Rat(h.numerator, h.denominator)) for i in range(n)])


@pytest.mark.slow
@pytest.mark.parametrize("a, h, n, eps", [(Fraction(1, 10), Fraction(1, 10**4), 20, 1),
                                          (Fraction(1, 2), Fraction(1, 100), 5, Fraction(3, 2))])
def test_laplace_grid_delta(a, h, n, eps):
    """delta of Laplace(a + i h), i < n, certified, inside dp_accounting's pair of the same
    factors (grid 2e-5, widened by 1e-6 relative) and the rounded-grid bracket."""
    mus = [float(a + i * h) for i in range(n)]
    with ta.pld_options(tol=1e-9):
        v = ta.delta(_grid_product(a, h, n), Rat(eps.numerator, eps.denominator), dps=12)
    assert _certified(v)
    assert _meets(v, *_widen(*A4.dpa_laplace_bracket(mus, float(eps), 2e-5))), v
    assert _meets(v, *_widen(*A4.laplace_bracket(mus, float(eps)), 1e-9)), v


# ---------------------------------------------------------------------------------------------
# the tolerance contract and mpmath's global precision
# ---------------------------------------------------------------------------------------------

TOLS = (1e-3, 1e-6, 1e-9)


def _inside(inner, outer) -> bool:
    a, b = MP.mpf(inner.lo), MP.mpf(inner.hi)
    c, d = _iv(outer)
    return a >= c and b <= d


@pytest.mark.slow
@pytest.mark.parametrize("call", [
    lambda: ta.delta(ta.noisy_sgd(Rat(11, 10), Rat(1, 100), 5), Rat(1, 2), dps=15),
    lambda: ta.epsilon(_grid_product(Fraction(1, 10), Fraction(1, 10**4), 20), Rat(1, 10**5),
                       dps=15),
    lambda: ta.roc(ta.Tensor(ta.Laplace(1), ta.Laplace(Rat(1, 2))), Rat(1, 100), dps=15),
])
def test_tighter_tolerance_nested(call):
    """Each tighter tolerance's certified enclosure lies inside each looser one's."""
    vals = []
    for tol in TOLS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with ta.pld_options(tol=tol):
                vals.append(call())
    for i in range(len(vals)):
        for k in range(i + 1, len(vals)):
            if _certified(vals[i]) and _certified(vals[k]):
                assert _inside(vals[k], vals[i]), (TOLS[i], vals[i], TOLS[k], vals[k])


@pytest.mark.slow
@pytest.mark.parametrize("call", [
    lambda: ta.delta(ta.noisy_sgd(Rat(11, 10), Rat(1, 100), 5), Rat(1, 2), dps=15),
    lambda: ta.RDP.of(ta.C(Rat(1, 10), ta.G(1)), [2, Rat(5, 2)], dps=20).curve,
])
def test_global_precision_leaves_no_trace(call):
    """The same call at mpmath.mp.prec 8, 53 and 500 (caches emptied): identical results, the
    precision left as found."""
    from test_global_precision import clear_caches

    out = []
    for prec in (53, 8, 500):
        clear_caches()
        old = mpmath.mp.prec
        mpmath.mp.prec = prec
        try:
            with ta.pld_options(tol=1e-6):
                r = call()
            assert mpmath.mp.prec == prec
        finally:
            mpmath.mp.prec = old
        out.append((repr(r.lo), repr(r.hi), r.guarantee) if isinstance(r, ta.Value)
                   else repr(dict(r)))
    assert out[0] == out[1] == out[2]


# ---------------------------------------------------------------------------------------------
# the time limit, from inside: stretches of work that never look at the deadline
# ---------------------------------------------------------------------------------------------

class _Gaps:
    """The largest CPU time between two consultations of the deadline (budget.check, remaining,
    expired) during a call: a ``time_limit(s)`` call can overrun s by that much."""

    def __enter__(self):
        self.saved = {n: getattr(budget, n) for n in ("check", "remaining", "expired")}
        self.last, self.max, self.where = time.process_time(), 0.0, ""
        for n, fn in self.saved.items():
            setattr(budget, n, self._wrap(fn))
        return self

    def _wrap(self, fn):
        def w(*a, **k):
            now = time.process_time()
            if now - self.last > self.max:
                self.max, self.where = now - self.last, "".join(traceback.format_stack(limit=6))
            self.last = now
            return fn(*a, **k)
        return w

    def __exit__(self, *exc):
        for n, fn in self.saved.items():
            setattr(budget, n, fn)
        return False


@pytest.mark.slow
def test_sgd_huge_eps_consults_the_deadline():
    """delta(noisy_sgd(2, 1/1000, 5), 10^6): no stretch of more than 1 s CPU without a look at
    the deadline (the answer itself, [0, 4.94e-324] with a ToleranceWarning, is right)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _Gaps() as g, ta.time_limit(300), ta.pld_options(tol=1e-9):
            ta.delta(ta.noisy_sgd(Rat(2), Rat(1, 1000), 5), 10**6, dps=15)
    assert g.max < 1.0, f"{g.max:.1f} s CPU unchecked, ending at\n{g.where}"


@pytest.mark.slow
def test_pld_hull_roc_consults_the_deadline():
    """roc(noisy_sgd(1/2, 911/413320, 7), 1 - 1e-12) at tol 1e-12 (the PLD engine): no stretch of
    more than 1 s CPU without a look at the deadline."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _Gaps() as g, ta.time_limit(300), ta.pld_options(tol=1e-12):
            ta.roc(ta.noisy_sgd(Rat(1, 2), Rat(911, 413320), 7), 1 - Rat(1, 10**12), dps=15)
    assert g.max < 1.0, f"{g.max:.1f} s CPU unchecked, ending at\n{g.where}"


def test_lattice_curve_nested_across_tolerances():
    """curve(Laplace(1)^5, [0.32], bounds=True) at tol 1e-3 and 1e-9: the tighter band inside
    the looser one (both certified: the truth lies in their intersection)."""
    f = ta.Laplace(1) ** 5
    bands = []
    for tol in (1e-3, 1e-9):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with ta.pld_options(tol=tol):
                bands.append(ta.curve(f, [0.32, 0.344, 0.477], bounds=True))
    (lo1, hi1), (lo2, hi2) = bands
    assert all(lo2 >= lo1) and all(hi2 <= hi1), (lo1, hi1, lo2, hi2)
