"""The summary benchmark of the performance issue (issue 29): every workload of its table once,
ours beside the best peer, each of our results checked against an independent reference
computed here, and the ratio of the CPU times.

    python benchmarks/bench_issue29.py [--quick] [--only NAME ...] [--timeout S]
                                       [--write benchmarks/RESULTS_issue29.md]

Each row runs in its own process (killed with its children past ``--timeout`` seconds; a row
that fails or runs out of time records its error and the run goes on), and every timed call
in it runs in a fresh process of its own through the existing benchmark modules
(``bench_laplace.run``: CPU time by ``time.process_time`` with the imports excluded, peak
resident size above the imports, the warnings raised). The rows reuse those modules' workloads
and references:

* Laplace products: the lattice split or the whole law's inversion at width 1e-12 / 1e-13
  (``bench_laplace.reference``);
* Poisson-subsampled Laplace: dp_accounting's optimistic and pessimistic PLDs at grid 1e-5
  (``bench_laplace.sandwich``), which bracket the truth up to their float errors;
* 100 Gaussians (x) 100 Laplaces: the inversion called directly on the factors' laws (the
  Gaussians as one law of mu^2 = sum mu_i^2, exact) at width 1e-13, outside the routing;
* G (x) L: 30-digit mpmath quadrature of the Gaussian profile against the Laplace loss
  (``bench_laplace.gl_quadrature``);
* the DP-SGD trade-off curve: the power 1 - f(alpha) as the minimum over eps of
  delta(eps) + e^eps alpha by golden section (``bench_curves.power_ref``);
* RDP: the binomial sum at 50 digits (``bench_curves.rdp_ref_int``);
* shuffling: the table of atoms in Arb at n = 10^4 (``bench_shuffle._REF``), and at n = 10^5
  the closed-form pair of Feldman, McMillan & Talwar (``families/shuffle.py``'s docstring)
  summed here in float64 log space over a window (``shuffle_delta_ref``, an estimate);
* prv_accountant's failure case: the remove direction under another cut of the sampled
  Gaussian law (``bench_laplace.OTHER_CUT``, certified).

"check": "contains" (our enclosure holds the reference's), "inside" (ours lies in the
reference's bracket), "intersects", "within r" (a relative gap r no larger than the
reference's stated accuracy or the float rounding of the printed ends), else "OFF by r".
"ratio" is our CPU time over the best peer's in the same run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

from _report import Report, run_line

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

#: The workload parameters of the issue's table.
Q0, S0, T0 = "256/60000", "11/10", 14063
SGD = f"ta.noisy_sgd(sp.Rational({S0!r}), sp.Rational({Q0!r}), {T0}, sampling='poisson')"
FAIL = "ta.noisy_sgd(4, sp.Rational(33, 100000), 10**4, sampling='poisson')"
HET_G = "[ta.G(sp.Rational(1, 3) + sp.Rational(i, 1000)) for i in range(100)]"
HET_L = "[ta.Laplace(sp.Rational(1, 10) + sp.Rational(i, 10**4)) for i in range(100)]"
ROC_LEVEL = 0.01  # the level of the curve checked against the reference (index 10 of 1001)


# -- entries --------------------------------------------------------------------------------
def _ours(setting: str, r: dict) -> dict:
    """Our entry from a ``bench_laplace.run`` result with ``out = [lo, hi, route, guarantee]``."""
    e = {"setting": setting}
    if "error" in r:
        return e | {"error": r["error"]}
    o = r["out"]
    if not isinstance(o, list) or not o or not isinstance(o[0], (int, float)):
        return e | {"error": f"no enclosure: {o}"[:160]}
    e |= {"lo": float(o[0]), "hi": float(o[1]), "route": o[2] if len(o) > 2 else "-",
          "guarantee": o[3] if len(o) > 3 else "-", "t": r["t"], "mem": r["mem"],
          "warned": sorted(set(r.get("warned", [])))}
    if len(o) > 4:  # the relative width computed in the child (below float64's resolution)
        e["width"] = float(o[4])
    if len(o) > 5:
        e["detail"] = str(o[5])
    return e


def _peer(who: str, setting: str, r: dict) -> dict:
    """A peer's entry: ``out`` a float (one-sided estimate) or [lower, estimate, upper]."""
    e = {"who": who, "setting": setting}
    if "error" in r:
        return e | {"error": r["error"]}
    o = r["out"]
    v = o[1] if isinstance(o, list) and len(o) == 3 else o
    return e | {"value": float(v) if isinstance(v, (int, float)) else None, "raw": o,
                "t": r["t"], "mem": r["mem"]}


