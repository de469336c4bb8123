"""``pitch bench``: the speed benchmark (bench/speed.py)."""


def register(sub) -> None:
    p = sub.add_parser("bench", help="decisions/s of random play through the AEC env vs PettingZoo classics")
    p.add_argument("--seconds", type=float, default=5.0, help="time per environment")
    p.add_argument("--only", default=None, help="run only cases whose label contains this text")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per environment; the median is shown")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from bench.speed import main

    argv = ["--seconds", str(args.seconds), "--repeat", str(args.repeat)]
    argv += ["--only", args.only] if args.only else []
    return main(argv)
