"""Reading a state, second step: the named checks that fields must pass together.

:data:`CHECKS` runs on the values of :func:`~canasta_env.state_io.parse.parse_state`
(each field already well formed on its own), in order: a state that fails one
raises ``ValueError`` naming the field and what it should be, and no game is
built. :data:`GAME_CHECKS` run on the game built from a state that passed them
all, for the facts only the engine can compute (the score sheets).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from canasta_env.actions import SLOT_BLACK3, SLOT_WILD
from canasta_env.cards import (
    KIND_NAMES,
    NUM_HAND_KINDS,
    NUM_KINDS,
    RED3,
    cards_to_counts,
    deck_counts,
    suited_code,
)
from canasta_env.engine.game import Game
from canasta_env.engine.invariants import card_counts, conservation_gaps
from canasta_env.engine.melds import (
    MeldTables,
    black3_canasta,
    canasta_summary,
    meld_tables,
)
from canasta_env.engine.scoring import score_team
from canasta_env.engine.sequences import NUM_SUITS
from canasta_env.engine.state import (
    END_BLACK3,
    END_STOCK,
    END_WENT_OUT,
    PHASE_DRAW,
    PHASE_HAND_OVER,
    PHASE_NAMES,
    team_of_seat,
    teams_of,
)
from canasta_env.engine.suits import Suits
from canasta_env.rules import Rules
from canasta_env.state_io.encode import cards_text
from canasta_env.state_io.layout import PUBLIC_HISTORY_FIELD, SEQUENCE_FIELD, SLOT_NAMES
from canasta_env.state_io.values import fail, show

State = dict[str, Any]


# ---------------------------------------------------------------------- helpers
def _teams(state: State) -> int:
    return teams_of(state["num_players"])


def _team_of(state: State, seat: int) -> int:
    return team_of_seat(state["num_players"], seat)


def _deck(state: State) -> list[int]:
    rules = state["rules"]
    return deck_counts(rules.decks_for(state["num_players"]), rules.jokers_per_deck)


def _hand_over(state: State) -> bool:
    return state["phase"] == PHASE_HAND_OVER


def _columns(state: State, team: int) -> tuple[list[int], list[int], list[int]]:
    """A team's melds as the engine's per-slot naturals, twos and jokers."""
    naturals, twos, jokers = zip(*state["melds"][team], strict=True)
    return list(naturals), list(twos), list(jokers)


def _finished_hands(state: State) -> list[dict]:
    """The hands played to their end before this one."""
    return state["hand_history"][: state["hand_index"]]


def _totals(entries: list[dict], teams: int) -> list[int]:
    return [sum(entry["scores"][team] for entry in entries) for team in range(teams)]


def _composition_problem(
    rules: Rules, tables: MeldTables, slot: int, n: int, twos: int, jokers: int, closed: bool
) -> str | None:
    """Why a meld (or, with ``closed``, a finished canasta) cannot exist under ``rules``."""
    size = n + twos + jokers
    closes = rules.meld_closes_at
    if slot == SLOT_BLACK3:
        if not rules.black3_melds:
            return f"{rules.name} has no black-3 melds"
        if twos or jokers:
            return "a black-3 meld holds no wild cards"
        if not 3 <= n <= rules.black3_meld_max_size:
            return f"a black-3 meld holds 3 to {rules.black3_meld_max_size} cards, not {n}"
        limit = closes
    elif slot == SLOT_WILD:
        if not rules.wild_melds:
            return f"{rules.name} has no wild-card melds"
        if n:
            return "a wild-card meld holds no naturals"
        if not rules.wild_meld_min_start <= size <= rules.wild_meld_max_size:
            return (
                f"a wild-card meld holds {rules.wild_meld_min_start} to "
                f"{rules.wild_meld_max_size} cards, not {size}"
            )
        limit = rules.wild_meld_max_size
    else:
        if not tables.natural_meld_ok(n, twos, jokers):
            return f"{n} naturals, {twos} twos and {jokers} jokers is not a legal {rules.name} meld"
        limit = closes
    if closed:
        if not closes:
            return f"{rules.name} melds never close as finished canastas"
        if size != limit:
            return f"a finished canasta of this slot holds {limit} cards, not {size}"
    elif closes and size >= limit:
        return f"a meld of {size} cards would have closed as a finished canasta"
    return None


# ---------------------------------------------------------------------- cards
def check_no_red3_held(state: State) -> None:
    holders = [(f"hands[{seat}]", hand) for seat, hand in enumerate(state["hands"])]
    holders += [(f"known[{seat}]", known) for seat, known in enumerate(state["known"])]
    for field, counts in holders + [("turn.held", state["held"])]:
        if counts[RED3]:
            fail(field, f"holds {counts[RED3]} red 3(s); red 3s are laid out at once, never held")


def check_first_player(state: State) -> None:
    hand_index, n = state["hand_index"], state["num_players"]
    if state["first_player"] != hand_index % n:
        fail(
            "first_player",
            f"hand {hand_index} is led by seat {hand_index % n}, not {state['first_player']}",
        )


def check_pot_hidden(state: State) -> None:
    hidden, size = state["pot_hidden"], len(state["pot"])
    if hidden > size:
        fail("pot_hidden", f"{hidden} face-down cards, but the pot holds {size} cards")


def check_pot_known(state: State) -> None:
    face_up = cards_to_counts(state["pot"][state["pot_hidden"] :])
    if state["pot_known"] != face_up:
        fail(
            "pot_known",
            f"{cards_text(state['pot_known'])!r} is not the face-up part of the pot "
            f"({cards_text(face_up)!r})",
        )


def check_melds(state: State) -> None:
    rules = state["rules"]
    tables = meld_tables(rules)
    for team, row in enumerate(state["melds"]):
        for slot, meld in enumerate(row):
            if sum(meld):
                problem = _composition_problem(rules, tables, slot, *meld, closed=False)
                if problem:
                    fail(f"melds[{team}].{SLOT_NAMES[slot]}", problem)


def check_closed_canastas(state: State) -> None:
    rules = state["rules"]
    tables = meld_tables(rules)
    for team, row in enumerate(state["closed"]):
        for i, (slot, *meld, hidden) in enumerate(row):
            field = f"closed[{team}][{i}]"
            problem = _composition_problem(rules, tables, slot, *meld, closed=True)
            if problem:
                fail(field, problem)
            if hidden and sum(meld) != rules.canasta_size:
                fail(field, f"a hidden canasta is laid in one go as {rules.canasta_size} cards")


def check_card_conservation(state: State) -> None:
    """Stock + pot + hands + held + melds + canastas + runs + red 3s: the deck, kind by kind."""
    counted = card_counts(
        (state["stock"], state["pot"]),
        [*state["hands"], state["held"]],
        [_columns(state, team) for team in range(_teams(state))],
        state["closed"],
        state["escalas"],
        state["red3"],
    )
    gaps = conservation_gaps(counted, _deck(state))
    if gaps:
        kind, found, expected = gaps[0]
        raise ValueError(
            f"invalid state: card conservation violated for {KIND_NAMES[kind]!r}: "
            f"{found} in stock + pot + hands + held + melds + closed canastas + "
            f"red 3s, but the {state['rules'].name} deck for {state['num_players']} players "
            f"holds {expected}"
        )


def check_public_history(state: State) -> None:
    history = state["public_history"]
    discarded = history["discarded"]
    for kind in range(NUM_HAND_KINDS):
        total = sum(row[kind] for row in discarded)
        for seat, row in enumerate(history["since_discard"]):
            others = total - discarded[seat][kind]
            if row[kind] > others:
                fail(
                    f"{PUBLIC_HISTORY_FIELD}.since_discard[{seat}]",
                    f"{row[kind]} {KIND_NAMES[kind]!r} since the seat's last discard, but the "
                    f"other seats discarded {others}",
                )
    # a discard ends a turn begun by a plain draw (a stock card) or a take (the pot's top
    # card goes to the table for good), so neither count can pass these bounds
    cards = sum(_deck(state))
    draws = sum(sum(row) for row in history["declined"])
    if draws > cards:
        fail(
            f"{PUBLIC_HISTORY_FIELD}.declined",
            f"{draws} draws declining the pot, but the deck holds {cards} cards",
        )
    discards = sum(sum(row) for row in discarded)
    if discards > 2 * cards:
        fail(
            f"{PUBLIC_HISTORY_FIELD}.discarded",
            f"{discards} discards, more than the {2 * cards} turns a hand of {cards} cards "
            "can have",
        )


def check_runs_opened(state: State) -> None:
    """S-19: runs are laid by opened teams only."""
    for team, runs in enumerate(state["escalas"]):
        if runs and not state["opened"][team]:
            fail(f"{SEQUENCE_FIELD}[{team}]", f"team {team} has runs but has not opened")


def check_suits(state: State) -> None:
    """S-19: suits are followed in hands, stock, pot, held cards and runs (melds keep no
    suits), so no natural of one suit may show up more often than the decks hold."""
    suits = state["suits"]
    if suits is None:
        return
    # in file order (the stock's kinds are too): order does not change the counts
    counted = Suits(suits["stock"], suits["hands"], suits["pot"], suits["held"])
    seen = counted.seen(state["stock"], state["pot"], state["escalas"])
    rules, n = state["rules"], state["num_players"]
    decks = rules.decks_for(n)
    for index, count in enumerate(seen):
        if count > decks:
            kind, suit = divmod(index, NUM_SUITS)
            raise ValueError(
                f"invalid state: {count} {suited_code(kind, suit)} in stock + pot + hands + "
                f"held + runs, but the {rules.name} deck for {n} players holds {decks}"
            )


# ---------------------------------------------------------------------- hand end
def check_phase_and_end(state: State) -> None:
    phase_name = PHASE_NAMES[state["phase"]]
    if _hand_over(state):
        if state["end_reason"] is None:
            fail("end_reason", "the phase is 'hand over' but no end_reason is given")
        if state["hand_scores"] is None:
            fail("hand_scores", "the phase is 'hand over' but no hand_scores are given")
        return
    for field in ("end_reason", "hand_scores", "went_out"):
        if state[field] is not None:
            fail(field, f"must be null while the hand is in the {phase_name} phase")
    if state["concealed"]:
        fail("concealed", f"must be false while the hand is in the {phase_name} phase")
    if state["game_over"]:
        fail("game_over", f"the game cannot be over in the {phase_name} phase")


def check_went_out(state: State) -> None:
    went_out = state["went_out"]
    if (went_out is not None) != (state["end_reason"] == END_WENT_OUT):
        fail("went_out", f"a player went out exactly when end_reason is {END_WENT_OUT!r}")
    if state["concealed"] and went_out is None:
        fail("concealed", "only a player who went out can go out concealed")
    if went_out is None:
        return
    if went_out != state["current"]:
        fail("went_out", f"seat {went_out} went out, but seat {state['current']} moved last")
    hand = state["hands"][went_out]
    if sum(hand):
        fail("went_out", f"seat {went_out} went out but holds {cards_text(hand)}")
    if not state["opened"][_team_of(state, went_out)]:
        fail("went_out", f"seat {went_out} went out but the team has not opened")
    # C-15: concealed is going out in the turn the team opens
    if state["concealed"] == state["opened_at_turn_start"]:
        fail(
            "concealed",
            f"must be {str(not state['concealed']).lower()}: a player goes out concealed "
            "exactly when the team had not opened at the start of the turn",
        )


def check_stock_exhausted(state: State) -> None:
    """C-16, S-17, I-11: the stock ends a hand only once it cannot be drawn from."""
    draw_count = state["rules"].draw_count
    if state["end_reason"] == END_STOCK and len(state["stock"]) >= draw_count:
        fail(
            "end_reason",
            f"{END_STOCK!r}, but the stock holds {len(state['stock'])} card(s) and a draw takes "
            f"{draw_count}",
        )


def check_black3_win(state: State) -> None:
    """S-11: a black-3 canasta of the team that moved last ends the game."""
    if state["end_reason"] != END_BLACK3:
        return
    rules = state["rules"]
    if not rules.black3_canasta_wins_game:
        fail("end_reason", f"{END_BLACK3!r}, but in {rules.name} a black-3 canasta wins nothing")
    team = _team_of(state, state["current"])
    if not black3_canasta(rules, _columns(state, team)[0], state["closed"][team]):
        fail(
            "end_reason",
            f"{END_BLACK3!r}, but team {team} (of seat {state['current']}, who moved last) has "
            "no black-3 canasta",
        )


def check_history_length(state: State) -> None:
    expected = state["hand_index"] + _hand_over(state)
    if len(state["hand_history"]) != expected:
        fail(
            "hand_history",
            f"expected {expected} finished hand(s) at hand {state['hand_index']} in the "
            f"{PHASE_NAMES[state['phase']]} phase, got {len(state['hand_history'])}",
        )


def check_scores(state: State) -> None:
    """The game's totals are the sums of its hands (no other start is saved, G-7)."""
    totals = _totals(state["hand_history"], _teams(state))
    if totals != state["scores"]:
        fail("scores", f"{state['scores']} are not the sums of hand_history ({totals})")


