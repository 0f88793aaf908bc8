"""Properties of random play for every preset and player count.

At every step of random hands: every card is somewhere and only once (card
conservation over stock, pot, hands, held pot cards, melds, finished canastas
and laid-out red 3s); hand sizes are never negative; the player to act always
has a legal action while the hand is not over; the hand ends within
``4 * deck size + 1`` decisions (the bound of ``canasta_env.engine.game``).
At sampled steps every illegal id raises ``IllegalActionError`` and leaves the
state unchanged. At each hand end the score sheets add up and the running
scores are the sum of the hands' totals; whole games with small targets end.
"""

from __future__ import annotations

import random

import pytest

from canasta_env.actions import NUM_ACTIONS, action_to_str
from canasta_env.cards import BLACK3, JOKER, NUM_KINDS, NUM_NATURALS, RED3, TWO, deck_counts
from canasta_env.engine.game import Game, IllegalActionError
from canasta_env.rules import PRESETS, make_rules
from tests.reference_rules import (
    SLOT_B3,
    SLOT_WILD,
    STYLES,
    choose_action,
    opening_minimum,
    pot_frozen,
    snapshot,
    table_value,
)

#: Random games per (preset, players) in the default run, of up to HANDS_PER_GAME hands
#: (later hands meet the higher opening minimums of C-8, S-8 and I-9).
GAMES_PER_CASE = {"classic": 10, "canastone": 8, "spanish": 5, "italian": 8}
HANDS_PER_GAME = 3
#: Every how many steps all illegal ids are tried.
ILLEGAL_SWEEP_EVERY = 40
SHEET_PARTS = (
    "melded",
    "canasta_bonus",
    "sequences",
    "red3",
    "count_bonus",
    "going_out",
    "hand_penalty",
)

CASES = [
    pytest.param(name, n, id=f"{name}-{n}p")
    for name, rules in PRESETS.items()
    for n in rules.player_counts
]


def table_counts(game: Game) -> list[int]:
    """Cards of each kind outside the stock: pot, hands, held pot cards, melds, red 3s."""
    counts = [0] * NUM_KINDS
    for card in game.pot:
        counts[card] += 1
    for hand in game.hands:
        for kind in range(NUM_KINDS):
            counts[kind] += hand[kind]
    for kind in range(NUM_KINDS):
        counts[kind] += game.held[kind]
    for team in range(game.num_teams):
        melds = [
            (slot, game.nat[team][slot], game.two[team][slot], game.jok[team][slot])
            for slot in range(13)
        ]
        melds += [(slot, n, t, j) for slot, n, t, j, _hidden in game.closed[team]]
        for slot, n, twos, jokers in melds:
            assert slot != SLOT_WILD or n == 0, "naturals in a wild-only meld"
            counts[BLACK3 if slot == SLOT_B3 else slot] += n if slot != SLOT_WILD else 0
            counts[TWO] += twos
            counts[JOKER] += jokers
        counts[RED3] += game.red3[team]
        for _suit, first, length in game.escalas[team]:  # S-19 runs
            for rank in range(first, first + length):
                counts[rank] += 1
    return counts


def check_suits(game: Game, where: str) -> None:
    """S-19: the suited views agree with the kind counts; no suited card is duplicated."""
    assert len(game.suits.stock) == len(game.stock), where
    assert len(game.suits.pot) == len(game.pot), where
    seen = [0] * 44
    for seat, hand in enumerate(game.hands):
        suited = game.suits.hands[seat]
        assert min(suited) >= 0, f"{where}: negative suited count in hand {seat}"
        for rank in range(NUM_NATURALS):
            assert sum(suited[rank * 4 : rank * 4 + 4]) == hand[rank], f"{where}: hand {seat}"
        seen = [a + b for a, b in zip(seen, suited)]
    for rank in range(NUM_NATURALS):
        assert sum(game.suits.held[rank * 4 : rank * 4 + 4]) == game.held[rank], where
    seen = [a + b for a, b in zip(seen, game.suits.held)]
    for kind, suit in zip(game.stock + game.pot, game.suits.stock + game.suits.pot):
        assert (suit >= 0) == (kind < NUM_NATURALS), f"{where}: suit {suit} on kind {kind}"
        if kind < NUM_NATURALS:
            seen[kind * 4 + suit] += 1
    for team in range(game.num_teams):
        if game.escalas[team]:
            assert game.opened[team], f"{where}: team {team} laid a run before opening"
        for suit, first, length in game.escalas[team]:
            for rank in range(first, first + length):
                seen[rank * 4 + suit] += 1
    decks = game.rules.decks_for(game.num_players)
    assert max(seen) <= decks, f"{where}: a suited natural appears more than {decks} times"


