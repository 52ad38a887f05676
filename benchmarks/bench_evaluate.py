"""Time and accuracy of ``ta.evaluate``/``ta.roc`` and ``f.curve`` against the naive routes.

Run from the repository root::

    python benchmarks/bench_evaluate.py                    # print the tables
    python benchmarks/bench_evaluate.py --write benchmarks/RESULTS.md

Part 1 (mpmath, arbitrary precision). For G(1), EpsDelta(1, 1e-5) and Laplace(1), at dps 15
and 50, over ``--points`` log-spaced levels alpha in [1e-300, 1/2] and their complements
1 - alpha (given exactly, as rationals), it times ``ta.evaluate`` per point and the naive mpmath
route computed in the same run at the same dps: alpha rounded to an mpf, the normal quantile
from ``mpmath.erfinv`` (or from ``mpmath.findroot``) and ``mpmath.ncdf`` (for Laplace and
EpsDelta their formulas with ``1 - alpha`` formed in floating point). Each answer, and the
attacker's power 1 - f(alpha) (``ta.roc`` against ``1 - naive``), is compared with a
100-digit reference from python-flint's Arb balls (``erfcinv``/``erfc`` on the exact rational
alpha and its exact complement: an independent implementation).

Part 2 (float64). ``f.curve(x)`` on 10^6 uniform points against the plain SciPy/NumPy
formula (``ndtr(ndtri(1 - x) - mu)`` for G), best of 5, the tracemalloc peak of one call, and
the maximum relative error of each against the Arb reference on a 10^4-point sample that
crowds both ends of [0, 1] (x down to 1e-300 and 1 - x down to 1e-16).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import math
import os
import platform
import sys
import time
import tracemalloc

import flint
import mpmath
import numpy as np
import scipy
import sympy as sp
from mpmath import mp
from scipy import special

import tradeoff_algebra as ta

MU = 1
EPS, DELTA = 1, sp.Rational(1, 10**5)
REF_DPS = 100
R = sp.Rational


# -- levels ------------------------------------------------------------------------------------
def levels(n: int) -> list[sp.Rational]:
    """n log-spaced decimal levels from 1e-300 to 1/2, as exact rationals (16 digits each)."""
    out = []
    for e in np.linspace(-300.0, math.log10(0.5), n)[:-1]:
        k = math.floor(e)
        out.append(R(f"{10 ** (e - k):.15f}e{k}"))
    return out + [R(1, 2)]


# -- the reference: Arb balls at REF_DPS + guard digits ------------------------------------------
def _arb(q: sp.Rational) -> flint.arb:
    return flint.arb(flint.fmpq(int(q.p), int(q.q)))


def _mpf(x: flint.arb) -> mpmath.mpf:
    man, exp = x.mid().man_exp()
    return mpmath.mpf((int(man), int(exp)))


def _arb_phi_inv(a: flint.arb, ac: flint.arb) -> flint.arb:
    """Phi^{-1}(alpha) from alpha and its exact complement: -sqrt2 erfcinv(2 alpha)."""
    s2 = flint.arb(2).sqrt()
    return -s2 * (2 * a).erfcinv() if a < 0.5 else s2 * (2 * ac).erfcinv()


def _arb_phi(x: flint.arb) -> flint.arb:
    return (-x / flint.arb(2).sqrt()).erfc() / 2


def reference(name: str, A: sp.Rational) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(f(A), 1 - f(A)) to REF_DPS digits, each without cancellation."""
    a, ac = _arb(A), _arb(1 - A)
    if name == "G":
        z = _arb_phi_inv(a, ac)
        return _mpf(_arb_phi(-z - MU)), _mpf(_arb_phi(z + MU))
    if name == "EpsDelta":
        e, d = flint.arb(EPS).exp(), _arb(DELTA)
        f = max(flint.arb(0), 1 - d - e * a, (ac - d) / e)
        power = min(flint.arb(1), d + e * a, 1 - (ac - d) / e)
        return _mpf(f), _mpf(power)
    e = flint.arb(MU).exp()
    if 2 * a < 1 / e:  # Laplace, Dong, Roth & Su, Prop. 7
        return _mpf(1 - e * a), _mpf(e * a)
    if 2 * a <= 1:
        return _mpf(1 / (4 * e * a)), _mpf(1 - 1 / (4 * e * a))
    return _mpf(ac / e), _mpf(1 - ac / e)


def reference_float(name: str, x: np.ndarray) -> np.ndarray:
    """f at each float64 x (the binary rational it holds) to REF_DPS digits, as float64."""
    return np.array([float(reference(name, R(float(v)))[0]) for v in x])


