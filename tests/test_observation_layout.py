"""The observation's layout (``LAYOUT``) and its reader (``decode_view``).

The layout is declared once; the builder writes each field by its name at the place
the layout gives it and ``decode_view`` reads the fields back by it. The checks:
the declared fields tile the vector exactly once, the layout module docstring's table is the
one generated from the layout, and every field read back from live games (every preset
and player count, random play over two hands, the player to act and a player waiting)
equals what the engine state says.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from canasta_env import docs_observation
from canasta_env.actions import NUM_SLOTS
from canasta_env.cards import NUM_HAND_KINDS, NUM_KINDS, NUM_NATURALS
from canasta_env.engine.game import PHASE_DRAW, PHASE_MELD, Game, teams_of
from canasta_env.engine.melds import canasta_kind, canasta_summary
from canasta_env.observation import (
    BIG_INDICES,
    BLOCKS,
    LAYOUT,
    MAX_PLAYERS,
    MAX_TEAMS,
    NO_CARD,
    OBS_SIZE,
    OFFSETS,
    SCALES,
    ObservationBuilder,
    decode_view,
)
from canasta_env.observation import layout as observation_layout
from canasta_env.rules import PRESETS, make_rules

TABLES = [(name, n) for name, rules in PRESETS.items() for n in rules.player_counts]


def test_every_entry_of_the_vector_belongs_to_exactly_one_field():
    covered = [0] * OBS_SIZE
    for span in LAYOUT.spans:
        for index in range(span.start, span.stop):
            covered[index] += 1
    assert covered == [1] * OBS_SIZE
    assert sum(size for _name, size in BLOCKS) == OBS_SIZE == len(SCALES)
    for (name, size), (next_name, _size) in zip(BLOCKS, BLOCKS[1:]):
        assert OFFSETS[name] + size == OFFSETS[next_name]
    spans = {span.name: span for span in LAYOUT.spans}
    assert spans["teams[2].score"] is LAYOUT.span("teams.score", 2)
    assert spans["pot_size"].start == OFFSETS["pot_state"]
    assert len(BIG_INDICES) == 1 + MAX_TEAMS + MAX_PLAYERS + 4


def test_the_docstring_table_is_generated_from_the_layout():
    """The block table in ``observation/layout.py``'s docstring is what ``python -m
    canasta_env.docs`` writes from ``LAYOUT`` (``tests/test_docs.py`` checks the whole file the
    same way)."""
    table = docs_observation.docstring_table()
    assert table in observation_layout.__doc__
    for block in LAYOUT.blocks:
        assert f"\n{block.name} " in table
    assert f"= {OBS_SIZE} (``OBS_SIZE``)" in table


def test_a_vector_without_a_player_count_is_refused():
    with pytest.raises(ValueError, match="player count"):
        decode_view(np.zeros(OBS_SIZE, dtype=np.float32))


def _closed_counts(game: Game, team: int) -> tuple[list[int], list[int]]:
    clean, dirty = [0] * NUM_SLOTS, [0] * NUM_SLOTS
    for slot, n, twos, jokers, _hidden in game.closed[team]:
        is_clean, _is_dirty = canasta_kind(slot, n, twos, jokers)
        (clean if is_clean else dirty)[slot] += 1
    return clean, dirty


def _check_view(game: Game, viewer: int, acting: bool, builder: ObservationBuilder) -> None:
    """Every field of the viewer's decoded observation against the engine state."""
    view = decode_view(builder.build(viewer, viewer_to_act=acting))
    rules, n = game.rules, game.num_players
    my_team = game.team_of[viewer]
    acting = acting and game.current == viewer
    pot = game.pot
    top = pot[-1] if pot else NO_CARD

    assert view.hand == game.hands[viewer][:NUM_HAND_KINDS]
    assert view.held == (game.held[:NUM_HAND_KINDS] if acting else [0] * NUM_HAND_KINDS)
    assert view.pot_top == top
    assert view.pot_size == len(pot) and view.pot_face_down == game.pot_hidden
    assert view.pot_wild == game.pot_wild
    assert view.pot_crossed == (game.pot_wild and rules.wild_crosses_pot)
    assert view.pot_blocked == (top >= NUM_NATURALS)  # a wild card, a black (or red) 3
    assert view.pot_frozen_for_me == (rules.frozen_for_unopened and not game.opened[my_team])
    assert view.pot_known == game.pot_known[:NUM_KINDS]

    assert len(view.teams) == teams_of(n) == game.num_teams
    for offset, team_view in enumerate(view.teams):
        team = (my_team + offset) % game.num_teams
        nat, two, jok, _closed = game.team_melds(team)
        assert (team_view.naturals, team_view.twos, team_view.jokers) == (nat, two, jok)
        sizes = [nat[s] + two[s] + jok[s] for s in range(NUM_SLOTS)]
        assert team_view.is_canasta == [size >= rules.canasta_size for size in sizes]
        assert (team_view.closed_clean, team_view.closed_dirty) == _closed_counts(game, team)
        assert team_view.present and team_view.red3 == game.red3[team]
        assert team_view.opened == game.opened[team]
        assert team_view.opening_minimum == game.need[team]
        assert team_view.score == game.scores[team]
        summary = canasta_summary(rules, *game.team_melds(team))
        assert (team_view.canastas, team_view.clean, team_view.dirty) == summary

    assert len(view.players) == n
    for offset, player in enumerate(view.players):
        seat = (viewer + offset) % n
        assert player.present and player.teammate == (game.team_of[seat] == my_team)
        assert player.hand_size == game.hand_totals[seat]
        assert player.known == game.known[seat][:NUM_HAND_KINDS]

    staged = game.staged if acting else 0
    need = game.need[my_team]
    assert view.draw_phase == (acting and game.phase == PHASE_DRAW)
    assert view.meld_phase == (acting and game.phase == PHASE_MELD)
    assert view.staged == staged
    assert view.still_needed == (0 if game.opened[my_team] else max(0, need - staged))
    assert view.took_pot == (acting and game.took_pot)
    assert view.clean_only == (acting and game.clean_only)
    assert view.hidden_open == (acting and game.hidden_open)
    counts = canasta_summary(rules, *game.team_melds(my_team))
    may_go_out = (
        acting
        and game.phase == PHASE_MELD
        and counts[0] >= rules.go_out_min_canastas
        and game.opening_done(my_team)
        and game.search.go_out_allowed_counts(*counts)
    )
    assert view.may_go_out == bool(may_go_out)
    assert view.stock == len(game.stock)
    assert view.stock_short == (len(game.stock) < rules.draw_count)
    assert view.steps == game.num_steps

    assert view.num_players == n and view.hand_number == game.hand_index
    assert view.draw_count == rules.draw_count
    assert view.melds_close_at_7 == bool(rules.meld_closes_at)
    assert view.wild_melds == rules.wild_melds and view.black3_melds == rules.black3_melds
    assert view.needs_clean_and_dirty == rules.go_out_needs_clean_and_dirty
    assert view.three_to_take_frozen == (rules.take_naturals_frozen >= 3)
    assert view.wild_crosses_pot == rules.wild_crosses_pot
    assert view.target == rules.target_score

    assert view.sequences_on == rules.sequences
    if rules.sequences:
        assert view.suited_hand == game.suits.hands[viewer]
        natural_top = pot and pot[-1] < NUM_NATURALS
        assert view.pot_suit == (game.suits.pot[-1] if natural_top else -1)
        for offset, runs in enumerate(view.runs):
            laid = game.escalas[(my_team + offset) % game.num_teams]
            reales = sum(1 for run in laid if run[2] == NUM_NATURALS)
            assert (runs.escalas, runs.escalas_reales) == (len(laid) - reales, reales)
    else:
        assert view.suited_hand == [0] * len(view.suited_hand) and view.pot_suit == -1
        assert all(runs.escalas == runs.escalas_reales == 0 for runs in view.runs)
    assert len(view.runs) == game.num_teams

    assert len(view.history) == n
    for offset, seat_history in enumerate(view.history):
        seat = (viewer + offset) % n
        assert seat_history.discarded == game.discarded[seat]
        assert seat_history.declined == game.declined[seat]
    assert view.since_my_discard == game.since_discard[viewer]


def _play_and_check(rules, num_players: int, seed: int) -> int:
    """Random play over two hands; every position checked for the player to act and
    the next seat. Returns the number of positions checked."""
    rng = random.Random(seed)
    game = Game(rules, num_players, seed=seed)
    builder = ObservationBuilder(game)
    checked = 0
    for hand in range(2):
        if hand:
            if game.game_over:
                break
            game.next_hand()
        while not game.hand_over:
            viewer = game.current
            _check_view(game, viewer, True, builder)
            _check_view(game, (viewer + 1) % num_players, False, builder)
            checked += 1
            game.apply(rng.choice(game.legal_actions()))
    return checked


@pytest.mark.parametrize("variant,num_players", TABLES)
def test_decoded_fields_equal_the_engine_state(variant, num_players):
    checked = sum(_play_and_check(make_rules(variant), num_players, seed) for seed in (1, 2))
    assert checked > 100


def test_decoded_runs_equal_the_engine_state():
    """S-19 on: the suited hand, the pot top's suit and the runs read back too."""
    rules = make_rules("spanish", sequences=True)
    assert sum(_play_and_check(rules, players, seed) for players in (2, 4) for seed in (3, 4))
