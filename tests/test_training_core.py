"""The training core's layout: Stable-Baselines3 lives in train/sb3.py alone, the heuristic opponent
in train/league.py alone, and the core's modules import no private name of another module."""

from __future__ import annotations

import ast
from pathlib import Path

TRAIN = Path(__file__).resolve().parent.parent / "train"
CORE = ("league", "lockstep", "network", "ppo", "sb3", "selfplay", "loop", "resume", "rundir", "imitate", "evaluate",
        "run")


def imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            yield node.module or "", [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, []


def test_only_the_sb3_trainer_imports_stable_baselines():
    users = sorted(p.name for p in TRAIN.glob("*.py")
                   if any(m.split(".")[0] in ("stable_baselines3", "sb3_contrib") for m, _ in imports(p)))
    assert users == ["sb3.py"]


def test_the_heuristic_opponent_is_wrapped_once():
    wrappers = sorted(p.name for p in TRAIN.rglob("*.py")
                      if any(isinstance(n, ast.ClassDef) and "heuristic" in n.name.lower()
                             for n in ast.walk(ast.parse(p.read_text()))))
    assert wrappers == ["league.py"]


def test_the_core_imports_no_private_name_of_another_module():
    for name in CORE:
        for module, names in imports(TRAIN / f"{name}.py"):
            private = [n for n in names if n.startswith("_") and n != "__future__"]
            assert not private or module == "__future__", f"train/{name}.py imports {private} from {module}"
