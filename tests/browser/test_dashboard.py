"""Short games of all five games played through the phone dashboard in real Chromium.

Each test enters events by tapping, sees an illegal entry explained before it
is sent, and (for some) undoes; a second phone watching shows the same scores live.
Set TC_SCREENSHOTS=docs/screenshots to refresh the screenshots in the docs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.service.conftest import RunningServer


def start_match(page: Page, game: str, players: list[str], targets: str = "",
                first: str = "") -> None:
    page.click("#nav-new")
    page.click(f"[data-setup-game={game}]")
    inputs = page.locator(".player-input")
    while inputs.count() < len(players):
        page.click("#add-player")
    for i in range(inputs.count()):
        inputs.nth(i).fill(players[i] if i < len(players) else "")
    if targets:
        page.fill("#opt-targets", targets)
    if first:
        page.select_option("#opt-seat", first)
    page.click("#start-match")
    expect(page.locator("#view-table")).to_be_visible()
    expect(page.locator("#entries li")).to_have_count(0)
    expect(page.locator("#entry")).to_be_visible()


def tap(page: Page, field: str, value: object) -> None:
    page.click(f"#entry [data-field='{field}'][data-value='{json.dumps(value)}']")


def add(page: Page, field: str, value: str) -> None:
    page.click(f"#entry [data-add='{field}'][data-value='{json.dumps(value)}']")


def send(page: Page) -> None:
    count = page.locator("#entries li").count()
    expect(page.locator("#entry-check")).to_have_class("check ok")
    page.click("#send")
    expect(page.locator("#entries li")).to_have_count(count + 1)


def expect_refused(page: Page, words: str) -> None:
    check = page.locator("#entry-check")
    expect(check).to_have_class("check error")
    expect(check).to_contain_text(words)
    expect(page.locator("#send")).to_be_disabled()


def total(page: Page, player: str) -> str:
    return f"#scoreboard td.total[data-player='{player}']"


def screenshot(page: Page, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("TC_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(folder / f"{name}.png"))


def test_catch_mag_with_undo_and_a_watching_phone(page: Page, spectator: Page,
                                                  tmp_path: Path) -> None:
    start_match(page, "catch-mag", ["Ann", "Ben"])
    expect(spectator.locator("#turn-name")).to_have_text("Ann")
    tap(page, "value", 2)
    send(page)
    expect(page.locator("#cm-expected")).to_contain_text("catch")
    tap(page, "success", True)
    tap(page, "color", "red")
    send(page)
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("1")
    expect(spectator.locator("#turn-name")).to_have_text("Ben")
    page.click("#undo")
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("0")
    expect(page.locator("#last-text")).to_contain_text("Ann rolls 2")
    # Rolling again now, before the catch, is explained and cannot be sent.
    page.click("#entry [data-type='roll']")
    tap(page, "value", 3)
    expect_refused(page, "catch")
    page.click("#entry [data-type='catch']")
    tap(page, "success", False)
    send(page)
    expect(spectator.locator("#turn-name")).to_have_text("Ben")
    tap(page, "value", 1)
    send(page)
    screenshot(page, "catch-mag", tmp_path)
    # Correct the first roll: the events after it no longer fit and are flagged, not dropped.
    first = page.locator("#entries li").last
    first.locator("button").click()
    page.fill("#edit-json", json.dumps({"type": "roll", "player": "Ann", "value": 6}))
    page.click("#edit-save")
    expect(spectator.locator("#entries li.flagged")).to_have_count(2)
    expect(spectator.locator("#entries li")).to_have_count(3)
    first.locator("button").click()
    page.fill("#edit-json", json.dumps({"type": "roll", "player": "Ann", "value": 2}))
    page.click("#edit-save")
    expect(spectator.locator("#entries li.flagged")).to_have_count(0)
    # Play on to the end: Ann keeps red rods, Ben blue; the first to five wins.
    for _ in range(40):
        if page.locator("#turn").inner_text().endswith("wins"):
            break
        pending = page.locator("#type-choices .sel").inner_text()
        colour = "red" if page.inner_text("#turn-name") == "Ann" else "blue"
        if pending == "roll":
            tap(page, "value", 1)
        elif pending == "joker":
            tap(page, "use", "keep")
        elif pending == "super-joker":
            page.locator("#entry [data-field='space']").first.click()
            tap(page, "color", colour)
        else:
            assert pending == "catch"
            tap(page, "success", True)
            tap(page, "color", colour)
        send(page)
    expect(spectator.locator("#turn")).to_contain_text("Ann wins")
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("5")
    page.click("#nav-history")
    expect(page.locator("#changes")).to_contain_text("undid catch by Ann")
    expect(page.locator("#changes")).to_contain_text("corrected event")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_star_catcher_offers_the_legal_catches(page: Page, spectator: Page,
                                               tmp_path: Path) -> None:
    start_match(page, "star-catcher", ["Ann", "Ben"])
    for card in ["D3", "C4*", "D9", "D2"]:
        add(page, "cards", card)
    send(page)
    expect(spectator.locator("#sc-table .chip")).to_have_count(4)
    tap(page, "card", "C9**")
    # Two ways to catch with a 9: the player picks one.
    expect(page.locator("#entry [data-field='take']")).to_have_count(2)
    expect_refused(page, "must catch")
    tap(page, "take", ["D9"])
    send(page)
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("0")
    expect(spectator.locator("#sc-table .chip")).to_have_count(3)
    # Ben's D7 can only take D3 + C4*: offered alone, already chosen.
    tap(page, "card", "D7")
    tap(page, "player", "Ann")
    expect_refused(page, "Ben")
    tap(page, "player", "Ben")
    expect(page.locator("#entry [data-field='take']")).to_have_count(1)
    send(page)
    expect(spectator.locator("#sc-table .chip")).to_have_count(1)
    screenshot(page, "star-catcher", tmp_path)
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_star_plus_target_and_black_hole(page: Page, spectator: Page, tmp_path: Path,
                                        server: RunningServer) -> None:
    start_match(page, "star-plus", ["Ann", "Ben", "Cy"])
    table = server.server.table_app.state.table
    table.call_from_thread(table.report_status, "camera", "disconnected", "no picture")
    expect(spectator.locator("#banners [data-source='camera']")).to_contain_text("no picture")
    table.call_from_thread(table.report_status, "camera", "connected")
    expect(spectator.locator("#banners [data-source='camera']")).to_have_count(0)
    add(page, "cards", "1")
    send(page)
    expect(spectator.locator("#sp-target")).to_have_text("2")
    add(page, "cards", "3")
    expect_refused(page, "2")
    page.click("#entry [data-remove='cards']")
    add(page, "cards", "2")
    send(page)
    expect(spectator.locator("#sp-target")).to_have_text("3")
    page.click("#undo")
    expect(spectator.locator("#sp-target")).to_have_text("2")
    for card in ["1", "-1", "2"]:  # three cards open the Black Hole
        add(page, "cards", card)
    send(page)
    expect(spectator.locator("#sp-hole")).to_have_text("OPEN")
    page.click("#entry [data-type='draw']")
    send(page)
    expect(spectator.locator("#sp-hole")).to_have_text("—")
    screenshot(page, "star-plus", tmp_path)
    assert page.js_errors == []  # type: ignore[attr-defined]


def enter_round(page: Page, hands: dict[str, list[str]], moths: dict[str, str]) -> None:
    for player, cards in hands.items():
        for card in cards:
            page.click(f"#entry [data-hand-add='hands'][data-player='{player}']"
                       f"[data-value='{json.dumps(card)}']")
    for player, moth in moths.items():
        page.click(f"#entry [data-moth='moths'][data-player='{player}'][data-value='{moth}']")


def test_cant_catch_harry_played_to_eleven(page: Page, spectator: Page, tmp_path: Path) -> None:
    start_match(page, "cant-catch-harry", ["Ann", "Ben"])
    harry_set = {"Ann": ["harry"] * 4, "Ben": ["fox", "james", "mom", "teacher"]}
    enter_round(page, harry_set, {"Ann": "harry", "Ben": "lamp"})
    send(page)
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("6")
    # A round with two Harry moths is explained and refused.
    enter_round(page, {"Ann": ["fox"] * 4, "Ben": ["mom"]}, {"Ann": "harry", "Ben": "harry"})
    expect_refused(page, "harry")
    page.click("#clear-entry")
    enter_round(page, {"Ann": ["mom"], "Ben": ["fox"] * 4}, {"Ann": "lamp", "Ben": "harry"})
    send(page)
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("5")
    enter_round(page, harry_set, {"Ann": "harry", "Ben": "lamp"})
    send(page)
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("11")
    expect(spectator.locator("#turn")).to_contain_text("Ann wins")
    screenshot(page, "cant-catch-harry", tmp_path)
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_collector_asks_about_the_ace_only_when_it_matters(
    page: Page, spectator: Page, tmp_path: Path, server: RunningServer
) -> None:
    start_match(page, "collector", ["Ann", "Ben"], targets="10H 5S KD AC", first="Ben")
    expect(spectator.locator("#turn-name")).to_have_text("Ben")
    tap(page, "target", "10H")
    tap(page, "card", "4H")
    expect(page.locator("#entry [data-key='aces']")).to_have_count(0)
    tap(page, "second", "6S")
    send(page)
    expect(spectator.locator("#co-targets")).not_to_contain_text("10H")
    tap(page, "target", "AC")
    tap(page, "card", "2C")
    expect(page.locator("#entry [data-key='aces']")).to_have_count(1)
    page.click("#entry [data-ace='AC'][data-value='1']")
    send(page)
    expect(spectator.locator("#co-targets")).not_to_contain_text("AC")
    # A card already collected cannot be played again: explained, not sent.
    tap(page, "target", "KD")
    tap(page, "card", "10H")
    expect_refused(page, "10H")
    screenshot(page, "collector", tmp_path)
    page.click("#nav-join")
    expect(page.locator("#join-url")).to_have_text(f"http://192.168.1.20:{server.server.bound_port}/")
    expect(page.locator("#qr")).to_have_js_property("complete", True)
    assert page.locator("#qr").evaluate("img => img.naturalWidth") > 0
    screenshot(page, "join", tmp_path)
    assert page.js_errors == []  # type: ignore[attr-defined]
