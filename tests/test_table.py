"""The table (:mod:`canasta_env.table`): seeded hands to exact outcomes, the env's rewards,
stacked decks, masks, illegal actions, search worlds and the batched form.

Hands are played by a ``random.Random(seed)`` choosing among the legal actions, so each
test's hand is the same on every run; the outcomes below were read off the engine and
the reward arithmetic is written out beside them.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import canasta_env
from canasta_env.actions import NUM_ACTIONS, str_to_action
from canasta_env.batched_table import BatchedTable
from canasta_env.cards import NUM_KINDS, RED3
from canasta_env.engine.game import IllegalActionError
from canasta_env.engine.state import same_state, state_snapshot
from canasta_env.observation import OBS_SIZE, ObservationBuilder
from canasta_env.rules import make_rules
from canasta_env.table import MASK_DTYPE, Table
from tests.scenario import counts, stacked_deck


def play_out(table: Table, rng: random.Random) -> int:
    """Random legal actions until the hand is over; the number of steps."""
    steps = 0
    while not table.hand_over:
        legal = table.legal_actions()
        table.step(legal[rng.randrange(len(legal))])
        steps += 1
    return steps


def env_rewards(variant: str, players: int, seed: int, reward: str = "score") -> dict:
    """The AEC env's cumulative rewards for the same hand, played by the same chooser."""
    env = canasta_env.raw_env(variant=variant, num_players=players, reward=reward)
    env.reset(seed=seed)
    rng = random.Random(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _obs, reward_now, terminated, truncated, _info = env.last()
        totals[agent] += reward_now
        if terminated or truncated:
            env.step(None)
            continue
        legal = env.game.legal_actions()
        env.step(legal[rng.randrange(len(legal))])
    return totals


# ---------------------------------------------------------------------------- outcomes
# (variant, players, seed, steps, end reason, team hand scores, "score" rewards, "win" rewards)
HANDS = [
    # 1815 - 400 = 1415 -> 1.415 / -1.415
    ("classic", 2, 3, 180, "went out", [1815, 400], [1.415, -1.415], [1.0, -1.0]),
    # partners share: 2465 - 575 = 1890 -> 1.89
    ("classic", 4, 7, 163, "stock exhausted", [2465, 575], [1.89, -1.89] * 2, [1.0, -1.0] * 2),
    # three teams, the mean of the other two: 1205 - (1645 + 845) / 2 = -40 -> -0.04;
    # 1645 - (1205 + 845) / 2 = 620 -> 0.62; 845 - (1205 + 1645) / 2 = -580 -> -0.58
    ("spanish", 3, 1, 225, "stock exhausted", [1205, 1645, 845], [-0.04, 0.62, -0.58],
     [-1.0, 1.0, -1.0]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("variant", "players", "seed", "steps", "reason", "scores", "score", "win"), HANDS
)
def test_seeded_hand_reaches_its_exact_outcome(
    variant, players, seed, steps, reason, scores, score, win
):
    table = Table(make_rules(variant), players, seed=seed)
    assert play_out(table, random.Random(seed)) == steps
    assert table.hand_over
    assert table.legal_actions() == []
    assert table.end_reason == reason
    assert table.team_scores == scores
    assert table.game_scores == scores  # the game's totals after its first hand
    assert table.went_out == (0 if reason == "went out" else None)
    assert table.seat_rewards() == pytest.approx(score, abs=1e-12)
    assert table.seat_rewards("win") == win
    assert table.outcome() == {
        "hand_scores": table.game.hand_scores,
        "scores": scores,  # the game's totals after its first hand
        "end_reason": reason,
    }


@pytest.mark.parametrize(("variant", "players", "seed"), [hand[:3] for hand in HANDS])
@pytest.mark.parametrize("reward", ["score", "win"])
def test_seat_rewards_are_the_envs_bit_for_bit(variant, players, seed, reward):
    table = Table(make_rules(variant), players, seed=seed)
    play_out(table, random.Random(seed))
    want = env_rewards(variant, players, seed, reward)
    assert table.seat_rewards(reward) == [want[f"player_{s}"] for s in table.seats]


def test_reward_scale_divides_the_score_difference():
    table = Table(make_rules("classic"), 2, seed=3)
    play_out(table, random.Random(3))
    assert table.seat_rewards("score", 1.0) == [1415.0, -1415.0]
    assert table.seat_rewards("score", 0.5) == [2830.0, -2830.0]


def test_next_hand_rotates_the_first_player_and_keeps_the_totals():
    """The next hand starts one seat on; the game's totals carry over."""
    table = Table(make_rules("classic"), 2, seed=3)
    first = table.current
    play_out(table, random.Random(3))
    table.next_hand()
    assert not table.hand_over
    assert table.current == (first + 1) % 2
    assert table.game.scores == [1815, 400]
    assert table.game.hand_index == 1


def test_next_hand_refused_while_the_hand_is_on():
    table = Table(make_rules("classic"), 2, seed=3)
    with pytest.raises(IllegalActionError, match="not over"):
        table.next_hand()


# ---------------------------------------------------------------------------- stacked deck
HANDS_2P = ["A A A K K K 7 7 4 5 6 8 9 T J", "Q Q Q J J 9 9 8 8 6 6 5 5 4 T"]


def test_stacked_deck_deals_the_named_hands_as_env_reset_does():
    deck = stacked_deck("classic", 2, HANDS_2P, then="7 4")
    table = Table(make_rules("classic"), 2, seed=0, deck=deck)
    assert table.game.hands[0] == counts(HANDS_2P[0])
    assert table.game.hands[1] == counts(HANDS_2P[1])
    env = canasta_env.raw_env(variant="classic", num_players=2)
    env.reset(seed=0, options={"deck": deck})
    assert same_state(env.game, table.game)
    view = table.view(table.current)
    seen = env.observe(env.agent_selection)
    np.testing.assert_array_equal(seen["observation"], view["observation"])
    np.testing.assert_array_equal(seen["action_mask"], view["action_mask"])


def test_stacked_deck_plays_a_scripted_turn():
    """Player 0 draws, melds three aces (60 points meet the opening minimum of 50)."""
    deck = stacked_deck("classic", 2, HANDS_2P, then="7 4 K")
    table = Table(make_rules("classic"), 2, seed=0, deck=deck)
    assert table.current == 0
    table.step(str_to_action("draw"))
    assert str_to_action("meld A A A") in table.legal_actions()
    table.step(str_to_action("meld A A A"))
    assert table.game.opened[table.team_of[0]]


# ---------------------------------------------------------------------------- views
@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("classic", 4), ("italian", 4)])
def test_masks_are_int8_exact_and_only_for_the_seat_to_act(variant, players):
    table = Table(make_rules(variant), players, seed=5)
    rng = random.Random(5)
    for _ in range(40):
        if table.hand_over:
            break
        for seat in table.seats:
            view = table.view(seat)
            observation, mask = view["observation"], view["action_mask"]
            assert observation.dtype == np.float32 and observation.shape == (OBS_SIZE,)
            assert mask.dtype == MASK_DTYPE == np.int8 and mask.shape == (NUM_ACTIONS,)
            if seat == table.current:
                assert np.flatnonzero(mask).tolist() == table.legal_actions()
                np.testing.assert_array_equal(table.mask(), mask)
            else:
                assert not mask.any()
            dead = table.view(seat, live=False)["action_mask"]
            assert dead.dtype == np.int8 and not dead.any()
        legal = table.legal_actions()
        table.step(legal[rng.randrange(len(legal))])


