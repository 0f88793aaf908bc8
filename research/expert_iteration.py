"""Expert iteration: the search agent's choices taught back to the network (issue 24, item 4).

The search (:mod:`agents.search`) plays the network's move unless its rollouts show a
better one by a clear margin; on 1,000 duplicate deals a table it beats the network alone
in 58-59% of hands. This module asks whether the network can learn those corrections:

1. ``record``: hands of search self-play (the search agent at every seat, deals from
   ``--seed``), every decision with 2+ legal ids kept: the observation, the mask, the
   network's move, the search's move, whether it searched, its candidates and their mean
   rollout scores, and the seat's hand reward. One ``.npz`` chunk per ``--chunk`` hands,
   written as it is done, so a stopped run resumes where it stopped (``--hands`` more
   hands skip the chunks that exist).
2. ``train``: the network fine-tuned from the model the search used. Where the search
   deviated from the network, the target is the search's move; everywhere else it is the
   old network's own distribution (a distillation anchor, so that what the search did not
   touch stays as it was), and the value head is held to the old value. The loss weighs
   the deviations by ``--deviation-weight``. 5% of hands are held out: the report gives
   how often the new network agrees with the search where it deviated (on hands it never
   saw) and with the old network elsewhere.
3. The arena decides (the network alone, duplicate deals that are not the training ones)::

       canasta arena --players 2 --agents ppo:runs/ei_2p/model.npz ppo:classic-2p \\
           --hands 2000 --seed 8080

Data files are ``.npz`` of plain arrays, read with ``allow_pickle=False``, their shapes
checked; the model is written with :func:`training.net.save` (no pickle anywhere).

    python -m research.expert_iteration record --players 2 --hands 400 --seed 60000 \\
        --out runs/ei_2p/data
    python -m research.expert_iteration train --players 2 --data runs/ei_2p/data \\
        --out runs/ei_2p/model.npz
"""

from __future__ import annotations

import argparse
import json
import time
import zipfile
from pathlib import Path
from typing import BinaryIO

import numpy as np

from agents.reward import hand_reward
from agents.search import SearchAgent, load_agent
from canasta_env.actions import NUM_ACTIONS
from canasta_env.jsonfile import open_regular, read_npz
from canasta_env.observation import OBS_SIZE
from canasta_env.rules import make_rules
from canasta_env.safe_write import atomic_file, check_folder
from canasta_env.table import Table

#: Candidate slots kept per decision (the search's default number of candidates).
SLOTS = 4
#: The arrays of a data chunk and their dtypes (one row per decision).
FIELDS = {
    "obs": np.float32,
    "masks": np.uint8,  # np.packbits of the NUM_ACTIONS flags
    "policy": np.int16,  # the network's move
    "chosen": np.int16,  # the search's move (the network's where it did not search)
    "searched": np.bool_,
    "candidates": np.int16,  # [SLOTS], -1 where fewer
    "q": np.float32,  # [SLOTS] mean rollout score of each candidate, NaN where none
    "reward": np.float32,  # the seat's hand reward (the training reward)
    "hand": np.int32,  # the deal's seed (hands are held out whole)
}


