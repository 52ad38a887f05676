"""derive: the trace of a simplification, its LaTeX and plain text; the rule catalogue."""

from __future__ import annotations

import re

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra import G, Id, Inverse, Laplace, Mix, Tensor
from tradeoff_algebra.rewrite import citation_latex

mu, nu = sp.symbols("mu nu", nonnegative=True)


def test_example_derivation():
    e = G(mu) @ G(nu) ** 3 @ Id
    d = ta.derive(e)
    assert d.expr == e
    assert d.result == G(sp.sqrt(mu**2 + 3 * nu**2)) == ta.simplify(e)
    names = [s.rule.name for s in d.steps]
    assert names == ["gaussian_power", "tensor_unit", "gaussian_tensor"]
    assert [str(s.cite) for s in d.steps][2] == "Dong, Roth & Su, Cor. 2"
    # the steps chain: each starts where the previous ended
    assert d.steps[0].expr_before == e
    for a, b in zip(d.steps, d.steps[1:], strict=False):
        assert a.expr_after == b.expr_before
    assert d.steps[-1].expr_after == d.result


def test_latex_block():
    d = ta.derive(G(mu) @ G(nu) ** 3 @ Id)
    tex = d.latex()
    assert tex.startswith("\\begin{align*}\n") and tex.endswith("\n\\end{align*}")
    lines = tex.split("\n")[1:-1]
    assert len(lines) == len(d.steps) == 3
    for line, step in zip(lines, d.steps, strict=True):
        assert "&= " in line and " && \\text{" in line
        assert citation_latex(step.cite) in line
    assert lines[0].startswith(sp.latex(d.expr) + " &= ")
    assert lines[-1] == (r"&= G_{\sqrt{\mu^{2} + 3 \nu^{2}}} && \text{Dong, Roth \& Su, Cor.~2}")
    assert all(line.endswith(" \\\\") for line in lines[:-1])
    assert d._repr_latex_() == tex
    assert ta.latex(d) == tex


def test_citation_latex_escapes():
    assert citation_latex(ta.core.citations.DRS.cor(2)) == r"\text{Dong, Roth \& Su, Cor.~2}"
    assert citation_latex(ta.core.citations.DRS.eq(3)) == r"\text{Dong, Roth \& Su, Eq.~(3)}"


def test_plain_text_trace():
    d = ta.derive(G(3) @ G(4) @ Id)
    s = str(d)
    lines = s.splitlines()
    assert lines[0] == sp.sstr(G(3) @ G(4) @ Id)
    assert lines[-1].startswith("  = G(5)")
    assert "[gaussian_tensor: Dong, Roth & Su, Cor. 2]" in lines[-1]
    assert repr(d) == f"Derivation({G(3) @ G(4) @ Id} -> G(5), 2 steps)"


def test_nothing_to_do():
    d = ta.derive(Laplace(mu))
    assert d.result == Laplace(mu) and len(d) == 0
    assert "no rule applies" in d.latex() and "no rule applies" in str(d)


def test_inverse_steps_are_cited():
    f = Mix(Laplace(1), sp.Rational(1, 2))
    d = ta.derive(Inverse(Inverse(f) @ G(1)))
    assert d.result == Tensor(f, G(1))
    assert [s.rule.name for s in d.steps][0] == "inverse_tensor"
    assert "property 4" in str(d.steps[0].cite)


def test_rules_listing():
    rs = ta.rules()
    assert len(rs) >= 17
    for r in rs:
        assert r.name and isinstance(r.cls, type) and r.relation in ta.core.rules.RELATIONS
        assert isinstance(r.priority, int) and str(r.cite)
    names = {r.name for r in rs}
    assert {"gaussian_tensor", "gaussian_power", "gaussian_group", "gaussian_zero",
            "tensor_unit", "tensor_zero", "tensor_collect", "power_zero", "power_one",
            "power_of_power", "power_of_id", "power_of_zero", "inverse_involution",
            "inverse_symmetric", "inverse_tensor", "inverse_power"} <= names
    assert [r.name for r in ta.rules(ta.Gaussian)] == ["gaussian_zero"]


def test_rule_catalogue_markdown():
    md = ta.rule_catalogue()
    rows = [line for line in md.splitlines() if line.startswith("| `")]
    assert len(rows) == len(ta.rules())
    assert md.splitlines()[0] == "| rule | node | relation | priority | citation | statement |"
    row = next(r for r in rows if r.startswith("| `gaussian_tensor`"))
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
    assert cells[:5] == ["`gaussian_tensor`", "`Tensor`", "eq", "50", "Dong, Roth & Su, Cor. 2"]
    assert cells[5].startswith("G_{mu_1} (x) ... (x) G_{mu_n}")
