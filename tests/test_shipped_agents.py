"""The shipped trained agents: ``ppo:classic-2p``, ``ppo:classic-4p`` (and ``ppo:default``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.base import RandomAgent, play_hands
from agents.network import ALL_TABLES, DEFAULT_MODEL, SHIPPED, NetAgent, load_agent
from agents.registry import make_agent
from canasta_env.actions import NUM_ACTIONS
from canasta_env.observation import OBS_SIZE
from tests.conftest import INSTALLED_TEST

REPO = Path(__file__).resolve().parents[1]

NAMES = ["classic-2p", "classic-4p"]
TABLES = [
    (variant, n)
    for variant in ("classic", "canastone", "spanish", "italian")
    for n in (2, 3, 4, 6)
    if not (variant == "italian" and n in (3, 6))
]


@pytest.mark.parametrize("name", NAMES)
def test_shipped_agent_loads_by_name_and_is_small(name):
    path = SHIPPED[name]
    assert path.exists(), f"{path} is missing"
    assert path.stat().st_size < 5 * 1024 * 1024
    agent = make_agent(f"ppo:{name}", seed=0)
    assert isinstance(agent, NetAgent) and agent.name == f"ppo:{name}"
    assert agent.meta["obs_size"] <= OBS_SIZE and agent.meta["num_actions"] == NUM_ACTIONS
    # the recorded evaluation next to the model: duplicate deals against every bot
    report = json.loads(path.with_suffix(".json").read_text())
    opponents = {row["opponent"] for row in report["evaluation"]}
    assert {"expert", "greedy", "random"} <= opponents
    assert all(row["hands"] >= 2000 for row in report["evaluation"])


def test_default_is_the_classic_two_player_agent():
    assert DEFAULT_MODEL == SHIPPED["classic-2p"]
    assert load_agent("default").path == SHIPPED["classic-2p"]
    with pytest.raises(FileNotFoundError, match="shipped names"):
        load_agent("classic-5p")


@pytest.mark.parametrize("variant,players", TABLES)
def test_shipped_agents_play_legal_moves_in_every_preset(variant, players):
    """One network plays every table through the shared layouts (raw_env raises on an
    illegal move)."""
    for name in NAMES:
        agent = load_agent(name)
        seats = [agent if s % 2 == 0 else RandomAgent(s) for s in range(players)]
        records = play_hands(seats, 1, variant=variant, seed=300 + players)
        assert records[0].end_reason


def test_greedy_play_is_deterministic_and_reads_only_its_prefix():
    agent = load_agent("classic-2p")
    rng = np.random.default_rng(0)
    obs = rng.random(OBS_SIZE, dtype=np.float32)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[[0, 1, 6, 9]] = 1
    action = agent.act(obs, mask)
    assert mask[action] and agent.act(obs.copy(), mask.copy()) == action
    longer = np.concatenate([obs, rng.random(40, dtype=np.float32)])  # a grown layout
    assert agent.act(longer, mask) == action


def test_every_table_has_a_shipped_agent_that_beat_both_bots_there():
    """issue 24 item 5: ``ppo:<table>`` loads for each of the 15 tables, and the record
    beside its model shows it beat expert and greedy at that table (the 95% interval above
    50%, at least 2,000 duplicate hands) on the leaderboard's seatings."""
    from agents.network import ALL_TABLES, ALL_TABLES_MODEL
    from canasta_arena.leaderboard import TABLES

    assert set(TABLES) <= set(SHIPPED)  # every table, the two classic networks included
    report = json.loads(ALL_TABLES_MODEL.with_suffix(".json").read_text())
    measured = {(row["table"], row["opponent"]): row for row in report["evaluation"]}
    for table in ALL_TABLES:
        assert SHIPPED[table] == ALL_TABLES_MODEL
        agent = make_agent(f"ppo:{table}", seed=0)
        assert isinstance(agent, NetAgent) and agent.name == f"ppo:{table}"
        for opponent in ("expert", "greedy"):
            row = measured[(table, opponent)]
            assert row["hands"] >= 2000 and row["ci95"][0] > 0.5, row
            key = TABLES[table]
            assert (row["variant"], row["num_players"], row["rules"]) == (
                key.variant,
                key.players,
                key.rules,
            )
    assert ALL_TABLES_MODEL.stat().st_size < 5 * 1024 * 1024


@pytest.mark.skipif(INSTALLED_TEST, reason="the gauntlets are docs of the source checkout")
@pytest.mark.parametrize("name", [*NAMES, *ALL_TABLES])
def test_model_card_heads_with_the_worst_stranger_of_the_gauntlet_of_this_file(name):
    """The card's ``worst_stranger`` is its gauntlet's headline (docs/generalisation.md),
    and the gauntlet measured this very file at that table: a new model ships with a new
    gauntlet. The all-tables network's card keeps one a table (``worst_stranger_by_table``)."""
    import hashlib

    card = json.loads(SHIPPED[name].with_suffix(".json").read_text())
    head = card["worst_stranger"] if name in NAMES else card["worst_stranger_by_table"][name]
    gauntlet = json.loads((REPO / head["gauntlet"]).read_text())
    assert gauntlet["agent_sha256"] == hashlib.sha256(SHIPPED[name].read_bytes()).hexdigest()
    assert gauntlet.get("table", f"classic-{gauntlet['players']}p") == name
    worst = gauntlet["worst"]
    groups = ("stranger", "wide")
    rows = [r for r in gauntlet["rows"] if r["group"] in groups and not r["trained_with"]]
    assert worst == min(rows, key=lambda r: r["win_rate"])
    assert (head["opponent"], head["win_rate"], head["ci95"]) == (
        worst["opponent"], worst["win_rate"], worst["win_ci"]
    )  # fmt: skip
    assert head["hands"] >= 2000 and len({r["opponent"] for r in rows}) >= 8
