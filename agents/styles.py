"""Styled bots: heuristic players of distinct styles whose numbers are drawn every hand.

A fixed pair of bots (``greedy``, ``expert``) is a narrow population to train against: a
learner can exploit their habits and still lose to a player of another style (issue 24).
:class:`StyledAgent` plays the expert's strategy (:mod:`agents.expert`) or the greedy bot's
(:mod:`agents.greedy`) from the observation only, changed by a *family*: a style that
changes what the bot does, not only its numbers. At every ``reset`` (every hand) it draws
its numbers (:class:`StyleParams`, an :class:`~agents.expert.ExpertParams` among them)
within its family's ranges from its own generator, which ``seed(s)`` rebuilds: the same
seed gives the same hands.

==============  ==========================================================================
family          style
==============  ==========================================================================
``tuned``       the expert's strategy with every number of ExpertParams drawn
``racer``       goes out as early as it can at every player count: always wants out,
                races (draws instead of a small pot once it has a canasta, wild cards
                onto a meld of four) wherever one canasta goes out (C-14)
``melder``      reckless: melds everything it can at once, pairs and wild cards included
                (the greedy bot's order), with the expert's takes and discards
``taker``       pot-hungry: takes every pot it can, spending a wild card on any pot,
                keeps pairs dearly to take with, watches the pile less
``noisy``       the greedy bot with its pile-control numbers drawn and noise on every
                discard's cost
``builder``     holds for canastas and bonuses: does not want out before its team has
                two or three canastas (unless the stock runs short or it leads while
                the other side could go out), never races
``controller``  pile control: never takes a pot of fewer than 3 to 6 cards while it may
                draw, and discards very safely (what the next player could take weighs
                two or three times the expert's)
``naive``       the kind of bot a newcomer writes from the docs (``examples/my_bot.py``):
                no card counting, no pile control; takes every pot it can (or every pot
                of a few cards or more), melds whatever it can at once, and discards by a
                simple score of the card (wild, how many it holds, its value, noise)
==============  ==========================================================================

**The split.** :data:`TRAINING_STYLES` may be league opponents (``canasta train
--opponents styled=0.3,style:racer=0.1``); :data:`HELD_OUT_STYLES` are kept out of
training (the league refuses them, :mod:`training.league_pool`) so that evaluating against
them measures how a trained agent meets a style it never saw: the training families are
fast, pot-taking or naive styles, the held-out ones slow (``builder``) or defensive
(``controller``). (``examples/my_bot.py`` is the archetype of ``naive`` with a
lexicographic discard key none of its draws has; docs/agents.md reports the agents
against it.) Each family has a twin in the compiled core (``csrc/bots/styles.cpp``, the
same draws from the same generator) that plays its seat at a core table
(:mod:`agents.core_twins`). Names in the registry (:mod:`agents.registry`): ``style:FAMILY``, and
``styled``, a training family drawn each hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from agents.core_twins import core_twin
from agents.expert import ExpertAgent, ExpertParams, default_params
from agents.greedy import GreedyAgent, greedy_move, meld_all_key
from agents.heuristics import (
    TAKE_PREFERENCE,
    hand_margin,
    take_probability,
    unseen_counts,
)
from canasta_env.actions import (
    ADD_NATURAL,
    DISCARD,
    DRAW,
    MOVES,
    TAKE,
    TAKE_ONTO_MELD,
)
from canasta_env.cards import CARD_VALUES, is_wild
from canasta_env.core import CoreBot
from canasta_env.observation import ObservationView, decode_view
from canasta_env.rules import Rules

#: The prefix of a family's name in the registry: ``style:racer``.
PREFIX = "style:"
#: The registry's name of a training family drawn each hand.
STYLED = "styled"


@dataclass(frozen=True)
class StyleParams:
    """One hand's numbers and switches of a styled bot (the defaults: the expert's play)."""

    expert: ExpertParams  # the expert's numbers (:class:`~agents.expert.ExpertParams`)
    always_go_out: bool = False  # racer: wants out at every turn, at every player count
    go_out_canastas: int = 0  # builder: canastas its team holds before it wants out
    min_take_pot: int = 0  # controller: a smaller pot is not taken while it may draw
    meld_all: bool = False  # melder: every legal meld, at once (the greedy bot's order)
    greedy: bool = False  # noisy: the greedy bot's play, with the numbers below
    pot_loss_base: float = 50.0  # greedy's price of the pot to the next player ...
    pot_loss_per_card: float = 20.0  # ... plus this per card in it
    discard_noise: float = 0.0  # greedy: standard deviation of noise on a discard's cost
    naive: bool = False  # naive: the simple rules below instead of the expert's play
    naive_take_pot: int = 0  # a pot of this many cards or more is taken (0: every pot)
    naive_wild_first: bool = False  # melds with the most wild cards first (else fewest)
    naive_keep_wild: float = 300.0  # a discard's score: this for a wild card, ...
    naive_keep_count: float = 30.0  # ... plus this per card of its kind held, ...
    naive_keep_value: float = -1.0  # ... plus this times its value (below 0: high cards go)


# ---------------------------------------------------------------------- the families


def _expert_numbers(rng: random.Random, num_players: int) -> ExpertParams:
    """Every number of the expert's strategy, drawn around the tuned ones (``default_params``)."""
    return replace(
        default_params(num_players),
        small_pot=rng.randint(5, 11),
        pot_loss_base=rng.uniform(10.0, 40.0),
        pot_loss_per_card=rng.uniform(300.0, 700.0),
        behind_pot_factor=rng.uniform(1.0, 1.6),
        recent_discount=rng.uniform(0.4, 0.8),
        pair_keep=rng.uniform(35.0, 65.0),
        meld_keep=rng.uniform(30.0, 60.0),
        two_keep=rng.uniform(-10.0, 20.0),
        joker_keep=rng.uniform(100.0, 160.0),
        black3_keep=rng.uniform(0.0, 40.0),
        black3_keep_penalised=rng.uniform(-80.0, -40.0),
        wild_take_factor=rng.uniform(0.3, 0.7),
        far_behind=rng.uniform(100.0, 250.0),
        race_wild_meld=rng.randint(4, 5),
        race_take_pot=rng.randint(8, 12),
    )


