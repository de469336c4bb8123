"""The RLlib backend's callback: the snapshot schedule, and the games' statistics for TensorBoard.

Every ``snapshot_every`` learner decisions (``on_train_result``, after the update) the learner's
policy is frozen: its layers go to every env runner (``receive_snapshot`` in train/rllib/env.py),
whose envs' leagues (train/league.py) play it as ``self``, and the run keeps it on disk
(``on_snapshot``). The driver's callback holds the latest ``snapshot_pool`` of them, so an env
runner that Ray restarts gets them all back. ``on_episode_end`` sums each finished game's statistics
over the learner's sides; the run turns them into rates.
"""

from __future__ import annotations

import math
from functools import partial

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_MODULE_STEPS_SAMPLED

from ..league import LEARNER
from .env import receive_snapshot
from .modules import learner_network


def to_learner(agent_id, episode, **kwargs) -> str:
    """The policy-mapping function: every agent is a side the league gave the learner."""
    return LEARNER


def _receive(number: int, layers, activation: str, pool: int, env_runner) -> None:
    receive_snapshot(number, layers, activation, pool)


class PitchCallbacks(RLlibCallback):
    """See the module docstring. RLlib builds one in the driver and one in each env runner; the driver's
    holds the schedule, which the run saves in its checkpoints (``state`` / ``load``), and calls
    ``on_snapshot(net, steps)``, which the run sets to keep each snapshot on disk."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.every, self.pool, self.activation = cfg.snapshot_every, cfg.snapshot_pool, cfg.activation
        self.uses_snapshots = cfg.opponents.get("self", 0) > 0
        self.steps = 0  # learner decisions sampled (and trained on) so far
        self.next_snapshot = cfg.snapshot_every
        self.frozen: list[tuple[int, list]] = []  # (number, policy layers) of the snapshots in play
        self.number = 0
        self.on_snapshot = None

    # ------------------------------------------------------------------ the schedule
    def on_train_result(self, *, algorithm, result, **kwargs) -> None:
        sampled = result.get(ENV_RUNNER_RESULTS, {}).get(NUM_MODULE_STEPS_SAMPLED, {}).get(LEARNER, 0)
        # RLlib reported NaN here once, ten minutes into a run (which then crashed): count it as nothing
        self.steps += int(sampled) if math.isfinite(sampled) else 0
        if self.steps >= self.next_snapshot:
            self.snapshot(algorithm)
            self.next_snapshot = self.steps + self.every

    def snapshot(self, algorithm) -> None:
        """Freeze the learner's policy as it is now: on disk (``on_snapshot(net, steps)``), and into play."""
        net = learner_network(self.cfg, algorithm)
        if self.on_snapshot is not None:
            self.on_snapshot(net, self.steps)
        self.freeze(algorithm, net.layers()[0])

    def freeze(self, algorithm, layers) -> None:
        """Put policy ``layers`` into every env runner's league (a resumed run: its saved snapshots, in order)."""
        if not self.uses_snapshots:
            return
        self.frozen.append((self.number, layers))
        del self.frozen[:-self.pool]
        algorithm.env_runner_group.foreach_env_runner(partial(_receive, self.number, layers, self.activation,
                                                              self.pool))
        self.number += 1

    def on_env_runners_recreated(self, *, algorithm, env_runner_group, env_runner_indices, **kwargs) -> None:
        """A restarted env runner gets every snapshot back (its process was started afresh)."""
        for number, layers in self.frozen:
            env_runner_group.foreach_env_runner(partial(_receive, number, layers, self.activation, self.pool),
                                                remote_worker_ids=env_runner_indices, local_env_runner=False)

    def state(self) -> dict:
        return {"steps": self.steps, "next_snapshot": self.next_snapshot}

    def load(self, state: dict) -> None:
        self.steps, self.next_snapshot = int(state["steps"]), int(state["next_snapshot"])

    # ------------------------------------------------------------------ statistics
    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        """Sums over the learner's sides of each finished game; the run turns them into rates."""
        if metrics_logger is None:
            return
        for sa in episode.agent_episodes.values():
            info = sa.get_infos(-1) or {}
            if "won" not in info:
                continue
            for key in ("bid_turns", "bids", "bid_sum", "return", "truncated"):
                metrics_logger.log_value(("pitch", key), float(info[key]), reduce="sum")
            metrics_logger.log_value(("pitch", "sides"), 1, reduce="sum")
            if not info["mirror"]:  # a game the learner plays against itself is always half won
                metrics_logger.log_value(("pitch", "games"), 1, reduce="sum")
                metrics_logger.log_value(("pitch", "wins"), float(info["won"]), reduce="sum")
