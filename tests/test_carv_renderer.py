"""The procedural renderer: one distinct, well-formed, readable image per state."""

from __future__ import annotations

import io
import json
import struct

import pytest
from PIL import Image

from cogforge.generators.carv import (FLOOR_Y, SIZE, State, furniture_box, item_box, item_positions,
                             load_world, scene_svg, svg_to_png)


def png_chunks(data: bytes) -> list[str]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, names = 8, []
    while pos < len(data):
        length, = struct.unpack(">I", data[pos:pos + 4])
        names.append(data[pos + 4:pos + 8].decode())
        pos += 12 + length
    return names


def test_every_state_has_a_distinct_image(carv_build):
    rows = [json.loads(line) for line in (carv_build / "states.jsonl").read_text().splitlines()]
    assert len(rows) == 432
    assert len({r["image"] for r in rows}) == 432
    assert len({(carv_build / r["image"]).read_bytes() for r in rows}) == 432


def test_images_are_512_rgb_pngs_without_metadata(carv_build):
    for path in sorted((carv_build / "images").iterdir())[:50]:
        data = path.read_bytes()
        assert set(png_chunks(data)) <= {"IHDR", "IDAT", "IEND"}, path.name
        image = Image.open(io.BytesIO(data))
        assert image.size == (512, 512) and image.mode == "RGB"


def overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("state", load_world().states(), ids=lambda s: "-".join(s))
def test_layout_keeps_every_property_readable(state: State):
    boxes = [item_box(x, base) for x, base in item_positions(state)]
    assert len(boxes) == (1 if state.subject_number == "one" else 2)
    for box in boxes:
        assert 0 <= box[0] and box[2] <= SIZE and 0 <= box[1] and box[3] <= SIZE, "clipped"
    if len(boxes) == 2:
        assert not overlaps(*boxes), "the two items overlap"
    furn = furniture_box(state)
    if state.spatial_relation in ("left", "right"):
        assert all(not overlaps(b, furn) for b in boxes), "items touch the furniture"
        side = (lambda b: b[2] <= furn[0]) if state.spatial_relation == "left" else (lambda b: b[0] >= furn[2])
        assert all(side(b) for b in boxes)
    if state.spatial_relation == "under":
        assert all(b[3] >= FLOOR_Y and furn[0] < b[0] and b[2] < furn[2] for b in boxes)
    if state.spatial_relation == "on":
        assert all(b[3] < FLOOR_Y - 100 for b in boxes)


def test_nothing_touches_the_frame(carv_build):
    """Independent of the layout code: only the background reaches the image border,
    so the border ring is the same in every image; a clipped item would change it."""

    def ring(path):
        image = Image.open(path)
        w, h = image.size
        return ([image.getpixel((x, 0)) for x in range(w)] + [image.getpixel((x, h - 1)) for x in range(w)]
                + [image.getpixel((0, y)) for y in range(h)] + [image.getpixel((w - 1, y)) for y in range(h)])

    paths = sorted((carv_build / "images").iterdir())
    first = ring(paths[0])
    for path in paths[1:]:
        assert ring(path) == first, path.name


def test_unknown_value_is_a_clear_error():
    with pytest.raises(ValueError, match="subject='unicorn'"):
        scene_svg(State("unicorn", "one", "table", "red", "on"))


def test_malformed_svg_is_a_clear_error():
    with pytest.raises(Exception, match="(?i)mismatched|syntax|not well-formed"):
        svg_to_png("<svg><g></svg>")


def test_caption_wording():
    world = load_world()
    assert world.caption(State("cup", "two", "table", "blue", "under")) == "two cups under a blue table"
    assert world.caption(State("scissors", "one", "chair", "wood", "left")) == \
        "one pair of scissors to the left of a wooden chair"
