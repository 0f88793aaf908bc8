"""Bad input thrown at every public face of the compiled core: each call answers (a legal
action, a result) or refuses with ``ValueError``, ``TypeError`` or ``RuntimeError``
naming what is wrong; never a signal, never a hang.

* :func:`fuzz_bots`: real observations mutated (NaN, infinities, huge, negative and random
  entries, entries not whole, in-range nonsense) and masks mutated, given to every
  ``CoreBot`` name at several tables;
* :func:`bad_calls`: bad arguments and calls out of order on ``_core.Rules``, ``Game``,
  ``Bot``, ``Batch``, ``play_bots``, ``view``, ``seat_rewards`` and ``vector_env``;
* :func:`fuzz_episodes`: random calls of the batch's learner's episodes
  (``configure_episodes``, ``set_generator``, ``generator``, ``new_episodes``,
  ``_core._pcg64_integers``) with good and bad arguments, between plays of its tables;
* :func:`hammer_all`: four threads on one object (a vector env, the Gymnasium vector face
  on both its paths, a batch, a game, a bot shared by two games): each call works or
  raises the one-thread rule's ``RuntimeError``.

Run small by the default suite in a child process (``tests/test_core_bad_input.py``,
``tests/test_core_threads.py``: a crash fails the test, not the suite) and large against
the sanitizer build by ``tests/core_sanitize_run.py`` (``make soak``). Outside probes
found a SIGSEGV for ``obs[12] = -921, obs[348] = -703`` given to ``CoreBot("expert")``,
13 of 20 bot/table pairs crashed and 2 hung on 600 mutated observations each, and one
vector env stepped by 4 threads crashed in 2 of 4 runs.
"""

from __future__ import annotations

import math
import random
import threading

import numpy as np

from canasta_env import core
from canasta_env.actions import NUM_ACTIONS
from canasta_env.observation import OBS_SIZE
from canasta_env.observation.arrays import SCALES
from canasta_env.rules import make_rules

#: Every house bot the core plays, by registry name.
BOT_NAMES = (
    "random",
    "greedy",
    "expert",
    "styled",
    *(
        f"style:{family}"
        for family in (
            "tuned",
            "racer",
            "melder",
            "taker",
            "noisy",
            "builder",
            "controller",
            "naive",
        )
    ),
)
#: The tables the fuzz deals (italian 4p: where expert and style:taker once hung).
FUZZ_TABLES = [
    ("classic", {}, 2),
    ("classic", {}, 4),
    ("italian", {}, 4),
    ("spanish", {"sequences": True}, 4),
    ("canastone", {}, 3),
    ("classic", {}, 6),
]
#: Raw entries that no builder writes where a bot reads a count (or any number at all).
SPECIAL = (math.nan, math.inf, -math.inf, 1e9, -1e9, -1.0, 255.0, 3e38, -921.0, -703.0, 1e-30)
#: What a refusal of a bad value says (the class is checked too).
REFUSALS = ("not an observation", "not a mask", "the mask allows no action")
#: An entry in range, once unscaled: a flag, a byte, the most cards a deck holds.
IN_RANGE = (0, 1, 2, 7, 255, 672)


def positions(table, seed: int, count: int):
    """Up to ``count`` decisions of a core game of ``table`` played at random: (seat,
    observation, mask), the seat's real view."""
    name, overrides, n = table
    rules = make_rules(name, **overrides)
    rng = random.Random(seed)
    game = core.CoreGame(rules, n, seed=seed)
    found = 0
    while found < count:
        if game.hand_over:
            if game.game_over:
                game = core.CoreGame(rules, n, seed=rng.randrange(2**31))
            else:
                game.next_hand()
            continue
        seat = game.current_player
        view = game.view(seat)
        yield seat, view["observation"], view["action_mask"]
        found += 1
        game.apply(rng.choice(game.legal_actions()))


