"""Safer taps: Undo offers Redo, undone events come back from History, a half-finished
entry survives another phone's change, a running match is not left without asking and
can be resumed; the PIN is where the host can find it; the table display follows live."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
from playwright.sync_api import APIResponse, Browser, Page, Route, expect

from tests.browser.conftest import PHONE
from tests.browser.tables import play, token
from tests.browser.test_dashboard import add, compact, screenshot, send, start_match, tap
from tests.service.conftest import RunningServer


def api_event(server: RunningServer, event: dict[str, object]) -> None:
    with httpx.Client(base_url=server.url, headers=token(server.url)) as http:
        response = http.post("/api/events", json={"event": event})
        assert response.status_code == 201, response.text


def test_undo_offers_redo_and_history_restores(page: Page, spectator: Page,
                                               tmp_path: Path) -> None:
    start_match(page, "star-plus", ["Ann", "Ben"])
    add(page, "cards", "1")
    send(page)
    expect(spectator.locator("#sp-target")).to_have_text("2")
    page.click("#undo")
    expect(page.locator("#toast-text")).to_contain_text("Undone: Ann plays 1")
    expect(spectator.locator("#sp-target")).to_have_text("1")
    screenshot(page, "undo-redo", tmp_path, toast=True)
    page.click("#toast-action")  # Redo
    expect(spectator.locator("#sp-target")).to_have_text("2")
    expect(page.locator("#entries li")).to_have_count(1)
    # A quick double tap on Undo takes back one event only: the button waits for the table.
    add(page, "cards", "2")
    send(page)
    page.dblclick("#undo")
    expect(page.locator("#entries li")).to_have_count(1)
    page.wait_for_timeout(300)
    expect(page.locator("#entries li")).to_have_count(1)
    # Past the Redo note, History still has it.
    page.evaluate("document.getElementById('toast').classList.add('hidden')")
    page.click("#nav-history")
    restore = page.locator("#changes li", has_text="undid Ben's cards").locator("[data-restore]")
    screenshot(page, "history", tmp_path)
    restore.first.click()
    expect(page.locator("#view-table")).to_be_visible()
    expect(spectator.locator("#sp-target")).to_have_text("3")
    expect(page.locator("#entries li")).to_have_count(2)


def test_half_finished_entry_survives_another_phones_change(page: Page,
                                                             server: RunningServer) -> None:
    start_match(page, "star-plus", ["Ann", "Ben"])
    add(page, "cards", "1")  # Ann's phone is half-way through Ann's play...
    api_event(server, {"type": "draw", "player": "Ann"})  # ...when another phone enters a draw
    expect(page.locator("#entries li")).to_have_count(1)
    expect(page.locator("#toast-text")).to_contain_text("your entry is kept and checked again")
    expect(page.locator("#entry .picked [aria-label='Take out 1']")).to_have_count(1)
    expect(page.locator("#entry-check")).to_contain_text("Ben's turn")
    tap(page, "player", "Ben")
    send(page)
    expect(page.locator("#last-text")).to_contain_text("Ben plays 1")


def test_new_match_asks_first_and_history_resumes(page: Page, server: RunningServer,
                                                  tmp_path: Path) -> None:
    start_match(page, "catch-mag", ["Ann", "Ben"])
    page.click(f"#entry [data-field='value'][data-value='{compact(3)}']")
    send(page)
    page.click("#nav-new")
    page.click("[data-setup-game='star-plus']")
    page.click("#start-match")
    expect(page.locator("#confirm-text")).to_contain_text("Catch Mag is still being played")
    screenshot(page, "new-match-confirm", tmp_path)
    page.click("#confirm-no")
    page.click("#nav-table")
    expect(page.locator("#game-title")).to_have_text("Catch Mag")
    page.click("#nav-new")
    page.click("#start-match")
    page.click("#confirm-yes")
    expect(page.locator("#game-title")).to_have_text("Star Plus")
    page.click("#nav-history")
    page.locator("#matches li", has_text="Catch Mag").last.locator("[data-resume]").click()
    expect(page.locator("#game-title")).to_have_text("Catch Mag")
    expect(page.locator("#last-text")).to_contain_text("Ann rolls 3")
    with httpx.Client(base_url=server.url, headers=token(server.url)) as http:
        state = http.get("/api/state").json()
        assert state["match"]["game"] == "catch-mag"
        assert http.post("/api/matches/999999/resume").status_code == 404
        assert httpx.post(server.url + f"/api/matches/{state['current']}/resume"
                          ).status_code == 401


def test_a_join_code_for_a_friend_and_from_the_command_line(page: Page, spectator: Page,
                                                            server: RunningServer,
                                                            tmp_path: Path) -> None:
    # The PIN is kept only as a hash: a phone that is in shows a join code instead,
    # which signs a friend in like the PIN for ten minutes.
    expect(spectator.locator("#reveal-pin")).to_be_hidden()  # a watching phone cannot
    assert httpx.post(server.url + "/api/join-codes").status_code == 401
    page.click("#nav-history")
    page.click("#reveal-pin")
    expect(page.locator("#reveal-pin")).to_contain_text("Join code")
    code = page.locator("#reveal-pin").inner_text().split()[2]
    assert code.isdigit() and len(code) == 6
    expect(page.locator("#pin-result")).to_contain_text("10 minutes")
    page.click("#reveal-pin")
    expect(page.locator("#reveal-pin")).not_to_contain_text(code)
    friend = httpx.post(server.url + "/api/auth", json={"pin": code, "name": "Dee"})
    assert friend.status_code == 200, friend.text
    spectator.click("#nav-join")
    expect(spectator.locator("#pin-where")).to_contain_text("companion pin")
    # The host's way: `companion pin` prints a join code; --set chooses a new PIN.
    data = tmp_path / "table"
    command = [sys.executable, "-m", "companion.cli", "pin", "--data-dir", str(data)]
    first = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    assert first.startswith("Table PIN: ")  # made up just now: it can be shown once
    again = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    assert again.startswith("Join code: ") and "10 minutes" in again
    changed = subprocess.run([*command, "--set", "975310"], capture_output=True, text=True,
                             check=True).stdout
    assert "975310" in changed
    bad = subprocess.run([*command, "--set", "12"], capture_output=True, text=True)
    assert bad.returncode == 2 and "4 to 8 digits" in bad.stderr and "Traceback" not in bad.stderr


def test_table_display_follows_live(browser: Browser, server: RunningServer,
                                    tmp_path: Path) -> None:
    match = play(server.url, "catch-mag", events=3)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    display = context.new_page()
    display.goto(server.url + "/display")
    expect(display.locator(".d-standing")).to_have_count(3)
    turn = match.summary()["turn"]
    expect(display.locator("#d-turn")).to_have_text(f"{turn}'s turn")
    event = {"type": "roll", "player": turn, "value": 1} if match.summary()["pending"] == "roll" \
        else {"type": "catch", "player": turn, "success": False}
    api_event(server, event)
    expect(display.locator("#d-last")).to_contain_text(turn)
    expect(display.locator("#d-last")).not_to_have_text("—")
    screenshot(display, "display", tmp_path)
    context.close()


def test_collector_targets_by_tapping_and_a_watcher_in_the_light(
        browser: Browser, page: Page, server: RunningServer, tmp_path: Path) -> None:
    page.click("#nav-new")
    page.click("[data-setup-game='collector']")
    inputs = page.locator(".player-input")
    for i in range(inputs.count()):
        inputs.nth(i).fill(["Ann", "Ben"][i] if i < 2 else "")
    for card in ["9S", "JD", "KC", "10C"]:
        page.click(f"#opt-targets .deck-grid [data-target='{card}']")
    expect(page.locator("#targets-picked .cf")).to_have_count(4)
    expect(page.locator("#opt-targets .deck-grid [data-target='2S']")).to_be_disabled()
    page.click("#targets-picked [data-target='JD']")  # tap a picked card to take it out
    page.click("#opt-targets .deck-grid [data-target='QD']")
    screenshot(page, "collector-setup", tmp_path, at="#setup-options")
    page.click("#start-match")
    if page.locator("#confirm-dialog[open]").count():
        page.click("#confirm-yes")
    expect(page.locator("#co-targets .cf")).to_have_count(4)
    expect(page.locator("#co-targets .cf[aria-label='Queen of diamonds']")).to_have_count(1)
    small = {**PHONE, "viewport": {"width": 360, "height": 740}}
    context = browser.new_context(**small, color_scheme="light")  # type: ignore[arg-type]
    watcher = context.new_page()
    watcher.goto(server.url + "/")
    expect(watcher.locator("#standings .standing")).to_have_count(2)
    screenshot(watcher, "watching-light-360", tmp_path)
    context.close()


def test_a_tap_made_before_the_send_is_answered_is_kept(page: Page) -> None:
    """The live message of this phone's own entry may come before the answer to its send (a
    busy table): the fresh form it opens is the player's, and the late answer leaves it."""
    start_match(page, "catch-mag", ["Ann", "Ben"])
    held: list[tuple[Route, APIResponse]] = []

    def hold_the_answer(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        held.append((route, route.fetch()))  # the table has the event; the phone waits

    page.route("**/api/events", hold_the_answer)
    tap(page, "value", 2)
    expect(page.locator("#entry-check")).to_have_class("check ok")
    page.click("#send")
    expect(page.locator("#entries li")).to_have_count(1)  # from the live message alone
    tap(page, "success", True)
    pressed = page.locator("#entry [data-field='success'][data-value='true']")
    expect(pressed).to_have_attribute("aria-pressed", "true")
    route, answer = held.pop()
    route.fulfill(response=answer)
    expect(page.locator("#send")).to_be_visible()
    page.wait_for_timeout(300)  # the answer has been handled
    expect(pressed).to_have_attribute("aria-pressed", "true")
    tap(page, "color", "red")
    send(page)
    expect(page.locator("#standings .st-total[data-player='Ann']")).to_have_text("1")
