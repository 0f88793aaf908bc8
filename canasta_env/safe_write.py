"""Files this project writes: never through a symbolic link, never half written.

    from canasta_env.safe_write import atomic_file, atomic_write, append_text, check_folder
    check_folder(run_dir, "run folder")          # before anything is written or read
    atomic_write(run_dir / "config.json", text)  # a new file renamed over the old one
    with atomic_file(run_dir / "checkpoint.pt") as handle:
        torch.save(state, handle)
    append_text(run_dir / "train.log", line + "\\n")

A run folder, an arena folder or a data folder may come from elsewhere (docs/security.md),
and ``open(path, "w")`` follows a symbolic link: a folder that carries
``config.json.tmp -> ~/.bashrc`` would have a resume write the run's config there. So:

- :func:`check_folder` refuses a folder that is a symbolic link or holds one (a member or a
  subfolder, at any depth), or holds anything but regular files and folders (a FIFO, a
  socket, a device), with one line naming the path; every command calls it before it
  writes anything into such a folder (and before it reads from it).
- :func:`atomic_file` and :func:`atomic_write` write a fresh temporary file beside the
  target, created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` (an existing name, a link
  included, is never opened), synced, then renamed over the target, so the target holds the
  new bytes or the old ones, never a part; a target that is a symbolic link or no regular
  file is refused before anything is written.
- :func:`append_text` and :func:`open_new` open a log with ``O_NOFOLLOW`` and without
  blocking, and write only to a regular file that has no other name (a hard link).
- :func:`check_outputs` refuses two outputs of a command that are the same file, or an
  output that is one of the command's inputs.

Every refusal is :class:`UnsafePathError`, a ``ValueError`` of one line.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from canasta_env.jsonfile import open_regular, shown

#: The most entries :func:`check_folder` looks at (a run folder holds some thousands at most:
#: one model file per evaluation in ``evals/``).
MAX_FOLDER_ENTRIES = 200_000
#: The deepest folder :func:`check_folder` walks into (a run folder nests 3 or 4 deep).
MAX_FOLDER_DEPTH = 32

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)
#: What a member that is neither a regular file, a folder nor a link is (``S_IFMT``).
_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


class UnsafePathError(ValueError):
    """A path this project will not write through (one line naming it)."""


def _kind(mode: int) -> str:
    """What a file that is not a regular one is, for a refusal."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    return _KINDS.get(stat.S_IFMT(mode), "no regular file")


def _link_target(path: str | os.PathLike) -> str:
    try:
        return f" (to {shown(os.readlink(path))})"
    except OSError:
        return ""


def check_folder(folder: str | os.PathLike, what: str = "folder") -> None:
    """Nothing when ``folder`` does not exist, or is a folder that holds only regular files
    and folders, none of them a symbolic link, at any depth; else :class:`UnsafePathError`
    ("WHAT FOLDER: its member NAME is a symbolic link (to TARGET): refused before anything
    is written"). The folder itself may not be a link either. Nothing is opened but folders,
    so a FIFO is named, never waited on."""
    folder = Path(folder)
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise UnsafePathError(f"cannot use {what} {folder}: {error.strerror or error}") from None
    if not stat.S_ISDIR(mode):
        detail = _link_target(folder) if stat.S_ISLNK(mode) else ""
        raise UnsafePathError(f"{what} {folder} is {_kind(mode)}{detail}, not a folder: refused")
    seen = 0
    pending = [(folder, 0)]
    while pending:
        current, depth = pending.pop()
        try:
            with os.scandir(current) as entries:
                members = list(entries)
        except OSError as error:
            raise UnsafePathError(
                f"cannot use {what} {folder}: {shown(str(current))}: {error.strerror or error}"
            ) from None
        for entry in members:
            seen += 1
            if seen > MAX_FOLDER_ENTRIES:
                raise UnsafePathError(
                    f"{what} {folder} holds more than {MAX_FOLDER_ENTRIES:,} files: refused"
                )
            name = shown(os.path.relpath(entry.path, folder))
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError as error:
                raise UnsafePathError(
                    f"cannot use {what} {folder}: {name}: {error.strerror or error}"
                ) from None
            if stat.S_ISDIR(mode):
                if depth + 1 >= MAX_FOLDER_DEPTH:
                    raise UnsafePathError(
                        f"{what} {folder}: {name} nests deeper than {MAX_FOLDER_DEPTH} folders"
                    )
                pending.append((Path(entry.path), depth + 1))
            elif not stat.S_ISREG(mode):
                detail = _link_target(entry.path) if stat.S_ISLNK(mode) else ""
                raise UnsafePathError(
                    f"{what} {folder}: its member {name} is {_kind(mode)}{detail}: refused "
                    "before anything is written"
                )


def check_target(path: str | os.PathLike, what: str = "output") -> None:
    """Nothing when ``path`` is free or a regular file; :class:`UnsafePathError` when it is
    a symbolic link, a folder, a FIFO or a device (a write there is refused, not followed)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise UnsafePathError(f"cannot write {what} {path}: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        detail = _link_target(path) if stat.S_ISLNK(mode) else ""
        raise UnsafePathError(f"cannot write {what} {path}: it is {_kind(mode)}{detail}")


def _new_file(path: Path, what: str) -> tuple[int, Path]:
    """A new file beside ``path`` (``.NAME.RANDOM.tmp``), open for writing: created with
    ``O_CREAT | O_EXCL | O_NOFOLLOW``, so that no existing name is ever opened."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
    for _ in range(16):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
        except OSError as error:
            raise UnsafePathError(
                f"cannot write {what} {path}: {error.strerror or error}"
            ) from None
    raise UnsafePathError(f"cannot write {what} {path}: no free temporary name beside it")


