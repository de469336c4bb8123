"""The training backend key (``backend: sb3 | rllib``), Ray-free: RLlib's keys are checked when the config is
read, keys of one backend set under the other are refused by name, and `make test` never imports Ray
(the RLlib backend's own suite, which trains, is rllib_tests/, run by `make rllib-test`)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from train.config import FIXED_ON_RESUME, ConfigError, load_config, load_resume_config, save_yaml
from train.run import train

ROOT = Path(__file__).resolve().parent.parent


def test_the_sb3_path_stays_the_default_and_refuses_rllibs_keys():
    assert load_config(None).backend == "sb3"
    for override in ("num_env_runners=2", "envs_per_env_runner=4", "num_learners=1", "ray_address=auto",
                     "train_batch_size=4096"):
        key = override.split("=")[0]
        with pytest.raises(ConfigError, match=f"'{key}'.*only to backend: rllib"):
            load_config(None, [override])


def test_rllibs_keys_are_typed_and_ranged():
    cfg = load_config(None, ["backend=rllib", "num_env_runners=8", "envs_per_env_runner=2", "num_learners=1",
                             "ray_address=auto", "mirror=0.3"])
    assert (cfg.num_env_runners, cfg.envs_per_env_runner, cfg.num_learners, cfg.ray_address) == (8, 2, 1, "auto")
    for override, key in (("num_env_runners=-1", "num_env_runners"), ("envs_per_env_runner=0", "envs_per_env_runner"),
                          ("ray_address=a b", "ray_address"), ("num_learners=many", "num_learners")):
        with pytest.raises(ConfigError, match=key):
            load_config(None, ["backend=rllib", override])


@pytest.mark.parametrize("override, key, fix", [
    ("trainer=fast", "trainer", "drop trainer: fast"),
    ("vec_env=subproc", "vec_env", "num_env_runners"),
    ("backend=nccl", "backend", "one of 'sb3', 'rllib'"),
    ("n_steps=64", "batch_size", "lower batch_size or raise n_steps"),
])
def test_combinations_that_make_no_sense_with_rllib_are_refused_in_one_line(override, key, fix):
    with pytest.raises(ConfigError) as e:
        load_config(None, ["backend=rllib", override])
    assert key in str(e.value) and fix in str(e.value) and "\n" not in str(e.value)


def test_rllib_plays_any_agent_spec_as_an_opponent():
    """The league (train/league.py) fills the other sides inside the RLlib env, as on every path."""
    cfg = load_config(None, ["backend=rllib", "opponents={heuristic: 1, 'checkpoint:checkpoints/setback': 1}"])
    assert cfg.opponents == {"heuristic": 1, "checkpoint:checkpoints/setback": 1}


@pytest.mark.parametrize("name", ["quick", "setback", "auction", "ten_point", "setback_rllib"])
def test_the_shipped_configs_take_backend_rllib_unchanged(name):
    assert load_config(ROOT / "configs" / f"{name}.yaml", ["backend=rllib"]).backend == "rllib"


def test_the_batched_trainers_config_says_what_to_drop_for_rllib():
    with pytest.raises(ConfigError, match="'trainer'.*drop trainer: fast"):
        load_config(ROOT / "configs" / "setback_scratch.yaml", ["backend=rllib"])


def test_a_resumed_run_keeps_its_backend_but_may_move_to_a_cluster(tmp_path):
    assert "backend" in FIXED_ON_RESUME
    saved = tmp_path / "config.yaml"
    saved.write_text(save_yaml(load_config(None, ["backend=rllib"])))
    with pytest.raises(ConfigError, match="cannot apply to a resumed run"):
        load_resume_config(saved, ["backend=sb3"])
    cfg, changed = load_resume_config(saved, ["ray_address=auto", "num_env_runners=64"])
    assert changed and cfg.num_env_runners == 64


def test_without_ray_backend_rllib_says_how_to_install_it_before_writing_anything(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as in the default venv: `import ray` fails
    monkeypatch.setitem(sys.modules, "ray.rllib", None)
    with pytest.raises(ConfigError, match=r"pip install -e '\.\[rllib\]'"):
        train(overrides=["backend=rllib", f"runs_dir={tmp_path}", "run_name=r"], show_progress=False)
    assert not (tmp_path / "r").exists()


def test_the_sb3_path_and_the_cli_never_import_ray():
    code = ("import sys, pitch_cli, train.loop, train.cli, train.config, train.ppo, train.sb3, train.resume, agents, pitch_env\n"
            "bad = sorted(m for m in sys.modules if m == 'ray' or m.startswith(('ray.', 'train.rllib')))\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_no_test_of_the_default_suite_imports_ray():
    for path in sorted((ROOT / "tests").glob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
        assert not [n for n in names if n.split(".")[0] == "ray" or n.startswith("train.rllib")], path.name
