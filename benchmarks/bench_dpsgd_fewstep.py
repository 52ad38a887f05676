"""DP-SGD with few steps (add/remove, Poisson sampling) beside dp_accounting: eps(1e-5) and
delta(eps) of AddRemove(Mix(G_{1/sigma}, q)^{(x) T}) under ``pld_options(tol=1e-9)``, each call in
a fresh process (imports excluded from the times): CPU time, peak memory above the imports, ours
as a certified [lo, hi] with its route and any warning, dp_accounting's PLDAccountant at its
default discretisation (1e-4) beside; and the power 1 - f(alpha) at T = 1, 2 beside the former
path (the PLD engine) and riskcal.

Each of our certified results for T <= 2 is checked against a reference computed here at 30
digits by mpmath (tests/references/sampled_gaussian.py: one step from the half-line of the
monotone likelihood ratio in ncdf, two steps by quadrature of it over the first step): "ok"
when the reference's delta, the larger of the two directions, is above the level at our lower
end of eps and at or below it at our upper end (for delta(eps): the reference inside our ball).
For T > 2 the row says which route answered and the reference is dp_accounting's value.

    python benchmarks/bench_dpsgd_fewstep.py [--quick | --fewstep | --scaling]
        [--write benchmarks/RESULTS_dpsgd_fewstep.md]

``--cpu-rows [--before CHECKOUT]``: the default tolerance's CPU of the sigma = 4 and 2 rows,
best of 3 fresh processes each, beside dp_accounting and (``--before``) the same call imported
from another checkout; its section is put at the top of the ``--write`` file.

``--scaling`` runs the DP-SGD series of benchmarks/bench_scaling.py alone (eps(1e-5), sigma =
1.1, T = 10 .. 10^7, and its table against the tolerance at T = 14063), with that script's
functions, and prints the section of RESULTS_scaling.md it replaces.
"""

from __future__ import annotations

import argparse
import os

from _report import Report, child_json, run_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_PRELUDE = r"""
import json, math, resource, sys, time, warnings
sys.path.insert(0, {root!r})
sys.path.insert(0, {tests!r})
{imports}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
{body}
t = time.process_time() - t0
mem = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
warned = [type(w.message).__name__ for w in caught]
print(json.dumps(dict(out=out, t=t, mem=mem, warned=warned)))
"""

OURS = "import sympy as sp\nimport tradeoff_algebra as ta\nimport scipy.special, scipy.fft"
DPA = ("from dp_accounting import dp_event\n"
       "from dp_accounting.pld import pld_privacy_accountant as pa")
REF = ("from references.sampled_gaussian import sampled_gaussian_delta_halfline as one, "
       "sampled_gaussian_delta_two as two\nfrom tradeoff_algebra.numeric.context import mp")


