"""Independent references for the second audit of the certified routes (no ``tradeoff_algebra``
import): mpmath closed forms and quadrature, Irwin--Hall sums, exact enumeration, rounded-grid
brackets in float64.

* Poisson-subsampled Gaussian, one and two steps, both directions ("remove": A = (1 - q) N(0, 1)
  + q N(mu, 1) against B = N(0, 1); "add": the pair swapped), delta(e) = E_A[(1 - e^{e - L})_+]
  with L = log(dA/dB): one step by the half-line {L > e} (the likelihood ratio is monotone in x);
  two steps by conditioning on the first step (a one-dimensional mpmath quadrature of the one-step
  profile at e - L(x), extended to every real e), rescaled by a first estimate so that quad's
  absolute error does not hide a tiny delta. Cross-checked in the tests against a direct
  quadrature of (a - e^e b)_+.
* Laplace L_mu^n: under Q = Lap(mu, 1) one factor's loss has atoms +mu (1/2), -mu (e^{-mu}/2) and
  the density e^{-mu/2} e^{l/2} / 4 on (-mu, mu); under P the mirror image. The n-fold law is a
  multinomial mixture over (a, b, j) (a atoms at +mu, b at -mu, j interior) of shifted sums of j
  exponentially tilted uniforms: the Irwin--Hall volume V_j(s) = sum_k (-1)^k C(j, k)
  (s - (2k - j) mu)_+^{j-1} / (j - 1)! times e^{s/2}, integrated in closed form (repeated
  integration by parts) at a working precision that absorbs the alternating sum's cancellation.
* G_nu (x) L_mu: the Laplace loss law (atoms and density) against the Gaussian tails, one mpmath
  quadrature over (-mu, mu).
* Trade-off functions in closed form (G_mu, L_mu, f_{eps,delta}, finite pairs by sorting the
  likelihood ratios) and the profile of their maximum by a golden-section search of the concave
  alpha -> 1 - e^eps alpha - max(f(alpha), g(alpha)).
* Renyi divergences: Mironov's closed form for Laplace, G_mu's alpha mu^2/2, the discrete
  Gaussian by its two theta sums.
* Binomial (f_{eps0,0}^n) and 5-ary randomized-response lattice laws, their products by direct
  double sums.
* Skellam: pmfs by Bessel functions; k-fold products by exact enumeration (k <= 2) or by the Q-law
  of the losses rounded up (an upper bound of delta: (1 - e^{e - l})_+ is non-decreasing in l)
  and down (a lower bound), composed by FFT in float64.
"""

from __future__ import annotations

import math

import mpmath

MP = mpmath.mp


# ---------------------------------------------------------------------------------------------
# Poisson-subsampled Gaussian
# ---------------------------------------------------------------------------------------------

def _ncdf(x):
    return MP.ncdf(x)


def _ncdfc(x):
    return MP.ncdf(-x)


def sg_one(mu, q, direction: str, e):
    """The extended one-step profile g(e) = E_A[(1 - e^{e - L})_+] (any real e)."""
    mu, q, e = MP.mpf(mu), MP.mpf(q), MP.mpf(e)
    E = MP.exp(e)
    if direction == "remove":
        u = (E - (1 - q)) / q
        if u <= 0:
            return 1 - E
        xs = (MP.log(u) + mu * mu / 2) / mu
        # A(x > xs) - E B(x > xs), written without the cancelling (1 - q) part
        return q * (_ncdfc(xs - mu) - u * _ncdfc(xs))
    if direction == "add":
        u = (MP.exp(-e) - (1 - q)) / q
        if u <= 0:
            return MP.zero
        xs = (MP.log(u) + mu * mu / 2) / mu
        # B(x < xs) ... : A(x < xs) - E B(x < xs), B = (1 - q) N + q N(mu)
        return q * E * (u * _ncdf(xs) - _ncdf(xs - mu))
    raise ValueError(direction)


