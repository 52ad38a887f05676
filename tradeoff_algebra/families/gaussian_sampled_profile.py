"""The privacy profile of one and of two Poisson-subsampled Gaussian steps in Arb: delta(eps) of
``Mix(G_mu, q)`` and of its inverse ("remove" and "add", the two directions of DP-SGD with one
step), and of their two-fold products, for the few-step routes of the certified inversion
(``numeric/cf_route.py``), which cannot afford so few factors (the characteristic function of
one step's loss decays like a log-normal's).

Notation (as :class:`~.gaussian_sampled.SubsampledGaussianLaw`): Y = exp(mu x - mu^2/2),
l(x) = log(1 - q + q Y), increasing in x; "remove": A = (1 - q) N(0, 1) + q N(mu, 1),
B = N(0, 1), L = l(x); "add": A = N(0, 1), B = (1 - q) N(0, 1) + q N(mu, 1), L = -l(x); the
profile is delta(eps) = E_A[(1 - e^{eps - L})_+] = A(L > eps) - e^eps B(L > eps) (Dong, Roth & Su,
Prop. 6 with the Neyman-Pearson lemma), and the same expression at any real e defines the
extended profile g(e) (for e below the least loss, g(e) = 1 - e^e; above the largest, 0).

One step. The likelihood ratio is monotone in x, so {L > e} is a half-line:
* remove: L > e iff x > x*(e), u = (e^e - (1 - q)) / q, x* = (log u + mu^2/2) / mu (when u > 0;
  else every x), and g(e) = (1 - q) Phi_c(x*) + q Phi_c(x* - mu) - e^e Phi_c(x*)
  = q [Phi_c(x* - mu) - u Phi_c(x*)];
* add: L > e iff x < x*(e), u = (e^{-e} - (1 - q)) / q (when u > 0; else no x, g = 0), and
  g(e) = Phi(x*) - e^e [(1 - q) Phi(x*) + q Phi(x* - mu)] = q e^e [u Phi(x*) - Phi(x* - mu)]
  (e^{-e} = 1 - q + q u).
Each is a closed form in Arb (``erfc``); the precision is raised until the ball is as narrow as
asked (the difference cancels about log2(Phi_c(x*) / g) bits).

Two steps. With L1, L2 independent under A, E_A[(1 - e^{eps - L1 - L2})_+] =
E_{x ~ A}[g(eps - L(x))] (condition on the first step): a one-dimensional integral of the
closed form above. The loss of the first step reaches the point where the inner threshold
leaves the support, e = eps - L(x) at the boundary of the losses, at x = x_b:
* remove: eps - l(x) = log(1 - q) at u_b = (e^eps / (1 - q) - (1 - q)) / q; for x > x_b,
  e < log(1 - q) is below every loss and g(e) = 1 - e^e, whose integral is the closed form
  A(x > s) - e^eps B(x > s) (E_A[e^{-L} 1_S] = B(S)) from any s <= x_b on;
* add: eps + l(x) = -log(1 - q) at u_b = (e^{-eps} / (1 - q) - (1 - q)) / q; for x > x_b the
  threshold is above every loss and g = 0 (no x_b, u_b <= 0: delta = 0).
At x_b the integrand is smooth but not analytic (x* -> -oo like log(x_b - x)), so Arb's certified
Gauss-Legendre integration (``acb.integral``, analytic on a neighbourhood of the segment) runs
on [-X, s], s = x_b - eta, and the rest is bounded by monotonicity: g is non-increasing, so on
[s, x_b] the integrand lies between its x_b limit and its value at s — remove: 1 - e^e <= g(e)
<= 1 - e^e + r(e_s), r(e) = g(e) - (1 - e^e) = q [u Phi(x*) - Phi(x* - mu)] >= 0 non-decreasing
in e, e_s = eps - l(s); add: 0 <= g <= g(e_s), e_s = eps + l(s) — each times A's mass on [s, x_b];
below -X, 0 <= g <= 1 times A(x < -X). Analyticity on the segment's neighbourhood: u(x) and
1 - q + q Y(x) are checked to have positive real part on the ball ``acb.integral`` asks about
(``log(analytic=True)``), which keeps the logarithms on their principal branch.

Time limits: an ``acb.integral`` cannot be interrupted (an exception in its integrand is not
propagated), so past the caller's deadline the integrand returns 0 (``budget.expired``) and the
integral is followed by ``budget.check``: the clock is monotonic, so once the integrand has seen
the deadline pass the check raises, and those 0s never reach a ball; the call stops a few
integrand evaluations after the deadline (the rest of the integral's subintervals, each exact 0).
"""

