"""The seeded loop shared by the route fuzzers (benchmarks/fuzz_routes5.py, fuzz_routes6.py).

``main(generators, check)`` parses ``--seed``, ``--minutes`` and ``--only``, draws the named
generators in turn until the time is up, hands each case to ``check(case, flags, stats)`` and
prints every flag as it comes, then the summary: the per-route counts, the calls' wall time, the
process's CPU time and the load, the flags, the wide enclosures without a ToleranceWarning and
the first refusals. A generator may return None (nothing to ask for that draw).
"""

from __future__ import annotations

import argparse
import os
import random
import time
import traceback


def main(generators: dict, check) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--only", default=",".join(generators))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    names = args.only.split(",")
    flags: list = []
    stats: dict = {"wall": 0.0}
    t_end = time.time() + 60 * args.minutes
    c0 = time.process_time()
    i = 0
    while time.time() < t_end:
        name = names[i % len(names)]
        i += 1
        try:
            case = generators[name](rng)
        except Exception:  # noqa: BLE001
            print("generator failed", name, traceback.format_exc()[-400:], flush=True)
            continue
        if case is None:
            continue
        n0 = len(flags)
        print(f"> #{i} {case.call()}".replace("\n", " "), flush=True)
        try:
            check(case, flags, stats)
        except Exception:  # noqa: BLE001
            print(f"[harness] {name}: reference failed\n{case.call()}\n"
                  f"{traceback.format_exc()[-600:]}", flush=True)
            continue
        for kind, c, msg in flags[n0:]:
            print(f"FLAG {kind} [{c.route}]\n{c.call()}\n  -> {msg}\n", flush=True)
        print(f"#{i} {name} done ({time.time() - t_end + 60 * args.minutes:.0f} s)", flush=True)
    print("\n== summary ==")
    for k, v in stats.items():
        if isinstance(v, dict):
            print(k, v)
    print(f"calls' wall {stats['wall']:.0f} s, process CPU {time.process_time() - c0:.0f} s, "
          f"load {os.getloadavg()}")
    print(f"flags: {len(flags)}")
    for kind, c, msg in flags:
        print(f"  {kind} [{c.route}]: {c.code} -> {msg[:200]}")
    for call, v, route in stats.get("wide", []):
        print("wide without ToleranceWarning:", str(call).replace("\n", " "), v, route)
    for call, msg in stats.get("refusals", [])[:40]:
        print("refused:", call.replace("\n", " "), "--", msg)
