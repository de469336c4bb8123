"""The exported policy: an MLP in safetensors with a JSON card, and its cheap numpy forward pass.

Loading never unpickles code: the file holds tensors and a JSON card (variant, full rules, observation
layout version and size, action layout size, network shape, training steps, config). A damaged file,
contents that contradict the card (checked field by field and tensor by tensor at load, whatever the
checksum says), or a mismatch with the game it is loaded for raise CheckpointError saying which and why.
"""

from __future__ import annotations

import hashlib
import json
import os
import reprlib
import tempfile
from pathlib import Path

import numpy as np
from numba import njit

from .canonical import NAME as CANONICAL
from .canonical import perm_index
from .jsonfile import json_object
from .policy_input import HINTS, hint_size, policy_input

FORMAT = "pitch-policy/1"
WEIGHTS_FILE = "policy.safetensors"  # name of the policy inside a checkpoint directory
TRANSFORMS = (None, "plain", CANONICAL)  # observation transforms a card may name (make_transform)


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


ACTIVATIONS = {"relu": _relu, "tanh": np.tanh}


class CheckpointError(ValueError):
    """A checkpoint that cannot be used for this game: wrong rules or layout, or a damaged file."""


class PolicyMLP:
    """Inference-only policy: hidden layers, then logits; illegal actions masked out."""

    def __init__(self, weights: list[tuple[np.ndarray, np.ndarray]], activation: str, transform=None,
                 hint: str = "none"):
        self.transform = transform  # e.g. canonical.SuitCanonical: applied to obs and mask, undone on the action
        self.hint = hint  # policy_input.py: "heuristic" appends the heuristic's choice, one-hot, to the input
        self.layers = [(np.ascontiguousarray(w, np.float32), np.ascontiguousarray(b, np.float32)) for w, b in weights]
        if activation not in ACTIVATIONS:  # never fall back to another one: the policy would play differently
            raise ValueError(f"unknown activation {activation!r}; known: {', '.join(ACTIVATIONS)}")
        self.activation = activation
        self._activation = ACTIVATIONS[activation]
        self._tables = None  # what greedy() needs (_greedy_tables), made at its first call

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = obs
        for w, b in self.layers[:-1]:
            x = self._activation(x @ w.T + b)
        w, b = self.layers[-1]
        return x @ w.T + b

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None,
            hint: int | None = None) -> int:
        """The most likely legal action, or one sampled from the masked softmax when ``rng`` is given;
        ``hint`` is the heuristic's action, needed when the policy reads it (``self.hint``)."""
        if self.hint == "none":
            hint = None
        elif hint is None:
            raise ValueError(f"this policy reads the {self.hint} agent's choice (hint); pass hint=")
        if rng is None:
            return self.greedy(obs, mask, hint)
        return self.act_input(*policy_input(obs, mask, self.transform, hint), rng)

    def greedy(self, obs: np.ndarray, mask: np.ndarray, hint: int | None = None) -> int:
        """The most likely legal action for one raw observation: the transform, the hint, the forward
        pass and the masked argmax in one compiled call (``_greedy``), which reads only the weight rows
        of the inputs that are not zero. A game's other seats evict the weights from the CPU's caches
        between two of an agent's moves, so a move costs what it reads and how many calls it makes
        (docs/agents.md "Thinking time"). Equal to ``act_input`` on ``policy_input`` up to float
        rounding (tests/test_checkpoint.py checks they choose alike)."""
        t = self._tables
        if t is None or t[0] is not self.transform or t[1] != self.hint:
            t = self._tables = self._greedy_tables()
        _, _, n_obs, n_act, args = t
        if obs.shape != (n_obs,) or mask.shape != (n_act,):
            raise ValueError(f"observation {obs.shape} and mask {mask.shape} do not fit this policy "
                             f"({n_obs} inputs, {n_act} actions)")
        if hint is None and self.hint != "none":  # the kernel would score the move without it
            raise ValueError(f"this policy reads the {self.hint} agent's choice (hint); pass hint=")
        if hint is not None and (self.hint == "none" or not 0 <= hint < n_act):
            raise ValueError(f"hint {hint} does not fit this policy (it reads "
                             f"{'no hint' if self.hint == 'none' else f'an action 0..{n_act - 1}'})")
        if args is None:  # no hidden layer: nothing to gain from compiling
            return self.act_input(*policy_input(obs, mask, self.transform, hint))
        return int(_greedy(obs, mask, -1 if hint is None else int(hint), *args))

    def _greedy_tables(self) -> tuple:
        """What ``greedy`` needs, kept until the transform or hint changes: (transform, hint, inputs of an
        observation, actions, ``_greedy``'s last two arguments or None without a hidden layer)."""
        out_w, out_b = self.layers[-1]
        n_act = out_w.shape[0]
        n_obs = self.layers[0][0].shape[1] - hint_size(self.hint, n_act)
        if self.transform is not None and self.transform.size != n_obs:
            raise ValueError(f"this policy reads {self.layers[0][0].shape[1]} inputs, but its transform gives "
                             f"{self.transform.size} and its hint ({self.hint}) {hint_size(self.hint, n_act)}")
        args = None
        if len(self.layers) > 1:
            # the weights in _greedy's order: each hidden layer as [inputs, outputs] (row i is what input i
            # adds to every output) and its biases, then the output layer as [actions, inputs] and its biases
            flat = [a for w, b in self.layers[:-1] for a in (w.T, b)] + [out_w, out_b]
            weights = np.concatenate([np.ravel(a) for a in flat])  # float32, as self.layers
            args = (_pack(self.transform, n_obs, self.shape, self.activation == "relu"), weights)
        return self.transform, self.hint, n_obs, n_act, args

    def prepare(self, obs_size: int, action_size: int) -> None:
        """Compile ``greedy``'s kernel (or load it from numba's cache, about a second either way) and make
        its tables now, so that the first move does not pay for them."""
        mask = np.zeros(action_size, np.int8)
        mask[0] = 1
        self.greedy(np.zeros(obs_size, np.float32), mask, None if self.hint == "none" else 0)

    def act_input(self, x: np.ndarray, mask: np.ndarray, act_src: np.ndarray | None,
                  rng: np.random.Generator | None = None) -> int:
        """``act`` on what ``policy_input`` made of a decision (the network's input, its mask, and the
        permutation back to real actions): for a caller that keeps the input too."""
        action = self._act(x, mask, rng)
        return action if act_src is None else int(act_src[action])

    def _act(self, obs, mask, rng) -> int:
        z = self.logits(obs)
        legal = np.flatnonzero(mask)
        z = z[legal]
        if rng is None:
            return int(legal[np.argmax(z)])
        p = np.exp(z - z.max())
        c = np.cumsum(p)
        # inverse-CDF sampling: much cheaper per call than Generator.choice(p=...)
        return int(legal[min(int(np.searchsorted(c, rng.random() * c[-1], side="right")), len(legal) - 1)])

    @property
    def shape(self) -> list[int]:
        return [self.layers[0][0].shape[1]] + [w.shape[0] for w, _ in self.layers]


