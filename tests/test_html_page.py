"""The game page (pitch_env/html_page.py): valid, self-contained HTML whose embedded timeline holds every
move of the record, each seat's cards as the engine has them, and the record's points and scores."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from conftest import bids, deal, game, random_game, tricks
from pitch_env import RecordError, game_record, replay, save_record
from pitch_env.html_page import page, timeline

VOID = {"meta", "link", "br", "img", "input", "hr", "source", "wbr", "area", "base", "col", "embed", "track"}


class _Checker(HTMLParser):
    """Every element closed in order, and every src/href/url kept on the page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.links, self.tags, self.metas = [], [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if tag == "meta":
            self.metas.append(attrs)
        for key in ("src", "href", "action", "poster", "srcset"):
            if key in attrs:
                self.links.append(attrs[key])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def check_page(text: str) -> _Checker:
    c = _Checker()
    c.feed(text)
    c.close()
    assert not c.errors and not c.stack, (c.errors, c.stack)
    assert text.startswith("<!DOCTYPE html>")
    return c


def embedded(text: str) -> dict:
    m = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', text, re.S)
    assert m, "the page embeds its timeline"
    return json.loads(m.group(1))


def ten_point_record() -> dict:
    return game_record(random_game("ten_point", seed=3, max_hands=6))


RECORDS = {
    "setback": lambda: game_record(random_game("setback", seed=2)),
    "auction": lambda: game_record(random_game("auction", seed=4, max_hands=8)),
    "ten_point": ten_point_record,
    "setback_six_solo": lambda: game_record(random_game("auction", seed=5, num_players=6, max_hands=4)),
}


@pytest.fixture(params=sorted(RECORDS))
def record(request) -> dict:
    return RECORDS[request.param]()


def test_the_page_is_valid_html_readable_on_a_phone(record):
    c = check_page(page(record))
    assert {"html", "head", "body", "title", "style", "script"} <= set(c.tags)
    viewport = [m for m in c.metas if m.get("name") == "viewport"]
    assert viewport and "width=device-width" in viewport[0]["content"]


def test_the_page_loads_nothing_from_the_network(record):
    text = page(record, players=["heuristic", "random"] * 3 if record["rules"]["num_players"] == 6 else None)
    c = check_page(text)
    assert "link" not in c.tags  # no stylesheet or font file
    assert not [u for u in c.links if re.match(r"\s*(https?:)?//", u, re.I)], c.links
    assert not re.search(r"<script[^>]*\bsrc=", text) and "@import" not in text and "url(" not in text
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I)
    csp = [m for m in c.metas if m.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]["content"]  # the browser itself refuses any load


def test_every_trick_of_the_record_is_on_the_page_card_by_card(record):
    data = embedded(page(record))
    for i, h in enumerate(record["hands"]):
        plays = [f for f in data["frames"] if f["h"] == i and f["kind"] == "play"]
        shown, k = [], 0
        for t, trick in enumerate(h["tricks"]):
            for j in range(len(trick["plays"])):
                f = plays[k]
                assert f["trick"] == trick["plays"][:j + 1] and f["leader"] == trick["leader"]
                assert f["seat"] == trick["plays"][j][0]
                last = j + 1 == len(trick["plays"])
                assert f["winner"] == (trick["winner"] if last else None)
                k += 1
            shown.append(plays[k - 1]["trick"])
        assert k == len(plays)
        assert shown == [t["plays"] for t in h["tricks"]]


def test_every_bid_is_shown_and_seats_hold_the_engines_cards(record):
    data = embedded(page(record))
    for i, h in enumerate(record["hands"]):
        frames = [f for f in data["frames"] if f["h"] == i]
        assert frames[0]["kind"] == "deal"
        assert [sorted(c) for c in frames[0]["hands"]] == [sorted(c) for c in h["deal"]]
        assert [(f["seat"], f["bids"][f["seat"]]) for f in frames if f["kind"] == "bid"] == [
            (b["seat"], {"pass": "pass", "shoot": "shoot the moon"}.get(b["bid"], f"bid {b['bid']}"))
            for b in h["bids"]]
        for before, f in zip(frames, frames[1:]):
            if f["kind"] == "play":
                seat, card = f["trick"][-1]
                assert card in before["hands"][seat] and card not in f["hands"][seat]
                others = [c for s, c in enumerate(f["hands"]) if s != seat]
                assert others == [c for s, c in enumerate(before["hands"]) if s != seat]


