"""One direction of flow: rules -> engine -> observer/record -> env -> agents -> training.

Read from the source (every import, function-level ones too), so a cycle cannot hide in a function body.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports, relative imports resolved."""
    package = path.parent.name
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


@pytest.mark.parametrize("package, forbidden", [("pitch_env", ("agents", "train")), ("agents", ("train",))])
def test_no_package_imports_upward(package, forbidden):
    for path in sorted((ROOT / package).glob("*.py")):
        upward = sorted(m for m in imported_modules(path) if m.split(".")[0] in forbidden)
        assert not upward, f"{package}/{path.name} imports {upward}"


@pytest.mark.parametrize("module", ["engine", "summary", "scoring", "rules", "cards", "actions"])
def test_the_engine_and_what_it_reads_never_import_the_record(module):
    names = imported_modules(ROOT / "pitch_env" / f"{module}.py")
    assert not {"pitch_env.record", "pitch_env.replay"} & names
