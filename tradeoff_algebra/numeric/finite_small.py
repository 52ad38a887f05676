"""f_{eps0,0}^{(x) k} for small k by its k + 1 atoms in Arb: delta(eps) and eps(delta) with no
search and no incomplete beta function.

The pair is T(B(k, p), B(k, 1 - p)), p = 1/(1 + e^{eps0}) (Kairouz, Oh & Viswanath; Dong, Roth
& Su, Sec. 3.3): with x = e^{eps0}, the atom j = 0..k has the privacy loss l_j = eps0 (2j - k),
the P-mass C(k, j) x^{k-j} / (1 + x)^k and the Q-mass C(k, j) x^j / (1 + x)^k. By Prop. 6,

    delta(eps) = sum over l_j > eps of (Q_j - e^eps P_j) = (U_m - e^eps V_m) / (1 + x)^k,

U_m = sum_{j >= m} C(k, j) x^j, V_m = sum_{j >= m} C(k, j) x^{k-j}, m the first atom whose loss
exceeds eps (on the segment l_{m-1} <= eps <= l_m the formula holds at both ends, the atom at
l_m adding Q_m - e^{l_m} P_m = 0). V_m > 0, so delta is strictly decreasing there, and
eps(d) = inf{eps >= 0 : delta(eps) <= d} is the root of that line in e^eps,

    e^eps = r_m = (U_m - d (1 + x)^k) / V_m,

as soon as x^{2m-2-k} <= r_m <= x^{2m-k} is proved (below: r_m >= 1 on the segment holding
eps = 0, delta(0) <= d giving eps = 0): two Arb comparisons decide the segment, a float guess
says where to start, and log r_m is the ball of eps(d): a handful of Arb operations at
k <= :data:`MAX_K` (``analysis.pure_power`` answers ``ta.epsilon`` from here). Where e^{eps0} =
p/q is rational (eps0 = log 3, c log r) the atoms are integers (times (p + q)^k): the segment and
r_m are exact (:func:`ratio_exact`) and the logarithm is the one ball; delta(eps) is exact where
e^eps is rational too (:func:`delta_exact`), else one exponential on the integer atoms
(:class:`_IntAtoms`). Which atoms lie above eps is decided by integer comparisons where eps0 and
eps are both rationals or both logarithms of rationals (ties exact: an atom at eps adds 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy as sp
from flint import arb, fmpq

from .context import arb_precision

__all__ = ["MAX_K", "pure_power", "register_pure_power", "positive_eps0", "base_ball",
           "epsilon_ball", "ratio_exact", "delta_ball", "delta_exact", "exp_ball",
           "lattice_delta_exact", "loss_above"]

#: Largest k taken by the atoms here (O(k) Arb operations; larger k: the incomplete beta
#: functions of ``binomial_profile``, O(1) at any k).
MAX_K = 64
#: Precision attempts (extra bits added each time) before giving up (None: the general routes).
ATTEMPTS = (0, 64, 256)


#: The classes that say (eps0, k) of a node of theirs: filled by :func:`register_pure_power`.
_PURE_POWER: dict[type, Callable[[Any], tuple[sp.Expr, int] | None]] = {}


def register_pure_power(cls: type) -> Callable:
    """Decorator: ``fn(node) -> (eps0, k) | None`` says when a node of exactly the class
    ``cls`` is f_{eps0,0}^{(x) k} (a dict keyed by the node's type: the first query of a
    process pays no dispatch search over the class's bases)."""

    def deco(fn: Callable) -> Callable:
        _PURE_POWER[cls] = fn
        return fn

    return deco


def pure_power(f: Any) -> tuple[sp.Expr, int] | None:
    """(eps0, k) when the node ``f`` is f_{eps0,0}^{(x) k} itself, as its stored arguments say
    (no rewriting), eps0 a number > 0 and k >= 1; else None. Registered by the families
    (f_{eps0,0}, BinomialDP) and the tensor power (the base's k times n)."""
    fn = _PURE_POWER.get(type(f))
    return None if fn is None else fn(f)


def positive_eps0(eps0: sp.Expr) -> bool:
    """Whether eps0 may be a pure-DP parameter here: a Rational > 0, or a closed form without
    symbols (its ball is proved above 1 later, :func:`base_ball`)."""
    if isinstance(eps0, sp.Rational):
        return eps0.p > 0
    return bool(eps0.is_number) and not eps0.free_symbols


def base_ball(eps0: sp.Expr):
    """The ball of x = e^{eps0} at the current Arb precision: exact for eps0 = log r (r
    rational), the exponential of the exact ball for a rational eps0, else of Arb's enclosure
    of eps0's closed form. None where Arb cannot enclose it or it is not above 1."""
    if isinstance(eps0, sp.Rational):
        x = arb(fmpq(int(eps0.p), int(eps0.q))).exp()
    elif isinstance(eps0, sp.log) and isinstance(eps0.args[0], sp.Rational):
        r = eps0.args[0]
        x = arb(fmpq(int(r.p), int(r.q)))
    else:
        from .arb_expr import arb_ball

        try:
            x = arb_ball(eps0).exp()
        except ValueError:
            return None
    return x if x > 1 else None


def _rational(x: sp.Expr) -> tuple[int, int] | None:
    """(p, q) where x is the SymPy Rational p/q; else None."""
    return (int(x.p), int(x.q)) if isinstance(x, sp.Rational) else None


def _exp_ratio(x: sp.Expr) -> tuple[int, int] | None:
    """(p, q), coprime with q > 0, where e^x = p/q is rational: x = 0, or x = c log r with c an
    Integer (|c| <= 4 MAX_K) and r a positive Rational (p/q = r^c); else None."""
    if isinstance(x, sp.Rational):
        return (1, 1) if x.p == 0 else None
    c = 1
    if isinstance(x, sp.Mul) and len(x.args) == 2 and isinstance(x.args[0], sp.Integer):
        c, x = int(x.args[0]), x.args[1]
    if not (isinstance(x, sp.log) and isinstance(x.args[0], sp.Rational) and abs(c) <= 4 * MAX_K):
        return None
    r = x.args[0]
    p, q = int(r.p), int(r.q)
    if p <= 0:
        return None
    return (p**c, q**c) if c >= 0 else (q ** (-c), p ** (-c))


def _log_arg(x: sp.Expr) -> Fraction | None:
    """r where x = c log r, c an Integer and r a Rational (r^c; x = 0: r = 1); else None."""
    pq = _exp_ratio(x)
    return None if pq is None else Fraction(*pq)


class _Atoms:
    """The powers x^0..x^k, the binomial coefficients and (1 + x)^k of f_{eps0,0}^{(x) k}, with
    the suffix sums U_m, V_m formed on demand (at the current Arb precision)."""

    def __init__(self, x, k: int):
        self.k = k
        pw = [arb(1), x]
        for _ in range(k - 1):
            pw.append(pw[-1] * x)
        self.pw = pw
        self.c = [math.comb(k, j) for j in range(k + 1)]
        self.total = (1 + x) ** k
        self._uv: dict = {}

    def uv(self, m: int) -> tuple:
        """(U_m, V_m); (0, 0) for m > k."""
        got = self._uv.get(m)
        if got is None:
            if m > self.k:
                got = (arb(0), arb(0))
            else:
                u, v = self.uv(m + 1)
                got = (u + self.c[m] * self.pw[m], v + self.c[m] * self.pw[self.k - m])
            self._uv[m] = got
        return got

    def ratio(self, e: int):
        """e^{l} for the loss l = eps0 e, i.e. x^e (e an integer of either sign)."""
        return self.pw[e] if e >= 0 else 1 / self.pw[-e]


class _IntAtoms:
    """The same for a rational x = p/q, in integers: U_m, V_m and (1 + x)^k times q^k, i.e. the
    suffix sums of N_j = C(k, j) p^j q^(k-j) (the Q-mass of atom j times (p + q)^k; its P-mass
    is N_{k-j}) and T = (p + q)^k, so delta = (U_m - e^E V_m)/T is the same formula."""

    def __init__(self, p: int, q: int, k: int):
        self.k, self.p, self.q = k, p, q
        self.n = [math.comb(k, j) * p**j * q ** (k - j) for j in range(k + 1)]
        self.total = (p + q) ** k

    def uv(self, m: int) -> tuple[int, int]:
        """(U_m, V_m) as integers; (0, 0) for m > k."""
        n, k = self.n, self.k
        return (0, 0) if m > k else (sum(n[m:], 0), sum(n[: k - m + 1], 0))

    def ratio(self, e: int):
        """x^e as an Arb ball at the current precision (e >= 0)."""
        return arb(fmpq(self.p**e, self.q**e))


def _first_segment(k: int) -> int:
    """The first m whose atom's loss eps0 (2m - k) is > 0."""
    return k // 2 + 1


def _guess(eps0: float, k: int, d: float) -> int:
    """The m of the segment [l_{m-1}, l_m] holding eps(d), from floats (a guess only: the Arb
    walk proves it)."""
    lo = _first_segment(k)
    try:
        x = math.exp(eps0)
        tot = (1 + x) ** k
        u = v = 0.0
        for m in range(k, lo - 1, -1):  # delta(l_{m-1}) = (U_m - x^{2m-2-k} V_m)/(1 + x)^k
            u += math.comb(k, m) * x**m
            v += math.comb(k, m) * x ** (k - m)
            if (u - x ** (2 * m - 2 - k) * v) / tot > d:
                return m
    except (OverflowError, ZeroDivisionError, ValueError):
        return lo
    return lo


def _solve(at: _Atoms, dd, m: int, lo_m: int):
    """The ball of e^{eps(d)} (or the exact 0 of eps, as the Python int 0) by the walk over
    the segments from m on certified comparisons; None where a comparison is undecided."""
    k = at.k
    for _ in range(k + 2):
        if m > k:
            m = k
        u, v = at.uv(m)
        r = (u - dd * at.total) / v
        low = None if m == lo_m else at.ratio(2 * m - 2 - k)  # (None: eps = 0 bounds it)
        if (r < 1) if low is None else (r < low):
            if low is None:  # delta(0) = (U_m - V_m)/(1 + x)^k < d: eps(d) = 0
                return 0
            m -= 1
            continue
        if r > at.ratio(2 * m - k):
            if m == k:  # (delta(l_k) = 0 <= d: never for a proved d >= 0)
                return None
            m += 1
            continue
        if (r >= 1 if low is None else r >= low) and r <= at.ratio(2 * m - k):
            return r
        return None
    return None


def _float_of(eps0: sp.Expr) -> float:
    """eps0 as a float (for the guess only)."""
    if isinstance(eps0, sp.Rational):
        return int(eps0.p) / int(eps0.q)
    if isinstance(eps0, sp.log) and isinstance(eps0.args[0], sp.Rational):
        r = eps0.args[0]
        return math.log(int(r.p) / int(r.q))
    return float(eps0)


def ratio_exact(p: int, q: int, k: int, a: int, b: int) -> Fraction | None:
    """e^{eps(d)} of f_{eps0,0}^{(x) k} exactly where x = e^{eps0} = p/q > 1 is rational
    (d = a/b in (0, 1)), or None where delta(0) <= d (eps(d) = 0). In the integers of
    :class:`_IntAtoms`: walking down from the top atom, the first m with
    delta(l_{m-1}) = (U_m - x^{2m-2-k} V_m)/T > d (at the segment holding 0, delta(0) =
    (U_m - V_m)/T) gives e^eps = (U_m - d T)/V_m on [max(l_{m-1}, 0), l_m], where delta is
    the line of slope -V_m/T in e^eps (Prop. 6): every decision an exact comparison."""
    at = _IntAtoms(p, q, k)
    T, N = at.total, at.n
    lo = _first_segment(k)
    U = V = 0
    for m in range(k, lo - 1, -1):
        U += N[m]
        V += N[k - m]
        if m == lo:  # the segment holding eps = 0: delta(0) = (U - V)/T
            if b * (U - V) <= a * T:
                return None
            break
        e = 2 * m - 2 - k  # (>= 1 above the segment holding 0)
        qe = q**e
        if b * (U * qe - p**e * V) > a * T * qe:  # delta(l_{m-1}) > d: eps on this segment
            break
    return Fraction(b * U - a * T, b * V)


def _log_ball(r: Fraction, bits: int):
    """log r (r > 1 a Fraction) as an Arb ball of relative radius at most 2^-bits, or None."""
    for extra in ATTEMPTS:
        with arb_precision(bits + 24 + extra):
            y = arb(fmpq(r.numerator, r.denominator)).log()
        if y.is_finite() and y > 0 and y.rel_accuracy_bits() >= bits:
            return y
    return None


def epsilon_ball(eps0: sp.Expr, k: int, d: tuple[int, int], bits: int):
    """eps(d) of f_{eps0,0}^{(x) k} (d = (a, b) the rational a/b in (0, 1), 1 <= k <= MAX_K)
    as an Arb ball whose radius is at most 2^-bits relative, or the exact 0 (the int 0) when
    delta(0) <= d is proved; None where the walk is undecided at every attempt, or eps0 has no
    ball above 1 (the general routes answer). eps(d) < k eps0 always (delta(k eps0) = 0 < d).
    Where e^{eps0} is rational (eps0 = c log r) the segment and e^{eps(d)} are exact
    (:func:`ratio_exact`) and the one ball is its logarithm."""
    a, b = d
    if not (1 <= k <= MAX_K and 0 < a < b):
        return None
    xr = None if isinstance(eps0, sp.Rational) else _exp_ratio(eps0)
    if xr is not None:
        if not xr[0] > xr[1]:
            return None
        r = ratio_exact(xr[0], xr[1], k, a, b)
        return 0 if r is None else _log_ball(r, bits)
    try:
        m0 = _guess(_float_of(eps0), k, a / b)
    except (TypeError, ValueError, OverflowError):
        m0 = _first_segment(k)
    for extra in ATTEMPTS:
        with arb_precision(bits + 2 * k.bit_length() + 24 + extra):
            x = base_ball(eps0)
            if x is None:
                return None
            r = _solve(_Atoms(x, k), arb(fmpq(a, b)), m0, _first_segment(k))
            if r is None:
                continue
            if isinstance(r, int) or r == 1:  # (r == 1 only when exactly 1: eps = 0)
                return 0
            y = r.log()
        if y.is_finite() and y > 0 and y.rel_accuracy_bits() >= bits:
            return y
    return None


def exp_ball(E: sp.Expr):
    """The ball of e^E for an exact SymPy number E >= 0 at the current Arb precision: exact for
    E = 0 and E = log r (r rational), the exponential of the exact ball of a rational E, else of
    Arb's enclosure of E's closed form; None where Arb cannot enclose it."""
    if isinstance(E, sp.Rational):
        return arb(1) if E.p == 0 else arb(fmpq(int(E.p), int(E.q))).exp()
    if isinstance(E, sp.log) and isinstance(E.args[0], sp.Rational):
        r = E.args[0]
        return arb(fmpq(int(r.p), int(r.q)))
    from .arb_expr import Unenclosable, arb_ball

    try:
        y = arb_ball(E).exp()
    except (Unenclosable, TypeError, ValueError):
        return None
    return y if y.is_finite() else None


def _above(r0: tuple | None, x0: tuple | None, j: int, r: tuple | None, x: tuple | None
           ) -> bool | None:
    """Whether eps0 j > E from their forms (r: the Rational p/q, x: e^{.} = p/q, each None
    where it is not one): exact integer comparisons, None where the forms do not meet."""
    if r0 is not None and r is not None:  # p0 j / q0 > p / q
        return r0[0] * j * r[1] > r[0] * r0[1]
    if x0 is not None and x is not None:  # (p0/q0)^j > p/q
        (p0, q0), (p, q) = x0, x
        if j < 0:
            p0, q0, j = q0, p0, -j
        return p0**j * q > p * q0**j
    return None


def loss_above(eps0: sp.Expr, j: int, E: sp.Expr) -> bool | None:
    """Whether the loss eps0 j exceeds E, decided exactly where both are rationals or both
    logarithms of rationals; None otherwise (Arb decides)."""
    return _above(_rational(eps0), _exp_ratio(eps0), j, _rational(E), _exp_ratio(E))


def delta_ball(eps0: sp.Expr, k: int, E: sp.Expr):
    """delta(E) of f_{eps0,0}^{(x) k} (1 <= k <= MAX_K, E >= 0 an exact number) as an Arb ball
    at the current precision: (U_m - e^E V_m) / (1 + x)^k on the segment of the first atom m
    whose loss exceeds E (module docstring; Dong, Roth & Su, Prop. 6), decided exactly where
    eps0 and E are both rationals or both logarithms of rationals, else by comparing x^{2m-k}
    with e^E in Arb; where a comparison is undecided, the union of the candidate segments'
    values (the truth lies on one of them). U_m, V_m and (1 + x)^k are integers (times q^k)
    where x = p/q is rational (:class:`_IntAtoms`). 0 where every atom's loss is proved at most
    E. None where eps0 or E has no ball."""
    if not 1 <= k <= MAX_K:
        return None
    r0, x0 = _rational(eps0), _exp_ratio(eps0)
    if x0 is not None:
        if not x0[0] > x0[1]:
            return None
        at = _IntAtoms(x0[0], x0[1], k)
    else:
        x = base_ball(eps0)
        if x is None:
            return None
        at = _Atoms(x, k)
    y = exp_ball(E)
    if y is None:
        return None
    r, xE = _rational(E), _exp_ratio(E)
    cands = []
    for m in range(_first_segment(k), k + 1):
        above = _above(r0, x0, 2 * m - k, r, xE)
        if above is not None:  # decided exactly (an exact tie is no atom above E)
            if above:
                cands.append(m)
                break
            continue
        t = at.ratio(2 * m - k)
        if t > y:  # proved: the first atom above E is m or an undecided one before it
            cands.append(m)
            break
        if not t <= y:  # undecided
            cands.append(m)
    else:
        cands.append(k + 1)  # (every atom up to k proved at or below E, or undecided)
    out = None
    for m in cands:
        if m > k:
            d = arb(0)
        else:
            u, v = at.uv(m)
            d = (u - y * v) / at.total
        out = d if out is None else out.union(d)
    return out


def delta_exact(eps0: sp.Expr, k: int, E: sp.Expr) -> Fraction | None:
    """delta(E) of f_{eps0,0}^{(x) k} exactly where e^{eps0} = x and e^E = r are rationals
    (eps0 = log x, E = 0 or log r): sum_{j >= m} C(k, j) (x^j - r x^{k-j}) / (1 + x)^k over the
    atoms whose ratio x^{2j-k} exceeds r (Prop. 6), in integers (times q0^k q for x = p0/q0,
    r = p/q); None otherwise."""
    if isinstance(eps0, sp.Rational) or not 1 <= k <= MAX_K:
        return None
    x0, xE = _exp_ratio(eps0), _exp_ratio(E)
    if x0 is None or xE is None or not x0[0] > x0[1]:
        return None
    (p0, q0), (p, q) = x0, xE
    tot = 0
    for j in range(_first_segment(k), k + 1):
        e = 2 * j - k  # (>= 1: the atoms below carry no mass above E >= 0)
        if p0**e * q > p * q0**e:
            tot += math.comb(k, j) * (q * p0**j * q0 ** (k - j) - p * p0 ** (k - j) * q0**j)
    return Fraction(tot, q * (p0 + q0) ** k)


def lattice_delta_exact(P: list, Q: list, n: int, r: Fraction, max_bits: int = 1 << 24
                        ) -> Fraction | None:
    """delta(log r) of the n-fold product of the finite pair (P, Q) (rational masses, Fractions)
    whose likelihood ratios are integer powers R^{k_i} of one rational R > 1
    (``lattice_power.lattice_pair``), exactly: with Q(d) the Q-law of the summed exponent d
    (the coefficients of the integer polynomial (sum_i a_i x^{k_i - k_min})^n over the
    common denominator, a ``fmpz_poly`` power) and P(d) = Q(d) R^{-d} the P-law likewise,

        delta(log r) = sum_{R^d > r} (Q(d) - r P(d))

    (Dong, Roth & Su, Prop. 6; Def. 5 for the product's laws), the atoms above log r found by
    exact comparisons of R^d with r. None where the pair is no such lattice pair, r < 1, or the
    polynomials would hold more than about ``max_bits`` bits."""
    from .lattice_power import lattice_pair

    if r < 1 or n < 1:
        return None
    lat = lattice_pair(list(P), list(Q))
    if lat is None:
        return None
    R, ks, qs = lat
    kmin, kmax = min(ks), max(ks)
    width = kmax - kmin
    ps = [q / R**kk for kk, q in zip(ks, qs, strict=True)]
    polys = []
    for masses in (qs, ps):
        den = math.lcm(*(m.denominator for m in masses))
        c = [0] * (width + 1)
        for kk, m in zip(ks, masses, strict=True):
            c[kk - kmin] += int(m * den)
        bits = n * max(max(c).bit_length(), den.bit_length()) + n.bit_length() * width
        if bits * (n * width + 1) > max_bits:
            return None
        polys.append((c, den))
    (cq, dq), (cp, dp) = polys
    from flint import fmpz_poly

    qc = (fmpz_poly(cq) ** n).coeffs()
    pc = (fmpz_poly(cp) ** n).coeffs()
    d0 = n * kmin
    # the first index i (exponent d = d0 + i) with R^d > r: a float guess, then exact steps
    try:
        i = max(0, min(n * width + 1, math.floor(
            (math.log(r.numerator) - math.log(r.denominator)) / math.log(R)) - d0))
    except (ValueError, OverflowError):
        i = 0
    while i <= n * width and R ** (d0 + i) <= r:
        i += 1
    while i > 0 and R ** (d0 + i - 1) > r:
        i -= 1
    sq = sum(qc[i:], 0)
    sp_ = sum(pc[i:], 0)
    out = Fraction(int(sq), dq**n) - r * Fraction(int(sp_), dp**n)
    if out < 0:  # (impossible: each term Q(d) (1 - r R^-d) is >= 0)
        raise ArithmeticError(f"lattice_delta_exact: negative delta {out}")
    return out
