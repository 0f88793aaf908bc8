"""Run by tests/test_core_sanitize.py in a subprocess: load a sanitizer build of the core in
place of the installed one, then play it hard.

    python tests/core_sanitize_run.py PATH/_core....so STEPS
    python tests/core_sanitize_run.py PATH/_core....so fuzz PER_PAIR

The module is loaded as ``canasta_env._core`` before ``canasta_env.core`` imports it, so
CoreGame and the parity helpers drive the instrumented code. Prints one line ending in
'sanitized core checked' when every check passed ('sanitized core fuzzed' for the
mutated-input fuzz of tests/core_fuzz.py); any failure raises (exit 1), any sanitizer
report aborts the process.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path


def load_core(path: Path) -> None:
    # before canasta_env: its __init__ imports canasta_env.core (through vector_env),
    # which would import the installed module first
    spec = importlib.util.spec_from_file_location("canasta_env._core", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["canasta_env._core"] = module
    spec.loader.exec_module(module)
    import canasta_env

    canasta_env._core = module


def scrambled(table, seed: int):
    """A Python game of ``table`` played a while, then scrambled by hand into a position
    no game reaches but every card is somewhere once (the loose cards of stock, pot and
    hands dealt again at random, the turn's flags and the opening minimums drawn at
    random): what a caller may hand ``CoreGame.from_game``. None for tables with runs
    (``sequences``: the suits would have to follow) and for finished hands."""
    from canasta_env.cards import NUM_HAND_KINDS, NUM_KINDS, RED3
    from canasta_env.engine.game import Game
    from canasta_env.rules import make_rules

    name, overrides, n = table
    rules = make_rules(name, **overrides)
    if rules.sequences:
        return None
    game = Game(rules, n, seed=seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(120)):
        if game.hand_over:
            return None
        game.apply(rng.choice(game.legal_actions()))
    if game.hand_over:
        return None
    loose = (
        game.stock
        + game.pot
        + [k for hand in game.hands for k in range(NUM_KINDS) for _ in range(hand[k])]
    )
    loose += [k for k in range(NUM_KINDS) for _ in range(game.held[k])]
    rng.shuffle(loose)
    red3s = [card for card in loose if card == RED3]  # never held: stock or pot only
    holdable = [card for card in loose if card != RED3]
    cut = rng.randrange(len(holdable) + 1)
    game.hands = [[0] * NUM_KINDS for _ in range(n)]
    for card in holdable[:cut]:
        game.hands[rng.randrange(n)][card] += 1
    piles = holdable[cut:] + red3s
    rng.shuffle(piles)
    size = rng.randrange(len(piles) + 1)
    game.pot, game.stock = piles[:size], piles[size:]
    game.pot_hidden = rng.randrange(size + 1)
    game.pot_known = [0] * NUM_KINDS
    for card in game.pot[game.pot_hidden :]:
        game.pot_known[card] += 1
    game.held = [0] * NUM_KINDS
    game.known = [[0] * NUM_KINDS for _ in range(n)]
    game.current = rng.randrange(n)
    game.phase = rng.randrange(2)
    for flag in ("pot_wild", "took_pot", "clean_only", "hidden_open", "melded_this_turn"):
        setattr(game, flag, rng.random() < 0.3)
    game.opened = [rng.random() < 0.5 for _ in range(game.num_teams)]
    game.opened_at_turn_start = game.opened[game.team_of[game.current]]
    game.need = [rng.choice((0, 15, 50, 90, 120, 255)) for _ in range(game.num_teams)]
    game.staged = rng.randrange(200)
    game.since_discard = [[rng.randrange(3) for _ in range(NUM_HAND_KINDS)] for _ in range(n)]
    game.state_changed()
    return game


def play_scrambled(tables, per_table: int) -> tuple[int, int]:
    """Load scrambled positions into the core and play them with its own random policy to
    the end of the hand and through the next: (positions played, actions)."""
    from canasta_env.core import CoreGame

    positions = actions = 0
    for table in tables:
        for seed in range(per_table):
            game = scrambled(table, seed)
            if game is None:
                continue
            core_game = CoreGame.from_game(game)
            # the hidden cards read in C++ from a scrambled position: the Python game's
            if core_game.hidden_counts().tolist() != game.hidden_counts():
                raise AssertionError(f"hidden_counts differs at {table} seed {seed}")
            positions += 1
            for _ in range(2):
                actions += core_game.random_steps(2_000, seed)
                core_game.hidden_counts()  # read after play too: the pot and stock moved
                if core_game.game_over or not core_game.hand_over:
                    break
                core_game.next_hand()
    return positions, actions


def refused_input() -> int:
    """Every crafted state, rules value, action and seed of test_core_bad_input: refused
    with ValueError (or played alike), nothing read or written out of bounds."""
    from canasta_env import _core, core
    from canasta_env.rules import make_rules
    from tests import test_core_bad_input as bad

    checks = 0
    for _name, change, match in bad.STATE_CASES:
        bad.test_crafted_states_are_refused_naming_the_field(change, match)
        checks += 1
    for param in bad._rules_cases():
        bad.test_core_rules_refuse_every_value_outside_the_bounds(*param.values)
        checks += 1
    for field, value in [("jokers_per_deck", [2**31 - 1]), ("black3_meld_max_size", [200])]:
        values = core.rules_values(make_rules("classic"), 4)
        values[field] = value
        try:
            _core.Rules.from_values(values)  # in this process: once a segmentation fault
        except ValueError:
            checks += 1
        else:
            raise AssertionError(f"{field}={value} was accepted")
    for check in (
        bad.test_crafted_suits_are_refused,
        bad.test_a_deal_larger_than_the_deck_is_refused,
        bad.test_same_bad_actions_same_errors_on_both_engines,
        bad.test_batched_step_answers_alike,
        bad.test_vector_seed_derivation_over_new_deals,
        bad.test_a_phase_and_turn_out_of_order_play_without_fault,
    ):
        check()
        checks += 1
    for seed in bad.SEEDS:
        bad.test_vector_seeds_of_any_size_deal_alike(seed)
        checks += 1
    return checks


def fuzz(per_pair: int) -> None:
    """tests/core_fuzz.py at full size: mutated observations and masks to every bot name
    at every fuzz table, the bad calls, four threads on one object of each kind."""
    from tests import core_fuzz

    counts = core_fuzz.fuzz_bots(per_pair=per_pair)
    calls = core_fuzz.bad_calls()
    hammered = core_fuzz.hammer_all()
    try:
        import stable_baselines3  # noqa: F401
    except ImportError:  # the train extra: its face is the Gymnasium face's, hammered above
        pass
    else:
        hammered["SB3 face"] = core_fuzz.hammer_face(True, rounds=20, sb3=True)
    refused = sum(busy for _, busy in hammered.values())
    print(
        f"{sum(counts.values())} bot decisions on mutated input ({counts}), {calls} bad calls, "
        f"{len(hammered)} objects in 4 threads ({refused} calls refused as busy): "
        "sanitized core fuzzed"
    )


def main() -> None:
    path = Path(sys.argv[1])
    load_core(path)
    if sys.argv[2] == "fuzz":
        fuzz(int(sys.argv[3]))
        return
    steps = int(sys.argv[2])
    from canasta_env import core
    from canasta_env.rules import make_rules
    from tests import test_core_parity as parity
    from tests.core_parity import TABLES, fuzz_table

    assert core.AVAILABLE and Path(core._core.__file__).resolve() == path.resolve(), (
        "the sanitized module was not the one loaded"
    )
    per_table = steps // len(TABLES) + 1
    done = 0
    for table in TABLES:  # both engines side by side, states compared every 4th action
        table_done, seed = 0, 0
        while table_done < per_table:
            table_done += fuzz_table(table, seed, per_table - table_done, state_every=4)
            seed += 1
        done += table_done
    hands = 0
    for name, overrides, n in TABLES:  # the core alone, its own random policy
        rules = make_rules(name, **overrides)
        core_rules = core._core.Rules.from_values(core.rules_values(rules, n))
        hands += core._core.random_playout_steps(core_rules, name, n, 20_000, 7)
    for check in (  # bad input: illegal actions, wrong decks and states, the mask
        parity.test_illegal_and_out_of_range_actions_change_nothing,
        parity.test_wrong_decks_raise,
        parity.test_bad_states_raise_and_change_nothing,
        parity.test_mask_is_int8_of_500,
        parity.test_stacked_decks_deal_the_same,
        parity.test_string_seeds_and_state_json_round_trip,
    ):
        check()
    refused = refused_input()
    positions, scrambled_actions = play_scrambled(TABLES, max(4, steps // 2_000))
    print(
        f"{done} parity actions, {hands} C++ playout hands, {refused} bad-input checks, "
        f"{positions} scrambled positions ({scrambled_actions} actions): sanitized core checked"
    )


if __name__ == "__main__":
    main()
