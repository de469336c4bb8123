"""The learner as an RLlib RLModule: the project's one network (train/network.py ``PolicyValueNet``)
reading the env's dict observation (train/rllib/env.py). The league's players move inside the env, so
the learner is the only module.

The module's only part is ``net``; its state is the network's (``net.pi.*``, ``net.vf.*``), so it converts
to and from a ``PolicyValueNet`` by name (``as_network``, ``module_state``) and is exported, warm-started
and checkpointed as every trainer's network is. The env runners hold it without the value net.
"""

from __future__ import annotations

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from ..league import LEARNER
from ..network import PolicyValueNet

PREFIX = "net."


class LearnerModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """``model_config``: ``hidden`` and ``activation``, as the config's."""

    def setup(self):
        mc = self.model_config
        self.net = PolicyValueNet(self.observation_space["observations"].shape[0], self.action_space.n,
                                  list(mc["hidden"]), mc["activation"])
        if self.inference_only:  # RLlib's own removal of get_non_inference_attributes misses nested ones
            del self.net.vf

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: self.net.logits(obs["observations"], obs["action_mask"] > 0)}

    def compute_values(self, batch, embeddings=None):
        return self.net.value(batch[Columns.OBS]["observations"])

    def get_non_inference_attributes(self) -> list[str]:
        return ["net.vf"]


def as_network(cfg, state: dict) -> PolicyValueNet:
    """The config's network holding a learner module's state (numpy or torch tensors, as RLlib hands them)."""
    net = PolicyValueNet.for_config(cfg)
    net.load_state_dict({k[len(PREFIX):]: torch.as_tensor(np.asarray(v)) for k, v in state.items()})
    return net


def module_state(net: PolicyValueNet) -> dict:
    """A network's tensors as the learner module's state (numpy)."""
    return {PREFIX + k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items()}


def policy_only(state: dict) -> dict:
    """The part of a module state the env runners hold (their inference-only module has no value net)."""
    return {k: v for k, v in state.items() if k.startswith(PREFIX + "pi.")}


def learner_network(cfg, algo) -> PolicyValueNet:
    """The learner of an RLlib algorithm as it is now, as the config's network (a copy)."""
    return as_network(cfg, algo.learner_group.get_weights([LEARNER])[LEARNER])
