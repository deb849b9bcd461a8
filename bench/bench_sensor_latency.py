"""Latency from a magnet moving to the table event being applied, over the real serial path.

Run: .venv/bin/python bench/bench_sensor_latency.py [--catches N]

The simulated board (the firmware logic on CPython, at the board map's scan
rate and debounce) serves the byte protocol on a pty; SerialBoard reads it;
CatchMagInterpreter turns changes into events and a Match applies them.
For every sensor change it measures the time from the hand's movement to the
change being interpreted, and for every rod landing the time until the catch
was applied to the match. Figures are printed with and without the debounce
time (the goal: p99 under 20 ms on top of the debounce).

Not measured yet: the hop to a WebSocket client (the service does not exist
at the time of writing).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.games.match import Match
from hardware.boardmap import load_board_map
from hardware.interpreter import BoardWarning, CatchMagInterpreter
from hardware.serial_board import SerialBoard
from hardware.simulated import SimulatedBoard
from hardware.sources import SensorChange


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--catches", type=int, default=60)
    args = parser.parse_args()
    board = load_board_map()
    debounce_s = board.debounce_scans / board.scan_hz
    match = Match({"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]})
    interpreter = CatchMagInterpreter(board)
    moved_at: dict[str, float] = {}
    change_latency: list[float] = []
    event_latency: list[float] = []
    lock = threading.Lock()
    done = threading.Event()
    warnings: list[str] = []

    def on_change(change: SensorChange) -> None:
        with lock:
            for reading in interpreter.feed(change, match.state):
                if isinstance(reading, BoardWarning):
                    warnings.append(reading.message)
                else:
                    match.push(reading)
                    event_latency.append(time.monotonic() - moved_at[change.sensor_id])
            change_latency.append(time.monotonic() - moved_at[change.sensor_id])
            done.set()

    def hand(action: str, sensor_id: str) -> None:
        done.clear()
        moved_at[sensor_id] = time.monotonic()
        (sim.place if action == "place" else sim.lift)(sensor_id)
        if not done.wait(2):
            raise RuntimeError(f"no change reported for {action} {sensor_id}")
        time.sleep(0.005)

    free_spaces = [s for s in range(2, 31) if s not in (7, 13, 19, 25)]
    colors = ("white", "green", "red", "yellow", "blue")
    held = {(p, c): 0 for p in match.players for c in colors}
    caught = 0
    with SimulatedBoard(board) as sim, SerialBoard(sim.port, board) as source:
        deadline = time.monotonic() + 5
        while source.link_status.state != "connected" and time.monotonic() < deadline:
            time.sleep(0.01)
        source.subscribe(on_change)
        ship = {p: 1 for p in match.players}
        for _ in range(args.catches):
            player = match.turn
            assert player is not None
            target = next((s for s in free_spaces if s > ship[player]), None)
            if target is None or match.finished:
                break
            value = min(6, target - ship[player])
            with lock:
                match.push({"type": "roll", "player": player, "value": value})
                ship[player] = match.state.ships[match.players.index(player)]
            space = ship[player]
            if space not in free_spaces:  # rolled short of it: nothing to catch there
                continue
            free_spaces.remove(space)
            station = match.players.index(player) + 1
            color = colors[caught % 5]  # five of each colour, spread so nobody wins
            caught += 1
            held[player, color] += 1
            hand("lift", "REST")
            hand("lift", f"U{space}")
            hand("place", f"S{station}.{color}.{held[player, color]}")
            hand("place", "REST")
    extra = [v - debounce_s for v in change_latency]
    ms = 1000.0
    print(f"board: {board.scan_hz} Hz scan, {board.debounce_ms} ms debounce "
          f"({board.debounce_scans} scans = {debounce_s * ms:.0f} ms)")
    print(f"sensor change -> interpreted: n={len(change_latency)} "
          f"p50 {percentile(change_latency, 0.5) * ms:.1f} ms, "
          f"p99 {percentile(change_latency, 0.99) * ms:.1f} ms, "
          f"max {max(change_latency) * ms:.1f} ms")
    print(f"  on top of the debounce:   p50 {percentile(extra, 0.5) * ms:.1f} ms, "
          f"p99 {percentile(extra, 0.99) * ms:.1f} ms, "
          f"mean {statistics.fmean(extra) * ms:.1f} ms")
    if event_latency:
        top = [v - debounce_s for v in event_latency]
        print(f"rod landing -> catch applied: n={len(event_latency)} "
              f"p50 {percentile(event_latency, 0.5) * ms:.1f} ms, "
              f"p99 {percentile(event_latency, 0.99) * ms:.1f} ms "
              f"(on top of the debounce: p99 {percentile(top, 0.99) * ms:.1f} ms)")
    if warnings:
        print(f"warnings: {len(warnings)} (first: {warnings[0]})")


if __name__ == "__main__":
    main()
