"""Shared fixtures, and the guard of a run against the installed wheel (.ci/test-dist)."""

from __future__ import annotations

import importlib.util
import os
import sysconfig
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def local_ray():
    """One local Ray instance with 2 CPUs for the tests of the ``scale`` extra (Ray starts
    in about ten seconds, so every such test shares it)."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (extra 'scale')")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


#: Set by .ci/test-dist, which runs tests copied away from the sources against the wheel
#: installed in a clean venv: every package must then come from that venv.
INSTALLED_TEST = os.environ.get("CANASTA_INSTALLED_TEST") == "1"
#: The packages of the wheel (pyproject.toml's wheel.packages).
PACKAGES = ("canasta_env", "agents", "canasta_arena", "training", "canasta_cli", "canasta_web")


def site_packages() -> list[Path]:
    """This interpreter's install folders (a venv's site-packages)."""
    paths = sysconfig.get_paths()
    return [Path(paths[key]).resolve() for key in ("purelib", "platlib")]


def not_installed(names=PACKAGES) -> dict[str, str]:
    """The packages of ``names`` that import from elsewhere than :func:`site_packages`
    (the sources, an editable install's checkout), with where they come from."""
    homes = site_packages()
    found = {}
    for name in names:
        spec = importlib.util.find_spec(name)
        origin = Path(spec.origin).resolve() if spec and spec.origin else None
        if origin is None or not any(home in origin.parents for home in homes):
            found[name] = str(origin)
    return found


def pytest_configure(config) -> None:
    """Under ``CANASTA_INSTALLED_TEST=1`` stop before any test when a package is not the
    installed one: such a run would test the sources while saying it tests the wheel."""
    if INSTALLED_TEST and not_installed():
        raise pytest.UsageError(
            f"CANASTA_INSTALLED_TEST=1, but these packages are not from {site_packages()}: "
            f"{not_installed()}"
        )
