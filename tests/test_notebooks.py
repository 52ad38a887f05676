"""Every notebook in notebooks/ executes without a cell error and is stored without outputs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))

# The notebooks plot with matplotlib (the `plot` extra); nbclient, nbformat and ipykernel come
# with the `test` extra.
_NEEDED = ("nbformat", "nbclient", "ipykernel", "matplotlib")


def _missing() -> list[str]:
    return [m for m in _NEEDED if importlib.util.find_spec(m) is None]


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebooks in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    for i, cell in enumerate(code):
        assert cell.outputs == [] and cell.execution_count is None, f"code cell {i} has outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_without_errors(path):
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
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, kernel_name="python3", timeout=300,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError at the first failing cell
    errors = [(i, out.get("ename"), out.get("evalue"))
              for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
              for out in cell.get("outputs", []) if out.output_type == "error"]
    assert not errors, errors
    executed = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in executed)
