"""A tournament's games to watch: a web page per kept game record (pitch_env/html_page.py) and an
index.html linking them, each game captioned with who sat where and who won."""

from __future__ import annotations

from pathlib import Path

from pitch_env.html_page import index_page, write_page, write_text

MAX_PAGES = 1000  # pages are ~100 kB each; a sample to watch, not an archive


def check_folder(folder, option: str = "--html") -> None:
    """Create ``folder`` if needed and fail now, naming the option, if pages cannot be written there."""
    from .cli_checks import check_output_path

    p = Path(folder)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{option} {folder}: is a file; give a folder for the game pages")
    if not p.parent.is_dir():
        raise ValueError(f"{option} {folder}: {p.parent} is not an existing folder; create it or choose another path")
    try:
        p.mkdir(exist_ok=True)
    except OSError as e:
        raise ValueError(f"{option} {folder}: cannot create it ({e.strerror}); choose another path") from None
    check_output_path(p / "index.html", option)


def write_pages(result, folder) -> Path | None:
    """One page per record in ``result.records`` and the index; returns the index's path (None when
    this run kept no record, as when a resumed run had no game left to play)."""
    folder = Path(folder)
    if not result.records:
        return None
    config = result.config
    names, variant = config["agents"], config["variant"]
    games = {(g.deal, g.rotation): g for g in result.games}
    rows = []
    for (deal, rotation), record in result.records.items():
        g = games[(deal, rotation)]
        players = [names[a] for a in g.seating]
        name = f"deal{deal}-seating{rotation + 1}.html"
        title = f"{variant} · deal {deal}, seating {rotation + 1}"
        write_page(record, folder / name, players=players, title=title, back="index.html")
        seats = ", ".join(f"seat {s} {p}" for s, p in enumerate(players))
        rows.append({"href": name, "caption": f"Deal {deal}, seating {rotation + 1}: {seats}",
                     "outcome": _outcome(record, players)})
    intro = (f"{len(rows)} of the {config['games']} games of a duplicate {variant} tournament between "
             f"{', '.join(names)} (seed {config['seed']}). Each page replays one game move by move.")
    index = folder / "index.html"
    write_text(index_page(f"{variant} tournament: games to watch", intro, rows), index)
    return index


def _outcome(record: dict, players: list[str]) -> str:
    scores = " to ".join(map(str, record["final_scores"]))
    hands = len(record["hands"])
    if record["winner"] is None:
        return f"no winner after {hands} hands, {scores}"
    seats = record["sides"][record["winner"]]
    who = " + ".join(dict.fromkeys(players[s] for s in seats))
    return f"won by {who} (seat{'s' if len(seats) > 1 else ''} {' + '.join(map(str, seats))}) in {hands} hands, {scores}"
