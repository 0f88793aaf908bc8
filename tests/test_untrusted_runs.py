"""A run directory from elsewhere is data (issue 21): ``canasta train --resume RUN`` loads
its checkpoint without running code, a truncated checkpoint or config is one line that names
the file and the way out, and a refused change of a setting leaves the run as it was."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from canasta_cli.train import main  # noqa: E402
from canasta_env.actions import NUM_ACTIONS  # noqa: E402
from canasta_env.observation import OBS_SIZE  # noqa: E402
from tests.train_refusals import train_refused as _refused  # noqa: E402
from training import net  # noqa: E402
from training.config import DEFAULTS, INT_RANGES, SettingError, check  # noqa: E402
from training.run import checkpoint_bound, make_config  # noqa: E402

FILES = ("config.json", "checkpoint.pt", "checkpoint.prev.pt", "train.log", "history.jsonl")


@pytest.fixture(scope="module")
def base_run(tmp_path_factory):
    """A tiny PPO run (no record or imitate stage: it starts from a small model file), two
    iterations with a checkpoint after each; started with a time limit of its session."""
    folder = tmp_path_factory.mktemp("untrusted")
    torch.manual_seed(0)
    init = net.save(net.build(OBS_SIZE, NUM_ACTIONS, [16]), folder / "init.npz")
    run = folder / "run"
    argv = [
        "--run-dir", str(run), "--init", str(init), "--ppo-steps", "200",
        "--rollout-steps", "100", "--eval-every", "1", "--eval-deals", "2", "--jobs", "0",
        "--envs", "4", "--threads", "1", "--time-limit", "600", "--no-progress",
    ]  # fmt: skip
    assert main(argv) == 0
    return run


@pytest.fixture
def run(base_run, tmp_path):
    return shutil.copytree(base_run, tmp_path / "run")


def _snapshot(run) -> dict:
    return {name: (run / name).read_bytes() for name in FILES if (run / name).exists()}


class _Payload:
    """Unpickled, it creates ``marker`` (``open(marker, "w")``): code run by loading."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


# ---------------------------------------------------------------------- checkpoints
def test_the_checkpoint_holds_tensors_and_plain_values_and_keeps_the_one_before(base_run):
    state = torch.load(base_run / "checkpoint.pt", weights_only=True)
    assert state["steps"] >= 200 and state["iteration"] == 2
    assert all(isinstance(layer, torch.Tensor) for snap in state["snapshots"] for layer in snap[0])
    league = json.loads(state["league"])
    assert league["rng"]["bit_generator"] == "PCG64" and len(league["snapshots"]) >= 1
    prev = torch.load(base_run / "checkpoint.prev.pt", weights_only=True)
    assert prev["iteration"] == 2  # the last in-loop save; the final save renamed over it
    assert not list(base_run.glob("*.tmp"))


def test_resume_continues_from_a_checkpoint_loaded_as_data(run, capsys):
    assert main(["--resume", str(run), "--ppo-steps", "300", "--no-progress"]) == 0
    state = torch.load(run / "checkpoint.pt", weights_only=True)
    assert state["steps"] >= 300 and state["iteration"] == 3
    assert "[ppo] resumed at iteration 2" in capsys.readouterr().err


def test_a_checkpoint_with_a_pickle_payload_is_refused_and_runs_nothing(run, tmp_path, capsys):
    marker = tmp_path / "marker"
    payload = tmp_path / "payload.pt"
    torch.save({"format": "canasta-ppo-checkpoint-2", "model": _Payload(marker)}, payload)
    shutil.copyfile(payload, run / "checkpoint.pt")
    line = _refused(["--resume", str(run), "--no-progress"], capsys)
    assert not marker.exists()
    assert str(run / "checkpoint.pt") in line and "could run code" in line
    assert "io.open" in line
    # positive control: the same file, loaded the old way, does run its code
    elsewhere = tmp_path / "control"
    elsewhere.mkdir()
    shutil.copyfile(payload, elsewhere / "checkpoint.pt")
    loaded = torch.load(elsewhere / "checkpoint.pt", weights_only=False)
    loaded["model"].close()
    assert marker.exists()


