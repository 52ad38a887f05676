"""The policy of the certified Laplace inversion (:mod:`.cf`) for the product routes: whether a
product is affordable (:data:`MAX_WORK`), at which width it is computed (:data:`REL_FLOOR`,
:data:`REL_MIN`), the lattice split of a Laplace power (:mod:`.cf_lattice`), Chernoff bounds for
products left out, and the maximum over the products of a symmetric hull
(:func:`route_enclosure`, called by ``routes.engines``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

from flint import acb, arb

from ..core.errors import ToleranceWarning
from . import budget
from .cf import (
    _all_losses_at_most,
    _first_plan,
    _flat_cost,
    _guess_epsilon,
    _log_delta_saddle,
    _saddle,
    _saddle_epsilon,
    delta_enclosure,
    epsilon_enclosure,
)
from .cf_lattice import ExactPart, RemainderLaw, split_terms
from .cf_laws import Factor, upper, working_precision

__all__ = ["route_enclosure", "MAX_WORK", "REL_FLOOR", "REL_MIN", "MAX_SPLIT", "DELTA_FLOOR"]


#: Planned work (t-nodes times the t cut-off; about 25 microseconds each) above which
#: :func:`route_enclosure` declines and leaves the question to the PLD engine: few factors with
#: a slowly decaying characteristic function (T = 16 subsampled steps need 6e5, 27 s).
MAX_WORK = 20_000.0


def _work(factors: Sequence[Factor], eps: float, rel_tol: float,
          cap: float = MAX_WORK) -> float:
    try:
        plan = _first_plan(factors, eps, rel_tol, cap)
    except ValueError:  # (beyond the cap: planning stops there)
        return math.inf
    if _flat_cost(factors):
        return float(plan.n_nodes)
    return plan.n_nodes * max(1.0, plan.n_nodes * plan.h)


def _some_c(factors: Sequence[Factor], eps: float) -> float:
    """The saddle point for a Chernoff bound at eps, or 1 where the float search fails (any
    c > 0 gives a valid bound; far out, eps = 10^6, every c gives one below every float)."""
    try:
        c = _saddle(factors, eps)
    except (ValueError, ArithmeticError):
        return 1.0
    return c if c > 0 and math.isfinite(c) else 1.0


def _chernoff_any(factors: Sequence[Factor], kind: str, arg: float, at: float) -> float:
    """:func:`_chernoff` at the saddle point for ``at``, or at c = 1 where the law's float
    planning overflows there."""
    try:
        return _chernoff(factors, kind, arg, _some_c(factors, at))
    except (ValueError, ArithmeticError):
        return _chernoff(factors, kind, arg, 1.0)


def _chernoff(factors: Sequence[Factor], kind: str, arg: float, c: float) -> float:
    """A certified upper bound of delta(arg) ("delta") or of eps(arg) ("epsilon") from
    (1 - e^{-y})_+ <= K e^{cy}, K = c^c/(c + 1)^{c + 1} (the maximum over y > 0 is at
    e^{-y} = c/(c + 1)): delta(eps) <= K e^{-c eps} M(c), for any c > 0."""
    with working_precision(128):
        cc = arb(c)
        log_k = cc * cc.log() - (cc + 1) * (cc + 1).log()
        log_m = sum((n * law.mgf(acb(cc)).real.log() for law, n in factors), arb(0))
        if kind == "delta":  # (rounded up: an underflow gives the least subnormal, never 0)
            log_b = log_m + log_k - cc * arb(arg)
            return 1.0 if not log_b < 0 else min(upper(log_b.exp()), 1.0)
        return upper((log_m + log_k - arb(arg).log()) / cc)


def route_enclosure(
    sets: Sequence[Sequence[tuple]], kind: str, dn: float, up: float, tol: float
) -> tuple[float, float] | None:
    """``max_i`` of delta(eps) (``kind`` "delta", eps in the float bracket [dn, up]) or of
    eps(delta) ("epsilon", delta in [dn, up]) over the products ``sets`` (each a list of
    (law, n): the Arb views of the factors' privacy losses), to relative width ``tol``; None
    when a product is beyond :data:`MAX_WORK` or outside what the inversion certifies here
    (eps(delta) = 0) and its Chernoff bound (:func:`_chernoff`) does not show it below the
    others' maximum (the two directions of a symmetric hull are usually far apart)."""
    rel = tol / 4
    done, left = [], []
    with working_precision(64):  # one lock for the whole call (the laws' caches)
        for specs in sets:
            factors = [(law, int(n)) for law, n in specs]
            try:
                r = _one_enclosure(factors, kind, dn, up, rel)
            except (ValueError, RuntimeError, ArithmeticError):
                r = None
            (left if r is None else done).append(factors if r is None else r)
        if not done:
            return _below_floor(left, kind, dn)
        lo, hi = max(x[0] for x in done), max(x[1] for x in done)
        for factors in left:  # each certainly below the maximum's lower end, or negligible
            try:
                b = _chernoff_any(factors, kind, dn, lo if kind == "epsilon" else dn)
            except (ValueError, RuntimeError, ArithmeticError):
                return None
            if b <= lo:
                continue
            if kind == "delta" and b <= DELTA_FLOOR:
                hi = max(hi, b)
                warnings.warn(f"a delta below {b:.3g} (a Chernoff bound) is taken as [0, {b:.3g}]",
                              ToleranceWarning, stacklevel=3)
                continue
            return None
    if hi > lo and (hi - lo) > tol * hi and hi > DELTA_FLOOR:
        warnings.warn(f"the Laplace inversion stopped at relative width {(hi - lo) / hi:.2g}, "
                      f"above the requested {tol:g}; the result is a guaranteed enclosure",
                      ToleranceWarning, stacklevel=3)
    return lo, hi


#: Below this Chernoff bound a delta nothing certifies more closely is returned as [0, bound].
DELTA_FLOOR = 1e-290


def _below_floor(sets: Sequence[Sequence[Factor]], kind: str, eps: float):
    """[0, b] with a ToleranceWarning when every product's Chernoff bound b on delta(eps) is
    below :data:`DELTA_FLOOR` (delta(1000) of DP-SGD: about e^{-10^5}), else None."""
    if kind != "delta":
        return None
    try:
        b = max(_chernoff_any(f, kind, eps, eps) for f in sets)
    except (ValueError, RuntimeError, ArithmeticError):
        return None
    if not b <= DELTA_FLOOR:
        return None
    warnings.warn(f"delta is below {b:.3g} (a Chernoff bound) and is returned as [0, {b:.3g}]",
                  ToleranceWarning, stacklevel=4)
    return 0.0, b


#: The inversion's cost grows with log(1/width) only: where the tighter plan stays within
#: :data:`MAX_WORK`, it computes to this relative width at least, whatever looser tolerance was
#: asked (so every tolerance above 4e-10 gives one and the same enclosure: a tighter tolerance
#: never a wider one, and searches that call delta(eps) many times keep its digits).
REL_FLOOR = 1e-10
#: The tightest relative width the inversion aims at (its floats: eps is bracketed by floats,
#: the plans by float cumulants); a tighter tolerance returns this enclosure with a
#: ToleranceWarning (:func:`route_enclosure`).
REL_MIN = 1e-14


def _at(factors: Sequence[Factor], kind: str, x: float, extra=None) -> float:
    """The eps at which a plan is made: x itself, or the estimate of eps(x)."""
    if kind == "delta":
        return x
    return _saddle_epsilon(factors, x) if extra is None else _guess_epsilon(factors, extra, x)


def _rel_target(factors: Sequence[Factor], kind: str, x: float, rel: float, extra=None) -> float:
    """``min(rel, REL_FLOOR)`` where that plan is affordable, else ``rel``."""
    if rel <= REL_FLOOR:
        return rel
    if not factors:  # an exact sum: its cost grows with the digits only
        return REL_FLOOR
    try:
        at = _at(factors, kind, x, extra)
        if at > 0 and _work(factors, at, REL_FLOOR) <= MAX_WORK:
            return REL_FLOOR
    except (ValueError, RuntimeError, ArithmeticError):
        pass
    return rel


#: The largest k for the lattice split (its exact part sums about 12 k terms; beyond, the
#: atoms' share e^{-k p_u} of |M(c + it)| is far below any tolerance and the whole law inverts).
MAX_SPLIT = 20_000


def _split(factors: Sequence[Factor], kind: str, x: float, rel: float):
    """``(factors, None)``, or for the self-product of one lattice law (``lattice_parts``, the
    Laplace mechanism's) whose whole inversion is beyond :data:`MAX_WORK` (its atoms keep
    |M(c + it)| from decaying): ``(remainder, exact part)`` of :mod:`.cf_lattice`."""
    if len(factors) != 1 or not hasattr(factors[0][0], "lattice_parts"):
        return factors, None
    law, k = factors[0]
    if k > MAX_SPLIT:
        return factors, None
    try:
        at = _at(factors, kind, x)
        if at > 0 and _work(factors, at, rel) <= MAX_WORK:
            return factors, None
    except (ValueError, RuntimeError, ArithmeticError):
        pass
    for J in split_terms(k):
        extra = ExactPart(law, k, J)
        if J > k:
            return [], extra
        rest = [(RemainderLaw(law, k, J), 1)]
        try:
            at = _at(rest, kind, x, extra)
            if at > 0 and _work(rest, at, rel) <= MAX_WORK:
                return rest, extra
        except (ValueError, RuntimeError, ArithmeticError):
            pass
    return rest, extra


def _one_enclosure(
    factors: Sequence[Factor], kind: str, dn: float, up: float, rel: float
) -> tuple[float, float] | None:
    """The enclosure of one product, or None; where the whole laws are beyond
    :data:`MAX_WORK` or their planning fails, the laws with a cut (:func:`_cut_enclosure`)."""
    try:
        r = _plain_enclosure(factors, kind, dn, up, rel)
    except (ValueError, RuntimeError, ArithmeticError):
        r = None
    if r is None and any(hasattr(law, "cut_for") for law, _ in factors):
        return _cut_enclosure(factors, kind, dn, up, rel)
    return r


#: The share of the tolerance given to the mass a cut leaves out (:func:`_cut_enclosure`).
CUT_SHARE = 1e-3
#: The planned work allowed with a cut (the products it answers are many factors whose
#: |M(c + it)|^n falls within a few dozen nodes, each at its own x-grid: DP-SGD at
#: delta = 1.1e-18 plans 1.3e5 and takes about 0.5 s).
CUT_WORK = 10 * MAX_WORK


def _cut_enclosure(
    factors: Sequence[Factor], kind: str, dn: float, up: float, rel: float
) -> tuple[float, float] | None:
    """The product with each law that has one (``cut_for``) replaced by its cut: the
    sub-probability measure w A with an entire weight 0 < w <= 1 (the Poisson-subsampled
    Gaussian's: ``families/gaussian_sampled.py``), whose moment generating function stays
    that of the bulk where the whole law's is dominated by its far tail (the remove direction
    of DP-SGD at small delta: E[(1 - q + qY)^{c+1}], Y log-normal, at c ~ 1000). With
    eta = sum n_i E_A[1 - w_i] (certified), 1 - prod w_i <= sum (1 - w_i) and
    0 <= (1 - e^{eps - L})_+ <= 1 give delta_cut(eps) <= delta(eps) <= delta_cut(eps) + eta:
    delta gets eta added to its upper end, eps(d) lies in [eps_cut(d), eps_cut(d - eta)]."""
    rel = max(min(rel, REL_FLOOR), REL_MIN)
    n_cut = sum(n for law, n in factors if hasattr(law, "cut_for"))
    level = dn if kind == "epsilon" else None
    c_max, cut = 64.0, list(factors)
    for _ in range(8):
        budget.check()
        lv = level if level is not None else 1e-300
        eta = CUT_SHARE * rel * lv / n_cut
        cut = [(law.cut_for(eta, c_max) if hasattr(law, "cut_for") else law, n)
               for law, n in factors]
        at = _at(cut, kind, max(dn, 0.0))
        if not at > 0:
            return None
        c = _saddle(cut, at)
        if kind == "delta":
            est = math.exp(max(_log_delta_saddle(cut, c, at), -690.0))
            if level is None or not 0.1 * level <= est <= 10 * level:
                level = est
                c_max = max(c_max, 2 * c)
                continue
        if c <= c_max / 1.2:
            break
        c_max = 2 * c
    else:
        return None
    with working_precision(64):
        eta_cert = upper(sum((n * law.tail_mass() for law, n in cut if hasattr(law, "tail_mass")),
                             arb(0)))
    if _work(cut, at, rel, CUT_WORK) > CUT_WORK:
        return None
    if kind == "delta":
        lo, hi = delta_enclosure(cut, up, rel)
        if dn != up:
            hi = delta_enclosure(cut, dn, rel)[1]
        return lo, min(1.0, math.nextafter(hi + eta_cert, math.inf))
    d_lo = math.nextafter(dn - eta_cert, 0.0)
    if not d_lo > 0:
        return None
    return epsilon_enclosure(cut, d_lo, rel, up)


def _plain_enclosure(
    factors: Sequence[Factor], kind: str, dn: float, up: float, rel: float
) -> tuple[float, float] | None:
    if kind == "delta" and _all_losses_at_most(factors, dn):
        return 0.0, 0.0
    rel = max(rel, REL_MIN)  # (a tighter tolerance is met no better: ToleranceWarning)
    factors, extra = _split(factors, kind, max(dn, 0.0), rel)
    rel = _rel_target(factors, kind, max(dn, 0.0), rel, extra)
    if kind == "delta":
        if factors and _work(factors, max(dn, 0.0), rel) > MAX_WORK:
            return None
        lo, hi = delta_enclosure(factors, up, rel, extra)  # (delta non-increasing)
        if dn != up:
            hi = delta_enclosure(factors, dn, rel, extra)[1]
        return lo, hi
    if factors:
        e0 = _at(factors, kind, dn, extra)
        if not e0 > 0 or _work(factors, e0, rel) > MAX_WORK:
            return None
    return epsilon_enclosure(factors, dn, rel, up, extra)
