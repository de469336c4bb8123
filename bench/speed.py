"""Decisions per second of random legal play through the wrapped AEC env, beside PettingZoo's own
``texas_holdem_v4`` and ``leduc_holdem_v4`` in the same run and with the same loop.

Every decision builds the observation and the action mask (``env.last()``), picks a uniformly
random legal action from the mask and steps. One process, one core. Run: ``make bench`` or
``pitch bench [--seconds S]``.
"""

from __future__ import annotations

import argparse
import platform
import random
import time


def decisions_per_second(make_env, seconds: float, seed: int = 0) -> tuple[float, float, int]:
    """Play whole random games until ``seconds`` have passed.

    Returns (decisions per wall second, decisions per CPU second of this process, decisions);
    the CPU-time figure is steadier when other work shares the machine."""
    env = make_env()
    rng = random.Random(seed)
    pick = rng.random
    decisions, episode = 0, 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        # Seed once: re-seeding every episode is costly in some envs (rlcard's) and not what a loop does.
        env.reset(seed=seed) if episode == 0 else env.reset()
        episode += 1
        for _ in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(pick() * len(legal))]))
            decisions += 1
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return decisions / wall, decisions / cpu, decisions


def cases():
    import pitch_env
    from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

    out = []
    for variant, players, partnerships in (
        ("setback", 4, True), ("setback", 2, False), ("auction", 4, False), ("auction", 7, False),
        ("ten_point", 4, True),
    ):
        label = f"pitch {variant} {players}p {'partnerships' if partnerships else 'solo'}"
        out.append((label, lambda v=variant, n=players, p=partnerships: pitch_env.env(v, num_players=n, partnerships=p)))
    out.append(("pettingzoo texas_holdem_v4", texas_holdem_v4.env))
    out.append(("pettingzoo leduc_holdem_v4", leduc_holdem_v4.env))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per environment")
    parser.add_argument("--only", default=None, help="run only cases whose label contains this text")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per environment; the median is shown")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, one process; "
          f"median of {args.repeat} runs of {args.seconds:g} s each")
    print(f"{'environment':40} {'decisions/s':>12} {'per CPU s':>12} {'decisions':>10}")
    for label, make in cases():
        if args.only and args.only not in label:
            continue
        decisions_per_second(make, min(1.0, args.seconds / 5))  # warm-up, not reported
        runs = sorted(decisions_per_second(make, args.seconds) for _ in range(args.repeat))
        rate, cpu_rate, n = runs[len(runs) // 2]
        print(f"{label:40} {rate:12,.0f} {cpu_rate:12,.0f} {n:10,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