def _sg_terms(mu, q, direction: str, e):
    """The two terms whose difference is g(e) / (q e^{e or 0}) (see :func:`sg_one`), or None
    where g has no cancellation (u <= 0)."""
    mu, q, e = MP.mpf(mu), MP.mpf(q), MP.mpf(e)
    if direction == "remove":
        u = (MP.exp(e) - (1 - q)) / q
        if u <= 0:
            return None
        xs = (MP.log(u) + mu * mu / 2) / mu
        return _ncdfc(xs - mu), u * _ncdfc(xs)
    u = (MP.exp(-e) - (1 - q)) / q
    if u <= 0:
        return None
    xs = (MP.log(u) + mu * mu / 2) / mu
    return u * _ncdf(xs), _ncdf(xs - mu)


def sg_one_hp(mu, q, direction: str, e, dps: int = 40):
    """sg_one at a working precision raised until the cancellation of its two terms leaves
    ``dps`` digits (at most 3000 digits)."""
    d = dps + 20
    while True:
        with MP.workdps(d):
            v = sg_one(mu, q, direction, e)
            tt = _sg_terms(mu, q, direction, e)
            if tt is None or v == 0:
                return +v
            big = max(abs(tt[0]), abs(tt[1]))
            diff = abs(tt[0] - tt[1])
            lost = int(MP.log10(big / diff)) + 1 if diff > 0 else d
            if lost + dps + 10 <= d or d >= 3000:
                return +v
            d = min(3000, lost + dps + 20)


def sg_one_quad(mu, q, direction: str, e):
    """One step by direct quadrature of (a - e^e b)_+ over x (a check of :func:`sg_one`)."""
    mu, q, e = MP.mpf(mu), MP.mpf(q), MP.mpf(e)

    def mix(x):
        return (1 - q) * MP.npdf(x) + q * MP.npdf(x, mu)

    if direction == "remove":
        def a(x):
            return mix(x)

        def b(x):
            return MP.npdf(x)
    else:
        def a(x):
            return MP.npdf(x)

        def b(x):
            return mix(x)
    E = MP.exp(e)

    def h(x):
        return max(MP.zero, a(x) - E * b(x))
    # the crossing point (the support of the positive part is a half-line)
    pts = [-MP.inf, -8, 0, mu, 8 + mu, MP.inf]
    if direction == "remove":
        u = (E - (1 - q)) / q
        if u > 0:
            pts.append((MP.log(u) + mu * mu / 2) / mu)
    else:
        u = (1 / E - (1 - q)) / q
        if u > 0:
            pts.append((MP.log(u) + mu * mu / 2) / mu)
    pts = sorted(set(pts))
    return MP.quad(h, pts)


def _sg_loss(mu, q, direction, x):
    el = MP.log(1 - q + q * MP.exp(mu * x - mu * mu / 2))
    return el if direction == "remove" else -el


def sg_two(mu, q, direction: str, e, dps: int = 30, fast: bool = False):
    """Two steps: E_{x ~ A}[g(e - L(x))] by mpmath quadrature, split at the point x_b where the
    inner threshold leaves the losses' range and around the mass of A, rescaled by a first pass."""
    with MP.workdps(dps + 15):
        mu, q, e = MP.mpf(mu), MP.mpf(q), MP.mpf(e)
        if direction == "remove":
            def dens(x):
                return (1 - q) * MP.npdf(x) + q * MP.npdf(x, mu)
            yb = (MP.exp(e) / (1 - q) - (1 - q)) / q
        else:
            def dens(x):
                return MP.npdf(x)
            yb = (MP.exp(-e) / (1 - q) - (1 - q)) / q
        xb = (MP.log(yb) + mu * mu / 2) / mu if yb > 0 else None
        if direction == "add" and xb is None:
            return MP.zero

        def inner(x):
            return dens(x) * sg_one(mu, q, direction, e - _sg_loss(mu, q, direction, x))

        pts = [-MP.inf, -10, -4, 0, mu, mu + 4, mu + 10]
        if xb is not None:
            pts += [xb + k for k in (-12, -6, -3, -1, -MP.mpf(1) / 4, 0, MP.mpf(1) / 4, 1, 3, 6)]
        pts = sorted(set(p for p in pts if p == -MP.inf or p < MP.inf))
        if direction == "add":
            pts = [p for p in pts if p <= xb] + [xb] if xb is not None else pts
            pts = sorted(set(pts))
        else:
            pts.append(MP.inf)
            pts = sorted(set(pts))
        if direction == "add" and pts[-1] != xb:
            pts.append(xb)
        v0 = MP.quad(inner, pts, maxdegree=4 if fast else 8)
        if v0 == 0 or fast:
            return v0
        s = abs(v0)
        v = MP.quad(lambda x: inner(x) / s, pts, maxdegree=10) * s
        return +v


