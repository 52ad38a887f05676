"""The Poisson-subsampled Gaussian loss law with M(c + it) at a cost flat in t: the tilted loss
density replaced by Chebyshev interpolants on pieces graded toward its singular end, whose
transforms are closed forms (``numeric/cf_sampled_poly.py``'s :class:`ChebPiece`), for the
certified Laplace inversion of a few (3 to a few hundred) DP-SGD steps. The law's own
evaluation (:class:`~.gaussian_sampled.SubsampledGaussianLaw`, a trapezoidal sum in x) needs a
grid step ~ 1/|t|, so one node at t ~ 10^4 (T = 3, sigma = 1.1) costs 0.1 s; here one node
costs a few dozen polynomials of degree ~40 whatever t.

Notation as :class:`~.gaussian_sampled.SubsampledGaussianLaw`: Y = e^{mu x - mu^2/2},
l(x) = log(1 - q + q Y), M(z) = int phi(x) e^{(alpha + s z) l(x)} dx with (alpha, s) = (1, 1)
("remove") or (0, -1) ("add"). The loss is y = s l(x), monotone in x, with dl/dx = mu q Y /
e^l, so at the tilt c (e = alpha + s c)

    M(c + it) = int rho_c(y) e^{ity} dy,   rho_c(y) = phi(x) e^{(e + 1) l} / (mu q Y),

with l = s y, Y = (e^l - (1 - q)) / q and x = (log Y + mu^2/2) / mu. rho_c is analytic in y
except where Y = 0 or crosses the cut of log (y0 = s log(1 - q) + 2 pi i k / s: the loss's
singular end, y0 real, where rho_c vanishes to every order but is not analytic).

Three certified parts (each an Arb ball):

* **Range.** The x-range [x_first, x_end] of the law's tilt at c (``_Tilt``: its integral
  bound ``tails`` of g_c = phi e^{e l} outside it, proved in the law's class docstring) maps to
  the y-range [y_a, y_b]; the part of M outside it is at most ``tails`` in modulus (|e^{ity}| =
  1 and g_c dx = rho_c dy).
* **Pieces.** [y_a, y_b] is cut into pieces whose distance to y0 is at least their length
  (lengths doubling away from y0, then at most :data:`MAX_PIECE`): each piece's interpolant P
  at Chebyshev points has sup |rho_c - P| <= eta_p = 4 M rho^{-n} / (rho - 1) (Trefethen,
  *Approximation Theory and Approximation Practice*, Thm. 8.2; M >= |rho_c| on the Bernstein
  ellipse E_rho, proved by Arb on boxes covering it: :class:`ChebPiece`), so
  |int_p (rho_c - P) e^{ity} dy| <= eta_p |p|.
* **Transform.** int_a^b e^{zu} P(u) du = e^{zb} Q_b(1/z) - e^{za} Q_a(1/z), Q_l(w) =
  sum_m (-1)^m P^{(m)}(l) w^{m+1} (integration by parts, finite for a polynomial), z = it;
  the sum over pieces is a sum over the breakpoints of e^{i t y_o} times a polynomial in 1/z.

So M(c + it) lies in sum_o e^{i t y_o} G_o(1/(it)) + (sum_p eta_p |p| + tails) (1 + i)[-1, 1].
For small |t| len (below :data:`SERIES_BELOW`) the series in 1/(it) would cancel many bits: a
piece's transform is then its power series in it len (:class:`_Piece`); t = 0 (a real
argument) is the law's own. The precision is raised (guard bits, kept) until
the ball is within the law's own tolerance 2^(30 - prec) M(c).
"""

from __future__ import annotations

import math

from flint import acb, arb, arb_poly, ctx

from ..numeric import budget
from ..numeric.cf_laws import lower, pm, upper, working_precision
from ..numeric.cf_sampled_poly import ChebPiece

__all__ = ["SampledGaussianPolyLaw", "T_SWITCH", "MAX_PIECE"]

