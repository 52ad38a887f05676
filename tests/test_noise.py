"""analysis.noise: the closed forms of the noise distributions against Arb quadrature of their
densities (``acb.integral``, with the truncated tails bounded), exact sums and SymPy."""

from __future__ import annotations

import pytest
import sympy as sp
from flint import acb, arb, ctx

from tradeoff_algebra.analysis import noise
from tradeoff_algebra.core.errors import InvalidParameter
from tradeoff_algebra.numeric.arb_expr import arb_enclose

R = sp.Rational
PREC = 128


@pytest.fixture(autouse=True)
def _arb_precision():
    """Every ball of this module at PREC bits (python-flint's context is global)."""
    old = ctx.prec
    ctx.prec = PREC
    yield
    ctx.prec = old


def _ball(expr) -> arb:
    """An Arb ball of a closed form without free symbols (the library's Arb layer)."""
    return arb_enclose(sp.sympify(expr), prec=PREC)


def _quad(f, a, b) -> arb:
    """Arb quadrature of the analytic integrand f (acb -> acb) over [a, b]."""
    return acb.integral(lambda z, _: f(z), a, b).real


def _agree(x: arb, y: arb, digits: int = 20) -> bool:
    """Both balls narrower than 10^-digits and overlapping."""
    w = arb(10) ** -digits
    return x.rad() < w and y.rad() < w and x.overlaps(y)


def _phi(z):
    return (-z * z / 2).exp() / (2 * arb.pi()).sqrt()


def _Phi(z):
    return (-z / arb(2).sqrt()).erfc() / 2


# -- Laplace -----------------------------------------------------------------------------------
@pytest.mark.parametrize("b", [R(3, 10), 1, 7])
def test_laplace_density_mass_tail_and_mean(b):
    ab = arb(sp.Rational(b).p) / sp.Rational(b).q
    L = 80 * ab  # P[|X| > L] = e^-80 < 1e-34

    def dens(z):  # e^{-z/b}/(2b) on z >= 0 (analytic there)
        return (-z / ab).exp() / (2 * ab)

    mass = 2 * _quad(dens, 0, L) + arb(0, arb(-80).exp())
    assert _agree(mass, arb(1))
    x = sp.Symbol("x", real=True)
    assert sp.integrate(noise.laplace_density(x, b), (x, -sp.oo, sp.oo)) == 1
    for t in (R(1, 2), 2, 9):
        tail = 2 * _quad(dens, arb(sp.Rational(t).p) / sp.Rational(t).q, L) \
            + arb(0, arb(-80).exp())
        assert _agree(tail, _ball(noise.laplace_tail(t, b)))
        assert _agree(tail / 2, _ball(noise.laplace_upper_tail(t, b)))
    mean = 2 * _quad(lambda z: z * dens(z), 0, L) + arb(0, 100 * L * arb(-80).exp())
    assert _agree(mean, _ball(noise.laplace_mean_abs(b)))


@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_laplace_max_abs_mean_against_quadrature_and_sympy(k):
    """E max |X_i| = int_0^oo P[max > t] dt = int (1 - (1 - e^{-t/b})^k) dt."""
    b = 2
    L = 200

    def surv(z):
        return 1 - (1 - (-z / b).exp()) ** k

    q = _quad(surv, 0, L) + arb(0, k * 2 * arb(-100).exp())  # tail <= k b e^{-L/b}
    assert _agree(q, _ball(noise.laplace_max_abs_mean(k, b)))
    t = sp.Symbol("t", positive=True)
    assert sp.simplify(sp.integrate(1 - (1 - sp.exp(-t / b)) ** k, (t, 0, sp.oo))
                       - noise.laplace_max_abs_mean(k, b)) == 0


# -- Gaussian ----------------------------------------------------------------------------------
@pytest.mark.parametrize("s,t", [(1, R(1, 2)), (R(3, 2), 4), (R(1, 3), 1)])
def test_gaussian_tail_against_quadrature(s, t):
    a_s = arb(sp.Rational(s).p) / sp.Rational(s).q
    a_t = arb(sp.Rational(t).p) / sp.Rational(t).q
    L = 40 * a_s  # P[|X| > 40 s] < 1e-340
    q = 2 * _quad(lambda z: _phi(z / a_s) / a_s, a_t, L) + arb(0, arb(10) ** -300)
    assert _agree(q, _ball(noise.gaussian_tail(t, s)))


@pytest.mark.parametrize("k", [2, 3, 10, 40])
def test_gaussian_max_abs_bounds_bracket_quadrature(k):
    """E max |X_i| = int_0^oo (1 - (1 - 2 Phi(-t))^k) dt by Arb quadrature lies between the
    two bounds."""
    L = 40
    q = _quad(lambda z: 1 - (1 - 2 * _Phi(-z)) ** k, 0, L) + arb(0, k * arb(10) ** -300)
    assert q.rad() < 1e-20
    lo, hi = _ball(noise.gaussian_max_abs_lower(k, 1)), _ball(noise.gaussian_max_abs_upper(k, 1))
    assert lo < q < hi


