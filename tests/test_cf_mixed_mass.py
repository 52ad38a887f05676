"""Many Laplace factors on no usable grid whose terms with few density components are
negligible (numeric/cf_mixed_grid_plan.py's mass split, J = 0, with the phased decay bound of
numeric/cf_mixed_decay.py): delta against the inversion of the whole product (numeric/cf.py on
the factors' own closed-form transforms and decay bounds, another route), eps proved by the
delta balls, and the tolerance contract (a tighter tolerance never a wider result) for eps and
roc at three tolerances."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.families.laplace import LaplaceLaw
from tradeoff_algebra.numeric.cf import delta_enclosure
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.cf_mixed_split import MASS_SPLIT, grid_enclosure

#: 200 factors Laplace(1 + i/10^5): a grid of 2 10^7 points (no exact part), the probability
#: that no factor contributes its density 0.684^200 = 1e-33.
LAWS = [(LaplaceLaw(F(1) + F(i, 10**5)), 1) for i in range(200)]


def _product():
    return ta.Tensor(*[ta.Laplace(1 + sp.Rational(i, 10**5)) for i in range(200)])


@pytest.mark.parametrize("eps", [60.0, 100.0])
def test_delta_against_the_whole_inversion(eps):
    lo, hi = grid_enclosure(LAWS, "delta", eps, eps, 1e-11)
    with working_precision(64):
        rlo, rhi = delta_enclosure(LAWS, eps, 1e-11)
    assert hi - lo <= 1e-10 * hi
    assert lo <= rhi and rlo <= hi


def test_epsilon_is_proved_by_the_delta_balls():
    lo, hi = grid_enclosure(LAWS, "epsilon", 1e-6, 1e-6, 1e-11)
    assert 0 < lo < hi and hi - lo <= 1e-10 * hi
    assert grid_enclosure(LAWS, "delta", lo, lo, 1e-12)[0] > 1e-6
    assert grid_enclosure(LAWS, "delta", hi, hi, 1e-12)[1] < 1e-6


@pytest.mark.parametrize("question", ["epsilon", "roc"])
def test_a_tighter_tolerance_never_gives_a_wider_result(question):
    f = _product()
    seq = []
    for tol in (1e-4, 1e-7, 1e-10):
        with ta.pld_options(tol=tol):
            v = getattr(ta, question)(f, sp.Rational(1, 10**6))
        assert v.guarantee == "certified"
        if question == "epsilon":
            assert MASS_SPLIT in (v.route or "")
        seq.append(tuple(float(x) for x in v.interval()))
    widths = [hi - lo for lo, hi in seq]
    assert widths[0] >= widths[1] >= widths[2]
    assert widths[2] <= 1e-9 * seq[2][1]
    for (a, b), (c, d) in zip(seq, seq[1:], strict=False):
        assert a <= d and c <= b


@pytest.mark.slow
def test_a_thousand_scales_epsilon_against_the_whole_inversion():
    """eps(1e-6) of (x)_{i<1000} Laplace(1/10 + i/10^5) by the mass split, its bracket's two
    ends proved on the right sides of 1e-6 by the inversion of the whole product (the factors'
    own transforms and decay bounds: another route)."""
    f = ta.Tensor(*[ta.Laplace(sp.Rational(1, 10) + sp.Rational(i, 10**5)) for i in range(1000)])
    with ta.pld_options(tol=1e-9):
        v = ta.epsilon(f, sp.Rational(1, 10**6))
    assert v.guarantee == "certified" and MASS_SPLIT in (v.route or "")
    lo, hi = (float(x) for x in v.interval())
    assert hi - lo <= 1e-9 * hi
    laws = [(LaplaceLaw(F(1, 10) + F(i, 10**5)), 1) for i in range(1000)]
    with working_precision(64):
        assert delta_enclosure(laws, lo - 5e-9, 1e-11)[0] > 1e-6
        assert delta_enclosure(laws, hi + 5e-9, 1e-11)[1] < 1e-6
