"""The shuffle model: the exact post-processing pair of Feldman, McMillan & Talwar.

Wang, Su, Ye, Shokri & Su, Sec. 4.1 (restating Feldman et al.): n users each apply an
eps0-DP local randomizer and a shuffler permutes the reports; the outputs on two neighbouring
datasets are a post-processing of ``X ~ P`` and ``Y ~ Q`` with

    P = (1 - w) P0 + w Q0,   Q = (1 - w) Q0 + w P0,   w = 1/(e^eps0 + 1),
    P0 = law of (A + 1, C - A),   Q0 = law of (A, C - A + 1),
    A ~ Binom(C, 1/2),   C ~ Binom(n - 1, 2/(e^eps0 + 1)),

so the shuffled mechanism is ``T(P, Q)``-DP (DRS, Prop. 2.8, post-processing). ``ShuffleDP(eps0,
n)`` is this ``T(P, Q)``, exactly: a finite trade-off function.

The pair in closed form. Write ``E = e^eps0`` and ``s = a + b``. Summing the mixture,

    P(a, b) = (E a + b) K(a, b),   Q(a, b) = (E b + a) K(a, b),   a, b >= 0, 1 <= a + b <= n,
    K(a, b) = B_n(s) b_s(a) / n,   B_n = pmf of Binom(n, 2/(E+1)),   b_s = pmf of Binom(s, 1/2)

(``(a, b) = (X + 1, Y)`` with ``(X, Y)`` trinomial(n - 1; w, w, 1 - 2w) under P0; the
factor ``(E a + b)/((E + 1) a)`` collects the two mixture terms). Consequences:

* the likelihood ratio is ``Q/P = (E b + a)/(E a + b)``, a function of ``b/a`` only (Q0/P0 is
  ``b/a``; the mixture maps it increasingly for E > 1), between ``1/E`` and ``E``; the
  Neyman--Pearson tests reject for large ``b/a``, and the atoms are the points grouped by the
  reduced fraction ``b/a`` (Dong, Roth & Su, Appendix A);
* **symmetry**: ``(a, b) -> (b, a)`` maps ``P`` to ``Q`` and ``Q`` to ``P``, so
  ``T(P, Q) = T(Q, P) = T(P, Q)^{-1}`` (DRS, after Prop. 2): ``is_symmetric`` is True. (The
  swap is the one Wang et al. use for P0 and Q0: X and Y are exchangeable.)
* ``n = 1`` is randomized response (``P = (E, 1)/(E+1)`` on ``(1,0), (0,1)``):
  ``ShuffleDP(eps0, 1) = f_{eps0,0}``; ``eps0 = 0`` gives ``P = Q``: ``Id``. Both are rewrite
  rules. ``delta(eps) = 0`` for ``eps >= eps0`` (every ratio is at most ``E``).

Theorem 4.2 of Wang et al. bounds ``T(P, Q)`` from below by ``C(f_Shuffle)`` with
``f_Shuffle = 2w Id + (1 - 2w) T(P0, Q0)``; ``proofs/wang.py`` checks that it holds and is
strictly below the exact ``T(P, Q)`` away from a few points. ``ShuffleDP(eps0, n, bound="wang")``
(``mechanisms.shuffle(eps0, n, bound="wang")``) is this bound, on the same atoms:

* ``P0(a, b) = (E + 1) a K(a, b)`` and ``Q0(a, b) = (E + 1) b K(a, b)`` (with ``(a, b) =
  (A + 1, C - A)``: ``Binom(n - 1, theta)(s - 1) = B_n(s) s/(n theta)`` and
  ``C(s - 1, a - 1)/2^{s-1} = 2 a b_s(a)/s``); so ``f_Shuffle = T(P0, R)``, ``R = 2w P0 +
  (1 - 2w) Q0 = (2a + (E - 1) b) K``, with the ratio ``rho = (2 + (E - 1) b/a)/(E + 1)``,
  increasing in b/a (+oo at a = 0: ``f_Shuffle(0) = 1 - R(a = 0)``);
* T(P0, Q0) is symmetric (the same swap), so ``C(f_Shuffle) = C_{1-2w}(T(P0, Q0))`` is given
  by Dong, Roth & Su, Eq. (13): ``f_Shuffle`` up to its fixed point, a segment of slope -1,
  then its inverse. As a pair: the atoms with ``b/a > 1`` (P-mass P0, Q-mass R, ratio rho >
  1), their mirror images (masses exchanged, ratio 1/rho) and one atom of ratio 1 with the
  rest of the mass;
* for ``eps >= 0``, ``delta(eps) = (1 - 2w) Q0(S) - (e^eps - 2w) P0(S)``,
  ``S = {b/a > (e^eps - 2w)/(1 - 2w)}`` (Wang et al., Cor. 4.3).

This is what made the bound slow before: it was built as ``SymmetricHull(Mix(Discrete(P0, Q0),
1 - 2w))`` with the n(n + 1)/2 points of (P0, Q0) as SymPy entries (n <= 60), whose delta went
through the generic convex conjugate of the hull (hundreds of evaluations of the symbolic
knots); now the same table as T(P, Q) serves it (n = 10^4 in seconds).

Numerics. Exact rationals (through :func:`~tradeoff_algebra.numeric.finite.finite_loss`) when
``e^eps0`` is rational and n is small. Otherwise Arb ball arithmetic (python-flint), which makes
every rounding error part of the result: the points are generated slice by slice (``B_n(s)`` by
its recurrence, ``b_s(a)`` by its recurrence from a log-gamma start), the masses of the points
outside a window are dropped, and the dropped mass of each of P and Q is bounded by Chernoff
bounds, ``P(S >= k) <= exp(-n KL(k/n || theta))`` (beyond the kept slices, times ``(E + 1)/2``)
and ``exp(-s KL(k/s || 1/2))`` (inside a slice, times ``2 E s B_n(s)/n``), by ``tau``. With the
kept sub-measures ``P_K, Q_K`` and ``h`` their Neyman--Pearson function (the knots
``(P_K(first j), Q_K(rest))``) every test gives ``h(alpha) <= f(alpha) <= h(alpha) + tau``,
and ``delta_K(eps) <= delta(eps) <= delta_K(eps) + tau``. The window is chosen so that ``tau``
is far below the requested precision (relative to the value; the working precision and ``tau``
are raised until the enclosure is a point at ``dps`` digits, as in ``numeric.finite``). The
mirror symmetry gives the suffix sums for free: ``P(atoms j..) = Q(first m - j atoms)``. Cost:
the number of kept points, about ``n log(1/tau)`` for small eps0 and much less for large eps0
(where ``2n/(E+1)`` users answer at random); ``n = 10^4`` runs in seconds.
T(P, Q) at one level (value and power) is first taken from the strict tails at the level's
Neyman--Pearson threshold fraction, summed by slices in Arb without the table
(:mod:`.shuffle_roc`); the table answers where that route gives way. Whole curves (certified
bands) take every level's fraction from one float pass (:mod:`.shuffle_locate`) and the tails
of all of them from one Arb slice pass (:mod:`.shuffle_curve`). The
float64 paths (``curve`` and the PLD loss model) use ``scipy.stats.binom`` masses on the same
windows.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy as sp
from mpmath.libmp import round_ceiling, round_floor

from ..core import trace
from ..core.citations import WANG
from ..core.node import TradeOff
from ..core.rules import rule
from ..core.validate import param
from ..numeric import budget
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.context import arb_precision, mp
from ..numeric.curves import CURVE_BANDS
from ..numeric.precision_loop import precision_loop
from ..numeric.protocol import exact_value, mp_delta, mp_roc, mp_value, np_value
from ..numeric.value import CertifiedPair
from . import shuffle_pair as shuffle_pair_module
from .epsdelta import EpsDelta
from .shuffle_curve import curve_band
from .shuffle_pair import (
    FLOAT_TAU,
    _check_points,
    _exact_e,
    _fitting_tau_bits,
    _float_atoms,
    _float_atoms_wang,
    _grouped_atoms,
    _guard,
    _npoints,
    _numeric,
    _Table,
    _table,
    _wang_atoms,
    shuffle_pair,
    shuffle_pair0,
)
from .shuffle_profile import slice_profile
from .shuffle_roc import shuffle_power
from .trivial import Id

__all__ = ["ShuffleDP", "shuffle_pair", "shuffle_pair0"]

#: Largest n for which the exact finite pair is registered with ``finite_loss`` when e^eps0 is
#: rational (exact composition, exact values) ...
FINITE_MAX_N_RATIONAL = 150
#: ... and when it is not (the atoms are then SymPy numbers in exp(eps0)).
FINITE_MAX_N_SYMBOLIC = 10


_BOUNDS = ("exact", "wang")


class ShuffleDP(TradeOff):
    """T(P, Q) of the shuffle model: n users, each eps0-DP, then a uniform shuffle.

    The exact post-processing pair of Feldman, McMillan & Talwar as restated by Wang et al.,
    Sec. 4.1 (see the module docstring for the closed form of P and Q and the proof of
    symmetry). ``eps0 >= 0`` real, ``n >= 1`` an integer. ``ShuffleDP(eps0, 1)`` is
    ``f_{eps0,0}`` and ``ShuffleDP(0, n)`` is ``Id``; ``simplify`` makes those rewrites.

    Numeric routes for n up to ``MAX_N`` = 10^12 with at most ``MAX_POINTS`` kept points
    (n = 10^4 at any eps0 in seconds to a minute; large eps0 keeps far fewer); beyond, a
    NumericalError naming the limit at once.

    ``ShuffleDP(eps0, n, bound="wang")`` (what ``shuffle(eps0, n, bound="wang")`` returns) is
    instead Wang et al.'s Thm. 4.2 bound ``C(f_Shuffle)``, ``f_Shuffle = 2w Id + (1 - 2w)
    T(P0, Q0)``: the same atoms (one per reduced fraction b/a), other masses (module
    docstring); it lies below T(P, Q). Its args carry a third entry, 1.
    """

    #: The termination measure's weight (rewrite.measure): 3, so that the rule to a simpler
    #: family (ShuffleDP(eps0, 1) -> f_{eps0,0}) shrinks the tree.
    leaf_weight = 3

    def __new__(cls, eps0: Any, n: Any, bound: Any = "exact"):
        eps0 = param("eps0", eps0, lower=0, owner="ShuffleDP")
        n = param("n", n, lower=1, integer=True, owner="ShuffleDP")
        if isinstance(bound, str) and bound in _BOUNDS:
            wang = bound == "wang"
        elif not isinstance(bound, bool) and isinstance(bound, (int, sp.Integer)) \
                and int(bound) in (0, 1):
            wang = int(bound) == 1
        else:
            from ..core.errors import InvalidParameter

            raise InvalidParameter("bound", bound, "'exact' or 'wang'", "ShuffleDP")
        if wang:
            return TradeOff.__new__(cls, eps0, n, sp.S.One)
        return TradeOff.__new__(cls, eps0, n)

    @property
    def eps0(self) -> sp.Expr:
        return self.args[0]

    @property
    def n(self) -> sp.Expr:
        return self.args[1]

    @property
    def wang(self) -> bool:
        """Is this Wang et al.'s Thm. 4.2 bound C(f_Shuffle) rather than T(P, Q)?"""
        return len(self.args) == 3

    @property
    def bound(self) -> str:
        return "wang" if self.wang else "exact"

    @property
    def is_symmetric(self) -> bool:
        return True  # T(P, Q) by the swap (a, b) -> (b, a); C(.) is symmetric by construction

    def _sympystr(self, printer):
        if self.wang:  # the constructor that reads back to this node
            return "shuffle(%s, %s, bound='wang')" % (printer._print(self.eps0),
                                                      printer._print(self.n))
        return "ShuffleDP(%s, %s)" % (printer._print(self.eps0), printer._print(self.n))

    def _latex(self, printer):
        if self.wang:
            return r"C\left(f^{\mathrm{Shuffle}}_{%s, %s}\right)" % (
                printer._print(self.eps0), printer._print(self.n))
        return r"f^{\mathrm{shuffle}}_{%s, %s}" % (printer._print(self.eps0),
                                                    printer._print(self.n))


