"""Human decisions as data: what annotators accepted or rejected.

``annotation/decisions/<benchmark>.jsonl`` holds one decision per line::

    {"unit": "image" | "item" | "edge", "key": "<image sha256, item id or word|from>to>",
     "decision": "accept" | "reject" | "tie", "reasons": [...], "state": {...} | null,
     "stage": "<annotation stage>", "votes": {...}}

Images are keyed by content hash, so a decision survives a rebuild that renders
the same image. Builders exclude what was rejected; QC flags what slipped through.
Annotation writes the file; builders, QC and releases read it, so it lives in the core.
"""

from __future__ import annotations

import json
from pathlib import Path

from cogforge.core.errors import UserError, read_text

DECISIONS_DIR = Path("annotation") / "decisions"
_FIELDS = {"unit", "key", "decision"}
# image: by content hash; item: by item id; edge: a sense-graph edge "word|source>target"
UNITS = ("image", "item", "edge")


class DecisionError(UserError):
    """A decisions file that cannot be read."""


def decisions_path(benchmark: str, root: Path | str = ".") -> Path:
    return Path(root) / DECISIONS_DIR / f"{benchmark}.jsonl"


def load_decisions(path: Path | str) -> list[dict]:
    """Read a decisions file; a missing file means no decisions."""
    path = Path(path)
    if not path.is_file():
        return []
    out = []
    try:
        lines = read_text(path, "decisions file").splitlines()
    except UserError as err:
        raise DecisionError(str(err)) from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise DecisionError(f"{path}:{number}: not valid JSON ({err.msg})") from None
        except (RecursionError, ValueError):  # nested without end, or a number of 4300+ digits
            raise DecisionError(f"{path}:{number}: not a decision (one JSON object per line)") from None
        if not isinstance(row, dict) or not _FIELDS <= set(row):
            raise DecisionError(f"{path}:{number}: a decision needs {sorted(_FIELDS)}")
        if row["decision"] not in ("accept", "reject", "tie") or row["unit"] not in UNITS:
            raise DecisionError(f"{path}:{number}: unit must be one of {'|'.join(UNITS)} and decision accept|reject|tie")
        out.append(row)
    return out
