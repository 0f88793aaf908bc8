"""Research and tuning tools: studies that measured the agents, not part of the package.

Run from a source checkout (``python -m research.NAME``); see ``research/README.md`` for
what each found. Nothing installed imports them.
"""
