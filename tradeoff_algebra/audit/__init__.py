"""Audits against the certified curve: do an attack's observed errors refute a claimed
guarantee? (``binomial``: Clopper–Pearson bounds proved in Arb; ``bounds``: what a confidence
box refutes; ``attack``: audits from scores and from counts; ``one_run``: the one-run audit of
Steinke, Nasr & Jagielski; ``result``: the :class:`Audit` record, its plot and LaTeX.)"""

from .attack import audit, audit_counts
from .binomial import clopper_pearson
from .one_run import OneRunAudit, audit_one_run, one_run_p_value
from .result import Audit, AuditPoint

__all__ = ["audit", "audit_counts", "clopper_pearson", "Audit", "AuditPoint",
           "OneRunAudit", "audit_one_run", "one_run_p_value"]
