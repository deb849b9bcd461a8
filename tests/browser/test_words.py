"""Words for players: every form of every game is walked with empty and wrong input, and
no message a player can read names a field, says "null" or shows JSON or an id."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.tables import GAMES, PLAYERS
from tests.service.conftest import RunningServer

FORBIDDEN = ["missing field", "field '", "setup '", "null", "undefined", "NaN", "[object",
             "[", "]", "{", "}", "got ", "Bearer", "/api/", "_", "Traceback", "'type'",
             "cant-catch-harry", "star-catcher", "star-plus", "catch-mag", "POST", "token"]
MESSAGES = ["#entry-check", "#setup-error", "#pin-error", "#pin-result", "#import-result",
            "#raw-error", "#toast-text", "#fix-check", "#last-text", "#next", "#turn",
            "#entry .error", "#entry .pill"]
# Buttons that change the draft (a first choice of every kind of field).
CHOICES = ["[data-field]", "[data-add]", "[data-compose]", "[data-hand-player]",
           "[data-hand-add]", "[data-moth]", "[data-ace]", "[data-open]", "[data-times]"]


# Marks the first enabled, unselected button of a field not tapped yet; returns its key.
NEXT_CHOICE = """(tapped) => {
  const keys = ["field", "add", "compose", "handPlayer", "handAdd", "moth", "ace", "open", "times"];
  for (const b of document.querySelectorAll("#entry-form button:not([disabled]):not(.sel)")) {
    const k = keys.find((x) => b.dataset[x] !== undefined);
    if (!k) continue;
    const key = [k, b.dataset[k], b.dataset.part || "", b.dataset.player || ""].join("-")
      .replace(/[^A-Za-z0-9-]/g, "");
    if (tapped.includes(key)) continue;
    b.dataset.walk = key;
    return key;
  }
  return null;
}"""


class Reader:
    """Collects every message shown, and the fragments that should not be in them."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.seen: set[str] = set()

    def read(self) -> None:
        self.page.wait_for_timeout(250)  # the check is asked 100 ms after a tap
        for selector in MESSAGES:
            for text in self.page.locator(selector).all_inner_texts():
                if text.strip():
                    self.seen.add(" ".join(text.split()))

    def bad(self) -> list[str]:
        return sorted(f"{fragment!r} in {text!r}" for text in self.seen
                      for fragment in FORBIDDEN if fragment in text)


def walk_entry_form(page: Page, reader: Reader) -> None:
    """Every event type, then a first choice of every field, one tap at a time."""
    check = page.locator("#entry-check")
    # Before the first tap: what to do, nothing in red.
    expect(check).to_have_class("check waiting")
    expect(check).to_contain_text("Tap to enter")
    reader.read()
    types = page.locator("#entry #type-choices [data-type]").evaluate_all(
        "els => els.map(e => e.dataset.type)")
    for kind in types or [""]:
        if kind:
            page.click(f"#entry #type-choices [data-type='{kind}']")
        reader.read()
        tapped: set[str] = set()
        for _ in range(16):  # a first choice of every field not tapped yet, in order
            key = page.evaluate(NEXT_CHOICE, sorted(tapped))
            if key is None:
                break
            tapped.add(key)
            page.click(f"#entry-form [data-walk='{key}']")
            reader.read()
        page.click("#clear-entry")
        reader.read()


def raw_events(page: Page, reader: Reader) -> None:
    page.click("#raw-details summary")
    for raw in ["not json", "{}", "[]", '{"type": "nope"}', '{"type": "play", "player": null}',
                '{"type": "roll", "value": 9}', '{"type": "round", "hands": {}}']:
        page.fill("#raw-event", raw)
        page.click("#send-raw")
        reader.read()
    page.click("#raw-details summary")


@pytest.mark.parametrize("game", GAMES)
def test_every_form_with_empty_and_wrong_input(page: Page, server: RunningServer, game: str,
                                               tmp_path: Path) -> None:
    reader = Reader(page)
    page.click("#nav-new")
    page.click(f"[data-setup-game='{game}']")
    inputs = page.locator(".player-input")
    for i in range(inputs.count()):
        inputs.nth(i).fill("")
    page.click("#start-match")  # no players
    reader.read()
    inputs.first.fill("Ann")
    page.click("#start-match")  # one player
    reader.read()
    for _ in range(7):  # more players than any game seats
        page.click("#add-player")
    for i in range(inputs.count()):
        inputs.nth(i).fill(f"P{i}")
    if game == "collector":
        page.click("#opt-targets .deck-grid [data-target='AS']")
    page.click("#start-match")
    reader.read()
    if page.locator("#confirm-dialog[open]").count():
        page.click("#confirm-yes")
        reader.read()
    assert page.locator("#setup-error").inner_text().strip(), "too many players is refused"
    players = PLAYERS.get(game, ["Ann", "Ben", "Cy"])
    for i in range(inputs.count()):
        inputs.nth(i).fill(players[i] if i < len(players) else "")
    for card in ["2S", "3H", "4D"] if game == "collector" else []:
        page.click(f"#opt-targets .deck-grid [data-target='{card}']")
    page.click("#start-match")
    if page.locator("#confirm-dialog[open]").count():
        page.click("#confirm-yes")
    expect(page.locator("#view-table")).to_be_visible()
    expect(page.locator("#entries li")).to_have_count(0)
    walk_entry_form(page, reader)
    raw_events(page, reader)
    # Undo with nothing to undo comes from the entries only; the PIN forms.
    page.click("#nav-history")
    page.fill("#new-pin", "12")
    page.click("#change-pin")
    reader.read()
    log = tmp_path / "bad.jsonl"
    log.write_text('{"type": "setup", "game": "chess"}\n{"oops"\n', encoding="utf-8")
    page.click("#nav-new")
    page.set_input_files("#import-file", str(log))
    reader.read()
    assert reader.bad() == []
    assert len(reader.seen) > 8  # the walk did reach the messages


def test_sign_in_messages(spectator: Page) -> None:
    reader = Reader(spectator)
    spectator.click("#nav-pin")
    spectator.click("#pin-submit")  # empty
    reader.read()
    spectator.fill("#pin-input", "0000")
    spectator.click("#pin-submit")  # wrong
    reader.read()
    expect(spectator.locator("#pin-error")).to_contain_text("companion pin")
    assert reader.bad() == []