def check_no_hand_after_game_end(state: State) -> None:
    """G-7, S-11: no hand is dealt once a hand has ended the game."""
    teams, target = _teams(state), state["rules"].target_score
    dealt = state["hand_index"]
    for i, entry in enumerate(_finished_hands(state)):
        if entry["reason"] == END_BLACK3:
            fail(
                "hand_history",
                f"hand {i} ended with a black-3 canasta, which ends the game, but hand {dealt} "
                "was dealt",
            )
        totals = _totals(state["hand_history"][: i + 1], teams)
        if max(totals) >= target:
            fail(
                "hand_history",
                f"after hand {i} the totals were {totals}, reaching the target score {target}, "
                f"which ends the game, but hand {dealt} was dealt",
            )


def check_last_hand(state: State) -> None:
    if not _hand_over(state):
        return
    last = state["hand_history"][-1]
    totals = [sheet["total"] for sheet in state["hand_scores"]]
    if last["reason"] != state["end_reason"] or last["scores"] != totals:
        fail("hand_history", "the last entry disagrees with end_reason and hand_scores")


def check_game_over(state: State) -> None:
    """G-7, S-11: the game ends with the hand that reaches the target or wins by black 3s."""
    if not _hand_over(state):
        return  # check_phase_and_end: not over before the hand is
    scores, target = state["scores"], state["rules"].target_score
    ends_game = state["end_reason"] == END_BLACK3 or max(scores) >= target
    if state["game_over"] != ends_game:
        why = f"scores {scores} against the target score {target}"
        if state["end_reason"] == END_BLACK3:
            why = "a hand ended by a black-3 canasta"
        fail("game_over", f"must be {str(ends_game).lower()} for {why}")


