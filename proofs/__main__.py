"""``python -m proofs [--json] [--paper NAME]``: state every registered claim of the seed papers
with ``ta.verify`` and print its verdict.

Text output: one block per claim (status, paper, locator, statement, seconds; then the method
and the evidence) and a closing summary. ``--json``: a JSON list of objects with the keys
``paper``, ``locator``, ``statement``, ``status``, ``method``, ``evidence``, ``seconds``.
Exit status 1 if a claim errors or fails without being registered as a misprint.
"""

import argparse
import json
import sys
from collections import Counter

from . import load_all
from ._claims import run_all

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
summary = (f"{len(results)} claims: " + ", ".join(f"{counts[k]} {k}" for k in (
    "holds", "fails as printed", "undecided", "not stated", "fails", "error"))
    + f"; {sum(r.seconds for r in results):.0f} s")
print(summary if not args.json else "", file=sys.stderr if args.json else sys.stdout)
sys.exit(1 if bad else 0)
