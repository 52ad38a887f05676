"""The two sides of the cells' curve band (``numeric.cells_curve``) on given grids at one level,
and how much of each is the fixed point's rounding: where the order-h^2 law stops.

    python benchmarks/bench_cells_floor.py [--expr cg|mixg|lap] [--alpha A] [--grids D ...]
                                           [--bits B ...]

For each grid 1/D the T-fold power of the law's cells is composed whole (the plain power of
``cells_curve._power``: no prefix window, so every grid's lattice is the whole loss), and the
band's ends at ``alpha`` are printed to 16 digits with the band's relative width, the lattice
points and the CPU seconds. Then, from the last three grids, each end extrapolated by
end(D) = end_oo + c / D^2 (least squares; an estimate, for diagnosis only): where the two limits
differ, part of the width does not fall with h^2. ``--bits`` repeats the last grid with
``lattice_cells.BITS`` lowered: the fixed point's units grow by 2^(62 - B), and each end's move
divided by 2^(62 - B) - 1 estimates the rounding's share at 62 bits (a unit a lattice point and
product, about T times each of one step's cells: proportional to D).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import sympy as sp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import tradeoff_algebra as ta  # noqa: E402
from tradeoff_algebra.numeric import cells_curve as cc  # noqa: E402
from tradeoff_algebra.numeric import cells_prefix, cells_window, lattice_cells  # noqa: E402
from tradeoff_algebra.routes.profile_curve import _cells_law  # noqa: E402

EXPRS = {
    "lap": lambda: ta.Mix(ta.Laplace(1), sp.Rational(1, 3)) ** 10,
    "mixg": lambda: ta.Mix(ta.G(2), sp.Rational(1, 10)) ** 10,
    "cg": lambda: ta.C(sp.Rational(1, 10), ta.G(1)) ** 10,
}


def band_at(law, T: int, D: int, alpha: float) -> tuple[float, float, int, float]:
    """(lower, upper) of the power at ``alpha`` on the grid 1/D, the lattice points, seconds."""
    t0 = time.process_time()
    rng = cc.loss_range(law)
    cp = cc._power(law, T, D, None, None, cut=rng is None or rng[0] is None)
    slack = getattr(law, "cells_slack", None)
    atoms = getattr(law, "loss_atoms", None)
    c = cc.CellCurve(cp, rng, slack(cp.D) if slack else (0.0, 0.0), atoms() if atoms else None)
    b = c.band(np.array([alpha]))
    return float(b.power_lo[0]), float(b.power_hi[0]), len(c.cu), time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--expr", default="cg", choices=sorted(EXPRS))
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--grids", nargs="*", type=int, default=[8192, 16384, 32768])
    ap.add_argument("--bits", nargs="*", type=int, default=[58])
    args = ap.parse_args()
    law, T = _cells_law(EXPRS[args.expr]())
    if hasattr(law, "for_levels"):
        law = law.for_levels(T, args.alpha)
    rows = []
    print(f"{args.expr}: T = {T}, alpha = {args.alpha}")
    print("| D | lower | upper | relative width | points | CPU s |")
    print("|---|---|---|---|---|---|")
    for D in args.grids:
        lo, hi, n, t = band_at(law, T, D, args.alpha)
        rows.append((D, lo, hi))
        print(f"| {D} | {lo:.16g} | {hi:.16g} | {(hi - lo) / hi:.3g} | {n} | {t:.2f} |")
    if len(rows) >= 3:
        d = np.array([r[0] for r in rows[-3:]], dtype=float)
        A = np.vstack([np.ones(3), d ** -2.0]).T
        lim = [np.linalg.lstsq(A, np.array([r[k] for r in rows[-3:]]), rcond=None)[0][0]
               for k in (1, 2)]
        print(f"h^2 limits (estimates): lower {lim[0]:.16g}, upper {lim[1]:.16g}, "
              f"gap {lim[1] - lim[0]:.3g} ({(lim[1] - lim[0]) / lim[1]:.3g} relative)")
    D, lo0, hi0 = rows[-1]
    names = ("BITS",)
    mods = (lattice_cells, cells_prefix, cells_window)
    saved = {(m, a): getattr(m, a) for m in mods for a in names if hasattr(m, a)}
    top = saved[(lattice_cells, "BITS")]
    try:
        for bits in args.bits:
            for (m, a), v in saved.items():  # (every width lowered by the same bits)
                setattr(m, a, v - (top - bits))
            lo, hi, _, _ = band_at(law, T, D, args.alpha)
            k = 2.0 ** (top - bits) - 1
            print(f"BITS = {bits} at D = {D}: lower {lo:.16g}, upper {hi:.16g}; rounding at "
                  f"{top} bits about {(lo0 - lo) / k:.3g} (lower), {(hi - hi0) / k:.3g} (upper)")
    finally:
        for (m, a), v in saved.items():
            setattr(m, a, v)

if __name__ == "__main__":
    main()
