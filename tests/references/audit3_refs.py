"""Independent references for the third audit of the certified routes (no ``tradeoff_algebra``
import): rounded-grid brackets of many-fold products in float64, exponentially tilted so that
deltas far below the float64 floor keep their digits, and dp_accounting's PLD bracket.

**The bracket** (any pair whose loss L = log dA/dB under A is known in distribution):
delta(e) = E_A[(1 - e^{e - L_1 - ... - L_T})_+] is non-decreasing in each L_i, so the law of the
losses rounded down to the grid h Z gives a lower bound and rounded up an upper bound, for every
real e (not only e >= 0), and the roc inf_e [delta(e) + e^e alpha] likewise. The T-fold law is
composed by FFT in float64 after the tilt w_k -> w_k e^{c k h} (normalised, the scale kept in
logarithms), which leaves the mass near the saddle point of order one however small delta is
(where the tilted law has a gap at e, the FFT's round-off dominates: each convolution carries
a bound of its entries' float error, 10 u log2(N) |a|_2 |b|_2, subtracted from the lower end and
added to the upper end, so such a bracket is wide rather than wrong).
Points whose tilted mass falls below ``CUT`` are dropped: since (1 - e^{e - s})_+ <= e^{c (s - e)}
for c >= 0, a dropped tilted mass D of the final T-fold law adds at most D S e^{-c e} to delta (S
the scale); a mass dropped from a partial product enters the result at most T times, so the
upper bound adds T (sum of D) S e^{-c e} and the lower bound simply omits it. A single step's
loss below the grid window is rounded up into its first point (upper bound) or dropped (lower);
above the window it is rounded down into its last point (lower bound) or dropped and counted in D
(upper). The FFT error bound is the usual one, not proved here; the
callers also widen the bracket by ``FLOAT_SLACK`` relative.

Losses of the pairs here:
* the Poisson-subsampled Gaussian, "remove": A = (1 - q) N(0, 1) + q N(mu, 1), B = N(0, 1),
  L(x) = log(1 - q + q e^{mu x - mu^2/2}), increasing; "add": A = N(0, 1), B the mixture,
  L(x) = -log(1 - q + q e^{mu x - mu^2/2}), decreasing. Bins of the loss between the grid points
  are intervals of x, their A-masses differences of Phi (complements in the upper tail);
* Laplace(mu): under Q = Lap(mu, 1) atoms mu (1/2) and -mu (e^{-mu}/2), density e^{(s - mu)/2}/4
  on (-mu, mu), whose mass on (a, b] is (e^{(b - mu)/2} - e^{(a - mu)/2})/2;
* finite pairs: their atoms.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

MP = mpmath.mp
CUT = 1e-28
FLOAT_SLACK = 1e-9


# ---------------------------------------------------------------------------------------------
# one step on the grid
# ---------------------------------------------------------------------------------------------

class GridLaw:
    """A law on h Z in tilted form: true mass at index lo + i is w[i] * exp(logS - c h (lo + i)),
    sum(w) = 1; ``dropped`` the tilted mass removed (relative to this law's own scale)."""

    def __init__(self, w, lo: int, h: float, c: float, logS: float, dropped: float = 0.0,
                 noise: float = 0.0):
        self.w, self.lo, self.h, self.c, self.logS, self.dropped = w, lo, h, c, logS, dropped
        self.noise = noise  # a bound of the float error of each entry of w (FFT round-off)

    @classmethod
    def from_masses(cls, lo: int, masses, h: float, c: float, log_extra_drop: float = -math.inf):
        """From true masses at indices lo.. (float64, may be tiny: tilted in logs);
        ``log_extra_drop`` the logarithm of a tilted mass dropped before (counted in
        ``dropped``)."""
        m = np.asarray(masses, dtype=float)
        k = np.arange(len(m)) + lo
        with np.errstate(divide="ignore"):
            lw = np.log(m) + c * h * k
        top = np.max(lw[np.isfinite(lw)])
        w = np.where(m > 0, np.exp(lw - top), 0.0)
        tot = float(np.sum(w))
        w = w / tot
        logS = top + math.log(tot)
        law = cls(w, lo, h, c, logS, 0.0)
        law.dropped = math.exp(min(log_extra_drop - logS, 700.0))
        return law.trim()

    def trim(self, max_len: int = 2**21):
        """Drop the points below CUT and keep at most ``max_len`` points around the mean (the
        dropped tilted mass is accounted in ``dropped``)."""
        nz = np.nonzero(self.w > CUT)[0]
        if nz[-1] - nz[0] + 1 > max_len:
            mid = int(round(float(np.sum(self.w * np.arange(len(self.w))))))
            a = max(nz[0], mid - max_len // 2)
            nz = np.array([a, min(nz[-1], a + max_len - 1)])
        d = float(np.sum(self.w[:nz[0]]) + np.sum(self.w[nz[-1] + 1:]))
        self.w = self.w[nz[0]:nz[-1] + 1].copy()
        self.lo += int(nz[0])
        self.dropped += d
        return self

    def compose(self, other: GridLaw) -> GridLaw:
        from scipy.signal import fftconvolve

        w = np.clip(fftconvolve(self.w, other.w), 0, None)
        tot = float(np.sum(w))
        # the FFT's round-off: |error| <= 10 u log2(N) |a|_2 |b|_2 per entry (the usual bound
        # of FFT convolution in floating point, with a generous constant); an entry's earlier
        # error passes through a convolution with a law of mass 1 unchanged in size
        n = len(self.w) + len(other.w)
        err = 10 * 2.0**-53 * math.log2(n) * float(np.linalg.norm(self.w)) \
            * float(np.linalg.norm(other.w))
        out = GridLaw(w / tot, self.lo + other.lo, self.h, self.c,
                      self.logS + other.logS + math.log(tot),
                      self.dropped + other.dropped,
                      (self.noise + other.noise + err) / tot)
        return out.trim()

    def power(self, n: int) -> GridLaw:
        """The n-fold law by binary powering (the dropped masses add up through compose)."""
        res, p = None, self
        while n:
            if n & 1:
                res = p if res is None else res.compose(p)
            n >>= 1
            if n:
                p = p.compose(p)
        return res

    def delta(self, e: float, upper: bool, T: int = 1):
        """delta(e) (an mpf) of this law; ``upper`` adds the dropped mass bound."""
        s = (np.arange(len(self.w)) + self.lo) * self.h
        sel = s > e
        kern = np.exp(-self.c * (s[sel] - e)) * -np.expm1(e - s[sel])
        v = math.fsum((self.w[sel] * kern).tolist())
        # the entries' float error, at most noise each, weighted by the kernel (<= 1)
        err = self.noise * math.fsum(kern.tolist())
        if upper:
            v += T * self.dropped + err
        else:
            v = max(v - err, 0.0)
        with MP.workdps(30):
            return MP.mpf(v) * MP.exp(MP.mpf(self.logS) - MP.mpf(self.c) * MP.mpf(e))


def _phi_diff(a, b):
    """Phi(b) - Phi(a) for arrays a <= b, relative accuracy kept in both tails."""
    from scipy.special import ndtr

    return np.where(a > 0, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))


def sgd_step_masses(mu: float, q: float, direction: str, h: float, lmin: float, lmax: float):
    """(k0, masses of the bins (k h, (k+1) h] for k = k0 .., mass below k0 h, mass above) of
    one step's loss under A (see the module docstring)."""
    k0, k1 = math.floor(lmin / h), math.ceil(lmax / h)
    ls = np.arange(k0, k1 + 1) * h  # boundaries

    def x_of(l):
        """x with L(x) = l (remove) or L(x) = l (add), +-inf outside the range."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            v = l if direction == "remove" else -l
            # log u, u = (e^v - (1 - q))/q, without overflow for large v
            big = v > 1
            vb = np.where(big, v, 1.0)
            vs = np.where(big, 0.0, v)
            logu_big = vb + np.log1p(-(1 - q) * np.exp(-vb)) - math.log(q)
            us = (np.exp(vs) - (1 - q)) / q
            logu_small = np.log(np.where(us > 0, us, 1.0))
            logu = np.where(big, logu_big, logu_small)
            ok = big | (us > 0)
            x = np.where(ok, (logu + mu * mu / 2) / mu, -np.inf)
        return x

    xs = x_of(ls)
    if direction == "remove":  # L increasing in x: bin (l_k, l_{k+1}] = (x_k, x_{k+1}]
        a, b = xs[:-1], xs[1:]

        def mass(a, b):
            return (1 - q) * _phi_diff(a, b) + q * _phi_diff(a - mu, b - mu)
        m = mass(a, b)
        below = float(mass(np.array([-np.inf]), xs[:1])[0])
        above = float(mass(xs[-1:], np.array([np.inf]))[0])
    else:  # L decreasing: bin (l_k, l_{k+1}] = [x_{k+1}, x_k)
        a, b = xs[1:], xs[:-1]
        m = _phi_diff(a, b)
        # below l_{k0}: x > x_{k0}; above l_{k1}: x < x_{k1}
        below = float(_phi_diff(xs[:1], np.array([np.inf]))[0])
        above = float(_phi_diff(np.array([-np.inf]), xs[-1:])[0])
    m = np.where(np.isfinite(m) & (m > 0), m, 0.0)
    return k0, m, below, above


def bracket_laws(k0: int, m, below: float, log_above_tilted: float, h: float, c: float,
                 above: float = 0.0):
    """(lower, upper) GridLaws of one step from its bin masses (see the module docstring):
    ``above`` the true mass above the window (rounded down into its last point for the lower
    law), ``log_above_tilted`` the logarithm of a bound of its tilted mass E[e^{c L}; L > window]
    (dropped from the upper law and counted in its ``dropped``)."""
    lo_m = np.concatenate([m, [0.0]])
    lo_m[-1] += above
    low = GridLaw.from_masses(k0, lo_m, h, c)
    up_m = np.concatenate([[below], m])  # bin k -> k + 1; below -> k0
    upp = GridLaw.from_masses(k0, up_m, h, c, log_extra_drop=log_above_tilted)
    return low, upp


def sgd_log_mgf(mu: float, q: float, direction: str, c: float) -> float:
    """log E_A[e^{c L}] of one step (a float Riemann sum in logs; only chooses the tilt)."""
    from scipy.special import logsumexp

    x = np.arange(-40.0, 40.0 + (c + 1) * mu, 1e-3)
    lm = np.logaddexp(math.log1p(-q), math.log(q) + mu * x - mu * mu / 2)
    k = (c + 1) if direction == "remove" else -c
    return float(logsumexp(-x * x / 2 + k * lm) + math.log(1e-3 / math.sqrt(2 * math.pi)))


def saddle_tilt(logM, T: int, e: float, cmax: float = 60.0) -> float:
    """argmin over c in [0, cmax] of T log M(c) - c e (golden section; convex)."""
    a, b = 0.0, cmax
    g = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        x1, x2 = b - g * (b - a), a + g * (b - a)
        if T * logM(x1) - x1 * e < T * logM(x2) - x2 * e:
            b = x2
        else:
            a = x1
    return (a + b) / 2


def _window(mu, q, direction, c):
    """A loss window outside which one step's tilted mass is below ~e^{-98} of its peak's."""
    if direction == "remove":
        lmin = math.log1p(-q)
        xmax = mu * (1 + c) + 14
        lmax = float(np.logaddexp(math.log1p(-q), math.log(q) + mu * xmax - mu * mu / 2))
    else:
        lmax = -math.log1p(-q)
        xmax = 14.0
        lmin = -float(np.logaddexp(math.log1p(-q), math.log(q) + mu * xmax - mu * mu / 2))
    return lmin, lmax


def sgd_step_laws(mu: float, q: float, direction: str, c: float, T: int,
                  max_points: int = 2**21, rel: float = 1e-3):
    """(lower, upper) GridLaws of one step, tilted by c, on a grid h chosen so that the T-fold
    bracket is about ``rel`` wide (c T h) where the window allows; and h."""
    lmin, lmax = _window(mu, q, direction, c)
    # pass 1: a coarse grid finds where the tilted mass lives
    h1 = (lmax - lmin) / 2**16
    k0, m, below, above = sgd_step_masses(mu, q, direction, h1, lmin, lmax)
    k = np.arange(len(m)) + k0
    with np.errstate(divide="ignore"):
        lw = np.log(m) + c * h1 * (k + 1)  # an upper bound of each bin's tilted mass
    top = np.max(lw[np.isfinite(lw)])
    keep = np.nonzero(lw > top - 75)[0]
    a, b = keep[0], keep[-1]
    lmin2 = max(lmin, (k0 + a - 1) * h1)
    lmax2 = min(lmax, (k0 + b + 2) * h1)
    # the tilted mass above lmax2: the pass-1 bins above it, rounded up (plus the mass above
    # lmax, below e^{-98} relative: ignored)
    above_t = top + math.log(float(np.sum(np.exp(lw[b + 2:] - top)))) \
        if b + 2 < len(lw) and np.any(np.isfinite(lw[b + 2:])) else -math.inf
    # the tilted law's spread: the T-fold law's +-16 sd must fit in max_points
    kk = np.arange(len(m)) + k0
    wt = np.exp(np.where(np.isfinite(lw), lw - top, -np.inf))
    wt = wt / np.sum(wt)
    mean = float(np.sum(wt * kk)) * h1
    sd = math.sqrt(max(float(np.sum(wt * (kk * h1 - mean) ** 2)), h1 * h1))
    h = max((lmax2 - lmin2) / max_points, rel / (T * max(c, 1.0)), 1e-9,
            32 * math.sqrt(T) * sd / max_points)
    k0, m, below, above = sgd_step_masses(mu, q, direction, h, lmin2, lmax2)
    if c == 0:
        above_t = math.log(above) if above > 0 else -math.inf
    low, upp = bracket_laws(k0, m, below, above_t, h, c, above=above)
    return low, upp, h


def sgd_bracket(mu: float, q: float, T: int, e: float, direction: str, c: float | None = None,
                max_points: int = 2**21, rel: float = 1e-3, cmax: float = 3000.0):
    """(lower, upper) mpfs of delta_T(e) of one direction of T Poisson-subsampled Gaussian
    steps, and the (h, c) used (the tilt at the saddle point, at most ``cmax``)."""
    if c is None:
        c = saddle_tilt(lambda t: sgd_log_mgf(mu, q, direction, t), T, e, cmax) if e > 0 \
            else 0.0
        c = min(max(c, 0.0), cmax)
    low, upp, h = sgd_step_laws(mu, q, direction, c, T, max_points, rel)
    lT, uT = low.power(T), upp.power(T)
    return lT.delta(e, False, T), uT.delta(e, True, T), h, c


def sgd_sym_bracket(mu, q, T, e, **kw):
    """(lower, upper) of the add/remove hull's delta(e): the maximum of the two directions."""
    lr, ur, *_ = sgd_bracket(mu, q, T, e, "remove", **kw)
    la, ua, *_ = sgd_bracket(mu, q, T, e, "add", **kw)
    return max(lr, la), max(ur, ua)


# ---------------------------------------------------------------------------------------------
# untilted laws on a shared grid: the roc of a hull
# ---------------------------------------------------------------------------------------------

def _profile_arrays(law: GridLaw):
    """(grid s_j, A_j, B_j) with delta(e) = A_j - e^e B_j for e in [s_j, s_{j+1}) (c = 0 laws):
    A_j = sum_{k > j} w_k, B_j = sum_{k > j} w_k e^{-s_k}."""
    assert law.c == 0
    s = (np.arange(len(law.w)) + law.lo) * law.h
    S = math.exp(law.logS)
    w = law.w * S
    A = np.concatenate([np.cumsum(w[::-1])[::-1][1:], [0.0]])
    B = np.concatenate([np.cumsum((w * np.exp(-s))[::-1])[::-1][1:], [0.0]])
    return s, A, B


def hull_roc_bracket(laws_low: list[GridLaw], laws_up: list[GridLaw], alpha: float):
    """(lower, upper) of inf_e [max_i delta_i(e) + e^e alpha] from rounded-down and rounded-up
    laws (c = 0) of the directions i. The upper end: the minimum over grid points of the upper
    profiles plus the dropped masses (each a value of the objective at some e); the lower end:
    on each grid cell every delta_i is A - B v (v = e^e), so the maximum of the lines plus
    alpha v is minimised at a cell end or where two lines cross, all checked."""
    def on_grid(laws):
        lo = min(x.lo for x in laws)
        hi = max(x.lo + len(x.w) for x in laws)
        out = []
        for x in laws:
            s, A, B = _profile_arrays(x)
            A2 = np.empty(hi - lo + 1)
            B2 = np.empty(hi - lo + 1)
            i0 = x.lo - lo
            # below the law: delta = total - e^e E[e^{-L}] (every point above e)
            tot = float(np.sum(x.w)) * math.exp(x.logS)
            eml = float(np.sum(x.w * np.exp(-s))) * math.exp(x.logS)
            A2[:i0], B2[:i0] = tot, eml
            A2[i0:i0 + len(A)] = A
            B2[i0:i0 + len(B)] = B
            A2[i0 + len(A):], B2[i0 + len(B):] = 0.0, 0.0
            out.append((A2, B2))
        grid = (np.arange(hi - lo + 1) + lo) * laws[0].h
        return grid, out

    g, up = on_grid(laws_up)
    v = np.exp(g)
    upper = np.min(np.maximum.reduce([A - B * v for A, B in up]) + alpha * v)
    # dropped masses and the entries' float error (each delta_i moves by at most noise_i times
    # the number of points, c = 0 laws)
    upper += sum(x.dropped + x.noise * len(x.w) for x in laws_up)
    g, lw = on_grid(laws_low)
    v0, v1 = np.exp(g[:-1]), np.exp(g[1:])
    cands = []
    for v_ in (v0, v1):
        cands.append(np.maximum.reduce([A[:-1] - B[:-1] * v_ for A, B in lw]) + alpha * v_)
    if len(lw) == 2:
        (A1, B1), (A2, B2) = lw
        dB = (B1 - B2)[:-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            vx = (A1 - A2)[:-1] / dB
        ok = np.isfinite(vx) & (vx > v0) & (vx < v1)
        vx = np.where(ok, vx, v0)
        cands.append(np.maximum(A1[:-1] - B1[:-1] * vx, A2[:-1] - B2[:-1] * vx) + alpha * vx)
    # below the grid the objective is tot - v (E[e^{-L}] - alpha), v = e^e in (0, v_0]: its
    # infimum is at v_0 (a grid point, above) or, where E[e^{-L}] < alpha (mass trimmed at
    # the low end), the limit v -> 0, the total mass
    tots = [float(np.sum(x.w)) * math.exp(x.logS) for x in laws_low]
    lower = min(min(float(np.min(x)) for x in cands), max(tots))
    lower -= sum(x.noise * len(x.w) * math.exp(x.logS) for x in laws_low)
    return lower, min(upper, 1.0)


def sgd_roc_bracket(mu, q, T, alpha, max_points=2**20, rel=1e-3):
    """(lower, upper) of the roc of the add/remove hull of T subsampled Gaussian steps at alpha
    (untilted laws on one grid: for alpha and 1 - roc above ~1e-10)."""
    h = max(sgd_step_laws(mu, q, d, 0.0, T, max_points, rel)[2] for d in ("remove", "add"))
    laws_low, laws_up = [], []
    for d in ("remove", "add"):
        lmin, lmax = _window(mu, q, d, 0.0)
        k0, m, below, above = sgd_step_masses(mu, q, d, h, lmin, lmax)
        lo, up = bracket_laws(k0, m, below, math.log(above) if above > 0 else -math.inf, h,
                              0.0, above=above)
        laws_low.append(lo.power(T))
        laws_up.append(up.power(T))
    return hull_roc_bracket(laws_low, laws_up, alpha)


# ---------------------------------------------------------------------------------------------
# Laplace factors of different scales
# ---------------------------------------------------------------------------------------------

def laplace_step_masses(mu: float, h: float):
    """(k0, bin masses of (k h, (k+1) h], atoms [(loss, mass)]) of one Laplace(mu) loss under Q."""
    k0, k1 = math.floor(-mu / h), math.ceil(mu / h)
    ls = np.clip(np.arange(k0, k1 + 1) * h, -mu, mu)
    ex = np.exp((ls - mu) / 2)
    m = (ex[1:] - ex[:-1]) / 2
    return k0, m, [(mu, 0.5), (-mu, math.exp(-mu) / 2)]


def laplace_laws(mu: float, h: float, c: float):
    """(lower, upper) GridLaws of one Laplace(mu) loss (the atoms rounded down and up)."""
    k0, m, atoms = laplace_step_masses(mu, h)
    n = len(m) + 3
    low, up = np.zeros(n), np.zeros(n)
    low[:len(m)] += m
    up[1:len(m) + 1] += m
    for l, w in atoms:
        low[math.floor(l / h) - k0] += w
        up[math.ceil(l / h) - k0] += w
    return GridLaw.from_masses(k0, low, h, c), GridLaw.from_masses(k0, up, h, c)


def laplace_product_bracket(mus: list[float], e: float, h: float = 2e-5, c: float | None = None):
    """(lower, upper) of delta(e) of Laplace(mu_1) (x) ... (x) Laplace(mu_r)."""
    if c is None:
        def logM(t):
            # E_Q[e^{t L}] of one factor in closed form: atoms and the density integral
            tot = 0.0
            for mu in mus:
                a = 0.5 * math.exp(t * mu) + math.exp(-mu) / 2 * math.exp(-t * mu)
                k = t + 0.5
                dens = (math.exp(k * mu) - math.exp(-k * mu)) / k if abs(k) > 1e-12 else 2 * mu
                a += math.exp(-mu / 2) / 4 * dens
                tot += math.log(a)
            return tot
        c = saddle_tilt(logM, 1, e) if e > 0 else 0.0
    lows, ups = zip(*(laplace_laws(mu, h, c) for mu in mus), strict=True)
    lo, up = lows[0], ups[0]
    for x in lows[1:]:
        lo = lo.compose(x)
    for x in ups[1:]:
        up = up.compose(x)
    return lo.delta(e, False), up.delta(e, True, len(mus))


# ---------------------------------------------------------------------------------------------
# dp_accounting
# ---------------------------------------------------------------------------------------------

def dpa_sgd_bracket(sigma: float, q: float, T: int, e: float, h: float = 1e-4):
    """(optimistic, pessimistic) delta(e) of dp_accounting's PLDs of T Poisson-subsampled
    Gaussian steps, add/remove (float64, not proved: widen before use)."""
    import logging

    from dp_accounting.pld import privacy_loss_distribution as pld

    logging.getLogger().setLevel(logging.ERROR)
    out = []
    for pess in (False, True):
        d = pld.from_gaussian_mechanism(sigma, sensitivity=1, pessimistic_estimate=pess,
                                        value_discretization_interval=h, sampling_prob=q)
        out.append(d.self_compose(T).get_delta_for_epsilon(e))
    return out[0], out[1]


def dg_shift_groups(s: int, n: int, cut_digits: int) -> list:
    """The Neyman--Pearson groups (P-mass, Q-mass) of DiscreteGaussian(1, s)^n at the working
    precision, by decreasing likelihood ratio: P the sum S of n integer noises N_Z(0, s^2), Q
    the sum shifted by n (ratio Q/P at y: e^{(2 y - n)/(2 s^2)}), the n-fold law summed
    directly (|x| <= 40 s: tails below e^{-800}), masses below 10^-cut_digits dropped."""
    X = 40 * s
    w = [MP.exp(-MP.mpf(x * x) / (2 * s * s)) for x in range(-X, X + 1)]
    Z = MP.fsum(w)
    law = {x: v / Z for x, v in zip(range(-X, X + 1), w, strict=True)}
    tot = {0: MP.mpf(1)}
    for _ in range(n):
        nxt: dict = {}
        for a, pa in tot.items():
            for b, pb in law.items():
                nxt[a + b] = nxt.get(a + b, 0) + pa * pb
        tot = {k: v for k, v in nxt.items() if v > MP.mpf(10) ** -cut_digits}
    ys = sorted(set(tot) | {k + n for k in tot}, reverse=True)
    return [(tot.get(y, MP.zero), tot.get(y - n, MP.zero)) for y in ys]
