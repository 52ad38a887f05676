"""Continuous pairs on the real line: T(P, Q) for mixtures of normal and Laplace laws, from the
densities and distribution functions written in raw mpmath (erfc, exp), never from a family's
closed form.

* The privacy profile and the conjugate come from the hockey-stick integral
  ``H(t) = int (q - t p)_+ = Q(R) - t P(R)`` on the region ``R = {log q/p > log t}``
  (Dong, Roth & Su, Prop. 6: ``delta(eps) = H(e^eps)``, ``f^*(-t) = -1 + H(t)``). The region is a
  union of intervals: the log-likelihood ratio is split into monotone pieces at its critical
  points (sign changes of its derivative on a grid, refined by bisection), so each piece has at
  most one crossing, found by bisection in x.
* The trade-off value is the Legendre transform ``f(alpha) = sup_t {1 - t alpha - H(t)}``
  maximised over log t by golden section (concave in t; the randomised Neyman--Pearson tests
  and atoms of the likelihood ratio need no special case). A pair whose likelihood ratio is
  monotone in x (``monotone=+1``: non-decreasing) is instead traced by the threshold tests
  ``x > s``: ``alpha = P(X > s)``, ``f(alpha) = Q(X <= s)``, s solved by bisection (a flat piece
  of the ratio is a straight piece of f, as randomisation gives).
* The functionals are integrals over x: ``E_P[g(log q/p)]`` by tanh-sinh quadrature split at
  the critical points and where the integrand has a kink.
"""

from __future__ import annotations

import mpmath
import reference_np as rnp
from mpmath import mp

from .base import Ref, _tick


# -- laws ------------------------------------------------------------------------------------
class Normal:
    """N(m, s^2)."""

    def __init__(self, m, s=1):
        self.m, self.s = mp.mpf(m), mp.mpf(s)

    def logpdf(self, x):
        z = (x - self.m) / self.s
        return -z * z / 2 - mpmath.log(self.s) - mpmath.log(2 * mp.pi) / 2

    def dlogpdf(self, x):
        return -(x - self.m) / self.s**2

    def sf(self, x):
        return mpmath.erfc((x - self.m) / (self.s * mpmath.sqrt(2))) / 2

    def cdf(self, x):
        return mpmath.erfc(-(x - self.m) / (self.s * mpmath.sqrt(2))) / 2

    def scale(self):
        return self.s

    def kinks(self):
        return []


class LaplaceLaw:
    """Lap(m, b): density e^{-|x - m|/b} / (2b)."""

    def __init__(self, m, b=1):
        self.m, self.b = mp.mpf(m), mp.mpf(b)

    def logpdf(self, x):
        return -abs(x - self.m) / self.b - mpmath.log(2 * self.b)

    def dlogpdf(self, x):
        return -mpmath.sign(x - self.m) / self.b

    def sf(self, x):
        z = (x - self.m) / self.b
        return mpmath.exp(-z) / 2 if z >= 0 else 1 - mpmath.exp(z) / 2

    def cdf(self, x):
        z = (x - self.m) / self.b
        return mpmath.exp(z) / 2 if z <= 0 else 1 - mpmath.exp(-z) / 2

    def scale(self):
        return self.b

    def kinks(self):
        return [self.m]


def _mass(law, u, v):
    """P(u < X < v) without cancellation in either tail."""
    if u == v:
        return mp.zero
    if u >= law.m:
        return law.sf(u) - (law.sf(v) if v != mp.inf else 0)
    if v <= law.m:
        return (law.cdf(v) if v != mp.inf else 1) - (law.cdf(u) if u != mp.ninf else 0)
    return (1 - (law.sf(v) if v != mp.inf else 0) - (law.cdf(u) if u != mp.ninf else 0))


