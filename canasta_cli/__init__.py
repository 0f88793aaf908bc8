"""The ``canasta`` command and the demo: the top layer, above the environment
(``canasta_env``), the bots (``agents``) and training (``training``), which it runs."""
