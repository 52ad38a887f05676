"""Exact composition of finite trade-off functions: the discrete privacy-loss representation.

A pair ``(P, Q)`` of distributions on a finite set is summarised, without loss for hypothesis
testing, by its *atoms*: the distinct likelihood ratios ``r = Q/P`` (``+oo`` where ``P = 0 < Q``,
``0`` where ``Q = 0 < P``) with the P-mass and the Q-mass of the outcomes of that ratio.
:class:`FiniteLoss` holds this representation of ``T(P, Q)`` (Dong, Roth & Su, Def. 2):

* ``T(P, Q)`` is the piecewise-linear function through the Neyman--Pearson knots
  (Dong, Roth & Su, Appendix A): reject the atoms in decreasing order of ``r``; after the first
  ``j`` atoms the errors are ``(alpha_j, beta_j) = (P(first j), 1 - Q(first j))``
  (:meth:`FiniteLoss.tradeoff_knots`).
* Composition (Def. 5) is the product pair ``T(P x P', Q x Q')``: ratios multiply, masses
  multiply, equal ratios merge (:meth:`FiniteLoss.tensor`, :meth:`FiniteLoss.power`).
* The privacy profile ``delta(eps) = 1 + f^*(-e^eps)`` (Prop. 6) is the hockey-stick divergence
  of Q from P: ``delta(eps) = 1 - inf_S {e^eps P(S) + 1 - Q(S)} = sup_S {Q(S) - e^eps P(S)}``,
  attained by ``S = {r > e^eps}``, so ``delta(eps) = sum_{r > e^eps} (Q_r - e^eps P_r)``
  (:meth:`FiniteLoss.mp_delta`); each term is ``-Q_r expm1(eps - log r) > 0``: no cancellation.

The families it covers (registered through :func:`finite_loss`):

* ``f_{eps,0}`` is ``T`` of randomized response, ``P = (e^eps, 1)/(1 + e^eps)`` and ``Q`` its
  reversal (ratios ``e^{-eps}``, ``e^eps``); ``f_{eps,delta} = f_{eps,0} (x) f_{0,delta}``
  (Dong, Roth & Su, Eq. (10); the four-point pair of Prop. 3), and ``f_{0,delta}`` is the
  three-atom pair ``P = (delta, 1 - delta, 0)``, ``Q = (0, 1 - delta, delta)`` (ratios 0, 1, oo);
  the f_{0,delta_i} factors of a product merge into one (Eq. (11)).
* ``f_{eps,0}^{(x) n}``: k coordinates of ratio ``e^eps`` give the ratio ``e^{(2k - n) eps}``
  with P-mass ``C(n,k) e^{(n-k) eps}/(1 + e^eps)^n`` and Q-mass the P-mass of ``n - k``
  (Kairouz, Oh & Viswanath; Dong, Roth & Su, Sec. 3.3): built by the binomial recurrence in
  O(n), not by convolution.
* ratios are kept as ``c * prod_j exp(L_j)^{k_j}`` with exact integer exponents ``k_j`` over
  generators ``L_j``: the eps of the factors are grouped into classes of rationally related
  values, each class with one generator (its ``gcd``), so ``e^eps`` and ``e^{2 eps}`` merge;
  ``c`` is an exact rational (or an exact SymPy number for irrational ``Discrete`` entries).
* ``Discrete(P, Q)``, ``PiecewiseLinear`` (the segments of a piecewise-linear trade-off function
  are the atoms: P-mass = width, Q-mass = drop, ratio = minus the slope, and ``1 - f(0)`` is the
  Q-mass of ratio ``oo``), ``BinomialDP``, ``Id`` (no atoms but ratio 1), ``Zero``, and tensor
  products and powers of these.

Arithmetic: when every ``e^{L_j}`` and every mass is rational the masses are exact integers over
one common denominator (:meth:`FiniteLoss.value`, :meth:`FiniteLoss.delta_exact` return exact
rationals). The ``mp_*`` methods work in mpmath at the caller's precision plus guard bits; all
masses are products and sums of positive numbers (relative error at most ``K 2^-w`` for a
count ``K`` of operations), tails are kept on both sides, and each result carries an error
bound: the working precision is raised until the bound is below the requested precision (then
``lo = hi``), else an enclosure is returned.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from fractions import Fraction
from functools import singledispatch
from typing import Any

import sympy as sp
from mpmath.libmp import from_int, fzero, mpf_add, mpf_div, mpf_mul, round_nearest

from ..core.errors import InvalidParameter, NoClosedForm, NumericalError
from .context import MPF, mp
from .protocol import num

__all__ = ["FiniteLoss", "finite_loss"]

# Leaves of a FiniteLoss: ("rr", eps) randomized response with ratio e^{+-eps};
# ("delta", d) the three-atom pair of f_{0,d}; ("atoms", ((ratio, P, Q), ...)) a finite pair with
# exact SymPy ratios (S.Infinity for P = 0) and masses.

#: Largest number of atoms for which the symbolic (non-rational) atoms and knots are built.
SYMBOLIC_MAX_ATOMS = 400
#: The mp routes raise the working precision by at most ``4 p + MAX_EXTRA_BITS`` bits over the
#: target ``p`` (enough unless the value is exactly 0 at a knot or eps is exactly a log-ratio:
#: then the enclosure is returned).
MAX_EXTRA_BITS = 1024
#: Largest exact product materialised by the composition routes (``FiniteLoss.affordable``):
#: the number of elementary mass products (pairs of atoms multiplied, binomial terms), scaled
#: by the size of the integers in exact mode. Past it a product goes to the PLD engine
#: (``operators.tensor``) and a single finite object raises :class:`TooLarge` naming it.
MAX_COST = 4_000_000

_RND = round_nearest
_ONE = Fraction(1)
_ZERO = Fraction(0)


def _sympy_number(x: Any, name: str) -> sp.Expr:
    """An exact SymPy number: floats at their binary values, decimal strings exactly."""
    if isinstance(x, str):
        try:
            return sp.Rational(x.strip())
        except (TypeError, ValueError) as exc:
            raise InvalidParameter(name, x, "a real number", "FiniteLoss") from exc
    if isinstance(x, MPF):
        man, exp = x.man_exp
        return sp.Integer(man) * sp.Integer(2) ** exp
    x = sp.sympify(x)
    if isinstance(x, sp.Float):
        return sp.Rational(x)
    if x.has(sp.Float):
        x = x.xreplace({f: sp.Rational(f) for f in x.atoms(sp.Float)})
    if not x.is_number or x.free_symbols:
        raise NoClosedForm(f"finite loss: {name} = {x} is not a number")
    return x


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
    (mpf at the current precision) or 'sym' (SymPy expressions)."""

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
        return list(xs), 1


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
    one = 1 if mode.kind == "exact" else (mp.one if mode.kind == "mp" else sp.S.One)
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
    else:
        keep_s = sp.S.One
        for d, m in deltas:
            keep_s *= (1 - d) ** m
        D_s = 1 - keep_s
        if mode.kind == "exact":
            (keep, D), den = mode.masses([keep_s, D_s])
        else:
            keep, D, den = keep_s, D_s, 1
    zero = 0 if mode.kind == "exact" else (mp.zero if mode.kind == "mp" else sp.S.Zero)
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
            pk = mpf_mul(pk, em, prec, _RND)
            pk = mpf_div(mpf_mul(pk, from_int(n - k), prec, _RND), from_int(k + 1), prec, _RND)
            raw.append(pk)
        P = [mk(x) for x in raw]
        den = 1
    else:
        E = sp.exp(eps)
        P = [sp.binomial(n, k) * E ** (n - k) / (1 + E) ** n for k in range(n + 1)]
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
        acc = mpf_add(acc, raw[i], prec, _RND)
        pre[i + 1] = acc
    suf, acc = [fzero] * (m + 1), fzero
    for i in range(m - 1, -1, -1):
        acc = mpf_add(acc, raw[i], prec, _RND)
        suf[i] = acc
    return [mk(x) for x in pre], [mk(x) for x in suf]


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
            logs = [self._log(k, Lnum) for k, _, _ in items]
        order = sorted(range(len(items)), key=logs.__getitem__, reverse=True)
        keys = [items[i][0] for i in order]
        P = [items[i][1] for i in order]
        Q = [items[i][2] for i in order]
        logs = [logs[i] for i in order]
        if mode.kind != "mp":
            keys, P, Q, logs = self._exact_ties(keys, P, Q, logs)
        self.keys, self.P, self.Q, self.logs = keys, P, Q, logs
        self.neglogs = [-x for x in logs]
        m = len(keys)
        zero = 0 if mode.kind == "exact" else (mp.zero if mode.kind == "mp" else sp.S.Zero)
        if mode.kind == "mp":
            self.Ppre, self.Psuf = _mp_sums(P, work)
            self.Qpre, self.Qsuf = _mp_sums(Q, work)
        else:
            self.Ppre, self.Qpre = [zero] * (m + 1), [zero] * (m + 1)
            for i in range(m):
                self.Ppre[i + 1] = self.Ppre[i] + P[i]
                self.Qpre[i + 1] = self.Qpre[i] + Q[i]
            self.Psuf, self.Qsuf = [zero] * (m + 1), [zero] * (m + 1)
            for i in range(m - 1, -1, -1):
                self.Psuf[i] = self.Psuf[i + 1] + P[i]
                self.Qsuf[i] = self.Qsuf[i + 1] + Q[i]
        self.has_inf = m > 0 and keys[0][0] is None
        self.first = 1 if self.has_inf else 0
        self.negPsuf = [-x for x in self.Psuf]
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
            j = i + 1
            while j < m and self._near(logs[i], logs[j]):
                j += 1
            run = list(range(i, j))
            groups = [run]
            if len(run) > 1:
                if self.mode.kind == "exact":
                    ex = {t: self.exact_ratio(keys[t]) for t in run}
                else:
                    ex = {t: sp.Float(sp.log(self.exact_ratio(keys[t])).evalf(60), 60)
                          for t in run}
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
        return bisect_left(self.neglogs, -x)


