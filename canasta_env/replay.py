"""Replays: the rules, seed, optional stacked deck and action ids of a game.

A replay rebuilds a game exactly: ``Game(rules, num_players, seed=seed, deck=deck)`` and
then the actions in order, on a table (:func:`replay_positions`, the one replayer, which
:func:`replay_game` and the browser's replay tables play through). Actions are stored per
hand (``actions[h]`` is the list of ids played in hand ``h``); between two hands
:meth:`~canasta_env.engine.game.Game.next_hand` deals the next one, so a replay whose last
list is empty ends just after a deal. The stacked deck, when given, stacks the first hand
only (later hands are shuffled by the seeded generator, as in the game). The format is
described in ``docs/state_format.md``::

    replay = Replay.from_game(game, actions)   # the ids applied to ``game``
    replay.save("game.replay.json")
    again = replay_game(Replay.load("game.replay.json"))
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from canasta_env.actions import ACTION_TEXTS, NUM_ACTIONS, str_to_action
from canasta_env.cards import NUM_KINDS, kind_code, parse_suited, suited_code
from canasta_env.engine.game import Game, IllegalActionError
from canasta_env.jsonfile import check_depth, read_bounded
from canasta_env.rules import Rules
from canasta_env.safe_write import atomic_write
from canasta_env.state_io import (
    parse_rules,
    pretty_json,
    read_json,
    rules_to_dict,
    state_to_dict,
)
from canasta_env.state_io.layout import MAX_DIGITS
from canasta_env.state_io.values import check_code_lengths, digits, names, show
from canasta_env.table import Table

REPLAY_FORMAT = "canasta-env/replay"
REPLAY_VERSION = 1
#: Bounds on a replay read from elsewhere. A whole game has a few thousand actions (a random
#: game of classic about 1,000 in 4 to 10 hands); a game to the highest target score
#: (``MAX_POINTS``) has more, but not a million. An action takes some 17 bytes of a file
#: (its id and its text), 50 at most.
MAX_REPLAY_ACTIONS = 1_000_000
MAX_REPLAY_HANDS = 100_000
MAX_REPLAY_BYTES = 64 * 2**20
REPLAY_FIELDS = (
    "format",
    "version",
    "variant",
    "rules",
    "num_players",
    "seed",
    "deck",
    "actions",
    "action_texts",
)


def _fail(problem: str) -> NoReturn:
    raise ValueError(f"invalid replay: {problem}")


def _deck_codes(deck: Any) -> list[str] | None:
    """A stacked deck (codes, one string, or kinds) as a list of card codes."""
    if deck is None:
        return None
    cards = deck.split() if isinstance(deck, str) else list(deck)
    if all(isinstance(card, str) for card in cards):
        check_code_lengths(cards, "deck", "replay")
        try:
            # suits are kept: the optional S-19 runs need them
            return [suited_code(kind, suit) for kind, suit in parse_suited(cards)]
        except ValueError as error:
            raise ValueError(f"invalid replay: field 'deck': {error}") from None
    if all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c < NUM_KINDS for c in cards):
        return [kind_code(kind) for kind in cards]
    raise ValueError(
        "invalid replay: field 'deck': a stacked deck is a list of card codes such as 'AS' "
        "or of kinds 0..14"
    )


def _step_name(step: int, hand: int, move: int) -> str:
    return f"step {step} (hand {hand}, move {move})"


def _as_id(action: Any) -> Any:
    """A plain int for an integer-like id (numpy ints included); anything else unchanged."""
    if not isinstance(action, bool) and hasattr(action, "__index__"):
        return action.__index__()
    return action


def _per_hand(actions: Any) -> list[list[int]] | None:
    """Per-hand lists when ``actions`` is a list of lists, else None (a flat list)."""
    items = list(actions)
    if items and all(isinstance(item, (list, tuple)) for item in items):
        return [[_as_id(action) for action in item] for item in items]
    return None


@dataclass
class Replay:
    """A recorded game: rules, players, seed, stacked deck and per-hand action ids."""

    rules: Rules
    num_players: int
    seed: int | str
    actions: list[list[int]] = field(default_factory=lambda: [[]])
    deck: list[str] | None = None

    @property
    def variant(self) -> str:
        return self.rules.name

    @property
    def num_actions(self) -> int:
        return sum(len(hand) for hand in self.actions)

    def flat_actions(self) -> list[int]:
        return [action for hand in self.actions for action in hand]

    # ------------------------------------------------------------ building
    @classmethod
    def from_game(
        cls,
        game: Game,
        actions: Sequence[int] | Sequence[Sequence[int]],
        deck: Any = None,
    ) -> Replay:
        """The replay of ``game``, given the action ids applied to it since it was built.

        ``actions`` is a flat list (hand boundaries are found by replaying) or a
        list of per-hand lists; ``deck`` is the stacked deck the game was built
        with, if any. Raises ``ValueError`` when the game has no seed or the
        actions do not lead to the game's current state.
        """
        replay = record(game.rules, game.num_players, game.seed, actions, deck=deck)
        rebuilt = replay_game(replay)
        while rebuilt.hand_index < game.hand_index and rebuilt.hand_over and not rebuilt.game_over:
            rebuilt.next_hand()  # the game dealt a hand that has no actions yet
            replay.actions.append([])
        mine, theirs = state_to_dict(rebuilt), state_to_dict(game)
        if mine != theirs:
            differ = [key for key in theirs if mine.get(key) != theirs[key]]
            _fail(f"the actions do not reproduce the game (fields {differ} differ)")
        return replay

    # ------------------------------------------------------------ dict and JSON
    def to_dict(self) -> dict:
        """The replay as JSON-ready data; ``ValueError`` for an action that is not an id
        (a replay made by hand), so no file is written that its own reader refuses."""
        for h, hand in enumerate(self.actions):
            for m, action in enumerate(hand):
                if isinstance(action, bool) or not (
                    isinstance(action, numbers.Integral) and 0 <= action < NUM_ACTIONS
                ):
                    _fail(f"hand {h}, move {m}: {show(action)} is not an action id 0..499")
        return {
            "format": REPLAY_FORMAT,
            "version": REPLAY_VERSION,
            "variant": self.rules.name,
            "rules": rules_to_dict(self.rules),
            "num_players": int(self.num_players),
            "seed": self.seed,
            "deck": None if self.deck is None else list(self.deck),
            "actions": [[int(a) for a in hand] for hand in self.actions],
            "action_texts": [[ACTION_TEXTS[a] for a in hand] for hand in self.actions],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Replay:
        """Check the structure of a replay dict (legality is checked by :func:`replay_game`)."""
        if not isinstance(data, dict):
            _fail(f"expected a mapping, got {type(data).__name__}")
        if data.get("format") != REPLAY_FORMAT:
            _fail(f"field 'format': expected {REPLAY_FORMAT!r}, got {show(data.get('format'))}")
        version = data.get("version")
        if isinstance(version, bool) or version != REPLAY_VERSION:
            _fail(
                f"field 'version': unsupported version {show(version)}; expected {REPLAY_VERSION}"
            )
        missing = [key for key in REPLAY_FIELDS if key not in data]
        if missing:
            _fail(f"missing field(s) {missing}")
        extra = sorted((key for key in data if key not in REPLAY_FIELDS), key=show)
        if extra:
            _fail(f"unknown field(s) {names(extra)}")
        rules = parse_rules(data["rules"], data["num_players"], what="replay")
        if data["variant"] != rules.name:
            _fail(
                f"field 'variant': {show(data['variant'])} disagrees with rules.name {rules.name!r}"
            )
        seed = data["seed"]
        if isinstance(seed, bool) or not isinstance(seed, (int, str)):
            _fail(f"field 'seed': expected an integer or a string, got {show(seed)}")
        if isinstance(seed, int) and digits(seed) > MAX_DIGITS:
            _fail(f"field 'seed': a seed has at most {MAX_DIGITS} digits, got {show(seed)}")
        deck = data["deck"]
        if deck is not None:
            if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
                _fail(f"field 'deck': expected null or a list of card codes, got {show(deck)}")
            deck = _deck_codes(deck)
        actions, texts = data["actions"], data["action_texts"]
        if not isinstance(actions, list) or not all(isinstance(hand, list) for hand in actions):
            _fail("field 'actions': expected a list of per-hand lists of action ids")
        if not actions:
            _fail("field 'actions': expected at least one (possibly empty) hand")
        if len(actions) > MAX_REPLAY_HANDS:
            _fail(
                f"field 'actions': {len(actions):,} hands; a replay holds at most "
                f"{MAX_REPLAY_HANDS:,}"
            )
        total = sum(len(hand) for hand in actions)
        if total > MAX_REPLAY_ACTIONS:
            _fail(
                f"field 'actions': {total:,} actions; a replay holds at most {MAX_REPLAY_ACTIONS:,}"
            )
        if not isinstance(texts, list) or [
            len(h) if isinstance(h, list) else None for h in texts
        ] != [len(h) for h in actions]:
            _fail("field 'action_texts': expected per-hand lists of the same lengths as 'actions'")
        step = 0
        for hand, (ids, words) in enumerate(zip(actions, texts, strict=True)):
            for move, (action, text) in enumerate(zip(ids, words, strict=True)):
                where = _step_name(step, hand, move)
                if isinstance(action, bool) or not isinstance(action, int):
                    _fail(f"{where}: action {show(action)} is not an integer id")
                if not 0 <= action < NUM_ACTIONS:
                    _fail(f"{where}: action {show(action)} is outside 0..{NUM_ACTIONS - 1}")
                try:
                    same = isinstance(text, str) and str_to_action(text) == action
                except ValueError:
                    same = False
                if not same:
                    _fail(
                        f"{where}: action_texts says {show(text)} but action {action} is "
                        f"{ACTION_TEXTS[action]!r}"
                    )
                step += 1
        return cls(
            rules=rules,
            num_players=data["num_players"],
            seed=seed,
            actions=[list(hand) for hand in actions],
            deck=deck,
        )

    def to_json(self) -> str:
        return pretty_json(self.to_dict())

    @classmethod
    def from_json(cls, text: str | bytes) -> Replay:
        """A replay from JSON text (``str``, or UTF-8/16/32 ``bytes``); ``ValueError`` for
        anything that is not one: too large, nested too deeply, not JSON, not a replay."""
        if len(text) > MAX_REPLAY_BYTES:
            _fail(f"larger than {MAX_REPLAY_BYTES:,} bytes")
        data = check_depth(read_json(text, "replay"), "invalid replay")
        return cls.from_dict(data)

    def save(self, path: str | Path) -> None:
        """Write the replay to ``path`` as JSON: a new file renamed into place, never
        through a link (:func:`canasta_env.safe_write.atomic_write`)."""
        atomic_write(path, self.to_json() + "\n", "replay")

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        """The replay in a file; every problem (the file cannot be read, is too large, not
        text, not JSON, not a replay) raises one ``ValueError`` naming the file."""
        path = Path(path)
        data = read_bounded(path, f"replay {path}", MAX_REPLAY_BYTES)
        try:
            return cls.from_json(data)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None


@dataclass(frozen=True)
class Position:
    """One position of a replay: the deal of hand ``hand`` (``action`` None), or the
    action ``action`` that ``seat`` played; ``played`` actions lead to it."""

    hand: int
    played: int
    seat: int | None = None  # who played the action (None: a deal)
    action: int | None = None  # None: the deal of hand ``hand``

    @property
    def text(self) -> str:
        """The move as text: the action's, or "deal of hand N" (hands counted from 1)."""
        return f"deal of hand {self.hand + 1}" if self.action is None else ACTION_TEXTS[self.action]


