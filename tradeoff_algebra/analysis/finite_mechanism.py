"""Mechanisms on a finite universe with exact output laws, and the operations the theorems
about mechanisms quantify over.

A :class:`FiniteMechanism` maps a dataset — a tuple of ``size`` records of a finite
``universe`` — to an exact finite distribution of outputs (a dict ``output -> Fraction``, the
probabilities exact rationals summing to exactly 1). Two datasets are **neighbours** when they
differ in exactly one position (replace-one adjacency, Dong, Roth & Su, Sec. 2). A mechanism
is f-DP when ``T(M(S), M(S')) >= f`` for every pair of neighbours (Dong, Roth & Su, Def. 3);
:meth:`FiniteMechanism.pair` gives the two output laws aligned on one list of outputs, so that
``Discrete(*M.pair(S, S'))`` is that trade-off function as the library's exact finite pair
(this module, in ``analysis/``, names no family: the caller builds the node).

The operations, each computing the output law of the new mechanism from the definitions:

* :func:`adaptive` — adaptive composition, ``S -> (y_1, y_2)`` with ``y_1 ~ M_1(S)`` and
  ``y_2 ~ M_2(S, y_1)`` (Dong, Roth & Su, Eq. (8); the second mechanism is chosen by the first
  output); :func:`adaptive_chain` composes several;
* :func:`subsample` — ``M o Sample_m`` on ``X^n``: a uniformly random m-subset of the n
  positions fed to a mechanism on ``X^m`` (Dong, Roth & Su, Sec. 4.1), in a uniformly random
  order (a subset has none) or in the positions' order;
* :func:`post_process` — a randomised map (a kernel ``y -> law of z``) applied to the output
  (Dong, Roth & Su, Lemma 1 and Prop. 4);
* :func:`group_pairs` — the endpoints ``(S_0, S_k)`` of chains of k neighbours
  ``S_0, S_1, ..., S_k`` (Dong, Roth & Su, Thm. 3: groups of size k).

:func:`envelope` is the largest trade-off function ``f`` for which the given mechanisms are all
f-DP: the lower convex hull of the Neyman--Pearson knots of every neighbouring pair (the
pointwise infimum of the ``T(M(S), M(S'))`` is non-increasing and continuous; its convex
minorant is the largest trade-off function below it), as the exact knots of a
``PiecewiseLinear``.
:func:`random_mechanism` and :func:`random_kernel` build seeded mechanisms and kernels with
random rational laws, for checking theorems that quantify over all mechanisms.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter
from ..numeric.knots import lower_hull

__all__ = ["FiniteMechanism", "Law", "as_law", "aligned", "adaptive", "adaptive_chain",
           "subsample", "post_process",
           "group_pairs", "neighbours", "envelope", "np_knots", "random_mechanism",
           "random_kernel", "MAX_DATASETS"]

#: An exact finite distribution: output -> probability (positive Fractions summing to 1).
Law = dict
#: The largest number of datasets a mechanism may have (``len(universe) ** size``).
MAX_DATASETS = 4096


def _fraction(name: str, x: Any) -> Fraction:
    if isinstance(x, bool):
        raise InvalidParameter(name, x, "an exact rational probability in [0, 1]")
    if isinstance(x, (int, Fraction)):
        v = Fraction(x)
    elif isinstance(x, sp.Rational):
        v = Fraction(int(x.p), int(x.q))
    else:
        raise InvalidParameter(name, x, "an exact rational probability in [0, 1] (int, "
                               "Fraction or SymPy Rational; floats are not exact laws)")
    if not 0 <= v <= 1:
        raise InvalidParameter(name, x, "an exact rational probability in [0, 1]")
    return v


def as_law(name: str, law: Any) -> Law:
    """``law`` validated as an exact distribution: a mapping from hashable outputs to exact
    rationals in [0, 1] summing to exactly 1; zero entries are dropped."""
    if not isinstance(law, Mapping) or not law:
        raise InvalidParameter(name, law, "a non-empty mapping output -> exact probability")
    out: Law = {}
    for y, w in law.items():
        v = _fraction(f"{name}[{y!r}]", w)
        if v:
            out[y] = v
    total = sum(out.values(), Fraction(0))
    if total != 1:
        raise InvalidParameter(name, law, f"probabilities summing to exactly 1 (they sum to "
                               f"{total})")
    return out


class FiniteMechanism:
    """A mechanism on the datasets ``universe ** size`` with exact output laws.

    ``law(S)`` returns the distribution of ``M(S)`` as a mapping ``output -> probability``
    (exact rationals); it is validated and memoised per dataset.

    >>> rr = FiniteMechanism((0, 1), 1, lambda S: {S[0]: Fraction(3, 4), 1 - S[0]: Fraction(1, 4)})
    >>> rr((1,))
    {1: Fraction(3, 4), 0: Fraction(1, 4)}
    """

    def __init__(self, universe: Sequence[Hashable], size: int,
                 law: Callable[[tuple], Mapping[Any, Any]], name: str = "M") -> None:
        if isinstance(universe, (str, bytes)) or not isinstance(universe, Sequence):
            raise InvalidParameter("universe", universe, "a sequence of distinct records")
        universe = tuple(universe)
        if not universe or len(set(universe)) != len(universe):
            raise InvalidParameter("universe", universe, "a non-empty sequence of distinct "
                                   "records")
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise InvalidParameter("size", size, "an integer >= 1")
        if len(universe) ** size > MAX_DATASETS:
            raise InvalidParameter("size", size, f"at most {MAX_DATASETS} datasets "
                                   f"(len(universe) ** size = {len(universe)}**{size})")
        if not callable(law):
            raise InvalidParameter("law", law, "a function dataset -> output law")
        self.universe, self.size, self.name = universe, size, name
        self._law, self._memo = law, {}

    def __repr__(self) -> str:
        return f"FiniteMechanism({self.name}, universe={self.universe}, size={self.size})"

    def _dataset(self, data: Any) -> tuple:
        S = tuple(data) if isinstance(data, (tuple, list)) else None
        if S is None or len(S) != self.size or any(x not in self.universe for x in S):
            raise InvalidParameter("data", data, f"a tuple of {self.size} records of the "
                                   f"universe {self.universe}")
        return S

    def __call__(self, data: Sequence[Hashable]) -> Law:
        """The exact law of ``M(data)``."""
        S = self._dataset(data)
        if S not in self._memo:
            self._memo[S] = as_law(f"{self.name}({S})", self._law(S))
        return dict(self._memo[S])

    def datasets(self) -> Iterator[tuple]:
        """Every dataset, ``universe ** size``."""
        return itertools.product(self.universe, repeat=self.size)

    def neighbours(self) -> Iterator[tuple[tuple, tuple]]:
        """Every ordered pair of datasets differing in exactly one position."""
        return neighbours(self.universe, self.size)

    def pair(self, S: Sequence[Hashable],
             S2: Sequence[Hashable]) -> tuple[list[Fraction], list[Fraction]]:
        """The laws of ``M(S)`` and ``M(S2)`` as two lists over the union of their supports
        (in first-seen order): ``Discrete(*M.pair(S, S2))`` is ``T(M(S), M(S2))``."""
        return aligned(self(S), self(S2))

    def outputs(self) -> list:
        """Every output with positive probability on some dataset (in first-seen order)."""
        seen: dict = {}
        for S in self.datasets():
            for y in self(S):
                seen.setdefault(y, None)
        return list(seen)


def aligned(P: Law, Q: Law) -> tuple[list[Fraction], list[Fraction]]:
    """Two laws as lists over the union of their supports (first-seen order)."""
    keys = list(dict.fromkeys([*P, *Q]))
    return [P.get(y, Fraction(0)) for y in keys], [Q.get(y, Fraction(0)) for y in keys]


def neighbours(universe: Sequence[Hashable], size: int) -> Iterator[tuple[tuple, tuple]]:
    """Every ordered pair ``(S, S')`` of ``universe ** size`` differing in one position."""
    for S in itertools.product(universe, repeat=size):
        for i in range(size):
            for x in universe:
                if x != S[i]:
                    yield S, S[:i] + (x,) + S[i + 1:]


def group_pairs(universe: Sequence[Hashable], size: int, k: int) -> list[tuple[tuple, tuple]]:
    """The distinct endpoints ``(S_0, S_k)``, ``S_0 != S_k``, of chains ``S_0, ..., S_k`` in
    which consecutive datasets are neighbours (Dong, Roth & Su, Thm. 3, groups of size k)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidParameter("k", k, "an integer >= 1")
    nbr: dict[tuple, list[tuple]] = {}
    for S, S2 in neighbours(universe, size):
        nbr.setdefault(S, []).append(S2)
    out = set()
    for S0 in itertools.product(universe, repeat=size):
        reach = {S0}
        for _ in range(k):
            reach = {T for S in reach for T in nbr.get(S, ())}
        out |= {(S0, T) for T in reach if T != S0}
    return sorted(out, key=repr)


def _same_domain(first: FiniteMechanism, other: FiniteMechanism, name: str) -> None:
    if not isinstance(other, FiniteMechanism):
        raise InvalidParameter(name, other, "a FiniteMechanism")
    if other.universe != first.universe or other.size != first.size:
        raise InvalidParameter(name, other, f"a mechanism on the datasets of {first!r}")


def adaptive(first: FiniteMechanism, second: Callable[[Any], FiniteMechanism]) -> FiniteMechanism:
    """The adaptive composition ``S -> (y_1, y_2)``, ``y_1 ~ first(S)``,
    ``y_2 ~ second(y_1)(S)`` (Dong, Roth & Su, Eq. (8)): its law is
    ``P(y_1, y_2) = first(S)[y_1] * second(y_1)(S)[y_2]``."""
    if not isinstance(first, FiniteMechanism):
        raise InvalidParameter("first", first, "a FiniteMechanism")
    if not callable(second):
        raise InvalidParameter("second", second, "a function first output -> FiniteMechanism")
    chosen: dict = {}

    def step(y):
        if y not in chosen:
            M2 = second(y)
            _same_domain(first, M2, f"second({y!r})")
            chosen[y] = M2
        return chosen[y]

    def law(S):
        out: Law = {}
        for y1, w1 in first(S).items():
            for y2, w2 in step(y1)(S).items():
                out[(y1, y2)] = out.get((y1, y2), Fraction(0)) + w1 * w2
        return out

    return FiniteMechanism(first.universe, first.size, law, f"({first.name}; adaptive)")


def adaptive_chain(first: FiniteMechanism,
                   steps: Sequence[Callable[[tuple], FiniteMechanism]]) -> FiniteMechanism:
    """``first`` followed by each of ``steps`` adaptively: step j sees the tuple of all earlier
    outputs and returns the mechanism to run; the output is the tuple of every output."""
    M = FiniteMechanism(first.universe, first.size, lambda S: {(y,): w for y, w in
                                                               first(S).items()}, first.name)
    for step in steps:
        M = _flatten(adaptive(M, step))
    return M


def _flatten(M: FiniteMechanism) -> FiniteMechanism:
    def law(S):
        return {(*ys, y): w for (ys, y), w in M(S).items()}
    return FiniteMechanism(M.universe, M.size, law, M.name)


def subsample(mech: FiniteMechanism, n: int, order: str = "random") -> FiniteMechanism:
    """``M o Sample_m`` on ``universe ** n`` for ``M`` on ``universe ** m`` (m = ``mech.size``):
    a uniformly random m-subset of the n positions (Dong, Roth & Su, Sec. 4.1) handed to M.

    A subset has no order, and M reads a tuple: ``order="random"`` (the default) hands the
    subset over in a uniformly random order (the law is the average of ``M(S_I)`` over the
    ``n!/(n-m)!`` ordered m-tuples ``I`` of distinct positions), which is ``M`` symmetrised
    applied to the subset; ``order="kept"`` keeps the positions' order (the average over the
    ``C(n, m)`` increasing tuples). The two agree when M is symmetric in its records. With the
    order kept, an order-dependent M is not C_{m/n}(f)-DP in general (the coupling behind
    Dong, Roth & Su, Lemma 2, pairs subsets that differ in one record but not at one
    position)."""
    if not isinstance(mech, FiniteMechanism):
        raise InvalidParameter("mech", mech, "a FiniteMechanism")
    m = mech.size
    if isinstance(n, bool) or not isinstance(n, int) or n < m:
        raise InvalidParameter("n", n, f"an integer >= the mechanism's size m = {m}")
    if order not in ("random", "kept"):
        raise InvalidParameter("order", order, "'random' or 'kept'")
    if order == "kept":
        tuples = list(itertools.combinations(range(n), m))
    else:
        tuples = list(itertools.permutations(range(n), m))
    w = Fraction(1, len(tuples))

    def law(S):
        out: Law = {}
        for idx in tuples:
            for y, p in mech(tuple(S[i] for i in idx)).items():
                out[y] = out.get(y, Fraction(0)) + w * p
        return out

    return FiniteMechanism(mech.universe, n, law, f"{mech.name} o Sample_{m}")


def post_process(mech: FiniteMechanism,
                 kernel: Callable[[Any], Mapping[Any, Any]]) -> FiniteMechanism:
    """The mechanism ``S -> K(M(S))`` for a randomised map ``K`` (``kernel(y)`` the law of
    ``K(y)``, independent of the data): ``P(z) = sum_y M(S)[y] K(y)[z]``."""
    if not isinstance(mech, FiniteMechanism):
        raise InvalidParameter("mech", mech, "a FiniteMechanism")
    if not callable(kernel):
        raise InvalidParameter("kernel", kernel, "a function output -> law of the new output")

    def law(S):
        out: Law = {}
        for y, p in mech(S).items():
            for z, q in as_law(f"kernel({y!r})", kernel(y)).items():
                out[z] = out.get(z, Fraction(0)) + p * q
        return out

    return FiniteMechanism(mech.universe, mech.size, law, f"K o {mech.name}")


def np_knots(P: Law, Q: Law) -> list[tuple[Fraction, Fraction]]:
    """The Neyman--Pearson knots ``(alpha, beta)`` of ``T(P, Q)``: outcomes rejected in
    decreasing order of ``Q/P`` (ties merged), from ``(0, 1 - Q(P = 0))`` to ``(1, 0)``."""
    keys = set(P) | set(Q)
    classes: dict = {}
    for y in keys:
        p, q = P.get(y, Fraction(0)), Q.get(y, Fraction(0))
        r = Fraction(-1) if p == 0 else q / p  # -1 stands for infinity (P = 0 < Q) first
        cp, cq = classes.get(r, (Fraction(0), Fraction(0)))
        classes[r] = (cp + p, cq + q)
    order = sorted(classes, key=lambda r: (r != -1, -r))
    a, b = Fraction(0), Fraction(1)
    out = []
    for r in order:
        cp, cq = classes[r]
        a, b = a + cp, b - cq
        if r == -1:
            out.append((a, b))
            continue
        if not out:
            out.append((Fraction(0), Fraction(1)))
        out.append((a, b))
    return out


def envelope(*mechs: FiniteMechanism) -> list[tuple[Fraction, Fraction]]:
    """The knots ``(alpha, f(alpha))`` of the largest trade-off function f with every
    mechanism f-DP: the lower convex hull of the Neyman--Pearson knots of ``T(M(S), M(S'))``
    over every neighbouring pair (and ``(1, 0)``), exact; ``PiecewiseLinear(envelope(M))`` is
    the node."""
    if not mechs:
        raise InvalidParameter("mechs", mechs, "at least one FiniteMechanism")
    pts: list[tuple[Fraction, Fraction]] = [(Fraction(1), Fraction(0))]
    for M in mechs:
        if not isinstance(M, FiniteMechanism):
            raise InvalidParameter("mechs", M, "FiniteMechanism objects")
        for S, S2 in M.neighbours():
            pts += np_knots(M(S), M(S2))
    # the hull's points at alpha = 0: keep the lowest
    low0 = min(b for a, b in pts if a == 0)
    pts = [(a, b) for a, b in pts if a > 0 or b == low0]
    return list(lower_hull(sorted(set(pts))))


def _random_law(rng: random.Random, outputs: Sequence[Hashable], denominator: int,
                zeros: bool) -> Law:
    lo = 0 if zeros else 1
    while True:
        w = [rng.randint(lo, denominator) for _ in outputs]
        if sum(w):
            break
    t = sum(w)
    return {y: Fraction(x, t) for y, x in zip(outputs, w, strict=True) if x}


def random_mechanism(universe: Sequence[Hashable], size: int, outputs: Sequence[Hashable],
                     seed: int, denominator: int = 6, zeros: bool = False) -> FiniteMechanism:
    """A mechanism whose law on each dataset is drawn once from ``random.Random(seed)``:
    integer weights in ``[1, denominator]`` (``[0, denominator]`` with ``zeros``) on
    ``outputs``, normalised exactly."""
    if isinstance(denominator, bool) or not isinstance(denominator, int) or denominator < 1:
        raise InvalidParameter("denominator", denominator, "an integer >= 1")
    outputs = tuple(outputs)
    if not outputs:
        raise InvalidParameter("outputs", outputs, "a non-empty sequence of outputs")
    rng = random.Random(seed)
    table = {S: _random_law(rng, outputs, denominator, zeros)
             for S in itertools.product(tuple(universe), repeat=size)}
    return FiniteMechanism(universe, size, lambda S: table[S], f"random[{seed}]")


def random_kernel(inputs: Sequence[Hashable], outputs: Sequence[Hashable], seed: int,
                  denominator: int = 6) -> Callable[[Any], Law]:
    """A randomised map ``inputs -> law on outputs`` drawn once from ``random.Random(seed)``
    (weights in ``[0, denominator]``, normalised exactly)."""
    rng = random.Random(seed)
    outputs = tuple(outputs)
    table = {y: _random_law(rng, outputs, denominator, True) for y in inputs}

    def kernel(y):
        if y not in table:
            raise InvalidParameter("y", y, f"one of the kernel's inputs {tuple(table)}")
        return table[y]

    return kernel