def _ziv(f: ShuffleDP, compute):
    """Run ``compute(table) -> (lo, hi)`` (Arb endpoints including the dropped-mass bound)
    with rising working precision and shrinking dropped mass until the enclosure is below the
    target precision relative to its value; past a cap the enclosure is returned. Either is
    proved by the Arb tables: a :class:`CertifiedPair`."""
    from flint import arb

    eps0, n = _numeric(f)
    p = mp.prec
    # (margins of 48 bits: the caller's precision check recomputes at ~40 more bits, and then
    # finds the same table good enough)
    w, tb = p + _guard(n) + 48, _fitting_tau_bits(float(eps0), n, p + 24 + 48)
    _check_points(f, float(eps0), n, tb)
    # a kept table without the margins serves (the width check below decides): the Ziv
    # confirmation at 40 more bits then reuses the table of the first evaluation
    accept = [(p + _guard(n), min(tb, _fitting_tau_bits(float(eps0), n, p + 24)))]

    def at(prec):
        """(enclosure, met, next precision) with the table at ``prec = (w, tb)``."""
        budget.check()
        w, tb = prec
        t = _table(eps0, n, w, tb, f.wang, accept[0])
        accept[0] = None  # (a table that was too coarse is not asked for again)
        with arb_precision(w):
            lo, hi = compute(t)
            lo, hi = arb(lo), arb(hi)
            width = hi.upper() - lo.lower()
            tol = hi.upper() * arb(2) ** (-p - 2)
            if width <= tol:  # a point within 2^-(p + 3) of the truth, proved by the balls
                v = arb_endpoint(((lo + hi) / 2).mid(), round_floor)
                return CertifiedPair(v, v), True, None
            if hi.upper() <= 0:
                return CertifiedPair(mp.zero, mp.zero), True, None
            # the dropped mass: make tau ~ 2^-p of the value; the rounding: raise w (both by
            # the bits of the value's smallness: the prefix sums are ~1)
            need = max(-float(hi.upper().log()) / math.log(2.0), 0.0)
            new_tb = int(p + 8 + need) + 48
            if t.tau > tol / 4 and new_tb > tb:
                if _npoints(float(eps0), n, new_tb) > shuffle_pair_module.MAX_POINTS:
                    nxt = None
                else:
                    nxt = (max(w, p + _guard(n) + int(need) + 48), new_tb)
            else:
                nxt = (w + max(64, int(need)), tb)
            return (lo, hi), False, nxt

    def give_up(r, prev, prec):  # six tables at most; past them the enclosure as it is
        lo, hi = r[0]
        return CertifiedPair(arb_endpoint(lo.lower(), round_floor),
                             arb_endpoint(hi.upper(), round_ceiling))

    r = precision_loop(at, (w, tb), done=lambda r, prev: r[1], grow=lambda r, prec: r[2],
                       max_steps=6, give_up=give_up, check=False)
    return r if isinstance(r, CertifiedPair) else r[0]