#: At |t| up to this the law's own trapezoidal sum answers: only t = 0, a real argument (its
#: bound M(c) is the law's). Every t != 0 takes the pieces, whose power series serve small |t|
#: (was 100: the law's sum there costs 0.2 to 1.5 ms a node, the pieces 0.06 to 0.2 ms, and a
#: DP-SGD grid has a few such nodes per grid, about 10 % of sigma = 4, T = 10's time).
T_SWITCH = 0.0
#: The longest piece (in y); pieces near the singular end are shorter (graded). (2.0 made
#: about 10 % fewer breakpoints, but the far tail's piece of DP-SGD, sigma = 4, c = 104 then
#: asked 88 degrees, beyond the coarse ellipse bound's reach: kept at 1.0.)
MAX_PIECE = 1.0
#: |t| times a piece's length below which its transform is a power series, not integration by
#: parts (either loses about 20 bits to cancellation there).
SERIES_BELOW = 12.0
#: A graded piece's length over its distance to the singular point (its ellipse parameter
#: rho* = star + sqrt(star^2 - 1), star = 1 + 2 / GRADING).
GRADING = 2.0
#: The series' cuts kept per piece (for |t| len below SERIES_BELOW / 2^j, j < SERIES_LEVELS).
SERIES_LEVELS = 6
#: Extra bits while the pieces are built: the interpolants in powers of tau magnify the radii of
#: their values (the parameters' balls) about 2.6 bits a degree (T_n(2 tau - 1) has coefficients
#: up to (3 + 2 sqrt 2)^n); degrees stay below about 90.
BUILD_GUARD = 256
#: The boxes of a piece's ellipse bound where the coarse cover of ``_Density.ellipse_boxes``
#: leaves its interpolant short of the target at the largest degree.
FINE_BOXES = 96
#: Models kept per law (one per contour abscissa and precision).
_CACHE = 8
#: The least caller's precision a model is built for (above, a model is built for its caller's
#: own precision, a finer one costing more per node). 64: the seeded eps search
#: (``numeric/cf_epsilon.seeded_width``) inverts one grid at 64 to 67 bits, whose model at the
#: law's tolerance 2^(30 - 64) M(c) needs a third fewer degrees than one at 2^(30 - 80) (was
#: 80, shared by a locating grid at 64 bits and a grid at the level: DP-SGD, sigma = 4, T = 10,
#: the model 0.015 -> 0.008 s, 8 pieces of 256 degrees in all -> 5 of 168).
MODEL_FLOOR = 64


class _Density:
    """rho_c(y) of the module docstring, the interface :class:`ChebPiece` reads
    (``loss_density``, ``density_singularity``, ``ellipse_boxes``: 24 boxes bound M on each
    Bernstein ellipse, about 3/4 of a model's density evaluations at 64, for a few degrees more
    where the looser M asks them; a piece whose interpolant misses its target at the largest
    degree is made again with :data:`FINE_BOXES`)."""
    ellipse_boxes = 24

    def __init__(self, law, c: arb) -> None:
        self.mu, self.q = law._mu_arb(), law._q_arb()
        self.s = law._sign
        self.e = law._alpha + law._sign * c
        self.y0 = self.s * (1 - self.q).log()
        self._consts: dict[int, tuple] = {}

    def density_singularity(self) -> arb:
        return self.y0

    def _constants(self) -> tuple:
        """(mu, q, 1 - q, mu^2 / 2, e + 1, log(mu q) + log sqrt(2 pi)) at the working precision
        (kept per precision: the same balls as computed afresh at each call)."""
        prec = ctx.prec
        got = self._consts.get(prec)
        if got is None:
            mu, q = acb(self.mu), acb(self.q)
            got = (mu, q, 1 - q, mu * mu / 2, self.e + 1,
                   (mu * q).log() + (2 * arb.pi()).sqrt().log())
            self._consts[prec] = got
        return got

    def loss_density(self, y: acb, analytic: bool) -> acb:
        mu, q, one_q, half_mu2, e1, log_norm = self._constants()
        ell = y if self.s > 0 else -y
        big_y = (ell.exp() - one_q) / q
        log_y = big_y.log(analytic=analytic)
        if not log_y.is_finite():
            return acb("nan")
        x = (log_y + half_mu2) / mu
        log_v = -x * x / 2 + e1 * ell - log_y - log_norm
        return log_v.exp()


