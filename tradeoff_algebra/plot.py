"""Plots of trade-off functions and ROC curves with matplotlib (the ``plot`` extra).

``plot(*exprs, ax=None, kind="tradeoff" | "roc")`` draws each expression and returns the
matplotlib ``Axes``:

* ``kind="tradeoff"``: f(alpha) against alpha on [0, 1] (type II against type I error), with
  the line ``1 - alpha`` (Id, no privacy loss) for reference;
* ``kind="roc"``: the attacker's power 1 - f(alpha) against alpha on log-log axes, down to
  ``fpr_min`` (default 1e-8), computed by ``ta.roc`` (no cancellation at tiny alpha), with the
  diagonal TPR = FPR.

``bands=True`` (default) shades the certified enclosure [lo, hi] around each curve where it
has visible width (products, hulls, profile-built factors); closed forms are drawn as lines.
Legends are the expressions in the papers' notation (LaTeX), or ``labels=``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .core.errors import InvalidParameter
from .core.node import TradeOff
from .core.validate import count, flag, items, param
from .numeric import budget
from .numeric.curves import curve
from .numeric.protocol import MAX_DPS, mp_curve, roc, short
from .printing import latex

__all__ = ["plot"]

KINDS = ("tradeoff", "roc")
#: Most points per curve.
MAX_POINTS = 100_000


def _roc_points(f: TradeOff, x: np.ndarray, dps: int) -> tuple[np.ndarray, np.ndarray]:
    """Enclosures of 1 - f at the levels ``x``: from one composed grid for all levels where
    the node has one (products and their hulls, ``mp_curve``; a point of DP-SGD costs tens of
    seconds on its own) and the float64 power 1 - f resolves them (within a factor 2, which
    the band shows), else certified ``roc`` point by point."""
    lo, hi = np.zeros_like(x), np.ones_like(x)
    enc = mp_curve(f, x) if x.size > 1 else None
    if enc is not None:
        flo, fhi = (np.asarray(e, dtype=np.float64) for e in enc)
        lo = np.clip(1.0 - np.nextafter(fhi, np.inf), 0.0, 1.0)
        hi = np.clip(1.0 - np.nextafter(flo, -np.inf), 0.0, 1.0)
    for i in np.flatnonzero(~((lo > 0) & (hi <= 2 * lo))):
        budget.check()
        v = roc(f, float(x[i]), dps=dps)
        lo[i], hi[i] = float(v.lo), float(v.hi)
    return lo, hi


def plot(*exprs: TradeOff, ax: Any = None, kind: str = "tradeoff", points: int = 200,
         fpr_min: float = 1e-8, bands: bool = True, labels: Sequence[str] | None = None,
         dps: int = 10, **line_kw: Any) -> Any:
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
    try:
        with budget.call(lambda: f"plot({', '.join(short(f) for f in exprs)}, kind={kind!r})"):
            data = [curve(f, x, bounds=True) if kind == "tradeoff" else _roc_points(f, x, dps)
                    for f in exprs]
    except budget.TimeLimitExceeded as exc:
        raise exc.without_best() from None
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 4.5))
    for i, (f, (lo, hi)) in enumerate(zip(exprs, data, strict=True)):
        label = labels[i] if labels is not None else f"${latex(f)}$"
        mid = (lo + hi) / 2
        (line,) = ax.plot(x, mid, label=label, **line_kw)
        if bands and np.any(hi - lo > 1e-3 * np.maximum(np.abs(mid), 1e-300)):
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.25, linewidth=0)
    if kind == "tradeoff":
        ax.plot(x, 1 - x, ":", color="grey", label=r"$\mathrm{Id}$")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel(r"type I error $\alpha$")
        ax.set_ylabel(r"type II error $f(\alpha)$")
    else:
        ax.plot(x, x, ":", color="grey", label="TPR = FPR")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("false positive rate (type I error)")
        ax.set_ylabel(r"true positive rate $1 - f(\alpha)$")
    ax.legend()
    return ax