def _segments(t: _Table, a, ac) -> range:
    """The indices j of every Neyman--Pearson segment [Ppre[j], Ppre[j + 1]] that may hold
    alpha, searched on the 64-bit midpoints in the tail that keeps its digits (``1 - alpha``
    against the suffix sums ``Psuf(j) = Qpre[m - j]`` when alpha > 1/2): all knots the
    midpoints cannot tell from alpha (atoms of P-mass below 2^-58 of alpha sit that close
    together: ShuffleDP(5, 20) has masses of 1e-25 next to 6e-3), and one more on each side.
    The caller takes the extreme of their lines (see :func:`_eval`)."""
    from bisect import bisect_left, bisect_right

    if a <= ac:
        tol = mp.ldexp(abs(a), -58)
        j0 = bisect_left(t.Pmid, a - tol) - 2
        j1 = bisect_right(t.Pmid, a + tol)
    else:  # Psuf(j) >= 1 - alpha >= Psuf(j + 1), Psuf(j) = Qpre[m - j] increasing in m - j
        tol = mp.ldexp(abs(ac), -58)
        j0 = t.m - bisect_right(t.Qmid, ac + tol) - 1
        j1 = t.m - bisect_left(t.Qmid, ac - tol) + 1
    return range(max(j0, t.first), min(j1, t.m - 1) + 1)


