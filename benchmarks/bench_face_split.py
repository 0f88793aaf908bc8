"""The single-learner vector face against ``raw_env``, side by side in one process, and
where the face's step spends its CPU time (the C++ calls against the Python and numpy
around them).

    python benchmarks/bench_face_split.py [--rounds 5] [--seconds 2] [--envs 64]
        [--players 2] [--opponents expert] [--profile 20]

Both run on the core against the same house bot, the learner's actions random and masked
(a float32 uniform per action, the argmax over the legal ones; counted in both):

* ``face``: ``gymnasium.make_vec("canasta_env/Canasta-v0", num_envs=N,
  opponents=..., backend="core")``, learner decisions per CPU-second;
* ``raw_env``: ``canasta_env.raw_env(backend="core")``, the learner's seat(s) sampled in
  Python, every other seat played by the bot's twin in the core (``CoreBot.act`` on the
  seat's observation and mask: the bot's own moves, at the core's speed); learner
  decisions per CPU-second, and decisions of every seat per CPU-second.

The two are timed in turn, ``--rounds`` times each (the machine is shared: interleaved,
so a busy spell slows both), and the medians and the median of the per-round ratios are
printed. CPU time is ``time.process_time``.

The split times one more run of the face with every method of ``_core.Batch`` and
``_core.view`` wrapped in a timer: the share of the loop's CPU time spent inside the core
(``C++``), in the face's ``step`` outside it (``Python and numpy``), and in the learner's
sampling. ``--profile N`` prints cProfile's top N functions of that run by own time (the
wrappers make the C++ calls visible there as ``timed``).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import time

import gymnasium as gym
import numpy as np

import canasta_env
from canasta_env import _core
from canasta_env.core import CoreBot
from canasta_env.engine.state import team_of_seat


def sample(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform legal action per row (a float32 uniform per action, argmax over the legal)."""
    return np.argmax((rng.random(masks.shape, dtype=np.float32) + 1.0) * masks, axis=-1)


def make_face(num_envs: int, num_players: int, opponents: str):
    return gym.make_vec(
        "canasta_env/Canasta-v0",
        num_envs=num_envs,
        num_players=num_players,
        opponents=opponents,
        backend="core",
    )


def face_rate(face, seconds: float, seed: int = 0, timing: dict | None = None) -> float:
    """Learner decisions per CPU-second of ``face``; ``timing`` gets the step's CPU time."""
    rng = np.random.default_rng(seed)
    obs, _ = face.reset(seed=seed)
    decisions = 0
    in_step = 0.0
    start = time.process_time()
    while time.process_time() - start < seconds:
        actions = sample(obs["action_mask"], rng)
        before = time.process_time()
        obs, *_ = face.step(actions)
        in_step += time.process_time() - before
        decisions += face.num_envs
    total = time.process_time() - start
    if timing is not None:
        timing.update(total=total, step=in_step)
    return decisions / total


def raw_rate(
    seconds: float, num_players: int, opponents: str, seed: int = 0
) -> tuple[float, float]:
    """``raw_env`` on the core with seat 0's team sampled (the learner's) and the other
    seats played by ``opponents``' core twin, dealt a new hand when one ends: (learner
    decisions, decisions of every seat) per CPU-second."""
    env = canasta_env.raw_env(num_players=num_players, backend="core")
    learners = {
        f"player_{seat}"
        for seat in range(num_players)
        if team_of_seat(num_players, seat) == team_of_seat(num_players, 0)
    }
    rng = np.random.default_rng(seed)
    bots: dict[str, CoreBot] = {}

    def deal(hand_seed: int) -> None:
        env.reset(seed=hand_seed)
        for seat, agent in enumerate(env.possible_agents):
            if agent not in learners:
                bots[agent] = CoreBot(opponents, seed=hand_seed + seat)
                bots[agent].reset(seat, num_players, env.rules)

    hands = learner = every = 0
    deal(seed)
    start = time.process_time()
    while time.process_time() - start < seconds:
        agent = env.agent_selection
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                hands += 1
                deal(seed + hands)
            continue
        mask = obs["action_mask"]
        if agent in learners:
            action = int(sample(mask, rng))
            learner += 1
        else:
            action = bots[agent].act(obs["observation"], mask)
        env.step(action)
        every += 1
    total = time.process_time() - start
    return learner / total, every / total


