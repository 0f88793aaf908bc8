"""The slowest single decision: the legal-move search on adversarial positions.

    python benchmarks/bench_turn_search.py [--quick] [--seeds N] [--games N]

Three parts, each timing ``legal_actions()`` on both engines (CPU time):

1. built positions: for every preset at every player count, house-rule mixes at the
   extremes of ``rules.BOUNDS`` (eight decks, wild melds without a size limit, 2-card
   minimums, closing melds, hidden canastas, black 3s that must go out...), and every
   plain integer field of ``BOUNDS`` at each of its two ends (the opening minimum's table
   at 0 and 255, hand sizes of one card and of the whole deck, tables of one deck and of
   eight: ``tests/house_rules.py`` ``bound_end_tables``), the positions described below;
2. the saved slow positions of ``tests/positions/`` (the former searches' worst cases);
3. random play (``--games`` games, uniform legal actions) on rules drawn with several
   fields at once at the ends of ``BOUNDS`` (``draw_bound_ends``): the positions no
   construction aims at, where the pot-take and opening proofs were slowest (a pot a
   hand cannot take under a minimum of 255).

It prints the slowest decision of each part and of each engine; the targets (issue 32)
are 1 s on the Python engine and 50 ms on the core. ``--quick``: the presets' built
positions at one seed only.

The built positions, as saved states (so the same position is loaded into both engines):

* ``hand``: the player to act, in the meld phase, holds every card of the stock that
  is not a red 3 (the largest hand the deck allows), its team unopened at the highest
  opening minimum;
* ``pot``: in the draw phase, the pot holds half the stock under a natural top card
  and the hand two of its rank and the rest (every take is searched with the pot's
  cards held aside, C-8);
* ``black3``: as ``hand``, with a meld of black 3s laid this turn and the team opened
  (C-7: the turn must end by going out);

each timed on a freshly loaded game of each engine, one line a table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from canasta_env.cards import BLACK3, JOKER, KIND_NAMES, NUM_NATURALS, TWO, kind_code  # noqa: E402
from canasta_env.core import AVAILABLE, CoreGame  # noqa: E402
from canasta_env.engine.game import Game  # noqa: E402
from canasta_env.rules import PRESETS, make_rules  # noqa: E402
from canasta_env.state_io import (  # noqa: E402
    cards_text,
    state_from_dict,
    state_from_json,
    state_to_dict,
)
from research.slow_decisions import play_table  # noqa: E402
from tests.house_rules import bound_end_tables, draw_bound_ends  # noqa: E402

POSITIONS = Path(__file__).resolve().parent.parent / "tests" / "positions"

#: House-rule mixes at the extremes of BOUNDS, beside the presets.
EXTREMES: list[tuple[str, dict, int]] = [
    ("classic", {"num_decks": 8, "jokers_per_deck": 31, "max_wilds_per_meld": 99}, 2),
    ("classic", {"num_decks": 8, "jokers_per_deck": 31}, 2),
    ("classic", {"num_decks": 8, "jokers_per_deck": 31, "min_meld_size": 2}, 6),
    ("classic", {"wild_melds": True, "wild_meld_max_size": 99, "num_decks": 8}, 2),
    ("classic", {"meld_closes_at": 7, "wild_melds": True, "num_decks": 8}, 4),
    ("canastone", {"hidden_canasta_opens": True, "num_decks": 8}, 4),
    ("canastone", {"take_naturals_frozen": 3, "go_out_needs_clean_and_dirty": True}, 3),
    ("spanish", {"wild_meld_max_size": 3}, 2),
    ("spanish", {"black3_meld_only_going_out": True}, 6),
    ("spanish", {"meld_closes_at": 0, "max_wilds_per_meld": 99, "min_natural_excess": 0}, 6),
    ("spanish", {"min_meld_size": 2, "min_naturals": 1, "go_out_min_canastas": 3}, 6),
    ("italian", {"black3_melds": True}, 2),
    ("italian", {"black3_melds": True, "black3_meld_only_going_out": True}, 4),
]


def _game_at_meld_phase(rules, players: int, seed: int) -> Game:
    """A game at the first meld phase of a player (after a draw)."""
    game = Game(rules, players, seed=seed)
    game.apply(0)
    return game


def build_positions(rules, players: int, seed: int) -> dict[str, dict]:
    """The adversarial positions of one table, as state dicts (see the module's docs)."""
    game = _game_at_meld_phase(rules, players, seed)
    base = state_to_dict(game)
    team = game.team_of[game.current]
    # the highest opening minimum a team meets before the game ends (C-8, S-8, I-9)
    top_score, top_need = [row for row in rules.opening_table if row[0] < rules.target_score][-1]
    top_score = max(top_score, 0)
    stock = list(game.stock)
    red3 = KIND_NAMES.index("R3")
    spare = [card for card in stock if card != red3]
    keep = [card for card in stock if card == red3]
    reserve = max(rules.draw_count, 1) + 2
    kept, spare = spare[:reserve], spare[reserve:]
    positions = {}

    def state_with(hand_counts, stock_cards, **changes) -> dict:
        state = dict(base)
        state["hands"] = list(base["hands"])
        state["hands"][game.current] = cards_text(hand_counts)
        state["stock"] = " ".join(kind_code(card) for card in reversed(stock_cards))
        # a round of hands played before (so the same seat leads), the first of them to
        # the score of the highest opening minimum (C-8, S-8)
        state["scores"] = [top_score] * len(base["scores"])
        state["hand_history"] = [
            {"hand": index, "reason": "stock exhausted", "scores": scores}
            for index, scores in enumerate(
                [state["scores"]] + [[0] * len(base["scores"])] * (players - 1)
            )
        ]
        state["hand_index"] = players
        state["need"] = [top_need] * len(base["need"])
        state.update(changes)
        return state

    hand = list(game.hands[game.current])
    big = hand[:]
    for card in spare:
        big[card] += 1
    positions["hand"] = state_with(big, keep + kept)
    # the wild cards of the stock join a hand that cannot open without them
    wild = hand[:]
    rest = []
    for card in spare:
        if card in (TWO, JOKER):
            wild[card] += 1
        else:
            rest.append(card)
    positions["wilds"] = state_with(wild, keep + kept + rest)
    if rules.black3_melds and big[BLACK3] >= 3:
        # C-7: black 3s melded this turn, the team opened: the turn must end going out
        laid = max(3, rules.min_meld_size)
        closes = rules.meld_closes_at and laid >= rules.meld_closes_at  # S-7: closed at once
        if big[BLACK3] >= laid and laid <= rules.black3_meld_max_size and not closes:
            after = big[:]
            after[BLACK3] -= laid
            melds = [dict(row) for row in base["melds"]]
            melds[team] = {"B3": {"naturals": laid, "twos": 0, "jokers": 0}}
            turn = dict(base["turn"], melded_this_turn=True, opened_at_turn_start=True)
            opened = list(base["opened"])
            opened[team] = True
            positions["black3"] = state_with(
                after, keep + kept, melds=melds, turn=turn, opened=opened
            )
    # the draw phase: half the stock in the pot under a natural the hand holds enough of
    counts = [spare.count(kind) for kind in range(NUM_NATURALS)]
    rank = max(range(NUM_NATURALS), key=lambda kind: counts[kind] + hand[kind])
    needed = max(rules.take_naturals, rules.take_naturals_frozen)
    pot_cards = [card for card in spare if card != rank][: len(spare) // 2]
    in_hand = hand[:]
    for card in spare:
        if card == rank:
            in_hand[card] += 1
    for card in [card for card in spare if card != rank][len(pot_cards) :]:
        in_hand[card] += 1
    if in_hand[rank] > needed:
        in_hand[rank] -= 1  # the pot's top card
        pot = list(game.pot) + pot_cards + [rank]
        face_up = pot[game.pot_hidden :]
        positions["pot"] = state_with(
            in_hand,
            keep + kept,
            phase="draw",
            turn=dict(
                base["turn"],
                staged=0,
                held="",
                took_pot=False,
                clean_only=top_need <= rules.clean_opening_max_minimum,  # I-10
                hidden_open=False,
                melded_this_turn=False,
            ),
            pot=" ".join(kind_code(card) for card in pot),
            pot_known=" ".join(kind_code(card) for card in sorted(face_up)),
            pot_wild=game.pot_wild or any(card in (TWO, JOKER) for card in pot_cards),
        )
    return positions


def time_legal(load, repeats: int = 1) -> tuple[float, int]:
    best = None
    count = 0
    for _ in range(repeats):
        game = load()
        start = time.process_time()
        count = len(game.legal_actions())
        spent = time.process_time() - start
        best = spent if best is None else min(best, spent)
    return best, count


class Slowest:
    """The slowest decision of each engine, with where it was."""

    def __init__(self):
        self.worst = {"python": (0.0, None), "core": (0.0, None)}

    def add(self, engine: str, seconds: float, where: str) -> None:
        if seconds > self.worst[engine][0]:
            self.worst[engine] = (seconds, where)

    def report(self, part: str) -> None:
        for engine, target in (("python", 1000), ("core", 50)):
            seconds, where = self.worst[engine]
            if where is not None:
                print(
                    f"slowest decision, {part}, {engine}: {seconds * 1000:.2f} ms ({where}); "
                    f"target {target} ms"
                )


def time_state(load_text, where: str, slowest: list[Slowest]) -> str:
    """Time one saved position (a loader of fresh Python games) on both engines."""
    py_time, legal = time_legal(load_text)
    line = f"{where}: {legal} legal, python {py_time * 1000:.1f} ms"
    for each in slowest:
        each.add("python", py_time, where)
    if AVAILABLE:
        core_time, _ = time_legal(lambda: CoreGame.from_game(load_text()))
        line += f", core {core_time * 1000:.2f} ms"
        for each in slowest:
            each.add("core", core_time, where)
    return line


def built_positions(tables, seeds: int, overall: Slowest) -> None:
    part = Slowest()
    for name, overrides, players in tables:
        rules = make_rules(name, **overrides)
        for seed in range(seeds):
            for kind, state in build_positions(rules, players, seed).items():
                where = f"{name} {overrides or ''} {players}p seed {seed} {kind}"
                try:
                    state_from_dict(state, require_playable=False)
                except ValueError as error:  # a construction these rules do not allow
                    print(f"{where}: not a legal position ({error})")
                    continue
                load = lambda state=state: state_from_dict(state, require_playable=False)  # noqa: E731
                print(time_state(load, where, [part, overall]), flush=True)
    part.report("built positions")


def saved_positions(overall: Slowest) -> None:
    part = Slowest()
    for path in sorted(POSITIONS.glob("*.json")):
        text = path.read_text()
        if '"format": "canasta-env/state"' not in text:
            continue  # (the masks beside them)
        # the search is timed, not the load's own check (a stuck position is saved on purpose)
        load = lambda text=text: state_from_json(text, require_playable=False)  # noqa: E731
        print(time_state(load, f"tests/positions/{path.name}", [part, overall]), flush=True)
    part.report("saved positions")


def random_play(games: int, steps: int, overall: Slowest) -> None:
    rng = random.Random(44)
    heaps = {"python": [], "core": []}
    decisions = 0
    for _ in range(games):
        table = draw_bound_ends(rng)
        decisions += play_table(table, rng.randrange(10**6), steps, 1, heaps)
    part = Slowest()
    for engine, heap in heaps.items():
        for seconds, _, record in heap:
            where = f"{record['table']} seed {record['seed']} step {record['step']}"
            part.add(engine, seconds, where)
            overall.add(engine, seconds, where)
    print(f"random play at the ends of BOUNDS: {games} games, {decisions} decisions")
    part.report("random play")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="presets at one seed only")
    parser.add_argument("--seeds", type=int, default=3, help="deals per table (default 3)")
    parser.add_argument("--games", type=int, default=24, help="random games (default 24)")
    parser.add_argument("--steps", type=int, default=1000, help="decisions a game at most")
    args = parser.parse_args(argv)
    tables = [(name, {}, n) for name, rules in PRESETS.items() for n in rules.player_counts]
    overall = Slowest()
    if args.quick:
        built_positions(tables, 1, overall)
    else:
        built_positions(tables + EXTREMES + bound_end_tables(), args.seeds, overall)
        saved_positions(overall)
        random_play(args.games, args.steps, overall)
    overall.report("all")


if __name__ == "__main__":
    main()
