"""The one config loader (train/typed_config.py) of ``pitch train`` and ``pitch exit``: any dataclass of
typed fields, ranges declared beside them, read from YAML and ``--set`` with one-line refusals."""

import dataclasses
import typing
from pathlib import Path
from dataclasses import dataclass, field

import pytest

import train.exit as ex
from train.config import TrainConfig
from train.typed_config import ConfigError, GameKeys, build, load, range_of, ranged


@dataclass
class Demo(GameKeys):
    n: int = ranged(2, 1, 5)  # a count
    lr: float = ranged(0.1, 0, 1, above=True)  # a step size
    w: float | None = ranged(None, 0, 10)  # a weight, empty by default
    k: int | None = ranged(None, 1, 5)  # a count, empty by default
    names: list[str] = field(default_factory=list)


def load_demo(path, overrides=()):
    return load(Demo, lambda values, source: build(Demo, values, source), path, overrides)


def one_line(call, match: str) -> str:
    with pytest.raises(ConfigError, match=match) as e:
        call()
    assert "\n" not in str(e.value)
    return str(e.value)


def path_of(values: dict) -> Path:
    """A YAML file of ``values`` (the file's own numbers keep their type: 2 stays an int)."""
    import tempfile

    import yaml

    path = Path(tempfile.mkdtemp()) / "d.yaml"
    path.write_text(yaml.safe_dump(values))
    return path


def test_any_dataclass_is_read_from_yaml_and_set(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("n: 3\nrules: {target_score: 21}\n")
    cfg = load_demo(path, ["lr=1", "names=[a, b]", "rules={max_hands: 50}"])
    assert (cfg.n, cfg.lr, cfg.names) == (3, 1.0, ["a", "b"]) and type(cfg.lr) is float
    assert cfg.rules == {"target_score": 21, "max_hands": 50}  # rules options merge
    assert cfg.resolved_rules().target_score == 21


def test_each_refusal_names_the_key_the_value_and_the_fix(tmp_path):
    one_line(lambda: load_demo(None, ["nn=3"]), r"unknown key 'nn' in --set \(did you mean 'n'\?\); the keys are: "
                                                r"variant, rules, n, lr, w, k, names")
    one_line(lambda: load_demo(None, ["n=three"]), r"key 'n' in the defaults with --set must be int, got 'three' \(str\)")
    one_line(lambda: load_demo(None, ["n=true"]), r"key 'n' .* must be int, got True \(bool\)")
    one_line(lambda: load_demo(None, ["n=6"]), r"key 'n' .* is 6: it must be a whole number from 1 to 5")
    one_line(lambda: load_demo(None, ["lr=0"]), r"key 'lr' .* is 0.0: it must be in \(0, 1\]")
    one_line(lambda: load_demo(None, ["lr=.nan"]), r"key 'lr' .* is nan: it must be in \(0, 1\]")
    cfg = load_demo(path_of({"w": 2}), [])
    assert cfg.w == 2.0 and type(cfg.w) is float  # a YAML int given for a float, empty or not, is a float
    one_line(lambda: load_demo(path_of({"w": 20}), []), r"key 'w' .* is 20.0: it must be in \[0, 10\]$")  # no count
    assert load_demo(path_of({"k": 2}), []).k == 2  # an int stays an int, empty by default or not
    one_line(lambda: load_demo(None, ["k=6"]), r"key 'k' .* is 6: it must be a whole number from 1 to 5$")
    one_line(lambda: load_demo(None, ["rules={num_players: 9}"]), r"num_players=9")
    path = tmp_path / "d.yaml"
    path.write_text("n: 9\n")
    one_line(lambda: load_demo(path, ["n=2"]), f"key 'n' in {path} is 9")  # the file's own mistake, named first


def test_every_number_key_of_both_configs_declares_its_range():
    for cls in (TrainConfig, ex.ExitConfig):
        hints = typing.get_type_hints(cls)
        unranged = [f.name for f in dataclasses.fields(cls) if hints[f.name] in (int, float) and range_of(f) is None]
        assert not unranged, f"{cls.__name__}: declare ranged(default, lo, hi) for {unranged}"
        build(cls, {}, "the defaults")  # the defaults lie in their ranges


@pytest.mark.parametrize("values, words", [
    ({"generation": 2}, "unknown key 'generation' in test (did you mean 'generations'?)"),
    ({"seed": -1}, "key 'seed' in test is -1: it must be a whole number from 0"),
    ({"stages": [{"generations": 1, "decisions": 5}]}, "key 'decisions' of stage 1 of key 'stages' in test is 5: it "
                                                       "must be a whole number from 1,000 to 100,000,000"),
    ({"gate_min": 1.5}, "key 'gate_min' in test is 1.5: it must be in [0, 1]"),
    ({"bid_weight": -1}, "key 'bid_weight' in test is -1.0: it must be in [0, 1000]"),  # a weight, not a count
    ({"rules": [1]}, "key 'rules' in test must be dict[str, Any]"),
])
def test_expert_iteration_configs_get_the_same_refusals(values, words):
    with pytest.raises(ConfigError) as e:
        ex.make_exit_config(values, "test")
    assert words in str(e.value) and "\n" not in str(e.value)


def test_an_override_mends_a_copied_config_whose_start_is_missing_here(tmp_path):
    """The checks against the disk apply to the merged values: a config copied elsewhere, whose own
    ``start`` does not exist there, loads once ``--set start=`` names one that does."""
    shipped = str(Path(__file__).resolve().parents[1] / "checkpoints" / "auction")
    path = tmp_path / "copied.yaml"
    path.write_text("variant: auction\nstart: checkpoints/not_here\ngenerations: 1\n")
    one_line(lambda: ex.load_exit_config(path), f"key 'start' in {path}")
    assert ex.load_exit_config(path, [f"start={shipped}"]).start == shipped
    path.write_text("variant: auction\nstart: checkpoints/not_here\ngenerations: 0\n")  # a bad value stays the file's
    one_line(lambda: ex.load_exit_config(path, [f"start={shipped}"]), f"key 'generations' in {path} is 0")
