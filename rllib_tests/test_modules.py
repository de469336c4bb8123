"""The learner module is the project's network inside RLlib: masked logits, the export every trainer
writes, and an optimizer state the one trainer writer (train/resume.py) saves and reads back."""

import numpy as np
import torch
from ray.rllib.core.columns import Columns

from train.config import load_config
from train.network import PolicyValueNet, export_policy, new_optimizer
from train.rllib.checkpoint import rllib_optimizer, torch_optimizer
from train.rllib.env import PitchMultiAgentEnv
from train.rllib.modules import LearnerModule, as_network, module_state

NET = {"hidden": [32, 16], "activation": "tanh"}
CFG = load_config(None, ["hidden=[32, 16]", "activation=tanh"])


def spaces():
    env = PitchMultiAgentEnv({"variant": "setback", "mirror": 1.0})
    return env, env.observation_spaces["side_0"], env.action_spaces["side_0"]


def batch_of(env, n=20, seed=0):
    """Observations of ``n`` decisions of a random game, batched as RLlib hands them to a module."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    rows = []
    for _ in range(n):
        (aid, o), = obs.items()
        rows.append(o)
        obs, *_ = env.step({aid: int(rng.choice(np.flatnonzero(o["action_mask"])))})
    return {k: torch.tensor(np.stack([r[k] for r in rows])) for k in rows[0]}


def test_the_learner_is_the_projects_network_and_exports_the_same_policy():
    env, obs_space, act_space = spaces()
    m = LearnerModule(observation_space=obs_space, action_space=act_space, model_config=NET)
    assert isinstance(m.net, PolicyValueNet)
    obs = batch_of(env)
    logits = m.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS].detach().numpy()
    legal = obs["action_mask"].numpy() > 0
    assert np.all(logits[~legal] < -1e7)
    net = as_network(CFG, m.get_state())
    mine = export_policy(net, CFG).logits(obs["observations"].numpy())
    np.testing.assert_allclose(mine[legal], logits[legal], rtol=1e-5, atol=1e-5)
    with torch.no_grad():
        np.testing.assert_allclose(m.compute_values({Columns.OBS: obs}).numpy(), net.value(obs["observations"]).numpy(),
                                   rtol=1e-6)
    back = LearnerModule(observation_space=obs_space, action_space=act_space, model_config=NET)
    back.set_state(module_state(net))
    for k, v in m.get_state().items():
        np.testing.assert_array_equal(back.get_state()[k], v)


def test_the_inference_only_learner_holds_no_value_net_and_takes_the_policy_state():
    _, obs_space, act_space = spaces()
    full = LearnerModule(observation_space=obs_space, action_space=act_space, model_config=NET)
    lean = LearnerModule(observation_space=obs_space, action_space=act_space, model_config=NET, inference_only=True)
    assert not hasattr(lean.net, "vf")
    lean.set_state(full.get_state(inference_only=True))
    assert set(lean.get_state()) == {k for k in full.get_state() if k.startswith("net.pi.")}


def test_rllibs_optimizer_state_round_trips_through_a_torch_adam_over_the_network():
    """RLlib hands out its Adam's state as numpy, parameter i being the module's i-th, the network's i-th."""
    env, obs_space, act_space = spaces()
    m = LearnerModule(observation_space=obs_space, action_space=act_space, model_config=NET)
    opt = new_optimizer(m, 1e-3)
    obs = batch_of(env)
    for _ in range(2):
        opt.zero_grad()
        m.net.logits(obs["observations"], obs["action_mask"] > 0).logsumexp(1).sum().backward()
        opt.step()
    sd = opt.state_dict()
    rllib = {"state": {i: {k: v.numpy() if k != "step" else float(v) for k, v in s.items()}
                       for i, s in sd["state"].items()}, "param_groups": sd["param_groups"]}
    net = as_network(CFG, m.get_state())
    adam = torch_optimizer(net, rllib)
    for p, (i, slots) in zip(net.parameters(), sorted(adam.state_dict()["state"].items())):
        assert slots["exp_avg"].shape == p.shape and float(slots["step"]) == 2.0
    back = rllib_optimizer(adam)
    for i, slots in sd["state"].items():
        np.testing.assert_array_equal(back["state"][i]["exp_avg_sq"], slots["exp_avg_sq"].numpy())
    assert back["param_groups"][0]["lr"] == 1e-3 and back["param_groups"][0]["eps"] == 1e-5


def test_a_nan_sample_count_from_rllib_counts_as_nothing():
    """RLlib once reported NaN learner steps for an iteration ten minutes into a run; the snapshot
    schedule must not crash on it."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_MODULE_STEPS_SAMPLED

    from train.league import LEARNER
    from train.rllib.callbacks import PitchCallbacks

    calls = PitchCallbacks(load_config(None, ["snapshot_every=100", "opponents={heuristic: 1}"]))
    for sampled in (40.0, float("nan"), 30.0):
        calls.on_train_result(algorithm=None, result={ENV_RUNNER_RESULTS: {NUM_MODULE_STEPS_SAMPLED: {LEARNER: sampled}}})
    assert calls.steps == 70