def test_views_are_new_arrays():
    table = Table(make_rules("classic"), 2, seed=5)
    view = table.view(table.current)
    view["observation"][:] = 7.0
    view["action_mask"][:] = 0
    again = table.view(table.current)
    assert again["action_mask"].any()
    assert not np.array_equal(again["observation"], view["observation"])


def test_mask_after_the_hand_is_all_zero():
    table = Table(make_rules("classic"), 2, seed=3)
    play_out(table, random.Random(3))
    assert not table.mask().any()
    for seat in table.seats:
        assert not table.view(seat)["action_mask"].any()


@pytest.mark.parametrize("action", [str_to_action("pass"), 499, str_to_action("meld A A A")])
def test_illegal_action_raises_and_changes_nothing(action):
    table = Table(make_rules("classic"), 2, seed=5)
    assert action not in table.legal_actions()
    before = state_snapshot(table.game)
    view = table.view(table.current)
    with pytest.raises(IllegalActionError):
        table.step(action)
    assert state_snapshot(table.game) == before
    after = table.view(table.current)
    for key in ("observation", "action_mask"):
        np.testing.assert_array_equal(after[key], view[key])


def test_copy_is_independent():
    table = Table(make_rules("classic"), 2, seed=5)
    twin = table.copy()
    assert same_state(twin.game, table.game)
    twin.step(twin.legal_actions()[0])
    assert not same_state(twin.game, table.game)
    assert table.game.num_steps == 0


