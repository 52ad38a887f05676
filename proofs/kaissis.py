"""Claims of Kaissis et al., "A unified interpretation of the Gaussian mechanism ... sensitivity
index", each stated with ``ta.verify``; the independent cross-check is
:func:`proofs.independent.auc_quadrature` (Arb integration of P(Y > X))."""

from __future__ import annotations

import sympy as sp

import tradeoff_algebra as ta

from ._claims import stated
from .independent import auc_quadrature

PAPER = "Kaissis et al."


_Delta, _sigma = sp.symbols("Delta sigma", positive=True)
stated(PAPER, "AUC of the Gaussian mechanism", "AUC = Phi(psi / sqrt 2) for psi = Delta/sigma, "
       "for all Delta, sigma > 0",
       lambda: ta.verify(ta.auc(ta.gaussian_mechanism(_Delta, _sigma)), "==",
                         ta.Phi(_Delta / _sigma / sp.sqrt(2))),
       crosscheck=auc_quadrature, also="Lemma 3")
