"""Soak test of the rules engine: many random games across every preset, player count and
partnership setting (and, for a share of them, random legal option overrides), each checked by
the independent referee of ``bench/invariants.py``.

Every game: the whole record refereed (deal, auction, exchange, every play under its follow
rule, every point and score, the end). Every ``--step-checks``-th game: card conservation, hand
sizes and legal plays after every action. Every ``--replay-every``-th game: replay of its record
and a JSON round trip give the same record. Exits 1 on the first failure, printing how to
reproduce it. Run: ``nice -n 10 python -m bench.soak --games 100000 --seed 0``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from collections import Counter

from pitch_env import Game, game_record, replay, rules
from pitch_env.rules import PRESET_PLAYERS

from bench.invariants import check_record, check_state

# Options a soak game may change, and the values it draws from (invalid mixes are redrawn).
OPTION_CHOICES = {
    "low_to": ("holder", "capturer"),
    "shoot": ("none", "dealer_double", "moon"),
    "all_pass": ("redeal", "stick_dealer"),
    "dealer_may_steal": (False, True),
    "win_rule": ("first_to_target", "pitcher_only"),
    "made_scores": ("points_won", "bid"),
    "target_score": (1, 5, 11, 21, 52),
    "first_dealer": (0, 1, "random"),
    "off_jack": (False, True),
    "trump_by": ("first_lead", "declare"),
    "follow": ("any", "follow_or_trump", "trumps_only"),
    "max_hands": (1, 20, 200),
}


def configs() -> list[tuple[str, int, bool]]:
    """(variant, players, partnerships) for every allowed combination."""
    out = []
    for variant, counts in PRESET_PLAYERS.items():
        for n in counts:
            for partnerships in ((False, True) if n in (4, 6) else (False,)):
                out.append((variant, n, partnerships))
    return out


def draw_game(rng: random.Random, vary: float) -> tuple[str, dict]:
    """A preset, then a player count, then a partnership setting, each uniformly; with
    probability ``vary`` also up to four random option overrides that the rules accept."""
    variant = rng.choice(tuple(PRESET_PLAYERS))
    n = rng.choice(PRESET_PLAYERS[variant])
    options = {"num_players": n, "partnerships": rng.choice((False, True)) if n in (4, 6) else False}
    if rng.random() < vary:
        for _ in range(100):
            extra = {k: rng.choice(OPTION_CHOICES[k]) for k in rng.sample(sorted(OPTION_CHOICES), rng.randint(1, 4))}
            try:
                rules(variant, **options, **extra)
            except ValueError:
                continue
            options.update(extra)
            break
    return variant, options


def play(variant: str, options: dict, seed: int, step_checks: bool) -> Game:
    g = Game(variant, seed=seed, **options)
    rng = random.Random(seed)
    while not g.is_over:
        if step_checks:
            check_state(g)
        g.apply(rng.choice(g.legal_actions()))
    check_state(g)
    return g


def check_replay(g: Game) -> None:
    record = game_record(g)
    assert game_record(replay(record)) == record, "replay gives a different record"
    loaded = json.loads(json.dumps(record))
    assert loaded == record, "the record does not survive a JSON round trip"
    assert game_record(replay(loaded)) == record, "replay of the JSON record differs"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=100_000, help="games to play (default 100000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the whole run; game i uses seed*10**9 + i")
    p.add_argument("--vary", type=float, default=0.25, help="share of games with random option overrides")
    p.add_argument("--step-checks", type=int, default=20, help="check the state after every action of every Nth game")
    p.add_argument("--replay-every", type=int, default=50, help="replay and JSON round-trip every Nth game")
    p.add_argument("--progress", type=int, default=10_000, help="print a progress line every N games")
    args = p.parse_args(argv)

    rng = random.Random(args.seed)
    totals = Counter()
    by_config = Counter()
    start = time.perf_counter()
    for i in range(args.games):
        variant, options = draw_game(rng, args.vary)
        seed = args.seed * 10**9 + i
        try:
            g = play(variant, options, seed, step_checks=i % args.step_checks == 0)
            record = game_record(g)
            check_record(record)
            if i % args.replay_every == 0:
                check_replay(g)
                totals["replayed"] += 1
        except Exception:
            traceback.print_exc()
            print(f"\nFAILED game {i}: Game({variant!r}, seed={seed}, **{options!r}) "
                  f"played with random.Random({seed}) choosing each action", file=sys.stderr)
            return 1
        totals["games"] += 1
        totals["hands"] += g.hand_number
        totals["actions"] += sum(len(h["bids"]) + sum(len(t["plays"]) for t in h["tricks"]) for h in record["hands"])
        totals["truncated"] += g.truncated
        totals["varied"] += len(options) > 2
        totals["step_checked"] += i % args.step_checks == 0
        by_config[(variant, options["num_players"], options["partnerships"])] += 1
        if args.progress and (i + 1) % args.progress == 0:
            rate = (i + 1) / (time.perf_counter() - start)
            print(f"  {i + 1} games, {rate:.1f} games/s", flush=True)
    seconds = time.perf_counter() - start
    print(f"soak: {totals['games']} games in {seconds:.1f} s = {totals['games'] / seconds:.1f} games/s, "
          f"{totals['hands']} hands, {totals['actions']} bids and plays "
          f"({totals['actions'] / seconds:.0f}/s with the checks)")
    print(f"  every record refereed; {totals['step_checked']} games checked after every action; "
          f"{totals['replayed']} replayed + JSON round trip; {totals['varied']} with option overrides; "
          f"{totals['truncated']} truncated at max_hands")
    for (variant, n, partnerships), count in sorted(by_config.items()):
        print(f"  {variant:9} {n} players {'partnerships' if partnerships else 'solo':12} {count:7} games")
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
