"""Side-by-side speed rounds, one helper for every speed bench: each round times every kind once (so a
change in the machine's load hits them all), prints the round's figures, and the end prints the medians
as a markdown table against one kind taken as the baseline."""

from __future__ import annotations

import statistics
from typing import Callable


def alternate(kinds: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    """Time every kind once per round, in order, ``rounds`` times; print each round; return the medians."""
    runs: dict[str, list[float]] = {name: [] for name in kinds}
    for r in range(rounds):
        for name, measure in kinds.items():
            runs[name].append(measure())
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:,.0f}" for k, v in runs.items()), flush=True)
    return {name: statistics.median(v) for name, v in runs.items()}


def median_table(medians: dict[str, float], base: str, first: str, figure: str, rounds: int,
                 base_name: str | None = None) -> str:
    """The medians as a markdown table: a row per kind, its figure and its ratio to ``base``'s (named
    ``base_name`` in the header, ``base`` by default)."""
    lines = [f"| {first} | {figure} (median of {rounds}) | vs {base_name or base} |", "|---|---|---|"]
    lines += [f"| {k} | {v:,.0f} | {v / medians[base]:.2f}× |" for k, v in medians.items()]
    return "\n".join(lines)
