"""``pitch fuse``: several trained policies of one game as one agent (their product of experts,
pitch_policy/fuse.py), written as a checkpoint folder with its model card.

    pitch fuse setback_scratch setback --out checkpoints/setback_fused --games 2000 --pimc-games 1000

Two networks trained differently (PPO from nothing, expert iteration from a distilled search) often
err on different decisions; the fused one moves where their log-probabilities agree most. The card's
table measures whether that beats each member (``--against`` adds head-to-head rows).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pitch_policy import WEIGHTS_FILE, CheckpointError, load_policy, read_policy, save_policy
from pitch_policy.fuse import fuse

DESCRIPTION = ("Several trained policies of one game as one agent (their product of experts, pitch_policy/fuse.py), "
               "written as a checkpoint folder with its model card. POLICY is a shipped agent's name "
               "(setback_scratch), a .safetensors file, or a checkpoint or run folder. The fused network's logits "
               "are the weighted sum of the members' (so its moves follow the sum of their log-probabilities); it "
               "reads the heuristic's hint when any member does.")


def register(subparsers) -> None:
    p = subparsers.add_parser("fuse", help="several trained policies of one game as one agent (product of experts)",
                              description=DESCRIPTION, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("policies", nargs="+", metavar="POLICY", help="two or more policies of the same game")
    p.add_argument("--out", required=True, help="checkpoint folder to write (policy.safetensors and README.md)")
    p.add_argument("--weights", default=None, help="comma-separated weights, one per policy (none: 1 each)")
    p.add_argument("--force", action="store_true", help="replace a policy already in --out")
    p.add_argument("--games", type=int, default=2000, help="the card's games against random and heuristic (0: none)")
    p.add_argument("--pimc", default="pimc:12", help="the card's search opponent")
    p.add_argument("--pimc-games", type=int, default=0, help="the card's games against --pimc (0: none; it is slow)")
    p.add_argument("--against", action="extend", nargs="+", default=[], metavar="SPEC",
                   help="more opponents for the card's table, played --games games each (e.g. checkpoint:setback)")
    p.add_argument("--seed", type=int, default=2024, help="the card's tournament seed")
    p.add_argument("--workers", type=int, default=2, help="processes for the card's games")
    p.set_defaults(func=cmd_fuse)


def cmd_fuse(args) -> int:
    from agents.workers import check_workers

    from .model_card import check_checkpoint_folder, write_and_report

    def write() -> str:
        weights = _weights(args.weights, len(args.policies))
        if args.games < 0 or args.pimc_games < 0:
            raise CheckpointError("--games and --pimc-games count games: give 0 or more")
        if args.workers < 1:
            raise CheckpointError(f"--workers {args.workers}: use 1 or more processes")
        check_workers(args.workers, "--workers")
        out = Path(args.out)
        check_checkpoint_folder(out, "--out", args.force)
        return write_fused(args.policies, weights, out, args.games, args.pimc, args.pimc_games, args.against,
                           args.seed, args.workers)
    return write_and_report(args.out, write)


def _weights(text: str | None, n: int) -> list[float] | None:
    if text is None or not text.strip():
        return None
    try:
        weights = [float(w) for w in text.split(",")]
    except ValueError:
        raise CheckpointError(f"--weights {text!r}: give {n} comma-separated numbers, e.g. "
                              f"{','.join(['1'] * n)}") from None
    return weights


def write_fused(policies: list[str], weights: list[float] | None, out: Path, games: int, pimc: str,
                pimc_games: int, against: list[str], seed: int, workers: int) -> str:
    """Fuse ``policies``, measure the fused policy and write it as the checkpoint ``out`` (policy.safetensors
    and README.md); the card's text. The games are played from a temporary file: ``out`` is written only
    once its card is whole, so a failed or interrupted table leaves the folder as it was."""
    import agents
    import pitch_env
    from agents.checkpoint import resolve_policy_path

    from .model_card import install_checkpoint

    t0 = time.perf_counter()
    members, folders = [], []  # folders: where a member's model card is, None without one
    for spec in policies:
        name = spec.removeprefix("checkpoint:")
        path = resolve_policy_path(name)
        policy, card = read_policy(path)
        members.append((policy, card, name))
        folders.append(path.parent if (path.parent / "README.md").is_file() else None)
    fused, card = fuse(members, weights)
    rules = pitch_env.rules(card["variant"], **{k: v for k, v in card["rules"].items() if k != "variant"})
    for spec in [*against, *([pimc] if pimc_games else [])]:  # a bad opponent fails before anything is written
        agents.make(spec, rules)
    with tempfile.TemporaryDirectory(prefix="pitch-fuse-") as tmp:
        src = Path(tmp) / WEIGHTS_FILE
        save_policy(src, fused, card)
        load_policy(src, rules)  # read back through the loader every agent uses
        fuse_s = time.perf_counter() - t0
        text = _card(src, out, rules, members, folders, card, games, pimc, pimc_games, against, seed,
                     workers, fuse_s)
        install_checkpoint(src, out, text)
    return text


def _card(src: Path, out: Path, rules, members, folders: list[Path | None], card: dict, games: int, pimc: str,
          pimc_games: int, against: list[str], seed: int, workers: int, fuse_s: float) -> str:
    from .evaluate import compare
    from .model_card import agent_origin, card_recipe, card_training, render_card

    t0 = time.perf_counter()
    rows = compare(src, rules, ["random", "heuristic", *against], games, seed=seed, workers=workers) if games else []
    if pimc_games:
        rows += compare(src, rules, [pimc], pimc_games, seed=seed, workers=workers)
    eval_s = time.perf_counter() - t0
    fused = card["config"]["fused"]
    parts = [(agent_origin(str(f)) if f else f"`{m['policy']}`")
             + ("" if m["weight"] == 1 else f", weight {m['weight']:g}") for f, m in zip(folders, fused)]
    lineage = (f"the product of experts of {', '.join(parts[:-1])} and {parts[-1]}: one network whose logits are "
               "the weighted sum of theirs (pitch_policy/fuse.py), their hidden layers side by side. Its move is "
               "the legal action whose weighted sum of the members' log-probabilities is highest.")
    weights = ",".join(f"{m['weight']:g}" for m in fused)
    fuse_line = " ".join(["pitch fuse", *(m[2] for m in members), "--out", str(out),
                          *(["--weights", weights] if any(m["weight"] != 1 for m in fused) else [])])
    recipe = [line for f in folders if f for line in card_recipe(f)]
    recipe.append(fuse_line)  # the members' recipes first
    trained = [card_training(f) if f else "not on its card" for f in folders]
    compute = [f"fusing: {'under a second' if fuse_s < 1 else f'{fuse_s:.0f} s'}; no training of its own. The "
               "members' training, as their cards give it: "
               + "; ".join(f"`{m[2]}`: {t}" for m, t in zip(members, trained))]
    facts = [f"{len(members)} members, {card['training_steps']:,} training steps between them; one forward pass "
             "of the fused network per decision"]
    return render_card(out.name, rules.variant, rules, card,
                       f"a `{rules.variant}` agent fused from {len(members)} trained networks",
                       lineage, recipe, compute, facts, rows, games, pimc, pimc_games, seed, eval_s)

