"""What building the compiled core needs, for an install without pip's build isolation.

    python csrc/build_requires.py            # pyproject.toml's [build-system] requires
    python csrc/build_requires.py --dynamic  # what scikit-build-core asks for besides
                                             # (cmake, ninja: only where none is on PATH)

``make install`` puts these into the virtual environment and builds the core there with
``pip install --no-build-isolation``: pip's isolation builds in a new temporary
environment each time, whose path lands in every compile command of ``build.ninja``, so
every reinstall recompiled the whole core; built against the venv's own tools, a reinstall
of an unchanged checkout compiles nothing (``build/{wheel_tag}`` keeps the objects).
Standard library only (the venv is new when this runs).
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the TOML reader pip itself carries
    from pip._vendor import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def static() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return list(tomllib.load(file)["build-system"]["requires"])


def dynamic() -> list[str]:
    from scikit_build_core.build import get_requires_for_build_editable

    return list(get_requires_for_build_editable())


def main(argv: list[str]) -> int:
    print(" ".join(dynamic() if argv[1:] == ["--dynamic"] else static()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
