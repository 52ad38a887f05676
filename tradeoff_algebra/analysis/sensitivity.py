"""Sensitivities of queries, exactly, by enumerating the datasets of a finite universe.

A query maps a dataset to a real number or a vector of reals (exact: integers, rationals or
SymPy numbers). Datasets are

* ``"add_remove"``: multisets over the universe of size at most ``n`` (sorted tuples); two are
  adjacent when one is the other with one element added;
* ``"replace"``: tuples of length exactly ``n`` (ordered, so a query may depend on positions);
  two are adjacent when they differ in one position.

:func:`sensitivity` is the largest ``||f(x) - f(y)||_p`` over adjacent pairs (Dwork, Def. 3.2:
``p = 1, 2``; Kaissis et al., Eq. (2)), :func:`lipschitz_constant` the largest
``||f(x) - f(y)||_p / d(x, y)`` over all pairs of distinct datasets, with d the path metric of
the adjacency graph (Kaissis et al., Def. 1, Eq. (1)); :func:`dataset_distance` is that metric in
closed form (the size of the multiset symmetric difference, or the Hamming distance of tuples).
Both answers are exact SymPy numbers, with a pair attaining them. Queries of the papers:
:func:`counting_query`, :func:`histogram_query`, :func:`distance_to_set` (Dwork, footnote 3).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import sympy as sp

from ..core.errors import InvalidParameter, NumericalError

__all__ = ["datasets", "adjacent_pairs", "dataset_distance", "sensitivity",
           "lipschitz_constant", "counting_query", "histogram_query", "distance_to_set",
           "ADJACENCIES", "MAX_DATASETS"]

#: The adjacency relations.
ADJACENCIES = ("add_remove", "replace")
#: The largest number of datasets enumerated (the pairs grow with its square).
MAX_DATASETS = 5000

Dataset = tuple


def _check(universe: Sequence[Hashable], n: int, adjacency: str, owner: str) -> tuple:
    if adjacency not in ADJACENCIES:
        raise InvalidParameter("adjacency", adjacency, " or ".join(map(repr, ADJACENCIES)),
                               owner)
    if isinstance(n, bool) or not isinstance(n, int) or n < (0 if adjacency == "add_remove"
                                                               else 1):
        raise InvalidParameter("n", n, "an integer >= 1 (>= 0 for add_remove)", owner)
    try:
        uni = tuple(sorted(set(universe), key=repr))
    except TypeError as exc:
        raise InvalidParameter("universe", universe, "a finite collection of hashable "
                               "elements", owner) from exc
    if not uni:
        raise InvalidParameter("universe", universe, "a non-empty finite collection", owner)
    return uni


def datasets(universe: Sequence[Hashable], n: int, adjacency: str = "add_remove") -> list:
    """Every dataset: multisets of size <= n (``add_remove``) or tuples of length n
    (``replace``) over ``universe``; at most :data:`MAX_DATASETS`."""
    uni = _check(universe, n, adjacency, "datasets")
    if adjacency == "add_remove":
        out = [c for m in range(n + 1) for c in itertools.combinations_with_replacement(uni, m)]
    else:
        if len(uni) ** n > MAX_DATASETS:
            raise InvalidParameter("n", n, f"at most {MAX_DATASETS} datasets "
                                   f"(|universe|^n = {len(uni)}^{n})", "datasets")
        out = list(itertools.product(uni, repeat=n))
    if len(out) > MAX_DATASETS:
        raise InvalidParameter("n", n, f"at most {MAX_DATASETS} datasets ({len(out)} here)",
                               "datasets")
    return out


def adjacent_pairs(universe: Sequence[Hashable], n: int,
                   adjacency: str = "add_remove") -> Iterable[tuple[Dataset, Dataset]]:
    """The adjacent pairs (x, y), each unordered pair once."""
    uni = _check(universe, n, adjacency, "adjacent_pairs")
    rank = {u: i for i, u in enumerate(uni)}
    for x in datasets(uni, n, adjacency):
        if adjacency == "add_remove":
            if len(x) < n:
                for u in uni:
                    yield x, tuple(sorted(x + (u,), key=repr))
        else:
            for i in range(n):
                for u in uni[rank[x[i]] + 1:]:
                    yield x, x[:i] + (u,) + x[i + 1:]


def dataset_distance(x: Dataset, y: Dataset, adjacency: str = "add_remove") -> int:
    """The path metric of the adjacency graph: ``|x - y| + |y - x|`` as multisets
    (``add_remove``), the number of differing positions (``replace``, equal lengths)."""
    if adjacency == "add_remove":
        cx, cy = Counter(x), Counter(y)
        return sum(((cx - cy) + (cy - cx)).values())
    if adjacency != "replace":
        raise InvalidParameter("adjacency", adjacency, " or ".join(map(repr, ADJACENCIES)),
                               "dataset_distance")
    if len(x) != len(y):
        raise InvalidParameter("y", y, f"a tuple of the length of x ({len(x)})",
                               "dataset_distance")
    return sum(a != b for a, b in zip(x, y, strict=True))


def _vector(v: Any) -> list[sp.Expr]:
    """A query's value as exact SymPy numbers (a float is the binary rational it holds)."""
    vals = list(v) if isinstance(v, (list, tuple)) else [v]
    try:
        out = [sp.Rational(*a.as_integer_ratio()) if isinstance(a, float) else sp.sympify(a)
               for a in vals]
    except (sp.SympifyError, TypeError, ValueError, OverflowError) as exc:
        raise InvalidParameter("query", v, "real numbers or vectors of real numbers "
                               "(finite, without symbols)", "sensitivity") from exc
    if any(not isinstance(a, sp.Expr) or a.free_symbols or not a.is_real or not a.is_finite
           for a in out):
        raise InvalidParameter("query", v, "real numbers or vectors of real numbers "
                               "(finite, without symbols)", "sensitivity")
    return out


