"""Training and trained agents (needs the ``train`` extras for torch).

:mod:`training.stages`: ``canasta train``, imitation warm start then PPO against
a league, in a resumable run directory (:mod:`training.run`: that directory;
:mod:`training.config`: the settings of both training stacks, one table;
:mod:`training.ppo`: the update; :mod:`training.league`: the opponents and the loop;
:mod:`training.evaluation`: the evaluation and its curve);
:mod:`training.rollout`: batched hands in worker processes (numpy only);
:mod:`training.imitation`: the recorded teacher data and behaviour cloning;
:mod:`training.net`: the network and its ``.npz`` model file; :mod:`agents.network`:
``load_agent`` (``ppo:classic-2p``, ``ppo:classic-4p``, files, run folders); the
Stable-Baselines3 face is the example ``examples/sb3_maskable_ppo.py``.
Submodules import torch lazily; this package does not.
"""
