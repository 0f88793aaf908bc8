"""Run the tests that need no sources against the installed package, from a copy of them in
a temporary folder (cibuildwheel's test step; .ci/test-dist does the same in bash).

    python .ci/installed_tests.py PROJECT_DIR
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TESTS = ["test_installed.py", "test_env_api.py", "test_compliance.py", "test_core_vector.py"]
HELPERS = ["__init__.py", "conftest.py", "scenario.py", "processes.py"]


def main() -> int:
    project = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory() as work:
        tests = Path(work, "tests")
        tests.mkdir()
        for name in HELPERS + TESTS:
            shutil.copy(project / "tests" / name, tests / name)
        Path(work, "pytest.ini").write_text(
            '[pytest]\nmarkers =\n    slow: long soak runs\naddopts = -m "not slow" -rs\n'
        )
        env = dict(os.environ, CANASTA_INSTALLED_TEST="1")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
        return subprocess.call(command, cwd=work, env=env)


if __name__ == "__main__":
    raise SystemExit(main())
