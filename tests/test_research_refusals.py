"""Bad input to the research tools gets one line, exit status 2, and changes nothing (found
from outside): a gauntlet file not of the shape ``run`` writes is refused by ``run``,
``report`` and ``card`` before anything reads or writes it; ``--deals`` below 1 is refused
by ``research.pace`` and ``research.swap``; and ``research.pace`` answers an unknown agent
or a model file of NaN weights as ``research.swap`` does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from research import gauntlet, pace, swap
from tests.test_gauntlet import stub_pairings

ROOT = Path(__file__).resolve().parent.parent

#: ``run --agent greedy --players 2 --hands 2 --seed 3`` (its ``--only`` and ``--out`` below).
RUN = ["run", "--agent", "greedy", "--players", "2", "--hands", "2", "--seed", "3"]


def _row(group: str, opponent: str, rate: float) -> dict:
    return {"group": group, "opponent": opponent, "hands": 2, "win_rate": rate,
            "win_ci": [rate / 2, 1.0], "score_diff": 380.0, "score_diff_ci": [-1525.9, 2285.9],
            "seconds": 0.0, "trained_with": False}  # fmt: skip


def _document() -> dict:
    """A gauntlet as ``RUN --only house,stranger`` writes it (one stranger played)."""
    rows = [_row("house", "expert", 1.0), _row("stranger", gauntlet.STRANGERS[0], 0.5)]
    head = dict(rows[1])  # a copy, as the file holds it
    return {"agent": "greedy", "agent_sha256": None, "table": "classic-2p", "players": 2,
            "config": None, "hands": 2, "seed": 3, "worst": head, "rows": rows}  # fmt: skip


def _with(change) -> dict:
    document = _document()
    change(document)
    return document


#: (a file's text, the field and problem its refusal names).
BAD_FILES = {
    "a list": ("[1, 2]", "top level: expected an object, got [1, 2]"),
    "a row of no fields": ('{"rows": [{"x": 1}]}', "agent: missing"),
    "rows as text": (_with(lambda d: d.update(rows="abc")), "rows: expected a list, got 'abc'"),
    "a row not an object": (
        _with(lambda d: d["rows"].append([1])),
        "rows[2]: expected an object, got [1]",
    ),
    "a row missing a field": (
        _with(lambda d: d["rows"][0].pop("group")),
        "rows[0].group: missing",
    ),
    "a win rate as text": (
        _with(lambda d: d["rows"][0].update(win_rate="x")),
        "rows[0].win_rate: expected a number in 0..1, got 'x'",
    ),
    "a win rate above 1": (
        _with(lambda d: d["rows"][1].update(win_rate=5)),
        "rows[1].win_rate: expected a number in 0..1, got 5",
    ),
    "an interval of one number": (
        _with(lambda d: d["rows"][1].update(score_diff_ci=[3.0])),
        "rows[1].score_diff_ci: expected a list of two numbers, got [3.0]",
    ),
    "trained_with as text": (
        _with(lambda d: d["rows"][0].update(trained_with="no")),
        "rows[0].trained_with: expected true or false, got 'no'",
    ),
    "players as text": (
        _with(lambda d: d.update(players="2")),
        "players: expected an integer, got '2'",
    ),
    "worst a number": (
        _with(lambda d: d.update(worst=3)),
        "worst: expected an object or null, got 3",
    ),
    "worst missing a field": (
        _with(lambda d: d["worst"].pop("opponent")),
        "worst.opponent: missing",
    ),
}


def _write(path: Path, content) -> bytes:
    text = content if isinstance(content, str) else json.dumps(content, indent=1)
    path.write_text(text)
    return path.read_bytes()


@pytest.mark.parametrize("command", ["report", "card"])
@pytest.mark.parametrize("case", BAD_FILES)
def test_report_and_card_refuse_a_file_not_of_the_gauntlets_shape(tmp_path, capsys, command, case):
    content, problem = BAD_FILES[case]
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    _write(good, _document())
    before = _write(bad, content)
    assert gauntlet.main([command, str(good), str(bad)]) == 2
    out, err = capsys.readouterr()
    assert err == f"research.gauntlet: {bad}: {problem}\n"
    assert out == ""  # the good file before it is not reported either: every file first
    assert bad.read_bytes() == before


def test_a_file_of_the_gauntlets_shape_is_read(tmp_path, capsys):
    """The control: the file above, a file written before ``table`` and ``config``, and every
    gauntlet the project keeps are accepted."""
    good, old = tmp_path / "good.json", tmp_path / "old.json"
    _write(good, _document())
    _write(old, _with(lambda d: [d.pop("table"), d.pop("config")]))
    kept = sorted((ROOT / "docs/training").glob("gauntlet_*.json"))
    assert kept and all(gauntlet.read_gauntlet(path)["rows"] for path in kept)
    assert gauntlet.main(["report", str(good), str(old)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.count("Worst stranger: `research.strangers.s1_racer:Racer`") == 2
    assert gauntlet.main(["card", str(good)]) == 0
    entry = json.loads(capsys.readouterr().out)["classic-2p"]
    assert (entry["opponent"], entry["win_rate"]) == (gauntlet.STRANGERS[0], 0.5)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("[1, 2]", "top level: expected an object, got [1, 2]"),
        (_with(lambda d: d.update(rows="abc")), "rows: expected a list, got 'abc'"),
        # a row of the house group: worst() never reads it, so it failed only in the
        # report, after the new pairings were written into the file
        BAD_FILES["a win rate as text"],
    ],
)
def test_run_refuses_a_bad_out_file_before_playing_or_writing(
    tmp_path, capsys, monkeypatch, content, problem
):
    played = stub_pairings(monkeypatch, 0.5)
    out = tmp_path / "g.json"
    before = _write(out, content)
    assert gauntlet.main([*RUN, "--only", "wide", "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"research.gauntlet: {out}: {problem}\n"
    assert played == [] and out.read_bytes() == before
    # the control: the well-formed file resumes, playing the groups it lacks
    _write(out, _document())
    assert gauntlet.main([*RUN, "--only", "wide", "--out", str(out)]) == 0
    assert played == list(gauntlet.WIDE)
    assert len(json.loads(out.read_text())["rows"]) == 4


def test_run_refuses_a_config_whose_league_is_not_an_object(tmp_path, capsys):
    config, out = tmp_path / "config.json", tmp_path / "g.json"
    config.write_text('{"opponents": [1]}')
    argv = [*RUN, "--only", "house", "--config", str(config), "--out", str(out)]
    assert gauntlet.main(argv) == 2
    assert capsys.readouterr().err == (
        f"research.gauntlet: {config}: opponents: expected an object, got [1]\n"
    )
    assert not out.exists()


def test_the_command_refuses_in_one_line_with_status_2(tmp_path):
    """The same refusal through ``python -m``: no traceback."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"rows": [{"x": 1}]}')
    done = subprocess.run(
        [sys.executable, "-m", "research.gauntlet", "report", str(bad)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"research.gauntlet: {bad}: agent: missing\n"


PACE = ["--agent", "greedy", "--opponent", "random", "--players", "2"]
SWAP = ["--agent", "greedy", "--other", "random", "--players", "2"]


@pytest.mark.parametrize("deals", ["0", "-3"])
def test_deals_below_one_are_refused(capsys, deals):
    """They raised ZeroDivisionError (``--tempo`` printed an empty table)."""
    for tool, argv in ((pace, PACE), (pace, [*PACE, "--tempo"]), (swap, SWAP)):
        assert tool.main([*argv, "--deals", deals]) == 2
        out, err = capsys.readouterr()
        assert (out, err) == ("", f"{tool.__name__}: --deals {deals}: at least 1\n")


def test_one_deal_is_played(capsys):
    """The control: one deal is two hands, each side first once."""
    assert pace.main([*PACE, "--deals", "1"]) == 0
    assert capsys.readouterr().out.startswith("2 hands, the agent won ")


@pytest.fixture
def nan_model(tmp_path) -> Path:
    """The shipped 2-player model with one NaN among its weights."""
    with np.load(ROOT / "agents/models/classic_2p.npz") as shipped:
        arrays = {name: shipped[name].copy() for name in shipped.files}
    arrays["pi_w"].flat[0] = np.nan
    np.savez(tmp_path / "nan.npz", **arrays)
    return tmp_path / "nan.npz"


@pytest.mark.parametrize(
    ("agent", "phrase"),
    [("nosuch", "unknown agent 'nosuch'; choose one of"), (None, "holds 1 NaN or infinite")],
)
def test_pace_answers_a_bad_agent_in_one_line_as_swap_does(capsys, nan_model, agent, phrase):
    agent = agent or f"ppo:{nan_model}"
    assert swap.main(["--agent", agent, "--other", "random", "--players", "2", "--deals", "1"]) == 2
    swapped = capsys.readouterr().err
    assert (
        pace.main(["--agent", agent, "--opponent", "random", "--players", "2", "--deals", "1"]) == 2
    )
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and phrase in err
    assert err.removeprefix("research.pace: ") == swapped.removeprefix("research.swap: ")
