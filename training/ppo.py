"""PPO's learning part: advantages (GAE), the kickstarting schedule, and the :class:`Learner`
(the network, Adam and the minibatch order) that turns a collected batch into one update.

What plays the hands and when the learner is evaluated: :mod:`training.league`.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from canasta_env.actions import NUM_ACTIONS
from canasta_env.observation import OBS_SIZE
from training.critic import ORACLE, critic_inputs
from training.run import RunFileError


class TrainingDiverged(RunFileError):
    """The network's weights or outputs are no longer finite after an update (the learning
    rate, most often, is too large): the run stops before anything is written from that
    network. A :class:`~training.run.RunFileError`, so that ``canasta train`` reports it
    in one line as it reports a run file it cannot use."""


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


@functools.cache
def probe_observations() -> np.ndarray:
    """Observations a network PPO starts from must score finitely: the first of a deal of
    each variant (seat 0, 2 players). Real ones, as the layout's bounds are not: a score
    field's reaches 2**61 points."""
    from canasta_env.rules import make_rules
    from canasta_env.table import Table
    from training.config import VARIANTS

    rows = [Table(make_rules(variant), 2, seed=0).observation(0) for variant in VARIANTS]
    return np.stack(rows).astype(np.float32)


def forward_is_finite(model_file, observations: np.ndarray | None = None) -> bool:
    """Whether the network of ``model_file`` gives finite logits and values on
    ``observations`` (default: :func:`probe_observations`), in float32 as torch computes
    them: weights finite but so large that they overflow (a network trained at too large
    a learning rate) are not."""
    if observations is None:
        observations = probe_observations()
    x = observations[:, : model_file.obs_size].astype(np.float32)
    heads = (model_file.actor[-1], model_file.value_head)
    with np.errstate(all="ignore"):
        for weight, bias in model_file.trunk:
            x = np.maximum(x @ weight.astype(np.float32) + bias.astype(np.float32), 0.0)
        outputs = [x @ w.astype(np.float32) + b.astype(np.float32) for w, b in heads]
    return all(bool(np.isfinite(out).all()) for out in outputs)


