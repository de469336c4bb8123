"""The league: who fills each side of a self-play game, drawn by the config's ``opponents`` weights.

A side is played by the learner (``LEARNER``), or by a player: a frozen snapshot of the learner
(``"self"``), the heuristic (``"heuristic"``), a random legal move (``"random"``) or any agent spec
of ``agents.make`` (``"pimc:12"``, ``"checkpoint:PATH"`` …). With probability ``mirror`` a game has
the learner at every side; otherwise the learner takes a random seat's side and every other side
draws a name by the weights. Every player is called as ``act(game, seat, table) -> action`` (``table``
is the game's ``LiveTable``; a player reads ``table.observe(seat)`` only if it needs the observation).
A snapshot is ``batched``: the batched self-play core (train/lockstep.py) gathers its rows into one
forward pass of ``snapshot.net`` instead of calling ``act``.

    league = League(rules, {"self": 0.5, "heuristic": 0.5}, mirror=0.1, seed=0)
    league.add_snapshot(layers, "relu")
    seating = league.draw()          # seating.players[side]: LEARNER or a player; seating.names
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pitch_env.actions import ActionLayout
from pitch_policy import BatchMLP, PolicyMLP, make_transform

from .hint import engine_hint

LEARNER = "learner"  # the side is the learner's: its decisions are trained on
MIRROR = "mirror"  # the name a game with the learner at every side is counted under


def rule_overrides(rules) -> dict:
    """The options of ``rules`` that differ from its preset (what rebuilds it from the preset)."""
    import pitch_env

    base = pitch_env.rules(rules.variant).as_dict()
    return {k: v for k, v in rules.as_dict().items() if k != "variant" and base.get(k) != v}


def make_agent(spec: str, rules):
    """An ``agents.make`` agent for these rules (built over an AEC env of the same rules)."""
    import agents
    import pitch_env

    return agents.make(spec, pitch_env.env(rules.variant, **rule_overrides(rules)))


# ---------------------------------------------------------------------- the players
class Heuristic:
    """The heuristic (agents/heuristic.py) read straight from the engine (train/hint.py): the same
    choices as ``HeuristicAgent`` without building an infoset per move. The one heuristic opponent
    of every trainer."""

    name = "heuristic"
    batched = False

    def reset(self, seed: int) -> None:
        pass

    def act(self, game, seat: int, table=None) -> int:
        return engine_hint(game)


class Random:
    """A uniformly random legal action."""

    name = "random"
    batched = False

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def reset(self, seed: int) -> None:
        pass

    def act(self, game, seat: int, table=None) -> int:
        legal = game.legal_actions()
        return legal[int(self.rng.integers(len(legal)))]


class Agent:
    """An agent of the ``agents`` package (``act(observation, info)``) playing a seat of a bare Game:
    it gets the AEC env's observation dict and the seat's ``info_state``."""

    batched = False

    def __init__(self, name: str, rules):
        self.name = name
        self.agent = make_agent(name, rules)
        self.action_size = ActionLayout(rules).size

    def reset(self, seed: int) -> None:
        self.agent.reset(seed)

    def act(self, game, seat: int, table) -> int:
        legal = game.legal_actions()
        mask = np.zeros(self.action_size, np.int8)
        mask[legal] = 1
        obs = {"observation": table.observe(seat), "action_mask": mask}
        return int(self.agent.act(obs, {"info_state": game.info_state(seat), "legal_actions": legal}))


class Snapshot:
    """A frozen copy of the learner's policy, sampling from its masked distribution. ``net`` runs a
    batch of network inputs (the lockstep core); ``act`` plays one decision (the single-game env)."""

    name = "self"
    batched = True

    def __init__(self, layers, activation: str, transform, hint: str, rng: np.random.Generator):
        self.layers, self.activation = [(w, b) for w, b in layers], activation
        self.net = BatchMLP(self.layers, activation)
        self.policy = PolicyMLP(self.layers, activation, transform, hint)
        self.rng = rng
        self.mask = np.zeros(self.policy.layers[-1][0].shape[0], np.int8)

    def reset(self, seed: int) -> None:
        pass

    def act(self, game, seat: int, table) -> int:
        self.mask.fill(0)
        self.mask[game.legal_actions()] = 1
        hint = engine_hint(game) if self.policy.hint != "none" else None
        return self.policy.act(table.observe(seat), self.mask, self.rng, hint)


# ---------------------------------------------------------------------- the draw
@dataclass
class Seating:
    """Who plays each side of one game: ``players[side]`` is ``LEARNER`` or a player; ``names`` are the
    opponents' names (``[MIRROR]`` when the learner plays every side), for the statistics."""

    players: list
    names: list[str]

    @property
    def learner_sides(self) -> list[int]:
        return [side for side, p in enumerate(self.players) if p is LEARNER]


