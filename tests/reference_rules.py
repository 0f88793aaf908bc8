"""An independent, brute-force reference for the legal actions of a Canasta state.

``reference_legal(game)`` decides, for each of the 500 action ids, whether the
rules contract (``RULES.md``) allows it in the game's current state. It is
written from RULES.md and the action table of :mod:`canasta_env.actions` only:
it never imports ``canasta_env.engine.melds`` or ``canasta_env.engine.opening``
and never calls the engine's legality code. It reads the rules fields and the
game's state attributes, and keeps its own plain copies of the hand and melds.

Each id is legal when (1) the single action is allowed by the rules (meld
composition, pot take conditions, frozen/crossed/blocked pot, black 3s, wild
melds, clean openings, ...) and (2) the *turn guard* holds: some sequence of
further meld moves, found by an exhaustive depth-first search, reaches a
legal end of the turn:

* the team has opened (G-5) and keeps at least two cards, so that it can
  discard one and keep one (C-13, S-16, I-11); or
* the player goes out (C-14, C-15, S-15, I-11): one card left to discard, or
  none left after a meld where the preset allows going out without a discard;
  or
* the team completes a canasta of seven black 3s with its opening made (S-11):
  the game ends at once.

The search is a plain depth-first search over the meld actions of the action
table, memoised on the node (hand, pot cards held aside, the team's melds, the
points staged toward the opening, opened or not). It cuts a branch only with
necessary conditions that are easy to check by eye: an upper bound on the
points the hand can still lay toward the opening, and, where only going out
can end the turn, the cards that no meld can ever take, the canastas still
within reach and the wild cards that lone pairs and the missing canasta need.

Readings of RULES.md this checker makes (where the contract is not explicit):

* R1 (C-8, S-5, I-7): pot cards other than the top card reach the hand only
  once the taking team's opening minimum is met in that turn; until then they
  cannot be melded (they do not count toward the minimum).
* R2 (I-10): an opening that must be clean (50 level, or any unopened pot
  take) keeps the whole opening turn clean: no wild card is melded in that
  turn except the clean wild melds of ``clean_opening_wild_melds``.
* R3 (I-4): the card drawn after taking the pot is unknown when the take is
  decided, but it is certain to arrive while the stock has a card, so the
  guard of a take counts it as one card that can be kept or discarded (any
  real card can be used that way, and a red 3 is replaced).
* R4 (C-7): black 3s may be melded in classic only in a turn in which the
  player goes out; once a black-3 meld is on the table the turn may end only by
  going out (other melds may still follow the black-3 meld).
* R5 (S-11, S-16): completing a black-3 canasta ends the game at once, so it
  is a legal end of the turn whatever cards are left, provided the team's
  opening is made (G-5, S-8); a move that also empties the hand needs going
  out to be allowed (S-16).
* R6 (C-16): with the stock exhausted, a player may decline the pot ("pass")
  unless the rules force the take: the top card matches an unfinished meld of
  the team and the pot is not frozen.
* R7 (C-3, S-3, I-3, C-9, S-6, I-8): the pot is frozen (crossed) while a wild
  card lies among its face-up cards, or a start card of ``pot_start_freeze_kinds``
  was turned up; it is frozen for an unopened team where ``frozen_for_unopened``.
"""

from __future__ import annotations

from dataclasses import dataclass

from canasta_env.actions import (
    ADD_JOKER,
    ADD_NATURAL,
    ADD_TWO,
    COMPOSITIONS,
    DISCARD,
    DRAW,
    ESCALA,
    NEW_BLACK3,
    NEW_MELD,
    NEW_WILD,
    NUM_COMPOSITIONS,
    PASS,
    TAKE,
    TAKE_ONTO_MELD,
    TAKE_WITH_JOKER,
    TAKE_WITH_TWO,
    WILD_COMPOSITIONS,
)
from canasta_env.engine.state import STATE_FIELDS

# --- card kinds (layout of canasta_env.cards) ---------------------------------
NATURALS = range(11)  # 4 5 6 7 8 9 T J Q K A
TWO, JOKER, BLACK3, RED3 = 11, 12, 13, 14
HAND_KINDS = 14
KIND_BY_NAME = {name: i for i, name in enumerate("456789TJQKA")}
KIND_BY_NAME.update({"2": TWO, "JK": JOKER, "B3": BLACK3, "R3": RED3})

