"""``canasta train``: reward credit, imitation data, a tiny run end to end, resume, evaluation."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.base import play_hands  # noqa: E402
from agents.network import NetAgent, load_agent  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from agents.reward import shaped_reward  # noqa: E402
from canasta_cli.train import main  # noqa: E402
from canasta_env.actions import NUM_ACTIONS  # noqa: E402
from canasta_env.engine.game import PHASE_HAND_OVER, Game  # noqa: E402
from canasta_env.observation import OBS_SIZE, ObservationBuilder  # noqa: E402
from canasta_env.rules import make_rules  # noqa: E402
from training import imitation, net  # noqa: E402
from training.ppo import gae  # noqa: E402
from training.rollout import (  # noqa: E402
    LEARNER,
    HandRunner,
    Recorder,
    collect,
    evaluate_deals,
    masked_choice,
    numpy_policy,
)
from training.run import make_config  # noqa: E402


@pytest.fixture(scope="module")
def policy():
    torch.manual_seed(0)
    model = net.build(OBS_SIZE, NUM_ACTIONS, [32])
    with torch.no_grad():  # a policy with opinions, not a near-uniform one
        model.pi.weight.mul_(300.0)
    return model, numpy_policy(net.actor_layers(model))


def test_hand_reward_counts_the_hand_won_and_a_clipped_margin():
    # (who won and the margin are the table's: tests/test_rollout_table.py)
    # team 0 scores 900, team 1 scores 400: won by 500
    assert shaped_reward(1, 500.0, 0.25) == 1 + 0.25 * 0.5
    assert shaped_reward(-1, -500.0, 0.25) == -1 - 0.25 * 0.5
    # a 4000-point margin is clipped at 2000
    assert shaped_reward(1, 4000.0, 0.25) == 1 + 0.25 * 2.0
    # three teams 500, 600, 100: team 0 lost, by 150 over the others' mean
    assert shaped_reward(-1, 150.0, 0.0) == -1
    assert shaped_reward(0, 0.0, 0.5) == 0.0


def test_masked_choice_never_picks_an_illegal_id():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(200, NUM_ACTIONS)).astype(np.float32) * 5
    masks = rng.random((200, NUM_ACTIONS)) < 0.02
    masks[:, 7] = True
    for sampler in (rng, None):
        actions, logp = masked_choice(logits, masks, sampler)
        assert masks[np.arange(200), actions].all()
        assert (logp <= 0).all()
    greedy, _ = masked_choice(logits, masks, None)
    assert (greedy == np.where(masks, logits, -np.inf).argmax(1)).all()


@pytest.mark.parametrize("batched", [False, True], ids=["tables", "batched"])
@pytest.mark.parametrize("players", [2, 4])
def test_reward_credit_goes_to_the_learner_team_only(policy, players, batched):
    """Replay each hand on the Python engine: the recorded decisions are exactly the learner
    seats' own, with their own observation, and the hand's result is the game's; on tables
    and on one batched table (its bots' twins seeded as the tables' bots)."""
    _, numpy_policy = policy
    runner = HandRunner(envs=4)
    deals = iter(range(100, 106))
    finished = []

    def make_slot():
        seed = next(deals, None)
        if seed is None:
            return None
        team = seed % 2
        teams = [("bot", "random")] * 2
        teams[team] = LEARNER
        return runner.new_slot(
            ("classic", players), teams, seed, "random", seed * 3, batched=batched
        )

    runner.run(
        make_slot, {"learner": numpy_policy}, np.random.default_rng(1), True, finished.append,
        batched=batched,
    )  # fmt: skip
    assert len(finished) == 6
    for slot in finished:
        ((team, traj),) = slot.traj.items()
        game = Game(make_rules("classic"), players, seed=slot.deal_seed)
        observer = ObservationBuilder(game)
        bots = {}
        for seat in range(players):
            if game.team_of[seat] != team:
                bots[seat] = make_agent("random", seed=slot.info["bot_seed"] + seat)
                bots[seat].reset(seat, players, "classic")
        steps = iter(traj)
        while game.phase != PHASE_HAND_OVER:
            seat = game.current
            obs = observer.build(seat)
            if game.team_of[seat] == team:
                recorded_seat, recorded_obs, mask, action, _, label = next(steps)
                assert label == -1  # no teacher shadows the learner here
                assert recorded_seat == seat
                assert np.array_equal(recorded_obs, obs)
                assert np.flatnonzero(mask).tolist() == game.legal_actions()
            else:
                mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
                mask[game.legal_actions()] = 1
                action = bots[seat].act(obs, mask)
            game.apply(int(action))
        assert next(steps, None) is None  # no decision of another seat was recorded
        totals = [sheet["total"] for sheet in game.hand_scores]
        assert totals == list(slot.result.points)
        if not batched:
            assert totals == slot.table.team_scores


def test_collect_puts_each_hand_reward_on_its_last_decision(policy):
    _, numpy_policy = policy
    runner = HandRunner(envs=8)
    data = collect(
        runner,
        600,
        [("classic", 2)],
        [1.0],
        [(LEARNER, 1.0)],
        {"learner": numpy_policy},
        [0, 1],
        0.25,
    )
    rewards, dones = data["rewards"], data["dones"]
    assert len(data["actions"]) >= 300  # about 600, in whole hands
    assert (rewards[~dones] == 0).all()
    assert dones[-1]
    ends = rewards[dones]
    # self-play at 2 players: each hand gives two trajectories with opposite rewards
    assert len(ends) % 2 == 0
    assert np.allclose(ends[0::2], -ends[1::2])
    masks = np.unpackbits(data["masks"], axis=1, count=NUM_ACTIONS).astype(bool)
    assert masks[np.arange(len(masks)), data["actions"]].all()


def test_step_cost_is_taken_at_every_learner_decision(policy):
    _, numpy_policy = policy
    args = ([("classic", 2)], [1.0], [(LEARNER, 1.0)], {"learner": numpy_policy}, [0, 1], 0.25)
    plain = collect(HandRunner(envs=4), 200, *args)
    costly = collect(HandRunner(envs=4), 200, *args, step_cost=0.01)
    assert np.array_equal(plain["actions"], costly["actions"])  # the same hands
    dones = costly["dones"]
    assert np.allclose(costly["rewards"][~dones], -0.01)
    assert np.allclose(costly["rewards"][dones], plain["rewards"][dones] - 0.01)
    # a trajectory's return is its hand's reward less the cost of each of its decisions
    ends = np.flatnonzero(dones)
    starts = np.concatenate([[0], ends[:-1] + 1])
    for start, end in zip(starts, ends):
        assert np.isclose(costly["rewards"][start : end + 1].sum(),
                          plain["rewards"][end] - 0.01 * (end - start + 1))  # fmt: skip


def test_kickstarting_labels_are_the_shadow_teachers_legal_moves(policy):
    _, numpy_policy = policy
    data = collect(
        HandRunner(envs=4), 200, [("classic", 4)], [1.0], [(("bot", "greedy"), 1.0)],
        {"learner": numpy_policy}, [0, 2], 0.25, teacher="expert",
    )  # fmt: skip
    labels = data["teacher"]
    masks = np.unpackbits(data["masks"], axis=1, count=NUM_ACTIONS).astype(bool)
    assert (labels >= 0).all()
    assert masks[np.arange(len(labels)), labels].all()
    # the shadow is a real opinion, not a copy of the learner's move
    assert 0 < (labels == data["actions"]).mean() < 1
    without = collect(
        HandRunner(envs=4), 50, [("classic", 2)], [1.0], [(("bot", "greedy"), 1.0)],
        {"learner": numpy_policy}, [0, 2], 0.25,
    )  # fmt: skip
    assert (without["teacher"] == -1).all()


def test_gae_with_terminal_rewards():
    rewards = np.array([0, 0, 1.0, 0, -1.0], dtype=np.float32)
    dones = np.array([False, False, True, False, True])
    values = np.array([0.5, 0.2, 0.1, 0.0, 0.3], dtype=np.float32)
    adv, returns = gae(rewards, dones, values, 1.0, 1.0)
    # lambda = gamma = 1: the return of every step is its trajectory's final reward
    assert np.allclose(returns, [1, 1, 1, -1, -1])
    assert np.allclose(adv, returns - values)


def test_imitation_data_round_trip(tmp_path):
    data = Recorder(envs=4).record(
        300, [("classic", 2)], [1.0], ["expert"], [("greedy", 1.0)], [0, 5], 0.25
    )
    n = len(data["actions"])
    assert 150 <= n <= 600 and data["obs"].shape == (n, OBS_SIZE)  # about 300 (whole hands)
    masks = np.unpackbits(data["masks"], axis=1, count=NUM_ACTIONS).astype(bool)
    assert masks[np.arange(n), data["actions"]].all()  # the teacher's moves are legal
    # won (>= 1), lost (<= -1) or tied (0), plus at most 0.25 * 2 for the margin
    returns = np.abs(data["returns"])
    assert (((returns >= 1) & (returns <= 1.5)) | (returns == 0)).all()
    path = tmp_path / "chunk000.npz"
    imitation.save_data(path, data)
    loaded = imitation.load_data([path])
    for key in ("obs", "masks", "actions", "returns"):
        assert np.array_equal(loaded[key], data[key])
    with pytest.raises(ValueError, match="record stage"):
        imitation.load_data([])


def test_identical_policies_split_duplicate_deals_evenly(policy):
    """Both seatings of a deal with the same greedy policy give the same game: one win and
    one loss (or two ties), so the learner's duplicate win rate is exactly one half."""
    _, numpy_policy = policy
    runner = HandRunner(envs=8)
    results = evaluate_deals(
        runner,
        ("classic", 2),
        ("snapshot", "same"),
        list(range(12)),
        {"learner": numpy_policy, "same": numpy_policy},
    )
    assert len(results) == 24
    by_deal: dict[int, list[int]] = {}
    for seed, outcome, _diff, _share in results:
        by_deal.setdefault(seed, []).append(outcome)
    assert all(sorted(v) in ([-1, 1], [0, 0]) for v in by_deal.values())
    wins = sum(share for *_, share in results)
    assert wins / len(results) == 0.5


