"""The closed-form shuffling bound of Feldman, McMillan & Talwar (Thm. 3.2 of their SODA 2023
paper, Wang et al.'s [23]): against an independent mpmath computation of the same formula
rewritten by hand, as the inverse of each other, against Wang et al.'s printed [23] numbers
(Tables 1 and 2), as a lower bound on the exact shuffle trade-off, and its refusals."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from precision import close, workdps

import tradeoff_algebra as ta
from tradeoff_algebra.bounds.shuffling import (
    fmt_delta,
    fmt_eps0_max,
    fmt_epsilon,
    fmt_tradeoff,
)
from tradeoff_algebra.core.errors import InvalidParameter

S = sp.Rational
N4 = 10**4
#: eps0 of Wang et al.'s Fig. 1 caption, unrounded: log(n/(8 log(2/delta)) - 1), delta = n^-1.5
EPS0_FIG1 = sp.log(N4 / (8 * sp.log(2 * sp.Integer(10) ** 6)) - 1)


def ref_epsilon(e0, n, d):
    """eps = log(1 + (E-1)/(E+1) (8 sqrt((E+1) log(4/d)/(2n)) + 4(E+1)/n)) in mpmath: n p =
    2n/(E+1) substituted by hand."""
    E = mpmath.exp(e0)
    return mpmath.log(1 + (E - 1) / (E + 1) * (8 * mpmath.sqrt((E + 1) * mpmath.log(4 / d)
                                                               / (2 * n)) + 4 * (E + 1) / n))


def ref_delta(e0, n, e):
    """The closed form solved for delta by bisection on ref_epsilon (decreasing in delta)."""
    lo, hi = mpmath.mpf(10) ** -300, mpmath.mpf(1)
    for _ in range(1200):
        mid = mpmath.sqrt(lo * hi)
        if ref_epsilon(e0, n, mid) > e:
            lo = mid
        else:
            hi = mid
    return hi


CASES = [(S(1111, 250), N4, S(5, 10**5)), (S(1, 2), 1000, S(1, 100)), (S(3), 10**5, S(1, 10**8)),
         (S(2), 10**6, S(1, 10**12))]


@pytest.mark.parametrize("e0, n, d", CASES)
def test_epsilon_against_mpmath(e0, n, d):
    v = fmt_epsilon(e0, n, d, dps=30)
    with workdps(60):
        assert close(v, ref_epsilon(mpmath.mpf(sp.N(e0, 70)), n, mpmath.mpf(sp.N(d, 70))), 28)
    assert fmt_epsilon(e0, n, d).free_symbols == set()


@pytest.mark.parametrize("e0, n, d", CASES)
def test_delta_inverts_epsilon(e0, n, d):
    eps = fmt_epsilon(e0, n, d)
    assert close(fmt_delta(e0, n, eps, dps=30), d, 25)
    with workdps(40):
        ref = ref_delta(mpmath.mpf(sp.N(e0, 50)), n, mpmath.mpf(sp.N(eps, 50)))
        assert close(fmt_delta(e0, n, eps, dps=20), ref, 15)


def test_epsilon_inverts_delta():
    for e in (S(7, 10), S(9, 10), S(1)):
        d = fmt_delta(EPS0_FIG1, N4, e)
        assert close(fmt_epsilon(EPS0_FIG1, N4, d, dps=30), e, 25)


def rounds_to(v, printed, half):
    return printed - half <= v.mid <= printed + half


def test_wang_printed_numbers():
    """Wang et al.'s [23] entries: Table 1 delta(eps), Table 2 eps(delta), Fig. 1's 4.444."""
    assert rounds_to(ta.Value.point(sp.N(fmt_eps0_max(N4, S(1, 10**6)), 20), 15), 4.444,
                     0.0005)
    for e, printed, half in [(S(7, 10), 0.1038, 5e-5), (S(9, 10), 0.0018, 5e-5),
                             (S(1), 8e-5, 5e-6)]:
        assert rounds_to(fmt_delta(EPS0_FIG1, N4, e, dps=15), printed, half)
    for d, printed in [(S(5, 10**5), 1.014), (S(3, 10**6), 1.085)]:
        assert rounds_to(fmt_epsilon(EPS0_FIG1, N4, d, dps=15), printed, 0.0005)
    for d in (S(1, 10**7), S(4, 10**9), S(9, 10**11)):  # Table 2 prints eps0 there
        with pytest.raises(InvalidParameter, match="eps0"):
            fmt_epsilon(EPS0_FIG1, N4, d)
        assert fmt_epsilon(EPS0_FIG1, N4, d, fallback=True) == EPS0_FIG1


def test_delta_clamped_to_hypothesis():
    """Past the smallest delta the hypothesis allows, 2 exp(-n p/16), delta stays there; the
    closed form above 1 gives 1; eps0 = 0 gives 2 exp(-n/16)."""
    np_ = 2 * N4 / (sp.exp(2) + 1)
    assert fmt_delta(2, N4, 10) == 2 * sp.exp(-np_ / 16)
    assert fmt_delta(2, N4, S(1, 20)) == 1
    assert fmt_delta(0, N4, 1) == 2 * sp.exp(-sp.Integer(N4) / 16)


def test_symbolic():
    x = sp.Symbol("x", positive=True)
    e = fmt_epsilon(x, N4, S(1, 10**6))
    assert e.free_symbols == {x}
    assert sp.N(e.subs(x, 3) - fmt_epsilon(3, N4, S(1, 10**6)), 30) == 0
    f = fmt_tradeoff(x, N4, S(1, 10**6))
    assert isinstance(f, ta.EpsDelta) and f.free_symbols == {x}
    with pytest.raises(InvalidParameter, match="dps"):
        fmt_epsilon(x, N4, S(1, 10**6), dps=20)


# -- a lower bound on the exact shuffle trade-off ----------------------------------------------
LOWER = [(sp.log(S(5, 4)), 100, [S(1, 10), S(1, 2)]),
         (sp.log(S(3, 2)), 150, [S(1, 20), S(1, 5), S(1, 2)]),
         (sp.log(3), 1000, [S(1, 1000), S(1, 100), S(1, 10)]),
         (S(2), 1000, [S(1, 100), S(1, 10)])]


@pytest.mark.parametrize("e0, n, ds", LOWER)
def test_below_exact_profile(e0, n, ds):
    """T(P, Q) >= f_{eps,delta} iff delta >= delta_{T(P,Q)}(eps) (T(P, Q) symmetric)."""
    f = ta.ShuffleDP(e0, n)
    for d in ds:
        v = ta.delta(f, fmt_epsilon(e0, n, d), dps=15)
        assert v.hi <= d


@pytest.mark.parametrize("e0, n, ds", [pytest.param(*c, marks=pytest.mark.slow) if c[1] == 150
                                       else c for c in LOWER])  # n = 150: ~8 s, in -m slow
def test_below_exact_values(e0, n, ds):
    g, f = fmt_tradeoff(e0, n, ds), ta.ShuffleDP(e0, n)
    for a in (S(0), S(1, 10**6), S(1, 1000), S(1, 20), S(1, 5), S(1, 2), S(9, 10), S(1)):
        assert ta.evaluate(g, a, dps=15).hi <= ta.evaluate(f, a, dps=15).lo


def test_below_wang_at_paper_size():
    """Fig. 1: Wang et al.'s Thm. 4.2 bound lies above [23]'s f_{eps,delta}, delta = n^-1.5."""
    d = S(1, 10**6)
    w = ta.shuffle(S(1111, 250), N4, bound="wang")
    assert ta.delta(w, fmt_epsilon(S(1111, 250), N4, d), dps=15).hi <= d
    g = fmt_tradeoff(S(1111, 250), N4, d)
    for a in (S(1, 1000), S(1, 10), S(1, 2)):
        assert ta.evaluate(g, a, dps=15).hi <= ta.evaluate(w, a, dps=15).lo


# -- refusals ---------------------------------------------------------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda: fmt_epsilon(5, N4, S(1, 10**6)), "eps0"),
    (lambda: fmt_epsilon(1, 20, S(1, 10)), "n"),
    (lambda: fmt_epsilon(1, N4, 0), "delta"),
    (lambda: fmt_epsilon(1, N4, S(3, 2)), "delta"),
    (lambda: fmt_epsilon(-1, N4, S(1, 10)), "eps0"),
    (lambda: fmt_epsilon(1, S(1, 2), S(1, 10)), "n"),
    (lambda: fmt_delta(EPS0_FIG1, N4, S(1, 100)), "eps"),
    (lambda: fmt_delta(1, N4, -1), "eps"),
    (lambda: fmt_delta(8, N4, 1), "eps0"),
    (lambda: fmt_tradeoff(1, N4, []), "deltas"),
    (lambda: fmt_tradeoff(EPS0_FIG1, N4, [S(1, 10**6), S(1, 10**7)]), "eps0"),
    (lambda: fmt_eps0_max(N4, 0), "delta"),
])
def test_refusals(call, name):
    with pytest.raises(InvalidParameter) as exc:
        call()
    assert exc.value.name == name
    assert exc.value.owner is not None and exc.value.owner.startswith("fmt_")


def test_refusal_names_range():
    with pytest.raises(InvalidParameter) as exc:
        fmt_epsilon(S(1111, 250), N4, S(1, 10**7))
    assert "4.29531" in exc.value.allowed and "log(n/(8 log(2/delta)) - 1)" in exc.value.allowed
    assert fmt_eps0_max(10, S(1, 10)) == -sp.oo
