"""Import time of the package against its dependencies and a peer, in fresh interpreters.

Each target is imported in a new ``python -c`` process, ``--runs`` times (default 5); the table
shows the minimum and the median wall time of the import statement alone (measured inside the
process with ``time.perf_counter``, so interpreter start-up is excluded). Targets: sympy alone,
the floor (the dependencies the package loads at import: sympy, numpy, mpmath, python-flint),
all runtime dependencies (adding scipy.special, scipy.fft and scipy.signal, which the package
loads at first use), ``tradeoff_algebra``, and ``dp_accounting`` when installed (the ``[bench]``
extra). Every CLI call pays the package's import time.

    python benchmarks/bench_import.py [--runs 5] [--write PATH]
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import subprocess
import sys

TARGETS = [
    ("sympy", "import sympy"),
    ("floor: sympy, numpy, mpmath, flint", "import sympy, numpy, mpmath, flint"),
    (
        "all runtime dependencies",
        "import sympy, numpy, mpmath, flint, scipy.special, scipy.fft, scipy.signal",
    ),
    ("tradeoff_algebra", "import tradeoff_algebra"),
    ("dp_accounting", "import dp_accounting"),
]


def once(stmt: str) -> float | None:
    code = f"import time; t = time.perf_counter(); {stmt}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return float(out.stdout) if out.returncode == 0 else None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--write", metavar="PATH")
    args = ap.parse_args(argv)
    rows = ["| import | min (s) | median (s) | min / sympy |", "|---|---|---|---|"]
    base = None
    for name, stmt in TARGETS:
        ts = [once(stmt) for _ in range(args.runs)]
        if any(t is None for t in ts):
            rows.append(f"| {name} | not installed | | |")
            continue
        lo = min(ts)
        base = base or lo
        rows.append(f"| {name} | {lo:.3f} | {statistics.median(ts):.3f} | {lo / base:.2f} |")
    head = (f"Import time, {args.runs} fresh interpreters each ({datetime.date.today()}, "
            f"Python {platform.python_version()}, {platform.machine()}, "
            f"`python benchmarks/bench_import.py --runs {args.runs}`):")
    text = "\n".join([head, "", *rows]) + "\n"
    print(text)
    if args.write:
        with open(args.write, "a") as fh:
            fh.write("\n## Import time\n\n" + text)


if __name__ == "__main__":
    main()
