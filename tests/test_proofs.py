"""The seed papers' claims (``python -m proofs``) all hold, or hold as corrected."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_python_m_proofs_passes():
    out = subprocess.run([sys.executable, "-m", "proofs"], cwd=ROOT, capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 fail or error" in out.stdout
    # The three misprints found so far (Cor. 3 Eq. (14), the remark after Prop. 7, Cor. 4) are
    # reported as such, not silently passed.
    assert out.stdout.count("[fails as printed]") == 3
    for locator in ("Cor. 3, Eq. (14)", "Prop. 7 (remark)", "Cor. 4:"):
        assert f"[fails as printed] Dong, Roth & Su, {locator}" in out.stdout
