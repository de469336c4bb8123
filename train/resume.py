"""Checkpoints of a run, written as one consistent set and resumed without unpickling anything.

Layout of a run directory's checkpoints::

    checkpoint -> checkpoints/000000004096     a symlink, replaced atomically: the current checkpoint
    checkpoints/000000004096/
        policy.safetensors    the exported policy and its JSON card (what ``checkpoint:PATH`` loads)
        trainer.safetensors   the policy+value network's weights, Adam's moment tensors, torch's RNG state,
                              and the weights and Adam state of any side network a trainer keeps (``modules``)
        state.json            steps, counters, Adam's hyperparameters, numpy/python RNG states, schedule

A checkpoint is written as ``checkpoints/.NAME.tmp/``, renamed into place, then the symlink is
replaced: a process killed at any moment leaves the old set or the new one, never a mix, and the
next start or resume deletes the debris (``clean``).

What is trusted on resume: nothing in the run directory can run code. The files are read through
train/runfiles.py (regular files under their exact names, sizes capped, none a link or a FIFO; the
``checkpoint`` link itself is read with readlink and must point into checkpoints/), with safetensors
(a JSON header and raw little-endian tensors) and ``json``; the model is rebuilt from the validated
``config.yaml`` and every tensor must have the exact name, shape and dtype the rebuilt model expects
and be finite, every counter must be a number in range, or the resume is refused by name. A crafted
run directory can at worst make the resumed run train from bad (but finite, well-shaped) weights or
RNG states; ``resume.zip`` files (SB3's cloudpickle format, written by older versions) are never
opened.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import shutil
from pathlib import Path

import numpy as np
import torch

from . import runfiles
from .runfiles import ResumeError

TRAINER_FILE = "trainer.safetensors"
STATE_FILE = "state.json"
MAX_STATE_BYTES = 1 << 20


# ---------------------------------------------------------------------- one consistent set
def pointer(run_path: Path) -> Path:
    return Path(run_path) / "checkpoint"


def current(run_path: Path) -> Path | None:
    """The current checkpoint directory, or None when the run has none yet."""
    link = pointer(run_path)
    if not link.is_symlink():
        if link.exists():
            raise ResumeError(f"{str(link)!r} is a directory written by an older version (its resume.zip is a pickle, "
                              f"which is never loaded); start a new run (its policy.safetensors can still be played)")
        return None
    target = os.readlink(link)
    parts = Path(target).parts
    if len(parts) != 2 or parts[0] != "checkpoints" or parts[1] in (".", ".."):
        raise ResumeError(f"{str(link)!r} points to {target!r}, outside the run's checkpoints/; delete the link")
    path = Path(run_path) / target
    if runfiles.kind_of(path) != "directory":
        raise ResumeError(f"{str(link)!r} points to a missing checkpoint {target!r}; delete the link to restart the run")
    return path


SNAPSHOT = re.compile(r"([0-9]{12})\.safetensors")  # snapshots/STEPS.safetensors, as the loops name them


def snapshot_files(run_path: Path) -> list[Path]:
    """The frozen learners saved in the run's ``snapshots/``, oldest first: regular files named as the
    training loops name them (anything else there is never loaded)."""
    return runfiles.numbered(Path(run_path) / "snapshots", SNAPSHOT)


def write_checkpoint(run_path: Path, steps: int, write) -> Path:
    """``write(directory)`` fills a fresh directory aside; it is renamed into place, then the
    ``checkpoint`` link is switched to it and the previous checkpoint deleted."""
    run_path = Path(run_path)
    root = run_path / "checkpoints"
    root.mkdir(parents=True, exist_ok=True)
    name = f"{steps:012d}"
    old = current(run_path)
    if old is not None and old.name == name:
        name += f".{len(list(root.iterdir()))}"  # the same step saved again (e.g. stopped right after one)
    final, tmp = root / name, root / f".{name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    if final.exists():
        shutil.rmtree(final)  # debris of a kill between rename and link switch: never pointed to
    tmp.mkdir()
    write(tmp)
    for f in tmp.iterdir():
        _fsync(f)
    _fsync(tmp)
    os.replace(tmp, final)
    _fsync(root)
    link_tmp = run_path / ".checkpoint.tmp"
    if link_tmp.is_symlink() or link_tmp.exists():
        link_tmp.unlink()
    os.symlink(os.path.join("checkpoints", name), link_tmp)
    os.replace(link_tmp, pointer(run_path))
    _fsync(run_path)
    clean(run_path)
    return final


def clean(run_path: Path) -> None:
    """Delete what a killed writer can leave: temp directories and files, and checkpoints no longer current."""
    run_path = Path(run_path)
    keep = current(run_path)
    root = run_path / "checkpoints"
    if root.is_dir():
        for p in root.iterdir():
            if keep is None or p.name != keep.name:
                shutil.rmtree(p, ignore_errors=True) if p.is_dir() and not p.is_symlink() else p.unlink()
    tmp = run_path / ".checkpoint.tmp"
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()
    for folder in (run_path, run_path / "snapshots", run_path / "imitate", keep):
        if folder is not None:
            runfiles.remove_debris(folder)  # pitch_env.files.atomic_write's temp files


def _fsync(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------- the trainer's state
Sides = dict[str, tuple[torch.nn.Module, torch.optim.Optimizer]]  # side networks: name -> (module, its Adam)


def save_trainer(directory: Path, net: torch.nn.Module, optimizer: torch.optim.Optimizer, steps: int, extra: dict,
                 n_updates: int = 0, episode_num: int = 0, modules: Sides | None = None) -> None:
    """The trainer's network, Adam's state and every RNG as tensors and JSON (see the module docstring):
    the one writer of every trainer on this path (PPO's ``PolicyValueNet``, SB3's ``model.policy``).
    ``modules``: side networks with their optimizers (``{name: (module, adam)}``), whose weights and Adam
    state are saved too, each under its name (``NAME/…``, the Adam groups in state.json)."""
    from safetensors.torch import save_file

    tensors = {f"policy/{k}": v.detach().cpu().contiguous() for k, v in net.state_dict().items()}
    tensors.update(_adam_tensors("", optimizer))
    side_groups = {}
    for name, (module, side_opt) in (modules or {}).items():
        tensors.update({f"{name}/{k}": v.detach().cpu().contiguous() for k, v in module.state_dict().items()})
        tensors.update(_adam_tensors(f"{name}/", side_opt))
        side_groups[name] = _plain_groups(side_opt)
    tensors["rng/torch"] = torch.get_rng_state()
    save_file(tensors, str(directory / TRAINER_FILE))
    np_state = np.random.get_state()
    state = dict(extra, steps=int(steps), trainer={
        "n_updates": int(n_updates),
        "episode_num": int(episode_num),
        "adam_groups": _plain_groups(optimizer),
        **({"side_adam_groups": side_groups} if side_groups else {}),
        "numpy_rng": [np_state[0], np_state[1].tolist(), *map(_plain, np_state[2:])],
        "python_rng": [random.getstate()[0], list(random.getstate()[1]), random.getstate()[2]],
    })
    (directory / STATE_FILE).write_text(json.dumps(state, indent=1))


def _plain(x):
    return x.item() if hasattr(x, "item") else x


def _plain_groups(optimizer: torch.optim.Optimizer) -> list[dict]:
    """Adam's parameter groups as JSON (tuples as lists)."""
    return [{k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()}
            for g in optimizer.state_dict()["param_groups"]]


