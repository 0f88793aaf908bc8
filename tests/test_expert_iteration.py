"""Expert iteration (research/expert_iteration.py): search self-play is recorded
deterministically and consistently with what the search did, a data folder from elsewhere
is checked as data, and training moves the network to the search's choices where it
deviated while the rest stays the old network's."""

from __future__ import annotations

import numpy as np
import pytest

from agents.model_file import ModelFile
from agents.network import PolicyWeights
from agents.search import SHIPPED, load_agent
from canasta_env.actions import NUM_ACTIONS
from canasta_env.observation import OBS_SIZE
from research import expert_iteration as ei

SPEC = "classic-2p@16,depth=6"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("ei") / "data"
    ei.record(SPEC, players=2, hands=3, seed=7100, out=out, chunk=2, log=lambda *_: None)
    return out


def test_recording_is_deterministic_and_says_what_the_search_did(data_dir):
    data = ei.load(data_dir, OBS_SIZE)
    assert sorted(p.name for p in data_dir.glob("chunk_*.npz")) == [
        "chunk_7100.npz",
        "chunk_7102.npz",
    ]
    assert set(np.unique(data["hand"])) == {7100, 7101, 7102}
    again = ei.record_hand(load_agent(SPEC), 2, 7101, score_coef=0.25)
    first = data["hand"] == 7101
    for key in ei.FIELDS:
        np.testing.assert_array_equal(again[key], data[key][first])
    masks = np.unpackbits(data["masks"], axis=1, count=NUM_ACTIONS).astype(bool)
    rows = np.arange(len(masks))
    assert (masks.sum(axis=1) >= 2).all()  # only real choices are kept
    assert masks[rows, data["chosen"]].all() and masks[rows, data["policy"]].all()
    # the network's move is the ppo agent's greedy move on the recorded observation
    policy = PolicyWeights(ModelFile(SHIPPED["classic-2p"]).actor, "ReLU")
    for k in rows[:: max(1, len(rows) // 15)]:
        logits = np.where(masks[k], policy.logits(data["obs"][k]), -np.inf)
        assert data["policy"][k] == int(np.argmax(logits))
    deviated = data["chosen"] != data["policy"]
    assert deviated.any() and data["searched"][deviated].all()
    assert (data["candidates"][deviated] == data["chosen"][deviated, None]).any(axis=1).all()
    assert np.isnan(data["q"][~data["searched"]]).all()
    # the search deviated to a move whose rollouts scored more than the network's
    dev = np.flatnonzero(deviated)
    q_chosen = data["q"][dev][data["candidates"][dev] == data["chosen"][dev, None]]
    q_policy = data["q"][dev][data["candidates"][dev] == data["policy"][dev, None]]
    assert (q_chosen > q_policy).all()
    # both players' decisions, each with its own side's hand reward (one wins, one loses)
    per_hand = {h: set(np.round(data["reward"][data["hand"] == h], 4)) for h in (7100, 7101)}
    assert all(len(rewards) == 2 for rewards in per_hand.values())


def test_a_recorded_chunk_that_exists_is_not_played_again(data_dir, tmp_path):
    before = {p: p.stat().st_mtime_ns for p in data_dir.glob("chunk_*.npz")}
    lines = []
    ei.record(SPEC, players=2, hands=3, seed=7100, out=data_dir, chunk=2, log=lines.append)
    assert lines == [] and {p: p.stat().st_mtime_ns for p in before} == before


def _write(folder, **arrays):
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / "chunk_1.npz", **arrays)


def _good(n=3):
    return {
        "obs": np.zeros((n, OBS_SIZE), np.float32),
        "masks": np.zeros((n, (NUM_ACTIONS + 7) // 8), np.uint8),
        "policy": np.zeros(n, np.int16),
        "chosen": np.zeros(n, np.int16),
        "searched": np.zeros(n, bool),
        "candidates": np.full((n, ei.SLOTS), -1, np.int16),
        "q": np.full((n, ei.SLOTS), np.nan, np.float32),
        "reward": np.zeros(n, np.float32),
        "hand": np.zeros(n, np.int32),
    }


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"obs": np.zeros((3, 10), np.float32)}, r"obs has shape \(3, 10\), not \(3, 686\)"),
        ({"chosen": np.array([0, 1, NUM_ACTIONS], np.int16)}, "chosen holds an action id out"),
        ({"hand": None}, r"missing arrays \['hand'\]"),
        ({"reward": np.array([{"x": 1}] * 3, dtype=object)}, "allow_pickle"),
        # issue 44 (12): NaN data trained a non-finite network
        ({"obs": np.full((3, OBS_SIZE), np.nan, np.float32)}, "obs holds NaN or infinite"),
        ({"reward": np.array([0, np.inf, 0], np.float32)}, "reward holds NaN or infinite"),
        (
            {"candidates": np.zeros((3, ei.SLOTS), np.int16)},  # searched, q still NaN
            "q holds NaN or infinite",
        ),
    ],
)
def test_a_bad_data_folder_is_refused(tmp_path, change, problem):
    arrays = {**_good(), **change}
    _write(tmp_path / "d", **{k: v for k, v in arrays.items() if v is not None})
    with pytest.raises(ValueError, match=problem):
        ei.load(tmp_path / "d", OBS_SIZE)


def test_a_chunk_is_checked_before_it_is_unpacked(tmp_path, monkeypatch):
    folder = tmp_path / "d"
    _write(folder, **_good(), extra=np.zeros(3))
    with pytest.raises(ValueError, match=r"unexpected members \['extra.npy'\]"):
        ei.load(folder, OBS_SIZE)
    _write(folder, **_good(n=400))
    monkeypatch.setattr(ei, "MAX_CHUNK_BYTES", 100_000)
    with pytest.raises(ValueError, match="unpacks to more than 100000 bytes"):
        ei.load(folder, OBS_SIZE)
    (folder / "chunk_1.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a data chunk"):
        ei.load(folder, OBS_SIZE)


def test_an_empty_folder_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no chunk_.*npz data"):
        ei.load(tmp_path, OBS_SIZE)


def test_training_learns_the_deviations_and_keeps_the_rest(data_dir, tmp_path):
    pytest.importorskip("torch", reason="expert iteration trains with torch (extra 'train')")
    out = tmp_path / "model.npz"
    report = ei.train(
        "classic-2p", data_dir, out, epochs=30, lr=1e-3, batch=64, log=lambda *_: None
    )
    assert report["deviated"] > 0
    data = ei.load(data_dir, OBS_SIZE)
    masks = np.unpackbits(data["masks"], axis=1, count=NUM_ACTIONS).astype(bool)
    new = PolicyWeights(ModelFile(out).actor, "ReLU")
    best = np.array(
        [np.argmax(np.where(m, new.logits(o), -np.inf)) for o, m in zip(data["obs"], masks)]
    )
    trained = ~np.isin(data["hand"], report["held_hands"])
    deviated = (data["chosen"] != data["policy"]) & trained
    # before training the network agreed with none of the deviations (by definition)
    assert (best[deviated] == data["chosen"][deviated]).mean() >= 0.8
    kept = ~deviated & trained
    assert (best[kept] == data["policy"][kept]).mean() >= 0.9
    assert ModelFile(out).meta["stage"] == "expert_iteration"
