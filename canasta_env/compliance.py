"""``canasta check``: compliance checks over every preset and player count.

For each preset of :data:`canasta_env.rules.PRESETS` and each player count it
supports, these checks run and a pass/fail table is printed:

==============  ==================================================================
check           what passes
==============  ==================================================================
api env         PettingZoo ``api_test`` on ``canasta_env.env()``
api raw         PettingZoo ``api_test`` on ``raw_env``
seed            PettingZoo ``seed_test``: same seed, same episode
render          PettingZoo ``render_test`` (``ansi`` returns text, ``human`` prints)
max_cycles      ``max_cycles=k`` truncates every agent after exactly k decisions,
                with zero rewards; stepping ``None`` then removes every agent
mask+cards      random play of games (episode="game", several hands, later
                opening minimums): the acting agent's mask is never empty and equals
                the engine's ``legal_actions()``, other agents get an all-zero
                mask, and every card of the deck is somewhere exactly once
                (stock + pot + hands + held + melds + closed canastas + red 3s)
hidden info     G-8: permuting what a player cannot see (stock order, the other
                hands apart from their known cards, face-down pot cards) changes
                neither that player's observation nor, when it acts, its mask
==============  ==================================================================

Besides the presets, the table has a row for each optional rule that changes
what the engine tracks: ``spanish+sequences`` (S-19 runs, ``sequences=True``).

``main(argv)`` returns 0 only when every check passes. Options: ``--variants``,
``--players``, ``--quick`` (fewer episodes), ``--cycles``, ``--seed``, ``-v``.
"""

from __future__ import annotations

import contextlib
import io
import random
import time
import traceback
import warnings
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

import numpy as np

from canasta_env.actions import SLOT_WILD, action_to_str
from canasta_env.cards import KIND_NAMES, NUM_KINDS, NUM_NATURALS, RED3
from canasta_env.engine.determinize import determinize
from canasta_env.engine.game import PHASE_HAND_OVER, PHASE_NAMES, Game
from canasta_env.engine.invariants import conservation_gaps, state_card_counts
from canasta_env.engine.sequences import NUM_SUITS
from canasta_env.engine.state import history_entries, table_cards
from canasta_env.observation import ObservationBuilder
from canasta_env.rules import PRESETS, Rules, make_rules

#: Rows of the table: each preset, and presets with an optional rule switched on.
CHECK_VARIANTS: dict[str, tuple[str, dict]] = {name: (name, {}) for name in PRESETS}
CHECK_VARIANTS["spanish+sequences"] = ("spanish", {"sequences": True})


def variant_rules(variant: str) -> Rules:
    """The rules of a row of the table (a preset, or ``preset+option``)."""
    base, overrides = CHECK_VARIANTS[variant]
    return make_rules(base, **overrides)


CHECKS = ("api env", "api raw", "seed", "render", "max_cycles", "mask+cards", "hidden info")

#: Random-play budget per preset and player count, (full, --quick): episodes of
#: ``episode="game"`` for mask+cards (decisions capped by ``_GAME_CYCLES``), and
#: hands played and states sampled per hand for hidden info.
_EPISODES = {"mask+cards": (10, 2), "hidden info": (8, 2)}
_HIDDEN_SAMPLES_PER_HAND = (25, 10)
_HIDDEN_HANDS = (2, 1)
_GAME_CYCLES = 1500


@dataclass
class CheckResult:
    """The outcome of one check for one preset and player count."""

    variant: str
    players: int
    check: str
    passed: bool
    detail: str = ""
    seconds: float = 0.0


