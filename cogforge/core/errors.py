"""The toolkit's one error type for bad input, and readers that raise it.

Everything a person hands the toolkit (a config, an ``--input`` file, a decisions,
predictions, snapshot or SVG file, a build or release folder, a command-line value)
can be wrong in ways that are theirs to fix. Such a mistake is a :class:`UserError`
(every reader's own error class subclasses it: ``ConfigError``, ``GraphError``,
``ChemBenchError``, ...), whose message says where (``FILE:LINE``) and what to do. The
command line catches this one type and prints ``cogforge: FILE:LINE: message`` on one
line, exit status 2, with nothing written. Anything else is a bug in the toolkit and
keeps its traceback.

The readers here turn what the standard library raises on a bad file (a missing
file, bytes that are not UTF-8, JSON that does not parse or nests without end) into
a :class:`UserError` that names the file and line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# Larger than any file a person hands the toolkit (the largest published input, a
# ChemBench4K task file, is 583 kB); a bigger one is the wrong file, or an attack.
MAX_INPUT_BYTES = 200 * 1024 * 1024


class UserError(ValueError):
    """An input a person gave is wrong; the message says where and what to do.

    Args:
        message: what is wrong and what to do. Subclasses that already write the
            place into the message (``f"{path}:{line}: ..."``) pass no ``file``.
        file: the file (or folder) at fault, written first.
        line: its 1-based line, written after the file when known.
    """

    def __init__(self, message: str, file: Path | str | None = None, line: int | None = None):
        self.file = None if file is None else str(file)
        self.line = line
        where = "" if file is None else f"{file}:{line}: " if line else f"{file}: "
        super().__init__(where + message)


def line_at(data: bytes | str, offset: int) -> int:
    """The 1-based line of a byte (or character) offset."""
    return data.count(b"\n" if isinstance(data, bytes) else "\n", 0, offset) + 1


def read_bytes(path: Path | str, what: str = "file", limit: int = MAX_INPUT_BYTES,
               error: type[UserError] = UserError) -> bytes:
    """A file's bytes; a missing, unreadable or oversized file is a :class:`UserError`.

    Args:
        path: the file.
        what: what the file should be, for the message ("config", "scene file", ...).
        limit: the largest size accepted, in bytes.
        error: the reader's own subclass of :class:`UserError` to raise.
    """
    path = Path(path)
    try:
        if path.stat().st_size > limit:
            raise error(f"larger than {limit // 2**20} MB; a {what} is far smaller, check that this "
                            "is the right file", path)
        return path.read_bytes()
    except FileNotFoundError:
        raise error(f"no such {what}; check the path", path) from None
    except IsADirectoryError:
        raise error(f"a folder, not a {what}; name the file", path) from None
    except OSError as err:
        raise error(f"cannot read the {what} ({err.strerror or err})", path) from None


def read_text(path: Path | str, what: str = "file", limit: int = MAX_INPUT_BYTES,
              error: type[UserError] = UserError) -> str:
    """A UTF-8 text file (a byte-order mark is dropped); bytes that are not UTF-8, or a
    NUL byte (binary data, never text), are a :class:`UserError` naming the line."""
    data = read_bytes(path, what, limit, error)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise error(f"not UTF-8 text (byte {err.start}); a {what} is UTF-8 text, check that this is the "
                        "right file", path, line_at(data, err.start)) from None
    if "\x00" in text:
        raise error(f"holds a NUL byte, so it is binary data, not a {what}", path,
                        line_at(text, text.index("\x00")))
    return text


def parse_json(text: str, path: Path | str, what: str = "file", first_line: int = 1) -> Any:
    """JSON text, or a :class:`UserError` at the line where it breaks (or nests too deeply).

    Args:
        text: the JSON text.
        path: the file it comes from.
        what: what it should be, for the message.
        first_line: the file's line the text starts on (a line of a JSON Lines file).
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise UserError(f"not valid JSON ({err.msg}, column {err.colno}); a {what} is JSON", path,
                        first_line + err.lineno - 1) from None
    except RecursionError:
        raise UserError(f"JSON nested too deeply to be a {what}", path, first_line) from None
    except ValueError as err:  # an integer of more than 4300 digits
        raise UserError(f"not a {what} ({err})", path, first_line) from None


def read_json(path: Path | str, what: str = "JSON file", limit: int = MAX_INPUT_BYTES) -> Any:
    """A JSON file: :func:`read_text` then :func:`parse_json`."""
    return parse_json(read_text(path, what, limit), path, what)
