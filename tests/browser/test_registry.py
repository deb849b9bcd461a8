"""The dashboard's games registry: each game's panel, forms and field kinds in its own
module (companion/web/games/<game>.js), so a sixth game touches one place.

The scripts run under node (no browser needed): they are plain scripts on ``window``.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from companion.games import GAME_IDS

WEB = Path(__file__).resolve().parents[2] / "companion" / "web"
MODULES = sorted((WEB / "games").glob("*.js"))

# Loads the dashboard's scripts in page order, notes which module registered what, then
# adds a sixth game from outside and uses its own field kind through the generic form.
HARNESS = r"""
globalThis.window = globalThis;
globalThis.document = {getElementById: () => null};
const web = process.argv[1];
const modules = JSON.parse(process.argv[2]);
for (const f of ["words.js", "cards.js", "games.js"]) require(web + "/" + f);
const registered = {};
for (const m of modules) {
  const before = new Set(Object.keys(window.GAMES));
  require(web + "/games/" + m);
  registered[m] = Object.keys(window.GAMES).filter((g) => !before.has(g));
}
require(web + "/forms.js");
const kinds = window.GAME_REGISTRY.kinds;
const used = {};
for (const [id, game] of Object.entries(window.GAMES)) {
  used[id] = [];
  for (const [type, fields] of Object.entries(game.types)) {
    for (const f of fields) {
      used[id].push([type, f.key, f.kind, kinds[f.kind] ? kinds[f.kind].game : null]);
    }
  }
}
const tapped = [];
window.GAME_REGISTRY.register("sixth-game", {
  panel: () => "", types: {play: [{key: "player", kind: "player", label: "Player"},
                                  {key: "tile", kind: "sixth-tile", label: "Tile"}]},
  kinds: {"sixth-tile": {
    draw: (form, f, {wrap}) => wrap(form.buttons(f.key, ["A", "B"], form.draft[f.key])),
    taps: {spin(form, ds) { tapped.push(ds.spin); form.draft.tile = ds.spin; return true; }},
  }},
});
let twice = null;
try {
  const again = {panel: () => "", types: {}, kinds: {"sixth-tile": {}}};
  window.GAME_REGISTRY.register("other-game", again);
} catch (e) { twice = e.message; }
const summary = {players: ["Ann", "Ben"], turn: "Ann"};
const ui = {snap: {match: {id: 1, game: "sixth-game", summary}, games: []}, color: () => "#fff"};
const api = async () => ({ok: true, data: {}});
const form = new window.TableForms.Form("entry", ui, api, {root: "x"});
form.start("play");
const drawn = form.fields().map((f) => form.field(f, summary));
const handled = form.tap({dataset: {spin: "B"}});
console.log(JSON.stringify({registered, used, basic: Object.keys(window.TableForms.BASIC_KINDS),
  drawn, handled, tapped, draft: form.draft, built: form.build(), twice}));
"""


@pytest.fixture(scope="module")
def registry() -> dict[str, Any]:
    out = subprocess.run(["node", "-e", HARNESS, str(WEB), json.dumps([m.name for m in MODULES])],
                         capture_output=True, text=True, timeout=60, check=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def test_every_game_is_one_module_named_after_it(registry: dict[str, Any]) -> None:
    assert registry["registered"] == {f"{g}.js": [g] for g in GAME_IDS}


def test_a_game_draws_its_fields_with_its_own_kinds_or_the_shared_ones(
        registry: dict[str, Any]) -> None:
    for game, fields in registry["used"].items():
        for event_type, key, kind, owner in fields:
            assert owner == game or kind in registry["basic"], (game, event_type, key, kind)


def test_a_sixth_game_needs_no_change_to_the_forms(registry: dict[str, Any]) -> None:
    drawn = "".join(registry["drawn"])
    assert 'data-field="tile"' in drawn and 'data-value="&quot;B&quot;"' in drawn
    assert 'data-field="player"' in drawn  # the shared kind, with the player whose turn it is
    assert registry["handled"] is True and registry["tapped"] == ["B"]
    assert registry["built"] == {"type": "play", "player": "Ann", "tile": "B"}
    assert registry["twice"] is not None and "sixth-game" in registry["twice"]


def test_the_shared_scripts_name_no_game() -> None:
    for name in ["forms.js", "app.js", "display.js"]:
        text = (WEB / name).read_text(encoding="utf-8")
        named = [g for g in GAME_IDS if g in text]
        assert named == [], f"{name} names {named}: that belongs in games/<game>.js"


@pytest.mark.parametrize("page", ["index.html", "display.html"])
def test_every_game_module_is_loaded_between_the_registry_and_the_forms(page: str) -> None:
    scripts = re.findall(r'<script src="/static/([^"]+)"', (WEB / page).read_text("utf-8"))
    modules = [s for s in scripts if s.startswith("games/")]
    assert sorted(modules) == [f"games/{m.name}" for m in MODULES]
    first, last = scripts.index(modules[0]), scripts.index(modules[-1])
    assert scripts.index("games.js") < first
    assert "forms.js" not in scripts or last < scripts.index("forms.js")
    assert scripts[first:last + 1] == modules  # one block
