"""Shared fixtures: full CARV builds made once per test session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import carv

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def carv_build(tmp_path_factory) -> Path:
    """A full CARV build with the default config (5,500 items)."""
    out = tmp_path_factory.mktemp("carv") / "build"
    carv.build(out, progress=False)
    return out


@pytest.fixture(scope="session")
def carv_items(carv_build) -> list[dict]:
    with open(carv_build / "items.jsonl") as handle:
        return [json.loads(line) for line in handle]


@pytest.fixture(scope="session")
def carv_world() -> dict:
    """The vocabulary file, read directly (not through the generator's code)."""
    return json.loads((ROOT / "generators" / "data" / "carv_world.json").read_text())


def write_small_config(path: Path, cells: list[tuple[str, str, str, int, int]], seed: int = 0) -> Path:
    """A CARV config with a few small cells: (id, setting, operation, atomic, count)."""
    lines = [f"seed = {seed}", 'renderer = "procedural"']
    for cid, setting, op, atomic, count in cells:
        lines += ["[[cells]]", f'id = "{cid}"', f'setting = "{setting}"', f'operation = "{op}"',
                  f"atomic = {atomic}", f"count = {count}", 'column = "x"']
    path.write_text("\n".join(lines) + "\n")
    return path
