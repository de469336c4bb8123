"""Duplicate-deal tournaments: the same seeded deals replayed with the agents rotated through the seats.

``run_tournament(rules, agents, games, seed)`` (``rules`` a preset's name or a Rules) returns a ``TournamentResult`` (per-agent wins with
Wilson intervals, score margins, points per hand, bids made, OpenSkill ratings when there are more
than two agents, and every game's outcome). Results depend only on the arguments, not on ``workers``.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

import pitch_env

from . import spec_weights
from .base import turns
from .stats import Rating, openskill_ratings, wilson
from .tournament_log import GameResult, ResultsLog
from .workers import Workers, check_workers

AgentSpec = str | Callable  # a spec for agents.make, or factory(env, seed) -> Agent (picklable for workers > 1)


def seatings(rules, num_agents: int) -> list[list[int]]:
    """One game's seating per rotation: the agent index at each seat.

    Solo: seat ``s`` gets agent ``(s + r) mod k`` in rotation ``r`` (2 agents at 4 seats: ABAB,
    BABA). Partnerships: every ordered choice of distinct agents for the sides (2 agents: the two
    teams, then swapped). Either way each agent sits in every seat equally often.
    """
    n, k = rules.num_players, num_agents
    if k < 1:
        raise ValueError("a tournament needs at least one agent")
    if not rules.partnerships:
        return [[(s + r) % k for s in range(n)] for r in range(k)]
    sides = rules.num_sides
    if k < sides:
        raise ValueError(f"{k} agent(s) cannot fill {sides} partnership sides: give at least {sides}, "
                         "or play solo (--solo)")
    return [[perm[rules.side_of(s)] for s in range(n)] for perm in itertools.permutations(range(k), sides)]


def deal_seed(seed: int, deal: int) -> int:
    """The env seed of deal ``deal``: every rotation of that deal replays exactly these cards."""
    return random.Random(f"pitch-tournament:{seed}:{deal}").randrange(2**62)


def agent_seed(seed: int, deal: int, rotation: int, seat: int) -> int:
    return random.Random(f"pitch-agent:{seed}:{deal}:{rotation}:{seat}").randrange(2**62)


@dataclass
class AgentStats:
    name: str
    games: int = 0
    wins: int = 0
    win_rate: float = 0.0
    win_low: float = 0.0
    win_high: float = 1.0
    mean_margin: float = 0.0
    points_per_hand: float = 0.0
    bids_made: float = 0.0  # fraction of its pitched hands that made the bid
    pitched: int = 0
    think_s_per_game: float = 0.0
    ms_per_decision: float = 0.0


@dataclass
class TournamentResult:
    config: dict
    stats: list[AgentStats]
    ratings: list[Rating] | None
    games: list[GameResult] = field(repr=False)
    truncated: int = 0
    wall_s: float = 0.0
    interrupted: bool = False  # Ctrl-C: the result holds the deals finished before it
    records: dict = field(default_factory=dict, repr=False)  # (deal, rotation) -> game record, see keep_records
    rules: pitch_env.Rules | None = field(default=None, repr=False)  # the rules played (config holds them as plain data)

    def as_dict(self) -> dict:
        return {
            "config": self.config,
            "agents": [asdict(s) for s in self.stats],
            "ratings": None if self.ratings is None else
            [dict(name=r.name, mu=r.mu, sigma=r.sigma, ordinal=r.ordinal) for r in self.ratings],
            "truncated_games": self.truncated,
            "wall_s": self.wall_s,
            "interrupted": self.interrupted,
            "games": [asdict(g) for g in self.games],
        }


# ---------------------------------------------------------------- playing one deal (also in workers)
_worker = {}


def _setup(rules, specs: list, names: list[str], worker: bool = False) -> None:
    if worker:  # Ctrl-C is the parent's to handle: workers stop when it terminates the pool
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool's terminate() must just end them
    # info_state=True: each agent reads the mover's knowledge from the info it is given (agents/base.py)
    _worker.update(env=pitch_env.env(rules, illegal_action="raise", info_state=True), specs=specs,
                   names=names, agents={})


def _agent(index: int, seat: int):
    """One agent object per (agent, seat) per process, reused across games (reset each game)."""
    key = (index, seat)
    agents = _worker["agents"]
    if key not in agents:
        spec, env = _worker["specs"][index], _worker["env"]
        if isinstance(spec, str):
            from . import make

            agents[key] = make(spec, env)
        else:
            agents[key] = spec(env, None)
    return agents[key]


def _play_deal(args) -> tuple[list[GameResult], dict]:
    """The deal's games, and the records of its first ``keep`` rotations."""
    seed, deal, rotations, keep = args
    env = _worker["env"]
    k = len(_worker["specs"])
    results, records = [], {}
    for r, seating in enumerate(rotations):
        results.append(_play_game(env, seed, deal, r, seating, k))
        if r < keep:
            records[(deal, r)] = env.unwrapped.game_record()
    return results, records


