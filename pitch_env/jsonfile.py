"""A JSON document pitch wrote (a game record, a policy card), parsed in one place that turns
damaged or foreign text into one-line errors naming what was wrong."""

from __future__ import annotations

import json


def json_object(text: str, fmt: str, what: str, kind: str, error: type[Exception]) -> dict:
    """``text`` as a JSON object whose ``"format"`` is ``fmt``; anything else raises ``error`` with a
    one-line message that starts with ``what`` (the file, or the part of it) and names ``kind``
    (what it should have been, e.g. "a pitch game record")."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"{what} is not {kind} (not valid JSON: {e})") from None
    except RecursionError:  # json recurses once per level: hostile nesting must not become a traceback
        raise error(f"{what} nests too deeply to be {kind}") from None
    if not isinstance(value, dict):
        raise error(f"{what} is not {kind}: it holds a JSON {type(value).__name__}, expected an object")
    if value.get("format") != fmt:
        raise error(f"{what} is not {kind}: format {repr(value.get('format'))[:40]}, expected {fmt!r}")
    return value