def _line(t: _Table, j: int, A, Ac, power: bool):
    """The extension of the j-th Neyman--Pearson segment of the kept sub-measures at alpha:
    ``h = Q_K(atoms > j) + (P_K(atoms <= j) - alpha) r_j`` (or ``1 - f``'s lower part
    ``Q_K(atoms < j) + (alpha - P_K(atoms < j)) r_j``), with the difference formed on the side
    without cancellation (``1 - alpha - P(atoms > j)`` uses the dropped P-mass in [0, tau])."""
    from flint import arb

    r = t.ratio(j)
    taub = arb(0).union(t.tau)
    if power:
        if t.Pmid[j] <= 0.5:
            d = A - t.Ppre[j]
        else:
            d = t.Psuf(j) + taub - Ac
        return t.Qpre[j] + d * r
    if t.Pmid[j + 1] <= 0.5:
        d = t.Ppre[j + 1] - A
    else:
        d = Ac - t.Psuf(j + 1) - taub
    return t.Qsuf(j + 1) + d * r


def _eval(f: ShuffleDP, a, ac, power: bool):
    """f(alpha) (or 1 - f(alpha)) as an enclosure. T is convex and piecewise linear, so it is
    the maximum of the lines through its segments (and 1 - f the minimum): every line lies
    below f, and the lines of all segments that may hold alpha (:func:`_segments`) include the
    one that does, so their maximum is f(alpha)."""
    from flint import arb

    def compute(t: _Table):
        A, Ac = arb_exact(a), arb_exact(ac)
        vals = [_line(t, i, A, Ac, power) for i in _segments(t, a, ac)]
        lo = max(v.lower() for v in vals) if not power else min(v.lower() for v in vals)
        hi = max(v.upper() for v in vals) if not power else min(v.upper() for v in vals)
        lo, hi = max(lo, arb(0)), max(hi, arb(0))
        # the kept sub-measures: f in [h, h + tau], 1 - f in [1 - h - tau, 1 - h]
        return (lo, hi + t.tau) if not power else (lo, hi + t.tau)

    return _ziv(f, compute)


