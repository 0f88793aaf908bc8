"""The learner's machine (training/machine.py): the budget of worker processes and torch
threads, and ``--device``. A CPU run learns what it learned before the device setting,
byte for byte; the cuda parts run where torch sees a GPU and are skipped elsewhere."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from canasta_cli.train import main  # noqa: E402
from tests.training_digest import run_digest  # noqa: E402
from training import machine  # noqa: E402
from training.machine import budget, resolve_device  # noqa: E402
from training.ppo import on_cpu  # noqa: E402
from training.run import Run  # noqa: E402

CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="torch sees no GPU (torch.cuda.is_available())")
needs_no_cuda = pytest.mark.skipif(CUDA, reason="torch sees a GPU: auto would train on it")

#: A tiny PPO run that plays no bot (the league is itself, no bot is evaluated or shadows):
#: what it learns depends on the engine, the observation and PPO alone.
BOT_FREE = [
    "ppo", "--opponents", "self=1", "--eval-opponents", "", "--kick-coef", "0",
    "--hidden", "32", "--ppo-steps", "1200", "--rollout-steps", "300", "--eval-every", "2",
    "--eval-deals", "2", "--jobs", "0", "--envs", "8", "--threads", "1", "--no-progress",
    "--step-cost", "0",  # the reference was made before the price's default of 0.01
]  # fmt: skip
#: Every stage, tiny (tests/test_league.py's run).
TINY = [
    "--record-steps", "400", "--bc-epochs", "1", "--ppo-steps", "1200",
    "--rollout-steps", "300", "--eval-every", "2", "--eval-deals", "2",
    "--jobs", "0", "--envs", "8", "--threads", "1", "--hidden", "32", "--no-progress",
]  # fmt: skip

#: What BOT_FREE learned before the device setting: the run folder R made at commit 638514d
#: (the code before it) with ``canasta train ppo --run-dir R`` and BOT_FREE's other options,
#: then ``python tests/training_digest.py R``; the same at the commits that added --device. The
#: floats depend on torch's kernels, so the digest holds for the torch build and CPU kind it
#: was made with (:data:`REFERENCE_MACHINE`); elsewhere that part is skipped.
REFERENCE = {
    "model.npz": "c657c490fc6b793fdb33f56210ca2aeb49b814a6eb3b81e6061b315aa895a83c",
    "checkpoint.pt": "0f1bf93f9fbbb52acf4f7b5000328043b24270ccde24700b1793dbb9f3dfb31a",
    "history.jsonl": "62bd82fb23895354f12838309b5bcaee5b2010a388721140fdb56cda2188edff",
}
REFERENCE_MACHINE = ("2.13.0+cpu", "AVX512")


def _machine() -> tuple[str, str]:
    return torch.__version__, torch.backends.cpu.get_cpu_capability()


def _train(run_dir, options) -> dict:
    assert main(["--run-dir", str(run_dir), *options]) == 0
    return run_digest(run_dir)


# ---------------------------------------------------------------------- the budget
def test_threads_left_out_are_the_cores_the_workers_leave_and_never_more():
    assert budget(2, None, available=2) == machine.Budget(2, 2, 1)
    assert budget(2, None, available=16).threads == 14
    assert budget(0, None, available=16).threads == 16
    assert budget(4, None, available=2).threads == 1
    assert budget(2, 2, available=2).threads == 2  # asked for: each turn may have the cores
    assert budget(0, 1, available=16).threads == 1
    cut = budget(2, 8, available=2)
    assert cut.threads == 2
    assert cut.notes == (
        "--threads 8: more torch threads than the 2 cores wait on each other; the learner uses 2",
    )
    assert machine.cores() >= 1


def test_more_jobs_than_cores_are_kept_with_a_warning_naming_both():
    plan = budget(4, 1, available=2)
    assert plan.jobs == 4 and plan.threads == 1
    (note,) = plan.notes
    assert "--jobs 4" in note and "2 cores" in note
    assert str(plan) == "2 cores: 4 workers play, then 1 torch thread learn"
    assert str(budget(1, 1, available=2)) == "2 cores: 1 worker plays, then 1 torch thread learn"


def test_a_new_run_saves_the_threads_it_uses_and_logs_a_cut(tmp_path):
    run = Run.open(tmp_path / "auto", {"jobs": 0})
    saved = json.loads((tmp_path / "auto" / "config.json").read_text())
    assert saved["threads"] == run.config["threads"] == machine.cores()  # jobs 0: every core
    with_jobs = Run.open(tmp_path / "jobs", {"jobs": 2}).config["threads"]
    assert with_jobs == max(1, machine.cores() - 2)
    assert saved["device"] == "auto"
    Run.open(tmp_path / "many", {"jobs": 0, "threads": machine.cores() + 1})
    log = (tmp_path / "many" / "train.log").read_text()
    assert f"--threads {machine.cores() + 1}: more torch threads than the" in log
    assert json.loads((tmp_path / "many" / "config.json").read_text())["threads"] == (
        machine.cores()
    )


# ---------------------------------------------------------------------- CPU: as before
@pytest.mark.skipif(
    _machine() != REFERENCE_MACHINE,
    reason=f"the reference digest was made with torch and CPU kernels {REFERENCE_MACHINE}; "
    f"this machine has {_machine()}",
)
def test_a_cpu_run_learns_what_it_learned_before_the_device_setting(tmp_path):
    assert _train(tmp_path / "cpu", [*BOT_FREE, "--device", "cpu"]) == REFERENCE


@needs_no_cuda
def test_auto_without_a_gpu_is_the_cpu_byte_for_byte(tmp_path):
    """Every stage (recording, imitation, PPO): model, imitation, checkpoint and history."""
    cpu = _train(tmp_path / "cpu", [*TINY, "--device", "cpu"])
    auto = _train(tmp_path / "auto", TINY)
    assert set(cpu) == {"imitation.npz", "model.npz", "checkpoint.pt", "history.jsonl"}
    assert auto == cpu
    log = (tmp_path / "auto" / "train.log").read_text()
    assert "1 torch thread learn; the learner on cpu" in log
    model = tmp_path / "auto" / "model.npz"  # a finished run says where its policy is
    assert f"[run] the policy: {model}; play it: canasta play --opponents ppo:{model}" in log


def test_checkpoint_state_is_cpu_tensors_and_keeps_the_state_dict_metadata():
    model = torch.nn.Linear(3, 2)
    state = model.state_dict()
    copied = on_cpu({"model": state, "list": [torch.zeros(1)], "n": 3})
    assert copied["model"]._metadata == state._metadata
    assert copied["model"]["weight"] is state["weight"]  # on the CPU: the tensor itself
    assert copied["n"] == 3


# ---------------------------------------------------------------------- refusals
def test_a_bad_device_is_refused_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--run-dir", str(tmp_path / "r"), "--device", "tpu"])
    assert exit_info.value.code == 2
    assert "device must be one of auto, cpu, cuda, got 'tpu'" in capsys.readouterr().err
    assert not (tmp_path / "r" / "config.json").exists()


@needs_no_cuda
def test_cuda_without_a_gpu_is_refused_before_any_work(tmp_path, capsys):
    with pytest.raises(machine.DeviceError, match="--device cuda: torch .*; --device cpu"):
        resolve_device("cuda")
    with pytest.raises(SystemExit) as exit_info:
        main(["--run-dir", str(tmp_path / "r"), "--device", "cuda", *TINY])
    assert exit_info.value.code == 2
    assert "--device cuda: torch" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
    # a run whose config.json says cuda names it, and --device cpu continues it
    Run.open(tmp_path / "moved", {"jobs": 0})
    saved = tmp_path / "moved" / "config.json"
    saved.write_text(saved.read_text().replace('"device": "auto"', '"device": "cuda"'))
    with pytest.raises(SystemExit):
        main(["--resume", str(tmp_path / "moved"), "--no-progress"])
    assert f"run config {saved} says device cuda" in capsys.readouterr().err
    assert Run.open(tmp_path / "moved", {"device": "cpu"}).config["device"] == "cpu"


def test_a_run_from_before_the_device_setting_resumes_on_the_cpu(tmp_path):
    Run.open(tmp_path / "old", {"jobs": 0})
    saved = tmp_path / "old" / "config.json"
    config = json.loads(saved.read_text())
    del config["device"]
    saved.write_text(json.dumps(config))
    assert Run.open(tmp_path / "old", {}).config["device"] == "cpu"


# ---------------------------------------------------------------------- cuda
@needs_cuda
def test_a_cuda_run_resumes_on_the_cpu_and_back(tmp_path):
    """Checkpoints hold CPU tensors: a run written on cuda continues on the CPU and again
    on cuda; its model plays."""
    from agents.network import load_agent

    run_dir = tmp_path / "r"
    options = [*TINY, "--device", "cuda"]
    options[options.index("--ppo-steps") + 1] = "600"
    _train(run_dir, options)
    state = torch.load(run_dir / "checkpoint.pt", map_location="cpu", weights_only=True)
    assert all(t.device.type == "cpu" for t in state["model"].values())
    assert "the learner on cuda (" in (run_dir / "train.log").read_text()
    for device, steps in (("cpu", "1200"), ("cuda", "1800")):
        resumed = ["--resume", str(run_dir), "--ppo-steps", steps, "--device", device]
        assert main([*resumed, "--no-progress"]) == 0
        assert json.loads((run_dir / "config.json").read_text())["device"] == device
    assert "[run] device: cpu -> cuda" in (run_dir / "train.log").read_text()
    load_agent(run_dir)
