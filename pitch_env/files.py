"""Files pitch writes and reads back: an atomic write (readers see the old file or the new, never half,
and a kill leaves no debris but a temporary file the next writer clears), and a JSON document (a game
record, a policy card) parsed in one place that turns damaged or foreign text into one-line errors."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


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


def _file_mode() -> int:
    """The mode a plain ``open(path, "w")`` would give a new file under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path: str | Path, write) -> None:
    """Call ``write(tmp_path)``, fsync, then rename over ``path``: readers see the old file or the new, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, _file_mode())  # mkstemp makes it owner-only; give it a normal file's mode
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:  # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def check_writable_above(path: str | Path) -> Path:
    """The nearest existing folder at or above ``path``, after a real write there (a temporary file made
    and removed: permission bits alone do not say, under root or on a read-only mount); OSError if it
    cannot be written. Checks that the folders a later write makes can be made, without making them."""
    base = next(a for a in [Path(path), *Path(path).parents] if a.exists())
    fd, tmp = tempfile.mkstemp(dir=base, prefix=".pitch-check-")
    os.close(fd)
    os.unlink(tmp)
    return base
