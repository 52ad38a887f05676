"""Products on two incommensurate lattices and C_p of a lattice product: eps(1e-6), roc(0.01) and
whole curves (101 levels), certified, beside dp_accounting's PLD read by riskcal.

The rows of ``bench_lattice_curves.py`` that were estimates or slow (f_{1/10,0}^100 (x)
RR(log 3, 5)^100; C_{1/10}(RR(1, 3)^10)), with f_{1/10,0}^1000 (x) RR(log 3, 5)^1000 beside them
(the certified route at 1000). Each call in a fresh process: ``ta.epsilon(f, 1e-6)`` and
``ta.roc(f, 1/100)`` under ``pld_options(tol=1e-9)``, ``ta.curve(f, 101 levels, bounds=True)``
under ``pld_options(tol=1e-6)`` and ``1e-9``; CPU seconds (``time.process_time``) without the
imports, peak memory above them; "x eps": the CPU over that of the eps call. Peer: dp_accounting's
pessimistic and optimistic PLDs (grid 1e-4) read by riskcal at 0.01, a bracket up to float errors
that our certified roc(0.01) is checked against (dp_accounting has no subsampled randomized
response: no peer for C_p).

    python benchmarks/bench_lattice_mixed.py [--write benchmarks/RESULTS_lattice_mixed.md]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _report import Report, child_json, run_line  # noqa: E402
from bench_lattice_curves import _H, _PEER  # noqa: E402
from bench_profile_curve import _CURVE, _EPS, _OURS, _ROC  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _two(n: int) -> tuple[str, str]:
    ours = (f"ta.Tensor(ta.TensorPower(ta.EpsDelta(R(1, 10)), {n}), "
            f"ta.TensorPower(ta.randomized_response(sp.log(3), 5), {n}))")
    peer = ("P.from_randomized_response(2 / (1 + np.exp(0.1)), 2, pessimistic_estimate=pess, "
            + _H + f").self_compose({n}).compose(P.from_randomized_response(5 / 7, 5, "
            "pessimistic_estimate=pess, " + _H + f").self_compose({n}))")
    return ours, peer


#: (name, our expression, the peer's PLD or None)
ROWS = [
    ("f_{1/10,0}^100 (x) RR(log 3, 5)^100", *_two(100)),
    ("f_{1/10,0}^1000 (x) RR(log 3, 5)^1000", *_two(1000)),
    ("C_{1/10}(RR(1, 3)^10)", "ta.C(R(1, 10), ta.TensorPower(ta.randomized_response(1, 3), 10))",
     None),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", metavar="PATH")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    r = Report()
    r.out("# Two incommensurate lattices and C_p of a lattice product: certified, beside the "
          "PLD peer")
    r.out("")
    r.out(run_line("python benchmarks/bench_lattice_mixed.py",
                   ("dp-accounting", "riskcal", "python-flint", "numpy")))
    r.out("")
    r.out("ours: `ta.epsilon(f, 1e-6)` and `ta.roc(f, 1/100)` under `pld_options(tol=1e-9)`, "
          "`ta.curve(f, 101 levels, bounds=True)` under `pld_options(tol=1e-6)` and `1e-9` "
          "(its value: the power at 0.01; rel. width: the largest over the curve, relative to "
          "the power). CPU seconds without imports, one run each in a fresh process; x eps: "
          "the CPU over that of the eps call. Peer: dp_accounting PLD at grid 1e-4, "
          "pessimistic / optimistic, read by riskcal at 0.01 (its check column: our certified "
          "interval against that bracket).")
    r.out("")
    r.out("| workload | question | value (power at 0.01 or eps) | guarantee | rel. width | CPU "
          "| x eps | memory | check | route |")
    r.out("|---|---|---|---|---|---|---|---|---|---|")
    for name, expr, build in ROWS:
        bracket = peer = None
        if build is not None:
            peer = child_json(_PEER.format(root=ROOT, build=build), args.timeout)
            if "error" not in peer:
                bracket = sorted((peer["opt"], peer["pess"]))
        eps_cpu = None
        for what, call, tol in (("eps(1e-6)", _EPS, "1e-9"), ("roc(0.01)", _ROC, "1e-9"),
                                ("curve, 101 levels", _CURVE, "1e-6"),
                                ("curve, 101 levels, tol 1e-9", _CURVE, "1e-9")):
            o = child_json(_OURS.format(root=ROOT, expr=expr, tol=tol, call=call), args.timeout)
            if "error" in o:
                r.out(f"| {name} | {what} | {o['error'][:100]} | | | | | | | |")
                continue
            if eps_cpu is None and what == "eps(1e-6)":
                eps_cpu = o["cpu"]
            ratio = f"{o['cpu'] / eps_cpu:.1f}" if eps_cpu else "-"
            rel = o.get("rel", 0.0 if o["lo"] == o["hi"]
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
    r.write(args.write)


if __name__ == "__main__":
    main()