def _ref(name: str, r: dict, kind: str, acc: float = 0.0) -> dict:
    """The reference [lo, hi] (``kind``: certified / bracket / estimate; ``acc``: the relative
    accuracy an estimate claims)."""
    if "error" in r:
        return {"name": name, "error": r["error"]}
    o = r["out"]
    lo, hi = (o, o) if isinstance(o, float) else (float(o[0]), float(o[1]))
    return {"name": name, "lo": lo, "hi": hi, "kind": kind, "acc": acc, "t": r.get("t")}


def check(e: dict, ref: dict | None) -> str:
    """How our enclosure [lo, hi] stands to the reference (see the module docstring)."""
    if ref is None or "error" in ref or "lo" not in e:
        return "not checked"
    lo, hi, rl, rh = e["lo"], e["hi"], ref["lo"], ref["hi"]
    if lo <= rl and rh <= hi:
        return "contains"
    if rl <= lo and hi <= rh and rl < rh:
        return "inside"
    gap = max(rl - hi, lo - rh, 0.0) / max(abs(rh), 1e-300)
    if gap == 0.0:
        return "intersects"
    ok = gap <= max(ref.get("acc", 0.0), 4e-16)
    return f"within {gap:.1e}" if ok else f"**OFF by {gap:.1e}**"


# -- the rows ---------------------------------------------------------------------------------
def _row(title: str, ours: list[dict], peers: list[dict], ref: dict | None, head: int = -1,
         note: str = "", tol: float | None = None) -> dict:
    """``tol``: the relative width the workload asks of the headline entry (``head``)."""
    return {"title": title, "ours": ours, "peers": peers, "ref": ref, "head": head,
            "note": note, "tol": tol}


def _tols(quick: bool, tols: tuple[str, ...]) -> tuple[str, ...]:
    return tols[-1:] if quick else tols


def row_laplace_1000(quick: bool) -> dict:
    import bench_laplace as bl

    ref = _ref("lattice split J = 4 at width 1e-12 (certified)",
               bl.reference("[(LaplaceLaw(Fraction(1, 10)), 1000)]", 1e-6, 4), "certified")
    ours = [_ours(f"tol {t}", bl.ours("ta.Laplace(sp.Rational(1, 10))**1000", "1/1000000", t))
            for t in _tols(quick, ("5e-4", "1e-8", "1e-9"))]
    peers = [_peer("dp_accounting", "grid 1e-4 (default)", bl.dpa(bl.lap_event(1000), 1e-6))]
    return _row("Laplace(1/10)^(x)1000, eps(1e-6)", ours, peers, ref)


def row_laplace_1e5(quick: bool) -> dict:
    import bench_laplace as bl

    ref = _ref("the whole law's inversion at width 1e-13 (certified)",
               bl.reference("[(LaplaceLaw(Fraction(1, 10)), 100000)]", 1e-6, None), "certified")
    ours = [_ours(f"tol {t}", bl.ours("ta.Laplace(sp.Rational(1, 10))**100000", "1/1000000", t))
            for t in _tols(quick, ("5e-4", "1e-9"))]
    return _row("Laplace(1/10)^(x)10^5, eps(1e-6)", ours, [], ref,
                note="dp_accounting (grid 1e-4) took 25.5 s CPU and 3.2 GB in "
                     "RESULTS_laplace.md; not run here")


def row_sampled_laplace(quick: bool) -> dict:
    import bench_laplace as bl

    ref = _ref("dp_accounting's [optimistic, pessimistic] PLDs at grid 1e-5 (a bracket up to "
               "float errors)", bl.sandwich(0.01, 1.0, 10**4, 1e-5), "bracket")
    expr = "ta.laplace_mechanism(1, 1, sampling='poisson', p=sp.Rational(1, 100))**10000"
    ours = [_ours(f"tol {t}", bl.ours(expr, "1/100000", t)) for t in _tols(quick, ("5e-4", "1e-9"))]
    ev = ("dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.01, "
          "dp_event.LaplaceDpEvent(1.0)), 10000)")
    peers = [_peer("dp_accounting", "grid 1e-4 (default)", bl.dpa(ev, 1e-5))]
    return _row("Poisson-subsampled Laplace q = 0.01, b = 1, T = 10^4 (add/remove), eps(1e-5)",
                ours, peers, ref)


