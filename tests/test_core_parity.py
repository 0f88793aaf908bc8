"""The compiled core (canasta_env._core) against the Python engine, step by step.

EnvPool's align test, applied: both engines play the same seeded games and stacked
positions, and at every step their masks, full states (``same_state`` through
``CoreGame.to_game``), hand outcomes and scores must be equal. Skipped, with the reason,
when the core is not built.

* ``test_fuzz``: seeded random masked play, >= 20,000 actions per table (every preset
  and player count, spanish with the S-19 runs, house-rule mixes); ``test_fuzz_house_mixes``:
  2,000 actions of each mix whose turn search is deep (HOUSE_MIXES), and
  ``test_slow_search_positions``: the positions where the core's search once thrashed.
* ``test_golden_playthroughs_with_the_core`` and ``test_behaviour_digest_with_the_core``:
  the stored goldens and the 768-hand digest, computed with the core playing.
* ``test_rule_scenarios_through_the_core``: the stacked-deck scenarios of the rules tests,
  each position loaded into the core (``from_game``) before every action.
* ``test_positive_control``: a one-rule fault switched on in the core
  (``_core._set_fault``) must make the parity checks fail.
* ``test_long_fuzz`` (slow): 10 million actions.
"""

from __future__ import annotations

import inspect
import json
import random

import numpy as np
import pytest

from canasta_env import core as core_module
from canasta_env.core import AVAILABLE, WHY_NOT, CoreGame
from canasta_env.engine.game import Game, IllegalActionError
from canasta_env.engine.sequences import SUITED_SIZE
from canasta_env.engine.state import PHASE_MELD, same_state, state_snapshot
from canasta_env.engine.suits import Suits
from canasta_env.rules import PRESETS, make_rules

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=WHY_NOT or "core not built")

from tests.core_parity import (  # noqa: E402
    HOUSE_MIX_STEPS,
    HOUSE_MIXES,
    TABLES,
    ShadowGame,
    difference,
    fuzz_table,
    table_id,
)

FUZZ_STEPS = 20_000


def _fuzz_steps(table, steps: int) -> int:
    """Games of ``table`` from seeds 0, 1, ... until ``steps`` actions are compared."""
    done = 0
    seed = 0
    while done < steps:
        done += fuzz_table(table, seed, steps - done, state_every=4)
        seed += 1
    return done


@pytest.mark.parametrize("table", TABLES, ids=table_id)
def test_fuzz(table) -> None:
    """Masks every step, full states every 4th step and at every hand end, outcomes and
    scores at every hand end: >= 20,000 actions of this table."""
    assert _fuzz_steps(table, FUZZ_STEPS) >= FUZZ_STEPS


@pytest.mark.parametrize("table", HOUSE_MIXES, ids=table_id)
def test_fuzz_house_mixes(table) -> None:
    """As test_fuzz, for HOUSE_MIX_STEPS actions of the mixes with deep turn searches."""
    assert _fuzz_steps(table, HOUSE_MIX_STEPS) >= HOUSE_MIX_STEPS


def test_stacked_decks_deal_the_same() -> None:
    """Stacked decks (codes, kinds, suited codes for S-19) deal identical games."""
    for name, overrides, deck in [
        ("classic", {}, "AS AH AD 2C JK 3H 3D KS KH " * 2),
        ("classic", {}, [0, 1, 2, 14, 14, 12]),
        ("spanish", {"sequences": True}, "4S 5S 6S 7S 8S 9S TS 3H JK 2C AD"),
        ("spanish", {"sequences": True}, [0, 0, 1, 14, 12]),
        ("italian", {}, "2S 2H 3S 7C " * 3),
    ]:
        rules = make_rules(name, **overrides)
        for n in rules.player_counts:
            py = Game(rules, n, seed=5, deck=deck)
            core = CoreGame(rules, n, seed=5, deck=deck)
            assert not difference(py, core), (name, n)
            py.apply(py.legal_actions()[0])
            core.apply(core.legal_actions()[0])
            assert not difference(py, core), (name, n)


