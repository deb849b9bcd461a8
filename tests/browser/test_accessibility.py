"""axe-core on every page of the dashboard, in the dark and the light theme: no serious or
critical violation. Every control is at least 44 px both ways, and motion stops when
the phone asks for less."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.axe import axe_violations
from tests.browser.conftest import PHONE, signed_in
from tests.browser.tables import GAMES, play
from tests.service.conftest import RunningServer

SMALL_TARGETS = """() => [...document.querySelectorAll('button, a, input, select, summary')]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .map((e) => [e.id || e.className || e.tagName, e.getBoundingClientRect()])
  .filter(([, r]) => r.width > 0 && (r.width < 43.5 || r.height < 43.5))
  .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""


@pytest.fixture(params=["dark", "light"])
def themed(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = browser.new_context(**PHONE, color_scheme=request.param)  # type: ignore[arg-type]
    page = context.new_page()
    page.set_default_timeout(5000)
    yield page
    context.close()


def check(page: Page, where: str) -> None:
    page.wait_for_timeout(200)  # the form's check answer lands
    assert axe_violations(page) == [], where
    assert page.evaluate(SMALL_TARGETS) == [], where


@pytest.mark.parametrize("game", GAMES)
def test_every_view_of_every_game(themed: Page, server: RunningServer, game: str) -> None:
    page = themed
    play(server.url, game, events=4)
    page.goto(server.url + "/")
    page.wait_for_selector("#conn.on")
    for view in ["table", "new", "history", "join"]:
        page.click(f"#nav-{view}")
        check(page, f"{game} watching {view}")
    page.click("#nav-pin")
    check(page, f"{game} PIN dialog")
    page.click("#pin-cancel")
    signed_in(page, server.url)
    for view in ["table", "new", "history", "join"]:
        page.click(f"#nav-{view}")
        check(page, f"{game} signed in {view}")
    page.click("#nav-table")
    page.locator("#entries li [data-fix]").first.click()
    expect(page.locator("#fix-dialog")).to_be_visible()
    check(page, f"{game} fix dialog")
    page.click("#fix-cancel")
    page.click("#nav-new")
    page.click(f"[data-setup-game='{game}']")
    page.click("#start-match")
    if game == "collector":  # the picker says what is missing first
        expect(page.locator("#setup-error")).to_contain_text("target cards")
        for card in ["2S", "3H", "4D", "5C"]:
            page.click(f"#opt-targets .deck-grid [data-target='{card}']")
        page.click("#start-match")
    expect(page.locator("#confirm-dialog")).to_be_visible()
    check(page, f"{game} new match while one runs")
    page.click("#confirm-no")


def test_display_and_camera_pages(themed: Page, server: RunningServer) -> None:
    play(server.url, "catch-mag", events=6)
    for path in ["/display", "/camera"]:
        themed.goto(server.url + path)
        themed.wait_for_timeout(500)
        assert axe_violations(themed) == [], path
    themed.goto(server.url + "/display")
    expect(themed.locator(".d-standing")).to_have_count(3)
    expect(themed.locator(".d-board .space")).to_have_count(30)
    # Readable from 2 m on a 1280 px tablet: the totals are big.
    themed.set_viewport_size({"width": 1280, "height": 800})
    size = themed.locator(".d-total").first.evaluate(
        "e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 90


def test_reduced_motion_stops_transitions(browser: Browser, server: RunningServer) -> None:
    context = browser.new_context(**PHONE, reduced_motion="reduce")  # type: ignore[arg-type]
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#conn.on")
    page.add_style_tag(content=".toast { transition: opacity 2s; }")
    duration = page.locator("#toast").evaluate("e => getComputedStyle(e).transitionDuration")
    context.close()
    assert duration in ("0s", "0s, 0s")
