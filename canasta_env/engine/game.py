"""The game: state, legal actions, applying an action, hand and game end.

One :class:`Game` holds a whole game (a sequence of hands). All randomness
goes through one seeded ``random.Random``; the same seed and actions give the
same game. ``legal_actions()`` is exact: every id it returns can be applied,
every other id raises :class:`IllegalActionError` and changes nothing.

Turn structure (C-4, S-4, I-4): a ``DRAW`` phase (draw, take the pot, or pass
when the stock is exhausted), then a ``MELD`` phase (meld moves, then one
discard that ends the turn). The hand ends when a player goes out, when play
cannot go on with the stock exhausted (C-16, S-17, I-11) or when a black-3
canasta wins the game (S-11).

Bound: every action but draw/take/pass/discard moves a card from a hand to
the table, every draw takes a card from the stock, every take moves the top
card to the table, and every discard ends a turn that began with a draw or a
take, so a hand takes at most ``4 * deck size + 1`` decisions.
"""

from __future__ import annotations

import operator
import random
from itertools import compress

from canasta_env.actions import (
    ACTION_TEXTS,
    DISCARD,
    DRAW,
    MOVE_DISCARD,
    MOVE_DRAW,
    MOVE_KINDS,
    MOVE_MELD,
    MOVE_PASS,
    MOVE_TAKE,
    MOVES,
    NEW_BLACK3,
    NUM_ACTIONS,
    NUM_SLOTS,
    PASS,
    SLOT_BLACK3,
    TAKE,
    TAKE_ONTO_MELD,
    TAKE_WITH_JOKER,
    TAKE_WITH_TWO,
)
from canasta_env.cards import (
    JOKER,
    NUM_HAND_KINDS,
    NUM_KINDS,
    NUM_NATURALS,
    RED3,
    TWO,
    deck_counts,
    kind_from_name,
    parse_cards,
    parse_suited,
)
from canasta_env.engine.explain import explain
from canasta_env.engine.melds import (
    black3_canasta,
    canasta_summary,
    going_out_only,
    meld_moves,
    meld_points,
    meld_tables,
    natural_kind,
)
from canasta_env.engine.opening import TurnSearch
from canasta_env.engine.outcome import Result, result_of
from canasta_env.engine.pot import frozen_until_opened, naturals_to_take, pot_frozen
from canasta_env.engine.scoring import score_team
from canasta_env.engine.sequences import assign_suits, run_of_action
from canasta_env.engine.state import (
    END_BLACK3,
    END_STOCK,
    END_WENT_OUT,
    PHASE_DRAW,
    PHASE_HAND_OVER,
    PHASE_MELD,
    PHASE_NAMES,
    GameState,
    copy_state,
    history_entries,
    table_cards,
    team_of_seat,
    teams_of,
)
from canasta_env.engine.suits import NO_SUITS, Suits
from canasta_env.engine.transitions import lay, take_top
from canasta_env.rules import Rules, check_player_count

