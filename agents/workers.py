"""How many worker processes this machine can hold: a count that cannot fit (its cores, its free
memory) is refused in one line before any process starts, never found out by swapping or the OOM killer."""

from __future__ import annotations

import os

# One worker process (a forked or spawned Python with numpy and torch loaded): 32 tournament workers
# measured 4.4 GB together, about 140 MB each.
BYTES_PER_WORKER = 150 * 2**20
# More processes than this per core only wait for a core, each still holding its memory.
WORKERS_PER_CORE = 4


def available_memory() -> int | None:
    """Bytes of memory available to new processes now (Linux: MemAvailable), or None if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def check_workers(n: int, option: str) -> None:
    """ValueError (one line, naming ``option``) if ``n`` worker processes cannot fit this machine."""
    cores = os.cpu_count() or 1
    if n > WORKERS_PER_CORE * cores:
        raise ValueError(f"{option} {n}: this machine has {cores} cores; more than {WORKERS_PER_CORE * cores} "
                         f"processes only wait for one (results do not depend on the number): use at most {cores}")
    free = available_memory()
    if free is not None and n * BYTES_PER_WORKER > free:
        fit = max(1, free // BYTES_PER_WORKER)
        raise ValueError(f"{option} {n}: {n} processes need about {n * BYTES_PER_WORKER / 2**30:.1f} GB, but "
                         f"{free / 2**30:.1f} GB of memory is available: use at most {fit}")