def sg_profile(mu, q, T: int, e, sym: bool = True, dps: int = 30, fast: bool = False):
    """delta(e) of the T-step (T = 1, 2) product, the maximum of the two directions when
    ``sym`` (the add/remove hull: its conjugate is the maximum of the two conjugates)."""
    dirs = ("remove", "add") if sym else ("remove",)
    out = []
    for d in dirs:
        if T == 1:
            out.append(sg_one_hp(mu, q, d, e, dps))
        else:
            out.append(sg_two(mu, q, d, e, dps, fast))
    return max(out)


# ---------------------------------------------------------------------------------------------
# Laplace L_mu^n by Irwin--Hall sums
# ---------------------------------------------------------------------------------------------

def _tilted_tail(j: int, mu, x, sign: int):
    """int_x^{j mu} e^{sign s/2} V_j(s) ds, V_j the volume function of j uniforms on (-mu, mu)
    (the (j-1)-fold convolution of indicators; integral (2 mu)^j)."""
    U = j * mu
    if x >= U:
        return MP.zero
    x = max(x, -U)
    r = MP.mpf(sign) / 2
    m = j - 1
    fact = [MP.one]
    for i in range(1, m + 1):
        fact.append(fact[-1] * i)
    tot = MP.zero
    for k in range(j):  # c_k = (2k - j) mu < U
        c = (2 * k - j) * mu
        lo = max(x, c)
        if lo >= U:
            continue

        def F(s, c=c):
            # antiderivative of e^{r s} (s - c)^m
            acc = MP.zero
            y = s - c
            for i in range(m + 1):
                acc += (-1) ** i * (fact[m] / fact[m - i]) * y ** (m - i) / r ** (i + 1)
            return MP.exp(r * s) * acc
        term = (F(U) - F(lo)) / fact[m]
        tot += (-1) ** k * MP.binomial(j, k) * term
    return tot


class LaplacePower:
    """Tails of the loss of L_mu^n under Q (sign +1) and P (sign -1), as mpmath sums."""

    def __init__(self, mu, n: int, dps: int = 40):
        """``mu`` a Fraction (or an exact string), converted at the working precision."""
        self.n, self.dps = n, dps
        self.wd = dps + 3 * n + 20
        with MP.workdps(self.wd):
            self.mu = MP.mpf(mu.numerator) / mu.denominator if hasattr(mu, "denominator") \
                else MP.mpf(mu)

    def _weights(self, side: str):
        mu = MP.mpf(self.mu)
        up, dn = (MP.mpf(1) / 2, MP.exp(-mu) / 2) if side == "Q" else (MP.exp(-mu) / 2,
                                                                      MP.mpf(1) / 2)
        c = MP.exp(-mu / 2) / 4
        n = self.n
        for j in range(n + 1):
            for a in range(n - j + 1):
                b = n - j - a
                w = MP.factorial(n) / (MP.factorial(a) * MP.factorial(b) * MP.factorial(j))
                yield a, b, j, w * up ** a * dn ** b * c ** j

    def tail(self, side: str, t, strict: bool = True):
        """side(L > t) (``strict``) or side(L >= t)."""
        with MP.workdps(self.wd):
            mu, t = MP.mpf(self.mu), MP.mpf(t)
            sign = 1 if side == "Q" else -1
            tot = MP.zero
            for a, b, j, w in self._weights(side):
                shift = (a - b) * mu
                if j == 0:
                    if shift > t or (not strict and shift == t):
                        tot += w
                    continue
                tot += w * _tilted_tail(j, mu, t - shift, sign)
            return +tot

    def delta(self, eps):
        with MP.workdps(self.wd):
            e = MP.mpf(eps)
            return +(self.tail("Q", e) - MP.exp(e) * self.tail("P", e))

    def np_point(self, t, strict: bool = True):
        """(alpha, power) of the test rejecting L > t (or L >= t)."""
        return self.tail("P", t, strict), self.tail("Q", t, strict)


