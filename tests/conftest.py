"""Shared fixtures."""

from __future__ import annotations

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
