"""Generate ``docs/env.md``: the environment's page, laid out as PettingZoo's and Gymnasium's
environment pages are (a summary table, then description, arguments, observation space,
action space, rewards, episode end and version history).

What the page says that can be checked is read from the code when the page is written: the
spaces from live env objects, the action ids from :mod:`canasta_env.actions` (its range
constants and :data:`~canasta_env.actions.MOVES`), the observation's blocks from
``LAYOUT``, the arguments and their defaults from ``inspect.signature`` of the constructors,
what each argument may be from the env's own checks (``OPTIONS``, ``GYM_OPTIONS``), the
reward and episode modes, bounds and info keys from the modules that define them. Only the
meanings are written here, one per argument, action range and block; a test checks that
each list names exactly what the code declares. ``python -m canasta_env.docs`` writes it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import gymnasium
import numpy as np

from canasta_env import actions, canasta_v0
from canasta_env.actions import (
    ACTION_TEXTS,
    COMPOSITIONS,
    ESCALA,
    MOVE_DISCARD,
    MOVE_MELD,
    MOVE_RUN,
    MOVES,
    NUM_ACTIONS,
    NUM_COMPOSITIONS,
    RUNS,
    WILD_COMPOSITIONS,
    slot_name,
)
from canasta_env.cards import KIND_NAMES, NUM_NATURALS, SUITS, deck_counts
from canasta_env.engine.scoring import SHEET_ROWS
from canasta_env.engine.state import END_REASONS, team_of_seat
from canasta_env.env import OPTIONS, RESET_OPTIONS
from canasta_env.gym_env import ENV_ID, GYM_OPTIONS, CanastaGymEnv
from canasta_env.gym_vector import CanastaVectorEnv
from canasta_env.observation import HIGHS, LAYOUT, LOWS, OBS_SIZE, OBS_SIZE_V0, OBS_SIZE_V1
from canasta_env.options import ILLEGAL_ACTION_MODES, REWARD_SCALE_RANGE
from canasta_env.rules import MAX_COUNT, MAX_DECK_CARDS, MAX_SCORE, PLAYER_COUNTS, PRESETS
from canasta_env.table import EPISODE_MODES, REWARD_MODES

#: The constructor of the AEC env (``canasta_v0.raw_env``; ``canasta_v0.env`` passes its
#: keywords to it) and of the Gymnasium env (``gymnasium.make(ENV_ID, ...)``).
AEC_CLASS = canasta_v0.raw_env
GYM_CLASS = CanastaGymEnv
VECTOR_CLASS = CanastaVectorEnv
#: The table the page's live envs are built at, and the engine (the spaces are the same on
#: both engines; the Python one is there in every install).
PAGE_PLAYERS = 2
PAGE_BACKEND = "python"
#: The hand the page plays to read the end-of-hand info: this seed, the last legal id each turn.
PAGE_SEED = 0

# ---------------------------------------------------------------------- meanings

#: Each argument of the AEC env's constructor; ``**rule_overrides`` is the house rules.
AEC_MEANINGS: dict[str, str] = {
    "variant": "the preset (its rules: [Presets side by side](presets.md)), or a `Rules` "
    "object (`canasta_env.make_rules`)",
    "num_players": "players at the table; the teams at each count are in the table at the top",
    "render_mode": '`"ansi"` returns the table as text, `"human"` prints it after every step, '
    '`"rgb_array"` returns an image; a spectator\'s view with every hand open',
    "reward": "what a seat earns (see [Rewards](#rewards))",
    "reward_scale": '`"score"` rewards are the score difference divided by it',
    "episode": '`"hand"`: one hand; `"game"`: hands until a team reaches the target score (G-7)',
    "max_cycles": "truncate the episode after that many decisions of all seats (None: never)",
    "illegal_action": '`"raise"`: `IllegalActionError`, nothing changes; `"terminate"`: the '
    "episode ends with `illegal_reward` for the offender",
    "illegal_reward": "the offender's reward when an illegal action ends the episode "
    '(`"terminate"`)',
    "backend": '`"core"`: the compiled engine; `"python"`: the Python engine; None: the core '
    "where it is built, else the Python engine with a one-line warning (the same game bit for "
    "bit)",
    "rule_overrides": "any rules field, a house rule: `target_score=5000`; each checked against "
    "its declared range (`canasta_env.rules.BOUNDS`)",
}

#: Each argument of the Gymnasium env's constructor; the rest mean what they mean above.
GYM_MEANINGS: dict[str, str] = {
    "variant": "as for the AEC env",
    "num_players": "as for the AEC env",
    "opponents": "None: a uniformly random legal action (from the env's seeded generator); "
    "an agent name (`random`, `greedy`, `expert`, `ppo:classic-2p`, ...), an agent object "
    "(`act(observation, action_mask)`), a callable `(observation, action_mask) -> action`, "
    "or a sequence of those with one per other seat in seat order",
    "learner": '`"team"`: the learner plays every seat of its team (both partners at 4 '
    'players); `"seat"`: one seat',
    "seat": "the learner's seat; None: drawn at each reset from the reset seed",
    "reward": "as for the AEC env, for the learner's seat",
    "reward_scale": "as for the AEC env",
    "episode": "as for the AEC env",
    "max_cycles": "as for the AEC env (decisions of all seats, the opponents' too)",
    "illegal_action": '`"terminate"`: the episode ends with `illegal_reward`; `"raise"`: '
    "`IllegalActionError`, nothing changes. An id outside the action space, or an opponent's "
    "illegal action, always raises",
    "illegal_reward": "as for the AEC env",
    "render_mode": "as for the AEC env, but always the view of the learner's seat to act: no "
    "other hand is shown",
    "backend": "as for the AEC env",
    "rule_overrides": "as for the AEC env",
}

#: Each action range, by the constant of :mod:`canasta_env.actions` where it starts; a range
#: runs to the next one's start (the last to ``NUM_ACTIONS``).
ACTION_MEANINGS: dict[str, str] = {
    "DRAW": "draw the preset's number of stock cards (`draw_count`)",
    "TAKE": "take the pot with the naturals it needs (2, or 3 while it is frozen or crossed); "
    "they and the top card form a meld or join the team's unfinished meld of that rank",
    "TAKE_WITH_TWO": "take the pot with one natural and a 2 (C-11)",
    "TAKE_WITH_JOKER": "take the pot with one natural and a joker (C-11)",
    "TAKE_ONTO_MELD": "take the pot: its top card joins a meld of the team (C-11)",
    "PASS": "the stock is exhausted: decline the pot, which ends the hand",
    "DISCARD": "discard a card of a holdable kind, one id a kind; discarding the last card "
    "goes out",
    "ADD_NATURAL": "add one natural to the team's meld of its rank, or a black 3 to its "
    "black-3 meld",
    "ADD_TWO": "add a 2 to the team's meld of a rank, or to its wild-only meld",
    "ADD_JOKER": "add a joker to the team's meld of a rank, or to its wild-only meld",
    "NEW_MELD": "lay a new meld of a natural rank: one id for each rank and composition "
    "(naturals, 2s, jokers)",
    "NEW_BLACK3": "lay a new meld of black 3s, one id for each size",
    "NEW_WILD": "lay a new meld of wild cards only (2s and jokers), one id for each composition",
    "ESCALA": "lay an S-19 run whole (only with `sequences=True`): per suit, the runs of 7 "
    "naturals in a row and the escala real 4 to A",
}

#: What each block of the observation holds (the fields: docs/observation.md).
BLOCK_MEANINGS: dict[str, str] = {
    "hand": "the viewer's hand, per card kind",
    "held": "pot cards held back until an unopened team meets its minimum",
    "pot_top": "the kind of the pot's top card",
    "pot_state": "the pot's size and its frozen, crossed and blocked state",
    "pot_known": "the pot's face-up cards, per kind",
    "teams": "each team's melds, canastas, red 3s, opening and score, the viewer's team first",
    "players": "each seat's hand size and the cards known to be in it",
    "turn": "the phase, the opening points staged, the stock",
    "table": "the table's rules and player count",
    "sequences": "the S-19 runs: suits of the viewer's naturals, runs laid",
    "history": "each seat's discards and declined pot tops; the discards since the viewer's own",
}

#: Why each observation size came: the block that was added, by the size it made.
GROWTH: dict[int, str] = {
    OBS_SIZE_V0: "the first layout",
    OBS_SIZE_V1: "the optional Spanish runs (S-19)",
    OBS_SIZE: "the public history of the hand",
}

#: What changed in the env's behaviour since the first version, from CHANGELOG.md.
CHANGES_SINCE_FIRST = (
    f'`gym.make_vec("{ENV_ID}", num_envs=N)` builds the id\'s own vector env '
    "(`canasta_env.gym_vector`), and `canasta_env.sb3_vec.sb3_vec_env` an SB3 `VecEnv` over "
    "the same tables ([Vector faces](vector.md)); both take a seed of any size, as the "
    "single env does.",
    "The player to act always has a legal action (`min_meld_size=2` with black 3s could "
    "strand them); black-3 melds obey `min_meld_size`.",
    "Every rules set `make_rules` accepts plays on both engines, and every decision ends in "
    "bounded time, up to the ends of `rules.BOUNDS`; the core no longer refuses rules whose "
    "canastas close often.",
    "Bad actions get the same exception and message on both engines; the core refuses any "
    "state, rules or seed it cannot hold.",
    '`reset(options={"state": ...})` refuses a saved state whose player to act has no legal '
    "action.",
    "One env is stepped by one thread at a time: a second thread's `reset` or `step` raises "
    "`RuntimeError`.",
    "The observation space is bounded: each entry within its field's declared range "
    "(`observation.LOWS`, `HIGHS`) instead of `Box(-inf, inf)`; both engines refuse a saved "
    "state with a counter past `rules.MAX_COUNT` or a score past `rules.MAX_SCORE` (the "
    "Python engine took up to 2**53 - 1).",
)

# ---------------------------------------------------------------------- reading the code


def _text(value) -> str:
    """A default as it is written in a call: strings in double quotes."""
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _ids(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def arguments(cls: type) -> list[inspect.Parameter]:
    """The constructor's arguments in order, ``self`` left out."""
    return [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]


