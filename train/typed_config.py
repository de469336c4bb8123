"""The one config loader of ``pitch train`` and ``pitch exit``: a YAML file (read safely) and ``--set
key=value`` overrides become a dataclass, every key checked for its name, type and the range declared
beside its field, each refusal a one-line ConfigError naming the key, the value and the fix.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import math
import reprlib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, TypeVar

import yaml

from pitch_env.rules import Rules, rules as make_rules

T = TypeVar("T")

MAX_FILE_BYTES = 1 << 20  # a config is a page of text; anything bigger is refused before parsing
MAX_NODES = 10_000  # YAML nodes in one config or --set value
MAX_DEPTH = 20  # nesting of lists and mappings (the configs' deepest is 3)


class ConfigError(ValueError):
    """A config file or override that cannot be used; the message names the key and the fix."""


_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 60
_repr.maxlist = _repr.maxdict = 8
_repr.maxlevel = 3


def short(value) -> str:
    """``repr(value)`` of bounded length and cost, however large the value (for one-line errors)."""
    return _repr.repr(value)


# ---------------------------------------------------------------- types
def type_name(tp) -> str:
    """A field's type as an error message says it: ``int``, ``list[int]``, ``one of 'a', 'b'``."""
    if typing.get_origin(tp) is Literal:
        return "one of " + ", ".join(map(repr, typing.get_args(tp)))
    return getattr(tp, "__name__", None) if not typing.get_args(tp) else str(tp).replace("typing.", "")


def number_type(tp) -> type | None:
    """``int`` or ``float`` for a number field (``int``, ``float``, either ``| None``: a key left empty by
    default), else None: what a YAML int given for it becomes, and whether its range is of whole numbers."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        tp = args[0] if len(args) == 1 else None
    return tp if tp in (int, float) else None


def is_of_type(value, tp) -> bool:
    """Whether plain data read from YAML is a value of the annotation ``tp`` (bool is no int here)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        return True
    if origin is Literal:
        return value in args and not isinstance(value, bool)
    if origin in (typing.Union, types.UnionType):
        return any(is_of_type(value, a) for a in args)
    if origin is list:
        return isinstance(value, list) and all(is_of_type(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(is_of_type(k, args[0]) and is_of_type(v, args[1])
                                               for k, v in value.items())
    if tp is float:  # an int too big for a float is no float either
        return (isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)
                                             and abs(value) < 2**1000))
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, tp)


# ---------------------------------------------------------------- ranges, declared beside each field
@dataclass(frozen=True)
class Range:
    """The numbers a key may take: ``lo`` to ``hi``, either end excluded when ``above``/``below``."""

    lo: float
    hi: float
    above: bool = False  # strictly above lo
    below: bool = False  # strictly below hi

    def holds(self, v) -> bool:
        if isinstance(v, float) and not math.isfinite(v):
            return False
        return (self.lo < v if self.above else self.lo <= v) and (v < self.hi if self.below else v <= self.hi)

    def fix(self, whole: bool) -> str:
        if whole:
            return f"it must be a whole number from {self.lo:,} to {self.hi:,}"
        return (f"it must be in {'(' if self.above else '['}{_number(self.lo)}, {_number(self.hi)}"
                f"{')' if self.below else ']'}")


def _number(x: float) -> str:
    return f"{x:g}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


def ranged(default: Any, lo: float, hi: float, *, above: bool = False, below: bool = False):
    """A dataclass field holding a number from ``lo`` to ``hi`` (``above``/``below``: that end excluded)."""
    return field(default=default, metadata={"range": Range(lo, hi, above, below)})


def range_of(f: dataclasses.Field) -> Range | None:
    return f.metadata.get("range")


def check_range(key: str, value, rng: Range, where: str, whole: bool) -> None:
    """ConfigError unless ``value`` of ``key`` lies in ``rng``; ``where`` names the place ("in FILE");
    ``whole``: the key holds whole numbers (its type, not the value given: 2 for a fraction is no count)."""
    if not rng.holds(value):
        raise ConfigError(f"key {key!r} {where} is {short(value)}: {rng.fix(whole)}")


# ---------------------------------------------------------------- the game every config plays
@dataclass
class GameKeys:
    """The keys naming the game of a run: a preset and rules options over it, resolved to one Rules."""

    variant: str = "setback"  # rules preset: setback, auction or ten_point
    rules: dict[str, Any] = field(default_factory=dict, metadata={"merge": True})  # rules options over the preset, e.g. {num_players: 3}

    def resolved_rules(self) -> Rules:
        """The Rules of ``variant`` with ``rules`` applied: the one object the run hands to the env,
        the engine, the agents and the policy file (built again only when those keys change)."""
        key = (self.variant, self.rules)
        cached = self.__dict__.get("_resolved")
        if cached is not None and cached[0] == key:
            return cached[1]
        r = make_rules(self.variant, **self.rules)
        self.__dict__["_resolved"] = ((self.variant, copy.deepcopy(self.rules)), r)
        return r

    def check_rules(self, source: str) -> Rules:
        """The resolved rules, or a one-line ConfigError naming the keys and the rules' own message."""
        try:
            return self.resolved_rules()
        except (TypeError, ValueError) as e:  # the rules module names the bad option
            raise ConfigError(f"keys 'variant'/'rules' in {source}: {str(e).splitlines()[0]}") from None


