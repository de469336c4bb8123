"""Optional warm start: before self-play, fit the policy to an agent's decisions (behaviour cloning).

With ``imitate: heuristic`` the run first plays games with that agent in every seat, records each
decision (observation, mask, action, through the same observation transform), and trains the policy
head by cross-entropy on them; PPO then starts from a policy that already plays sensibly.
"""

from __future__ import annotations

import numpy as np
import torch

from pitch_env.engine import Game

from .opponents import AgentOpponent, make_agent


def collect(rules, spec: str, decisions: int, transform, seed: int):
    """(observations, masks, actions) of ``decisions`` moves by ``spec`` playing every seat."""
    from pitch_env.actions import ActionLayout
    from pitch_env.observer import Observer

    observer = Observer(rules)
    size = ActionLayout(rules).size
    players = [AgentOpponent(make_agent(spec, rules), observer, size) for _ in range(rules.num_players)]
    obs = np.zeros((decisions, observer.size), np.float32)
    masks = np.zeros((decisions, size), bool)
    actions = np.zeros(decisions, np.int64)
    rng = np.random.default_rng(seed)
    i = 0
    while i < decisions:
        game = Game(rules, seed=int(rng.integers(2**62)))
        for p in players:
            p.reset(int(rng.integers(2**31)))
        while not game.is_over and i < decisions:
            seat = game.current_seat
            mask = np.zeros(size, np.int8)
            mask[game.legal_actions()] = 1
            o = observer.encode(game, seat)
            action = players[seat].act(game, seat, o)
            if transform is not None:
                o, mask, act_src = transform.apply(o, mask)
                canon = int(np.flatnonzero(act_src == action)[0])
            else:
                canon = action
            obs[i], masks[i], actions[i] = o, mask.astype(bool), canon
            i += 1
            game.apply(action)
    return obs, masks, actions


def pretrain(model, data, epochs: int, batch_size: int = 512, lr: float = 1e-3, logger=None) -> float:
    """Cross-entropy of the masked policy on ``data``; returns the final training accuracy."""
    obs, masks, actions = data
    policy = model.policy
    params = [*policy.mlp_extractor.policy_net.parameters(), *policy.action_net.parameters()]
    opt = torch.optim.Adam(params, lr=lr)
    n = len(actions)
    rng = np.random.default_rng(0)
    acc = 0.0
    for epoch in range(epochs):
        order = rng.permutation(n)
        correct, total_loss = 0, 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            o = torch.as_tensor(obs[idx])
            dist = policy.get_distribution(o, action_masks=masks[idx])
            a = torch.as_tensor(actions[idx])
            loss = -dist.log_prob(a).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total_loss += loss.detach().item() * len(idx)
            correct += int((dist.distribution.probs.argmax(-1) == a).sum())
        acc = correct / n
        if logger is not None:
            logger.record("imitate/loss", total_loss / n)
            logger.record("imitate/accuracy", acc)
            logger.dump(epoch)
    return acc
