"""Determinization: a whole game consistent with what one seat knows.

Search agents (IS-MCTS, the OpenSpiel adapter's ``resample_from_infostate``) play
forward from full games, but a player knows only part of one. :func:`determinize`
returns a copy of a game in which everything the seat cannot see is dealt again at
random, and everything it can see is unchanged:

* kept: the seat's own hand, every table, the face-up pot, red 3s, scores, the
  turn, the public history (G-8), each hand's size, and the cards each other seat
  is known to hold (``known``: pot cards all players saw it take, C-10);
* dealt again: the other cards of the other hands (partners' too), the stock order
  and the face-down pot cards (S-3, I-3), as one pool with the same counts. Red 3s
  never stay in a hand (G-6), so they go to the stock or the face-down pot only.

The pool is rebuilt from its counts in a fixed order before shuffling, so the result
depends on the true hidden cards only through their multiset, which the seat can
work out itself (the deck minus what it sees). The copy gets a fresh generator drawn
from ``rng`` and no seed, so later hands of the copy reveal nothing of the true
game's future deals either.

With the S-19 runs (``rules.sequences``) the state follows the suit of every natural
card (:mod:`~canasta_env.engine.sequences`), and the suits are dealt again too: the
kinds are dealt first, with exactly the random calls made without suits (so a
generator deals the same kinds with the option on or off), then, rank by rank, the
suits of that rank's hidden naturals are shuffled over its places (the other hands,
the face-down pot, the stock). The suits of the cards known to be in a hand are
pooled with them: the state keeps known cards by kind only, and no observation shows
them. Every suit count is conserved.

The hidden cards are dealt uniformly: the copy does not infer what an opponent's
discards or declined pot tops suggest about its hand (a search samples many copies).

This is the one redeal of the package: search agents' worlds (``Table.world_for``,
the OpenSpiel adapter's ``resample_with``) and the G-8 compliance check
(:func:`canasta_env.compliance.permute_hidden`, with ``keep_held=True``) all call
:func:`determinize`.
"""

from __future__ import annotations

import random

from canasta_env.cards import NUM_KINDS, RED3
from canasta_env.engine.game import Game


def known_in_hand(game: Game, seat: int) -> list[int]:
    """The counts by kind of the cards all players know ``seat`` holds in its hand: its
    ``known`` cards, less those set aside for its opening (C-8) while it has them."""
    return [min(known, count) for known, count in zip(game.known[seat], game.hands[seat])]


def hidden_pool(game: Game, seat: int) -> list[int]:
    """The counts by kind of the cards ``seat`` cannot see: the other seats' hands less
    their known cards, the stock and the face-down pot cards."""
    pool = [0] * NUM_KINDS
    for other in range(game.num_players):
        if other == seat:
            continue
        hand, known = game.hands[other], known_in_hand(game, other)
        for kind in range(NUM_KINDS):
            pool[kind] += hand[kind] - known[kind]
    for kind in game.stock:
        pool[kind] += 1
    for kind in game.pot_hidden_cards:
        pool[kind] += 1
    return pool


def determinize(game: Game, seat: int, rng: random.Random, *, keep_held: bool = False) -> Game:
    """A copy of ``game`` with every card ``seat`` cannot see dealt again from ``rng``
    (with their suits where the state tracks them, S-19).

    Raises ``ValueError`` (and changes nothing) for a seat out of range, for a hand
    known to hold cards it does not, and for a seat other than the one to act while
    that player holds pot cards set aside for its opening (C-8): the face-down ones
    among them are not tracked apart. ``keep_held=True`` deals everything else again
    and leaves the set-aside cards where they are instead (a partial redeal, as the
    G-8 check wants: it must not change what the seat sees either).
    """
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be an int in 0..{game.num_players - 1}, got {seat!r}")
    if not keep_held and any(game.held) and seat != game.current:
        raise ValueError(
            f"seat {seat} cannot be determinized while player {game.current} holds "
            "pot cards set aside for its opening (C-8)"
        )
    for other in range(game.num_players):
        held = game.held if other == game.current else [0] * NUM_KINDS
        known = zip(game.known[other], game.hands[other], held)
        if other != seat and any(k > h + aside for k, h, aside in known):
            raise ValueError(f"player {other} is known to hold cards not in its hand")
    pool = hidden_pool(game, seat)
    # a fixed order (by kind), so the result depends on the hidden cards' counts only
    holdable = [kind for kind in range(NUM_KINDS) if kind != RED3 for _ in range(pool[kind])]
    rng.shuffle(holdable)
    world = game.copy()
    world.seed = None
    world.rng = random.Random(rng.getrandbits(64))
    dealt = 0
    for other in range(game.num_players):
        if other == seat:
            continue
        hand = known_in_hand(game, other)
        unknown = game.hand_totals[other] - sum(hand)
        for kind in holdable[dealt : dealt + unknown]:
            hand[kind] += 1
        dealt += unknown
        world.hands[other] = hand
    rest = holdable[dealt:] + [RED3] * pool[RED3]
    rng.shuffle(rest)
    face_down = game.pot_hidden
    world.pot = rest[:face_down] + game.pot[face_down:]
    world.stock = rest[face_down:]
    world.suits = game.suits.redealt(game, world, seat, rng)  # S-19 (none without)
    world.state_changed()
    return world


__all__ = ["determinize", "hidden_pool", "known_in_hand"]


def act_with_world(agent, game: Game, observation, action_mask) -> int:
    """The action of ``agent`` at ``game``'s turn: what every runner of a table calls.

    An agent with a ``see_world`` method (a search agent) first gets a determinization
    of ``game`` from the seat to act, drawn from the agent's own ``rng`` (so it stays
    deterministic given its seed), never the game itself; every other agent gets the
    observation and mask only.
    """
    see_world = getattr(agent, "see_world", None)
    if see_world is not None:
        seed = agent.rng.getrandbits(64)
        see_world(determinize(game, game.current, random.Random(seed)))
    return agent.act(observation, action_mask)
