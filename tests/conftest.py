"""Test-suite setup: the shared helper modules of ``tests/`` (references, precision) are
importable from the test files in its subfolders too."""

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

# Property tests run derandomised by default, so that a run of the suite is reproducible; set
# TA_HYPOTHESIS_PROFILE=explore for fresh random examples. Neither has hypothesis's deadline
# (200 ms per example by default): tests never assert wall-clock times.
import os  # noqa: E402

from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("TA_HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    """The long run of tests/test_guarantee_property.py (skipped unless --guarantee-trees)."""
    group = parser.getgroup("guarantee", "property suite of stated guarantees")
    group.addoption("--guarantee-trees", type=int, default=0,
                    help="random trees for the long run (0: skip it)")
    group.addoption("--guarantee-seed", type=int, default=0, help="first seed of the long run")
    group.addoption("--guarantee-minutes", type=float, default=None,
                    help="start no tree after this many minutes")
    group.addoption("--guarantee-out", default=None, help="JSON file of the tallies")
    group = parser.getgroup("families", "family suite (tests/test_families.py)")
    group.addoption("--families-all", action="store_true", default=False,
                    help="check every sample of every (family x capability), not only the cheap "
                         "ones (also: TA_FAMILIES_FULL=1)")
