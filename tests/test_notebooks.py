"""The notebooks in notebooks/ run end to end, on tiny budgets, and are stored clean.

Each notebook's first code cell is tagged ``parameters`` (papermill's convention) and
holds its budget; the test injects a cell after it that sets smaller values, runs the
notebook in a fresh ``python3`` kernel whose ``PYTHONPATH`` starts with this checkout
(so a worktree tests its own code), and fails on any cell error, on anything written to
stderr (warnings included), and when the outputs lack what the notebook is for.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from notebooks import run
from notebooks.run import parameters_cell

NOTEBOOKS = Path(run.NOTEBOOKS)
ALL_NOTEBOOKS = sorted(NOTEBOOKS.glob("*.ipynb"))

#: The budgets the suite runs each notebook with (names of its parameters cell).
TINY = {
    "quickstart.ipynb": {"BOT_HANDS": 4},
    "train_and_evaluate.ipynb": {
        "RECORD_STEPS": 400,
        "BC_EPOCHS": 1,
        "PPO_STEPS": 600,
        "ROLLOUT_STEPS": 300,
        "EVAL_EVERY": 1,
        "EVAL_DEALS": 2,
        "HIDDEN": "32",
        "ENVS": 8,
        "JOBS": 0,
        "EVAL_HANDS": 4,
    },
    "tournament.ipynb": {"HANDS": 4, "JOBS": 1},
}


def _nbformat():
    return pytest.importorskip("nbformat", reason="nbformat is not installed (dev extra)")


def stored_output_problems(notebook) -> list[str]:
    """What a notebook stored with outputs shows: outputs, execution counts, widget state."""
    problems = []
    if "widgets" in notebook.metadata:
        problems.append("notebook metadata holds widget state")
    for number, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        if cell.get("outputs"):
            problems.append(f"cell {number} has outputs")
        if cell.get("execution_count") is not None:
            problems.append(f"cell {number} has execution_count {cell.execution_count}")
        if "execution" in cell.metadata or "widgets" in cell.metadata:
            problems.append(f"cell {number} metadata holds execution or widget state")
    return problems


def test_every_notebook_has_a_budget_for_the_suite_and_the_docs():
    assert {path.name for path in ALL_NOTEBOOKS} == set(TINY) == set(run.DOCS_BUDGETS)


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path):
    nbformat = _nbformat()
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert stored_output_problems(notebook) == []
    # every name the suite overrides is a parameter the notebook declares
    source = notebook.cells[parameters_cell(notebook)].source
    for name in {*TINY[path.name], *run.DOCS_BUDGETS[path.name]}:
        assert re.search(rf"^{name} = ", source, re.MULTILINE), f"{name} not in {path.name}"


def test_the_output_check_sees_outputs():
    nbformat = _nbformat()
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
    assert stored_output_problems(notebook) == []
    notebook.cells[0].execution_count = 1
    notebook.cells[0].outputs = [nbformat.v4.new_output("stream", text="1")]
    notebook.metadata["widgets"] = {}
    assert len(stored_output_problems(notebook)) == 3


def execute(name: str, overrides: dict):
    """Run notebook ``name`` with ``overrides`` injected after its parameters cell."""
    nbformat = _nbformat()
    pytest.importorskip("nbclient", reason="nbclient is not installed (dev extra)")
    pytest.importorskip("ipykernel", reason="ipykernel is not installed (dev extra)")
    notebook = run.execute(nbformat.read(NOTEBOOKS / name, as_version=4), overrides)
    assert stored_output_problems(notebook)  # it ran: the storage check would refuse it
    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]
    stderr = [out.text for out in outputs if out.output_type == "stream" and out.name == "stderr"]
    assert stderr == [], f"{name} wrote to stderr: {stderr}"
    stdout = "".join(
        out.text for out in outputs if out.output_type == "stream" and out.name == "stdout"
    )
    images = [out for out in outputs if "image/png" in out.get("data", {})]
    return stdout, images


def test_quickstart_runs():
    stdout, _ = execute("quickstart.ipynb", TINY["quickstart.ipynb"])
    assert "Discrete(500)" in stdout and "(686,)" in stdout
    assert "hand over" in stdout  # the random hand was played to its end and rendered
    assert "pot top: " in stdout and "['draw']" in stdout
    assert re.search(r"^expert plays: \S", stdout, re.MULTILINE)
    assert re.search(r"^expert won \d+ of 4 hands$", stdout, re.MULTILINE)


def test_train_and_evaluate_runs(tmp_path):
    overrides = dict(TINY["train_and_evaluate.ipynb"], RUN_DIR=str(tmp_path / "run"))
    stdout, images = execute("train_and_evaluate.ipynb", overrides)
    assert "canasta train --run-dir " + str(tmp_path / "run") in stdout
    assert re.search(r"^\[ppo\] \d+ learner steps", stdout, re.MULTILINE)
    assert (tmp_path / "run" / "model.npz").exists()
    history = (tmp_path / "run" / "history.jsonl").read_text().splitlines()
    assert len(history) >= 2  # the curve has a start and an end
    assert len(images) == 1  # the learning curve
    for opponent in ("random", "greedy"):
        line = rf"^tiny vs {opponent}: \d+\.\d% of 4 hands won, 95% CI \[\d"
        assert re.search(line, stdout, re.MULTILINE), opponent
    assert re.search(r"^ppo:classic-2p vs tiny: \d+\.\d% of 4 hands", stdout, re.MULTILINE)


def test_tournament_runs():
    stdout, images = execute("tournament.ipynb", TINY["tournament.ipynb"])
    table = stdout.split("head to head")[0]
    for agent in ("random", "greedy", "expert", "ppo:classic-2p"):
        # a ranking row: rank, name, Elo, ..., hands, won %, its interval
        row = rf"^\s+[1-4]\s+{re.escape(agent)}\s+\d+ .* \[\d+\.\d, \d+\.\d\]"
        assert re.search(row, table, re.MULTILINE), agent
    assert len(images) == 1  # the ratings chart


def test_library_plots_leave_the_matplotlib_backend_alone(tmp_path):
    """The league's curve and the arena's chart draw on a bare Figure: a notebook that
    trained or ran the arena still shows its own plots inline afterwards."""
    matplotlib = pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    from canasta_arena.arena import plot_ratings
    from training.evaluation import plot_curve

    history = [{"steps": 0, "eval": {"classic-2p/random": {"win_rate": 0.5, "ci95": [0.4, 0.6]}}}]
    row = {"agent": "a", "elo": 1500.0, "win_rate": 0.5, "win_ci": [0.4, 0.6]}
    config = {"variant": "classic", "players": 2, "hands_played": 2, "seed": 0}
    before = matplotlib.get_backend()
    matplotlib.use("svg")  # any backend other than the Agg the plots once switched to
    try:
        plot_curve(history, tmp_path / "curve.png")
        plot_ratings(tmp_path / "ratings.png", {"ranking": [row]}, config)
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)
    for name in ("curve.png", "ratings.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