def record_hand(agent: SearchAgent, players: int, deal: int, score_coef: float) -> dict:
    """One hand of search self-play from deal ``deal``: its decisions as arrays."""
    table = Table(make_rules("classic"), players, seed=deal)
    agent.seed(deal)
    rows: list[tuple] = []

    def record(seat: int, observation: np.ndarray, mask: np.ndarray, action: int) -> None:
        stats = agent.stats
        if stats.legal <= 1:
            return
        candidates = np.full(SLOTS, -1, np.int16)
        q = np.full(SLOTS, np.nan, np.float32)
        if stats.searched:
            k = min(SLOTS, len(stats.candidates))
            candidates[:k] = stats.candidates[:k]
            q[:k] = stats.scores.mean(axis=1)[:k]
        packed = np.packbits(mask.astype(bool))
        searched = stats.searched
        rows.append((seat, observation, packed, stats.policy_move, action, searched, candidates, q))

    table.play([agent] * players, on_decision=record)
    rewards = {s: hand_reward(table, s, score_coef)[0] for s in range(players)}
    data = {
        "obs": np.array([r[1] for r in rows], np.float32).reshape(-1, OBS_SIZE),
        "masks": np.array([r[2] for r in rows], np.uint8).reshape(-1, (NUM_ACTIONS + 7) // 8),
        "policy": np.array([r[3] for r in rows], np.int16),
        "chosen": np.array([r[4] for r in rows], np.int16),
        "searched": np.array([r[5] for r in rows], np.bool_),
        "candidates": np.array([r[6] for r in rows], np.int16).reshape(-1, SLOTS),
        "q": np.array([r[7] for r in rows], np.float32).reshape(-1, SLOTS),
        "reward": np.array([rewards[r[0]] for r in rows], np.float32),
        "hand": np.full(len(rows), deal, np.int32),
    }
    return data


def concat(parts: list[dict]) -> dict:
    return {key: np.concatenate([p[key] for p in parts]) for key in FIELDS}


def record(
    spec: str, players: int, hands: int, seed: int, out: Path, chunk: int = 20, log=print
) -> list[Path]:
    """Hands ``seed .. seed + hands - 1`` of search self-play, in chunks of ``chunk`` hands
    (``out/chunk_FIRSTDEAL.npz``); a chunk that exists is kept, not played again. A folder
    that is or holds a symbolic link or a FIFO is refused before anything is written."""
    check_folder(out, "data folder")
    agent = load_agent(spec)
    score_coef = agent.config.score_coef
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    start = time.perf_counter()
    for first in range(seed, seed + hands, chunk):
        path = out / f"chunk_{first}.npz"
        paths.append(path)
        if path.exists():
            continue
        last = min(seed + hands, first + chunk)
        data = concat(
            [record_hand(agent, players, deal, score_coef) for deal in range(first, last)]
        )
        with atomic_file(path, "data file") as handle:
            np.savez_compressed(handle, **data)
        deviated = int((data["chosen"] != data["policy"]).sum())
        log(
            f"[record] deals {first}..{last - 1}: {len(data['chosen'])} decisions, "
            f"{int(data['searched'].sum())} searched, {deviated} deviated, "
            f"{time.perf_counter() - start:.0f}s"
        )
    return paths


#: The most decisions a data folder may hold when loaded (a bounded read).
MAX_DECISIONS = 5_000_000


#: The most bytes one chunk may unpack to (a chunk of 20 hands unpacks to about 5 MB).
MAX_CHUNK_BYTES = 512 * 2**20


def check_chunk(path: Path, file: BinaryIO) -> None:
    """A chunk's members (``file``, opened from ``path``), before anything is unpacked: only
    the arrays of :data:`FIELDS`, at most :data:`MAX_CHUNK_BYTES` unpacked in all
    (``ValueError`` naming the file)."""
    try:
        with zipfile.ZipFile(file) as archive:
            members = archive.infolist()
    except (OSError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: not a data chunk ({error})") from None
    finally:
        file.seek(0)
    unknown = sorted({m.filename for m in members} - {f"{key}.npy" for key in FIELDS})
    if unknown:
        raise ValueError(f"{path}: unexpected members {unknown}")
    if sum(m.file_size for m in members) > MAX_CHUNK_BYTES:
        raise ValueError(f"{path}: unpacks to more than {MAX_CHUNK_BYTES} bytes")


def load(folder: Path, obs_size: int) -> dict:
    """Every chunk of ``folder`` (plain arrays, no pickle), shapes checked."""
    paths = sorted(Path(folder).glob("chunk_*.npz"))
    if not paths:
        raise ValueError(f"{folder}: no chunk_*.npz data (run the record stage first)")
    parts = []
    for path in paths:
        with open_regular(path, f"data chunk {path}") as file:
            check_chunk(path, file)
            arrays = read_npz(file, str(path), MAX_CHUNK_BYTES, FIELDS)
        missing = set(FIELDS) - set(arrays)
        if missing:
            raise ValueError(f"{path}: missing arrays {sorted(missing)}")
        part = {key: arrays[key].astype(dtype, copy=False) for key, dtype in FIELDS.items()}
        n = len(part["chosen"])
        shapes = {
            "obs": (n, obs_size),
            "masks": (n, (NUM_ACTIONS + 7) // 8),
            "candidates": (n, SLOTS),
            "q": (n, SLOTS),
        }
        for key in FIELDS:
            want = shapes.get(key, (n,))
            if part[key].shape != want:
                raise ValueError(f"{path}: {key} has shape {part[key].shape}, not {want}")
        for key in ("policy", "chosen"):
            if n and not (0 <= part[key].min() and part[key].max() < NUM_ACTIONS):
                raise ValueError(f"{path}: {key} holds an action id out of range")
        # a NaN or infinite input trains a non-finite network: q is NaN only where no candidate
        q_given = part["q"][part["candidates"] >= 0]
        for key, values in (("obs", part["obs"]), ("reward", part["reward"]), ("q", q_given)):
            if not np.isfinite(values).all():
                raise ValueError(f"{path}: {key} holds NaN or infinite values")
        parts.append(part)
        if sum(len(p["chosen"]) for p in parts) > MAX_DECISIONS:
            raise ValueError(f"{folder}: more than {MAX_DECISIONS} decisions")
    return concat(parts)


def train(
    model_spec: str,
    folder: Path,
    out: Path,
    *,
    epochs: int = 4,
    lr: float = 1e-4,
    batch: int = 512,
    deviation_weight: float = 4.0,
    min_gain: float = 0.0,
    seed: int = 0,
    log=print,
) -> dict:
    """Fine-tune the network of ``model_spec`` on the search's choices (module doc, step 2)."""
    import torch
    import torch.nn.functional as F

    from agents.network import resolve_model
    from training import net

    torch.manual_seed(seed)
    source = net.ModelFile(resolve_model(model_spec))
    model = net.to_torch(source)
    old = net.to_torch(source).eval()
    data = load(folder, source.obs_size)
    n = len(data["chosen"])
    hands = np.unique(data["hand"])
    rng = np.random.default_rng(seed)
    held_hands = rng.choice(hands, size=max(1, len(hands) // 20), replace=False)
    held = np.isin(data["hand"], held_hands)
    train_idx, held_idx = np.flatnonzero(~held), np.flatnonzero(held)
    obs = torch.from_numpy(data["obs"])
    packed = data["masks"]
    chosen = torch.from_numpy(data["chosen"].astype(np.int64))
    deviated_np = (data["chosen"] != data["policy"]) & (search_gain(data) >= min_gain)
    deviated = torch.from_numpy(deviated_np)

    def masks_of(index):
        bits = np.unpackbits(packed[index], axis=1, count=NUM_ACTIONS).astype(bool)
        return torch.from_numpy(bits)

    with torch.no_grad():  # the anchor: the old network's distribution and value
        old_logp, old_value = [], []
        for b in range(0, n, 8192):
            index = np.arange(b, min(n, b + 8192))
            logits, value = old(obs[index], masks_of(index))
            old_logp.append(F.log_softmax(logits, dim=1))
            old_value.append(value)
        old_logp, old_value = torch.cat(old_logp), torch.cat(old_value)

    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    start = time.perf_counter()
    report: dict = {
        "decisions": n,
        "hands": len(hands),
        "deviated": int(deviated_np.sum()),
        "searched": int(data["searched"].sum()),
        "held_hands": sorted(int(h) for h in held_hands),
    }
    log(
        f"[train] {n} decisions from {len(hands)} hands, {report['searched']} searched, "
        f"{report['deviated']} deviated; {len(held_idx)} held out"
    )
    report["before"] = agreement(model, obs, masks_of, chosen, deviated, old_logp, held_idx)
    for epoch in range(epochs):
        model.train()
        order = rng.permutation(train_idx)
        total = 0.0
        for b in range(0, len(order), batch):
            index = np.sort(order[b : b + batch])
            logits, value = model(obs[index], masks_of(index))
            logp = F.log_softmax(logits, dim=1)
            dev = deviated[index]
            anchor = -(old_logp[index].exp() * logp.masked_fill(logp < -1e8, 0)).sum(dim=1)
            search = -logp.gather(1, chosen[index, None]).squeeze(1)
            per = torch.where(dev, deviation_weight * search, anchor)
            loss = per.mean() + 0.5 * F.mse_loss(value, old_value[index])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total += float(loss.detach()) * len(index)
        result = agreement(model, obs, masks_of, chosen, deviated, old_logp, held_idx)
        log(
            f"[train] epoch {epoch + 1}/{epochs}: loss {total / max(1, len(order)):.4f}; "
            f"held out: search's move where it deviated {result['deviated']:.3f}, "
            f"old network's move elsewhere {result['kept']:.4f}, "
            f"{time.perf_counter() - start:.0f}s"
        )
        report[f"epoch_{epoch + 1}"] = result
    meta = {
        "stage": "expert_iteration",
        "from": str(model_spec),
        "data": str(folder),
        "expert_iteration": {
            **report,
            "epochs": epochs,
            "lr": lr,
            "deviation_weight": deviation_weight,
            "seed": seed,
        },
    }
    net.save(model, out, meta)
    return report


def search_gain(data: dict) -> np.ndarray:
    """Per decision, the mean rollout score of the search's move less the network's (0
    where it did not search or did not deviate)."""
    gain = np.zeros(len(data["chosen"]), np.float32)
    rows = np.flatnonzero(data["chosen"] != data["policy"])
    slots = data["candidates"][rows]
    q = data["q"][rows]
    chosen = (slots == data["chosen"][rows, None]).argmax(axis=1)
    policy = (slots == data["policy"][rows, None]).argmax(axis=1)
    gain[rows] = q[np.arange(len(rows)), chosen] - q[np.arange(len(rows)), policy]
    return gain


def agreement(model, obs, masks_of, chosen, deviated, old_logp, index) -> dict:
    """On ``index``: the share of deviated decisions where the model's best move is the
    search's, and of the others where it is the old network's."""
    import torch

    model.eval()
    hit_dev = hit_kept = dev_count = 0
    with torch.no_grad():
        for b in range(0, len(index), 8192):
            part = index[b : b + 8192]
            logits, _ = model(obs[part], masks_of(part))
            best = logits.argmax(dim=1)
            dev = deviated[part]
            hit_dev += int(((best == chosen[part]) & dev).sum())
            hit_kept += int(((best == old_logp[part].argmax(dim=1)) & ~dev).sum())
            dev_count += int(dev.sum())
    return {
        "deviated": hit_dev / max(1, dev_count),
        "kept": hit_kept / max(1, len(index) - dev_count),
        "held_deviated": dev_count,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.expert_iteration",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="stage", required=True)
    rec = sub.add_parser("record", help="search self-play decisions -> OUT/chunk_*.npz")
    rec.add_argument("--players", type=int, choices=(2, 4), default=2)
    rec.add_argument("--agent", help="the search agent (default search:classic-Np)")
    rec.add_argument("--hands", type=int, default=200)
    rec.add_argument("--seed", type=int, default=60000)
    rec.add_argument("--chunk", type=int, default=20)
    rec.add_argument("--out", type=Path, required=True)
    tr = sub.add_parser("train", help="fine-tune the network on the recorded choices")
    tr.add_argument("--players", type=int, choices=(2, 4), default=2)
    tr.add_argument("--model", help="the network to start from (default classic-Np)")
    tr.add_argument("--data", type=Path, required=True)
    tr.add_argument("--out", type=Path, required=True)
    tr.add_argument("--epochs", type=int, default=4)
    tr.add_argument("--lr", type=float, default=1e-4)
    tr.add_argument("--deviation-weight", type=float, default=4.0)
    tr.add_argument(
        "--min-gain",
        type=float,
        default=0.0,
        help="a deviation is a target only where its rollouts gained this much",
    )
    tr.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.stage == "record":
        spec = args.agent or f"search:classic-{args.players}p"
        if not spec.startswith("search:"):
            parser.error("--agent must be a search: agent")
        record(spec[len("search:") :], args.players, args.hands, args.seed, args.out, args.chunk)
    else:
        report = train(
            args.model or f"classic-{args.players}p",
            args.data,
            args.out,
            epochs=args.epochs,
            lr=args.lr,
            deviation_weight=args.deviation_weight,
            seed=args.seed,
        )
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
