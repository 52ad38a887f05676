"""The replace-one loss law with M(c + it) at a cost flat in t: the tilted loss density replaced
by Chebyshev interpolants on pieces graded toward its complex singularities, whose transforms
are closed forms (the pieces of ``families/gaussian_sampled_poly.py``, whose machinery in
``numeric/cf_sampled_poly.py`` this module shares), for the certified Laplace inversion of a
few (2 to a few hundred) replace-one DP-SGD steps. The law's own evaluation
(:class:`~.poisson_replace_law.ReplaceLaw`, a trapezoidal sum in x) needs a grid step
~ 1/(mu |t|): ten steps at sigma = 0.8, q = 1/100 need |t| up to ~300 (the loss's central part,
of width ~ 2 q e^{-mu^2/2} mu, decays only from t ~ 1/(q mu)) at ~3 ms a node; here one node
costs a few dozen polynomials of degree ~40.

Notation of :mod:`.poisson_replace_law`: w = q e^{-mu^2/2}/(1 - q), u = e^{mu x},
a(x) = (1 - q)(1 + w u), a(-x) = (1 - q)(1 + w/u), the loss y = L(x) = log a(x) - log a(-x),
e^y = u (1 + w u)/(u + w), increasing in x with L'(x) = mu w (u^2 + 2 w u + 1)/((1 + w u)(u + w)).
Inverting, u is the positive root of w u^2 + (1 - e^y) u - w e^y = 0:

    u(y) = ((E - 1) + sqrt D)/(2 w) = 2 w E/(sqrt D - (E - 1)),  E = e^y, D = (E - 1)^2 + 4 w^2 E,

(the second form without cancellation for Re y < 0). At the tilt c the loss density is

    rho_c(y) = g_c(x)/L'(x) = phi(x) (1 - q) (1 + w u)^2 (u + w) e^{c y}
               / (mu w (u^2 + 2 w u + 1)),   x = log(u)/mu,

and M(c + it) = int rho_c(y) e^{ity} dy. rho_c is analytic in y except where D = 0 (the
branch points of the inverse, where L' = 0: u^2 + 2 w u + 1 = 0, |u| = 1), i.e.
e^y = 1 - 2 w^2 +- 2 i w sqrt(1 - w^2) for w < 1: y = +-i phi + 2 pi i k, phi = arccos(1 - 2 w^2)
(~ 2 w), all on the imaginary axis; and (for the principal branches Arb evaluates) where D or u
crosses the negative reals, which the boxes below detect (``analytic=True`` returns a
non-finite ball). For w >= 1 the branch points lie at y = pi i (2k + 1) +- real, farther.

Three certified parts, as in :mod:`.gaussian_sampled_poly`:

* **Range.** The x-range [x_first, x_end] of the law's tilt at c (its bound ``tails`` of the
  integral of g_c outside, proved in :class:`~.poisson_replace_law.ReplaceLaw`) maps to the
  y-range [y_a, y_b]; the part of M outside it is at most ``tails`` (g_c dx = rho_c dy).
* **Pieces.** [y_a, y_b] is cut into pieces graded away from y = 0: [-phi, phi] in
  :data:`CENTRAL` pieces, then lengths twice the distance to 0, at most :data:`MAX_PIECE`.
  Each piece's interpolant at Chebyshev points has sup |rho_c - P| <= 4 M rho^{-n}/(rho - 1)
  (Trefethen, *Approximation Theory and Approximation Practice*, Thm. 8.2), M >= |rho_c| on
  the Bernstein ellipse E_rho proved by Arb on boxes covering it
  (``numeric/cf_sampled_poly.ChebPiece``); rho is taken from 0.7 of the way to the ellipse
  through the nearest branch point +-i phi, capped so that the ellipse's half-height stays
  below :data:`MAX_HEIGHT`, and shrunk until the boxes prove analyticity.
* **Transform.** int_a^b e^{zu} P(u) du = e^{zb} Q_b(1/z) - e^{za} Q_a(1/z) (integration by
  parts, finite), or the power series of e^{it len tau} for |t| len small.

So M(c + it) lies in the pieces' transforms + (sum_p eta_p |p| + tails) (1 + i)[-1, 1].
"""

