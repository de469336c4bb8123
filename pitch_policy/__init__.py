"""The policy: what an exported agent is and how it is read. Its file format (safetensors tensors and
a JSON card, never a pickle: file.py), its input (the observation, optionally seen suit-canonical,
then the heuristic's hint: inputs.py, canonical.py) and its network with the compiled move
(network.py). Agents load from here; every trainer exports to it.
"""

from .file import (FORMAT, WEIGHTS_FILE, CheckpointError, check_fits, load_policy, make_card, make_transform,
                   read_policy, save_policy)
from .inputs import HINTS, batch_policy_input, hint_size, input_size, policy_input
from .network import ACTIVATIONS, BatchMLP, PolicyMLP

__all__ = ["FORMAT", "WEIGHTS_FILE", "CheckpointError", "check_fits", "load_policy", "make_card", "make_transform",
           "read_policy", "save_policy", "HINTS", "batch_policy_input", "hint_size", "input_size", "policy_input",
           "ACTIVATIONS", "BatchMLP", "PolicyMLP"]
