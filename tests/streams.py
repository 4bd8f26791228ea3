"""What the training-stream tests share (tests/test_environments*.py): an item's digest, the
same items made in another process, and a stream checked against what an exclusion holds."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

from cogforge import environments as env


def digest(item: dict) -> str:
    """The item's bytes: its record with the images' sha256."""
    record = {**item, "images": [hashlib.sha256(png).hexdigest() for png in item["images"]]}
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def digests_in_another_process(benchmark: str, seed: int, indices: list[int], hash_seed: str = "123") -> list[str]:
    """The digests of items ``indices`` made in a new process with another hash seed."""
    script = ("import json, sys\nsys.path.insert(0, sys.argv[1])\nfrom cogforge import environments as env\n"
              "from streams import digest\n"
              f"stream = env.open({benchmark!r}, seed={seed})\n"
              f"print(json.dumps([digest(stream[i]) for i in {indices!r}]))")
    other = subprocess.run([sys.executable, "-c", script, os.path.dirname(__file__)], capture_output=True,
                           text=True, env={**os.environ, "PYTHONHASHSEED": hash_seed}, check=True)
    return json.loads(other.stdout)


def assert_kept_out(stream: env.Environment, held: env.Exclusion, hooks, items: int) -> None:
    """The first ``items`` of ``stream`` are none of ``held``'s: each item's keys computed here
    from what it shows, its image bytes included."""
    for i in range(items):
        item = stream[i]
        names = [f"images/{hashlib.sha256(png).hexdigest()}.png" for png in item["images"]]
        assert env.content_key(item["question"], names, item["options"]) not in held.content, item["id"]
        assert hashlib.sha256(hooks.stream_unit(item).encode()).hexdigest() not in held.units, item["id"]
