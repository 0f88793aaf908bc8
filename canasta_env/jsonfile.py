"""Files from elsewhere, read as data: bounded in size and depth, every problem one ``ValueError``.

    from canasta_env.jsonfile import open_regular, read_json_file, loads_bounded, zip_members
    config = read_json_file(run / "config.json", what="run config")
    results = loads_bounded(body, what="arena results")
    with open_regular(path, f"model file {path}") as file:
        zip_members(file, f"model file {path}", max_bytes=MAX_MODEL_BYTES)

Files and request bodies that come from elsewhere (arena ``results.json``, a run's
``config.json`` and ``checkpoint.pt``, replays, saved states, model files) go through
here, so that a truncated file, bytes that are not UTF-8, a file of gigabytes, an array
nested 200,000 deep, a FIFO that no one writes to or a zip whose members unpack to
gigabytes each raise ``ValueError`` with one line that names the file and the problem,
never a hang, a ``RecursionError``, ``UnicodeDecodeError`` or a traceback from the
reader (docs/security.md). Every file is opened by :func:`open_regular`: only a regular
file is read.
"""

from __future__ import annotations

import json
import os
import stat
import zipfile
from collections.abc import Collection
from typing import Any, BinaryIO

#: The largest JSON file read by default (an arena's results.json of 100,000 hands is ~40 MB).
MAX_BYTES = 256 * 2**20
#: The deepest nesting accepted (no file of the project nests deeper than about 8).
MAX_DEPTH = 64


#: The most characters of an input that an error repeats.
ECHO_CHARS = 80


def shown(value: Any, limit: int = ECHO_CHARS) -> str:
    """``value`` as an error repeats it: a string of printable characters as it is, anything
    else as its ``repr``; cut to ``limit`` characters (ending ``...``), so that an error is
    one short line whatever the input held."""
    text = value if isinstance(value, str) and value.isprintable() else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
    file cannot be read or is no regular file (:func:`open_regular`)."""
    with open_regular(path, label) as file:
        try:
            return file.read(max_bytes + 1)
        except OSError as error:
            raise ValueError(f"cannot read {label}: {error.strerror or error}") from None


#: What a zip archive may take on disk beyond what its members unpack to (their headers,
#: the directory, the padding torch aligns its members with; a few kB in a checkpoint).
ZIP_OVERHEAD_BYTES = 2**20

#: What a file that is not a regular one is, for the refusal (``stat.S_IFMT`` of its mode).
_FILE_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def open_regular(path: str | os.PathLike, label: str) -> BinaryIO:
    """``path`` open for reading (binary), when it is a regular file; else ``ValueError``
    ("cannot read LABEL: ...").

    Opened without blocking, so that a FIFO no one writes to (``open()`` would wait for
    a writer for ever) or a device is refused at once rather than read; a symbolic link
    to a regular file is followed, as ``open`` does.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise ValueError(f"cannot read {label}: {error.strerror or error}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = _FILE_KINDS.get(stat.S_IFMT(mode), "not a regular file")
            raise ValueError(f"cannot read {label}: it is {kind}, not a regular file")
        if flags & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


class NotAZipError(ValueError):
    """:func:`zip_members`: the file is no zip archive (truncated, or of another kind)."""


def zip_members(file: BinaryIO, label: str, max_bytes: int) -> list[zipfile.ZipInfo]:
    """The members of the zip archive ``file`` from its directory alone (nothing is
    unpacked); ``ValueError`` naming ``label`` when it is no zip archive, when it is larger
    than ``max_bytes`` (and :data:`ZIP_OVERHEAD_BYTES`) on disk, or when its members would
    unpack to more than ``max_bytes`` together (a zip bomb: a small file whose deflated
    members declare gigabytes).

    A member's data is never read past the size its directory entry declares (Python's
    ``zipfile``, numpy and torch all stop there), so the declared sizes bound what reading
    the archive can take.
    """
    size = file.seek(0, os.SEEK_END)
    file.seek(0)
    if size > max_bytes + ZIP_OVERHEAD_BYTES:  # its directory alone could take gigabytes
        raise ValueError(f"{label}: {size:,} bytes: larger than {max_bytes:,}")
    try:
        with zipfile.ZipFile(file) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        raise NotAZipError(f"{label}: not a zip archive ({error})") from None
    finally:
        file.seek(0)
    total = sum(member.file_size for member in members)
    if total > max_bytes:
        raise ValueError(
            f"{label}: its members unpack to more than {max_bytes:,} bytes ({total:,} declared)"
        )
    return members


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def read_npz(file: BinaryIO, label: str, max_bytes: int, names: Collection[str]) -> dict:
    """The arrays of the ``.npz`` archive ``file`` by name (``obs`` for ``obs.npy``), read as
    data: its directory checked first (:func:`zip_members`: at most ``max_bytes`` unpacked;
    only members ``NAME.npy`` with NAME in ``names``, each once), then each member's ``.npy``
    header before its data (no object dtype, whose data pickle would load; no shape larger
    than the member holds, so a header that claims 10**12 elements allocates nothing), and
    the data read with nothing but ``numpy.frombuffer``. A name of ``names`` that the file
    lacks is left out. ``ValueError`` ("LABEL: ...") for every problem."""
    members = zip_members(file, label, max_bytes)
    seen = [member.filename for member in members]
    unknown = sorted(
        {name for name in seen if name.removesuffix(".npy") not in names}
        | {name for name in seen if not name.endswith(".npy")}
    )
    if unknown:
        raise ValueError(f"{label}: unexpected members {[name[:80] for name in unknown[:8]]}")
    twice = sorted({name for name in seen if seen.count(name) > 1})
    if twice:
        raise ValueError(f"{label}: member {twice[0][:80]!r} appears more than once")
    try:
        with zipfile.ZipFile(file) as archive:
            return {
                member.filename.removesuffix(".npy"): read_npy(archive, member, label)
                for member in members
            }
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError) as error:
        raise ValueError(f"{label}: corrupt archive ({error})") from None
    finally:
        file.seek(0)


