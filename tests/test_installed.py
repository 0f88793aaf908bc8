"""The installed package as a user gets it: from the wheel, and from any folder.

.ci/test-dist builds the wheel from the sdist, installs it in a clean venv and runs this
file (with the env, CLI and agent tests) copied away from the sources, under
``CANASTA_INSTALLED_TEST=1``: the first test proves the packages are the wheel's files
(conftest.py stops the run before any test otherwise). The wheel installs top-level
``agents`` and ``training`` packages, so a user's own ``agents/`` folder could hide them:
the ``canasta`` command and ``python -m canasta_cli`` must still run from such a folder,
and a script beside its own ``agents/`` gets a message naming the folder (the remaining
limit: the names stay taken until the packages are renamed).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import INSTALLED_TEST, PACKAGES, not_installed

ARENA = ["arena", "--agents", "random", "greedy", "--hands", "2", "--no-progress", "--no-plot"]


@pytest.mark.skipif(not INSTALLED_TEST, reason="CANASTA_INSTALLED_TEST=1 is .ci/test-dist's run")
def test_the_packages_are_the_installed_wheel():
    import canasta_env
    from canasta_env import _core

    assert not_installed([*PACKAGES, "canasta_env._core"]) == {}
    assert canasta_env.__file__ and _core.__file__  # imported, from site-packages (above)
    direct_url = json.loads(
        importlib.metadata.distribution("canasta-env").read_text("direct_url.json")
    )
    assert "dir_info" not in direct_url, f"installed from a folder, not a wheel: {direct_url}"
    assert direct_url["url"].endswith(".whl")
    wheel = os.environ.get("CANASTA_WHEEL")
    if wheel:
        assert direct_url["url"].rsplit("/", 1)[-1] == Path(wheel).name


@pytest.fixture
def own_agents(tmp_path) -> Path:
    """A user's folder holding its own ``agents`` and ``training`` packages."""
    for name in ("agents", "training"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("MINE = True\n")
    return tmp_path


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_canasta_command_runs_beside_a_users_agents_folder(own_agents):
    script = Path(sys.executable).parent / "canasta"
    if not script.is_file():
        pytest.skip(f"no console script {script}: the package is not installed in this venv")
    done = _run([str(script), *ARENA, "--out", "out"], own_agents)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (own_agents / "out" / "results.json").is_file()


def test_python_m_canasta_cli_runs_beside_a_users_agents_folder(own_agents):
    done = _run([sys.executable, "-m", "canasta_cli", *ARENA, "--out", "out"], own_agents)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (own_agents / "out" / "results.json").is_file()


def test_a_script_beside_its_own_agents_gets_the_folder_named(own_agents):
    """A script's folder comes first on ``sys.path``: its ``agents`` is the user's (from
    the wheel; an editable install's finder comes first and shows the project's). Opponent
    names then fail with a message naming that folder, not a bare ModuleNotFoundError."""
    (own_agents / "script.py").write_text(
        "import agents, gymnasium\n"
        "import canasta_env\n"
        "print(agents.__file__)\n"
        "env = canasta_env.env(variant='classic', num_players=2)\n"
        "env.reset(seed=1)\n"
        "gym = gymnasium.make('canasta_env/Canasta-v0', opponents='expert')\n"
        "gym.reset(seed=1)\n"
        "print('made')\n"
    )
    done = _run([sys.executable, "script.py"], own_agents)
    mine = str(own_agents / "agents" / "__init__.py")
    shadowed = done.stdout.startswith(mine)
    if INSTALLED_TEST:
        assert shadowed, done.stdout + done.stderr[-3000:]
    if shadowed:
        assert done.returncode != 0 and "made" not in done.stdout
        assert f"The 'agents' package imported is {mine}, not canasta-env's" in done.stderr
        assert "rename that folder" in done.stderr
    else:
        assert done.returncode == 0 and done.stdout.endswith("made\n"), done.stderr[-3000:]
