"""Optional warm start: before PPO, fit the policy (and its value) to a teacher agent's play.

With ``imitate: pimc:12`` the run first plays games in which the teacher holds the learner's seats
(and, with ``imitate_against: heuristic``, that agent holds the others, as in the evaluation; empty:
the teacher everywhere), records each of the teacher's decisions (observation, mask, action, through
the same observation transform as training) with the discounted return its side went on to get
(the self-play env's reward, so the value head starts where PPO will need it), and trains the
policy by cross-entropy and the value by squared error on them. Distilling the search agent this
way gives a network that plays like many PIMC searches averaged, at the cost of one forward pass.

Collection is the slow part (PIMC thinks ~7 ms a decision), so it runs in ``workers`` processes,
and the demonstrations can be saved (``save_demos``) and reused by another run (``imitate_data``).

Bids are few (one decision in seven in auction) but decide who pitches, and a network fitted on full
games copied too few of the search's bids (docs/training.md). ``phases=("bid",)`` records only the
teacher's bids, in games whose other decisions the ``against`` agent (or the heuristic) plays cheaply;
such decisions have no value target (``returns`` is NaN: the discount between a side's bids would not
be the one PPO uses), and ``pretrain`` fits only their policy.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from pitch_policy.canonical import shown_action
from pitch_env.engine import Game
from pitch_env.loop import play
from pitch_policy import input_size, policy_input
from pitch_env.rewards import SideRewards

from .config import ConfigError
from .hint import engine_hint
from .league import Agent, Heuristic


@dataclass
class Demos:
    """Recorded decisions: observation, legal mask, action (all as the policy sees them) and the
    discounted return of the mover's side from that decision on."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)

    @staticmethod
    def concat(parts: list[Demos]) -> Demos:
        return Demos(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("obs", "masks", "actions", "returns")))