def mutate(observation: np.ndarray, rng: random.Random) -> np.ndarray:
    """``observation`` with 1 to 8 entries changed, one kind of change per call."""
    out = observation.copy()
    kind = rng.randrange(6)
    for i in rng.sample(range(OBS_SIZE), rng.randint(1, 8)):
        if kind == 0:
            out[i] = rng.choice(SPECIAL)
        elif kind == 1:
            out[i] = rng.randint(-1000, 1000)
        elif kind == 2:  # a whole number in range: passes the check, nonsense to a bot
            out[i] = rng.choice(IN_RANGE) * SCALES[i]
        elif kind == 3:
            out[i] = rng.randint(0, 1)
        elif kind == 4:  # not a whole number once unscaled
            out[i] = out[i] + SCALES[i] * rng.choice((0.3, 0.5, -0.4))
        else:
            out[i] = rng.randint(0, 255) * SCALES[i]
    return out


def mutate_mask(mask: np.ndarray, rng: random.Random) -> np.ndarray:
    """A mask not the position's: ids at random, a value past 0/1, or none at all."""
    kind = rng.randrange(4)
    out = np.zeros(NUM_ACTIONS, np.int8)
    if kind == 0:
        out[rng.sample(range(NUM_ACTIONS), rng.randint(1, 40))] = 1
    elif kind == 1:
        out = mask.copy()
        out[rng.randrange(NUM_ACTIONS)] = rng.choice((2, -1, 127))
    elif kind == 2:
        out = mask.copy()
        out[rng.sample(range(NUM_ACTIONS), 5)] = 1
    return out  # kind 3: no legal action


def _act(bot, observation, mask) -> str:
    """``bot.act``: "acted" (an id the mask allows), "refused" (a named refusal), or
    "failed" (RuntimeError: a Python bot's own failure on a mask that is not the
    position's, e.g. no discard left: ``min() arg is an empty sequence``)."""
    try:
        action = bot.act(observation, mask)
    except ValueError as error:
        assert any(word in str(error) for word in REFUSALS), error
        return "refused"
    except RuntimeError as error:
        assert "empty sequence" in str(error), error
        return "failed"
    assert 0 <= action < NUM_ACTIONS and mask[action] == 1, (action, np.flatnonzero(mask))
    return "acted"


def fuzz_bots(tables=FUZZ_TABLES, names=BOT_NAMES, per_pair: int = 600, seed: int = 0) -> dict:
    """``per_pair`` mutated observations (and a tenth as many mutated masks) for every bot
    name at every table; returns the outcomes counted."""
    counts = {"acted": 0, "refused": 0, "failed": 0}
    for t, table in enumerate(tables):
        name, overrides, n = table
        rules = make_rules(name, **overrides)
        views = list(positions(table, seed + t, 40))
        for b, bot_name in enumerate(names):
            rng = random.Random(seed * 1000 + t * 100 + b)
            bot = core.CoreBot(bot_name, seed=b)
            for k in range(per_pair):
                seat, observation, mask = views[k % len(views)]
                if k % len(views) == 0:
                    bot.reset(seat, n, rules)
                counts[_act(bot, mutate(observation, rng), mask)] += 1
                if k % 10 == 0:
                    counts[_act(bot, observation, mutate_mask(mask, rng))] += 1
    return counts


def the_first_crash() -> str:
    """The probe's crash: obs[12] = -921 and obs[348] = -703 (hand[12] and a count of
    players[1].known) on a real observation, to CoreBot("expert"): SIGSEGV, 3 of 3."""
    rules = make_rules("classic")
    for seat, observation, mask in positions(("classic", {}, 4), 1, 4):
        observation = observation.copy()
        observation[12], observation[348] = -921, -703
        bot = core.CoreBot("expert")
        bot.reset(seat, 4, rules)
        try:
            bot.act(observation, mask)
        except ValueError as error:
            message = str(error)
        else:
            raise AssertionError("the mutated observation was accepted")
    return message