def row_heterogeneous(quick: bool) -> dict:
    import bench_laplace as bl

    body = ("mu2 = sum((Fraction(1, 3) + Fraction(i, 1000)) ** 2 for i in range(100))\n"
            "laws = [(GaussianLaw(mu2=mu2), 1)] + [(LaplaceLaw(Fraction(1, 10) + "
            "Fraction(i, 10**4)), 1) for i in range(100)]\n"
            "with working_precision(64):\n"
            "    out = list(epsilon_enclosure(laws, 1e-6, 1e-13))")
    ref = _ref("the inversion on the factors' laws directly, width 1e-13 (certified)",
               bl.run(bl.REF, body), "certified")
    expr = f"ta.Tensor(*({HET_G} + {HET_L}))"
    ours = [_ours(f"tol {t}", bl.ours(expr, "1/1000000", t))
            for t in _tols(quick, ("5e-4", "1e-9"))]
    ev = ("dp_event.ComposedDpEvent([dp_event.GaussianDpEvent(1 / (1 / 3 + i / 1000)) for i in "
          "range(100)] + [dp_event.LaplaceDpEvent(1 / (1 / 10 + i / 10**4)) for i in range(100)])")
    peers = [_peer("dp_accounting", "grid 1e-4 (default)", bl.dpa(ev, 1e-6))]
    return _row("G(1/3 + i/1000) (x) Laplace(1/10 + i/10^4), i < 100, eps(1e-6)", ours, peers,
                ref)


def _gl(mu: str, m: str) -> dict:
    import bench_laplace as bl

    ref = _ref("mpmath quadrature, 30 digits", bl.gl_quadrature(mu, m, "1/1000000"), "estimate",
               1e-15)
    ours = [_ours("tol 1e-9", bl.ours(f"ta.G(sp.Rational({mu!r})) @ ta.Laplace(sp.Rational({m!r}))",
                                      "1/1000000", "1e-9"))]
    ev = (f"dp_event.ComposedDpEvent([dp_event.GaussianDpEvent({1 / eval(mu)!r}), "
          f"dp_event.LaplaceDpEvent({1 / eval(m)!r})])")
    peers = [_peer("dp_accounting", "grid 1e-4 (default)", bl.dpa(ev, 1e-6))]
    return _row(f"G({mu}) (x) Laplace({m}), eps(1e-6)", ours, peers, ref)


def row_gl(quick: bool) -> dict:
    return _gl("1", "1")


def row_gl_weak(quick: bool) -> dict:
    return _gl("1/100", "1")


def row_roc(quick: bool) -> dict:
    import bench_curves as bc
    import bench_laplace as bl
    import sympy as sp

    sys.path.insert(0, ROOT)
    import tradeoff_algebra as ta

    f = ta.noisy_sgd(sp.Rational(11, 10), sp.Rational(256, 60000), T0)
    t0 = time.process_time()
    pw, bracket = bc.power_ref(f, ROC_LEVEL, 0.0, 4.0)
    ref = {"name": f"the power 1 - f({ROC_LEVEL}) = min over eps of delta(eps) + e^eps alpha, "
                   f"golden section to an eps bracket of {float(bracket):.1e}, each delta "
                   "certified (an upper bound of the power)",
           "lo": float(pw), "hi": float(pw), "kind": "estimate", "acc": 1e-9,
           "t": time.process_time() - t0}
    head = ("import numpy as np\nwith ta.pld_options(tol=1e-9):\n")
    roc = bl.run(bl.OURS, f"f = {SGD}\n{head}    v = ta.roc(f, sp.Rational(1, 100))\n"
                          "out = [float(v.lo), float(v.hi), v.route, v.guarantee]")
    cur = bl.run(bl.OURS, f"f = {SGD}\n{head}    x = np.linspace(0, 1, 1001)\n"
                          "    lo, hi = ta.curve(f, x, bounds=True)\n"
                          "est = any(type(w.message).__name__ == 'EstimateWarning'\n"
                          "          for w in caught)\n"
                          "w = float(np.max((hi[1:] - lo[1:]) / np.maximum(1 - lo[1:], 1e-300)))\n"
                          "out = [1 - float(hi[10]), 1 - float(lo[10]), 'curve, bounds=True', "
                          "'estimate (EstimateWarning)' if est else 'certified', w, "
                          "f'width: the largest relative width of the power over the curve; at "
                          "0.01 {(hi[10] - lo[10]) / (1 - lo[10]):.1e}']")
    ours = [_ours("ta.roc(f, 1/100), tol 1e-9", roc),
            _ours("ta.curve(f, 1001 levels, bounds=True), tol 1e-9; power at 0.01", cur)]
    rk = bl.run(bc.RISKCAL, "x = np.linspace(0, 1, 1001)\n"
                            f"b = get_beta_for_dpsgd(1.1, {256 / 60000!r}, {T0}, x)\n"
                            "out = 1 - float(b[10])")
    peers = [_peer("riskcal", "get_beta_for_dpsgd, 1001 levels, grid 1e-4; power at 0.01", rk)]
    return _row(f"DP-SGD (sigma = 1.1, q = 256/60000, T = {T0}): power 1 - f(0.01) and the "
                "1001-point curve at tol 1e-9", ours, peers, ref,
                note="the ratio compares the 1001-point curves", tol=1e-9)


