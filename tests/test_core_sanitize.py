"""The compiled core under AddressSanitizer and UndefinedBehaviorSanitizer (slow: make soak).

The tests build ``canasta_env._core`` again with ``-DCANASTA_SANITIZE=ON`` (CMakeLists.txt)
into a temporary folder (once for the module), with cmake and ninja on this checkout, then
run ``tests/core_sanitize_run.py`` in a subprocess that loads that module in place of the
installed one: the parity fuzz over every table (both engines side by side), the C++
random playout of every table, and the bad-input checks of the parity tests; then, in a
second subprocess, the mutated-input fuzz of ``tests/core_fuzz.py`` (mutated observations
and masks to every ``CoreBot`` name at six tables, bad arguments and calls out of order on
every face, four threads on one object of each kind). The Python
interpreter is not instrumented, so the ASan runtime (and libstdc++, which ASan's C++
exception interceptor needs at start) is preloaded (``LD_PRELOAD``); leak
checks are off (CPython keeps its objects to the end). Any sanitizer report fails the test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Words of a sanitizer report (ASan's ERROR or CHECK line, UBSan's runtime error).
REPORT_MARKS = ("AddressSanitizer", "runtime error:", "LeakSanitizer")


def _tools_missing() -> str:
    missing = [tool for tool in ("cmake", "ninja", "g++") if shutil.which(tool) is None]
    if missing:
        return f"the sanitizer build needs {', '.join(missing)} on PATH"
    try:
        import nanobind  # noqa: F401
    except ImportError:
        return "the sanitizer build needs nanobind (pip install nanobind)"
    return ""


def _runtime(name: str) -> str:
    path = subprocess.run(
        ["g++", f"-print-file-name={name}"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return path if os.path.isabs(path) and os.path.exists(path) else ""


def _build(build_dir: Path) -> Path:
    cmake_dir = subprocess.run(
        [sys.executable, "-m", "nanobind", "--cmake_dir"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    configure = [
        "cmake",
        "-S",
        str(ROOT),
        "-B",
        str(build_dir),
        "-G",
        "Ninja",
        "-DCMAKE_BUILD_TYPE=Release",
        "-DCANASTA_SANITIZE=ON",
        f"-DPython_EXECUTABLE={sys.executable}",
        f"-Dnanobind_DIR={cmake_dir}",
    ]
    for command in (configure, ["ninja", "-C", str(build_dir), "-j2", "_core"]):
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, (
            f"{command[0]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    built = sorted(build_dir.glob("_core*.so"))
    assert built, f"no _core*.so in {build_dir}"
    code = built[0].read_bytes()  # instrumented: it calls the sanitizers' report hooks
    assert b"__asan_report" in code and b"__ubsan_handle" in code, "the build is not instrumented"
    return built[0]


@pytest.fixture(scope="module")
def sanitized(tmp_path_factory) -> tuple[Path, list[str]]:
    """The sanitizer build of the core (made once for the module) and the runtimes to
    preload."""
    why = _tools_missing()
    if why:
        pytest.skip(why)
    # libstdc++ too: python does not link it, and ASan's C++ throw interceptor needs it
    # loaded at start (else "CHECK failed ... real___cxa_throw" at the first exception)
    runtimes = [_runtime("libasan.so"), _runtime("libstdc++.so")]
    if not all(runtimes):
        pytest.skip("g++ -print-file-name names no libasan.so or libstdc++.so")
    start = time.monotonic()
    module = _build(tmp_path_factory.mktemp("sanitize") / "build")
    print(f"sanitizer build {time.monotonic() - start:.0f} s")
    return module, runtimes


def _run(sanitized, *arguments: str) -> str:
    """core_sanitize_run.py with the sanitized module and ``arguments``: its stdout; fails
    on a non-zero exit or any sanitizer report."""
    module, runtimes = sanitized
    env = dict(os.environ)
    env.update(
        LD_PRELOAD=":".join(runtimes),
        ASAN_OPTIONS="detect_leaks=0:abort_on_error=0",
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
        PYTHONPATH=str(ROOT),
    )
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "core_sanitize_run.py"), str(module), *arguments],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    output = done.stdout + done.stderr
    reports = [mark for mark in REPORT_MARKS if mark in output]
    assert done.returncode == 0 and not reports, (
        f"exit {done.returncode}, {reports}:\n{output[-6000:]}"
    )
    print(f"{time.monotonic() - start:.0f} s: {done.stdout.strip()}")
    return done.stdout


@pytest.mark.slow
def test_core_under_sanitizers(sanitized) -> None:
    """Parity fuzz (200,000 actions over every table), C++ playouts and bad input, with the
    core built with -fsanitize=address,undefined: exit 0 and no sanitizer report."""
    assert "sanitized core checked" in _run(sanitized, "200000")


@pytest.mark.slow
def test_mutated_input_under_sanitizers(sanitized) -> None:
    """tests/core_fuzz.py against the sanitizer build: 600 mutated observations (and 60
    mutated masks) for each of the 12 bot names at 6 tables, every bad call, 4 threads on
    one object of each kind: each call played or refused, no sanitizer report."""
    assert "sanitized core fuzzed" in _run(sanitized, "fuzz", "600")
