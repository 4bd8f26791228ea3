"""CoreCognition (Li et al., ICML 2025, "Core Knowledge Deficits in Multi-Modal Language
Models"): procedural stimuli for the 12 core-knowledge concepts, every item in a
concept-hacking pair.

A concept is a module of this package (no leading underscore) that defines ``CONCEPT``
(a key of :data:`CONCEPTS`) and ``FAMILIES``, a list of :class:`Family` instances. A
family is one prototype (an experiment of developmental psychology, e.g. a line passing
behind bars): a pure function from parameters to frames, the answer computed from the
parameters, an independent check of that answer (shapely predicates, a pymunk
simulation, an analytic formula), and a twin rule that changes only the causal
parameter and flips the answer. Adding a concept or a family adds a file or a class;
nothing else changes.

Conventions every family keeps (QC checks them on every item):

* ``sample(rng, k)`` gives the control parameters of pair ``k`` (JSON-able: numbers,
  strings, lists, dicts); ``k`` lets a family take its answers in turn, so answers are
  balanced by construction. ``params["seed"]`` drives everything decorative.
* ``twin(params)`` returns the same parameters with ``causal_param`` changed; the
  question and the options do not depend on it (byte-identical across the pair), the
  answer does.
* ``render(params)`` returns the frames (RGB Pillow images of :data:`SIZE`), the
  same for the same parameters; every pixel that differs between control and twin lies
  inside ``causal_box(control) ∪ causal_box(twin)``.
* ``margin(params)`` is how far the item sits from its decision boundary, in the
  family's own unit; it must be at least ``min_margin``. None means the item is exact
  by construction with no boundary near (a line drawn unbroken).
* ``feature_px(params)`` is the size in pixels, at :data:`SIZE`, of the smallest
  feature the answer depends on (a gap, a shift, a seam); downscaled to 336 px it must
  stay at least 1% of the short side (QC).

Difficulty (a stream's ``level`` knob, :data:`LEVELS`): ``hardness(control, twin)``
scores a pair in the family's own unit, larger harder (by default the smaller of the
pair's margins, negated: a smaller causal difference is harder), and ``level_cuts``
split it into the levels at about the thirds of the family's own draws. Level ``L``
keeps only the valid pairs whose hardness falls in band ``L``, so every level is drawn
from the paradigm's own ranges and passes the same checks; ``hardness_doc`` says what
the score measures.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from functools import cache
from pathlib import Path
from types import ModuleType

SIZE = (640, 480)
TF_OPTIONS = ["Yes", "No"]
STAGES = ("Sensorimotor", "Concrete Operational", "Formal Operational")
LEVELS = (1, 2, 3)  # the stream's difficulty levels, easiest first
# key (the public release's and lmms-eval's concept key): name, stage, items in the paper (Figure 1)
CONCEPTS = {
    "boundary": ("Boundary", "Sensorimotor", 99),
    "continuity": ("Continuity", "Sensorimotor", 97),
    "permanence": ("Permanence", "Sensorimotor", 120),
    "spatiality": ("Spatiality", "Sensorimotor", 137),
    "perceptualconstancy": ("Perceptual Constancy", "Sensorimotor", 182),
    "intuitivephysics": ("Intuitive Physics", "Concrete Operational", 120),
    "perspective": ("Perspective Taking", "Concrete Operational", 195),
    "hierarchy": ("Hierarchical Relation", "Concrete Operational", 103),
    "conservation": ("Conservation", "Concrete Operational", 121),
    "intentionality": ("Intentionality Understanding", "Formal Operational", 111),
    "mechanicalreasoning": ("Mechanical Reasoning", "Formal Operational", 95),
    "toolusing": ("Tool Using", "Formal Operational", 123),
}


class Family:
    """One prototype of a concept. Subclasses set the class attributes and implement
    the methods; see the module docstring for the contract."""

    concept: str = ""
    name: str = ""  # unique in the benchmark, e.g. "line-behind-bars"
    type: str = "TF"  # "TF" (options Yes, No) or "MC" (2 to 5 options)
    causal_param: str = ""
    frames: int = 1  # more than one: a sequence (permanence, conservation, ...)
    min_margin: float = 0.0
    paradigm: str = ""  # the experiment it follows, for the README and the card

    def sample(self, rng: random.Random, k: int) -> dict:
        raise NotImplementedError

    def twin(self, params: dict) -> dict:
        raise NotImplementedError

    def question(self, params: dict) -> str:
        raise NotImplementedError

    def options(self, params: dict) -> list[str]:
        return list(TF_OPTIONS)

    def answer(self, params: dict) -> str:
        raise NotImplementedError

    def check(self, params: dict) -> str:
        raise NotImplementedError

    def render(self, params: dict) -> list:
        raise NotImplementedError

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        raise NotImplementedError

    def margin(self, params: dict) -> float | None:
        raise NotImplementedError

    def feature_px(self, params: dict) -> float:
        raise NotImplementedError

    level_cuts: tuple[float, float] = (0.0, 0.0)  # hardness where levels 2 and 3 begin
    hardness_doc: str = "the smaller causal difference of the pair (the margin), smaller is harder"

    def hardness(self, control: dict, twin: dict) -> float:
        return -min(m for m in (self.margin(control), self.margin(twin)) if m is not None)

    def level(self, control: dict, twin: dict) -> int:
        """The pair's difficulty level, 1 (easiest) to 3."""
        hardness = self.hardness(control, twin)
        return 1 + sum(hardness >= cut for cut in self.level_cuts)