def action_ranges() -> list[tuple[str, int, int]]:
    """``(constant, first id, last id)`` of each range of :data:`ACTION_MEANINGS`, in id order."""
    starts = [(name, getattr(actions, name)) for name in ACTION_MEANINGS]
    stops = [start for _, start in starts[1:]] + [NUM_ACTIONS]
    return [(name, start, stop - 1) for (name, start), stop in zip(starts, stops)]


def _live_envs():
    """The AEC env (``canasta_v0.env``) and the Gymnasium env (``gymnasium.make``) the page
    reads its spaces from."""
    aec = canasta_v0.env(num_players=PAGE_PLAYERS, backend=PAGE_BACKEND)
    gym_env = gymnasium.make(ENV_ID, num_players=PAGE_PLAYERS)
    return aec, gym_env


def _end_of_hand_info() -> dict:
    """The info of a hand played to its end: ``PAGE_SEED``, the last legal id every turn."""
    env = canasta_v0.env(num_players=PAGE_PLAYERS, backend=PAGE_BACKEND)
    env.reset(seed=PAGE_SEED)
    for _agent in env.agent_iter():
        observation, _, termination, truncation, info = env.last()
        if termination or truncation:
            return info
        env.step(int(np.flatnonzero(observation["action_mask"])[-1]))
    raise RuntimeError("the hand did not end")


