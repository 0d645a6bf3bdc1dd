"""The Phoenix launcher never lets the server's process tree listen beyond loopback, whatever Phoenix's
environment variables say (checked with `ss -ltnp` while it runs)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bertscore_plugins.errors import PhoenixServerError
from bertscore_plugins.tools import phoenix_loopback as _loopback_serve
from bertscore_plugins.tools.phoenix_loopback import is_loopback, loopback_address
from bertscore_plugins.tools.phoenix_ports import port_in_use
from bertscore_plugins.tools.phoenix_server import PhoenixServer
from bertscore_plugins.tools.phoenix_venv import ensure_phoenix_venv

WRAPPER = Path(_loopback_serve.__file__)
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("[::]:4317", "127.0.0.1:4317"),
        ("0.0.0.0:4317", "127.0.0.1:4317"),
        (":4317", "127.0.0.1:4317"),
        ("[::0]:4317", "127.0.0.1:4317"),
        ("[0:0:0:0:0:0:0:0]:4317", "127.0.0.1:4317"),
        ("ipv4:0.0.0.0:4317", "127.0.0.1:4317"),
        ("ipv6:[::]:4317", "127.0.0.1:4317"),
        ("dns:///0.0.0.0:4317", "127.0.0.1:4317"),
        ("192.168.1.20:4317", "127.0.0.1:4317"),
        ("[fe80::1%eth0]:4317", "127.0.0.1:4317"),
        ("example.com:4317", "127.0.0.1:4317"),
        ("[::ffff:0.0.0.0]:4317", "127.0.0.1:4317"),
        ("127.0.0.1:4317", "127.0.0.1:4317"),
        ("127.0.0.2:4317", "127.0.0.2:4317"),
        ("[::1]:4317", "[::1]:4317"),
        ("localhost:4317", "localhost:4317"),
        ("[::ffff:127.0.0.1]:4317", "[::ffff:127.0.0.1]:4317"),
    ],
)
def test_every_grpc_address_spelling_is_bound_to_loopback(address, expected):
    assert loopback_address(address) == expected


@pytest.mark.parametrize("address", ["[::]", "0.0.0.0", "unix:/tmp/x", "0.0.0.0:4317,[::]:4317", "host:port"])
def test_grpc_addresses_without_a_readable_port_are_refused_not_passed_through(address):
    with pytest.raises(ValueError, match=f"^refusing gRPC address {re.escape(repr(address))}"):
        loopback_address(address)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.8.8", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LOCALHOST", True),
        ("::ffff:127.0.0.1", True),
        ("0.0.0.0", False),
        ("", False),
        ("::", False),
        ("10.0.0.1", False),
        ("localhost.example.com", False),
        ("0", False),
    ],
)
def test_loopback_hosts(host, loopback):
    assert is_loopback(host) is loopback


@pytest.mark.parametrize("host", ["0.0.0.0", "", "::", "192.168.0.1", "example.com", "0"])
def test_the_launcher_refuses_a_host_beyond_loopback(host):
    with pytest.raises(ValueError, match="host must be a loopback address"):
        PhoenixServer(host=host)


def test_inherited_listener_variables_are_not_passed_to_the_server(monkeypatch, tmp_path):
    for name, value in {
        "PHOENIX_ENABLE_PROMETHEUS": "true",
        "PHOENIX_HOST": "0.0.0.0",
        "PHOENIX_PORT": "80",
        "PHOENIX_GRPC_PORT": "4317",
        "PHOENIX_GRPC_HOST": "0.0.0.0",
        "PHOENIX_BIND_ADDRESS": "::",
        "PHOENIX_SMTP_HOSTNAME": "mail.example.com",
    }.items():
        monkeypatch.setenv(name, value)
    server = PhoenixServer(workdir=tmp_path, port=6111, grpc_port=6112)
    env = server._child_env()
    assert env["PHOENIX_ENABLE_PROMETHEUS"] == "false"
    assert (env["PHOENIX_HOST"], env["PHOENIX_PORT"], env["PHOENIX_GRPC_PORT"]) == (
        "127.0.0.1",
        "6111",
        "6112",
    )
    assert "PHOENIX_GRPC_HOST" not in env and "PHOENIX_BIND_ADDRESS" not in env
    assert env["PHOENIX_SMTP_HOSTNAME"] == "mail.example.com"  # an outgoing connection, kept


# ------------------------------------------------------------------ real processes, listeners seen by ss


def _phoenix_python() -> str:
    try:
        return str(ensure_phoenix_venv())
    except (PhoenixServerError, OSError) as error:  # pragma: no cover - no package index
        pytest.fail(f"the Phoenix environment is needed for this test and could not be made: {error}")


def _tree(root: int) -> set[int]:
    """`root` and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo += children.get(pid, [])
    return found