def test_string_seeds_and_state_json_round_trip() -> None:
    """A str seed seeds both alike; a core game saved through to_game and state_io loads
    back (from_game) to the same state."""
    from canasta_env import state_io

    rules = PRESETS["spanish"]
    py = Game(rules, 4, seed="table 9")
    core = CoreGame(rules, 4, seed="table 9")
    assert not difference(py, core)
    core.random_steps(150, 3)
    py = core.to_game()
    for step in range(100):  # and from there both engines play on alike
        if py.hand_over:
            break
        action = py.legal_actions()[step % len(py.legal_actions())]
        py.apply(action)
        core.apply(action)
        assert state_io.state_to_json(py) == state_io.state_to_json(core.to_game())
    text = state_io.state_to_json(core.to_game())
    assert text == state_io.state_to_json(core.to_game())
    loaded = CoreGame.from_game(state_io.state_from_json(text))
    assert same_state(loaded.to_game(), core.to_game())
    assert loaded.legal_actions() == core.legal_actions()


def test_golden_playthroughs_with_the_core(monkeypatch) -> None:
    """The pinned playthroughs (tests/golden/*.txt), replayed with the core playing."""
    from tests import playthrough

    monkeypatch.setattr(playthrough, "BACKEND", "core")
    assert playthrough.make_env("classic", 2, 1).backend == "core"
    for variant, players, seed in playthrough.PLAYTHROUGHS:
        want = playthrough.playthrough_path(variant, players, seed).read_text("utf-8").splitlines()
        assert playthrough.playthrough_lines(variant, players, seed) == want, (variant, players)


def test_behaviour_digest_with_the_core(monkeypatch) -> None:
    """The 768-hand behaviour digest, computed with the core playing, equals the stored one."""
    from tests import playthrough

    monkeypatch.setattr(playthrough, "BACKEND", "core")
    stored = json.loads(playthrough.DIGEST_PATH.read_text("utf-8"))
    current = playthrough.behaviour_digest()
    assert sum(len(records) for records in current.values()) == stored["hands"] == 768
    for case, records in current.items():
        assert records == stored["cases"][case], case


RULE_MODULES = [
    "tests.test_rules_classic_deal",
    "tests.test_rules_classic_end",
    "tests.test_rules_classic_melds",
    "tests.test_rules_classic_pile",
    "tests.test_rules_canastone",
    "tests.test_rules_spanish",
    "tests.test_rules_italian",
]


@pytest.mark.parametrize("module_name", RULE_MODULES)
def test_rule_scenarios_through_the_core(module_name, monkeypatch) -> None:
    """Every argument-free scenario test of a rules module, with each Game it builds a
    ShadowGame: before every action the position goes into the core (from_game), and
    the mask, the action's outcome or refusal, and the state after must agree."""
    import importlib

    import tests.scenario as scenario

    module = importlib.import_module(module_name)
    monkeypatch.setattr(scenario, "Game", ShadowGame)
    if hasattr(module, "Game"):
        monkeypatch.setattr(module, "Game", ShadowGame)
    before = ShadowGame.checks
    ran = 0
    for name, function in vars(module).items():
        if (
            name.startswith("test_")
            and callable(function)
            and not inspect.signature(function).parameters
        ):
            function()
            ran += 1
    assert ran > 0 and ShadowGame.checks > before, "no scenario reached the core"


@pytest.mark.parametrize("fault", [1, 2])
def test_positive_control(fault) -> None:
    """With one rule flipped in the core (1: a plain take with one natural fewer, C-10;
    2: ten more points for going out), the parity fuzz must fail."""
    lib = core_module._core
    lib._set_fault(fault)
    try:
        with pytest.raises(AssertionError):
            for seed in range(20):
                for table in TABLES[:4]:
                    fuzz_table(table, seed, 5000, state_every=1)
    finally:
        lib._set_fault(0)
    assert lib._fault() == 0
    fuzz_table(TABLES[2], 0, 500)  # and it passes again


def replay_core(rules, num_players: int, deal: int, chooser_seed: int, steps: int):
    """The core game after ``steps`` loop turns of seeded random masked play (a new hand
    or game counts as a turn), as the slow-search probes played it."""
    chooser = random.Random(chooser_seed)
    core = CoreGame(rules, num_players, seed=deal)
    for _ in range(steps):
        if core.hand_over:
            if core.game_over:
                deal += 1
                core = CoreGame(rules, num_players, seed=deal)
            else:
                core.next_hand()
            continue
        core.apply(chooser.choice(core.legal_actions()))
    return core


