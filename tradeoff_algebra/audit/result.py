"""The :class:`Audit` record: the points, their confidence boxes, what they refute; its plot and
its LaTeX. Computed by :mod:`tradeoff_algebra.audit.attack`."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from mpmath.libmp import to_rational

from ..core.node import TradeOff
from ..numeric.value import Value
from ..printing import latex as _latex
from ..rewrite import simplify

__all__ = ["AuditPoint", "Audit"]


def _f(x: Fraction) -> float:
    return float(x)


def _margin(q) -> Fraction:
    """How far a refuting point's certified lower end of f lies above the claim there, exactly
    (a Value's endpoint is an mpf of mpmath's global context: its arithmetic would round at the
    user's precision)."""
    return Fraction(*to_rational(q.f_value.lo._mpf_)) - Fraction(q.box[3])


@dataclass(frozen=True)
class AuditPoint:
    """One threshold of the attack: its counts, its empirical errors and its confidence box.

    ``fp`` of ``negatives`` nonmembers were called members (FPR = fp/negatives), ``fn`` of
    ``positives`` members were missed (FNR = fn/positives). ``box`` is
    ``(fpr_lo, fpr_hi, fnr_lo, fnr_hi)``, exact dyadic rationals from the Clopper–Pearson
    bounds proved in Arb (:mod:`.binomial`). ``f_value`` is the claimed curve at ``fpr_hi``
    (a :class:`Value`, or None without a claim); ``refutes`` is True when it is exact or
    certified and above ``fnr_hi`` (the box lies below the curve), False when it is certainly
    not, None when undecided; ``eps`` maps each delta to the proved lower bound of the eps the
    box refutes; ``mu`` is the same for G_mu."""

    threshold: Any
    fp: int
    negatives: int
    fn: int
    positives: int
    box: tuple[Fraction, Fraction, Fraction, Fraction]
    f_value: Value | None = None
    refutes: bool | None = None
    eps: dict = field(default_factory=dict)
    mu: Fraction = Fraction(0)

    @property
    def fpr(self) -> Fraction:
        """The empirical false-positive rate fp/negatives (exact)."""
        return Fraction(self.fp, self.negatives)

    @property
    def fnr(self) -> Fraction:
        """The empirical false-negative rate fn/positives (exact)."""
        return Fraction(self.fn, self.positives)


@dataclass(frozen=True)
class Audit:
    """The outcome of an audit against a claimed trade-off function.

    ``confidence`` is the simultaneous confidence of all the boxes: each of the ``4 m``
    one-sided Clopper–Pearson bounds of the ``m`` thresholds is taken at level
    ``(1 - confidence)/(4 m)`` (Bonferroni), so with probability at least ``confidence`` every
    box holds the true (FPR, FNR) of its threshold, whatever the dependence between them;
    this holds when the thresholds were fixed before the counted scores were looked at
    (``selection`` says how they were chosen). On that event a claim that holds is never
    refuted, so ``refuted`` is a test of the claim at level ``1 - confidence``, and
    ``eps_lower[delta]`` (``mu_lower``) is a lower confidence bound on the mechanism's eps at
    delta (its GDP mu) at the same confidence.
    """

    claimed: TradeOff | None
    confidence: Fraction
    points: tuple[AuditPoint, ...]
    selection: str
    deltas: tuple[Fraction, ...]
    level: Fraction

    @property
    def refuted(self) -> bool:
        """True when some box lies, certainly, below the claimed curve."""
        return any(p.refutes is True for p in self.points)

    @property
    def refuting(self) -> tuple[AuditPoint, ...]:
        """The points whose boxes lie below the claimed curve."""
        return tuple(p for p in self.points if p.refutes is True)

    @property
    def undecided(self) -> tuple[AuditPoint, ...]:
        """Points where the claimed curve's value was an estimate or straddled the box."""
        return tuple(p for p in self.points if self.claimed is not None and p.refutes is None)

    @property
    def eps_lower(self) -> dict:
        """delta -> the largest proved lower bound of eps over the thresholds (Fraction)."""
        return {d: max((p.eps[d] for p in self.points), default=Fraction(0)) for d in self.deltas}

    @property
    def mu_lower(self) -> Fraction:
        """The largest mu with G_mu refuted, a proved lower bound (Fraction; 0 for none)."""
        return max((p.mu for p in self.points), default=Fraction(0))

    def summary(self) -> str:
        """A few lines of text: the verdict, the refuting point, the lower bounds."""
        conf = f"{float(self.confidence):.4g}"
        lines = []
        if self.claimed is not None:
            if self.refuted:
                p = max(self.refuting, key=_margin)
                lines.append(
                    f"refuted at confidence {conf}: at threshold {p.threshold!r}, "
                    f"FP {p.fp}/{p.negatives}, FN {p.fn}/{p.positives}; the box "
                    f"[{_f(p.box[0]):.4g}, {_f(p.box[1]):.4g}] x [{_f(p.box[2]):.4g}, "
                    f"{_f(p.box[3]):.4g}] lies below f, f({_f(p.box[1]):.6g}) = "
                    f"{p.f_value.describe()}")
            else:
                lines.append(f"not refuted at confidence {conf} ({len(self.points)} thresholds"
                             + (f", {len(self.undecided)} undecided" if self.undecided else "")
                             + ")")
        for d, e in self.eps_lower.items():
            lines.append(f"eps >= {_f(e):.6g} at delta = {_f(d):.3g} (confidence {conf})")
        lines.append(f"mu >= {_f(self.mu_lower):.6g} (confidence {conf})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        head = "refuted" if self.refuted else ("not refuted" if self.claimed is not None
                                               else "no claim")
        eps = ", ".join(f"{_f(d):.3g}: {_f(e):.6g}" for d, e in self.eps_lower.items())
        return (f"Audit({head}, confidence={float(self.confidence):.4g}, "
                f"{len(self.points)} thresholds, mu_lower={_f(self.mu_lower):.6g}, "
                f"eps_lower={{{eps}}})")

    def latex(self) -> str:
        """The finding in LaTeX: the claim, the verdict with its confidence, the refuting
        point and the lower bounds on eps and mu."""
        conf = f"{float(self.confidence):.4g}"
        parts = []
        if self.claimed is not None:
            f = _latex(self.claimed)
            if self.refuted:
                p = max(self.refuting, key=_margin)
                parts.append(
                    rf"\text{{The claim }} {f} \text{{ is refuted at confidence }} {conf}: "
                    rf"\widehat{{\mathrm{{FPR}}}} = {p.fp}/{p.negatives},\ "
                    rf"\widehat{{\mathrm{{FNR}}}} = {p.fn}/{p.positives},\ "
                    rf"\beta \le {_f(p.box[3]):.4g} < f({_f(p.box[1]):.4g}) = "
                    rf"{p.f_value.latex()}")
            else:
                parts.append(rf"\text{{The claim }} {f} \text{{ is not refuted at confidence }}"
                             rf" {conf}")
        for d, e in self.eps_lower.items():
            parts.append(rf"\varepsilon({_f(d):.3g}) \ge {_f(e):.4g}")
        parts.append(rf"\mu \ge {_f(self.mu_lower):.4g}")
        return r",\quad ".join(parts)

    def _repr_latex_(self) -> str:
        return f"${self.latex()}$"

    def plot(self, ax: Any = None, points: int = 200) -> Any:
        """The claimed curve (its enclosure band where it has width), the empirical points and
        their confidence boxes, on axes labelled alpha (type I error, FPR) and beta (type II
        error, FNR); refuting boxes in red. Needs matplotlib (the ``plot`` extra)."""
        import matplotlib.pyplot as plt
        from matplotlib.patches import Rectangle

        from ..plot import plot as plot_curves

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 5))
        if self.claimed is not None:
            # simplified first: the same curve by the sound identities (G_{1/4}^16 = G_1), and
            # a closed form plots from certified values where the product would be estimated
            plot_curves(simplify(self.claimed), ax=ax, points=points, bands=True)
        else:
            ax.plot([0, 1], [1, 0], color="0.6", lw=0.8)
        for p in self.points:
            a0, a1, b0, b1 = (float(x) for x in p.box)
            color = "tab:red" if p.refutes else "tab:blue"
            ax.add_patch(Rectangle((a0, b0), a1 - a0, b1 - b0, fill=False, ec=color, lw=1))
            ax.plot([float(p.fpr)], [float(p.fnr)], "o", color=color, ms=3)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel(r"$\alpha$ (type I error, FPR)")
        ax.set_ylabel(r"$\beta$ (type II error, FNR)")
        ax.set_title(f"audit at confidence {float(self.confidence):.3g}")
        return ax
