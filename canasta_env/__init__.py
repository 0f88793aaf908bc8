"""canasta-env: Canasta rules engine and PettingZoo AEC environment.

``canasta_env.env(variant="classic", num_players=4)`` is the environment users
play; ``canasta_env.raw_env(...)`` raises on illegal actions. The same two under
PettingZoo's versioned name: ``from canasta_env import canasta_v0``, then
``canasta_v0.env(...)``. See :mod:`canasta_env.env` for the full documentation.
Every face plays its hands on a :class:`~canasta_env.table.Table` (one game: views,
int8 masks, steps, the outcome); :class:`~canasta_env.batched_table.BatchedTable` steps N
of them on either engine into preallocated arrays, and every batched face is a thin
layer over it. ``canasta_env.vector_env(...)`` steps N tables with one array of actions,
on the compiled core (:mod:`canasta_env.core`, ``docs/core.md``) where it is built.
Importing the package registers the Gymnasium single-agent env
``gymnasium.make("canasta_env/Canasta-v0", ...)`` (:mod:`canasta_env.gym_env`) and its
vector face ``gymnasium.make_vec("canasta_env/Canasta-v0", num_envs=N, ...)``
(:mod:`canasta_env.gym_vector`: N tables, one learner at each, opponents in between).
"""

import importlib.metadata

import gymnasium

from canasta_env import canasta_v0
from canasta_env.actions import NUM_ACTIONS, action_to_str, str_to_action
from canasta_env.batched_table import BatchedTable
from canasta_env.env import env, raw_env  # binds the functions over the submodule name
from canasta_env.observation import OBS_SIZE
from canasta_env.rules import PRESETS, Rules, make_rules
from canasta_env.table import Table
from canasta_env.vector import vector_env

try:  # one version source: pyproject.toml, as the installed metadata carries it
    __version__ = importlib.metadata.version("canasta-env")
except importlib.metadata.PackageNotFoundError:  # imported from sources never installed
    __version__ = "0+unknown"

# The Gymnasium single-agent face and its vector face (N tables at once,
# gymnasium.make_vec(..., vectorization_mode="vector_entry_point")); the string entry points
# import them only in gymnasium.make / make_vec.
if "canasta_env/Canasta-v0" not in gymnasium.registry:
    gymnasium.register(
        id="canasta_env/Canasta-v0",
        entry_point="canasta_env.gym_env:CanastaGymEnv",
        vector_entry_point="canasta_env.gym_vector:CanastaVectorEnv",
    )

__all__ = [
    "NUM_ACTIONS",
    "BatchedTable",
    "OBS_SIZE",
    "PRESETS",
    "Rules",
    "Table",
    "action_to_str",
    "canasta_v0",
    "env",
    "make_rules",
    "raw_env",
    "str_to_action",
    "vector_env",
    "__version__",
]
