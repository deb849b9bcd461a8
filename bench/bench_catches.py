"""Star Catcher legal-catch enumeration with 12 cards on the table (goal: under 1 ms).

Tables are drawn at random from the simulation deck (numbers 1-12); for each
table every number card of that deck and a Magnet are asked for all their
catches. A last line times the pathological table of twelve 1s to 12s asked
for large sums, far beyond any real deck. Prints mean, p99 and worst per query.

Run: .venv/bin/python bench/bench_catches.py
"""

from __future__ import annotations

import random
import statistics
import time

from companion.games.star_catcher import SIMULATION_DECK, Card, catches

TABLE_SIZE = 12
TABLES = 200


def main() -> None:
    rng = random.Random(42)
    numbers = [c for c in SIMULATION_DECK if not c.is_magnet]
    played = sorted({c for c in SIMULATION_DECK}, key=str)
    times: list[float] = []
    options = 0
    for _ in range(TABLES):
        table = rng.sample(numbers, TABLE_SIZE)
        for card in played:
            start = time.perf_counter()
            found = catches(table, card)
            times.append(time.perf_counter() - start)
            options += len(found)
    mean = statistics.fmean(times) * 1000
    p99 = sorted(times)[int(len(times) * 0.99)] * 1000
    worst = max(times) * 1000
    print(
        f"legal catches, {TABLE_SIZE} cards on the table, {len(times)} queries "
        f"({options} options found)"
    )
    print(f"mean {mean:.3f} ms   p99 {p99:.3f} ms   worst {worst:.3f} ms   (goal: under 1 ms)")
    table = [Card.parse(f"C{n}") for n in range(1, 13)]
    for target in (20, 39, 60):
        start = time.perf_counter()
        found = catches(table, Card.parse(f"D{target}"))
        elapsed = (time.perf_counter() - start) * 1000
        print(f"table C1..C12, D{target}: {len(found)} options in {elapsed:.2f} ms")


if __name__ == "__main__":
    main()
