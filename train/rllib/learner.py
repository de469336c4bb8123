"""PPO's torch learner, with an optimizer only for the module it trains.

RLlib's learner builds an Adam optimizer for every module of the multi-agent module, and checks and
steps them all at every minibatch, trained or not: with ``snapshot_pool`` frozen snapshots and the
scripted opponents that is a dozen idle optimizers, which (profiled here) cost more than the learner's own
update. The frozen and scripted modules are in ``policies_to_train``'s complement, so they get none.
"""

from __future__ import annotations

from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner


class PitchPPOLearner(PPOTorchLearner):
    def configure_optimizers_for_module(self, module_id, config=None) -> None:
        if self.should_module_be_updated(module_id):
            super().configure_optimizers_for_module(module_id, config)
