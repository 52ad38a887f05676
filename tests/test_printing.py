"""LaTeX and text of every node in the papers' notation, with correct parenthesisation.

Notation of Dong, Roth & Su: G_{\\mu}, f_{\\varepsilon,\\delta}, C_{p}(f), f^{\\otimes n},
f^{-1}, f^{*}, \\mathrm{Id}; group privacy 1 - (1 - f)^{\\circ k} (Thm. 3).
"""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra import (
    C,
    Conjugate,
    EpsDelta,
    G,
    Group,
    Id,
    Inverse,
    Laplace,
    Max,
    Mix,
    SymmetricHull,
    Symmetrize,
    Tensor,
    Zero,
)

mu = sp.Symbol("mu", nonnegative=True)
eps = sp.Symbol("varepsilon", nonnegative=True)
delta = sp.Symbol("delta", nonnegative=True)
p = sp.Symbol("p", nonnegative=True)
n = sp.Symbol("n", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True, positive=True)
a = sp.Symbol("a")

CASES = [
    # families
    (G(mu), r"G_{\mu}"),
    (G(1), r"G_{1}"),
    (G(sp.sqrt(mu**2 + 1)), r"G_{\sqrt{\mu^{2} + 1}}"),
    (EpsDelta(eps, delta), r"f_{\varepsilon,\delta}"),
    (EpsDelta(1, R(1, 10)), r"f_{1,\frac{1}{10}}"),
    (EpsDelta(sp.log(3)), r"f_{\log{\left(3 \right)},0}"),
    (Laplace(mu), r"L_{\mu}"),
    (Id, r"\mathrm{Id}"),
    (Zero, "0"),
    # tensor products and powers
    (G(1) @ G(2), r"G_{1} \otimes G_{2}"),
    (G(mu) ** n, r"G_{\mu}^{\otimes n}"),
    (G(mu) ** 3, r"G_{\mu}^{\otimes 3}"),
    (G(mu) ** (n + 1), r"G_{\mu}^{\otimes \left(n + 1\right)}"),
    (G(mu) ** (2 * n), r"G_{\mu}^{\otimes 2 n}"),
    ((G(1) @ G(2)) ** n, r"\left(G_{1} \otimes G_{2}\right)^{\otimes n}"),
    (G(1) ** 2 @ G(2), r"G_{2} \otimes G_{1}^{\otimes 2}"),
    (Inverse(G(1)) ** 2, r"\left(G_{1}^{-1}\right)^{\otimes 2}"),
    # inverse and conjugate
    (G(1).inverse(), r"G_{1}^{-1}"),
    ((G(1) ** n).inverse(), r"\left(G_{1}^{\otimes n}\right)^{-1}"),
    ((G(1) @ G(2)).inverse(), r"\left(G_{1} \otimes G_{2}\right)^{-1}"),
    (G(1).inverse().inverse(), r"\left(G_{1}^{-1}\right)^{-1}"),
    (G(mu).conjugate(), r"G_{\mu}^{*}"),
    ((G(mu) ** n).conjugate(), r"\left(G_{\mu}^{\otimes n}\right)^{*}"),
    (G(1).inverse().conjugate(), r"\left(G_{1}^{-1}\right)^{*}"),
    # subsampling, mixing
    (C(p, G(mu)), r"C_{p}\left(G_{\mu}\right)"),
    (C(p, G(mu)) ** n, r"C_{p}\left(G_{\mu}\right)^{\otimes n}"),
    (C(R(1, 2), G(1) @ G(2)), r"C_{\frac{1}{2}}\left(G_{1} \otimes G_{2}\right)"),
    (Mix(G(1), p), r"\left(G_{1}\right)_{p}"),
    (Mix(G(1).inverse(), p), r"\left(G_{1}^{-1}\right)_{p}"),
    # symmetrisations, max
    (Symmetrize(G(1) ** 2), r"\left(G_{1}^{\otimes 2}\right)^{\mathrm{S}}"),
    (SymmetricHull(G(1)), r"\mathcal{C}\left(G_{1}\right)"),
    (Max(G(1), EpsDelta(1, 0)), r"\max\left\{f_{1,0}, G_{1}\right\}"),
    # group privacy
    (Group(G(1), k), r"1 - \left(1 - G_{1}\right)^{\circ k}"),
    (Group(G(1), k + 1), r"1 - \left(1 - G_{1}\right)^{\circ \left(k + 1\right)}"),
    (Group(G(1) @ G(2), 2), r"1 - \left(1 - G_{1} \otimes G_{2}\right)^{\circ 2}"),
    (Group(Group(G(1), 2), 3),
     r"1 - \left(1 - \left(1 - \left(1 - G_{1}\right)^{\circ 2}\right)\right)^{\circ 3}"),
    (Group(G(1), 2).inverse(), r"\left(1 - \left(1 - G_{1}\right)^{\circ 2}\right)^{-1}"),
    (Group(G(1), 2) ** 3, r"\left(1 - \left(1 - G_{1}\right)^{\circ 2}\right)^{\otimes 3}"),
    (Tensor(Group(G(1), 2), G(3)),
     r"G_{3} \otimes \left(1 - \left(1 - G_{1}\right)^{\circ 2}\right)"),
    (Conjugate(Group(G(1), 2)), r"\left(1 - \left(1 - G_{1}\right)^{\circ 2}\right)^{*}"),
]