def _least(n: int, call: Callable[[], dict]) -> dict:
    """The run of least CPU time among ``n`` (fresh processes; the first error as it is)."""
    best = None
    for _ in range(n):
        r = call()
        if "error" in r:
            return r
        best = r if best is None or r["t"] < best["t"] else best
    return best


def row_rdp(quick: bool) -> dict:
    import bench_curves as bc
    import bench_laplace as bl

    orders = list(range(2, 102))
    t0 = time.process_time()
    refs = [bc.rdp_ref_int(Q0, S0, k) for k in orders]
    tref = time.process_time() - t0
    # both take about 0.02 s: the least of three fresh processes each
    r = _least(3, lambda: bl.run(bc.OURS, f"r = ta.RDP.of({SGD}, orders=list(range(2, 102)))\n"
                                          "out = [str(r.at(k)) for k in range(2, 102)]"))
    p = _least(3, lambda: bl.run(
        bc.DPA_RDP, f"r = rdp._compute_rdp_poisson_subsampled_gaussian({256 / 60000!r}, 1.1, "
                    f"list(range(2, 102))) * {T0}\nout = [float(x) for x in r]"))
    k = 32  # the order shown; every order is checked
    i = orders.index(k)
    ref = {"name": "the binomial sum at 50 digits (Mironov, Talwar & Zhang, Sec. 3.3), 100 orders",
           "lo": float(refs[i]), "hi": float(refs[i]), "kind": "estimate", "acc": 1e-40,
           "t": tref}
    ours = {"setting": f"RDP.of, 100 orders (shown: order {k})"}
    if "error" in r:
        ours["error"] = r["error"]
    else:
        from fractions import Fraction

        vals = [bc._q(s) for s in r["out"]]
        worst = max(abs(v - x) / x for v, x in zip(vals, refs, strict=True))
        above = all(v >= x * (1 - bc.mp.mpf(10) ** -40) for v, x in zip(vals, refs, strict=True))
        up = float(Fraction(r["out"][i]))
        ours |= {"lo": float(refs[i]) if above else up, "hi": up, "t": r["t"], "mem": r["mem"],
                 "guarantee": "certified upper ends", "route": "RDP.of",
                 "warned": sorted(set(r["warned"])),
                 "detail": f"max rel. gap over the 100 orders {float(worst):.1e}, every upper end "
                           + ("above the reference" if above else "**BELOW the reference**")}
    peer = _peer("dp_accounting", "_compute_rdp_poisson_subsampled_gaussian (float)", p)
    if "value" in peer:
        peer["raw"] = p["out"][i]
        peer["value"] = float(p["out"][i])
        peer["detail"] = "max rel. error over the 100 orders " + format(float(max(
            abs(bc.mp.mpf(v) - x) / x for v, x in zip(p["out"], refs, strict=True))), ".1e")
    return _row(f"RDP of DP-SGD at 100 integer orders 2..101 (T = {T0}; least of 3 runs)",
                [ours], [peer], ref)


# (a point Value carries its dps digits: Value.interval widens it by one unit in the last)
_SHUF = ("v = ta.{what}(ta.ShuffleDP({eps0}, {n}), sp.Rational({arg!r}), dps=30)\n"
         "from tradeoff_algebra.numeric.context import mp\n"
         "with mp.workdps(60):\n"
         "    lo, hi = v.interval()\n"
         "    w = float((hi - lo) / hi)\n"
         "out = [float(lo), float(hi), v.route, v.guarantee, w]")