from __future__ import annotations

import cmath
import math

from flint import acb, arb, ctx

from ..numeric import budget
from ..numeric.cf_laws import lower, pm, upper, working_precision

# (the pieces' transforms and their sup bound are the subsampled Gaussian view's too: one
# implementation of the closed forms of the module docstring's "Transform")
from ..numeric.cf_piece_transform import (
    BUILD_GUARD,
    PieceTransform,
    ellipse_sup,
    pieces_transform,
    pieces_transform_grid,
)
from ..numeric.cf_sampled_poly import ChebPiece

__all__ = ["ReplacePolyLaw", "T_SWITCH", "MAX_PIECE"]

#: Below this |t| the law's own trapezoidal sum answers (its cost grows with mu |t|).
T_SWITCH = 24.0
#: The longest piece (in y).
MAX_PIECE = 1.0
#: A graded piece's length over its distance to y = 0.
GRADING = 2.0
#: The pieces [-phi, phi] is cut into.
CENTRAL = 4
#: The largest half-height of a piece's Bernstein ellipse (in y): the Gaussian factor grows like
#: e^{(Im y / mu)^2 / 2} off the real line, and the principal branches end at |Im y| ~ pi.
MAX_HEIGHT = 1.0
#: The rows of boxes covering a piece's ellipse near y = 0 (one elsewhere; was 8: where 4
#: meet D's cut the ellipse shrinks, a few more degrees).
ROWS = 4
#: The bits above its caller's precision a model is rebuilt for when a caller asks for more.
HEADROOM = 48
#: The bits above its caller's precision the first model at an abscissa is built for: the eps
#: search seeded by the float PLD (:mod:`.poisson_replace_seed`) inverts one grid at the width
#: asked (64 to 67 bits at the default tolerance), delta's search a grid and at most a second
#: one ~27 bits finer (sigma = 2, k = 10, delta(1): 104 then 131 bits), which 32 covers (was 72,
#: for the unseeded search rising from 64 to ~135 bits: a model 1.4 to 1.7 times dearer).
FIRST_HEADROOM = 32
#: The law's own sum answers a |t| where the model's ball is too wide (cancellation in the
#: transform by parts, :meth:`ReplacePolyLaw.model_mgf`) and the sum's x-grid has at most these
#: nodes (~3 us each).
OWN_NODES = 4096
#: Seconds of one model's build at the default tolerance (sigma = 1, 2, q = 1/100: 0.11 to
#: 0.2 s on a loaded machine) and of one x-node of the law's own sum (~3 us), for the choice
#: of :meth:`ReplacePolyLaw._own_cheaper`.
MODEL_BUILD_SECONDS = 0.15
OWN_NODE_SECONDS = 3e-6
#: The least caller's precision a model is built for (as the subsampled Gaussian view's:
#: the seeded eps search inverts its one grid at 64 to 67 bits).
MODEL_FLOOR = 64
#: The halvings of a piece whose interpolant misses its target at the largest degree.
MAX_SPLITS = 6
#: Models kept per law (one per contour abscissa and precision).
_CACHE = 8
#: Grids of :meth:`ReplacePolyLaw.mgf_grid` kept per law.
_GRIDS = 4


