"""Helpers of the core parity tests (tests/test_core_parity.py): step the Python engine
and the compiled core side by side and compare masks, states and outcomes."""

from __future__ import annotations

import random
import time

import numpy as np

from canasta_env.core import CoreGame
from canasta_env.engine.game import Game, IllegalActionError
from canasta_env.engine.state import STATE_FIELDS, same_state, state_snapshot
from canasta_env.rules import PRESETS, make_rules

#: Every preset at every player count, spanish with runs (S-19), and house-rule mixes.
TABLES: list[tuple[str, dict, int]] = [
    (name, {}, n) for name, rules in PRESETS.items() for n in rules.player_counts
]
TABLES += [("spanish", {"sequences": True}, n) for n in (2, 3, 4, 6)]
TABLES += [
    ("classic", {"take_with_wild": False, "go_out_min_canastas": 2}, 4),
    ("classic", {"draw_count": 2, "concealed_go_out_bonus": 0, "target_score": 3000}, 3),
    ("canastone", {"frozen_for_unopened": False, "must_take_matching_pot": False}, 2),
    ("spanish", {"wild_meld_min_start": 3, "black3_canasta_wins_game": False}, 2),
    ("spanish", {"sequences": True, "meld_closes_at": 0, "max_wilds_per_meld": 3}, 4),
    ("italian", {"clean_opening_max_minimum": 0, "draw_after_pot_take": 0}, 2),
    ("italian", {"pot_face_down": 3, "unopened_hand_penalty_factor": 3}, 4),
]

#: House-rule mixes whose turn search (going out with wild melds, C-7's black 3s, S-7's
#: closing melds, I-11's clean and dirty canastas) is deep: the former search took
#: minutes on one mask at some of their positions (over 400 s once in 20,000 actions of
#: the first); the slot search decides them in milliseconds (tests/test_house_fuzz.py
#: holds every decision under its bound), so they are fuzzed as long as TABLES.
HOUSE_MIXES: list[tuple[str, dict, int]] = [
    ("classic", {"wild_melds": True, "target_score": 3000}, 3),
    ("classic", {"meld_closes_at": 7, "wild_melds": True}, 4),
    ("canastone", {"take_naturals_frozen": 3, "go_out_needs_clean_and_dirty": True}, 3),
]
HOUSE_MIX_STEPS = 20_000


def table_id(table) -> str:
    name, overrides, n = table
    extra = ",".join(f"{k}={v}" for k, v in overrides.items())
    return f"{name}{'[' + extra + ']' if extra else ''}-{n}p"


def difference(py: Game, core: CoreGame) -> str:
    """'' when the states are equal field by field, else the first differing fields."""
    other = core.to_game()
    if same_state(py, other):
        return ""
    names = [
        name
        for name in STATE_FIELDS
        if (
            getattr(py, name).getstate() != getattr(other, name).getstate()
            if name == "rng"
            else getattr(py, name) != getattr(other, name)
        )
    ]
    shown = {
        name: (repr(getattr(py, name))[:200], repr(getattr(other, name))[:200])
        for name in names[:3]
    }
    return f"fields differ: {names}; python vs core: {shown}"


def compare_mask(py: Game, core: CoreGame, where: str) -> list[int]:
    legal = py.legal_actions()
    mask = core.mask()
    expected = np.zeros(500, np.int8)
    expected[legal] = 1
    assert mask.dtype == np.int8 and mask.shape == (500,)
    if not np.array_equal(mask, expected):
        raise AssertionError(
            f"{where}: masks differ: python only {sorted(set(legal) - set(np.flatnonzero(mask)))}, "
            f"core only {sorted(set(np.flatnonzero(mask)) - set(legal))}"
        )
    assert core.legal_actions() == legal, where
    return legal


def fuzz_table(table, seed: int, steps: int, state_every: int = 1, choose=None, bounds=None) -> int:
    """Random masked play of one seeded game (new hands until the game ends or ``steps``
    actions), both engines side by side; returns the actions compared.

    ``choose(rng, legal)``: the policy (uniform if None); ``bounds``: (Python, core) CPU
    seconds no mask may take (tests/test_house_fuzz.py). The player to act must always
    have a legal action."""
    name, overrides, n = table
    rules = make_rules(name, **overrides)
    py = Game(rules, n, seed=seed)
    core = CoreGame(rules, n, seed=seed)
    rng = random.Random(seed * 7919 + 1)
    choose = choose or (lambda rng, legal: rng.choice(legal))
    done = 0
    where = f"{table_id(table)} seed {seed}"
    assert not difference(py, core), f"{where}: the deal differs: {difference(py, core)}"
    while done < steps:
        if py.hand_over:
            assert core.hand_over and core.end_reason == py.end_reason, where
            assert core.hand_scores == py.hand_scores and core.scores == py.scores, where
            assert core.game_over == py.game_over and core.winner_team == py.winner_team, where
            if py.game_over:
                break
            py.next_hand()
            core.next_hand()
            assert not difference(py, core), f"{where}: next hand deals differently"
        at = f"{where} step {done}"
        if bounds is not None:  # every decision in bounded time (CPU seconds)
            start = time.process_time()
            py.legal_actions()
            py_time, start = time.process_time() - start, time.process_time()
            core.mask()
            core_time = time.process_time() - start
            assert py_time <= bounds[0], f"{at}: the Python mask took {py_time:.3f} s"
            assert core_time <= bounds[1], f"{at}: the core's mask took {core_time:.4f} s"
        legal = compare_mask(py, core, at)
        assert legal, f"{at}: the player to act has no legal action"
        action = choose(rng, legal)
        py.apply(action)
        core.apply(action)
        done += 1
        if done % state_every == 0 or py.hand_over:
            problem = difference(py, core)
            assert not problem, f"{where} step {done} (action {action}): {problem}"
    return done


class ShadowGame(Game):
    """A Python Game that, at every apply, loads its position into the core (from_game,
    so positions edited by hand count too) and checks the core's mask, the action's
    outcome (or refusal) and the state after it."""

    checks = 0

    def apply(self, action) -> None:
        core = CoreGame.from_game(self)
        assert not difference(self, core), "from_game did not load the position"
        compare_mask(self, core, "scenario")
        before = state_snapshot(self)
        try:
            super().apply(action)
        except IllegalActionError:
            try:
                core.apply(action)
            except ValueError:
                pass
            else:
                raise AssertionError(f"the core accepted action {action!r} that Python refuses")
            assert state_snapshot(core.to_game()) == before, "a refused action changed the core"
            ShadowGame.checks += 1
            raise
        core.apply(action)
        problem = difference(self, core)
        assert not problem, f"scenario action {action}: {problem}"
        ShadowGame.checks += 1
