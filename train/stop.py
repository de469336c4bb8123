"""Stopping a run cleanly: SIGINT/SIGTERM only raise a flag the training loop checks between steps,
and every process forked while training dies with its parent (even on SIGKILL) and ignores Ctrl-C.
"""

from __future__ import annotations

import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1  # linux/prctl.h


class Interrupted(Exception):
    """The run was stopped by SIGINT/SIGTERM; whatever could be saved is saved."""


class StopFlag:
    """Within ``with StopFlag() as stop:``, SIGINT and SIGTERM set ``stop.signal`` instead of killing the
    process; the loop saves a checkpoint at the next safe point and raises ``Interrupted``."""

    def __init__(self):
        self.signal: int | None = None
        self._old = {}

    def __bool__(self) -> bool:
        return self.signal is not None

    def _handle(self, signum, frame) -> None:
        self.signal = signum

    def __enter__(self) -> StopFlag:
        _die_with_parent_after_fork()
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self._old[sig] = signal.signal(sig, self._handle)
            except ValueError:  # not the main thread: signals stay as they are
                pass
        return self

    def __exit__(self, *exc) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)

    def check(self) -> None:
        if self:
            raise Interrupted(signal.Signals(self.signal).name)


_registered = False


def _die_with_parent_after_fork() -> None:
    """Every child forked from now on (imitation recorders, SubprocVecEnv workers, evaluation
    tournaments) gets SIGKILL when its parent dies, and leaves Ctrl-C to the parent, which stops them."""
    global _registered
    if _registered or not hasattr(os, "register_at_fork"):
        return
    _registered = True
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):  # not Linux: children are still stopped by a living parent
        prctl = None

    parent = [0]

    def before() -> None:
        parent[0] = os.getpid()

    def in_child() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's flag: a terminated worker ends
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent[0]:  # the parent died before prctl took effect
                os._exit(1)

    os.register_at_fork(before=before, after_in_child=in_child)


def spawned_worker(parent: int) -> None:
    """Initializer of a pool started with the ``spawn`` context (which the fork hooks above do not
    reach): the same terms, SIGKILL when the parent ``parent`` dies and Ctrl-C left to it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)

