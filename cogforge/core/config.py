"""Builder configs: TOML files checked against a declared schema before anything is built.

Each builder declares its config as a pydantic model (unknown keys forbidden, strict
types, ranges) and calls :func:`load` with it. Any mistake, a broken TOML file, an
unknown key, a wrong type, an impossible count, becomes one :class:`ConfigError`
that names the file, the line where it can be found, the key and what is expected;
the command line prints it and exits 2 before a build folder is touched.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cogforge.core.errors import UserError, read_text

M = TypeVar("M", bound=BaseModel)


class ConfigError(UserError):
    """A config that cannot be built from; the message says where and what to do."""


class Schema(BaseModel):
    """Base of every config schema: no unknown keys, no silent type coercion."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class RunConfig(Schema):
    """A config's optional ``[run]`` table: where a build runs and how big it is. The same
    flags on the command line win. It changes no item, so the manifest leaves it out."""

    executor: Literal["local", "ray"] = "local"
    address: str | None = None  # a Ray cluster's address, e.g. "10.0.0.5:6379"
    processes: Annotated[int, Field(ge=1)] | None = None  # local executor's worker processes
    scale: Annotated[int, Field(ge=1)] = 1
    shard_size: Annotated[int, Field(ge=2)] | None = None


def key_path(loc: tuple) -> str:
    """``("cells", 2, "count")`` -> ``cells[2].count``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def line_of(text: str, loc: tuple) -> int | None:
    """The line of a key in a TOML text, following ``[table]`` and ``[[array]]`` headers; or None."""
    if not loc or not isinstance(loc[0], str):
        return None
    if len(loc) >= 2 and isinstance(loc[1], int):  # [[table]] number loc[1], then its key
        header, index, key = f"[[{loc[0]}]]", loc[1], loc[2] if len(loc) > 2 else None
    elif len(loc) >= 2:  # [table], then its key
        header, index, key = f"[{loc[0]}]", 0, loc[1]
    else:  # a top-level key, before any table
        header, index, key = None, 0, loc[0]
    seen, inside = -1, header is None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            if stripped.split("#")[0].strip() == header:
                seen += 1
                inside = seen == index
                if inside and key is None:
                    return number
            else:
                inside = False
            continue
        if inside and key is not None and re.match(rf"^{re.escape(str(key))}\s*=", stripped):
            return number
    return None


def load(path: Path | str, schema: type[M]) -> M:
    """Read and validate a TOML config; every problem is a :class:`ConfigError`."""
    path = Path(path)
    try:
        text = read_text(path, "config", limit=MAX_CONFIG_BYTES)
    except UserError as err:
        raise ConfigError(str(err)) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        line = re.search(r"at line (\d+)", str(err))
        raise ConfigError(f"{path}:{line.group(1) if line else 1}: not valid TOML: {err}. Fix the syntax there "
                          "(strings need quotes, tables [[...]] brackets)") from None
    except RecursionError:
        raise ConfigError(f"{path}: arrays or tables nested too deeply to be a config") from None
    except ValueError as err:  # an integer of more than 4300 digits
        raise ConfigError(f"{path}: not a config ({err})") from None
    if not raw:
        raise ConfigError(f"{path}: the config is empty; start from the builder's own config "
                          "(builders/<benchmark>.toml) and change what you need")
    _check_numbers(raw, path, text)
    try:
        return schema.model_validate(raw)
    except ValidationError as err:
        lines = []
        for e in err.errors():
            where = key_path(e["loc"]) or "(top level)"
            line = line_of(text, e["loc"]) or line_of(text, e["loc"][:1])
            at = f"{path}:{line}" if line else str(path)
            message = e["msg"]
            if e["type"] == "extra_forbidden":
                allowed = ", ".join(_allowed(schema, e["loc"][:-1]))
                message = f"unknown key (allowed here: {allowed})"
            elif e["type"] != "value_error":
                message += f", got {e['input']!r}"
            else:
                message = message.removeprefix("Value error, ")
            lines.append(f"{at}: key {where}: {message}")
        raise ConfigError("\n".join(lines)) from None


MAX_CONFIG_BYTES = 1024 * 1024  # a builder's own config is a few kB
# No config value needs more: a seed, a count, a weight. A larger number is a typo or an
# attack, and a count past it would run for days before failing.
MAX_NUMBER = 10**9


def _check_numbers(raw, path: Path, text: str, loc: tuple = ()) -> None:
    """Refuse numbers no config needs (past :data:`MAX_NUMBER`, infinite or NaN) before
    a schema sees them: ``count = 1e30`` must fail here, not after a day of building."""
    if isinstance(raw, dict):
        for key, value in raw.items():
            _check_numbers(value, path, text, loc + (key,))
    elif isinstance(raw, list):
        for k, value in enumerate(raw):
            _check_numbers(value, path, text, loc + (k,))
    elif isinstance(raw, (int, float)) and not isinstance(raw, bool) and not abs(raw) <= MAX_NUMBER:
        line = line_of(text, loc) or line_of(text, loc[:1])
        at = f"{path}:{line}" if line else str(path)
        raise ConfigError(f"{at}: key {key_path(loc)}: {raw:.3g} is not a usable value; numbers in a "
                          f"config are at most {MAX_NUMBER:,}")


def _allowed(schema: type[BaseModel], loc: tuple) -> list[str]:
    model = schema
    for part in loc:
        if isinstance(part, int):
            continue
        annotation = model.model_fields[part].annotation
        args = getattr(annotation, "__args__", ())
        inner = next((a for a in args if isinstance(a, type) and issubclass(a, BaseModel)), None)
        if inner is None:
            return []
        model = inner
    return sorted(model.model_fields)


SPLIT_NAMES = ("train", "validation", "test")


def check_splits(splits: dict[str, int]) -> None:
    """A config's split weights: at least one positive, names the datasets tools know."""
    if not splits or sum(splits.values()) == 0:
        raise ValueError("splits need at least one positive weight, e.g. { train = 7, validation = 1, test = 2 }")
    bad = [n for n in splits if n not in SPLIT_NAMES]
    if bad:
        raise ValueError(f"split names {bad} are not among {list(SPLIT_NAMES)}")


def split_of(unit: str, weights: dict[str, int], key: str) -> str:
    """A unit's split, from its own hash (``key`` names the benchmark and seed): stable
    when other units come and go."""
    import random

    names = [n for n in weights if weights[n] > 0]
    x = random.Random(f"{key}:split:{unit}").random() * sum(weights[n] for n in names)
    for name in names:
        x -= weights[name]
        if x < 0:
            return name
    return names[-1]
