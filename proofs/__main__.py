"""``python -m proofs``: check every claim of the seed papers; exit 1 if a check errors or an
unexpected failure appears."""

import sys

from . import drs, kaissis, wang  # noqa: F401  (registers the claims)
from ._claims import run_all

results = run_all()
bad = [c for c, chk, _ in results if chk.status in ("error", "fails")]
print(f"\n{len(results)} claims checked: "
      f"{sum(chk.status == 'holds' for _, chk, _ in results)} hold, "
      f"{sum(chk.status == 'fails as printed' for _, chk, _ in results)} hold only as corrected, "
      f"{len(bad)} fail or error")
sys.exit(1 if bad else 0)