def laplace_power_tail_conv(mu, n: int, side: str, t):
    """side(L > t) of L_mu^n by conditioning on the last factor (n <= 3): the (n-1)-fold tail
    recursively, integrated against one factor's law by mpmath quadrature (a check of the
    Irwin--Hall sums)."""
    mu, t = MP.mpf(mu), MP.mpf(t)
    up, dn = (MP.mpf(1) / 2, MP.exp(-mu) / 2) if side == "Q" else (MP.exp(-mu) / 2,
                                                                  MP.mpf(1) / 2)
    sg = 1 if side == "Q" else -1
    c = MP.exp(-mu / 2) / 4
    if n == 0:
        return MP.one if t < 0 else MP.zero

    def rest(x):
        return laplace_power_tail_conv(mu, n - 1, side, x)
    pts = sorted(set([-mu, mu] + [t - k * mu for k in range(-n, n + 1)
                                  if -mu < t - k * mu < mu]))
    return (up * rest(t - mu) + dn * rest(t + mu)
            + MP.quad(lambda l: c * MP.exp(sg * l / 2) * rest(t - l), pts))


# ---------------------------------------------------------------------------------------------
# G_nu (x) L_mu
# ---------------------------------------------------------------------------------------------

def gauss_laplace_tail(nu, mu, side: str, t):
    """side(L_G + L_L > t): L_G ~ N(+-nu^2/2, nu^2), L_L the Laplace loss law (atoms, density)."""
    nu, mu, t = MP.mpf(nu), MP.mpf(mu), MP.mpf(t)
    if side == "Q":
        up, dn, sg = MP.mpf(1) / 2, MP.exp(-mu) / 2, 1
    else:
        up, dn, sg = MP.exp(-mu) / 2, MP.mpf(1) / 2, -1
    mG = sg * nu * nu / 2

    def gt(x):  # P(L_G > x)
        return MP.ncdf(-(x - mG) / nu)
    c = MP.exp(-mu / 2) / 4
    tot = up * gt(t - mu) + dn * gt(t + mu)
    tot += MP.quad(lambda l: c * MP.exp(sg * l / 2) * gt(t - l), [-mu, 0, mu])
    return tot


def gauss_laplace_delta(nu, mu, eps, dps: int = 40):
    with MP.workdps(dps + 20):
        e = MP.mpf(eps)
        return +(gauss_laplace_tail(nu, mu, "Q", e) - MP.exp(e) * gauss_laplace_tail(nu, mu, "P",
                                                                                      e))


def gauss_laplace_delta_direct(nu, mu, eps):
    """E_{l ~ Q_L}[delta_G(eps - l)] with G's extended profile in closed form (a second route)."""
    nu, mu, e = MP.mpf(nu), MP.mpf(mu), MP.mpf(eps)

    def dg(x):
        return MP.ncdf(-x / nu + nu / 2) - MP.exp(x) * MP.ncdf(-x / nu - nu / 2)
    c = MP.exp(-mu / 2) / 4
    return (dg(e - mu) / 2 + MP.exp(-mu) / 2 * dg(e + mu)
            + MP.quad(lambda l: c * MP.exp(l / 2) * dg(e - l), [-mu, 0, mu]))


# ---------------------------------------------------------------------------------------------
# trade-off functions in closed form and the profile of a maximum
# ---------------------------------------------------------------------------------------------

def f_gauss(mu):
    mu = MP.mpf(mu)
    return lambda a: MP.ncdf(-MP.sqrt(2) * MP.erfinv(2 * a - 1) - mu) if 0 < a < 1 else (
        MP.one if a <= 0 else MP.zero)


def f_gauss_c(mu):
    """G_mu(a) = Phi(Phi^{-1}(1 - a) - mu) with the quantile by erfc's inverse on the small side."""
    mu = MP.mpf(mu)

    def f(a):
        a = MP.mpf(a)
        if a <= 0:
            return MP.one
        if a >= 1:
            return MP.zero
        z = _upper_quantile(a)  # Phi^{-1}(1 - a)
        return MP.ncdf(z - mu)
    return f


