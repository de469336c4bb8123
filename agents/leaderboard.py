"""``pitch leaderboard``: every baseline and shipped agent of a game against every other, each pair a
duplicate tournament (agents/tournament.py) with its own resumable results file, then a markdown table
of the pairs' win rates (Wilson 95%), OpenSkill ratings over all the games, and a chart.
"""

from __future__ import annotations

import itertools
import json
import os
import platform
import random
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pitch_env

from .stats import Rating, openskill_ratings, wilson
from .tournament import game_ranks, run_tournament

BASELINES = ("random", "heuristic", "pimc:12")
FORMAT = "pitch-leaderboard/1"
MANIFEST = "leaderboard.json"
ORDERS = 10  # shuffles of the games the ratings are averaged over

DESCRIPTION = (
    "Play every baseline (random, heuristic, pimc:12) and every shipped agent of the game "
    "(checkpoint:NAME for each folder of checkpoints/ made for that variant) against every other in "
    "duplicate tournaments, and write DIR/leaderboard.md (each pair's win rate with its Wilson 95% "
    "interval, an OpenSkill rating per agent with its uncertainty) and a chart, DIR/leaderboard_VARIANT.png. "
    "Every finished deal is kept in DIR/games/, so a stopped leaderboard continues where it stopped "
    "when the same command runs again.")
EXAMPLE = "example: pitch leaderboard --variant setback --games 200 --out runs/leaderboard_setback"


@dataclass
class Pair:
    """The tournament of agents ``a`` and ``b`` (indices into the leaderboard's agents)."""
    a: int
    b: int
    games: int
    wins: int  # a's
    losses: int  # b's wins; the rest were truncated
    planned: int

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)


@dataclass
class Leaderboard:
    variant: str
    seed: int
    games: int  # asked for per pair
    agents: list[str]
    pairs: list[Pair]
    ratings: list[Rating]
    custom_agents: bool = False
    interrupted: bool = False
    wall_s: float = 0.0
    totals: list[tuple[int, int]] = field(default_factory=list)  # (games, wins) per agent

    @property
    def complete(self) -> bool:
        n = len(self.agents)
        return len(self.pairs) == n * (n - 1) // 2 and all(p.games >= p.planned for p in self.pairs)


def entrants(variant: str) -> list[str]:
    """The baselines, then ``checkpoint:NAME`` for each shipped agent whose card says ``variant``."""
    from pitch_policy import read_policy

    from .checkpoint import SHIPPED_DIR, shipped_names

    shipped = [n for n in shipped_names() if read_policy(SHIPPED_DIR / n)[1].get("variant") == variant]
    return [*BASELINES, *(f"checkpoint:{n}" for n in shipped)]


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", spec)


def _claim(out: Path, variant: str, seed: int) -> None:
    """DIR holds one leaderboard's games: refuse a folder another variant or seed wrote into."""
    path = out / MANIFEST
    mine = {"format": FORMAT, "variant": variant, "seed": seed}
    if path.exists():
        try:
            theirs = json.loads(path.read_text())
        except (OSError, ValueError, RecursionError):
            raise ValueError(f"--out {out}: {MANIFEST} there is unreadable; choose another folder or delete it") from None
        if not isinstance(theirs, dict):
            theirs = {}
        if {k: theirs.get(k) for k in mine} != mine:
            got = theirs.get("variant"), theirs.get("seed")
            raise ValueError(f"--out {out} holds the leaderboard of variant {got[0]!r} with --seed {got[1]!r}: "
                             "rerun with those to continue it, or choose another folder")
        return
    tmp = out / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(mine) + "\n")
    os.replace(tmp, path)


