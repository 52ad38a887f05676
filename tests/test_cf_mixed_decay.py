"""The remainder's decay bound with the factors' phases (numeric/cf_mixed_decay.py) against the
remainder's transform computed from the factors' own closed-form moment generating functions
(J = 0: R = prod M_i - prod of the atoms' parts, families/laplace.py's LaplaceLaw.mgf, a
different formula) at many t' >= t, and its float planning sums against exact rational
Poisson-binomial sums."""

from __future__ import annotations

import math
from fractions import Fraction as F
from itertools import combinations

import numpy as np
import pytest
from flint import acb, arb

from tradeoff_algebra.families.laplace import LaplaceLaw
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.cf_mixed_decay import log_tail_probability, sup_bound
from tradeoff_algebra.numeric.cf_mixed_grid_remainder import GridRemainder
from tradeoff_algebra.numeric.cf_mixed_mass import MassPart


def _whole_minus_atoms(laws, cs, z):
    whole, atoms = acb(1), acb(1)
    for law, c in zip(laws, cs, strict=True):
        whole *= law.mgf(z)
        x = ((z + 0.5) * law.lattice_parts()[0]).exp()
        atoms *= c * (x + 1 / x)
    return whole - atoms


@pytest.mark.parametrize("r, step, c", [(40, 10**4, 0.3), (90, 10**5, 0.9)])
def test_the_phased_bound_holds_at_every_later_t(r, step, c):
    laws = [LaplaceLaw(F(1, 10) + F(i, step)) for i in range(r)]
    part = MassPart(laws, 0)
    rem = GridRemainder(part)
    with working_precision(128):
        mus = [arb(law.lattice_parts()[0]) for law in laws]
        for t in (0.0, 0.7, 2.5, 9.0, 15.0, 31.4, 70.0):
            bound = sup_bound(arb(c), arb(t), mus, part._cs, 0)
            assert rem.decay_bound(arb(c), arb(t)) <= bound
            for k in range(24):  # (t' from t up to past the atoms' first return, pi / mu)
                s = t + 0.83 * k * (1 + k / 7)
                ref = abs(_whole_minus_atoms(laws, part._cs, acb(c, s)))
                assert ref <= bound
                assert abs(rem.mgf(acb(c, s))) <= bound


def test_the_phased_bound_falls_with_the_products_transform():
    """A thousand factors: at t = 4 the bound is the floor of the atoms (about 1e-20 of M(c)),
    where the bound without phases still equals M(c)."""
    laws = [LaplaceLaw(F(1, 10) + F(i, 10**5)) for i in range(1000)]
    rem = GridRemainder(MassPart(laws, 0))
    with working_precision(64):
        m0 = rem.mgf(acb(0.34)).real
        b = rem.decay_bound(arb(0.34), arb(4.0))
        assert b < 1e-19 * m0
    assert math.exp(rem.log_decay_estimate(0.34, 4.0)) < 1e-19 * float(m0.mid())


def _exact_tail(ps, J):
    total = F(0)
    n = len(ps)
    for j in range(J + 1, n + 1):
        for T in combinations(range(n), j):
            prod = F(1)
            for i in range(n):
                prod *= ps[i] if i in T else 1 - ps[i]
            total += prod
    return total


@pytest.mark.parametrize("J", [0, 2, 5])
def test_the_poisson_binomial_tail_against_exact_sums(J):
    rng = np.random.default_rng(7)
    rows = [[F(int(k), 1000) for k in rng.integers(1, 300, size=11)],
            [F(int(k), 10**5) for k in rng.integers(1, 2000, size=11)],
            [F(int(k), 100) for k in rng.integers(40, 99, size=11)]]
    got = log_tail_probability(np.array([[float(p) for p in row] for row in rows]), J)
    for row, g in zip(rows, got, strict=True):
        ref = _exact_tail(row, J)
        assert abs(g - math.log(ref)) < 1e-9
