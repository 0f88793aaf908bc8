"""Run by tests/test_core_sanitize.py in a subprocess: load a sanitizer build of the core in
place of the installed one, then play it hard.

    python tests/core_sanitize_run.py PATH/_core....so STEPS

The module is loaded as ``canasta_env._core`` before ``canasta_env.core`` imports it, so
CoreGame and the parity helpers drive the instrumented code. Prints one line ending in
'sanitized core checked' when every check passed; any failure raises (exit 1), any
sanitizer report aborts the process.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def load_core(path: Path) -> None:
    import canasta_env

    spec = importlib.util.spec_from_file_location("canasta_env._core", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["canasta_env._core"] = module
    spec.loader.exec_module(module)
    canasta_env._core = module


def main() -> None:
    path, steps = Path(sys.argv[1]), int(sys.argv[2])
    load_core(path)
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
    print(f"{done} parity actions, {hands} C++ playout hands: sanitized core checked")


if __name__ == "__main__":
    main()
