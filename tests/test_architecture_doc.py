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


def blocks(title: str) -> list[str]:
    """The Python blocks of one section of the document, in order."""
    section = DOC.read_text().split(f"## {title}", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def run_section(title: str) -> str:
    """The Python blocks of one section of the document, run in order in a fresh process."""
    code = "\n".join(blocks(title))
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
    assert lines[1] == "(mpf('0.0'), mpf('0.0'))"  # the route's proved pair
    assert lines[2] == "True"


def _phi(x):
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


def test_adding_a_cli_subcommand_runs():
    lines = run_section("Adding a CLI subcommand").strip().splitlines()
    with mpmath.workdps(40):  # AUC(G_1) = Phi(1/sqrt 2) (Kaissis et al., Lemma 3), at 20 digits
        assert abs(mpmath.mpf(lines[0]) - _phi(1 / mpmath.sqrt(2))) < mpmath.mpf(10) ** -19
    assert lines[1:] == ["0", "2", "False 2"]  # the statuses; then gone from the registry


def test_the_cli_subcommand_example_in_this_process(capsys):
    """The registration block run here: the subcommand answers through main, is listed by
    --help with its example, and unregistering leaves the registry as it was."""
    from tradeoff_algebra.cli import COMMANDS, main, unregister

    before = list(COMMANDS)
    try:
        exec(blocks("Adding a CLI subcommand")[0], {"__name__": "architecture_example"})
        assert list(COMMANDS) == before + ["auc"]
        assert main(["auc", "EpsDelta(1, 0)", "--dps", "25"]) == 0
        out, err = capsys.readouterr()
        with mpmath.workdps(40):  # under f_{1,0}: two triangles of area x/2 split by the
            ref = 1 - 1 / (1 + mpmath.e)  # diagonal, x = 1/(1 + e) the fixed point
            assert err == "" and abs(mpmath.mpf(out) - ref) < mpmath.mpf(10) ** -24
        assert main(["auc", "G(1)", "--dps", "0"]) == 2
        assert "parameter dps = 0" in capsys.readouterr().err
        assert main(["auc", "mu + 1"]) == 2
        assert "a trade-off expression" in capsys.readouterr().err
        with pytest.raises(SystemExit):
            main(["--help"])
        help_text = " ".join(capsys.readouterr().out.split())
        assert 'tradeoff auc "G(1)"' in help_text and "Kaissis et al., Lemma 3" in help_text
    finally:
        if "auc" in COMMANDS:
            unregister("auc")
    assert list(COMMANDS) == before
    assert main(["auc", "G(1)"]) == 2 and "invalid choice: 'auc'" in capsys.readouterr().err


@pytest.mark.parametrize("path", sorted((ROOT / "tradeoff_algebra").rglob("*.py")),
                         ids=lambda p: p.name)
def test_no_pointer_outside_the_repository(path):
    assert "DESIGN.md" not in path.read_text()
    for ref in re.findall(r"docs/[\w./-]+\.md", path.read_text()):
        assert (ROOT / ref).exists(), ref