# G-2: joker 50; 2 = 20; A = 20; K Q J 10 9 8 = 10; 7 6 5 4 = 5; black 3 = 5 melded.
VALUE = (5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20, 20, 50, 5)

# --- meld slots (action table) ------------------------------------------------
SLOT_B3 = 11
SLOT_WILD = 12
NUM_SLOTS = 13


@dataclass(frozen=True)
class Move:
    """One meld action: cards from the hand onto one slot of the team's melds."""

    action: int
    slot: int
    naturals: int
    twos: int
    jokers: int
    new: bool


def _decode_meld_actions() -> list[Move]:
    """Every meld action id 20..475, decoded from the action table."""
    moves = []
    for slot in range(12):  # ``add K`` for 11 ranks, then ``add B3``
        moves.append(Move(ADD_NATURAL + slot, slot, 1, 0, 0, False))
    for index in range(12):  # ``add 2 to K`` / ``add 2 to wild`` and the same for jokers
        slot = SLOT_WILD if index == 11 else index
        moves.append(Move(ADD_TWO + index, slot, 0, 1, 0, False))
        moves.append(Move(ADD_JOKER + index, slot, 0, 0, 1, False))
    for rank in NATURALS:
        for index, (n, twos, jokers) in enumerate(COMPOSITIONS):
            moves.append(
                Move(NEW_MELD + rank * NUM_COMPOSITIONS + index, rank, n, twos, jokers, True)
            )
    for n in range(3, 8):
        moves.append(Move(NEW_BLACK3 + n - 3, SLOT_B3, n, 0, 0, True))
    for index, (twos, jokers) in enumerate(WILD_COMPOSITIONS):
        moves.append(Move(NEW_WILD + index, SLOT_WILD, 0, twos, jokers, True))
    moves.sort(key=lambda m: m.action)
    assert [m.action for m in moves] == list(range(ADD_NATURAL, ESCALA))
    return moves


MELD_MOVES = _decode_meld_actions()
MOVES_BY_SLOT: list[list[Move]] = [[m for m in MELD_MOVES if m.slot == s] for s in range(NUM_SLOTS)]


def natural_kind(slot: int) -> int | None:
    if slot == SLOT_B3:
        return BLACK3
    if slot == SLOT_WILD:
        return None
    return slot


# --- a search node: plain copies of the player's cards and the team's melds ----
@dataclass(frozen=True)
class Node:
    hand: tuple[int, ...]  # 14 holdable kinds
    held: tuple[int, ...]  # pot cards waiting for the opening (R1)
    blank: int  # unknown cards certain to arrive (R3)
    nat: tuple[int, ...]  # unfinished melds by slot
    two: tuple[int, ...]
    jok: tuple[int, ...]
    closed: tuple[int, int, int]  # finished canastas (S-7): count, clean, dirty
    staged: int  # points laid this turn while unopened (G-5)
    opened: bool  # the opening is made (before or during this turn)

    def total(self) -> int:
        return sum(self.hand) + self.blank


