"""The RLlib backend's trainer state, saved and resumed as the project's own safe files, never RLlib's.

RLlib's ``Algorithm.save_to_path`` writes pickles (the config, connector states, module metadata),
and ``Algorithm.from_checkpoint`` unpickles whatever the directory holds: resuming from a run
directory someone else could have written would run their code. So a run never writes or reads an
RLlib checkpoint. Its checkpoint set (train/resume.py's layout, written and switched atomically) is

    policy.safetensors    the exported policy and its JSON card (pitch_policy/file.py)
    trainer.safetensors   the learner module's policy and value tensors (``learner/pi.0.weight`` …)
                          and Adam's moment tensors (``adam/INDEX/exp_avg`` …)
    state.json            steps, the snapshot/checkpoint/evaluation schedule, Adam's hyperparameters

and a resume rebuilds the algorithm from the validated ``config.yaml``, then loads these files with
safetensors and ``json`` only: every tensor must have the exact name, shape and dtype of the
rebuilt learner and be finite, Adam's settings must be numbers of the fresh optimizer's kind, or the
resume is refused by name (``ResumeError``). The frozen snapshots come back from ``snapshots/*.safetensors``
through the policy reader, which checks each file's card and tensors the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

from .. import resume as ckpt
from ..resume import ResumeError
from .modules import parameter_order

PREFIX = "learner/"


def _plain(x):
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    return x.item() if hasattr(x, "item") else x


def save_trainer(directory: Path, weights: dict, optimizer: dict, steps: int, extra: dict) -> None:
    """``weights``: the learner module's state (numpy); ``optimizer``: its torch optimizer state dict
    as RLlib returns it (numpy tensors, ``state`` and ``param_groups``)."""
    from safetensors.torch import save_file

    tensors = {PREFIX + k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in weights.items()}
    for index, slots in optimizer.get("state", {}).items():
        for key, value in slots.items():
            t = torch.as_tensor(np.asarray(value))
            if key == "step":  # RLlib hands it back as a Python float; Adam keeps a float32 scalar
                t = t.to(torch.float32).reshape(())
            tensors[f"adam/{int(index)}/{key}"] = t.contiguous()
    save_file(tensors, str(Path(directory) / ckpt.TRAINER_FILE))
    groups = [{k: _plain(v) for k, v in g.items()} for g in optimizer.get("param_groups", [])]
    state = dict(extra, steps=int(steps), trainer={"backend": "rllib", "adam_groups": groups})
    (Path(directory) / ckpt.STATE_FILE).write_text(json.dumps(state, indent=1))


def load_trainer(directory: Path, weights: dict, optimizer: dict) -> tuple[dict, dict, dict]:
    """(state.json, the learner's weights, its optimizer state) of a checkpoint, checked against the
    fresh learner's ``weights`` and ``optimizer`` (same forms as ``save_trainer`` takes)."""
    directory = Path(directory)
    where = f"checkpoint {str(directory)!r}"
    state = ckpt.read_state(directory)
    tr = state.get("trainer")
    if not isinstance(tr, dict) or tr.get("backend") != "rllib":
        raise ResumeError(f"{where}: state.json is not an RLlib backend's trainer state; the checkpoint is damaged "
                          f"or from the other backend")
    like = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in weights.items()}
    budget = 4 * sum(v.numel() * v.element_size() for v in like.values()) + (1 << 20)
    tensors = ckpt.read_tensors(directory / ckpt.TRAINER_FILE, budget, where)
    loaded = {k: ckpt.take(tensors, PREFIX + k, v, where).numpy() for k, v in like.items()}
    params = [like[k] for k in parameter_order(like)]  # the optimizer's parameter i is the module's i-th
    slots = {}
    for i, p in enumerate(params):
        if f"adam/{i}/exp_avg" in tensors:
            slots[i] = {"step": ckpt.take(tensors, f"adam/{i}/step", torch.zeros((), dtype=torch.float32), where),
                        "exp_avg": ckpt.take(tensors, f"adam/{i}/exp_avg", p, where),
                        "exp_avg_sq": ckpt.take(tensors, f"adam/{i}/exp_avg_sq", p, where)}
    if tensors:
        raise ResumeError(f"{where}: {ckpt.TRAINER_FILE} holds unexpected tensors ({', '.join(sorted(tensors)[:3])} …)")
    groups = ckpt.adam_groups(tr.get("adam_groups"), optimizer["param_groups"], where)
    return state, loaded, {"state": {i: {k: v.numpy() for k, v in s.items()} for i, s in slots.items()},
                           "param_groups": groups}
