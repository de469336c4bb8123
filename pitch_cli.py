"""The ``pitch`` command: train, tournament, play, replay, bench (and ``run``, the main job).

Each subcommand lives beside the code it drives (``agents/cli.py``, ``train/cli.py``,
``bench/cli.py``) and registers itself here through a ``register(subparsers)`` function.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys

# Modules that add subcommands; each has register(subparsers).
_COMMAND_MODULES = ("agents.cli", "train.cli", "bench.cli")


def _cmd_run(args) -> int:
    """The main job of `make run`."""
    try:
        from train.cli import main_job
    except ImportError:
        main_job = None
    if main_job is not None:
        return main_job(args)
    import pitch_env
    from pitch_env.record import game_record
    from pitch_env.render import render_record

    game = pitch_env.Game("setback", seed=args.seed)
    rng = random.Random(args.seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    print(render_record(game_record(game)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pitch", description="Pitch (Setback) RL environment and agents.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="the main job of `make run`")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_cmd_run)
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
