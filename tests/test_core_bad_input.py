"""Bad input on the compiled core: the same answer as the Python engine, or a refusal
that names the field, never a crash or a state the core cannot hold.

* Actions: the same bad actions thrown at both engines (``Game`` and ``CoreGame``, the
  ``raw_env`` faces, ``vector_env``'s batched step) raise the same exception class with
  the same message, word for word, the Python engine's reason why a move is illegal
  included; ids in any integer dtype and byte order play alike; a huge unsigned id is
  named by its real value.
* States: a hand-built ``Game`` whose fields the core cannot hold (a pot or a hand past
  the deck, a card missing, totals that disagree, suits that do not add up, integers
  past 64 bits) is refused by ``CoreGame.from_game``/``load`` with ``ValueError`` naming
  the field, and a refused load changes nothing.
* Rules: ``_core.Rules.from_values`` refuses every value outside ``rules.BOUNDS`` (and
  what would overflow its arrays) naming the field, whoever sends it.
* Seeds: ``vector_env`` deals the same tables on both backends for any Python integer
  seed (past 64 bits, negative, crossing zero or a 32-bit word), deal by deal.
* Bots, batches, calls out of order (``tests/core_fuzz.py``, run in a child process: the
  probes' inputs once crashed or hung the process): a mutated observation given to a
  ``CoreBot`` is refused as "not an observation" naming the entry, or played (a legal
  id); a bad argument or a call out of order on ``Game``, ``Bot``, ``Batch`` or
  ``vector_env`` is a named ``ValueError``, ``TypeError`` or ``RuntimeError``.
"""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import canasta_env
from canasta_env import core
from canasta_env.actions import DRAW, NUM_ACTIONS
from canasta_env.engine.game import Game, IllegalActionError
from canasta_env.engine.sequences import SUITED_SIZE
from canasta_env.engine.state import PHASE_MELD, state_snapshot
from canasta_env.rules import BOUNDS, COLUMNS, make_rules
from canasta_env.table import Table
from canasta_env.vector import vector_env

pytestmark = pytest.mark.skipif(not core.AVAILABLE, reason=f"core not built: {core.WHY_NOT}")

if core.AVAILABLE:
    from canasta_env import _core


# ---------------------------------------------------------------------- actions
def _outcome(function, *args) -> tuple[str, str]:
    """(exception class name, message) of ``function(*args)``, or ("ok", "")."""
    try:
        function(*args)
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        return type(error).__name__, str(error)
    return "ok", ""


def _bad_actions(illegal: list[int]) -> list:
    """Every kind of bad action, the illegal ids in range given in several forms."""
    first = illegal[0]
    return [
        True,
        False,
        np.True_,
        1.0,
        np.float64(2.0),
        "draw",
        None,
        1j,
        [DRAW],
        -1,
        NUM_ACTIONS,
        2**63,
        -(2**63) - 1,
        10**30,
        np.int64(-1),
        np.uint64(2**64 - 1),
        np.uint64(2**63),
        np.int8(-128),
        np.array(NUM_ACTIONS, dtype=">i8"),
        np.array(2.0),
        np.array(True),
        np.array([first]),
        np.array([[first]]),
        np.array(first),  # 0-d arrays of illegal ids, native and big-endian
        np.array(first, dtype=">i8"),
        np.array([first], dtype=">i8")[0],
        np.int8(first) if first < 128 else np.int16(first),
        np.uint16(first),
        *illegal,
    ]


def _positions():
    """(name, Python game, core game) at the same position: a draw phase, a meld phase,
    deep in a hand, a finished hand; classic, italian and spanish with runs."""
    for variant, players, overrides, steps in [
        ("classic", 4, {}, 0),
        ("classic", 2, {}, 1),
        ("italian", 4, {}, 37),
        ("spanish", 4, {"sequences": True}, 61),
        ("classic", 3, {}, None),  # None: to the hand's end
    ]:
        rules = make_rules(variant, **overrides)
        game = Game(rules, players, seed=3)
        rng = random.Random(9)
        done = 0
        while not game.hand_over and (steps is None or done < steps):
            game.apply(rng.choice(game.legal_actions()))
            done += 1
        yield f"{variant}-{players}p-{steps}", game, core.CoreGame.from_game(game)