def _listeners(pids: set[int]) -> list[str]:
    """Local addresses of the TCP and UDP sockets these processes listen on (ss -ltnup)."""
    assert shutil.which("ss"), "ss (iproute2) is needed to see listeners"
    output = subprocess.run(["ss", "-ltnupH"], capture_output=True, text=True, check=True).stdout
    found = []
    for line in output.splitlines():
        owners = {int(pid) for pid in re.findall(r"pid=(\d+)", line)}
        if owners & pids:
            found.append(line.split()[4])
    return found


def _host_of(local: str) -> str:
    host = local.rsplit(":", 1)[0]
    return host.strip("[]").split("%", 1)[0]


def test_a_port_is_in_use_while_served_and_free_while_its_last_connections_linger(tmp_path):
    """A stopped server leaves its connections in TIME_WAIT; a new server may still listen there."""
    _phoenix_python()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn and gRPC do
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = listener.accept()
    try:
        assert isinstance(port_in_use("127.0.0.1", port), OSError)
        with pytest.raises(PhoenixServerError, match=f"HTTP port {port} on 127.0.0.1 is in use"):
            PhoenixServer(port=port, workdir=tmp_path / "work").start()
    finally:
        accepted.close()  # the server side closes first: its socket waits in TIME_WAIT
        listener.close()
        client.close()
    with socket.socket() as plain, pytest.raises(OSError):  # the lingering connection is there
        plain.bind(("127.0.0.1", port))
    assert port_in_use("127.0.0.1", port) is None


