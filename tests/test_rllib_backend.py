"""``canasta train --backend rllib`` (extra ``scale``): the env, the masked module, the
league it shares with the shipped recipe (the env's draw, the policy mapping), and a tiny
run whose exported policy plays in the arena and in ``canasta play``.

Runs on a local Ray instance with 2 CPUs; skipped when Ray is not installed.
"""

from __future__ import annotations

import io
import json
import socket

import numpy as np
import pytest

pytest.importorskip("ray", reason="Ray is not installed (extra 'scale': pip install -e '.[scale]')")
torch = pytest.importorskip("torch", reason="torch is not installed (extra 'train')")

from agents.model_file import ModelFile  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from canasta_arena.arena import run_arena  # noqa: E402
from canasta_cli import play as play_command  # noqa: E402
from canasta_cli.train import main as train_main  # noqa: E402
from training import rllib_backend as rb  # noqa: E402
from training.net import build, save  # noqa: E402

ENV = {"variant": "classic", "players": 2, "seed": 3, "opponents": {"self": 1.0}}


def _play_hand(env, policy):
    """One episode with ``policy(role, observation) -> action``; (roles seen, last step)."""
    observations, _ = env.reset(seed=11)
    seen = []
    while True:
        (role,) = observations  # exactly one agent is to move
        seen.append(role)
        action = policy(role, observations[role])
        observations, rewards, terminateds, truncateds, infos = env.step({role: action})
        if terminateds["__all__"]:
            return seen, (observations, rewards, infos)


def _first_legal(role, observation):
    return int(np.flatnonzero(observation["action_mask"])[0])


def test_env_hands_the_move_to_one_role_and_rewards_every_player_at_the_end():
    env = rb.CanastaMultiAgentEnv(ENV)
    seen, (observations, rewards, infos) = _play_hand(env, _first_legal)
    assert set(seen) == {"learner_0", "opponent_0@main"}
    assert set(rewards) == {"learner_0", "opponent_0@main"}
    # score difference rewards of two teams: outcomes +1 / -1 (or a tie), margins opposite
    assert infos["learner_0"]["outcome"] == -infos["opponent_0@main"]["outcome"]
    assert infos["learner_0"]["diff"] == -infos["opponent_0@main"]["diff"]
    assert all(not o["action_mask"].any() for o in observations.values())  # nothing to do
    # the same seed deals the same hand and seats the learner in the same team
    again = rb.CanastaMultiAgentEnv(ENV)
    assert _play_hand(again, _first_legal)[0] == seen


def test_env_runners_deal_different_hands():
    """RLlib resets env i of env runner w with seed + w + i: every env of every runner must
    still deal its own hands (a positive control shows the seeds alone collide)."""
    from ray.rllib.env.env_context import EnvContext

    def first_hand(worker: int, seed: int) -> tuple:
        env = rb.CanastaMultiAgentEnv(EnvContext(ENV, worker_index=worker))
        env.reset(seed=seed)
        return tuple(env.table.game.hands[0])

    runners, envs, base = 3, 8, ENV["seed"]
    seeds = [(w, base + w + i) for w in range(1, runners + 1) for i in range(envs)]
    assert len({seed for _, seed in seeds}) == envs + runners - 1  # the collisions are real
    assert len({first_hand(w, seed) for w, seed in seeds}) == runners * envs
    # the same runner and seed deal the same hand again
    assert first_hand(2, 7) == first_hand(2, 7)


def test_against_a_bot_only_the_learner_moves():
    env = rb.CanastaMultiAgentEnv({**ENV, "opponents": {"greedy": 1.0}})
    seen, (observations, rewards, infos) = _play_hand(env, _first_legal)
    assert set(seen) == {"learner_0"}
    assert set(rewards) == {"learner_0"} and infos["learner_0"]["opponent"] == "greedy"


def test_four_players_have_two_learner_seats():
    env = rb.CanastaMultiAgentEnv({**ENV, "players": 4})
    seen, _ = _play_hand(env, _first_legal)
    assert set(seen) == {"learner_0", "learner_1", "opponent_0@main", "opponent_1@main"}


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="player"):
        rb.CanastaMultiAgentEnv({**ENV, "players": 5})
    with pytest.raises(ValueError, match="2, 4 or 6 players"):
        rb.CanastaMultiAgentEnv({**ENV, "players": 3})


def test_the_module_never_picks_an_illegal_id():
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    env = rb.CanastaMultiAgentEnv(ENV)
    spec = RLModuleSpec(
        module_class=rb.MaskedPolicyModule,
        observation_space=env.observation_spaces["learner_0"],
        action_space=env.action_spaces["learner_0"],
        model_config={"hidden": [32]},
    )
    module = spec.build()
    observations, _ = env.reset(seed=5)
    (obs,) = observations.values()
    batch = {
        Columns.OBS: {
            "observations": torch.from_numpy(obs["observations"][None]),
            "action_mask": torch.from_numpy(obs["action_mask"][None]),
        }
    }
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
    legal = obs["action_mask"] > 0
    assert (logits[~torch.from_numpy(legal)] <= -1e8).all()
    assert (logits[torch.from_numpy(legal)] > -1e8).all()
    values = module.compute_values(batch)
    assert values.shape == (1,)


