"""One direction of flow: rules -> engine -> observer/record -> env -> agents -> training.

Read from the source (every import, function-level ones too), so a cycle cannot hide in a function body.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


PACKAGES = ("pitch_env", "pitch_policy", "agents", "train")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports, relative imports resolved."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = f"{package}.{base}" if base else package
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}
    return out


@pytest.mark.parametrize("package, forbidden", [("pitch_env", ("pitch_policy", "agents", "train")),
                                                ("pitch_policy", ("agents", "train")), ("agents", ("train",))])
def test_no_package_imports_upward(package, forbidden):
    for path in sorted((ROOT / package).rglob("*.py")):
        upward = sorted(m for m in imported_modules(path) if m.split(".")[0] in forbidden)
        assert not upward, f"{package}/{path.name} imports {upward}"


@pytest.mark.parametrize("module", ["engine", "summary", "scoring", "rules", "cards", "actions"])
def test_the_engine_and_what_it_reads_never_import_the_record(module):
    names = imported_modules(ROOT / "pitch_env" / f"{module}.py")
    assert not {"pitch_env.record", "pitch_env.replay"} & names


def test_no_import_cycle_between_any_two_modules():
    """Tarjan's strongly connected components over every first-party import (a package's import of a
    name resolves to the module of that name when there is one)."""
    paths = [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))]
    modules = {module_name(p): p for p in paths}
    graph = {m: sorted({n for n in imported_modules(p) if n in modules and n != m}) for m, p in modules.items()}
    for m in graph:  # importing a submodule runs its package's __init__ first, which is not a cycle of m's
        graph[m] = [n for n in graph[m] if not m.startswith(n + ".")]
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"
