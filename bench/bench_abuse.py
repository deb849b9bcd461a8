"""The table service under attack and under accident (issue 12): prints figures.

Runs the real ``companion serve`` (real SQLite file, real uvicorn) in a subprocess and:

1. **Chunked flood**: POSTs ``--flood-mb`` MB (300) chunked, without a token, to
   ``/api/events`` and ``/api/auth`` (reconnecting each time the server cuts one off),
   and prints the server's resident memory before and at its peak. Goal: under 150 MB.
2. **Guessing**: wrong PINs from a new loopback address for every guess for
   ``--guess-seconds`` seconds; prints how many were checked (401) and refused (429),
   the guesses per hour the limits allow (measured and from the settings), and the
   time to find a 6-digit PIN. Goal: at least a year.
3. **Kill-restart**: ``--kills`` (50) SIGKILLs while a writer enters changes; after each
   restart every acknowledged change must be there. Goal: 0 acknowledged lost.

Every answer is checked: 5xx responses and tracebacks in the server's output are counted
(goal: 0 of each).

    .venv/bin/python bench/bench_abuse.py
    .venv/bin/python bench/bench_abuse.py --flood-mb 50 --guess-seconds 5 --kills 5
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from processes import free_port, rss_kib

from companion.service.settings import Settings

PIN = "482913"
MATCH = {"game": "catch-mag", "players": ["Ann", "Ben"]}
YEAR_HOURS = 365.25 * 24


class Server:
    """``companion serve`` in a subprocess; its stderr is kept to look for tracebacks."""

    def __init__(self, data_dir: Path, port: int) -> None:
        self.data_dir = data_dir
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.errors = ""
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1",
             "--port", str(self.port), "--data-dir", str(self.data_dir), "--pin", PIN,
             "--no-mdns", "--board", "none", "--camera", "none"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/api/state", timeout=1).is_success:
                    return
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None:
                self._collect()
                raise RuntimeError(f"the server did not start: {self.errors[-500:]}")
            time.sleep(0.05)
        raise RuntimeError("the server did not start in 30 s")

    def _collect(self) -> None:
        if self.process is not None and self.process.stderr is not None:
            self.errors += self.process.stderr.read().decode(errors="replace")
            self.process.stderr.close()

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self._collect()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._collect()

    @property
    def tracebacks(self) -> int:
        return self.errors.count("Traceback")


def token(url: str, name: str = "bench") -> dict[str, str]:
    answer = httpx.post(url + "/api/auth", json={"pin": PIN, "name": name}, timeout=10)
    answer.raise_for_status()
    return {"Authorization": f"Bearer {answer.json()['token']}"}


# -- 1. the chunked flood ------------------------------------------------------------------


def flood_once(url: str, path: str, budget: int, chunk: int = 65_536) -> tuple[int, int]:
    """One connection sending chunks until the server answers or cuts it off; the bytes
    sent and the status it answered (0: none)."""
    host, port = url.removeprefix("http://").split(":")
    block = f"{chunk:x}\r\n".encode() + b"[" * chunk + b"\r\n"
    sent = 0
    answer = b""
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: "
                     "application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
        sock.settimeout(2)
        try:
            while sent < budget:
                sock.sendall(block)
                sent += chunk
                sock.setblocking(False)
                with contextlib.suppress(BlockingIOError):
                    answer += sock.recv(4096)
                sock.setblocking(True)
                sock.settimeout(2)
                if answer:
                    break
        except OSError:
            pass
        try:
            sock.settimeout(2)
            while b"\r\n" not in answer:
                data = sock.recv(4096)
                if not data:
                    break
                answer += data
        except OSError:
            pass
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0
    return sent, status


@dataclass(frozen=True)
class FloodFigures:
    per_path: dict[str, tuple[int, int, dict[int, int]]]
    """Per path: bytes sent, connections made, and how many answers had each status."""
    rss_before_mb: float
    rss_peak_mb: float
    seconds: float


def flood(server: Server, total_mb: int) -> FloodFigures:
    assert server.process is not None
    pid = server.process.pid
    before = rss_kib(pid)
    peak = before
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, rss_kib(pid))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    per_path: dict[str, tuple[int, int, dict[int, int]]] = {}
    started = time.monotonic()
    for path in ("/api/events", "/api/auth"):
        remaining = total_mb * 1_000_000
        statuses: dict[int, int] = {}
        connections = 0
        sent_total = 0
        while remaining > 0:
            sent, status = flood_once(server.url, path, remaining)
            remaining -= max(sent, 65_536)
            sent_total += sent
            statuses[status] = statuses.get(status, 0) + 1
            connections += 1
        per_path[path] = (sent_total, connections, statuses)
    stop.set()
    sampler.join()
    return FloodFigures(per_path, rss_before_mb=before / 1024, rss_peak_mb=peak / 1024,
                        seconds=time.monotonic() - started)


# -- 2. guessing ------------------------------------------------------------------------------


def post_from(url: str, address: str, path: str, body: bytes) -> int:
    """One POST from a given source address (raw socket: a client per address is cheap)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10,
                                  source_address=(address, 0)) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: "
                     f"application/json\r\nContent-Length: {len(body)}\r\n"
                     "Connection: close\r\n\r\n".encode() + body)
        answer = b""
        while b"\r\n" not in answer:
            data = sock.recv(4096)
            if not data:
                break
            answer += data
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0