def _illegal_ids(game: Game) -> list[int]:
    """Illegal ids in range, from every part of the action layout."""
    legal = set(game.legal_actions())
    illegal = [a for a in range(NUM_ACTIONS) if a not in legal]
    picks = illegal[:: max(1, len(illegal) // 12)]
    return sorted(set(picks + illegal[:3] + illegal[-3:]))


def test_same_bad_actions_same_errors_on_both_engines() -> None:
    compared = 0
    for name, game, core_game in _positions():
        before = state_snapshot(game)
        for action in _bad_actions(_illegal_ids(game)):
            on_python = _outcome(game.apply, action)
            on_core = _outcome(core_game.apply, action)
            assert on_core == on_python, (name, repr(action))
            assert on_python[0] == "IllegalActionError", (name, repr(action), on_python)
            compared += 1
        assert state_snapshot(game) == before == state_snapshot(core_game.to_game()), name
    assert compared > 150


def test_illegal_action_explains_why_on_the_core() -> None:
    """The core's refusal carries the Python engine's reason (once missing: the message
    stopped at the phase)."""
    game = Game(make_rules("classic"), 4, seed=1)
    core_game = core.CoreGame(make_rules("classic"), 4, seed=1)
    with pytest.raises(IllegalActionError) as error:
        core_game.apply(5)
    assert str(error.value) == (
        "illegal action 5 ('pass') for player 0 in the draw phase: "
        "you may pass only when the stock is exhausted"
    )
    assert _outcome(game.apply, 5) == ("IllegalActionError", str(error.value))


@pytest.mark.parametrize(
    "form",
    [
        lambda a: np.array([a], dtype=">i8")[0],
        lambda a: np.array(a, dtype=">i8"),
        lambda a: np.array(a, dtype=">u2"),
        lambda a: np.array(a, dtype="<i4"),
        np.uint64,
        np.int16,
    ],
    ids=["big-endian-scalar", "big-endian-0d", "big-endian-u2", "little-endian-0d", "u8", "i2"],
)
def test_legal_ids_in_any_integer_form_play_alike(form) -> None:
    rules = make_rules("spanish", sequences=True)
    game, core_game = Game(rules, 4, seed=8), core.CoreGame(rules, 4, seed=8)
    rng = random.Random(4)
    for _ in range(120):
        if game.hand_over:
            break
        action = rng.choice(game.legal_actions())
        game.apply(form(action))
        core_game.apply(form(action))
    assert state_snapshot(core_game.to_game()) == state_snapshot(game)


def test_raw_env_faces_answer_alike() -> None:
    for make in (canasta_env.raw_env, canasta_env.env):
        envs = [make(num_players=4, backend=b, illegal_action="raise") for b in ("core", "python")]
        for env in envs:
            env.reset(seed=12)
        rng = random.Random(3)
        for _ in range(25):
            py_env = envs[1].unwrapped
            illegal = _illegal_ids(py_env.table.game)
            for action in _bad_actions(illegal):
                got = [_outcome(env.step, action) for env in envs]
                assert got[0] == got[1], repr(action)
                assert got[0][0] in ("IllegalActionError", "ValueError"), (repr(action), got)
            mask = envs[1].observe(envs[1].agent_selection)["action_mask"]
            action = rng.choice(np.flatnonzero(mask).tolist())
            for env in envs:
                env.step(action)


# ---------------------------------------------------------------------- the batch
def _both_vectors(**options):
    envs = [vector_env(backend=b, **options) for b in ("core", "python")]
    return envs


def test_batched_step_answers_alike() -> None:
    envs = _both_vectors(num_players=4, num_envs=6, seed=17)
    for env in envs:
        assert _outcome(env.step, np.zeros(6, np.int64)) == (
            "RuntimeError",
            "reset() must be called before step()",
        )
    views = [env.reset() for env in envs]
    mask = views[1][1]
    rng = np.random.default_rng(1)
    legal = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
    illegal_id = int(np.flatnonzero(mask[4] == 0)[-1])
    small_illegal = int(np.flatnonzero(mask[4][:128] == 0)[0])  # fits an int8

    def at(table: int, value, dtype=np.int64) -> np.ndarray:
        actions = legal.astype(dtype)
        actions[table] = value
        return actions

    bad = {
        "short": legal[:5],
        "2-d": legal.reshape(6, 1),
        "float": legal.astype(np.float64),
        "bool": legal.astype(bool),
        "object": np.array([*legal[:5].tolist(), 2**64], dtype=object),
        "list past 64 bits": [*legal[:5].tolist(), 2**70],
        "illegal": at(4, illegal_id),
        "illegal big-endian": at(4, illegal_id).astype(">i8"),
        "illegal int8": at(4, small_illegal, np.int8),
        "500": at(2, NUM_ACTIONS),
        "negative": at(0, -1),
        "int64 min": at(1, -(2**63)),
        "uint64 max": at(3, 2**64 - 1, np.uint64),
        "2**63": at(5, 2**63, np.uint64),
        "big-endian uint64 max": at(3, 2**64 - 1, np.uint64).astype(">u8"),
    }
    for why, actions in bad.items():
        got = [_outcome(env.step, actions) for env in envs]
        assert got[0] == got[1], why
        assert got[0][0] == "IllegalActionError", (why, got)
    said = _outcome(envs[0].step, bad["uint64 max"])[1]
    assert said == f"table 3: illegal action {2**64 - 1} for seat {int(views[1][2][3])}"
    for dtype in (">i8", ">u2"):  # big-endian ids play alike
        ids = np.array([int(np.flatnonzero(row)[-1]) for row in views[1][1]], dtype=dtype)
        stepped = [env.step(ids) for env in envs]
        assert all(np.array_equal(a, b) for a, b in zip(*stepped))


# ---------------------------------------------------------------------- seeds
SEEDS = [
    2**63 - 1,  # the core once wrapped to -2**63 for the second table
    2**63 - 2,
    2**64 + 5,  # once a TypeError on the core only
    2**64 - 2,  # crosses 64 bits
    2**32 - 3,  # crosses a 32-bit word
    10**40,
    -1,
    -3,  # -3, -2, -1, 0, 1: crosses zero
    -(2**63),
    -(2**64) - 1,
    -(2**64) + 2,  # |seed| crosses below 2**64
    -(10**30),
]


@pytest.mark.parametrize("seed", SEEDS)
def test_vector_seeds_of_any_size_deal_alike(seed) -> None:
    core_env, py_env = _both_vectors(num_players=2, num_envs=5, seed=seed)
    got, expected = core_env.reset(), py_env.reset()
    assert all(np.array_equal(a, b) for a, b in zip(got, expected)), seed
    assert core_env.deal_seeds == py_env.deal_seeds == [seed + k for k in range(5)]
    # table k is random.Random(seed + k)'s deal, as a Table of that seed deals it
    rules = make_rules("classic")
    for k in (0, 4):
        table = Table(rules, 2, seed=seed + k)
        assert np.array_equal(got[0][k], table.observation(table.current))


def test_vector_seed_derivation_over_new_deals() -> None:
    """Deals made as episodes end keep counting from the reset's seed on both backends."""
    for seed in (2**64 - 3, -(2**64) + 40, -20):
        core_env, py_env = _both_vectors(num_players=2, num_envs=4, seed=seed)
        got, expected = core_env.reset(), py_env.reset()
        rng = np.random.default_rng(0)
        ended = 0
        for step in range(700):
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in got[1]])
            got, expected = core_env.step(actions), py_env.step(actions)
            assert all(np.array_equal(a, b) for a, b in zip(got, expected)), (seed, step)
            ended += int(got[4].sum())
        assert ended >= 4
        assert core_env.deal_seeds == py_env.deal_seeds
        assert max(core_env.deal_seeds) - seed >= 4
        again = core_env.reset(seed=np.int64(-5))
        assert core_env.deal_seeds == [-5, -4, -3, -2]
        assert all(np.array_equal(a, b) for a, b in zip(again, py_env.reset(seed=-5)))


