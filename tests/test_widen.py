"""research.widen: a wider network that plays exactly as the narrower one did."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.model_file import ModelFile  # noqa: E402
from agents.network import PolicyWeights  # noqa: E402
from research.widen import main, widen  # noqa: E402
from training import net  # noqa: E402

OBS, ACTIONS = 40, 12


@pytest.fixture
def small(tmp_path):
    torch.manual_seed(3)
    model = net.build(OBS, ACTIONS, [16, 8])
    with torch.no_grad():  # nonzero heads, so that a wrong widening shows in the outputs
        model.pi.weight.normal_(0, 0.5)
        model.v.weight.normal_(0, 0.5)
    return net.save(model, tmp_path / "small.npz", {"steps": 123})


def outputs(path, obs):
    model = net.to_torch(ModelFile(path))
    with torch.no_grad():
        logits, value = model(torch.from_numpy(obs))
    return logits.numpy(), value.numpy()


def test_widened_model_computes_the_same_policy_and_value(small, tmp_path):
    obs = np.random.default_rng(0).random((64, OBS), dtype=np.float32) * 3
    widen(str(small), str(tmp_path / "wide.npz"), [40, 24], seed=1)
    wide = net.ModelFile(tmp_path / "wide.npz")
    assert [w.shape for w, _ in wide.trunk] == [(OBS, 40), (40, 24)]
    assert wide.meta["hidden"] == [40, 24] and wide.meta["steps"] == 123
    assert wide.meta["widened_from"] == str(small)
    old_logits, old_value = outputs(small, obs)
    new_logits, new_value = outputs(tmp_path / "wide.npz", obs)
    np.testing.assert_allclose(new_logits, old_logits, atol=1e-5)
    np.testing.assert_allclose(new_value, old_value, atol=1e-5)
    # the new units are live (random incoming weights), so PPO can use them
    assert np.abs(wide.trunk[0][0][:, 16:]).sum() > 0
    assert np.abs(wide.trunk[1][0][16:, :8]).sum() == 0  # and silent in the old units
    assert np.abs(wide.actor[-1][0][8:]).sum() == 0 and np.abs(wide.value_head[0][8:]).sum() == 0
    # the numpy forward pass that the arena's agent uses agrees too
    player = PolicyWeights(wide.actor, "ReLU")
    np.testing.assert_allclose(player.logits(obs), old_logits, atol=1e-4)


def test_widen_refuses_narrower_or_other_depth(small, tmp_path, capsys):
    with pytest.raises(ValueError, match="narrower"):
        widen(str(small), str(tmp_path / "w.npz"), [8, 8])
    with pytest.raises(ValueError, match="2 hidden layers"):
        widen(str(small), str(tmp_path / "w.npz"), [32])
    with pytest.raises(SystemExit) as exit_info:
        main([str(small), str(tmp_path / "w.npz"), "--hidden", "32,x"])
    assert exit_info.value.code == 2
    assert "not a comma list" in capsys.readouterr().err
    assert not (tmp_path / "w.npz").exists()
