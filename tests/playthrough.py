"""Golden playthroughs and the behaviour digest: seeded random hands, written down and hashed.

Both play hands through ``raw_env`` with a seeded random policy (``random.Random(seed)``
choosing among the legal ids, ascending, under one of ``STYLES``) and record what
the env shows: masks, the acting player's observation, actions, rewards, scores.

**Playthroughs** (``tests/golden/<variant>_<players>p_seed<seed>.txt``, one per
``PLAYTHROUGHS`` entry) read like OpenSpiel's: per step the step number, the agent
to act, the phase, the legal actions and the action taken as text, the rewards
when non-zero, and the acting player's observation decoded into named fields
(only the non-zero ones, unscaled; teams and seats counted from the viewer: ``+0``
is its own, ``+1`` the next to play). The ``table`` group (the preset's constants)
is printed once in the header. Past ``FULL_STEPS`` steps only the actions are
written, so files stay small. The hand ends with its score sheets.

**The behaviour digest** (``tests/golden/behaviour_digest.json``) hashes, for
every preset and player count (and spanish with runs), ``DIGEST_SEEDS`` games of
``DIGEST_HANDS`` hands each: at every step the acting seat, its observation and
mask, the observation of one other seat, the action and the rewards after it, and
at each hand end the score sheets. Each hand's hash is stored, so a failure names
the first hand that changed; ``--show`` prints that hand as a playthrough to diff
between two commits.

Regenerate, only for an intended behaviour change (a rule fix, a new observation
layout), and review ``git diff tests/golden`` before committing::

    python -m tests.playthrough --regenerate          # the playthrough .txt files
    python -m tests.playthrough --regenerate-digest   # behaviour_digest.json
    python -m tests.playthrough --show spanish 6 3 --style melder --hands 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import struct
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from canasta_env.actions import ADD_NATURAL, NUM_SLOTS, TAKE, TAKE_ONTO_MELD, action_to_str
from canasta_env.cards import KIND_NAMES, NATURAL_RANKS, SUITS
from canasta_env.engine.sequences import NUM_SUITS
from canasta_env.env import raw_env
from canasta_env.observation import (
    FLAG,
    FLAGS,
    LAYOUT,
    NO_CARD,
    OBS_SIZE,
    ONE_HOT,
    SCALES,
    Field,
)
from canasta_env.rules import PRESETS

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
DIGEST_PATH = GOLDEN_DIR / "behaviour_digest.json"
REGENERATE = "python -m tests.playthrough --regenerate"

#: (variant, players, seed); ``variant`` is a preset name, ``+option`` turns a rules flag on.
PLAYTHROUGHS = [
    ("classic", 4, 7),
    ("canastone", 4, 3),
    ("spanish", 4, 5),
    ("italian", 2, 11),
    ("spanish+sequences", 2, 0),  # lays an escala, ends by the stock
    ("classic", 3, 2),  # three teams of one; goes out
    ("spanish", 6, 3),  # a black-3 canasta ends the hand
]
#: Steps written in full; later steps show only the action.
FULL_STEPS = 200

STYLES = ("uniform", "hoarder", "melder")
#: Chance that a hoarder or melder melds when it may also draw or discard.
MELD_CHANCE = {"hoarder": 0.15, "melder": 0.9}
TAKE_CHANCE = 0.9

#: Every preset at every player count it allows, and the house rule of runs (escalas).
DIGEST_CASES = [(name, n) for name, rules in PRESETS.items() for n in rules.player_counts]
DIGEST_CASES += [("spanish+sequences", n) for n in PRESETS["spanish"].player_counts]
DIGEST_SEEDS = 16
DIGEST_HANDS = 3
DIGEST_FORMAT = 1


# ---------------------------------------------------------------------- playing


#: The engine the playthroughs and the digest are played on: the Python engine, the
#: reference; tests/test_core_parity.py sets "core" to replay them on the compiled core.
BACKEND = "python"


def make_env(variant: str, players: int, hands: int) -> raw_env:
    """``"spanish+sequences"`` is the spanish preset with ``sequences=True``."""
    preset, _, option = variant.partition("+")
    overrides = {option: True} if option else {}
    episode = "hand" if hands == 1 else "game"
    return raw_env(
        variant=preset, num_players=players, episode=episode, backend=BACKEND, **overrides
    )


def choose_action(rng: random.Random, legal: list[int], style: str) -> int:
    """A random legal id; ``uniform`` is ``rng.choice(legal)``. Kept here, not shared with
    other tests, because the stored digests depend on every draw it makes."""
    if style == "uniform":
        return rng.choice(legal)
    takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
    if takes and rng.random() < TAKE_CHANCE:
        return rng.choice(takes)
    melds = [a for a in legal if a >= ADD_NATURAL]  # adds, new melds and runs
    others = [a for a in legal if a < ADD_NATURAL and not TAKE <= a <= TAKE_ONTO_MELD]
    if melds and (not others or rng.random() < MELD_CHANCE[style]):
        return rng.choice(melds)
    return rng.choice(others or legal)


@dataclass
class Step:
    """One decision: what the acting agent saw, what it chose, what followed."""

    index: int
    agent: str
    observation: np.ndarray
    mask: np.ndarray
    legal: list[int]
    action: int
    rewards: dict[str, float]  # every agent's reward after the step
    other_seat: int | None  # a seat not to act, observed before the step (digest only)
    other_observation: np.ndarray | None
    hand_end: dict | None  # ``infos`` of a hand that this step ended


def play(
    variant: str, players: int, seed: int, style: str, hands: int, observe_other: bool = False
) -> Iterator[Step]:
    """Play ``hands`` hands (fewer if the game ends) and yield every step."""
    env = make_env(variant, players, hands)
    env.reset(seed=seed)
    rng = random.Random(seed)
    agents = env.possible_agents
    index = 0
    while not all(env.terminations.values()):
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        obs = env.observe(agent)
        other_seat = other_observation = None
        if observe_other:
            other_seat = (seat + 1 + index % (players - 1)) % players
            other_observation = env.observe(agents[other_seat])["observation"]
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        action = choose_action(rng, legal, style)
        # a hand end is a new entry of the game's hand history (part of the saved state)
        hands_done = len(env.game.hand_history)
        env.step(action)
        ended = len(env.game.hand_history) > hands_done
        yield Step(
            index,
            agent,
            obs["observation"],
            obs["action_mask"],
            legal,
            action,
            {name: env.rewards[name] for name in agents},
            other_seat,
            other_observation,
            dict(env.infos[agent]) if ended else None,
        )
        index += 1
        if ended and len(env.game.hand_history) >= hands:
            return


# ---------------------------------------------------------------------- observation names


def _item_names(field: Field) -> list[str]:
    """Names of the entries of a list field: by slot, by card kind, by suited natural or by
    the values of a one-hot field."""
    if field.kind == ONE_HOT:
        names = {NO_CARD: "empty", **dict(enumerate(KIND_NAMES))}
        if field.name == "pot_suit":
            return list(SUITS)
        if field.name == "num_players":
            return [str(n) for n in field.values]
        return [names[value] for value in field.values]
    if field.size == NUM_SLOTS:
        return [*NATURAL_RANKS, "B3", "wild"]
    if field.size == NUM_SUITS * len(NATURAL_RANKS):
        return [rank + suit for rank in NATURAL_RANKS for suit in SUITS]
    return list(KIND_NAMES[: field.size])


def _field_names() -> list[tuple[str, str, str, bool]]:
    """(group, list, name, is_flag) of every observation entry, read from the layout that
    the observation is built by (:data:`canasta_env.observation.LAYOUT`).

    ``group`` is a team or seat counted from the viewer (``team+1``) or the block;
    ``list`` is ``""`` for a field of one entry, else the field whose item ``name`` is.
    """
    names = []
    for span in LAYOUT.spans:
        field = span.field
        group = span.block if span.group is None else f"{GROUP_LABEL[span.group]}+{span.copy}"
        if field.size == 1:
            names.append((group, "", field.name, field.kind == FLAG))
        elif field.kind == ONE_HOT:
            names += [(group, "", f"{field.name}={item}", True) for item in _item_names(field)]
        else:
            flags = field.kind == FLAGS
            names += [(group, field.name, item, flags) for item in _item_names(field)]
    assert len(names) == OBS_SIZE
    return names


#: How a repeated group's copies are labelled (counted from the viewer).
GROUP_LABEL = {"teams": "team", "players": "seat", "runs": "team", "history": "seat"}
FIELD_NAMES = _field_names()


def _number(value: float) -> str:
    rounded = round(value)
    return str(rounded) if abs(value - rounded) < 1e-3 else f"{value:.4g}"


def observation_fields(observation: np.ndarray) -> dict[str, str]:
    """The non-zero entries of an observation, unscaled, as text by group (groups in
    layout order of first appearance): a field as ``name=value``, a set flag as its
    name, a list of counts as ``list[item item2x3]`` (``K Qx2``: one K, two queens)."""
    values = np.asarray(observation, dtype=np.float64) / SCALES
    groups: dict[str, list[str]] = {}
    lists: dict[tuple[str, str], list[str]] = {}
    for index in np.flatnonzero(values):
        group, of, name, is_flag = FIELD_NAMES[index]
        value = float(values[index])
        parts = groups.setdefault(group, [])
        if of:
            text = name if value == 1 else f"{name}x{_number(value)}"
            if (group, of) not in lists:
                lists[group, of] = []
                parts.append((group, of))
            lists[group, of].append(text)
        else:
            parts.append(name if is_flag and value == 1 else f"{name}={_number(value)}")
    return {
        group: " ".join(
            part if isinstance(part, str) else f"{part[1]}[{' '.join(lists[part])}]"
            for part in parts
        )
        for group, parts in groups.items()
    }


# ---------------------------------------------------------------------- playthrough text


def playthrough_path(variant: str, players: int, seed: int) -> Path:
    return GOLDEN_DIR / f"{variant.replace('+', '-')}_{players}p_seed{seed}.txt"


def _hand_end_lines(info: dict) -> list[str]:
    lines = [f"hand over: {info['end_reason']}"]
    for team, sheet in enumerate(info["hand_scores"]):
        items = " ".join(f"{key}={value}" for key, value in sheet.items() if value)
        lines.append(f"  team {team}: {items or 'total=0'}")
    lines.append("  scores: " + " ".join(str(score) for score in info["scores"]))
    return lines


def _phase(groups: dict[str, str]) -> str:
    """The acting player's phase, as the observation's turn flags tell it."""
    flags = groups.get("turn", "").split()
    return "draw" if "draw_phase" in flags else "meld" if "meld_phase" in flags else "?"


def playthrough_lines(
    variant: str, players: int, seed: int, style: str = "uniform", hands: int = 1
) -> list[str]:
    """The text of a playthrough, one list entry per line."""
    lines = [
        f"# canasta playthrough: {variant}, {players} players, seed {seed}",
        f"# policy: random.Random({seed}) picks a legal id (ascending) in style {style!r}",
        f"# written by: {REGENERATE}",
        "# observation: the acting player's, non-zero fields unscaled; team+k / seat+k",
        "#   count from the viewer (+0 its own); a set flag is its bare name",
    ]
    table_line = None
    for step in play(variant, players, seed, style, hands):
        groups = observation_fields(step.observation)
        table = "table: " + groups.pop("table", "")
        if table_line is None:
            table_line = table
            lines.append(table)
        head = f"step {step.index}  {step.agent}  {_phase(groups)}"
        if step.index < FULL_STEPS:
            lines.append(head)
            lines.append(f"  legal: {' | '.join(action_to_str(a) for a in step.legal)}")
            if table != table_line:
                lines.append(f"  {table}")
            lines += [f"  {group}: {text}" for group, text in groups.items()]
            lines.append(f"  action: {action_to_str(step.action)}")
        else:
            lines.append(f"{head}: {action_to_str(step.action)}")
        rewards = [f"{name}={reward:+.4g}" for name, reward in step.rewards.items() if reward]
        if rewards:
            lines.append(f"  rewards: {' '.join(rewards)}")
        if step.hand_end is not None:
            lines += _hand_end_lines(step.hand_end)
    return lines


def write_playthroughs() -> list[Path]:
    GOLDEN_DIR.mkdir(exist_ok=True)
    paths = []
    for variant, players, seed in PLAYTHROUGHS:
        path = playthrough_path(variant, players, seed)
        path.write_text("\n".join(playthrough_lines(variant, players, seed)) + "\n", "utf-8")
        paths.append(path)
    return paths


# ---------------------------------------------------------------------- behaviour digest


def case_name(variant: str, players: int) -> str:
    return f"{variant} {players}p"


def case_style(seed: int) -> str:
    return STYLES[seed % len(STYLES)]


def hand_records(variant: str, players: int, seed: int) -> list[str]:
    """``"<seed>.<hand> <steps> <sha256[:16]>"`` for each hand of one digest game."""
    records = []
    hasher = hashlib.sha256()
    steps = hand = 0
    for step in play(variant, players, seed, case_style(seed), DIGEST_HANDS, observe_other=True):
        hasher.update(struct.pack("<BBH", step.index % 256, step.other_seat, step.action))
        hasher.update(step.observation.tobytes())
        hasher.update(step.mask.tobytes())
        hasher.update(step.other_observation.tobytes())
        hasher.update(struct.pack(f"<{players}d", *step.rewards.values()))
        hasher.update(step.agent.encode())
        steps += 1
        if step.hand_end is not None:
            hasher.update(json.dumps(step.hand_end, sort_keys=True).encode())
            records.append(f"{seed}.{hand} {steps} {hasher.hexdigest()[:16]}")
            hasher = hashlib.sha256()
            steps = 0
            hand += 1
    return records


def behaviour_digest() -> dict[str, list[str]]:
    """The hand records of every digest case, by case name."""
    return {
        case_name(variant, players): [
            record
            for seed in range(DIGEST_SEEDS)
            for record in hand_records(variant, players, seed)
        ]
        for variant, players in DIGEST_CASES
    }


def _commit() -> str:
    try:
        result = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=GOLDEN_DIR,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return result.stdout.strip()


def write_digest() -> Path:
    cases = behaviour_digest()
    record = {
        "format": DIGEST_FORMAT,
        "computed_on_commit": _commit(),
        "policy": "random.Random(seed) in style STYLES[seed % 3] over the ascending legal ids",
        "seeds": DIGEST_SEEDS,
        "hands_per_seed": DIGEST_HANDS,
        "hand_record": "<seed>.<hand> <steps> <sha256 of the hand's steps, 16 hex>",
        "hands": sum(len(records) for records in cases.values()),
        "cases": cases,
    }
    GOLDEN_DIR.mkdir(exist_ok=True)
    DIGEST_PATH.write_text(json.dumps(record, indent=1) + "\n", "utf-8")
    return DIGEST_PATH


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.playthrough", description=__doc__)
    parser.add_argument("--regenerate", action="store_true", help="rewrite the .txt files")
    parser.add_argument("--regenerate-digest", action="store_true", help="rewrite the digest")
    parser.add_argument("--show", nargs=3, metavar=("VARIANT", "PLAYERS", "SEED"))
    parser.add_argument("--style", choices=STYLES, default="uniform")
    parser.add_argument("--hands", type=int, default=1)
    args = parser.parse_args(argv)
    if args.show:
        variant, players, seed = args.show[0], int(args.show[1]), int(args.show[2])
        print("\n".join(playthrough_lines(variant, players, seed, args.style, args.hands)))
        return 0
    if not (args.regenerate or args.regenerate_digest):
        parser.print_usage()
        return 2
    if args.regenerate:
        for path in write_playthroughs():
            print(f"wrote {path}")
    if args.regenerate_digest:
        print(f"wrote {write_digest()}")
    print("review the diff (git diff tests/golden) before committing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
