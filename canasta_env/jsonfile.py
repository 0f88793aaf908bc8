"""JSON from elsewhere, read as data: bounded in size and depth, every problem one ``ValueError``.

    from canasta_env.jsonfile import read_json_file, loads_bounded
    config = read_json_file(run / "config.json", what="run config")
    results = loads_bounded(body, what="arena results")

Files and request bodies that come from elsewhere (arena ``results.json``, a run's
``config.json``, a model's meta) go through here, so that a truncated file, bytes
that are not UTF-8, a file of gigabytes or an array nested 200,000 deep each raise
``ValueError`` with one line that names the file and the problem, never a
``RecursionError``, ``UnicodeDecodeError`` or a traceback from the JSON reader
(docs/security.md).
"""

from __future__ import annotations

import json
import os
from typing import Any

#: The largest JSON file read by default (an arena's results.json of 100,000 hands is ~40 MB).
MAX_BYTES = 256 * 2**20
#: The deepest nesting accepted (no file of the project nests deeper than about 8).
MAX_DEPTH = 64


def check_depth(value: Any, what: str, max_depth: int = MAX_DEPTH) -> Any:
    """``value`` when no list or mapping in it nests deeper than ``max_depth``; else ValueError."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth > max_depth:
            raise ValueError(f"{what}: nested deeper than {max_depth} levels")
        stack.extend((child, depth + 1) for child in children)
    return value


def loads_bounded(
    text: str | bytes, what: str, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH
) -> Any:
    """Parse JSON text; ``ValueError`` ("WHAT: ...") for anything too big, too deep or not JSON.

    ``NaN`` and ``Infinity`` are refused as well: no file of the project writes them.
    """
    if len(text) > max_bytes:
        raise ValueError(f"{what}: larger than {max_bytes:,} bytes")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"{what}: not UTF-8 text (byte {error.start})") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ValueError(f"{what}: nested too deeply") from None
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{what}: not valid JSON ({error.msg} at line {error.lineno} column {error.colno};"
            " truncated or corrupt?)"
        ) from None
    except ValueError as error:  # NaN, Infinity, an integer of too many digits
        raise ValueError(f"{what}: not valid JSON ({error})") from None
    return check_depth(value, what, max_depth)


def read_json_file(
    path: str | os.PathLike, what: str | None = None, max_bytes: int = MAX_BYTES
) -> Any:
    """The JSON value in ``path``; ``ValueError`` naming the file for every problem."""
    label = f"{what} {path}" if what else str(path)
    return loads_bounded(read_bounded(path, label, max_bytes), label, max_bytes=max_bytes)


def read_bounded(path: str | os.PathLike, label: str, max_bytes: int) -> bytes:
    """The bytes of ``path``, read no further than ``max_bytes`` + 1 (so a caller can
    tell a file that is too large); ``ValueError`` ("cannot read LABEL: ...") when the
    file cannot be read."""
    try:
        with open(path, "rb") as file:
            return file.read(max_bytes + 1)
    except OSError as error:
        raise ValueError(f"cannot read {label}: {error.strerror or error}") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
