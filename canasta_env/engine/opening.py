"""Turn guards: which moves leave the player a way to finish the turn legally.

The mask may never strand a player (C-13, S-16, I-11) nor let an unopened team
stage melds it cannot complete to its opening minimum (G-5, C-8, S-8, I-9,
I-10). A move is legal when, after it, some sequence of further meld moves
reaches a legal end of turn:

* the team has opened (minimum reached, S-8 hidden canasta, or opened before)
  and at least two cards remain, so one can be discarded; or
* the player may go out: with one card left (discarded last) or none (melded
  out, where the preset allows going out without a discard); a team that has
  not opened may do so only by a concealed going out (C-15) without a pot take;
  or
* the team, opened, completes a canasta of black 3s that wins the game at once
  (S-11), with a card left in hand (S-16).

Once black 3s are melded where they may be melded only when going out (C-7),
only the second way remains: the turn must end by going out.

The search is a depth-first search over meld moves with memoisation and an
upper bound on the points the hand can still add; it is exact because it
explores the same moves the engine offers.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from canasta_env.actions import SLOT_BLACK3
from canasta_env.cards import (
    BLACK3,
    CARD_VALUES,
    JOKER,
    NUM_HAND_KINDS,
    NUM_KINDS,
    NUM_NATURALS,
    RED3,
    TWO,
)
from canasta_env.engine.melds import (
    black3_canasta,
    canasta_summary,
    canastas_let_go_out,
    going_out_only,
    meld_moves,
    meld_points,
)
from canasta_env.engine.transitions import lay, take_top

#: No pile cards held aside (the ``held`` field of a node is a tuple of kind counts).
NO_HELD = (0,) * NUM_KINDS


class Node(NamedTuple):
    """A position of the search: the player's hand and the team's table after some of
    this turn's meld moves. The lists belong to the node (copies of the game's)."""

    hand: list[int]  #: kind counts
    total: int  #: cards in the hand
    nat: list[int]  #: the team's melds by slot
    two: list[int]
    jok: list[int]
    closed: list  #: finished canastas (S-7)
    staged: int  #: opening points melded this turn
    hidden_open: bool  #: a hidden canasta opened the team (S-8)
    held: tuple[int, ...]  #: pot cards set aside until the opening (C-8)
    opened: bool  #: the team had opened before the last move
    took: bool  #: the pot was taken this turn
    clean_only: bool  #: only clean melds may follow (I-10)


#: ``Node`` from a tuple of its fields without the Python-level ``__new__`` (a hot path).
_node = functools.partial(tuple.__new__, Node)


class TurnSearch:
    """Feasibility checks for the player to act in one game."""

    def __init__(self, game):
        self.game = game
        self.memo: dict = {}
        self.memo_turn = None

    # ---------------------------------------------------------------- going out
    def go_out_allowed(self, nat, two, jok, closed, opening_ok: bool) -> bool:
        """C-14, S-15, I-11 on a team's melds."""
        if not opening_ok:
            return False
        count, clean, dirty = canasta_summary(self.game.rules, nat, two, jok, closed)
        return self.go_out_allowed_counts(count, clean, dirty)

    def go_out_allowed_counts(self, count: int, clean: int, dirty: int) -> bool:
        """C-14, S-15, I-11 given a team's canasta counts, its opening being done."""
        game = self.game
        rules = game.rules
        if not canastas_let_go_out(rules, count, clean, dirty):
            return False
        if rules.no_go_out_on_first_clean_turn and clean and not game.had_clean_at_turn_start:
            return False  # S-15: not in the turn of the first clean canasta
        return True

    # ---------------------------------------------------------------- entry points
    def discard_allowed(self) -> bool:
        game = self.game
        player = game.current
        team = game.team_of[player]
        total = game.hand_totals[player]
        nat, two, jok, closed = game.team_melds(team)
        if going_out_only(game.rules, nat) or (not game.opened[team] and game.melded_this_turn):
            # C-7: black 3s on the table, or G-5: an opening staged but not complete:
            # only going out may end the turn now (concealed, C-15, for an unopened team)
            return total == 1 and self.go_out_allowed(
                nat, two, jok, closed, self.game.opening_done(team)
            )
        if total >= 2:
            return True
        return total == 1 and self.go_out_allowed(
            nat, two, jok, closed, self.game.opening_done(team)
        )

    def move_feasible(self, move, node: Node | None = None) -> bool:
        """Can the turn still end legally after this meld move?

        ``node``: the game's node (:meth:`game_node`), from a caller that checks many
        moves of one position and has already let the common case through (an opened
        team that keeps two cards to discard, with no going-out-only rule in the way).
        """
        if node is None:
            game = self.game
            player = game.current
            team = game.team_of[player]
            _, slot, naturals, twos, jokers, _ = move
            must_go_out = going_out_only(game.rules, game.nat[team]) or (
                slot == SLOT_BLACK3 and game.rules.black3_meld_only_going_out
            )
            total = game.hand_totals[player] - naturals - twos - jokers
            if game.opened[team] and total >= 2 and not must_go_out:
                return True  # the common case: a discard remains possible
            node = self.game_node()
        return self._node_ok(self._child(node, move))

    def take_feasible(self, option) -> bool:
        """Can the turn be completed after taking the pot this way (C-8, C-10, S-5, I-7)?"""
        game = self.game
        rules = game.rules
        player = game.current
        team = game.team_of[player]
        action, naturals, twos, jokers = option
        top = game.pot[-1]
        # The rest of the pot; its red 3s are laid out (G-6). Legality may use only what
        # the player can see (G-8): face-down cards (S-3, I-3) count as if they were red
        # 3s, the worst case, since more cards in hand never make a turn harder to end.
        rest = [0] * NUM_KINDS
        for card in game.pot[game.pot_hidden : -1]:
            if card != RED3:
                rest[card] += 1
        rest = tuple(rest)
        hand = game.hands[player][:]
        total = game.hand_totals[player] - naturals - twos - jokers
        nat, two, jok, closed = game.team_melds(team)
        nat, two, jok = nat[:], two[:], jok[:]
        closed, points = take_top(rules, hand, nat, two, jok, closed, top, option)
        if game.opened[team]:
            # C-12: the rest of the pot joins the hand at once and may be melded
            hand = [have + extra for have, extra in zip(hand, rest)]
            total += sum(rest) + min(rules.draw_after_pot_take, len(game.stock))
            if total >= 2:
                return True
            node = Node(
                hand,
                total,
                nat,
                two,
                jok,
                closed,
                0,
                False,
                NO_HELD,
                True,
                game.took_pot,
                game.clean_only,
            )
            return self._node_ok(node)
        # I-7, I-10: in some presets the take binds the turn to a clean opening
        clean_only = game.clean_only or rules.unopened_take_needs_clean_opening
        node = Node(
            hand, total, nat, two, jok, closed, points, False, rest, False, True, clean_only
        )
        return self._node_ok(node)

    def hand_after_ok(self, hand: list[int], total: int) -> bool:
        """Can the turn still end legally with the opened team's player holding ``hand``
        (``total`` cards) and the table as it is? (S-19: after laying a run.)"""
        node = self.game_node()
        return self._node_ok(node._replace(hand=hand, total=total, opened=True))

    # ---------------------------------------------------------------- search
    def game_node(self) -> Node:
        """The search's view of the game now (its lists shared: a child copies them)."""
        game = self.game
        player = game.current
        nat, two, jok, closed = game.team_melds(game.team_of[player])
        return Node(
            game.hands[player],
            game.hand_totals[player],
            nat,
            two,
            jok,
            closed,
            game.staged,
            game.hidden_open,
            tuple(game.held),
            game.opened[game.team_of[player]],
            game.took_pot,
            game.clean_only,
        )

    def _child(self, node: Node, move) -> Node:
        """The node after one meld move (the move is applied to copies, by :func:`lay`).

        Held pot cards stay aside until the team has opened (C-8); ``opened`` is
        whether the team had opened before this move.
        """
        hand, total, nat, two, jok, closed, staged, hidden_open, held, opened, took, clean = node
        hand, nat, two, jok = hand[:], nat[:], two[:], jok[:]
        closed, hidden = lay(self.game.rules, hand, nat, two, jok, closed, move)
        if opened:
            held = NO_HELD
        else:
            staged += meld_points(move[1], move[2], move[3], move[4])
            hidden_open = hidden_open or (hidden and self.game.rules.hidden_canasta_opens)
        total -= move[2] + move[3] + move[4]
        return _node(
            (hand, total, nat, two, jok, closed, staged, hidden_open, held, opened, took, clean)
        )

    def _node_ok(self, node: Node) -> bool:
        """Can the turn still end legally from ``node``?"""
        game = self.game
        rules = game.rules
        team = game.team_of[game.current]
        hand, total, nat, two, jok, closed, staged, hidden_open, held, was_opened, took, _ = node
        opened = was_opened or staged >= game.need[team] or hidden_open
        concealed_ok = rules.concealed_go_out_ignores_minimum and not took
        if opened and held is not NO_HELD and any(held):
            # C-8: the pot cards held aside join the hand once the minimum is reached,
            # and may be melded in the same turn
            total += sum(held)
            hand = [have + extra for have, extra in zip(hand, held)]
            held = NO_HELD
        if (
            rules.black3_canasta_wins_game
            and opened
            and total
            and black3_canasta(rules, nat, closed)
        ):
            # S-11: a black-3 canasta ends the game at once, with cards left in hand (an
            # emptied hand still needs going out to be allowed, S-16: below)
            return True
        if rules.black3_meld_only_going_out and going_out_only(rules, nat):
            out = None
            if not any(held):  # held pot cards arrive mid-turn: left to the full search
                out = self._can_meld_out(hand, node, opened, concealed_ok)
            if out is not None:
                return out
        elif opened and total >= 2:
            return True
        if total == 0:
            return not rules.go_out_needs_discard and self.go_out_allowed(
                nat, two, jok, closed, opened or concealed_ok
            )
        if total == 1 and self.go_out_allowed(nat, two, jok, closed, opened or concealed_ok):
            return True
        if (
            not opened
            and total > 0
            and not self._may_still_open(hand, nat, two, jok, staged, concealed_ok)
        ):
            return False
        if opened != was_opened or held is not node.held:
            node = node._replace(hand=hand, total=total, held=held, opened=opened)
        return self._expand(node)

    def _can_meld_out(self, hand, node: Node, opened: bool, concealed_ok: bool):
        """Can the player go out from here by melding every card but at most one (C-7, C-14)?

        Used once black 3s are melded (the turn must end by going out). Every card but
        the discard must join a meld, so the answer is counting, not search: naturals of
        a rank without a meld need ``min_naturals`` of them; the wild cards must fit the
        melds' room (C-5: at most ``max_wilds_per_meld``, never more than the naturals)
        and cover the new melds' minimum size; enough melds must reach a canasta. Any
        such final table is reached by laying the naturals first and the wilds last.
        Returns None where the rules need the full search (other presets' limits).
        """
        game = self.game
        rules = game.rules
        nat, two, jok, closed, staged = node.nat, node.two, node.jok, node.closed, node.staged
        if (
            rules.meld_closes_at
            or rules.wild_melds
            or rules.min_natural_excess
            or rules.go_out_needs_discard
            or rules.go_out_needs_clean_and_dirty
            or rules.no_go_out_on_first_clean_turn
            or rules.hidden_canasta_opens
            or node.clean_only
            or closed
        ):
            return None
        team = game.team_of[game.current]
        # Naturals too few for a new meld of a rank without one: all but one must go
        # (the discard), so two such ranks already make melding out impossible.
        least = rules.min_naturals
        lone = []
        for rank in range(NUM_NATURALS):
            have = hand[rank]
            if have and have < least and not (nat[rank] or two[rank] or jok[rank]):
                lone.append(rank)
                if len(lone) >= 2:
                    return False
        # with one such rank, it is the discard
        choices = lone or [None] + [kind for kind in range(NUM_HAND_KINDS) if hand[kind]]
        # G-5: unopened, the melded cards (all but the discard) must reach the minimum
        check_points = not (opened or concealed_ok)
        if check_points:
            lacking = game.need[team] - staged
            points = sum([CARD_VALUES[kind] * hand[kind] for kind in range(NUM_HAND_KINDS)])
        for discard in choices:
            left = list(hand)
            if discard is not None:
                left[discard] -= 1
            if check_points:
                melded = points if discard is None else points - CARD_VALUES[discard]
                if melded < lacking:
                    continue
            if self._melds_out(left, nat, two, jok):
                return True
        return False

    def _melds_out(self, left, nat, two, jok) -> bool:
        """Can all of ``left`` be melded onto these melds with a canasta (C-5, C-7, C-14)?"""
        rules = self.game.rules
        size_needed = rules.canasta_size
        wilds = left[TWO] + left[JOKER]
        least = room = 0
        canastas = 0
        extra_for_canasta = []  # wilds beyond its minimum that a meld needs to be a canasta
        min_naturals = rules.min_naturals
        min_meld_size = rules.min_meld_size
        max_wilds = rules.max_wilds_per_meld
        for rank in range(NUM_NATURALS):
            have = left[rank]
            placed = two[rank] + jok[rank]
            if nat[rank] + placed:  # a meld on the table
                minimum = 0
            elif not have:
                continue
            elif have < min_naturals:
                return False  # a natural that no meld can take
            else:
                minimum = min_meld_size - have if have < min_meld_size else 0
            naturals = nat[rank] + have
            free = (max_wilds if max_wilds < naturals else naturals) - placed
            if free < minimum:
                return False
            least += minimum
            room += free
            lacking = size_needed - naturals - placed
            if lacking <= 0:
                canastas += 1
            elif lacking <= free:
                extra_for_canasta.append((lacking if lacking > minimum else minimum) - minimum)
        black3 = nat[SLOT_BLACK3] + left[BLACK3]
        if left[BLACK3] and (black3 > rules.black3_meld_max_size or black3 < 3):
            return False
        if black3 >= size_needed:
            canastas += 1
        if not least <= wilds <= room:
            return False
        missing = rules.go_out_min_canastas - canastas
        if missing <= 0:
            return True
        extra_for_canasta.sort()
        return (
            len(extra_for_canasta) >= missing and sum(extra_for_canasta[:missing]) <= wilds - least
        )

    def _may_still_open(self, hand, nat, two, jok, staged, concealed_ok) -> bool:
        """A quick upper bound: can the hand still add enough points, or open another way?"""
        game = self.game
        rules = game.rules
        team = game.team_of[game.current]
        wilds = hand[TWO] + hand[JOKER]
        size = rules.canasta_size  # S-8: a whole canasta laid at once opens
        if concealed_ok or (rules.hidden_canasta_opens and (wilds >= size or hand[BLACK3] >= size)):
            return True
        bound = staged + CARD_VALUES[TWO] * hand[TWO] + CARD_VALUES[JOKER] * hand[JOKER]
        for rank in range(NUM_NATURALS):
            have = hand[rank]
            if have >= 2 or (have and nat[rank] + two[rank] + jok[rank]):
                bound += CARD_VALUES[rank] * have
                if rules.hidden_canasta_opens and have + wilds >= size and 2 * have >= size:
                    return True
        if rules.black3_melds:  # C-7: black 3s melded while going out count too (G-2, G-5)
            bound += CARD_VALUES[BLACK3] * hand[BLACK3]
        return bound >= game.need[team]

    def _expand(self, node: Node) -> bool:
        """Depth-first over the meld moves from ``node``, memoised for the turn."""
        game = self.game
        turn_key = (game.hand_index, id(game.hands))
        if self.memo_turn != turn_key or len(self.memo) > 200_000:
            self.memo = {}
            self.memo_turn = turn_key
        hand, _, nat, two, jok, closed = node[:6]
        key = (
            game.current,
            tuple(hand),
            tuple(nat),
            tuple(two),
            tuple(jok),
            tuple(closed),
            *node[6:],
            game.had_clean_at_turn_start,
        )
        found = self.memo.get(key)
        if found is not None:
            return found
        self.memo[key] = False  # cycles cannot occur (every move melds a card), but be safe
        result = False
        for move in meld_moves(game.tables, hand, nat, two, jok, node.clean_only):
            if self._node_ok(self._child(node, move)):
                result = True
                break
        self.memo[key] = result
        return result