class TurnContext:
    """Facts fixed for the rest of one turn, and the search over its meld moves."""

    def __init__(
        self,
        rules,
        need: int,
        took: bool,
        clean_only: bool,
        had_clean: bool,
        opened_at_start: bool,
    ):
        self.rules = rules
        self.need = need
        self.took = took
        self.clean_only = clean_only
        self.had_clean = had_clean
        self.opened_at_start = opened_at_start
        self.clean_wild = {tuple(x) for x in rules.clean_opening_wild_melds}
        self.memo: dict[Node, bool] = {}

    # ------------------------------------------------------------ compositions
    def natural_meld_ok(self, n: int, twos: int, jokers: int) -> bool:
        """C-5, S-7, I-5 as rules fields: a meld of one natural rank."""
        r = self.rules
        wilds = twos + jokers
        size = n + wilds
        if n < r.min_naturals or size < r.min_meld_size:
            return False
        if wilds > r.max_wilds_per_meld or n - wilds < r.min_natural_excess:
            return False
        return not (r.meld_closes_at and size > r.meld_closes_at)

    def move_ok(self, node: Node, move: Move) -> bool:
        """Rule legality of one meld move, before the turn guard."""
        r = self.rules
        slot = move.slot
        kind = natural_kind(slot)
        if kind is not None and node.hand[kind] < move.naturals:
            return False
        if node.hand[TWO] < move.twos or node.hand[JOKER] < move.jokers:
            return False
        wilds = move.twos + move.jokers
        if self.clean_only and wilds:  # I-10 clean opening (R2)
            if not (slot == SLOT_WILD and move.new and (move.twos, move.jokers) in self.clean_wild):
                return False
        n0, t0, j0 = node.nat[slot], node.two[slot], node.jok[slot]
        size0 = n0 + t0 + j0
        if move.new != (size0 == 0):  # one unfinished meld per slot (C-5, S-7, I-5)
            return False
        n, t, j = n0 + move.naturals, t0 + move.twos, j0 + move.jokers
        size = n + t + j
        if slot == SLOT_WILD:  # S-9, I-6
            if not r.wild_melds or size > r.wild_meld_max_size:
                return False
            return not move.new or size >= r.wild_meld_min_start
        if slot == SLOT_B3:  # C-7, S-11, I-5
            if not r.black3_melds or size > r.black3_meld_max_size or size < r.min_meld_size:
                return False
            return not (r.meld_closes_at and size > r.meld_closes_at)
        return self.natural_meld_ok(n, t, j)

    def moves(self, node: Node):
        for slot in range(NUM_SLOTS):
            kind = natural_kind(slot)
            if node.nat[slot] + node.two[slot] + node.jok[slot] == 0:
                if kind is not None and node.hand[kind] < 2:
                    continue  # a new meld needs at least two (three) of the kind
                if kind is None and node.hand[TWO] + node.hand[JOKER] == 0:
                    continue
            for move in MOVES_BY_SLOT[slot]:
                if self.move_ok(node, move):
                    yield move

    # ------------------------------------------------------------ applying
    def canasta_kind(self, slot: int, twos: int, jokers: int) -> tuple[int, int]:
        """(clean, dirty) of one canasta (G-4, S-10, S-15, I-12)."""
        if slot == SLOT_WILD:
            clean = twos == 0 or jokers == 0
        else:
            clean = twos + jokers == 0
        return (1, 0) if clean else (0, 1)

    def apply(self, node: Node, move: Move) -> tuple[Node, bool]:
        """The node after ``move`` and whether it completed a game-winning black-3 canasta."""
        r = self.rules
        slot = move.slot
        kind = natural_kind(slot)
        hand = list(node.hand)
        if kind is not None:
            hand[kind] -= move.naturals
        hand[TWO] -= move.twos
        hand[JOKER] -= move.jokers
        nat, two, jok = list(node.nat), list(node.two), list(node.jok)
        nat[slot] += move.naturals
        two[slot] += move.twos
        jok[slot] += move.jokers
        size = nat[slot] + two[slot] + jok[slot]
        cards = move.naturals + move.twos + move.jokers
        hidden = move.new and cards == r.canasta_size  # S-10: all seven in one action
        won = slot == SLOT_B3 and r.black3_canasta_wins_game and size >= r.canasta_size
        closed = node.closed
        limit = r.wild_meld_max_size if slot == SLOT_WILD else r.meld_closes_at
        if r.meld_closes_at and size >= limit:  # S-7: a finished canasta takes no more
            clean, dirty = self.canasta_kind(slot, two[slot], jok[slot])
            closed = (closed[0] + 1, closed[1] + clean, closed[2] + dirty)
            nat[slot] = two[slot] = jok[slot] = 0
        staged = node.staged
        opened = node.opened
        held = node.held
        if not opened:
            staged += self.points(move)
            if staged >= self.need or (hidden and r.hidden_canasta_opens):  # G-5, S-8
                opened = True
                hand = [a + b for a, b in zip(hand, held)]  # R1: the pot joins the hand
                held = (0,) * HAND_KINDS
        child = Node(
            tuple(hand),
            held,
            node.blank,
            tuple(nat),
            tuple(two),
            tuple(jok),
            closed,
            min(staged, self.need) if not opened else 0,
            opened,
        )
        return child, won

    # ------------------------------------------------------------ ends of the turn
    @staticmethod
    def points(move: Move) -> int:
        """G-2: the card values a meld move lays."""
        kind = natural_kind(move.slot)
        natural = VALUE[kind] * move.naturals if kind is not None else 0
        return natural + VALUE[TWO] * move.twos + VALUE[JOKER] * move.jokers

    def canastas(self, node: Node) -> tuple[int, int, int]:
        count, clean, dirty = node.closed
        for slot in range(NUM_SLOTS):
            if node.nat[slot] + node.two[slot] + node.jok[slot] >= self.rules.canasta_size:
                c, d = self.canasta_kind(slot, node.two[slot], node.jok[slot])
                count, clean, dirty = count + 1, clean + c, dirty + d
        return count, clean, dirty

    def go_out_ok(self, node: Node) -> bool:
        """C-14, C-15, S-15, I-11 on the melds of ``node``."""
        r = self.rules
        if any(node.held):
            return False
        concealed = (
            r.concealed_go_out_ignores_minimum and not self.took and not self.opened_at_start
        )
        if not (node.opened or concealed):  # G-5; C-15 concealed going out
            return False
        count, clean, dirty = self.canastas(node)
        if count < r.go_out_min_canastas:
            return False
        if r.go_out_needs_clean_and_dirty and not (clean and dirty):
            return False
        return not (r.no_go_out_on_first_clean_turn and clean and not self.had_clean)

    def black3_committed(self, node: Node) -> bool:
        """R4: a classic black-3 meld binds the player to go out this turn."""
        return self.rules.black3_meld_only_going_out and node.nat[SLOT_B3] > 0

    def ends_here(self, node: Node) -> bool:
        """Can the turn end legally now, after at least one meld or a take this turn?"""
        total = node.total()
        if node.opened and total >= 2 and not self.black3_committed(node):
            return True  # discard one card, keep at least one
        if total == 1:
            return self.go_out_ok(node)  # discard the last card
        if total == 0:  # melded out: the meld that emptied the hand went out
            return not self.rules.go_out_needs_discard and self.go_out_ok(node)
        return False

    def cannot_open(self, node: Node) -> bool:
        """An upper bound on the points still to lay misses the opening minimum.

        The bound counts every wild card, the naturals of ranks that have a meld or
        enough cards for one, and, since each needs a wild card of its own (none in
        a clean opening), the best ``wilds`` ranks held as a lone pair; a lone natural
        never melds. Pot cards wait until the opening (R1) and do not count.
        """
        r = self.rules
        if node.opened:
            return False
        hand = node.hand
        if r.hidden_canasta_opens and sum(hand) >= r.canasta_size:
            return False
        wilds = hand[TWO] + hand[JOKER]
        bound = node.staged + VALUE[TWO] * hand[TWO] + VALUE[JOKER] * hand[JOKER]
        alone = max(r.min_naturals, r.min_meld_size)
        pairs = []
        for kind in NATURALS:
            if node.nat[kind] + node.two[kind] + node.jok[kind] or hand[kind] >= alone:
                bound += VALUE[kind] * hand[kind]
            elif hand[kind] >= r.min_naturals:
                pairs.append(VALUE[kind] * hand[kind])
        if not self.clean_only:
            bound += sum(sorted(pairs, reverse=True)[:wilds])
        if r.black3_melds and (node.nat[SLOT_B3] or hand[BLACK3] >= r.min_meld_size):
            bound += VALUE[BLACK3] * hand[BLACK3]
        return bound < self.need

    def wild_room(self, naturals: int, wilds: int) -> int:
        """How many more wild cards a natural meld of ``naturals`` could ever take."""
        most = 0
        for w in range(naturals + 1):
            if self.natural_meld_ok(naturals, w, 0):
                most = w
        return max(0, most - wilds)

    def min_left(self, node: Node) -> int:
        """A lower bound on the cards that no sequence of meld moves can take from the hand."""
        r = self.rules
        hand = node.hand
        left = node.blank
        wilds = hand[TWO] + hand[JOKER]
        pairs = 0  # ranks that can start a meld only with the help of a wild card
        room = 0
        for kind in NATURALS:
            size = node.nat[kind] + node.two[kind] + node.jok[kind]
            have = hand[kind]
            if size:
                room += self.wild_room(node.nat[kind] + have, node.two[kind] + node.jok[kind])
            elif have == 1:
                left += 1
            elif have >= 2:
                if not self.natural_meld_ok(have, 0, 0):
                    pairs += 1
                room += self.wild_room(have, 0)
        have = hand[BLACK3]
        if not r.black3_melds:
            left += have
        elif node.nat[SLOT_B3]:
            left += max(0, have - (r.black3_meld_max_size - node.nat[SLOT_B3]))
        elif have < r.min_meld_size:
            left += have
        else:
            left += max(0, have - r.black3_meld_max_size)
        left += 2 * max(0, pairs - wilds)
        if not r.meld_closes_at and not r.wild_melds:
            left += max(0, wilds - room)
        return left

    def most_canastas(self, node: Node) -> int:
        """An upper bound on the team's canastas at the end of the turn."""
        r = self.rules
        count = self.canastas(node)[0]
        wilds = node.hand[TWO] + node.hand[JOKER]
        for slot in range(NUM_SLOTS):
            size = node.nat[slot] + node.two[slot] + node.jok[slot]
            kind = natural_kind(slot)
            more = (node.hand[kind] if kind is not None else 0) + (0 if slot == SLOT_B3 else wilds)
            if size < r.canasta_size <= size + more:
                count += 1
        if r.meld_closes_at:
            count += node.total() // r.canasta_size  # new melds after a canasta closes
        return count

    def hopeless(self, node: Node) -> bool:
        """Admissible pruning: no continuation of ``node`` can end the turn legally."""
        r = self.rules
        if not self.black3_committed(node) and not self.cannot_open(node):
            return False  # a discard with cards left may still end the turn
        if r.black3_canasta_wins_game and node.opened:
            return False
        # only going out can end the turn now
        concealed = (
            r.concealed_go_out_ignores_minimum and not self.took and not self.opened_at_start
        )
        if not node.opened and not concealed and self.cannot_open(node):
            return True
        if any(node.held):
            return False  # pot cards still to join the hand: no bound on the hand alone
        needed = max(r.go_out_min_canastas, 2 if r.go_out_needs_clean_and_dirty else 0)
        if self.min_left(node) > 1 or self.most_canastas(node) < needed:
            return True
        return self.wilds_short(node, needed)

    def wilds_short(self, node: Node, needed: int) -> bool:
        """Going out needs more wild cards than the hand holds (one missing canasta).

        Every rank held as a lone pair needs a wild card to be melded, and the
        missing canasta needs wild cards to fill its natural meld up to seven.
        """
        r = self.rules
        if needed - self.canastas(node)[0] != 1 or r.wild_melds or r.meld_closes_at:
            return False
        wilds = node.hand[TWO] + node.hand[JOKER]
        pairs = set()
        for kind in NATURALS:
            if node.nat[kind] + node.two[kind] + node.jok[kind] == 0:
                have = node.hand[kind]
                if have >= r.min_naturals and not self.natural_meld_ok(have, 0, 0):
                    pairs.add(kind)
        best = None
        for kind in NATURALS:
            naturals = node.nat[kind] + node.hand[kind]
            if naturals < r.min_naturals:
                continue
            wild0 = node.two[kind] + node.jok[kind]
            deficit = max(0, r.canasta_size - naturals - wild0)
            if deficit > self.wild_room(naturals, wild0):
                continue
            demand = deficit + len(pairs - {kind})
            best = demand if best is None else min(best, demand)
        b3 = node.nat[SLOT_B3] + node.hand[BLACK3]
        if r.black3_melds and b3 >= r.canasta_size and r.black3_meld_max_size >= r.canasta_size:
            best = len(pairs) if best is None else min(best, len(pairs))
        return best is None or best > wilds

    def can_finish(self, node: Node) -> bool:
        """Depth-first search: some sequence of meld moves reaches a legal end of the turn."""
        known = self.memo.get(node)
        if known is not None:
            return known
        self.memo[node] = False
        result = self.ends_here(node)
        if not result and node.total() > 0 and not self.hopeless(node):
            for move in self.moves(node):
                child, won = self.apply(node, move)
                if self.won_ok(child) if won else self.can_finish(child):
                    result = True
                    break
        self.memo[node] = result
        return result

    def move_legal(self, node: Node, move: Move) -> bool:
        """Rule legality plus turn guard of one meld action from ``node``."""
        if not self.move_ok(node, move):
            return False
        child, won = self.apply(node, move)
        return self.won_ok(child) if won else self.can_finish(child)

    def won_ok(self, node: Node) -> bool:
        """R5: a completed black-3 canasta ends the game; the opening must be made (G-5),
        and an emptied hand needs going out to be allowed (S-16)."""
        return node.opened and (node.total() > 0 or self.ends_here(node))


