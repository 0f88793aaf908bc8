"""The ``history`` block of the observation: the public history of the hand (G-8).

Positions come from stacked decks (tests/scenario.py) and scripted actions; the
expected counts are worked out by hand in the comments. A random-play test
checks the engine's counters against an independent recount from the actions,
and the builder's cache against a fresh builder.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

import canasta_env
from canasta_env.actions import DISCARD, DRAW
from canasta_env.cards import KIND_NAMES, NUM_HAND_KINDS
from canasta_env.engine.game import END_WENT_OUT, Game
from canasta_env.observation import (
    HISTORY_SEAT_SIZE,
    HISTORY_SIZE,
    MAX_PLAYERS,
    OBS_SIZE,
    OBS_SIZE_V1,
    OFFSETS,
    ObservationBuilder,
    decode,
)
from canasta_env.rules import make_rules
from canasta_env.state_io import PUBLIC_HISTORY_FIELD, state_from_dict, state_to_dict
from tests.scenario import new_game, play

#: A hand that only draws and discards (no three of a kind).
FILLER_2P = "4 5 6 8 9 T J Q K 4 5 6 8 9 T"
FILLER_4P = "4 5 6 8 9 T J Q K 4 5"


def kinds(text: str) -> list[int]:
    """Per-kind counts (14 holdable kinds) of ``"4 4 K"``."""
    row = [0] * NUM_HAND_KINDS
    for name in text.split():
        row[KIND_NAMES.index(name)] += 1
    return row


def history(game: Game, viewer: int) -> tuple[list[tuple[list[int], list[int]]], list[int]]:
    """The decoded block: (discarded, declined) per seat slot from the viewer, and
    since_my_discard, as integers."""
    block = decode(ObservationBuilder(game).build(viewer))["history"]
    counts = [round(x) for x in block]
    assert np.allclose(block, counts)  # scale 1/4 undone exactly
    seats = []
    for slot in range(MAX_PLAYERS):
        row = counts[slot * HISTORY_SEAT_SIZE : (slot + 1) * HISTORY_SEAT_SIZE]
        seats.append((row[:NUM_HAND_KINDS], row[NUM_HAND_KINDS:]))
    return seats, counts[MAX_PLAYERS * HISTORY_SEAT_SIZE :]


def test_layout_grows_at_the_end():
    assert OFFSETS["history"] == OBS_SIZE_V1 == 504
    assert HISTORY_SIZE == MAX_PLAYERS * 2 * NUM_HAND_KINDS + NUM_HAND_KINDS == 182
    assert OBS_SIZE == 686


def two_player_position() -> Game:
    """Classic, 2 players. The pot starts with a K; the stock gives 7, 7, 9.

    p0 draws (declines the K), discards 4; p1 draws (declines the 4), discards 4;
    p0 draws (declines the 4), discards 9.
    """
    game = new_game([FILLER_2P, "9 9 K K K 4 5 6 8 T J Q 4 5 6"], "K 7 7 9")
    assert game.pot == kinds_list("K")
    play(game, "draw", "discard 4", "draw", "discard 4", "draw", "discard 9")
    return game


def kinds_list(text: str) -> list[int]:
    return [KIND_NAMES.index(name) for name in text.split()]


def test_two_players_discards_declines_and_since_my_discard():
    game = two_player_position()
    seats, since = history(game, 0)
    assert seats[0] == (kinds("4 9"), kinds("K 4"))  # own seat first
    assert seats[1] == (kinds("4"), kinds("4"))
    assert all(seat == ([0] * 14, [0] * 14) for seat in seats[2:])  # padding
    assert since == [0] * 14  # p0 discarded last: nothing since
    seats, since = history(game, 1)
    assert seats[0] == (kinds("4"), kinds("4"))  # p1's own seat first
    assert seats[1] == (kinds("4 9"), kinds("K 4"))
    assert since == kinds("9")  # p0's 9 since p1 discarded its 4


def test_a_take_is_no_decline_and_a_discard_resets_since_my_discard():
    """p1 takes the 9 with 9 9 (frozen for the unopened team, C-9), opens with K K K
    (30 + 30 points >= 50) and discards a 4: the take adds no decline; p1's
    since_my_discard is empty again, p0's holds that 4 only (p0's 9 came before)."""
    game = two_player_position()
    play(game, "take", "meld K K K", "discard 4")
    seats, since = history(game, 1)
    assert seats[0] == (kinds("4 4"), kinds("4"))  # the take is not a decline
    assert since == [0] * 14
    seats, since = history(game, 0)
    assert seats[0] == (kinds("4 9"), kinds("K 4"))  # the 9 went to p1's meld: still discarded
    assert seats[1] == (kinds("4 4"), kinds("4"))
    assert since == kinds("4")


def test_four_players_order_from_the_viewer():
    """Classic, 4 players; pot K, draws 7 7 7 7 7. Discards in turn: p0 4, p1 5, p2 6,
    p3 8, p0 9; each seat declined the card on top when it drew: p0 K then 8, p1 4,
    p2 5, p3 6."""
    game = new_game([FILLER_4P] * 4, "K 7 7 7 7 7")
    play(game, "draw", "discard 4", "draw", "discard 5", "draw", "discard 6")
    play(game, "draw", "discard 8", "draw", "discard 9")
    discarded = {0: "4 9", 1: "5", 2: "6", 3: "8"}
    declined = {0: "K 8", 1: "4", 2: "5", 3: "6"}
    since_mine = {0: "", 1: "6 8 9", 2: "8 9", 3: "9"}
    for viewer in range(4):
        seats, since = history(game, viewer)
        for slot in range(4):
            seat = (viewer + slot) % 4
            assert seats[slot] == (kinds(discarded[seat]), kinds(declined[seat])), (viewer, slot)
        assert seats[4:] == [([0] * 14, [0] * 14)] * 2
        assert since == kinds(since_mine[viewer])


def test_before_the_first_own_discard_since_counts_from_the_deal():
    game = new_game([FILLER_4P] * 4, "K 7 7 7 7 7")
    play(game, "draw", "discard 4", "draw", "discard 5")
    assert history(game, 2)[1] == kinds("4 5")
    assert history(game, 3)[1] == kinds("4 5")
    assert history(game, 0)[1] == kinds("5")


def test_env_observation_carries_the_block():
    """Through the env and a stacked deck (``options={"deck": ...}``)."""
    env = canasta_env.raw_env(variant="classic", num_players=2)
    deck = "4S 5S 6S 8S 9S TS JS QS KS 4S 5S 6S 8S 9S TS " * 2 + "KS 7S 7S"
    env.reset(seed=0, options={"deck": deck})
    env.step(DRAW)  # p0 declines the K
    env.step(DISCARD + KIND_NAMES.index("Q"))
    obs = env.observe(env.agents[1])["observation"]
    block = decode(obs)["history"]
    assert block[HISTORY_SEAT_SIZE : HISTORY_SEAT_SIZE + 14].tolist() == kinds("Q")
    assert block[HISTORY_SEAT_SIZE + 14 : 2 * HISTORY_SEAT_SIZE].tolist() == kinds("K")
    assert block[-14:].tolist() == kinds("Q")
    assert obs[OBS_SIZE_V1:].max() == 0.25  # scale 1/4


def recount(events: list[tuple[int, str, int]], players: int):
    """The history recomputed from (seat, what, kind) events of one hand."""
    discarded = [[0] * 14 for _ in range(players)]
    declined = [[0] * 14 for _ in range(players)]
    since = [[0] * 14 for _ in range(players)]
    for seat, what, kind in events:
        if what == "draw":
            declined[seat][kind] += 1
        else:
            discarded[seat][kind] += 1
            since[seat] = [0] * 14
            for other in range(players):
                if other != seat:
                    since[other][kind] += 1
    return discarded, declined, since


@pytest.mark.parametrize(
    ("variant", "players"), [("classic", 4), ("classic", 3), ("italian", 2), ("spanish", 6)]
)
def test_random_play_matches_a_recount_and_the_cache_a_fresh_builder(variant, players):
    """Every step of several hands: the engine's counters equal a recount from the
    actions, a new hand resets them, going out by a discard counts, and the env's
    reused builder equals a fresh one for every viewer."""
    rng = random.Random(players)
    game = Game(make_rules(variant, target_score=100_000), players, seed=players)
    builder = ObservationBuilder(game)
    events: list[tuple[int, str, int]] = []
    hands = 0
    while hands < 4:
        if game.hand_over:
            if game.game_over:  # S-11: a black-3 canasta wins the game at once
                break
            game.next_hand()
            hands += 1
            events = []
            assert game.discarded == game.declined == game.since_discard == [[0] * 14] * players
            for viewer in range(players):
                assert not builder.build(viewer)[OBS_SIZE_V1:].any()
        seat, pot = game.current, game.pot
        action = rng.choice(game.legal_actions())
        if action == DRAW and pot and pot[-1] < NUM_HAND_KINDS:
            events.append((seat, "draw", pot[-1]))
        elif DISCARD <= action < DISCARD + NUM_HAND_KINDS:
            events.append((seat, "discard", action - DISCARD))
        game.apply(action)
        assert (game.discarded, game.declined, game.since_discard) == recount(events, players)
        for viewer in range(players):
            assert np.array_equal(builder.build(viewer), ObservationBuilder(game).build(viewer))
    assert hands >= 1


def test_going_out_by_discarding_counts_the_discard():
    """Random hands until one ends by a discard that empties the hand (C-14)."""
    rng = random.Random(0)
    for seed in range(200):
        game = Game(make_rules("classic"), 2, seed=seed)
        last = None
        while not game.hand_over:
            seat = game.current
            before = [row[:] for row in game.discarded]
            action = rng.choice(game.legal_actions())
            game.apply(action)
            last = (seat, action, before)
        seat, action, before = last
        if game.end_reason == END_WENT_OUT and DISCARD <= action < DISCARD + NUM_HAND_KINDS:
            before[seat][action - DISCARD] += 1
            assert game.discarded == before
            assert history(game, seat)[0][0][0] == before[seat]
            return
    pytest.fail("no hand went out by a discard")


def test_history_survives_copy_and_state_round_trip():
    game = two_player_position()
    twin = game.copy()
    loaded = state_from_dict(state_to_dict(game))
    for other in (twin, loaded):
        for viewer in range(2):
            assert np.array_equal(
                ObservationBuilder(other).build(viewer), ObservationBuilder(game).build(viewer)
            )
    twin.apply(DRAW)  # the copy is independent
    assert twin.declined != game.declined


def test_a_state_saved_before_the_field_loads_with_zeros():
    game = two_player_position()
    data = state_to_dict(game)
    assert data[PUBLIC_HISTORY_FIELD]["discarded"][0] == kinds("4 9")
    old = copy.deepcopy(data)
    del old[PUBLIC_HISTORY_FIELD]
    loaded = state_from_dict(old)
    assert loaded.discarded == loaded.declined == loaded.since_discard == [[0] * 14] * 2
    obs, fresh = (ObservationBuilder(g).build(0) for g in (game, loaded))
    assert np.array_equal(obs[:OBS_SIZE_V1], fresh[:OBS_SIZE_V1])
    assert not fresh[OBS_SIZE_V1:].any()
    # it plays on like the original, and counts from here
    for g in (game, loaded):
        play(g, "draw")
    assert loaded.declined[1] == kinds("9") and game.declined[1] == kinds("4 9")
    assert state_to_dict(loaded)["hands"] == state_to_dict(game)["hands"]


def test_history_is_deterministic():
    observations = []
    for _ in range(2):
        game = Game(make_rules("canastone"), 4, seed=5)
        rng = random.Random(5)
        trace = []
        for _ in range(150):
            if game.hand_over:
                break
            game.apply(rng.choice(game.legal_actions()))
            trace.append(ObservationBuilder(game).build(game.current)[OBS_SIZE_V1:].tobytes())
        observations.append(trace)
    assert observations[0] == observations[1]
    assert any(np.frombuffer(t, np.float32).any() for t in observations[0])


def test_counts_past_a_byte_are_clamped():
    """A count above 255 cannot happen in a real hand (module doc of the builder); if a
    state ever held one, the byte packing clamps it instead of failing."""
    game = two_player_position()
    game.discarded[1][0] = 300
    seats, _ = history(game, 0)
    assert seats[1][0][0] == 255