def test_python_sockets_in_the_wrapper_are_bound_to_loopback_whatever_address_is_asked():
    python = _phoenix_python()
    script = textwrap.dedent(f"""
        import socket, sys
        sys.path.insert(0, {str(WRAPPER.parent)!r})
        import phoenix_loopback as _loopback_serve
        _loopback_serve.install()
        for family, host in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET, ""), (socket.AF_INET6, "::"),
                             (socket.AF_INET, "127.0.0.1")):
            s = socket.socket(family, socket.SOCK_STREAM)
            s.bind((host, 0))
            s.listen()
            print(s.getsockname()[0])
        """)
    result = subprocess.run([python, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["127.0.0.1", "127.0.0.1", "::1", "127.0.0.1"]


def test_a_grpc_server_asked_for_every_interface_listens_on_loopback_only():
    python = _phoenix_python()
    script = textwrap.dedent(f"""
        import asyncio, sys
        sys.path.insert(0, {str(WRAPPER.parent)!r})
        import phoenix_loopback as _loopback_serve
        _loopback_serve.install()
        import grpc.aio

        async def main():
            server = grpc.aio.server()
            ports = [server.add_insecure_port(address) for address in ("[::]:0", "0.0.0.0:0", ":0")]
            await server.start()
            print(*ports, flush=True)
            sys.stdin.readline()
            await server.stop(None)

        asyncio.run(main())
        """)
    process = subprocess.Popen(
        [python, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        ports = process.stdout.readline().split()
        assert len(ports) == 3 and all(int(port) > 0 for port in ports)
        listening = _listeners({process.pid})
        assert sorted(local.rsplit(":", 1)[1] for local in listening) == sorted(ports)
        # gRPC binds 127.0.0.1 through an IPv6 socket: it shows as the IPv4-mapped [::ffff:127.0.0.1]
        assert {_host_of(local) for local in listening} <= {"127.0.0.1", "::ffff:127.0.0.1"}
        assert all(is_loopback(_host_of(local)) for local in listening)
    finally:
        process.stdin.close()
        process.wait(timeout=30)


# -------------------------------------------------------------------- a server never outlives its owner


def _gone(pid: int) -> bool:
    """True once `pid` has exited (a zombie nobody reaped counts as exited)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def _wait_gone(pids: set[int], timeout: float) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not all(_gone(pid) for pid in pids):
        time.sleep(0.2)
    return {pid for pid in pids if not _gone(pid)}


def _killed_owner(
    script: str, tmp_path: Path, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen, list[str]]:
    """Run `script` as the owner process (with `env` added to ours); return it and the lines it printed
    up to "ready"."""
    owner = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={
            **os.environ,
            **(env or {}),
            "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        },
    )
    lines = []
    assert owner.stdout is not None
    for line in owner.stdout:
        if line.strip() == "ready":
            break
        lines.append(line.strip())
    return owner, lines


def test_the_wrapper_stops_once_its_owner_is_killed(tmp_path):
    """The watcher alone (no Phoenix): the owner is SIGKILLed, its child stops within seconds."""
    watched = tmp_path / "watched.py"
    watched.write_text(
        textwrap.dedent(
            f"""
            import sys, time
            sys.path.insert(0, {str(WRAPPER.parent)!r})
            import phoenix_loopback as _loopback_serve
            _loopback_serve.exit_with_owner(int(sys.argv[1]), poll_s=0.1, grace_s=5)
            time.sleep(600)
            """
        )
    )
    owner, lines = _killed_owner(
        f"""
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, {str(watched)!r}, str(os.getpid())])
        print(child.pid, flush=True)
        print("ready", flush=True)
        time.sleep(600)
        """,
        tmp_path,
    )
    child = int(lines[-1])
    try:
        time.sleep(0.5)
        assert not _gone(child)
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(timeout=10)
        assert _wait_gone({child}, timeout=15) == set()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)


# -- IPv6 loopback -----------------------------------------------------------------------------------


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


needs_ipv6 = pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback (::1) on this machine")


@needs_ipv6
@pytest.mark.parametrize("host", ["::1", "[::1]", " ::1 "])
def test_an_ipv6_loopback_host_gives_bracketed_urls_with_a_real_port(host, tmp_path):
    server = PhoenixServer(host=host, workdir=tmp_path)
    assert server.host == "::1"
    assert "None" not in repr(server)  # before any port is chosen
    match = re.fullmatch(r"http://\[::1\]:(\d+)", server.base_url)
    assert match and server.port == int(match.group(1)) and server.port > 0
    assert server.otlp_http_endpoint == f"{server.base_url}/v1/traces"
    assert server.grpc_address == f"[::1]:{server.grpc_port}" and server.grpc_port > 0
    assert server.grpc_endpoint == f"http://[::1]:{server.grpc_port}"
    assert port_in_use("::1", server.port) is None  # chosen free on ::1 itself, not on 127.0.0.1


def test_an_ipv4_server_url_is_unchanged(tmp_path):
    server = PhoenixServer(port=6123, grpc_port=4399, workdir=tmp_path)
    assert (server.base_url, server.grpc_address) == ("http://127.0.0.1:6123", "127.0.0.1:4399")


def test_phoenix_serve_refuses_a_host_beyond_loopback_in_one_line(capsys):
    from tests.support.cli import one_error_line

    line = one_error_line(capsys, ["phoenix", "serve", "--host", "0.0.0.0"])
    assert "host must be a loopback address (127.0.0.1, ::1, localhost), got '0.0.0.0'" in line


# -- the PID file ------------------------------------------------------------------------------------


def test_a_pid_file_naming_an_unrelated_live_process_is_stale_and_removed(tmp_path):
    server = PhoenixServer(workdir=tmp_path)
    server.pid_file.write_text(f"{os.getpid()}\n")  # alive, but this test, not a Phoenix server
    server._claim_pid_file()
    assert not server.pid_file.exists()
    for content in ("999999999\n", "not a pid\n", ""):  # gone, or unreadable
        server.pid_file.write_text(content)
        server._claim_pid_file()
        assert not server.pid_file.exists()


def test_a_pid_file_naming_a_live_server_of_ours_is_refused_with_its_pid(tmp_path):
    # a process whose command line runs the wrapper, as a launched server's does
    wrapper = tmp_path / "bin" / WRAPPER.name
    wrapper.parent.mkdir()
    wrapper.write_text("import time\ntime.sleep(120)\n")
    process = subprocess.Popen([sys.executable, str(wrapper)])
    try:
        server = PhoenixServer(workdir=tmp_path / "work")
        server.workdir.mkdir()
        server.pid_file.write_text(f"{process.pid}\n")
        with pytest.raises(PhoenixServerError) as caught:
            server._claim_pid_file()
        assert str(caught.value) == (
            f"a Phoenix server (pid {process.pid}) already uses {server.workdir}; stop it "
            f"(kill -TERM {process.pid}) or choose another workdir"
        )
        assert server.pid_file.exists()  # it is still in use
    finally:
        process.kill()
        process.wait()


# -- one launched Phoenix server: loopback only, on ::1, gone with its owner -------------------------
#
# Starting Phoenix is the expensive part (~15-20 CPU s), so the three tests that need a real server share
# one: an owner process (so that it can be SIGKILLed) launches it on the IPv6 loopback (127.0.0.1 on a
# machine without ::1) with Prometheus and every interface asked for in its environment. The test that
# kills the owner comes last; in any other order (pytest -p randomly) a test finding the server gone
# launches another.

PROMETHEUS_ASKED_FOR = {
    "PHOENIX_ENABLE_PROMETHEUS": "true",
    "PHOENIX_HOST": "0.0.0.0",
    "PHOENIX_GRPC_PORT": "4317",
}


class OwnedServer:
    """A Phoenix server launched by a separate owner process; `server` is a handle on it in this process
    (its addresses, healthy(), version()), not the one that started it."""

    def __init__(self, workdir: Path, host: str):
        _phoenix_python()
        self.owner, lines = _killed_owner(
            f"""
            from bertscore_plugins.tools.phoenix_server import PhoenixServer
            import time
            server = PhoenixServer(host={host!r}, workdir={str(workdir / "work")!r}, startup_timeout=240).start()
            print(server.pid, server.port, server.grpc_port, flush=True)
            print("ready", flush=True)
            time.sleep(600)
            """,
            workdir,
            env=PROMETHEUS_ASKED_FOR,
        )
        assert lines, "the owner process exited before the server was up"
        self.pid, port, grpc_port = (int(value) for value in lines[-1].split())
        self.server = PhoenixServer(host=host, port=port, grpc_port=grpc_port, workdir=workdir / "handle")
        self.tree = _tree(self.pid)

    @property
    def alive(self) -> bool:
        return self.owner.poll() is None and not _gone(self.pid)

    def close(self) -> None:
        """Stop what is left by pid: the owner, then the server's tree (SIGTERM, SIGKILL after 30 s)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.owner.pid, signal.SIGKILL)
        self.owner.wait(timeout=10)
        for pid in self.tree:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for pid in _wait_gone(self.tree, timeout=30):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def owned_server(tmp_path_factory):
    """Returns the module's live OwnedServer, launching one when there is none (or it was killed)."""
    host = "::1" if _ipv6_loopback() else "127.0.0.1"
    launched: list[OwnedServer] = []

    def live() -> OwnedServer:
        if not launched or not launched[-1].alive:
            launched.append(OwnedServer(tmp_path_factory.mktemp("owned-phoenix"), host))
        return launched[-1]

    try:
        yield live
    finally:
        for owned in launched:
            owned.close()


@pytest.mark.slow
def test_the_launched_server_tree_listens_on_loopback_only_with_prometheus_asked_for(owned_server):
    owned = owned_server()
    listening = _listeners(_tree(owned.pid))
    ports = {local.rsplit(":", 1)[1] for local in listening}
    assert {str(owned.server.port), str(owned.server.grpc_port)} <= ports
    beyond = [local for local in listening if not is_loopback(_host_of(local))]
    assert beyond == [], f"listeners beyond loopback: {beyond}"
    assert not any(local.endswith(":9090") for local in listening)


@needs_ipv6
@pytest.mark.slow
def test_phoenix_serves_on_the_ipv6_loopback(owned_server):
    server = owned_server().server
    assert server.healthy() and re.fullmatch(r"\d+\.\d+\.\d+", server.version())
    assert server.base_url.startswith("http://[::1]:")
    with pytest.raises(OSError):  # not on the IPv4 loopback: only where it was asked to listen
        socket.create_connection(("127.0.0.1", server.port), timeout=2).close()


@pytest.mark.slow
def test_a_launched_server_stops_when_the_process_that_started_it_is_killed(owned_server):
    """A script holding a PhoenixServer dies by SIGKILL (no cleanup runs): the server goes too, pid and
    ports freed, instead of running on as an orphan."""
    owned = owned_server()
    assert owned.tree and not _gone(owned.pid)
    os.kill(owned.owner.pid, signal.SIGKILL)
    owned.owner.wait(timeout=10)
    assert _wait_gone(owned.tree, timeout=60) == set(), "the server outlived its owner"
    assert port_in_use(owned.server.host, owned.server.port) is None, "the port is still served"


# -------------------------------------------------------------------- where the server writes


def _files_of(folder: Path) -> set[str]:
    """Every file and folder under `folder` (what a server writing there would add: an environment, a
    database, a log, a PID file); bytecode caches left out (Python writes them for any import)."""
    return {str(path.relative_to(folder)) for path in folder.rglob("*") if "__pycache__" not in path.parts}


@pytest.mark.slow
def test_phoenix_serve_from_a_new_folder_leaves_the_package_folder_untouched(tmp_path):
    """The environment goes to the user's cache and the data to the user's folder: nothing into the
    package's folder or the checkout it was installed from."""
    try:
        real_venv = ensure_phoenix_venv().parent.parent  # the checkout's (tests/conftest.py): no install
    except PhoenixServerError as error:
        pytest.skip(f"no Phoenix environment: {error}")
    cache = tmp_path / "cache"
    (cache / "bertscore-plugins").mkdir(parents=True)
    (cache / "bertscore-plugins" / "phoenix-venv").symlink_to(real_venv)  # the default place, filled
    user = tmp_path / "my-project"
    user.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BERTSCORE_PHOENIX_")}
    env.update(XDG_CACHE_HOME=str(cache), PYTHONDONTWRITEBYTECODE="1")
    package, checkout = _files_of(REPO / "bertscore_plugins"), sorted(p.name for p in REPO.iterdir())
    serve = [
        sys.executable,
        "-m",
        "bertscore_plugins.cli",
        "phoenix",
        "serve",
        "--port",
        "0",
        "--grpc-port",
        "0",
    ]
    process = subprocess.Popen(
        serve, cwd=user, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    lines = []
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and process.poll() is None:
            lines.append(process.stdout.readline())
            if lines[-1].startswith("Press Ctrl-C to stop."):
                break
        assert lines and lines[-1].startswith("Press Ctrl-C"), "".join(lines)
    finally:
        os.kill(process.pid, signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    shown = "".join(lines)
    assert f"environment:         {cache / 'bertscore-plugins' / 'phoenix-venv'}" in shown
    assert f"data:                {user / '.phoenix-data' / 'phoenix.db'}" in shown
    assert (user / ".phoenix-data" / "phoenix.db").is_file()
    assert _files_of(REPO / "bertscore_plugins") == package
    # the checkout's top level: other workers' tests may add their own folders meanwhile (the docs
    # build's build/), so what is asserted is that nothing of Phoenix's appeared there
    appeared = set(p.name for p in REPO.iterdir()) - set(checkout)
    assert not {name for name in appeared if "phoenix" in name.lower()}, appeared


def test_a_relative_venv_is_the_callers_folders(tmp_path, monkeypatch):
    """A relative --venv (or $BERTSCORE_PHOENIX_VENV) names a folder of the folder the command runs in,
    also for the server, which runs in its working folder."""
    monkeypatch.chdir(tmp_path)
    assert PhoenixServer(venv="envs/phoenix", workdir="data").venv == tmp_path / "envs" / "phoenix"
    monkeypatch.setenv("BERTSCORE_PHOENIX_VENV", "other")
    assert PhoenixServer(workdir="data").venv == tmp_path / "other"
    monkeypatch.delenv("BERTSCORE_PHOENIX_VENV")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert PhoenixServer(workdir="data").venv == tmp_path / "cache" / "bertscore-plugins" / "phoenix-venv"
    with pytest.raises(PhoenixServerError, match=re.escape(f"{tmp_path / 'envs' / 'phoenix'} does not hold")):
        ensure_phoenix_venv("envs/phoenix", create=False)
