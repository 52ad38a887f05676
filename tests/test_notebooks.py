"""Every notebook in notebooks/ is stored executed, with its figures (an image/png output in
each notebook that plots), without errors; and executes again without a cell error."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))

# The notebooks plot with matplotlib (the `plot` extra); nbclient, nbformat and ipykernel come
# with the `test` extra.
_NEEDED = ("nbformat", "nbclient", "ipykernel", "matplotlib")
#: Source that draws a figure.
_PLOTS = ("plt.", "ta.plot(")


def _missing() -> list[str]:
    return [m for m in _NEEDED if importlib.util.find_spec(m) is None]


def _plots(nb) -> bool:
    return any(c.cell_type == "code" and any(p in c.source for p in _PLOTS) for c in nb.cells)


def _figures(nb) -> int:
    return sum("image/png" in out.get("data", {}) for c in nb.cells if c.cell_type == "code"
               for out in c.get("outputs", []))


def _errors(nb) -> list:
    return [(i, out.get("ename"), out.get("evalue"))
            for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for out in cell.get("outputs", []) if out.output_type == "error"]


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebooks in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_executed_with_its_figures(path):
    """A reader on GitHub sees the outputs: every code cell ran, in order, none failed, and a
    notebook that plots holds its figures."""
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), f"not executed in order: {counts}"
    assert not _errors(nb), _errors(nb)
    if _plots(nb):
        assert _figures(nb) >= 1, f"{path.name} plots but stores no figure (image/png)"


def test_the_notebooks_that_plot_are_known():
    """The check above is not vacuous: the notebooks that draw figures are found as such."""
    nbformat = pytest.importorskip("nbformat")
    plotting = {p.name for p in NOTEBOOKS if _plots(nbformat.read(p, as_version=4))}
    assert {"01_basics.ipynb", "02_composition.ipynb", "04_accounting.ipynb"} <= plotting


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_without_errors(path, monkeypatch):
    missing = _missing()
    if missing:
        pytest.skip(f"executing notebooks needs {', '.join(missing)} (pip install -e "
                    "'.[test,plot]')")
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    from nbclient import NotebookClient

    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        pytest.skip("no 'python3' Jupyter kernel is installed (python -m ipykernel install)")
    # the kernel imports this checkout (its working directory is notebooks/, where a relative
    # PYTHONPATH would point elsewhere)
    root = str(NOTEBOOK_DIR.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:  # run from a clean state, not from the stored outputs
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    client = NotebookClient(nb, kernel_name="python3", timeout=300,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError at the first failing cell
    assert not _errors(nb), _errors(nb)
    executed = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in executed)
    if _plots(nb):
        assert _figures(nb) >= 1, f"{path.name} drew no figure"
