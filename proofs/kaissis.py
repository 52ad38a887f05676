"""Claims of Kaissis et al., "A unified interpretation of the Gaussian mechanism ... sensitivity
index", each stated with ``ta.verify``; the hand-written function below is the independent
cross-check (quadrature of the ROC curve)."""

from __future__ import annotations

import mpmath
import sympy as sp
from mpmath import mp

import tradeoff_algebra as ta

from ._claims import Check, stated

PAPER = "Kaissis et al."


def auc_gaussian() -> Check:
    worst = mp.zero
    with mp.workdps(30):
        for psi in [sp.Rational(1, 10), 1, sp.Rational(5, 2), 6]:
            f = ta.gaussian_mechanism(1, 1 / sp.sympify(psi))  # psi = Delta / sigma
            # The area under the ROC curve alpha -> 1 - f(alpha), by quadrature of the power.
            area = mpmath.quad(lambda a, f=f: ta.roc(f, a, dps=30).mid, [0, mp.mpf("0.5"), 1])
            closed = mpmath.ncdf(mpmath.mpf(sp.N(psi, 40)) / mpmath.sqrt(2))
            worst = max(worst, abs(area - closed))
    return Check("holds" if worst < mp.mpf(10) ** -15 else "fails",
                 f"quadrature of the ROC curve against Phi(psi/sqrt 2) at psi in "
                 f"{{0.1, 1, 2.5, 6}}: worst gap {mpmath.nstr(worst, 3)}")


_Delta, _sigma = sp.symbols("Delta sigma", positive=True)
stated(PAPER, "AUC of the Gaussian mechanism", "AUC = Phi(psi / sqrt 2) for psi = Delta/sigma, "
       "for all Delta, sigma > 0",
       lambda: ta.verify(ta.auc(ta.gaussian_mechanism(_Delta, _sigma)), "==",
                         ta.Phi(_Delta / _sigma / sp.sqrt(2))),
       crosscheck=auc_gaussian)
