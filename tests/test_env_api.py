"""The PettingZoo AEC environment: API conformance, episode ends, rewards, errors.

PettingZoo's own ``api_test``, ``seed_test`` and ``render_test`` run on
``env()`` and ``raw_env`` for classic with 2, 3, 4 and 6 players and, with
fewer cycles, for every other preset and player count. The rest pins the
documented behaviour of :mod:`canasta_env.env`: ``max_cycles`` truncation, the
``score`` and ``win`` rewards (G-9), ``episode="game"`` (G-7), illegal actions,
construction errors, house rules, stacked decks and the action mask.
"""

from __future__ import annotations

import contextlib
import io
import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import canasta_env
from canasta_env.actions import DISCARD, DRAW, NUM_ACTIONS, PASS, action_to_str
from canasta_env.cards import NUM_HAND_KINDS, parse_cards
from canasta_env.engine import IllegalActionError
from canasta_env.engine.state import state_snapshot
from canasta_env.env import raw_env
from canasta_env.observation import OBS_SIZE, decode
from canasta_env.rules import PRESETS

CLASSIC_COUNTS = (2, 3, 4, 6)
OTHER_CONFIGS = [
    (name, n) for name, rules in PRESETS.items() if name != "classic" for n in rules.player_counts
]


@contextlib.contextmanager
def quiet():
    """PettingZoo's tests print and warn (reset options, Dict spaces): keep the log clean."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def random_action(rng: random.Random, obs) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))


def play_out(env, rng: random.Random) -> dict[str, float]:
    """Play a reset env to its end with random legal actions; return each agent's total reward."""
    totals = {name: 0.0 for name in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        env.step(None if terminated or truncated else random_action(rng, obs))
    return totals


def play_until(env, rng: random.Random, stop) -> None:
    """Random legal actions until ``stop(env)`` is true (the episode must not end first)."""
    while not stop(env):
        obs, _, terminated, truncated, _ = env.last()
        assert not (terminated or truncated), "episode ended before the wanted state"
        env.step(random_action(rng, obs))


# ---------------------------------------------------------------------------- PettingZoo tests
@pytest.mark.parametrize("players", CLASSIC_COUNTS)
@pytest.mark.parametrize("raw", [False, True], ids=["env", "raw_env"])
def test_api_test_classic(players, raw):
    make = raw_env if raw else canasta_env.env
    with quiet():
        api_test(make(variant="classic", num_players=players), num_cycles=1000)


@pytest.mark.parametrize("players", CLASSIC_COUNTS)
@pytest.mark.parametrize("raw", [False, True], ids=["env", "raw_env"])
def test_seed_test_classic(players, raw):
    make = raw_env if raw else canasta_env.env
    with quiet():
        seed_test(lambda: make(variant="classic", num_players=players), num_cycles=500)


@pytest.mark.parametrize("players", CLASSIC_COUNTS)
@pytest.mark.parametrize("raw", [False, True], ids=["env", "raw_env"])
def test_render_test_classic(players, raw):
    def make(render_mode=None):
        factory = raw_env if raw else canasta_env.env
        return factory(variant="classic", num_players=players, render_mode=render_mode)

    with quiet():
        render_test(make, custom_tests={"ansi": lambda text: "pot" in text and "player 0" in text})


@pytest.mark.parametrize(("variant", "players"), OTHER_CONFIGS)
def test_pettingzoo_tests_other_presets(variant, players):
    def make(render_mode=None):
        return canasta_env.env(variant=variant, num_players=players, render_mode=render_mode)

    with quiet():
        api_test(make(), num_cycles=300)
        api_test(raw_env(variant=variant, num_players=players), num_cycles=100)
        seed_test(make, num_cycles=100)
        render_test(make)


def test_different_seeds_deal_differently():
    env = canasta_env.env(variant="classic", num_players=4)
    hands = []
    for seed in (1, 2):
        env.reset(seed=seed)
        hands.append([list(h) for h in env.unwrapped.game.hands])
    assert hands[0] != hands[1]


# ---------------------------------------------------------------------------- max_cycles
@pytest.mark.parametrize(("variant", "players"), [("classic", 4), ("spanish", 3), ("italian", 2)])
@pytest.mark.parametrize("limit", [1, 5, 23])
def test_max_cycles_truncates_after_exactly_that_many_decisions(variant, players, limit):
    env = canasta_env.env(variant=variant, num_players=players, max_cycles=limit)
    env.reset(seed=3)
    rng = random.Random(3)
    for decision in range(limit):
        assert not any(env.truncations.values()), f"truncated after {decision} decisions"
        obs, reward, terminated, truncated, _ = env.last()
        assert not (terminated or truncated)
        env.step(random_action(rng, obs))
    assert env.unwrapped.game.phase != 2, "the hand ended by itself; pick another seed"
    assert env.truncations == {name: True for name in env.possible_agents}
    assert not any(env.terminations.values())
    assert all(r == 0 for r in env.rewards.values())
    seen = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        assert truncated and not terminated and reward == 0
        assert not obs["action_mask"].any()
        seen.append(agent)
        env.step(None)
    assert sorted(seen) == sorted(env.possible_agents)
    assert env.agents == []


def test_max_cycles_counts_decisions_across_hands_of_a_game():
    env = canasta_env.env(
        variant="classic", num_players=2, episode="game", target_score=100_000, max_cycles=400
    )
    env.reset(seed=0)
    rng = random.Random(0)
    decisions = 0
    while not any(env.truncations.values()):
        obs, _, terminated, _, _ = env.last()
        assert not terminated
        env.step(random_action(rng, obs))
        decisions += 1
    assert decisions == 400
    assert env.unwrapped.game.hand_index >= 1, "400 random decisions should span two hands"


# ---------------------------------------------------------------------------- rewards
def expected_score_rewards(game, players, scale=1000.0):
    totals = [sheet["total"] for sheet in game.hand_scores]
    result = {}
    for seat in range(players):
        team = game.team_of[seat]
        others = [t for i, t in enumerate(totals) if i != team]
        result[f"player_{seat}"] = (totals[team] - sum(others) / len(others)) / scale
    return result


@pytest.mark.parametrize(
    ("variant", "players"),
    [
        ("classic", 2),
        ("classic", 3),
        ("classic", 4),
        ("classic", 6),
        ("spanish", 3),
        ("italian", 4),
    ],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_score_reward_is_team_total_minus_mean_of_others(variant, players, seed):
    """G-9: at the end of a hand, reward = (own team total - mean of other teams) / 1000."""
    env = canasta_env.env(variant=variant, num_players=players, reward="score")
    env.reset(seed=seed)
    totals = play_out(env, random.Random(seed))
    game = env.unwrapped.game
    assert game.phase == 2 and game.hand_scores is not None
    expected = expected_score_rewards(game, players)
    assert totals == pytest.approx(expected, abs=1e-9)
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
    if players in (4, 6):  # teammates share their reward
        assert totals["player_0"] == totals["player_2"]


@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("classic", 3), ("classic", 4)])
@pytest.mark.parametrize("seed", range(4))
def test_win_reward_is_plus_minus_one(variant, players, seed):
    env = canasta_env.env(variant=variant, num_players=players, reward="win")
    env.reset(seed=seed)
    totals = play_out(env, random.Random(seed))
    game = env.unwrapped.game
    scores = [sheet["total"] for sheet in game.hand_scores]
    best = [t for t, s in enumerate(scores) if s == max(scores)]
    for seat in range(players):
        team = game.team_of[seat]
        if team not in best:
            want = -1.0
        else:
            want = 1.0 if len(best) == 1 else 0.0
        assert totals[f"player_{seat}"] == want, (scores, seat)


