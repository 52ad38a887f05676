"""What the benchmark scripts share: the run line (date, command, machine, load, versions),
the rows printed as they come and written at the end, a timer, and the fresh-process runner."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from datetime import date
from importlib import metadata

#: The head and tail of a timed child process: the child sets ``rss0`` and ``t0`` before its
#: call and ``out`` after it; the tail prints ``{"out", "cpu", "mib"}`` (CPU seconds and peak
#: resident MiB above ``rss0``) as one JSON line for :func:`child_json`. (``rss0 = 0``: the
#: peak of the whole process, its imports included; ``t0`` before the imports: their CPU
#: time too.) :func:`child_result` reads that line back flat.
CHILD_PRE = """
import json, resource, time, warnings
warnings.simplefilter("ignore")
"""
CHILD_POST = """
cpu = time.process_time() - t0
rss = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024
print(json.dumps(dict(out=out, cpu=cpu, mib=rss)))
"""


def timed_prelude(clock: str = "cpu", memory: bool = False, caught: bool = False) -> str:
    """A child's code around a timed ``{body}`` that sets ``out``, for ``.format(root=...,
    imports=..., body=...)``: this tree first on the path, the ``{imports}`` before the clock,
    then one JSON line ``{"out", "t"}`` for :func:`child_json`, ``t`` the seconds of the body
    by ``clock`` ("cpu": ``time.process_time``; "wall": ``time.perf_counter``), with ``mem``
    (peak resident MiB above the imports) where ``memory`` and ``warned`` (the class names of
    the warnings the body raised; the body then comes indented by four spaces) where
    ``caught``; warnings are otherwise ignored."""
    now = {"cpu": "time.process_time()", "wall": "time.perf_counter()"}[clock]
    lines = ["import json, math, resource, sys, time, warnings",
             "sys.path.insert(0, {root!r})",
             f"warnings.simplefilter({'always' if caught else 'ignore'!r})", "{imports}"]
    if memory:
        lines.append("base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss")
    lines.append(f"t0 = {now}")
    if caught:
        lines += ["with warnings.catch_warnings(record=True) as caught:",
                  '    warnings.simplefilter("always")']
    lines += ["{body}", f"t = {now} - t0"]
    keys = "out=out, t=t"
    if memory:
        lines.append("mem = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024")
        keys += ", mem=mem"
    if caught:
        lines.append("warned = [type(w.message).__name__ for w in caught]")
        keys += ", warned=warned"
    lines.append(f"print(json.dumps(dict({keys})))")
    return "\n" + "\n".join(lines) + "\n"


def pld_peer_child(gib: int) -> str:
    """The timed child of a dp_accounting PLD peer under a ``gib`` GiB address-space limit (a
    grid beyond it fails as a row's error, not the machine): the caller formats ``expr`` (the
    PLD, with ``pld``, ``common`` and ``math`` imported), ``question`` (its method) and ``arg``;
    ``out = {"value"}``, the CPU seconds and peak MiB of the PLD's construction and question
    (imports excluded)."""
    return CHILD_PRE + f"""
import math
resource.setrlimit(resource.RLIMIT_AS, ({gib} << 30, {gib} << 30))
from dp_accounting.pld import common
from dp_accounting.pld import privacy_loss_distribution as pld
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
p = {{expr}}
out = dict(value=p.{{question}}({{arg}}))
""" + CHILD_POST


def run_line(command: str, packages: tuple[str, ...] = ()) -> str:
    """``2026-11-26, `command`, x86_64, 2 cores, load 0.40, Python 3.11.7, numpy 2.4.6, ...``"""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    vers = []
    for mod in packages:
        try:
            vers.append(f"{mod} {metadata.version(mod)}")
        except metadata.PackageNotFoundError:
            vers.append(f"{mod} missing")
    return ", ".join([f"{date.today()}", f"`{command}`", platform.processor() or platform.machine(),
                      f"{os.cpu_count()} cores", f"load {load:.2f}",
                      f"Python {sys.version.split()[0]}", *vers])


class Report:
    """Rows printed as they come (flushed) and kept for :meth:`write`."""

    def __init__(self) -> None:
        self.rows: list[str] = []

    def out(self, line: str = "") -> None:
        print(line, flush=True)
        self.rows.append(line)

    def write(self, path: str | None) -> None:
        if path:
            with open(path, "w") as fh:
                fh.write("\n".join(self.rows) + "\n")
            print(f"written to {path}")


def timed(fn):
    """(fn(), seconds)."""
    t = time.perf_counter()
    v = fn()
    return v, time.perf_counter() - t


def child_json(code: str, timeout: float = 900, cwd: str | None = None,
               env: dict | None = None, args: tuple[str, ...] = ()) -> dict:
    """Run ``python -c code *args`` in a fresh process (environment ``env``, default this
    one's) and read the JSON object on its last line of output; ``{"error": ...}`` when it
    fails (the last line of its stderr) or runs past ``timeout`` seconds."""
    try:
        p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                           timeout=timeout, cwd=cwd, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"> {timeout} s"}
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["?"])[-1][:160]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def child_result(r: dict) -> dict:
    """The child's ``out`` (a dict) with its ``cpu`` and ``mib`` beside, from the JSON line of
    :data:`CHILD_POST` read by :func:`child_json`; ``{"error": ...}`` as it came."""
    if "error" in r:
        return r
    return {**r["out"], "cpu": r["cpu"], "mib": r["mib"]}