class _Model:
    """The pieces of rho_c at one c and one precision (module docstring): ``transform(t)`` the
    ball of the pieces' transform at t, ``err`` the bound of everything left out."""

    def __init__(self, law, c: arb, prec: int) -> None:
        tilt = law._tilt(c)  # (at the caller's precision: its range, tails and M(c) bound)
        self.tails = tilt.tails
        self.m_upper = tilt.m_upper
        x_end = tilt.x_first + tilt.n0 * tilt.h0
        # (the interpolants in powers of tau cancel about 2n bits: built with a guard, kept as
        # balls that are narrow at the evaluation's precision)
        with working_precision(prec + BUILD_GUARD):
            dens = _Density(law, c)
            mu, q = dens.mu, dens.q

            def loss(x: arb) -> arb:
                ell = (q * (mu * x - mu * mu / 2).expm1()).log1p()
                return ell if dens.s > 0 else -ell

            ya, yb = loss(tilt.x_first), loss(x_end)
            if dens.s < 0:
                ya, yb = yb, ya
            target = tilt.tol * self.m_upper / (16 * (yb - ya))
            # (exact floats, the outer ones outside [ya, yb]: a piece's ends and length carry
            # no radius, which the interpolant's power basis would magnify 2.6 bits a degree)
            lo, hi = lower(ya), upper(yb)
            if dens.s > 0:
                lo = max(lo, math.nextafter(upper(dens.y0), math.inf))
            else:
                hi = min(hi, math.nextafter(lower(dens.y0), -math.inf))
            ends = [arb(e) for e in _graded(lo, hi, float(dens.y0.mid()), dens.s)]
            self.pieces = []
            err = arb(0)
            # (pieces whose whole mass bound fits in a quarter of the interpolation budget,
            # together, are left out: the ones next to the singular end, where rho_c ~ phi(x)
            # at x ~ -8)
            spare = target * (yb - ya) / 4
            for a, b in zip(ends[:-1], ends[1:], strict=True):
                pc = ChebPiece(dens, 0, 1, 1, a, b - a, target)
                if not pc.eta < target:  # (the coarse boxes' M too loose: the finer cover)
                    dens.ellipse_boxes = FINE_BOXES
                    pc = ChebPiece(dens, 0, 1, 1, a, b - a, target)
                    del dens.ellipse_boxes
                pc.a = a
                drop = _sup(pc) * pc.length  # (|int_p rho_c e^{ity} dy| <= sup |rho_c| |p|)
                if drop < spare:
                    spare -= drop
                    err += drop
                    continue
                with working_precision(prec + _build_guard(pc.n)):
                    piece = _Piece(pc.build(), b)
                self.pieces.append(piece)
                err += piece.err
            self.err = arb(upper(err + self.tails))
            # (where two neighbours both integrate by parts, their terms at the shared end are
            # one polynomial: Q_b of the left minus Q_a of the right)
            self.joined = [None] + [
                (left.qb - right.qa) if right.a is left.b else None
                for left, right in zip(self.pieces[:-1], self.pieces[1:], strict=True)]
        self.prec = prec

    def transform(self, t: arb) -> acb:
        """The sum of the pieces' transforms at t, at the model's precision (no error term):
        a piece with |t| len < SERIES_BELOW by its power series, the others by parts, the
        terms at an end shared by two such pieces as one polynomial."""
        with working_precision(self.prec):
            return pieces_transform(self.pieces, self.joined, t)


    def transform_grid(self, h: arb, n: int) -> list[acb]:
        """:meth:`transform` at t_k = k h for k = 1 .. n (h > 0) at once, the same sums: each
        polynomial evaluated at all its nodes by multipoint calls (flint's ``arb_poly.evaluate``
        of its real and imaginary parts, :func:`_split_imaginary`: its argument is i t len or
        1/(i t), on the imaginary axis), the factors e^{i t_k y} of a breakpoint y by the recurrence
        e^{i t_k y} = e^{i t_{k-1} y} e^{i h y}, restarted from a direct exponential every
        :data:`EXP_RESTART` nodes (ball arithmetic carries the rounding: a radius grows by about
        one ulp a step). A piece takes its power series below k_i (|t| len < SERIES_BELOW: t_k
        increases with k) and its ends' polynomials from k_i on; the terms at an end shared by
        two pieces that both integrate by parts at t_k are one polynomial (``joined``)."""
        with working_precision(self.prec):
            ts = [h * k for k in range(1, n + 1)]
            tot = [acb(0)] * n
            last = len(self.pieces) - 1
            # (k_i: the first node index, 0-based, where piece i integrates by parts)
            first = []
            for p in self.pieces:
                x = float((arb(SERIES_BELOW) / (h * p.length)).upper())
                k = min(n, max(0, math.ceil(x) - 2)) if math.isfinite(x) else n
                while k < n and not ts[k] * p.length >= SERIES_BELOW:
                    k += 1
                first.append(k)
            phases: dict[int, list[acb]] = {}

            def phase(y: arb) -> list[acb]:  # e^{i t_k y}, k = 1 .. n
                got = phases.get(id(y))
                if got is None:
                    step = acb(0, h * y).exp()
                    got, v = [], step
                    for k in range(n):
                        if k % EXP_RESTART == 0:
                            v = acb(0, ts[k] * y).exp()
                        got.append(v)
                        v = v * step
                    phases[id(y)] = got
                return got

            inv = [1 / t for t in ts]  # (w_k = -i s_k, s_k = 1 / t_k: shared by the ends)
            inv2 = [x * x for x in inv]
            # (the ends' series in w cut where their terms left out are below this: far below
            # the tolerance 2^(24 - caller's prec) m_upper of :meth:`mgf`'s acceptance)
            cut = self.m_upper * arb(2) ** (16 - self.prec)

            def add(poly, ks: range, sign: int, y: arb, length: arb | None = None) -> None:
                if not len(ks):
                    return
                e = phase(y)  # (series at i t_k len, ends at w_k = 1 / (i t_k) = -i / t_k)
                if length is not None:
                    ss = [ts[k] * length for k in ks]
                    chunks = [(ks, poly, ss, [x * x for x in ss], arb(0))]
                else:
                    chunks = _truncated(poly, ks, inv, inv2, cut)
                for part, q, ss, us, tail in chunks:
                    re, im = _split_imaginary(q, 1 if length is not None else -1)
                    vr, vi = re.evaluate(us, algorithm="iter"), im.evaluate(us, algorithm="iter")
                    if tail != 0:
                        r = pm(tail)
                        vr, vi = [a + r for a in vr], [b + r for b in vi]
                    for k, a, b, x in zip(part, vr, vi, ss, strict=True):
                        v = e[k] * acb(a, x * b)
                        tot[k] = tot[k] + v if sign > 0 else tot[k] - v

            for i, piece in enumerate(self.pieces):
                budget.check()  # (a piece's terms at every node: up to 0.1 s at 50 000 nodes)
                ki = first[i]
                # (series below k_i, by the cut serving each node's |t| len)
                by_level: dict[int, list[int]] = {}
                for k in range(ki):
                    j = 0
                    x = ts[k] * piece.length
                    while j + 1 < SERIES_LEVELS and x < SERIES_BELOW / 2 ** (j + 1):
                        j += 1
                    by_level.setdefault(j, []).append(k)
                for j, ks in by_level.items():  # (consecutive: |t| len increases with k)
                    add(piece.series[j], range(ks[0], ks[-1] + 1), 1, piece.a, piece.length)
                # (the left end: by the left neighbour's joined polynomial where both integrate)
                if i and self.joined[i] is not None:
                    add(piece.qa, range(ki, max(ki, first[i - 1])), -1, piece.a)
                else:
                    add(piece.qa, range(ki, n), -1, piece.a)
                if i < last and self.joined[i + 1] is not None:
                    both = max(ki, first[i + 1])
                    add(piece.qb, range(ki, both), 1, piece.b)
                    add(self.joined[i + 1], range(both, n), 1, piece.b)
                else:
                    add(piece.qb, range(ki, n), 1, piece.b)
                # (piece i's left end is no later piece's: its phases freed, so that two lists
                # of n balls are kept at a time, ~20 MB at 92 000 nodes, not one per breakpoint)
                phases.pop(id(piece.a), None)
            return tot