def test_the_env_and_the_shipped_rollout_draw_the_same_opponent_from_one_league():
    """One league (training.league_pool): for the same draw, the RLlib env seats the
    opponent the shipped recipe's collect() would (a bot, the learner, a snapshot), and
    the policy mapping plays it with the module that holds it."""
    from training.league_pool import League, choose, label, pick

    weights = {"self": 0.3, "snapshot": 0.2, "expert": 0.25, "greedy": 0.15, "random": 0.1}
    pairs = [["s0", "snapshot_1"], ["s5", "snapshot_0"]]  # oldest first, modules reused
    league = League(weights, 2, [key for key, _ in pairs])
    env = rb.CanastaMultiAgentEnv(
        {**ENV, "players": 4, "opponents": weights, "max_snapshots": 2, "snapshots": pairs}
    )
    seen = set()
    for seed in range(60):
        env.reset(seed=seed)
        # the shipped collect() draws with training.league_pool.choose: the same pick
        shipped = pick(league.entries(), env.draw)
        assert env.opponent == shipped
        seen.add(label(shipped))
        modules = {rb.module_for(role) for role in env.role_of.values() if "@" in role}
        if shipped[0] == "bot":
            assert not modules and len(env.bots) == 2
        else:
            assert modules == {"main" if shipped[0] == "learner" else dict(pairs)[shipped[1]]}
        assert all(rb.module_for(r) == "main" for r in env.role_of.values() if "learner" in r)
    assert seen == {"self", "s0", "s5", "expert", "greedy", "random"}
    # choose() is the draw numpy's rng.choice made before the league was shared
    for seed in range(200):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        entries = league.entries()
        shares = np.array([w for _, w in entries]) / sum(w for _, w in entries)
        assert choose(entries, a) == entries[int(b.choice(len(entries), p=shares))][0]


def test_the_league_admits_on_evaluation_and_drops_the_oldest():
    from training.league_pool import League

    league = League({"snapshot": 1.0}, 2, ["s0"])
    assert not league.admits({"classic-2p/snapshot": {"win_rate": 0.5}})
    assert not league.admits({"classic-2p/expert": {"win_rate": 0.9}})
    assert league.admits({"classic-2p/snapshot": {"win_rate": 0.6}})
    assert league.admit("s5") == [] and league.admit("s9") == ["s0"]
    assert league.snapshots == ["s5", "s9"] and league.newest == "s9"


