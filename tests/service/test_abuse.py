"""What a player or a guest on the café Wi-Fi can send, and what the table does with it
(issue 12): no poisoned table, no frozen phone, no 500."""

from __future__ import annotations

import gzip
import json
import socket
import sqlite3
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from companion import strictjson
from companion.games import GAME_IDS, rules_for
from companion.service import Settings, create_app
from companion.service.schema import EVENT_FIELDS, SETUP_FIELDS, check_fields
from tests.playouts import random_match
from tests.service.conftest import CATCH_MAG, RunningServer, login

ROLL = {"type": "roll", "player": "Ann", "value": 2}


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"x": value}
    return value


def start(client: TestClient, player: dict[str, str]) -> None:
    assert client.post("/api/matches", json=CATCH_MAG, headers=player).status_code == 201


def every_view_answers(client: TestClient, player: dict[str, str]) -> None:
    state = client.get("/api/state")
    assert state.status_code == 200
    match_id = state.json()["current"]
    assert client.get(f"/api/matches/{match_id}").status_code == 200
    assert client.get("/api/history").status_code == 200


# -- defect 1: one event poisons the table ---------------------------------------------------


def test_an_extra_field_nested_300_deep_is_refused_and_the_table_goes_on(
    client: TestClient, player: dict[str, str]
) -> None:
    start(client, player)
    body = '{"event": {"type": "roll", "player": "Ann", "value": 2, "x": ' + \
        "[" * 300 + "]" * 300 + "}}"
    response = client.post("/api/events", content=body, headers={
        **player, "Content-Type": "application/json"})
    assert response.status_code == 400
    assert "nested more than" in response.json()["detail"]
    shallow = client.post("/api/events", json={"event": {**ROLL, "x": [[1]]}}, headers=player)
    assert shallow.status_code == 400
    assert "unknown field 'x'" in shallow.json()["detail"]
    every_view_answers(client, player)
    assert client.get("/api/state").json()["match"]["entries"] == []


