"""The property check for refined images: did refinement keep what the item asks about?

A refined image (``generators/refine.py``: a diffusers pipeline redraws the procedural
render to look like a photograph) is compared with the render it was conditioned on, whose
object regions are known exactly (:func:`generators.carv.object_masks`). Three properties
are measured; each fails on its own threshold (:class:`Thresholds`):

* **edges**: edges of the render against edges re-extracted from the refined image, each
  set widened by ``EDGE_TOLERANCE_PX`` so that a line moved by a pixel or two still meets
  its twin; the IoU of the widened sets, over the whole image and inside each object's
  region. A different layout, a lost, swapped or added object, or an image that no longer
  follows its condition falls below the thresholds.
* **colour**: per object, the circular mean hue of its coloured pixels inside its mask
  (saturation-weighted; near-grey and near-black pixels have no hue and are left out), in the
  refined image against the render's inside the same mask. An object whose colour has gone
  (almost no coloured pixels left where the render had them) fails too.
* **count**: the refined image is segmented into foreground and background (each row's
  background colour is the median of the row outside the objects, so wall, floor and a
  lighting gradient are background). An object is present when its mask is covered by
  foreground at least ``PRESENT_COVERAGE`` times as much as in the render; every foreground
  blob of at least ``EXTRA_MIN_AREA`` pixels that is away from every object and was not
  foreground in the render (shadows, the floor line) is one more object. The count must
  match the render's number of objects.

``check_refined(render_png, refined_png, state)`` returns a :class:`Verdict`;
``check_refined_build(build)`` is the ``cogforge qc`` check for a refined CARV build
(``manifest["renderer"]["name"] == "refine"``): one error per image that fails, naming the
property and its measure.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field, fields

import numpy as np
from scipy import ndimage

from cogforge.generators.carv import PROPERTIES, State, object_masks
from cogforge.qc.core import Build, CheckResult, Finding

# --------------------------------------------------------------------------- thresholds
# The figures behind each number are in the README ("The property check") and in
# tests/test_refine_qc.py, which measures them on real CARV renders.

# Measured on 8 CARV states (README, "The property check"): lightly perturbed renders (blur
# sigma 1-1.5, JPEG q30-60, noise sigma 8-15, brightness x0.85-1.15, a 2 px shift) keep an
# image edge IoU of 0.58 or more; another layout (other furniture or relation) falls to 0.12-0.30.
EDGE_IOU = 0.45
# Inside one object's region the same perturbations keep 0.51 or more; painted-out objects
# fall to 0.04-0.12 and half of the subject swaps below 0.45 (0.37-0.63: a same-sized item in
# the same place shares its outline, so identity is left to the hue check and to people).
OBJECT_EDGE_IOU = 0.45
# Perturbations move an object's hue by 8 degrees at most; the closest two furniture colours
# (wood ~30 deg, red ~5 deg) are 25 degrees apart, so 15 degrees tells them apart with room.
HUE_DEGREES = 15.0
COUNT_TOLERANCE = 0

# Measurement settings (not thresholds: they define what is measured).
EDGE_SIGMA = 1.0  # Gaussian smoothing before the gradient: JPEG blocks and noise are not edges
EDGE_MAGNITUDE = 40.0  # gradient magnitude (luminance, 0-255 per pixel) that counts as an edge
EDGE_TOLERANCE_PX = 2  # how far an edge may move and still match
GREY_SATURATION = 0.25  # below this saturation a pixel has no reliable hue
DARK_VALUE = 0.15  # below this brightness neither
COLOUR_LOST = 0.3  # an object keeps fewer than this share of its coloured pixels: colour gone
MIN_COLOURED_PX = 30  # an object with fewer coloured pixels in the render has no hue to check
FOREGROUND_DISTANCE = 40.0  # RGB distance from the row's background colour that is foreground
PRESENT_COVERAGE = 0.25  # present: covered >= a quarter as much as in the render (perturbed >= 0.48,
# painted over 0.00; a pale candle on the pale wall loses half its cover when brightened)
EXTRA_MIN_AREA = 300  # px; perturbations leave no blob at all, a pasted pale candle 661 px
OBJECT_MARGIN_PX = 6  # blobs this close to an object belong to it (shadows, soft edges)


@dataclass(frozen=True)
class Thresholds:
    """When a property has drifted too far (defaults above, reasons in the README)."""

    edge_iou: float = EDGE_IOU  # min IoU of edges (refined vs render)
    hue: float = HUE_DEGREES  # max circular hue distance, degrees, per object region
    count_tolerance: int = COUNT_TOLERANCE  # 0: object counts must match
    object_edge_iou: float = OBJECT_EDGE_IOU  # min IoU of edges inside each object's region


@dataclass(frozen=True)
class Verdict:
    ok: bool
    measures: dict  # {"edge_iou": 0.71, "hue": {"cup": 4.2, "table": 1.0}, "count": [2, 2], ...}
    reasons: list[str] = field(default_factory=list)  # one short line per property that drifted


# --------------------------------------------------------------------------- measures


def _rgb(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.float32)


def _edges(rgb: np.ndarray) -> np.ndarray:
    luma = ndimage.gaussian_filter(rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32), EDGE_SIGMA)
    magnitude = np.hypot(ndimage.sobel(luma, 0), ndimage.sobel(luma, 1)) / 4  # sobel sums 4 px weights
    return magnitude > EDGE_MAGNITUDE


def _widen(mask: np.ndarray, px: int) -> np.ndarray:
    return ndimage.binary_dilation(mask, ndimage.generate_binary_structure(2, 1), iterations=px)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    union = np.count_nonzero(a | b)
    return float(np.count_nonzero(a & b) / union) if union else 1.0


def edge_iou(render: np.ndarray, refined: np.ndarray, masks: dict | None = None) -> tuple[float, dict]:
    """IoU of the two images' edge maps, each widened by ``EDGE_TOLERANCE_PX``: over the
    whole image, and inside each object's region (its mask widened by ``OBJECT_MARGIN_PX``,
    so that its outline is in): an object swapped for another of the same colour and
    size keeps most of the image's edges but few of its own."""
    a, b = _widen(_edges(render), EDGE_TOLERANCE_PX), _widen(_edges(refined), EDGE_TOLERANCE_PX)
    per_object = {}
    for name, mask in (masks or {}).items():
        region = _widen(mask, OBJECT_MARGIN_PX)
        per_object[name] = round(_iou(a & region, b & region), 3)
    return _iou(a, b), per_object


