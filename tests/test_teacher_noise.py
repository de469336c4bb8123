"""bench/teacher_noise.py: the share of a search teacher's overrides that fresh worlds repeat."""

import numpy as np

from bench.teacher_noise import main, report


def test_the_report_counts_overrides_repeats_and_returns_to_the_network():
    # phase 4 (play): (network, first search, second search)
    rows = np.array([[4, 1, 2, 2],   # overridden, repeated
                     [4, 1, 2, 1],   # overridden, the second kept the network's
                     [4, 1, 2, 3],   # overridden, the second chose a third action
                     [4, 1, 1, 3],   # kept by the first, overridden by the second
                     [0, 0, 0, 0]])  # a bid, kept by both
    lines = report(rows, 32, 1.0)
    assert lines[3] == "| all | 5 | 60.0% | 60.0% | 40.0% | 33.3% | 33.3% |"
    assert lines[4] == "| bid | 1 | 0.0% | 0.0% | 100.0% | - | - |"
    assert lines[5] == "| play | 4 | 75.0% | 75.0% | 25.0% | 33.3% | 33.3% |"


def test_the_bench_searches_the_teachers_decisions_twice(capsys):
    main(["--variant", "auction", "--checkpoint", "checkpoints/auction", "--worlds", "2", "--decisions", "12"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "pimcnet:2, switch_z 1, each decision searched twice on fresh worlds"
    assert out[3].startswith("| all | 12 |")