def check_state(game: Game, where: str) -> None:
    """Card conservation (C-1, K-1, S-1, I-1, G-6) and the state invariants."""
    rules = game.rules
    full = deck_counts(rules.decks_for(game.num_players), rules.jokers_per_deck)
    counts = table_counts(game)
    for card in game.stock:
        counts[card] += 1
    assert counts == full, f"{where}: cards per kind {counts} != deck {full}"
    for seat, hand in enumerate(game.hands):
        assert min(hand) >= 0, f"{where}: negative count in hand {seat}: {hand}"
        assert hand[RED3] == 0, f"{where}: a red 3 held in hand {seat} (G-6)"
        assert game.hand_totals[seat] == sum(hand), f"{where}: hand_totals[{seat}] is stale"
    assert min(game.held) >= 0
    if rules.sequences:
        check_suits(game, where)
    for team in range(game.num_teams):
        if game.phase != 2:  # C-8, S-8, I-9: by the total at the start of the hand
            assert game.need[team] == opening_minimum(rules, game.scores[team]), where
        for slot in range(13):
            assert min(game.nat[team][slot], game.two[team][slot], game.jok[team][slot]) >= 0
    if game.phase == 2:
        return
    team = game.team_of[game.current]
    # R7: the pot is frozen (crossed) exactly while a wild card lies face up in it
    assert game.pot_wild == pot_frozen(game, True), f"{where}: pot_wild={game.pot_wild}"
    if any(game.held):  # C-8: pot cards wait only while the taking team is still unopened
        assert game.phase == 1 and game.took_pot and not game.opened[team], where
    if game.phase == 1 and not game.opened_at_turn_start:
        nat, two, jok, closed = (game.nat[team], game.two[team], game.jok[team], game.closed[team])
        value = table_value(nat, two, jok, closed)
        hidden = rules.hidden_canasta_opens and any(c[4] for c in closed)
        assert game.opened[team] == (value >= game.need[team] or hidden), (
            f"{where}: opened={game.opened[team]} with {value} of {game.need[team]} laid"
        )


def check_illegal_ids_rejected(game: Game, legal: list[int], where: str, rng) -> None:
    """Every illegal id (and non-ids) raises and changes nothing."""
    before = snapshot(game)
    illegal = sorted(set(range(NUM_ACTIONS)) - set(legal))
    bad = illegal + [-1, NUM_ACTIONS, 10**9, True, 1.0, None, "draw", rng.choice(legal) + 0.5]
    for action in bad:
        with pytest.raises(IllegalActionError):
            game.apply(action)
    assert snapshot(game) == before, f"{where}: an illegal action changed the state"
    assert game.legal_actions() == legal, f"{where}: an illegal action changed the mask"


def check_hand_end(game: Game, where: str) -> None:
    """G-9: each sheet's total is the sum of its parts; scores are sums of hand totals."""
    assert game.hand_scores is not None and len(game.hand_scores) == game.num_teams
    for team, sheet in enumerate(game.hand_scores):
        parts = sum(sheet[name] for name in SHEET_PARTS)
        assert sheet["total"] == parts, f"{where}: team {team} sheet {sheet}"
    assert game.hand_history[-1]["scores"] == [s["total"] for s in game.hand_scores]
    for team in range(game.num_teams):
        total = sum(hand["scores"][team] for hand in game.hand_history)
        assert game.scores[team] == total, f"{where}: running score of team {team}"
    assert game.legal_actions() == []
    for action in (0, 6, NUM_ACTIONS - 1):
        with pytest.raises(IllegalActionError):
            game.apply(action)


def play_checked_hand(game: Game, rng, style: str, label: str) -> int:
    """Play one hand at random, checking every step; returns the number of decisions."""
    rules = game.rules
    deck_size = sum(deck_counts(rules.decks_for(game.num_players), rules.jokers_per_deck))
    bound = 4 * deck_size + 1
    steps = 0
    check_state(game, f"{label} deal")
    while game.phase != 2:
        where = f"{label} step {steps}"
        legal = game.legal_actions()
        assert legal, f"{where}: empty mask for player {game.current} in phase {game.phase}"
        assert legal == sorted(set(legal)) and 0 <= legal[0] and legal[-1] < NUM_ACTIONS
        if steps % ILLEGAL_SWEEP_EVERY == 0:
            check_illegal_ids_rejected(game, legal, where, rng)
        action = choose_action(rng, legal, style)
        game.apply(action)
        steps += 1
        check_state(game, f"{where} after {action_to_str(action)!r}")
        assert steps <= bound, f"{label}: the hand is still going after {bound} decisions"
    check_hand_end(game, f"{label} end")
    return steps


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_random_hands_keep_every_invariant(variant: str, players: int) -> None:
    rules = make_rules(variant)
    for index in range(GAMES_PER_CASE[variant]):
        seed = 7000 + index
        style = STYLES[index % len(STYLES)]
        game = Game(rules, players, seed=seed)
        rng = random.Random(seed)
        for hand in range(HANDS_PER_GAME):
            label = f"{variant} {players}p seed {seed} ({style}) hand {hand}"
            play_checked_hand(game, rng, style, label)
            if game.game_over:
                break
            game.next_hand()


