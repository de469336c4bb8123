"""Ship a trained run as checkpoints/NAME: the policy file plus a README model card (lineage, recipe,
compute, strength) whose table comes from duplicate-deal tournaments against random, heuristic and PIMC.

Run: ``python -m train.model_card runs/RUN checkpoints/NAME [--games 2000] [--pimc-games 200] [--force]``; for an
expert-iteration run (train/exit.py, it has generations.json) the card also shows each generation.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
from pathlib import Path

from agents.stats import Z95
from pitch_policy import WEIGHTS_FILE, CheckpointError, load_policy, read_policy
from pitch_env.files import atomic_write

from .config import load_config
from .evaluate import compare, table


def write_card(run: Path, dest: Path, games: int, pimc: str, pimc_games: int, workers: int, seed: int,
               config: str = "", machine: str = "") -> str:
    run, dest = Path(run), Path(dest)
    cfg = load_config(run / "config.yaml")
    config = config or f"configs/{cfg.variant}.yaml"
    rules = cfg.resolved_rules()
    src = run / "checkpoint" / WEIGHTS_FILE
    card, rows, eval_s = _ship(src, rules, games, [], pimc, pimc_games, workers, seed)
    state = _train_state(run)
    im = state.get("imitation")
    lineage = _train_lineage(cfg, state, card["training_steps"], config)
    compute = [f"training: {state.get('wall_time', 0) / 60:.1f} min of wall time on {machine or _machine()} "
               f"({'imitation and evaluations' if im else 'evaluations'} included)"]
    recipe = [f"pitch train --config {config}"]
    teacher = _card_folder(cfg.imitate) if im else _card_folder(f"checkpoint:{cfg.start}") if cfg.start else None
    role = "teacher" if im else "start"
    if teacher is not None:  # a trained agent taught it or started it: where that one came from, as its card says
        lineage += f". Its {role} `{teacher.name}`: {card_section(teacher, 'Lineage')}"
        recipe = card_recipe(teacher) + recipe
        compute.append(f"its {role}'s training, as its card gives it: {card_training(teacher)}")
    facts = [_imitation_line(cfg, state).strip()[2:]] if im else []
    config_text = "\n".join(line for line in (run / "config.yaml").read_text().strip().splitlines()
                             if not line.startswith(_WHERE))
    text = render_card(dest.name, cfg.variant, rules, card, f"a trained `{cfg.variant}` agent ({_recipe(cfg)})",
                       lineage, recipe, compute, facts, rows, games, pimc, pimc_games,
                       seed, eval_s, config_block=("yaml", config_text))
    install_checkpoint(src, dest, text)
    return text


def _train_state(run: Path) -> dict:
    """The state.json of a `pitch train` run's checkpoint (its wall time, its imitation)."""
    return json.loads((Path(run) / "checkpoint" / "state.json").read_text())


def _train_lineage(cfg, state: dict, steps: int, config: str) -> str:
    """Where a `pitch train` run's policy came from: what taught or started it, then its self-play."""
    im = state.get("imitation")
    taught = (f"`{cfg.imitate or im['source']}`" + (f" against {cfg.imitate_against}" if cfg.imitate_against else "")
              + f", imitated ({im['decisions']:,} decisions), then " if im
              else f"the policy `{cfg.start}`, then " if cfg.start else "nothing: ")
    return f"{taught}{steps:,} steps of {_trainer(cfg)} self-play ({config})"


# Where a run was written says nothing about the agent (and may be a temporary folder): left off cards.
_WHERE = ("run_name:", "runs_dir:")


def _machine() -> str:
    from agents.leaderboard import machine

    return machine()


