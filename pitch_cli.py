"""The ``pitch`` command: train, tournament, play, replay, bench (and ``run``, the main job)."""

from __future__ import annotations

import argparse
import random
import sys


def _cmd_run(args) -> int:
    """Until training exists: play and print one full random game of the default variant."""
    import pitch_env
    from pitch_env.render import render_record

    game = pitch_env.Game("setback", seed=args.seed)
    rng = random.Random(args.seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    print(render_record(game.game_record()))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="pitch", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="the main job of `make run`")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_cmd_run)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