from __future__ import annotations

import math

from flint import acb, arb

from ..numeric import budget
from ..numeric.cf_laws import lower, upper
from ..numeric.context import arb_precision

__all__ = ["one_step_delta", "two_step_delta", "few_step_delta", "MAX_STEPS"]

#: The numbers of steps answered here (one closed form, one integral).
MAX_STEPS = 2


def _phi_c(u):
    """Phi_c(u) = P(N(0, 1) > u) (arb or acb)."""
    return (u / arb(2).sqrt()).erfc() / 2


def _phi(u):
    return (-u / arb(2).sqrt()).erfc() / 2


def _params(law) -> tuple[arb, arb]:
    return law._mu_arb(), law._q_arb()


def one_step_g(mu, q, direction: str, e):
    """The extended one-step profile g(e) (module docstring), ``e`` an arb or acb (the two
    closed forms; the branch by the sign of u on the real line, decided by the caller for
    acb)."""
    if direction == "remove":
        u = (e.exp() - (1 - q)) / q
        xs = (u.log() + mu * mu / 2) / mu
        return q * (_phi_c(xs - mu) - u * _phi_c(xs))
    u = ((-e).exp() - (1 - q)) / q
    xs = (u.log() + mu * mu / 2) / mu
    return q * e.exp() * (u * _phi(xs) - _phi(xs - mu))


def _one_step_real(mu: arb, q: arb, direction: str, e: arb) -> arb:
    """g(e) at a real ball e, with the cases where the threshold leaves the support."""
    if direction == "remove":
        u = (e.exp() - (1 - q)) / q
        if u > 0:
            return one_step_g(mu, q, direction, e)
        if u <= 0:
            return 1 - e.exp()
    else:
        u = ((-e).exp() - (1 - q)) / q
        if u > 0:
            return one_step_g(mu, q, direction, e)
        if u <= 0:
            return arb(0)
    raise ArithmeticError("the threshold's side of the loss boundary is undecided")


def _precision_loop(compute, rel: float, start: int = 96, cap: int = 1024) -> arb:
    """``compute()`` at rising Arb precision (a private section, ``arb_precision``) until its
    ball's relative radius is at most ``rel``, or the cap (an undecided comparison, an
    ArithmeticError, is retried at the next precision)."""
    prec = start
    while True:
        try:
            with arb_precision(prec):
                v = compute()
        except ArithmeticError:  # (a side of the loss boundary undecided at this precision)
            if prec >= cap:
                raise
            prec *= 2
            continue
        if v.is_finite() and (v.rad() <= rel * abs(v.mid()) or v.is_exact()):
            return v
        if prec >= cap:
            return v
        prec *= 2


def one_step_delta(law, eps: float, rel: float) -> arb:
    """A ball of delta(eps) of one step of ``law`` (uncut), exact float ``eps`` >= 0."""
    def compute() -> arb:
        mu, q = _params(law)
        return _one_step_real(mu, q, law.direction, arb(eps))
    return _precision_loop(compute, rel)


def _boundary(mu: arb, q: arb, direction: str, eps: arb) -> arb | None:
    """x_b (module docstring), or None when the add direction has no x with g > 0."""
    if direction == "remove":
        ub = (eps.exp() / (1 - q) - (1 - q)) / q
    else:
        ub = ((-eps).exp() / (1 - q) - (1 - q)) / q
        if ub <= 0:
            return None
        if not ub > 0:
            raise ArithmeticError("undecided boundary")
    return (ub.log() + mu * mu / 2) / mu


