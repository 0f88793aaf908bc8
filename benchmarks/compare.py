"""Speed of this checkout against another one, measured in one run.

    git worktree add /tmp/base main             # the code to compare with
    pip wheel /tmp/base --no-deps -w /tmp/basewheel && unzip -q /tmp/basewheel/*.whl -d /tmp/basepkg
    python benchmarks/compare.py --baseline /tmp/basepkg --rounds 5

``--baseline`` is a folder holding the packages to compare with, their compiled core
built (an unpacked wheel, or a source checkout whose core is built in place). Runs
``benchmarks/bench.py`` (from this checkout) against the baseline's packages and this
checkout's in turn, alternating, ``--rounds`` times, so that a busy machine slows both
alike. Prints the median steps per second of each (wall clock and per CPU second) and
their ratio. The baseline's packages come first on the path and an editable install's
import hook is taken out of that run, so it cannot hand the baseline this checkout.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CURRENT = HERE.parent


#: Runs bench.py with the packages of ``argv[1]`` first and no editable-install hook.
BOOT = """import runpy, sys
root = sys.argv.pop(1)
sys.meta_path[:] = [f for f in sys.meta_path if not type(f).__module__.startswith("_editable")]
sys.path.insert(0, root)
import canasta_env
assert canasta_env.__file__.startswith(root), f"the baseline imported {canasta_env.__file__}"
sys.argv[0] = sys.argv[1]
runpy.run_path(sys.argv.pop(1), run_name="__main__")
"""


def measure(checkout: Path, args: argparse.Namespace) -> dict[tuple[str, str, str], tuple]:
    """One run of bench.py importing the package from ``checkout``."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    command = [sys.executable]
    if checkout != CURRENT:
        command += ["-c", BOOT, str(checkout)]
    command += [str(HERE / "bench.py"), "--seconds", str(args.seconds)]
    command += ["--variants", *args.variants, "--players", *map(str, args.players)]
    command += ["--apis", *args.apis]
    out = subprocess.run(command, env=env, cwd=checkout, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"bench.py failed in {checkout}:\n{out.stderr}")
    rows = {}
    for line in out.stdout.splitlines():  # the rows of figures; not the header or notes
        fields = line.split()
        if len(fields) == 7 and fields[1].isdigit():
            variant, players, api, steps_s, _hands, _steps, cpu_s = fields
            rows[variant, players, api] = (float(steps_s), float(cpu_s))
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", required=True, type=Path, help="the checkout to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--variants", nargs="*", default=["classic"])
    parser.add_argument("--players", nargs="*", type=int, default=[4])
    parser.add_argument("--apis", nargs="*", default=["engine", "raw_env"])
    args = parser.parse_args(argv)
    runs: dict[str, list[dict]] = {"baseline": [], "current": []}
    for _ in range(args.rounds):
        runs["baseline"].append(measure(args.baseline.resolve(), args))
        runs["current"].append(measure(CURRENT, args))
    print(f"{args.rounds} alternating rounds of {args.seconds:g} s; medians")
    print(
        f"{'variant':17} {'players':>7} {'api':8} {'base steps/s':>12} {'now steps/s':>12} "
        f"{'ratio':>6} {'base cpu':>9} {'now cpu':>9} {'ratio':>6}"
    )
    for key in runs["current"][0]:
        base = [statistics.median(r[key][i] for r in runs["baseline"]) for i in (0, 1)]
        now = [statistics.median(r[key][i] for r in runs["current"]) for i in (0, 1)]
        print(
            f"{key[0]:17} {key[1]:>7} {key[2]:8} {base[0]:>12.0f} {now[0]:>12.0f} "
            f"{now[0] / base[0]:>6.3f} {base[1]:>9.0f} {now[1]:>9.0f} {now[1] / base[1]:>6.3f}"
        )


if __name__ == "__main__":
    main()
