"""A phone that lost the table catches up by itself, without a reload, and keeps its PIN."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from companion.service import Settings
from tests.browser.conftest import PHONE, PIN
from tests.service.conftest import start_server

ROLL = {"type": "roll", "player": "Ann", "value": 2}
FAIL = {"type": "catch", "player": "Ann", "success": False}


def test_a_phone_reconnects_after_the_server_restarts(browser: Browser, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "table", pin=PIN, mdns=False)
    first = start_server(settings)
    port = first.server.bound_port
    import httpx

    http = httpx.Client(base_url=first.url)
    token = http.post("/api/auth", json={"pin": PIN, "name": "host"}).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    http.post("/api/matches", json={"game": "catch-mag", "players": ["Ann", "Ben"]},
              headers=headers)
    context = browser.new_context(**PHONE)  # type: ignore[arg-type]
    page = context.new_page()
    page.set_default_timeout(8000)
    try:
        page.goto(first.url + "/")
        page.evaluate(f"localStorage.setItem('tc-token', '{token}')")
        page.reload()
        expect(page.locator("body")).to_have_class("player")
        expect(page.locator("#turn-name")).to_have_text("Ann")
        first.stop()
        expect(page.locator("#banner-conn")).to_be_visible()
        second = start_server(settings, port)
        try:
            http.post("/api/events", json={"event": ROLL}, headers=headers)
            http.post("/api/events", json={"event": FAIL}, headers=headers)
            expect(page.locator("#turn-name")).to_have_text("Ben")
            expect(page.locator("#conn")).to_have_text("live")
            expect(page.locator("#entries li")).to_have_count(2)
            expect(page.locator("#banner-conn")).to_have_count(0)
            expect(page.locator("body")).to_have_class("player")
        finally:
            second.stop()
    finally:
        context.close()
        http.close()
