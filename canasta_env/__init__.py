"""canasta-env: Canasta rules engine and PettingZoo AEC environment."""

from canasta_env.rules import PRESETS, Rules, make_rules

__version__ = "0.1.0"

__all__ = ["PRESETS", "Rules", "make_rules", "env", "raw_env", "__version__"]


def env(**kwargs):
    from canasta_env.env import env as _env

    return _env(**kwargs)


def raw_env(**kwargs):
    from canasta_env.env import raw_env as _raw_env

    return _raw_env(**kwargs)
