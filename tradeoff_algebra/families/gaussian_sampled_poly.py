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
piece's transform is then its power series in it len (:class:`PieceTransform`); t = 0 (a real
argument) is the law's own. The precision is raised (guard bits, kept) until
the ball is within the law's own tolerance 2^(30 - prec) M(c).
"""

from __future__ import annotations

import math

from flint import acb, arb, ctx

from ..numeric.cf_laws import lower, pm, upper, working_precision
from ..numeric.cf_piece_transform import (
    BUILD_GUARD,
    PieceTransform,
    ellipse_sup,
    pieces_transform,
    pieces_transform_grid,
)
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
#: A graded piece's length over its distance to the singular point (its ellipse parameter
#: rho* = star + sqrt(star^2 - 1), star = 1 + 2 / GRADING).
GRADING = 2.0
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
        self._consts_real: dict[int, tuple] = {}

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

    def loss_density_real(self, y: arb) -> arb:
        """:meth:`loss_density` at a real ball, in real arithmetic (the interpolation nodes and
        :func:`_real_sup`'s balls: the same operations on the real parts, about 35 % less time
        than through complex balls whose imaginary parts are 0)."""
        prec = ctx.prec
        got = self._consts_real.get(prec)
        if got is None:
            got = self._consts_real[prec] = tuple(v.real for v in self._constants())
        mu, q, one_q, half_mu2, e1, log_norm = got
        ell = y if self.s > 0 else -y
        log_y = ((ell.exp() - one_q) / q).log()
        if not log_y.is_finite():
            return arb("nan")
        x = (log_y + half_mu2) / mu
        return (-x * x / 2 + e1 * ell - log_y - log_norm).exp()

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
            # at x ~ -8, and the far tail's; each first by its sup on the real piece,
            # ``_real_sup``, then by its ellipse's)
            spare = target * (yb - ya) / 4
            for a, b in zip(ends[:-1], ends[1:], strict=True):
                drop = _real_sup(dens, a, b) * (b - a)  # (first the cheap bound on [a, b])
                if drop < spare * CHEAP_SHARE:
                    spare -= drop
                    err += drop
                    continue
                pc = ChebPiece(dens, 0, 1, 1, a, b - a, target)
                if not pc.eta < target:  # (the coarse boxes' M too loose: the finer cover)
                    dens.ellipse_boxes = FINE_BOXES
                    pc = ChebPiece(dens, 0, 1, 1, a, b - a, target)
                    del dens.ellipse_boxes
                pc.a = a
                drop = ellipse_sup(pc) * pc.length  # (|int_p rho_c e^{ity} dy| <= sup |rho_c| |p|)
                if drop < spare:
                    spare -= drop
                    err += drop
                    continue
                with working_precision(prec + _build_guard(pc.n)):
                    piece = PieceTransform(pc.build(), b)
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
        """:func:`~tradeoff_algebra.numeric.cf_piece_transform.pieces_transform_grid` of this
        model's pieces."""
        return pieces_transform_grid(self, h, n)


#: The balls that cover a piece for :func:`_real_sup`.
SUP_BALLS = 4
#: A piece is left out by :func:`_real_sup` where its bound is below this share of the spare
#: budget (a built piece's error, eta |p| and its rounding, is often below the spare by a
#: factor 2^10 to 2^20: a larger share would leave the model's error above the built pieces',
#: DP-SGD sigma = 2, T = 10: 3.37e-14 for 3.24e-14).
CHEAP_SHARE = 2.0**-24


def _real_sup(dens: _Density, a: arb, b: arb) -> arb:
    """An upper bound of |rho_c| on the real piece [a, b]: rho_c evaluated by Arb on
    :data:`SUP_BALLS` balls covering it (each the union of two neighbouring division points, at
    64 bits: a ball holds every value on it at any precision), +oo where a ball gives no finite
    value. It decides the pieces left out (``_Model``) before their ellipse bound is made: the
    far pieces of DP-SGD, sigma = 4, T = 10, y in [0.17, 2.7], have sup |rho_c| below 1e-37
    where their ellipses bound it by 1e-21 to 1e-34, at a tenth of the cost."""
    with working_precision(64):
        pts = [a + (b - a) * j / SUP_BALLS for j in range(SUP_BALLS)] + [b]
        best = arb(0)
        for lo, hi in zip(pts[:-1], pts[1:], strict=True):
            v = dens.loss_density_real(lo.union(hi))
            if not v.is_finite():
                return arb("inf")
            best = arb(best.union(abs(v)).upper())
        return best


def _build_guard(n: int) -> int:
    """The extra bits of a piece of degree n while it is built: 3 a degree (the power basis
    magnifies its values' radii about 2.6 bits a degree, :data:`BUILD_GUARD`) and 32 more, at
    most BUILD_GUARD (DP-SGD, sigma = 4: degrees 16 to 40, 80 to 152 bits where 256 were
    spent; the model about 10 % faster, its nodes' balls still 2^-110 of the model's error)."""
    return min(BUILD_GUARD, 32 + 3 * n)


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

    def log_decay_estimates(self, c: float, ts) -> list[float]:
        return self.law.log_decay_estimates(c, ts)

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