NOTE = """Notes. T = 1 and T = 2 are answered by the Arb profile of the power
(families/gaussian_sampled_profile.py: one step a closed form in Phi, two steps a certified
one-dimensional integral of it), both directions, delta and eps; their power and values by the
hull's band from certified Neyman-Pearson points (families/gaussian_sampled_tails.py). One step
far in the tail: the closed form in Phi holds there (Arb's erfc has no underflow), and eps(delta)
is certified down to delta = 1e-300 (formerly [8, oo] with a warning below about 1e-162, where
the search's geometric mean of the level underflowed); dp_accounting gives inf at 1e-300.
From T = 3 on the certified Laplace inversion answers (its contour below the saddle point,
numeric/cf.py, scan_contour). For few steps |M(c + it)|^T falls below the tolerance only at
t ~ 10^3 to 10^4 (the loss's characteristic function decays like a log-normal's), so the flat
view (families/gaussian_sampled_poly.py) evaluates M(c + it) from about 12 to 20 Chebyshev
pieces of the tilted loss density, each piece's transform a closed form with a Bernstein-ellipse
error bound, about 0.1 to 0.2 ms a node whatever t; numeric/cf_flat.py takes the view where its
estimated time is the smaller (T <= 100 here). The eps search locates eps on a first grid (at a
relative width 1e-3 of delta) and plans the next at the level itself.

This run's changes (issue 29, T = 3 to 100 at the default tolerance; profiled in fresh
processes with cProfile, construction included): (1) the eps search is seeded by the law's own
float estimate (families/gaussian_sampled_seed.py, ``float_epsilon``: one step's loss density
by the midpoint rule on a grid of 2^14 cells, composed by one real FFT, both directions; eps
within 1e-7 to 2e-4 of the certified value, 1 to 11 ms, where the saddle-point guess was up to
a factor 5 off) and by its slope -d log delta / d eps (4 to 7 times the contour abscissa c the
search took for it): the one grid is planned at the level itself and at the width that slope
asks (numeric/cf_epsilon.seeded_width), no locating grid; the flat view's short path
(numeric/cf_flat.flat_enclosure) answers every seeded search of at most 1000 steps, so the
law's own plan at REL_FLOOR (1e-10) is no longer taken at the default tolerance (sigma = 2 and
4, T = 100 took 0.14 s for a 1e-11 wide answer); (2) the Chebyshev model at the search's own
precision (MODEL_FLOOR 64, was 80 for a locating grid and a level grid to share it), 24 boxes
on each Bernstein ellipse (64; 96 where a piece misses its target at the largest degree): sigma
= 4, T = 10, 8 pieces of 256 degrees in all -> 5 of 168, the model 0.015 -> 0.007 s; (3) a flat
view's plan at 0.6 of the saddle point with at most 400 nodes kept without the neighbouring
trials. Default tolerance, before -> this table (load about 10): sigma = 1.1, T = 3 / 10 / 30 /
100: 0.50 / 0.18 / 0.11 / 0.19 s -> 0.24 / 0.16 / 0.08 / 0.06 s (dp_accounting 0.24 to 0.28 s);
sigma = 2: 0.14 / 0.065 / 0.071 / 0.135 s -> 0.076 / 0.053 / 0.042 / 0.036 s (0.04 to 0.055 s);
sigma = 4: 0.055 / 0.045 / 0.058 / 0.136 s -> 0.040 / 0.034 / 0.033 / 0.046 s (0.013 to 0.014
s). sigma = 1.1 is at or below dp_accounting at every T, sigma = 2 at T = 100 and about even at
T = 30, sigma = 4 is not met (what remains at T = 10, about 0.031 s: one plan 0.011 s, the
model 0.007 s, 60 nodes 0.006 s, the add direction's certified Chernoff bound about 0.005 s,
the Arb tilts at real arguments 0.002 s, the seed 0.0015 s). The widths are about 9e-5 (the
route asks 1.25e-4 of the tolerance 5e-4); at tol 1e-9 the seeded path serves too (sigma = 1.1,
T = 10: 0.65 -> 0.25 s; T = 100: 0.27 -> 0.08 s).

The changes of an earlier run for T = 3 to 30 (profiled in fresh processes, sigma = 2 and 4 at
the default tolerance: about half the time was planning, a quarter building the pieces twice, a
quarter the nodes): the two grids of the search share one contour abscissa and one model of the
tilted density (an abscissa already modelled is preferred, charged its model's time less, and a
model built for at least 80 bits serves both grids; the cache is keyed by the exact abscissa,
no longer by its decimal string), the planner's strip search asks log M(c) at its 98 abscissas
in one vectorised call, the decay bound's theta comes from two vectorised grids (was eight
golden-section steps), the planner's power decay is a float model of the certified bound (was
the Arb branch and bound itself, at every abscissa), and the pieces' moments are arb_poly
integrals. Spot checks (same machine, loaded): sigma = 4, T = 3 / 10 / 30: 0.27 / 0.25 / 0.14 s
-> 0.11 / 0.10 / 0.09 s; sigma = 2: 0.38 / 0.29 / 0.16 s -> 0.20 / 0.13 / 0.11 s.
dp_accounting's default grid still answers these in 0.013 to 0.04 s (uncertified): the goal of
its time is not met; what remains is about 0.04 s of planning (five plans of a few abscissas
each: the law's own, for the route's choice, and the flat view's), 0.02 to 0.03 s for the one
model and 0.02 to 0.08 s of nodes. A re-plan of a flat view may now take the view's own cap of
nodes (was 3 times the first plan's work, which rests on a saddle-point estimate of delta a
factor 100 off for few steps): delta(1/2) at T = 10 (about 1.2e-9) is certified to 3e-13 in
about 1.4 s (was 3.8e-7 wide with a ToleranceWarning). sigma = 0.8, T = 3 at tol 1e-9 is still
1e-7 wide with a ToleranceWarning in about 12 s (its plan at 1e-10 needs ~50 000 nodes, beyond
the 30 000 allowed: not solved here). Every interval meets dp_accounting's
optimistic/pessimistic bracket at grid 1e-5.

This run's changes (profiled in fresh processes, CPU by process_time, imports excluded; sigma = 4,
T = 10, eps(1e-5) at the default tolerance took 0.094 s: 0.036 s in five plans, of which 0.02 s
was the route's trial of the law's own work at 1e-10 and 0.012 s the law's and the view's plans at
the width asked; 0.024 s building the Chebyshev model, 0.008 s the nodes below |t| = 100 by the
law's own quadrature, 0.007 s the other nodes; two grids): (1) one power of a law with a flat view
whose own plan is beyond its cap is answered by the view at once (numeric/cf_flat.flat_enclosure:
the route's width and view decided by the eps search's own first plan, kept and inverted next);
(2) the search's first grid is planned at the width asked where that plan has at most 1.5 times
the nodes of the locating one (so one grid usually answers); (3) every t != 0 takes the model's
pieces (their power series serve small t; was the law's quadrature below |t| = 100); (4) the
interpolants by flint's Newton interpolation and the pieces' moments by one polynomial product
(the model 0.024 -> 0.016 s); (5) the view's cost estimates follow mu (the model 0.016 s at sigma
= 4, 0.05 s at 0.8; was 0.4 s for all), so the view is taken where its time is the smaller (sigma
= 4, T = 30: the law's own quadrature took 0.05 s of nodes); (6) an inverter's whole grid at once
(SampledGaussianPolyLaw.mgf_grid, asked by numeric/cf._Inverter: multipoint evaluation of the
pieces' polynomials' real and imaginary parts on the imaginary axis, their series in 1/(it) cut
with a proved bound per octave of t, the phases by recurrence, about half a single node's time).
sigma = 0.8, T = 3 at tol 1e-9 is now certified to about 1.5e-10 without a warning (its plan at
the level has about 92 000 nodes: the grid evaluation makes them affordable)."""


