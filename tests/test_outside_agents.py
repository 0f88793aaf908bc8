"""Outside agents by import path: ``canasta arena --agents mypkg.bots:MyAgent ...``.

Resolution order (agents/registry.py): built-in or registered name, then a
loader prefix, then an import path. The bot modules here are written into a
temporary directory made the current directory, with the current directory
taken off ``sys.path`` first, as under the ``canasta`` console script.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from agents import registry
from agents.base import RandomAgent, play_hands
from agents.registry import make_agent, registered_factories
from canasta_arena import arena
from canasta_cli import arena as arena_command
from canasta_cli import play as play_command
from canasta_cli.__main__ import main as canasta_main
from canasta_env.actions import NUM_ACTIONS, PASS
from canasta_env.engine.game import IllegalActionError
from canasta_env.rules import CLASSIC
from tests.processes import run_group

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = "examples.my_bot:MyBot"

BOTS = '''
import random

import numpy as np


class FirstLegal:
    """Seeded through reseed(): its seed method."""

    def __init__(self):
        self.seeds = []

    def seed(self, s):
        self.seeds.append(s)

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


class Chance:
    """Random among legal actions; reseeded through its rng attribute."""

    def __init__(self):
        self.rng = random.Random()

    def act(self, observation, action_mask):
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.randrange(len(legal))])


class WithReset(FirstLegal):
    name = "own-name"

    def reset(self, seat, num_players, rules):
        self.table = (seat, num_players, rules.name)


def make(seed=None):
    agent = FirstLegal()
    agent.made_with = seed
    return agent


def make_any(**options):
    agent = FirstLegal()
    agent.made_with = options
    return agent


def two_arguments(a, b):
    return FirstLegal()


def no_act(seed=None):
    return 42


class Slotted:
    __slots__ = ()

    def act(self, observation, action_mask):
        return 0


INSTANCE = FirstLegal()
LIMIT = 3


class Passer:
    """Always passes: illegal while the stock lasts."""

    def act(self, observation, action_mask):
        return 5


class Silent:
    def act(self, observation, action_mask):
        return None
'''


@pytest.fixture
def bots_dir(tmp_path, monkeypatch):
    """A current directory holding ``outside_bots.py``, not on ``sys.path`` (console script)."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "outside_bots.py").write_text(BOTS)
    (folder / "outside_needs_dep.py").write_text("import outside_not_installed_dep\n")
    (folder / "ppo.py").write_text("class Agent:\n    def act(self, o, m):\n        return 0\n")
    monkeypatch.chdir(folder)
    cwd = os.getcwd()
    kept = [p for p in sys.path if not (isinstance(p, str) and os.path.abspath(p or ".") == cwd)]
    monkeypatch.setattr(sys, "path", kept)
    yield Path(cwd)
    for module in ("outside_bots", "outside_needs_dep", "ppo"):
        sys.modules.pop(module, None)


# ---------------------------------------------------------------------- resolution


def test_an_import_path_resolves_from_the_current_directory(bots_dir):
    assert str(bots_dir) not in sys.path  # positive control: not importable as the path stands
    with pytest.raises(ModuleNotFoundError):
        __import__("outside_bots")
    agent = make_agent("outside_bots:FirstLegal")
    assert type(agent).__module__ == "outside_bots"
    assert sys.modules["outside_bots"].__file__ == str(bots_dir / "outside_bots.py")
    assert sys.path[0] == str(bots_dir)  # kept, as python -m keeps it
    make_agent("outside_bots:Chance")
    assert sys.path.count(str(bots_dir)) == 1  # not added twice


def test_an_import_path_to_a_builtin_class_is_called_with_the_seed():
    """``agents.base:RandomAgent`` is built as ``RandomAgent(seed=4)``: ``random`` with seed 4."""
    by_path, by_name = make_agent("agents.base:RandomAgent", seed=4), make_agent("random", seed=4)
    assert type(by_path) is RandomAgent and by_path.name == "random"  # its own name is kept
    mask = np.ones(NUM_ACTIONS, dtype=np.int8)
    obs = np.zeros(10, dtype=np.float32)
    assert [by_path.act(obs, mask) for _ in range(20)] == [
        by_name.act(obs, mask) for _ in range(20)
    ]


