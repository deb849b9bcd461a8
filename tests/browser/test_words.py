"""Words for players: every form of every game is walked with empty and wrong input, and
no message a player can read names a field, says "null" or shows JSON or an id; the
engines' lines (history, last event, undo and redo, flagged events, corrections) name
cards or draw them, never by their codes ("C9**", "AH", "baby-james")."""

from __future__ import annotations

import random
import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from companion.games.match import Match
from tests.browser.tables import GAMES, PLAYERS, play, token
from tests.service.conftest import RunningServer

FORBIDDEN = ["missing field", "field '", "setup '", "null", "undefined", "NaN", "[object",
             "[", "]", "{", "}", "got ", "Bearer", "/api/", "_", "Traceback", "'type'",
             "cant-catch-harry", "star-catcher", "star-plus", "catch-mag", "POST", "token"]
# Card codes as the engines write them: a player reads card names or card faces instead.
CARD_CODES = {
    "star-catcher": r"(?<![\w*])(?:[DC][1-9][0-9]?\**|M)(?![\w*])",
    "collector": r"(?<![\w-])(?:A|[2-9]|10|J|Q|K)[SHDC](?!\w)",
    "star-plus": r"(?<![\w-])Z(?!\w)",
    "cant-catch-harry": r"\b(?:baby-james|evil-bird|mr-poe|sandwich-artist)\b|set of [a-z]",
}
MESSAGES = ["#entry-check", "#entries", "#fix-was", "#entry .hint", "#setup-error",
            "#pin-error", "#pin-result", "#import-result", "#raw-error", "#toast-text",
            "#fix-check", "#last-text", "#next", "#turn",
            "#entry .error", "#entry .pill", "#entry-form button", "#fix-form button"]
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


# An element's text as a player reads it: a card face counts as its name (its label).
AS_READ = """(el) => {
  const copy = el.cloneNode(true);
  for (const face of copy.querySelectorAll(".cf[aria-label]")) {
    face.replaceWith(" " + face.getAttribute("aria-label") + " ");
  }
  for (const hidden of copy.querySelectorAll("[aria-hidden=true]")) hidden.remove();
  return copy.textContent;
}"""


class Reader:
    """Collects every message shown, and the fragments that should not be in them."""

    def __init__(self, page: Page, game: str = "") -> None:
        self.page = page
        self.game = game
        self.seen: set[str] = set()

    def read(self) -> None:
        self.page.wait_for_timeout(250)  # the check is asked 100 ms after a tap
        for selector in MESSAGES:
            for text in self.page.locator(selector).evaluate_all(f"els => els.map({AS_READ})"):
                if text.strip():
                    self.seen.add(" ".join(text.split()))

    def bad(self) -> list[str]:
        found = [f"{fragment!r} in {text!r}" for text in self.seen
                 for fragment in FORBIDDEN if fragment in text]
        code = CARD_CODES.get(self.game)
        if code:
            found += [f"card code {m.group(0)!r} in {text!r}" for text in self.seen
                      for m in [re.search(code, text)] if m]
        return sorted(found)


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
    reader = Reader(page, game)
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


def flag_later_events(url: str, match: Match) -> bool:
    """Correct an early event so that later ones no longer fit (through the API); whether a
    correction that flags some was found."""
    headers = token(url)
    with httpx.Client(base_url=url, headers=headers) as http:
        state = http.get("/api/state").json()["match"]
        entries = state["entries"]
        rng = random.Random(1)
        for index in range(min(4, len(entries) - 1)):
            before = Match.from_events([match.log()[0], *(e["event"] for e in entries[:index])])
            base = f"/api/matches/{state['id']}/events/{entries[index]['id']}"
            for _ in range(12):
                event = before.random_event(rng)
                check = http.post(base + "/check", json={"event": event}).json()
                if check.get("ok") and check.get("flagged"):
                    response = http.put(base, json={"event": event})
                    assert response.status_code == 200, response.text
                    return True
    return False


@pytest.mark.parametrize("game", GAMES)
def test_engine_lines_name_the_cards(page: Page, server: RunningServer, game: str) -> None:
    """A match a few turns in: its history, last event, check line, undo and redo notes,
    flagged events and the correction dialog show card names or faces, not codes."""
    reader = Reader(page, game)
    match = play(server.url, game, 3 if game == "cant-catch-harry" else 10, seed=7)
    assert not match.finished
    expect(page.locator("#entries li")).to_have_count(len(match))
    reader.read()
    assert any(re.search(r"\w", text) for text in reader.seen)
    walk_entry_form(page, reader)  # the check line of a legal draft is an engine's line too
    page.click("#undo")
    expect(page.locator("#toast-text")).to_contain_text("Undone")
    reader.read()
    page.click("#toast-action")  # Redo
    expect(page.locator("#toast-text")).to_contain_text("Back again")
    reader.read()
    if flag_later_events(server.url, match):
        expect(page.locator("#entries li.flagged").first).to_be_visible()
        reader.read()
        page.locator("#entries li.flagged [data-fix]").first.click()
        expect(page.locator("#fix-was")).to_contain_text("No longer fits")
        reader.read()
        page.click("#fix-cancel")
    page.locator("#entries li:not(.flagged) [data-fix]").last.click()
    expect(page.locator("#fix-was")).to_contain_text("Was")
    reader.read()
    page.click("#fix-cancel")
    assert reader.bad() == []
    if game in ("star-catcher", "collector"):
        assert page.locator("#entries .cf-in").count() > 0, "the history draws card faces"