def _members(num_players: int) -> dict[int, list[int]]:
    """Team -> its seats, by the engine's seating."""
    members: dict[int, list[int]] = {}
    for seat in range(num_players):
        members.setdefault(team_of_seat(num_players, seat), []).append(seat)
    return members


def _team_size(num_players: int) -> int:
    sizes = {len(seats) for seats in _members(num_players).values()}
    if len(sizes) != 1:  # the page says every seat's rewards sum to 0: teams of one size
        raise ValueError(f"teams of different sizes at {num_players} players: {sizes}")
    return sizes.pop()


def _teams(num_players: int) -> str:
    """``2 teams of 2`` and the seats of the first team."""
    members = _members(num_players)
    size = _team_size(num_players)
    seats = "" if size == 1 else f", seats {', '.join(map(str, members[0]))} partners"
    return f"{len(members)} teams of {size}{seats}"


def _decision_bounds() -> list[str]:
    """Per preset, the most decisions a hand can take at each player count (the engine's
    bound, ``4 x deck size + 1``, canasta_env/engine/game.py)."""
    rows = ["| preset | " + " | ".join(f"{n} players" for n in PLAYER_COUNTS) + " |"]
    rows.append("|---|" + "---|" * len(PLAYER_COUNTS))
    for name, rules in PRESETS.items():
        cells = []
        for players in PLAYER_COUNTS:
            if players in rules.player_counts:
                deck = sum(deck_counts(rules.decks_for(players), rules.jokers_per_deck))
                cells.append(f"{4 * deck + 1:,}")
            else:
                cells.append("-")
        rows.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return rows


# ---------------------------------------------------------------------- the page's parts


