"""Hostile game records for bench/fuzz.py: real records of seeded games, mutated (missing keys,
wrong types, deep nesting, illegal moves, bad cards, wrong winners and scores, another game's variant
name, files that are not records, FIFOs), each given to ``pitch replay PATH``.

The rules decide what must be refused: a record is true only if the engine, replaying its deals
and moves, writes exactly that record again; ``pitch replay`` must refuse every other one.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import random
from pathlib import Path

from bench.fuzz import Case, cleanup, one_line_error

__all__ = ["prepare", "make_case", "check", "cleanup"]  # what bench/fuzz.py runs of a kind (cleanup: its inputs are plain files)

_BASE: list[dict] = []


def prepare(work: Path) -> None:
    import pitch_cli
    from pitch_env import Game, game_record

    pitch_cli.build_parser()  # imports every subcommand before the fork, so each child starts at once

    # Short games keep each mutation cheap: a few hands, or a low target so that someone wins.
    for i, (variant, options) in enumerate([("setback", {"target_score": 5}), ("auction", {"max_hands": 3}),
                                           ("ten_point", {"max_hands": 2}), ("auction", {"target_score": 5}),
                                           ("auction", {"num_players": 6, "partnerships": True, "max_hands": 2}),
                                           ("setback", {"shoot": "moon", "max_hands": 3}),
                                           ("setback", {}), ("auction", {})]):  # (the last two: a preset's own rules)
        g = Game(variant, seed=100 + i, **options)
        rng = random.Random(i)
        while not g.is_over:
            g.apply(rng.choice(g.legal_actions()))
        _BASE.append(json.loads(json.dumps(game_record(g))))


def _paths(node, path=()):
    """Every (path, value) inside a JSON value (not inside the deep nests a mutation built)."""
    yield path, node
    if len(path) > 12:
        return
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


def _set(record, path, value):
    node = record
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value


def _delete(record, path):
    node = record
    for k in path[:-1]:
        node = node[k]
    del node[path[-1]]


_WRONG = ["x", -1, 10**30, 1.5, float("nan"), None, True, [], {}, [1, 2], {"a": 1}, "ZZ", "AS" * 500]


def _is_seat(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _record_mutation(rng: random.Random, r: dict) -> str:
    """Change ``r`` in place; the name of the change."""
    hands = [h for h in r["hands"] if h["tricks"]]
    spots = [p for p, _ in _paths(r) if p]
    kind = rng.choice(["delete", "retype", "deep", "illegal_play", "bad_card", "winner", "score", "award",
                       "bid", "swap_deal", "scores_top", "truncate_list"])
    if kind == "delete":
        _delete(r, rng.choice(spots))
    elif kind == "retype":
        _set(r, rng.choice(spots), rng.choice(_WRONG))
    elif kind == "deep":
        deep = []
        for _ in range(rng.choice([50, 1000, 5000])):
            deep = [deep]
        _set(r, rng.choice(spots), deep)
    elif kind == "illegal_play" and hands:
        h = rng.choice(hands)
        t = rng.choice(h["tricks"])
        play = rng.choice(t["plays"])
        held = [c for hand in h["deal"] for c in hand]
        play[1] = rng.choice(held)  # a card the seat may not hold, or may not play now
    elif kind == "bad_card":
        h = rng.choice(r["hands"])
        seat = rng.randrange(len(h["deal"]))
        if h["deal"][seat]:
            h["deal"][seat][rng.randrange(len(h["deal"][seat]))] = rng.choice(["ZZ", "1S", "AX", "", "as ", 7])
    elif kind == "winner" and hands:
        t = rng.choice(rng.choice(hands)["tricks"])
        if _is_seat(t.get("winner")):  # (an earlier mutation may have retyped it)
            t["winner"] = (t["winner"] + rng.randint(1, 5)) % 7
    elif kind == "score":
        h = rng.choice(r["hands"])
        h["scores"][rng.randrange(len(h["scores"]))] = rng.choice([999, -999, 12])
    elif kind == "award" and any(h["awards"] for h in r["hands"]):
        a = rng.choice([a for h in r["hands"] for a in h["awards"]])
        a["side"] = (a["side"] + 1) % len(r["final_scores"])
    elif kind == "bid":
        h = rng.choice(r["hands"])
        if h["bids"]:
            h["bids"][rng.randrange(len(h["bids"]))][1] = rng.choice([9, "shoot", "pass", 0, "2"])
    elif kind == "swap_deal":
        h = rng.choice(r["hands"])
        if len(h["deal"]) > 1 and h["deal"][0] and h["deal"][1]:
            h["deal"][0][0], h["deal"][1][0] = h["deal"][1][0], h["deal"][0][0]
    elif kind == "scores_top":
        r["final_scores"] = [999] * len(r["final_scores"])
    elif kind == "truncate_list":
        lists = [p for p, v in _paths(r) if p and isinstance(v, list) and v]
        if lists:
            path = rng.choice(lists)
            node = r
            for k in path:
                node = node[k]
            node.pop()
    else:
        kind = "retype"
        _set(r, rng.choice(spots), rng.choice(_WRONG))
    return kind


def labelled_or_fifo(rng: random.Random, path: Path, kind: str) -> Case:
    """A FIFO (opening it must not wait for a writer), or a true record of a preset's own rules under
    another preset's name (its header would lie): both must be refused."""
    if kind == "fifo":
        os.mkfifo(path)
    else:
        from pitch_env.rules import preset_of

        r = copy.deepcopy(rng.choice([r for r in _BASE if preset_of(r["rules"])]))
        r["variant"] = rng.choice([v for v in ("setback", "auction", "ten_point") if v != r["variant"]])
        path.write_text(json.dumps(r))
    return Case("records", kind, path, True)