# ---------------------------------------------------------------------------- card accounting
def conservation_errors(game: Game) -> list[str]:
    """Everything wrong with the card accounting of ``game`` (empty when it is sound)."""
    errors = []
    gaps = conservation_gaps(state_card_counts(game), game.full_deck_counts())
    for kind, found, full in gaps:
        errors.append(f"{KIND_NAMES[kind]}: {found} on the table, deck has {full}")
    for team in range(game.num_teams):
        if game.table_totals[team] != table_cards(game, team):
            errors.append(
                f"team {team}: table_totals {game.table_totals[team]} but "
                f"{table_cards(game, team)} cards on its table"
            )
    for seat in range(game.num_players):
        if game.history_totals[seat] != history_entries(game, seat):
            errors.append(f"player {seat}: history_totals disagrees with its history")
    for team in range(game.num_teams):
        if game.nat[team][SLOT_WILD]:
            errors.append(f"team {team} has naturals in its wild-only meld")
    for seat, hand in enumerate(game.hands):
        if min(hand) < 0:
            errors.append(f"player {seat} holds a negative count: {hand}")
        if hand[RED3]:
            errors.append(f"player {seat} holds a red 3 (G-6)")
        if sum(hand) != game.hand_totals[seat]:
            errors.append(f"player {seat}: hand_totals {game.hand_totals[seat]} != {sum(hand)}")
        held = game.held if seat == game.current and game.phase != PHASE_HAND_OVER else None
        for kind in range(NUM_KINDS):
            room = hand[kind] + (held[kind] if held else 0)
            if game.known[seat][kind] > room:
                errors.append(
                    f"player {seat}: {game.known[seat][kind]} {KIND_NAMES[kind]} known "
                    f"but only {room} held"
                )
    if game.suits.tracked:
        errors += _suit_errors(game)
    if not 0 <= game.pot_hidden <= len(game.pot):
        errors.append(f"pot_hidden {game.pot_hidden} is outside 0..{len(game.pot)} (the pot size)")
    return errors


def _suit_errors(game: Game) -> list[str]:
    """S-19: suited counts agree with the kinds; no suited natural is there too often."""
    errors = []
    suits = game.suits
    if len(suits.stock) != len(game.stock) or len(suits.pot) != len(game.pot):
        errors.append("stock or pot suits out of step with their cards")
        return errors
    for seat, hand in enumerate(game.hands):
        suited = suits.hands[seat]
        for rank in range(NUM_NATURALS):
            if sum(suited[rank * NUM_SUITS : (rank + 1) * NUM_SUITS]) != hand[rank]:
                errors.append(f"player {seat}: suits of {KIND_NAMES[rank]} disagree with the hand")
    seen = suits.seen(game.stock, game.pot, game.escalas)
    decks = game.rules.decks_for(game.num_players)
    if max(seen) > decks:
        errors.append(f"a suited natural appears {max(seen)} times; the decks hold {decks}")
    return errors


# ---------------------------------------------------------------------------- hidden information
def permute_hidden(game: Game, viewer: int, rng: random.Random) -> Game:
    """A copy of ``game`` that differs only in what ``viewer`` cannot see (G-8).

    The stock, the face-down pot cards and the not-known part of every other
    hand (teammates included) are pooled and dealt again at random, with their
    suits under S-19: hand sizes, stock size and the number of face-down pot cards
    stay; cards known to be in a hand (``game.known``, from pot takes) stay in it;
    red 3s never go to a hand (G-6). Cards set aside after a pot take
    (``game.held``) stay put, and so does the public history of the hand (discards,
    declined pot tops). Card conservation holds in the copy. This is the engine's
    one redeal, :func:`~canasta_env.engine.determinize.determinize`, told to keep
    the set-aside cards where they are rather than refuse.
    """
    return determinize(game, viewer, rng, keep_held=True)


def observation_of(game: Game, viewer: int, to_act: bool | None = None):
    """(observation vector, legal actions or None) of ``viewer`` built from scratch."""
    acting = game.current == viewer and game.phase != PHASE_HAND_OVER
    if to_act is None:
        to_act = acting
    obs = ObservationBuilder(game).build(viewer, to_act)
    legal = list(game.legal_actions()) if acting and to_act else None
    return obs, legal


def hidden_info_differences(game: Game, viewer: int, rng: random.Random, tries: int = 2):
    """Descriptions of observation changes under hidden permutations (empty: none found)."""
    problems = []
    base_obs, base_legal = observation_of(game, viewer)
    for _ in range(tries):
        other = permute_hidden(game, viewer, rng)
        errors = conservation_errors(other)
        if errors:
            problems.append(f"permutation broke card conservation: {errors[:3]}")
            break
        obs, legal = observation_of(other, viewer)
        if not np.array_equal(obs, base_obs):
            index = np.flatnonzero(obs != base_obs)
            problems.append(f"observation of player {viewer} changed at indices {index[:8]}")
        if legal != base_legal:
            diff = sorted(set(legal or []) ^ set(base_legal or []))
            problems.append(f"legal actions of player {viewer} changed: {diff[:8]}")
        if problems:
            break
    return problems


# ---------------------------------------------------------------------------- single checks
def _make_env(variant: str, players: int, raw: bool = False, **kwargs):
    from canasta_env.env import env, raw_env

    base, overrides = CHECK_VARIANTS[variant]
    return (raw_env if raw else env)(variant=base, num_players=players, **overrides, **kwargs)


