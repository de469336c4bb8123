"""Worker processes: how many this machine can hold (a count that cannot fit its cores or its free
memory is refused in one line before any process starts, never found out by swapping or the OOM
killer), and ``Workers``, the pool every multi-process job runs its tasks in: a worker killed while it
works raises ``WorkerDied`` in one line instead of leaving the job waiting for it for ever."""

from __future__ import annotations

import itertools
import os

# One worker process (a forked or spawned Python with numpy and torch loaded): 32 tournament workers
# measured 4.4 GB together, about 140 MB each.
BYTES_PER_WORKER = 150 * 2**20
# More processes than this per core only wait for a core, each still holding its memory.
WORKERS_PER_CORE = 4


def _meminfo(key: str, pages: str) -> int | None:
    """Bytes of ``key`` in /proc/meminfo (Linux), else of sysconf's ``pages``; None if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf(pages) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def available_memory() -> int | None:
    """Bytes of memory available to new processes now (Linux: MemAvailable), or None if unknown."""
    return _meminfo("MemAvailable", "SC_AVPHYS_PAGES")


def total_memory() -> int | None:
    """Bytes of memory this machine has (Linux: MemTotal), or None if unknown."""
    return _meminfo("MemTotal", "SC_PHYS_PAGES")


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


class WorkerDied(ChildProcessError):
    """A worker process ended before it returned its task's result (a signal: the out-of-memory killer,
    ``kill -9``)."""

    def __init__(self, who: str = "a worker process"):
        super().__init__(f"{who} was killed before it finished its task (by the out-of-memory killer or a signal)")


class Workers:
    """``n`` processes of the start method ``context`` (``fork`` or ``spawn``), each run through
    ``initializer(*initargs)`` once, running tasks. ``multiprocessing.Pool`` replaces a worker that dies
    mid-task and waits for its result for ever; here (``concurrent.futures.ProcessPoolExecutor``
    underneath) that task, and every one after it, raises ``WorkerDied``. Leaving the ``with`` block on
    an exception (Ctrl-C, a stop, a dead worker) ends the workers at once, as ``Pool`` does."""

    def __init__(self, n: int, context: str = "fork", initializer=None, initargs: tuple = ()):
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        self._window = 2 * n
        self._pool = ProcessPoolExecutor(n, mp_context=mp.get_context(context), initializer=initializer,
                                         initargs=initargs)

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self._pool.shutdown(wait=True)
        else:
            self.terminate()

    def terminate(self) -> None:
        """End every worker now, running or idle, and drop the tasks not started."""
        # the executor's own dict of its processes, not a copy: its manager thread may still start one
        # (seen after a worker was killed), so the dict is read again once that thread has ended
        processes = getattr(self._pool, "_processes", None) or {}
        manager = getattr(self._pool, "_executor_manager_thread", None)
        self._pool.shutdown(wait=False, cancel_futures=True)

        def kill_all():
            for proc in list(processes.values()):
                if proc.is_alive():
                    proc.kill()

        kill_all()
        if manager is not None:
            manager.join(timeout=30)
        kill_all()
        for proc in list(processes.values()):
            proc.join()

    def _results(self, fn, tasks, ordered: bool):
        """``fn(task)`` for each of ``tasks``, with at most two tasks a worker submitted at a time, and each
        result let go of once handed on: a job of thousands of tasks (a recording of 5,000 parts of 3 MB)
        holds a few results at once, not every one it has yielded."""
        from collections import deque
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        tasks, pending = iter(tasks), deque()

        def top_up():
            for task in itertools.islice(tasks, self._window - len(pending)):
                pending.append(self._pool.submit(fn, task))

        try:
            top_up()
            while pending:
                if ordered:
                    future = pending.popleft()
                else:
                    future = next(iter(wait(pending, return_when=FIRST_COMPLETED).done))
                    pending.remove(future)
                top_up()  # the workers stay busy while this result is used
                result = future.result()
                del future  # nor the future nor the name hold this result while the next is awaited
                yield result
                del result
        except BrokenProcessPool:
            raise WorkerDied() from None

    def unordered(self, fn, tasks):
        """``fn(task)`` for each of ``tasks``, as they finish."""
        return self._results(fn, tasks, ordered=False)

    def ordered(self, fn, tasks):
        """``fn(task)`` for each of ``tasks``, in the tasks' order."""
        return self._results(fn, tasks, ordered=True)

    def apply(self, fn, args: tuple):
        """``fn(*args)`` in a worker."""
        from concurrent.futures.process import BrokenProcessPool

        try:
            return self._pool.submit(fn, *args).result()
        except BrokenProcessPool:
            raise WorkerDied() from None
