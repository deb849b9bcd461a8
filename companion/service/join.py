"""How phones find the table: the LAN address, the QR code, and mDNS.

The QR code carries the IP address, not a ``.local`` name: many Android
phones cannot resolve those. mDNS is announced as well, as a convenience only.
"""

from __future__ import annotations

import contextlib
import io
import socket
from typing import Any

import segno


def lan_address() -> str:
    """This machine's address on the LAN (no packet is sent), or 127.0.0.1."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        # Connecting a UDP socket only picks the outgoing interface.
        probe.connect(("10.255.255.255", 1))
        address = str(probe.getsockname()[0])
    except OSError:
        address = "127.0.0.1"
    finally:
        probe.close()
    return address


def table_url(host: str, port: int) -> str:
    """
    >>> table_url("192.168.1.20", 8000)
    'http://192.168.1.20:8000/'
    >>> table_url("192.168.1.20", 80)
    'http://192.168.1.20/'
    """
    return f"http://{host}/" if port == 80 else f"http://{host}:{port}/"


def qr_svg(url: str) -> str:
    """The URL as an SVG QR code (black on white, no fixed size: the page scales it)."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer, kind="svg", scale=1, border=2, omitsize=True, xmldecl=False,
        svgclass="qr", lineclass=None, title="Scan to join the table",
    )
    return buffer.getvalue().decode()


def qr_terminal(url: str) -> str:
    """The URL as a QR code drawn with block characters for the host terminal."""
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


class MdnsAnnouncer:
    """Best-effort ``_http._tcp`` announcement as "Table Companion"; failures are ignored."""

    def __init__(self, address: str, port: int, name: str = "Table Companion") -> None:
        self.address = address
        self.port = port
        self.name = name
        self._zeroconf: Any = None
        self._info: Any = None
        self.error: str | None = None

    def start(self) -> bool:
        try:
            from zeroconf import ServiceInfo, Zeroconf

            self._info = ServiceInfo(
                "_http._tcp.local.",
                f"{self.name}._http._tcp.local.",
                addresses=[socket.inet_aton(self.address)],
                port=self.port,
                properties={"path": "/"},
                server="table-companion.local.",
            )
            self._zeroconf = Zeroconf()
            self._zeroconf.register_service(self._info, allow_name_change=True)
            return True
        except Exception as exc:  # no multicast on this network: the QR code still works
            self.error = str(exc)
            self.close()
            return False

    def close(self) -> None:
        if self._zeroconf is not None:
            with contextlib.suppress(Exception):
                if self._info is not None:
                    self._zeroconf.unregister_service(self._info)
                self._zeroconf.close()
            self._zeroconf = None
