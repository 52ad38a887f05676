"""delta(eps) of the shuffle pair by slices (families/shuffle_profile.py) against the literal
pair summed at 60 digits, against the table of atoms (a different route), and eps(delta) at
large n proved at its bracket by the table route's delta."""

import pytest
import sympy as sp
from reference_np import literal_pair

import tradeoff_algebra as ta
from tradeoff_algebra.families.shuffle import ShuffleDP
from tradeoff_algebra.families.shuffle_pair import _table
from tradeoff_algebra.families.shuffle_profile import slice_profile
from tradeoff_algebra.numeric.context import mp


def _literal_delta(eps0, n, eps):
    """sum over the points of (Q - e^eps P)_+ of the pair written out (reference_np)."""
    with mp.workdps(60):
        P, Q = literal_pair(mp.exp(eps0), n)[1:]
        ee = mp.exp(eps)
        return mp.fsum(q - ee * p for p, q in zip(P, Q, strict=True) if q > ee * p)


@pytest.mark.parametrize("eps0,n,eps", [(1, 1, "0.3"), (1, 7, "0.2"),
                                        (sp.Rational(1, 2), 40, "0.05"), (3, 25, "1.5"),
                                        (1, 60, "0.9")])
def test_slices_match_the_literal_pair(eps0, n, eps):
    with mp.workdps(30):
        e = mp.mpf(eps)
        r = slice_profile(sp.sympify(eps0), n, e)
        ref = _literal_delta(sp.sympify(eps0), n, e)
        assert r is not None and r[0] == r[1]  # a point proved to the working precision
        assert abs(r[0] - ref) <= ref * mp.mpf(10) ** -29


@pytest.mark.parametrize("eps0,n,eps", [(1, 1500, "0.1"), (sp.Rational(1, 3), 1000, "0.01"),
                                        (4, 800, "2.5")])
def test_slices_match_the_table_of_atoms(eps0, n, eps):
    """The table route (every atom, sorted by ratio: shuffle_pair._Table) at 30 digits."""
    from flint import arb

    from tradeoff_algebra.families.shuffle import _hockey_stick
    from tradeoff_algebra.numeric.arb import arb_exact
    from tradeoff_algebra.numeric.context import arb_precision

    eps0 = sp.sympify(eps0)
    with mp.workdps(30):
        e = mp.mpf(eps)
        r = slice_profile(eps0, n, e)
        t = _table(eps0, n, 200, 160)
        with arb_precision(200):
            ee = arb_exact(e).exp()
            c1, c2 = t.E - ee, t.E * ee - 1
            lo, hi = _hockey_stick(t, c1, c2, ee, float((c2 / c1).mid()), len(t.negkey))
            R = arb_exact(r[0])  # a point correct to the working precision (34 digits)
            slack = abs(R) * arb(10) ** -28
            assert lo.lower() <= R + slack and R - slack <= hi.upper()


def test_epsilon_at_large_n_is_certified_and_its_bracket_holds():
    """eps(1e-6) of ShuffleDP(1, 3000): a certified point whose neighbours one part in 1e-20
    away are on the right sides of the level by the table route's delta."""
    f = ShuffleDP(1, 3000)
    D = sp.Rational(1, 10**6)
    v = ta.epsilon(f, D, dps=25)
    assert v.is_certain and v.is_point
    t = _table(sp.Integer(1), 3000, 200, 160)
    from flint import arb

    from tradeoff_algebra.families.shuffle import _hockey_stick
    from tradeoff_algebra.numeric.arb import arb_exact
    from tradeoff_algebra.numeric.context import arb_precision

    with mp.workdps(40):
        m = mp.mpf(v.mid)
        pts = ((1, m * (1 - mp.mpf(10) ** -20)), (-1, m * (1 + mp.mpf(10) ** -20)))
    for side, x in pts:
        with arb_precision(200):
            ee = arb_exact(x).exp()
            c1, c2 = t.E - ee, t.E * ee - 1
            lo, hi = _hockey_stick(t, c1, c2, ee, float((c2 / c1).mid()), len(t.negkey))
            Db = arb(1) / 10**6
            assert (lo > Db) if side == 1 else (hi < Db)


def test_delta_names_the_slice_route():
    v = ta.delta(ShuffleDP(1, 10**5), sp.Rational(1, 100), dps=20)
    assert v.is_certain and "slice sums" in v.route