def _adam_tensors(prefix: str, optimizer: torch.optim.Optimizer) -> dict[str, torch.Tensor]:
    """Adam's per-parameter slots as tensors named ``{prefix}adam/{index}/{slot}``."""
    return {f"{prefix}adam/{index}/{key}": torch.as_tensor(value).detach().cpu().contiguous()
            for index, slots in optimizer.state_dict()["state"].items() for key, value in slots.items()}


def _adam_slots(tensors: dict, prefix: str, params: list, where: str) -> dict:
    """The Adam state ``_adam_tensors`` wrote for ``params``, taken out of ``tensors`` (checked by ``take``)."""
    return {i: {"step": take(tensors, f"{prefix}adam/{i}/step", torch.zeros((), dtype=torch.float32), where),
                "exp_avg": take(tensors, f"{prefix}adam/{i}/exp_avg", p.detach(), where),
                "exp_avg_sq": take(tensors, f"{prefix}adam/{i}/exp_avg_sq", p.detach(), where)}
            for i, p in enumerate(params) if f"{prefix}adam/{i}/exp_avg" in tensors}


def read_state(directory: Path) -> dict:
    """A checkpoint's state.json: size-capped, parsed as JSON only."""
    path = Path(directory) / STATE_FILE
    state = runfiles.read_json(path, MAX_STATE_BYTES, "checkpoint state")
    if not _count(state.get("steps")):
        raise ResumeError(f"{str(path)!r} has no whole-number 'steps'; the checkpoint is damaged")
    return state


