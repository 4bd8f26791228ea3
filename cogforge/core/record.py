"""The item record every benchmark writes: one JSON object per line of ``items.jsonl``.

Fields (in this order on disk):

* ``id``: stable and readable, ``<benchmark>-<task>-<number>``.
* ``benchmark``, ``task``, ``split``: where the item belongs.
* ``question``: the full prompt text shown to a model.
* ``images``: paths relative to the build folder, in the order the prompt uses them.
* ``options``: the choices for multiple-choice items, else ``null``.
* ``answer``: the ground truth (an option's text, a letter, or a caption).
* ``meta``: benchmark-specific ground truth, documented per benchmark in README.md.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from typing import Any

from cogforge.core.errors import UserError


class ItemError(UserError):
    """A record that does not match the item schema."""


@dataclass(frozen=True)
class Item:
    id: str
    benchmark: str
    task: str
    split: str
    question: str
    images: list[str]
    options: list[str] | None
    answer: str
    meta: dict[str, Any]

    def to_json(self) -> str:
        """One line of JSON with a fixed key order (same item, same bytes)."""
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: Any, where: str = "item") -> "Item":
        """Validate a decoded JSON object; errors name the field and ``where``."""
        if not isinstance(data, dict):
            raise ItemError(f"{where}: expected a JSON object, got {type(data).__name__}")
        names = [f.name for f in fields(cls)]
        missing = [n for n in names if n not in data]
        extra = [k for k in data if k not in names]
        if missing or extra:
            raise ItemError(f"{where}: missing fields {missing}, unknown fields {extra}")
        for name in ("id", "benchmark", "task", "split", "question", "answer"):
            if not isinstance(data[name], str) or not data[name]:
                raise ItemError(f"{where}: field {name!r} must be a non-empty string")
        if not isinstance(data["images"], list) or not all(isinstance(p, str) for p in data["images"]):
            raise ItemError(f"{where}: field 'images' must be a list of relative paths")
        for path in data["images"]:
            if path.startswith("/") or ".." in path.split("/"):
                raise ItemError(f"{where}: image path {path!r} must stay inside the build folder")
        options = data["options"]
        if options is not None and (not isinstance(options, list)
                                    or not all(isinstance(o, str) for o in options)):
            raise ItemError(f"{where}: field 'options' must be a list of strings or null")
        if not isinstance(data["meta"], dict):
            raise ItemError(f"{where}: field 'meta' must be an object")
        return cls(**{n: data[n] for n in names})


def read_items(path) -> list[Item]:
    """Read ``items.jsonl``; a bad line raises with its line number."""
    items = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            where = f"{path}:{number}"
            try:
                data = json.loads(line)
            except json.JSONDecodeError as err:
                raise ItemError(f"{where}: not valid JSON ({err.msg})") from None
            items.append(Item.from_dict(data, where))
    return items
