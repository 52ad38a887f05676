"""Tails and delta of L_mu^{(x) k} by mpmath quadrature of the Bromwich integral of the loss's
moment generating function, mu an mpf (an irrational parameter to 40 digits); written from the
loss law (atoms 1/2 at mu and e^{-mu}/2 at -mu under Q = Lap(mu, 1), density e^{(s - mu)/2}/4 on
(-mu, mu); dP = e^{-l} dQ), independent of the library's inversion (numeric/cf*.py).

For c > 0, 1{L > t} = (1/2 pi i) int_{c - i oo}^{c + i oo} e^{z (L - t)} dz / z and
(1 - e^{eps - L})_+ = (1/2 pi i) int e^{z (L - eps)} dz / (z (z + 1)), so with
M(z) = E_Q e^{zL} (and E_P e^{zL} = M(z - 1)) each is (1/pi) int_0^oo Re[...] dt on z = c + it.
Meant for many factors (k >= 1000): the terms with few density factors, whose
transforms decay slowly, carry a mass below 10^-100 there, and the integral over t in
[0, 8 max(1, mu)/mu] is the whole to 40 digits (checked by moving the contour and the range in
tests/test_parameter_sandwich.py).
"""

from __future__ import annotations

from tradeoff_algebra.numeric.context import mp


def mgf(mu, z):
    """E_Q e^{zL} of one factor: the atoms and the density's integral in closed form."""
    w = z + mp.mpf(1) / 2
    if w == 0:  # (the density's integral is 2 mu e^{-mu/2}/4 there)
        return mp.exp(-mu / 2) / 2 + mp.exp(-mu) / 2 * mp.exp(mu / 2) + mp.exp(-mu / 2) * mu / 2
    dens = mp.exp(-mu / 2) / 4 * (mp.exp(w * mu) - mp.exp(-w * mu)) / w
    return mp.exp(z * mu) / 2 + mp.exp(-mu) / 2 * mp.exp(-z * mu) + dens


def _saddle(mu, k: int, t, shift):
    """The real c in (0, 50) minimising M(c + shift)^k e^{-c t} (ternary search; it only
    places the contour, any c > 0 gives the same integral)."""
    def g(c):
        return k * mp.log(mgf(mu, c + shift)) - c * t
    lo, hi = mp.mpf(1) / 1000, mp.mpf(50)
    for _ in range(120):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if g(a) < g(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def _bromwich(mu, k: int, t, shift, kernel):
    c = _saddle(mu, k, t, shift)

    def h(s):
        z = mp.mpc(c, s)
        return mp.re(mgf(mu, z + shift) ** k * mp.exp(-z * t) * kernel(z))
    top = mp.mpf(8) * max(1, mu) / mu
    pts = [mp.zero] + [top * 2 ** i / 2 ** 12 for i in range(13)]
    return mp.quad(h, pts, maxdegree=10) / mp.pi


def tail(mu, k: int, t, side: str):
    """side(L > t) for side "Q" or "P", t not an atom of the sum."""
    return _bromwich(mu, k, t, 0 if side == "Q" else -1, lambda z: 1 / z)


def delta(mu, k: int, eps):
    """delta(eps) = E_Q (1 - e^{eps - L})_+."""
    return _bromwich(mu, k, eps, 0, lambda z: 1 / (z * (z + 1)))