def run_leaderboard(variant: str, agents: list[str] | None = None, games: int = 200, seed: int = 0,
                    workers: int = 1, out: str | Path = "runs/leaderboard", say=None) -> Leaderboard:
    """Play every pair of ``agents`` (default: ``entrants(variant)``) for ``games`` duplicate games each.

    The games of each pair go to ``out/games/A--B.jsonl`` as they finish, and pairs already played
    there are read back, not replayed: the result depends only on the arguments. Ctrl-C stops after
    the deals finished so far (``interrupted``). ``say(line)`` hears one line per pair.
    """
    custom = agents is not None
    agents = list(agents) if custom else entrants(variant)
    out = Path(out)
    (out / "games").mkdir(parents=True, exist_ok=True)
    _claim(out, variant, seed)
    schedule = list(itertools.combinations(range(len(agents)), 2))
    pairs, matches, interrupted = [], [], False
    totals = [[0, 0] for _ in agents]
    start = time.perf_counter()
    try:
        for n, (i, j) in enumerate(schedule, 1):
            t0 = time.perf_counter()
            path = out / "games" / f"{_slug(agents[i])}--{_slug(agents[j])}.jsonl"
            r = run_tournament(variant, [agents[i], agents[j]], games=games, seed=seed, workers=workers,
                               results=str(path), resume=True)
            a, b = r.stats
            pairs.append(Pair(i, j, r.config["games"], a.wins, b.wins, r.config["planned_games"]))
            for k, s in ((i, a), (j, b)):
                totals[k][0] += s.games
                totals[k][1] += s.wins
            index = (i, j)
            matches += [((g.deal, g.rotation, n), [(index[x], rank) for x, rank in game_ranks(g)]) for g in r.games]
            if say:
                low, high = pairs[-1].interval()
                say(f"[{n}/{len(schedule)}] {agents[i]} vs {agents[j]}: {a.wins} of {a.games} won "
                    f"({a.win_rate:.1%} [{low:.1%}, {high:.1%}]), {time.perf_counter() - t0:.0f} s")
            if r.interrupted:
                interrupted = True
                break
    except KeyboardInterrupt:  # between two pairs, or while a pair's agents were being built
        interrupted = True
    return Leaderboard(variant, seed, games, agents, pairs, ratings(agents, matches), custom,
                       interrupted, time.perf_counter() - start, [tuple(t) for t in totals])


def ratings(agents: list[str], matches) -> list[Rating]:
    """OpenSkill ratings of the games ``matches`` (``(key, match)`` pairs), without skill drift (an
    agent's skill does not change), averaged over ORDERS fixed shuffles of the games: one pass rates
    an agent by the order it met the others in (who met random first gained the most)."""
    games = [m for _, m in sorted(matches, key=lambda m: m[0])]
    passes = [openskill_ratings(agents, random.Random(f"pitch-leaderboard:{k}").sample(games, len(games)), tau=0.0)
              for k in range(ORDERS)]
    return [Rating(name, sum(p[k].mu for p in passes) / ORDERS, sum(p[k].sigma for p in passes) / ORDERS)
            for k, name in enumerate(agents)]


# ---------------------------------------------------------------- presenting it
def command(board: Leaderboard) -> str:
    text = f"pitch leaderboard --variant {board.variant} --games {board.games} --seed {board.seed}"
    return text + (f" --agents {','.join(board.agents)}" if board.custom_agents else "")


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPU cores ({cpu})"


def chart_name(variant: str) -> str:
    return f"leaderboard_{variant}.png"


