"""A short real RLlib run on two env runners, as `make rllib-test` promises: warm-started by imitation
through the project's network (no Stable-Baselines3 in the process), trained, exported, loaded with
``agents.make("checkpoint:PATH", env)``, played against the heuristic with the tournament tool, resumed
from the project's own files, and never from a pickle a crafted run directory holds."""

import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

import agents
import pitch_env
from pitch_cli import main as pitch
from pitch_policy import read_policy
from train.config import ConfigError
from train.run import train

from .conftest import TINY

pytestmark = pytest.mark.usefixtures("ray_local")
SHORT = "rules={max_hands: 4}"  # short games, so a few iterations finish many of them (statistics)


WARM = ["imitate=heuristic", "imitate_decisions=1500", "imitate_epochs=2", "imitate_workers=1"]


@pytest.fixture(scope="module")
def run(tmp_path_factory, ray_local):
    root = tmp_path_factory.mktemp("runs")
    with pytest.MonkeyPatch.context() as mp:
        for name in ("stable_baselines3", "sb3_contrib"):  # the warm start goes through train/network.py only
            mp.setitem(__import__("sys").modules, name, None)
        code = pitch(["train", "--set", *TINY, *WARM, SHORT, "num_env_runners=2", "total_steps=1500",
                      f"runs_dir={root}", "run_name=r", "--no-progress"])
    assert code == 0
    return root / "r"


def scalars(tb: Path) -> dict:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    ea = EventAccumulator(str(tb))
    ea.Reload()
    return {tag: [(e.step, e.value) for e in ea.Scalars(tag)] for tag in ea.Tags()["scalars"]}


def test_a_run_on_two_env_runners_exports_a_policy_that_plays_in_a_tournament(run, capsys):
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    assert state["steps"] >= 1500 and state["imitation"]["decisions"] == 1500
    policy, card = read_policy(run / "checkpoint")
    assert card["training_steps"] == state["steps"] and card["config"]["backend"] == "rllib"
    assert card["observation"]["transform"] == "suit_canonical" and policy.shape[1:-1] == [64, 64]
    env = pitch_env.env("setback", max_hands=4)
    agent = agents.make(f"checkpoint:{run / 'checkpoint'}", env)  # refuses anything that does not fit the game
    assert agent.policy.shape == policy.shape
    capsys.readouterr()
    assert pitch(["tournament", "--agents", f"checkpoint:{run / 'checkpoint'},heuristic", "--games", "8",
                  "--rule", "max_hands=4", "--quiet"]) == 0
    assert "heuristic" in capsys.readouterr().out
    assert len(list((run / "snapshots").glob("*.safetensors"))) == 3  # snapshot_pool kept on disk


def test_tensorboard_has_the_sb3_paths_scalar_names(run):
    tags = scalars(run / "tb")
    for name in ("pitch/learner_steps_per_s", "pitch/train_win_rate", "pitch/bids_made_pct", "pitch/truncated_pct",
                 "rollout/ep_rew_mean",
                 "train/entropy_loss", "eval/win_rate_vs_random", "eval/win_rate_vs_heuristic"):
        assert name in tags, name


def test_resume_continues_from_the_runs_own_files(run, tmp_path):
    copy = tmp_path / "r"
    shutil.copytree(run, copy, symlinks=True)
    before = json.loads((copy / "checkpoint" / "state.json").read_text())["steps"]
    train(resume=copy, overrides=["total_steps=2500", "num_env_runners=0"], show_progress=False)
    state = json.loads((copy / "checkpoint" / "state.json").read_text())
    assert state["steps"] >= 2500 > before
    assert state["league"]["next_snapshot"] > state["steps"] - 500


class _Bomb:
    def __init__(self, sentinel):
        self.sentinel = str(sentinel)

    def __reduce__(self):
        return (Path(self.sentinel).write_text, ("unpickled",))


def test_resume_never_unpickles_what_a_crafted_run_directory_holds(run, tmp_path):
    sentinel = tmp_path / "code-ran"
    copy = tmp_path / "r"
    shutil.copytree(run, copy, symlinks=True)
    bomb = pickle.dumps(_Bomb(sentinel))
    # what RLlib's own checkpoints hold (pickled state and class references), planted everywhere it could be looked for
    for folder in (copy, copy / "checkpoint"):
        for name in ("algorithm_state.pkl", "class_and_ctor_args.pkl", "rllib_checkpoint.json", "state.pkl"):
            (folder / name).write_bytes(bomb)
    trainer = copy / "checkpoint" / "trainer.safetensors"
    good = trainer.read_bytes()
    trainer.write_bytes(bomb)
    with pytest.raises(ConfigError, match="not a readable safetensors file"):
        train(resume=copy, overrides=["num_env_runners=0"], show_progress=False)
    # tensors of another shape: refused by name
    from safetensors.torch import load_file, save_file
    import torch

    trainer.write_bytes(good)
    tensors = load_file(str(trainer))
    save_file(dict(tensors, **{"policy/pi.0.weight": torch.zeros(3, 3)}), str(trainer))
    with pytest.raises(ConfigError, match="tensor .policy/pi.0.weight. is torch.float32 \\(3, 3\\)"):
        train(resume=copy, overrides=["num_env_runners=0"], show_progress=False)
    assert not sentinel.exists()


def test_a_network_loaded_as_the_learner_and_its_snapshots_reach_every_env_runner():
    """A network loaded into the algorithm (the warm start's, a resume's) is the learner's and the env
    runners' policy; the callback's snapshots land in each env runner's process, in order, the newest
    snapshot_pool of them, and its envs' leagues play them from their next game."""
    import torch

    from train.config import load_config
    from train.network import PolicyValueNet
    from train.rllib import env as env_module
    from train.rllib.loop import build, callbacks_of, set_learner
    from train.rllib.modules import LEARNER, learner_network

    cfg = load_config(None, [*TINY, "num_env_runners=1", "n_steps=64", "batch_size=128", "snapshot_pool=2",
                             "snapshot_every=1000000000"])
    algo = build(cfg, 0)
    try:
        torch.manual_seed(123)
        net = PolicyValueNet.for_config(cfg)
        set_learner(algo, net)
        for mine, theirs in zip(net.state_dict().values(), learner_network(cfg, algo).state_dict().values()):
            assert torch.equal(mine, theirs)
        (runner,) = algo.env_runner_group.foreach_env_runner(lambda er: er.module[LEARNER].get_state(),
                                                             local_env_runner=False)
        np.testing.assert_array_equal(runner["net.pi.0.weight"], net.pi[0].weight.detach().numpy())
        calls = callbacks_of(algo)
        for n in range(3):
            calls.snapshot(algo)
            algo.train()  # an update: the next snapshot differs from this one
        want = learner_network(cfg, algo).layers()[0]
        calls.snapshot(algo)

        def held(er):
            er.env.envs[0].unwrapped.reset()
            return ([n for n, _, _ in env_module._snapshots], env_module._snapshots[-1][1],
                    len(er.env.envs[0].unwrapped.league.snapshots))

        (numbers, newest, in_league), = algo.env_runner_group.foreach_env_runner(held, local_env_runner=False)
        assert numbers == [2, 3] and in_league == 2
        for (w, b), (w2, b2) in zip(want, newest):
            np.testing.assert_array_equal(w, w2)
            np.testing.assert_array_equal(b, b2)
    finally:
        algo.stop()
