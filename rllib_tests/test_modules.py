"""The RLModules the project ships: masked logits, scripted opponents, and an export that plays as the module does."""

import collections

import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns

from pitch_policy import PolicyMLP
from train.config import load_config
from train.rllib.env import PitchMultiAgentEnv
from train.rllib.league import LEARNER, Seating, snapshot_id, _filled
from train.rllib.modules import HeuristicPolicy, LearnerModule, RandomPolicy, policy_layers, policy_state

NET = {"hidden": [32, 16], "activation": "tanh"}


def spaces(heuristic=True):
    env = PitchMultiAgentEnv({"variant": "setback", "heuristic": heuristic})
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


def test_the_learner_masks_illegal_actions_and_exports_the_same_policy():
    env, obs_space, act_space = spaces()
    m = LearnerModule(observation_space=obs_space, action_space=act_space, model_config=NET)
    obs = batch_of(env)
    logits = m.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
    assert torch.all(logits[obs["action_mask"] == 0] < -1e30)
    policy = PolicyMLP(policy_layers(m.get_state()), "tanh")
    mine = policy.logits(obs["observations"].numpy())
    legal = obs["action_mask"].numpy() > 0
    np.testing.assert_allclose(mine[legal], logits.detach().numpy()[legal], rtol=1e-5, atol=1e-5)
    assert m.compute_values({Columns.OBS: obs}).shape == (len(legal),)


def test_the_inference_only_learner_holds_no_value_net_and_takes_the_policy_state():
    _, obs_space, act_space = spaces()
    full = LearnerModule(observation_space=obs_space, action_space=act_space, model_config=NET)
    lean = LearnerModule(observation_space=obs_space, action_space=act_space, model_config=NET, inference_only=True)
    assert not hasattr(lean, "vf")
    lean.set_state(full.get_state(inference_only=True))
    assert set(lean.get_state()) == {k for k in full.get_state() if k.startswith("pi.")}


def test_the_heuristic_module_plays_the_heuristic_and_random_plays_only_legal_moves():
    env, obs_space, act_space = spaces()
    obs = batch_of(env, n=40, seed=1)
    h = HeuristicPolicy(observation_space=obs_space, action_space=act_space, model_config={})
    r = RandomPolicy(observation_space=obs_space, action_space=act_space, model_config={})
    for module, allowed in ((h, obs["heuristic"]), (r, obs["action_mask"])):
        logits = module.forward_exploration({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
        picks = torch.distributions.Categorical(logits=logits).sample()
        assert torch.all(allowed[torch.arange(len(picks)), picks] == 1)
    assert torch.all(torch.argmax(h.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS], 1)
                     == torch.argmax(obs["heuristic"], 1))


def test_warm_start_weights_land_in_the_learners_layout():
    from train.network import PolicyValueNet, export_policy
    from train.rllib.loop import learner_weights

    cfg = load_config(None, ["hidden=[32, 16]", "activation=tanh", "hint=heuristic"])
    net = PolicyValueNet.for_config(cfg)
    env = PitchMultiAgentEnv({"variant": "setback", "hint": "heuristic"})
    m = LearnerModule(observation_space=env.observation_spaces["side_0"], action_space=env.action_spaces["side_0"],
                      model_config=NET)
    m.set_state(learner_weights(net))
    obs = batch_of(env)
    x = obs["observations"]
    with torch.no_grad():
        np.testing.assert_allclose(m.compute_values({Columns.OBS: obs}).numpy(),
                                   net.value(x).numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(PolicyMLP(policy_layers(m.get_state()), "tanh").logits(x.numpy()),
                               export_policy(net, cfg).logits(x.numpy()), rtol=1e-5, atol=1e-5)
    assert policy_state(policy_layers(m.get_state())).keys() == {k for k in m.get_state() if k.startswith("pi.")}


class _Episode:
    def __init__(self, id_):
        self.id_ = id_


def test_one_side_is_the_learner_the_others_drawn_by_weight_and_every_agent_of_a_game_agrees():
    _filled[0] = 3
    seating = Seating([0, 1, 0, 1], {"self": 2.0, "heuristic": 1.0, "random": 1.0, "never": 0.0}, mirror=0.25)
    counts = collections.Counter()
    mirrors = 0
    for i in range(4000):
        ep = _Episode(f"episode-{i}")
        sides = [seating(f"side_{s}", ep) for s in (0, 1)]
        assert sides == [seating(f"side_{s}", ep) for s in (0, 1)], "the draw is a function of the episode"
        if sides == [LEARNER, LEARNER]:
            mirrors += 1
            continue
        assert sides.count(LEARNER) == 1
        counts[next(s for s in sides if s != LEARNER)] += 1
    n = sum(counts.values())
    assert mirrors / 4000 == pytest.approx(0.25, abs=0.03)
    assert counts["heuristic"] / n == pytest.approx(0.25, abs=0.03) and counts["random"] / n == pytest.approx(0.25, abs=0.03)
    assert {k for k in counts if k.startswith("snapshot_")} == {snapshot_id(i) for i in range(3)}
    assert "never" not in counts


def test_a_nan_sample_count_from_rllib_counts_as_nothing():
    """RLlib once reported NaN learner steps for an iteration ten minutes into a run; the league's
    schedule must not crash on it."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_MODULE_STEPS_SAMPLED

    from train.rllib.league import League

    league = League(snapshot_every=100, uses_snapshots=False)
    for sampled in (40.0, float("nan"), 30.0):
        league.on_train_result(algorithm=None, result={ENV_RUNNER_RESULTS: {NUM_MODULE_STEPS_SAMPLED: {LEARNER: sampled}}})
    assert league.steps == 70
