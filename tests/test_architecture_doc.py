"""docs/architecture.md stays true: its worked example (a new family plugged in through the
dispatch points and a group hook, touching no other module) runs, and the package points to
no file outside the repository."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import mpmath
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"


def run_section(title: str) -> str:
    """The Python blocks of one section of the document, run in order in a fresh process."""
    section = DOC.read_text().split(f"## {title}", 1)[1].split("\n## ", 1)[0]
    code = "\n".join(re.findall(r"```python\n(.*?)```", section, re.S))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_worked_example_runs():
    out = run_section("Adding a family: a worked example")
    assert "= Power(1/8)" in out and "[power_group: Exponential pair" in out
    lines = out.strip().splitlines()
    assert lines[-4] == "1.0e-15"
    assert lines[-3] == "-1/2 + log(2)"  # KL(Exp(1) || Exp(1/2)) = r - 1 - log r
    with mpmath.workdps(30):  # e^{-1}/4 and log 25, the closed forms derived in the text
        assert abs(mpmath.mpf(lines[-2]) - mpmath.exp(-1) / 4) < mpmath.mpf(10) ** -19
        assert abs(mpmath.mpf(lines[-1]) - mpmath.log(25)) < mpmath.mpf(10) ** -18


def test_adding_a_route_runs():
    lines = run_section("Adding a route").strip().splitlines()
    assert lines[0].startswith("['pure DP") and "privacy-loss distribution" in lines[0]
    assert lines[1].startswith("Value(0.0, dps=30")
    assert lines[2] == "True"


@pytest.mark.parametrize("path", sorted((ROOT / "tradeoff_algebra").rglob("*.py")),
                         ids=lambda p: p.name)
def test_no_pointer_outside_the_repository(path):
    assert "DESIGN.md" not in path.read_text()
    for ref in re.findall(r"docs/[\w./-]+\.md", path.read_text()):
        assert (ROOT / ref).exists(), ref
