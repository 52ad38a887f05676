"""The seed papers' claims, checked numerically by independent routes: ``python -m proofs``.

One module per paper. Each claim is a function decorated with :func:`claim`; it returns a
:class:`Check` whose status is ``"holds"`` (with the evidence: points, digits, largest gap),
``"fails"`` (with a counterexample) or ``"fails as printed"`` (the printed statement is wrong
and the corrected one, implemented by the library, holds; see ``drs_counterexamples.md``).
"""

from ._claims import CLAIMS, Check, claim, run_all

__all__ = ["CLAIMS", "Check", "claim", "run_all"]
