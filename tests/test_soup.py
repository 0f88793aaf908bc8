"""research/soup.py: the weight average of networks of one layout (issue 45)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.model_file import ModelFile, file_digest
from research.soup import average, main


def _model(path, seed: int, hidden=(8, 4), obs_size=40, num_actions=30, tables=None) -> str:
    rng = np.random.default_rng(seed)
    arrays, size = {}, obs_size
    for i, width in enumerate(hidden):
        arrays[f"trunk_w{i}"] = rng.normal(size=(size, width)).astype(np.float32)
        arrays[f"trunk_b{i}"] = rng.normal(size=width).astype(np.float32)
        size = width
    arrays["pi_w"] = rng.normal(size=(size, num_actions)).astype(np.float32)
    arrays["pi_b"] = rng.normal(size=num_actions).astype(np.float32)
    arrays["v_w"] = rng.normal(size=(size, 1)).astype(np.float32)
    arrays["v_b"] = rng.normal(size=1).astype(np.float32)
    meta = {"format": "canasta-mlp-1", "obs_size": obs_size, "num_actions": num_actions,
            "hidden": list(hidden)}  # fmt: skip
    if tables is not None:
        meta["tables"] = tables
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, **arrays)
    return str(path)


def test_every_weight_is_the_mean_of_the_inputs(tmp_path):
    paths = [_model(tmp_path / f"m{i}.npz", seed=i) for i in range(3)]
    out = average(paths, tmp_path / "soup.npz")
    soup, inputs = ModelFile(out), [ModelFile(p) for p in paths]
    for layer in range(3):  # two trunk layers and the action head
        for part in range(2):
            expected = np.mean([m.actor[layer][part].astype(np.float64) for m in inputs], axis=0)
            np.testing.assert_allclose(soup.actor[layer][part], expected, rtol=1e-6, atol=1e-6)
            assert not np.allclose(soup.actor[layer][part], inputs[0].actor[layer][part])
    np.testing.assert_allclose(
        soup.value_head[0], np.mean([m.value_head[0] for m in inputs], axis=0), rtol=1e-6
    )
    assert soup.meta["stage"] == "soup"
    assert [entry["sha256"] for entry in soup.meta["soup"]] == [file_digest(p) for p in paths]


def test_the_same_network_twice_is_itself(tmp_path):
    path = _model(tmp_path / "m.npz", seed=5)
    copy = tmp_path / "copy.npz"
    copy.write_bytes((tmp_path / "m.npz").read_bytes())
    soup = ModelFile(average([path, copy], tmp_path / "soup.npz"))
    for (w, b), (w0, b0) in zip(soup.actor, ModelFile(path).actor):
        assert np.array_equal(w, w0) and np.array_equal(b, b0)


@pytest.mark.parametrize(
    "second, message",
    [
        ({"hidden": (8, 5)}, "layout"),
        ({"num_actions": 31}, "layout"),
        ({"tables": [["classic", 2]]}, "tables"),
    ],
    ids=["hidden", "actions", "tables"],
)
def test_networks_that_differ_are_refused_and_nothing_is_written(tmp_path, second, message):
    first = _model(tmp_path / "a.npz", seed=1, tables=[["classic", 4]])
    other = _model(tmp_path / "b.npz", seed=2, **second)
    with pytest.raises(ValueError, match=message):
        average([first, other], tmp_path / "soup.npz")
    assert not (tmp_path / "soup.npz").exists()


def test_bad_requests_are_refused_with_the_problem_named(tmp_path, capsys):
    first = _model(tmp_path / "a.npz", seed=1)
    before = (tmp_path / "a.npz").read_bytes()
    with pytest.raises(ValueError, match="2 to 64 networks"):
        average([first], tmp_path / "soup.npz")
    with pytest.raises(ValueError, match="one of the inputs"):
        average([first, _model(tmp_path / "b.npz", seed=2)], first)
    assert (tmp_path / "a.npz").read_bytes() == before
    (tmp_path / "bad.npz").write_bytes(b"PK not a model")
    assert main([first, str(tmp_path / "bad.npz"), "--out", str(tmp_path / "soup.npz")]) == 2
    assert "bad.npz" in capsys.readouterr().err
    assert not (tmp_path / "soup.npz").exists()


def test_weights_combine_and_extrapolate(tmp_path):
    fine, start = _model(tmp_path / "f.npz", seed=3), _model(tmp_path / "s.npz", seed=4)
    out = tmp_path / "e.npz"
    assert main([fine, start, "--weights", "1.5", "-0.5", "--out", str(out)]) == 0
    mixed, f, s = ModelFile(out), ModelFile(fine), ModelFile(start)
    for layer in range(3):
        for part in range(2):
            expected = f.actor[layer][part] + 0.5 * (
                f.actor[layer][part].astype(np.float64) - s.actor[layer][part]
            )
            np.testing.assert_allclose(mixed.actor[layer][part], expected, rtol=1e-5, atol=1e-5)
    assert [entry["weight"] for entry in mixed.meta["soup"]] == [1.5, -0.5]
    # equal weights are the plain mean
    plain = ModelFile(average([fine, start], tmp_path / "m.npz"))
    half = ModelFile(average([fine, start], tmp_path / "h.npz", [0.5, 0.5]))
    for (w, b), (w0, b0) in zip(plain.actor, half.actor):
        np.testing.assert_allclose(w, w0, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(b, b0, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "weights, message",
    [([1.0], "1 weights for 2"), ([0.6, 0.6], "sum to 1"), ([float("nan"), 1.0], "finite")],
    ids=["count", "sum", "nan"],
)
def test_bad_weights_are_refused_and_nothing_is_written(tmp_path, weights, message):
    paths = [_model(tmp_path / "a.npz", seed=1), _model(tmp_path / "b.npz", seed=2)]
    with pytest.raises(ValueError, match=message):
        average(paths, tmp_path / "soup.npz", weights)
    assert not (tmp_path / "soup.npz").exists()
