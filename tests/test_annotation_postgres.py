"""The team option: the same push and pull against Label Studio on a real PostgreSQL
(a throw-away cluster: tests/postgres.py)."""

from __future__ import annotations

import secrets

import pytest

from cogforge.annotation import projects
from cogforge.annotation.server import Credentials, free_port, start
from cogforge.builders import carv
from conftest import write_small_config
from postgres import DUMP, Cluster


@pytest.fixture(scope="module")
def postgres():
    cluster = Cluster()
    if DUMP.is_file():  # Label Studio's migrated database (the Makefile's): the start skips the migrations
        cluster.load(DUMP)
    yield cluster
    cluster.stop()


def test_push_and_pull_against_postgresql(postgres, tmp_path):
    config = write_small_config(tmp_path / "c.toml", [("single", "single", "single", 2, 6)])
    build = tmp_path / "build" / "carv"
    carv.build(build, config_path=config, progress=False)
    creds = Credentials("admin@cogforge.test", secrets.token_urlsafe(12), secrets.token_hex(20))
    server = start(free_port(), data_dir=tmp_path / "ls", document_root=tmp_path, creds=creds, env=postgres.env())
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
    assert postgres.psql("postgres", "labelstudio", "-tAc", "SELECT count(*) FROM task").strip() == "6"