def _num(x, digits: int) -> str:
    """A measured time or memory, or '-' where the run gave none (an error, a time limit)."""
    return "-" if x is None else f"{x:.{digits}f}"

def _indent(body: str) -> str:
    return "\n".join("    " + line for line in body.splitlines())


def run(imports: str, body: str, timeout: int = 300) -> dict:
    code = _PRELUDE.format(root=ROOT, tests=os.path.join(ROOT, "tests"), imports=imports,
                           body=_indent(body))
    return child_json(code, timeout)


def expr(sigma: str, q: str, T: int) -> str:
    return (f"ta.noisy_sgd(sp.Rational({sigma!r}), sp.Rational({q!r}), {T})")


def ours_eps(sigma: str, q: str, T: int, delta: str = "1/100000") -> dict:
    return run(OURS, f"f = {expr(sigma, q, T)}\n"
                     "with ta.pld_options(tol=1e-9), ta.time_limit(60):\n"
                     f"    v = ta.epsilon(f, sp.Rational({delta!r}), dps=20)\n"
                     "out = [float(v.lo), float(v.hi), v.route, v.guarantee]")


def ours_eps_tol(sigma: str, q: str, T: int, tol: str, limit: int = 30) -> dict:
    """eps(1e-5) under ``pld_options(tol=tol)`` (None: the default) and a time limit."""
    opts = "ta.pld_options()" if tol is None else f"ta.pld_options(tol={tol})"
    return run(OURS, f"f = {expr(sigma, q, T)}\n"
                     f"with {opts}, ta.time_limit({limit}):\n"
                     "    v = ta.epsilon(f, sp.Rational(1, 100000), dps=20)\n"
                     "out = [float(v.lo), float(v.hi), v.route, v.guarantee]")


def dpa_pair_eps(sigma: str, q: str, T: int, grid: float = 1e-5) -> dict:
    """dp_accounting's optimistic and pessimistic PLD at ``grid``: eps(1e-5) of each (float64,
    not proved; the certified interval should meet [optimistic, pessimistic])."""
    body = ("out = []\n"
            "for pess in (False, True):\n"
            f"    p = pld.from_gaussian_mechanism(float(eval({sigma!r})), "
            "pessimistic_estimate=pess,\n"
            f"        sampling_prob=float(eval({q!r})), value_discretization_interval={grid},\n"
            "        use_connect_dots=pess)\n"
            f"    out.append(p.self_compose({T}).get_epsilon_for_delta(1e-5) if {T} > 1 "
            "else p.get_epsilon_for_delta(1e-5))\n")
    return run("from dp_accounting.pld import privacy_loss_distribution as pld", body,
               timeout=600)


def ours_delta(sigma: str, q: str, T: int, eps: str) -> dict:
    return run(OURS, f"f = {expr(sigma, q, T)}\n"
                     "with ta.pld_options(tol=1e-9), ta.time_limit(60):\n"
                     f"    v = ta.delta(f, sp.Rational({eps!r}), dps=20)\n"
                     "out = [float(v.lo), float(v.hi), v.route, v.guarantee]")


def dpa_eps(sigma: str, q: str, T: int, delta: float = 1e-5) -> dict:
    ev = (f"dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(float(eval({q!r})), "
          f"dp_event.GaussianDpEvent(float(eval({sigma!r})))), {T})")
    return run(DPA, f"acc = pa.PLDAccountant()\nacc.compose({ev})\nout = acc.get_epsilon({delta})")


#: the 60-digit references of one step's far tail (quadrature, not the closed form)
TAIL_REF = "from test_dpsgd_far_tail import ONE_STEP_EPS"


