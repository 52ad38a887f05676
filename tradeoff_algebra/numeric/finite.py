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

The atoms themselves are materialised in :mod:`.finite_tables` (blocks, products and the
sorted tables with their prefix and suffix sums); the mpmath and Arb routes live in
:mod:`.finite_values` (the base class :class:`~.finite_values.FiniteValues`).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from fractions import Fraction
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, NoClosedForm, NumericalError, brief
from ..core.validate import to_sympy
from . import budget, progress
from .cf_atoms import AtomLaw, BinomialLaw, DeltaLaw, ProductLaw
from .context import ThreadCache, mp
from .finite_tables import (
    _ONE,
    _ZERO,
    _atoms_block,
    _class_block,
    _classes,
    _delta_block,
    _frac,
    _is_zero,
    _kmul,
    _Mode,
    _power_block,
    _product,
    _ratio_key,
    _Table,
    _tick,
    _unit_block,
    _with_delta,
)
from .finite_values import FiniteValues, _sympy_number
from .privacy_loss import AtomLoss, PrivacyLoss, privacy_loss
from .protocol import EXACT_TV_ROUTES, LEVEL_ROUTES, POINT_ROUTES, num
from .value import Value

__all__ = ["FiniteLoss", "finite_loss"]

# Leaves of a FiniteLoss: ("rr", eps) randomized response with ratio e^{+-eps};
# ("delta", d) the three-atom pair of f_{0,d}; ("atoms", ((ratio, P, Q), ...)) a finite pair with
# exact SymPy ratios (S.Infinity for P = 0) and masses.

#: Largest number of atoms for which the symbolic (non-rational) atoms and knots are built.
SYMBOLIC_MAX_ATOMS = 400
#: Largest exact product materialised by the composition routes (``FiniteLoss.affordable``):
#: the number of elementary mass products (pairs of atoms multiplied, binomial terms), scaled
#: by the size of the integers in exact mode. Past it a product goes to the PLD engine
#: (``operators.tensor``) and a single finite object raises :class:`TooLarge` naming it.
MAX_COST = 4_000_000
#: The largest size (bits) of a product's likelihood ratios the cost simulation multiplies: a
#: float mass is a 53-bit rational, and randomized response with a float p composed 1000 times
#: has ratios of 10^5 bits, whose simulation alone took minutes (the routes then compose such a
#: lattice pair in Arb: ``numeric.lattice_power``).
MAX_KEY_BITS = 16_384


#: Seconds per unit of the cost simulation (:meth:`FiniteLoss.cost`) in each arithmetic of a
#: table, a lower bound of the time the table takes: measured on an x86_64 core (Python 3.11,
#: a load of 2.5 on 2 cores) and divided by about three for a faster machine. Exact: randomized
#: response with eps = log 3 composed 2 10^4 times, 3.6 10^6 units (its integers counted in
#: 2048-bit words) in 1.04 s; mpmath at 128 bits, eps = 1/10 composed 10^5 times, 6 10^5 units
#: in 1.6 s (the float atoms) to 2.7 s (the sorted table); Arb, the same in 0.34 s; SymPy, eps =
#: 1/10 composed 300 times, 1870 units in 1.7 s. The routes refuse at once a table whose lower
#: bound exceeds the time left (:meth:`FiniteLoss.ensure_build_time`), and the tables' loops
#: check the deadline (``finite_tables``) where the bound was too low.
SECONDS_PER_UNIT = {"exact": 1e-7, "mp": 1e-6, "arb": 2e-7, "sym": 3e-4}


class TooLarge(NumericalError):
    """The exact product of finite objects is too large to materialise (see :data:`MAX_COST`)."""


#: Charge of one product of keys whose ratio is a SymPy number (irrational e^eps): SymPy
#: multiplies and hashes it about this many times slower than a Fraction.
SYMBOLIC_WEIGHT = 1000
#: Bits of a rational ratio charged as one elementary product by the cost simulation.
WORD_BITS = 32


def _symbolic(keys: set) -> bool:
    return any(not isinstance(k[0], Fraction) and k[0] is not None for k in keys)


def _key_bits(keys: set) -> int:
    """The largest size (bits of numerator and denominator) of the rational ratios of keys."""
    return max((k[0].numerator.bit_length() + k[0].denominator.bit_length()
                for k in keys if isinstance(k[0], Fraction)), default=0)


