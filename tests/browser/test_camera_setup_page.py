"""The camera page on a phone (real Chromium): teach the camera cards, tap the table's corners.

A real server with the simulated camera; the simulated table shows the cards a
person would lay down, the phone only taps.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
from playwright.sync_api import Browser, Page, expect

from companion.config import CameraSection
from companion.inputs.camera import CORNERS_FILE, CameraFeed
from tests.browser.conftest import PHONE, PIN
from tests.camera.conftest import SIZE, CameraTable, serving
from vision.simtable import rendered_gallery


def lay_alone(table: CameraTable, card: str) -> None:
    assert table.sim.show(table.sim.with_added([card], "centre", []))


def tap_frame_point(page: Page, x: float, y: float) -> None:
    """Tap the live view where the frame pixel (x, y) is shown."""
    page.locator("#taps").scroll_into_view_if_needed()
    box = page.locator("#taps").bounding_box()
    assert box is not None
    page.touchscreen.tap(box["x"] + x / SIZE[0] * box["width"],
                         box["y"] + y / SIZE[1] * box["height"])


@contextmanager
def camera_page(browser: Browser, tmp_path: Path) -> Iterator[tuple[CameraTable, Page,
                                                                     list[str]]]:
    """The simulated camera's table served, and its camera page open live on a phone (the
    page's script errors gathered)."""
    cv2.setNumThreads(1)
    feed = CameraFeed(CameraSection(source="sim", width=SIZE[0], height=SIZE[1]),
                      store=tmp_path / "decks", max_fps=30.0)
    with serving(tmp_path, feed) as table:
        context = browser.new_context(**PHONE)  # type: ignore[arg-type]
        try:
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.set_default_timeout(8000)
            page.goto(table.url + "/camera")
            expect(page.locator("#status")).to_contain_text("Live")
            yield table, page, errors
        finally:
            context.close()


def test_teaching_cards_and_tapping_corners_on_a_phone(browser: Browser, tmp_path: Path) -> None:
    with camera_page(browser, tmp_path) as (table, page, errors):
        expect(page.locator("#corners-state")).to_contain_text("printed markers")

        # teach: pick the deck; the PIN is asked once, then the teaching starts
        page.click("#teach-open")
        page.click(".deck-choice[data-deck='star-plus']")
        page.fill("#pin-input", PIN)
        page.click("#pin-submit")
        expect(page.locator("#teach-prompt")).to_have_text("Lay 1 (Aquarius) alone in view")
        expect(page.locator("#teach-progress")).to_have_text("0 of 13")
        expect(page.locator("#decks")).to_be_hidden()  # the choice is made
        table.sim.reset("star-plus", (), markers=False)
        for done, card in enumerate(("1", "2", "3"), start=1):
            lay_alone(table, card)
            expect(page.locator("#teach-progress")).to_have_text(f"{done} of 13")
        expect(page.locator("#teach-hint")).to_contain_text("shown already")
        expect(page.locator("#teach-thumbs img")).to_have_count(3)
        # the card taken away first: one still lying there after "redo" is taken again
        # within a few frames, before the page may have shown that it was forgotten
        table.sim.reset("star-plus", (), markers=False)
        page.click("#teach-redo")
        expect(page.locator("#teach-progress")).to_have_text("2 of 13")
        expect(page.locator("#teach-prompt")).to_have_text("Lay 3 (Aries) alone in view")
        expect(page.locator("#teach-thumbs img")).to_have_count(2)
        page.click("#teach-cancel")
        expect(page.locator("#teach-message")).to_contain_text("as they were")
        assert not (tmp_path / "decks" / "star-plus").exists()
        page.click("#teach-close")
        expect(page.locator("#teach")).to_be_hidden()

        # corners: one tap undone, then the four corners of the play area
        x0, y0, x1, y1 = 120.0, 60.0, 680.0, 390.0
        page.click("#corners-open")
        expect(page.locator("#tap-step")).to_contain_text("top-left corner (1 of 4)")
        tap_frame_point(page, 400, 225)
        expect(page.locator("#tap-step")).to_contain_text("top-right corner (2 of 4)")
        page.click("#corners-undo")
        expect(page.locator("#tap-step")).to_contain_text("top-left corner (1 of 4)")
        for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
            tap_frame_point(page, x, y)
        expect(page.locator("#corners-state")).to_contain_text("corners you tapped")
        expect(page.locator("#corners")).to_be_hidden()
        kept = json.loads((tmp_path / "table" / CORNERS_FILE).read_text(encoding="utf-8"))
        for (x, y), (want_x, want_y) in zip(kept["corners"],
                                            [(x0, y0), (x1, y0), (x1, y1), (x0, y1)],
                                            strict=True):
            assert abs(x - want_x) < 4 and abs(y - want_y) < 4, kept
        page.click("#corners-clear")
        expect(page.locator("#corners-state")).not_to_contain_text("corners you tapped")
        assert errors == []


def test_teaching_a_taught_decks_back_on_a_phone(browser: Browser, tmp_path: Path) -> None:
    rendered_gallery("star-plus").save(tmp_path / "decks")  # its cards taught already
    with camera_page(browser, tmp_path) as (table, page, errors):
        page.click("#teach-open")
        # a deck not taught offers no back to teach; a taught one does
        expect(page.locator(".deck-choice[data-back='star-catcher']")).to_have_count(0)
        back = page.locator(".deck-choice[data-back='star-plus']")
        expect(back).to_have_text("Star Plus: teach its back (cards face down)")
        back.click()
        page.fill("#pin-input", PIN)
        page.click("#pin-submit")
        expect(page.locator("#teach-prompt")).to_have_text(
            "Lay one card face down, alone in view")
        expect(page.locator("#teach-progress")).to_have_text("")
        expect(page.locator("#teach-redo")).to_be_disabled()  # its faces are kept
        table.sim.reset("star-plus", (), markers=False)
        lay_alone(table, "back")
        expect(page.locator("#teach-message")).to_have_text(
            "Saved: the camera knows the Star Plus cards' back")
        expect(page.locator("#teach-thumbs img")).to_have_count(14)
        page.click("#teach-close")
        page.click("#teach-open")
        expect(page.locator(".deck-choice[data-back='star-plus']")).to_have_text(
            "Star Plus: back taught, teach it again")
        assert errors == []
