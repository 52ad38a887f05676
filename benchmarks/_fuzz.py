"""The seeded loop and the draw helpers shared by the route fuzzers (benchmarks/fuzz_routes5.py
.. fuzz_routes11.py).

``main(generators, check)`` parses ``--seed``, ``--minutes`` and ``--only``, draws the named
generators in turn until the time is up, hands each case to ``check(case, flags, stats)`` and
prints every flag as it comes, then the summary: the per-route counts, the calls' wall time, the
process's CPU time and the load, the flags, the wide enclosures without a ToleranceWarning and
the first refusals. A generator may return None (nothing to ask for that draw).

The helpers: :class:`Case` (one question: its code, reference, kind, tolerance and limit),
``rat`` and ``mpf_of`` (a Fraction as SymPy source and as an mpf), ``dps_for`` (the digits asked
at a tolerance), ``widen`` and ``tight`` (a float reference widened, an mpmath one given its last
digits), and the draws ``draw_tol``, ``draw_limit`` and ``draw_levels``.

Nesting across tolerances: :class:`NestCase` (one question at several tolerances, its code with
a ``dps=DPS`` slot), ``nest_case`` (its draw) and ``check_nested`` (its answers in this process
or in fresh ones, each tighter inside each looser). ``guarded`` stops a check that runs past a
CPU-time guard (flagged "hung"); ``run`` is a fuzzer's ``__main__``.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import random
import signal
import time
import traceback
import warnings
from fractions import Fraction

import mpmath

#: A function stats -> lines of text a fuzzer adds to its summary (printed and written).
SUMMARY_HOOK = None


def rat(x: Fraction) -> str:
    return f"sp.Rational({x.numerator}, {x.denominator})"


def mpf_of(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


class Case:
    """One question. ``code`` evaluates to a Value (kind prob/power/eps) or to (lo, hi) arrays
    (kind curve). ``ref()`` returns: for prob/power, (lo, hi); for eps, a function
    e -> (lo, hi) of delta and the level D; for curve, a list of (lo, hi) per level."""

    def __init__(self, route, code, ref, kind="prob", tol=1e-6, limit=60.0, level=None):
        self.route, self.code, self.ref, self.kind = route, code, ref, kind
        self.tol, self.limit, self.level = tol, limit, level

    def call(self) -> str:
        return (f"with ta.time_limit({self.limit}), ta.pld_options(tol={self.tol!r}):\n"
                f"    {self.code}")


def dps_for(tol):
    """The digits asked at a tolerance: -log10(tol) + 3, between 6 and 30."""
    return max(6, min(30, int(-math.log10(tol)) + 3))


def widen(lo, hi, rel=1e-6, absolute=1e-12):
    """A float64 reference pair widened by ``rel`` and ``absolute``."""
    return mpmath.mpf(lo) * (1 - rel) - absolute, mpmath.mpf(hi) * (1 + rel) + absolute


def tight(v, rel=30):
    """An mpmath reference value as a pair, ``rel`` digits either side."""
    e = mpmath.mpf(10) ** -rel
    return v - e * max(abs(v), mpmath.mpf(10) ** -300) - mpmath.mpf(10) ** -300, \
        v + e * max(abs(v), mpmath.mpf(10) ** -300) + mpmath.mpf(10) ** -300


def draw_tol(rng):
    return rng.choice([5e-4, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12])


def draw_limit(rng):
    return rng.choice([20.0, 20.0, 20.0, 0.05, 0.3, 1.0, 5.0])


def draw_levels(rng, k=4):
    """Levels near 0, near 1 and inside, sorted and distinct."""
    xs = set()
    for _ in range(k):
        r = rng.random()
        if r < 0.3:
            xs.add(10.0 ** -rng.uniform(1, 10))
        elif r < 0.55:
            xs.add(1 - 10.0 ** -rng.uniform(1, 8))
        else:
            xs.add(round(rng.random(), 6))
    return sorted(x for x in xs if 0 <= x <= 1)


def tally_error(err, st: dict, flags: list, case) -> None:
    """Count a call's exception: a TimeLimitExceeded as stopped, a refusal (a TradeOffError
    other than InternalError) as refused, anything else flagged as an internal error."""
    import tradeoff_algebra as ta

    if isinstance(err, ta.TimeLimitExceeded):
        st["stopped"] += 1
    elif isinstance(err, ta.InternalError) or not isinstance(err, ta.TradeOffError):
        flags.append(("internal error", case, repr(err)[:300]))
    else:
        st["refused"] += 1


def flag_unnested(got: dict, case, flags: list) -> None:
    """Flag the first pair of answers (``got``: tolerance -> (lo, hi), floats, mpf or arrays)
    where the tighter tolerance's is not inside the looser one's."""
    import numpy as np

    ts = sorted(got)
    for i in range(len(ts)):
        for j in range(i + 1, len(ts)):
            (l2, h2), (l1, h1) = got[ts[i]], got[ts[j]]  # ts[i] tighter
            if np.any(np.asarray(l2 < l1)) or np.any(np.asarray(h2 > h1)):
                flags.append(("not nested", case, f"order {case.tols}: tol {ts[i]}: [{l2}, {h2}]"
                              f" not inside tol {ts[j]}: [{l1}, {h1}]"))
                return


def main(generators: dict, check) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--only", default=",".join(generators))
    ap.add_argument("--results", default=None,
                    help="a RESULTS_*.md to which the run's summary is appended")
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
    if args.results:
        write_run(args, flags, stats, i, time.process_time() - c0)
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
    for line in (SUMMARY_HOOK(stats) if SUMMARY_HOOK else []):
        print(line)
    for call, msg in stats.get("refusals", [])[:40]:
        print("refused:", call.replace("\n", " "), "--", msg)


def write_run(args, flags, stats, draws, cpu) -> None:
    """Append the run (seed, minutes, draws, per-route counts, flags) to ``args.results``."""
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out = [f"\n### Run: seed {args.seed}, {args.minutes:g} min, {when} (written by the script)\n",
           f"{draws} draws; calls' wall {stats['wall']:.0f} s, process CPU {cpu:.0f} s, load "
           f"{tuple(round(x, 1) for x in os.getloadavg())}; {len(flags)} flags.\n"]
    rows = {k: v for k, v in stats.items() if isinstance(v, dict)}
    cols = sorted({c for v in rows.values() for c in v}, key=lambda c: (c != "draws", c))
    out.append("| route | " + " | ".join(cols) + " |")
    out.append("|---" * (len(cols) + 1) + "|")
    for k, v in rows.items():
        out.append(f"| {k} | " + " | ".join(str(v.get(c, 0)) for c in cols) + " |")
    if flags:
        out.append("\nFlags:\n")
    for kind, c, msg in flags:
        call = c.call().replace("\n", " ")
        out.append(f"* {kind} [{c.route}]: `{call}` -> {msg[:240]}".replace("\n", " "))
    for call, v, route in stats.get("wide", []):
        out.append(f"* wide without ToleranceWarning [{route}]: `{call}` {v}".replace("\n", " "))
    extra = SUMMARY_HOOK(stats) if SUMMARY_HOOK else []
    if extra:
        out.append("")
        out.extend(f"    {line}" for line in extra)
    with open(args.results, "a") as fh:
        fh.write("\n".join(out) + "\n")


#: A fresh process's answer to ``eval(code)`` at one tolerance and time limit (argv: tol,
#: code, limit): a curve's float bounds in hex, or a Value's interval as exact mpf reprs, and
#: whether it is an estimate (an EstimateWarning or a guarantee other than certified/exact).
_CHILD = r"""
import json, sys, warnings
import sympy as sp
import tradeoff_algebra as ta
tol, code, limit = float(sys.argv[1]), sys.argv[2], float(sys.argv[3])
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    with ta.time_limit(limit), ta.pld_options(tol=tol):
        out = eval(code, {"ta": ta, "sp": sp})