class CoreClock:
    """Inside ``with clock:``, ``_core.Batch`` (for a batch made then) and ``_core.view``
    are timed: ``clock.seconds`` adds up the CPU time spent in them. A batch made inside
    keeps its timers after."""

    def __init__(self):
        self.seconds = 0.0
        self._saved: list[tuple[str, object]] = []

        class TimedBatch(_core.Batch):
            pass

        for name, value in vars(_core.Batch).items():
            if not name.startswith("_") and callable(value):
                setattr(TimedBatch, name, self._timed(value, f"timed_{name}"))
        self._patches = {"Batch": TimedBatch, "view": self._timed(_core.view, "timed_view")}

    def _timed(self, function, name: str):
        clock = self

        def timed(*args, **kwargs):
            before = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                clock.seconds += time.process_time() - before

        timed.__code__ = timed.__code__.replace(co_name=name)  # cProfile's name for it
        return timed

    def __enter__(self):
        for name, value in self._patches.items():
            self._saved.append((name, getattr(_core, name)))
            setattr(_core, name, value)
        return self

    def __exit__(self, *exc):
        while self._saved:
            name, value = self._saved.pop()
            setattr(_core, name, value)


def profile_text(face, seconds: float, top: int) -> str:
    """cProfile's ``top`` functions by own time over ``seconds`` of the face's loop, and
    the split of the loop it measures (the C++ calls are the ``timed_*`` wrappers)."""
    profile = cProfile.Profile()
    profile.enable()
    face_rate(face, seconds)
    profile.disable()
    text = io.StringIO()
    stats = pstats.Stats(profile, stream=text)
    core = step = total = 0.0
    for (_, _, name), (_, _, _, cumulative, _) in stats.stats.items():
        if name.startswith("timed_"):
            core += cumulative
        elif name == "step" and step == 0.0:  # the face's step (the outermost one)
            step = cumulative
        elif name == "face_rate":
            total = cumulative
    stats.sort_stats("tottime").print_stats(top)
    return (
        f"split under cProfile: C++ {100 * core / total:.0f}%, Python and numpy "
        f"{100 * (step - core) / total:.0f}%, sampling {100 * (total - step) / total:.0f}%\n"
        + text.getvalue()
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponents", default="expert")
    parser.add_argument("--profile", type=int, default=0, help="top N of cProfile; 0: none")
    args = parser.parse_args(argv)
    print(
        f"classic {args.players} players, opponents {args.opponents}, {args.envs} tables, "
        f"{args.rounds} rounds of {args.seconds:g} CPU-seconds each; "
        f"{time.strftime('%Y-%m-%d %H:%M')}"
    )
    clock = CoreClock()
    with clock:
        face = make_face(args.envs, args.players, args.opponents)
    rows = []
    for round_ in range(args.rounds):
        clock.seconds = 0.0
        timing: dict = {}
        with clock:
            face_decisions = face_rate(face, args.seconds, seed=round_, timing=timing)
        learner, every = raw_rate(args.seconds, args.players, args.opponents, seed=round_)
        total = timing["total"]
        row = {
            "face": face_decisions,
            "raw_env": learner,
            "raw_env every seat": every,
            "ratio": face_decisions / learner,
            "ratio every seat": face_decisions / every,
            "C++": clock.seconds / total,
            "Python and numpy": (timing["step"] - clock.seconds) / total,
            "sampling": (total - timing["step"]) / total,
        }
        rows.append(row)
        print(
            f"  round {round_}: face {row['face']:>9,.0f}, raw_env {learner:>8,.0f} learner "
            f"decisions/CPU-s ({every:,.0f} of every seat): x{row['ratio']:.2f}; face's loop "
            f"C++ {100 * row['C++']:.0f}%, Python and numpy {100 * row['Python and numpy']:.0f}%"
        )
    median = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
    print(
        f"median: face {median['face']:,.0f}, raw_env {median['raw_env']:,.0f} learner "
        f"decisions per CPU-second ({median['raw_env every seat']:,.0f} of every seat); "
        f"face / raw_env x{median['ratio']:.2f} per learner decision "
        f"(x{median['ratio every seat']:.2f} per decision of every seat)"
    )
    print(
        "median split of the face's loop: "
        + ", ".join(
            f"{name} {100 * median[name]:.0f}%" for name in ("C++", "Python and numpy", "sampling")
        )
    )
    if args.profile:
        print(profile_text(face, args.seconds, args.profile))
    face.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
