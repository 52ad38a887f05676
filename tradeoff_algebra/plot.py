"""Plots of trade-off functions and ROC curves with matplotlib (the ``plot`` extra).

``plot(*exprs, ax=None, kind="tradeoff" | "roc")`` draws each expression and returns the
matplotlib ``Axes``:

* ``kind="tradeoff"``: f(alpha) against alpha on [0, 1] (type II against type I error), with
  the line ``1 - alpha`` (Id, no privacy loss) for reference;
* ``kind="roc"``: the attacker's power 1 - f(alpha) against alpha on log-log axes, down to
  ``fpr_min`` (default 1e-8), computed by ``ta.roc`` (no cancellation at tiny alpha), with the
  diagonal TPR = FPR.

``bands=True`` (default) shades the enclosure [lo, hi] around each curve where it has visible
width (products, hulls, profile-built factors): the band between a lower and an upper curve,
both drawn, never one end of it alone; closed forms are drawn as lines. DP-SGD's curves
(symmetric hulls of subsampled Gaussian products) are certified bands from the Laplace
inversion of their privacy profile (``numeric.curves.curve_band``: seconds, whatever sigma);
other products come from one composed grid per curve; both at the relative width ``tol`` of
``pld_options`` (at most :data:`PLOT_TOL`, coarser than the engine's default: a plot cannot
show a narrower band). Axes in the papers' notation: type I error alpha, type II error
beta = f(alpha); the ROC plots the power 1 - beta.
Legends are ``labels=``, else the label a mechanism constructor gave the expression
(``core.labels``: "DP-SGD, σ = 1.1, q = 256/60000, T = 14063, Poisson"), else the expression
in the papers' notation (LaTeX).

``progress``: a bar over the curves and points (``numeric.progress``: True at once, None after
a few seconds on a terminal, False never); the whole plot runs under one time limit
(``ta.time_limit``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .core.errors import InvalidParameter
from .core.labels import label_of
from .core.node import TradeOff
from .core.validate import count, flag, items, param
from .numeric import budget
from .numeric.curves import curve, curve_band
from .numeric.options import options as _pld_now
from .numeric.options import pld_options
from .numeric.progress import bar, check_progress
from .numeric.protocol import MAX_DPS, mp_curve, roc, short
from .printing import latex

__all__ = ["plot"]

KINDS = ("tradeoff", "roc")
#: Most points per curve.
MAX_POINTS = 100_000
#: The coarsest relative width a plot asks of the PLD engine (its band is drawn; a narrower
#: one would not show at a plot's resolution). A tighter ``pld_options(tol=...)`` is kept.
PLOT_TOL = 1e-3


def _roc_points(f: TradeOff, x: np.ndarray, dps: int,
                prog: Any = None, prog_flag: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Enclosures of 1 - f at the levels ``x``: certified bands of the whole curve where a
    band route applies (``numeric.curves.curve_band``: DP-SGD by the Laplace inversion, in
    seconds), else from one composed grid for all levels where the node has one (products
    and their hulls, ``mp_curve``; a point of DP-SGD costs tens of seconds on its own) and the
    float64 power 1 - f resolves them (within a factor 2, which the band shows), else
    certified ``roc`` point by point."""
    b = curve_band(f, x, tol=_pld_now()["tol"], progress=prog_flag)
    if b is not None:  # certified bands of the power itself (no cancellation at tiny alpha)
        if prog is not None:
            prog.update()
        return b.power_lo, b.power_hi
    lo, hi = np.zeros_like(x), np.ones_like(x)
    enc = mp_curve(f, x) if x.size > 1 else None
    if enc is not None:
        flo, fhi = (np.asarray(e, dtype=np.float64) for e in enc)
        lo = np.clip(1.0 - np.nextafter(fhi, np.inf), 0.0, 1.0)
        hi = np.clip(1.0 - np.nextafter(flo, -np.inf), 0.0, 1.0)
    prog = bar(None, "", False) if prog is None else prog
    prog.update()
    todo = np.flatnonzero(~((lo > 0) & (hi <= 2 * lo)))
    if todo.size:
        prog.set_postfix_str(f"{todo.size} levels point by point")
    for i in todo:
        budget.check()
        v = roc(f, float(x[i]), dps=dps)
        lo[i], hi[i] = float(v.lo), float(v.hi)
    return lo, hi