@pytest.mark.parametrize("expr,tex", CASES, ids=[c[1] for c in CASES])
def test_latex(expr, tex):
    assert ta.latex(expr) == tex
    assert expr.latex() == tex
    assert expr._repr_latex_() == r"$\displaystyle %s$" % tex


def test_applied_and_closed_forms():
    assert ta.latex(G(1)(a)) == r"\Phi\left(\Phi^{-1}\left(1 - a\right) - 1\right)"
    assert ta.latex(ta.Applied(G(1) @ G(2), a)) == \
        r"\left(G_{1} \otimes G_{2}\right)\left(a\right)"
    assert ta.latex(ta.Applied(C(p, G(1)), a)) == r"C_{p}\left(G_{1}\right)\left(a\right)"
    assert ta.latex(ta.Applied(G(1) ** 2, a)) == r"\left(G_{1}^{\otimes 2}\right)\left(a\right)"
    assert str(ta.Applied(G(1) @ G(2), a)) == "(G(1) @ G(2))(a)"


TEXT = [
    (G(mu), "G(mu)"),
    (EpsDelta(1, R(1, 10)), "EpsDelta(1, 1/10)"),
    (G(1) @ G(2), "G(1) @ G(2)"),
    (G(1) ** 3, "G(1)**3"),
    (G(mu) ** (n + 1), "G(mu)**(n + 1)"),
    ((G(1) @ G(2)) ** 2, "(G(1) @ G(2))**2"),
    (C(p, G(1)), "C(p, G(1))"),
    (G(1).inverse(), "Inverse(G(1))"),
    (Id @ Zero, "Id @ Zero"),
]


@pytest.mark.parametrize("expr,s", TEXT, ids=[c[1] for c in TEXT])
def test_text(expr, s):
    assert ta.text(expr) == s == str(expr)


# -- float parameters print as the floats they came from (core/readable.py) ---------------------
def _exact(x: float) -> sp.Rational:
    return R(*x.as_integer_ratio())


def test_a_float_parameter_prints_as_written_and_keeps_its_exact_value():
    f = G(1.1)
    assert f.args[0] == R(2476979795053773, 2251799813685248)  # the float's binary value
    assert repr(f) == str(f) == ta.text(f) == sp.sstr(f) == "G(1.1)"
    assert ta.latex(f) == sp.latex(f) == "G_{1.1}"
    assert str(ta.EpsDelta(1.1, 1e-5)) == "EpsDelta(1.1, 1e-05)"


@pytest.mark.parametrize("sens,sigma,text,tex", [
    (1, 1.1, "G(1/1.1)", r"G_{\frac{1}{1.1}}"),
    (0.7, 1.3, "G(0.7/1.3)", r"G_{\frac{0.7}{1.3}}"),
    (2, 1.1, "G(2/1.1)", r"G_{\frac{2}{1.1}}"),
    (1e-5, 7.3, "G(1e-05/7.3)", None),
])
def test_a_mechanism_of_floats_prints_its_ratio(sens, sigma, text, tex):
    f = ta.gaussian_mechanism(sens, sigma)
    assert f.args[0] == _exact(float(sens)) / _exact(sigma)  # exact, as before
    assert str(f) == sp.sstr(f) == text
    if tex is not None:
        assert ta.latex(f) == tex
    # plot legends are the LaTeX of the expression
    assert "2251799813685248" not in ta.latex(ta.noisy_sgd(1.1, 256 / 60000, 100))


def test_derivations_and_closed_forms_print_the_floats():
    d = ta.derive(G(1.1) @ G(2.2))
    assert str(d).splitlines()[0] == "G(1.1) @ G(2.2)"
    assert "G(1.1*sqrt(5))" in str(d)  # sqrt(1.1^2 + 2.2^2) = 1.1 sqrt(5), exactly
    assert r"G_{1.1 \sqrt{5}}" in d.latex()