def row_shuffle_eps(quick: bool) -> dict:
    import bench_laplace as bl
    import bench_shuffle as bs

    r = bl.run(bl.OURS, _SHUF.format(what="epsilon", eps0=1, n=10**4, arg="1/1000000"))
    e = _ours("ta.epsilon, dps 30", r)
    ref = None
    if "lo" in e:
        mid = (e["lo"] + e["hi"]) / 2
        ends = [bs.sp_rat(mid * (1 - 1e-12)), bs.sp_rat(mid * (1 + 1e-12))]
        rr = bs._run(bs._REF.format(root=ROOT, eps0=1, n=10**4, xs=ends))
        if "error" in rr:
            ref = {"name": "the table of atoms", "error": rr["error"]}
        else:
            below, above = float(rr[0][0]), float(rr[1][1])
            ok = below > 1e-6 > above  # the table's delta at mid -/+ 1e-12 brackets 1e-6
            ref = {"name": f"the table of atoms in Arb (families/shuffle_pair.py): delta at our "
                           f"eps (1 -/+ 1e-12) = {below:.13e} / {above:.13e}"
                           + (", bracketing 1e-6" if ok else ", **NOT bracketing 1e-6**"),
                   "lo": mid * (1 - 1e-12) if ok else math.nan,
                   "hi": mid * (1 + 1e-12) if ok else math.nan, "kind": "certified",
                   "acc": 1e-12}
    return _row("ShuffleDP(eps0 = 1, n = 10^4), eps(1e-6)", [e], [], ref)


def shuffle_delta_ref(eps0: float, n: int, eps: float, sds: float = 40,
                      width: int = 600) -> float:
    """delta(eps) of the shuffle pair of Feldman, McMillan & Talwar in closed form
    (``families/shuffle.py``): sum over a, b >= 0, 1 <= s = a + b <= n of
    K(a, b) [(E b + a) - e^eps (E a + b)]_+, K = Binom(n, 2/(E+1))(s) Binom(s, 1/2)(a) / n,
    E = e^eps0, in float64 log space over the slices s within ``sds`` standard deviations of the
    mean and the ``width`` terms of each slice nearest the threshold b/a = (e^eps E - 1)/(E -
    e^eps) (the terms fall geometrically away from it; 600 drops 7e-6 of the sum at n = 10^6
    and delta ~ 1e-19, 3000 agrees with 6000 to 1e-9): an estimate, for 0 < eps < eps0."""
    import numpy as np
    from scipy.special import gammaln, logsumexp

    E, ee = math.exp(eps0), math.exp(eps)
    th = 2 / (E + 1)
    r = (ee * E - 1) / (E - ee)
    sd = math.sqrt(n * th * (1 - th))
    s = np.arange(max(1, int(n * th - sds * sd)), min(n, int(n * th + sds * sd + 2)) + 1)
    lbin = (gammaln(n + 1) - gammaln(s + 1) - gammaln(n - s + 1) + s * math.log(th)
            + (n - s) * math.log1p(-th))
    parts = []
    for si, lb in zip(s, lbin, strict=True):
        amax = int(si / (1 + r))  # b/a > r  <=>  a < s / (1 + r)
        a = np.arange(max(0, amax - width), amax + 1)
        b = si - a
        gain = (E * b + a) - ee * (E * a + b)
        a, b, gain = a[gain > 0], b[gain > 0], gain[gain > 0]
        if a.size:
            lk = (lb + gammaln(si + 1) - gammaln(a + 1) - gammaln(b + 1) - si * math.log(2)
                  - math.log(n))
            parts.append(logsumexp(lk + np.log(gain)))
    return float(math.exp(logsumexp(parts))) if parts else 0.0


def _row_shuffle_delta(eps0: int) -> dict:
    import bench_laplace as bl

    r = bl.run(bl.OURS, _SHUF.format(what="delta", eps0=eps0, n=10**5, arg="1"))
    t0 = time.process_time()
    v = shuffle_delta_ref(eps0, 10**5, 1.0)
    ref = {"name": "the closed-form pair summed in float64 log space over a window "
                   "(shuffle_delta_ref; an estimate)", "lo": v, "hi": v, "kind": "estimate",
           "acc": 1e-8, "t": time.process_time() - t0}
    return _row(f"ShuffleDP(eps0 = {eps0}, n = 10^5), delta(1)", [_ours("ta.delta, dps 30", r)],
                [], ref)


