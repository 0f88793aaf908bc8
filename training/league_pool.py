"""The league: who the learner's team meets in a hand, and which snapshots are in it.

One definition for both training stacks, numpy only (no torch, no Ray): the shipped
recipe (:class:`training.league.Trainer` keeps a :class:`League`, whose entries
:func:`training.rollout.collect` draws from) and the RLlib adapter
(:mod:`training.rllib_backend`: its env draws with :func:`pick` from the same entries,
and its policy mapping plays what the env drew).

Settings (the same keys in ``config.json`` and ``rllib_config.json``):

==================  ===================================================================
``opponents``       weights of the league's entries: ``self`` (the learner plays every
                    team), ``snapshot`` (shared equally by the admitted snapshots), the
                    bots of :data:`BOTS` and the styled bots of :data:`STYLE_BOTS` by
                    name, and frozen networks as ``ppo:MODEL`` (a ``.npz`` model file of
                    the table's size, played greedily as the registry's ``ppo:`` agent:
                    an exploiter's ``best.npz`` from ``canasta exploit``, so that the
                    main agent trains against what exploits it, the AlphaStar pattern);
                    relative, a positive sum
``max_snapshots``   snapshots kept; admitting one more drops the oldest
==================  ===================================================================

Admission (:meth:`League.admits`): at an evaluation, the learner joins as a snapshot when
its mean win rate against the newest snapshot, over the tables, is above one half.

The held-out styled families (:data:`HELD_OUT`, :data:`agents.styles.HELD_OUT_STYLES`)
are never league entries (:func:`held_out_message` says why): they measure how a trained agent
meets styles it never trained against (``canasta train --evaluate``, ``canasta arena``).

A hand's opponent is a *controller*: :data:`LEARNER`, ``("snapshot", key)``,
``("frozen", "ppo:MODEL")`` or ``("bot", name)``; every seat of the other team(s) has it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from agents.styles import HELD_OUT_NAMES, TRAINING_NAMES

BOTS = ("random", "greedy", "expert")
#: The styled bots a learner may meet: ``styled`` (a training family drawn each hand) and
#: ``style:FAMILY`` of each training family (:data:`agents.styles.TRAINING_STYLES`).
STYLE_BOTS = TRAINING_NAMES
#: The names ``opponents`` may weigh.
ENTRIES = ("self", "snapshot", *BOTS, *STYLE_BOTS)
#: Opponents kept out of training, for evaluation only.
HELD_OUT = HELD_OUT_NAMES
LEARNER = ("learner",)
#: How a league entry names a frozen network: ``ppo:`` and a model file.
NETWORK = "ppo:"


def is_network(name: object) -> bool:
    """Whether a league entry is a frozen network (``ppo:MODEL``)."""
    return isinstance(name, str) and name.startswith(NETWORK) and len(name) > len(NETWORK)


def frozen_layers(name: str) -> list | None:
    """The layers of the registry's agent ``name`` when it is a greedy network of the table's
    observation and action ids that the rollouts can play batched (``("frozen", name)``);
    None for any other agent. Raises as :func:`agents.registry.make_agent` does for a name
    it cannot build (a model file is data: :mod:`agents.model_file`)."""
    from agents.network import NetAgent
    from agents.registry import make_agent
    from canasta_env.actions import NUM_ACTIONS
    from canasta_env.observation import OBS_SIZE

    agent = make_agent(name, seed=0)
    weights = getattr(agent, "weights", None)
    if (
        isinstance(agent, NetAgent)
        and agent.deterministic
        and weights.activation == "ReLU"
        and len(weights.inputs) == 1
        and weights.num_actions == NUM_ACTIONS
        and weights.obs_size <= OBS_SIZE
    ):
        return [(w.copy(), b.copy()) for w, b in weights.layers]
    return None


def network_entry_problem(name: str) -> str | None:
    """Why ``ppo:MODEL`` cannot be a league entry (one line), or None when it can."""
    try:
        layers = frozen_layers(name)
    except (ValueError, FileNotFoundError, OSError) as error:
        return f"league entry {name!r}: {error}"
    if layers is None:
        return (
            f"league entry {name!r}: only a .npz model file of this table's observation and "
            "action ids plays in the league (canasta train or canasta exploit writes one)"
        )
    return None


def held_out_message(name: str) -> str:
    """Why the held-out ``name`` may not be weighed in ``opponents``: the held-out list and
    where to play it instead."""
    return (
        f"{name!r} is held out of training (held out: {', '.join(HELD_OUT)}), so that "
        "playing it measures how an agent meets a style it never trained against; play it "
        f"with canasta train --evaluate MODEL --opponents {name} or canasta arena"
    )


def label(controller: tuple) -> str:
    """``self``, a snapshot's key, a frozen network's or a bot's name: how logs and results
    name an opponent."""
    return "self" if controller == LEARNER else controller[1]


def entries(weights: Mapping[str, float], snapshots: Sequence[str]) -> list[tuple[tuple, float]]:
    """(controller, weight) for each entry of ``weights`` with a positive weight, in the
    order of ``weights``; ``snapshot``'s weight shared equally by ``snapshots`` (oldest
    first)."""
    out: list[tuple[tuple, float]] = []
    for name, weight in weights.items():
        if name == "self":
            out.append((LEARNER, weight))
        elif name == "snapshot":
            out.extend((("snapshot", key), weight / len(snapshots)) for key in snapshots)
        elif is_network(name):
            out.append((("frozen", name), weight))
        else:
            out.append((("bot", name), weight))
    return [(controller, weight) for controller, weight in out if weight > 0]


def pick(weighted: Sequence[tuple[tuple, float]], draw: float) -> tuple:
    """The controller that a uniform ``draw`` in [0, 1) lands on, the weights taken as
    shares in order. The same index as ``rng.choice(len(weighted), p=shares)`` for a
    ``rng`` whose next ``random()`` is ``draw`` (numpy's Generator: the same cumulative
    sum and search), so :func:`choose` keeps a seeded run's opponents."""
    weights = np.asarray([weight for _, weight in weighted], dtype=np.float64)
    cdf = (weights / weights.sum()).cumsum()
    cdf /= cdf[-1]
    return weighted[int(cdf.searchsorted(draw, side="right"))][0]