# --- reading the game ------------------------------------------------------------
def opening_minimum(rules, team_score: int) -> int:
    """C-8, S-8, I-9: the bracket of the team's total at the start of the hand."""
    minimum = None
    for lowest, value in sorted(rules.opening_table):
        if minimum is None or team_score >= lowest:
            minimum = value
    return minimum


def pot_frozen(game, team_opened: bool) -> bool:
    """R7: the pot is frozen or crossed."""
    rules = game.rules
    start_freeze = {KIND_BY_NAME[k] for k in rules.pot_start_freeze_kinds}
    face_up = game.pot[game.pot_hidden :]
    if any(card in (TWO, JOKER) or card in start_freeze for card in face_up):
        return True
    return rules.frozen_for_unopened and not team_opened


def team_table(game, team: int) -> tuple[list[int], list[int], list[int], list]:
    return list(game.nat[team]), list(game.two[team]), list(game.jok[team]), list(game.closed[team])


def closed_summary(ctx: TurnContext, closed: list) -> tuple[int, int, int]:
    count = clean = dirty = 0
    for slot, _n, twos, jokers, _hidden in closed:
        c, d = ctx.canasta_kind(slot, twos, jokers)
        count, clean, dirty = count + 1, clean + c, dirty + d
    return count, clean, dirty