def test_points_and_scores_are_the_records(record):
    data = embedded(page(record))
    for i, h in enumerate(record["hands"]):
        facts = data["hands"][i]
        ends = [f for f in data["frames"] if f["h"] == i and f["kind"] == "end"]
        if not facts["complete"]:
            assert not ends
            continue
        assert ends[0]["scores"] == h["scores"] and ends[0]["sheet"] == i + 1
        if h["pitcher"] is None:
            assert facts["thrown_in"] and "thrown in" in ends[0]["text"]
            continue
        assert [(a["card"], a["seat"], a["side"], a["value"]) for a in facts["awards"]] == [
            (a["card"], a["seat"], a["side"], a["value"]) for a in h["awards"]]
        for key in ("game_points", "points_won", "made", "score_change", "scores"):
            assert facts[key] == h[key], key
        before = record["hands"][i - 1]["scores"] if i else [0] * len(record["sides"])
        assert all(f["scores"] == before for f in data["frames"] if f["h"] == i and f["kind"] != "end"
                   and f["kind"] != "over")
    last = data["frames"][-1]
    assert last["kind"] == "over" and last["scores"] == record["final_scores"]
    assert data["final_scores"] == record["final_scores"] and data["winner"] == record["winner"]


def test_four_point_awards_are_named_high_low_jack_game():
    record = RECORDS["setback"]()
    names = {a["point"] for h in embedded(page(record))["hands"] for a in h.get("awards", [])}
    assert names <= {"High", "Low", "Jack", "Game"} and {"High", "Low"} <= names


def test_ten_point_trumps_come_from_the_engine_jokers_and_off_jack_included():
    record = ten_point_record()
    data = embedded(page(record))
    off_jack = {"C": "JS", "S": "JC", "D": "JH", "H": "JD"}
    for h, facts in zip(record["hands"], data["hands"]):
        if h["trump"] is None:
            continue
        trumps = set(facts["trumps"])
        assert {"BJ", "LJ", off_jack[h["trump"]], "A" + h["trump"], "2" + h["trump"]} <= trumps
        assert len(trumps) == 16  # 13 of the suit, the off-jack, two jokers
    assert {a["point"] for h in data["hands"] for a in h.get("awards", [])} == {"Card"}


def test_the_winner_is_named_at_the_end():
    record = RECORDS["setback"]()
    text = timeline(record)["outcome"]
    assert record["winner"] is not None and f"side {record['winner']}" in text.lower() and "wins" in text
    assert " to ".join(map(str, record["final_scores"])) in text


def test_a_game_quit_during_the_auction_is_not_called_thrown_in():
    g = bids(game("setback", deal("AS KS QS JS TS 9S", "2H 3H 4H 5H 6H 7H", "2D 3D 4D 5D 6D 7D",
                                   "2C 3C 4C 5C 6C 7C")), "pass", "pass")
    data = timeline(game_record(g))
    assert data["hands"][0]["complete"] is False and not data["hands"][0]["thrown_in"]
    assert "thrown in" not in " ".join(f["text"] for f in data["frames"])
    assert "before the game is over" in data["outcome"]
    assert [f["kind"] for f in data["frames"]] == ["deal", "bid", "bid", "over"]


def test_a_game_quit_mid_trick_shows_the_cards_played_so_far():
    g = bids(game("setback", deal("AS KS QS JS TS 9S", "2H 3H 4H 5H 6H 7H", "2D 3D 4D 5D 6D 7D",
                                   "2C 3C 4C 5C 6C 7C")), "pass", "pass", "pass", "2")
    tricks(g, "9S 2H")  # seat 1 bids first; seat 0 pitches, leads
    data = timeline(game_record(g))
    last_play = [f for f in data["frames"] if f["kind"] == "play"][-1]
    assert last_play["trick"] == [[0, "9S"], [1, "2H"]] and last_play["winner"] is None
    assert last_play["turn"] == 2 and "9S" not in last_play["hands"][0] and last_play["trump"] == "S"


def test_a_record_false_to_the_rules_is_refused_in_one_line():
    record = RECORDS["setback"]()
    record["hands"][0]["tricks"][0]["winner"] = (record["hands"][0]["tricks"][0]["winner"] + 1) % 4
    with pytest.raises(RecordError, match=r"^hand 1, trick 1: the winner is seat \d by the rules"):
        page(record)


def test_labels_cannot_break_out_of_the_page():
    record = RECORDS["setback"]()
    evil = ["</script><script>alert(1)</script>", "<b>x</b>&amp;", "checkpoint:a\"b", "seat"]
    text = page(record, players=evil, title="</title><script>alert(2)</script>")
    check_page(text)
    assert text.count("</script>") == 2 and "alert(2)</script>" not in text
    assert embedded(text)["seats"][0]["player"] == evil[0]


def test_a_label_per_seat_is_required():
    with pytest.raises(ValueError, match="one per seat"):
        timeline(RECORDS["setback"](), players=["heuristic"])


