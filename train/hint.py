"""An optional observation feature: the heuristic's choice at this decision, one-hot over the actions.

With ``hint: heuristic`` the network reads, beside the (suit-canonical) Observer vector, which
action ``HeuristicAgent`` would take here. The heuristic reads only the mover's own InfoState, so the
feature reveals nothing hidden; it lets the policy copy the heuristic exactly from the first update
and spend its capacity on where to play differently (docs/training.md). Training and a loaded
checkpoint compute it with the same function (agents/heuristic.py ``heuristic_action``).
"""

from __future__ import annotations

import numpy as np

from agents.rollout import rollout_action

from .canonical import shown_action

HINTS = ("none", "heuristic")


def hint_size(hint: str, action_size: int) -> int:
    """Inputs the hint adds to the network."""
    return action_size if hint == "heuristic" else 0


def engine_hint(game) -> int:
    """The heuristic's action for the seat to move of an engine Game (reads only that seat's InfoState)."""
    return rollout_action(game)


def with_hint(x: np.ndarray, act_src: np.ndarray | None, action: int, action_size: int) -> np.ndarray:
    """``x`` followed by the one-hot of ``action`` (a real action), placed where the transform that
    gave ``act_src`` shows it."""
    out = np.zeros(len(x) + action_size, np.float32)
    out[:len(x)] = x
    out[len(x) + shown_action(act_src, action)] = 1.0
    return out


def policy_input(obs: np.ndarray, mask: np.ndarray, transform=None, hint: int | None = None):
    """What the network reads at one decision: ``(input, mask, act_src)``, the observation and mask
    through ``transform`` (``act_src[network action]`` is the real action; None without a transform),
    then the one-hot of ``hint`` (the heuristic's real action) when one is given."""
    act_src = None
    if transform is not None:
        obs, mask, act_src = transform.apply(obs, mask)
    if hint is not None:
        obs = with_hint(obs, act_src, hint, len(mask))
    return obs, mask, act_src