def step_learner_before_deal() -> str:
    """The probe's third crash: ``_core.Batch.step_learner`` before ``deal_table``
    (SIGSEGV); the refusal's message."""
    from canasta_env import _core

    batch = _core.Batch(core.core_rules(make_rules("classic"), 2), "classic", 2, 2)
    return _refused(
        lambda: batch.step_learner(np.zeros(2, np.int64), np.ones(2, bool)), RuntimeError
    )


# ---------------------------------------------------------------------- bad calls
def _refused(call, *errors) -> str:
    """``call()`` must raise one of ``errors`` (ValueError, TypeError, RuntimeError by
    default); returns its message."""
    errors = errors or (ValueError, TypeError, RuntimeError)
    try:
        call()
    except errors as error:
        return str(error)
    raise AssertionError(f"accepted: {call}")


def bad_calls() -> int:
    """Bad arguments and calls out of order on every public face of the core, each refused
    with a named error (run against the sanitizer build too). Returns the calls made."""
    from canasta_env import _core
    from canasta_env.vector import vector_env

    made = 0

    def refused(call, *errors, match: str = "") -> None:
        nonlocal made
        message = _refused(call, *errors)
        assert match in message, (match, message)
        made += 1

    rules = make_rules("classic")
    rules2, rules4 = core.core_rules(rules, 2), core.core_rules(rules, 4)
    words = list(random.Random(1).getstate()[1])
    observation = np.zeros(OBS_SIZE, np.float32)
    mask = np.zeros(NUM_ACTIONS, np.int8)

    # rules: a count no table has
    values = core.rules_values(rules, 4)
    for count in (5, 1, 7, -1):
        values["num_players"] = [count]
        refused(lambda: _core.Rules.from_values(values), ValueError, match="'num_players'")
    values["num_players"] = [4]

    # games: a seat count the rules were not made for, a bad generator, bad ids and seats
    refused(lambda: _core.Game(rules4, "classic", 2, words), ValueError, match="resolved for 4")
    refused(lambda: _core.Game(rules4, "classic", 5, words), ValueError)
    refused(lambda: _core.Game(rules4, "classic", 4, words[:10]), ValueError)
    refused(lambda: _core.Game(rules4, "classic", 4, [-1] * 625), ValueError)
    refused(lambda: _core.Game(rules4, "classic", 4, words, [99]), ValueError)
    refused(lambda: _core.random_playout_steps(rules4, "classic", 2, 10, 1), ValueError)
    game = _core.Game(rules4, "classic", 4, words)
    for action in (-1, NUM_ACTIONS, 2**31 - 1):
        refused(lambda action=action: game.apply(action), ValueError)
    refused(lambda: game.apply(2**40), TypeError)
    assert not game.is_legal(-1) and not game.is_legal(NUM_ACTIONS)
    refused(lambda: game.next_hand(), ValueError, match="not over")
    refused(lambda: game.set_state({"stock": [1]}), ValueError)
    for seat in (-1, 4, 2**31 - 1):
        refused(lambda seat=seat: _core.view(game, seat, True), ValueError)
        refused(lambda seat=seat: _core.observation(game, seat, True), ValueError)
    assert game.random_steps(-5, 1) == 0
    assert _core.action_text(-1) == "?" and _core.action_text(10**6) == "?"

    # bots: names, parameters, generators, reset, act
    refused(lambda: _core.Bot("nobody"), ValueError)
    refused(lambda: _core.Bot("style:nobody", None, words, None), ValueError)
    refused(lambda: _core.Bot("greedy", {"small_pot": 1.0}), ValueError)
    refused(lambda: _core.Bot("expert", {"no_such_field": 1.0}), ValueError)
    refused(lambda: _core.Bot("styled"), ValueError)  # no generator
    refused(lambda: _core.Bot("random", None, words[:3], None), ValueError)
    refused(lambda: _core.Bot("random", None, [2**33] * 625, None), ValueError)
    seat, real, legal = next(positions(("classic", {}, 4), 0, 1))
    bot = core.CoreBot("expert")
    refused(lambda: bot.act(real, mask), ValueError, match="no action")
    refused(lambda: bot.act(real, legal), RuntimeError, match="before reset")
    for at, count in ((-1, 4), (4, 4), (0, 5), (0, 2), (0, 0)):
        refused(lambda at=at, count=count: bot._bot.reset(at, count, rules4), ValueError)
    bot.reset(seat, 4, rules)
    mask[0] = 1
    refused(lambda: bot.act(observation, mask), ValueError, match="no player count")
    refused(lambda: bot.act(observation[:-1], mask), ValueError, match="an observation of")
    refused(lambda: bot.act(observation, mask[:-1]), ValueError, match="an observation of")
    refused(lambda: bot._bot.act(observation.reshape(2, -1), mask), TypeError)
    refused(lambda: bot._bot.act(observation, mask.astype(np.float64) * 0.5), TypeError, ValueError)
    two = mask.copy()
    two[3] = 2
    refused(lambda: bot.act(observation, two), ValueError, match="not a mask")
    for wide in (mask.astype(np.int64) * 256, mask.astype(np.float64) * 0.5, mask.astype(str)):
        refused(lambda wide=wide: bot.act(real, wide), ValueError, match="not a mask")
    assert legal[bot.act(real, legal.astype(bool))] == 1  # a bool mask plays

    # batches: arguments
    for tables in (0, -1, _core.MAX_TABLES + 1):
        refused(
            lambda tables=tables: _core.Batch(rules4, "classic", 4, tables),
            ValueError,
            match="num_tables",
        )
    refused(lambda: _core.Batch(rules4, "classic", 4, 2**40), TypeError)
    refused(lambda: _core.Batch(rules4, "classic", 2, 1), ValueError, match="resolved for 4")
    refused(lambda: _core.Batch(rules4, "classic", 5, 1), ValueError)
    for scale in (math.nan, math.inf, -1.0, 0.0, 5e-324, 1e300):
        refused(
            lambda scale=scale: _core.Batch(rules4, "classic", 4, 1, "score", scale),
            ValueError,
            match="reward_scale",
        )
    refused(lambda: _core.Batch(rules4, "classic", 4, 1, "points"), ValueError)
    refused(lambda: _core.Batch(rules4, "classic", 4, 1, "score", 1.0, "match"), ValueError)

    # batches: calls out of order
    batch = _core.Batch(rules2, "classic", 2, 3)
    ids, play = np.zeros(3, np.int64), np.ones(3, bool)
    refused(lambda: batch.step(ids), RuntimeError, match="step before reset")
    refused(lambda: batch.step_learner(ids, play), RuntimeError, match="before deal_table")
    refused(lambda: batch.next_hand(0), RuntimeError, match="before deal_table")
    refused(lambda: batch.game(0), ValueError, match="no game")
    for table in (-1, 3):
        refused(lambda table=table: batch.game(table), ValueError)
        refused(lambda table=table: batch.next_hand(table), ValueError)
        refused(lambda table=table: batch.set_bot(table, 0, None), ValueError)
    expert = core.CoreBot("expert")._bot
    refused(lambda: batch.set_bot(0, 2, expert), ValueError)
    refused(lambda: batch.reset(False, []), ValueError)
    refused(lambda: batch.deal_table(0, False, [1], [expert, expert], [0, 0]), ValueError)
    refused(lambda: batch.deal_table(0, False, [1], [expert], [0]), ValueError)
    refused(lambda: batch.deal_table(0, False, [1], [None, expert], [0, -1]), ValueError)
    refused(lambda: batch.deal_table(5, False, [1], [None, expert], [0, 0]), ValueError)
    batch.deal_table(0, False, [1], [None, expert], [0, 0])
    only_1 = np.array([False, True, False])
    refused(lambda: batch.step_learner(ids, only_1), RuntimeError, match="at table 1")
    refused(lambda: batch.step(ids), RuntimeError)  # after deal_table: the learner's face
    kept = batch.game(0)
    batch.deal_table(0, False, [2], [None, expert], [0, 0])
    assert kept.legal_actions() is not None  # the old game, kept alive: no freed memory
    refused(lambda: batch.step_learner(ids[:2], play[:2]), ValueError)
    refused(lambda: batch.step_learner(np.full(3, -1), np.array([True, False, False])), ValueError)
    batch.reset(False, [0])
    refused(lambda: batch.step_learner(ids, play), RuntimeError, match="after reset")
    refused(lambda: batch.step(np.zeros(3)), ValueError, match="integer ids")
    refused(lambda: batch.step(np.zeros((3, 1), np.int64)), ValueError)
    refused(lambda: batch.step(np.full(3, 2**62)), ValueError)
    for table in (-1, 3):
        refused(lambda table=table: batch.finished(table), ValueError)
    batch.step(np.argmax(batch.mask, axis=1).astype(np.int64))
    assert batch.finished(0) is None or batch.done[0]

    # play_learner: every id checked, then every action, before anything changes
    learner = _core.Batch(rules2, "classic", 2, 2)
    two = np.zeros(2, np.int64)
    refused(lambda: learner.play_learner(two, True), ValueError, match="illegal action")
    assert learner.play_learner(two, False) == [] and not learner.legal.any()  # none dealt
    for k in (0, 1):
        learner.deal_table(k, False, [k + 1], [None, expert], [0, 0])
    for bad, match in (
        (np.full(2, NUM_ACTIONS), "outside 0..499"),
        (np.full(2, -1), "action id -1 is outside"),
        (np.array([0, 2**64 - 1], np.uint64), "table 1: action id 18446744073709551615"),
        (np.zeros(3, np.int64), "integer ids"),
        (np.zeros(2), "integer ids"),
    ):
        refused(lambda bad=bad: learner.play_learner(bad, False), ValueError, match=match)
    wrong = np.array([int(np.flatnonzero(learner.mask[k] == 0)[0]) for k in (0, 1)])
    seen = learner.obs.copy()
    refused(lambda: learner.play_learner(wrong, True), ValueError, match="table 0: illegal")
    assert learner.play_learner(wrong, False) == [] and not learner.legal.any()
    assert np.array_equal(learner.obs, seen)  # not played: nothing changed
    assert learner.final_obs.shape == (2, OBS_SIZE)

    # the batch's booking of a hand (book_hand): before the hand's end, bad modes and scales
    ended = core.CoreGame(rules, 2, seed=3)
    refused(lambda: _core.seat_rewards(ended._game), ValueError, match="no result before")
    ended.random_steps(10_000, 0)
    for bad in ({"reward": "x"}, {"episode": "x"}, {"reward_scale": 0.0}, {"reward_scale": 1e300}):
        refused(lambda bad=bad: _core.seat_rewards(ended._game, **bad), ValueError)
    assert len(_core.seat_rewards(ended._game, "win", 1.0, "game")) == 2

    # play_bots: a stuck position ends, one bot at two seats plays both
    game = core.CoreGame(rules, 2, seed=3)
    greedy = core.CoreBot("greedy")
    for seat in (0, 1):
        greedy.reset(seat, 2, rules)
    assert core.play_bots(game, [greedy, greedy, greedy]) > 0
    refused(lambda: _core.play_bots(game._game, [object()]), TypeError)

    # the learner's episodes: before configuration, without generators, bad twins and states
    episodes = _core.Batch(rules2, "classic", 2, 3)
    refused(lambda: episodes.new_episodes([0], [None]), RuntimeError, match="configure_episodes")
    refused(lambda: episodes.generator(0), ValueError, match="no generator")
    refused(lambda: episodes.configure_episodes([[expert]] * 2, None, True), ValueError)
    refused(lambda: episodes.configure_episodes([[expert, expert]] * 3, None, True), ValueError)
    refused(lambda: episodes.configure_episodes([[expert]] * 3, 2, True), ValueError)
    refused(lambda: episodes.configure_episodes([[object()]] * 3, None, True), TypeError)
    episodes.configure_episodes([[expert]] * 3, None, True)
    refused(lambda: episodes.new_episodes([0], [None]), ValueError, match="no generator")
    for state in ((1, 1, 0), (-1, 1, 0, 0), (1, 2**128, 0, 0), (1, 1, 2, 0), [1, 1, 0, 0]):
        refused(lambda state=state: episodes.set_generator(0, state), ValueError, TypeError)
    refused(lambda: episodes.set_generator(3, (1, 1, 0, 0)), ValueError, match="table 3")
    for k in range(3):
        episodes.set_generator(k, (k, 2 * k + 1, 0, 0))
    for tables, seeds in (([3], [None]), ([0, 0], [None] * 2), ([0], []), ([0], [(False, [])])):
        refused(lambda tables=tables, seeds=seeds: episodes.new_episodes(tables, seeds), ValueError)
    refused(lambda: episodes.new_episodes([2**40], [None]), TypeError)
    for bounds in ([0], [2**31], [-1]):
        refused(lambda bounds=bounds: _core._pcg64_integers((1, 1, 0, 0), bounds), ValueError)
    made += fuzz_episodes(rounds=120)

    # vector_env: out of order
    venv = vector_env(num_envs=2, num_players=2, backend="core")
    refused(lambda: venv.step(np.zeros(2, np.int64)), RuntimeError, match="before step")
    return made


