"""The RLlib learner's optimizer as a torch Adam over the project's network, so the RLlib backend's
trainer state is written and read by the one trainer writer (train/resume.py), never by RLlib.

RLlib's ``Algorithm.save_to_path`` writes pickles (the config, connector states, module metadata),
and ``Algorithm.from_checkpoint`` unpickles whatever the directory holds: resuming from a run
directory someone else could have written would run their code. So a run never writes or reads an
RLlib checkpoint. RLlib builds its learner's Adam over the module's parameters, which are the
network's (train/rllib/modules.py) in the network's order, so its optimizer state (parameter
index → moments, and the parameter groups) is a torch Adam's state for the same network.
"""

from __future__ import annotations

import numpy as np
import torch


def torch_optimizer(net: torch.nn.Module, state: dict) -> torch.optim.Adam:
    """An Adam over ``net``'s parameters holding ``state``, the RLlib learner's optimizer state (numpy
    tensors, as RLlib hands them out)."""
    slots = {}
    for index, values in state.get("state", {}).items():
        slots[int(index)] = {k: torch.as_tensor(np.asarray(v)).to(torch.float32).reshape(()) if k == "step"
                             else torch.as_tensor(np.asarray(v)).clone() for k, v in values.items()}
    adam = torch.optim.Adam(net.parameters())
    adam.load_state_dict({"state": slots, "param_groups": [dict(g) for g in state["param_groups"]]})
    return adam


def rllib_optimizer(adam: torch.optim.Adam) -> dict:
    """The inverse of ``torch_optimizer``: the optimizer's state as the RLlib learner takes it."""
    sd = adam.state_dict()
    return {"state": {i: {k: v.detach().cpu().numpy() for k, v in slots.items()} for i, slots in sd["state"].items()},
            "param_groups": sd["param_groups"]}
