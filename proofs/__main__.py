"""``python -m proofs [--json] [--paper NAME]``: state every registered claim of the seed papers
with ``ta.verify`` and print its verdict.

Text output: one block per claim (status, paper, locator, statement, seconds; then the method,
the evidence and the cited basis) and a closing summary: the counts per status, per paper and in
all, and the time. ``--json``: a JSON list of objects with the keys ``paper``, ``locator``,
``statement``, ``status``, ``method``, ``evidence``, ``basis`` (the rules, closed forms, routes
and computations used, each ``{"kind", "name", "cite"}``), ``scope`` (``boxes``: the parameter
boxes covered; ``instances``: how many verdicts without free parameters; ``missing`` for a
claim not stated), ``seconds``, and where they apply ``circular`` (the basis items that are the
claim itself) and ``crosscheck`` (status, certified, basis, scope, evidence); the closing
summary goes to stderr. Statuses: see :mod:`proofs._claims`.
Exit status 1 if a claim errors or fails without being registered as a misprint.
"""

import argparse
import json
import sys
from collections import Counter

from . import load_all
from ._claims import STATUSES, run_all

ap = argparse.ArgumentParser(prog="python -m proofs", description=__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--json", action="store_true", help="print a JSON list instead of text")
ap.add_argument("--paper", help="only claims whose paper contains this text")
args = ap.parse_args()

load_all()
select = (lambda c: args.paper.lower() in c.paper.lower()) if args.paper else None
results = run_all(verbose=not args.json, select=select)
if args.json:
    print(json.dumps([r.as_json() for r in results], indent=1, ensure_ascii=False))
counts = Counter(r.status for r in results)
bad = counts["fails"] + counts["error"]
total = sum(r.seconds for r in results)


def _line(rs) -> str:
    cs = Counter(r.status for r in rs)
    return ", ".join(f"{cs[k]} {k}" for k in STATUSES if cs[k])


lines = [f"{len(results)} claims: {_line(results)}; {total:.0f} s"]
for paper in dict.fromkeys(r.claim.paper for r in results):
    rs = [r for r in results if r.claim.paper == paper]
    lines.append(f"  {paper} ({len(rs)}): {_line(rs)}; {sum(r.seconds for r in rs):.0f} s")
print("\n".join(lines), file=sys.stderr if args.json else sys.stdout)
sys.exit(1 if bad else 0)
