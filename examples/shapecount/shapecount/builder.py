"""ShapeCount's builder: seed + config -> a build folder of counting items.

Each item shows one picture of coloured shapes and asks how many shapes of one colour and
one kind it holds ("How many red circles are there in the picture?"); the answer is a whole
number, written as digits.

Sampling, in plain words:

* The **plan** fixes what each item asks and its answer before any picture exists: every
  (colour, shape, count) combination of the config, shuffled, repeated until there are
  ``items`` of them. Answers and the colours and shapes asked about are therefore spread
  as evenly as the number of items allows, so no answer is more likely than another.
* A **scene** for item ``k`` comes from ``Random("shapecount:<seed>:<k>")`` alone (the same
  item whatever the other items are): ``count`` target shapes, then the distractors: one
  of the target's colour but another shape, one of the target's shape but another colour
  (so that counting by colour alone or by shape alone is wrong), and the rest of any other
  kind, between ``min_distractors`` and ``max_distractors`` in all.
* **Placement** is rejection sampling: each shape gets a radius and a centre drawn
  uniformly, and a centre is redrawn while its circle comes within ``gap`` pixels of another
  shape's or of the border. A scene that cannot be completed is drawn again.

The pictures are drawn by :mod:`shapecount.generator` on every core. Splits go by item,
from each id's own hash. The answer is nowhere but in ``answer`` and ``meta.scene``: image
files are named by their bytes' sha256 and carry no metadata.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Annotated

import PIL
import cogforge
from pydantic import Field, ValidationInfo, field_validator, model_validator

from cogforge.core.buildio import BuildWriter
from cogforge.core.config import Schema, check_splits, load, split_of
from cogforge.core.parallel import draw_all
from cogforge.core.record import Item
from cogforge.core.stats import build_stats, markdown_table, splits_of

from shapecount import __version__
from shapecount.generator import draw, vocabulary

NAME = "shapecount"
TASK = "count"
DEFAULT_CONFIG = Path(__file__).with_name("shapecount.toml")
QUESTION = "How many {colour} {plural} are there in the picture? Answer with a single integer."
# How much of the picture the densest scene may cover with its shapes' circles (gap
# included); random placement rarely fills more than half.
MAX_COVER = 0.4
PLACEMENT_TRIES = 300
SCENE_TRIES = 100

Count = Annotated[int, Field(ge=0, le=50)]
Radius = Annotated[int, Field(ge=8, le=500)]


class Config(Schema):
    seed: Annotated[int, Field(ge=0)] = 0
    citation: str = ""
    items: Annotated[int, Field(ge=1, le=100_000)] = 144
    size: Annotated[int, Field(ge=128, le=2048)] = 448
    colours: list[str] = ["red", "green", "blue", "yellow"]
    shapes: list[str] = ["circle", "square", "triangle"]
    min_count: Count = 1
    max_count: Count = 6
    min_distractors: Count = 2
    max_distractors: Count = 8
    min_radius: Radius = 16
    max_radius: Radius = 30
    gap: Annotated[int, Field(ge=2, le=100)] = 6
    splits: dict[str, Annotated[int, Field(ge=0)]] = {"train": 7, "validation": 1, "test": 2}

    @field_validator("colours", "shapes")
    @classmethod
    def _known(cls, chosen: list[str], info: ValidationInfo) -> list[str]:
        known = vocabulary()[info.field_name]
        unknown = [x for x in chosen if x not in known]
        if unknown:
            raise ValueError(f"{unknown} not in shapecount/vocabulary.toml (known: {', '.join(known)})")
        if len(set(chosen)) != len(chosen) or len(chosen) < 2:
            raise ValueError("name at least two, each once: every picture holds a lure of the asked colour "
                             "with another shape, and one of the asked shape with another colour")
        return chosen

    @field_validator("min_distractors")
    @classmethod
    def _lures(cls, n: int) -> int:
        if n < 2:
            raise ValueError("at least 2: the two lures")
        return n

    @field_validator("splits")
    @classmethod
    def _splits(cls, splits: dict[str, int]) -> dict[str, int]:
        check_splits(splits)
        return splits

    @model_validator(mode="after")
    def _consistent(self):
        for low, high in (("min_count", "max_count"), ("min_distractors", "max_distractors"),
                          ("min_radius", "max_radius")):
            if getattr(self, low) > getattr(self, high):
                raise ValueError(f"{low} ({getattr(self, low)}) is above {high} ({getattr(self, high)})")
        densest = (self.max_count + self.max_distractors) * math.pi * (self.max_radius + self.gap) ** 2
        if densest > MAX_COVER * self.size ** 2:
            raise ValueError(f"{self.max_count + self.max_distractors} shapes of radius {self.max_radius} do not "
                             f"fit a {self.size} px picture; lower max_count, max_distractors or max_radius, "
                             "or raise size")
        return self


def plan(config: Config, seed: int) -> list[tuple[str, str, int]]:
    """(colour, shape, count) for every item: each combination once per round, rounds shuffled."""
    combos = [(c, s, n) for c in config.colours for s in config.shapes
              for n in range(config.min_count, config.max_count + 1)]
    rng = random.Random(f"shapecount:{seed}:plan")
    out: list[tuple[str, str, int]] = []
    while len(out) < config.items:
        rng.shuffle(combos)
        out += combos
    return out[:config.items]


def kinds(colour: str, shape: str, count: int, config: Config, rng: random.Random) -> list[tuple[str, str]]:
    """The (colour, shape) of every shape in the picture: the targets, the two lures, the rest."""
    other_shapes = [s for s in config.shapes if s != shape]
    other_colours = [c for c in config.colours if c != colour]
    others = [(c, s) for c in config.colours for s in config.shapes if (c, s) != (colour, shape)]
    extra = rng.randint(config.min_distractors, config.max_distractors) - 2
    return ([(colour, shape)] * count + [(colour, rng.choice(other_shapes)), (rng.choice(other_colours), shape)]
            + [rng.choice(others) for _ in range(extra)])


def place(wanted: list[tuple[str, str]], config: Config, rng: random.Random) -> list[dict] | None:
    """Positions for ``wanted``, no two shapes nearer than ``gap``, the largest placed first;
    None when one does not fit."""
    radii = sorted((rng.randint(config.min_radius, config.max_radius) for _ in wanted), reverse=True)
    order = list(wanted)
    rng.shuffle(order)  # which kind gets which radius
    scene: list[dict] = []
    for (colour, shape), r in zip(order, radii):
        low, high = r + config.gap, config.size - r - config.gap
        for _ in range(PLACEMENT_TRIES):
            x, y = rng.randint(low, high), rng.randint(low, high)
            if all(math.hypot(x - o["x"], y - o["y"]) >= r + o["r"] + config.gap for o in scene):
                scene.append({"shape": shape, "colour": colour, "x": x, "y": y, "r": r})
                break
        else:
            return None
    rng.shuffle(scene)  # the record's order says nothing about which shapes are the targets
    return scene


def scene_for(k: int, colour: str, shape: str, count: int, config: Config, seed: int) -> list[dict]:
    """Item ``k``'s scene, from its own random stream."""
    rng = random.Random(f"shapecount:{seed}:{k}")
    for _ in range(SCENE_TRIES):
        scene = place(kinds(colour, shape, count, config, rng), config, rng)
        if scene is not None:
            return scene
    raise RuntimeError(f"item {k}: no placement of {count} {colour} {shape}s and their distractors in "
                       f"{SCENE_TRIES} tries; the config's validator should have refused this density")