def render_card(name: str, variant: str, rules, card: dict, title: str, lineage: str, recipe: list[str],
                compute: list[str], facts: list[str], rows: list[dict], games: int, pimc: str, pimc_games: int,
                seed: int, eval_s: float, extra: str = "", config_block: tuple[str, str] | None = None) -> str:
    """Every card's template: what it is and how to play it, then Lineage, Recipe, Compute and Strength."""
    obs = card["observation"]
    reproduce = (f"`pitch tournament --variant {variant} --agents checkpoint:{name},OPPONENT --games {games} "
                 f"--seed {seed}`" + (f" (`--games {pimc_games}` for `{pimc}`)" if pimc_games else ""))
    if _solo_field(rules):
        field = ",".join(["heuristic"] * (rules.num_players - 1))
        reproduce += f"; the row alone is `--agents checkpoint:{name},{field}`"
    lines = [f"# `{name}`: {title}", "",
             f"Play it with the agent spec `checkpoint:{name}`, e.g. `pitch play --variant {variant} --opponents "
             f"checkpoint:{name}` or `pitch tournament --variant {variant} --agents checkpoint:{name},heuristic`. "
             f"The file is safetensors weights with a JSON card (network {card['network']['shape']} "
             f"{card['network']['activation']}, observation layout v{obs['layout_version']}, hint "
             f"{obs.get('hint', 'none')}); it loads only for exactly these rules.", "",
             f"- rules: `{variant}`, {rules.num_players} players, {'partnerships' if rules.partnerships else 'solo'}",
             *(f"- {f}" for f in facts), "",
             "## Lineage", "", lineage, "",
             "## Recipe", "", "```", *recipe, "```", "",
             "## Compute", "", *(f"- {c}" for c in compute),
             f"- the strength table: {eval_s / 60:.1f} min", "",
             "## Strength", ""]
    if rows:
        lines += [f"Duplicate deals, every deal played with the seats swapped; 95% Wilson intervals. {_seating(rules)} "
                  "Truncated games count as not won.", "", table(rows), "", f"Each row is {reproduce}.", ""]
    else:
        lines += [f"Not measured: `pitch tournament --variant {variant} --agents checkpoint:{name},heuristic "
                  f"--games 2000 --seed {seed}` measures it.", ""]
    if extra:
        lines += [extra.strip(), ""]
    if config_block:
        lines += ["## Resolved config", "", f"```{config_block[0]}", config_block[1], "```", ""]
    return "\n".join(lines)


def agent_origin(start: str) -> str:
    """The start of an expert-iteration run as its lineage names it: its name, and the config that made
    it when its card's recipe says (checkpoints/setback_base -> `setback_base` (configs/setback.yaml)).
    Only the recipe's last command made it: a start made by `pitch fuse` names no config."""
    folder = Path(start) if Path(start).is_dir() else Path(start).parent
    name = folder.name if Path(start).is_dir() else Path(start).stem
    config = re.search(r"--config (\S+\.yaml)", (card_recipe(folder) or [""])[-1])
    return f"`{name}` ({config[1]})" if config else f"`{name}`"


