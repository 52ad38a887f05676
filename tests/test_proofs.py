"""The seed papers' claims (``python -m proofs --json``) all hold, or hold as corrected.

The default run states the claims of one short paper (Dwork & Roth's); the whole run of every
paper (about 11 minutes on two cores, with the misprints of Dong, Roth & Su below) runs with
``TA_PROOFS_FULL=1``, as ``.ci/run`` does after the suite."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEYS = {"paper", "locator", "statement", "status", "method", "evidence", "seconds"}
# The misprints found in Dong, Roth & Su (proofs/drs_counterexamples.md): the printed form is
# refuted with a certified counterexample and the corrected form is proved. (Cor. 4 is refuted
# through the PLD engine's delta of C_p(G_1)^{(x) 25600}, a float64 bound that is an estimate:
# undecided until that route is certified, and its evidence says so.)
DRS_MISPRINTS = ("Cor. 3, Eq. (14)", "Prop. 7 (remark)")
ESTIMATE_ONLY = ("Cor. 4",)


FULL = os.environ.get("TA_PROOFS_FULL") == "1"


def test_python_m_proofs_json():
    which = [] if FULL else ["--paper", "Dwork"]
    out = subprocess.run([sys.executable, "-m", "proofs", "--json", *which], cwd=ROOT,
                         capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stdout[-5000:] + out.stderr[-5000:]
    results = json.loads(out.stdout)
    assert isinstance(results, list)
    assert len(results) >= 15  # other claims modules add more; never fewer than these
    if not FULL:
        assert all("Dwork" in r["paper"] for r in results)
        return
    for r in results:
        assert KEYS <= set(r), r
    bad = [r for r in results if r["status"] in ("fails", "error")]
    assert not bad, json.dumps(bad, indent=1, ensure_ascii=False)
    for locator in DRS_MISPRINTS:  # other modules may state further parts of the same locator
        found = [r["status"] for r in results
                 if r["paper"] == "Dong, Roth & Su" and r["locator"] == locator]
        assert "fails as printed" in found, (locator, found)
    for locator in ESTIMATE_ONLY:
        found = [r for r in results
                 if r["paper"] == "Dong, Roth & Su" and r["locator"] == locator]
        assert found and all(r["status"] in ("fails as printed", "undecided") for r in found)
        assert all("estimate" in r["evidence"] for r in found if r["status"] == "undecided")
