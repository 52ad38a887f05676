"""Decay bounds and float planning sums for the remainder of the split of a product of many
Laplace factors (:class:`~.cf_mixed_grid_remainder.GridRemainder`: the terms with more than J
density components of prod_i (alpha_i + beta_i v), module docstring of :mod:`.cf_mixed_grid`).

**A bound that sees the factors' phases** (:func:`sup_bound`). With w = a + it' (a = c + 1/2),
mu = mu_i, s = sinh(a mu), C = cosh(a mu), theta = t' mu, one factor is

    alpha_i + beta_i v = c_i (2 cosh(w mu) + sinh(w mu) / w),
    |cosh(w mu)|^2 = s^2 + cos^2 theta,   |sinh(w mu)|^2 = s^2 + sin^2 theta,

and |sinh(w mu) / w| <= sinh(a mu) / a (the density's integral of e^{ws} is at most the same at
a). So |alpha_i + beta_i v| <= c_i b(t'), b = 2 sqrt(s^2 + cos^2 theta) + min(sinh(a mu)/a,
sqrt(s^2 + sin^2 theta) / |w|), and sup_{t' >= t} b(t') is at most the larger of

* (t < pi/(2 mu)) on [t, pi/(2 mu)], where cos^2 theta decreases and 1/|w| too:
  r1 = 2 sqrt(s^2 + cos^2(t mu)) + min(sinh(a mu)/a, C/|w(t)|);
* on t' >= t2 = max(t, pi/(2 mu)), with kappa = 1/|w(t2)| >= 1/|w(t')| and u = cos^2 theta:
  r2 = min(2C + min(sinh(a mu)/a, kappa C), max_u f(u)), f(u) = 2 sqrt(s^2 + u) +
  kappa sqrt(s^2 + 1 - u) concave on [0, 1]; by Cauchy-Schwarz f <= sqrt(4 + kappa^2)
  sqrt(2 s^2 + 1) (equality at the stationary point u*), and where s^2 (4 - kappa^2) >=
  kappa^2 the stationary point lies at u* >= 1, so the maximum is f(1) = 2C + kappa s.

The whole transform F = prod (alpha_i + beta_i v) is then at most prod_i c_i max(r1, r2) for
every t' >= t: near t = 0 it falls like the product's characteristic function (each factor's
atoms turn apart: sqrt(s^2 + cos^2)), and its floor, once each factor may be back at its atoms
(theta = pi), is prod 2 c_i C (1 + kappa s/(2C)), the tilted probability that no factor
contributes its density. The head H = sum_{|T| <= J} prod_T beta_i v prod_{not T} alpha_i
(what the remainder R = F - H leaves out) is at most sum_{j<=J} [y^j] prod_i (A_i + U_i y),
A_i = 2 c_i C >= |alpha_i|, U_i = c_i min(sinh(a mu)/a, C/|w(t)|) >= |beta_i v| (both for every
t' >= t), so

    sup_{t' >= t} |R(c + it')| <= prod_i c_i max(r1, r2) + sum_{j<=J} [y^j] prod (A_i + U_i y).

Where the terms with at most J density components are rare (a thousand factors: the floor
about 1e-21 of M(c) at J = 0) this falls with t like the whole product's transform, where the
bound without phases (:meth:`~.cf_mixed_grid_remainder.GridRemainder.decay_bound`'s other term) only
falls like t^-(J+1) from t ~ r/J on: the inverter's t-range shrinks from t = 18 to t ~ 3.

**Float planning sums.** :func:`log_tail_probability` is log P(N > J) for N a sum of
independent Bernoulli(p_i) (the remainder's share of the tilted mass), by the elementary
symmetric sums of p_i/(1 - p_i) from their power sums (Newton's identities, vectorised over
the rows), the complement 1 - P(N <= J) where that is above 1e-8 and the sum of the terms
j > J otherwise, the direct recursion over the factors where a sum is not a positive float.
:func:`log_decay_estimate` is the float value of the decay bound. Floats place nodes only; the
inversion's errors are bounded by the Arb bound.
"""

