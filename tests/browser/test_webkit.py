"""The main flows in WebKit, the engine of every iPhone: Debian's WebKitWebDriver and its
MiniBrowser (started with --automation) under xvfb-run, driven by Selenium's WebKitGTK
driver, against a real server. Join, sign in, one entry per game by tapping, undo and
redo, a live update from another phone, and axe-core on every page."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from selenium.webdriver.webkitgtk.options import Options

from companion.service import Settings
from tests.browser.axe import RUN_AXE, axe_source, serious
from tests.browser.conftest import PIN
from tests.service.conftest import RunningServer, start_server

# Selenium itself passes the driver's address the way it deprecated (get_remote_connection).
pytestmark = pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning")

DRIVER = "/usr/bin/WebKitWebDriver"
XVFB_RUN = "/usr/bin/xvfb-run"


def minibrowser() -> Path:
    for lib in Path("/usr/lib").glob("*/webkit2gtk-4.1/MiniBrowser"):
        return lib
    return Path("/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def webkit_driver() -> Iterator[str]:
    """WebKitWebDriver on a free port, on its own X display (xvfb-run); its address."""
    for needed in (DRIVER, XVFB_RUN, str(minibrowser())):
        if not Path(needed).exists():
            pytest.fail(f"{needed} is missing: run scripts/ensure-webkit.sh")
    port = free_port()
    process = subprocess.Popen(
        [XVFB_RUN, "-a", "-s", "-screen 0 1280x1024x24", DRIVER, f"--port={port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                os.killpg(process.pid, signal.SIGTERM)
                pytest.fail("WebKitWebDriver did not start")
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(10)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    data = tmp_path_factory.mktemp("webkit-table")
    running = start_server(Settings(data_dir=data, pin=PIN, mdns=False,
                                    public_host="192.168.1.21"))
    yield running
    running.stop()
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(webkit_driver: str) -> Iterator[WebDriver]:
    options = Options()
    options.binary_location = str(minibrowser())
    options.add_argument("--automation")
    driver = webdriver.Remote(command_executor=webkit_driver, options=options)
    driver.set_window_size(430, 900)
    yield driver
    driver.quit()


def wait(driver: WebDriver, condition: Callable[[WebDriver], Any], timeout: float = 8) -> Any:
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(WebDriverException,)).until(condition)


def css(driver: WebDriver, selector: str) -> Any:
    return wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, selector))


def tap(driver: WebDriver, selector: str) -> None:
    """Click the first enabled, visible match (waiting for it). Found and clicked in one
    try: a form redrawn in between (a busy machine) leaves a stale element, found again."""
    def clicked(d: WebDriver) -> bool:
        for element in d.find_elements(By.CSS_SELECTOR, selector):
            if element.is_displayed() and element.is_enabled():
                d.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
                element.click()
                return True
        return False
    wait(driver, clicked)


def text(driver: WebDriver, selector: str) -> str:
    value: str = driver.find_element(By.CSS_SELECTOR, selector).text
    return value


def has_text(driver: WebDriver, selector: str, words: str) -> None:
    wait(driver, lambda d: words in text(d, selector))


def count(driver: WebDriver, selector: str) -> int:
    return len(driver.find_elements(By.CSS_SELECTOR, selector))


def axe(driver: WebDriver) -> list[str]:
    if not driver.execute_script("return !!window.axe"):
        driver.execute_script(axe_source())
    result = driver.execute_async_script(
        f"const done = arguments[arguments.length - 1]; ({RUN_AXE})().then(done, "
        "(e) => done([{id: 'axe-error', impact: 'critical', help: String(e), "
        "nodes: [{target: ['document'], summary: String(e)}]}]));")
    return serious(result)


def sign_in(driver: WebDriver, url: str) -> None:
    driver.get(url + "/")
    css(driver, "#conn.on")
    tap(driver, "#nav-pin")
    css(driver, "#pin-input").send_keys(PIN)
    css(driver, "#name-input").send_keys("Ann's iPhone")
    tap(driver, "#pin-submit")
    css(driver, "body.player")


def start(driver: WebDriver, game: str, players: list[str],
          targets: tuple[str, ...] = ()) -> None:
    tap(driver, "#nav-new")
    tap(driver, f"[data-setup-game='{game}']")
    inputs = driver.find_elements(By.CSS_SELECTOR, ".player-input")
    while len(inputs) < len(players):
        tap(driver, "#add-player")
        inputs = driver.find_elements(By.CSS_SELECTOR, ".player-input")
    for i, element in enumerate(inputs):
        element.clear()
        if i < len(players):
            element.send_keys(players[i])
    for target in targets:
        tap(driver, f"#opt-targets .deck-grid [data-target='{target}']")
    tap(driver, "#start-match")
    if count(driver, "#confirm-dialog[open]"):
        tap(driver, "#confirm-yes")
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#view-table").is_displayed())
    wait(driver, lambda d: count(d, "#entries li") == 0 and count(d, "#entry-form") == 1)


def send(driver: WebDriver) -> None:
    before = count(driver, "#entries li")
    try:
        wait(driver, lambda d: "ok" in (d.find_element(By.CSS_SELECTOR, "#entry-check")
                                        .get_attribute("class") or "").split())
    except TimeoutException:
        pytest.fail(f"the entry is refused: {text(driver, '#entry-check')}")
    tap(driver, "#send")
    wait(driver, lambda d: count(d, "#entries li") == before + 1)


def test_join_sign_in_one_entry_per_game_undo_and_a_live_update(
        browser: WebDriver, server: RunningServer) -> None:
    driver = browser
    driver.get(server.url + "/?host")
    has_text(driver, "#join-url", "192.168.1.21")
    # the QR code is an image of its own: it may land after the address text
    qr_width = "return document.getElementById('qr').naturalWidth"
    wait(driver, lambda d: d.execute_script(qr_width) > 0)
    assert axe(driver) == []
    sign_in(driver, server.url)

    start(driver, "catch-mag", ["Ann", "Ben"])
    assert text(driver, "#turn-name") == "Ann"
    tap(driver, "#entry [data-field='value'][data-value='2']")
    send(driver)
    tap(driver, "#entry [data-field='success'][data-value='true']")
    tap(driver, "#entry [data-field='color'][data-value='\"red\"']")
    send(driver)
    has_text(driver, "#standings .st-total[data-player='Ann']", "1")
    assert axe(driver) == []
    # Undo, then Redo from the note at the foot of the screen.
    tap(driver, "#undo")
    has_text(driver, "#standings .st-total[data-player='Ann']", "0")
    tap(driver, "#toast-action")
    has_text(driver, "#standings .st-total[data-player='Ann']", "1")
    # Another phone enters Ben's roll: this one follows live.
    with httpx.Client(base_url=server.url) as http:
        token = http.post("/api/auth", json={"pin": PIN, "name": "Ben's phone"}).json()["token"]
        response = http.post("/api/events", json={"event": {"type": "roll", "player": "Ben",
                                                            "value": 1}},
                             headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 201, response.text
    has_text(driver, "#last-text", "Ben rolls 1")

    start(driver, "star-catcher", ["Ann", "Ben"])
    for card in ["D1", "D2", "C3", "D9"]:
        tap(driver, f"#entry [data-add='cards'][data-value='\"{card}\"']")
    send(driver)
    assert count(driver, "#sc-table .cf") == 4

    start(driver, "star-plus", ["Ann", "Ben"])
    tap(driver, "#entry [data-add='cards'][data-value='\"1\"']")
    send(driver)
    has_text(driver, "#sp-target", "2")

    start(driver, "cant-catch-harry", ["Ann", "Ben"])
    tap(driver, "#entry [data-hand-player='hands'][data-player='Ann']")
    tap(driver, "#entry [data-times='4']")
    tap(driver, "#entry [data-hand-add='hands'][data-value='\"harry\"']")
    # every hand holds 4 cards at the end of a round (docs/rulings.md)
    tap(driver, "#entry [data-hand-player='hands'][data-player='Ben']")
    for card in ("fox", "james", "mom", "teacher"):
        tap(driver, f"#entry [data-hand-add='hands'][data-value='\"{card}\"']")
    tap(driver, "#entry [data-moth='moths'][data-player='Ann'][data-value='harry']")
    tap(driver, "#entry [data-moth='moths'][data-player='Ben'][data-value='lamp']")
    send(driver)
    has_text(driver, "#standings .st-total[data-player='Ann']", "6")

    start(driver, "collector", ["Ann", "Ben"], targets=("10H", "5S", "KD", "AC"))
    tap(driver, "#entry [data-field='target'][data-value='\"10H\"']")
    tap(driver, "#entry [data-compose='card'][data-part='rank'][data-value='5']")
    tap(driver, "#entry [data-compose='card'][data-part='suit'][data-value='D']")
    send(driver)
    assert count(driver, "#co-targets .cf[aria-label='10 of hearts']") == 0
    assert axe(driver) == []
    for view in ["history", "new"]:
        tap(driver, f"#nav-{view}")
        assert axe(driver) == [], view
    driver.get(server.url + "/display")
    wait(driver, lambda d: count(d, ".d-standing") == 2)
    assert axe(driver) == []
    has_text(driver, "#d-title", "Collector")
    has_text(driver, "#d-turn", "Ben's turn")
