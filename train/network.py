"""The one training network: a policy MLP and a value MLP over the policy input, in torch.

Every trainer holds a ``PolicyValueNet``: PPO (train/ppo.py) directly, Stable-Baselines3 through
``to_sb3``/``from_sb3`` (its MlpPolicy is the same two MLPs), RLlib by its ``pi``/``vf`` layers. It is
built fresh (``for_config``), warm-started from a policy file (``warm_start``), and exported as the
project's policy (``export_policy`` → ``pitch_policy.PolicyMLP``, saved with ``pitch_policy.save_policy``).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from pitch_policy import PolicyMLP

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}
MASKED = -1e8  # the logit of an illegal action: finite, so an all-illegal row gives no NaN


def mlp(sizes: list[int], activation: str) -> nn.Sequential:
    """Linear layers through ``sizes`` with ``activation`` between them (none after the last): linear
    ``i`` is module ``2 * i``."""
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        if i:
            layers.append(ACTIVATIONS[activation]())
        layers.append(nn.Linear(a, b))
    return nn.Sequential(*layers)


def linears(seq: nn.Sequential) -> list[nn.Linear]:
    return [m for m in seq if isinstance(m, nn.Linear)]


def as_layers(seq: nn.Sequential) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) pairs of an MLP as numpy copies, in order."""
    return [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in linears(seq)]


class PolicyValueNet(nn.Module):
    """``pi``: inputs → ``hidden`` → action logits; ``vf``: inputs (and ``critic_extra`` more: the oracle
    critic's, train/critic.py) → ``hidden`` → one value. Initialised as CleanRL and SB3 do (orthogonal;
    gain √2 for hidden layers, 0.01 for the logits, 1 for the value)."""

    def __init__(self, inputs: int, actions: int, hidden: list[int], activation: str = "relu", critic_extra: int = 0):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; known: {', '.join(ACTIVATIONS)}")
        self.inputs, self.actions, self.hidden, self.activation = inputs, actions, list(hidden), activation
        self.critic_extra = critic_extra
        self.pi = mlp([inputs, *hidden, actions], activation)
        self.vf = mlp([inputs + critic_extra, *hidden, 1], activation)
        for seq, last_gain in ((self.pi, 0.01), (self.vf, 1.0)):
            layers = linears(seq)
            for k, m in enumerate(layers):
                nn.init.orthogonal_(m.weight, gain=last_gain if k == len(layers) - 1 else math.sqrt(2))
                nn.init.zeros_(m.bias)

    @classmethod
    def for_config(cls, cfg) -> "PolicyValueNet":
        """A fresh network of the config's shape (``hidden``, ``activation``) for its rules and hint."""
        from .critic import oracle_size

        shape = cfg.policy_shape()
        extra = oracle_size(cfg.resolved_rules()) if cfg.critic == "oracle" else 0
        return cls(shape[0], shape[-1], cfg.hidden, cfg.activation, extra)

    # ------------------------------------------------------------------ forward
    def logits(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """Action logits; with ``mask`` (bool, True = legal), illegal ones set to ``MASKED``."""
        z = self.pi(x)
        return z if mask is None else z.masked_fill(~mask, MASKED)

    def value(self, x: torch.Tensor, extra: torch.Tensor | None = None) -> torch.Tensor:
        """The value of inputs ``x``; ``extra``: the oracle critic's inputs of the same rows, if it has them."""
        return self.vf(x if extra is None else torch.cat([x, extra], 1))[:, 0]

    def evaluate(self, x: torch.Tensor, mask: torch.Tensor, actions: torch.Tensor, extra: torch.Tensor | None = None):
        """(log-probability of ``actions``, entropy, value) under the masked policy: what PPO's loss reads."""
        logp_all = torch.log_softmax(self.logits(x, mask), 1)
        logp = logp_all.gather(1, actions[:, None])[:, 0]
        entropy = -(logp_all.exp() * logp_all).sum(1)
        return logp, entropy, self.value(x, extra)

    # ------------------------------------------------------------------ numpy views
    def layers(self) -> tuple[list, list]:
        """(policy layers, value layers) as numpy (weight, bias) pairs: what rollout workers run."""
        return as_layers(self.pi), as_layers(self.vf)

    def export_policy(self, hint: str = "none") -> PolicyMLP:
        """The policy head as the project's inference policy (save it with ``pitch_policy.save_policy``)."""
        return PolicyMLP(as_layers(self.pi), self.activation, hint=hint)

    # ------------------------------------------------------------------ other holders of the same layers
    def warm_start(self, policy: PolicyMLP) -> None:
        """Take a policy file's layers as the policy net (its shape must be this network's); the value
        net stays as it is."""
        if policy.shape != [self.inputs, *self.hidden, self.actions] or policy.activation != self.activation:
            raise ValueError(f"a {policy.activation} policy of shape {policy.shape} cannot warm-start a "
                             f"{self.activation} network of shape {[self.inputs, *self.hidden, self.actions]}")
        with torch.no_grad():
            for m, (w, b) in zip(linears(self.pi), policy.layers):
                m.weight.copy_(torch.from_numpy(w))
                m.bias.copy_(torch.from_numpy(b))

    def to_sb3(self, policy) -> None:
        """Copy these weights into an SB3 ``ActorCriticPolicy`` of the same shape (``net_arch=dict(pi=hidden,
        vf=hidden)``): its policy and value extractors, then its action and value heads."""
        for seq, extractor, head in ((self.pi, policy.mlp_extractor.policy_net, policy.action_net),
                                     (self.vf, policy.mlp_extractor.value_net, policy.value_net)):
            with torch.no_grad():
                for mine, theirs in zip(linears(seq), linears(extractor) + [head]):
                    theirs.weight.copy_(mine.weight)
                    theirs.bias.copy_(mine.bias)

    def from_sb3(self, policy) -> "PolicyValueNet":
        """Copy an SB3 ``ActorCriticPolicy``'s weights into this network (the inverse of ``to_sb3``)."""
        for seq, extractor, head in ((self.pi, policy.mlp_extractor.policy_net, policy.action_net),
                                     (self.vf, policy.mlp_extractor.value_net, policy.value_net)):
            with torch.no_grad():
                for mine, theirs in zip(linears(seq), linears(extractor) + [head]):
                    mine.weight.copy_(theirs.weight)
                    mine.bias.copy_(theirs.bias)
        return self


def new_optimizer(net: nn.Module, learning_rate: float) -> torch.optim.Adam:
    """Adam as CleanRL and SB3 use it for PPO (eps 1e-5)."""
    return torch.optim.Adam(net.parameters(), lr=learning_rate, eps=1e-5)


def export_policy(net: PolicyValueNet, cfg) -> PolicyMLP:
    """The one export every trainer uses: the learner's policy as a PolicyMLP reading the config's hint."""
    return net.export_policy(cfg.hint)
