"""The values of a finite privacy loss: mpmath with error bounds and Arb balls.

The evaluation routes of :class:`~.finite.FiniteLoss` (its base class :class:`FiniteValues`):
``T(P, Q)(alpha)``, its power, the privacy profile ``delta(eps) = sum_{r > e^eps} (Q_r - e^eps
P_r)`` (Dong, Roth & Su, Prop. 6; the hockey-stick divergence) and its inverse ``eps(delta)``

* in mpmath at the caller's precision plus guard bits (``mp_value``, ``mp_roc``, ``mp_delta``,
  ``mp_epsilon``): all masses are products and sums of positive numbers (relative error at most
  ``K 2^-w`` for a count ``K`` of operations), each result carries an error bound, and the
  working precision is raised by :func:`.precision_loop.precision_loop` until the bound is below
  the requested precision (then ``lo = hi``), else an enclosure is returned;
* in Arb (``arb_masses``, ``arb_delta``, ``arb_value``, ``certified_delta``): balls of the exact
  masses, certified.

The tables they read are built by :class:`~.finite.FiniteLoss` (``_mp_table``,
``_exact_table``) from :mod:`.finite_tables`.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from typing import Any

import sympy as sp
from mpmath.libmp import round_ceiling, round_floor, round_nearest

from ..core.errors import InvalidParameter, NoClosedForm
from ..core.validate import mpf_rational
from . import budget
from .arb import arb_endpoint
from .context import MPF, arb_precision, mp
from .finite_tables import _Table
from .precision_loop import precision_loop
from .protocol import GUARD_DPS, as_level, num
from .roots import Probe, findroot
from .value import CertifiedPair, Value

__all__ = ["FiniteValues", "MAX_EXTRA_BITS", "prefix_sums"]

#: The mp routes raise the working precision by at most ``4 p + MAX_EXTRA_BITS`` bits over the
#: target ``p`` (enough unless the value is exactly 0 at a knot or eps is exactly a log-ratio:
#: then the enclosure is returned).
MAX_EXTRA_BITS = 1024

def _unit(lo, hi):
    """An enclosure (or point) of a number known to lie in [0, 1], intersected with [0, 1]: a
    point rounded just past an end (1 + 2^-p for a delta that is 1 - 10^-900) becomes the end,
    which is nearer the truth, so the point keeps its digits."""
    lo, hi = min(max(lo, mp.zero), mp.one), min(max(hi, mp.zero), mp.one)
    return lo, hi


def _guard_bits(count: int) -> int:
    return 2 * max(count, 1).bit_length() + 16


def _sympy_number(x: Any, name: str) -> sp.Expr:
    """An exact SymPy number: floats at their binary values, decimal strings exactly."""
    if isinstance(x, str):
        try:
            return sp.Rational(x.strip())
        except (TypeError, ValueError) as exc:
            raise InvalidParameter(name, x, "a real number", "FiniteLoss") from exc
    if isinstance(x, MPF):
        return mpf_rational(x)
    x = sp.sympify(x)
    if isinstance(x, sp.Float):
        return sp.Rational(x)
    if x.has(sp.Float):
        x = x.xreplace({f: sp.Rational(f) for f in x.atoms(sp.Float)})
    if not x.is_number or x.free_symbols:
        raise NoClosedForm(f"finite loss: {name} = {x} is not a number")
    return x


def prefix_sums(masses: list) -> tuple[list, list]:
    """The prefix sums (Q(S_k), P(S_k)), k = 0..n, of the Arb mass pairs ``(P_i, Q_i)`` in
    their order, the time limit checked every 1024 atoms."""
    from flint import arb

    n = len(masses)
    QS, PS = [arb(0)] * (n + 1), [arb(0)] * (n + 1)
    for i, (P_, Q_) in enumerate(masses):
        if not i & 1023:
            budget.check()
        QS[i + 1], PS[i + 1] = QS[i] + Q_, PS[i] + P_
    return QS, PS


def eps_at_vertex(QS: list, PS: list, ratio: list, db, k: int, prec: int, p: int):
    """epsilon(delta) proved at a Neyman--Pearson vertex near ``k``: for j in k, k -+ 1, k -+ 2
    the line through the j-th vertex of slope ``y = (Q(S_j) - delta)/P(S_j)`` is a supporting
    line when ``r_j <= y <= r_{j-1}`` (the ratios ``ratio`` in decreasing order, None for an
    infinite one), and then ``eps = log y`` (Dong, Roth & Su, Prop. 6: delta(eps) = Q(S_j) -
    e^eps P(S_j) on that segment). The Arb balls ``QS``, ``PS`` (:func:`prefix_sums`) and ``db``
    at ``prec`` bits; a :class:`CertifiedPair` of the log's ball once it is narrower than ``p``
    bits, else None (the first supporting j decides)."""
    n = len(QS) - 1
    for j in (k, k - 1, k + 1, k - 2, k + 2):
        if not 1 <= j < n:
            continue
        if not (PS[j] > 0 and QS[j] > db):
            continue
        y = (QS[j] - db) / PS[j]
        upper_ok = ratio[j - 1] is None or y <= ratio[j - 1]
        if not (ratio[j] <= y and upper_ok and y >= 1):
            continue
        e = y.log()
        with mp.workprec(prec):
            lo = max(arb_endpoint(e.lower(), round_floor), mp.zero)
            hi = arb_endpoint(e.upper(), round_ceiling)
        if hi - lo <= mp.ldexp(abs(hi), -p - 4):
            mid = arb_endpoint(e.mid(), round_nearest)
            return CertifiedPair(+mid, +mid)  # (correct to the working precision)
        return None
    return None


class FiniteValues:
    """The evaluation routes of a finite loss (module docstring); the tables come from the
    subclass :class:`~.finite.FiniteLoss`."""

    def _rising(self, step):
        """``step(t, w, extra) -> (met, answer, bits to add)`` with the table ``t`` at the
        working precision ``w = p + extra`` (and in that context), ``p`` the caller's, at rising
        ``extra`` (:func:`.precision_loop.precision_loop`) until met; past ``4 p +``
        :data:`MAX_EXTRA_BITS` the last answer (an enclosure)."""
        p = mp.prec
        cap = 4 * p + MAX_EXTRA_BITS

        def at(extra):
            w = p + extra
            t = self._mp_table(w)
            with mp.workprec(w):
                return step(t, w, extra)

        def grow(r, extra):
            return None if extra >= cap else min(cap, extra + max(r[2], 32))

        return precision_loop(at, _guard_bits(self._op_count()), done=lambda r, prev: r[0],
                              grow=grow, give_up=lambda r, prev, extra: r, check=False)[1]

    def _ziv(self, compute):
        """Run ``compute(table, u) -> (lo, hi, err)`` at rising working precision ``w`` until the
        error bound ``err`` and the width ``hi - lo`` are below the target precision (a point
        when ``lo == hi``); ``u`` bounds the relative error of every mass and ratio. Past
        :data:`MAX_EXTRA_BITS` the enclosure ``[lo - err, hi + err]`` is returned."""
        p = mp.prec

        def step(t, w, extra):
            u = mp.ldexp(t.count + 4 * (1 + t.logmax), -w)
            lo, hi, err = compute(t, u)
            tol = mp.ldexp(abs(hi), -p - 2)
            if err <= tol and hi - lo <= tol:
                return True, ((+lo, +lo) if lo == hi else (lo - err, hi + err)), 0
            miss = max(err, hi - lo)
            need = int(mp.log(miss / tol, 2)) + 16 if tol > 0 else extra
            return False, (lo - err, hi + err), need

        return self._rising(step)

    def _segment(self, t: _Table, a, ac):
        if a <= ac:
            i = bisect_left(t.Ppre, a) - 1
        else:
            i = bisect_left(t.negPsuf, -ac) - 1
        return min(max(i, t.first), len(t.keys) - 1)

    def _ratio(self, t: _Table, i: int):
        lg = t.logs[i]
        return mp.zero if lg == mp.ninf else mp.exp(lg)

    def mp_value(self, a, ac):
        """(lo, hi) of T(P, Q)(alpha) at the current precision (``ac = 1 - alpha``)."""
        def compute(t, u):
            i = self._segment(t, a, ac)
            r = self._ratio(t, i)
            beta = t.Qsuf[i + 1]
            if t.Ppre[i + 1] <= t.Psuf[i + 1]:
                d, scale = t.Ppre[i + 1] - a, t.Ppre[i + 1]
            else:
                d, scale = ac - t.Psuf[i + 1], t.Psuf[i + 1]
            d = max(d, mp.zero)
            v = beta + d * r
            return v, v, u * (beta + scale * r + v)

        return _unit(*self._ziv(compute))

    def mp_roc(self, a, ac):
        """(lo, hi) of 1 - T(P, Q)(alpha) without cancellation."""
        def compute(t, u):
            i = self._segment(t, a, ac)
            r = self._ratio(t, i)
            base = t.Qpre[i]
            if t.Ppre[i] <= t.Psuf[i]:
                d, scale = a - t.Ppre[i], t.Ppre[i]
            else:
                d, scale = t.Psuf[i] - ac, t.Psuf[i]
            d = max(d, mp.zero)
            v = base + d * r
            return v, v, u * (base + scale * r + v)

        return _unit(*self._ziv(compute))

    def _delta_terms(self, t: _Table, u, eps):
        """(lo, ambiguous, err) of delta(eps) in table t (masses with relative error <= u).

        The atoms with ``r > 2 e^eps`` (a prefix of the sorted atoms) contribute
        ``Q(S) - e^eps P(S)`` from the prefix sums, which loses at most one bit
        (``e^eps P(S) <= Q(S)/2``); each atom with ``e^eps < r <= 2 e^eps`` contributes
        ``-Q expm1(eps - log r) > 0``; atoms with ``log r`` within its error bound of
        ``eps`` are undecided and only bounded (``[0, Q (1 - e^{-2 el})]``).
        """
        if eps == mp.inf:
            q = t.Q[0] if t.has_inf else mp.zero
            return q, mp.zero, u * q
        k = t.cut(eps + mp.ln2 + u * (8 + 2 * abs(eps) + 2 * t.logmax))
        E = mp.exp(eps)
        QS, PS = t.Qpre[k], t.Ppre[k]
        lo = QS - E * PS
        err = (u + mp.ldexp(4 + abs(eps), -mp.prec)) * (QS + E * PS)
        amb = mp.zero
        for i in range(k, len(t.logs)):
            lg = t.logs[i]
            if lg == mp.ninf:
                break
            el = mp.zero if t.log_exact[i] else u * (4 + abs(lg))
            x = lg - eps
            if x <= -el:
                break
            if x <= el:
                amb += -t.Q[i] * mp.expm1(-2 * el)
                continue
            term = -t.Q[i] * mp.expm1(-x)
            lo += term
            err += term * u + t.Q[i] * mp.exp(-x) * (el + mp.ldexp(abs(eps) + 4,
                                                                           -mp.prec))
        return lo, amb, err

    def mp_delta(self, eps):
        """(lo, hi) of delta(eps) = sum_{r > e^eps} (Q_r - e^eps P_r) (hockey-stick divergence
        of Q from P; Dong, Roth & Su, Prop. 6) at the current precision; ``eps`` an mpf (or
        ``mp.inf``: delta(oo) = Q(P = 0))."""
        def compute(t, u):
            lo, amb, err = self._delta_terms(t, u, eps)
            return lo, lo + amb, err

        return _unit(*self._ziv(compute))

    def mp_epsilon(self, d):
        """(lo, hi) of the smallest eps >= 0 with delta(eps) <= d (``mp.inf`` if none).

        delta is continuous and non-increasing; between consecutive log-ratios the set
        ``S = {r > e^eps}`` is fixed and ``delta = Q(S) - e^eps P(S)``, so the crossing is
        ``eps = log((Q(S) - d)/P(S))`` on the bracket found by bisection over the log-ratios.
        """
        if self.arb_first():
            r = self.arb_epsilon(d)
            if r is not None:
                return r
        p = mp.prec
        t = self._mp_table(p + _guard_bits(self._op_count()))
        q_inf = t.Q[0] if t.has_inf else mp.zero
        if d < q_inf:
            return mp.inf, mp.inf
        if self.mp_delta(mp.zero)[1] <= d:
            return mp.zero, mp.zero
        # positive finite log-ratios, ascending (atom index = position in decreasing order)
        pos = [i for i, x in enumerate(t.logs) if mp.isfinite(x) and x > 0][::-1]
        # delta(log r_pos[lo_i]) > d (or eps = 0); <= d at hi_i
        lo_i, hi_i, *_ = findroot(
            lambda i: Probe(-1 if self.mp_delta(t.logs[pos[i]])[1] <= d else 1),
            (-1, len(pos)), method="bisect", split="integer", ends=(1, -1))
        if not pos:  # no finite ratio above 1: delta(eps) = Q(P = 0) <= d for every eps > 0
            return mp.zero, mp.zero
        # delta(largest log-ratio) = Q(P = 0) <= d exactly; its computed upper bound may still
        # exceed d (the atoms at that ratio are ambiguous within rounding): the crossing is then
        # at most the largest log-ratio
        hi_i = min(hi_i, len(pos) - 1)
        # S = {r > e^eps} for eps in (left, right): the atoms up to and including pos[hi_i]
        i_right = pos[hi_i]
        stop = i_right + 1
        def step(t, w, extra):
            u = mp.ldexp(t.count + 4 * (1 + t.logmax), -w)
            left = t.logs[pos[lo_i]] if lo_i >= 0 else mp.zero
            right = t.logs[i_right]
            QS, PS = t.Qpre[stop], t.Ppre[stop]
            gap = QS - d
            if PS == 0 or gap <= 0:
                return True, (+left, +right), 0
            x = gap / PS
            eps = mp.log(x)
            # relative errors: QS, PS ~u, gap ~u QS/gap; log x has abs error ~ rel err of x
            err = u * (4 + 2 * QS / gap) + mp.ldexp(1, -w + 2)
            tol = mp.ldexp(abs(eps), -p - 2)
            if err <= tol:
                eps = min(max(eps, left), right)
                return True, (+eps, +eps), 0
            lo_e = min(max(eps - err, left), right)
            hi_e = min(max(eps + err, left), right)
            need = int(mp.log(err / tol, 2)) + 16 if tol > 0 else extra
            return False, (+lo_e, +hi_e), need

        return self._rising(step)

    def arb_first(self) -> bool:
        """Are the Arb routes the cheaper ones (the loss says)?"""
        return False

    def arb_epsilon(self, d) -> CertifiedPair | None:
        """eps(d) proved from the atoms' balls by decreasing ratio (:meth:`arb_masses`), at the
        current precision, or None (no ordered balls, or the crossing not located).

        Between consecutive ratios r_k < r_{k-1} the set S = {r > e^eps} is the first k atoms
        and delta(eps) = Q(S) - e^eps P(S) (Prop. 6), so eps(d) = log y with y = (Q(S) - d)/P(S)
        wherever r_k <= y <= r_{k-1}: that inclusion, proved by the balls, makes the ball of
        log y an enclosure of eps(d). The k is located by the balls' midpoints in floats and
        proved (its neighbours tried where it is not); delta(0) <= d proved gives 0."""

        from .arb import arb_exact

        p = mp.prec
        for prec in (p + 64, 2 * p + 64):
            masses = self.arb_masses(prec)
            if not masses:
                return None
            with arb_precision(prec):
                db = arb_exact(d)
                n = len(masses)
                QS, PS = prefix_sums(masses)
                if PS[n] == 0:
                    return None
                ratio = [Q_ / P_ if P_ > 0 else None for P_, Q_ in masses]
                if any(r is None for r in ratio[1:]) or not all(P_ > 0 or P_ == 0
                                                                 for P_, _ in masses):
                    return None
                if self.arb_delta(sp.S.Zero, prec) <= db:
                    return CertifiedPair(mp.zero, mp.zero)
                qf = [float(x.mid()) for x in QS]
                pf = [float(x.mid()) for x in PS]
                rf = [math.inf if r is None else float(r.mid()) for r in ratio]
                df = float(d)
                k = next((j for j in range(1, n) if qf[j] - rf[j] * pf[j] > df), n)
                got = eps_at_vertex(QS, PS, ratio, db, k, prec, p)
                if got is not None:
                    return got
        return None

    # -- convenience -------------------------------------------------------------------------
    def delta(self, eps: Any, dps: int = 30):
        """delta(eps) as a :class:`~tradeoff_algebra.numeric.value.Value`: exact when the
        masses and ``e^eps`` are rational, certified where Arb encloses the atoms
        (:meth:`certified_delta`), else an mpmath estimate to ``dps`` digits (or an
        enclosure)."""
        v = self.certified_delta(eps, dps)
        if v is not None:
            return v
        e = _sympy_number(eps, "eps")
        with mp.workdps(dps + GUARD_DPS):
            lo, hi = self.mp_delta(num(e, "eps"))
            lo, hi = max(lo, mp.zero), min(hi, mp.one)
            return Value.point(lo, dps) if lo == hi else Value.enclosure(lo, hi, dps)

    #: The most atoms whose symbolic masses :meth:`arb_delta` encloses (the exact rational
    #: masses of a rational loss have no such limit).
    ARB_SYMBOLIC_ATOMS = 64

    def arb_masses(self, prec: int) -> list | None:
        """The atoms' (P-mass, Q-mass) as Arb balls at ``prec`` bits, by decreasing ratio:
        exact rationals converted, symbolic masses enclosed (:mod:`.arb_expr`); None where the
        masses are symbolic and more than :attr:`ARB_SYMBOLIC_ATOMS`. Cached per loss and
        precision (the balls are immutable; a verify cover asks for them hundreds of times)."""
        from flint import arb, fmpz

        from .arb_expr import Unenclosable, arb_enclose

        key = (self, prec)
        hit = _ARB_MASSES.get(key)
        if hit is not None:
            return hit
        t = self._exact_table()
        with arb_precision(prec):
            if t is not None:
                # integer masses over one denominator: each ball the integer times one ball
                # of 1/den (an fmpq per mass reduced by a gcd: ms for 10^4-bit integers)
                inv = 1 / arb(fmpz(t.den))
                out = []
                for i, (p, q) in enumerate(zip(t.P, t.Q, strict=True)):
                    if not i & 255:
                        budget.check()
                    out.append((arb(fmpz(int(p))) * inv, arb(fmpz(int(q))) * inv))
            elif self._op_count() > 4 * self.ARB_SYMBOLIC_ATOMS or self.arb_first():
                out = self.arb_ordered(prec)  # built in Arb where the order needs no numbers
                if out is None:
                    return None
            else:
                # the table's masses as built (equal to atoms()'s, which cancels and factors
                # each one: minutes of SymPy for a product of two binomials, and nothing the
                # balls need)
                try:
                    st = self._symbolic_table()
                    out = [(arb_enclose(p, prec=prec), arb_enclose(q, prec=prec))
                           for p, q in zip(st.P, st.Q, strict=True)]
                except (Unenclosable, NoClosedForm):
                    return None
        if len(_ARB_MASSES) > 64:
            _ARB_MASSES.clear()
        _ARB_MASSES[key] = out
        return out

    def arb_items(self, prec: int) -> list | None:
        """The atoms' masses as Arb balls in any order, or None (the loss builds them)."""
        return None

    def arb_ordered(self, prec: int) -> list | None:
        """The atoms' masses as Arb balls by decreasing ratio, or None (the loss builds them
        where the order is exact)."""
        return None

    def arb_delta(self, eps: sp.Expr, prec: int):
        """An Arb ball of delta(eps) = sum over the atoms of (Q_r - e^eps P_r)_+ (the
        hockey-stick divergence: the positive part decides which atoms count, so no ratio is
        compared with e^eps), or None where the masses are symbolic and many. ``eps`` is an
        exact SymPy number >= 0."""
        from flint import arb

        from .arb_expr import arb_enclose

        masses = self.arb_masses(prec)
        if masses is None:  # unordered balls of the atoms do for this sum
            masses = self.arb_items(prec)
        if masses is None:
            return None
        with arb_precision(prec):
            E = arb_enclose(sp.exp(eps), prec=prec)
            total = arb(0)
            for P_, Q_ in masses:
                total += arb.max(Q_ - E * P_, arb(0))
            return total

    def arb_value(self, A: Any, power: bool, prec: int):
        """An Arb ball of T(P, Q)(A) (``power``: 1 - T(P, Q)(A)) for a rational A (or an Arb
        ball of the level: the lines are monotone in it, Arb's inclusion holds), or None where
        the masses are symbolic and many. T is convex and piecewise linear, so it is the
        maximum of the lines through its segments (Dong, Roth & Su, Appendix A): the line of
        the atom of ratio r ending at the knot (alpha_i, 1 - beta_i) is
        ``1 - beta_i + r (alpha_i - A)``; no segment needs to be located."""
        from flint import arb, fmpq

        masses = self.arb_masses(prec)
        if masses is None:
            return None
        with arb_precision(prec):
            a = arb(fmpq(int(A.p), int(A.q))) if isinstance(A, sp.Basic) else A
            Pc, Qc = arb(0), arb(0)
            best = None
            for P_, Q_ in masses:
                Pc, Qc = Pc + P_, Qc + Q_
                if P_ == 0:  # ratio oo (the vertical piece at alpha = 0) or an empty atom
                    continue
                line = 1 - Qc + (Q_ / P_) * (Pc - a)
                best = line if best is None else arb.max(best, line)
            if best is None:  # no atom of finite ratio
                return None
            v = arb.max(best, arb(0))
            return 1 - v if power else v

    #: The largest table (units of the cost simulation, ``FiniteLoss.cost``) built for delta
    #: where the profile has a closed form (:meth:`binomial_form`): about 0.03 s of exact
    #: arithmetic (randomized response with e^eps = 2 composed 1000 times: 6070 units, 0.02 s),
    #: the time of the closed form's two incomplete beta functions. Past it, or where no table
    #: is built yet, the closed form answers first.
    EXACT_FIRST_UNITS = 10_000

    def binomial_form(self) -> tuple | None:
        """(eps0, n, deltas) when the loss is f_{eps0,0}^{(x) n} (x) f_{0,d_1}^{m_1} (x) ...
        (randomized response of one eps0 > 0 composed n >= 1 times, with f_{0,delta} parts
        ``deltas`` = ((d, m), ...)), else None (the loss says)."""
        return None

    def _closed_first(self) -> bool:
        """Is the closed-form profile (:meth:`binomial_form`) the cheaper certified route? Yes
        when the loss has one and its table is neither built nor within
        :attr:`EXACT_FIRST_UNITS` (the exact table's cost grows like n^2 bits, the closed
        form's stays O(1) Arb calls)."""
        if self.binomial_form() is None or "exact" in self._cache:
            return False
        return self._units(self.EXACT_FIRST_UNITS, self.is_rational) is None

    def closed_delta(self, e: sp.Expr, dps: int):
        """delta(e) of a loss with a closed-form profile (:meth:`binomial_form`) as a certified
        point, or None: delta = D + (1 - D) delta_n(e) (Dong, Roth & Su, Eq. (12); 1 - D =
        prod (1 - d)^m, Eq. (11)), delta_n of f_{eps0,0}^{(x) n} from two regularised incomplete
        beta functions (``numeric.binomial_profile``)."""
        from flint import arb

        from .arb_expr import arb_ball, ball_point
        from .binomial_profile import arb_delta_ball

        form = self.binomial_form()
        if form is None:
            return None
        eps0, n, deltas = form

        def make_ball(prec):
            with arb_precision(prec + 64):  # (eps's ball well inside the digits asked)
                keep = arb(1)
                for d, m in deltas:
                    keep *= arb_ball(1 - d) ** m
                eb = arb_ball(e)
            b = arb_delta_ball(eps0, n, eb, prec)
            if b is None:
                return None
            with arb_precision(prec):
                return (1 - keep) + keep * b

        return ball_point(make_ball, dps, 1 << 13, unit=True, exact_zero=True)

    def certified_delta(self, eps: Any, dps: int):
        """delta(eps) as an exact Value (rational e^eps and masses) or a certified point
        (:meth:`arb_delta` to the digits asked), or None. The cheaper certified route first:
        the closed-form profile (:meth:`closed_delta`) where the table would be costly
        (:meth:`_closed_first`), else the table."""
        from .arb_expr import ball_point

        e = _sympy_number(eps, "eps")
        if self._closed_first():
            v = self.closed_delta(e, dps)
            if v is not None:
                return v
        E = sp.exp(e)
        if isinstance(E, sp.Rational):
            q = self.delta_exact(E)
            if q is not None:
                return Value.from_exact(q, dps)
        return ball_point(lambda prec: self.arb_delta(e, prec), dps, 1 << 13, unit=True,
                          exact_zero=True)

    def epsilon(self, delta: Any, dps: int = 30):
        """The smallest eps >= 0 with delta(eps) <= delta, as a Value."""
        d = as_level(delta, "delta")
        with mp.workdps(dps + GUARD_DPS):
            lo, hi = self.mp_epsilon(num(d, "delta"))
            return Value.point(lo, dps) if lo == hi else Value.enclosure(lo, hi, dps)