class TooLarge(NumericalError):
    """The exact product of finite objects is too large to materialise (see :data:`MAX_COST`)."""


def _sim_product(A: set, B: set, acc: list, limit: int) -> set:
    """Keys of the product of two blocks (as :func:`_product`), charging |A| |B| to acc[0]."""
    acc[0] += len(A) * len(B)
    if acc[0] > limit:
        raise TooLarge("finite product beyond the size limit")
    out = set()
    for ka in A:
        for kb in B:
            out.add(_kmul(ka, kb))
    return out


def _unit(lo, hi):
    """An enclosure (or point) of a number known to lie in [0, 1], intersected with [0, 1]: a
    point rounded just past an end (1 + 2^-p for a delta that is 1 - 10^-900) becomes the end,
    which is nearer the truth, so the point keeps its digits."""
    lo, hi = min(max(lo, mp.zero), mp.one), min(max(hi, mp.zero), mp.one)
    return lo, hi


def _guard_bits(count: int) -> int:
    return 2 * max(count, 1).bit_length() + 16


class FiniteLoss:
    """The exact discrete privacy-loss representation of a pair (P, Q) of finite distributions.

    Built lazily from leaves with multiplicities (randomized response ``f_{eps,0}``, the
    ``f_{0,delta}`` pair, explicit finite pairs); :meth:`tensor` and :meth:`power` combine the
    multiplicities and the atoms are materialised per arithmetic mode on first use (see the
    module docstring). The trade-off function is ``T(P, Q)`` (Dong, Roth & Su, Def. 2).
    """

    __slots__ = ("_factors", "_cache")

    def __init__(self, factors: dict | None = None):
        self._factors: dict = dict(factors or {})
        self._cache: dict = {}

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def pair(cls, P: Any, Q: Any) -> FiniteLoss:
        """The loss of two finite distributions P, Q on the same outcomes (exact numbers)."""
        P = [_sympy_number(x, "P") for x in P]
        Q = [_sympy_number(x, "Q") for x in Q]
        if len(P) != len(Q) or not P:
            raise InvalidParameter("Q", Q, f"a distribution on the same {len(P)} outcomes as P",
                                   "FiniteLoss")
        atoms = []
        for p, q in zip(P, Q, strict=True):
            if p.is_zero and q.is_zero:
                continue
            r = sp.S.Infinity if p.is_zero else q / p
            atoms.append((r, p, q))
        return cls({("atoms", tuple(atoms)): 1})

    @classmethod
    def from_atoms(cls, atoms: Any) -> FiniteLoss:
        """The loss given by its atoms ``(ratio, P-mass, Q-mass)``: exact SymPy numbers, distinct
        ratios (``S.Infinity`` for P-mass 0), masses summing to 1 on each side (not checked)."""
        return cls({("atoms", tuple((sp.S(r), sp.S(p), sp.S(q)) for r, p, q in atoms)): 1})

    @classmethod
    def epsdelta(cls, eps: Any, delta: Any = 0) -> FiniteLoss:
        """The loss of f_{eps,delta} = f_{eps,0} (x) f_{0,delta} (Dong, Roth & Su, Eq. (10))."""
        eps = _sympy_number(eps, "eps")
        delta = _sympy_number(delta, "delta")
        fac: dict = {}
        if not eps.is_zero:
            fac[("rr", eps)] = 1
        if not delta.is_zero:
            fac[("delta", delta)] = 1
        return cls(fac)

    @classmethod
    def binomial(cls, eps: Any, n: int) -> FiniteLoss:
        """The loss of f_{eps,0}^{(x) n} (Kairouz, Oh & Viswanath; Dong, Roth & Su, Sec. 3.3)."""
        return cls.epsdelta(eps).power(n)

    def tensor(self, other: FiniteLoss) -> FiniteLoss:
        """The product pair (P x P', Q x Q'): T(P, Q) (x) T(P', Q') (Dong, Roth & Su, Def. 5)."""
        fac = dict(self._factors)
        for leaf, m in other._factors.items():
            fac[leaf] = fac.get(leaf, 0) + m
        return FiniteLoss(fac)

    def power(self, n: int) -> FiniteLoss:
        """The n-fold product pair (n >= 0 an integer); materialised by squaring (binomial
        recurrence for randomized response)."""
        if isinstance(n, sp.Integer):
            n = int(n)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InvalidParameter("n", n, "an integer >= 0", "FiniteLoss.power")
        return FiniteLoss({leaf: m * n for leaf, m in self._factors.items() if m * n})

    def inverse(self) -> FiniteLoss:
        """The swapped pair (Q, P): T(P, Q)^{-1} = T(Q, P) (Dong, Roth & Su, Sec. 2.1, after
        Prop. 2). Randomized response and the f_{0,delta} pair are symmetric; explicit atoms
        have their masses exchanged and their ratios inverted."""
        fac: dict = {}
        for (kind, x), m in self._factors.items():
            if kind == "atoms":
                x = tuple((sp.S.Zero if r is sp.S.Infinity else (sp.S.Infinity if r == 0
                                                                   else 1 / r), q, p)
                          for r, p, q in x)
            fac[(kind, x)] = fac.get((kind, x), 0) + m
        return FiniteLoss(fac)

    def cost(self, limit: int = MAX_COST) -> int | None:
        """An upper bound on the elementary products the materialised table needs (binomial
        terms and pairs of atoms multiplied, scaled by the integer sizes in exact mode), or
        None when it exceeds ``limit`` (found without doing that work: the key sets of the
        products are simulated, and abandoned past the limit)."""
        key = ("cost", limit)
        if key in self._cache:
            return self._cache[key]
        try:
            c = self._simulate(limit)
        except TooLarge:
            c = None
        self._cache[key] = c
        return c

    def affordable(self, limit: int = MAX_COST) -> bool:
        """Is the exact table within ``limit`` elementary products (see :meth:`cost`)?"""
        return self.cost(limit) is not None

    def _simulate(self, limit: int) -> int:
        acc = [0]

        def charge(k: int) -> None:
            acc[0] += k
            if acc[0] > limit:
                raise TooLarge("finite product beyond the size limit")

        rr = [(x, m) for (k, x), m in self._factors.items() if k == "rr"]
        pairs = [(x, m) for (k, x), m in self._factors.items() if k == "atoms"]
        sizes = []
        for _, members in _classes(sorted(rr, key=lambda t: sp.default_sort_key(t[0]))):
            size, span = 1, 0
            for i, (mult, _, n) in enumerate(members):
                charge(n + 1)
                if i:
                    charge(size * (n + 1))
                span += abs(mult) * n
                size = min(size * (n + 1), span + 1)
            sizes.append(size)
        for atoms, m in pairs:
            keys = set()
            for r, _, _ in atoms:
                c = _ratio_key(r)
                keys.add((c, ()) if c is None or c != 0 else (_ZERO, ()))
            charge(len(keys))
            result, base, n = {(_ONE, ())}, keys, m
            while n:
                if n & 1:
                    result = _sim_product(result, base, acc, limit)
                n >>= 1
                if n:
                    base = _sim_product(base, base, acc, limit)
            sizes.append(len(result))
        total = 1
        for sz in sizes:
            charge(total * sz)
            total *= sz
        charge(4 * total + 64)
        work = acc[0]
        if self.is_rational:  # integer masses over a common denominator of ``bits`` bits
            bits = 0
            for (kind, x), m in self._factors.items():
                if kind == "rr":
                    E = sp.exp(x)
                    bits += m * int(E.p + E.q).bit_length()
                elif kind == "delta":
                    bits += m * int(x.q).bit_length()
                else:
                    bits += m * sum(int(t.q).bit_length() for a in x for t in a[1:])
            work = work * (1 + bits // 2048)
            if work > limit:
                raise TooLarge("finite product beyond the size limit")
        return work

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FiniteLoss) and self._factors == other._factors

    def __hash__(self) -> int:
        return hash(frozenset(self._factors.items()))

    def __repr__(self) -> str:
        parts = []
        for (kind, x), m in self._factors.items():
            if kind == "atoms":
                s = "Pair(%d atoms)" % len(x)
            else:
                s = ("RR(%s)" if kind == "rr" else "Delta(%s)") % x
            parts.append(s if m == 1 else "%s^%d" % (s, m))
        return "FiniteLoss(%s)" % " x ".join(parts or ["Id"])

    # -- materialisation ---------------------------------------------------------------------
    @property
    def is_rational(self) -> bool:
        """Are all masses and ratios rational (exact arithmetic possible)?"""
        v = self._cache.get("rational")
        if v is None:
            v = True
            for (kind, x), _ in self._factors.items():
                if kind == "rr":
                    v &= isinstance(sp.exp(x), sp.Rational)
                elif kind == "delta":
                    v &= isinstance(x, sp.Rational)
                else:
                    v &= all(isinstance(t, sp.Rational) for a in x for t in a[1:])
            self._cache["rational"] = v
        return v

    def _op_count(self) -> int:
        c = 64
        for (kind, x), m in self._factors.items():
            c += 4 * m if kind == "rr" else (8 if kind == "delta" else 2 * m * (len(x) + 2))
        return c

    def _build(self, mode: _Mode, prec: int | None) -> _Table:
        rr = [(x, m) for (k, x), m in self._factors.items() if k == "rr"]
        deltas = [(x, m) for (k, x), m in self._factors.items() if k == "delta"]
        pairs = [(x, m) for (k, x), m in self._factors.items() if k == "atoms"]
        classes = _classes(sorted(rr, key=lambda t: sp.default_sort_key(t[0])))
        G = len(classes)
        gens = [(L, sp.exp(L)) for L, _ in classes]
        blocks = [_class_block(j, G, members, mode) for j, (_, members) in enumerate(classes)]
        blocks += [_power_block(_atoms_block(atoms, G, mode), m, G, mode) for atoms, m in pairs]
        block = blocks[0] if blocks else _unit_block(G, mode)
        for b in blocks[1:]:
            block = _product(block, b)
        if deltas:
            block = _with_delta(block, _delta_block(deltas, G, mode), G)
        items = [(k, p, q) for k, (p, q) in block[0].items()
                 if not (_is_zero(p) and _is_zero(q))]
        return _Table(items, block[1], gens, mode, prec, self._op_count())

    def _exact_table(self) -> _Table | None:
        if not self.is_rational:
            return None
        t = self._cache.get("exact")
        if t is None:
            t = self._cache["exact"] = self._build(_Mode("exact"), None)
        return t

    def _mp_table(self, w: int) -> _Table:
        key = ("mp", w)
        t = self._cache.get(key)
        if t is None:
            with mp.workprec(w):
                t = self._build(_Mode("mp"), w)
            # keep the two most recent precisions
            old = [k for k in self._cache if isinstance(k, tuple) and k[0] == "mp"]
            for k in old[:-1]:
                del self._cache[k]
            self._cache[key] = t
        return t

    # -- exact results -----------------------------------------------------------------------
    def atoms(self) -> list[tuple[sp.Expr, sp.Expr, sp.Expr]]:
        """(ratio, P-mass, Q-mass) by decreasing ratio, equal ratios merged; exact SymPy numbers
        (rationals when :attr:`is_rational`, else closed forms in ``exp(eps)``)."""
        t = self._exact_table()
        if t is not None:
            den = t.den
            out = []
            for k, p, q in zip(t.keys, t.P, t.Q, strict=True):
                r = t.exact_ratio(k)
                rs = sp.S.Infinity if r is None else sp.Rational(r.numerator, r.denominator)
                out.append((rs, sp.Rational(p, den), sp.Rational(q, den)))
            return out
        t = self._symbolic_table()
        out = []
        for k, p, q in zip(t.keys, t.P, t.Q, strict=True):
            r = t.exact_ratio(k)
            out.append((sp.S.Infinity if r is None else r, sp.factor(sp.cancel(p)),
                        sp.factor(sp.cancel(q))))
        return out

    def _symbolic_table(self) -> _Table:
        t = self._cache.get("sym")
        if t is None:
            size = self._op_count()
            if size > 4 * SYMBOLIC_MAX_ATOMS:
                raise NoClosedForm(f"{self}: too many atoms for symbolic masses; use the mp_* "
                                   "methods (or rational e^eps for exact ones)")
            t = self._cache["sym"] = self._build(_Mode("sym"), None)
        return t

    def tradeoff_knots(self) -> list[tuple[sp.Expr, sp.Expr]]:
        """The Neyman--Pearson knots ``(alpha, T(P, Q)(alpha))`` from ``(0, 1 - Q(oo))`` to
        ``(1, 0)``, exact (Dong, Roth & Su, Appendix A)."""
        atoms = self.atoms()
        knots = []
        alpha, Qcum = sp.S.Zero, sp.S.Zero
        for r, p, q in atoms:
            alpha, Qcum = alpha + p, Qcum + q
            if r is sp.S.Infinity:
                continue
            if not knots:
                knots.append((sp.S.Zero, 1 - (Qcum - q)))
            knots.append((alpha, 1 - Qcum))
        if not knots:
            return [(sp.S.Zero, sp.S.One), (sp.S.One, sp.S.Zero)]
        if self._exact_table() is None:
            knots = [(sp.factor(sp.cancel(a)), sp.factor(sp.cancel(v))) for a, v in knots]
        return knots

    def value(self, A: Any, Ac: Any | None = None) -> sp.Rational | None:
        """The exact T(P, Q)(A) for rational A in [0, 1], or None when the masses are not
        rational. ``Ac = 1 - A`` may be passed (the protocol's signature); it is not needed."""
        t = self._exact_table()
        if t is None:
            return None
        A = sp.Rational(A)
        x = Fraction(int(A.p) * t.den, int(A.q))
        i = max(bisect_left(t.Ppre, x) - 1, t.first)
        i = min(i, len(t.keys) - 1)
        r = t.exact_ratio(t.keys[i])
        v = t.Qsuf[i + 1] + (t.Ppre[i + 1] - x) * r
        v = v / t.den
        return sp.Rational(v.numerator, v.denominator)

    def delta_exact(self, E: Any) -> sp.Rational | None:
        """delta at ``e^eps = E`` (a positive rational): ``sum_{r > E} (Q_r - E P_r)``
        = ``Q(S) - E P(S)`` with ``S = {r > E}``, exact; None when the masses are not
        rational."""
        t = self._exact_table()
        if t is None:
            return None
        E = _frac(sp.Rational(E))
        with mp.workprec(128):
            lE = mp.log(mp.mpf(E.numerator) / E.denominator)
        k = t.cut(lE)
        while k > 0 and t._near(t.logs[k - 1], lE) and not t.exact_ratio(t.keys[k - 1]) > E:
            k -= 1
        while k < len(t.keys) and t._near(t.logs[k], lE) and t.exact_ratio(t.keys[k]) > E:
            k += 1
        v = (t.Qpre[k] - E * t.Ppre[k]) / t.den
        return sp.Rational(v.numerator, v.denominator)

    # -- mpmath results ----------------------------------------------------------------------
    def _ziv(self, compute):
        """Run ``compute(table, u) -> (lo, hi, err)`` at rising working precision ``w`` until the
        error bound ``err`` and the width ``hi - lo`` are below the target precision (a point
        when ``lo == hi``); ``u`` bounds the relative error of every mass and ratio. Past
        :data:`MAX_EXTRA_BITS` the enclosure ``[lo - err, hi + err]`` is returned."""
        p = mp.prec
        count = self._op_count()
        extra = _guard_bits(count)
        cap = 4 * p + MAX_EXTRA_BITS
        while True:
            w = p + extra
            t = self._mp_table(w)
            with mp.workprec(w):
                u = mp.ldexp(t.count + 4 * (1 + t.logmax), -w)
                lo, hi, err = compute(t, u)
                tol = mp.ldexp(abs(hi), -p - 2)
                if err <= tol and hi - lo <= tol:
                    return (+lo, +lo) if lo == hi else (lo - err, hi + err)
                if extra >= cap:
                    return lo - err, hi + err
                miss = max(err, hi - lo)
                need = int(mp.log(miss / tol, 2)) + 16 if tol > 0 else extra
                extra = min(cap, extra + max(need, 32))

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
        p = mp.prec
        t = self._mp_table(p + _guard_bits(self._op_count()))
        q_inf = t.Q[0] if t.has_inf else mp.zero
        if d < q_inf:
            return mp.inf, mp.inf
        if self.mp_delta(mp.zero)[1] <= d:
            return mp.zero, mp.zero
        # positive finite log-ratios, ascending (atom index = position in decreasing order)
        pos = [i for i, x in enumerate(t.logs) if mp.isfinite(x) and x > 0][::-1]
        lo_i, hi_i = -1, len(pos)  # delta(log r_pos[lo_i]) > d (or eps = 0); <= d at hi_i
        while hi_i - lo_i > 1:
            mid = (lo_i + hi_i) // 2
            if self.mp_delta(t.logs[pos[mid]])[1] <= d:
                hi_i = mid
            else:
                lo_i = mid
        if not pos:  # no finite ratio above 1: delta(eps) = Q(P = 0) <= d for every eps > 0
            return mp.zero, mp.zero
        # delta(largest log-ratio) = Q(P = 0) <= d exactly; its computed upper bound may still
        # exceed d (the atoms at that ratio are ambiguous within rounding): the crossing is then
        # at most the largest log-ratio
        hi_i = min(hi_i, len(pos) - 1)
        # S = {r > e^eps} for eps in (left, right): the atoms up to and including pos[hi_i]
        i_right = pos[hi_i]
        stop = i_right + 1
        extra = _guard_bits(self._op_count())
        cap = 4 * p + MAX_EXTRA_BITS
        while True:
            w = p + extra
            t = self._mp_table(w)
            with mp.workprec(w):
                u = mp.ldexp(t.count + 4 * (1 + t.logmax), -w)
                left = t.logs[pos[lo_i]] if lo_i >= 0 else mp.zero
                right = t.logs[i_right]
                QS, PS = t.Qpre[stop], t.Ppre[stop]
                gap = QS - d
                if PS == 0 or gap <= 0:
                    return +left, +right
                x = gap / PS
                eps = mp.log(x)
                # relative errors: QS, PS ~u, gap ~u QS/gap; log x has abs error ~ rel err of x
                err = u * (4 + 2 * QS / gap) + mp.ldexp(1, -w + 2)
                tol = mp.ldexp(abs(eps), -p - 2)
                if err <= tol or extra >= cap:
                    lo_e = min(max(eps - err, left), right)
                    hi_e = min(max(eps + err, left), right)
                    if err <= tol:
                        eps = min(max(eps, left), right)
                        return +eps, +eps
                    return +lo_e, +hi_e
                need = int(mp.log(err / tol, 2)) + 16 if tol > 0 else extra
                extra = min(cap, extra + max(need, 32))

    # -- convenience -------------------------------------------------------------------------
    def delta(self, eps: Any, dps: int = 30):
        """delta(eps) as a :class:`~tradeoff_algebra.numeric.value.Value`: exact when the
        masses and ``e^eps`` are rational, else to ``dps`` digits (or an enclosure)."""
        from .protocol import GUARD_DPS
        from .value import Value

        e = _sympy_number(eps, "eps")
        E = sp.exp(e)
        if isinstance(E, sp.Rational):
            q = self.delta_exact(E)
            if q is not None:
                return Value.from_exact(q, dps)
        with mp.workdps(dps + GUARD_DPS):
            lo, hi = self.mp_delta(num(e, "eps"))
            lo, hi = max(lo, mp.zero), min(hi, mp.one)
            return Value.point(lo, dps) if lo == hi else Value.enclosure(lo, hi, dps)

    def epsilon(self, delta: Any, dps: int = 30):
        """The smallest eps >= 0 with delta(eps) <= delta, as a Value."""
        from .protocol import GUARD_DPS, as_level
        from .value import Value

        d = as_level(delta, "delta")
        with mp.workdps(dps + GUARD_DPS):
            lo, hi = self.mp_epsilon(num(d, "delta"))
            return Value.point(lo, dps) if lo == hi else Value.enclosure(lo, hi, dps)


