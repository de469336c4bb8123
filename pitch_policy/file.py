"""The exported policy file: an MLP in safetensors with a JSON card, written atomically and read back
checked.

Loading never unpickles code: the file holds tensors and a JSON card (variant, full rules, observation
layout version and size, action layout size, network shape, training steps, config). A damaged file,
contents that contradict the card (checked field by field and tensor by tensor at load, whatever the
checksum says), or a mismatch with the game it is loaded for raise CheckpointError saying which and why.
"""

from __future__ import annotations

import hashlib
import json
import reprlib
from pathlib import Path

import numpy as np

from pitch_env.files import atomic_write, json_object

from .canonical import NAME as CANONICAL
from .canonical import SuitCanonical
from .inputs import HINTS, hint_size
from .network import ACTIVATIONS, PolicyMLP

FORMAT = "pitch-policy/1"
WEIGHTS_FILE = "policy.safetensors"  # name of the policy inside a checkpoint directory
TRANSFORMS = (None, "plain", CANONICAL)  # observation transforms a card may name (make_transform)


class CheckpointError(ValueError):
    """A checkpoint that cannot be used for this game: wrong rules or layout, or a damaged file."""


def tensors_of(policy: PolicyMLP) -> dict[str, np.ndarray]:
    out = {}
    for i, (w, b) in enumerate(policy.layers):
        out[f"layer{i}.weight"], out[f"layer{i}.bias"] = w, b
    return out


def tensors_digest(tensors: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(tensors):
        h.update(name.encode())
        h.update(np.ascontiguousarray(tensors[name]).tobytes())
    return h.hexdigest()


def make_card(rules, policy: PolicyMLP, steps: int, config: dict, observer_size: int, layout_version: int,
              action_size: int, transform: str | None = None, hint: str = "none") -> dict:
    return {
        "format": FORMAT,
        "variant": rules.variant,
        "rules": rules.as_dict(),
        "observation": {"layout_version": layout_version, "size": observer_size, "transform": transform,
                        "hint": hint},
        "actions": {"size": action_size},
        "network": {"shape": policy.shape, "activation": policy.activation},
        "training_steps": int(steps),
        "config": config,
    }


def save_policy(path: str | Path, policy: PolicyMLP, card: dict) -> None:
    """Write the policy and its card to one safetensors file, atomically."""
    from safetensors.numpy import save_file

    tensors = tensors_of(policy)
    card = dict(card, sha256=tensors_digest(tensors))
    atomic_write(path, lambda tmp: save_file(tensors, tmp, metadata={"pitch_card": json.dumps(card)}))


def resolve_path(path: str | Path) -> Path:
    """A checkpoint is a ``.safetensors`` file, or a directory holding ``policy.safetensors``."""
    p = Path(path)
    if p.is_dir():
        p = p / WEIGHTS_FILE
    if not p.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r} not found: give a .safetensors file or a directory "
                              f"holding {WEIGHTS_FILE} (the shipped ones are in checkpoints/)")
    return p


def read_tensors(p: Path, fmt: str, where: str, kind: str, writer: str, fix: str) -> tuple[dict, dict]:
    """The tensors and JSON card of the safetensors file ``p`` (``where`` names it in errors), the card of
    format ``fmt`` (``kind``, written by ``writer``) and the tensors matching its checksum; CheckpointError
    otherwise, saying ``fix`` for a damaged file."""
    from safetensors import safe_open

    try:
        with safe_open(str(p), framework="numpy") as f:
            meta = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}
    except Exception as e:  # safetensors raises its own error types for a bad header or a short file
        raise CheckpointError(f"{where} is damaged or not a safetensors file (truncated or corrupted?): {e}. "
                              f"{fix}") from None
    if "pitch_card" not in meta:
        raise CheckpointError(f"{where} has no pitch card in its metadata: it was not written by {writer} "
                              f"(format {fmt})")
    card = json_object(meta["pitch_card"], fmt, f"{where}: its card", f"{kind} written by {writer}", CheckpointError)
    if tensors_digest(tensors) != card.get("sha256"):
        raise CheckpointError(f"{where} is corrupted: its weights do not match the checksum in its card")
    return tensors, card


def read_policy(path: str | Path) -> tuple[PolicyMLP, dict]:
    """The policy and card of a file, checked for damage (not yet against any rules)."""
    p = resolve_path(path)
    tensors, card = read_tensors(p, FORMAT, f"checkpoint {str(p)!r}", "a pitch card", "`pitch train`",
                                 "Re-export or re-download it.")
    where = f"checkpoint {str(p)!r}"
    check_card(card, where)
    layers = check_tensors(tensors, card["network"]["shape"], where)
    policy = PolicyMLP(layers, card["network"]["activation"], hint=card["observation"].get("hint", "none"))
    return policy, card