#: Arb balls of the masses of recent losses, by (loss, precision): :meth:`FiniteValues.arb_masses`.
_ARB_MASSES: dict = {}


# -- a pair of explicit numeric entries in Arb (the exponential mechanism's softmax laws) ------
def numeric_irrational(entries: tuple) -> bool:
    """Are the SymPy entries numbers without floats, some of them irrational (exp(1/2)/(1 +
    exp(1/2))): the case :func:`pair_balls` serves (rationals have exact routes, floats are
    rescaled by the finite loss)."""
    if any(x.free_symbols or not x.is_number or x.has(sp.Float) for x in entries):
        return False
    return not all(isinstance(x, sp.Rational) for x in entries)


_BALLS: dict = {}  # (P, Q) -> (prec, P balls, Q balls): the widest precision computed so far


def pair_balls(P: tuple, Q: tuple, prec: int) -> tuple[list, list]:
    """Arb balls (at least ``prec`` bits) of the exact SymPy entries of two finite laws, each
    the Arb enclosure of its closed form (:func:`.arb_expr.arb_enclose`), computed once per
    pair and precision and kept (the last 64 pairs): the softmax weights of the exponential
    mechanism are sums of exponentials whose evaluation through SymPy's evalf took seconds per
    privacy-profile call. Raises :class:`.arb_expr.Unenclosable` where Arb cannot enclose an
    entry."""
    from .arb_expr import arb_enclose

    key = (tuple(P), tuple(Q))
    hit = _BALLS.get(key)
    if hit is not None and hit[0] >= prec:
        return hit[1], hit[2]
    with arb_precision(prec):
        ps = [arb_enclose(x, prec=prec) for x in P]
        qs = [arb_enclose(x, prec=prec) for x in Q]
    if len(_BALLS) >= 64:
        _BALLS.pop(next(iter(_BALLS)))
    _BALLS[key] = (prec, ps, qs)
    return ps, qs