def _hsv(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hue in radians, saturation and value in [0, 1]."""
    top, low = rgb.max(axis=2), rgb.min(axis=2)
    spread = top - low
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    safe = np.where(spread > 0, spread, 1)
    hue = np.where(top == r, ((g - b) / safe) % 6, np.where(top == g, (b - r) / safe + 2, (r - g) / safe + 4))
    return hue * (np.pi / 3), np.where(top > 0, spread / np.maximum(top, 1), 0), top / 255


def _coloured(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    hue, sat, val = _hsv(rgb)
    return hue, sat, (sat >= GREY_SATURATION) & (val >= DARK_VALUE)


def _mean_hue(hue: np.ndarray, weight: np.ndarray) -> float:
    return float(np.angle(np.sum(weight * np.exp(1j * hue))))


def hue_distances(render: np.ndarray, refined: np.ndarray, masks: dict) -> dict:
    """Per object: circular hue distance in degrees, "lost" when the colour has gone, or None
    when the render shows it without colour (a white cup: nothing to compare)."""
    h0, s0, c0 = _coloured(render)
    h1, s1, c1 = _coloured(refined)
    out: dict = {}
    for name, mask in masks.items():
        inner = ndimage.binary_erosion(mask, iterations=1)  # edge pixels mix with the neighbours
        before, after = inner & c0, inner & c1
        if np.count_nonzero(before) < MIN_COLOURED_PX:
            out[name] = None
        elif np.count_nonzero(after) < COLOUR_LOST * np.count_nonzero(before):
            out[name] = "lost"
        else:
            a = _mean_hue(h0[before], s0[before])
            b = _mean_hue(h1[after], s1[after])
            out[name] = round(float(np.degrees(abs(np.angle(np.exp(1j * (a - b)))))), 1)
    return out


def _foreground(rgb: np.ndarray, objects: np.ndarray) -> np.ndarray:
    """Pixels away from their row's background colour (the row's median outside the objects)."""
    rows = np.where(objects[..., None], np.nan, rgb)
    rows[objects.all(axis=1)] = rgb[objects.all(axis=1)]  # a row with no background: its own median
    background = np.nanmedian(rows, axis=1)
    distance = np.linalg.norm(rgb - background[:, None, :], axis=2)
    return ndimage.binary_opening(distance > FOREGROUND_DISTANCE, iterations=1)


def object_count(render: np.ndarray, refined: np.ndarray, masks: dict) -> dict:
    """The render's objects, which of them the refined image still shows, and the new blobs."""
    objects = np.zeros(render.shape[:2], dtype=bool)
    for mask in masks.values():
        objects |= mask
    near = _widen(objects, OBJECT_MARGIN_PX)
    f0, f1 = _foreground(render, near), _foreground(refined, near)
    coverage = {}
    for name, mask in masks.items():
        inner = ndimage.binary_erosion(mask, iterations=2)
        area = max(np.count_nonzero(inner), 1)
        coverage[name] = (np.count_nonzero(f0 & inner) / area, np.count_nonzero(f1 & inner) / area)
    present = [n for n, (before, after) in coverage.items() if after >= PRESENT_COVERAGE * before]
    new = f1 & ~near & ~_widen(f0, OBJECT_MARGIN_PX)
    labels, found = ndimage.label(new)
    sizes = ndimage.sum_labels(new, labels, range(1, found + 1)) if found else []
    extra = [int(s) for s in sizes if s >= EXTRA_MIN_AREA]
    return {"count": [len(masks), len(present) + len(extra)],
            "missing": [n for n in masks if n not in present], "extra_px": extra,
            "coverage": {n: [round(a, 2), round(b, 2)] for n, (a, b) in coverage.items()}}


