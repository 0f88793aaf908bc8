"""CleanRL-style PPO on canasta_env's vector faces, in one file to read top to bottom.

    pip install -e '.[train]'                                        # torch
    python examples/cleanrl_ppo.py --opponents greedy --total-timesteps 200000 --eval-hands 400
    python examples/cleanrl_ppo.py --self-play --total-timesteps 200000 --eval-hands 400

Two ways to collect:

* ``--opponents expert`` (or ``greedy``, ``random``): one learner per table,
  ``gym.make_vec("canasta_env/Canasta-v0", vectorization_mode="vector_entry_point")``
  (:class:`canasta_env.gym_vector.CanastaVectorEnv`), the house bots playing the other
  seats inside ``step``; SAME_STEP autoreset, the hand's result in ``final_info``.
* ``--self-play``: :func:`canasta_env.vector_env`, every seat acting with the same network;
  :func:`canasta_env.vector.seat_credit` books each step's rewards to the seat's decisions
  and links each decision to the same seat's next one, which GAE follows.

The policy is the project's model format (:mod:`agents.model_file`): a trunk of ReLU
``Linear`` layers shared by an action head ``pi`` (masked logits over the 500 ids) and a
value head ``v``, saved with :func:`training.net.save`, so ``canasta arena`` plays it as
``ppo:PATH``. ``--eval-hands N`` measures it against ``random`` and ``greedy`` with
:func:`canasta_arena.arena.run_arena` (duplicate deals, Wilson 95% intervals).

Measured from a fresh network on the project's 2-core machine (2026-11-27, 1 torch thread,
other jobs running: load average 6-9, then 3.5-4), docs/faces.md, "A CleanRL-style PPO to copy"::

    python examples/cleanrl_ppo.py --opponents greedy --time-limit 2400 \
        --checkpoint-every 10 --save runs/measure/model.npz --eval-hands 400

``random`` beaten at the first checkpoint (81,920 learner steps, 24 s): 77.1% of 400
duplicate hands [72.8, 81.0]. ``greedy`` above 50% from 9.8M steps (34 min) on; after
40 min (12.4M steps): 86.6% [82.9, 89.6] against ``random``, 56.1% [51.2, 60.9] against
``greedy`` (54.9% [52.7, 57.0] over 2,000 other deals), 48.5% [43.6, 53.4] against ``expert``.
"""

from __future__ import annotations

import argparse
import time
from collections import deque
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import canasta_env
from canasta_arena import run_arena
from canasta_env.vector import seat_credit
from training.net import save as save_model_file


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument(
        "--opponents", default="expert", help="house bot in the other seats", metavar="BOT"
    )
    p.add_argument("--self-play", action="store_true", help="every seat is the network")
    p.add_argument("--variant", default="classic", help="the preset (rules)")
    p.add_argument("--players", type=int, default=2, help="players at the table")
    p.add_argument("--total-timesteps", type=int, default=500_000, help="learner decisions")
    p.add_argument("--time-limit", type=float, default=0.0, help="stop after SECONDS (0: none)")
    p.add_argument("--num-envs", type=int, default=64, help="tables stepped together")
    p.add_argument("--num-steps", type=int, default=128, help="steps per table per rollout")
    p.add_argument("--hidden", default="256,256", help="trunk widths")
    p.add_argument("--lr", type=float, default=3e-4, help="Adam's learning rate")
    p.add_argument("--gamma", type=float, default=1.0, help="a hand is a short, finite episode")
    p.add_argument("--gae-lambda", type=float, default=0.95, help="GAE's lambda")
    p.add_argument("--num-minibatches", type=int, default=4, help="minibatches per epoch")
    p.add_argument("--update-epochs", type=int, default=2, help="passes over each rollout")
    p.add_argument("--clip-coef", type=float, default=0.2, help="PPO's ratio clip")
    p.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus weight")
    p.add_argument("--vf-coef", type=float, default=0.5, help="value loss weight")
    p.add_argument("--max-grad-norm", type=float, default=0.5, help="gradient clip")
    p.add_argument("--seed", type=int, default=1, help="seed of the env and the network")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"], help="torch device")
    p.add_argument("--save", default="runs/cleanrl/model.npz", help="the .npz model file")
    p.add_argument(
        "--tensorboard",
        default=None,
        help="TensorBoard folder (as canasta train's RUN/tb; default: tb beside --save, "
        "runs/cleanrl/tb for the default --save); '' for none",
    )
    p.add_argument("--checkpoint-every", type=int, default=0, help="updates between copies")
    p.add_argument("--eval-hands", type=int, default=0, help="arena hands per bot at the end")
    return p.parse_args(argv)


