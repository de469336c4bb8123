"""The shipped agents (checkpoints/): one per game under the game's name, each card telling its lineage,
recipe, compute and strength, and ``checkpoint:NAME`` finding them from any working directory."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import agents
import pitch_cli
import pitch_env
from agents.checkpoint import SHIPPED_DIR, STRONGEST, resolve_policy_path, shipped_checkpoint, shipped_names, strongest
from pitch_policy import WEIGHTS_FILE, CheckpointError, read_policy

ROOT = Path(__file__).resolve().parent.parent
CARDS = sorted(p.name for p in (ROOT / "checkpoints").iterdir() if p.is_dir())


@pytest.mark.parametrize("variant", pitch_env.variants())
def test_every_game_ships_an_agent_under_its_own_name(variant):
    _, card = read_policy(ROOT / "checkpoints" / variant)
    assert card["variant"] == variant
    assert variant in shipped_names()


@pytest.mark.parametrize("name", CARDS)
def test_every_card_tells_lineage_recipe_compute_and_strength_in_the_products_voice(name):
    text = (ROOT / "checkpoints" / name / "README.md").read_text()
    for section in ("## Lineage", "## Recipe", "## Compute", "## Strength"):
        assert section in text, f"checkpoints/{name}/README.md lacks {section}"
    recipe = text.split("## Recipe", 1)[1].split("\n## ", 1)[0]
    configs = re.findall(r"--config (configs/\S+\.yaml)", recipe)
    assert configs and all((ROOT / c).is_file() for c in configs), f"{name}: the recipe names no existing config"
    lineage = text.split("## Lineage", 1)[1].split("\n## ", 1)[0]
    assert "configs/" in lineage
    for word in ("session", "issue", "/tmp", "on this code", "#1", "#2"):
        assert word not in text.lower(), f"checkpoints/{name}/README.md says {word!r}"


def test_a_shipped_name_is_found_beside_the_code_not_in_the_working_directory(tmp_path):
    code = ("import agents, pitch_env; env = pitch_env.env('ten_point'); "
            "a = agents.make('checkpoint:ten_point', env); env.reset(seed=1); "
            "obs, _, _, _, info = env.last(); print(a.name, obs['action_mask'][a.act(obs, info)])")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["checkpoint:ten_point", "1"]


def test_a_path_still_names_a_file_or_folder_and_wins_over_nothing(tmp_path):
    assert resolve_policy_path("setback") == SHIPPED_DIR / "setback" / WEIGHTS_FILE
    base = SHIPPED_DIR / "setback_base"
    assert resolve_policy_path(str(base)) == base / WEIGHTS_FILE
    for path in (str(tmp_path / "x.safetensors"), str(tmp_path / "setback"), "../no_such_folder/setback"):
        with pytest.raises(CheckpointError, match="not found"):  # a path, never a name
            resolve_policy_path(path)


def test_an_unknown_name_is_refused_with_the_shipped_names(capsys):
    env = pitch_env.env("setback")
    with pytest.raises(CheckpointError, match=r"no shipped agent named 'setbak': the shipped ones are .*setback_base"):
        agents.make("checkpoint:setbak", env)
    assert pitch_cli.main(["tournament", "--agents", "checkpoint:setbak,heuristic", "--games", "2", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "auction, auction_base" in err


def test_a_name_of_another_game_is_refused_by_its_rules():
    with pytest.raises(CheckpointError):
        agents.make("checkpoint:auction", pitch_env.env("setback"))


@pytest.mark.parametrize("variant", pitch_env.variants())
def test_pitch_play_seats_the_games_strongest_agent_by_default(variant, monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert pitch_cli.main(["play", "--variant", variant, "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert f"seat 1 (checkpoint:{STRONGEST[variant]})" in out


def test_every_game_names_a_strongest_agent_of_its_own_rules():
    assert set(STRONGEST) == set(pitch_env.variants())
    for variant, name in STRONGEST.items():
        assert read_policy(ROOT / "checkpoints" / name)[1]["variant"] == variant
        assert strongest(variant) == f"checkpoint:{name}"
    assert strongest("no_such_game") is None


def test_the_strongest_agents_are_the_ones_docs_leaderboard_names():
    """The table in agents/checkpoint.py is the one in docs/leaderboard.md ("The strongest agent of each
    game", from the round robins and 4,000-game tournaments): a change to one without the other fails here."""
    text = (ROOT / "docs" / "leaderboard.md").read_text()
    section = text.split("## The strongest agent of each game", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| (\w+) \| `checkpoint:(\w+)` \|", section, re.M))
    assert rows == STRONGEST


def test_pitch_play_under_changed_rules_seats_the_heuristic(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert pitch_cli.main(["play", "--rule", "target_score=7", "--seed", "3"]) == 0
    assert "seat 1 (heuristic)" in capsys.readouterr().out


def test_make_run_compares_its_agent_with_the_games_strongest_agent():
    from train.cli import run_opponents

    assert run_opponents("setback") == ["random", "heuristic", "checkpoint:setback_dealt_5m"]
    best = agents.make(run_opponents("setback")[2], pitch_env.env("setback"))
    assert best.card["sha256"] == read_policy(ROOT / "checkpoints" / "setback_dealt_5m")[1]["sha256"]


def test_pimcnet_takes_a_shipped_name_too():
    agent = agents.make("pimcnet:1:setback", pitch_env.env("setback"))
    assert agent.name == "pimcnet:1:setback"


@pytest.mark.parametrize("name", ["a/" + "x" * 300, "\x00", "-", "x" * 99])
def test_a_name_no_folder_could_have_is_refused_in_one_line(name):
    with pytest.raises(CheckpointError) as e:
        agents.make(f"checkpoint:{name}", pitch_env.env("setback"))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("name", ["x" * 300, "x" * 300 + ".safetensors", "\x00"])
def test_the_name_lookup_never_raises_the_file_systems_errors(name):
    """A name too long for the file system is no shipped agent's: the path loader reports it."""
    assert shipped_checkpoint(name) is None
    with pytest.raises(CheckpointError) as e:
        resolve_policy_path(name)
    assert "\n" not in str(e.value)