def row_shuffle_delta(quick: bool) -> dict:
    return _row_shuffle_delta(8)


def row_shuffle_delta_tail(quick: bool) -> dict:
    return _row_shuffle_delta(4)


def row_failure(quick: bool) -> dict:
    import bench_laplace as bl
    import bench_peers as bp

    ref = _ref("the remove direction under another cut (X + 3, sigma / 2), certified",
               bl.run(bl.OURS, bl.OTHER_CUT.format(d=1.1e-18)), "certified")
    ours = [_ours(f"tol {t}", bl.ours(FAIL, "11/10000000000000000000", t))
            for t in _tols(quick, ("5e-4", "1e-9"))]
    peers = [_peer("dp_accounting", "grid 1e-4 (default)",
                   bl.dpa(bp.sgd_event(0.00033, 4.0, 10**4), 1.1e-18)),
             _peer("prv_accountant", "eps_error 0.01",
                   bl.run(bp.PRV, bp.prv_body(0.00033, 4.0, 10**4, "eps", 1.1e-18)))]
    return _row("prv_accountant's failure case: DP-SGD q = 0.00033, sigma = 4, T = 10^4, "
                "eps(1.1e-18)", ours, peers, ref)


def row_cold(quick: bool) -> dict:
    import bench_laplace as bl

    ref = _ref("mpmath quadrature, 30 digits", bl.gl_quadrature("1", "1", "1/1000000"),
               "estimate", 1e-15)
    r = bl.run("", "import sympy as sp\nimport tradeoff_algebra as ta\n"
                   "with ta.pld_options(tol=1e-9):\n"
                   "    v = ta.epsilon(ta.G(1) @ ta.Laplace(1), sp.Rational(1, 10**6), dps=20)\n"
                   "out = [float(v.lo), float(v.hi), v.route, v.guarantee]")
    p = bl.run("", bl.DPA + "\nacc = pa.PLDAccountant()\n"
                   "acc.compose(dp_event.ComposedDpEvent([dp_event.GaussianDpEvent(1.0), "
                   "dp_event.LaplaceDpEvent(1.0)]))\nout = acc.get_epsilon(1e-6)")
    return _row("G(1) (x) Laplace(1), eps(1e-6) at tol 1e-9, the imports inside the timed call "
                "(scipy's first use included; memory above the bare interpreter)",
                [_ours("import + ta.epsilon", r)],
                [_peer("dp_accounting (for scale)", "import + PLDAccountant, grid 1e-4", p)], ref)


#: name -> (row, in the quick subset)
ROWS: dict[str, tuple[Callable[[bool], dict], bool]] = {
    "laplace_1000": (row_laplace_1000, True),
    "laplace_1e5": (row_laplace_1e5, True),
    "sampled_laplace": (row_sampled_laplace, True),
    "heterogeneous": (row_heterogeneous, False),
    "gl": (row_gl, True),
    "gl_weak": (row_gl_weak, False),
    "roc": (row_roc, False),
    "rdp": (row_rdp, True),
    "shuffle_eps": (row_shuffle_eps, True),
    "shuffle_delta": (row_shuffle_delta, True),
    "shuffle_delta_tail": (row_shuffle_delta_tail, False),
    "failure": (row_failure, True),
    "cold": (row_cold, True),
}


# -- running ----------------------------------------------------------------------------------
def run_row(name: str, quick: bool, timeout: float) -> dict:
    """The row in a process of its own (a new session, so that past ``timeout`` it is killed
    with every child it started); ``{"title": name, "error": ...}`` when it fails."""
    cmd = [sys.executable, os.path.abspath(__file__), "--row", name] + (["--quick"] if quick
                                                                        else [])
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=HERE,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return {"title": name, "error": f"row stopped at its time limit of {timeout:g} s"}
    if p.returncode != 0:
        return {"title": name, "error": (err.strip().splitlines() or ["?"])[-1][:200]}
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"title": name, "error": "no result"}


def _num(x: float | None, digits: int = 12) -> str:
    return "-" if x is None else f"{x:.{digits}g}"