# ---------------------------------------------------------------------- crafted states
def _crafted(variant="classic", players=4, seed=1, **overrides) -> Game:
    game = Game(make_rules(variant, **overrides), players, seed=seed)
    rng = random.Random(seed)
    for _ in range(30):
        game.apply(rng.choice(game.legal_actions()))
    return game


def _edit(game: Game, change) -> Game:
    bad = game.copy()
    change(bad)
    return bad


def _set(**fields):
    def change(game):
        for name, value in fields.items():
            setattr(game, name, value)

    return change


def _pot_of_671(game):  # the report: a 671-card pot and a 40-card hand
    game.pot = [4] * 671
    game.hands[0] = [3] * 13 + [1, 0]
    game.state_changed()


def _one_card_missing(game):
    game.stock.pop()


def _extra_card_in_hand(game):
    melded = {kind for team in game.nat for kind, count in enumerate(team) if count}
    melded |= {slot for team in game.closed for slot, *_ in team}
    kind = next(k for k in range(11) if k not in melded)  # counted before the melds
    game.hands[1][kind] += 1
    game.state_changed()


def _natural_in_wild_slot(game):
    game.stock.pop()
    game.nat[0][12] = 1
    game.state_changed()


def _wrong_table_totals(game):
    game.table_totals = [t + 1 for t in game.table_totals]