@pytest.mark.parametrize("players", PRESETS["spanish"].player_counts)
def test_S19_random_hands_with_runs_keep_every_invariant(players: int) -> None:
    """S-19 on: the same invariants, plus the suits of hands, stock, pot, held cards and
    runs (``check_suits``); the random policy lays a legal run half of the time."""
    rules = make_rules("spanish", sequences=True)
    runs_laid = 0
    for index in range(6):
        seed = 7100 + index
        style = STYLES[index % len(STYLES)]
        game = Game(rules, players, seed=seed)
        rng = random.Random(seed)
        for hand in range(2):
            label = f"spanish+sequences {players}p seed {seed} hand {hand}"
            play_checked_hand(game, rng, style, label)
            runs_laid += sum(len(runs) for runs in game.escalas)
            if game.game_over:
                break
            game.next_hand()
    assert runs_laid > 0, "no run was laid: the test did not exercise S-19"


#: Whole games: (preset, players, target score); targets that take a few hands.
GAMES = (
    ("classic", 2, 4000),
    ("classic", 4, 3000),
    ("canastone", 3, 4000),
    ("canastone", 6, 4000),
    ("spanish", 2, 8000),
    ("spanish", 6, 10000),
    ("italian", 2, 8000),
    ("italian", 4, 8000),
)
#: Whole games that fail because of a known engine bug (kept strict).
KNOWN_GAME_BUGS: dict[tuple[str, int], str] = {}
GAME_TARGETS = [
    pytest.param(
        name,
        n,
        target,
        id=f"{name}-{n}p-to-{target}",
        marks=[pytest.mark.xfail(strict=True, reason=f"ENGINE BUG: {KNOWN_GAME_BUGS[name, n]}")]
        if (name, n) in KNOWN_GAME_BUGS
        else [],
    )
    for name, n, target in GAMES
]


@pytest.mark.parametrize(("variant", "players", "target"), GAME_TARGETS)
def test_whole_games_end_at_the_target(variant: str, players: int, target: int) -> None:
    """G-7: hands follow each other with ``next_hand()`` until a team reaches the target."""
    rules = make_rules(variant, target_score=target)
    seed = target + players
    game = Game(rules, players, seed=seed)
    rng = random.Random(target)
    for hand in range(60):
        assert game.hand_index == hand
        assert game.first_player == hand % players  # G-7: the first player rotates
        assert game.current == game.first_player
        style = STYLES[hand % len(STYLES)]
        play_checked_hand(game, rng, style, f"{variant} {players}p seed {seed} hand {hand}")
        if game.game_over:
            break
        with pytest.raises(IllegalActionError):
            game.apply(0)
        game.next_hand()
    assert game.game_over, f"no team reached {target} in 60 hands: {game.scores}"
    if game.end_reason != "black-3 canasta":
        assert max(game.scores) >= target
        leaders = [t for t, s in enumerate(game.scores) if s == max(game.scores)]
        assert game.winner_team == (leaders[0] if len(leaders) == 1 else None)
    with pytest.raises(IllegalActionError):
        game.next_hand()


def test_next_hand_refuses_while_the_hand_goes_on() -> None:
    game = Game(make_rules("classic"), 2, seed=3)
    with pytest.raises(IllegalActionError):
        game.next_hand()


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_deal_sizes_and_red3_replacement(variant: str, players: int) -> None:
    """C-2, K-2, S-2, I-2, G-6: dealt hands have the preset's size once red 3s are replaced."""
    rules = make_rules(variant)
    for seed in range(20):
        game = Game(rules, players, seed=seed)
        size = rules.hand_size_for(players)
        check_state(game, f"{variant} {players}p deal seed {seed}")
        for seat in range(players):
            assert game.hand_totals[seat] == size or not game.stock
        assert not any(game.opened)
        naturals_up = [c for c in game.pot[game.pot_hidden :] if c < NUM_NATURALS]
        assert len(game.pot) >= 1 and len(naturals_up) <= 1
