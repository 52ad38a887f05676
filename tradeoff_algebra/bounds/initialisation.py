"""One-step DP-GD with random initialisation (Wang, Su, Ye, Shokri & Su, Sec. 5, Thm. 5.1).

One step of DP-GD from theta_0 with step size 1 outputs ``theta(D) = theta_0 - (g(theta_0, D) +
N(0, sigma^2))`` (Eq. (1)). With a random initialisation theta_0 = I ~ N(0, 1) the output given
I is Gaussian, and the joint pair in which I is observed is ``X|I ~ N(0, 1)`` against
``Y|I ~ N(mu_I, 1)``, ``mu_I = (g(I, D1) - g(I, D0))/sigma``. Thm. 5.1 bounds
``T(theta(D0), theta(D1)) >= T((X|I, I), (Y|I, I))`` (joint concavity, Lemma 3.1, for a
continuous index), whose curve is, with ``t_I = s/|mu_I| + |mu_I|/2`` (the paper's t is -s),

    alpha(s) = E_I[Phi(-t_I)],    f(alpha(s)) = E_I[Phi(t_I - |mu_I|)].

The Remark after Thm. 5.1 takes the worst case over neighbouring datasets, mu_I^max. For the
paper's example -- the linear model y_i = a x_i, x_i^2 = 1, per-example gradients
(theta - a) x_i^2 clipped at c, D1 = D0 minus one record -- the worst case is

    mu_I^max = min(|a - I|, c) / sigma

(the paper's display in Sec. 5 prints the signed clip(a - I, -c, c); put into the Remark's
formula, which assumes mu_I^max >= 0, it gives a curve through a point of Id, see
``proofs/wang_mixtures.md``). :class:`DPGDInit` is the node of this curve, the lower bound of
Fig. 2; without the random initialisation the step is c/sigma-GDP (G_{c/sigma}).

Numerics (certified). With u = |I - a| the expectation of h(mu) is

    P(|I - a| > c) h(c/sigma) + int_0^c h(u/sigma) (phi(a - u) + phi(a + u)) du,

and the integral is computed by Arb's rigorous Gauss--Legendre integration
(``acb.integral``, error bounds from analyticity) on [u0, c]; on [0, u0] (the integrand has an
essential singularity at u = 0 where s != 0) it is enclosed by [h(0+), h(u0)] times the exact
mass, h being monotone there (u0 lies below the mode sigma sqrt(2|s|)) and u0 chosen so that h
is within 2^-prec of its limit. The value of the trade-off function at alpha follows from
``bounds.mixtures.parametric_enclosure`` (a certified bracket of the threshold s, then chord and
tangent bounds). Results are enclosures ``lo <= truth <= hi`` at the requested digits.
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp
from mpmath.libmp import round_ceiling, round_floor

from ..core.citations import WANG
from ..core.errors import NumericalError
from ..core.node import TradeOff
from ..core.validate import param
from ..families.gaussian import Gaussian
from ..numeric import budget
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.arb_expr import arb_ball
from ..numeric.context import MPF, arb_precision, mp
from ..numeric.protocol import arb_value, mp_delta, register_value_and_power
from .mixtures import CurvePoint, arb_parametric_value, parametric_enclosure

__all__ = ["DPGDInit", "dpgd_random_init", "dpgd_point", "THM51_CITE"]

#: The source.
THM51_CITE = WANG.thm("5.1", note="with the Remark: mu_I^max = min(|a - I|, c)/sigma")

_OWNER = "DPGDInit"


class DPGDInit(TradeOff):
    """The Thm. 5.1 / Remark lower bound for one step of DP-GD with initialisation
    I ~ N(0, 1) on the clipped linear model of Wang et al., Sec. 5: the trade-off function of
    the joint pair X|I ~ N(0, 1), Y|I ~ N(mu_I, 1) with mu_I = min(|a - I|, c)/sigma.

    ``a`` (real) is the slope of the data y_i = a x_i, ``c > 0`` the clipping threshold of the
    per-example gradients, ``sigma > 0`` the standard deviation of the gradient noise. It lies
    above G_{c/sigma} (the guarantee without random initialisation) and is symmetric (Wang et
    al., Prop. 3.2, every component G_mu being symmetric).
    """

    def __new__(cls, a: Any, c: Any, sigma: Any = 1):
        a = param("a", a, owner=_OWNER)
        c = param("c", c, lower=0, lower_open=True, owner=_OWNER)
        sigma = param("sigma", sigma, lower=0, lower_open=True, owner=_OWNER)
        return TradeOff.__new__(cls, a, c, sigma)

    @property
    def a(self) -> sp.Expr:
        return self.args[0]

    @property
    def c(self) -> sp.Expr:
        return self.args[1]

    @property
    def sigma(self) -> sp.Expr:
        return self.args[2]

    @property
    def is_symmetric(self) -> bool:
        return True

    def gdp_without_initialisation(self) -> Gaussian:
        """G_{c/sigma}: the guarantee of the step when the initialisation is not random."""
        return Gaussian(self.c / self.sigma)

    def _sympystr(self, printer):
        return "DPGDInit(%s)" % ", ".join(printer._print(x) for x in self.args)

    def _latex(self, printer):
        a, c, s = (printer._print(x) for x in self.args)
        return r"T_{\mathrm{init}}\left(a = %s, c = %s, \sigma = %s\right)" % (a, c, s)


def dpgd_random_init(a: Any, c: Any, sigma: Any = 1) -> DPGDInit:
    """The trade-off lower bound of one-step DP-GD with random initialisation I ~ N(0, 1)
    (Wang et al., Thm. 5.1 with the Remark and the example of Sec. 5 / Fig. 2): the linear model
    with slope ``a``, per-example gradients clipped at ``c``, gradient noise N(0, sigma^2).
    ``mu_I^max = min(|a - I|, c)/sigma``; compare with ``G(c/sigma)``."""
    return DPGDInit(a, c, sigma)


def _enclosure(x) -> tuple:
    """(lo, hi) mpf of an Arb ball, rounded outward, intersected with [0, 1]."""
    if not x.is_finite():
        return mp.zero, mp.one
    lo, hi = arb_endpoint(x.lower(), round_floor), arb_endpoint(x.upper(), round_ceiling)
    return max(lo, mp.zero), min(hi, mp.one)


def _integrand(kind: str, s, sig, eps=None):
    """h(u) as an acb function of u (mu = u/sigma, t = s/mu + mu/2) and its limit at u = 0+."""
    from flint import arb

    r2 = arb(2).sqrt()

    def t_of(z):
        mu = z / sig
        return (s / mu + mu / 2) if s != 0 else mu / 2, mu

    if kind == "A":
        def h(z):
            t, _ = t_of(z)
            return (t / r2).erfc() / 2
    elif kind == "Ac":
        def h(z):
            t, _ = t_of(z)
            return (-t / r2).erfc() / 2
    elif kind == "B":
        def h(z):
            t, mu = t_of(z)
            return ((mu - t) / r2).erfc() / 2
    elif kind == "Bc":
        def h(z):
            t, mu = t_of(z)
            return ((t - mu) / r2).erfc() / 2
    else:  # "D": the hockey-stick divergence delta_{G_mu}(eps) (Dong, Roth & Su, Cor. 1)
        ee = eps.exp()

        def h(z):
            mu = z / sig
            return (((eps / mu - mu / 2) / r2).erfc()
                    - ee * ((eps / mu + mu / 2) / r2).erfc()) / 2
    return h


def _limit0(kind: str, sgn: int) -> int | None:
    """h(0+) for the sign of s (or of eps for "D"); None where s = 0 (h is analytic at 0)."""
    if kind == "D":
        return 0
    if sgn == 0:
        return None
    table = {"A": (0, 1), "Ac": (1, 0), "B": (1, 0), "Bc": (0, 1)}
    return table[kind][0 if sgn > 0 else 1]


def _expectation(f: DPGDInit, kind: str, x: MPF) -> tuple:
    """Enclosure of E_I[h(mu_I)] (h of ``kind`` at threshold s = x, or delta at eps = x)."""
    from flint import acb, arb

    prec = mp.prec + 24
    K = math.sqrt(2 * math.log(2) * prec) + 4
    for attempt in range(6):
        with arb_precision(prec):
            a, c, sig = arb_ball(f.a), arb_ball(f.c), arb_ball(f.sigma)
            xs = arb_exact(x)
            sgn = 0 if x == 0 else (1 if x > 0 else -1)
            if kind == "D":
                h = _integrand("D", None, sig, eps=xs)
            else:
                h = _integrand(kind, xs, sig)
            r2 = arb(2).sqrt()
            c_rho = 1 / (2 * arb.pi()).sqrt()

            def integrand(z, _analytic, h=h, a=a, c_rho=c_rho):
                if budget.expired():  # (an exception would not leave the integration: budget)
                    return acb(0)
                return h(z) * ((-(a - z) ** 2 / 2).exp() + (-(a + z) ** 2 / 2).exp()) * c_rho

            lim = _limit0(kind, sgn)
            if lim is None or x == 0:
                u0 = arb(0)
            else:
                ax = abs(xs)
                u0 = ax * sig / K
                mode = sig * (2 * ax).sqrt() / 2
                if mode < u0:
                    u0 = mode
                if u0 > c:
                    u0 = c
                u0 = arb(u0.mid())  # an exact point
            total = arb(0)
            if u0 != 0:
                # mass of [0, u0]: Phi(a + u0) - Phi(a - u0)
                m0 = (((a + u0) / r2).erf() - ((a - u0) / r2).erf()) / 2
                hu = h(acb(u0)).real
                span = arb(lim).union(hu) if hu.is_finite() else arb(0).union(arb(1))
                piece = m0 * span
                total += piece
            if u0 < c:
                est = acb.integral(integrand, u0, c).real
                budget.check()
                if est.is_finite() and est.mid() != 0:
                    tol = abs(est.mid()) * arb(2) ** (-prec)
                    est = acb.integral(integrand, u0, c, abs_tol=tol,
                                       rel_tol=arb(2) ** (-prec)).real
                    budget.check()
                total += est
            wc = (((c - a) / r2).erfc() + ((c + a) / r2).erfc()) / 2
            total += wc * h(acb(c)).real
            ok = total.is_finite() and (total.rad() <= abs(total.mid()) * arb(2) ** (-mp.prec + 4)
                                        or total.rad() < arb(2) ** (-4 * prec))
            enc = _enclosure(total)
        if ok:
            return enc
        prec += 32 * (attempt + 1)
        K *= 1.5
    return enc


def dpgd_point(f: DPGDInit, s: Any) -> CurvePoint:
    """The point (alpha(s), f(alpha(s))) of the curve at threshold s, as enclosures
    (:class:`~tradeoff_algebra.bounds.mixtures.CurvePoint`, computed lazily)."""
    s = mp.mpf(s)

    def get(name):
        if name == "slope":
            with mp.workprec(mp.prec + 20):
                e = mp.exp(s)
            tol = mp.ldexp(1, -mp.prec - 10)
            return e * (1 - tol), e * (1 + tol)
        return _expectation(f, name, s)

    return CurvePoint(s, get)


def _value(f: DPGDInit, a, ac, power: bool):
    if a == 0 or ac == 0:
        one, zero = mp.one, mp.zero
        v = (zero if a == 0 else one) if power else (one if a == 0 else zero)
        return v, v
    if f.free_symbols:
        raise NumericalError(f"{f}: substitute values for the symbols first")
    cs = mp.mpf(float(f.c / f.sigma))
    return parametric_enclosure(lambda lam: dpgd_point(f, lam), a, ac, power=power,
                                what=f"evaluate({f})", step=max(cs, mp.mpf(1) / 4))


register_value_and_power(DPGDInit, _value)


def _ball_point(p: CurvePoint) -> dict | None:
    """The point's enclosures as Arb balls: A, Ac, B, Bc are Arb integrals rounded outward
    (:func:`_expectation`), taken exactly; the slope e^s is formed in Arb."""
    from ..numeric.arb_expr import ball_from_interval

    out = {}
    for name in ("A", "Ac", "B", "Bc"):
        lo, hi = p.get(name)
        if not (mp.isfinite(lo) and mp.isfinite(hi)):
            return None
        out[name] = ball_from_interval(lo, hi)
    out["slope"] = arb_exact(mp.mpf(p.lam)).exp()
    return out


def _arb_value(f: DPGDInit, a, ac, power: bool):
    """The Arb ball of f(alpha) (``bounds.mixtures.arb_parametric_value``), or None."""
    if f.free_symbols:
        return None
    cs = mp.mpf(float(f.c / f.sigma))
    return arb_parametric_value(lambda lam: dpgd_point(f, lam), _ball_point, a, ac, power,
                                what=f"evaluate({f})", step=max(cs, mp.mpf(1) / 4))


arb_value.register(DPGDInit)(_arb_value)


@mp_delta.register(DPGDInit)
def _(f, eps):
    """delta(eps) = E_I[delta_{G_{mu_I}}(eps)] (the privacy profile of a pair with an observed
    index is the average of its components' profiles), certified by Arb."""
    if eps == mp.inf:
        return mp.zero, mp.zero
    return _expectation(f, "D", mp.mpf(eps))