class Mixture:
    """sum_i w_i law_i (weights mpf-convertible, summing to 1)."""

    def __init__(self, parts):
        self.parts = [(mp.mpf(w), law) for w, law in parts if w != 0]

    def logpdf(self, x):
        ls = [mpmath.log(w) + law.logpdf(x) for w, law in self.parts]
        m = max(ls)
        return m + mpmath.log(mpmath.fsum(mpmath.exp(v - m) for v in ls))

    def dlogpdf(self, x):
        lp = self.logpdf(x)
        return mpmath.fsum(w * mpmath.exp(law.logpdf(x) - lp) * law.dlogpdf(x)
                           for w, law in self.parts)

    def mass(self, u, v):
        return mpmath.fsum(w * _mass(law, u, v) for w, law in self.parts)

    def cdf(self, x):
        return self.mass(mp.ninf, x)


# -- the pair --------------------------------------------------------------------------------
class PairRef(Ref):
    """T(P, Q) for mixtures P, Q (module docstring). ``monotone=+1`` declares q/p
    non-decreasing in x (the threshold tests are then the Neyman--Pearson tests)."""

    kind = "pair"
    native_roc = True

    def __init__(self, P: Mixture, Q: Mixture, label: str = "", monotone: int = 0,
                 sym: bool = False, grid: int = 400):
        self.P, self.Q, self.label, self.monotone, self.sym = P, Q, label, monotone, sym
        self._grid_n = grid
        self._cache: dict = {}

    # the log-likelihood ratio and its monotone pieces
    def llr(self, x):
        _tick()
        return self.Q.logpdf(x) - self.P.logpdf(x)

    def _dllr(self, x):
        return self.Q.dlogpdf(x) - self.P.dlogpdf(x)

    def _span(self):
        laws = [law for _, law in self.P.parts + self.Q.parts]
        lo = min(law.m for law in laws)
        hi = max(law.m for law in laws)
        w = 12 * max(law.scale() for law in laws)
        return lo - w, hi + w

    def breaks(self):
        """The critical points of the log-likelihood ratio and the kinks of the densities,
        sorted: between two consecutive ones it is monotone."""
        key = ("breaks", mp.prec)
        if key not in self._cache:
            lo, hi = self._span()
            n = self._grid_n
            xs = [lo + (hi - lo) * i / n for i in range(n + 1)]
            kinks = sorted({k for _, law in self.P.parts + self.Q.parts for k in law.kinks()})
            ds = [self._dllr(x) for x in xs]
            crit = []
            for x0, x1, d0, d1 in zip(xs, xs[1:], ds, ds[1:], strict=False):
                if any(x0 < k <= x1 for k in kinks):
                    continue
                if d0 * d1 < 0:
                    a, b = x0, x1
                    for _ in range(mp.prec):
                        c = (a + b) / 2
                        if self._dllr(c) * d0 > 0:
                            a = c
                        else:
                            b = c
                    crit.append((a + b) / 2)
            self._cache[key] = sorted(set(crit) | set(kinks))
        return self._cache[key]

    def _piece_ends(self):
        """The monotone pieces' end points (finite stand-ins for the infinite ends) and the
        log-likelihood ratio there (the same for every threshold)."""
        key = ("ends", mp.prec)
        if key not in self._cache:
            lo, hi = self._span()
            pts = [lo - 40] + self.breaks() + [hi + 40]
            self._cache[key] = pts, [self.llr(x) for x in pts]
        return self._cache[key]

    def _crossing(self, i, a, b, sg, lam):
        """The x in (a, b) with llr(x) = lam on the monotone piece ``i`` (``sg`` its direction),
        by safeguarded Newton (Numerical Recipes' rtsafe): a Newton step that leaves the bracket
        or does not halve the step before last is replaced by bisection, so the bracket always
        holds the crossing. It starts from the piece's last crossing (thresholds asked in a row
        are close). On the boundary q = t p the integrand of H(t) vanishes, so an error in x
        moves H only to second order."""
        memo = ("cross", i, mp.prec)
        x = self._cache.get(memo)
        if x is None or not a < x < b:
            x = (a + b) / 2
        tol = mpmath.ldexp(1, 8 - mp.prec)
        step = old = b - a
        for _ in range(4 * mp.prec):
            _tick()
            h = sg * (self.llr(x) - lam)
            if h == 0:
                break
            if h < 0:
                a = x
            else:
                b = x
            d = sg * self._dllr(x)
            old, step = step, (h / d if d > 0 else None)
            if step is not None and abs(step) <= tol * (1 + abs(x)):
                x = x - step  # converged (the step may be below one ulp of x)
                break
            if step is None or not a < x - step < b or 2 * abs(step) > abs(old):
                step = (b - a) / 2
                x = a + step
            else:
                x = x - step
            if b - a <= tol * (1 + abs(x)):
                break
        self._cache[memo] = x
        return x

    def region(self, lam):
        """R = {x : llr(x) > lam} as a list of open intervals."""
        ends, vals = self._piece_ends()
        pts = [mp.ninf] + ends[1:-1] + [mp.inf]
        inside = vals[0] > lam
        start = mp.ninf if inside else None
        out = []
        for i in range(len(pts) - 1):
            s0, s1 = vals[i] > lam, vals[i + 1] > lam
            if s0 != s1:  # one crossing on this monotone piece
                sg = 1 if s1 else -1  # llr - lam rises through 0 when the piece enters R
                x = self._crossing(i, ends[i], ends[i + 1], sg, lam)
                if s1:
                    start = x
                else:
                    out.append((start, x))
                    start = None
        if start is not None:
            out.append((start, mp.inf))
        return out

    def hockey(self, t):
        """H(t) = int (q - t p)_+ = Q(R) - t P(R), R = {q > t p}."""
        if t <= 0:
            return mp.one - t
        R = self.region(mpmath.log(t))
        q = mpmath.fsum(self.Q.mass(u, v) for u, v in R)
        p = mpmath.fsum(self.P.mass(u, v) for u, v in R)
        return max(q - t * p, mp.zero)

    # values
    def _threshold(self, a, ac):
        """s with P(X > s) = a (monotone pairs), by bisection in x."""
        lo, hi = self._span()
        lo, hi = lo - 40, hi + 40
        if a <= ac:  # log a - log P(X > s), increasing in s
            la = mpmath.log(a)
            return rnp._solve_increasing(lambda s: la - mpmath.log(self.P.mass(s, mp.inf)),
                                         lo, hi)
        lac = mpmath.log(ac)
        return rnp._solve_increasing(lambda s: mpmath.log(self.P.mass(mp.ninf, s)) - lac, lo, hi)

    def _legendre(self, a):
        """sup_t {1 - t a - H(t)} by golden section in log t."""
        def g(u):
            t = mpmath.exp(u)
            return 1 - t * a - self.hockey(t)

        lo, hi = mp.mpf(-60), mp.mpf(60)
        r = (mpmath.sqrt(5) - 1) / 2
        u, v = hi - r * (hi - lo), lo + r * (hi - lo)
        gu, gv = g(u), g(v)
        for _ in range(110):  # log t to 1e-21: f to ~1e-21 even at a kink of H
            if gu >= gv:
                hi, v, gv = v, u, gu
                u = hi - r * (hi - lo)
                gu = g(u)
            else:
                lo, u, gu = u, v, gv
                v = lo + r * (hi - lo)
                gv = g(v)
        return max(gu, gv, mp.zero)

    def val(self, a, ac, side):
        key = ("val", a, mp.prec)
        if key not in self._cache:
            if a == 0:
                v = mp.one  # densities of full support: Q has no mass where p = 0
            elif ac == 0:
                v = mp.zero
            elif self.monotone:
                s = self._threshold(a, ac)
                v = self.Q.mass(mp.ninf, s)
            else:
                v = self._legendre(a)
            self._cache[key] = v
        return self._cache[key]

    def roc_val(self, a, ac, side):
        if self.monotone and 0 < a and ac > 0:
            return self.Q.mass(self._threshold(a, ac), mp.inf)
        return 1 - self.val(a, ac, side)

    def delta_bounds(self, eps):
        v = self.hockey(mpmath.exp(eps))
        return v, v

    # functionals: E_P[g(llr)] by quadrature
    def expect_p(self, g, extra=()):
        pts = sorted(set(self.breaks()) | {mp.mpf(x) for x in extra})
        return mpmath.quad(lambda x: mpmath.exp(self.P.logpdf(x)) * g(self.llr(x)),
                           [mp.ninf] + pts + [mp.inf])

    def cuts(self, lam):
        """The points where llr crosses lam (kinks of |llr - lam|)."""
        return [x for iv in self.region(lam) for x in iv if mpmath.isfinite(x)]

    def renyi_sum(self, a):
        """int p^a q^{1-a} = E_P[e^{(1-a) llr}]; inf when the integrand grows in a tail."""
        lo, hi = self._span()
        for far, near in ((lo - 400, lo - 200), (hi + 400, hi + 200)):
            def log_integrand(x):
                return self.P.logpdf(x) + (1 - a) * self.llr(x)
            if log_integrand(far) >= log_integrand(near):
                return mp.inf
        return self.expect_p(lambda ell: mpmath.exp((1 - a) * ell))

    def auc(self):
        """1 - int_0^1 f = 1 - int F_Q(s) p(s) ds for a monotone pair (the threshold tests
        trace f; module docstring)."""
        if not self.monotone:
            raise NotImplementedError("AUC reference for a monotone likelihood ratio only")
        pts = sorted(set(self.breaks()))
        return 1 - mpmath.quad(lambda s: self.Q.cdf(s) * mpmath.exp(self.P.logpdf(s)),
                               [mp.ninf] + pts + [mp.inf])