#: The discard ids, by the kind discarded (a hand's counts select them).
DISCARD_IDS = tuple(range(DISCARD, DISCARD + NUM_HAND_KINDS))


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state; the state is unchanged."""


class Game(GameState):
    """A game of Canasta under one rules object, hand after hand.

    The state is declared in :class:`~canasta_env.engine.state.GameState`; beside it a
    game keeps caches only: its rules' meld tables, the turn search and the legal
    actions of the position (dropped whenever the state moves on).
    """

    def __init__(
        self,
        rules: Rules,
        num_players: int,
        seed: int | None = None,
        deck: list[int] | str | list[str] | None = None,
    ):
        check_player_count(rules, num_players)
        self.rules = rules
        self.num_players = int(num_players)  # (a numpy integer would not save as JSON)
        self.num_teams = teams_of(num_players)
        self.team_of = [team_of_seat(num_players, s) for s in range(num_players)]
        self._caches()
        self.seed = seed
        self.rng = random.Random(seed)
        self.scores = [0] * self.num_teams
        self.hand_index = 0
        self.game_over = False
        self.winner_team: int | None = None
        self.hand_history: list[dict] = []
        self.start_hand(deck)

    def _caches(self) -> None:
        """The caches beside the state: meld tables, the turn search, the legal actions."""
        self.tables = meld_tables(self.rules)
        self.search = TurnSearch(self)
        self._legal: list[int] | None = None
        self._legal_moves: dict[int, tuple] = {}

    def state_changed(self) -> None:
        """For code that edits the state directly (tests, determinizations) rather than
        through :meth:`apply`: count the totals the engine keeps as it plays afresh
        (cards per hand and per table, history entries) and drop the cached legal
        actions."""
        self.hand_totals = [sum(hand) for hand in self.hands]
        self.table_totals = [table_cards(self, team) for team in range(self.num_teams)]
        self.history_totals = [history_entries(self, seat) for seat in range(self.num_players)]
        self._legal = None
        self._legal_moves = {}

    # ------------------------------------------------------------------ setup
    def full_deck_counts(self) -> list[int]:
        rules = self.rules
        return deck_counts(rules.decks_for(self.num_players), rules.jokers_per_deck)

    def _build_stock(self, deck) -> list[int]:
        self.suits = NO_SUITS
        if self.rules.sequences:
            return self._build_suited_stock(deck)
        counts = self.full_deck_counts()
        prefix: list[int] = []
        if deck is not None:
            prefix = _deck_kinds(deck)
            for kind in prefix:
                counts[kind] -= 1
            for kind, left in enumerate(counts):
                if left < 0:
                    raise ValueError(
                        f"stacked deck has {-left} more {kind_name(kind)} than the "
                        f"{self.rules.name} deck holds"
                    )
        rest = [kind for kind, n in enumerate(counts) for _ in range(n)]
        self.rng.shuffle(rest)
        order = prefix + rest
        order.reverse()  # the stock pops from its end
        return order

    def _build_suited_stock(self, deck) -> list[int]:
        """S-19: the same as :meth:`_build_stock`, following every card's suit too."""
        rules = self.rules
        prefix = [] if deck is None else _deck_suited(deck)
        rest = assign_suits(prefix, rules.decks_for(self.num_players), rules.jokers_per_deck)
        self.rng.shuffle(rest)
        order = prefix + rest
        order.reverse()  # the stock pops from its end
        self.suits = Suits.dealt(order, self.num_players)
        return [kind for kind, _ in order]

    def start_hand(self, deck=None) -> None:
        """Deal a new hand (G-7). ``deck`` stacks the first cards in draw order.

        Deal order: the hand's first player gets the first ``hand size`` cards,
        the next seat the next block, and so on; then red 3s are laid out and
        replaced seat by seat (G-6); then the pot is started (C-3, S-3, I-3).
        """
        rules = self.rules
        n = self.num_players
        self.stock = self._build_stock(deck)
        size = rules.hand_size_for(n)
        first = self.hand_index % n
        self.first_player = first
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.hand_totals = [0] * n
        self.known = [[0] * NUM_KINDS for _ in range(n)]
        stock = self.stock
        suits = self.suits
        for offset in range(n):
            seat = (first + offset) % n
            hand = self.hands[seat]
            for _ in range(size):
                card = stock.pop()
                hand[card] += 1
                suits.draw(seat, card)
            self.hand_totals[seat] = size
        teams = self.num_teams
        self.escalas: list[list[tuple[int, int, int]]] = [[] for _ in range(teams)]
        self.red3 = [0] * teams
        self.table_totals = [0] * teams
        self.opened = [False] * teams
        self.need = [rules.opening_minimum(score) for score in self.scores]
        self.nat = [[0] * NUM_SLOTS for _ in range(teams)]
        self.two = [[0] * NUM_SLOTS for _ in range(teams)]
        self.jok = [[0] * NUM_SLOTS for _ in range(teams)]
        self.closed: list[list[tuple]] = [[] for _ in range(teams)]
        self.went_out: int | None = None
        self.concealed = False
        self.end_reason: str | None = None
        self.hand_scores: list[dict] | None = None
        self.phase = PHASE_DRAW
        self.num_steps = 0
        self._reset_history()
        for offset in range(n):  # G-6: red 3s of the deal
            seat = (first + offset) % n
            hand = self.hands[seat]
            while hand[RED3]:
                hand[RED3] -= 1
                self.hand_totals[seat] -= 1
                self._lay_red3(self.team_of[seat])
                if stock:
                    card = stock.pop()
                    hand[card] += 1
                    self.hand_totals[seat] += 1
                    suits.draw(seat, card)
        self._start_pot()
        self._begin_turn(first)

    def _reset_history(self) -> None:
        """The public history of the hand (G-8: every player sees discards and draws).

        Per seat and holdable kind: ``discarded``, cards it discarded onto the pot;
        ``declined``, plain draws it made while the pot's top card was of that kind;
        ``since_discard``, cards the other seats discarded since its own last discard.
        """
        n = self.num_players
        self.discarded = [[0] * NUM_HAND_KINDS for _ in range(n)]
        self.declined = [[0] * NUM_HAND_KINDS for _ in range(n)]
        self.since_discard = [[0] * NUM_HAND_KINDS for _ in range(n)]
        self.history_totals = [0] * n

    def _start_pot(self) -> None:
        """C-3, S-3, I-3: the pot at the start of the hand."""
        rules = self.rules
        stock = self.stock
        self.pot: list[int] = []
        self.pot_known = [0] * NUM_KINDS
        self.pot_hidden = 0
        self.pot_wild = False
        self.pot_start_frozen = False
        cover = {kind_from_name(k) for k in rules.pot_start_cover_kinds}
        freeze = {kind_from_name(k) for k in rules.pot_start_freeze_kinds}
        hidden_cards: list[int] = []
        suits = self.suits
        for _ in range(rules.pot_face_down):
            if stock:
                hidden_cards.append(stock.pop())
                suits.stock_to_pot(len(hidden_cards) - 1)
        turned: list[int] = []
        while stock:
            card = stock.pop()
            turned.append(card)
            suits.stock_to_pot(len(hidden_cards) + len(turned) - 1)
            if card in freeze:
                self.pot_wild = True
                self.pot_start_frozen = True
            if card not in cover:
                break
        if rules.pot_start_count_under_natural and turned and turned[-1] < NUM_NATURALS:
            for _ in range(turned[-1] + 4):  # I-3: 4..10 by number, J 11, Q 12, K 13, A 14
                if stock:
                    hidden_cards.append(stock.pop())
                    suits.stock_to_pot(len(hidden_cards) - 1)  # under the turned cards
        self.pot = hidden_cards + turned
        self.pot_hidden = len(hidden_cards)
        for card in turned:
            self.pot_known[card] += 1

    # ------------------------------------------------------------------ queries
    @property
    def current_player(self) -> int:
        return self.current

    @property
    def hand_over(self) -> bool:
        return self.phase == PHASE_HAND_OVER

    def team_melds(self, team: int):
        return self.nat[team], self.two[team], self.jok[team], self.closed[team]

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the player to act (empty once the hand is over)."""
        if self._legal is None:
            self._legal = self._compute_legal()  # a meld phase fills _legal_moves too
        return self._legal

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is a legal id now; what ``apply`` refuses as no id (a float, a
        bool, an array: :func:`action_id`) is not legal."""
        try:
            index = action_id(action)
        except IllegalActionError:
            return False
        return index in self.legal_actions()

    def held_total(self) -> int:
        return sum(self.held)

    def hidden_counts(self) -> list[list[int]]:
        """The cards by kind that the observation hides from someone, new lists of
        ``NUM_KINDS`` counts: each seat's hand (rows ``0..num_players - 1``), the stock
        (row ``num_players``) and the face-down pot cards (row ``num_players + 1``). For a
        reader that may see everything (a training critic), never a player."""
        stock, face_down = [0] * NUM_KINDS, [0] * NUM_KINDS
        for card in self.stock:
            stock[card] += 1
        for card in self.pot_hidden_cards:
            face_down[card] += 1
        return [list(hand) for hand in self.hands] + [stock, face_down]

    def can_go_out(self, team: int) -> bool:
        """Going-out conditions on the team's current melds (C-14, S-15, I-11)."""
        nat, two, jok, closed = self.team_melds(team)
        return self.search.go_out_allowed(nat, two, jok, closed, self.opening_done(team))

    def pot_frozen_for(self, team: int) -> bool:
        """C-9, S-6, I-8: is the pot frozen (or crossed) for ``team`` now: a wild card
        lies in it, or (C-9) the team has not opened?"""
        return pot_frozen(self.rules, self.pot_wild, self.opened[team])

    def pot_frozen_until_opened(self, team: int) -> bool:
        """C-9: is the pot frozen against ``team`` because it has not opened?"""
        return frozen_until_opened(self.rules, self.opened[team])

    def cards_used(self, action: int) -> list[int]:
        """The kinds of the hand cards ``action`` plays now, one entry per card.

        The move table says it for every id but a take, whose naturals are of the pot
        top's rank and, for a plain take, two or three by the pot's state (C-10, C-11,
        I-7, I-8); a take that is not available now uses nothing.
        """
        if MOVE_KINDS[action] != MOVE_TAKE:
            return list(MOVES[action].uses)
        for option, naturals, twos, jokers in self._take_options():
            if option == action:
                return [self.pot[-1]] * naturals + [TWO] * twos + [JOKER] * jokers
        return []

    def opening_done(self, team: int) -> bool:
        """Has the team opened, or may it still go out concealed this turn (C-15)?"""
        return self.opened[team] or (
            self.rules.concealed_go_out_ignores_minimum and not self.took_pot
        )

    # ------------------------------------------------------------------ legality
    def _compute_legal(self) -> list[int]:
        if self.phase == PHASE_HAND_OVER:
            return []
        if self.phase == PHASE_DRAW:
            return self._draw_phase_actions()
        return self._meld_phase_actions()

    def _draw_phase_actions(self) -> list[int]:
        rules = self.rules
        actions = []
        stock_ok = len(self.stock) >= rules.draw_count
        if stock_ok:
            actions.append(DRAW)
        takes = self._take_actions()
        actions += takes
        if not stock_ok and takes:
            forced = rules.must_take_matching_pot and TAKE_ONTO_MELD in takes
            if not forced:
                actions.append(PASS)
        return actions

    def _take_options(self) -> list[tuple[int, int, int, int]]:
        """Rule-legal ways to take the pot: (action, naturals, twos, jokers) from the hand."""
        pot = self.pot
        if not pot:
            return []
        top = pot[-1]
        if top >= NUM_NATURALS:  # C-12, S-6, I-7: wild, black 3 or red 3 on top
            return []
        rules = self.rules
        team = self.team_of[self.current]
        hand = self.hands[self.current]
        frozen = pot_frozen(rules, self.pot_wild, self.opened[team])
        have = hand[top]
        options = []
        needed = naturals_to_take(rules, frozen)
        if have >= needed:
            options.append((TAKE, needed, 0, 0))
        if not frozen:
            if rules.take_with_wild and have >= 1:
                if hand[TWO]:
                    options.append((TAKE_WITH_TWO, 1, 1, 0))
                if hand[JOKER]:
                    options.append((TAKE_WITH_JOKER, 1, 0, 1))
            if rules.take_onto_meld and self.opened[team]:
                if self.nat[team][top] + self.two[team][top] + self.jok[team][top]:
                    options.append((TAKE_ONTO_MELD, 0, 0, 0))
        ok = self.tables.natural_meld_ok
        nat, two, jok = self.nat[team], self.two[team], self.jok[team]
        legal = []
        for action, naturals, twos, jokers in options:
            n = nat[top] + 1 + naturals
            if ok(n, two[top] + twos, jok[top] + jokers):
                legal.append((action, naturals, twos, jokers))
        return legal

    def _take_actions(self) -> list[int]:
        return [opt[0] for opt in self._take_options() if self.search.take_feasible(opt)]

    def _meld_phase_actions(self) -> list[int]:
        player = self.current
        team = self.team_of[player]
        hand = self.hands[player]
        nat = self.nat[team]
        search = self.search
        total = self.hand_totals[player]
        # An opened team keeping two cards can always discard: no search needed.
        quick = self.opened[team] and not going_out_only(self.rules, nat)
        moves = meld_moves(self.tables, hand, nat, self.two[team], self.jok[team], self.clean_only)
        legal_moves = self._legal_moves = {}
        melds = []
        if moves:
            black3_last = self.rules.black3_meld_only_going_out
            feasible = search.move_feasible
            node = None  # the search's view of this position, made when first needed
            for move in moves:
                if (
                    quick
                    and total - move[2] - move[3] - move[4] >= 2
                    and not (black3_last and move[1] == SLOT_BLACK3)
                ):
                    ok = True
                else:
                    node = node or search.game_node()
                    ok = feasible(move, node)
                if ok:
                    melds.append(move[0])
                    legal_moves[move[0]] = move
            melds.sort()
        # ids ascend: discards, then melds, then runs
        if (quick and total >= 2) or search.discard_allowed():
            actions = list(compress(DISCARD_IDS, hand))
            actions += melds
        else:
            actions = melds
        if self.rules.sequences and self.opened[team]:  # S-19
            actions += self._escala_actions(player)
        return actions

    def _escala_actions(self, player: int) -> list[int]:
        """S-19: runs the opened team may lay, leaving a way to finish the turn."""
        actions = []
        total = self.hand_totals[player]
        for action in self.suits.runs(player):
            _, start, length = run_of_action(action)
            if total - length < 2:  # few cards left: the turn must still end legally
                hand = self.hands[player][:]
                for rank in range(start, start + length):
                    hand[rank] -= 1
                if not self.search.hand_after_ok(hand, total - length):
                    continue
            actions.append(action)
        return actions

    # ------------------------------------------------------------------ applying
    def apply(self, action: int) -> None:
        """Apply a legal action of the player to act; raise IllegalActionError otherwise."""
        if type(action) is int and 0 <= action < NUM_ACTIONS:
            index = action  # the common case, without the general conversion
        else:
            index = action_id(action)
        if index not in self.legal_actions():  # none once the hand is over
            raise IllegalActionError(self.illegal_message(index))
        self._legal = None
        self.num_steps += 1
        kind = MOVE_KINDS[index]
        if kind == MOVE_MELD:
            self._meld(self._legal_moves[index])  # filled by legal_actions() above
        elif kind == MOVE_DISCARD:
            self._discard(MOVES[index].slot)
        elif kind == MOVE_DRAW:
            self._draw()
        elif kind == MOVE_TAKE:
            self._take(index)
        elif kind == MOVE_PASS:
            self._end_hand(END_STOCK)
        else:
            self._lay_escala(index)

    def explain_illegal(self, action: int) -> str:
        """A short reason why ``action`` is not legal now (for error messages and hints)."""
        return explain(self, action)

    def illegal_message(self, index: int) -> str:
        """The :class:`IllegalActionError` text for an id in range that is not legal now,
        with the reason (:meth:`explain_illegal`); the compiled core's refusals say the
        same (``CoreGame.apply`` asks it of the position)."""
        said = f"illegal action {index} ({ACTION_TEXTS[index]!r})"
        if self.phase == PHASE_HAND_OVER:
            return f"{said}: the hand is over"
        return (
            f"{said} for player {self.current} in the {PHASE_NAMES[self.phase]} phase: "
            f"{self.explain_illegal(index)}"
        )

    def _draw_cards(self, count: int) -> bool:
        """Draw ``count`` cards, laying out and replacing red 3s (G-6).

        Returns False when the hand ended because a red 3 was the last stock card (C-16).
        """
        player = self.current
        hand = self.hands[player]
        stock = self.stock
        suits = self.suits
        for _ in range(count):
            if not stock:
                break
            card = stock.pop()
            suits.draw(player, card)
            while card == RED3:
                self._lay_red3(self.team_of[player])
                if not stock:
                    self._end_hand(END_STOCK)
                    return False
                card = stock.pop()
                suits.draw(player, card)
            hand[card] += 1
            self.hand_totals[player] += 1
        return True

    def _lay_red3(self, team: int) -> None:
        """G-6: a red 3 is laid out on the team's table as soon as a player gets it."""
        self.red3[team] += 1
        self.table_totals[team] += 1

    def _draw(self) -> None:
        pot = self.pot
        if pot and pot[-1] < NUM_HAND_KINDS:  # a red 3 on top is not a card one declines
            self.declined[self.current][pot[-1]] += 1
            self.history_totals[self.current] += 1
        if self._draw_cards(self.rules.draw_count):
            self.phase = PHASE_MELD

    def _take(self, action: int) -> None:
        for option in self._take_options():
            if option[0] == action:
                break
        _, naturals, twos, jokers = option
        player = self.current
        team = self.team_of[player]
        hand = self.hands[player]
        pot = self.pot
        top = pot.pop()
        self.pot_known[top] -= 1 if self.pot_known[top] else 0
        rest = pot[:]
        pot.clear()
        self.suits.take_pot(player, top, naturals, rest)
        known_rest = self.pot_known
        self.pot_known = [0] * NUM_KINDS
        self.pot_hidden = 0
        self.pot_wild = False
        self.took_pot = True
        unopened = not self.opened[team]
        if unopened and self.rules.unopened_take_needs_clean_opening:
            self.clean_only = True  # I-7, I-10
        # the top card and the cards from the hand form or join the meld (C-10, S-5, I-7)
        self.closed[team], points = take_top(
            self.rules,
            hand,
            self.nat[team],
            self.two[team],
            self.jok[team],
            self.closed[team],
            top,
            option,
        )
        self.hand_totals[player] -= naturals + twos + jokers
        self.table_totals[team] += 1 + naturals + twos + jokers
        self._forget_known(player, top, naturals)
        self._forget_known(player, TWO, twos)
        self._forget_known(player, JOKER, jokers)
        # the rest of the pot: red 3s are laid out unreplaced (G-6), the others are known
        known = self.known[player]
        for kind in range(NUM_HAND_KINDS):
            known[kind] += known_rest[kind]
        held = self.held
        for card in rest:
            if card == RED3:
                self._lay_red3(team)
            else:
                held[card] += 1
        self._after_meld(player, team, top, points, hidden=False)
        if self.phase == PHASE_HAND_OVER:
            return
        if not unopened or self.opened[team]:
            self._release_held(player)
        if self.rules.draw_after_pot_take and self.stock:  # I-4, ambiguity 12
            if not self._draw_cards(self.rules.draw_after_pot_take):
                return
        self.phase = PHASE_MELD

    def _release_held(self, player: int) -> None:
        held = self.held
        if any(held):
            hand = self.hands[player]
            for kind in range(NUM_KINDS):
                hand[kind] += held[kind]
            self.hand_totals[player] += sum(held)
            self.held = [0] * NUM_KINDS
            self.suits.release_held(player)

    def _forget_known(self, player: int, kind: int, count: int) -> None:
        if count:
            known = self.known[player]
            known[kind] = max(0, known[kind] - count)

    def _meld(self, move) -> None:
        _, slot, naturals, twos, jokers, _ = move
        player = self.current
        team = self.team_of[player]
        self.closed[team], hidden = lay(
            self.rules,
            self.hands[player],
            self.nat[team],
            self.two[team],
            self.jok[team],
            self.closed[team],
            move,
        )
        kind = natural_kind(slot)
        if naturals:
            self._forget_known(player, kind, naturals)
            self.suits.meld(player, kind, naturals)
        if twos:
            self._forget_known(player, TWO, twos)
        if jokers:
            self._forget_known(player, JOKER, jokers)
        self.hand_totals[player] -= naturals + twos + jokers
        self.table_totals[team] += naturals + twos + jokers
        points = 0 if self.opened[team] else meld_points(slot, naturals, twos, jokers)
        self._after_meld(player, team, slot, points, hidden)

    def _after_meld(self, player: int, team: int, slot: int, points: int, hidden: bool) -> None:
        """Count the opening, and detect a win or going out, after a meld or a pot take."""
        rules = self.rules
        self.melded_this_turn = True
        if not self.opened[team]:
            self.staged += points
            if hidden and rules.hidden_canasta_opens:
                self.hidden_open = True  # S-8
            if self.staged >= self.need[team] or self.hidden_open:
                self.opened[team] = True
                self._release_held(player)
        if (
            slot == SLOT_BLACK3
            and rules.black3_canasta_wins_game
            and black3_canasta(rules, self.nat[team], self.closed[team])
        ):
            self._end_hand(END_BLACK3, winner=team)  # S-11
            return
        if self.hand_totals[player] == 0 and not any(self.held):
            self._go_out(player)

    def _lay_escala(self, action: int) -> None:
        """S-19: lay a run of one suit from the hand; it scores at the end of the hand."""
        suit, start, length = run_of_action(action)
        player = self.current
        team = self.team_of[player]
        hand = self.hands[player]
        for rank in range(start, start + length):
            hand[rank] -= 1
            self._forget_known(player, rank, 1)
        self.suits.lay_run(player, suit, start, length)
        self.hand_totals[player] -= length
        self.table_totals[team] += length
        self.escalas[team].append((suit, start, length))
        self.melded_this_turn = True
        if self.hand_totals[player] == 0 and not any(self.held):
            self._go_out(player)

    def _discard(self, kind: int) -> None:
        player = self.current
        hand = self.hands[player]
        hand[kind] -= 1
        self.hand_totals[player] -= 1
        known = self.known[player]
        if known[kind]:  # a card the others saw it take with the pot
            known[kind] -= 1
        self.suits.discard(player, kind)
        self.pot.append(kind)
        self.pot_known[kind] += 1
        self.discarded[player][kind] += 1
        self.history_totals[player] += 1
        for seat, since in enumerate(self.since_discard):
            if seat == player:
                self.since_discard[seat] = [0] * NUM_HAND_KINDS
            else:
                since[kind] += 1
        if kind == TWO or kind == JOKER:
            self.pot_wild = True  # C-9, S-6, I-8
        if self.hand_totals[player] == 0:
            self._go_out(player)
            return
        self._begin_turn((player + 1) % self.num_players)

    def _go_out(self, player: int) -> None:
        team = self.team_of[player]
        self.went_out = player
        self.concealed = not self.opened_at_turn_start  # C-15, ambiguity 4
        self.opened[team] = True
        self._end_hand(END_WENT_OUT)

    def _begin_turn(self, player: int) -> None:
        self.current = player
        self.phase = PHASE_DRAW
        team = self.team_of[player]
        self.staged = 0
        self.held = [0] * NUM_KINDS
        self.suits.clear_held()
        self.took_pot = False
        self.hidden_open = False
        self.melded_this_turn = False
        self.opened_at_turn_start = self.opened[team]
        rules = self.rules
        self.clean_only = (
            not self.opened[team] and self.need[team] <= rules.clean_opening_max_minimum
        )
        if rules.no_go_out_on_first_clean_turn:  # S-15 is the only reader
            _, clean, _ = canasta_summary(rules, *self.team_melds(team))
            self.had_clean_at_turn_start = clean > 0
        else:
            self.had_clean_at_turn_start = False
        self._legal = None
        self._legal_moves: dict[int, tuple] = {}
        if len(self.stock) < rules.draw_count and not self.legal_actions():
            self._end_hand(END_STOCK)  # C-16, S-17, I-11

    # ------------------------------------------------------------------ hand end
    def _end_hand(self, reason: str, winner: int | None = None) -> None:
        if any(self.held):  # pot cards held for an opening that never came stay the player's
            self._release_held(self.current)
        self.phase = PHASE_HAND_OVER
        self.end_reason = reason
        self._legal = []
        self.hand_scores = [score_team(self, team) for team in range(self.num_teams)]
        for team, sheet in enumerate(self.hand_scores):
            self.scores[team] += sheet["total"]
        totals = [sheet["total"] for sheet in self.hand_scores]
        self.hand_history.append({"hand": self.hand_index, "reason": reason, "scores": totals})
        if winner is not None:
            self.game_over = True
            self.winner_team = winner
        elif max(self.scores) >= self.rules.target_score:  # G-7
            self.game_over = True
            best = max(self.scores)
            leaders = [t for t, s in enumerate(self.scores) if s == best]
            self.winner_team = leaders[0] if len(leaders) == 1 else None

    def next_hand(self, deck=None) -> None:
        """Deal the next hand of the game; the first player rotates one seat (G-7)."""
        if self.phase != PHASE_HAND_OVER:
            raise IllegalActionError("the current hand is not over")
        if self.game_over:
            raise IllegalActionError("the game is over")
        self.hand_index += 1
        self.start_hand(deck)

    # ------------------------------------------------------------------ copying
    def result(self, scope: str = "hand") -> Result:
        """The result of the hand that ended (``"hand"``) or of the game so far
        (``"game"``): points, margins and outcomes per team and seat, by the one
        convention of :mod:`canasta_env.engine.outcome`."""
        return result_of(self, scope)

    def copy(self) -> Game:
        """An independent copy of the state, with fresh caches (for search agents and tests)."""
        other = object.__new__(Game)
        copy_state(self, other)
        other._caches()
        return other