# ---------------------------------------------------------------------------- search worlds
def swap_hidden_card(table: Table, seat: int) -> Table:
    """A twin that ``seat`` cannot tell apart: one card ``seat`` cannot see in the next
    seat's hand swapped with a stock card of another kind."""
    twin = table.copy()
    game = twin.game
    other = (seat + 1) % game.num_players
    hand, known = game.hands[other], game.known[other]
    unseen = [k for k in range(NUM_KINDS) if hand[k] > known[k]]
    for index, card in enumerate(game.stock):
        swap = next((k for k in unseen if k != card), None)
        if card != RED3 and swap is not None:
            hand[swap] -= 1
            hand[card] += 1
            game.stock[index] = swap
            game.state_changed()
            return twin
    raise AssertionError("no card to swap")


@pytest.mark.parametrize("steps", [0, 9, 30])
def test_world_for_depends_on_what_the_seat_sees_only(steps):
    table = Table(make_rules("classic"), 3, seed=11)
    rng = random.Random(11)
    for _ in range(steps):
        legal = table.legal_actions()
        table.step(legal[rng.randrange(len(legal))])
    seat = table.current
    twin = swap_hidden_card(table, seat)
    # positive control: the true games differ, and the seat sees the same in both
    assert not same_state(twin.game, table.game)
    for key, mine in table.view(seat).items():
        np.testing.assert_array_equal(mine, twin.view(seat)[key])
    world = table.world_for(seat, random.Random(99))
    assert same_state(world, twin.world_for(seat, random.Random(99)))
    # the world keeps the seat's view and deals the rest again
    assert world.hands[seat] == table.game.hands[seat]
    np.testing.assert_array_equal(ObservationBuilder(world).build(seat), table.observation(seat))
    assert (world.hands, world.stock) != (table.game.hands, table.game.stock)
    assert world is not table.game


def test_world_for_leaves_the_table_alone():
    table = Table(make_rules("classic"), 2, seed=5)
    before = state_snapshot(table.game)
    world = table.world_for(0, random.Random(1))
    world.apply(world.legal_actions()[0])
    assert state_snapshot(table.game) == before


def test_choose_action_gives_a_search_agent_a_world_not_the_game():
    class Searcher:
        rng = random.Random(4)
        seen = None

        def see_world(self, world):
            self.seen = world

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    table = Table(make_rules("classic"), 2, seed=5)
    agent = Searcher()
    view = table.view(table.current)
    action = table.choose_action(agent, view["observation"], view["action_mask"])
    assert action == table.legal_actions()[0]
    assert agent.seen is not None and agent.seen is not table.game
    want = table.world_for(table.current, random.Random(random.Random(4).getrandbits(64)))
    assert same_state(agent.seen, want)


# ---------------------------------------------------------------------------- batched
def random_actions(batch: BatchedTable, rng: random.Random) -> np.ndarray:
    actions = np.zeros(batch.num_tables, np.int64)
    for k in range(batch.num_tables):
        legal = np.flatnonzero(batch.mask[k])
        if len(legal):
            actions[k] = legal[rng.randrange(len(legal))]
    return actions


CASES = [
    ("classic", 2, "hand", "score", {}),
    ("spanish", 3, "hand", "win", {}),
    ("classic", 4, "game", "score", {"target_score": 1500}),
    ("classic", 2, "game", "win", {"target_score": 1500}),
]


@pytest.mark.parametrize(("variant", "players", "episode", "reward", "house"), CASES)
def test_batched_table_is_n_envs_stepped_one_by_one(variant, players, episode, reward, house):
    """Every step: each row's observation, mask and rewards equal those of an AEC env dealt
    with the row's seed and given the same actions; a new env where the episode ended."""
    rules = make_rules(variant, **house)
    batch = BatchedTable(rules, players, 3, reward=reward, episode=episode)
    batch.reset(seed=40)
    assert batch.deal_seeds == [40, 41, 42]
    assert batch.obs.dtype == np.float32 and batch.obs.shape == (3, OBS_SIZE)
    assert batch.mask.dtype == np.int8 and batch.mask.shape == (3, NUM_ACTIONS)

    def new_env(seed):
        env = canasta_env.raw_env(
            variant=rules, num_players=players, reward=reward, episode=episode
        )
        env.reset(seed=seed)
        return env

    envs = [new_env(seed) for seed in batch.deal_seeds]
    rng = random.Random(0)
    episodes = max_hand = 0
    for _ in range(700):
        max_hand = max(max_hand, *(table.game.hand_index for table in batch.tables))
        for k, env in enumerate(envs):
            seen = env.observe(env.agent_selection)
            assert batch.seat[k] == env.agent_name_mapping[env.agent_selection]
            np.testing.assert_array_equal(batch.obs[k], seen["observation"])
            np.testing.assert_array_equal(batch.mask[k], seen["action_mask"])
        actions = random_actions(batch, rng)
        batch.step(actions)
        for k, env in enumerate(envs):
            env.step(int(actions[k]))
            assert batch.rewards[k].tolist() == [env.rewards[name] for name in env.agents]
            over = all(env.terminations.values())
            assert batch.done[k] == over
            if over:
                episodes += 1
                assert batch.finished[k].outcome() == env.infos[env.agents[0]]
                envs[k] = new_env(batch.deal_seeds[k])
    assert episodes >= 3
    if episode == "game":  # some games went on to a second hand
        assert max_hand >= 1
    assert batch.engine.next_deal == 3 + episodes  # deals only where episodes ended


