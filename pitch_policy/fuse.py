"""Several policies of one game as one network: their product of experts.

``fuse(members, weights)`` builds the MLP whose logits are ``sum(w_i * logits_i)``: the members'
hidden layers side by side (the first layers stacked, the others block-diagonal), their output
layers scaled and added. Over the legal actions that is ``sum(w_i * log p_i)`` up to a constant, so
the fused policy's most likely move is the one the members' weighted log-probabilities agree on most,
and its distribution is ``prod(p_i ** w_i)``, renormalised. The result is an ordinary policy file:
every loader, agent and tool reads it as it reads one network.

The members must see the game alike: the same variant, rules, observation layout and transform,
action layout, activation and depth. A member that does not read the heuristic's hint gets zero
weights on it when another member does.
"""

from __future__ import annotations

import math

import numpy as np

from .file import CheckpointError, brief
from .inputs import hint_size
from .network import PolicyMLP

# What must be equal across members, as (what the error calls it, how to read it from a card).
_SAME = (("variant", lambda c: c["variant"]),
         ("rules", lambda c: c["rules"]),
         ("observation layout", lambda c: (c["observation"]["layout_version"], c["observation"]["size"])),
         ("observation transform", lambda c: c["observation"].get("transform") or "plain"),
         ("action layout", lambda c: c["actions"]["size"]),
         ("activation", lambda c: c["network"]["activation"]),
         ("depth (number of layers)", lambda c: len(c["network"]["shape"])))


def fuse(members: list[tuple[PolicyMLP, dict, str]], weights: list[float] | None = None) -> tuple[PolicyMLP, dict]:
    """The product of experts of ``members`` (each ``(policy, card, name)``, as ``read_policy`` gives them
    and named for errors) with the given weights (1 each by default): ``(policy, card)``, the card the
    first member's with the fused network, hint and steps, and ``config.fused`` naming each member.
    CheckpointError (one line) when the members cannot be fused."""
    if len(members) < 2:
        raise CheckpointError(f"fusing needs two or more policies, got {len(members)}")
    weights = [1.0] * len(members) if weights is None else [float(w) for w in weights]
    if len(weights) != len(members):
        raise CheckpointError(f"{len(weights)} weights for {len(members)} policies: give one weight per policy")
    bad = next((w for w in weights if not (math.isfinite(w) and w > 0)), None)
    if bad is not None:
        raise CheckpointError(f"weight {bad!r}: each policy's weight must be a positive finite number, e.g. 1")
    first_card, first_name = members[0][1], members[0][2]
    for what, key in _SAME:
        for _, card, name in members[1:]:
            mine, theirs = key(card), key(first_card)
            if mine != theirs:
                shown = brief(mine), brief(theirs)
                if what == "rules":  # the first option that differs, not two whole rule sets
                    k = min(k for k in {*mine, *theirs} if mine.get(k) != theirs.get(k))
                    shown = f"{k}={brief(mine.get(k))}", f"{k}={brief(theirs.get(k))}"
                raise CheckpointError(f"cannot fuse {name} with {first_name}: their {what} differs "
                                      f"({shown[0]} against {shown[1]}); fuse policies "
                                      "trained for the same game, layouts and network depth")
    n_obs, n_act = first_card["observation"]["size"], first_card["actions"]["size"]
    hinted = any(card["observation"].get("hint", "none") != "none" for _, card, _ in members)
    hint = "heuristic" if hinted else "none"
    n_in = n_obs + hint_size(hint, n_act)

    firsts, biases0 = [], []
    for policy, card, _ in members:  # the first layers, stacked over the fused input
        w, b = policy.layers[0]
        wide = np.zeros((w.shape[0], n_in), np.float32)
        wide[:, :w.shape[1]] = w  # the observation, then the hint where the member reads it
        firsts.append(wide)
        biases0.append(b)
    layers = [(np.concatenate(firsts), np.concatenate(biases0))]
    depth = len(members[0][0].layers)
    for i in range(1, depth - 1):  # each member's hidden layer reads only its own units
        blocks = [policy.layers[i] for policy, _, _ in members]
        w = np.zeros((sum(b.shape[0] for b, _ in blocks), sum(b.shape[1] for b, _ in blocks)), np.float32)
        r = c = 0
        for bw, _ in blocks:
            w[r:r + bw.shape[0], c:c + bw.shape[1]] = bw
            r, c = r + bw.shape[0], c + bw.shape[1]
        layers.append((w, np.concatenate([b for _, b in blocks])))
    outs = [(k * policy.layers[-1][0], k * policy.layers[-1][1]) for k, (policy, _, _) in zip(weights, members)]
    layers.append((np.concatenate([w for w, _ in outs], axis=1).astype(np.float32),
                   np.sum([b for _, b in outs], axis=0).astype(np.float32)))
    fused = PolicyMLP(layers, first_card["network"]["activation"], hint=hint)
    card = {key: value for key, value in first_card.items() if key != "sha256"}
    card["observation"] = dict(first_card["observation"], hint=hint)
    card["network"] = {"shape": fused.shape, "activation": fused.activation}
    card["training_steps"] = sum(int(c["training_steps"]) for _, c, _ in members)
    card["config"] = {"fused": [{"policy": name, "weight": k, "sha256": c.get("sha256", ""),
                                 "training_steps": int(c["training_steps"])}
                                for k, (_, c, name) in zip(weights, members)]}
    return fused, card
