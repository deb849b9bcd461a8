"""The PIN and tokens under guessing (issue 12): hashed PIN, tokens tied to it and
ending when unused, a table-wide brake that never locks out phones signed in, and
X-Forwarded-For believed only from configured proxies."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from companion.service import Settings, create_app
from companion.service.auth import hash_pin
from tests.service.conftest import CATCH_MAG, PIN, RunningServer, login, start_server

ROLL = {"type": "roll", "player": "Ann", "value": 2}


def meta(settings: Settings) -> dict[str, str]:
    with sqlite3.connect(settings.database) as db:
        return dict(db.execute("SELECT key, value FROM meta").fetchall())


def can_write(client: TestClient | httpx.Client, headers: dict[str, str]) -> bool:
    return client.get("/api/auth/whoami", headers=headers).json()["player"] is True


def test_the_pin_is_kept_only_as_a_salted_scrypt_hash(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        login(client)
    stored = meta(settings)
    assert PIN not in stored.values()
    assert stored["pin_hash"].startswith("scrypt$16384$8$1$")
    assert hash_pin(PIN) != hash_pin(PIN), "a fresh salt each time"


def test_a_pin_kept_in_clear_by_an_older_version_becomes_a_hash(settings: Settings) -> None:
    with TestClient(create_app(settings)):
        pass
    with sqlite3.connect(settings.database) as db:
        db.execute("DELETE FROM meta")
        db.execute("INSERT INTO meta VALUES ('pin', '777777')")
    with TestClient(create_app(replace(settings, pin=None))) as client:
        assert client.post("/api/auth", json={"pin": "777777"}).status_code == 200
    assert "pin" not in meta(settings) and "777777" not in meta(settings).values()


def test_a_made_up_pin_has_six_digits(tmp_path: Path) -> None:
    from companion.service.auth import PinRateLimiter, TableAuth
    from companion.service.store import EventStore

    with EventStore(tmp_path / "t.db") as store:
        auth = TableAuth(store, PinRateLimiter(5, 30, lambda: 0.0), None)
        assert auth.new_pin is not None and len(auth.new_pin) == 6 and auth.new_pin.isdigit()
        assert TableAuth(store, PinRateLimiter(5, 30, lambda: 0.0), None).new_pin is None


def test_a_restart_with_another_pin_signs_every_phone_out(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        phone = login(client)
    with TestClient(create_app(settings)) as client:  # the same PIN: still signed in
        assert can_write(client, phone)
    with TestClient(create_app(replace(settings, pin="135790"))) as client:
        assert not can_write(client, phone)
        assert client.post("/api/matches", json=CATCH_MAG, headers=phone).status_code == 401
        assert client.post("/api/auth", json={"pin": PIN}).status_code == 401
        assert client.post("/api/auth", json={"pin": "135790"}).status_code == 200


def test_a_pin_change_by_the_api_signs_out_every_other_phone(client: TestClient) -> None:
    ann, ben = login(client, "Ann"), login(client, "Ben")
    assert client.put("/api/auth/pin", json={"pin": "864209"}, headers=ann).status_code == 200
    assert can_write(client, ann) and not can_write(client, ben)


def test_a_join_code_signs_a_friend_in_for_ten_minutes_and_the_pin_stays_secret(
        settings: Settings) -> None:
    now = [1_800_000_000.0]
    with TestClient(create_app(settings, clock=lambda: now[0])) as client:
        ann = login(client, "Ann")
        assert client.post("/api/join-codes").status_code == 401  # a watcher cannot
        answer = client.post("/api/join-codes", headers=ann)
        assert answer.status_code == 201 and answer.json()["minutes"] == 10
        code = answer.json()["code"]
        assert code.isdigit() and len(code) == 6
        assert code not in meta(settings).values()  # kept as a hash, like the PIN
        friend = client.post("/api/auth", json={"pin": code, "name": "Dee"})
        assert friend.status_code == 200 and can_write(
            client, {"Authorization": f"Bearer {friend.json()['token']}"})
        assert can_write(client, ann)  # nobody was signed out
        now[0] += 601
        assert client.post("/api/auth", json={"pin": code, "name": "Eve"}).status_code == 401
        # a new PIN ends every join code at once
        late = client.post("/api/join-codes", headers=ann).json()["code"]
        assert client.put("/api/auth/pin", json={"pin": "864209"}, headers=ann).status_code == 200
        assert client.post("/api/auth", json={"pin": late, "name": "Fay"}).status_code == 401


def test_a_token_ends_after_the_idle_days_and_lives_on_while_used(settings: Settings) -> None:
    now = [1_800_000_000.0]
    day = 86_400.0
    with TestClient(create_app(replace(settings, token_idle_days=30),
                               clock=lambda: now[0])) as client:
        used, idle = login(client, "used"), login(client, "idle")
        for _ in range(3):  # used every 20 days
            now[0] += 20 * day
            assert can_write(client, used)
        assert not can_write(client, idle)
    with TestClient(create_app(settings, clock=lambda: now[0])) as client:
        assert can_write(client, used), "the last use was kept on disk"
        now[0] += 31 * day
        assert not can_write(client, used)


# -- guessing --------------------------------------------------------------------------------


@pytest.fixture
def guarded(settings: Settings) -> Iterator[RunningServer]:
    running = start_server(replace(settings, pin_attempts=5, table_pin_attempts=10))
    yield running
    running.stop()


def from_address(url: str, address: str) -> httpx.Client:
    return httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address=address))


def test_rotating_addresses_meet_the_table_wide_limit_and_phones_keep_working(
    guarded: RunningServer,
) -> None:
    with from_address(guarded.url, "127.0.0.2") as host:
        phone = login(host, "host phone")
        assert host.post("/api/matches", json=CATCH_MAG, headers=phone).status_code == 201
    answers = []
    for n in range(30):  # a new loopback address for every guess
        with from_address(guarded.url, f"127.0.1.{n + 1}") as guesser:
            answers.append(guesser.post("/api/auth", json={"pin": f"{n:06d}"}).status_code)
    # Ten wrong PINs are checked (the tenth answer already says to wait), then none.
    assert answers[:9] == [401] * 9
    assert set(answers[9:]) == {429}
    with from_address(guarded.url, "127.0.2.1") as guesser:
        refused = guesser.post("/api/auth", json={"pin": PIN})
        assert refused.status_code == 429, "while the table waits, no PIN is even checked"
        assert "phones already signed in keep working" in refused.json()["detail"]
        assert int(refused.headers["retry-after"]) > 60
    with from_address(guarded.url, "127.0.0.2") as host:
        assert host.post("/api/events", json={"event": ROLL}, headers=phone).status_code == 201
        again = host.post("/api/auth", json={"pin": PIN, "name": "second tab"}, headers=phone)
        assert again.status_code == 200, "a phone signed in is never locked out"


def test_forwarded_for_is_not_believed_unless_configured(guarded: RunningServer) -> None:
    with httpx.Client(base_url=guarded.url) as client:
        answers = [client.post("/api/auth", json={"pin": "000000"},
                               headers={"X-Forwarded-For": f"10.9.0.{n}"}).status_code
                   for n in range(1, 8)]
    assert answers[:4] == [401] * 4 and answers[4:] == [429] * 3, answers


def test_forwarded_for_is_believed_from_a_configured_proxy(settings: Settings) -> None:
    from companion.service.server import TableServer

    server = TableServer(create_app(settings), "127.0.0.1", 0, trusted_proxies=("127.0.0.1",))
    assert server.config.proxy_headers is True
    assert server.config.forwarded_allow_ips == ["127.0.0.1"]
    plain = TableServer(create_app(settings), "127.0.0.1", 0)
    assert plain.config.proxy_headers is False


def test_a_pin_changed_by_another_tool_while_stopped_ends_the_tokens(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        phone = login(client)
    with sqlite3.connect(settings.database) as db:  # what a `companion pin` might write
        db.execute("UPDATE meta SET value = ? WHERE key = 'pin_hash'", (hash_pin("246802"),))
    with TestClient(create_app(replace(settings, pin=None))) as client:
        assert not can_write(client, phone)
        assert client.post("/api/auth", json={"pin": "246802"}).status_code == 200
