"""Hostile OpenSpiel game strings for bench/fuzz.py: ``python_pitch_*(name=value,...)`` with values
of the wrong type, ints past 32 bits, a name given twice, unknown names, broken brackets, huge or
non-ASCII text, each given to ``pyspiel.load_game``. Needs open_spiel (``pitch-rl[openspiel]``);
bench/fuzz.py runs this kind only where pyspiel imports.

An accepted string must have meant what it says: every parameter it names holds that value.
"""

from __future__ import annotations

import importlib
import random
from pathlib import Path

from bench.fuzz import Case, cleanup, refused

__all__ = ["prepare", "make_case", "check", "cleanup"]  # what bench/fuzz.py runs of a kind (cleanup: its inputs are plain files)

_SPECS: dict[str, dict] = {}

_HOSTILE_VALUES = ["1000000000000", "2147483648", "-2147483648", "99999999999999999999", "2.5", "-0.0", "1e3",
                   "true", "false", "True", "", "٣", "four", "x" * 100_000, "(", ")", "=", "auto", "-1", "0"]


def prepare(work: Path) -> None:
    importlib.import_module("pitch_env.openspiel")  # registers the games before the fork
    from pitch_env.rules import PRESETS
    from pitch_env.spiel_params import parameters

    for variant in PRESETS:
        _SPECS[variant] = parameters(variant)


def _written(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def make_case(rng: random.Random, work: Path, i: int) -> Case:
    variant = rng.choice(sorted(_SPECS))
    spec = _SPECS[variant]
    names = rng.sample(sorted(spec), rng.randint(0, 3))
    items = [f"{n}={_written(spec[n])}" for n in names]  # the defaults, written out: valid
    roll = rng.random()
    must_refuse: bool | None = None
    if roll < 0.1:
        mutation, must_refuse = "defaults", False
    elif roll < 0.25:
        name = rng.choice(sorted(spec))
        items += [f"{name}={_written(spec[name])}", f"{name}={rng.choice(_HOSTILE_VALUES)}"]
        mutation, must_refuse = "repeated_name", True
    elif roll < 0.35:
        items.append(f"{rng.choice(['wizard', 'NUM_PLAYERS', 'num players', '', 'max_hands '])}=1")
        mutation, must_refuse = "unknown_name", True
    elif roll < 0.45:
        mutation = "bracket"
        text = f"python_pitch_{variant}(" + ",".join(items) + rng.choice(["", "))", ",)", "(x=1))"])
        return _case(work, i, mutation, text, True)
    else:
        name = rng.choice(sorted(spec))
        items.append(f"{name}={rng.choice(_HOSTILE_VALUES)}")
        mutation = f"value_{name}"
    text = f"python_pitch_{variant}" + (f"({','.join(items)})" if items or rng.random() < 0.5 else "")
    return _case(work, i, mutation, text, must_refuse)


def _case(work: Path, i: int, mutation: str, text: str, must_refuse) -> Case:
    path = work / f"g{i}.txt"
    path.write_text(text, encoding="utf-8")
    return Case("gamestrings", mutation, path, must_refuse)


def check(case: Case) -> tuple[str, str]:
    import pyspiel

    from pitch_env.spiel_params import read_game_string

    text = case.path.read_text(encoding="utf-8")
    try:
        game = pyspiel.load_game(text)
        _, asked = read_game_string(text)
        state = game.new_initial_state()
        while state.is_chance_node():  # the first deal: the game can be played
            state.apply_action(state.legal_actions()[0])
    except BaseException as e:
        return refused(e, case, "refused a valid game string")
    if case.must_refuse:
        return "fail", f"silently accepted {text[:120]!r}"
    got = game.get_parameters()
    for name, value in asked.items():
        if name == "partnerships" and isinstance(value, bool):
            value = "true" if value else "false"
        if got.get(name) != value:
            return "fail", f"accepted {name}={value!r} but the game holds {got.get(name)!r}"
    return "ok", "accepted: a valid game string, as written"
