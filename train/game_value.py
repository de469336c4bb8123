"""Fitting a game value (pitch_policy/game_value.py): a side's chance of winning the game from the
scores and the deal at a hand's start, learned from self-play games of a policy.

The policy plays every seat greedily (agents/netpimc.py ``NetRollouts``, the search's own rollout
player), many games stepped together; every hand's start is a row for every side, labelled with
whether that side went on to win. A small network (two hidden layers of 64) is fitted to them by
cross-entropy; a twentieth of the games is held out, and the fit's log loss on them is reported
beside that of the constant base rate.
"""

from __future__ import annotations

import numpy as np

from pitch_policy.game_value import GameValue, feature_size, features

HIDDEN = (64, 64)
BATCH = 4096


def play_scores(rules, policy_path: str, games: int, seed: int, batch: int = 500) -> dict[str, np.ndarray]:
    """Self-play games of the policy: each hand start's ``scores``, ``dealer``, ``hands`` (dealt so far)
    and ``game`` (which game), and each row's game ``winner`` (the side; -1 for a game cut off at the
    hand limit)."""
    import torch

    from agents.netpimc import NetRollouts
    from pitch_env.engine import OVER, Game
    from pitch_policy import load_policy

    torch.set_num_threads(1)
    policy, _ = load_policy(policy_path, rules)
    player = NetRollouts(policy, rules)
    rows, winner = [], {}
    for first in range(0, games, batch):
        ids = list(range(first, min(games, first + batch)))
        table = [Game(rules, seed=(seed * 1_000_003 + k) % 2**62) for k in ids]
        lives = [player.table(g) for g in table]
        rows += [(k, g.hand_number, g.dealer, *g.scores) for k, g in zip(ids, table)]
        live = list(range(len(ids)))
        while live:
            live, ended = player.step(table, lives, live)
            for i in ended:
                g = table[i]
                if g.phase == OVER:
                    winner[ids[i]] = -1 if g.winner is None else g.winner
                else:  # a new hand: its start is a row
                    lives[i].sync(g)
                    rows.append((ids[i], g.hand_number, g.dealer, *g.scores))
                    live.append(i)
            live.sort()  # the games in their order, each step: one forward pass over the same rows
    r = np.array(rows, np.int64).reshape(-1, 3 + rules.num_sides)
    return {"game": r[:, 0], "hands": r[:, 1], "dealer": r[:, 2], "scores": r[:, 3:],
            "winner": np.array([winner[k] for k in r[:, 0].tolist()], np.int64)}


def fit_game_value(rules, data: dict[str, np.ndarray], seed: int, epochs: int = 6,
                   learning_rate: float = 1e-3) -> tuple[GameValue, dict]:
    """The network fitted to ``play_scores``' rows (one per side per hand start), and its statistics:
    rows, games, held-out log loss and the constant base rate's."""
    import torch

    torch.manual_seed(seed)
    k = rules.num_sides
    n = len(data["game"])
    sides = np.repeat(np.arange(k), n)
    pick = np.tile(np.arange(n), k)
    x = features(rules, data["scores"][pick], data["dealer"][pick], data["hands"][pick], sides)
    y = (data["winner"][pick] == sides).astype(np.float32)
    held = data["game"][pick] % 20 == 0
    X, Y = torch.from_numpy(x[~held]), torch.from_numpy(y[~held])
    Xh, Yh = torch.from_numpy(x[held]), torch.from_numpy(y[held])
    sizes = [feature_size(rules), *HIDDEN, 1]
    mods = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        mods += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    net = torch.nn.Sequential(*mods[:-1])
    opt = torch.optim.Adam(net.parameters(), learning_rate)
    loss_of = torch.nn.BCEWithLogitsLoss()
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        perm = torch.randperm(len(X), generator=g)
        for i in range(0, len(X), BATCH):
            b = perm[i:i + BATCH]
            loss = loss_of(net(X[b]).squeeze(1), Y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        held_loss = float(loss_of(net(Xh).squeeze(1), Yh)) if len(Xh) else float("nan")
    p = float(Yh.mean()) if len(Yh) else float("nan")
    base = -(p * np.log(p) + (1 - p) * np.log(1 - p)) if 0 < p < 1 else float("nan")
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    layers = [(m.weight.detach().numpy().astype(np.float32), m.bias.detach().numpy().astype(np.float32))
              for m in linears]
    stats = {"rows": int(len(y)), "games": int(len(np.unique(data["game"]))), "held_out_log_loss": held_loss,
             "base_rate_log_loss": float(base)}
    return GameValue(rules, layers), stats