_STEP = (int, -1, 10**13)
SCHEDULE = {"next_snapshot": _STEP, "next_checkpoint": _STEP, "next_eval": _STEP, "last_eval": _STEP,
            "wall_time": (float, 0.0, 1e10)}  # what both training loops read back from state.json


def check_schedule(state: dict, directory: Path, league: bool = False) -> dict:
    """``state``'s schedule (the next snapshot, checkpoint and evaluation, the wall time so far), each a
    number in range; ResumeError naming the field otherwise. ``league``: the RLlib backend's, whose next
    snapshot is its league's (``state["league"]``)."""
    where = f"checkpoint {str(Path(directory) / STATE_FILE)!r}"
    if league:
        runfiles.check_fields(state.get("league"), {"next_snapshot": _STEP}, f"{where}, its league,", others=True)
    optional = ("wall_time", "next_snapshot") if league else ("wall_time",)
    return runfiles.check_fields(state, SCHEDULE, where, optional=optional, others=True)


def _count(x, hi: int = 10**12) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= hi


def read_tensors(path: Path, budget: int, where: str) -> dict:
    """The tensors of a safetensors file no larger than ``budget`` bytes (ResumeError otherwise)."""
    from safetensors.torch import load_file

    runfiles.regular_file(path, budget, f"{where}:")
    try:
        return load_file(str(path))
    except Exception as e:  # safetensors raises its own error types for a bad header or a short file
        raise ResumeError(f"{where}: {path.name} is not a readable safetensors file ({str(e)[:80]})") from None


def take(tensors: dict, name: str, like: torch.Tensor, where: str) -> torch.Tensor:
    """``tensors[name]`` (removed from the dict), refused unless it has ``like``'s shape and dtype and is finite."""
    t = tensors.pop(name, None)
    if t is None or t.shape != like.shape or t.dtype != like.dtype:
        got = "missing" if t is None else f"{t.dtype} {tuple(t.shape)}"
        raise ResumeError(f"{where}: tensor {name!r} is {got}, expected {like.dtype} {tuple(like.shape)} for this "
                          f"run's config; the checkpoint is damaged or from another network")
    if t.is_floating_point() and not bool(torch.isfinite(t).all()):
        raise ResumeError(f"{where}: tensor {name!r} holds NaN or infinite values; the checkpoint is damaged")
    return t


def adam_groups(groups, current_groups: list[dict], where: str) -> list[dict]:
    """Adam's parameter groups read from state.json, refused unless they fit the fresh optimizer's
    (``current_groups``): the same parameters, only known keys, each a number (or a pair) like the fresh one's."""
    if (not isinstance(groups, list) or len(groups) != len(current_groups)
            or any(not isinstance(g, dict) or g.get("params") != list(c["params"]) for g, c in zip(groups, current_groups))):
        raise ResumeError(f"{where}: state.json's Adam parameter groups do not fit this network; the checkpoint is damaged")
    for g, c in zip(groups, current_groups):
        for key, value in g.items():
            ref = c.get(key, "missing")
            ok = (key == "params" or (isinstance(ref, bool) and isinstance(value, bool)) or ref is None and value is None
                  or (isinstance(ref, (int, float)) and not isinstance(ref, bool) and _finite(value))
                  or (isinstance(ref, (tuple, list)) and isinstance(value, list) and len(value) == len(ref)
                      and all(_finite(v) for v in value)))
            if not ok:
                raise ResumeError(f"{where}: Adam setting {key!r} = {str(value)[:40]} is not valid; the checkpoint is damaged")
            g[key] = tuple(value) if isinstance(ref, tuple) else value
    return groups


