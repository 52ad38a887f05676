"""The seed papers' claims, each stated with ``ta.verify``: ``python -m proofs [--json]``.

Claims are registered in the ``claims_*`` modules (one per paper or part) with
:func:`~proofs._claims.stated`, :func:`~proofs._claims.misprint` and
:func:`~proofs._claims.not_stated`; ``audit/`` holds the claim-by-claim audits they follow,
with the independent checks and the misprints found. ``drs.py``, ``kaissis.py`` and
``wang.py`` hold independent reference computations (quadrature, brute-force Neyman-Pearson,
exact envelopes) used as cross-checks of the library's numbers.
"""

import importlib
import pkgutil

from ._claims import CLAIMS, Check, claim, misprint, not_stated, run_all, stated

__all__ = ["CLAIMS", "Check", "claim", "stated", "misprint", "not_stated", "run_all",
           "load_all"]


def load_all() -> None:
    """Import every claims module (registration happens at import)."""
    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if m.name.startswith("claims_") or m.name in ("drs", "kaissis", "wang"):
            importlib.import_module(f"{__name__}.{m.name}")