def _new_table(rules: Rules, num_players: int, seed: int | str, deck: Any) -> Table:
    try:
        return Table(rules, num_players, seed=seed, deck=deck)
    except ValueError as error:
        _fail(f"cannot build the game: {error}")


def _play(table: Table, action: Any, step: int, hand: int, move: int) -> None:
    """Play ``action`` at ``table``; ValueError naming the step when it is not an id or
    cannot be played there (the table is as it was)."""
    if isinstance(action, bool) or not isinstance(action, int):
        _fail(f"{_step_name(step, hand, move)}: action {show(action)} is not an integer id")
    try:
        table.step(action)
    except IllegalActionError as error:
        text = ACTION_TEXTS[action] if 0 <= action < NUM_ACTIONS else "?"
        _fail(
            f"{_step_name(step, hand, move)}: action {show(action)} ({text!r}) "
            f"cannot be played: {error}"
        )


def replay_positions(replay: Replay) -> Iterator[tuple[Position, Table]]:
    """Play ``replay`` again on a :class:`~canasta_env.table.Table`, yielding every
    position as it is reached: the first deal, each action, and each later deal.

    The table yielded is the same one each time, stepped on (copy it to keep a position).
    Raises ``ValueError`` naming the step and action that cannot be played, or the hand
    that is not over when the next one should be dealt; the positions before it have been
    yielded. Every replayer (:func:`replay_game`, the browser's replay tables) plays
    through here.
    """
    table = _new_table(replay.rules, replay.num_players, replay.seed, replay.deck)
    yield Position(0, 0), table
    step = 0
    for hand, ids in enumerate(replay.actions):
        if hand:
            where = f"hand {hand} starts at step {step}, but"
            if not table.hand_over:
                played = len(replay.actions[hand - 1])
                _fail(f"{where} hand {hand - 1} is not over after {played} actions")
            if table.episode_ends("game"):
                _fail(f"{where} the game is over")
            table.next_hand()
            yield Position(hand, step), table
        for move, action in enumerate(ids):
            seat = table.current
            _play(table, action, step, hand, move)
            step += 1
            yield Position(hand, step, seat, action), table


