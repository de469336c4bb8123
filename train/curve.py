"""A run's learning curve from its TensorBoard events: evaluation win rates (with their Wilson lower
bounds) against learner steps and against wall-clock time, as a PNG and a CSV.

Run: ``python -m train.curve runs/RUN --out docs/img/RUN`` (writes RUN.png and RUN.csv). The wall
time is TensorBoard's own clock of each evaluation, from the run's first event (a resumed run's pause
between sessions is left out: the gap between its sessions is cut to the length of one rollout).
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path


def read_curves(run: Path) -> dict[str, list[tuple[int, float, float]]]:
    """``{tag: [(step, wall seconds since start, value), ...]}`` for every ``eval/`` scalar of the run."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tb = Path(run) / "tb"
    if not tb.is_dir():
        raise SystemExit(f"{str(tb)!r} is not a run's TensorBoard folder; give a run directory under runs/")
    acc = EventAccumulator(str(tb), size_guidance={"scalars": 0})
    acc.Reload()
    tags = acc.Tags()["scalars"]
    if "time/total_timesteps" in tags:  # one event per rollout: the clock of the whole run
        clock = [(e.step, e.wall_time) for e in acc.Scalars("time/total_timesteps")]
    else:
        clock = []
    active = _active_clock(clock)
    out = {}
    for tag in tags:
        if tag.startswith("eval/"):
            out[tag] = [(e.step, active(e.wall_time), e.value) for e in acc.Scalars(tag)]
    return out


def _active_clock(clock):
    """wall_time -> seconds of training since the first event, with gaps between sessions (longer than
    ten rollouts' time) cut out."""
    if not clock:
        return lambda t: 0.0
    clock = sorted(clock, key=lambda x: x[1])
    gaps = [b[1] - a[1] for a, b in zip(clock, clock[1:])]
    typical = sorted(gaps)[len(gaps) // 2] if gaps else 0.0
    cuts = [(b[1], (b[1] - a[1]) - typical) for a, b in zip(clock, clock[1:]) if b[1] - a[1] > 10 * typical + 60]
    start = clock[0][1]

    def active(t: float) -> float:
        return t - start - sum(c for when, c in cuts if when <= t)

    return active


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run", type=Path)
    p.add_argument("--out", type=Path, required=True, help="path stem: writes STEM.png and STEM.csv")
    p.add_argument("--title", default="")
    args = p.parse_args(argv)
    curves = read_curves(args.run)
    rates = {t: v for t, v in curves.items() if t.startswith("eval/win_rate_vs_")}
    if not rates:
        raise SystemExit(f"no eval/win_rate_vs_* scalars in {args.run}; was the run trained with eval_every > 0?")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out.with_suffix(".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["tag", "step", "wall_s", "value"])
        for tag, points in sorted(curves.items()):
            for step, wall, value in points:
                w.writerow([tag, step, f"{wall:.1f}", f"{value:.4f}"])

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for tag, points in sorted(rates.items()):
        name = tag[len("eval/win_rate_vs_"):]
        low = curves.get(f"eval/win_rate_low_vs_{name}", [])
        for ax, x_of in ((axes[0], lambda p: p[0] / 1e6), (axes[1], lambda p: p[1] / 3600)):
            line, = ax.plot([x_of(q) for q in points], [100 * q[2] for q in points], marker="o", ms=3, label=f"vs {name}")
            if low:
                ax.plot([x_of(q) for q in low], [100 * q[2] for q in low], ls=":", color=line.get_color(),
                        label=f"vs {name}, Wilson 95% lower bound")
    for ax, label in ((axes[0], "learner steps (millions)"), (axes[1], "wall-clock hours (training, evaluations included)")):
        ax.axhline(55, color="grey", lw=0.8, ls="--")
        ax.axhline(50, color="grey", lw=0.5)
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("win rate, duplicate deals (%)")
    axes[0].legend(fontsize=8, loc="lower right")
    fig.suptitle(args.title or f"{args.run.name}: evaluation win rates")
    fig.tight_layout()
    fig.savefig(args.out.with_suffix(".png"), dpi=110)
    print(f"wrote {args.out.with_suffix('.png')} and {args.out.with_suffix('.csv')}")


if __name__ == "__main__":
    main()