def test_evaluation_in_worker_processes_matches_in_process(policy):
    """Training evaluation with --jobs 2 (spawned workers) gives the same hands as in process."""
    from training.rollout import WorkerPool

    model, _ = policy
    kwargs = {
        "layers": net.actor_layers(model),
        "table": ("classic", 2),
        "opponent": ("bot", "expert"),
        "deal_seeds": [5, 6, 7],
    }
    with WorkerPool(jobs=0, envs=4) as local:
        expected = local.map("evaluate", [dict(kwargs)])[0]
    with WorkerPool(jobs=2, envs=4) as pool:
        parts = pool.map(
            "evaluate", [dict(kwargs, deal_seeds=[5]), dict(kwargs, deal_seeds=[6, 7])]
        )
    assert sorted(r for part in parts for r in part) == sorted(expected)
    assert len(expected) == 6


def test_model_file_round_trip_and_numpy_agent(tmp_path, policy):
    model, _ = policy
    path = net.save(model, tmp_path / "m.npz", {"note": "test"})
    loaded = net.ModelFile(path)
    assert loaded.meta["note"] == "test" and loaded.obs_size == OBS_SIZE
    obs = np.random.default_rng(0).random((5, OBS_SIZE), dtype=np.float32)
    with torch.no_grad():
        expected, _ = model(torch.from_numpy(obs))
    assert np.allclose(numpy_policy(loaded.actor).logits(obs), expected.numpy(), atol=1e-4)
    agent = load_agent(path)
    assert isinstance(agent, NetAgent)
    (tmp_path / "bad.npz").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not a model file"):
        net.ModelFile(tmp_path / "bad.npz")