def _random_int(rng: random.Random) -> object:
    """An argument where an int goes: in range, at an edge, past 64 bits, or no int at all."""
    return rng.choice(
        (
            rng.randrange(-3, 8),
            2**31 - 1,
            2**63,
            2**128,
            -(2**70),
            rng.getrandbits(130),
            None,
            1.5,
            "3",
            True,
        )
    )


def _random_state(rng: random.Random) -> object:
    """A PCG64 state tuple, good or bad: a bad value, length or type now and then."""
    state = [rng.getrandbits(128), rng.getrandbits(128), rng.randrange(2), rng.getrandbits(32)]
    if rng.random() < 0.3:
        state[rng.randrange(4)] = _random_int(rng)
    if rng.random() < 0.1:
        state = state[: rng.randrange(6)] + [0] * rng.randrange(3)
    return tuple(state) if rng.random() < 0.95 else state


def _episode_call(batch, players: int, bots: list, rng: random.Random) -> None:
    """One random call of the learner's episodes on ``batch`` (4 tables), or a play."""
    from canasta_env import _core

    choice = rng.randrange(6)
    if choice == 0:
        count = rng.choice((0, 1, 2, 3)) if rng.random() < 0.2 else players // 2
        twins = [[rng.choice(bots) for _ in range(count)] for _ in range(rng.choice((4, 4, 3)))]
        batch.configure_episodes(twins, rng.choice((None, 0, 1, -1, players)), rng.random() < 0.5)
    elif choice == 1:
        batch.set_generator(rng.randrange(-1, 5), _random_state(rng))
    elif choice == 2:
        batch.generator(rng.randrange(-1, 5))
    elif choice == 3:
        tables = [rng.randrange(-1, 5) for _ in range(rng.randrange(4))]
        seeds = [
            rng.choice((None, None, (rng.random() < 0.5, [rng.getrandbits(32)] * 3), (True, [])))
            for _ in tables
        ]
        batch.new_episodes(tables, seeds)
    elif choice == 4:
        bounds = [_random_int(rng) for _ in range(rng.randrange(4))]
        _core._pcg64_integers(_random_state(rng), bounds)
    else:
        batch.play_learner(np.argmax(batch.mask, axis=1), False)