def _summary(aec, gym_env) -> list[str]:
    agent = aec.possible_agents[0]
    obs_space = aec.observation_space(agent)
    action_space = aec.action_space(agent)
    observation, mask = obs_space["observation"], obs_space["action_mask"]
    counts = "; ".join(
        f"`{name}`: {', '.join(map(str, rules.player_counts))}" for name, rules in PRESETS.items()
    )
    teams = ", ".join(f"{n} ({_teams(n)})" for n in PLAYER_COUNTS)
    parallel = "Yes" if aec.metadata["is_parallelizable"] else "No"
    return [
        f"| | PettingZoo AEC (`{aec.metadata['name']}`) | Gymnasium (`{ENV_ID}`) |",
        "|---|---|---|",
        f"| Import | `from canasta_env import canasta_v0` | `import canasta_env` "
        f'(registers the id), then `gymnasium.make("{ENV_ID}")` |',
        "| Actions | Discrete | Discrete |",
        f"| Parallel API | {parallel} | - |",
        "| Manual Control | No (`canasta play` seats a person at a terminal table) | No |",
        f"| Agents | `agents = {aec.possible_agents}` at {PAGE_PLAYERS} players, "
        f"`player_0` .. `player_{max(PLAYER_COUNTS) - 1}` in all | one learner "
        "(its whole team by default), the opponents played between its decisions |",
        f"| Players | {teams}; by preset: {counts} | the same |",
        f"| Action Shape | `{action_space.shape}` (one id) | "
        f"`{gym_env.action_space.shape}` (one id) |",
        f"| Action Values | `{action_space!r}` | `{gym_env.action_space!r}` |",
        f"| Observation Shape | `observation` `{observation.shape}`, `action_mask` "
        f"`{mask.shape}` | the same |",
        f"| Observation Values | `observation` {observation.dtype}, each entry a whole number "
        "times its scale, within its field's range ([Observation space](#observation-space)), "
        f"`action_mask` {mask.dtype} in "
        f"{{{int(mask.low.min())}, {int(mask.high.max())}}} | the same |",
        "| Vector faces | `canasta_env.vector_env(num_envs=N, ...)` | "
        f'`gymnasium.make_vec("{ENV_ID}", num_envs=N, ...)` |',
    ]


def _argument_rows(cls: type, meanings: dict[str, str], allowed: Callable[[str], str]) -> list:
    rows = ["| argument | default | may be | meaning |", "|---|---|---|---|"]
    for parameter in arguments(cls):
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            name, default = f"`**{parameter.name}`", "-"
        else:
            name, default = f"`{parameter.name}`", f"`{_text(parameter.default)}`"
        rows.append(
            f"| {name} | {default} | {allowed(parameter.name)} | {meanings[parameter.name]} |"
        )
    return rows


def _allowed(name: str, options: dict) -> str:
    """What an argument may be, as the env's check says it when it refuses a value."""
    if name == "variant":
        return "one of " + ", ".join(f'`"{n}"`' for n in PRESETS) + " or a `Rules` object"
    if name == "num_players":
        return "a player count of the preset (Players, at the top)"
    if name == "rule_overrides":
        return "rules fields ([presets](presets.md))"
    if name in options:
        return options[name][0].replace("'", '"')
    return "see the meaning"


def _arguments(aec) -> list[str]:
    aec_default = next(p for p in arguments(AEC_CLASS) if p.name == "illegal_action").default
    return [
        "## Arguments",
        "",
        "### The AEC env",
        "",
        "`canasta_v0.env(...)` and `canasta_v0.raw_env(...)` (the same objects as "
        "`canasta_env.env` and `canasta_env.raw_env`) take these keywords. `env()` differs in "
        f"one default: `illegal_action={_text(aec.options.illegal_action)}` where `raw_env` has "
        f"`{_text(aec_default)}` (PettingZoo's TerminateIllegalWrapper, built in). Every bad "
        "argument raises `ValueError` naming it and what it may be.",
        "",
        *_argument_rows(AEC_CLASS, AEC_MEANINGS, lambda name: _allowed(name, OPTIONS)),
        "",
        f"`reset(seed=None, options=None)`: `seed` is None, an integer or a string; `options` "
        f"may hold {' and '.join(f'`{_text(key)}`' for key in RESET_OPTIONS)}: "
        '`{"deck": "AS TH ..."}` stacks the first cards of the deck in draw order, '
        '`{"state": ...}` loads a saved state ([the state format](state_format.md)).',
        "",
        "### The Gymnasium env",
        "",
        f'`gymnasium.make("{ENV_ID}", ...)` (`canasta_env.gym_env.CanastaGymEnv`) takes these '
        "keywords; the AEC env checks the ones they share. Its vector face "
        f'`gymnasium.make_vec("{ENV_ID}", num_envs=N, ...)` (`{VECTOR_CLASS.__name__}`, '
        f"[Vector faces](vector.md)) takes them too, {_vector_difference()}.",
        "",
        *_argument_rows(GYM_CLASS, GYM_MEANINGS, lambda n: _allowed(n, {**OPTIONS, **GYM_OPTIONS})),
        "",
        "`reset(seed=s)` deals the cards that `canasta_v0.env().reset(seed=s)` deals "
        "(`info[\"deal_seed\"]`) and draws the learner's seat and the opponents' seeds from `s`.",
        "",
    ]