INCONSISTENT = "the file is inconsistent (crafted or written by another program); re-export it from its training run"


_repr = reprlib.Repr()  # bounded: a crafted card may hold huge or deeply nested values
_repr.maxlevel, _repr.maxlist, _repr.maxdict, _repr.maxstring, _repr.maxother = 2, 6, 4, 40, 40


def brief(value) -> str:
    """``repr(value)``, bounded: what an error may quote of a crafted card."""
    return _repr.repr(value)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _known_hint(obs: dict, where: str) -> str:
    """The card's observation hint ("none" when absent), one this version knows; CheckpointError otherwise."""
    hint = obs.get("hint", "none")
    if hint not in HINTS:
        raise CheckpointError(f"{where} reads a {brief(hint)} hint, which this version does not know (known: "
                              f"{', '.join(HINTS)})")
    return hint


def check_card(card: dict, where: str) -> None:
    """Every field of the card that loading reads, with its type and a known value; CheckpointError otherwise."""
    def need(obj, key, ok, what, at):
        if not isinstance(obj, dict) or key not in obj:
            raise CheckpointError(f"{where}: its card lacks {at}{key}; {INCONSISTENT}")
        if not ok(obj[key]):
            raise CheckpointError(f"{where}: its card's {at}{key} is {brief(obj[key])}, expected {what}; "
                                  f"{INCONSISTENT}")
        return obj[key]

    def section(key):
        return need(card, key, lambda v: isinstance(v, dict), "an object", "")

    need(card, "variant", lambda v: isinstance(v, str), "a string", "")
    rules = section("rules")
    for key, value in rules.items():
        if not (value is None or isinstance(value, (str, int, float))):
            raise CheckpointError(f"{where}: its card's rules.{brief(key)} is {brief(value)}, expected one value; "
                                  f"{INCONSISTENT}")
    need(rules, "num_players", _is_int, "an integer", "rules.")
    obs = section("observation")
    need(obs, "layout_version", _is_int, "an integer", "observation.")
    need(obs, "size", lambda v: _is_int(v) and v > 0, "a positive integer", "observation.")
    transform = obs.get("transform")
    if transform not in TRANSFORMS:
        raise CheckpointError(f"{where} uses observation transform {brief(transform)}, which this version does not "
                              f"know (known: plain, {CANONICAL})")
    hint = _known_hint(obs, where)
    actions = need(section("actions"), "size", lambda v: _is_int(v) and v > 0, "a positive integer", "actions.")
    net = section("network")
    shape = need(net, "shape", lambda v: isinstance(v, list) and len(v) >= 2 and all(_is_int(x) and x > 0 for x in v),
                 "a list of two or more positive integers (inputs, hidden sizes, actions)", "network.")
    need(net, "activation", lambda v: isinstance(v, str) and v in ACTIVATIONS, f"one of {', '.join(ACTIVATIONS)}",
         "network.")
    need(card, "training_steps", lambda v: _is_int(v) and v >= 0, "a count of steps", "")
    if not isinstance(card.get("config", {}), dict):
        raise CheckpointError(f"{where}: its card's config is {brief(card['config'])}, expected an object; "
                              f"{INCONSISTENT}")
    inputs = obs["size"] + hint_size(hint, actions)
    if shape[0] != inputs or shape[-1] != actions:
        raise CheckpointError(f"{where}: its network shape {shape} does not fit its own card (observation "
                              f"{obs['size']} + {hint!r} hint = {inputs} inputs, {actions} actions); {INCONSISTENT}")


