"""The game page in a real headless Chromium (Debian's chromium and chromium-driver, driven by Selenium):
a recorded game is loaded, a hand stepped through with the page's buttons and keys, and what the
page shows (each seat's cards, the trick, the points, the score) checked against the record itself.

Run with `make browser-test`. BROWSER_SHOTS=DIR keeps the screenshots there (docs/img for the docs).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import agents
import pitch_cli
import pitch_env
from agents.base import turns

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip("needs Debian's chromium and chromium-driver: run `make browser-test`", allow_module_level=True)

os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must not look for drivers online
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

DESKTOP, PHONE = (1400, 1000), (390, 1150)


def recorded_game(variant: str, seed: int, path: Path) -> dict:
    """A game played by the heuristic agent at every seat, saved as `pitch play --save` saves one."""
    env = pitch_env.env(variant)
    players = [agents.make("heuristic", env) for _ in range(env.unwrapped.rules.num_players)]
    env.reset(seed=seed)
    for p in players:
        p.reset(seed=seed)
    seat_of = env.unwrapped.agent_name_mapping
    for name, obs, info in turns(env):
        env.step(players[seat_of[name]].act(obs, info))
    record = env.unwrapped.game_record()
    pitch_env.save_record(record, path)
    return record


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("BROWSER_SHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_page(browser, variant: str, seed: int, folder: Path, size=DESKTOP) -> dict:
    record = recorded_game(variant, seed, folder / f"{variant}.json")
    page = folder / f"{variant}.html"
    assert pitch_cli.main(["replay", str(folder / f"{variant}.json"), "--html", str(page)]) == 0
    browser.set_window_size(*size)
    browser.get(page.as_uri())
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".seat .card"))
    return record


def shown(browser) -> dict:
    """What the page shows now, read from the DOM."""
    return browser.execute_script("""
        const q = (s, root) => Array.from((root || document).querySelectorAll(s));
        return {
          caption: document.querySelector('.caption').textContent,
          hands: q('.seat').map(s => q('.cards .card', s).map(c => c.dataset.card)),
          trick: q('.trick .played').map(p => [+p.dataset.seat, p.querySelector('.card').dataset.card]),
          best: q('.trick .played.best').map(p => +p.dataset.seat),
          scores: q('.scoreboard .side .score').map(s => +s.textContent),
          awards: q('.points li').map(li => [li.querySelector('.label').textContent,
                                             (li.querySelector('.card') || {dataset: {}}).dataset.card || null]),
          counter: document.querySelector('.counter').textContent,
        };""")


def click(browser, name: str) -> None:
    browser.find_element(By.CSS_SELECTOR, f".controls button.{name}").click()


def held(h: dict, seat: int, played: list) -> list[str]:
    """From the record alone: the cards ``seat`` holds in play, once ``played`` have fallen."""
    cards = list(h["deal"][seat])
    if "exchange" in h:
        ex = h["exchange"]
        cards = [c for c in cards + ex["draws"][seat] if c not in ex["discards"][seat]]
    return sorted(c for c in cards if c not in played)


def step_through_first_hand(browser, record: dict) -> dict:
    """Step with the button until hand 1's result; check every play against the record."""
    h = record["hands"][0]
    plays = [(t, k) for t in range(len(h["tricks"])) for k in range(len(h["tricks"][t]["plays"]))]
    assert sorted(shown(browser)["hands"][0]) == sorted(h["deal"][0])  # the deal, before any move
    seen, played = 0, []
    for _ in range(300):
        click(browser, "step")
        now = shown(browser)
        if now["trick"] and seen < len(plays) and now["trick"] == h["tricks"][plays[seen][0]]["plays"][
                :plays[seen][1] + 1]:
            t, k = plays[seen]
            trick = h["tricks"][t]
            seat, card = trick["plays"][k]
            played.append(card)
            assert f"Seat {seat} plays" in now["caption"], now["caption"]
            assert now["best"] == ([trick["winner"]] if k + 1 == len(trick["plays"]) else [])
            for s in range(len(now["hands"])):
                assert sorted(now["hands"][s]) == held(h, s, played), (t, k, s)
            assert now["scores"] == [0] * len(record["sides"])  # the score moves only when the hand ends
            seen += 1
        if "Hand 1:" in now["caption"] and not now["trick"]:
            assert seen == len(plays), f"the page showed {seen} of the hand's {len(plays)} cards"
            return now
    pytest.fail("hand 1 never ended on the page")


