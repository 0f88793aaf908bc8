"""Stranger bots: players written from the public documentation alone, by writers who read
no agent, bot or training code of the project. They are the gauntlet that judges the trained
agents (docs/generalisation.md) and never enter a training run."""
