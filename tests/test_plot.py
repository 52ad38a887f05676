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
    f_lo, f_hi = ta.curve(f, x[:3], bounds=True)  # the curve's certified band
    for a, t, lo, hi in zip(x[:3], y[:3], 1 - f_hi, 1 - f_lo, strict=True):
        assert lo * (1 - 1e-12) <= t <= hi * (1 + 1e-12)  # the line lies in its band
        v = ta.roc(f, float(a), dps=10)  # which meets the certified power there
        assert float(v.lo) <= hi * (1 + 1e-12) and lo * (1 - 1e-12) <= float(v.hi)


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
    import warnings

    from tradeoff_algebra.plot import _roc_points

    f = ta.noisy_sgd(1.1, R(256, 60000), 14062, sampling="poisson")
    with ta.time_limit(0.5), pytest.raises(ta.TimeLimitExceeded) as exc:
        # levels down to 1e-200: the certified band takes about 2 s, more than the limit
        ta.plot(f, kind="roc", fpr_min=1e-200, points=30)
    assert exc.value.seconds == 0.5  # the plot's one shared limit (how soon: benchmarks/)
    assert exc.value.best is None  # (an enclosure of one point is not the plot's)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ta.ToleranceWarning)
        ax = ta.plot(f, kind="roc", points=20)
        x, y = ax.lines[0].get_xydata().T
        lo, hi = _roc_points(f, x, 10)
        for i in (12, 17):  # certified points by their own route: the enclosures meet
            v = ta.roc(f, float(x[i]), dps=10)
            assert lo[i] <= float(v.hi) and float(v.lo) <= hi[i]
            # the first line is the lower curve of a band, or the midpoint of a thin one
            assert lo[i] * (1 - 1e-12) <= y[i] <= hi[i] * (1 + 1e-12)


def test_legend_is_the_mechanisms_label_and_axes_use_the_papers_notation():
    f = ta.noisy_sgd(1.0, dataset_size=50000, batch_size=512, epochs=30)
    ax = ta.plot(ta.G(1), f, points=21)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "DP-SGD, σ = 1.0, q = 512/50000, T = 2930, Poisson" in legend
    assert "$G_{1}$" in legend  # no label: the expression in LaTeX
    assert ax.get_xlabel() == r"type I error $\alpha$"
    assert ax.get_ylabel() == r"type II error $\beta = f(\alpha)$"
    ax = ta.plot(f, kind="roc", points=12, fpr_min=1e-6, labels=["run A"])
    assert [t.get_text() for t in ax.get_legend().get_texts()][0] == "run A"
    assert "1 - \\beta" in ax.get_ylabel() and "alpha" in ax.get_xlabel()


