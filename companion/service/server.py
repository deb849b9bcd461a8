"""uvicorn, made to stop promptly while phones hold event streams open.

uvicorn's graceful shutdown waits for every open response to finish, and an
event stream never finishes by itself; so before the wait, every stream is
told to end. A short graceful timeout backs this up.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from companion.service.live import Hub


class TableServer(uvicorn.Server):
    """A uvicorn server that ends the table's live streams first when it stops."""

    def __init__(self, app: FastAPI, host: str, port: int, log_level: str = "warning",
                 trusted_proxies: tuple[str, ...] = (),
                 on_started: Callable[[], None] | None = None) -> None:
        self.table_app = app
        self.on_started = on_started
        super().__init__(uvicorn.Config(
            app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=3,
            lifespan="on", access_log=False,
            # uvicorn believes X-Forwarded-For from 127.0.0.1 unless told otherwise: one
            # client on the Pi itself could then pose as any number of addresses.
            proxy_headers=bool(trusted_proxies),
            forwarded_allow_ips=list(trusted_proxies) or None,
        ))

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start, then call ``on_started`` once listening: what the host screen says is
        true by then, and a Ctrl-C after it finds the graceful stop in place."""
        await super().startup(sockets)
        if self.started and self.on_started is not None:
            self.on_started()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        hub = getattr(self.table_app.state, "hub", None)
        if isinstance(hub, Hub):
            hub.close()
        await super().shutdown(sockets)

    @property
    def bound_port(self) -> int:
        """The port actually listened on (useful with port 0)."""
        for server in self.servers:
            for sock in server.sockets:
                port: int = sock.getsockname()[1]
                return port
        return self.config.port


@contextmanager
def serving_in_thread(app: FastAPI, host: str = "127.0.0.1", port: int = 0,
                      start_timeout: float = 10.0) -> Iterator[TableServer]:
    """Serve ``app`` from a background thread for the length of the block (benchmarks,
    tests): it is listening when the block starts and stopped when it ends."""
    server = TableServer(app, host, port)
    thread = threading.Thread(target=server.run, name="table-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"the table server did not start on {host}:{port}")
        time.sleep(0.01)
    try:
        yield server
    finally:
        server.should_exit = True
        thread.join(10)
    if thread.is_alive():
        raise RuntimeError("the table server did not stop within 10 s")