def test_an_rllib_run_of_the_former_league_is_refused_naming_its_settings(tmp_path, capsys):
    run = tmp_path / "old"
    run.mkdir()
    old = {k: v for k, v in rb.DEFAULTS.items() if k not in ("max_snapshots", "eval_every")}
    old.update(snapshots=2, snapshot_every=5)
    (run / "rllib_config.json").write_text(json.dumps(old))
    assert train_main(["--backend", "rllib", "--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert "snapshots, snapshot_every" in err and "max_snapshots and eval_every" in err


def test_bad_settings_are_refused_before_any_run(tmp_path, capsys):
    run = tmp_path / "run"
    argv = ["--backend", "rllib", "--run-dir", str(run)]
    # the league's names, as canasta train's --opponents
    assert train_main(argv + ["--opponents", "self=1,exprt=1"]) == 2
    assert "unknown league entry 'exprt' (did you mean 'expert'?)" in capsys.readouterr().err
    assert train_main(argv + ["--opponents", "self=0"]) == 2
    assert "opponents must have a positive sum" in capsys.readouterr().err
    assert train_main(argv + ["--ppo-steps", "0"]) == 2
    assert "--ppo-steps must be at least 1" in capsys.readouterr().err
    assert train_main(argv + ["--players", "3"]) == 2
    assert "canasta train: error: " in capsys.readouterr().err
    with socket.socket() as probe:  # a port where nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert train_main(argv + ["--ray", f"127.0.0.1:{port}"]) == 2
    assert "no Ray cluster answers there" in capsys.readouterr().err
    assert not run.exists()


def test_a_tiny_run_trains_exports_and_plays(local_ray, tmp_path, capsys):
    init = tmp_path / "init.npz"
    torch.manual_seed(0)
    save(build(686, 500, [32]), init)
    run = tmp_path / "run"
    argv = ["--backend", "rllib", "--run-dir", str(run), "--hidden", "32", "--init", str(init)]
    argv += ["--ppo-steps", "400", "--rollout-steps", "200", "--minibatch", "100"]
    argv += ["--epochs", "2", "--env-runners", "1", "--eval-every", "1", "--eval-deals", "2"]
    argv += ["--opponents", "self=1,snapshot=1,random=1", "--eval-hands", "2"]
    argv += ["--no-progress"]
    assert train_main(argv) == 0
    history = [json.loads(line) for line in (run / "history.jsonl").read_text().splitlines()]
    assert history[-1]["env_steps"] >= 400 and history[-1]["env_steps_per_s"] > 0
    # the export is the project's model format, trained away from its start
    before, after = ModelFile(init), ModelFile(run / "model.npz")
    assert after.meta["trainer"] == "rllib" and after.meta["hidden"] == [32]
    assert [w.shape for w, _ in after.actor] == [w.shape for w, _ in before.actor]
    assert any(not np.array_equal(a, b) for (a, _), (b, _) in zip(after.actor, before.actor))
    # the league evaluated main against the newest snapshot each iteration; league.json
    # names the modules of its snapshots (s0: the start)
    assert all(set(row["eval"]) == {"classic-2p/snapshot"} for row in history)
    league = json.loads((run / "league.json").read_text())["snapshots"]
    assert league[0][0] in ("s0", "s1") and all(m.startswith("snapshot_") for _, m in league)
    assert [key for key, _ in league] == history[-1]["league"]
    evaluation = json.loads((run / "evaluation.json").read_text())
    assert set(evaluation) == {"random", "greedy", "expert"}
    assert all(row["hands"] == 2 for row in evaluation.values())
    # it plays in the arena and in canasta play under ppo:PATH
    name = f"ppo:{run / 'model.npz'}"
    assert make_agent(name).meta["trainer"] == "rllib"
    result = run_arena([name, "random"], num_players=2, hands=2, seed=1, plot=False)
    assert len(result.hands) == 2
    output = io.StringIO()
    argv = ["--players", "2", "--opponents", name, "--seed", "1", "--no-color"]
    assert play_command.main(argv, input_fn=lambda prompt: "1", output=output) == 0
    assert "hand over:" in output.getvalue()
    # --resume continues from the checkpoint; its rate counts this session's steps only
    done = history[-1]["env_steps"]
    resume = ["--backend", "rllib", "--resume", str(run)]
    assert train_main(resume + ["--hidden", "64", "--players", "4"]) == 2  # refused, nothing run
    assert "players, hidden cannot change" in capsys.readouterr().err
    # RLlib restores its checkpoint with pickle: not without the user's opt-in, whether
    # the folder is named by --resume or by --run-dir
    assert train_main(resume + ["--ppo-steps", "800"]) == 2
    assert "--trust-pickle" in capsys.readouterr().err
    assert train_main(["--backend", "rllib", "--run-dir", str(run), "--ppo-steps", "800"]) == 2
    assert "--trust-pickle" in capsys.readouterr().err
    resume.append("--trust-pickle")
    assert train_main(resume + ["--ppo-steps", "800"]) == 0
    resumed = [json.loads(line) for line in (run / "history.jsonl").read_text().splitlines()]
    new = resumed[len(history) :]
    assert new and new[0]["iteration"] == history[-1]["iteration"] + 1
    assert new[-1]["env_steps"] >= 800
    for row in new:  # rate x time = this session's steps (both are rounded in the file)
        assert 0 < row["env_steps_per_s"] * row["seconds"] <= 1.1 * (row["env_steps"] - done)


def test_a_run_saved_with_the_former_epochs_key_resumes_with_it_as_ppo_epochs(tmp_path):
    """RLlib's ``epochs`` is ``ppo_epochs`` now (training/config.py, canasta train's name):
    an ``rllib_config.json`` written before keeps its value, and its other settings too."""
    from canasta_cli.train import build_rllib_parser

    run = tmp_path / "run"
    run.mkdir()
    saved = {k: v for k, v in rb.DEFAULTS.items() if k != "ppo_epochs"}
    saved.update(epochs=3, hidden=[256, 256], lr=5e-4)  # values the former defaults wrote
    (run / "rllib_config.json").write_text(json.dumps(saved))
    args = build_rllib_parser().parse_args(["--resume", str(run), "--ppo-steps", "1000"])
    settings = rb.run_settings(args)
    assert settings["ppo_epochs"] == 3 and "epochs" not in settings
    assert settings["hidden"] == [256, 256] and settings["lr"] == 5e-4
    assert settings["ppo_steps"] == 1000
    # and a changed --epochs (--ppo-epochs) of a resumed run is refused as before
    args = build_rllib_parser().parse_args(["--resume", str(run), "--epochs", "5"])
    with pytest.raises(ValueError, match="ppo_epochs cannot change"):
        rb.run_settings(args)


def test_a_frozen_network_in_the_league_is_refused_on_rllib():
    """``--opponents ppo:MODEL`` plays in canasta train's league only: the RLlib backend
    says so before anything runs (its league has no frozen networks); the same settings
    without it pass (positive control)."""
    from agents.network import SHIPPED

    settings = json.loads(json.dumps(rb.DEFAULTS))
    rb.check_settings(settings)
    settings["opponents"] = {"self": 1.0, f"ppo:{SHIPPED['classic-2p']}": 1.0}
    with pytest.raises(ValueError, match="not on the RLlib backend"):
        rb.check_settings(settings)