def _tuned(rng: random.Random, num_players: int) -> StyleParams:
    return StyleParams(_expert_numbers(rng, num_players))


def _racer(rng: random.Random, num_players: int) -> StyleParams:
    numbers = _expert_numbers(rng, num_players)
    numbers = replace(numbers, race=True, race_wild_meld=4, race_take_pot=rng.randint(6, 10))
    return StyleParams(numbers, always_go_out=True)


def _melder(rng: random.Random, num_players: int) -> StyleParams:
    return StyleParams(_expert_numbers(rng, num_players), meld_all=True)


def _taker(rng: random.Random, num_players: int) -> StyleParams:
    numbers = replace(
        _expert_numbers(rng, num_players),
        small_pot=rng.randint(0, 2),  # a wild card is spent on (almost) any pot
        race_take_pot=2,  # racing, it still takes every pot
        pair_keep=rng.uniform(70.0, 110.0),  # pairs take pots
        pot_loss_per_card=rng.uniform(150.0, 350.0),
    )
    return StyleParams(numbers)


def _noisy(rng: random.Random, num_players: int) -> StyleParams:
    return StyleParams(
        default_params(num_players),
        greedy=True,
        pot_loss_base=rng.uniform(30.0, 70.0),
        pot_loss_per_card=rng.uniform(10.0, 40.0),
        discard_noise=rng.uniform(5.0, 30.0),
    )


def _builder(rng: random.Random, num_players: int) -> StyleParams:
    numbers = replace(_expert_numbers(rng, num_players), race=False, small_pot=rng.randint(4, 8))
    return StyleParams(numbers, go_out_canastas=rng.randint(2, 3))