def check_tensors(tensors: dict, shape: list[int], where: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) layers of ``shape``: exactly the tensors it needs, float32, the right shapes, finite."""
    if not tensors:
        raise CheckpointError(f"{where} holds no tensors; {INCONSISTENT}")
    names = [f"layer{i}.{part}" for i in range(len(shape) - 1) for part in ("weight", "bias")]
    missing = [n for n in names if n not in tensors]
    if missing:
        raise CheckpointError(f"{where} lacks tensor {missing[0]} (its card's network {shape} needs {len(names)}); "
                              f"{INCONSISTENT}")
    extra = sorted(set(tensors) - set(names))
    if extra:
        raise CheckpointError(f"{where} holds tensor {brief(extra[0])}, which a {shape} network does not have; "
                              f"{INCONSISTENT}")
    layers = []
    for i in range(len(shape) - 1):
        w, b = tensors[f"layer{i}.weight"], tensors[f"layer{i}.bias"]
        for name, t, want in ((f"layer{i}.weight", w, (shape[i + 1], shape[i])),
                              (f"layer{i}.bias", b, (shape[i + 1],))):
            if t.dtype != np.float32:
                raise CheckpointError(f"{where}: tensor {name} holds {t.dtype} values; a pitch policy stores float32; "
                                      f"{INCONSISTENT}")
            if t.shape != want:
                raise CheckpointError(f"{where}: tensor {name} has shape {list(t.shape)}, but the card's network "
                                      f"{shape} needs {list(want)}; {INCONSISTENT}")
            if not np.isfinite(t).all():
                raise CheckpointError(f"{where}: tensor {name} holds NaN or infinite weights (training diverged, or "
                                      f"the file was altered); export an earlier checkpoint of the run")
        layers.append((w, b))
    return layers


def check_fits(card: dict, rules, observer_size: int, layout_version: int, action_size: int, where: str) -> None:
    """Refuse a policy trained for other rules, player count or layouts, naming the difference."""
    if card["variant"] != rules.variant:
        raise CheckpointError(f"{where} was trained for variant {card['variant']!r}, but this game is "
                              f"{rules.variant!r}; use a checkpoint trained for {rules.variant!r}")
    if card["rules"]["num_players"] != rules.num_players:
        raise CheckpointError(f"{where} was trained for {card['rules']['num_players']} players, but this game "
                              f"has {rules.num_players}")
    mine = rules.as_dict()
    diff = sorted(k for k in set(mine) | set(card["rules"]) if mine.get(k) != card["rules"].get(k))
    if diff:
        k = diff[0]
        raise CheckpointError(f"{where} was trained with rules option {k}={card['rules'].get(k)!r}, but this game "
                              f"has {k}={mine.get(k)!r} (differing options: {', '.join(diff)})")
    obs = card["observation"]
    if obs["layout_version"] != layout_version:
        raise CheckpointError(f"{where} saw observation layout version {obs['layout_version']}, but this "
                              f"pitch_env encodes version {layout_version}; retrain it")
    hint = _known_hint(obs, where)
    extra = hint_size(hint, action_size)
    if obs["size"] != observer_size:
        raise CheckpointError(f"{where} expects observations of size {obs['size']}, but this game's are "
                              f"{observer_size} in observation layout version {layout_version}; {INCONSISTENT}")
    if card["network"]["shape"][0] != observer_size + extra:
        raise CheckpointError(f"{where}: its network reads {card['network']['shape'][0]} inputs, but the "
                              f"observation ({observer_size}) and its {hint!r} hint ({extra}) make "
                              f"{observer_size + extra}; the file is inconsistent")
    if card["actions"]["size"] != action_size or card["network"]["shape"][-1] != action_size:
        raise CheckpointError(f"{where} has {card['actions']['size']} actions, but this game's layout has "
                              f"{action_size}")


def load_policy(path: str | Path, rules) -> tuple[PolicyMLP, dict]:
    """The policy of a checkpoint, checked against ``rules`` and this observer/action layout. A policy of
    observation layout version 1 comes back reading this version's observation: version 2 only added
    pieces at the end (pitch_env/observer.py), which it reads with zero weights, so it plays as trained.
    Its card then describes the policy as loaded (layout version 2, the wider first layer); ``read_policy``
    gives the file's own."""
    from pitch_env.actions import ActionLayout
    from pitch_env.observer import LAYOUT_VERSION, Observer

    policy, card = read_policy(path)
    where = f"checkpoint {str(path)!r}"
    ob = Observer(rules)
    if card["observation"]["layout_version"] == 1:
        check_fits(card, rules, ob.v1_size, 1, ActionLayout(rules).size, where)
        policy = widened(policy, ob.v1_size, ob.size)
        card = dict(card, observation=dict(card["observation"], layout_version=LAYOUT_VERSION, size=ob.size),
                    network=dict(card["network"], shape=policy.shape))
    else:
        check_fits(card, rules, ob.size, LAYOUT_VERSION, ActionLayout(rules).size, where)
    policy.transform = make_transform(card["observation"].get("transform"), rules, where)
    return policy, card


def widened(policy: PolicyMLP, old: int, new: int) -> PolicyMLP:
    """``policy`` reading an observation that grew from ``old`` to ``new`` inputs at its end (before any
    hint): zero weights on the new inputs, so every logit stays what it was."""
    (w, b), rest = policy.layers[0], policy.layers[1:]
    w = np.concatenate([w[:, :old], np.zeros((w.shape[0], new - old), np.float32), w[:, old:]], 1)
    return PolicyMLP([(w, b), *rest], policy.activation, hint=policy.hint)


def make_transform(name: str | None, rules, where: str = "config"):
    """The observation transform a policy was trained with (None: the plain Observer vector)."""
    if name in (None, "plain"):
        return None
    if name == CANONICAL:
        return SuitCanonical(rules)
    raise CheckpointError(f"{where} uses observation transform {name!r}, which this version does not know "
                          f"(known: plain, {CANONICAL})")
