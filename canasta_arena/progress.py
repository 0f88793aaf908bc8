"""A progress bar that suits where it is written: tqdm on a terminal, plain lines in a log.

A bar redraws itself with carriage returns; in a log file (CI, ``nohup``, a pipe) those
become noise. :func:`progress_bar` gives tqdm where stderr is a terminal, and elsewhere a
stand-in that writes one line at most every :data:`LINE_SECONDS` (``arena | 120/2000
hand``) and one at the end. ``enabled`` False gives one that writes nothing (tqdm is then
not imported: it comes with the 'arena' and 'train' extras).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

#: The least time between two lines of the stand-in bar.
LINE_SECONDS = 10.0


class NoBar:
    """What a loop asks of a progress bar, doing nothing."""

    def update(self, count: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass


class LineBar(NoBar):
    """Progress as plain lines: ``DESC | N/TOTAL UNIT`` (and the postfix), written when
    :data:`LINE_SECONDS` have passed since the last line, and at the end."""

    def __init__(
        self, total: int, desc: str, unit: str, file: TextIO, initial: int = 0,
        every: float = LINE_SECONDS,
    ):  # fmt: skip
        self.total, self.desc, self.unit, self.file = total, desc, unit, file
        self.n, self.every, self.postfix = initial, every, ""
        self._last = time.monotonic()
        self._said = -1

    def update(self, count: int = 1) -> None:
        self.n += count
        if time.monotonic() - self._last >= self.every:
            self._line()

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.postfix = text

    def close(self) -> None:
        if self._said != self.n:
            self._line()

    def _line(self) -> None:
        extra = f" {self.postfix}" if self.postfix else ""
        print(f"{self.desc} | {self.n}/{self.total} {self.unit}{extra}", file=self.file, flush=True)
        self._last, self._said = time.monotonic(), self.n


def progress_bar(
    total: int, desc: str, unit: str, enabled: bool = True, initial: int = 0,
    file: TextIO | None = None,
):  # fmt: skip
    """tqdm on a terminal, :class:`LineBar` elsewhere, :class:`NoBar` when not ``enabled``."""
    if not enabled:
        return NoBar()
    file = sys.stderr if file is None else file
    if not (hasattr(file, "isatty") and file.isatty()):
        return LineBar(total, desc, unit, file, initial)
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit=unit, file=file, dynamic_ncols=True)


__all__ = ["LINE_SECONDS", "LineBar", "NoBar", "progress_bar"]
