"""Hostile checkpoints for bench/fuzz.py: the shipped policies, damaged byte by byte, or rewritten
with inconsistent contents under a *correct* checksum (wrong shapes and ranks, no tensors, int or
NaN weights, an unknown activation, a card that is a list or lacks its network or rules), each
loaded with ``agents.make("checkpoint:PATH", env)``. A checkpoint that loads must then play.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import random
from pathlib import Path

import numpy as np

from bench.fuzz import Case, refused
from bench.fuzz import cleanup as remove_input

SHIPPED = Path(__file__).resolve().parent.parent / "checkpoints"
_BASE: list[tuple[str, dict, dict, bytes]] = []  # variant, tensors, card, file bytes


def prepare(work: Path) -> None:
    importlib.import_module("pitch_env")  # imported before the fork
    from safetensors import safe_open

    import agents
    import agents.checkpoint  # noqa: F401
    import agents.heuristic  # noqa: F401

    for variant in ("setback", "auction", "ten_point"):
        path = SHIPPED / variant / "policy.safetensors"
        with safe_open(str(path), framework="numpy") as f:
            card = json.loads(f.metadata()["pitch_card"])
            tensors = {k: f.get_tensor(k) for k in f.keys()}
        _BASE.append((variant, tensors, card, path.read_bytes()))
    assert agents.make  # the entry point under test


def _digest(tensors: dict) -> str:
    """The card's checksum as the policy format defines it: names sorted, name then raw bytes."""
    h = hashlib.sha256()
    for name in sorted(tensors):
        h.update(name.encode())
        h.update(np.ascontiguousarray(tensors[name]).tobytes())
    return h.hexdigest()


def _write(path: Path, tensors: dict, card, card_text: str | None = None) -> None:
    from safetensors.numpy import save_file

    if isinstance(card, dict):
        card = dict(card, sha256=_digest(tensors))
    save_file(tensors, str(path), metadata={"pitch_card": card_text if card_text is not None else json.dumps(card)})


