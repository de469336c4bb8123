"""The ``pitch`` command: train, tournament, play, replay, bench (and ``run``, the main job).

Each subcommand lives beside the code it drives (``agents/cli.py``, ``train/cli.py``,
``bench/cli.py``) and registers itself here through a ``register(subparsers)`` function.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that add subcommands; each has register(subparsers).
_COMMAND_MODULES = ("agents.cli", "train.cli", "train.exit", "bench.cli")


def _cmd_run(args) -> int:
    """The main job of `make run`."""
    from train.cli import main_job

    return main_job(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pitch", description="Pitch (Setback) RL environment and agents.")
    sub = parser.add_subparsers(dest="command", required=True)
    from train.cli import RUN_DESCRIPTION

    p = sub.add_parser("run", help="the main job of `make run`: train a small agent and compare it (< 3 min)",
                       description=RUN_DESCRIPTION, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--seed", type=int, default=0, help="training and tournament seed (0: the config's)")
    p.set_defaults(func=_cmd_run)
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
