"""The ``canasta`` command line: shared options, defaults in --help, notes and hints."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from agents.registry import make_agent
from canasta_cli import arena, check, options, play, serve
from canasta_cli.__main__ import main as canasta
from canasta_env.extras import install_command

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("module", [arena, play, check, serve])
def test_help_shows_the_defaults(module, capsys):
    with pytest.raises(SystemExit) as stopped:
        module.main(["--help"])
    assert stopped.value.code == 0
    text = capsys.readouterr().out
    assert "(default: " in text
    if module in (arena, play):
        assert "(default: classic)" in text and "(default: 2)" in text


@pytest.mark.parametrize("command", ["arena", "play", "check", "serve", "leaderboard", "demo"])
def test_help_shows_plain_text_not_docstring_markup(command, capsys):
    with pytest.raises(SystemExit):
        canasta([command, "--help"])
    text = capsys.readouterr().out
    assert "``" not in text and ":func:`" not in text and ":mod:`" not in text, text


def test_canasta_help_names_every_command_in_plain_text(capsys):
    from canasta_cli.__main__ import COMMANDS

    assert canasta(["--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: canasta COMMAND")
    assert "``" not in text and ":mod:`" not in text
    listed = [line.split()[0] for line in text.splitlines()[2:] if line[:3] == "  " + line[2:3]]
    assert [c for c in listed if c in COMMANDS] == list(COMMANDS)
    # the leaderboard's default output, as its own --help says it
    with pytest.raises(SystemExit):
        canasta(["leaderboard", "--help"])
    assert "default leaderboard/leaderboard.md" in capsys.readouterr().out
    assert "into leaderboard/" in text


def test_plain_text_strips_roles_and_literals():
    text = "``canasta demo``: see :func:`~canasta_arena.arena.run_arena` and :mod:`agents`"
    assert options.plain_text(text) == "canasta demo: see canasta_arena.arena.run_arena and agents"


@pytest.mark.parametrize("module", [arena, play])
def test_one_table_means_the_same_in_arena_and_play(module):
    args = module.build_parser().parse_args(["--variant", "spanish", "--players", "4"])
    assert (args.variant, args.players) == ("spanish", 4)
    defaults = module.build_parser().parse_args([])
    assert (defaults.variant, defaults.players) == ("classic", options.DEFAULT_PLAYERS)


def test_a_mistyped_variant_gets_the_nearest_name(capsys):
    with pytest.raises(SystemExit):
        arena.main(["--variant", "clasic"])
    assert "did you mean 'classic'?" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv,said",
    [
        (["--variant", "clasic,spanish"], "unknown variant 'clasic' (did you mean 'classic'?)"),
        (["--variant", "classic", "spanihs"], "unknown variant 'spanihs' (did you mean 'spanish'"),
        (["--players", "2,four"], "'four' in '2,four' is not a whole number"),
    ],
)
def test_every_list_of_tables_names_the_mistyped_item(argv, said, capsys):
    """The lists of ``add_table_options(many=True)``: canasta train's, its --evaluate's and
    canasta check's --variant/--players answer a bad item alike, naming it."""
    pytest.importorskip("torch")
    from canasta_cli import train

    for parser in (train.build_parser(), train.build_evaluate_parser(), check.build_parser()):
        extra = ["--evaluate", "m"] if parser.prog.endswith("--evaluate") else []
        with pytest.raises(SystemExit) as stopped:
            parser.parse_args(argv + extra)
        assert stopped.value.code == 2
        assert said in capsys.readouterr().err


def test_list_options_show_their_defaults_in_help(capsys):
    pytest.importorskip("torch")
    from canasta_cli import train

    text = train.build_evaluate_parser().format_help()
    assert "(default: classic)" in text and "(default: 2)" in text
    args = train.build_evaluate_parser().parse_args(["--evaluate", "m"])
    assert (args.variant, args.players) == (["classic"], [2])
    text = " ".join(train.build_parser().format_help().split())
    assert "(a new run: classic)" in text and "(a new run: self=0.25," in text
    with pytest.raises(SystemExit):
        check.main(["--variant", "spanish,italien"])
    assert "did you mean 'italian'?" in capsys.readouterr().err


def test_check_takes_lists_by_spaces_or_commas():
    parser = check.build_parser()
    for argv in (["--variants", "classic", "spanish", "--players", "2", "4"],
                 ["--variant", "classic,spanish", "--players", "2,4"]):  # fmt: skip
        args = parser.parse_args(argv)
        assert (args.variant, args.players) == (["classic", "spanish"], [2, 4])
    assert parser.parse_args([]).variant is None