def _random_action(rng: random.Random, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask).tolist()))


def check_api(variant: str, players: int, raw: bool, cycles: int) -> str:
    from pettingzoo.test import api_test

    api_test(_make_env(variant, players, raw=raw), num_cycles=cycles)
    return ""


def check_seed(variant: str, players: int, cycles: int) -> str:
    from pettingzoo.test import seed_test

    seed_test(lambda: _make_env(variant, players), num_cycles=cycles)
    return ""


def check_render(variant: str, players: int) -> str:
    from pettingzoo.test import render_test

    def is_table(text) -> bool:
        return isinstance(text, str) and "pot" in text and "player 0" in text

    def make(render_mode=None):
        return _make_env(variant, players, render_mode=render_mode)

    render_test(make, custom_tests={"ansi": is_table})
    return ""


def check_max_cycles(variant: str, players: int, seed: int) -> str:
    for limit in (1, players + 1, 17):
        env = _make_env(variant, players, max_cycles=limit)
        env.reset(seed=seed)
        rng = random.Random(seed)
        decisions = 0
        while decisions < limit:
            obs, reward, terminated, truncated, _ = env.last()
            assert not truncated and not terminated, f"ended after {decisions} < {limit} decisions"
            env.step(_random_action(rng, obs["action_mask"]))
            decisions += 1
            assert env.unwrapped.game.phase != PHASE_HAND_OVER, "hand ended; use another seed"
        assert all(env.truncations.values()), f"not truncated after {limit} decisions"
        assert len(env.truncations) == players
        assert not any(env.terminations.values()), "truncation also terminated"
        assert all(r == 0 for r in env.rewards.values()), f"rewards {env.rewards}"
        removed = 0
        for agent in env.agent_iter(4 * players):
            obs, reward, terminated, truncated, _ = env.last()
            assert truncated and reward == 0, f"{agent}: truncated={truncated} reward={reward}"
            assert not obs["action_mask"].any(), f"{agent} has a mask after truncation"
            env.step(None)
            removed += 1
        assert not env.agents and removed == players, f"agents left: {env.agents}"
    return ""


def check_mask_and_cards(variant: str, players: int, episodes: int, seed: int) -> str:
    """Random play of whole games (``episode="game"``, several hands, capped in length)."""
    rng = random.Random(seed)
    decisions = hands = 0
    for episode in range(episodes):
        env = _make_env(variant, players, episode="game", max_cycles=_GAME_CYCLES)
        env.reset(seed=seed + episode)
        raw = env.unwrapped
        recent: deque[str] = deque(maxlen=6)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            game = raw.game
            errors = conservation_errors(game)
            assert not errors, f"episode {episode} step {decisions}: {errors[:3]}"
            mask = obs["action_mask"]
            assert mask.dtype == np.int8, f"mask dtype {mask.dtype}"
            assert mask.any(), (
                f"empty mask for {agent}: reset(seed={seed + episode}), hand {game.hand_index}, "
                f"{PHASE_NAMES[game.phase]} phase, took_pot={game.took_pot}, "
                f"opened={game.opened}, need={game.need}; last actions {list(recent)}"
            )
            legal = np.flatnonzero(mask).tolist()
            assert legal == sorted(game.legal_actions()), f"step {decisions}: mask != legal"
            assert raw.agent_name_mapping[agent] == game.current, "agent_selection != current"
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any(), f"{other} has a mask"
            action = int(rng.choice(legal))
            recent.append(f"{agent}: {action_to_str(action)}")
            env.step(action)
            decisions += 1
        errors = conservation_errors(raw.game)
        assert not errors, f"episode end: {errors[:3]}"
        hands += raw.game.hand_index + 1
    return f"{decisions} decisions, {hands} hands"


def check_hidden_info(
    variant: str, players: int, episodes: int, hands: int, samples: int, seed: int
) -> str:
    rng = random.Random(seed)
    rules = variant_rules(variant)
    states = 0
    for episode in range(episodes):
        for game in sample_states(rules, players, seed + episode, samples, rng, hands=hands):
            for viewer in range(players):
                problems = hidden_info_differences(game, viewer, rng)
                assert not problems, f"state {states}: {problems[0]}"
            states += 1
    return f"{states} states"