_INDEX = 2 + 4 + 256  # what canonical.perm_index reads: the hand and trump offsets, trump's order, the perm codes


def _pack(transform, n_obs: int, shape: list[int], relu: bool) -> np.ndarray:
    """``_greedy``'s integer arguments in one int64 array (``_unpack`` reads it back): the layer widths,
    inputs first; relu (1) or tanh (0); what ``canonical.perm_index`` reads (the hand and trump offsets,
    -1, -1 without a transform; trump's order, 4; the perm codes, 256); the number of relabellings R;
    per relabelling, input -> where the network reads it ([R, inputs]); and network action -> real
    action and back ([2, R, actions]). One identity relabelling without a transform."""
    from . import canonical

    n_act = shape[-1]
    if transform is None:
        ident = np.arange(n_act)
        index = np.concatenate([[-1, -1], np.zeros(_INDEX - 2, np.int64)])
        obs_dst, acts = np.arange(n_obs)[None], np.stack([ident, ident])[:, None]
    else:
        batch = canonical.BatchCanonical(transform)
        obs_dst, acts = np.argsort(batch.obs_src, axis=1), np.stack([batch.act_src, batch.act_dst])
        index = np.concatenate(transform.index_tables)
    parts = [[len(shape)], shape, [int(relu)], index, [len(obs_dst)], obs_dst.ravel(), acts.ravel()]
    return np.concatenate([np.asarray(a, np.int64).ravel() for a in parts])


