"""The budget curve (research/search_curve.py): processes start so that a stopped run leaves
every budget about as many hands, budgets are compared on the hands every one finished,
a run resumes without playing a finished chunk again, and a folder from elsewhere is read
as data."""

from __future__ import annotations

import json

import pytest

from canasta_arena.stats import wilson_interval
from research import search_curve as sc

SEARCH = "search:classic-2p@{}"
NET = "ppo:classic-2p"


def write_chunk(root, budget, chunk, hands, cpu):
    """A chunk folder as agents.search writes it: hands are (seed, arrangement, winners)."""
    folder = root / f"b{budget}_k{chunk}"
    folder.mkdir(parents=True)
    name = SEARCH.format(budget)
    results = {
        "config": {"agents": [name, NET]},
        "partial": False,
        "hands": [
            {"seed": seed, "arrangement": arrangement, "winners": [name if w == "s" else NET]}
            if w != "tie" else {"seed": seed, "arrangement": arrangement, "winners": [name, NET]}
            for seed, arrangement, w in hands
        ],
    }  # fmt: skip
    (folder / "results.json").write_text(json.dumps(results))
    decisions, mean, p99 = cpu
    (folder / "timings.json").write_text(
        json.dumps({"cpu": {"decisions": decisions, "mean": mean, "p99": p99}})
    )


def test_processes_start_chunk_by_chunk_largest_budget_first():
    assert sc.job_order([16, 128, 32], 2) == [
        (128, 0), (32, 0), (16, 0), (128, 1), (32, 1), (16, 1),
    ]  # fmt: skip


def test_budgets_compare_on_the_hands_every_budget_finished(tmp_path):
    # budget 8 finished 4 hands, budget 64 only 3 of them (stopped at a deadline): the
    # fourth hand, which the small budget won, must not count for either
    write_chunk(tmp_path, 8, 0, [(1, 0, "s"), (1, 1, "n"), (2, 0, "n")], (10, 0.01, 0.02))
    write_chunk(tmp_path, 8, 1, [(3, 0, "s")], (30, 0.03, 0.05))
    write_chunk(tmp_path, 64, 0, [(1, 0, "s"), (1, 1, "s"), (2, 0, "tie")], (20, 0.1, 0.3))
    (tmp_path / "b64_k0.log").write_text("a log beside the folders is not a chunk\n")
    (tmp_path / "notes").mkdir()
    rows = sc.curve_rows(sc.read_curve(tmp_path))
    assert [r["budget"] for r in rows] == [8, 64]
    assert [r["hands"] for r in rows] == [3, 3]
    assert [r["hands_played"] for r in rows] == [4, 3]
    assert rows[0]["win_rate"] == pytest.approx(1 / 3)
    assert rows[1]["win_rate"] == pytest.approx(2.5 / 3)  # a tie is half a hand, as in the arena
    assert rows[1]["win_ci"] == pytest.approx(wilson_interval(2.5, 3))
    # hand by hand over budget 8: 0, +1, +0.5
    gain, low, high = rows[1]["gain"]
    assert gain == pytest.approx(0.5)
    assert low < 0.5 < high
    # CPU seconds weighted by decisions: (10 * 0.01 + 30 * 0.03) / 40
    assert rows[0]["cpu_mean"] == pytest.approx(0.025)
    assert rows[0]["cpu_p99_max"] == pytest.approx(0.05)
    table = sc.render_table(rows)
    assert "| 64 | 83.3% [" in table and "| +50.0 +- " in table
    assert table.splitlines()[2].startswith("| 8 | 33.3% [")


def test_a_folder_from_elsewhere_is_read_as_data(tmp_path, capsys):
    with pytest.raises(ValueError, match="not a folder"):
        sc.read_curve(tmp_path / "missing")
    with pytest.raises(ValueError, match="no chunk folders"):
        sc.read_curve(tmp_path)
    folder = tmp_path / "b16_k0"
    folder.mkdir()
    (folder / "results.json").write_text('{"hands": [')
    (folder / "timings.json").write_text("{}")
    with pytest.raises(ValueError, match="results .*b16_k0/results.json: not valid JSON"):
        sc.read_curve(tmp_path)
    (folder / "results.json").write_text('{"config": {"agents": ["ppo:a", "ppo:b"]}, "hands": []}')
    with pytest.raises(
        ValueError, match="b16_k0: not the results of python -m research.search_timing"
    ):
        sc.read_curve(tmp_path)
    assert sc.main(["report", str(tmp_path)]) == 2
    assert "b16_k0: not the results" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["0,16", "16,a", "", "8192"])
def test_a_bad_budget_list_is_refused(text):
    with pytest.raises(sc.argparse.ArgumentTypeError):
        sc.budgets_argument(text)


def test_a_run_plays_every_chunk_once_and_resumes(tmp_path, capsys):
    out = tmp_path / "curve"
    argv = ["run", "--players", "2", "--budgets", "1,2", "--chunks", "1", "--hands", "2",
            "--jobs", "2", "--out", str(out)]  # fmt: skip
    assert sc.main(argv) == 0
    assert "2 chunks to play" in capsys.readouterr().out
    for budget in (1, 2):
        assert sc.chunk_done(out / f"b{budget}_k0")
    rows = sc.curve_rows(sc.read_curve(out))
    assert [r["hands"] for r in rows] == [2, 2]
    assert all(0 <= r["win_rate"] <= 1 and r["cpu_mean"] > 0 for r in rows)
    # the same deals for both budgets (duplicate: one deal from both seats)
    curve = sc.read_curve(out)
    assert set(curve[1].won) == set(curve[2].won) and len({s for s, _ in curve[1].won}) == 1
    # a partial chunk (stopped at a deadline) is played again, a finished one is not
    results = out / "b2_k0" / "results.json"
    stopped = json.loads(results.read_text())
    stopped["partial"] = True
    results.write_text(json.dumps(stopped))
    assert sc.main(argv) == 0
    assert "1 chunks to play" in capsys.readouterr().out
    assert sc.chunk_done(out / "b2_k0")
    assert sc.main(["report", str(out), "--chart", str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "c.png").stat().st_size > 1000


def test_winners_given_as_a_string_are_refused_not_read_by_substring(tmp_path):
    """Issue 44 (12): ``"search:classic-2p@8" in "xsearch:classic-2p@8y"`` counted a win."""
    write_chunk(tmp_path, 8, 0, [(1, 0, "s")], (10, 0.01, 0.02))
    results = json.loads((tmp_path / "b8_k0" / "results.json").read_text())
    assert sc.read_curve(tmp_path)[8].won == {(1, 0): 1.0}  # the control reads
    results["hands"][0]["winners"] = "x" + SEARCH.format(8) + "y"
    (tmp_path / "b8_k0" / "results.json").write_text(json.dumps(results))
    with pytest.raises(ValueError, match="not the results of"):
        sc.read_curve(tmp_path)