def table_value(nat, two, jok, closed) -> int:
    value = 0
    for slot in range(NUM_SLOTS):
        kind = natural_kind(slot)
        value += (
            (VALUE[kind] * nat[slot] if kind is not None else 0) + 20 * two[slot] + 50 * jok[slot]
        )
    for slot, n, twos, jokers, _hidden in closed:
        kind = natural_kind(slot)
        value += (VALUE[kind] * n if kind is not None else 0) + 20 * twos + 50 * jokers
    return value


def has_clean_canasta(rules, nat, two, jok, closed) -> bool:
    for slot, _n, twos, jokers, _hidden in closed:
        if (twos == 0 or jokers == 0) if slot == SLOT_WILD else twos + jokers == 0:
            return True
    for slot in range(NUM_SLOTS):
        if nat[slot] + two[slot] + jok[slot] >= rules.canasta_size:
            if (
                (two[slot] == 0 or jok[slot] == 0)
                if slot == SLOT_WILD
                else two[slot] + jok[slot] == 0
            ):
                return True
    return False


def _counts(cards) -> tuple[int, ...]:
    counts = [0] * HAND_KINDS
    for card in cards:
        if card != RED3:  # G-6: a red 3 from the pot is laid out
            counts[card] += 1
    return tuple(counts)


