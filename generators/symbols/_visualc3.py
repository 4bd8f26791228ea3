"""Read one split folder of Visual-C3 (GitHub ``THUKElab/Visual-C3``, data on the Tsinghua
cloud) as published, into the three language tasks.

The layout, from the repository's ``readme.md`` and ``eval.py``: a split folder
(``Train``, ``Validation``, ``Test``) holds

* ``imgs/``: the pictures of handwritten sentences;
* ``label/``: two files, the source labels (name has ``src``) and the targets (``tgt``).
  Each non-empty line is ``<image file name><two spaces><sentence>`` (``eval.py`` splits
  on two spaces). The source is the sentence as written, with each faked character
  (not a real character) written ``X``; the target is the corrected sentence. ``eval.py``
  asserts that source and target have the same length: they are compared position by
  position. A position whose source is neither ``X`` nor the target's character is a
  misused (misspelled) real character;
* ``char_label/`` (optional): the box ``[x, y, w, h]`` of each character of a picture
  (upper-left corner, width, height). The file format is not published; accepted: one
  file per picture, ``char_label/<stem>.txt`` or ``.json``, holding a JSON list of boxes
  in character order, or one file of ``<image file name><two spaces>[[x, y, w, h], ...]``
  lines.

Items, per task of :mod:`generators.symbols.language`:

* ``faked-characters``: every line whose source has an ``X``; the answer is the source;
* ``misused-characters``: every line with a misused position; the answer is the source
  with each misused character in square brackets (``X`` stays where the line also has
  fakes);
* ``correction``: every line with an error; the answer is the target.

Lines with no error serve no task (counted as dropped). Pictures are re-encoded as RGB
PNG with no metadata. Every mistake in the folder is a :class:`VisualC3Error` naming
``FILE:LINE`` and what to do.
"""

from __future__ import annotations

import functools
import io
import json
from collections import Counter
from pathlib import Path
from typing import Callable

from PIL import Image, UnidentifiedImageError

from cogforge.core.errors import UserError, read_text
from cogforge.generators.symbols import Draft

FAKE = "X"
SEPARATOR = "  "  # two spaces, as eval.py splits
MAX_LABEL_BYTES = 50 * 1024 * 1024  # 10,072 short sentences in the whole dataset
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


class VisualC3Error(UserError):
    """A Visual-C3 split folder that cannot be read as published."""


def png(path: str) -> bytes:
    """The picture at ``path`` as an RGB PNG with no text chunks (a module-level function,
    so a ``functools.partial`` of it can be drawn in a worker process)."""
    with Image.open(path) as image:
        rgb = image.convert("RGB")
    out = io.BytesIO()
    rgb.save(out, "PNG", optimize=False)
    return out.getvalue()


def _label_files(folder: Path) -> tuple[Path, Path]:
    labels = folder / "label"
    if not labels.is_dir():
        raise VisualC3Error("no label/ folder; a Visual-C3 split folder holds imgs/, label/ and char_label/ "
                            "(name the split folder, e.g. Train/)", folder)
    files = sorted(p for p in labels.iterdir() if p.is_file())
    src = [p for p in files if "src" in p.name.lower()]
    tgt = [p for p in files if "tgt" in p.name.lower()]
    if len(src) != 1 or len(tgt) != 1:
        found = ", ".join(p.name for p in files) or "nothing"
        raise VisualC3Error(f"expected one source file (name containing 'src') and one target file (name "
                            f"containing 'tgt'); found {found}", labels)
    return src[0], tgt[0]


def _read_lines(path: Path) -> dict[str, tuple[int, str]]:
    """``{image file name: (line number, sentence)}`` of a label file."""
    text = read_text(path, "Visual-C3 label file", MAX_LABEL_BYTES, VisualC3Error)
    out: dict[str, tuple[int, str]] = {}
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        if SEPARATOR not in line:
            raise VisualC3Error("expected '<image file name><two spaces><sentence>' (Visual-C3's eval.py "
                                "splits on two spaces); fix the line", path, number)
        name, sentence = line.split(SEPARATOR, 1)
        name, sentence = name.strip(), sentence.strip()
        if not name or not sentence:
            raise VisualC3Error("empty image file name or sentence", path, number)
        if any(ch.isspace() for ch in sentence):
            raise VisualC3Error("the sentence holds white space; a Visual-C3 sentence is one run of "
                                "characters", path, number)
        if name in out:
            raise VisualC3Error(f"{name} already labelled on line {out[name][0]}", path, number)
        out[name] = (number, sentence)
    if not out:
        raise VisualC3Error("no labelled lines", path)
    return out


def _boxes(folder: Path) -> dict[str, tuple[str, list]]:
    """``{image file name or stem: (where, boxes)}`` from ``char_label/`` (empty when absent)."""
    labels = folder / "char_label"
    if not labels.is_dir():
        return {}
    out: dict[str, tuple[str, list]] = {}
    for path in sorted(p for p in labels.iterdir() if p.is_file()):
        text = read_text(path, "Visual-C3 char_label file", MAX_LABEL_BYTES, VisualC3Error)
        if text.lstrip().startswith("["):  # one picture's boxes
            out[path.stem] = (str(path), _parse_boxes(text, path, 1))
            continue
        for number, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            if SEPARATOR not in line:
                raise VisualC3Error("expected '<image file name><two spaces>[[x, y, w, h], ...]'", path, number)
            name, rest = line.split(SEPARATOR, 1)
            out[name.strip()] = (f"{path}:{number}", _parse_boxes(rest, path, number))
    return out


