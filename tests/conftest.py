"""Test-suite setup: the shared helper modules of ``tests/`` (references, precision) are
importable from the test files in its subfolders too."""

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

# Property tests run derandomised by default, so that a run of the suite is reproducible; set
# TA_HYPOTHESIS_PROFILE=explore for fresh random examples.
import os  # noqa: E402

from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("TA_HYPOTHESIS_PROFILE", "ci"))