def test_fractions_the_user_wrote_stay_fractions():
    for q, s in [(R(1, 3), "G(1/3)"), (R(1, 2), "G(1/2)"), (R(17, 30), "G(17/30)"),
                 (R(1, 100000), "G(1/100000)"), (R(3, 1024), "G(3/1024)")]:
        assert str(G(q)) == s
    big = R(10**20 + 1, 3**50)  # no float reading shorter than the fraction
    assert str(G(big)) == f"G({big.p}/{big.q})"


finite_floats = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(finite_floats)
def test_round_trip_of_a_float_parameter(x):
    """The printed decimal reads back to the same float, hence to the same node."""
    f = G(x)
    text = str(f)
    assert text.startswith("G(") and text.endswith(")")
    inner = text[2:-1]
    if "/" not in inner:  # a float literal (or a short fraction for small dyadics)
        back = G(float(inner)) if "/" not in inner else None
        assert float(inner) == x and back == f and hash(back) == hash(f)


@settings(max_examples=60, deadline=None)
@given(finite_floats, finite_floats)
def test_round_trip_of_a_ratio_of_floats(a, b):
    """A printed quotient x/y denotes Rational(x)/Rational(y) exactly, the floats read back by
    float(): the same rational, the same node, and the node equals the one built from the
    rational."""
    from tradeoff_algebra.core.readable import readable, value

    r = _exact(a) / _exact(b)
    t = readable(r)
    if t is None:
        return  # the fraction is printed, exactly
    assert value(t) == r
    text = t.text()
    if t.kind == "quotient":
        x, y = text.lstrip("-").split("/")
        assert _exact(float(x)) / _exact(float(y)) == r
    f = ta.gaussian_mechanism(a, b)
    assert f == G(r) and hash(f) == hash(G(r)) and str(f) == f"G({text})"


# -- display blocks: Calibration and Approximation, like Verdict and Derivation ----------------
def _ncdf(x):
    import mpmath

    return mpmath.ncdf(x)


def test_calibration_latex_is_a_display_whose_value_meets_the_target():
    import re

    import mpmath

    c = ta.calibrate(lambda s: ta.gaussian_mechanism(1, s), epsilon=1, delta=1e-5)
    t = c.latex()
    assert t.startswith("\\begin{gather*}\n") and t.endswith("\n\\end{gather*}")
    assert c._repr_latex_() == t
    assert r"\delta(1) = " in t and r"\le 1.0 \cdot 10^{-5}" in t and r"\text{fails}" in t
    x = mpmath.mpf(re.search(r"x = ([0-9.]+) \\quad", t).group(1))
    assert x >= mpmath.mpf(float(c.value)) - mpmath.mpf(10) ** -12  # rounded up: more noise
    with mpmath.workdps(30):  # DRS Cor. 1: delta(eps) of G_mu, mu = 1/x, at the printed x
        mu, e = 1 / x, mpmath.mpf(1)
        d = _ncdf(-e / mu + mu / 2) - mpmath.exp(e) * _ncdf(-e / mu - mu / 2)
        assert d <= mpmath.mpf(1) / 10**5  # the printed value meets the target too
    tpr = ta.calibrate(lambda s: ta.gaussian_mechanism(1, s), tpr=0.01, fpr=0.001).latex()
    assert r"1 - f(0.001)" in tpr and r"\le 0.01" in tpr


def test_approximation_latex_and_text_name_the_same_mu():
    """Thm. 11 (Cor. 4 corrected) for C_{1/100}(G_1)^{(x)2500}: mu = p sqrt(T) sqrt(2 chi2_+)
    = sqrt(e Phi(3/2) + 3 Phi(-1/2) - 2)/sqrt(2) = 0.8551; the Berry-Esseen sandwich of the
    stated error is centred at its own mu_BE (0.8362), named apart."""
    import mpmath

    a = ta.approx(ta.noisy_sgd(1, R(1, 100), 2500, sampling="gdp_paper"))
    with mpmath.workdps(30):
        mu = mpmath.sqrt(mpmath.e * _ncdf(1.5) + 3 * _ncdf(-0.5) - 2) / mpmath.sqrt(2)
    shown = mpmath.nstr(mu, 4)
    assert shown == "0.8551"
    assert f"~ G({shown})" in str(a) and f"the approximation's mu = {shown}" in a.error
    assert "mu_BE = 0.8362" in a.error and " mu = 0.8362" not in a.error
    t = a.latex()
    assert t.startswith("\\begin{gather*}\n") and t.endswith("\n\\end{gather*}")
    assert r"\approx G_{%s}" % shown in t and r"mu\_BE = 0.8362" in t
    assert a._repr_latex_() == t
