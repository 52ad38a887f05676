"""The README as written: its ```python blocks run in order in one fresh interpreter (a later
block sees the names of the earlier ones, as a reader pasting them into one session does), and
its ```bash lines that are ``tradeoff ...`` commands exit with the status the README documents
for them (``# ... exit N`` in the line's comment; 0 otherwise)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(lang: str) -> list[str]:
    """The README's fenced blocks of one language, in order."""
    return [body for tag, body in FENCE.findall(README.read_text(encoding="utf-8"))
            if tag == lang]


def commands() -> list[tuple[list[str], int, str]]:
    """``(argv, expected status, line)`` for each ``tradeoff ...`` line of the bash blocks."""
    out = []
    for body in blocks("bash"):
        for line in body.splitlines():
            if not line.startswith("tradeoff "):
                continue
            comment = line.partition("  #")[2]
            m = re.search(r"\bexit (\d+)", comment)
            argv = shlex.split(line, comments=True)[1:]
            out.append((argv, int(m.group(1)) if m else 0, line))
    return out


def _env() -> dict:
    env = dict(os.environ, MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def test_readme_has_python_blocks_and_commands():
    assert len(blocks("python")) >= 5
    assert len(commands()) >= 10


def test_readme_python_blocks_run_in_order_in_one_interpreter(tmp_path):
    source = "\n\n".join(f"# -- README block {i + 1}\n{b}" for i, b in enumerate(blocks("python")))
    script = tmp_path / "readme_blocks.py"
    script.write_text(source, encoding="utf-8")
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=_env(),
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.slow
def test_readme_commands_exit_as_documented(tmp_path):
    """Every ``tradeoff`` line, through the command's ``main`` (what the console script
    calls), in one fresh interpreter; its status against the README's."""
    cmds = commands()
    runner = ("import json, sys\nfrom tradeoff_algebra.cli import main\n"
              "out = []\nfor argv in json.loads(sys.argv[1]):\n"
              "    out.append(main(argv))\n    print(flush=True)\n"
              "print(json.dumps(out))\n")
    r = subprocess.run([sys.executable, "-c", runner, json.dumps([a for a, _, _ in cmds])],
                       cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    bad = [(line, want, status) for (_, want, line), status in zip(cmds, got, strict=True)
           if status != want]
    assert not bad, (bad, r.stderr[-2000:])
    assert "Traceback" not in r.stderr
