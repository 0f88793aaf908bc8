"""Moved to :mod:`canasta_env.state_io`; this old, documented import path stays working."""

from canasta_env.state_io import *  # noqa: F403