def _mix_mass(mu: arb, q: arb, a: arb, b: arb) -> arb:
    """(1 - q) N(0, 1) + q N(mu, 1) of [a, b]."""
    return (1 - q) * (_phi_c(a) - _phi_c(b)) + q * (_phi_c(a - mu) - _phi_c(b - mu))


def _ends(law, eps: float, eta: float, x_lo: float):
    """(x_b, s, closed, band, tail) of the two-step integral (module docstring): the closed form
    beyond s = x_b - eta, the band bounding [s, x_b], the band bounding x < x_lo; None when
    delta is 0 (add, no x_b)."""
    mu, q = _params(law)
    d = law.direction
    e0 = arb(eps)
    xb = _boundary(mu, q, d, e0)
    if xb is None:
        return None
    s = arb(upper(xb) - eta)  # (an exact float below x_b)
    lo = arb(x_lo)
    if not (s < xb and lo < s):
        raise ArithmeticError("the boundary is outside the integration range")
    w_s = 1 - q + q * (mu * s - mu * mu / 2).exp()
    if d == "remove":
        e_s = e0 - w_s.log()
        r_s = _one_step_real(mu, q, d, e_s) - (1 - e_s.exp())
        closed = ((1 - q) * _phi_c(s) + q * _phi_c(s - mu)) - e0.exp() * _phi_c(s)
        band = arb(0).union(r_s.upper()) * _mix_mass(mu, q, s, xb)
        below = (1 - q) * _phi(lo) + q * _phi(lo - mu)
    else:
        g_s = _one_step_real(mu, q, d, e0 + w_s.log())
        closed = arb(0)
        band = arb(0).union(g_s.upper()) * (_phi_c(s) - _phi_c(xb))
        below = _phi(lo)
    return xb, s, closed, band, arb(0).union(below.upper())


def inner_threshold(x: acb, qa: acb, mua: acb, ee: acb, remove: bool, analytic: bool):
    """For the first step's sample x, the second step's level: the loss e = eps - L(x)
    (remove; eps + L(x) for add), with L(x) = log(1 - q + q e^{mu x - mu^2/2}), its likelihood
    ratio u (e^e = 1 - q + q u, resp. e^{-e}) and the Gaussian threshold xs = (log u +
    mu^2/2)/mu of the Neyman--Pearson test at that level; None where ``analytic`` (Arb's
    integration) needs a logarithm off its branch cut and the ball does not prove it."""
    w = 1 - qa + qa * (mua * x - mua * mua / 2).exp()
    if analytic and not w.real > 0:
        return None
    e = ee - w.log() if remove else ee + w.log()
    u = (e.exp() - (1 - qa)) / qa if remove else ((-e).exp() - (1 - qa)) / qa
    if analytic and not u.real > 0:
        return None
    return e, u, (u.log() + mua * mua / 2) / mua


def _integral(law, eps: float, lo: arb, s: arb, rel: float) -> arb:
    """int_lo^s (density of A)(x) g(eps - L(x)) dx by ``acb.integral`` (module docstring)."""
    mu, q = _params(law)
    d = law.direction
    root2pi = (2 * arb.pi()).sqrt()
    qa, mua, ee = acb(q), acb(mu), acb(arb(eps))
    remove = d == "remove"

    def integrand(x, analytic):
        if budget.expired():  # (a cheap value, never used: the check below raises)
            return acb(0)
        level = inner_threshold(x, qa, mua, ee, remove, analytic)
        if level is None:
            return acb("nan")
        e, u, xs = level
        if remove:
            g = qa * (_phi_c(xs - mua) - u * _phi_c(xs))
            dens = (1 - qa) * (-x * x / 2).exp() + qa * (-(x - mua) ** 2 / 2).exp()
        else:
            g = qa * e.exp() * (u * _phi(xs) - _phi(xs - mua))
            dens = (-x * x / 2).exp()
        return dens * g / root2pi

    v = acb.integral(integrand, acb(lo), acb(s), rel_tol=rel, eval_limit=400_000).real
    budget.check()  # (past the deadline the integrand gave 0s: the ball is not used)
    return v