def _vector_difference() -> str:
    """How the vector face's arguments differ from the single Gymnasium env's."""
    single = [p.name for p in arguments(GYM_CLASS)]
    vector = [p.name for p in arguments(VECTOR_CLASS)]
    parts = []
    missing = [name for name in single if name not in vector]
    if missing:
        parts.append("but " + ", ".join(f"`{name}`" for name in missing))
    if not VECTOR_CLASS.metadata["render_modes"]:
        parts.append("but `render_mode` must be None (a batch is not drawn)")
    added = [p for p in arguments(VECTOR_CLASS) if p.name not in single]
    if added:
        listed = ", ".join(f"`{p.name}={_text(p.default)}`" for p in added)
        parts.append(f"and {listed} besides")
    return ", ".join(parts) if parts else "the same"


def _space_repr(space) -> str:
    """A space's repr with the observation's per-entry bounds named, not printed whole."""
    text = repr(space)
    box = space["observation"]
    whole = f"Box({box.low}, {box.high}, {box.shape}, {box.dtype})"
    assert whole in text, "the observation Box's repr changed"
    return text.replace(whole, f"Box(LOWS, HIGHS, {box.shape}, {box.dtype})")


def _number(value) -> str:
    """A bound as written: a large power of two as ``2**k``, a whole number whole."""
    size = abs(int(value))
    if value == int(value) and size >= 2**20 and size & (size - 1) == 0:
        return f"{'-' if value < 0 else ''}2**{size.bit_length() - 1}"
    return f"{int(value)}" if value == int(value) else f"{value:g}"


def _range(low, high) -> str:
    return f"{_number(low)}..{_number(high)}"


def _observation_space(aec, gym_env) -> list[str]:
    blocks = [
        "| block | start | end | size | values | holds | fields |",
        "|---|---|---|---|---|---|---|",
    ]
    for block in LAYOUT.blocks:
        start = LAYOUT.offsets[block.name]
        stop = start + block.size
        fields = ", ".join(f"`{item.name}`" for item in block.items)
        values = _range(LOWS[start:stop].min(), HIGHS[start:stop].max())
        blocks.append(
            f"| `{block.name}` | {start} | {stop} | {block.size} | {values} | "
            f"{BLOCK_MEANINGS[block.name]} | {fields} |"
        )
    big = [span for span in LAYOUT.spans if span.field.big and span.copy in (None, 0)]
    big_ranges = ", ".join(f"`{span.field.name}` {_range(*span.field.value_range)}" for span in big)
    agent = aec.possible_agents[0]
    return [
        "## Observation space",
        "",
        "```python",
        f'canasta_v0.env(num_players={PAGE_PLAYERS}).observation_space("{agent}")',
        f"# {_space_repr(aec.observation_space(agent))}",
        f'gymnasium.make("{ENV_ID}").observation_space',
        f"# {_space_repr(gym_env.observation_space)}",
        "```",
        "",
        "`LOWS` and `HIGHS` (`canasta_env.observation`) are each entry's range, its field's "
        "declared range times its scale: 0..1 for a flag or a one-hot entry, 0..255 for the "
        "other small fields (a byte: counts of cards, an opening minimum), and for the "
        f"fields that may pass a byte (unscaled): {big_ranges}. The cards are at most the "
        f"largest deck the rules accept (`MAX_DECK_CARDS` = {MAX_DECK_CARDS}); the counters "
        "and scores at most twice what a loaded state may hold (`MAX_COUNT` = "
        f"{_number(MAX_COUNT)}, `MAX_SCORE` = {_number(MAX_SCORE)}, which both engines refuse "
        "past). The `values` column "
        "below is each block's least and largest entry, scaled.",
        "",
        f"`observation` is {OBS_SIZE} float32 entries, the same layout for every preset and "
        "player count, seen from the player it is for: it holds only what that player may "
        "know (G-8). Its blocks, where `start` and `end` are slice bounds (`obs[start:end]`); "
        "every field, its offset and scale is in [the observation, entry by entry]"
        "(observation.md#fields), and `canasta_env.observation.decode_view(obs)` reads the "
        "vector back by name.",
        "",
        *blocks,
        "",
        "### Legal actions mask",
        "",
        "`action_mask` holds 1 for each legal action id of the agent to act and 0 elsewhere: "
        "it is exact (the engine's legality search, checked against an independent brute "
        "force) and never all zero for the agent to act. Every other agent, and every agent "
        "once the episode is over, sees an all-zero mask. The Gymnasium env's "
        "`action_masks()` gives the learner's as bools (sb3-contrib's MaskablePPO reads it).",
        "",
    ]