def test_the_factory_contract(bots_dir):
    made = make_agent("outside_bots:make", seed=5)  # a seed parameter: make(seed=5)
    assert made.made_with == 5 and made.seeds == []  # seeded by the factory, not reseeded
    assert make_agent("outside_bots:make_any", seed=6).made_with == {"seed": 6}  # **kwargs
    plain = make_agent("outside_bots:FirstLegal", seed=7)  # no parameter: FirstLegal() + reseed
    assert plain.seeds == [7]
    assert make_agent("outside_bots:FirstLegal").seeds == []  # no seed: no reseed
    chance = make_agent("outside_bots:Chance", seed=8)
    assert chance.rng.random() == __import__("random").Random(8).random()


def test_an_agent_gets_a_name_and_a_reset_if_it_has_none(bots_dir):
    plain = make_agent("outside_bots:FirstLegal")
    assert plain.name == "outside_bots:FirstLegal"
    assert plain.reset(1, 2, CLASSIC) is None  # given a reset that does nothing
    own = make_agent("outside_bots:WithReset")
    assert own.name == "own-name"
    own.reset(1, 4, CLASSIC)
    assert own.table == (1, 4, CLASSIC.name)  # its own reset is kept
    slotted = "outside_bots:Slotted"
    with pytest.raises(ValueError, match=re.escape(f"agent {slotted!r}: its Slotted object")):
        make_agent(slotted)


def test_a_loader_prefix_wins_over_a_module_of_the_same_name(bots_dir, monkeypatch):
    """``ppo:Agent`` goes to the ``ppo`` loader even with a ``ppo.py`` in the current directory."""
    monkeypatch.setattr(registry, "loader_prefixes", lambda: ["ppo"])
    loaded = []
    monkeypatch.setattr(
        registry, "_load", lambda prefix, path, *_trust: loaded.append(path) or RandomAgent()
    )
    assert isinstance(make_agent("ppo:Agent"), RandomAgent) and loaded == ["Agent"]
    assert "ppo" not in sys.modules
    monkeypatch.setattr(registry, "loader_prefixes", lambda: [])  # positive control
    assert type(make_agent("ppo:Agent")).__module__ == "ppo"


def test_import_paths_are_not_handed_to_workers_as_factories():
    """Every process resolves an import path itself; only register_agent names are shipped."""
    assert registered_factories([EXAMPLE, "random", "agents.base:RandomAgent"]) == {}


# ---------------------------------------------------------------------- errors


def _error(name: str) -> str:
    with pytest.raises(ValueError) as caught:
        make_agent(name)
    return str(caught.value)


def test_every_bad_import_path_says_what_is_wrong_and_changes_nothing(bots_dir):
    before = list(sys.path)
    file = bots_dir / "outside_bots.py"
    expected = {
        "outside_nowhere:Bot": "agent 'outside_nowhere:Bot': no module named 'outside_nowhere' "
        f"(searched the current directory {bots_dir} first, then sys.path)",
        "outside_pkg.bots:Bot": "agent 'outside_pkg.bots:Bot': no module named 'outside_pkg' "
        f"(searched the current directory {bots_dir} first, then sys.path)",
        "outside_needs_dep:Bot": "agent 'outside_needs_dep:Bot': importing module "
        "outside_needs_dep failed: No module named 'outside_not_installed_dep'",
        "outside_bots:Nope": f"agent 'outside_bots:Nope': module outside_bots ({file}) "
        "has no 'Nope'",
        "outside_bots:FirstLegal.nope": "agent 'outside_bots:FirstLegal.nope': module "
        f"outside_bots ({file}) has no 'FirstLegal.nope'",
        "outside_bots:INSTANCE": "agent 'outside_bots:INSTANCE': INSTANCE is an object of type "
        "'FirstLegal', not a class or factory function (name the class, not an instance)",
        "outside_bots:LIMIT": "agent 'outside_bots:LIMIT': LIMIT is an object of type 'int', "
        "not a class or factory function (name the class, not an instance)",
        "outside_bots:two_arguments": "agent 'outside_bots:two_arguments': it is called as "
        "factory(seed=seed) or factory(), but it takes (a, b)",
        "outside_bots:no_act": "agent 'outside_bots:no_act': no_act() returned an object of "
        "type 'int', which has no act(observation, action_mask) method",
    }
    for name, message in expected.items():
        assert _error(name) == message, name
        assert sys.path == before, name  # the current directory is taken out again