def build(out_dir: Path | str, seed: int | None = None, config_path: Path | str | None = None,
          progress: bool = True) -> dict:
    """Build the items into ``out_dir`` (atomically: a failed build leaves the old one)."""
    started = time.perf_counter()
    config = load(Path(config_path or DEFAULT_CONFIG), Config)
    seed = config.seed if seed is None else seed
    plural = vocabulary()["shapes"]
    asked = plan(config, seed)
    scenes = [scene_for(k, c, s, n, config, seed) for k, (c, s, n) in enumerate(asked)]
    pictures = draw_all([partial(draw, scene, config.size) for scene in scenes], progress)
    with BuildWriter(out_dir) as writer:
        items = []
        for k, ((colour, shape, count), scene, png) in enumerate(zip(asked, scenes, pictures)):
            item_id = f"{NAME}-{TASK}-{k + 1:05d}"
            items.append(Item(
                id=item_id, benchmark=NAME, task=TASK, split=split_of(item_id, config.splits, f"{NAME}:{seed}"),
                question=QUESTION.format(colour=colour, plural=plural[shape]), images=[writer.add_image(png)],
                options=None, answer=str(count),
                meta={"colour": colour, "shape": shape, "count_range": [config.min_count, config.max_count],
                      "scene": scene}))
        writer.write_items(items)
        writer.write_text("stats.md", stats_markdown(items))
        answers = Counter(i.answer for i in items)
        manifest = writer.commit({
            "benchmark": NAME, "toolkit": cogforge.__version__, "package": f"shapecount {__version__}",
            "seed": seed, "config": config.model_dump(),
            "renderer": f"shapecount.generator (Pillow {PIL.__version__})",
            "media": {"mode": "RGB", "size": [config.size, config.size]},
            "counts": {"items": len(items), "images": len({i.images[0] for i in items}),
                       "by_task": {TASK: len(items)},
                       # items per answer (CARV: per balance stratum); `cogforge build` prints their spread
                       "by_type": {TASK: {str(n): answers[str(n)] for n in sorted(map(int, answers))}}},
        })
    manifest["elapsed_s"] = time.perf_counter() - started
    return manifest