class Agent(nn.Module):
    """The model file's shape: ``trunk`` (Linear+ReLU)*, then ``pi`` and ``v`` heads.
    ``obs_size``, ``num_actions`` and ``hidden`` are what :func:`training.net.save` records."""

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int]):
        super().__init__()
        layers, size = [], obs_size
        for width in hidden:
            layers += [layer_init(nn.Linear(size, width)), nn.ReLU()]
            size = width
        self.trunk = nn.Sequential(*layers)
        self.pi = layer_init(nn.Linear(size, num_actions), std=0.01)
        self.v = layer_init(nn.Linear(size, 1), std=1.0)
        self.obs_size, self.num_actions, self.hidden = obs_size, num_actions, hidden

    def get_value(self, x):
        return self.v(self.trunk(x)).squeeze(-1)

    def get_action_and_value(self, x, mask, action=None):
        hidden = self.trunk(x)
        # A masked categorical: an illegal id gets a logit of -1e9, probability 0.
        logits = self.pi(hidden).masked_fill(~mask, -1e9)
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.v(hidden).squeeze(-1)


def layer_init(layer: nn.Linear, std: float = 2**0.5) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.zeros_(layer.bias)
    return layer


class Rollout:
    """One rollout's tensors, (T, N, ...), on the device."""

    def __init__(self, T, N, obs_size, num_actions, device):
        self.obs = torch.zeros((T, N, obs_size), device=device)
        self.masks = torch.zeros((T, N, num_actions), dtype=torch.bool, device=device)
        self.actions = torch.zeros((T, N), dtype=torch.long, device=device)
        self.logprobs = torch.zeros((T, N), device=device)
        self.values = torch.zeros((T, N), device=device)
        self.rewards = np.zeros((T, N), np.float32)  # the learner's (or booked: self-play)
        self.dones = np.zeros((T, N), bool)  # the episode ended with this decision
        self.seats = np.zeros((T, N), np.int64)  # self-play: the seat that acted
        self.seat_rewards = None  # self-play: (T, N, players), every seat's rewards


def gae_single(r: Rollout, next_value: torch.Tensor, gamma: float, lam: float) -> torch.Tensor:
    """GAE for one learner per table: with SAME_STEP autoreset a done step's next
    observation is a new hand, so the done step has no bootstrap."""
    rewards = torch.as_tensor(r.rewards, device=next_value.device)
    alive = torch.as_tensor(~r.dones, dtype=torch.float32, device=next_value.device)
    advantages, last = torch.zeros_like(rewards), torch.zeros_like(next_value)
    for t in reversed(range(len(rewards))):
        following = next_value if t == len(rewards) - 1 else r.values[t + 1]
        delta = rewards[t] + gamma * following * alive[t] - r.values[t]
        advantages[t] = last = delta + gamma * lam * alive[t] * last
    return advantages


def gae_self_play(r: Rollout, next_value, next_seat, gamma: float, lam: float) -> torch.Tensor:
    """GAE along each seat's own decisions: ``seat_credit`` gives a decision's reward up to
    the seat's next decision at the table (``next_decision``, or -1) and where its hand ends."""
    credit, next_decision, seat_done = seat_credit(r.seats, r.seat_rewards, r.dones)
    T, N = credit.shape
    values = r.values.cpu().numpy()
    advantages = np.zeros((T, N), np.float32)
    tables = np.arange(N)
    for t in reversed(range(T)):
        linked = next_decision[t] >= 0
        later = np.where(linked, next_decision[t], 0)
        following = np.where(linked, values[later, tables], 0.0)
        following_adv = np.where(linked, advantages[later, tables], 0.0)
        # Cut by the rollout's end: the table's next observation if it is this seat's,
        # else the decision's own value (the seat's next view is not in the rollout).
        cut = ~linked & ~seat_done[t]
        own_next = np.where(next_seat == r.seats[t], next_value, values[t])
        following = np.where(cut, own_next, following)
        delta = credit[t] + gamma * following * ~seat_done[t] - values[t]
        advantages[t] = delta + gamma * lam * following_adv
    return torch.as_tensor(advantages, device=r.values.device)