def test_a_checkpoint_of_the_old_format_is_refused_with_the_way_out(run, capsys):
    # what the trainer wrote before: numpy arrays among the values (unpickled as objects)
    old = {"model": {}, "steps": 5, "snapshots": [("s0", [(np.zeros((2, 2)), np.zeros(2))])]}
    torch.save(old, run / "checkpoint.pt")
    (run / "checkpoint.prev.pt").unlink()
    line = _refused(["--resume", str(run), "--no-progress"], capsys)
    assert str(run / "checkpoint.pt") in line and "written before" in line
    assert "remove it to start the ppo stage over" in line


@pytest.mark.parametrize("cut", [0, 1000, -100])
def test_a_truncated_checkpoint_names_the_file_and_the_one_kept_before(run, capsys, cut):
    data = (run / "checkpoint.pt").read_bytes()
    (run / "checkpoint.pt").write_bytes(data[:cut])
    line = _refused(["--resume", str(run), "--no-progress"], capsys)
    assert f"checkpoint {run / 'checkpoint.pt'} is truncated or corrupt" in line
    assert f"the previous one is kept at {run / 'checkpoint.prev.pt'}" in line
    # the way out works
    (run / "checkpoint.prev.pt").replace(run / "checkpoint.pt")
    assert main(["--resume", str(run), "--no-progress"]) == 0


def _no_history(state):
    league = json.loads(state["league"])
    league["history"] = [{"iteration": 1, "steps": "many", "eval": {}}]
    state["league"] = json.dumps(league)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda state: state.update(model={k: torch.zeros(3) for k in state["model"]}),
        lambda state: state.update(torch_rng=torch.zeros(3)),
        lambda state: state.update(league="{"),
        lambda state: state.update(snapshots=[]),
        _no_history,
    ],
    ids=["network", "torch-rng", "league-json", "snapshots", "history"],
)
def test_a_checkpoint_that_does_not_fit_the_run_is_one_line(run, capsys, tamper):
    state = torch.load(run / "checkpoint.pt", weights_only=True)
    tamper(state)
    torch.save(state, run / "checkpoint.pt")
    line = _refused(["--resume", str(run), "--no-progress"], capsys)
    assert f"checkpoint {run / 'checkpoint.pt'} does not fit this run" in line
    assert "checkpoint.prev.pt: rename it to checkpoint.pt" in line


def _deflated_storage(path, size: int) -> None:
    """``path`` (a torch checkpoint) with its first tensor storage replaced by ``size`` zero
    bytes, deflated: what a 2 MB file holding a 2 GiB storage looks like."""
    with zipfile.ZipFile(path) as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    storage = next(info.filename for info, _ in members if "/data/" in info.filename)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as target:
        for info, data in members:
            if info.filename != storage:
                target.writestr(info.filename, data)
                continue
            with target.open(storage, "w", force_zip64=True) as stream:
                zeros = bytes(2**22)
                for _ in range(size // len(zeros)):
                    stream.write(zeros)


def test_a_checkpoint_whose_storage_unpacks_to_gigabytes_is_refused_unread(run, capsys):
    path = run / "checkpoint.pt"
    _deflated_storage(path, 2**28)
    assert path.stat().st_size < 2**21
    kept = {name: (run / name).read_bytes() for name in ("checkpoint.pt", "checkpoint.prev.pt")}
    line = _refused(["--resume", str(run), "--no-progress"], capsys)
    assert f"checkpoint {path}: its members unpack to more than" in line
    assert "checkpoint.prev.pt: rename it to checkpoint.pt" in line
    assert {name: (run / name).read_bytes() for name in kept} == kept
    (run / "checkpoint.prev.pt").replace(path)  # the way out works
    assert main(["--resume", str(run), "--no-progress"]) == 0


def test_the_checkpoint_bound_follows_the_network_and_stays_small_for_the_default_one():
    sizes = [OBS_SIZE, *make_config()["hidden"], NUM_ACTIONS]
    default_network = 4 * sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))
    bound = checkpoint_bound(default_network, make_config()["max_snapshots"])
    assert 11 * default_network < bound < 128 * 2**20
    assert checkpoint_bound(2 * default_network, 8) - bound == 11 * default_network


