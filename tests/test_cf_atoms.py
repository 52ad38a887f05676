"""Products of factors whose privacy loss has atoms (f_{eps,delta}, BinomialDP, randomized
response, finite pairs, the discrete Laplace with Delta = 1) with factors whose loss has a
density (G_mu), by the certified Laplace inversion with the atom laws of numeric/cf_atoms.py.

References, each computed here by another route: the exact sum over the atoms of the
closed-form Gaussian hockey-stick divergence at 50 digits (delta(eps) = sum_i q_i
delta_G(eps - l_i), delta_G(x) = Phi(-x/mu + mu/2) - e^x Phi(-x/mu - mu/2) for every real x,
the binomial masses by their ratio recurrence), brute-force Neyman-Pearson by quadrature over
the outcome space for a tiny pair, the laws' mgfs against exact sums, and the PLD engine's
estimate as a sanity check.
"""

from __future__ import annotations

import warnings

import pytest
import sympy as sp
from flint import acb

import tradeoff_algebra as ta
from tradeoff_algebra import BinomialDP, Discrete, EpsDelta, G
from tradeoff_algebra.numeric import cf_route
from tradeoff_algebra.numeric.cf_atoms import AtomLaw, BinomialLaw, DeltaLaw, ProductLaw
from tradeoff_algebra.numeric.cf_laws import working_precision
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.numeric.privacy_loss import privacy_loss
from tradeoff_algebra.routes.engines import _cf_laws
from tradeoff_algebra.routes.plan import route

R = sp.Rational


# -- independent references (mpmath, thread-private context) ----------------------------------
def _delta_g(mu, x):
    """delta of G_mu at any real x (E_Q[(1 - e^{x - L})_+], L ~ N(mu^2/2, mu^2) under Q)."""
    return mp.ncdf(-x / mu + mu / 2) - mp.exp(x) * mp.ncdf(-x / mu - mu / 2)


def _m(x):
    """A SymPy rational (or int) as an mpf."""
    x = sp.Rational(x)
    return mp.mpf(int(x.p)) / int(x.q)


def _binomial_atoms(e0, k, window=None):
    """(loss, Q-mass) of f_{e0,0}^{(x) k}: eps0 (2K - k), C(k, K) w^K (1 - w)^{k - K},
    w = e^e0/(1 + e^e0), for K in ``window`` (default all), by the ratio recurrence from
    the mode (computed by log-gamma)."""
    w = mp.exp(e0) / (1 + mp.exp(e0))
    lo, hi = window or (0, k)
    mode = min(max(int(k * w), lo), hi)
    logq = (mp.loggamma(k + 1) - mp.loggamma(mode + 1) - mp.loggamma(k - mode + 1)
            + mode * mp.log(w) + (k - mode) * mp.log(1 - w))
    q0 = mp.exp(logq)
    out = {mode: q0}
    q = q0
    for K in range(mode, hi):
        q = q * (k - K) / (K + 1) * w / (1 - w)
        out[K + 1] = q
    q = q0
    for K in range(mode, lo, -1):
        q = q * K / (k - K + 1) * (1 - w) / w
        out[K - 1] = q
    return [(e0 * (2 * K - k), out[K]) for K in sorted(out)]


def _ref_delta(atoms, mu, eps, q_inf=0):
    """q_inf + sum_i q_i delta_G(eps - l_i) (the product's delta, Dong, Roth & Su, Prop. 6,
    conditioning on the atom factor)."""
    return q_inf + mp.fsum(q * _delta_g(mu, eps - lg) for lg, q in atoms)


def _pair_atoms(P, Q):
    """(loss, Q-mass) of the finite pair's outcomes with P, Q > 0; and Q(P = 0)."""
    atoms = [(mp.log(_m(q) / _m(p)), _m(q)) for p, q in zip(P, Q, strict=True)
             if p > 0 and q > 0]
    return atoms, mp.fsum(_m(q) for p, q in zip(P, Q, strict=True) if p == 0)


def _assert_in(v, truth, rel=1e-9):
    assert v.guarantee == "certified", v
    assert v.lo <= truth <= v.hi, (v, truth)
    assert v.hi - v.lo <= rel * abs(truth), (v, truth)


def _delta(f, eps, tol=1e-9):
    with ta.pld_options(tol=tol):
        return ta.delta(f, eps, dps=20)