def action_id(action) -> int:
    """The id of an action given to ``apply`` (of either engine): an ``int`` or anything
    with an integer ``__index__`` (a numpy integer of any width and byte order, a 0-d
    integer array), in ``0..NUM_ACTIONS - 1``. Anything else (bools, floats, strings,
    None, arrays of other shapes or dtypes) raises :class:`IllegalActionError` naming it;
    an id out of range raises it naming the id's real value."""
    if isinstance(action, bool):
        raise IllegalActionError(f"action must be an integer id, got {action!r}")
    try:
        index = operator.index(action)
    except TypeError:
        raise IllegalActionError(f"action must be an integer id, got {action!r}") from None
    if not 0 <= index < NUM_ACTIONS:
        raise IllegalActionError(f"action id {index} is outside 0..{NUM_ACTIONS - 1}")
    return index


def _deck_kinds(deck) -> list[int]:
    """Card codes (``"AS TH JK"`` or a list of codes) or kinds, in draw order."""
    if isinstance(deck, str):
        return parse_cards(deck)
    if not isinstance(deck, (list, tuple)):
        raise ValueError(
            f"a stacked deck is a string or list of card codes such as 'AS', got {deck!r}"
        )
    cards = list(deck)
    if all(isinstance(card, str) for card in cards):
        return parse_cards(cards)
    if all(isinstance(card, int) and 0 <= card < NUM_KINDS for card in cards):
        return cards
    raise ValueError("a stacked deck is a list of card codes such as 'AS' or of kinds 0..14")


def _deck_suited(deck) -> list[tuple[int, int | None]]:
    """S-19: a stacked deck as ``(kind, suit)``; kinds given as numbers get suit None."""
    if isinstance(deck, str):
        return parse_suited(deck)
    if isinstance(deck, (list, tuple)) and all(isinstance(card, str) for card in deck):
        return parse_suited(list(deck))
    return [(kind, None) for kind in _deck_kinds(deck)]


def kind_name(kind: int) -> str:
    from canasta_env.cards import KIND_NAMES

    return KIND_NAMES[kind]


__all__ = [
    "Game",
    "IllegalActionError",
    "action_id",
    "PHASE_DRAW",
    "PHASE_MELD",
    "PHASE_HAND_OVER",
    "NEW_BLACK3",
]
