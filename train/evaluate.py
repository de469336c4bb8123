"""Evaluating a trained policy with the tournament tool: duplicate deals, Wilson intervals.

``evaluate_policy`` plays a checkpoint against one opponent; ``compare`` plays it against several
and returns rows for the tables of ``pitch train``, ``make run`` and the model cards;
``log_evaluation`` is a training run's evaluation, written to TensorBoard.
"""

from __future__ import annotations

from agents.tournament import run_tournament


def evaluate_policy(path, rules, opponent: str, games: int, seed: int = 0, workers: int = 1,
                    progress: bool = False, alone: bool = False) -> dict:
    """Win rate (and its 95% Wilson interval) of ``checkpoint:path`` against ``opponent``
    (``progress``: a bar with ETA while the games are played). In a solo game the agent holds two
    alternating seats, or with ``alone`` one seat against a copy of ``opponent`` in every other: a
    figure that two copies of the agent helping each other cannot inflate."""
    field = [opponent] * (rules.num_players - 1 if alone else 1)
    res = run_tournament(rules, [f"checkpoint:{path}", *field], games=games, seed=seed,
                         workers=workers, names=["agent", *field], progress=progress)
    me, them = res.stats[0], res.stats[1]
    label = f"{opponent} ×{len(field)}, alone" if alone else opponent
    return {"opponent": label, "games": me.games, "wins": me.wins, "win_rate": me.win_rate,
            "low": me.win_low, "high": me.win_high, "margin": me.mean_margin,
            "points_per_hand": me.points_per_hand, "bids_made": me.bids_made,
            "truncated": res.truncated, "wall_s": res.wall_s,
            "think_s": me.think_s_per_game, "opponent_think_s": them.think_s_per_game}


def log_evaluation(cfg, run, policy, steps: int, logger, stop=None) -> None:
    """Save ``policy`` as the run's ``eval.safetensors`` and log its win rate (and the interval's lower
    bound) against each of the config's ``eval_opponents`` at ``steps``; a signal stops between opponents."""
    from pitch_policy import save_policy

    from .rundir import policy_card, tag

    path = run.path / "eval.safetensors"
    save_policy(path, policy, policy_card(cfg, policy, steps))
    for opponent in cfg.eval_opponents:
        if stop:
            break
        res = evaluate_policy(path, cfg.resolved_rules(), opponent, cfg.eval_games, seed=cfg.seed)
        logger.record(f"eval/win_rate_vs_{tag(opponent)}", res["win_rate"])
        logger.record(f"eval/win_rate_low_vs_{tag(opponent)}", res["low"])
    logger.dump(steps)


def compare(path, rules, opponents: list[str], games: int, seed: int = 0, workers: int = 1,
            progress: bool = False, alone: bool = False) -> list[dict]:
    return [evaluate_policy(path, rules, o, games, seed, workers, progress, alone) for o in opponents]


HEADERS = ("opponent", "games", "win rate", "95% Wilson", "mean margin", "bids made", "truncated",
           "CPU s/game: agent, opponent (ratio)")  # ratio: the agent's time as a percentage of the opponent's


def cells(rows: list[dict]) -> list[tuple[str, ...]]:
    """The table of ``compare`` rows, one tuple of text per row under HEADERS: the terminal's table
    (agents/report.py) and the model card's Markdown are the same cells."""
    return [(r["opponent"], str(r["games"]), f"{100 * r['win_rate']:.1f}%", f"{100 * r['low']:.1f}–{100 * r['high']:.1f}%",
             f"{r['margin']:+.2f}", f"{100 * r['bids_made']:.0f}%", str(r["truncated"]),
             f"{r['think_s']:.3f}, {r['opponent_think_s']:.3f} ({_ratio(r['think_s'], r['opponent_think_s'])})")
            for r in rows]


def table(rows: list[dict]) -> str:
    """A Markdown table of ``compare`` rows (for model cards); thinking time is CPU seconds per game of
    each side, and the agent's as a share of the opponent's."""
    out = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    out += ["| " + " | ".join(row) + " |" for row in cells(rows)]
    return "\n".join(out)


def _ratio(mine: float, theirs: float) -> str:
    """The agent's thinking time as a percentage of the opponent's, two significant figures under 10%
    (0.81%, 0.80%, 1.0%, 4.2%), whole percents above (37%, 370%): a trailing zero is kept, so 1.0% is not 1%."""
    if mine <= 0 or theirs <= 0:
        return "-"
    share = 100 * mine / theirs
    return f"{share:#.2g}%" if float(f"{share:.2g}") < 10 else f"{share:.0f}%"