def test_an_enclosure_is_drawn_as_a_band_between_its_lower_and_upper_curves():
    """A product whose enclosure has visible width: both ends are drawn and the band between
    them; the drawn enclosure meets one computed again by ta.curve."""
    import warnings

    from tradeoff_algebra.plot import PLOT_TOL

    f = ta.Max(ta.G(1), ta.Laplace(1)) @ ta.G(1)  # a profile-built factor: a visible width
    x = np.linspace(0, 1, 11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ax = ta.plot(f, points=11)
        with ta.pld_options(tol=PLOT_TOL):  # the plot's tolerance
            lo, hi = ta.curve(f, x, bounds=True)
    assert np.any(hi - lo > 1e-3 * np.maximum((lo + hi) / 2, 1e-300))  # a visible width
    lower, upper = (ln.get_xydata()[:, 1] for ln in ax.lines[:2])
    assert np.all(lower <= upper)
    # two enclosures of the same truth meet (the drawn one and one computed again)
    assert np.all(lower <= hi * (1 + 1e-12)) and np.all(lo <= upper * (1 + 1e-12))
    assert np.any(upper - lower > 0)
    assert len(ax.collections) == 1  # the band


def test_progress_bar_is_drawn_on_request_and_named_when_bad(capsys):
    ta.plot(ta.G(1), ta.G(2), points=5, progress=True)
    err = capsys.readouterr().err
    assert "plot (tradeoff)" in err and "2/2" in err  # tqdm's bar: both curves done
    ta.plot(ta.G(1), points=5)  # default: a bar only after a few seconds on a terminal
    assert capsys.readouterr().err == ""
    with pytest.raises(ta.InvalidParameter) as info:
        ta.plot(ta.G(1), progress="yes")
    assert info.value.name == "progress"
    with pytest.raises(ta.InvalidParameter) as info:
        ta.calibrate(lambda s: ta.gaussian_mechanism(1, s), epsilon=1, delta=1e-5,
                     progress=1)
    assert info.value.name == "progress"
    c = ta.calibrate(lambda s: ta.gaussian_mechanism(1, s), epsilon=1, delta=1e-5,
                     progress=True)
    err = capsys.readouterr().err
    assert f"{c.probes}probe" in err.replace(" ", "")


def test_pld_progress_bar_shows_its_compositions(capsys):
    """pld_options(progress=True): a tqdm bar per composition with its steps and elapsed time
    (the former bar restarted its clock at every composition and read "(0.0s)")."""
    # f(alpha) of a product with a Skellam factor (no certified profile route): the PLD engine
    f = ta.G(1) @ ta.Laplace(1) ** 5 @ ta.Skellam(1, 3)
    with ta.pld_options(progress=True):
        d = ta.evaluate(f, sp.Rational(1, 10))
    err = capsys.readouterr().err
    assert "PLD composition, h = 2^" in err and ("step/s" in err or "s/step" in err)
    with ta.pld_options(progress=False):
        assert ta.evaluate(f, sp.Rational(1, 10)) == d
    assert capsys.readouterr().err == ""


def test_default_progress_bar_appears_on_a_terminal_once_the_call_is_long(monkeypatch):
    """progress=None: no bar before DELAY seconds, then a bar on a terminal (here DELAY = 0
    and a stderr that says it is a terminal)."""
    import io
    import sys

    from tradeoff_algebra.numeric import progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    ta.plot(ta.G(1), points=5)  # DELAY = 3 s: a quick plot draws nothing
    assert term.getvalue() == ""
    monkeypatch.setattr(progress, "DELAY", 0.0)
    ta.plot(ta.G(1), ta.G(2), points=5)
    assert "plot (tradeoff)" in term.getvalue() and "2/2" in term.getvalue()


def test_curve_progress_bar_counts_its_levels(capsys):
    """ta.curve(..., progress=True): a bar over the levels evaluated one by one (here the
    certified midpoints of an operator tree without a float path), the values unchanged."""
    f = ta.Symmetrize(ta.Laplace(1) @ ta.EpsDelta(sp.Rational(1, 2), 0))
    xs = [0.1, 0.3, 0.5]
    with_bar = ta.curve(f, xs, bounds=True, progress=True)
    err = capsys.readouterr().err
    assert "curve" in err and "3/3" in err
    without = ta.curve(f, xs, bounds=True, progress=False)
    assert capsys.readouterr().err == ""
    assert all((a == b).all() for a, b in zip(with_bar, without, strict=True))


def test_default_bar_is_deferred_and_the_dp_sgd_band_shows_one(monkeypatch):
    """progress=None builds no tqdm bar before DELAY seconds (a quick call does not import it);
    past DELAY the DP-SGD band of a ROC plot counts its deltas on a terminal."""
    import io
    import sys

    from tradeoff_algebra.numeric import progress

    b = progress.bar(None, "quick", None)
    for _ in range(5):
        b.update()
    assert b._inner is None and b._done == 5
    b.close()

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    f = ta.noisy_sgd(sp.Rational(11, 10), sp.Rational(256, 60000), 1000)
    ta.plot(f, kind="roc", points=20)
    assert "curve (inversion)" in term.getvalue() and "delta" in term.getvalue()
