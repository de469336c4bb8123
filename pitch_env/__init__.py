"""pitch-rl: the rules engine, observation encoder, game records and PettingZoo environment for Pitch.

``rules(variant, **options)`` builds a rule set, ``Game`` plays it, ``env``/``raw_env`` wrap it
as a PettingZoo AEC environment and ``vector_env`` plays many games at once in compiled code (both
imported lazily so the engine alone stays light). Importing
``pitch_env`` registers ``pitch/setback-v0``, ``pitch/auction-v0`` and ``pitch/ten_point-v0`` for
``pettingzoo.make("aec", id, **options)``.
"""

from .cards import card_name, parse_card, parse_cards
from .engine import Game, IllegalActionError
from .infostate import InfoState
from .record import RecordError, game_record, load_record, save_record
from .replay import replay
from .rules import Rules, rules, variants

__all__ = ["Game", "IllegalActionError", "InfoState", "Rules", "rules", "variants", "env", "raw_env",
           "card_name", "parse_card", "parse_cards", "game_record", "replay", "load_record", "save_record",
           "RecordError", "vector_env"]


VARIANT_IDS = {f"pitch/{variant}-v0": variant for variant in variants()}


def _register() -> None:
    # PettingZoo reads entry points from its own in-memory registry, so the ids exist only once
    # this module ran; the entry point is a string, so pitch_env.aec loads only on make().
    from pettingzoo.env_registry.registration import aec_registry, register

    for env_id, variant in VARIANT_IDS.items():
        if env_id not in aec_registry:  # a re-import (importlib.reload) must not warn
            register("aec", env_id, entry_point="pitch_env.aec:env", kwargs={"variant": variant})


_register()


def __getattr__(name):
    if name in ("env", "raw_env"):
        from . import aec

        return getattr(aec, name)
    if name == "vector_env":
        from .vector import vector_env

        return vector_env
    raise AttributeError(f"module 'pitch_env' has no attribute {name!r}")