def _eps(f, d, tol=1e-9):
    with ta.pld_options(tol=tol):
        return ta.epsilon(f, d, dps=20)


def _check_eps_bracket(v, ref, d, rel=1e-9):
    """eps(d) in [lo, hi] iff delta(lo) >= d >= delta(hi) (delta non-increasing): the
    reference decides at both ends, and the width is small."""
    assert v.guarantee == "certified", v
    assert ref(v.lo) >= d >= ref(v.hi), (v, ref(v.lo), ref(v.hi))
    assert v.hi - v.lo <= rel * v.hi, v


# -- the laws ----------------------------------------------------------------------------------
def test_binomial_law_mgf_against_the_exact_sum():
    law = BinomialLaw(R(1, 3), 40)
    z = acb(0.7, 2.5)
    with working_precision(128):
        m = law.mgf(z)
    with mp.workdps(50):
        ref = mp.fsum(q * mp.exp(mp.mpc(0.7, 2.5) * lg) for lg, q in
                      _binomial_atoms(mp.mpf(1) / 3, 40))
        assert abs(mp.mpc(m.real.mid().str(40, radius=False),
                          m.imag.mid().str(40, radius=False)) - ref) < 1e-30
        assert m.real.rad() < 1e-30 and m.imag.rad() < 1e-30
    for c in (0.1, 1.0, 5.0):  # float planning cumulants against the ball's logarithm
        with working_precision(128):
            lm = float(law.mgf(acb(c)).real.log().mid())
        assert abs(law.cumulants(c)[0] - lm) < 1e-9 * max(1, abs(lm))


def test_binomial_law_keeps_its_accuracy_at_k_a_million():
    law = BinomialLaw(R(1, 10), 10**6)
    with working_precision(96):
        m = law.mgf(acb(0.05, 3.0))
        assert float(m.real.rad() + m.imag.rad()) <= 1e-20 * float(abs(m).mid())
        assert law.mgf(acb(-1)).contains(1) and law.mgf(acb(0)).contains(1)


def test_atom_law_of_a_pair_with_an_atom_at_infinity_and_its_inverse():
    P, Q = [R(1, 2), R(1, 2), 0], [R(1, 4), R(1, 2), R(1, 4)]
    law = privacy_loss(Discrete(P, Q)).law()
    assert isinstance(law, AtomLaw)
    with working_precision(100):
        assert abs(float(law.mass_at_infinity().mid()) - 0.25) < 1e-25
        m1 = law.mgf(acb(1)).real  # E_Q[e^L ; L finite] = sum q^2/p
        assert abs(float(m1.mid()) - (1 / 8 + 1 / 2)) < 1e-25
        inv = law.inverse()  # (Q, P): the outcome with Q = 0 is now at +oo ... with mass 0
        assert float(inv.mass_at_infinity().mid()) == 0.0
        assert abs(float(inv.mgf(acb(0)).real.mid()) - 1.0) < 1e-25  # P(Q > 0) = 1


def test_finite_loss_law_views():
    assert isinstance(privacy_loss(EpsDelta(1, 0)).law(), BinomialLaw)
    law = privacy_loss(EpsDelta(1, R(1, 10))).law()
    assert isinstance(law, ProductLaw)
    assert any(isinstance(x, DeltaLaw) for x, _ in law.parts)
    with working_precision(64):
        assert abs(float(law.mass_at_infinity().mid()) - 0.1) < 1e-15
    # BinomialDP beyond its float atoms (n > 10^5) still has the closed-form law
    from tradeoff_algebra.routes.engines import _law
    big = _law(BinomialDP(R(1, 10), 10**6))
    assert isinstance(big, BinomialLaw) and big.k == 10**6


def test_products_of_atoms_alone_are_refused():
    leaves = ((BinomialDP(1, 10), 1), (Discrete([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)]), 1))
    assert _cf_laws([leaves], atoms=True) is None
    # with G(1) the routes get the laws; the curves (inversion_curve) do not ask for atoms
    mixed = ((BinomialDP(1, 10), 1), (G(1), 1))
    assert _cf_laws([mixed], atoms=True) is not None and _cf_laws([mixed]) is None
    laws = [(BinomialLaw(1, 10), 1), (BinomialLaw(R(1, 2), 3), 2)]
    assert cf_route.route_enclosure([laws], "delta", 0.5, 0.5, 1e-9) is None


