"""Training opponents written from the public documentation alone, kept apart from the
gauntlet's strangers (research/strangers/), which never enter training."""