def _two_step(law, eps: float, rel: float, eta: float, x_lo: float,
              bands: bool = True) -> arb:
    """One evaluation of the two-step delta at the current precision (module docstring);
    without ``bands`` the closed form and the integral only (a value for planning)."""
    ends = _ends(law, eps, eta, x_lo)
    if ends is None:
        return arb(0)
    _, s, closed, band, tail = ends
    core = closed + _integral(law, eps, arb(x_lo), s, rel)
    return core + band + tail if bands else core


def two_step_delta(law, eps: float, rel: float) -> arb:
    """A ball of delta(eps) of the two-fold product of ``law`` (uncut), exact float ``eps``:
    a rough value (to 1e-3) sets the ends (eta, X) whose bands stay below rel/16 of it, then
    the precision rises until the ball is as narrow as asked (a band left wider, at the limits
    of eta and X, shows in the ball's width: never a narrower claim). A search calls this at
    many nearby eps: the ends and the precision found at the last one within a relative 1e-6
    (1e-2 for a rough value, rel >= 1e-6) are taken again (any ends and precision give a ball
    that holds delta; these only choose its width)."""
    with arb_precision(64):
        mu, q = _params(law)
        xb = _boundary(mu, q, law.direction, arb(eps))
        if xb is None:
            return arb(0)
    last = getattr(law, "_two_step_plan", None)
    near = 1e-2 if rel >= 1e-6 else 1e-6  # (a rough value: ends from a farther eps will do)
    if last is not None and abs(last[0] - eps) <= near * max(abs(eps), 1e-300) and last[1] <= rel:
        _, _, eta, x_lo, bits = last
        v = _precision_loop(lambda: _two_step(law, eps, rel / 4, eta, x_lo), rel, start=bits)
        return v
    # (the add direction's x_b falls towards -oo as eps nears its largest two-step loss)
    x_lo = min(-10.0, math.floor(lower(xb)) - 6.0)
    eta = 0.5
    # a rough value to a few digits (a tiny delta cancels many bits: the precision rises)
    est = abs(float(_precision_loop(lambda: _two_step(law, eps, 1e-4, eta, x_lo, False),
                                    1e-3, start=96).mid()))
    with arb_precision(64):
        for _ in range(80):
            _, _, _, band, tail = _ends(law, eps, eta, x_lo)
            b, t = float(band.upper()), float(tail.upper())
            if b + t <= rel * est / 16:
                break
            if b > rel * est / 32 and eta > 1e-9:  # (s = x_b - eta stays a float below x_b)
                eta /= 2
            if t > rel * est / 32:
                x_lo -= 1.0
    bits = 64 + int(-math.log2(max(rel, 1e-300)))
    used = [bits]

    def compute() -> arb:
        from flint import ctx

        used[0] = ctx.prec
        return _two_step(law, eps, rel / 4, eta, x_lo)

    v = _precision_loop(compute, rel, start=bits)
    law._two_step_plan = (eps, rel, eta, x_lo, used[0])
    return v


def few_step_delta(law, n: int, eps: float, rel: float) -> tuple[float, float] | None:
    """Float bounds (lo, hi) of delta(eps) of ``law``'s n-fold product for n <= MAX_STEPS (and
    an uncut law), else None."""
    if n == 1:
        v = one_step_delta(law, eps, rel)
    elif n == 2:
        v = two_step_delta(law, eps, rel)
    else:
        return None
    if v.is_exact() and v == 0:
        return 0.0, 0.0
    return max(lower(v), 0.0), min(upper(v), 1.0)
