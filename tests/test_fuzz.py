"""The fuzz suite of bench/fuzz.py: its verdicts, and a short run of each fuzzer.

The short runs pass once the loaders validate what they read (records: pitch_env.record, checkpoints:
the policy loader, configs: train.config, runs: train/runfiles.py); each prints what it found when it fails.
"""

import time
from pathlib import Path

import pytest

from bench.fuzz import Case, fuzz, one_line_error, run_case


def _case(must_refuse=None):
    return Case("test", "test", Path("/nonexistent"), must_refuse)


def _hangs(case):
    time.sleep(60)


def _crashes(case):
    raise KeyError("x")


def _dies(case):
    import os

    os._exit(3)


def test_a_hang_is_killed_and_failed_within_the_time_limit():
    start = time.monotonic()
    verdict, why = run_case(_hangs, _case(), timeout=1)
    assert verdict == "fail" and why.startswith("hang") and time.monotonic() - start < 10


def test_a_crash_of_the_process_is_a_failure():
    assert run_case(_dies, _case(), timeout=5)[0] == "fail"
    assert run_case(_crashes, _case(), timeout=5)[0] == "fail"


def test_only_a_one_line_value_error_is_an_allowed_refusal():
    assert one_line_error(ValueError("checkpoint x: its card lacks 'network'")) is None
    assert one_line_error(KeyError("network")).startswith("traceback")
    assert one_line_error(RecursionError("deep")).startswith("traceback")
    assert one_line_error(ValueError("line one\nline two")).startswith("multi-line")


@pytest.mark.parametrize("kind", ["records", "checkpoints", "configs", "runs"])
def test_hostile_inputs_get_one_line_errors_never_tracebacks_hangs_or_silence(kind):
    lines = []
    summary = fuzz([kind], seconds=3, seed=0, timeout=15, log=lines.append)[kind]
    assert summary["inputs"] >= 5
    assert summary["fail"] == 0, "\n".join(lines)
