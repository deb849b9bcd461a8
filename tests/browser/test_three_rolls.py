"""Catch Mag's three-roll turn on the phone, in real Chromium (issue 17).

After an empty landing in a three-roll turn the same player rolls again; the phone
says so in the engine's own words and offers that player's die.
"""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect

from tests.browser.conftest import PIN
from tests.games.test_rulings_replay import ANN_FOUR_RED
from tests.service.conftest import RunningServer


def test_after_an_empty_landing_the_phone_says_ann_rolls_again(
    page: Page, server: RunningServer
) -> None:
    with httpx.Client(base_url=server.url) as http:
        token = http.post("/api/auth", json={"pin": PIN, "name": "bot"}).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        response = http.post("/api/matches", json={"game": "catch-mag", "players": ["Ann", "Ben"]},
                             headers=headers)
        assert response.status_code == 201, response.text
        # Ann collects four red, Ben green on the spaces just ahead of her; then her
        # three-roll turn starts with a landing on an emptied space.
        for event in [*ANN_FOUR_RED[1:], {"type": "roll", "player": "Ann", "value": 1}]:
            response = http.post("/api/events", json={"event": event}, headers=headers)
            assert response.status_code == 201, response.text
    expect(page.locator("#cm-expected")).to_have_text("Ann rolls again (roll 2 of 3)")
    expect(page.locator("#turn-name")).to_have_text("Ann")
    expect(page.locator("#last-text")).to_contain_text("Ann rolls again (roll 2 of 3)")
    # The phone offers Ann's die, and her second roll goes in.
    page.wait_for_selector("#type-choices[data-legal]")
    expect(page.locator("#entry button.die")).to_have_count(6)
    page.click("#entry [data-field='value'][data-value='5']")  # 6 -> 11: a rod
    expect(page.locator("#entry-check")).to_have_class("check ok")
    page.click("#send")
    expect(page.locator("#cm-expected")).to_contain_text("Ann is to catch")
    assert page.js_errors == []  # type: ignore[attr-defined]