def guess(server: Server, seconds: float) -> tuple[int, int, int]:
    """Wrong PINs, each from a new loopback address; (checked 401, refused 429, 5xx)."""
    checked = refused = errors = 0
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        n += 1
        address = f"127.{(n >> 16) % 250 + 1}.{(n >> 8) & 255}.{n & 255 or 1}"
        status = post_from(server.url, address, "/api/auth",
                           f'{{"pin": "{n % 1_000_000:06d}"}}'.encode())
        checked += status == 401
        refused += status == 429
        errors += status >= 500
    return checked, refused, errors


def limit_arithmetic(settings: Settings) -> tuple[float, float, float]:
    """Guesses per hour the table-wide limit allows, expected years to find a 6-digit
    PIN, and the chance of finding it within a year."""
    per_hour = 3600 / settings.table_pin_refill_seconds
    first_year = settings.table_pin_attempts + per_hour * YEAR_HOURS
    expected_years = (1_000_000 / 2) / per_hour / YEAR_HOURS
    return per_hour, expected_years, min(1.0, first_year / 1_000_000)


# -- 3. kill and restart --------------------------------------------------------------------


def kill_restart(server: Server, kills: int, rng: random.Random) -> dict[str, int]:
    acknowledged: set[int] = set()
    attempted = lost = errors = 0
    for _ in range(kills):
        server.start()
        headers = token(server.url, "writer")
        matches = {m["id"] for m in httpx.get(server.url + "/api/matches", timeout=10).json()}
        lost += len(acknowledged - matches)
        stop = threading.Event()

        def write(headers: dict[str, str] = headers, stop: threading.Event = stop) -> None:
            nonlocal attempted, errors
            with httpx.Client(base_url=server.url, timeout=5) as client:
                while not stop.is_set():
                    attempted += 1
                    try:
                        answer = client.post("/api/matches", json=MATCH, headers=headers)
                    except httpx.HTTPError:
                        return  # killed mid-request: not acknowledged
                    if answer.status_code == 201:
                        acknowledged.add(int(answer.json()["id"]))
                    elif answer.status_code >= 500:
                        errors += 1

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        time.sleep(rng.uniform(0.2, 1.0))
        server.kill()
        stop.set()
        writer.join(10)
    server.start()
    matches = {m["id"] for m in httpx.get(server.url + "/api/matches", timeout=10).json()}
    lost += len(acknowledged - matches)
    server.stop()
    return {"kills": kills, "attempted": attempted, "acknowledged": len(acknowledged),
            "lost": lost, "5xx": errors}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flood-mb", type=int, default=300)
    parser.add_argument("--guess-seconds", type=float, default=20.0)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-abuse-"))
    tracebacks = 0
    try:
        server = Server(work / "flood", free_port())
        server.start()
        figures = flood(server, args.flood_mb)
        alive = httpx.get(server.url + "/api/state", timeout=5).status_code
        server.stop()
        tracebacks += server.tracebacks
        print(f"Chunked flood, {args.flood_mb} MB without a token to each path "
              f"({figures.seconds:.1f} s):")
        for path in ("/api/events", "/api/auth"):
            sent, connections, statuses = figures.per_path[path]
            print(f"  {path:12} {sent / 1e6:7.1f} MB sent over {connections} connections, each "
                  f"cut off by the server; answers {dict(sorted(statuses.items()))}")
        print(f"  server RSS: {figures.rss_before_mb:.1f} MB before, "
              f"{figures.rss_peak_mb:.1f} MB at the peak (goal: under 150 MB); "
              f"answering afterwards: {alive}")

        settings = Settings(data_dir=work)
        server = Server(work / "guess", free_port())
        server.start()
        checked, refused, errors = guess(server, args.guess_seconds)
        server.stop()
        tracebacks += server.tracebacks
        per_hour, years, within_year = limit_arithmetic(settings)
        print(f"Guessing from a new loopback address each time for {args.guess_seconds:.0f} s: "
              f"{checked} wrong PINs checked, {refused} refused (429), {errors} 5xx")
        print(f"  allowed: {settings.table_pin_attempts} at once, then {per_hour:.0f} per hour "
              f"table-wide (measured: {checked} in {args.guess_seconds:.0f} s)")
        print(f"  a 6-digit PIN: expected {years:.1f} years to find "
              f"(half of 1,000,000 at {per_hour:.0f}/h); "
              f"{within_year:.1%} chance within a year (goal: survives at least a year)")

        server = Server(work / "kill", free_port())
        result = kill_restart(server, args.kills, random.Random(args.seed))
        tracebacks += server.tracebacks
        print(f"Kill-restart: {result['kills']} SIGKILLs during writes, "
              f"{result['acknowledged']} changes acknowledged of {result['attempted']} tried, "
              f"{result['lost']} acknowledged lost (goal: 0), {result['5xx']} 5xx")
        print(f"Tracebacks in the server's output over every run: {tracebacks} (goal: 0)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