def reference_legal(game) -> set[int]:
    """The set of legal action ids in ``game``'s state, decided by brute force."""
    if game.phase == 2:
        return set()
    if game.phase == 0:
        return _draw_phase(game)
    return _meld_phase(game)


def _draw_phase(game) -> set[int]:
    rules = game.rules
    player = game.current
    team = game.team_of[player]
    hand = game.hands[player]
    opened = game.opened[team]
    need = opening_minimum(rules, game.scores[team])
    nat, two, jok, closed = team_table(game, team)
    legal: set[int] = set()
    stock_ok = len(game.stock) >= rules.draw_count  # C-4, S-4, I-4
    if stock_ok:
        legal.add(DRAW)
    pot = game.pot
    takes: set[int] = set()
    forced = False
    if pot and pot[-1] in NATURALS:  # C-12, S-6, I-7: no take onto a wild or a 3
        top = pot[-1]
        frozen = pot_frozen(game, opened)
        clean_only = not opened and (
            need <= rules.clean_opening_max_minimum or rules.unopened_take_needs_clean_opening
        )
        ctx = TurnContext(
            rules,
            need,
            took=True,
            clean_only=clean_only,
            had_clean=has_clean_canasta(rules, nat, two, jok, closed),
            opened_at_start=opened,
        )
        has_meld = nat[top] + two[top] + jok[top] > 0
        options = []
        needed = rules.take_naturals_frozen if frozen else rules.take_naturals
        if hand[top] >= needed:  # C-10, C-11, S-5, S-6, I-7, I-8
            options.append((TAKE, needed, 0, 0))
        if not frozen:
            if rules.take_with_wild and hand[top] >= 1:  # C-11
                if hand[TWO]:
                    options.append((TAKE_WITH_TWO, 1, 1, 0))
                if hand[JOKER]:
                    options.append((TAKE_WITH_JOKER, 1, 0, 1))
            if rules.take_onto_meld and opened and has_meld:  # C-11
                options.append((TAKE_ONTO_MELD, 0, 0, 0))
        for action, naturals, twos, jokers in options:
            if clean_only and twos + jokers:
                continue
            n = nat[top] + 1 + naturals
            if not ctx.natural_meld_ok(n, two[top] + twos, jok[top] + jokers):
                continue
            if _take_feasible(game, ctx, top, naturals, twos, jokers, nat, two, jok, closed):
                takes.add(action)
        # C-16 (R6): the take is forced when the top card matches a meld of an unfrozen pot
        forced = rules.must_take_matching_pot and has_meld and not frozen
    legal |= takes
    if not stock_ok and takes and not forced:  # C-16, S-17, I-11
        legal.add(PASS)
    return legal


