"""The game value: a side's chance of winning the game from the scores and the deal at the start of a
hand, as a small network of those few numbers. A search that plays each world only to the end of its
hand (agents/netpimc.py) can then value the hand by the game it leaves, not by its points: in a game
that only a pitcher can win (auction) the same score change is worth more or less with who is near
the target and who deals next.

Its input, from the side's point of view (``features``): each relative side's score, one-hot over
``score_bins`` plus the score / target; the dealer relative to the side (one-hot over seats); the
hands played / the hand limit. One output, a logit. The file is the policy file's kind
(pitch_policy/file.py): safetensors tensors and a JSON card, read back checked, never unpickled.
``train/game_value.py`` fits one from self-play games of a policy.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from pitch_env.files import atomic_write

from .file import INCONSISTENT, CheckpointError, brief, check_tensors, read_tensors, tensors_digest, tensors_of
from .network import PolicyMLP

FORMAT = "pitch-game-value/1"
FILE = "game_value.safetensors"  # its name inside a run directory


def score_bins(rules) -> tuple[int, int]:
    """The lowest and highest score the one-hot tells apart (scores beyond count as these): twice the
    target below zero, a hand's worth above the target."""
    return -2 * rules.target_score, rules.target_score + rules.max_hand_points


def feature_size(rules) -> int:
    lo, hi = score_bins(rules)
    return rules.num_sides * (hi - lo + 2) + rules.num_players + 1


def features(rules, scores: np.ndarray, dealer: np.ndarray, hands: np.ndarray, sides: np.ndarray) -> np.ndarray:
    """The network's input for each row: ``scores`` ``[n, num_sides]`` (absolute sides), the hand's
    ``dealer`` seat, ``hands`` dealt so far and the ``side`` whose chance it is."""
    scores = np.asarray(scores, np.int64)
    n, k = scores.shape
    sides = np.asarray(sides, np.int64)
    lo, hi = score_bins(rules)
    width = hi - lo + 2
    rel = scores[np.arange(n)[:, None], (sides[:, None] + np.arange(k)) % k]  # own side first, then to its left
    x = np.zeros((n, feature_size(rules)), np.float32)
    rows = np.arange(n)
    for j in range(k):
        x[rows, j * width + np.clip(rel[:, j], lo, hi) - lo] = 1.0
        x[:, j * width + width - 1] = rel[:, j] / rules.target_score
    x[rows, k * width + (np.asarray(dealer, np.int64) - sides) % rules.num_players] = 1.0
    x[:, -1] = np.asarray(hands, np.float32) / rules.max_hands
    return x


class GameValue:
    """The fitted network for one rule set: ``chance`` of winning for each (game, side)."""

    def __init__(self, rules, layers: list[tuple[np.ndarray, np.ndarray]], info: dict | None = None):
        self.rules = rules
        self.net = PolicyMLP(layers, "relu")
        self.info = info or {}  # how it was fitted (its file's card), for a model card

    def chance(self, scores, dealer, hands, sides) -> np.ndarray:
        """Each row's chance of winning, in (0, 1) (``features``' arguments)."""
        z = self.net.logits(features(self.rules, scores, dealer, hands, sides))[:, 0]
        return 1.0 / (1.0 + np.exp(-z.astype(np.float64)))

    def of_games(self, games, sides) -> np.ndarray:
        """The chance of each engine Game's ``side`` from where the game stands after a hand (``after_hand``).
        A search's world (engine ``world_rules``) stops after its hand: it counts as the next hand the real
        game would deal (the next dealer, one hand more)."""
        n, limit = self.rules.num_players, self.rules.max_hands
        rows = []  # (winner, at the hand limit, scores, the next hand's dealer and number)
        for g in games:
            winner = -1 if g.winner is None else g.winner
            if not g.truncated:  # a real game: its next hand is dealt (or it is won)
                rows.append((winner, False, g.scores, g.dealer, g.hand_number))
            else:  # the real limit, or a world cut off after its hand
                rows.append((winner, g.hand_number >= limit, g.scores, (g.dealer + 1) % n, g.hand_number + 1))
        winner, limit_reached, scores, dealer, hands = zip(*rows)
        return self.after_hand(winner, limit_reached, scores, dealer, hands, sides)

    def after_hand(self, winner, limit_reached, scores, dealer, hands, sides) -> np.ndarray:
        """The chance of each row's side after a hand: 1 or 0 once the game is won (``winner``: a side, or
        -1), 0 at the rules' hand limit (nobody wins), else the network's chance at the next hand's start
        (``scores``, its ``dealer`` and number ``hands``)."""
        winner, sides = np.asarray(winner, np.int64), np.asarray(sides, np.int64)
        out = (winner == sides).astype(np.float64)
        on = np.flatnonzero((winner < 0) & ~np.asarray(limit_reached, bool))
        if on.size:
            out[on] = self.chance(np.asarray(scores, np.int64)[on], np.asarray(dealer)[on], np.asarray(hands)[on],
                                  sides[on])
        return out


def save_game_value(path: str | Path, value: GameValue, info: dict) -> None:
    """Write the network and a card (its rules, shape and ``info``: how it was fitted), atomically."""
    from safetensors.numpy import save_file

    tensors = tensors_of(value.net)
    card = {"format": FORMAT, "variant": value.rules.variant, "rules": value.rules.as_dict(),
            "network": {"shape": value.net.shape}, "info": info, "sha256": tensors_digest(tensors)}
    atomic_write(path, lambda tmp: save_file(tensors, tmp, metadata={"pitch_card": json.dumps(card)}))


def load_game_value(path: str | Path, rules) -> GameValue:
    """The game value at ``path``, checked for damage and against ``rules``; CheckpointError otherwise."""
    p = Path(path)
    where = f"game value {str(p)!r}"
    if not p.is_file():
        raise CheckpointError(f"{where} not found: fit one with `pitch exit` (leaf: game) or train/game_value.py")
    tensors, card = read_tensors(p, FORMAT, where, "a game value card", "pitch-rl", "Delete it and fit it again.")
    if card.get("variant") != rules.variant or card.get("rules") != rules.as_dict():
        raise CheckpointError(f"{where} was fitted for other rules ({brief(card.get('variant'))}); fit one for "
                              f"{rules.variant!r} with these options")
    shape = (card.get("network") or {}).get("shape") if isinstance(card.get("network"), dict) else None
    if not (isinstance(shape, list) and len(shape) >= 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                 and 0 < v <= 4096 for v in shape)):
        raise CheckpointError(f"{where}: its card's network.shape is {brief(shape)}, expected a list of sizes; "
                              f"{INCONSISTENT}")
    if shape[0] != feature_size(rules) or shape[-1] != 1:
        raise CheckpointError(f"{where}: its network {shape} does not read this game's {feature_size(rules)} "
                              f"features into one output; {INCONSISTENT}")
    info = card.get("info")
    return GameValue(rules, check_tensors(tensors, shape, where), info if isinstance(info, dict) else {})
