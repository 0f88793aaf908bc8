"""The leaderboard (``canasta leaderboard``): its files, figures that are the arena's on the same
deals, determinism, errors that name the nearest table or agent, the shipped agents' tables,
and the README block that only the generator writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import canasta_arena.leaderboard as leaderboard
import canasta_arena.leaderboard_report as leaderboard_report
from canasta_arena.arena import run_arena
from canasta_cli import leaderboard as command

pytest.importorskip("openskill", reason="the arena's ratings need the 'arena' extra")

ROOT = Path(__file__).resolve().parents[1]

#: The tiny run: a 2-player and a 3-player table (2 and 6 seat arrangements a deal).
TINY = ["--tables", "classic-2p,classic-3p", "--agents", "random,greedy", "--hands", "2"]
TINY_SEED = 5

TABLE_KEYS = {
    "table", "title", "variant", "players", "rules", "agents", "deals_per_pairing",
    "arrangements", "hands_per_pairing", "hands_played", "ratings", "pairs", "head_to_head",
}  # fmt: skip


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> tuple[Path, dict]:
    """The tiny run, written by the command: its folder and its JSON document."""
    out = tmp_path_factory.mktemp("leaderboard")
    argv = [*TINY, "--seed", str(TINY_SEED), "--out", str(out / "lb.md"), "--no-progress"]
    assert command.main(argv) == 0
    return out, json.loads((out / "lb.json").read_text(encoding="utf-8"))


def test_the_command_writes_the_page_its_chart_and_every_figure(tiny):
    out, document = tiny
    assert sorted(p.name for p in out.iterdir()) == ["lb.json", "lb.md", "lb.png"]
    assert (out / "lb.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert set(document) == {
        "command", "date", "seed", "deals_per_pairing", "tables_option", "agents_option",
        "without_option", "tables", "seconds", "table_seconds", "jobs",
    }  # fmt: skip
    assert sorted(document["table_seconds"]) == ["classic-2p", "classic-3p"]
    assert document["seconds"] >= 0 and document["jobs"] >= 1  # how long it took, and how
    assert f"of wall time (`--jobs {document['jobs']}`)" in (out / "lb.md").read_text()
    assert document["command"].startswith("canasta leaderboard --tables classic-2p,classic-3p")
    assert (document["seed"], document["deals_per_pairing"]) == (TINY_SEED, 2)
    assert document["tables_option"] == ["classic-2p", "classic-3p"]
    assert document["agents_option"] == ["random", "greedy"]
    two, three = document["tables"]
    for entry, players, arrangements in ((two, 2, 2), (three, 3, 6)):
        assert set(entry) == TABLE_KEYS
        assert (entry["variant"], entry["players"], entry["rules"]) == ("classic", players, {})
        assert entry["arrangements"] == arrangements
        assert entry["hands_per_pairing"] == entry["hands_played"] == 2 * arrangements
        assert [r["rank"] for r in entry["ratings"]] == [1, 2]
        elos = [r["elo"] for r in entry["ratings"]]
        assert elos == sorted(elos, reverse=True)
        for r in entry["ratings"]:
            assert r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"], abs=1e-5)
        (pair,) = entry["pairs"]
        first, second = pair["agents"]
        assert first == entry["ratings"][0]["agent"]
        assert set(pair) == {"agents", "hands", "win_rate", "win_ci", "score_diff", "score_diff_ci"}
        assert pair["win_ci"][0] <= pair["win_rate"] <= pair["win_ci"][1]
        back = entry["head_to_head"][second][first]
        assert back["win_rate"] == pytest.approx(1 - pair["win_rate"])
    page = (out / "lb.md").read_text(encoding="utf-8")
    assert f"Written by `{document['command']}` on {document['date']}" in page
    assert "## classic, 2 players" in page and "## classic, 3 players" in page
    assert "![OpenSkill ordinal of each agent at each table](lb.png)" in page
    assert "this is not one." in page


@pytest.mark.parametrize("index,players", [(0, 2), (1, 3)])
def test_the_figures_are_the_arenas_on_the_same_deals(tiny, index, players):
    entry = tiny[1]["tables"][index]
    deals = tiny[1]["deals_per_pairing"]
    arena = run_arena(
        ["random", "greedy"], "classic", players, hands=deals * (2 if players == 2 else 6),
        seed=TINY_SEED, plot=False,
    )  # fmt: skip
    assert entry["hands_played"] == len(arena.hands)
    for row in arena.summary["ranking"]:
        (mine,) = [r for r in entry["ratings"] if r["agent"] == row["agent"]]
        assert (mine["mu"], mine["sigma"], mine["ordinal"]) == pytest.approx(
            (row["mu"], row["sigma"], row["rating"]), abs=1e-6
        )
        assert mine["win_rate"] == pytest.approx(row["win_rate"], abs=1e-6)
    for a, row in arena.summary["head_to_head"].items():
        for b, cell in row.items():
            mine = entry["head_to_head"][a][b]
            assert mine["hands"] == cell["hands"]
            assert mine["win_rate"] == pytest.approx(cell["win_rate"], abs=1e-6)
            assert mine["win_ci"] == pytest.approx(cell["win_ci"], abs=1e-6)
    (pair,) = entry["pairs"]
    first = pair["agents"][0]
    diffs = [hand.score_diff[first] for hand in arena.hands]
    assert pair["score_diff"] == pytest.approx(sum(diffs) / len(diffs), abs=1e-6)


def test_the_same_seed_gives_the_same_leaderboard(tiny, tmp_path):
    """Again, with two worker processes on the 2-player table: the same figures."""
    _out, document = tiny
    again = leaderboard.run_leaderboard(
        ["classic-2p"], ["random", "greedy"], deals=2, seed=TINY_SEED, jobs=2,
        date=document["date"],
    )  # fmt: skip
    assert again["tables"] == document["tables"][:1]
    other = leaderboard.run_leaderboard(
        ["classic-2p"], ["random", "greedy"], deals=2, seed=TINY_SEED + 1
    )
    assert other["tables"] != document["tables"][:1]


@pytest.mark.parametrize(
    "argv,said",
    [
        (["--tables", "clasic-2p"], "unknown table 'clasic-2p' (did you mean 'classic-2p'"),
        (["--tables", "classic-2p,italian-3p"], "unknown table 'italian-3p' (did you mean"),
        (["--agents", "random,greedyy"], "unknown agent 'greedyy' (did you mean 'greedy'?)"),
        (["--agents", "random"], "at least two distinct agents"),
        (["--hands", "0"], "at least 1"),
        (["--without", "serch"], "--without 'serch' names no agent of the leaderboard"),
        (["--without", "expert", "--agents", "random,greedy"], "give it without --agents"),
    ],
)
def test_a_bad_table_or_agent_is_named_with_the_nearest(argv, said, tmp_path, capsys):
    argv = [*argv, "--out", str(tmp_path / "lb.md"), "--no-progress"]
    try:
        code = command.main(["--tables", "classic-2p", *argv])
    except SystemExit as stopped:  # argparse refuses a bad --tables item
        code = stopped.code
    assert code == 2
    assert said in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_the_shipped_agents_play_the_tables_they_declare(monkeypatch):
    pytest.importorskip("agents.network")
    import agents.network as trained

    shipped = leaderboard.shipped_agents()
    assert shipped["ppo:classic-2p"] == ("classic-2p",)
    assert shipped["ppo:classic-4p"] == ("classic-4p",)
    assert shipped["ppo:sb3-classic-2p"] == ()
    seated = leaderboard.default_agents("classic-4p")
    assert seated[:3] == list(leaderboard.BOTS) and "ppo:classic-4p" in seated
    assert all("classic-4p" in shipped[name] for name in seated[3:])
    assert "ppo:classic-4p" not in leaderboard.default_agents("classic-4p", without=["ppo"])
    two = {"ppo:classic-2p": ("classic-2p",), "search:classic-2p": ("classic-2p",)}
    assert leaderboard.default_agents("spanish-3p", two) == list(leaderboard.BOTS)
    assert leaderboard.default_agents("classic-2p", two, ["search"]) == [
        *leaderboard.BOTS, "ppo:classic-2p"]  # fmt: skip
    assert leaderboard.default_agents("classic-2p", two, ["random", "search:classic-2p"]) == [
        "greedy", "expert", "ppo:classic-2p"]  # fmt: skip
    # a new alias is seated by its name alone; a declaration names other tables
    monkeypatch.setitem(trained.SHIPPED, "spanish-runs-4p", trained.SHIPPED["classic-4p"])
    monkeypatch.setitem(trained.SHIPPED, "all", trained.SHIPPED["classic-4p"])
    monkeypatch.setitem(trained.SHIPPED_TABLES, "all", ("italian-2p", "italian-4p"))
    shipped = leaderboard.shipped_agents()
    assert shipped["ppo:spanish-runs-4p"] == ("spanish-runs-4p",)
    assert leaderboard.default_agents("italian-4p", shipped)[-1] == "ppo:all"
    monkeypatch.setitem(trained.SHIPPED_TABLES, "all", ("italian-6p",))
    with pytest.raises(ValueError, match=r"SHIPPED_TABLES\['all'\] names no leaderboard table"):
        leaderboard.shipped_agents()


def test_the_tables_are_every_preset_at_every_count_and_the_runs():
    assert len(leaderboard.TABLES) == 15
    runs = leaderboard.TABLES["spanish-runs-4p"]
    assert (runs.variant, runs.players, runs.rules) == ("spanish", 4, {"sequences": True})
    assert runs.title.startswith("spanish with the ") and runs.title.endswith(" runs, 4 players")
    assert {key: t.arrangements for key, t in leaderboard.TABLES.items() if key[:7] == "classic"} \
        == {"classic-2p": 2, "classic-3p": 6, "classic-4p": 2, "classic-6p": 2}  # fmt: skip


# ---------------------------------------------------------------------- the README block


def _readme_block(text: str) -> str:
    begin = text.index(leaderboard_report.README_BEGIN) + len(leaderboard_report.README_BEGIN) + 1
    return text[begin : text.index(leaderboard_report.README_END) - 1]


def test_the_readme_block_is_what_the_json_file_generates():
    document = json.loads((ROOT / "docs" / "leaderboard.json").read_text(encoding="utf-8"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert _readme_block(readme) == leaderboard_report.readme_block(document), (
        "README.md's leaderboard block is written from docs/leaderboard.json: run "
        "`canasta leaderboard --readme`"
    )


def test_only_a_full_run_writes_figures_into_the_readme(tiny, tmp_path):
    _out, document = tiny
    small = leaderboard_report.readme_block(document)
    assert "smaller run (2 deals per pairing" in small and "|" not in small
    full = dict(document, tables_option=None, agents_option=None,
                deals_per_pairing=leaderboard.FULL_DEALS)  # fmt: skip
    entry = document["tables"][0]
    full["tables"] = [dict(entry, table=key) for key in leaderboard.TABLES]
    assert leaderboard.is_full_run(full)
    block = leaderboard_report.readme_block(full)
    (pair,) = entry["pairs"]
    assert f"| classic-3p | {pair['agents'][0]} " in block
    assert f"| {pair['agents'][0]} vs {pair['agents'][1]} | {pair['hands']} |" in block
    readme = tmp_path / "README.md"
    marks = leaderboard_report.README_BEGIN, leaderboard_report.README_END
    readme.write_text(f"# x\n\n{marks[0]}\nold\n{marks[1]}\nrest\n")
    (tmp_path / "lb.json").write_text(json.dumps(full))
    argv = ["--readme", str(readme), "--json", str(tmp_path / "lb.json")]
    assert command.main(argv) == 0
    assert _readme_block(readme.read_text()) == block
    assert readme.read_text().endswith(f"{leaderboard_report.README_END}\nrest\n")
    readme.write_text("# no markers\n")
    assert command.main(argv) == 2


def test_a_smaller_run_never_replaces_the_full_board(tiny, tmp_path, capsys):
    """The default output is a folder of its own, never docs/; a smaller run refuses to
    replace a full board (and the README's block) unless --overwrite, before playing."""
    assert command.build_parser().parse_args([]).out == "leaderboard/leaderboard.md"
    parse = command.build_parser().parse_args
    assert parse(["--deals", "3"]).hands == parse(["--hands", "3"]).hands == 3  # one option
    _out, document = tiny
    full = dict(document, tables_option=None, agents_option=None,
                deals_per_pairing=leaderboard.FULL_DEALS)  # fmt: skip
    full["tables"] = [dict(document["tables"][0], table=key) for key in leaderboard.TABLES]
    board = tmp_path / "board.md"
    board.with_suffix(".json").write_text(json.dumps(full))
    argv = [*TINY, "--seed", str(TINY_SEED), "--out", str(board), "--no-progress"]
    assert command.main(argv) == 2
    assert "holds the full leaderboard" in capsys.readouterr().err
    assert json.loads(board.with_suffix(".json").read_text()) == full  # nothing changed
    assert not board.exists()
    readme = tmp_path / "README.md"
    text = f"# x\n\n{leaderboard_report.README_BEGIN}\nold\n{leaderboard_report.README_END}\n"
    readme.write_text(text)
    small = tmp_path / "small.json"
    small.write_text(json.dumps(document))
    assert command.main(["--readme", str(readme), "--json", str(small)]) == 2
    assert "smaller run" in capsys.readouterr().err and readme.read_text() == text
    assert command.main(["--readme", str(readme), "--json", str(small), "--overwrite"]) == 0
    assert command.main([*argv, "--overwrite"]) == 0  # the positive control
    assert json.loads(board.with_suffix(".json").read_text())["deals_per_pairing"] == 2


EXPLOITS = {
    "format": 1,
    "results": [
        {"table": "classic-2p", "agent": "ppo:classic-2p", "win_rate": 0.5425,
         "win_ci": [0.5207, 0.5642], "exploiter_steps": 20_054_016, "hands": 2000},
        {"table": "classic-4p", "agent": "expert", "win_rate": 0.75,
         "win_ci": [0.73, 0.77], "exploiter_steps": 30_740, "hands": 200},
        {"table": "classic-2p", "agent": "ppo:classic-2p", "win_rate": 0.5375,
         "win_ci": [0.516, 0.559], "exploiter_steps": 2_001_588, "hands": 2000},
    ],
}  # fmt: skip


def test_the_column_shows_the_largest_budget_and_there_the_exploiter_that_won_most():
    """Every exploiter's figure is a lower bound on how exploitable its agent is: at the
    same budget (as the column shows it) the board keeps the larger, whichever ran more
    steps; a larger budget still wins over a smaller one that found more."""

    def row(rate, steps):
        return {
            "table": "classic-2p",
            "agent": "ppo:classic-2p",
            "win_rate": rate,
            "win_ci": [rate - 0.02, rate + 0.02],
            "exploiter_steps": steps,
            "hands": 2000,
        }

    for results in (
        [row(0.549, 20_018_853), row(0.569, 20_002_575), row(0.60, 2_001_588)],
        [row(0.569, 20_002_575), row(0.60, 2_001_588), row(0.549, 20_018_853)],
    ):
        shown = leaderboard.attach_exploitability({}, {"results": results})["exploitability"]
        assert shown["classic-2p"]["ppo:classic-2p"]["win_rate"] == 0.569
        assert shown["classic-2p"]["ppo:classic-2p"]["exploiter_steps"] == 20_002_575


def test_render_adds_the_exploiters_column_from_a_report_and_plays_nothing(tmp_path, capsys):
    """--render writes the page again from the JSON file: unchanged without a report
    (the committed page is what its JSON file renders), and with one each ranking of a
    table an exploiter measured gains the column; agents not measured show '-'."""
    board = tmp_path / "board.md"
    (tmp_path / "board.json").write_text(Path("docs/leaderboard.json").read_text())
    assert command.main(["--render", "--out", str(board), "--no-plot"]) == 0
    committed = Path("docs/leaderboard.md").read_text()
    assert board.read_text() == committed.replace(
        "![OpenSkill ordinal of each agent at each table](leaderboard.png)\n\n", ""
    )
    document = json.loads(Path("docs/leaderboard.json").read_text())
    document.pop("exploitability", None)
    document.pop("strangers", None)  # the exploiters' column alone, the last
    (tmp_path / "board.json").write_text(json.dumps(document))
    assert command.main(["--render", "--out", str(board), "--no-plot"]) == 0
    assert "exploiter" not in board.read_text()
    report = tmp_path / "exploits.json"
    report.write_text(json.dumps(EXPLOITS))
    argv = ["--render", "--out", str(board), "--no-plot", "--exploitability", str(report)]
    assert command.main(argv) == 0
    page = board.read_text()
    (top,) = [r for r in document["tables"][0]["ratings"] if r["agent"] == "ppo:classic-2p"]
    won = leaderboard_report.percent(top["win_rate"], top["win_ci"])
    assert f"| {top['rank']} | ppo:classic-2p | {top['elo']:.0f} |" in page
    assert f"| {won} | 54.2% [52.1, 56.4] (20.1 M steps) |" in page  # the largest budget
    assert "53.8%" not in page
    assert "| 61.0% [59.7, 62.2] | 75.0% [73.0, 77.0] (30,740 steps) |" not in page  # not 2p
    section = page[page.index("## classic, 4 players") : page.index("## classic, 6 players")]
    assert "75.0% [73.0, 77.0] (30,740 steps) |" in section
    ranks = [line for line in section.splitlines() if line[:4] in ("| 1 ", "| 2 ", "| 3 ", "| 4 ")]
    measured = [(line.split(" | ")[1], not line.endswith(" - |")) for line in ranks]
    assert measured == [
        ("ppo:classic-4p", False), ("expert", True), ("greedy", False), ("random", False)
    ]  # fmt: skip
    later = page[page.index("## classic, 6 players") :]
    assert "exploiter's hands won" not in later  # tables without a measure keep their columns
    saved = json.loads((tmp_path / "board.json").read_text())
    assert saved["exploitability"]["classic-2p"]["ppo:classic-2p"]["hands"] == 2000
    # a file that is no report: refused, nothing written
    before = board.read_text()
    report.write_text(json.dumps({"results": [{"table": "classic-2p"}]}))
    assert command.main(argv) == 2
    assert "without its figures" in capsys.readouterr().err and board.read_text() == before


def test_update_plays_the_named_tables_again_and_keeps_the_others(tiny, tmp_path, capsys):
    """--update replays only --tables, with the board's own agents, seed and deals: the
    replayed table is the one the full command wrote (the same deals), a table not named is
    kept as it was (positive control: both were spoiled, only one is restored), and the
    update is recorded and said on the page. A table the board lacks, other agents or other
    deals are refused before any hand, nothing written."""
    _out, document = tiny
    spoiled = json.loads(json.dumps(document))
    spoiled["tables"][0]["ratings"] = []
    spoiled["tables"][1]["hands_played"] = -1
    found = {"win_rate": 0.6, "win_ci": [0.5, 0.7], "exploiter_steps": 10, "hands": 2}
    spoiled["exploitability"] = {"classic-2p": {"random": found}, "classic-3p": {"greedy": found}}
    board = tmp_path / "board.md"
    board.with_suffix(".json").write_text(json.dumps(spoiled))
    base = ["--out", str(board), "--no-plot", "--no-progress"]
    refused = {
        "classic-4p": ["--tables", "classic-4p", "--update"],
        "no --agents": ["--tables", "classic-2p", "--agents", "random,expert", "--update"],
        "--deals 2, not 3": ["--tables", "classic-2p", "--deals", "3", "--update"],
        "name at least one": ["--update"],
    }
    for said, argv in refused.items():
        assert command.main([*argv, *base]) == 2
        assert said in capsys.readouterr().err
        assert json.loads(board.with_suffix(".json").read_text()) == spoiled and not board.exists()
    assert command.main(["--tables", "classic-2p", "--update", *base]) == 0
    updated = json.loads(board.with_suffix(".json").read_text())
    assert updated["tables"][0] == document["tables"][0]  # played again on the same deals
    assert updated["tables"][1] == spoiled["tables"][1]  # not named: kept as it was
    assert updated["command"] == document["command"] and updated["date"] == document["date"]
    (update,) = updated["updates"]
    assert update["tables"] == ["classic-2p"] and "--update" in update["command"]
    assert updated["exploitability"] == {"classic-3p": {"greedy": found}}  # of the old agents
    assert "Played again since, on the same deals" in board.read_text()
    assert "classic-2p on " in board.read_text()


def test_an_exploit_result_lands_on_the_board_under_the_name_of_the_file_it_measured():
    """By the model's digest: a file shipped since is on the board under its shipped name,
    a shipped name whose file was replaced is not on it any more, a bot by its name."""
    digest = "0" * 64
    assert leaderboard.board_name({"agent": "expert"}) == "expert"
    assert leaderboard.board_name({"agent": "ppo:classic-2p"}) == "ppo:classic-2p"  # no digest
    moved = {"agent": "ppo:research/h.npz", "agent_sha256": digest, "shipped_as": "ppo:classic-2p"}
    assert leaderboard.board_name(moved) == "ppo:classic-2p"
    old = {"agent": "ppo:classic-2p", "agent_sha256": digest, "shipped_as": None, "replaced": True}
    assert leaderboard.board_name(old) is None
    other = {"agent": "ppo:runs/x.npz", "agent_sha256": digest, "shipped_as": None}
    assert leaderboard.board_name(other) is None
    row = {"win_rate": 0.5, "win_ci": [0.4, 0.6], "exploiter_steps": 10, "hands": 2}
    report = {
        "results": [dict(row, table="classic-2p", **moved), dict(row, table="classic-2p", **old)]
    }
    attached = leaderboard.attach_exploitability({}, report)["exploitability"]
    assert attached == {"classic-2p": {"ppo:classic-2p": row}}


def test_render_refuses_an_out_that_would_write_the_page_over_its_json(tmp_path, capsys):
    """``--render --out DIR/board.json`` wrote the page over the figures it rendered: the
    page, the JSON file and the chart are three files, and none is an input."""
    board = tmp_path / "board.json"
    board.write_text(Path("docs/leaderboard.json").read_text())
    before = board.read_bytes()
    assert command.main(["--render", "--out", str(board)]) == 2
    assert capsys.readouterr().err == (
        f"canasta leaderboard: the page --out {board} and the JSON file {board} are the same "
        "file: each output needs a path of its own\n"
    )
    assert board.read_bytes() == before
    report = tmp_path / "exploits.json"
    report.write_text(json.dumps(EXPLOITS))
    argv = ["--render", "--out", str(report.with_suffix(".md")), "--json", str(board)]
    assert command.main([*argv, "--no-plot", "--exploitability", str(report)]) == 0  # control
    capsys.readouterr()
    page = tmp_path / "page.md"
    for bad, said in (
        (["--json", str(page)], f"the page --out {page} and the JSON file {page} are the same"),
        (["--exploitability", str(page)], f"the page --out {page} is the same file as the input"),
    ):
        page.write_text(json.dumps(EXPLOITS))
        kept = page.read_bytes()
        assert command.main(["--render", "--out", str(page), "--no-plot", *bad]) == 2
        assert capsys.readouterr().err.startswith(f"canasta leaderboard: {said}")
        assert page.read_bytes() == kept
    chart = tmp_path / "chart.png"
    assert command.main(["--render", "--out", str(chart), "--json", str(board)]) == 2
    assert capsys.readouterr().err == (
        f"canasta leaderboard: the page --out {chart} and the chart beside --out {chart} are the "
        "same file: each output needs a path of its own\n"
    )


def _gauntlet(
    agent: str, players: int, digest: str | None, rate: float = 0.6, table: str | None = None
) -> dict:
    worst = {
        "group": "stranger", "opponent": "research.strangers.s1_racer:Racer", "hands": 2000,
        "win_rate": rate, "win_ci": [rate - 0.02, rate + 0.02], "score_diff": 236.1,
        "score_diff_ci": [185.9, 286.3], "trained_with": False,
    }  # fmt: skip
    document = {
        "agent": agent, "agent_sha256": digest, "players": players, "hands": 2000,
        "seed": 9100, "worst": worst, "rows": [worst],
    }  # fmt: skip
    if table is not None:  # a file before tables names none: classic
        document["table"] = table
    return document


def test_render_adds_the_worst_stranger_column_of_the_files_that_measured_the_shipped_agent(
    tmp_path,
):
    """--gauntlet: each table an agent met the gauntlet at gains a column with its hands won
    against its worst stranger; a gauntlet of a file since replaced is left out; a file that
    is no gauntlet is refused and nothing is written."""
    from agents.network import SHIPPED
    from training.exploit import file_digest

    board = tmp_path / "board.md"
    document = json.loads(Path("docs/leaderboard.json").read_text())
    document.pop("strangers", None)
    (tmp_path / "board.json").write_text(json.dumps(document))
    shipped = _gauntlet("ppo:classic-4p", 4, file_digest(SHIPPED["classic-4p"]), 0.61)
    stale = _gauntlet("ppo:classic-2p", 2, "0" * 64, 0.97)
    spanish = _gauntlet("ppo:spanish-3p", 3, file_digest(SHIPPED["spanish-3p"]), 0.83,
                        table="spanish-3p")  # fmt: skip
    paths = []
    for name, gauntlet in (("g4.json", shipped), ("g2.json", stale), ("s3.json", spanish)):
        paths.append(tmp_path / name)
        paths[-1].write_text(json.dumps(gauntlet))
    argv = ["--render", "--out", str(board), "--no-plot", "--gauntlet", *map(str, paths)]
    assert command.main(argv) == 0
    page = board.read_text()
    section = page[page.index("## classic, 4 players") : page.index("## classic, 6 players")]
    assert "hands won against its worst stranger (95% CI) |" in section
    (line,) = [line for line in section.splitlines() if line.startswith("| 1 | ppo:classic-4p")]
    assert line.endswith("| 61.0% [59.0, 63.0] (Racer) |")
    assert section.count(" - |\n") >= 3  # expert, greedy and random were not measured
    two = page[page.index("## classic, 2 players") : page.index("## classic, 3 players")]
    assert "worst stranger" not in two and "97.0%" not in page  # the replaced file's figure
    three = page[page.index("## spanish, 3 players") : page.index("## spanish, 4 players")]
    (line,) = [line for line in three.splitlines() if line.startswith("| 1 | ppo:spanish-3p")]
    assert line.endswith("| 83.0% [81.0, 85.0] (Racer) |")
    saved = json.loads((tmp_path / "board.json").read_text())
    assert saved["strangers"] == {
        "classic-4p": {
            "ppo:classic-4p": {
                "opponent": "research.strangers.s1_racer:Racer", "win_rate": 0.61,
                "win_ci": [0.59, 0.63], "hands": 2000,
            }
        },
        "spanish-3p": {
            "ppo:spanish-3p": {
                "opponent": "research.strangers.s1_racer:Racer", "win_rate": 0.83,
                "win_ci": [pytest.approx(0.81), 0.85], "hands": 2000,
            }
        },
    }  # fmt: skip
    before = board.read_text()
    for bad in (
        {"agent": "ppo:classic-4p", "players": 5, "worst": None},
        dict(spanish, players=4),  # not the table's player count
        dict(spanish, table="poker-3p"),
        [1],
        {"rows": []},
    ):
        paths[0].write_text(json.dumps(bad))
        assert command.main(argv) == 2
    shipped["worst"]["win_rate"] = 1.5
    paths[0].write_text(json.dumps(shipped))
    assert command.main(argv) == 2
    assert board.read_text() == before
