"""House rules drawn at random within ``rules.BOUNDS``: several fields at once, for the
fuzz of both engines (tests/test_house_fuzz.py) and the slowest-decision benchmark
(benchmarks/bench_turn_search.py).

``draw_house_rules(rng)`` returns (preset, overrides, players) whose rules
``make_rules`` accepts; fields are drawn from the ranges the legality search meets
(meld sizes and limits, wild and black-3 melds, closing melds, openings, going out,
pot takes, deck sizes), 2 to 7 of them at once, with the extremes weighted up.
"""

from __future__ import annotations

import random

from canasta_env.rules import PRESETS, make_rules

#: field -> the values drawn (the extremes of its bound and the presets' values).
CHOICES: dict[str, tuple] = {
    "min_meld_size": (2, 3, 4, 5, 7),
    "min_naturals": (1, 2, 3),
    "max_wilds_per_meld": (0, 1, 2, 3, 7, 99),
    "min_natural_excess": (0, 1, 2),
    "meld_closes_at": (0, 5, 7, 8, 12),
    "canasta_size": (3, 5, 7, 8, 10),
    "wild_melds": (False, True),
    "wild_meld_min_start": (1, 3, 5, 7),
    "wild_meld_max_size": (1, 3, 7, 12),
    "black3_melds": (False, True),
    "black3_meld_only_going_out": (False, True),
    "black3_meld_max_size": (0, 3, 4, 7),
    "black3_canasta_wins_game": (False, True),
    "hidden_canasta_opens": (False, True),
    "concealed_go_out_ignores_minimum": (False, True),
    "unopened_take_needs_clean_opening": (False, True),
    "take_naturals": (1, 2, 3),
    "take_naturals_frozen": (1, 2, 3),
    "take_with_wild": (False, True),
    "take_onto_meld": (False, True),
    "frozen_for_unopened": (False, True),
    "must_take_matching_pot": (False, True),
    "go_out_min_canastas": (0, 1, 2, 3),
    "go_out_needs_clean_and_dirty": (False, True),
    "go_out_needs_discard": (False, True),
    "no_go_out_on_first_clean_turn": (False, True),
    "draw_count": (1, 2, 3),
    "draw_after_pot_take": (0, 1, 2),
    "jokers_per_deck": (0, 1, 2, 4, 8),
    "num_decks": (1, 2, 3, 4),
    "clean_opening_max_minimum": (0, 50, 255),
    "sequences": (False, True),
    "pot_face_down": (0, 3, 10),
}


def draw_house_rules(rng: random.Random, least: int = 2, most: int = 7):
    """(preset, overrides, players): a preset and ``least``..``most`` fields drawn."""
    while True:
        preset = rng.choice(sorted(PRESETS))
        players = rng.choice(PRESETS[preset].player_counts)
        fields = rng.sample(sorted(CHOICES), rng.randint(least, most))
        overrides = {name: rng.choice(CHOICES[name]) for name in fields}
        if "num_decks" in overrides:  # a preset's per-table decks win over num_decks
            overrides["num_decks_by_players"] = ()
        try:
            make_rules(preset, **overrides)
        except ValueError:
            continue
        return preset, overrides, players