def _upper_quantile(a):
    """z with P(N > z) = a, by Newton from erfinv at raised precision."""
    with MP.workdps(MP.dps + 20):
        z = -MP.sqrt(2) * MP.erfinv(2 * a - 1) if 1e-10 < a < 1 - 1e-10 else (
            MP.sqrt(-2 * MP.log(a)) if a < 0.5 else -MP.sqrt(-2 * MP.log(1 - a)))
        for _ in range(100):
            fz = MP.ncdf(-z) - a
            dz = fz / MP.npdf(z)
            z += dz
            if abs(dz) < MP.mpf(10) ** (-MP.dps + 5) * (1 + abs(z)):
                break
        return z


def f_laplace(mu):
    mu = MP.mpf(mu)

    def f(a):
        a = MP.mpf(a)
        if a <= 0:
            return MP.one
        if a >= 1:
            return MP.zero
        if a < MP.exp(-mu) / 2:
            return 1 - MP.exp(mu) * a
        if a <= MP.mpf(1) / 2:
            return MP.exp(-mu) / (4 * a)
        return MP.exp(-mu) * (1 - a)
    return f


def f_epsdelta(eps, delta):
    eps, delta = MP.mpf(eps), MP.mpf(delta)
    return lambda a: max(MP.zero, 1 - delta - MP.exp(eps) * a, MP.exp(-eps) * (1 - delta - a))


def f_finite(P, Q):
    """T(P, Q) of a finite pair (mpf masses) by sorting the outcomes by Q/P (NP lemma)."""
    items = [(MP.mpf(p), MP.mpf(q)) for p, q in zip(P, Q, strict=True) if p or q]

    def key(it):
        p, q = it
        return MP.inf if p == 0 else q / p
    items.sort(key=key, reverse=True)

    def f(a):
        a = MP.mpf(a)
        used, power = MP.zero, MP.zero
        for p, q in items:
            if used + p <= a:
                used += p
                power += q
            else:
                power += q * (a - used) / p if p > 0 else q
                used = a
                break
        return max(MP.zero, 1 - power)
    return f


def finite_product(pairs):
    """The product of finite pairs (lists of (P, Q) masses), merged by ratio."""
    P, Q = [MP.one], [MP.one]
    for p2, q2 in pairs:
        P = [a * b for a in P for b in p2]
        Q = [a * b for a in Q for b in q2]
    return P, Q


def epsdelta_pair(eps, delta):
    eps, delta = MP.mpf(eps), MP.mpf(delta)
    E = MP.exp(eps)
    return ([delta, (1 - delta) * E / (1 + E), (1 - delta) / (1 + E), MP.zero],
            [MP.zero, (1 - delta) / (1 + E), (1 - delta) * E / (1 + E), delta])


def finite_delta(P, Q, eps):
    E = MP.exp(MP.mpf(eps))
    return MP.fsum(max(MP.zero, MP.mpf(q) - E * MP.mpf(p)) for p, q in zip(P, Q, strict=True))


