"""Replay throughput: events per second for a 10,000-event log of each game.

A match of most games is shorter than 10,000 events, so the log is a run of
random legal matches (each replayed from its own setup) totalling 10,000
events; the figure is events applied per second, parsing included.

Run: .venv/bin/python bench/bench_replay.py
"""

from __future__ import annotations

import importlib
import json
import random
import time

from companion.games import GAME_IDS, rules_for
from companion.games.match import Match
from companion.tablelog import dump, replay_text

TARGET_EVENTS = 10_000
NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay"]


def random_logs(game_id: str, target: int, seed: int = 1) -> list[str]:
    rules = rules_for(game_id)
    module = importlib.import_module(type(rules).__module__)
    rng = random.Random(seed)
    logs: list[str] = []
    total = 0
    while total < target:
        count = rng.randint(rules.min_players, rules.max_players)
        match = Match(module.random_setup(rng, NAMES[:count]))
        while not match.finished and total + len(match) < target:
            match.push(match.random_event(rng))
        total += len(match)
        logs.append(dump(match.log()))
    return logs


def main() -> None:
    print(f"replay throughput, {TARGET_EVENTS} events per game (parse + validate + apply)")
    print(f"{'game':<18}{'matches':>8}{'events':>8}{'seconds':>9}{'events/s':>11}")
    for game_id in GAME_IDS:
        logs = random_logs(game_id, TARGET_EVENTS)
        events = sum(text.count("\n") - 1 for text in logs)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for text in logs:
                replay_text(text)
            best = min(best, time.perf_counter() - start)
        print(f"{game_id:<18}{len(logs):>8}{events:>8}{best:>9.3f}{events / best:>11,.0f}")
    # The file form itself, for scale: JSON decoding alone.
    logs = random_logs("star-catcher", TARGET_EVENTS)
    start = time.perf_counter()
    for text in logs:
        for line in text.splitlines():
            json.loads(line)
    print(f"(json.loads alone for the star-catcher log: {time.perf_counter() - start:.3f} s)")


if __name__ == "__main__":
    main()