def _threshold(f: ShuffleDP, a, ac, power: bool) -> CertifiedPair | None:
    """The value from the tails at the Neyman--Pearson threshold (:mod:`.shuffle_roc`, slice
    sums in Arb without the table of atoms) for T(P, Q); None where it gives way."""
    if f.wang or not isinstance(f.n, sp.Integer):
        return None
    return shuffle_power(f.eps0, int(f.n), a, ac, power)


def _covers(f: ShuffleDP) -> bool:
    """Does P's support cover Q's, so that f(0) = 1 exactly? For a finite pair f(0) = 1 - Q(P =
    0), the power at alpha = 0 the Q-mass where the loss is +oo (Dong, Roth & Su, Appendix A: the
    polygon starts at (0, Q(P = 0))). T(P, Q) has ``P(a, b) = (E a + b) K(a, b) > 0`` on every
    point with ``K > 0`` (``a + b >= 1``, ``E >= 1``): the same atoms as Q, none with P = 0.
    The Wang bound has one (a = 0, ratio +oo): computed."""
    return not f.wang


@mp_value.register(ShuffleDP)
def _(f, a, ac):
    # f(1) = 0 and f(0) = 1 (_covers) exactly; Id (eps0 = 0)
    if ac == 0 or (a == 0 and _covers(f)):
        return CertifiedPair(+ac, +ac)
    if f.eps0 == 0:
        return +ac, +ac
    r = _threshold(f, a, ac, power=False)
    return r if r is not None else _eval(f, a, ac, power=False)


@mp_roc.register(ShuffleDP)
def _(f, a, ac):
    if ac == 0 or (a == 0 and _covers(f)):
        return CertifiedPair(+a, +a)
    if f.eps0 == 0:
        return +a, +a
    r = _threshold(f, a, ac, power=True)
    return r if r is not None else _eval(f, a, ac, power=True)


@mp_delta.register(ShuffleDP)
def _(f, eps):
    """delta(eps) = sum over atoms with ratio > e^eps of (Q - e^eps P) (Dong, Roth & Su,
    Prop. 6; the hockey-stick divergence), on the kept atoms, plus [0, tau]; exactly 0 for
    eps >= eps0 (every ratio is at most e^eps0)."""
    from flint import arb

    eps0, _ = _numeric(f)
    if eps0 == 0:  # P = Q
        return CertifiedPair(mp.zero, mp.zero)
    if f.wang:
        return _wang_delta(f, eps)
    if eps == mp.inf:
        return CertifiedPair(mp.zero, mp.zero)
    man, ex = eps.man_exp if eps else (0, 0)
    if (sp.Integer(int(man)) * sp.Integer(2) ** int(ex) - eps0).is_nonnegative is True:
        return CertifiedPair(mp.zero, mp.zero)  # every ratio Q/P is at most e^eps0 <= e^eps
    r = slice_profile(eps0, int(f.n), eps)  # by slices, without the table of atoms
    if r is not None:
        return r

    def compute(t: _Table):
        ee = arb_exact(eps).exp()
        c1, c2 = t.E - ee, t.E * ee - 1  # r > e^eps  <=>  be c1 > al c2
        if not c1 > 0:  # eps within rounding of eps0: Q - e^eps P <= P (e^eps0 - e^eps)
            return arb(0), max(c1.upper(), arb(0)) + t.tau
        thr = float((c2 / c1).mid())
        return _hockey_stick(t, c1, c2, ee, thr, len(t.negkey))

    return _ziv(f, compute)