# -- certified values against the exact sums --------------------------------------------------
@pytest.mark.parametrize("e0, k, mu, eps", [
    (1, 100, 1, 1), (1, 100, 1, 60), (1, 100, 1, 80.5),
    (R(1, 10), 1000, 2, 3), (R(1, 2), 7, R(1, 2), 0), (2, 1, 1, 1),
])
def test_binomial_with_gaussian_delta(e0, k, mu, eps):
    f = EpsDelta(e0, 0) ** k @ G(mu)
    v = _delta(f, eps)
    with mp.workdps(50):
        truth = _ref_delta(_binomial_atoms(_m(e0), k), _m(mu), _m(eps))
    _assert_in(v, truth)
    assert "certified Laplace inversion" in v.route


def test_binomial_with_gaussian_epsilon():
    f = EpsDelta(1, 0) ** 100 @ G(1)
    d = R(1, 10**5)
    v = _eps(f, d)
    with mp.workdps(50):
        atoms = _binomial_atoms(mp.mpf(1), 100)
        _check_eps_bracket(v, lambda e: _ref_delta(atoms, mp.one, mp.mpf(e)), _m(d))
    # the PLD engine's estimate of the brief ([80.734066, 80.734452]) contains it
    assert 80.734066 <= float(v.lo) and float(v.hi) <= 80.734452


def test_epsdelta_with_delta_part_against_the_sum():
    """f_{1/2,1e-7}^{(x) 100} (x) G(1): delta = D + (1 - D) delta_rest, 1 - D = (1 - 1e-7)^100
    (Eq. (11), (12)); eps(d) just above D, where d - D cancels five digits."""
    f = EpsDelta(R(1, 2), R(1, 10**7)) ** 100 @ G(1)
    with mp.workdps(60):
        keep = (1 - mp.mpf(10) ** -7) ** 100
        atoms = [(lg, q * keep) for lg, q in _binomial_atoms(mp.mpf(1) / 2, 100)]
        ref = lambda e: _ref_delta(atoms, mp.one, mp.mpf(e), 1 - keep)  # noqa: E731
        for eps in (1, 30):
            _assert_in(_delta(f, eps), ref(eps))
        for d in (R(1, 10**5), R(2, 10**5), R(1, 10**3)):
            _check_eps_bracket(_eps(f, d), ref, _m(d))


def test_discrete_laplace_with_gaussian():
    """DiscreteLaplace(1, 1/2) = f_{2,0} (randomized response): eps(1e-6) of its product with
    G(1), against the sum and the PLD estimate [6.859797, 6.859831]."""
    f = ta.DiscreteLaplace(1, R(1, 2)) @ G(1)
    d = R(1, 10**6)
    v = _eps(f, d)
    with mp.workdps(50):
        atoms = _binomial_atoms(mp.mpf(2), 1)
        _check_eps_bracket(v, lambda e: _ref_delta(atoms, mp.one, mp.mpf(e)), _m(d))
    assert 6.859797 <= float(v.lo) and float(v.hi) <= 6.859831


def _np_bruteforce(P, Q, mu, eps):
    """delta(eps) = sup_S (Q x N(mu,1))(S) - e^eps (P x N(0,1))(S) over the outcome space: for
    each outcome i the set {x : Q_i phi(x - mu) > e^eps P_i phi(x)} = (t_i, oo), integrated by
    quadrature (no Phi), the P = 0 outcomes counting their whole Q-mass."""
    phi = lambda x: mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)  # noqa: E731
    total = mp.zero
    for p, q in zip(map(_m, P), map(_m, Q), strict=True):
        if q == 0:
            continue
        if p == 0:
            total += q
            continue
        t = (eps - mp.log(q / p)) / mu + mu / 2
        g = lambda x, p=p, q=q: q * phi(x - mu) - mp.exp(eps) * p * phi(x)  # noqa: E731
        total += mp.quad(g, [t, t + 4, t + 12, mp.inf])
    return total


@pytest.mark.parametrize("eps", [0, 1, 3])
def test_tiny_pair_against_brute_force(eps):
    P, Q = [R(1, 2), R(1, 3), R(1, 6), 0], [R(1, 8), R(1, 4), R(1, 2), R(1, 8)]
    f = Discrete(P, Q) @ G(1)
    v = _delta(f, eps)
    with mp.workdps(40):
        bf = _np_bruteforce(P, Q, mp.one, _m(eps))
        atoms, q_inf = _pair_atoms(P, Q)
        s = _ref_delta(atoms, mp.one, _m(eps), q_inf)
        assert abs(bf - s) < 1e-30  # the two references agree
    _assert_in(v, s)


