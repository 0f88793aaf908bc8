import time, random
from agents.openspiel_bot import load_agent
from agents.base import play_hands
from agents.registry import make_agent
import agents.base as base
for n in (20, 50):
    a = load_agent(f"ismcts-{n}"); a.name = f"is{n}"; a.seed(1)
    e = make_agent("expert", seed=2)
    t = time.time(); calls = [0]
    orig = a.act
    def act(o, m, orig=orig):
        calls[0] += 1; return orig(o, m)
    a.act = act
    r = play_hands([a, e], 1, "classic", seed=0)
    dt = time.time() - t
    print(n, r[0].team_scores, r[0].steps, calls[0], dt, dt / calls[0])
