"""House rules on both engines: every table the rules accept plays, every step ends in
bounded time, and the player to act always has a legal action (issue 32).

* ``test_house_rule_parity``: tables drawn by ``tests/house_rules.py`` (2 to 7 fields at
  once across ``rules.BOUNDS``), played by both engines side by side: masks at every
  step, whole states every STATE_EVERY steps and at every hand end, scores at hand
  ends; every decision's CPU time is held under PY_BOUND (Python) and CORE_BOUND (the
  core), and the player to act always has a legal action. ``make soak`` plays
  SOAK_TABLES tables of SOAK_STEPS steps.
* ``test_house_rule_masks_match_reference``: positions of such tables with small hands
  checked against the brute-force legality reference (tests/reference_rules.py).
* ``test_slow_positions``: the positions that were slow (the outside check's tables:
  italian with black-3 melds, spanish at 6 players with C-7's black 3s, the largest hands
  of eight decks with 248 jokers) loaded on both engines: the same mask, and the number
  of states the Python search visits held under a bound (a count, not seconds: the shape
  of the time bound).
* ``test_bound_end_positions``: the slowest positions of random play on rules at the
  ends of ``rules.BOUNDS`` (``research/slow_decisions.py``: opening minimums of 255,
  a pot the hand cannot take, C-7's going out without the canastas it needs, S-15's
  clean canastas): the mask
  both engines give is the one in ``positions/bound_ends_legal.json``, and the Python
  search visits at most a bound of states.
* ``test_min_meld_size_2_never_strands_the_player``: the empty mask of the outside
  check (classic, 2 players, ``min_meld_size=2``: black 3s melded with a going out that
  only 2-card melds, which no action lays, could finish), as an exact position.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from canasta_env.actions import NEW_BLACK3, TAKE, TAKE_ONTO_MELD
from canasta_env.core import AVAILABLE, CoreGame
from canasta_env.engine.game import Game
from canasta_env.rules import make_rules
from canasta_env.state_io import state_from_json
from tests.core_parity import fuzz_table
from tests.house_rules import draw_bound_ends, draw_house_rules
from tests.reference_rules import STYLES, choose_action, reference_legal

needs_core = pytest.mark.skipif(not AVAILABLE, reason="the compiled core is not built")

#: The slowest decision allowed (CPU seconds): issue 32's targets.
PY_BOUND = 1.0
CORE_BOUND = 0.05
TABLES, STEPS = 64, 1500
SOAK_TABLES, SOAK_STEPS = 1000, 10_000
STATE_EVERY = 8
POSITIONS = Path(__file__).parent / "positions"
TAKES = range(TAKE, TAKE_ONTO_MELD + 1)


def play_both(preset: str, overrides: dict, players: int, seed: int, steps: int) -> int:
    """One seeded game of a house-rule table on both engines, side by side, each decision
    under its bound (tests/core_parity.py fuzz_table); returns the decisions compared."""
    style = STYLES[seed % len(STYLES)]
    return fuzz_table(
        (preset, overrides, players),
        seed,
        steps,
        state_every=STATE_EVERY,
        choose=lambda rng, legal: choose_action(rng, legal, style),
        bounds=(PY_BOUND, CORE_BOUND),
    )


def _tables(count: int, seed: int, draw=draw_house_rules) -> list[tuple[str, dict, int, int]]:
    rng = random.Random(seed)
    return [(*draw(rng), rng.randrange(10**6)) for _ in range(count)]


def _table_id(table) -> str:
    preset, overrides, players, seed = table
    fields = ",".join(f"{k}={v}" for k, v in overrides.items())
    return f"{preset}[{fields}]-{players}p-{seed}"


@needs_core
@pytest.mark.parametrize("table", _tables(TABLES, 32_001), ids=_table_id)
def test_house_rule_parity(table) -> None:
    """Both engines alike on a drawn house-rule table, every decision in bounded time."""
    preset, overrides, players, seed = table
    assert play_both(preset, overrides, players, seed, STEPS) > 0


@needs_core
@pytest.mark.slow
@pytest.mark.parametrize("table", _tables(SOAK_TABLES, 64_001), ids=_table_id)
def test_house_rule_parity_soak(table) -> None:
    preset, overrides, players, seed = table
    assert play_both(preset, overrides, players, seed, SOAK_STEPS) > 0


@pytest.mark.parametrize(
    ("draw", "table_seed"),
    [(draw_house_rules, 32_002), (draw_bound_ends, 44_002)],
    ids=["mixes", "ends"],
)
def test_house_rule_masks_match_reference(draw, table_seed: int) -> None:
    """The Python mask equals the brute-force reference on small-hand positions of
    drawn house-rule tables (G-5, C-5..C-15, S-5..S-16, I-5..I-11 under house rules), and
    of tables at the ends of BOUNDS (opening minimums of 0 and 255 among them, where the
    quick bounds of engine/turn_bounds.py refuse moves before any search): the whole mask
    of the meld phase, and the takes of the draw phase (what the turn search decides;
    draw and pass follow C-16/S-17 outside it)."""
    checked = 0
    for preset, overrides, players, seed in _tables(40, table_seed, draw):
        rules = make_rules(preset, **overrides)
        game = Game(rules, players, seed=seed)
        rng = random.Random(seed)
        style = STYLES[seed % len(STYLES)]
        for step in range(1500):
            if game.hand_over:
                if game.game_over:
                    break
                game.next_hand()
                continue
            legal = game.legal_actions()
            if game.hand_totals[game.current] + sum(game.held) <= 12:
                reference = reference_legal(game)
                if game.phase == 0:  # the draw phase: the takes are the search's (C-8, C-10)
                    reference = {action for action in reference if action in TAKES}
                    legal = [action for action in legal if action in TAKES]
                assert set(legal) == reference, (
                    f"{preset} {overrides} {players}p seed {seed} step {step}: engine only "
                    f"{sorted(set(legal) - reference)}, reference only "
                    f"{sorted(reference - set(legal))}"
                )
                checked += 1
            game.apply(choose_action(rng, game.legal_actions(), style))
    assert checked > 5000  # the comparison ran


def _load(name: str) -> Game:
    # the black-3 positions are stuck on purpose (the search must prove it): a study's load
    return state_from_json((POSITIONS / name).read_text(), require_playable=False)


#: position file -> the most states the Python search may visit for its mask, about 4x
#: what it visits now (the former search passed 100,000 expansions on the first two, the
#: outside check's hangs, and did not finish the others in minutes). The last two are
#: loaded, not reached: black 3s melded this turn with a hand that cannot go out (the
#: search must prove it: an empty mask; ``require_playable`` refuses such a state).
SLOW_POSITIONS = {
    "italian_black3_melds.json": 1_200,
    "spanish_6p_black3_going_out.json": 400,
    "classic_8_decks_hand.json": 5_000,
    "classic_8_decks_black3.json": 3_000,
    "classic_wild_melds_99_black3.json": 3_500,
}


@pytest.mark.parametrize("name", sorted(SLOW_POSITIONS))
def test_slow_positions(name: str) -> None:
    """Positions that took minutes (or did not finish) decide within a bounded number of
    search states, the same on both engines."""
    game = _load(name)
    legal = game.legal_actions()
    visited = len(game.search.memo) + len(game.search.slot_memo)
    assert visited <= SLOW_POSITIONS[name], f"{name}: {visited} states"
    if "black3" in name and "going_out" not in name and "melds" not in name:
        assert legal == []  # the loaded stranded position: proved so

    if AVAILABLE:
        core = CoreGame.from_game(_load(name))
        assert core.legal_actions() == legal


#: position file -> the most states the Python search may visit for its mask (memo entries,
#: as above), and the states the search visited before the quick bounds of
#: engine/turn_bounds.py (CPU time on this machine then: Python, core). The masks, the
#: same before and after on both engines, are in positions/bound_ends_legal.json.
BOUND_END_POSITIONS = {
    # spanish 2p, minimum 255: the only legal move is the draw; the pot (3 of a rank
    # taken, 44 cards held aside) cannot be taken: 1,496,512 states (31.3 s, 5.2 s)
    "spanish_2p_255_pot_draw_only.json": 50,
    # the same table in the meld phase: no meld can lead to 255: 47,091 (4.2 s, 80 ms)
    "spanish_2p_255_meld.json": 50,
    # italian 2p, minimum 255, 32 cards: 21,736 (1.25 s, 16 ms)
    "italian_2p_255_meld.json": 3_500,
    # italian 2p, minimum 255, pairs that need the wild cards: 7,482 (0.35 s, 1.9 ms)
    "italian_2p_255_pair_wilds.json": 4_000,
    # italian 4p, minimum 255: every card melded reaches it, none left to discard:
    # 13,189 (1.07 s, 21 ms)
    "italian_4p_255_keep_two.json": 50,
    # spanish 4p, black 3s melded (C-7 only going out): no clean canasta may be made
    # this turn (S-15): 49,634 (1.45 s, 26 ms)
    "spanish_4p_black3_no_clean.json": 100,
    # classic 3p, pot taken, black 3s melded: a held 4 and Q can never be melded:
    # 12,112 (0.71 s, 15 ms)
    "classic_3p_held_stuck.json": 100,
    # canastone 3p, 108 cards after a 255-card draw, black 3s melded: going out would
    # make eleven canastas, two too many for the wild cards that keep them dirty (S-15):
    # 34,829 (1.12-1.39 s, 20 ms)
    "canastone_3p_no_clean_canasta.json": 50,
}


@pytest.mark.parametrize("name", sorted(BOUND_END_POSITIONS))
def test_bound_end_positions(name: str) -> None:
    """The slowest positions at the ends of BOUNDS: their exact mask on both engines,
    within a bounded number of search states."""
    expected = json.loads((POSITIONS / "bound_ends_legal.json").read_text())[name]
    game = _load(name)
    assert game.legal_actions() == expected
    visited = len(game.search.memo) + len(game.search.slot_memo)
    assert visited <= BOUND_END_POSITIONS[name], f"{name}: {visited} states"
    if AVAILABLE:
        assert CoreGame.from_game(_load(name)).legal_actions() == expected


def test_min_meld_size_2_never_strands_the_player() -> None:
    """C-7 with ``min_meld_size=2``: a going out needs melds the action layout lays (a new
    meld from the hand has at least 3 cards, docs/rules.md), so the black-3 meld that the
    former search allowed here, counting 2-card melds, is refused, and after any legal
    move the player to act still has a legal action."""
    before = _load("min_meld_size_2_before.json")
    assert before.rules.min_meld_size == 2
    legal = before.legal_actions()
    black3 = [action for action in legal if NEW_BLACK3 <= action < NEW_BLACK3 + 5]
    for action in legal:
        game = _load("min_meld_size_2_before.json")
        game.apply(action)
        if not game.hand_over:
            assert game.legal_actions(), f"action {action} strands the player"
    if AVAILABLE:
        core = CoreGame.from_game(_load("min_meld_size_2_before.json"))
        assert core.legal_actions() == legal
    assert not black3, "the former stranding move is still offered"