def npy_header(stream, label: str, name: str):
    """(shape, fortran order, dtype) from the header of a ``.npy`` stream (versions 1.0
    and 2.0), read without its data; ``ValueError`` naming ``label`` and the member."""
    import numpy as np

    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            return np.lib.format.read_array_header_1_0(stream)
        if version == (2, 0):
            return np.lib.format.read_array_header_2_0(stream)
        raise ValueError(f"npy format version {version} (1.0 and 2.0 are read)")
    except (ValueError, SyntaxError, EOFError) as error:
        detail = (str(error).splitlines() or [""])[0][:120]
        raise ValueError(f"{label}: member {name!r} is not a .npy array ({detail})") from None


def read_npy(archive: zipfile.ZipFile, member: zipfile.ZipInfo, label: str, check=None):
    """The array of one ``.npy`` member, its header checked before any data is read: no
    negative or object shape, no more data than the member holds, and ``check(shape,
    dtype)`` (the caller's own rules: it raises ``ValueError``) where given."""
    import math

    import numpy as np

    name = member.filename
    with archive.open(member) as stream:
        shape, fortran, dtype = npy_header(stream, label, name)
        if any(length < 0 for length in shape):
            raise ValueError(f"{label}: member {name!r} claims shape {shape}")
        if check is not None:
            check(shape, dtype)
        if dtype.hasobject:
            raise ValueError(
                f"{label}: member {name!r} holds Python objects (dtype {dtype}), which only "
                "pickle loads: refused (allow_pickle=False)"
            )
        size = math.prod(shape) * dtype.itemsize
        room = member.file_size - stream.tell()
        if size > room:
            raise ValueError(
                f"{label}: member {name!r} claims shape {shape} ({size:,} bytes): larger than "
                f"the member ({room:,} bytes of data)"
            )
        data = stream.read(size)
    if len(data) != size:
        raise ValueError(
            f"{label}: member {name!r} is truncated ({len(data):,} of {size:,} bytes of data)"
        )
    order = "F" if fortran else "C"
    return np.frombuffer(bytearray(data), dtype=dtype).reshape(shape, order=order)