def pieces_transform(pieces: list, joined: list, t: arb) -> acb:
    """The sum over the pieces of int_a^b e^{i t y} p(y) dy at the context's precision: a piece
    with |t| len < SERIES_BELOW by its power series, the others by parts (``qa``, ``qb``: the
    antiderivative's end terms), the terms at an end shared by two such pieces as one
    polynomial (``joined[i]``, the end between pieces i - 1 and i, or None)."""
    z = acb(0, t)
    w = 1 / z
    at = abs(t)
    parts = [at * p.length >= SERIES_BELOW for p in pieces]
    tot = acb(0)
    last = len(pieces) - 1
    for i, piece in enumerate(pieces):
        ea = (z * piece.a).exp()
        if not parts[i]:
            tot += ea * piece.series_at(at * piece.length)(z * piece.length)
            continue
        if not (i and parts[i - 1] and joined[i] is not None):
            tot -= ea * piece.qa(w)
        if i < last and parts[i + 1] and joined[i + 1] is not None:
            tot += (z * piece.b).exp() * joined[i + 1](w)
        else:
            tot += (z * piece.b).exp() * piece.qb(w)
    return tot


def _truncated(poly: arb_poly, ks: range, inv: list, inv2: list, cut: arb) -> list:
    """The nodes ``ks`` of an end's polynomial Q(w) = sum_j a_j w^j, w = -i s_k (s_k =
    ``inv[k]`` = 1 / t_k, decreasing in k), in chunks of t_k within a factor 2, each with Q cut
    after the least degree M whose terms left out are at most ``cut`` at the chunk's largest s:
    |sum_{j > M} a_j w^j| <= sum_{j > M} |a_j| s^j, increasing in s, so that bound serves every
    node of the chunk (the ball of each value is widened by it, real and imaginary parts alike).
    Where t len is large (most nodes: t ~ 10^3 to 10^4 on pieces of length up to 1) a few of the
    ~40 terms remain. Items: (nodes, cut polynomial, s's, s^2's, bound)."""
    a = poly.coeffs()
    mags = [arb(abs(x).upper()) for x in a]
    out = []
    k0 = ks.start
    while k0 < ks.stop:
        s0 = inv[k0]
        k1 = k0 + 1
        while k1 < ks.stop and inv[k1] * 2 > s0:
            k1 += 1
        tail, m = arb(0), len(a)
        sp = arb(s0.upper())
        powers = [arb(1)]
        for _ in range(len(a)):
            powers.append(powers[-1] * sp)
        while m > 1:  # (drop a_{m-1} while the dropped terms stay within the cut)
            nxt = tail + mags[m - 1] * powers[m - 1]
            if not nxt <= cut:
                break
            tail, m = nxt, m - 1
        q = arb_poly(a[:m]) if m < len(a) else poly
        out.append((range(k0, k1), q, inv[k0:k1], inv2[k0:k1], arb(tail.upper())))
        k0 = k1
    return out


