"""Run a notebook of this folder with some of its parameters overridden.

Each notebook's first code cell is tagged ``parameters`` (papermill's convention) and holds
its budget. :func:`execute` inserts a cell after it that sets other values, and runs the
notebook in a fresh ``python3`` kernel whose ``PYTHONPATH`` starts with this checkout. The
test suite runs every notebook with tiny budgets (``tests/test_notebooks.py``); the docs
site runs them with :data:`DOCS_BUDGETS` and shows the pages with their outputs
(``docs/conf.py``), so the outputs on the site are those of the code it documents.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent
REPO = NOTEBOOKS.parent

#: The budgets the docs site runs each notebook with: small enough that ``make docs`` runs
#: all three in a couple of minutes on 2 cores, large enough that the outputs mean something.
DOCS_BUDGETS = {
    "quickstart.ipynb": {},
    "train_and_evaluate.ipynb": {
        "RECORD_STEPS": 6_000,
        "BC_EPOCHS": 1,
        "PPO_STEPS": 8_000,
        "ROLLOUT_STEPS": 2_000,
        "EVAL_EVERY": 1,
        "EVAL_DEALS": 10,
        "HIDDEN": "128,64",
        "ENVS": 16,
        "JOBS": 0,
        "EVAL_HANDS": 40,
    },
    "tournament.ipynb": {"HANDS": 60, "JOBS": 1},
}
#: The first line of the inserted cell, so that a reader sees why the values differ.
INJECTED_NOTE = "# run here with other budgets than the notebook's own (the cell above)"


def parameters_cell(notebook) -> int:
    """The index of the notebook's parameters cell: its first code cell, tagged."""
    first = next(i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code")
    if "parameters" not in notebook.cells[first].metadata.get("tags", []):
        raise ValueError("the first code cell must be tagged 'parameters'")
    return first


def with_overrides(notebook, overrides: dict):
    """The notebook with a cell setting ``overrides`` after its parameters cell."""
    import nbformat

    if not overrides:
        return notebook
    source = "\n".join([INJECTED_NOTE, *(f"{key} = {value!r}" for key, value in overrides.items())])
    injected = nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]})
    notebook.cells.insert(parameters_cell(notebook) + 1, injected)
    return notebook


#: nbclient's log without its INFO lines ("Executing notebook with kernel: python3").
_QUIET = logging.getLogger("canasta.notebooks")
_QUIET.setLevel(logging.WARNING)


@contextlib.contextmanager
def _kernel_environment():
    """This checkout first on the kernel's path; the kernel's own inline plots."""
    saved = {key: os.environ.get(key) for key in ("PYTHONPATH", "MPLBACKEND")}
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), saved["PYTHONPATH"]) if p)
    os.environ.pop("MPLBACKEND", None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def execute(notebook, overrides: dict, timeout: int = 300):
    """Run ``notebook`` (an ``nbformat`` notebook, changed in place) with ``overrides``
    inserted after its parameters cell, in this folder; raises ``CellExecutionError`` on a
    cell's error."""
    try:
        import nbclient
    except ImportError as error:
        raise ImportError(
            f"running a notebook needs nbclient and ipykernel (the dev extra): {error}"
        ) from error

    with_overrides(notebook, overrides)
    client = nbclient.NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=timeout,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
        log=_QUIET,
    )
    with _kernel_environment():
        client.execute()
    return notebook