def _action_space(aec) -> list[str]:
    rows = ["| ids | count | action | text forms | constant |", "|---|---|---|---|---|"]
    for name, first, last in action_ranges():
        texts = f"`{ACTION_TEXTS[first]}`"
        if last > first:
            texts += f" .. `{ACTION_TEXTS[last]}`"
        rows.append(
            f"| {_ids(first, last)} | {last - first + 1} | {ACTION_MEANINGS[name]} | {texts} | "
            f"`{name}` |"
        )
    space = aec.action_space(aec.possible_agents[0])
    return [
        "## Action space",
        "",
        f"`{space!r}`, one layout for every preset and player count: presets only change "
        "the mask, so one network can play every variant. A turn is several decisions, each "
        "one step of the agent to act: draw (or take the pot), any number of melds and "
        "additions, then a discard. Going out is the meld or discard that empties the hand, "
        "legal only when the team may go out.",
        "",
        *rows,
        "",
        "Every id has a text form: `canasta_env.action_to_str(id)` and its inverse "
        "`canasta_env.str_to_action(text)`; cards are written `4`..`A` (`T` is the ten), `2`, "
        "`JK`, `B3` ([card notation](engine.md#card-notation)). The constants are "
        "`canasta_env.actions.NAME`.",
        "",
        "### Ids by card",
        "",
        *_card_rows(),
        "",
        "### New melds",
        "",
        *_composition_lines(),
        "",
        "### Runs (S-19)",
        "",
        *_run_rows(),
        "",
    ]