# -- sinh-normal -------------------------------------------------------------------------------
@pytest.mark.parametrize("A,s", [(2, 1), (R(1, 2), R(3, 2))])
def test_sinh_normal_density_and_tail(A, s):
    aA = arb(sp.Rational(A).p) / sp.Rational(A).q
    aS = arb(sp.Rational(s).p) / sp.Rational(s).q

    def dens(z):  # the density of Z by the change of variables, written out independently
        u = aA / aS * (z / aA).sinh()
        return _phi(u) * (z / aA).cosh() / aS

    # the tails beyond L: P[|Z| > L] = 2 Phi(-(A/s) sinh(L/A)) is below 1e-300 at L = 8 A
    L = 8 * aA
    mass = 2 * _quad(dens, 0, L) + arb(0, arb(10) ** -300)
    assert _agree(mass, arb(1))
    z = sp.Symbol("z", real=True)
    d = noise.sinh_normal_density(z, A, s)
    for t in (R(1, 4), 1, 3):
        at = arb(sp.Rational(t).p) / sp.Rational(t).q
        tail = 2 * _quad(dens, at, L) + arb(0, arb(10) ** -300)
        assert _agree(tail, _ball(noise.sinh_normal_tail(t, A, s)))
        assert _ball(noise.sinh_normal_tail(t, A, s)) <= _ball(
            noise.sinh_normal_tail_bound(t, A, s))
        assert _agree(_ball(d.subs(z, t)), dens(at))


def test_sinh_normal_tail_derivative_is_the_density():
    t, A, s = sp.symbols("t A s", positive=True)
    diff = sp.diff(noise.sinh_normal_tail(t, A, s), t) + 2 * noise.sinh_normal_density(t, A, s)
    assert sp.simplify(diff.rewrite(sp.erfc)) == 0


# -- truncated Laplace -------------------------------------------------------------------------
def _tlap_hockey(Delta, b, B, eps) -> arb:
    """int (q - e^eps p)_+ for p = TLap(b, B), q = Delta + TLap(b, B), by Arb quadrature on the
    pieces where the sign of q - e^eps p is constant (split at -B, Delta - B, 0, the crossing
    (Delta + b eps)/2 when it lies in (0, Delta), Delta, B, B + Delta)."""
    c = 1 / (2 * b * (1 - (-B / b).exp()))

    def p(z):
        return c * (-z / b).exp() if z.real > 0 else c * (z / b).exp()

    cuts = sorted({-B, Delta - B, arb(0), Delta, B, B + Delta}, key=lambda x: float(x.mid()))
    x_star = (Delta + b * eps) / 2
    if 0 < x_star < Delta:
        cuts = sorted(cuts + [x_star], key=lambda x: float(x.mid()))
    total = arb(0)
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        mid = (lo + hi) / 2
        in_p = -B <= mid.mid() <= B
        in_q = Delta - B <= mid.mid() <= Delta + B
        if in_q and not in_p:
            piece = _quad(lambda z: c * (-(z - Delta) / b).exp(), lo, hi)
        elif in_q and in_p:
            sq = 1 if float((mid - Delta).mid()) > 0 else -1
            sp_ = 1 if float(mid.mid()) > 0 else -1

            def g(z, sq=sq, sp_=sp_):
                return (c * (-sq * (z - Delta) / b).exp()
                        - eps.exp() * c * (-sp_ * z / b).exp())

            piece = _quad(g, lo, hi)
        else:
            continue
        if piece > 0:
            total += piece
        elif not piece < 0 and not (piece.mid() == 0 and piece.rad() < 1e-30):
            total += arb(0).union(piece)  # sign unresolved: keep both
    return total


@pytest.mark.parametrize("Delta,b,B", [(1, 1, 5), (1, R(1, 2), 3), (R(3, 2), 2, 4)])
def test_truncated_laplace_delta_against_hockey_stick_quadrature(Delta, b, B):
    aD, ab, aB = (arb(sp.Rational(v).p) / sp.Rational(v).q for v in (Delta, b, B))
    closed = _ball(noise.truncated_laplace_delta(Delta, b, B))
    for e in (aD / ab, aD / ab + R(1, 3).p / arb(3)):
        assert _agree(_tlap_hockey(aD, ab, aB, e), closed)
    below = _tlap_hockey(aD, ab, aB, aD / ab / 2)  # at eps < Delta/b delta is larger
    assert below > closed
    x = sp.Symbol("x", real=True)
    assert sp.simplify(sp.integrate(noise.truncated_laplace_density(x, b, B),
                                    (x, -B, B))) == 1


# -- input checks ------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: noise.laplace_density(0, -1), lambda: noise.laplace_tail(-1, 1),
    lambda: noise.laplace_max_abs_mean(0, 1), lambda: noise.gaussian_tail(1, 0),
    lambda: noise.gaussian_max_abs_lower(1, 1), lambda: noise.sinh_normal_tail(1, -2, 1),
    lambda: noise.truncated_laplace_delta(3, 1, 2)])
def test_bad_parameters_name_themselves(call):
    with pytest.raises(InvalidParameter, match="parameter"):
        call()