@njit(cache=True, nogil=True, inline="always")
def _unpack(tables, n_obs):
    """``_pack``'s array read back as (dims, relu, perm_index's offsets, trump order and codes, obs_dst, acts)."""
    k = tables[0]
    dims = tables[1:1 + k]
    at = 1 + k
    relu = tables[at] != 0
    index = tables[at + 1:at + 1 + _INDEX]
    at += 1 + _INDEX
    r = tables[at]
    obs_dst = tables[at + 1:at + 1 + r * n_obs].reshape((r, n_obs))
    at += 1 + r * n_obs
    n_act = dims[k - 1]
    acts = tables[at:at + 2 * r * n_act].reshape((2, r, n_act))
    return dims, relu, index, obs_dst, acts


@njit(cache=True, nogil=True)
def _greedy(obs, mask, hint, tables, weights):
    """PolicyMLP.greedy's one compiled call: relabel (``perm_index`` when the tables name the hand and
    trump pieces), add the first layer's rows of the nonzero inputs and of the hint's one-hot, run the
    other hidden layers skipping zero units, and score only the legal actions with the output layer.
    Returns the real action of the best one (the first on a tie, as np.argmax), -1 when no action is
    legal. ``tables``: every integer table in one array (``_pack``); ``weights``: all the weights in one
    array, in the order ``_greedy_tables`` writes them.

    Five arguments on purpose: numba's dispatcher types each argument before the call, and between two
    of an agent's moves the other seats evict that work's code and data from the CPU's caches. There an
    empty kernel cost 12.6 µs a call with 9 arguments and 9.2 µs with 4 (docs/agents.md "Thinking time")."""
    n = obs.shape[0]
    dims, relu, index, obs_dst, acts = _unpack(tables, n)
    p = 0 if index[0] < 0 else perm_index(obs, index[0], index[1], index[2:6], index[6:])
    act_src, act_dst = acts[0], acts[1]
    layers = dims.shape[0] - 1
    at = 0  # where the next layer's weights start in ``weights``
    w = weights[at:at + dims[0] * dims[1]].reshape((dims[0], dims[1]))
    at += dims[0] * dims[1]
    h = weights[at:at + dims[1]].copy()
    at += dims[1]
    for i in range(n):
        v = obs[i]
        if v != 0:
            r = obs_dst[p, i]
            for j in range(h.shape[0]):
                h[j] += v * w[r, j]
    if hint >= 0:
        r = n + act_dst[p, hint]
        for j in range(h.shape[0]):
            h[j] += w[r, j]
    for k in range(1, layers):
        for j in range(h.shape[0]):
            h[j] = max(h[j], 0) if relu else np.tanh(h[j])
        if k + 1 < layers:
            w = weights[at:at + dims[k] * dims[k + 1]].reshape((dims[k], dims[k + 1]))
            at += dims[k] * dims[k + 1]
            g = weights[at:at + dims[k + 1]].copy()
            at += dims[k + 1]
            for i in range(h.shape[0]):
                v = h[i]
                if v != 0:
                    for j in range(g.shape[0]):
                        g[j] += v * w[i, j]
            h = g
    n_act = dims[layers]
    out_w = weights[at:at + n_act * h.shape[0]].reshape((n_act, h.shape[0]))
    out_b = weights[at + n_act * h.shape[0]:]
    best, top = -1, np.float32(0)
    for a in range(n_act):
        if mask[act_src[p, a]] != 0:
            z = out_b[a]
            for j in range(h.shape[0]):
                z += out_w[a, j] * h[j]
            if best < 0 or z > top:
                best, top = a, z
    return -1 if best < 0 else act_src[p, best]


