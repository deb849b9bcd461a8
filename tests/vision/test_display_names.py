"""The camera names cards as the dashboard does: vision.decks.display_name against
companion/web/cards.js's CARDS.label, for every card of every built-in deck (run under
node, as the page's own script)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from vision.decks import DECKS, HARRY, HARRY_NAMES, deck_of, display_name

WEB = Path(__file__).resolve().parents[2] / "companion" / "web"
# The dashboard names cards per game; the camera per deck.
GAME_OF_DECK = {"standard": "collector", "star-catcher": "star-catcher",
                "star-plus": "star-plus", "cant-catch-harry": "cant-catch-harry"}

HARNESS = r"""
globalThis.window = globalThis;
require(process.argv[1] + "/cards.js");
const asked = JSON.parse(process.argv[2]);
console.log(JSON.stringify(asked.map(([game, card]) => window.CARDS.label(game, card))));
"""


def test_every_card_reads_as_the_dashboard_prints_it() -> None:
    asked = [(GAME_OF_DECK[deck], card) for deck, ids in DECKS.items() for card in ids]
    out = subprocess.run(["node", "-e", HARNESS, str(WEB), json.dumps(asked)],
                         capture_output=True, text=True, timeout=60, check=True)
    printed = json.loads(out.stdout)
    ours = [display_name(card, deck) for deck, ids in DECKS.items() for card in ids]
    differ = [(a, p, o) for a, p, o in zip(asked, printed, ours, strict=True) if p != o]
    assert differ == []
    assert "Mr. Poe" in ours and "9 of diamonds" in ours  # names, not codes


def test_every_card_id_belongs_to_one_deck() -> None:
    assert set(HARRY_NAMES) == set(HARRY)
    for deck, ids in DECKS.items():
        assert all(deck_of(card) == deck for card in ids), deck
    assert display_name("not-a-card") == "not-a-card"
