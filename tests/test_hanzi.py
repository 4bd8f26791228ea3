"""Handwritten Chinese sentences and faked characters (``_hanzi``, ``_fakes``): the same
bytes in another process, fakes that are no real character of the stroke data (checked here
by brute force, without the index's shortcuts), recipes that give the glyph back, fakes in
the same hand as their neighbours, and the missing stroke data named."""

from __future__ import annotations

import functools
import hashlib
import io
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from scipy import ndimage
from scipy.optimize import linear_sum_assignment

from cogforge.core.errors import UserError
from cogforge.generators.symbols import _fakes, _hanzi

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "图书馆里很安静，同学们都在认真读书写作业。"
# characters of 6 strokes or more, as the language domain fakes them
SAMPLE = "馆静读题钱带课班菜跑爸领得想感路教像蓝照新满楼"


def _fake_cells(seed: int = 3) -> tuple[list, list[int], list[dict]]:
    rng = random.Random(seed)
    cells, at, recipes = list(SENTENCE), [], []
    for i in (2, 6, 15, 18):
        recipe = _fakes.make_fake(SENTENCE[i], rng)
        assert recipe is not None, SENTENCE[i]
        cells[i] = _fakes.apply(recipe)
        at.append(i)
        recipes.append(recipe)
    return cells, at, recipes


