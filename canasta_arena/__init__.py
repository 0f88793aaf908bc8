"""The arena: tournaments that seat the agents and rank them, on duplicate deals.

It sits above ``agents`` (it seats them) and below ``training`` (whose evaluation plays in
it), the command line and the browser table; nothing here imports from those.

* :mod:`canasta_arena.arena`: one tournament (:func:`run_arena`), its ranking, report,
  files and chart; its command line is ``canasta arena``;
* :mod:`canasta_arena.schedule`: its pairings, seat arrangements, seeds, and the playing of
  its hands, here or in worker processes; :mod:`canasta_arena.ray_arena`: the same on Ray;
* :mod:`canasta_arena.leaderboard`: every bot and shipped agent on every table, played into
  one JSON document; :mod:`canasta_arena.leaderboard_report`: its page, chart and README
  block (``canasta leaderboard``);
* :mod:`canasta_arena.stats`: the intervals every report quotes (Wilson, Student t);
* :mod:`canasta_arena.workers` and :mod:`canasta_arena.progress`: the worker processes and
  the progress bar, which training's rollouts use too.
"""

from canasta_arena.arena import ArenaResult, run_arena
from canasta_arena.schedule import ArenaInterrupted

__all__ = ["ArenaInterrupted", "ArenaResult", "run_arena"]