def record(
    rules: Rules,
    num_players: int,
    seed: int | str,
    actions: Sequence[int] | Sequence[Sequence[int]],
    deck: Any = None,
) -> Replay:
    """Play ``actions`` on ``Game(rules, num_players, seed=seed, deck=deck)`` and record them.

    A flat list of ids continues into the next hand (``next_hand()``) whenever a
    hand ends with actions left; a list of per-hand lists gives the hands
    explicitly. Raises ``ValueError`` naming the step of an illegal action, or a seed
    that a replay file cannot hold (an int or a str: what ``Replay.load`` reads back).
    """
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, str)):
        _fail(f"field 'seed': a replay needs a game built with an int or str seed, not {seed!r}")
    seed = seed if isinstance(seed, str) else int(seed)  # (a numpy integer saves as JSON)
    codes = _deck_codes(deck)
    hands = _per_hand(actions)
    if hands is not None:
        replay = Replay(rules, num_players, seed, hands, codes)
        replay_game(replay)
        return replay
    table = _new_table(rules, num_players, seed, codes)
    per_hand: list[list[int]] = [[]]
    for step, action in enumerate(map(_as_id, actions)):
        if table.hand_over:
            if table.episode_ends("game"):
                _fail(f"step {step}: action {show(action)} comes after the end of the game")
            table.next_hand()
            per_hand.append([])
        _play(table, action, step, len(per_hand) - 1, len(per_hand[-1]))
        per_hand[-1].append(action)
    return Replay(rules, num_players, seed, per_hand, codes)


def replay_game(replay: Replay, steps: int | None = None) -> Game:
    """Rebuild the game of ``replay`` (its first ``steps`` actions when given).

    Raises ``ValueError`` naming the step and action that cannot be played, or
    the hand that is not over when the next one should be dealt.
    """
    for position, table in replay_positions(replay):
        if steps is not None and position.played >= steps:
            return table.game
    return table.game


__all__ = [
    "REPLAY_FORMAT",
    "REPLAY_VERSION",
    "Position",
    "Replay",
    "replay_positions",
    "record",
    "replay_game",
]
