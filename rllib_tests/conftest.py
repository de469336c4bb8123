"""The Ray suite (``make rllib-test``, in .venv-rllib): one local Ray per module that trains, so each test
pays for building its algorithm, not for starting Ray. Outside tests/: ``make test`` never imports Ray."""

import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

# The smallest run that exercises everything: a few iterations of small batches, a small network.
TINY = ["backend=rllib", "hidden=[64, 64]", "n_steps=256", "num_envs=2", "batch_size=256", "n_epochs=2",
        "snapshot_every=500", "snapshot_pool=3", "checkpoint_every=1000", "eval_every=0", "eval_games=10",
        "opponents={self: 0.4, heuristic: 0.4, random: 0.2}", "mirror=0.2", "envs_per_env_runner=2"]


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray for a module's tests (not for the whole session: test_signals.py starts its own, and two
    local Rays starting on two busy cores can miss Ray's 30-second start-up limit)."""
    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=max(os.cpu_count() or 1, 2), include_dashboard=False, object_store_memory=256 << 20,
             logging_level="WARNING")
    yield
    ray.shutdown()
