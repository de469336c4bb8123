"""The parameters of the OpenSpiel games (pitch_env/openspiel.py): every rules option as a pyspiel
parameter, checked name by name, and a reader of ``python_pitch_*(name=value,...)`` game strings that
refuses what pyspiel's own parser would merge or misread. Plain Python: no pyspiel import here.
"""

from __future__ import annotations

import re

from .rules import PRESETS, Rules, rules as make_rules

# Rules options as pyspiel parameters. pyspiel has no None and no int-or-str, and reads a game
# string's "4" back as an int, so bid_ends_auction travels as an int: 0 for None (no bid closes the
# auction), -1 for "shoot"; partnerships as "auto" (the preset's rule for the table size), "true",
# "false" (a bool is taken too); first_dealer as a seat ("random" is refused: a dealer drawn from a
# seed is not chance).
_ENDS = {None: 0, "shoot": -1}
_AUTO = "auto"
_PARTNERSHIPS = (_AUTO, "true", "false")
INT_MAX = 2**31 - 1  # pyspiel holds int parameters and the game's length as 32-bit C++ ints
_KINDS = {int: "a whole number", bool: "true or false", str: "a word"}
PREFIX = "python_pitch_"


def parameters(variant: str) -> dict:
    """The pyspiel parameter specification of a preset: each option with its default."""
    spec = {}
    for name, value in PRESETS[variant].items():
        if name == "player_counts":  # the preset's fact, not a game parameter (pyspiel takes no tuples)
            continue
        if name == "first_dealer":
            value = int(value)
        elif name == "bid_ends_auction":
            value = _ENDS.get(value, value)
        spec[name] = value
    spec["partnerships"] = _AUTO
    return spec


def check_parameters(variant: str, params: dict) -> dict:
    """``params`` checked name by name against the game's (a one-line ValueError naming the bad one
    and what to write instead); a bool ``partnerships`` becomes its word."""
    spec, out = parameters(variant), {}
    for name, value in params.items():
        if name not in spec:
            raise ValueError(f"unknown game parameter {name[:40]}={short(value)} for {PREFIX}{variant}: "
                             f"the parameters are {', '.join(sorted(spec))}")
        if name == "partnerships":
            value = {True: "true", False: "false"}.get(value, value) if isinstance(value, bool) else value
            if value not in _PARTNERSHIPS:
                raise ValueError(f"game parameter partnerships={short(value)}: use auto, true or false")
        want = type(spec[name])
        if type(value) is not want:
            raise ValueError(f"game parameter {name}={short(value)} must be {_KINDS[want]}, "
                             f"e.g. {name}={_written(spec[name])} (the {variant} default)")
        if want is str and len(value) > 40:  # no option's word is this long; the rules would echo it all
            raise ValueError(f"game parameter {name}={short(value)} is no choice of the rules: "
                             f"e.g. {name}={_written(spec[name])} (the {variant} default)")
        if want is int and not -INT_MAX <= value <= INT_MAX:
            raise ValueError(f"game parameter {name}={value} does not fit OpenSpiel's 32-bit ints: "
                             f"use a value from {-INT_MAX} to {INT_MAX}")
        out[name] = value
    return out


def _written(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def short(value) -> str:
    """``repr(value)``, cut to a length an error line can hold."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:45]}...({len(text)} chars)"


def game_rules(variant: str, params: dict) -> Rules:
    options = {}
    for name, value in check_parameters(variant, params).items():
        if name == "bid_ends_auction":
            value = {v: k for k, v in _ENDS.items()}.get(value, value)
        elif name == "partnerships":
            if value == _AUTO:
                continue
            value = value == "true"
        options[name] = value
    return make_rules(variant, **options)


def _read_value(text: str):
    """A game string's value as OpenSpiel's parser reads it: a bool, an int, a float or a word."""
    if text in ("true", "True", "false", "False"):
        return text in ("true", "True")
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+)", text):
        return float(text)
    return text


def read_game_string(text: str) -> tuple[str, dict]:
    """``"name(a=1,b=x)"`` -> ``("name", {"a": 1, "b": "x"})``; a name given twice is refused."""
    name, bracket, rest = text.partition("(")
    if not bracket:
        return name, {}
    if not rest.endswith(")"):
        raise ValueError(f"game string {short(text)} does not end with ')': write {short(name)}(name=value,...)")
    params = {}
    for item in rest[:-1].split(",") if rest[:-1] else ():
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise ValueError(f"game string {short(text)}: write each parameter as name=value, not {short(item)}")
        if key in params:
            raise ValueError(f"game parameter {key[:40]} is given twice ({short(params[key])} and "
                             f"{short(_read_value(value))}): give it once")
        params[key] = _read_value(value)
    return name, params
