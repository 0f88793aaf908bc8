"""The critic that PPO learns beside the policy (the ``critic`` setting), and the hidden
cards that the oracle critic sees.

=============  ==========================================================================
``shared``     the value head on the policy's trunk (:func:`training.net.build`): one
               network, the one every run before this setting trained
``separate``   a critic network of its own (:func:`training.net.build_critic`), on the
               learner's observation only: the control of ``oracle``
``oracle``     that network on the observation and the cards hidden from the learner
               (:func:`privileged`): perfect-information distillation (PerfectDou). The
               policy still sees only its observation; the critic only shapes its
               advantages in training, and the model file holds the policy alone
=============  ==========================================================================

The hidden cards come from the table (:meth:`canasta_env.table.Table.hidden_counts`, one
call to the core), read at each learner decision by the rollout
(:func:`training.rollout.collect`), which changes nothing else in the hands it plays.
"""

from __future__ import annotations

import numpy as np

from canasta_env.cards import NUM_HAND_KINDS, NUM_KINDS
from canasta_env.observation import OBS_SIZE
from canasta_env.observation.layout import MAX_PLAYERS, QUARTER

#: The ``critic`` setting's values (the module table).
CRITICS = ("shared", "separate", "oracle")
SHARED, SEPARATE, ORACLE = CRITICS

#: The other seats' hands, in the order they play after the learner (the observation's
#: ``players`` order), padded to the largest table: 5 x 14 kinds (never a red 3: G-6).
OTHER_HANDS_SIZE = (MAX_PLAYERS - 1) * NUM_HAND_KINDS
#: The privileged features: the other seats' hands, then the stock and the face-down pot
#: cards by kind (15 each: red 3s lie in the stock), each count times a quarter as the
#: observation's counts (``QUARTER``): 70 + 15 + 15 = 100.
PRIVILEGED_SIZE = OTHER_HANDS_SIZE + 2 * NUM_KINDS
assert PRIVILEGED_SIZE == 100


def critic_inputs(critic: str) -> int:
    """The input size of the critic network of ``critic`` (0: the shared value head)."""
    return {SHARED: 0, SEPARATE: OBS_SIZE, ORACLE: OBS_SIZE + PRIVILEGED_SIZE}[critic]


def privileged(counts: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The privileged features (float32 ``[T, PRIVILEGED_SIZE]``) of ``T`` decisions of one
    table: ``counts[t]`` is :meth:`~canasta_env.table.Table.hidden_counts` at decision
    ``t`` (``[players + 2, NUM_KINDS]``), ``seats[t]`` the seat that decided there."""
    counts = np.asarray(counts)
    seats = np.asarray(seats, dtype=np.int64)
    steps, players = len(counts), counts.shape[1] - 2
    out = np.zeros((steps, PRIVILEGED_SIZE), np.float32)
    others = (seats[:, None] + np.arange(1, players)) % players  # [T, players - 1]
    hands = counts[np.arange(steps)[:, None], others, :NUM_HAND_KINDS]
    out[:, : (players - 1) * NUM_HAND_KINDS] = hands.reshape(steps, -1) * QUARTER
    out[:, OTHER_HANDS_SIZE:] = counts[:, players:].reshape(steps, -1) * QUARTER
    return out