def _play_game(env, seed: int, deal: int, rotation: int, seating: list[int], k: int) -> GameResult:
    raw = env.unwrapped
    rules = raw.rules
    es = deal_seed(seed, deal)
    env.reset(seed=es)
    players = [_agent(a, s) for s, a in enumerate(seating)]
    for s, p in enumerate(players):
        p.reset(seed=agent_seed(seed, deal, rotation, s))
    think = [0.0] * rules.num_players
    decisions = [0] * rules.num_players
    seat_of = raw.agent_name_mapping
    clock = time.process_time  # CPU seconds: steadier than wall time on a shared machine
    for name, obs, info in turns(env):
        seat = seat_of[name]
        t0 = clock()
        action = players[seat].act(obs, info)
        think[seat] += clock() - t0
        decisions[seat] += 1
        env.step(action)
    return _summarise(rules, raw.game_record(), deal, rotation, es, seating, k, think, decisions)


def _summarise(rules, record, deal, rotation, es, seating, k, think, decisions) -> GameResult:
    side_owner = {}
    for seat, a in enumerate(seating):
        side_owner.setdefault(rules.side_of(seat), set()).add(a)
    final = record["final_scores"]
    blank = [None] * k
    g = GameResult(deal, rotation, es, list(seating), record["winner"], record["truncated"], final,
                   len(record["hands"]), list(blank), list(blank), list(blank), list(blank), list(blank),
                   list(blank), list(blank), list(blank))
    for a in sorted(set(seating)):
        # Partnerships seat one agent per side; solo, an agent may hold several seats (sides).
        own = [s for s, owners in side_owner.items() if owners == {a}]
        others = [s for s in range(rules.num_sides) if s not in own]
        g.won[a] = record["winner"] in own
        g.margin[a] = max(final[s] for s in own) - (max(final[s] for s in others) if others else 0)
        played = [h for h in record["hands"] if h["pitcher"] is not None]
        g.points[a] = sum(h["points_won"][s] for h in played for s in own)
        g.side_hands[a] = len(played) * len(own)
        mine = [h for h in played if rules.side_of(h["pitcher"]) in own]
        g.pitched[a] = len(mine)
        g.made[a] = sum(1 for h in mine if h["made"])
        seats = [s for s, x in enumerate(seating) if x == a]
        g.think_s[a] = sum(think[s] for s in seats)
        g.decisions[a] = sum(decisions[s] for s in seats)
    return g