class _Density:
    """rho_c(y) of the module docstring (the interface :class:`ChebPiece` reads); 32 strips of
    boxes bound M on each Bernstein ellipse (was 64: about 2/3 of a model's density evaluations,
    sigma = 1, q = 1/100, 10 steps' model 0.2 -> 0.11 s with :data:`ROWS` 4, its degrees a few
    more where the looser M asks them)."""
    ellipse_boxes = 32

    def __init__(self, law, c: arb) -> None:
        self.mu, self.q = arb(law._mu.numerator) / law._mu.denominator, \
            arb(law._q.numerator) / law._q.denominator
        self.w = self.q * (-self.mu * self.mu / 2).exp() / (1 - self.q)
        self.c = c
        self.log_const = ((1 - self.q).log() - (self.mu * self.w).log()
                          - (2 * arb.pi()).sqrt().log())
        wf = float(self.w.mid())
        self.phi = math.acos(1 - 2 * wf * wf) if wf < 1 else math.pi

    def density_singularity(self) -> arb:  # (not read: :class:`_ReplacePiece` chooses rho)
        return arb(0)

    def u_of(self, y: acb, analytic: bool) -> acb:
        w = acb(self.w)
        e = y.exp()
        em1 = y.expm1()
        s = (em1 * em1 + 4 * w * w * e).sqrt(analytic=analytic)  # (nan on the cut)
        if not s.is_finite():
            return acb("nan")
        if y.real.mid() >= 0:
            return (em1 + s) / (2 * w)
        return 2 * w * e / (s - em1)

    def loss_density(self, y: acb, analytic: bool) -> acb:
        u = self.u_of(y, analytic)
        if not u.is_finite():
            return acb("nan")
        w = acb(self.w)
        x = u.log(analytic=analytic) / acb(self.mu)  # (nan on the cut)
        rat = (1 + w * u) ** 2 * (u + w) / (u * u + 2 * w * u + 1)
        return (-x * x / 2 + acb(self.c) * y + acb(self.log_const)).exp() * rat


class _ReplacePiece(ChebPiece):
    """A :class:`ChebPiece` whose ellipse is chosen from the complex branch points +-i phi."""

    def _ellipse(self) -> tuple[float, arb]:
        h = self.length / 2
        mid = self.a + h
        hf, mf = float(h.mid()), float(mid.mid())
        phi = self._law.phi
        rho_star = math.inf
        for s in (phi, -phi):
            z = complex(-mf, s) / hf
            r = z + cmath.sqrt(z - 1) * cmath.sqrt(z + 1)
            rho_star = min(rho_star, max(abs(r), 1 / abs(r)))
        # (half-height h (rho - 1/rho)/2 <= MAX_HEIGHT)
        b = MAX_HEIGHT / hf
        rho_cap = b + math.sqrt(b * b + 1)
        frac = 0.7
        for _ in range(12):
            rho = min(1 + frac * (rho_star - 1), rho_cap)
            big_m = self._ellipse_bound(rho, mid, h)
            if big_m is not None:
                return rho, big_m
            frac *= 0.7
            rho_cap = 1 + 0.7 * (rho_cap - 1)
        raise ArithmeticError("no Bernstein ellipse found on which the density is analytic")

    def _ellipse_boxes(self, rho: float, mid: arb, h: arb, rows: int = 1) -> arb | None:
        """ChebPiece's cover of the ellipse, each strip cut into :data:`ROWS` boxes for a piece
        within a few phi of 0 (there the discriminant D is small on the ellipse, and one tall
        box's ball of D reaches its branch cut though D does not)."""
        near = float(abs(mid).upper()) <= 4 * self._law.phi + float(h.upper())
        return super()._ellipse_boxes(rho, mid, h, max(rows, ROWS if near else 1))


def _breaks(ya: float, yb: float, phi: float) -> list[float]:
    """ya = p_0 < ... < p_m = yb: a piece [-phi, phi] about 0 (clipped to the range), then
    outward pieces of length min(GRADING |p|, MAX_PIECE)."""
    def outward(start: float, end: float) -> list[float]:
        out = [start]
        sign = 1.0 if end > start else -1.0
        while abs(end - out[-1]) > 1e-15:
            step = min(GRADING * max(abs(out[-1]), phi), MAX_PIECE)
            nxt = out[-1] + sign * step
            if (nxt - end) * sign >= -0.25 * step:
                nxt = end
            out.append(nxt)
        return out

    lo, hi = max(ya, -phi), min(yb, phi)
    if lo >= hi:  # (0 outside the range: grade from the near end)
        if ya > 0:
            return outward(ya, yb)
        return list(reversed(outward(yb, ya)))
    left = list(reversed(outward(lo, ya))) if lo > ya else [ya]
    right = outward(hi, yb) if hi < yb else [yb]
    # ([-phi, phi] in CENTRAL pieces: each then sees the branch points +-i phi at several of
    # its half-lengths, a wide ellipse, where one piece would see them at one)
    mid = [lo + (hi - lo) * j / CENTRAL for j in range(1, CENTRAL)]
    return left + mid + right


