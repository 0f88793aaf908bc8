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

Before any search, and again at each position the first search expands, quick upper
bounds (:mod:`canasta_env.engine.turn_bounds`) refuse what cannot end the turn: an
opening minimum the hand cannot meld while keeping the cards the end needs (G-5: the
pot a hand cannot take under a high minimum is refused at once), a going out whose
canastas are out of reach (C-7, C-14, S-15). They never decide a True.

Where only going out can end the turn (C-7), counting answers first where the
rules allow it (:meth:`TurnSearch._can_meld_out`: every card but the discard must
join a meld the action layout can lay). Then two exact searches answer, so the
answer is one: first a depth-first search over
whole positions, memoised for the turn (its memo serves every move of the turn:
the fastest on the hands of real play), within ``DFS_BUDGET`` expansions; past
that budget, and wherever only going out can end the turn (C-7), the slot search
(:class:`_SlotSearch`), which takes the moves slot by slot and memoises on a
polynomial number of states (the slot, its meld and cards, the wild cards left,
the points staged and a few capped counts): bounded on the largest hands and
pots the rules allow (benchmarks/bench_turn_search.py). Both count only melds
the action layout can lay.
"""

from __future__ import annotations

import functools
import sys
from typing import NamedTuple

from canasta_env.actions import SLOT_BLACK3, SLOT_WILD
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
    canasta_kind,
    canasta_summary,
    canastas_let_go_out,
    going_out_only,
    meld_moves,
    meld_points,
)
from canasta_env.engine.transitions import lay, take_top
from canasta_env.engine.turn_bounds import (
    black3_canasta_in_reach,
    going_out_in_reach,
    hidden_canasta_possible,
    opening_in_reach,
)

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
        self.memo: dict = {}  # whole positions (the first search)
        self.slot_memo: dict = {}  # slot-search states
        self.suffixes: dict = {}
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
        """Can the turn still end legally from ``node``? (the search: see :class:`_SlotSearch`)"""
        game = self.game
        rules = game.rules
        need = game.need[game.team_of[game.current]]
        opened = node.opened or node.staged >= need or node.hidden_open
        total = node.total + (sum(node.held) if opened and not node.opened else 0)
        must_go_out = going_out_only(rules, node.nat)
        if opened and total >= 2 and not must_go_out:
            return True  # a discard ends the turn (the search's first answer, at once)
        if not opened and not must_go_out and self._opens_plainly(node, need):
            return True
        if not self._may_end(node, need, opened, must_go_out):
            return False  # quick bounds: going out or the opening out of reach
        turn_key = (game.hand_index, id(game.hands), game.current)
        if self.memo_turn != turn_key or len(self.memo) + len(self.slot_memo) > MEMO_MAX:
            self.memo = {}
            self.slot_memo = {}
            self.suffixes = {}
            self.memo_turn = turn_key
        # the search over whole positions answers most positions fastest (its memo serves
        # every move of the turn); where it grows past its budget, the slot search, whose
        # states are bounded, answers instead: both are exact, so the answer is the same
        if must_go_out:  # only going out ends the turn (C-7): the slot search prunes that best
            if not rules.black3_canasta_wins_game:
                if not any(node.held):  # (held cards join mid-turn: the search's)
                    concealed_ok = rules.concealed_go_out_ignores_minimum and not node.took
                    out = self._can_meld_out(node.hand, node, opened, concealed_ok)
                    if out is not None:
                        return out
            return _SlotSearch(self, node).run()
        self.budget = DFS_BUDGET
        limit = sys.getrecursionlimit()
        if limit < 3 * DFS_BUDGET + 200:  # two frames an expansion, at most
            sys.setrecursionlimit(3 * DFS_BUDGET + 200)
        try:
            return self._dfs_ok(node)
        except _OverBudget:
            return _SlotSearch(self, node).run()
        finally:
            sys.setrecursionlimit(limit)

    def _may_end(self, node: Node, need: int, opened: bool, must_go_out: bool) -> bool:
        """Quick upper bounds (engine/turn_bounds.py) before any search: False where the
        turn surely cannot end. Only going out ends it (C-7) and the canastas for it are
        out of reach (C-14, S-15, I-11); or the team has not opened, cannot go out
        concealed (C-15) nor lay a hidden canasta (S-8), and cannot meld its opening
        minimum (G-5) keeping the cards the end of the turn needs (a discard, or the one
        of a going out; the held pot cards join the hand at the opening, C-8)."""
        game = self.game
        rules = game.rules
        closed = node.closed
        escape = rules.black3_canasta_wins_game and black3_canasta_in_reach(
            rules, node.hand, node.held, node.nat, any(c[0] == SLOT_BLACK3 for c in closed)
        )  # S-11: a black-3 canasta that wins the game ends the turn, a card left
        clean = sum(canasta_kind(slot, n, t, j)[0] for slot, n, t, j, _ in closed)
        out = going_out_in_reach(
            rules,
            node.hand,
            node.held,
            node.nat,
            node.two,
            node.jok,
            len(closed),
            clean,
            game.had_clean_at_turn_start,
        )
        if must_go_out and not out and not escape:
            return False
        if opened or (out and rules.concealed_go_out_ignores_minimum and not node.took):
            return True
        tables = game.tables
        hand, nat, two, jok, clean_only = node.hand, node.nat, node.two, node.jok, node.clean_only
        if hidden_canasta_possible(tables, hand, nat, two, jok, clean_only):
            return True
        if out:
            fewest = 1 if rules.go_out_needs_discard else 0
        else:
            fewest = 1 if escape else 2
        keep = max(0, fewest - sum(node.held))
        return opening_in_reach(tables, hand, nat, two, jok, clean_only, need - node.staged, keep)

    def _dfs_ok(self, node: Node) -> bool:
        """The depth-first search over whole positions: can the turn end legally from
        ``node``? Raises :class:`_OverBudget` past ``DFS_BUDGET`` expansions."""
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
        if opened and total >= 2 and not going_out_only(rules, nat):
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
        return self._dfs_expand(node)

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

    def _dfs_expand(self, node: Node) -> bool:
        """Depth-first over the meld moves from ``node``, memoised for the turn."""
        game = self.game
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
        self.budget -= 1
        if self.budget < 0:
            raise _OverBudget
        result = False  # every move melds a card: no cycle, and nothing stored until known
        need = game.need[game.team_of[game.current]]
        if not self._may_end(node, need, node.opened, going_out_only(game.rules, nat)):
            self.memo[key] = False  # (the quick bounds, once a position)
            return False
        for move in meld_moves(game.tables, hand, nat, two, jok, node.clean_only):
            if self._dfs_ok(self._child(node, move)):
                result = True
                break
        self.memo[key] = result
        return result

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
        least = max(2, rules.min_naturals)  # a new meld from the hand: 2 naturals at least
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
        min_naturals = max(2, rules.min_naturals)
        # a new meld from the hand has at least 3 cards (the action layout), whatever
        # min_meld_size allows: 2-card melds are made only by a take (docs/rules.md)
        min_meld_size = max(3, rules.min_meld_size)
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
        if left[BLACK3] and (
            black3 > rules.black3_meld_max_size or black3 < max(3, rules.min_meld_size)
        ):
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

    def _opens_plainly(self, node: Node, need: int) -> bool:
        """A witness, found at once where it exists: new melds of naturals alone, a rank
        at a time (up to 7 cards, C-5's limits), reach the minimum and keep two cards in
        hand (the held pot cards joining, C-8). True only where the search says so."""
        ok = self.game.tables.natural_ok
        nat, two, jok = node.nat, node.two, node.jok
        points, left = node.staged, node.total
        for rank in range(NUM_NATURALS):
            have = node.hand[rank]
            if have < 3 or nat[rank] or two[rank] or jok[rank]:
                continue
            laid = have if have < 7 else 7
            if not ok[laid][0]:
                continue
            points += CARD_VALUES[rank] * laid
            left -= laid
            if points >= need:
                return left + sum(node.held) >= 2
        return False


#: The memos of one turn are dropped past this many entries (and at the next turn).
MEMO_MAX = 400_000
#: Expansions the search over whole positions may make for one answer before the slot
#: search takes over (bench_turn_search.py: presets' positions need far fewer).
DFS_BUDGET = 2_000


class _OverBudget(Exception):
    """The search over whole positions went past ``DFS_BUDGET`` expansions."""


#: The order the search takes the slots in: black 3s first (so that C-7's "only going
#: out" is known before the natural slots), the wild-only meld next (after it a wild
#: card on a natural meld counts only as a wild card: the kind of a 2 or a joker still
#: matters only for the points of an opening), then the natural ranks.
ORDER = (SLOT_BLACK3, SLOT_WILD, *range(NUM_NATURALS))
#: The position of the first natural slot in ORDER.
FIRST_NATURAL = 2


class _SlotState:
    """A state of the slot search (:class:`_SlotSearch`): the slot being worked on, its
    meld and cards, the black 3s and wild cards left, the opening, and what the end of
    the turn needs of the slots already passed (capped counts, so that the states stay
    few). The memo keys a state on all of it (:meth:`memo_key`).

    It is ``SlotSearch::State`` of csrc/opening.hpp, whose two-letter name each field
    gives in brackets. A state belongs to the one visit it is made for (which may fold its
    wild-card counts in place); a move or the next slot makes a :meth:`copy`.
    """

    __slots__ = {
        "position": "the position in ORDER of the slot whose moves are being taken (i)",
        "naturals_in_slot": "naturals of the slot's meld (cn)",
        "twos_in_slot": "2s of the slot's meld; on a natural slot, its wild cards (ct)",
        "jokers_in_slot": "jokers of the slot's meld; 0 on a natural slot (cj)",
        "naturals_in_hand": "cards of the slot's rank in hand; 0 off the natural slots (hn)",
        "naturals_held": "cards of the slot's rank among the held pot cards (qn)",
        "run_after_opening": "the slot's run of moves after the opening has begun (post)",
        "wild_added": "the slot's current run laid a wild card on its meld (wild_added)",
        "black3s_in_hand": "black 3s in hand (hb)",
        "twos_in_hand": "2s in hand; on the natural slots once opened, all wild cards (ht)",
        "jokers_in_hand": "jokers in hand (hj)",
        "black3s_held": "black 3s among the held pot cards (qb)",
        "twos_held": "held 2s; on the natural slots, all held wild cards (qt)",
        "jokers_held": "held jokers (qj)",
        "staged": "opening points melded this turn, capped at the minimum (staged)",
        "hidden_open": "a hidden canasta opened the team this turn, S-8 (hidden)",
        "moved_after_opening": "a move of a run after the opening was made (used_post)",
        "canastas": "canastas of the slots passed, capped at go_out_min_canastas (count)",
        "has_clean": "a clean canasta is among those (clean)",
        "has_dirty": "a dirty canasta is among those (dirty)",
        "has_black3_canasta": "a canasta of black 3s is among those (b3c)",
        "must_go_out": "black 3s lie melded: only going out ends the turn, C-7 (goo)",
        "left_in_hand": "cards of the natural slots passed still in hand, capped at 2 (left_hand)",
        "left_held": "cards of the natural slots passed still held, capped at 2 (left_held)",
    }

    def copy(self) -> _SlotState:
        """A state with the same fields (the C++ copies the struct)."""
        twin = _new_slot_state(_SlotState)
        twin.position = self.position
        twin.naturals_in_slot = self.naturals_in_slot
        twin.twos_in_slot = self.twos_in_slot
        twin.jokers_in_slot = self.jokers_in_slot
        twin.naturals_in_hand = self.naturals_in_hand
        twin.naturals_held = self.naturals_held
        twin.run_after_opening = self.run_after_opening
        twin.wild_added = self.wild_added
        twin.black3s_in_hand = self.black3s_in_hand
        twin.twos_in_hand = self.twos_in_hand
        twin.jokers_in_hand = self.jokers_in_hand
        twin.black3s_held = self.black3s_held
        twin.twos_held = self.twos_held
        twin.jokers_held = self.jokers_held
        twin.staged = self.staged
        twin.hidden_open = self.hidden_open
        twin.moved_after_opening = self.moved_after_opening
        twin.canastas = self.canastas
        twin.has_clean = self.has_clean
        twin.has_dirty = self.has_dirty
        twin.has_black3_canasta = self.has_black3_canasta
        twin.must_go_out = self.must_go_out
        twin.left_in_hand = self.left_in_hand
        twin.left_held = self.left_held
        return twin

    def memo_key(self, suffix_id: int) -> tuple:
        """The key of the slot search's memo: the id of the position's suffix
        (:meth:`_SlotSearch._suffix_id`), then every field but the position."""
        return (
            suffix_id,
            self.naturals_in_slot,
            self.twos_in_slot,
            self.jokers_in_slot,
            self.naturals_in_hand,
            self.naturals_held,
            self.run_after_opening,
            self.wild_added,
            self.black3s_in_hand,
            self.twos_in_hand,
            self.jokers_in_hand,
            self.black3s_held,
            self.twos_held,
            self.jokers_held,
            self.staged,
            self.hidden_open,
            self.moved_after_opening,
            self.canastas,
            self.has_clean,
            self.has_dirty,
            self.has_black3_canasta,
            self.must_go_out,
            self.left_in_hand,
            self.left_held,
        )


#: A state with no field set yet (``object.__new__``: no ``__init__`` to run, a hot path).
_new_slot_state = object.__new__


class _SlotSearch:
    """The search from one node: the turn's meld moves taken slot by slot.

    Meld moves on different slots commute (each needs only its own slot's meld and cards
    of the hand, and takes cards that nothing puts back), so every table the turn can
    reach is reached by taking the moves slot after slot, in ``ORDER``. Pot cards held
    aside (C-8) join the hand once the team has opened; so each slot's moves come in two
    runs, those made before the opening (from the hand, counted towards the minimum) and
    those after (from the hand and the held cards), and a run after needs the opening to
    be reached by the runs before (checked where the turn ends). What the end of the turn
    needs of the slots already passed is a few counts (cards left in hand, capped at 2;
    canastas, capped where the rules stop counting; the points staged, capped at the
    minimum), so the memo is keyed on those, the slot, its meld and cards, the wild cards
    and black 3s left, and the untouched slots after it (:class:`_SlotState`).

    Three reductions keep the states few without changing an answer:

    * on a natural meld a 2 and a joker differ only in points (C-5, S-7 and I-5 count
      wild cards; a canasta is clean only without any), so a natural slot's meld counts
      its wild cards together, a move before the opening lays jokers first (the most
      points), one after it held wild cards, then 2s, then jokers, and once the points no
      longer matter (opened, or the minimum staged) the wild cards in hand are one count;
    * without closing melds (S-7), a run of moves on one slot lays its naturals before
      its wild cards (any meld reached in another order is reached so, every step legal);
    * once the turn must end by going out (C-7) with no black-3 canasta to end it (S-11),
      a state that leaves two cards behind is dead.

    The states are then at most slots x (naturals x wild cards of one meld) x wild cards
    in hand x points below the minimum x a few flags: polynomial in the card counts.
    """

    __slots__ = (
        "search", "rules", "tables", "memo", "node", "need", "was_opened", "concealed_ok",
        "has_held", "hand_nat", "held_nat", "suffix_hand", "suffix_held", "suffix_ids",
        "suffix_counts", "count_cap", "closes_at", "canasta_size", "natural_ok", "clean_only",
        "had_clean", "suffix_points", "may_hide", "start_meld", "turn_facts", "b3_escape",
        "suffix_room", "max_wilds",
    )  # fmt: skip

    def __init__(self, search: TurnSearch, node: Node):
        game = search.game
        rules = game.rules
        self.search = search
        self.rules = rules
        self.tables = game.tables
        self.memo = search.slot_memo
        self.node = node
        team = game.team_of[game.current]
        self.need = game.need[team]
        self.was_opened = node.opened
        self.concealed_ok = rules.concealed_go_out_ignores_minimum and not node.took
        self.has_held = not node.opened and any(node.held)
        self.clean_only = node.clean_only
        self.had_clean = game.had_clean_at_turn_start
        self.closes_at = rules.meld_closes_at
        self.canasta_size = rules.canasta_size
        self.natural_ok = self.tables.natural_ok
        self.count_cap = rules.go_out_min_canastas
        self.may_hide = not node.opened and hidden_canasta_possible(
            self.tables, node.hand, node.nat, node.two, node.jok, node.clean_only
        )
        self.b3_escape = rules.black3_canasta_wins_game
        hand, held = node.hand, node.held
        self.hand_nat = hand[:NUM_NATURALS]
        self.held_nat = held[:NUM_NATURALS] if self.has_held else (0,) * NUM_NATURALS
        nat, two, jok = node.nat, node.two, node.jok
        # each slot's meld as the node has it; a natural slot's wild cards as one count
        self.start_meld = [
            (nat[slot], two[slot] + jok[slot], 0)
            if slot < NUM_NATURALS
            else (nat[slot], two[slot], jok[slot])
            for slot in ORDER
        ]
        # the untouched positions from each on: cards in hand and held, canastas, and an
        # upper bound on the points they can add to an opening (G-2, G-5)
        size = self.canasta_size
        length = len(ORDER)
        self.suffix_hand = [0] * (length + 1)
        self.suffix_held = [0] * (length + 1)
        self.suffix_points = [0] * (length + 1)
        self.suffix_counts = [(0, 0, 0)] * (length + 1)
        self.suffix_room = [0] * (length + 1)  # wild cards the natural slots can still take
        self.max_wilds = rules.max_wilds_per_meld
        for position in range(length - 1, -1, -1):
            slot = ORDER[position]
            naturals, twos, jokers = self.start_meld[position]
            natural = slot < NUM_NATURALS
            in_hand = self.hand_nat[slot] if natural else 0
            in_held = self.held_nat[slot] if natural else 0
            after = position + 1
            self.suffix_hand[position] = self.suffix_hand[after] + in_hand
            self.suffix_held[position] = self.suffix_held[after] + in_held
            meldable = in_hand >= 2 or (in_hand and naturals + twos + jokers)
            self.suffix_points[position] = self.suffix_points[after] + (
                CARD_VALUES[slot] * in_hand if natural and meldable else 0
            )
            if rules.black3_meld_only_going_out or self.concealed_ok:  # read then only
                room = self._room(naturals, twos, in_hand + in_held) if natural else 0
                self.suffix_room[position] = self.suffix_room[after] + room
            count, clean, dirty = self.suffix_counts[after]
            if naturals + twos + jokers >= size:
                count += 1
                if canasta_kind(slot, naturals, twos, jokers)[0]:
                    clean += 1
                else:
                    dirty += 1
            self.suffix_counts[position] = (count, clean, dirty)
        # what a state's answer depends on beside its fields and the untouched slots
        self.turn_facts = (
            self.need,
            self.was_opened,
            node.took,
            node.clean_only,
            self.has_held,
            self.had_clean,
        )
        self.suffix_ids = [None] * (length + 1)

    def _room(self, naturals: int, wilds: int, more: int) -> int:
        """At most how many more wild cards a natural meld of ``naturals`` and ``wilds``
        wild cards takes with ``more`` naturals to come (C-5, S-7, I-5: at most
        ``max_wilds_per_meld``, and ``min_natural_excess`` fewer than its naturals, a bound
        that holds for each meld of a slot whose melds close); a slot without a meld takes
        none unless two naturals can start one."""
        if not (naturals or wilds or more >= 2):
            return 0
        if self.closes_at:  # S-7: several melds in turn, each with no more wild cards
            return max(0, naturals + more - wilds)  # than naturals
        most = min(self.max_wilds, naturals + more - self.rules.min_natural_excess)
        return max(0, most - wilds)

    def _suffix_id(self, position: int) -> int:
        """A small id of (the position, the facts of the turn, the untouched slots after it)."""
        found = self.suffix_ids[position]
        if found is None:
            # the first untouched rank
            rank = ORDER[position] + 1 if position >= FIRST_NATURAL else 0
            key = (
                position,
                self.turn_facts,
                tuple(self.start_meld[position + 1 :]),
                tuple(self.hand_nat[rank:]),
                tuple(self.held_nat[rank:]),
            )
            ids = self.search.suffixes
            found = ids.get(key)
            if found is None:
                found = ids[key] = len(ids)
            self.suffix_ids[position] = found
        return found

    def run(self) -> bool:
        node = self.node
        limit = sys.getrecursionlimit()
        depth = 4 * (node.total + (sum(node.held) if self.has_held else 0)) + 200
        if limit < depth:
            sys.setrecursionlimit(depth)
        try:
            return self._visit(self._first_state())
        finally:
            if limit < depth:
                sys.setrecursionlimit(limit)

    def _first_state(self) -> _SlotState:
        """The state at the black-3 slot, before any move: the node's cards, its points
        staged and its finished canastas (S-7) counted."""
        node = self.node
        hand, held = node.hand, node.held
        canastas = clean = dirty = 0
        black3_closed = False
        for slot, naturals, twos, jokers, _ in node.closed:
            canastas += 1
            if canasta_kind(slot, naturals, twos, jokers)[0]:
                clean += 1
            else:
                dirty += 1
            black3_closed = black3_closed or slot == SLOT_BLACK3
        has_held = self.has_held
        state = _new_slot_state(_SlotState)
        state.position = 0
        state.naturals_in_slot, state.twos_in_slot, state.jokers_in_slot = self.start_meld[0]
        state.naturals_in_hand = state.naturals_held = 0
        state.run_after_opening = state.wild_added = False
        state.black3s_in_hand = hand[BLACK3]
        state.twos_in_hand = hand[TWO]
        state.jokers_in_hand = hand[JOKER]
        state.black3s_held = held[BLACK3] if has_held else 0
        state.twos_held = held[TWO] if has_held else 0
        state.jokers_held = held[JOKER] if has_held else 0
        state.staged = min(node.staged, self.need)
        state.hidden_open = node.hidden_open
        state.moved_after_opening = False
        state.canastas = min(canastas, self.count_cap)
        state.has_clean = clean > 0
        state.has_dirty = dirty > 0
        state.has_black3_canasta = black3_closed
        state.must_go_out = False
        state.left_in_hand = state.left_held = 0
        return state

    def _visit(self, state: _SlotState) -> bool:
        """Can the turn end legally from this state (see :class:`_SlotState`)? Its answer
        is memoised for the turn, under the id of its suffix and its fields."""
        opened = self.was_opened or state.staged >= self.need or state.hidden_open
        position = state.position
        if position >= FIRST_NATURAL:
            if state.jokers_held:  # held wild cards are laid after the opening: one count
                state.twos_held += state.jokers_held
                state.jokers_held = 0
            if opened and state.jokers_in_hand:  # the points no longer matter: one count
                state.twos_in_hand += state.jokers_in_hand
                state.jokers_in_hand = 0
        escape = self.b3_escape and state.has_black3_canasta
        must_empty = position > 0 and state.must_go_out and not escape  # C-7
        staged = state.staged
        if (
            staged < self.need
            and not (self.was_opened or state.hidden_open or self.may_hide)
            and staged + self._points_bound(state) < self.need
        ):
            # G-5: the opening is out of reach; only a concealed going out (C-15) is left
            if not self.concealed_ok:
                return False
            must_empty = position > 0
        if must_empty and self._stranded(state):
            return False
        key = state.memo_key(self._suffix_id(position))
        memo = self.memo
        found = memo.get(key)
        if found is not None:
            return found
        memo[key] = False  # every move melds a card: no cycle, but be safe
        result = self._ends(state) or self._step(state)
        memo[key] = result
        return result

    def _stranded(self, state: _SlotState) -> bool:
        """Where only going out can end the turn: are two cards sure to stay in hand
        (cards of the slots passed, black 3s once their slot is passed, naturals a run
        that laid wild cards can no longer add, wild cards beyond the room left on
        natural melds)?"""
        naturals = state.naturals_in_hand + state.naturals_held
        frozen = (
            state.wild_added
            and not self.closes_at
            and (state.run_after_opening or not self.has_held)
        )
        behind = (
            state.left_in_hand
            + state.left_held
            + state.black3s_in_hand
            + state.black3s_held
            + (naturals if frozen else 0)
        )
        if behind >= 2:
            return True
        position = state.position
        if position >= FIRST_NATURAL or not self.rules.wild_melds:
            room = self.suffix_room[position + 1]
            if position >= FIRST_NATURAL:
                room += self._room(state.naturals_in_slot, state.twos_in_slot, naturals)
            wilds = state.twos_in_hand + state.jokers_in_hand + state.twos_held + state.jokers_held
            return wilds - room + behind >= 2
        return False

    def _points_bound(self, state: _SlotState) -> int:
        """At least the points the moves from here before the opening can add (G-2, G-5)."""
        position = state.position
        bound = (
            CARD_VALUES[TWO] * state.twos_in_hand
            + CARD_VALUES[JOKER] * state.jokers_in_hand
            + self.suffix_points[position + 1]
        )
        if position == 0 and self.rules.black3_melds:
            bound += CARD_VALUES[BLACK3] * state.black3s_in_hand
        slot = ORDER[position]
        naturals = state.naturals_in_hand
        if slot < NUM_NATURALS and (
            naturals >= 2
            or (naturals and state.naturals_in_slot + state.twos_in_slot + state.jokers_in_slot)
        ):
            bound += CARD_VALUES[slot] * naturals
        return bound

    def _ends(self, state: _SlotState) -> bool:
        """May the turn end here, with no further meld (the end checks of C-7, C-13..C-15,
        G-5, S-11, S-15, S-16, I-11)?"""
        rules = self.rules
        opened = self.was_opened or state.staged >= self.need or state.hidden_open
        if state.moved_after_opening and not opened:
            return False  # moves made from held cards need the opening
        position = state.position
        current = position < len(ORDER) and ORDER[position] < NUM_NATURALS
        after = min(position + 1, len(ORDER))
        total = (
            state.left_in_hand
            + (state.naturals_in_hand if current else 0)
            + self.suffix_hand[after]
            + state.black3s_in_hand
            + state.twos_in_hand
            + state.jokers_in_hand
        )
        if opened and self.has_held:  # C-8: the held pot cards have joined the hand
            total += (
                state.left_held
                + (state.naturals_held if current else 0)
                + self.suffix_held[after]
                + state.black3s_held
                + state.twos_held
                + state.jokers_held
            )
        canastas, clean, dirty = state.canastas, state.has_clean, state.has_dirty
        black3_canasta, must_go_out = state.has_black3_canasta, state.must_go_out
        if position < len(ORDER):  # the slot being worked on, then the untouched ones
            more, more_clean, more_dirty = self.suffix_counts[position + 1]
            naturals, twos = state.naturals_in_slot, state.twos_in_slot
            jokers = state.jokers_in_slot
            if naturals + twos + jokers >= self.canasta_size:
                more += 1
                if canasta_kind(ORDER[position], naturals, twos, jokers)[0]:
                    more_clean += 1
                else:
                    more_dirty += 1
            canastas += more
            clean += more_clean
            dirty += more_dirty
            if position == 0:  # the black-3 slot
                black3_canasta = black3_canasta or naturals >= self.canasta_size
                must_go_out = rules.black3_meld_only_going_out and naturals > 0
        if self.b3_escape and opened and total and black3_canasta:
            return True  # S-11, with a card left (S-16)
        if not must_go_out and opened and total >= 2:
            return True  # a discard ends the turn
        if total >= 2:
            return False
        if not (opened or self.concealed_ok) or not canastas_let_go_out(
            rules, canastas, clean, dirty
        ):
            return False
        if rules.no_go_out_on_first_clean_turn and clean and not self.had_clean:
            return False  # S-15
        return total == 1 or not rules.go_out_needs_discard

    def _step(self, state: _SlotState) -> bool:
        """The moves of the slot at ``state.position`` (before the opening, then after
        it), then the next slot."""
        position = state.position
        if position >= len(ORDER):
            return False
        slot = ORDER[position]
        if slot == SLOT_BLACK3:
            if self._advance(state):
                return True  # black 3s left in hand: the least binding way on (C-7)
            in_hand, held = state.black3s_in_hand, state.black3s_held
        else:
            in_hand, held = state.naturals_in_hand, state.naturals_held
        for after_opening in (False, True):
            if after_opening:
                if not self.has_held:
                    break
                run_wild = state.wild_added if state.run_after_opening else False
                moves = self._slot_moves(
                    state,
                    run_wild,
                    in_hand + held,
                    state.twos_in_hand + state.twos_held,
                    state.jokers_in_hand + state.jokers_held,
                )
            else:
                if state.run_after_opening:
                    continue
                run_wild = state.wild_added
                moves = self._slot_moves(
                    state, run_wild, in_hand, state.twos_in_hand, state.jokers_in_hand
                )
            for move in moves:
                if self._visit(self._after_move(state, move, after_opening, run_wild)):
                    return True
        if slot != SLOT_BLACK3:
            return self._advance(state)
        return False

    def _after_move(
        self, state: _SlotState, move, after_opening: bool, run_wild: bool
    ) -> _SlotState:
        """The state after one of :meth:`_slot_moves`' moves on the slot at
        ``state.position``, in the run before the opening (cards from the hand, points
        staged) or in the run after it (held cards first: the hand's serve the runs
        before)."""
        naturals, twos, jokers, is_new = move
        slot = ORDER[state.position]
        natural = slot < NUM_NATURALS
        if slot == SLOT_BLACK3:
            in_hand, held = state.black3s_in_hand, state.black3s_held
        else:
            in_hand, held = state.naturals_in_hand, state.naturals_held
        twos_in_hand, jokers_in_hand = state.twos_in_hand, state.jokers_in_hand
        twos_held, jokers_held = state.twos_held, state.jokers_held
        child = state.copy()
        if after_opening:
            from_held = min(naturals, held)
            in_hand -= naturals - from_held
            held -= from_held
            if natural:  # a wild count: held ones, then 2s, then jokers
                from_held = min(twos, twos_held)
                child.twos_held = twos_held - from_held
                from_hand = twos - from_held
                from_twos = min(from_hand, twos_in_hand)
                child.twos_in_hand = twos_in_hand - from_twos
                child.jokers_in_hand = jokers_in_hand - (from_hand - from_twos)
            else:
                from_held = min(twos, twos_held)
                child.twos_in_hand = twos_in_hand - (twos - from_held)
                child.twos_held = twos_held - from_held
                from_held = min(jokers, jokers_held)
                child.jokers_in_hand = jokers_in_hand - (jokers - from_held)
                child.jokers_held = jokers_held - from_held
        else:
            in_hand -= naturals
            if natural:  # a wild count: jokers first (the most points)
                laid_jokers = min(twos, jokers_in_hand)
                laid_twos = twos - laid_jokers
            else:
                laid_twos, laid_jokers = twos, jokers
            child.twos_in_hand = twos_in_hand - laid_twos
            child.jokers_in_hand = jokers_in_hand - laid_jokers
            if not self.was_opened:
                need = self.need
                if state.staged < need:
                    points = meld_points(slot, naturals, laid_twos, laid_jokers)
                    child.staged = min(need, state.staged + points)
                if (
                    is_new
                    and self.rules.hidden_canasta_opens
                    and naturals + twos + jokers == self.canasta_size
                ):
                    child.hidden_open = True
        if slot == SLOT_BLACK3:
            child.black3s_in_hand, child.black3s_held = in_hand, held
        else:
            child.naturals_in_hand, child.naturals_held = in_hand, held
        meld_naturals = state.naturals_in_slot + naturals
        meld_twos = state.twos_in_slot + twos
        meld_jokers = state.jokers_in_slot + jokers
        if self.closes_at:  # S-7: a full meld closes and its slot empties
            limit = self.rules.wild_meld_max_size if slot == SLOT_WILD else self.closes_at
            if meld_naturals + meld_twos + meld_jokers >= limit:
                child.canastas = min(state.canastas + 1, self.count_cap)
                if canasta_kind(slot, meld_naturals, meld_twos, meld_jokers)[0]:
                    child.has_clean = True
                else:
                    child.has_dirty = True
                child.has_black3_canasta = state.has_black3_canasta or slot == SLOT_BLACK3
                meld_naturals = meld_twos = meld_jokers = 0
        child.naturals_in_slot = meld_naturals
        child.twos_in_slot = meld_twos
        child.jokers_in_slot = meld_jokers
        child.run_after_opening = after_opening
        child.wild_added = run_wild or (natural and twos > 0 and not self.closes_at)
        child.moved_after_opening = state.moved_after_opening or after_opening
        return child

    def _advance(self, state: _SlotState) -> bool:
        """The slot at ``state.position`` is done: what the end needs of it is folded
        into the counts, and the search goes on at the next slot."""
        position = state.position
        slot = ORDER[position]
        naturals, twos, jokers = state.naturals_in_slot, state.twos_in_slot, state.jokers_in_slot
        following = state.copy()
        if naturals + twos + jokers >= self.canasta_size:
            following.canastas = min(state.canastas + 1, self.count_cap)
            if canasta_kind(slot, naturals, twos, jokers)[0]:
                following.has_clean = True
            else:
                following.has_dirty = True
            if slot == SLOT_BLACK3:
                following.has_black3_canasta = True
        if slot < NUM_NATURALS:
            following.left_in_hand = min(2, state.left_in_hand + state.naturals_in_hand)
            following.left_held = min(2, state.left_held + state.naturals_held)
        elif slot == SLOT_BLACK3:
            following.must_go_out = self.rules.black3_meld_only_going_out and naturals > 0
        position += 1
        following.position = position
        following.run_after_opening = following.wild_added = False
        if position >= len(ORDER):
            following.naturals_in_slot = following.twos_in_slot = following.jokers_in_slot = 0
            following.naturals_in_hand = following.naturals_held = 0
            return self._ends(following)
        rank = ORDER[position]
        if rank < NUM_NATURALS:
            following.naturals_in_hand = self.hand_nat[rank]
            following.naturals_held = self.held_nat[rank]
        else:
            following.naturals_in_hand = following.naturals_held = 0
        meld = self.start_meld[position]
        following.naturals_in_slot, following.twos_in_slot, following.jokers_in_slot = meld
        return self._visit(following)

    def _slot_moves(self, state: _SlotState, wild_added: bool, naturals, twos, jokers):
        """The meld moves onto the slot at ``state.position`` of a run that may lay these
        naturals (black 3s on the black-3 slot), 2s and jokers, as
        :func:`~canasta_env.engine.melds.meld_moves` offers them: (naturals, twos, jokers,
        is new) of each; on a natural slot (naturals, wild cards, 0, is new)."""
        rules = self.rules
        clean_only = self.clean_only
        slot = ORDER[state.position]
        in_slot_naturals, in_slot_twos = state.naturals_in_slot, state.twos_in_slot
        moves = []
        if slot < NUM_NATURALS:
            wilds = twos + jokers
            natural_ok = self.natural_ok
            if in_slot_naturals or in_slot_twos:
                # without closing melds a run lays its naturals before its wild cards
                if (
                    naturals
                    and natural_ok[in_slot_naturals + 1][in_slot_twos]
                    and not (wild_added and not self.closes_at)
                ):
                    moves.append((1, 0, 0, False))
                if wilds and not clean_only and natural_ok[in_slot_naturals][in_slot_twos + 1]:
                    moves.append((0, 1, 0, False))
            elif naturals >= 2:
                for laid, laid_wilds in self.tables.new_natural_counts(naturals, wilds, clean_only):
                    moves.append((laid, laid_wilds, 0, True))
        elif slot == SLOT_BLACK3:
            if rules.black3_melds and naturals:
                if in_slot_naturals:
                    if in_slot_naturals < rules.black3_meld_max_size:
                        moves.append((1, 0, 0, False))
                else:
                    least = max(3, rules.min_meld_size)
                    for laid in range(least, min(naturals, rules.black3_meld_max_size) + 1):
                        moves.append((laid, 0, 0, True))
        elif rules.wild_melds and (twos or jokers):
            size = in_slot_twos + state.jokers_in_slot
            if size:
                if size < rules.wild_meld_max_size and not clean_only:
                    if twos:
                        moves.append((0, 1, 0, False))
                    if jokers:
                        moves.append((0, 0, 1, False))
            else:
                clean_set = self.tables.clean_wild_openings
                for laid_twos, laid_jokers, _ in self.tables.new_wild:
                    if laid_twos <= twos and laid_jokers <= jokers:
                        if clean_only and (laid_twos, laid_jokers) not in clean_set:
                            continue
                        moves.append((0, laid_twos, laid_jokers, True))
        return moves
