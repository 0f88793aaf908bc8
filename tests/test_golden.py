"""Golden playthroughs: one seeded hand per preset, replayed and compared step by step.

Each file ``tests/golden/<variant>_<players>p_seed<seed>.json`` pins, for one
hand played by a seeded random policy (``random.Random(seed)`` choosing among
``np.flatnonzero(mask)``), every action as text, a sha256 digest of what the
acting agent observed at every step (``observation.tobytes()`` followed by
``action_mask.tobytes()``), the rewards and the final hand scores.

A difference means the behaviour of the engine, the observation or the
environment changed. It must be reviewed: if the change is intended (a rule
fix, a new observation layout), regenerate the files and commit them with the
change that explains them::

    python -m tests.test_golden --regenerate
    # or
    CANASTA_REGENERATE_GOLDEN=1 pytest tests/test_golden.py
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from pathlib import Path

import numpy as np
import pytest

import canasta_env
from canasta_env.actions import action_to_str

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
CASES = [("classic", 4, 7), ("canastone", 4, 3), ("spanish", 4, 5), ("italian", 2, 11)]
#: S-19 runs on: a seed whose random hand lays a run (``escala ...``) and ends by the stock
CASES.append(("spanish+sequences", 2, 0))
FORMAT = 1


def golden_path(variant: str, players: int, seed: int) -> Path:
    return GOLDEN_DIR / f"{variant.replace('+', '-')}_{players}p_seed{seed}.json"


def play_record(variant: str, players: int, seed: int) -> dict:
    """Play one seeded hand with the seeded random policy and record it."""
    preset, _, option = variant.partition("+")
    overrides = {option: True} if option else {}
    env = canasta_env.env(variant=preset, num_players=players, **overrides)
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = []
    totals = {name: 0.0 for name in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        digest = hashlib.sha256(
            obs["observation"].tobytes() + obs["action_mask"].tobytes()
        ).hexdigest()
        action = int(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        steps.append({"agent": agent, "action": action_to_str(action), "obs_sha256": digest})
        env.step(action)
    game = env.unwrapped.game
    return {
        "format": FORMAT,
        "variant": variant,
        "players": players,
        "seed": seed,
        "policy": "random.Random(seed).choice(np.flatnonzero(action_mask))",
        "digest": "sha256(observation.tobytes() + action_mask.tobytes()) of the acting agent",
        "num_steps": len(steps),
        "end_reason": game.end_reason,
        "hand_scores": game.hand_scores,
        "scores": list(game.scores),
        "rewards": totals,
        "steps": steps,
    }


def write_golden(variant: str, players: int, seed: int) -> Path:
    path = golden_path(variant, players, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = play_record(variant, players, seed)
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("variant", "players", "seed"), CASES)
def test_golden_playthrough(variant, players, seed):
    """Replay the pinned hand; any difference is a behaviour change to review (module doc)."""
    path = golden_path(variant, players, seed)
    if os.environ.get("CANASTA_REGENERATE_GOLDEN") == "1":
        write_golden(variant, players, seed)
        pytest.skip(f"regenerated {path.name}; review the diff before committing")
    assert path.exists(), f"{path} is missing: run python -m tests.test_golden --regenerate"
    want = json.loads(path.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(play_record(variant, players, seed)))  # same JSON types
    for index, (a, b) in enumerate(zip(want["steps"], got["steps"])):
        assert a == b, (
            f"{path.name}: first difference at step {index}: pinned {a}, now {b}. "
            "Behaviour changed: review it, then regenerate (see the module docstring)."
        )
    assert want["num_steps"] == got["num_steps"], f"{path.name}: hand length changed"
    for key in ("end_reason", "hand_scores", "scores", "rewards"):
        assert want[key] == got[key], f"{path.name}: {key} changed: {want[key]} -> {got[key]}"
    assert want == got


def test_golden_files_are_consistent():
    """Every pinned file names its case, and actions are texts of the action table."""
    for variant, players, seed in CASES:
        path = golden_path(variant, players, seed)
        if not path.exists():
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        assert (data["variant"], data["players"], data["seed"]) == (variant, players, seed)
        assert len(data["steps"]) == data["num_steps"] > 20
        assert data["hand_scores"] and len(data["hand_scores"]) == (
            2 if players in (4, 6) else players
        )
        assert all(len(step["obs_sha256"]) == 64 for step in data["steps"])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--regenerate" not in argv:
        print("usage: python -m tests.test_golden --regenerate")
        return 2
    for variant, players, seed in CASES:
        path = write_golden(variant, players, seed)
        print(f"wrote {path}")
    print("review the diff (git diff tests/golden) before committing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