def _wrong_history_totals(game):
    game.history_totals = [t + 1 for t in game.history_totals]


def _red3_held(game):
    game.stock.remove(14) if 14 in game.stock else None
    game.held = [0] * 14 + [1]


STATE_CASES = [
    ("pot of 671, hand of 40", _pot_of_671, "'pot'"),
    ("a card missing", _one_card_missing, "card conservation violated for"),
    ("a card too many", _extra_card_in_hand, "'hands'"),
    ("a natural in the wild slot", _natural_in_wild_slot, "'nat'"),
    ("table totals", _wrong_table_totals, "'table_totals'"),
    ("history totals", _wrong_history_totals, "'history_totals'"),
    ("a red 3 held", _red3_held, "'held'"),
    ("stock past MAX_CARDS", _set(stock=[0] * 700), "'stock'"),
    ("hand_index past 64 bits", _set(hand_index=2**70), "'hand_index'.*1180591620717411303424"),
    ("a score past 64 bits", _set(scores=[2**64, 0]), "'scores'.*18446744073709551616"),
    ("a bool for an integer", _set(need=[True, 50]), "'need'"),
    ("a reason that is no string", _set(end_reason=5), "'end_reason'"),
    ("a kind out of range", _set(pot=[99]), "'pot'"),
    ("a float in a hand", _set(hands=[[0.5] * 15] * 4), "'hands'"),
]


@pytest.mark.parametrize(
    "change,match", [c[1:] for c in STATE_CASES], ids=[c[0] for c in STATE_CASES]
)
def test_crafted_states_are_refused_naming_the_field(change, match) -> None:
    game = _crafted()
    core_game = core.CoreGame.from_game(game)
    before = state_snapshot(core_game.to_game())
    bad = _edit(game, change)
    with pytest.raises(ValueError, match=match) as error:
        core.CoreGame.from_game(bad)
    assert type(error.value) is ValueError
    with pytest.raises(ValueError, match=match):
        core_game.load(bad)
    assert state_snapshot(core_game.to_game()) == before
    core_game.apply(core_game.legal_actions()[0])  # and it plays on


def _suited(change):
    game = _crafted("spanish", 4, sequences=True)
    core.CoreGame.from_game(game)
    return _edit(game, change)


def test_crafted_suits_are_refused() -> None:
    def natural_without_suit(game):
        at = next(i for i, kind in enumerate(game.stock) if kind < 11)
        game.suits.stock[at] = -1

    def suit_on_a_wild_card(game):
        at = next(i for i, kind in enumerate(game.stock) if kind >= 11)
        game.suits.stock[at] = 2

    def hand_suits_disagree(game):
        game.suits.hands[0] = [0] * SUITED_SIZE

    def a_suit_too_often(game):
        game.suits.hands[0] = [0] * SUITED_SIZE
        for kind, count in enumerate(game.hands[0][:11]):
            game.suits.hands[0][kind * 4] = count  # every natural a spade
        for seat in range(1, 4):
            game.suits.hands[seat] = [0] * SUITED_SIZE
            for kind, count in enumerate(game.hands[seat][:11]):
                game.suits.hands[seat][kind * 4] = count

    for change, match in [
        (natural_without_suit, "'stock_suits'"),
        (suit_on_a_wild_card, "'stock_suits'"),
        (hand_suits_disagree, "'hand_suits'"),
        (a_suit_too_often, "of suit 0"),
    ]:
        with pytest.raises(ValueError, match=match):
            core.CoreGame.from_game(_suited(change))


