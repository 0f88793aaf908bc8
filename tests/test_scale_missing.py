"""Without the ``scale`` extra, ``--ray`` and ``--backend rllib`` say which extra to install.

Ray is hidden from the import system here, so these run with and without it installed.
"""

from __future__ import annotations

import re
import sys

import pytest

from canasta_arena import arena
from canasta_cli import arena as arena_command
from canasta_cli.train import main as train_main
from canasta_env.extras import install_command


@pytest.fixture
def no_ray(monkeypatch):
    for name in list(sys.modules):
        if name == "ray" or name.startswith("ray.") or name == "training.rllib_backend":
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError


def test_arena_on_ray_without_ray_names_the_extra(no_ray, tmp_path):
    said = re.escape(f"--ray needs Ray: {install_command('scale')}")
    with pytest.raises(ValueError, match=said):
        arena.run_arena(["random", "greedy"], num_players=2, hands=2, ray="local", plot=False)
    assert (
        arena_command.main(
            [
                "--agents",
                "random",
                "greedy",
                "--players",
                "2",
                "--hands",
                "2",
                "--ray",
                "--out",
                str(tmp_path / "out"),
            ]
        )
        == 2
    )
    assert not (tmp_path / "out").exists()


def test_rllib_backend_without_ray_names_the_extra(no_ray, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        train_main(["--backend", "rllib", "--run-dir", str(tmp_path / "run")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"--backend rllib needs Ray: {install_command('scale')}" in err
    assert not (tmp_path / "run").exists()
