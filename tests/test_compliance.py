"""``canasta check`` (canasta_env.compliance): the table covers every preset and the S-19
option, passes on a quick run, and names an unknown variant."""

from __future__ import annotations

import pytest

from canasta_cli.check import main
from canasta_env.compliance import CHECK_VARIANTS, CHECKS, format_table, run_checks
from canasta_env.rules import PRESETS


def test_table_rows_are_the_presets_and_the_runs_option():
    assert list(CHECK_VARIANTS) == [*PRESETS, "spanish+sequences"]
    assert CHECK_VARIANTS["spanish+sequences"] == ("spanish", {"sequences": True})


def test_quick_run_of_the_runs_option_passes_every_check():
    """S-19: api, seed, render, max_cycles, mask+cards and hidden info with runs on."""
    results = run_checks(["spanish+sequences"], [2], cycles=30, quick=True)
    assert [r.check for r in results] == list(CHECKS)
    failed = [(r.check, r.detail) for r in results if not r.passed]
    assert failed == []
    table = format_table(results)
    row = next(line for line in table.splitlines() if line.startswith("spanish+sequences"))
    assert row.split()[:2] == ["spanish+sequences", "2"]
    assert row.split()[2 : 2 + len(CHECKS)] == ["pass"] * len(CHECKS)


def test_unknown_variant_is_named():
    with pytest.raises(ValueError, match="unknown variant.*'klondike'"):
        run_checks(["klondike"])
    assert main(["--variants", "classic", "--players", "2", "--quick", "--cycles", "20"]) == 0
