"""The scoreboard first: on a phone the standings (every player's total, large, leader
first) and the turn are on screen without scrolling, for every game, signed in or not,
and every total on the page is the same number."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import PHONE, signed_in
from tests.browser.tables import GAMES, play
from tests.service.conftest import RunningServer

SIZES = [(390, 844), (360, 740)]


@pytest.fixture
def phone(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    width, height = request.param
    context = browser.new_context(**{**PHONE, "viewport": {"width": width, "height": height}})  # type: ignore[arg-type]
    page = context.new_page()
    page.set_default_timeout(5000)
    yield page
    context.close()


def on_screen(page: Page, selector: str) -> None:
    """The element's whole box is inside the viewport at the top of the page."""
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    view = page.viewport_size
    assert view is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= view["height"], (selector, box, view)
    assert box["x"] >= 0 and box["x"] + box["width"] <= view["width"] + 0.5, (selector, box, view)


@pytest.mark.parametrize("phone", SIZES, indirect=True, ids=["390x844", "360x740"])
@pytest.mark.parametrize("game", GAMES)
def test_standings_and_turn_need_no_scrolling(phone: Page, server: RunningServer,
                                              game: str) -> None:
    match = play(server.url, game, events=5)
    summary = match.summary()
    for signed in (False, True):
        if signed:
            signed_in(phone, server.url)
        else:
            phone.goto(server.url + "/")
            phone.wait_for_selector("#conn.on")
        expect(phone.locator("#standings .standing")).to_have_count(len(summary["players"]))
        phone.evaluate("window.scrollTo(0, 0)")
        on_screen(phone, "#standings")
        on_screen(phone, "#turn")
        if not summary["finished"]:
            on_screen(phone, "#next")
            expect(phone.locator("#next")).not_to_be_empty()
        # Leader first, and the same totals as the engine's, in the standings and the table.
        shown = phone.locator("#standings .standing").evaluate_all(
            "items => items.map(li => [li.dataset.player,"
            " Number(li.querySelector('.st-total').textContent)])")
        assert sorted(shown, key=lambda pair: -pair[1]) == shown
        assert dict(shown) == summary["totals"]
        for player, total in summary["totals"].items():
            cell = phone.locator(f"#scoreboard td.total[data-player='{player}']")
            expect(cell).to_have_text(str(total))
        # The menu bar fits: no tab runs into the next, none off screen.
        boxes = phone.locator(".bar .nav:visible").evaluate_all(
            "els => els.map(e => { const r = e.getBoundingClientRect();"
            " return [r.left, r.right]; })")
        for (_, right), (left, _) in itertools.pairwise(boxes):
            assert right <= left + 0.5, boxes
        conn = phone.locator("#conn").bounding_box()
        assert conn is not None and boxes[-1][1] <= conn["x"] + 0.5
        assert conn["x"] + conn["width"] <= phone.viewport_size["width"]  # type: ignore[index]


def test_this_round_beside_the_total(page: Page, server: RunningServer) -> None:
    """Star Catcher scores a round only at its end: the total stays that of the finished
    rounds, and this round's points stand beside it, the same in the table below."""
    match = play(server.url, "star-catcher", events=9, seed=11)
    summary = match.summary()
    live = summary["live_scores"]
    assert any(live.values()), "the seed should score some points this round"
    page.goto(server.url + "/")
    page.wait_for_selector("#conn.on")
    for player in summary["players"]:
        standing = page.locator(f"#standings .standing[data-player='{player}']")
        expect(standing.locator(".st-total")).to_have_text(str(summary["totals"][player]))
        expect(standing.locator(".live")).to_have_text(f"+{live[player]} this round")
    row = page.locator("#scoreboard tr.live-row td")
    expect(row).to_have_text(["This round", *[str(live[p]) for p in summary["players"]]])