def normal_pair(m0, s0, m1, s1, label="") -> PairRef:
    """T(N(m0, s0^2), N(m1, s1^2)); monotone when s0 = s1 (reflected so that m1 >= m0)."""
    if s0 == s1 and m1 < m0:
        m0, m1 = -m0, -m1
    return PairRef(Mixture([(1, Normal(m0, s0))]), Mixture([(1, Normal(m1, s1))]), label,
                   monotone=1 if s0 == s1 else 0, sym=(s0 == s1))


def gauss_mixture_pair(w, a, b, label="") -> PairRef:
    """T(sum w_i N(a_i, 1), sum w_i N(b_i, 1))."""
    return PairRef(Mixture([(wi, Normal(ai)) for wi, ai in zip(w, a, strict=True)]),
                   Mixture([(wi, Normal(bi)) for wi, bi in zip(w, b, strict=True)]), label)


def poisson_replace_pair(mu, q, label="") -> PairRef:
    """P = (1-q) N(0,1) + q N(mu,1), Q = (1-q) N(0,1) + q N(-mu,1), reflected x -> -x (then
    q/p is non-decreasing)."""
    return PairRef(Mixture([(1 - q, Normal(0)), (q, Normal(-mu))]),
                   Mixture([(1 - q, Normal(0)), (q, Normal(mu))]), label, monotone=1, sym=True)


def laplace_pair(mu, label="") -> PairRef:
    """T(Lap(0, 1), Lap(mu, 1)), mu >= 0 (q/p non-decreasing)."""
    return PairRef(Mixture([(1, LaplaceLaw(0))]), Mixture([(1, LaplaceLaw(mu))]), label,
                   monotone=1, sym=True)


def gauss_pair(mu, label="") -> PairRef:
    """T(N(0, 1), N(mu, 1)), mu >= 0."""
    return normal_pair(0, 1, mu, 1, label)