def _card_rows() -> list[str]:
    """One row per card kind or meld slot: its discard, add and new-meld ids."""
    columns = ("discard", "add a natural", "add a 2", "add a joker", "new melds")
    cells: dict[str, dict[str, list[int]]] = {}
    for action, move in enumerate(MOVES):
        if move.kind == MOVE_DISCARD:
            row, column = KIND_NAMES[move.slot], "discard"
        elif move.kind == MOVE_MELD and move.new:
            row, column = slot_name(move.slot), "new melds"
        elif move.kind == MOVE_MELD:
            row = slot_name(move.slot)
            column = "add a natural" if move.naturals else "add a 2" if move.twos else "add a joker"
        else:
            continue
        cells.setdefault(row, {}).setdefault(column, []).append(action)
    lines = ["| card | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    for row, found in cells.items():
        texts = []
        for column in columns:
            ids = found.get(column)
            if ids is None:
                texts.append("-")
                continue
            if ids != list(range(ids[0], ids[-1] + 1)):  # the layout keeps each one contiguous
                raise ValueError(f"the {column} ids of {row} are not one range: {ids}")
            texts.append(_ids(ids[0], ids[-1]))
        lines.append(f"| `{row}` | " + " | ".join(texts) + " |")
    return [
        "Each card kind (`wild`: the meld of wild cards only) and the ids that play it:",
        "",
        *lines,
    ]


def _composition_lines() -> list[str]:
    comps = ", ".join(f"({n}, {t}, {j})" for n, t, j in COMPOSITIONS)
    wilds = ", ".join(f"({t}, {j})" for t, j in WILD_COMPOSITIONS)
    new_meld = actions.NEW_MELD
    return [
        f"A new meld of a natural rank is `NEW_MELD + rank x {NUM_COMPOSITIONS} + c` "
        f"({new_meld} + ...; ranks 0..{NUM_NATURALS - 1} are "
        f"`{KIND_NAMES[0]}`..`{KIND_NAMES[NUM_NATURALS - 1]}`), where `c` is the place of "
        f"its composition (naturals, 2s, jokers) in this order: {comps}. "
        "`canasta_env.actions.new_meld_action(rank, naturals, twos, jokers)` computes it. A "
        f"meld of wild cards only is `NEW_WILD` ({actions.NEW_WILD}) plus the place of its "
        f"(2s, jokers) in: {wilds}. A meld of more cards than one action lays is laid "
        "smaller and grown with the add actions.",
    ]


def _run_rows() -> list[str]:
    lines = ["| suit | ids | runs |", "|---|---|---|"]
    for suit, letter in enumerate(SUITS):
        ids = [a for a, move in enumerate(MOVES) if move.kind == MOVE_RUN and move.suit == suit]
        runs = ", ".join(
            ACTION_TEXTS[a].removeprefix("escala ").removesuffix(f" {letter}") for a in ids
        )
        lines.append(f"| `{letter}` | {_ids(ids[0], ids[-1])} | {runs} |")
    return [
        f"Per suit, {len(RUNS)} runs: seven naturals in a row from each rank that has six "
        "above it, and the escala real (4 to A). Legal only with `sequences=True`.",
        "",
        *lines,
    ]


def _rewards() -> list[str]:
    defaults = {p.name: p.default for p in arguments(AEC_CLASS)}
    gym_default = next(p for p in arguments(GYM_CLASS) if p.name == "reward").default
    if gym_default == defaults["reward"]:
        default = f"default `{_text(gym_default)}` in both envs"
    else:
        default = (
            f"default `{_text(defaults['reward'])}`, the Gymnasium env's `{_text(gym_default)}`"
        )
    score, win = REWARD_MODES
    return [
        "## Rewards",
        "",
        f"`reward` is one of {', '.join(f'`{_text(m)}`' for m in REWARD_MODES)} "
        f"({default}). Rewards come on the step that ends a hand and are "
        "0 on every other step; a seat's reward is its team's, so partners receive the same.",
        "",
        f'- `{_text(score)}`: at the end of every hand (with `episode="game"` too, hand by '
        "hand), the team's hand total minus the mean hand total of the other teams, divided "
        f"by `reward_scale` (default `{_text(defaults['reward_scale'])}`, allowed "
        f"{REWARD_SCALE_RANGE} so that every reward is finite). The teams "
        "are of equal size, so the rewards of all seats sum to 0. At 2 players, hand totals "
        f"of 1140 and 425 give {(1140 - 425) / defaults['reward_scale']:+g} and "
        f"{(425 - 1140) / defaults['reward_scale']:+g}.",
        f"- `{_text(win)}`: 0 until the episode ends; then +1 to the seats of the team with "
        "the highest points alone, 0 to the teams tied for the highest, -1 to the others. "
        "The points are the hand's totals with `episode=\"hand\"`, the game's running totals "
        'with `episode="game"`, where the winner is the team the rules declare (the first '
        "past the target, ties broken by the rules).",
        f'- An illegal action with `illegal_action="terminate"`: `illegal_reward` (default '
        f"`{_text(defaults['illegal_reward'])}`) to the offender, 0 to the others, and the "
        "episode ends.",
        "",
        "A hand's totals are the sum of each team's score sheet ([the rules](rules.md)). The "
        "Gymnasium env gives the learner its seat's AEC reward; rewards that come while the "
        "opponents move (a hand they end) are added to the learner's next step, so over an "
        "episode the learner receives exactly the AEC env's cumulative reward of its seat. "
        'The hand\'s result by the same convention: `env.unwrapped.table.result("hand")` '
        "(`canasta_env.engine.outcome`).",
        "",
    ]


def _episode_end(aec, gym_env, end_info: dict) -> list[str]:
    _, gym_info = gym_env.reset(seed=PAGE_SEED)
    sheet = next(iter(end_info["hand_scores"]))
    rows = "; ".join(f"`{key}`: {label}" for key, label in SHEET_ROWS)
    extra = [key for key in sheet if key not in dict(SHEET_ROWS)]
    defaults = {p.name: p.default for p in arguments(AEC_CLASS)}
    hand, game = EPISODE_MODES
    reasons = ", ".join(f"`{_text(reason)}`" for reason in END_REASONS)
    return [
        "## Episode end",
        "",
        f"**Termination.** `episode={_text(hand)}` (default): the episode is one hand; it "
        "ends when a player goes out, when the stock runs out, or, in Spanish, with a "
        f'black-3 canasta (`info["end_reason"]`: {reasons}). '
        f"`episode={_text(game)}`: hands are dealt one after another until a team reaches "
        "the preset's target score (G-7); the episode is the game. Every agent is terminated "
        "at once. A hand ends in a bounded number of decisions, the engine's bound "
        "`4 x deck size + 1`:",
        "",
        *_decision_bounds(),
        "",
        f"**Truncation.** `max_cycles` (default `{_text(defaults['max_cycles'])}`: never): "
        "every agent is truncated once that many decisions of all seats have been played in "
        "the episode.",
        "",
        f"**Illegal actions.** `illegal_action` is one of "
        f"{', '.join(f'`{_text(m)}`' for m in ILLEGAL_ACTION_MODES)}. `raw_env` "
        f"(`{_text(defaults['illegal_action'])}`) raises `IllegalActionError` naming the "
        "action and why, and changes nothing; "
        f"`env()` (`{_text(aec.options.illegal_action)}`) ends "
        "the episode: every agent terminated, `illegal_reward` and "
        '`info["illegal_action"]` to the offender. An id outside the action space, or '
        "anything that is not one id, always raises.",
        "",
        f"**Info.** When a hand ends every agent's info holds "
        f"{', '.join(f'`{k}`' for k in end_info)}: each team's score sheet of the hand "
        f"(rows {rows}; besides, {', '.join(f'`{k}`' for k in extra)}), the teams' game "
        "totals and why the hand ended. The Gymnasium env's info carries "
        f"{', '.join(f'`{k}`' for k in gym_info)} at every step, and these at the end.",
        "",
    ]


def _version_history() -> list[str]:
    sizes = sorted(GROWTH)
    boundaries = {*LAYOUT.offsets.values(), OBS_SIZE}
    if sizes[-1] != OBS_SIZE or not set(sizes) <= boundaries:  # a new size needs its line
        raise ValueError(f"GROWTH {sizes} must end at OBS_SIZE ({OBS_SIZE}) at block bounds")
    rows = ["| entries | constant | blocks added | why |", "|---|---|---|---|"]
    constants = {OBS_SIZE_V0: "OBS_SIZE_V0", OBS_SIZE_V1: "OBS_SIZE_V1", OBS_SIZE: "OBS_SIZE"}
    previous = 0
    for size in sizes:
        added = [b.name for b in LAYOUT.blocks if previous <= LAYOUT.offsets[b.name] < size]
        rows.append(
            f"| {size} | `{constants[size]}` | {', '.join(f'`{b}`' for b in added)} | "
            f"{GROWTH[size]} |"
        )
        previous = size
    return [
        "## Version history",
        "",
        f"**`canasta_v0`** (`{ENV_ID}`), the only version so far; a change of behaviour will "
        "come as `canasta_v1` and leave `canasta_v0` as it is. Within v0, before the first "
        "package version, the observation grew twice, only at its end and its prefix kept, so "
        "a policy trained on a shorter layout reads the prefix:",
        "",
        *rows,
        "",
        f"The action layout grew once, at its end: ids 0..{ESCALA - 1} are the layout from "
        f"before the S-19 runs, which came as ids {ESCALA}..{NUM_ACTIONS - 1}.",
        "",
        "**Package 0.1.0** ([changelog](../CHANGELOG.md)): the first version, four presets, "
        f"two engines, the PettingZoo, Gymnasium and OpenSpiel faces, with the spaces above "
        f"({OBS_SIZE} entries, {NUM_ACTIONS} ids).",
        "",
        "**Since 0.1.0** (the changelog's Unreleased), what changed in the env:",
        "",
        *(f"- {change}" for change in CHANGES_SINCE_FIRST),
        "",
    ]


def env_page() -> str:
    """The text of ``docs/env.md``."""
    aec, gym_env = _live_envs()
    try:
        end_info = _end_of_hand_info()
        lines = [
            f"# The environment: `{aec.metadata['name']}`",
            "",
            "Generated by `python -m canasta_env.docs` from the env's code (its spaces from "
            "live env objects, the action ids from `canasta_env/actions.py`, the blocks from "
            "`canasta_env/observation/layout.py`, the arguments from the constructors' "
            "signatures); do not edit.",
            "",
            *_summary(aec, gym_env),
            "",
            "## Description",
            "",
            f"Canasta, the rummy game of melds and canastas, for {min(PLAYER_COUNTS)} to "
            f"{max(PLAYER_COUNTS)} players (partners in teams at "
            f"{' and '.join(str(n) for n in PLAYER_COUNTS if _team_size(n) > 1)}), under "
            f"{len(PRESETS)} presets: "
            + ", ".join(f"`{name}`" for name in PRESETS)
            + " ([the rules](rules.md), [side by side](presets.md)); any rules field can be "
            "overridden as a house rule. The AEC env seats every player as an agent "
            "(`player_0`, ...); the agent to act is `env.agent_selection`, and a turn is "
            "several of its steps. The Gymnasium env is one learner against opponents. "
            "How to use each face: [Getting started](getting_started.md) and "
            "[Env faces](faces.md); the API: [API reference](api/index.rst).",
            "",
            *_arguments(aec),
            *_observation_space(aec, gym_env),
            *_action_space(aec),
            *_rewards(),
            *_episode_end(aec, gym_env, end_info),
            *_version_history(),
        ]
    finally:
        aec.close()
        gym_env.close()
    return "\n".join(lines).rstrip("\n") + "\n"