est = any(issubclass(w.category, ta.EstimateWarning) for w in ws)
if isinstance(out, tuple):
    print(json.dumps(["curve", est, [float(v).hex() for v in out[0]],
                      [float(v).hex() for v in out[1]]]))
else:
    lo, hi = out.interval()
    print(json.dumps(["value", out.guarantee not in ("certified", "exact"), repr(lo),
                      repr(hi)]))
"""


def fresh_answer(code: str, tol: float, limit: float, timeout: float):
    """(answer, message) of ``code`` evaluated in a fresh process (the nesting of answers
    across processes): (lo, hi) arrays of a curve or 60-digit mpfs of a value, "estimate", or
    None with the child's last line of error."""
    import json
    import subprocess
    import sys

    import numpy as np

    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   ".."))
    r = subprocess.run([sys.executable, "-c", _CHILD, repr(tol), code, repr(limit)],
                       capture_output=True, text=True, env=env, timeout=timeout)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines()[-1][:300] if r.stderr else "no output")
    kind, est, lo, hi = json.loads(r.stdout.strip().splitlines()[-1])
    if est:
        return "estimate", None
    if kind == "curve":
        return (np.array([float.fromhex(v) for v in lo]),
                np.array([float.fromhex(v) for v in hi])), None
    with mpmath.workdps(60):
        return (mpmath.mpf(lo[5:-1].strip("'")), mpmath.mpf(hi[5:-1].strip("'"))), None


