"""The one training network: built for a config, exported as the policy file's network, warm-started
from one, and the same two MLPs as SB3's MlpPolicy."""

from __future__ import annotations

import numpy as np
import torch

from pitch_policy import PolicyMLP
from train.config import load_config
from train.network import PolicyValueNet, export_policy


def test_the_exported_policy_computes_the_networks_logits():
    cfg = load_config(None, ["hidden=[32, 16]", "activation=tanh", "hint=heuristic"])
    net = PolicyValueNet.for_config(cfg)
    x = torch.randn(5, net.inputs)
    policy = export_policy(net, cfg)
    assert policy.shape == [net.inputs, 32, 16, net.actions] and policy.hint == "heuristic"
    with torch.no_grad():
        assert np.allclose(policy.logits(x.numpy()), net.logits(x).numpy(), atol=1e-5)


def test_masked_log_probabilities_put_nothing_on_illegal_actions():
    net = PolicyValueNet(10, 6, [8])
    mask = torch.tensor([[True, False, True, False, False, False]] * 3)
    with torch.no_grad():
        logp, entropy, value = net.evaluate(torch.randn(3, 10), mask, torch.tensor([0, 2, 0]))
        probs = torch.softmax(net.logits(torch.randn(3, 10), mask), 1)
    assert float(probs[:, [1, 3, 4, 5]].sum()) < 1e-12 and value.shape == (3,) and (entropy >= 0).all()


def test_a_warm_start_takes_the_policy_files_layers():
    a, b = PolicyValueNet(10, 6, [8]), PolicyValueNet(10, 6, [8])
    b.warm_start(PolicyMLP(a.layers()[0], "relu"))
    assert all(torch.equal(p, q) for p, q in zip(a.pi.parameters(), b.pi.parameters()))


def test_sb3s_mlp_policy_holds_the_same_weights_both_ways():
    from sb3_contrib import MaskablePPO

    from train.sb3 import make_vec_env, new_model

    cfg = load_config(None, ["hidden=[32, 32]", "opponents={random: 1}", "num_envs=1"])
    venv = make_vec_env(cfg)
    try:
        model = new_model(cfg, venv)
        assert isinstance(model, MaskablePPO)
        net = PolicyValueNet.for_config(cfg)
        net.to_sb3(model.policy)
        x = torch.randn(4, net.inputs)
        with torch.no_grad():
            latent_pi, latent_vf = model.policy.mlp_extractor(x)
            assert torch.allclose(model.policy.action_net(latent_pi), net.logits(x), atol=1e-6)
            assert torch.allclose(model.policy.value_net(latent_vf)[:, 0], net.value(x), atol=1e-6)
        back = PolicyValueNet.for_config(cfg).from_sb3(model.policy)
        assert all(torch.equal(p, q) for p, q in zip(net.parameters(), back.parameters()))
    finally:
        venv.close()
