"""The outcome tables of exact finite composition: the atoms of a product pair, materialised.

A product of finite pairs (Dong, Roth & Su, Def. 5) is built block by block. A block maps a
ratio key ``(c, (k_1, ..., k_G))`` -- the ratio ``c * prod_j exp(L_j)^{k_j}`` with exact integer
exponents over the generators ``L_j`` of the classes of rationally related eps
(:func:`_classes`) -- to its P-mass and Q-mass; the product of two blocks multiplies ratios and
masses and merges equal ratios (:func:`_product`). Randomized response to the n is one block
built by the binomial recurrence (Kairouz, Oh & Viswanath; Dong, Roth & Su, Sec. 3.3:
:func:`_binomial_member`), and the f_{0,delta_i} factors merge into one f_{0,D} (Eq. (11):
:func:`_delta_block`). A :class:`_Table` holds the result sorted by decreasing ratio with its
prefix and suffix sums, in one arithmetic (:class:`_Mode`): exact integers over a common
denominator, mpmath at a working precision, or SymPy expressions.

The object that builds and reads these tables, ``FiniteLoss``, is in :mod:`.finite`; it
refuses at once a table whose simulated cost cannot end before the caller's deadline
(``FiniteLoss.ensure_build_time``), and the long loops here check the deadline (:func:`_tick`:
the binomial members, each row of a product, the sorted table's logs and sums, SymPy's evalf),
so a table whose estimate was too low still stops at the time limit.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from fractions import Fraction
from typing import Any

import sympy as sp
from mpmath.libmp import from_int, fzero, mpf_add, mpf_div, mpf_mul, mpf_neg, round_nearest

from . import budget
from .context import mp
from .protocol import num

_RND = round_nearest
_ONE = Fraction(1)
_ZERO = Fraction(0)
#: The long loops of a table (binomial members of 10^5 terms, rows of a product, prefix sums)
#: check the caller's time limit every ``_CHECK + 1`` steps: a step costs a microsecond or
#: more, a check a tenth of one (``budget.check``), so the overrun stays below a millisecond.
_CHECK = 1023


def _tick(i: int) -> None:
    """Check the time limit at every ``_CHECK + 1``-th step ``i`` of a long loop."""
    if not i & _CHECK:
        budget.check()


def _frac(x: sp.Rational) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _ratio_key(r: sp.Expr) -> Any:
    """Exact ratio as a key component: Fraction, None for +oo, else the SymPy number."""
    if r is sp.S.Infinity:
        return None
    if isinstance(r, sp.Rational):
        return _frac(r)
    return r


class _Mode:
    """Arithmetic of one materialisation: 'exact' (ints over a common denominator), 'mp'
    (mpf at the current precision), 'sym' (SymPy expressions) or 'arb' (Arb balls at the
    current flint precision, each containing the exact mass: the masses of a hockey-stick sum
    that is not exact, ``FiniteValues.arb_delta``; never a sorted :class:`_Table`)."""

    def __init__(self, kind: str):
        self.kind = kind

    def masses(self, xs: list[sp.Expr]) -> tuple[list, int]:
        """Convert SymPy masses; exact: integers over their least common denominator."""
        if self.kind == "exact":
            fr = [_frac(x) for x in xs]
            den = 1
            for x in fr:
                den = den * x.denominator // math.gcd(den, x.denominator)
            return [int(x * den) for x in fr], den
        if self.kind == "mp":
            return [num(x, "mass") for x in xs], 1
        if self.kind == "arb":
            from .arb_expr import arb_ball

            return [arb_ball(x) for x in xs], 1
        return list(xs), 1

    def one(self):
        if self.kind == "exact":
            return 1
        if self.kind == "mp":
            return mp.one
        if self.kind == "arb":
            from flint import arb

            return arb(1)
        return sp.S.One


def _kmul(k1, k2):
    c1, e1 = k1
    c2, e2 = k2
    e = tuple(a + b for a, b in zip(e1, e2, strict=True))
    if c1 is None or c2 is None:
        return (None, tuple(0 for _ in e))
    if c1 == 0 or c2 == 0:
        return (_ZERO, tuple(0 for _ in e))
    if isinstance(c1, Fraction) and isinstance(c2, Fraction):
        return (c1 * c2, e)
    c = sp.Rational(c1.numerator, c1.denominator) if isinstance(c1, Fraction) else c1
    c = c * (sp.Rational(c2.numerator, c2.denominator) if isinstance(c2, Fraction) else c2)
    return (_frac(c) if isinstance(c, sp.Rational) else c, e)


def _is_zero(x) -> bool:
    return x == 0


def _product(A, B):
    """The product pair of two blocks (dict key -> [P, Q], common denominator)."""
    da, dena = A
    db, denb = B
    out: dict = {}
    for ka, (pa, qa) in da.items():
        budget.check()  # (a row: |B| products of masses, big integers in exact mode)
        for kb, (pb, qb) in db.items():
            p, q = pa * pb, qa * qb
            if _is_zero(p) and _is_zero(q):
                continue
            k = _kmul(ka, kb)
            cur = out.get(k)
            if cur is None:
                out[k] = [p, q]
            else:
                cur[0] += p
                cur[1] += q
    return out, dena * denb


def _unit_block(G: int, mode: _Mode):
    one = mode.one()
    return {(_ONE, (0,) * G): [one, one]}, 1


def _power_block(B, n: int, G: int, mode: _Mode):
    """B^{(x) n} by repeated squaring."""
    result = _unit_block(G, mode)
    base = B
    while n:
        if n & 1:
            result = _product(result, base)
        n >>= 1
        if n:
            base = _product(base, base)
    return result


def _atoms_block(atoms, G: int, mode: _Mode):
    ps, den_p = mode.masses([p for _, p, _ in atoms])
    qs, den_q = mode.masses([q for _, _, q in atoms])
    den = den_p * den_q // math.gcd(den_p, den_q)
    out: dict = {}
    zeros = (0,) * G
    for (r, _, _), p, q in zip(atoms, ps, qs, strict=True):
        c = _ratio_key(r)
        key = (c, zeros) if c is None or c != 0 else (_ZERO, zeros)
        if mode.kind == "exact":
            p, q = p * (den // den_p), q * (den // den_q)
        cur = out.get(key)
        if cur is None:
            out[key] = [p, q]
        else:
            cur[0] += p
            cur[1] += q
    return out, den


def _delta_block(deltas, G: int, mode: _Mode):
    """The f_{0,D} pair with 1 - D = prod (1 - d_i)^{m_i} (Dong, Roth & Su, Eq. (11))."""
    zeros = (0,) * G
    if mode.kind == "mp":
        s = mp.zero
        for d, m in deltas:
            s += m * mp.log1p(-num(d, "delta"))
        keep, D = mp.exp(s), -mp.expm1(s)
        den = 1
    elif mode.kind == "arb":  # keep = exp(sum m log1p(-d)), D = -expm1(same): no cancellation
        from .arb_expr import arb_ball

        s = sum((m * (-arb_ball(d)).log1p() for d, m in deltas), mode.one() * 0)
        keep, D, den = s.exp(), -s.expm1(), 1
    else:
        keep_s = sp.S.One
        for d, m in deltas:
            keep_s *= (1 - d) ** m
        D_s = 1 - keep_s
        if mode.kind == "exact":
            (keep, D), den = mode.masses([keep_s, D_s])
        else:
            keep, D, den = keep_s, D_s, 1
    zero = mode.one() * 0
    out = {(_ONE, zeros): [keep, keep]}
    if not _is_zero(D):
        out[(_ZERO, zeros)] = [D, zero]
        out[(None, zeros)] = [zero, D]
    return out, den


def _with_delta(block, dblock, G: int):
    """``block (x) f_{0,D}`` without the generic product: every atom keeps its ratio with
    masses times ``1 - D``, and ``D`` (times the total mass, 1) joins the atoms of ratio 0
    (P-mass) and oo (Q-mass)."""
    d, dden = dblock
    zeros = (0,) * G
    keep = d[(_ONE, zeros)][0]
    D = d[(_ZERO, zeros)][0] if (_ZERO, zeros) in d else None
    b, den = block
    out = {k: [p * keep, q * keep] for k, (p, q) in b.items()}
    if D is not None:
        mass = D * den  # D times the total mass (den in exact mode, 1 otherwise)
        zero = 0 * mass
        for key, j in (((_ZERO, zeros), 0), ((None, zeros), 1)):
            cur = out.setdefault(key, [zero, zero])
            cur[j] = cur[j] + mass
    return out, den * dden


def _binomial_member(eps: sp.Expr, n: int, mode: _Mode):
    """(P_k, Q_k), k = 0..n, of randomized response to the n: k coordinates of ratio e^eps.

    P_k = C(n,k) e^{(n-k) eps}/(1 + e^eps)^n and Q_k = P_{n-k}; exact with e^eps = a/b as
    C(n,k) a^{n-k} b^k over (a+b)^n, in mpmath by P_{k+1} = P_k (n-k)/((k+1) e^eps) from
    P_0 = (1 + e^{-eps})^{-n}, in SymPy term by term.
    """
    if mode.kind == "exact":
        E = sp.exp(eps)
        a, b = int(E.p), int(E.q)
        w = a**n
        P = [w]
        for k in range(n):
            budget.check()  # (integers of n log2(a + b) bits: the cost of large n)
            w = w * (n - k) * b // ((k + 1) * a)
            P.append(w)
        den = (a + b) ** n
    elif mode.kind == "mp":
        e = num(eps, "eps")
        em = mp.exp(-e)._mpf_
        pk = mp.exp(-n * mp.log1p(mp.make_mpf(em)))._mpf_
        prec, mk = mp.prec, mp.make_mpf
        raw = [pk]
        for k in range(n):  # raw libmp arithmetic: this loop is the cost of large n
            _tick(k)
            pk = mpf_mul(pk, em, prec, _RND)
            pk = mpf_div(mpf_mul(pk, from_int(n - k), prec, _RND), from_int(k + 1), prec, _RND)
            raw.append(pk)
        P = [mk(x) for x in raw]
        den = 1
    elif mode.kind == "arb":  # the mp recurrence in balls: P_0 = (1 + e^-eps)^-n
        from .arb_expr import arb_ball

        em = (-arb_ball(eps)).exp()
        pk = (1 + em) ** (-n)
        P = [pk]
        for k in range(n):
            _tick(k)
            pk = pk * em * (n - k) / (k + 1)
            P.append(pk)
        den = 1
    else:
        E = sp.exp(eps)
        P = []
        for k in range(n + 1):  # (SymPy: tens of microseconds a term)
            budget.check()
            P.append(sp.binomial(n, k) * E ** (n - k) / (1 + E) ** n)
        den = 1
    return P, P[::-1], den


def _classes(rr: list[tuple[sp.Expr, int]]):
    """Group the eps of the randomized-response factors into rationally related classes.

    Returns [(L, [(multiplier, eps, n), ...])]: eps = multiplier * L with integer multipliers
    of gcd 1 (L is the generator of the class).
    """
    raw: list[tuple[sp.Expr, list]] = []  # (reference eps, [(q rational, eps, n)])
    for eps, n in rr:
        for ref, members in raw:
            q = eps / ref
            if isinstance(q, sp.Rational):
                members.append((q, eps, n))
                break
        else:
            raw.append((eps, [(sp.S.One, eps, n)]))
    out = []
    for ref, members in raw:
        lcm_den = 1
        for q, _, _ in members:
            lcm_den = lcm_den * int(q.q) // math.gcd(lcm_den, int(q.q))
        ints = [int(q * lcm_den) for q, _, _ in members]
        g = 0
        for m in ints:
            g = math.gcd(g, m)
        L = ref * g / lcm_den
        out.append((L, [(m // g, eps, n) for m, (_, eps, n) in zip(ints, members, strict=True)]))
    return out


def _class_block(j: int, G: int, members, mode: _Mode):
    """The product of the binomial blocks of one class, keyed by the integer exponent."""
    acc: dict[int, list] | None = None
    den = 1
    for m, eps, n in members:
        P, Q, d = _binomial_member(eps, n, mode)
        blk = {m * (2 * k - n): [P[k], Q[k]] for k in range(n + 1)}
        den *= d
        if acc is None:
            acc = blk
            continue
        new: dict[int, list] = {}
        for ea, (pa, qa) in acc.items():
            budget.check()  # (a row: one product per term of the member)
            for eb, (pb, qb) in blk.items():
                cur = new.get(ea + eb)
                if cur is None:
                    new[ea + eb] = [pa * pb, qa * qb]
                else:
                    cur[0] += pa * pb
                    cur[1] += qa * qb
        acc = new
    out = {}
    for e, pq in acc.items():
        vec = [0] * G
        vec[j] = e
        out[(_ONE, tuple(vec))] = pq
    return out, den


def _mp_sums(xs: list, prec: int) -> tuple[list, list]:
    """Prefix and suffix sums of mpf values (raw libmp arithmetic, rounded to nearest)."""
    m, mk = len(xs), mp.make_mpf
    raw = [x._mpf_ for x in xs]
    pre, acc = [fzero] * (m + 1), fzero
    for i in range(m):
        _tick(i)
        acc = mpf_add(acc, raw[i], prec, _RND)
        pre[i + 1] = acc
    suf, acc = [fzero] * (m + 1), fzero
    for i in range(m - 1, -1, -1):
        _tick(i)
        acc = mpf_add(acc, raw[i], prec, _RND)
        suf[i] = acc
    return [mk(x) for x in pre], [mk(x) for x in suf]


def _neg(x):
    """-x exactly: an mpf's ``-x`` rounds to the ambient precision, and an exact table's
    128-bit log-ratios negated at 53 bits merged a ratio 3 + 4e-20 with 3 (its atom left out
    of delta(log 3), which came out exactly 0)."""
    return mp.make_mpf(mpf_neg(x._mpf_)) if hasattr(x, "_mpf_") else -x


class _Table:
    """A materialised loss: atoms sorted by decreasing ratio with prefix and suffix sums.

    ``logs`` are the log-ratios (mpf; ``+inf`` first, ``-inf`` last) at the table's precision
    (128 bits for exact and symbolic tables, which order near ties exactly instead).
    """

    def __init__(self, items, den, gens, mode: _Mode, prec: int | None, count: int):
        self.mode = mode
        self.den = den
        self.gens = gens  # list of (L sympy, E = exp(L) sympy)
        self.count = count + 2 * len(items)
        work = prec if prec is not None else 128
        with mp.workprec(work):
            Lnum = [num(L, "eps") for L, _ in gens]
            logs = []
            for i, (k, _, _) in enumerate(items):
                _tick(i)
                logs.append(self._log(k, Lnum))
        order = sorted(range(len(items)), key=logs.__getitem__, reverse=True)
        keys = [items[i][0] for i in order]
        P = [items[i][1] for i in order]
        Q = [items[i][2] for i in order]
        logs = [logs[i] for i in order]
        if mode.kind != "mp":
            keys, P, Q, logs = self._exact_ties(keys, P, Q, logs)
        self.keys, self.P, self.Q, self.logs = keys, P, Q, logs
        self.neglogs = [_neg(x) for x in logs]
        m = len(keys)
        zero = 0 if mode.kind == "exact" else (mp.zero if mode.kind == "mp" else sp.S.Zero)
        if mode.kind == "mp":
            self.Ppre, self.Psuf = _mp_sums(P, work)
            self.Qpre, self.Qsuf = _mp_sums(Q, work)
        else:
            self.Ppre, self.Qpre = [zero] * (m + 1), [zero] * (m + 1)
            for i in range(m):
                _tick(i)  # (exact: integers of up to n log2(a + b) bits)
                self.Ppre[i + 1] = self.Ppre[i] + P[i]
                self.Qpre[i + 1] = self.Qpre[i] + Q[i]
            self.Psuf, self.Qsuf = [zero] * (m + 1), [zero] * (m + 1)
            for i in range(m - 1, -1, -1):
                _tick(i)
                self.Psuf[i] = self.Psuf[i + 1] + P[i]
                self.Qsuf[i] = self.Qsuf[i + 1] + Q[i]
        self.has_inf = m > 0 and keys[0][0] is None
        self.first = 1 if self.has_inf else 0
        self.negPsuf = [_neg(x) for x in self.Psuf]
        self.logmax = max((abs(x) for x in logs if mp.isfinite(x)), default=mp.zero)
        dyadic = [isinstance(L, sp.Rational) and int(L.q) & (int(L.q) - 1) == 0
                  and abs(int(L.p)).bit_length() < 64 for L, _ in gens]
        # a log-ratio sum_j k_j L_j with dyadic L_j (eps = 1, 1/2, 3) is computed exactly
        self.log_exact = [c is None or c == 0 or (c == 1 and all(
            dy or not k for dy, k in zip(dyadic, e, strict=True))) for c, e in keys]

    @staticmethod
    def _log(key, Lnum):
        c, e = key
        if c is None:
            return mp.inf
        if c == 0:
            return mp.ninf
        if c == 1:
            lc = mp.zero
        elif isinstance(c, Fraction):
            lc = mp.log(mp.mpf(c.numerator) / c.denominator)
        else:
            budget.check()  # (a symbolic ratio: SymPy's evalf, milliseconds each)
            lc = mp.log(num(c, "ratio"))
        for k, L in zip(e, Lnum, strict=True):
            if k:
                lc += k * L
        return lc

    def exact_ratio(self, key):
        """The exact ratio of a key: Fraction (exact mode) or SymPy number; None for +oo."""
        c, e = key
        if c is None:
            return None
        if self.mode.kind == "exact":
            r = c
            for k, (_, E) in zip(e, self.gens, strict=True):
                if k:
                    r *= _frac(E) ** k
            return r
        r = c if not isinstance(c, Fraction) else sp.Rational(c.numerator, c.denominator)
        for k, (L, _) in zip(e, self.gens, strict=True):
            if k:
                r *= sp.exp(k * L)
        return r

    def _near(self, x, y) -> bool:
        return (mp.isfinite(x) and mp.isfinite(y)
                and abs(x - y) <= mp.ldexp(1 + abs(x), -100))

    def _exact_ties(self, keys, P, Q, logs):
        """Order runs of numerically tied ratios exactly and merge equal ratios (exact and
        symbolic tables; symbolic ties are compared at 60 digits)."""
        out_k, out_p, out_q, out_l = [], [], [], []
        i, m = 0, len(keys)
        while i < m:
            _tick(i)
            j = i + 1
            while j < m and self._near(logs[i], logs[j]):
                j += 1
            run = list(range(i, j))
            groups = [run]
            if len(run) > 1:
                if self.mode.kind == "exact":
                    ex = {t: self.exact_ratio(keys[t]) for t in run}
                else:
                    ex = {}
                    for t in run:  # (SymPy's evalf: milliseconds each)
                        budget.check()
                        ex[t] = sp.Float(sp.log(self.exact_ratio(keys[t])).evalf(60), 60)
                run.sort(key=ex.__getitem__, reverse=True)
                groups = []
                for t in run:
                    if groups and ex[groups[-1][0]] == ex[t]:
                        groups[-1].append(t)
                    else:
                        groups.append([t])
            for g in groups:
                out_k.append(keys[g[0]])
                out_p.append(sum((P[t] for t in g[1:]), P[g[0]]))
                out_q.append(sum((Q[t] for t in g[1:]), Q[g[0]]))
                out_l.append(logs[g[0]])
            i = j
        return out_k, out_p, out_q, out_l

    def cut(self, x) -> int:
        """The number of atoms whose computed log-ratio exceeds x."""
        return bisect_left(self.neglogs, _neg(x))