def _parse_boxes(text: str, path: Path, line: int) -> list[list[float]]:
    try:
        boxes = json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError):
        raise VisualC3Error("not a JSON list of [x, y, w, h] boxes", path, line) from None
    if not isinstance(boxes, list) or not all(
            isinstance(b, list) and len(b) == 4 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                        for v in b) for b in boxes):
        raise VisualC3Error("expected a JSON list of [x, y, w, h] boxes, four numbers each", path, line)
    return boxes


def answers(src: str, tgt: str) -> dict[str, str]:
    """The answer of each task a labelled line serves (``{}`` for a line with no error)."""
    fakes = [k for k, ch in enumerate(src) if ch == FAKE]
    misused = [k for k, (a, b) in enumerate(zip(src, tgt)) if a != FAKE and a != b]
    out = {}
    if fakes:
        out["faked-characters"] = src
    if misused:
        out["misused-characters"] = "".join(f"[{ch}]" if k in misused else ch for k, ch in enumerate(src))
    if fakes or misused:
        out["correction"] = tgt
    return out


def load(folder: Path | str, prompt: Callable[[str, bool], str]) -> tuple[dict[str, list[Draft]], Counter]:
    """Read a Visual-C3 split folder.

    Args:
        folder: the split folder (``Train/``, ``Validation/`` or ``Test/``) with ``imgs/``,
            ``label/`` and optionally ``char_label/``.
        prompt: the domain's prompt of a task, ``prompt(task, has_fakes)`` (a misused-character
            line that also has faked characters is asked to write them ``X``).

    Returns:
        ``{task name: [Draft]}`` in source order (the picture is a callable: drawn only if
        kept), and the lines left out, counted by reason.

    Raises:
        VisualC3Error: naming the file and line, for a missing folder or file, a line not in
            the published form, source and target of different lengths or names, a
            missing or unreadable picture, or boxes that do not fit the sentence.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise VisualC3Error("not a folder; name a Visual-C3 split folder (with imgs/, label/)", folder)
    src_path, tgt_path = _label_files(folder)
    sources, targets = _read_lines(src_path), _read_lines(tgt_path)
    for name, (number, _s) in targets.items():
        if name not in sources:
            raise VisualC3Error(f"{name} has a target but no source line in {src_path.name}", tgt_path, number)
    boxes = _boxes(folder)
    tasks: dict[str, list[Draft]] = {"faked-characters": [], "misused-characters": [], "correction": []}
    dropped: Counter = Counter()
    for name, (number, src) in sources.items():
        where = f"{src_path}:{number}"
        if name not in targets:
            raise VisualC3Error(f"{name} has no target line in {tgt_path.name}; every source line needs one",
                                src_path, number)
        tgt = targets[name][1]
        if len(src) != len(tgt):
            raise VisualC3Error(f"source has {len(src)} characters, the target ({tgt_path.name}:"
                                f"{targets[name][0]}) {len(tgt)}; Visual-C3 compares them position by "
                                "position, so they must have the same length", src_path, number)
        if FAKE in tgt:
            raise VisualC3Error(f"the target ({tgt_path.name}:{targets[name][0]}) has an X; the target is the "
                                "corrected sentence, with real characters only", src_path, number)
        image = folder / "imgs" / name
        if not image.is_file():
            raise VisualC3Error(f"image {name} not found in {folder / 'imgs'}", src_path, number)
        try:
            with Image.open(image) as opened:
                opened.verify()
        except (UnidentifiedImageError, OSError, SyntaxError) as err:
            raise VisualC3Error(f"image {name} cannot be read ({err}); download it again", src_path, number) \
                from None
        shown = answers(src, tgt)
        if not shown:
            dropped["visualc3 (line with no error)"] += 1
            continue
        box_where, char_boxes = boxes.get(name) or boxes.get(Path(name).stem) or ("", [])
        if char_boxes and len(char_boxes) != len(src):
            raise VisualC3Error(f"{len(char_boxes)} boxes for {name}, whose sentence ({where}) has {len(src)} "
                                "characters; char_label needs one [x, y, w, h] per character", box_where)
        meta = {"imported": True, "source": f"{src_path.name}:line {number}", "image_file": name,
                "sentence_id": f"visualc3:{name}",
                "fakes": [{"index": k, "char": tgt[k], "op": "imported"} for k, ch in enumerate(src) if ch == FAKE],
                "substitutions": [{"index": k, "correct": b, "wrong": a, "rule": "imported"}
                                  for k, (a, b) in enumerate(zip(src, tgt)) if a not in (FAKE, b)],
                "style": {}, "char_boxes": char_boxes}
        for task, answer in shown.items():
            tasks[task].append(Draft(prompt(task, FAKE in src), [functools.partial(png, str(image))], None,
                                     answer, f"visualc3:{name}", dict(meta)))
    return tasks, dropped
