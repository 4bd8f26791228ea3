"""Hand-worked items of the hierarchy families: class inclusion by counting, transitivity
across panels of different scales, and a star in nested boxes."""

from __future__ import annotations

from cogforge.generators.corecognition.hierarchy import ClassInclusion, NestedBoxes, TransitiveSticks


def _items(*groups):
    """(count, shape, colour) groups laid out on a grid that keeps them apart."""
    cells = [(100 + 140 * (i % 4), 90 + 140 * (i // 4)) for i in range(12)]
    out = []
    for n, shape, colour in groups:
        for _ in range(n):
            x, y = cells.pop(0)
            out.append({"shape": shape, "colour": colour, "x": x, "y": y})
    return out


def test_the_circles_outnumber_the_red_circles_until_every_circle_is_red():
    family = ClassInclusion()
    # 4 red circles, 2 circles whose colour the twin changes, 1 red square (a distractor)
    control = {"seed": 3, "kind": "sub-first", "colour": "red", "other": "blue", "shape": "circle",
               "items": _items((4, "circle", "red"), (2, "circle", "flip"), (1, "square", "red")),
               "flip_colour": "blue"}
    twin = family.twin(control)
    assert family.question(control) == "Are there more red circles or more circles?"
    assert family.answer(control) == family.check(control) == "More circles"  # 4 < 6
    assert family.answer(twin) == family.check(twin) == "The same number"  # 6 = 6
    # crossed sets: red shapes (2 red circles + 2 flip squares) against circles (2 red + 1 blue)
    crossed = {**control, "kind": "crossed", "flip_colour": "red",
               "items": _items((2, "circle", "red"), (1, "circle", "blue"), (2, "square", "flip"))}
    assert family.answer(crossed) == family.check(crossed) == "More red shapes"  # 4 > 3
    assert family.answer(family.twin(crossed)) == family.check(family.twin(crossed)) == "More circles"  # 2 < 3


def test_a_longer_than_b_longer_than_c_makes_a_longer_than_c():
    family = TransitiveSticks()
    # A 13 > B 10 > C 8; seed 0 gives the twin factor 1.5, so the twin's C is 13 x 1.5 = 19.5
    control = {"seed": 0, "a": 13.0, "b": 10.0, "c": 8.0, "s1": 15.0, "s2": 9.0, "top1": "A", "top2": "B"}
    twin = family.twin(control)
    assert twin["c"] == 19.5
    assert family.answer(control) == family.check(control) == "Yes"
    assert family.answer(twin) == family.check(twin) == "No"
    # drawn: A 195 px against C 72 px (the pixels agree here); the twin's C is 175.5 px
    assert abs(family.margin(control) - 0.25) < 1e-9  # C/B = 0.8 is the closest call


def test_the_star_is_in_the_blue_box_while_its_box_is():
    family = NestedBoxes()
    control = {"seed": 4, "target": "blue", "holder": "green",
               "boxes": [{"colour": "blue", "rect": [300, 40, 620, 440], "holds": None},
                         {"colour": "red", "rect": [400, 300, 530, 416], "holds": "circle"}],
               "places": [[400, 80], [100, 300]], "holder_at": [400, 80]}
    twin = family.twin(control)
    assert twin["holder_at"] == [100, 300]
    assert family.answer(control) == family.check(control) == "Yes"
    assert family.answer(twin) == family.check(twin) == "No"
    assert family.margin(control) == 40  # the green box's top edge (80) against the blue box's (40)
    assert family.margin(twin) == 70  # the green box's right edge (230) against the blue box's left (300)