def card_section(folder: Path, section: str) -> str:
    """The text of one section (``## SECTION``) of the model card in ``folder``; "" without one."""
    try:
        text = (Path(folder) / "README.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):  # no card, or not a text file: a card with no sections
        return ""
    return text.split(f"## {section}", 1)[1].split("\n## ", 1)[0].strip() if f"## {section}" in text else ""


def card_recipe(folder: Path) -> list[str]:
    """The command lines of the Recipe section of the model card in ``folder`` ([] without one)."""
    return [line for line in card_section(folder, "Recipe").splitlines()
            if line.strip() and not line.startswith("```")]


def card_training(folder: Path) -> str:
    """What the model card in ``folder`` says its training cost: the first line of its Compute section
    (a fused agent's says what its members' cost), without the "training: " that opens most."""
    lines = [x[2:] for x in card_section(folder, "Compute").splitlines()
             if x.startswith("- ") and not x.startswith("- the strength table")]
    return lines[0].removeprefix("training: ") if lines else "not on its card"


def _card_folder(spec: str) -> Path | None:
    """The checkpoint folder of agent spec ``checkpoint:PATH`` when it holds a model card, else None."""
    from agents.checkpoint import resolve_policy_path

    if not spec.startswith("checkpoint:"):
        return None
    try:
        folder = resolve_policy_path(spec.removeprefix("checkpoint:")).parent
    except (ValueError, OSError):
        return None
    return folder if (folder / "README.md").is_file() else None


def _ship(src: Path, rules, games: int, more: list[str], pimc: str, pimc_games: int, workers: int,
          seed: int) -> tuple[dict, list[dict], float]:
    """Measure the policy ``src`` (refusing a damaged or mismatched file first): ``games`` duplicate
    games against random, heuristic and each of ``more``, ``pimc_games`` against ``pimc``. Returns its
    card, the table's rows and the seconds the games took. Nothing is written: ``install_checkpoint`` writes the
    checkpoint once its card is whole, so a failed or interrupted table leaves the folder as it was."""
    load_policy(src, rules)  # refuses a damaged file, or one for other rules or layouts
    _, card = read_policy(src)  # the file's own card (load_policy's describes an older layout's policy as loaded)
    t0 = time.perf_counter()
    rows = compare(src, rules, ["random", "heuristic", *more], games, seed=seed, workers=workers)
    if _solo_field(rules):
        rows += compare(src, rules, ["heuristic"], games, seed=seed, workers=workers, alone=True)
    if pimc_games:
        rows += compare(src, rules, [pimc], pimc_games, seed=seed, workers=workers)
    return card, rows, time.perf_counter() - t0


def install_checkpoint(src: Path, dest: Path, text: str) -> None:
    """Write the checkpoint ``dest``: the policy file copied from ``src``, then its card."""
    atomic_write(dest / WEIGHTS_FILE, lambda tmp: shutil.copyfile(src, tmp))
    atomic_write(dest / "README.md", lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def _recipe(cfg) -> str:
    parts = []
    if cfg.hint != "none":
        parts.append(f"reads the {cfg.hint}'s choice")
    if cfg.imitate:
        against = f" against {cfg.imitate_against}" if cfg.imitate_against else ""
        parts.append(f"fitted to `{cfg.imitate}`{against}")
    if cfg.start:
        parts.append(f"started from `{cfg.start}`")
    if not parts:
        parts.append("learned from nothing")
    parts.append("MaskablePPO self-play" if cfg.trainer == "sb3" else "batched PPO self-play")
    return ", ".join(parts)


def _trainer(cfg) -> str:
    if cfg.trainer == "sb3":
        return "sb3-contrib MaskablePPO"
    return (f"PPO on the batched self-play core (train/ppo.py: {cfg.num_envs} games in lockstep on {cfg.workers or 1} "
            f"process{'es' if cfg.workers > 1 else ''}, {100 * cfg.mirror:.0f}% mirror games"
            f"{f', {100 * cfg.start_scores:.0f}% dealt at random scores' if cfg.start_scores else ''}"
            f"{', advantages summed within each hand' if cfg.advantage_horizon == 'hand' else ''}"
            f"{', bootstrapped from a value of the scores' if cfg.hand_bootstrap == 'scores' else ''})")


def _imitation_line(cfg, state: dict) -> str:
    im = state.get("imitation")
    if not im:
        return ""
    against = f" playing against `{cfg.imitate_against}`" if cfg.imitate_against else " in every seat"
    split = (f" ({cfg.imitate_decisions:,} in full games, {cfg.imitate_bids:,} more at bids alone)"
             if cfg.imitate_bids and not cfg.imitate_data else "")
    return (f"- warm start: fitted to {im['decisions']:,} decisions of `{cfg.imitate or im['source']}`{against}{split} "
            f"({cfg.imitate_epochs} epochs, training accuracy {100 * im['accuracy']:.1f}%)\n")


def _solo_field(rules) -> bool:
    """Whether the card adds a row of the agent alone against the heuristic in every other seat: a solo
    game of more than two, where the agent's two seats could help each other (one blocks the auction,
    the other wins) and inflate the alternate-seat figure."""
    return not rules.partnerships and rules.num_players > 2


def _seating(rules) -> str:
    if rules.partnerships:
        return "Win rate of this agent's side (both partners) against the opponent's side."
    alone = (f" In the row marked alone the agent holds one seat and the heuristic the other "
             f"{rules.num_players - 1} (fair share {100 / rules.num_players:.0f}%), so no second seat of the "
             "agent's can help it win." if _solo_field(rules) else "")
    return (f"Solo game: the agent holds two alternating seats and the opponent the other "
            f"{rules.num_players - 2}; a game counts as won when one of the agent's seats wins (fair share "
            f"{100 * 2 / rules.num_players:.0f}%).{alone}")


def write_exit_card(run: Path, dest: Path, games: int, pimc: str, pimc_games: int, workers: int, seed: int,
                    config: str = "", previous: str = "", note: str = "", machine: str = "") -> str:
    """The card of an expert-iteration run (train/exit.py): the best policy, its strength, and what
    each generation measured. ``previous``: the agent it grew from, for a head-to-head row."""
    from .exit import DRAWING_KEYS, START_RUN, Run, saved_config, stages, teacher_name

    run, dest = Path(run), Path(dest)
    saved, cfg = saved_config(run)
    rules = cfg.resolved_rules()
    state = Run(run)
    state.check(cfg)  # each row what this config writes (a folded run's rows carry their fold's agreement)
    rows_g = state.rows
    card, rows, eval_s = _ship(run / "best.safetensors", rules, games, [previous] if previous else [], pimc,
                               pimc_games, workers, seed)
    config = config or f"configs/exit/{cfg.variant}_recipe.yaml"
    dealt = cfg.worlds_from == "dealt"  # no search: its "action" is the best's own choice, never overridden
    head = (["generation", "teacher", "decisions recorded", "fitted"]
            + ([] if dealt else ["search overrode the net"])
            + ["held-out: the candidate keeps the best's choice" if dealt else "held-out accuracy before → after"]
            + (["held-out: the folded network picks the fused one's action"] if cfg.fold else [])
            + ["candidate vs best (games)", "95% Wilson"]
            + (["against the panel: candidate / best (games)"] if cfg.gate_panel else [])
            + ["kept", "wall time"])
    gen_table = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows_g:
        worlds = r.get("worlds", cfg.worlds)  # rows of runs from before stages do not say; they had one stage
        cells = ([str(r["generation"]), teacher_name(cfg, worlds), f"{r['decisions']:,}", f"{r['fitted']:,}"]
                 + ([] if dealt else [f"{100 * r['overrode']:.1f}%"])
                 + [f"{100 * r['held_out_accuracy']:.1f}%" if dealt else
                    f"{100 * r['held_out_accuracy_before']:.1f}% → {100 * r['held_out_accuracy']:.1f}%"]
                 + ([f"{100 * r['fold_agreement']:.1f}%"] if cfg.fold else [])  # Run.check: every row has it
                 + [f"{100 * r['gate_win_rate']:.1f}% ({r['gate_games']})",
                    f"{100 * r['gate_low']:.1f}–{100 * r['gate_high']:.1f}%"]
                 + ([_panel_cell(r.get("panel", []))] if cfg.gate_panel else [])
                 + ["yes" if r["kept"] else "no", f"{r['wall_s'] / 60:.1f} min"])
        gen_table.append("| " + " | ".join(cells) + " |")
    wall, n = sum(r["wall_s"] for r in rows_g), len(rows_g)
    leaf = ""
    if cfg.leaf == "game":
        from pitch_policy.game_value import FILE, load_game_value

        fit_s = float(load_game_value(run / FILE, rules).info.get("wall_s", 0.0))
        wall += fit_s
        leaf = (f"; each world scored by the chance of winning the game its hand leaves (a game value fitted "
                f"to {cfg.leaf_games:,} self-play games of the start network, {fit_s / 60:.1f} min, "
                f"train/game_value.py), not by the hand's points")
    kept = sum(1 for r in rows_g if r["kept"])
    runs = stages(cfg)
    teachers = ", then ".join(f"`{teacher_name(cfg, s.worlds)}` ({_generations(s)})" for s in runs)
    steps = " + ".join(f"{s.last - s.first + 1} generation{'s' if s.last > s.first else ''} "
                       f"`{teacher_name(cfg, s.worlds)}`" for s in runs)
    if cfg.target == "values":
        whose = "its own action values in the cards dealt" if dealt else "the search's action values"
        short_weights = _per_stage(runs, lambda b: _at_bids(cfg.value_weight, b, short=True))
        steps += (f", {'each ' if n > 1 else ''}fitting {whose} and adding them {short_weights} "
                  f"(`target: values`{', `fold: true`' if cfg.fold else ''})")
    if cfg.start_train:  # generation 0 trained by the same command, in RUN/start/
        tcfg, tstate = load_config(run / START_RUN / "config.yaml"), _train_state(run / START_RUN)
        start_s = tstate.get("wall_time", 0.0)
        start_steps = load_policy(run / START_RUN / "checkpoint" / WEIGHTS_FILE, rules)[1]["training_steps"]
        origin = _train_lineage(tcfg, tstate, start_steps, cfg.start_train)
        title = ("learned from nothing" if origin.startswith("nothing: ") and tcfg.hint == "none"
                 else f"grown from a run of `{cfg.start_train}`")
    else:
        origin, start_s = agent_origin(cfg.start), 0.0
        title = f"grown from `{origin.split('`')[1]}`"
    lineage = f"{origin} → {steps} ({config}); {kept} of {n} generation{'s' if n > 1 else ''} kept"
    how = ("the best network so far, every legal action of its decisions played out by it in the cards the "
           "game really dealt (`worlds_from: dealt`, train/exit.py)" if dealt else
           "PIMC whose rollouts and default choices are the best network so far, agents/netpimc.py")
    facts = [f"one forward pass per decision; its teacher, each generation, was {teachers} ({how}) in self-play{leaf}"]
    what = "the one generation (recording, fit and gate" if n == 1 else f"the {n} generations (recording, fits and gates"
    what += ", and the game value)" if leaf else ")"
    compute = [f"training: {(start_s + wall) / 60:.1f} min of wall time in all on {machine or _machine()}: "
               f"{start_s / 60:.1f} min for generation 0 (`pitch train --config {cfg.start_train}`, its evaluations "
               f"included), {wall / 60:.1f} min for {what}" if cfg.start_train else
               f"training: {wall / 60:.1f} min of wall time for {what} on {machine or _machine()}"]
    # a recipe that trains its own start is one training command (`pitch train` hands it to `pitch exit`)
    recipe = [f"pitch {'train' if cfg.start_train else 'exit'} --config {config}"]
    start = _card_folder(f"checkpoint:{cfg.start}") if cfg.start else None
    if start is not None:  # the start's own recipe and cost first, as its card gives them
        recipe = card_recipe(start) + recipe
        compute.append(f"its start's training, as its card gives it: {card_training(start)}")
    if cfg.target != "values":
        fitted, after = (f"fits the best network to them and to the generation before's in its stage (`replay: "
                         f"{cfg.replay}`)"), ""
    else:
        worth = "what each legal action made" if dealt else "what the search measured each legal action worth"
        fitted = (f"fits a network to {worth} (`replay: {cfg.replay}`: "
                  "the decisions of this generation" + (f" and the {cfg.replay - 1} before it in its stage"
                                                         if cfg.replay > 1 else "") + "), its hidden layers "
                  f"started from the best's, and adds {cfg.value_weight:g} times its values to the best's logits "
                  + _per_stage(runs, lambda b: _at_bids(cfg.value_weight, b, short=False)) + " "
                  + ("(one fused network, twice as wide, then fitted back into a network of the best's size on the "
                     "same decisions: `fold: true`)" if cfg.fold else "(one fused network, twice as wide)"))
        after = (" The held-out columns are measured on the 5% of the decisions held out of the fits: how often "
                 "the candidate picks the action the best chose and played on" if dealt else
                 " The held-out accuracy is how often the best, then the candidate, picks the action the search "
                 "chose") + (", and how often the folded network picks the fused network's." if cfg.fold else ".")
    recorded = ("decisions of the best's self-play, every legal action of each played out by the best in the cards "
                "the game really dealt" if dealt else "searched decisions")
    panel = ("" if not cfg.gate_panel else
             f", and only if against none of {', '.join(f'`{a}`' for a in cfg.gate_panel)} (`gate_panel`, each "
             f"played by the candidate and the best on the same {cfg.gate_panel_games} duplicate deals once the "
             f"candidate has beaten the best) it wins less than the best by more than {Z95:.2f} standard errors")
    extra = f"""## Generations

Each generation records `decisions` {recorded}, {fitted}, and plays the candidate against the best on
{cfg.gate_games} duplicate deals; it becomes the best only above {100 * cfg.gate_min:.0f}%{panel}.{after}

{chr(10).join(gen_table)}
{chr(10) + note + chr(10) if note else ""}"""
    hidden = ("run_name", "runs_dir") + (DRAWING_KEYS if dealt else ()) + (("start",) if cfg.start_train else ())
    shown = {k: v for k, v in saved.items() if k not in hidden}
    text = render_card(dest.name, cfg.variant, rules, card, f"an expert-iteration `{cfg.variant}` agent, {title}",
                       lineage, recipe, compute, facts, rows, games, pimc, pimc_games,
                       seed, eval_s, extra, ("json", json.dumps(shown, indent=1)))
    install_checkpoint(run / "best.safetensors", dest, text)
    return text


def _at_bids(value_weight: float, bid_weight: float | None, short: bool) -> str:
    """Where an expert-iteration generation adds its values, for a card (``short``: the lineage's "×W ..."
    form): at every decision, or at the bids with their own weight (``bid_weight``; 0: the best's bids)."""
    times = f"×{value_weight:g} " if short else ""
    if bid_weight is None or bid_weight == value_weight:
        return f"{times}at every decision"
    if bid_weight == 0:
        return f"{times}at every decision but the bids" + ("" if short else ", whose choices stay the best's "
                                                                         "(`bid_weight: 0`)")
    return f"×{value_weight:g}, ×{bid_weight:g} at the bids" if short else f"({bid_weight:g} times at the bids: `bid_weight`)"


def _panel_cell(panel: list[dict]) -> str:
    """A generation's results against the gate's panel: each agent's, the candidate's and the best's win
    rates, marked where the candidate lost ground (empty: the panel was not played)."""
    from .exit import lost_ground

    return "; ".join(f"`{e['agent']}` {100 * e['candidate']:.1f}% / {100 * e['best']:.1f}% ({e['games']})"
                     + (" lost ground" if lost_ground(e) else "") for e in panel) or "not played"


def _generations(stage) -> str:
    """A stage's generations as a card names them: "generation 3" or "generations 3–5"."""
    return f"generation {stage.first}" if stage.last == stage.first else f"generations {stage.first}–{stage.last}"


def _per_stage(runs, phrase) -> str:
    """``phrase(bid_weight)`` of each stage of an expert-iteration run, with the stage's generations where the
    stages' phrases differ; one phrase where they agree."""
    said = [phrase(s.bid_weight) for s in runs]
    if len(set(said)) == 1:
        return said[0]
    return "; ".join(f"{p} ({_generations(s)})" for p, s in zip(said, runs))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m train.model_card", description=__doc__)
    p.add_argument("run", metavar="RUN", help="run directory (runs/NAME)")
    p.add_argument("dest", metavar="DEST", help="checkpoint directory to write (checkpoints/NAME)")
    p.add_argument("--games", type=int, default=2000, help="games against random and heuristic each")
    p.add_argument("--pimc", default="pimc:12", help="PIMC agent spec, worlds explicit so the card names them")
    p.add_argument("--pimc-games", type=int, default=200, help="games against PIMC (0: skip; it is slow)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=2024, help="tournament seed (not a seed used in training)")
    p.add_argument("--config", default="", help="the config file the run was trained from, as the card names "
                   "it (default configs/VARIANT.yaml; expert iteration: configs/exit/VARIANT_recipe.yaml)")
    p.add_argument("--note", default="", help="expert-iteration runs: a paragraph for the card under the "
                                               "generations (how the run went, e.g. a shared machine)")
    p.add_argument("--previous", default="", help="expert-iteration runs: an agent spec for a head-to-head row "
                                                   "(e.g. checkpoint:setback_base, the agent it grew from)")
    p.add_argument("--machine", default="", help="the machine the run trained on, as the card's Compute "
                                                  "section names it (default: this one's cores and processor)")
    p.add_argument("--force", action="store_true", help="replace a policy already in DEST (its files are replaced "
                                                            "once the new card is whole)")
    a = p.parse_args(argv)

    def write() -> str:
        if _check_arguments(a):
            return write_exit_card(Path(a.run), Path(a.dest), a.games, a.pimc, a.pimc_games, a.workers, a.seed,
                                   a.config, a.previous, a.note, a.machine)
        return write_card(Path(a.run), Path(a.dest), a.games, a.pimc, a.pimc_games, a.workers, a.seed, a.config,
                          a.machine)
    return write_and_report(a.dest, write)


def write_and_report(dest, write) -> int:
    """Run ``write`` (checks, games, then the checkpoint ``dest``; it returns the card's text) for a command:
    the card printed (0), or one line for a refusal or failure (2: ConfigError and CheckpointError are
    ValueErrors) or for Ctrl-C (130), after which ``dest`` is as it was."""
    from agents.workers import WorkerDied

    try:
        text = write()
    except (ValueError, OSError, WorkerDied) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: nothing written to {dest}", file=sys.stderr)
        return 130
    print(text)
    return 0


def check_checkpoint_folder(out: Path, option: str, force: bool) -> None:
    """CheckpointError (one line) unless ``out`` can become a checkpoint folder: not a file, and holding no
    policy unless ``force`` (replace it)."""
    if out.exists() and not out.is_dir():
        raise CheckpointError(f"{option} {str(out)!r} is a file: give a folder for the checkpoint")
    if (out / WEIGHTS_FILE).exists() and not force:
        raise CheckpointError(f"{out / WEIGHTS_FILE} exists: give another {option}, or --force to replace it")


def _check_arguments(a) -> bool:
    """Refuse, in one line each, what would fail or do harm only after minutes of games: no run at RUN,
    a DEST that holds a policy already (without --force), counts out of range, an agent spec that
    does not parse. Returns whether RUN is an expert-iteration run."""
    from agents import make
    from agents.cli_checks import check_counts

    from .exit import saved_config

    run, dest = Path(a.run), Path(a.dest)
    exit_run = (run / "generations.json").is_file()
    if not exit_run and not (run / "config.yaml").is_file():
        raise ValueError(f"{a.run}: no run there (a `pitch train` run has config.yaml, a `pitch exit` run "
                         f"generations.json); give runs/NAME")
    check_checkpoint_folder(dest, "DEST", a.force)
    check_counts(a.games, a.workers)
    if a.pimc_games < 0:
        raise ValueError(f"--pimc-games {a.pimc_games}: give 0 (no PIMC row) or more games")
    cfg = saved_config(run)[1] if exit_run else load_config(run / "config.yaml")
    for spec in [a.pimc] + ([a.previous] if a.previous else []):
        make(spec, cfg.resolved_rules())  # a spec that does not parse or does not load fails here, in one line
    return exit_run


if __name__ == "__main__":
    sys.exit(main())