from __future__ import annotations

import math

import numpy as np
from flint import arb, arb_poly

__all__ = ["sup_bound", "log_decay_estimate", "log_tail_probability", "elementary_sums"]

#: Terms j = J+1 .. J+TAIL_TERMS of a Poisson-binomial tail summed where the tail is below
#: :data:`COMPLEMENT` (J is then far above the mean count: each term below about 1/J of the one
#: before, twelve terms within 1e-12 of the sum).
TAIL_TERMS = 12
#: Below this tail the complement of the head is not taken (it would lose more than 1e-8 of it).
COMPLEMENT = 1e-8


def elementary_sums(x: np.ndarray, n: int) -> np.ndarray:
    """e_0 .. e_n of the non-negative rows of ``x`` (shape (rows, r)) by Newton's identities
    (floats; a row whose sums are not positive finite floats is for the caller to redo)."""
    rows = x.shape[0]
    p = np.empty((rows, n))
    pw = np.ones_like(x)
    for k in range(n):
        pw = pw * x
        p[:, k] = pw.sum(axis=1)
    e = np.zeros((rows, n + 1))
    e[:, 0] = 1.0
    sign = np.array([(-1.0) ** k for k in range(n)])
    for j in range(1, n + 1):
        e[:, j] = np.einsum("ij,ij->i", e[:, j - 1::-1][:, :j], p[:, :j] * sign[:j]) / j
    return e


def _tail_by_recursion(p: np.ndarray, J: int) -> float:
    """P(N > J) of one row by the recursion over the factors (states 0 .. J and "more")."""
    dist = np.zeros(J + 2)
    dist[0] = 1.0
    for pi in p.tolist():
        new = dist * (1 - pi)
        new[1:] += dist[:-1] * pi
        new[-1] += dist[-1] * pi
        dist = new
    return float(dist[-1])


def log_tail_probability(p: np.ndarray, J: int) -> np.ndarray:
    """log P(N > J), N = sum of independent Bernoulli(p_ij) over each row j of ``p`` (floats,
    planning only; -745 for a tail that underflows): 1 - P(N <= J) where that is above
    :data:`COMPLEMENT` (its rounding error is then below 1e-8 of it), else the terms
    j = J+1 .. J+:data:`TAIL_TERMS` (rows whose sums are not positive floats by the recursion)."""
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0 - 1e-16)
    r = p.shape[1]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_q = np.sum(np.log1p(-p), axis=1)
        ratio = p / (1 - p)
        e = elementary_sums(ratio, min(r, J + 1))
        head = np.exp(log_q) * e[:, :J + 1].sum(axis=1)
        out = np.log(np.clip(1 - head, 1e-300, None))
        bad = ~(np.isfinite(e).all(axis=1) & (e >= 0).all(axis=1) & np.isfinite(out))
        far = np.flatnonzero(~bad & (1 - head < COMPLEMENT) & (r > J))
        if far.size:
            ef = elementary_sums(ratio[far], min(r, J + TAIL_TERMS))
            rest = ef[:, J + 1:].sum(axis=1)
            ok = np.isfinite(ef).all(axis=1) & (ef >= 0).all(axis=1) & (rest > 0)
            out[far[ok]] = log_q[far[ok]] + np.log(rest[ok])
            bad[far[~ok]] = True
    for i in np.flatnonzero(bad).tolist():
        tail = _tail_by_recursion(p[i], J)
        out[i] = math.log(tail) if tail > 0 else -745.0
    return np.maximum(out, -745.0)


def _factor_floats(c: float, t: float, mus: np.ndarray):
    a = c + 0.5
    am = a * mus
    s, C = np.sinh(am), np.cosh(am)
    dens0 = s / a
    wt = math.hypot(a, t)
    u_t = np.minimum(dens0, C / wt)
    return a, s, C, dens0, u_t


