"""Independent references for the fourth audit of the certified routes (no ``tradeoff_algebra``
import): few-step DP-SGD brackets with a cheap saddle-point tilt, Laplace products of many
different scales by dp_accounting's PLD pair, and the Renyi divergence of the subsampling hull
C_p(f) by 40-digit quadrature.

* **DP-SGD, T = 3 .. 30** (:func:`sgd_few_bracket`): the rounded-grid bracket of
  ``audit3_refs.sgd_bracket`` (losses rounded down give a lower bound of delta, up an upper
  bound: delta(e) = E_A[(1 - e^{e - L_1 - ... - L_T})_+] is non-decreasing in each loss), with
  the tilt c chosen by :func:`sgd_tilt`: the minimiser over c of T log E_A[e^{cL}] - c e from a
  Riemann sum in x over the window where the tilted integrand lives (x in [-40, 40] for "add",
  whose loss is at most -log(1 - q); up to (c + 1) mu + 40 for "remove"). The tilt only decides
  where the bracket spends its points; any c >= 0 gives a valid bracket.
* **Laplace(mu_1) (x) ... (x) Laplace(mu_r)** (:func:`dpa_laplace_bracket`): dp_accounting's
  optimistic and pessimistic PLDs (connect-the-dots) composed factor by factor (float64, not
  proved: the callers widen it); for a few factors ``audit3_refs.laplace_product_bracket``.
* **D_a(C_p(f))** (:func:`hull_renyi_gauss`, :func:`hull_renyi_laplace`): the hull of
  subsampling without replacement (Dong, Roth & Su, Eq. (13)) is the trade-off of the pair made
  of P0 against Q' = (1 - p) P0 + p Q1 on {w > 1} (w = q1/p0), its mirror image, and a common
  part of mass c = 1 - P0(w > 1) - Q'(w > 1); so
  E[(P_h/Q_h)^a] = int_{w > 1} (p0^a q'^(1-a) + q'^a p0^(1-a)) dx + c. Written here with
  the integrand as p0 (L^a + L^(1-a)), L = 1 - p + p w, integrated over x - t in [0, oo) with
  breakpoints at the peak of each term (the a-th tilt sits near x = a mu for the Gaussian),
  in a private 40-digit mpmath context; D_a = log(.)/(a - 1). At p = 1 it is the base's own
  D_a (a mu^2/2 for G_mu, Mironov's closed form for L_mu): checked in the tests.
"""

from __future__ import annotations

import math

import numpy as np

from . import audit3_refs as A3
from .audit5_refs import dpa_laplace_pair
from .contexts import mp_context as _ctx

__all__ = ["sgd_tilt", "sgd_few_bracket", "sgd_few_sym_bracket", "dpa_laplace_bracket",
           "hull_renyi_gauss", "hull_renyi_laplace", "renyi_laplace", "laplace_bracket"]


# ---------------------------------------------------------------------------------------------
# few-step DP-SGD
# ---------------------------------------------------------------------------------------------

def _sgd_log_mgf(mu: float, q: float, direction: str, c: float) -> float:
    """log E_A[e^{c L}] of one step, a Riemann sum in x (only chooses the tilt)."""
    from scipy.special import logsumexp

    top = 40.0 + ((c + 1) * mu if direction == "remove" else 0.0)
    x = np.linspace(-40.0, top, 40001)
    dx = x[1] - x[0]
    lm = np.logaddexp(math.log1p(-q), math.log(q) + mu * x - mu * mu / 2)
    k = (c + 1) if direction == "remove" else -c
    return float(logsumexp(-x * x / 2 + k * lm) + math.log(dx / math.sqrt(2 * math.pi)))


def sgd_tilt(mu: float, q: float, T: int, e: float, direction: str,
             cmax: float = 3000.0) -> float:
    """The saddle-point tilt in [0, cmax] of T steps at e (golden section on the convex
    T log M(c) - c e); 0 at e <= 0."""
    if e <= 0:
        return 0.0
    return A3.saddle_tilt(lambda t: _sgd_log_mgf(mu, q, direction, t), T, e, cmax)


def sgd_few_bracket(mu: float, q: float, T: int, e: float, direction: str,
                    max_points: int = 2**19, rel: float = 3e-3):
    """(lower, upper) of delta_T(e) of one direction (``audit3_refs.sgd_bracket`` at the tilt
    of :func:`sgd_tilt`)."""
    c = sgd_tilt(mu, q, T, e, direction)
    lo, hi, _, _ = A3.sgd_bracket(mu, q, T, e, direction, c=c, max_points=max_points, rel=rel)
    return lo, hi