def _split_imaginary(poly: arb_poly, omega: int) -> tuple[arb_poly, arb_poly]:
    """Real polynomials (R, I) with A(omega i s) = R(s^2) + i s I(s^2) for real s, A = ``poly``
    (real coefficients a_j) and omega = +-1: (omega i)^j is (-1)^(j/2) for even j and
    omega i (-1)^((j-1)/2) for odd j. Two real evaluations of half the degree cost about a third
    of one complex evaluation."""
    a = poly.coeffs()
    re = [a[j] if j % 4 == 0 else -a[j] for j in range(0, len(a), 2)]
    im = [omega * (a[j] if j % 4 == 1 else -a[j]) for j in range(1, len(a), 2)]
    return arb_poly(re), arb_poly(im)


#: The nodes between direct exponentials in :meth:`_Model.transform_grid`'s recurrences.
EXP_RESTART = 64


class _Piece:
    """One piece's interpolant P on [a, a + len] and its transform int P e^{ity} dy by
    integration by parts (|t| len >= :data:`SERIES_BELOW`: the series in w = 1/(it) of the module
    docstring) or by the power series of e^{it len tau} (|t| len < SERIES_BELOW):
    e^{ita} len sum_k (it len)^k m_k / k!, m_k = int_0^1 P(tau) tau^k dtau, cut after K terms:
    |m_k| <= S / (k + 1), S >= sup |P| on [0, 1] (S = M + eta: the interpolant is within eta
    of rho_c, and |rho_c| <= M on the interval inside the ellipse), so the terms left out are at
    most len S sum_{k > K} x^k / k! <= len S e^x x^{K+1} / (K+1)!, x = |t| len < SERIES_BELOW,
    bounded at x = SERIES_BELOW (increasing in x)."""

    def __init__(self, pc: ChebPiece, b: arb) -> None:
        self.a, self.length, self.n = pc.a, pc.length, pc.n
        self.b = b  # (the breakpoint object the next piece starts at: its e^{zb} is shared)
        qa, qb = pc.end_series()
        self.qa, self.qb = arb_poly(qa), arb_poly(qb)
        sup = _sup(pc) + pc.eta
        target = pc.eta * self.length
        # (the number of terms for each x <= x_j = SERIES_BELOW / 2^j: the tail bound is
        # increasing in x, so the cut chosen at x_j serves every x <= x_j)
        cuts = []
        for j in range(SERIES_LEVELS):
            x = arb(SERIES_BELOW) / 2**j
            k, term = 0, self.length * sup * x.exp()  # (len S e^x x^{k+1} / (k+1)!, k = -1)
            while True:
                k += 1
                term = term * x / k
                if term < target or k >= 400:
                    break
            cuts.append((k - 1, term))
        self.k_max = cuts[0][0]
        # (m_j = int_0^1 tau^j P(tau) dtau = sum_i p_i / (i + j + 1) for all j at once: the
        # coefficients n + j of the product of P's reversed coefficients with sum_k x^k/(k + 1))
        p = pc.poly.coeffs()
        deg = len(p) - 1
        hk = arb_poly([arb(1) / (k + 1) for k in range(deg + self.k_max + 1)])
        prod = (arb_poly(list(reversed(p))) * hk).coeffs()
        co = []
        fact = arb(1)
        for j in range(self.k_max + 1):
            if j:
                fact *= j
            co.append(self.length * prod[deg + j] / fact)
        self.series = [arb_poly(co[:k + 1]) for k, _ in cuts]
        self.err = pc.eta * self.length + max(term for _, term in cuts)

    def series_at(self, x: arb):
        """The cut power series serving |t| len = x < SERIES_BELOW."""
        j = 0
        while j + 1 < SERIES_LEVELS and x < SERIES_BELOW / 2 ** (j + 1):
            j += 1
        return self.series[j]


