"""The ``pitch tournament``, ``pitch play`` and ``pitch replay`` subcommands (registered by pitch_cli.py)."""

from __future__ import annotations

import random
import sys

import pitch_env
from pitch_env.record import FORMAT, load_record, save_record
from pitch_env.render import render_hand, render_record


def register(subparsers) -> None:
    p = subparsers.add_parser("tournament", help="duplicate-deal tournament between agents",
                              description="Play the same seeded deals with the agents rotated through every "
                                          "seat (teams swapped in partnerships) and report win rates with "
                                          "Wilson 95%% intervals.")
    _rules_args(p)
    p.add_argument("--agents", required=True, help="comma-separated agent specs: random, heuristic, pimc:N, "
                                                   "checkpoint:PATH (e.g. pimc:8,heuristic)")
    p.add_argument("--games", type=int, default=200, help="games to play (rounded up to whole duplicate sets)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents (default 0)")
    p.add_argument("--workers", type=int, default=1, help="processes (results do not depend on it)")
    p.add_argument("--json", metavar="FILE", help="write the full result (every game) as JSON")
    p.add_argument("--csv", metavar="FILE", help="write the per-agent table as CSV")
    p.add_argument("--plot", metavar="FILE", help="write a PNG bar chart of the win rates")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_tournament)

    p = subparsers.add_parser("play", help="play a game in the terminal against agents")
    _rules_args(p)
    p.add_argument("--opponents", default="heuristic",
                   help="one spec for every other seat, or one per other seat in seat order (default heuristic)")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 deals first)")
    p.add_argument("--seed", type=int, default=None, help="seed of the deals (default: random, printed)")
    p.add_argument("--save", metavar="FILE", help="save the game record (JSON) when the game ends or you quit")
    p.set_defaults(func=cmd_play)

    p = subparsers.add_parser("replay", help="show a saved game record hand by hand")
    p.add_argument("file", help="a JSON game record (pitch play --save, env.unwrapped.game_record())")
    p.add_argument("--hand", type=int, default=None, help="show only this hand (1 is the first)")
    p.set_defaults(func=cmd_replay)


def _rules_args(p) -> None:
    p.add_argument("--variant", default="setback", choices=pitch_env.variants(), help="rule preset (default setback)")
    p.add_argument("--num-players", type=int, default=None, help="players (default: the preset's)")
    team = p.add_mutually_exclusive_group()
    team.add_argument("--partnerships", dest="partnerships", action="store_true", default=None,
                      help="partners sit opposite (4 or 6 players)")
    team.add_argument("--solo", dest="partnerships", action="store_false", help="every seat for itself")
    p.add_argument("--rule", action="append", default=[], metavar="OPTION=VALUE",
                   help="change any rules option of RULES.md, e.g. --rule target_score=21 (repeatable)")


def _rules_options(args) -> dict:
    options = {}
    if args.num_players is not None:
        options["num_players"] = args.num_players
    if args.partnerships is not None:
        options["partnerships"] = args.partnerships
    for item in args.rule:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--rule {item!r}: write OPTION=VALUE, e.g. --rule target_score=21")
        options[key.strip()] = _value(value.strip())
    return options


def _value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    try:
        return int(text)
    except ValueError:
        return text


def _fail(message: str) -> int:
    print(f"pitch: {message}", file=sys.stderr)
    return 2


# ---------------------------------------------------------------- tournament
def cmd_tournament(args) -> int:
    from . import report
    from .tournament import run_tournament

    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    try:
        options = _rules_options(args)
        pitch_env.rules(args.variant, **options)
        if args.games < 1:
            raise ValueError(f"--games {args.games}: play at least 1 game")
        _check_specs(args.variant, options, specs)
    except ValueError as e:
        return _fail(str(e))
    result = run_tournament(args.variant, specs, games=args.games, seed=args.seed, workers=args.workers,
                            progress=not args.quiet, **options)
    report.print_result(result)
    if args.json:
        report.write_json(result, args.json)
    if args.csv:
        report.write_csv(result, args.csv)
    if args.plot:
        report.write_plot(result, args.plot)
    return 0


def _check_specs(variant: str, options: dict, specs: list[str]) -> None:
    """Build each agent once up front, so a bad spec fails before any game is played."""
    from . import make

    if not specs:
        raise ValueError("--agents is empty: give specs such as heuristic,random")
    if "human" in specs:
        raise ValueError("a tournament cannot seat 'human': use pitch play")
    env = pitch_env.env(variant, **options)
    for spec in specs:
        make(spec, env)