def test_a_name_that_is_no_import_path_lists_the_accepted_names(monkeypatch):
    monkeypatch.setattr(registry, "loader_prefixes", lambda: ["ppo"])
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._BUILT_IN))  # not other tests' names
    accepted = "expert, greedy, random, ppo:PATH, module.path:Attribute"
    assert _error("ppx:models/run.zip") == (
        "unknown agent 'ppx:models/run.zip': 'ppx' is not an agent loader (ppo), and the name "
        "is not an import path module.path:Attribute (dotted Python names); "
        f"choose one of {accepted}"
    )
    assert _error("grandmaster") == f"unknown agent 'grandmaster'; choose one of {accepted}"
    assert _error(".relative:Bot").startswith("unknown agent '.relative:Bot': '.relative' is not")


def test_an_illegal_action_names_the_agent_seat_step_and_deal(bots_dir):
    agents = [make_agent("outside_bots:Passer"), RandomAgent(0)]
    with pytest.raises(IllegalActionError) as caught:
        play_hands(agents, 1, deck_seeds=[11])
    assert str(caught.value).startswith(
        "agent 'outside_bots:Passer' in seat 0 returned an illegal action at step 0 of the hand "
        f"dealt with seed 11: illegal action {PASS} ('pass') for player 0 in the draw phase"
    )
    with pytest.raises(IllegalActionError) as caught:
        first = make_agent("outside_bots:FirstLegal")  # draws, then discards: steps 0 and 1
        play_hands([first, make_agent("outside_bots:Silent")], 1, deck_seeds=[11])
    assert str(caught.value).startswith(
        "agent 'outside_bots:Silent' in seat 1 returned an illegal action at step 2 of the hand "
        "dealt with seed 11: action must be an integer id, got None"
    )


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_arena_reports_an_illegal_action_by_agent(bots_dir, capsys, jobs):
    argv = ["--players", "2", "--agents", "outside_bots:Passer", "random", "--hands", "2"]
    argv += ["--jobs", str(jobs), "--no-progress", "--no-plot", "--out", str(bots_dir / "out")]
    assert arena_command.main(argv) == 2
    err = capsys.readouterr().err
    assert re.match(
        r"canasta arena: agent 'outside_bots:Passer' in seat 0 returned an illegal action at "
        r"step 0 of the hand dealt with seed \d+: illegal action 5 \('pass'\)",
        err,
    ), err


def test_canasta_play_takes_an_import_path_and_reports_its_illegal_action(bots_dir):
    output = io.StringIO()
    argv = ["--players", "2", "--opponents", "outside_bots:Passer", "--seed", "1", "--no-color"]
    assert play_command.main(argv, input_fn=lambda _prompt: "1", output=output) == 2
    assert (
        output.getvalue()
        .splitlines()[-1]
        .startswith(
            "canasta play: agent 'outside_bots:Passer' in seat 1 returned an illegal action: "
            "illegal action 5 ('pass') for player 1 in the draw phase"
        )
    )
    output = io.StringIO()
    assert play_command.main(["--opponents", "outside_nowhere:Bot"], output=output) == 2
    assert output.getvalue().startswith(
        "canasta play: agent 'outside_nowhere:Bot': no module named 'outside_nowhere'"
    )


# ---------------------------------------------------------------------- the example bot


def test_canasta_play_against_the_example_bot(monkeypatch):
    monkeypatch.chdir(REPO)
    output = io.StringIO()
    argv = ["--players", "2", "--opponents", EXAMPLE, "--seed", "3", "--no-color"]
    assert play_command.main(argv, input_fn=lambda _prompt: "1", output=output) == 0
    text = output.getvalue()
    assert f"player 1 ({EXAMPLE}): " in text and "hand over: " in text


def test_the_docs_show_the_example_file_exactly():
    """docs/agents.md includes examples/my_bot.py in the code block after its marker."""
    docs = (REPO / "docs" / "agents.md").read_text()
    marker = "<!-- include: examples/my_bot.py -->\n```python\n"
    assert docs.count(marker) == 1
    shown = docs.split(marker, 1)[1].split("```\n", 1)[0]
    assert shown == (REPO / "examples" / "my_bot.py").read_text()


