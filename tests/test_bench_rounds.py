"""bench/rounds.py: the side-by-side rounds every speed bench prints; bench/search_speed.py, one of them."""

from bench.rounds import alternate, median_table


def test_every_round_times_every_kind_once_in_order_and_the_medians_come_back(capsys):
    calls = []
    figures = {"a": iter([10.0, 30.0, 20.0]), "b": iter([5.0, 1.0, 3.0])}

    def kind(name):
        def measure():
            calls.append(name)
            return next(figures[name])
        return measure

    med = alternate({"a": kind("a"), "b": kind("b")}, rounds=3)
    assert calls == ["a", "b", "a", "b", "a", "b"]
    assert med == {"a": 20.0, "b": 3.0}
    out = capsys.readouterr().out.splitlines()
    assert out == ["round 1: a 10, b 5", "round 2: a 30, b 1", "round 3: a 20, b 3"]


def test_the_table_gives_each_kind_its_ratio_to_the_baseline():
    table = median_table({"ref": 2000.0, "new": 5000.0}, "ref", "games", "steps/s", 3, base_name="reference")
    assert table.splitlines() == ["| games | steps/s (median of 3) | vs reference |", "|---|---|---|",
                                  "| ref | 2,000 | 1.00× |", "| new | 5,000 | 2.50× |"]


def test_the_search_bench_times_both_world_holders_on_the_same_decisions(capsys):
    from bench.search_speed import main

    main(["--variant", "auction", "--checkpoint", "checkpoints/auction", "--worlds", "1", "--games", "1",
          "--rounds", "1"])
    out = capsys.readouterr().out
    assert "| reference engine |" in out and "| batched engine |" in out  # and their outcomes were equal
