"""The symmetry of the standard normal in verify's symbolic decision (verify/api.py,
``_phi_canonical``): the canonical form is numerically the same expression, and the identities
it serves are decided for every parameter."""

from __future__ import annotations

import random

import sympy as sp

import tradeoff_algebra as ta
from tradeoff_algebra.numeric.context import mp
from tradeoff_algebra.verify.api import _phi_canonical

psi = sp.Symbol("psi", positive=True)
x = sp.Symbol("x", positive=True)


def _num(e, vals):
    with mp.workdps(40):
        return mp.mpf(sp.N(e.subs(vals), 40))


def test_canonical_form_has_the_same_values():
    rng = random.Random(7)
    exprs = [ta.PhiInv(1 - x), ta.Phi(-psi - ta.PhiInv(x)), 1 - ta.G(psi)(x),
             ta.PhiInv(1 - x / 3) + ta.Phi(psi - ta.PhiInv(1 - x)), ta.PhiInv(x)]
    for e in exprs:
        c = _phi_canonical(e)
        for _ in range(5):
            vals = {psi: sp.Rational(rng.randint(1, 400), 37),
                    x: sp.Rational(rng.randint(1, 999), 1000)}
            with mp.workdps(40):
                assert abs(_num(e, vals) - _num(c, vals)) < mp.mpf(10) ** -35


def test_roc_identity_is_proved_for_every_parameter():
    v = ta.verify(ta.Phi(psi + ta.PhiInv(x)), "==", 1 - ta.G(psi)(x),
                  over={psi: (0, sp.oo), x: (0, 1)})
    assert v.status is True and "symmetry of N(0, 1)" in v.evidence


def test_a_wrong_identity_is_not_proved():
    v = ta.verify(ta.Phi(psi + ta.PhiInv(x)), "==", ta.G(psi)(x),
                  over={psi: (0, 3), x: (0, 1)})
    assert v.status is False