def make_case(rng: random.Random, work: Path, i: int) -> Case:
    path = work / f"r{i}.json"
    roll = rng.random()
    if roll < 0.12:  # files that are no record at all
        name, data = rng.choice([
            ("empty", b""), ("not_utf8", b"\xff\xfe{\x00\x80"), ("list", b"[]"), ("number", b"5"),
            ("null", b"null"), ("string", b'"pitch"'), ("deep_json", b"[" * 200_000 + b"]" * 200_000),
            ("deep_object", b'{"a":' * 50_000 + b"1" + b"}" * 50_000), ("nan", b'{"format": NaN}'),
            ("truncated", json.dumps(_BASE[0]).encode()[:rng.randrange(1, 2000)]),
            ("huge", b'{"format": "pitch-record/1", "pad": "' + b"x" * 60_000_000 + b'"}'),
        ])
        path.write_bytes(data)
        return Case("records", name, path, True)
    if roll < 0.13:
        path.mkdir()
        return Case("records", "directory", path, True)
    if roll < 0.16:
        return labelled_or_fifo(rng, path, "fifo" if roll < 0.14 else "relabelled")
    r = copy.deepcopy(rng.choice(_BASE))
    if roll < 0.18:  # a true record, untouched: it must be shown, not refused
        path.write_text(json.dumps(r))
        return Case("records", "none", path, False)
    names = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        try:
            names.append(_record_mutation(rng, r))
        except (KeyError, TypeError, IndexError, AttributeError):  # an earlier change removed what this one edits
            break
    try:
        text = json.dumps(r)
    except (RecursionError, ValueError):
        text = json.dumps(_BASE[0])
    path.write_text(text)
    return Case("records", "+".join(names), path, None)


def _disagrees_with_rules(path: Path) -> bool:
    """True unless the engine, replaying the record's deals and moves, writes exactly this record."""
    from pitch_env import game_record, replay

    try:
        record = json.loads(path.read_text())
        return game_record(replay(record)) != record
    except BaseException:
        return True


def check(case: Case) -> tuple[str, str]:
    import pitch_cli

    must_refuse = case.must_refuse
    if must_refuse is None:
        must_refuse = _disagrees_with_rules(case.path)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = pitch_cli.main(["replay", str(case.path)])
    except SystemExit as e:
        rc = e.code
    except BaseException as e:
        return "fail", one_line_error(e) or f"traceback: {type(e).__name__} escaped the CLI: {e}"[:300]
    lines = err.getvalue().strip().splitlines()
    if rc == 0:
        if must_refuse:
            return "fail", "silently accepted: the record disagrees with the rules, pitch replay showed it"
        return "ok", "accepted: a true record"
    if rc != 2 or len(lines) != 1:
        return "fail", f"multi-line or odd refusal: exit {rc}, {len(lines)} lines on stderr: {lines[-1:]}"
    if not must_refuse:
        return "fail", f"refused a true record: {lines[0][:200]}"
    return "ok", "refused in one line"
