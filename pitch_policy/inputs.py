"""What a policy network reads at one decision: the (optionally suit-canonical) Observer vector,
then, with ``hint: heuristic``, the heuristic's choice one-hot over the actions.

The heuristic reads only the mover's own infoset, so the hint reveals nothing hidden; it lets the
policy copy the heuristic exactly from the first update and spend its capacity on where to play
differently (docs/training.md). Training computes it on the engine game (train/hint.py), a loaded
checkpoint with ``HeuristicAgent`` from the infoset; these builders only place it.
"""

from __future__ import annotations

import numpy as np

from .canonical import shown_action

HINTS = ("none", "heuristic")


def hint_size(hint: str, action_size: int) -> int:
    """Inputs the hint adds to the network."""
    return action_size if hint == "heuristic" else 0


def input_size(rules, hint: str = "none") -> int:
    """What a policy network for ``rules`` reads at one decision: the observation and the hint."""
    from pitch_env.actions import ActionLayout
    from pitch_env.observer import Observer

    return Observer(rules).size + hint_size(hint, ActionLayout(rules).size)


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


def batch_policy_input(obs: np.ndarray, mask: np.ndarray, canon=None, hints: np.ndarray | None = None):
    """``policy_input`` for a batch of rows: ``(inputs, masks, ids)``, through ``canon`` (a
    ``canonical.BatchCanonical``; ``ids`` are its permutations, row i's network action a being the real
    ``canon.act_src[ids[i], a]``; None without it), then the one-hot of ``hints`` (each row's
    heuristic action, real) when given."""
    ids = None
    if canon is not None:
        obs, mask, ids = canon.apply(obs, mask)
    if hints is not None:
        n, size = mask.shape
        h = np.zeros((n, size), np.float32)
        h[np.arange(n), hints if ids is None else canon.act_dst[ids, hints]] = 1.0
        obs = np.concatenate([obs, h], 1)
    return obs, mask, ids

