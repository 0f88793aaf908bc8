"""Examples of outside agents (see docs/agents.md); not part of the installed package."""
