"""ShapeCount's own QC: every answer counted again from the picture's pixels.

Nothing here reads the builder's record of a scene (``meta.scene``) or calls the generator.
A picture is sorted into colours by the RGB values of ``vocabulary.toml`` (a pixel is a
colour when every channel lies within :data:`TOLERANCE` levels of it), each colour's pixels
into connected regions (``scipy.ndimage.label``), and each region is named by how much of
its bounding box it fills: a square all of it, a circle pi/4, a triangle half. The colour
and shape asked about are read from the question's words.

Checks (each an error finding per item):

* ``shapecount-answers``: the number of regions of the asked colour and shape is the answer.
* ``shapecount-pictures``: every region is a shape of the vocabulary (two shapes of one
  colour that touch, or a smudge, are not), lies inside the picture with a margin, stays
  legible when a vision encoder scales the picture to 336 px, and the picture holds the two
  lures the builder promises (the asked colour with another shape, the asked shape with
  another colour).
* ``shapecount-range``: the answer is a whole number within the build's configured counts,
  and the number of shapes within what the config allows.

Hooks the shared checks read: :func:`strata` (balance per colour, shape and answer) and
:func:`chance` (the shortcut baselines' chance level for a free answer).
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image
from scipy import ndimage

from cogforge.qc.core import Build, CheckResult, Finding

from shapecount import scoring

# The vocabulary is data shared with the generator; the code that reads pixels is not.
VOCABULARY = tomllib.loads(Path(__file__).with_name("vocabulary.toml").read_text(encoding="utf-8"))
TOLERANCE = 60  # levels per channel: the edges' blends with the outline fall outside
SPECK = 20  # pixels: a region this small is an edge's crumb, not a shape
ENCODER_PX = 336  # the short side a common vision encoder sees
LEGIBLE_PX = 8  # a shape's smaller side there, at least
QUESTION = re.compile(r"^How many (?P<colour>[a-z]+) (?P<plural>[a-z]+) are there\b")


@dataclass(frozen=True)
class Region:
    colour: str
    shape: str | None  # None: no shape of the vocabulary
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 (x1, y1 excluded)
    fill: float  # the share of its bounding box it covers

    def where(self) -> str:
        return f"{self.colour} region at x {self.box[0]}-{self.box[2]}, y {self.box[1]}-{self.box[3]}"


def shape_of(fill: float, width: int, height: int) -> str | None:
    """A region's shape from its fill ratio and its box's aspect (a triangle is wider than tall)."""
    aspect = width / height
    if fill >= 0.9 and 0.85 <= aspect <= 1.15:
        return "square"
    if 0.7 <= fill < 0.88 and 0.85 <= aspect <= 1.15:
        return "circle"
    if 0.4 <= fill <= 0.6 and 1.0 <= aspect <= 1.35:
        return "triangle"
    return None


def regions(pixels: np.ndarray) -> list[Region]:
    """Every region of a vocabulary colour in an RGB array."""
    out = []
    planes = np.ascontiguousarray(pixels.transpose(2, 0, 1), dtype=np.int16)  # R, G, B
    for name, rgb in VOCABULARY["colours"].items():
        mask = np.ones(planes.shape[1:], dtype=bool)
        for plane, level in zip(planes, rgb):
            mask &= np.abs(plane - level) <= TOLERANCE
        labels, _ = ndimage.label(mask)
        for k, (rows, cols) in enumerate(ndimage.find_objects(labels), 1):
            area = int((labels[rows, cols] == k).sum())
            if area < SPECK:
                continue
            width, height = cols.stop - cols.start, rows.stop - rows.start
            fill = area / (width * height)
            out.append(Region(name, shape_of(fill, width, height), (cols.start, rows.start, cols.stop, rows.stop),
                              fill))
    return out


@cache
def _regions_of(path: Path, mtime: float) -> tuple[tuple[Region, ...], tuple[int, int]]:
    with Image.open(path) as image:
        pixels = np.asarray(image.convert("RGB"), dtype=np.int16)
    return tuple(regions(pixels)), (pixels.shape[1], pixels.shape[0])


def picture(build: Build, rel: str) -> tuple[tuple[Region, ...], tuple[int, int]]:
    """The regions of one of the build's pictures and its size (read once per QC run)."""
    path = build.path / rel
    return _regions_of(path, path.stat().st_mtime)


def asked(question: str) -> tuple[str, str] | None:
    """The (colour, shape) a question asks about, read from its words."""
    match = QUESTION.match(question)
    shapes = {plural: shape for shape, plural in VOCABULARY["shapes"].items()}
    if not match or match["colour"] not in VOCABULARY["colours"] or match["plural"] not in shapes:
        return None
    return match["colour"], shapes[match["plural"]]