def test_hand_built_positions_the_engine_plays_still_load() -> None:
    """The rules scenarios set fields by hand (scores, melds, hands) as long as every
    card is somewhere once: the core takes those, as the Python engine plays them."""
    game = _crafted()
    game.scores = [1500, -200]
    game.need = [90, 15]
    game.first_player = 3
    core_game = core.CoreGame.from_game(game)
    assert state_snapshot(core_game.to_game()) == state_snapshot(game)
    assert core_game.legal_actions() == game.legal_actions()


def test_a_phase_and_turn_out_of_order_play_without_fault() -> None:
    """A position no game reaches (meld phase flags, cards moved between hands and the
    stock) loads when every card is somewhere once, and the core plays it to the hand's
    end as the Python engine does."""
    game = _crafted(seed=5)
    rng = random.Random(2)
    for kind in (0, 3, 7):
        while game.stock.count(kind) and game.hands[2][kind] < 6:
            game.stock.remove(kind)
            game.hands[2][kind] += 1
    game.current = 2
    game.phase = PHASE_MELD
    game.took_pot = True
    game.state_changed()
    core_game = core.CoreGame.from_game(game)
    while not game.hand_over:
        assert core_game.legal_actions() == game.legal_actions()
        action = rng.choice(game.legal_actions())
        game.apply(action)
        core_game.apply(action)
    assert state_snapshot(core_game.to_game()) == state_snapshot(game)


# ---------------------------------------------------------------------- rules
def _rules_cases():
    """(field, values change, text) for each value just outside a finite bound of BOUNDS,
    for the fields the core reads."""
    for bound in BOUNDS:
        if bound.field in ("player_counts", "num_decks_by_players") or bound.allowed:
            continue
        for value in (
            bound.low - 1 if bound.low is not None else None,
            bound.high + 1 if bound.high is not None else None,
        ):
            if value is None:
                continue
            yield pytest.param(
                bound.field, bound.column, value, id=f"{bound.field}-{bound.column}-{value}"
            )


TEMPLATE_ROWS = {
    "opening_table": [0, 50],
    "clean_opening_wild_melds": [0, 0],
    "rank_canasta_bonus": [0, 0, 0],
    "special_wild_canasta": [0, 0, 0],
    "canasta_count_bonus": [0, 0],
    "clean_canasta_count_bonus": [0, 0],
}


@pytest.mark.parametrize("field,column,value", list(_rules_cases()))
def test_core_rules_refuse_every_value_outside_the_bounds(field, column, value) -> None:
    values = core.rules_values(make_rules("classic"), 4)
    if field == "hand_size":
        values["hand_size"] = [value]
    elif column is not None:
        row = list(TEMPLATE_ROWS[field])
        row[COLUMNS[field].index(column)] = value
        values[field] = row
    else:
        values[field] = [value] + values[field][1:]
    with pytest.raises(ValueError, match=f"'{field}'"):
        _core.Rules.from_values(values)