def _value(e: dict) -> str:
    if "error" in e:
        return f"error: {e['error']}"
    return f"[{_num(e['lo'])}, {_num(e['hi'])}]"


def width(e: dict) -> float | None:
    """The relative width of our enclosure (the child's where it gave one)."""
    if "lo" not in e:
        return None
    if "width" in e:
        return e["width"]
    return (e["hi"] - e["lo"]) / abs(e["hi"]) if e["hi"] else None


def _width(e: dict) -> str:
    if "lo" not in e:
        return "-"
    if "width" in e:
        return f"{e['width']:.1e}"
    if e["hi"] == e["lo"]:
        return "< 1e-16"
    return f"{(e['hi'] - e['lo']) / abs(e['hi']):.1e}" if e["hi"] else "-"


def _t(e: dict) -> str:
    return "-" if "t" not in e else f"{e['t']:.2f} s"


def _m(e: dict) -> str:
    return "-" if e.get("mem") is None else f"{e['mem']:.0f} MiB"


def _pval(p: dict) -> str:
    if "error" in p:
        return f"error: {p['error'][:90]}"
    o = p["raw"]
    if isinstance(o, list) and len(o) == 3:
        return f"{o[1]:.10g} in [{o[0]:.10g}, {o[2]:.10g}]"
    return _num(p.get("value"), 10)


def ratio(row: dict) -> str:
    """Our headline CPU time over the best peer's (the first one listed)."""
    if not row.get("peers"):
        return "no peer"
    e, p = row["ours"][row["head"]], row["peers"][0]
    if "t" not in e:
        return "-"
    if "error" in p or p.get("value") is None or not math.isfinite(p["value"]):
        return "peer fails"
    return f"{e['t'] / p['t']:.2f}" if p["t"] > 0 else "-"


def render(R: Report, rows: list[dict]) -> None:
    R.out("## Summary")
    R.out()
    R.out("| workload | ours | guarantee | rel. width | CPU | memory | best peer | its CPU | "
          "its memory | check | ours/peer |")
    R.out("|---|---|---|---|---|---|---|---|---|---|---|")
    behind = []
    for row in rows:
        if "error" in row:
            R.out(f"| {row['title']} | error: {row['error']} | | | | | | | | | |")
            continue
        e = row["ours"][row["head"]]
        p = row["peers"][0] if row["peers"] else None
        rt = ratio(row)
        R.out(f"| {row['title']} ({e['setting']}) | {_value(e)} | {e.get('guarantee', '-')} | "
              f"{_width(e)} | {_t(e)} | {_m(e)} | "
              + (f"{p['who']}: {_pval(p)} | {_t(p)} | {_m(p)}" if p else "- | - | -")
              + f" | {check(e, row['ref'])} | {rt} |")
        try:
            if float(rt) > 1:
                behind.append(f"{row['title']}: {rt} times {p['who']}'s CPU time")
        except ValueError:
            pass
        w, tol = width(e), row.get("tol")
        if tol is None and e["setting"].startswith("tol "):  # the tolerance the call set
            tol = float(e["setting"].split()[1])
        if tol and w is not None and w > tol:
            behind.append(f"{row['title']}: relative width {w:.1e} above the tolerance "
                          f"{tol:g} asked")
        if "lo" in e and e.get("guarantee") not in ("certified", "certified upper ends"):
            behind.append(f"{row['title']}: {e.get('guarantee')}, not certified")
    R.out()
    R.out("Rows still behind (CPU time beside the best peer, width beside the tolerance "
          "asked, guarantee): "
          + ("; ".join(behind) if behind else "none") + ".")
    for row in rows:
        R.out()
        R.out(f"## {row['title']}")
        R.out()
        if "error" in row:
            R.out(f"error: {row['error']}")
            continue
        ref = row["ref"]
        if ref is None:
            R.out("Reference: none.")
        elif "error" in ref:
            R.out(f"Reference ({ref['name']}): error: {ref['error']}")
        else:
            tr = "" if ref.get("t") is None else f", {ref['t']:.2f} s"
            R.out(f"Reference ({ref['name']}): [{_num(ref['lo'], 14)}, {_num(ref['hi'], 14)}]"
                  f"{tr}")
        if row.get("note"):
            R.out()
            R.out(f"Note: {row['note']}.")
        R.out()
        R.out("| who | setting | value | rel. width | guarantee / route | warnings | CPU | memory "
              "| check |")
        R.out("|---|---|---|---|---|---|---|---|---|")
        for e in row["ours"]:
            gr = "-" if "lo" not in e else f"{e.get('guarantee', '-')} / {e.get('route', '-')}"
            R.out(f"| ours | {e['setting']} | {_value(e)} | {_width(e)} | {gr} | "
                  f"{', '.join(e.get('warned', [])) or 'none'} | {_t(e)} | {_m(e)} | "
                  f"{check(e, ref)}{'; ' + e['detail'] if e.get('detail') else ''} |")
        for p in row["peers"]:
            err = ""
            if ref and "lo" in ref and p.get("value") is not None and math.isfinite(p["value"]):
                # against the reference, or against our headline enclosure where the reference
                # is a wide bracket
                e = row["ours"][row["head"]]
                against = "ours" if ref["kind"] == "bracket" and "lo" in e else "the reference"
                src = e if against == "ours" else ref
                mid = (src["lo"] + src["hi"]) / 2
                err = f"error {abs(p['value'] - mid) / abs(mid):.1e} against {against}"
            if p.get("detail"):
                err = p["detail"]
            R.out(f"| {p['who']} | {p['setting']} | {_pval(p)} | - | estimate | - | {_t(p)} | "
                  f"{_m(p)} | {err or '-'} |")