# -- the naive mpmath routes -------------------------------------------------------------------
def naive(name: str, route: str, A: sp.Rational) -> mpmath.mpf:
    """f(A) the way one writes it with mpmath at the current dps."""
    a = mp.mpf(int(A.p)) / int(A.q)
    if name == "G":
        if route == "erfinv":
            z = mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)
        else:
            try:
                z = mpmath.findroot(lambda x: mpmath.ncdf(x) - a, 0)
            except ValueError:  # "could not find root within given tolerance"
                return mp.nan
        return mpmath.ncdf(-z - MU)
    if name == "EpsDelta":
        d = mp.mpf(int(DELTA.p)) / int(DELTA.q)
        return max(mp.zero, 1 - d - mpmath.exp(EPS) * a, mpmath.exp(-EPS) * (1 - d - a))
    em = mpmath.exp(-MU)
    if 2 * a < em:
        return 1 - a / em
    return em / (4 * a) if 2 * a <= 1 else em * (1 - a)


FAMILIES = {"G": ta.G(MU), "EpsDelta": ta.EpsDelta(EPS, DELTA), "Laplace": ta.Laplace(MU)}
LABEL = {"G": "G(1)", "EpsDelta": "EpsDelta(1, 1e-5)", "Laplace": "Laplace(1)"}


def _relerr(v, ref) -> float:
    v, ref = mpmath.mpf(v), mpmath.mpf(ref)
    if mpmath.isnan(v):
        return math.inf
    if ref == 0:
        return 0.0 if v == 0 else math.inf
    return float(abs(v - ref) / abs(ref))


def _digits(err: float, dps: int) -> str:
    if err == 0:
        return f">={dps}"
    if not math.isfinite(err) or err >= 1:
        return "0"
    return f"{min(-math.log10(err), dps):.1f}"


def _timed(fn, xs):
    t0 = time.perf_counter()
    out = [fn(x) for x in xs]
    return out, (time.perf_counter() - t0) / len(xs)


def bench_mp(n_points: int) -> list[dict]:
    low = levels(n_points)
    high = [1 - A for A in low]
    rows = []
    refs = {name: ([reference(name, A) for A in low], [reference(name, A) for A in high])
            for name in FAMILIES}
    for name, f in FAMILIES.items():
        ref_lo, ref_hi = refs[name]
        routes = ["ours", "erfinv", "findroot"] if name == "G" else ["ours", "formula"]
        for dps in (15, 50):
            for route in routes:
                if route == "ours":
                    def ours(A, f=f, dps=dps):
                        return ta.evaluate(f, A, dps=dps).mid

                    v_lo, t_lo = _timed(ours, low)
                    v_hi, t_hi = _timed(ours, high)
                    p_lo = [ta.roc(f, A, dps=dps).mid for A in low]
                else:
                    def plain(A, name=name, route=route):
                        return naive(name, route, A)

                    with mp.workdps(dps):
                        v_lo, t_lo = _timed(plain, low)
                        v_hi, t_hi = _timed(plain, high)
                        p_lo = [1 - v for v in v_lo]
                rows.append({
                    "family": LABEL[name], "route": route, "dps": dps,
                    "us": 1e6 * (t_lo + t_hi) / 2,
                    "fails": sum(mpmath.isnan(v) for v in v_lo + v_hi),
                    "f_low": max(_relerr(v, r[0]) for v, r in zip(v_lo, ref_lo, strict=True)),
                    "f_high": max(_relerr(v, r[0]) for v, r in zip(v_hi, ref_hi, strict=True)),
                    "power_low": max(_relerr(v, r[1])
                                     for v, r in zip(p_lo, ref_lo, strict=True)),
                })
    return rows


# -- float64 curves ----------------------------------------------------------------------------
def plain_numpy(name: str):
    if name == "G":
        return lambda x: special.ndtr(special.ndtri(1 - x) - MU)
    if name == "EpsDelta":
        e, d = math.exp(EPS), float(DELTA)
        return lambda x: np.maximum(0.0, np.maximum(1 - d - e * x, (1 - d - x) / e))
    em = math.exp(-MU)
    return lambda x: np.where(2 * x < em, 1 - x / em, np.where(2 * x <= 1, em / (4 * x),
                                                                  em * (1 - x)))


def _best_of(fn, x, repeat=5) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(x)
        best = min(best, time.perf_counter() - t0)
    return best


def _peak(fn, x) -> float:
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn(x)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def _max_rel(y: np.ndarray, ref: np.ndarray, mask: np.ndarray) -> float:
    y, ref = y[mask], ref[mask]
    with np.errstate(divide="ignore", invalid="ignore"):
        err = np.where(ref == 0, np.where(y == 0, 0.0, np.inf), np.abs(y - ref) / np.abs(ref))
    return float(err.max()) if err.size else float("nan")


