"""Every shipped checkpoint chooses, at every decision of a recorded set of self-play games (over
10,000 decisions each), the action it chose when the set was recorded (tests/golden/record_choices.py)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from agents.checkpoint import shipped_names

from golden.record_choices import play

GOLDEN = json.loads((Path(__file__).parent / "golden" / "checkpoint_choices.json").read_text())


def test_every_shipped_checkpoint_is_in_the_recorded_set():
    assert sorted(GOLDEN) == sorted(shipped_names())


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_a_shipped_checkpoint_chooses_as_recorded_at_every_decision(name):
    rec = GOLDEN[name]
    actions = np.frombuffer(base64.b64decode(rec["actions"]), np.uint16).tolist()
    assert len(actions) == sum(rec["games"]) >= 10_000
    at = 0
    for seed, n in enumerate(rec["games"]):
        got = play(name, rec["variant"], seed, actions[at:at + n])
        assert len(got) == n, f"checkpoint:{name}, game seed {seed}: {len(got)} decisions, recorded {n}"
        at += n
