"""uvicorn, made to stop promptly while phones hold event streams open.

uvicorn's graceful shutdown waits for every open response to finish, and an
event stream never finishes by itself; so before the wait, every stream is
told to end. A short graceful timeout backs this up.
"""

from __future__ import annotations

import socket

import uvicorn
from fastapi import FastAPI

from companion.service.live import Hub


class TableServer(uvicorn.Server):
    """A uvicorn server that ends the table's live streams first when it stops."""

    def __init__(self, app: FastAPI, host: str, port: int, log_level: str = "warning") -> None:
        self.table_app = app
        super().__init__(uvicorn.Config(
            app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=3,
            lifespan="on", access_log=False,
        ))

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
