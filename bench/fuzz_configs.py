"""Hostile training configs for bench/fuzz.py: the shipped configs/*.yaml (and configs/exit/*.yaml)
with one field set to a value training cannot use (out of range, NaN, wrong type, unknown agent spec,
a run name that leaves runs_dir), or replaced by YAML that is no config (a billion-laughs bomb, deep
nesting, non-UTF-8 bytes), each read with ``train.config.load_config`` (``train.exit.load_exit_config``)
— validation only, no training.
"""

from __future__ import annotations

import importlib
import random
from pathlib import Path

from bench.fuzz import Case, cleanup, refused

__all__ = ["prepare", "make_case", "check", "cleanup"]  # what bench/fuzz.py runs of a kind (cleanup: its inputs are plain files)

SHIPPED = Path(__file__).resolve().parent.parent / "configs"
_BASE: list[dict] = []
_EXIT_BASE: list[dict] = []

# field -> values that must be refused (each is a reason a run would crash, hang, or write elsewhere)
BAD_VALUES = {
    "seed": [-1, 2**80, 1.5, "abc"],
    "torch_threads": [0, -2],
    "total_steps": [0, -1, True, 1e30],
    "num_envs": [0, -3],
    "learning_rate": [float("nan"), float("inf"), -1.0, 0.0, "fast"],
    "imitate_lr": [float("nan"), -1.0],
    "gamma": [5.0, -0.1, float("nan")],
    "gae_lambda": [2.0, -1.0],
    "clip_range": [-1.0, 0.0, float("nan")],
    "max_grad_norm": [-1.0, float("nan")],
    "vf_coef": [float("nan"), float("inf")],
    "win_bonus": [float("nan")],
    "n_steps": [0, -5],
    "batch_size": [0, -1],
    "n_epochs": [0],
    "eval_every": [-5],
    "checkpoint_every": [-1],
    "snapshot_every": [-1],
    "snapshot_pool": [-1],
    "imitate_workers": [0, -1],
    "imitate_decisions": [-5],
    "hidden": [[], [-3], [0], [10**9], "256", [[1]]],
    "opponents": [{"wizard": 1.0}, {"heuristic": -1.0}, {}, {"heuristic": float("nan")}, ["heuristic"],
                  {"pimc:0": 1.0}, {"pimc:99999999999999999999": 1.0}, {"checkpoint:/no/such/file": 1.0},
                  {"split:heuristic+human": 1.0}],
    "eval_opponents": [["wizard"], ["pimc:x"], "heuristic,random", [5], ["HUMAN"]],
    "imitate": ["wizard", "pimc:0", "pimc:-3", "human", "split:human+heuristic"],
    "imitate_against": ["wizard", "split:heuristic+human"],
    "run_name": ["../..", "/tmp/escape", "a/../../b", "..", "x/../../y"],
    "variant": ["chess", "", 5],
    "rules": [{"num_players": 99}, [1], {"no_such_option": 1}, {"target_score": -4}],
    "activation": ["sigmoid", 1],
    "vec_env": ["threads"],
    "backend": ["ray", 1],
    "ray_address": ["host name with spaces", "x;rm -rf /", 6379],
    "num_env_runners": [-1, 1.5],
    "envs_per_env_runner": [0, -2],
    "num_learners": [-1],
    "train_batch_size": [-1],
    "no_such_key": [1],
}

# the same for expert iteration's configs (train/exit.py ExitConfig)
EXIT_BAD_VALUES = {
    "generations": [0, -1, 10**6, 1.5, "many"],
    "decisions": [5, -1, 10**12],
    "worlds": [0, -3, "8"],
    "replay": [0],
    "epochs": [0, True],
    "batch_size": [0, 1 << 20],
    "learning_rate": [float("nan"), float("inf"), 0.0, 5.0],
    "gate_games": [0, 1, -5],
    "gate_min": [float("nan"), -0.5, 1.5],
    "workers": [0, 10**6],
    "torch_threads": [0],
    "seed": [-1, 2**80, "x"],
    "stages": [[{"worlds": 8}], [{"generations": 0}], [{"generations": 1, "epochs": 3}], "5 then 2", [[1]],
               [{"generations": 1, "worlds": 10**9}], [{}]],
    "start": ["", "nowhere/policy", "/proc/self/mem", "configs"],
    "run_name": ["../..", "/tmp/escape", ".."],
    "variant": ["chess", 5],
    "rules": [{"num_players": 99}, [1], {"no_such_option": 1}],
    "generation": [2],
}

