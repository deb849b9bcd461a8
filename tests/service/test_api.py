"""The JSON API through FastAPI's TestClient over a real SQLite file."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.service import Settings, create_app
from tests.service.conftest import CATCH_MAG, PIN, login

ROLL = {"type": "roll", "player": "Ann", "value": 2}
FAIL = {"type": "catch", "player": "Ann", "success": False}

WRITES: list[tuple[str, str, Any]] = [
    ("POST", "/api/matches", CATCH_MAG),
    ("POST", "/api/events", {"event": ROLL}),
    ("POST", "/api/undo", {}),
    ("PUT", "/api/matches/1/events/2", {"event": ROLL}),
    ("DELETE", "/api/matches/1/events/2", None),
    ("POST", "/api/matches/import", None),
    ("PUT", "/api/auth/pin", {"pin": "9999"}),
    ("PUT", "/api/status/board", {"link": "connected"}),
]


def test_a_spectator_can_watch_but_change_nothing(client: TestClient,
                                                  player: dict[str, str]) -> None:
    client.post("/api/matches", json=CATCH_MAG, headers=player)
    client.post("/api/events", json={"event": ROLL}, headers=player)
    before = client.get("/api/state").json()
    for method, path, body in WRITES:
        for headers in ({}, {"Authorization": "Bearer not-a-token"}):
            response = client.request(method, path, json=body, headers=headers)
            assert response.status_code == 401, (method, path)
            assert "PIN" in response.json()["detail"]
    assert client.get("/api/state").json() == before


def test_wrong_pins_are_rate_limited_per_address(client: TestClient) -> None:
    for _ in range(2):
        response = client.post("/api/auth", json={"pin": "0000"})
        assert response.status_code == 401
        assert response.json()["detail"].startswith("wrong PIN")
    third = client.post("/api/auth", json={"pin": "0000"})
    assert third.status_code == 429
    assert int(third.headers["Retry-After"]) >= 1
    # Even the right PIN must wait now.
    assert client.post("/api/auth", json={"pin": PIN}).status_code == 429


def test_a_match_is_played_through_the_api(client: TestClient, player: dict[str, str]) -> None:
    started = client.post("/api/matches", json=CATCH_MAG, headers=player)
    assert started.status_code == 201
    assert started.json()["summary"]["turn"] == "Ann"
    added = client.post("/api/events", json={"event": ROLL}, headers=player)
    assert added.status_code == 201
    body = added.json()
    assert body["entry"]["actor"] == "Ann's phone"
    assert "Ann rolls 2" in body["entry"]["text"]
    client.post("/api/events", json={"event": FAIL}, headers=player)
    state = client.get("/api/state").json()
    assert state["match"]["summary"]["turn"] == "Ben"
    assert state["seq"] == 3
    assert [e["event"] for e in state["match"]["entries"]] == [ROLL, FAIL]


def test_an_illegal_entry_is_explained_before_and_when_it_is_sent(
    client: TestClient, player: dict[str, str]
) -> None:
    client.post("/api/matches", json=CATCH_MAG, headers=player)
    wrong = {"type": "roll", "player": "Ben", "value": 3}
    check = client.post("/api/events/check", json={"event": wrong})
    assert check.status_code == 200
    assert check.json()["ok"] is False and "Ann" in check.json()["error"]
    assert client.post("/api/events/check", json={"event": ROLL}).json()["ok"] is True
    sent = client.post("/api/events", json={"event": wrong}, headers=player)
    assert sent.status_code == 422
    assert sent.json()["detail"] == check.json()["error"]
    assert client.get("/api/state").json()["match"]["entries"] == []


def test_undo_and_corrections_are_kept_in_the_history(client: TestClient,
                                                      player: dict[str, str]) -> None:
    client.post("/api/matches", json=CATCH_MAG, headers=player)
    client.post("/api/events", json={"event": ROLL}, headers=player)
    client.post("/api/events", json={"event": FAIL}, headers=player)
    ben = login(client, "Ben's phone")
    assert client.post("/api/undo", json={}, headers=ben).status_code == 200
    edit = client.put("/api/matches/1/events/2", json={"event": {**ROLL, "value": 1}}, headers=ben)
    assert edit.status_code == 200, edit.text
    history = client.get("/api/history").json()
    assert [(h["kind"], h["actor"]) for h in history] == [
        ("edit", "Ben's phone"), ("undo", "Ben's phone"), ("event", "Ann's phone"),
        ("event", "Ann's phone"), ("match", "Ann's phone"),
    ]
    assert history[0]["body"]["before"] == ROLL
    assert history[1]["body"]["event"] == FAIL
    assert client.get("/api/matches/1").json()["entries"][0]["event"]["value"] == 1


def test_export_and_import_round_trip(client: TestClient, player: dict[str, str]) -> None:
    client.post("/api/matches", json=CATCH_MAG, headers=player)
    client.post("/api/events", json={"event": ROLL}, headers=player)
    client.post("/api/events", json={"event": FAIL}, headers=player)
    exported = client.get("/api/matches/1/log.jsonl")
    assert exported.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in exported.text.splitlines()]
    assert lines == [{"type": "setup", **CATCH_MAG}, ROLL, FAIL]
    imported = client.post("/api/matches/import", content=exported.text, headers=player)
    assert imported.status_code == 201
    assert imported.json()["summary"] == client.get("/api/matches/1").json()["summary"]
    bad = client.post("/api/matches/import", content=exported.text + "{\n", headers=player)
    assert bad.status_code == 400
    assert bad.json()["detail"].startswith("line 4:")


def test_flagged_events_are_exported_as_comments(client: TestClient,
                                                 player: dict[str, str]) -> None:
    client.post("/api/matches", json=CATCH_MAG, headers=player)
    client.post("/api/events", json={"event": ROLL}, headers=player)
    client.post("/api/events", json={"event": FAIL}, headers=player)
    client.put("/api/matches/1/events/2", json={"event": {**ROLL, "value": 6}}, headers=player)
    exported = client.get("/api/matches/1/log.jsonl").text.splitlines()
    assert exported[2].startswith("# flagged (")
    assert len(exported) == 3


def test_the_table_survives_an_app_restart(settings: Settings) -> None:
    with TestClient(create_app(settings)) as first:
        headers = login(first)
        first.post("/api/matches", json=CATCH_MAG, headers=headers)
        first.post("/api/events", json={"event": ROLL}, headers=headers)
        before = first.get("/api/state").json()
    with TestClient(create_app(settings)) as second:
        assert second.get("/api/state").json() == before
        # The phone's token still works after the restart.
        assert second.get("/api/auth/whoami", headers=headers).json()["player"] is True


def test_an_earlier_unfinished_match_is_resumed_and_stays_current_after_a_restart(
        settings: Settings) -> None:
    with TestClient(create_app(settings)) as first:
        headers = login(first)
        earlier = first.post("/api/matches", json=CATCH_MAG, headers=headers).json()["id"]
        first.post("/api/events", json={"event": ROLL}, headers=headers)
        later = first.post("/api/matches", json=CATCH_MAG, headers=headers).json()["id"]
        assert first.get("/api/state").json()["current"] == later
        assert first.post(f"/api/matches/{earlier}/resume").status_code == 401  # a watcher
        resumed = first.post(f"/api/matches/{earlier}/resume", headers=headers)
        assert resumed.status_code == 200 and resumed.json()["id"] == earlier
        assert len(resumed.json()["entries"]) == 1
        assert first.post("/api/matches/999/resume", headers=headers).status_code == 404
    with TestClient(create_app(settings)) as second:
        assert second.get("/api/state").json()["current"] == earlier


def test_changing_the_pin_signs_out_other_phones(client: TestClient,
                                                 player: dict[str, str]) -> None:
    other = login(client, "Ben's phone")
    response = client.put("/api/auth/pin", json={"pin": "13579"}, headers=player)
    assert response.status_code == 200
    assert client.get("/api/auth/whoami", headers=other).json()["player"] is False
    assert client.get("/api/auth/whoami", headers=player).json()["player"] is True
    assert client.post("/api/auth", json={"pin": "13579"}).status_code == 200
    assert client.put("/api/auth/pin", json={"pin": "12"}, headers=player).status_code == 400


def test_hardware_status_reaches_the_state(client: TestClient, player: dict[str, str]) -> None:
    response = client.put("/api/status/board", json={"link": "disconnected",
                                                      "message": "USB cable unplugged"},
                          headers=player)
    assert response.status_code == 200
    status = client.get("/api/state").json()["status"]
    assert status["board"]["link"] == "disconnected"
    bad = client.put("/api/status/board", json={"link": "melted"}, headers=player)
    assert bad.status_code == 400 and "connected" in bad.json()["detail"]


def test_join_gives_an_ip_url_and_an_svg_qr_code(client: TestClient) -> None:
    join = client.get("/api/join").json()
    assert join["url"] == "http://192.168.1.20/"  # TestClient's server listens on port 80
    svg = client.get("/api/join/qr.svg")
    assert svg.headers["content-type"] == "image/svg+xml"
    assert svg.text.startswith("<svg") and "path" in svg.text


def test_the_dashboard_and_manifest_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "<html" in page.text
    manifest = client.get("/manifest.webmanifest")
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    assert manifest.json()["display"] == "standalone"
    assert client.get("/openapi.json").json()["paths"]["/api/events"]["post"]


def test_unknown_paths_and_bad_forms_get_plain_4xx(client: TestClient,
                                                   player: dict[str, str]) -> None:
    missing = client.get("/api/nowhere")
    assert missing.status_code == 404 and "nothing at /api/nowhere" in missing.json()["detail"]
    bad = client.post("/api/matches", json={"game": "chess", "players": ["A", "B"]},
                      headers=player)
    assert bad.status_code == 400 and "unknown game" in bad.json()["detail"]
    form = client.post("/api/events", json={"evnt": {}}, headers=player)
    assert form.status_code == 422
    assert "'event'" in form.json()["expected"]
    no_match = client.post("/api/events", json={"event": ROLL}, headers=player)
    assert no_match.status_code == 409 and "no match" in no_match.json()["detail"]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 40) | st.text(max_size=6)
    | st.sampled_from(["Ann", "Ben", "roll", "catch", "joker", "red", "keep", "swipe"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "player", "value", "success", "color", "use", "from",
                         "space", "joker", "event", "match", "pin", "game", "players"]),
        inner, max_size=5),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=JSON_VALUES, target=st.sampled_from([
    ("POST", "/api/events"), ("POST", "/api/events/check"), ("POST", "/api/matches"),
    ("PUT", "/api/matches/1/events/2"), ("POST", "/api/undo"), ("POST", "/api/auth"),
    ("PUT", "/api/status/camera"), ("POST", "/api/matches/import"),
]))
def test_nothing_a_client_sends_produces_a_500(
    settings_for_fuzz: tuple[TestClient, dict[str, str]], body: Any, target: tuple[str, str]
) -> None:
    client, headers = settings_for_fuzz
    method, path = target
    if path.endswith("import"):
        response = client.request(method, path, content=json.dumps(body), headers=headers)
    else:
        response = client.request(method, path, json=body, headers=headers)
    assert response.status_code < 500, response.text
    assert isinstance(response.json(), dict | list)


def test_the_rules_answer_queries_while_entering(client: TestClient,
                                                 player: dict[str, str]) -> None:
    client.post("/api/matches", json={"game": "star-catcher", "players": ["Ann", "Ben"]},
                headers=player)
    client.post("/api/events", json={"event": {"type": "table",
                                               "cards": ["D3", "C4*", "D9", "D2"]}},
                headers=player)
    catches = client.post("/api/query", json={"query": "legal-catches", "args": {"card": "D9"}})
    assert catches.json() == {"options": [["D9"], ["D2", "D3", "C4*"]], "must_catch": True}
    unknown = client.post("/api/query", json={"query": "ace-choice", "args": {}})
    assert unknown.status_code == 400 and "legal-catches" in unknown.json()["detail"]
    bad_card = client.post("/api/query", json={"query": "legal-catches", "args": {"card": "X"}})
    assert bad_card.status_code == 400
    client.post("/api/matches", json={"game": "collector", "players": ["Ann", "Ben"],
                                      "options": {"targets": ["10H", "5S", "KD", "AC"]}},
                headers=player)
    ask = {"target": "10H", "card": "AS"}
    assert client.post("/api/query", json={"query": "ace-choice", "args": ask}).json() == {
        "matters": True}
    plain = {"target": "10H", "card": "4H"}
    assert client.post("/api/query", json={"query": "ace-choice", "args": plain}).json() == {
        "matters": False}
    games = {g["id"]: g for g in client.get("/api/games").json()}
    assert len(games["collector"]["catalog"]["cards"]) == 52
    assert "M" in games["star-catcher"]["catalog"]["cards"]


def test_a_failing_disk_is_a_503_and_changes_nothing(client: TestClient,
                                                     player: dict[str, str]) -> None:
    client.post("/api/matches", json=CATCH_MAG, headers=player)
    table = client.app.state.table  # type: ignore[attr-defined]
    before = client.get("/api/state").json()
    # Make the journal read-only, as a full or failing SD card would refuse writes.
    table.store._db.execute("PRAGMA query_only = ON")
    response = client.post("/api/events", json={"event": ROLL}, headers=player)
    assert response.status_code == 503
    assert "nothing changed" in response.json()["detail"]
    assert client.get("/api/state").json() == before
    table.store._db.execute("PRAGMA query_only = OFF")
    assert client.post("/api/events", json={"event": ROLL}, headers=player).status_code == 201
