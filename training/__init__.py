"""MaskablePPO self-play training and trained agents (needs the ``train`` extras).

:mod:`training.selfplay`: the single-agent self-play env, ``train`` and ``evaluate``
(``canasta train``); :mod:`training.agent`: ``PPOAgent``, ``load_agent`` and the
shipped ``DEFAULT_MODEL``. Submodules import torch lazily; this package does not.
"""
