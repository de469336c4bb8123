"""``pitch train`` (also ``python -m train``) and the main job of ``make run``.

``pitch train --config configs/NAME.yaml [--set key=value …] [--resume RUN_DIR]`` trains; ``main_job``
trains configs/quick.yaml and prints its tournament table against random, heuristic and the game's
strongest shipped agent (agents/checkpoint.py ``strongest``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from agents.workers import WorkerDied

from .config import ConfigError

# The project's own copy, so that `pitch run` works from any directory (its run goes to ./runs/).
QUICK_CONFIG = Path(__file__).resolve().parent.parent / "configs" / "quick.yaml"
GAMES = 100  # duplicate-deal games of `make run`'s table, per opponent


TRAIN_DESCRIPTION = """\
Self-play training from a YAML config (see docs/training.md): PPO on the batched self-play core
(trainer: fast) or sb3-contrib's MaskablePPO (trainer: sb3), optionally warm-started by imitation of a
teacher agent; an expert-iteration config (configs/exit/*.yaml, configs/auction_scratch.yaml) runs as
`pitch exit` does; with --set backend=rllib, Ray RLlib's PPO on a local Ray or a cluster (docs/rllib.md).
A run writes runs_dir/run_name/: config.yaml, tb/ (TensorBoard), checkpoint/policy.safetensors
(play it with the agent spec checkpoint:PATH). Ctrl-C or SIGTERM saves a checkpoint and stops; --resume
continues from it (also during the imitation recording). Keys and their defaults: train/config.py."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="YAML config (see configs/); none: the TrainConfig defaults (train/config.py)")
    p.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE",
                   help="override config keys, values read as YAML, e.g. --set total_steps=5000 ent_coef=0.01")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint "
                   "(--set may change the schedule, not the game, network or recording)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


def register(subparsers) -> None:
    p = subparsers.add_parser("train", help="self-play training from a YAML config: PPO, SB3 or RLlib (see docs/training.md)",
                              description=TRAIN_DESCRIPTION, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_arguments(p)
    p.set_defaults(func=cmd_train)


def cmd_train(args) -> int:
    from .run import RunInterrupted, train
    from pitch_policy import CheckpointError

    if args.resume and args.config:
        print("error: --resume reads the config saved in the run directory; drop --config "
              "(use --set to change keys, e.g. --set total_steps=400000)", file=sys.stderr)
        return 2
    if is_exit_recipe(args.config, args.resume):
        from .exit import cmd_exit

        return cmd_exit(args)
    try:
        run = train(config_path=args.config, overrides=args.overrides, resume=args.resume,
                    show_progress=not args.no_progress)
    except RunInterrupted as e:
        print(e.message, file=sys.stderr)
        return 130
    except (ConfigError, CheckpointError, FileNotFoundError, FileExistsError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except WorkerDied as e:
        print(f"error: {e}; free memory or lower workers, then pitch train --resume RUN_DIR goes on from the "
              f"run's last checkpoint", file=sys.stderr)
        return 2
    print(f"run directory: {run}\npolicy: {run / 'checkpoint' / 'policy.safetensors'} "
          f"(play it with agent spec checkpoint:{run / 'checkpoint' / 'policy.safetensors'})")
    return 0


def is_exit_recipe(config: str | None, resume: str | None) -> bool:
    """Whether ``--config`` names an expert-iteration config (configs/exit/*.yaml, configs/auction_scratch.yaml:
    one that sets a key only ExitConfig has) or ``--resume`` an expert-iteration run (its config.json, no
    config.yaml). ``pitch train`` hands both to ``pitch exit``, so that every recipe trains with one command.
    A file that cannot be read is left to the train config's loader, which names the problem."""
    from dataclasses import fields

    from .config import TrainConfig
    from .exit import ExitConfig
    from .typed_config import read_yaml_file

    if resume:
        run = Path(resume)
        return (run / "config.json").is_file() and not (run / "config.yaml").exists()
    if not config:
        return False
    try:
        values = read_yaml_file(Path(config))
    except (ConfigError, OSError):
        return False
    only_exit = {f.name for f in fields(ExitConfig)} - {f.name for f in fields(TrainConfig)}
    return isinstance(values, dict) and any(key in only_exit for key in values)


RUN_DESCRIPTION = """\
The main job of `make run` (under 3 minutes on 2 busy CPU cores): trains configs/quick.yaml (a fit to
the heuristic's decisions, then a short PPO run) into runs/quick-TIME/, then plays the new agent against
random, the heuristic and the shipped agent on duplicate deals and prints the table with 95% intervals."""


def main_job(args) -> int:
    """`make run`: train configs/quick.yaml, then a duplicate-deal table vs random, heuristic, shipped."""
    from agents.report import console, render_table

    from .config import load_config
    from .evaluate import HEADERS, cells, compare
    from .run import RunInterrupted, train

    try:
        cfg = load_config(QUICK_CONFIG, [f"seed={args.seed}"] if getattr(args, "seed", 0) else [])
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    try:
        run = train(cfg, config_path=QUICK_CONFIG)
    except RunInterrupted as e:
        print(e.message, file=sys.stderr)
        return 130
    print(f"trained {cfg.total_steps:,} steps of {cfg.variant} in {time.perf_counter() - t0:.0f} s: {run}")
    rules = cfg.resolved_rules()
    opponents = run_opponents(cfg.variant)
    if len(opponents) == 2:
        print(f"note: no shipped {cfg.variant} agent in checkpoints/; skipping that row")
    games = GAMES
    try:
        rows = compare(run / "checkpoint" / "policy.safetensors", rules, opponents, games, seed=cfg.seed,
                       workers=2, progress=True)
    except KeyboardInterrupt:
        print(f"interrupted during the evaluation; the trained agent is saved in {run / 'checkpoint'}", file=sys.stderr)
        return 130
    console().print(render_table(f"{cfg.variant} · the new agent vs each opponent · {games} duplicate-deal games "
                                 f"each · seed {cfg.seed}", HEADERS, cells(rows)))
    return 0


def run_opponents(variant: str) -> list[str]:
    """What `make run` compares its new agent with: random, heuristic and the game's strongest shipped
    agent, when there is one."""
    from agents.checkpoint import strongest

    best = strongest(variant)
    return ["random", "heuristic"] + ([best] if best else [])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m train", description=TRAIN_DESCRIPTION,
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_arguments(p)
    return cmd_train(p.parse_args(argv))
