"""The bots (greedy, expert) and the agent registry: legal play on every preset."""

from __future__ import annotations

import dataclasses
import random
import sys
import types

import numpy as np
import pytest

import canasta_env
from agents.base import Agent, RandomAgent
from agents.expert import TWO_PLAYER_PARAMS, ExpertAgent, ExpertParams
from agents.greedy import GreedyAgent, meld_all_key
from agents.heuristics import (
    KIND_DISCARD,
    KIND_MELD,
    MOVES,
    biggest_meld_key,
    hand_margin,
    unseen_counts,
)
from agents.registry import available_agents, make_agent, register_agent, reseed
from canasta_env.actions import (
    DISCARD,
    NUM_ACTIONS,
    NUM_SLOTS,
    SLOT_BLACK3,
    SLOT_WILD,
    action_to_str,
)
from canasta_env.cards import BLACK3, KIND_NAMES, NUM_HAND_KINDS, NUM_NATURALS, TWO
from canasta_env.observation import ObservationBuilder, decode_view
from canasta_env.rules import PRESETS, make_rules
from tests.scenario import cards, legal_strings, new_game, play

TABLES = [(name, n) for name, rules in PRESETS.items() for n in rules.player_counts]
BOTS = ("greedy", "expert")


def _play(variant, num_players, seed, chooser, check=None, max_steps=3000):
    """Play one hand with ``chooser(seat, obs, mask)``; call ``check`` at every decision."""
    env = canasta_env.raw_env(variant=variant, num_players=num_players)
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter():
        observation, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.agent_name_mapping[agent]
        if check is not None:
            check(env, seat, observation)
        env.step(chooser(seat, observation["observation"], observation["action_mask"]))
        steps += 1
        assert steps < max_steps
    return env


@pytest.mark.parametrize("variant,num_players", TABLES)
def test_bots_choose_legal_actions_on_random_states(variant, num_players):
    """At states reached by random play, every bot's choice is in the mask."""
    rng = random.Random(num_players)
    bots = {name: [make_agent(name, seed=s) for s in range(num_players)] for name in BOTS}
    for name in BOTS:
        for seat, bot in enumerate(bots[name]):
            bot.reset(seat, num_players, make_rules(variant))
    checked = 0

    def check(env, seat, observation):
        nonlocal checked
        mask = observation["action_mask"]
        for name in BOTS:
            action = bots[name][seat].act(observation["observation"], mask)
            assert isinstance(action, int) and mask[action] == 1, (name, action_to_str(action))
        checked += 1

    def random_choice(seat, obs, mask):
        legal = np.flatnonzero(mask)
        return int(legal[rng.randrange(len(legal))])

    _play(variant, num_players, seed=11, chooser=random_choice, check=check)
    assert checked > 10


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("variant,num_players", TABLES)
def test_bots_play_whole_hands_legally(bot, variant, num_players):
    """raw_env raises on an illegal action: a full hand of one bot kind ends normally."""
    agents = [make_agent(bot, seed=seat) for seat in range(num_players)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, num_players, make_rules(variant))
    env = _play(variant, num_players, seed=5, chooser=lambda seat, o, m: agents[seat].act(o, m))
    assert env.game.hand_over


def test_moves_table_matches_action_texts():
    for action, move in enumerate(MOVES):
        words = action_to_str(action).split()
        if move.kind == KIND_DISCARD:
            assert KIND_NAMES.index(words[1]) == move.slot
        elif move.kind == KIND_MELD and words[0] == "meld":
            cards = words[1:]
            assert cards.count("2") == move.twos and cards.count("JK") == move.jokers
            assert len(cards) - move.wilds == move.naturals
        elif move.kind == KIND_MELD:
            target = words[-1]
            slot = {"wild": SLOT_WILD, "B3": SLOT_BLACK3}.get(target)
            assert move.slot == (KIND_NAMES.index(target) if slot is None else slot)
            assert move.cards == 1
    assert len(MOVES) == NUM_ACTIONS


