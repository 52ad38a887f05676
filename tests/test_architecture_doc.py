"""docs/architecture.md stays true: its worked example (a new family plugged in through the
dispatch points and a group hook, touching no other module) runs, and the package points to
no file outside the repository."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"


def test_worked_example_runs():
    text = DOC.read_text()
    section = text.split("## Adding a family: a worked example", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "= Power(1/8)" in out.stdout and "[power_group: Exponential pair" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "1.0e-15"


@pytest.mark.parametrize("path", sorted((ROOT / "tradeoff_algebra").rglob("*.py")),
                         ids=lambda p: p.name)
def test_no_pointer_outside_the_repository(path):
    assert "DESIGN.md" not in path.read_text()
    for ref in re.findall(r"docs/[\w./-]+\.md", path.read_text()):
        assert (ROOT / ref).exists(), ref
