"""Write tests/golden/checkpoint_choices.json: every shipped checkpoint playing every seat of
seeded games, its action at each decision. tests/test_golden_choices.py replays the deals and
asks that each checkpoint still chooses the same action at every one of them, so a change to
loading, the policy input, the canonical view or the compiled move cannot change how a shipped
agent plays unnoticed. Run it only to bless an intended change of play:

    .venv/bin/python tests/golden/record_choices.py
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

import agents  # noqa: E402
import pitch_env  # noqa: E402
from agents.checkpoint import shipped_names  # noqa: E402
from pitch_policy import read_policy  # noqa: E402

DECISIONS = 10_000  # at least this many per checkpoint: whole games until it is reached


def play(name: str, variant: str, seed: int, choices: list[int] | None = None) -> list[int]:
    """One game of ``checkpoint:name`` at every seat; its actions (checked against ``choices``)."""
    env = pitch_env.env(variant, info_state=True)
    agent = agents.make(f"checkpoint:{name}", env)
    env.reset(seed=seed)
    agent.reset(seed=seed)
    out = []
    for _ in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(agent.act(obs, info))
        if choices is not None and action != choices[len(out)]:
            raise AssertionError(f"checkpoint:{name}, game seed {seed}, decision {len(out)}: chose {action}, "
                                 f"recorded {choices[len(out)]}")
        out.append(action)
        env.step(action)
    return out


def record(name: str) -> dict:
    _, card = read_policy(Path(agents.checkpoint.SHIPPED_DIR) / name)
    variant = card["variant"]
    games, actions = [], []
    seed = 0
    while len(actions) < DECISIONS:
        got = play(name, variant, seed)
        games.append(len(got))
        actions += got
        seed += 1
    return {"variant": variant, "games": games,
            "actions": base64.b64encode(np.asarray(actions, np.uint16).tobytes()).decode()}


if __name__ == "__main__":
    import agents.checkpoint  # noqa: F401

    out = {name: record(name) for name in shipped_names()}
    (HERE / "checkpoint_choices.json").write_text(json.dumps(out, indent=1) + "\n")
    for name, r in out.items():
        print(name, r["variant"], len(r["games"]), "games", sum(r["games"]), "decisions")