@pytest.mark.parametrize("variant,num_players", [("classic", 4), ("italian", 2)])
def test_greedy_takes_whenever_it_can_and_melds_everything(variant, num_players):
    """At random states: a legal take is always taken; a legal meld is always laid."""
    rng = random.Random(3)
    greedy = GreedyAgent()
    greedy.reset(0, num_players, make_rules(variant))
    seen = {"take": 0, "meld": 0}

    def check(env, seat, observation):
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask).tolist()
        action = greedy.act(observation["observation"], mask)
        if any(1 <= a <= 4 for a in legal):
            assert 1 <= action <= 4
            seen["take"] += 1
        if any(a >= 20 for a in legal):
            assert action >= 20
            seen["meld"] += 1

    def random_choice(seat, obs, mask):
        legal = np.flatnonzero(mask)
        return int(legal[rng.randrange(len(legal))])

    for seed in range(3):
        _play(variant, num_players, seed, random_choice, check=check)
    assert seen["take"] and seen["meld"]


def _meld_phase_state(variant="classic", num_players=4, seed=3):
    """An observation in the meld phase of the first player (after a draw)."""
    env = canasta_env.raw_env(variant=variant, num_players=num_players)
    env.reset(seed=seed)
    env.step(0)  # draw
    agent = env.agent_selection
    return env, env.observe(agent)


def _with_hand(view, counts):
    """The view with the hand replaced by ``counts`` ({kind: n})."""
    hand = [0] * NUM_HAND_KINDS
    for kind, n in counts.items():
        hand[kind] = n
    return dataclasses.replace(view, hand=hand)


def _move_id(**fields):
    return next(
        a
        for a, m in enumerate(MOVES)
        if m.kind == KIND_MELD and all(getattr(m, k) == v for k, v in fields.items())
    )


def test_greedy_discards_black_three_first():
    """C-12: a black 3 blocks the next player: it goes before any natural, even a safe one."""
    env, observation = _meld_phase_state()
    view = decode_view(observation["observation"])
    view = _with_hand(view, {BLACK3: 1, 0: 1, 10: 2})
    discards = [DISCARD + k for k in (0, 10, BLACK3)]
    assert GreedyAgent.choose_discard(view, discards, make_rules("classic")) == DISCARD + BLACK3


def test_greedy_does_not_give_the_pot_to_a_known_pair():
    """G-8: the next player is known to hold two 4s: greedy discards its ace, not its 4.

    On keep value alone the 4 (5 points) goes before the ace (20 points).
    """
    env, observation = _meld_phase_state()
    view = decode_view(observation["observation"])
    view = _with_hand(view, {0: 1, 10: 1})
    view.teams[1].opened = True
    view.players[1].known[0] = 2
    view = dataclasses.replace(view, pot_frozen=False, pot_size=6)
    rules = make_rules("classic")
    unseen, _pool = unseen_counts(view, rules)
    assert GreedyAgent.keep_value(view, 0, unseen) < GreedyAgent.keep_value(view, 10, unseen)
    assert GreedyAgent.choose_discard(view, [DISCARD, DISCARD + 10], rules) == DISCARD + 10
    view.players[1].known[0] = 0
    view.teams[1].naturals[0] = 3  # C-11: a 4 would join their meld of 4s
    assert GreedyAgent.choose_discard(view, [DISCARD, DISCARD + 10], rules) == DISCARD + 10


def test_greedy_meld_order_concentrates_wild_cards():
    """Naturals first; a wild card goes onto the biggest unfinished meld (toward the
    canasta needed to go out, C-14) before it makes a pair into a new meld, and onto
    a finished canasta only last."""
    env, observation = _meld_phase_state()
    view = decode_view(observation["observation"])
    for slot in range(NUM_SLOTS):
        view.me.naturals[slot] = view.me.twos[slot] = view.me.jokers[slot] = 0
    view.me.naturals[5] = 4  # a meld of four 9s
    view.me.naturals[2] = 3  # a meld of three 6s
    view.me.naturals[0] = 7  # a canasta of 4s
    two_on_9 = _move_id(slot=5, twos=1, naturals=0, new=False)
    two_on_6 = _move_id(slot=2, twos=1, naturals=0, new=False)
    two_on_4 = _move_id(slot=0, twos=1, naturals=0, new=False)
    pair_of_7_and_2 = _move_id(slot=3, naturals=2, twos=1, jokers=0, new=True)
    three_kings = _move_id(slot=9, naturals=3, twos=0, jokers=0, new=True)
    order = sorted(
        [two_on_9, two_on_6, two_on_4, pair_of_7_and_2, three_kings],
        key=lambda a: meld_all_key(view, a),
        reverse=True,
    )
    assert order == [three_kings, two_on_9, two_on_6, pair_of_7_and_2, two_on_4]
    view.me.naturals[2] = 5
    view.me.twos[2] = 1  # six 6s: a 2 completes the canasta: that comes first among wilds
    assert max([two_on_9, two_on_6], key=lambda a: meld_all_key(view, a)) == two_on_6