# ---------------------------------------------------------------- the tournament
def run_tournament(rules: str | pitch_env.Rules = "setback", agents: list[AgentSpec] = ("heuristic", "random"), games: int = 100,
                   seed: int = 0, workers: int = 1, names: list[str] | None = None, progress: bool = False,
                   results: str | None = None, resume: bool = False, keep_records: int = 0,
                   **rules_options) -> TournamentResult:
    """Play at least ``games`` games: ``ceil(games / rotations)`` deals, each under every rotation.

    ``rules``: a Rules (``pitch_env.rules(...)``), played as it is, or a preset's name. ``agents``: specs
    for ``agents.make`` (``"heuristic"``, ``"pimc:20"``, ``"checkpoint:PATH"``…) or factories
    ``f(env, seed) -> Agent``. ``rules_options`` (``num_players=4``, ``partnerships=False``…) change
    those rules. Truncated games are won by nobody. ``results``: a file every finished deal's
    games are appended to; with ``resume`` the deals already in it are not played again (the result
    is the same as an uninterrupted run's). Ctrl-C ends the run early with the deals finished so far
    (``interrupted`` is set). ``keep_records``: how many games' full records to keep in ``records``,
    the first games this run plays in deal order (games a resumed run skips have none).
    """
    specs = list(agents)
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"workers={workers!r}: use 1 or more processes")
    check_workers(workers, "workers")
    if names is None:
        names = [s if isinstance(s, str) else getattr(s, "__name__", f"agent{i}") for i, s in enumerate(specs)]
    names = _unique(names)
    rules = pitch_env.rules(rules, **rules_options)
    rotations = seatings(rules, len(specs))
    deals = max(1, math.ceil(games / len(rotations)))
    options = {k: v for k, v in rules.as_dict().items() if k != "variant"}  # as the results file records them
    config = dict(variant=rules.variant, rules=options, agents=names, specs=[s if isinstance(s, str) else names[i]
                  for i, s in enumerate(specs)], games=deals * len(rotations), deals=deals, rotations=rotations,
                  seed=seed)
    log = None
    if results is not None:
        header = {k: config[k] for k in ("variant", "rules", "specs", "seed", "rotations")}
        header["weights"] = [spec_weights(s) for s in specs]  # which weights played
        log = ResultsLog(results, header, resume)
    done = {} if log is None else {d: g for d, g in log.done.items() if d < deals}
    todo = [d for d in range(deals) if d not in done]
    jobs = [(seed, d, rotations, min(len(rotations), max(0, keep_records - j * len(rotations))))
            for j, d in enumerate(todo)]
    start = time.perf_counter()
    played: list[GameResult] = [g for part in done.values() for g in part]
    records: dict = {}
    interrupted = False
    bar = _progress_bar(deals * len(rotations), len(played)) if progress else None

    def finished(deal_done: tuple[list[GameResult], dict]) -> None:
        part, kept = deal_done
        played.extend(part)
        records.update(kept)
        if log:
            log.append(part)
        if bar:
            bar[0].advance(bar[1], len(part))

    try:
        if workers == 1:
            _setup(rules, specs, names)
            for job in jobs:
                finished(_play_deal(job))
        elif jobs:
            with Workers(workers, "fork", _setup, (rules, specs, names, True)) as pool:
                for part in pool.unordered(_play_deal, jobs):
                    finished(part)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar:
            bar[0].stop()
        if log:
            log.close()
    played.sort(key=lambda g: (g.deal, g.rotation))
    config["planned_games"], config["games"] = config["games"], len(played)
    return TournamentResult(config, _aggregate(names, played), _ratings(names, played),
                            played, sum(g.truncated for g in played), time.perf_counter() - start, interrupted,
                            dict(sorted(records.items())), rules)


def _unique(names: list[str]) -> list[str]:
    """``heuristic, heuristic`` → ``heuristic#1, heuristic#2`` so every agent has its own row."""
    out = []
    for i, n in enumerate(names):
        out.append(f"{n}#{names[:i + 1].count(n)}" if names.count(n) > 1 else n)
    return out


def _aggregate(names, results) -> list[AgentStats]:
    stats = []
    for a, name in enumerate(names):
        mine = [g for g in results if g.won[a] is not None]
        s = AgentStats(name)
        s.games = len(mine)
        s.wins = sum(g.won[a] for g in mine)
        if mine:
            s.win_rate = s.wins / s.games
            s.win_low, s.win_high = wilson(s.wins, s.games)
            s.mean_margin = sum(g.margin[a] for g in mine) / s.games
            hands = sum(g.side_hands[a] for g in mine)
            s.points_per_hand = sum(g.points[a] for g in mine) / hands if hands else 0.0
            s.pitched = sum(g.pitched[a] for g in mine)
            s.bids_made = sum(g.made[a] for g in mine) / s.pitched if s.pitched else 0.0
            s.think_s_per_game = sum(g.think_s[a] for g in mine) / s.games
            decisions = sum(g.decisions[a] for g in mine)
            s.ms_per_decision = 1000 * sum(g.think_s[a] for g in mine) / decisions if decisions else 0.0
        stats.append(s)
    return stats


def _ratings(names, results) -> list[Rating] | None:
    if len(names) <= 2:
        return None
    return openskill_ratings(names, [game_ranks(g) for g in results])


def game_ranks(g: GameResult) -> list[tuple[int, int]]:
    """One game as an OpenSkill match: ``(agent index, rank)`` for the agents at the table, rank 1 best."""
    present = [a for a in range(len(g.won)) if g.won[a] is not None]
    # Rank by winning first, then by score margin; equal margins without a winner tie.
    order = sorted(present, key=lambda a: (not g.won[a], -g.margin[a]))
    ranks, rank, prev = {}, 0, None
    for i, a in enumerate(order):
        key = (not g.won[a], -g.margin[a])
        if key != prev:
            rank, prev = i + 1, key
        ranks[a] = rank
    return [(a, ranks[a]) for a in present]


def _progress_bar(total: int, completed: int = 0):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), transient=False)
    task = bar.add_task("games", total=total, completed=completed)
    bar.start()
    return bar, task