def _read(build: Build, item) -> tuple[str, str, tuple[Region, ...], tuple[int, int]] | str:
    """(colour, shape, regions, size) of an item, or what keeps it from being read."""
    target = asked(item.question)
    if target is None:
        return "the question does not ask how many shapes of a vocabulary colour and shape there are"
    if len(item.images) != 1 or not (build.path / item.images[0]).is_file():
        return "an item shows exactly one picture of the build"
    try:
        found, size = picture(build, item.images[0])
    except OSError as err:  # the shared media check names the file too
        return f"the picture does not decode ({err})"
    return (*target, found, size)


def check_answers(build: Build) -> CheckResult:
    out = CheckResult()
    wrong = 0
    for item in build.items:
        read = _read(build, item)
        if isinstance(read, str):  # reported here only, not by every check
            out.findings.append(Finding("error", "shapecount-answers", item.id, read))
            continue
        colour, shape, found, _ = read
        counted = sum(r.colour == colour and r.shape == shape for r in found)
        if str(counted) != item.answer:
            wrong += 1
            out.findings.append(Finding("error", "shapecount-answers", item.id,
                                        f"the picture holds {counted} {colour} {VOCABULARY['shapes'][shape]}, "
                                        f"the answer says {item.answer!r}"))
    out.stats = {"items": len(build.items), "answers_recounted_wrong": wrong}
    return out


def check_pictures(build: Build) -> CheckResult:
    out = CheckResult()
    smallest = None
    per_picture = Counter()
    for item in build.items:
        read = _read(build, item)
        if isinstance(read, str):
            continue
        colour, shape, found, (width, height) = read
        per_picture[len(found)] += 1
        scale = ENCODER_PX / min(width, height)
        problems = []
        for r in found:
            x0, y0, x1, y1 = r.box
            if r.shape is None:
                problems.append(f"the {r.where()} is no circle, square or triangle (it fills {r.fill:.0%} of its "
                                "box): shapes touch or overlap, or the picture was changed")
            if x0 == 0 or y0 == 0 or x1 == width or y1 == height:
                problems.append(f"the {r.where()} is cut by the picture's edge")
            side = min(x1 - x0, y1 - y0) * scale
            smallest = side if smallest is None else min(smallest, side)
            if side < LEGIBLE_PX:
                problems.append(f"the {r.where()} is {side:.1f} px across at {ENCODER_PX} px, "
                                f"below {LEGIBLE_PX}: too small to see")
        if not any(r.colour == colour and r.shape not in (shape, None) for r in found):
            problems.append(f"no lure of the asked colour ({colour}) with another shape")
        if not any(r.shape == shape and r.colour != colour for r in found):
            problems.append(f"no lure of the asked shape ({shape}) with another colour")
        out.findings += [Finding("error", "shapecount-pictures", item.id, p) for p in problems]
    out.stats = {"shapes_per_picture": dict(sorted(per_picture.items())),
                 f"smallest_shape_px_at_{ENCODER_PX}": None if smallest is None else round(smallest, 1)}
    return out


def check_range(build: Build) -> CheckResult:
    out = CheckResult()
    config = build.manifest.get("config", {})
    try:
        low, high = config["min_count"], config["max_count"]
        least, most = low + config["min_distractors"], high + config["max_distractors"]
    except KeyError as err:
        out.findings.append(Finding("error", "shapecount-range", "manifest.json", f"the config lacks {err}"))
        return out
    for item in build.items:
        if not (item.answer.isdigit() and low <= int(item.answer) <= high):
            out.findings.append(Finding("error", "shapecount-range", item.id,
                                        f"answer {item.answer!r} is not a whole number from {low} to {high}, "
                                        "the counts the config asks for"))
        read = _read(build, item)
        if not isinstance(read, str) and not least <= len(read[2]) <= most:
            out.findings.append(Finding("error", "shapecount-range", item.id,
                                        f"the picture holds {len(read[2])} shapes; the config allows {least} "
                                        f"to {most}"))
    out.stats = {"answers": dict(sorted(Counter(i.answer for i in build.items).items()))}
    return out


CHECKS = [("shapecount-answers", check_answers), ("shapecount-pictures", check_pictures),
          ("shapecount-range", check_range)]


def strata(item) -> dict[str, str]:
    """Balance families beside the task: the colour and shape asked about, and the answer."""
    return {"colour": item.meta["colour"], "shape": item.meta["shape"], "count": item.answer}


def chance(item) -> float:
    """A guess among the configured counts (the shortcut baselines' chance level)."""
    return scoring.chance({"meta": item.meta})
