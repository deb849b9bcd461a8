"""What the benches that start ``companion serve`` share: a free port, a process's memory.

Run as scripts (``python bench/bench_x.py``), the benches find this module beside them.
"""

from __future__ import annotations

import socket
from pathlib import Path


def free_port() -> int:
    """A TCP port nothing listens on now (the benches never take a fixed one)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def rss_kib(pid: int) -> int:
    """The resident memory of process ``pid`` in KiB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0
