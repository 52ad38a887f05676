"""roc(0.01) and whole curves (101 levels) of lattice and finite products beside one eps call.

For each product: ``ta.epsilon(f, 1e-6)`` and ``ta.roc(f, 1/100)`` under ``pld_options(tol=1e-9)``,
``ta.curve(f, 101 levels, bounds=True)`` under ``pld_options(tol=1e-6)`` (the convention of
``benchmarks/bench_profile_curve.py``), each in a fresh process, CPU seconds
(``time.process_time``) without the imports, peak memory above them; "x eps": the CPU over that
of the eps call (the target: at most 2). Beside them, with ``--peers``, dp_accounting's
pessimistic and optimistic PLDs (grid 1e-4) read by riskcal's ``get_beta_from_pld`` at 0.01: a
bracket up to float errors, which our certified roc(0.01) is checked against.

    python benchmarks/bench_lattice_curves.py [--peers] [--only NAME] [--write PATH]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _report import Report, child_json, run_line  # noqa: E402

# (our child processes and their three questions: those of the Laplace-type products)
from bench_profile_curve import _CURVE, _EPS, _OURS, _PEER, _ROC  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_H = "value_discretization_interval=1e-4"
_RR = ("P.from_randomized_response(3 / (2 + np.exp(0.1)), 3, pessimistic_estimate=pess, "
       + _H + ").self_compose({n})")
_EPSDELTA = ("P.from_privacy_parameters(common.DifferentialPrivacyParameters({e}, {d}), "
             + _H + ").self_compose({n})")
_DG = ("P.from_discrete_gaussian_mechanism({s}, sensitivity=1, pessimistic_estimate=pess, "
       + _H + ").self_compose({n})")
_DL = ("P.from_discrete_laplace_mechanism({p}, sensitivity=1, pessimistic_estimate=pess, "
       + _H + ").self_compose({n})")

#: (name, our expression, the peer's PLD or None)
ROWS = [
    ("f_{1/10,0}^10", "ta.TensorPower(ta.EpsDelta(R(1, 10)), 10)",
     _EPSDELTA.format(e=0.1, d=0, n=10)),
    ("f_{1/10,0}^1000", "ta.TensorPower(ta.EpsDelta(R(1, 10)), 1000)",
     _EPSDELTA.format(e=0.1, d=0, n=1000)),
    ("f_{1/10,0}^100000", "ta.TensorPower(ta.EpsDelta(R(1, 10)), 100000)", None),
    ("EpsDelta(1, 1e-6)^1000", "ta.TensorPower(ta.EpsDelta(1, R(1, 10**6)), 1000)",
     _EPSDELTA.format(e=1.0, d=1e-6, n=1000)),
    ("RR(1/10, 3)^10", "ta.TensorPower(ta.randomized_response(R(1, 10), 3), 10)",
     _RR.format(n=10)),
    ("RR(1/10, 3)^1000", "ta.TensorPower(ta.randomized_response(R(1, 10), 3), 1000)",
     _RR.format(n=1000)),
    ("RR(1/10, 3)^100000", "ta.TensorPower(ta.randomized_response(R(1, 10), 3), 100000)",
     None),
    ("RR(log 3, 5)^1000", "ta.TensorPower(ta.randomized_response(sp.log(3), 5), 1000)",
     "P.from_randomized_response(5 / 7, 5, pessimistic_estimate=pess, " + _H
     + ").self_compose(1000)"),
    ("DG(1, 10)^100", "ta.TensorPower(ta.DiscreteGaussian(1, 10), 100)",
     _DG.format(s=10.0, n=100)),
    ("DG(1, 10)^10", "ta.TensorPower(ta.DiscreteGaussian(1, 10), 10)",
     _DG.format(s=10.0, n=10)),
    ("DG(1, 10 + i/10), i = 1..100", "ta.Tensor(*[ta.DiscreteGaussian(1, 10 + R(i, 10)) "
     "for i in range(1, 101)])",
     "functools.reduce(lambda a, b: a.compose(b), [P.from_discrete_gaussian_mechanism("
     "10 + i / 10, sensitivity=1, pessimistic_estimate=pess, " + _H + ") for i in range(1, 101)])"),
    ("DG(1, 3/2)^3 (x) DG(1, 2)^2", "ta.Tensor(ta.TensorPower(ta.DiscreteGaussian(1, R(3, 2)), 3), "
     "ta.TensorPower(ta.DiscreteGaussian(1, 2), 2))", None),
    ("DLaplace(1, 1)^100", "ta.TensorPower(ta.DiscreteLaplace(1, 1), 100)",
     _DL.format(p=1.0, n=100)),
    ("DLaplace(1, 10)^1000", "ta.TensorPower(ta.DiscreteLaplace(1, 10), 1000)",
     _DL.format(p=0.1, n=1000)),
    ("Discrete([1/2,1/3,1/6], [1/6,1/3,1/2])^100",
     "ta.TensorPower(ta.Discrete([R(1, 2), R(1, 3), R(1, 6)], [R(1, 6), R(1, 3), R(1, 2)]), 100)",
     None),
    ("BinomialDP(1/2, 100)", "ta.BinomialDP(R(1, 2), 100)", _EPSDELTA.format(e=0.5, d=0, n=100)),
    ("f_{1/10,0}^1000 (x) RR(log 3, 5)^1000",
     "ta.Tensor(ta.TensorPower(ta.EpsDelta(R(1, 10)), 1000), "
     "ta.TensorPower(ta.randomized_response(sp.log(3), 5), 1000))",
     "P.from_randomized_response(2 / (1 + np.exp(0.1)), 2, pessimistic_estimate=pess, " + _H
     + ").self_compose(1000).compose(P.from_randomized_response(5 / 7, 5, "
     "pessimistic_estimate=pess, " + _H + ").self_compose(1000))"),
    ("f_{1/10,0}^100 (x) RR(log 3, 5)^100",
     "ta.Tensor(ta.TensorPower(ta.EpsDelta(R(1, 10)), 100), "
     "ta.TensorPower(ta.randomized_response(sp.log(3), 5), 100))", None),
    ("C_{1/10}(RR(1, 3)^10)",
     "ta.C(R(1, 10), ta.TensorPower(ta.randomized_response(1, 3), 10))", None),
]


def workload_head(r: Report) -> None:
    """The head of the table of :func:`workload_rows`."""
    r.out("| workload | question | value (power at 0.01 or eps) | guarantee | rel. width | CPU "
          "| x eps | memory | check | route |")
    r.out("|---|---|---|---|---|---|---|---|---|---|")


def workload_rows(r: Report, name: str, expr: str, build: str | None, timeout: float) -> None:
    """The rows of one workload, each call in a fresh process: eps(1e-6), roc(0.01) and the
    curve at two tolerances (ours), checked against the peer's bracket where ``build`` (the
    peer's PLD) is given, then the peer's row."""
    bracket = peer = None
    if build is not None:
        peer = child_json(_PEER.format(root=ROOT, sides="(True, False)", build=build,
                                        curve="False"), timeout)
        if "error" not in peer:
            bracket = sorted((peer["opt"], peer["pess"]))
    eps_cpu = None
    for what, call, tol in (("eps(1e-6)", _EPS, "1e-9"), ("roc(0.01)", _ROC, "1e-9"),
                            ("curve, 101 levels", _CURVE, "1e-6"),
                            ("curve, 101 levels, tol 1e-9", _CURVE, "1e-9")):
        o = child_json(_OURS.format(root=ROOT, expr=expr, tol=tol, call=call), timeout)
        if "error" in o:
            r.out(f"| {name} | {what} | {o['error'][:100]} | | | | | | | |")
            continue
        if eps_cpu is None and what == "eps(1e-6)":
            eps_cpu = o["cpu"]
        ratio = f"{o['cpu'] / eps_cpu:.1f}" if eps_cpu else "-"
        rel = o.get("rel", 0.0 if o["lo"] == o["hi"]  # (a point, +oo included)
                    else (o["hi"] - o["lo"]) / max(abs(o["hi"]), 1e-300))
        chk = "-"
        if bracket is not None and what != "eps(1e-6)":
            gap = max(bracket[0] - o["hi"], o["lo"] - bracket[1], 0.0)
            chk = ("inside the bracket" if bracket[0] <= o["lo"] and o["hi"] <= bracket[1]
                   else "meets the bracket" if gap == 0
                   else f"agrees to {gap:.0e}" if gap <= 1e-9 * max(abs(o["hi"]), 1e-300)
                   else f"outside the bracket by {gap:.1e}")
        r.out(f"| {name} | {what} | [{o['lo']:.12g}, {o['hi']:.12g}] | {o['g']} | "
              f"{rel:.1e} | {o['cpu']:.2f} s | {ratio} | {o['mem']:.0f} MiB | {chk} | "
              f"{o.get('route', '')} |")
    if peer is not None:
        if "error" in peer:
            r.out(f"| {name} | peer roc(0.01) | {peer['error'][:100]} | | | | | | | |")
        else:
            r.out(f"| {name} | peer roc(0.01): dp_accounting+riskcal, grid 1e-4 | "
                  f"{peer['pess']:.10g} / {peer['opt']:.10g} | estimate | - | "
                  f"{peer['cpu']:.2f} s | - | {peer['mem']:.0f} MiB | - | - |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", metavar="PATH")
    ap.add_argument("--peers", action="store_true")
    ap.add_argument("--only", default=None)
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    r = Report()
    r.out("# roc(0.01) and whole curves of lattice and finite products beside one eps call")
    r.out("")
    r.out(run_line("python benchmarks/bench_lattice_curves.py"
                   + (" --peers" if args.peers else ""),
                   ("dp-accounting", "riskcal", "python-flint", "numpy")))
    r.out("")
    r.out("ours: `ta.epsilon(f, 1e-6)` and `ta.roc(f, 1/100)` under `pld_options(tol=1e-9)`, "
          "`ta.curve(f, 101 levels, bounds=True)` under `pld_options(tol=1e-6)` and, at the "
          "tolerance of the eps call, under `pld_options(tol=1e-9)` (its value: "
          "the power at 0.01; rel. width: the largest over the curve, relative to the power). "
          "CPU seconds without imports, one run each in a fresh process; x eps: the CPU over "
          "that of the eps call (target: at most 2). Peer (with --peers): dp_accounting PLD "
          "at grid 1e-4, pessimistic / optimistic, read by riskcal at 0.01.")
    r.out("")
    workload_head(r)
    for name, expr, build in ROWS:
        if args.only and args.only not in name:
            continue
        workload_rows(r, name, expr, build if args.peers else None, args.timeout)
    r.write(args.write)


if __name__ == "__main__":
    main()