def check_winner(state: State) -> None:
    """G-7, S-11: the winner of a black-3 canasta, else the one team with the highest
    total, else (a tie at the top) none."""
    winner = state["winner_team"]
    if not state["game_over"]:
        if winner is not None:
            fail("winner_team", "a winner is named but the game is not over")
        return
    scores = state["scores"]
    if state["end_reason"] == END_BLACK3:
        expected = _team_of(state, state["current"])
        why = "the team that laid the black-3 canasta"
    else:
        leaders = [team for team, score in enumerate(scores) if score == max(scores)]
        expected = leaders[0] if len(leaders) == 1 else None
        why = f"the totals {scores}" + (
            " (a tie at the top: no winner)" if expected is None else ""
        )
    if winner != expected:
        shown = "null" if expected is None else expected
        fail("winner_team", f"must be {shown} for {why}, got {winner}")


def check_need(state: State) -> None:
    """C-8, S-8, I-9: the opening minimums follow the totals at the deal."""
    before = _totals(_finished_hands(state), _teams(state))
    want = [state["rules"].opening_minimum(score) for score in before]
    if state["need"] != want:
        fail("need", f"the opening minimums for scores {before} are {want}, not {state['need']}")


# ---------------------------------------------------------------------- turn
def check_fresh_turn(state: State) -> None:
    """In the draw phase, the turn fields are those ``Game._begin_turn`` sets."""
    if state["phase"] != PHASE_DRAW:
        return
    rules = state["rules"]
    team = _team_of(state, state["current"])
    opened, need = state["opened"][team], state["need"][team]
    # kept only where S-15 reads it (Game._begin_turn)
    had_clean = rules.no_go_out_on_first_clean_turn and (
        canasta_summary(rules, *_columns(state, team), state["closed"][team])[1] > 0
    )
    fresh = {
        "staged": state["staged"] == 0,
        "held": not any(state["held"]),
        "took_pot": not state["took_pot"],
        "hidden_open": not state["hidden_open"],
        "melded_this_turn": not state["melded_this_turn"],
        "opened_at_turn_start": state["opened_at_turn_start"] == opened,
        "clean_only": state["clean_only"]
        == (not opened and need <= rules.clean_opening_max_minimum),
        "had_clean_at_turn_start": state["had_clean_at_turn_start"] == had_clean,
    }
    for name, ok in fresh.items():
        if not ok:
            fail(f"turn.{name}", "disagrees with the start of a turn (draw phase)")


