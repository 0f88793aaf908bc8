"""``canasta_v0``: the versioned PettingZoo entry point, as PettingZoo's classic envs have.

Usage::

    from canasta_env import canasta_v0

    env = canasta_v0.env(variant="classic", num_players=4, render_mode="rgb_array")

``env`` and ``raw_env`` are the very objects ``canasta_env.env`` and
``canasta_env.raw_env`` name; the documentation is in :mod:`canasta_env.env`. A change
of behaviour will come as ``canasta_v1`` and leave this module as it is.
"""

from canasta_env.env import env, raw_env

__all__ = ["env", "raw_env"]
