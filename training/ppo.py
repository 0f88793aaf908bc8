"""PPO's learning part: advantages (GAE), the kickstarting schedule, and the :class:`Learner`
(the network, Adam and the minibatch order) that turns a collected batch into one update.

What plays the hands and when the learner is evaluated: :mod:`training.league`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from canasta_env.actions import NUM_ACTIONS
from canasta_env.observation import OBS_SIZE
from training.critic import ORACLE, critic_inputs


def gae(rewards, dones, values, gamma, lam):
    """Advantages and returns per trajectory (a done closes each; no bootstrap)."""
    n = len(rewards)
    adv = np.zeros(n, dtype=np.float32)
    last = 0.0
    for t in range(n - 1, -1, -1):
        if dones[t]:
            next_value, last = 0.0, 0.0
        else:
            next_value = values[t + 1]
        delta = rewards[t] + gamma * next_value - values[t]
        last = delta + gamma * lam * last
        adv[t] = last
    return adv, adv + values


def kick_weight(config: dict, steps: int) -> float:
    """The kickstarting weight after ``steps`` learner steps: ``kick_coef`` falling linearly to
    0 at ``kick_steps``."""
    if not config.get("kick_teacher") or not config.get("kick_steps"):
        return 0.0
    return float(config["kick_coef"]) * max(0.0, 1.0 - steps / float(config["kick_steps"]))


def init_model(init: Path):
    """The model file ``init`` (:class:`agents.model_file.ModelFile`), when PPO can start from it:
    it scores every action id of the table. ``RunFileError`` (one line naming it) otherwise;
    the command line asks before it writes anything."""
    from training import net
    from training.run import RunFileError

    try:
        model_file = net.ModelFile(init)
    except ValueError as error:
        raise RunFileError(str(error)) from None
    if model_file.meta["num_actions"] != NUM_ACTIONS:
        raise RunFileError(
            f"model file {init}: num_actions {model_file.meta['num_actions']} is not the "
            f"table's {NUM_ACTIONS} (PPO learns every action id): it plays, but cannot be "
            "trained on"
        )
    return model_file


def on_cpu(value):
    """``value`` (tensors in dicts and lists) with every tensor on the CPU; a CPU tensor is
    itself, not a copy, and a state dict keeps its ``_metadata``."""
    if hasattr(value, "cpu"):
        return value.cpu()
    if isinstance(value, dict):
        copy = type(value)((key, on_cpu(item)) for key, item in value.items())
        if hasattr(value, "_metadata"):
            copy._metadata = value._metadata
        return copy
    if isinstance(value, (list, tuple)):
        return type(value)(on_cpu(item) for item in value)
    return value


class Learner:
    """The network, its Adam optimizer and the generator of the minibatch order.

    Seeds torch from ``config["seed"]`` before building the network, so a run's first
    network is the same every time; starts from ``init`` when that model file exists. The
    network is built on the CPU, then moved to ``config["device"]``
    (:func:`training.machine.resolve_device`), so its first weights do not depend on the
    device; torch's threads follow the budget (:func:`training.machine.budget`).

    With ``config["critic"]`` ``separate`` or ``oracle`` (:mod:`training.critic`) the
    values come from :attr:`critic`, a network of its own built after the policy's (so
    the policy's first weights are those of a ``shared`` run), new even when the policy
    starts from a model file; Adam and the gradient's clip take both networks. The
    policy's own value head, which the model file keeps (a search agent reads it:
    :mod:`agents.search`), then learns the same returns as a probe of the trunk, sending
    it no gradient: the policy learns from the critic's advantages alone.
    """

    def __init__(self, config: dict, init: Path, log):
        import torch

        from training import net
        from training.machine import budget, resolve_device

        self.config = config
        torch.set_num_threads(budget(int(config["jobs"]), config["threads"]).threads)
        self.device = torch.device(resolve_device(config["device"]))
        torch.manual_seed(config["seed"])
        self.torch = torch
        if init.exists():
            model = net.to_torch(init_model(init))
        else:
            log(f"[ppo] no {init}: PPO starts from a new network")
            model = net.build(OBS_SIZE, NUM_ACTIONS, config["hidden"])
        self.model = model.to(self.device)
        self.critic_kind = config["critic"]
        self.critic = None
        inputs = critic_inputs(self.critic_kind)
        if inputs:
            self.critic = net.build_critic(inputs, config["hidden"]).to(self.device)
            seen = "the observation" + (" and the hidden cards" if inputs > OBS_SIZE else "")
            log(f"[ppo] critic {self.critic_kind}: a new network of its own on {seen}")
        #: every parameter Adam updates: the policy's, then the critic's
        self.parameters = list(self.model.parameters())
        if self.critic is not None:
            self.parameters += list(self.critic.parameters())
        self.optimizer = torch.optim.Adam(self.parameters, lr=config["lr"], eps=1e-5)
        self.rng = np.random.default_rng([config["seed"], 3])

    def actor(self) -> list:
        """The policy's layers as numpy arrays, for the rollout workers."""
        from training import net

        return net.actor_layers(self.model)

    def state(self) -> dict:
        """The network (and the critic's, when it has one), Adam and torch's RNG state as
        CPU tensors (numpy's RNG: :attr:`rng`), so that a checkpoint loads on any device."""
        state = {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "torch_rng": self.torch.get_rng_state(),
        }
        if self.critic is not None:
            state["critic"] = self.critic.state_dict()
        return on_cpu(state)

    def load(self, state: dict, rng_state: dict) -> None:
        """Back to a saved :meth:`state` and numpy RNG state (raises when they do not fit:
        a critic network in one and not the other too); the tensors go to the network's
        device (Adam's moments follow its parameters)."""
        if ("critic" in state) != (self.critic is not None):
            held = "holds a critic network" if "critic" in state else "holds no critic network"
            raise ValueError(f"it {held}, and this run's critic is {self.critic_kind}")
        self.model.load_state_dict(state["model"])
        if self.critic is not None:
            self.critic.load_state_dict(state["critic"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.rng.bit_generator.state = rng_state
        self.torch.set_rng_state(state["torch_rng"])

    def set_lr(self, lr: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def critic_input(self, batch: dict, obs):
        """What the values are computed from: the observations (``obs``, on the device),
        and with the oracle critic the batch's ``privileged`` features beside them."""
        if self.critic_kind != ORACLE:
            return obs
        hidden = self.torch.from_numpy(batch["privileged"]).to(self.device)
        return self.torch.cat([obs, hidden], dim=1)

    def value(self, seen):
        """The values of :meth:`critic_input` rows: the critic's, or the shared head's."""
        if self.critic is None:
            return self.model(seen)[1]
        return self.critic(seen).squeeze(-1)

    def update(self, batch: dict, kick: float) -> dict:
        """One PPO update on ``batch`` (clipped policy loss, value loss, entropy, and the
        cross-entropy towards the teacher's labels weighted by ``kick`` when there are any);
        the mean of each loss over the minibatches."""
        torch, c = self.torch, self.config
        model = self.model

        def tensor(array: np.ndarray):  # on the CPU, the array itself (no copy)
            return torch.from_numpy(array).to(self.device)

        obs = tensor(batch["obs"])
        masks = tensor(np.unpackbits(batch["masks"], axis=1, count=NUM_ACTIONS).astype(bool))
        actions = tensor(batch["actions"])
        old_logp = tensor(batch["logp"])
        seen = self.critic_input(batch, obs)
        with torch.no_grad():
            values = torch.cat([self.value(seen[i : i + 8192]) for i in range(0, len(obs), 8192)])
        adv, returns = gae(
            batch["rewards"], batch["dones"], values.cpu().numpy(), c["gamma"], c["gae_lambda"]
        )
        adv_t = tensor(adv)
        adv_t = (adv_t - adv_t.mean()) / (adv_t.std() + 1e-8)
        returns_t = tensor(returns.astype(np.float32))
        teacher = tensor(batch["teacher"])
        kick = kick if bool((teacher >= 0).any()) else 0.0
        n = len(obs)
        stats = {
            "policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "kl": 0.0, "clipped": 0.0,
            "teacher_loss": 0.0, "teacher_agreement": 0.0,
        }  # fmt: skip
        if self.critic is not None:  # the model file's value head, a probe of the trunk
            stats["probe_loss"] = 0.0
        count = 0
        model.train()
        for _ in range(int(c["ppo_epochs"])):
            perm = tensor(self.rng.permutation(n))
            for start in range(0, n, int(c["minibatch"])):
                index = perm[start : start + int(c["minibatch"])]
                logits, value = model(obs[index], masks[index], probe=self.critic is not None)
                if self.critic is not None:  # the file's head, a probe: search reads it
                    probe_loss = ((value - returns_t[index]) ** 2).mean()
                    value = self.critic(seen[index]).squeeze(-1)
                logp_all = torch.log_softmax(logits, dim=1)
                logp = logp_all.gather(1, actions[index].unsqueeze(1)).squeeze(1)
                probs = logp_all.exp()
                entropy = -(probs * logp_all.masked_fill(~masks[index], 0.0)).sum(1).mean()
                ratio = (logp - old_logp[index]).exp()
                a = adv_t[index]
                policy_loss = -torch.min(
                    ratio * a, ratio.clamp(1 - c["clip"], 1 + c["clip"]) * a
                ).mean()
                value_loss = ((value - returns_t[index]) ** 2).mean()
                loss = policy_loss + c["vf_coef"] * value_loss - c["ent_coef"] * entropy
                if self.critic is not None:
                    loss = loss + c["vf_coef"] * probe_loss
                if kick > 0:
                    labels = teacher[index]
                    known = labels >= 0
                    teacher_loss = -logp_all[known].gather(1, labels[known].unsqueeze(1)).mean()
                    loss = loss + kick * teacher_loss
                    with torch.no_grad():
                        stats["teacher_loss"] += float(teacher_loss)
                        agree = logits[known].argmax(1) == labels[known]
                        stats["teacher_agreement"] += float(agree.float().mean())
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.parameters, c["max_grad_norm"])
                self.optimizer.step()
                with torch.no_grad():
                    stats["policy_loss"] += float(policy_loss)
                    stats["value_loss"] += float(value_loss)
                    if self.critic is not None:
                        stats["probe_loss"] += float(probe_loss)
                    stats["entropy"] += float(entropy)
                    stats["kl"] += float((old_logp[index] - logp).mean())
                    stats["clipped"] += float(((ratio - 1).abs() > c["clip"]).float().mean())
                count += 1
        stats = {key: value / max(1, count) for key, value in stats.items()}
        stats["kick_weight"] = kick
        return stats
