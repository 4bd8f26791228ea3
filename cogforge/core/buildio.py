"""Writing a build folder atomically: ``items.jsonl``, ``images/``, ``manifest.json``.

Everything is written into a hidden sibling folder first. When the build is
complete, that folder and the previous build are swapped in one step
(``renameat2(RENAME_EXCHANGE)`` on Linux; two renames elsewhere), so a build that
is killed at any moment leaves the previous build untouched. Leftover temporary
folders of dead processes are removed by the next build.

Images are content-addressed (``images/<sha256>.png``): an image that many items
share is stored once, and a file name says nothing the answer could leak.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any, Iterable

from cogforge.core.record import Item

_RENAME_EXCHANGE = 2


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def dump_json(data: Any) -> str:
    """JSON as every file of a build writes it: sorted keys, indented, newline-ended."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths; False when the system cannot."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    if not hasattr(libc, "renameat2"):
        return False
    at_fdcwd = -100
    result = libc.renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    return result == 0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def replace_dir(staged: Path, final: Path) -> None:
    """Put ``staged`` at ``final``, replacing any previous folder there atomically."""
    if not final.exists():
        os.rename(staged, final)
        return
    if _exchange(staged, final):
        shutil.rmtree(staged)  # now holds the previous content
        return
    retired = final.with_name(f".{final.name}.old-{os.getpid()}")
    os.rename(final, retired)
    os.rename(staged, final)
    shutil.rmtree(retired)


def clean_stale(final: Path) -> None:
    """Remove temporary siblings of ``final`` left by processes that no longer run."""
    if not final.parent.exists():
        return
    for leftover in final.parent.glob(f".{final.name}.*-*"):
        pid = leftover.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _pid_alive(int(pid)):
            shutil.rmtree(leftover, ignore_errors=True)


class BuildWriter:
    """Collects a build in a temporary folder and moves it into place on ``commit``.

    Use as a context manager: leaving the block by an exception removes the
    temporary folder and leaves ``out_dir`` as it was.
    """

    def __init__(self, out_dir: Path | str):
        self.out_dir = Path(out_dir)
        self.tmp = self.out_dir.with_name(f".{self.out_dir.name}.tmp-{os.getpid()}")
        self._images: dict[str, str] = {}

    def __enter__(self) -> "BuildWriter":
        self.out_dir.parent.mkdir(parents=True, exist_ok=True)
        clean_stale(self.out_dir)
        if self.tmp.exists():
            shutil.rmtree(self.tmp)
        (self.tmp / "images").mkdir(parents=True)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.tmp.exists():
            shutil.rmtree(self.tmp, ignore_errors=True)

    def add_image(self, data: bytes, suffix: str = ".png", folder: str = "images") -> str:
        """Store image bytes once (``folder``: ``images`` for what models see, another
        folder for sources such as SVG); returns the path relative to the build folder."""
        digest = hashlib.sha256(data).hexdigest()
        rel = f"{folder}/{digest}{suffix}"
        (self.tmp / folder).mkdir(exist_ok=True)
        if rel not in self._images:
            (self.tmp / rel).write_bytes(data)
            self._images[rel] = digest
        return rel

    def write_text(self, rel: str, text: str) -> None:
        path = self.tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def write_items(self, items: Iterable[Item]) -> None:
        self.write_text("items.jsonl", "".join(item.to_json() + "\n" for item in items))

    def commit(self, manifest: dict[str, Any]) -> dict[str, Any]:
        """Hash every file, write ``manifest.json``, and move the build into place."""
        files = {}
        for path in sorted(p for p in self.tmp.rglob("*") if p.is_file()):
            rel = path.relative_to(self.tmp).as_posix()
            files[rel] = self._images.get(rel) or sha256_file(path)
        manifest = {**manifest, "files": files}
        self.write_text("manifest.json", dump_json(manifest))
        replace_dir(self.tmp, self.out_dir)
        return manifest
