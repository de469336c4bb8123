"""Statistics for strength claims: Wilson score intervals for win rates, whether one rate is below another,
OpenSkill ratings.

Pure functions of counts and game outcomes, so they can be checked against known values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a win rate ``wins / n`` (``(0, 1)`` when ``n`` is 0)."""
    if n < 0 or not 0 <= wins <= n:
        raise ValueError(f"wilson needs 0 <= wins <= n, got wins={wins}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    z2 = z * z
    denom = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


def below(rate: float, other: float, n: int, z: float = Z95) -> bool:
    """Whether win rate ``rate`` is below ``other`` (each over ``n`` games) by more than ``z`` standard errors
    of their difference, the two taken as independent. Rates measured on the same deals share their luck,
    which a paired test would cancel; this one does not, so on such rates it is lenient, never strict."""
    return other - rate > z * math.sqrt((rate * (1 - rate) + other * (1 - other)) / n)


@dataclass(frozen=True)
class Rating:
    name: str
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate ``mu - 3 sigma`` that rankings use."""
        return self.mu - 3 * self.sigma


def openskill_ratings(names: list[str], matches, tau: float | None = None) -> list[Rating]:
    """OpenSkill (Plackett-Luce) ratings after ``matches``, processed in the given order.

    Each match is a list of ``(agent index, rank)`` for the agents that played it, rank 1 best;
    equal ranks are a tie. ``tau``: the skill drift added before each match (None: OpenSkill's
    default; 0 for agents whose skill does not change).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce() if tau is None else PlackettLuce(tau=tau)
    current = [model.rating(name=n) for n in names]
    for match in matches:
        if len(match) < 2:
            continue
        teams = [[current[i]] for i, _ in match]
        rated = model.rate(teams, ranks=[rank for _, rank in match])
        for (i, _), team in zip(match, rated):
            current[i] = team[0]
    return [Rating(n, r.mu, r.sigma) for n, r in zip(names, current)]
