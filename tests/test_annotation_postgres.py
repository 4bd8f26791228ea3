"""The team option: the same push and pull against Label Studio on a real PostgreSQL.

PostgreSQL comes from Debian's package (installed by the Makefile); the test creates
a throw-away cluster as the ``postgres`` user on a free loopback port.
"""

from __future__ import annotations

import glob
import json
import os
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from cogforge.annotation import projects
from cogforge.annotation.server import Credentials, free_port, start
from cogforge.builders import carv
from conftest import write_small_config


def _pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed: `make test` installs Debian's postgresql package")
    return Path(found[-1]).parent


@pytest.fixture(scope="module")
def postgres(tmp_path_factory):
    bindir = _pg_bin()
    # Outside pytest's root-only temporary tree: the postgres user must reach it.
    root = Path(tempfile.mkdtemp(prefix="cogforge-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    shutil.chown(root, "postgres")
    shutil.chown(sock, "postgres")
    root.chmod(0o755)
    as_pg = ["runuser", "-u", "postgres", "--"]
    subprocess.run(as_pg + [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"],
                   check=True, capture_output=True)
    port = free_port()
    subprocess.run(as_pg + [str(bindir / "pg_ctl"), "-D", str(data), "-l", str(root / "pg.log"), "-w",
                            "-o", f"-p {port} -k {sock} -c listen_addresses=127.0.0.1", "start"],
                   check=True, capture_output=True)
    password = secrets.token_hex(8)
    sql = (f"CREATE USER cogforge PASSWORD '{password}'; CREATE DATABASE labelstudio OWNER cogforge;")
    subprocess.run(as_pg + [str(bindir / "psql"), "-h", str(sock), "-p", str(port), "-U", "postgres",
                            "-c", sql.split(";")[0], "-c", sql.split(";")[1]], check=True, capture_output=True)
    yield {"POSTGRE_HOST": "127.0.0.1", "POSTGRE_PORT": str(port), "POSTGRE_USER": "cogforge",
           "POSTGRE_PASSWORD": password, "POSTGRE_NAME": "labelstudio", "sock": str(sock), "bindir": str(bindir)}
    subprocess.run(as_pg + [str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"], capture_output=True)
    shutil.rmtree(root, ignore_errors=True)


def test_push_and_pull_against_postgresql(postgres, tmp_path):
    config = write_small_config(tmp_path / "c.toml", [("single", "single", "single", 2, 6)])
    build = tmp_path / "build" / "carv"
    carv.build(build, config_path=config, progress=False)
    creds = Credentials("admin@cogforge.test", secrets.token_urlsafe(12), secrets.token_hex(20))
    env = {"DJANGO_DB": "default", **{k: v for k, v in postgres.items() if k.startswith("POSTGRE_")}}
    server = start(free_port(), data_dir=tmp_path / "ls", document_root=tmp_path, creds=creds, env=env)
    try:
        conn = projects.connect(server.url, creds.token)
        pushed = projects.push(build, "item-validation", conn=conn, document_root=tmp_path)
        assert pushed["added"] == 6
        task = next(iter(conn.client.tasks.list(project=pushed["project"], fields="all")))
        conn.client.annotations.create(task.id, result=[
            {"from_name": "verdict", "to_name": "item", "type": "choices", "value": {"choices": ["accept"]}}])
        pulled = projects.pull(pushed["project"], conn, snapshots=tmp_path / "snaps", decisions_root=tmp_path)
        assert pulled["tasks"] == 6 and pulled["annotations"] == 1
    finally:
        server.stop()
    # The data went to PostgreSQL, not to a SQLite file.
    assert not list((tmp_path / "ls").glob("*.sqlite3"))
    out = subprocess.run(["runuser", "-u", "postgres", "--", f"{postgres['bindir']}/psql", "-h", postgres["sock"],
                          "-p", postgres["POSTGRE_PORT"], "-U", "postgres", "-d", "labelstudio", "-tAc",
                          "SELECT count(*) FROM task"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "6"
