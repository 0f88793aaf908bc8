"""Run a command in its own process group for a test, killing the whole group (workers
too) when it does not finish in time, so a hang fails the test instead of the suite."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest


def run_group(command: list[str], cwd, env: dict, timeout: float = 180) -> tuple[str, str]:
    """``command``'s stdout and stderr; the test fails on a hang or a non-zero exit."""
    with subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            pytest.fail(f"{' '.join(map(str, command))} did not finish in {timeout} s: a hang")
    assert process.returncode == 0, err
    return out, err
