"""The one training configuration (training/config.py): both stacks read one table, the
docstring lists every setting, RLlib's differences are the overrides, and the defaults of
``canasta train`` are those its run folders were written with."""

from __future__ import annotations

import re

import pytest

from training import config
from training.config import (
    DEFAULTS,
    RLLIB,
    RLLIB_DEFAULTS,
    RLLIB_OVERRIDES,
    SETTINGS,
    TORCH,
    settings_of,
)

#: canasta train's settings as training/run.py had them before the table: a run folder
#: written since then must resume (config.json holds exactly these keys, with "tables").
NATIVE_BEFORE = {
    "variant": ["classic"], "players": [2], "table_weights": None, "seed": 0,
    "hidden": [512, 256], "teachers": ["expert"],
    "record_opponents": {"expert": 0.5, "greedy": 0.3, "random": 0.2},
    "record_steps": 800_000, "record_chunk": 100_000, "bc_epochs": 4, "bc_lr": 1e-3,
    "bc_batch": 1024, "ppo_steps": 10_000_000, "rollout_steps": 16_384, "ppo_epochs": 2,
    "minibatch": 2048, "lr": 1e-4, "clip": 0.15, "ent_coef": 0.001, "vf_coef": 0.5,
    "gamma": 1.0, "gae_lambda": 0.95, "max_grad_norm": 0.5, "score_coef": 0.25,
    "kick_teacher": "expert", "kick_coef": 1.0, "kick_steps": 4_000_000,
    "opponents": {"self": 0.25, "snapshot": 0.2, "expert": 0.35, "greedy": 0.15,
                  "random": 0.05},
    "max_snapshots": 8, "eval_every": 10, "eval_deals": 150,
    "eval_opponents": ["expert", "greedy", "random"], "init": None, "envs": 64, "jobs": 2,
    "threads": 2, "time_limit": None,
}  # fmt: skip
#: The RLlib backend's keys before the table ("epochs" now reads as "ppo_epochs").
RLLIB_KEYS_BEFORE = {
    "variant", "players", "seed", "hidden", "ppo_steps", "rollout_steps", "minibatch",
    "epochs", "lr", "ent_coef", "gamma", "gae_lambda", "clip", "score_coef", "opponents",
    "max_snapshots", "eval_every", "eval_deals", "env_runners", "envs_per_runner",
    "checkpoint_every", "eval_hands", "init",
}  # fmt: skip


def test_canasta_train_keeps_its_defaults():
    # since the budget rule (training/machine.py): threads left out are the cores the
    # workers leave, saved as a number in config.json; device is new, and an older run
    # without it reads as "cpu"; step_cost is new, 0 for an older run and 0.01 for a new
    # one (issue 45's recipe); critic is new, "shared" (the value head on the policy's
    # trunk) for an older run
    added = {"device": "auto", "step_cost": 0.01, "critic": "shared"}
    assert DEFAULTS == {**NATIVE_BEFORE, "threads": None, **added}
    assert config.ADDED == {"device": "cpu", "step_cost": 0.0, "critic": "shared"}


def test_rllib_reads_the_keys_it_saved_before():
    renamed = {config.RLLIB_RENAMED.get(key, key) for key in RLLIB_KEYS_BEFORE}
    assert set(RLLIB_DEFAULTS) == renamed


def test_rllib_differs_only_where_an_override_says_so():
    for key, value in RLLIB_DEFAULTS.items():
        setting = config.BY_NAME[key]
        if TORCH in setting.stacks and key not in RLLIB_OVERRIDES:
            assert value == setting.default, key
    assert set(RLLIB_OVERRIDES) <= {s.name for s in settings_of(RLLIB)}
    # every override is one line with its reason beside it
    source = open(config.__file__, encoding="utf-8").read()
    block = source[source.index("RLLIB_OVERRIDES: dict") : source.index("\n}\n")]
    for key in RLLIB_OVERRIDES:
        (line,) = [line for line in block.splitlines() if line.strip().startswith(f'"{key}"')]
        assert "  # " in line, key


def test_the_docstring_lists_every_setting_and_its_stacks():
    rows = dict(re.findall(r"^``(\w+)``\s+([TR]+)\s", config.__doc__, re.MULTILINE))
    assert list(rows) == [setting.name for setting in SETTINGS]
    for setting in SETTINGS:
        letters = "".join(
            letter for stack, letter in ((TORCH, "T"), (RLLIB, "R")) if stack in setting.stacks
        )
        assert rows[setting.name] == letters, setting.name


def test_every_setting_has_help_and_a_default_that_passes_its_check():
    for setting in SETTINGS:
        assert setting.help, setting.name
        if setting.name in ("variant", "players") or setting.default is None:
            continue
        setting.check(setting.name, setting.default, setting.name)
    for key, value in RLLIB_OVERRIDES.items():
        value = [value] if key in ("variant", "players") else value
        config.check(key, value)


def test_the_help_of_both_commands_comes_from_the_table():
    pytest.importorskip("torch")
    from canasta_cli import train

    for parser, stack, defaults in (
        (train.build_parser(), TORCH, DEFAULTS),
        (train.build_rllib_parser(), RLLIB, RLLIB_DEFAULTS),
    ):
        text = " ".join(parser.format_help().split())
        for setting in settings_of(stack):
            if setting.name in ("variant", "players"):
                continue
            assert setting.option in text, setting.option
            if defaults[setting.name] is not None and setting.name != "opponents":
                shown = train._shown(defaults[setting.name])
                assert f"{setting.help} (a new run: {shown})" in text, setting.name
    # RLlib's former --epochs still sets ppo_epochs
    args = train.build_rllib_parser().parse_args(["--epochs", "3"])
    assert args.ppo_epochs == 3
