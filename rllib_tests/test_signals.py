"""Stopping a run: a terminal's Ctrl-C reaches every process of its group, Ray's too. Runs without the
suite's local Ray (the run starts its own, as a user's does)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .conftest import TINY


def test_ctrl_c_to_the_whole_process_group_saves_a_checkpoint_and_leaves_no_ray_behind(tmp_path):
    """A terminal's Ctrl-C reaches every process of its group: the local Ray started by the run must not
    die mid-iteration, the driver saves a checkpoint, shuts Ray down and exits with 130."""
    cmd = [sys.executable, "-m", "pitch_cli", "train", "--set", *TINY, "num_env_runners=1", "total_steps=10000000",
           "checkpoint_every=500", f"runs_dir={tmp_path}", "run_name=c", "--no-progress"]
    log = tmp_path / "stderr.txt"  # a file, not a pipe nobody reads while the run goes on
    with open(log, "w") as err_file:
        proc = subprocess.Popen(cmd, cwd=Path(__file__).resolve().parent.parent, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=err_file)
    link = tmp_path / "c" / "checkpoint"
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and proc.poll() is None:
            if link.is_symlink() and json.loads((link / "state.json").read_text())["steps"] > 0:
                break
            time.sleep(0.5)
        group = proc.pid
        os.killpg(group, signal.SIGINT)
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = log.read_text()
    assert proc.returncode == 130 and "continue with --resume" in err, err[-2000:]
    assert json.loads((link / "state.json").read_text())["steps"] > 0
    time.sleep(5)
    ps = subprocess.run(["ps", "-eo", "pgid=,cmd="], capture_output=True, text=True).stdout.splitlines()
    left = [line for line in ps if line.split(None, 1)[0] == str(group)]
    assert not [line for line in left if "raylet" in line or "gcs_server" in line], left