class BatchMLP:
    """Dense layers (a PolicyMLP's, or a training network's heads) run on a batch of numpy rows, in torch.
    Not numpy: its BLAS starts threads of its own for a batch, and with the cores already busy those
    spin against each other (a training rollout took 5 times as long, a search in two worker processes
    40 times). Torch runs at the thread count its caller sets."""

    def __init__(self, layers, activation: str):
        import torch

        acts = {"relu": torch.relu, "tanh": torch.tanh}
        if activation not in acts:
            raise ValueError(f"unknown activation {activation!r}; known: {', '.join(acts)}")
        self.act = acts[activation]
        self.layers = [(torch.from_numpy(np.ascontiguousarray(w, np.float32)),
                        torch.from_numpy(np.ascontiguousarray(b, np.float32))) for w, b in layers]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            y = torch.from_numpy(np.ascontiguousarray(x, np.float32))
            for w, b in self.layers[:-1]:
                y = self.act(torch.nn.functional.linear(y, w, b))
            w, b = self.layers[-1]
            return torch.nn.functional.linear(y, w, b).numpy()


def tensors_of(policy: PolicyMLP) -> dict[str, np.ndarray]:
    out = {}
    for i, (w, b) in enumerate(policy.layers):
        out[f"layer{i}.weight"], out[f"layer{i}.bias"] = w, b
    return out


def _digest(tensors: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(tensors):
        h.update(name.encode())
        h.update(np.ascontiguousarray(tensors[name]).tobytes())
    return h.hexdigest()


def _file_mode() -> int:
    """The mode a plain ``open(path, "w")`` would give a new file under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path: str | Path, write) -> None:
    """Call ``write(tmp_path)``, fsync, then rename over ``path``: readers see the old file or the new, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, _file_mode())  # mkstemp makes it owner-only; give it a normal file's mode
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:  # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


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
    card = dict(card, sha256=_digest(tensors))
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


def read_policy(path: str | Path) -> tuple[PolicyMLP, dict]:
    """The policy and card of a file, checked for damage (not yet against any rules)."""
    from safetensors import safe_open

    p = resolve_path(path)
    try:
        with safe_open(str(p), framework="numpy") as f:
            meta = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}
    except Exception as e:  # safetensors raises its own error types for a bad header or a short file
        raise CheckpointError(f"checkpoint {str(p)!r} is damaged or not a safetensors file "
                              f"(truncated or corrupted?): {e}. Re-export or re-download it.") from None
    if "pitch_card" not in meta:
        raise CheckpointError(f"checkpoint {str(p)!r} has no pitch card in its metadata: it was not written by "
                              f"`pitch train` (format {FORMAT})")
    card = json_object(meta["pitch_card"], FORMAT, f"checkpoint {str(p)!r}: its card", "a pitch card written by "
                       "`pitch train`", CheckpointError)
    if _digest(tensors) != card.get("sha256"):
        raise CheckpointError(f"checkpoint {str(p)!r} is corrupted: its weights do not match the checksum in its card")
    where = f"checkpoint {str(p)!r}"
    check_card(card, where)
    layers = check_tensors(tensors, card["network"]["shape"], where)
    policy = PolicyMLP(layers, card["network"]["activation"], hint=card["observation"].get("hint", "none"))
    return policy, card


_FIX = "the file is inconsistent (crafted or written by another program); re-export it from its training run"


_repr = reprlib.Repr()  # bounded: a crafted card may hold huge or deeply nested values
_repr.maxlevel, _repr.maxlist, _repr.maxdict, _repr.maxstring, _repr.maxother = 2, 6, 4, 40, 40


def _short(value) -> str:
    return _repr.repr(value)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _known_hint(obs: dict, where: str) -> str:
    """The card's observation hint ("none" when absent), one this version knows; CheckpointError otherwise."""
    hint = obs.get("hint", "none")
    if hint not in HINTS:
        raise CheckpointError(f"{where} reads a {_short(hint)} hint, which this version does not know (known: "
                              f"{', '.join(HINTS)})")
    return hint


