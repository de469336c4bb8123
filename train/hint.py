"""An optional observation feature: the heuristic's choice at this decision, one-hot over the actions.

With ``hint: heuristic`` the network reads, beside the (suit-canonical) Observer vector, which
action ``HeuristicAgent`` would take here. The heuristic reads only the mover's own InfoState, so the
feature reveals nothing hidden; it lets the policy copy the heuristic exactly from the first update
and spend its capacity on where to play differently (docs/training.md). Training and a loaded
checkpoint compute it with the same function (agents/heuristic.py ``heuristic_action``). Where it goes in the
network's input is pitch_policy/inputs.py's job.
"""

from __future__ import annotations

from agents.rollout import rollout_action


def engine_hint(game) -> int:
    """The heuristic's action for the seat to move of an engine Game (reads only that seat's InfoState)."""
    return rollout_action(game)

