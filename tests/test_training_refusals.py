"""What ``canasta train`` refuses in one line rather than a traceback or a broken run: a
recorded data chunk that is not what the recorder writes, a checkpoint that reads but does
not fit the run, settings that can only diverge, a network that diverged (nothing written
from it), an init model that overflows; and the hidden widths an init model fixes."""

from __future__ import annotations

import dataclasses
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.model_file import ModelFile, write_model  # noqa: E402
from canasta_cli.train import main  # noqa: E402
from canasta_env.observation import OBS_SIZE  # noqa: E402
from tests.train_refusals import train_refused as _refused  # noqa: E402
from training import config as training_config  # noqa: E402
from training import imitation  # noqa: E402
from training.config import DEFAULTS, SettingError, check  # noqa: E402
from training.ppo import TrainingDiverged, init_model  # noqa: E402
from training.run import RunFileError, make_config  # noqa: E402

TINY = ["--eval-every", "1", "--eval-deals", "2", "--jobs", "0", "--envs", "8", "--threads", "1"]
TINY += ["--no-progress"]
#: The files of a run that a refusal must leave as they were.
KEPT = ("model.npz", "best.npz", "checkpoint.pt", "imitation.npz", "history.jsonl")


@pytest.fixture(scope="module")
def base_run(tmp_path_factory):
    """A finished tiny run of every stage (one recorded chunk), hidden [32]."""
    run = tmp_path_factory.mktemp("refusals") / "run"
    argv = ["--run-dir", str(run), "--record-steps", "1500", "--bc-epochs", "2", "--hidden", "32"]
    argv += ["--ppo-steps", "600", "--rollout-steps", "256", *TINY]
    assert main(argv) == 0
    return run


@pytest.fixture
def run(base_run, tmp_path):
    return Path(shutil.copytree(base_run, tmp_path / "run"))


def _files(run: Path) -> dict:
    return {name: (run / name).read_bytes() for name in KEPT if (run / name).exists()}


# ---------------------------------------------------------------------- 1. data chunks
def _truncate(path: Path) -> None:
    with open(path, "r+b") as file:
        file.truncate(5000)


def _rewrite(change):
    def mutate(path: Path) -> None:
        data = dict(np.load(path))
        change(data)
        np.savez(path, **data)

    return mutate


def _set(key, index, value):
    return _rewrite(lambda data: data[key].__setitem__(index, value))


BAD_CHUNKS = {
    "truncated": (_truncate, "not a zip archive"),
    "obs 1-D": (_rewrite(lambda d: d.update(obs=d["obs"].ravel())), "not one observation a"),
    "obs float64": (
        _rewrite(lambda d: d.update(obs=d["obs"].astype(np.float64))),
        "member 'obs.npy' holds float64",
    ),
    "obs of 10 columns": (
        _rewrite(lambda d: d.update(obs=d["obs"][:, :10].copy())),
        "member 'obs.npy' holds float32",
    ),
    "short returns": (
        _rewrite(lambda d: d.update(returns=d["returns"][:10].copy())),
        "member 'returns.npy' holds float32 (10,)",
    ),
    "float actions": (
        _rewrite(lambda d: d.update(actions=d["actions"].astype(np.float32))),
        "member 'actions.npy' holds float32",
    ),
    "action 9999": (_set("actions", 3, 9999), "member 'actions.npy' holds action id 9999"),
    "illegal action": (_set("masks", (0, slice(None)), 0), "which its mask does not allow"),
    "NaN obs": (_set("obs", (5, 5), np.nan), "member 'obs.npy' holds 1 NaN or infinite"),
    "inf return": (_set("returns", 2, np.inf), "member 'returns.npy' holds 1 NaN or infinite"),
    "an extra member": (_rewrite(lambda d: d.update(extra=np.zeros(1))), "unexpected members"),
}


@pytest.mark.parametrize("case", list(BAD_CHUNKS))
def test_a_bad_data_chunk_is_one_line_naming_it_and_the_way_out(run, capsys, case):
    mutate, said = BAD_CHUNKS[case]
    for name in ("imitation.npz", "checkpoint.pt", "checkpoint.prev.pt"):
        (run / name).unlink()
    chunk = run / "data" / "chunk000.npz"
    mutate(chunk)
    kept = chunk.read_bytes()
    line = _refused(["imitate", "--resume", str(run), "--no-progress"], capsys)
    assert f"data file {chunk}" in line and said in line, line
    assert line.endswith(f"record it again: rm {chunk} && canasta train record --resume {run}")
    assert not (run / "imitation.npz").exists() and chunk.read_bytes() == kept


