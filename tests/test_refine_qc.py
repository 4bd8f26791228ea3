"""The property check for refined images (qc/refine.py) can fail and can pass, on real CARV renders.

No diffusion model here: a "refined" image is the procedural render itself, a lightly
perturbed copy (what a faithful refinement does at most to the properties), or a copy that
destroys one property (an object recoloured, painted over, duplicated; another state's render).
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageEnhance, ImageFilter
from scipy import ndimage

from cogforge.generators.carv import ProceduralRenderer, State, load_world, object_masks, object_names
from cogforge.qc import run_qc
from cogforge.qc.refine import Thresholds, check_refined, check_refined_with

# A furniture colour of each kind, one and two items, every relation.
STATES = [State("cup", "one", "table", "wood", "on"), State("teapot", "two", "table", "wood", "left"),
          State("bottle", "two", "chair", "blue", "under"), State("candle", "one", "chair", "red", "right")]
RENDER = ProceduralRenderer()


@pytest.fixture(scope="module")
def renders() -> dict[State, bytes]:
    return {s: RENDER.render(s) for s in STATES}


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def png(image: Image.Image | np.ndarray) -> bytes:
    if isinstance(image, np.ndarray):
        image = Image.fromarray(image.astype(np.uint8))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def jpeg(data: bytes, quality: int = 60) -> bytes:
    out = io.BytesIO()
    Image.open(io.BytesIO(data)).save(out, format="JPEG", quality=quality)
    return png(Image.open(io.BytesIO(out.getvalue())).convert("RGB"))


def noisy(data: bytes, sigma: float = 8.0) -> bytes:
    noise = np.random.default_rng(0).normal(0, sigma, (512, 512, 3))
    return png(np.clip(pixels(data) + noise, 0, 255))


LIGHT = {
    "blur": lambda p: png(Image.open(io.BytesIO(p)).filter(ImageFilter.GaussianBlur(1.0))),
    "jpeg q60": jpeg,
    "noise sigma 8": noisy,
    "brightness x1.1": lambda p: png(ImageEnhance.Brightness(Image.open(io.BytesIO(p))).enhance(1.1)),
    "all four": lambda p: jpeg(noisy(png(ImageEnhance.Brightness(
        Image.open(io.BytesIO(p)).filter(ImageFilter.GaussianBlur(0.8))).enhance(1.1)), 5), 70),
}


def recolour(data: bytes, mask: np.ndarray, degrees: float) -> bytes:
    hsv = np.asarray(Image.open(io.BytesIO(data)).convert("HSV")).copy()
    hsv[..., 0][mask] = (hsv[..., 0][mask].astype(int) + round(degrees * 256 / 360)) % 256
    return png(Image.fromarray(hsv, "HSV").convert("RGB"))


def paint_over(data: bytes, mask: np.ndarray) -> bytes:
    """The object (and its outline's antialiased rim) painted in its rows' background colour."""
    a = pixels(data).copy()
    grown = ndimage.binary_dilation(mask, iterations=4)
    for y in np.flatnonzero(grown.any(axis=1)):
        a[y][grown[y]] = np.median(a[y][~grown[y]], axis=0)
    return png(a)


def paste_copy(data: bytes, mask: np.ndarray, dx: int) -> bytes:
    a = pixels(data).copy()
    ys, xs = np.nonzero(mask)
    a[ys, xs + dx] = a[ys, xs]
    return png(a)


# --------------------------------------------------------------------------- the masks


@pytest.mark.parametrize("state", STATES, ids=lambda s: "-".join(s))
def test_masks_line_up_with_the_render(state, renders):
    masks = object_masks(state)
    assert list(masks) == object_names(state)
    image = pixels(renders[state]).astype(int)
    palette = load_world().palette
    background = {tuple(int(palette[k][i:i + 2], 16) for i in (1, 3, 5)) for k in ("wall", "floor")}
    union = np.zeros((512, 512), dtype=bool)
    for name, mask in masks.items():
        assert mask.shape == (512, 512) and mask.sum() > 1000, name
        assert not (union & mask).any(), f"{name} overlaps an object drawn before it"
        union |= mask
        # Not one pixel of wall or floor inside an object.
        assert not any(tuple(px) in background for px in image[mask]), name
    # Outside the objects (give or take their antialiased rim) there is only wall, floor and
    # shadow: grey pixels. Furniture and items are coloured, so a shifted mask would leave colour.
    rest = image[~ndimage.binary_dilation(union)]
    assert (rest.max(axis=1) - rest.min(axis=1)).max() <= 16  # the floor line: 154,160,168
    # The furniture's paints (and outline) are what its mask covers, and no item's mask has them.
    paints = [tuple(int(palette[state.object_color][k][i:i + 2], 16) for i in (1, 3, 5))
              for k in ("top", "front", "leg")]

    def share(region: np.ndarray, colours: list) -> float:
        near = np.min([np.abs(image[region] - np.array(c)).sum(axis=1) for c in colours], axis=0)
        return float((near < 6).mean())

    assert share(masks[state.object], paints + [(43, 43, 43)]) > 0.5
    assert all(share(mask, paints) < 0.01 for name, mask in masks.items() if name != state.object)


def test_an_item_in_front_of_the_furniture_is_cut_out_of_its_mask():
    on = State("apple", "one", "table", "blue", "on")
    beside = State("apple", "one", "table", "blue", "left")
    assert object_masks(on)["table"].sum() < object_masks(beside)["table"].sum() - 300


# --------------------------------------------------------------------------- passes


@pytest.mark.parametrize("state", STATES, ids=lambda s: "-".join(s))
def test_the_render_itself_and_light_perturbations_pass(state, renders):
    render = renders[state]
    same = check_refined(render, render, state)
    assert same.ok and same.measures["edge_iou"] == 1.0 and same.reasons == []
    assert same.measures["count"] == [len(object_names(state))] * 2
    for name, perturb in LIGHT.items():
        verdict = check_refined(render, perturb(render), state)
        assert verdict.ok, (name, verdict.reasons, verdict.measures)


# --------------------------------------------------------------------------- fails


@pytest.mark.parametrize("state", STATES, ids=lambda s: "-".join(s))
def test_a_recoloured_object_fails_on_hue(state, renders):
    masks = object_masks(state)
    for name in (state.object, object_names(state)[-1]):
        verdict = check_refined(renders[state], recolour(renders[state], masks[name], 40), state)
        assert not verdict.ok
        assert verdict.measures["hue"][name] > 30
        assert [r for r in verdict.reasons if r.startswith(f"colour: {name} hue moved")]


@pytest.mark.parametrize("state", STATES, ids=lambda s: "-".join(s))
def test_an_object_painted_over_fails_on_count_and_edges(state, renders):
    item = object_names(state)[-1]
    verdict = check_refined(renders[state], paint_over(renders[state], object_masks(state)[item]), state)
    assert not verdict.ok
    expected = len(object_names(state))
    assert verdict.measures["count"] == [expected, expected - 1]
    assert any(r.startswith("count:") and f"missing {item}" in r for r in verdict.reasons)
    assert any(r.startswith(f"edges: {item} IoU") for r in verdict.reasons)


def test_a_second_copy_of_an_item_fails_on_count(renders):
    state = STATES[0]  # one cup on the table: a second cup appears on the wall beside it
    verdict = check_refined(renders[state], paste_copy(renders[state], object_masks(state)["cup"], 150), state)
    assert not verdict.ok and verdict.measures["count"] == [2, 3]
    assert verdict.reasons == [f"count: 3 objects, the render has 2 (1 new region(s) of "
                               f"{verdict.measures['extra_px']} px)"]


@pytest.mark.parametrize("change", [{"object_color": "red"}, {"spatial_relation": "under"},
                                    {"subject_number": "two"}, {"object": "chair"}, {"subject": "bottle"}],
                         ids=lambda c: next(iter(c)))
def test_another_states_render_fails(change, renders):
    # Not every subject swap fails: a bowl for the cup (same place, size and colours) keeps the
    # cup's region IoU at 0.51 and its hue within 3 degrees (README, "What it does not catch").
    state = STATES[0]
    other = RENDER.render(state._replace(**change))
    verdict = check_refined(renders[state], other, state)
    assert not verdict.ok, verdict.measures


def test_thresholds_decide(renders):
    state = STATES[0]
    recoloured = recolour(renders[state], object_masks(state)["table"], 40)
    assert check_refined_with(renders[state], recoloured, state, Thresholds(hue=60)).ok
    assert not check_refined_with(renders[state], renders[state], state, Thresholds(edge_iou=1.01)).ok


# --------------------------------------------------------------------------- `cogforge qc`


def refined_build(folder: Path, renders: dict[State, bytes], recoloured: State | None) -> Path:
    """A refined CARV build's layout, by hand: images/ (the "refined" images: light
    perturbations of the renders, one recoloured) and renders/ beside them."""
    world = load_world()
    (folder / "images").mkdir(parents=True)
    (folder / "renders").mkdir()
    rows = []
    for n, (state, render) in enumerate(renders.items()):
        key = f"{n:02d}"
        refined = jpeg(render)
        if state == recoloured:
            refined = recolour(refined, object_masks(state)[state.object], 90)
        (folder / "images" / f"{key}.png").write_bytes(refined)
        (folder / "renders" / f"{key}.png").write_bytes(render)
        rows.append({"state": state._asdict(), "caption": world.caption(state), "image": f"images/{key}.png",
                     "render": f"renders/{key}.png", "refine": {"seed": n, "attempt": 0, "measures": {}}})
    (folder / "states.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "items.jsonl").write_text("")
    (folder / "manifest.json").write_text(json.dumps({"benchmark": "carv", "renderer": {
        "name": "refine", "version": "1", "model": "hand-made", "pipeline": "none"}}))
    return folder


def test_cogforge_qc_reports_each_image_that_fails(renders, tmp_path):
    build = refined_build(tmp_path / "carv", renders, recoloured=STATES[2])
    report = run_qc(build, decisions=tmp_path / "none.jsonl")
    refine = [f for f in report.findings if f.check == "refine"]
    assert [(f.severity, f.target) for f in refine] == [("error", "images/02.png")]
    assert "renders/02.png" in refine[0].message and "colour: chair hue moved" in refine[0].message
    assert report.stats["refine"]["images_checked"] == 4 and report.stats["refine"]["images_failed"] == 1


def test_cogforge_qc_checks_with_the_thresholds_the_build_used(renders, tmp_path):
    build = refined_build(tmp_path / "carv", renders, recoloured=STATES[2])
    manifest = json.loads((build / "manifest.json").read_text())
    loose = {"edge_iou": None, "object_edge_iou": None, "hue": 179.0, "count_tolerance": None}
    (build / "manifest.json").write_text(json.dumps({**manifest, "refine": {"qc": loose}}))
    report = run_qc(build, decisions=tmp_path / "none.jsonl")
    assert not [f for f in report.findings if f.check == "refine"]
    assert report.stats["refine"]["thresholds"] == {**vars(Thresholds()), "hue": 179.0}


def test_cogforge_qc_skips_a_build_that_is_not_refined(renders, tmp_path):
    build = refined_build(tmp_path / "carv", renders, recoloured=STATES[2])
    manifest = json.loads((build / "manifest.json").read_text())
    (build / "manifest.json").write_text(json.dumps({**manifest, "renderer": {"name": "procedural"}}))
    report = run_qc(build, decisions=tmp_path / "none.jsonl")
    assert "refine" in report.checks and not [f for f in report.findings if f.check == "refine"]


def test_a_missing_render_is_a_finding_not_a_traceback(renders, tmp_path):
    build = refined_build(tmp_path / "carv", renders, recoloured=None)
    (build / "renders" / "01.png").unlink()
    report = run_qc(build, decisions=tmp_path / "none.jsonl")
    refine = [f for f in report.findings if f.check == "refine"]
    assert [(f.target, f.message.endswith("01.png is missing")) for f in refine] == [("states.jsonl:2", True)]


# --------------------------------------------------------------------------- the image audit


def test_the_image_audit_shows_the_refined_image_beside_its_render(server, conn, root, renders):
    """A real Label Studio server: the tasks carry both pictures, and both are served."""
    import httpx

    from cogforge.annotation import projects

    build = root / "refined" / "carv"
    shutil.rmtree(build, ignore_errors=True)
    refined_build(build, renders, recoloured=STATES[2])
    result = projects.push(build, "carv-image-audit", conn=conn, document_root=root,
                           title="carv refined image audit")
    assert result["added"] == 4
    tasks = {t.data["key"]: t for t in conn.client.tasks.list(project=result["project"], fields="all")}
    task = tasks["02"]
    assert "/data/local-files/?d=refined/carv/images/02.png" == task.data["image"]
    assert "/data/local-files/?d=refined/carv/renders/02.png" in task.data["render"]
    # The property check's verdict is the machine suggestion: reject, wrong colour.
    suggested = [r["value"]["choices"] for r in task.predictions[0].result]
    assert suggested == [["reject"], ["wrong colour"]]
    assert [r["value"]["choices"] for r in tasks["01"].predictions[0].result] == [["accept"]]
    for url in (task.data["image"], task.data["render"].split('src="')[1].split('"')[0]):
        served = httpx.get(server.url + url, headers={"Authorization": f"Token {server.creds.token}"},
                           timeout=30)
        assert served.status_code == 200 and served.content[:8] == b"\x89PNG\r\n\x1a\n", url