def check_card(card: dict, where: str) -> None:
    """Every field of the card that loading reads, with its type and a known value; CheckpointError otherwise."""
    def need(obj, key, ok, what, at):
        if not isinstance(obj, dict) or key not in obj:
            raise CheckpointError(f"{where}: its card lacks {at}{key}; {_FIX}")
        if not ok(obj[key]):
            raise CheckpointError(f"{where}: its card's {at}{key} is {_short(obj[key])}, expected {what}; {_FIX}")
        return obj[key]

    def section(key):
        return need(card, key, lambda v: isinstance(v, dict), "an object", "")

    need(card, "variant", lambda v: isinstance(v, str), "a string", "")
    rules = section("rules")
    for key, value in rules.items():
        if not (value is None or isinstance(value, (str, int, float))):
            raise CheckpointError(f"{where}: its card's rules.{_short(key)} is {_short(value)}, expected one value; "
                                  f"{_FIX}")
    need(rules, "num_players", _is_int, "an integer", "rules.")
    obs = section("observation")
    need(obs, "layout_version", _is_int, "an integer", "observation.")
    need(obs, "size", lambda v: _is_int(v) and v > 0, "a positive integer", "observation.")
    transform = obs.get("transform")
    if transform not in TRANSFORMS:
        raise CheckpointError(f"{where} uses observation transform {_short(transform)}, which this version does not "
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
        raise CheckpointError(f"{where}: its card's config is {_short(card['config'])}, expected an object; {_FIX}")
    inputs = obs["size"] + hint_size(hint, actions)
    if shape[0] != inputs or shape[-1] != actions:
        raise CheckpointError(f"{where}: its network shape {shape} does not fit its own card (observation "
                              f"{obs['size']} + {hint!r} hint = {inputs} inputs, {actions} actions); {_FIX}")


def check_tensors(tensors: dict, shape: list[int], where: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) layers of ``shape``: exactly the tensors it needs, float32, the right shapes, finite."""
    if not tensors:
        raise CheckpointError(f"{where} holds no tensors; {_FIX}")
    names = [f"layer{i}.{part}" for i in range(len(shape) - 1) for part in ("weight", "bias")]
    missing = [n for n in names if n not in tensors]
    if missing:
        raise CheckpointError(f"{where} lacks tensor {missing[0]} (its card's network {shape} needs {len(names)}); "
                              f"{_FIX}")
    extra = sorted(set(tensors) - set(names))
    if extra:
        raise CheckpointError(f"{where} holds tensor {_short(extra[0])}, which a {shape} network does not have; {_FIX}")
    layers = []
    for i in range(len(shape) - 1):
        w, b = tensors[f"layer{i}.weight"], tensors[f"layer{i}.bias"]
        for name, t, want in ((f"layer{i}.weight", w, (shape[i + 1], shape[i])),
                              (f"layer{i}.bias", b, (shape[i + 1],))):
            if t.dtype != np.float32:
                raise CheckpointError(f"{where}: tensor {name} holds {t.dtype} values; a pitch policy stores float32; "
                                      f"{_FIX}")
            if t.shape != want:
                raise CheckpointError(f"{where}: tensor {name} has shape {list(t.shape)}, but the card's network "
                                      f"{shape} needs {list(want)}; {_FIX}")
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
                              f"{observer_size}")
    if card["network"]["shape"][0] != observer_size + extra:
        raise CheckpointError(f"{where}: its network reads {card['network']['shape'][0]} inputs, but the "
                              f"observation ({observer_size}) and its {hint!r} hint ({extra}) make "
                              f"{observer_size + extra}; the file is inconsistent")
    if card["actions"]["size"] != action_size or card["network"]["shape"][-1] != action_size:
        raise CheckpointError(f"{where} has {card['actions']['size']} actions, but this game's layout has "
                              f"{action_size}")


def load_policy(path: str | Path, rules) -> tuple[PolicyMLP, dict]:
    """The policy of a checkpoint, checked against ``rules`` and this observer/action layout."""
    from pitch_env.actions import ActionLayout
    from pitch_env.observer import LAYOUT_VERSION, Observer

    policy, card = read_policy(path)
    where = f"checkpoint {str(path)!r}"
    check_fits(card, rules, Observer(rules).size, LAYOUT_VERSION, ActionLayout(rules).size, where)
    policy.transform = make_transform(card["observation"].get("transform"), rules, where)
    return policy, card


def make_transform(name: str | None, rules, where: str = "config"):
    """The observation transform a policy was trained with (None: the plain Observer vector)."""
    if name in (None, "plain"):
        return None
    from . import canonical

    if name == canonical.NAME:
        return canonical.SuitCanonical(rules)
    raise CheckpointError(f"{where} uses observation transform {name!r}, which this version does not know "
                          f"(known: plain, {canonical.NAME})")