@pytest.mark.parametrize(
    "name,nearest",
    [("exprt", "expert"), ("Greedy", "greedy"), ("ppo:clasic-2p", "ppo:classic-2p")],
)
def test_a_mistyped_agent_gets_the_nearest_name(name, nearest):
    with pytest.raises(ValueError, match=f"did you mean '{nearest}'"):
        make_agent(name)


def test_the_arena_command_names_a_mistyped_agent(tmp_path, capsys):
    argv = ["--agents", "random", "exprt", "--hands", "1", "--out", str(tmp_path / "out")]
    assert arena.main(argv) == 2
    assert "did you mean 'expert'?" in capsys.readouterr().err


def test_a_trained_agent_at_another_table_is_named_once(tmp_path, capsys):
    pytest.importorskip("openskill")
    argv = ["--players", "4", "--agents", "ppo:classic-2p", "ppo:classic-4p", "random"]
    argv += ["--hands", "1", "--no-progress", "--no-plot", "--out", str(tmp_path / "a")]
    assert arena.main(argv) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "note:" in line]
    assert notes == [
        "canasta arena: note: ppo:classic-2p was trained at classic 2-player tables, "
        "not classic 4-player: expect weaker play; ppo:classic-4p is the one for this table"
    ]
    assert options.table_notes(["ppo:classic-4p"], "spanish", 2) == [
        "note: ppo:classic-4p was trained at classic 4-player tables, not spanish 2-player: "
        "expect weaker play; ppo:spanish-2p is the one for this table"
    ]
    assert options.table_notes(["ppo:classic-2p", "expert"], "classic", 2) == []
    assert options.table_notes(["mine=ppo:classic-4p"], "spanish", 2) == [  # a label too
        "note: mine=ppo:classic-4p was trained at classic 4-player tables, not spanish "
        "2-player: expect weaker play; ppo:spanish-2p is the one for this table"
    ]


def test_play_names_a_trained_bot_at_another_table(capsys):
    output = io.StringIO()
    argv = ["--players", "4", "--opponents", "ppo:classic-2p", "--seed", "1", "--no-color"]
    assert play.main(argv, input_fn=lambda _prompt: "q", output=output) == 0
    assert "note: ppo:classic-2p was trained at classic 2-player tables" in capsys.readouterr().err


def test_the_command_dispatches_to_canasta_cli(capsys):
    assert canasta(["--help"]) == 0
    assert canasta(["nonsense"]) == 2
    with pytest.raises(SystemExit):
        canasta(["arena", "--help"])
    assert "(default: arena_out)" in capsys.readouterr().out