def ours_tail_eps(k: int) -> dict:
    """eps(10^-k) of one step, AddRemove(Mix(G_1, 1/10)) (exact level), and whether the
    60-digit reference of tests/test_dpsgd_far_tail.py lies inside."""
    return run(OURS + "\n" + TAIL_REF + "\nfrom tradeoff_algebra.numeric.context import mp",
               "f = ta.AddRemove(ta.Mix(ta.G(1), sp.Rational(1, 10)))\n"
               f"v = ta.epsilon(f, sp.Rational(1, 10**{k}))\n"
               "lo, hi = v.interval()\n"
               "with mp.workdps(70):\n"
               f"    ref = mp.mpf(ONE_STEP_EPS[{k}])\n"
               "    inside = bool(mp.mpf(lo) <= ref <= mp.mpf(hi))\n"
               "out = [float(v.lo), float(v.hi), v.route, v.guarantee, inside]")


def dpa_tail_eps(k: int) -> dict:
    ev = "dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(1.0))"
    return run(DPA, f"acc = pa.PLDAccountant()\nacc.compose({ev})\n"
                    f"out = acc.get_epsilon(1e-{k})")


def dpa_delta(sigma: str, q: str, T: int, eps: str) -> dict:
    ev = (f"dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(float(eval({q!r})), "
          f"dp_event.GaussianDpEvent(float(eval({sigma!r})))), {T})")
    return run(DPA, f"acc = pa.PLDAccountant()\nacc.compose({ev})\n"
                    f"out = acc.get_delta(float(eval({eps!r})))")


def reference_delta(sigma: str, q: str, T: int, eps_values: list[float]) -> dict:
    """The larger of the two directions' delta at each eps, 30 digits (T <= 2)."""
    fn = "one" if T == 1 else "two"
    body = ("with mp.workdps(30):\n"
            f"    mu, q = 1 / _ev({sigma!r}), _ev({q!r})\n"
            "    out = [float(max(" + fn + "(mu, q, d, mp.mpf(e)) for d in ('remove', 'add')))\n"
            f"           for e in {eps_values!r}]\n")
    return run(REF + "\nfrom fractions import Fraction\n"
               "def _ev(s):\n    f = Fraction(s)\n    return mp.mpf(f.numerator) / f.denominator",
               body, timeout=600)


RISKCAL = "import numpy as np\nfrom riskcal.calibration.dpsgd import get_beta_for_dpsgd"
#: the former path of the power: the hull's band route taken out (the PLD engine answers)
FORMER = ("from tradeoff_algebra.numeric.protocol import POINT_ROUTES\n"
          "from tradeoff_algebra.routes.inversion_curve import hull_point\n"
          "POINT_ROUTES.remove(hull_point)\n")


def ours_power(f: str, alpha: str, former: bool = False) -> dict:
    return run(OURS, (FORMER if former else "") + f"f = {f}\n"
                     "with ta.pld_options(tol=1e-9), ta.time_limit(60):\n"
                     f"    v = ta.roc(f, sp.Rational({alpha!r}), dps=20)\n"
                     "out = [float(v.lo), float(v.hi), v.route, v.guarantee]")


def riskcal_power(sigma: str, q: str, T: int, alpha: str) -> dict:
    return run(RISKCAL, f"b = get_beta_for_dpsgd(float(eval({sigma!r})), float(eval({q!r})), "
                        f"{T}, np.array([float(eval({alpha!r}))]))\nout = 1 - float(b[0])")


def fmt(r: dict) -> str:
    if "error" in r:
        return f"error: {r['error']}"
    o = r["out"]
    return f"[{o[0]:.12g}, {o[1]:.12g}]" if isinstance(o, list) else f"{o:.12g}"


def rel_width(r: dict) -> str:
    if "error" in r or not isinstance(r["out"], list):
        return ""
    lo, hi = r["out"][0], r["out"][1]
    return f"{(hi - lo) / hi:.1e}" if hi > 0 else "0"