def _tradeoff_points(f: TradeOff, x: np.ndarray, prog: Any,
                     prog_flag: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Enclosures of f at the levels ``x`` (``curve`` with bounds)."""
    out = curve(f, x, bounds=True, progress=prog_flag)
    prog.update()
    return out


def plot(*exprs: TradeOff, ax: Any = None, kind: str = "tradeoff", points: int = 200,
         fpr_min: float = 1e-8, bands: bool = True, labels: Sequence[str] | None = None,
         dps: int = 10, progress: bool | None = None, **line_kw: Any) -> Any:
    """Draw the trade-off curves (or log-log ROC curves) of ``exprs`` (module docstring);
    returns the matplotlib Axes. Extra keywords go to ``Axes.plot``."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - the plot extra
        raise InvalidParameter("matplotlib", None, "installed: pip install "
                               "'tradeoff_algebra[plot]'", "plot") from exc
    if not isinstance(kind, str) or kind not in KINDS:
        raise InvalidParameter("kind", kind, " or ".join(map(repr, KINDS)), "plot")
    points = count("points", points, lower=2, upper=MAX_POINTS, owner="plot")
    dps = count("dps", dps, upper=MAX_DPS, owner="plot")
    fpr = param("fpr_min", fpr_min, lower=0, upper=1, lower_open=True, upper_open=True,
                owner="plot", numeric=True)
    fpr_min = float(fpr)
    if not fpr_min > 0:  # below the smallest float
        raise InvalidParameter("fpr_min", fpr_min, "a number in (0, 1) of at least 1e-300",
                               "plot")
    bands = flag("bands", bands, "plot")
    progress = check_progress(progress, "plot")
    if not exprs:
        raise InvalidParameter("exprs", exprs, "at least one trade-off expression", "plot")
    for f in exprs:
        if not isinstance(f, TradeOff):
            raise InvalidParameter("exprs", f, "trade-off expressions", "plot")
        if f.free_symbols:
            raise InvalidParameter("exprs", f, "trade-off expressions without free symbols",
                                   "plot", "Substitute values for the symbols "
                                   + ", ".join(sorted(map(str, f.free_symbols))))
    if labels is not None:
        allowed = f"None or {len(exprs)} strings, one label per expression"
        labels = items("labels", labels, allowed, "plot")
        if len(labels) != len(exprs) or not all(isinstance(t, str) for t in labels):
            raise InvalidParameter("labels", labels, allowed, "plot")
    if kind == "tradeoff":
        x = np.linspace(0.0, 1.0, points)
    else:
        x = np.logspace(np.log10(fpr_min), 0.0, points)
    # one deadline for the whole plot (``with ta.time_limit(s)``): every curve and point inside
    # shares it (an enclosure of one point, which a time limit may carry, is not the plot's)
    tol = min(PLOT_TOL, _pld_now()["tol"])
    try:
        with budget.call(lambda: f"plot({', '.join(short(f) for f in exprs)}, kind={kind!r})"), \
                pld_options(tol=tol), bar(len(exprs), f"plot ({kind})", progress,
                                          unit="curve") as prog:
            data = [_tradeoff_points(f, x, prog, progress) if kind == "tradeoff" else
                    _roc_points(f, x, dps, prog, progress) for f in exprs]
    except budget.TimeLimitExceeded as exc:
        raise exc.without_best() from None
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 4.5))
    for i, (f, (lo, hi)) in enumerate(zip(exprs, data, strict=True)):
        label = labels[i] if labels is not None else label_of(f) or f"${latex(f)}$"
        mid = (lo + hi) / 2
        if bands and np.any(hi - lo > 1e-3 * np.maximum(np.abs(mid), 1e-300)):
            # the enclosure: its lower and upper curves, and the band between them
            (line,) = ax.plot(x, lo, **{"linewidth": 0.8, **line_kw})
            ax.plot(x, hi, color=line.get_color(), linewidth=line.get_linewidth())
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.3, linewidth=0,
                            label=label)
        else:
            ax.plot(x, mid, label=label, **line_kw)
    if kind == "tradeoff":
        ax.plot(x, 1 - x, ":", color="grey", label=r"$\mathrm{Id}$")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel(r"type I error $\alpha$")
        ax.set_ylabel(r"type II error $\beta = f(\alpha)$")
    else:
        ax.plot(x, x, ":", color="grey", label=r"$1 - \beta = \alpha$")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(r"type I error $\alpha$ (false-positive rate)")
        ax.set_ylabel(r"power $1 - \beta = 1 - f(\alpha)$ (true-positive rate)")
    ax.legend(fontsize="small")
    return ax