def _sim_product(A: set, B: set, acc: list, limit: int) -> set:
    """Keys of the product of two blocks (as :func:`_product`), charging |A| |B| to acc[0]
    before forming them (times :data:`SYMBOLIC_WEIGHT` for symbolic ratios, times the ratios'
    size in units of :data:`WORD_BITS` for rational ones: a product of 3^500-sized ratios
    costs ~20 small ones, and the simulation itself multiplies them)."""
    weight = SYMBOLIC_WEIGHT if _symbolic(A) or _symbolic(B) else \
        max(1, (_key_bits(A) + _key_bits(B)) // WORD_BITS)
    acc[0] += len(A) * len(B) * weight
    if acc[0] > limit:
        raise TooLarge("finite product beyond the size limit")
    out = set()
    for ka in A:
        budget.check()  # (symbolic ratio keys: a row can take milliseconds)
        for kb in B:
            out.add(_kmul(ka, kb))
    return out


class FiniteLoss(FiniteValues, PrivacyLoss):
    """The exact discrete privacy-loss representation of a pair (P, Q) of finite distributions.

    Built lazily from leaves with multiplicities (randomized response ``f_{eps,0}``, the
    ``f_{0,delta}`` pair, explicit finite pairs); :meth:`tensor` and :meth:`power` combine the
    multiplicities and the atoms are materialised per arithmetic mode on first use (see the
    module docstring). The trade-off function is ``T(P, Q)`` (Dong, Roth & Su, Def. 2).
    """

    __slots__ = ("_factors", "_cache")

    def __init__(self, factors: dict | None = None):
        self._factors: dict = dict(factors or {})
        # per thread: the tables hold mpf numbers, which compute in the context (thread) that
        # made them (numeric/context.py), and a FiniteLoss is shared through the route caches
        self._cache = ThreadCache()

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

    def exact(self) -> FiniteLoss:
        return self

    def law(self) -> Any:
        """The Arb view for the certified Laplace inversion (``numeric.cf_atoms``): one law per
        leaf, randomized response composed m times by the binomial closed form of its mgf
        (``BinomialLaw``, any m), the f_{0,d} parts as their atom 0 with the mass d at +oo
        (``DeltaLaw``), explicit pairs by their atoms (``AtomLaw``); their product
        (``ProductLaw``) when there are several. None for Id (no factor) or where a parameter
        has no Arb enclosure."""
        parts = []
        try:
            for (kind, x), m in self._factors.items():
                if kind == "rr":
                    parts.append((BinomialLaw(x, m), 1))
                elif kind == "delta":
                    parts.append((DeltaLaw(x), m))
                else:
                    parts.append((AtomLaw(x), m))
        except (ValueError, TypeError):
            return None
        if not parts:
            return None
        return parts[0][0] if len(parts) == 1 and parts[0][1] == 1 else ProductLaw(parts)

    def grid(self) -> AtomLoss:
        """The float view: the materialised atoms (log-ratio, P-mass, Q-mass), from the exact
        table when e^eps is rational, else the 128-bit mpmath table (no SymPy: float or
        irrational eps would make symbolic masses slow); rounded to float64 within ``rel_err``
        (built once per object)."""
        g = self.__dict__.get("_grid")
        if g is None:
            g = self.__dict__["_grid"] = self._float_atoms()
        return g

    def _float_atoms(self) -> AtomLoss:
        """The atoms in float64: from the exact table when the masses are rational and the
        table is :meth:`affordable` (a mass is the correctly rounded quotient of two integers),
        else from the mpmath block at 128 bits (its relative error at most K 2^-128 for K
        operations, far below the float64 rounding that ``rel_err`` covers), not sorted (the
        AtomLoss sorts) and without the table's sums, which the float view does not read."""
        with mp.workprec(128):
            t = self._exact_table() if self.affordable() else None
            if t is not None:
                den = t.den  # (int / int: correctly rounded)
                atoms = ((lg, p / den, q / den) for lg, p, q in zip(t.logs, t.P, t.Q, strict=True))
            else:
                self.ensure_build_time("mp")
                items, _, gens = self._block(_Mode("mp"))
                Lnum = [num(L, "eps") for L, _ in gens]
                atoms = ((_Table._log(key, Lnum), float(p), float(q)) for key, p, q in items)
            ls, ps, qs = [], [], []
            q_inf = p_ninf = 0.0
            for i, (lg, pf, qf) in enumerate(atoms):
                _tick(i)
                if lg == mp.inf:
                    q_inf += qf
                elif lg == mp.ninf:
                    p_ninf += pf
                else:
                    ls.append(float(lg))
                    ps.append(pf)
                    qs.append(qf)
        return AtomLoss(ls, ps, qs, q_inf, p_ninf, rel_err=1e-15)

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

    def leaves(self) -> list[tuple[list[tuple[sp.Expr, sp.Expr]], int]]:
        """The factor pairs and their multiplicities: ``[(pairs, m), ...]`` where ``pairs`` lists
        the (P-mass, Q-mass) of each outcome of one factor (exact SymPy numbers) and the whole
        pair is the product of ``m`` copies of each. Additive functionals (Renyi divergences,
        KL) are sums over the leaves without materialising the product."""
        out = []
        for (kind, x), m in self._factors.items():
            if kind == "rr":  # randomized response: f_{eps,0} (Dong, Roth & Su, Eq. (5))
                E = sp.exp(x)
                pairs = [(E / (1 + E), 1 / (1 + E)), (1 / (1 + E), E / (1 + E))]
            elif kind == "delta":  # f_{0,delta}: (d, 1 - d, 0) against (0, 1 - d, d)
                pairs = [(x, sp.S.Zero), (1 - x, 1 - x), (sp.S.Zero, x)]
            else:
                pairs = [(p, q) for _, p, q in x]
            out.append((pairs, m))
        return out

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

    def _units(self, cap: int, exact: bool) -> int | None:
        """The cost of a table (:meth:`_simulate`, ``exact``: integer masses), or None when it
        exceeds ``cap``; the simulation is remembered (its value, or the cap it exceeded)."""
        key = ("units", exact)
        val, above = self._cache.get(key, (None, 0))
        if val is not None:
            return val if val <= cap else None
        if cap <= above:
            return None
        try:
            val = self._simulate(cap, exact)
        except TooLarge:
            self._cache[key] = (None, cap)
            return None
        self._cache[key] = (val, 0)
        return val

    def ensure_build_time(self, kind: str) -> None:
        """Refuse at once (:func:`.progress.ensure_time`: TimeLimitExceeded naming the time
        limit) a table in arithmetic ``kind`` ('exact', 'mp', 'arb', 'sym') that cannot be
        built in the time left: its cost (:meth:`cost`, simulated without building it, up to
        what the time left affords) times :data:`SECONDS_PER_UNIT`, a lower bound of its time.
        Outside a call or without a limit it does nothing."""
        left = budget.remaining()
        if not math.isfinite(left):
            return
        rate = SECONDS_PER_UNIT[kind]
        cap = max(int(left / rate), 1)
        units = self._units(cap, kind == "exact")
        if units is None:  # more than cap units: more than the time left
            seconds, size = (cap + 1) * rate, f"more than {cap:.3g}"
        else:
            seconds, size = units * rate, f"{units:.3g}"
        progress.ensure_time(seconds, f"the table of {self} ({size} elementary products in "
                             f"{kind} arithmetic)")

    def _simulate(self, limit: int, exact: bool | None = None) -> int:
        """The cost (see :meth:`cost`), scaled by the integers' size in exact arithmetic
        (``exact``: by default when :attr:`is_rational`); :class:`TooLarge` past ``limit``."""
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
            # the simulation itself multiplies the keys: rationals of up to m times their size
            if m * max((k.numerator.bit_length() + k.denominator.bit_length()
                        for k, _ in keys if isinstance(k, Fraction)), default=0) > MAX_KEY_BITS:
                raise TooLarge("finite product beyond the size limit (its likelihood ratios)")
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
        if self.is_rational and exact is not False:
            # integer masses over a common denominator of ``bits`` bits
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
        self.ensure_build_time(mode.kind)
        items, den, gens = self._block(mode)
        return _Table(items, den, gens, mode, prec, self._op_count())

    def arb_items(self, prec: int) -> list | None:
        """The atoms' (P-mass, Q-mass) as Arb balls at ``prec`` bits, in no particular order
        (the blocks built in Arb: binomial recurrences, f_{0,delta} parts by Eq. (11), products
        merged by exact ratio keys), or None where a mass cannot be enclosed or the loss is not
        :meth:`affordable`. For sums over the atoms that need no order (the hockey-stick
        divergence of :meth:`arb_delta`) where the masses are neither rational nor few."""
        block = self._arb_block(prec)
        return None if block is None else [(p, q) for _, p, q in block[0]]

    def _arb_block(self, prec: int) -> tuple | None:
        """(items, generators) of the atoms built in Arb at ``prec`` bits, or None (not
        :meth:`affordable`, or a mass that cannot be enclosed)."""
        from .arb_expr import Unenclosable
        from .context import arb_precision

        if not self.affordable():
            return None
        self.ensure_build_time("arb")
        with arb_precision(prec):
            try:
                items, _, gens = self._block(_Mode("arb"))
            except (Unenclosable, ValueError, ZeroDivisionError):
                return None
        return items, gens

    def arb_ordered(self, prec: int) -> list | None:
        """:meth:`arb_items` by decreasing ratio where the order is exact without numbers: one
        class of randomized-response factors (ratios e^{k L}, L > 0: by the exponent k) with
        f_{0,delta} parts (ratios oo first, 0 last); None otherwise."""
        block = self._arb_block(prec)
        if block is None:
            return None
        items, gens = block
        if len(gens) > 1 or (gens and gens[0][0].is_positive is not True):
            return None

        def rank(key):
            c, e = key
            if c is None:
                return (0, 0)
            if c == 0:
                return (2, 0)
            if c != 1:
                raise LookupError
            return (1, -(e[0] if e else 0))

        try:
            items.sort(key=lambda it: rank(it[0]))
        except LookupError:
            return None
        return [(p, q) for _, p, q in items]

    def _block(self, mode: _Mode) -> tuple:
        """(items, den, gens) of the product block in ``mode``: items (key, P, Q)."""
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
        return items, block[1], gens

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
            out.append((sp.S.Infinity if r is None else r, _closed(p), _closed(q)))
        return out

    def _symbolic_table(self) -> _Table:
        t = self._cache.get("sym")
        if t is None:
            size = self._op_count()
            if size > 4 * SYMBOLIC_MAX_ATOMS:
                raise NoClosedForm(f"{self}: too many atoms for symbolic masses; use the mp_* "
                                   "methods (or rational e^eps for exact ones)")
            for (kind, x), _ in self._factors.items():
                if kind != "rr":
                    continue
                try:  # e^eps too large to compare (eps = 10**400): SymPy's factor never ends
                    to_sympy("eps", sp.exp(x), "")
                except InvalidParameter:
                    raise NoClosedForm(f"{self}: e^eps is too large for symbolic masses "
                                       f"(eps = {brief(x)})") from None
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
            knots = [(_closed(a), _closed(v)) for a, v in knots]
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


# -- the exact view of a privacy loss -----------------------------------------------------------
def finite_loss(f: Any) -> FiniteLoss | None:
    """The exact finite loss of ``f`` (the exact view of its :func:`~.privacy_loss.privacy_loss`),
    or None when ``f`` is not (known to be) finite: a parameter is symbolic, an operand is not
    finite, or the pair is too large to be materialised exactly."""
    pl = privacy_loss(f)
    return None if pl is None else pl.exact()


def _closed(x: sp.Expr) -> sp.Expr:
    """``x`` cancelled and factored, each ``exp(r)`` taken as a generator of its own (an equal
    expression). SymPy's polynomials write exp(r) with r = p/q as exp(1/q)^p: factor of
    (1 + exp(10000000001/10000000000))^-10 ran for hours on a polynomial of degree 10^10."""
    budget.check()
    gens = {e: sp.Dummy("e") for e in x.atoms(sp.exp)}
    y = sp.factor(sp.cancel(x.xreplace(gens)))
    return y.xreplace({d: e for e, d in gens.items()}) if gens else y


def _finite_point(f: Any, A: sp.Expr, dps: int, power: bool) -> Value | None:
    """f(A) (``power``: 1 - f(A)) from the exact finite loss of f in Arb
    (:meth:`.finite.FiniteLoss.arb_value`), a certified point, or None. ``A`` is rational or an
    irrational closed form (taken as its Arb enclosure)."""
    from .arb_expr import arb_ball, ball_point
    from .context import arb_precision

    fl = finite_loss(f)
    if fl is None or not fl.affordable():
        return None

    def make_ball(prec):
        if isinstance(A, sp.Rational):
            level = A
        else:
            with arb_precision(prec):
                try:
                    level = arb_ball(A)
                except ValueError:
                    return None
        ball = fl.arb_value(level, power, prec)
        return ball if ball is not None and ball.is_finite() else None

    v = ball_point(make_ball, dps, 1 << 13, unit=True)
    return None if v is None else v.routed("exact finite composition in Arb")


POINT_ROUTES.append(_finite_point)
LEVEL_ROUTES.append(_finite_point)


def _finite_tv(f: Any) -> sp.Rational | None:
    """delta_f(0) = sum_r (Q_r - P_r)_+ exactly from the finite loss of f, or None."""
    fl = finite_loss(f)
    return fl.delta_exact(1) if fl is not None and fl.affordable() else None


EXACT_TV_ROUTES.append(_finite_tv)