def bench_curve(n_curve: int, n_sample: int) -> list[dict]:
    rng = np.random.default_rng(20240601)
    x = rng.random(n_curve)
    k = n_sample // 4
    sample = np.concatenate([10.0 ** np.linspace(-300, -3, k), 1 - 10.0 ** np.linspace(-16, -3, k),
                             rng.choice(x, n_sample - 2 * k, replace=False)])
    near0, near1 = sample < 1e-3, sample > 1 - 1e-3
    middle = ~(near0 | near1)
    rows = []
    for name, f in FAMILIES.items():
        ref = reference_float(name, sample)
        for route, fn in (("ours", f.curve), ("plain", plain_numpy(name))):
            y = np.asarray(fn(sample), dtype=np.float64)
            rows.append({
                "family": LABEL[name], "route": route,
                "ms": 1e3 * _best_of(fn, x) * 1e6 / n_curve, "mib": _peak(fn, x),
                "near0": _max_rel(y, ref, near0), "middle": _max_rel(y, ref, middle),
                "near1": _max_rel(y, ref, near1),
            })
    return rows


# -- report --------------------------------------------------------------------------------------
def machine(load: float) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if "model name" in line)
    except (OSError, StopIteration):
        pass
    return (f"Python {platform.python_version()}, numpy {np.__version__}, "
            f"scipy {scipy.__version__}, mpmath {mpmath.__version__}, sympy {sp.__version__}, "
            f"python-flint {flint.__version__}, "
            f"tradeoff_algebra {ta.__version__}; {platform.system()} {platform.machine()}, "
            f"{os.cpu_count()} CPUs ({cpu}); load average at the start "
            f"{load:.1f} (timings are only comparable on an idle machine)")


ROUTE_TEXT = {
    "ours": "ta.evaluate / ta.roc",
    "erfinv": "mpmath: ncdf(-sqrt2 erfinv(2a-1) - mu)",
    "findroot": "mpmath: ncdf(-findroot(ncdf(x)=a) - mu)",
    "formula": "mpmath: formula, 1 - a in floating point",
    "plain": "plain numpy/scipy formula",
}


def render(mp_rows, curve_rows, n_points, n_curve, n_sample, elapsed, command, load) -> str:
    out = [f"# Benchmark results\n\nDate: {_dt.date.today().isoformat()}  ",
           f"Command: `{command}`  ", f"Machine: {machine(load)}  ",
           f"Wall time of the run: {elapsed:.0f} s\n",
           f"## evaluate: {n_points} levels alpha in [1e-300, 1/2] and their exact complements\n",
           "Digits = worst correct significant digits against a 100-digit Arb reference over "
           "the levels (capped at dps); 'f(alpha)' over alpha <= 1/2, 'f(1-alpha)' over the "
           "complements, '1-f(alpha)' the attacker's power at alpha <= 1/2.\n",
           "| trade-off | route | dps | us/point | digits f(alpha) | digits f(1-alpha) "
           "| digits 1-f(alpha) | failed |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in mp_rows:
        out.append(f"| {r['family']} | {ROUTE_TEXT[r['route']]} | {r['dps']} | {r['us']:.0f} | "
                   f"{_digits(r['f_low'], r['dps'])} | {_digits(r['f_high'], r['dps'])} | "
                   f"{_digits(r['power_low'], r['dps'])} | {r['fails']} |")
    out += [f"\n## curve: float64, {n_curve:.0e} uniform points; error on {n_sample} points "
            "crowding both ends\n",
            "Max relative error against the Arb reference at the float64 x: near 0 is "
            "1e-300 <= x < 1e-3, near 1 is 1 - 1e-16 <= x, 1 - x < 1e-3 (inf: nonzero where "
            "the truth is 0).\n",
            "| trade-off | route | ms per 1e6 points | peak MiB (tracemalloc) | "
            "max rel err near 0 | middle | near 1 |",
            "|---|---|---:|---:|---:|---:|---:|"]
    for r in curve_rows:
        route = "f.curve(x)" if r["route"] == "ours" else ROUTE_TEXT["plain"]
        out.append(f"| {r['family']} | {route} | {r['ms']:.1f} | {r['mib']:.1f} | "
                   f"{r['near0']:.1e} | {r['middle']:.1e} | {r['near1']:.1e} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=200,
                        help="log-spaced levels in [1e-300, 1/2] (default 200)")
    parser.add_argument("--curve", type=int, default=10**6, help="curve size (default 1e6)")
    parser.add_argument("--sample", type=int, default=10**4,
                        help="accuracy sample of the curve (default 1e4)")
    parser.add_argument("--write", metavar="PATH", help="also write the Markdown report here")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    load = os.getloadavg()[0]
    old = flint.ctx.dps
    flint.ctx.dps = REF_DPS + 20
    try:
        mp_rows = bench_mp(args.points)
        curve_rows = bench_curve(args.curve, args.sample)
    finally:
        flint.ctx.dps = old
    command = "python benchmarks/bench_evaluate.py" + "".join(
        f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    report = render(mp_rows, curve_rows, args.points, args.curve, args.sample,
                    time.perf_counter() - t0, command, load)
    print(report)
    if args.write:
        with open(args.write, "w") as fh:
            fh.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
