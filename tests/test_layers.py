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


# ---------------------------------------------------------------- private names stay in their module
CHECKED = ("pitch_env", "pitch_policy", "agents", "train", "bench")
FIRST_PARTY = (*CHECKED, "pitch_cli")

# Files that still use another module's private name, each listed with the names it uses; the test
# fails for any other use, and for a listed one that is gone (so the list only ever shrinks).
ALLOWED_PRIVATE: dict[str, set[str]] = {}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_module(name: str) -> bool:
    parts = name.split(".")
    return (ROOT.joinpath(*parts).with_suffix(".py").is_file() or ROOT.joinpath(*parts, "__init__.py").is_file())


def _dotted(node) -> str | None:
    """``a.b.c`` of an attribute chain on a plain name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def private_uses(path: Path, text: str | None = None) -> set[str]:
    """``module._name`` for every private name of another first-party module that ``path`` (or ``text``
    as if it were that file) imports (``from module import _name``) or reads off an imported module
    (``module._name``)."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    tree = ast.parse(path.read_text() if text is None else text)
    modules: dict[str, str] = {}  # local name -> the first-party module it is bound to
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in FIRST_PARTY:
                    if a.asname:
                        modules[a.asname] = a.name
                    else:
                        modules[a.name.split(".")[0]] = a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            if base.split(".")[0] not in FIRST_PARTY or base == me:
                continue
            for a in node.names:
                if _private(a.name) and not _is_module(f"{base}.{a.name}"):
                    out.add(f"{base}.{a.name}")
                elif _is_module(f"{base}.{a.name}"):
                    modules[a.asname or a.name] = f"{base}.{a.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain = _dotted(node.value)
            if chain is None:
                continue
            head, _, rest = chain.partition(".")
            if head in modules:
                target = ".".join(filter(None, [modules[head], rest]))
                if _is_module(target) and target != me:
                    out.add(f"{target}.{node.attr}")
    return out


def private_attributes(tree) -> dict[str, set[str]]:
    """Private attribute names a module defines -> where (``Class`` or the module itself, ""): methods,
    nested functions and classes, ``__slots__`` entries, class-level names and ``x._name = ...`` stores."""
    out: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                names = []
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names = [item.name]
                elif isinstance(item, ast.Assign):
                    names = [t.id for t in item.targets if isinstance(t, ast.Name)]
                    if "__slots__" in names and isinstance(item.value, (ast.Tuple, ast.List)):
                        names += [e.value for e in item.value.elts if isinstance(e, ast.Constant)]
                for n in names:
                    if _private(n):
                        out.setdefault(n, set()).add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _private(node.attr):
            out.setdefault(node.attr, set()).add("")
    return out


def _all_paths() -> list[Path]:
    return [p for pkg in CHECKED for p in sorted((ROOT / pkg).rglob("*.py"))]


def attribute_uses(path: Path, defined: dict[str, dict[str, set[str]]], text: str | None = None) -> set[str]:
    """``module.Class._name`` for every private attribute that ``path`` reads or writes on an object
    (not ``self``/``cls``) when it is defined only in other first-party modules (``defined``: module ->
    its ``private_attributes``)."""
    me = module_name(path)
    tree = ast.parse(path.read_text() if text is None else text)
    mine = private_attributes(tree)
    out = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)) or node.attr in mine:
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        owners = sorted(f"{m}.{c}" if c else m for m, attrs in defined.items() if m != me
                        for c in attrs.get(node.attr, ()))
        if owners:
            out.add(f"{owners[0]}.{node.attr}")
    return out


def test_no_module_uses_another_modules_private_names():
    defined = {module_name(p): private_attributes(ast.parse(p.read_text())) for p in _all_paths()}
    found = {}
    for path in _all_paths():
        uses = private_uses(path) | attribute_uses(path, defined)
        if uses:
            found[str(path.relative_to(ROOT))] = uses
    unexpected = {f: sorted(u - ALLOWED_PRIVATE.get(f, set())) for f, u in found.items()}
    unexpected = {f: u for f, u in unexpected.items() if u}
    assert not unexpected, f"private names used across modules (make them public or move them): {unexpected}"
    stale = {f: sorted(u - found.get(f, set())) for f, u in ALLOWED_PRIVATE.items()}
    stale = {f: u for f, u in stale.items() if u}
    assert not stale, f"ALLOWED_PRIVATE lists uses that are gone: remove them: {stale}"


def test_the_private_name_check_sees_both_forms():
    """The check itself: ``from x import _y`` and ``x._y`` on an imported first-party module are found;
    a module's own private names, objects' attributes and dunders are not."""
    probe = ROOT / "train" / "config.py"
    text = ("from .typed_config import _number, short\nfrom pitch_env import engine\nimport pitch_env.rules as pr\n"
            "import agents\nx = engine._popcount(3) + pr._fail + agents.base._ANOTHER + engine.__name__\n"
            "def _mine(): pass\ny = _mine, short._private_attr_of_a_function\n")
    assert private_uses(probe, text) == {"train.typed_config._number", "pitch_env.engine._popcount", "pitch_env.rules._fail",
                                   "agents.base._ANOTHER"}


def test_the_private_attribute_check_sees_another_modules_attributes_on_objects():
    """``game._secret()`` of a Game defined elsewhere is found; ``self._x``, an attribute this module
    defines itself and a third-party object's private attribute are not."""
    defined = {"pitch_env.engine": {"_secret": {"Game"}}, "train.config": {"_own": {""}}}
    text = ("class A:\n    def _own(self): return self._secret\n"
            "def f(game, other, model):\n    return game._secret(), other._own(), model._n_updates\n")
    assert attribute_uses(ROOT / "train" / "config.py", defined, text) == {"pitch_env.engine.Game._secret"}
