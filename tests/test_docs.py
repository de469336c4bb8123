"""The docs stay true and speak of the product: every `rules.md §N` and docs section cited exists,
docs/record.md names every key and action form the engine writes, every docs link and anchor
resolves, the README's snippet runs, and no product text tells development history.
(docs/rules.md §2's defaults: test_rules_options.py.)
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


# --- The product speaks of itself -------------------------------------------------------------
# README, docs, model cards and configs describe what the software is and does. Development history
# (work sessions, issue numbers, "on this code") and paths that exist only on the machine that wrote
# them mean nothing to a reader of a clone.

def _product_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), ROOT / "checkpoints" / "README.md",
             *sorted(ROOT.glob("checkpoints/*/README.md"))]
    return files + sorted((ROOT / "configs").rglob("*.yaml"))


HISTORY = {
    r"\bsessions?\b": "a work session: give the date and machine of a measurement instead",
    r"\bissues? #?\d+": "an issue number",
    r"(?:^|[\s(\[,;])#\d+\b(?![-\w])": "an issue reference",  # not a link anchor such as rules.md#2-options
    r"\bthe issue\b|\bthe issue's\b": "the issue the work came from",
    r"\bon (?:this|the current|older|the old) code\b": "a version of the code",
    r"\bnew in\b|\bmeasured again\b|\bsince then\b": "what changed when",
    r"\btoday\b": "a day of development",
    r"/tmp/|/work/": "a path on the machine that wrote it",
}


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def _history_hits(files: list[Path]) -> list[str]:
    hits = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for pattern, what in HISTORY.items():
                match = re.search(pattern, line, flags=re.I)
                if match:
                    hits.append(f"{_rel(path)}:{number}: {match.group(0).strip()!r} ({what})")
    return hits


def test_history_vocabulary_is_caught(tmp_path):
    bad = tmp_path / "bad.md"
    bad.write_text("Measured in session 4 (issue #15) on this code, from /tmp/run.\n"
                   "Fixed by #13.\n"
                   "See [rules](rules.md#2-options) and the 2 sessions' notes.\n", encoding="utf-8")
    found = " ".join(_history_hits([bad]))
    for word in ("'session'", "'issue #15'", "'#13'", "'on this code'", "'/tmp/'", "'sessions'"):
        assert word in found, word
    assert "'#2'" not in found  # an anchor is not an issue


def test_product_text_has_no_development_history():
    hits = _history_hits(_product_files())
    assert not hits, "development history in the product (say what the software is and does):\n" + "\n".join(hits)


# --- Links between the docs ----------------------------------------------------------------------

def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not re.match(r"#{1,6} ", line):
            continue
        slug = _slug(line.lstrip("#"))
        anchors.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


def _links():
    """(file:line, target path, anchor) for every relative markdown link of README.md and docs/."""
    for path in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for target in re.findall(r"\]\(([^)\s]+)\)", line):
                if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                    continue
                file, _, anchor = target.partition("#")
                yield f"{path.relative_to(ROOT)}:{number}", (path.parent / file) if file else path, anchor


def test_slug_matches_github():
    assert _slug(" §2 Options") == "2-options"
    assert _slug(" A run directory (`runs/RUN_NAME/`)") == "a-run-directory-runsrun_name"
    assert _slug(" The batched trainer: 2 workers, 6.3× SB3") == "the-batched-trainer-2-workers-63-sb3"


def test_every_docs_link_and_anchor_exists():
    broken = []
    for where, target, anchor in _links():
        if not target.exists():
            broken.append(f"{where}: {target.relative_to(ROOT)} does not exist")
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(f"{where}: {target.relative_to(ROOT)} has no heading for #{anchor}")
    assert not broken, "\n".join(broken)


def _section_citations():
    """(file:line, doc, title) for every 'docs/NAME.md "Title"' (or 'NAME.md "Title"' inside docs/)."""
    files = [p for p in ROOT.rglob("*") if p.suffix in (".py", ".md", ".yaml", ".toml")
             and not any(part.startswith(".venv") or part == "runs" for part in p.relative_to(ROOT).parts)]
    for path in sorted(files):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for doc, title in re.findall(r"(?:docs/)?(\w+\.md),? \"([^\"]+)\"", line):
                if (DOCS / doc).exists():
                    yield f"{path.relative_to(ROOT)}:{number}", DOCS / doc, title


def test_every_cited_docs_section_exists():
    """A section cited by its title (docs/agents.md "Thinking time") is a heading of that page."""
    citations = list(_section_citations())
    assert any(title == "Thinking time" for _, _, title in citations)
    missing = []
    for where, doc, title in citations:
        headings = [line.lstrip("#").strip().replace("`", "") for line in doc.read_text(encoding="utf-8").splitlines()
                    if re.match(r"#{1,6} ", line)]
        if not any(h.lower().startswith(title.lower()) for h in headings):
            missing.append(f"{where}: {doc.name} has no section {title!r}")
    assert not missing, "\n".join(missing)


# --- The README's game in a few lines runs as written ----------------------------------------------

def _readme_snippet() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README.md lost its python snippet"
    return blocks[0]


@pytest.mark.parametrize("variant", VARIANTS)
def test_readme_snippet_plays_a_game_and_scores_by_side(variant, capsys):
    code = _readme_snippet()
    assert 'pitch_env.env("setback")' in code and '"checkpoint:setback"' in code
    # The snippet's comments name the other games and their agents; play each as the comments say.
    code = code.replace('pitch_env.env("setback")', f'pitch_env.env("{variant}")')
    code = code.replace('"checkpoint:setback"', f'"checkpoint:{variant}"')
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    record = scope["record"]
    # One score per side: two partnerships in setback and ten_point, one seat each in auction.
    rules = scope["env"].unwrapped.rules
    assert len(record["final_scores"]) == rules.num_sides == (4 if variant == "auction" else 2)
    assert str(record["final_scores"]) in capsys.readouterr().out


def test_the_checkpoints_index_names_every_shipped_agent_and_the_strongest_of_each_game():
    """checkpoints/README.md tells a newcomer which folder to use: it must not drift from the folders there
    and from the agent `pitch play` seats by default."""
    from agents.checkpoint import STRONGEST, shipped_names

    index = (ROOT / "checkpoints" / "README.md").read_text()
    named = set(re.findall(r"`([a-z_0-9]+)`", index))
    assert set(shipped_names()) <= named, f"not in checkpoints/README.md: {set(shipped_names()) - named}"
    for game, name in STRONGEST.items():
        assert f"| {game} | `{name}` |" in index