def _controller(rng: random.Random, num_players: int) -> StyleParams:
    numbers = replace(
        _expert_numbers(rng, num_players),
        pot_loss_base=rng.uniform(60.0, 120.0),
        pot_loss_per_card=rng.uniform(900.0, 1500.0),
        behind_pot_factor=rng.uniform(1.4, 2.0),
        black3_keep=rng.uniform(-40.0, 0.0),  # a black 3 blocks the next player: out it goes
        recent_discount=rng.uniform(0.3, 0.6),
    )
    return StyleParams(numbers, min_take_pot=rng.randint(3, 6))


def _naive(rng: random.Random, num_players: int) -> StyleParams:
    return StyleParams(
        default_params(num_players),
        naive=True,
        naive_take_pot=0 if rng.random() < 0.5 else rng.randint(2, 6),
        naive_wild_first=rng.random() < 0.25,
        naive_keep_wild=rng.uniform(60.0, 400.0),
        naive_keep_count=rng.uniform(5.0, 40.0),
        naive_keep_value=rng.uniform(-1.5, 1.0),
        discard_noise=rng.uniform(0.0, 15.0),
    )


#: Each family's draw of a hand's numbers: ``draw(rng, num_players)``.
FAMILIES: dict[str, Callable[[random.Random, int], StyleParams]] = {
    "tuned": _tuned,
    "racer": _racer,
    "melder": _melder,
    "taker": _taker,
    "noisy": _noisy,
    "builder": _builder,
    "controller": _controller,
    "naive": _naive,
}
#: Families a learner may meet in training (``styled`` draws among them).
TRAINING_STYLES = ("tuned", "racer", "melder", "taker", "noisy", "naive")
#: Families kept out of training, to measure generalisation against.
HELD_OUT_STYLES = ("builder", "controller")
assert sorted(TRAINING_STYLES + HELD_OUT_STYLES) == sorted(FAMILIES)


def style_name(family: str) -> str:
    """The registry's name of a family: ``style:racer``."""
    return PREFIX + family


#: Registry names of the training families and ``styled``, and of the held-out families.
TRAINING_NAMES = (STYLED, *map(style_name, TRAINING_STYLES))
HELD_OUT_NAMES = tuple(map(style_name, HELD_OUT_STYLES))


# ---------------------------------------------------------------------- the bot


