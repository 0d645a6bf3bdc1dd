"""Run ``phoenix serve`` with its OTLP gRPC port bound to loopback only.

Phoenix binds gRPC to ``[::]`` whatever ``PHOENIX_HOST`` says (``phoenix/server/grpc_server.py``), which
would expose the trace collector on every interface. This wrapper rewrites that address to
``$PHOENIX_HOST`` (default 127.0.0.1) before handing over to Phoenix's own ``main()``.

It runs with the Phoenix virtual environment's interpreter and imports nothing from bertscore_plugins:
``<venv>/bin/python _loopback_serve.py [phoenix serve options...]``.
"""

import os
import sys

import grpc.aio

HOST = os.environ.get("PHOENIX_HOST", "127.0.0.1")
_make_server = grpc.aio.server


def _loopback(address: str) -> str:
    for wildcard in ("[::]:", "0.0.0.0:"):
        if address.startswith(wildcard):
            return f"{HOST}:{address[len(wildcard) :]}"
    return address


def _loopback_server(*args, **kwargs):
    server = _make_server(*args, **kwargs)
    add_insecure, add_secure = server.add_insecure_port, server.add_secure_port
    server.add_insecure_port = lambda address: add_insecure(_loopback(address))
    server.add_secure_port = lambda address, credentials: add_secure(_loopback(address), credentials)
    return server


grpc.aio.server = _loopback_server

if __name__ == "__main__":
    from phoenix.server.main import main

    sys.argv = ["phoenix", "serve", *sys.argv[1:]]
    sys.exit(main())
