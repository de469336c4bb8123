"""Who plays each side of a game, and the snapshot schedule: the RLlib backend's opponent pool.

``Seating`` is the policy-mapping function: per episode, with probability ``mirror`` every side is
the learner; otherwise the learner takes a random seat's side (in partnerships both seats of it)
and each other side draws from the config's ``opponents`` weights: ``self`` (a frozen snapshot,
uniform over the slots that hold one), ``heuristic`` or ``random`` (train/rllib/modules.py). The
draw is a function of the episode's id, so every agent of an episode, and every chunk RLlib cuts
it into, agrees on it.

``League`` is the callback: every ``snapshot_every`` learner decisions (``on_train_result``, after
the update) it copies the learner's policy weights into the next of ``snapshot_pool`` snapshot
modules, round robin, on the learners and on every env runner, and counts the games' statistics
(``on_episode_end``) that the run writes to TensorBoard.
"""

from __future__ import annotations

import math
import random
from functools import partial

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_MODULE_STEPS_SAMPLED

from .env import agent_side

LEARNER, HEURISTIC, RANDOM = "learner", "heuristic", "random"


def snapshot_id(slot: int) -> str:
    return f"snapshot_{slot}"


_filled = [1]  # snapshot slots holding a snapshot, in this process (League pushes it to every env runner)


def _set_snapshot(slot: int | None, weights: dict | None, filled: int, env_runner) -> None:
    module = getattr(env_runner, "module", None)
    if slot is not None and module is not None:
        module[snapshot_id(slot)].set_state(weights)
    _filled[0] = filled


class Seating:
    """The policy-mapping function (see the module docstring)."""

    def __init__(self, side_of_seat: list[int], opponents: dict[str, float], mirror: float):
        self.side_of_seat = list(side_of_seat)
        self.num_sides = max(self.side_of_seat) + 1
        self.names = [k for k, w in opponents.items() if w > 0]
        self.weights = [opponents[k] for k in self.names]
        self.mirror = mirror

    def modules(self, key: str) -> list[str]:
        """The module playing each side of the episode ``key``."""
        rng = random.Random(key)
        if rng.random() < self.mirror:
            return [LEARNER] * self.num_sides
        learner = self.side_of_seat[rng.randrange(len(self.side_of_seat))]
        out = []
        for side in range(self.num_sides):
            if side == learner:
                out.append(LEARNER)
                continue
            name = rng.choices(self.names, self.weights)[0]
            out.append(snapshot_id(rng.randrange(_filled[0])) if name == "self" else name)
        return out

    def __call__(self, agent_id, episode, **kwargs) -> str:
        return self.modules(str(episode.id_))[agent_side(agent_id)]


class League(RLlibCallback):
    """The snapshot schedule and the games' statistics (see the module docstring). RLlib builds one
    in the driver and one in each env runner; the driver's holds the schedule, which the run saves
    in its checkpoints (``state`` / ``load``), and ``on_snapshot(layers_state, steps)``, which the
    run sets to keep each snapshot on disk."""

    def __init__(self, snapshot_every: int = 50_000, snapshot_pool: int = 10, uses_snapshots: bool = True):
        super().__init__()
        self.every, self.pool, self.uses_snapshots = snapshot_every, snapshot_pool, uses_snapshots
        self.steps = 0  # learner decisions sampled (and trained on) so far
        self.next_snapshot = snapshot_every
        self.next_slot = 0
        self.filled = 0
        self.on_snapshot = None

    # ------------------------------------------------------------------ the schedule
    def on_train_result(self, *, algorithm, result, **kwargs) -> None:
        sampled = result.get(ENV_RUNNER_RESULTS, {}).get(NUM_MODULE_STEPS_SAMPLED, {}).get(LEARNER, 0)
        # RLlib reported NaN here once, ten minutes into a run (which then crashed): count it as nothing
        self.steps += int(sampled) if math.isfinite(sampled) else 0
        if self.steps >= self.next_snapshot:
            self.snapshot(algorithm)
            self.next_snapshot = self.steps + self.every

    def snapshot(self, algorithm, weights: dict | None = None) -> None:
        """Freeze ``weights`` (default: the learner's policy now) into the next snapshot slot."""
        if weights is None:
            weights = learner_policy_state(algorithm)
        if self.on_snapshot is not None:
            self.on_snapshot(weights, self.steps)
        self.freeze(algorithm, weights)

    def freeze(self, algorithm, weights: dict) -> None:
        """Put policy ``weights`` into the next snapshot slot (a resumed run: its saved snapshots, in order)."""
        if not self.uses_snapshots:
            return
        slot = self.next_slot
        self.next_slot = (slot + 1) % self.pool
        self.filled = min(self.filled + 1, self.pool)
        algorithm.learner_group.set_weights({snapshot_id(slot): weights})
        # Set directly, not through sync_weights: the env runners skip weights whose sequence number
        # they have seen, and the learner's update of this iteration already sent that number.
        algorithm.env_runner_group.foreach_env_runner(partial(_set_snapshot, slot, weights, self.filled))

    def on_env_runners_recreated(self, *, algorithm, env_runner_group, env_runner_indices, **kwargs) -> None:
        """A restarted env runner gets every snapshot back (it was built with fresh weights)."""
        if not self.uses_snapshots or not self.filled:
            return
        slots = [snapshot_id(s) for s in range(self.filled)]
        weights = algorithm.learner_group.get_weights(slots)
        for s in range(self.filled):
            env_runner_group.foreach_env_runner(partial(_set_snapshot, s, weights[snapshot_id(s)], self.filled),
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
        mirror = all(sa.module_id == LEARNER for sa in episode.agent_episodes.values())
        for sa in episode.agent_episodes.values():
            if sa.module_id != LEARNER:
                continue
            info = sa.get_infos(-1) or {}
            if "won" not in info:
                continue
            for key in ("bid_turns", "bids", "bid_sum", "return"):
                metrics_logger.log_value(("pitch", key), float(info[key]), reduce="sum")
            metrics_logger.log_value(("pitch", "sides"), 1, reduce="sum")
            if not mirror:  # a game the learner plays against itself is always half won
                metrics_logger.log_value(("pitch", "games"), 1, reduce="sum")
                metrics_logger.log_value(("pitch", "wins"), float(info["won"]), reduce="sum")


def learner_policy_state(algorithm) -> dict:
    """The learner's policy-net tensors (``pi.*``) as numpy arrays."""
    state = algorithm.learner_group.get_weights([LEARNER])[LEARNER]
    return {k: v for k, v in state.items() if k.startswith("pi.")}
