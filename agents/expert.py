"""The expert bot: the strategy a strong human plays, from public information only.

:class:`ExpertAgent` ("expert") reads the observation with
:func:`canasta_env.observation.decode_view` and scores the legal ids of the mask
with :data:`canasta_env.actions.MOVES`, under the rules of its table (``reset``).
Its only memory between turns is which kinds were discarded onto the pot since
its own last discard; everything else it recomputes from the observation, which
holds every public fact (G-8): melds, red 3s, pot contents seen, cards known to
be in each hand after a pot take.

Strategy, in the order a turn is played:

1. **Draw or take.** Take the pot whenever a take is legal, the cheapest way
   first: onto a meld, then with a natural pair; a take that spends a wild card
   (``take +2``, ``take +JK``) only for a pot of more than ``small_pot`` cards.
   With the stock exhausted (C-16, S-17) it passes, ending the hand, when its
   team leads. Racing (2 players, see 6.), once its team has a canasta it draws
   instead of taking a pot of 2 to ``race_take_pot - 1`` cards: their cards
   would keep it from going out.
2. **Opening.** Open as soon as the mask allows it (an unopened team faces a
   frozen pot, C-9): a 7-card hidden canasta first where it scores (S-10), then
   the melds with the fewest wild cards, biggest first: the wild cards stay in
   hand for canastas when naturals reach the minimum.
3. **Melding after the opening.** Add naturals to its melds; lay new natural
   melds of three or more, except while the pot is frozen: then the triple stays
   in hand, since a frozen pot is taken only with a natural pair (C-10). Keep
   natural *pairs* in hand to take the pot with (no pair + wild card melds).
   Keep wild cards for canastas: a wild card goes on a meld only when the wild
   cards in hand complete it to a canasta now and the canasta is dirty anyway,
   or the team still needs a (dirty) canasta to go out; never on a clean meld of
   aces (I-12). Variant goals: a hidden canasta (S-10), a wild-card canasta of
   seven (S-9, I-6), a 7-black-3 canasta that wins the game (S-11; black 3s are
   collected from five on), black-3 melds that save the -100 each in hand (S-14).
4. **Going out.** It wants to go out when its estimated hand score (public
   melds, canasta bonuses, red 3s, the going-out bonus, minus about 9 points per
   card still held) leads the best opponent's, when an opponent team could go out
   itself (unless it trails by more than ``far_behind``: going out would only
   seal the loss), or when the stock is nearly exhausted. Then, once its team may go out,
   it melds everything it can (pairs and wild cards included, onto the biggest
   meld first) to go out this turn or the next. Otherwise it never makes a move
   that would empty its hand: far behind, it keeps playing to build canastas.
5. **Discard (pile control).** Each candidate card costs what keeping it is
   worth (pairs, wild cards, cards of its melds, a chance to pair up) plus the
   probability that the *next* player can take the pot with it, times the
   value of the pot to them (``pot_loss_base + pot_loss_per_card`` per card,
   more when behind). That probability is card counting from public history:
   the next player takes for sure with a card that matches their team's meld
   (C-11) or of which they are known to hold enough (cards taken from a pot,
   G-8); otherwise it is a hypergeometric draw of the unseen copies (deck minus
   own hand, every meld, the visible pot and every known card) into the unknown
   part of their hand, lower if their team must still open. With two players,
   the kinds the opponent discarded since our last turn are safer (they let
   them go). A 2 is worth little in hand (``two_keep``) and discarded it
   freezes (crosses) the pot (C-9, S-6), which then takes a natural pair: a 2
   that completes no canasta is the first discard. A black 3 blocks the next
   player (C-12, S-6, I-7), so it is the usual discard once the pot is worth
   blocking; a joker comes out only when every natural is dangerous and the pot
   is big.
6. **Two players: the race** (``race``, :data:`TWO_PLAYER_PARAMS`), where one
   canasta lets a player go out (C-14; not spanish or italian, whose big
   canasta bonuses reward building). Without a partner the hand is a race: an
   opponent who melds everything goes out soon after its first canasta, while a
   hand fed by pot takes still holds many cards at its own first canasta. So it
   always wants to go out (4.), draws instead of taking a pot of fewer than
   ``race_take_pot`` cards once it has a canasta (1.), and without a canasta it
   puts a wild card on a meld of ``race_wild_meld`` cards or more (3.), which
   brings the first canasta sooner.

Its twin in the compiled core (``csrc/bots/expert.cpp``, the same memory across a hand)
plays its seat at a core table (:mod:`agents.core_twins`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from agents.base import NOT_RESET, Agent
from agents.core_twins import core_twin, twin_free_state
from agents.heuristics import (
    TAKE_PREFERENCE,
    biggest_meld_key,
    hand_margin,
    split_legal,
    take_probability,
    unseen_counts,
)
from canasta_env.actions import (
    DRAW,
    MOVE_RUN,
    MOVES,
    PASS,
    SLOT_BLACK3,
    SLOT_WILD,
    TAKE,
    TAKE_ONTO_MELD,
    Move,
)
from canasta_env.cards import (
    BLACK3,
    CARD_VALUES,
    JOKER,
    NUM_HAND_KINDS,
    TWO,
)
from canasta_env.core import CoreBot
from canasta_env.engine.melds import canastas_let_go_out
from canasta_env.observation import ObservationView, decode_view
from canasta_env.rules import ACE, Rules, make_rules


@dataclass(frozen=True)
class ExpertParams:
    """The numbers of the strategy, in points unless said otherwise.

    Tuned by duplicate-deal matches against :class:`~agents.greedy.GreedyAgent`
    in classic 4-player games, and the race (2 players) in classic 2-player
    games (see docs/agents.md). :func:`default_params` picks them by player count.
    """

    small_pot: int = 8  # a pot this small is not worth a wild card
    pot_loss_base: float = 20.0  # what a pot taken by the next player costs us ...
    pot_loss_per_card: float = 500.0  # ... plus this per card in it
    behind_pot_factor: float = 1.3  # pile control matters more when behind
    recent_discount: float = 0.6  # 2 players: danger factor of kinds they just discarded
    pair_keep: float = 50.0  # keep value of a natural pair (plus 15 per card)
    meld_keep: float = 45.0  # keep value of a card of one of our melds
    two_keep: float = 0.0  # a 2 discarded freezes the pot (C-9): worth more there
    joker_keep: float = 130.0
    black3_keep: float = 20.0  # classic, italian: a blocker, kept for a bigger pot
    black3_keep_penalised: float = -60.0  # spanish: -100 in hand (S-14), discard first
    hold_triples_when_frozen: bool = True  # a frozen pot is taken with a natural pair only
    wild_take_factor: float = 0.5  # how often a natural and a wild card are spent on a take
    far_behind: float = 150.0  # trailing by more, it does not go out just because they could
    race: bool = False  # play the race to go out where one canasta goes out (C-14)
    race_wild_meld: int = 4  # racing without a canasta: a wild card goes on a meld this big
    race_take_pot: int = 10  # racing with a canasta: only a pot this big is still taken


#: Two players: the hand is a race (strategy 6 of the module doc). Without
#: racing, greedy went out in 71% of classic 2-player hands and the expert won
#: a third of those; the expert, fed by pot takes, held about 15 cards (median) at
#: its own first canasta and could not go out. Racing: 58.7% of duplicate
#: hands won against greedy instead of 50.5% (seed 0, docs/agents.md).
TWO_PLAYER_PARAMS = ExpertParams(race=True)


def default_params(num_players: int) -> ExpertParams:
    """The tuned parameters for a player count (2 players race, see TWO_PLAYER_PARAMS)."""
    return TWO_PLAYER_PARAMS if num_players == 2 else ExpertParams()


class ExpertAgent(Agent):
    """A strong rule-based player: pile control, card counting, timing (see the module doc)."""

    name = "expert"
    #: let a core table play this seat in C++ (agents.core_twins); False keeps it in Python
    use_core = True

    def __init__(self, seed: int | None = None, params: ExpertParams | None = None):
        self.given_params = params  # None: the defaults of the player count (reset)
        self.params = params or ExpertParams()
        self.seed_value = seed  # the policy is deterministic; kept for a uniform API
        self.rules: Rules | None = None
        self.num_players: int | None = None
        self.core_bot: CoreBot | None = None
        self._forget()

    def seed(self, seed: int | None) -> None:
        self.seed_value = seed

    def __getstate__(self) -> dict:
        return twin_free_state(self)  # (its twin is a C++ object, made again at reset)

    def reset(self, seat: int, num_players: int, rules: Rules | str) -> None:
        self.rules = make_rules(rules)
        self.num_players = num_players
        self.params = self.given_params or default_params(num_players)
        self._forget()
        given = None if self.given_params is None else asdict(self.given_params)
        self.core_bot = core_twin(
            self,
            ExpertAgent,
            seat,
            num_players,
            self.rules,
            lambda: CoreBot("expert", params=given),
        )

    def batch_twin(self) -> CoreBot | None:
        """This bot's twin for the batched core (:func:`canasta_env.core.batch_twin`), with
        its given parameters; None for a subclass, which may play otherwise."""
        if type(self) is not ExpertAgent:
            return None
        given = self.given_params
        return CoreBot("expert", params=None if given is None else asdict(given))

    def _forget(self) -> None:
        self._hand_number: int | None = None
        self._pot_after_discard: list[int] | None = None
        self._pot_size_after_discard = 0
        self._recent: set[int] = set()

    # ------------------------------------------------------------------ entry point
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        rules = self.rules
        if rules is None:
            raise RuntimeError(NOT_RESET.format(agent="ExpertAgent"))
        view = decode_view(observation)
        if view.hand_number != self._hand_number:
            self._forget()
            self._hand_number = view.hand_number
        draw_ids, meld_ids, discard_ids = split_legal(action_mask)
        if draw_ids:
            self._remember_recent(view)
            return self._draw_phase(view, draw_ids, rules)
        move = self._choose_meld(view, meld_ids, discard_ids, rules)
        if move is not None:
            return move
        action = self._choose_discard(view, discard_ids, rules)
        kind = MOVES[action].slot  # the kind discarded
        pot = list(view.pot_known)
        pot[kind] += 1
        self._pot_after_discard = pot
        self._pot_size_after_discard = view.pot_size + 1
        return action

    def _racing(self, rules: Rules) -> bool:
        """Whether this hand is a race to go out: ``race`` is on and one canasta goes out.

        Where going out needs more (a clean and a dirty canasta, S-15, I-11) the
        big canasta bonuses reward building instead.
        """
        return (
            self.params.race
            and rules.go_out_min_canastas <= 1
            and not rules.go_out_needs_clean_and_dirty
        )

    def _remember_recent(self, view: ObservationView) -> None:
        """Kinds put on the pot since our last discard: the players after us let them go."""
        before = self._pot_after_discard
        if before is None:
            self._recent = set()
        elif view.pot_size >= self._pot_size_after_discard:
            self._recent = {k for k in range(NUM_HAND_KINDS) if view.pot_known[k] > before[k]}
        else:  # the pot was taken since: what lies on it now came after the take
            self._recent = {k for k in range(NUM_HAND_KINDS) if view.pot_known[k] > 0}

    # ------------------------------------------------------------------ draw phase
    def _draw_phase(self, view: ObservationView, draw_ids: list[int], rules: Rules) -> int:
        takes = [a for a in TAKE_PREFERENCE if a in draw_ids]
        if (
            PASS in draw_ids
            and DRAW not in draw_ids
            and hand_margin(view, rules, going_out=False) > 0
        ):
            return PASS  # C-16, S-17: the stock is out and we lead: end the hand
        if (
            takes
            and DRAW in draw_ids
            and 2 <= view.pot_size < self.params.race_take_pot
            and view.me.canastas > 0
            and self._racing(rules)
        ):
            return DRAW  # racing: the pot's cards would keep us from going out
        if takes:
            best = takes[0]
            if best in (TAKE_ONTO_MELD, TAKE) or DRAW not in draw_ids:
                return best
            if view.pot_size > self.params.small_pot:
                return best  # worth a wild card
        if DRAW in draw_ids:
            return DRAW
        return takes[0] if takes else draw_ids[0]

    # ------------------------------------------------------------------ melding
    def _choose_meld(
        self, view: ObservationView, meld_ids: list[int], discard_ids: list[int], rules: Rules
    ) -> int | None:
        """The meld move to play now, or None to discard."""
        if not meld_ids:
            return None
        if not view.me.opened:  # C-9: an unopened team faces a frozen pot: open at once
            return max(meld_ids, key=lambda a: self._opening_key(view, MOVES[a], rules, a))
        want_out = self._want_go_out(view, rules)
        if want_out and view.may_go_out:  # meld everything: out this turn or the next
            return max(meld_ids, key=lambda a: biggest_meld_key(view, a))
        candidates = meld_ids
        if not want_out:  # keep two cards: a move that empties the hand would go out
            candidates = [a for a in meld_ids if view.hand_size - MOVES[a].cards >= 2]
            if not candidates:
                if discard_ids:
                    return None
                candidates = meld_ids
        score, _key, action = max(
            (self._meld_score(view, MOVES[a], rules), biggest_meld_key(view, a), a)
            for a in candidates
        )
        if score > 0 or not discard_ids:
            return action
        return None

    @staticmethod
    def _opening_key(view: ObservationView, move: Move, rules: Rules, action: int) -> tuple:
        """S-10: a hidden canasta first; then the fewest wild cards, then the biggest melds.

        Natural melds are laid first; a wild card goes into the opening only when
        the naturals alone cannot reach the minimum (the mask keeps only moves
        after which the opening can still be completed).
        """
        hidden = move.new and move.cards == rules.canasta_size and rules.hidden_canasta_bonus > 0
        return (hidden, -move.wilds, *biggest_meld_key(view, action))

    def _meld_score(self, view: ObservationView, move: Move, rules: Rules) -> float:
        """How much a meld move is worth now (positive: play it)."""
        if move.kind == MOVE_RUN:
            return 1000.0  # S-19: a run's bonus, once the team has a canasta
        me = view.me
        slot = move.slot
        size = rules.canasta_size
        if move.new and move.cards == size and rules.hidden_canasta_bonus:
            return 500.0  # S-10: a hidden canasta
        if slot == SLOT_BLACK3:
            if rules.black3_canasta_wins_game and me.meld_size(slot) + move.cards >= size:
                return 10000.0  # S-11: the game is won
            return 80.0 if rules.black3_in_hand_penalty > CARD_VALUES[BLACK3] else -10.0
        if slot == SLOT_WILD:
            if move.new:
                return 400.0 if move.cards >= size else -20.0
            return 60.0
        if move.wilds == 0:
            if not move.new:
                return 100.0  # grow a meld toward a canasta
            if self.params.hold_triples_when_frozen and view.pot_wild:
                return -5.0  # C-10: keep them in hand to take the frozen pot
            return 80.0 + move.cards
        if move.new:
            return -10.0  # keep the pair (and the wild card) for a pot take
        return self._wild_on_meld_score(view, move, rules)

    def _wild_on_meld_score(self, view: ObservationView, move: Move, rules: Rules) -> float:
        me = view.me
        slot = move.slot
        current = me.meld_size(slot)
        size = rules.canasta_size
        dirty = me.twos[slot] + me.jokers[slot] > 0
        if current >= size:
            return -50.0  # already a canasta: a wild card adds only its value
        if slot == ACE and rules.rank_canasta_bonus and not dirty:
            return -40.0  # I-12: keep the aces clean
        wilds_in_hand = view.hand[TWO] + view.hand[JOKER]
        twos_first = 20.0 if move.twos else 0.0  # spend 2s before jokers
        if current + wilds_in_hand < size:
            if me.canastas == 0 and current >= self.params.race_wild_meld and self._racing(rules):
                return 60.0 + twos_first  # racing: toward the first canasta now
            return -30.0  # cannot finish it now: keep the wild cards
        needs_canasta = me.canastas == 0 or (rules.go_out_needs_clean_and_dirty and me.dirty == 0)
        if dirty or needs_canasta:
            return 120.0 + twos_first
        return -20.0

    # ------------------------------------------------------------------ timing
    def _want_go_out(self, view: ObservationView, rules: Rules) -> bool:
        """Go out when racing, when we lead, when they could go out first (unless we are
        far behind), or when the stock runs out."""
        if self._racing(rules):
            return True
        margin = hand_margin(view, rules, going_out=True)
        if margin > 0:
            return True
        if margin > -self.params.far_behind and self._opponent_can_go_out(view, rules):
            return True
        return view.stock <= 2 * view.num_players * view.draw_count

    def _opponent_can_go_out(self, view: ObservationView, rules: Rules) -> bool:
        return any(
            canastas_let_go_out(rules, team.canastas, team.clean, team.dirty)
            for team in view.teams[1:]
        )

    # ------------------------------------------------------------------ discarding
    def _choose_discard(self, view: ObservationView, discard_ids: list[int], rules: Rules) -> int:
        unseen, pool = self._unseen(view, rules)
        behind = hand_margin(view, rules, going_out=False) < 0
        pot_loss = self.params.pot_loss_base + self.params.pot_loss_per_card * (view.pot_size + 1)
        if behind:
            pot_loss *= self.params.behind_pot_factor

        def cost(action: int) -> tuple[float, int]:
            kind = MOVES[action].slot  # the kind discarded
            keep = self._keep_value(view, kind, rules, unseen)
            risk = self._take_probability(view, kind, rules, unseen, pool)
            return keep + risk * pot_loss, action

        return min(discard_ids, key=cost)

    def _keep_value(
        self, view: ObservationView, kind: int, rules: Rules, unseen: list[int]
    ) -> float:
        """What keeping one card of ``kind`` is worth to us (pairs, wild cards, melds)."""
        params = self.params
        if kind == BLACK3:
            if rules.black3_in_hand_penalty > CARD_VALUES[BLACK3]:
                if (
                    rules.black3_canasta_wins_game
                    and view.hand[BLACK3] + view.me.meld_size(SLOT_BLACK3) >= 5
                ):
                    return 200.0  # S-11: collecting black 3s for the game-winning canasta
                return params.black3_keep_penalised
            return params.black3_keep
        if kind == TWO:
            return params.two_keep
        if kind == JOKER:
            return params.joker_keep
        count = view.hand[kind]
        value = float(CARD_VALUES[kind])
        if view.me.has_meld(kind):
            keep = params.meld_keep + value
        elif count >= 2:
            keep = params.pair_keep + 15.0 * count + value
        else:
            keep = value + 3.0 * min(unseen[kind], 4)
        if kind == ACE and rules.rank_canasta_bonus:
            keep += 10.0  # I-12: aces canastas
        return keep

    @staticmethod
    def _unseen(view: ObservationView, rules: Rules) -> tuple[list[int], int]:
        """Copies of each holdable kind nobody has shown (and their total): card counting."""
        return unseen_counts(view, rules)

    def _take_probability(
        self, view: ObservationView, kind: int, rules: Rules, unseen: list[int], pool: int
    ) -> float:
        """Probability that the next player can take the pot if we discard ``kind``."""
        discount = 1.0
        if kind in self._recent and view.num_players == 2:
            discount = self.params.recent_discount  # exact: only they discarded since
        return take_probability(
            view, kind, rules, unseen, pool, self.params.wild_take_factor, discount
        )
