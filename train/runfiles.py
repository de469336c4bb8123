"""Reading back what a run wrote, for every resume (``pitch train``, ``pitch exit``, the RLlib backend):
only regular files under the exact names the writer uses, sizes capped before anything is read or
allocated, arrays checked for dtype and shape from their headers, JSON checked field by field.

Nothing here follows a symlink, opens a FIFO or a device, unpickles, or lets a file's own header
decide how much memory it gets. A refusal is one ``ResumeError`` line naming the file and the fix.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import zipfile
from pathlib import Path

import numpy as np

from .typed_config import ConfigError, short


class ResumeError(ConfigError):
    """A run directory (or a file of one) that cannot be resumed; the message names the file and the fix."""


# ---------------------------------------------------------------------- files
_KIND = {stat.S_IFDIR: "directory", stat.S_IFLNK: "symlink", stat.S_IFIFO: "FIFO", stat.S_IFSOCK: "socket",
         stat.S_IFCHR: "device", stat.S_IFBLK: "device"}


def kind_of(path: Path) -> str | None:
    """What ``path`` itself is (never following a symlink): "file", "directory", "symlink", "FIFO", …, or
    None if absent."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as e:  # e.g. a name too long, a component that is a file
        raise ResumeError(f"{str(path)!r} cannot be looked at ({e.strerror}); is the run directory right?") from None
    return "file" if stat.S_ISREG(mode) else _KIND.get(stat.S_IFMT(mode), "special file")


def regular_file(path: Path, cap: int, what: str) -> int:
    """The size of ``path``, a regular file (not a symlink, FIFO or device) of at most ``cap`` bytes."""
    kind = kind_of(path)
    if kind is None:
        raise ResumeError(f"{what} {str(path)!r} is missing; restore it, or start a new run")
    if kind != "file":
        raise ResumeError(f"{what} {str(path)!r} is a {kind}, not a file the run wrote; remove it and restore the file")
    size = os.lstat(path).st_size
    if size > cap:
        raise ResumeError(f"{what} {str(path)!r} is {size:,} bytes, more than the run writes ({cap:,} at most); "
                          f"it is not this run's file")
    return size


