"""Presenting a TournamentResult: a rich table, JSON, CSV and a bar chart of win rates (matplotlib, Agg)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from .tournament import TournamentResult

COLUMNS = ("name", "games", "wins", "win_rate", "win_low", "win_high", "mean_margin", "points_per_hand",
           "bids_made", "pitched", "think_s_per_game", "ms_per_decision")


def table(result: TournamentResult):
    from rich.table import Table

    c = result.config
    t = Table(title=f"{c['variant']} · {c['rules']['num_players']} players"
                    f"{' in partnerships' if c['rules']['partnerships'] else ' solo'} · {c['games']} games "
                    f"({c['deals']} deals × {len(c['rotations'])} seatings) · seed {c['seed']}")
    for head in ("agent", "games", "won", "win rate [95% Wilson]", "margin", "pts/hand", "bids made", "CPU s/game"):
        t.add_column(head, justify="left" if head == "agent" else "right")
    for s in result.stats:
        t.add_row(s.name, str(s.games), str(s.wins), f"{s.win_rate:.1%} [{s.win_low:.1%}, {s.win_high:.1%}]",
                  f"{s.mean_margin:+.2f}", f"{s.points_per_hand:.3f}",
                  f"{s.bids_made:.1%} of {s.pitched}", f"{s.think_s_per_game:.3f}")
    return t


def ratings_table(result: TournamentResult):
    from rich.table import Table

    t = Table(title="OpenSkill (Plackett-Luce) ratings, ordinal = mu - 3 sigma")
    for head in ("agent", "ordinal", "mu", "sigma"):
        t.add_column(head, justify="left" if head == "agent" else "right")
    for r in sorted(result.ratings, key=lambda r: -r.ordinal):
        t.add_row(r.name, f"{r.ordinal:.2f}", f"{r.mu:.2f}", f"{r.sigma:.2f}")
    return t


def print_result(result: TournamentResult, console=None) -> None:
    from rich.console import Console

    if console is None:
        console = Console()
        if not console.is_terminal:  # logs and pipes: wide enough that the table never wraps
            console = Console(width=140)
    console.print(table(result))
    if result.ratings:
        console.print(ratings_table(result))
    console.print(f"truncated games (won by nobody): {result.truncated}; wall time {result.wall_s:.1f} s")


def write_json(result: TournamentResult, path) -> None:
    Path(path).write_text(json.dumps(result.as_dict(), indent=1))


def write_csv(result: TournamentResult, path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for s in result.stats:
            w.writerow([getattr(s, k) for k in COLUMNS])


def write_plot(result: TournamentResult, path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [s.name for s in result.stats]
    rates = [s.win_rate for s in result.stats]
    # (clamped: rounding can put a 0% or 100% rate a hair outside its own interval)
    errors = [[max(0.0, s.win_rate - s.win_low) for s in result.stats],
              [max(0.0, s.win_high - s.win_rate) for s in result.stats]]
    fig, ax = plt.subplots(figsize=(max(4, 1.5 * len(names)), 3.5))
    ax.bar(names, rates, yerr=errors, capsize=6, color="#4c72b0")
    ax.set_ylim(0, 1)
    ax.set_ylabel("games won (95% Wilson interval)")
    c = result.config
    ax.set_title(f"{c['variant']}, {c['games']} duplicate games, seed {c['seed']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