def test_symmetric_hull_takes_the_larger_direction():
    P, Q = [R(1, 2), R(1, 2)], [R(1, 10), R(9, 10)]
    f = ta.SymmetricHull(Discrete(P, Q) @ G(1))
    with mp.workdps(40):
        a, _ = _pair_atoms(P, Q)
        b, _ = _pair_atoms(Q, P)
        for eps in (0, R(1, 2), 2):
            truth = max(_ref_delta(a, mp.one, _m(eps)), _ref_delta(b, mp.one, _m(eps)))
            _assert_in(_delta(f, eps), truth)


def test_pld_estimate_agrees():
    f = EpsDelta(R(1, 5), 0) ** 50 @ G(R(1, 2))
    v = _delta(f, 2)
    with ta.pld_options(tol=1e-3):
        from tradeoff_algebra.routes.engines import pld_delta
        lo, hi = pld_delta([route(f)[1]], mp.mpf(2), inversion=False)
    assert lo <= v.hi and v.lo <= hi  # the estimate's interval meets the certified one
    assert float(hi - lo) < 1e-2 * float(v.hi)


# -- the routes' contract --------------------------------------------------------------------
def test_a_tighter_tolerance_never_gives_a_wider_result():
    f = EpsDelta(R(1, 10), 0) ** 10**4 @ G(1)
    widths = []
    for tol in (1e-3, 1e-6, 1e-9, 1e-12):
        v = _eps(f, R(1, 10**5), tol)
        widths.append(float(v.hi - v.lo))
        assert v.guarantee == "certified"
    assert all(b <= a for a, b in zip(widths, widths[1:], strict=False)), widths
    assert widths[-1] <= 1e-12 * 100


def test_an_unmet_tolerance_warns_and_keeps_its_enclosure():
    f = EpsDelta(1, 0) ** 100 @ G(1)
    with mp.workdps(50):
        truth = _ref_delta(_binomial_atoms(mp.one, 100), mp.one, mp.mpf(5))
    with pytest.warns(ta.ToleranceWarning), ta.pld_options(tol=1e-20):
        v = ta.delta(f, 5, dps=30)
    assert v.guarantee == "certified" and v.lo <= truth <= v.hi


def test_k_a_million_in_under_seconds_certified():
    """BinomialDP(1/10, 10^6) (x) G(1): one complex power per t-node; delta against the sum
    over the atoms near eps (the others bounded: below eps - 60 by Phi(-59.5) each, above the
    window by the binomial tail, a geometric series past the mode)."""
    k, e0 = 10**6, R(1, 10)
    f = EpsDelta(e0, 0) ** k @ G(1)
    eps = 5300
    with warnings.catch_warnings():
        warnings.simplefilter("error", ta.ToleranceWarning)
        v = _delta(f, eps)
    with mp.workdps(40):
        Klo = int((mp.mpf(eps - 60) / _m(e0) + k) / 2)
        atoms = _binomial_atoms(_m(e0), k, (Klo, Klo + 6000))
        truth = _ref_delta(atoms, mp.one, _m(eps))
        # the atoms beyond the window: the last mass times the geometric sum of its ratio
        w = mp.exp(_m(e0)) / (1 + mp.exp(_m(e0)))
        last = atoms[-1][1]
        ratio = (k - Klo - 6000) / mp.mpf(Klo + 6001) * w / (1 - w)
        tail = last * ratio / (1 - ratio)
        below = k * mp.ncdf(-mp.mpf(59.5))
    assert tail < 1e-25 * truth and below < 1e-25 * truth
    _assert_in(v, truth)


# -- atoms with one Laplace factor: the exact sum (numeric/cf_atom_sum.py) --------------------
def _delta_l(mu, x):
    """delta of L_mu at any real x: 1 - e^{(x - mu)/2} on [-mu, mu], 1 - e^x below, 0 above
    (checked against quadrature of the loss law in the test below)."""
    if x >= mu:
        return mp.zero
    if x >= -mu:
        return -mp.expm1((x - mu) / 2)
    return -mp.expm1(x)