def open_regular(path: Path, cap: int, what: str):
    """``path`` opened for reading (a binary file object) after ``regular_file``'s checks, without
    following a symlink or blocking on a FIFO put there in the meantime."""
    regular_file(path, cap, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        raise ResumeError(f"{what} {str(path)!r} cannot be opened ({e.strerror})") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > cap:
        os.close(fd)
        raise ResumeError(f"{what} {str(path)!r} changed into something other than the run's file while read")
    return os.fdopen(fd, "rb")


def read_bytes(path: Path, cap: int, what: str) -> bytes:
    with open_regular(path, cap, what) as f:
        return f.read(cap + 1)[:cap]


def read_json(path: Path, cap: int, what: str, fmt: str | None = None) -> dict:
    """A JSON object of a run file (UTF-8, at most ``cap`` bytes; with ``fmt``, its "format" must be it)."""
    from pitch_env.files import json_object

    data = read_bytes(path, cap, what)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ResumeError(f"{what} {str(path)!r} is not UTF-8 text; not a file the run wrote") from None
    if fmt is not None:
        return json_object(text, fmt, f"{what} {str(path)!r}", "a file the run wrote", ResumeError)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ResumeError(f"{what} {str(path)!r} is not valid JSON ({str(e)[:80]}); the run is damaged") from None
    if not isinstance(value, dict):
        raise ResumeError(f"{what} {str(path)!r} holds a JSON {type(value).__name__}, not the object the run wrote")
    return value


def sha256_of(path: Path, cap: int, what: str) -> str:
    import hashlib

    h = hashlib.sha256()
    with open_regular(path, cap, what) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def numbered(folder: Path, pattern: re.Pattern) -> list[Path]:
    """The regular files of ``folder`` whose whole name matches ``pattern`` (whose group 1 is ASCII
    digits in the writer's padding), in order of that number; anything else there is never read."""
    kind = kind_of(folder)
    if kind is None:
        return []
    if kind != "directory":
        raise ResumeError(f"{str(folder)!r} is a {kind}, not the folder the run wrote; remove it")
    found = []
    for entry in os.scandir(folder):
        m = pattern.fullmatch(entry.name)
        if m and entry.is_file(follow_symlinks=False):
            found.append((int(m.group(1)), Path(entry.path)))
    return [p for _, p in sorted(found)]


TEMP = re.compile(r"\.[A-Za-z0-9_.+=-]+\.[a-z0-9_]{8}\.tmp")  # pitch_env.files.atomic_write's temporary files


def remove_debris(folder: Path) -> None:
    """Delete the temporary files a killed ``atomic_write`` left in ``folder`` (regular files only: a
    directory or link of a similar name is not the writer's and is left alone, never followed)."""
    if kind_of(folder) != "directory":
        return
    for entry in os.scandir(folder):
        if TEMP.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            os.unlink(entry.path)


# ---------------------------------------------------------------------- arrays
class Array:
    """What one array of an .npz must be: its dtype, and its shape with ``"n"`` for the rows shared by
    every array of the file; ``finite`` floats, and bools stored as 0 or 1 (always checked)."""

    def __init__(self, dtype, shape: tuple, finite: bool = False):
        self.dtype, self.shape, self.finite = np.dtype(dtype), shape, finite


def read_npz(path: Path, arrays: dict[str, Array], rows: tuple[int, int], cap: int, what: str,
             fix: str) -> dict[str, np.ndarray]:
    """The arrays of an .npz written by ``np.savez``/``savez_compressed``: exactly the members
    ``arrays`` names, each header read first (dtype, shape, no pickles) and checked, so nothing is
    allocated unless the whole file fits ``cap`` bytes of arrays and ``rows`` (lowest, highest)."""
    where = f"{what} {str(path)!r}"
    out = {}
    with open_regular(path, cap + (1 << 20), what) as f:
        try:
            z = zipfile.ZipFile(f)
            infos = z.infolist()
            names = sorted(i.filename for i in infos)
            if names != sorted(f"{k}.npy" for k in arrays):
                raise ResumeError(f"{where} holds {short(names)}, not the arrays {', '.join(arrays)}; {fix}")
            headers, total, n = {}, 0, None
            for info in infos:
                key = info.filename[:-4]
                if info.flag_bits & 1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    raise ResumeError(f"{where}: {info.filename} is encrypted or packed in a way np.savez never "
                                      f"writes; {fix}")
                with z.open(info) as m:
                    shape, dtype = _header(m, where, fix)
                spec = arrays[key]
                if dtype != spec.dtype or len(shape) != len(spec.shape):
                    raise ResumeError(f"{where}: {key} is {dtype} of {len(shape)} dimensions, expected {spec.dtype} "
                                      f"of {len(spec.shape)}; {fix}")
                for got, want in zip(shape, spec.shape):
                    if want == "n":
                        n = got if n is None else n
                        if got != n:
                            raise ResumeError(f"{where}: its arrays do not have the same number of rows; {fix}")
                    elif got != want:
                        raise ResumeError(f"{where}: {key} has shape {shape}, expected {spec.shape} for this run; {fix}")
                headers[key] = (info, shape)
                total += math.prod(shape) * dtype.itemsize
            if n is not None and not rows[0] <= n <= rows[1]:
                raise ResumeError(f"{where} holds {n:,} rows; the run writes {rows[0]:,} to {rows[1]:,} here; {fix}")
            if total > cap:
                raise ResumeError(f"{where} declares {total:,} bytes of arrays, over the {cap:,} this reader loads; {fix}")
            for key, (info, shape) in headers.items():
                out[key] = _data(z, info, shape, arrays[key], where, fix)
        except ResumeError:
            raise
        except Exception as e:  # a damaged zip or header: zipfile, zlib and numpy raise their own types
            raise ResumeError(f"{where} cannot be read ({type(e).__name__}: {str(e)[:80]}); {fix}") from None
    return out


def _header(m, where: str, fix: str):
    version = np.lib.format.read_magic(m)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(m)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(m)
    else:
        raise ResumeError(f"{where}: an array header of version {version}, which np.savez does not write; {fix}")
    if fortran or dtype.hasobject or dtype.fields is not None:
        raise ResumeError(f"{where}: an array stored as {'Fortran order' if fortran else dtype}, which the run never "
                          f"writes; {fix}")
    return shape, dtype


def _data(z: zipfile.ZipFile, info, shape, spec: Array, where: str, fix: str) -> np.ndarray:
    arr = np.empty(shape, spec.dtype)
    buf = memoryview(arr.reshape(-1).view(np.uint8))
    with z.open(info) as m:
        _header(m, where, fix)
        got = 0
        while got < len(buf):
            k = m.readinto(buf[got:])
            if not k:
                raise ResumeError(f"{where}: {info.filename} ends early (truncated); {fix}")
            got += k
        if m.read(1):
            raise ResumeError(f"{where}: {info.filename} holds more bytes than its header declares; {fix}")
    if spec.dtype == np.bool_ and arr.size and int(arr.view(np.uint8).max()) > 1:
        raise ResumeError(f"{where}: {info.filename} holds booleans that are neither 0 nor 1; {fix}")
    if spec.finite and not bool(np.isfinite(arr).all()):
        raise ResumeError(f"{where}: {info.filename} holds NaN or infinite values; {fix}")
    return arr


# ---------------------------------------------------------------------- JSON fields
def is_number(value, kind: type) -> bool:
    """JSON's value of ``kind`` (int, float or bool): a bool is no number, a float may be written as an
    int, and a float is finite."""
    if kind is bool or isinstance(value, bool):
        return kind is bool and isinstance(value, bool)
    if kind is int:
        return isinstance(value, int)
    return isinstance(value, (int, float)) and math.isfinite(value)


def check_fields(obj, spec: dict[str, tuple], where: str, optional: tuple[str, ...] = (), others: bool = False) -> dict:
    """``obj`` a JSON object holding exactly ``spec``'s keys (those in ``optional`` may be absent; with
    ``others``, keys checked elsewhere may be there too), each ``(kind, lowest, highest)`` (bounds None
    for bool and str); ResumeError naming the first that is not."""
    if not isinstance(obj, dict):
        raise ResumeError(f"{where} is a JSON {type(obj).__name__}, not the object the run wrote")
    extra = [k for k in obj if k not in spec]
    if extra and not others:
        raise ResumeError(f"{where} holds {short(extra[0])}, which the run never writes")
    for key, (kind, lo, hi) in spec.items():
        if key not in obj:
            if key in optional:
                continue
            raise ResumeError(f"{where} lacks {key!r}")
        v = obj[key]
        ok = isinstance(v, str) if kind is str else is_number(v, kind)
        if ok and lo is not None:
            ok = lo <= v <= hi
        if not ok:
            bounds = f" from {lo} to {hi}" if lo is not None else ""
            raise ResumeError(f"{where}: {key!r} is {short(v)}, expected {kind.__name__}{bounds}")
    return obj