def teacher_seats(rules, rng: np.random.Generator) -> set[int]:
    """The seats the teacher holds in a game against another agent, as the tournament seats an agent
    against one opponent: one side of a partnership game; in a solo game every other seat from a
    random start (two of four, alternating)."""
    n = rules.num_players
    if rules.partnerships:
        side = int(rng.integers(rules.num_sides))
        return {s for s in range(n) if rules.side_of(s) == side}
    start = int(rng.integers(n))
    return {(start + 2 * k) % n for k in range(n // 2)}


class Encoded:
    """The one observation of a decision, as a player reads it from a table (``observe(seat)``)."""

    def __init__(self, obs):
        self.obs = obs

    def observe(self, seat: int):
        return self.obs


def _collect_part(args) -> Demos:
    rules, spec, against, decisions, transform, seed, gamma, reward, win_bonus, hint, phases = args
    from pitch_env.actions import ActionLayout
    from pitch_env.observer import Observer

    torch.set_num_threads(1)
    observer = Observer(rules)
    size = ActionLayout(rules).size
    n = rules.num_players

    def players(name: str) -> list:  # one per seat; the heuristic read straight from the engine (same choices)
        if name == "heuristic":
            return [Heuristic()] * n
        return [Agent(name, rules) for _ in range(n)]

    teachers = players(spec)
    others = players(against) if against else teachers
    # who plays a teacher's seat where it is not recorded: with phases, the rest of the table (cheaply)
    unrecorded = teachers if phases is None else others if against else players("heuristic")
    obs = np.zeros((decisions, input_size(rules, hint)), np.float32)
    masks = np.zeros((decisions, size), bool)
    actions = np.zeros(decisions, np.int64)
    rewards = np.zeros(decisions, np.float64)  # the reward that follows each decision, in its side's own sequence
    returns = np.full(decisions, np.nan if phases is not None else 0.0, np.float32)
    book = SideRewards(rules, reward, win_bonus)  # every side's, paid to its latest recorded decision
    rng = np.random.default_rng(seed)
    i = 0

    def act(game: Game, seat: int) -> int:  # the seat's player chooses; a teacher's decision is recorded
        nonlocal i
        recorded = seat in seats and (phases is None or game.phase_name in phases)
        player = teachers[seat] if recorded else unrecorded[seat] if seat in seats else others[seat]
        o = None if not recorded and isinstance(player, Heuristic) else observer.encode(game, seat)
        action = player.act(game, seat, Encoded(o))
        if recorded and i < decisions:
            mask = np.zeros(size, np.int8)
            mask[game.legal_actions()] = 1
            o, mask, act_src = policy_input(o, mask, transform, engine_hint(game) if hint != "none" else None)
            obs[i], masks[i], actions[i] = o, mask.astype(bool), shown_action(act_src, action)
            sequence.setdefault(rules.side_of(seat), []).append(i)
            i += 1
        return action

    def pay() -> None:  # the self-play env's reward, after each side's latest decision (none yet: dropped)
        for side in range(rules.num_sides):
            amount, idx = book.take(side), sequence.get(side)
            if idx:
                rewards[idx[-1]] += amount

    def hand_over(result) -> None:
        if result is not None:
            book.hand_over(result.score_change)
            pay()

    # Recording only some phases, nothing after the budget is recorded and no return is needed;
    # otherwise a game is played out even past the budget, so every return is complete.
    budget_spent = None if phases is None else lambda seat: i >= decisions
    while i < decisions:
        game = Game(rules, seed=int(rng.integers(2**62)))
        seats = teacher_seats(rules, rng) if against else set(range(n))
        for p in {id(p): p for p in teachers + others}.values():
            p.reset(int(rng.integers(2**31)))
        sequence: dict[int, list[int]] = {}  # side -> its recorded decisions, in order
        book.start(range(rules.num_sides))
        play(game, act, stop=budget_spent, hand_over=hand_over if reward == "hand" else None)
        if game.is_over:
            book.game_over(game.winner)
            pay()
        if phases is not None:
            continue  # no value targets (module docstring); returns stay NaN
        for idx in sequence.values():  # discounted returns, backwards through each side's decisions
            g = 0.0
            for j in reversed(idx):
                g = rewards[j] + gamma * g
                returns[j] = g
    return Demos(obs, masks, actions, returns)


def collect(rules, spec: str, decisions: int, transform, seed: int, against: str = "", workers: int = 1,
            gamma: float = 0.99, reward: str = "hand", win_bonus: float = 1.0, hint: str = "none",
            phases: tuple[str, ...] | None = None) -> Demos:
    """``decisions`` decisions of agent ``spec`` (see the module docstring), over ``workers`` processes;
    with ``phases``, only its decisions in those phases (e.g. ``("bid",)``)."""
    workers = max(1, min(workers, decisions))
    sizes = [decisions // workers + (k < decisions % workers) for k in range(workers)]
    # worker k's games come from the seed sequence [seed, k]; recordings of some phases only get a stream
    # of their own (the phase names' character codes appended), so they are not the full games' deals
    tag = [] if phases is None else [1, *map(ord, ",".join(phases))]
    jobs = [(rules, spec, against, m, transform, [seed, k, *tag], gamma, reward, win_bonus, hint, phases)
            for k, m in enumerate(sizes)]
    if workers == 1:
        return _collect_part(jobs[0])
    from agents.workers import Workers

    with Workers(workers, "fork") as pool:
        return Demos.concat(list(pool.ordered(_collect_part, jobs)))


def save_demos(path: str | Path, demos: Demos) -> None:
    from pitch_env.files import atomic_write

    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez_compressed(f, obs=demos.obs, masks=demos.masks, actions=demos.actions, returns=demos.returns)

    atomic_write(path, write)


MAX_DEMO_BYTES = 8 << 30  # arrays of one demonstrations file (200,000 decisions are about 0.3 GB)


def load_demos(path: str | Path, obs_size: int, action_size: int, what: str = "imitate_data") -> Demos:
    """Demonstrations saved by ``save_demos`` (read by train/runfiles.py: a regular file, headers checked
    before anything is allocated); refuses a file made for another observation or action size."""
    from .runfiles import Array, kind_of, read_npz

    # a path the user gave may be a link to the data; a run's own files are read only as themselves
    path = Path(os.path.realpath(path)) if what == "imitate_data" else Path(path)
    if kind_of(path) is None:
        raise ConfigError(f"{what} {str(path)!r} not found; it is written as imitate.npz in a run "
                          f"directory by a run with imitate set")
    fix = ("it must be an imitate.npz that a run with imitate set wrote for these rules and this observation "
           "layout (one recorded for other rules does not fit)")
    arrays = {"obs": Array(np.float32, ("n", obs_size), finite=True), "masks": Array(bool, ("n", action_size)),
              "actions": Array(np.int64, ("n",)), "returns": Array(np.float32, ("n",))}
    d = read_npz(path, arrays, (1, 10**9), MAX_DEMO_BYTES, what, fix)
    n = len(d["actions"])
    if not (bool((d["actions"] >= 0).all()) and bool((d["actions"] < action_size).all())
            and bool(d["masks"][np.arange(n), d["actions"]].all())):
        raise ConfigError(f"{what} {str(path)!r} holds actions its masks do not allow; {fix}")
    return Demos(d["obs"], d["masks"], d["actions"], d["returns"])


def pretrain(net, demos: Demos, epochs: int, batch_size: int = 512, lr: float = 1e-3, value_coef: float = 0.5,
             logger=None) -> float:
    """Cross-entropy of the masked policy plus ``value_coef`` × squared error of the value on ``demos``
    (on the decisions that have a return: not NaN) for a ``PolicyValueNet`` (train/network.py), the
    learning rate decaying linearly to zero; returns the last epoch's policy accuracy."""
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    n = len(demos)
    steps = epochs * ((n + batch_size - 1) // batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 1.0 - k / steps)
    rng = np.random.default_rng(0)
    acc = 0.0
    for epoch in range(epochs):
        order = rng.permutation(n)
        correct, total_pi, total_v = 0, 0.0, 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            o = torch.as_tensor(demos.obs[idx])
            a = torch.as_tensor(demos.actions[idx])
            logits = net.logits(o, torch.as_tensor(demos.masks[idx]))
            loss_pi = -torch.log_softmax(logits, 1).gather(1, a[:, None]).mean()
            v = net.value(o)
            ret = torch.as_tensor(demos.returns[idx])
            has = ~torch.isnan(ret)
            loss_v = torch.nn.functional.mse_loss(v[has], ret[has]) if bool(has.any()) else v.sum() * 0.0
            opt.zero_grad()
            (loss_pi + value_coef * loss_v).backward()
            opt.step()
            sched.step()
            total_pi += loss_pi.item() * len(idx)
            total_v += loss_v.item() * len(idx)
            correct += int((logits.argmax(-1) == a).sum())
        acc = correct / n
        if logger is not None:
            logger.record("imitate/loss", total_pi / n)
            logger.record("imitate/value_loss", total_v / n)
            logger.record("imitate/accuracy", acc)
            logger.dump(epoch)
    return acc
