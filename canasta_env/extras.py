"""How to install an optional extra, said the way this copy of the package was installed.

A message about a missing extra ends with :func:`install_command`: ``pip install
'canasta-env[web]'`` for an install from the wheel or the index, ``pip install -c
constraints.txt -e '.[web]'`` (run in the checkout) for an editable install of a source
checkout, which ``make install`` makes. The way is read from pip's record of the install
(``direct_url.json``, PEP 610); without one, the index's command.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import metadata

DISTRIBUTION = "canasta-env"


@cache
def editable() -> bool:
    """Whether this package is an editable install of a source checkout."""
    try:
        record = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return False
    try:
        return bool(json.loads(record or "{}").get("dir_info", {}).get("editable"))
    except (ValueError, AttributeError):
        return False


def install_command(extra: str) -> str:
    """The command that installs ``extra`` here (module doc)."""
    if editable():
        return f"pip install -c constraints.txt -e '.[{extra}]' (in the checkout)"
    return f"pip install 'canasta-env[{extra}]'"


__all__ = ["editable", "install_command"]