def markdown(board: Leaderboard, played: str = "") -> str:
    """The leaderboard as markdown: ratings, then the pairs' win rates. ``played``: a line saying when
    and where (kept apart so the tables of a resumed run compare equal to an uninterrupted one's)."""
    rules = pitch_env.rules(board.variant)
    seating = ("partners sit opposite, the teams swapped on each deal" if rules.partnerships else
               "each agent holds two alternating seats, the seats swapped on each deal")
    per_pair = sorted({p.games for p in board.pairs}) or [0]
    lines = [f"## {board.variant}", "",
             f"`{command(board)}`: {len(board.agents)} agents, {per_pair[-1]:,} games per pair "
             f"({rules.num_players} players, {seating}), seed {board.seed}.", ""]
    if played:
        lines += [played, ""]
    if not board.complete:
        lines += [f"**Incomplete**: {sum(p.games for p in board.pairs):,} games of "
                  f"{board.games * len(board.agents) * (len(board.agents) - 1) // 2:,} planned; run the "
                  "command again to finish it.", ""]
    lines += ["| rank | agent | rating (μ − 3σ) | μ ± σ | games | won [95% Wilson] |", "|---|---|---|---|---|---|"]
    order = sorted(range(len(board.agents)), key=lambda k: -board.ratings[k].ordinal)
    for rank, k in enumerate(order, 1):
        r, (g, w) = board.ratings[k], board.totals[k]
        low, high = wilson(w, g)
        lines.append(f"| {rank} | `{board.agents[k]}` | {r.ordinal:.2f} | {r.mu:.2f} ± {r.sigma:.2f} | {g:,} | "
                     f"{_pct(w / g if g else 0)} [{_pct(low)}–{_pct(high)}] |")
    lines += ["", "Rating: OpenSkill (Plackett-Luce, no skill drift) over every game of every pair, a game "
              f"ranking its winner first (a truncated game: by score margin), averaged over {ORDERS} fixed orders "
              "of the games, since one pass depends on the order; ranked by μ − 3σ.", "",
              "Each cell: the row agent's win rate against the column agent [95% Wilson interval].", ""]
    cell = {}
    for p in board.pairs:
        low, high = p.interval()
        cell[p.a, p.b] = f"{_pct(p.rate)} [{_pct(low)}–{_pct(high)}]"
        if p.games:
            lo2, hi2 = wilson(p.losses, p.games)
            cell[p.b, p.a] = f"{_pct(p.losses / p.games)} [{_pct(lo2)}–{_pct(hi2)}]"
    lines.append("| | " + " | ".join(f"`{board.agents[k]}`" for k in order) + " |")
    lines.append("|---" * (len(order) + 1) + "|")
    for r in order:
        lines.append(f"| `{board.agents[r]}` | " + " | ".join("—" if r == c else cell.get((r, c), "not played")
                                                           for c in order) + " |")
    lines += ["", f"![{board.variant} leaderboard]({chart_name(board.variant)})", ""]
    return "\n".join(lines)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def write_chart(board: Leaderboard, path) -> None:
    """Two panels: the pairs' win rates as a heat map, and each agent's rating with ±2σ whiskers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(board.agents)
    order = sorted(range(n), key=lambda k: -board.ratings[k].ordinal)
    names = [board.agents[k] for k in order]
    grid = [[float("nan")] * n for _ in range(n)]
    for p in board.pairs:
        if p.games:
            ra, rb = order.index(p.a), order.index(p.b)
            grid[ra][rb], grid[rb][ra] = p.wins / p.games, p.losses / p.games
    fig, (heat, bars) = plt.subplots(1, 2, figsize=(7 + 1.3 * n, 1.2 + 0.75 * n),
                                     gridspec_kw={"width_ratios": [1.25, 1]})
    image = heat.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    heat.set_xticks(range(n), names, rotation=35, ha="right", fontsize=9)
    heat.set_yticks(range(n), names, fontsize=9)
    for r in range(n):
        for c in range(n):
            if grid[r][c] == grid[r][c]:  # not NaN
                heat.text(c, r, f"{100 * grid[r][c]:.0f}", ha="center", va="center", fontsize=9,
                          color="white" if abs(grid[r][c] - 0.5) > 0.3 else "black")
    heat.set_title("row's win rate vs column (%)", fontsize=10)
    fig.colorbar(image, ax=heat, fraction=0.046, pad=0.04)
    mus = [board.ratings[k].mu for k in order]
    sigmas = [2 * board.ratings[k].sigma for k in order]
    bars.barh(range(n), mus, xerr=sigmas, capsize=4, color="#4c72b0")
    bars.set_yticks(range(n), names, fontsize=9)
    bars.invert_yaxis()
    bars.set_xlabel("OpenSkill μ (whiskers ±2σ)")
    bars.set_title("rating", fontsize=10)
    per_pair = max((p.games for p in board.pairs), default=0)
    fig.suptitle(f"{board.variant}: {per_pair:,} duplicate games per pair, seed {board.seed}", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def write_outputs(board: Leaderboard, out: Path) -> Path:
    # The games may have been played over several resumed runs: the wall time of this one alone says little.
    played = f"Played {time.strftime('%Y-%m-%d', time.gmtime())} on {machine()}."
    from pitch_env.files import atomic_write

    md, text = out / "leaderboard.md", markdown(board, played)
    # Renamed into place: a kill while writing leaves the last complete table and chart, never half of one.
    atomic_write(md, lambda tmp: Path(tmp).write_text(text))
    atomic_write(out / chart_name(board.variant), lambda tmp: write_chart(board, tmp))
    return md


# ---------------------------------------------------------------- the subcommand
def register(subparsers, formatter) -> None:
    p = subparsers.add_parser("leaderboard", help="every baseline and shipped agent against every other: table "
                              "and chart", formatter_class=formatter, description=DESCRIPTION, epilog=EXAMPLE)
    p.add_argument("--variant", default="setback", choices=pitch_env.variants(), help="rule preset")
    p.add_argument("--games", type=int, default=200, help="games per pair (rounded up to whole duplicate sets)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    p.add_argument("--workers", type=int, default=1, help="processes (results do not depend on it)")
    p.add_argument("--out", metavar="DIR", default=None, help="folder for the table, the chart and the games "
                   "(default: runs/leaderboard_VARIANT)")
    p.add_argument("--agents", default=None, help="comma-separated agent specs instead of the baselines and "
                   "shipped agents, e.g. random,heuristic")
    p.set_defaults(func=cmd_leaderboard)


def cmd_leaderboard(args) -> int:
    from .cli_checks import check_counts, check_specs, fail, split_specs, term_as_interrupt
    from .workers import WorkerDied

    out = Path(args.out or f"runs/leaderboard_{args.variant}")
    try:
        check_counts(args.games, args.workers, " per pair")
        specs = split_specs(args.agents) if args.agents is not None else entrants(args.variant)
        twice = sorted({s for s in specs if specs.count(s) > 1})
        if twice:
            raise ValueError(f"--agents lists {', '.join(twice)} more than once: name each agent once")
        if len(specs) < 2:
            raise ValueError(f"--agents {args.agents!r}: a leaderboard needs at least two agents")
        if out.exists() and not out.is_dir():
            raise ValueError(f"--out {out}: is a file; give a folder")
        try:
            (out / "games").mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(f"--out {out}: cannot create it ({e.strerror}); choose another folder") from None
        check_specs(pitch_env.rules(args.variant), specs)
        with term_as_interrupt():
            board = run_leaderboard(args.variant, specs if args.agents is not None else None, args.games,
                                    args.seed, args.workers, out, say=lambda line: print(line, flush=True))
    except ValueError as e:
        return fail(str(e))
    except KeyboardInterrupt:
        return fail("interrupted before the first game; run the same command again")
    except WorkerDied as e:
        return fail(f"{e}; the games played so far are kept in {out}/games: run the same command again to go on")
    try:
        md = write_outputs(board, out)
    except OSError as e:
        return fail(f"could not write the leaderboard into {out}: {e}")
    print(md.read_text())
    print(f"Wrote {md} and {out / chart_name(board.variant)}.")
    if board.interrupted:
        print(f"Interrupted: {sum(p.games for p in board.pairs):,} games played so far are kept in {out}/games; "
              "run the same command again to continue.", file=sys.stderr)
        return 130
    return 0
