"""Imitation warm start: record the bots' decisions, clone them into the network.

    canasta train record  --run-dir runs/c2      # teacher decisions -> RUN/data/*.npz
    canasta train imitate --run-dir runs/c2      # masked cross-entropy -> RUN/imitation.npz

A data file holds, per recorded decision, the observation (float32), the mask
(``np.packbits`` of the 500 flags), the teacher's action and the hand's reward
for the teacher's team (:func:`agents.reward.hand_reward`). The policy head
learns the teacher's move with a cross-entropy restricted to legal ids; the
value head learns the reward, so that reinforcement learning starts with a
critic that already knows who is winning.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from canasta_env.actions import NUM_ACTIONS
from canasta_env.jsonfile import open_regular, read_npz
from canasta_env.observation import OBS_SIZE
from canasta_env.safe_write import atomic_file
from training.config import MAX_BATCH_STEPS


def save_data(path: Path, data: dict) -> None:
    with atomic_file(path, "data file") as handle:
        np.savez(handle, **{k: data[k] for k in DATA_FIELDS})


#: The arrays of a data file.
DATA_FIELDS = ("obs", "masks", "actions", "returns")
#: The bytes of one packed mask: ``np.packbits`` of the 500 flags.
MASK_BYTES = (NUM_ACTIONS + 7) // 8
#: The most bytes one recorded decision takes in a data file: its observation (float32),
#: its packed mask, the move and the return, with room to spare.
DECISION_BYTES = 4 * OBS_SIZE + MASK_BYTES + 16
#: What a data file may unpack to besides its decisions (the ``.npy`` headers and more).
DATA_EXTRA_BYTES = 64 * 2**20


def data_bound(record_chunk: int) -> int:
    """The most bytes a data file of a run recording ``record_chunk`` decisions a chunk may
    unpack to: every hand is played out, so a chunk may pass its count; twice it is room."""
    return 2 * record_chunk * DECISION_BYTES + DATA_EXTRA_BYTES


def check_chunk(part: dict, label: str, obs_size: int | None) -> None:
    """``ValueError`` ("LABEL: member 'NAME.npy' ...") unless ``part`` holds what the
    recorder writes (:meth:`training.rollout.Recorder.record`): ``n >= 1`` decisions, each
    an observation of ``obs_size`` float32 entries (None: any one width), all finite; its
    mask packed in :data:`MASK_BYTES` uint8; the teacher's action, an integer id below
    :data:`NUM_ACTIONS <canasta_env.actions.NUM_ACTIONS>` that its mask allows; the hand's
    return, a finite float32. Otherwise the chunk would fail in torch with a traceback, or
    train a network of NaN weights without a word."""

    def refuse(name: str, problem: str) -> None:
        raise ValueError(f"{label}: member '{name}.npy' {problem}")

    missing = [key for key in DATA_FIELDS if key not in part]
    if missing:
        refuse(missing[0], f"is missing (a data file holds {', '.join(DATA_FIELDS)})")
    obs, masks, actions, returns = (part[key] for key in DATA_FIELDS)
    if not np.issubdtype(actions.dtype, np.integer) or actions.ndim != 1 or not len(actions):
        said = (
            f"holds {actions.dtype} {actions.shape}, not action ids (whole numbers), one a decision"
        )
        refuse("actions", said)
    n = len(actions)
    if obs.ndim != 2:
        refuse("obs", f"holds {obs.dtype} {obs.shape}, not one observation a decision (2-D)")
    obs_size = obs.shape[1] if obs_size is None else obs_size
    wanted = {
        "obs": (obs, np.float32, (n, obs_size)),
        "masks": (masks, np.uint8, (n, MASK_BYTES)),
        "returns": (returns, np.float32, (n,)),
    }
    for name, (array, dtype, shape) in wanted.items():
        if array.dtype != dtype or array.shape != shape:
            want = f"{np.dtype(dtype)} {shape}"
            refuse(name, f"holds {array.dtype} {array.shape}, not {want} (for {n} decisions)")
    outside = (actions < 0) | (actions >= NUM_ACTIONS)
    if outside.any():
        refuse(
            "actions", f"holds action id {int(actions[outside][0])}, outside 0..{NUM_ACTIONS - 1}"
        )
    ids = actions.astype(np.int64)
    allowed = (masks[np.arange(n), ids // 8] >> (7 - ids % 8)) & 1  # np.packbits' bit order
    if not allowed.all():
        row = int(np.flatnonzero(allowed == 0)[0])
        said = f"holds action {int(ids[row])} at decision {row}, which its mask does not allow"
        refuse("actions", said)
    for name, array in (("obs", obs), ("returns", returns)):
        finite = np.isfinite(array)
        if not finite.all():
            refuse(name, f"holds {int(finite.size - finite.sum()):,} NaN or infinite values")


def data_way_out(path: Path, run: Path) -> str:
    """How to mend a run whose data file ``path`` is refused: record it again."""
    return f"delete it and record it again: rm {path} && canasta train record --resume {run}"


def load_data(
    paths,
    record_chunk: int = MAX_BATCH_STEPS,
    obs_size: int | None = None,
    run: Path | None = None,
) -> dict:
    """The decisions of the data files ``paths``, each read as data
    (:func:`canasta_env.jsonfile.read_npz`: a regular file, its members checked and at most
    :func:`data_bound` bytes unpacked before an array is read), then checked
    (:func:`check_chunk`) with observations of ``obs_size`` entries (None: those of the
    first file, the same in every file).

    ``RunFileError`` (one line naming the file and the member) for any problem; with ``run``,
    the run folder the files are of, the line ends with the way out (:func:`data_way_out`).
    """
    from training.run import RunFileError

    parts = []
    for path in paths:
        label = f"data file {path}"
        try:
            with open_regular(path, label) as file:
                part = read_npz(file, label, data_bound(record_chunk), DATA_FIELDS)
            if obs_size is None and parts:  # the first file's width, in every file
                obs_size = parts[0]["obs"].shape[1]
            check_chunk(part, label, obs_size)
        except ValueError as error:
            way_out = f"; {data_way_out(path, run)}" if run is not None else ""
            raise RunFileError(f"{error}{way_out}") from None
        parts.append(part)
    if not parts:
        hint = f": canasta train record --resume {run}" if run is not None else ""
        raise RunFileError(f"no imitation data: run the record stage first{hint}")
    return {key: np.concatenate([part[key] for part in parts]) for key in DATA_FIELDS}


def record(pool, config: dict, data_dir: Path, log=print) -> list[Path]:
    """Record ``config["record_steps"]`` teacher decisions in chunks (resumable per chunk)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    chunk = int(config["record_chunk"])
    total = int(config["record_steps"])
    chunks = max(1, -(-total // chunk))
    tables = [tuple(t) for t in config["tables"]]
    opponents = list(config["record_opponents"].items())
    paths = []
    start = time.perf_counter()
    done = 0
    for first in range(0, chunks, pool.size):
        batch = [i for i in range(first, min(chunks, first + pool.size))]
        todo = [i for i in batch if not (data_dir / f"chunk{i:03d}.npz").exists()]
        if todo:
            results = pool.map(
                "record",
                [
                    {
                        "steps": min(chunk, total - i * chunk),
                        "tables": tables,
                        "table_weights": config["table_weights"],
                        "teachers": config["teachers"],
                        "opponents": opponents,
                        "seed": [config["seed"], 1, i],
                        "score_coef": config["score_coef"],
                    }
                    for i in todo
                ],
            )
            for i, data in zip(todo, results):
                save_data(data_dir / f"chunk{i:03d}.npz", data)
                done += len(data["actions"])
        paths += [data_dir / f"chunk{i:03d}.npz" for i in batch]
        log(
            f"[record] {len(paths)}/{chunks} chunks, {done} new decisions, "
            f"{time.perf_counter() - start:.0f}s"
        )
    return paths


def train_imitation(config: dict, data_paths, out_path: Path, log=print, writer=None) -> dict:
    """Fit the policy to the teacher's moves and the value to the hand reward; save the model."""
    import torch
    import torch.nn.functional as F

    from training import net
    from training.machine import resolve_device

    device = torch.device(resolve_device(config["device"]))
    torch.manual_seed(config["seed"])
    run = out_path.parent  # the run folder: RUN/imitation.npz, RUN/data/
    data = load_data(data_paths, int(config["record_chunk"]), OBS_SIZE, run)
    n = len(data["actions"])
    rng = np.random.default_rng([config["seed"], 2])
    order = rng.permutation(n)
    held = order[: max(1, n // 20)]  # 5% held out: agreement with the teacher
    train_idx = order[len(held) :]
    obs = torch.from_numpy(data["obs"])
    masks_packed = data["masks"]
    actions = torch.from_numpy(data["actions"].astype(np.int64))
    returns = torch.from_numpy(data["returns"])
    # built on the CPU, then moved: the first weights do not depend on the device; the
    # decisions stay on the CPU (some GB), each batch goes to the device
    model = net.build(obs.shape[1], NUM_ACTIONS, config["hidden"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config["bc_lr"])
    epochs, batch = int(config["bc_epochs"]), int(config["bc_batch"])
    batches = max(1, len(train_idx) // batch)  # a data set smaller than a batch: one batch
    steps_total = epochs * batches
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=config["bc_lr"], total_steps=max(1, steps_total)
    )

    def masks_of(index):
        bits = np.unpackbits(masks_packed[index], axis=1, count=NUM_ACTIONS)
        return torch.from_numpy(bits.astype(bool)).to(device)

    start = time.perf_counter()
    step = 0
    report = {}
    for epoch in range(epochs):
        perm = rng.permutation(train_idx)
        model.train()
        total_loss = 0.0
        for b in range(batches):
            index = np.sort(perm[b * batch : (b + 1) * batch])
            logits, values = model(obs[index].to(device), masks_of(index))
            policy_loss = F.cross_entropy(logits, actions[index].to(device))
            value_loss = F.mse_loss(values, returns[index].to(device))
            loss = policy_loss + config["vf_coef"] * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            step += 1
            total_loss += float(loss.detach())
            if writer is not None and step % 50 == 0:
                writer.add_scalar("imitation/policy_loss", float(policy_loss.detach()), step)
                writer.add_scalar("imitation/value_loss", float(value_loss.detach()), step)
        some = obs[np.sort(perm[:batch])].to(device)  # the epoch's first batch
        if not (np.isfinite(total_loss) and net.is_finite(model, some)):  # nothing written
            raise diverged(config, epoch, step, out_path)
        report = evaluate_agreement(model, obs, masks_of, actions, returns, held)
        report.update(epoch=epoch + 1, seconds=round(time.perf_counter() - start, 1))
        log(
            f"[imitate] epoch {epoch + 1}/{epochs}: train loss {total_loss / batches:.3f}, "
            f"held-out agreement {report['agreement']:.3f} (discards "
            f"{report['agreement_discard']:.3f}), value mse {report['value_mse']:.3f}, "
            f"{report['seconds']:.0f}s"
        )
        if writer is not None:
            writer.add_scalar("imitation/agreement", report["agreement"], epoch + 1)
    report["decisions"] = n
    net.save(model, out_path, {"stage": "imitation", "imitation": report})
    return report


def diverged(config: dict, epoch: int, step: int, out_path: Path):
    """The one-line refusal of an imitation whose network stopped being finite in
    ``epoch`` (from 0), by gradient step ``step``: nothing was written."""
    from training.ppo import TrainingDiverged

    bc_lr = float(config["bc_lr"])
    return TrainingDiverged(
        f"imitation diverged in epoch {epoch + 1} of {config['bc_epochs']} (by gradient step "
        f"{step:,}): the network's weights or its loss are no longer finite (NaN or "
        f"infinite), so {out_path.name} was not written. The likely cause is the learning "
        f"rate, bc_lr {bc_lr:g}, which a resume cannot change: start a new run with a smaller "
        f"--bc-lr (e.g. {bc_lr / 10:g}), copying {out_path.parent / 'data'} into it to keep "
        "the recorded decisions"
    )


def evaluate_agreement(model, obs, masks_of, actions, returns, index) -> dict:
    """Share of held-out decisions where the network's best legal move is the teacher's."""
    import torch

    from canasta_env.actions import DISCARD

    model.eval()
    device = next(model.parameters()).device
    agree, agree_discard, discards, mse = 0, 0, 0, 0.0
    with torch.no_grad():
        for b in range(0, len(index), 4096):
            part = np.sort(index[b : b + 4096])
            logits, values = model(obs[part].to(device), masks_of(part))
            chosen = logits.argmax(dim=1)
            target = actions[part].to(device)
            hit = chosen == target
            agree += int(hit.sum())
            is_discard = (target >= DISCARD) & (target < DISCARD + 14)
            discards += int(is_discard.sum())
            agree_discard += int((hit & is_discard).sum())
            mse += float(((values - returns[part].to(device)) ** 2).sum())
    return {
        "agreement": agree / len(index),
        "agreement_discard": agree_discard / max(1, discards),
        "value_mse": mse / len(index),
        "held_out": len(index),
    }
