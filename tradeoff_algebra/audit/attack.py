"""Audits of a membership-inference (or canary) attack against a claimed trade-off function.

``audit(scores_members, scores_nonmembers, claimed, confidence)`` thresholds the scores (a
score at or above the threshold guesses "member"), counts the errors at each threshold and hands
them to ``audit_counts``, which bounds them (Clopper–Pearson, proved in Arb), asks whether a
box lies below the claimed curve and bounds the eps and mu the data refute
(:mod:`.bounds`). The direction: nonmembers are the null hypothesis P = M(S), members the
alternative Q = M(S'), and a mechanism that is f-DP has T(P, Q) >= f (Dong, Roth & Su, Def. 3),
so every test's (FPR, FNR) lies on or above f.

Multiplicity. The ``m`` thresholds share one Bonferroni correction: each of the ``4 m``
one-sided bounds is at level ``(1 - confidence)/(4 m)``. That is valid only for thresholds
fixed before the counted scores were seen. ``thresholds=`` given: they are used on all the
scores (the caller states they were fixed in advance). ``thresholds=None``: the scores are
split, the even positions of each array choose ``n_thresholds`` thresholds (a float estimate
of which would refute most: a selection, never a certificate) and the odd positions are
counted; the scores must be exchangeable (i.i.d. draws in random order) for the split to be
honest.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..core.errors import InvalidParameter
from ..core.node import TradeOff
from ..notions.base import Notion
from ..numeric.curves import curve
from .binomial import check_level, cp_lower, cp_upper, exact_fraction
from .bounds import eps_lower, mu_lower, refutes
from .result import Audit, AuditPoint

__all__ = ["audit", "audit_counts", "as_claim", "as_fraction"]

#: The deltas at which eps is bounded when none are given.
DEFAULT_DELTAS = ("0", "1e-5")


def as_fraction(x: Any, name: str, owner: str, lower: Any = 0, upper: Any = 1) -> Fraction:
    """A number in [lower, upper] as an exact Fraction (a float exactly; a string as written,
    "1e-5" = 1/100000)."""
    try:
        q = exact_fraction(x)
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameter(name, x, f"a number in [{lower}, {upper}]", owner) from None
    if not Fraction(lower) <= q <= Fraction(upper):
        raise InvalidParameter(name, x, f"a number in [{lower}, {upper}]", owner)
    return q


def as_claim(claimed: Any) -> tuple[TradeOff | None, tuple[Fraction, ...]]:
    """The claimed trade-off function and the deltas it names: a trade-off expression as it is;
    an object with ``.expression`` (the :class:`~tradeoff_algebra.accountant.Accountant`) by it;
    a privacy notion (``ApproxDP``, ``GDP``, ...) by its ``to_tradeoff()`` (an ``ApproxDP``
    adds its delta to the deltas at which eps is bounded)."""
    if claimed is None:
        return None, ()
    deltas: tuple[Fraction, ...] = ()
    if isinstance(claimed, Notion):
        d = getattr(claimed, "delta_", None)
        if d is not None and getattr(d, "is_Rational", False):
            deltas = (Fraction(int(d.p), int(d.q)),)
        claimed = claimed.to_tradeoff()
    elif not isinstance(claimed, TradeOff) and hasattr(claimed, "expression"):
        claimed = claimed.expression
    if not isinstance(claimed, TradeOff):
        raise InvalidParameter("claimed", claimed, "a trade-off expression, an object with "
                               ".expression (an Accountant) or a privacy notion", "audit")
    if claimed.free_symbols:
        raise InvalidParameter("claimed", claimed, "an expression without free symbols",
                               "audit", f"give values to {sorted(map(str, claimed.free_symbols))}")
    return claimed, deltas


def _ints(x: Any, name: str, m: int | None) -> list[int]:
    xs = list(x) if isinstance(x, (Sequence, np.ndarray)) and not isinstance(x, str) else [x]
    if m is not None and len(xs) == 1 and m > 1:
        xs = xs * m
    out = []
    for v in xs:
        if isinstance(v, bool) or not hasattr(v, "__index__") or int(v) < 0:
            raise InvalidParameter(name, v, "a non-negative integer (or a list of them)",
                                   "audit_counts")
        out.append(int(v))
    if m is not None and len(out) != m:
        raise InvalidParameter(name, x, f"one count per threshold ({m})", "audit_counts")
    return out


def audit_counts(fp: Any, negatives: Any, fn: Any, positives: Any, claimed: Any = None,
                 confidence: Any = Fraction(95, 100), *, thresholds: Sequence[Any] | None = None,
                 deltas: Sequence[Any] | None = None, dps: int = 30,
                 selection: str = "fixed in advance") -> Audit:
    """An audit from counts at ``m`` thresholds: ``fp[i]`` false positives among
    ``negatives[i]`` nonmembers and ``fn[i]`` false negatives among ``positives[i]`` members
    (a single count or a list; the totals may be one number for all thresholds).

    Each (FPR, FNR) gets a box from two-sided Clopper–Pearson bounds at level
    ``(1 - confidence)/(4 m)`` a side (Bonferroni over the ``m`` thresholds: the boxes hold
    the truth simultaneously with probability >= ``confidence``); the claim is refuted where a
    box lies below it (``f(FPR_hi) > FNR_hi``, f certified by ``evaluate``); eps at each of
    ``deltas`` (default 0 and 1e-5, and the claim's own delta) and GDP mu get the proved lower
    bounds of the largest values the boxes refute (:mod:`.bounds`). See :class:`Audit`.
    """
    fps = _ints(fp, "fp", None)
    m = len(fps)
    if m == 0:
        raise InvalidParameter("fp", fp, "at least one threshold's count", "audit_counts")
    negs, fns, poss = (_ints(x, nm, m) for x, nm in ((negatives, "negatives"), (fn, "fn"),
                                                       (positives, "positives")))
    for i in range(m):
        for k, n, nk, nn in ((fps[i], negs[i], "fp", "negatives"),
                             (fns[i], poss[i], "fn", "positives")):
            if n < 1:
                raise InvalidParameter(nn, n, "an integer >= 1", "audit_counts")
            if k > n:
                raise InvalidParameter(nk, k, f"an integer in [0, {nn}] = [0, {n}]",
                                       "audit_counts")
    conf = check_level(confidence, "confidence", "audit_counts")
    f, own = as_claim(claimed)
    ds = tuple(as_fraction(d, "deltas", "audit_counts") for d in
               (DEFAULT_DELTAS if deltas is None else deltas))
    ds = tuple(dict.fromkeys(ds + own))  # in order, without repeats
    ths = list(range(m)) if thresholds is None else list(thresholds)
    if len(ths) != m:
        raise InvalidParameter("thresholds", thresholds, f"one threshold per count ({m})",
                               "audit_counts")
    level = (1 - conf) / (4 * m)
    pts = []
    for i in range(m):
        a0, a1 = cp_lower(fps[i], negs[i], level)[0], cp_upper(fps[i], negs[i], level)[1]
        b0, b1 = cp_lower(fns[i], poss[i], level)[0], cp_upper(fns[i], poss[i], level)[1]
        ref, val = (None, None) if f is None else refutes(f, a1, b1, dps)
        pts.append(AuditPoint(ths[i], fps[i], negs[i], fns[i], poss[i], (a0, a1, b0, b1),
                              val, ref, {d: eps_lower(a1, b1, d) for d in ds},
                              mu_lower(a1, b1)))
    return Audit(f, conf, tuple(pts), selection, ds, level)


def _scores(x: Any, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float).ravel()
    if a.size == 0 or not np.all(np.isfinite(a)):
        raise InvalidParameter(name, x, "a non-empty array of finite scores", "audit")
    return a


def _counts(members: np.ndarray, nonmembers: np.ndarray, ts) -> tuple[list, list]:
    """False positives (nonmember score >= t) and false negatives (member score < t)."""
    s0, s1 = np.sort(nonmembers), np.sort(members)
    fp = [int(s0.size - np.searchsorted(s0, t, side="left")) for t in ts]
    fn = [int(np.searchsorted(s1, t, side="left")) for t in ts]
    return fp, fn


def _choose(members: np.ndarray, nonmembers: np.ndarray, f: TradeOff | None, k: int,
            n0: int, n1: int, level: float, delta: float) -> list[float]:
    """``k`` thresholds chosen on the selection half: the candidates (quantiles of the pooled
    selection scores, at least 1/(3k) of the candidates apart) ranked by a float estimate of
    the margin their boxes would have below f (or, without a claim, of the eps they would
    refute), with the counted half's sizes ``n0``, ``n1`` and the per-bound ``level``. Floats:
    this only chooses."""
    from scipy.special import betaincinv

    pooled = np.concatenate([members, nonmembers])
    qs = np.unique(np.concatenate([np.linspace(0.005, 0.995, 199),
                                   1 - np.geomspace(1e-4, 0.005, 12)]))
    cands = np.unique(np.quantile(pooled, qs))
    fp, fn = _counts(members, nonmembers, cands)
    fpr = np.asarray(fp) / nonmembers.size
    fnr = np.asarray(fn) / members.size

    def up(p, n):  # the float Clopper-Pearson upper bound at the counted size
        kk = np.clip(np.round(p * n), 0, n - 1)
        return np.where(p * n >= n, 1.0, betaincinv(kk + 1, n - kk, 1 - level))

    a, b = up(fpr, n0), up(fnr, n1)
    if f is not None:
        score = np.asarray(curve(f, np.clip(a, 0, 1)), dtype=float) - b
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            score = np.fmax(np.log((1 - delta - b) / a), np.log((1 - delta - a) / b))
    score = np.where(np.isfinite(score), score, -np.inf)
    order = np.argsort(-score, kind="stable")
    gap = max(1, cands.size // (3 * k))  # spread the thresholds: not k neighbours of one peak
    chosen: list[int] = []
    for i in order:
        if all(abs(int(i) - j) >= gap for j in chosen):
            chosen.append(int(i))
            if len(chosen) == k:
                break
    return sorted(float(cands[i]) for i in chosen)


def audit(scores_members: Any, scores_nonmembers: Any, claimed: Any = None,
          confidence: Any = Fraction(95, 100), *, thresholds: Sequence[float] | None = None,
          n_thresholds: int = 4, deltas: Sequence[Any] | None = None, dps: int = 30) -> Audit:
    """Audit an attack's scores against ``claimed`` (a trade-off expression, an
    ``Accountant``, a notion such as ``ApproxDP``): a score >= threshold guesses "member".

    ``thresholds`` fixed in advance are used on all the scores; without them the scores are
    split (even positions choose ``n_thresholds`` thresholds, odd positions are counted; see
    the module docstring). Returns an :class:`~tradeoff_algebra.audit.result.Audit`: the
    points with their simultaneous confidence boxes (Bonferroni over the thresholds,
    Clopper–Pearson bounds proved in Arb), whether a box lies certainly below the claimed
    curve, and the proved lower bounds of the eps (at each delta) and mu the data refute.
    """
    s1, s0 = _scores(scores_members, "scores_members"), _scores(scores_nonmembers,
                                                               "scores_nonmembers")
    conf = check_level(confidence, "confidence", "audit")
    if thresholds is not None:
        ts = [float(t) for t in np.asarray(thresholds, dtype=float).ravel()]
        if not ts or not all(np.isfinite(ts)):
            raise InvalidParameter("thresholds", thresholds, "a non-empty list of finite "
                                   "numbers", "audit")
        how = "fixed in advance (all scores counted)"
        c1, c0 = s1, s0
    else:
        if isinstance(n_thresholds, bool) or not isinstance(n_thresholds, int) \
                or not 1 <= n_thresholds <= 1000:
            raise InvalidParameter("n_thresholds", n_thresholds, "an integer in [1, 1000]",
                                   "audit")
        if s1.size < 2 or s0.size < 2:
            raise InvalidParameter("scores_members" if s1.size < 2 else "scores_nonmembers",
                                   s1.size if s1.size < 2 else s0.size,
                                   "at least 2 scores (half choose the thresholds)", "audit")
        f, _ = as_claim(claimed)
        c1, c0 = s1[1::2], s0[1::2]
        ds = DEFAULT_DELTAS if deltas is None else deltas
        d0 = float(as_fraction(ds[0], "deltas", "audit")) if len(ds) else 0.0
        level = float((1 - conf) / (4 * n_thresholds))
        ts = _choose(s1[0::2], s0[0::2], f, n_thresholds, c0.size, c1.size, level, d0)
        how = (f"{len(ts)} thresholds chosen on the even positions "
               f"({s1[0::2].size} + {s0[0::2].size} scores), the odd positions counted")
    fp, fn = _counts(c1, c0, ts)
    return audit_counts(fp, c0.size, fn, c1.size, claimed, conf, thresholds=ts,
                        deltas=deltas, dps=dps, selection=how)
