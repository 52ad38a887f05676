"""Both sides of Wang et al.'s Thm. 5.1 for the unclipped linear example, as certified Arb
curve points (Wang, Su, Ye, Shokri & Su, Sec. 5).

One step of DP-GD from theta_0 = I ~ N(0, 1) with step size 1 outputs ``theta(D) = I - (g(I, D)
+ N(0, sigma^2))`` (Eq. (1)). In the example of Sec. 5 -- D0 = {(x_i, a x_i)}, x_i^2 = 1, n
records, D1 = D0 without one record, squared loss -- the gradient is g(theta, D) = |D|
(theta - a), linear in theta, so without clipping the outputs are normal ("the trade-off
function has a closed-form representation"):

    theta(D0) ~ N(n a, (n - 1)^2 + sigma^2),     theta(D1) ~ N((n - 1) a, (n - 2)^2 + sigma^2),

and Thm. 5.1's right-hand side is the curve of the joint pair X|I ~ N(0, 1), Y|I ~ N(mu_I, 1)
with mu_I = (g(I, D1) - g(I, D0))/sigma = (a - I)/sigma: with t_I = s/|mu_I| + |mu_I|/2 (the
paper's t is -s; its two indicator branches are this formula with |mu_I|),

    alpha(s) = E_I[Phi(-t_I)],      beta(s) = E_I[Phi(t_I - |mu_I|)].

Left side (:func:`output_point`): the pair N(m0, s0^2), N(m1, s1^2) with s1 < s0 is, in z =
(x - m0)/s0, N(0, 1) against N(d, r^2), r = s1/s0 < 1; the Neyman--Pearson tests reject on the
intervals |z - c| < w about the vertex c = |d|/(1 - r^2) of the log-likelihood ratio (Dong,
Roth & Su, Def. 2; ``families/normal_pair.py``), so the curve is

    alpha(w) = Phi(c + w) - Phi(c - w),     T(alpha(w)) = Phi(c r - w/r) + Phi(-c r - w/r).

Right side (:func:`joint_point`): with u = |a - I| the expectation of h(|mu_I|) is
``int_0^oo h(u/sigma) (phi(a - u) + phi(a + u)) du``: Arb's rigorous integration
(``acb.integral``) on [u0, U]; on [0, u0], where h has an essential singularity for s != 0, h is
monotone (u0/sigma below sqrt(2|s|)) and within 2^-prec of its limit h(0+) at u0, so that piece
is the exact mass times [h(0+), h(u0)]; beyond U = |a| + 40 the mass P(|I - a| > U) times [0, 1].

Every input may be an Arb ball (``a`` over an interval of slopes): the results enclose the
values for every point of the balls. Call inside ``numeric.context.arb_precision``.
"""

from __future__ import annotations

import math
from typing import Any

from ..core.citations import WANG
from ..numeric import budget

__all__ = ["THM51_EXAMPLE", "output_laws", "output_point", "output_slopes", "joint_point",
           "joint_alpha", "joint_beta", "SLOPE_LIPSCHITZ", "CURVATURE"]

#: The source: Thm. 5.1 and the unclipped example of Sec. 5.
THM51_EXAMPLE = WANG.thm("5.1", note="the linear example of Sec. 5 without clipping")

#: The tail beyond |a| + TAIL carries mass below Phi(-TAIL) ~ 1e-350.
TAIL = 40


def output_laws(a: Any, n: int, sigma: Any = 1) -> tuple:
    """(m0, s0, m1, s1): theta(D0) ~ N(m0, s0^2), theta(D1) ~ N(m1, s1^2) for the unclipped
    example with slope ``a``, ``n >= 2`` records and noise ``sigma`` (SymPy numbers)."""
    import sympy as sp

    if int(n) != n or n < 2:
        from ..core.errors import InvalidParameter

        raise InvalidParameter("n", n, "an integer >= 2 (D1 removes one record of D0)")
    a, sigma = sp.sympify(a), sp.sympify(sigma)
    return (n * a, sp.sqrt((n - 1) ** 2 + sigma**2), (n - 1) * a,
            sp.sqrt((n - 2) ** 2 + sigma**2))


