"""A stand-in for `python` that has a listening zygote (tests/support/fresh_interpreter.py) run the command.

    python -S zygote_client.py ADDRESS PYTHON ARGS...

Sends ``PYTHON ARGS...``, the cwd, the environment and this process's stdin, stdout and stderr to the
zygote at ADDRESS, waits, and exits with the command's status (a command killed by a signal: this process
is killed by it too). A command the zygote refuses (a script's path, another environment) or no zygote at
all: ``PYTHON ARGS...`` replaces this process, a new interpreter as the shell would have started.
Standard library only, and run with ``-S``: it starts in milliseconds.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys


def main(arguments: list[str]) -> int:
    address, python, *args = arguments
    command = [python, *args]
    request = {"argv": command, "cwd": os.getcwd(), "env": dict(os.environ)}
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as zygote:
            zygote.connect(address)
            socket.send_fds(zygote, [json.dumps(request).encode()], [0, 1, 2])
            answer = zygote.recv(1 << 16)
    except OSError:
        answer = b""
    reply = json.loads(answer) if answer else {"refused": "no zygote"}
    if "refused" in reply:
        os.execv(python, command)
    code = reply["returncode"]
    if code < 0:  # killed by a signal: so is this process, as the shell would have seen it
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
