"""The batched engine checked move for move against the reference engine (pitch_env/engine.py).

``cross_check`` plays a vector env of random legal moves and, beside each of its games, a reference
``Game`` dealt the same cards (``Game(deals=...)``) taking the same actions; after every move it compares
the mask, the observation (``Observer.encode``), the seat to move, every seat's reward (rewards.py), the
scores, the winner and the end of the game, and every Nth finished game's record with the reference's.
``draw_options`` samples rule mixes from rules.py's option table. Run: ``python -m bench.batch_check``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from pitch_env.engine import Game
from pitch_env.record import game_record
from pitch_env.replay import replay
from pitch_env.rewards import game_rewards, hand_rewards, relative_rewards, win_bonuses
from pitch_env.rules import CHOICES, MAX_PLAYERS, MIN_PLAYERS, PRESET_PLAYERS, rules as make_rules
from pitch_env.vector import VectorEnv

INT_CHOICES = {
    "hand_size": (1, 3, 6, 7, 9, 13),
    "min_bid": (1, 2, 4),
    "max_bid": (2, 4, 6, 10),
    "stick_min": (1, 2, 4, 5),
    "bid_ends_auction": (None, "shoot", 2, 4, 10),
    "target_score": (1, 3, 7, 11, 21, 52),
    "max_hands": (1, 2, 5, 20),
    "first_dealer": (0, 1, "random"),
    "off_jack": (False, True),
    "dealer_may_steal": (False, True),
}


class Mismatch(AssertionError):
    """The batched engine and the reference disagree."""


def draw_options(rng: random.Random, variant: str, vary: float = 0.3) -> dict:
    """A player count of ``variant`` (sometimes any from 2 to 7), a partnership setting where allowed, and each
    other option of rules.py's table changed with probability ``vary`` (a mix the rules refuse is drawn again)."""
    table = {**CHOICES, **INT_CHOICES}
    for _ in range(1000):
        n = rng.choice(PRESET_PLAYERS[variant])
        base = {"num_players": n}
        if rng.random() < vary / 2:  # any table size the rules allow (player_counts widened past the preset's)
            n = rng.randint(MIN_PLAYERS, MAX_PLAYERS)
            base = {"num_players": n, "player_counts": tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))}
        base["partnerships"] = rng.choice((False, True)) if n in (4, 6) else False
        extra = {k: rng.choice(v) for k, v in table.items() if rng.random() < vary}
        try:
            make_rules(variant, **base, **extra)
        except ValueError:
            continue
        return {**base, **extra}
    raise AssertionError(f"no rule mix of {variant} drawn in 1000 tries")


def _expected_rewards(env: VectorEnv, g: Game, hand_over: bool) -> np.ndarray:
    r, mode = env.rules, env.reward_mode
    out = np.zeros(r.num_players)
    if hand_over and mode != "game" and g.last_result is not None:
        out += (hand_rewards if mode == "hand" else relative_rewards)(r, g.last_result.score_change)
    if g.is_over:
        if mode == "game":
            out += game_rewards(r, g.winner)
        elif mode == "relative":
            out += win_bonuses(r, g.winner, env.win_bonus)
    return out


class _Reference:
    """A reference Game dealt, hand by hand, the cards the batched engine dealt its game."""

    def __init__(self, env: VectorEnv, index: int):
        e = env.engine
        self.env, self.seed = env, e.seed_of(index)
        hands, stock = e.deal(self.seed, 1, e.first_dealer_of(index))
        self.game = Game(env.rules, seed=self.seed, deals=[{"deal": hands, "stock": stock}])

    def apply(self, action: int) -> None:
        g = self.game
        if len(g.deals) <= g.hand_number:  # the next hand may start with this move
            g.deals.append(self.env.engine.deal(self.seed, g.hand_number + 1, (g.dealer + 1) % g.rules.num_players))
        g.apply(action)


def _compare(env: VectorEnv, out: dict, refs: list, where: str) -> None:
    games = [ref.game for ref in refs]
    seats = np.array([g.current_seat for g in games])
    want_mask = np.zeros_like(out["action_mask"])
    want_obs = np.empty_like(out["observation"])
    for b, g in enumerate(games):
        want_mask[b, g.legal_actions()] = 1
        env.observer.encode(g, g.current_seat, want_obs[b])
    for name, got, want in (("seat to move", out["current_seat"], seats), ("mask", out["action_mask"], want_mask),
                            ("observation", out["observation"], want_obs)):
        if not np.array_equal(got, want):
            b = int(np.flatnonzero((got != want).reshape(len(games), -1).any(axis=1))[0])
            g = games[b]
            detail = ""
            if name == "observation":
                bad = np.flatnonzero(got[b] != want[b])
                pieces = [p.name for p in env.observer.pieces.values() if any(p.offset <= i < p.offset + p.size for i in bad)]
                detail = f" in {pieces}: {got[b][bad[:4]].tolist()} vs {want[b][bad[:4]].tolist()}"
            elif name == "mask":
                detail = f": {np.flatnonzero(got[b]).tolist()} vs {g.legal_actions()}"
            raise Mismatch(f"{where}, game {b} (seed {refs[b].seed}, hand {g.hand_number}, {g.phase_name}): "
                           f"{name} differs from the reference{detail}")


