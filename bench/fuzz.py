"""Fuzz the loaders of hostile files: game records (``pitch replay``), checkpoints
(``agents.make("checkpoint:PATH", env)``), training configs (``train.config.load_config``), run
directories (``pitch exit --resume``'s ``open_run``, ``imitate_data``) and, where open_spiel is
installed, OpenSpiel game strings (``pyspiel.load_game``).

Each input is mutated from a real one (bench/fuzz_records.py, fuzz_checkpoints.py, fuzz_configs.py,
fuzz_runs.py, fuzz_gamestrings.py) and checked in a forked child with a time limit. Allowed: a one-line error (a ValueError, or the
CLI's exit code 2 and one line on stderr), or acceptance of an input that is actually valid.
Failures: a traceback, a hang, a multi-line error, or silent acceptance of an input that must be
refused. Exits 1 when anything failed. Run: ``python -m bench.fuzz --seconds 60``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

KINDS = ("records", "checkpoints", "configs", "runs", "gamestrings")
# gamestrings needs the optional open_spiel: by default it runs only where pyspiel imports.
DEFAULT_KINDS = KINDS if importlib.util.find_spec("pyspiel") else KINDS[:-1]


@dataclass
class Case:
    """One hostile input: ``path`` on disk, how it was made, and whether a loader must refuse it
    (True), must accept it (False: an untouched real input), or may do either (None; for records
    the fuzzer's check decides by replaying the record against the rules)."""

    kind: str
    mutation: str
    path: Path
    must_refuse: bool | None


def one_line_error(e: BaseException) -> str | None:
    """The failure an exception is, or None for the allowed one-line ValueError."""
    message = str(e)
    if not isinstance(e, ValueError):
        return f"traceback: {type(e).__name__}: {message[:200]}"
    if "\n" in message.strip() or len(message) > 2000:
        return f"multi-line or huge error ({len(message)} chars): {message[:200]!r}"
    return None


def refused(e: BaseException, case: Case, refused_valid: str) -> tuple[str, str]:
    """The verdict on a loader that raised ``e`` for ``case``: a failure unless it is an allowed one-line
    error on an input that may be refused; ``refused_valid`` names the failure of refusing a valid one."""
    failure = one_line_error(e)
    if failure:
        return "fail", failure
    if case.must_refuse is False:
        return "fail", f"{refused_valid}: {str(e)[:200]}"
    return "ok", "refused in one line"


def cleanup(case: Case) -> None:
    """Remove a case's input: its file, or the empty directory a ``directory`` mutation made."""
    try:
        is_dir = case.path.is_dir()
    except OSError:  # a path the system refuses (a name too long): nothing was made there
        return
    if is_dir:
        case.path.rmdir()
    else:
        case.path.unlink(missing_ok=True)


def run_case(check, case: Case, timeout: float) -> tuple[str, str]:
    """``check(case)`` in a forked child: ("ok", how) or ("fail", why); a hang is killed and failed."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run the check, send one JSON line, exit without cleanup
        os.close(read_fd)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)  # the loaders' own output and warnings are not the verdict
            os.dup2(devnull, 2)
            verdict = check(case)
        except BaseException as e:  # a bug in the check itself must not look like success
            verdict = ("fail", f"fuzzer check crashed: {type(e).__name__}: {e}"[:300] + traceback.format_exc()[-300:])
        os.write(write_fd, json.dumps(verdict).encode())
        os._exit(0)
    os.close(write_fd)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.005)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read_fd)
        return "fail", f"hang: no answer within {timeout:.0f} s"
    with os.fdopen(read_fd, "rb") as f:
        data = f.read()
    if not data:
        return "fail", f"the loader killed the process (exit status {status})"
    verdict = json.loads(data)
    return verdict[0], verdict[1]


def fuzzer(kind: str):
    import importlib

    return importlib.import_module(f"bench.fuzz_{kind}")


def fuzz(kinds, seconds: float, seed: int, timeout: float, keep: Path | None = None, log=print) -> dict:
    """Run each kind's fuzzer for ``seconds``; returns {kind: {"ok": n, "fail": n, "failures": {...}}}."""
    summary = {}
    for kind in kinds:
        module = fuzzer(kind)
        rng = random.Random(f"{seed}:{kind}")
        outcomes, failures = Counter(), defaultdict(list)
        with tempfile.TemporaryDirectory(prefix=f"pitch-fuzz-{kind}-") as work:
            work = Path(work)
            module.prepare(work)  # imports and base inputs, before any fork
            stop = time.monotonic() + seconds
            i = 0
            while time.monotonic() < stop:
                case = module.make_case(rng, work, i)
                verdict, why = run_case(module.check, case, timeout)
                outcomes[verdict] += 1
                if verdict == "fail":
                    # grouped by what went wrong ("traceback: KeyError", "silently accepted", "hang")
                    failures[":".join(why.split(":")[:2]) if why.startswith("traceback") else why.split(":")[0]
                             ].append(f"{case.mutation}: {why}")
                    if keep is not None:
                        keep.mkdir(parents=True, exist_ok=True)
                        dest = keep / f"{kind}-{i:05d}-{case.mutation}{case.path.suffix}"
                        if case.path.is_file():
                            dest.write_bytes(case.path.read_bytes())
                i += 1
                module.cleanup(case)
        summary[kind] = {"inputs": i, "ok": outcomes["ok"], "fail": outcomes["fail"],
                         "failures": {m: (len(w), w[0]) for m, w in sorted(failures.items())}}
        log(f"{kind}: {i} inputs, {outcomes['ok']} handled, {outcomes['fail']} failed")
        for what, whys in sorted(failures.items(), key=lambda kv: -len(kv[1])):
            inputs = sorted({w.split(": ")[0] for w in whys})
            log(f"  FAIL {what} x{len(whys)}, e.g. {whys[0][:240]}")
            log(f"       inputs: {', '.join(inputs[:12])}{' …' if len(inputs) > 12 else ''}")
    return summary


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--seconds", type=float, default=60.0, help="time per kind of input")
    p.add_argument("--kind", default=",".join(DEFAULT_KINDS), help=f"comma-separated: {', '.join(KINDS)}")
    p.add_argument("--seed", type=int, default=0, help="seed of the mutations")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds one input may take before it counts as a hang")
    p.add_argument("--keep", metavar="DIR", help="copy every failing input here")
    args = p.parse_args(argv)
    kinds = [k.strip() for k in args.kind.split(",")]
    bad = [k for k in kinds if k not in KINDS]
    if bad or args.seconds <= 0 or args.timeout <= 0:
        print(f"bench.fuzz: --kind takes {', '.join(KINDS)}; --seconds and --timeout must be positive", file=sys.stderr)
        return 2
    summary = fuzz(kinds, args.seconds, args.seed, args.timeout, Path(args.keep) if args.keep else None)
    failed = sum(s["fail"] for s in summary.values())
    print("all inputs handled" if not failed else f"{failed} inputs mishandled")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
