"""Hostile run directories for bench/fuzz.py: an expert-iteration run (train/exit.py) with one finished
generation, damaged or crafted (files deleted, FIFOs, symlinks, directories in a file's place, parts of
strings, objects, NaN, bad shapes, gigabyte headers, parts under other numbers, state fields out of
range), each opened as ``pitch exit --resume`` opens it (``open_run``); and imitate.npz files read as
``imitate_data`` (train/imitate.py ``load_demos``). A resume must refuse in one line or find exactly
the run's own decisions; nothing may hang, follow a link or allocate what a header claims.
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import zipfile
from pathlib import Path

import numpy as np

from bench.fuzz import Case, refused

START = Path(__file__).resolve().parent.parent / "checkpoints" / "setback"
_BASE: dict = {}  # "run": the base run directory, "in_size"/"actions": its part shapes


def prepare(work: Path) -> None:
    """A one-generation run written with the run's own writers (no recording: the decisions are
    random legal ones, which is all the reader can check), and an imitate.npz beside it."""
    import pitch_policy as pp
    from pitch_env.actions import ActionLayout
    from train import exit as ex
    from train.imitate import Demos, save_demos

    cfg = ex.make_exit_config({"generations": 1, "decisions": ex.PART, "worlds": 1, "gate_games": 4,
                               "workers": 1, "start": str(START)}, "fuzz")
    rules = cfg.resolved_rules()
    policy, card = pp.load_policy(START, rules)
    in_size, actions = policy.shape[0], ActionLayout(rules).size
    run = work / "base"
    run.mkdir()
    ex.write_run_json(run / "config.json", config=ex.asdict(cfg))
    r = ex.Run(run)
    rng = np.random.default_rng(0)
    mask = rng.random((ex.PART, actions)) < 0.3
    mask[:, 0] = True
    part = {"x": rng.random((ex.PART, in_size), dtype=np.float32), "mask": mask,
            "y": np.zeros(ex.PART, np.int64), "overrode": rng.random(ex.PART) < 0.1,
            "q": np.where(mask, rng.normal(0, 2, mask.shape), 0).astype(np.float32)}
    ex.save_part(run / "gen_1" / "part_0.npz", part)
    pp.save_policy(run / "gen_1" / "policy.safetensors", policy, dict(card, exit={"generation": 1}))
    shutil.copyfile(run / "gen_1" / "policy.safetensors", run / "best.safetensors")
    r.record_best(1, run / "best.safetensors")
    r.add({"generation": 1, "worlds": 1, "held_out_accuracy_before": 0.5, "held_out_accuracy": 0.6,
           "train_accuracy": 0.6, "loss": 1.0, "fitted": ex.PART, "decisions": ex.PART, "overrode": 0.1,
           "gate_games": 4, "gate_win_rate": 0.75, "gate_low": 0.3, "gate_high": 0.95, "kept": True,
           "record_s": 1.0, "fit_s": 1.0, "gate_s": 1.0, "wall_s": 3.0})
    save_demos(work / "imitate.npz", Demos(part["x"], part["mask"], part["y"], np.zeros(ex.PART, np.float32)))
    _BASE.update(run=run, in_size=in_size, actions=actions, demos=work / "imitate.npz", cfg=cfg)
    ex.open_run(ex.replace(cfg, generations=2), run)  # the base itself opens (and wrote nothing more)


# ---------------------------------------------------------------------- damage
FILES = ("config.json", "generations.json", "best.safetensors", "gen_1/policy.safetensors", "gen_1/part_0.npz",
         "gen_1")


def _odd(rng: random.Random, path: Path, run: Path) -> str:
    """``path`` replaced by something that is not a regular file."""
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    kind = rng.choice(["fifo", "link_pagemap", "link_zero", "link_dangling", "link_sibling", "directory", "absent"])
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link_pagemap":
        path.symlink_to("/proc/self/pagemap")
    elif kind == "link_zero":
        path.symlink_to("/dev/zero")
    elif kind == "link_dangling":
        path.symlink_to(run / "nowhere")
    elif kind == "link_sibling":
        path.symlink_to(_BASE["run"] / path.relative_to(run))  # the same bytes, through a link
    elif kind == "directory":
        path.mkdir()
    return kind


def _npz(path: Path, arrays: dict, compressed: bool = False) -> None:
    with open(path, "wb") as f:
        (np.savez_compressed if compressed else np.savez)(f, **arrays)


def _header_bomb(path: Path, shape) -> None:
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": "<f4", "fortran_order": False, "shape": shape})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for key in ("x", "mask", "y", "overrode", "q"):
            z.writestr(f"{key}.npy", head.getvalue() + bytes(1 << 16))


def _bad_arrays(rng: random.Random, path: Path, keys: tuple[str, ...], n: int, width: int) -> str:
    """``path`` rewritten as an .npz that must be refused (``keys``: x-like, mask-like, y-like, flag-like)."""
    x, m, y, f = keys
    good = dict(np.load(path, allow_pickle=False))
    kind = rng.choice(["strings", "objects", "nan", "wide", "rows", "int_x", "bool_bytes", "y_range", "y_illegal",
                       "extra", "missing", "fortran", "bomb", "bomb_rows", "truncate", "flip", "noise", "empty",
                       "two_dims_y"] + (["values"] if "q" in good else []))
    if kind == "strings":
        good[x] = np.array(["a"] * n)
    elif kind == "objects":
        good[x] = np.array([{"a": 1}] * n, dtype=object)
    elif kind == "nan":
        good[x] = good[x].copy()
        good[x][rng.randrange(n), rng.randrange(width)] = np.nan
    elif kind == "wide":
        good[x] = np.zeros((n, width + 1), np.float32)
    elif kind == "rows":
        # one array's rows cut or doubled: every array doubled alike would be a sound file of twice the rows
        k = rng.choice(sorted(good))
        good[k] = good[k][:rng.randrange(1, n)] if rng.random() < 0.5 else np.concatenate([good[k], good[k]])
    elif kind == "int_x":
        good[x] = good[x].astype(np.int32)
    elif kind == "bool_bytes":
        good[m] = good[m].copy()
        good[m].view(np.uint8)[0, 0] = 7
    elif kind == "y_range":
        good[y] = np.full(n, rng.choice([-1, 10**6]), np.int64)
    elif kind == "y_illegal":
        good[y] = np.argmin(good[m], axis=1).astype(np.int64)  # a masked-out action on every row
    elif kind == "values":  # a recorded part's action value beyond any hand's outcome
        good["q"] = good["q"].copy()
        good["q"][rng.randrange(n), 0] = 1e30
    elif kind == "extra":
        good["z"] = np.zeros(3)
    elif kind == "missing":
        del good[rng.choice(sorted(good))]
    elif kind == "two_dims_y":
        good[y] = good[y].reshape(n, 1)
    elif kind == "fortran":  # np.savez stores an F-ordered 2-d array as such
        good[x] = np.asfortranarray(good[x])
    if kind == "bomb":
        _header_bomb(path, (4_000_000, width))
    elif kind == "bomb_rows":
        _header_bomb(path, (2**40, width))
    elif kind in ("truncate", "flip", "noise", "empty"):
        data = bytearray(path.read_bytes())
        if kind == "truncate":
            data = data[:rng.randrange(len(data))]
        elif kind == "flip":  # where a flip cannot miss: the first entry's signature or its data's first bytes
            # (the array's magic, or deflated bytes whose CRC then fails); not the header's date, which
            # nothing reads
            start = 30 + int.from_bytes(data[26:28], "little") + int.from_bytes(data[28:30], "little")
            spots = [(at, bit) for at in (*range(4), *range(start, start + 6)) for bit in range(8)]
            for at, bit in rng.sample(spots, rng.randint(1, 4)):  # distinct, so no flip undoes another
                data[at] ^= 1 << bit
        elif kind == "noise":
            data = bytearray(rng.randbytes(rng.randrange(1, 4096)))
        else:
            data = bytearray()
        path.write_bytes(bytes(data))
    else:
        _npz(path, good, compressed=rng.random() < 0.5)
    return kind


ROW_VALUES = (7.5, -1, -0.5, 1.5, "0.5", None, True, [], {}, 10**30, 1e308, "nan")


def _bad_state(rng: random.Random, path: Path) -> tuple[str, bool | None]:
    """generations.json with a field changed: (what, whether a resume must refuse it)."""
    data = json.loads(path.read_text())
    row = data["generations"][0]
    kind = rng.choice(["row_value", "row_value", "extra_key", "missing_key", "best_generation", "best_sha",
                       "best_bytes", "generation_number", "rows_not_list", "format", "text_flip", "deep",
                       "recording"])
    must = True
    if kind == "row_value":
        key = rng.choice(sorted(row))
        old, row[key] = row[key], rng.choice(ROW_VALUES)
        kind = f"row_{key}={row[key]!r}"
        if (row[key] == old and type(row[key]) is type(old)) or (
                key in ("wall_s", "record_s", "fit_s", "gate_s", "loss") and type(row[key]) is float
                and 0 <= row[key] <= 1e9):
            must = None  # unchanged, or other seconds or another loss: still a row the writer could write
    elif kind == "extra_key":
        row["evil"] = 1
    elif kind == "missing_key":
        del row[rng.choice(["generation", "decisions", "fitted", "kept", "overrode", "gate_win_rate", "wall_s"])]
    elif kind == "best_generation":
        data["best"]["generation"] = rng.choice([0, 2, -1, "1"])
    elif kind == "best_sha":
        data["best"]["sha256"] = rng.choice(["0" * 64, "x", "A" * 64, 5])
    elif kind == "best_bytes":
        data["best"]["bytes"] = rng.choice([1, 0, 2**62, -5])
    elif kind == "generation_number":
        row["generation"] = 2
    elif kind == "rows_not_list":
        data["generations"] = {"0": row}
    elif kind == "format":
        data["format"] = "pitch-exit-run/9"
    elif kind == "recording":  # the seconds spent on the next generation's parts: a number from 0 to 1e9
        value = data["recording_s"] = rng.choice([-1, "5", None, 1e308, True, [1], 12.5, 3, 0])
        kind = f"recording_s={value!r}"
        must = not (type(value) in (int, float) and 0 <= value <= 1e9)
    text = json.dumps(data)
    if kind == "text_flip":
        b = bytearray(text.encode())
        b[rng.randrange(len(b))] = rng.choice(b"{}[]\",:\xff\x00")
        text, must = b.decode("utf-8", errors="surrogateescape"), None
    elif kind == "deep":
        text = "[" * 200_000
    path.write_text(text, errors="surrogateescape")
    return kind, must


def make_case(rng: random.Random, work: Path, i: int) -> Case:
    if rng.random() < 0.15:  # an imitate_data file
        path = work / f"demos{i}.npz"
        shutil.copyfile(_BASE["demos"], path)
        if rng.random() < 0.1:
            return Case("runs", "demos:none", path, False)
        if rng.random() < 0.2:
            return Case("runs", f"demos:{_odd(rng, path, work)}", path, True)
        kind = _bad_arrays(rng, path, ("obs", "masks", "actions", "returns"), 1000, _BASE["in_size"])
        return Case("runs", f"demos:{kind}", path, True)
    run = work / f"r{i}"
    shutil.copytree(_BASE["run"], run, symlinks=True)
    roll = rng.random()
    if roll < 0.05:
        return Case("runs", "none", run, False)
    if roll < 0.30:
        target = rng.choice(FILES)
        kind = _odd(rng, run / target, run)
        # best.safetensors is restored from the kept generation's file (the same hash), which itself is
        # not needed while best.safetensors holds it
        must = None if target in ("best.safetensors", "gen_1/policy.safetensors") else True
        return Case("runs", f"{target}:{kind}", run, must)
    if roll < 0.55:
        kind = _bad_arrays(rng, run / "gen_1" / "part_0.npz", ("x", "mask", "y", "overrode"), 1000, _BASE["in_size"])
        return Case("runs", f"part:{kind}", run, True)
    if roll < 0.80:
        kind, must = _bad_state(rng, run / "generations.json")
        return Case("runs", f"state:{kind}", run, must)
    if roll < 0.90:  # names the run never writes, and debris that is not its own: never read, never followed
        folder = run / rng.choice(["gen_1", "gen_2", "."])
        folder.mkdir(exist_ok=True)
        names = ["part_00.npz", "part_٣.npz", "part_².npz", "part_7.npz", "part_1.npz", "part_-0.npz",
                 "part_ 0.npz", ".evil.tmp", ".part_0.npz.abcdefgh.tmp", "gen_01"]
        name = rng.choice(names)
        if name in (".evil.tmp", "gen_01") or rng.random() < 0.2:
            (folder / name).mkdir()
        elif rng.random() < 0.3:
            (folder / name).symlink_to("/proc/self/pagemap")
        else:
            shutil.copyfile(run / "gen_1" / "part_0.npz", folder / name)
        return Case("runs", f"foreign:{folder.name}/{name}", run, False)
    if roll < 0.95:
        (run / "generations.json").unlink()
        (run / "gen_2").mkdir()
        return Case("runs", "state:lost_after_two", run, True)
    saved = json.loads((run / "config.json").read_text())
    saved["config"]["run_name"] = rng.choice(["../../escaped", "/abs", ".hidden", "a/b"])
    (run / "config.json").write_text(json.dumps(saved))
    return Case("runs", "config:run_name", run, True)


def check(case: Case) -> tuple[str, str]:
    from train import exit as ex
    from train.imitate import load_demos
    from train.runfiles import kind_of

    if case.mutation.startswith("demos:"):
        try:
            demos = load_demos(case.path, _BASE["in_size"], _BASE["actions"])
        except BaseException as e:
            return refused(e, case, "refused a sound imitate.npz")
        if case.must_refuse:
            return "fail", f"silently accepted: {len(demos)} decisions"
        return "ok", "accepted"
    try:  # as cmd_exit's --resume --set generations=2 does, up to the first generation's work
        saved = ex.read_run_json(case.path / "config.json", "config")
        cfg = ex.make_exit_config(saved, "config.json")
        run, todo = ex.open_run(ex.replace(cfg, generations=2), case.path)
    except BaseException as e:
        return refused(e, case, "refused a sound run")
    parts = run.present_parts(cfg, 1, all_needed=True)
    if len(run.rows) != 1 or parts != [0] or todo != [0]:
        return "fail", f"opened a run of {len(run.rows)} rows, replaying parts {parts}, recording {todo}"
    if case.must_refuse:
        return "fail", "silently accepted: the resume would continue"
    if kind_of(run.best) != "file" or not run.holds_best(run.best):
        return "fail", "accepted, but best.safetensors does not hold the recorded best"
    return "ok", "accepted with exactly the run's own files"


def cleanup(case: Case) -> None:
    if case.path.is_dir() and not case.path.is_symlink():
        shutil.rmtree(case.path)
    else:
        case.path.unlink(missing_ok=True)
