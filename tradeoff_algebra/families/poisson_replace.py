"""One step of the Poisson-subsampled Gaussian mechanism under replace-one neighbours.

Replacing one record x by x' changes a clipped gradient sum S + b g(x) into S + b g(x'), with
b ~ Bernoulli(q) the record's inclusion and ||g(x) - g(x')|| <= 2 ||g|| (the worst case is
g(x') = -g(x)). With noise N(0, sigma^2) and mu = ||g||/sigma the pair is (after shifting and
scaling)

    P = (1 - q) N(0, 1) + q N(mu, 1),    Q = (1 - q) N(0, 1) + q N(-mu, 1),

``PoissonReplace(mu, q) = T(P, Q)`` (the "substitution" pair of PLD accountants). Its
likelihood ratio ``dQ/dP(x) = ((1 - q) + q c e^{-mu x})/((1 - q) + q c e^{mu x})``,
``c = e^{-mu^2/2}``, decreases in x, so the Neyman-Pearson tests reject for x < t:

    alpha = F_P(t) = (1 - q) Phi(t) + q Phi(t - mu),
    1 - f(alpha) = F_Q(t) = (1 - q) Phi(t) + q Phi(t + mu).

The reflection x -> -x exchanges P and Q, so f is symmetric. t is found by bisection inside
[Phi^{-1}(alpha), Phi^{-1}(alpha) + mu] (Phi(t - mu) <= F_P(t) <= Phi(t)), from the upper
tail for alpha > 1/2. The privacy profile has a closed form: dQ/dP = e^eps at e^{mu t} = u,
the positive root of ``e^eps q c u^2 + (e^eps - 1)(1 - q) u - q c = 0``, i.e.
``u = 2 q c/(b + sqrt(b^2 + 4 e^eps q^2 c^2))``, b = (e^eps - 1)(1 - q), and
``delta(eps) = F_Q(t) - e^eps F_P(t)`` (Dong, Roth & Su, Prop. 6).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp
from flint import arb
from mpmath.libmp import round_ceiling, round_floor

from ..core.node import TradeOff
from ..core.validate import param
from ..numeric import budget
from ..numeric.arb import arb_endpoint, arb_exact
from ..numeric.arb_expr import arb_ball
from ..numeric.context import arb_precision, mp
from ..numeric.curves import CURVE_BANDS
from ..numeric.normal import ncdf, ncdf_inv
from ..numeric.privacy_loss import RHO_LIB, U64, AtomLoss, PrivacyLoss, loss_views, privacy_loss
from ..numeric.protocol import (
    arb_delta,
    arb_value,
    mp_delta,
    mp_roc,
    mp_value,
    np_value,
    num,
    register_ends,
)
from ..numeric.value import CertifiedPair
from .gaussian import GaussianLoss
from .poisson_replace_curve import replace_band
from .poisson_replace_law import ReplaceLaw, replace_law

__all__ = ["PoissonReplace"]


class PoissonReplace(TradeOff):
    """T((1-q) N(0,1) + q N(mu,1), (1-q) N(0,1) + q N(-mu,1)): mu >= 0, q in [0, 1] (module
    docstring)."""

    def __new__(cls, mu: Any, q: Any):
        mu = param("mu", mu, lower=0, owner="PoissonReplace")
        q = param("q", q, lower=0, upper=1, owner="PoissonReplace")
        return TradeOff.__new__(cls, mu, q)

    @property
    def mu(self) -> sp.Expr:
        return self.args[0]

    @property
    def q(self) -> sp.Expr:
        return self.args[1]

    @property
    def is_symmetric(self) -> bool:
        return True

    def _sympystr(self, printer) -> str:
        return "PoissonReplace(%s, %s)" % (printer._print(self.mu), printer._print(self.q))

    def _latex(self, printer) -> str:
        return r"R_{%s}^{%s}" % (printer._print(self.mu), printer._print(self.q))


def _params(f):
    return num(f.mu, "mu"), num(f.q, "q")


def _threshold(mu, q, a, ac):
    """(t_lo, t_hi) bracketing the t with F_P(t) = alpha (from 1 - alpha for alpha > 1/2)."""
    lower = a <= ac
    if lower:
        lo = ncdf_inv(a)

        def above(t):  # F_P(t) > alpha
            return (1 - q) * ncdf(t) + q * ncdf(t - mu) > a
    else:
        lo = -ncdf_inv(ac)  # Phi^{-1}(alpha) from the exact complement

        def above(t):  # 1 - F_P(t) < 1 - alpha
            return (1 - q) * ncdf(-t) + q * ncdf(mu - t) < ac
    hi = lo + mu
    for i in range(mp.prec + 20):
        if i % 64 == 63:  # (at thousands of digits the bisection takes seconds)
            budget.check()
        m = (lo + hi) / 2
        if m == lo or m == hi:
            break
        if above(m):
            hi = m
        else:
            lo = m
    return lo, hi


def _value(f, a, ac, power: bool):
    """f(alpha) (``power``: 1 - f(alpha)) for mpf alpha and 1 - alpha: the Arb ball
    (:func:`_arb_level`, a CertifiedPair) where it is finite, else the bisection below in
    mpmath (an estimate; 160 bisections of two erfc each took 0.17 s a level at 30 digits)."""
    pair = _arb_level(f, a, ac, power)
    return pair if pair is not None else _mp_value(f, a, ac, power)


def _arb_level(f, a, ac, power: bool):
    if f.free_symbols or not (mp.isfinite(a) and mp.isfinite(ac)):
        return None
    with arb_precision(mp.prec + 32):
        b = arb_value(f, arb_exact(a), arb_exact(ac), power)
        if b is None or not b.is_finite():
            return None
        b = arb.max(arb.min(b, arb(1)), arb(0))
        return CertifiedPair(arb_endpoint(b.lower(), round_floor),
                             arb_endpoint(b.upper(), round_ceiling))


def _mp_value(f, a, ac, power: bool):
    mu, q = _params(f)
    if a == 0:
        return (mp.zero, mp.zero) if power else (mp.one, mp.one)
    if ac == 0:
        return (mp.one, mp.one) if power else (mp.zero, mp.zero)
    if mu == 0 or q == 0:
        return (a, a) if power else (ac, ac)
    tl, th = _threshold(mu, q, a, ac)
    u = mp.ldexp(1, -(mp.prec - 8))
    if power:  # F_Q(t), increasing in t
        lo = (1 - q) * ncdf(tl) + q * ncdf(tl + mu)
        hi = (1 - q) * ncdf(th) + q * ncdf(th + mu)
    else:  # 1 - F_Q(t), decreasing in t
        lo = (1 - q) * ncdf(-th) + q * ncdf(-th - mu)
        hi = (1 - q) * ncdf(-tl) + q * ncdf(-tl - mu)
    return max(mp.zero, lo * (1 - u)), min(mp.one, hi * (1 + u))


mp_value.register(PoissonReplace)(lambda f, a, ac: _value(f, a, ac, False))
mp_roc.register(PoissonReplace)(lambda f, a, ac: _value(f, a, ac, True))


@mp_delta.register(PoissonReplace)
def _(f, eps):
    """delta(eps): the Arb ball of :func:`arb_delta` as a CertifiedPair where it is within the
    working precision (so that every route asking the node, among them the product route that
    answers ``PoissonReplace(mu, q)**1`` as the node the rule ``power_one`` closes it to, keeps
    the certificate), else the closed form in mpmath (an estimate)."""
    pair = _arb_delta_pair(f, eps)
    return pair if pair is not None else _mp_delta(f, eps)


def _arb_delta_pair(f, eps):
    """The ball of delta(eps) at the working precision plus 32 bits, raised twice (x2) where
    its relative width exceeds 2^(8 - prec) (cancellation in the far tail); None where it never
    does, or for a symbolic node or an eps no ball holds."""
    if f.free_symbols or not (mp.isfinite(eps) and eps >= 0):
        return None
    prec = mp.prec + 32
    for _ in range(3):
        with arb_precision(prec):  # (the ends taken inside: Arb rounds them to ctx.prec)
            d = arb_delta(f, arb_exact(eps))
            if d is None or not d.is_finite():
                return None
            lo = arb_endpoint(d.lower(), round_floor)
            hi = arb_endpoint(d.upper(), round_ceiling)
        if hi == 0 or (lo > 0 and hi - lo <= mp.ldexp(hi, 8 - mp.prec)):
            return CertifiedPair(max(lo, mp.zero), min(hi, mp.one))
        prec *= 2
    return None


def _mp_delta(f, eps):
    mu, q = _params(f)
    if mu == 0 or q == 0:
        v = max(mp.zero, -mp.expm1(eps))
        return v, v
    E = mp.exp(eps)
    c = mp.exp(-mu * mu / 2)
    b = mp.expm1(eps) * (1 - q)
    uroot = 2 * q * c / (b + mp.sqrt(b * b + 4 * E * q * q * c * c))
    t = mp.log(uroot) / mu
    v = (1 - q) * ncdf(t) + q * ncdf(t + mu) - E * ((1 - q) * ncdf(t) + q * ncdf(t - mu))
    v = max(v, mp.zero)
    return v, v


# -- certified balls (Arb) -------------------------------------------------------------------------
# The power and the value at a level alpha, and the privacy profile, as Arb balls: what the
# concave search of a maximum (``operators.max_delta``) and the certified routes ask.
#
# The threshold. A(t) = (1 - q) Phi(t) + q Phi(t + m) increases in t, and for m in {-mu, mu}
# Phi(t + min(m, 0)) <= A(t) <= Phi(t + max(m, 0)), so the root of A(t) = y lies in
# [Phi^{-1}(y) - max(m, 0), Phi^{-1}(y) - min(m, 0)], Phi^{-1}(y) = -sqrt 2 erfcinv(2 y) a ball:
# a proved bracket of width mu. Newton steps on log A(t) - log y (on exact midpoints, kept
# inside the bracket) find the root to the working precision; the two points t -+ r around it
# are then proved to straddle it by comparing the balls A(t -+ r) with y, and the result is
# taken at those two points (the power and the value are monotone in t), so the ball holds
# the true value whatever Newton did. A comparison that does not decide leaves the bracket's
# end, a wider ball but still a proved one.


def _arb_phi(x):
    """Phi(x) = erfc(-x/sqrt 2)/2 as a ball (no cancellation in either tail)."""
    from flint import arb

    return (-x / arb(2).sqrt()).erfc() / 2


def _arb_mix(t, q, m):
    """(1 - q) Phi(t) + q Phi(t + m)."""
    return (1 - q) * _arb_phi(t) + q * _arb_phi(t + m)


def _arb_root(q, m, y):
    """(t_lo, t_hi), exact balls with A(t_lo) <= y <= A(t_hi) proved for A(t) = (1 - q)
    Phi(t) + q Phi(t + m), y a ball in (0, 1) (the block comment above)."""
    from flint import arb, ctx

    z = -arb(2).sqrt() * (2 * y).erfcinv()
    lo = arb((z - arb.max(m, arb(0))).lower())
    hi = arb((z - arb.min(m, arb(0))).upper())
    ly = y.log()
    two_pi = 2 * arb.pi()
    t = arb(((lo + hi) / 2).mid())
    tiny = arb(2) ** (8 - ctx.prec)
    step = hi - lo
    for i in range(4 * ctx.prec + 64):
        if i % 16 == 15:
            budget.check()
        at = _arb_mix(t, q, m)
        if at < y:
            lo = arb.max(lo, t)
        elif at > y:
            hi = arb.min(hi, t)
        dens = ((1 - q) * (-t * t / 2).exp() + q * (-(t + m) ** 2 / 2).exp()) / two_pi.sqrt()
        if not (at > 0 and dens > 0):
            nt = (lo + hi) / 2
        else:
            nt = t - (at.log() - ly) * at / dens
            if not (nt > lo and nt < hi):
                nt = (lo + hi) / 2
        nt = arb(nt.mid())
        step = abs(nt - t)
        t = nt
        if step <= tiny * (1 + abs(t)) or not (hi - lo > tiny * (1 + abs(t))):
            break
    r = arb((4 * step + tiny * (1 + abs(t))).upper())
    t_lo, t_hi = arb((t - r).mid()), arb((t + r).mid())
    if _arb_mix(t_lo, q, m) <= arb(y.lower()) and t_lo > lo:
        lo = t_lo
    if _arb_mix(t_hi, q, m) >= arb(y.upper()) and t_hi < hi:
        hi = t_hi
    return lo, hi


@arb_value.register(PoissonReplace)
def _(f, a, ac, power):
    """f(alpha) (``power``: 1 - f(alpha)) as a ball. For alpha <= 1/2 the threshold t of
    F_P(t) = alpha, F_P = A with m = -mu, and 1 - f = F_Q(t) = (1 - q) Phi(t) + q Phi(t + mu)
    (increasing in t), f = (1 - q) Phi(-t) + q Phi(-t - mu); above 1/2 the mirror image s = -t
    of 1 - F_P(t) = 1 - alpha (A with m = +mu), f = (1 - q) Phi(s) + q Phi(s - mu) and
    1 - f = (1 - q) Phi(-s) + q Phi(mu - s), each without cancellation."""
    from flint import arb

    if f.free_symbols:
        return None
    mu, q = arb_ball(f.mu), arb_ball(f.q)
    if a == 0 or ac == 0:
        one = (a == 0) != power  # f(0) = 1, 1 - f(1) = 1
        return arb(1) if one else arb(0)
    if mu == 0 or q == 0:
        return a if power else ac
    if not (a > 0 and ac > 0):
        return None
    if a.mid() <= ac.mid():
        t_lo, t_hi = _arb_root(q, -mu, a)
        if power:
            return arb(_arb_mix(t_lo, q, mu).lower()).union(arb(_arb_mix(t_hi, q, mu).upper()))
        return arb(_arb_mix(-t_hi, q, -mu).lower()).union(arb(_arb_mix(-t_lo, q, -mu).upper()))
    s_lo, s_hi = _arb_root(q, mu, ac)
    if power:
        return arb(_arb_mix(-s_hi, q, mu).lower()).union(arb(_arb_mix(-s_lo, q, mu).upper()))
    return arb(_arb_mix(s_lo, q, -mu).lower()).union(arb(_arb_mix(s_hi, q, -mu).upper()))


@arb_delta.register(PoissonReplace)
def _(f, eps):
    """delta(eps) of the module docstring as a ball: the threshold t = log(u)/mu from the
    root u of the quadratic (closed form, no search), then
    delta = q Phi(t + mu) - e^eps q Phi(t - mu) - (e^eps - 1)(1 - q) Phi(t); t is a ball
    containing the exact threshold, so the ball holds delta (Dong, Roth & Su, Prop. 6)."""
    from flint import arb

    if f.free_symbols or not eps >= 0:
        return None
    mu, q = arb_ball(f.mu), arb_ball(f.q)
    if mu == 0 or q == 0:
        return arb(0)
    E, em1 = eps.exp(), eps.expm1()
    qc = q * (-mu * mu / 2).exp()
    b = em1 * (1 - q)
    u = 2 * qc / (b + (b * b + 4 * E * qc * qc).sqrt())
    t = u.log() / mu
    d = q * _arb_phi(t + mu) - E * q * _arb_phi(t - mu) - em1 * (1 - q) * _arb_phi(t)
    return arb.max(d, arb(0)) if d.upper() > 0 else arb(0).union(arb(d.upper()).max(arb(0)))


@np_value.register(PoissonReplace)
def _(f, x):
    from scipy import special

    mu, q = float(f.mu), float(f.q)
    x = np.asarray(x, dtype=np.float64)
    if mu == 0 or q == 0:
        return 1.0 - x
    lo = special.ndtri(np.clip(x, 0, 1))
    hi = lo + mu
    lo = np.where(np.isfinite(lo), lo, -40.0)
    hi = np.where(np.isfinite(hi), hi, 40.0)
    for _ in range(80):
        m = (lo + hi) / 2
        above = (1 - q) * special.ndtr(m) + q * special.ndtr(m - mu) > x
        hi, lo = np.where(above, m, hi), np.where(above, lo, m)
    t = (lo + hi) / 2
    y = (1 - q) * special.ndtr(-t) + q * special.ndtr(-t - mu)
    return np.where(x <= 0, 1.0, np.where(x >= 1, 0.0, y))


class PoissonReplaceLoss(PrivacyLoss):
    """The privacy loss of :class:`PoissonReplace` for the PLD engine.

    ``L(x) = log((1 - q) + q c e^{-mu x}) - log((1 - q) + q c e^{mu x})`` decreases from +oo to
    -oo, so ``L <= t`` iff ``x >= x(t)`` with ``e^{mu x(t)} = u``, the positive root of
    ``e^t q c u^2 + (e^t - 1)(1 - q) u - q c = 0`` (taken in its cancellation-free form for
    either sign of t). Then, in each tail without cancellation,
    ``P(L <= t) = (1 - q) Phi(-x) + q Phi(mu - x)``, ``P(L > t) = (1 - q) Phi(x) + q Phi(x - mu)``
    and the same under Q with ``-mu`` for ``mu``. ``|dL/dx| <= 2 mu``, which bounds how far a
    rounding of x moves the cut (``edge_err``)."""

    def __init__(self, mu: float, q: float, exact: tuple[Fraction, Fraction] | None = None):
        if not (mu > 0 and 0 < q < 1 and math.isfinite(mu)):
            raise ValueError("PoissonReplaceLoss needs mu > 0 and 0 < q < 1")
        self.mu, self.q = float(mu), float(q)
        #: (mu, q) as exact rationals when the node's are: the Arb view (``law``) needs them
        self.exact_params = exact
        self.logqc = math.log(self.q) - self.mu * self.mu / 2  # log(q c)
        self._xmax = 0.0

    def law(self) -> ReplaceLaw | None:
        """The Arb view for the certified Laplace inversion (:mod:`.poisson_replace_law`), for
        rational mu and q."""
        return None if self.exact_params is None else replace_law(*self.exact_params)

    def _x(self, t):
        t = np.asarray(t, dtype=np.float64)
        q, mu = self.q, self.mu
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            b = np.expm1(t) * (1 - q)  # (e^t - 1)(1 - q)
            # r = sqrt(b^2 + 4 e^t (q c)^2) in logs where it would overflow
            la = 2 * np.log(np.abs(b))
            lb = math.log(4.0) + t + 2 * self.logqc
            lr = 0.5 * np.logaddexp(la, lb)
            r = np.exp(lr)
            # t >= 0 (b >= 0): u = 2 q c/(b + r); t < 0: u = (r - b)/(2 e^t q c)
            lu_pos = math.log(2.0) + self.logqc - np.log(b + r)
            lu_neg = np.log(r - b) - math.log(2.0) - t - self.logqc
            lu = np.where(t >= 0, lu_pos, lu_neg)
        x = lu / mu
        fin = np.abs(x[np.isfinite(x)])
        self._xmax = max(self._xmax, float(fin.max(initial=0.0)))
        return x

    def cdf(self, t, which, left=False):
        from scipy import special  # (imported at first use: it slows the package import)

        x = self._x(t)
        q = self.q
        m = self.mu if which == "P" else -self.mu
        F = (1 - q) * special.ndtr(-x) + q * special.ndtr(m - x)
        S = (1 - q) * special.ndtr(x) + q * special.ndtr(x - m)
        return F, S

    @property
    def rel_err(self) -> float:
        z = min(self._xmax + self.mu, 1e150)
        return RHO_LIB + 8 * U64 * (z * z + 2)

    def edge_err(self, t):
        fin = np.asarray(t, dtype=np.float64)
        fin = fin[np.isfinite(fin)]
        tm = float(np.max(np.abs(fin), initial=0.0))
        return 64 * U64 * (1 + tm + self.mu * (self._xmax + self.mu))

    def support(self, tau):
        z = float(-special_ndtri(tau)) + self.mu
        hi = float(self._loss(-z))
        return -hi, hi

    def _loss(self, x):
        q, mu = self.q, self.mu
        c = math.exp(-mu * mu / 2)
        num = math.log((1 - q) + q * c * math.exp(min(-mu * x, 700.0)))
        den = math.log((1 - q) + q * c * math.exp(min(mu * x, 700.0)))
        return num - den


def special_ndtri(p: float) -> float:
    from scipy import special

    return float(special.ndtri(p))


@privacy_loss.register(PoissonReplace)


@loss_views("grid", "law")
def _(f):
    if f.free_symbols:
        return None
    mu, q = float(f.mu), float(f.q)
    if mu == 0 or q == 0:
        return AtomLoss([0.0], [1.0], [1.0])
    if q >= 1:
        return GaussianLoss(2 * mu)  # N(mu, 1) against N(-mu, 1): G_{2 mu}
    return PoissonReplaceLoss(mu, q, _exact_params(f))


def _exact_params(f) -> tuple[Fraction, Fraction] | None:
    """(mu, q) as Fractions when both are rational (a float parameter is its exact binary
    rational), else None."""
    if not (f.mu.is_Rational and f.q.is_Rational):
        return None
    return (Fraction(int(f.mu.p), int(f.mu.q)), Fraction(int(f.q.p), int(f.q.q)))


def _band(f, alphas, tol: float = 1e-3, progress: bool | None = None):
    """The whole curve in one pass, certified (:mod:`.poisson_replace_curve`), for rational
    mu > 0 and 0 < q < 1; None for any other node (a ``numeric.curves.CURVE_BANDS`` route)."""
    if not isinstance(f, PoissonReplace) or f.free_symbols:
        return None
    if not (f.mu.is_Rational and f.q.is_Rational and f.mu > 0 and 0 < f.q < 1):
        return None

    def level_ball(a: float, power: bool):
        with arb_precision(96):
            al = arb(a)
            return arb_value(f, al, 1 - al, power)

    return replace_band((int(f.mu.p), int(f.mu.q)), (int(f.q.p), int(f.q.q)), alphas,
                        level_ball, tol)


CURVE_BANDS.append(_band)


# f(0) = 1 and f^{-1}(0) = 1 (numeric.protocol.exact_ends): both mixtures have a positive
# density everywhere, so neither law charges a set the other does not.
register_ends(PoissonReplace)