def _delta_l_quad(mu, x):
    """E_Q[(1 - e^{x - L})_+] for L_mu's loss under Q = Lap(mu, 1): atoms 1/2 at mu and
    e^{-mu}/2 at -mu, density e^{(t - mu)/2}/4 on (-mu, mu) (Dong, Roth & Su, Prop. 7)."""
    g = lambda a: max(mp.zero, -mp.expm1(x - a))  # noqa: E731
    v = g(mu) / 2 + mp.exp(-mu) / 2 * g(-mu)
    lo = max(x, -mu)
    if lo < mu:
        v += mp.quad(lambda t: mp.exp((t - mu) / 2) / 4 * g(t), [lo, mu])
    return v


def test_the_laplace_reference_profile_against_quadrature():
    with mp.workdps(30):
        for x in (-3, -1, R(-1, 2), 0, R(1, 2), R(99, 100)):
            assert abs(_delta_l(mp.one, _m(x)) - _delta_l_quad(mp.one, _m(x))) < 1e-25


def test_lattice_delta_against_the_reference():
    from flint import arb

    from tradeoff_algebra.families.laplace import LaplaceLaw
    from tradeoff_algebra.numeric.cf_atom_sum import lattice_delta

    law = LaplaceLaw(R(3, 2))
    with working_precision(128), mp.workdps(40):
        parts = law.lattice_parts()
        for x in (-4, R(-3, 2), -1, 0, 1, R(3, 2), 2):
            b = lattice_delta(parts, arb(float(x)))
            ref = _delta_l(mp.mpf(3) / 2, _m(x))
            assert abs(float(b.mid()) - float(ref)) <= 1e-15 and float(b.rad()) < 1e-30
            wide = lattice_delta(parts, arb(float(x), 1e-3))  # a ball: both ends' values
            assert wide.lower() <= b.lower() and b.upper() <= wide.upper()


def test_epsdelta_with_laplace_the_briefs_product():
    """f_{1/2,1e-7}^{(x) 100} (x) L_1: no factor's mgf decays, so the atoms are summed against
    L_1's profile; delta and eps(d) against the sum at 50 digits."""
    f = EpsDelta(R(1, 2), R(1, 10**7)) ** 100 @ ta.Laplace(1)
    with mp.workdps(50):
        keep = (1 - mp.mpf(10) ** -7) ** 100
        atoms = [(lg, q * keep) for lg, q in _binomial_atoms(mp.mpf(1) / 2, 100)]

        def ref(e):
            return 1 - keep + mp.fsum(q * _delta_l(mp.one, mp.mpf(e) - lg) for lg, q in atoms)

        for eps in (1, 20, R(101, 2)):
            v = _delta(f, eps)
            _assert_in(v, ref(_m(eps)))
        for d in (R(2, 10**5), R(1, 10**3)):
            v = _eps(f, d)
            _check_eps_bracket(v, ref, _m(d))
            assert "atoms summed" in v.route


def test_pair_with_laplace_and_its_hull():
    P, Q = [R(1, 2), R(1, 3), R(1, 6), 0], [R(1, 8), R(1, 4), R(1, 2), R(1, 8)]
    f = Discrete(P, Q) @ ta.Laplace(R(1, 2))
    with mp.workdps(40):
        a, qa = _pair_atoms(P, Q)
        for eps in (0, R(1, 3), 2):
            truth = qa + mp.fsum(q * _delta_l(mp.mpf(1) / 2, _m(eps) - lg) for lg, q in a)
            _assert_in(_delta(f, eps), truth)
    P2, Q2 = [R(1, 2), R(1, 2)], [R(1, 10), R(9, 10)]
    h = ta.SymmetricHull(Discrete(P2, Q2) @ ta.Laplace(1))
    with mp.workdps(40):
        a, _ = _pair_atoms(P2, Q2)
        b, _ = _pair_atoms(Q2, P2)
        for eps in (0, R(1, 2)):
            truth = max(mp.fsum(q * _delta_l(mp.one, _m(eps) - lg) for lg, q in x)
                        for x in (a, b))
            _assert_in(_delta(h, eps), truth)


