"""Live sync under load: many phones watching while events arrive steadily.

Starts ``companion serve`` (the real CLI, real SQLite file, real uvicorn) in a
subprocess, connects N server-sent-event clients, enters events at a fixed
rate through the JSON API, and prints:

* event -> client latency (from just before the POST to arrival at each client),
  p50 / p99 / max over every client and event;
* lost and reordered updates (every client must see every seq exactly once, in order);
* the server's resident memory (start, peak, end).

    .venv/bin/python bench/bench_live_sync.py            # 50 clients, 20 events/s, 60 s
    .venv/bin/python bench/bench_live_sync.py --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from processes import free_port, rss_kib

from companion.games.match import Match
from tests.service.sse import ChunkedSseParser

PIN = "2468"
PLAYERS = ["Ann", "Ben", "Cy"]


class Watcher:
    """One phone: an event stream read over a raw asyncio connection."""

    def __init__(self) -> None:
        self.first_seq: int | None = None
        self.arrivals: list[tuple[int, float]] = []
        self.ready = asyncio.Event()

    async def run(self, port: int, stop: asyncio.Event) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /api/stream HTTP/1.1\r\nHost: table\r\n"
                     b"Accept: text/event-stream\r\n\r\n")
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        assert b" 200 " in head.split(b"\r\n")[0], head
        parser = ChunkedSseParser()
        while not stop.is_set():
            try:
                data = await asyncio.wait_for(reader.read(65536), 0.5)
            except TimeoutError:
                continue
            if not data:
                break
            now = time.perf_counter()
            for kind, payload in parser.feed(data):
                if kind == "snapshot":
                    self.first_seq = payload["seq"]
                    self.ready.set()
                elif kind == "change":
                    self.arrivals.append((payload["seq"], now))
        writer.close()


async def main(args: argparse.Namespace) -> int:
    port = free_port()
    data_dir = Path(tempfile.mkdtemp(prefix="bench-table-"))
    server = subprocess.Popen(
        [sys.executable, "-m", "companion.serve", "--host", "127.0.0.1", "--port",
         str(port), "--data-dir", str(data_dir), "--pin", PIN, "--no-mdns"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            for _ in range(200):
                try:
                    if (await http.get("/api/state")).is_success:
                        break
                except httpx.HTTPError:
                    await asyncio.sleep(0.05)
            rss_idle = rss_kib(server.pid)
            token = (await http.post("/api/auth", json={"pin": PIN})).json()["token"]
            headers = {"Authorization": f"Bearer {token}"}
            setup = {"type": "setup", "game": args.game, "players": PLAYERS}
            await http.post("/api/matches", json={"game": args.game, "players": PLAYERS},
                            headers=headers)
            stop = asyncio.Event()
            watchers = [Watcher() for _ in range(args.clients)]
            tasks = [asyncio.create_task(w.run(port, stop)) for w in watchers]
            await asyncio.wait_for(asyncio.gather(*(w.ready.wait() for w in watchers)), 30)
            rss_connected = rss_kib(server.pid)

            sent: dict[int, float] = {}
            rss_peak = rss_connected
            rng = random.Random(1)
            mirror = Match(setup)
            interval = 1.0 / args.rate
            start = time.perf_counter()
            n = 0
            refused = 0
            while time.perf_counter() - start < args.seconds:
                due = start + n * interval
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                before = time.perf_counter()
                if mirror.finished:
                    response = await http.post("/api/matches", json={
                        "game": args.game, "players": PLAYERS}, headers=headers)
                    mirror = Match(setup)
                else:
                    event = mirror.random_event(rng)
                    response = await http.post("/api/events", json={"event": event},
                                               headers=headers)
                    if response.status_code == 201:
                        mirror.push(event)
                if response.is_success:
                    sent[int(response.json().get("seq") or response.json()["id"])] = before
                else:
                    refused += 1
                n += 1
                if n % args.rate == 0:
                    rss_peak = max(rss_peak, rss_kib(server.pid))
            elapsed = time.perf_counter() - start
            await asyncio.sleep(1.0)
            stop.set()
            await asyncio.gather(*tasks)
            rss_end = rss_kib(server.pid)
    finally:
        server.terminate()
        server.wait(10)

    latencies: list[float] = []
    lost = reordered = duplicated = 0
    expected = sorted(sent)
    for w in watchers:
        seqs = [s for s, _ in w.arrivals]
        reordered += sum(1 for a, b in itertools.pairwise(seqs) if b <= a)
        duplicated += len(seqs) - len(set(seqs))
        got = set(seqs)
        lost += sum(1 for s in expected if s not in got)
        for seq, at in w.arrivals:
            if seq in sent:
                latencies.append((at - sent[seq]) * 1000)
    latencies.sort()

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] if latencies else 0.0

    print(f"clients {args.clients}, game {args.game}, {len(sent)} events in {elapsed:.1f} s "
          f"({len(sent) / elapsed:.1f}/s), {refused} refused")
    print(f"deliveries {len(latencies)} (expected {len(sent) * args.clients})")
    print(f"event -> client latency ms: p50 {pct(0.50):.1f}  p99 {pct(0.99):.1f}  "
          f"max {latencies[-1] if latencies else 0:.1f}  mean "
          f"{statistics.fmean(latencies) if latencies else 0:.1f}")
    print(f"lost {lost}, reordered {reordered}, duplicated {duplicated}")
    print(f"server RSS MiB: idle {rss_idle / 1024:.1f}, {args.clients} connected "
          f"{rss_connected / 1024:.1f}, peak {rss_peak / 1024:.1f}, end {rss_end / 1024:.1f}")
    print(f"SQLite files: {sum(f.stat().st_size for f in data_dir.iterdir()) / 1024:.0f} KiB")
    shutil.rmtree(data_dir, ignore_errors=True)
    return 0 if lost == reordered == duplicated == 0 else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--rate", type=int, default=20, help="events per second")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--game", default="catch-mag")
    raise SystemExit(asyncio.run(main(parser.parse_args())))