def _hockey_stick(t: _Table, c1, c2, ee, thr: float, stop: int):
    """max over prefixes S of the atoms (in decreasing ratio) of ``Q(S) - e^eps P(S)``, the
    crossing located near ``thr``: atoms with key above thr (1 + 1e-9) are in S, below
    thr (1 - 1e-9) out, and the rest are decided exactly by ``be c1 > al c2`` (only the
    first ``stop`` atoms are searched). Arb endpoints plus the dropped mass tau."""
    from bisect import bisect_left

    from flint import arb

    k_hi = min(bisect_left(t.negkey, -thr * (1 - 1e-9)), stop)
    k_lo = min(bisect_left(t.negkey, -thr * (1 + 1e-9)), stop)
    while k_lo < k_hi and int(t.be[k_lo]) * c1 > int(t.al[k_lo]) * c2:
        k_lo += 1
    while k_hi > k_lo and int(t.be[k_hi - 1]) * c1 < int(t.al[k_hi - 1]) * c2:
        k_hi -= 1
    vals = [t.Qpre[k] - ee * t.Ppre[k] for k in range(k_lo, k_hi + 1)]
    lo = max(max(v.lower() for v in vals), arb(0))
    hi = max(max(v.upper() for v in vals), arb(0))
    return lo, hi + t.tau


def _wang_delta(f: ShuffleDP, eps):
    """delta(eps) of C(f_Shuffle) for eps >= 0: the atoms b/a > 1 with ratio
    rho = (2 a + (E - 1) b)/((E + 1) a) > e^eps, i.e. b (E - 1) > a (e^eps (E + 1) - 2), give
    sum (R - e^eps P0) = (1 - 2w) Q0(S) - (e^eps - 2w) P0(S) (Wang et al., Cor. 4.3; Dong, Roth
    & Su, Prop. 6), the atom a = 0 (ratio +oo) included; delta(oo) = R(a = 0). Prefix sums of
    the kept atoms, plus [0, tau_C]."""


    def compute(t: _Table):
        if eps == mp.inf:
            q = t.Qpre[t.first]
            return q.lower(), q.upper() + t.tau
        ee = arb_exact(eps).exp()
        c1, c2 = t.E - 1, ee * (t.E + 1) - 2
        thr = float((c2 / c1).mid())
        return _hockey_stick(t, c1, c2, ee, thr, t.kinds[0])

    return _ziv(f, compute)


@exact_value.register(ShuffleDP)
def _(f, A, Ac):
    from ..numeric.finite import finite_loss

    if A == 0 and _covers(f):  # f(0) = 1 at any eps0 (no Q-mass where P = 0)
        return sp.S.One
    if _exact_e(f.eps0) is None:
        return None
    fl = finite_loss(f)
    return None if fl is None else fl.value(A, Ac)


@np_value.register(ShuffleDP)
def _(f, x):
    eps0, n = _numeric(f)
    if eps0 == 0:
        return 1.0 - x
    _check_points(f, float(eps0), n, 133)
    if f.wang:
        _, P, Q, q_inf, _ = _float_atoms_wang(float(eps0), n)
        P = np.concatenate([[0.0], P, [q_inf]])  # the atoms at +oo and at -oo
        Q = np.concatenate([[q_inf], Q, [0.0]])
    else:
        _, P, Q = _float_atoms(float(eps0), n)
    xs = np.concatenate([[0.0], np.cumsum(P)])
    ys = np.concatenate([np.cumsum(Q[::-1])[::-1], [0.0]])
    xs[-1] = max(xs[-1], 1.0)
    return np.interp(x, xs, ys)


