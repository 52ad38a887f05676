"""The cost of materialising a finite privacy loss, simulated without building it.

:class:`~.finite.FiniteLoss` composes exactly by materialising its atoms (:mod:`.finite_tables`);
the routes must know beforehand whether that is affordable and how long it takes. The base class
:class:`FiniteCost` answers from the loss's leaves alone: :meth:`FiniteCost.cost` counts the
elementary mass products the table needs (binomial terms of each class of randomized-response
factors, pairs of atoms of each power of an explicit pair, the product of the blocks), simulating
the key sets of the products (exact ratio keys, :func:`.finite_tables._kmul`) and abandoning the
simulation past a limit, scaled by the size of the integers in exact arithmetic;
:meth:`FiniteCost.affordable` compares it with :data:`MAX_COST`, and
:meth:`FiniteCost.ensure_build_time` refuses at once a table whose cost, times a lower bound of
the seconds per unit (:data:`SECONDS_PER_UNIT`), exceeds the time left.

Why the count bounds the work: a product of two blocks of sizes |A| and |B| forms |A| |B| mass
products and at most that many keys; binary powering of a block squares and multiplies blocks
whose key sets the simulation forms exactly as the table would, so the charged sum is the number
of products the table forms (times the word count of the integers in exact arithmetic).
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp

from ..core.errors import NumericalError
from . import budget, progress
from .finite_tables import _ONE, _ZERO, _classes, _kmul, _ratio_key

__all__ = ["FiniteCost", "MAX_COST", "MAX_KEY_BITS", "SECONDS_PER_UNIT", "TooLarge"]

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


#: Relative gap of two ratio keys' 20-digit values above which they are distinct numbers.
DISTINCT_RTOL = 1e-9


def _distinct_positive(keys: set) -> int:
    """How many numerically distinct finite positive ratios the keys hold (at most 2 counted):
    Fractions compared exactly, SymPy numbers by their 20-digit values (``evalf``), two taken as
    distinct only where they differ by more than :data:`DISTINCT_RTOL` relatively. With two
    distinct ratios r < s the m-fold product of the pair holds the m + 1 distinct ratios
    r^j s^(m - j), so its key set has at least m + 1 members (:meth:`FiniteCost._simulate`'s
    refusal before any product is formed)."""
    vals: list[float] = []
    for c, e in keys:
        if c is None or e:
            continue
        if isinstance(c, Fraction):
            v = float(c) if c > 0 else 0.0
        else:
            try:
                v = float(sp.N(c, 20))
            except (TypeError, ValueError):
                continue
        if not (v > 0 and math.isfinite(v)):
            continue
        if any(abs(v - w) <= DISTINCT_RTOL * max(v, w) for w in vals):
            continue
        vals.append(v)
        if len(vals) >= 2:
            break
    return len(vals)


def _lattice_keys(keys: set) -> tuple[int, int, set] | None:
    """(p, q, exponents) when every key is (r, ()) with r = (p/q)^k, p > q > 0 coprime integers
    and k an integer (found in floats, each power proved exactly), else None: the keys of a pair
    whose likelihood ratios lie on one lattice (randomized response with rational e^eps)."""
    cs = [k[0] for k in keys]
    if not cs or any(k[1] or not isinstance(k[0], Fraction) or k[0] <= 0 for k in keys):
        return None
    logs = [math.log(c.numerator) - math.log(c.denominator) for c in cs]
    steps = [abs(x) for x in logs if abs(x) > 1e-12]
    if not steps:
        return None
    i = min(range(len(cs)), key=lambda j: abs(logs[j]) if abs(logs[j]) > 1e-12 else math.inf)
    base = cs[i] if cs[i] > 1 else 1 / cs[i]
    exps = set()
    for c, x in zip(cs, logs, strict=True):
        k = round(x / abs(logs[i]))
        if abs(x / abs(logs[i]) - k) > 1e-6 or base ** k != c:
            return None
        exps.add(k)
    return base.numerator, base.denominator, exps


def _sim_lattice_product(A: set, B: set, bits, acc: list, limit: int) -> set:
    """:func:`_sim_product` on lattice keys held as their exponents (:func:`_lattice_keys`): the
    same charge (the ratios' sizes from ``bits(k)``, the size of (p/q)^k), the product's keys the
    sumset of the exponents (a range where both are ranges)."""
    weight = max(1, (max(map(bits, (min(A), max(A)))) + max(map(bits, (min(B), max(B)))))
                 // WORD_BITS)
    acc[0] += len(A) * len(B) * weight
    if acc[0] > limit:
        raise TooLarge("finite product beyond the size limit")
    a0, a1, b0, b1 = min(A), max(A), min(B), max(B)
    if len(A) == a1 - a0 + 1 and len(B) == b1 - b0 + 1:
        return set(range(a0 + b0, a1 + b1 + 1))
    out = set()
    for ka in A:
        budget.check()
        out.update(ka + kb for kb in B)
    return out


class FiniteCost:
    """The cost simulation of a finite loss (module docstring); the subclass
    :class:`~.finite.FiniteLoss` holds ``_factors`` (its leaves with multiplicities), ``_cache``
    and :attr:`~.finite.FiniteLoss.is_rational`."""

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
            if m + 1 > limit and _distinct_positive(keys) >= 2:
                # (the m-fold product holds at least m + 1 keys, each charged before it is
                # formed: refused before any SymPy product of symbolic ratios, seconds)
                raise TooLarge("finite product beyond the size limit (at least "
                               f"{m + 1:.3g} ratios)")
            # the simulation itself multiplies the keys: rationals of up to m times their size
            if m * max((k.numerator.bit_length() + k.denominator.bit_length()
                        for k, _ in keys if isinstance(k, Fraction)), default=0) > MAX_KEY_BITS:
                raise TooLarge("finite product beyond the size limit (its likelihood ratios)")
            lat = _lattice_keys(keys)
            if lat is not None:  # (the same charges, on exponents: no rationals multiplied)
                p, q, exps = lat

                def bits(k: int, p=p, q=q) -> int:
                    return (p ** abs(k)).bit_length() + (q ** abs(k)).bit_length()

                result, base, n = {0}, exps, m
                while n:
                    if n & 1:
                        result = _sim_lattice_product(result, base, bits, acc, limit)
                    n >>= 1
                    if n:
                        base = _sim_lattice_product(base, base, bits, acc, limit)
                sizes.append(len(result))
                continue
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