def test_the_demo_needs_no_training_web_or_openspiel_extra(tmp_path):
    """``make demo`` installs the base and the arena extra only: the demo must run without
    torch, Stable-Baselines3, OpenSpiel, FastAPI or the dev tools."""
    pytest.importorskip("openskill")
    blocked = ["torch", "stable_baselines3", "sb3_contrib", "tensorboard", "pyspiel"]
    blocked += ["open_spiel", "fastapi", "uvicorn", "ray", "pytest", "hypothesis", "moviepy"]
    code = (
        "import sys\n"
        f"for name in {blocked!r}:\n"
        "    sys.modules[name] = None\n"
        "from canasta_cli.demo import main\n"
        f"sys.exit(main(['--hands', '2', '--match-hands', '2', '--out', {str(tmp_path / 'a')!r}]))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "fresh match against random" in completed.stdout
    assert "[[" not in completed.stdout  # the recorded tables as words, not a Python repr


def test_the_demo_without_out_leaves_no_folder_behind(tmp_path, monkeypatch, capsys):
    """Without ``--out`` the tournament's files go to a temporary folder, removed at the end
    (each run used to leave a ``canasta-arena-*`` folder in /tmp); with it they stay."""
    import tempfile

    from canasta_cli import demo

    folders = []

    def tournament(hands, out_dir, overwrite):
        folders.append(Path(out_dir))
        Path(out_dir).mkdir(exist_ok=True)  # the arena makes a new --out folder
        (Path(out_dir) / "results.json").write_text("{}")
        return 0

    monkeypatch.setattr(demo, "compliance", lambda quick: True)
    monkeypatch.setattr(demo, "tournament", tournament)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert demo.main(["--match-hands", "2"]) == 0
    out = capsys.readouterr().out
    assert "removed with their temporary folder (--out DIR keeps them)" in out
    assert "against bots written outside the project" in out  # the model card's headline
    assert folders[0].parent == tmp_path and list(tmp_path.iterdir()) == []
    assert demo.main(["--match-hands", "2", "--out", str(tmp_path / "kept")]) == 0
    assert (tmp_path / "kept" / "results.json").exists()


def test_train_takes_comma_lists_and_names_a_mistyped_variant(tmp_path, capsys):
    pytest.importorskip("torch")
    from canasta_cli import train

    args = train.build_parser().parse_args(["--run-dir", "r", "--variant", "classic,spanish"])
    assert args.variant == ["classic", "spanish"]
    with pytest.raises(SystemExit) as stopped:
        train.main(["--run-dir", str(tmp_path / "r"), "--variant", "clasic"])
    assert stopped.value.code == 2
    assert "did you mean 'classic'?" in capsys.readouterr().err


def test_train_names_a_mistyped_league_entry_in_one_line(tmp_path, capsys):
    """``--opponents`` is read by one function for both backends (the RLlib one:
    tests/test_rllib_backend.py)."""
    pytest.importorskip("torch")
    from canasta_cli import train

    with pytest.raises(SystemExit) as stopped:
        train.main(["--run-dir", str(tmp_path / "r"), "--opponents", "self=1,exprt=1"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "unknown league entry 'exprt' (did you mean 'expert'?)" in err
    assert err.count("\n") == 1 and not (tmp_path / "r").exists()


def test_train_names_the_missing_extra_before_any_work(monkeypatch, tmp_path, capsys):
    """Without torch, `canasta train` and `--evaluate` say which extra to install in one
    line and write nothing (a run had recorded for most of a minute, then failed)."""
    import importlib.util

    from canasta_cli import train

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a)
    )
    for argv in (["--run-dir", str(tmp_path / "run")], ["--evaluate", "ppo:classic-2p"]):
        with pytest.raises(SystemExit) as raised:
            train.main(argv)
        assert raised.value.code == 2
        err = capsys.readouterr().err
        assert install_command("train") in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()
    monkeypatch.setattr(importlib.util, "find_spec", real)
    if real("torch") is not None:  # the 'train' extra (not in .ci/test-dist's wheel venv)
        train._require_torch()  # the positive control: torch is installed here, nothing said


def test_arena_names_the_missing_extra_before_any_work(monkeypatch, tmp_path, capsys):
    """Without the 'arena' extra, `canasta arena` names it in one line and plays nothing;
    with --no-progress it no longer needs tqdm (it failed on it after a plain install)."""
    import importlib.util

    from canasta_cli import arena

    real = importlib.util.find_spec
    gone = {"tqdm"}
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in gone else real(name, *a)
    )
    out = tmp_path / "out"
    argv = ["--agents", "random", "greedy", "--hands", "2", "--no-plot", "--out", str(out)]
    assert arena.main(argv) == 2
    err = capsys.readouterr().err
    assert "'arena' extra (tqdm not installed)" in err and err.count("\n") == 1
    assert err.rstrip().endswith(install_command("arena"))
    assert not out.exists()
    assert arena.main([*argv, "--no-progress"]) == 0  # no bar, no tqdm needed
    gone.add("openskill")
    assert arena.main([*argv, "--no-progress"]) == 2
    assert "openskill" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("record", "command"),
    [
        ('{"url": "file:///src", "dir_info": {"editable": true}}',
         "pip install -c constraints.txt -e '.[web]' (in the checkout)"),
        ('{"url": "file:///w/canasta_env-0.1.0.whl", "archive_info": {}}',
         "pip install 'canasta-env[web]'"),
        (None, "pip install 'canasta-env[web]'"),  # from an index: no record
        ("not json", "pip install 'canasta-env[web]'"),
    ],
)  # fmt: skip
def test_install_hints_fit_how_the_package_was_installed(monkeypatch, record, command):
    """From the wheel, ``canasta serve`` said ``pip install -c constraints.txt -e ".[web]"``,
    a command for a checkout the user does not have (issue 47)."""
    from importlib import metadata

    from canasta_env import extras

    class Installed:
        def read_text(self, name):
            assert name == "direct_url.json"
            return record

    monkeypatch.setattr(metadata, "distribution", lambda name: Installed())
    extras.editable.cache_clear()
    try:
        assert extras.install_command("web") == command
        from canasta_web import serve

        assert serve.missing_extra().endswith(command)
    finally:
        extras.editable.cache_clear()
