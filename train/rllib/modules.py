"""The RLModules of the RLlib backend: the learner (masked policy MLP + value MLP), its frozen
snapshots, the heuristic and random play, all reading the env's dict observation (train/rllib/env.py).

Illegal actions get the logit ``FLOAT_MIN`` (a large finite negative: an all-zero mask, as in the
terminal observations RLlib runs the value net on, gives no NaN). The policy net is
``hidden`` layers with ``activation``, then the logits: the shape of the SB3 path's MlpPolicy, so
it exports as the project's policy file (``policy_layers`` → ``pitch_policy.PolicyMLP``), and
the value net is a separate MLP of the same widths (the SB3 path's ``net_arch=dict(pi=…, vf=…)``).
"""

from __future__ import annotations

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def mlp(sizes: list[int], activation: str) -> torch.nn.Sequential:
    """Linear layers through ``sizes`` with ``activation`` between them (none after the last)."""
    layers: list[torch.nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        if i:
            layers.append(ACTIVATIONS[activation]())
        layers.append(torch.nn.Linear(a, b))
    return torch.nn.Sequential(*layers)


def masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(mask <= 0, FLOAT_MIN)


class FrozenPolicy(TorchRLModule):
    """A policy net alone: the frozen snapshots of the learner (``self`` in ``opponents``), never trained;
    its state is the learner's inference-only state (the ``pi.*`` tensors)."""

    def setup(self):
        mc = self.model_config
        obs = self.observation_space["observations"].shape[0]
        self.pi = mlp([obs, *mc["hidden"], self.action_space.n], mc["activation"])

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: masked(self.pi(obs["observations"]), obs["action_mask"])}


class LearnerModule(FrozenPolicy, ValueFunctionAPI, InferenceOnlyAPI):
    """The learner: the policy net of ``FrozenPolicy`` plus a value net (left out on the env runners)."""

    def setup(self):
        super().setup()
        if not self.inference_only:
            mc = self.model_config
            obs = self.observation_space["observations"].shape[0]
            self.vf = mlp([obs, *mc["hidden"], 1], mc["activation"])

    def compute_values(self, batch, embeddings=None):
        return self.vf(batch[Columns.OBS]["observations"]).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        return ["vf"]


class _Scripted(TorchRLModule):
    """A module without weights whose logits are read off the observation."""

    def setup(self):
        self._dummy = torch.nn.Parameter(torch.zeros(()), requires_grad=False)  # gives the module a device

    def _forward_train(self, batch, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} plays scripted moves and is never trained")


class HeuristicPolicy(_Scripted):
    """The heuristic (agents/heuristic.py): plays the action the env put in ``heuristic``."""

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: masked(torch.zeros_like(obs["action_mask"]), obs["heuristic"])}


class RandomPolicy(_Scripted):
    """A uniformly random legal action (sampled from equal logits over the legal ones)."""

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: masked(torch.zeros_like(obs["action_mask"]), obs["action_mask"])}


def policy_layers(state: dict) -> list[tuple[np.ndarray, np.ndarray]]:
    """The policy net's (weight, bias) pairs, in order, from a module state (``pi.N.weight``…)."""
    idx = sorted({int(k.split(".")[1]) for k in state if k.startswith("pi.")})
    return [(np.asarray(state[f"pi.{i}.weight"], np.float32), np.asarray(state[f"pi.{i}.bias"], np.float32))
            for i in idx]


def policy_state(layers, net: str = "pi") -> dict:
    """The inverse of ``policy_layers``: (weight, bias) pairs as a module state (linear i is ``net.{2i}``,
    as ``mlp`` puts an activation between linears)."""
    return {f"{net}.{2 * i}.{part}": t for i, (w, b) in enumerate(layers) for part, t in (("weight", w), ("bias", b))}


def parameter_order(names) -> list[str]:
    """Tensor names in the order of ``module.parameters()`` (the policy net, then the value net, layer by
    layer, weight before bias): the order of the optimizer's parameter indices. State dicts that pass
    through RLlib come back with their keys sorted, so the order is rebuilt from the names."""
    def key(name: str):
        net, layer, part = name.split(".")
        return (0 if net == "pi" else 1, int(layer), 0 if part == "weight" else 1)

    return sorted(names, key=key)