def sample_states(
    rules: Rules,
    players: int,
    seed: int,
    samples: int,
    rng: random.Random,
    hands: int = 1,
) -> Iterable[Game]:
    """Yield about ``samples`` states per hand of a game played with random legal actions.

    Up to ``hands`` hands of one game are played (later hands have other
    opening minimums and first players); each yielded state is an independent copy.
    """
    game = Game(rules, players, seed=seed)
    for hand in range(hands):
        if hand:
            if game.game_over:
                return
            game.next_hand()
        trace = []
        while game.phase != PHASE_HAND_OVER:
            trace.append(game.copy())
            legal = game.legal_actions()
            assert legal, f"no legal action for player {game.current} (hand {game.hand_index})"
            game.apply(rng.choice(legal))
        trace.append(game.copy())
        picks = sorted(rng.sample(range(len(trace)), min(samples, len(trace))))
        for index in picks:
            yield trace[index]


# ---------------------------------------------------------------------------- driver
def _run_one(name: str, func: Callable[[], str], variant: str, players: int, verbose: bool):
    start = time.perf_counter()
    sink = io.StringIO()
    try:
        with (
            warnings.catch_warnings(),
            contextlib.redirect_stdout(sink),
            contextlib.redirect_stderr(sink),
        ):
            warnings.simplefilter("ignore")
            detail = func() or ""
        passed = True
    except Exception as error:  # noqa: BLE001 - every failure is reported, not raised
        passed = False
        detail = f"{type(error).__name__}: {error}".strip()
        if verbose:
            detail += "\n" + traceback.format_exc()
    return CheckResult(variant, players, name, passed, detail, time.perf_counter() - start)


def run_checks(
    variants: Iterable[str] | None = None,
    player_counts: Iterable[int] | None = None,
    cycles: int = 1000,
    quick: bool = False,
    seed: int = 0,
    verbose: bool = False,
    progress: Callable[[CheckResult], None] | None = None,
) -> list[CheckResult]:
    """Run every check for every preset and supported player count; return the results.

    ``variants`` and ``player_counts`` restrict the table (a player count a
    preset does not support is skipped for that preset). ``cycles`` is the
    ``num_cycles`` of PettingZoo's api and seed tests.
    """
    names = list(CHECK_VARIANTS) if variants is None else list(variants)
    unknown = [name for name in names if name not in CHECK_VARIANTS]
    if unknown:
        raise ValueError(f"unknown variant(s) {unknown}; choose from {sorted(CHECK_VARIANTS)}")
    wanted = None if player_counts is None else set(player_counts)
    level = 1 if quick else 0
    episodes = _EPISODES["mask+cards"][level]
    hidden_episodes = _EPISODES["hidden info"][level]
    samples = _HIDDEN_SAMPLES_PER_HAND[level]
    hidden_hands = _HIDDEN_HANDS[level]
    results = []
    for variant in names:
        for players in variant_rules(variant).player_counts:
            if wanted is not None and players not in wanted:
                continue
            v, p = variant, players
            plan = {
                "api env": partial(check_api, v, p, False, cycles),
                "api raw": partial(check_api, v, p, True, cycles),
                "seed": partial(check_seed, v, p, cycles),
                "render": partial(check_render, v, p),
                "max_cycles": partial(check_max_cycles, v, p, seed),
                "mask+cards": partial(check_mask_and_cards, v, p, episodes, seed),
                "hidden info": partial(
                    check_hidden_info, v, p, hidden_episodes, hidden_hands, samples, seed
                ),
            }
            for name in CHECKS:
                result = _run_one(name, plan[name], variant, players, verbose)
                results.append(result)
                if progress is not None:
                    progress(result)
    return results


def format_table(results: list[CheckResult]) -> str:
    """The pass/fail table: one row per preset and player count, one column per check."""
    rows: dict[tuple[str, int], dict[str, CheckResult]] = {}
    for result in results:
        rows.setdefault((result.variant, result.players), {})[result.check] = result
    header = ["variant", "players", *CHECKS, "seconds"]
    lines = []
    longest = max((len(variant) for variant, _ in rows), default=0)
    widths = (
        [max(len(header[0]), 9, longest), len(header[1])] + [max(len(c), 4) for c in CHECKS] + [7]
    )
    lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    lines.append("  ".join("-" * w for w in widths))
    for (variant, players), row in rows.items():
        cells = [variant, str(players)]
        for name in CHECKS:
            result = row.get(name)
            cells.append("-" if result is None else ("pass" if result.passed else "FAIL"))
        cells.append(f"{sum(r.seconds for r in row.values()):.1f}")
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths)))
    return "\n".join(lines)
