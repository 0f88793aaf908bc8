import time
from agents.openspiel_bot import load_agent, ScoreEvaluator
import agents.openspiel_bot as ob
from agents.base import play_hands
from agents.registry import make_agent
cnt = {"ev": 0}
orig = ScoreEvaluator.evaluate
def ev(self, s): cnt["ev"] += 1; return orig(self, s)
ScoreEvaluator.evaluate = ev
a = load_agent("ismcts-200"); a.name = "is"; a.seed(1)
e = make_agent("expert", seed=2)
t = time.time()
r = play_hands([a, e], 1, "classic", seed=0)
print(r[0].team_scores, r[0].steps, cnt, time.time() - t)
