"""Presenting results: the one table style of the commands (rich), and a TournamentResult as a table, JSON,
CSV and a bar chart of win rates (matplotlib, Agg)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from .tournament import TournamentResult

COLUMNS = ("name", "games", "wins", "win_rate", "win_low", "win_high", "mean_margin", "points_per_hand",
           "bids_made", "pitched", "think_s_per_game", "ms_per_decision")


CAPTION = ("margin: the agent's side's final score minus the best other side's, mean per game. "
           "pts/hand: points its side won per hand played. bids made: the share of the hands its side "
           "pitched (won the auction) in which it made its bid, 'of N' such hands. CPU s/game: its thinking time.")


def render_table(title: str, headers, rows, caption: str | None = None):
    """The one table style of the commands (pitch tournament, make run): a rich Table, the first
    column left-aligned, the numbers right-aligned."""
    from rich.table import Table

    t = Table(title=title, caption=caption, caption_justify="left")
    for i, head in enumerate(headers):
        t.add_column(head, justify="left" if i == 0 else "right")
    for row in rows:
        t.add_row(*map(str, row))
    return t


def console():
    """A console for the tables: the terminal's, or wide enough that a table in a log or pipe never wraps."""
    from rich.console import Console

    c = Console()
    return c if c.is_terminal else Console(width=140)


def games_played(c: dict) -> str:
    """The games a result holds: after Ctrl-C, the games played of those planned."""
    planned = c.get("planned_games", c["games"])
    if c["games"] != planned:
        return f"{c['games']} of {planned} planned games (interrupted)"
    return f"{c['games']} games ({c['deals']} deals × {len(c['rotations'])} seatings)"


def table(result: TournamentResult):
    c = result.config
    title = (f"{c['variant']} · {c['rules']['num_players']} players"
             f"{' in partnerships' if c['rules']['partnerships'] else ' solo'} · {games_played(c)} · seed {c['seed']}")
    rows = [(s.name, s.games, s.wins, f"{s.win_rate:.1%} [{s.win_low:.1%}, {s.win_high:.1%}]", f"{s.mean_margin:+.2f}",
             f"{s.points_per_hand:.3f}", f"{s.bids_made:.1%} of {s.pitched}", f"{s.think_s_per_game:.3f}")
            for s in result.stats]
    return render_table(title, ("agent", "games", "won", "win rate [95% Wilson]", "margin", "pts/hand", "bids made",
                                "CPU s/game"), rows, CAPTION)


def ratings_table(result: TournamentResult):
    rows = [(r.name, f"{r.ordinal:.2f}", f"{r.mu:.2f}", f"{r.sigma:.2f}")
            for r in sorted(result.ratings, key=lambda r: -r.ordinal)]
    return render_table("OpenSkill (Plackett-Luce) ratings, ordinal = mu - 3 sigma", ("agent", "ordinal", "mu", "sigma"),
                        rows)


def print_result(result: TournamentResult, out=None) -> None:
    out = out or console()
    out.print(table(result))
    if result.ratings:
        out.print(ratings_table(result))
    out.print(f"truncated games (won by nobody): {result.truncated}; wall time {result.wall_s:.1f} s")
    if result.interrupted:
        c = result.config
        out.print(f"interrupted: these are the {c['games']} games finished before the stop (Ctrl-C or SIGTERM) "
                  f"(of {c.get('planned_games', c['games'])} planned)")


def fair_shares(result: TournamentResult) -> list[float]:
    """Each agent's win rate if all played alike: its share of the sides, averaged over its seatings."""
    c = result.config
    rules = result.rules
    shares = []
    for a in range(len(result.stats)):
        mine = []
        for seating in c["rotations"]:
            owners = {}
            for seat, x in enumerate(seating):
                owners.setdefault(rules.side_of(seat), set()).add(x)
            if a in seating:
                mine.append(sum(1 for o in owners.values() if o == {a}) / rules.num_sides)
        shares.append(sum(mine) / len(mine) if mine else 0.0)
    return shares


def write_json(result: TournamentResult, path) -> None:
    Path(path).write_text(json.dumps(result.as_dict(), indent=1))


def write_csv(result: TournamentResult, path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for s in result.stats:
            w.writerow([getattr(s, k) for k in COLUMNS])


LABEL_LINE, LABEL_MAX = 22, 48  # characters a chart label's line holds, and a whole label


def chart_label(name: str) -> str:
    """An agent's name as a bar's label: a long spec (a checkpoint path) keeps its start and its end
    (``checkpoint:runs/…/best.safetensors``), wrapped after ':' or '/' into lines of LABEL_LINE."""
    if len(name) > LABEL_MAX:
        name = name[:LABEL_MAX // 2 - 1] + "…" + name[-(LABEL_MAX // 2):]
    lines, line = [], ""
    for part in re.split(r"(?<=[:/])", name):  # the pieces, each ending at a ':' or '/'
        while len(part) > LABEL_LINE:  # a piece too long for a line on its own is cut
            if line:
                lines.append(line)
                line = ""
            lines.append(part[:LABEL_LINE])
            part = part[LABEL_LINE:]
        if len(line) + len(part) > LABEL_LINE:
            lines.append(line)
            line = ""
        line += part
    return "\n".join(lines + [line] if line else lines)


def write_plot(result: TournamentResult, path) -> None:
    """The chart of ``plot`` as a PNG file."""
    import matplotlib.pyplot as plt

    fig = plot(result)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot(result: TournamentResult):
    """A matplotlib Figure: win rates in percent, as in the table, with Wilson 95% whiskers, value labels
    and the fair share; each agent's label shortened and wrapped (chart_label) so that none overlap."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [chart_label(s.name) for s in result.stats]
    rates = [100 * s.win_rate for s in result.stats]
    # (clamped: rounding can put a 0% or 100% rate a hair outside its own interval)
    errors = [[max(0.0, 100 * (s.win_rate - s.win_low)) for s in result.stats],
              [max(0.0, 100 * (s.win_high - s.win_rate)) for s in result.stats]]
    # Each bar as wide as its longest label line needs (about 0.08 inch a character at 9 points).
    widest = max(len(line) for name in names for line in name.split("\n"))
    fig, ax = plt.subplots(figsize=(max(4, max(1.5, 0.08 * widest + 0.4) * len(names)), 3.8))
    x = range(len(names))
    ax.bar(x, rates, yerr=errors, capsize=6, color="#4c72b0")
    ax.set_xticks(list(x), names, fontsize=9)
    for i, s in enumerate(result.stats):
        ax.annotate(f"{100 * s.win_rate:.1f}%", (i, 100 * s.win_high), textcoords="offset points", xytext=(0, 3),
                    ha="center", fontsize=8)
    # The duplicate schedule seats every agent equally often, so all fair shares are the same.
    share = 100 * max(fair_shares(result))
    ax.axhline(share, color="#c44e52", ls="--", lw=1, label=f"fair share {share:.0f}%")
    ax.legend(fontsize=8, loc="upper right")
    ax.set_ylim(0, 100)
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter())
    ax.set_ylabel("games won (95% Wilson interval)")
    c = result.config
    ax.set_title(f"{c['variant']}, {c['games']} duplicate games, seed {c['seed']}", fontsize=10)
    fig.tight_layout()
    return fig