def fuzz_episodes(rounds: int = 400, seed: int = 0) -> int:
    """Random calls of the batch's learner's episodes, with random good and bad arguments,
    between plays of its tables (``play_learner``) on 2- and 4-seat batches: each call works
    or raises ``ValueError``, ``TypeError`` or ``RuntimeError``. Returns the calls made."""
    from canasta_env import _core

    rng = random.Random(seed)
    rules = make_rules("classic")
    bots = [core.CoreBot(name)._bot for name in ("expert", "greedy", "random")]
    made = 0
    for players in (2, 4):
        batch = _core.Batch(core.core_rules(rules, players), "classic", players, 4)
        for _ in range(rounds):
            try:
                _episode_call(batch, players, bots, rng)
            except (ValueError, TypeError, RuntimeError):
                pass
            made += 1
    return made


# ---------------------------------------------------------------------- threads
#: What a call may raise while another thread uses the same object: the rule's refusal,
#: or an action that was legal when read and is no longer (the other thread moved on:
#: IllegalActionError, or the batch's own ValueError "table k: illegal action ...").
RACE_ERRORS = (RuntimeError, ValueError)


def hammer(work, threads: int = 4, rounds: int = 40) -> tuple[int, int]:
    """``work(rng)`` called ``rounds`` times in each of ``threads`` threads started
    together; each call returns or raises what :data:`RACE_ERRORS` allow (a RuntimeError
    must name the one-thread rule). Returns (calls that returned, calls refused by the
    rule); any other outcome fails."""
    barrier = threading.Barrier(threads)
    lock = threading.Lock()
    outcome = {"done": 0, "busy": 0}
    unexpected: list[BaseException] = []

    def run(seed: int) -> None:
        rng = random.Random(seed)
        barrier.wait()
        for _ in range(rounds):
            try:
                work(rng)
                key = "done"
            except RACE_ERRORS as error:
                if isinstance(error, ValueError) and "illegal action" in str(error):
                    key = "done"
                elif "another thread" in str(error) and "one thread at a time" in str(error):
                    key = "busy"
                else:
                    unexpected.append(error)
                    return
            except BaseException as error:  # noqa: BLE001 - reported below
                unexpected.append(error)
                return
            with lock:
                outcome[key] += 1

    workers = [threading.Thread(target=run, args=(seed,)) for seed in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not unexpected, repr(unexpected[:3])
    assert outcome["done"] > 0, outcome
    return outcome["done"], outcome["busy"]


def _legal(masks: np.ndarray, rng: random.Random) -> np.ndarray:
    """A legal id per row (the first of a random order), int64."""
    noise = np.random.default_rng(rng.randrange(2**32)).random(masks.shape)
    return np.argmax((noise + 1.0) * masks, axis=1).astype(np.int64)


def hammer_vector_env(backend: str, rounds: int = 40) -> tuple[int, int]:
    """Four threads stepping (and now and then resetting) one ``vector_env``."""
    from canasta_env.vector import vector_env

    tables = 32 if backend == "core" else 8  # a core step long enough for threads to meet
    venv = vector_env(num_envs=tables, num_players=4, seed=0, backend=backend)
    venv.reset()

    def step(rng: random.Random) -> None:
        if rng.random() < 0.05:
            venv.reset(rng.randrange(100))
            return
        venv.step(_legal(venv.tables.mask, rng))

    return hammer(step, rounds=rounds)


def hammer_face(batched: bool, rounds: int = 40, sb3: bool = False) -> tuple[int, int]:
    """Four threads on one Gymnasium vector face: the batched path (expert opponents in
    the core) or ``Table.play`` (greedy opponents); ``sb3``: through the SB3 face over it."""
    from canasta_env.gym_vector import CanastaVectorEnv

    options = {"num_players": 2, "opponents": "expert" if batched else "greedy"}
    if sb3:
        from canasta_env.sb3_vec import sb3_vec_env

        venv = sb3_vec_env(8, batched=batched, **options)
        venv.reset()

        def step_sb3(rng: random.Random) -> None:
            venv.step_async(_legal(venv.action_masks(), rng))
            venv.step_wait()

        return hammer(step_sb3, rounds=rounds)
    face = CanastaVectorEnv(8, batched=batched, **options)
    face.reset(seed=0)

    def step(rng: random.Random) -> None:
        if rng.random() < 0.05:
            face.reset(seed=rng.randrange(100))
        else:
            face.step(_legal(face.action_masks(), rng))

    return hammer(step, rounds=rounds)


def hammer_batch(rounds: int = 40) -> tuple[int, int]:
    """Four threads on one ``_core.Batch`` driven by the learner's face (deal_table,
    new_episodes, step_learner, play_learner, game and a view of it)."""
    from canasta_env import _core

    rules2 = core.core_rules(make_rules("classic"), 2)
    batch = _core.Batch(rules2, "classic", 2, 4)
    expert = core.CoreBot("expert")._bot
    batch.configure_episodes([[expert]] * 4, None, True)
    for k in range(4):
        batch.deal_table(k, False, [k], [None, expert], [0, k])
        batch.set_generator(k, (k, 2 * k + 1, 0, 0))

    def use(rng: random.Random) -> None:
        choice = rng.randrange(4)
        if choice == 3:
            tables = rng.sample(range(4), rng.randrange(1, 5))
            batch.new_episodes(tables, [None] * len(tables))
        elif choice == 0:
            k = rng.randrange(4)
            batch.deal_table(k, False, [rng.randrange(100)], [None, expert], [0, 1])
        elif choice == 1:
            _core.view(batch.game(rng.randrange(4)), 0, False)
        elif batch.hand_over.any():
            for table in np.flatnonzero(batch.hand_over).tolist():
                batch.deal_table(table, False, [rng.randrange(100)], [None, expert], [0, 1])
        elif rng.random() < 0.5:
            batch.step_learner(_legal(batch.mask, rng), np.ones(4, bool))
        else:
            batch.play_learner(_legal(batch.mask, rng), False)

    return hammer(use, rounds=rounds)


def hammer_game(rounds: int = 40) -> tuple[int, int]:
    """Four threads on one ``CoreGame``: random_steps (the GIL released), apply, view,
    to_game, next_hand."""
    rules = make_rules("classic")
    game = core.CoreGame(rules, 4, seed=5)

    def use(rng: random.Random) -> None:
        choice = rng.randrange(4)
        if game.hand_over and game.game_over:
            game.load(core.CoreGame(rules, 4, seed=1).to_game())
        elif game.hand_over:
            game.next_hand()
        elif choice == 0:
            game.random_steps(rng.randrange(1, 300), rng.randrange(100))
        elif choice == 1:
            game.apply(rng.choice(game.legal_actions()))
        elif choice == 2:
            game.view(game.current_player)
        else:
            game.to_game()

    return hammer(use, rounds=rounds)


def hammer_shared_bot(rounds: int = 5) -> tuple[int, int]:
    """One ``CoreBot`` playing every seat of a game of its own in each of four threads
    (``play_bots`` releases the GIL): the bot is one object, used by one thread at a time."""
    rules = make_rules("classic")
    shared = core.CoreBot("expert")

    def play(rng: random.Random) -> None:
        own = core.CoreGame(rules, 2, seed=rng.randrange(1000))
        shared.reset(0, 2, rules)
        core.play_bots(own, [shared, shared])

    return hammer(play, rounds=rounds)


def hammer_all(rounds: int = 40) -> dict[str, tuple[int, int]]:
    """Four threads on one object of each kind; (returned, refused) per object."""
    results = {
        f"vector_env {backend}": hammer_vector_env(backend, rounds)
        for backend in ("core", "python")
    }
    for batched in (True, False):
        results[f"CanastaVectorEnv batched={batched}"] = hammer_face(batched, rounds)
    results["_core.Batch"] = hammer_batch(rounds)
    results["CoreGame"] = hammer_game(rounds)
    results["CoreBot shared by play_bots"] = hammer_shared_bot(max(2, rounds // 8))
    return results


__all__ = [
    "BOT_NAMES",
    "FUZZ_TABLES",
    "bad_calls",
    "fuzz_bots",
    "hammer",
    "hammer_all",
    "hammer_batch",
    "hammer_face",
    "hammer_game",
    "hammer_shared_bot",
    "hammer_vector_env",
    "mutate",
    "positions",
    "step_learner_before_deal",
    "the_first_crash",
]
