"""Addresses on this machine for the Phoenix launcher: loopback hosts, URLs, free ports (IPv4 and IPv6)."""

from __future__ import annotations

import socket

from bertscore_plugins.errors import PhoenixServerError
from bertscore_plugins.tools.phoenix_loopback import is_loopback


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def url_host(host: str) -> str:
    """``host`` as a URL writes it: an IPv6 address in brackets (``[::1]``)."""
    return f"[{host}]" if ":" in host else host


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` (an IPv4 or IPv6 address) right now."""
    with socket.socket(_family(host), socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def port_in_use(host: str, port: int) -> OSError | None:
    """Why a server could not listen on ``host:port`` now, or None if it could.

    Binds as servers do, with SO_REUSEADDR: connections of a server that just stopped linger in TIME_WAIT
    for a minute and block a plain bind, but not a new server; only a live listener does."""
    with socket.socket(_family(host), socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
            sock.listen()
        except OSError as error:
            return error
    return None


def check_port_free(host: str, port: int, what: str) -> None:
    error = port_in_use(host, port)
    if error is not None:
        raise PhoenixServerError(f"{what} port {port} on {host} is in use ({error}); choose another")


def is_loopback_host(host: object) -> bool:
    """True for a loopback address given as text (127.0.0.1, ::1, [::1], localhost)."""
    return isinstance(host, str) and bool(host.strip()) and is_loopback(host)