def golden_max(h, lo=0, hi=1, steps: int = 220):
    """max of a concave h on [lo, hi] by golden section (also at the ends)."""
    a, b = MP.mpf(lo), MP.mpf(hi)
    g = (MP.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    hc, hd = h(c), h(d)
    for _ in range(steps):
        if hc < hd:
            a, c, hc = c, d, hd
            d = a + g * (b - a)
            hd = h(d)
        else:
            b, d, hd = d, c, hc
            c = b - g * (b - a)
            hc = h(c)
    return max(hc, hd, h(MP.mpf(lo)), h(MP.mpf(hi)))


def max_delta(fs, eps, lo_alpha=0):
    """delta(eps) of Max(f_1, ..., f_k) = sup_alpha 1 - e^eps alpha - max_i f_i(alpha) (concave);
    the maximiser is searched in log alpha as well (tiny alphas) and in alpha."""
    E = MP.exp(MP.mpf(eps))

    def h(a):
        return 1 - E * a - max(f(a) for f in fs)
    v1 = golden_max(h, 0, 1)
    # a second search on a log scale of alpha (not concave there, but unimodal: h is concave)
    v2 = golden_max(lambda t: h(MP.exp(t)), -700, 0)
    return max(v1, v2, MP.zero)


# ---------------------------------------------------------------------------------------------
# Renyi divergences
# ---------------------------------------------------------------------------------------------

def renyi_laplace(mu, a):
    """Mironov (2017), Prop. 6: D_a(Lap(0, 1) || Lap(mu, 1)), a > 1."""
    mu, a = MP.mpf(mu), MP.mpf(a)
    return MP.log(a / (2 * a - 1) * MP.exp((a - 1) * mu) + (a - 1) / (2 * a - 1)
                  * MP.exp(-a * mu)) / (a - 1)


def renyi_dgauss(d: int, s2, a):
    """D_a(N_Z(0, s2) || N_Z(d, s2)) by theta sums: a d^2/(2 s2) + log(theta((1 - a) d)/theta(0))
    / (a - 1), theta(c) = sum_x exp(-(x - c)^2/(2 s2))."""
    s2, a = MP.mpf(s2), MP.mpf(a)
    c = (1 - a) * d
    X = int(MP.sqrt(s2) * 30) + int(abs(c)) + 30
    th_c = MP.fsum(MP.exp(-(x - c) ** 2 / (2 * s2)) for x in range(-X, X + 1))
    th_0 = MP.fsum(MP.exp(-x ** 2 / (2 * s2)) for x in range(-X, X + 1))
    return a * d * d / (2 * s2) + MP.log(th_c / th_0) / (a - 1)


def renyi_dgauss_direct(d: int, s2, a):
    """The same divergence as sum_x p^a q^{1-a} (a second route)."""
    s2, a = MP.mpf(s2), MP.mpf(a)
    X = int(MP.sqrt(s2) * 30) + d + 30
    Z = MP.fsum(MP.exp(-x ** 2 / (2 * s2)) for x in range(-X - d, X + d + 1))
    s = MP.fsum(MP.exp(-a * x ** 2 / (2 * s2) - (1 - a) * (x - d) ** 2 / (2 * s2))
                for x in range(-X, X + d + 1)) / Z
    return MP.log(s) / (a - 1)


# ---------------------------------------------------------------------------------------------
# lattice laws: binomial, 5-ary randomized response, their products
# ---------------------------------------------------------------------------------------------

def binomial_law(eps0, n: int):
    """{k: (loss, Q-mass)} of f_{eps0,0}^n: loss (2k - n) eps0, Q-mass C(n, k) p^k (1-p)^(n-k)."""
    e0 = MP.mpf(eps0)
    p = MP.exp(e0) / (1 + MP.exp(e0))
    lp, lq = MP.log(p), MP.log(1 - p)
    out = []
    for k in range(n + 1):
        lm = MP.loggamma(n + 1) - MP.loggamma(k + 1) - MP.loggamma(n - k + 1) + k * lp \
            + (n - k) * lq
        out.append(((2 * k - n) * e0, MP.exp(lm)))
    return out


def rr_law(eps0, k: int, n: int):
    """[(loss, Q-mass)] of k-ary randomized response RR(eps0, k)^n: per factor, loss +eps0 (Q-mass
    E/(E+k-1)), -eps0 (1/(E+k-1)), 0 (the rest)."""
    e0 = MP.mpf(eps0)
    E = MP.exp(e0)
    den = E + k - 1
    pu, pd, p0 = E / den, 1 / den, (k - 2) / den
    lpu, lpd = MP.log(pu), MP.log(pd)
    lp0 = MP.log(p0) if k > 2 else None
    acc: dict = {}
    for i in range(n + 1):
        for j in range(n - i + 1):
            z = n - i - j
            if z and lp0 is None:
                continue
            lm = MP.loggamma(n + 1) - MP.loggamma(i + 1) - MP.loggamma(j + 1) \
                - MP.loggamma(z + 1) + i * lpu + j * lpd + (z * lp0 if z else 0)
            acc[i - j] = acc.get(i - j, MP.zero) + MP.exp(lm)
    return [(d * e0, m) for d, m in sorted(acc.items())]


def law_delta(law, eps):
    E = MP.mpf(eps)
    return MP.fsum(m * (1 - MP.exp(E - l)) for l, m in law if l > E)


def product_delta(law1, law2, eps):
    E = MP.mpf(eps)
    tot = MP.zero
    for l1, m1 in law1:
        for l2, m2 in law2:
            l = l1 + l2
            if l > E:
                tot += m1 * m2 * (1 - MP.exp(E - l))
    return tot


# ---------------------------------------------------------------------------------------------
# Skellam
# ---------------------------------------------------------------------------------------------

def skellam_atoms(d: int, mu, cut=40):
    """[(loss, Q-mass)] of Skellam(d, mu): P = Sk(mu), Q = P shifted by d, pmf e^{-2mu}
    I_x(2 mu); and the Q-mass left out (below 10^-cut)."""
    mu = MP.mpf(mu)

    def pmf(x):
        return MP.exp(-2 * mu) * MP.besseli(abs(x), 2 * mu)
    X = int(mu * 2 + 10 * MP.sqrt(2 * mu) + 40)
    while pmf(X) > MP.mpf(10) ** -(cut + 5):
        X *= 2
    out, tot = [], MP.zero
    for y in range(-X, X + 1):  # x = y + d under Q
        py = pmf(y)
        tot += py
        out.append((MP.log(py / pmf(y + d)), py))
    return out, max(MP.zero, 1 - tot)


def skellam_power_exact(d: int, mu, k: int, eps):
    """delta of Skellam(d, mu)^k by direct enumeration (k = 1, 2), +- the left-out mass."""
    atoms, miss = skellam_atoms(d, mu)
    E = MP.mpf(eps)
    if k == 1:
        v = law_delta(atoms, E)
    elif k == 2:
        big = [(l, m) for l, m in atoms if m > MP.mpf(10) ** -45]
        v = product_delta(big, big, E)
        miss = 2 * miss + 2 * MP.fsum(m for l, m in atoms if m <= MP.mpf(10) ** -45)
    else:
        raise ValueError(k)
    return v, k * miss


def rounded_bracket(atoms_f, k: int, eps: float, h: float):
    """(lower, upper) of delta(eps) of the k-fold product from one factor's atoms
    [(loss, Q-mass)] in floats: the Q-law of the losses rounded down and up to h Z, composed by
    FFT (delta is monotone in each loss: rounding up bounds it above)."""
    import numpy as np
    from scipy.signal import fftconvolve

    losses = np.array([l for l, _ in atoms_f], dtype=float)
    qs = np.array([m for _, m in atoms_f], dtype=float)
    # at most ~2^22 grid points in the k-fold law (a coarser h: a looser, still valid bracket)
    h = max(h, k * float(losses.max() - losses.min()) / 2**22)
    out = []
    for up in (False, True):
        idx = np.ceil(losses / h).astype(np.int64) if up else np.floor(losses / h).astype(
            np.int64)
        lo = int(idx.min())
        base = np.zeros(int(idx.max()) - lo + 1)
        np.add.at(base, idx - lo, qs)
        res, rlo = np.array([1.0]), 0
        p, plo, kk = base, lo, k
        lost = 0.0  # the mass trimmed away (below 1e-30 a point), at most k times per factor
        while kk:
            if kk & 1:
                res = fftconvolve(res, p)
                rlo += plo
                res, rlo, d = _trim(res, rlo)
                lost += d
            kk >>= 1
            if kk:
                p = fftconvolve(p, p)
                plo *= 2
                p, plo, d = _trim(p, plo)
                lost += d * k  # (a trimmed power enters the result at most k times)
        grid = (np.arange(len(res)) + rlo) * h
        w = np.clip(res, 0, None)
        sel = grid > eps
        v = float(np.sum(w[sel] * -np.expm1(eps - grid[sel])))
        # trimmed mass: dropped (lower bound) or sent to loss +oo (upper bound)
        out.append(v + lost if up else v)
    return out[0], out[1]


def _trim(a, lo, cut=1e-30):
    """``a`` without its leading and trailing points below ``cut``, and their total mass."""
    import numpy as np

    nz = np.nonzero(a > cut)[0]
    if len(nz) == 0:
        return a, lo, 0.0
    dropped = float(np.sum(np.abs(a[:nz[0]])) + np.sum(np.abs(a[nz[-1] + 1:])))
    return a[nz[0]:nz[-1] + 1].copy(), lo + int(nz[0]), dropped


def _finite_guard(x) -> float:
    x = float(x)
    if math.isnan(x):
        raise ValueError("nan in a reference")
    return x