def _arena_argv(agents: list[str], out: Path, *extra: str) -> list[str]:
    argv = ["arena", "--agents", *agents, "--hands", "20", "--seed", "0", "--out", str(out)]
    return argv + ["--no-progress", "--no-plot", *extra]


def test_the_example_bot_in_the_arena_command(monkeypatch, tmp_path, capsys):
    """``canasta arena --agents examples.my_bot:MyBot random --hands 20 --seed 0``."""
    monkeypatch.chdir(REPO)
    assert canasta_main(_arena_argv([EXAMPLE, "random"], tmp_path / "one")) == 0
    printed = capsys.readouterr().out
    ranking = re.findall(r"^ +(\d) +(\S+) +\d+ +\S+ +\S+ +\S+ +(\d+) ", printed, re.M)
    assert ranking == [("1", EXAMPLE, "20"), ("2", "random", "20")]  # rank, agent, hands
    assert re.search(rf"{re.escape(EXAMPLE)} vs random: \d+\.\d\d% of 20 hands", printed)
    results = json.loads((tmp_path / "one" / "results.json").read_text())
    assert {tuple(sorted(set(h["seats"]))) for h in results["hands"]} == {(EXAMPLE, "random")}
    won = {row["agent"]: row["win_rate"] for row in results["ranking"]}
    assert won[EXAMPLE] > 0.5 and won[EXAMPLE] + won["random"] == pytest.approx(1.0)
    # determinism: the same command again gives the same file, byte for byte
    assert canasta_main(_arena_argv([EXAMPLE, "random"], tmp_path / "two")) == 0
    for name in ("results.json", "hands.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_a_seeded_outside_agent_gives_the_same_arena_results(bots_dir):
    """``Chance`` is random, reseeded every hand through its ``rng``: seeds decide, not luck."""
    agents = ["outside_bots:Chance", "random"]
    first = arena.run_arena(agents, num_players=2, hands=6, seed=3, plot=False)
    again = arena.run_arena(agents, num_players=2, hands=6, seed=3, plot=False)
    other = arena.run_arena(agents, num_players=2, hands=6, seed=4, plot=False)
    assert [h.team_scores for h in first.hands] == [h.team_scores for h in again.hands]
    assert [h.team_scores for h in first.hands] != [h.team_scores for h in other.hands]


def test_workers_of_a_console_script_resolve_an_import_path(tmp_path, monkeypatch, capsys):
    """``--jobs 2`` under a console-script-like runner (its own folder first on ``sys.path``,
    the current directory not on it) plays a copy of the example bot from the current
    directory, hand for hand as ``--jobs 1`` plays the example in this process."""
    work, bin_dir = tmp_path / "work", tmp_path / "bin"
    work.mkdir()
    bin_dir.mkdir()
    (work / "outside_cli_bot.py").write_text((REPO / "examples" / "my_bot.py").read_text())
    runner = bin_dir / "canasta_like.py"
    runner.write_text(
        textwrap.dedent(f"""\
            import sys
            sys.path.insert(1, {str(REPO)!r})  # the installed packages; not the current directory
            from canasta_cli.__main__ import main
            if __name__ == "__main__":
                sys.exit(main())
            """)
    )
    out = tmp_path / "two"
    command = [sys.executable, str(runner), *_arena_argv(["outside_cli_bot:MyBot", "random"], out)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    printed, _err = run_group(command + ["--jobs", "2"], work, env)
    assert "outside_cli_bot:MyBot vs random: " in printed
    monkeypatch.chdir(REPO)
    assert canasta_main(_arena_argv([EXAMPLE, "random"], tmp_path / "one")) == 0
    capsys.readouterr()
    one = json.loads((tmp_path / "one" / "results.json").read_text())["hands"]
    two = json.loads((out / "results.json").read_text())["hands"]
    assert len(two) == 20
    rename = {"outside_cli_bot:MyBot": EXAMPLE, "random": "random"}
    for hand in two:
        hand["seats"] = [rename[s] for s in hand["seats"]]
        hand["winners"] = [rename[s] for s in hand["winners"]]
        hand["winner"] = rename.get(hand["winner"])
    assert two == one