def check_held(state: State) -> None:
    if any(state["held"]) and _hand_over(state):
        fail("turn.held", "held cards go back to the hand when the hand ends")
    opened = state["opened"][_team_of(state, state["current"])]
    if any(state["held"]) and not (state["took_pot"] and not opened):
        fail("turn.held", "cards are held back only after an unopened team took the pot")


def check_opening_turn(state: State) -> None:
    """G-5: opening points are staged only in the turn a team opens."""
    team = _team_of(state, state["current"])
    if state["opened_at_turn_start"] and not state["opened"][team]:
        fail("turn.opened_at_turn_start", f"team {team} has not opened")
    if state["opened_at_turn_start"]:
        for name in ("staged", "hidden_open"):
            if state[name]:
                fail(f"turn.{name}", f"team {team} opened before this turn: nothing is staged")


def check_melds_need_opening(state: State) -> None:
    now = _team_of(state, state["current"])
    for team in range(_teams(state)):
        staging = team == now and state["phase"] != PHASE_DRAW
        has_melds = any(sum(meld) for meld in state["melds"][team]) or state["closed"][team]
        if has_melds and not state["opened"][team] and not staging and not _hand_over(state):
            fail(f"melds[{team}]", f"team {team} has melds but has not opened")


def check_known(state: State) -> None:
    """Cards known to be in a hand (taken from the face-up pot) are in it."""
    held, current = state["held"], state["current"]
    for seat, (known, hand) in enumerate(zip(state["known"], state["hands"], strict=True)):
        limit = [hand[k] + (held[k] if seat == current else 0) for k in range(NUM_KINDS)]
        if any(known[k] > limit[k] for k in range(NUM_KINDS)):
            fail(
                f"known[{seat}]",
                f"{cards_text(known)!r} are not all in the hand {cards_text(hand)!r}",
            )