def _Phi(x):
    """Phi(x) for an arb or acb x."""
    from flint import arb

    return (-x / arb(2).sqrt()).erfc() / 2


def output_point(a, n: int, w, sigma=1) -> tuple:
    """(alpha, T(alpha)) of T(theta(D0), theta(D1)) at the half-width ``w >= 0`` of the
    rejection interval, as Arb balls (``a``, ``w``, ``sigma`` arb or exact numbers)."""
    from flint import arb

    a, w, sigma = arb(a), arb(w), arb(sigma)
    s0 = ((n - 1) ** 2 + sigma**2).sqrt()
    s1 = ((n - 2) ** 2 + sigma**2).sqrt()
    r = s1 / s0
    c = abs(a) / s0 / (1 - r**2)
    al = _Phi(c + w) - _Phi(c - w)
    be = _Phi(c * r - w / r) + _Phi(-c * r - w / r)
    return al, be


def _h(kind: str, s, sigma):
    """h(u) of the right side as a function of an acb u: ``"A"`` Phi(-t), ``"B"``
    Phi(t - mu), mu = u/sigma, t = s/mu + mu/2 (at s = 0 both are Phi(-mu/2))."""
    if s == 0:
        return lambda u: _Phi(-(u / sigma / 2))
    if kind == "A":
        return lambda u: _Phi(-(s * sigma / u + u / sigma / 2))
    return lambda u: _Phi(s * sigma / u - u / sigma / 2)


def _limit0(kind: str, s) -> int:
    """h(0+) for s != 0."""
    pos = s > 0
    return (0 if pos else 1) if kind == "A" else (1 if pos else 0)


def _phi(x):
    """The standard normal density at an arb or acb x."""
    from flint import arb

    return (-x**2 / 2).exp() / (2 * arb.pi()).sqrt()


def _expectation(kind: str, a, s, sigma, prec: int, deriv: bool = False):
    """Ball of E_I[h(|a - I|)] (module docstring), or with ``deriv`` of its derivative in a,
    int_0^oo h(u) dw_a/du du with dw_a/da(u) = -(a - u) phi(a - u) - (a + u) phi(a + u): the
    same pieces, the one near 0 as h(0+) d/da P(|I - a| < u0) plus |h(u0) - h(0+)| times
    int_0^u0 |dw_a/da| <= u0/2, the tail as +-(phi(U - a) + phi(U + a))."""
    from flint import acb, arb

    a, s, sigma = arb(a), arb(s), arb(sigma)
    h = _h(kind, acb(s), acb(sigma))
    ac = acb(a)
    if deriv:
        def integrand(z, _analytic):
            return -h(z) * ((ac - z) * _phi(ac - z) + (ac + z) * _phi(ac + z))
    else:
        def integrand(z, _analytic):
            return h(z) * (_phi(ac - z) + _phi(ac + z))

    total = arb(0)
    U = arb(math.ceil(float(abs(a).upper())) + TAIL)
    if s == 0:
        u0 = arb(0)
    elif s.contains(0):
        raise ValueError("s must be exact or away from 0")
    else:
        K = math.sqrt(2 * math.log(2) * prec) + 4
        bound = (2 * abs(s)).sqrt() * sigma / 2  # below sqrt(2|s|) sigma: h monotone
        u0 = arb((abs(s) * sigma / K).min(bound).lower().mid())
        h0 = arb(_limit0(kind, s))
        hu = h(acb(u0)).real
        if deriv:
            total += h0 * (_phi(a + u0) - _phi(a - u0))
            total += abs(hu - h0) * u0 / 2 * arb(0).union(arb(1)) * arb(-1).union(arb(1))
        else:
            m0 = _Phi(a + u0) - _Phi(a - u0)  # P(|I - a| < u0)
            total += m0 * h0.union(hu)
    est = budget.integral(integrand, u0, U, rel_tol=arb(2) ** (-prec),
                          abs_tol=arb(2) ** (-prec)).real
    total += est
    if deriv:
        total += (_phi(U - a) + _phi(U + a)) * arb(-1).union(arb(1))
    else:
        total += (_Phi(a - U) + _Phi(-a - U)) * arb(0).union(arb(1))  # P(|I - a| > U)
    return total


