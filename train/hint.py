"""An optional observation feature: the heuristic's choice at this decision, one-hot over the actions.

With ``hint: heuristic`` the network reads, beside the (suit-canonical) Observer vector, which
action ``HeuristicAgent`` would take here. The heuristic reads only the mover's own infoset, so the
feature reveals nothing hidden; it lets the policy copy the heuristic exactly from the first update
and spend its capacity on where to play differently (docs/training.md). In training it comes
from ``agents.rollout.rollout_action`` on the engine game (the same choice, tests/test_agents.py);
a loaded checkpoint computes it with ``HeuristicAgent`` from the infoset.
"""

from __future__ import annotations

import numpy as np

HINTS = ("none", "heuristic")


def hint_size(hint: str, action_size: int) -> int:
    """Inputs the hint adds to the network."""
    return action_size if hint == "heuristic" else 0


def engine_hint(game) -> int:
    """The heuristic's action for the seat to move of an engine Game (reads only that seat's view)."""
    from agents.rollout import rollout_action

    return rollout_action(game)


def with_hint(x: np.ndarray, act_src: np.ndarray | None, action: int, action_size: int) -> np.ndarray:
    """``x`` followed by the one-hot of ``action`` (a real action), placed where the transform that
    gave ``act_src`` shows it."""
    out = np.zeros(len(x) + action_size, np.float32)
    out[:len(x)] = x
    out[len(x) + (action if act_src is None else int((act_src == action).argmax()))] = 1.0
    return out
