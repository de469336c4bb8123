"""The checks and helpers every ``pitch`` subcommand of agents/ shares: counts, specs, output paths,
one-line failures and SIGTERM/SIGHUP as Ctrl-C. A module of its own so the commands (agents/cli.py,
agents/leaderboard.py, agents/tournament_html.py) all import it and none imports another."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path

import pitch_env
from pitch_env.files import check_writable_above

from .workers import check_workers

# Far beyond any real tournament; larger numbers only build job lists or process pools that never end.
MAX_GAMES = 10_000_000


def fail(message: str) -> int:
    print(f"pitch: {message}", file=sys.stderr)
    return 2


def check_counts(games: int, workers: int, per: str = "") -> None:
    """ValueError (one line) unless ``--games`` and ``--workers`` are counts this machine can play."""
    if not 1 <= games <= MAX_GAMES:
        raise ValueError(f"--games {games}: play 1 to {MAX_GAMES:,} games{per}")
    if workers < 1:
        raise ValueError(f"--workers {workers}: use 1 or more processes (1 plays in this process; "
                         f"this machine has {os.cpu_count()} cores)")
    check_workers(workers, "--workers")


@contextlib.contextmanager
def term_as_interrupt():
    """A plain ``kill`` (SIGTERM) or a closed terminal (SIGHUP) ends a tournament or a game like
    Ctrl-C: the tournament reports the games so far, the game is saved, then the command exits."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    # A signal already ignored stays ignored: under nohup a closed terminal must not stop the run.
    previous = {s: signal.signal(s, interrupt) for s in (signal.SIGTERM, signal.SIGHUP)
                if signal.getsignal(s) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def split_specs(text: str) -> list[str]:
    specs = [s.strip() for s in text.split(",")]
    if not any(specs):
        raise ValueError("--agents is empty: give specs such as heuristic,random")
    if not all(specs):
        raise ValueError(f"--agents {text!r}: an empty spec between commas; write e.g. heuristic,random")
    return specs


def check_output_path(path, option: str) -> None:
    """Fail now, naming the option, if ``path`` cannot be written (its folder missing or read-only)."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{option} {path}: is a folder; give a file name")
    if not p.parent.is_dir():
        raise ValueError(f"{option} {path}: {p.parent} is not an existing folder; create it or choose another path")
    try:  # a real write: permission bits alone do not say (root, read-only mounts)
        if p.exists():
            open(p, "a").close()
        else:
            check_writable_above(p.parent)
    except OSError as e:
        raise ValueError(f"{option} {path}: cannot write there ({e.strerror}); choose another path") from None


def check_specs(rules, specs: list[str]) -> None:
    """Build each agent once up front for ``rules``, so a bad spec fails before any game is played."""
    from . import make, seats_human
    from .tournament import seatings

    if any(seats_human(s) for s in specs):
        raise ValueError("a tournament cannot seat 'human': use pitch play")
    seatings(rules, len(specs))  # e.g. one agent cannot fill two partnership sides
    env = pitch_env.env(rules)
    for spec in specs:
        make(spec, env)