def test_an_init_model_ppo_cannot_train_is_refused_before_writing(tmp_path, capsys):
    torch.manual_seed(0)
    small = net.save(net.build(OBS_SIZE, NUM_ACTIONS - 1, [4]), tmp_path / "small.npz")
    run = tmp_path / "new"
    line = _refused(["--run-dir", str(run), "--init", str(small), "--no-progress"], capsys)
    assert f"model file {small}: num_actions {NUM_ACTIONS - 1} is not the table's" in line
    assert not run.exists()


# ---------------------------------------------------------------------- config.json
def test_a_truncated_config_is_one_line_naming_it(run, capsys):
    data = (run / "config.json").read_bytes()
    (run / "config.json").write_bytes(data[: len(data) // 2])
    line = _refused(["--resume", str(run), "--no-progress"], capsys)
    assert f"run config {run / 'config.json'}" in line and "truncated or corrupt" in line
    (run / "config.json").write_text("[1, 2]")
    line = _refused(["--resume", str(run), "--no-progress"], capsys)
    assert f"run config {run / 'config.json'}: not a JSON object" in line


def test_a_config_with_a_setting_out_of_range_is_refused_and_can_be_mended(run, capsys):
    # what `--resume RUN --eval-every 0` wrote before: every later --resume crashed
    config = json.loads((run / "config.json").read_text())
    config["eval_every"] = 0
    (run / "config.json").write_text(json.dumps(config))
    line = _refused(["--resume", str(run), "--no-progress"], capsys)
    config_json = run / "config.json"
    assert (
        f"run config {config_json}: eval_every must be at least 1 and at most 1,000,000, got 0"
        in line
    )
    assert main(["--resume", str(run), "--eval-every", "3", "--no-progress"]) == 0
    assert json.loads((run / "config.json").read_text())["eval_every"] == 3


@pytest.mark.parametrize(
    ("init", "said"),
    [
        ("$(touch pwned)", "init must be a model file's path (.npz or .zip), got '$(touch pwned)'"),
        ("pwned.sh", "init must be a model file's path (.npz or .zip), got 'pwned.sh'"),
        (["a.npz"], "init must be a model file's path (.npz or .zip), got ['a.npz']"),
        ("/nowhere/model.npz", "init /nowhere/model.npz: no model file there"),
        ("/", "init must be a model file's path"),
        ("x" * 300 + ".npz", "init " + "x" * 20),
    ],
)
def test_a_config_whose_init_names_no_model_file_is_refused_by_name(run, capsys, init, said):
    """``init`` was any string (a shell command, once the config was written elsewhere):
    it names an existing regular model file, or the resume is refused and nothing written."""
    config = json.loads((run / "config.json").read_text())
    config["init"] = init
    (run / "config.json").write_text(json.dumps(config))
    before = _snapshot(run)
    line = _refused(["--resume", str(run), "--no-progress"], capsys)
    assert line.startswith(f"canasta train: error: run config {run / 'config.json'}: {said}")
    assert len(line) < len(str(run)) + 250  # a long value is cut short
    assert _snapshot(run) == before


def test_a_config_whose_init_is_a_model_file_resumes(run, tmp_path):
    """The positive control: the init a run was made with, or another model file."""
    config = json.loads((run / "config.json").read_text())
    assert config["init"].endswith("init.npz") and Path(config["init"]).is_file()
    with pytest.raises(SettingError, match="no model file there"):
        check("init", str(tmp_path / "gone.npz"))
    check("init", config["init"])
    check("init", None)


@pytest.mark.parametrize(
    ("key", "value", "bound"),
    [
        ("rollout_steps", 10**12, "at least 1 and at most 1,048,576"),
        ("minibatch", 10**12, "at least 1 and at most 1,048,576"),
        ("record_steps", 10**15, "at least 1 and at most 10,000,000"),
        ("envs", 10**9, "at least 1 and at most 4,096"),
        ("max_snapshots", 10**6, "at least 1 and at most 64"),
        ("eval_deals", 10**9, "at least 1 and at most 100,000"),
        ("ppo_epochs", 10**9, "at least 1 and at most 1,000"),
        ("hidden", [10**9], "a model file holds at most 67,108,864"),
    ],
)
def test_a_resumed_config_keeps_the_ranges_of_the_command_line(run, capsys, key, value, bound):
    """``rollout_steps`` 10**12 in a saved config grew a batch until a MemoryError."""
    config = json.loads((run / "config.json").read_text())
    config[key] = value
    (run / "config.json").write_text(json.dumps(config))
    before = _snapshot(run)
    line = _refused(["--resume", str(run), "--no-progress"], capsys)
    assert f"run config {run / 'config.json'}: {key}" in line and bound in line
    assert _snapshot(run) == before
    # the command line refuses the same value with the same words
    option = "--" + key.replace("_", "-")
    given = ",".join(map(str, value)) if isinstance(value, list) else str(value)
    if option in ("--minibatch", "--max-snapshots", "--eval-deals", "--ppo-epochs"):
        with pytest.raises(ValueError, match=f"{key}.*{re.escape(bound)}"):
            make_config(**{key: value})
        return
    line = _refused(["--run-dir", str(run.parent / "new"), option, given, "--no-progress"], capsys)
    assert bound in line and not (run.parent / "new").exists()


def test_every_whole_number_setting_has_a_greatest_value(tmp_path):
    for key, (least, greatest) in INT_RANGES.items():
        if key not in DEFAULTS:  # RLlib's own (env_runners, ...): the table's check alone
            check(key, greatest)
            check(key, least)
            with pytest.raises(ValueError, match=f"^{key} must be at least {least}"):
                check(key, greatest + 1)
            continue
        assert make_config(**{key: greatest})[key] == greatest
        assert make_config(**{key: least})[key] == least
        with pytest.raises(ValueError, match=f"^{key} must be at least {least}"):
            make_config(**{key: greatest + 1})


BAD_OVERRIDES = [
    ["--eval-every", "0"],
    ["--eval-every", "-2"],
    ["--eval-deals", "0"],
    ["--envs", "0"],
    ["--threads", "0"],
    ["--jobs", "-1"],
    ["--ppo-steps", "0"],
    ["--kick-steps", "-1"],
    ["--kick-coef", "-0.5"],
    ["--kick-coef", "nan"],
    ["--lr", "0"],
    ["--lr", "-1e-4"],
    ["--lr", "inf"],
    ["--time-limit", "-5"],
    ["--opponents", "expert=-1"],
    ["--opponents", "self=0,expert=0"],
    ["--opponents", "expert=x"],
    ["--opponents", "oracle=1"],
    ["--table-weights", "0"],
    ["--table-weights", "1,2"],
    ["--table-weights", "a"],
]


def test_a_refused_override_changes_nothing_on_disk(run, capsys):
    before = _snapshot(run)
    for override in BAD_OVERRIDES:
        line = _refused(["--resume", str(run), *override, "--no-progress"], capsys)
        assert _snapshot(run) == before, (override, line)
    assert main(["--resume", str(run), "--no-progress"]) == 0  # and the run still resumes


@pytest.mark.parametrize("override", BAD_OVERRIDES + [["--bc-epochs", "0"]])
def test_a_new_run_refuses_the_same_values_before_writing(tmp_path, capsys, override):
    run = tmp_path / "new"
    tiny = ["--record-steps", "50", "--bc-epochs", "1", "--ppo-steps", "50", "--jobs", "0"]
    tiny += ["--rollout-steps", "50", "--envs", "2", "--threads", "1", "--eval-deals", "1"]
    _refused(["--run-dir", str(run), *tiny, *override, "--no-progress"], capsys)
    assert not run.exists()


def test_make_config_checks_every_range():
    for key, value in [
        ("eval_every", 0), ("rollout_steps", 0), ("minibatch", 0), ("ppo_epochs", 0),
        ("record_chunk", 0), ("bc_batch", 0), ("max_snapshots", 0), ("seed", -1),
        ("seed", 2**64), ("gamma", 1.5), ("gae_lambda", -0.1), ("clip", 0.0), ("bc_lr", 0.0),
        ("max_grad_norm", 0.0), ("ent_coef", -1.0), ("vf_coef", float("nan")),
        ("score_coef", -1.0), ("eval_every", 2.5), ("envs", True), ("hidden", [0]),
        ("record_opponents", {"expert": -1.0}), ("teachers", []),
    ]:  # fmt: skip
        with pytest.raises(ValueError, match=key.split("_")[0]):
            make_config(**{key: value})
    assert make_config(gamma=1.0, kick_steps=0, jobs=0)["gamma"] == 1.0


def test_the_time_limit_belongs_to_one_session(base_run, run, capsys):
    assert "time_limit" not in json.loads((base_run / "config.json").read_text())
    before = (run / "config.json").read_bytes()
    assert main(["--resume", str(run), "--time-limit", "300", "--no-progress"]) == 0
    assert (run / "config.json").read_bytes() == before
    # a config saved by the code before, with a time limit: a resume does not inherit it
    config = json.loads(before)
    config["time_limit"] = 0.001
    (run / "config.json").write_text(json.dumps(config))
    assert main(["--resume", str(run), "--ppo-steps", "300", "--no-progress"]) == 0
    assert "time limit" not in capsys.readouterr().err
    assert torch.load(run / "checkpoint.pt", weights_only=True)["steps"] >= 300


# ---------------------------------------------------------------------- RLlib backend
def _rllib_run(tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed (extra 'scale')")
    from training import rllib_backend as rb

    run = tmp_path / "rllib"
    run.mkdir()
    (run / "rllib_config.json").write_text(json.dumps(rb.DEFAULTS, indent=1) + "\n")
    return run


def test_rllib_resume_refuses_bad_overrides_before_writing(tmp_path, capsys):
    run = _rllib_run(tmp_path)
    before = (run / "rllib_config.json").read_bytes()
    for override in [
        ["--checkpoint-every", "0"], ["--lr", "0"], ["--lr", "nan"], ["--ent-coef", "-1"],
        ["--env-runners", "-1"], ["--envs-per-runner", "0"], ["--eval-every", "0"],
        ["--eval-hands", "0"], ["--ppo-steps", "0"], ["--opponents", "expert=-1"],
        ["--opponents", "expert=x"], ["--opponents", "exprt=1"], ["--max-snapshots", "0"],
        ["--eval-deals", "0"],
    ]:  # fmt: skip
        assert main(["--backend", "rllib", "--resume", str(run), *override]) == 2, override
        err = capsys.readouterr().err
        assert err.startswith("canasta train: error:") and err.count("\n") == 1, err
        assert (run / "rllib_config.json").read_bytes() == before
        assert sorted(p.name for p in run.iterdir()) == ["rllib_config.json"]


def test_rllib_resume_reads_its_config_as_data(tmp_path, capsys):
    run = _rllib_run(tmp_path)
    path = run / "rllib_config.json"
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    assert main(["--backend", "rllib", "--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"RLlib run config {path}" in err and err.count("\n") == 1
    config = json.loads(text)
    config["gamma"] = "1.0; import os"
    path.write_text(json.dumps(config))
    assert main(["--backend", "rllib", "--resume", str(run)]) == 2
    assert "gamma" in capsys.readouterr().err
    config = json.loads(text)
    del config["lr"]
    path.write_text(json.dumps(config))
    assert main(["--backend", "rllib", "--resume", str(run)]) == 2
    assert "lr" in capsys.readouterr().err