def sgd_few_sym_bracket(mu: float, q: float, T: int, e: float, **kw):
    """(lower, upper) of the add/remove hull's delta_T(e): the larger direction."""
    lr, ur = sgd_few_bracket(mu, q, T, e, "remove", **kw)
    la, ua = sgd_few_bracket(mu, q, T, e, "add", **kw)
    return max(lr, la), max(ur, ua)


# ---------------------------------------------------------------------------------------------
# Laplace factors of different scales
# ---------------------------------------------------------------------------------------------

def dpa_laplace_bracket(mus: list[float], e: float, h: float = 1e-4):
    """(optimistic, pessimistic) delta(e) of dp_accounting's Laplace PLDs (scale b = 1/mu,
    sensitivity 1: the loss of Laplace(mu)) composed over the factors (float64):
    audit5_refs.dpa_laplace_pair without Gaussian factors."""
    return dpa_laplace_pair(mus, e, h)


def laplace_bracket(mus: list[float], e: float):
    """(lower, upper) of delta(e) of the product: the rounded-grid bracket for a short total
    span (its width ~ r h in the loss), else dp_accounting's pair."""
    span = sum(mus)
    r = len(mus)
    h = min(2e-5, 2e-3 / r)
    if r <= 40 and 2 * span / h <= 2**22:
        return A3.laplace_product_bracket(mus, e, h)
    return dpa_laplace_bracket(mus, e, 1e-4 if r > 100 else 2e-5)


# ---------------------------------------------------------------------------------------------
# Renyi divergences of the subsampling hull C_p(f)
# ---------------------------------------------------------------------------------------------

def _num(c, x):
    """x (an int, a Fraction, a SymPy Rational or a float) as an mpf of context c, exactly
    rounded."""
    if hasattr(x, "numerator"):
        return c.mpf(int(x.numerator)) / int(x.denominator)
    if hasattr(x, "p") and hasattr(x, "q"):
        return c.mpf(int(x.p)) / int(x.q)
    return c.mpf(x)


def _hull(c, p0, w, tail_p0, tail_q1, t, a, p, peaks):
    """log E[(P_h/Q_h)^a] / (a - 1) (module docstring) in context c."""
    def g(x):
        L = 1 - p + p * w(x)
        return p0(x) * (L**a + L ** (1 - a))

    pts = sorted({t, *[x for x in peaks if x > t]})
    integral = c.quad(g, [*pts, c.inf], maxdegree=10)
    P, Q1 = tail_p0(t), tail_q1(t)
    common = 1 - P - ((1 - p) * P + p * Q1)
    return c.log(integral + common) / (a - 1)


def hull_renyi_gauss(mu, p, a, dps: int = 40):
    """D_a(C_p(G_mu)): P0 = N(0, 1), Q1 = N(mu, 1), w = e^{mu x - mu^2/2} > 1 iff x > mu/2."""
    c = _ctx(dps)
    mu, p, a = (_num(c, x) for x in (mu, p, a))
    t = mu / 2
    peaks = [t + 1, t + 3, a * mu - 2, a * mu, a * mu + 2, a * mu + 6, a * mu + 12, mu + 8]
    return _hull(c, c.npdf, lambda x: c.exp(mu * x - mu * mu / 2), lambda x: c.ncdf(-x),
                 lambda x: c.ncdf(mu - x), t, a, p, peaks)


def hull_renyi_laplace(mu, p, a, dps: int = 40):
    """D_a(C_p(L_mu)): P0 = Lap(0, 1), Q1 = Lap(mu, 1), w = e^{|x| - |x - mu|} > 1 iff
    x > mu/2 (w = e^mu for x >= mu)."""
    c = _ctx(dps)
    mu, p, a = (_num(c, x) for x in (mu, p, a))
    t = mu / 2

    def tail(x, m):  # P(X > x), X ~ Lap(m, 1)
        return c.exp(-(x - m)) / 2 if x >= m else 1 - c.exp(x - m) / 2

    return _hull(c, lambda x: c.exp(-abs(x)) / 2, lambda x: c.exp(abs(x) - abs(x - mu)),
                 lambda x: tail(x, 0), lambda x: tail(x, mu), t, a, p,
                 [mu, mu + 10, mu + 40, mu + 100])


def renyi_laplace(mu, a, dps: int = 40):
    """D_a(Lap(mu, 1) || Lap(0, 1)) by Mironov's Prop. 6 (the p = 1 check of the hull)."""
    c = _ctx(dps)
    mu, a = _num(c, mu), _num(c, a)
    return c.log(a / (2 * a - 1) * c.exp((a - 1) * mu)
                 + (a - 1) / (2 * a - 1) * c.exp(-a * mu)) / (a - 1)