# ---------------------------------------------------------------- plain data -> dataclass
@functools.cache
def hints_of(cls) -> dict[str, Any]:
    """The field types of a config class (its annotations evaluated once)."""
    return typing.get_type_hints(cls)


def build(cls: type[T], values: Any, source: str) -> T:
    """A ``cls`` from a plain dict: every key one of its fields, of the field's type and in its range
    (and, for a config of GameKeys, rules that the rules module accepts)."""
    if not isinstance(values, dict):
        raise ConfigError(f"{source} must be a mapping of key: value, got {type(values).__name__}")
    hints = hints_of(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key, value in values.items():
        if key not in fields:
            near = difflib.get_close_matches(str(key), list(fields), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ConfigError(f"unknown key {short(key)} in {source}{hint}; the keys are: {', '.join(fields)}")
        if not is_of_type(value, hints[key]):
            raise ConfigError(f"key {key!r} in {source} must be {type_name(hints[key])}, got {short(value)} "
                              f"({type(value).__name__})")
    cfg = cls(**coerced(cls, values))
    for f in fields.values():
        if range_of(f) is not None and getattr(cfg, f.name) is not None:
            check_range(f.name, getattr(cfg, f.name), range_of(f), f"in {source}", number_type(hints[f.name]) is int)
    if isinstance(cfg, GameKeys):
        cfg.check_rules(source)
    return cfg


def coerced(cls, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the ints given for float fields made floats (YAML reads ``1`` as an int)."""
    hints = hints_of(cls)
    return {k: (float(v) if number_type(hints[k]) is float and isinstance(v, int) else v) for k, v in values.items()}


# ---------------------------------------------------------------- YAML text, files and --set
def safe_yaml(text: str, where: str) -> Any:
    """YAML text as plain data, refusing anchors/aliases (a "billion laughs" file expands them into
    10^9 elements) and more than MAX_NODES nodes before anything is built or walked."""
    try:
        nodes = depth = 0
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise ConfigError(f"{where} uses a YAML anchor or alias (&name/*name); write the values out")
            nodes += isinstance(event, yaml.NodeEvent)
            depth += isinstance(event, yaml.CollectionStartEvent) - isinstance(event, yaml.CollectionEndEvent)
            if nodes > MAX_NODES or depth > MAX_DEPTH:
                raise ConfigError(f"{where} holds more than {MAX_NODES:,} YAML values or nests deeper than "
                                  f"{MAX_DEPTH}; a config is a page of keys")
        return yaml.safe_load(text)
    except ValueError as e:  # e.g. an integer of more digits than Python converts
        if isinstance(e, ConfigError):
            raise
        raise ConfigError(f"{where} holds a value that cannot be read: {short(str(e))}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{where} is not valid YAML: {str(e).splitlines()[0]} ({short(getattr(e, 'problem', ''))})") from None


def parse_override(text: str) -> tuple[str, Any]:
    """``"key=value"`` → (key, value), the value read as YAML (``ent_coef=0.02``, ``hidden=[128,128]``)."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set expects key=value, got {short(text)} (e.g. --set total_steps=5000)")
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(f"--set {key.strip()!r}: the value is over {MAX_FILE_BYTES:,} characters")
    return key.strip(), safe_yaml(raw, f"--set {short(text)}: the value")


def read_yaml_file(path: Path) -> Any:
    """The YAML data of a config file: size-capped, UTF-8, no aliases (see ``safe_yaml``)."""
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} not found; the shipped configs are in configs/")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ConfigError(f"config file {str(path)!r} is {path.stat().st_size:,} bytes; a config is under "
                          f"{MAX_FILE_BYTES:,} (is this the right file?)")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"config file {str(path)!r} is not UTF-8 text (byte {e.start}); save it as UTF-8") from None
    return safe_yaml(text, f"config file {str(path)!r}")


def merged_values(cls, path: str | Path | None, overrides: typing.Iterable[str] = ()) -> tuple[dict[str, Any], str]:
    """The plain values of a config file (or none) with ``--set`` overrides applied, and the source to
    name in errors. Each key of the file is checked alone first (``build``: known, of its type, in its
    range), so that a bad value in the file is named before an override hides it; the checks across
    keys and against the disk (a ``start`` that must exist) apply to the merged values, so an override
    mends a file whose ``start`` is missing here. An override of a field marked ``merge`` (the rules
    options) adds to the file's mapping instead of replacing it."""
    values: dict[str, Any] = {}
    source = "the defaults"
    if path is not None:
        path = Path(path)
        values = read_yaml_file(path)
        if values is None:
            values = {}
        source = str(path)
        build(cls, values, source)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    overrides = list(overrides)
    for text in overrides:
        key, value = parse_override(text)
        if key not in fields:
            build(cls, {key: value}, "--set")  # raises, naming the key
        if fields[key].metadata.get("merge") and isinstance(value, dict) and isinstance(values.get(key), dict):
            values[key] = {**values[key], **value}
        else:
            values[key] = value
    return values, (source if not overrides else f"{source} with --set")


def load(cls: type[T], make: Callable[[dict, str], T], path: str | Path | None,
         overrides: typing.Iterable[str] = ()) -> T:
    """The config ``make`` builds from a YAML file (or the defaults) with ``--set key=value`` applied."""
    return make(*merged_values(cls, path, overrides))