def test_expert_never_feeds_an_opponent_meld_when_a_safe_card_exists():
    """C-11: a card matching the next team's meld lets them take the pot: avoid it."""
    env, observation = _meld_phase_state()
    expert = ExpertAgent()
    expert.reset(env.game.current, 4, make_rules("classic"))
    view = decode_view(observation["observation"])
    naturals = [k for k in range(NUM_NATURALS) if view.hand[k]]
    assert len(naturals) >= 2
    gift = naturals[0]
    their = view.teams[1]
    their.naturals[gift] = 3
    their.opened = True
    view = dataclasses.replace(view, pot_size=12, pot_frozen=False)
    rules = expert.rules
    unseen, pool = expert._unseen(view, rules)
    assert expert._take_probability(view, gift, rules, unseen, pool) == 1.0
    discards = [DISCARD + k for k in range(NUM_HAND_KINDS) if view.hand[k]]
    assert expert._choose_discard(view, discards, rules) != DISCARD + gift


def test_expert_known_cards_make_a_discard_dangerous():
    """G-8: two known cards of a kind in the next hand: the pot is theirs with that kind."""
    env, observation = _meld_phase_state()
    expert = ExpertAgent()
    expert.reset(env.game.current, 4, make_rules("classic"))
    view = decode_view(observation["observation"])
    kind = next(k for k in range(NUM_NATURALS) if view.hand[k])
    view.teams[1].opened = True
    view.players[1].known[kind] = 2
    rules = expert.rules
    unseen, pool = expert._unseen(view, rules)
    assert expert._take_probability(view, kind, rules, unseen, pool) == 1.0
    assert expert._take_probability(view, BLACK3, rules, unseen, pool) == 0.0


def test_expert_opens_with_naturals_before_wild_cards():
    """G-5: three kings (30) and K K K 2 JK (100) can both start the opening: the expert
    lays the natural meld first and keeps its wild cards for canastas."""
    env, observation = _meld_phase_state()
    view = decode_view(observation["observation"])
    assert not view.me.opened
    expert = ExpertAgent()
    expert.reset(env.game.current, 4, make_rules("classic"))
    rules = expert.rules
    kings = _move_id(slot=9, naturals=3, twos=0, jokers=0, new=True)
    kings_and_wilds = _move_id(slot=9, naturals=3, twos=1, jokers=1, new=True)
    assert expert._opening_key(view, MOVES[kings], rules, kings) > expert._opening_key(
        view, MOVES[kings_and_wilds], rules, kings_and_wilds
    )


def test_expert_discards_a_two_to_freeze_the_pot():
    """C-9: a 2 on the pot freezes it (a natural pair is then needed): the expert lets
    a 2 go before a safe natural singleton."""
    env, observation = _meld_phase_state()
    expert = ExpertAgent()
    expert.reset(env.game.current, 4, make_rules("classic"))
    view = decode_view(observation["observation"])
    view = _with_hand(view, {TWO: 1, 0: 1, 10: 1})
    rules = expert.rules
    discards = [DISCARD + k for k in (0, 10, TWO)]
    assert expert._choose_discard(view, discards, rules) == DISCARD + TWO