@pytest.mark.parametrize("variant, seed", [("setback", 3), ("ten_point", 5)])
def test_a_hand_stepped_through_shows_the_records_tricks_points_and_score(browser, shots, variant, seed):
    record = open_page(browser, variant, seed, shots)
    h = record["hands"][0]
    end = step_through_first_hand(browser, record)
    assert end["scores"] == h["scores"]
    names = {"high": "High", "low": "Low", "jack": "Jack", "game": "Game", "card": "Card"}
    assert end["awards"] == [[names[a["point"]], a["card"]] for a in h["awards"]]
    sheet = browser.find_elements(By.CSS_SELECTOR, ".sheet tr[data-hand]")
    assert len(sheet) == 1 and sheet[0].text.split()[0] == "1"

    click(browser, "back")  # one move back: the last trick again, its winner marked, the old score
    back = shown(browser)
    assert back["trick"] == h["tricks"][-1]["plays"] and back["best"] == [h["tricks"][-1]["winner"]]
    assert back["scores"] == [0] * len(record["sides"])

    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    assert shown(browser)["scores"] == h["scores"]
    body.send_keys(Keys.END)
    last = shown(browser)
    assert last["scores"] == record["final_scores"]
    outcome = browser.find_element(By.CSS_SELECTOR, ".trick .outcome").text
    assert "wins the game" in outcome and " to ".join(map(str, record["final_scores"])) in outcome
    body.send_keys(Keys.HOME)
    assert shown(browser)["counter"].endswith(f"1 / {last['counter'].split('/ ')[1]}")
    assert sorted(shown(browser)["hands"][0]) == sorted(h["deal"][0])

    # The next hand by its key: the score carried over; the docs' picture three cards into its second trick.
    body.send_keys(Keys.ARROW_DOWN)
    assert shown(browser)["counter"].startswith("hand 2 ") and shown(browser)["scores"] == h["scores"]
    second = record["hands"][1]["tricks"][1]["plays"][:3]
    for _ in range(100):
        body.send_keys(Keys.ARROW_RIGHT)
        if shown(browser)["trick"] == second:
            break
    else:
        pytest.fail("hand 2's second trick never showed")
    browser.save_screenshot(str(shots / f"{variant}_desktop.png"))

    # The page asks for nothing from the network and logs no error.
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert not errors, errors
    loaded = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert loaded == []


def test_play_runs_the_game_on_and_pause_stops_it(browser, shots):
    open_page(browser, "setback", 3, shots)
    click(browser, "speed")
    click(browser, "speed")  # 4×: a move every 225 ms
    click(browser, "play")
    WebDriverWait(browser, 10).until(lambda d: int(shown(d)["counter"].split("· ")[1].split(" /")[0]) >= 4)
    click(browser, "play")
    stopped = shown(browser)["counter"]
    browser.execute_script("return new Promise(r => setTimeout(r, 800))")
    assert shown(browser)["counter"] == stopped


def test_on_a_phone_the_seats_stack_and_nothing_overflows(browser, shots):
    record = open_page(browser, "ten_point", 5, shots, size=PHONE)
    assert browser.execute_script("return window.innerWidth") <= 400
    first = record["hands"][0]["tricks"][0]["plays"]
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(100):  # by the keys, to three cards of the first trick
        body.send_keys(Keys.ARROW_RIGHT)
        if shown(browser)["trick"] == first[:3]:
            break
    else:
        pytest.fail("the first trick's third card never showed")
    width = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page is {width[0]} px wide on a {width[1]} px screen"
    positions = browser.execute_script(
        "return Array.from(document.querySelectorAll('.seat')).map(s => getComputedStyle(s).position)")
    assert set(positions) == {"static"}
    tops = browser.execute_script(
        "return Array.from(document.querySelectorAll('.seat')).map(s => s.getBoundingClientRect().top)")
    assert tops == sorted(tops)  # one seat under the other, seat 0 first
    for button in browser.find_elements(By.CSS_SELECTOR, ".controls button"):
        assert button.size["height"] >= 36 and button.size["width"] >= 36  # big enough for a thumb
    browser.save_screenshot(str(shots / "ten_point_phone.png"))
    browser.set_window_size(*DESKTOP)
