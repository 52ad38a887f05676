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
:mod:`.finite_values` (the base class :class:`~.finite_values.FiniteValues`), the cost of a
table, simulated without building it, in :mod:`.finite_cost` (the base class
:class:`~.finite_cost.FiniteCost`). Randomized response composed n times (with f_{0,delta}
parts) has a closed-form profile (``numeric.binomial_profile``, :meth:`FiniteLoss.binomial_form`),
which delta takes before a costly table. Where the masses are irrational, the Arb routes read
the atoms' balls by decreasing ratio without an mpmath table wherever the order is proved
without it (:meth:`FiniteLoss.arb_ordered`): one class of randomized-response factors by its
exponents, products on two or more incommensurate lattices (``numeric.lattice2d``), and pairs
built in a proved order (f_p and C_p(f) of a finite f, ``numeric.finite_subsample``); such a
loss answers eps(delta) from those balls too (:meth:`FiniteLoss.arb_first`).
"""

from __future__ import annotations

from bisect import bisect_left
from fractions import Fraction
from typing import Any

import sympy as sp

# (SymPy's Add.flatten imports sympy.tensor.tensor, with sympy.combinatorics, at its first call:
# about 22 ms of CPU. The exact finite tables build SymPy sums (the masses e^eps/(1 + e^eps) of
# randomized response), so that import is taken here, with the package's, and not inside the
# first query: eps(1e-6) of f_{1/10,0}^10 took 26 ms of which 22 were this import.)
import sympy.tensor.tensor  # noqa: F401  (isort: skip)

from ..core.errors import InvalidParameter, NoClosedForm, brief
from ..core.validate import to_sympy
from . import budget
from .cf_atoms import AtomLaw, BinomialLaw, DeltaLaw, ProductLaw
from .context import ThreadCache, mp
from .finite_cost import MAX_COST, MAX_KEY_BITS, SECONDS_PER_UNIT, FiniteCost, TooLarge
from .finite_tables import (
    _atoms_block,
    _class_block,
    _classes,
    _delta_block,
    _frac,
    _is_zero,
    _Mode,
    _power_block,
    _product,
    _Table,
    _tick,
    _unit_block,
    _with_delta,
)
from .finite_values import FiniteValues, _sympy_number
from .lattice2d import has_order, ordered_balls
from .privacy_loss import AtomLoss, PrivacyLoss, privacy_loss
from .protocol import EXACT_TV_ROUTES, LEVEL_ROUTES, POINT_ROUTES, num
from .value import Value

__all__ = ["FiniteLoss", "finite_loss", "arb_point", "MAX_COST", "MAX_KEY_BITS", "SECONDS_PER_UNIT",
           "TooLarge"]

# Leaves of a FiniteLoss: ("rr", eps) randomized response with ratio e^{+-eps};
# ("delta", d) the three-atom pair of f_{0,d}; ("atoms", ((ratio, P, Q), ...)) a finite pair with
# exact SymPy ratios (S.Infinity for P = 0) and masses.

#: Largest number of atoms for which the symbolic (non-rational) atoms and knots are built.
SYMBOLIC_MAX_ATOMS = 400

class FiniteLoss(FiniteValues, FiniteCost, PrivacyLoss):
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
    def from_atoms(cls, atoms: Any, ordered: bool = False) -> FiniteLoss:
        """The loss given by its atoms ``(ratio, P-mass, Q-mass)``: exact SymPy numbers, distinct
        ratios (``S.Infinity`` for P-mass 0), masses summing to 1 on each side (not checked).
        ``ordered``: the caller proves the atoms are given by strictly decreasing ratio (the
        mixed and subsampled pairs of ``numeric.finite_subsample``, by construction), so their
        Arb balls are read in that order without comparing ratios (:meth:`arb_ordered`)."""
        out = cls({("atoms", tuple((sp.S(r), sp.S(p), sp.S(q)) for r, p, q in atoms)): 1})
        if ordered:
            out.__dict__["_ordered"] = True
        return out

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

    def binomial_form(self) -> tuple | None:
        """(eps0, n, deltas) when this is f_{eps0,0}^{(x) n} (x) f_{0,d_1}^{(x) m_1} (x) ...:
        one randomized-response leaf (eps0 > 0, n >= 1) and f_{0,delta} leaves ``deltas`` =
        ((d, m), ...) with numeric d; else None. Its profile has a closed form
        (``numeric.binomial_profile``; :meth:`closed_delta`)."""
        rr = [(x, m) for (k, x), m in self._factors.items() if k == "rr"]
        rest = [(x, m) for (k, x), m in self._factors.items() if k == "delta"]
        if len(rr) != 1 or len(rr) + len(rest) != len(self._factors):
            return None
        (eps0, n), = rr
        if eps0.is_positive is not True or eps0.free_symbols or n < 1:
            return None
        return eps0, int(n), tuple(rest)

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

    def singular_leaves(self) -> list[tuple[sp.Expr, int]]:
        """Each factor's Q-mass where P = 0 (exact) and its multiplicity, ``[(q_oo, m), ...]``,
        the factors whose singular mass is 0 left out: randomized response has none (both its
        masses are positive), f_{0,delta} has delta (Dong, Roth & Su, Eq. (11)), an explicit
        pair the sum of its atoms' Q-masses with P-mass 0. The same numbers as from
        :meth:`leaves`, without forming randomized response's masses e^eps/(1 + e^eps) in
        SymPy."""
        out = []
        for (kind, x), m in self._factors.items():
            if kind == "rr":
                continue
            q = x if kind == "delta" else sp.Add(*[q for _, p, q in x if p == 0])
            if q != 0:
                out.append((q, int(m)))
        return out

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
        f_{0,delta} parts (ratios oo first, 0 last); atoms given in a proved order
        (:meth:`from_atoms` with ``ordered``); None otherwise."""
        if self.__dict__.get("_ordered"):
            return self._given_order(prec)
        if self._lattices():
            out = ordered_balls(self, prec)
            if out is not None:
                return out
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

    def _lattices(self) -> bool:
        """Might the factors lie on two or more lattices (``numeric.lattice2d``: explicit pairs
        with randomized response or other pairs, no f_{0,delta} part)? A cheap test on the
        leaves' kinds; the module decides."""
        kinds = [k for k, _ in self._factors]
        return "delta" not in kinds and "atoms" in kinds and len(kinds) >= 2

    def arb_first(self) -> bool:
        """Are the Arb routes the cheaper ones for this loss (the ordered balls of several
        lattices, or of a pair built in a proved order), where the mpmath table would sort
        every atom in mpmath?"""
        if self.is_rational:
            return False
        return bool(self.__dict__.get("_ordered")) or (
            self._lattices() and has_order(self))

    def _given_order(self, prec: int) -> list | None:
        """The Arb balls of the masses of a loss built with ``ordered`` (one explicit pair),
        in the order given; None where a mass has no enclosure."""
        from .arb_expr import Unenclosable, arb_enclose

        ((_, atoms), m), = self._factors.items()
        if m != 1:  # (a power of the pair: its atoms are no longer the ones given)
            return None
        out = []
        try:
            for i, (_, p, q) in enumerate(atoms):
                _tick(i)
                if p == 0 and q == 0:
                    continue
                out.append((arb_enclose(p, prec=prec), arb_enclose(q, prec=prec)))
        except (Unenclosable, ValueError, ZeroDivisionError):
            return None
        return out

    def raw_atoms(self, max_atoms: int) -> list | None:
        """(ratio, P-mass, Q-mass) by decreasing ratio, equal ratios merged, exact SymPy numbers
        (``oo`` for P-mass 0) as the table holds them (rationals, or closed forms in e^eps not
        cancelled: :meth:`atoms` factors each one), or None beyond ``max_atoms`` atoms. Raises
        NoClosedForm where no exact or symbolic table can be built."""
        t = self._exact_table()
        if t is None:
            t = self._symbolic_table()
        if len(t.keys) > max_atoms:
            return None
        if t.mode.kind == "exact":
            return [(r, p, q) for r, p, q in self.atoms()]
        out = []
        for k, p, q in zip(t.keys, t.P, t.Q, strict=True):
            r = t.exact_ratio(k)
            out.append((sp.S.Infinity if r is None else sp.S(r), p, q))
        return out

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
    fl = finite_loss(f)
    if fl is None or not fl.affordable():
        return None
    return arb_point(fl, A, dps, power, "exact finite composition in Arb")


