"""canasta_arena/progress.py: a bar on a terminal, plain lines in a log (no carriage returns)."""

from __future__ import annotations

import io

from canasta_arena.progress import LineBar, NoBar, progress_bar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_lines_without_carriage_returns():
    log = io.StringIO()
    bar = progress_bar(50, "arena", "hand", file=log)
    assert isinstance(bar, LineBar)
    bar.every = 0.0  # a line at every update, as after LINE_SECONDS
    bar.update(20)
    bar.set_postfix_str("vs expert 0.61")
    bar.update(30)
    bar.close()
    text = log.getvalue()
    assert "\r" not in text
    assert text.splitlines() == ["arena | 20/50 hand", "arena | 50/50 hand vs expert 0.61"]


def test_lines_wait_for_their_interval_and_the_end_is_said_once():
    log = io.StringIO()
    bar = LineBar(10, "ppo", "step", log, initial=4, every=3600.0)
    bar.update(3)
    assert log.getvalue() == ""  # too soon for a line
    bar.close()
    bar.close()
    assert log.getvalue() == "ppo | 7/10 step\n"


def test_a_terminal_gets_tqdm_and_disabled_gets_nothing():
    terminal = _Terminal()
    bar = progress_bar(3, "arena", "hand", file=terminal)
    assert type(bar).__name__ == "tqdm"
    bar.update(3)
    bar.close()
    assert "\r" in terminal.getvalue()  # control: the terminal bar redraws itself
    assert isinstance(progress_bar(3, "arena", "hand", enabled=False), NoBar)