class _Model:
    """The pieces of rho_c at one c and one precision: ``transform(t)`` (the pieces only) and
    ``err`` (everything left out), as :mod:`.gaussian_sampled_poly`'s model."""

    def __init__(self, law, c: arb, prec: int) -> None:
        tilt = law._tilt(c)
        self.tails = tilt.tails
        self.m_upper = tilt.m_upper
        x_end = tilt.x_first + tilt.n0 * tilt.h0
        with working_precision(prec + BUILD_GUARD):
            dens = _Density(law, c)
            mu, w = dens.mu, dens.w

            def loss(x: arb) -> arb:
                return (w * (mu * x).exp()).log1p() - (w * (-mu * x).exp()).log1p()

            ya, yb = loss(tilt.x_first), loss(x_end)
            target = tilt.tol * self.m_upper / (16 * (yb - ya))
            ends = [arb(e) for e in _breaks(lower(ya), upper(yb), dens.phi)]
            self.pieces = []
            err = arb(0)
            spare = target * (yb - ya) / 4
            todo = [(a, b, 0) for a, b in zip(ends[:-1], ends[1:], strict=True)]
            todo.reverse()
            while todo:
                a, b, depth = todo.pop()
                pc = _ReplacePiece(dens, 0, 1, 1, a, b - a, target)
                pc.a = a
                drop = ellipse_sup(pc) * pc.length
                if drop < spare:
                    spare -= drop
                    err += drop
                    continue
                if not pc.eta < target and depth < MAX_SPLITS:
                    # (the degree cap came first: halves, whose ellipses reach less far off the
                    # real line, where the Gaussian factor e^{(Im x)^2/2} of the density grows:
                    # mu = 1/8, q = 1/1000 at the abscissa c ~ 700 of 10^4 steps)
                    m = arb(float(((a + b) / 2).mid()))
                    todo.extend([(m, b, depth + 1), (a, m, depth + 1)])
                    continue
                piece = PieceTransform(pc.build(), b)
                self.pieces.append(piece)
                err += piece.err
            self.err = arb(upper(err + self.tails))
            self.joined = [None] + [
                (left.qb - right.qa) if right.a is left.b else None
                for left, right in zip(self.pieces[:-1], self.pieces[1:], strict=True)]
        self.prec = prec

    def transform(self, t: arb, prec: int) -> acb:
        """The sum of the pieces' transforms at t at ``prec`` bits (as
        :mod:`.gaussian_sampled_poly`)."""
        with working_precision(prec):
            return pieces_transform(self.pieces, self.joined, t)

    def transform_grid(self, h: arb, n: int) -> list[acb]:
        """:meth:`transform` at t_k = k h, k = 1 .. n, at once, at the model's precision: the
        multipoint sums of ``numeric/cf_piece_transform.pieces_transform_grid`` (the subsampled
        Gaussian view's too), each ball the sum of the same transforms as :meth:`transform`'s."""
        return pieces_transform_grid(self, h, n)