def stats_markdown(items: list[Item]) -> str:
    """Items per split, shapes per picture, and items per answer."""
    per_split: dict[str, dict] = {}
    for split in [*splits_of(items), "total"]:
        part = [i for i in items if split in ("total", i.split)]
        shapes = [len(i.meta["scene"]) for i in part]
        per_split[split] = {"items": len(part), "shapes_per_picture": sum(shapes) / len(shapes),
                            "most_shapes": max(shapes)}
    answers = Counter(int(i.answer) for i in items)
    table = markdown_table(["answer", "items"], [[a, answers[a]] for a in sorted(answers)])
    return build_stats(items, per_split) + "\n" + table + "\n"


# --------------------------------------------------------------------------- a training stream
# The hooks of `cogforge.environments` (`Benchmark.stream`): item ``index`` drawn from
# (seed, index, attempt) alone, so any item of an endless stream is made directly. What an
# item asks is drawn uniformly per item (the build's plan balances a fixed set instead), and
# its scene is placed as a build places one.


def load_stream_config() -> Config:
    """The default config (``shapecount.toml``)."""
    return load(DEFAULT_CONFIG, Config)


def stream_tasks(config: Config) -> list[str]:
    return [TASK]


def stream_knobs(config: Config) -> dict[str, dict[str, tuple[int, ...]]]:
    """``count``: the answer; ``distractors``: the shapes not counted, lures included."""
    return {TASK: {"count": tuple(range(config.min_count, config.max_count + 1)),
                   "distractors": tuple(range(config.min_distractors, config.max_distractors + 1))}}


def stream_item(config: Config, seed: int, task: str, index: int, attempt: int,
                difficulty: dict) -> tuple[Item, dict[str, bytes]]:
    rng = random.Random(f"shapecount:{seed}:stream:{index}:{attempt}")
    colour, shape = rng.choice(config.colours), rng.choice(config.shapes)
    count = difficulty.get("count", rng.randint(config.min_count, config.max_count))
    if "distractors" in difficulty:
        config = config.model_copy(update={"min_distractors": difficulty["distractors"],
                                           "max_distractors": difficulty["distractors"]})
    for _ in range(SCENE_TRIES):
        scene = place(kinds(colour, shape, count, config, rng), config, rng)
        if scene is not None:
            break
    else:
        raise RuntimeError(f"stream item {index}: no placement of {count} {colour} {shape}s in {SCENE_TRIES} tries")
    png = draw(scene, config.size)
    image = f"images/{hashlib.sha256(png).hexdigest()}.png"
    item = Item(id=f"{NAME}-{TASK}-stream-{index}", benchmark=NAME, task=TASK, split="train",
                question=QUESTION.format(colour=colour, plural=vocabulary()["shapes"][shape]), images=[image],
                options=None, answer=str(count),
                meta={"colour": colour, "shape": shape, "count_range": [config.min_count, config.max_count],
                      "scene": scene})
    return item, {image: png}


def stream_unit(item: Item | dict) -> str:
    """The scene: the same shapes in the same places are one item, whatever is asked of them."""
    meta = item.meta if isinstance(item, Item) else item["meta"]
    return json.dumps(meta["scene"], sort_keys=True)
