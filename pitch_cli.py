"""The ``pitch`` command: train, tournament, play, replay, bench (and ``run``, the main job).

Each subcommand lives beside the code it drives (``agents/cli.py``, ``train/cli.py``,
``bench/cli.py``) and registers itself here through a ``register(subparsers)`` function.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that add subcommands; each has register(subparsers).
_COMMAND_MODULES = ("agents.cli", "train.cli", "train.exit", "train.fuse", "bench.cli")


def _cmd_run(args) -> int:
    """The main job of `make run`."""
    from train.cli import main_job

    return main_job(args)


# The example that ends each command's --help (a command may set its own epilog instead).
EXAMPLES = {
    "run": "pitch run --seed 1",
    "train": "pitch train --config configs/quick.yaml --set total_steps=20000",
    "exit": "pitch exit --config configs/exit/setback_recipe.yaml",
    "fuse": "pitch fuse setback_scratch setback --out checkpoints/my_fused --games 200",
    "tournament": "pitch tournament --agents pimc:12,heuristic --games 200",
    "play": "pitch play --variant setback --opponents heuristic --save game.json",
    "replay": "pitch replay game.json --hand 1",
    "leaderboard": "pitch leaderboard --variant setback --games 200 --seed 0",
    "bench": "pitch bench",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pitch", description="pitch-rl: Pitch (Setback, Auction Pitch, 10-point Pitch) environment, agents and training.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from train.cli import RUN_DESCRIPTION

    p = sub.add_parser("run", help="the main job of `make run`: train a small agent and compare it (< 3 min)",
                       description=RUN_DESCRIPTION, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--seed", type=int, default=0, help="training and tournament seed (0: the config's)")
    p.set_defaults(func=_cmd_run)
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    for name, command in sub.choices.items():
        if command.epilog is None and name in EXAMPLES:
            command.epilog = f"example: {EXAMPLES[name]}"
    return parser


def commands_text(parser: argparse.ArgumentParser) -> str:
    """What bare ``pitch`` prints: every command with its one-line description."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    rows = [(c.dest, c.help or "") for c in sub._choices_actions]
    width = max(len(name) for name, _ in rows)
    lines = [f"{parser.description}", "", "usage: pitch COMMAND [options]   (pitch COMMAND --help for its options)",
             "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, text in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        print(commands_text(parser))
        return 0
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
