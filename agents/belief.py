"""What the public history says about the other hands: weights for determinized worlds.

:func:`~canasta_env.engine.determinize.determinize` deals the cards a seat cannot see
uniformly. Real players are not uniform: a kind a player has discarded and drawn past
(declined as the pot's top card) is rarely one it holds a pair of, and the kinds it has
shown nothing of are held in pairs more often than a uniform deal says. In
``ppo:classic-2p`` self-play (600 hands, ``python -m research.belief_tables``), an opponent held
two or more of a kind it had both discarded and declined in 1.0% of the cases, where a
uniform deal gives it 5.8%; two or more of a kind with no history in 34.1%, a uniform deal
23.7%. A search that reads every world as equally likely may misjudge the discards that
matter: which card the next player can take the pot with. (Measured against the real hands,
``search:...,belief=history`` decides no better than the uniform search: docs/search.md.)

The model (a naive-Bayes likelihood ratio, learned from self-play): for each other seat
and each holdable kind, its public history of that kind (``f``: discarded it this hand,
declined it this hand, known to hold some of it from a pot it took, each yes or no; all
three kept by a determinization, G-8) and its count in the world (``b``: 0, 1, 2, 3 or
more) give a ratio ``R[f][b] = P(b | f in play) / P(b | f in a uniform deal)``, and a
world's weight is the product over seats and kinds. :func:`pick_worlds` keeps, of a pool
of uniform worlds, a weighted sample without replacement.

It reads only what a determinization keeps (the seat's own view and the public history),
so it leaks nothing a uniform world does not: ``tests/test_search.py`` checks the search
with it as without.

Tables: ``agents/models/belief_classic.json``, one per player count, made by
:mod:`research.belief_tables`:

    python -m research.belief_tables --players 2 --hands 600
    python -m research.belief_tables --players 4 --hands 400

(a table per ``--players``, into ``--out``, by default the shipped file; a file that exists
keeps its other counts). Each counts
decisions of ``ppo:classic-Np`` self-play on the classic rules from seed 50000 on; the
other presets use the classic table of their player count.
"""

from __future__ import annotations

import functools
import json
import math
import random
from pathlib import Path

import numpy as np

from canasta_env.cards import NUM_HAND_KINDS
from canasta_env.engine.determinize import determinize
from canasta_env.engine.game import Game

#: The shipped tables (by player count), made by this module's command.
TABLES = Path(__file__).resolve().parent / "models" / "belief_classic.json"
#: A world's count of a kind is bucketed 0, 1, 2, 3 or more.
BUCKETS = 4
#: The history classes of a (seat, kind): discarded, declined, known, as bits 4, 2, 1.
CLASSES = 8


@functools.cache
def load_table(num_players: int, path: Path = TABLES) -> np.ndarray | None:
    """The ratio table ``[class, bucket]`` of a player count, or None (no table)."""
    try:
        tables = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return None
    table = tables.get(str(num_players))
    if table is None:
        return None
    ratios = np.ones((CLASSES, BUCKETS))
    for key, row in table["ratios"].items():
        ratios[int(key, 2)] = row
    if not np.all(np.isfinite(ratios)) or np.any(ratios <= 0):
        raise ValueError(f"{path}: the ratios of {num_players} players must be positive")
    return np.log(ratios)


def history_classes(game: Game, seat: int) -> np.ndarray:
    """``[player, kind]`` history class of every other seat's kinds (``seat``'s row unused)."""
    discarded = np.minimum(np.asarray(game.discarded), 1)
    declined = np.minimum(np.asarray(game.declined), 1)
    known = np.minimum(np.asarray(game.known)[:, :NUM_HAND_KINDS], 1)
    return discarded * 4 + declined * 2 + known


def log_weight(world: Game, seat: int, classes: np.ndarray, log_ratios: np.ndarray) -> float:
    """The log weight of a world: the sum over the other seats and kinds of
    ``log R[class][bucket]``."""
    hands = np.minimum(np.asarray(world.hands)[:, :NUM_HAND_KINDS], BUCKETS - 1)
    terms = log_ratios[classes, hands]
    terms[seat] = 0.0
    return float(terms.sum())


def pick_worlds(
    first: Game, seat: int, count: int, pool: int, rng: random.Random, log_ratios: np.ndarray
) -> list[Game]:
    """``count`` worlds of ``pool * count`` uniform ones (``first`` and more drawn from it),
    a sample without replacement weighted by :func:`log_weight` (the Efraimidis-Spirakis
    keys ``log(u) / w``, ``u`` from ``rng``): deterministic for ``rng``'s state."""
    classes = history_classes(first, seat)
    candidates = [first] + [determinize(first, seat, rng) for _ in range(pool * count - 1)]
    logs = np.array([log_weight(world, seat, classes, log_ratios) for world in candidates])
    weights = np.exp(logs - logs.max())
    keys = [math.log(rng.random() or 1e-300) / w for w in weights]
    order = sorted(range(len(candidates)), key=lambda i: keys[i], reverse=True)
    return [candidates[i] for i in order[:count]]
