"""References of the eighth audit (benchmarks/fuzz_routes8.py, tests/test_audit_routes8.py):
one step of the subsampled pairs in closed form at the caller's mpmath precision, and
dp_accounting's one-direction PLD pairs of k steps. Nothing here imports ``tradeoff_algebra``.

* ``laplace_power``, ``gauss_power``: 1 - L_mu(alpha), 1 - G_mu(alpha) (Dong, Roth & Su);
  ``mix_power``: 1 - f_q(alpha), f_q = q f + (1 - q) Id (their Sec. 4.1); ``inverse_power``:
  1 - f^{-1}(alpha) by bisection of a decreasing f; ``cq_gauss_power``: C_q(G_mu) by their
  Eq. (13), the three pieces split at x* = Phi(-mu/2), where f_q'(x*) = -1.
* ``dpa_power_bracket``: the power of k steps in one direction from dp_accounting's
  pessimistic and optimistic pmfs (its remove pmf is Mix(f, q)'s pair, its add pmf the
  inverse's, as tests/test_cells_curve.py checks at one step): 1 - f(alpha) =
  inf over every real eps of delta(eps) + e^eps alpha (Prop. 6 without eps >= 0), for a
  discrete pmf exactly the least of delta(log v) + alpha v over v -> 0 and v = e^L at its
  losses (piecewise linear and convex in v). Float64, widened by 1e-7 relative and 1e-11.
"""

from __future__ import annotations

import mpmath
import numpy as np

from references.audit6_refs import _phi_inv_upper


def widen(lo, hi, rel=1e-6, absolute=1e-12):
    return mpmath.mpf(lo) * (1 - rel) - absolute, mpmath.mpf(hi) * (1 + rel) + absolute


def laplace_power(a, mu):
    """1 - L_mu(alpha) (Dong, Roth & Su: 1 - e^mu a below e^-mu/2, e^-mu/(4a) up to 1/2,
    e^-mu (1 - a) above)."""
    em = mpmath.exp(-mu)
    if a < em / 2:
        return mpmath.exp(mu) * a
    if a <= mpmath.mpf(1) / 2:
        return 1 - em / (4 * a)
    return 1 - em * (1 - a)


def gauss_power(a, mu):
    """1 - G_mu(alpha) = 1 - Phi(Phi^-1(1 - alpha) - mu)."""
    if a <= 0:
        return mpmath.mpf(0)
    if a >= 1:
        return mpmath.mpf(1)
    z = -mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)  # Phi^-1(1 - a)
    if a < mpmath.mpf(10) ** -12:  # (erfinv near 1 loses digits: the complement's inverse)
        z = _phi_inv_upper(a)
    return mpmath.ncdf(mu - z)


def mix_power(base, a, mu, q):
    """1 - f_q(alpha), f_q = q f + (1 - q) Id."""
    return q * base(a, mu) + (1 - q) * a


def inverse_power(power, a, bits=160):
    """1 - f^{-1}(alpha), f^{-1}(alpha) = inf{t : f(t) <= alpha} by bisection (f decreasing)."""
    if a <= 0:
        return mpmath.mpf(0)
    if a >= 1:
        return mpmath.mpf(1)
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    for _ in range(bits):
        m = (lo + hi) / 2
        if 1 - power(m) > a:
            lo = m
        else:
            hi = m
    return 1 - hi, 1 - lo


def cq_gauss_power(a, mu, q):
    """1 - C_q(G_mu)(alpha) by Eq. (13) of Dong, Roth & Su: f_q on [0, x*], the line of slope
    -1 on [x*, f_q(x*)], f_q^{-1} beyond, x* = Phi(-mu/2) (f_q'(x*) = -1). (lo, hi)."""
    def pw(t):
        return mix_power(gauss_power, t, mu, q)
    xs = mpmath.ncdf(-mu / 2)
    fx = 1 - pw(xs)
    if a <= xs:
        v = pw(a)
        return v, v
    if a <= fx:
        v = 1 - (xs + fx - a)
        return v, v
    return inverse_power(pw, a)


def as_pair(v):
    return v if isinstance(v, tuple) else (v, v)


_PLD: dict = {}


def one_direction_pmfs(kind, x, q, k, h, inverse):
    """dp_accounting's (pessimistic, optimistic) pmfs of k steps in one direction: kind "lap"
    (Laplace noise b = x) or "gauss" (sigma = x), the remove pmf for Mix, the add pmf for the
    inverse. Cached."""
    key = (kind, x, q, k, h, inverse)
    if key not in _PLD:
        from dp_accounting.pld import privacy_loss_distribution as pld

        out = []
        for pess in (True, False):
            if kind == "lap":
                p = pld.from_laplace_mechanism(x, 1.0, pessimistic_estimate=pess,
                                               value_discretization_interval=h,
                                               sampling_prob=q)
            else:
                p = pld.from_gaussian_mechanism(x, sensitivity=1.0, pessimistic_estimate=pess,
                                                value_discretization_interval=h,
                                                sampling_prob=q, use_connect_dots=pess)
            p = p.self_compose(k) if k > 1 else p
            out.append(p._pmf_add if inverse else p._pmf_remove)
        if len(_PLD) > 8:
            _PLD.clear()
        _PLD[key] = tuple(out)
    return _PLD[key]


def pmf_power(pmf, alphas):
    """The power of the pmf's own pair at each level: min over v in {0} and the losses' e^L of
    delta(log v) + alpha v (piecewise linear and convex in v: exact for the discrete pair)."""
    if not hasattr(pmf, "_lower_loss"):  # (a sparse pmf: its dense form, the same law)
        pmf = pmf.to_dense_pmf()
    e = (pmf._lower_loss + np.arange(len(pmf._probs))) * pmf._discretization
    d = np.asarray(pmf.get_delta_for_epsilon(e), dtype=float)
    v = np.exp(e)
    d0 = float(np.sum(pmf._probs)) + pmf._infinity_mass
    return [min(float(np.min(d + v * a)), d0) for a in alphas]


def dpa_power_bracket(kind, x, q, k, h, inverse, alphas):
    """[(lo, hi)] of the power at each level (floats widened)."""
    pess, opt = one_direction_pmfs(kind, x, q, k, h, inverse)
    hi, lo = pmf_power(pess, alphas), pmf_power(opt, alphas)
    return [widen(min(a, b), max(a, b), 1e-7, 1e-11) for a, b in zip(lo, hi, strict=True)]
