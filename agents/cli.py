"""The ``pitch tournament``, ``pitch play`` and ``pitch replay`` subcommands (registered by pitch_cli.py)."""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
from pathlib import Path

import pitch_env
from pitch_env.record import RecordError, load_record, save_record
from pitch_env.replay import replay
from pitch_env.render import render_hand, render_record

from .base import turns
from .cli_checks import check_counts, check_output_path, check_specs, fail, split_specs, term_as_interrupt
from .checkpoint import strongest
from .workers import WorkerDied


class _Help(argparse.HelpFormatter):
    """Shows each option's default, except flags and options whose default is "not given"."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "default" in text or action.nargs == 0 or action.default in (None, [], argparse.SUPPRESS):
            return text
        return text + " (default: %(default)s)"


TOURNAMENT_DESCRIPTION = (
    "Play the same seeded deals with the agents rotated through every seat (teams swapped in partnerships) "
    "and report win rates with Wilson 95% intervals. With --results every finished game is appended to a "
    "file, so a killed tournament resumes where it stopped; Ctrl-C reports the games played so far.")

PLAY_DESCRIPTION = (
    "Play one game at one seat against agents, move by move. The screen explains the card notation; "
    "'?' lists your legal moves, 'quit' (or Ctrl-D, Ctrl-C) stops and saves the game so far with --save.")

REPLAY_DESCRIPTION = (
    "Print a saved game record (pitch play --save, env.unwrapped.game_record()) hand by hand: the deal, "
    "the auction, every trick and the points of each hand.")


def register(subparsers) -> None:
    fmt = _Help
    p = subparsers.add_parser("tournament", help="duplicate-deal tournament between agents", formatter_class=fmt,
                              description=TOURNAMENT_DESCRIPTION)
    _rules_args(p)
    p.add_argument("--agents", required=True,
                   help="comma-separated agent specs: random, heuristic, pimc:N (N sampled worlds per move), "
                        "pimc:N:B (also B worlds per bid), pimcnet:N:PATH, checkpoint:PATH, split:BIDS+PLAY (one agent's "
                        "bids, another's play); e.g. pimc:8,heuristic")
    p.add_argument("--games", type=int, default=200, help="games to play (rounded up to whole duplicate sets)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    p.add_argument("--workers", type=int, default=1, help="processes (results do not depend on it)")
    p.add_argument("--results", metavar="FILE",
                   help="append every finished game to this JSON-lines file; rerun with --resume to finish it")
    p.add_argument("--resume", action="store_true",
                   help="continue the tournament in --results FILE, skipping the games already in it")
    p.add_argument("--json", metavar="FILE", help="write the full result (every game) as JSON")
    p.add_argument("--csv", metavar="FILE", help="write the per-agent table as CSV")
    p.add_argument("--plot", metavar="FILE", help="write a PNG bar chart of the win rates")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--html", metavar="DIR", help="write web pages of some games to watch, and DIR/index.html")
    p.add_argument("--html-games", type=int, default=4, help="games --html shows: the first ones played")
    p.set_defaults(func=cmd_tournament)

    p = subparsers.add_parser("play", help="play a game in the terminal against agents", formatter_class=fmt,
                              description=PLAY_DESCRIPTION)
    _rules_args(p)
    p.add_argument("--opponents", default=None,
                   help="one spec for every other seat, or one per other seat in seat order "
                        "(random, heuristic, pimc:N, pimc:N:B, checkpoint:PATH; default: the game's "
                        "strongest shipped agent (docs/leaderboard.md), or heuristic under changed rules)")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 deals first)")
    p.add_argument("--seed", type=int, default=None, help="seed of the deals (default: random, printed)")
    p.add_argument("--save", metavar="FILE", help="save the game record (JSON) when the game ends or you quit")
    p.set_defaults(func=cmd_play)

    p = subparsers.add_parser("replay", help="show a saved game record hand by hand", formatter_class=fmt,
                              description=REPLAY_DESCRIPTION)
    p.add_argument("file", help="a JSON game record (pitch play --save, env.unwrapped.game_record())")
    p.add_argument("--hand", type=int, default=None, help="show only this hand (1 is the first)")
    p.add_argument("--html", metavar="FILE", help="write the game as a web page to watch it move by move")
    p.set_defaults(func=cmd_replay)

    from .leaderboard import register as register_leaderboard

    register_leaderboard(subparsers, fmt)


def _rules_args(p) -> None:
    p.add_argument("--variant", default="setback", choices=pitch_env.variants(), help="rule preset")
    p.add_argument("--num-players", type=int, default=None, help="players (default: the preset's)")
    team = p.add_mutually_exclusive_group()
    team.add_argument("--partnerships", dest="partnerships", action="store_true", default=None,
                      help="partners sit opposite (4 or 6 players)")
    team.add_argument("--solo", dest="partnerships", action="store_false", help="every seat for itself")
    p.add_argument("--rule", action="append", default=[], metavar="OPTION=VALUE",
                   help="change any rules option of docs/rules.md, e.g. --rule target_score=21 (repeatable)")


def rules_of(args) -> pitch_env.Rules:
    """The Rules of ``--variant``, ``--num-players``, ``--partnerships``/``--solo`` and ``--rule``: built
    once here and passed as this one object to the env, the agents and the tournament."""
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
    return pitch_env.rules(args.variant, **options)


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


# ---------------------------------------------------------------- tournament
def cmd_tournament(args) -> int:
    from . import report
    from .tournament import run_tournament

    try:
        specs = split_specs(args.agents)
        rules = rules_of(args)
        check_counts(args.games, args.workers)
        if args.resume and not args.results:
            raise ValueError("--resume continues the tournament in --results FILE: give that file")
        # Before any game: an hour of play must not end at an unwritable path.
        for option in ("results", "json", "csv", "plot"):
            if getattr(args, option):
                check_output_path(getattr(args, option), f"--{option}")
        if args.html:
            from .tournament_html import MAX_PAGES, check_folder

            if not 1 <= args.html_games <= MAX_PAGES:
                raise ValueError(f"--html-games {args.html_games}: show 1 to {MAX_PAGES} games")
            check_folder(args.html)
        check_specs(rules, specs)
        with term_as_interrupt():
            result = run_tournament(rules, specs, games=args.games, seed=args.seed, workers=args.workers,
                                    progress=not args.quiet, results=args.results, resume=args.resume,
                                    keep_records=args.html_games if args.html else 0)
    except ValueError as e:
        return fail(str(e))
    except KeyboardInterrupt:  # while the agents were still being built: nothing played yet
        return fail("interrupted before the first game")
    except WorkerDied as e:
        return fail(f"{e}; " + ("the games played so far are in --results: rerun the same command with --resume "
                                "to finish" if args.results else "add --results FILE to keep the games as they finish"))
    report.print_result(result)
    try:
        if args.json:
            report.write_json(result, args.json)
        if args.csv:
            report.write_csv(result, args.csv)
        if args.plot:
            report.write_plot(result, args.plot)
        if args.html:
            from .tournament_html import write_pages

            index = write_pages(result, args.html)
            print(f"Games to watch: {index}" if index else "--html: this run played no game (all were in --results)")
    except OSError as e:
        return fail(f"could not write the report: {e}")
    if result.interrupted:
        again = ("rerun the same command with --resume to finish it" if args.results else
                 "add --results FILE next time to be able to resume")
        print(f"Interrupted: {result.config['games']} of {result.config['planned_games']} games played; {again}.",
              file=sys.stderr)
        return 130
    return 0


# ---------------------------------------------------------------- play
def cmd_play(args, read=input, write=print) -> int:
    from . import make, seats_human
    from .human import HumanAgent, InputLost, QuitGame

    try:
        rules = rules_of(args)
        env = pitch_env.env(rules, info_state=True)  # the opponents read the mover's info
        if args.save:
            check_output_path(args.save, "--save")
    except ValueError as e:
        return fail(str(e))
    raw = env.unwrapped
    n = raw.rules.num_players
    if not 0 <= args.seat < n:
        return fail(f"--seat {args.seat}: choose a seat from 0 to {n - 1}")
    if args.opponents is None:  # the game's strongest agent; it loads only for the preset's rules
        best = strongest(args.variant) if rules == pitch_env.rules(args.variant) else None
        args.opponents = best or "heuristic"
    specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
    if len(specs) == 1:
        specs = specs * (n - 1)
    if len(specs) != n - 1 or any(seats_human(s) for s in specs):
        return fail(f"--opponents {args.opponents!r}: give one agent spec for all {n - 1} other seats, "
                     f"or {n - 1} specs in seat order (not 'human')")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    players, labels = {}, {}
    others = iter(specs)
    try:
        for s in range(n):
            if s == args.seat:
                players[s], labels[s] = HumanAgent(env, read=read, write=write,
                                                   why=lambda a: raw.game.why_illegal(a)), "you"
            else:
                spec = next(others)
                players[s], labels[s] = make(spec, env, seed=seed * 100 + s), spec
    except ValueError as e:
        return fail(str(e))
    except KeyboardInterrupt:  # while an opponent was loading: there is no game to save yet
        return fail("interrupted before the game started")
    env.reset(seed=seed)
    for p in players.values():
        p.reset()
    write(_intro(rules, labels, args.seat, seed))
    shown = 0
    try:
        with term_as_interrupt():
            for name, obs, info in turns(env):
                seat = raw.agent_name_mapping[name]
                action = players[seat].act(obs, info)
                if seat != args.seat:
                    write(_public_move(seat, labels[seat], raw.action_name(action)))
                env.step(action)
                shown = _show_finished_hands(raw.game_record(), shown, write)
    except InputLost as e:  # stdin closed or gone: keep the game so far, then say why in one line
        _save(raw, args.save)
        return fail(f"{e}; the game stopped{_saved_to(args.save)}")
    except (QuitGame, KeyboardInterrupt):  # quit, Ctrl-D, Ctrl-C, kill or a closed terminal: keep the game so far
        _save(raw, args.save)  # first: a closed terminal may refuse every line written after
        _quiet(write)("\nGame stopped." + _saved_line(args.save))
        return 0
    record = raw.game_record()
    if record["winner"] is not None:
        sides = record["sides"]
        who = "Your side wins" if args.seat in sides[record["winner"]] else f"Side {record['winner']} wins"
        write(f"\n{who}! Final scores {record['final_scores']}.")
    else:
        write(f"\nThe game was truncated after {len(record['hands'])} hands; scores {record['final_scores']}.")
    _save(raw, args.save)
    write(_saved_line(args.save).strip())
    return 0


def _quiet(write):
    """``write`` that drops what a closed terminal (SIGHUP, EIO) or a closed pipe refuses."""
    def say(text):
        with contextlib.suppress(OSError, ValueError):
            write(text)

    return say


def _saved_to(path) -> str:
    return f" (saved to {path})" if path else " (not saved: add --save FILE to keep a game)"


def _saved_line(path) -> str:
    if path:
        return f"\nRecord saved to {path} (pitch replay {path})."
    return "\nNot saved: add --save FILE next time to keep the record (pitch replay FILE shows it)."


def _intro(rules, labels, seat, seed) -> str:
    from .human import NOTATION

    sides = rules.sides
    lines = [f"{rules.variant}: {rules.num_players} players{' in partnerships' if rules.partnerships else ', each for themselves'}, "
             f"to {rules.target_score}; seed {seed} (replay these deals with --seed {seed})."]
    for side, seats in enumerate(sides):
        lines.append(f"  side {side}: " + ", ".join(f"seat {s} ({labels[s]})" for s in seats))
    lines.append(NOTATION)
    lines.append(f"You are seat {seat}. Type a move's number or its name (e.g. 'bid 2', 'play AS', or just 'AS'); "
                 "'?' lists the moves again.")
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
    if h["tricks"]:
        t = h["tricks"][-1]
        lines.append("  last trick: " + " ".join(f"{s}:{c}" for s, c in t["plays"]) + f" → seat {t['winner']}")
    lines.append(f"  pitcher seat {h['pitcher']}, contract {h['contract']}, trump {h['trump']}")
    for a in h["awards"]:
        what = a["point"] if a["card"] is None else f"{a['point']} {a['card']}"
        who = f"seat {a['seat']}, " if a["seat"] is not None else ""
        lines.append(f"  + {what}: {who}side {a['side']} (+{a['value']})")
    lines.append(f"  points won {h['points_won']}; bid {'made' if h['made'] else 'SET'}; "
                 f"change {h['score_change']} → scores {h['scores']}")
    return "\n".join(lines)


def _save(raw, path) -> None:
    if path:
        # Written beside the target and renamed into place: a second Ctrl-C leaves no half file.
        tmp = Path(path).with_name(f".{Path(path).name}.tmp")
        save_record(raw.game_record(), tmp)
        os.replace(tmp, path)


# ---------------------------------------------------------------- replay
def cmd_replay(args) -> int:
    try:
        record = load_record(args.file)
    except RecordError as e:
        return fail(str(e))
    try:
        replay(record)  # every move legal, every winner, award and score what the rules give
    except RecordError as e:
        return fail(f"{args.file}: {e}")
    if args.html:
        return _replay_page(record, args.html)
    if args.hand is None:
        print(render_record(record))
        return 0
    hands = record["hands"]
    if not 1 <= args.hand <= len(hands):
        return fail(f"--hand {args.hand}: the record has hands 1 to {len(hands)}")
    print(render_hand(record, hands[args.hand - 1]))
    return 0


def _replay_page(record: dict, path) -> int:
    from pitch_env.html_page import write_page

    try:
        check_output_path(path, "--html")
        write_page(record, path)
    except ValueError as e:
        return fail(str(e))
    except OSError as e:
        return fail(f"--html {path}: could not write it ({e.strerror or e})")
    print(f"Wrote {path}: open it in a browser")
    return 0