class League:
    """The opponents of the learner: weights over names, the frozen snapshots, and one agent per
    (name, side) for agent specs (some agents remember the game they play). ``observation`` and
    ``hint`` are what the snapshots read (the learner's own)."""

    def __init__(self, rules, opponents: dict[str, float], mirror: float = 0.0, snapshot_pool: int = 10,
                 seed=0, observation: str = "suit_canonical", hint: str = "none"):
        self.rules = rules
        self.rng = np.random.default_rng(seed)
        self.snapshot_pool = snapshot_pool
        self.transform = make_transform(observation, rules)
        self.hint = hint
        self.side_of = [rules.side_of(s) for s in range(rules.num_players)]
        self.snapshots: list[Snapshot] = []
        self.heuristic = Heuristic()
        self.random = Random(self.rng)
        self.agents: dict[tuple[str, int], Agent] = {}
        self.set_weights(opponents, mirror)

    def set_weights(self, opponents: dict[str, float], mirror: float) -> None:
        """Who the next games are played against (the config's, or a schedule's)."""
        self.names = [k for k, w in opponents.items() if w > 0]
        w = np.array([opponents[k] for k in self.names], np.float64)
        self.p = w / w.sum()
        self.mirror = float(mirror)

    def add_snapshot(self, layers, activation: str) -> Snapshot:
        """Freeze a copy of the learner (numpy (weight, bias) layers); the oldest beyond ``snapshot_pool`` leave."""
        snap = Snapshot(layers, activation, self.transform, self.hint, self.rng)
        self.snapshots.append(snap)
        del self.snapshots[:-self.snapshot_pool]
        return snap

    def draw_names(self) -> list[str]:
        """One game's side names: ``LEARNER`` or an opponent's name from the weights."""
        r = self.rules
        if self.rng.random() < self.mirror:
            return [LEARNER] * r.num_sides
        learner = self.side_of[int(self.rng.integers(r.num_players))]
        return [LEARNER if side == learner else self.names[self.rng.choice(len(self.names), p=self.p)]
                for side in range(r.num_sides)]

    def player(self, name: str, side: int):
        """The player ``name`` (not ``LEARNER``) for ``side``: a snapshot drawn uniformly for ``"self"``."""
        if name == "self":
            if not self.snapshots:
                raise RuntimeError("the league has weight on 'self' but holds no snapshot yet")
            return self.snapshots[int(self.rng.integers(len(self.snapshots)))]
        if name == "heuristic":
            return self.heuristic
        if name == "random":
            return self.random
        key = (name, side)
        if key not in self.agents:
            self.agents[key] = Agent(name, self.rules)
        return self.agents[key]

    def draw(self) -> Seating:
        """Who plays each side of a new game; every player is reset with a seed of its own."""
        names = self.draw_names()
        players = [LEARNER if name == LEARNER else self.player(name, side) for side, name in enumerate(names)]
        for p in players:
            if p is not LEARNER:
                p.reset(int(self.rng.integers(2**31)))
        shown = [MIRROR] if all(p is LEARNER for p in players) else [n for n in names if n != LEARNER]
        return Seating(players, shown)