def _semantic(rng: random.Random, tensors: dict, card: dict) -> tuple[str, dict, object, str | None]:
    """A consistent-looking checkpoint (checksum recomputed) with contents that must be refused."""
    t = {k: v.copy() for k, v in tensors.items()}
    c = json.loads(json.dumps(card))
    layer = rng.randrange(len(t) // 2)
    w, b = f"layer{layer}.weight", f"layer{layer}.bias"
    kind = rng.choice(["transposed", "rank1", "rank3", "no_tensors", "drop_bias", "extra_tensor", "int_weights",
                       "nan_weight", "inf_bias", "activation_sigmoid", "activation_number", "card_list",
                       "card_no_network", "card_no_rules", "card_no_observation", "card_no_actions",
                       "card_shape_string", "card_hint_unknown", "card_transform_unknown", "card_deep",
                       "bias_length", "zero_width", "card_rules_list", "card_size_string"])
    text = None
    if kind == "transposed":
        if t[w].shape[0] == t[w].shape[1]:  # a square hidden layer transposed is still a valid network
            w = "layer0.weight"
        t[w] = np.ascontiguousarray(t[w].T)
    elif kind == "rank1":
        t[w] = t[w].reshape(-1)
    elif kind == "rank3":
        t[w] = t[w].reshape(1, *t[w].shape)
    elif kind == "no_tensors":
        t = {"nothing": np.zeros(1, np.float32)}
    elif kind == "drop_bias":
        del t[b]
    elif kind == "extra_tensor":
        t[f"layer{len(tensors) // 2}.weight"] = np.zeros((3, 3), np.float32)
    elif kind == "int_weights":
        t[w] = t[w].astype(np.int32)
    elif kind == "nan_weight":
        t[w].flat[rng.randrange(t[w].size)] = np.nan
    elif kind == "inf_bias":
        t[b].flat[rng.randrange(t[b].size)] = np.inf
    elif kind == "activation_sigmoid":
        c["network"]["activation"] = "sigmoid"
    elif kind == "activation_number":
        c["network"]["activation"] = 5
    elif kind == "card_list":
        c = [1, 2, 3]
    elif kind == "card_no_network":
        del c["network"]
    elif kind == "card_no_rules":
        del c["rules"]
    elif kind == "card_no_observation":
        del c["observation"]
    elif kind == "card_no_actions":
        del c["actions"]
    elif kind == "card_shape_string":
        c["network"]["shape"] = "big"
    elif kind == "card_hint_unknown":
        c["observation"]["hint"] = "oracle"
    elif kind == "card_transform_unknown":
        c["observation"]["transform"] = "mirror"
    elif kind == "card_deep":
        text = '{"format": "pitch-policy/1", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    elif kind == "bias_length":
        t[b] = np.concatenate([t[b], np.zeros(1, np.float32)])
    elif kind == "zero_width":
        t[w] = np.zeros((0, t[w].shape[1]), np.float32)
    elif kind == "card_rules_list":
        c["rules"] = [1]
    elif kind == "card_size_string":
        c["observation"]["size"] = "many"
    return kind, t, c, text


def _long_name(work: Path, i: int, raw: bytes) -> Path:
    return work / ("x" * 300) / "policy.safetensors"  # a component past the system's 255 bytes


def _symlink_loop(work: Path, i: int, raw: bytes) -> Path:
    path = work / f"c{i}.loop"
    path.symlink_to(path.name)
    return path


def _fifo(work: Path, i: int, raw: bytes) -> Path:
    path = work / f"c{i}.fifo"
    os.mkfifo(path)
    return path


def _file_as_folder(work: Path, i: int, raw: bytes) -> Path:
    path = work / f"c{i}.safetensors"
    path.write_bytes(raw)
    return path / "policy.safetensors"  # the real file used as a folder


def _run_without_policy(work: Path, i: int, raw: bytes) -> Path:
    path = work / f"c{i}.run"
    (path / "checkpoint").mkdir(parents=True)  # a run directory whose checkpoint holds no policy
    return path


# Paths the system or the resolver must refuse (agents/checkpoint.resolve_policy_path).
_PATHS = {"long_name": _long_name, "symlink_loop": _symlink_loop, "fifo": _fifo, "file_as_folder": _file_as_folder,
          "run_without_policy": _run_without_policy}


def make_case(rng: random.Random, work: Path, i: int) -> Case:
    variant, tensors, card, raw = rng.choice(_BASE)
    path = work / f"c{i}.safetensors"
    roll = rng.random()
    if roll < 0.05:  # the shipped file, untouched: it must load and play
        path.write_bytes(raw)
        return Case("checkpoints", f"{variant}:none", path, False)
    if roll < 0.45:  # damage to the bytes: refusal expected, unless the damage missed everything that matters
        data = bytearray(raw)
        kind = rng.choice(["truncate", "flip", "empty", "noise", "header_length", "header_garbage", "directory",
                           "long_name", "symlink_loop", "fifo", "file_as_folder", "run_without_policy"])
        if kind == "truncate":
            data = data[:rng.randrange(len(data))]
        elif kind == "flip":
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif kind == "empty":
            data = bytearray()
        elif kind == "noise":
            data = bytearray(rng.randbytes(rng.randrange(1, 4096)))
        elif kind == "header_length":
            data[:8] = rng.choice([2**63, 2**40, 0, len(data)]).to_bytes(8, "little")
        elif kind == "header_garbage":
            n = int.from_bytes(data[:8], "little")
            start = 8 + rng.randrange(n)
            data[start:start + 4] = rng.choice([b"\x00\x00\x00\x00", b'"""}', b"\xff\xfe\xfd\xfc", b"[[[["])
        if kind == "directory":
            path = work / f"c{i}"
            path.mkdir()
            if rng.random() < 0.5:
                (path / "policy.safetensors").mkdir()
        elif kind in _PATHS:
            path = _PATHS[kind](work, i, raw)
        else:
            path.write_bytes(bytes(data))
        # (a flipped bit may miss everything that matters: then loading and playing is fine too)
        return Case("checkpoints", f"{variant}:{kind}", path,
                    True if kind in ("empty", "noise", "directory", "truncate", *_PATHS) else None)
    kind, t, c, text = _semantic(rng, tensors, card)
    _write(path, t, c, text)
    return Case("checkpoints", f"{variant}:{kind}", path, True)


def check(case: Case) -> tuple[str, str]:
    import pitch_env

    import agents

    variant = case.mutation.split(":")[0]
    env = pitch_env.env(variant)
    try:
        agent = agents.make(f"checkpoint:{case.path}", env)
    except BaseException as e:
        return refused(e, case, "refused a sound checkpoint")
    # It loaded: it must play a game's first moves without crashing.
    from agents import RandomAgent
    from agents.base import turns

    others = RandomAgent(env, seed=0)
    env.reset(seed=1)
    agent.reset(seed=1)
    moves = 0
    try:
        for name, obs, info in turns(env):
            if name == env.agents[0]:
                action = agent.act(obs, info)
                moves += 1
            else:
                action = others.act(obs, info)
            env.step(action)
            if moves >= 40:
                break
    except BaseException as e:
        return "fail", f"loads then crashes on move {moves + 1}: {type(e).__name__}: {str(e)[:200]}"
    if case.must_refuse:
        return "fail", f"silently accepted: loads and plays ({moves} moves)"
    return "ok", "accepted and plays"


def cleanup(case: Case) -> None:
    kind = case.mutation.split(":")[1]
    if kind == "long_name":  # nothing could be made there
        return
    if kind == "file_as_folder":
        case.path.parent.unlink()
        return
    if kind == "run_without_policy":
        (case.path / "checkpoint").rmdir()
    inner = case.path / "policy.safetensors"  # a run directory whose weights file is a directory
    if not case.path.is_symlink() and inner.is_dir():
        inner.rmdir()
    remove_input(case)