def test_a_sentence_with_fakes_has_the_same_bytes_in_another_process():
    cells, at, recipes = _fake_cells()
    style = _hanzi.Style.draw(random.Random(11))
    png, boxes = _hanzi.render_sentence(cells, style)
    assert png.startswith(b"\x89PNG") and len(boxes) == len(cells)
    with Image.open(io.BytesIO(png)) as image:
        assert image.mode == "RGB" and not image.text
    # a fresh interpreter makes the same fakes from the same seed, re-derives them from their
    # JSON recipes, the style from its dict, and draws the same bytes
    code = (
        "import hashlib, json, sys\n"
        "sys.path.insert(0, 'tests')\n"
        "import test_hanzi\n"
        "from cogforge.generators.symbols import _fakes, _hanzi\n"
        "spec = json.loads(sys.stdin.read())\n"
        "made = test_hanzi._fake_cells()[2]\n"
        "cells = list(spec['sentence'])\n"
        "for i, r in zip(spec['at'], spec['recipes']): cells[i] = _fakes.apply(r)\n"
        "png, boxes = _hanzi.render_sentence(cells, _hanzi.Style.from_dict(spec['style']))\n"
        "print(hashlib.sha256(png).hexdigest(), json.dumps([boxes, made]))\n"
    )
    spec = json.dumps({"sentence": SENTENCE, "at": at, "recipes": recipes, "style": style.to_dict()})
    out = subprocess.run([sys.executable, "-c", code], input=spec, capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout.split(" ", 1)
    assert out[0] == hashlib.sha256(png).hexdigest()
    assert json.loads(out[1]) == [boxes, recipes]


def test_a_style_survives_json():
    style = _hanzi.Style.draw(random.Random(5))
    assert _hanzi.Style.from_dict(json.loads(json.dumps(style.to_dict()))) == style
    with pytest.raises(ValueError, match="unknown style keys"):
        _hanzi.Style.from_dict({**style.to_dict(), "colour": 1})


def test_boxes_hold_each_character():
    cells, _, _ = _fake_cells()
    png, boxes = _hanzi.render_sentence(cells, _hanzi.Style(seed=2, cell=48, per_line=8))
    with Image.open(io.BytesIO(png)) as image:
        ink = np.asarray(image.convert("L")) < 128
    covered = np.zeros_like(ink)
    for x, y, w, h in boxes:
        assert w > 0 and h > 0 and x + w <= ink.shape[1] and y + h <= ink.shape[0]
        assert ink[y:y + h, x:x + w].any()
        covered[y:y + h, x:x + w] = True
    assert ink[~covered].sum() == 0  # all ink lies in some character's box


@pytest.mark.parametrize(("stroke", "like"), [(0, "土"), (1, "工"), (2, "三"), (3, "干下")])
def test_wang_minus_any_stroke_is_rejected(stroke, like):
    """王 less one stroke is 土, 工, 三 or a 干-like form (nearest by medians: 下): never a fake."""
    why = _fakes.coincides(_fakes.apply({"char": "王", "op": "remove", "stroke": stroke}))
    assert why is not None and any(ch in why for ch in like), why


@pytest.mark.parametrize(("recipe", "real"), [({"char": "作", "op": "swap", "donor": "搭"}, "拃"),
                                             ({"char": "第", "op": "swap", "donor": "葙"}, "苐")])
def test_a_swap_that_makes_a_character_the_stroke_data_lack_is_rejected(recipe, real):
    """作 with 扌 is 拃 and 第 with 艹 is 苐: real characters that only the font has."""
    assert _hanzi.glyph(real) is None
    assert _fakes.check(recipe)[1] is not None
    packed = _fakes.pack(_hanzi.rasterise(_fakes.apply(recipe), _fakes.BITMAP))
    assert real in _fakes._like_a_font_character(recipe["char"], packed)  # the font guard alone


@pytest.mark.parametrize(("recipe", "why"), [
    # a blind audit's fakes that nobody saw in the picture
    ({"char": "很", "op": "move", "stroke": 7, "dx": 124, "dy": 16}, "shifted by only"),  # a small 丿 nudged
    ({"char": "班", "op": "add", "stroke": 6, "dx": -29, "dy": 128}, "shifted by only"),  # a 4th horizontal in 王
    ({"char": "的", "op": "add", "stroke": 1, "dx": -40, "dy": 167}, "onto its own place"),  # a vertical prolonged
    ({"char": "吃", "op": "add", "stroke": 5, "dx": -36, "dy": 216}, "onto its own place"),  # a hook grown tall
    ({"char": "机", "op": "remove", "stroke": 0}, "visibly differ"),  # 木 without its horizontal
    ({"char": "带", "op": "remove", "stroke": 4}, "visibly differ"),  # a dot
    # the second audit's: found only zoomed in
    ({"char": "姨", "op": "move", "stroke": 6, "dx": -176, "dy": -119}, "moved onto other strokes"),  # 弓's hook
])
def test_a_fake_too_subtle_to_see_at_the_drawn_size_is_rejected(recipe, why):
    assert why in (_fakes.check(recipe)[1] or ""), recipe


@pytest.mark.parametrize(("recipe", "real"), [
    ({"char": "猫", "op": "remove", "stroke": 9}, "猎"),  # 田 without its centre vertical: 猎 has a stroke more
    ({"char": "给", "op": "remove", "stroke": 4}, "绍"),  # 合 without ㇏, as near to 绍 as twins are
])
def test_a_fake_that_reads_as_a_real_character_of_a_stroke_more_or_less_is_rejected(recipe, real):
    g = _fakes.apply(recipe)
    why = _fakes.coincides(g)
    assert why is not None and real in why, why


def test_an_ordinary_fake_is_not_taken_for_a_character_of_a_stroke_more_or_less():
    """The penalty for a stroke left over is not so small that every removal reads as its
    neighbours: 她 without 也's hook, 河 without 口's bottom pass."""
    for recipe in ({"char": "她", "op": "remove", "stroke": 5}, {"char": "河", "op": "remove", "stroke": 7}):
        assert _fakes.check(recipe)[1] is None, recipe


@pytest.mark.parametrize("donor", ["顆", "諠"])  # 頁 beside 亲, a full 言 beside 勿: traditional only
def test_a_swap_donor_is_a_simplified_character(donor):
    assert "GB2312" in _fakes.check({"char": "新" if donor == "顆" else "物", "op": "swap", "donor": donor})[1]


def test_styles_draw_cells_large_enough_to_see_a_fake():
    rng = random.Random(1)
    for _ in range(50):
        style = _hanzi.Style.draw(rng)
        assert 56 <= style.cell <= 72 and 8 <= style.per_line <= 12 and style.jitter_stroke <= 8


def test_real_characters_and_their_near_twins_count_as_real():
    for a, b in ("未末", "己已", "日曰", "土士"):
        assert _fakes.is_real(_hanzi.glyph(a))
        # b with a stroke nudged, passed off as a fake of a: it is still b
        nudged = _fakes.apply({"char": b, "op": "move", "stroke": 0, "dx": 6, "dy": -4})
        assert _fakes.is_real(_hanzi.Glyph(a, nudged.strokes, nudged.medians)), (a, b)


@functools.cache
def _all_bitmaps() -> np.ndarray:
    return np.unpackbits(_fakes.index().bits.view(np.uint8), axis=1, bitorder="little").astype(bool)


def _brute_force(g: _hanzi.Glyph) -> tuple[float, float, bool]:
    """The smallest median distance to any real character with as many strokes, the
    largest bitmap IoU with any real character but the source, and whether any real
    character has the same stroke outlines: every character, no bounds, no pruning."""
    ix = _fakes.index()
    a = _fakes.normalised_medians(g)
    best = math.inf
    for i in np.flatnonzero(ix.counts == len(g.strokes)):
        cost = _fakes.stroke_costs(a, ix.medians[ix.offsets[i]:ix.offsets[i + 1]].astype(np.float64))
        rows, cols = linear_sum_assignment(cost)
        if ix.chars[i] != g.char:
            best = min(best, float(cost[rows, cols].mean()))
    bits = _all_bitmaps()
    mine = _hanzi.rasterise(g, _fakes.BITMAP).reshape(-1)
    iou = (bits & mine).sum(axis=1) / np.maximum((bits | mine).sum(axis=1), 1)
    iou[ix.position[g.char]] = 0
    outlines = set(g.strokes)  # equal sets have equal sizes: only characters of as many strokes
    same = any(outlines == set(_hanzi.glyph(str(c)).strokes) for c in ix.chars[ix.counts == len(outlines)])
    return best, float(iou.max()), same


def test_every_fake_of_a_sample_differs_from_every_real_character():
    rng = random.Random(26)
    ops, none = set(), []
    for ch in SAMPLE:
        recipe = _fakes.make_fake(ch, rng)
        if recipe is None:  # a dense character may have no edit that shows at the drawn size
            none.append(ch)
            continue
        ops.add(recipe["op"])
        g = _fakes.apply(recipe)
        assert not _fakes.is_real(g), recipe
        median, iou, same = _brute_force(g)
        assert not same
        assert median >= _fakes.median_limit(len(g.strokes)), (recipe, median)
        assert iou < _fakes.IOU_NEAR, (recipe, iou)
        source = _hanzi.glyph(ch)
        changed = (_hanzi.rasterise(g, 64) ^ _hanzi.rasterise(source, 64)).sum()
        assert changed >= _fakes.MIN_CHANGED, recipe  # it differs visibly from its source
        far, piece = _fakes.far_pixels(g, source)  # and at the size it is drawn
        assert far >= _fakes.FAR_MIN and (piece >= _fakes.FAR_BLOB or recipe["op"] == "swap"), (recipe, far, piece)
        if recipe["op"] == "swap":
            recipe["donor"].encode("gb2312")
    assert len(ops) >= 3, ops
    assert len(none) <= len(SAMPLE) // 6, none  # a few characters have no fake both safe and visible


def test_apply_gives_the_same_glyph_from_a_json_recipe():
    rng = random.Random(4)
    for ch in "读题钱跑":
        recipe = next(filter(None, (_fakes.make_fake(ch, rng) for _ in range(3))))
        again = _fakes.apply(json.loads(json.dumps(recipe, ensure_ascii=False)))
        assert again == _fakes.apply(recipe)
        assert again.strokes != _hanzi.glyph(ch).strokes
    for bad, why in [({"char": "读", "op": "melt"}, "unknown fake operation"),
                     ({"char": "读", "op": "move"}, "lacks"),
                     ({"char": "读", "op": "remove", "stroke": 10}, "no stroke 10"),
                     ({"char": "读", "op": "remove", "stroke": -1}, "no stroke -1")]:
        with pytest.raises(ValueError, match=why):
            _fakes.apply(bad)


def test_simple_or_unknown_characters_get_no_fake():
    rng = random.Random(0)
    assert _fakes.make_fake("王", rng) is None  # 4 strokes: its edits are other characters
    assert _fakes.make_fake("，", rng) is None


def _ink_stats(ink: np.ndarray, box: list[int]) -> np.ndarray:
    """Stroke width (twice the mean distance of an ink pixel to the paper), ink density
    in the character's box, and its size."""
    x, y, w, h = box
    m = np.pad(ink[y:y + h, x:x + w], 1)
    return np.array([2 * ndimage.distance_transform_edt(m)[m].mean(), m.sum() / (w * h), max(w, h)])


def test_fakes_are_in_the_same_hand_as_their_neighbours():
    """Stroke width, ink density and size of every fake lie within the spread of the real
    characters written beside it (no faked glyph can be told by its style), while Hanzi the
    Kai font draws (characters without stroke data) fall outside it: the statistics do tell
    hands apart."""
    text = "图书馆里很安静同学们都在认真读书写作业老师在黑板上写了一道数学题我们讨论这个问题"
    font_drawn = "拃苐㑇"  # in the font, not in the stroke data
    rng = random.Random(3)
    cells, fakes = list(text), []
    for i in range(0, len(text), 3):
        recipe = _fakes.make_fake(text[i], rng)
        if recipe:
            cells[i] = _fakes.apply(recipe)
            fakes.append(i)
    assert len(fakes) >= 6
    style = _hanzi.Style(seed=7, cell=96, per_line=12, pen=10.0)
    png, boxes = _hanzi.render_sentence(cells + list(font_drawn), style)
    with Image.open(io.BytesIO(png)) as image:
        ink = np.asarray(image.convert("L")) < 128
    real = np.array([_ink_stats(ink, b) for i, b in enumerate(boxes[:len(text)]) if i not in fakes])
    low, high = real.min(axis=0) - real.std(axis=0) / 2, real.max(axis=0) + real.std(axis=0) / 2
    for i in fakes:
        stats = _ink_stats(ink, boxes[i])
        assert (low <= stats).all() and (stats <= high).all(), (text[i], stats, low, high)
    font = [_ink_stats(ink, b) for b in boxes[len(text):]]
    assert any(((f < low) | (f > high)).any() for f in font)


def test_a_missing_stroke_folder_names_the_make_target(tmp_path, monkeypatch):
    monkeypatch.setenv("COGFORGE_PROJECT", str(tmp_path))
    with pytest.raises(UserError, match="make setup-hanzi"):
        _hanzi.stroke_folder()
    with pytest.raises(UserError, match="make setup-hanzi"):
        _hanzi.glyph("读")


def test_the_index_is_cached_atomically_and_rebuilt_when_damaged(tmp_path, monkeypatch):
    real = _hanzi.stroke_folder()
    folder = tmp_path / ".cache" / "hanzi-writer-data"
    folder.mkdir(parents=True)
    for name in ["ARPHICPL.TXT", "package.json", *(f"{c}.json" for c in "一王土工三干读题")]:
        (folder / name).write_bytes((real / name).read_bytes())
    (folder / ".fakes-index-v0-0000000000000000.npz").write_bytes(b"an older version's")
    monkeypatch.setenv("COGFORGE_PROJECT", str(tmp_path))
    monkeypatch.setattr(_fakes, "font_hanzi", lambda: list("一拃苐"))  # not the font's 19,128
    index = _fakes.index()
    cached = list(folder.glob(".fakes-index-*.npz"))
    assert len(cached) == 1 and not list(folder.glob("*.tmp"))  # the older one is gone
    assert sorted(index.chars.tolist()) == sorted("一王土工三干读题")
    assert index.font_chars.tolist() == ["拃", "苐"]  # the font's Hanzi the data lack
    cached[0].write_bytes(b"not an index")
    _fakes._index.cache_clear()
    again = _fakes.index()
    assert np.array_equal(again.bits, index.bits) and cached[0].read_bytes()[:2] == b"PK"
    _fakes._index.cache_clear()