def test_a_journal_poisoned_by_an_older_version_loads_and_answers(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        player = login(client)
        start(client, player)
        client.post("/api/events", json={"event": ROLL}, headers=player)
        match_id = client.get("/api/state").json()["current"]
    # What the older version committed: a legal roll with a 300-deep extra and a NaN note.
    poisoned = json.dumps({"match": match_id, "event": {
        **ROLL, "player": "Ben", "x": nested(300), "note": float("nan")}})
    with sqlite3.connect(settings.database) as db:
        db.execute("INSERT INTO journal (at, actor, kind, body) VALUES ('t', 'old', 'event', ?)",
                   (poisoned,))
    with TestClient(create_app(settings)) as client:
        player = login(client)
        every_view_answers(client, player)
        entry = client.get("/api/state").json()["match"]["entries"][-1]
        assert entry["event"] == {**ROLL, "player": "Ben"}
        assert client.post("/api/undo", json={}, headers=player).status_code == 200


# -- defect 2: one NaN freezes every phone ------------------------------------------------------


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_numbers_are_refused_by_the_api(client: TestClient, player: dict[str, str],
                                            value: str) -> None:
    start(client, player)
    body = '{"event": {"type": "roll", "player": "Ann", "value": 2, "note": ' + value + "}}"
    response = client.post("/api/events", content=body,
                           headers={**player, "Content-Type": "application/json"})
    assert response.status_code == 400
    assert "finite number" in response.json()["detail"]
    assert client.get("/api/state").json()["match"]["entries"] == []


def test_the_api_and_replay_refuse_the_same_text(tmp_path: Path) -> None:
    line = '{"type": "setup", "game": "catch-mag", "players": ["A", "B"], "note": NaN}'
    with pytest.raises(strictjson.StrictJSONError) as api_error:
        strictjson.loads(line)
    from companion.tablelog import LogError, replay_text
    with pytest.raises(LogError) as replay_error:
        replay_text(line)
    assert str(api_error.value) in str(replay_error.value)


def test_a_note_is_kept_bounded_and_every_frame_is_strict_json(
    client: TestClient, player: dict[str, str]
) -> None:
    start(client, player)
    ok = client.post("/api/events", json={"event": {**ROLL, "note": "re-rolled"}},
                     headers=player)
    assert ok.status_code == 201
    assert ok.json()["entry"]["event"]["note"] == "re-rolled"
    long = client.post("/api/events", json={"event": {**ROLL, "note": "x" * 201}},
                       headers=player)
    assert long.status_code == 400 and "note" in long.json()["detail"]
    # What the live stream sends is parsed by the strict reader, as a browser would.
    strictjson.loads(json.dumps(client.get("/api/state").json()))


@pytest.mark.parametrize("body", [
    '{"event": {"type": "roll", "player": "Ann", "value": 2, "note": "\\ud800"}}',
    '{"event": ' + "1" * 5000 + "}",
    '{"event": {"type": "roll"',
    "\xff\xfe",
])
def test_malformed_bodies_are_400_never_500(client: TestClient, player: dict[str, str],
                                            body: str) -> None:
    start(client, player)
    response = client.post("/api/events", content=body.encode("utf-8", "surrogatepass"),
                           headers={**player, "Content-Type": "application/json"})
    assert response.status_code in (400, 422), response.text
    assert "detail" in response.json()


def test_the_schema_admits_every_event_the_engines_make() -> None:
    for game in GAME_IDS:
        assert set(rules_for(game).event_types) == set(EVENT_FIELDS[game]), game
        assert game in SETUP_FIELDS
        for seed in range(4):
            match, _ = random_match(game, seed)
            for event in match.log():
                check_fields(event, game)


# -- defect 3: the body limit read only Content-Length --------------------------------------


def chunked_post(url: str, path: str, total: int, chunk: int = 65_536) -> tuple[int, int]:
    """POST ``total`` bytes chunked on a raw socket, no token; the status and the bytes
    the server let through before it answered."""
    host, port = url.removeprefix("http://").split(":")
    sent = 0
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                     "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                     .encode())
        sock.setblocking(False)
        block = f"{chunk:x}\r\n".encode() + b"[" * chunk + b"\r\n"
        answer = b""
        deadline = time.monotonic() + 30
        while sent < total and time.monotonic() < deadline:
            try:
                answer += sock.recv(65_536)
                if answer:
                    break
            except BlockingIOError:
                pass
            try:
                sock.sendall(block)
                sent += chunk
            except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                time.sleep(0.01)
        sock.setblocking(True)
        sock.settimeout(5)
        try:
            while b"\r\n\r\n" not in answer:
                data = sock.recv(65_536)
                if not data:
                    break
                answer += data
        except OSError:
            pass
    return int(answer.split(b" ", 2)[1]), sent


@pytest.mark.parametrize("path", ["/api/auth", "/api/events", "/api/matches/import"])
def test_a_chunked_flood_is_cut_off_while_it_streams(live_server: RunningServer,
                                                     path: str) -> None:
    status, sent = chunked_post(live_server.url, path, 100_000_000)
    assert status in (401, 413)
    assert sent < 20_000_000, f"the server read {sent} bytes before answering"
    # the server still answers afterwards
    assert httpx.get(live_server.url + "/api/state").status_code == 200


def test_a_declared_body_over_the_limit_is_413(client: TestClient, player: dict[str, str]
                                               ) -> None:
    response = client.post("/api/events", content=b"{" + b" " * 70_000 + b"}",
                           headers={**player, "Content-Type": "application/json"})
    assert response.status_code == 413
    assert "at most 64000 bytes" in response.json()["detail"]
    big_log = b"# padding\n" * 300_000
    response = client.post("/api/matches/import", content=big_log, headers=player)
    assert response.status_code == 413
    assert "at most 2000000 bytes" in response.json()["detail"]


# -- import ------------------------------------------------------------------------------------


def test_import_applies_the_name_check_and_strict_json(client: TestClient,
                                                       player: dict[str, str]) -> None:
    long_name = json.dumps({"type": "setup", "game": "catch-mag",
                            "players": ["A" * 1000, "Ben"]})
    response = client.post("/api/matches/import", content=long_name, headers=player)
    assert response.status_code == 400
    assert "at most 24 characters" in response.json()["detail"]
    nan = '{"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]}\n' \
          '{"type": "roll", "player": "Ann", "value": NaN}\n'
    response = client.post("/api/matches/import", content=nan, headers=player)
    assert response.status_code == 400
    assert response.json()["detail"].startswith("line 2: NaN")


def test_import_ignores_unknown_fields_as_the_contract_says(client: TestClient,
                                                            player: dict[str, str]) -> None:
    log = '{"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"], "by": "x"}\n' \
          '{"type": "roll", "player": "Ann", "value": 2, "clock": [1, [2]]}\n'
    response = client.post("/api/matches/import", content=log, headers=player)
    assert response.status_code == 201, response.text
    assert response.json()["ignored"] == ["line 1: 'by'", "line 2: 'clock'"]
    assert response.json()["entries"][0]["event"] == ROLL


# -- Host header, gzip, cache --------------------------------------------------------------------


def test_only_the_tables_own_names_are_answered(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        assert client.get("/api/state", headers={"Host": "evil.example"}).status_code == 400
        for host in ("192.168.1.20:8000", "localhost:8000", "127.0.0.1", "[::1]:8000",
                     "table-companion.local", "testserver"):
            assert client.get("/api/state", headers={"Host": host}).status_code == 200, host
    named = Settings(data_dir=settings.data_dir, pin="2468", mdns=False,
                     public_host="192.168.1.20", allowed_hosts=("scores.cafe",))
    with TestClient(create_app(named)) as client:
        assert client.get("/api/state", headers={"Host": "scores.cafe"}).status_code == 200
        assert client.get("/api/state", headers={"Host": "scores.cafe.evil"}).status_code == 400


def test_text_is_gzipped_and_static_files_have_a_lifetime_and_an_etag(
    client: TestClient, player: dict[str, str]
) -> None:
    start(client, player)
    state = client.get("/api/state", headers={"Accept-Encoding": "gzip"})
    assert state.headers["content-encoding"] == "gzip"
    assert json.loads(state.content)["current"] is not None  # httpx decoded it
    page = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip"
    script = client.get("/static/app.js", headers={"Accept-Encoding": "gzip"})
    assert script.headers["cache-control"] == "public, max-age=3600"
    assert script.headers["content-encoding"] == "gzip"
    etag = script.headers["etag"]
    again = client.get("/static/app.js", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert gzip.compress(script.content)  # the body itself is intact


def test_the_live_stream_is_never_gzipped(live_server: RunningServer) -> None:
    host, port = live_server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(f"GET /api/stream HTTP/1.1\r\nHost: {host}:{port}\r\n"
                     "Accept-Encoding: gzip\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
    assert b"text/event-stream" in head
    assert b"content-encoding" not in head.lower()


def test_a_broken_engine_is_not_offered_and_says_why_in_the_log(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import companion.service.table as table_module

    def broken(game_id: object) -> object:
        if game_id == "collector":
            raise ZeroDivisionError("division by zero in the scoring table")
        return rules_for(game_id)

    monkeypatch.setattr(table_module, "rules_for", broken)
    with caplog.at_level("ERROR", logger="companion.service.table"):
        games = [g["id"] for g in table_module.available_games()]
    assert "collector" not in games and "catch-mag" in games
    assert "collector" in caplog.text and "ZeroDivisionError" in caplog.text

JSON_TEXT = st.text(alphabet=st.sampled_from(list('{}[]",:0123456789.eE-+ \\nulNaIfinity')),
                    max_size=80)


@hypothesis_settings(max_examples=400, deadline=None)
@given(JSON_TEXT)
def test_the_strict_reader_returns_sendable_json_or_one_plain_error(text: str) -> None:
    try:
        value = strictjson.loads(text)
    except strictjson.StrictJSONError as exc:
        assert str(exc)
        return
    again = strictjson.dumps(value)  # raises on NaN or Infinity
    assert json.loads(again) == value


def test_numbers_beyond_sqlite_in_queries_are_not_a_500(client: TestClient,
                                                        player: dict[str, str]) -> None:
    start(client, player)
    assert client.get(f"/api/history?before={10**30}").status_code == 200
    assert client.get(f"/api/matches/{10**30}").status_code == 404
    assert client.post("/api/undo", json={"match": 10**30}, headers=player).status_code == 404
