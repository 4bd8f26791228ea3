"""Running a real Label Studio server on loopback, with an admin account and API token.

The server binds 127.0.0.1 unless asked for another address (``--host``): Label
Studio's own default is every interface (0.0.0.0), which would put the login page, the
API and every image of a build on the network. cogforge checks the port is free first
(Label Studio would otherwise move to the next free port on its own) and reads the
address the process really listens on back from the operating system.

The server lives in its own virtual environment (``.venv-ls``), because it pins its
own SDK version. Its data goes to ``annotation/.label-studio/`` (SQLite by default;
set ``DJANGO_DB=default`` and ``POSTGRE_NAME``, ``POSTGRE_USER``, ``POSTGRE_PASSWORD``,
``POSTGRE_HOST``, ``POSTGRE_PORT`` for PostgreSQL). On first start Label Studio
creates the admin account and its API token from ``LABEL_STUDIO_USERNAME``,
``LABEL_STUDIO_PASSWORD`` and ``LABEL_STUDIO_USER_TOKEN``; cogforge takes them from
the environment or, failing that, from the git-ignored file
``annotation/.credentials.env``, which it creates with random values.

Images are served by Label Studio's local-file serving: the document root is the
project folder (``LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT``), and each project gets a
local storage pointing at its build's images.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cogforge.core.project import project_root

ROOT = project_root()  # $COGFORGE_PROJECT, the checkout, or (a wheel) the current folder
CREDENTIALS = ROOT / "annotation" / ".credentials.env"
DATA_DIR = ROOT / "annotation" / ".label-studio"
DEFAULT_PORT = 8080
DEFAULT_HOST = "127.0.0.1"


class ServerError(RuntimeError):
    """Label Studio could not be started."""


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str
    token: str


def _read_env_file(path: Path) -> dict[str, str]:
    values = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            key, sep, value = line.partition("=")
            if sep and not key.startswith("#"):
                values[key.strip()] = value.strip()
    return values


def credentials(path: Path = CREDENTIALS) -> Credentials:
    """The admin account: environment first, then the credentials file (created if absent)."""
    stored = _read_env_file(path)
    if not stored:
        stored = {"LABEL_STUDIO_USERNAME": "admin@cogforge.local",
                  "LABEL_STUDIO_PASSWORD": secrets.token_urlsafe(12),
                  "LABEL_STUDIO_API_KEY": secrets.token_hex(20)}
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write("# Label Studio admin for cogforge; git-ignored, never commit it.\n")
            handle.write("".join(f"{k}={v}\n" for k, v in stored.items()))
    get = lambda key: os.environ.get(key) or stored.get(key, "")  # noqa: E731
    return Credentials(get("LABEL_STUDIO_USERNAME"), get("LABEL_STUDIO_PASSWORD"), get("LABEL_STUDIO_API_KEY"))


def label_studio_bin() -> Path:
    path = Path(os.environ.get("LABEL_STUDIO_BIN", ROOT / ".venv-ls" / "bin" / "label-studio"))
    if not path.exists():
        raise ServerError(f"{path} not found: run `make annotate` (or `make setup-label-studio`) "
                          "to install the Label Studio server")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def check_port_free(host: str, port: int) -> None:
    """Fail unless ``host:port`` can be bound now (Label Studio would silently take the next port)."""
    with socket.socket(_family(host)) as sock:
        try:
            sock.bind((host, port))
        except OSError as err:
            raise ServerError(f"cannot listen on {host}:{port} ({err.strerror}): stop what uses the port "
                              f"or choose another (--port, or PORT=... with make annotate)") from None


def client_url(host: str, port: int) -> str:
    """The URL this machine's tools use: loopback when the server listens on every interface."""
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def listening(pid: int) -> list[tuple[str, int]]:
    """The (address, port) pairs process ``pid`` listens on, as the operating system reports them."""
    import psutil

    return sorted({(c.laddr.ip, c.laddr.port) for c in psutil.Process(pid).net_connections(kind="inet")
                   if c.status == psutil.CONN_LISTEN})


def is_loopback(address: str) -> bool:
    import ipaddress

    return ipaddress.ip_address(address).is_loopback


