"""How many tail inverters a whole curve of the inversion plans (routes/inversion_curve.py):
a direction stops planning once a plan fails to better the error bound where it was made, or
would be one it made already. Reference: dp_accounting's power bracket of DP-SGD stored in
tests/test_dpsgd_fewstep_curve.py (recomputed by its slow test)."""

import warnings

import numpy as np
import pytest
from test_dpsgd_fewstep_curve import BRACKETS, SIGMA, Q, _meets

import tradeoff_algebra as ta
from tradeoff_algebra.routes import inversion_curve


def _count_plans(monkeypatch) -> list:
    seen: list = []
    orig = inversion_curve._Tails.plan

    def plan(self, e0):
        seen.append((id(self), float(self.reach(e0))))
        return orig(self, e0)

    monkeypatch.setattr(inversion_curve._Tails, "plan", plan)
    return seen


@pytest.mark.slow
def test_ten_steps_plan_each_abscissa_once(monkeypatch):
    """T = 10 at tol 1e-9 (the remove direction's loss is at most T log(1/(1 - q)): its points
    near eps = 0 keep their error bound whatever is planned; it planned 15 times at one
    abscissa, 0.7 s of one eps call's 0.8 s): every plan at its own abscissa, at most three, and
    the band meets dp_accounting's bracket at 1e-8 relative width."""
    seen = _count_plans(monkeypatch)
    f = ta.noisy_sgd(SIGMA, Q, 10)
    x = np.linspace(0, 1, 101)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = inversion_curve.inversion_band(f, x, 1e-9)
    assert len(seen) == len(set(seen)) and len(seen) <= 4
    assert _meets(float(b.power_lo[1]), float(b.power_hi[1]), BRACKETS[(10, 0.01)])
    inner = (x > 0) & (x < 1)
    assert np.all(b.power_hi[inner] - b.power_lo[inner] <= 1e-8 * b.power_hi[inner])

