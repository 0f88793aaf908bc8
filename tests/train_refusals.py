"""The one error line of a refused ``canasta train`` (shared by its refusal tests)."""

from __future__ import annotations

import pytest

from canasta_cli.train import main


def train_error(capsys) -> str:
    """The one error line of a refused command (and no traceback)."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("canasta train: error:")]
    assert len(lines) == 1, err
    assert err.rstrip("\n").endswith(lines[0])
    return lines[0]


def train_refused(argv, capsys) -> str:
    """``canasta train ARGV`` refused with status 2: its one error line."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    return train_error(capsys)