def test_expert_far_behind_does_not_go_out_because_they_could():
    """C-14: the next team has a canasta and could go out; trailing by far more than
    ``far_behind``, going out would seal the loss: the expert keeps building."""
    env, observation = _meld_phase_state()
    view = decode_view(observation["observation"])
    their = view.teams[1]
    their.naturals[10] = 8  # a clean canasta of aces: 160 + 500
    their.canastas, their.clean, their.opened = 1, 1, True
    their.red3 = 4  # 800
    view.me.opened = True
    rules = make_rules("classic")
    assert hand_margin(view, rules, going_out=True) < -ExpertParams().far_behind
    assert view.stock > 2 * view.num_players * view.draw_count
    expert = ExpertAgent()
    expert.reset(env.game.current, 4, make_rules("classic"))
    assert not expert._want_go_out(view, rules)
    reckless = ExpertAgent(params=ExpertParams(far_behind=1e9))
    reckless.reset(env.game.current, 4, make_rules("classic"))
    assert reckless._want_go_out(view, rules)


def test_expert_lays_a_hidden_canasta_in_spanish():
    """S-10: seven cards laid at once score 1000; the expert plays that move first."""
    env, observation = _meld_phase_state("spanish", 2)
    view = decode_view(observation["observation"])
    expert = ExpertAgent()
    expert.reset(env.game.current, 2, make_rules("spanish"))
    rules = expert.rules
    hidden = next(a for a, m in enumerate(MOVES) if m.new and m.cards == 7 and m.slot == 0)
    small = next(a for a, m in enumerate(MOVES) if m.new and m.cards == 3 and m.slot == 0)
    assert expert._meld_score(view, MOVES[hidden], rules) > expert._meld_score(
        view, MOVES[small], rules
    )
    assert expert._opening_key(view, MOVES[hidden], rules, hidden) > expert._opening_key(
        view, MOVES[small], rules, small
    )


def _expert_move(game, params=None) -> str:
    """The expert's move for the player to act in ``game``, under the game's rules."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[game.legal_actions()] = 1
    expert = ExpertAgent(params=params)
    expert.reset(game.current, game.num_players, game.rules)
    return action_to_str(expert.act(ObservationBuilder(game).build(game.current), mask))


def test_expert_plays_the_race_with_two_players_only_where_one_canasta_goes_out():
    """Racing needs ``race`` (the 2-player default) and a preset where one canasta
    goes out (C-14); spanish and italian need a clean and a dirty canasta."""
    expert = ExpertAgent()
    expert.reset(0, 2, make_rules("classic"))
    assert expert.params == TWO_PLAYER_PARAMS and expert._racing(expert.rules)
    expert.reset(0, 4, make_rules("classic"))
    assert expert.params == ExpertParams() and not expert._racing(expert.rules)
    for variant in ("spanish", "italian"):
        expert.reset(0, 2, make_rules(variant))
        assert expert.params.race and not expert._racing(expert.rules)
    given = ExpertAgent(params=ExpertParams(far_behind=0.0))
    given.reset(0, 2, make_rules("classic"))
    assert given.params == ExpertParams(far_behind=0.0)


def _race_position(**house_rules):
    """Classic, 2 players: player 0 has a canasta of kings and player 1 discards a king
    onto a 3-card pot."""
    game = new_game(
        [
            "KS KH KD KC KS KH KD 4S 5S 6S 7S 8S 9S TS JS",
            "KC QS QH JH TH 9D 8D 7D 6D 5D 4D AC AD 7C 8C",
        ],
        "9H 4H 5H",  # the pot's first card, then the two draws
        **house_rules,
    )
    play(game, "draw", "meld K K K K K K K", "discard J", "draw", "discard K")
    assert game.pot == cards("9 J K") and "take onto meld" in legal_strings(game)
    return game


def test_expert_racing_draws_instead_of_taking_a_pot_once_it_has_a_canasta():
    """C-11, C-14: taking the pot onto the canasta of kings puts the 9 and the J into a
    hand of 8 single cards; racing, the expert draws to go out sooner. Without racing
    it takes, and racing it takes a pot of ``race_take_pot`` cards or more."""
    game = _race_position()
    assert _expert_move(game) == "draw"
    assert _expert_move(game, ExpertParams()) == "take onto meld"
    assert TWO_PLAYER_PARAMS.race_take_pot > 3
    big_enough = dataclasses.replace(TWO_PLAYER_PARAMS, race_take_pot=3)
    assert _expert_move(game, big_enough) == "take onto meld"


def test_the_bots_play_by_the_house_rules_of_their_table():
    """The rules come from ``reset``, house rules included: with two canastas needed to
    go out (a house rule on classic) one canasta is no race, so the expert takes the pot
    it would decline under the preset's rules."""
    game = _race_position(go_out_min_canastas=2)
    assert _expert_move(game) == "take onto meld"