def _take_feasible(game, ctx, top, naturals, twos, jokers, nat, two, jok, closed) -> bool:
    rules = game.rules
    player = game.current
    team = game.team_of[player]
    hand = list(game.hands[player][:HAND_KINDS])
    hand[top] -= naturals
    hand[TWO] -= twos
    hand[JOKER] -= jokers
    nat, two, jok = nat[:], two[:], jok[:]
    nat[top] += 1 + naturals
    two[top] += twos
    jok[top] += jokers
    closed_counts = closed_summary(ctx, closed)
    if rules.meld_closes_at and nat[top] + two[top] + jok[top] >= rules.meld_closes_at:
        c, d = ctx.canasta_kind(top, two[top], jok[top])
        closed_counts = (closed_counts[0] + 1, closed_counts[1] + c, closed_counts[2] + d)
        nat[top] = two[top] = jok[top] = 0
    held = _counts(game.pot[:-1])
    opened = game.opened[team]
    staged = 0
    if not opened:  # C-8, S-5: the top card and the cards from the hand count
        staged = VALUE[top] * (1 + naturals) + VALUE[TWO] * twos + VALUE[JOKER] * jokers
        opened = staged >= ctx.need
    if opened:
        hand = [a + b for a, b in zip(hand, held)]
        held = (0,) * HAND_KINDS
    blank = min(rules.draw_after_pot_take, len(game.stock))  # I-4 (R3)
    node = Node(
        tuple(hand),
        held,
        blank,
        tuple(nat),
        tuple(two),
        tuple(jok),
        closed_counts,
        0 if opened else staged,
        opened,
    )
    return ctx.can_finish(node)


