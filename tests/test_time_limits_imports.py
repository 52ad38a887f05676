"""A first import inside a timed call is counted against the deadline before it starts
(numeric/progress.py, ``_ImportCost`` and ``IMPORT_SECONDS``): scipy's submodules, imported at
first use, take a few tenths of a second that no check can interrupt (the first call under a
limit of 0.05 s overran by 0.2 to 0.5 s). Where the time left cannot cover the import it is
refused at once with TimeLimitExceeded naming it, and the module is not imported.

Limits are checked by the kind of the exception and by what was imported, never by measuring
seconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import tradeoff_algebra as ta
from tradeoff_algebra.numeric import budget, cf_route, progress

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def slow_module(tmp_path, monkeypatch):
    """A module on the path, counted as an import of 5 s; and one that imports it."""
    (tmp_path / "ta_slow_import.py").write_text("VALUE = 1\n")
    (tmp_path / "ta_outer_import.py").write_text("import ta_slow_import\nVALUE = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(progress.IMPORT_SECONDS, "ta_slow_import", 5.0)
    monkeypatch.setitem(progress.IMPORT_SECONDS, "ta_outer_import", 0.0)
    for name in ("ta_slow_import", "ta_outer_import"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    yield
    for name in ("ta_slow_import", "ta_outer_import"):
        sys.modules.pop(name, None)


def test_an_import_the_time_left_cannot_cover_is_refused_naming_it(slow_module):
    with pytest.raises(ta.TimeLimitExceeded, match="importing ta_slow_import"):
        with ta.time_limit(1), budget.call("the test's call"):
            import ta_slow_import  # noqa: F401
    assert "ta_slow_import" not in sys.modules


def test_outside_a_call_or_with_time_enough_the_import_proceeds(slow_module):
    import ta_slow_import
    assert ta_slow_import.VALUE == 1
    sys.modules.pop("ta_slow_import")
    with ta.time_limit(60), budget.call("the test's call"):
        import ta_slow_import  # noqa: F811
    assert "ta_slow_import" in sys.modules


def test_a_nested_import_is_part_of_the_outer_one(slow_module):
    """An import made by a module being imported is never refused: that would leave the outer
    module half imported (its cost is the outer module's)."""
    with ta.time_limit(1), budget.call("the test's call"):
        import ta_outer_import
    assert ta_outer_import.VALUE == 2 and "ta_slow_import" in sys.modules


def test_the_inversion_never_takes_the_time_limit_for_a_declined_plan(monkeypatch):
    """TimeLimitExceeded is an ArithmeticError (a NumericalError): the inversion's planning,
    which tries the next plan when one raises ValueError or ArithmeticError, let it pass and
    went on past the limit (eps of Laplace(1)^50 at 1e-5 under 0.05 s returned after 2 s)."""
    from fractions import Fraction

    from tradeoff_algebra.families.laplace import LaplaceLaw

    def stopped(*a, **k):
        raise budget.TimeLimitExceeded("the test's call", 0.05)

    monkeypatch.setattr(cf_route, "_at", stopped)
    with pytest.raises(ta.TimeLimitExceeded):
        cf_route._split([(LaplaceLaw(Fraction(1)), 50)], "epsilon", 1e-5, 1e-6)


_CHILD = r"""
import json, sys, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
import sympy as sp
import tradeoff_algebra as ta
R = sp.Rational
out = {{}}
for name, call in {calls!r}:
    try:
        with ta.time_limit(0.05):
            eval(call)
        out[name] = "finished"
    except ta.TimeLimitExceeded as exc:
        out[name] = "stopped: " + str(exc)
out["scipy.special imported"] = "scipy.special" in sys.modules
print(json.dumps(out))
"""


@pytest.mark.slow
def test_a_first_call_under_a_tiny_limit_does_not_start_the_import():
    """In a fresh process, the first PLD and grid calls under 0.05 s: TimeLimitExceeded, and
    scipy.special (0.4 s to import) is not imported: before, the import ran to its end past
    the limit."""
    # (a Skellam factor: the PLD engine answers its value; G(1) @ L(1) alone is answered by the
    # band of its certified profile, without scipy, within the limit)
    calls = [("G (x) L", "ta.evaluate(ta.G(1) @ ta.Laplace(1) @ ta.Skellam(1, 3), R(1, 10))"),
             ("PoissonReplace^3", "ta.delta(ta.PoissonReplace(1, R(1, 10)) ** 3, 1)")]
    r = subprocess.run([sys.executable, "-c", _CHILD.format(root=str(ROOT), calls=calls)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    for name, _ in calls:
        assert out[name].startswith("stopped"), out
    assert out["scipy.special imported"] is False, out