def log_decay_estimate(c: float, t: float, mus: np.ndarray, log_cs: np.ndarray,
                       J: int) -> float:
    """Float log of :func:`sup_bound` and of the bound without phases (the smaller), for the
    planner: the same formulas as the Arb bounds, in floats."""
    a, s, C, dens0, u_t = _factor_floats(c, t, mus)
    half = math.pi / (2 * mus)
    theta = t * mus
    r1 = np.where(t < half, 2 * np.sqrt(s * s + np.cos(theta) ** 2) + u_t, 0.0)
    t2 = np.maximum(t, half)
    kappa = 1 / np.hypot(a, t2)
    k2 = kappa * kappa
    f = np.where(s * s * (4 - k2) >= k2, 2 * C + kappa * s,
                 np.sqrt(4 + k2) * np.sqrt(2 * s * s + 1))
    r2 = np.minimum(2 * C + np.minimum(dens0, kappa * C), f)
    log_whole = float(np.sum(log_cs + np.log(np.maximum(r1, r2))))
    big_a = 2 * C
    log_a = float(np.sum(log_cs + np.log(big_a)))
    e = elementary_sums((u_t / big_a)[None, :], J + 1)[0]
    log_head = log_a + math.log(max(float(e[:J + 1].sum()), 1e-300))
    phased = float(np.logaddexp(log_whole, log_head))
    # without phases: min(prod (a_i + u_i), [y^{J+1}] prod (a_i + u_i + u_i y))
    tot = big_a + u_t
    log_tot = float(np.sum(log_cs + np.log(tot)))
    e2 = elementary_sums((u_t / tot)[None, :], J + 1)[0]
    plain = log_tot + min(0.0, math.log(max(float(e2[J + 1]), 1e-300)))
    return min(phased, plain)


def _truncated_product(polys: list, n: int):
    while len(polys) > 1:
        nxt = [(polys[i] * polys[i + 1]).truncate(n) for i in range(0, len(polys) - 1, 2)]
        if len(polys) % 2:
            nxt.append(polys[-1])
        polys = nxt
    return polys[0]


def sup_bound(c: arb, t: arb, mus: list[arb], cs: list[arb], J: int) -> arb:
    """An upper bound of sup_{t' >= t} |R(c + it')| for the remainder with the factors' exact
    scales ``mus`` and constants ``cs`` (balls), at the current precision (module docstring);
    the caller takes the least of it and its other bounds."""
    a = c + arb(0.5)
    wt = (a * a + t * t).sqrt()
    whole = arb(1)
    big_a, small_u = [], []
    for mu, cc in zip(mus, cs, strict=True):
        am = a * mu
        s, C = am.sinh(), am.cosh()
        dens0 = s / a
        u_t = dens0.min(C / wt)
        half = arb.pi() / (2 * mu)
        t2 = t.max(half)
        kappa = 1 / (a * a + t2 * t2).sqrt()
        k2 = kappa * kappa
        if s * s * (4 - k2) >= k2:  # (the stationary point at u* >= 1: the maximum at u = 1)
            f = 2 * C + kappa * s
        else:
            f = (4 + k2).sqrt() * (2 * s * s + 1).sqrt()
        r = f.min(2 * C + dens0.min(kappa * C))
        if not t > half:  # (region 1 is not empty, or undecided: taken as well)
            cos_t = (t * mu).cos()
            r = r.max(2 * (s * s + cos_t * cos_t).sqrt() + u_t)
        whole *= cc * r
        big_a.append(2 * cc * C)
        small_u.append(cc * u_t)
    polys = [arb_poly([x, u]) for x, u in zip(big_a, small_u, strict=True)]
    head = _truncated_product(polys, J + 1).coeffs()
    return arb((whole + sum(head[:J + 1], arb(0))).upper())
