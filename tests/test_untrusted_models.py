"""Model files from elsewhere are data (issue 21): a ``.npz`` model file is checked before
anything in it is unpacked, every problem one ``ValueError`` naming the file; a
Stable-Baselines3 ``.zip`` (which pickle loads, and so can run code) is loaded only with
``trust_pickle`` / ``--trust-pickle``, the shipped one excepted."""

from __future__ import annotations

import base64
import io
import json
import pickle
import re
import shutil
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents.network import SHIPPED, load_agent
from agents.registry import make_agent
from canasta_cli import arena as arena_command
from canasta_cli import play as play_command
from canasta_env.actions import NUM_ACTIONS
from canasta_env.observation import OBS_SIZE
from training import net

OBS, HIDDEN, ACTIONS = 6, [4], 5


def _arrays(obs=OBS, hidden=HIDDEN, actions=ACTIONS, dtype=np.float32) -> dict:
    rng = np.random.default_rng(0)
    arrays, size = {}, obs
    for i, width in enumerate(hidden):
        arrays[f"trunk_w{i}"] = rng.standard_normal((size, width)).astype(dtype)
        arrays[f"trunk_b{i}"] = np.zeros(width, dtype)
        size = width
    arrays["pi_w"] = rng.standard_normal((size, actions)).astype(dtype)
    arrays["pi_b"] = np.zeros(actions, dtype)
    arrays["v_w"], arrays["v_b"] = np.ones((size, 1), dtype), np.zeros(1, dtype)
    return arrays


def _meta(**changes) -> bytes:
    meta = {"format": net.FORMAT, "obs_size": OBS, "num_actions": ACTIONS, "hidden": HIDDEN}
    return json.dumps({**meta, **changes}).encode()


def _model(path: Path, arrays: dict | None = None, meta: bytes | None = None) -> Path:
    """A model file as :func:`training.net.save` writes one (``meta`` raw bytes)."""
    arrays = dict(_arrays() if arrays is None else arrays)
    arrays["meta"] = np.frombuffer(_meta() if meta is None else meta, dtype=np.uint8)
    np.savez_compressed(path, **arrays)
    return path


def _npy_header(shape: tuple, descr: str = "<f4") -> bytes:
    buffer = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue()


def _replace_member(path: Path, name: str, data: bytes | None) -> Path:
    """``path`` with member ``name`` replaced by ``data`` (removed when None)."""
    with zipfile.ZipFile(path) as source:
        members = {i.filename: source.read(i) for i in source.infolist()}
    if data is None:
        del members[name]
    else:
        members[name] = data
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for member, content in members.items():
            target.writestr(member, content)
    return path


def _refused(path: Path, pattern: str) -> str:
    """The one ValueError that loading ``path`` raises: it names the file and matches."""
    with pytest.raises(ValueError) as caught:
        net.ModelFile(path)
    message = str(caught.value)
    assert message.startswith(f"model file {path}: "), message
    assert re.search(pattern, message), message
    assert "\n" not in message
    return message


def test_a_well_formed_small_model_loads_and_acts(tmp_path):
    path = _model(tmp_path / "ok.npz")
    model = net.ModelFile(path)
    expected = _arrays()
    assert model.meta["hidden"] == HIDDEN and model.obs_size == OBS
    assert np.array_equal(model.actor[0][0], expected["trunk_w0"])
    assert np.array_equal(model.actor[-1][0], expected["pi_w"])
    assert np.array_equal(model.value_head[0], expected["v_w"])
    agent = load_agent(path)
    mask = np.ones(ACTIONS, dtype=np.int8)
    assert 0 <= agent.act(np.ones(OBS + 3, dtype=np.float32), mask) < ACTIONS


@pytest.mark.parametrize("name", ["classic-2p", "classic-4p"])
def test_the_shipped_models_load_as_numpy_reads_them(name):
    model = net.ModelFile(SHIPPED[name])
    with np.load(SHIPPED[name], allow_pickle=False) as data:
        stored = {key: data[key] for key in data.files}
    loaded = {f"trunk_w{i}": w for i, (w, _b) in enumerate(model.trunk)}
    loaded |= {f"trunk_b{i}": b for i, (_w, b) in enumerate(model.trunk)}
    loaded |= {"pi_w": model.actor[-1][0], "pi_b": model.actor[-1][1]}
    loaded |= {"v_w": model.value_head[0], "v_b": model.value_head[1]}
    assert set(loaded) | {"meta"} == set(stored)
    for key, array in loaded.items():
        assert array.dtype == stored[key].dtype and np.array_equal(array, stored[key]), key
    assert model.meta == json.loads(stored["meta"].tobytes())