def test_on_move_sees_every_move_after_it_is_taken():
    record = ten_point_record()
    seen = []
    replay(record, on_move=lambda g, n, phase, seat, name: seen.append((n, phase, seat, name)))
    plays = [(n, s, f"play {c}") for h in record["hands"] for n in [h["number"]] for t in h["tricks"]
             for s, c in t["plays"]]
    assert [(n, s, name) for n, phase, s, name in seen if phase == "play"] == plays
    bids_made = [(h["number"], b["seat"]) for h in record["hands"] for b in h["bids"]]
    assert [(n, s) for n, phase, s, _ in seen if phase == "bid"] == bids_made
    assert [n for n, phase, *_ in seen if phase == "declare"] == [h["number"] for h in record["hands"] if h["trump"]]


# ---------------------------------------------------------------- the commands

def run(argv, capsys):
    import pitch_cli

    rc = pitch_cli.main(argv)
    return rc, capsys.readouterr()


def test_pitch_replay_html_writes_the_page(tmp_path, capsys):
    record = RECORDS["auction"]()
    save_record(record, tmp_path / "game.json")
    rc, out = run(["replay", str(tmp_path / "game.json"), "--html", str(tmp_path / "game.html")], capsys)
    assert rc == 0 and "game.html" in out.out
    text = (tmp_path / "game.html").read_text()
    check_page(text)
    assert embedded(text)["final_scores"] == record["final_scores"]


@pytest.mark.parametrize("where, message", [("missing/game.html", "is not an existing folder"),
                                            (".", "is a folder")])
def test_pitch_replay_html_refuses_a_bad_path_in_one_line(tmp_path, capsys, where, message):
    save_record(RECORDS["setback"](), tmp_path / "game.json")
    rc, out = run(["replay", str(tmp_path / "game.json"), "--html", str(tmp_path / where)], capsys)
    assert rc == 2 and message in out.err and out.err.count("\n") == 1


def test_pitch_tournament_html_writes_a_sample_and_an_index(tmp_path, capsys):
    folder = tmp_path / "games"
    rc, out = run(["tournament", "--agents", "heuristic,random", "--games", "6", "--seed", "1", "--rule",
                   "max_hands=3", "--quiet", "--html", str(folder), "--html-games", "3"], capsys)
    assert rc == 0, out.err
    assert sorted(p.name for p in folder.iterdir()) == [
        "deal0-seating1.html", "deal0-seating2.html", "deal1-seating1.html", "index.html"]
    index = (folder / "index.html").read_text()
    c = check_page(index)
    assert sorted(c.links) == ["deal0-seating1.html", "deal0-seating2.html", "deal1-seating1.html"]
    data = embedded((folder / "deal0-seating2.html").read_text())
    assert [s["player"] for s in data["seats"]] == ["random", "heuristic", "random", "heuristic"]


@pytest.mark.parametrize("extra, message", [(["--html-games", "0"], "--html-games 0"),
                                            (["--html-games", "5000"], "--html-games 5000")])
def test_pitch_tournament_html_options_fail_before_any_game(tmp_path, capsys, monkeypatch, extra, message):
    import agents.tournament

    monkeypatch.setattr(agents.tournament, "run_tournament", lambda *a, **k: pytest.fail("a game was started"))
    rc, out = run(["tournament", "--agents", "heuristic,random", "--html", str(tmp_path / "g"), *extra], capsys)
    assert rc == 2 and message in out.err and out.err.count("\n") == 1


def test_pitch_tournament_html_refuses_a_file_for_a_folder(tmp_path, capsys, monkeypatch):
    import agents.tournament

    monkeypatch.setattr(agents.tournament, "run_tournament", lambda *a, **k: pytest.fail("a game was started"))
    (tmp_path / "f").write_text("x")
    rc, out = run(["tournament", "--agents", "heuristic,random", "--html", str(tmp_path / "f")], capsys)
    assert rc == 2 and "is a file" in out.err and out.err.count("\n") == 1


def test_the_tournament_keeps_the_records_of_its_first_games(tmp_path):
    from agents.tournament import run_tournament

    args = dict(agents=["heuristic", "random"], games=6, seed=2, max_hands=3)
    result = run_tournament("setback", keep_records=3, **args)
    assert list(result.records) == [(0, 0), (0, 1), (1, 0)]
    for g in result.games:
        record = result.records.get((g.deal, g.rotation))
        if record:
            replay(record)
            assert record["final_scores"] == g.final_scores and record["winner"] == g.winner
    # Duplicate deals: both seatings of deal 0 are dealt the same cards.
    assert result.records[(0, 0)]["hands"][0]["deal"] == result.records[(0, 1)]["hands"][0]["deal"]
    assert run_tournament("setback", keep_records=3, workers=2, **args).records == result.records
    assert run_tournament("setback", **args).records == {}
    # A resumed run keeps only the games it plays itself.
    path = tmp_path / "results.jsonl"
    run_tournament("setback", results=path, **dict(args, games=2))
    resumed = run_tournament("setback", results=path, resume=True, keep_records=4, **args)
    assert list(resumed.records) == [(1, 0), (1, 1), (2, 0), (2, 1)]
