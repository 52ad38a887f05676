"""ta.plot: trade-off and ROC curves drawn with matplotlib; the drawn data are checked against
the library's own certified values, and the figure renders to PNG."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import tradeoff_algebra as ta

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

R = sp.Rational


def test_tradeoff_plot_draws_the_curves(tmp_path):
    f, g = ta.G(1), ta.EpsDelta(1, R(1, 10))
    ax = ta.plot(f, g, points=41)
    lines = [ln for ln in ax.lines if ln.get_label().startswith("$G") or
             ln.get_label().startswith("$f")]
    assert [ln.get_label() for ln in lines] == ["$G_{1}$", r"$f_{1,\frac{1}{10}}$"]
    x, y = lines[0].get_xydata().T
    assert np.allclose(x, np.linspace(0, 1, 41))
    assert np.allclose(y, [float(ta.evaluate(f, float(a)).mid) for a in x], atol=1e-12)
    out = tmp_path / "fig.png"
    ax.figure.savefig(out)
    assert out.stat().st_size > 1000 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_roc_plot_is_log_log_and_uses_the_power():
    f = ta.G(1) @ ta.Laplace(1)
    ax = ta.plot(f, kind="roc", points=12, fpr_min=1e-8)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    x, y = ax.lines[0].get_xydata().T
    assert x[0] == pytest.approx(1e-8)
    for a, t in zip(x[:3], y[:3], strict=True):
        v = ta.roc(f, float(a), dps=10)
        assert float(v.lo) * (1 - 1e-12) <= t <= float(v.hi) * (1 + 1e-12)


def test_plot_bad_input():
    with pytest.raises(ta.InvalidParameter, match="kind"):
        ta.plot(ta.G(1), kind="pie")
    with pytest.raises(ta.InvalidParameter, match="exprs"):
        ta.plot(3)


@pytest.mark.parametrize("name,kw", [
    ("points", dict(points=-5)), ("points", dict(points=0)), ("points", dict(points=10**9)),
    ("points", dict(points=2.5)), ("points", dict(points=True)), ("points", dict(points="5")),
    ("dps", dict(dps=0, kind="roc")), ("dps", dict(dps=None, kind="roc")),
    ("fpr_min", dict(fpr_min=float("nan"), kind="roc")),
    ("fpr_min", dict(fpr_min=0, kind="roc")), ("fpr_min", dict(fpr_min=1, kind="roc")),
    ("fpr_min", dict(fpr_min="1e-3", kind="roc")), ("fpr_min", dict(fpr_min=1e-400, kind="roc")),
    ("bands", dict(bands="yes")), ("kind", dict(kind=["roc"])),
])
def test_plot_names_a_bad_argument(name, kw):
    with pytest.raises(ta.InvalidParameter) as info:
        ta.plot(ta.G(1), **kw)
    assert info.value.name == name and f"parameter {name} = " in str(info.value)


def test_plot_takes_exact_number_types():
    import decimal
    import fractions

    for fpr_min in (decimal.Decimal("0.001"), fractions.Fraction(1, 1000), np.float32(1e-3)):
        ax = ta.plot(ta.G(1), kind="roc", points=np.int64(3), fpr_min=fpr_min)
        assert ax.lines[0].get_xydata()[0, 0] == pytest.approx(1e-3)
