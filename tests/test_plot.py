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


def test_roc_plot_of_dp_sgd_shares_one_deadline():
    """Each of the 200 points of a ROC plot was a call with its own deadline, and a point of
    DP-SGD costs tens of seconds on its own: the plot ran past 15 minutes. The powers now
    come from one composed grid where float64 resolves them, and the whole plot shares the
    time limit."""
    import time
    import warnings

    from tradeoff_algebra.plot import _roc_points

    f = ta.noisy_sgd(1.1, R(256, 60000), 14062, sampling="poisson")
    t = time.perf_counter()
    with ta.time_limit(2), pytest.raises(ta.TimeLimitExceeded) as exc:
        # levels down to 1e-200: certified points one by one, more than 2 s of them
        ta.plot(f, kind="roc", fpr_min=1e-200, points=30)
    # the shared time LIMIT is honoured (the feature under test; generous for a loaded machine)
    assert time.perf_counter() - t < 1.5 + 1.5 * 2 + 10
    assert exc.value.best is None  # (an enclosure of one point is not the plot's)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.ToleranceWarning)
        ax = ta.plot(f, kind="roc", points=20)
        x, y = ax.lines[0].get_xydata().T
        lo, hi = _roc_points(f, x, 10)
        for i in (12, 17):  # certified points by their own route: the enclosures meet
            v = ta.roc(f, float(x[i]), dps=10)
            assert lo[i] <= float(v.hi) and float(v.lo) <= hi[i]
            assert y[i] == pytest.approx((lo[i] + hi[i]) / 2)
