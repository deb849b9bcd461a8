"""The camera feed's cost per frame, and the service's memory with the camera running.

    python bench/bench_camera.py [--frames N] [--size 1280x720]

Part 1: the real service (uvicorn, SQLite) with the simulated camera attached,
a Star Catcher match on the table, running for a few seconds; prints the frames
the feed processed per second and the process's resident memory.

Part 2, per card game: a simulated table at 1280 x 720 (markers for the seated
games, as the feed uses it) goes through a scripted sequence of layouts, a card
added or taken every few frames. Frames are rendered first; what is timed is the
feed's per-frame path: the tracker (motion check, background), detection plus
identification on the quiet frames it looks at, nothing read off the play area.
One core (``cv2.setNumThreads(1)``, one BLAS thread). Two paces: a card every 6
frames (the table never settles: the cost while play goes on), and a card every
50 frames (a play every 5 s at 10 frames a second: a game's pace, where the
tracker rests between plays).

Goals: about 10 frames per second on a Pi 4 (about 30 ms per frame on one x86
core) and under 250 MB for the whole service.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, honestly: set before numpy loads
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from companion.inputs.camera import DECKS, SEATED_GAMES
from companion.inputs.camera.corners import on_play_area
from vision.calibration import CalibrationError, TableGeometry
from vision.decks import deck_ids
from vision.pipeline import Detection, Image, Recognizer
from vision.simtable import SimTable, rendered_gallery
from vision.tracker import Tracker

PLAYERS = ("Ann", "Ben")
PACES = (6, 50)
"""Frames each layout is held: play going on; a game's pace at 10 frames a second."""


def rss_mb() -> float:
    """Resident memory of this process now, in MB (Linux)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def frames_for(game: str, size: tuple[int, int], count: int, seed: int,
               per_layout: int) -> list[Image]:
    deck = DECKS[game]
    sim = SimTable(deck, PLAYERS, size=size, markers=game in SEATED_GAMES)
    rng = random.Random(seed)
    ids = list(deck_ids(deck))
    zones = [f"seat:{p}" for p in PLAYERS] if game in SEATED_GAMES else ["centre"]
    frames: list[Image] = []
    while len(frames) < count:
        zone = rng.choice(zones)
        if len(sim.in_zone(zone)) >= 4 or (sim.cards and rng.random() < 0.3):
            gone = rng.choice(sim.cards)
            sim.show([c for c in sim.cards if c is not gone], wait=False)
        else:
            sim.show(sim.with_added([rng.choice(ids)], zone), wait=False)
        frame = sim.render()
        frames += [frame] * per_layout
    return frames[:count]


def bench_game(game: str, size: tuple[int, int], count: int, per_layout: int) -> None:
    frames = frames_for(game, size, count, seed=1, per_layout=per_layout)
    first = frames[0]
    try:
        geometry: TableGeometry | None = TableGeometry.from_markers(
            first, (600.0, 400.0), PLAYERS)
    except CalibrationError:
        geometry = None
    deck = DECKS[game]
    recognizer = Recognizer("standard" if deck == "standard" else rendered_gallery(deck))

    def zone_of(point: tuple[float, float]) -> str | None:
        return "centre" if geometry is None else geometry.zone_of(point)

    tracker = Tracker(zone_of=zone_of)

    def counts(point: tuple[float, float]) -> bool:  # as the match follower asks
        return geometry is None or on_play_area(geometry, point)

    def detect(frame: Image) -> list[Detection]:
        return recognizer.detect(frame, counts)

    # a camera's frames of a still table are never the same twice: sensor noise (sigma
    # about 3 grey levels), added outside the timing
    rng = np.random.default_rng(0)
    noise = [(np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8))
             for n in (rng.normal(0, 3, first.shape) for _ in range(4))]
    times = []
    changes = 0
    for i, still in enumerate(frames):
        plus, minus = noise[i % len(noise)]
        frame: Image = np.asarray(cv2.subtract(cv2.add(still, plus), minus), np.uint8)
        started = time.perf_counter()
        if tracker.update(frame, detect) is not None:
            changes += 1
        times.append(time.perf_counter() - started)
    mean = statistics.fmean(times) * 1000
    p95 = sorted(times)[int(0.95 * len(times))] * 1000
    looked = len(frames) - tracker.skipped - tracker.rested
    print(f"{game:17s} {size[0]}x{size[1]} a card every {per_layout:2d} frames  "
          f"{1000 / mean:6.1f} fps  mean {mean:5.1f} ms  p95 {p95:5.1f} ms  (looked at "
          f"{looked}/{len(frames)}: {tracker.skipped} motion, {tracker.rested} settled; "
          f"{changes} stable changes, calibrated: {geometry is not None})")


def bench_service(size: tuple[int, int], seconds: float) -> None:
    from companion.config import CameraSection
    from companion.inputs.camera import CameraFeed
    from companion.service import Settings, create_app
    from companion.service.server import serving_in_thread

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp) / "table", pin="2468", mdns=False,
                            public_host="127.0.0.1", port=0)
        feed = CameraFeed(CameraSection(source="sim", width=size[0], height=size[1]))
        import httpx

        with (serving_in_thread(create_app(settings, attachments=[feed])) as server,
              httpx.Client(base_url=f"http://127.0.0.1:{server.bound_port}", timeout=10) as http):
            token = http.post("/api/auth", json={"pin": "2468", "name": "bench"}).json()["token"]
            headers = {"Authorization": f"Bearer {token}"}
            http.post("/api/matches", json={"game": "star-catcher", "players": list(PLAYERS)},
                      headers=headers)
            while feed.following is None:
                time.sleep(0.02)
            sim = feed.sim
            assert sim is not None
            sim.show(sim.with_added(["D1", "D5*", "C4*", "M", "D9**", "C8**", "D3", "D7"],
                                    "centre"))
            start_frames, started = feed.frames, time.monotonic()
            time.sleep(seconds)
            fps = (feed.frames - start_frames) / (time.monotonic() - started)
            view = http.get("/api/camera/frame.jpg")
        print(f"service with the sim camera at {size[0]}x{size[1]} (max {feed.max_fps:g} fps): "
              f"{fps:.1f} frames/s processed, resident memory {rss_mb():.0f} MB, live view "
              f"{len(view.content) // 1024} kB JPEG")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=120, help="frames per game (default 120)")
    parser.add_argument("--size", default="1280x720", help="frame size (default 1280x720)")
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="how long the service part runs (default 5)")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    cv2.setNumThreads(1)  # the target is one core of the Pi
    # the service first, so its memory is not inflated by the pipeline runs' frames
    bench_service((w, h), args.seconds)
    print("camera feed path per frame, render excluded, one core:")
    for per_layout in PACES:
        for game in DECKS:
            bench_game(game, (w, h), args.frames * per_layout // PACES[0], per_layout)
    print(f"resident memory after all four decks ran: {rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