def pair_delta_ball(P: tuple, Q: tuple, eps):
    """delta(eps) = sum_r max(0, Q_r - e^eps P_r) (Dong, Roth & Su, Prop. 6: the hockey-stick
    divergence of Q from P, attained by S = {Q/P > e^eps}) as an Arb ball at Arb's working
    precision, for ``eps`` a ball: every term is Arb's, so no order of the likelihood ratios is
    needed. Raises :class:`.arb_expr.Unenclosable` where an entry has no ball."""
    from flint import arb, ctx

    ps, qs = pair_balls(P, Q, ctx.prec)
    E = eps.exp()
    zero = arb(0)
    total = arb(0)
    for p, q in zip(ps, qs, strict=True):
        total += (q - E * p).max(zero)
    return total


def ratio_order(P: tuple, Q: tuple, prec: int = 128) -> list[int] | None:
    """The outcomes (indices, those with P = Q = 0 left out) by strictly decreasing likelihood
    ratio Q/P (+oo first where P = 0 < Q), proved by disjoint Arb balls of the ratios; None when
    two ratios are not separated at ``prec`` bits (a tie, or too close: the caller decides
    exactly) or an entry is not an exact zero yet its ball contains 0."""
    ps, qs = pair_balls(P, Q, prec)
    inf: list[int] = []
    finite: list[tuple[Any, int]] = []
    for i, (p, q, x, y) in enumerate(zip(ps, qs, P, Q, strict=True)):
        pz, qz = x == 0, y == 0
        if (not pz and not p > 0) or (not qz and not q > 0):
            return None  # not proved positive: the exact route decides
        if pz and qz:
            continue
        if pz:
            inf.append(i)
        else:
            finite.append((q / p, i))
    if len(inf) > 1:
        return None  # one class of ratio +oo: the exact route merges it
    finite.sort(key=lambda t: t[0].mid(), reverse=True)
    for (a, _), (b, _) in zip(finite, finite[1:], strict=False):
        if not a > b:
            return None
    return inf + [i for _, i in finite]