def test_meta_that_is_not_utf8(tmp_path):
    path = _model(tmp_path / "m.npz", meta=b'{"format": "\xff\xfe"}')
    _refused(path, r"meta: not UTF-8")


def test_meta_that_is_a_json_list(tmp_path):
    path = _model(tmp_path / "m.npz", meta=b"[1, 2, 3]")
    _refused(path, r"meta is a JSON list, not an object")


@pytest.mark.parametrize(
    ("meta", "pattern"),
    [
        (b'{"format": "canasta-mlp-1", "obs_size": "6", "num_actions": 5, "hidden": [4]}',
         r"meta obs_size is '6', not a positive integer"),
        (b'{"format": "canasta-mlp-1", "obs_size": 6, "num_actions": 5, "hidden": 4}',
         r"meta hidden is '4', not a list of positive integers"),
        (b'{"format": "other", "obs_size": 6, "num_actions": 5, "hidden": [4]}',
         r"unknown model format 'other'"),
        (b'{"format": "canasta-mlp-1", "x": ' + b'{"x": ' * 100 + b"1" + b"}" * 101,
         r"meta: nested deeper than"),
    ],
)  # fmt: skip
def test_meta_without_the_keys_and_types_the_format_needs(tmp_path, meta, pattern):
    _refused(_model(tmp_path / "m.npz", meta=meta), pattern)


def test_missing_weights(tmp_path):
    path = _replace_member(_model(tmp_path / "m.npz"), "pi_w.npy", None)
    _refused(path, r"member 'pi_w.npy' is missing")


def test_a_member_the_format_does_not_use(tmp_path):
    path = _replace_member(_model(tmp_path / "m.npz"), "payload.pkl", b"\x80\x04N.")
    _refused(path, r"member 'payload.pkl' is none of the format's")


def test_weights_of_a_dtype_the_format_does_not_use(tmp_path):
    arrays = _arrays()
    arrays["pi_w"] = arrays["pi_w"].astype(np.int64)
    _refused(_model(tmp_path / "m.npz", arrays), r"'pi_w.npy' claims dtype int64")
    arrays["pi_w"] = np.array([None] * (4 * ACTIONS), dtype=object).reshape(4, ACTIONS)
    _refused(_model(tmp_path / "o.npz", arrays), r"'pi_w.npy' claims dtype object")


def test_weights_of_another_shape_than_the_meta_says(tmp_path):
    arrays = _arrays()
    arrays["pi_w"] = np.zeros((4, ACTIONS + 1), np.float32)
    _refused(_model(tmp_path / "m.npz", arrays), r"'pi_w.npy' claims shape \(4, 6\).*\(4, 5\)")


def test_a_header_claiming_a_trillion_elements(tmp_path):
    """The header is read before the data: no array of the claimed size is allocated."""
    huge = _npy_header((10**6, 10**6)) + b"\0" * 64
    path = _replace_member(_model(tmp_path / "m.npz"), "pi_w.npy", huge)
    _refused(path, r"member 'pi_w.npy' claims shape \(1000000, 1000000\), but its meta")
    # meta that agrees with the header: the member is far too small for what it claims
    meta = _meta(obs_size=10**6, hidden=[10**6])
    path = _replace_member(_model(tmp_path / "n.npz", meta=meta), "trunk_w0.npy", huge)
    _refused(path, r"member 'trunk_w0.npy' claims shape \(1000000, 1000000\).*larger than")