def test_laplace_tolerance_monotone_and_pld_agrees():
    f = EpsDelta(R(1, 10), 0) ** 2000 @ ta.Laplace(1)
    widths = []
    for tol in (1e-3, 1e-9, 1e-13):
        v = _eps(f, R(1, 10**6), tol)
        assert v.guarantee == "certified"
        widths.append(float(v.hi - v.lo))
    assert widths[0] >= widths[1] >= widths[2] and widths[2] <= 1e-13 * float(v.hi) * 4
    from tradeoff_algebra.routes.engines import pld_epsilon
    with ta.pld_options(tol=1e-3):
        lo, hi = pld_epsilon([route(f)[1]], mp.mpf(10) ** -6, inversion=False)
    assert lo <= v.hi and v.lo <= hi


def _windowed_laplace_ref(e0, k, mu, eps):
    """sum_K q_K delta_L(eps - l_K) from the first K with l_K > eps - mu (the others add 0) up
    to where the geometric bound of the rest (past the mode) is below 1e-45 of the sum, that
    bound added; masses from log-gamma and the ratio recurrence (mpmath)."""
    w = mp.exp(e0) / (1 + mp.exp(e0))
    K = max(0, int(mp.floor(((eps - mu) / e0 + k) / 2)))
    q = mp.exp(mp.loggamma(k + 1) - mp.loggamma(K + 1) - mp.loggamma(k - K + 1)
               + K * mp.log(w) + (k - K) * mp.log(1 - w))
    s = mp.zero
    while K <= k:
        s += q * _delta_l(mu, eps - e0 * (2 * K - k))
        ratio = (k - K) / mp.mpf(K + 1) * w / (1 - w)
        if ratio < 1 and q * ratio / (1 - ratio) < s * mp.mpf(10) ** -45:
            return s + q * ratio / (1 - ratio), s
        q *= ratio
        K += 1
    return s, s


def test_the_binomial_window_against_the_full_sum(monkeypatch):
    """The windowed binomial sum (BinomialSum) at small k, forced by a small MAX_ATOMS, against
    the exact sum over every atom, with an f_{0,d} part; delta and eps(d)."""
    from tradeoff_algebra.numeric import cf_atom_sum

    monkeypatch.setattr(cf_atom_sum, "MAX_ATOMS", 50)
    k, e0 = 400, R(1, 5)
    f = EpsDelta(e0, R(1, 1000)) ** 3 @ EpsDelta(e0, 0) ** (k - 3) @ ta.Laplace(R(1, 2))
    with mp.workdps(50):
        keep = (1 - mp.mpf(1) / 1000) ** 3
        atoms = [(lg, q * keep) for lg, q in _binomial_atoms(_m(e0), k)]

        def ref(e):
            return 1 - keep + mp.fsum(q * _delta_l(mp.mpf(1) / 2, mp.mpf(e) - lg)
                                      for lg, q in atoms)

        for eps in (0, 5, 30):
            v = _delta(f, eps)
            assert "atoms summed" in v.route
            _assert_in(v, ref(eps))
        for d in (R(1, 100), R(5, 1000)):
            _check_eps_bracket(_eps(f, d), ref, _m(d))


@pytest.mark.slow
def test_binomial_beyond_the_enumerated_atoms_with_laplace():
    """f_{1/10,0}^{(x) 5 10^4} (x) L_1: more atoms than MAX_ATOMS, summed over a window of the
    binomial with its tails bounded (numeric/cf_atom_sum.py, BinomialSum)."""
    from tradeoff_algebra.numeric.cf_atom_sum import MAX_ATOMS

    k, e0 = 5 * 10**4, R(1, 10)
    assert k + 1 > MAX_ATOMS
    f = EpsDelta(e0, 0) ** k @ ta.Laplace(1)
    d = R(1, 10**5)
    v = _eps(f, d)
    assert "atoms summed" in v.route
    with mp.workdps(40):
        # at lo the reference's lower side must exceed d, at hi its upper side must not
        lo_side = _windowed_laplace_ref(_m(e0), k, mp.one, v.lo)[1]
        hi_side = _windowed_laplace_ref(_m(e0), k, mp.one, v.hi)[0]
        assert lo_side >= _m(d) >= hi_side, (v, lo_side, hi_side)
        assert v.hi - v.lo <= 1e-9 * v.hi
        eps = int(v.mid) - 2
        hi, lo = _windowed_laplace_ref(_m(e0), k, mp.one, mp.mpf(eps))
        w = _delta(f, eps)
        assert w.guarantee == "certified" and w.lo <= lo and hi <= w.hi
        assert w.hi - w.lo <= 1e-9 * hi


