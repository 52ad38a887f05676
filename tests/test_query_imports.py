"""A first query pays no import: SymPy's Add.flatten imports sympy.tensor.tensor (with
sympy.combinatorics, about 22 ms of CPU) at its first call, which the exact finite tables make;
numeric/finite.py takes it with the package. Checked in a fresh process: the modules loaded by
eps(1e-6) of f_{1/10,0}^10 and of L(1/10)^10 after ``import tradeoff_algebra``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CHILD = r"""
import json, sys, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
import sympy as sp
import tradeoff_algebra as ta
before = set(sys.modules)
for f, d in ((ta.EpsDelta(sp.Rational(1, 10), 0) ** 10, sp.Rational(1, 10**6)),
             (ta.Laplace(sp.Rational(1, 10)) ** 10, sp.Rational(1, 10**6))):
    ta.epsilon(f, d, dps=20)
print(json.dumps(sorted(set(sys.modules) - before)))
"""


@pytest.mark.slow
def test_first_queries_import_no_sympy_tensor():
    out = subprocess.run([sys.executable, "-c", _CHILD.format(root=ROOT)], capture_output=True,
                         text=True, timeout=300, check=True).stdout
    new = json.loads(out.strip().splitlines()[-1])
    assert not [m for m in new if m.startswith(("sympy.tensor", "sympy.combinatorics"))], new
