"""The docs that code cites stay true: every `rules.md §N` cited exists, and docs/record.md names
every key and action form the engine writes. (docs/rules.md §2's defaults: test_rules_options.py.)
"""

import random
import re
from pathlib import Path

import pytest

import pitch_env

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
VARIANTS = ("setback", "auction", "ten_point")


def _sections() -> set[str]:
    """Section numbers of docs/rules.md's headings: '## §3 …' → '3', '### §3.5 …' → '3.5'."""
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    return set(re.findall(r"^#{2,3} §(\d+(?:\.\d+)?) ", text, flags=re.M))


def _citations():
    """(file:line, section) for every § cited on a line that names rules.md, in code and tests."""
    for path in sorted(ROOT.rglob("*.py")):
        if any(part.startswith(".venv") for part in path.parts) or "runs" in path.parts:  # .venv-interop, -rllib too
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "rules.md" not in line.lower():
                continue
            # "§5.9-10" cites 5.9 and 5.10; "§1-§5" cites 1 and 5.
            for major, minor, upto in re.findall(r"§(\d+)(?:\.(\d+))?(?:-(\d+))?", line):
                where = f"{path.relative_to(ROOT)}:{number}"
                yield where, f"{major}.{minor}" if minor else major
                if upto and minor:
                    yield where, f"{major}.{upto}"


def test_every_rules_section_cited_in_code_exists():
    sections = _sections()
    assert {"1", "2", "3.5", "5.10"} <= sections, "docs/rules.md lost its numbered headings"
    missing = [(where, s) for where, s in _citations() if s not in sections]
    assert not missing, f"cited sections that docs/rules.md does not have: {missing}"


def _documented_keys(table_title: str) -> set[str]:
    """The keys in the first column of the table after a '### title' heading of docs/record.md."""
    text = (DOCS / "record.md").read_text(encoding="utf-8")
    part = text.split(f"### {table_title}\n", 1)[1]
    table = part.strip().split("\n\n", 1)[0]
    return set(re.findall(r"^\| `(\w+)` \|", table, flags=re.M))


def _played_record(variant: str) -> dict:
    g = pitch_env.Game(variant, seed=1)
    rng = random.Random(0)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    return pitch_env.game_record(g)


@pytest.mark.parametrize("variant", VARIANTS)
def test_record_md_names_every_key_the_engine_writes(variant):
    record = _played_record(variant)
    assert record["format"] == "pitch-record/1"
    assert set(record) == _documented_keys("Top-level keys")
    documented = _documented_keys("Keys of a hand")
    for hand in record["hands"]:
        assert set(hand) <= documented, set(hand) - documented
    # Every hand key is written by some rule set: only the stock rules add `stock` and `exchange`.
    stock_keys = {"stock", "exchange"}
    assert documented - set(record["hands"][0]) == (set() if variant == "ten_point" else stock_keys)


def test_record_md_lists_every_action_form():
    text = (DOCS / "record.md").read_text(encoding="utf-8")
    forms = set()
    for variant in VARIANTS:
        layout = pitch_env.Game(variant, seed=0).layout
        forms |= {re.sub(r" (\d+|[2-9TJQKA][CDHS]|[BL]J|[CDHS])$", "", name) for name in layout.names}
    for form in forms:  # pass, bid, bid shoot, trump, stock keep/give, discard, play
        assert f"`{form}" in text, f"docs/record.md does not name the action {form!r}"