def test_win_reward_tie_gives_zero():
    # the Python engine: its game is the table's own, so the test can set the hand's sheet
    env = canasta_env.env(variant="classic", num_players=2, reward="win", backend="python")
    env.reset(seed=0)
    raw = env.unwrapped
    raw.game.hand_scores = [{"total": 120}, {"total": 120}]  # a tied hand, as the engine reports it
    raw.rewards = {name: 0.0 for name in raw.agents}
    raw._hand_ended()
    assert raw.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert all(raw.terminations.values())


# ---------------------------------------------------------------------------- episode="game"
def test_game_episode_plays_hands_until_target():
    """G-7: with episode="game" hands follow each other until a team reaches the target."""
    multi_hand = 0
    for seed in range(6):
        env = canasta_env.env(variant="classic", num_players=2, episode="game", target_score=1000)
        env.reset(seed=seed)
        rng = random.Random(seed)
        totals = {name: 0.0 for name in env.possible_agents}
        hands_seen = {0}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            totals[agent] += reward
            game = env.unwrapped.game
            if not (terminated or truncated):
                # a new hand starts with the seat after the previous first player (G-7)
                if game.hand_index not in hands_seen:
                    hands_seen.add(game.hand_index)
                    assert env.agent_selection == f"player_{game.hand_index % 2}"
                    assert game.phase == 0 and game.num_steps == 0
            env.step(None if terminated or truncated else random_action(rng, obs))
        game = env.unwrapped.game
        assert game.game_over and max(game.scores) >= 1000
        running = [0, 0]
        for record in game.hand_history[:-1]:
            running = [a + b for a, b in zip(running, record["scores"])]
            assert max(running) < 1000, "the game went on after a team reached the target"
        assert len(game.hand_history) == game.hand_index + 1
        per_hand = [
            (r["scores"][0] - r["scores"][1]) / 1000.0 for r in game.hand_history
        ]  # 2 players: own total minus the other's
        assert totals["player_0"] == pytest.approx(sum(per_hand))
        assert totals["player_1"] == pytest.approx(-sum(per_hand))
        multi_hand += game.hand_index >= 1
    assert multi_hand, "no seed played more than one hand"


