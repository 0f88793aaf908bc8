"""The generated preset docs (issue 3) must match the rules object and the source."""

from pathlib import Path

import pytest

from canasta_env import docs

ROOT = Path(__file__).resolve().parent.parent


def test_generated_docs_are_current():
    """docs/presets.md and docs/rules_<preset>.md equal what the generator writes now."""
    if not docs._rule_texts():
        pytest.skip("../shared/RULES.md is not beside this checkout")
    pages = docs.generate()
    stale = [p for p, text in pages.items() if (ROOT / p).read_text(encoding="utf-8") != text]
    assert not stale, f"regenerate with `python -m canasta_env.docs`: {stale}"


def test_presets_table_lists_every_field_and_preset():
    table = docs.presets_table()
    for name in ("classic", "canastone", "spanish", "italian"):
        assert f"`{name}`" in table
    assert "| `meld_closes_at` | 0 | 0 | 7 | 0 |" in table
    assert "| `target_score` | 5000 | 15000 | 7000 | 15000 |" in table