def cross_check(variant: str, options: dict, num_envs: int, steps: int, seed: int, reward: str = "game",
                record_every: int = 10, env: VectorEnv | None = None) -> dict:
    """Play ``steps`` moves in ``num_envs`` games of these rules beside the reference; raise Mismatch on
    the first difference. Returns counts (decisions, games, hands, records checked)."""
    env = env or VectorEnv(variant, num_envs, seed=seed, reward=reward, **options)
    rng = np.random.default_rng(seed)
    out = env.reset(seed)
    refs = [_Reference(env, b) for b in range(num_envs)]
    _compare(env, out, refs, "after reset")
    counts = {"decisions": 0, "games": 0, "hands": 0, "records": 0}
    finished = []
    for t in range(steps):
        actions = np.array([ref.game.legal_actions()[rng.integers(len(ref.game.legal_actions()))] for ref in refs])
        before = [len(ref.game.finished) for ref in refs]
        for ref, a in zip(refs, actions):
            ref.apply(int(a))
        out = env.step(actions)
        counts["decisions"] += num_envs
        games = [ref.game for ref in refs]
        want = {
            "rewards": np.array([_expected_rewards(env, g, len(g.finished) != n) for g, n in zip(games, before)]),
            "scores": np.array([g.scores for g in games]),
            "winner": np.array([-1 if g.winner is None else g.winner for g in games]),
            "terminated": np.array([g.is_over and not g.truncated for g in games]),
            "truncated": np.array([g.truncated for g in games]),
        }
        for key, value in want.items():
            same = np.isclose(out[key], value, rtol=0, atol=1e-6) if key == "rewards" else out[key] == value
            if not same.all():
                b = int(np.flatnonzero(~same.reshape(num_envs, -1).all(axis=1))[0])
                raise Mismatch(f"step {t}, game {b} (seed {refs[b].seed}, hand {games[b].hand_number}): {key} "
                               f"{out[key][b].tolist()}, reference {value[b].tolist()}")
        counts["hands"] += sum(len(g.finished) != n for g, n in zip(games, before))
        for b, g in enumerate(games):
            if g.is_over:
                counts["games"] += 1
                finished.append(g)
                refs[b] = _Reference(env, b)
        _compare(env, out, refs, f"step {t}")
        if finished and len(finished) >= record_every:
            records = env.finished_records()
            if len(records) != len(finished):
                raise Mismatch(f"step {t}: {len(records)} records for {len(finished)} finished games")
            for k in range(0, len(records), record_every):
                if records[k] != game_record(finished[k]):
                    raise Mismatch(f"step {t}: the record of seed {finished[k].seed} differs from the reference's")
                # A record does not keep player_counts (it belongs to the preset), so a game at a table size
                # its preset does not list is compared with the reference's record but cannot be replayed.
                if env.rules.num_players in PRESET_PLAYERS[env.rules.variant] and game_record(replay(records[k])) != records[k]:
                    raise Mismatch(f"step {t}: the record of seed {finished[k].seed} does not replay to itself")
                counts["records"] += 1
            finished = []
    return counts


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.batch_check", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=100_000, help="finish at least this many games (default 100000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--envs", type=int, default=16, help="games stepped together per rule mix")
    p.add_argument("--steps", type=int, default=300, help="moves per rule mix")
    p.add_argument("--vary", type=float, default=0.5, help="chance that each option is drawn from its values")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    totals = {"decisions": 0, "games": 0, "hands": 0, "records": 0, "mixes": 0}
    configs = set()
    start = time.perf_counter()
    while totals["games"] < args.games:
        variant = rng.choice(tuple(PRESET_PLAYERS))
        options = draw_options(rng, variant, args.vary)
        reward = rng.choice(("game", "hand", "relative"))
        seed = rng.randrange(2**40)
        try:
            counts = cross_check(variant, options, args.envs, args.steps, seed, reward)
        except Mismatch as e:
            print(f"FAILED: cross_check({variant!r}, {options!r}, {args.envs}, {args.steps}, {seed}, {reward!r}): {e}",
                  file=sys.stderr)
            return 1
        for k, v in counts.items():
            totals[k] += v
        totals["mixes"] += 1
        configs.add((variant, options["num_players"], options.get("partnerships")))
        if totals["mixes"] % 50 == 0:
            print(f"  {totals['games']} games, {totals['decisions']} decisions, {totals['mixes']} rule mixes, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
    print(f"batch check: {totals['games']} games, {totals['hands']} hands, {totals['decisions']} decisions over "
          f"{totals['mixes']} rule mixes, {totals['records']} records compared and replayed, in "
          f"{time.perf_counter() - start:.0f} s: all identical to the reference engine")
    print(f"  {len(configs)} (variant, players, partnerships) settings: "
          + ", ".join(f"{v} {n}p{'' if p is None else (' partners' if p else ' solo')}" for v, n, p in sorted(configs, key=str)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
