"""The exact tables of finite composition under a time limit (numeric/finite_tables.py,
numeric/finite.py): a table that cannot be built in the time left is refused at once
(``FiniteLoss.ensure_build_time``: the simulated cost times a lower bound of the seconds per
product, the limit named in the message), and the long loops (the binomial members, the rows of
a product, the sorted table's sums, SymPy's evalf) check the limit, so a table whose estimate
was too low stops at the limit. ``BinomialDP(1/10, 10^5) (x) RR(log 3, 5)^10^5`` sent the
binomial factor's 10^5 atoms to the PLD engine through an unchecked table and ran 4 s past a
limit of 10 s (eps = log 3: minutes).

The limit is checked by the limit firing (TimeLimitExceeded), never by measuring seconds. The
float atoms the PLD engine reads are checked against the binomial masses computed here by
another route (exact integers C(n, k) a^(n-k) b^k, mpmath's binomial at 40 digits).
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from fractions import Fraction

import pytest
import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import budget
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.finite import FiniteLoss

R = sp.Rational


def _no_estimate(monkeypatch):
    """Switch the refusal off, so that the loops' own checks are what stops the table."""
    monkeypatch.setattr(FiniteLoss, "ensure_build_time", lambda self, kind: None)


def test_the_products_example_stops_at_its_limit():
    """(Refused at once by the table's estimate, or by an earlier route's check. The product
    of two lattices now answers in about 0.1 s of CPU (``numeric.lattice_two``): a limit of
    0.01 s cannot hold it.)"""
    f = ta.Tensor(ta.BinomialDP(R(1, 10), 10**5), ta.randomized_response(sp.log(3), 5) ** 10**5)
    with pytest.raises(ta.TimeLimitExceeded, match=r"time limit of 0.01 s"):
        with ta.time_limit(0.01):
            ta.epsilon(f, 1e-6)


@pytest.mark.parametrize("eps", [R(1, 10), sp.log(3)])
def test_a_binomial_grid_that_cannot_fit_is_refused_at_once(eps):
    """10^5 atoms: 6 10^5 products at 1 us each at least, beyond a limit of 0.1 s."""
    fl = FiniteLoss.binomial(eps, 10**5)
    with pytest.raises(ta.TimeLimitExceeded, match=r"table of FiniteLoss\(RR.*mp arithmetic"):
        with ta.time_limit(0.1), budget.call("the test's grid"):
            fl.grid()


def test_the_mpmath_binomial_member_checks_the_limit(monkeypatch):
    _no_estimate(monkeypatch)
    fl = FiniteLoss.binomial(R(1, 10), 10**6)
    with pytest.raises(ta.TimeLimitExceeded) as e:
        with ta.time_limit(0.2), budget.call("the test's grid"):
            fl.grid()
    assert "would take" not in str(e.value)


def test_the_exact_binomial_member_checks_the_limit(monkeypatch):
    """e^eps = 3: integers of 2 10^5 bits, 10^5 of them (27 s here): stopped at the limit."""
    _no_estimate(monkeypatch)
    fl = FiniteLoss.binomial(sp.log(3), 10**5)
    with pytest.raises(ta.TimeLimitExceeded) as e:
        with ta.time_limit(0.2), budget.call("the test's table"):
            fl._exact_table()
    assert "would take" not in str(e.value)


def test_the_exact_table_is_refused_at_once():
    fl = FiniteLoss.binomial(sp.log(3), 10**5)
    with pytest.raises(ta.TimeLimitExceeded, match="exact arithmetic"):
        with ta.time_limit(0.5), budget.call("the test's table"):
            fl._exact_table()


def test_the_rows_of_a_product_check_the_limit(monkeypatch):
    """A three-atom pair with incommensurable ratios 7/3 and 11/5 to the 600: 1.8 10^5 keys,
    each row of the squarings a product of Fractions."""
    _no_estimate(monkeypatch)
    fl = FiniteLoss.pair([R(3, 10), R(5, 10), R(2, 10)], [R(7, 10), R(1, 10), R(2, 10)]).power(600)
    with pytest.raises(ta.TimeLimitExceeded):
        with ta.time_limit(0.1), budget.call("the test's table"):
            fl._mp_table(128)


def test_the_symbolic_table_checks_the_limit(monkeypatch):
    _no_estimate(monkeypatch)
    fl = FiniteLoss.binomial(R(1, 10), 300)
    with pytest.raises(ta.TimeLimitExceeded):
        with ta.time_limit(0.05), budget.call("the test's table"):
            fl._symbolic_table()


