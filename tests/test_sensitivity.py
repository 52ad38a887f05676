"""analysis.sensitivity: exact sensitivities against hand-derived values and a breadth-first
search of the adjacency graph (the path metric), on small universes."""

from __future__ import annotations

import itertools
import random
from collections import deque

import pytest
import sympy as sp

from tradeoff_algebra.analysis import sensitivity as sens
from tradeoff_algebra.core.errors import InvalidParameter

U3 = (0, 1, 2)


def _bfs_distances(nodes, pairs):
    """All shortest-path lengths of the graph (nodes, pairs), by breadth-first search."""
    adj = {x: set() for x in nodes}
    for x, y in pairs:
        adj[x].add(y)
        adj[y].add(x)
    out = {}
    for s in nodes:
        dist, todo = {s: 0}, deque([s])
        while todo:
            x = todo.popleft()
            for y in adj[x]:
                if y not in dist:
                    dist[y] = dist[x] + 1
                    todo.append(y)
        out[s] = dist
    return out


@pytest.mark.parametrize("adjacency,n", [("add_remove", 3), ("replace", 3)])
def test_dataset_distance_is_the_path_metric(adjacency, n):
    nodes = sens.datasets(U3, n, adjacency)
    d = _bfs_distances(nodes, list(sens.adjacent_pairs(U3, n, adjacency)))
    for x, y in itertools.combinations(nodes, 2):
        assert sens.dataset_distance(x, y, adjacency) == d[x][y]


def test_adjacent_pairs_are_each_pair_once():
    for adjacency in ("add_remove", "replace"):
        pairs = list(sens.adjacent_pairs(U3, 2, adjacency))
        keys = [frozenset(p) for p in pairs]
        assert len(keys) == len(set(keys))
        assert all(sens.dataset_distance(x, y, adjacency) == 1 for x, y in pairs)
    # tuples of length 2 over 3 symbols: 9 nodes, each with 2 * 2 neighbours
    assert len(list(sens.adjacent_pairs(U3, 2, "replace"))) == 9 * 4 // 2


@pytest.mark.parametrize("adjacency", ["add_remove", "replace"])
def test_counting_query_has_sensitivity_one(adjacency):
    q = sens.counting_query(lambda u: u >= 1)
    for p in (1, 2, sp.oo):
        s, (x, y) = sens.sensitivity(q, U3, 3, p=p, adjacency=adjacency)
        assert s == 1 and abs(q(x) - q(y)) == 1


def test_histogram_sensitivity_by_adjacency():
    """Add/remove changes one cell by one; replace-one moves one unit between two cells."""
    h = sens.histogram_query([lambda u, c=c: u == c for c in U3])
    assert sens.sensitivity(h, U3, 3, p=1)[0] == 1
    assert sens.sensitivity(h, U3, 3, p=2)[0] == 1
    assert sens.sensitivity(h, U3, 3, p=1, adjacency="replace")[0] == 2
    assert sens.sensitivity(h, U3, 3, p=2, adjacency="replace")[0] == sp.sqrt(2)


def test_scaled_sampled_value_has_n_times_the_sensitivity():
    """Per-example values in [-L, L]: their sum has replace-one sensitivity 2L, n times the
    value at one position has 2nL."""
    L = sp.Rational(3, 2)
    vals = {0: -L, 1: 0, 2: L}
    n = 3
    total = sens.sensitivity(lambda x: sum(vals[u] for u in x), U3, n, adjacency="replace")[0]
    one = sens.sensitivity(lambda x: n * vals[x[0]], U3, n, adjacency="replace")[0]
    assert total == 2 * L and one == 2 * n * L


def test_distance_to_a_set_has_sensitivity_one():
    for targets in ([(0, 0)], [(1,), (2, 2, 2)], [(), (0, 1, 2)]):
        q = sens.distance_to_set(targets)
        assert sens.sensitivity(q, U3, 3)[0] == 1


@pytest.mark.parametrize("seed", range(6))
def test_lipschitz_constant_equals_adjacent_sensitivity(seed):
    """Kaissis et al., Def. 1 against Eq. (2): with the path metric the largest ratio over all
    pairs is attained by an adjacent pair (random rational vector queries), checked against
    the ratio over all pairs with the BFS distance."""
    rng = random.Random(seed)
    nodes = sens.datasets((0, 1), 3)
    table = {x: [sp.Rational(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(2)]
             for x in nodes}
    q = table.__getitem__
    for p in (1, 2):
        lip, _ = sens.lipschitz_constant(q, (0, 1), 3, p=p)
        adj, _ = sens.sensitivity(q, (0, 1), 3, p=p)
        d = _bfs_distances(nodes, list(sens.adjacent_pairs((0, 1), 3)))
        brute = max(sp.sqrt(sum((a - b)**2 for a, b in zip(q(x), q(y), strict=True)))
                    / d[x][y] if p == 2 else
                    sum(abs(a - b) for a, b in zip(q(x), q(y), strict=True)) / d[x][y]
                    for x, y in itertools.combinations(nodes, 2))
        assert sp.simplify(lip - adj) == 0 and sp.simplify(lip - brute) == 0


@pytest.mark.parametrize("call", [
    lambda: sens.sensitivity(len, U3, 2, adjacency="swap"),
    lambda: sens.sensitivity(len, U3, -1),
    lambda: sens.sensitivity(len, (), 2),
    lambda: sens.sensitivity(len, U3, 2, p=3),
    lambda: sens.datasets(range(10), 5, "replace"),
    lambda: sens.distance_to_set([]),
    lambda: sens.sensitivity(lambda x: sp.Symbol("s") * len(x), U3, 2),
    lambda: sens.sensitivity(lambda x: float("inf") if x else 0, U3, 2)])
def test_bad_input_names_the_parameter(call):
    with pytest.raises(InvalidParameter, match="parameter"):
        call()


def test_float_values_are_their_binary_rationals_and_surds_compare_exactly():
    s, _ = sens.sensitivity(lambda x: [0.1 * len(x)], U3, 2)
    assert s == sp.Rational(*(0.1).as_integer_ratio())
    q = {(): [0, 0], (0,): [1, 1], (1,): [sp.sqrt(2), 0], (2,): [0, sp.Rational(7, 5)]}
    assert sens.sensitivity(lambda x: q[x], U3, 1, p=2)[0] == sp.sqrt(2)