class StyledAgent(ExpertAgent):
    """A bot of one family (``family``), or of a training family drawn each hand (None);
    its numbers drawn each hand from its own generator (see the module doc)."""

    name = STYLED

    def __init__(self, seed: int | None = None, family: str | None = None):
        if family is not None and family not in FAMILIES:
            raise ValueError(f"unknown style {family!r}; choose from {', '.join(FAMILIES)}")
        super().__init__(seed)
        self.family_given = family
        self.family = family or TRAINING_STYLES[0]
        self.style = StyleParams(self.params)
        self.rng = random.Random(seed)
        if family is not None:
            self.name = style_name(family)

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.rng = random.Random(seed)
        self.core_bot = None  # its generator is the old one

    def reset(self, seat: int, num_players: int, rules: Rules | str) -> None:
        twin = self.core_bot
        if twin is not None and twin.acted:  # the last hand was played in the core: its draws
            self.rng.setstate(twin.rng_state())
        start = random.Random()
        start.setstate(self.rng.getstate())
        super().reset(seat, num_players, rules)
        self.family = self.family_given or self.rng.choice(TRAINING_STYLES)
        self.style = FAMILIES[self.family](self.rng, num_players)
        self.params = self.style.expert
        self.core_bot = core_twin(  # draws this hand's numbers again from the same state
            self,
            StyledAgent,
            seat,
            num_players,
            self.rules,
            lambda: CoreBot(self.core_name, rng=start),
            fresh=True,
        )

    def batch_twin(self) -> CoreBot | None:
        """This bot's twin for the batched core (:func:`canasta_env.core.batch_twin`): its
        family by name (``styled`` draws one each deal), the batch seeding its generator;
        None for a subclass, which may play otherwise."""
        return CoreBot(self.core_name, seed=0) if type(self) is StyledAgent else None

    @property
    def core_name(self) -> str:
        """The twin's name in the core: the family's (``style:racer``, or ``styled``), never
        the label an arena gives the agent (``x=style:builder`` renames it ``x``)."""
        return STYLED if self.family_given is None else style_name(self.family_given)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self.rules is not None and self.style.greedy:
            return self._greedy_act(observation, action_mask, self.rules)
        if self.style.naive:
            return self._naive_act(observation, action_mask)
        return super().act(observation, action_mask)

    # ------------------------------------------------------------------ the expert, changed
    def _draw_phase(self, view: ObservationView, draw_ids: list[int], rules: Rules) -> int:
        takes = [a for a in TAKE_PREFERENCE if a in draw_ids]
        if takes and DRAW in draw_ids and view.pot_size < self.style.min_take_pot:
            return DRAW  # controller: a small pot is not worth the cards it gives away
        return super()._draw_phase(view, draw_ids, rules)

    def _choose_meld(
        self, view: ObservationView, meld_ids: list[int], discard_ids: list[int], rules: Rules
    ) -> int | None:
        if self.style.meld_all and meld_ids and view.me.opened:
            return max(meld_ids, key=lambda a: meld_all_key(view, a))
        return super()._choose_meld(view, meld_ids, discard_ids, rules)

    def _want_go_out(self, view: ObservationView, rules: Rules) -> bool:
        if self.style.always_go_out:
            return True
        if view.me.canastas < self.style.go_out_canastas:
            if view.stock <= 2 * view.num_players * view.draw_count:
                return True  # the hand ends soon anyway
            # out only to take a lead before the other side goes out itself
            return self._opponent_can_go_out(view, rules) and (
                hand_margin(view, rules, going_out=True) > 0
            )
        return super()._want_go_out(view, rules)

    # ------------------------------------------------------------------ the greedy bot, noisy
    def _greedy_act(self, observation: np.ndarray, action_mask: np.ndarray, rules: Rules) -> int:
        return greedy_move(observation, action_mask, rules, self._noisy_discard)

    def _noisy_discard(self, view: ObservationView, discard_ids: list[int], rules: Rules) -> int:
        unseen, pool = unseen_counts(view, rules)
        style = self.style
        pot_loss = style.pot_loss_base + style.pot_loss_per_card * (view.pot_size + 1)

        def cost(action: int) -> float:
            kind = MOVES[action].slot  # the kind discarded
            risk = take_probability(view, kind, rules, unseen, pool)
            keep = GreedyAgent.keep_value(view, kind, unseen)
            return keep + risk * pot_loss + self.rng.gauss(0.0, style.discard_noise)

        costs = [(cost(a), a) for a in discard_ids]  # one noise draw per legal discard, in order
        return min(costs)[1]

    # ------------------------------------------------------------------ the naive bot
    def _naive_act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Take (a big enough pot), else meld (all it can, one meld a call), else discard
        the card of lowest score; else the first legal id (draw, or pass)."""
        style = self.style
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        view = decode_view(observation)
        takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
        if takes and view.pot_size >= style.naive_take_pot:
            return takes[0]
        melds = [a for a in legal if a >= ADD_NATURAL]
        if melds:
            sign = -1 if style.naive_wild_first else 1
            return min(melds, key=lambda a: sign * MOVES[a].wilds)  # the first of the best
        discards = [a for a in legal if DISCARD <= a < ADD_NATURAL]
        if not discards:
            return DRAW if DRAW in legal else legal[0]

        def score(action: int) -> float:
            kind = action - DISCARD
            return (
                style.naive_keep_wild * is_wild(kind)
                + style.naive_keep_count * view.hand[kind]
                + style.naive_keep_value * CARD_VALUES[kind]
                + self.rng.gauss(0.0, style.discard_noise)
            )

        scores = [(score(a), a) for a in discards]  # one noise draw per legal discard, in order
        return min(scores)[1]