def _exceeds(v: sp.Expr, best: sp.Expr) -> bool:
    """Whether v > best, decided exactly (SymPy's sign of the difference)."""
    d = v - best
    pos = d.is_positive
    if pos is None:
        pos = sp.simplify(d).is_positive
    if pos is None and d.is_zero is not True:
        raise NumericalError(f"cannot decide exactly whether {sp.sstr(v)} exceeds "
                             f"{sp.sstr(best)}: give the query's values as rationals or "
                             "simple surds")
    return bool(pos)


def _norm(d: list[sp.Expr], p: Any) -> sp.Expr:
    if p == 1:
        return sp.Add(*[sp.Abs(a) for a in d])
    if p == 2:
        return sp.sqrt(sp.Add(*[a**2 for a in d]))
    if p == sp.oo or p == "oo":
        return sp.Max(*[sp.Abs(a) for a in d]) if d else sp.Integer(0)
    raise InvalidParameter("p", p, "1, 2 or oo", "sensitivity")


def _diff(query: Callable, x: Dataset, y: Dataset, cache: dict) -> list[sp.Expr]:
    for z in (x, y):
        if z not in cache:
            cache[z] = _vector(query(z))
    if len(cache[x]) != len(cache[y]):
        raise InvalidParameter("query", query, "a function with outputs of one dimension",
                               "sensitivity")
    return [a - b for a, b in zip(cache[x], cache[y], strict=True)]


def sensitivity(query: Callable[[Dataset], Any], universe: Sequence[Hashable], n: int, *,
                p: Any = 1, adjacency: str = "add_remove") -> tuple[sp.Expr, tuple]:
    """``(max ||f(x) - f(y)||_p over adjacent x, y, a pair attaining it)``, exact (Dwork,
    Def. 3.2; Kaissis et al., Eq. (2))."""
    cache: dict = {}
    best, arg = sp.Integer(0), ()
    for x, y in adjacent_pairs(universe, n, adjacency):
        v = _norm(_diff(query, x, y, cache), p)
        if _exceeds(v, best):
            best, arg = v, (x, y)
    return best, arg


def lipschitz_constant(query: Callable[[Dataset], Any], universe: Sequence[Hashable], n: int,
                       *, p: Any = 1, adjacency: str = "add_remove") -> tuple[sp.Expr, tuple]:
    """``(max ||f(x) - f(y)||_p / d(x, y) over distinct datasets, a pair attaining it)``, d the
    path metric (:func:`dataset_distance`), exact (Kaissis et al., Def. 1, Eq. (1)). Compares
    every pair: quadratic in the number of datasets."""
    cache: dict = {}
    best, arg = sp.Integer(0), ()
    for x, y in itertools.combinations(datasets(universe, n, adjacency), 2):
        v = _norm(_diff(query, x, y, cache), p) / dataset_distance(x, y, adjacency)
        if _exceeds(v, best):
            best, arg = v, (x, y)
    return best, arg


# -- queries -----------------------------------------------------------------------------------
def counting_query(predicate: Callable[[Hashable], bool]) -> Callable[[Dataset], int]:
    """How many elements satisfy ``predicate`` (Dwork, Def. 3.1)."""
    return lambda x: sum(1 for u in x if predicate(u))


def histogram_query(cells: Sequence[Callable[[Hashable], bool]]) -> Callable[[Dataset], list]:
    """The counts of the cells (disjoint predicates) (Dwork, Sec. 4.3)."""
    return lambda x: [sum(1 for u in x if c(u)) for c in cells]


def distance_to_set(targets: Iterable[Dataset],
                    adjacency: str = "add_remove") -> Callable[[Dataset], int]:
    """The distance from a dataset to the nearest of ``targets`` (Dwork, footnote 3: the
    Hamming distance to a set, the test of Propose-Test-Release)."""
    ts = [tuple(t) for t in targets]
    if not ts:
        raise InvalidParameter("targets", targets, "a non-empty collection of datasets",
                               "distance_to_set")
    return lambda x: min(dataset_distance(x, t, adjacency) for t in ts)
