"""Bad input to the commands gets one line and changes nothing (found from outside,
2026-11-30): a leaderboard file may not name code for --update to run, an agent takes one
label, an arena's size is bounded, a board the page cannot show writes nothing, and the
evaluate, demo, check and arena options are checked before any work."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agents.registry import make_agent
from canasta_arena.arena import MAX_HANDS, MAX_TOTAL_HANDS, run_arena
from canasta_cli import leaderboard as board_command
from canasta_cli.__main__ import main as canasta

#: A module an attacker would place beside a board: importing it leaves a marker.
HOSTILE = "from pathlib import Path\nPath('{marker}').write_text('ran')\nBot = object\n"


@pytest.fixture(scope="module")
def tiny_board(tmp_path_factory) -> Path:
    """A one-table board written by the command (2 deals, random and greedy)."""
    out = tmp_path_factory.mktemp("board") / "lb.md"
    argv = ["--tables", "classic-2p", "--agents", "random,greedy", "--hands", "2"]
    assert board_command.main([*argv, "--out", str(out), "--no-progress", "--no-plot"]) == 0
    return out.with_suffix(".json")


def test_update_refuses_a_board_that_names_code_and_imports_nothing(
    tiny_board, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)  # where make_agent looks for a module first
    marker = tmp_path / "marker.txt"
    (tmp_path / "hostile_bot.py").write_text(HOSTILE.format(marker=marker))
    document = json.loads(tiny_board.read_text())
    document["agents_option"] = ["random", "hostile_bot:Bot"]
    board = tmp_path / "lb.json"
    board.write_text(json.dumps(document))
    before = board.read_bytes()
    argv = ["--update", "--tables", "classic-2p", "--out", str(tmp_path / "lb.md"), "--no-plot"]
    assert board_command.main([*argv, "--no-progress"]) == 2
    assert "import path" in capsys.readouterr().err
    assert not marker.exists() and "hostile_bot" not in sys.modules
    assert board.read_bytes() == before and not (tmp_path / "lb.md").exists()
    # positive control: the same name given on the command line is the user's own code
    with pytest.raises(Exception):  # noqa: B017 (Bot = object has no act: refused after import)
        make_agent("hostile_bot:Bot")
    assert marker.exists()


@pytest.mark.parametrize(
    "name", ["x=y=openspiel:ismcts-100000", "x=y=search:classic-2p@4096", "a=" * 3000 + "random"]
)
def test_an_agent_takes_one_label(name):
    with pytest.raises(ValueError, match="two labels"):
        make_agent(name)
    assert make_agent("x=random").name == "x"  # one label still names the agent


def test_an_arena_file_cannot_hide_a_search_budget_behind_two_labels():
    pytest.importorskip("fastapi")
    from canasta_web.replays import file_agent

    with pytest.raises(ValueError, match="two labels"):
        file_agent("x=y=openspiel:ismcts-100000")
    with pytest.raises(ValueError, match="at most"):  # control: one label is seen through
        file_agent("x=openspiel:ismcts-100000")


@pytest.mark.parametrize(
    "agents, hands, said",
    [
        (["random", "greedy"], 10**12, "hands must be 1.."),
        (["random", "greedy"], 0, "hands must be 1.."),
        (["random", "greedy", "expert", "a=random", "b=greedy", "c=expert"], MAX_HANDS, "more"),
        (["a=random", "a=greedy"], 2, "two agents are shown as a"),
    ],
)
def test_an_arena_too_large_or_with_two_agents_of_one_name_is_refused_at_once(
    agents, hands, said, tmp_path
):
    with pytest.raises(ValueError, match=said):
        run_arena(agents, "classic", 2, hands=hands, out_dir=tmp_path / "out", plot=False)
    assert not (tmp_path / "out").exists()
    assert MAX_HANDS <= MAX_TOTAL_HANDS


@pytest.mark.parametrize(
    "spoil",
    [
        lambda d: d["tables"][0]["ratings"][0].update(win_ci=[]),
        lambda d: d["tables"][0].pop("pairs"),
        lambda d: d["tables"][0].update(ratings="x"),
    ],
)
def test_render_of_a_board_it_cannot_show_says_so_and_writes_nothing(
    spoil, tiny_board, tmp_path, capsys
):
    document = json.loads(tiny_board.read_text())
    spoil(document)
    board = tmp_path / "lb.json"
    board.write_text(json.dumps(document))
    before = board.read_bytes()
    assert board_command.main(["--render", "--out", str(tmp_path / "lb.md")]) == 2
    err = capsys.readouterr().err
    assert "not a leaderboard as canasta leaderboard writes it" in err and "Traceback" not in err
    assert board.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lb.json"]  # no page, no chart
    # positive control: the board as written renders
    board.write_text(tiny_board.read_text())
    assert board_command.main(["--render", "--out", str(tmp_path / "lb.md")]) == 0


@pytest.mark.parametrize("text", ["{}", "[]", '{"tables": 3}'])
def test_readme_from_a_file_that_is_no_board_says_so(text, tmp_path, capsys):
    (tmp_path / "lb.json").write_text(text)
    readme = tmp_path / "README.md"
    readme.write_text("# x\n")
    argv = ["--readme", str(readme), "--out", str(tmp_path / "lb.md"), "--overwrite"]
    assert board_command.main(argv) == 2
    assert "not a leaderboard" in capsys.readouterr().err
    assert readme.read_text() == "# x\n"


@pytest.mark.parametrize(
    "extra, said",
    [
        (["--threads", "0"], "--threads must be at least 1"),
        (["--hands", "-3"], "--hands must be at least 1"),
        (["--opponents", ","], "--opponents names no bot"),
        (["--json", "/no/such/folder/x.json"], "its folder does not exist"),
    ],
)
def test_evaluate_checks_its_options_before_any_hand(extra, said, capsys):
    pytest.importorskip("torch")
    argv = ["train", "--evaluate", "agents/models/classic_2p.npz", "--hands", "2", *extra]
    with pytest.raises(SystemExit) as stopped:
        canasta(argv)
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert said in err and " vs " not in out  # no hand was played


def test_a_file_that_is_no_model_is_not_called_a_pickle(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a model")
    with pytest.raises(ValueError) as caught:
        make_agent(f"ppo:{path}")
    assert "neither a .npz model" in str(caught.value) and "pickle" not in str(caught.value)


@pytest.mark.parametrize(
    "argv, said",
    [
        (["demo", "--hands", "0"], "canasta demo: --hands and --match-hands"),
        (["check", "--cycles", "0"], "--cycles must be at least 1"),
        (["arena", "--speed", "--hands", "-5", "--agents", "random", "greedy"], "--hands must"),
        (["frobnicate"], "unknown command"),
    ],
)
def test_commands_refuse_bad_options_on_stderr_before_any_work(argv, said, capsys):
    try:
        code = canasta(argv)
    except SystemExit as stopped:  # argparse's own refusals
        code = stopped.code
    assert code == 2
    out, err = capsys.readouterr()
    assert said in err and "compliance" not in out and "/s" not in out


def test_serve_names_the_replay_file_whose_moves_break_the_rules(tmp_path):
    pytest.importorskip("fastapi")
    from argparse import Namespace

    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from test_replay import BASE, _second_step_illegal
    finally:
        sys.path.pop(0)
    from canasta_web.serve import startup_replay

    data = json.loads(json.dumps(BASE))
    _second_step_illegal(data)
    path = tmp_path / "bad.replay.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError) as caught:
        startup_replay(Namespace(replay=str(path), arena=None))
    assert str(caught.value).startswith(f"{path}: invalid replay: step 1")


def test_ismcts_with_one_simulation_is_refused_by_name():
    pytest.importorskip("pyspiel")
    with pytest.raises(ValueError, match=r"N >= 2"):
        make_agent("openspiel:ismcts-1")
    with pytest.raises(ValueError, match="unknown OpenSpiel agent"):
        make_agent("openspiel:ismcts-\N{SUPERSCRIPT TWO}")  # a digit to isdigit, not to int
    assert make_agent("openspiel:ismcts-2") is not None  # control: two simulations play


def test_play_answers_a_bot_that_refuses_the_rules_and_ctrl_c_in_one_line():
    import io

    from canasta_cli.play import main as play_main

    pytest.importorskip("pyspiel")
    out = io.StringIO()
    argv = ["--no-color", "--seed", "3", "--rule", "target_score=3000"]
    code = play_main([*argv, "--opponents", "openspiel:ismcts"], input_fn=lambda _: "1", output=out)
    assert code == 2 and "canasta play: openspiel:ismcts: only the presets" in out.getvalue()

    def interrupt(prompt):
        raise KeyboardInterrupt

    out = io.StringIO()
    assert play_main(["--no-color", "--seed", "3"], input_fn=interrupt, output=out) == 130
    assert out.getvalue().rstrip().endswith("canasta play: interrupted")


def test_openspiel_refuses_an_observer_of_public_information_only():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.observation import make_observation

    import canasta_env.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game("python_canasta")
    public_only = pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
    )
    with pytest.raises(ValueError, match="only a player's own observation"):
        make_observation(game, public_only)
    own = pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
    )
    assert make_observation(game, own) is not None  # control: a player's own view
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="0..14"):
        state.action_to_string(pyspiel.PlayerId.CHANCE, 15)


@pytest.mark.parametrize(
    "typed, said",
    [
        ("9" * 5000, "choose a number from 1 to 2"),  # int() refuses 4,300+ digits
        ("\N{SUPERSCRIPT TWO}", "not an action"),  # a digit to isdigit(), not to int()
        ("discard " + "X" * 300, "a move is a few words; that was 308 characters"),
    ],
)
def test_a_typed_move_is_refused_in_a_short_line(typed, said):
    from canasta_cli.terminal_play import parse_move

    with pytest.raises(ValueError) as caught:
        parse_move(typed, [0, 5])
    assert said in str(caught.value) and len(str(caught.value)) < 120
    assert parse_move("\N{ARABIC-INDIC DIGIT TWO}", [0, 5]) == 5  # control: a decimal digit
