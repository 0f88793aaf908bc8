"""The styled bots (agents/styles.py): seeded, legal at every table, different styles, and
the held-out split the league keeps."""

from __future__ import annotations

import json

import pytest

from agents.base import play_hands
from agents.expert import ExpertAgent
from agents.registry import make_agent, registered_factories
from agents.styles import (
    FAMILIES,
    HELD_OUT_NAMES,
    HELD_OUT_STYLES,
    TRAINING_STYLES,
    StyledAgent,
    style_name,
)
from canasta_env.actions import ACTION_TEXTS, DRAW, TAKE
from canasta_env.observation import decode_view
from canasta_env.rules import make_rules
from canasta_env.table import Table

NAMES = [style_name(family) for family in FAMILIES] + ["styled"]
HELD_OUT_TEXT = "held out: style:builder, style:controller"


def test_the_split_covers_every_family_once():
    assert set(TRAINING_STYLES) | set(HELD_OUT_STYLES) == set(FAMILIES)
    assert not set(TRAINING_STYLES) & set(HELD_OUT_STYLES)
    assert len(HELD_OUT_STYLES) >= 2
    assert HELD_OUT_NAMES == ("style:builder", "style:controller")


def test_every_family_is_a_built_in_name_that_workers_resolve_themselves():
    for name in NAMES:
        agent = make_agent(name, seed=0)
        assert isinstance(agent, StyledAgent) and agent.name == name
    assert registered_factories(NAMES) == {}  # built in: nothing to hand to arena workers
    with pytest.raises(ValueError, match="unknown style 'sloth'"):
        StyledAgent(family="sloth")


def test_a_seed_gives_the_same_numbers_and_moves():
    rules = make_rules("classic")
    drawn = []
    for seed in (5, 5, 6):
        agent = make_agent("styled", seed=seed)
        hands = []
        for _ in range(4):  # a new family and new numbers every hand
            agent.reset(0, 4, rules)
            hands.append((agent.family, agent.style))
        drawn.append(hands)
    assert drawn[0] == drawn[1]
    assert drawn[0] != drawn[2]
    assert len({style for _, style in drawn[0]}) == 4

    def moves(seed: int) -> list[str]:
        agents = [make_agent(NAMES[s % len(NAMES)], seed=seed + s) for s in range(4)]
        records = play_hands(agents, 2, "classic", seed=9)
        return [json.dumps([r.team_scores, r.steps]) for r in records]

    assert moves(1) == moves(1)


def test_reseeding_replays_a_hand():
    """The arena reseeds an agent before every hand: the same seed, the same numbers."""
    agent = make_agent("style:taker", seed=1)
    agent.reset(0, 2, "classic")
    first = agent.style
    agent.reset(0, 2, "classic")
    assert agent.style != first
    agent.seed(1)
    agent.reset(0, 2, "classic")
    assert agent.style == first


def test_styled_draws_training_families_only():
    agent = make_agent("styled", seed=0)
    families = set()
    for _ in range(200):
        agent.reset(1, 2, "classic")
        families.add(agent.family)
    assert families == set(TRAINING_STYLES)


@pytest.mark.parametrize(
    "variant, players",
    [("classic", 2), ("classic", 4), ("spanish", 4), ("italian", 2), ("canastone", 3),
     ("classic", 6)],
)  # fmt: skip
def test_every_family_plays_legal_hands(variant, players):
    """The table refuses an illegal action (IllegalActionError): whole hands are the check."""
    for offset, name in enumerate(NAMES):
        agents = [
            make_agent(name if seat % 2 == 0 else NAMES[(offset + 1) % len(NAMES)], seed=seat)
            for seat in range(players)
        ]
        records = play_hands(agents, 2, variant, seed=31 + offset)
        assert all(record.end_reason for record in records)


# ---------------------------------------------------------------------- styles differ


def expert_position(variant: str, players: int, deal: int, step: int):
    """The position after ``step`` moves of a hand of experts dealt with ``deal``."""
    rules = make_rules(variant)
    table = Table(rules, players, seed=deal, backend=None)
    experts = [ExpertAgent(seed=s) for s in range(players)]
    for seat, expert in enumerate(experts):
        expert.reset(seat, players, rules)
    for _ in range(step):
        seat = table.current
        observation = table.observation(seat)
        table.step(int(table.choose_action(experts[seat], observation, table.mask())))
    seat = table.current
    return seat, rules, table.observation(seat), table.mask()


def move_of(family: str, position, seed: int = 1) -> str:
    seat, rules, observation, mask = position
    agent = make_agent(style_name(family), seed=seed)
    agent.reset(seat, len(decode_view(observation).players), rules)
    return ACTION_TEXTS[agent.act(observation, mask)]


def test_the_controller_draws_where_the_others_take_a_small_pot():
    # classic 2p, deal 2, the first move: the pot is the up card, and the player holds a
    # natural pair of its kind; every controller declines a pot under 3 cards and draws
    position = expert_position("classic", 2, 2, 0)
    assert decode_view(position[2]).pot_size == 1 and position[3][TAKE] and position[3][DRAW]
    for seed in range(5):
        assert move_of("controller", position, seed) == "draw"
        assert move_of("taker", position, seed) == "take"
        assert move_of("tuned", position, seed) == "take"