def fewstep_table(R: Report, steps: tuple[int, ...]) -> None:
    """The few-step table: eps(1e-5) at tol 1e-9 and at the default tolerance beside
    dp_accounting and its optimistic/pessimistic pair at grid 1e-5."""
    R.out("Few to a few hundred steps: eps(1e-5) of `noisy_sgd(sigma, 256/60000, T)` under "
          "`pld_options(tol=1e-9)` (with `time_limit(60)`) and at the default tolerance "
          "(5e-4, with `time_limit(30)`), same conventions; dp_accounting: `PLDAccountant()` "
          "(grid 1e-4); check: our interval meets [optimistic, pessimistic] of dp_accounting's "
          "PLD pair at grid 1e-5 (`from_gaussian_mechanism`, connect-the-dots for the "
          "pessimistic one; float64, not proved).")
    R.out()
    R.out("| sigma | T | ours eps, tol 1e-9 | rel. width | route, guarantee | warning | CPU s | "
          "MB | ours eps, default tol | rel. width | route, guarantee | CPU s | dp_accounting "
          "| CPU s | MB | check |")
    R.out("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for sigma in ("0.8", "1.1", "2", "4"):
        for T in steps:
            o = ours_eps_tol(sigma, "256/60000", T, "1e-9", limit=60)
            od = ours_eps_tol(sigma, "256/60000", T, None)
            d = dpa_eps(sigma, "256/60000", T)
            pair = dpa_pair_eps(sigma, "256/60000", T)
            check = ""
            if "error" in pair:
                check = f"pair: {pair['error']}"
            else:
                opt, pess = pair["out"]
                parts = []
                for name, r in (("tight", o), ("default", od)):
                    if "error" not in r:
                        lo, hi = r["out"][0], r["out"][1]
                        meets = lo <= pess * (1 + 1e-9) and hi >= opt * (1 - 1e-9)
                        parts.append(f"{name} {'ok' if meets else 'MISS'}")
                check = f"[{opt:.10g}, {pess:.10g}] " + ", ".join(parts)
            rg = lambda r: "" if "error" in r else f"{r['out'][2]}, {r['out'][3]}"  # noqa: E731
            warn = "" if "error" in o else ",".join(sorted(set(o["warned"]))) or "none"
            R.out(f"| {sigma} | {T} | {fmt(o)} | {rel_width(o)} | {rg(o)} | {warn} | "
                  f"{_num(o.get('t'), 3)} | {_num(o.get('mem'), 1)} | "
                  f"{fmt(od)} | {rel_width(od)} | {rg(od)} | {_num(od.get('t'), 3)} | "
                  f"{fmt(d)} | {_num(d.get('t'), 3)} | "
                  f"{_num(d.get('mem'), 1)} | {check} |")


#: The rows of ``--cpu-rows``: the default tolerance's CPU beside dp_accounting's.
CPU_ROWS = (("4", (3, 10, 30, 100)), ("2", (3, 5, 10, 20)))


def ours_eps_at(root: str, sigma: str, q: str, T: int) -> dict:
    """:func:`ours_eps_tol` at the default tolerance with the library imported from ``root``
    (a checkout of another commit: the "before" column)."""
    code = _PRELUDE.format(root=root, tests=os.path.join(root, "tests"), imports=OURS,
                           body=_indent(f"f = {expr(sigma, q, T)}\n"
                                        "with ta.pld_options(), ta.time_limit(30):\n"
                                        "    v = ta.epsilon(f, sp.Rational(1, 100000), dps=20)\n"
                                        "out = [float(v.lo), float(v.hi), v.route, "
                                        "v.guarantee]"))
    return child_json(code, 300)


def cpu_rows_section(path: str | None, before: str | None, reps: int = 3) -> None:
    """eps(1e-5) at the default tolerance for :data:`CPU_ROWS`: ours (this tree) and, with
    ``before``, the same call from that checkout, and dp_accounting's PLDAccountant, each the
    best CPU of ``reps`` fresh processes run in turn (the load shared alike); the check as
    the full table's (our interval meets dp_accounting's pair at grid 1e-5). With ``path``,
    the section is put at the top of that file, the rest kept."""
    R = Report()
    R.out("## " + run_line("python benchmarks/bench_dpsgd_fewstep.py --cpu-rows"
                           + (f" --before {before}" if before else ""),
                           ("numpy", "python-flint", "dp-accounting")))
    R.out()
    R.out(f"eps(1e-5) of `noisy_sgd(sigma, 256/60000, T)` at the default tolerance (with "
          f"`time_limit(30)`): CPU seconds, best of {reps} fresh processes each, ours, the "
          "same call at the commit before (`--before`) and dp_accounting's `PLDAccountant()` "
          "(grid 1e-4) run in turn; check: our interval meets dp_accounting's "
          "[optimistic, pessimistic] at grid 1e-5.")
    R.out()
    R.out("| sigma | T | ours eps, default tol | rel. width | guarantee | CPU s | before: CPU s "
          "| dp_accounting | CPU s | ours / dp CPU | check |")
    R.out("|---|---|---|---|---|---|---|---|---|---|---|")
    for sigma, steps in CPU_ROWS:
        for T in steps:
            best: dict[str, float] = {}
            got: dict[str, dict] = {}
            for _ in range(reps):
                calls = [("ours", lambda s=sigma, n=T: ours_eps_tol(s, "256/60000", n, None)),
                         ("dpa", lambda s=sigma, n=T: dpa_eps(s, "256/60000", n))]
                if before:
                    calls.insert(1, ("before", lambda s=sigma, n=T: ours_eps_at(
                        before, s, "256/60000", n)))
                for name, call in calls:
                    r = call()
                    got.setdefault(name, r)
                    if "error" not in r:
                        best[name] = min(best.get(name, float("inf")), r["t"])
            o, d = got["ours"], got["dpa"]
            pair = dpa_pair_eps(sigma, "256/60000", T)
            check = pair.get("error", "")
            if not check and "error" not in o:
                opt, pess = pair["out"]
                lo, hi = o["out"][0], o["out"][1]
                ok = lo <= pess * (1 + 1e-9) and hi >= opt * (1 - 1e-9)
                check = f"[{opt:.10g}, {pess:.10g}] {'ok' if ok else 'MISS'}"
            ratio = (f"{best['ours'] / best['dpa']:.2f}" if "ours" in best and "dpa" in best
                     else "-")
            R.out(f"| {sigma} | {T} | {fmt(o)} | {rel_width(o)} | "
                  f"{'' if 'error' in o else o['out'][3]} | {_num(best.get('ours'), 3)} | "
                  f"{_num(best.get('before'), 3)} | {fmt(d)} | {_num(best.get('dpa'), 3)} | "
                  f"{ratio} | {check} |")
    if path:
        with open(path) as fh:
            rest = fh.read()
        head, _, body = rest.partition("\n")
        with open(path, "w") as fh:
            fh.write(head + "\n\n" + "\n".join(R.rows) + "\n" + body)
        print(f"written to {path}")


def dpa_eps_grid(sigma: str, q: str, T: int, grid: float) -> dict:
    """dp_accounting's PLDAccountant at ``value_discretization_interval=grid``: eps(1e-5)."""
    ev = (f"dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(float(eval({q!r})), "
          f"dp_event.GaussianDpEvent(float(eval({sigma!r})))), {T})")
    return run(DPA, f"acc = pa.PLDAccountant(value_discretization_interval={grid})\n"
                    f"acc.compose({ev})\nout = acc.get_epsilon(1e-5)", timeout=600)


#: dp_accounting's grids tried, coarsest first, for the equal-accuracy comparison
EQUAL_GRIDS = (1e-4, 3e-5, 1e-5, 3e-6, 1e-6)


def equal_accuracy_section(path: str | None, reps: int = 3) -> None:
    """eps(1e-5) at the default tolerance for :data:`CPU_ROWS` beside dp_accounting at the
    coarsest grid whose value lies within our certified interval's width of that interval
    (equal accuracy: dp_accounting's error at most our width). Each call the best CPU of
    ``reps`` fresh processes, run in turn."""
    R = Report()
    R.out("## " + run_line("python benchmarks/bench_dpsgd_fewstep.py --equal-accuracy",
                           ("numpy", "python-flint", "dp-accounting")))
    R.out()
    R.out("eps(1e-5) of `noisy_sgd(sigma, 256/60000, T)`: ours at the default tolerance "
          "(certified, width w), dp_accounting's `PLDAccountant` at its default grid 1e-4 and "
          f"at the coarsest grid of {EQUAL_GRIDS} whose value lies within w of our interval "
          "(its error at most our width: equal accuracy). CPU seconds, best of "
          f"{reps} fresh processes each, imports excluded.")
    R.out()
    R.out("| sigma | T | ours eps | width w | CPU s | dp grid 1e-4: value, distance | CPU s "
          "| equal-accuracy grid | its value, distance | CPU s | ours / dp at equal accuracy |")
    R.out("|---|---|---|---|---|---|---|---|---|---|---|")

    def best(call) -> tuple[dict, float | None]:
        got, t = None, None
        for _ in range(reps):
            r = call()
            got = got or r
            if "error" not in r:
                t = r["t"] if t is None else min(t, r["t"])
        return got, t

    for sigma, steps in CPU_ROWS:
        for T in steps:
            o, to = best(lambda s=sigma, n=T: ours_eps_tol(s, "256/60000", n, None))
            if "error" in o:
                R.out(f"| {sigma} | {T} | {fmt(o)} | | | | | | | | |")
                continue
            lo, hi = o["out"][0], o["out"][1]
            w = hi - lo

            def dist(v: float, lo: float = lo, hi: float = hi) -> float:
                return max(lo - v, v - hi, 0.0)

            cells = []
            for grid in EQUAL_GRIDS:
                d, td = best(lambda s=sigma, n=T, g=grid: dpa_eps_grid(s, "256/60000", n, g))
                if "error" in d:
                    cells.append((grid, None, None, td))
                    break
                cells.append((grid, d["out"], dist(d["out"]), td))
                if dist(d["out"]) <= w:
                    break
            g0 = cells[0]
            eq = cells[-1] if cells[-1][2] is not None and cells[-1][2] <= w else None
            R.out(f"| {sigma} | {T} | {fmt(o)} | {w:.1e} | {_num(to, 3)} | "
                  f"{g0[1]:.10g}, {g0[2]:.1e} | {_num(g0[3], 3)} | "
                  + (f"{eq[0]:g} | {eq[1]:.10g}, {eq[2]:.1e} | {_num(eq[3], 3)} | "
                     f"{to / eq[3]:.2f} |" if eq and to and eq[3] else
                     f"none of {EQUAL_GRIDS} | | | - |"))
    R.write(path)


def scaling_section(path: str | None) -> None:
    """The DP-SGD series and its tolerance table of benchmarks/bench_scaling.py, run by that
    script's own functions (each point in a fresh process), printed as the markdown section."""
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_scaling as bs

    R = Report()
    R.out(run_line("python benchmarks/bench_dpsgd_fewstep.py --scaling",
                   ("dp-accounting", "python-flint")) + " (the DP-SGD series of "
          "bench_scaling.py alone, same conventions)")
    bs._series(R, "DP-SGD (q = 256/60000, sigma = 1.1, Poisson), eps(1e-5)", "T",
               [10**i for i in range(1, 8)], bs.SGD, "1/100000", bs._below_peer, "sgd", 10**7,
               "T")
    bs._tolerances(R, "DP-SGD (sigma = 1.1, T = 14063), eps(1e-5)", bs.SGD.format(n=14063),
                   "1/100000", [5e-3, 5e-4, 5e-6, 1e-9, 1e-12])
    R.out()
    for title, unit, x, y in bs.EXPONENTS:
        R.out(f"| {title} | {unit} | {'-' if x is None else f'{x:.2f}'} | "
              f"{'-' if y is None else f'{y:.2f}'} |")
    R.out()
    R.out("Points not certified: " + ("; ".join(bs.NOT_CERTIFIED) or "none") + ".")
    R.write(path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="the headline rows only")
    ap.add_argument("--fewstep", action="store_true",
                    help="the few-step table alone, T = 3 .. 30 (the rows this run changes)")
    ap.add_argument("--scaling", action="store_true",
                    help="the DP-SGD series of bench_scaling.py alone (its RESULTS section)")
    ap.add_argument("--cpu-rows", action="store_true",
                    help="the default tolerance's CPU, best of 3, sigma = 4 and 2 (a section "
                         "put at the top of --write's file)")
    ap.add_argument("--equal-accuracy", action="store_true",
                    help="sigma = 4 and 2 beside dp_accounting at the grid of equal accuracy")
    ap.add_argument("--before", default=None,
                    help="with --cpu-rows: a checkout of the commit before, timed beside")
    ap.add_argument("--write", default=None)
    a = ap.parse_args()
    if a.scaling:
        scaling_section(a.write)
        return
    if a.cpu_rows:
        cpu_rows_section(a.write, a.before)
        return
    if a.equal_accuracy:
        equal_accuracy_section(a.write)
        return
    R = Report()
    R.out("# DP-SGD with few steps: certified to 1e-9 beside dp_accounting")
    R.out()
    R.out(run_line("python benchmarks/bench_dpsgd_fewstep.py" + (" --quick" if a.quick else "")
                   + (" --fewstep" if a.fewstep else ""),
                   ("numpy", "mpmath", "python-flint", "dp-accounting")))
    R.out()
    if a.fewstep:
        fewstep_table(R, (3, 5, 10, 20, 30, 100))
        R.out()
        R.out(NOTE)
        R.write(a.write)
        return
    R.out("eps(1e-5) of `noisy_sgd(sigma, q, T)` (add/remove, Poisson) under "
          "`pld_options(tol=1e-9)`; CPU seconds and peak MB above the imports, each call in a "
          "fresh process; dp_accounting: `PLDAccountant()` (grid 1e-4), `get_epsilon(1e-5)`. "
          "check: the 30-digit reference's delta (both directions) is > 1e-5 at our lower end "
          "and <= 1e-5 at our upper end.")
    R.out()
    R.out("| sigma | q | T | ours eps(1e-5) | rel. width | route | warning | CPU s | MB | "
          "dp_accounting | CPU s | MB | check |")
    R.out("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    head = [("1.1", "256/60000", T) for T in (1, 2, 10, 100, 1000)]
    grid = [] if a.quick else [(s, q, T) for T in (1, 2) for q in ("256/60000", "1/100",
                                                                   "1/1000")
                               for s in ("0.5", "0.8", "1.1", "2", "4")]
    seen = set()
    for sigma, q, T in head + grid:
        if (sigma, q, T) in seen:
            continue
        seen.add((sigma, q, T))
        o = ours_eps(sigma, q, T)
        d = dpa_eps(sigma, q, T)
        check = ""
        if T <= 2 and "error" not in o:
            ref = reference_delta(sigma, q, T, [o["out"][0], o["out"][1]])
            if "error" in ref:
                check = f"reference: {ref['error']}"
            else:
                check = "ok" if ref["out"][0] > 1e-5 >= ref["out"][1] else \
                    f"FAIL {ref['out']}"
        elif "error" not in o and "error" not in d:
            lo, hi = o["out"][0], o["out"][1]
            check = f"dp_acc - ours.hi = {d['out'] - hi:.2g}"
            del lo
        route = "" if "error" in o else o["out"][2]
        warn = "" if "error" in o else ",".join(sorted(set(o["warned"]))) or "none"
        R.out(f"| {sigma} | {q} | {T} | {fmt(o)} | {rel_width(o)} | {route} | {warn} | "
              f"{_num(o.get('t'), 3)} | {_num(o.get('mem'), 1)} | "
              f"{fmt(d)} | {_num(d.get('t'), 3)} | {_num(d.get('mem'), 1)} | "
              f"{check} |")
    R.out()
    fewstep_table(R, (3, 5, 10, 20, 30, 100, 300, 900) if not a.quick else (3, 10, 100, 900))
    R.out()
    R.out("delta(eps) at eps = 1/2 (sigma = 1.1, q = 256/60000), same conventions; "
          "dp_accounting: `get_delta(0.5)`; check: the 30-digit reference inside our ball.")
    R.out()
    R.out("| T | ours delta(1/2) | rel. width | route | warning | CPU s | MB | "
          "dp_accounting | CPU s | check |")
    R.out("|---|---|---|---|---|---|---|---|---|---|")
    for T in (1, 2, 10, 100, 300):
        o = ours_delta("1.1", "256/60000", T, "1/2")
        d = dpa_delta("1.1", "256/60000", T, "1/2")
        check = ""
        if T <= 2 and "error" not in o:
            ref = reference_delta("1.1", "256/60000", T, [0.5])
            check = ("ok" if o["out"][0] <= ref["out"][0] <= o["out"][1] else
                     f"FAIL {ref['out']}") if "error" not in ref else ref["error"]
        route = "" if "error" in o else o["out"][2]
        warn = "" if "error" in o else ",".join(sorted(set(o["warned"]))) or "none"
        R.out(f"| {T} | {fmt(o)} | {rel_width(o)} | {route} | {warn} | "
              f"{_num(o.get('t'), 3)} | {_num(o.get('mem'), 1)} | {fmt(d)} | "
              f"{_num(d.get('t'), 3)} | {check} |")
    R.out()
    R.out("One step far in the tail: eps(10^-k) of `AddRemove(Mix(G(1), 1/10))` at the "
          "default tolerance, the level an exact rational; check: the 60-digit quadrature "
          "reference of tests/test_dpsgd_far_tail.py inside our interval; dp_accounting: "
          "`PLDAccountant()` (grid 1e-4), `get_epsilon(1e-k)`.")
    R.out()
    R.out("| k | ours eps(10^-k) | rel. width | route, guarantee | warning | CPU s | "
          "dp_accounting | CPU s | check |")
    R.out("|---|---|---|---|---|---|---|---|---|")
    for k in (10, 100, 200, 300):
        o = ours_tail_eps(k)
        d = dpa_tail_eps(k)
        rg = "" if "error" in o else f"{o['out'][2]}, {o['out'][3]}"
        warn = "" if "error" in o else ",".join(sorted(set(o["warned"]))) or "none"
        check = "" if "error" in o else ("ok" if o["out"][4] else "MISS")
        R.out(f"| {k} | {fmt(o)} | {rel_width(o)} | {rg} | {warn} | {_num(o.get('t'), 3)} | "
              f"{fmt(d)} | {_num(d.get('t'), 3)} | {check} |")
    R.out()
    R.out("The power 1 - f(alpha) (`ta.roc`) of `noisy_sgd(1.1, 256/60000, T)` "
          "under `pld_options(tol=1e-9)`, same conventions; "
          "former: the same call with the hull's band route taken out (the path before this "
          "step); riskcal: `get_beta_for_dpsgd` (dp_accounting's PLD, an estimate).")
    R.out()
    R.out("| f | alpha | ours power | rel. width | route | guarantee | warning | CPU s | MB | "
          "former | former route, guarantee | CPU s | riskcal | CPU s |")
    R.out("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    cases = [(expr("1.1", "256/60000", T), f"T = {T}", ("1.1", "256/60000", T))
             for T in (1, 2)]
    for f, name, rc in cases:
        for alpha in ("1/100", "1/1000000"):
            o = ours_power(f, alpha)
            old = ours_power(f, alpha, former=True)
            rk = riskcal_power(*rc, alpha) if rc is not None else None
            route = "" if "error" in o else o["out"][2]
            guar = "" if "error" in o else o["out"][3]
            warn = "" if "error" in o else ",".join(sorted(set(o["warned"]))) or "none"
            old_route = "" if "error" in old else f"{old['out'][2]}, {old['out'][3]}"
            R.out(f"| {name} | {alpha} | {fmt(o)} | {rel_width(o)} | {route} | {guar} | {warn} "
                  f"| {_num(o.get('t'), 3)} | {_num(o.get('mem'), 1)} | "
                  f"{fmt(old)} | {old_route} | {_num(old.get('t'), 3)} | "
                  f"{'-' if rk is None else fmt(rk)} | "
                  f"{'-' if rk is None else _num(rk.get('t'), 3)} |")
    R.out()
    R.out(NOTE)
    R.write(a.write)


if __name__ == "__main__":
    main()