def test_game_episode_win_reward_uses_game_totals():
    env = canasta_env.env(
        variant="classic", num_players=2, episode="game", target_score=1000, reward="win"
    )
    env.reset(seed=0)
    totals = play_out(env, random.Random(0))
    game = env.unwrapped.game
    winner = game.winner_team if game.winner_team is not None else None
    if winner is None:
        assert set(totals.values()) <= {0.0, -1.0}
    else:
        assert totals[f"player_{winner}"] == 1.0
        assert totals[f"player_{1 - winner}"] == -1.0


# ---------------------------------------------------------------------------- illegal actions
def snapshot(env):
    """Everything an illegal action must leave untouched."""
    raw = env.unwrapped
    game = raw.game
    observations = {a: raw.observe(a) for a in raw.agents}
    return {
        "obs": {a: o["observation"].tobytes() for a, o in observations.items()},
        "mask": {a: o["action_mask"].tobytes() for a, o in observations.items()},
        "selection": raw.agent_selection,
        "agents": list(raw.agents),
        "rewards": dict(raw.rewards),
        "cumulative": dict(raw._cumulative_rewards),
        "terminations": dict(raw.terminations),
        "truncations": dict(raw.truncations),
        "game": state_snapshot(game),
    }


def test_illegal_action_in_raw_env_raises_and_changes_nothing():
    env = raw_env(variant="classic", num_players=4)
    env.reset(seed=5)
    rng = random.Random(5)
    for _ in range(30):  # several phases: draw, meld, after pot takes
        obs = env.observe(env.agent_selection)
        illegal = np.flatnonzero(obs["action_mask"] == 0)
        before = snapshot(env)
        for action in (int(illegal[0]), int(illegal[-1]), int(rng.choice(illegal.tolist()))):
            with pytest.raises(IllegalActionError) as info:
                env.step(action)
            assert str(action) in str(info.value)
            assert repr(action_to_str(action)) in str(info.value)
            assert snapshot(env) == before
        env.step(random_action(rng, obs))


def test_illegal_message_names_action_and_reason():
    env = raw_env(variant="classic", num_players=2)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"illegal action 5 \('pass'\).*draw phase"):
        env.step(PASS)
    with pytest.raises(IllegalActionError, match="discard"):
        env.step(DISCARD)
    assert isinstance(IllegalActionError("x"), ValueError)


def test_illegal_action_in_env_terminates_with_penalty():
    env = canasta_env.env(variant="classic", num_players=4)
    env.reset(seed=2)
    rng = random.Random(2)
    for _ in range(7):
        env.step(random_action(rng, env.observe(env.agent_selection)))
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert all(env.terminations.values())
    totals = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        assert terminated
        totals[agent] = reward
        env.step(None)
    assert totals[offender] == -1.0
    assert all(r == 0.0 for a, r in totals.items() if a != offender)
    assert len(totals) == 4 and env.agents == []