def arb_point(values: Any, A: sp.Expr, dps: int, power: bool, route: str) -> Value | None:
    """f(A) (``power``: 1 - f(A)) as a certified point from ``values.arb_value(level, power,
    prec)`` (a finite loss's Arb reader: the maximum of its segments' lines), at rising
    precision; ``A`` rational or an irrational closed form (taken as its Arb enclosure); None
    where no ball is finite. ``route`` names it in ``Value.route``."""
    from .arb_expr import arb_ball, ball_point
    from .context import arb_precision

    def make_ball(prec):
        if isinstance(A, sp.Rational):
            level = A
        else:
            with arb_precision(prec):
                try:
                    level = arb_ball(A)
                except ValueError:
                    return None
        ball = values.arb_value(level, power, prec)
        return ball if ball is not None and ball.is_finite() else None

    v = ball_point(make_ball, dps, 1 << 13, unit=True)
    return None if v is None else v.routed(route)


POINT_ROUTES.append(_finite_point)
LEVEL_ROUTES.append(_finite_point)


def _finite_tv(f: Any) -> sp.Rational | None:
    """delta_f(0) = sum_r (Q_r - P_r)_+ exactly from the finite loss of f, or None."""
    fl = finite_loss(f)
    return fl.delta_exact(1) if fl is not None and fl.affordable() else None


EXACT_TV_ROUTES.append(_finite_tv)
