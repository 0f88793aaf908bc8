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
        goo = going_out_only(rules, node.nat)
        if opened and total >= 2 and not goo:
            return True  # a discard ends the turn (the search's first answer, at once)
        if not opened and not goo and self._opens_plainly(node, need):
            return True
        if not self._may_end(node, need, opened, goo):
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
        if goo:  # only going out ends the turn (C-7): the slot search prunes that best
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

    def _may_end(self, node: Node, need: int, opened: bool, goo: bool) -> bool:
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
            rules, node.hand, node.held, node.nat, node.two, node.jok, len(closed), clean,
            game.had_clean_at_turn_start,
        )  # fmt: skip
        if goo and not out and not escape:
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
    and black 3s left, and the untouched slots after it.

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
        "suffix_counts", "count_cap", "closes_at", "canasta_size", "ok", "clean_only",
        "had_clean", "suffix_points", "may_hide", "start", "fixed", "b3_escape",
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
        self.ok = self.tables.natural_ok
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
        self.start = [
            (nat[slot], two[slot] + jok[slot], 0)
            if slot < NUM_NATURALS
            else (nat[slot], two[slot], jok[slot])
            for slot in ORDER
        ]
        # the untouched positions from i on: cards in hand and held, canastas, and an
        # upper bound on the points they can add to an opening (G-2, G-5)
        size = self.canasta_size
        length = len(ORDER)
        self.suffix_hand = [0] * (length + 1)
        self.suffix_held = [0] * (length + 1)
        self.suffix_points = [0] * (length + 1)
        self.suffix_counts = [(0, 0, 0)] * (length + 1)
        self.suffix_room = [0] * (length + 1)  # wild cards the natural slots can still take
        self.max_wilds = rules.max_wilds_per_meld
        for i in range(length - 1, -1, -1):
            slot = ORDER[i]
            n, t, j = self.start[i]
            natural = slot < NUM_NATURALS
            in_hand = self.hand_nat[slot] if natural else 0
            self.suffix_hand[i] = self.suffix_hand[i + 1] + in_hand
            self.suffix_held[i] = self.suffix_held[i + 1] + (self.held_nat[slot] if natural else 0)
            meldable = in_hand >= 2 or (in_hand and n + t + j)
            self.suffix_points[i] = self.suffix_points[i + 1] + (
                CARD_VALUES[slot] * in_hand if natural and meldable else 0
            )
            if rules.black3_meld_only_going_out or self.concealed_ok:  # read then only
                room = self._room(n, t, in_hand + self.held_nat[slot]) if natural else 0
                self.suffix_room[i] = self.suffix_room[i + 1] + room
            count, clean, dirty = self.suffix_counts[i + 1]
            if n + t + j >= size:
                count += 1
                if canasta_kind(slot, n, t, j)[0]:
                    clean += 1
                else:
                    dirty += 1
            self.suffix_counts[i] = (count, clean, dirty)
        self.fixed = (
            self.need, self.was_opened, node.took, node.clean_only, self.has_held,
            self.had_clean,
        )  # fmt: skip
        self.suffix_ids = [None] * (length + 1)

    def _room(self, n: int, wilds: int, more: int) -> int:
        """At most how many more wild cards a natural meld of ``n`` naturals and ``wilds``
        wild cards takes with ``more`` naturals to come (C-5, S-7, I-5: at most
        ``max_wilds_per_meld``, and ``min_natural_excess`` fewer than its naturals, a bound
        that holds for each meld of a slot whose melds close); a slot without a meld takes
        none unless two naturals can start one."""
        if not (n or wilds or more >= 2):
            return 0
        if self.closes_at:  # S-7: several melds in turn, each with no more wild cards
            return max(0, n + more - wilds)  # than naturals
        return max(0, min(self.max_wilds, n + more - self.rules.min_natural_excess) - wilds)

    def _suffix_id(self, i: int) -> int:
        """A small id of (position i, the facts of the turn, the untouched slots after it)."""
        found = self.suffix_ids[i]
        if found is None:
            rank = ORDER[i] + 1 if i >= FIRST_NATURAL else 0  # the first untouched rank
            key = (
                i,
                self.fixed,
                tuple(self.start[i + 1 :]),
                tuple(self.hand_nat[rank:]),
                tuple(self.held_nat[rank:]),
            )
            ids = self.search.suffixes
            found = ids.get(key)
            if found is None:
                found = ids[key] = len(ids)
            self.suffix_ids[i] = found
        return found

    def run(self) -> bool:
        node = self.node
        hand, held = node.hand, node.held
        count = clean = dirty = 0
        b3_canasta = False
        for slot, n, twos, jokers, _ in node.closed:
            count += 1
            if canasta_kind(slot, n, twos, jokers)[0]:
                clean += 1
            else:
                dirty += 1
            b3_canasta = b3_canasta or slot == SLOT_BLACK3
        has_held = self.has_held
        limit = sys.getrecursionlimit()
        depth = 4 * (node.total + (sum(held) if has_held else 0)) + 200
        if limit < depth:
            sys.setrecursionlimit(depth)
        n, t, j = self.start[0]
        try:
            return self._visit(
                0, n, t, j, 0, 0, False, False, hand[BLACK3], hand[TWO], hand[JOKER],
                held[BLACK3] if has_held else 0,
                held[TWO] if has_held else 0,
                held[JOKER] if has_held else 0,
                min(node.staged, self.need), node.hidden_open, False,
                min(count, self.count_cap), min(clean, 1), min(dirty, 1), b3_canasta,
                False, 0, 0,
            )  # fmt: skip
        finally:
            if limit < depth:
                sys.setrecursionlimit(limit)

    def _visit(
        self, i, cn, ct, cj, hn, qn, post, wild_added, hb, ht, hj, qb, qt, qj, staged, hidden,
        used_post, count, clean, dirty, b3c, goo, left_hand, left_held,
    ) -> bool:  # fmt: skip
        """Can the turn end legally from this state? ``i``: the position (in ORDER) of the
        slot whose moves are being taken; ``cn ct cj``: its meld (a natural slot's wild
        cards in ``ct``); ``hn qn``: its natural in hand and held; ``post``: its moves
        after the opening have begun; ``wild_added``: this run laid a wild card on it;
        ``hb ht hj`` / ``qb qt qj``: black 3s, 2s and jokers in hand / held; ``staged``:
        opening points (capped); ``used_post``: a move after the opening was made;
        ``count clean dirty b3c``: canastas of the slots passed (capped); ``goo``: a
        black-3 meld lies on the table; ``left_hand left_held``: cards of the slots passed
        still in hand / held (capped at 2)."""
        opened = self.was_opened or staged >= self.need or hidden
        if i >= FIRST_NATURAL:
            qt, qj = qt + qj, 0  # held wild cards are laid after the opening: one count
            if opened:
                ht, hj = ht + hj, 0  # the points no longer matter: one count
        must_empty = i > 0 and goo and not (self.b3_escape and b3c)  # C-7
        if (
            staged < self.need
            and not (self.was_opened or hidden or self.may_hide)
            and staged + self._points_bound(i, cn, ct, cj, hn, hb, ht, hj) < self.need
        ):
            # G-5: the opening is out of reach; only a concealed going out (C-15) is left
            if not self.concealed_ok:
                return False
            must_empty = i > 0
        if must_empty and self._stranded(
            i, cn, ct, hn, qn, wild_added, post, hb, ht, hj, qb, qt, qj, left_hand, left_held
        ):
            return False
        key = (
            self._suffix_id(i), cn, ct, cj, hn, qn, post, wild_added, hb, ht, hj, qb, qt, qj,
            staged, hidden, used_post, count, clean, dirty, b3c, goo, left_hand, left_held,
        )  # fmt: skip
        memo = self.memo
        found = memo.get(key)
        if found is not None:
            return found
        memo[key] = False  # every move melds a card: no cycle, but be safe
        result = self._ends(
            i, cn, ct, cj, hn, qn, hb, ht, hj, qb, qt, qj, staged, hidden, used_post,
            count, clean, dirty, b3c, goo, left_hand, left_held,
        ) or self._step(
            i, cn, ct, cj, hn, qn, post, wild_added, hb, ht, hj, qb, qt, qj, staged, hidden,
            used_post, count, clean, dirty, b3c, goo, left_hand, left_held,
        )  # fmt: skip
        memo[key] = result
        return result

    def _stranded(
        self, i, cn, ct, hn, qn, wild_added, post, hb, ht, hj, qb, qt, qj, left_hand, left_held
    ) -> bool:  # fmt: skip
        """Where only going out can end the turn: are two cards sure to stay in hand
        (cards of the slots passed, black 3s once their slot is passed, naturals a run
        that laid wild cards can no longer add, wild cards beyond the room left on
        natural melds)?"""
        frozen = wild_added and not self.closes_at and (post or not self.has_held)
        behind = left_hand + left_held + hb + qb + (hn + qn if frozen else 0)
        if behind >= 2:
            return True
        if i >= FIRST_NATURAL or not self.rules.wild_melds:
            room = self.suffix_room[i + 1]
            if i >= FIRST_NATURAL:
                room += self._room(cn, ct, hn + qn)
            return ht + hj + qt + qj - room + behind >= 2
        return False

    def _points_bound(self, i, cn, ct, cj, hn, hb, ht, hj) -> int:
        """At least the points the moves from here before the opening can add (G-2, G-5)."""
        bound = CARD_VALUES[TWO] * ht + CARD_VALUES[JOKER] * hj + self.suffix_points[i + 1]
        if i == 0 and self.rules.black3_melds:
            bound += CARD_VALUES[BLACK3] * hb
        slot = ORDER[i]
        if slot < NUM_NATURALS and (hn >= 2 or (hn and cn + ct + cj)):
            bound += CARD_VALUES[slot] * hn
        return bound

    def _ends(
        self, i, cn, ct, cj, hn, qn, hb, ht, hj, qb, qt, qj, staged, hidden, used_post,
        count, clean, dirty, b3c, goo, left_hand, left_held,
    ) -> bool:  # fmt: skip
        """May the turn end here, with no further meld (the end checks of C-7, C-13..C-15,
        G-5, S-11, S-15, S-16, I-11)?"""
        rules = self.rules
        opened = self.was_opened or staged >= self.need or hidden
        if used_post and not opened:
            return False  # moves made from held cards need the opening
        current = i < len(ORDER) and ORDER[i] < NUM_NATURALS
        after = min(i + 1, len(ORDER))
        total = left_hand + (hn if current else 0) + self.suffix_hand[after] + hb + ht + hj
        if opened and self.has_held:  # C-8: the held pot cards have joined the hand
            total += left_held + (qn if current else 0) + self.suffix_held[after] + qb + qt + qj
        if i < len(ORDER):  # the slot being worked on, then the untouched ones
            extra_count, extra_clean, extra_dirty = self.suffix_counts[i + 1]
            if cn + ct + cj >= self.canasta_size:
                extra_count += 1
                if canasta_kind(ORDER[i], cn, ct, cj)[0]:
                    extra_clean += 1
                else:
                    extra_dirty += 1
            count += extra_count
            clean += extra_clean
            dirty += extra_dirty
            if i == 0:  # the black-3 slot
                b3c = b3c or cn >= self.canasta_size
                goo = rules.black3_meld_only_going_out and cn > 0
        if self.b3_escape and opened and total and b3c:
            return True  # S-11, with a card left (S-16)
        if not goo and opened and total >= 2:
            return True  # a discard ends the turn
        if total >= 2:
            return False
        if not (opened or self.concealed_ok) or not canastas_let_go_out(rules, count, clean, dirty):
            return False
        if rules.no_go_out_on_first_clean_turn and clean and not self.had_clean:
            return False  # S-15
        return total == 1 or not rules.go_out_needs_discard

    def _step(
        self, i, cn, ct, cj, hn, qn, post, wild_added, hb, ht, hj, qb, qt, qj, staged, hidden,
        used_post, count, clean, dirty, b3c, goo, left_hand, left_held,
    ) -> bool:  # fmt: skip
        """The moves of the slot at ``i`` (before the opening, then after it), then the
        next slot."""
        if i >= len(ORDER):
            return False
        visit = self._visit
        rules = self.rules
        slot = ORDER[i]
        natural = slot < NUM_NATURALS
        if slot == SLOT_BLACK3:
            have, held_have = hb, qb
        else:
            have, held_have = hn, qn
        need = self.need
        if slot == SLOT_BLACK3 and self._advance(
            i, cn, ct, cj, hn, qn, hb, ht, hj, qb, qt, qj, staged, hidden, used_post,
            count, clean, dirty, b3c, goo, left_hand, left_held,
        ):  # fmt: skip
            return True  # black 3s left in hand: the least binding way on (C-7)
        for after_opening in (False, True):
            if after_opening:
                if not self.has_held:
                    break
                run_wild = wild_added if post else False
                pool = (have + held_have, ht + qt, hj + qj)
            else:
                if post:
                    continue
                run_wild = wild_added
                pool = (have, ht, hj)
            for naturals, twos, jokers, is_new in self._slot_moves(i, cn, ct, cj, run_wild, *pool):
                if after_opening:  # held cards first: the hand's serve the runs before
                    from_held = min(naturals, held_have)
                    h_nat, q_nat = have - (naturals - from_held), held_have - from_held
                    if natural:  # a wild count: held ones, then 2s, then jokers
                        wilds = twos
                        from_held = min(wilds, qt)
                        q_two, q_jok = qt - from_held, qj
                        rest = wilds - from_held
                        h_two = ht - min(rest, ht)
                        h_jok = hj - (rest - min(rest, ht))
                    else:
                        from_held = min(twos, qt)
                        h_two, q_two = ht - (twos - from_held), qt - from_held
                        from_held = min(jokers, qj)
                        h_jok, q_jok = hj - (jokers - from_held), qj - from_held
                    new_staged, new_hidden = staged, hidden
                else:
                    h_nat, q_nat = have - naturals, held_have
                    q_two, q_jok = qt, qj
                    if natural:  # a wild count: jokers first (the most points)
                        wilds = twos
                        laid_jokers = min(wilds, hj)
                        laid_twos = wilds - laid_jokers
                        h_two, h_jok = ht - laid_twos, hj - laid_jokers
                    else:
                        laid_twos, laid_jokers = twos, jokers
                        h_two, h_jok = ht - twos, hj - jokers
                    new_staged, new_hidden = staged, hidden
                    if not self.was_opened:
                        if staged < need:
                            new_staged = min(
                                need, staged + meld_points(slot, naturals, laid_twos, laid_jokers)
                            )
                        if (
                            is_new
                            and rules.hidden_canasta_opens
                            and naturals + twos + jokers == self.canasta_size
                        ):
                            new_hidden = True
                n, t, j = cn + naturals, ct + twos, cj + jokers
                new_count, new_clean, new_dirty, new_b3c = count, clean, dirty, b3c
                if self.closes_at:  # S-7: a full meld closes and its slot empties
                    limit = rules.wild_meld_max_size if slot == SLOT_WILD else self.closes_at
                    if n + t + j >= limit:
                        new_count = min(count + 1, self.count_cap)
                        if canasta_kind(slot, n, t, j)[0]:
                            new_clean = 1
                        else:
                            new_dirty = 1
                        new_b3c = b3c or slot == SLOT_BLACK3
                        n = t = j = 0
                new_wild = run_wild or (natural and twos > 0 and not self.closes_at)
                if slot == SLOT_BLACK3:
                    nat_args = (hn, qn, after_opening, new_wild, h_nat)
                    held_b3 = q_nat
                else:
                    nat_args = (h_nat, q_nat, after_opening, new_wild, hb)
                    held_b3 = qb
                if visit(
                    i, n, t, j, *nat_args, h_two, h_jok, held_b3, q_two, q_jok, new_staged,
                    new_hidden, used_post or after_opening, new_count, new_clean, new_dirty,
                    new_b3c, goo, left_hand, left_held,
                ):  # fmt: skip
                    return True
        if slot != SLOT_BLACK3:
            return self._advance(
                i, cn, ct, cj, hn, qn, hb, ht, hj, qb, qt, qj, staged, hidden, used_post,
                count, clean, dirty, b3c, goo, left_hand, left_held,
            )  # fmt: skip
        return False

    def _advance(
        self, i, cn, ct, cj, hn, qn, hb, ht, hj, qb, qt, qj, staged, hidden, used_post,
        count, clean, dirty, b3c, goo, left_hand, left_held,
    ) -> bool:  # fmt: skip
        """The slot at ``i`` is done: what the end needs of it is folded into the counts,
        and the search goes on at the next slot."""
        rules = self.rules
        slot = ORDER[i]
        natural = slot < NUM_NATURALS
        visit = self._visit
        if cn + ct + cj >= self.canasta_size:
            count = min(count + 1, self.count_cap)
            if canasta_kind(slot, cn, ct, cj)[0]:
                clean = 1
            else:
                dirty = 1
            if slot == SLOT_BLACK3:
                b3c = True
        if natural:
            left_hand = min(2, left_hand + hn)
            left_held = min(2, left_held + qn)
        elif slot == SLOT_BLACK3:
            goo = rules.black3_meld_only_going_out and cn > 0
        nxt = i + 1
        if nxt >= len(ORDER):
            return self._ends(
                nxt, 0, 0, 0, 0, 0, hb, ht, hj, qb, qt, qj, staged, hidden, used_post,
                count, clean, dirty, b3c, goo, left_hand, left_held,
            )  # fmt: skip
        rank = ORDER[nxt]
        if rank < NUM_NATURALS:
            hn, qn = self.hand_nat[rank], self.held_nat[rank]
        else:
            hn = qn = 0
        n, t, j = self.start[nxt]
        return visit(
            nxt, n, t, j, hn, qn, False, False, hb, ht, hj, qb, qt, qj, staged, hidden,
            used_post, count, clean, dirty, b3c, goo, left_hand, left_held,
        )  # fmt: skip

    def _slot_moves(self, i, cn, ct, cj, wild_added, have, twos_in_hand, jokers_in_hand):
        """The meld moves onto the slot at ``i`` with these cards, as
        :func:`~canasta_env.engine.melds.meld_moves` offers them: (naturals, twos,
        jokers, is new) of each; on a natural slot (naturals, wild cards, 0, is new)."""
        rules = self.rules
        clean_only = self.clean_only
        slot = ORDER[i]
        moves = []
        if slot < NUM_NATURALS:
            wilds_in_hand = twos_in_hand + jokers_in_hand
            ok = self.ok
            if cn or ct:
                # without closing melds a run lays its naturals before its wild cards
                if have and ok[cn + 1][ct] and not (wild_added and not self.closes_at):
                    moves.append((1, 0, 0, False))
                if wilds_in_hand and not clean_only and ok[cn][ct + 1]:
                    moves.append((0, 1, 0, False))
            elif have >= 2:
                for n, wilds in self.tables.new_natural_counts(have, wilds_in_hand, clean_only):
                    moves.append((n, wilds, 0, True))
        elif slot == SLOT_BLACK3:
            if rules.black3_melds and have:
                if cn:
                    if cn < rules.black3_meld_max_size:
                        moves.append((1, 0, 0, False))
                else:
                    least = max(3, rules.min_meld_size)
                    for n in range(least, min(have, rules.black3_meld_max_size) + 1):
                        moves.append((n, 0, 0, True))
        elif rules.wild_melds and (twos_in_hand or jokers_in_hand):
            size = ct + cj
            if size:
                if size < rules.wild_meld_max_size and not clean_only:
                    if twos_in_hand:
                        moves.append((0, 1, 0, False))
                    if jokers_in_hand:
                        moves.append((0, 0, 1, False))
            else:
                clean_set = self.tables.clean_wild_openings
                for twos, jokers, _ in self.tables.new_wild:
                    if twos <= twos_in_hand and jokers <= jokers_in_hand:
                        if clean_only and (twos, jokers) not in clean_set:
                            continue
                        moves.append((0, twos, jokers, True))
        return moves