def scaling_exponents(R: Report, path: str = os.path.join(HERE, "RESULTS_scaling.md")) -> None:
    """The table of fitted exponents of the latest ``bench_scaling.py`` run, with its run line
    (not measured here: copied from ``path``)."""
    try:
        with open(path) as fh:
            text = fh.read().splitlines()
    except OSError:
        return
    if "## Fitted exponents" not in text:
        return
    i = text.index("## Fitted exponents")
    when = next((line for line in text if line[:4].isdigit()), "").split(";")[0]
    R.out()
    R.out("## Fitted exponents of CPU time (from RESULTS_scaling.md, `bench_scaling.py`: "
          f"{when})")
    for line in text[i + 1:]:
        if line.startswith("## "):
            break
        R.out(line)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="the quick subset, one tolerance each")
    ap.add_argument("--only", nargs="*", default=None, metavar="NAME", help=f"rows: {list(ROWS)}")
    ap.add_argument("--timeout", type=float, default=180, help="seconds per row (default 180)")
    ap.add_argument("--row", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--write", default=None)
    a = ap.parse_args()
    sys.path.insert(0, HERE)
    if a.row:  # one row, in its own process: its JSON on the last line
        print(json.dumps(ROWS[a.row][0](a.quick) | {"name": a.row}))
        return
    names = a.only if a.only is not None else [n for n, (_, q) in ROWS.items() if q or not a.quick]
    for n in names:
        if n not in ROWS:
            ap.error(f"--only: unknown row {n!r}; rows: {', '.join(ROWS)}")
    R = Report()
    R.out("# Issue 29: every workload beside the best peer (fresh processes)")
    R.out()
    cmd = "python benchmarks/bench_issue29.py" + (" --quick" if a.quick else "") + (
        f" --only {' '.join(names)}" if a.only is not None else "")
    R.out(run_line(cmd, ("dp-accounting", "prv-accountant", "riskcal", "numpy", "scipy",
                         "python-flint")))
    R.out()
    R.out("CPU times (`time.process_time` of the child) exclude the imports (scipy's included, "
          "which the library loads at first use), except the last row's; memory is the peak "
          "resident size above the imports. Ours is a certified enclosure [lo, hi] (the guarantee "
          "and route as the Value reports them); the peers' numbers are estimates "
          "(dp_accounting's PLD is pessimistic at its grid, prv_accountant gives [lower, "
          "estimate, upper], riskcal's curve is a grid estimate). Each row ran once, in a "
          f"process of its own with a limit of {a.timeout:g} s, on a shared machine (see the "
          "load): treat single times as +-30 %.")
    R.out()
    t0 = time.perf_counter()
    rows = []
    for n in names:
        t = time.perf_counter()
        rows.append(run_row(n, a.quick, a.timeout))
        print(f"[{n}: {time.perf_counter() - t:.0f} s]", file=sys.stderr, flush=True)
    render(R, rows)
    R.out()
    R.out(f"Whole run: {time.perf_counter() - t0:.0f} s wall.")
    scaling_exponents(R)
    R.write(a.write)


if __name__ == "__main__":
    main()
