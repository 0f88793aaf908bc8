"""The ``critic`` setting (training/critic.py): the oracle critic's privileged features are
exact on stacked deals on both engines, the rollout records them without changing a hand,
the policy never reads them, and a tiny ``--critic oracle`` run trains, resumes and
exports a model file that plays."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.base import play_hands  # noqa: E402
from agents.model_file import FORMAT  # noqa: E402
from agents.network import SHIPPED  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from canasta_cli.train import main  # noqa: E402
from canasta_env import core  # noqa: E402
from canasta_env.actions import NUM_ACTIONS  # noqa: E402
from canasta_env.observation import OBS_SIZE  # noqa: E402
from canasta_env.rules import make_rules  # noqa: E402
from canasta_env.table import Table  # noqa: E402
from tests.scenario import counts, stacked_deck  # noqa: E402
from training import net  # noqa: E402
from training.config import SettingError  # noqa: E402
from training.critic import PRIVILEGED_SIZE, critic_inputs, privileged  # noqa: E402
from training.ppo import Learner  # noqa: E402
from training.rollout import LEARNER, HandRunner, collect, numpy_policy  # noqa: E402
from training.run import make_config  # noqa: E402

needs_core = pytest.mark.skipif(not core.AVAILABLE, reason=core.WHY_NOT)
BACKENDS = ["python", pytest.param("core", marks=needs_core)]
HANDS_4P = [  # classic 4p: 11 cards each, seat 0 first
    "4S 4H 4D 5S 5H 5D 6S 6H 6D 7S 7H",
    "8S 8H 8D 9S 9H 9D TS TH TD JS JH",
    "QS QH QD KS KH KD AS AH AD 2S 2H",
    "JK JK 3S 3C 7D 7C 8C 9C TC JC QC",
]


def quarter(text: str) -> list[float]:
    """The 14 hand kinds of ``text``, each count times a quarter (the observation's scale)."""
    return [n / 4 for n in counts(text)[:14]]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_privileged_features_of_a_stacked_4p_deal(backend):
    deck = stacked_deck("classic", 4, HANDS_4P, then="KC")  # the pot starts with KC
    table = Table(make_rules("classic"), 4, seed=3, deck=deck, backend=backend)
    hidden = table.hidden_counts()
    features = privileged(np.stack([hidden, hidden]), [2, 0])
    assert features.shape == (2, PRIVILEGED_SIZE) and features.dtype == np.float32
    # seat 2 sees seats 3, 0, 1 in the order they play after it, then two empty seats
    seat2 = features[0]
    assert seat2[:42].tolist() == quarter(HANDS_4P[3]) + quarter(HANDS_4P[0]) + quarter(HANDS_4P[1])
    assert not seat2[42:70].any()
    # the stock: 108 - 44 - KC = 63 cards, by kind (red 3s too), a quarter each
    #           4  5  6  7  8  9  T  J  Q  K  A  2 JK B3 R3
    stock = [5, 5, 5, 4, 4, 4, 4, 5, 4, 4, 5, 6, 2, 2, 4]
    assert sum(stock) == 108 - 44 - 1
    assert seat2[70:85].tolist() == [n / 4 for n in stock]
    assert not seat2[85:].any()  # classic turns no pot card face down
    # seat 0 sees seats 1, 2, 3; the stock is everyone's
    seat0 = features[1]
    assert seat0[:42].tolist() == sum((quarter(HANDS_4P[s]) for s in (1, 2, 3)), [])
    assert np.array_equal(seat0[42:], seat2[42:])


def test_the_face_down_pot_cards_are_the_last_features():
    down = "4C 4C 5C 9C 9C KC"  # spanish: six pot cards face down
    hands = ["AS AH AD KS KH KD QS QH QD JS JH JD TS TH TD"] * 2
    deck = stacked_deck("spanish", 2, hands, then=f"{down} 6C")
    table = Table(make_rules("spanish"), 2, seed=3, deck=deck)
    features = privileged(table.hidden_counts()[None], [1])[0]
    assert features[:14].tolist() == quarter(hands[0])
    assert features[85:].tolist() == [n / 4 for n in counts(down)]


def test_the_critic_input_sizes():
    assert PRIVILEGED_SIZE == 5 * 14 + 15 + 15
    assert critic_inputs("shared") == 0
    assert critic_inputs("separate") == OBS_SIZE
    assert critic_inputs("oracle") == OBS_SIZE + PRIVILEGED_SIZE == 786
    config = make_config(critic="oracle", hidden=[16], jobs=0, threads=1, device="cpu")
    learner = Learner(config, SHIPPED["classic-2p"], lambda line: None)
    assert learner.critic[0].in_features == 786
    # the policy starts from the model file, its first layer over the observation alone
    actor = net.ModelFile(SHIPPED["classic-2p"]).actor
    ours = learner.actor()
    assert ours[0][0].shape == (OBS_SIZE, 512)
    assert all(np.array_equal(a, b) for pair in zip(actor, ours) for a, b in zip(*pair))
    with pytest.raises(SettingError, match="critic must be one of shared, separate, oracle"):
        make_config(critic="omniscient")


def test_the_value_head_is_a_probe_of_the_trunk():
    """With a critic of its own the policy's value head learns without a gradient to the
    trunk: the policy's features are shaped by its own loss alone."""
    torch.manual_seed(0)
    model = net.build(OBS_SIZE, NUM_ACTIONS, [16])
    obs = torch.rand(8, OBS_SIZE)
    for probe, reaches_trunk in ((True, False), (False, True)):
        model.zero_grad(set_to_none=True)
        _, value = model(obs, probe=probe)
        (value**2).mean().backward()
        assert (model.trunk[0].weight.grad is not None) == reaches_trunk
        assert model.v.weight.grad.abs().sum() > 0


@pytest.fixture(scope="module")
def policy():
    torch.manual_seed(0)
    model = net.build(OBS_SIZE, NUM_ACTIONS, [32])
    with torch.no_grad():  # a policy with opinions, not a near-uniform one
        model.pi.weight.mul_(300.0)
    return numpy_policy(net.actor_layers(model))


@pytest.mark.parametrize(
    "backend,batched,path",
    [
        ("python", False, "tables"),
        pytest.param("core", False, "tables", marks=needs_core),
        pytest.param("core", None, "batched", marks=needs_core),
    ],
)
def test_collect_plays_the_same_hands_with_the_hidden_cards(policy, backend, batched, path):
    opponents = [(LEARNER, 1.0), (("bot", "greedy"), 1.0)]
    args = ([("classic", 4)], [1.0], opponents, {"learner": policy}, [0, 2], 0.25)

    def run(hidden: bool) -> dict:
        runner = HandRunner(envs=4, backend=backend, batched=batched)
        data = collect(runner, 300, *args, hidden=hidden)
        assert runner.path == path
        return data

    plain, oracle = run(False), run(True)
    assert "privileged" not in plain
    assert set(oracle) == set(plain) | {"privileged"}
    for key, value in plain.items():
        if key == "results":
            assert oracle[key] == value
        else:
            assert np.array_equal(oracle[key], value), key
    features = oracle["privileged"]
    assert features.shape == (len(plain["actions"]), PRIVILEGED_SIZE)
    # 4 players: three other hands, then the empty seats; the cards all lie somewhere
    assert features[:, :42].any(axis=1).all() and not features[:, 42:70].any()
    assert features[:, 70:85].any()


@needs_core
def test_both_rollout_paths_record_the_same_features(policy):
    args = ([("classic", 2)], [1.0], [(("bot", "expert"), 1.0)], {"learner": policy}, [5], 0.25)
    tables = collect(HandRunner(envs=4, batched=False), 200, *args, hidden=True)
    batched = collect(HandRunner(envs=4, batched=True), 200, *args, hidden=True)
    assert np.array_equal(tables["privileged"], batched["privileged"])


TINY = [
    "--record-steps", "400", "--bc-epochs", "1", "--ppo-steps", "900",
    "--rollout-steps", "300", "--eval-every", "2", "--eval-deals", "2",
    "--jobs", "0", "--envs", "8", "--threads", "1", "--hidden", "32", "--no-progress",
    "--critic", "oracle",
]  # fmt: skip


def test_a_tiny_oracle_run_resumes_and_exports_a_model_that_plays(tmp_path, capsys):
    """record -> imitate -> ppo with the oracle critic: the checkpoint holds the critic (on
    the observation and the hidden cards), model.npz the policy alone (on the observation,
    with its value head, the probe); a run stopped after one iteration and resumed ends
    with the network of one run straight through; a changed critic is refused."""
    straight = tmp_path / "straight"
    assert main(["--run-dir", str(straight), *TINY]) == 0
    assert "[ppo] critic oracle: a new network of its own" in capsys.readouterr().err
    state = torch.load(straight / "checkpoint.pt", weights_only=True)
    assert state["critic"]["0.weight"].shape == (32, OBS_SIZE + PRIVILEGED_SIZE)
    model = net.ModelFile(straight / "model.npz")
    assert model.meta["format"] == FORMAT and model.obs_size == OBS_SIZE
    assert model.actor[0][0].shape == (OBS_SIZE, 32)  # the policy never reads the features
    imitation = net.ModelFile(straight / "imitation.npz")
    assert not np.array_equal(model.value_head[0], imitation.value_head[0])  # the probe learns
    assert json.loads((straight / "config.json").read_text())["critic"] == "oracle"

    split = tmp_path / "split"
    args = TINY.copy()
    args[args.index("--ppo-steps") + 1] = "300"
    assert main(["--run-dir", str(split), *args]) == 0
    assert main(["--resume", str(split), "--ppo-steps", "900", "--no-progress"]) == 0
    a, b = (net.ModelFile(run / "model.npz").actor for run in (straight, split))
    assert all(np.array_equal(x, y) for pair in zip(a, b) for x, y in zip(*pair))
    with pytest.raises(SystemExit):
        main(["--resume", str(split), "--critic", "shared", "--no-progress"])
    assert "(got critic)" in capsys.readouterr().err  # not among the settings that may change

    agent = make_agent(f"ppo:{straight / 'model.npz'}")
    records = play_hands([agent, make_agent("random", seed=1)], 2, variant="classic", seed=3)
    assert all(r.end_reason for r in records)


def test_the_rllib_backend_refuses_a_critic_of_its_own(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["--backend", "rllib", "--run-dir", str(run), "--critic", "oracle"]) == 2
    assert "--critic oracle is canasta train's" in capsys.readouterr().err
    assert not run.exists()
