"""The Label Studio server listens where it says: loopback by default, checked on the socket.

Uses the session's real server (tests/conftest.py). The listening sockets are read from
the kernel's tables (/proc/net/tcp and tcp6), not from the code under test.
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

from cogforge.annotation.server import Server, ServerError, describe, start
from cogforge.cli import main

LISTEN = "0A"


def _address(hex_address: str) -> str:
    raw = bytes.fromhex(hex_address)
    if len(raw) == 4:  # /proc/net/tcp: one little-endian 32-bit word
        return socket.inet_ntop(socket.AF_INET, raw[::-1])
    # /proc/net/tcp6: four 32-bit words, each little-endian
    return socket.inet_ntop(socket.AF_INET6, b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4)))


def listeners(port: int) -> set[str]:
    """Every local address with a TCP socket in LISTEN state on ``port``, IPv4 and IPv6."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            local, state = fields[1], fields[3]
            address, _, hex_port = local.partition(":")
            if state == LISTEN and int(hex_port, 16) == port:
                found.add(_address(address))
    return found


def _port(server: Server) -> int:
    return int(server.url.rsplit(":", 1)[1])


def test_the_server_listens_on_loopback_only(server):
    port = _port(server)
    assert listeners(port) == {"127.0.0.1"}
    assert server.bound == [("127.0.0.1", port)]


def test_the_message_names_the_address_actually_bound(server):
    message = describe(server)
    assert f"listening on 127.0.0.1:{_port(server)}" in message
    assert "OPEN TO THE NETWORK" not in message


def test_an_open_address_is_said_loudly():
    opened = Server(subprocess.Popen(["true"]), "http://127.0.0.1:8080", None, Path("log"),
                    [("0.0.0.0", 8080)])
    opened.process.wait()
    assert "listening on 0.0.0.0:8080" in describe(opened)
    assert "OPEN TO THE NETWORK" in describe(opened)


def test_a_busy_port_is_refused_before_anything_starts(server, tmp_path):
    with pytest.raises(ServerError, match=rf"cannot listen on 127.0.0.1:{_port(server)}"):
        start(_port(server), data_dir=tmp_path / "data", creds=server.creds)
    assert not (tmp_path / "data").exists()


def test_the_command_line_passes_the_host_and_port(server, capsys):
    assert main(["annotate", "serve", "--port", str(_port(server)), "--host", "127.0.0.1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cogforge: cannot listen on 127.0.0.1:{_port(server)}")
    assert len(err.strip().splitlines()) == 1