# -- dispatch ----------------------------------------------------------------------------------
_installed = False


@singledispatch
def finite_loss(f: Any) -> FiniteLoss | None:
    """The exact finite loss of ``f``, or None when ``f`` is not (known to be) finite.

    Registered for EpsDelta, Discrete, PiecewiseLinear, BinomialDP, ShuffleDP (small n), Id,
    Zero and Tensor /
    TensorPower of finite factors (None if any factor is not finite or a parameter is
    symbolic). The family registrations live in their modules or are installed on first call.
    """
    if _install():
        return finite_loss(f)
    return None


def _install() -> bool:
    """Register the families and operators that live in later layers (once)."""
    global _installed
    if _installed:
        return False
    _installed = True
    from ..families import binomial as _b  # noqa: F401  (their own registrations)
    from ..families import discrete as _d  # noqa: F401
    from ..families import piecewise as _p  # noqa: F401
    from ..families import shuffle as _s  # noqa: F401
    from ..families.epsdelta import EpsDelta
    from ..families.trivial import IdTradeOff, ZeroTradeOff
    from ..operators.tensor import Tensor, TensorPower

    @finite_loss.register(EpsDelta)
    def _(f):
        if f.free_symbols:
            return None
        return FiniteLoss.epsdelta(f.eps, f.delta)

    @finite_loss.register(IdTradeOff)
    def _(f):
        return FiniteLoss()

    @finite_loss.register(ZeroTradeOff)
    def _(f):
        return FiniteLoss.pair([1, 0], [0, 1])

    @finite_loss.register(Tensor)
    def _(f):
        out = FiniteLoss()
        for g in f.factors:
            h = finite_loss(g)
            if h is None:
                return None
            out = out.tensor(h)
        return out

    @finite_loss.register(TensorPower)
    def _(f):
        if not isinstance(f.n, sp.Integer):
            return None
        h = finite_loss(f.base)
        return None if h is None else h.power(int(f.n))

    return True