#: Every check on the parsed fields, in the order they run (the first failure is reported).
CHECKS: tuple[tuple[str, Callable[[State], None]], ...] = (
    ("red 3s are laid out at once, never held", check_no_red3_held),
    ("the hand's first player follows the hand number", check_first_player),
    ("the pot's face-down cards fit in the pot", check_pot_hidden),
    ("pot_known is the face-up part of the pot", check_pot_known),
    ("every meld is one the rules allow", check_melds),
    ("every finished canasta is one the rules allow", check_closed_canastas),
    ("card counts add up to the deck", check_card_conservation),
    ("the public history adds up", check_public_history),
    ("runs belong to opened teams", check_runs_opened),
    ("no natural of one suit is seen more often than the decks hold it", check_suits),
    ("the phase agrees with the end of the hand", check_phase_and_end),
    ("a player went out exactly when end_reason says so, as the last mover", check_went_out),
    ("a hand ended by the stock has too few cards left to draw", check_stock_exhausted),
    ("a black-3 win has its black-3 canasta", check_black3_win),
    ("hand_history holds one entry per finished hand", check_history_length),
    ("scores are the sums of hand_history", check_scores),
    ("no hand is dealt after the game ended", check_no_hand_after_game_end),
    ("the last hand_history entry is this hand's end", check_last_hand),
    ("game_over agrees with the scores and target", check_game_over),
    ("winner agrees with the totals", check_winner),
    ("need is the opening minimum for the totals at the deal", check_need),
    ("a draw phase is the start of a turn", check_fresh_turn),
    ("cards are held back only after an unopened team took the pot", check_held),
    ("opening points are staged only in the opening turn", check_opening_turn),
    ("only opened teams have melds (and the team staging its opening)", check_melds_need_opening),
    ("known cards are in their hand", check_known),
)


def check_hand_scores(state: State, game: Game) -> None:
    """G-9: once the hand is over, its score sheets are those of the table as it is."""
    if state["hand_scores"] is None:
        return
    for team, sheet in enumerate(state["hand_scores"]):
        expected = score_team(game, team)
        for key in sorted(set(sheet) | set(expected), key=show):
            if key not in expected:
                fail(f"hand_scores[{team}]", f"unknown score sheet entry {show(key)}")
            if sheet.get(key) != expected[key]:
                fail(
                    f"hand_scores[{team}].{key}",
                    f"{sheet.get(key)} disagrees with the table and hands of team {team}, "
                    f"which give {expected[key]}",
                )


#: Checks that need the engine, run on the game built from a state that passed
#: :data:`CHECKS` (with the parsed values it was built from).
GAME_CHECKS: tuple[tuple[str, Callable[[State, Game], None]], ...] = (
    ("the score sheets are those of the table", check_hand_scores),
)