def main(argv=None) -> int:
    args = parse_args(argv)
    # Two cores: the tables step on one, torch on the other; more torch threads would
    # fight the env for the same cores and slow both down.
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    cuda = args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available())
    device = torch.device("cuda" if cuda else "cpu")
    T, N = args.num_steps, args.num_envs

    # ---- env setup
    if args.self_play:
        envs = canasta_env.vector_env(args.variant, args.players, N, seed=args.seed)
        obs, mask, seat = (a.copy() for a in envs.reset())
    else:
        envs = gym.make_vec(
            "canasta_env/Canasta-v0", num_envs=N, vectorization_mode="vector_entry_point",
            variant=args.variant, num_players=args.players, opponents=args.opponents,
        )  # fmt: skip
        observation, _ = envs.reset(seed=args.seed)
        obs, mask, seat = observation["observation"], observation["action_mask"], None
    obs_size, num_actions = obs.shape[1], mask.shape[1]
    agent = Agent(obs_size, num_actions, [int(w) for w in args.hidden.split(",")]).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    r = Rollout(T, N, obs_size, num_actions, device)
    batch_size = T * N
    minibatch_size = batch_size // args.num_minibatches

    writer = None
    if args.tensorboard is None:  # beside the model, as canasta train's RUN/tb
        args.tensorboard = str(Path(args.save).parent / "tb")
    if args.tensorboard:  # what canasta train logs, under the same names where they exist
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(args.tensorboard)
    returns = np.zeros(N)  # the running episode's return of each table (the learner's)
    recent_returns, recent_outcomes = deque(maxlen=500), deque(maxlen=500)
    global_step, update, start = 0, 0, time.time()
    save_path = Path(args.save)
    while global_step < args.total_timesteps:
        if args.time_limit and time.time() - start > args.time_limit:
            break
        update += 1
        # ---- rollout
        for t in range(T):
            global_step += N
            r.obs[t] = torch.as_tensor(obs, device=device)
            r.masks[t] = torch.as_tensor(mask, dtype=torch.bool, device=device)
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(r.obs[t], r.masks[t])
            r.actions[t], r.logprobs[t], r.values[t] = action, logprob, value
            actions = action.cpu().numpy()
            if args.self_play:
                r.seats[t] = seat
                obs, mask, seat, seat_rewards, done = (a.copy() for a in envs.step(actions))
                if r.seat_rewards is None:
                    r.seat_rewards = np.zeros((T, *seat_rewards.shape), np.float32)
                r.seat_rewards[t], r.dones[t] = seat_rewards, done
                returns += seat_rewards[:, 0]  # seat 0's return: a check that it stays near 0
            else:
                observation, reward, terminated, truncated, info = envs.step(actions)
                obs, mask = observation["observation"], observation["action_mask"]
                r.rewards[t], r.dones[t] = reward, terminated | truncated
                returns += reward
                if "final_info" in info:  # the hand's result for the learner's team
                    ended = info["final_info"].get("_outcome", np.zeros(N, bool))
                    recent_outcomes.extend(info["final_info"]["outcome"][ended] > 0)
            for k in np.flatnonzero(r.dones[t]):
                recent_returns.append(returns[k])
                returns[k] = 0.0

        # ---- advantages (GAE)
        with torch.no_grad():
            next_value = agent.get_value(torch.as_tensor(obs, device=device))
        if args.self_play:
            advantages = gae_self_play(
                r, next_value.cpu().numpy(), seat, args.gamma, args.gae_lambda
            )
        else:
            advantages = gae_single(r, next_value, args.gamma, args.gae_lambda)
        targets = advantages + r.values

        # ---- PPO update: clipped surrogate, value loss, entropy bonus
        b_obs, b_masks = r.obs.reshape(batch_size, -1), r.masks.reshape(batch_size, -1)
        b_actions, b_logprobs = r.actions.reshape(-1), r.logprobs.reshape(-1)
        b_advantages, b_targets = advantages.reshape(-1), targets.reshape(-1)
        for _epoch in range(args.update_epochs):
            for mb in torch.randperm(batch_size, device=device).split(minibatch_size):
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb]
                )
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = b_advantages[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                clipped = torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(-adv * ratio, -adv * clipped).mean()
                v_loss = 0.5 * ((newvalue - b_targets[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        # ---- logging
        elapsed = time.time() - start
        line = f"update {update} step {global_step} {elapsed:.0f}s {global_step / elapsed:.0f} sps"
        if recent_returns:
            line += f" return {np.mean(recent_returns):+.3f}"
        if recent_outcomes:
            line += f" won {100 * np.mean(recent_outcomes):.1f}% of {len(recent_outcomes)}"
        print(line + f" pg {pg_loss.item():+.4f} v {v_loss.item():.4f} "
              f"entropy {entropy.mean().item():.3f}", flush=True)  # fmt: skip
        if writer is not None:
            scalars = {
                "charts/steps_per_second": global_step / elapsed,
                "losses/policy": pg_loss.item(),
                "losses/value": v_loss.item(),
                "losses/entropy": entropy.mean().item(),
            }
            if recent_returns:
                scalars["charts/episode_return"] = float(np.mean(recent_returns))
            if recent_outcomes:
                scalars["charts/hands_won"] = float(np.mean(recent_outcomes))
            for tag, value in scalars.items():
                writer.add_scalar(tag, value, global_step)
        if args.checkpoint_every and update % args.checkpoint_every == 0:
            meta = {"learner_steps": global_step, "train_seconds": round(elapsed, 1)}
            save_model_file(agent, save_path.with_name(f"{save_path.stem}-{global_step}.npz"), meta)

    if writer is not None:
        writer.close()
    meta = {"learner_steps": global_step, "train_seconds": round(time.time() - start, 1)}
    path = save_model_file(agent, save_path, meta)
    print(f"saved {path} after {global_step} learner steps, {meta['train_seconds']:.0f}s")
    if not args.self_play:
        envs.close()
    if args.eval_hands:
        evaluate(path, args.variant, args.players, args.eval_hands)
    return 0


def evaluate(path: Path, variant: str, players: int, hands: int) -> None:
    """The saved file against the bots, over duplicate deals (each deal in both seat orders)."""
    name = f"ppo:{path}"
    for bot in ("random", "greedy"):
        result = run_arena([name, bot], variant, players, hands=hands, plot=False)
        row = result.summary["head_to_head"][name][bot]
        low, high = row["win_ci"]
        print(f"vs {bot}: won {100 * row['win_rate']:.1f}% of {row['hands']} hands "
              f"[{100 * low:.1f}, {100 * high:.1f}]", flush=True)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
