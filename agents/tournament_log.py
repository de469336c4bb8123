"""A tournament's results file: a header line, then one JSON line per finished game, appended a deal
at a time as deals finish, so a killed tournament loses at most the deals in progress and a rerun
with ``resume`` plays only the deals the file lacks.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path

FORMAT = "pitch-tournament-results/1"


# One finished game of a tournament: a line of the results file.
@dataclass
class GameResult:
    deal: int
    rotation: int
    env_seed: int
    seating: list[int]  # agent index per seat
    winner: int | None  # winning side, None if truncated
    truncated: bool
    final_scores: list[int]
    hands: int  # hands dealt (thrown-in ones included)
    # per agent index (None for agents not at the table):
    won: list
    margin: list  # best own side score minus best other side score
    points: list  # points won by its sides over the hands played
    side_hands: list  # hands played (not thrown in) times its number of sides
    pitched: list  # hands its side pitched
    made: list  # of those, bids made
    think_s: list  # CPU seconds spent in act()
    decisions: list


class ResultsLog:
    """The games already in ``path`` (complete deals only) and an append handle for new ones.

    ``header`` says which tournament the file belongs to (variant, rules, specs, seed, seatings); a
    file written by another tournament, or an existing file without ``resume``, is refused by name.
    """

    def __init__(self, path, header: dict, resume: bool):
        self.path = Path(path)
        self.header = json.loads(json.dumps({"format": FORMAT, **header}))  # as it reads back
        game_fields = {f.name for f in fields(GameResult)}
        rotations = len(header["rotations"])
        games: dict[int, dict[int, GameResult]] = {}
        if self.path.exists() and self.path.stat().st_size:
            if not resume:
                raise ValueError(f"--results {path} already exists: add --resume to continue that tournament, "
                                 "or choose another file")
            lines = self.path.read_bytes().split(b"\n")
            first = _parse(lines[0], path, 1)
            if isinstance(first, dict) and "weights" not in first and isinstance(first.get("specs"), list):
                first = {**first, "weights": [[] for _ in first["specs"]]}  # written before files named their weights
            if first != self.header and isinstance(first, dict) and {**first, "weights": 0} == {**self.header, "weights": 0}:
                raise ValueError(f"--results {path} was played by other weights under the same agent names (a policy "
                                 "file changed since), or does not say which weights played: delete the file to play "
                                 "them again, or choose another file")
            if first != self.header:
                raise ValueError(f"--results {path} was written by another tournament (different variant, rules, "
                                 "agents or seed): rerun with those, or choose another file")
            # The last line may be torn by a kill mid-write: only newline-terminated lines count.
            for number, line in enumerate(lines[1:-1], 2):
                row = _parse(line, path, number)
                if not isinstance(row, dict) or set(row) != game_fields:
                    raise ValueError(f"--results {path}, line {number}: not a game of this tournament; "
                                     "delete the file to start over")
                problem = _row_problem(row, self.header)
                if problem:
                    raise ValueError(f"--results {path}, line {number}: {problem}, not a game this tournament "
                                     "wrote; delete the file to start over")
                g = GameResult(**row)
                games.setdefault(g.deal, {})[g.rotation] = g
        # A deal counts only with every seating played: duplicate comparisons need all of them.
        self.done = {d: [rs[r] for r in range(rotations)] for d, rs in games.items()
                     if set(rs) == set(range(rotations))}
        self._rewrite()
        self._file = open(self.path, "a")

    def _rewrite(self) -> None:
        """The file as header + complete deals, renamed into place (partial deals are replayed)."""
        lines = [json.dumps(self.header)] + [json.dumps(asdict(g)) for d in sorted(self.done)
                                             for g in self.done[d]]
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as f:
                f.write("\n".join(lines) + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def append(self, games) -> None:
        """One deal's games in one write, flushed to disk before the next deal counts as done."""
        self._file.write("".join(json.dumps(asdict(g)) + "\n" for g in games))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def _is_int(v, low: int, high: int) -> bool:
    return type(v) is int and low <= v <= high


# per-agent fields: what an agent at the table has (an agent not at the table has None)
_PER_AGENT = {"won": lambda v: type(v) is bool, "think_s": lambda v: type(v) in (int, float) and 0 <= v <= 1e9,
              **{k: (lambda v: _is_int(v, -10**9, 10**9)) for k in ("margin", "points", "side_hands", "pitched",
                                                                       "made", "decisions")}}


def _row_problem(row: dict, header: dict) -> str:
    """What is wrong with a game line read back (types, ranges, shapes), '' if nothing: a line must not
    become a traceback, or a table built from values no game gives."""
    rotations, agents = header["rotations"], len(header["specs"])
    if not _is_int(row["rotation"], 0, len(rotations) - 1):
        return f"rotation {str(row['rotation'])[:20]!r} is not one of 0 to {len(rotations) - 1}"
    seating = rotations[row["rotation"]]
    for key, low, high in (("deal", 0, 10**9), ("env_seed", 0, 2**64), ("hands", 0, 10**6)):
        if not _is_int(row[key], low, high):
            return f"{key} {str(row[key])[:20]!r} is not a whole number from {low} to {high}"
    if row["seating"] != seating:
        return f"seating {str(row['seating'])[:40]} is not rotation {row['rotation']}'s, {seating}"
    if type(row["truncated"]) is not bool or (row["winner"] is None) != row["truncated"]:
        return "truncated and winner disagree (a game is truncated exactly when nobody won)"
    if row["winner"] is not None and not _is_int(row["winner"], 0, len(seating) - 1):
        return f"winner {str(row['winner'])[:20]!r} is not a side"
    scores = row["final_scores"]
    if not isinstance(scores, list) or not 1 <= len(scores) <= len(seating) or not all(
            _is_int(v, -10**9, 10**9) for v in scores):
        return "final_scores is not a list of a score per side"
    seated = set(seating)
    for key, ok in _PER_AGENT.items():
        values = row[key]
        if not isinstance(values, list) or len(values) != agents or not all(
                ok(v) if i in seated else v is None for i, v in enumerate(values)):
            return f"{key} is not a list of {agents} values, one per agent at the table and None for the others"
    return ""


def _parse(line: bytes, path, number: int):
    try:
        return json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise ValueError(f"--results {path}, line {number}: not a JSON line of a tournament results file; "
                         "delete the file to start over") from None
