"""The policy network of an exported agent: its layers in numpy, the one compiled call that makes a
trained agent's move (``PolicyMLP.greedy``), and ``BatchMLP``, the same layers run on a batch in torch.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .canonical import BatchCanonical, perm_index
from .inputs import hint_size, policy_input

def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


ACTIVATIONS = {"relu": _relu, "tanh": np.tanh}

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

    def greedy_args(self) -> tuple | None:
        """The arguments ``greedy``'s compiled call takes after the observation, mask and hint (None
        when the policy has no hidden layer): what bench/move_cost.py times the call's dispatch with."""
        t = self._tables
        if t is None or t[0] is not self.transform or t[1] != self.hint:
            t = self._tables = self._greedy_tables()
        return t[4]

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
            args = (_pack(self.transform, n_obs, self.shape, self.activation == "relu",
                          [w for w, _ in self.layers[1:-1]]), weights)
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


def _pack(transform, n_obs: int, shape: list[int], relu: bool, deeper: list[np.ndarray]) -> np.ndarray:
    """``_greedy``'s integer arguments in one int64 array (``_unpack`` reads it back): the layer widths,
    inputs first; relu (1) or tanh (0); what ``canonical.perm_index`` reads (the hand and trump offsets,
    -1, -1 without a transform; trump's order, 4; the perm codes, 256); the number of relabellings R;
    per relabelling, input -> where the network reads it ([R, inputs]); network action -> real
    action and back ([2, R, actions]); then, per hidden layer after the first (``deeper``: their
    weights, [outputs, inputs]), 0 when it is dense, else 1 and where each input's nonzero weights begin
    and end among the outputs ([2, inputs]). One identity relabelling without a transform. The spans let
    a fused network (pitch_policy/fuse.py) read only its block-diagonal layers' blocks, and a dense
    layer keeps the plain loop, which is faster where every span is whole."""
    n_act = shape[-1]
    if transform is None:
        ident = np.arange(n_act)
        index = np.concatenate([[-1, -1], np.zeros(_INDEX - 2, np.int64)])
        obs_dst, acts = np.arange(n_obs)[None], np.stack([ident, ident])[:, None]
    else:
        batch = BatchCanonical(transform)
        obs_dst, acts = np.argsort(batch.obs_src, axis=1), np.stack([batch.act_src, batch.act_dst])
        index = np.concatenate(transform.index_tables)
    spans = []
    for w in deeper:
        nonzero = w.T != 0  # [inputs, outputs]
        some = nonzero.any(1)
        lo = np.where(some, nonzero.argmax(1), 0)
        hi = np.where(some, w.shape[0] - nonzero[:, ::-1].argmax(1), 0)
        dense = bool((lo == 0).all() and (hi == w.shape[0]).all())
        spans += [[0]] if dense else [[1], lo, hi]
    parts = [[len(shape)], shape, [int(relu)], index, [len(obs_dst)], obs_dst.ravel(), acts.ravel(), *spans]
    return np.concatenate([np.asarray(a, np.int64).ravel() for a in parts])


@njit(cache=True, nogil=True, inline="always")
def _unpack(tables, n_obs):
    """``_pack``'s array read back as (dims, relu, perm_index's offsets, trump order and codes, obs_dst, acts,
    where the hidden layers' spans begin)."""
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
    return dims, relu, index, obs_dst, acts, at + 2 * r * n_act


@njit(cache=True, nogil=True, inline="always")
def _add(acc, v, row):
    """``acc += v * row`` on two views of equal length. A loop over views, not over the whole arrays from
    a variable start, which LLVM left unvectorised (4.7 times slower)."""
    for j in range(acc.shape[0]):
        acc[j] += v * row[j]


@njit(cache=True, nogil=True)
def _greedy(obs, mask, hint, tables, weights):
    """PolicyMLP.greedy's one compiled call: relabel (``perm_index`` when the tables name the hand and
    trump pieces), add the first layer's rows of the nonzero inputs and of the hint's one-hot, run the
    other hidden layers skipping zero units (a block-diagonal one's rows over their spans of nonzero
    weights), and score only the legal actions with the output layer.
    Returns the real action of the best one (the first on a tie, as np.argmax), -1 when no action is
    legal. ``tables``: every integer table in one array (``_pack``); ``weights``: all the weights in one
    array, in the order ``_greedy_tables`` writes them.

    Five arguments on purpose: numba's dispatcher types each argument before the call, and between two
    of an agent's moves the other seats evict that work's code and data from the CPU's caches. There an
    empty kernel cost 12.6 µs a call with 9 arguments and 9.2 µs with 4 (docs/agents.md "Thinking time")."""
    n = obs.shape[0]
    dims, relu, index, obs_dst, acts, span = _unpack(tables, n)
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
            if tables[span] == 0:  # dense
                span += 1
                for i in range(h.shape[0]):
                    v = h[i]
                    if v != 0:
                        for j in range(g.shape[0]):
                            g[j] += v * w[i, j]
            else:  # block-diagonal: each row over its span
                lo, hi = tables[span + 1:span + 1 + dims[k]], tables[span + 1 + dims[k]:span + 1 + 2 * dims[k]]
                span += 1 + 2 * dims[k]
                for i in range(h.shape[0]):
                    v = h[i]
                    if v != 0:
                        _add(g[lo[i]:hi[i]], v, w[i, lo[i]:hi[i]])
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