def _meld_phase(game) -> set[int]:
    rules = game.rules
    player = game.current
    team = game.team_of[player]
    need = opening_minimum(rules, game.scores[team])
    nat, two, jok, closed = team_table(game, team)
    opened_at_start = game.opened_at_turn_start
    took = game.took_pot
    clean_only = not opened_at_start and (
        need <= rules.clean_opening_max_minimum
        or (took and rules.unopened_take_needs_clean_opening)
    )
    ctx = TurnContext(
        rules,
        need,
        took=took,
        clean_only=clean_only,
        had_clean=game.had_clean_at_turn_start,
        opened_at_start=opened_at_start,
    )
    if opened_at_start:
        staged, opened, staging = 0, True, False
    else:
        # every card of an unopened team on the table was laid this turn
        staged = table_value(nat, two, jok, closed)
        # S-8: a canasta laid whole this turn (closed where melds close at 7, else still
        # on the table: the state's hidden_open says so, as the players saw it laid)
        hidden = (any(c[4] for c in closed) or game.hidden_open) and rules.hidden_canasta_opens
        opened = staged >= need or hidden
        staging = took or staged > 0
    held = tuple(game.held[:HAND_KINDS])
    node = Node(
        tuple(game.hands[player][:HAND_KINDS]),
        (0,) * HAND_KINDS if opened else held,
        0,
        tuple(nat),
        tuple(two),
        tuple(jok),
        closed_summary(ctx, closed),
        0 if opened else min(staged, need),
        opened,
    )
    if opened and any(held):
        node = Node(
            tuple(a + b for a, b in zip(node.hand, held)),
            node.held,
            0,
            node.nat,
            node.two,
            node.jok,
            node.closed,
            0,
            True,
        )
    legal: set[int] = set()
    total = node.total()
    for kind in range(HAND_KINDS):
        if not node.hand[kind]:
            continue
        if total >= 2:  # C-13, S-16, I-11: keep a card; G-5: finish an opening first
            ok = (opened or not staging) and not ctx.black3_committed(node)
        else:
            ok = ctx.go_out_ok(node)  # discarding the last card goes out
        if ok:
            legal.add(DISCARD + kind)
    for move in MELD_MOVES:
        if ctx.move_legal(node, move):
            legal.add(move.action)
    if rules.sequences and node.opened:
        legal |= _run_actions(game, ctx, node)
    return legal


def _run_actions(game, ctx, node) -> set[int]:
    """S-19 (resolution in ``canasta_env.engine.sequences``): an opened team lays a run of
    7 naturals of one suit in a row (4-T .. 8-A), or 4 to A, whole from the hand, when
    the turn can still end legally afterwards (the search over the other meld moves)."""
    player = game.current
    # naturals per rank * 4 + suit (S H D C), in the hand and set aside
    suited = [a + b for a, b in zip(game.suits.hands[player], game.suits.held)]
    spans = [(first, 7) for first in range(5)] + [(0, 11)]
    legal = set()
    for suit in range(4):
        for index, (first, length) in enumerate(spans):
            ranks = range(first, first + length)
            if not all(suited[rank * 4 + suit] for rank in ranks):
                continue
            hand = list(node.hand)
            for rank in ranks:
                hand[rank] -= 1
            child = Node(
                tuple(hand),
                node.held,
                node.blank,
                node.nat,
                node.two,
                node.jok,
                node.closed,
                node.staged,
                node.opened,
            )
            if ctx.can_finish(child):
                legal.add(ESCALA + suit * 6 + index)
    return legal


# --- random play shared by the mask, property and determinism tests ---------------
#: Policies of the random games: uniform over the mask; a "hoarder" that takes the
#: pot when it can and seldom melds (unopened teams, big pots, stock exhaustion); a
#: "melder" that takes and melds eagerly (openings, canastas, going out).
STYLES = ("uniform", "hoarder", "melder")


def choose_action(rng, legal: list[int], style: str) -> int:
    """A random legal action id under one of the ``STYLES``."""
    runs = [a for a in legal if a >= ESCALA]  # S-19 runs (only where ``sequences`` is on)
    if runs and rng.random() < 0.5:
        return rng.choice(runs)
    if style == "uniform":
        return rng.choice(legal)
    takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
    if takes and rng.random() < 0.9:
        return rng.choice(takes)
    melds = [a for a in legal if a >= ADD_NATURAL]
    others = [a for a in legal if a < ADD_NATURAL and not TAKE <= a <= TAKE_ONTO_MELD]
    meld_chance = 0.15 if style == "hoarder" else 0.9
    if melds and (not others or rng.random() < meld_chance):
        return rng.choice(melds)
    return rng.choice(others or legal)


def plain(value):
    """A comparable, immutable copy of nested lists, tuples and dicts."""
    if isinstance(value, (list, tuple)):
        return tuple(plain(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, plain(v)) for k, v in value.items()))
    return value


def snapshot(game) -> dict:
    """Every declared state field of a game (random generator included) as plain values."""
    return {
        name: game.rng.getstate() if name == "rng" else plain(getattr(game, name))
        for name in STATE_FIELDS
    }