@pytest.mark.parametrize(
    "field,value",
    [
        ("jokers_per_deck", [2**31 - 1]),  # once a segmentation fault
        ("jokers_per_deck", [200]),  # 400 jokers: more of one kind than a byte counts
        ("num_decks", [2**40]),
        ("hand_size", [-(2**62)]),
        ("black3_meld_max_size", [200]),  # ids past the action layout
        ("wild_melds", [2]),
        ("red3_sign", [1, 1, 1]),
        ("opening_table", [0]),
        ("pot_start_cover_kinds", [15]),
    ],
)
def test_core_rules_refuse_what_they_cannot_hold(field, value) -> None:
    """Run in a child process: the old core crashed on some of these."""
    code = (
        "import canasta_env.core as c; from canasta_env import _core;"
        "from canasta_env.rules import make_rules;"
        "v = c.rules_values(make_rules('classic'), 4);"
        f"v[{field!r}] = {value!r};"
        "\ntry:\n    _core.Rules.from_values(v)\nexcept ValueError as e:\n    print('REFUSED', e)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("REFUSED core rules: the field") and f"'{field}'" in done.stdout


def test_a_deal_larger_than_the_deck_is_refused() -> None:
    words = list(random.Random(1).getstate()[1])
    for players in (2, 4):
        values = core.rules_values(make_rules("classic"), players)
        values["hand_size"] = [40]
        rules = _core.Rules.from_values(values)  # 40 is a hand the deck may deal to 2
        if players == 2:
            _core.Game(rules, "classic", 2, words)
            continue
        with pytest.raises(ValueError, match="'hand_size' deals 4 x 40 cards from a deck of 108"):
            _core.Game(rules, "classic", 4, words)


def test_random_steps_stop_where_no_action_is_legal() -> None:
    """A loaded position whose player has no legal action (a meld phase with an empty
    hand) stops the core's random policy instead of spinning on an empty choice (it once
    looped for ever). Run in a child process, with a time bound."""
    code = """
from canasta_env.core import CoreGame
from canasta_env.engine.game import Game
from canasta_env.engine.state import PHASE_MELD
from canasta_env.rules import make_rules
game = Game(make_rules("classic"), 2, seed=4)
seat = game.current
for kind, count in enumerate(game.hands[seat]):
    game.stock += [kind] * count
game.hands[seat] = [0] * 15
game.phase = PHASE_MELD
game.state_changed()
assert game.legal_actions() == [] and not game.hand_over
core_game = CoreGame.from_game(game)
print("STEPS", core_game.random_steps(10, 1), core_game.legal_actions())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "STEPS 0 []"


# ---------------------------------------------------------------------- bots, batches, order
ROOT = Path(__file__).resolve().parent.parent


def _in_child(call: str, timeout: float = 240):
    """``tests.core_fuzz.<call>`` run in a child process (a crash or a hang fails this test,
    not the suite); its result."""
    code = f"from tests import core_fuzz\nprint(repr(core_fuzz.{call}))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stderr[-3000:]}"
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])


def test_the_probes_observation_is_refused_naming_the_entry() -> None:
    """obs[12] = -921 and obs[348] = -703 given to CoreBot("expert"): once SIGSEGV."""
    message = _in_child("the_first_crash()")
    assert message == (
        "not an observation: entry 12 (hand[12]) is -921, which reads -3684: outside 0..255"
    )


def test_the_probes_hangs_end_in_time() -> None:
    """expert and style:taker on italian 4p once hung on mutated observations: 600 each
    (and 60 mutated masks) now end within the child's time bound, each played or refused."""
    counts = _in_child("fuzz_bots([('italian', {}, 4)], ('expert', 'style:taker'), 600)", 120)
    assert counts["acted"] > 0 and counts["refused"] > 0, counts


def test_every_core_bot_answers_mutated_observations() -> None:
    counts = _in_child("fuzz_bots(core_fuzz.FUZZ_TABLES[:3], per_pair=40, seed=1)")
    assert counts["acted"] > 0 and counts["refused"] > 0, counts


def test_bad_calls_and_calls_out_of_order_are_refused() -> None:
    """Among them: Batch.step_learner before deal_table (once SIGSEGV), step after
    deal_table, a game kept past its table's next deal, rules made for another player
    count, reward scales outside 1e-3..1e9, a mask of 2s, a bot reset for a seat the table
    has not."""
    assert _in_child("bad_calls()") > 80


def test_step_learner_before_deal_table_is_refused() -> None:
    """_core.Batch.step_learner before deal_table: once SIGSEGV."""
    message = _in_child("step_learner_before_deal()")
    assert message == "step_learner before deal_table at table 0"


def test_the_core_reward_scale_range_is_the_envs() -> None:
    from canasta_env.options import MAX_REWARD_SCALE, MIN_REWARD_SCALE

    assert _core.REWARD_SCALE_RANGE == (MIN_REWARD_SCALE, MAX_REWARD_SCALE)