TINY = [
    "--record-steps", "400", "--bc-epochs", "1", "--ppo-steps", "1200",
    "--rollout-steps", "300", "--eval-every", "2", "--eval-deals", "2",
    "--jobs", "0", "--envs", "8", "--threads", "1", "--hidden", "32", "--no-progress",
]  # fmt: skip


def test_tiny_run_end_to_end_then_resume_matches_an_uninterrupted_run(tmp_path):
    """record -> imitate -> ppo -> model.npz that plays legal hands; a run stopped after
    two iterations and resumed ends with the same network as one run straight through."""
    straight = tmp_path / "straight"
    assert main(["--run-dir", str(straight), *TINY]) == 0
    for name in ("config.json", "imitation.npz", "model.npz", "checkpoint.pt", "curve.png"):
        assert (straight / name).exists(), name
    history = [json.loads(line) for line in (straight / "history.jsonl").read_text().splitlines()]
    assert history[0]["steps"] == 0 and history[-1]["steps"] >= 1200
    assert "classic-2p/expert" in history[-1]["eval"]
    agent = load_agent(straight)
    records = play_hands([agent, make_agent("random", seed=1)], 2, variant="classic", seed=3)
    assert all(r.end_reason for r in records)

    split = tmp_path / "split"
    args = TINY.copy()
    args[args.index("--ppo-steps") + 1] = "600"
    assert main(["--run-dir", str(split), *args]) == 0
    state = torch.load(split / "checkpoint.pt", weights_only=False)
    assert 600 <= state["steps"] < 1200
    assert main(["--resume", str(split), "--ppo-steps", "1200", "--no-progress"]) == 0
    a = net.ModelFile(straight / "model.npz").actor
    b = net.ModelFile(split / "model.npz").actor
    assert all(np.array_equal(x, y) for pair in zip(a, b) for x, y in zip(*pair))