#: Positions where the core's turn search once made ~1,000 times the nodes of Python's
#: (a memo of 8,192 slots, cleared when half full, forgot answers mid-search: 77 million
#: expansions for opening.py's 78,241 at the first; 6-10 s against 0.5 s). Python's own
#: search takes 0.5 s and 3 s on them. (rules, players, deal, chooser seed, loop turns)
SLOW_SEARCH_POSITIONS = [
    (make_rules("classic", wild_melds=True, target_score=3000), 3, 1, 1, 204),
    (make_rules("classic", meld_closes_at=7, wild_melds=True), 3, 0, 0, 871),
]


@pytest.mark.parametrize("position", range(len(SLOW_SEARCH_POSITIONS)))
def test_slow_search_positions(position) -> None:
    rules, num_players, deal, chooser_seed, steps = SLOW_SEARCH_POSITIONS[position]
    core = replay_core(rules, num_players, deal, chooser_seed, steps)
    py = core.to_game()
    assert py.phase == PHASE_MELD and not py.hand_over
    assert core.legal_actions() == py.legal_actions()


# ---------------------------------------------------------------------- bad input


def test_illegal_and_out_of_range_actions_change_nothing() -> None:
    core = CoreGame(PRESETS["classic"], 4, seed=1)
    before = state_snapshot(core.to_game())
    illegal = next(a for a in range(500) if not core.mask()[a])
    for action in (illegal, -1, 500, 10**30, True, "draw", 2.0, None):
        with pytest.raises(ValueError) as error:
            core.apply(action)
        assert isinstance(error.value, IllegalActionError)
        if isinstance(action, int) and not isinstance(action, bool):
            assert str(action) in str(error.value)
    assert state_snapshot(core.to_game()) == before
    assert "illegal action" in str(pytest.raises(ValueError, core.apply, illegal).value)


def test_wrong_decks_raise() -> None:
    rules = PRESETS["classic"]
    with pytest.raises(ValueError, match="more JK than the classic deck holds"):
        CoreGame(rules, 4, seed=1, deck="JK " * 5)
    with pytest.raises(ValueError, match="not a card code"):
        CoreGame(rules, 4, seed=1, deck="XX")
    with pytest.raises(ValueError, match=r"more 4S than the 4 deck\(s\) hold"):
        CoreGame(make_rules("spanish", sequences=True), 2, seed=1, deck="4S " * 5)
    core = CoreGame(rules, 2, seed=1)
    with pytest.raises(ValueError, match="not over"):
        core.next_hand()
    while not core.hand_over:
        core.random_steps(1000, 1)
    before = state_snapshot(core.to_game())
    if not core.game_over:
        with pytest.raises(ValueError, match="more JK"):
            core.next_hand(deck="JK " * 5)
        assert state_snapshot(core.to_game()) == before


def test_bad_states_raise_and_change_nothing() -> None:
    game = Game(PRESETS["classic"], 4, seed=2)
    core = CoreGame.from_game(game)
    before = state_snapshot(core.to_game())
    cases = [
        ("hands", [[0] * 15] * 3, "hands"),
        ("current", 9, "current"),
        ("stock", [0, 99], "stock"),
        ("hand_totals", [1, 1, 1, 1], "hand_totals"),
        # suits on a table without S-19 runs
        ("suits", Suits([], [[0] * SUITED_SIZE] * 4, [], [0] * SUITED_SIZE), "stock_suits"),
        ("end_reason", "went out", "end_reason"),
        ("opened", [1, 0], "opened"),
    ]
    for name, value, word in cases:
        bad = game.copy()
        setattr(bad, name, value)
        with pytest.raises(ValueError, match=word):
            core.load(bad)
        assert state_snapshot(core.to_game()) == before, name
    assert core.legal_actions() == game.legal_actions()


def test_mask_is_int8_of_500() -> None:
    core = CoreGame(PRESETS["italian"], 2, seed=4)
    mask = core.mask()
    assert mask.dtype == np.int8 and mask.shape == (500,)
    assert list(np.flatnonzero(mask)) == core.legal_actions()
    mask[:] = 0  # a copy: writing it changes neither the game nor the next mask
    assert list(np.flatnonzero(core.mask())) == core.legal_actions()
    core.apply(core.legal_actions()[0])
    assert list(np.flatnonzero(core.mask())) == core.legal_actions() and not mask.any()


@pytest.mark.slow
def test_long_fuzz() -> None:
    """10 million actions over every table, states compared every 16th action."""
    total = 0
    seed = 1000
    while total < 10_000_000:
        for table in TABLES:
            total += fuzz_table(table, seed, 50_000, state_every=16)
        seed += 1
    assert total >= 10_000_000