def _register_models() -> None:
    from ..numeric.finite import FiniteLoss
    from ..numeric.privacy_loss import AtomLoss, LazyLoss, PrivacyLoss, loss_views, privacy_loss

    def exact(f) -> FiniteLoss | None:
        """The exact pair (atoms grouped by b/a) for small n: exact composition and values.
        None for n above FINITE_MAX_N_* (those go through the Arb table singly and the PLD
        engine in products)."""
        n = int(f.n)
        cap = FINITE_MAX_N_RATIONAL if _exact_e(f.eps0) is not None else FINITE_MAX_N_SYMBOLIC
        if n > cap:
            return None
        if f.eps0 == 0:
            return FiniteLoss()
        if f.wang:
            return FiniteLoss.from_atoms(_wang_atoms(f.eps0, n))
        return FiniteLoss.from_atoms(_grouped_atoms(f.eps0, n))

    def grid(f) -> AtomLoss:
        """Atoms of the kept points (float64); the dropped mass (at most FLOAT_TAU of each of
        P and Q) goes to the atoms at +-oo for the pessimistic side only (``q_inf_sure``: the
        optimistic side keeps the mass at +-oo that is certainly there)."""
        eps0, n = _numeric(f)
        if eps0 == 0:
            return AtomLoss([0.0], [1.0], [1.0])
        _check_points(f, float(eps0), n, 133)
        if f.wang:
            loss, P, Q, q_inf, tau = _float_atoms_wang(float(eps0), n)
            sure = q_inf * (1 - 1e-12)
            return AtomLoss(loss, P, Q, q_inf=q_inf + tau, p_ninf=q_inf + tau, rel_err=1e-13,
                            q_inf_sure=sure, p_ninf_sure=sure)
        loss, P, Q = _float_atoms(float(eps0), n)
        return AtomLoss(loss, P, Q, q_inf=FLOAT_TAU, p_ninf=FLOAT_TAU, rel_err=1e-13,
                        q_inf_sure=0.0, p_ninf_sure=0.0)

    @privacy_loss.register(ShuffleDP)

    @loss_views("grid", "exact")
    def _(f) -> PrivacyLoss | None:
        """The float atoms for the PLD grid, with the exact pair as the exact view (None for
        symbolic parameters)."""
        if f.free_symbols:
            return None
        return LazyLoss(grid=lambda: grid(f),
                        exact=(lambda: exact(f)) if isinstance(f.n, sp.Integer) else None)


_register_models()


def _curve_band(f, x: np.ndarray, tol: float, progress=None):
    """Certified bands of T(P, Q) for a whole curve (``numeric.curves.CURVE_BANDS``): each
    level's threshold tails in Arb (:func:`.shuffle_roc.curve_band`); None for other nodes."""
    if not isinstance(f, ShuffleDP) or f.wang or f.free_symbols \
            or not isinstance(f.n, sp.Integer):
        return None
    eps0, n = _numeric(f)
    if eps0 == 0:
        return None
    trace.note("the shuffle pair's tails at its Neyman-Pearson thresholds, in Arb")
    return curve_band(f.eps0, n, x, tol)


CURVE_BANDS.append(_curve_band)


# -- rewrite rules ------------------------------------------------------------------------------
_SEC41 = WANG.at("Sec. 4.1", note="the shuffle pair P = (1-w)P0 + wQ0, Q = (1-w)Q0 + wP0")


@rule(ShuffleDP, cite=_SEC41, priority=100)
def shuffle_trivial(f: ShuffleDP):
    """One user is randomized response, ShuffleDP(eps0, 1) = f_{eps0,0}; eps0 = 0 gives P = Q,
    ShuffleDP(0, n) = Id (module docstring). For Wang et al.'s bound C(f_Shuffle): eps0 = 0
    gives w = 1/2, f_Shuffle = Id, C(Id) = Id; n = 1 gives the points (1, 0) under P0 and
    (0, 1) under Q0, T(P0, Q0) = 0, f_Shuffle = 2w (1 - alpha) and C(f_Shuffle) = max(0, 2w -
    alpha) = f_{0, 1 - 2w} (proofs/wang.py checks it against the literal hull)."""
    if f.eps0.is_zero is True:
        return Id
    if f.n == 1:
        if f.wang:
            E = sp.exp(f.eps0)
            return EpsDelta(0, (E - 1) / (E + 1))
        return EpsDelta(f.eps0, 0)
    return None