@pytest.mark.parametrize("other", [G(1), ta.Laplace(1)])
def test_eps_below_the_mass_at_infinity_is_infinite(other):
    """delta(eps) >= D = 1 - (1 - 1e-7)^100 ~ 1e-5 for every eps: eps(1e-6) = oo, proved."""
    f = EpsDelta(R(1, 2), R(1, 10**7)) ** 100 @ other
    v = ta.epsilon(f, R(1, 10**6))
    assert v.guarantee == "certified" and v.lo == v.hi == mp.inf


def _random_pair(rng, n):
    """A finite pair of n outcomes with small rational masses, some P = 0 or Q = 0 entries."""
    while True:
        p = [rng.randint(0, 6) for _ in range(n)]
        q = [rng.randint(0, 6) for _ in range(n)]
        if sum(p) and sum(q) and any(a and b for a, b in zip(p, q, strict=True)):
            return [R(a, sum(p)) for a in p], [R(b, sum(q)) for b in q]


@pytest.mark.parametrize("seed", range(6))
def test_random_products_against_the_convolved_sum(seed):
    """Two random finite pairs (one of them squared), with a random eps_0 f_{eps0,delta} factor,
    next to G_mu or L_mu: the atoms convolved exactly in mpmath, summed against the other
    factor's closed-form profile, the masses at +oo combined by Eq. (11)."""
    import random

    rng = random.Random(seed)
    (P1, Q1), (P2, Q2) = _random_pair(rng, 3), _random_pair(rng, 2)
    e0, d0 = R(rng.randint(1, 9), 10), R(rng.randint(0, 3), 1000)
    mu = R(rng.randint(1, 8), 4)
    cont = G(mu) if seed % 2 == 0 else ta.Laplace(mu)
    f = Discrete(P1, Q1) @ Discrete(P2, Q2) ** 2 @ EpsDelta(e0, d0) @ cont
    eps = R(rng.randint(0, 20), 10)
    v = _delta(f, eps)
    with mp.workdps(50):
        parts = [_pair_atoms(P1, Q1), _pair_atoms(P2, Q2), _pair_atoms(P2, Q2),
                 ([(_m(e0), mp.exp(_m(e0)) / (1 + mp.exp(_m(e0)))),
                   (-_m(e0), 1 / (1 + mp.exp(_m(e0))))], mp.zero)]
        atoms, keep = [(mp.zero, mp.one)], (1 - _m(d0))
        for a, q_inf in parts:
            atoms = [(la + lb, qa * qb) for la, qa in atoms for lb, qb in a]
            keep *= 1 - q_inf
        prof = (lambda x: _delta_g(_m(mu), x)) if seed % 2 == 0 else \
            (lambda x: _delta_l(_m(mu), x))
        truth = 1 - keep + (1 - _m(d0)) * mp.fsum(q * prof(_m(eps) - lg) for lg, q in atoms)
    _assert_in(v, truth)


def test_discrete_laplace_with_irrational_ratio_next_to_g1():
    """DiscreteLaplace(3, 2) (e^{1/2} irrational, Delta = 3: its loss was float-only) next to
    G_1 is certified by the inversion with its atoms' Arb law; reference: sum_x P(x)
    delta_G(eps - l(x)) over x in [-200, 200] at 40 digits, P(x) prop. to e^{-|x|/t},
    l(x) = (|x - Delta| - |x|)/t, delta_G(y) = Phi(-y + 1/2) - e^y Phi(-y - 1/2)."""
    from tradeoff_algebra.numeric.context import mp as mpc

    f = ta.DiscreteLaplace(3, 2) @ ta.G(1)
    v = ta.delta(f, 1)
    assert v.guarantee == "certified"
    with mpc.workdps(40):
        t, D = mpc.mpf(2), 3
        xs = range(-200, 201)
        w = [mpc.exp(-abs(x) / t) for x in xs]
        Z = mpc.fsum(w)

        def dG(y):
            return mpc.ncdf(-y + mpc.mpf(1) / 2) - mpc.exp(y) * mpc.ncdf(-y - mpc.mpf(1) / 2)

        ref = mpc.fsum(wi / Z * dG(1 - (abs(x - D) - abs(x)) / t) for wi, x in zip(w, xs,
                                                                                  strict=True))
        assert mpc.mpf(v.lo) <= ref <= mpc.mpf(v.hi)
        assert mpc.mpf(v.hi) - mpc.mpf(v.lo) < mpc.mpf(10) ** -9 * ref