def test_illegal_reward_is_configurable():
    env = canasta_env.env(variant="classic", num_players=2, illegal_reward=-5.0)
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(PASS)
    assert env.rewards[env.agent_selection] == -5.0


def test_step_before_reset_raises():
    env = canasta_env.env(variant="classic", num_players=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(DRAW)
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")
    with pytest.raises((AttributeError, RuntimeError)):  # raw_env: no order enforcement
        raw_env(variant="classic", num_players=2).step(DRAW)


# ---------------------------------------------------------------------------- construction
@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"variant": "hearts"}, r"unknown variant 'hearts'.*classic"),
        ({"variant": "italian", "num_players": 3}, r"italian.*\[2, 4\].*3"),
        ({"variant": "classic", "num_players": 5}, r"classic.*5"),
        ({"variant": "classic", "num_players": 1}, r"classic.*1"),
        ({"variant": "classic", "jokers": 3}, r"unknown rules field.*jokers"),
        ({"variant": "classic", "reward": "points"}, r"reward must be one of.*points"),
        ({"variant": "classic", "episode": "match"}, r"episode must be one of.*match"),
        ({"variant": "classic", "render_mode": "video"}, r"render_mode.*'video'"),
        ({"variant": "classic", "max_cycles": 0}, r"max_cycles"),
        ({"variant": "classic", "illegal_action": "ignore"}, r"illegal_action"),
    ],
)
def test_bad_construction_raises_value_error(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        canasta_env.env(**kwargs)
    with pytest.raises(ValueError, match=pattern):
        raw_env(**kwargs)


def test_house_rule_override():
    env = canasta_env.env(variant="spanish", target_score=5000)
    assert env.unwrapped.rules.target_score == 5000
    assert env.unwrapped.rules.name == "spanish"
    assert PRESETS["spanish"].target_score == 7000, "the preset itself must not change"
    env.reset(seed=0)
    table = decode(env.observe(env.agent_selection)["observation"])["table"]
    assert table[12] == pytest.approx(5000, rel=1e-6)


def test_rules_object_as_variant():
    rules = canasta_env.make_rules("classic", go_out_bonus=300)
    env = canasta_env.env(variant=rules, num_players=3)
    assert env.unwrapped.rules is rules


# ---------------------------------------------------------------------------- stacked deck
@pytest.mark.parametrize(
    ("variant", "players", "deck"),
    [
        ("classic", 4, "AS AH AD AC KS KH KD KC QS QH QD"),
        ("classic", 2, "AS AH 2C 2D JK JK 4S 5S 6S 7S 8S 9S TS TH TD"),
        ("spanish", 4, "3S 3C 3S 3C 9S 9H 9D 9C 9S 9H 9D 9C JK JK 2S"),
        ("italian", 2, "4S 4H 4D 5S 5H 5D 6S 6H 6D 7S 7H 7D 8S 8H 8D"),
    ],
)
def test_reset_with_stacked_deck_deals_player_0_first(variant, players, deck):
    env = canasta_env.env(variant=variant, num_players=players)
    env.reset(seed=11, options={"deck": deck})
    hand = decode(env.observe("player_0")["observation"])["hand"]
    want = np.bincount(parse_cards(deck), minlength=NUM_HAND_KINDS)[:NUM_HAND_KINDS]
    np.testing.assert_allclose(hand, want, atol=1e-6)
    assert env.unwrapped.game.hands[0][:NUM_HAND_KINDS] == want.tolist()


def test_stacked_deck_second_block_goes_to_player_1():
    env = canasta_env.env(variant="classic", num_players=2)
    deck = "4S " * 8 + "5S " * 7 + "6S " * 8 + "7S " * 7
    env.reset(seed=0, options={"deck": deck})
    hand1 = decode(env.observe("player_1")["observation"])["hand"]
    assert hand1[2] == 8 and hand1[3] == 7 and hand1.sum() == 15


def test_stacked_deck_is_reproducible_with_seed():
    a = canasta_env.env(variant="classic", num_players=4)
    b = canasta_env.env(variant="classic", num_players=4)
    a.reset(seed=4, options={"deck": "JK JK"})
    b.reset(seed=4, options={"deck": "JK JK"})
    assert np.array_equal(
        a.observe("player_3")["observation"], b.observe("player_3")["observation"]
    )


# ---------------------------------------------------------------------------- spaces and masks
@pytest.mark.parametrize("raw", [False, True], ids=["env", "raw_env"])
def test_observation_dtype_and_shape(raw):
    env = (raw_env if raw else canasta_env.env)(variant="classic", num_players=3)
    env.reset(seed=0)
    for agent in env.agents:
        obs = env.observe(agent)
        assert set(obs) == {"observation", "action_mask"}
        assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (OBS_SIZE,)
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (NUM_ACTIONS,)
        assert env.observation_space(agent).contains(obs)
        assert env.action_space(agent).n == NUM_ACTIONS


@pytest.mark.parametrize(("variant", "players"), [("classic", 4), ("spanish", 6), ("italian", 2)])
def test_mask_equals_legal_actions_and_others_get_zero_mask(variant, players):
    env = canasta_env.env(variant=variant, num_players=players)
    env.reset(seed=9)
    rng = random.Random(9)
    table = env.unwrapped.table
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and set(np.unique(mask)) <= {0, 1}
        assert np.flatnonzero(mask).tolist() == sorted(table.legal_actions())
        assert mask.any()
        assert np.array_equal(env.unwrapped.action_mask(), mask)
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        mask[:] = 0  # the returned mask is a copy: writing to it changes nothing
        assert env.observe(agent)["action_mask"].any()
        env.step(int(rng.choice(table.legal_actions())))


def test_observation_is_a_copy():
    env = canasta_env.env(variant="classic", num_players=2)
    env.reset(seed=0)
    obs = env.observe("player_0")
    first = obs["observation"].copy()
    obs["observation"][:] = -7
    assert np.array_equal(env.observe("player_0")["observation"], first)


# ---------------------------------------------------------------------------- mask exactness
def italian_take_state(need: int):
    """Italian, 2 players, player 0 unopened (minimum ``need``) may take a pot topped by a K.

    Hand: K K, A A A, 7 7 7, 4 4 4, 5 5, 6 6, 2 2. After the take (30 points) a
    clean opening reaches 30 + 60 + 15 + 15 = 120; with the 2s (5 5 2, 6 6 2)
    a dirty one reaches 180.
    """
    from canasta_env.cards import RED3, cards_to_counts
    from canasta_env.compliance import conservation_errors
    from canasta_env.engine.game import PHASE_DRAW, Game

    game = Game(PRESETS["italian"], 2, seed=0)
    for hand in game.hands:  # every card not on the table back to the stock
        game.stock += [kind for kind, n in enumerate(hand) for _ in range(n)]
    game.stock += game.pot + [RED3] * sum(game.red3)
    game.red3 = [0, 0]
    mine = parse_cards("KS KH AS AH AD 7S 7H 7D 4S 4H 4D 5S 5H 6S 6H 2S 2H")
    pot = parse_cards("9S 9H KD")
    for kind in mine + pot:
        game.stock.remove(kind)
    other = [0] * len(game.hands[1])
    for _ in range(15):
        kind = next(k for k in game.stock if k != RED3)
        game.stock.remove(kind)
        other[kind] += 1
    game.hands = [cards_to_counts(mine), other]
    game.hand_totals = [len(mine), 15]
    game.known = [[0] * len(other), [0] * len(other)]
    game.pot, game.pot_hidden = pot, 0
    game.pot_known, game.pot_wild = cards_to_counts(pot), False
    game.need = [need, 50]
    game.current, game.phase, game.clean_only = 0, PHASE_DRAW, need <= 50
    game.state_changed()
    assert conservation_errors(game) == []
    return game


def test_italian_take_with_reachable_clean_opening_is_legal():
    """I-7, I-10: an unopened team may take the pot when it can open cleanly in the turn."""
    from canasta_env.actions import TAKE

    game = italian_take_state(need=120)
    assert TAKE in game.legal_actions()
    game.apply(TAKE)
    assert game.legal_actions(), "a masked-in take must leave a way to finish the turn"


def test_italian_take_needing_a_dirty_opening_is_illegal():
    """I-10: a dirty opening does not let the player take the pot in the same turn."""
    from canasta_env.actions import TAKE

    game = italian_take_state(need=160)
    legal = game.legal_actions()
    if TAKE in legal:
        game.apply(TAKE)
        assert game.legal_actions(), "the take left the player with no legal action"
    assert TAKE not in legal
