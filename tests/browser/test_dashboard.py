"""Short games of all five games played through the phone dashboard in real Chromium.

Each test enters events by tapping, sees an illegal entry explained before it
is sent, and (for some) undoes; a second phone watching shows the same scores live.
Set TC_SCREENSHOTS=docs/screenshots to refresh the screenshots in the docs.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect

from companion.games.match import Match
from tests.browser.conftest import PIN
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
    for target in targets.split():
        page.click(f"#opt-targets .deck-grid [data-target='{target}']")
    if first:
        page.select_option("#opt-seat", first)
    page.click("#start-match")
    if page.locator("#confirm-dialog[open]").count():  # a match is still running: go on
        page.click("#confirm-yes")
    expect(page.locator("#view-table")).to_be_visible()
    expect(page.locator("#entries li")).to_have_count(0)
    expect(page.locator("#entry")).to_be_visible()


def compact(value: object) -> str:
    """A value as the page writes it into data-value (JSON.stringify: no spaces)."""
    return json.dumps(value, separators=(",", ":"))


def tap(page: Page, field: str, value: object) -> None:
    page.click(f"#entry [data-field='{field}'][data-value='{compact(value)}']")


def add(page: Page, field: str, value: str) -> None:
    page.click(f"#entry [data-add='{field}'][data-value='{compact(value)}']")


def send(page: Page) -> None:
    count = page.locator("#entries li").count()
    expect(page.locator("#entry-check")).to_have_class("check ok")
    page.click("#send")
    expect(page.locator("#entries li")).to_have_count(count + 1)


def expect_refused(page: Page, words: str) -> None:
    check = page.locator("#entry-check")
    expect(check).to_have_class("check error")
    expect(check).to_contain_text(words, ignore_case=True)
    expect(page.locator("#send")).to_be_disabled()


def total(page: Page, player: str) -> str:
    return f"#scoreboard td.total[data-player='{player}']"


def screenshot(page: Page, name: str, tmp_path: Path, at: str = "", toast: bool = False) -> None:
    """A phone-size picture for the docs; ``at``: a selector scrolled to the top first;
    ``toast``: keep the note at the foot of the screen."""
    folder = Path(os.environ.get("TC_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    if at:
        page.evaluate("s => window.scrollTo(0, document.querySelector(s).getBoundingClientRect()"
                      ".top + window.scrollY - 60)", at)
    else:
        page.evaluate("window.scrollTo(0, 0)")
    if not toast:
        page.evaluate("(document.getElementById('toast') || {classList: new Set()})"
                      ".classList.add('hidden')")
    # the forms' check answers have landed (each visible one says how it stands): the picture
    page.wait_for_function("[...document.querySelectorAll('#entry-check, #fix-check')].every("
                           "e => !e.offsetParent || /\\b(ok|error|missing|waiting)\\b/"
                           ".test(e.className))")
    page.screenshot(path=str(folder / f"{name}.png"))


def fix(page: Page, entry_number: int) -> None:
    """Open the tap form for the entry_number-th event (1 = the first entered)."""
    page.locator("#entries li").nth(-entry_number).locator("[data-fix]").click()
    expect(page.locator("#fix-dialog")).to_be_visible()


def fix_tap(page: Page, field: str, value: object) -> None:
    page.click(f"#fix-form [data-field='{field}'][data-value='{compact(value)}']")


def save_fix(page: Page) -> None:
    expect(page.locator("#fix-check")).to_have_class("check ok")
    page.click("#fix-save")
    expect(page.locator("#fix-dialog")).to_be_hidden()


def test_catch_mag_with_undo_correction_and_a_watching_phone(page: Page, spectator: Page,
                                                             tmp_path: Path) -> None:
    start_match(page, "catch-mag", ["Ann", "Ben"])
    expect(spectator.locator("#turn-name")).to_have_text("Ann")
    # Only the legal events are offered: six dice, then caught (with the row colours) or not.
    expect(page.locator("#entry button.die")).to_have_count(6)
    tap(page, "value", 2)
    send(page)
    expect(page.locator("#cm-expected")).to_contain_text("catch")
    expect(page.locator("#type-choices .sel")).to_have_text("Catch")
    tap(page, "success", True)
    expect(page.locator("#entry [data-key='color'] button")).to_have_count(5)
    tap(page, "color", "red")
    screenshot(page, "catch-mag-entry", tmp_path, at="#entry")
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
    # Correct the first roll with the same tap form, prefilled: the events after it no
    # longer fit and are flagged with their reason, not dropped.
    fix(page, 1)
    expect(page.locator("#fix-form [data-field='value'].sel")).to_have_text("⚁ 2")
    fix_tap(page, "value", 6)
    expect(page.locator("#fix-check")).to_contain_text("2 later events will no longer fit")
    screenshot(page, "correction", tmp_path)
    save_fix(page)
    expect(spectator.locator("#entries li.flagged")).to_have_count(2)
    expect(spectator.locator("#entries li")).to_have_count(3)
    expect(page.locator("#entries li.flagged .flag-reason").first).to_contain_text("no longer fits")
    expect(page.locator("#flag-banner")).to_contain_text("2 events no longer fit")
    screenshot(page, "catch-mag-flagged", tmp_path)
    # The banner opens the first flagged event in the tap form, with the reason.
    page.click("#flag-banner")
    expect(page.locator("#fix-was")).to_contain_text("No longer fits")
    page.click("#fix-cancel")
    fix(page, 1)
    fix_tap(page, "value", 2)
    save_fix(page)
    expect(spectator.locator("#entries li.flagged")).to_have_count(0)
    # Delete a middle event with one tap: Ben's roll comes back flagged, then is undone.
    page.locator("#entries li").nth(-2).locator("[data-delete]").click()
    expect(spectator.locator("#entries li.flagged")).to_have_count(1)
    page.locator("#entries li").first.locator("[data-delete]").click()
    expect(spectator.locator("#entries li")).to_have_count(1)
    tap(page, "success", False)
    send(page)
    # Play on to the end: Ann keeps red rods, Ben blue; the first to five wins. A kept
    # joker ball is spent once, before a roll, on one of the swipes the rules offer.
    used_joker = False
    for _ in range(60):
        if page.locator("#turn").inner_text().endswith("wins"):
            break
        page.wait_for_selector("#type-choices[data-legal]")  # the rules have answered
        use_joker = page.locator("#entry [data-type='use-joker']:not(.dim)")
        if not used_joker and use_joker.count():
            use_joker.click()
            for field in ["joker", "from", "color"]:
                page.locator(f"#entry [data-field='{field}']").first.click()
            send(page)
            expect(page.locator("#last-text")).to_contain_text("swipe")
            used_joker = True
            continue
        pending = page.locator("#type-choices .sel").inner_text()
        colour = "red" if page.inner_text("#turn-name") == "Ann" else "blue"
        if pending == "Roll":
            tap(page, "value", 1)
        elif pending == "Joker ball":
            tap(page, "use", "keep")
        elif pending == "Super joker":
            page.locator("#entry [data-field='space']").first.click()
            tap(page, "color", colour)
        else:
            assert pending == "Catch"
            tap(page, "success", True)
            tap(page, "color", colour)
        send(page)
    expect(spectator.locator("#turn")).to_contain_text("wins")
    assert used_joker
    screenshot(page, "catch-mag", tmp_path)
    page.click("#nav-history")
    expect(page.locator("#changes")).to_contain_text("undid Ann's catch")
    expect(page.locator("#changes")).to_contain_text("corrected Ann's roll")
    expect(page.locator("#changes")).to_contain_text("deleted Ann's catch")
    assert page.js_errors == []  # type: ignore[attr-defined]


def compose(page: Page, key: str, *parts: tuple[str, object], root: str = "#entry") -> None:
    for part, value in parts:
        page.click(f"{root} [data-compose='{key}'][data-part='{part}'][data-value='{value}']")


def test_star_catcher_card_composer_and_legal_catches(page: Page, spectator: Page,
                                                      tmp_path: Path) -> None:
    start_match(page, "star-catcher", ["Ann", "Ben"])
    # The table cards: two composed (shape, number, stars), two from the common cards.
    compose(page, "cards", ("shape", "D"), ("number", 3))
    page.click("#entry [data-add='cards'].big")
    compose(page, "cards", ("shape", "C"), ("number", 4), ("stars", 1))
    page.click("#entry [data-add='cards'].big")
    add(page, "cards", "D9")
    add(page, "cards", "D2")
    expect(page.locator("#entry .picked")).to_contain_text("4/4")
    send(page)
    expect(spectator.locator("#sc-table .cf")).to_have_count(4)
    tap(page, "card", "C9**")
    # Two ways to catch with a 9: the player picks one; catching nothing is refused.
    expect(page.locator("#entry [data-field='take']")).to_have_count(2)
    expect_refused(page, "must catch")
    tap(page, "take", ["D9"])
    screenshot(page, "star-catcher-entry", tmp_path, at="#entry")
    send(page)
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("0")
    expect(spectator.locator("#sc-table .cf")).to_have_count(3)
    # Ben's D7, composed: it can only take D3 + C4*, offered alone and already chosen.
    compose(page, "card", ("shape", "D"), ("number", 7))
    tap(page, "player", "Ann")
    expect_refused(page, "Ben")
    tap(page, "player", "Ben")
    expect(page.locator("#entry [data-field='take']")).to_have_count(1)
    expect(page.locator("#entry [data-field='take'].sel")).to_have_attribute(
        "data-value", compact(["D3", "C4*"]))
    expect(page.locator("#entry [data-field='take'].sel .cf")).to_have_count(2)
    send(page)
    expect(spectator.locator("#sc-table .cf")).to_have_count(1)
    # A Magnet: nothing to choose, it takes every Diamond.
    compose(page, "card", ("shape", "M"))
    expect(page.locator("#entry [data-key='take']")).to_contain_text("every Diamond")
    expect(page.locator("#entry [data-key='take'] .cf[aria-label='Diamond 2']")).to_have_count(1)
    send(page)
    expect(spectator.locator("#sc-table .cf")).to_have_count(0)
    # A card not in the simulation deck (a real deck's D17 with three stars): nothing to catch.
    compose(page, "card", ("shape", "D"))
    page.fill("#entry [data-compose-number='card']", "17")
    compose(page, "card", ("stars", 3))
    expect(page.locator("#entry .composed .cf")).to_have_attribute("aria-label",
                                                                  "Diamond 17, 3 stars")
    expect(page.locator("#entry [data-key='take']")).to_contain_text("Nothing to catch")
    send(page)
    expect(spectator.locator("#sc-table .cf")).to_have_attribute("aria-label",
                                                                 "Diamond 17, 3 stars")
    page.click("#undo")
    expect(spectator.locator("#sc-table .cf")).to_have_count(0)
    # Correct Ann's first catch to the sum: Ben's D7 then has nothing to take and is
    # flagged, and so is Ann's Magnet after it (no longer her turn).
    fix(page, 2)
    expect(page.locator("#fix-form [data-field='take'].sel")).to_have_attribute(
        "data-value", compact(["D9"]))
    fix_tap(page, "take", ["D2", "D3", "C4*"])
    expect(page.locator("#fix-check")).to_contain_text("2 later events will no longer fit")
    save_fix(page)
    expect(spectator.locator("#entries li.flagged")).to_have_count(2)
    page.click("#flag-banner")
    expect(page.locator("#fix-form [data-key='take']")).to_contain_text("Nothing to catch")
    save_fix(page)
    expect(spectator.locator("#entries li.flagged")).to_have_count(0)
    expect(spectator.locator("#sc-table .cf")).to_have_count(0)
    screenshot(page, "star-catcher", tmp_path)
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_star_plus_target_black_hole_and_a_correction(page: Page, spectator: Page,
                                                      tmp_path: Path,
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
    screenshot(page, "star-plus-entry", tmp_path, at="#entry")
    send(page)
    expect(spectator.locator("#sp-hole")).to_have_text("OPEN")
    page.click("#entry [data-type='draw']")
    send(page)
    expect(spectator.locator("#sp-hole")).to_have_text("—")
    # Correct Ann's opening 1 to 3 + -2 (still 1): nothing after it changes.
    fix(page, 1)
    expect(page.locator("#fix-form .picked [aria-label='Take out 1']")).to_have_count(1)
    page.click("#fix-form [data-remove='cards']")
    for card in ["3", "-2"]:
        page.click(f"#fix-form [data-add='cards'][data-value='{compact(card)}']")
    expect(page.locator("#fix-check")).not_to_contain_text("no longer fit")
    save_fix(page)
    expect(spectator.locator("#entries li").last).to_contain_text("3")
    expect(spectator.locator("#entries li.flagged")).to_have_count(0)
    expect(spectator.locator("#sp-target")).to_have_text("3")
    screenshot(page, "star-plus", tmp_path)
    assert page.js_errors == []  # type: ignore[attr-defined]


def enter_round(page: Page, hands: dict[str, list[str]], moths: dict[str, str],
                root: str = "#entry") -> None:
    for player, cards in hands.items():
        page.click(f"{root} [data-hand-player='hands'][data-player='{player}']")
        for card in cards:
            page.click(f"{root} [data-hand-add='hands'][data-value='{compact(card)}']")
    for player, moth in moths.items():
        page.click(f"{root} [data-moth='moths'][data-player='{player}'][data-value='{moth}']")


def test_cant_catch_harry_played_to_eleven(page: Page, spectator: Page, tmp_path: Path) -> None:
    start_match(page, "cant-catch-harry", ["Ann", "Ben", "Cy"])
    harry_set = {"Ann": ["harry"] * 4, "Ben": ["fox", "james", "mom", "teacher"],
                 "Cy": ["mom", "twin", "furry", "hunters"]}  # hands of 4 (or 5 mid-pass)
    # Four at once with the set button; a fifth Harry card does not exist: not offered.
    page.click("#entry [data-hand-player='hands'][data-player='Ann']")
    page.click("#entry [data-times='4']")
    page.click(f"#entry [data-hand-add='hands'][data-value='{compact('harry')}']")
    expect(page.locator(f"#entry [data-hand-add='hands'][data-value='{compact('harry')}']")
           ).to_be_disabled()
    enter_round(page, {p: c for p, c in harry_set.items() if p != "Ann"},
                {"Ann": "harry", "Ben": "lamp"})
    # Moths already on the mat are not offered twice: Cy cannot take Harry or the Lamp.
    for taken in ["harry", "lamp"]:
        cy_moth = page.locator(f"#entry [data-moth][data-player='Cy'][data-value='{taken}']")
        expect(cy_moth).to_be_disabled()
    page.click("#entry [data-moth][data-player='Cy'][data-value='cream']")
    # Three players: Harry, the Lamp and one more moth on the mat, so once Cy has grabbed
    # Cray Cray, nobody else can have grabbed Chubs.
    expect(page.locator("#entry [data-moth][data-player='Ann'][data-value='grey']")
           ).to_be_disabled()
    expect(page.locator("#entries li")).to_have_count(0)
    screenshot(page, "cant-catch-harry-entry", tmp_path, at="#entry")
    send(page)
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("6")
    # A round where nobody holds a set is explained before it can be sent.
    enter_round(page, {"Ann": ["fox", "fox", "mom", "twin"],
                       "Ben": ["mom", "james", "twin", "furry"],
                       "Cy": ["devil", "hunters", "teacher", "evil-bird"]},
                {"Ann": "harry", "Ben": "lamp", "Cy": "grey"})
    expect_refused(page, "no hand holds a set")
    page.click("#clear-entry")
    enter_round(page, {"Ann": ["mom", "twin", "james", "furry"], "Ben": ["fox"] * 4,
                       "Cy": ["devil", "hunters", "teacher", "evil-bird"]},
                {"Ann": "lamp", "Ben": "harry", "Cy": "grey"})
    send(page)
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("5")
    page.click("#undo")
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("6")
    enter_round(page, {"Ann": ["mom", "twin", "james", "furry"], "Ben": ["fox"] * 4,
                       "Cy": ["devil", "hunters", "teacher", "evil-bird"]},
                {"Ann": "lamp", "Ben": "harry", "Cy": "grey"})
    send(page)
    # Correct round 1 with the tap form: Cy had Chubs, not Cray Cray.
    fix(page, 1)
    expect(page.locator("#fix-form [data-moth][data-player='Cy'].sel")).to_have_text("Cray Cray")
    expect(page.locator("#fix-form .hand-row").first).to_contain_text("4/5")
    page.click("#fix-form [data-moth][data-player='Cy'][data-value='grey']")
    save_fix(page)
    expect(spectator.locator(total(spectator, "Cy"))).to_have_text("1")  # 2 - 1 before
    enter_round(page, harry_set, {"Ann": "harry", "Ben": "lamp", "Cy": "cream"})
    send(page)
    expect(spectator.locator(total(spectator, "Ann"))).to_have_text("11")
    expect(spectator.locator("#turn")).to_contain_text("Ann wins")
    expect(page.locator("#entry")).to_contain_text("The match is over")
    screenshot(page, "cant-catch-harry", tmp_path)
    assert page.js_errors == []  # type: ignore[attr-defined]


def card(page: Page, key: str, name: str, root: str = "#entry") -> None:
    """Tap a Collector card: its rank, then its suit."""
    compose(page, key, ("rank", name[:-1]), ("suit", name[-1]), root=root)


def test_collector_flip_aces_refill_and_the_reveal(
    page: Page, spectator: Page, tmp_path: Path, server: RunningServer
) -> None:
    start_match(page, "collector", ["Ann", "Ben"], targets="10H 5S KD AC", first="Ben")
    expect(spectator.locator("#turn-name")).to_have_text("Ben")
    tap(page, "target", "10H")
    card(page, "card", "5D")
    expect(page.locator("#entry .hint")).to_contain_text("exactly half")
    expect(page.locator("#entry [data-key='flip']")).to_have_count(0)  # nothing face down yet
    expect(page.locator("#entry [data-key='aces']")).to_have_count(0)
    send(page)
    expect(spectator.locator("#co-targets .cf[aria-label='10 of hearts']")).to_have_count(0)
    tap(page, "target", "AC")
    card(page, "card", "2C")
    expect(page.locator("#entry [data-key='aces']")).to_have_count(1)
    page.click("#entry [data-ace='AC'][data-value='1']")
    expect(page.locator("#entry .hint")).to_contain_text("one higher, same suit")
    send(page)
    # Ben's Ace as 1 on the 2 is exactly half, and he has a face-down card: flip is asked.
    tap(page, "target", "2C")
    card(page, "card", "AH")
    page.click("#entry [data-ace='AH'][data-value='1']")
    expect(page.locator("#entry [data-key='flip'] button")).to_have_count(1)
    expect_refused(page, "face up")
    tap(page, "flip", "10H")
    send(page)
    # A second card that does not make the sum is explained before it is sent.
    tap(page, "target", "KD")
    card(page, "card", "2S")
    page.click("#entry [data-open='second']")
    card(page, "second", "3S")
    expect_refused(page, "add up")
    page.click("#clear-entry")
    # An equal card: the table is refilled, and the phone asks which card was turned up.
    for attempt in range(2):
        tap(page, "target", "5S")
        card(page, "card", "5H")
        expect(page.locator("#entry [data-key='refill']")).to_contain_text("Turn up 1 new target")
        card(page, "refill", "9C")
        screenshot(page, "collector-entry", tmp_path, at="#entry")
        send(page)
        expect(spectator.locator("#co-targets .cf[aria-label='9 of clubs']")).to_have_count(1)
        if attempt == 0:
            page.click("#undo")
            expect(spectator.locator("#co-targets .cf[aria-label='9 of clubs']")).to_have_count(0)
    # Correct Ann's Ace: as 14 the 2C is lower, so the Ace goes face down instead.
    fix(page, 2)
    expect(page.locator("#fix-form [data-ace='AC'].sel")).to_have_text("as 1")
    page.click("#fix-form [data-ace='AC'][data-value='14']")
    expect(page.locator("#fix-form .hint")).to_contain_text("face down")
    save_fix(page)
    expect(spectator.locator("#entries li").nth(-2)).to_contain_text("face down")
    expect(spectator.locator("#entries li.flagged")).to_have_count(0)
    # Play on quickly through the API to the end of the game, then reveal on the phone.
    with httpx.Client(base_url=server.url) as http:
        token = http.post("/api/auth", json={"pin": PIN, "name": "bot"}).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        match_id = http.get("/api/state").json()["current"]
        log = http.get(f"/api/matches/{match_id}/log.jsonl").text.splitlines()
        local = Match.from_events(json.loads(line) for line in log)
        rng = random.Random(7)
        while not local.summary()["awaiting_reveal"]:
            event = local.random_event(rng)
            local.push(event)
            response = http.post("/api/events", json={"event": event}, headers=headers)
            assert response.status_code == 201, response.text
        unseen = http.post("/api/query", json={"query": "unseen", "args": {}}).json()["cards"]
    expect(spectator.locator("#turn")).to_contain_text("reveal the hands")
    expect(page.locator("#entry [data-key='hands']")).to_contain_text("Cards left in every hand")
    counts = local.summary()["hand_counts"]
    for player in [p for p in ["Ann", "Ben"] if counts[p]]:
        expect(page.locator("#entry .hand-row.on")).to_contain_text(player)
        for _ in range(counts[player]):
            card(page, "hands", unseen.pop())
    screenshot(page, "collector-reveal", tmp_path, at="#entry")
    send(page)
    expect(spectator.locator("#turn")).to_contain_text("Match over")
    expect(spectator.locator("#last-text")).to_contain_text("Hands revealed")
    expect(spectator.locator("#last-text")).not_to_contain_text("[")  # lists in words
    expect(page.locator("#entry")).to_contain_text("The match is over")
    screenshot(page, "collector", tmp_path)
    page.click("#nav-join")
    expect(page.locator("#join-url")).to_have_text(f"http://192.168.1.20:{server.server.bound_port}/")
    expect(page.locator("#qr")).to_have_js_property("complete", True)
    assert page.locator("#qr").evaluate("img => img.naturalWidth") > 0
    screenshot(page, "join", tmp_path)
    assert page.js_errors == []  # type: ignore[attr-defined]
