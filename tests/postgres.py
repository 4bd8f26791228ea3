"""A throw-away PostgreSQL cluster for the team-option tests, and the migrated Label Studio
database they start from.

PostgreSQL comes from Debian's package (installed by the Makefile). A cluster is made as the
``postgres`` user, outside pytest's root-only temporary tree, listening on a free loopback
port. Label Studio's migrations take most of a minute on two cores, so `make test` applies
them once into a dump (``python tests/postgres.py dump OUT``), which each test cluster loads
in a second; a stale dump is migrated the rest of the way by Label Studio's own start.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DUMP = ROOT / ".cache" / "label-studio-db" / "postgres.sql"  # the Makefile makes it
AS_PG = ["runuser", "-u", "postgres", "--"]


def _bindir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed: `make test` installs Debian's postgresql package")
    return Path(found[-1]).parent


def _free_port() -> int:
    sys.path.insert(0, str(ROOT))
    from cogforge.annotation.server import free_port

    return free_port()


class Cluster:
    """A cluster with a user ``cogforge`` owning an empty database ``labelstudio``."""

    def __init__(self):
        self.bindir = _bindir()
        self.root = Path(tempfile.mkdtemp(prefix="cogforge-pg-"))
        self.data, self.sock = self.root / "data", self.root / "sock"
        self.sock.mkdir()
        shutil.chown(self.root, "postgres")
        shutil.chown(self.sock, "postgres")
        self.root.chmod(0o755)
        self.run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust")
        self.port = _free_port()
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "pg.log"), "-w",
                 "-o", f"-p {self.port} -k {self.sock} -c listen_addresses=127.0.0.1", "start")
        self.password = secrets.token_hex(8)
        self.psql("postgres", "postgres", "-c", f"CREATE USER cogforge PASSWORD '{self.password}'",
                  "-c", "CREATE DATABASE labelstudio OWNER cogforge")

    def run(self, tool: str, *args: str) -> str:
        return subprocess.run(AS_PG + [str(self.bindir / tool), *args], check=True, capture_output=True,
                              text=True).stdout

    def psql(self, user: str, database: str, *args: str) -> str:
        return self.run("psql", "-h", str(self.sock), "-p", str(self.port), "-U", user, "-d", database,
                        "-v", "ON_ERROR_STOP=1", *args)

    def env(self) -> dict[str, str]:
        """Label Studio's settings for this database."""
        return {"DJANGO_DB": "default", "POSTGRE_HOST": "127.0.0.1", "POSTGRE_PORT": str(self.port),
                "POSTGRE_USER": "cogforge", "POSTGRE_PASSWORD": self.password, "POSTGRE_NAME": "labelstudio"}

    def load(self, dump: Path) -> None:
        """Load a dump of a migrated Label Studio database, as its owner."""
        readable = self.root / "dump.sql"  # where the postgres user can read it
        shutil.copyfile(dump, readable)
        shutil.chown(readable, "postgres")
        self.psql("cogforge", "labelstudio", "-q", "-f", str(readable))

    def stop(self) -> None:
        subprocess.run(AS_PG + [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop"],
                       capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)


def dump(out: Path) -> None:
    """Migrate Label Studio's database on a new cluster and dump it (no owner, no grants) to ``out``."""
    cluster = Cluster()
    try:
        label_studio = ROOT / ".venv-ls" / "bin" / "label-studio"
        with tempfile.TemporaryDirectory() as data_dir:
            env = {**os.environ, **cluster.env(), "LABEL_STUDIO_BASE_DATA_DIR": data_dir, "SENTRY_DSN": "",
                   "COLLECT_ANALYTICS": "false", "LATEST_VERSION_CHECK": "false"}
            # `version` applies the migrations and exits, creating no user
            subprocess.run([str(label_studio), "version", "--data-dir", data_dir], env=env, check=True,
                           capture_output=True)
        text = cluster.run("pg_dump", "-h", str(cluster.sock), "-p", str(cluster.port), "-U", "cogforge",
                           "--no-owner", "--no-acl", "labelstudio")
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        partial.write_text(text)
        partial.replace(out)
    finally:
        cluster.stop()


if __name__ == "__main__":
    if sys.argv[1:2] != ["dump"] or len(sys.argv) != 3:
        sys.exit("usage: python tests/postgres.py dump OUT.sql")
    dump(Path(sys.argv[2]))