class ReplacePolyLaw:
    """The view of a :class:`~.poisson_replace_law.ReplaceLaw` whose M(c + it) costs the same at
    every |t| >= :data:`T_SWITCH` (module docstring); every bound of the inversion (decay,
    power decay, cumulants) is the law's own."""

    mgf_cost_flat = True
    mgf_cost_per_t = 0.0
    closed_under_tensor = False
    scan_contour = True
    #: seconds to build the models of a search, per node, per abscissa's model; the nodes
    #: allowed at tight and loose widths (read by ``numeric.cf_flat``, ``numeric.cf_route``);
    #: a search builds one model (FIRST_HEADROOM), 0.2-0.25 s at the default tolerance (was 0.6
    #: for three: sigma = 2, q = 1/100, k = 30, delta(1) now takes the view, 1.3 -> 0.6 s)
    build_seconds = 0.25
    node_seconds = 3e-4
    model_seconds = 0.1
    work_caps = (30_000.0, 6_000.0)

    def __init__(self, law) -> None:
        self.law = law
        self._models: dict[tuple, _Model] = {}
        self._grids: dict[tuple, list[acb]] = {}
        self._guard = 256

    def __repr__(self) -> str:
        return f"ReplacePolyLaw({self.law!r})"

    def cumulants(self, c: float):
        return self.law.cumulants(c)

    def log_mgf_many(self, cs):
        return self.law.log_mgf_many(cs)

    def float_epsilon(self, n: int, delta: float):
        return self.law.float_epsilon(n, delta)

    def log_decay_estimate(self, c: float, t: float) -> float:
        return self.law.log_decay_estimate(c, t)

    def decay_bound(self, c: arb, t: arb) -> arb:
        return self.law.decay_bound(c, t)

    def power_decay(self, c: arb):
        return self.law.power_decay(c)

    def loss_sup(self):
        return None

    def inverse(self):
        return self

    def _model(self, c: arb, prec: int, caller: int) -> _Model:
        """The model at abscissa c evaluated at ``prec`` bits for a caller's precision of at
        least ``caller``, kept by the abscissa and reused by any caller it is fine enough for
        whose ball c lies in the model's (a search's later calls carry the same abscissa at a
        higher precision: a narrower ball inside it); a search raises its precision in steps
        of ~20 bits, so a model is rebuilt for :data:`HEADROOM` bits more than asked (the
        first at least :data:`MODEL_FLOOR`)."""
        key = round(float(c.mid()), 12)
        m = self._models.get(key)
        if m is not None and not m.c.contains(c):  # (its balls hold M at every c' in m.c)
            m = None
        if m is None or m.caller < caller or m.prec < prec:
            if m is None and len(self._models) >= _CACHE:
                self._models.pop(next(iter(self._models)))
            fine = max(caller + (HEADROOM if m is not None else FIRST_HEADROOM), MODEL_FLOOR)
            with working_precision(fine):
                m = _Model(self.law, c, max(prec, 64 * ((fine + self._guard + 63) // 64)))
            m.caller, m.c = fine, c
            self._models[key] = m
        return m

    def mgf(self, z: acb) -> acb:
        """M(z): the model's transform plus its error, or the law's own sum where |t| is
        small or the model's error bound is not within the law's tolerance at the caller's
        precision (either is a certified ball of M(z))."""
        if not z.real > 0:
            raise ValueError("need Re z > 0")
        got = self.model_mgf(z) if abs(z.imag) > T_SWITCH else None
        return got if got is not None else self.law.own_mgf(z)

    def mgf_grid(self, c: arb, h: arb, n: int) -> list[acb]:
        """M(c + i k h) for k = 0 .. n (the inversion's nodes, ``numeric.cf._Inverter``): the
        law's own sum for |k h| <= :data:`T_SWITCH`, the model's multipoint sums
        (:meth:`_Model.transform_grid`) beyond, each accepted as :meth:`model_mgf` accepts its
        ball (error bound and radius within the law's tolerance at the caller's precision);
        a node not accepted takes :meth:`mgf` alone. Every entry is a certified ball of M at
        the exact node. The last grids are kept by their exact (c, h, n, precision): a search
        inverts the same plan again where a re-plan at its cap of work repeats it, and delta at
        an eps no float holds is inverted at the two floats around it with one plan
        (``PoissonReplace(3, 1/100)**3``, delta(1/20): four grids of 10 630 nodes, 16 s, were
        one)."""
        if not c > 0:
            raise ValueError("need Re z > 0")
        key = (c.mid().man_exp(), c.rad().man_exp(), h.mid().man_exp(), h.rad().man_exp(), n,
               ctx.prec)
        got = self._grids.get(key)
        if got is None:
            got = self._mgf_grid(c, h, n)
            if len(self._grids) >= _GRIDS:
                self._grids.pop(next(iter(self._grids)))
            self._grids[key] = got
        return list(got)

    def _mgf_grid(self, c: arb, h: arb, n: int) -> list[acb]:
        """:meth:`mgf_grid` computed."""
        saved = ctx.prec
        out: list[acb | None] = [None] * (n + 1)
        first = next((k for k in range(n + 1) if h * k > T_SWITCH), n + 1)
        if first <= n and self._own_cheaper(c, h, first, n):
            return self.law.mgf_grid(c, h, n)
        if first <= n:
            prec = 64 * ((saved + self._guard + 63) // 64)
            model = self._model(c, prec, saved)
            if model.err <= model.m_upper * arb(2) ** (28 - saved):
                with working_precision(model.prec):
                    vals = model.transform_grid(h, n)
                lim = model.m_upper * arb(2) ** (24 - saved)
                with working_precision(saved):
                    r = pm(model.err)
                    for k in range(first, n + 1):
                        v = vals[k - 1]
                        if v.real.rad() <= lim and v.imag.rad() <= lim:
                            out[k] = acb(v.real + r, v.imag + r)
        for k in range(n + 1):
            if out[k] is None:
                budget.check()
                out[k] = self.mgf(acb(c, h * k))
        return out

    def _own_cheaper(self, c: arb, h: arb, first: int, n: int) -> bool:
        """Do the law's own sums at the nodes k h, k = ``first`` .. n, cost less than the model
        at abscissa c (its build, :data:`MODEL_BUILD_SECONDS`, where none is kept, and
        ``node_seconds`` a node)? The sums cost :data:`OWN_NODE_SECONDS` per x-node
        (``_Tilt.level_size``): a hundred steps' grid of 31 nodes to |t| = 37 sums ~30 000
        x-nodes (0.05 s) where the model costs 0.15 s. An estimate of time only: either way
        each ball is certified."""
        key = round(float(c.mid()), 12)
        m = self._models.get(key)
        build = 0.0 if m is not None and m.c.contains(c) else MODEL_BUILD_SECONDS
        budget_own = build + (n - first + 1) * self.node_seconds
        tilt = self.law._tilt(c)
        own = 0.0
        for k in range(first, n + 1):
            try:
                own += tilt.level_size(upper(h * k)) * OWN_NODE_SECONDS
            except ValueError:  # (beyond the finest level: the model)
                return False
            if own > budget_own:
                return False
        return True

    def model_mgf(self, z: acb) -> acb | None:
        """The model's ball of M(z) (Re z > 0), or None where its error bound is not within
        the law's tolerance at the caller's precision."""
        t = z.imag
        saved = ctx.prec
        c = z.real
        while True:
            prec = 64 * ((saved + self._guard + 63) // 64)
            model = self._model(c, prec, saved)
            if not model.err <= model.m_upper * arb(2) ** (28 - saved):
                return None
            val = model.transform(t, model.prec)
            scale = model.m_upper
            if (val.real.rad() <= scale * arb(2) ** (24 - saved)
                    and val.imag.rad() <= scale * arb(2) ** (24 - saved)) or self._guard >= 4096:
                break
            # (the transform by parts cancels most where |t| is a few times T_SWITCH, up to
            # ~230 bits at t = 25 for mu = 1, where the law's own sum is a few hundred nodes:
            # that sum answers rather than a model rebuilt with more guard bits, ~0.2 s each)
            if self.law._tilt(c).level_size(upper(abs(t))) <= OWN_NODES:
                return None
            self._guard *= 2
        with working_precision(saved):
            r = pm(model.err)
            return acb(val.real + r, val.imag + r)