def test_a_good_data_chunk_imitates_and_the_reader_checks_it_alone(run, capsys):
    """The positive control, and :func:`training.imitation.load_data` without a run: the
    refusal names the file and the member, a ``RunFileError`` (the command's one line)."""
    for name in ("imitation.npz", "checkpoint.pt", "checkpoint.prev.pt"):
        (run / name).unlink()
    chunk = run / "data" / "chunk000.npz"
    assert main(["imitate", "--resume", str(run), "--no-progress"]) == 0
    assert ModelFile(run / "imitation.npz").meta["hidden"] == [32]
    data = imitation.load_data([chunk], obs_size=OBS_SIZE)
    assert data["obs"].shape[1] == OBS_SIZE and len(data["actions"]) == len(data["returns"])
    _set("obs", (0, 0), np.nan)(chunk)
    with pytest.raises(RunFileError) as caught:
        imitation.load_data([chunk])
    said = f"data file {chunk}: member 'obs.npy' holds 1 NaN or infinite values"
    assert str(caught.value) == said  # no run: no way out
    with pytest.raises(RunFileError, match="no imitation data: run the record stage first"):
        imitation.load_data([])


# ---------------------------------------------------------------------- 2. checkpoints
def _snapshot_of_other_shapes(state):
    state["snapshots"][0][0][0] = torch.zeros(5, 5)


def _adam_moment_of_other_shape(state):
    first = next(iter(state["optimizer"]["state"].values()))
    first["exp_avg"] = torch.zeros(3)


def _adam_moment_nan(state):
    first = next(iter(state["optimizer"]["state"].values()))
    first["exp_avg_sq"][...] = float("nan")


def _weights_nan(state):
    first = next(iter(state["model"]))
    state["model"][first][0] = float("nan")


def _more_snapshots_than_kept(state):
    league = json.loads(state["league"])
    count = DEFAULTS["max_snapshots"] + 1
    league["snapshots"] = [f"s{i}" for i in range(count)]
    state["snapshots"] = [state["snapshots"][0]] * count
    state["league"] = json.dumps(league)


BAD_CHECKPOINTS = {
    "snapshot of other shapes": (_snapshot_of_other_shapes, "its snapshot s0 has layers"),
    "Adam moment of other shape": (
        _adam_moment_of_other_shape,
        "its Adam state exp_avg of parameter 0 has shape (3,)",
    ),
    "Adam moment NaN": (_adam_moment_nan, "its Adam state exp_avg_sq of parameter 0 is not finite"),
    "weights NaN": (_weights_nan, "its model trunk.0.weight holds NaN or infinite weights"),
    "more snapshots than max_snapshots": (
        _more_snapshots_than_kept,
        "it names 9 snapshots (9 distinct); the run keeps at most max_snapshots 8",
    ),
}


@pytest.mark.parametrize("case", [*BAD_CHECKPOINTS, "good"])
def test_a_checkpoint_that_does_not_fit_the_run_is_refused_before_training(run, capsys, case):
    (run / "checkpoint.prev.pt").unlink()
    path = run / "checkpoint.pt"
    argv = ["--resume", str(run), "--ppo-steps", "1100", "--no-progress"]
    if case == "good":  # the positive control: it resumes and trains on
        assert main(argv) == 0
        assert "[ppo] resumed at iteration" in capsys.readouterr().err
        return
    mutate, said = BAD_CHECKPOINTS[case]
    state = torch.load(path, weights_only=True)
    mutate(state)
    torch.save(state, path)
    kept = _files(run)
    line = _refused(argv, capsys)
    assert f"checkpoint {path} does not fit this run" in line and said in line, line
    assert line.endswith("remove it to start the ppo stage over (the run's other files are kept)")
    assert _files(run) == kept


# ---------------------------------------------------------------------- 3. divergence
BOUNDED = ("lr", "bc_lr", "clip", "max_grad_norm", "ent_coef", "vf_coef", "kick_coef", "score_coef")


def test_learning_rates_clips_and_loss_weights_have_an_upper_bound(tmp_path, capsys):
    for key in BOUNDED:
        check(key, DEFAULTS[key])
        with pytest.raises(SettingError, match=f"{key} must be a finite number .* and at most"):
            check(key, 1e30)
        assert "at most" in training_config.BY_NAME[key].help, key
    assert training_config.FLOAT_RANGES["lr"] == (0.0, False, 1.0)
    new = tmp_path / "new"
    line = _refused(["--run-dir", str(new), "--lr", "1e30", *TINY], capsys)
    assert "lr must be a finite number above 0.0 and at most 1.0, got 1e+30" in line
    assert not new.exists()


@pytest.fixture
def unbounded(monkeypatch):
    """The settings' table without the bound of ``lr`` and ``bc_lr``: what a run would do
    with a rate that diverges within the bounds."""
    settings = tuple(
        dataclasses.replace(s, check=training_config.Real(0.0, False))
        if s.name in ("lr", "bc_lr")
        else s
        for s in training_config.SETTINGS
    )
    monkeypatch.setattr(training_config, "SETTINGS", settings)


