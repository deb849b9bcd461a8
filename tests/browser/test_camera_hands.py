"""The phone reads the shown hands from the camera: real Chromium, a real server, the
simulated camera, the real vision path.

A Can't Catch Harry round: the hands lie in front of the seats, one of Ben's
face down. The phone taps "Read hands from the camera", sees the hands filled
and the face-down card pointed out, taps that card in, picks the moths and sends
the round, which is scored as the phone's entry.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import PHONE, signed_in
from tests.camera.conftest import CameraTable
from tests.camera.shown import camera_table_with_backs, lay


@pytest.fixture
def camera_table(tmp_path: Path) -> Iterator[CameraTable]:
    with camera_table_with_backs(tmp_path) as table:
        yield table


@pytest.fixture
def phone(browser: Browser, camera_table: CameraTable) -> Iterator[Page]:
    """A phone that has entered the PIN, on the camera table's dashboard."""
    context = browser.new_context(**PHONE)  # type: ignore[arg-type]
    page = context.new_page()
    page.set_default_timeout(8000)
    errors = signed_in(page, camera_table.url)
    yield page
    context.close()
    assert errors == [], errors


def value(card: str) -> str:
    return json.dumps(card)


def test_the_harry_round_is_filled_from_the_camera_fixed_by_tap_and_scored(
        camera_table: CameraTable, phone: Page) -> None:
    table = camera_table
    table.start_match({"game": "cant-catch-harry", "players": ["Ann", "Ben"]})
    expect(phone.locator("#entry [data-hand-player='hands']")).to_have_count(2)
    lay(table, {"Ann": ["harry"] * 4 + ["fox"], "Ben": ["mom", "james", "twin"]}, {"Ben": 1})

    read = phone.locator("#entry [data-camera-hands='hands']")
    expect(read).to_have_text("Read hands from the camera")
    read.click()
    rows = phone.locator("#entry .hand-row")
    expect(rows.nth(0)).to_contain_text("Ann 5/5")
    expect(rows.nth(1)).to_contain_text("Ben 3/5")
    expect(rows.nth(1)).to_contain_text("+1 face down")
    expect(rows.nth(1)).not_to_contain_text("unread")
    expect(phone.locator("#entry .camera-notes")).to_contain_text(
        "1 card in Ben's area lies face down: turn it up or tap it in")
    ann = rows.nth(0).locator("[data-hand-remove]")
    expect(ann).to_have_count(5)
    names = [b.get_attribute("aria-label") or "" for b in ann.all()]
    assert sorted(names) == ["Take Fox out of Ann's hand"] + ["Take Harry out of Ann's hand"] * 4
    # a round without moths is refused before it can be sent; nothing was entered
    expect(phone.locator("#send")).to_be_disabled()
    expect(phone.locator("#entries li")).to_have_count(0)

    # Ben's face-down card comes up by tap (his hand is the first one short), then the moths
    phone.click(f"#entry [data-hand-add='hands'][data-value='{value('teacher')}']")
    expect(rows.nth(1)).to_contain_text("Ben 4/5")
    expect(rows.nth(1)).not_to_contain_text("face down")
    phone.click("#entry [data-moth='moths'][data-player='Ann'][data-value='harry']")
    phone.click("#entry [data-moth='moths'][data-player='Ben'][data-value='lamp']")
    expect(phone.locator("#entry-check")).to_have_class("check ok")
    phone.click("#send")

    expect(phone.locator("#entries li")).to_have_count(1)
    expect(phone.locator("#entries li .meta")).to_contain_text("Ann's phone")
    match = table.http.get("/api/state").json()["match"]
    assert match["entries"][0]["event"]["hands"] == {
        "Ann": ["fox", "harry", "harry", "harry", "harry"],
        "Ben": ["james", "mom", "twin", "teacher"]}
    totals = match["summary"]["totals"]
    expect(phone.locator("#scoreboard td.total[data-player='Ann']")).to_have_text(
        str(totals["Ann"]))
    assert totals["Ann"] > 0


def test_the_button_shows_only_while_the_camera_is_connected(
        camera_table: CameraTable, phone: Page) -> None:
    table = camera_table
    table.start_match({"game": "cant-catch-harry", "players": ["Ann", "Ben"]})
    read = phone.locator("#entry [data-camera-hands='hands']")
    expect(read).to_be_visible()
    table.camera.unplug()
    expect(read).to_have_count(0)
    expect(phone.locator("#entry [data-hand-player='hands']")).to_have_count(2)  # taps remain
    table.camera.replug()
    expect(read).to_be_visible()