def test_the_melder_lays_a_wild_card_that_the_expert_keeps():
    # classic 2p, deal 0, move 2: a 2 in hand and a meld of tens; the expert's families
    # keep the 2 out of the meld (and discard it: a 2 freezes the pot), the melder lays it
    position = expert_position("classic", 2, 0, 2)
    assert move_of("melder", position) == "add 2 to T"
    assert move_of("tuned", position) == "discard 2"
    assert move_of("controller", position) == "discard B3"  # its black 3 blocks the pot


def test_the_racer_goes_out_where_the_builder_builds():
    # classic 2p, deal 0, move 53: the racer melds four 4s and a joker toward going out;
    # the builder, short of two canastas, only adds a 9
    position = expert_position("classic", 2, 0, 53)
    assert move_of("racer", position) == "meld 4 4 4 4 JK"
    assert move_of("builder", position) == "add 9"


def test_noisy_opens_in_the_greedy_bots_order():
    position = expert_position("classic", 2, 0, 1)
    assert move_of("noisy", position) == "meld 7 7 2"
    assert move_of("tuned", position) == "meld T T JK"


def naive_move(position, **numbers) -> str:
    from dataclasses import replace

    seat, rules, observation, mask = position
    agent = make_agent("style:naive", seed=0)
    agent.reset(seat, len(decode_view(observation).players), rules)
    agent.style = replace(agent.style, discard_noise=0.0, **numbers)
    return ACTION_TEXTS[agent.act(observation, mask)]


def test_the_naive_bot_takes_by_pot_size_melds_at_once_and_discards_by_its_score():
    # classic 2p, deal 2, the first move: a pot of 1 card it may take
    position = expert_position("classic", 2, 2, 0)
    assert naive_move(position, naive_take_pot=0) == "take"
    assert naive_move(position, naive_take_pot=2) == "draw"
    # classic 2p, deal 0, move 2 (see the melder's test): it melds before it discards,
    # the meld with the fewest wild cards first (the first of them), or the most
    position = expert_position("classic", 2, 0, 2)
    assert naive_move(position, naive_wild_first=False) == "add 2 to T"
    assert naive_move(position, naive_wild_first=True) == "meld 7 7 2 2"
    # deal 0, move 6: only discards; it holds 6 6 7 7 and singles 4 8 T Q K A
    position = expert_position("classic", 2, 0, 6)
    assert decode_view(position[2]).hand[:11] == [1, 0, 2, 2, 1, 0, 1, 0, 1, 1, 1]
    keep = {"naive_keep_wild": 1000.0, "naive_keep_count": 100.0}
    assert naive_move(position, **keep, naive_keep_value=-1.0) == "discard A"  # high first
    assert naive_move(position, **keep, naive_keep_value=1.0) == "discard 4"  # low first
    assert naive_move(position, naive_keep_count=0.0, naive_keep_value=1.0) == "discard 4"


# ---------------------------------------------------------------------- the league


def test_the_league_takes_styled_and_refuses_the_held_out_families(tmp_path):
    pytest.importorskip("torch")
    from canasta_cli.train import league_weights, main
    from training.league_pool import ENTRIES, League
    from training.run import Run, make_config

    text = "self=0.2,snapshot=0.1,expert=0.2,greedy=0.1,styled=0.3,random=0.1"
    weights = league_weights(text)
    assert weights == {
        "self": 0.2, "snapshot": 0.1, "expert": 0.2, "greedy": 0.1, "styled": 0.3, "random": 0.1
    }  # fmt: skip
    assert make_config(opponents=weights)["opponents"] == weights
    assert {style_name(f) for f in TRAINING_STYLES} <= set(ENTRIES)
    assert ("bot", "styled") in [c for c, _ in League(weights, 4, ["s0"]).entries()]

    message = (
        "'style:builder' is held out of training (held out: style:builder, style:controller), "
        "so that playing it measures how an agent meets a style it never trained against; "
        "play it with canasta train --evaluate MODEL --opponents style:builder or canasta arena"
    )
    with pytest.raises(ValueError) as error:
        league_weights("self,style:builder=0.5")
    assert str(error.value) == "--opponents: " + message
    with pytest.raises(ValueError, match="held out of training"):
        make_config(opponents={"style:controller": 1.0})

    # a saved run continued with new opponents: styled accepted, a held-out family refused
    run = Run.open(tmp_path / "run", {"opponents": {"expert": 1.0}})
    resumed = Run.open(run.path, {"opponents": weights})
    assert resumed.config["opponents"] == weights
    with pytest.raises(ValueError, match=HELD_OUT_TEXT):
        Run.open(run.path, {"opponents": {"style:controller": 1.0}})
    assert json.loads((run.path / "config.json").read_text())["opponents"] == weights
    with pytest.raises(SystemExit) as exit_info:
        main(["--resume", str(run.path), "--opponents", "self,style:controller"])
    assert exit_info.value.code == 2