def init_model(init: Path):
    """The model file ``init`` (:class:`agents.model_file.ModelFile`), when PPO can start from it:
    it scores every action id of the table, and finitely (:func:`forward_is_finite`).
    ``RunFileError`` (one line naming it) otherwise; the command line asks before it writes
    anything."""
    from training import net

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
    if not forward_is_finite(model_file):
        raise RunFileError(
            f"model file {init}: its weights are finite but so large that its logits or value "
            "overflow to infinity or NaN on the first observation of a deal (a network trained "
            "at too large a learning rate?): PPO cannot start from it; start from another one"
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

    A network started from a model file (``init``: ``--init``, or the run's
    ``imitation.npz``) has that file's hidden layers, whatever ``config["hidden"]`` says,
    and ``config["hidden"]`` becomes them, so that the run's ``config.json`` says what it
    trains (the checkpoint's bound, a separate critic and ``canasta exploit report`` read
    it); :attr:`hidden_change` says what changed (None when nothing did), for the run to log
    and save. Why not refuse the difference: to start from a model is to fine-tune that
    network, whose weights fix its widths (as Stable-Baselines3's ``PPO.load`` and an RLlib
    restore keep the saved architecture), and ``hidden`` describes a new network; the
    settings cannot tell a ``--hidden`` given from the default ``[512, 256]``, so a refusal
    would turn away every model of other widths started from without ``--hidden``.
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
        #: (the setting's widths, the init model's) when the init model's differ, else None
        self.hidden_change = None
        if init.exists():
            model = net.to_torch(init_model(init))
            if model.hidden != list(config["hidden"]):
                self.hidden_change = (list(config["hidden"]), model.hidden)
                config["hidden"] = model.hidden
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
        """Back to a saved :meth:`state` and numpy RNG state; the tensors go to the network's
        device (Adam's moments follow its parameters). Raises (``ValueError``, or what torch
        raises) when they do not fit this run, before it trains: a critic network in one and
        not the other, layers of other shapes, weights that are not finite, or Adam's state
        of other shapes, not finite, or with other settings (:meth:`check_adam`)."""
        if ("critic" in state) != (self.critic is not None):
            held = "holds a critic network" if "critic" in state else "holds no critic network"
            raise ValueError(f"it {held}, and this run's critic is {self.critic_kind}")
        self.model.load_state_dict(state["model"])
        if self.critic is not None:
            self.critic.load_state_dict(state["critic"])
        for key, network in (("model", self.model), ("critic", self.critic)):
            for name, tensor in network.state_dict().items() if network is not None else ():
                if not bool(self.torch.isfinite(tensor).all()):
                    raise ValueError(f"its {key} {name} holds NaN or infinite weights")
        settings = [dict(group) for group in self.optimizer.param_groups]
        self.optimizer.load_state_dict(state["optimizer"])
        self.check_adam(settings)
        self.rng.bit_generator.state = rng_state
        self.torch.set_rng_state(state["torch_rng"])

    #: Adam's settings a checkpoint must share with this run's optimizer (``lr`` is the
    #: run's: :meth:`set_lr`).
    ADAM_SETTINGS = ("betas", "eps", "weight_decay", "amsgrad", "maximize")

    def check_adam(self, settings: list[dict]) -> None:
        """``ValueError`` unless the loaded optimizer has this run's Adam ``settings``
        (:data:`ADAM_SETTINGS`, those of each group before the load) and, for each
        parameter, a finite step count at least 0 and finite moments of the parameter's
        shape (the second one at least 0): torch checks none of this when it loads, and a
        moment of another shape fails inside Adam at the first update, a NaN one turns the
        network to NaN."""
        torch = self.torch
        for number, (group, wanted) in enumerate(zip(self.optimizer.param_groups, settings)):
            for key in self.ADAM_SETTINGS:
                if key in wanted and group.get(key) != wanted[key]:
                    raise ValueError(
                        f"its Adam's {key} {str(group.get(key))[:40]} (group {number}) is not "
                        f"this run's {wanted[key]}"
                    )
        for index, parameter in enumerate(self.parameters):
            moments = self.optimizer.state.get(parameter, {})
            for key, value in moments.items():
                value = torch.as_tensor(value)
                if not bool(torch.isfinite(value).all()):
                    raise ValueError(f"its Adam state {key} of parameter {index} is not finite")
                if key == "step":
                    if value.numel() != 1 or float(value) < 0:
                        raise ValueError(f"its Adam step of parameter {index} is {value.tolist()}")
                elif value.shape != parameter.shape:
                    raise ValueError(
                        f"its Adam state {key} of parameter {index} has shape "
                        f"{tuple(value.shape)}, not the parameter's {tuple(parameter.shape)}"
                    )
                elif key == "exp_avg_sq" and bool((value < 0).any()):
                    raise ValueError(f"its Adam state {key} of parameter {index} is negative")

    def finite(self, obs, seen) -> bool:
        """Whether every parameter (the critic's too) is finite, and so are the policy's
        logits and values on the observations ``obs`` and the values of :meth:`critic_input`
        rows ``seen`` (some of a batch, on the device)."""
        from training import net

        critic = self.critic is None or net.is_finite(self.critic, seen)
        return critic and net.is_finite(self.model, obs)

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
        some = slice(0, int(c["minibatch"]))  # a minibatch's outputs: cheap beside the update
        if not (np.isfinite(list(stats.values())).all() and self.finite(obs[some], seen[some])):
            raise TrainingDiverged(
                f"the network's weights or outputs are no longer finite (NaN or infinite) "
                f"after an update at learning rate {c['lr']:g}"
            )
        return stats