def _masses(g):
    return sorted(zip(g.l.tolist(), g.pm.tolist(), g.qm.tolist(), strict=True))


def test_float_atoms_from_the_exact_table_match_integer_masses():
    """e^eps = 3, n = 60: P_k = C(n, k) 3^(n-k) / 4^n at loss (n - 2k) log 3 ... (k successes
    of ratio 1/3), computed here from math.comb."""
    n = 60
    g = FiniteLoss.binomial(sp.log(3), n).grid()
    got = _masses(g)
    ref = []
    for k in range(n + 1):  # k coordinates of ratio e^eps: loss (2k - n) log 3
        p = Fraction(math.comb(n, k) * 3 ** (n - k), 4**n)
        q = Fraction(math.comb(n, k) * 3**k, 4**n)
        ref.append(((2 * k - n) * math.log(3), float(p), float(q)))
    ref.sort()
    assert len(got) == len(ref)
    for (l1, p1, q1), (l2, p2, q2) in zip(got, ref, strict=True):
        assert l1 == pytest.approx(l2, rel=1e-14, abs=1e-14)
        assert p1 == p2 and q1 == q2  # both correctly rounded


@pytest.mark.parametrize("eps, affordable", [(R(1, 10), True), (sp.log(3), False)])
def test_float_atoms_from_the_mpmath_block_match_mpmath_binomials(eps, affordable, monkeypatch):
    """The mpmath block (irrational e^eps, or a rational one whose exact table is not
    affordable) against mpmath's binomial masses at 40 digits."""
    if not affordable:
        monkeypatch.setattr(FiniteLoss, "affordable", lambda self, limit=0: False)
    n = 200
    g = FiniteLoss.binomial(eps, n).grid()
    got = _masses(g)
    with mp.workdps(40):
        e = mp.mpf(sp.N(eps, 50))
        ref = sorted((float((2 * k - n) * e),
                       float(mp.binomial(n, k) * mp.exp((n - k) * e) / (1 + mp.exp(e)) ** n),
                       float(mp.binomial(n, k) * mp.exp(k * e) / (1 + mp.exp(e)) ** n))
                      for k in range(n + 1))
    assert len(got) == len(ref)
    for (l1, p1, q1), (l2, p2, q2) in zip(got, ref, strict=True):
        assert l1 == pytest.approx(l2, rel=1e-15, abs=1e-15)
        assert p1 == pytest.approx(p2, rel=1e-15) and q1 == pytest.approx(q2, rel=1e-15)


@pytest.mark.slow
def test_the_products_example_ends_within_its_limit_in_a_fresh_process():
    """The call of the report, in a fresh process (nothing cached), under a limit of 2 s:
    it answers or raises TimeLimitExceeded, and ends (the external timeout is generous)."""
    code = textwrap.dedent("""
        import sympy as sp, tradeoff_algebra as ta
        f = ta.Tensor(ta.BinomialDP(sp.Rational(1, 10), 10**5),
                      ta.randomized_response(sp.log(3), 5) ** 10**5)
        try:
            with ta.time_limit(2):
                ta.epsilon(f, 1e-6)
            print("answered")
        except ta.TimeLimitExceeded:
            print("limit")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] in ("answered", "limit")


def test_binomial_epsilon_passes_the_time_limit_on(monkeypatch):
    """BinomialDP's eps(delta) read a NumericalError of its Arb bracket as "Arb proves
    nothing" (None); a TimeLimitExceeded is one, so the certified loop's second evaluation got
    None and the call ended in an InternalError (TypeError) at limits of 0.03 to 0.08 s."""
    from tradeoff_algebra.families import binomial
    from tradeoff_algebra.numeric.protocol import mp_epsilon

    def stopped(*args, **kwargs):
        raise ta.TimeLimitExceeded("the test's bracket", 0.05)

    monkeypatch.setattr(binomial, "arb_epsilon", stopped)
    with mp.workdps(30), pytest.raises(ta.TimeLimitExceeded):
        mp_epsilon(ta.BinomialDP(sp.log(3), 4000), mp.mpf("1e-6"))


def test_the_arb_masses_of_an_exact_table_check_the_limit():
    """e^eps = 2 composed 2 10^4 times: masses of 4 10^4 bits, each reduced by a gcd with the
    common denominator on its way into Arb (tens of seconds for the whole table)."""
    fl = FiniteLoss.binomial(sp.log(2), 20000)
    fl._exact_table()  # (built before the limit: under 1 s)
    with pytest.raises(ta.TimeLimitExceeded):
        with ta.time_limit(0.05), budget.call("the test's balls"):
            fl.arb_masses(128)