def test_a_zip_bomb_is_refused_before_it_is_unpacked(tmp_path):
    """A member of 96 MB of zeros (about 100 kB packed) whose header agrees with its meta."""
    side = 5016  # 5016 * 5016 * 4 bytes, about 96 MiB
    path = _model(tmp_path / "bomb.npz", meta=_meta(obs_size=side, hidden=[side]))
    with zipfile.ZipFile(path) as source:
        members = {i.filename: source.read(i) for i in source.infolist()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for member, content in members.items():
            if member != "trunk_w0.npy":
                target.writestr(member, content)
        with target.open("trunk_w0.npy", "w", force_zip64=True) as stream:
            stream.write(_npy_header((side, side)))
            zeros = bytes(2**20)
            for _ in range(side * side * 4 // len(zeros)):
                stream.write(zeros)
            stream.write(bytes(side * side * 4 % len(zeros)))
    assert path.stat().st_size < 2**20
    tracemalloc.start()
    try:
        _refused(path, r"member 'trunk_w0.npy' unpacks to [\d,]+ bytes: larger than")
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20


@pytest.mark.parametrize(
    "content", [b"not a model", b"PK\x03\x04" + b"\0" * 40, pickle.dumps({"pi_w": 1})]
)
def test_files_that_are_not_zip_archives(tmp_path, content):
    path = tmp_path / "m.npz"
    path.write_bytes(content)
    _refused(path, r"not a model file")


def test_a_truncated_member(tmp_path):
    data = _npy_header((4, ACTIONS)) + b"\0" * 8  # 8 of 80 bytes
    path = _replace_member(_model(tmp_path / "m.npz"), "pi_w.npy", data)
    _refused(path, r"'pi_w.npy' claims shape \(4, 5\) \(80 bytes\): larger than the member")


def test_the_arena_reports_a_bad_model_file_in_one_line(tmp_path, capsys):
    path = _model(tmp_path / "m.npz", meta=b"[1]")
    argv = ["--players", "2", "--agents", f"ppo:{path}", "random", "--hands", "1"]
    assert arena_command.main(argv + ["--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == f"canasta arena: model file {path}: meta is a JSON list, not an object\n"


# ---------------------------------------------------------------------- pickled models


class _Payload:
    """Unpickling it writes ``marker``: what a hostile model file could do instead."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "the payload ran"))


def _hostile_sb3_zip(path: Path, marker: Path) -> Path:
    """A zip laid out as Stable-Baselines3 saves a model: its ``data`` member is JSON whose
    ``:serialized:`` entries are base64 pickles, which ``MaskablePPO.load`` unpickles."""
    serialized = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": serialized}}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("_stable_baselines3_version", "2.9.2")
    return path


def test_a_pickled_model_runs_code_only_when_trusted(tmp_path):
    pytest.importorskip("sb3_contrib")
    marker = tmp_path / "marker.txt"
    path = _hostile_sb3_zip(tmp_path / "model.zip", marker)
    for load in (lambda: load_agent(path), lambda: make_agent(f"ppo:{path}")):
        with pytest.raises(ValueError) as caught:
            load()
        message = str(caught.value)
        assert f"{path} is a Stable-Baselines3 zip" in message
        assert "trust_pickle=True" in message and "--trust-pickle" in message
        assert not marker.exists()
    # the file is no model: whatever fails after the unpickling, what it ran counts
    with pytest.raises(Exception):  # noqa: B017
        make_agent(f"ppo:{path}", trust_pickle=True)
    assert marker.read_text() == "the payload ran"  # the positive control: pickle runs it
    marker.unlink()
    with pytest.raises(Exception):  # noqa: B017
        load_agent(tmp_path, trust_pickle=True)  # a run folder resolves to model.zip
    assert marker.exists()


def test_the_commands_refuse_a_pickled_model_without_the_flag(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")

    marker = tmp_path / "marker.txt"
    path = _hostile_sb3_zip(tmp_path / "model.zip", marker)
    argv = ["--players", "2", "--agents", f"ppo:{path}", "random", "--hands", "1"]
    assert arena_command.main(argv + ["--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert "--trust-pickle" in capsys.readouterr().err
    assert arena_command.main(["--speed", "--agents", f"ppo:{path}"]) == 2
    assert "--trust-pickle" in capsys.readouterr().err
    output = io.StringIO()
    assert play_command.main(["--players", "2", "--opponents", f"ppo:{path}"], output=output) == 2
    assert "--trust-pickle" in output.getvalue()
    assert not marker.exists() and not (tmp_path / "out").exists()


def test_the_shipped_pickled_model_needs_no_flag_and_a_copy_does(tmp_path):
    pytest.importorskip("sb3_contrib")
    shipped = make_agent("ppo:sb3-classic-2p")
    copy = shutil.copy(SHIPPED["sb3-classic-2p"], tmp_path / "copy.zip")
    with pytest.raises(ValueError, match="--trust-pickle"):
        make_agent(f"ppo:{copy}")
    trusted = make_agent(f"ppo:{copy}", trust_pickle=True)
    obs = np.random.default_rng(1).random(trusted.weights.obs_size, dtype=np.float32)
    mask = np.ones(trusted.weights.num_actions, dtype=np.int8)
    assert trusted.act(obs, mask) == shipped.act(obs, mask)


def test_the_flag_reaches_the_arena_workers(tmp_path, capsys):
    """``--jobs 2``: the spawned workers build the trusted agent themselves."""
    pytest.importorskip("sb3_contrib")
    copy = shutil.copy(SHIPPED["sb3-classic-2p"], tmp_path / "copy.zip")
    argv = ["--players", "2", "--agents", f"ppo:{copy}", "random", "--hands", "2", "--jobs", "2"]
    argv += ["--out", str(tmp_path / "out"), "--no-progress", "--no-plot", "--trust-pickle"]
    assert arena_command.main(argv) == 0, capsys.readouterr().err
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert len(saved["hands"]) == 2 and saved["partial"] is False


def test_a_loader_without_the_keyword_is_called_as_before(monkeypatch):
    """``trust_pickle`` is handed only to a loader that takes it."""
    import types
    from importlib.metadata import EntryPoint

    from agents import registry
    from agents.base import RandomAgent

    calls = []
    module = types.ModuleType("fake_loaders")
    module.plain = lambda path: calls.append(("plain", path)) or RandomAgent(0)
    module.careful = lambda path, trust_pickle=False: (
        calls.append(("careful", path, trust_pickle)) or RandomAgent(0)
    )
    monkeypatch.setitem(__import__("sys").modules, "fake_loaders", module)
    points = [
        EntryPoint("plain", "fake_loaders:plain", registry.LOADER_GROUP),
        EntryPoint("careful", "fake_loaders:careful", registry.LOADER_GROUP),
    ]
    monkeypatch.setattr(registry, "entry_points", lambda group: points)
    make_agent("plain:a", trust_pickle=True)
    make_agent("careful:b")
    make_agent("careful:c", trust_pickle=True)
    assert calls == [("plain", "a"), ("careful", "b", False), ("careful", "c", True)]


# ---------------------------------------------------------------------- fit and finite weights
def test_a_model_of_the_tables_sizes_plays_a_hand(tmp_path):
    """The positive control of the checks below: the largest network a table can seat."""
    from agents.base import RandomAgent, play_hands

    arrays = _arrays(obs=OBS_SIZE, actions=NUM_ACTIONS)
    meta = _meta(obs_size=OBS_SIZE, num_actions=NUM_ACTIONS)
    agent = load_agent(_model(tmp_path / "full.npz", arrays, meta))
    (record,) = play_hands([agent, RandomAgent(0)], 1, seed=3)
    assert record.steps > 0


@pytest.mark.parametrize(
    ("changes", "pattern"),
    [
        ({"obs": OBS_SIZE + 1}, rf"obs_size {OBS_SIZE + 1} does not fit the table's observation"),
        ({"actions": NUM_ACTIONS + 1}, rf"num_actions {NUM_ACTIONS + 1} does not fit the table"),
    ],
)
def test_a_model_larger_than_the_table_is_refused_at_load(tmp_path, changes, pattern):
    """Such a model loaded, then failed in the middle of a hand (its first matrix product)."""
    sizes = {"obs": OBS, "actions": ACTIONS, **changes}
    meta = _meta(obs_size=sizes["obs"], num_actions=sizes["actions"])
    path = _model(tmp_path / "big.npz", _arrays(**sizes), meta)
    _refused(path, pattern)
    with pytest.raises(ValueError, match=pattern):
        make_agent(f"ppo:{path}")


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("member", ["pi_w", "trunk_b0", "v_w"])
def test_weights_that_are_not_finite_are_refused_naming_the_tensor(tmp_path, member, value):
    """A NaN among the logits made argmax pick an illegal move."""
    arrays = _arrays()
    arrays[member].flat[1 % arrays[member].size] = value
    _refused(
        _model(tmp_path / "nan.npz", arrays), rf"member '{member}.npy' holds 1 NaN or infinite"
    )


def test_a_stable_baselines3_model_with_nan_weights_is_refused_even_when_trusted(tmp_path):
    pytest.importorskip("sb3_contrib")
    import torch

    agent = load_agent(
        shutil.copy(SHIPPED["sb3-classic-2p"], tmp_path / "ok.zip"), trust_pickle=True
    )
    with torch.no_grad():
        agent.model.policy.action_net.weight[3, 4] = float("nan")
    agent.model.save(tmp_path / "nan.zip")
    with pytest.raises(ValueError) as caught:
        load_agent(tmp_path / "nan.zip", trust_pickle=True)
    message = str(caught.value)
    assert message == (
        f"model file {tmp_path / 'nan.zip'}: tensor 'action_net.weight' holds NaN or infinite "
        "weights"
    )


def test_a_stable_baselines3_zip_bomb_is_refused_before_it_is_loaded(tmp_path):
    pytest.importorskip("sb3_contrib")
    from agents.network import MAX_SB3_MODEL_BYTES

    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(SHIPPED["sb3-classic-2p"]) as source:
        members = {i.filename: source.read(i) for i in source.infolist()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as target:
        for member, content in members.items():
            if member != "policy.optimizer.pth":
                target.writestr(member, content)
        with target.open("policy.optimizer.pth", "w", force_zip64=True) as stream:
            zeros = bytes(2**22)
            for _ in range(MAX_SB3_MODEL_BYTES // len(zeros) + 1):
                stream.write(zeros)
    assert path.stat().st_size < 4 * 2**20
    with pytest.raises(ValueError, match=r"its members unpack to more than 268,435,456 bytes"):
        load_agent(path, trust_pickle=True)