@contextmanager
def atomic_file(path: str | os.PathLike, what: str = "output") -> Iterator[BinaryIO]:
    """A binary handle on a new temporary file beside ``path``; when the block ends without
    an error, the file is synced and renamed over ``path`` (the rename replaces a name and
    never follows a link); on an error it is removed and ``path`` is as it was.
    :class:`UnsafePathError` first when ``path`` is a link or no regular file
    (:func:`check_target`)."""
    path = Path(path)
    check_target(path, what)
    fd, tmp = _new_file(path, what)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def atomic_write(path: str | os.PathLike, data: str | bytes, what: str = "output") -> None:
    """``path`` holds ``data`` (text as UTF-8) or what it held before, never a part
    (:func:`atomic_file`)."""
    with atomic_file(path, what) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)


def copy_atomic(
    source: str | os.PathLike, path: str | os.PathLike, what: str = "copy", link: bool = True
) -> None:
    """``path`` becomes a copy of the regular file ``source`` (with ``link``, a hard link
    where the system makes one; else its bytes), put in place by a rename as
    :func:`atomic_file` does."""
    path = Path(path)
    check_target(path, what)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        if not link:
            raise OSError("a copy of the bytes asked")
        os.link(source, tmp, follow_symlinks=False)  # a new name: never follows tmp
        if not stat.S_ISREG(os.lstat(tmp).st_mode):
            tmp.unlink()
            raise OSError("not a regular file")
        os.replace(tmp, path)
        fsync_dir(path.parent)
        return
    except (OSError, NotImplementedError):  # no hard links here (or asked): the bytes
        tmp.unlink(missing_ok=True)
    with open_regular(source, f"{what} source {source}") as reader:
        with atomic_file(path, what) as handle:
            while block := reader.read(2**20):
                handle.write(block)


def _open_log(path: Path, flags: int, what: str) -> BinaryIO:
    flags |= os.O_WRONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as error:
        try:  # a link (ELOOP), a FIFO no one reads (ENXIO): say which
            mode = os.lstat(path).st_mode
        except OSError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            detail = _link_target(path) if stat.S_ISLNK(mode) else ""
            raise UnsafePathError(
                f"cannot write {what} {path}: it is {_kind(mode)}{detail}"
            ) from None
        raise UnsafePathError(f"cannot write {what} {path}: {error.strerror or error}") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise UnsafePathError(f"cannot write {what} {path}: it is {_kind(status.st_mode)}")
        if status.st_nlink > 1:  # a hard link to a file elsewhere would be written there too
            raise UnsafePathError(
                f"cannot write {what} {path}: the file has {status.st_nlink} names (hard links)"
                "; a log is written only when it is the folder's own"
            )
        if _NONBLOCK:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "ab" if flags & os.O_APPEND else "wb")
    except BaseException:
        os.close(fd)
        raise


def append_text(path: str | os.PathLike, text: str, what: str = "log") -> None:
    """``text`` appended to the log ``path`` (created when missing), opened with
    ``O_NOFOLLOW`` and without blocking: a symbolic link, a FIFO, a folder or a file with a
    second name (a hard link) is :class:`UnsafePathError`, and nothing is written."""
    with _open_log(Path(path), os.O_APPEND | os.O_CREAT, what) as handle:
        handle.write(text.encode("utf-8"))


def open_new(path: str | os.PathLike, what: str = "log") -> BinaryIO:
    """``path`` open for writing (binary) as a new, empty file: a regular file there is
    removed first, anything else (a link, a FIFO, a folder) is :class:`UnsafePathError`."""
    path = Path(path)
    check_target(path, what)
    path.unlink(missing_ok=True)  # removes the name: never follows it
    return _open_log(path, os.O_CREAT | os.O_EXCL, what)


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether ``a`` and ``b`` name one file (one that exists, or would be, once written)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def check_outputs(
    outputs: Mapping[str, str | os.PathLike], inputs: Iterable[str | os.PathLike] = ()
) -> None:
    """:class:`UnsafePathError` when two of ``outputs`` (a label such as ``"--out"`` for
    each path) are the same file, when an output is one of ``inputs`` (files the command
    reads, which it would overwrite), or when an output is a link or no regular file
    (:func:`check_target`); called before anything is written."""
    named = list(outputs.items())
    inputs = list(inputs)
    for index, (label, path) in enumerate(named):
        check_target(path, label)
        for other, other_path in named[index + 1 :]:
            if same_file(path, other_path):
                raise UnsafePathError(
                    f"{label} {path} and {other} {other_path} are the same file: each output "
                    "needs a path of its own"
                )
        for input_path in inputs:
            if same_file(path, input_path):
                raise UnsafePathError(
                    f"{label} {path} is the same file as the input {input_path}, which this "
                    "command reads: choose another path"
                )


def fsync_dir(folder: str | os.PathLike) -> None:
    """The renames in ``folder`` on disk (where the system allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