def _build_guard(n: int) -> int:
    """The extra bits of a piece of degree n while it is built: 3 a degree (the power basis
    magnifies its values' radii about 2.6 bits a degree, :data:`BUILD_GUARD`) and 32 more, at
    most BUILD_GUARD (DP-SGD, sigma = 4: degrees 16 to 40, 80 to 152 bits where 256 were
    spent; the model about 10 % faster, its nodes' balls still 2^-110 of the model's error)."""
    return min(BUILD_GUARD, 32 + 3 * n)


def _sup(pc: ChebPiece) -> arb:
    """M >= |rho_c| on the piece's Bernstein ellipse (from its eta = 4 M rho^{-n} / (rho - 1)),
    hence on the piece itself."""
    return pc.eta * (pc.rho - 1) * arb(pc.rho) ** pc.n / 4


def _graded(ya: float, yb: float, y0: float, s: int) -> list[float]:
    """Breakpoints ya = p_0 < ... < p_m = yb: from the end nearest the singular point y0 on,
    each piece no longer than its distance to y0 (lengths doubling), at most
    :data:`MAX_PIECE`."""
    near, far = (ya, yb) if s > 0 else (yb, ya)
    out = [near]
    direction = 1.0 if far > near else -1.0
    while abs(far - out[-1]) > 1e-15:
        step = min(GRADING * abs(out[-1] - y0), MAX_PIECE)
        nxt = out[-1] + direction * step
        if (nxt - far) * direction >= -0.25 * step:
            nxt = far
        out.append(nxt)
    return out if s > 0 else list(reversed(out))