def load_trainer(directory: Path, net: torch.nn.Module, optimizer: torch.optim.Optimizer,
                 modules: Sides | None = None) -> dict:
    """Load a checkpoint written by ``save_trainer`` into a network and optimizer rebuilt from the run's
    config; returns its state.json (``state["trainer"]`` holds ``n_updates`` and ``episode_num``).
    ``modules``: side networks and their optimizers (``{name: (module, adam)}``) loaded where the checkpoint
    holds their weights (``state["modules"]`` then names those it held); a side network's Adam state is
    restored where the checkpoint holds it, else its Adam starts afresh. Everything is checked before
    the networks and optimizers are loaded; ResumeError for anything that does not fit exactly."""
    directory = Path(directory)
    where = f"checkpoint {str(directory)!r}"
    state = read_state(directory)
    tr = state.get("trainer")
    if not isinstance(tr, dict):
        raise ResumeError(f"{where}: state.json has no 'trainer' section; the checkpoint is damaged")
    expected = {f"policy/{k}": v for k, v in net.state_dict().items()}
    held = [*expected.values(), *(v for module, _ in (modules or {}).values() for v in module.state_dict().values())]
    budget = 4 * sum(v.numel() * v.element_size() for v in held) + (1 << 20)
    tensors = read_tensors(directory / TRAINER_FILE, budget, where)
    weights = {k[len("policy/"):]: take(tensors, k, v, where) for k, v in expected.items()}
    slots = _adam_slots(tensors, "", list(net.parameters()), where)
    rng = take(tensors, "rng/torch", torch.get_rng_state(), where)
    side = {name: (module, opt, {k: take(tensors, f"{name}/{k}", v, where) for k, v in module.state_dict().items()},
                   _adam_slots(tensors, f"{name}/", list(module.parameters()), where))
            for name, (module, opt) in (modules or {}).items() if any(k.startswith(f"{name}/") for k in tensors)}
    if tensors:
        raise ResumeError(f"{where}: {TRAINER_FILE} holds unexpected tensors ({', '.join(sorted(tensors)[:3])} …)")
    groups = adam_groups(tr.get("adam_groups"), optimizer.state_dict()["param_groups"], where)
    side_groups = tr.get("side_adam_groups", {})
    if not isinstance(side_groups, dict):
        raise ResumeError(f"{where}: state.json's side_adam_groups is not a mapping; the checkpoint is damaged")
    # a side network saved without its Adam state (an older version) keeps a fresh Adam
    side_adam = {name: adam_groups(side_groups.get(name), opt.state_dict()["param_groups"],
                                   f"{where} (side network {name!r})")
                 for name, (_, opt, _, adam) in side.items() if adam or name in side_groups}
    try:
        np_rng = tr["numpy_rng"]
        np_rng = (str(np_rng[0]), np.array(np_rng[1], dtype=np.uint32), int(np_rng[2]), int(np_rng[3]), float(np_rng[4]))
        py_rng = tr["python_rng"]
        py_rng = (int(py_rng[0]), tuple(int(x) for x in py_rng[1]), None if py_rng[2] is None else float(py_rng[2]))
        tr["n_updates"], tr["episode_num"] = int(tr["n_updates"]), int(tr["episode_num"])
        np.random.set_state(np_rng)
        random.setstate(py_rng)
    except (KeyError, IndexError, TypeError, ValueError, OverflowError):
        raise ResumeError(f"{where}: state.json's RNG states or counters are malformed; the checkpoint is damaged") from None
    net.load_state_dict(weights)
    optimizer.load_state_dict({"state": slots, "param_groups": groups})
    for name, (module, opt, module_weights, adam) in side.items():
        module.load_state_dict(module_weights)
        if name in side_adam:
            opt.load_state_dict({"state": adam, "param_groups": side_adam[name]})
    torch.set_rng_state(rng)
    if modules is not None:
        state["modules"] = sorted(side)
    return state


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
