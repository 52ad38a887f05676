"""Smoke test: the package imports and the demo runs."""

import sympy as sp
from precision import workdps

import tradeoff_algebra as ta
from tradeoff_algebra.cli import main


def test_demo_runs(capsys):
    assert main(["demo", "--dps", "20"]) == 0
    out = capsys.readouterr().out
    assert "G_{\\mu}" in out and "Phi(" in out


def test_gaussian_half_is_phi_minus_mu():
    # G_mu(1/2) = Phi(-mu); Phi(-1) = erfc(1/sqrt 2)/2 by mpmath directly.
    import mpmath

    v = ta.evaluate(ta.G(1), sp.Rational(1, 2), dps=40)
    with workdps(60):
        ref = mpmath.erfc(1 / mpmath.sqrt(2)) / 2
    assert abs(v.mid - ref) < mpmath.mpf(10) ** -40