@pytest.mark.parametrize("bot", [GreedyAgent, ExpertAgent])
def test_the_bots_need_the_rules_of_their_table_before_they_act(bot):
    env, observation = _meld_phase_state()
    with pytest.raises(RuntimeError, match="reset"):
        bot().act(observation["observation"], observation["action_mask"])


def test_expert_racing_puts_a_wild_card_toward_its_first_canasta():
    """C-5, C-14: opened with four aces and a 2 in hand, no canasta yet. The 2 cannot
    finish a canasta now (4 + 1 < 7); racing, it goes on the aces anyway (one card
    fewer to go out with); without racing it stays in hand for a later canasta."""
    game = new_game(
        [
            "AS AH AD AC 2C 4S 5S 6S 7S 8S 9S TS JS QS KS",
            "KC QH QD JH TH 9D 8D 7D 6D 5D 4D KH KD 7C 8C",
        ],
        "9H 4H",
    )
    play(game, "draw", "meld A A A A")
    assert "add 2 to A" in legal_strings(game)
    assert _expert_move(game) == "add 2 to A"
    assert _expert_move(game, ExpertParams()).startswith("discard")


def test_biggest_meld_key_completes_a_canasta_first():
    env, observation = _meld_phase_state()
    view = decode_view(observation["observation"])
    view.me.naturals[5] = 6
    add_two = next(a for a, m in enumerate(MOVES) if m.twos == 1 and m.slot == 5 and not m.new)
    big = next(a for a, m in enumerate(MOVES) if m.new and m.cards == 5 and m.slot == 0)
    assert biggest_meld_key(view, add_two) > biggest_meld_key(view, big)


def test_registry_builds_every_builtin_agent():
    for name in ("random", "greedy", "expert"):
        agent = make_agent(name, seed=1)
        assert isinstance(agent, Agent) and agent.name == name
    assert "ppo:PATH" in available_agents()
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("grandmaster")


def test_registry_seeds_agents_reproducibly():
    first, second = make_agent("random", seed=4), make_agent("random", seed=4)
    mask = np.ones(NUM_ACTIONS, dtype=np.int8)
    obs = np.zeros(449, dtype=np.float32)
    assert [first.act(obs, mask) for _ in range(5)] == [second.act(obs, mask) for _ in range(5)]
    reseed(first, 9)
    reseed(second, 9)
    assert first.act(obs, mask) == second.act(obs, mask)


def test_registry_resolves_trained_agents_lazily(monkeypatch):
    """``ppo:PATH`` imports the loader its entry point names (agents.network.load_agent) only
    when asked, and reports when it is missing."""
    monkeypatch.setitem(sys.modules, "agents.network", None)  # import fails
    with pytest.raises(ValueError, match="agents.network"):
        make_agent("ppo:models/none.zip")
    fake = types.ModuleType("agents.network")
    loaded = []

    def load_agent(path):
        loaded.append(path)
        return RandomAgent(0)

    fake.load_agent = load_agent
    monkeypatch.setitem(sys.modules, "agents.network", fake)
    agent = make_agent("ppo:models/run1.zip", seed=3)
    assert loaded == ["models/run1.zip"] and isinstance(agent, RandomAgent)


def test_register_agent_adds_a_name():
    register_agent("always-first", lambda seed=None: _FirstLegal())
    assert isinstance(make_agent("always-first"), _FirstLegal)
    with pytest.raises(ValueError):
        register_agent("bad:name", _FirstLegal)


class _FirstLegal(Agent):
    name = "always-first"

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])