def concepts() -> dict[str, ModuleType]:
    """Every concept module, by its CONCEPT key, in the paper's order."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            found[module.CONCEPT] = module
    return {key: found[key] for key in CONCEPTS if key in found}


def families() -> dict[str, Family]:
    """Every family of every concept, by name."""
    out = {}
    for module in concepts().values():
        for family in module.FAMILIES:
            if family.name in out:
                raise ValueError(f"family name {family.name!r} is used twice")
            out[family.name] = family
    return out


# --------------------------------------------------------------------------- drawing helpers


@cache
def font(size: int, bold: bool = False):
    """DejaVu Sans (shipped with matplotlib, so every machine draws the same glyphs)."""
    import matplotlib
    from PIL import ImageFont

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name), size)


def canvas(colour=(255, 255, 255)):
    """A blank RGB frame of :data:`SIZE` and its ImageDraw."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", SIZE, colour)
    return image, ImageDraw.Draw(image)


def arrow(draw, points, colour, width=5, head=16) -> None:
    """A polyline with a filled triangular head at its last point."""
    import math

    draw.line(points, fill=colour, width=width, joint="curve")
    (x0, y0), (x1, y1) = points[-2], points[-1]
    a = math.atan2(y1 - y0, x1 - x0)
    tip = (x1 + math.cos(a) * head * 0.6, y1 + math.sin(a) * head * 0.6)
    left = (x1 - math.cos(a - 0.45) * head, y1 - math.sin(a - 0.45) * head)
    right = (x1 - math.cos(a + 0.45) * head, y1 - math.sin(a + 0.45) * head)
    draw.polygon([tip, left, right], fill=colour)


def png(image) -> bytes:
    """RGB PNG bytes without metadata chunks, written the same way every time."""
    import io

    out = io.BytesIO()
    image.convert("RGB").save(out, format="PNG", compress_level=9, compress_type=3)
    return out.getvalue()


def strip(frames: list) -> bytes:
    """The frames side by side with "Frame i/N" captions above them (the layout of the
    public release's ``frame-combined`` configuration), as PNG bytes."""
    from PIL import Image, ImageDraw

    w, h = frames[0].size
    gap, top = 16, 40
    out = Image.new("RGB", (len(frames) * w + (len(frames) - 1) * gap, h + top), "white")
    draw = ImageDraw.Draw(out)
    for i, frame in enumerate(frames):
        x = i * (w + gap)
        out.paste(frame, (x, top))
        draw.text((x + w / 2, top / 2), f"Frame {i + 1}/{len(frames)}", font=font(22), fill=(0, 0, 0), anchor="mm")
        if i:
            draw.line([(x - gap / 2, 0), (x - gap / 2, h + top)], fill=(160, 160, 160), width=2)
    return png(out)
