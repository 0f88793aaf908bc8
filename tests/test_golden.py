"""Golden playthroughs and the behaviour digest: seeded hands compared with stored records.

``test_golden_playthrough`` replays each hand of ``tests/golden/*.txt`` (the
format is described in :mod:`tests.playthrough`: per step the agent, phase, legal
actions, action, rewards and the acting player's observation by named fields) and
fails with a unified diff of the first lines that differ, so the failure says what
changed: an action, a mask, an observation field, a score.

``test_behaviour_digest`` replays 16 seeded games of up to 3 hands for every preset
at every player count it allows, and spanish with S-19 runs, about 770 hands in
all, and compares each hand's hash of masks, observations and rewards with
``tests/golden/behaviour_digest.json``; a failure names the first hand that changed
and the command that prints it. Its stored value was computed on the engine before
the engine-core rewrite (commit ``redesign``), the reference behaviour.

A difference is a behaviour change to review. If it is intended (a rule fix, a new
observation layout), regenerate and commit the files with the change that explains
them, after reading ``git diff tests/golden``::

    python -m tests.playthrough --regenerate          # the playthrough .txt files
    python -m tests.playthrough --regenerate-digest   # behaviour_digest.json
    python -m tests.playthrough --show classic 4 3 --style hoarder --hands 3
"""

from __future__ import annotations

import difflib
import json

import pytest

from canasta_env.rules import PRESETS
from tests.playthrough import (
    DIGEST_CASES,
    DIGEST_FORMAT,
    DIGEST_HANDS,
    DIGEST_PATH,
    DIGEST_SEEDS,
    FIELD_NAMES,
    GOLDEN_DIR,
    PLAYTHROUGHS,
    REGENERATE,
    behaviour_digest,
    case_name,
    case_style,
    playthrough_lines,
    playthrough_path,
)

DIFF_LINES = 40
MIN_DIGEST_HANDS = 500


def first_difference(name: str, want: list[str], got: list[str]) -> str:
    """The step where two playthroughs part, and the first hunk of their unified diff."""
    first = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
    step = next((line for line in reversed(want[: first + 1]) if line.startswith("step ")), None)
    diff = list(
        difflib.unified_diff(want, got, f"{name} (pinned)", f"{name} (now)", n=3, lineterm="")
    )
    hunks = [i for i, line in enumerate(diff) if line.startswith("@@")]
    end = hunks[1] if len(hunks) > 1 else len(diff)
    shown = diff[: min(end, DIFF_LINES)]
    where = f"at {step.split(':')[0]}" if step else "in the header"
    return f"{name}: behaviour changed {where} (line {first + 1}):\n" + "\n".join(shown)


@pytest.mark.parametrize(("variant", "players", "seed"), PLAYTHROUGHS)
def test_golden_playthrough(variant: str, players: int, seed: int) -> None:
    """Replay the pinned hand; any difference is a behaviour change to review (module doc)."""
    path = playthrough_path(variant, players, seed)
    assert path.exists(), f"{path} is missing: run {REGENERATE}"
    want = path.read_text(encoding="utf-8").splitlines()
    got = playthrough_lines(variant, players, seed)
    if got != want:
        pytest.fail(first_difference(path.name, want, got), pytrace=False)


def test_golden_directory_holds_only_the_cases() -> None:
    """No stale playthrough outlives its case, and each file names its own case."""
    expected = {playthrough_path(*case).name for case in PLAYTHROUGHS}
    written = {path.name for path in GOLDEN_DIR.glob("*.txt")}
    assert written == expected
    assert {path.name for path in GOLDEN_DIR.glob("*.json")} == {DIGEST_PATH.name}
    for variant, players, seed in PLAYTHROUGHS:
        lines = playthrough_path(variant, players, seed).read_text(encoding="utf-8").splitlines()
        assert lines[0] == f"# canasta playthrough: {variant}, {players} players, seed {seed}"
        assert sum(line.startswith("step ") for line in lines) > 20
        assert any(line.startswith("hand over: ") for line in lines)


def test_observation_field_names_are_unique() -> None:
    """Each observation entry has its own name, so a changed field is named in a diff."""
    keys = [(group, of, name) for group, of, name, _ in FIELD_NAMES]
    assert len(set(keys)) == len(keys)


def test_behaviour_digest() -> None:
    """Masks, observations and rewards of every hand equal the reference behaviour's."""
    stored = json.loads(DIGEST_PATH.read_text(encoding="utf-8"))
    assert stored["format"] == DIGEST_FORMAT
    assert (stored["seeds"], stored["hands_per_seed"]) == (DIGEST_SEEDS, DIGEST_HANDS)
    current = behaviour_digest()
    assert list(current) == list(stored["cases"]), "the digest cases changed"
    changed = []
    for (variant, players), (case, records) in zip(DIGEST_CASES, current.items()):
        pinned = stored["cases"][case]
        if records == pinned:
            continue
        index = next(
            (i for i, (a, b) in enumerate(zip(pinned, records)) if a != b),
            min(len(pinned), len(records)),
        )
        before = pinned[index] if index < len(pinned) else "(none)"
        now = records[index] if index < len(records) else "(none)"
        seed = int((now if before == "(none)" else before).split(".")[0])
        changed.append(
            f"{case}: first changed hand {before!r} -> {now!r}; print its game with\n"
            f"    python -m tests.playthrough --show {variant} {players} {seed} "
            f"--style {case_style(seed)} --hands {DIGEST_HANDS}"
        )
    if changed:
        pytest.fail(
            "behaviour changed (hand records are <seed>.<hand> <steps> <hash>); diff the "
            f"--show output with the same on commit {stored['computed_on_commit']}:\n"
            + "\n".join(changed),
            pytrace=False,
        )


def test_behaviour_digest_covers_every_preset_and_player_count() -> None:
    """Every preset at every player count it allows, and enough hands of each."""
    stored = json.loads(DIGEST_PATH.read_text(encoding="utf-8"))
    for name, rules in PRESETS.items():
        for players in rules.player_counts:
            assert (name, players) in DIGEST_CASES
    assert any(variant.endswith("+sequences") for variant, _ in DIGEST_CASES)
    hands = {case: len(records) for case, records in stored["cases"].items()}
    assert set(hands) == {case_name(*case) for case in DIGEST_CASES}
    assert sum(hands.values()) == stored["hands"] >= MIN_DIGEST_HANDS
    assert min(hands.values()) >= DIGEST_SEEDS  # at least one hand of every seed
