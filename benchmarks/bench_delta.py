"""Accuracy and time of ``ta.delta`` (the (eps, delta) profile of G_mu, Dong, Roth & Su Cor. 1)
against the float64 formula that accountants use.

Run from the repository root::

    python benchmarks/bench_delta.py

For mu in [0.01, 50] and eps in [0, 500] it compares, at each grid point,

* ``ta.delta(G(mu), eps, dps=30)``, and
* the float64 formula ``norm.cdf(-eps/mu + mu/2) - exp(eps) * norm.cdf(-eps/mu - mu/2)``
  (SciPy; the form used by dp_accounting's and autodp's Gaussian (eps, delta) conversions),

with a reference computed by a different route: Cor. 1 evaluated directly (no logarithms, no
expm1) with mpmath's erfc at 200 significant digits. Relative errors are reported over the
whole grid and over the points whose true delta is a normal float64 (>= 1e-300), with the count
of float64 results that are negative, zero, NaN or infinite.
"""

from __future__ import annotations

import math
import time
import warnings

import mpmath
import numpy as np
from scipy.stats import norm

import tradeoff_algebra as ta

MUS = ["0.01", "0.03", "0.1", "0.3", "0.5", "1", "2", "5", "10", "20", "50"]
EPSS = ["0", "0.01", "0.1", "0.5", "1", "2", "5", "10", "20", "50", "100", "200", "300",
        "500"]


def reference(mu: str, eps: str):
    with mpmath.workdps(200):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        Phi = lambda x: mpmath.erfc(-x / mpmath.sqrt(2)) / 2  # noqa: E731
        return Phi(-e / m + m / 2) - mpmath.exp(e) * Phi(-e / m - m / 2)


def float64_formula(mu: float, eps: float) -> float:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * norm.cdf(-eps / mu - mu / 2))


def rel(x, ref) -> mpmath.mpf:
    with mpmath.workdps(60):
        return abs(mpmath.mpf(x) - ref) / ref


def main() -> None:
    import sympy as sp

    rows = []
    t_ta = t_f64 = 0.0
    for mu in MUS:
        for eps in EPSS:
            ref = reference(mu, eps)
            t0 = time.perf_counter()
            v = ta.delta(ta.G(sp.Rational(mu)), sp.Rational(eps), dps=30)
            t1 = time.perf_counter()
            x = float64_formula(float(mu), float(eps))
            t2 = time.perf_counter()
            t_ta += t1 - t0
            t_f64 += t2 - t1
            rows.append((mu, eps, ref, v.mid, x))
    n = len(rows)
    normal = [r for r in rows if r[2] >= mpmath.mpf("1e-300")]

    def worst(rs, k):
        out = mpmath.mpf(0)
        for r in rs:
            x = r[k]
            if isinstance(x, float) and not math.isfinite(x):
                return mpmath.inf
            out = max(out, rel(x, r[2]))
        return out

    bad = {"negative": sum(1 for r in rows if r[4] < 0),
           "zero": sum(1 for r in rows if r[4] == 0),
           "nan/inf": sum(1 for r in rows if not math.isfinite(r[4]))}
    smallest = min(r[2] for r in rows)
    print(f"G_mu delta(eps): {n} points, mu in [{MUS[0]}, {MUS[-1]}], "
          f"eps in [{EPSS[0]}, {EPSS[-1]}]; smallest true delta {mpmath.nstr(smallest, 3)}")
    print(f"{'route':<34}{'worst rel. err (all)':>24}{'worst rel. err (>=1e-300)':>28}"
          f"{'time/point':>14}")
    print(f"{'ta.delta(dps=30)':<34}{mpmath.nstr(worst(rows, 3), 3):>24}"
          f"{mpmath.nstr(worst(normal, 3), 3):>28}{t_ta / n * 1e6:>11.0f} us")
    print(f"{'float64 Phi(a) - e^eps Phi(b)':<34}{mpmath.nstr(worst(rows, 4), 3):>24}"
          f"{mpmath.nstr(worst(normal, 4), 3):>28}{t_f64 / n * 1e6:>11.0f} us")
    print(f"float64 results: {bad['negative']} negative, {bad['zero']} zero, "
          f"{bad['nan/inf']} NaN/inf out of {n}")
    # where the float64 formula first loses all digits, per mu
    print("first eps (per mu) where the float64 formula has no correct digit (rel. err >= 1):")
    for mu in MUS:
        lost = [r[1] for r in rows if r[0] == mu and (not math.isfinite(r[4])
                                                      or rel(r[4], r[2]) >= 1)]
        print(f"  mu={mu:<6} eps={lost[0] if lost else '-'}")


if __name__ == "__main__":
    main()
