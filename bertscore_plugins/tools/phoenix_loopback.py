"""Run ``phoenix serve`` so that nothing it opens listens beyond loopback, whatever its settings say.

Phoenix binds OTLP gRPC to ``[::]`` whatever ``PHOENIX_HOST`` says (``phoenix/server/grpc_server.py``),
and an inherited ``PHOENIX_ENABLE_PROMETHEUS=true`` starts a metrics server on ``*:9090``. The launcher
strips such variables, and this wrapper closes the door in the process itself, fail-closed:

- every Python socket bound to an internet address that is not loopback (``0.0.0.0``, ``""``, ``::``,
  a LAN address, any spelling) is bound to ``$PHOENIX_HOST`` (127.0.0.1 by default) instead;
- gRPC (its sockets are made in C, not through Python's ``socket``) has every port address rewritten the
  same way: the host part is parsed out of any spelling (``[::]:p``, ``0.0.0.0:p``, ``:p``, ``ipv4:...``,
  ``dns:///...``) and replaced unless it is a loopback address; an address whose port cannot be read is
  refused rather than passed through.

It also never outlives the process that started it: with ``$BERTSCORE_PHOENIX_OWNER_PID`` set (the
launcher sets it), a watcher thread stops the server once that process is gone, even after a SIGKILL,
so no orphaned server keeps its ports and database.

It runs with the Phoenix virtual environment's interpreter and imports nothing from bertscore_plugins:
``<venv>/bin/python _loopback_serve.py [phoenix serve options...]``.
"""

import ipaddress
import os
import signal
import socket
import sys
import threading
import time

OWNER_ENV = "BERTSCORE_PHOENIX_OWNER_PID"

HOST = os.environ.get("PHOENIX_HOST", "127.0.0.1")
_LOOPBACK = {socket.AF_INET: "127.0.0.1", socket.AF_INET6: "::1"}


def is_loopback(host: str) -> bool:
    """True for 'localhost' and loopback IP addresses (127.0.0.0/8, ::1, ::ffff:127.x)."""
    host = host.strip().strip("[]").split("%", 1)[0]
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def loopback_address(address: str) -> str:
    """A gRPC port address with its host replaced by HOST unless it is already loopback.

    Raises ValueError for an address whose port cannot be found (never passed through unchecked).
    """
    rest = address.strip()
    for scheme in ("ipv4:", "ipv6:", "dns:"):
        if rest.lower().startswith(scheme):
            rest = rest[len(scheme) :]
            break
    rest = rest.lstrip("/")
    if "," in rest:
        raise ValueError(f"refusing gRPC address {address!r}: several addresses in one")
    if rest.startswith("["):
        host, _, tail = rest[1:].partition("]")
        port = tail[1:] if tail.startswith(":") else ""
    elif rest.count(":") == 1 or ":" not in rest:
        host, _, port = rest.rpartition(":")
    else:  # a bare IPv6 address with a port: the last group is the port
        host, _, port = rest.rpartition(":")
    if not port.isdigit():
        raise ValueError(f"refusing gRPC address {address!r}: no port found")
    if host and is_loopback(host):
        return address
    return f"[{HOST}]:{port}" if ":" in HOST else f"{HOST}:{port}"


_bind = socket.socket.bind


def _loopback_bind(self: socket.socket, address) -> None:
    if self.family in _LOOPBACK and isinstance(address, tuple) and not is_loopback(str(address[0])):
        host = HOST if (":" in HOST) == (self.family == socket.AF_INET6) else _LOOPBACK[self.family]
        address = (host, *address[1:])
    return _bind(self, address)


def install() -> None:
    """Patch socket binding and gRPC servers in this process (idempotent)."""
    socket.socket.bind = _loopback_bind  # type: ignore[method-assign,assignment]
    try:
        import grpc.aio
    except ImportError:  # pragma: no cover - Phoenix depends on grpcio
        return
    if getattr(grpc.aio.server, "_loopback", False):
        return
    make_server = grpc.aio.server

    def loopback_server(*args, **kwargs):
        server = make_server(*args, **kwargs)
        add_insecure, add_secure = server.add_insecure_port, server.add_secure_port
        server.add_insecure_port = lambda address: add_insecure(loopback_address(address))
        server.add_secure_port = lambda address, credentials: add_secure(
            loopback_address(address), credentials
        )
        return server

    loopback_server._loopback = True  # type: ignore[attr-defined]
    grpc.aio.server = loopback_server


def exit_with_owner(owner: int, poll_s: float = 1.0, grace_s: float = 30.0) -> threading.Thread:
    """Stop this process (SIGTERM: Phoenix shuts down cleanly; a hard exit after `grace_s`) once its
    parent is no longer `owner`: the owner exited or was killed, and this process was re-parented."""

    def watch() -> None:
        while os.getppid() == owner:
            time.sleep(poll_s)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(grace_s)
        os._exit(1)

    watcher = threading.Thread(target=watch, name="exit-with-owner", daemon=True)
    watcher.start()
    return watcher


if __name__ == "__main__":
    install()
    if os.environ.get(OWNER_ENV, "").isdigit():
        exit_with_owner(int(os.environ[OWNER_ENV]))
    from phoenix.server.main import main

    sys.argv = ["phoenix", "serve", *sys.argv[1:]]
    sys.exit(main())
