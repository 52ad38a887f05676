"""LaTeX and text of every node in the papers' notation, with correct parenthesisation.

Notation of Dong, Roth & Su: G_{\\mu}, f_{\\varepsilon,\\delta}, C_{p}(f), f^{\\otimes n},
f^{-1}, f^{*}, \\mathrm{Id}; group privacy 1 - (1 - f)^{\\circ k} (Thm. 3).
"""

from __future__ import annotations

import pytest
import sympy as sp
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