def test_batched_table_without_auto_deal_keeps_ended_rows():
    rules = make_rules("classic")
    batch = BatchedTable(rules, 2, 2, auto_deal=False)
    batch.reset(seed=3)  # table 0 is the seed-3 hand above, 180 steps
    rng = random.Random(1)
    ended_at = None
    for step in range(400):
        batch.step(random_actions(batch, rng))
        if batch.done[0]:
            ended_at = step
            ended = batch.tables[0]
            assert batch.finished[0] is ended and ended.hand_over
            assert not batch.mask[0].any()
            assert batch.rewards[0].tolist() == ended.seat_rewards()
        elif ended_at is not None:
            assert batch.tables[0] is ended and batch.finished[0] is None
            assert not batch.mask[0].any() and not batch.rewards[0].any()
        if batch.tables[0].hand_over and batch.tables[1].hand_over:
            break
    assert ended_at is not None


def test_batched_illegal_action_names_the_table_and_changes_nothing():
    batch = BatchedTable(make_rules("classic"), 2, 3)
    batch.reset(seed=0)
    before = [state_snapshot(table.game) for table in batch.tables]
    obs, mask = batch.obs.copy(), batch.mask.copy()
    actions = random_actions(batch, random.Random(0))
    actions[2] = str_to_action("pass")
    with pytest.raises(IllegalActionError, match="table 2"):
        batch.step(actions)
    assert [state_snapshot(table.game) for table in batch.tables] == before
    np.testing.assert_array_equal(batch.obs, obs)
    np.testing.assert_array_equal(batch.mask, mask)
    with pytest.raises(IllegalActionError, match="3 integer ids"):
        batch.step(actions[:2])


@pytest.mark.parametrize(
    ("players", "episode", "reward"), [(2, "hand", "score"), (3, "game", "win")]
)
def test_the_cores_batch_is_the_tables(players, episode, reward):
    """On the core the tables are one ``_core.Batch``: the same arrays as the Python
    engine's tables at every step, the same ended tables and deal seeds."""
    if not canasta_env.core.AVAILABLE:
        pytest.skip(canasta_env.core.WHY_NOT)
    rules = make_rules("classic", target_score=1500)
    batches = [
        BatchedTable(rules, players, 3, reward=reward, episode=episode, backend=backend)
        for backend in ("core", "python")
    ]
    core, python = batches
    assert core.batched and not python.batched
    for batch in batches:
        batch.reset(seed=7)
    rng = random.Random(0)
    ended = 0
    for _ in range(400):
        for name in ("obs", "mask", "seat", "rewards", "done"):
            a, b = getattr(core, name), getattr(python, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), name
        assert core.deal_seeds == python.deal_seeds
        for mine, theirs in zip(core.finished, python.finished):
            assert (mine is None) == (theirs is None)
            if mine is not None:
                ended += 1
                assert mine.outcome() == theirs.outcome()
        assert [t.current for t in core.tables] == [t.current for t in python.tables]
        actions = random_actions(python, rng)
        for batch in batches:
            batch.step(actions)
    assert ended >= 2


@pytest.mark.parametrize(
    ("argument", "value"), [("num_tables", 0), ("reward", "money"), ("episode", "set")]
)
def test_batched_table_refuses_bad_arguments(argument, value):
    arguments = {"num_tables": 2, "reward": "score", "episode": "hand", argument: value}
    with pytest.raises(ValueError, match=argument):
        BatchedTable(make_rules("classic"), 2, **arguments)


def test_env_plays_on_a_table():
    env = canasta_env.env(variant="classic", num_players=2)
    assert env.game is None
    env.reset(seed=3)
    assert isinstance(env.table, Table)
    assert env.game is env.table.game