def _finite_model(path: Path) -> bool:
    """Whether ``path`` is a model file of the run's network (the reader refuses NaN or
    infinite weights)."""
    return ModelFile(path).meta["hidden"] == [32]


def test_a_diverging_ppo_run_stops_in_one_line_and_keeps_its_last_finite_network(
    run, capsys, unbounded
):
    kept = _files(run)
    argv = ["--resume", str(run), "--ppo-steps", "1500", "--lr", "1e30", "--no-progress"]
    line = _refused(argv, capsys)
    assert "training diverged at learner step" in line and "(iteration " in line, line
    assert "The likely cause is the learning rate: resume with a smaller --lr" in line
    assert _files(run) == kept
    assert all(_finite_model(run / name) for name in ("model.npz", "best.npz"))
    # the way out: the same run resumes from its checkpoint at a sane rate
    assert main(["--resume", str(run), "--ppo-steps", "1100", "--lr", "1e-4", "--no-progress"]) == 0


def test_a_diverging_imitation_writes_nothing_and_says_so(base_run, tmp_path):
    paths = sorted((base_run / "data").glob("chunk*.npz"))
    config = make_config(hidden=[32], bc_epochs=1, jobs=0, threads=1)
    out = tmp_path / "imitation.npz"
    config["bc_lr"] = 1e30  # past its bound: the check of each epoch is what stops it
    with pytest.raises(TrainingDiverged) as caught:
        imitation.train_imitation(config, paths, out, log=lambda line: None)
    message = str(caught.value)
    assert message.startswith("imitation diverged in epoch 1 of 1") and "\n" not in message
    assert "imitation.npz was not written" in message and "bc_lr 1e+30" in message
    assert isinstance(caught.value, RunFileError)  # canasta train's one line
    assert not out.exists()
    config["bc_lr"] = 1e-3  # the positive control
    imitation.train_imitation(config, paths, out, log=lambda line: None)
    assert _finite_model(out)


def test_an_init_model_whose_outputs_overflow_is_refused_before_writing(base_run, tmp_path, capsys):
    model = ModelFile(base_run / "model.npz")
    assert init_model(base_run / "model.npz").meta["hidden"] == [32]  # the positive control
    with zipfile.ZipFile(base_run / "model.npz") as archive:
        names = [name.removesuffix(".npy") for name in archive.namelist()]
    arrays = {name: np.load(base_run / "model.npz")[name] * 1e30 for name in names}
    arrays.pop("meta")
    big = write_model(tmp_path / "big.npz", arrays, model.meta)
    assert ModelFile(big)  # finite weights: the model file reader takes it
    new = tmp_path / "new"
    line = _refused(["ppo", "--run-dir", str(new), "--init", str(big), *TINY], capsys)
    assert f"model file {big}: its weights are finite but so large that" in line
    assert not new.exists()


# ---------------------------------------------------------------------- 4. hidden
def test_an_init_model_fixes_the_hidden_widths_the_run_records(base_run, tmp_path, capsys):
    init = base_run / "model.npz"
    argv = ["--init", str(init), "--ppo-steps", "200", "--rollout-steps", "100", *TINY]
    new = tmp_path / "new"
    assert main(["ppo", "--run-dir", str(new), "--hidden", "16", *argv]) == 0
    assert f"[ppo] hidden [16] -> [32]: the network is {init}'s" in capsys.readouterr().err
    assert json.loads((new / "config.json").read_text())["hidden"] == [32]
    assert ModelFile(new / "model.npz").meta["hidden"] == [32]
    assert main(["--resume", str(new), "--ppo-steps", "300", "--no-progress"]) == 0
    assert "[ppo] hidden" not in capsys.readouterr().err
    same = tmp_path / "same"  # the positive control: the widths given are the model's
    assert main(["ppo", "--run-dir", str(same), "--hidden", "32", *argv]) == 0
    assert "[ppo] hidden" not in capsys.readouterr().err
    assert json.loads((same / "config.json").read_text())["hidden"] == [32]


def test_a_refused_resume_leaves_its_config_and_log_as_they_were(run, capsys):
    """A resume changing its settings writes them (config.json, the log lines) only once
    the checkpoint has been read and fits: refused, the folder is byte for byte as before;
    taken (positive control), the change is in both."""
    path = run / "checkpoint.pt"
    (run / "checkpoint.prev.pt").unlink()
    good = path.read_bytes()
    path.write_bytes(good[:1000])  # truncated
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    argv = ["--resume", str(run), "--ppo-steps", "1100", "--lr", "0.0002", "--no-progress"]
    assert "is truncated or corrupt" in _refused(argv, capsys)
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    path.write_bytes(good)
    assert main(argv) == 0
    assert json.loads((run / "config.json").read_text())["lr"] == 0.0002
    log = (run / "train.log").read_text()
    assert "[run] lr: 0.0001 -> 0.0002" in log and log.index("lr: 0.0001") < log.index("resumed")