# ---------------------------------------------------------------- play
def cmd_play(args, read=input, write=print) -> int:
    from . import make
    from .human import HumanAgent, QuitGame

    try:
        options = _rules_options(args)
        env = pitch_env.env(args.variant, infoset=True, **options)
    except ValueError as e:
        return _fail(str(e))
    raw = env.unwrapped
    n = raw.rules.num_players
    if not 0 <= args.seat < n:
        return _fail(f"--seat {args.seat}: choose a seat from 0 to {n - 1}")
    specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
    if len(specs) == 1:
        specs = specs * (n - 1)
    if len(specs) != n - 1 or "human" in specs:
        return _fail(f"--opponents {args.opponents!r}: give one agent spec for all {n - 1} other seats, "
                     f"or {n - 1} specs in seat order (not 'human')")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    players, labels = {}, {}
    others = iter(specs)
    try:
        for s in range(n):
            if s == args.seat:
                players[s], labels[s] = HumanAgent(env, read=read, write=write), "you"
            else:
                spec = next(others)
                players[s], labels[s] = make(spec, env, seed=seed * 100 + s), spec
    except ValueError as e:
        return _fail(str(e))
    env.reset(seed=seed)
    for p in players.values():
        p.reset()
    write(_intro(raw.rules, labels, args.seat, seed, args.variant))
    shown = 0
    try:
        for name in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = raw.agent_name_mapping[name]
            action = players[seat].act(obs, info)
            if seat != args.seat:
                write(_public_move(seat, labels[seat], raw.action_name(action)))
            env.step(action)
            shown = _show_finished_hands(raw.game_record(), shown, write)
    except QuitGame:
        write("\nGame stopped.")
        _save(raw, args.save, write)
        return 0
    record = raw.game_record()
    if record["winner"] is not None:
        sides = record["sides"]
        who = "Your side wins" if args.seat in sides[record["winner"]] else f"Side {record['winner']} wins"
        write(f"\n{who}! Final scores {record['final_scores']}.")
    else:
        write(f"\nThe game was truncated after {len(record['hands'])} hands; scores {record['final_scores']}.")
    _save(raw, args.save, write)
    return 0


def _intro(rules, labels, seat, seed, variant) -> str:
    sides = rules.sides
    lines = [f"{variant}: {rules.num_players} players{' in partnerships' if rules.partnerships else ', each for themselves'}, "
             f"to {rules.target_score}; seed {seed} (replay these deals with --seed {seed})."]
    for side, seats in enumerate(sides):
        lines.append(f"  side {side}: " + ", ".join(f"seat {s} ({labels[s]})" for s in seats))
    lines.append(f"You are seat {seat}. Type a move's number or its name (e.g. 'bid 2', 'play AS', or just 'AS').")
    return "\n".join(lines)


def _public_move(seat: int, label: str, action: str) -> str:
    # A discard is seen only by the seat that made it.
    shown = "discards a card" if action.startswith("discard") else action
    return f"  seat {seat} ({label}): {shown}"


def _show_finished_hands(record: dict, shown: int, write) -> int:
    done = len(record["hands"]) - (0 if record["winner"] is not None or record["truncated"] else 1)
    for h in record["hands"][shown:done]:
        write(_hand_result(record, h))
    return max(shown, done)


def _hand_result(record: dict, h: dict) -> str:
    lines = [f"\n== Hand {h['number']} result =="]
    if h["pitcher"] is None:
        lines.append("  everybody passed: the hand is thrown in")
        return "\n".join(lines)
    lines.append(f"  pitcher seat {h['pitcher']}, contract {h['contract']}, trump {h['trump']}")
    for a in h["awards"]:
        what = a["point"] if a["card"] is None else f"{a['point']} {a['card']}"
        who = f"seat {a['seat']}, " if a["seat"] is not None else ""
        lines.append(f"  + {what}: {who}side {a['side']} (+{a['value']})")
    lines.append(f"  points won {h['points_won']}; bid {'made' if h['made'] else 'SET'}; "
                 f"change {h['score_change']} → scores {h['scores']}")
    return "\n".join(lines)


def _save(raw, path, write) -> None:
    if path:
        save_record(raw.game_record(), path)
        write(f"Record saved to {path} (pitch replay {path}).")


# ---------------------------------------------------------------- replay
def cmd_replay(args) -> int:
    try:
        record = load_record(args.file)
    except FileNotFoundError:
        return _fail(f"no such file: {args.file}")
    except ValueError as e:
        return _fail(str(e))
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        found = record.get("format") if isinstance(record, dict) else type(record).__name__
        return _fail(f"{args.file} is not a pitch game record: format {found!r}, expected {FORMAT!r}")
    if args.hand is None:
        print(render_record(record))
        return 0
    hands = record["hands"]
    if not 1 <= args.hand <= len(hands):
        return _fail(f"--hand {args.hand}: the record has hands 1 to {len(hands)}")
    print(render_hand(record, hands[args.hand - 1]))
    return 0