def choose(weighted: Sequence[tuple[tuple, float]], rng: np.random.Generator) -> tuple:
    """A controller drawn from ``weighted`` with ``rng`` (one ``random()`` call)."""
    return pick(weighted, float(rng.random()))


class League:
    """The opponents' weights, ``max_snapshots`` and the admitted snapshots' keys (oldest
    first). What a snapshot *is* (numpy layers, an RLlib module) the trainer keeps."""

    def __init__(
        self, weights: Mapping[str, float], max_snapshots: int, snapshots: Iterable[str] = ()
    ):
        self.weights = dict(weights)
        self.max_snapshots = int(max_snapshots)
        self.snapshots: list[str] = list(snapshots)

    @property
    def newest(self) -> str | None:
        return self.snapshots[-1] if self.snapshots else None

    def entries(self) -> list[tuple[tuple, float]]:
        """(controller, weight) of each entry now (:func:`entries`)."""
        return entries(self.weights, self.snapshots)

    def choose(self, rng: np.random.Generator) -> tuple:
        """A hand's opponent (:func:`choose`)."""
        return choose(self.entries(), rng)

    @staticmethod
    def admits(rows: Mapping[str, Mapping]) -> bool:
        """Whether an evaluation's ``rows`` (``"TABLE/OPPONENT" -> {"win_rate": ...}``) admit
        the learner: its mean win rate against the newest snapshot is above one half."""
        against = [row["win_rate"] for key, row in rows.items() if key.endswith("/snapshot")]
        return bool(against) and float(np.mean(against)) > 0.5

    def admit(self, key: str) -> list[str]:
        """``key`` joins as the newest snapshot; returns the keys dropped (the oldest, past
        ``max_snapshots``)."""
        self.snapshots.append(key)
        cut = max(0, len(self.snapshots) - self.max_snapshots)
        dropped, self.snapshots = self.snapshots[:cut], self.snapshots[cut:]
        return dropped
