"""A trained policy as an agent: ``CheckpointAgent(path, env)`` (``agents.make("checkpoint:PATH", env)``).

PATH is a shipped agent's name (``setback``: a folder of the checkpoints/ beside this package), a
``.safetensors`` file or a folder holding one. Loads the safe format of pitch_policy/file.py
(safetensors + JSON card, never pickle) and refuses, with a CheckpointError naming the difference,
a policy trained for other rules or layouts.
"""

from __future__ import annotations

import errno
import re
from pathlib import Path

import numpy as np

from pitch_policy import WEIGHTS_FILE, CheckpointError, load_policy  # noqa: F401  (CheckpointError re-exported)

from .base import Agent
from .heuristic import heuristic_action

_FLOAT32 = np.dtype(np.float32)
# Found beside the code, not in the working directory, so a shipped name works from anywhere.
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
_NAME = re.compile(r"[A-Za-z0-9_+=-][A-Za-z0-9_.+=-]{0,99}")  # a shipped agent's folder name


# The strongest shipped agent of each game: first in its round robin, or, where the first ratings sit within
# the round robin's noise, in 4,000-game tournaments (docs/leaderboard.md, "The strongest agent of each
# game", which a test keeps equal to this table). `pitch play` seats it and
# `make run` compares its new agent with it.
STRONGEST = {"setback": "setback_dealt_5m", "auction": "auction_dealt_5m", "ten_point": "ten_point_values32"}


def strongest(variant: str) -> str | None:
    """The agent spec of the game's strongest shipped agent (``checkpoint:NAME``), None when the game
    has none (a variant without a shipped agent, or its folder missing)."""
    name = STRONGEST.get(variant)
    return f"checkpoint:{name}" if name is not None and shipped_checkpoint(name) is not None else None


def shipped_names() -> list[str]:
    """The shipped agents' names: the folders of checkpoints/ that hold a policy file."""
    if not SHIPPED_DIR.is_dir():
        return []
    return sorted(p.name for p in SHIPPED_DIR.iterdir() if (p / WEIGHTS_FILE).is_file())


def shipped_checkpoint(name: str) -> Path | None:
    """The folder of the shipped agent ``name`` (a bare name, no slash), else None (a path, or no such name)."""
    name = str(name)
    if not _NAME.fullmatch(name):  # a path, or nothing a shipped folder could be called
        return None
    folder = SHIPPED_DIR / name
    try:
        return folder if (folder / WEIGHTS_FILE).is_file() else None
    except OSError:  # e.g. a name too long for the file system: no shipped agent has it
        return None


# Where a directory keeps its policy, in the order looked for: a checkpoint directory (checkpoints/NAME,
# RUN/checkpoint), an expert-iteration run (train/exit.py keeps its best network), a training run.
POLICY_IN_DIRECTORY = (WEIGHTS_FILE, "best.safetensors", f"checkpoint/{WEIGHTS_FILE}")


def resolve_policy_path(text) -> Path:
    """The policy file an agent spec's PATH names: a ``.safetensors`` file, a checkpoint directory or a
    run directory (``pitch train``'s, ``pitch exit``'s). CheckpointError (one line) when there is none or
    the path cannot be read (too long a name, a symlink loop, no permission, a file used as a folder)."""
    found = shipped_checkpoint(text)
    if found is not None:
        return found / WEIGHTS_FILE
    if "\x00" in str(text):  # the system refuses it before any lookup
        raise CheckpointError(f"checkpoint {_short(text)}: a path cannot hold a NUL character; give a "
                              ".safetensors file or a checkpoint or run directory")
    path = Path(text)
    try:
        if path.is_dir():
            found = next((path / name for name in POLICY_IN_DIRECTORY if (path / name).is_file()), None)
            if found is None:
                raise CheckpointError(f"checkpoint {_short(text)}: the directory holds no policy (looked for "
                                      f"{', '.join(POLICY_IN_DIRECTORY)}); give a checkpoint or run directory "
                                      "or a .safetensors file")
            return found
        if path.is_file():
            return path
        path.stat()  # neither: a missing path, or one the system refuses (the error says which)
        raise CheckpointError(f"checkpoint {_short(text)} is not a regular file (a FIFO, device or socket): give a "
                              ".safetensors file or a checkpoint or run directory")
    except OSError as e:
        why = {errno.ENAMETOOLONG: "a name in it is too long", errno.ELOOP: "it loops through symlinks",
               errno.EACCES: "permission denied", errno.ENOTDIR: "a part of it is a file, not a folder"}
        if e.errno != errno.ENOENT:
            raise CheckpointError(f"checkpoint {_short(text)}: cannot be read ({why.get(e.errno, e.strerror)}); "
                                  "give a .safetensors file or a checkpoint or run directory") from None
    if _NAME.fullmatch(str(text)) and path.suffix != ".safetensors":
        raise CheckpointError(f"no shipped agent named {_short(text)}: the shipped ones are "
                              f"{', '.join(shipped_names()) or '(none: checkpoints/ is missing)'}; "
                              "or give a .safetensors file, a checkpoint directory or a run directory")
    raise CheckpointError(f"checkpoint {_short(text)} not found: give a .safetensors file, a checkpoint directory "
                          f"or a run directory (the shipped agents are in checkpoints/)")


def _short(text) -> str:
    text = str(text)
    return repr(text if len(text) <= 80 else text[:40] + "…" + text[-30:])


class CheckpointAgent(Agent):
    """Plays the policy's most likely legal action, or samples from it (``deterministic=False``). By
    default it plays as its training config said (the card's ``config.deterministic``; most likely
    action where the card does not say)."""

    def __init__(self, path, env, seed: int | None = None, deterministic: bool | None = None):
        super().__init__(env, seed)
        self.path = str(path)
        self.policy, self.card = load_policy(resolve_policy_path(path), self.rules)
        self.name = f"checkpoint:{path}"
        if deterministic is None:  # only a card's literal false samples (a crafted value plays the default)
            deterministic = (self.card.get("config") or {}).get("deterministic") is not False
        self.deterministic = deterministic
        self._np_rng = np.random.default_rng(seed)
        self._hinted = self.policy.hint == "heuristic"  # the policy reads the heuristic's choice (train/hint.py)
        from pitch_env.observer import Observer

        self.policy.prepare(Observer(self.rules).size, self.layout.size)  # compile now, not in the first move

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self._np_rng = np.random.default_rng(seed)

    def act(self, observation, info) -> int:
        obs, mask = observation["observation"], observation["action_mask"]
        if type(obs) is not np.ndarray or obs.dtype is not _FLOAT32:  # the env's own arrays pass as they are
            obs = np.asarray(obs, np.float32)
        if type(mask) is not np.ndarray:
            mask = np.asarray(mask)
        if self._hinted:  # the mover's InfoState: the hint reads it, and it knows the legal moves
            state = self.info_state(observation, info)
            if self.deterministic and len(state.legal) == 1:  # a forced move needs no thought
                return state.legal[0]
            hint = heuristic_action(state, self.layout)
        else:
            if self.deterministic and np.count_nonzero(mask) == 1:
                return int(np.flatnonzero(mask)[0])
            hint = None
        if self.deterministic:  # the compiled move (PolicyMLP.greedy): a move costs its calls, not its arithmetic
            return self.policy.greedy(obs, mask, hint)
        return self.policy.act(obs, mask, self._np_rng, hint)
