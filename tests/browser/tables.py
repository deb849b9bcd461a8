"""Matches set up through the API for the browser tests: every game, a few turns in."""

from __future__ import annotations

import json
import random

import httpx

from companion.games.match import Match
from tests.browser.conftest import PIN

GAMES = ["star-catcher", "star-plus", "catch-mag", "cant-catch-harry", "collector"]
PLAYERS = {"collector": ["Ann", "Ben", "Cy"], "cant-catch-harry": ["Ann", "Ben", "Cy", "Dee"]}
SETUP_OPTIONS = {"collector": {"targets": ["10H", "5S", "KD", "AC"]}}


def token(url: str) -> dict[str, str]:
    with httpx.Client(base_url=url) as http:
        grant = http.post("/api/auth", json={"pin": PIN, "name": "set-up"}).json()
    return {"Authorization": f"Bearer {grant['token']}"}


def play(url: str, game: str, events: int, seed: int = 5,
         players: list[str] | None = None) -> Match:
    """Start ``game`` and enter ``events`` random legal events; the match as it stands."""
    headers = token(url)
    with httpx.Client(base_url=url, headers=headers) as http:
        body = {"game": game, "players": players or PLAYERS.get(game, ["Ann", "Ben", "Cy"]),
                "options": SETUP_OPTIONS.get(game, {})}
        response = http.post("/api/matches", json=body)
        assert response.status_code == 201, response.text
        match_id = response.json()["id"]
        log = http.get(f"/api/matches/{match_id}/log.jsonl").text.splitlines()
        local = Match.from_events(json.loads(line) for line in log)
        rng = random.Random(seed)
        for _ in range(events):
            if local.summary()["finished"]:
                break
            event = local.random_event(rng)
            local.push(event)
            response = http.post("/api/events", json={"event": event, "match": match_id})
            assert response.status_code == 201, response.text
    return local