# --------------------------------------------------------------------------- the check


def check_refined(render_png: bytes, refined_png: bytes, state: State) -> Verdict:
    """Compare a refined image with its render under the default :class:`Thresholds`."""
    return check_refined_with(render_png, refined_png, state, Thresholds())


def check_refined_with(render_png: bytes, refined_png: bytes, state: State, thresholds: Thresholds) -> Verdict:
    """Compare a refined image with the render of ``state`` it was conditioned on.

    Args:
        render_png: the procedural render (the condition).
        refined_png: the refined image; resized to the render's size if it differs.
        state: the CARV state both show; its objects' regions come from ``object_masks``.
        thresholds: when a property has drifted too far.
    """
    render = _rgb(render_png)
    refined = _rgb(refined_png)
    if refined.shape != render.shape:
        from PIL import Image

        size = (render.shape[1], render.shape[0])
        refined = np.asarray(Image.fromarray(refined.astype(np.uint8)).resize(size, Image.LANCZOS),
                             dtype=np.float32)
    masks = object_masks(state)
    iou, object_iou = edge_iou(render, refined, masks)
    iou = round(iou, 3)
    hues = hue_distances(render, refined, masks)
    counted = object_count(render, refined, masks)
    reasons = []
    if iou < thresholds.edge_iou:
        reasons.append(f"edges: IoU {iou:.2f} < {thresholds.edge_iou:.2f}")
    for name, value in object_iou.items():
        if value < thresholds.object_edge_iou:
            reasons.append(f"edges: {name} IoU {value:.2f} < {thresholds.object_edge_iou:.2f}")
    for name, distance in hues.items():
        if distance == "lost":
            reasons.append(f"colour: {name} has lost its colour")
        elif distance is not None and distance > thresholds.hue:
            reasons.append(f"colour: {name} hue moved {distance:.0f} deg > {thresholds.hue:.0f}")
    expected, seen = counted["count"]
    if abs(seen - expected) > thresholds.count_tolerance:
        what = []
        if counted["missing"]:
            what.append("missing " + ", ".join(counted["missing"]))
        if counted["extra_px"]:
            what.append(f"{len(counted['extra_px'])} new region(s) of {counted['extra_px']} px")
        reasons.append(f"count: {seen} objects, the render has {expected} ({'; '.join(what)})")
    measures = {"edge_iou": iou, "edge_iou_objects": object_iou, "hue": hues, "count": counted["count"],
                "coverage": counted["coverage"], "extra_px": counted["extra_px"]}
    return Verdict(ok=not reasons, measures=measures, reasons=reasons)


