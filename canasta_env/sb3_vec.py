"""The Stable-Baselines3 face: a ``VecEnv`` over the Gymnasium vector face's tables.

Usage (the ``train`` extra: stable-baselines3, sb3-contrib)::

    from sb3_contrib import MaskablePPO
    from canasta_env.sb3_vec import sb3_vec_env

    venv = sb3_vec_env(num_envs=16, num_players=2, opponents="expert")
    model = MaskablePPO("MultiInputPolicy", venv, seed=0).learn(100_000)

``sb3_vec_env(num_envs, **options)`` takes :class:`~canasta_env.gym_vector.CanastaVectorEnv`'s
options and wraps one (``venv.face``); what a step is, the rewards and the seeding are
that face's (``docs/vector.md``), and so is its fast path: with house-bot opponents on
the core the tables are one ``_core.Batch`` (``venv.face.batched``). SB3's conventions
on top:

* observations: the dict ``{"observation": (N, 686) float32, "action_mask": (N, 500)
  int8}`` (``MultiInputPolicy`` reads both); rewards ``(N,)`` float32; ``dones``
  ``terminated | truncated``;
* a finished table is dealt again in the same step (SB3's autoreset, the face's
  ``SAME_STEP``): its info holds ``terminal_observation`` (the ended episode's last
  observation), ``TimeLimit.truncated`` and the hand's ``outcome``, ``margin`` and
  ``points`` for the learner's team; wrap in ``VecMonitor`` for episode statistics;
* ``env_method("action_masks")`` gives one ``(500,)`` bool mask per table, which is how
  sb3-contrib's MaskablePPO asks for them; ``action_masks()`` gives them all at once;
* ``seed(s)`` seeds the next ``reset`` (table ``k`` with ``s + k``), as SB3 does;
* one thread at a time, as the face: a second thread's ``reset`` or ``step`` raises
  ``RuntimeError`` naming the rule (``docs/vector.md``, "Threads").

``get_attr`` and ``set_attr`` read and write the face's attributes (one face holds
every table, so each index sees the same value); ``env_method`` calls a face method
once and gives its result to each index, ``action_masks`` aside.
"""

from __future__ import annotations

import functools

import numpy as np

from canasta_env.gym_vector import CanastaVectorEnv


def sb3_vec_env(num_envs: int = 8, **options):
    """A Stable-Baselines3 ``VecEnv`` of ``num_envs`` tables (see the module doc).

    Raises ``ImportError`` naming the extra when stable-baselines3 is not installed.
    """
    return _vec_env_class()(CanastaVectorEnv(num_envs, **options))


@functools.cache
def _vec_env_class():
    try:
        from stable_baselines3.common.vec_env import VecEnv
    except ImportError as error:
        from canasta_env.extras import install_command

        raise ImportError(
            f"canasta_env.sb3_vec needs stable-baselines3: {install_command('train')}"
        ) from error

    class CanastaSB3VecEnv(VecEnv):
        """SB3's ``VecEnv`` over one :class:`CanastaVectorEnv` (``self.face``)."""

        def __init__(self, face: CanastaVectorEnv):
            self.face = face
            super().__init__(face.num_envs, face.single_observation_space, face.single_action_space)
            self._actions: np.ndarray | None = None

        def set_options(self, options=None) -> None:
            """Refused unless empty: the face takes no reset options (SB3 would keep them
            and make every later ``reset`` fail)."""
            given = options if isinstance(options, list) else [options]
            if any(given):
                raise ValueError(f"the Canasta vector face takes no reset options, got {options!r}")
            super().set_options(options)

        def reset(self):
            seeds = self._seeds if any(seed is not None for seed in self._seeds) else None
            if any(self._options):
                self._reset_options()
                raise ValueError("the Canasta vector face takes no reset options")
            try:
                obs, info = self.face.reset(seed=seeds)
            finally:  # a refused seed is not kept for the next reset either
                self._reset_seeds()
            self._reset_options()
            self.reset_infos = [{"seat": int(seat)} for seat in info["seat"]]
            return obs

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = np.asarray(actions).reshape(self.num_envs)

        def step_wait(self):
            obs, rewards, terminated, truncated, info = self.face.step(self._actions)
            dones = terminated | truncated
            infos = [
                {"TimeLimit.truncated": bool(truncated[k] and not terminated[k])}
                for k in range(self.num_envs)
            ]
            for k in np.flatnonzero(dones).tolist():
                infos[k]["terminal_observation"] = info["final_obs"][k]
                final = info["final_info"]
                for key in ("outcome", "margin", "points", "end_reason", "illegal_action"):
                    if final.get(f"_{key}", np.zeros(0, bool))[k : k + 1].any():
                        infos[k][key] = final[key][k]
            return obs, rewards.astype(np.float32), dones, infos

        def close(self) -> None:
            self.face.close()

        def action_masks(self) -> np.ndarray:
            """Every table's legal actions, ``(N, 500)`` bool."""
            return self.face.action_masks()

        def get_attr(self, attr_name: str, indices=None) -> list:
            value = getattr(self.face, attr_name)
            return [value for _ in self._get_indices(indices)]

        def set_attr(self, attr_name: str, value, indices=None) -> None:
            setattr(self.face, attr_name, value)

        def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
            indices = list(self._get_indices(indices))
            if method_name == "action_masks":  # sb3-contrib's MaskablePPO, each step
                masks = self.face.action_masks()
                return [masks[k] for k in indices]
            result = getattr(self.face, method_name)(*method_args, **method_kwargs)
            return [result for _ in indices]

        def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
            return [False for _ in self._get_indices(indices)]

    return CanastaSB3VecEnv


__all__ = ["sb3_vec_env"]
