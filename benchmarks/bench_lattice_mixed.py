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
from _report import Report, run_line  # noqa: E402
from bench_lattice_curves import _H, workload_head, workload_rows  # noqa: E402


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
    workload_head(r)
    for name, expr, build in ROWS:
        workload_rows(r, name, expr, build, args.timeout)
    r.write(args.write)


if __name__ == "__main__":
    main()
