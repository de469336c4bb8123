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


def test_fifos_and_relabelled_records_are_fuzzed_and_refused_in_one_line(tmp_path):
    import random

    from bench import fuzz_records

    fuzz_records.prepare(tmp_path)
    rng = random.Random(0)
    for i, kind in enumerate(["fifo", "relabelled"] * 3):
        case = fuzz_records.labelled_or_fifo(rng, tmp_path / f"r{i}.json", kind)
        assert run_case(fuzz_records.check, case, timeout=30) == ("ok", "refused in one line"), kind
        fuzz_records.cleanup(case)
    assert not list(tmp_path.iterdir())


def test_checkpoint_paths_the_system_refuses_are_fuzzed_and_refused_in_one_line(tmp_path):
    from bench import fuzz_checkpoints

    fuzz_checkpoints.prepare(tmp_path)
    variant, _, _, raw = fuzz_checkpoints._BASE[0]
    for i, (kind, make) in enumerate(fuzz_checkpoints._PATHS.items()):
        case = Case("checkpoints", f"{variant}:{kind}", make(tmp_path, i, raw), True)
        assert run_case(fuzz_checkpoints.check, case, timeout=30) == ("ok", "refused in one line"), kind
        fuzz_checkpoints.cleanup(case)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("c")]