def joint_alpha(a, s, sigma=1, prec: int = 64, deriv: bool = False):
    """alpha(s) = E_I[Phi(-t_I)] of the right side as an Arb ball (:func:`joint_point`);
    ``deriv``: its derivative in a."""
    return _expectation("A", a, s, sigma, prec, deriv)


def joint_beta(a, s, sigma=1, prec: int = 64, deriv: bool = False):
    """beta(s) = E_I[Phi(t_I - |mu_I|)] of the right side as an Arb ball; ``deriv``: its
    derivative in a."""
    return _expectation("B", a, s, sigma, prec, deriv)


def SLOPE_LIPSCHITZ():
    """3/(2 sqrt(2 pi)) (an Arb ball): for a >= 0, |d/da E_I[h(|a - I|)]| <= 3/(2 sqrt(2 pi))
    for every h with values in [0, 1]. The density of u = |a - I| is w_a(u) = phi(a - u) +
    phi(a + u), of mass 1 for every a, so int_0^oo dw_a/da du = 0 and
    |int h dw_a/da| <= (1/2) int_0^oo |dw_a/da| du <= (1/2)(int_{-a}^oo |v| phi(v) dv
    + int_a^oo v phi(v) dv) <= (1/2)(sqrt(2/pi) + phi(a)) <= 3/(2 sqrt(2 pi)). So alpha(s) and
    beta(s) move by at most that much per unit of a."""
    from flint import arb

    return 3 / (2 * (2 * arb.pi()).sqrt())


#: |d^2/da^2 E_I[h(|a - I|)]| <= 2 for h in [0, 1]: d^2 w_a/da^2 = ((a - u)^2 - 1) phi(a - u)
#: + ((a + u)^2 - 1) phi(a + u), of integral 0 over [0, oo) and of absolute integral at most
#: 2 E|Z^2 - 1| <= 4, so the integral against h is at most half of it.
CURVATURE = 2


def output_slopes(a, n: int, w, sigma=1) -> tuple:
    """(d alpha/da, d T/da) of :func:`output_point` at fixed w, as Arb balls: with
    c = kappa |a|, kappa = 1/(s0 (1 - r^2)), d alpha/da = kappa (phi(c + w) - phi(c - w)) and
    dT/da = kappa r (phi(c r - w/r) - phi(-c r - w/r)) (a > 0)."""
    from flint import arb

    a, w, sigma = arb(a), arb(w), arb(sigma)
    s0 = ((n - 1) ** 2 + sigma**2).sqrt()
    s1 = ((n - 2) ** 2 + sigma**2).sqrt()
    r = s1 / s0
    kappa = 1 / s0 / (1 - r**2)
    c = kappa * a
    return (kappa * (_phi(c + w) - _phi(c - w)),
            kappa * r * (_phi(c * r - w / r) - _phi(-c * r - w / r)))


def joint_point(a, s, sigma=1, prec: int = 64) -> tuple:
    """(alpha(s), beta(s)) of Thm. 5.1's right side (the joint pair with mu_I = (a - I)/sigma,
    unclipped) as Arb balls; ``s`` exact (the paper's t is -s), ``a`` and ``sigma`` arb or
    exact. ``prec``: the bits of the integration's tolerance."""
    return (_expectation("A", a, s, sigma, prec), _expectation("B", a, s, sigma, prec))
