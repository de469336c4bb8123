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


def test_the_second_search_draws_its_own_worlds(capsys):
    import pitch_env
    from bench.teacher_noise import searched_twice
    from pitch_env.engine import BID, PLAY
    from pitch_policy import load_policy

    rules = pitch_env.rules("auction")
    policy, _ = load_policy("checkpoints/auction", rules)
    rows = searched_twice(policy, rules, 2, 1.0, 12, 3)
    assert len(rows) == 12 and set(rows[:, 0].tolist()) <= {BID, PLAY}
    assert (rows[:, 2] != rows[:, 3]).any()  # the first search's worlds again would repeat its every choice
    main(["--variant", "auction", "--checkpoint", "checkpoints/auction", "--worlds", "2", "--decisions", "12"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "pimcnet:2, switch_z 1, each decision searched twice on fresh worlds"
    assert out[3] == report(rows, 2, 1.0)[3]
