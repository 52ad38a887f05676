"""Atoms next to continuous factors: eps(delta) of products of f_{eps,delta} / randomized
response / BinomialDP / the discrete Laplace with G_mu or L_mu, certified by the Laplace
inversion with the atom laws of numeric/cf_atoms.py (or, next to one L_mu, the exact sum of
numeric/cf_atom_sum.py), beside dp_accounting's PLD of the same product
(``from_privacy_parameters`` / ``from_discrete_laplace_mechanism`` composed with
``from_gaussian_mechanism`` / ``from_laplace_mechanism``, value discretisation 1e-4,
pessimistic). Every call runs in a fresh process (``_report.child_json``), imports excluded from
the CPU times.

The reference column is computed here by another route: the exact sum over the atoms of the
continuous factor's closed-form profile at 40 digits in mpmath, delta(eps) = D + sum_i q_i
delta_B(eps - l_i) (Gaussian: Phi(-x/mu + mu/2) - e^x Phi(-x/mu - mu/2); Laplace: 1 -
e^{(x - mu)/2} on [-mu, mu], 1 - e^x below), the binomial masses by their ratio recurrence,
for k = 10^6 over the window of atoms l_i >= eps - 60 (the rest below Phi(-59.5) each) up to a
geometric tail bound; "proved" says that it puts delta_ref(lo) >= delta >= delta_ref(hi) at our
two ends, and its eps is the root of the reference by secant steps.

The second table measures the alternative the atoms could have taken for G_mu: the same sum in
Arb (the binomial masses by recurrence, delta_G by erfc, the atoms with l > eps - 40 only, no
tail bound: a lower bound of its cost) against the inversion's delta(eps), in this process.

    python benchmarks/bench_atoms.py [--write benchmarks/RESULTS_atoms.md]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from _report import Report, child_json, run_line, timed_prelude

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

_PRELUDE = timed_prelude("cpu", caught=True)

OURS = "import sympy as sp\nimport tradeoff_algebra as ta"
DPA = ("from dp_accounting.pld import privacy_loss_distribution as pld\n"
       "from dp_accounting.pld.common import DifferentialPrivacyParameters as DPP")

#: (label, our expression, delta, dp_accounting's PLD with its value discretisation {g},
#: the grid, (atoms spec, continuous factor)); atoms spec: ("rr", eps0, k, d, n) =
#: f_{eps0,0}^{(x) k} with the f_{0,d} parts of n factors; the factor: ("G", mu) or ("L", mu).
#: For k = 10^6 dp_accounting runs at grid 1e-2: at 1e-4 its composed PLD (about 10^8 points)
#: took more than 11 GB of memory and was stopped.
_G = "pld.from_gaussian_mechanism(1.0, value_discretization_interval={g})"
_L = "pld.from_laplace_mechanism(1.0, value_discretization_interval={g})"


def _pp(eps: float, d: float, n: int) -> str:
    return (f"pld.from_privacy_parameters(DPP({eps}, {d}), value_discretization_interval={{g}})"
            f".self_compose({n})")


CASES = [
    ("f_{1,0}^100 (x) G_1", "ta.EpsDelta(1, 0)**100 @ ta.G(1)", "1e-5",
     _pp(1.0, 0.0, 100) + f".compose({_G})", 1e-4, (("rr", 1, 100, 0, 0), ("G", 1))),
    ("f_{1/2,1e-7}^100 (x) L_1", "ta.EpsDelta(sp.Rational(1, 2), sp.Rational(1, 10**7))**100"
     " @ ta.Laplace(1)", "1e-4", _pp(0.5, 1e-7, 100) + f".compose({_L})", 1e-4,
     (("rr", 0.5, 100, 1e-7, 100), ("L", 1))),
    ("f_{1/10,0}^(10^4) (x) G_1", "ta.EpsDelta(sp.Rational(1, 10), 0)**10**4 @ ta.G(1)", "1e-5",
     _pp(0.1, 0.0, 10**4) + f".compose({_G})", 1e-4, (("rr", 0.1, 10**4, 0, 0), ("G", 1))),
    ("f_{1/10,0}^(10^4) (x) L_1", "ta.EpsDelta(sp.Rational(1, 10), 0)**10**4 @ ta.Laplace(1)",
     "1e-5", _pp(0.1, 0.0, 10**4) + f".compose({_L})", 1e-4,
     (("rr", 0.1, 10**4, 0, 0), ("L", 1))),
    ("f_{1/10,0}^(10^6) (x) G_1", "ta.EpsDelta(sp.Rational(1, 10), 0)**10**6 @ ta.G(1)", "1e-5",
     _pp(0.1, 0.0, 10**6) + f".compose({_G})", 1e-2, (("rr", 0.1, 10**6, 0, 0), ("G", 1))),
    ("f_{1/10,0}^(10^6) (x) L_1", "ta.EpsDelta(sp.Rational(1, 10), 0)**10**6 @ ta.Laplace(1)",
     "1e-5", _pp(0.1, 0.0, 10**6) + f".compose({_L})", 1e-2,
     (("rr", 0.1, 10**6, 0, 0), ("L", 1))),
    ("DiscreteLaplace(1, 1/2) (x) G_1", "ta.DiscreteLaplace(1, sp.Rational(1, 2)) @ ta.G(1)",
     "1e-6", "pld.from_discrete_laplace_mechanism(2.0, sensitivity=1, "
     "value_discretization_interval={g})" + f".compose({_G})", 1e-4,
     (("rr", 2, 1, 0, 0), ("G", 1))),
]


def _indent(body: str) -> str:
    return "\n".join("    " + line for line in body.splitlines())


def run(imports: str, body: str, timeout: int = 900) -> dict:
    return child_json(_PRELUDE.format(root=ROOT, imports=imports, body=_indent(body)), timeout)


def ours(expr: str, delta: str, tol: str) -> dict:
    return run(OURS, f"f = {expr}\nwith ta.pld_options(tol={tol}):\n"
                     f"    v = ta.epsilon(f, sp.Rational({delta!r}), dps=20)\n"
                     "out = [str(v.lo), str(v.hi), v.route, v.guarantee]")


def dpa(event: str, delta: str, grid: float) -> dict:
    return run(DPA, f"p = {event.format(g=grid)}\nout = p.get_epsilon_for_delta({delta})")


# -- the reference: the exact sum over the atoms (mpmath, 40 digits) ---------------------------
def _reference(spec, mp):
    (kind, e0, k, d, n), (fam, mu) = spec
    e0, mu = mp.mpf(e0), mp.mpf(mu)
    w = mp.exp(e0) / (1 + mp.exp(e0))
    keep = (1 - mp.mpf(d)) ** n if d else mp.one

    def delta_b(x):
        if fam == "G":
            return mp.ncdf(-x / mu + mu / 2) - mp.exp(x) * mp.ncdf(-x / mu - mu / 2)
        if x >= mu:
            return mp.zero
        return -mp.expm1((x - mu) / 2) if x >= -mu else -mp.expm1(x)

    def mass(K):
        return mp.exp(mp.loggamma(k + 1) - mp.loggamma(K + 1) - mp.loggamma(k - K + 1)
                      + K * mp.log(w) + (k - K) * mp.log(1 - w))

    def delta(eps):
        eps = mp.mpf(eps)
        reach = 60 if fam == "G" else float(mu)  # below eps - reach: at most Phi(-59.5) / 0
        K = max(0, int(mp.floor(((eps - reach) / e0 + k) / 2)))
        q, s = mass(K), mp.zero
        while K <= k:
            s += q * delta_b(eps - e0 * (2 * K - k))
            ratio = (k - K) / mp.mpf(K + 1) * w / (1 - w)
            if ratio < 1 and q * ratio / (1 - ratio) < s * mp.mpf(10) ** -45:
                # past the mode the ratios decrease: the rest is below the geometric series
                s += q * ratio / (1 - ratio)  # (added: the upper side, 1e-45 relative)
                break
            q *= ratio
            K += 1
        return 1 - keep + keep * s

    return delta


def reference_eps(spec, delta, lo, hi):
    """(proved, eps_ref): delta_ref(lo) >= delta >= delta_ref(hi), and the reference's root by
    secant steps in log delta from the two ends."""
    from tradeoff_algebra.numeric.context import mp

    with mp.workdps(40):
        ref = _reference(spec, mp)
        d = mp.mpf(delta)
        a, b = mp.mpf(lo), mp.mpf(hi)
        fa, fb = ref(a), ref(b)
        proved = bool(fa >= d >= fb)
        a, b = a - (b - a), b + (b - a)
        fa, fb = mp.log(ref(a)) - mp.log(d), mp.log(ref(b)) - mp.log(d)
        for _ in range(8):
            if fb == fa:
                break
            c = b - fb * (b - a) / (fb - fa)
            a, fa, b, fb = b, fb, c, mp.log(ref(c)) - mp.log(d)
            if abs(b - a) < mp.mpf(10) ** -15 * abs(b):
                break
        return proved, float(b)


# -- the alternative for G_mu: the same sum in Arb, timed ------------------------------------
def arb_sum_time(e0, k, mu, eps) -> tuple[float, float]:
    """(CPU seconds, value) of sum_K q_K delta_G(eps - l_K) in Arb at 128 bits over the atoms
    with l_K > eps - 40 (masses by recurrence from (1 - w)^k)."""
    from flint import arb, ctx

    ctx.prec = 128 + 2 * k.bit_length()
    t0 = time.process_time()
    e, m, x0 = arb(e0), arb(mu), arb(eps)
    w = e.exp() / (1 + e.exp())
    K0 = max(0, int(((eps - 40) / e0 + k) / 2))
    logq = (arb(k + 1).lgamma() - arb(K0 + 1).lgamma() - arb(k - K0 + 1).lgamma()
            + K0 * w.log() + (k - K0) * (1 - w).log())
    q, s, r = logq.exp(), arb(0), w / (1 - w)
    s2 = arb(2).sqrt()
    for K in range(K0, k + 1):
        x = x0 - e * (2 * K - k)
        a, b = -x / m + m / 2, -x / m - m / 2
        s += q * ((-a / s2).erfc() / 2 - x.exp() * (-b / s2).erfc() / 2)
        q = q * (k - K) / (K + 1) * r
        if K > K0 + 40 and float(q.mid()) < 1e-40 * float(s.mid()):
            break
    ctx.prec = 53
    return time.process_time() - t0, float(s.mid())


def inversion_delta_time(expr: str, eps: float) -> tuple[float, float]:
    import sympy as sp

    import tradeoff_algebra as ta

    f = eval(expr, {"ta": ta, "sp": sp})  # noqa: S307 - the table's own expressions
    t0 = time.process_time()
    with ta.pld_options(tol=1e-9):
        v = ta.delta(f, sp.Float(eps), dps=20)
    return time.process_time() - t0, float(v.mid)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", default=None)
    args = ap.parse_args()
    rep = Report()
    rep.out("# Atoms next to continuous factors: certified, beside dp_accounting\n")
    rep.out(run_line("python benchmarks/bench_atoms.py --write benchmarks/RESULTS_atoms.md",
                     ("python-flint", "mpmath", "dp-accounting")) + "\n")
    rep.out("eps(delta), CPU seconds in a fresh process (imports excluded). Ours at tol 1e-9 "
            "(relative width, certified); dp_accounting's PLD at value discretisation 1e-4 "
            "(1e-2 for k = 10^6, where 1e-4 took more than 11 GB and was stopped; pessimistic: "
            "an upper estimate, no guarantee stated). Reference: the exact sum "
            "over the atoms at 40 digits (module docstring); \"proved\": delta_ref(lo) >= "
            "delta >= delta_ref(hi).\n")
    rep.out("| product | delta | ours [lo, hi] | rel. width | guarantee, route | ours s | "
            "dp_accounting eps | dp_acc. s | reference eps | proved |")
    rep.out("|---|---|---|---|---|---|---|---|---|---|")
    for label, expr, delta, event, grid, spec in CASES:
        o = ours(expr, delta, "1e-9")
        p = dpa(event, delta, grid)
        if "error" in o:
            rep.out(f"| {label} | {delta} | {o['error']} | | | | | | | |")
            continue
        lo, hi, route, guar = o["out"]
        rel = (float(hi) - float(lo)) / float(hi)
        proved, e_ref = reference_eps(spec, delta, lo, hi)
        pe = f"{p['out']:.6f}" if "out" in p else p.get("error", "?")
        pe += "" if grid == 1e-4 else f" (grid {grid:g})"
        pt = f"{p['t']:.2f}" if "t" in p else ""
        warn = " (warned)" if o.get("warned") else ""
        rep.out(f"| {label} | {delta} | [{float(lo):.10f}, {float(hi):.10f}] | {rel:.1e} | "
                f"{guar}, {route}{warn} | {o['t']:.2f} | {pe} | {pt} | {e_ref:.10f} | "
                f"{'yes' if proved else 'NO'} |")
    rep.out("\n## The alternative for G_mu: the sum over the atoms in Arb\n")
    rep.out("delta(eps) of f_{e0,0}^(k) (x) G_1 at eps near eps(1e-5) and at eps near the mean "
            "loss (the bulk): the sum in Arb (atoms with l > eps - 40 until the masses fall "
            "below 1e-40 of the sum, no tail bound: a lower bound of its cost) against the "
            "inversion (tol 1e-9), CPU seconds in this process.\n")
    rep.out("| k | e0 | eps | Arb sum s | inversion s | relative difference |")
    rep.out("|---|---|---|---|---|---|")
    g4 = "ta.EpsDelta(sp.Rational(1, 10), 0)**10**4 @ ta.G(1)"
    g6 = "ta.EpsDelta(sp.Rational(1, 10), 0)**10**6 @ ta.G(1)"
    for e0, k, eps, expr in ((1.0, 100, 80.0, "ta.EpsDelta(1, 0)**100 @ ta.G(1)"),
                             (1.0, 100, 20.0, "ta.EpsDelta(1, 0)**100 @ ta.G(1)"),
                             (0.1, 10**4, 92.0, g4), (0.1, 10**4, 50.0, g4),
                             (0.1, 10**6, 5421.0, g6), (0.1, 10**6, 5000.0, g6)):
        ts, vs = arb_sum_time(e0, k, 1.0, eps)
        ti, vi = inversion_delta_time(expr, eps)
        rep.out(f"| {k} | {e0} | {eps} | {ts:.3f} | {ti:.3f} | {abs(vs - vi) / vi:.1e} |")
    rep.write(args.write)


if __name__ == "__main__":
    main()