def test_bad_arguments_give_one_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--run-dir", str(tmp_path / "r"), "--players", "5"])
    assert exit_info.value.code == 2
    assert "players must be among 2, 3, 4, 6" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--resume", str(tmp_path / "missing")])
    assert "not a run directory" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--run-dir", str(tmp_path / "r"), "--variant", "bridge"])
    assert "unknown variant 'bridge'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown bot"):
        make_config(teachers=["oracle"])


# ---------------------------------------------------------------------- frozen networks


def test_a_model_file_is_a_league_entry_played_frozen(tmp_path):
    """``ppo:MODEL`` in --opponents: a frozen network of the league (an exploiter's best.npz:
    the AlphaStar pattern); checked with the settings, refused when it cannot play there."""
    from agents.network import SHIPPED
    from canasta_cli.train import weights_of
    from training.league_pool import League
    from training.run import make_config

    model = f"ppo:{SHIPPED['classic-4p']}"
    weights = weights_of(f"self=0.5,{model}=0.25,expert")
    assert weights == {"self": 0.5, model: 0.25, "expert": 1.0}
    config = make_config(opponents=weights)
    assert League(config["opponents"], 4).entries() == [
        (("learner",), 0.5), (("frozen", model), 0.25), (("bot", "expert"), 1.0)
    ]  # fmt: skip
    (tmp_path / "bad.npz").write_bytes(b"no model")
    refused = {
        f"ppo:{tmp_path / 'bad.npz'}": "not a model file",
        f"ppo:{tmp_path / 'none.npz'}": "no model",
        "ppo:sb3-classic-2p": "only a .npz model file",
    }
    for name, said in refused.items():
        with pytest.raises(ValueError, match=said):
            make_config(opponents={"self": 1.0, name: 1.0})


def test_a_ppo_run_meets_its_frozen_network_and_the_workers_get_its_layers(tmp_path):
    from agents.network import SHIPPED
    from training.league import Trainer
    from training.rollout import WorkerPool
    from training.run import Run

    model = f"ppo:{SHIPPED['classic-2p']}"
    run = Run.open(
        tmp_path / "run",
        {
            "init": str(SHIPPED["classic-2p"]),
            "opponents": {model: 1.0},
            "rollout_steps": 300,
            "jobs": 0,
            "envs": 4,
            "threads": 1,
        },
    )
    with WorkerPool(jobs=0, envs=4) as pool:
        trainer = Trainer(run, pool)
        trainer.start_league()
        assert pool.broadcast("snapshots", {}) == [sorted(["s0", model])]
        batch = trainer.collect()
    assert {label for _table, label, _o, _d in batch["results"]} == {model}
    assert len(batch["actions"]) > 0
