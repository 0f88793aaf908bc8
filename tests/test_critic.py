"""The oracle critic's privileged features (training/critic.py) are exact on stacked deals
on both engines, and the rollout records them without changing a hand."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from canasta_env import core  # noqa: E402
from canasta_env.actions import NUM_ACTIONS  # noqa: E402
from canasta_env.observation import OBS_SIZE  # noqa: E402
from canasta_env.rules import make_rules  # noqa: E402
from canasta_env.table import Table  # noqa: E402
from tests.scenario import counts, stacked_deck  # noqa: E402
from training import net  # noqa: E402
from training.critic import PRIVILEGED_SIZE, privileged  # noqa: E402
from training.rollout import LEARNER, HandRunner, collect, numpy_policy  # noqa: E402

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
