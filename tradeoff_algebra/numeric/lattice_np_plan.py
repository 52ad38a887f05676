"""The tails of a lattice product for the Neyman-Pearson reading of ``numeric.lattice_np``: the
tilt, window and fixed point of one root that serves a set of levels, planned from the levels'
thresholds (the P-quantiles of the loss, in a normal approximation), and certified after the
fact by the root's dropped mass (``lattice_np``'s bounds; the plan only makes them small).

* a lattice product whose shortcut (``numeric.lattice_product.SHORTCUTS``) has tails of its own
  (``np_tails(alphas, rel_tol, extra)``: discrete Gaussians as one discrete Gaussian,
  ``families.discrete_gaussian_np``): those, no root;
* the exact lattice product (``numeric.lattice_product.LatticeProduct``): the root at a real tilt
  c (a curve's thresholds lie between the P- and Q-means of the loss: c in [-1, 0]), loss
  (g s + B)/D exactly;
* the tilted lattice powers (``numeric.lattice_tilted``): the root in d units, loss d log R;
* the Arb lattice power (``numeric.lattice_power.LatticePower`` with its whole table): the
  table's suffix sums are the tails themselves.

The root is the one the privacy profile builds (the same fixed-point product tree): a power
costs one root wherever its levels lie, where the band of the profile asked delta at a grid of
eps, each at its own saddle tilt.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from statistics import NormalDist

from flint import arb

from .cf_laws import working_precision
from .lattice_np import NPTails, TableTails, TiltedTails, gap_estimate, tilt_for
from .lattice_power import LatticePower
from .lattice_product import MAX_WINDOW, LatticeProduct, arb_of
from .lattice_tilted import TiltedLatticeProduct

__all__ = ["tails_for", "thresholds"]

#: The share of the tolerance left to the dropped mass (the rest: the balls' rounding).
MARGIN = 1e-2


def _moments(law, c: float) -> tuple[float, float]:
    """(tilted mean of the loss, its sd) at the real tilt c, floats."""
    if isinstance(law, LatticeProduct):
        sd = math.sqrt(sum(n * (float(f.step) * f.plan(c)[2]) ** 2 for f, n in law.factors))
        return law.mean_loss(c), max(sd, float(law.g) / law.D)
    mean, sd = law._moments(c)
    return law._ell * mean, max(sd * law._ell, law._ell)


def thresholds(law, alphas: Sequence[float]) -> list[float]:
    """Float estimates of the loss thresholds of the levels: the (1 - alpha)-quantiles of the
    loss under P, the tilt -1 (normal approximation; planning only)."""
    m, sd = _moments(law, -1.0)
    nd = NormalDist()
    out = []
    for a in alphas:
        a = min(max(float(a), 1e-300), 1 - 1e-16)
        z = -nd.inv_cdf(a) if a > 1e-300 else 37.0
        out.append(m + sd * z)
    return out


def tails_for(law, alphas: Sequence[float], rel_tol: float, extra: int = 0) -> NPTails | None:
    """Tails of ``law`` certified around the thresholds of the levels ``alphas`` (0 < alpha <
    1), planned to the relative width ``rel_tol`` (``extra``: more margin, each step 4 sd of
    window and 32 bits), or None where the law is of no kind here or its window too large."""
    if isinstance(law, LatticePower):
        if law.tilted is not None:
            return tails_for(law.tilted, alphas, rel_tol, extra)
        prec = 64 + int(-math.log2(max(rel_tol, 1e-300))) + 32 * extra
        ell, a, b, d0, _ = law._table(prec)
        return TableTails(a, b, d0, ell, prec)
    if not isinstance(law, (LatticeProduct, TiltedLatticeProduct)):
        return None
    if isinstance(law, LatticeProduct):  # (a shortcut with tails of its own: no root)
        own = getattr(law.shortcut(rel_tol), "np_tails", None)
        if own is not None:
            return own(alphas, rel_tol, extra)
    ts = thresholds(law, alphas)
    top = (float(law.top) if isinstance(law, LatticeProduct) and law.top is not None
           else law.top_loss() if isinstance(law, TiltedLatticeProduct) else math.inf)
    ts = [min(t, top) for t in ts]
    t_lo, t_hi = min(ts), max(ts)
    c = tilt_for(lambda x: _moments(law, x)[0], (t_lo + t_hi) / 2)
    if isinstance(law, TiltedLatticeProduct):
        # (the P-side bounds direct, a = c + 1 >= 0: its factors' P-mass where Q = 0 is left
        # out of their laws, so the P-total of the finite losses is not known to be 1)
        c = max(c, -1.0)
    mean, sd = _moments(law, c)
    gap = min(gap_estimate(t, c, mean, sd) for t in (t_lo, t_hi))
    target = max(rel_tol * gap * MARGIN, 1e-300)
    if isinstance(law, LatticeProduct):
        nodes = 2 * sum(1 + n.bit_length() for _, n in law.factors) + 8
    else:
        nodes = sum(2 * f.n.bit_length() + 4 for f in law.factors)
    T = math.sqrt(2 * math.log(4 * nodes / target)) + 4 * extra
    if isinstance(law, LatticeProduct):
        window = law.window_size(c, T)
    else:
        window = 2 * T * sd / law._ell + sum(f.kmax - f.kmin + 1 for f in law.factors)
    if window > MAX_WINDOW:
        return None
    prec = int(math.log2(window * nodes / target)) + 8 + 32 * extra
    lo, R, lam, m = law.root(c, T, prec)
    with working_precision(prec + 64):
        kappa = lam / arb(2) ** prec
        X = m - kappa * arb_of(int(R(1)))  # (sum_s R(s): an exact integer)
        if isinstance(law, LatticeProduct):
            l0 = (arb(law.g) * lo + law.B) / law.D
            step = arb(law.g) / law.D
            return TiltedTails(lo, R, kappa, X, Fraction(c), l0, step, prec)
        from .lattice_tilted import _ball

        ell = _ball(law.ratio).log()
        return TiltedTails(lo, R, kappa, X, Fraction(c), ell * lo, ell, prec,
                           singular=law._singular_ball())