class SampledGaussianPolyLaw:
    """The view of a :class:`~.gaussian_sampled.SubsampledGaussianLaw` (uncut) whose M(c + it)
    costs the same at every t != 0 (module docstring); every bound of the
    inversion (decay, power decay, cumulants, M at real arguments) is the law's own."""

    #: read by ``numeric.cf``: M(c + it) at a cost independent of t
    mgf_cost_flat = True
    mgf_cost_per_t = 0.0
    closed_under_tensor = False
    scan_contour = True
    #: read by ``numeric.cf_flat``, ``numeric.cf`` and ``numeric.cf_route`` (the properties
    #: below): the seconds of the models of a search (about two contour abscissas), of one
    #: abscissa's model (kept: a plan at an abscissa already modelled is charged that much less,
    #: ``cf._reuse_bonus``) growing with mu (more and longer pieces: DP-SGD, q = 256/60000, one
    #: model 0.016 / 0.023 / 0.036 / 0.051 s for sigma = 4 / 2 / 1.1 / 0.8; 2 loaded cores), the
    #: seconds of one node (below: a grid's node, :meth:`mgf_grid`, costs 0.05 ms at 64 bits and
    #: 0.06 to 0.09 ms at 100 bits, a node alone by :meth:`mgf` about twice that), and the nodes
    #: allowed at relative widths below ``cf_route.TIGHT_REL`` and above
    work_caps = (30_000.0, 3_000.0)
    #: (kept at 2e-4 whatever mu, an upper estimate of a single node: the routes that weigh the
    #: view against the PLD engine by it, ``routes/inversion_curve.py``'s FLAT_TAIL_SECONDS,
    #: would otherwise take the band where the engine answers a loose tolerance in 0.06 s:
    #: DP-SGD, sigma = 1.1, T = 3, roc(0.01) at tol 1e-4, 1.6 s)
    node_seconds = 2e-4

    @property
    def build_seconds(self) -> float:
        return 0.03 + 0.1 * self.mu

    @property
    def model_seconds(self) -> float:
        return 0.01 + 0.05 * self.mu


    def __init__(self, law) -> None:
        if law.cut is not None:
            raise ValueError("the polynomial view is of an uncut law")
        self.law = law
        self.mu, self.q, self.direction = law.mu, law.q, law.direction
        self._models: dict[tuple[str, int], _Model] = {}
        self._guard = 32

    def cumulants(self, c: float):
        return self.law.cumulants(c)

    def log_decay_estimate(self, c: float, t: float) -> float:
        return self.law.log_decay_estimate(c, t)

    def log_mgf_many(self, cs):
        return self.law.log_mgf_many(cs)

    def decay_bound(self, c: arb, t: arb) -> arb:
        return self.law.decay_bound(c, t)

    def power_decay(self, c: arb):
        return self.law.power_decay(c)

    def log_power_decay_estimate(self, c: float):
        return self.law.log_power_decay_estimate(c)

    def loss_sup(self):
        return self.law.loss_sup()

    def float_epsilon(self, n: int, delta: float):
        return self.law.float_epsilon(n, delta)

    def inverse(self):
        return SampledGaussianPolyLaw(self.law.inverse())

    def _model(self, c: arb, prec: int, caller: int) -> _Model:
        """The model at abscissa c evaluated at ``prec`` bits, built for a caller's precision
        of at least ``caller`` (its error target is the law's tolerance at that precision):
        kept by the exact abscissa (the ball's midpoint and radius, not its decimal string,
        which depends on the precision) and reused by any caller it is fine enough for; built
        for at least :data:`MODEL_FLOOR` bits, so that the grid locating eps and the grid at
        the level share it at the default tolerance."""
        key = (c.mid().man_exp(), c.rad().man_exp(), prec)
        m = self._models.get(key)
        if m is None or m.caller < caller:
            if m is None and len(self._models) >= _CACHE:
                self._models.pop(next(iter(self._models)))
            fine = max(caller, MODEL_FLOOR)
            with working_precision(fine):  # (the law's tilt at that precision)
                m = _Model(self.law, c, prec)
            m.caller = fine
            self._models[key] = m
        return m

    def mgf_grid(self, c: arb, h: arb, n: int) -> list[acb]:
        """M(c + i k h) for k = 0 .. n (the inversion's nodes, ``numeric.cf._Inverter``): k = 0
        the law's own, the others the pieces' sums at once (:meth:`_Model.transform_grid`), each
        ball as :meth:`mgf`'s (the same sums, the same error term and acceptance of the radii:
        the guard bits raised until every node's ball is within the law's tolerance)."""
        if not c > 0:
            raise ValueError("need Re z > 0")
        saved = ctx.prec
        first = self.law.mgf(acb(c))
        if n < 1:
            return [first]
        bound = arb(2) ** (24 - saved)
        while True:
            prec = 64 * ((saved + self._guard + 63) // 64)
            model = self._model(c, prec, saved)
            vals = model.transform_grid(h, n)
            lim = model.m_upper * bound
            if all(v.real.rad() <= lim and v.imag.rad() <= lim for v in vals) \
                    or self._guard >= 4096:
                break
            self._guard *= 2
        with working_precision(saved):
            r = pm(model.err)
            return [first] + [acb(v.real + r, v.imag + r) for v in vals]

    def mgf(self, z: acb) -> acb:
        if not z.real > 0:
            raise ValueError("need Re z > 0")
        t = z.imag
        if not abs(t) > T_SWITCH:
            return self.law.mgf(z)
        saved = ctx.prec
        c = z.real
        while True:
            prec = 64 * ((saved + self._guard + 63) // 64)
            model = self._model(c, prec, saved)
            val = model.transform(t)
            scale = model.m_upper
            if (val.real.rad() <= scale * arb(2) ** (24 - saved)
                    and val.imag.rad() <= scale * arb(2) ** (24 - saved)) or self._guard >= 4096:
                break
            self._guard *= 2
        with working_precision(saved):
            r = pm(model.err)
            return acb(val.real + r, val.imag + r)