def server_env(creds: Credentials, data_dir: Path, document_root: Path) -> dict[str, str]:
    env = {**os.environ,
           "LABEL_STUDIO_BASE_DATA_DIR": str(data_dir),
           "LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED": "true",
           "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT": str(document_root),
           "LABEL_STUDIO_USERNAME": creds.username,
           "LABEL_STUDIO_PASSWORD": creds.password,
           "LABEL_STUDIO_USER_TOKEN": creds.token,
           # The SDK authenticates with the token created above; Label Studio >= 1.19
           # disables such tokens for new organisations unless asked.
           "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",
           "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "true",
           "SENTRY_DSN": "", "FRONTEND_SENTRY_DSN": "",
           "COLLECT_ANALYTICS": "false", "LATEST_VERSION_CHECK": "false"}
    env.setdefault("DJANGO_DB", "sqlite")
    return env


@dataclass
class Server:
    process: subprocess.Popen
    url: str
    creds: Credentials
    log: Path
    bound: list[tuple[str, int]]  # what the process listens on, read back from the OS

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def wait_healthy(url: str, timeout: float, process: subprocess.Popen | None = None) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise ServerError(f"Label Studio exited with status {process.returncode} while starting")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise ServerError(f"Label Studio at {url} did not answer /health within {timeout:.0f} s")


def start(port: int | None = None, data_dir: Path = DATA_DIR, document_root: Path = ROOT,
          creds: Credentials | None = None, env: dict[str, str] | None = None,
          timeout: float = 240, host: str = DEFAULT_HOST) -> Server:
    """Start Label Studio listening on ``host`` (loopback by default) and wait until ``/health`` answers.

    Args:
        port: the port; it must be free (checked before starting).
        host: the address to bind: ``127.0.0.1``, or e.g. ``0.0.0.0`` to open it to a network.
    """
    creds = creds or credentials()
    port = port or DEFAULT_PORT
    check_port_free(host, port)
    data_dir.mkdir(parents=True, exist_ok=True)
    log = data_dir / "server.log"
    full_env = server_env(creds, data_dir, document_root)
    full_env.update(env or {})
    handle = open(log, "ab")
    process = subprocess.Popen(
        [str(label_studio_bin()), "start", "--internal-host", host, "--port", str(port),
         "--no-browser", "--data-dir", str(data_dir)],
        stdout=handle, stderr=subprocess.STDOUT, env=full_env, cwd=data_dir)
    url = client_url(host, port)
    try:
        wait_healthy(url, timeout, process)
    except ServerError as err:
        process.kill()
        tail = log.read_text(errors="replace")[-2000:]
        raise ServerError(f"{err}\n--- last lines of {log} ---\n{tail}") from None
    return Server(process, url, creds, log, listening(process.pid))


def describe(server: Server) -> str:
    """Where the server listens, in words, with a warning when that is more than this machine."""
    where = ", ".join(f"[{a}]:{p}" if ":" in a else f"{a}:{p}" for a, p in server.bound) or "nothing"
    lines = [f"Label Studio is up at {server.url} (listening on {where})"]
    if any(not is_loopback(address) for address, _ in server.bound):
        lines.append("  OPEN TO THE NETWORK: anyone who can reach this machine can open the login page and, "
                     "with the token, the API and every pushed image; use it on a trusted network only")
    return "\n".join(lines)


def serve(port: int = DEFAULT_PORT, host: str = DEFAULT_HOST) -> int:
    """``make annotate``: run the server in the foreground and say how to log in."""
    server = start(port, host=host)
    print(f"{describe(server)}\n"
          f"  log in as {server.creds.username} with the password in {CREDENTIALS}\n"
          f"  (or LABEL_STUDIO_PASSWORD); API token: LABEL_STUDIO_API_KEY in the same file\n"
          f"  data: {DATA_DIR} ({os.environ.get('DJANGO_DB', 'sqlite')})\n"
          f"  push a build: .venv/bin/cogforge annotate push build/carv --stage carv-image-audit\n"
          f"Press Ctrl-C to stop.", flush=True)
    try:
        server.process.wait()
    except KeyboardInterrupt:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(serve(int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PORT,
                   sys.argv[2] if len(sys.argv) > 2 else DEFAULT_HOST))