_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(8)) + "variant: *i\n"


def prepare(work: Path) -> None:
    import yaml

    for name in ("train.config", "train.exit", "train.cli"):  # imported before the fork, so no child imports them again
        importlib.import_module(name)

    from train.cli import is_exit_recipe

    for path in sorted([*SHIPPED.glob("*.yaml"), *SHIPPED.glob("exit/*.yaml")]):  # each to the loader pitch train picks
        (_EXIT_BASE if is_exit_recipe(str(path), None) else _BASE).append(yaml.safe_load(path.read_text()) or {})


def make_case(rng: random.Random, work: Path, i: int) -> Case:
    import yaml

    path = work / f"k{i}.yaml"
    roll = rng.random()
    if roll < 0.05:  # a shipped config, untouched: it must be read
        path.write_text(yaml.safe_dump(rng.choice(_BASE)))
        return Case("configs", "none", path, False)
    if roll < 0.25:
        name, data = rng.choice([
            ("yaml_bomb", _BOMB.encode()),
            ("bomb_in_field", _BOMB.replace("variant: *i", "hidden: *i").encode()),
            ("deep_list", b"hidden: " + b"[" * 20_000 + b"]" * 20_000),
            ("deep_map", b"rules: " + b"{a: " * 5_000 + b"1" + b"}" * 5_000),
            ("not_utf8", b"variant: \xff\xfe\x80setback\n"),
            ("top_list", b"- 1\n- 2\n"), ("top_string", b"setback\n"), ("top_number", b"5\n"),
            ("bad_yaml", b"variant: [setback\nseed: : :\n"), ("tab_indent", b"rules:\n\tnum_players: 3\n"),
            ("huge_string", b"run_name: " + b"x" * 30_000_000 + b"\n"),
            ("python_tag", b"seed: !!python/object/apply:os.system ['echo pwned']\n"),
            ("binary_tag", b"variant: !!binary aGVsbG8=\n"),
        ])
        path.write_bytes(data)
        return Case("configs", name, path, True)
    if roll < 0.27:
        path.mkdir()
        return Case("configs", "directory", path, True)
    if roll < 0.40:  # an expert-iteration recipe: untouched, or one field bad
        path = work / f"exit_k{i}.yaml"
        values = dict(rng.choice(_EXIT_BASE))
        if roll < 0.29:
            path.write_text(yaml.safe_dump(values))
            return Case("configs", "exit_none", path, False)
        key = rng.choice(sorted(EXIT_BAD_VALUES))
        value = rng.choice(EXIT_BAD_VALUES[key])
        must = not (key == "start" and value == "" and values.get("start_train"))  # no start: start_train's run is it
        values[key] = value
        path.write_text(yaml.safe_dump(values))
        return Case("configs", f"exit_{key}={str(value)[:40]}", path, must)
    values = dict(rng.choice(_BASE))
    key = rng.choice(sorted(BAD_VALUES))
    value = rng.choice(BAD_VALUES[key])
    values[key] = value
    path.write_text(yaml.safe_dump(values))
    return Case("configs", f"{key}={str(value)[:40]}", path, True)


def check(case: Case) -> tuple[str, str]:
    from train.config import load_config
    from train.exit import load_exit_config

    try:
        (load_exit_config if case.path.name.startswith("exit_") else load_config)(case.path)
    except BaseException as e:
        return refused(e, case, "refused a shipped config")
    if case.must_refuse:
        return "fail", "silently accepted: training would crash, hang or write outside runs_dir"
    return "ok", "accepted: a sound config"