def is_refined(manifest: dict) -> bool:
    return (manifest.get("renderer") or {}).get("name") == "refine"


def build_thresholds(manifest: dict) -> Thresholds:
    """The thresholds the build refined with: its config's ``[refine.qc]`` (the manifest's
    ``refine.qc``) over the defaults, so QC re-checks what the build checked."""
    chosen = ((manifest.get("refine") or {}).get("qc")) or {}
    known = {f.name for f in fields(Thresholds)}
    return Thresholds(**{k: v for k, v in chosen.items() if k in known and v is not None})


def check_refined_build(build: Build) -> CheckResult:
    """``cogforge qc`` on a refined CARV build: every refined image against its render.

    Reads ``states.jsonl`` (``image``: the refined image, ``render``: the render beside it).
    Not a refined build (``manifest["renderer"]["name"] != "refine"``): nothing to check.
    """
    out = CheckResult()
    if not is_refined(build.manifest):
        return out
    states_file = build.path / "states.jsonl"
    if not states_file.is_file():
        out.findings.append(Finding("error", "refine", "states.jsonl", "missing: the state -> image map"))
        return out
    thresholds = build_thresholds(build.manifest)
    checked = failed = 0
    worst = {"edge_iou": 1.0, "hue": 0.0}
    for number, line in enumerate(states_file.read_text().splitlines(), 1):
        where = f"states.jsonl:{number}"
        try:
            row = json.loads(line)
            state = State(*(row["state"][p] for p in PROPERTIES))
            image, render = row["image"], row["render"]
        except (ValueError, KeyError, TypeError):
            out.findings.append(Finding("error", "refine", where, "not a refined state row "
                                        "(needs state, image and render); rebuild with --renderer refine"))
            failed += 1
            continue
        try:
            verdict = check_refined_with((build.path / render).read_bytes(), (build.path / image).read_bytes(),
                                         state, thresholds)
        except FileNotFoundError as err:
            out.findings.append(Finding("error", "refine", where, f"{err.filename} is missing"))
            failed += 1
            continue
        except (OSError, ValueError) as err:  # not a PNG, a state outside the world
            out.findings.append(Finding("error", "refine", image, f"cannot be compared with {render}: {err}"))
            failed += 1
            continue
        checked += 1
        worst["edge_iou"] = min(worst["edge_iou"], verdict.measures["edge_iou"])
        worst["hue"] = max([worst["hue"]] + [h for h in verdict.measures["hue"].values()
                                             if isinstance(h, float)])
        if not verdict.ok:
            failed += 1
            out.findings.append(Finding("error", "refine", image,
                                        f"refinement changed the picture ({render}): " + "; ".join(verdict.reasons)))
    out.stats = {"images_checked": checked, "images_failed": failed, "min_edge_iou": worst["edge_iou"],
                 "max_hue_deg": worst["hue"], "thresholds": vars(thresholds)}
    return out


CHECKS = [("refine", check_refined_build)]
