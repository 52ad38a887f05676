"""The cells of the privacy loss of the Poisson-subsampled Gaussian pair on a grid, for the curve
bands of ``numeric.cells_curve``: Mix(G_mu, q) = T(N(0, 1), (1 - q) N(0, 1) + q N(mu, 1)) (the
"remove" direction, Dong, Roth & Su, Sec. 4.1) and its inverse ("add"), given by mu and q.

The remove direction's loss l(x) = log(1 - q + q e^{mu x - mu^2/2}) is increasing in x, from
log(1 - q) (x -> -oo) to +oo, so the outcomes whose loss lies in [g_j, g_{j+1}] (g_j = j/D) are
the x-slice [x(g_j), x(g_{j+1})], x(g) = (log((e^g - 1 + q)/q) + mu^2/2)/mu, with null mass
P = Phi(x_b) - Phi(x_a) and alternative mass (1 - q) P + q (Phi(x_b - mu) - Phi(x_a - mu)) (Arb
balls: the normal tails by erfc). The slice below the first grid point above log(1 - q) is one
cell (its loss lies in (log(1 - q), g_{j_0 + 1}]).

The loss is unbounded above: past x_J = x(g_J) (g_J the grid point above the loss at the cut
x = mu + z, z = :data:`Z_TAIL` unless :meth:`NormalMixtureCells.for_levels` cuts it from T and
the levels), the tail (null mass a_t, alternative mass b_t, every ratio at least
e^{g_J}) is split into the outcome (a_t, a_t e^{g_J}) at the grid point g_J and the outcome
(0, b_t - a_t e^{g_J}) at
+oo: merging them back is a post-processing, so this pair is dominated as the cells' split pair
is (``numeric.lattice_cells``). The point goes to the lattice (loss exactly g_J: its split puts
it all at g_J); the mass m = b_t - a_t e^{g_J} at +oo is returned beside the cells
(``cells_slack``): in the T-fold product the outcomes with a step at +oo carry alternative mass
1 - (1 - m)^T <= T m, which ``numeric.cells_curve`` adds to every support line. For the tests
the cell (a_t, a_t e^{g_J}) understates the alternative mass only (their power is a lower bound
anyway).

**Wide cells in the tail.** Past the bulk a cell may span w = 2^s grid steps, [g_j, g_{j+w}]
(w dividing j), split between its two ends as a unit cell is between its ends (the same
post-processing argument, ``numeric.lattice_cells.CellPower``): sound for any w, and it adds
about its mass times (w h)^2 to the band's width where the bulk's unit cells add about h^2
altogether. So w is the largest with 4^s times the alternative mass past g_j at most
:data:`RHO` (planned in floats; a grid's cells depend on the grid and the tail alone, not on the
tolerance). The lattice is the same; the normal tails and the fixed-point masses are computed
at the cells' ends only, and each end once across the grids (a grid's ends are ends of the
next grid's, :attr:`NormalMixtureCells._tails`): at D = 256 cells a unit, Mix(G(2), 1/10) cut
at 6.75 sds needs 1 380 cells where it had 3 408 and C_{1/10}(G(1)) 873 where it had 2 543, the
bands of T = 10 at 1/100 as wide to 3 digits (rho = 1/256 widened the hull's by 4%).

**The cut from the width the lattice reaches.** m <= b_t <= q (1 - Phi(z)) + (1 - q)
(1 - Phi(mu + z)) (the alternative law's mass past x = mu + z), so the T-fold product's mass at
+oo, at most T m, is below a width w once that tail is below w / T:
:meth:`NormalMixtureCells.for_levels` takes the least z on a ladder with T times the tail at most
:data:`TAIL_SHARE` of :data:`CUT_TOL` (about the finest width the largest lattice reaches for
these pairs at T = 10) times the least power (or value) the width is measured against (z ~ 6.6
at T = 10, q = 1/10, alpha >= 1/100, where a fixed 9.5 spent a third of the lattice on outcomes
of mass below 1e-21). The cut only moves mass between the lattice and the slack, so every cut is
sound. It does not depend on the tolerance asked: a grid reached by two tolerances has the
same cells (cuts moving with the tolerance widened the band a tight tolerance reaches at the
largest lattice: C(1/10, G(1))^10 at 1e-9 against 1e-6).

**Precision of the tails.** The ends' x(g) and normal tails are Arb balls at
:data:`TAIL_PREC` = 96 bits, the cells at :data:`PREC`: the fixed point keeps each mass to
2^-52 of itself (``numeric.cells_prefix.fixed``) and the split's cancellation costs about
log2 D bits more, so the powers start from the same integers as with tails at 128 bits
(``tests/test_cells_normal.py``), where erfc takes about 2.1 us instead of 2.9 (with the
constants of x(g) and of erfc's argument formed once a grid, the cells of Mix(G(2), 1/10) at
D = 34 271 below loss 3 take 0.79 s instead of 1.15).
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from .cf_laws import to_arb, to_fraction, upper, working_precision

__all__ = ["NormalMixtureCells"]

#: The tail is cut at x = mu + Z_TAIL (remove direction) unless planned: its null and
#: alternative masses are below the normal tail at Z_TAIL, about 1e-21 (added to the bands, not
#: lost). :meth:`NormalMixtureCells.for_levels` cuts it from T and the levels instead.
Z_TAIL = 9.5
#: The least cut (x = mu + Z_MIN) and the step of the cuts' ladder (planning only).
Z_MIN, Z_STEP = 3.0, 0.125
#: The mass at +oo of the T-fold product (at most T m) is at most this fraction of the asked
#: width CUT_TOL times the smallest scale of the band (:meth:`NormalMixtureCells.for_levels`).
TAIL_SHARE = 1 / 64
#: The width the cut is planned for, whatever the tolerance (module docstring): the largest
#: lattice (``cells_curve.MAX_POINTS``) leaves these pairs a few 1e-7 wide at T = 10
#: (Mix(G(2), 1/10)^10 4e-7, C(1/10, G(1))^10 8e-7), so a further cut would only spread the
#: lattice over more loss and widen the band a tight tolerance reaches.
CUT_TOL = 1e-7
#: Cells a unit of loss of the first grid (``numeric.cells_curve.cells_band``).
CELLS_START = 64
#: A cell of w = 2^s grid steps where 4^s times the alternative mass past its lower end is at
#: most RHO, s at most log2 W_MAX (:meth:`NormalMixtureCells._points`).
RHO = 1 / 1024
W_MAX = 1024
PREC = 128
#: Precision (bits) of the normal tails at the cells' ends (:meth:`NormalMixtureCells.loss_cells`).
TAIL_PREC = 96


class NormalMixtureCells:
    """The pair T(N(0, 1), (1 - q) N(0, 1) + q N(mu, 1)) (``remove``) or its inverse, mu > 0 and
    0 < q < 1 exact (rationals or SymPy numbers), as ``numeric.cells_curve`` reads a law:
    ``loss_cells(D)``, ``loss_span()``, ``cells_start()``, ``cells_slack(D)`` and
    ``loss_range()`` (module docstring)."""

    def __init__(self, mu, q, remove: bool, hull: bool = False, z_tail: float = Z_TAIL,
                 rho: float = RHO) -> None:
        self._mu, self._q = to_fraction(mu), to_fraction(q)
        if not (self._mu > 0 and 0 < self._q < 1):
            raise ValueError(f"NormalMixtureCells: need mu > 0 and 0 < q < 1, got mu = {mu}, "
                             f"q = {q}")
        self.mu_f, self.q_f = float(self._mu), float(self._q)
        self.remove = bool(remove)
        #: C_q(G_mu), the symmetric hull (module docstring), in place of either direction
        self.hull = bool(hull)
        self._slack: dict = {}
        #: (1 - Phi(x), 1 - Phi(x - mu)) at the cells' ends x(g), by g = j/D in lowest terms
        #: (the pair (j, D)): a grid's
        #: points are every other point of the next grid's
        self._tails: dict = {}
        #: the tail is cut at x = mu + z_tail (remove direction; module docstring)
        self.z_tail = float(z_tail)
        if not (math.isfinite(self.z_tail) and self.z_tail > 0):
            raise ValueError(f"NormalMixtureCells: need z_tail > 0, got z_tail = {z_tail}")
        #: the wide tail cells' rule (:meth:`_points`; 0: every cell one grid step)
        self.rho = float(rho)
        if not (math.isfinite(self.rho) and self.rho >= 0):
            raise ValueError(f"NormalMixtureCells: need rho >= 0, got rho = {rho}")
        x = self.mu_f + self.z_tail
        self.top = math.log1p(self.q_f * math.expm1(self.mu_f * x - self.mu_f ** 2 / 2))
        self.bottom = -self.top if self.hull else math.log1p(-self.q_f)

    def tail_bound(self, z: float) -> float:
        """An estimate (floats, planning only) of the tail's alternative mass past x = mu + z,
        q (1 - Phi(z)) + (1 - q) (1 - Phi(mu + z)): it bounds the mass at +oo, b_t - a_t e^{g_J}
        <= b_t, which :meth:`loss_cells` computes in Arb whatever the cut."""
        r2 = math.sqrt(2.0)
        return (self.q_f * math.erfc(z / r2) + (1 - self.q_f) * math.erfc((z + self.mu_f) / r2)) / 2

    def for_levels(self, T: int, scale: float) -> NormalMixtureCells:
        """The same pair with its tail cut where the T-fold product's mass at +oo (at most T m,
        m <= :meth:`tail_bound`) is at most :data:`TAIL_SHARE` :data:`CUT_TOL` ``scale``
        (``scale``: the least power or value the band is measured against,
        ``numeric.cells_curve``): the least z on the ladder Z_MIN + i Z_STEP. The cut moves
        nothing but the slack and the lattice's span: every cut gives a sound band (the mass at
        +oo is computed in Arb, :meth:`cells_slack`)."""
        if not (scale > 0 and T >= 1):
            raise ValueError(f"for_levels: need T >= 1 and scale > 0, got T = {T}, "
                             f"scale = {scale}")
        budget = TAIL_SHARE * CUT_TOL * scale / T
        z = Z_MIN
        while self.tail_bound(z) > budget and z < 40.0:
            z += Z_STEP
        return NormalMixtureCells(self._mu, self._q, self.remove, self.hull, z, self.rho)

    def loss_span(self) -> float:
        """The width of the loss's range up to the cut tail (planning)."""
        return self.top - self.bottom

    def cells_start(self) -> int:
        return CELLS_START

    def loss_range(self) -> tuple:
        """(inf, sup) of one step's loss as balls, None where infinite: log(1 - q) below
        (remove), -log(1 - q) above (add)."""
        if self.hull:
            return None, None
        with working_precision(PREC):
            b = (1 - to_arb(self._q)).log()
        return (b, None) if self.remove else (None, -b)

    def cells_slack(self, D: int) -> tuple[float, float]:
        """(alternative mass at +oo, null mass left out of the tests) of one step on the grid
        1/D (module docstring)."""
        if D not in self._slack:
            self.loss_cells(D)
        return self._slack[D]

    def cells_totals(self) -> tuple[Fraction, Fraction] | None:
        """(A_fin, B_all) of one step for ``numeric.cells_prefix``: the null mass where the loss
        is finite and the whole alternative mass, (1, 1) for the remove direction (two normal
        laws: every loss finite); None for the add direction and the hull, whose heavy tail is
        below (their lattices are read from the top, as before)."""
        return (Fraction(1), Fraction(1)) if self.remove and not self.hull else None

    def loss_cells(self, D: int, below: int | None = None) -> list[tuple[arb, arb, int]]:
        """[(a, b, j, w), ...]: the null and alternative masses of the outcomes whose loss lies
        in [j/D, (j + w)/D] (module docstring); with ``below`` (remove direction only) the
        cells of lower end j < ``below`` alone, the same cells as without it (the tail past
        them, its split point and its mass at +oo left out: ``numeric.cells_prefix``)."""
        D = int(D)
        if below is not None and (not self.remove or self.hull):
            raise ValueError("loss_cells: below is for the remove direction only")
        with working_precision(PREC):
            mu, q = to_arb(self._mu), to_arb(self._q)
            j0 = self._bottom(D, q)
            J = math.ceil(self.top * D) + 1

            pts = self._points(j0 + 1, J, D, below)
            sp, sq = [arb(1)], [arb(1)]
            with working_precision(TAIL_PREC):  # (module docstring: the tails' precision)
                # x(g) = (log(e^g - (1 - q)) - log q + mu^2/2) / mu and 1 - Phi(y) =
                # erfc(y / sqrt 2) / 2, their constants once
                omq, k, inv_mu = 1 - q, mu * mu / 2 - q.log(), 1 / mu
                r2 = 1 / arb(2).sqrt()
                cache = self._tails
                for j in pts:
                    g = math.gcd(j, D)  # (the point j/D in lowest terms)
                    key = (j // g, D // g)
                    t = cache.get(key)
                    if t is None:
                        x = (((arb(j) / D).exp() - omq).log() + k) * inv_mu
                        t = cache[key] = ((x * r2).erfc() / 2, ((x - mu) * r2).erfc() / 2)
                    sp.append(t[0])
                    sq.append(t[1])
            cells = []
            for i in range(len(pts)):
                a = sp[i] - sp[i + 1]
                b = (1 - q) * a + q * (sq[i] - sq[i + 1])
                lo_j = j0 if i == 0 else pts[i - 1]
                cells.append((a, b, lo_j, pts[i] - lo_j))
            if below is not None and below <= J - 1:
                return cells  # (the cells below ``below``: no tail, no slack)
            a_t = sp[-1]
            b_t = (1 - q) * a_t + q * sq[-1]
            e_top = (arb(J) / D).exp()
            cells.append((a_t, a_t * e_top, J - 1, 1))  # (loss exactly g_J: all of it at g_J)
            m = upper(b_t - a_t * e_top)
            m = max(m, 0.0)
            if self.hull:
                return self._hull_cells(cells, a_t, b_t, m, D)
        if self.remove:
            self._slack[D] = (m, 0.0)
            return cells
        self._slack[D] = (0.0, m)
        return [(b, a, -j - w, w) for a, b, j, w in cells]

    def _bottom(self, D: int, q: arb) -> int:
        """The index j0 of the lowest cell on the grid 1/D: j0/D < log(1 - q) (proved)."""
        j0 = math.floor(math.log1p(-self.q_f) * D)
        if not arb(j0) / D < (1 - q).log():
            j0 -= 1
        return j0

    def cells_bottom(self, D: int) -> int:
        """The lower end j0 of the lowest cell of :meth:`loss_cells` (remove direction: loss
        j0/D below log(1 - q))."""
        if not self.remove or self.hull:
            raise ValueError("cells_bottom: for the remove direction only")
        with working_precision(PREC):
            return self._bottom(int(D), to_arb(self._q))

    def _points(self, first: int, J: int, D: int, stop: int | None = None) -> list[int]:
        """The cells' upper ends on the grid 1/D, from ``first`` to ``J``: every grid point
        where the alternative mass past it is large, then every w-th, w = 2^s aligned (w
        divides the point), the largest with 4^s times that mass (:meth:`tail_bound`, floats:
        planning only) at most ``rho`` (:data:`RHO`; module docstring); with ``stop``, up to
        the first end at or past it (the cells of lower end below ``stop``)."""
        out, j = [first], first
        end = J if stop is None else min(J, stop)
        while j < end:
            w = 1
            g = j / D
            if g > 0 and j % 2 == 0 and j + 2 <= J:  # (w = 2 needs both: the same points)
                mu = self.mu_f
                x = (math.log((math.expm1(g) + self.q_f) / self.q_f) + mu * mu / 2) / mu
                tail = max(self.tail_bound(x - self.mu_f), 1e-300)
                while (w < W_MAX and j % (2 * w) == 0 and j + 2 * w <= J
                       and 4 * w * w * tail <= self.rho):
                    w *= 2
            j += w
            out.append(j)
        return out

    def _hull_cells(self, cells: list, a_t: arb, b_t: arb, m: float, D: int) -> list:
        """The cells of C_q(G_mu) (module docstring): the remove direction's cells of loss
        j >= 0 (the tail's split point among them), their mirror images (b, a, -j - 1) and
        the atom (a_0, a_0) at loss 0, a_0 = 1 - sum (a_j + b_j) over the kept outcomes (the
        tail's true masses a_t, b_t)."""
        kept = [c for c in cells if c[2] >= 0]
        total = a_t + b_t
        for a, b, _, _ in kept[:-1]:  # (the last is the tail's split point)
            total += a + b
        a0 = 1 - total
        self._slack[D] = (m, m)
        return kept + [(b, a, -j - w, w) for a, b, j, w in kept] + [(a0, a0, -1, 1)]