# ---------------------------------------------------------------------------------------------
# nesting across tolerances, the CPU guard and the entry point
# ---------------------------------------------------------------------------------------------

class NestCase(Case):
    """One question at each tolerance of ``tols`` (its ``code`` has a ``dps=DPS`` slot);
    ``fresh``: each tolerance in a fresh process."""

    def call(self) -> str:
        return "; ".join(f"with ta.pld_options(tol={t!r}): "
                         + self.code.replace("dps=DPS", f"dps={dps_for(t)}") for t in self.tols)


def with_dps_slot(code: str) -> str:
    """``code`` with its last ``dps=...)`` made the slot ``dps=DPS)``."""
    if "dps=" in code:
        return code.rsplit("dps=", 1)[0] + "dps=DPS)"
    return code


def nest_case(rng, route: str, code: str, kind: str, limit: float, tols, fresh: bool):
    """A NestCase of ``code`` at 2 or 3 of ``tols`` in a random order."""
    c = NestCase(route, code, None, kind, 1e-6, limit)
    c.tols = tuple(rng.sample(tols, rng.choice([2, 2, 3])))
    c.fresh = fresh
    return c


def route_stats(stats: dict, key: str, exact: bool = False) -> dict:
    """The counts of one route in ``stats`` (created at zero)."""
    st = {"draws": 0, "certified": 0, "estimate": 0, "stopped": 0, "refused": 0, "checked": 0}
    if exact:
        st["exact"] = 0
    return stats.setdefault(key, st)


def check_nested(case, st: dict, flags: list, stats: dict, ask, interval, timeout: float,
                 refusal_names=()) -> None:
    """Ask ``case`` at each of its tolerances (``ask(code, tol, limit)`` in this process, or
    :func:`fresh_answer` with ``timeout`` where ``case.fresh``; ``interval(value)`` a certified
    Value's (lo, hi) as mpf at 60 digits, None for an estimate) and flag the first pair not
    nested. A fresh child's error naming one of ``refusal_names`` counts as refused."""
    import numpy as np

    import tradeoff_algebra as ta

    got = {}
    for tol in case.tols:
        code = case.code.replace("dps=DPS", f"dps={dps_for(tol)}")
        if case.fresh:
            t0 = time.time()
            ans, msg = fresh_answer(code, tol, case.limit, timeout)
            stats["wall"] += time.time() - t0
            if ans is None:
                if "TimeLimitExceeded" in msg:
                    st["stopped"] += 1
                elif "Error" in msg and "InternalError" not in msg and "Traceback" not in msg \
                        and any(n in msg for n in refusal_names):
                    st["refused"] += 1
                else:
                    flags.append(("internal error", case, msg))
                return
            if ans == "estimate":
                st["estimate"] += 1
                return
            got[tol] = ans
            continue
        out, err, wall, cpu, ws = ask(code, tol, case.limit)
        stats["wall"] += wall
        if err is not None:
            tally_error(err, st, flags, case)
            return
        if isinstance(out, tuple):
            if any(issubclass(w.category, ta.EstimateWarning) for w in ws):
                st["estimate"] += 1
                return
            got[tol] = (np.asarray(out[0]), np.asarray(out[1]))
        else:
            with mpmath.workdps(60):
                iv = interval(out)
            if iv is None:
                st["estimate"] += 1
                return
            got[tol] = iv
    st["certified"] += 1
    st["checked"] += 1
    flag_unnested(got, case, flags)


class Hung(BaseException):
    pass


def _hung(signum, frame):
    raise Hung()


def guarded(fn, case, flags: list, guard: float, factor: float = 1.0):
    """``fn()``, stopped by SIGPROF after ``guard * factor`` s of CPU (flagged "hung"), so the
    run goes on."""
    signal.signal(signal.SIGPROF, _hung)
    signal.setitimer(signal.ITIMER_PROF, guard * factor)
    try:
        return fn()
    except Hung:
        flags.append(("hung", case, f"stopped by the fuzz after {guard:.0f} s of CPU"))
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def run(generators: dict, check, summary) -> None:
    """A fuzzer's ``__main__``: :func:`main` with ``summary`` as its hook, the total wall."""
    global SUMMARY_HOOK
    t0 = time.time()
    warnings.simplefilter("default")
    logging.getLogger().setLevel(logging.ERROR)  # (dp_accounting's note on connect-the-dots)
    SUMMARY_HOOK = summary
    try:
        main(generators, check)
    finally:
        print(f"total wall {time.time() - t0:.0f} s")
